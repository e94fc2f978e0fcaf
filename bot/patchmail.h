#ifndef PERFBOT_PATCHMAIL_H
#define PERFBOT_PATCHMAIL_H

/*
 * struct patchmail: the patch in one incoming mail (untrusted), found as
 * `git mailinfo --scissors` finds it, so that what perfbot tests is what
 * `git am` would apply.  Pure: the raw message in, the patch out; no I/O.
 *
 * The rules are git's (mailinfo.c), on the message as `git am` gives it
 * to mailinfo (a CR before each LF removed, as git mailsplit does):
 *   - the header is read with its From, Subject, Date, Content-Type and
 *     Content-Transfer-Encoding; a multipart message is walked line by
 *     line, every part in order (boundaries nested up to
 *     PATCHMAIL_MAX_BOUNDARIES), each part transfer-decoded
 *     (quoted-printable, base64) and format=flowed undone as git does,
 *     so an attached patch (text/x-patch, text/x-diff, text/plain or
 *     application/octet-stream) is found where it follows the text;
 *   - the message part ends at the first line where git's patchbreak()
 *     says a patch starts: "diff -", "Index: ", "--- FILE", or a "---"
 *     line of dashes and white space; that line and all after it are the
 *     patch file (diffstat included), byte for byte what git writes;
 *   - a scissors line ("-- >8 --", is_scissors_line()) discards the
 *     message above it, and in-body "From:", "Subject:", "Date:" lines at
 *     the top of the message (after a scissors line too) override the
 *     mail's header fields;
 *   - lines quoted with "> " never start a patch (no patch, as for git).
 * Then the patch is checked, as patchwork and git apply read it:
 *   - files: the paths the diff touches (the new name; the old one for a
 *     deletion), in diff order, without the a/ b/ prefixes;
 *   - base_commit: the hex of a "base-commit: " line (git format-patch);
 *   - every hunk's line counts ("@@ -a,b +c,d @@") against its lines; a
 *     line that cannot belong to the hunk before its counts are met, or a
 *     line that is not blank nor a patch line right after a hunk ends (the
 *     rest of a line a mail client wrapped), is a problem naming the file,
 *     the hunk and the line of the patch;
 *   - a second commit in the patch (a format-patch "From <hex> Mon Sep 17
 *     00:00:00 2001" line, or a file changed twice) is a problem: one
 *     patch at a time.
 * A patch file with no file diff in it (a "---" line in prose) is no
 * patch.  Problems are reasons not to test the patch: lowercase
 * sentences, valid UTF-8.
 *
 * Limits: PATCHMAIL_MAX_PATCH bytes of patch (more is a problem and the
 * patch is cut there), PATCHMAIL_MAX_FILES paths, PATCHMAIL_MAX_PROBLEMS.
 */

#include <stddef.h>

#include "buf.h"

#define PATCHMAIL_MAX_BOUNDARIES 5	/* nested multiparts, as git's MAX_BOUNDARIES */
#define PATCHMAIL_MAX_PATCH (8UL << 20)	/* bytes of patch */
#define PATCHMAIL_MAX_FILES 1000	/* paths listed */
#define PATCHMAIL_MAX_PROBLEMS 20

struct patchmail {
	char *subject;		/* git's Subject: "[PATCH ...]" and "Re:" removed,
				 * white space folded; UTF-8; "" when none */
	char *author_name;	/* as git's Author; UTF-8; "" when none */
	char *author_email;	/* as git's Email; "" when none */
	char *message;		/* the commit message body (below the subject), UTF-8 */
	char *diff;		/* the patch file's bytes (NUL-terminated; may hold
				 * bytes that are not UTF-8, as git writes them) */
	size_t diff_len;
	char **files;		/* paths the diff touches, UTF-8 (bad bytes U+FFFD) */
	size_t nr_files;
	char *base_commit;	/* lowercase hex, or NULL */
	char **problems;	/* why the patch cannot be tested */
	size_t nr_problems;
};

/*
 * Looks for the patch in the message raw[0..len) (untrusted, need not be
 * NUL-terminated).  Returns NULL when the mail holds no patch, else a new
 * struct patchmail (free it with patchmail_free()).  Never fails.
 */
struct patchmail *patchmail_read(const char *raw, size_t len);
void patchmail_free(struct patchmail *p);

/*
 * A Subject as `git am` commits it (git's cleanup_subject() and
 * cleanup_space(), as patchmail_read() reads its subject): from the front,
 * "Re:" (any case), ':', white space and every "[...]" removed, then each
 * run of white space one space, trimmed.  Into out (reset first).
 * *version (may be NULL) gets the patch's version: the first word "vN"
 * or "PATCHvN" (any case, N 1 to 9999) of the first removed bracket that
 * has one ("[PATCH v2 1/3]", "[PATCHv3]", "[RFC PATCH net v4]"), else 1.
 * subject is untrusted (NULL reads as ""); out is never longer.
 */
void patchmail_subject(const char *subject, struct buf *out, unsigned *version);

#endif
