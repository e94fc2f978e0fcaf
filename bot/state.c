/*
 * state.c: the SQLite seam (state.h).  The only file that includes
 * <sqlite3.h>; every SQL statement perfbot runs is in here, with its
 * parameters bound, never spliced.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lock.h"
#include "dir.h"
#include "state.h"
#include "xalloc.h"
#include "banned.h"

/* Prepared statements are kept for the life of the connection: preparing
 * was a quarter of a delivery's time.  The SQL texts are string literals,
 * so their address names them. */
#define STATE_STMT_CACHE 64

struct cached_stmt {
	const char *sql;
	sqlite3_stmt *s;
	int busy;	/* handed out and not finished yet */
};

struct state {
	sqlite3 *db;
	char *path;		/* DIR/state.db, for messages */
	int in_tx;		/* inside state_begin() */
	struct cached_stmt cache[STATE_STMT_CACHE];
	size_t nr_cache;
	char *wal_path;		/* DIR/state.db-wal */
	int wal_fd;		/* state_writeback()'s, or -1 */
};

struct state_lock {
	struct lock *lock;	/* DIR/lock (lock.h) */
};

static const char *const kind_names[] = { "report", "followup", "notice", "digest" };
static const char *const status_names[] = { "queued", "sending", "sent", "failed" };
static const char *const verdict_names[] = { "open", "invalid", "fixed", "duplicate" };
static const char *const mark_names[] = { "", "held", "dropped" };
static const char *const rcpt_status_names[] = { "delivered", "deferred", "refused" };
static const char *const action_names[] = { "hold", "release", "retry", "drop" };
/* the command an operator's verdict is recorded as, a maintainer's word */
static const char *const verdict_commands[] = { "reopen", "invalid", "fixed", "duplicate" };

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *state_kind_name(enum state_kind k)
{
	return (size_t)k < N(kind_names) ? kind_names[k] : "?";
}

const char *state_status_name(enum state_status s)
{
	return (size_t)s < N(status_names) ? status_names[s] : "?";
}

const char *state_verdict_name(enum state_verdict v)
{
	return (size_t)v < N(verdict_names) ? verdict_names[v] : "?";
}

const char *state_mark_name(enum state_mark m)
{
	return (size_t)m < N(mark_names) ? mark_names[m] : "?";
}

const char *state_rcpt_status_name(enum state_rcpt_status s)
{
	return (size_t)s < N(rcpt_status_names) ? rcpt_status_names[s] : "?";
}

const char *state_action_name(enum state_action a)
{
	return (size_t)a < N(action_names) ? action_names[a] : "?";
}

enum state_status state_rcpt_outcome(const struct state_rcpt *rcpt, size_t nr)
{
	size_t i, delivered = 0;

	for (i = 0; i < nr; i++) {
		if (rcpt[i].status == STATE_RCPT_DEFERRED)
			return STATE_QUEUED;
		delivered += rcpt[i].status == STATE_RCPT_DELIVERED;
	}
	return delivered ? STATE_SENT : STATE_FAILED;
}

static int name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

int state_verdict_parse(const char *s, enum state_verdict *out)
{
	int i = name_index(verdict_names, N(verdict_names), s);

	if (i < 0)
		return -1;
	*out = (enum state_verdict)i;
	return 0;
}

#define MESSAGE_COLUMNS \
	"message_id, report_id, parent_message_id, in_reply_to, refs, from_name, from_email, " \
	"date, subject, origin, blob_oid, commit_oid, quarantined, quarantine_reason"

/* SQL for column c as rcpt_encode() writes a field: backslash, tab, LF
 * and CR escaped. */
#define RCPT_ESCAPE(c) \
	"replace(replace(replace(replace(" c ", '\\', '\\\\'), char(9), '\\t'), " \
	"char(10), '\\n'), char(13), '\\r')"

/*
 * The schema, one migration per version.  A migration runs in one
 * transaction together with the row that records it, so a database is
 * always at exactly one version.  Never edit a released migration: add
 * the next one.
 */
static const char *const migrations[] = {
	/* 1 */
	"CREATE TABLE reports ("
	"  id INTEGER PRIMARY KEY,"
	"  message_id TEXT UNIQUE NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('report', 'followup')),"
	"  parent_id INTEGER REFERENCES reports(id),"
	"  thread_id INTEGER REFERENCES reports(id),"
	"  thread_key TEXT NOT NULL,"
	"  identity TEXT NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  from_name TEXT NOT NULL,"
	"  from_email TEXT NOT NULL,"
	"  in_reply_to TEXT,"
	"  refs TEXT,"
	"  env_from TEXT NOT NULL,"
	"  env_rcpt TEXT NOT NULL,"
	"  to_addrs TEXT NOT NULL,"
	"  cc_addrs TEXT NOT NULL,"
	"  mail BLOB NOT NULL,"
	"  status TEXT NOT NULL DEFAULT 'queued'"
	"    CHECK (status IN ('queued', 'sending', 'sent', 'failed')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER,"
	"  last_attempt INTEGER,"
	"  last_reply TEXT,"
	"  created INTEGER NOT NULL,"
	"  sent INTEGER,"
	"  state TEXT NOT NULL DEFAULT 'open'"
	"    CHECK (state IN ('open', 'invalid', 'fixed', 'duplicate')),"
	"  CHECK ((kind = 'report') = (parent_id IS NULL))"
	");"
	"CREATE INDEX reports_thread_key ON reports(thread_key);"
	"CREATE INDEX reports_thread_id ON reports(thread_id);"
	"CREATE INDEX reports_status ON reports(status, next_attempt);"
	"CREATE TABLE report_sources ("
	"  name TEXT PRIMARY KEY,"
	"  report_id INTEGER NOT NULL REFERENCES reports(id)"
	");"
	"CREATE INDEX report_sources_report ON report_sources(report_id);"
	"CREATE TABLE recipients_results ("
	"  report_id INTEGER NOT NULL REFERENCES reports(id),"
	"  seq INTEGER NOT NULL,"
	"  address TEXT NOT NULL,"
	"  code INTEGER NOT NULL,"
	"  reply TEXT NOT NULL,"
	"  PRIMARY KEY (report_id, seq)"
	");"
	"CREATE TABLE send_log ("
	"  hour INTEGER PRIMARY KEY,"
	"  count INTEGER NOT NULL"
	");"
	"CREATE TABLE messages ("
	"  message_id TEXT PRIMARY KEY,"
	"  report_id INTEGER REFERENCES reports(id),"
	"  parent_message_id TEXT,"
	"  in_reply_to TEXT,"
	"  refs TEXT,"
	"  from_name TEXT,"
	"  from_email TEXT,"
	"  date INTEGER,"
	"  subject TEXT,"
	"  origin TEXT NOT NULL CHECK (origin IN ('sent', 'ingested')),"
	"  blob_oid TEXT,"
	"  commit_oid TEXT,"
	"  quarantined INTEGER NOT NULL DEFAULT 0,"
	"  quarantine_reason TEXT"
	");"
	"CREATE INDEX messages_report ON messages(report_id);"
	"CREATE TABLE commands ("
	"  id INTEGER PRIMARY KEY,"
	"  report_id INTEGER REFERENCES reports(id),"
	"  message_id TEXT NOT NULL REFERENCES messages(message_id),"
	"  name TEXT NOT NULL,"
	"  args TEXT NOT NULL,"
	"  author TEXT NOT NULL,"
	"  date INTEGER,"
	"  UNIQUE (message_id, name, args)"
	");"
	"CREATE TABLE trailers ("
	"  message_id TEXT NOT NULL REFERENCES messages(message_id),"
	"  key TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  UNIQUE (message_id, key, value)"
	");"
	"CREATE TABLE cursors ("
	"  source TEXT PRIMARY KEY,"
	"  uidvalidity INTEGER,"
	"  last_uid INTEGER,"
	"  offset INTEGER,"
	"  fingerprint TEXT"
	");"
	"CREATE TABLE archive_tip ("
	"  epoch INTEGER PRIMARY KEY,"
	"  commit_oid TEXT NOT NULL"
	");",
	/* 2: fewer pages written per delivery mark (each page is a WAL frame
	 * of 4 KiB; a mail's marks wrote ten):
	 *  - the mail bytes apart from the report's row, which delivery
	 *    rewrites twice a mail: a row of 2.5 KiB filled a page of its own,
	 *    and a checkpoint then copied one page per report back; now about
	 *    ten reports share a page;
	 *  - the index of due reports holds only queued and sending ones, so
	 *    a mark changes one leaf of it, not the leaves of two statuses;
	 *  - per-recipient results in one b-tree (WITHOUT ROWID), not two */
	"CREATE TABLE report_mails ("
	"  report_id INTEGER PRIMARY KEY REFERENCES reports(id),"
	"  mail BLOB NOT NULL"
	");"
	"INSERT INTO report_mails (report_id, mail) SELECT id, mail FROM reports;"
	"ALTER TABLE reports DROP COLUMN mail;"
	"DROP INDEX reports_status;"
	"CREATE INDEX reports_pending ON reports(id) WHERE status IN ('queued', 'sending');"
	"CREATE TABLE recipients_results_2 ("
	"  report_id INTEGER NOT NULL REFERENCES reports(id),"
	"  seq INTEGER NOT NULL,"
	"  address TEXT NOT NULL,"
	"  code INTEGER NOT NULL,"
	"  reply TEXT NOT NULL,"
	"  PRIMARY KEY (report_id, seq)"
	") WITHOUT ROWID;"
	"INSERT INTO recipients_results_2 SELECT report_id, seq, address, code, reply "
	"  FROM recipients_results;"
	"DROP TABLE recipients_results;"
	"ALTER TABLE recipients_results_2 RENAME TO recipients_results;"
	/* and named flags (state_archive_owed()) */
	"CREATE TABLE flags ("
	"  name TEXT PRIMARY KEY,"
	"  value INTEGER NOT NULL"
	") WITHOUT ROWID;",
	/* 3: a delivery's per-mail transaction writes the report's row and
	 * the pending index, nothing else (it wrote seven pages in five
	 * b-trees, and that was most of what perfbot adds to SMTP's time):
	 *  - per-recipient results are a column of the report's row
	 *    (rcpt_encode(); recipients_results' rows are read in key order,
	 *    that is by seq);
	 *  - a sent mail gets its row in messages when its archive batch is
	 *    committed (state_message_set_archived()); until then the view
	 *    known_messages shows it from reports;
	 *  - the hourly send log is added to once a run (state_sent_add()),
	 *    and a run cut short is recounted from reports: the flag
	 *    delivery_unfinished holds when that run began */
	"ALTER TABLE reports ADD COLUMN rcpt_results TEXT;"
	"UPDATE reports SET rcpt_results = (SELECT group_concat(code || char(9) || "
	RCPT_ESCAPE("address") " || char(9) || " RCPT_ESCAPE("reply") " || char(10), '') "
	"  FROM recipients_results x WHERE x.report_id = reports.id)"
	"  WHERE id IN (SELECT report_id FROM recipients_results);"
	"DROP TABLE recipients_results;"
	"CREATE VIEW known_messages AS"
	"  SELECT " MESSAGE_COLUMNS " FROM messages"
	"  UNION ALL"
	"  SELECT message_id, thread_id, in_reply_to, in_reply_to, refs, from_name, from_email,"
	"    created, subject, 'sent', NULL, NULL, 0, NULL FROM reports r"
	"    WHERE status = 'sent' AND NOT EXISTS"
	"      (SELECT 1 FROM messages m WHERE m.message_id = r.message_id);"
	"UPDATE flags SET name = 'delivery_unfinished' WHERE name = 'archive_owed';"
	"DELETE FROM flags WHERE name = 'delivery_unfinished' AND value = 0;",
	/* 4: delivery an operator can leave alone (issue 12); migrate_4()
	 * below is its other half, in the same transaction:
	 *  - rcpt_results holds each envelope recipient's outcome so far, no
	 *    longer the last attempt's replies: a line
	 *    "STATUS\tCODE\tADDRESS\tREPLY" each (rcpt_encode());
	 *  - redirected_to: where perfbot.redirectTo sent a report instead;
	 *    such a report is no known message and is never archived;
	 *  - the operator's mark (held, dropped) and its reason;
	 *  - the operator's actions are commands without a mail: message_id
	 *    may be NULL (NULLs never meet in the UNIQUE constraint, so each
	 *    action is kept) */
	"ALTER TABLE reports ADD COLUMN redirected_to TEXT;"
	"ALTER TABLE reports ADD COLUMN mark TEXT CHECK (mark IN ('held', 'dropped'));"
	"ALTER TABLE reports ADD COLUMN mark_why TEXT;"
	"CREATE TABLE commands_4 ("
	"  id INTEGER PRIMARY KEY,"
	"  report_id INTEGER REFERENCES reports(id),"
	"  message_id TEXT REFERENCES messages(message_id),"
	"  name TEXT NOT NULL,"
	"  args TEXT NOT NULL,"
	"  author TEXT NOT NULL,"
	"  date INTEGER,"
	"  UNIQUE (message_id, name, args)"
	");"
	"INSERT INTO commands_4 (id, report_id, message_id, name, args, author, date)"
	"  SELECT id, report_id, message_id, name, args, author, date FROM commands;"
	"DROP TABLE commands;"
	"ALTER TABLE commands_4 RENAME TO commands;"
	"CREATE INDEX commands_report ON commands(report_id);"
	"DROP VIEW known_messages;"
	"CREATE VIEW known_messages AS"
	"  SELECT " MESSAGE_COLUMNS " FROM messages"
	"  UNION ALL"
	"  SELECT message_id, thread_id, in_reply_to, in_reply_to, refs, from_name, from_email,"
	"    created, subject, 'sent', NULL, NULL, 0, NULL FROM reports r"
	"    WHERE sent IS NOT NULL AND redirected_to IS NULL AND NOT EXISTS"
	"      (SELECT 1 FROM messages m WHERE m.message_id = r.message_id);",
	/* 5: routing (issue 14), one step on its own (renumber freely):
	 *  - a report remembers the MAINTAINERS people of its sections (who
	 *    may steer it, beside its To and Cc as sent);
	 *  - a command records whether it was applied, and why (not);
	 *  - the addresses #perfbot unsubscribe took off every report */
	"ALTER TABLE reports ADD COLUMN maintainer_addrs TEXT;"
	"ALTER TABLE commands ADD COLUMN applied INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE commands ADD COLUMN why TEXT;"
	"CREATE TABLE exclusions ("
	"  address TEXT PRIMARY KEY,"
	"  who TEXT NOT NULL,"
	"  date INTEGER NOT NULL,"
	"  message_id TEXT"
	");",
	/* 6: tracking fixes (issue 15); migrate_track() is its other half,
	 * in the same transaction: reports takes the kinds notice and digest
	 * (a digest's parent is the previous digest, none for the first)
	 * and each report's tree and head commit.
	 *  - fixes: a report's fix, one per report (state_fix_set());
	 *  - possible_fixes: Fixes: without perfbot's Reported-by, one per
	 *    report and commit;
	 *  - track_cursors: the tip of each watched ref examined last;
	 *  - notices: which fix of a report was announced, by which mail (one
	 *    notice per report and fix commit);
	 *  - digest_entries: the state of every report that was not open, as
	 *    each digest listed it (what "since the previous digest" means) */
	"CREATE TABLE fixes ("
	"  report_id INTEGER PRIMARY KEY REFERENCES reports(id),"
	"  commit_id TEXT NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  ref TEXT NOT NULL,"
	"  date INTEGER,"
	"  evidence TEXT NOT NULL"
	"    CHECK (evidence IN ('closes', 'link', 'revert', 'fixes', 'fixed-by')),"
	"  recorded INTEGER NOT NULL,"
	"  in_repo INTEGER NOT NULL,"
	"  landed TEXT NOT NULL,"
	"  reopened INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE TABLE possible_fixes ("
	"  report_id INTEGER NOT NULL REFERENCES reports(id),"
	"  commit_id TEXT NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  ref TEXT NOT NULL,"
	"  date INTEGER,"
	"  recorded INTEGER NOT NULL,"
	"  PRIMARY KEY (report_id, commit_id)"
	") WITHOUT ROWID;"
	"CREATE TABLE track_cursors ("
	"  ref TEXT PRIMARY KEY,"
	"  tip TEXT NOT NULL,"
	"  walked INTEGER NOT NULL"
	") WITHOUT ROWID;"
	"CREATE TABLE notices ("
	"  report_id INTEGER NOT NULL REFERENCES reports(id),"
	"  commit_id TEXT NOT NULL,"
	"  notice_id INTEGER NOT NULL UNIQUE REFERENCES reports(id),"
	"  PRIMARY KEY (report_id, commit_id)"
	") WITHOUT ROWID;"
	"CREATE TABLE digest_entries ("
	"  digest_id INTEGER NOT NULL REFERENCES reports(id),"
	"  report_id INTEGER NOT NULL REFERENCES reports(id),"
	"  state TEXT NOT NULL CHECK (state IN ('open', 'invalid', 'fixed', 'duplicate')),"
	"  fix_commit TEXT,"
	"  PRIMARY KEY (digest_id, report_id)"
	") WITHOUT ROWID;",
};

struct state;
static int migrate_4(struct state *st, struct buf *err);
static int migrate_track(struct state *st, struct buf *err);

/* What a migration does beyond its SQL, in its transaction; NULL = nothing. */
static int (*const migration_code[])(struct state *st, struct buf *err) = {
	NULL, NULL, NULL, migrate_4, NULL, migrate_track,
};

_Static_assert(N(migrations) == STATE_SCHEMA_VERSION && N(migration_code) == STATE_SCHEMA_VERSION,
	       "one migration per schema version");

/* ---- statements ------------------------------------------------------ */

static int db_fail(struct state *st, struct buf *err, const char *what)
{
	return err_set(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

static int exec_sql(struct state *st, const char *sql, struct buf *err)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(err, "%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/*
 * A prepared statement with parameters bound in order.  A bind that fails
 * is remembered and reported by the next step, so call sites can bind
 * without checking each one.
 */
struct stmt {
	struct state *st;
	sqlite3_stmt *s;
	struct cached_stmt *cached;	/* where s is kept, or NULL */
	int next;	/* the next parameter index */
	int rc;		/* the first failing bind's code, or SQLITE_OK */
};

static int stmt_prepare(struct state *st, struct stmt *q, const char *sql, struct buf *err)
{
	size_t i;

	q->st = st;
	q->next = 1;
	q->rc = SQLITE_OK;
	q->cached = NULL;
	for (i = 0; i < st->nr_cache; i++) {
		if (st->cache[i].sql == sql && !st->cache[i].busy) {
			q->cached = &st->cache[i];
			q->cached->busy = 1;
			q->s = q->cached->s;
			return 0;
		}
	}
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &q->s, NULL) != SQLITE_OK) {
		q->s = NULL;
		return db_fail(st, err, "cannot prepare a statement");
	}
	if (st->nr_cache < STATE_STMT_CACHE) {
		q->cached = &st->cache[st->nr_cache++];
		q->cached->sql = sql;
		q->cached->s = q->s;
		q->cached->busy = 1;
	}
	return 0;
}

static void stmt_finish(struct stmt *q)
{
	if (q->cached) {
		sqlite3_reset(q->s);
		sqlite3_clear_bindings(q->s);
		q->cached->busy = 0;
		q->cached = NULL;
	} else {
		sqlite3_finalize(q->s);
	}
	q->s = NULL;
}

static void bind_rc(struct stmt *q, int rc)
{
	if (rc != SQLITE_OK && q->rc == SQLITE_OK)
		q->rc = rc;
	q->next++;
}

/* NULL binds SQL NULL. */
static void bind_text(struct stmt *q, const char *s)
{
	bind_rc(q, s ? sqlite3_bind_text(q->s, q->next, s, -1, SQLITE_STATIC)
		     : sqlite3_bind_null(q->s, q->next));
}

static void bind_int(struct stmt *q, int64_t v)
{
	bind_rc(q, sqlite3_bind_int64(q->s, q->next, v));
}

/* 0 ("none") binds SQL NULL. */
static void bind_opt(struct stmt *q, int64_t v)
{
	bind_rc(q, v ? sqlite3_bind_int64(q->s, q->next, v) : sqlite3_bind_null(q->s, q->next));
}

static void bind_blob(struct stmt *q, const void *p, size_t n)
{
	bind_rc(q, sqlite3_bind_blob64(q->s, q->next, p, n, SQLITE_STATIC));
}

/* 1 for a row, 0 when done, -1 with a message. */
static int stmt_step(struct stmt *q, struct buf *err)
{
	int rc;

	if (q->rc != SQLITE_OK)
		return err_set(err, "%s: cannot bind a value: %s", q->st->path, sqlite3_errstr(q->rc));
	rc = sqlite3_step(q->s);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_fail(q->st, err, "query failed");
}

/* Runs a statement that returns no rows and finalizes it.  0 or -1. */
static int stmt_run(struct stmt *q, struct buf *err)
{
	int r = stmt_step(q, err);

	stmt_finish(q);
	return r < 0 ? -1 : 0;
}

/* Runs one of the transaction statements below, kept prepared: they run
 * twice per state change, and compiling them each time was a tenth of a
 * delivery's CPU. */
static int tx_sql(struct state *st, const char *sql, struct buf *err)
{
	struct stmt q;

	if (stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	return stmt_run(&q, err);
}

static char *col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? xstrdup((const char *)t) : NULL;
}

static int64_t col_int(sqlite3_stmt *s, int i)
{
	return sqlite3_column_int64(s, i);
}

/* ---- transactions ---------------------------------------------------- */

/*
 * Each state change runs between tx_begin() and tx_end().  Outside
 * state_begin() that is its own transaction (BEGIN IMMEDIATE for writes,
 * so it never has to upgrade a read lock, which WAL cannot wait for);
 * inside, a savepoint, so a failing call undoes only its own part.
 */
static int tx_begin(struct state *st, int write, struct buf *err)
{
	if (st->in_tx)
		return tx_sql(st, "SAVEPOINT perfbot_call", err);
	return tx_sql(st, write ? "BEGIN IMMEDIATE" : "BEGIN", err);
}

/* Commits when ret is 0, else rolls back; returns ret, or -1 when the
 * commit failed. */
static int tx_end(struct state *st, int ret, struct buf *err)
{
	if (st->in_tx) {
		if (ret == 0)
			return tx_sql(st, "RELEASE perfbot_call", err);
		tx_sql(st, "ROLLBACK TO perfbot_call", NULL);
		tx_sql(st, "RELEASE perfbot_call", NULL);
		return ret;
	}
	if (ret == 0 && tx_sql(st, "COMMIT", err) == 0)
		return 0;
	if (!sqlite3_get_autocommit(st->db))
		tx_sql(st, "ROLLBACK", NULL);
	return ret ? ret : -1;
}

/* The same for a change made by one statement: inside state_begin() it
 * needs no savepoint, since SQLite undoes a failing statement itself
 * (delivery makes two such changes a mail, in one transaction). */
static int tx_begin_one(struct state *st, struct buf *err)
{
	return st->in_tx ? 0 : tx_begin(st, 1, err);
}

static int tx_end_one(struct state *st, int ret, struct buf *err)
{
	return st->in_tx ? ret : tx_end(st, ret, err);
}

/* Runs sql, one statement that writes, with n integer parameters: in its
 * own transaction, or the caller's. */
static int write_ints(struct state *st, const char *sql, size_t n, const int64_t *v,
		      struct buf *err)
{
	struct stmt q;
	size_t i;
	int ret = -1;

	if (tx_begin_one(st, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, sql, err) == 0) {
		for (i = 0; i < n; i++)
			bind_int(&q, v[i]);
		ret = stmt_run(&q, err);
	}
	return tx_end_one(st, ret, err);
}

int state_set_durable(struct state *st, int full, struct buf *err)
{
	/* back to full: a checkpoint syncs what was committed meanwhile */
	return exec_sql(st, full ? "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 1000; PRAGMA wal_checkpoint(FULL)"
				 : "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0", err);
}

int state_begin(struct state *st, struct buf *err)
{
	if (st->in_tx)
		return err_set(err, "%s: a transaction is already open", st->path);
	if (tx_sql(st, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	st->in_tx = 1;
	return 0;
}

int state_commit(struct state *st, struct buf *err)
{
	if (!st->in_tx)
		return err_set(err, "%s: no transaction is open", st->path);
	st->in_tx = 0;
	if (tx_sql(st, "COMMIT", err) < 0) {
		if (!sqlite3_get_autocommit(st->db))
			tx_sql(st, "ROLLBACK", NULL);
		return -1;
	}
	return 0;
}

void state_rollback(struct state *st)
{
	if (!st->in_tx)
		return;
	st->in_tx = 0;
	if (!sqlite3_get_autocommit(st->db))
		tx_sql(st, "ROLLBACK", NULL);
}

/* ---- opening --------------------------------------------------------- */

static void path_join(struct buf *out, const char *dir, const char *name)
{
	buf_reset(out);
	buf_addf(out, "%s/%s", dir, name);
}

int state_exists(const char *dir)
{
	struct buf path = BUF_INIT;
	int r;

	path_join(&path, dir, "state.db");
	r = access(path.data, F_OK) == 0;
	buf_release(&path);
	return r;
}

static int schema_migrate_steps(struct state *st, struct buf *err);

static int schema_version(struct state *st, int64_t *version, struct buf *err)
{
	struct stmt q;
	int r;

	if (stmt_prepare(st, &q, "SELECT COALESCE(MAX(version), 0) FROM schema_version", err) < 0)
		return -1;
	r = stmt_step(&q, err);
	if (r == 1)
		*version = col_int(q.s, 0);
	stmt_finish(&q);
	return r == 1 ? 0 : -1;
}

/* -1 with a message when the database breaks a foreign key: a migration
 * that ran with them off must leave none broken. */
static int foreign_keys_hold(struct state *st, struct buf *err)
{
	struct stmt q;
	int r;

	if (stmt_prepare(st, &q, "PRAGMA foreign_key_check", err) < 0)
		return -1;
	r = stmt_step(&q, err);
	if (r == 1)
		err_set(err, "%s: a row of %s names a missing row of %s", st->path,
			(const char *)sqlite3_column_text(q.s, 0), (const char *)sqlite3_column_text(q.s, 2));
	stmt_finish(&q);
	return r ? -1 : 0;
}

/* Applies the migrations the database lacks, each in one transaction.
 * Foreign keys are off meanwhile, as SQLite's way of rebuilding a table
 * needs (a parent table cannot be dropped otherwise), and checked before
 * each migration commits. */
static int schema_migrate(struct state *st, struct buf *err)
{
	int ret = -1;

	if (exec_sql(st, "PRAGMA foreign_keys = OFF", err) < 0)
		return -1;
	ret = schema_migrate_steps(st, err);
	if (exec_sql(st, "PRAGMA foreign_keys = ON", ret < 0 ? NULL : err) < 0)
		ret = -1;
	return ret;
}

static int schema_migrate_steps(struct state *st, struct buf *err)
{
	int64_t v = 0, want;

	for (want = 1; want <= STATE_SCHEMA_VERSION; want++) {
		struct stmt q;
		int ret = -1;

		if (tx_begin(st, 1, err) < 0)
			return -1;
		if (exec_sql(st, "CREATE TABLE IF NOT EXISTS schema_version "
			     "(version INTEGER PRIMARY KEY)", err) < 0 ||
		    schema_version(st, &v, err) < 0)
			goto end;
		if (v > STATE_SCHEMA_VERSION) {
			err_set(err, "%s: written by a newer perfbot (schema version %lld, this one "
				"knows %d): use that perfbot or a newer one", st->path,
				(long long)v, STATE_SCHEMA_VERSION);
			goto end;
		}
		if (v >= want) {
			ret = 0;
			goto end;
		}
		if (exec_sql(st, migrations[want - 1], err) < 0 ||
		    (migration_code[want - 1] && migration_code[want - 1](st, err) < 0) ||
		    foreign_keys_hold(st, err) < 0) {
			err_prefix(err, "migration to schema version %lld: ", (long long)want);
			goto end;
		}
		if (stmt_prepare(st, &q, "INSERT INTO schema_version (version) VALUES (?)", err) < 0)
			goto end;
		bind_int(&q, want);
		ret = stmt_run(&q, err);
end:
		if (tx_end(st, ret, err) < 0)
			return -1;
	}
	return 0;
}

static int journal_mode_cb(void *arg, int n, char **values, char **names)
{
	(void)names;
	if (n > 0 && values[0])
		snprintf(arg, 16, "%s", values[0]);
	return 0;
}

static int state_configure(struct state *st, struct buf *err)
{
	char mode[16] = "";
	char *msg = NULL;

	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, STATE_BUSY_TIMEOUT_MS);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	/* The WAL file stays when perfbot exits, emptied by a checkpoint (and
	 * removed by state_close() when it grew past STATE_WAL_KEEP): a
	 * delivery writes some megabytes of it, and writing over blocks the
	 * file has is cheaper than allocating them again and freeing them at
	 * exit (together 11 ms of a 1,000-mail run, measured). */
	sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL, &(int){ 1 });
	if (sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", journal_mode_cb, mode, &msg)
	    != SQLITE_OK) {
		err_set(err, "%s: cannot switch to WAL mode: %s", st->path,
			msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	if (strcmp(mode, "wal"))
		return err_set(err, "%s: the file system does not support WAL mode (journal_mode is "
			       "'%s'): put perfbot.state on a local file system", st->path, mode);
	/* FULL: a commit is on disk (WAL fsync'd) before it returns, so kill -9
	 * or a power loss never loses a state change perfbot acted on.  A page
	 * cache of 256 KiB (SQLite's default is 2 MiB): the hot pages are few
	 * (index ends, the send log), the rest is in the kernel's cache, and
	 * ingest's memory then stops growing after a few hundred mails, not
	 * after some thousands, at the same speed. */
	return exec_sql(st, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
			"PRAGMA trusted_schema = OFF; PRAGMA cache_size = -256", err);
}

/* Creates path with mode 0600 if it is not there, and narrows a wider
 * mode an older perfbot left. */
static int db_private(const char *path, struct buf *err)
{
	static const char *const side[] = { "-wal", "-shm" };
	struct buf other = BUF_INIT;
	struct stat sb;
	size_t i;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return err_set(err, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &sb) == 0 && (sb.st_mode & 077) && fchmod(fd, sb.st_mode & 0700) < 0) {
		err_set(err, "%s: cannot make it private (chmod 600): %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	for (i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		buf_reset(&other);
		buf_addf(&other, "%s%s", path, side[i]);
		if (stat(other.data, &sb) == 0 && (sb.st_mode & 077))
			chmod(other.data, sb.st_mode & 0700);
	}
	buf_release(&other);
	return 0;
}

int state_open(const char *dir, struct state **out, struct buf *err)
{
	struct state *st;
	struct buf path = BUF_INIT;
	int rc;

	*out = NULL;
	if (dir_make(dir, 0700, err) < 0)
		return -1;
	st = xcalloc(1, sizeof(*st));
	st->wal_fd = -1;
	path_join(&path, dir, "state.db");
	st->path = buf_detach(&path, NULL);
	buf_addf(&path, "%s-wal", st->path);
	st->wal_path = buf_detach(&path, NULL);
	/* The outbox holds every mail's bytes and the replies: perfbot's user
	 * alone may read it, whatever the umask (SQLite gives its -wal and
	 * -shm files the database's mode), also when perfbot.spoolGroup opens
	 * the folder to others. */
	if (db_private(st->path, err) < 0) {
		free(st->path);
		free(st->wal_path);
		free(st);
		return -1;
	}
	rc = sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		if (st->db)
			db_fail(st, err, "cannot open");
		else
			err_set(err, "%s: cannot open: %s", st->path, sqlite3_errstr(rc));
		state_close(st);
		return -1;
	}
	if (state_configure(st, err) < 0 || schema_migrate(st, err) < 0) {
		state_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

void state_writeback(struct state *st)
{
	if (st->wal_fd < 0)
		st->wal_fd = open(st->wal_path, O_RDONLY | O_CLOEXEC);
	/* only a head start for the kernel: SQLite's own sync still follows */
	if (st->wal_fd >= 0)
		(void)sync_file_range(st->wal_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

void state_close(struct state *st)
{
	struct stat sb;

	if (!st)
		return;
	state_rollback(st);
	for (size_t i = 0; i < st->nr_cache; i++)
		sqlite3_finalize(st->cache[i].s);
	if (st->wal_fd >= 0)
		close(st->wal_fd);
	if (stat(st->wal_path, &sb) == 0 && sb.st_size > STATE_WAL_KEEP)
		sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL, &(int){ 0 });
	sqlite3_close_v2(st->db);
	free(st->path);
	free(st->wal_path);
	free(st);
}

/* ---- each recipient's outcome, as one text --------------------------- */

/* A line "STATUS\tCODE\tADDRESS\tREPLY" each, backslash, tab, LF and CR
 * in the strings escaped (as RCPT_ESCAPE() does). */
static void rcpt_field(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\': buf_adds(b, "\\\\"); break;
		case '\t': buf_adds(b, "\\t"); break;
		case '\n': buf_adds(b, "\\n"); break;
		case '\r': buf_adds(b, "\\r"); break;
		default: buf_addc(b, *s);
		}
	}
}

static void rcpt_encode(struct buf *b, const struct state_rcpt *rcpt, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		buf_addf(b, "%s\t%d\t", state_rcpt_status_name(rcpt[i].status), rcpt[i].code);
		rcpt_field(b, rcpt[i].address);
		buf_addc(b, '\t');
		rcpt_field(b, rcpt[i].reply ? rcpt[i].reply : "");
		buf_addc(b, '\n');
	}
}

/* The field at *p up to a tab or LF, unescaped; *p moves past its end. */
static char *rcpt_unfield(const char **p)
{
	struct buf b = BUF_INIT;
	const char *s = *p;

	buf_adds(&b, "");
	for (; *s && *s != '\t' && *s != '\n'; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			buf_addc(&b, *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s);
		} else {
			buf_addc(&b, *s);
		}
	}
	*p = *s ? s + 1 : s;
	return buf_detach(&b, NULL);
}

/* The code field at *s; *s moves past its tab. */
static int rcpt_code(const char **s)
{
	char *end;
	long code = strtol(*s, &end, 10);

	*s = *end == '\t' ? end + 1 : end;
	return code >= 0 && code < 1000 ? (int)code : 0;
}

/* Decodes rcpt_encode()'s text (NULL: none).  -1 when a line's status is
 * not one of the names (nothing set). */
static int rcpt_decode(const char *s, struct state_rcpt **out, size_t *nr)
{
	struct state_rcpt *v = NULL;
	size_t n = 0, alloc = 0;
	int status;

	*out = NULL;
	*nr = 0;
	while (s && *s) {
		char *name = rcpt_unfield(&s);

		status = name_index(rcpt_status_names, N(rcpt_status_names), name);
		free(name);
		if (status < 0) {
			state_rcpts_free(v, n);
			return -1;
		}
		ALLOC_GROW(v, n + 1, alloc);
		v[n].status = (enum state_rcpt_status)status;
		v[n].code = rcpt_code(&s);
		v[n].address = rcpt_unfield(&s);
		v[n].reply = rcpt_unfield(&s);
		n++;
	}
	*out = v;
	*nr = n;
	return 0;
}

/* ---- migration 4's code ---------------------------------------------- */

/*
 * Schema 3 kept the last attempt's replies per recipient ("CODE\tADDRESS\t
 * REPLY" lines, the RCPT replies), not outcomes.  What they become:
 *   - a sent report: 2xx delivered, 5xx refused, anything else deferred:
 *     perfbot 3 gave those recipients up after a 4xx.  Such a report is
 *     queued again, held: nothing old goes out on its own after an
 *     upgrade, and `outbox release` sends it to them alone;
 *   - a failed report: 5xx refused with its reply, the others refused
 *     with the report's last reply (the refusal of MAIL or DATA);
 *   - a queued or sending one: nobody has it; the 5xx ones are refused,
 *     the others pending again.
 */
static int migrate_4_row(struct state *st, int64_t id, const char *status, const char *last_reply,
			 const char *old, struct buf *err)
{
	struct state_rcpt *v = NULL;
	struct buf text = BUF_INIT, why = BUF_INIT;
	size_t n = 0, alloc = 0, given_up = 0, i;
	const char *p = old, *lr = last_reply ? last_reply : "";
	int sent = !strcmp(status, "sent"), failed = !strcmp(status, "failed");
	struct stmt q;
	int ret = -1;

	while (p && *p) {
		int code = rcpt_code(&p);
		char *address = rcpt_unfield(&p), *reply = rcpt_unfield(&p);
		int final_refusal = code >= 500 && code < 600;
		enum state_rcpt_status rs = STATE_RCPT_REFUSED;

		if (sent) {
			rs = code >= 200 && code < 300 ? STATE_RCPT_DELIVERED :
			     final_refusal ? STATE_RCPT_REFUSED : STATE_RCPT_DEFERRED;
		} else if (failed && !final_refusal) {
			/* the refusal of MAIL or DATA was every recipient's */
			char *end;
			long c = strtol(lr, &end, 10);

			free(reply);
			code = c >= 0 && c < 1000 ? (int)c : 0;
			reply = xstrdup(*end == ' ' ? end + 1 : lr);
		} else if (!failed && !final_refusal) {
			free(address);
			free(reply);
			continue;	/* pending again */
		}
		given_up += rs == STATE_RCPT_DEFERRED;
		ALLOC_GROW(v, n + 1, alloc);
		v[n].status = rs;
		v[n].code = code;
		v[n].address = address;
		v[n].reply = reply;
		n++;
	}
	rcpt_encode(&text, v, n);
	if (given_up)
		buf_addf(&why, "held by the upgrade to schema 4: an earlier perfbot gave %zu recipient%s up "
			 "after a temporary failure; `perfbot outbox release %lld` sends the mail to %s "
			 "alone, `perfbot outbox drop %lld --why TEXT` gives %s up", given_up,
			 given_up == 1 ? "" : "s", (long long)id, given_up == 1 ? "it" : "them",
			 (long long)id, given_up == 1 ? "it" : "them");
	if (stmt_prepare(st, &q, given_up ?
			 "UPDATE reports SET rcpt_results = ?, status = 'queued', next_attempt = NULL, "
			 "mark = 'held', mark_why = ? WHERE id = ?" :
			 "UPDATE reports SET rcpt_results = ? WHERE id = ?", err) == 0) {
		bind_text(&q, n ? text.data : NULL);
		if (given_up)
			bind_text(&q, why.data);
		bind_int(&q, id);
		ret = stmt_run(&q, err);
	}
	for (i = 0; i < n; i++) {
		free(v[i].address);
		free(v[i].reply);
	}
	free(v);
	buf_release(&text);
	buf_release(&why);
	return ret;
}

static int migrate_4(struct state *st, struct buf *err)
{
	struct rows {
		int64_t id;
		char *status, *last_reply, *old;
	} *v = NULL;
	size_t n = 0, alloc = 0, i;
	struct stmt q;
	int row, ret = 0;

	if (stmt_prepare(st, &q, "SELECT id, status, last_reply, rcpt_results FROM reports "
			 "WHERE rcpt_results IS NOT NULL ORDER BY id", err) < 0)
		return -1;
	while ((row = stmt_step(&q, err)) == 1) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n].id = col_int(q.s, 0);
		v[n].status = col_str(q.s, 1);
		v[n].last_reply = col_str(q.s, 2);
		v[n].old = col_str(q.s, 3);
		n++;
	}
	stmt_finish(&q);
	if (row < 0)
		ret = -1;
	for (i = 0; i < n; i++) {
		if (ret == 0)
			ret = migrate_4_row(st, v[i].id, v[i].status, v[i].last_reply, v[i].old, err);
		free(v[i].status);
		free(v[i].last_reply);
		free(v[i].old);
	}
	free(v);
	return ret;
}

/* ---- releasing ------------------------------------------------------- */

void state_report_release(struct state_report *r)
{
	size_t i;

	free(r->message_id);
	free(r->thread_key);
	free(r->identity);
	free(r->subject);
	free(r->from_name);
	free(r->from_email);
	free(r->in_reply_to);
	free(r->refs);
	free(r->env_from);
	free(r->env_rcpt);
	free(r->to_addrs);
	free(r->cc_addrs);
	free(r->maintainer_addrs);
	free(r->mail);
	for (i = 0; i < r->nr_sources; i++)
		free(r->sources[i]);
	free(r->sources);
	free(r->last_reply);
	free(r->redirected_to);
	free(r->parent_redirected_to);
	free(r->mark_why);
	state_rcpts_free(r->rcpt, r->nr_rcpt);
	free(r->tree);
	free(r->head);
	memset(r, 0, sizeof(*r));
}

void state_reports_release(struct state_reports *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		state_report_release(&list->v[i]);
	free(list->v);
	memset(list, 0, sizeof(*list));
}

void state_rcpts_free(struct state_rcpt *v, size_t nr)
{
	size_t i;

	for (i = 0; v && i < nr; i++) {
		free(v[i].address);
		free(v[i].reply);
	}
	free(v);
}

void state_message_release(struct state_message *m)
{
	free(m->message_id);
	free(m->parent_message_id);
	free(m->in_reply_to);
	free(m->refs);
	free(m->from_name);
	free(m->from_email);
	free(m->subject);
	free(m->blob_oid);
	free(m->commit_oid);
	free(m->quarantine_reason);
	memset(m, 0, sizeof(*m));
}

void state_messages_release(struct state_messages *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		state_message_release(&list->v[i]);
	free(list->v);
	memset(list, 0, sizeof(*list));
}

void state_cursor_release(struct state_cursor *c)
{
	free(c->fingerprint);
	memset(c, 0, sizeof(*c));
}

/* ---- checks on input ------------------------------------------------- */

/* s may be NULL unless required; at most STATE_MAX_TEXT bytes. */
static int check_text(const char *what, const char *s, int required, struct buf *err)
{
	if (!s)
		return required ? err_set(err, "%s is missing", what) : 0;
	if (strnlen(s, STATE_MAX_TEXT + 1) > STATE_MAX_TEXT)
		return err_set(err, "%s is longer than %d bytes", what, STATE_MAX_TEXT);
	if (required && !*s)
		return err_set(err, "%s is empty", what);
	return 0;
}

/* An operator's reason: check_text(), and one line of printable text
 * (status and outbox print it as one). */
static int check_reason(const char *s, int required, struct buf *err)
{
	const unsigned char *p;

	if (check_text("the reason", s, required, err) < 0)
		return -1;
	for (p = (const unsigned char *)s; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return err_set(err, "the reason has a line break or another control character: "
				       "give it on one line");
	return 0;
}

static int check_rcpts(const struct state_rcpt *rcpt, size_t nr, const char *reply,
		       struct buf *err)
{
	size_t i;

	if (nr > STATE_MAX_RCPT)
		return err_set(err, "%zu recipient results (at most %d)", nr, STATE_MAX_RCPT);
	if (check_text("the server reply", reply, 0, err) < 0)
		return -1;
	for (i = 0; i < nr; i++)
		if (check_text("a recipient's address", rcpt[i].address, 1, err) < 0 ||
		    check_text("a recipient's reply", rcpt[i].reply, 0, err) < 0)
			return -1;
	return 0;
}

static int check_report(const struct state_report *r, struct buf *err)
{
	const struct { const char *what, *s; int required; } fields[] = {
		{ "message_id", r->message_id, 1 },
		{ "thread_key", r->thread_key, 1 },
		{ "identity", r->identity, 1 },
		{ "subject", r->subject, 1 },
		{ "from_name", r->from_name, 0 },
		{ "from_email", r->from_email, 1 },
		{ "in_reply_to", r->in_reply_to, 0 },
		{ "refs", r->refs, 0 },
		{ "env_from", r->env_from, 1 },
		{ "env_rcpt", r->env_rcpt, 1 },
		{ "to_addrs", r->to_addrs, 1 },
		{ "cc_addrs", r->cc_addrs, 0 },
		{ "maintainer_addrs", r->maintainer_addrs, 0 },
	};
	size_t i;

	for (i = 0; i < N(fields); i++)
		if (check_text(fields[i].what, fields[i].s, fields[i].required, err) < 0)
			return -1;
	if (!r->mail || !r->mail_len)
		return err_set(err, "the mail is empty");
	if (r->mail_len > STATE_MAX_MAIL)
		return err_set(err, "the mail is larger than %u bytes", STATE_MAX_MAIL);
	if ((size_t)r->kind >= N(kind_names))
		return err_set(err, "unknown report kind %d", (int)r->kind);
	if (r->kind != STATE_KIND_DIGEST && (r->kind != STATE_KIND_REPORT) != (r->parent_id > 0))
		return err_set(err, "a follow-up or notice needs a parent and a report has none");
	if (check_text("tree", r->tree, 0, err) < 0 || check_text("head", r->head, 0, err) < 0)
		return -1;
	for (i = 0; i < r->nr_sources; i++)
		if (check_text("a source name", r->sources[i], 1, err) < 0)
			return -1;
	return 0;
}

/* ---- reports --------------------------------------------------------- */

#define REPORT_COLUMNS \
	"r.id, r.message_id, r.kind, r.parent_id, r.thread_id, r.thread_key, r.identity, " \
	"r.subject, r.from_name, r.from_email, r.in_reply_to, r.refs, r.env_from, r.env_rcpt, " \
	"r.to_addrs, r.cc_addrs, r.created, r.next_attempt, r.status, r.attempts, " \
	"r.last_attempt, r.last_reply, r.sent, r.state, r.redirected_to, r.mark, r.mark_why, " \
	"r.rcpt_results, (SELECT p.redirected_to FROM reports p WHERE p.id = r.parent_id), " \
	"(SELECT p.status FROM reports p WHERE p.id = r.parent_id), " \
	"(SELECT p.mark FROM reports p WHERE p.id = r.parent_id)"
#define REPORT_NR_COLUMNS 31

/* Fills out from a row of REPORT_COLUMNS (then the mail, if with_mail). */
static int report_from_row(struct state *st, sqlite3_stmt *s, int with_mail,
			   struct state_report *out, struct buf *err)
{
	int kind, status, verdict, mark, parent_status, parent_mark;

	memset(out, 0, sizeof(*out));
	out->id = col_int(s, 0);
	out->message_id = col_str(s, 1);
	out->parent_id = col_int(s, 3);
	out->thread_id = col_int(s, 4);
	out->thread_key = col_str(s, 5);
	out->identity = col_str(s, 6);
	out->subject = col_str(s, 7);
	out->from_name = col_str(s, 8);
	out->from_email = col_str(s, 9);
	out->in_reply_to = col_str(s, 10);
	out->refs = col_str(s, 11);
	out->env_from = col_str(s, 12);
	out->env_rcpt = col_str(s, 13);
	out->to_addrs = col_str(s, 14);
	out->cc_addrs = col_str(s, 15);
	out->created = col_int(s, 16);
	out->next_attempt = col_int(s, 17);
	out->attempts = (int)col_int(s, 19);
	out->last_attempt = col_int(s, 20);
	out->last_reply = col_str(s, 21);
	out->sent = col_int(s, 22);
	kind = name_index(kind_names, N(kind_names), (const char *)sqlite3_column_text(s, 2));
	status = name_index(status_names, N(status_names), (const char *)sqlite3_column_text(s, 18));
	verdict = name_index(verdict_names, N(verdict_names), (const char *)sqlite3_column_text(s, 23));
	out->redirected_to = col_str(s, 24);
	out->mark_why = col_str(s, 26);
	out->parent_redirected_to = col_str(s, 28);
	/* NULL: no mark; no parent */
	mark = sqlite3_column_type(s, 25) == SQLITE_NULL ? STATE_MARK_NONE :
	       name_index(mark_names, N(mark_names), (const char *)sqlite3_column_text(s, 25));
	parent_status = sqlite3_column_type(s, 29) == SQLITE_NULL ? STATE_QUEUED :
			name_index(status_names, N(status_names), (const char *)sqlite3_column_text(s, 29));
	parent_mark = sqlite3_column_type(s, 30) == SQLITE_NULL ? STATE_MARK_NONE :
		      name_index(mark_names, N(mark_names), (const char *)sqlite3_column_text(s, 30));
	if (kind < 0 || status < 0 || verdict < 0 || mark < 0 || parent_status < 0 || parent_mark < 0 ||
	    rcpt_decode((const char *)sqlite3_column_text(s, 27), &out->rcpt, &out->nr_rcpt) < 0) {
		state_report_release(out);
		return err_set(err, "%s: report row has an unknown kind, status, state, mark or "
			       "recipient outcome", st->path);
	}
	out->kind = (enum state_kind)kind;
	out->status = (enum state_status)status;
	out->verdict = (enum state_verdict)verdict;
	out->mark = (enum state_mark)mark;
	out->parent_status = (enum state_status)parent_status;
	out->parent_mark = (enum state_mark)parent_mark;
	if (with_mail) {
		const void *p = sqlite3_column_blob(s, REPORT_NR_COLUMNS);
		size_t n = (size_t)sqlite3_column_bytes(s, REPORT_NR_COLUMNS);

		out->mail = xmalloc(n + 1);
		if (n)
			memcpy(out->mail, p, n);
		out->mail[n] = '\0';
		out->mail_len = n;
	}
	return 0;
}

static int report_load_sources(struct state *st, struct state_report *r, struct buf *err)
{
	struct stmt q;
	size_t alloc = 0;
	int row;

	if (stmt_prepare(st, &q, "SELECT name FROM report_sources WHERE report_id = ? ORDER BY name",
			 err) < 0)
		return -1;
	bind_int(&q, r->id);
	while ((row = stmt_step(&q, err)) == 1) {
		ALLOC_GROW(r->sources, r->nr_sources + 1, alloc);
		r->sources[r->nr_sources++] = col_str(q.s, 0);
	}
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

/* Runs q (selecting REPORT_COLUMNS, mail) and appends each row, with its
 * sources when with_sources, to out.  Finalizes q. */
static int reports_collect(struct state *st, struct stmt *q, struct state_reports *out,
			   int with_sources, struct buf *err)
{
	int row;

	while ((row = stmt_step(q, err)) == 1) {
		struct state_report *r;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		r = &out->v[out->nr];
		if (report_from_row(st, q->s, 1, r, err) < 0) {
			row = -1;
			break;
		}
		out->nr++;
		if (with_sources && report_load_sources(st, r, err) < 0) {
			row = -1;
			break;
		}
	}
	stmt_finish(q);
	return row < 0 ? -1 : 0;
}

/* Runs q (selecting REPORT_COLUMNS, mail; bound but for its last
 * parameter, a LIMIT, which limit binds) in a read transaction and appends
 * its reports, without their sources, to out.  0 or -1. */
static int reports_read(struct state *st, struct stmt *q, size_t limit,
			struct state_reports *out, struct buf *err)
{
	int ret;

	bind_int(q, limit > INT64_MAX ? INT64_MAX : (int64_t)limit);
	if (tx_begin(st, 0, err) < 0) {
		stmt_finish(q);
		return -1;
	}
	ret = reports_collect(st, q, out, 0, err);
	return tx_end(st, ret, err);
}

/* Runs q (which yields at most one report row) into *out: 1, 0 or -1. */
static int report_select_one(struct state *st, struct stmt *q, struct state_report *out,
			     struct buf *err)
{
	struct state_reports list = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	if (tx_begin(st, 0, err) < 0) {
		stmt_finish(q);
		return -1;
	}
	ret = reports_collect(st, q, &list, 1, err);
	ret = tx_end(st, ret, err);
	if (ret < 0) {
		state_reports_release(&list);
		return -1;
	}
	if (!list.nr) {
		free(list.v);
		return 0;
	}
	*out = list.v[0];
	list.nr--;
	memmove(list.v, list.v + 1, list.nr * sizeof(*list.v));
	state_reports_release(&list);
	return 1;
}

/* 1 when a row of table has col = s, 0 if none, -1 on error. */
static int row_exists(struct state *st, const char *sql, const char *s, struct buf *err)
{
	struct stmt q;
	int r;

	if (stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	bind_text(&q, s);
	r = stmt_step(&q, err);
	stmt_finish(&q);
	return r;
}

static int report_set_maintainers(struct state *st, int64_t id, const char *addrs,
				  struct buf *err);

static int report_insert(struct state *st, const struct state_report *r, int64_t *id,
			 struct buf *err)
{
	struct stmt q;
	int64_t thread_id = 0, new_id;
	size_t i;
	int found;

	found = row_exists(st, "SELECT 1 FROM reports WHERE message_id = ?", r->message_id, err);
	if (found) {
		if (found > 0)
			err_set(err, "%s: Message-ID %s is already in the outbox", st->path,
				r->message_id);
		return found < 0 ? -1 : STATE_EXISTS;
	}
	for (i = 0; i < r->nr_sources; i++) {
		found = row_exists(st, "SELECT 1 FROM report_sources WHERE name = ?",
				   r->sources[i], err);
		if (found) {
			if (found > 0)
				err_set(err, "%s: spool file %s already went into a report", st->path,
					r->sources[i]);
			return found < 0 ? -1 : STATE_EXISTS;
		}
	}
	if (r->parent_id) {
		if (stmt_prepare(st, &q, "SELECT thread_id FROM reports WHERE id = ?", err) < 0)
			return -1;
		bind_int(&q, r->parent_id);
		found = stmt_step(&q, err);
		if (found == 1)
			thread_id = col_int(q.s, 0);
		stmt_finish(&q);
		if (found < 0)
			return -1;
		if (!found)
			return err_set(err, "%s: the parent report %lld does not exist", st->path,
				       (long long)r->parent_id);
	}

	if (stmt_prepare(st, &q,
			 "INSERT INTO reports (message_id, kind, parent_id, thread_id, thread_key, "
			 "identity, subject, from_name, from_email, in_reply_to, refs, env_from, "
			 "env_rcpt, to_addrs, cc_addrs, created, next_attempt, tree, head) "
			 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", err) < 0)
		return -1;
	bind_text(&q, r->message_id);
	bind_text(&q, state_kind_name(r->kind));
	bind_opt(&q, r->parent_id);
	bind_opt(&q, thread_id);
	bind_text(&q, r->thread_key);
	bind_text(&q, r->identity);
	bind_text(&q, r->subject);
	bind_text(&q, r->from_name ? r->from_name : "");
	bind_text(&q, r->from_email);
	bind_text(&q, r->in_reply_to);
	bind_text(&q, r->refs);
	bind_text(&q, r->env_from);
	bind_text(&q, r->env_rcpt);
	bind_text(&q, r->to_addrs);
	bind_text(&q, r->cc_addrs ? r->cc_addrs : "");
	bind_int(&q, r->created);
	bind_opt(&q, r->next_attempt);
	bind_text(&q, r->tree);
	bind_text(&q, r->head);
	if (stmt_run(&q, err) < 0)
		return -1;
	new_id = sqlite3_last_insert_rowid(st->db);
	if (stmt_prepare(st, &q, "INSERT INTO report_mails (report_id, mail) VALUES (?, ?)", err) < 0)
		return -1;
	bind_int(&q, new_id);
	bind_blob(&q, r->mail, r->mail_len);
	if (stmt_run(&q, err) < 0)
		return -1;

	if (r->maintainer_addrs && report_set_maintainers(st, new_id, r->maintainer_addrs, err) < 0)
		return -1;
	/* A report starts its own thread. */
	if (!r->parent_id) {
		if (stmt_prepare(st, &q, "UPDATE reports SET thread_id = id WHERE id = ?", err) < 0)
			return -1;
		bind_int(&q, new_id);
		if (stmt_run(&q, err) < 0)
			return -1;
	}
	for (i = 0; i < r->nr_sources; i++) {
		if (stmt_prepare(st, &q, "INSERT INTO report_sources (name, report_id) VALUES (?, ?)",
				 err) < 0)
			return -1;
		bind_text(&q, r->sources[i]);
		bind_int(&q, new_id);
		if (stmt_run(&q, err) < 0)
			return -1;
	}
	if (id)
		*id = new_id;
	return 0;
}

int state_report_add(struct state *st, const struct state_report *r, int64_t *id,
		     struct buf *err)
{
	int ret;

	if (check_report(r, err) < 0)
		return err_prefix(err, "%s: cannot add a report: ", st->path);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	ret = report_insert(st, r, id, err);
	return tx_end(st, ret, err);
}

int state_report_get(struct state *st, int64_t id, struct state_report *out, struct buf *err)
{
	struct stmt q;

	memset(out, 0, sizeof(*out));
	if (stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "JOIN report_mails m ON m.report_id = r.id WHERE r.id = ?",
			 err) < 0)
		return -1;
	bind_int(&q, id);
	return report_select_one(st, &q, out, err);
}

int state_report_find_by_thread_key(struct state *st, const char *thread_key,
				    struct state_report *out, struct buf *err)
{
	struct stmt q;

	memset(out, 0, sizeof(*out));
	if (check_text("thread_key", thread_key, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "JOIN report_mails m ON m.report_id = r.id "
			 "WHERE r.thread_key = ? AND r.status IN ('queued', 'sending', 'sent') "
			 "AND r.redirected_to IS NULL AND NOT (r.mark IS 'dropped' AND r.sent IS NULL) "
			 "ORDER BY r.id DESC LIMIT 1", err) < 0)
		return -1;
	bind_text(&q, thread_key);
	return report_select_one(st, &q, out, err);
}

int state_report_last_message_id(struct state *st, const char *thread_key, char **message_id,
				 struct buf *err)
{
	struct stmt q;
	int r;

	*message_id = NULL;
	if (check_text("thread_key", thread_key, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "SELECT message_id FROM reports WHERE thread_key = ? "
			 "ORDER BY id DESC LIMIT 1", err) < 0)
		return -1;
	bind_text(&q, thread_key);
	r = stmt_step(&q, err);
	if (r == 1)
		*message_id = col_str(q.s, 0);
	stmt_finish(&q);
	return r;
}

int state_report_find_id(struct state *st, const char *message_id, int64_t *id, struct buf *err)
{
	struct stmt q;
	int r;

	if (check_text("message_id", message_id, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "SELECT id FROM reports WHERE message_id = ?", err) < 0)
		return -1;
	bind_text(&q, message_id);
	r = stmt_step(&q, err);
	if (r == 1)
		*id = col_int(q.s, 0);
	stmt_finish(&q);
	return r;
}

int state_source_find(struct state *st, const char *name, int64_t *report_id, struct buf *err)
{
	struct stmt q;
	int r;

	if (check_text("the source name", name, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "SELECT report_id FROM report_sources WHERE name = ?", err) < 0)
		return -1;
	bind_text(&q, name);
	r = stmt_step(&q, err);
	if (r == 1 && report_id)
		*report_id = col_int(q.s, 0);
	stmt_finish(&q);
	return r;
}

int state_report_due(struct state *st, int64_t now, size_t limit, struct state_reports *out,
		     struct buf *err)
{
	struct stmt q;

	if (!limit)
		return 0;
	/* through the index of pending reports, which is in id order (no
	 * sort of the mails); the planner would rather scan every report ever
	 * sent */
	if (stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "INDEXED BY reports_pending JOIN report_mails m ON m.report_id = r.id "
			 "WHERE r.status IN ('queued', 'sending') AND r.mark IS NOT 'dropped' "
			 "AND (r.status = 'sending' OR (r.status = 'queued' AND "
			 "(r.next_attempt IS NULL OR r.next_attempt <= ?))) "
			 "AND (r.parent_id IS NULL OR (SELECT p.status IN ('sent', 'failed') "
			 "OR p.mark IS 'dropped' FROM reports p WHERE p.id = r.parent_id)) "
			 "ORDER BY r.id LIMIT ?", err) < 0)
		return -1;
	bind_int(&q, now);
	return reports_read(st, &q, limit, out, err);
}

int state_report_unarchived(struct state *st, size_t limit, struct state_reports *out,
			    struct buf *err)
{
	struct stmt q;

	if (!limit)
		return 0;
	if (stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "JOIN report_mails m ON m.report_id = r.id "
			 "LEFT JOIN messages g ON g.message_id = r.message_id "
			 "WHERE r.sent IS NOT NULL AND r.redirected_to IS NULL "
			 "AND g.blob_oid IS NULL AND IFNULL(g.quarantined, 0) = 0 "
			 "ORDER BY r.id LIMIT ?", err) < 0)
		return -1;
	return reports_read(st, &q, limit, out, err);
}

int state_delivery_unfinished(struct state *st, int64_t *since, struct buf *err)
{
	struct stmt q;
	int row;

	*since = 0;
	if (stmt_prepare(st, &q, "SELECT value FROM flags WHERE name = 'delivery_unfinished'",
			 err) < 0)
		return -1;
	if ((row = stmt_step(&q, err)) == 1)
		*since = col_int(q.s, 0);
	stmt_finish(&q);
	return row;
}

int state_delivery_begin(struct state *st, int64_t since, struct buf *err)
{
	return write_ints(st, "INSERT INTO flags (name, value) VALUES ('delivery_unfinished', ?) "
			  "ON CONFLICT (name) DO UPDATE SET value = MIN(value, excluded.value)",
			  1, &since, err);
}

int state_delivery_end(struct state *st, struct buf *err)
{
	return write_ints(st, "DELETE FROM flags WHERE name = 'delivery_unfinished'", 0, NULL, err);
}

/* Says why report id could not make a transition to `to`. */
static int transition_refused(struct state *st, int64_t id, const char *to, struct buf *err)
{
	struct stmt q;
	int r;

	if (stmt_prepare(st, &q, "SELECT status, mark FROM reports WHERE id = ?", err) < 0)
		return -1;
	bind_int(&q, id);
	r = stmt_step(&q, err);
	if (r == 1)
		err_set(err, "%s: report %lld is %s%s%s and cannot become %s", st->path, (long long)id,
			(const char *)sqlite3_column_text(q.s, 0),
			sqlite3_column_type(q.s, 1) == SQLITE_NULL ? "" : " and ",
			sqlite3_column_type(q.s, 1) == SQLITE_NULL ? "" :
			(const char *)sqlite3_column_text(q.s, 1), to);
	else if (r == 0)
		err_set(err, "%s: there is no report %lld", st->path, (long long)id);
	stmt_finish(&q);
	return -1;
}

/* Runs q, an UPDATE of report id; exactly one row must change. */
static int report_update(struct state *st, struct stmt *q, int64_t id, const char *to,
			 struct buf *err)
{
	if (stmt_run(q, err) < 0)
		return -1;
	if (sqlite3_changes(st->db) != 1)
		return transition_refused(st, id, to, err);
	return 0;
}

int state_report_mark_sending(struct state *st, int64_t id, int64_t now, const char *redirect,
			      struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_text("the redirect address", redirect, 0, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)id);
	if (tx_begin_one(st, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "UPDATE reports SET status = 'sending', attempts = attempts + 1, "
			 "last_attempt = ?, redirected_to = COALESCE(redirected_to, ?) "
			 "WHERE id = ? AND status IN ('queued', 'sending') AND mark IS NULL", err) == 0) {
		bind_int(&q, now);
		bind_text(&q, redirect);
		bind_int(&q, id);
		ret = report_update(st, &q, id, "sending", err);
	}
	return tx_end_one(st, ret, err);
}

int state_report_mark_ended(struct state *st, int64_t id, int64_t now, int64_t next_attempt,
			    const char *reply, const struct state_rcpt *rcpt, size_t nr,
			    struct buf *err)
{
	enum state_status to = state_rcpt_outcome(rcpt, nr);
	struct buf results = BUF_INIT;
	struct stmt q;
	size_t i, delivered = 0;
	int ret = -1;

	if (check_rcpts(rcpt, nr, reply, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)id);
	for (i = 0; i < nr; i++)
		delivered += rcpt[i].status == STATE_RCPT_DELIVERED;
	rcpt_encode(&results, rcpt, nr);
	if (tx_begin_one(st, err) < 0) {
		buf_release(&results);
		return -1;
	}
	if (stmt_prepare(st, &q, "UPDATE reports SET status = ?, next_attempt = ?, "
			 "sent = COALESCE(sent, ?), last_reply = ?, rcpt_results = ? "
			 "WHERE id = ? AND status = 'sending'", err) == 0) {
		bind_text(&q, state_status_name(to));
		bind_opt(&q, to == STATE_QUEUED ? next_attempt : 0);
		bind_opt(&q, delivered ? now : 0);
		bind_text(&q, reply);
		bind_text(&q, nr ? results.data : NULL);
		bind_int(&q, id);
		ret = report_update(st, &q, id, state_status_name(to), err);
	}
	buf_release(&results);
	return tx_end_one(st, ret, err);
}

int state_report_mark_stopped(struct state *st, int64_t id, int64_t now, int64_t next_attempt,
			      const char *reply, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_text("the reply", reply, 0, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)id);
	if (tx_begin_one(st, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "UPDATE reports SET status = 'queued', attempts = attempts + 1, "
			 "last_attempt = ?, last_reply = ?, next_attempt = COALESCE(?, next_attempt) "
			 "WHERE id = ? AND status IN ('queued', 'sending')", err) == 0) {
		bind_int(&q, now);
		bind_text(&q, reply);
		bind_opt(&q, next_attempt);
		bind_int(&q, id);
		ret = report_update(st, &q, id, "queued", err);
	}
	return tx_end_one(st, ret, err);
}

int state_report_results(struct state *st, int64_t id, struct state_rcpt **out, size_t *nr,
			 struct buf *err)
{
	struct stmt q;
	int row;

	*out = NULL;
	*nr = 0;
	if (stmt_prepare(st, &q, "SELECT rcpt_results FROM reports WHERE id = ?", err) < 0)
		return -1;
	bind_int(&q, id);
	if ((row = stmt_step(&q, err)) == 1 &&
	    rcpt_decode((const char *)sqlite3_column_text(q.s, 0), out, nr) < 0)
		row = err_set(err, "%s: report %lld has malformed recipient outcomes", st->path,
			      (long long)id);
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_sent_last_hour(struct state *st, int64_t now, int64_t *count, struct buf *err)
{
	int64_t hour = now / 3600 * 3600, since;
	struct stmt q;
	int r;

	*count = 0;
	if ((r = state_delivery_unfinished(st, &since, err)) < 0)
		return -1;
	/* a run that is going on, or was cut short, has not added its count
	 * to the log yet: then count that hour's reports themselves */
	if (r == 1 && since < hour + 3600) {
		if (stmt_prepare(st, &q, "SELECT COUNT(*) FROM reports WHERE sent >= ? AND sent < ?",
				 err) < 0)
			return -1;
		bind_int(&q, hour);
		bind_int(&q, hour + 3600);
	} else {
		if (stmt_prepare(st, &q, "SELECT count FROM send_log WHERE hour = ?", err) < 0)
			return -1;
		bind_int(&q, now / 3600);
	}
	r = stmt_step(&q, err);
	if (r == 1)
		*count = col_int(q.s, 0);
	stmt_finish(&q);
	return r < 0 ? -1 : 0;
}

int state_sent_add(struct state *st, int64_t now, int64_t count, struct buf *err)
{
	const int64_t v[] = { now / 3600, count };

	if (count <= 0)
		return 0;
	return write_ints(st, "INSERT INTO send_log (hour, count) VALUES (?, ?) "
			  "ON CONFLICT (hour) DO UPDATE SET count = count + excluded.count", 2, v, err);
}

int state_sent_recount(struct state *st, int64_t since, struct buf *err)
{
	const int64_t hour = since / 3600 * 3600;

	/* every report sent is counted in the hour its run began (its
	 * `sent`), as state_sent_add() counts them */
	return write_ints(st, "INSERT INTO send_log (hour, count) "
			  "SELECT sent / 3600, COUNT(*) FROM reports "
			  "WHERE sent >= ? GROUP BY sent / 3600 "
			  "ON CONFLICT (hour) DO UPDATE SET count = excluded.count", 1, &hour, err);
}

int state_report_list(struct state *st, struct state_reports *out, struct buf *err)
{
	struct stmt q;
	int row;

	if (stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", "
			 "(SELECT COUNT(*) FROM messages m WHERE m.report_id = r.id "
			 " AND m.origin = 'ingested'), "
			 "(SELECT COUNT(*) FROM reports f WHERE f.thread_id = r.id "
			 " AND f.kind = 'followup') "
			 "FROM reports r ORDER BY r.id", err) < 0)
		return -1;
	while ((row = stmt_step(&q, err)) == 1) {
		struct state_report *r;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		r = &out->v[out->nr];
		if (report_from_row(st, q.s, 0, r, err) < 0) {
			row = -1;
			break;
		}
		r->replies = (size_t)col_int(q.s, REPORT_NR_COLUMNS);
		r->followups = (size_t)col_int(q.s, REPORT_NR_COLUMNS + 1);
		out->nr++;
	}
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_report_set_verdict(struct state *st, int64_t id, enum state_verdict v,
			     struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if ((size_t)v >= N(verdict_names))
		return err_set(err, "%s: unknown report state %d", st->path, (int)v);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "UPDATE reports SET state = ? WHERE id = ?", err) == 0) {
		bind_text(&q, state_verdict_name(v));
		bind_int(&q, id);
		ret = report_update(st, &q, id, state_verdict_name(v), err);
	}
	return tx_end(st, ret, err);
}

/* ---- the operator's actions ------------------------------------------ */

/* Records the operator's action on report id (one of the caller's
 * transaction's statements). */
static int operator_command(struct state *st, int64_t id, const char *name, const char *args,
			    const char *author, int64_t now, struct buf *err)
{
	struct stmt q;

	if (stmt_prepare(st, &q, "INSERT INTO commands (report_id, message_id, name, args, author, "
			 "date) VALUES (?, NULL, ?, ?, ?, ?)", err) < 0)
		return -1;
	bind_int(&q, id);
	bind_text(&q, name);
	bind_text(&q, args ? args : "");
	bind_text(&q, author);
	bind_opt(&q, now);
	return stmt_run(&q, err);
}

/* What state_report_act() reads of a report before it acts. */
struct act_row {
	enum state_status status;
	enum state_mark mark;
	enum state_kind kind;
	enum state_verdict verdict;
	int64_t sent;
	struct state_rcpt *rcpt;
	size_t nr_rcpt;
};

/* 1 with *row filled (its rcpt freed by the caller), 0 when there is no
 * such report, -1 on error. */
static int act_row_read(struct state *st, int64_t id, struct act_row *row, struct buf *err)
{
	struct stmt q;
	int r, status, mark, kind, verdict;

	memset(row, 0, sizeof(*row));
	if (stmt_prepare(st, &q, "SELECT status, mark, kind, state, sent, rcpt_results FROM reports "
			 "WHERE id = ?", err) < 0)
		return -1;
	bind_int(&q, id);
	r = stmt_step(&q, err);
	if (r == 1) {
		status = name_index(status_names, N(status_names), (const char *)sqlite3_column_text(q.s, 0));
		mark = sqlite3_column_type(q.s, 1) == SQLITE_NULL ? STATE_MARK_NONE :
		       name_index(mark_names, N(mark_names), (const char *)sqlite3_column_text(q.s, 1));
		kind = name_index(kind_names, N(kind_names), (const char *)sqlite3_column_text(q.s, 2));
		verdict = name_index(verdict_names, N(verdict_names), (const char *)sqlite3_column_text(q.s, 3));
		row->sent = col_int(q.s, 4);
		if (status < 0 || mark < 0 || kind < 0 || verdict < 0 ||
		    rcpt_decode((const char *)sqlite3_column_text(q.s, 5), &row->rcpt, &row->nr_rcpt) < 0) {
			r = err_set(err, "%s: report %lld has an unknown status, mark or recipient outcome",
				    st->path, (long long)id);
		} else {
			row->status = (enum state_status)status;
			row->mark = (enum state_mark)mark;
			row->kind = (enum state_kind)kind;
			row->verdict = (enum state_verdict)verdict;
		}
	}
	stmt_finish(&q);
	if (r == 0)
		err_set(err, "there is no report %lld (perfbot outbox lists them)", (long long)id);
	return r;
}

/* Why action a does not apply to row (a message in err, STATE_REFUSED),
 * or 0 when it does. */
static int act_refusal(int64_t id, enum state_action a, const struct act_row *row, size_t refused,
		       struct buf *err)
{
	long long n = (long long)id;

	if (row->mark == STATE_MARK_DROPPED)
		return err_set(err, "report %lld was dropped: it is never sent", n), STATE_REFUSED;
	switch (a) {
	case STATE_ACTION_HOLD:
		if (row->mark == STATE_MARK_HELD)
			return err_set(err, "report %lld is held already", n), STATE_REFUSED;
		if (row->status == STATE_SENT)
			return err_set(err, "report %lld was sent: nothing is left to hold", n), STATE_REFUSED;
		if (row->status == STATE_FAILED)
			return err_set(err, "report %lld failed for good: nothing is left to hold "
				       "(`perfbot outbox retry %lld` opens it again)", n, n), STATE_REFUSED;
		return 0;
	case STATE_ACTION_RELEASE:
		if (row->mark != STATE_MARK_HELD)
			return err_set(err, "report %lld is not held", n), STATE_REFUSED;
		return 0;
	case STATE_ACTION_RETRY:
		if (row->mark == STATE_MARK_HELD)
			return err_set(err, "report %lld is held: `perfbot outbox release %lld` lets it go",
				       n, n), STATE_REFUSED;
		if (row->status == STATE_SENT && !refused)
			return err_set(err, "report %lld was sent to every recipient: nothing to retry", n),
			       STATE_REFUSED;
		return 0;
	case STATE_ACTION_DROP:
		if (row->status == STATE_SENT)
			return err_set(err, "report %lld was sent: nothing is left to drop", n), STATE_REFUSED;
		return 0;
	}
	return err_set(err, "unknown action %d", (int)a);
}

/* Runs an UPDATE of report id with its parameters bound in order: text
 * (NULL for none) and then id. */
static int act_update(struct state *st, const char *sql, const char *text, int64_t id,
		      struct buf *err)
{
	struct stmt q;

	if (stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	if (text)
		bind_text(&q, text);
	bind_int(&q, id);
	return stmt_run(&q, err);
}

static int act_apply(struct state *st, int64_t id, enum state_action a, const char *why,
		     const struct act_row *row, struct buf *err)
{
	struct buf kept = BUF_INIT;
	size_t i;
	int ret;

	switch (a) {
	case STATE_ACTION_HOLD:
		return act_update(st, why ? "UPDATE reports SET mark = 'held', mark_why = ? WHERE id = ?" :
				  "UPDATE reports SET mark = 'held', mark_why = NULL WHERE id = ?", why, id, err);
	case STATE_ACTION_RELEASE:
		return act_update(st, "UPDATE reports SET mark = NULL, mark_why = NULL WHERE id = ?",
				  NULL, id, err);
	case STATE_ACTION_DROP:
		return act_update(st, "UPDATE reports SET mark = 'dropped', mark_why = ? WHERE id = ?",
				  why, id, err);
	case STATE_ACTION_RETRY:
		if (row->status == STATE_QUEUED || row->status == STATE_SENDING)
			return act_update(st, "UPDATE reports SET next_attempt = NULL WHERE id = ?", NULL,
					  id, err);
		/* failed, or sent with refused recipients: those are tried
		 * again, the delivered ones never */
		for (i = 0; i < row->nr_rcpt; i++)
			if (row->rcpt[i].status == STATE_RCPT_DELIVERED)
				rcpt_encode(&kept, &row->rcpt[i], 1);
		ret = act_update(st, kept.len ?
				 "UPDATE reports SET status = 'queued', next_attempt = NULL, "
				 "rcpt_results = ? WHERE id = ?" :
				 "UPDATE reports SET status = 'queued', next_attempt = NULL, "
				 "rcpt_results = NULL WHERE id = ?", kept.len ? kept.data : NULL, id, err);
		buf_release(&kept);
		return ret;
	}
	return err_set(err, "unknown action %d", (int)a);
}

int state_report_act(struct state *st, int64_t id, enum state_action a, const char *why,
		     const char *author, int64_t now, struct buf *err)
{
	struct act_row row;
	size_t i, refused = 0;
	int ret;

	if ((size_t)a >= N(action_names))
		return err_set(err, "unknown action %d", (int)a);
	if (check_reason(why, a == STATE_ACTION_DROP, err) < 0 ||
	    check_text("the author", author, 1, err) < 0)
		return -1;
	if (tx_begin(st, 1, err) < 0)
		return -1;
	ret = act_row_read(st, id, &row, err);
	if (ret == 1) {
		for (i = 0; i < row.nr_rcpt; i++)
			refused += row.rcpt[i].status == STATE_RCPT_REFUSED;
		ret = act_refusal(id, a, &row, refused, err);
		if (ret == 0 && (act_apply(st, id, a, why, &row, err) < 0 ||
				 operator_command(st, id, action_names[a], why, author, now, err) < 0))
			ret = -1;
	} else if (ret == 0) {
		ret = -1;
	}
	state_rcpts_free(row.rcpt, row.nr_rcpt);
	/* a refusal changed nothing: roll back, and say why */
	return tx_end(st, ret, err);
}

int state_report_set_verdict_by(struct state *st, int64_t id, enum state_verdict v,
				const char *why, const char *author, int64_t now,
				struct buf *err)
{
	struct act_row row;
	int ret;

	if ((size_t)v >= N(verdict_names))
		return err_set(err, "%s: unknown report state %d", st->path, (int)v);
	if (check_reason(why, 0, err) < 0 || check_text("the author", author, 1, err) < 0)
		return -1;
	if (tx_begin(st, 1, err) < 0)
		return -1;
	ret = act_row_read(st, id, &row, err);
	if (ret == 1) {
		ret = 0;
		if (row.kind != STATE_KIND_REPORT) {
			err_set(err, "report %lld is a follow-up: a thread's state is its report's "
				"(perfbot thread %lld shows it)", (long long)id, (long long)id);
			ret = STATE_REFUSED;
		} else if (row.verdict == v) {
			err_set(err, "report %lld is %s already", (long long)id, state_verdict_name(v));
			ret = STATE_REFUSED;
		}
		if (ret == 0 &&
		    (act_update(st, "UPDATE reports SET state = ? WHERE id = ?", state_verdict_name(v), id,
				err) < 0 ||
		     operator_command(st, id, verdict_commands[v], why, author, now, err) < 0))
			ret = -1;
		/* an operator's reopen sets the fix aside as a #perfbot reopen
		 * does (issue 15) */
		if (ret == 0 && v == STATE_VERDICT_OPEN &&
		    act_update(st, "UPDATE fixes SET reopened = 1 WHERE report_id = ?", NULL, id, err) < 0)
			ret = -1;
	} else if (ret == 0) {
		ret = -1;
	}
	state_rcpts_free(row.rcpt, row.nr_rcpt);
	return tx_end(st, ret, err);
}

/* ---- messages, commands, trailers ------------------------------------ */

static int check_message(const struct state_message *m, struct buf *err)
{
	const struct { const char *what, *s; int required; } fields[] = {
		{ "message_id", m->message_id, 1 },
		{ "parent_message_id", m->parent_message_id, 0 },
		{ "in_reply_to", m->in_reply_to, 0 },
		{ "refs", m->refs, 0 },
		{ "from_name", m->from_name, 0 },
		{ "from_email", m->from_email, 0 },
		{ "subject", m->subject, 0 },
		{ "blob_oid", m->blob_oid, 0 },
		{ "commit_oid", m->commit_oid, 0 },
		{ "quarantine_reason", m->quarantine_reason, 0 },
	};
	size_t i;

	for (i = 0; i < N(fields); i++)
		if (check_text(fields[i].what, fields[i].s, fields[i].required, err) < 0)
			return -1;
	return 0;
}

int state_message_add(struct state *st, const struct state_message *m, int *is_new,
		      struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (is_new)
		*is_new = 0;
	if (check_message(m, err) < 0)
		return err_prefix(err, "%s: cannot add a message: ", st->path);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "INSERT INTO messages (message_id, report_id, parent_message_id, "
			 "in_reply_to, refs, from_name, from_email, date, subject, origin, blob_oid, "
			 "commit_oid, quarantined, quarantine_reason) "
			 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
			 "ON CONFLICT (message_id) DO NOTHING", err) == 0) {
		bind_text(&q, m->message_id);
		bind_opt(&q, m->report_id);
		bind_text(&q, m->parent_message_id);
		bind_text(&q, m->in_reply_to);
		bind_text(&q, m->refs);
		bind_text(&q, m->from_name);
		bind_text(&q, m->from_email);
		bind_opt(&q, m->date);
		bind_text(&q, m->subject);
		bind_text(&q, m->ingested ? "ingested" : "sent");
		bind_text(&q, m->blob_oid);
		bind_text(&q, m->commit_oid);
		bind_int(&q, m->quarantined ? 1 : 0);
		bind_text(&q, m->quarantine_reason);
		ret = stmt_run(&q, err);
		if (ret == 0 && is_new)
			*is_new = sqlite3_changes(st->db) == 1;
	}
	return tx_end(st, ret, err);
}

static void message_from_row(sqlite3_stmt *s, struct state_message *m)
{
	const unsigned char *origin = sqlite3_column_text(s, 9);

	memset(m, 0, sizeof(*m));
	m->message_id = col_str(s, 0);
	m->report_id = col_int(s, 1);
	m->parent_message_id = col_str(s, 2);
	m->in_reply_to = col_str(s, 3);
	m->refs = col_str(s, 4);
	m->from_name = col_str(s, 5);
	m->from_email = col_str(s, 6);
	m->date = col_int(s, 7);
	m->subject = col_str(s, 8);
	m->ingested = origin && !strcmp((const char *)origin, "ingested");
	m->blob_oid = col_str(s, 10);
	m->commit_oid = col_str(s, 11);
	m->quarantined = col_int(s, 12) != 0;
	m->quarantine_reason = col_str(s, 13);
}

int state_message_find(struct state *st, const char *message_id, struct state_message *out,
		       struct buf *err)
{
	struct stmt q;
	int r;

	memset(out, 0, sizeof(*out));
	if (check_text("message_id", message_id, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "SELECT " MESSAGE_COLUMNS " FROM known_messages WHERE message_id = ?",
			 err) < 0)
		return -1;
	bind_text(&q, message_id);
	r = stmt_step(&q, err);
	if (r == 1)
		message_from_row(q.s, out);
	stmt_finish(&q);
	return r;
}

int state_message_list(struct state *st, int64_t report_id, struct state_messages *out,
		       struct buf *err)
{
	struct stmt q;
	int row;

	if (stmt_prepare(st, &q, "SELECT " MESSAGE_COLUMNS " FROM known_messages WHERE report_id = ? "
			 "ORDER BY date, message_id", err) < 0)
		return -1;
	bind_int(&q, report_id);
	while ((row = stmt_step(&q, err)) == 1) {
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		message_from_row(q.s, &out->v[out->nr++]);
	}
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_message_set_archived(struct state *st, const char *message_id, const char *blob_oid,
			       const char *commit_oid, struct buf *err)
{
	/* A sent mail gets its row here, with its archive batch (schema 3);
	 * ingest may have seen it come back from a list first, and then it
	 * becomes perfbot's own.  Else the message is one ingested.  At most
	 * one of the statements changes a row: neither needs a savepoint. */
	static const char *const sql[] = {
		"INSERT INTO messages (message_id, report_id, parent_message_id, in_reply_to, refs, "
		"from_name, from_email, date, subject, origin, blob_oid, commit_oid) "
		"SELECT message_id, thread_id, in_reply_to, in_reply_to, refs, from_name, "
		"from_email, created, subject, 'sent', ?, ? FROM reports "
		"WHERE message_id = ? AND sent IS NOT NULL AND redirected_to IS NULL "
		"ON CONFLICT (message_id) DO UPDATE SET origin = 'sent', "
		"report_id = excluded.report_id, blob_oid = excluded.blob_oid, "
		"commit_oid = excluded.commit_oid",
		"UPDATE messages SET blob_oid = ?, commit_oid = ? WHERE message_id = ?",
	};
	struct stmt q;
	size_t i;

	if (check_text("message_id", message_id, 1, err) < 0 ||
	    check_text("blob_oid", blob_oid, 1, err) < 0 ||
	    check_text("commit_oid", commit_oid, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	for (i = 0; i < N(sql); i++) {
		if (stmt_prepare(st, &q, sql[i], err) < 0)
			return -1;
		bind_text(&q, blob_oid);
		bind_text(&q, commit_oid);
		bind_text(&q, message_id);
		if (stmt_run(&q, err) < 0)
			return -1;
		if (sqlite3_changes(st->db) == 1)
			return 0;
	}
	return err_set(err, "%s: message %s is not known", st->path, message_id);
}

int state_command_add(struct state *st, int64_t report_id, const char *message_id,
		      const char *name, const char *args, const char *author, int64_t date,
		      struct buf *err)
{
	return state_command_record(st, report_id, message_id, name, args, author, date, 1, NULL, err);
}

void state_commands_release(struct state_commands *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++) {
		free(list->v[i].message_id);
		free(list->v[i].name);
		free(list->v[i].args);
		free(list->v[i].author);
		free(list->v[i].why);
	}
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int state_command_list(struct state *st, int64_t thread_id, struct state_commands *out,
		       struct buf *err)
{
	struct stmt q;
	int row;

	if (stmt_prepare(st, &q, "SELECT report_id, message_id, name, args, author, date, applied, why FROM commands "
			 "WHERE ? = 0 OR report_id IN (SELECT id FROM reports WHERE thread_id = ?) "
			 "ORDER BY date, id", err) < 0)
		return -1;
	bind_int(&q, thread_id);
	bind_int(&q, thread_id);
	while ((row = stmt_step(&q, err)) == 1) {
		struct state_command *c;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		c = &out->v[out->nr++];
		c->report_id = col_int(q.s, 0);
		c->message_id = col_str(q.s, 1);
		c->name = col_str(q.s, 2);
		c->args = col_str(q.s, 3);
		c->author = col_str(q.s, 4);
		c->date = col_int(q.s, 5);
		c->applied = col_int(q.s, 6) != 0;
		c->why = col_str(q.s, 7);
	}
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_trailer_add(struct state *st, const char *message_id, const char *key,
		      const char *value, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_text("message_id", message_id, 1, err) < 0 ||
	    check_text("the trailer key", key, 1, err) < 0 ||
	    check_text("the trailer value", value, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "INSERT INTO trailers (message_id, key, value) VALUES (?, ?, ?) "
			 "ON CONFLICT (message_id, key, value) DO NOTHING", err) == 0) {
		bind_text(&q, message_id);
		bind_text(&q, key);
		bind_text(&q, value);
		ret = stmt_run(&q, err);
	}
	return tx_end(st, ret, err);
}

/* ---- cursors and the archive tip ------------------------------------- */

int state_cursor_get(struct state *st, const char *source, struct state_cursor *out,
		     struct buf *err)
{
	struct stmt q;
	int r;

	memset(out, 0, sizeof(*out));
	if (check_text("the cursor source", source, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "SELECT uidvalidity, last_uid, offset, fingerprint FROM cursors "
			 "WHERE source = ?", err) < 0)
		return -1;
	bind_text(&q, source);
	r = stmt_step(&q, err);
	if (r == 1) {
		out->uidvalidity = col_int(q.s, 0);
		out->last_uid = col_int(q.s, 1);
		out->offset = col_int(q.s, 2);
		out->fingerprint = col_str(q.s, 3);
	}
	stmt_finish(&q);
	return r;
}

int state_cursor_set(struct state *st, const char *source, const struct state_cursor *c,
		     struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_text("the cursor source", source, 1, err) < 0 ||
	    check_text("the cursor fingerprint", c->fingerprint, 0, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "INSERT OR REPLACE INTO cursors (source, uidvalidity, last_uid, "
			 "offset, fingerprint) VALUES (?, ?, ?, ?, ?)", err) == 0) {
		bind_text(&q, source);
		bind_int(&q, c->uidvalidity);
		bind_int(&q, c->last_uid);
		bind_int(&q, c->offset);
		bind_text(&q, c->fingerprint);
		ret = stmt_run(&q, err);
	}
	return tx_end(st, ret, err);
}

int state_archive_tip_get(struct state *st, int64_t epoch, char **oid, struct buf *err)
{
	struct stmt q;
	int r;

	*oid = NULL;
	if (stmt_prepare(st, &q, "SELECT commit_oid FROM archive_tip WHERE epoch = ?", err) < 0)
		return -1;
	bind_int(&q, epoch);
	r = stmt_step(&q, err);
	if (r == 1)
		*oid = col_str(q.s, 0);
	stmt_finish(&q);
	return r;
}

int state_archive_tip_set(struct state *st, int64_t epoch, const char *oid, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_text("the archive commit", oid, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "INSERT OR REPLACE INTO archive_tip (epoch, commit_oid) "
			 "VALUES (?, ?)", err) == 0) {
		bind_int(&q, epoch);
		bind_text(&q, oid);
		ret = stmt_run(&q, err);
	}
	return tx_end(st, ret, err);
}

/* ---- routing: who may steer, command outcomes, exclusions (issue 14) -- */

static int report_set_maintainers(struct state *st, int64_t id, const char *addrs,
				  struct buf *err)
{
	struct stmt q;

	if (stmt_prepare(st, &q, "UPDATE reports SET maintainer_addrs = ? WHERE id = ?", err) < 0)
		return -1;
	bind_text(&q, addrs);
	bind_int(&q, id);
	return stmt_run(&q, err);
}

int state_report_may_steer(struct state *st, int64_t report_id, const char *address,
			   struct buf *err)
{
	struct stmt q;
	int r;

	if (check_text("the address", address, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	/* one address per line in each column; lower() folds ASCII only, as
	 * addresses are compared everywhere else */
	if (stmt_prepare(st, &q, "SELECT 1 FROM reports WHERE thread_id = "
			 "(SELECT thread_id FROM reports WHERE id = ?) AND instr("
			 "lower(char(10) || to_addrs || char(10) || cc_addrs || char(10) || "
			 "IFNULL(maintainer_addrs, '') || char(10)), lower(char(10) || ? || char(10))) > 0 "
			 "LIMIT 1", err) < 0)
		return -1;
	bind_int(&q, report_id);
	bind_text(&q, address);
	r = stmt_step(&q, err);
	stmt_finish(&q);
	return r;
}

int state_report_maintainers(struct state *st, int64_t report_id, char **out, struct buf *err)
{
	struct stmt q;
	int r;

	*out = NULL;
	if (stmt_prepare(st, &q, "SELECT maintainer_addrs FROM reports WHERE id = ?", err) < 0)
		return -1;
	bind_int(&q, report_id);
	r = stmt_step(&q, err);
	if (r == 1)
		*out = col_str(q.s, 0);
	stmt_finish(&q);
	return r < 0 ? -1 : 0;
}

int state_command_record(struct state *st, int64_t report_id, const char *message_id,
			 const char *name, const char *args, const char *author, int64_t date,
			 int applied, const char *why, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_text("message_id", message_id, 1, err) < 0 ||
	    check_text("the command name", name, 1, err) < 0 ||
	    check_text("the command arguments", args, 0, err) < 0 ||
	    check_text("the command author", author, 1, err) < 0 ||
	    check_text("why the command was not applied", why, 0, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "INSERT INTO commands (report_id, message_id, name, args, author, "
			 "date, applied, why) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
			 "ON CONFLICT (message_id, name, args) DO NOTHING", err) == 0) {
		bind_opt(&q, report_id);
		bind_text(&q, message_id);
		bind_text(&q, name);
		bind_text(&q, args ? args : "");
		bind_text(&q, author);
		bind_opt(&q, date);
		bind_int(&q, applied ? 1 : 0);
		bind_text(&q, why);
		ret = stmt_run(&q, err);
	}
	return tx_end(st, ret, err);
}

void state_trailers_release(struct state_trailers *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++) {
		free(list->v[i].message_id);
		free(list->v[i].key);
		free(list->v[i].value);
	}
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int state_trailer_list(struct state *st, int64_t report_id, struct state_trailers *out,
		       struct buf *err)
{
	struct stmt q;
	int row;

	if (stmt_prepare(st, &q, "SELECT t.message_id, t.key, t.value, IFNULL(m.report_id, 0) "
			 "FROM trailers t JOIN messages m ON m.message_id = t.message_id "
			 "WHERE ? = 0 OR m.report_id = ? ORDER BY t.rowid", err) < 0)
		return -1;
	bind_int(&q, report_id);
	bind_int(&q, report_id);
	while ((row = stmt_step(&q, err)) == 1) {
		struct state_trailer *t;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		t = &out->v[out->nr++];
		t->message_id = col_str(q.s, 0);
		t->key = col_str(q.s, 1);
		t->value = col_str(q.s, 2);
		t->report_id = col_int(q.s, 3);
	}
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

/* Addresses are kept in ASCII lowercase: compared ignoring case. */
static char *lower_address(const char *s)
{
	char *l = xstrdup(s), *p;

	for (p = l; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return l;
}

int state_exclusion_add(struct state *st, const struct state_exclusion *x, struct buf *err)
{
	struct stmt q;
	char *addr;
	int ret = -1;

	if (check_text("the excluded address", x->address, 1, err) < 0 ||
	    check_text("who excluded it", x->who, 1, err) < 0 ||
	    check_text("the message_id", x->message_id, 0, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	addr = lower_address(x->address);
	if (tx_begin(st, 1, err) < 0) {
		free(addr);
		return -1;
	}
	if (stmt_prepare(st, &q, "INSERT OR REPLACE INTO exclusions (address, who, date, message_id) "
			 "VALUES (?, ?, ?, ?)", err) == 0) {
		bind_text(&q, addr);
		bind_text(&q, x->who);
		bind_int(&q, x->date);
		bind_text(&q, x->message_id);
		ret = stmt_run(&q, err);
	}
	free(addr);
	return tx_end(st, ret, err);
}

int state_exclusion_remove(struct state *st, const char *address, struct buf *err)
{
	struct stmt q;
	char *addr;
	int ret = -1, removed = 0;

	if (check_text("the excluded address", address, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	addr = lower_address(address);
	if (tx_begin(st, 1, err) < 0) {
		free(addr);
		return -1;
	}
	if (stmt_prepare(st, &q, "DELETE FROM exclusions WHERE address = ?", err) == 0) {
		bind_text(&q, addr);
		ret = stmt_run(&q, err);
		if (ret == 0)
			removed = sqlite3_changes(st->db) > 0;
	}
	free(addr);
	if (tx_end(st, ret, err) < 0)
		return -1;
	return removed;
}

void state_exclusions_release(struct state_exclusions *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++) {
		free(list->v[i].address);
		free(list->v[i].who);
		free(list->v[i].message_id);
	}
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int state_exclusion_list(struct state *st, struct state_exclusions *out, struct buf *err)
{
	struct stmt q;
	int row;

	if (stmt_prepare(st, &q, "SELECT address, who, date, message_id FROM exclusions "
			 "ORDER BY address", err) < 0)
		return -1;
	while ((row = stmt_step(&q, err)) == 1) {
		struct state_exclusion *x;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		x = &out->v[out->nr++];
		x->address = col_str(q.s, 0);
		x->who = col_str(q.s, 1);
		x->date = col_int(q.s, 2);
		x->message_id = col_str(q.s, 3);
	}
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_exclusion_read(const char *dir, struct state_exclusions *out, struct buf *err)
{
	struct state st;
	struct buf path = BUF_INIT;
	int ret = -1, rc;

	memset(&st, 0, sizeof(st));
	st.wal_fd = -1;
	path_join(&path, dir, "state.db");
	st.path = buf_detach(&path, NULL);
	if (access(st.path, F_OK) < 0) {
		free(st.path);
		return 0;	/* no state yet: nobody unsubscribed */
	}
	if (access(st.path, R_OK) < 0) {
		err_set(err, "%s: cannot read the #perfbot unsubscribe list: %s (run as perfbot's user)",
			st.path, strerror(errno));
		free(st.path);
		return -1;
	}
	/* read-only, no migration: what state_open() costs (a transaction
	 * per schema version, each synced) is a render's whole budget */
	rc = sqlite3_open_v2(st.path, &st.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
			     SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		err_set(err, "%s: cannot open: %s", st.path, st.db ? sqlite3_errmsg(st.db) : sqlite3_errstr(rc));
		goto out;
	}
	sqlite3_busy_timeout(st.db, STATE_BUSY_TIMEOUT_MS);
	rc = sqlite3_table_column_metadata(st.db, "main", "exclusions", "address", NULL, NULL, NULL,
					   NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = 0;	/* a database from before routing: no list yet */
		goto out;
	}
	ret = state_exclusion_list(&st, out, err);
out:
	for (size_t i = 0; i < st.nr_cache; i++)
		sqlite3_finalize(st.cache[i].s);
	sqlite3_close_v2(st.db);
	free(st.path);
	return ret;
}

/* ---- the run lock ---------------------------------------------------- */

int state_lock(const char *dir, int wait_ms, struct state_lock **out, struct buf *err)
{
	struct buf path = BUF_INIT;
	struct lock *l;
	int r;

	*out = NULL;
	if (dir_make(dir, 0700, err) < 0)
		return -1;
	path_join(&path, dir, "lock");
	r = lock_take(path.data, 0600, wait_ms > 0 ? (unsigned)wait_ms : 0, "another perfbot", &l,
		      err);
	buf_release(&path);
	if (r == LOCK_BUSY)
		return STATE_BUSY;
	if (r < 0)
		return -1;
	*out = xmalloc(sizeof(**out));
	(*out)->lock = l;
	return 0;
}

void state_unlock(struct state_lock *lock)
{
	if (!lock)
		return;
	lock_free(lock->lock);
	free(lock);
}

/* ---- fixes, watched refs, notices, digests (issue 15) ---------------- */

/* Replaces the one occurrence of from in sql by to; -1 when from is not
 * there exactly once. */
static int sql_replace_once(struct buf *sql, const char *from, const char *to)
{
	const char *at = strstr(sql->data, from);
	struct buf out = BUF_INIT;

	if (!at || strstr(at + 1, from))
		return -1;
	buf_add(&out, sql->data, (size_t)(at - sql->data));
	buf_adds(&out, to);
	buf_adds(&out, at + strlen(from));
	buf_reset(sql);
	buf_add(sql, out.data, out.len);
	buf_release(&out);
	return 0;
}

/* Runs each statement of list in order. */
static int exec_all(struct state *st, const struct state_names *list, struct buf *err)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		if (exec_sql(st, list->v[i], err) < 0)
			return -1;
	return 0;
}

/*
 * Schema 5's rebuild of reports, which SQLite cannot give new CHECK
 * constraints in place: its CREATE statement as the database holds it
 * (so every column an earlier migration added is kept, in order) with
 * the two constraints widened, the rows copied, then its indexes,
 * triggers and the views (which name it) made again.  Then the columns
 * track reads, filled for the reports queued before: the head commit and
 * the tree name from the thread key, the branch from the Subject's
 * "[NAME:BRANCH]" (a report whose Subject does not say it keeps tree
 * NULL: its own tree's ref is then unknown).
 */
static int migrate_track(struct state *st, struct buf *err)
{
	static const char *const rewrite[][2] = {
		{ "CREATE TABLE reports (", "CREATE TABLE reports_rebuilt (" },
		{ "CHECK (kind IN ('report', 'followup'))",
		  "CHECK (kind IN ('report', 'followup', 'notice', 'digest'))" },
		{ "CHECK ((kind = 'report') = (parent_id IS NULL))",
		  "CHECK (kind = 'digest' OR (kind = 'report') = (parent_id IS NULL))" },
	};
	struct state_names again = { 0 }, drops = { 0 };
	struct buf table = BUF_INIT, sql = BUF_INIT;
	struct stmt q;
	size_t i;
	int row, ret = -1;

	if (stmt_prepare(st, &q, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'reports'",
			 err) < 0)
		return -1;
	if ((row = stmt_step(&q, err)) == 1)
		buf_adds(&table, (const char *)sqlite3_column_text(q.s, 0));
	stmt_finish(&q);
	if (row <= 0) {
		if (row == 0)
			err_set(err, "%s: there is no reports table", st->path);
		goto done;
	}
	/* a table that was renamed into place is named in quotes */
	sql_replace_once(&table, "CREATE TABLE \"reports\" (", "CREATE TABLE reports (");
	for (i = 0; i < N(rewrite); i++) {
		if (sql_replace_once(&table, rewrite[i][0], rewrite[i][1]) < 0) {
			err_set(err, "%s: the reports table is not as schema version 4 left it (\"%s\")",
				st->path, rewrite[i][0]);
			goto done;
		}
	}
	if (stmt_prepare(st, &q, "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND "
			 "((type IN ('index', 'trigger') AND tbl_name = 'reports') OR type = 'view') "
			 "ORDER BY rowid", err) < 0)
		goto done;
	while ((row = stmt_step(&q, err)) == 1) {
		ALLOC_GROW(again.v, again.nr + 1, again.alloc);
		again.v[again.nr++] = col_str(q.s, 2);
		if (!strcmp((const char *)sqlite3_column_text(q.s, 0), "view")) {
			buf_reset(&sql);
			buf_addf(&sql, "DROP VIEW \"%s\"", (const char *)sqlite3_column_text(q.s, 1));
			ALLOC_GROW(drops.v, drops.nr + 1, drops.alloc);
			drops.v[drops.nr++] = buf_detach(&sql, NULL);
		}
	}
	stmt_finish(&q);
	if (row < 0 || exec_sql(st, table.data, err) < 0 ||
	    exec_sql(st, "INSERT INTO reports_rebuilt SELECT * FROM reports", err) < 0 ||
	    exec_all(st, &drops, err) < 0 ||
	    exec_sql(st, "DROP TABLE reports; ALTER TABLE reports_rebuilt RENAME TO reports", err) < 0 ||
	    exec_all(st, &again, err) < 0)
		goto done;
	ret = exec_sql(st,
		       "ALTER TABLE reports ADD COLUMN tree TEXT;"
		       "ALTER TABLE reports ADD COLUMN head TEXT;"
		       "UPDATE reports SET head = substr(thread_key, instr(thread_key, char(10)) + 1, 40)"
		       "  WHERE kind IN ('report', 'followup') AND instr(thread_key, char(10)) > 1;"
		       "UPDATE reports SET tree = substr(thread_key, 1, instr(thread_key, char(10)) - 1)"
		       "    || '/' || substr(subject, instr(thread_key, char(10)) + 2,"
		       "                     instr(subject, ']') - instr(thread_key, char(10)) - 2)"
		       "  WHERE kind = 'report' AND instr(thread_key, char(10)) > 1"
		       "    AND substr(subject, 1, instr(thread_key, char(10))) ="
		       "        '[' || substr(thread_key, 1, instr(thread_key, char(10)) - 1)"
		       "    AND substr(subject, instr(thread_key, char(10)) + 1, 1) = ':'"
		       "    AND instr(subject, ']') > instr(thread_key, char(10)) + 2;"
		       /* what track reads of every report and follow-up, each
			* run: from this index alone, not from the rows (a tenth
			* of the pages); nothing delivery changes is in it */
		       "CREATE INDEX reports_tracked ON reports(kind, id, thread_id, message_id, tree, head,"
		       "  state, created);",
		       err);
done:
	state_names_release(&again);
	state_names_release(&drops);
	buf_release(&table);
	buf_release(&sql);
	return ret;
}

void state_names_release(struct state_names *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		free(n->v[i]);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

void state_fix_release(struct state_fix *f)
{
	free(f->commit);
	free(f->subject);
	free(f->ref);
	free(f->landed);
	memset(f, 0, sizeof(*f));
}

static void possible_release(struct state_possible_fix *p)
{
	free(p->commit);
	free(p->subject);
	free(p->ref);
}

void state_tracked_release(struct state_tracked *t)
{
	size_t i;

	free(t->message_id);
	free(t->subject);
	free(t->tree);
	free(t->head);
	for (i = 0; i < t->nr_followup_ids; i++)
		free(t->followup_ids[i]);
	free(t->followup_ids);
	state_fix_release(&t->fix);
	for (i = 0; i < t->nr_possible; i++)
		possible_release(&t->possible[i]);
	free(t->possible);
	memset(t, 0, sizeof(*t));
}

void state_tracked_list_release(struct state_tracked_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		state_tracked_release(&l->v[i]);
	free(l->v);
	state_names_release(&l->trees);
	memset(l, 0, sizeof(*l));
}

void state_digest_entries_free(struct state_digest_entry *v, size_t nr)
{
	size_t i;

	for (i = 0; v && i < nr; i++)
		free(v[i].fix_commit);
	free(v);
}

/* The report with this id among list->v[from..] (in id order), or NULL. */
static struct state_tracked *tracked_find(struct state_tracked_list *list, size_t from, int64_t id)
{
	size_t lo = from, hi = list->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (list->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < list->nr && list->v[lo].id == id ? &list->v[lo] : NULL;
}

static int evidence_of(const char *name, enum fix_kind *out)
{
	return name && fix_kind_parse(name, out) == 0 && *out != FIX_POSSIBLE ? 0 : -1;
}

/* A mail's tree, for the list of trees: the first mail on it wins. */
struct tree_seen {
	int64_t id;
	char *tree;	/* owned */
};

struct trees_seen {
	struct tree_seen *v;
	size_t nr, alloc;
};

static void trees_seen_add(struct trees_seen *s, int64_t id, const char *tree)
{
	if (!tree)
		return;
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr].id = id;
	s->v[s->nr++].tree = xstrdup(tree);
}

static int tree_seen_cmp(const void *a, const void *b)
{
	const struct tree_seen *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The distinct trees seen, first seen (smallest id) first; frees s. */
static void trees_collect(struct trees_seen *s, struct state_names *out)
{
	size_t i, j;

	xqsort(s->v, s->nr, sizeof(*s->v), tree_seen_cmp);
	for (i = 0; i < s->nr; i++) {
		for (j = 0; j < out->nr; j++)
			if (!strcmp(out->v[j], s->v[i].tree))
				break;
		if (j == out->nr) {
			ALLOC_GROW(out->v, out->nr + 1, out->alloc);
			out->v[out->nr++] = s->v[i].tree;
		} else {
			free(s->v[i].tree);
		}
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static const char *const tracked_sql[] = {
	/* track's: the columns of reports_tracked alone */
	"SELECT r.id, r.message_id, NULL, r.tree, r.head, 'queued', r.state, r.created, 0, "
	"0, 0 FROM reports r INDEXED BY reports_tracked WHERE r.kind = 'report' "
	"AND (?1 = 0 OR r.id = ?1) ORDER BY r.id",
	"SELECT r.id, r.message_id, r.subject, r.tree, r.head, r.status, r.state, r.created, r.sent, "
	"(SELECT COUNT(*) FROM messages m WHERE m.report_id = r.id AND m.origin = 'ingested'), "
	"(SELECT MAX(k.date) FROM known_messages k WHERE k.report_id = r.id) "
	"FROM reports r WHERE r.kind = 'report' AND (?1 = 0 OR r.id = ?1) ORDER BY r.id",
};

/* Loads the reports (only the one with id `only`, unless it is 0) of
 * kind report and what track knows of them; the trees into *trees unless
 * it is NULL.  In the caller's read transaction. */
static int tracked_load(struct state *st, int64_t only, int activity, size_t from,
			struct state_tracked_list *out, struct state_names *trees, struct buf *err)
{
	struct trees_seen seen = { 0 };
	size_t i;
	struct stmt q;
	int row;

	if (stmt_prepare(st, &q, tracked_sql[activity ? 1 : 0], err) < 0)
		return -1;
	bind_int(&q, only);
	while ((row = stmt_step(&q, err)) == 1) {
		struct state_tracked *t;
		int status, verdict;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		t = &out->v[out->nr];
		memset(t, 0, sizeof(*t));
		t->id = col_int(q.s, 0);
		t->message_id = col_str(q.s, 1);
		t->subject = col_str(q.s, 2);
		t->tree = col_str(q.s, 3);
		t->head = col_str(q.s, 4);
		status = name_index(status_names, N(status_names), (const char *)sqlite3_column_text(q.s, 5));
		verdict = name_index(verdict_names, N(verdict_names), (const char *)sqlite3_column_text(q.s, 6));
		t->created = col_int(q.s, 7);
		t->sent = col_int(q.s, 8);
		t->replies = (size_t)col_int(q.s, 9);
		t->last_activity = col_int(q.s, 10);
		out->nr++;
		if (status < 0 || verdict < 0) {
			row = err_set(err, "%s: report %lld has an unknown status or state", st->path,
				      (long long)t->id);
			break;
		}
		t->status = (enum state_status)status;
		t->verdict = (enum state_verdict)verdict;
	}
	stmt_finish(&q);
	if (row < 0)
		return -1;

	if (stmt_prepare(st, &q, "SELECT thread_id, message_id, tree, id FROM reports "
			 "INDEXED BY reports_tracked "
			 "WHERE kind = 'followup' AND (?1 = 0 OR thread_id = ?1) ORDER BY id", err) < 0)
		return -1;
	bind_int(&q, only);
	for (i = from; trees && i < out->nr; i++)
		trees_seen_add(&seen, out->v[i].id, out->v[i].tree);
	while ((row = stmt_step(&q, err)) == 1) {
		struct state_tracked *t = tracked_find(out, from, col_int(q.s, 0));

		if (trees)
			trees_seen_add(&seen, col_int(q.s, 3), (const char *)sqlite3_column_text(q.s, 2));
		if (!t)
			continue;
		t->followup_ids = xrealloc(t->followup_ids, (t->nr_followup_ids + 1) * sizeof(char *));
		t->followup_ids[t->nr_followup_ids++] = col_str(q.s, 1);
	}
	stmt_finish(&q);
	if (trees)
		trees_collect(&seen, trees);
	if (row < 0)
		return -1;

	if (stmt_prepare(st, &q, "SELECT report_id, commit_id, subject, ref, date, evidence, recorded, "
			 "in_repo, landed, reopened FROM fixes WHERE ?1 = 0 OR report_id = ?1", err) < 0)
		return -1;
	bind_int(&q, only);
	while ((row = stmt_step(&q, err)) == 1) {
		struct state_tracked *t = tracked_find(out, from, col_int(q.s, 0));
		struct state_fix *f;

		if (!t)
			continue;
		f = &t->fix;
		if (evidence_of((const char *)sqlite3_column_text(q.s, 5), &f->kind) < 0) {
			row = err_set(err, "%s: report %lld: unknown fix evidence", st->path, (long long)t->id);
			break;
		}
		t->has_fix = 1;
		f->report_id = t->id;
		f->commit = col_str(q.s, 1);
		f->subject = col_str(q.s, 2);
		f->ref = col_str(q.s, 3);
		f->date = col_int(q.s, 4);
		f->recorded = col_int(q.s, 6);
		f->in_repo = col_int(q.s, 7) != 0;
		f->landed = col_str(q.s, 8);
		f->reopened = col_int(q.s, 9) != 0;
	}
	stmt_finish(&q);
	if (row < 0)
		return -1;

	if (stmt_prepare(st, &q, "SELECT report_id, commit_id, subject, ref, date, recorded "
			 "FROM possible_fixes WHERE ?1 = 0 OR report_id = ?1 "
			 "ORDER BY report_id, recorded, commit_id", err) < 0)
		return -1;
	bind_int(&q, only);
	while ((row = stmt_step(&q, err)) == 1) {
		struct state_tracked *t = tracked_find(out, from, col_int(q.s, 0));
		struct state_possible_fix *p;

		if (!t)
			continue;
		t->possible = xrealloc(t->possible, (t->nr_possible + 1) * sizeof(*t->possible));
		p = &t->possible[t->nr_possible++];
		p->commit = col_str(q.s, 1);
		p->subject = col_str(q.s, 2);
		p->ref = col_str(q.s, 3);
		p->date = col_int(q.s, 4);
		p->recorded = col_int(q.s, 5);
	}
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_tracked_list(struct state *st, int activity, struct state_tracked_list *out,
		       struct buf *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	if (tx_begin(st, 0, err) < 0)
		return -1;
	ret = tracked_load(st, 0, activity, 0, out, &out->trees, err);
	return tx_end(st, ret, err);
}

int state_tracked_get(struct state *st, int64_t id, struct state_tracked *out, struct buf *err)
{
	struct state_tracked_list list = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	if (id <= 0)
		return 0;
	if (tx_begin(st, 0, err) < 0)
		return -1;
	ret = tracked_load(st, id, 1, 0, &list, NULL, err);
	ret = tx_end(st, ret, err);
	if (ret == 0 && list.nr == 1) {
		*out = list.v[0];
		list.nr = 0;
		ret = 1;
	}
	state_tracked_list_release(&list);
	return ret;
}

int state_report_trees(struct state *st, struct state_names *out, struct buf *err)
{
	struct stmt q;
	int row;

	if (stmt_prepare(st, &q, "SELECT tree FROM reports WHERE tree IS NOT NULL "
			 "AND kind IN ('report', 'followup') GROUP BY tree ORDER BY MIN(id)", err) < 0)
		return -1;
	while ((row = stmt_step(&q, err)) == 1) {
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr++] = col_str(q.s, 0);
	}
	stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

static int check_fix_text(const char *commit, const char *subject, const char *ref, struct buf *err)
{
	if (check_text("the fix commit", commit, 1, err) < 0 ||
	    check_text("the fix subject", subject, 0, err) < 0 ||
	    check_text("the fix ref", ref, 0, err) < 0)
		return -1;
	return 0;
}

void state_defer_checkpoint(struct state *st)
{
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
}

/* 1 when sql (one integer parameter) yields a row, 0 if not, -1 on error. */
static int row_exists_id(struct state *st, const char *sql, int64_t id, struct buf *err)
{
	struct stmt q;
	int r;

	if (stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	bind_int(&q, id);
	r = stmt_step(&q, err);
	stmt_finish(&q);
	return r;
}

int state_fix_set(struct state *st, const struct state_fix *f, struct buf *err)
{
	struct stmt q;
	int ret = -1, found;

	if (check_fix_text(f->commit, f->subject, f->ref, err) < 0 ||
	    check_text("the refs the fix landed on", f->landed, 0, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)f->report_id);
	if (f->kind == FIX_POSSIBLE || !fix_kind_closes(f->kind) || f->kind > FIX_FIXED_BY)
		return err_set(err, "%s: report %lld: a fix cannot be of kind %s", st->path,
			       (long long)f->report_id, fix_kind_name(f->kind));
	if (tx_begin(st, 1, err) < 0)
		return -1;
	found = row_exists_id(st, "SELECT 1 FROM reports WHERE id = ? AND kind = 'report'",
			      f->report_id, err);
	if (found == 0)
		err_set(err, "%s: there is no report %lld", st->path, (long long)f->report_id);
	if (found == 1 && stmt_prepare(st, &q, "INSERT INTO fixes (report_id, commit_id, subject, ref, date, "
				"evidence, recorded, in_repo, landed, reopened) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (report_id) DO UPDATE SET "
				"commit_id = excluded.commit_id, subject = excluded.subject, ref = excluded.ref, "
				"date = excluded.date, evidence = excluded.evidence, recorded = excluded.recorded, "
				"in_repo = excluded.in_repo, landed = excluded.landed, "
				"reopened = excluded.reopened", err) == 0) {
		bind_int(&q, f->report_id);
		bind_text(&q, f->commit);
		bind_text(&q, f->subject ? f->subject : "");
		bind_text(&q, f->ref ? f->ref : "");
		bind_opt(&q, f->date);
		bind_text(&q, fix_kind_name(f->kind));
		bind_int(&q, f->recorded);
		bind_int(&q, f->in_repo ? 1 : 0);
		bind_text(&q, f->landed ? f->landed : "");
		bind_int(&q, f->reopened ? 1 : 0);
		ret = stmt_run(&q, err);
	}
	return tx_end(st, ret, err);
}

int state_fix_reopen(struct state *st, int64_t report_id, struct buf *err)
{
	return write_ints(st, "UPDATE fixes SET reopened = 1 WHERE report_id = ?", 1, &report_id, err);
}

int state_possible_fix_set(struct state *st, int64_t report_id, const struct state_possible_fix *p,
			   struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_fix_text(p->commit, p->subject, p->ref, err) < 0)
		return err_prefix(err, "%s: report %lld: possible fix: ", st->path, (long long)report_id);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "INSERT INTO possible_fixes (report_id, commit_id, subject, ref, date, "
			 "recorded) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (report_id, commit_id) DO UPDATE "
			 "SET subject = excluded.subject, ref = excluded.ref, date = excluded.date", err) == 0) {
		bind_int(&q, report_id);
		bind_text(&q, p->commit);
		bind_text(&q, p->subject ? p->subject : "");
		bind_text(&q, p->ref ? p->ref : "");
		bind_opt(&q, p->date);
		bind_int(&q, p->recorded);
		ret = stmt_run(&q, err);
	}
	return tx_end(st, ret, err);
}

static int is_full_hex(const char *s)
{
	size_t i;

	for (i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[40] == '\0';
}

int state_track_cursor_get(struct state *st, const char *ref, char tip[41], struct buf *err)
{
	struct stmt q;
	int r;

	tip[0] = '\0';
	if (check_text("the ref", ref, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "SELECT tip FROM track_cursors WHERE ref = ?", err) < 0)
		return -1;
	bind_text(&q, ref);
	r = stmt_step(&q, err);
	if (r == 1) {
		const char *t = (const char *)sqlite3_column_text(q.s, 0);

		if (t && is_full_hex(t))
			memcpy(tip, t, 41);
		else
			r = err_set(err, "%s: the cursor of %s is not a commit id", st->path, ref);
	}
	stmt_finish(&q);
	return r;
}

int state_track_cursor_set(struct state *st, const char *ref, const char *tip, int64_t now,
			   struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_text("the ref", ref, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (!tip || !is_full_hex(tip))
		return err_set(err, "%s: %s: the cursor must be 40 lowercase hex digits", st->path, ref);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	if (stmt_prepare(st, &q, "INSERT INTO track_cursors (ref, tip, walked) VALUES (?, ?, ?) "
			 "ON CONFLICT (ref) DO UPDATE SET tip = excluded.tip, walked = excluded.walked",
			 err) == 0) {
		bind_text(&q, ref);
		bind_text(&q, tip);
		bind_int(&q, now);
		ret = stmt_run(&q, err);
	}
	return tx_end(st, ret, err);
}

int state_notice_find(struct state *st, int64_t report_id, const char *commit, int64_t *notice_id,
		      struct buf *err)
{
	struct stmt q;
	int r;

	if (check_text("the fix commit", commit, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (stmt_prepare(st, &q, "SELECT notice_id FROM notices WHERE report_id = ? AND commit_id = ?",
			 err) < 0)
		return -1;
	bind_int(&q, report_id);
	bind_text(&q, commit);
	r = stmt_step(&q, err);
	if (r == 1 && notice_id)
		*notice_id = col_int(q.s, 0);
	stmt_finish(&q);
	return r;
}

int state_notice_add(struct state *st, int64_t report_id, const char *commit,
		     const struct state_report *mail, int64_t *id, struct buf *err)
{
	struct stmt q;
	int64_t new_id = 0;
	int ret;

	if (check_report(mail, err) < 0 || check_text("the fix commit", commit, 1, err) < 0)
		return err_prefix(err, "%s: cannot add a notice: ", st->path);
	if (mail->kind != STATE_KIND_NOTICE || mail->parent_id != report_id)
		return err_set(err, "%s: a notice is of kind notice and answers its report", st->path);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	ret = state_notice_find(st, report_id, commit, NULL, err);
	if (ret > 0) {
		err_set(err, "%s: report %lld already has a notice of %s", st->path, (long long)report_id,
			commit);
		ret = STATE_EXISTS;
	}
	if (ret == 0)
		ret = report_insert(st, mail, &new_id, err);
	if (ret == 0 && (ret = stmt_prepare(st, &q, "INSERT INTO notices (report_id, commit_id, notice_id) "
					    "VALUES (?, ?, ?)", err)) == 0) {
		bind_int(&q, report_id);
		bind_text(&q, commit);
		bind_int(&q, new_id);
		ret = stmt_run(&q, err);
	}
	ret = tx_end(st, ret, err);
	if (ret == 0 && id)
		*id = new_id;
	return ret;
}

int state_digest_last(struct state *st, struct state_report *out, struct buf *err)
{
	struct stmt q;

	memset(out, 0, sizeof(*out));
	if (stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "JOIN report_mails m ON m.report_id = r.id WHERE r.kind = 'digest' "
			 "ORDER BY r.id DESC LIMIT 1", err) < 0)
		return -1;
	return report_select_one(st, &q, out, err);
}

int state_digest_entries(struct state *st, int64_t digest_id, struct state_digest_entry **out,
			 size_t *nr, struct buf *err)
{
	struct state_digest_entry *v = NULL;
	size_t n = 0, alloc = 0;
	struct stmt q;
	int row;

	*out = NULL;
	*nr = 0;
	if (stmt_prepare(st, &q, "SELECT report_id, state, fix_commit FROM digest_entries "
			 "WHERE digest_id = ? ORDER BY report_id", err) < 0)
		return -1;
	bind_int(&q, digest_id);
	while ((row = stmt_step(&q, err)) == 1) {
		int verdict = name_index(verdict_names, N(verdict_names),
					 (const char *)sqlite3_column_text(q.s, 1));

		if (verdict < 0) {
			row = err_set(err, "%s: digest %lld: unknown report state", st->path,
				      (long long)digest_id);
			break;
		}
		ALLOC_GROW(v, n + 1, alloc);
		v[n].report_id = col_int(q.s, 0);
		v[n].verdict = (enum state_verdict)verdict;
		v[n].fix_commit = col_str(q.s, 2);
		n++;
	}
	stmt_finish(&q);
	if (row < 0) {
		state_digest_entries_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

int state_digest_add(struct state *st, const struct state_report *mail,
		     const struct state_digest_entry *v, size_t nr, int64_t *id, struct buf *err)
{
	struct stmt q;
	int64_t new_id = 0;
	size_t i;
	int ret;

	if (check_report(mail, err) < 0)
		return err_prefix(err, "%s: cannot add a digest: ", st->path);
	if (mail->kind != STATE_KIND_DIGEST)
		return err_set(err, "%s: a digest is of kind digest", st->path);
	for (i = 0; i < nr; i++)
		if ((size_t)v[i].verdict >= N(verdict_names) ||
		    check_text("a fix commit", v[i].fix_commit, 0, err) < 0)
			return err_set(err, "%s: cannot add a digest: a bad entry for report %lld", st->path,
				       (long long)v[i].report_id);
	if (tx_begin(st, 1, err) < 0)
		return -1;
	ret = report_insert(st, mail, &new_id, err);
	for (i = 0; i < nr && ret == 0; i++) {
		if ((ret = stmt_prepare(st, &q, "INSERT INTO digest_entries (digest_id, report_id, state, "
					"fix_commit) VALUES (?, ?, ?, ?)", err)) < 0)
			break;
		bind_int(&q, new_id);
		bind_int(&q, v[i].report_id);
		bind_text(&q, state_verdict_name(v[i].verdict));
		bind_text(&q, v[i].fix_commit);
		ret = stmt_run(&q, err);
	}
	ret = tx_end(st, ret, err);
	if (ret == 0 && id)
		*id = new_id;
	return ret;
}
