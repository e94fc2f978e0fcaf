/*
 * The state database: every delivery transition (a table of steps with
 * the status each must leave), due selection including reports left
 * 'sending' by a run killed with SIGKILL, the hourly send log, duplicates,
 * follow-ups and threads, the ingest accessors, transactions grouped with
 * state_begin(), migrations on reopen, and the run lock between two opens
 * in one process and against a forked child, each recipient's outcome
 * (schema 4: migrated from version 3), the operator's actions on every
 * state they apply to or not, redirected reports kept apart, attempts a
 * failed session stopped.  Each test has its own
 * temporary state directory.
 *
 * <sqlite3.h> is included here only to look at and to tamper with the
 * file from outside, as another program would; perfbot's code reaches
 * SQLite through state.h alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "buf.h"
#include "delivery.h"
#include "state.h"
#include "schema4.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define T0 1773035458		/* 2026-03-09T05:50:58Z */

struct fixture {
	char dir[64];		/* the temporary directory */
	char state[96];		/* dir/state: not there until state_open() */
	struct state *st;
	pid_t child;		/* a forked helper still to be stopped, or 0 */
};

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;

	snprintf(f->dir, sizeof(f->dir), "/tmp/perfbot-test-state-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
	if (state_open(f->state, &f->st, &err) < 0) {
		fprintf(stderr, "state_open: %s\n", err.data);
		return -1;
	}
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	/* a failed assertion jumps out of a test before it stops its child */
	if (f->child > 0) {
		kill(f->child, SIGKILL);
		waitpid(f->child, NULL, 0);
	}
	state_close(f->st);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* A report as send would add it; key is the thread key. */
static void report_init(struct state_report *r, const char *mid, const char *key)
{
	static char mail[] = "From: lab <lab@example.org>\nSubject: x\n\nbody\n";

	memset(r, 0, sizeof(*r));
	r->message_id = (char *)mid;
	r->kind = STATE_KIND_REPORT;
	r->thread_key = (char *)key;
	r->identity = "tree linus/master\ncommit 0123\n";
	r->subject = "[linus:master] [mm]  0123456789: x 3.8% regression";
	r->from_name = "lab";
	r->from_email = "lab@example.org";
	r->env_from = "lab@example.org";
	r->env_rcpt = "author@example.org\nlist@example.org";
	r->to_addrs = "author@example.org";
	r->cc_addrs = "list@example.org";
	r->mail = mail;
	r->mail_len = sizeof(mail) - 1;
	r->created = T0;
}

static int64_t add(struct state *st, const struct state_report *r)
{
	struct buf err = BUF_INIT;
	int64_t id = 0;

	if (state_report_add(st, r, &id, &err) != 0)
		fail_msg("state_report_add %s: %s", r->message_id, err.data);
	buf_release(&err);
	return id;
}

static int64_t add_report(struct state *st, const char *mid, const char *key)
{
	struct state_report r;

	report_init(&r, mid, key);
	return add(st, &r);
}

static void get(struct state *st, int64_t id, struct state_report *out)
{
	struct buf err = BUF_INIT;

	if (state_report_get(st, id, out, &err) != 1)
		fail_msg("state_report_get %lld: %s", (long long)id, err.data);
	buf_release(&err);
}

static void ok(int r, const struct buf *err, const char *what)
{
	if (r != 0)
		fail_msg("%s: returned %d: %s", what, r, err->data);
}

/* Ends an attempt with every recipient's outcome: one delivered (sent),
 * deferred (queued again at next) or refused (failed). */
static int end_as(struct state *st, int64_t id, int64_t when, enum state_rcpt_status how,
		  const char *reply, struct buf *err)
{
	struct state_rcpt rcpt[] = { { how, "author@example.org", atoi(reply), (char *)reply },
				     { how, "list@example.org", atoi(reply), (char *)reply } };

	return state_report_mark_ended(st, id, when, when, reply, rcpt, 2, err);
}

static void open_creates_a_private_wal_database(void **state)
{
	struct fixture *f = *state;
	struct stat sb;
	struct buf path = BUF_INIT;
	sqlite3 *db;
	sqlite3_stmt *s;

	assert_int_equal(stat(f->state, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_mode & 0777, 0700);
	assert_true(state_exists(f->state));
	buf_addf(&path, "%s/state.db", f->state);
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0), "wal");
	sqlite3_finalize(s);
	sqlite3_close(db);
	assert_false(state_exists(f->dir));
	buf_release(&path);
}

/* A connection that changes nothing writes nothing into state.db at its
 * close: after a kept WAL, the checkpoint there copied it all back again. */
static void readonly_close_writes_nothing(void **state)
{
	struct fixture *f = *state;
	struct buf path = BUF_INIT, err = BUF_INIT;
	struct state_report r;
	struct stat before, after;
	struct state *st;
	int64_t id;

	buf_addf(&path, "%s/state.db", f->state);
	id = add_report(f->st, "<a@example.org>", "k1");
	state_close(f->st);
	f->st = NULL;
	assert_int_equal(stat(path.data, &before), 0);
	usleep(50 * 1000);	/* past the file system's clock tick */
	if (state_open(f->state, &st, &err) < 0)
		fail_msg("state_open: %s", err.data);
	get(st, id, &r);
	assert_string_equal(r.message_id, "<a@example.org>");
	state_report_release(&r);
	state_close(st);
	assert_int_equal(stat(path.data, &after), 0);
	assert_true(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
		    before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
	/* a write is still copied back at close */
	if (state_open(f->state, &f->st, &err) < 0)
		fail_msg("state_open: %s", err.data);
	add_report(f->st, "<b@example.org>", "k2");
	state_close(f->st);
	f->st = NULL;
	assert_int_equal(stat(path.data, &after), 0);
	assert_true(after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
		    after.st_mtim.tv_nsec != before.st_mtim.tv_nsec);
	if (state_open(f->state, &f->st, &err) < 0)
		fail_msg("state_open: %s", err.data);
	buf_release(&path);
	buf_release(&err);
}

/* The frames a process opening the database first finds in the WAL (its
 * recovery reads them all): a connection of its own, which copies none
 * back at its close. */
static int wal_frames(const char *dir)
{
	struct buf path = BUF_INIT;
	sqlite3 *db;
	int log = -1, copied = -1;

	buf_addf(&path, "%s/state.db", dir);
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &(int){ 1 });
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	/* a read opens the log (recovering it); then a checkpoint, which
	 * copies nothing when nothing is new, says how many frames it holds */
	assert_int_equal(sqlite3_exec(db, "SELECT COUNT(*) FROM sqlite_schema", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_PASSIVE, &log,
						   &copied), SQLITE_OK);
	sqlite3_close(db);
	buf_release(&path);
	return log;
}

/* Runs that each write a little do not grow the WAL without end: a
 * writer's close that finds more than STATE_WAL_RESTART frames in it
 * starts it again, and the next process recovers a few; the file keeps
 * its size (its blocks are written over, not freed and allocated). */
static void wal_starts_again(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT, path = BUF_INIT, key = BUF_INIT;
	struct stat sb;
	off_t size = 0;
	int run, i, most = 0, frames;

	buf_addf(&path, "%s/state.db-wal", f->state);
	state_close(f->st);
	f->st = NULL;
	for (run = 0; run < 40; run++) {
		if (state_open(f->state, &f->st, &err) < 0)
			fail_msg("state_open: %s", err.data);
		/* some 20 frames a run: 40 runs are three times the limit */
		for (i = 0; i < 10; i++) {
			buf_reset(&key);
			buf_addf(&key, "<w%d.%d@example.org>", run, i);
			add_report(f->st, key.data, key.data);
		}
		state_close(f->st);
		f->st = NULL;
		frames = wal_frames(f->state);
		assert_true(frames > 0);
		most = frames > most ? frames : most;
		assert_int_equal(stat(path.data, &sb), 0);
		if (frames < STATE_WAL_RESTART / 4 && run > 10)
			assert_true(sb.st_size >= size);	/* kept, not cut */
		size = sb.st_size;
	}
	/* it was started again, and never grew past the limit by more than
	 * a run's */
	assert_true(most >= STATE_WAL_RESTART / 2);
	assert_true(most < STATE_WAL_RESTART + 64);
	assert_true(size >= (off_t)STATE_WAL_RESTART * 4096);

	/* a reader in the log when a writer closes: the log is left as it
	 * is (no wait, no error), and what was written is there */
	{
		struct state *reader;
		struct state_report r;
		int64_t id = 0;

		if (state_open(f->state, &f->st, &err) < 0 || state_open(f->state, &reader, &err) < 0)
			fail_msg("state_open: %s", err.data);
		for (i = 0; i < 150; i++) {
			buf_reset(&key);
			buf_addf(&key, "<r%d@example.org>", i);
			id = add_report(f->st, key.data, key.data);
		}
		ok(state_begin_read(reader, &err), &err, "state_begin_read");
		get(reader, id, &r);	/* its snapshot is in the log */
		state_report_release(&r);
		frames = wal_frames(f->state);
		state_close(f->st);
		f->st = NULL;
		assert_true(wal_frames(f->state) >= frames);
		state_close(reader);
		if (state_open(f->state, &f->st, &err) < 0)
			fail_msg("state_open: %s", err.data);
		get(f->st, id, &r);
		assert_string_equal(r.message_id, "<r149@example.org>");
		state_report_release(&r);
	}
	buf_release(&err);
	buf_release(&path);
	buf_release(&key);
}

/* SQL that takes a version 4 database back to version 3's shape (its
 * commands table aside, which migration 4 copies whatever its shape), for
 * the migration tests to make older databases by hand. */
#define UNDO_4 \
	"DROP VIEW known_messages; " \
	"ALTER TABLE reports DROP COLUMN redirected_to; " \
	"ALTER TABLE reports DROP COLUMN mark; " \
	"ALTER TABLE reports DROP COLUMN mark_why; " \
	"DELETE FROM schema_version WHERE version = 4; "

static int64_t schema_rows(const char *dbpath, int64_t *max)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t n;

	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT COUNT(*), MAX(version) FROM schema_version",
					    -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	*max = sqlite3_column_int64(s, 1);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

static void reopen_keeps_data_and_migrates_once(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT, path = BUF_INIT;
	struct state_rcpt sent_rows[] = {
		{ STATE_RCPT_DELIVERED, "author@example.org", 250, "2.0.0 ok" },
		{ STATE_RCPT_REFUSED, "list@example.org", 550, "5.1.1 no" },
	};
	struct state_rcpt *rows;
	struct state_reports due = { 0 };
	struct state_report r;
	int64_t id, id2, max, since;
	size_t nr;
	sqlite3 *db;
	int i;

	id = add_report(f->st, "a@example.org", "k");
	assert_int_equal(id, 1);	/* the hand-made rows below name it */
	assert_int_equal(state_report_mark_sending(f->st, id, T0, NULL, &err), 0);
	assert_int_equal(state_report_mark_ended(f->st, id, T0, 0, "250 ok", sent_rows, 2, &err), 0);
	for (i = 0; i < 3; i++) {
		state_close(f->st);
		ok(state_open(f->state, &f->st, &err), &err, "reopen");
	}
	get(f->st, id, &r);
	assert_string_equal(r.message_id, "a@example.org");
	state_report_release(&r);
	buf_addf(&path, "%s/state.db", f->state);
	assert_int_equal(schema_rows(path.data, &max), STATE_SCHEMA_VERSION);
	assert_int_equal(max, STATE_SCHEMA_VERSION);

	/* A version 2 database (per-recipient results in their own table, an
	 * archive_owed flag) is brought to version 3, made here from this one
	 * by hand: the results move into the report's row, a tab in a reply
	 * and all, and the flag becomes a cut-short delivery since 1970. */
	state_close(f->st);
	f->st = NULL;
	schema_back_to_4(path.data);
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN; " UNDO_4
				      "CREATE TABLE recipients_results (report_id INTEGER NOT NULL "
				      "REFERENCES reports(id), seq INTEGER NOT NULL, address TEXT NOT NULL, "
				      "code INTEGER NOT NULL, reply TEXT NOT NULL, "
				      "PRIMARY KEY (report_id, seq)) WITHOUT ROWID; "
				      "INSERT INTO recipients_results VALUES "
				      "(1, 1, 'list@example.org', 550, '5.1.1 no' || char(9) || 'such\\user'), "
				      "(1, 0, 'author@example.org', 250, '2.0.0 ok'); "
				      "ALTER TABLE reports DROP COLUMN rcpt_results; "
				      "INSERT INTO flags VALUES ('archive_owed', 1); "
				      "DELETE FROM schema_version WHERE version >= 3; COMMIT",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(schema_rows(path.data, &max), 2);
	ok(state_open(f->state, &f->st, &err), &err, "migrating from version 2");
	assert_int_equal(schema_rows(path.data, &max), STATE_SCHEMA_VERSION);
	assert_int_equal(max, STATE_SCHEMA_VERSION);
	assert_int_equal(state_report_results(f->st, id, &rows, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(rows[0].address, "author@example.org");
	assert_int_equal(rows[0].status, STATE_RCPT_DELIVERED);
	assert_string_equal(rows[1].address, "list@example.org");
	assert_int_equal(rows[1].status, STATE_RCPT_REFUSED);
	assert_int_equal(rows[1].code, 550);
	assert_string_equal(rows[1].reply, "5.1.1 no\tsuch\\user");
	state_rcpts_free(rows, nr);
	assert_int_equal(state_delivery_unfinished(f->st, &since, &err), 1);
	assert_int_equal(since, 1);

	/* A version 1 database (the mail in the report's row) is brought to
	 * version 3 with its mail intact: made here from this one by hand. */
	state_close(f->st);
	f->st = NULL;
	schema_back_to_4(path.data);
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN; " UNDO_4
				      "ALTER TABLE reports ADD COLUMN mail BLOB; "
				      "UPDATE reports SET mail = (SELECT mail FROM report_mails "
				      "WHERE report_id = reports.id); DROP TABLE report_mails; "
				      "DROP INDEX reports_pending; "
				      "CREATE INDEX reports_status ON reports(status, next_attempt); "
				      "CREATE TABLE recipients_results (report_id INTEGER NOT NULL "
				      "REFERENCES reports(id), seq INTEGER NOT NULL, address TEXT NOT NULL, "
				      "code INTEGER NOT NULL, reply TEXT NOT NULL, "
				      "PRIMARY KEY (report_id, seq)); "
				      "INSERT INTO recipients_results VALUES "
				      "(1, 0, 'author@example.org', 250, '2.0.0 ok'), "
				      "(1, 1, 'list@example.org', 550, '5.1.1 no'); "
				      "ALTER TABLE reports DROP COLUMN rcpt_results; "
				      "DROP TABLE flags; "
				      "DELETE FROM schema_version WHERE version > 1; COMMIT",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(schema_rows(path.data, &max), 1);
	ok(state_open(f->state, &f->st, &err), &err, "migrating from version 1");
	assert_int_equal(schema_rows(path.data, &max), STATE_SCHEMA_VERSION);
	assert_int_equal(max, STATE_SCHEMA_VERSION);
	assert_int_equal(state_delivery_unfinished(f->st, &since, &err), 0);
	get(f->st, id, &r);
	assert_non_null(r.mail);
	assert_string_equal(r.mail, "From: lab <lab@example.org>\nSubject: x\n\nbody\n");
	state_report_release(&r);
	assert_int_equal(state_report_results(f->st, id, &rows, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(rows[1].address, "list@example.org");
	assert_int_equal(rows[1].code, 550);
	assert_string_equal(rows[1].reply, "5.1.1 no");
	state_rcpts_free(rows, nr);
	/* and the due reports are found through the new index */
	id2 = add_report(f->st, "b@example.org", "k2");
	assert_int_equal(state_report_due(f->st, T0, 10, &due, &err), 0);
	assert_int_equal(due.nr, 1);
	assert_int_equal(due.v[0].id, id2);
	state_reports_release(&due);

	/* A database from a newer perfbot is refused, not "migrated". */
	state_close(f->st);
	f->st = NULL;
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "INSERT INTO schema_version VALUES (99)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(state_open(f->state, &f->st, &err), -1);
	assert_non_null(strstr(err.data, "newer perfbot"));
	assert_null(f->st);
	buf_release(&err);
	buf_release(&path);
}

static void report_round_trips(void **state)
{
	struct fixture *f = *state;
	static char mail[] = "Subject: x\n\nbinary \0 byte and\r\nCRLF\n";
	char *sources[] = { "20260309055058-1-0-a.json", "20260309055058-1-1-b.json" };
	struct state_report in, out;
	struct buf err = BUF_INIT;
	int64_t id, rid;

	report_init(&in, "20260309.abc-lab@example.org", "linux-next|0123|t|h");
	in.mail = mail;
	in.mail_len = sizeof(mail) - 1;
	in.sources = sources;
	in.nr_sources = N(sources);
	id = add(f->st, &in);
	get(f->st, id, &out);
	assert_int_equal(out.id, id);
	assert_int_equal(out.thread_id, id);
	assert_int_equal(out.parent_id, 0);
	assert_int_equal(out.kind, STATE_KIND_REPORT);
	assert_int_equal(out.status, STATE_QUEUED);
	assert_int_equal(out.verdict, STATE_VERDICT_OPEN);
	assert_int_equal(out.attempts, 0);
	assert_int_equal(out.created, T0);
	assert_int_equal(out.next_attempt, 0);
	assert_int_equal(out.sent, 0);
	assert_null(out.last_reply);
	assert_null(out.in_reply_to);
	assert_string_equal(out.env_rcpt, in.env_rcpt);
	assert_string_equal(out.identity, in.identity);
	assert_int_equal(out.mail_len, in.mail_len);
	assert_memory_equal(out.mail, mail, in.mail_len);
	assert_int_equal(out.nr_sources, 2);
	assert_string_equal(out.sources[0], sources[0]);
	assert_string_equal(out.sources[1], sources[1]);
	state_report_release(&out);

	assert_int_equal(state_source_find(f->st, sources[1], &rid, &err), 1);
	assert_int_equal(rid, id);
	assert_int_equal(state_source_find(f->st, "20260309055058-1-9-c.json", &rid, &err), 0);
	assert_int_equal(state_report_get(f->st, id + 100, &out, &err), 0);
	buf_release(&err);
}

/* One step of a report's life and what it must leave. */
enum op { END, SENDING, SENT, DEFERRED, FAILED };	/* END: the life is over */
static const struct step {
	enum op op;
	int64_t when;
	int ret;			/* 0 or -1 */
	enum state_status status;	/* after the step */
	int attempts;
	int64_t next_attempt, sent;
	const char *last_reply;
} lives[][6] = {
	{	/* the happy path */
		{ SENDING, T0, 0, STATE_SENDING, 1, 0, 0, NULL },
		{ SENT, T0 + 1, 0, STATE_SENT, 1, 0, T0 + 1, "250 ok" },
		{ SENDING, T0 + 2, -1, STATE_SENT, 1, 0, T0 + 1, "250 ok" },
		{ FAILED, T0 + 2, -1, STATE_SENT, 1, 0, T0 + 1, "250 ok" },
		{ DEFERRED, T0 + 2, -1, STATE_SENT, 1, 0, T0 + 1, "250 ok" },
	},
	{	/* deferred twice, then refused for good */
		{ SENDING, T0, 0, STATE_SENDING, 1, 0, 0, NULL },
		{ DEFERRED, T0 + 300, 0, STATE_QUEUED, 1, T0 + 300, 0, "451 try later" },
		{ SENDING, T0 + 300, 0, STATE_SENDING, 2, T0 + 300, 0, "451 try later" },
		{ DEFERRED, T0 + 900, 0, STATE_QUEUED, 2, T0 + 900, 0, "451 try later" },
		{ SENDING, T0 + 900, 0, STATE_SENDING, 3, T0 + 900, 0, "451 try later" },
		{ FAILED, 0, 0, STATE_FAILED, 3, 0, 0, "550 no such user" },
	},
	{	/* an attempt that died ('sending' twice), then sent */
		{ SENDING, T0, 0, STATE_SENDING, 1, 0, 0, NULL },
		{ SENDING, T0 + 60, 0, STATE_SENDING, 2, 0, 0, NULL },
		{ SENT, T0 + 61, 0, STATE_SENT, 2, 0, T0 + 61, "250 ok" },
	},
	{	/* nothing ends an attempt that never began */
		{ SENT, T0, -1, STATE_QUEUED, 0, 0, 0, NULL },
		{ DEFERRED, T0, -1, STATE_QUEUED, 0, 0, 0, NULL },
		{ FAILED, T0, -1, STATE_QUEUED, 0, 0, 0, NULL },
	},
};

static int apply(struct state *st, int64_t id, const struct step *s, struct buf *err)
{
	switch (s->op) {
	case SENDING:
		return state_report_mark_sending(st, id, s->when, NULL, err);
	case SENT:
		return end_as(st, id, s->when, STATE_RCPT_DELIVERED, "250 ok", err);
	case DEFERRED:
		return end_as(st, id, s->when, STATE_RCPT_DEFERRED, "451 try later", err);
	case FAILED:
		return end_as(st, id, s->when, STATE_RCPT_REFUSED, "550 no such user", err);
	case END:
		break;
	}
	return -2;
}

static void transitions_follow_the_table(void **state)
{
	struct fixture *f = *state;
	size_t i, j;

	for (i = 0; i < N(lives); i++) {
		char mid[64];
		int64_t id;

		snprintf(mid, sizeof(mid), "life%zu@example.org", i);
		id = add_report(f->st, mid, mid);
		for (j = 0; j < N(lives[i]) && lives[i][j].op != END; j++) {
			const struct step *s = &lives[i][j];
			struct buf err = BUF_INIT;
			struct state_report r;
			int ret = apply(f->st, id, s, &err);

			if (ret != s->ret)
				fail_msg("life %zu step %zu: returned %d, want %d (%s)", i, j, ret,
					 s->ret, err.data);
			if (ret < 0 && !strstr(err.data, "cannot become"))
				fail_msg("life %zu step %zu: message '%s'", i, j, err.data);
			get(f->st, id, &r);
			if (r.status != s->status || r.attempts != s->attempts ||
			    r.next_attempt != s->next_attempt || r.sent != s->sent)
				fail_msg("life %zu step %zu: %s attempts %d next %lld sent %lld", i, j,
					 state_status_name(r.status), r.attempts,
					 (long long)r.next_attempt, (long long)r.sent);
			if (s->last_reply)
				assert_string_equal(r.last_reply, s->last_reply);
			else
				assert_null(r.last_reply);
			state_report_release(&r);
			buf_release(&err);
		}
	}
}

static void unknown_report_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;

	assert_int_equal(state_report_mark_sending(f->st, 42, T0, NULL, &err), -1);
	assert_non_null(strstr(err.data, "no report 42"));
	assert_int_equal(state_report_set_verdict(f->st, 42, STATE_VERDICT_FIXED, &err), -1);
	buf_release(&err);
}

static void outcomes_are_replaced_per_attempt(void **state)
{
	struct fixture *f = *state;
	struct state_rcpt two[] = { { STATE_RCPT_DEFERRED, "a@example.org", 451, "4.7.1 later" },
				    { STATE_RCPT_DELIVERED, "b@example.org", 250, "ok: queued as X" } };
	struct state_rcpt both[] = { { STATE_RCPT_DELIVERED, "a@example.org", 250, "ok: queued as Y" },
				     { STATE_RCPT_DELIVERED, "b@example.org", 250, "ok: queued as X" } };
	struct buf err = BUF_INIT;
	struct state_rcpt *got;
	struct state_report r;
	size_t nr;
	int64_t id = add_report(f->st, "r@example.org", "k");

	ok(state_report_mark_sending(f->st, id, T0, NULL, &err), &err, "sending");
	ok(state_report_mark_ended(f->st, id, T0, T0 + 60, "250 ok", two, 2, &err), &err, "partly");
	ok(state_report_results(f->st, id, &got, &nr, &err), &err, "results");
	assert_int_equal(nr, 2);
	assert_int_equal(got[0].status, STATE_RCPT_DEFERRED);
	assert_string_equal(got[0].address, "a@example.org");
	assert_int_equal(got[0].code, 451);
	assert_string_equal(got[0].reply, "4.7.1 later");
	assert_int_equal(got[1].status, STATE_RCPT_DELIVERED);
	state_rcpts_free(got, nr);
	/* a deferred recipient keeps the report queued, but it went out */
	get(f->st, id, &r);
	assert_int_equal(r.status, STATE_QUEUED);
	assert_int_equal(r.next_attempt, T0 + 60);
	assert_int_equal(r.sent, T0);
	assert_int_equal(r.nr_rcpt, 2);
	state_report_release(&r);
	ok(state_report_mark_sending(f->st, id, T0 + 60, NULL, &err), &err, "sending");
	ok(state_report_mark_ended(f->st, id, T0 + 61, 0, "250 ok", both, 2, &err), &err, "sent");
	get(f->st, id, &r);
	assert_int_equal(r.status, STATE_SENT);
	assert_int_equal(r.sent, T0);	/* when a first recipient got it */
	assert_int_equal(r.next_attempt, 0);
	assert_int_equal(r.rcpt[0].status, STATE_RCPT_DELIVERED);
	assert_string_equal(r.rcpt[0].reply, "ok: queued as Y");
	state_report_release(&r);
	buf_release(&err);
}

/* The status each list of outcomes makes. */
static void outcome_of_recipients(void **state)
{
	static const struct {
		enum state_rcpt_status v[3];
		size_t n;
		enum state_status want;
	} cases[] = {
		{ { STATE_RCPT_DELIVERED }, 1, STATE_SENT },
		{ { STATE_RCPT_DELIVERED, STATE_RCPT_REFUSED }, 2, STATE_SENT },
		{ { STATE_RCPT_DELIVERED, STATE_RCPT_DEFERRED }, 2, STATE_QUEUED },
		{ { STATE_RCPT_REFUSED, STATE_RCPT_DEFERRED }, 2, STATE_QUEUED },
		{ { STATE_RCPT_REFUSED, STATE_RCPT_REFUSED }, 2, STATE_FAILED },
		{ { 0 }, 0, STATE_FAILED },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct state_rcpt r[3];

		memset(r, 0, sizeof(r));
		for (j = 0; j < cases[i].n; j++)
			r[j].status = cases[i].v[j];
		if (state_rcpt_outcome(r, cases[i].n) != cases[i].want)
			fail_msg("case %zu: %s", i, state_status_name(state_rcpt_outcome(r, cases[i].n)));
	}
}

static void send_and_finish(struct state *st, int64_t id, int64_t when)
{
	struct buf err = BUF_INIT;

	ok(state_report_mark_sending(st, id, when, NULL, &err), &err, "sending");
	ok(end_as(st, id, when, STATE_RCPT_DELIVERED, "250 ok", &err), &err, "sent");
	buf_release(&err);
}

struct hour_count {
	int64_t now, count;
};

static void check_sent_log(struct state *st, const struct hour_count *want, size_t nr)
{
	struct buf err = BUF_INIT;
	size_t i;

	for (i = 0; i < nr; i++) {
		int64_t n = -1;

		ok(state_sent_last_hour(st, want[i].now, &n, &err), &err, "sent_last_hour");
		if (n != want[i].count)
			fail_msg("at %lld: %lld sent, want %lld", (long long)want[i].now,
				 (long long)n, (long long)want[i].count);
	}
	buf_release(&err);
}

static void send_log_counts_per_hour(void **state)
{
	struct fixture *f = *state;
	const int64_t hour = (T0 / 3600) * 3600;
	static const struct { int64_t sent_at; } sends[] = {
		{ hour }, { hour + 1799 }, { hour + 3599 }, { hour + 3600 }, { hour - 1 },
	};
	struct hour_count want[] = {
		{ hour, 3 }, { hour + 3599, 3 }, { hour + 3600, 1 }, { hour + 7199, 1 },
		{ hour + 7200, 0 }, { hour - 1, 1 }, { hour - 3601, 0 },
	};
	struct buf err = BUF_INIT;
	size_t i;

	for (i = 0; i < N(sends); i++) {
		char mid[32];

		snprintf(mid, sizeof(mid), "s%zu@example.org", i);
		send_and_finish(f->st, add_report(f->st, mid, mid), sends[i].sent_at);
		ok(state_sent_add(f->st, sends[i].sent_at, 1, &err), &err, "sent_add");
	}
	check_sent_log(f->st, want, N(want));
	/* a log that a cut-short run left wrong is mended from reports: the
	 * hours from since's on, and nothing before */
	ok(state_sent_add(f->st, hour, 5, &err), &err, "sent_add");
	ok(state_sent_add(f->st, hour - 1, 7, &err), &err, "sent_add");
	ok(state_sent_recount(f->st, hour + 1, &err), &err, "recount");
	want[0].count = want[1].count = 3;
	want[5].count = 8;
	check_sent_log(f->st, want, N(want));
	ok(state_sent_recount(f->st, hour - 3600, &err), &err, "recount");
	want[5].count = 1;
	check_sent_log(f->st, want, N(want));
	ok(state_sent_add(f->st, hour, 0, &err), &err, "nothing to add");
	check_sent_log(f->st, want, N(want));
	buf_release(&err);
}

static void delivery_mark_keeps_the_earliest_run(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	int64_t since = -1;

	assert_int_equal(state_delivery_unfinished(f->st, &since, &err), 0);
	assert_int_equal(since, 0);
	ok(state_delivery_begin(f->st, T0 + 60, &err), &err, "begin");
	assert_int_equal(state_delivery_unfinished(f->st, &since, &err), 1);
	assert_int_equal(since, T0 + 60);
	/* a run after a cut-short one that could not repair it */
	ok(state_delivery_begin(f->st, T0, &err), &err, "begin");
	ok(state_delivery_begin(f->st, T0 + 120, &err), &err, "begin");
	assert_int_equal(state_delivery_unfinished(f->st, &since, &err), 1);
	assert_int_equal(since, T0);
	ok(state_delivery_end(f->st, &err), &err, "end");
	assert_int_equal(state_delivery_unfinished(f->st, &since, &err), 0);
	ok(state_delivery_end(f->st, &err), &err, "end again");
	buf_release(&err);
}

static void sent_mail_is_known_before_it_is_archived(void **state)
{
	struct fixture *f = *state;
	struct state_reports left = { 0 };
	struct state_messages thread = { 0 };
	struct state_message m, got;
	struct buf err = BUF_INIT;
	int64_t id, id2;

	id = add_report(f->st, "s@example.org", "k");
	send_and_finish(f->st, id, T0);
	ok(state_report_unarchived(f->st, 10, &left, &err), &err, "unarchived");
	assert_int_equal(left.nr, 1);
	assert_int_equal(left.v[0].id, id);
	assert_non_null(left.v[0].mail);
	state_reports_release(&left);
	assert_int_equal(state_message_find(f->st, "s@example.org", &got, &err), 1);
	assert_false(got.ingested);
	assert_int_equal(got.report_id, id);
	assert_int_equal(got.date, T0);
	assert_null(got.blob_oid);
	state_message_release(&got);
	ok(state_message_list(f->st, id, &thread, &err), &err, "list");
	assert_int_equal(thread.nr, 1);
	state_messages_release(&thread);

	/* its batch is committed: now a row of its own */
	ok(state_message_set_archived(f->st, "s@example.org", "b1", "c1", &err), &err, "archived");
	assert_int_equal(state_message_find(f->st, "s@example.org", &got, &err), 1);
	assert_string_equal(got.blob_oid, "b1");
	assert_false(got.ingested);
	state_message_release(&got);
	ok(state_report_unarchived(f->st, 10, &left, &err), &err, "unarchived");
	assert_int_equal(left.nr, 0);
	ok(state_message_list(f->st, id, &thread, &err), &err, "list");
	assert_int_equal(thread.nr, 1);
	state_messages_release(&thread);

	/* one that came back from a list before its batch becomes perfbot's */
	id2 = add_report(f->st, "t@example.org", "k2");
	send_and_finish(f->st, id2, T0);
	memset(&m, 0, sizeof(m));
	m.message_id = "t@example.org";
	m.subject = "x";
	m.ingested = 1;
	ok(state_message_add(f->st, &m, NULL, &err), &err, "message_add");
	assert_int_equal(state_message_find(f->st, "t@example.org", &got, &err), 1);
	assert_true(got.ingested);
	state_message_release(&got);
	ok(state_message_set_archived(f->st, "t@example.org", "b2", "c2", &err), &err, "archived");
	assert_int_equal(state_message_find(f->st, "t@example.org", &got, &err), 1);
	assert_false(got.ingested);
	assert_int_equal(got.report_id, id2);
	state_message_release(&got);

	/* a report not sent is known (a reply to it is kept), unsent, and
	 * not archived before it is sent */
	id = add_report(f->st, "u@example.org", "k3");
	assert_int_equal(state_message_find(f->st, "u@example.org", &got, &err), 1);
	assert_true(got.unsent);
	assert_false(got.ingested);
	assert_int_equal(got.report_id, id);
	state_message_release(&got);
	assert_int_equal(state_message_set_archived(f->st, "u@example.org", "b", "c", &err), -1);
	buf_release(&err);
}

/*
 * Every mail perfbot minted and stored is known, whatever became of it:
 * queued, held, left sending by a killed run (the server may have taken
 * it), deferred, failed, dropped; a reply to it is threaded under its
 * report.  Only one redirected (perfbot.redirectTo) is not: its real
 * recipients never had it.  Sent, it is no longer unsent.
 */
static void unsent_mail_is_known(void **state)
{
	struct fixture *f = *state;
	struct state_messages thread = { 0 };
	struct state_message m, got;
	struct buf err = BUF_INIT, path = BUF_INIT;
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t queued, held, sending, deferred, failed, dropped, redirected;
	const struct { const char *mid; int64_t *id; } all[] = {
		{ "queued@x.org", &queued }, { "held@x.org", &held }, { "sending@x.org", &sending },
		{ "deferred@x.org", &deferred }, { "failed@x.org", &failed },
		{ "dropped@x.org", &dropped },
	};
	size_t i;

	queued = add_report(f->st, "queued@x.org", "k1");
	held = add_report(f->st, "held@x.org", "k2");
	ok(state_report_act(f->st, held, STATE_ACTION_HOLD, NULL, "operator (root)", T0, &err), &err, "hold");
	sending = add_report(f->st, "sending@x.org", "k3");
	ok(state_report_mark_sending(f->st, sending, T0, NULL, &err), &err, "sending");
	deferred = add_report(f->st, "deferred@x.org", "k4");
	ok(state_report_mark_sending(f->st, deferred, T0, NULL, &err), &err, "sending");
	ok(end_as(f->st, deferred, T0, STATE_RCPT_DEFERRED, "451 later", &err), &err, "deferred");
	failed = add_report(f->st, "failed@x.org", "k5");
	ok(state_report_mark_sending(f->st, failed, T0, NULL, &err), &err, "sending");
	ok(end_as(f->st, failed, T0, STATE_RCPT_REFUSED, "554 no", &err), &err, "failed");
	dropped = add_report(f->st, "dropped@x.org", "k6");
	ok(state_report_act(f->st, dropped, STATE_ACTION_DROP, "wrong", "operator (root)", T0, &err), &err,
	   "drop");
	redirected = add_report(f->st, "staging@x.org", "k7");
	ok(state_report_mark_sending(f->st, redirected, T0, "staging@lab.org", &err), &err, "sending");

	for (i = 0; i < N(all); i++) {
		if (state_message_find(f->st, all[i].mid, &got, &err) != 1)
			fail_msg("%s is not known: %s", all[i].mid, err.data);
		assert_int_equal(got.report_id, *all[i].id);
		assert_true(got.unsent);
		assert_false(got.ingested);
		assert_null(got.blob_oid);
		state_message_release(&got);
	}
	assert_int_equal(state_message_find(f->st, "staging@x.org", &got, &err), 0);

	/* a reply to the one a killed run left: in its report's thread */
	memset(&m, 0, sizeof(m));
	m.message_id = "reply@maintainer.org";
	m.report_id = sending;
	m.parent_message_id = "sending@x.org";
	m.in_reply_to = "sending@x.org";
	m.subject = "Re: x";
	m.date = T0 + 30;
	m.ingested = 1;
	ok(state_message_add(f->st, &m, NULL, &err), &err, "reply");
	ok(state_message_list(f->st, sending, &thread, &err), &err, "list");
	assert_int_equal(thread.nr, 2);
	assert_string_equal(thread.v[0].message_id, "sending@x.org");
	assert_true(thread.v[0].unsent);
	assert_string_equal(thread.v[1].message_id, "reply@maintainer.org");
	assert_false(thread.v[1].unsent);
	state_messages_release(&thread);

	/* the next run sends it: known as sent, then archived */
	ok(end_as(f->st, sending, T0 + 60, STATE_RCPT_DELIVERED, "250 ok", &err), &err, "sent");
	assert_int_equal(state_message_find(f->st, "sending@x.org", &got, &err), 1);
	assert_false(got.unsent);
	state_message_release(&got);
	ok(state_message_set_archived(f->st, "sending@x.org", "b", "c", &err), &err, "archived");
	assert_int_equal(state_message_find(f->st, "sending@x.org", &got, &err), 1);
	assert_false(got.unsent);
	assert_string_equal(got.blob_oid, "b");
	state_message_release(&got);

	/* version 6 -> 7: the mails of the outbox become known */
	state_close(f->st);
	f->st = NULL;
	buf_addf(&path, "%s/state.db", f->state);
	schema_undo_known(path.data);
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM known_messages WHERE message_id = "
					    "'queued@x.org'", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	ok(state_open(f->state, &f->st, &err), &err, "migrating from version 6");
	assert_int_equal(state_message_find(f->st, "queued@x.org", &got, &err), 1);
	assert_int_equal(got.report_id, queued);
	assert_true(got.unsent);
	state_message_release(&got);
	assert_int_equal(state_message_find(f->st, "staging@x.org", &got, &err), 0);
	buf_release(&path);
	buf_release(&err);
}

/* A request's results (schema 9): answered only from taken or answered,
 * the first result's Message-ID kept, the newest verdict shown; and a
 * version 8 database gains the columns with its requests kept. */
static void requests_are_answered_and_migrate(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT, path = BUF_INIT;
	struct state_message m;
	struct state_request r, got;
	int64_t report = add_report(f->st, "root@example.org", "k"), id = 0;

	memset(&m, 0, sizeof(m));
	m.message_id = "ask@x.org";
	m.report_id = report;
	m.ingested = 1;
	ok(state_message_add(f->st, &m, NULL, &err), &err, "request mail");
	memset(&r, 0, sizeof(r));
	r.report_id = report;
	r.message_id = "ask@x.org";
	r.requester_email = "j@x.org";
	r.requested = T0;
	r.what = STATE_REQUEST_COMMIT;
	r.commit_id = "0123456789012345678901234567890123456789";
	r.state = STATE_REQUEST_PENDING;
	ok(state_request_add(f->st, &r, &id, &err), &err, "request");
	/* a pending request has no result */
	assert_int_equal(state_request_answer(f->st, id, "fixed", "r1@x.org", T0, &err), 0);
	assert_int_equal(state_request_set_state(f->st, id, STATE_REQUEST_TAKEN, 1u << STATE_REQUEST_PENDING,
						 NULL, T0, &err), 1);
	assert_int_equal(state_request_answer(f->st, id, "partial", "r1@x.org", T0 + 1, &err), 1);
	assert_int_equal(state_request_answer(f->st, id, "fixed", "r2@x.org", T0 + 2, &err), 1);
	assert_int_equal(state_request_get(f->st, id, &got, &err), 1);
	assert_int_equal(got.state, STATE_REQUEST_ANSWERED);
	assert_string_equal(got.verdict, "fixed");
	assert_string_equal(got.result_message_id, "r1@x.org");
	assert_int_equal(got.results, 2);
	assert_int_equal(got.changed, T0 + 2);
	state_request_release(&got);
	/* a verdict the schema does not know is refused */
	assert_int_equal(state_request_answer(f->st, id, "maybe", "r3@x.org", T0, &err), -1);
	buf_reset(&err);

	/* version 8 -> 9 */
	state_close(f->st);
	f->st = NULL;
	buf_addf(&path, "%s/state.db", f->state);
	schema_undo_results(path.data);
	ok(state_open(f->state, &f->st, &err), &err, "migrating from version 8");
	assert_int_equal(state_request_get(f->st, id, &got, &err), 1);
	assert_int_equal(got.state, STATE_REQUEST_ANSWERED);	/* as version 8 had it */
	assert_null(got.verdict);
	assert_null(got.result_message_id);
	assert_int_equal(got.results, 0);
	state_request_release(&got);
	assert_int_equal(state_request_answer(f->st, id, "worse", "r4@x.org", T0 + 3, &err), 1);
	assert_int_equal(state_request_get(f->st, id, &got, &err), 1);
	assert_string_equal(got.verdict, "worse");
	assert_string_equal(got.result_message_id, "r4@x.org");
	state_request_release(&got);
	buf_release(&path);
	buf_release(&err);
}

static void due_ids(struct state *st, int64_t now, size_t limit, int64_t *ids, size_t *nr)
{
	struct state_reports due = { 0 };
	struct buf err = BUF_INIT;
	size_t i;

	ok(state_report_due(st, now, limit, &due, &err), &err, "due");
	for (i = 0; i < due.nr; i++) {
		ids[i] = due.v[i].id;
		assert_non_null(due.v[i].mail);
		assert_true(due.v[i].mail_len > 0);
	}
	*nr = due.nr;
	state_reports_release(&due);
	buf_release(&err);
}

static void due_selects_queued_retries_and_crashed(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_report fu;
	int64_t fresh, later, crashed, sent, failed, followup, ids[16];
	size_t nr;

	fresh = add_report(f->st, "fresh@example.org", "k1");
	later = add_report(f->st, "later@example.org", "k2");
	ok(state_report_mark_sending(f->st, later, T0, NULL, &err), &err, "sending");
	ok(end_as(f->st, later, T0 + 300, STATE_RCPT_DEFERRED, "451", &err), &err, "deferred");
	crashed = add_report(f->st, "crashed@example.org", "k3");
	ok(state_report_mark_sending(f->st, crashed, T0, NULL, &err), &err, "sending");
	sent = add_report(f->st, "sent@example.org", "k4");
	send_and_finish(f->st, sent, T0);
	failed = add_report(f->st, "failed@example.org", "k5");
	ok(state_report_mark_sending(f->st, failed, T0, NULL, &err), &err, "sending");
	ok(end_as(f->st, failed, T0, STATE_RCPT_REFUSED, "550", &err), &err, "failed");
	/* a follow-up of a report still waiting is among them, with its
	 * parent's state: delivery lets it wait (or go after it, when its
	 * parent goes earlier in the same run) */
	report_init(&fu, "fu@example.org", "k2");
	fu.kind = STATE_KIND_FOLLOWUP;
	fu.parent_id = later;
	fu.in_reply_to = "later@example.org";
	fu.refs = "later@example.org";
	followup = add(f->st, &fu);

	due_ids(f->st, T0 + 299, 100, ids, &nr);
	assert_int_equal(nr, 3);
	assert_int_equal(ids[0], fresh);
	assert_int_equal(ids[1], crashed);
	assert_int_equal(ids[2], followup);
	get(f->st, followup, &fu);
	assert_int_equal(fu.parent_status, STATE_QUEUED);
	assert_int_equal(fu.parent_sent, 0);	/* deferred: nobody has it */
	assert_false(delivery_parent_went(&fu));
	state_report_release(&fu);
	due_ids(f->st, T0 + 300, 100, ids, &nr);
	assert_int_equal(nr, 4);
	assert_int_equal(ids[1], later);
	due_ids(f->st, T0 + 300, 2, ids, &nr);
	assert_int_equal(nr, 2);
	due_ids(f->st, T0 + 300, 0, ids, &nr);
	assert_int_equal(nr, 0);

	send_and_finish(f->st, later, T0 + 300);
	due_ids(f->st, T0 + 300, 100, ids, &nr);
	assert_int_equal(nr, 3);
	assert_int_equal(ids[2], followup);
	get(f->st, followup, &fu);
	assert_true(delivery_parent_went(&fu));
	state_report_release(&fu);
	(void)sent;
	(void)failed;
	buf_release(&err);
}

/* A follow-up whose parent can never go (refused by everyone, or
 * dropped, before anybody had it) is an orphan, until it answers another
 * mail; a follow-up of a report that never went is none (it waits). */
static void orphans_take_their_parents_place(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_reports o = { 0 };
	struct state_report fu, got;
	int64_t rep, f1, f2, f3;
	static const char mail[] = "Subject: x\nIn-Reply-To: <r@example.org>\n\nbody\n";

	rep = add_report(f->st, "r@example.org", "k");
	send_and_finish(f->st, rep, T0);
	report_init(&fu, "f1@example.org", "k");
	fu.kind = STATE_KIND_FOLLOWUP;
	fu.parent_id = rep;
	fu.in_reply_to = "r@example.org";
	fu.refs = "r@example.org";
	f1 = add(f->st, &fu);
	report_init(&fu, "f2@example.org", "k");
	fu.kind = STATE_KIND_FOLLOWUP;
	fu.parent_id = f1;
	fu.in_reply_to = "f1@example.org";
	fu.refs = "r@example.org f1@example.org";
	f2 = add(f->st, &fu);
	ok(state_report_orphans(f->st, 10, &o, &err), &err, "orphans");
	assert_int_equal(o.nr, 0);	/* f1 may still go */
	ok(state_report_mark_sending(f->st, f1, T0, NULL, &err), &err, "sending");
	ok(end_as(f->st, f1, T0, STATE_RCPT_REFUSED, "550", &err), &err, "failed");
	ok(state_report_orphans(f->st, 10, &o, &err), &err, "orphans");
	assert_int_equal(o.nr, 1);
	assert_int_equal(o.v[0].id, f2);
	assert_int_equal(o.v[0].parent_id, f1);
	state_reports_release(&o);

	ok(state_report_rethread(f->st, f2, rep, "r@example.org", "r@example.org", mail, sizeof(mail) - 1,
				 &err), &err, "rethread");
	get(f->st, f2, &got);
	assert_int_equal(got.parent_id, rep);
	assert_int_equal(got.thread_id, rep);
	assert_string_equal(got.in_reply_to, "r@example.org");
	assert_string_equal(got.refs, "r@example.org");
	assert_string_equal(got.message_id, "f2@example.org");
	assert_int_equal(got.mail_len, sizeof(mail) - 1);
	assert_memory_equal(got.mail, mail, sizeof(mail) - 1);
	state_report_release(&got);
	ok(state_report_orphans(f->st, 10, &o, &err), &err, "orphans");
	assert_int_equal(o.nr, 0);

	/* one somebody has is never rewritten */
	send_and_finish(f->st, f2, T0);
	assert_int_equal(state_report_rethread(f->st, f2, rep, "r@example.org", NULL, mail,
					       sizeof(mail) - 1, &err), STATE_REFUSED);

	/* a follow-up of a report dropped before it went stays an orphan of
	 * none: it cannot take the report's place */
	f3 = add_report(f->st, "r3@example.org", "k3");
	report_init(&fu, "f3@example.org", "k3");
	fu.kind = STATE_KIND_FOLLOWUP;
	fu.parent_id = f3;
	fu.in_reply_to = "r3@example.org";
	fu.refs = "r3@example.org";
	add(f->st, &fu);
	ok(state_report_act(f->st, f3, STATE_ACTION_DROP, "stale", "operator (t)", T0, &err), &err, "drop");
	ok(state_report_orphans(f->st, 10, &o, &err), &err, "orphans");
	assert_int_equal(o.nr, 0);
	state_reports_release(&o);
	buf_release(&err);
}

/* A run killed with SIGKILL after marking a report 'sending' (as if in
 * the middle of DATA): the next run finds it due, with the same bytes. */
static void killed_while_sending_is_due_again(void **state)
{
	struct fixture *f = *state;
	struct state_report before, after;
	struct buf err = BUF_INIT;
	int64_t id = add_report(f->st, "killed@example.org", "k"), ids[4];
	size_t nr;
	int status;
	pid_t pid;

	get(f->st, id, &before);
	state_close(f->st);
	f->st = NULL;
	pid = fork();
	assert_true(pid >= 0);
	f->child = pid;
	if (!pid) {
		struct state *st;

		if (state_open(f->state, &st, NULL) < 0 ||
		    state_report_mark_sending(st, id, T0, NULL, NULL) < 0)
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	f->child = 0;
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	ok(state_open(f->state, &f->st, &err), &err, "reopen");
	due_ids(f->st, T0, 10, ids, &nr);
	assert_int_equal(nr, 1);
	assert_int_equal(ids[0], id);
	ok(state_report_mark_sending(f->st, id, T0 + 60, NULL, &err), &err, "sending again");
	get(f->st, id, &after);
	assert_int_equal(after.attempts, 2);
	assert_string_equal(after.message_id, before.message_id);
	assert_int_equal(after.mail_len, before.mail_len);
	assert_memory_equal(after.mail, before.mail, before.mail_len);
	state_report_release(&before);
	state_report_release(&after);
	buf_release(&err);
}

static void duplicates_are_refused_and_change_nothing(void **state)
{
	struct fixture *f = *state;
	char *src_a[] = { "20260309055058-1-0-a.json" };
	char *src_b[] = { "20260309055058-1-1-b.json", "20260309055058-1-0-a.json" };
	struct state_reports list = { 0 };
	struct state_report r;
	struct buf err = BUF_INIT;
	int64_t id = -1;

	report_init(&r, "dup@example.org", "k");
	r.sources = src_a;
	r.nr_sources = 1;
	add(f->st, &r);
	assert_int_equal(state_report_add(f->st, &r, &id, &err), STATE_EXISTS);
	assert_non_null(strstr(err.data, "dup@example.org"));
	assert_int_equal(id, -1);
	report_init(&r, "other@example.org", "k");
	r.sources = src_b;
	r.nr_sources = 2;
	assert_int_equal(state_report_add(f->st, &r, &id, &err), STATE_EXISTS);
	assert_non_null(strstr(err.data, "a.json"));
	assert_int_equal(state_source_find(f->st, "20260309055058-1-1-b.json", NULL, &err), 0);
	ok(state_report_list(f->st, &list, &err), &err, "list");
	assert_int_equal(list.nr, 1);
	state_reports_release(&list);
	buf_release(&err);
}

static void bad_reports_are_refused(void **state)
{
	struct fixture *f = *state;
	static char big[STATE_MAX_TEXT + 2];
	static const struct {
		const char *what;
		const char *want;
	} cases[] = {
		{ "no message id", "message_id is missing" },
		{ "empty subject", "subject is empty" },
		{ "long subject", "longer than" },
		{ "no mail", "mail is empty" },
		{ "follow-up without parent", "needs a parent" },
		{ "report with parent", "needs a parent" },
		{ "missing parent", "parent report 999" },
	};
	size_t i;

	memset(big, 'x', sizeof(big) - 1);
	for (i = 0; i < N(cases); i++) {
		struct state_report r;
		struct buf err = BUF_INIT;

		report_init(&r, "bad@example.org", "k");
		switch (i) {
		case 0: r.message_id = NULL; break;
		case 1: r.subject = ""; break;
		case 2: r.subject = big; break;
		case 3: r.mail_len = 0; break;
		case 4: r.kind = STATE_KIND_FOLLOWUP; break;
		case 5: r.parent_id = 1; break;
		case 6: r.kind = STATE_KIND_FOLLOWUP; r.parent_id = 999; break;
		}
		if (state_report_add(f->st, &r, NULL, &err) != -1 || !strstr(err.data, cases[i].want))
			fail_msg("%s: got '%s', want '%s'", cases[i].what, err.data, cases[i].want);
		buf_release(&err);
	}
}

static void followups_join_the_thread(void **state)
{
	struct fixture *f = *state;
	struct state_report r, found;
	struct state_reports list = { 0 };
	struct state_message m, msg;
	struct buf err = BUF_INIT;
	int64_t report, fu1, fu2, other;
	int is_new;

	report = add_report(f->st, "root@example.org", "next|0123|t|h");
	assert_int_equal(state_report_find_by_thread_key(f->st, "next|0123|t|h", &found, &err), 1);
	assert_int_equal(found.id, report);
	state_report_release(&found);
	send_and_finish(f->st, report, T0);

	report_init(&r, "fu1@example.org", "next|0123|t|h");
	r.kind = STATE_KIND_FOLLOWUP;
	r.parent_id = report;
	r.in_reply_to = "root@example.org";
	r.refs = "root@example.org";
	r.subject = "Re: [linus:master] [mm]  0123456789: x 3.8% regression";
	fu1 = add(f->st, &r);
	send_and_finish(f->st, fu1, T0 + 60);
	assert_int_equal(state_report_find_by_thread_key(f->st, "next|0123|t|h", &found, &err), 1);
	assert_int_equal(found.id, fu1);
	assert_int_equal(found.thread_id, report);
	state_report_release(&found);

	/* a follow-up of the follow-up is still in the first report's thread */
	report_init(&r, "fu2@example.org", "next|0123|t|h");
	r.kind = STATE_KIND_FOLLOWUP;
	r.parent_id = fu1;
	r.in_reply_to = "fu1@example.org";
	r.refs = "root@example.org fu1@example.org";
	fu2 = add(f->st, &r);
	ok(state_report_mark_sending(f->st, fu2, T0 + 120, NULL, &err), &err, "sending");
	ok(end_as(f->st, fu2, T0 + 120, STATE_RCPT_REFUSED, "554 no", &err), &err, "failed");
	get(f->st, fu2, &found);
	assert_int_equal(found.thread_id, report);
	assert_int_equal(found.parent_id, fu1);
	state_report_release(&found);
	/* a failed one is nothing to follow up */
	assert_int_equal(state_report_find_by_thread_key(f->st, "next|0123|t|h", &found, &err), 1);
	assert_int_equal(found.id, fu1);
	state_report_release(&found);
	assert_int_equal(state_report_find_by_thread_key(f->st, "none", &found, &err), 0);
	other = add_report(f->st, "other@example.org", "other");

	/* sent mails became known messages of the thread */
	assert_int_equal(state_message_find(f->st, "fu1@example.org", &msg, &err), 1);
	assert_int_equal(msg.report_id, report);
	assert_false(msg.ingested);
	assert_string_equal(msg.parent_message_id, "root@example.org");
	assert_string_equal(msg.from_email, "lab@example.org");
	assert_int_equal(msg.date, T0);
	state_message_release(&msg);
	/* one that failed is known too (someone may have it), not sent */
	assert_int_equal(state_message_find(f->st, "fu2@example.org", &msg, &err), 1);
	assert_true(msg.unsent);
	state_message_release(&msg);

	/* a reply, ingested twice */
	memset(&m, 0, sizeof(m));
	m.message_id = "reply@maintainer.org";
	m.report_id = report;
	m.parent_message_id = "root@example.org";
	m.in_reply_to = "root@example.org";
	m.refs = "root@example.org";
	m.from_name = "Jane";
	m.from_email = "jane@maintainer.org";
	m.date = T0 + 3600;
	m.subject = "Re: x";
	m.ingested = 1;
	ok(state_message_add(f->st, &m, &is_new, &err), &err, "message_add");
	assert_true(is_new);
	ok(state_message_add(f->st, &m, &is_new, &err), &err, "message_add again");
	assert_false(is_new);
	ok(state_report_set_verdict(f->st, report, STATE_VERDICT_INVALID, &err), &err, "verdict");

	ok(state_report_list(f->st, &list, &err), &err, "list");
	assert_int_equal(list.nr, 4);
	assert_int_equal(list.v[0].id, report);
	assert_int_equal(list.v[0].replies, 1);
	assert_int_equal(list.v[0].followups, 2);
	assert_int_equal(list.v[0].verdict, STATE_VERDICT_INVALID);
	assert_null(list.v[0].mail);
	assert_int_equal(list.v[1].kind, STATE_KIND_FOLLOWUP);
	assert_int_equal(list.v[3].id, other);
	assert_int_equal(list.v[3].followups, 0);
	state_reports_release(&list);
	buf_release(&err);
}

static void ingest_accessors(void **state)
{
	struct fixture *f = *state;
	struct state_message m, got;
	struct state_messages thread = { 0 };
	struct state_cursor c, cg;
	struct buf err = BUF_INIT;
	char *oid;
	int64_t report = add_report(f->st, "root@example.org", "k");

	memset(&m, 0, sizeof(m));
	m.message_id = "q@x.org";
	m.report_id = report;
	m.ingested = 1;
	m.quarantined = 1;
	m.quarantine_reason = "MIME boundary refused";
	ok(state_message_add(f->st, &m, NULL, &err), &err, "message_add");
	ok(state_message_set_archived(f->st, "q@x.org", "b10b", "c0ffee", &err), &err, "archived");
	assert_int_equal(state_message_find(f->st, "q@x.org", &got, &err), 1);
	assert_true(got.quarantined);
	assert_string_equal(got.quarantine_reason, "MIME boundary refused");
	assert_string_equal(got.blob_oid, "b10b");
	assert_string_equal(got.commit_oid, "c0ffee");
	state_message_release(&got);
	assert_int_equal(state_message_set_archived(f->st, "nope@x.org", "b", "c", &err), -1);
	ok(state_message_list(f->st, report, &thread, &err), &err, "message_list");
	assert_int_equal(thread.nr, 2);	/* the report, not sent yet, and q */
	state_messages_release(&thread);

	ok(state_command_add(f->st, report, "q@x.org", "invalid", "", "Jane <j@x.org>", T0, &err),
	   &err, "command");
	ok(state_command_add(f->st, report, "q@x.org", "invalid", "", "Jane <j@x.org>", T0, &err),
	   &err, "command again");
	assert_int_equal(state_command_add(f->st, report, "unknown@x.org", "invalid", "", "J", T0,
					   &err), -1);
	ok(state_trailer_add(f->st, "q@x.org", "Tested-by", "Jane <j@x.org>", &err), &err, "trailer");
	ok(state_trailer_add(f->st, "q@x.org", "Tested-by", "Jane <j@x.org>", &err), &err, "trailer");
	assert_int_equal(state_trailer_add(f->st, "unknown@x.org", "Tested-by", "J", &err), -1);

	assert_int_equal(state_cursor_get(f->st, "imap:imaps://x/INBOX", &cg, &err), 0);
	memset(&c, 0, sizeof(c));
	c.uidvalidity = 7;
	c.last_uid = 1234;
	c.fingerprint = "abc";
	ok(state_cursor_set(f->st, "imap:imaps://x/INBOX", &c, &err), &err, "cursor_set");
	c.last_uid = 1240;
	ok(state_cursor_set(f->st, "imap:imaps://x/INBOX", &c, &err), &err, "cursor_set");
	assert_int_equal(state_cursor_get(f->st, "imap:imaps://x/INBOX", &cg, &err), 1);
	assert_int_equal(cg.uidvalidity, 7);
	assert_int_equal(cg.last_uid, 1240);
	assert_string_equal(cg.fingerprint, "abc");
	state_cursor_release(&cg);

	assert_int_equal(state_archive_tip_get(f->st, 0, &oid, &err), 0);
	assert_null(oid);
	ok(state_archive_tip_set(f->st, 0, "aaaa", &err), &err, "tip");
	ok(state_archive_tip_set(f->st, 0, "bbbb", &err), &err, "tip");
	assert_int_equal(state_archive_tip_get(f->st, 0, &oid, &err), 1);
	assert_string_equal(oid, "bbbb");
	free(oid);
	buf_release(&err);
}

static void begin_groups_and_rollback_undoes(void **state)
{
	struct fixture *f = *state;
	char *twice[] = { "20260309055058-1-0-a.json", "20260309055058-1-0-a.json" };
	struct state_message m, got;
	struct state_report r;
	struct state_reports list = { 0 };
	struct buf err = BUF_INIT;

	memset(&m, 0, sizeof(m));
	m.message_id = "one@x.org";
	m.ingested = 1;
	ok(state_begin(f->st, &err), &err, "begin");
	assert_int_equal(state_begin(f->st, &err), -1);
	ok(state_message_add(f->st, &m, NULL, &err), &err, "message_add");
	ok(state_trailer_add(f->st, "one@x.org", "Acked-by", "A <a@x.org>", &err), &err, "trailer");
	state_rollback(f->st);
	assert_int_equal(state_message_find(f->st, "one@x.org", &got, &err), 0);

	/* a call failing inside (after its report row was written: the
	 * second source name is the first again) undoes only itself */
	ok(state_begin(f->st, &err), &err, "begin");
	ok(state_message_add(f->st, &m, NULL, &err), &err, "message_add");
	report_init(&r, "twice@x.org", "k");
	r.sources = twice;
	r.nr_sources = 2;
	assert_int_equal(state_report_add(f->st, &r, NULL, &err), -1);
	ok(state_commit(f->st, &err), &err, "commit");
	assert_int_equal(state_message_find(f->st, "one@x.org", &got, &err), 1);
	state_message_release(&got);
	ok(state_report_list(f->st, &list, &err), &err, "list");
	assert_int_equal(list.nr, 0);
	/* and outside state_begin() likewise */
	assert_int_equal(state_report_add(f->st, &r, NULL, &err), -1);
	ok(state_report_list(f->st, &list, &err), &err, "list");
	assert_int_equal(list.nr, 0);
	assert_int_equal(state_commit(f->st, &err), -1);
	buf_release(&err);
}

static void lock_is_exclusive_in_process(void **state)
{
	struct fixture *f = *state;
	struct state_lock *a = NULL, *b = NULL;
	struct buf err = BUF_INIT;
	char pid[32];

	ok(state_lock(f->state, 0, &a, &err), &err, "first lock");
	assert_int_equal(state_lock(f->state, 100, &b, &err), STATE_BUSY);
	assert_null(b);
	snprintf(pid, sizeof(pid), "(pid %ld)", (long)getpid());
	assert_non_null(strstr(err.data, pid));
	state_unlock(a);
	ok(state_lock(f->state, 0, &b, &err), &err, "lock after unlock");
	state_unlock(b);
	buf_release(&err);
}

static void lock_dies_with_its_process(void **state)
{
	struct fixture *f = *state;
	struct state_lock *l = NULL;
	struct buf err = BUF_INIT;
	int ready[2], status;
	char c;
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	f->child = pid;
	if (!pid) {
		struct state_lock *mine;

		close(ready[0]);
		if (state_lock(f->state, 0, &mine, NULL) != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_int_equal(state_lock(f->state, 200, &l, &err), STATE_BUSY);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	f->child = 0;
	ok(state_lock(f->state, 0, &l, &err), &err, "lock after the holder died");
	state_unlock(l);
	buf_release(&err);
}

static void names_round_trip(void **state)
{
	static const char *const verdicts[] = { "open", "invalid", "fixed", "duplicate" };
	enum state_verdict v;
	size_t i;

	(void)state;
	for (i = 0; i < N(verdicts); i++) {
		assert_int_equal(state_verdict_parse(verdicts[i], &v), 0);
		assert_string_equal(state_verdict_name(v), verdicts[i]);
	}
	assert_int_equal(state_verdict_parse("closed", &v), -1);
	assert_string_equal(state_status_name(STATE_SENDING), "sending");
	assert_string_equal(state_kind_name(STATE_KIND_FOLLOWUP), "followup");
}

/* Routing (perfbot-mail(7), Recipients): who may steer a thread, what became of each
 * command, the exclusion list, and the step that brings a version 4
 * database to them. */
/* A thread lists as ORDER BY date, message_id would: an undated mail
 * (NULL) first, then by date, equal dates by Message-ID's bytes. */
static void thread_lists_in_date_order(void **state)
{
	static const struct {
		const char *mid;
		int64_t date;
	} add[] = {
		{ "b@x.org", T0 + 5 }, { "none@x.org", 0 }, { "a@x.org", T0 + 5 },
		{ "old@x.org", -100 }, { "early@x.org", T0 - 10 }, { "A@x.org", T0 + 5 },
	};
	static const char *const want[] = {
		"none@x.org", "old@x.org", "early@x.org", "root@example.org",
		"A@x.org", "a@x.org", "b@x.org",
	};
	struct fixture *f = *state;
	struct state_messages thread = { 0 };
	struct state_message m;
	struct buf err = BUF_INIT;
	int64_t report = add_report(f->st, "root@example.org", "k");
	size_t i;

	for (i = 0; i < sizeof(add) / sizeof(add[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.message_id = (char *)add[i].mid;
		m.report_id = report;
		m.date = add[i].date;
		m.ingested = 1;
		ok(state_message_add(f->st, &m, NULL, &err), &err, "message_add");
	}
	ok(state_message_list(f->st, report, &thread, &err), &err, "message_list");
	assert_int_equal(thread.nr, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < thread.nr; i++)
		assert_string_equal(thread.v[i].message_id, want[i]);
	assert_int_equal(thread.v[0].date, 0);
	assert_int_equal(thread.v[3].date, T0);
	/* appended to what the list held */
	ok(state_message_list(f->st, report, &thread, &err), &err, "message_list again");
	assert_int_equal(thread.nr, 2 * (sizeof(want) / sizeof(want[0])));
	assert_string_equal(thread.v[7].message_id, "none@x.org");
	state_messages_release(&thread);
	buf_release(&err);
}

/* The stored mail alone: the report's bytes; none for an unknown id. */
static void report_mail_is_the_stored_mail(void **state)
{
	struct fixture *f = *state;
	struct state_report r;
	struct buf mail = BUF_INIT, err = BUF_INIT;
	int64_t id;

	report_init(&r, "m@example.org", "k");
	id = add(f->st, &r);
	buf_adds(&mail, "kept: ");
	assert_int_equal(state_report_mail(f->st, id, &mail, &err), 1);
	assert_int_equal(mail.len, 6 + r.mail_len);
	assert_memory_equal(mail.data + 6, r.mail, r.mail_len);
	assert_int_equal(state_report_mail(f->st, id + 1, &mail, &err), 0);
	assert_int_equal(mail.len, 6 + r.mail_len);
	buf_release(&mail);
	buf_release(&err);
}

static void routing_records(void **state)
{
	struct fixture *f = *state;
	struct state_report r;
	struct state_message m;
	struct state_commands cmds = { 0 };
	struct state_trailers tr = { 0 };
	struct state_exclusions xs = { 0 };
	struct state_exclusion x;
	struct buf err = BUF_INIT, path = BUF_INIT;
	int64_t report, other, follow;
	char *people;
	sqlite3 *db;

	report_init(&r, "root@example.org", "k");
	r.cc_addrs = "List@Example.org\nann@example.org";
	r.maintainer_addrs = "tj@kernel.org\nx86@kernel.org";
	report = add(f->st, &r);
	other = add_report(f->st, "other@example.org", "k2");
	report_init(&r, "follow@example.org", "k");
	r.kind = STATE_KIND_FOLLOWUP;
	r.parent_id = report;
	r.to_addrs = "later@example.org";
	follow = add(f->st, &r);
	(void)follow;
	assert_int_equal(state_report_may_steer(f->st, report, "AUTHOR@example.org", &err), 1);
	assert_int_equal(state_report_may_steer(f->st, report, "list@example.org", &err), 1);
	assert_int_equal(state_report_may_steer(f->st, report, "ann@example.org", &err), 1);
	assert_int_equal(state_report_may_steer(f->st, report, "TJ@kernel.org", &err), 1);
	assert_int_equal(state_report_may_steer(f->st, report, "later@example.org", &err), 1);
	assert_int_equal(state_report_may_steer(f->st, report, "nn@example.org", &err), 0);
	assert_int_equal(state_report_may_steer(f->st, report, "j@kernel.org", &err), 0);
	assert_int_equal(state_report_may_steer(f->st, other, "tj@kernel.org", &err), 0);
	assert_int_equal(state_report_may_steer(f->st, other, "author@example.org", &err), 1);
	ok(state_report_maintainers(f->st, report, &people, &err), &err, "maintainers");
	assert_string_equal(people, "tj@kernel.org\nx86@kernel.org");
	free(people);
	ok(state_report_maintainers(f->st, other, &people, &err), &err, "maintainers");
	assert_null(people);

	memset(&m, 0, sizeof(m));
	m.message_id = "reply@x.org";
	m.report_id = report;
	m.ingested = 1;
	ok(state_message_add(f->st, &m, NULL, &err), &err, "message");
	ok(state_command_record(f->st, report, "reply@x.org", "invalid", "", "Eve <eve@x.org>", T0, 0,
				"from eve@x.org, who is not among the report's recipients", &err), &err, "record");
	ok(state_command_record(f->st, report, "reply@x.org", "invalid", "", "Eve <eve@x.org>", T0, 1,
				NULL, &err), &err, "the same again changes nothing");
	ok(state_command_record(f->st, report, "reply@x.org", "frob", "x", "Eve <eve@x.org>", T0, 0,
				"not understood", &err), &err, "record");
	ok(state_command_add(f->st, report, "reply@x.org", "reopen", "", "Eve <eve@x.org>", T0, &err),
	   &err, "add");
	ok(state_trailer_add(f->st, "reply@x.org", "Tested-by", "Eve <eve@x.org>", &err), &err, "trailer");
	ok(state_command_list(f->st, report, &cmds, &err), &err, "list");
	assert_int_equal(cmds.nr, 3);
	assert_string_equal(cmds.v[0].name, "invalid");
	assert_false(cmds.v[0].applied);
	assert_string_equal(cmds.v[0].why, "from eve@x.org, who is not among the report's recipients");
	assert_string_equal(cmds.v[2].name, "reopen");
	assert_true(cmds.v[2].applied);
	assert_null(cmds.v[2].why);
	assert_int_equal(cmds.v[1].report_id, report);
	state_commands_release(&cmds);
	ok(state_command_list(f->st, 0, &cmds, &err), &err, "list");
	assert_int_equal(cmds.nr, 3);
	assert_int_equal(!cmds.v[0].applied + !cmds.v[1].applied + !cmds.v[2].applied, 2);
	state_commands_release(&cmds);
	ok(state_command_list(f->st, other, &cmds, &err), &err, "list");
	assert_int_equal(cmds.nr, 0);
	state_commands_release(&cmds);
	ok(state_trailer_list(f->st, report, &tr, &err), &err, "trailers");
	assert_int_equal(tr.nr, 1);
	assert_string_equal(tr.v[0].message_id, "reply@x.org");
	assert_string_equal(tr.v[0].value, "Eve <eve@x.org>");
	state_trailers_release(&tr);

	x.address = "Jane@Example.org";
	x.who = "Jane Dœ <Jane@Example.org>";
	x.date = T0;
	x.message_id = "reply@x.org";
	ok(state_exclusion_add(f->st, &x, &err), &err, "exclude");
	x.date = T0 + 60;
	ok(state_exclusion_add(f->st, &x, &err), &err, "again: replaced");
	x.address = "bob@example.org";
	x.who = "bob@example.org";
	x.message_id = NULL;
	ok(state_exclusion_add(f->st, &x, &err), &err, "exclude");
	ok(state_exclusion_list(f->st, &xs, &err), &err, "exclusions");
	assert_int_equal(xs.nr, 2);
	assert_string_equal(xs.v[0].address, "bob@example.org");
	assert_null(xs.v[0].message_id);
	assert_string_equal(xs.v[1].address, "jane@example.org");
	assert_string_equal(xs.v[1].who, "Jane Dœ <Jane@Example.org>");
	assert_int_equal(xs.v[1].date, T0 + 60);
	state_exclusions_release(&xs);
	assert_int_equal(state_exclusion_remove(f->st, "JANE@example.org", &err), 1);
	assert_int_equal(state_exclusion_remove(f->st, "jane@example.org", &err), 0);
	ok(state_exclusion_list(f->st, &xs, &err), &err, "exclusions");
	assert_int_equal(xs.nr, 1);
	state_exclusions_release(&xs);

	/* version 4 -> 5: commands recorded before were applied blindly */
	state_close(f->st);
	f->st = NULL;
	buf_addf(&path, "%s/state.db", f->state);
	schema_undo_track(path.data);
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN; " UNDO_ROUTING "COMMIT",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ok(state_open(f->state, &f->st, &err), &err, "migrating from version 4");
	ok(state_command_list(f->st, report, &cmds, &err), &err, "list");
	assert_int_equal(cmds.nr, 3);
	assert_true(cmds.v[0].applied);
	assert_null(cmds.v[0].why);
	state_commands_release(&cmds);
	ok(state_exclusion_list(f->st, &xs, &err), &err, "exclusions");
	assert_int_equal(xs.nr, 0);
	assert_int_equal(state_report_may_steer(f->st, report, "tj@kernel.org", &err), 0);
	assert_int_equal(state_report_may_steer(f->st, report, "ann@example.org", &err), 1);
	buf_release(&err);
	buf_release(&path);
}

/* Runs sql on the database file itself, as another program would. */
static void raw_sql(const struct fixture *f, const char *sql)
{
	char path[128], *msg = NULL;
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/state.db", f->state);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

/*
 * A version 3 database (the last attempt's RCPT replies, no marks, the
 * operator unknown) made by hand from this one: migration 4 turns the
 * replies into outcomes, holds a sent report whose recipient perfbot 3
 * gave up after a 4xx, and keeps the commands.
 */
static void migrating_from_3_makes_outcomes(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT, path = BUF_INIT;
	struct state_commands cmds = { 0 };
	struct state_report r;
	int64_t sent, failed, queued, clean, max;

	sent = add_report(f->st, "sent@example.org", "k1");
	failed = add_report(f->st, "failed@example.org", "k2");
	queued = add_report(f->st, "queued@example.org", "k3");
	clean = add_report(f->st, "clean@example.org", "k4");
	state_close(f->st);
	f->st = NULL;
	buf_addf(&path, "%s/state.db", f->state);
	schema_back_to_4(path.data);
	raw_sql(f, "BEGIN; " UNDO_4
		"CREATE VIEW known_messages AS SELECT " "message_id, report_id, parent_message_id, "
		"in_reply_to, refs, from_name, from_email, date, subject, origin, blob_oid, commit_oid, "
		"quarantined, quarantine_reason FROM messages UNION ALL SELECT message_id, thread_id, "
		"in_reply_to, in_reply_to, refs, from_name, from_email, created, subject, 'sent', NULL, "
		"NULL, 0, NULL FROM reports r WHERE status = 'sent' AND NOT EXISTS (SELECT 1 FROM "
		"messages m WHERE m.message_id = r.message_id); "
		"DROP TABLE commands; "
		"CREATE TABLE commands (id INTEGER PRIMARY KEY, report_id INTEGER REFERENCES reports(id), "
		"message_id TEXT NOT NULL REFERENCES messages(message_id), name TEXT NOT NULL, "
		"args TEXT NOT NULL, author TEXT NOT NULL, date INTEGER, UNIQUE (message_id, name, args)); "
		"INSERT INTO messages (message_id, report_id, origin) VALUES ('reply@x', 1, 'ingested'); "
		"INSERT INTO commands (report_id, message_id, name, args, author, date) "
		"VALUES (1, 'reply@x', 'invalid', '', 'Jane <jane@x>', 5); "
		"UPDATE reports SET status = 'sent', sent = 100, attempts = 1, rcpt_results = "
		"'250' || char(9) || 'author@example.org' || char(9) || '2.1.5 ok' || char(10) || "
		"'450' || char(9) || 'list@example.org' || char(9) || '4.2.1 busy' || char(10) || "
		"'550' || char(9) || 'gone@example.org' || char(9) || '5.1.1 no' || char(10) WHERE id = 1; "
		"UPDATE reports SET status = 'failed', attempts = 1, last_reply = '554 5.7.1 rejected', "
		"rcpt_results = '250' || char(9) || 'author@example.org' || char(9) || 'ok' || char(10) "
		"WHERE id = 2; "
		"UPDATE reports SET status = 'queued', attempts = 1, next_attempt = 400, rcpt_results = "
		"'250' || char(9) || 'author@example.org' || char(9) || 'ok' || char(10) || "
		"'550' || char(9) || 'list@example.org' || char(9) || 'no' || char(10) WHERE id = 3; "
		"UPDATE reports SET status = 'sent', sent = 100, attempts = 1, rcpt_results = "
		"'250' || char(9) || 'author@example.org' || char(9) || 'ok' || char(10) WHERE id = 4; "
		"COMMIT");
	assert_int_equal(schema_rows(path.data, &max), 3);
	ok(state_open(f->state, &f->st, &err), &err, "migrating from version 3");
	assert_int_equal(schema_rows(path.data, &max), STATE_SCHEMA_VERSION);

	get(f->st, sent, &r);
	assert_int_equal(r.status, STATE_QUEUED);
	assert_int_equal(r.mark, STATE_MARK_HELD);
	assert_non_null(strstr(r.mark_why, "perfbot outbox release 1"));
	assert_int_equal(r.nr_rcpt, 3);
	assert_int_equal(r.rcpt[0].status, STATE_RCPT_DELIVERED);
	assert_int_equal(r.rcpt[1].status, STATE_RCPT_DEFERRED);
	assert_string_equal(r.rcpt[1].reply, "4.2.1 busy");
	assert_int_equal(r.rcpt[2].status, STATE_RCPT_REFUSED);
	assert_int_equal(r.sent, 100);
	state_report_release(&r);
	get(f->st, failed, &r);
	assert_int_equal(r.status, STATE_FAILED);
	assert_int_equal(r.nr_rcpt, 1);
	assert_int_equal(r.rcpt[0].status, STATE_RCPT_REFUSED);
	assert_int_equal(r.rcpt[0].code, 554);
	assert_string_equal(r.rcpt[0].reply, "5.7.1 rejected");
	state_report_release(&r);
	get(f->st, queued, &r);
	assert_int_equal(r.status, STATE_QUEUED);
	assert_int_equal(r.mark, STATE_MARK_NONE);
	assert_int_equal(r.nr_rcpt, 1);	/* the 250 is pending again */
	assert_string_equal(r.rcpt[0].address, "list@example.org");
	assert_int_equal(r.rcpt[0].status, STATE_RCPT_REFUSED);
	state_report_release(&r);
	get(f->st, clean, &r);
	assert_int_equal(r.status, STATE_SENT);
	assert_int_equal(r.mark, STATE_MARK_NONE);
	assert_null(r.mark_why);
	state_report_release(&r);
	/* the maintainer's command stayed; the operator's can be added */
	ok(state_report_set_verdict_by(f->st, clean, STATE_VERDICT_FIXED, NULL, "operator (root)", 9,
				       &err), &err, "verdict");
	ok(state_command_list(f->st, 0, &cmds, &err), &err, "commands");
	assert_int_equal(cmds.nr, 2);
	assert_string_equal(cmds.v[0].message_id, "reply@x");
	assert_string_equal(cmds.v[0].name, "invalid");
	assert_null(cmds.v[1].message_id);
	assert_string_equal(cmds.v[1].name, "fixed");
	state_commands_release(&cmds);
	buf_release(&err);
	buf_release(&path);
}

/* The starting points of the outbox actions' table. */
enum start { QUEUED_NEW, DEFERRED_ONE, SENDING_LEFT, HELD, SENT_ALL, SENT_REFUSED, FAILED_ALL, DROPPED };

/* Makes report id what start says. */
static void make_start(struct state *st, int64_t id, enum start how)
{
	struct state_rcpt half[] = { { STATE_RCPT_DELIVERED, "author@example.org", 250, "ok" },
				     { STATE_RCPT_DEFERRED, "list@example.org", 450, "busy" } };
	struct state_rcpt refused[] = { { STATE_RCPT_DELIVERED, "author@example.org", 250, "ok" },
					{ STATE_RCPT_REFUSED, "list@example.org", 550, "no" } };
	struct buf err = BUF_INIT;

	switch (how) {
	case QUEUED_NEW:
		break;
	case DEFERRED_ONE:
		ok(state_report_mark_sending(st, id, T0, NULL, &err), &err, "sending");
		ok(state_report_mark_ended(st, id, T0, T0 + 300, "250 ok", half, 2, &err), &err, "half");
		break;
	case SENDING_LEFT:
		ok(state_report_mark_sending(st, id, T0, NULL, &err), &err, "sending");
		break;
	case HELD:
		ok(state_report_act(st, id, STATE_ACTION_HOLD, "wait", "op", T0, &err), &err, "hold");
		break;
	case SENT_ALL:
		send_and_finish(st, id, T0);
		break;
	case SENT_REFUSED:
		ok(state_report_mark_sending(st, id, T0, NULL, &err), &err, "sending");
		ok(state_report_mark_ended(st, id, T0, 0, "250 ok", refused, 2, &err), &err, "refused");
		break;
	case FAILED_ALL:
		ok(state_report_mark_sending(st, id, T0, NULL, &err), &err, "sending");
		ok(end_as(st, id, T0, STATE_RCPT_REFUSED, "550 no", &err), &err, "failed");
		break;
	case DROPPED:
		ok(state_report_act(st, id, STATE_ACTION_DROP, "bogus", "op", T0, &err), &err, "drop");
		break;
	}
	buf_release(&err);
}

/* Every action on every starting point: what it returns and leaves. */
static void outbox_actions_follow_the_table(void **state)
{
	static const struct {
		enum start from;
		enum state_action a;
		int ret;			/* 0 or STATE_REFUSED */
		const char *says;		/* in the refusal */
		enum state_status status;	/* after */
		enum state_mark mark;
		int due;			/* due at T0 + 1 */
	} cases[] = {
		{ QUEUED_NEW, STATE_ACTION_HOLD, 0, NULL, STATE_QUEUED, STATE_MARK_HELD, 1 },
		{ QUEUED_NEW, STATE_ACTION_RELEASE, STATE_REFUSED, "is not held", STATE_QUEUED, STATE_MARK_NONE, 1 },
		{ QUEUED_NEW, STATE_ACTION_RETRY, 0, NULL, STATE_QUEUED, STATE_MARK_NONE, 1 },
		{ QUEUED_NEW, STATE_ACTION_DROP, 0, NULL, STATE_QUEUED, STATE_MARK_DROPPED, 0 },
		{ DEFERRED_ONE, STATE_ACTION_HOLD, 0, NULL, STATE_QUEUED, STATE_MARK_HELD, 0 },
		{ DEFERRED_ONE, STATE_ACTION_RETRY, 0, NULL, STATE_QUEUED, STATE_MARK_NONE, 1 },
		{ DEFERRED_ONE, STATE_ACTION_DROP, 0, NULL, STATE_QUEUED, STATE_MARK_DROPPED, 0 },
		{ SENDING_LEFT, STATE_ACTION_HOLD, 0, NULL, STATE_SENDING, STATE_MARK_HELD, 1 },
		{ SENDING_LEFT, STATE_ACTION_RETRY, 0, NULL, STATE_SENDING, STATE_MARK_NONE, 1 },
		{ SENDING_LEFT, STATE_ACTION_DROP, 0, NULL, STATE_SENDING, STATE_MARK_DROPPED, 0 },
		{ HELD, STATE_ACTION_HOLD, STATE_REFUSED, "held already", STATE_QUEUED, STATE_MARK_HELD, 1 },
		{ HELD, STATE_ACTION_RELEASE, 0, NULL, STATE_QUEUED, STATE_MARK_NONE, 1 },
		{ HELD, STATE_ACTION_RETRY, STATE_REFUSED, "outbox release", STATE_QUEUED, STATE_MARK_HELD, 1 },
		{ HELD, STATE_ACTION_DROP, 0, NULL, STATE_QUEUED, STATE_MARK_DROPPED, 0 },
		{ SENT_ALL, STATE_ACTION_HOLD, STATE_REFUSED, "was sent", STATE_SENT, STATE_MARK_NONE, 0 },
		{ SENT_ALL, STATE_ACTION_RELEASE, STATE_REFUSED, "is not held", STATE_SENT, STATE_MARK_NONE, 0 },
		{ SENT_ALL, STATE_ACTION_RETRY, STATE_REFUSED, "nothing to retry", STATE_SENT, STATE_MARK_NONE, 0 },
		{ SENT_ALL, STATE_ACTION_DROP, STATE_REFUSED, "nothing is left to drop", STATE_SENT, STATE_MARK_NONE, 0 },
		{ SENT_REFUSED, STATE_ACTION_RETRY, 0, NULL, STATE_QUEUED, STATE_MARK_NONE, 1 },
		{ FAILED_ALL, STATE_ACTION_HOLD, STATE_REFUSED, "failed for good", STATE_FAILED, STATE_MARK_NONE, 0 },
		{ FAILED_ALL, STATE_ACTION_RETRY, 0, NULL, STATE_QUEUED, STATE_MARK_NONE, 1 },
		{ FAILED_ALL, STATE_ACTION_DROP, 0, NULL, STATE_FAILED, STATE_MARK_DROPPED, 0 },
		{ DROPPED, STATE_ACTION_HOLD, STATE_REFUSED, "was dropped", STATE_QUEUED, STATE_MARK_DROPPED, 0 },
		{ DROPPED, STATE_ACTION_RELEASE, STATE_REFUSED, "was dropped", STATE_QUEUED, STATE_MARK_DROPPED, 0 },
		{ DROPPED, STATE_ACTION_RETRY, STATE_REFUSED, "was dropped", STATE_QUEUED, STATE_MARK_DROPPED, 0 },
		{ DROPPED, STATE_ACTION_DROP, STATE_REFUSED, "was dropped", STATE_QUEUED, STATE_MARK_DROPPED, 0 },
	};
	struct fixture *f = *state;
	size_t i, j;

	for (i = 0; i < N(cases); i++) {
		struct state_commands before = { 0 }, after = { 0 };
		struct buf err = BUF_INIT;
		struct state_report r;
		int64_t id, ids[64];
		size_t nr;
		char mid[64];
		int ret, due = 0;

		snprintf(mid, sizeof(mid), "act%zu@example.org", i);
		id = add_report(f->st, mid, mid);
		make_start(f->st, id, cases[i].from);
		ok(state_command_list(f->st, id, &before, &err), &err, "commands");
		ret = state_report_act(f->st, id, cases[i].a, "why not", "operator (root)", T0 + 1, &err);
		if (ret != cases[i].ret)
			fail_msg("case %zu (%s): returned %d (%s)", i, state_action_name(cases[i].a), ret, err.data);
		if (cases[i].says && !strstr(err.data, cases[i].says))
			fail_msg("case %zu: message '%s'", i, err.data);
		get(f->st, id, &r);
		if (r.status != cases[i].status || r.mark != cases[i].mark)
			fail_msg("case %zu: %s %s", i, state_status_name(r.status), state_mark_name(r.mark));
		if (cases[i].from == SENT_REFUSED || (cases[i].from == FAILED_ALL && !ret &&
						      cases[i].a == STATE_ACTION_RETRY)) {
			/* tried again: the refused, never the delivered */
			for (j = 0; j < r.nr_rcpt; j++)
				assert_int_equal(r.rcpt[j].status, STATE_RCPT_DELIVERED);
		}
		state_report_release(&r);
		due_ids(f->st, T0 + 1, N(ids), ids, &nr);
		for (j = 0; j < nr; j++)
			due |= ids[j] == id;
		if (due != cases[i].due)
			fail_msg("case %zu: due %d, want %d", i, due, cases[i].due);
		/* done: recorded as the operator's command; refused: nothing */
		ok(state_command_list(f->st, id, &after, &err), &err, "commands");
		assert_int_equal(after.nr, before.nr + (ret == 0));
		if (ret == 0) {
			const struct state_command *c = &after.v[after.nr - 1];

			assert_null(c->message_id);
			assert_string_equal(c->name, state_action_name(cases[i].a));
			assert_string_equal(c->args, "why not");
			assert_string_equal(c->author, "operator (root)");
			assert_int_equal(c->date, T0 + 1);
			assert_int_equal(c->report_id, id);
		}
		state_commands_release(&before);
		state_commands_release(&after);
		buf_release(&err);
	}
}

static void outbox_action_errors(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	int64_t id = add_report(f->st, "e@example.org", "k");

	assert_int_equal(state_report_act(f->st, 99, STATE_ACTION_HOLD, NULL, "op", T0, &err), -1);
	assert_non_null(strstr(err.data, "no report 99"));
	buf_reset(&err);
	assert_int_equal(state_report_act(f->st, id, STATE_ACTION_DROP, NULL, "op", T0, &err), -1);
	assert_non_null(strstr(err.data, "reason is missing"));
	buf_reset(&err);
	assert_int_equal(state_report_act(f->st, id, STATE_ACTION_HOLD, "two\nlines", "op", T0, &err), -1);
	assert_non_null(strstr(err.data, "on one line"));
	buf_release(&err);
}

/* A held mail is due (for send to say so), a dropped one never; a
 * follow-up of a dropped report is due with its parent's mark. */
static void due_keeps_held_and_leaves_dropped(void **state)
{
	struct fixture *f = *state;
	struct state_reports due = { 0 };
	struct state_report fu;
	struct buf err = BUF_INIT;
	int64_t held, dropped, followup;

	held = add_report(f->st, "held@example.org", "k1");
	dropped = add_report(f->st, "dropped@example.org", "k2");
	ok(state_report_act(f->st, held, STATE_ACTION_HOLD, NULL, "op", T0, &err), &err, "hold");
	ok(state_report_act(f->st, dropped, STATE_ACTION_DROP, "bogus", "op", T0, &err), &err, "drop");
	report_init(&fu, "fu@example.org", "k2");
	fu.kind = STATE_KIND_FOLLOWUP;
	fu.parent_id = dropped;
	followup = add(f->st, &fu);
	ok(state_report_due(f->st, T0, 10, &due, &err), &err, "due");
	assert_int_equal(due.nr, 2);
	assert_int_equal(due.v[0].id, held);
	assert_int_equal(due.v[0].mark, STATE_MARK_HELD);
	assert_null(due.v[0].mark_why);	/* hold's reason is optional */
	assert_int_equal(due.v[1].id, followup);
	assert_int_equal(due.v[1].parent_mark, STATE_MARK_DROPPED);
	state_reports_release(&due);
	/* a held mail is not sent */
	assert_int_equal(state_report_mark_sending(f->st, held, T0, NULL, &err), -1);
	assert_non_null(strstr(err.data, "held and cannot become sending"));
	/* and a dropped one before anyone had it is nothing to follow up */
	assert_int_equal(state_report_find_by_thread_key(f->st, "k2", &fu, &err), 1);
	assert_int_equal(fu.id, followup);
	state_report_release(&fu);
	buf_release(&err);
}

/* A redirected report records where it went at its first attempt; it is
 * no known message, no archive debt and no parent, and its follow-ups
 * know it. */
static void redirect_is_recorded_and_kept_apart(void **state)
{
	struct fixture *f = *state;
	struct state_reports left = { 0 };
	struct state_report r, fu;
	struct state_message m;
	struct buf err = BUF_INIT;
	char *mid = NULL;
	int64_t id, followup, found = 0;

	id = add_report(f->st, "staged@example.org", "k");
	ok(state_report_mark_sending(f->st, id, T0, "staging@lab.org", &err), &err, "sending");
	ok(end_as(f->st, id, T0, STATE_RCPT_DEFERRED, "450 busy", &err), &err, "deferred");
	/* the next attempt keeps the first address */
	ok(state_report_mark_sending(f->st, id, T0 + 300, "other@lab.org", &err), &err, "sending");
	ok(end_as(f->st, id, T0 + 300, STATE_RCPT_DELIVERED, "250 ok", &err), &err, "sent");
	get(f->st, id, &r);
	assert_string_equal(r.redirected_to, "staging@lab.org");
	assert_int_equal(r.status, STATE_SENT);
	state_report_release(&r);
	assert_int_equal(state_message_find(f->st, "staged@example.org", &m, &err), 0);
	assert_int_equal(state_message_set_archived(f->st, "staged@example.org", "b", "c", &err), -1);
	ok(state_report_unarchived(f->st, 10, &left, &err), &err, "unarchived");
	assert_int_equal(left.nr, 0);
	assert_int_equal(state_report_find_by_thread_key(f->st, "k", &r, &err), 0);
	assert_int_equal(state_report_last_message_id(f->st, "k", &mid, &err), 1);
	assert_string_equal(mid, "staged@example.org");
	free(mid);
	assert_int_equal(state_report_last_message_id(f->st, "none", &mid, &err), 0);
	assert_null(mid);
	assert_int_equal(state_report_find_id(f->st, "staged@example.org", &found, &err), 1);
	assert_int_equal(found, id);
	assert_int_equal(state_report_find_id(f->st, "none@x", &found, &err), 0);

	report_init(&fu, "fu@example.org", "k");
	fu.kind = STATE_KIND_FOLLOWUP;
	fu.parent_id = id;
	followup = add(f->st, &fu);
	get(f->st, followup, &r);
	assert_string_equal(r.parent_redirected_to, "staging@lab.org");
	assert_int_equal(r.parent_status, STATE_SENT);
	state_report_release(&r);
	buf_release(&err);
}

/* A session that failed before the transaction: an attempt, a reason, and
 * the next attempt moved only when asked. */
static void stopped_attempts_count(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_report r;
	int64_t id = add_report(f->st, "s@example.org", "k");

	ok(state_report_mark_stopped(f->st, id, T0, T0 + 300, "connection refused", &err), &err, "stop");
	get(f->st, id, &r);
	assert_int_equal(r.status, STATE_QUEUED);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(r.last_attempt, T0);
	assert_int_equal(r.next_attempt, T0 + 300);
	assert_string_equal(r.last_reply, "connection refused");
	state_report_release(&r);
	ok(state_report_mark_sending(f->st, id, T0 + 300, NULL, &err), &err, "sending");
	ok(state_report_mark_stopped(f->st, id, T0 + 400, 0, "AUTH refused: 535", &err), &err, "stop");
	get(f->st, id, &r);
	assert_int_equal(r.status, STATE_QUEUED);
	assert_int_equal(r.attempts, 3);
	assert_int_equal(r.next_attempt, T0 + 300);	/* kept */
	assert_string_equal(r.last_reply, "AUTH refused: 535");
	state_report_release(&r);
	send_and_finish(f->st, id, T0 + 500);
	assert_int_equal(state_report_mark_stopped(f->st, id, T0, 0, "x", &err), -1);
	assert_non_null(strstr(err.data, "cannot become queued"));
	buf_release(&err);
}

/* The operator sets a report's state as a maintainer would, recorded as a
 * command; a follow-up's, or the state it has, is refused. */
static void operator_sets_the_state(void **state)
{
	struct fixture *f = *state;
	struct state_commands cmds = { 0 };
	struct state_report r, fu;
	struct buf err = BUF_INIT;
	struct state_message m;
	int64_t id, followup;

	id = add_report(f->st, "v@example.org", "k");
	send_and_finish(f->st, id, T0);
	report_init(&fu, "vfu@example.org", "k");
	fu.kind = STATE_KIND_FOLLOWUP;
	fu.parent_id = id;
	followup = add(f->st, &fu);
	memset(&m, 0, sizeof(m));
	m.message_id = "reply@x";
	m.report_id = id;
	m.ingested = 1;
	ok(state_message_add(f->st, &m, NULL, &err), &err, "reply");
	ok(state_command_add(f->st, id, "reply@x", "invalid", "", "Jane <j@x>", T0 + 10, &err), &err, "cmd");
	assert_int_equal(state_report_set_verdict_by(f->st, id, STATE_VERDICT_OPEN, NULL,
						     "operator (root)", T0 + 20, &err), STATE_REFUSED);
	assert_non_null(strstr(err.data, "is open already"));
	buf_reset(&err);
	assert_int_equal(state_report_set_verdict_by(f->st, followup, STATE_VERDICT_INVALID, NULL,
						     "operator (root)", T0 + 20, &err), STATE_REFUSED);
	assert_non_null(strstr(err.data, "follow-up"));
	ok(state_report_set_verdict_by(f->st, id, STATE_VERDICT_DUPLICATE, "same as 3",
				       "operator (root)", T0 + 30, &err), &err, "duplicate");
	get(f->st, id, &r);
	assert_int_equal(r.verdict, STATE_VERDICT_DUPLICATE);
	state_report_release(&r);
	ok(state_report_act(f->st, followup, STATE_ACTION_HOLD, NULL, "operator (root)", T0 + 40, &err),
	   &err, "hold");
	ok(state_command_list(f->st, id, &cmds, &err), &err, "commands");
	assert_int_equal(cmds.nr, 3);
	assert_string_equal(cmds.v[0].author, "Jane <j@x>");
	assert_string_equal(cmds.v[1].name, "duplicate");
	assert_string_equal(cmds.v[1].args, "same as 3");
	assert_string_equal(cmds.v[2].name, "hold");
	assert_int_equal(cmds.v[2].report_id, followup);
	state_commands_release(&cmds);
	buf_release(&err);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(open_creates_a_private_wal_database),
		T(wal_starts_again),
		T(readonly_close_writes_nothing),
		T(reopen_keeps_data_and_migrates_once),
		T(requests_are_answered_and_migrate),
		T(report_round_trips),
		T(transitions_follow_the_table),
		T(unknown_report_is_an_error),
		T(outcomes_are_replaced_per_attempt),
		cmocka_unit_test(outcome_of_recipients),
		T(send_log_counts_per_hour),
		T(delivery_mark_keeps_the_earliest_run),
		T(sent_mail_is_known_before_it_is_archived),
		T(due_selects_queued_retries_and_crashed),
		T(orphans_take_their_parents_place),
		T(killed_while_sending_is_due_again),
		T(duplicates_are_refused_and_change_nothing),
		T(bad_reports_are_refused),
		T(followups_join_the_thread),
		T(ingest_accessors),
		T(thread_lists_in_date_order),
		T(report_mail_is_the_stored_mail),
		T(routing_records),
		T(begin_groups_and_rollback_undoes),
		T(lock_is_exclusive_in_process),
		T(lock_dies_with_its_process),
		cmocka_unit_test(names_round_trip),
		T(migrating_from_3_makes_outcomes),
		T(unsent_mail_is_known),
		T(outbox_actions_follow_the_table),
		T(outbox_action_errors),
		T(due_keeps_held_and_leaves_dropped),
		T(redirect_is_recorded_and_kept_apart),
		T(stopped_attempts_count),
		T(operator_sets_the_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
