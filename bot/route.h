#ifndef PERFBOT_ROUTE_H
#define PERFBOT_ROUTE_H

/*
 * Routing (perfbot-mail(7), Recipients): the MAINTAINERS selection for a report's head
 * commit, as the kernel's get_maintainer.pl --no-git --no-git-fallback
 * makes it (bot/maintainers.h), read from git only (bot/patch.h,
 * repo_tree_blob()): the repository may be bare.
 *
 * Routing is on for a commit when route.maintainersFile is not "none" and
 * names a file in the commit's tree.  The commit is routed by its diff
 * against its first parent (a root commit against the empty tree, a merge
 * by everything it brings to its first parent's branch); a commit whose
 * patch passes bot/patch.h's limits is not routed, with that reason.
 *
 * A MAINTAINERS file is parsed once per run per blob id (struct route
 * keeps what it parsed), and, when a cache folder is given, once for all
 * runs: the parse is kept there as an image (maintainers_image()) named
 * maintainers-BLOBID, written atomically (temp file, fsync, rename), that
 * the next run reads instead of inflating and parsing the blob.  An image
 * that is missing, unreadable or fails any check is made again; one that
 * cannot be written only costs the next run the parse.  The folder keeps
 * the ROUTE_CACHE_KEEP images used last (a file's mtime is its last use).
 */

#include <stddef.h>

#include "buf.h"
#include "config.h"
#include "maintainers.h"
#include "repo.h"

#define ROUTE_RUN_KEEP 8	/* parsed files a run keeps (by blob id) */
#define ROUTE_CACHE_KEEP 8	/* images the cache folder keeps */

struct route;

struct route_result {
	int on;			/* the commit was routed */
	char *off;		/* when not: why, one lowercase phrase */
	char blob[41];		/* the MAINTAINERS blob routed with ("" when off) */
	const char *file;	/* route.maintainersFile (config's string) */
	const char *file_notes;	/* maintainers_notes() of that file (owned by
				 * the struct route: valid until route_free()) */
	struct maintainers_selection sel;	/* lists, and M:/R: people as
						 * route.maintainers/reviewers say */
	char **steerers;	/* every M: and R: address of the selected
				 * sections, lowercase, sorted, unique: the
				 * people who may steer the report */
	size_t nr_steerers;
};

/*
 * A router for one run over repo (kept, not owned), with cfg's route.*
 * keys.  cache_dir: the folder of images, or NULL for none; it is created
 * (0700) when its parent exists.  Never fails.
 */
struct route *route_new(const struct config *cfg, struct repo *repo, const char *cache_dir);
void route_free(struct route *r);

/*
 * Routes commit id (40 hex digits).  0 with *out filled (release it with
 * route_result_release(), also after a failure): routed, or out->on 0 with
 * out->off saying why not; -1 with a message for a MAINTAINERS file that
 * cannot be read (a git error, a limit of bot/maintainers.h passed).
 */
int route_commit(struct route *r, const char *id, struct route_result *out, struct buf *err);
void route_result_release(struct route_result *res);

/* How the last routing got its MAINTAINERS: "parsed" (read from git and
 * parsed), "cached" (earlier in this run), "image" (the cache folder's);
 * for -v and the benchmark. */
const char *route_source(const struct route *r);

#endif
