#ifndef PERFBOT_STATE_DB_H
#define PERFBOT_STATE_DB_H

/*
 * The state's own header: what the files of the state module (state.c,
 * state-outbox.c, state-message.c, state-route.c, state-track.c) share,
 * never included elsewhere.  Public callers see state.h alone, so SQLite
 * stays behind these files.
 *
 * state.c: the connection, the schema and its migrations, statements and
 * transactions, the checks on input, the run lock;
 * state-outbox.c: reports and follow-ups, their delivery, the operator's
 * actions, the send log;
 * state-message.c: the messages perfbot knows, commands, trailers, ingest
 * cursors, the archive's tip;
 * state-route.c: who may steer a report, command outcomes, exclusions;
 * state-track.c: fixes, watched refs' cursors, notices and digests;
 * state-changes.c: the change log (schema 11's triggers keep it).
 */

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "buf.h"
#include "state.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The columns of messages and of the known_messages view, in order. */
#define MESSAGE_COLUMNS \
	"message_id, report_id, parent_message_id, in_reply_to, refs, from_name, from_email, " \
	"date, subject, origin, blob_oid, commit_oid, quarantined, quarantine_reason"

/* The columns a report row is read with (report_from_row()): its own,
 * then its parent's and its thread's. */
#define REPORT_OWN_COLUMNS \
	"r.id, r.message_id, r.kind, r.parent_id, r.thread_id, r.thread_key, r.identity, " \
	"r.subject, r.from_name, r.from_email, r.in_reply_to, r.refs, r.env_from, r.env_rcpt, " \
	"r.to_addrs, r.cc_addrs, r.created, r.next_attempt, r.status, r.attempts, " \
	"r.last_attempt, r.last_reply, r.sent, r.state, r.redirected_to, r.mark, r.mark_why, " \
	"r.rcpt_results, "
#define REPORT_COLUMNS REPORT_OWN_COLUMNS \
	"(SELECT p.redirected_to FROM reports p WHERE p.id = r.parent_id), " \
	"(SELECT p.status FROM reports p WHERE p.id = r.parent_id), " \
	"(SELECT p.mark FROM reports p WHERE p.id = r.parent_id), " \
	"(SELECT t.state FROM reports t WHERE t.id = r.thread_id), " \
	"(SELECT p.sent FROM reports p WHERE p.id = r.parent_id)"
/* The same columns from "FROM reports r " REPORT_JOINS: a lookup of the
 * parent and one of the thread's head a row, not five (a list of every
 * report) */
#define REPORT_JOINED_COLUMNS REPORT_OWN_COLUMNS \
	"rp.redirected_to, rp.status, rp.mark, rt.state, rp.sent"
#define REPORT_JOINS \
	"LEFT JOIN reports rp ON rp.id = r.parent_id LEFT JOIN reports rt ON rt.id = r.thread_id "
#define REPORT_NR_COLUMNS 33

/* Prepared statements are kept for the life of the connection: preparing
 * was a quarter of a delivery's time.  The SQL texts are string literals,
 * so their address names them. */
#define STATE_STMT_CACHE 128	/* above the number of statement texts (about 70) */

struct cached_stmt {
	const char *sql;
	sqlite3_stmt *s;
	int busy;	/* handed out and not finished yet */
};

struct state {
	sqlite3 *db;
	char *path;		/* DIR/state.db, for messages */
	int in_tx;		/* inside state_begin() */
	int lazy;		/* state_set_durable(0) in force */
	struct cached_stmt cache[STATE_STMT_CACHE];
	size_t nr_cache;
	char *wal_path;		/* DIR/state.db-wal */
	int wal_fd;		/* state_writeback()'s and state_sync()'s, or -1 */
	int dir_synced;		/* state_sync() synced the directory */
};

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

/* state.c: names, statements, transactions, paths, outcomes as text, checks */
extern const char *const sdb_action_names[4];
extern const char *const sdb_kind_names[4];
extern const char *const sdb_mark_names[3];
extern const char *const sdb_status_names[4];
extern const char *const sdb_verdict_commands[4];
extern const char *const sdb_verdict_names[4];
char *sdb_col_str(sqlite3_stmt *s, int i);
int sdb_check_rcpts(const struct state_rcpt *rcpt, size_t nr, const char *reply,
		struct buf *err);
int sdb_check_reason(const char *s, int required, struct buf *err);
int sdb_check_report(const struct state_report *r, struct buf *err);
int sdb_check_text(const char *what, const char *s, int required, struct buf *err);
int sdb_exec_sql(struct state *st, const char *sql, struct buf *err);
int sdb_name_index(const char *const *names, size_t n, const char *s);
int sdb_rcpt_decode(const char *s, struct state_rcpt **out, size_t *nr);
int sdb_stmt_prepare(struct state *st, struct stmt *q, const char *sql, struct buf *err);
int sdb_stmt_run(struct stmt *q, struct buf *err);
int sdb_stmt_step(struct stmt *q, struct buf *err);
int sdb_tx_begin(struct state *st, int write, struct buf *err);
int sdb_tx_begin_one(struct state *st, struct buf *err);
int sdb_tx_end(struct state *st, int ret, struct buf *err);
int sdb_tx_end_one(struct state *st, int ret, struct buf *err);
int sdb_write_ints(struct state *st, const char *sql, size_t n, const int64_t *v,
		struct buf *err);
int64_t sdb_col_int(sqlite3_stmt *s, int i);
void sdb_bind_blob(struct stmt *q, const void *p, size_t n);
void sdb_bind_int(struct stmt *q, int64_t v);
void sdb_bind_opt(struct stmt *q, int64_t v);
void sdb_bind_text(struct stmt *q, const char *s);
void sdb_path_join(struct buf *out, const char *dir, const char *name);
void sdb_rcpt_encode(struct buf *b, const struct state_rcpt *rcpt, size_t nr);
void sdb_stmt_finish(struct stmt *q);

/* state-outbox.c: report rows */
int sdb_report_insert(struct state *st, const struct state_report *r, int64_t *id,
		struct buf *err);
int sdb_report_select_one(struct state *st, struct stmt *q, struct state_report *out,
		struct buf *err);

/* state-route.c: a report's MAINTAINERS people */
int sdb_report_set_maintainers(struct state *st, int64_t id, const char *addrs,
		struct buf *err);

/* state-track.c: its half of migration 6 */
int sdb_migrate_track(struct state *st, struct buf *err);
/* state-track.c: the posted fixes of list->v[from..] (only the report
 * with id `only`, unless it is 0), in the caller's read transaction.
 * state-posted.c: the link of report_id's fix to its posted fix
 * (state_fix_set()'s rule), in the caller's write transaction.  0 or -1. */
int sdb_posted_load(struct state *st, int64_t only, size_t from, struct state_tracked_list *list,
		    struct buf *err);
int sdb_fix_link_posted(struct state *st, int64_t report_id, struct buf *err);

#endif
