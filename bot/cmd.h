#ifndef PERFBOT_CMD_H
#define PERFBOT_CMD_H

#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "delivery.h"
#include "opt.h"
#include "state.h"
#include "value.h"

/*
 * The commands.  Each cmd_NAME() gets argv starting at the command's name,
 * prints its own output and errors, and returns a <sysexits.h> exit code.
 * Only main.c and cmd-*.c print or choose exit codes.
 */

struct cmd_options {
	const char *config_path;	/* --config, or NULL */
	int verbose;			/* -v count */
	int64_t now;			/* the run's clock: PERFBOT_NOW (tests pin
					 * it) or time(NULL) */
};

/*
 * Parses a command's arguments with opt_parse() (opt.h).  0: go on, with
 * *args set (release it).  1: the command is over and returns *rc: 0
 * after -h/--help printed the help on stdout, EX_USAGE after the message
 * and the usage line went to stderr.
 */
int cmd_parse_options(const struct opt_spec *spec, int argc, char **argv,
		      struct opt_args *args, int *rc);

/* For a usage error a command finds itself (arguments that do not go
 * together): prints "NAME: message" and the usage line on stderr and
 * returns EX_USAGE. */
int cmd_usage_error(const struct opt_spec *spec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Reads a report number given on the command line: 1 with *out set when s
 * is decimal digits (1 and up), 0 when s is not a number at all (it may
 * be a Message-ID), -1 with a message when it is digits but 0 or too
 * large for a report number.
 */
int cmd_report_number(const char *s, int64_t *out, struct buf *err);

/* A Message-ID given on the command line without its <> (malloc'd). */
char *cmd_strip_angles(const char *id);

/*
 * A report's fix, possible fixes and posted fixes (perfbot-track(1),
 * perfbot-ingest(1)), the one way status and thread show them: lines for
 * people, each starting with indent (of the posted fixes, the latest
 * versions only), and the JSON of perfbot-status(1) ("fix": null or an
 * object, its "posted" a Message-ID or null; "possible_fixes" and
 * "posted_fixes": lists), added to o.
 */
void cmd_fix_lines(struct buf *out, const char *indent, const struct config *cfg,
		   const struct state_tracked *t);
void cmd_fix_json(struct value *o, const struct state_tracked *t);

/* A time for --json: RFC 3339 in UTC, or null when t is 0 (not yet). */
struct value *cmd_json_time(int64_t t);

/* What a report's delivery is, apart from any mark of the operator's: its
 * status, and for one still queued "deferred" when an attempt failed or a
 * recipient waits, else "queued". */
const char *cmd_queue_word(const struct state_report *r);

/* Appends what decided a recipient's outcome o, for people: the server's
 * "CODE text", or "local error: TEXT" when no reply came (the connection
 * lost, a timeout: code 0), never a code 0. */
void cmd_rcpt_words(struct buf *out, const struct state_rcpt *o);

/* 0 when an operator's --why TEXT is one line of printable text (status
 * prints it as one), else -1 with a message. */
int cmd_check_reason(const char *why, struct buf *err);

/* The author of an operator's action: "operator (USER)", USER being the
 * name of the effective user (its number when it has none); malloc'd. */
char *cmd_operator(void);

/* Appends what w (delivery_waiting() of r, ending at until) means to an
 * operator: "held by the operator: WHY", "waiting for back-off until
 * TIME", "over perfbot.maxPerHour until TIME", ... */
void cmd_describe_wait(struct buf *out, enum delivery_wait w, int64_t until,
		       const struct state_report *r);

/*
 * Takes the run lock of perfbot.state (the one send, track, digest and the
 * operator's actions share), waiting STATE_LOCK_WAIT_MS.  0 with *lock
 * set (state_unlock() it); 1 when the command is over, with the reason
 * printed as "NAME: ..." and *rc set: EX_TEMPFAIL when another perfbot
 * holds it (nothing done), EX_CANTCREAT when it cannot be taken.
 */
int cmd_lock(const char *name, const struct config *cfg, struct state_lock **lock, int *rc);

/*
 * Where the first read of a new NNTP group or IMAP mailbox starts (ingest
 * --since): midnight UTC of the day `since` names ("YYYY-MM-DD", or an
 * ISO 8601 time as date_parse_iso8601() reads it, whose day is taken);
 * without it, the day of the oldest open report's creation; with no open
 * report, the day of if_none (NNTP passes now: nothing older is read from
 * a list, there being no report a reply could answer), or 0 when if_none
 * is 0 (IMAP: the lab's own mailbox is read whole, as before --since
 * existed).  *why says which ("2026-11-30, the day of the oldest open
 * report's creation").  0, or -1 with a message (a bad date, the state
 * database).
 */
int cmd_ingest_since(struct state *st, const char *since, int64_t if_none, int64_t *day,
		     struct buf *why, struct buf *err);

int cmd_outbox(int argc, char **argv, const struct cmd_options *opts);
int cmd_report(int argc, char **argv, const struct cmd_options *opts);

/* One command of the dispatcher: main.c's table is an array of these,
 * ended by one whose name is NULL. */
struct cmd_entry {
	const char *name;
	int (*run)(int argc, char **argv, const struct cmd_options *opts);
	const char *summary;	/* one line, for perfbot --help */
};

/*
 * perfbot help [COMMAND|TOPIC] (cmd-help.c): shows a page with man(1)
 * (the header comment of cmd-help.c says where pages are looked for).
 * commands is main.c's table: it tells a command from a topic, and prints
 * a command's --help when the page cannot be shown.
 */
int cmd_help(int argc, char **argv, const struct cmd_options *opts,
	     const struct cmd_entry *commands);

int cmd_check(int argc, char **argv, const struct cmd_options *opts);
int cmd_parse(int argc, char **argv, const struct cmd_options *opts);
int cmd_ingest(int argc, char **argv, const struct cmd_options *opts);
int cmd_thread(int argc, char **argv, const struct cmd_options *opts);
int cmd_send(int argc, char **argv, const struct cmd_options *opts);
int cmd_render(int argc, char **argv, const struct cmd_options *opts);
int cmd_queue(int argc, char **argv, const struct cmd_options *opts);
int cmd_recipients(int argc, char **argv, const struct cmd_options *opts);
int cmd_status(int argc, char **argv, const struct cmd_options *opts);
int cmd_site(int argc, char **argv, const struct cmd_options *opts);
int cmd_template(int argc, char **argv, const struct cmd_options *opts);
int cmd_track(int argc, char **argv, const struct cmd_options *opts);
int cmd_digest(int argc, char **argv, const struct cmd_options *opts);
int cmd_requests(int argc, char **argv, const struct cmd_options *opts);

/* A "#perfbot test" request as status, thread and requests show it: its
 * JSON object (perfbot-json(5), perfbot requests --json), and its words
 * ("DATE  Name <email>  patch 0123456789ab (\"subject\"): why"),
 * appended to out. */
struct value *cmd_request_json(const struct state_request *r);
void cmd_request_words(struct buf *out, const struct state_request *r);

#endif
