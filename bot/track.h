#ifndef PERFBOT_TRACK_H
#define PERFBOT_TRACK_H

/*
 * perfbot track (perfbot-track(1)): the commits of the watched refs that perfbot
 * has not examined yet are walked (bot/history.h), the evidence they
 * carry for the reports is found (bot/fixes.h), what stands is decided
 * and recorded, and, with perfbot.announceFixes, a notice goes into the
 * thread of each report that became fixed (bot/notice.h), queued in the
 * outbox for the next `perfbot send`.
 *
 *   - The refs are bot/watch.h's.  A ref without a cursor (its first
 *     walk, or a cursor whose commit is gone) is walked back to `since`:
 *     --since, else the creation of the oldest open report (with none
 *     open, nothing of it is walked: its cursor is set at its tip).
 *   - Findings are decided in the order found; the rules make the outcome
 *     independent of that order (fix_decide()).  A finding for a report
 *     marked invalid or duplicate is recorded, the state kept.
 *   - A notice is queued when a report becomes fixed by a commit's
 *     evidence (closes, link, revert, fixes): it was not fixed before the
 *     run, or only by a #perfbot fixed-by whose commit had not been seen;
 *     never twice for one report and fix commit, and only for a report
 *     that was sent.  A fix that replaces another trailer fix is recorded
 *     without one.
 *   - Everything one run learns (fixes, possible fixes, states, notices
 *     and every ref's new cursor) is committed in one transaction at the
 *     end: a run killed at any moment changed nothing, and the next one
 *     walks the same commits.  A second run with no new commits changes
 *     nothing.
 *   - One event line per finding (what it was, what it did); a line when
 *     a configured ref is missing or a ref's cursor commit is gone.
 *
 * dry_run: everything is walked and decided, nothing is written; the
 * notices that would be queued are appended to dry_mbox.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "eventlog.h"
#include "fixes.h"
#include "repo.h"
#include "state.h"
#include "template.h"

struct track {
	const struct config *cfg;
	struct state *st;
	struct repo *repo;		/* perfbot.repo; NULL: track_run() opens it (once
					   the state is read, so that libgit2 starts
					   meanwhile: repo_warm_up()) and closes it */
	struct template_set *templates;	/* for notices (render_template_set()) */
	int64_t now;
	int64_t since;			/* --since (UTC); 0: the oldest open report's creation */
	int dry_run;
	struct buf *dry_mbox;		/* dry_run: the notices, as mboxrd */
	int verbose;			/* a line per ref walked, and each missing ref */
	struct event_log log;
	/* counts, for the caller */
	size_t refs, examined, findings, fixed, possible, notices;
	int config_error;		/* track_run() failed: perfbot.repo cannot be opened */
};

/* One run.  -1 with a message for errors of the state database, the
 * repository (config_error says when it cannot be opened) or a notice's
 * template (nothing is then recorded). */
int track_run(struct track *t, struct buf *err);

/*
 * The fix index (bot/fixes.h) of the reports in list (state_tracked_list()
 * with or without activity) whose head commit is known: the Message-IDs
 * of each report and its follow-ups, its head, the commit a #perfbot
 * fixed-by named.  What track's walk and ingest's posted fixes both
 * look up.  0 with *ix set (fix_index_free()) and, when ix_report is not
 * NULL, *ix_report a new array from the index's report numbers to
 * list->v (free() it); -1 with a message for a report the index refuses.
 */
int track_index(const struct config *cfg, const struct state_tracked_list *list,
		struct fix_index **ix, size_t **ix_report, struct buf *err);

/*
 * A `#perfbot fixed-by: ARGS` for report report_id, as ingest meets it
 * (inside the caller's transaction): the commit ARGS starts with is
 * resolved in repo (NULL when perfbot.repo could not be opened: then it
 * counts as not found), the watched refs it has landed on are found, and
 * it becomes the report's fix (kind fixed-by; its ref the report's own
 * tree's when it is there, else the first watched ref holding it, else
 * none), unless the same commit is the fix already.  A commit that is not
 * in the repository is recorded with the digits given.  *what gets what
 * was found, for the event line: "0123456789ab ("subject"), on
 * linus/master", "... in the repository, on no watched tree yet", "abcd:
 * not found in the repository", or why nothing was recorded ("'x' is not
 * a commit id").  0, or -1 with a message for a state error.
 */
int track_fixed_by(const struct config *cfg, struct state *st, struct repo *repo, int64_t report_id,
		   const char *args, int64_t now, struct buf *what, struct buf *err);

#endif
