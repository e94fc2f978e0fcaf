#ifndef PERFBOT_HISTORY_H
#define PERFBOT_HISTORY_H

/*
 * The commits of a watched ref that perfbot has not examined yet
 * (perfbot-track(1)), read with libgit2 from perfbot.repo.  perfbot never
 * fetches: the lab's cron does, before `perfbot track`.
 *
 * Unexamined means reachable from the ref's tip now and not from the tip
 * examined last time, the cursor (`git rev-list NEW ^OLD`).  That also
 * covers a ref that was rebased or force-pushed (the new tip does not
 * descend from the old): the commits the two share are not walked again,
 * and none of the new ones is missed.  Without a cursor (the first walk
 * of a ref) the walk goes back from the tip to the boundary time `since`:
 * newest commit first, it stops at the first commit whose committer date
 * is older, as `git rev-list --since` does (so a commit older than the
 * boundary is not examined even when a newer one merged it).  When the
 * cursor's commit is gone from the repository (pruned after a rebase),
 * the walk falls back to `since` likewise and says so.
 *
 * The walk is deterministic for a given tip, cursor and boundary, and
 * changes nothing: a run killed midway and run again walks the same
 * commits, so the caller stores what it found and the new cursor in one
 * transaction and a walk is re-examined idempotently.  Each commit is
 * examined once per ref; a commit on two refs is examined on each.
 *
 * Commit messages are untrusted text of any length; nothing here bounds
 * them (the trailers are what `git log --format='%(trailers)'` finds,
 * read by bot/trailer.h, handed on).
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "fixes.h"

struct repo;

struct history_result {
	char tip[41];		/* the ref's tip now, 40 hex: the cursor to store
				   with the findings; "" when the ref is missing */
	size_t examined;	/* commits handed to the callback */
	size_t parsed;		/* of those, the ones whose trailers were read */
	int missing;		/* 1: the ref (or what it points at) does not
				   exist: nothing walked; keep the old cursor */
	int cursor_lost;	/* 1: the cursor's commit is gone: walked back
				   to `since` instead */
};

/*
 * The pre-filter: 1 when the commit (id, its raw message) may carry
 * evidence, so its trailers and revert line are read; 0 to hand it on
 * without them.  fix_index_wants() fits.
 */
typedef int history_want_fn(const char *id, const char *message, void *data);

/*
 * Called once per unexamined commit, newest first, with its facts (valid
 * during the call): id, subject (git's summary: the first paragraph on
 * one line), committer date (UTC seconds) and, when the pre-filter said
 * yes (or there is none), its trailers (TRAILER_COMMIT of bot/trailer.h:
 * keys as written, values on one line as git prints them) and the commit
 * it reverts.  Otherwise nr_trailers is 0
 * and reverts NULL.  Returns 0 to go on, or -1 with a message in err to
 * stop the walk.
 */
typedef int history_commit_fn(const struct fix_commit *c, void *data, struct buf *err);

/*
 * Walks ref (a full reference name, e.g. "refs/remotes/linus/master";
 * trusted-but-checked configuration) from its tip down to cursor (the
 * tip of the previous walk, 40 hex digits, or NULL or "" for none), or
 * to the boundary time since (seconds since the epoch, UTC; 0 for none)
 * when there is no cursor or its commit is gone.  want may be NULL (every
 * commit's trailers are read).  Fills *out.  A missing ref is not an
 * error: 0 with out->missing set.  -1 with a message naming the ref for
 * an invalid ref name or cursor, a ref that does not lead to a commit, a
 * repository error, or when fn stopped the walk (fn's message kept).
 */
int history_walk(struct repo *r, const char *ref, const char *cursor, int64_t since,
		 history_want_fn *want, history_commit_fn *fn, void *data,
		 struct history_result *out, struct buf *err);

/*
 * Whether commit (4..40 hex digits) has landed on ref: it is the ref's
 * tip or an ancestor of it.  1 yes, 0 no (also for a missing ref or a
 * commit the repository does not have), -1 with a message for an invalid
 * ref name or commit id, an ambiguous id or a repository error.
 */
int history_contains(struct repo *r, const char *ref, const char *commit, struct buf *err);

/* A commit's facts, as a `#perfbot fixed-by:` needs them. */
struct history_commit {
	char id[41];		/* the full id, 40 lowercase hex digits */
	char *subject;		/* git's summary; "" if none (owned) */
	int64_t date;		/* committer date (UTC) */
};

void history_commit_release(struct history_commit *c);

/*
 * The commit that commit (4..40 hex digits, from a mail: untrusted but
 * checked) names: 1 with *out filled (release it), 0 when the repository
 * has no such commit, -1 with a message for an invalid id, an ambiguous
 * one (naming it) or a repository error.
 */
int history_lookup(struct repo *r, const char *commit, struct history_commit *out, struct buf *err);

#endif
