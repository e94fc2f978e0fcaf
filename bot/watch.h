#ifndef PERFBOT_WATCH_H
#define PERFBOT_WATCH_H

/*
 * The refs perfbot track watches for fixes (perfbot-track(1)), in the order that
 * decides which ref a fix is shown on.  Pure: the configuration and the
 * trees the reports were on in, a list out; whether a ref exists is the
 * walk's business (bot/history.h: a missing ref is walked as nothing).
 *
 * A tree is watched when it has a [tree "NAME"] section or a report:
 *   - at tree.NAME.ref when that is set (one ref for all its branches);
 *   - else at refs/remotes/NAME/BRANCH for each branch its reports and
 *     follow-ups were on (what `git remote add NAME URL && git fetch
 *     NAME` makes in perfbot.repo); a section without ref and without
 *     reports names no branch, so nothing of it is watched.
 * Order ("configuration order"): the trees with a section, in the order
 * of the file, then the others in the order of their first report; a
 * tree's branches in the order of their first report.  Each ref once.
 *
 * A report's own ref is its tree's ref (tree.NAME.ref, else
 * refs/remotes/NAME/BRANCH of its branch); fix_ref_rank() ranks it first.
 *
 * Trees come from the state database (comparisons perfbot took in): a
 * tree that is not NAME/BRANCH, or whose ref would not be a valid ref
 * name, watches nothing.
 */

#include <stddef.h>

#include "buf.h"
#include "config.h"

struct watch_ref {
	char *ref;		/* the full ref name */
	char *tree;		/* the NAME of the tree it belongs to */
	int configured;		/* 1: tree.NAME.ref (worth a warning when missing) */
};

struct watch {
	struct watch_ref *v;
	size_t nr;
};

/* Builds the list from cfg and the trees (NAME/BRANCH) reports were on,
 * in the order of their first report.  Cannot fail. */
void watch_build(const struct config *cfg, const char *const *trees, size_t nr_trees,
		 struct watch *out);
void watch_release(struct watch *w);

/* Appends the ref of tree (NAME/BRANCH) to out: 1, or 0 (nothing
 * appended) when tree is not NAME/BRANCH or its ref is no valid name. */
int watch_ref_of(const struct config *cfg, const char *tree, struct buf *out);

/* The position of ref in w, or FIX_REF_NONE when it is not watched. */
size_t watch_find(const struct watch *w, const char *ref);

/* The position of the own ref of a report on tree (NAME/BRANCH; NULL
 * when unknown) in w, or FIX_REF_NONE. */
size_t watch_own(const struct watch *w, const struct config *cfg, const char *tree);

/* How a watched ref is named to people: NAME when it is tree.NAME.ref,
 * else "NAME/BRANCH" for refs/remotes/NAME/BRANCH, "BRANCH" for
 * refs/heads/BRANCH, else the ref itself.  cfg may be NULL. */
void watch_ref_short(struct buf *out, const struct config *cfg, const char *ref);

#endif
