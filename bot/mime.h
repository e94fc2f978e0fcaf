#ifndef PERFBOT_MIME_H
#define PERFBOT_MIME_H

/*
 * MIME (RFC 2045-2046) for incoming mail, which is untrusted throughout.
 *
 * Two halves:
 *   - pure helpers perfbot runs in its own process: the Content-Type and
 *     Content-Disposition reader, the transfer decoders (quoted-printable,
 *     base64) and the boundary check;
 *   - mime_find_text(), the seam to libetpan's MIME parser, the only code
 *     that includes libetpan's MIME headers.  libetpan 1.9.4 has a heap
 *     overflow on boundary="\"" and other unfixed bugs, so the parser runs
 *     in a forked child with a time limit (MIME_CHILD_TIMEOUT), CPU and
 *     memory limits and no core dump; the child reports what it found
 *     through a pipe (at most MIME_MAX_REPORT bytes), and a child that
 *     crashes, hangs, or writes anything but a well-formed report leaves
 *     the message quarantined with the reason.  Before that, the boundary
 *     parameters of the whole message are checked, so the known-bad ones
 *     never reach libetpan at all.
 *
 * The caller owns everything returned; nothing here prints or exits.
 */

#include <stddef.h>

#include "buf.h"

#define MIME_MAX_DEPTH 20		/* nesting of multiparts */
#define MIME_MAX_PARTS 500		/* leaf parts in one message */
#define MIME_MAX_BOUNDARY 70		/* characters in a boundary (RFC 2046 §5.1.1) */
#define MIME_MAX_PARAM 1024		/* bytes in one parameter value */
#define MIME_MAX_PARAMS 64		/* parameters read from one field */
#define MIME_MAX_PROBLEMS 20		/* problems one MIME parse reports */
#define MIME_MAX_REPORT (256 * 1024)	/* bytes of the child's report */
#define MIME_CHILD_TIMEOUT 5		/* seconds the child may run */
#define MIME_CHILD_MEMORY (512UL << 20)	/* bytes of address space the child may add */

/* A Content-Type or Content-Disposition field, read leniently. */
struct mime_field {
	char *value;	/* "text/plain" or "attachment", lowercase; never NULL */
	char *charset;	/* charset=, as written; NULL when absent */
	char *boundary;	/* boundary=, unquoted; NULL when absent */
	char *format;	/* format=, lowercase ("flowed"); NULL when absent */
	char *delsp;	/* delsp=, lowercase ("yes"); NULL when absent */
	int has_name;	/* a name= or filename= parameter (RFC 2231 forms too) */
};

/*
 * Reads a Content-Type field body (with_subtype: "type/subtype") or a
 * Content-Disposition one (a single token), then its parameters: quoted
 * strings with quoted pairs, comments, white space anywhere, and, as mail
 * readers accept, unquoted values with '/', '=' or '?' in them.  The first
 * of a repeated parameter wins; a malformed parameter ends the list.
 * 0 with *out set (release it), or -1 with a message when there is no
 * valid type (then *out is empty and needs no release).
 */
int mime_field_parse(const char *body, int with_subtype, struct mime_field *out,
		     struct buf *err);
void mime_field_release(struct mime_field *f);

enum mime_encoding {
	MIME_7BIT,	/* also the default when the field is absent */
	MIME_8BIT,
	MIME_BINARY,
	MIME_QP,
	MIME_BASE64,
	MIME_UNKNOWN,	/* x-uuencode, garbage: read as 8bit */
};

/* The Content-Transfer-Encoding named in a field body (case and white
 * space ignored); NULL means absent. */
enum mime_encoding mime_encoding_of(const char *body);

/* The value of one hex digit (either case), else -1. */
int mime_hex_value(char c);

/* Skips an RFC 5322 comment at p ('('), nested, with quoted pairs;
 * returns the position after it (the end of the string when it is not
 * closed).  Bounded by the string's length. */
const char *mime_skip_comment(const char *p);

/* The value of one base64 character (A-Z a-z 0-9 + /), else -1. */
int mime_base64_value(unsigned char c);

/*
 * Transfer decoders, lenient as mail readers are.  Quoted-printable: "=XX"
 * (either case) is the byte, "=" at a line end (trailing white space
 * allowed) a soft break, any other "=" stays as it is; line breaks are
 * kept as they are.  Base64: white space is skipped, other characters
 * outside the alphabet are skipped and counted, padding may be missing
 * and may also appear between concatenated chunks.
 * Both append to out and return the number of malformed sequences (0 for
 * clean input), or -1 when out->limit was reached.
 */
long mime_decode_qp(const char *in, size_t len, struct buf *out);
long mime_decode_base64(const char *in, size_t len, struct buf *out);

/*
 * Checks every boundary parameter of every Content-Type field in
 * raw[0..len) (top level and nested, also text that only looks like such
 * a field, to stay on the safe side) before libetpan sees it: 1 to
 * MIME_MAX_BOUNDARY characters, printable ASCII, no quote or backslash
 * inside (the known libetpan crash), a closing quote, not in RFC 2231
 * form, and at most MIME_MAX_PARTS of them.  0, or -1 with why set to one
 * lowercase sentence.
 */
int mime_check_boundaries(const char *raw, size_t len, struct buf *why);

/* What mime_find_text() found in a multipart message. */
struct mime_text {
	int found;		/* a text/plain part that is not an attachment */
	size_t offset, length;	/* its body, still transfer-encoded, in raw */
	char *type;		/* its "type/subtype" ("text/plain"); NULL if !found */
	char *charset;		/* its charset as declared; NULL when none */
	char *encoding;		/* its Content-Transfer-Encoding; NULL when none */
	int flowed;		/* format=flowed (RFC 3676) */
	int delsp;		/* delsp=yes */
	int html_only;		/* no such part, but a text/html one */
	size_t attachments;	/* leaf parts that are attachments (disposition
				 * "attachment", or with a file name) */
	size_t parts;		/* leaf parts seen */
	char **problems;	/* oddities, one lowercase sentence each */
	size_t nr_problems;
	char *quarantine;	/* NULL, or why the structure could not be read */
};

struct mime_options {
	int no_isolation;	/* run libetpan in this process (fuzzing only) */
	unsigned timeout;	/* seconds for the child; 0 = MIME_CHILD_TIMEOUT */
	int no_boundary_check;	/* tests only: let known-bad input reach the
				 * child, to see the isolation work */
};

/*
 * Reads the MIME structure of the whole message raw[0..len) with libetpan
 * and picks the first text/plain part that is not an attachment, depth
 * first (so in multipart/alternative the plain text, in multipart/signed
 * the signed text; embedded message/rfc822 parts are not entered).
 * MIME_MAX_DEPTH and MIME_MAX_PARTS are enforced.  Never fails: whatever
 * goes wrong ends up in out->quarantine (with found 0), oddities in
 * out->problems.  opts may be NULL.  Release out with mime_text_release().
 * The child is waited for by its pid, so the caller must not set SIGCHLD
 * to SIG_IGN; stdio buffers are flushed before the fork, so that the
 * child cannot write them a second time.  A multipart message costs a
 * fork (about half a millisecond); single-part mail never comes here.
 */
void mime_find_text(const char *raw, size_t len, const struct mime_options *opts,
		    struct mime_text *out);
void mime_text_release(struct mime_text *t);

#endif
