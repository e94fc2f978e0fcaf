#ifndef PERFBOT_TESTCOMMIT_H
#define PERFBOT_TESTCOMMIT_H

/*
 * The commit a "#perfbot test" request makes (perfbot-requests(1)): the
 * request's patch applied with libgit2 on the tree of the report's head
 * commit, as `git am` would apply it there, committed on top of that
 * commit and kept under a ref of the repository, so that the lab builds
 * it from its own clone.  Nothing is written to a work tree.
 *
 * The commit is a function of its inputs only (the dates are given), so
 * making it again after a crash gives the same id, and the ref is set
 * to it again: a request is made once however often ingest runs.
 *
 * Untrusted: the diff and the texts come from a mail; the diff has been
 * found and checked by patchmail.h, and libgit2 refuses what it cannot
 * apply.  Errors: -1 with one lowercase message in err; a patch that does
 * not apply names the file and the hunk
 * ("mm/memcontrol.c: hunk 2 (@@ -38,7 +38,7 @@) does not apply ...").
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "repo.h"

struct testcommit_input {
	const char *head;		/* 40 hex digits: the commit to apply on */
	const char *diff;		/* the patch (patchmail.h's diff) */
	size_t diff_len;
	const char *author_name;	/* the patch's author */
	const char *author_email;
	const char *committer_name;	/* perfbot.from */
	const char *committer_email;
	int64_t date;			/* author and committer date (epoch) */
	int zone;			/* minutes east of UTC */
	const char *message;		/* the whole commit message, ends in LF */
	const char *ref;		/* where to keep it: refs/perfbot/tests/N */
};

/*
 * Applies in->diff on in->head's tree, makes the commit and points
 * in->ref at it (replacing what it held).  0 with id (41 bytes) set to
 * the commit's 40 hex digits; -1 with a message: the patch does not
 * apply (the file and hunk named), head is not a commit, or the
 * repository cannot be written.
 */
int testcommit_make(struct repo *r, const struct testcommit_input *in, char id[41],
		    struct buf *err);

#endif
