/*
 * state.c: the SQLite seam (state.h): the connection, the schema and its
 * migrations, statements and transactions, the run lock.  With
 * state-outbox.c, state-message.c, state-route.c and state-track.c (which
 * share state-db.h) the only files that include <sqlite3.h>; every SQL
 * statement perfbot runs is in them, with its parameters bound, never
 * spliced.
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
#include "state-db.h"
#include "xalloc.h"
#include "banned.h"

struct state_lock {
	struct lock *lock;	/* DIR/lock (lock.h) */
};

const char *const sdb_kind_names[4] = { "report", "followup", "notice", "digest" };
const char *const sdb_status_names[4] = { "queued", "sending", "sent", "failed" };
const char *const sdb_verdict_names[4] = { "open", "invalid", "fixed", "duplicate" };
const char *const sdb_mark_names[3] = { "", "held", "dropped" };
static const char *const rcpt_status_names[] = { "delivered", "deferred", "refused" };
const char *const sdb_action_names[4] = { "hold", "release", "retry", "drop" };
/* the command an operator's verdict is recorded as, a maintainer's word */
const char *const sdb_verdict_commands[4] = { "reopen", "invalid", "fixed", "duplicate" };

const char *state_kind_name(enum state_kind k)
{
	return (size_t)k < N(sdb_kind_names) ? sdb_kind_names[k] : "?";
}

const char *state_status_name(enum state_status s)
{
	return (size_t)s < N(sdb_status_names) ? sdb_status_names[s] : "?";
}

const char *state_verdict_name(enum state_verdict v)
{
	return (size_t)v < N(sdb_verdict_names) ? sdb_verdict_names[v] : "?";
}

const char *state_mark_name(enum state_mark m)
{
	return (size_t)m < N(sdb_mark_names) ? sdb_mark_names[m] : "?";
}

const char *state_rcpt_status_name(enum state_rcpt_status s)
{
	return (size_t)s < N(rcpt_status_names) ? rcpt_status_names[s] : "?";
}

const char *state_action_name(enum state_action a)
{
	return (size_t)a < N(sdb_action_names) ? sdb_action_names[a] : "?";
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

int sdb_name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

int state_verdict_parse(const char *s, enum state_verdict *out)
{
	int i = sdb_name_index(sdb_verdict_names, N(sdb_verdict_names), s);

	if (i < 0)
		return -1;
	*out = (enum state_verdict)i;
	return 0;
}

/* SQL for column c as sdb_rcpt_encode() writes a field: backslash, tab, LF
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
/*
 * Schema 11's change log.  CHANGE_SET(head) sets report head's row (head
 * an SQL expression) to the next seq: one row of VALUES, since an INSERT
 * from a SELECT that reads changes would copy its rows through a
 * temporary table each time (6% more instructions for an ingest); an
 * upsert, since an outer INSERT OR IGNORE (or ABORT) would impose its
 * conflict policy on the trigger's INSERT OR REPLACE.  CHANGE_TRIGGER()
 * makes trigger changes_NAME, AFTER event ON t, that sets head's row when
 * cond holds.
 */
#define CHANGE_SEQ "(SELECT IFNULL(MAX(seq), 0) + 1 FROM changes)"
#define CHANGE_SET(head) \
	"INSERT INTO changes (report_id, seq) VALUES (" head ", " CHANGE_SEQ ")" \
	" ON CONFLICT (report_id) DO UPDATE SET seq = excluded.seq;"
#define CHANGE_TRIGGER(name, event, t, cond, head) \
	"CREATE TRIGGER changes_" name " AFTER " event " ON " t " WHEN " cond \
	" BEGIN " CHANGE_SET(head) " END;"
/* The thread head of the report whose id is expression id; of the report
 * of message mid; NULL when there is none. */
#define CHANGE_HEAD(id) "(SELECT IFNULL(h.thread_id, h.id) FROM reports h WHERE h.id = " id ")"
#define CHANGE_MESSAGE_HEAD(mid) \
	"(SELECT IFNULL(h.thread_id, h.id) FROM messages m JOIN reports h ON h.id = m.report_id" \
	" WHERE m.message_id = " mid ")"
/* The triggers of table t that mark new_head for an insert, new_head and,
 * when moved, old_head for an update, old_head for a delete; none when the
 * head is NULL (no report). */
#define CHANGE_TRIGGERS_OF(t, name, new_head, old_head, moved) \
	CHANGE_TRIGGER(t "_" name "_insert", "INSERT", t, new_head " IS NOT NULL", new_head) \
	CHANGE_TRIGGER(t "_" name "_update", "UPDATE", t, new_head " IS NOT NULL", new_head) \
	CHANGE_TRIGGER(t "_" name "_update_old", "UPDATE", t, \
		       moved " AND " old_head " IS NOT NULL", old_head) \
	CHANGE_TRIGGER(t "_" name "_delete", "DELETE", t, old_head " IS NOT NULL", old_head)
/* Those of a table whose column col is a report's id. */
#define CHANGE_TRIGGERS(t, col) \
	CHANGE_TRIGGERS_OF(t, col, CHANGE_HEAD("NEW." col), CHANGE_HEAD("OLD." col), \
			   "OLD." col " IS NOT NEW." col)

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
	 *    (sdb_rcpt_encode(); recipients_results' rows are read in key order,
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
	/* 4: delivery an operator can leave alone (perfbot-outbox(1)); migrate_4()
	 * below is its other half, in the same transaction:
	 *  - rcpt_results holds each envelope recipient's outcome so far, no
	 *    longer the last attempt's replies: a line
	 *    "STATUS\tCODE\tADDRESS\tREPLY" each (sdb_rcpt_encode());
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
	/* 5: routing (perfbot-mail(7), Recipients), one step on its own (renumber freely):
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
	/* 6: tracking fixes (perfbot-track(1)); sdb_migrate_track() is its other half,
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
	/* 7: every mail perfbot minted and stored is known for threading, not
	 * only those a server was recorded as taking: its recipients may have
	 * it (a run killed after the server's 250, a connection cut after the
	 * DATA) and answer before perfbot records it sent, and a reply to it
	 * must not be lost.  known_messages shows a queued, held, deferred,
	 * failed or dropped mail with origin 'outbox' (one redirected stays
	 * unknown: its real recipients never had it).  One step on its own
	 * (renumber freely). */
	"DROP VIEW known_messages;"
	"CREATE VIEW known_messages AS"
	"  SELECT " MESSAGE_COLUMNS " FROM messages"
	"  UNION ALL"
	"  SELECT message_id, thread_id, in_reply_to, in_reply_to, refs, from_name, from_email,"
	"    created, subject, CASE WHEN sent IS NULL THEN 'outbox' ELSE 'sent' END,"
	"    NULL, NULL, 0, NULL FROM reports r"
	"    WHERE redirected_to IS NULL AND NOT EXISTS"
	"      (SELECT 1 FROM messages m WHERE m.message_id = r.message_id);",
	/* 8: fix testing, self-contained (renumber freely):
	 *  - report_jobs: what a lab needs to rerun a report's tests, kept
	 *    when the report is made (the comparison file is gone after
	 *    send): its base and head commits, its tree, whether it reports
	 *    a regression, and its tests as JSON;
	 *  - requests: each "#perfbot test" (one per mail), accepted or
	 *    refused with the reason, the commit made or named, its state */
	"CREATE TABLE report_jobs ("
	"  report_id INTEGER PRIMARY KEY REFERENCES reports(id),"
	"  base TEXT NOT NULL,"
	"  head TEXT NOT NULL,"
	"  tree TEXT NOT NULL,"
	"  regression INTEGER NOT NULL,"
	"  tests TEXT NOT NULL"
	");"
	"CREATE TABLE requests ("
	"  id INTEGER PRIMARY KEY,"
	"  report_id INTEGER NOT NULL REFERENCES reports(id),"
	"  message_id TEXT NOT NULL UNIQUE REFERENCES messages(message_id),"
	"  requester_name TEXT NOT NULL,"
	"  requester_email TEXT NOT NULL,"
	"  requested INTEGER NOT NULL,"
	"  what TEXT NOT NULL CHECK (what IN ('patch', 'commit', 'git')),"
	"  args TEXT NOT NULL,"
	"  subject TEXT,"
	"  url TEXT,"
	"  branch TEXT,"
	"  commit_id TEXT,"
	"  base TEXT,"
	"  head TEXT,"
	"  ref TEXT,"
	"  state TEXT NOT NULL"
	"    CHECK (state IN ('pending', 'taken', 'answered', 'refused', 'dropped')),"
	"  why TEXT,"
	"  changed INTEGER NOT NULL"
	");"
	"CREATE INDEX requests_report ON requests(report_id);"
	"CREATE INDEX requests_requester ON requests(requester_email, requested);",
	/* 9: fix test results, self-contained (renumber freely): an
	 * answered request's verdict (the newest result's, or 'error' when
	 * the tested kernel did not build or boot), the Message-ID of its
	 * first result mail (later results answer it) and how many results
	 * came */
	"ALTER TABLE requests ADD COLUMN verdict TEXT"
	"  CHECK (verdict IN ('fixed', 'partial', 'worse', 'not-fixed', 'error'));"
	"ALTER TABLE requests ADD COLUMN result_message_id TEXT;"
	"ALTER TABLE requests ADD COLUMN results INTEGER NOT NULL DEFAULT 0;",
	/* 10: fixes posted to the lists before they land (perfbot-ingest(1),
	 * Posted fixes), self-contained (renumber freely):
	 *  - posted_fixes: a patch mail whose trailers hold fix evidence for
	 *    a report, once per report and Message-ID however many sources
	 *    carry it: its subject as git am commits it, its version, author,
	 *    date and evidence;
	 *  - fixes.posted: the posted patch the landed commit is (the latest
	 *    version whose subject is the commit's), or NULL */
	"CREATE TABLE posted_fixes ("
	"  report_id INTEGER NOT NULL REFERENCES reports(id),"
	"  message_id TEXT NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  version INTEGER NOT NULL CHECK (version >= 1),"
	"  author_name TEXT NOT NULL,"
	"  author_email TEXT NOT NULL,"
	"  date INTEGER NOT NULL,"
	"  evidence TEXT NOT NULL CHECK (evidence IN ('closes', 'link', 'fixes')),"
	"  recorded INTEGER NOT NULL,"
	"  PRIMARY KEY (report_id, message_id)"
	") WITHOUT ROWID;"
	"ALTER TABLE fixes ADD COLUMN posted TEXT;",
	/* 11: the change log (state_changes_since()), self-contained
	 * (renumber freely): the site rewrites only the reports changed
	 * since the seq its cache was made at.  Triggers keep it, so no
	 * write by any code path is missed: each write to a table whose rows
	 * a report's page, the lists or status --json show sets the row of
	 * the affected report's thread head (the published report) to a new
	 * seq, one above the newest.  Marked:
	 *  - reports (the report itself, its delivery, verdict, mark,
	 *    thread), report_mails (its mail), report_sources (its spool
	 *    files), messages (the thread's mails and activity), commands,
	 *    trailers (status --json shows both; a trailer finds its report
	 *    through its message), fixes, possible_fixes, posted_fixes,
	 *    notices and digest_entries (what state_tracked_list() reads for
	 *    the fix columns and the lists; a notice also marks its own
	 *    mail's thread, a digest entry its digest's), report_jobs and
	 *    requests (a report's fix tests);
	 *  - exclusions mark report 0, "every report": status --json shows
	 *    the list with each report.
	 * Not marked, never shown on a page (writing them must not look
	 * like a change): cursors, archive_tip and track_cursors (where
	 * ingest and track resume), send_log (the hourly count: status's
	 * waits depend on the clock as well, which no log can follow),
	 * flags (delivery_unfinished only, read by delivery alone; marking
	 * it would make every send run look like a change of every report),
	 * schema_version and changes.
	 * An UPDATE marks OLD's report too when it is another; a row with no
	 * report (NULL, or an id not in reports) marks nothing.  Every
	 * existing thread head starts at seq 1, so a site made before
	 * looks at everything once. */
	"CREATE TABLE changes ("
	"  report_id INTEGER PRIMARY KEY,"
	"  seq INTEGER NOT NULL"
	");"
	"CREATE INDEX changes_seq ON changes(seq);"
	"INSERT INTO changes (report_id, seq) SELECT DISTINCT IFNULL(thread_id, id), 1 FROM reports;"
	CHANGE_TRIGGERS_OF("reports", "thread", "IFNULL(NEW.thread_id, NEW.id)",
			   "IFNULL(OLD.thread_id, OLD.id)",
			   "IFNULL(OLD.thread_id, OLD.id) IS NOT IFNULL(NEW.thread_id, NEW.id)")
	CHANGE_TRIGGERS("report_mails", "report_id")
	CHANGE_TRIGGERS("report_sources", "report_id")
	CHANGE_TRIGGERS("messages", "report_id")
	CHANGE_TRIGGERS("commands", "report_id")
	CHANGE_TRIGGERS("fixes", "report_id")
	CHANGE_TRIGGERS("possible_fixes", "report_id")
	CHANGE_TRIGGERS("posted_fixes", "report_id")
	CHANGE_TRIGGERS("report_jobs", "report_id")
	CHANGE_TRIGGERS("requests", "report_id")
	CHANGE_TRIGGERS("notices", "report_id")
	CHANGE_TRIGGERS("notices", "notice_id")
	CHANGE_TRIGGERS("digest_entries", "report_id")
	CHANGE_TRIGGERS("digest_entries", "digest_id")
	CHANGE_TRIGGERS_OF("trailers", "message_id", CHANGE_MESSAGE_HEAD("NEW.message_id"),
			   CHANGE_MESSAGE_HEAD("OLD.message_id"),
			   "OLD.message_id IS NOT NEW.message_id")
	CHANGE_TRIGGER("exclusions_insert", "INSERT", "exclusions", "1", "0")
	CHANGE_TRIGGER("exclusions_update", "UPDATE", "exclusions", "1", "0")
	CHANGE_TRIGGER("exclusions_delete", "DELETE", "exclusions", "1", "0"),
};

struct state;
static int migrate_4(struct state *st, struct buf *err);

/* What a migration does beyond its SQL, in its transaction; NULL = nothing. */
static int (*const migration_code[])(struct state *st, struct buf *err) = {
	NULL, NULL, NULL, migrate_4, NULL, sdb_migrate_track, NULL, NULL, NULL, NULL,
	NULL,
};

_Static_assert(N(migrations) == STATE_SCHEMA_VERSION && N(migration_code) == STATE_SCHEMA_VERSION,
	       "one migration per schema version");

/* ---- statements ------------------------------------------------------ */

static int db_fail(struct state *st, struct buf *err, const char *what)
{
	return err_set(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

int sdb_exec_sql(struct state *st, const char *sql, struct buf *err)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(err, "%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}


int sdb_stmt_prepare(struct state *st, struct stmt *q, const char *sql, struct buf *err)
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

void sdb_stmt_finish(struct stmt *q)
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
void sdb_bind_text(struct stmt *q, const char *s)
{
	bind_rc(q, s ? sqlite3_bind_text(q->s, q->next, s, -1, SQLITE_STATIC)
		     : sqlite3_bind_null(q->s, q->next));
}

void sdb_bind_int(struct stmt *q, int64_t v)
{
	bind_rc(q, sqlite3_bind_int64(q->s, q->next, v));
}

/* 0 ("none") binds SQL NULL. */
void sdb_bind_opt(struct stmt *q, int64_t v)
{
	bind_rc(q, v ? sqlite3_bind_int64(q->s, q->next, v) : sqlite3_bind_null(q->s, q->next));
}

void sdb_bind_blob(struct stmt *q, const void *p, size_t n)
{
	bind_rc(q, sqlite3_bind_blob64(q->s, q->next, p, n, SQLITE_STATIC));
}

/* 1 for a row, 0 when done, -1 with a message. */
int sdb_stmt_step(struct stmt *q, struct buf *err)
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
int sdb_stmt_run(struct stmt *q, struct buf *err)
{
	int r = sdb_stmt_step(q, err);

	sdb_stmt_finish(q);
	return r < 0 ? -1 : 0;
}

/* Runs one of the transaction statements below, kept prepared: they run
 * twice per state change, and compiling them each time was a tenth of a
 * delivery's CPU. */
static int tx_sql(struct state *st, const char *sql, struct buf *err)
{
	struct stmt q;

	if (sdb_stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	return sdb_stmt_run(&q, err);
}

char *sdb_col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? xstrdup((const char *)t) : NULL;
}

int64_t sdb_col_int(sqlite3_stmt *s, int i)
{
	return sqlite3_column_int64(s, i);
}

/* ---- transactions ---------------------------------------------------- */

/*
 * Each state change runs between sdb_tx_begin() and sdb_tx_end().  Outside
 * state_begin() that is its own transaction (BEGIN IMMEDIATE for writes,
 * so it never has to upgrade a read lock, which WAL cannot wait for);
 * inside, a savepoint, so a failing call undoes only its own part.
 */
int sdb_tx_begin(struct state *st, int write, struct buf *err)
{
	if (st->in_tx)
		return tx_sql(st, "SAVEPOINT perfbot_call", err);
	return tx_sql(st, write ? "BEGIN IMMEDIATE" : "BEGIN", err);
}

/* Commits when ret is 0, else rolls back; returns ret, or -1 when the
 * commit failed. */
int sdb_tx_end(struct state *st, int ret, struct buf *err)
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
int sdb_tx_begin_one(struct state *st, struct buf *err)
{
	return st->in_tx ? 0 : sdb_tx_begin(st, 1, err);
}

int sdb_tx_end_one(struct state *st, int ret, struct buf *err)
{
	return st->in_tx ? ret : sdb_tx_end(st, ret, err);
}

/* Runs sql, one statement that writes, with n integer parameters: in its
 * own transaction, or the caller's. */
int sdb_write_ints(struct state *st, const char *sql, size_t n, const int64_t *v,
		      struct buf *err)
{
	struct stmt q;
	size_t i;
	int ret = -1;

	if (sdb_tx_begin_one(st, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, sql, err) == 0) {
		for (i = 0; i < n; i++)
			sdb_bind_int(&q, v[i]);
		ret = sdb_stmt_run(&q, err);
	}
	return sdb_tx_end_one(st, ret, err);
}

int state_set_durable(struct state *st, int full, struct buf *err)
{
	/* back to full: a checkpoint syncs what was committed meanwhile */
	if (sdb_exec_sql(st, full ? "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 1000; PRAGMA wal_checkpoint(FULL)"
				  : "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0", err) < 0)
		return -1;
	st->lazy = !full;
	return 0;
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

int state_begin_read(struct state *st, struct buf *err)
{
	if (st->in_tx)
		return err_set(err, "%s: a transaction is already open", st->path);
	/* 1 GiB of address space, not of memory; only outside a transaction */
	if (tx_sql(st, "PRAGMA mmap_size = 1073741824", err) < 0 || tx_sql(st, "BEGIN", err) < 0)
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

void sdb_path_join(struct buf *out, const char *dir, const char *name)
{
	buf_reset(out);
	buf_addf(out, "%s/%s", dir, name);
}

int state_exists(const char *dir)
{
	struct buf path = BUF_INIT;
	int r;

	sdb_path_join(&path, dir, "state.db");
	r = access(path.data, F_OK) == 0;
	buf_release(&path);
	return r;
}

static int schema_migrate_steps(struct state *st, struct buf *err);

static int schema_version(struct state *st, int64_t *version, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_stmt_prepare(st, &q, "SELECT COALESCE(MAX(version), 0) FROM schema_version", err) < 0)
		return -1;
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		*version = sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	return r == 1 ? 0 : -1;
}

/* -1 with a message when the database breaks a foreign key: a migration
 * that ran with them off must leave none broken. */
static int foreign_keys_hold(struct state *st, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_stmt_prepare(st, &q, "PRAGMA foreign_key_check", err) < 0)
		return -1;
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		err_set(err, "%s: a row of %s names a missing row of %s", st->path,
			(const char *)sqlite3_column_text(q.s, 0), (const char *)sqlite3_column_text(q.s, 2));
	sdb_stmt_finish(&q);
	return r ? -1 : 0;
}

/* Applies the migrations the database lacks, each in one transaction.
 * Foreign keys are off meanwhile, as SQLite's way of rebuilding a table
 * needs (a parent table cannot be dropped otherwise), and checked before
 * each migration commits. */
static int schema_migrate(struct state *st, struct buf *err)
{
	int ret = -1;

	if (sdb_exec_sql(st, "PRAGMA foreign_keys = OFF", err) < 0)
		return -1;
	ret = schema_migrate_steps(st, err);
	if (sdb_exec_sql(st, "PRAGMA foreign_keys = ON", ret < 0 ? NULL : err) < 0)
		ret = -1;
	return ret;
}

static int schema_migrate_steps(struct state *st, struct buf *err)
{
	int64_t v = 0, want;

	for (want = 1; want <= STATE_SCHEMA_VERSION; want++) {
		struct stmt q;
		int ret = -1;

		if (sdb_tx_begin(st, 1, err) < 0)
			return -1;
		if (sdb_exec_sql(st, "CREATE TABLE IF NOT EXISTS schema_version "
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
		if (sdb_exec_sql(st, migrations[want - 1], err) < 0 ||
		    (migration_code[want - 1] && migration_code[want - 1](st, err) < 0) ||
		    foreign_keys_hold(st, err) < 0) {
			err_prefix(err, "migration to schema version %lld: ", (long long)want);
			goto end;
		}
		if (sdb_stmt_prepare(st, &q, "INSERT INTO schema_version (version) VALUES (?)", err) < 0)
			goto end;
		sdb_bind_int(&q, want);
		ret = sdb_stmt_run(&q, err);
end:
		if (sdb_tx_end(st, ret, err) < 0)
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
	return sdb_exec_sql(st, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
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
	sdb_path_join(&path, dir, "state.db");
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

int state_sync(struct state *st, struct buf *err)
{
	if (!st->lazy)
		return 0;
	if (st->wal_fd < 0)
		st->wal_fd = open(st->wal_path, O_RDONLY | O_CLOEXEC);
	if (st->wal_fd < 0)
		return err_set(err, "%s: %s", st->wal_path, strerror(errno));
	if (fdatasync(st->wal_fd) < 0)
		return err_set(err, "%s: fdatasync: %s", st->wal_path, strerror(errno));
	if (!st->dir_synced) {
		struct buf dir = BUF_INIT;
		const char *slash = strrchr(st->path, '/');
		int r;

		buf_add(&dir, st->path, slash ? (size_t)(slash - st->path) : 0);
		r = dir_sync(dir.len ? dir.data : ".", err);
		buf_release(&dir);
		if (r < 0)
			return -1;
		st->dir_synced = 1;
	}
	return 0;
}

/*
 * At the close of a connection that wrote: copies the WAL back (the
 * checkpoint close makes otherwise) and, when it held STATE_WAL_RESTART
 * frames or more, starts it again at its first frame.  SQLite starts the
 * log anew at a write that follows a checkpoint that copied all of it
 * back, but only within the shared memory that checkpoint marked, which
 * the next process does not trust (it recovers the file whole): a run
 * that wrote a little appended to the log and none started it again, so
 * it grew with every run until STATE_WAL_KEEP (32 MB: each run read it
 * whole at open and copied it back at close).  Here: a checkpoint that
 * copies it all and, when no reader is in it, lets the next write start
 * it again (RESTART, with no wait: a reader there leaves that to a later
 * close), then one write, which SQLite puts at the log's start under a
 * new salt, so that the next process recovers that frame alone; the write
 * is the schema version into the database header's user_version, which
 * nothing else uses.  The file keeps its blocks, as before.  Best effort:
 * a failure only leaves the log as it was.
 */
static void wal_restart(struct state *st)
{
	char sql[64];
	int deferred = 0, log = 0, copied = 0;

	sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, -1, &deferred);
	if (deferred)
		return;	/* state_defer_checkpoint() */
	sqlite3_busy_timeout(st->db, 0);
	if (sqlite3_wal_checkpoint_v2(st->db, "main", SQLITE_CHECKPOINT_RESTART, &log, &copied) !=
		    SQLITE_OK || log < STATE_WAL_RESTART || copied != log)
		return;
	/* NORMAL: the write itself is not synced (it changes nothing that
	 * matters); the checkpoint at close syncs the log before it copies
	 * it, and the database after */
	snprintf(sql, sizeof(sql), "PRAGMA synchronous = NORMAL; PRAGMA user_version = %d",
		 STATE_SCHEMA_VERSION);
	sqlite3_exec(st->db, sql, NULL, NULL, NULL);
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
	/* A connection that changed nothing leaves the WAL as it is.  The
	 * process that opens a kept WAL first reads it whole (recovery: it has
	 * no shared memory to trust), which leaves none of it marked as copied
	 * back, so the checkpoint at close copied every page into state.db
	 * again, with its syncs: a `status` that wrote nothing wrote 417 pages
	 * after a 2.4 MB WAL.  One whose commits were not full leaves it too:
	 * the checkpoint would sync what state_set_durable() chose not to, and
	 * the next full writer copies it back. */
	if (sqlite3_total_changes64(st->db) == 0 || st->lazy)
		sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	else if (stat(st->wal_path, &sb) == 0 && sb.st_size > STATE_WAL_KEEP)
		sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL, &(int){ 0 });
	else
		wal_restart(st);
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

void sdb_rcpt_encode(struct buf *b, const struct state_rcpt *rcpt, size_t nr)
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

/* Decodes sdb_rcpt_encode()'s text (NULL: none).  -1 when a line's status is
 * not one of the names (nothing set). */
int sdb_rcpt_decode(const char *s, struct state_rcpt **out, size_t *nr)
{
	struct state_rcpt *v = NULL;
	size_t n = 0, alloc = 0;
	int status;

	*out = NULL;
	*nr = 0;
	while (s && *s) {
		char *name = rcpt_unfield(&s);

		status = sdb_name_index(rcpt_status_names, N(rcpt_status_names), name);
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
	sdb_rcpt_encode(&text, v, n);
	if (given_up)
		buf_addf(&why, "held by the upgrade to schema 4: an earlier perfbot gave %zu recipient%s up "
			 "after a temporary failure; `perfbot outbox release %lld` sends the mail to %s "
			 "alone, `perfbot outbox drop %lld --why TEXT` gives %s up", given_up,
			 given_up == 1 ? "" : "s", (long long)id, given_up == 1 ? "it" : "them",
			 (long long)id, given_up == 1 ? "it" : "them");
	if (sdb_stmt_prepare(st, &q, given_up ?
			 "UPDATE reports SET rcpt_results = ?, status = 'queued', next_attempt = NULL, "
			 "mark = 'held', mark_why = ? WHERE id = ?" :
			 "UPDATE reports SET rcpt_results = ? WHERE id = ?", err) == 0) {
		sdb_bind_text(&q, n ? text.data : NULL);
		if (given_up)
			sdb_bind_text(&q, why.data);
		sdb_bind_int(&q, id);
		ret = sdb_stmt_run(&q, err);
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

	if (sdb_stmt_prepare(st, &q, "SELECT id, status, last_reply, rcpt_results FROM reports "
			 "WHERE rcpt_results IS NOT NULL ORDER BY id", err) < 0)
		return -1;
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n].id = sdb_col_int(q.s, 0);
		v[n].status = sdb_col_str(q.s, 1);
		v[n].last_reply = sdb_col_str(q.s, 2);
		v[n].old = sdb_col_str(q.s, 3);
		n++;
	}
	sdb_stmt_finish(&q);
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
int sdb_check_text(const char *what, const char *s, int required, struct buf *err)
{
	if (!s)
		return required ? err_set(err, "%s is missing", what) : 0;
	if (strnlen(s, STATE_MAX_TEXT + 1) > STATE_MAX_TEXT)
		return err_set(err, "%s is longer than %d bytes", what, STATE_MAX_TEXT);
	if (required && !*s)
		return err_set(err, "%s is empty", what);
	return 0;
}

/* An operator's reason: sdb_check_text(), and one line of printable text
 * (status and outbox print it as one). */
int sdb_check_reason(const char *s, int required, struct buf *err)
{
	const unsigned char *p;

	if (sdb_check_text("the reason", s, required, err) < 0)
		return -1;
	for (p = (const unsigned char *)s; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return err_set(err, "the reason has a line break or another control character: "
				       "give it on one line");
	return 0;
}

int sdb_check_rcpts(const struct state_rcpt *rcpt, size_t nr, const char *reply,
		       struct buf *err)
{
	size_t i;

	if (nr > STATE_MAX_RCPT)
		return err_set(err, "%zu recipient results (at most %d)", nr, STATE_MAX_RCPT);
	if (sdb_check_text("the server reply", reply, 0, err) < 0)
		return -1;
	for (i = 0; i < nr; i++)
		if (sdb_check_text("a recipient's address", rcpt[i].address, 1, err) < 0 ||
		    sdb_check_text("a recipient's reply", rcpt[i].reply, 0, err) < 0)
			return -1;
	return 0;
}

int sdb_check_report(const struct state_report *r, struct buf *err)
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
		if (sdb_check_text(fields[i].what, fields[i].s, fields[i].required, err) < 0)
			return -1;
	if (!r->mail || !r->mail_len)
		return err_set(err, "the mail is empty");
	if (r->mail_len > STATE_MAX_MAIL)
		return err_set(err, "the mail is larger than %u bytes", STATE_MAX_MAIL);
	if ((size_t)r->kind >= N(sdb_kind_names))
		return err_set(err, "unknown report kind %d", (int)r->kind);
	if (r->kind != STATE_KIND_DIGEST && (r->kind != STATE_KIND_REPORT) != (r->parent_id > 0))
		return err_set(err, "a follow-up or notice needs a parent and a report has none");
	if (sdb_check_text("tree", r->tree, 0, err) < 0 || sdb_check_text("head", r->head, 0, err) < 0)
		return -1;
	for (i = 0; i < r->nr_sources; i++)
		if (sdb_check_text("a source name", r->sources[i], 1, err) < 0)
			return -1;
	return 0;
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
	sdb_path_join(&path, dir, "lock");
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

