#ifndef PERFBOT_TRAILER_H
#define PERFBOT_TRAILER_H

/*
 * The trailers of a commit message or a patch mail, read as git reads them
 * (git's trailer.c; git-interpret-trailers(1)).  Pure: text in, key/value
 * pairs out; no libgit2, no configuration.
 *
 * The rule, as git applies it with no trailer.* configuration and the
 * default core.commentChar '#':
 *   - the end of the message: in TRAILER_MAIL mode, the first line that
 *     starts with "---" followed by a space, tab, CR or LF (a patch's
 *     divider: "---", "--- " and "---\t" lines; not "----", not a splat's
 *     "------------[ cut here ]------------", not "---" as the input's
 *     last bytes) ends it; the other modes have no divider.  Then trailing
 *     comment lines ('#' first), empty lines, "Conflicts:" blocks and
 *     everything from a "# ------------------------ >8 ---..." scissors
 *     line (ended by LF) on are set aside (git commit's leftovers);
 *   - the first paragraph is the title and holds no trailers;
 *   - the trailer block is the last paragraph (after the last line that
 *     is blank, that is empty or white space only), counted from its end,
 *     blank lines at the very end skipped: a block whose lines are all
 *     trailers, or at least 25% trailers with one line starting with a
 *     git-generated "Signed-off-by: " or "(cherry picked from commit ".
 *     Comment lines count for nothing; a line starting with white space
 *     continues the trailer above it (or counts as not a trailer when
 *     the lines above are not);
 *   - a trailer line is a key of ASCII letters, digits and '-' (at least
 *     one character), optional spaces or tabs, then ':' (git's default
 *     trailer.separators).  "Acked by: x" (a space inside the key) is
 *     not one;
 *   - what comes out, as `git interpret-trailers --parse` prints it: the
 *     key as written without the white space before ':', and the value:
 *     the rest of the line and its continuation lines, trimmed, each line
 *     break and the white space after it one space (git's unfold).  The
 *     spaces or CR before a line break stay, as they do in git ("a\r\n
 *     b" gives "a\r b").  A value may be "".
 * White space is space, tab, CR and LF (git's isspace), so CRLF lines
 * read as LF lines save for that CR.  The text ends at its first NUL, as
 * it does for git.
 *
 * The modes:
 *   TRAILER_NO_DIVIDER  `git interpret-trailers --parse --no-divider`;
 *   TRAILER_MAIL        `git interpret-trailers --parse`: a patch mail's
 *                       commit message ends at its divider;
 *   TRAILER_COMMIT      what `git log --format='%(trailers:only,unfold)'`
 *                       reads of a commit's message: the blank lines at
 *                       its start skipped, then no divider (a commit
 *                       message quoting a splat or a "---" line keeps
 *                       its trailers).
 *
 * Inputs are untrusted text of any length; what comes out is never longer
 * than what went in (plus a NUL per key and value), so it needs no limit.
 * Departure from git 2.39 (Debian 12's): a scissors line below a "---"
 * divider makes git 2.39 loop forever; this reads it as git 2.44 and
 * later do (the divider ends the message first).
 */

#include <stddef.h>

#include "buf.h"

enum trailer_mode {
	TRAILER_COMMIT,
	TRAILER_NO_DIVIDER,
	TRAILER_MAIL,
};

struct trailer {
	const char *key;	/* as written, e.g. "Reported-by" or "CLOSES" */
	const char *value;	/* on one line, trimmed; may be "" */
};

struct trailer_span;

/*
 * The trailers of one text.  Owns its strings; one list may be reused for
 * any number of trailer_parse() calls (each replaces what the last gave),
 * which spares the allocations in a loop over many commits.
 */
struct trailer_list {
	struct trailer *v;	/* nr trailers, in message order */
	size_t nr;
	/* private */
	size_t alloc;
	struct trailer_span *spans;
	size_t spans_alloc;
	struct buf text;	/* the keys and values, each NUL-terminated */
};

#define TRAILER_LIST_INIT { NULL, 0, 0, NULL, 0, BUF_INIT }

void trailer_list_init(struct trailer_list *l);
void trailer_list_release(struct trailer_list *l);

/*
 * One line read as git reads a trailer line (the key rule above): 1 when
 * line[0..len) is "<key><optional blanks>:<value>", with *key_len the
 * key's length without the blanks and *value_off the offset of what
 * follows ':' (untrimmed); 0 otherwise.  For texts where a trailer may be
 * any line rather than the last paragraph's (reply.h: a reply's review
 * tags), so that what counts as a trailer line is the same everywhere.
 */
int trailer_line_split(const char *line, size_t len, size_t *key_len, size_t *value_off);

/*
 * Reads the trailers of text[0..len) (untrusted; it need not be
 * NUL-terminated) in mode into l, replacing what l held: l->nr may be 0.
 * The strings stay valid until the next trailer_parse() on l or its
 * release.  Cannot fail (out of memory is fatal in xmalloc).
 */
void trailer_parse(struct trailer_list *l, const char *text, size_t len, enum trailer_mode mode);

#endif
