#ifndef PERFBOT_PATCH_H
#define PERFBOT_PATCH_H

/*
 * A commit as a patch, read with libgit2 from the repository (bare or
 * not; no work tree is used): the paths it changes and the text
 * `git format-patch` would print for it, which is what the kernel's
 * get_maintainer.pl reads (bot/maintainers.h matches K: keywords in it).
 *
 * What is compared: the commit's tree against its first parent's, rename
 * detection on (git's default 50% similarity, as `git format-patch`); a
 * root commit against the empty tree (every file added, as `git
 * format-patch --root`); a merge commit against its first parent only,
 * that is everything the merge brought into the branch (`git
 * format-patch` would skip a merge; routing it by what it changes on the
 * branch it lands on is what a report about it needs).
 *
 * files: every path the diff names, both names of a rename, added,
 * deleted and mode-changed files, as in the repository (no "a/"),
 * sorted in byte order, each once.
 *
 * text, in `git format-patch` order:
 *     From <id> Mon Sep 17 00:00:00 2001
 *     From: <author name> <<author email>>      (as in the commit: no .mailmap)
 *     Date: <author date, RFC 5322>
 *     Subject: [PATCH] <summary>
 *
 *     <body>
 *     ---
 *      <diffstat: names abbreviated as git does at format-patch's 72 columns>
 *      <N files changed, ...>
 *      <summary: create/delete mode, rename (NN%), mode change>
 *
 *     <the diff, 3 lines of context>
 * Departures, none of which holds text a K: keyword could be meant for:
 * no RFC 2047 encoding or folding of the From:/Subject: lines, no
 * +/- histogram in the diffstat, binary files as their "GIT binary
 * patch" line without the data, no "-- " signature.
 *
 * Limits (each an error): PATCH_MAX_FILES paths, PATCH_MAX_TEXT bytes of
 * text (the diff of a huge commit: its paths still route it, but its text
 * would not be bounded).
 */

#include <stddef.h>

#include "buf.h"
#include "repo.h"

#define PATCH_MAX_FILES 10000		/* paths a commit changes */
#define PATCH_MAX_TEXT (32u << 20)	/* bytes of its patch text */

struct patch {
	char **files;		/* sorted, unique; owned */
	size_t nr_files;
	struct buf text;	/* the format-patch text */
};

/*
 * Reads commit id (40 hex digits, as struct commit_info has it) of r into
 * *out (release with patch_release()).  -1 with a message for an id that
 * is not a commit of r, an unreadable object or a limit passed.
 */
int patch_from_commit(struct repo *r, const char *id, struct patch *out, struct buf *err);
void patch_release(struct patch *p);

#endif
