#ifndef PERFBOT_INTAKE_H
#define PERFBOT_INTAKE_H

/*
 * Intake: comparison JSONs become queued mails in the outbox (the first
 * half of `perfbot send`).
 *
 *   - Each file is validated as `render` would (JSON rules, commits); a
 *     spool file that fails is moved to spool/rejected/ with a .why file.
 *   - Files of the same tree and head commit are coalesced into one
 *     report (the first file's test leads; the others go to the "In
 *     addition" box and sections).  A spool group waits until its oldest
 *     file is perfbot.coalesceMinutes old, for more tests to arrive; files
 *     named on the command line go at once.
 *   - A comparison whose thread key (tree family, head commit, first
 *     testcase and headline) matches a report already queued or sent
 *     becomes a follow-up in that report's thread, never a second report;
 *     when the report was closed (a maintainer's #perfbot invalid, fixed,
 *     duplicate, a fix perfbot track found, or perfbot report --state)
 *     nothing is sent and the files are set aside with why.  The thread's
 *     report decides, whichever of its mails the follow-up would answer
 *     (the newest); delivery holds back a follow-up queued before the
 *     report was closed the same way (delivery_waiting()).
 *     A report that went to perfbot.redirectTo (staging), was dropped
 *     before anyone got it, or failed is no parent: the comparison is a
 *     new report, whose Message-ID also hashes the earlier one's
 *     (render_request.after), so the two differ even within a minute.
 *   - The rendered bytes and the Message-ID are stored in the outbox in one
 *     transaction with the names of the files they came from; only then
 *     are the spool files removed.  A run killed in between finds the
 *     files again, sees (state_source_find) that they are done, and
 *     removes them: nothing is lost and nothing is queued twice.
 *
 * dry_run changes nothing: no state write, no file moved; the mails that
 * would be queued are appended to dry_mbox instead.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "eventlog.h"
#include "config.h"
#include "render.h"
#include "state.h"

struct intake {
	const struct config *cfg;
	struct render_env *env;
	struct state *st;
	int64_t now;
	int dry_run;
	int flush;			/* send --flush: the coalescing wait ends now */
	struct buf *dry_mbox;		/* dry_run: the would-be mails, as mboxrd */
	struct event_log log;		/* one line per event */
	size_t queued, rejected, waiting;	/* counts, for the caller */
	size_t set_aside;		/* comparisons of a closed report: not an error */
};

/*
 * What a comparison of head (the resolved commit) becomes when it goes
 * into the outbox now, the one rule intake and `perfbot queue` share: a
 * new report, a follow-up of the newest mail of its thread (has_parent),
 * or nothing at all when a maintainer or the operator closed that thread.
 */
struct intake_plan {
	struct buf key;		/* the thread key: tree family, head, testcase, headline */
	int has_parent;		/* a follow-up of parent */
	struct state_report parent;
	struct render_parent render_parent;	/* parent, as render takes it */
	char **refs;
	size_t nr_refs;
	char *after;		/* a new report after one that is no parent: its
				 * Message-ID (render_request.after), or NULL */
};

/* 0 with *p filled (a report or a follow-up), 1 with why set when the
 * thread is closed, -1 on a database error.  st may be NULL (no state
 * yet): a new report.  Release *p with intake_plan_release() in every case. */
int intake_plan(struct state *st, const struct report *r, const char *head,
		struct intake_plan *p, struct buf *why, struct buf *err);
/* The render request for the plan (pointing into p and r). */
void intake_plan_request(const struct intake_plan *p, const struct report *r, int64_t now,
			 struct render_request *req);
void intake_plan_release(struct intake_plan *p);

/* Takes spool/incoming.  -1 only for errors that stop the run (the state
 * database, the spool folder); a bad file is a rejection, not an error. */
int intake_spool(struct intake *in, struct buf *err);

/* A spool file waiting, as intake_spool_waiting() sees it. */
struct intake_wait {
	char *name;		/* its spool name */
	int64_t until;		/* when its group goes (the group's oldest file
				 * is coalesceMinutes old); 0: at the next send */
	char *refused;		/* non-NULL: the next send refuses it, for this */
};

struct intake_waits {
	struct intake_wait *v;
	size_t nr, alloc;
};

void intake_waits_release(struct intake_waits *w);

/*
 * The files in spool/incoming and when each goes (for status): grouped as
 * intake_spool() groups them, by tree and head commit, the commit as the
 * file names it (no repository is opened: an abbreviated and a full id of
 * one commit count as two groups here).  Changes nothing.  0 or -1.
 */
int intake_spool_waiting(const struct config *cfg, int64_t now, struct intake_waits *out,
			 struct buf *err);

/* Takes the files named (not moved or removed: they are the operator's),
 * at once.  A file already taken in an earlier run (same path and
 * content) is not taken again. */
int intake_files(struct intake *in, char *const *paths, size_t n, struct buf *err);

#endif
