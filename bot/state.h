#ifndef PERFBOT_STATE_H
#define PERFBOT_STATE_H

/*
 * perfbot's state: the SQLite database DIR/state.db (perfbot(1), FILES) and the
 * run lock DIR/lock.  state.c and its kin (state-db.h) are the only files
 * that include <sqlite3.h>.
 *
 * What the database holds:
 *   - the outbox: every report and follow-up perfbot has rendered, with its
 *     Message-ID, recipients and the exact bytes to send, stored before the
 *     first delivery attempt and never changed once a recipient had
 *     them, so a retry sends the same bytes under the same Message-ID (a
 *     mail whose parent never went gets another In-Reply-To and References
 *     before it goes: state_report_rethread(); it cannot have been tried,
 *     since it waited for that parent);
 *   - the hourly send log (for perfbot.maxPerHour);
 *   - every message perfbot knows for threading (its own, sent, and the
 *     replies ingest archived), the #perfbot commands and trailers found in
 *     them, ingest cursors and the archive's tip.
 *
 * Durability: WAL journal with synchronous=FULL, so a commit that returned
 * survives kill -9 and power loss.  Every function below that changes
 * something is one transaction: it happens entirely or not at all.  To make
 * several changes one transaction (everything ingest learns from one mail),
 * wrap them in state_begin() / state_commit(); the functions then join that
 * transaction, and one that fails undoes only its own part.
 *
 * The delivery cycle of a report (a follow-up is the same):
 *
 *   state_report_add()            -> queued
 *   state_report_mark_sending()   queued|sending -> sending   (before DATA)
 *   state_report_mark_ended()     sending -> queued   a recipient is deferred
 *                                            (next_attempt set)
 *                                 sending -> sent     none deferred, one has it
 *                                 sending -> failed   every recipient refused
 *   state_report_mark_stopped()   queued|sending -> queued   (the session
 *                                 failed before the mail's transaction)
 *
 * Each envelope recipient has its own outcome (struct state_rcpt): a
 * recipient delivered or refused is final and never tried again; the
 * deferred ones are tried again, alone, with the same bytes.  A report's
 * `sent` is when a first recipient got it (it is archived then, once).
 *
 * The operator's marks, beside the status (state_report_act()): held (not
 * sent until released) and dropped (kept with its bytes, never sent).
 * With perfbot.redirectTo a report's envelope goes to one staging address
 * instead (redirected_to, recorded at its attempt): such a report is not
 * a known message, not archived and not a parent for follow-ups.
 *
 * A report left 'sending' by a run that died is due again at once: its
 * previous attempt may not have been accepted, so it is sent again, with
 * the same bytes.  Any other transition is refused with an error (a bug in
 * the caller, never a silent no-op).
 *
 * Threads: a struct state is used by one thread at a time.  It may move
 * between threads when the hand-over orders memory (worker.h does).
 *
 * Times are int64 seconds since the epoch, always passed in by the caller
 * (there is no clock in here); 0 means "none" in the fields that say so.
 *
 * Untrusted input: strings that come from mail (message ids, references,
 * names, subjects, commands, trailers) and from SMTP servers (replies).
 * They are stored as bound parameters, never spliced into SQL, and each
 * may be at most STATE_MAX_TEXT bytes (longer is an error, never a cut).
 *
 * Errors: -1 with one message naming the database in err; nothing changed.
 * Out of memory is fatal (xmalloc).
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "fixes.h"

#define STATE_SCHEMA_VERSION 11		/* what this perfbot writes and reads */
#define STATE_MAX_TEXT 65536		/* bytes in any one stored string */
#define STATE_MAX_MAIL (64u << 20)	/* bytes of one stored mail */
#define STATE_MAX_RCPT 1000		/* per-recipient results of one attempt */
#define STATE_BUSY_TIMEOUT_MS 10000	/* wait for another connection's write */
#define STATE_WAL_KEEP (32 << 20)	/* a WAL file up to this size stays at exit */
#define STATE_WAL_RESTART 256		/* frames (1 MB) of WAL a writer's close
					   starts again from its first */
#define STATE_LOCK_WAIT_MS 2000		/* how long state_lock() waits by default */

/* Returned (> 0) by the functions that say so. */
#define STATE_EXISTS 1		/* state_report_add(): already there, nothing changed */
#define STATE_BUSY 1		/* state_lock(): another process holds the lock */
#define STATE_REFUSED 2		/* state_report_act(), _set_verdict_by(): does not apply */

struct state;
struct state_lock;

enum state_kind {
	STATE_KIND_REPORT,
	STATE_KIND_FOLLOWUP,
	STATE_KIND_NOTICE,	/* a fix notice in a report's thread (perfbot-track(1)):
				   its parent is the report */
	STATE_KIND_DIGEST,	/* a digest (perfbot-digest(1)): its parent is the
				   previous digest, none for the first */
};

enum state_status {
	STATE_QUEUED,		/* waiting; next_attempt says from when */
	STATE_SENDING,		/* an attempt began and has not ended */
	STATE_SENT,		/* no recipient is deferred, and one has it */
	STATE_FAILED,		/* refused for good; last_reply says why */
};

/* The operator's mark on a report (state_report_act()). */
enum state_mark {
	STATE_MARK_NONE,
	STATE_MARK_HELD,	/* not sent until released */
	STATE_MARK_DROPPED,	/* kept, bytes and all, and never sent */
};

/* One envelope recipient's outcome.  A recipient without one (never
 * tried) is pending. */
enum state_rcpt_status {
	STATE_RCPT_DELIVERED,	/* the server took the mail for it: final */
	STATE_RCPT_DEFERRED,	/* 4xx, or a drop or timeout after RCPT: tried again */
	STATE_RCPT_REFUSED,	/* 5xx: final */
};

/* What the replies made of a report: its `state` in status --json. */
enum state_verdict {
	STATE_VERDICT_OPEN,
	STATE_VERDICT_INVALID,
	STATE_VERDICT_FIXED,
	STATE_VERDICT_DUPLICATE,
};

/* "report"/"followup"/"notice"/"digest", "queued"/..., "open"/...,
 * ""/"held"/"dropped", "delivered"/"deferred"/"refused" */
const char *state_kind_name(enum state_kind k);
const char *state_status_name(enum state_status s);
const char *state_verdict_name(enum state_verdict v);
const char *state_mark_name(enum state_mark m);
const char *state_rcpt_status_name(enum state_rcpt_status s);
/* The verdict named s ("open", "invalid", "fixed", "duplicate"); -1 if none. */
int state_verdict_parse(const char *s, enum state_verdict *out);

/* One envelope recipient's outcome: what its latest attempt decided.  As
 * input the strings are only read; as returned (struct state_report's
 * rcpt, state_report_results()) they are owned (state_rcpts_free()). */
struct state_rcpt {
	enum state_rcpt_status status;
	char *address;
	int code;		/* the SMTP reply code that decided it; 0 when none
				 * came (connection lost, a local error) */
	char *reply;		/* that reply's text, or the local error; "" if none */
};

void state_rcpts_free(struct state_rcpt *v, size_t nr);

/*
 * The status a report's recipients make (`rcpt`, every envelope
 * recipient's outcome after an attempt): queued while one is deferred,
 * else sent when one was delivered, else failed.
 */
enum state_status state_rcpt_outcome(const struct state_rcpt *rcpt, size_t nr);

/*
 * A report or follow-up in the outbox.  Plain data; every string is owned
 * (state_report_release() frees them).  Recipient lists hold one address
 * per line.  As input to state_report_add() only the fields marked (in)
 * are read; the others are set by the state functions that return reports.
 */
struct state_report {
	int64_t id;		/* row id, > 0 */
	char *message_id;	/* (in) without <>, unique */
	enum state_kind kind;	/* (in) */
	int64_t parent_id;	/* (in) follow-ups and notices: the mail it
				   answers (In-Reply-To); digests: the previous
				   digest, or 0; 0 for reports */
	int64_t thread_id;	/* the report that started the thread (own id
				   for a report); replies are counted there */
	char *thread_key;	/* (in) follow-up detection: tree family, head
				   commit, first testcase and headline */
	char *identity;		/* (in) render's identity text */
	char *subject;		/* (in) decoded Subject */
	char *from_name;	/* (in) the From: display name, "" if none */
	char *from_email;	/* (in) the From: address */
	char *in_reply_to;	/* (in) follow-ups: the parent's Message-ID; else NULL */
	char *refs;		/* (in) References, space-separated; NULL if none */
	char *env_from;		/* (in) envelope sender */
	char *env_rcpt;		/* (in) envelope recipients, one per line */
	char *to_addrs;		/* (in) To: addresses, one per line */
	char *cc_addrs;		/* (in) Cc: addresses, one per line ("" if none) */
	char *maintainer_addrs;	/* (in) the MAINTAINERS people of its sections
				   (route.h's steerers), one per line; NULL if
				   none; stored, not read back here (see
				   state_report_may_steer()) */
	char *mail;		/* (in) the complete rendered mail; NULL in
				   state_report_list() results */
	size_t mail_len;	/* (in) bytes in mail, 1..STATE_MAX_MAIL */
	char **sources;		/* (in) the spool names that went into it */
	size_t nr_sources;	/* (in) */
	int64_t created;	/* (in) creation time (the mail's Date) */
	int64_t next_attempt;	/* (in) not before this time; 0 = at once */
	enum state_status status;
	int attempts;		/* delivery attempts begun */
	int64_t last_attempt;	/* when the last one began; 0 = never */
	char *last_reply;	/* the server's last words, or NULL */
	int64_t sent;		/* when a first recipient got it; 0 = none yet */
	enum state_verdict verdict;
	enum state_verdict thread_verdict;	/* the verdict of the report that
						   started its thread (its own for a
						   report): a follow-up of a closed
						   report is never sent */
	char *redirected_to;	/* perfbot.redirectTo: where its envelope went
				   instead, recorded at its attempt; NULL = its
				   own recipients */
	char *parent_redirected_to;	/* follow-ups: the parent's redirected_to */
	enum state_status parent_status;	/* follow-ups: the parent's status */
	enum state_mark parent_mark;	/* follow-ups: the parent's mark */
	int64_t parent_sent;	/* follow-ups: the parent's sent, 0 = nobody has it */
	enum state_mark mark;	/* the operator's */
	char *mark_why;		/* the operator's reason for it, or NULL */
	struct state_rcpt *rcpt;	/* each envelope recipient's outcome so far,
					   in envelope order; none before the first
					   attempt */
	size_t nr_rcpt;
	size_t replies;		/* state_report_list(): ingested replies in the thread */
	size_t followups;	/* state_report_list(): follow-ups in the thread */
	char *tree;		/* (in) reports and follow-ups: the comparison's
				   tree, NAME/BRANCH; else NULL.  Read back by
				   state_tracked_list() */
	char *head;		/* (in) reports and follow-ups: the head commit,
				   40 hex digits; else NULL.  Likewise */
};

void state_report_release(struct state_report *r);

/* A list of reports; state_reports_release() frees them all. */
struct state_reports {
	struct state_report *v;
	size_t nr, alloc;
};

void state_reports_release(struct state_reports *list);

/* A mail perfbot knows for threading.  Owned strings; NULL = unknown. */
struct state_message {
	char *message_id;	/* without <> */
	int64_t report_id;	/* the report whose thread it is in; 0 = none */
	char *parent_message_id;/* the known message it hangs under, or NULL */
	char *in_reply_to;	/* as read, without <> */
	char *refs;		/* References, space-separated, without <> */
	char *from_name;
	char *from_email;
	int64_t date;		/* 0 = unknown */
	char *subject;
	int ingested;		/* 1: origin 'ingested'; 0: perfbot's own */
	int unsent;		/* perfbot's own that no server was recorded as
				   taking yet (queued, held, deferred, failed,
				   dropped; origin 'outbox'): known, and a reply
				   to it is kept, but delivery, not ingest,
				   archives it once it is sent */
	char *blob_oid;		/* in the archive; NULL until archived */
	char *commit_oid;
	int quarantined;	/* archived as-is because it would not parse */
	char *quarantine_reason;
};

void state_message_release(struct state_message *m);

struct state_messages {
	struct state_message *v;
	size_t nr, alloc;
};

void state_messages_release(struct state_messages *list);

/* An ingest cursor (what was read of one mail source). */
struct state_cursor {
	int64_t uidvalidity;	/* IMAP; 0 = none */
	int64_t last_uid;	/* IMAP; 0 = none */
	int64_t offset;		/* mbox: bytes read */
	char *fingerprint;	/* what identifies the source's content, or NULL */
};

void state_cursor_release(struct state_cursor *c);

/*
 * Opens DIR/state.db, creating DIR (mode 0700, with its parents) and the
 * database as needed, and brings the schema to STATE_SCHEMA_VERSION (each
 * migration one transaction, so reopening is harmless and a crash during
 * one leaves the previous version).  A database written by a newer perfbot
 * is refused.  0 with *out set (state_close() it), or -1.
 */
int state_open(const char *dir, struct state **out, struct buf *err);
/* Closes; rolls back an unfinished state_begin().  Accepts NULL. */
void state_close(struct state *st);
/*
 * How hard each commit holds: full (the default: fsync at every commit, so
 * nothing committed is lost even by a power cut) or not (WAL with
 * synchronous=NORMAL: a commit survives the process being killed, since
 * SQLite has written it to the operating system, but an operating-system
 * crash may drop the last commits).  Delivery marks use the second: a
 * dropped 'sent' mark only makes a delivered mail go out again with the
 * same Message-ID and bytes, which receivers and the archive drop; the
 * outbox itself (intake) is always written full.  While not full, the WAL
 * is not checkpointed either (a checkpoint copied each page of the outbox
 * back once per thousand pages written, a third of a delivery's database
 * time); going back to full checkpoints and syncs everything, and a
 * connection closed while not full leaves its commits in the WAL for the
 * next full writer to sync and copy back.  perfbot track uses it too:
 * what a run records is found again from git by the next run (its
 * cursors go with it), and a full commit after it (send marking a notice
 * sent) syncs the WAL, and so it, first.  0 or -1.
 */
int state_set_durable(struct state *st, int full, struct buf *err);

/* While commits are not full (state_set_durable()), makes every commit
 * so far as durable as a full one: one fdatasync of the WAL (and, the
 * first time, of the state's directory, which a WAL created meanwhile
 * needs).  The WAL is kept in commit order and read back only up to its
 * first torn frame, so later non-full commits can never survive a crash
 * without these.  Ingest calls it before the archive records a batch:
 * a message the archive holds is then always known to the database.
 * Nothing to do when full.  0, or -1 with a message. */
int state_sync(struct state *st, struct buf *err);

/* Starts the kernel writing the WAL's dirty pages to disk, without
 * waiting for it: while commits are not full (state_set_durable()), the
 * sync at the end then finds little left to write (a 1,000-mail delivery
 * leaves 10 MB).  Changes nothing SQLite relies on; errors are ignored. */
void state_writeback(struct state *st);

/* 1 when DIR/state.db exists, else 0: lets read-only commands (status)
 * show an empty state without creating one. */
int state_exists(const char *dir);

/* Groups the calls up to state_commit() into one transaction (not
 * nestable).  After any failure inside, call state_rollback(). */
int state_begin(struct state *st, struct buf *err);
/* A transaction that only reads (BEGIN, deferred): many reads under one
 * lock and one snapshot (perfbot site's); never write in it.  The
 * connection reads the file through a mapping from then on (a reader of
 * every report takes its pages from the page cache, not a pread() each).
 * state_commit() or state_rollback() ends it.  0 or -1. */
int state_begin_read(struct state *st, struct buf *err);
int state_commit(struct state *st, struct buf *err);
void state_rollback(struct state *st);

/*
 * Adds a queued report or follow-up (the (in) fields of r; see above).
 * A follow-up's parent must exist; its thread is the parent's.  Every
 * source name is recorded, so state_source_find() can tell that a spool
 * file already became a report.  0 with *id set (id may be NULL);
 * STATE_EXISTS with a message when the Message-ID or one of the source
 * names is already there (nothing changed); -1 on other errors (a missing
 * field, a limit, a missing parent, the database).
 */
int state_report_add(struct state *st, const struct state_report *r, int64_t *id,
		     struct buf *err);

/* The report with this id, mail included: 1 and *out filled (release it),
 * 0 when there is none, -1 on error. */
int state_report_get(struct state *st, int64_t id, struct state_report *out, struct buf *err);

/* Appends the stored mail of report id to out (its text alone, without
 * the report's row, for readers of many: the site): 1, 0 when there is
 * none, -1 on error. */
int state_report_mail(struct state *st, int64_t id, struct buf *out, struct buf *err);

/*
 * The newest report or follow-up (largest id) with this thread key whose
 * status is queued, sending or sent, that was not redirected and not
 * dropped before anyone got it, mail included: what a new comparison of
 * the same thing follows up.  1 and *out filled, 0 when there is none,
 * -1 on error.
 */
int state_report_find_by_thread_key(struct state *st, const char *thread_key,
				    struct state_report *out, struct buf *err);

/* The Message-ID of the newest report or follow-up with this thread key,
 * whatever became of it (a new report of the same comparison must not
 * get the same one): 1 and *message_id (malloc'd) set, 0 when there is
 * none, -1 on error. */
int state_report_last_message_id(struct state *st, const char *thread_key,
				 char **message_id, struct buf *err);

/* The id of the report or follow-up with this Message-ID (without <>):
 * 1 and *id set, 0 when there is none, -1 on error. */
int state_report_find_id(struct state *st, const char *message_id, int64_t *id,
			 struct buf *err);

/* 1 and *report_id set when the spool file NAME went into a report, 0 if
 * not, -1 on error.  (A send that died between committing a report and
 * removing its spool file finds the file again: this says it is done.) */
int state_source_find(struct state *st, const char *name, int64_t *report_id,
		      struct buf *err);

/*
 * Appends to *out (mail included, oldest first, at most limit; a limit of
 * 0, as when maxPerHour is used up, appends none) the reports due at now:
 * queued ones whose next_attempt is 0 or <= now, and every 'sending' one
 * (left by a run that died); never a dropped one.  Held ones are among
 * them (mark says so), for the caller to skip and say so.  Follow-ups are
 * among them whatever their parent's state (parent_status, parent_mark,
 * parent_sent say it): a follow-up goes only after the mail it answers
 * was accepted, which may happen earlier in the same run, so the caller
 * decides (delivery.h).  The order (by id) puts every parent before its
 * follow-ups.  The reports' sources are not loaded.  0 or -1.
 */
int state_report_due(struct state *st, int64_t now, size_t limit,
		     struct state_reports *out, struct buf *err);

/*
 * Appends to *out (mail included, oldest first, at most limit) the sent
 * reports that are not in the archive: a send killed after delivering
 * them but before the archive's batch was committed.  Call it after
 * store_open(), whose catch-up records what did reach the archive.  It
 * looks at every report sent: ask state_delivery_unfinished() first.
 * 0 or -1.
 */
int state_report_unarchived(struct state *st, size_t limit, struct state_reports *out,
			    struct buf *err);

/*
 * Appends to *out (mail included, oldest first, at most limit) the mails
 * that wait for a parent that can never go: queued, not dropped, nobody
 * has them, and their parent was dropped or refused by every recipient
 * (failed) before anybody had it.  Only those that can take their
 * parent's place: the parent has a parent of its own, or the mail is a
 * digest (which then starts a thread of its own).  0 or -1.
 */
int state_report_orphans(struct state *st, size_t limit, struct state_reports *out,
			 struct buf *err);

/*
 * Makes report id (queued, nobody has it) answer another mail: its parent
 * (0: none, a digest only), In-Reply-To (NULL: none), References (NULL:
 * none) and stored bytes mail (mail_len, the same mail with those fields
 * rewritten: message_rethread()) are replaced in one transaction, as is
 * its row among the known messages, if it has one.  Its Message-ID stays.
 * STATE_REFUSED (nothing changed) when it is no longer queued or somebody
 * has it.
 */
int state_report_rethread(struct state *st, int64_t id, int64_t parent_id, const char *in_reply_to,
			  const char *refs, const char *mail, size_t mail_len, struct buf *err);

/*
 * Whether a delivery run was cut short.  A run calls state_delivery_begin()
 * with its `now` before its first mail goes out, and state_delivery_end()
 * once its mail is counted in the send log and its archive batch is
 * committed.  A run killed in between leaves the mark, and the next one
 * repairs what it left: the send log from `since` (state_sent_recount())
 * and the archive (state_report_unarchived()).  Marks of several cut runs
 * keep the earliest `since`.
 * state_delivery_unfinished(): 1 with *since set, 0 when no run was cut
 * short, -1 on error.  The others: 0 or -1.
 */
int state_delivery_unfinished(struct state *st, int64_t *since, struct buf *err);
int state_delivery_begin(struct state *st, int64_t since, struct buf *err);
int state_delivery_end(struct state *st, struct buf *err);

/* queued|sending -> sending (not held or dropped): attempts + 1,
 * last_attempt = now, and redirected_to set to redirect unless it was set
 * before (NULL: none).  Commit this before sending DATA.  0 or -1. */
int state_report_mark_sending(struct state *st, int64_t id, int64_t now, const char *redirect,
			      struct buf *err);

/*
 * Ends the attempt that state_report_mark_sending() began.  rcpt is every
 * envelope recipient's outcome now (those tried in this attempt and those
 * final before; it replaces the stored list), and makes the status
 * (state_rcpt_outcome()): queued, due again at next_attempt, while one is
 * deferred; else sent; else failed.  reply: the server's final words (or
 * the local error) for last_reply.  When rcpt has a delivered recipient
 * and the report had none before, `sent` becomes now.  0 or -1.
 */
int state_report_mark_ended(struct state *st, int64_t id, int64_t now, int64_t next_attempt,
			    const char *reply, const struct state_rcpt *rcpt, size_t nr_rcpt,
			    struct buf *err);

/*
 * An attempt that the SMTP session's failure stopped before the mail's
 * transaction began (connection refused, timeout, greeting, TLS, AUTH):
 * queued|sending -> queued, attempts + 1, last_attempt = now, last_reply
 * = reply (the local error or the server's words), next_attempt set
 * unless it is 0 (then it stays: a configuration error does not push the
 * next attempt later).  The recipients' outcomes stay.  0 or -1.
 */
int state_report_mark_stopped(struct state *st, int64_t id, int64_t now, int64_t next_attempt,
			      const char *reply, struct buf *err);

/* Each envelope recipient's outcome so far (none before the first
 * attempt), in envelope order: *out is a new array of *nr
 * (state_rcpts_free()).  0 or -1. */
int state_report_results(struct state *st, int64_t id, struct state_rcpt **out,
			 size_t *nr, struct buf *err);

/* Mails sent in now's clock hour (UTC, epoch / 3600): what maxPerHour
 * limits.  From the send log, or while a delivery is unfinished (going on
 * or cut short) from the reports themselves.  0 with *count set, or -1. */
int state_sent_last_hour(struct state *st, int64_t now, int64_t *count, struct buf *err);
/* Counts count more mails sent in now's hour: once a delivery run, not
 * once a mail (a delivery's per-mail transaction stays small).  0 or -1. */
int state_sent_add(struct state *st, int64_t now, int64_t count, struct buf *err);
/* Sets the send log of every hour from since's on to what reports say was
 * sent then (a full scan of reports: for repairs only).  0 or -1. */
int state_sent_recount(struct state *st, int64_t since, struct buf *err);

/* Appends every report and follow-up to *out, oldest first, without the
 * mail bytes but with replies and followups counted.  0 or -1. */
int state_report_list(struct state *st, struct state_reports *out, struct buf *err);
/* Appends the same of thread id alone: the report id and its follow-ups,
 * by number. */
int state_report_list_thread(struct state *st, int64_t id, struct state_reports *out,
			     struct buf *err);

/* Sets a report's verdict (what a #perfbot command decided).  0 or -1
 * (also when there is no such report). */
int state_report_set_verdict(struct state *st, int64_t id, enum state_verdict v,
			     struct buf *err);

/* What an operator can do to a mail in the outbox (perfbot outbox). */
enum state_action {
	STATE_ACTION_HOLD,	/* queued (or left sending), not held -> held */
	STATE_ACTION_RELEASE,	/* held -> not held */
	STATE_ACTION_RETRY,	/* queued or sending, not held: the back-off is
				 * cleared (due at once); failed, or sent with a
				 * refused recipient: queued again, its refused
				 * recipients tried again */
	STATE_ACTION_DROP,	/* queued, sending, held or failed -> dropped:
				 * kept with its bytes, never sent */
};

/* "hold", "release", "retry", "drop" */
const char *state_action_name(enum state_action a);

/*
 * Does action a to report or follow-up id, and records it in the same
 * transaction as a command of `author` ("operator (root)") at now, with
 * why (may be NULL; required for a drop; one line, no control
 * characters, at most STATE_MAX_TEXT bytes) as its arguments.  0 when done;
 * STATE_REFUSED with a message saying why when a does not apply to the
 * report as it is (nothing changed); -1 on errors (no such report, the
 * database).
 */
int state_report_act(struct state *st, int64_t id, enum state_action a, const char *why,
		     const char *author, int64_t now, struct buf *err);

/*
 * Sets report id's verdict as the operator `author` decided, with why (may
 * be NULL), recorded as a command like a maintainer's ("reopen",
 * "invalid", "fixed", "duplicate") in the same transaction.  0;
 * STATE_REFUSED with a message when id is a follow-up (a thread's state
 * is its report's) or the report already has that verdict; -1 on errors.
 */
int state_report_set_verdict_by(struct state *st, int64_t id, enum state_verdict v,
				const char *why, const char *author, int64_t now,
				struct buf *err);

/*
 * Records a message (untrusted fields; message_id required), unless one
 * with the same Message-ID is already known: then nothing changes.
 * *is_new (may be NULL) says which.  0 or -1.
 */
int state_message_add(struct state *st, const struct state_message *m, int *is_new,
		      struct buf *err);
/*
 * The known messages are those recorded and every mail of the outbox
 * perfbot minted, sent or not (all but those redirected by
 * perfbot.redirectTo): a sent mail's row in messages is written with its
 * archive batch (state_message_set_archived()), and until then it is read
 * from reports (unsent while no server was recorded as taking it).
 * 1 and *out filled (release it), 0 when unknown, -1 on error.
 */
int state_message_find(struct state *st, const char *message_id, struct state_message *out,
		       struct buf *err);
/* Appends the messages of a report's thread, by date then Message-ID. */
int state_message_list(struct state *st, int64_t report_id, struct state_messages *out,
		       struct buf *err);
/* Notes where the message went in the archive, recording a sent report's
 * message first.  -1 if it is unknown. */
int state_message_set_archived(struct state *st, const char *message_id, const char *blob_oid,
			       const char *commit_oid, struct buf *err);

/*
 * Records a #perfbot command (name and args as parsed, author as
 * "Name <email>") found in a known message; report_id 0 = none.  Adding
 * the same (message, name, args) again changes nothing.  0 or -1.
 */
int state_command_add(struct state *st, int64_t report_id, const char *message_id,
		      const char *name, const char *args, const char *author, int64_t date,
		      struct buf *err);
/* A recorded command: a maintainer's #perfbot line, or an operator's
 * action (message_id NULL).  Owned strings. */
struct state_command {
	int64_t report_id;	/* the report or follow-up it is about; 0 = none */
	char *message_id;	/* the mail it came in, or NULL (the operator's) */
	char *name;
	char *args;
	char *author;
	int64_t date;		/* 0 = unknown */
	int applied;		/* 0: recorded, not applied (state_command_record()) */
	char *why;		/* why not, or NULL */
};

struct state_commands {
	struct state_command *v;
	size_t nr, alloc;
};

void state_commands_release(struct state_commands *list);

/* Appends the commands about the reports and follow-ups of thread_id's
 * thread (every command when thread_id is 0), by date, then as recorded.
 * 0 or -1. */
int state_command_list(struct state *st, int64_t thread_id, struct state_commands *out,
		       struct buf *err);

/* Records a trailer found in a known message; idempotent likewise. */
int state_trailer_add(struct state *st, const char *message_id, const char *key,
		      const char *value, struct buf *err);

/* ---- routing (perfbot-mail(7), Recipients): who may steer a report, what became of a
 * command, the addresses #perfbot unsubscribe took off every report ---- */

/*
 * 1 when address (ignoring ASCII case) may steer the thread of report
 * report_id: it is among the To or Cc, as sent, or the MAINTAINERS people
 * (maintainer_addrs) of a report or follow-up of that thread; 0 if not,
 * -1 on error.
 */
int state_report_may_steer(struct state *st, int64_t report_id, const char *address,
			   struct buf *err);
/* The maintainer_addrs of report id (malloc'd, NULL when none).  0 or -1. */
int state_report_maintainers(struct state *st, int64_t report_id, char **out, struct buf *err);

/*
 * Records a #perfbot command with its outcome: applied (it changed what
 * it names) or not, and why (NULL: nothing to say; for a command not
 * applied, the reason in words, e.g. "from x@y, who is not among ...").
 * state_command_add() is this with applied 1 and no why.  Adding the same
 * (message, name, args) again changes nothing.  0 or -1.
 */
int state_command_record(struct state *st, int64_t report_id, const char *message_id,
			 const char *name, const char *args, const char *author, int64_t date,
			 int applied, const char *why, struct buf *err);

struct state_trailer {
	int64_t report_id;	/* the report whose thread it is in; 0 = none */
	char *message_id;
	char *key;
	char *value;
};

struct state_trailers {
	struct state_trailer *v;
	size_t nr, alloc;
};

void state_trailers_release(struct state_trailers *list);
/* Appends the trailers recorded in the messages of report_id's thread
 * (0: of every message), in the order they were.  0 or -1. */
int state_trailer_list(struct state *st, int64_t report_id, struct state_trailers *out,
		       struct buf *err);

/* An address #perfbot unsubscribe took off every report. */
struct state_exclusion {
	char *address;		/* ASCII lowercase */
	char *who;		/* "Name <email>" of the sender, decoded UTF-8 */
	int64_t date;		/* when they asked */
	char *message_id;	/* the reply that asked; NULL if unknown */
};

struct state_exclusions {
	struct state_exclusion *v;
	size_t nr, alloc;
};

void state_exclusions_release(struct state_exclusions *list);
/* Adds the exclusion of x->address (replacing an earlier one).  0 or -1. */
int state_exclusion_add(struct state *st, const struct state_exclusion *x, struct buf *err);
/* Removes it: 1 when there was one, 0 when not, -1 on error. */
int state_exclusion_remove(struct state *st, const char *address, struct buf *err);
/* Appends every exclusion, by address.  0 or -1. */
int state_exclusion_list(struct state *st, struct state_exclusions *out, struct buf *err);
/* The same from DIR/state.db opened read-only, without state_open()'s
 * migrations (for commands that only render): none when there is no
 * database yet or it is older than the list.  0 or -1. */
int state_exclusion_read(const char *dir, struct state_exclusions *out, struct buf *err);

/* The cursor of source ("imap:URL", "mbox:PATH", ...): 1 and *out
 * filled (release it), 0 when there is none yet, -1 on error. */
int state_cursor_get(struct state *st, const char *source, struct state_cursor *out,
		     struct buf *err);
/* Creates or replaces it.  0 or -1. */
int state_cursor_set(struct state *st, const char *source, const struct state_cursor *c,
		     struct buf *err);

/* The last archive commit the database knows of in public-inbox epoch
 * `epoch` (git/EPOCH.git): 1 and *oid (malloc'd hex) set, 0 when none,
 * -1 on error. */
int state_archive_tip_get(struct state *st, int64_t epoch, char **oid, struct buf *err);
int state_archive_tip_set(struct state *st, int64_t epoch, const char *oid, struct buf *err);

/*
 * The run lock: DIR/lock taken with lock_take() (lock.h; DIR created
 * 0700 as state_open() does), so two perfbot runs never work on one state
 * at once.  Tries for wait_ms (STATE_LOCK_WAIT_MS for cron's `send`)
 * without blocking longer.  0 with *out set (state_unlock() it; the lock
 * also dies with the process), STATE_BUSY with "DIR/lock is held by
 * another perfbot (pid N) ..." when another process holds it (nothing
 * changed), -1 on error.
 * Two state_lock() calls in one process contend as two processes do.
 */
int state_lock(const char *dir, int wait_ms, struct state_lock **out, struct buf *err);
/* Releases the lock.  Accepts NULL. */
void state_unlock(struct state_lock *lock);

/* ---- fixes, watched refs, notices, digests ------------------------ */

/*
 * What perfbot knows of a report's fix (perfbot track, and #perfbot
 * fixed-by: through ingest).  One per report; a later fix replaces it
 * (bot/fixes.h decides which stands), and it is kept when a rebase drops
 * its commit or a #perfbot reopen sets it aside.  As input the strings
 * are only read; as returned they are owned (state_fix_release()).
 */
struct state_fix {
	int64_t report_id;
	char *commit;		/* 40 hex digits; the 4..40 digits a fixed-by
				   command gave while its commit is not in the
				   repository */
	char *subject;		/* the commit's subject; "" when unknown */
	char *ref;		/* the watched ref it is shown on; "" when it is
				   on none (yet) */
	int64_t date;		/* its committer date (UTC); 0 when unknown */
	enum fix_kind kind;	/* the evidence; never FIX_POSSIBLE */
	int64_t recorded;	/* when perfbot recorded it */
	int in_repo;		/* 1: the commit is in perfbot.repo */
	char *landed;		/* the watched refs it was found on, one a line,
				   in the order found; "" when none */
	int reopened;		/* 1: a #perfbot reopen came after it */
	char *posted;		/* as returned: the Message-ID of the posted fix
				   it is (state_fix_set() links them), or NULL;
				   as input not read */
};

void state_fix_release(struct state_fix *f);

/*
 * A fix posted to a list before it lands (perfbot-ingest(1), Posted
 * fixes): a patch mail whose trailers hold evidence for the report.  One
 * per report and Message-ID.  Owned strings when returned; as input to
 * state_posted_fix_add() only read.
 */
struct state_posted_fix {
	int64_t report_id;
	char *message_id;	/* without <> */
	char *subject;		/* as git am commits it (patchmail_subject()) */
	unsigned version;	/* 1.. (1 when the Subject names none) */
	char *author_name;	/* "" when none */
	char *author_email;	/* "" when none */
	int64_t date;		/* the mail's Date (UTC), else when it was read */
	enum fix_kind kind;	/* FIX_CLOSES, FIX_LINK or FIX_FIXES */
	int64_t recorded;	/* when perfbot recorded it */
	int latest;		/* as returned: no posted fix of the report with
				   the same subject has a higher version (or
				   the same version and a later date) */
};

/*
 * Records p, and links the report's fix to it when their subjects match
 * (state_fix_set()'s rule).  0, STATE_EXISTS when the report has that
 * Message-ID already (nothing changed), -1 on errors (a kind other than
 * closes, link or fixes; a text with a control character; no such
 * report).  Never changes the report's state.
 */
int state_posted_fix_add(struct state *st, const struct state_posted_fix *p, struct buf *err);
void state_posted_fix_release(struct state_posted_fix *p);

/* A possible fix (`Fixes:` naming the head commit without perfbot's
 * `Reported-by:`): listed, the report stays open.  One per report and
 * commit.  Owned strings when returned. */
struct state_possible_fix {
	char *commit;		/* 40 hex digits */
	char *subject;
	char *ref;		/* the watched ref it is shown on */
	int64_t date;		/* committer date (UTC) */
	int64_t recorded;
};

/* A report (kind report) as track, status and digest see it.  Owned. */
struct state_tracked {
	int64_t id;
	char *message_id;
	char *subject;
	char *tree;		/* NAME/BRANCH, or NULL when unknown (a report
				   queued before schema 6 whose Subject did not
				   say it) */
	char *head;		/* 40 hex digits, or NULL when unknown */
	char **followup_ids;	/* its follow-ups' Message-IDs, oldest first */
	size_t nr_followup_ids;
	enum state_status status;
	enum state_verdict verdict;
	int64_t created;
	int64_t sent;		/* 0: not sent */
	size_t replies;		/* ingested replies in its thread */
	int64_t last_activity;	/* the newest date of a known mail in its
				   thread; 0 when none */
	int has_fix;		/* 0: fix is empty */
	struct state_fix fix;
	struct state_possible_fix *possible;	/* in the order recorded */
	size_t nr_possible;
	struct state_posted_fix *posted;	/* its posted fixes, oldest first
						   (date, then version); only
						   with activity */
	size_t nr_posted;
};

/* Strings owned by the list (state_names_release()). */
struct state_names {
	char **v;
	size_t nr, alloc;
};

void state_names_release(struct state_names *n);

struct state_tracked_list {
	struct state_tracked *v;
	size_t nr, alloc;
	struct state_names trees;	/* state_tracked_list(): the trees its
					   reports and their follow-ups were on,
					   as state_report_trees() gives them */
};

void state_tracked_release(struct state_tracked *t);
void state_tracked_list_release(struct state_tracked_list *l);

/* Fills *out (empty) with every report (not follow-ups, notices or
 * digests), oldest first, with its fix and possible fixes, and the trees.
 * activity: 1 for everything (status, digest); 0 for what track needs
 * before its walk, read from an index alone: subject NULL, status queued,
 * sent, replies and last_activity 0, and of the fixes only those by
 * #perfbot fixed-by (its index looks for their commits), no possible
 * fixes: state_tracked_fixes() reads them for a report the walk found
 * evidence for.  One read transaction.  0 or -1. */
int state_tracked_list(struct state *st, int activity, struct state_tracked_list *out,
		       struct buf *err);
/* Appends report id's entry of state_tracked_list(st, 1, ...) (nothing
 * when id is no report), without the trees; the caller holds a read
 * transaction.  0 or -1. */
int state_tracked_list_of(struct state *st, int64_t id, struct state_tracked_list *out,
			  struct buf *err);
/* Reads t's fix (has_fix) and possible fixes again, whole, by t->id,
 * replacing what t had of them.  0 or -1. */
int state_tracked_fixes(struct state *st, struct state_tracked *t, struct buf *err);
/* The report id likewise: 1 and *out filled, 0 when there is no report
 * (of kind report) with that id, -1 on error. */
int state_tracked_get(struct state *st, int64_t id, struct state_tracked *out, struct buf *err);

/* The trees (NAME/BRANCH) reports and follow-ups were on, each once, in
 * the order of the first mail on it: what the default watched refs are
 * made of.  0 or -1. */
int state_report_trees(struct state *st, struct state_names *out, struct buf *err);

/* For a short run that commits little (track): state_close() leaves what
 * the WAL holds to the next checkpoint (SQLite's own, once the WAL passes
 * 1,000 pages, or state_set_durable()'s) rather than copying it into the
 * database file and syncing both at the end (3 to 8 ms of a 20 ms run).
 * Nothing committed is lost: a commit is in the WAL, synced, when it
 * returns. */
void state_defer_checkpoint(struct state *st);

/* Creates or replaces report f->report_id's fix (f->kind closes..fixed-by;
 * landed may be NULL for "").  Its posted fix is then the report's
 * posted fix whose subject equals the fix's (not ""), the highest
 * version, then the latest date, of them; NULL when none.  0 or -1 (no
 * such report, a limit). */
int state_fix_set(struct state *st, const struct state_fix *f, struct buf *err);
/* Marks the report's fix, if it has one, set aside by a #perfbot reopen.
 * 0 or -1. */
int state_fix_reopen(struct state *st, int64_t report_id, struct buf *err);
/* Creates or replaces the report's possible fix p->commit.  0 or -1. */
int state_possible_fix_set(struct state *st, int64_t report_id, const struct state_possible_fix *p,
			   struct buf *err);

/* The tip of ref examined last: 1 with tip (40 hex, NUL-terminated) set,
 * 0 when ref was never walked, -1 on error. */
int state_track_cursor_get(struct state *st, const char *ref, char tip[41], struct buf *err);
/* Records tip (40 hex digits) as ref's cursor, walked at now.  0 or -1. */
int state_track_cursor_set(struct state *st, const char *ref, const char *tip, int64_t now,
			   struct buf *err);

/* Whether a notice of the fix commit was queued for the report: 1 with
 * *notice_id (may be NULL) set, 0 if not, -1 on error. */
int state_notice_find(struct state *st, int64_t report_id, const char *commit, int64_t *notice_id,
		      struct buf *err);
/*
 * Queues a notice: mail (kind STATE_KIND_NOTICE, its parent the report,
 * as state_report_add() takes it) and the mark that the report's fix
 * commit is announced, in one transaction.  0 with *id set (may be NULL);
 * STATE_EXISTS when a notice of that commit for that report exists
 * (nothing changed); -1 on other errors.
 */
int state_notice_add(struct state *st, int64_t report_id, const char *commit,
		     const struct state_report *mail, int64_t *id, struct buf *err);

/* What a digest listed about a report: the state it had then, and the
 * fix commit for a fixed one.  Owned when returned. */
struct state_digest_entry {
	int64_t report_id;
	enum state_verdict verdict;
	char *fix_commit;	/* NULL unless fixed */
};

void state_digest_entries_free(struct state_digest_entry *v, size_t nr);

/* The newest digest queued (largest id), mail included: 1 and *out
 * filled, 0 when there is none yet, -1 on error. */
int state_digest_last(struct state *st, struct state_report *out, struct buf *err);
/* The reports' states as of digest digest_id, which recorded every report
 * that was not open: *out a new array of *nr (state_digest_entries_free()).
 * 0 or -1. */
int state_digest_entries(struct state *st, int64_t digest_id, struct state_digest_entry **out,
			 size_t *nr, struct buf *err);
/* Queues a digest (mail: kind STATE_KIND_DIGEST, its parent the previous
 * digest or 0) with the states of the reports as it lists them, in one
 * transaction.  0 with *id set (may be NULL), STATE_EXISTS when its
 * Message-ID exists, -1 on other errors. */
int state_digest_add(struct state *st, const struct state_report *mail,
		     const struct state_digest_entry *v, size_t nr, int64_t *id, struct buf *err);

/* ---- fix testing: what a lab needs to rerun a report, and the
 * "#perfbot test" requests (perfbot-requests(1)) ---- */

/* A report's job: its base and head commits (40 hex digits), its tree
 * and its tests as a JSON array (perfbot-json(5), the request file's "tests").
 * Owned strings. */
struct state_job {
	char *base;
	char *head;
	char *tree;		/* the comparison's tree, NAME/BRANCH */
	int regression;		/* it reports a regression (fix tests are for those) */
	char *tests;
};

void state_job_release(struct state_job *j);
/* Keeps report_id's job (replacing one kept before).  0 or -1. */
int state_job_set(struct state *st, int64_t report_id, const struct state_job *j,
		  struct buf *err);
/* The job of report_id (a report or follow-up), else of its thread's
 * report: 1 and *out filled, 0 when none was kept (a report made before
 * jobs were), -1 on error. */
int state_job_get(struct state *st, int64_t report_id, struct state_job *out, struct buf *err);

enum state_request_what { STATE_REQUEST_PATCH, STATE_REQUEST_COMMIT, STATE_REQUEST_GIT };
enum state_request_state {
	STATE_REQUEST_PENDING, STATE_REQUEST_TAKEN, STATE_REQUEST_ANSWERED,
	STATE_REQUEST_REFUSED, STATE_REQUEST_DROPPED
};

/* "patch", "commit", "git"; "pending", "taken", "answered", "refused",
 * "dropped" */
const char *state_request_what_name(enum state_request_what w);
const char *state_request_state_name(enum state_request_state s);

/* One "#perfbot test".  Owned strings when returned; as input to
 * state_request_add() only read.  NULL = none. */
struct state_request {
	int64_t id;		/* the request's number, N */
	int64_t report_id;	/* the report of its thread */
	char *message_id;	/* the request mail */
	char *requester_name;	/* "" when none */
	char *requester_email;
	int64_t requested;	/* the mail's date (else when ingested) */
	enum state_request_what what;
	char *args;		/* as written after "test" */
	char *subject;		/* the patch's subject */
	char *url, *branch;	/* what: git */
	char *commit_id;	/* the commit made (patch) or named (commit) */
	char *base, *head;	/* the report's */
	char *ref;		/* where the commit made is kept */
	enum state_request_state state;
	char *why;		/* refused or dropped: why */
	int64_t changed;	/* when its state last changed */
	char *verdict;		/* answered: the newest result's verdict ("fixed",
				   "partial", "worse", "not-fixed", verdict.h; "error"
				   when the kernel did not build or boot); else NULL */
	char *result_message_id;	/* answered: its first result mail */
	int64_t results;	/* result mails queued for it */
};

struct state_requests {
	struct state_request *v;
	size_t nr, alloc;
};

void state_request_release(struct state_request *r);
void state_requests_release(struct state_requests *list);
/* The id the next state_request_add() will get (in the same
 * transaction).  0 or -1. */
int state_request_next_id(struct state *st, int64_t *id, struct buf *err);
/* Records r (its id, when not 0, must be state_request_next_id()'s);
 * *id set.  STATE_EXISTS when the mail already made a request, -1 on
 * other errors. */
int state_request_add(struct state *st, const struct state_request *r, int64_t *id,
		      struct buf *err);
/* Requests of report_id's thread still pending or taken; requests by
 * email (ASCII case ignored) accepted since `since`.  0 or -1. */
int state_request_count_open(struct state *st, int64_t report_id, size_t *n, struct buf *err);
int state_request_count_since(struct state *st, const char *email, int64_t since, size_t *n,
			      struct buf *err);
/* Appends the requests of report_id's thread (every request when 0), by
 * number.  0 or -1. */
int state_request_list(struct state *st, int64_t report_id, struct state_requests *out,
		       struct buf *err);
/* 1 and *out filled, 0 when there is no request id, -1 on error. */
int state_request_get(struct state *st, int64_t id, struct state_request *out, struct buf *err);
/* Moves request id to state s (why: the reason, for dropped) at time
 * now, only from one of the states in mask (bits 1 << state).  1 when it
 * moved, 0 when it was in none of them, -1 on error. */
int state_request_set_state(struct state *st, int64_t id, enum state_request_state s,
			    unsigned mask, const char *why, int64_t now, struct buf *err);
/* Records a result of request id (taken, or answered before: a follow-up
 * result): answered with verdict, its first result mail result_mid kept
 * (the later ones answer it), the count of results raised.  Meant for the
 * transaction that queues the result mail (state_begin()).  1 when
 * recorded, 0 when the request is in another state, -1 on error. */
int state_request_answer(struct state *st, int64_t id, const char *verdict,
			 const char *result_mid, int64_t now, struct buf *err);

/*
 * The change log (schema 11, state-changes.c): SQLite triggers give the
 * thread head (the published report) of every report whose page, list
 * entry or status --json object a write touched a new seq, one above the
 * newest, so no code path can change a report unseen.  Report 0 stands
 * for every report (the exclusion list changed).  Cursors, the archive's
 * tip, track cursors, the send log and flags are not changes.  A state
 * migrated to schema 11 has every thread head at seq 1.
 */
struct state_changes {
	int64_t seq;		/* the newest seq (0: none yet) */
	int all;		/* report 0 was marked after since: every report */
	int64_t *ids;		/* thread heads marked after since, ascending */
	size_t nr, alloc;
};

/* The reports changed after seq since, as of st's read transaction
 * (state_begin_read(); else one of its own).  One indexed query and
 * MAX(seq).  A since above the newest seq (a seq of another state, or of
 * this one before a backup was put back) sets all.  0, or -1 with a
 * message. */
int state_changes_since(struct state *st, int64_t since, struct state_changes *out,
			struct buf *err);
void state_changes_release(struct state_changes *c);

#endif
