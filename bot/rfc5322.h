#ifndef PERFBOT_RFC5322_H
#define PERFBOT_RFC5322_H

/*
 * The one reader of RFC 5322 header text, for every part of perfbot that
 * reads mail (mail.h for ingest, `parse` and the store's recovery,
 * archive-meta.h for the archive's commits).  Pure: no I/O, no
 * allocation that outlives a call except what the caller owns.  All
 * input is untrusted.
 *
 * Three layers:
 *   - the header block: rfc5322_next() hands out one field after the
 *     other (name, raw value with its continuation lines), in one of two
 *     readings of the lines (RFC 5322's, or public-inbox's, see
 *     RFC5322_PI_LINES); rfc5322_unfold() makes a value one line;
 *   - the tokens of a structured field body (rfc5322_tokenize()): white
 *     space, comments (nested, quoted pairs), quoted strings, <...>,
 *     specials, atoms;
 *   - msg-ids (rfc5322_ids(), rfc5322_message_id()).  Addresses are read
 *     from the tokens by address.h, RFC 2047 encoded-words by rfc2047.h,
 *     MIME parameters by rfc2045.h.
 *
 * Limits: the reader notes (rfc5322_reader.long_line) the first line
 * longer than the caller's line_max and counts lines and fields; what to
 * do when one is reached is the caller's (mail.h drops the field,
 * archive.h refuses the message).  Ids are bounded by RFC5322_MAX_ID and
 * RFC5322_MAX_IDS.
 */

#include <stddef.h>

#include "buf.h"
#include "problem.h"

#define RFC5322_MAX_ID 998	/* bytes in one msg-id (a line) */
#define RFC5322_MAX_IDS 1000	/* ids read from one field */

/* Readings of the header block (flags for rfc5322_reader_init()). */
#define RFC5322_MBOX_FROM 1	/* a first line "From " (an mbox separator) that is
				 * not a field is passed over */
#define RFC5322_PI_LINES 2	/* public-inbox's reading (PublicInbox::Eml): a line
				 * with a blank before any ':' continues the field
				 * above, "Name:" must have its colon right after the
				 * name, and any other line that is not a field is
				 * passed over (it ends the field above) */

/* Where the reader is; the fields below are read-only for the caller and
 * valid after every rfc5322_next(). */
struct rfc5322_reader {
	const char *raw;
	size_t len;
	unsigned flags;
	size_t line_max;	/* set by the caller: long_line notes a longer line */
	size_t pos;		/* where the next line starts */
	size_t start;		/* where the header begins (after a "From " line) */
	size_t body;		/* where the body begins: after the empty line that
				 * ends the header, at the line that ended it
				 * (stray), or len when there is no body */
	size_t end;		/* offset just past the last header line read,
				 * without its line break */
	size_t lines;		/* header lines read (empty line not counted) */
	size_t fields;		/* fields handed out */
	size_t leading;		/* continuation lines before the first field,
				 * passed over */
	size_t stray;		/* RFC reading: the number (1-based) of the line that
				 * is neither a field nor a continuation and ended
				 * the header after a field; 0 when none */
	size_t long_line;	/* the number of the first line longer than
				 * line_max, 0 when none */
	int done;
};

/* One field as written. */
struct rfc5322_field {
	const char *name;	/* its name, without the blanks before the colon */
	size_t name_len;
	const char *value;	/* from just after the colon to the end of its last
				 * line, line breaks inside, the last one not */
	size_t value_len;
	size_t line;		/* the number (1-based) of its first line */
	size_t longest;		/* bytes of its longest line, line break not counted */
};

/* Starts reading the header of raw[0..len) (not NUL-terminated; may hold
 * NUL bytes).  line_max is SIZE_MAX (no note) until the caller sets it. */
void rfc5322_reader_init(struct rfc5322_reader *r, const char *raw, size_t len,
			 unsigned flags);

/*
 * The next field: 1 with *f set, 0 when the header has ended (at its
 * empty line, at a stray line, or at the end of raw; r->body then says
 * where the body starts).  Lines end in LF, CRLF, or CRs and LF (as
 * rfc5322_lf() reads them).  A field name is printable ASCII without ':'
 * (RFC 5322 §3.6.8; in the RFC reading white space may stand between it
 * and the colon, §4.5).
 */
int rfc5322_next(struct rfc5322_reader *r, struct rfc5322_field *f);

/* 1 when the field is named name, ignoring ASCII case. */
int rfc5322_is(const struct rfc5322_field *f, const char *name);

/*
 * Appends f's value as one line:
 *   - RFC reading (how 0): only the line breaks go (§2.2.3: "a \n b" is
 *     "a  b"), and a NUL byte becomes U+FFFD;
 *   - RFC5322_PI_LINES: as public-inbox's header_raw(): blanks at both
 *     ends trimmed, each line break and the blanks after it made one
 *     space, a NUL made a space.
 * Returns the number of bytes appended.
 */
size_t rfc5322_unfold(const struct rfc5322_field *f, unsigned how, struct buf *out);

/*
 * The message with each CRLF made LF (also a run of CRs before an LF; a
 * CR elsewhere stays): the bytes as the archive stores them.  Doing it
 * twice changes nothing, so that a mail read back from the archive gives
 * the bytes it was archived as.  Returns raw itself when it has no CR,
 * else tmp's data (tmp is reset first); *len is updated.
 */
const char *rfc5322_lf(const char *raw, size_t *len, struct buf *tmp);

/* ---- tokens of a structured field body ---- */

enum rfc5322_kind {
	RFC5322_ATOM,		/* a run of anything else (8-bit bytes included) */
	RFC5322_QUOTED,		/* "...": p, n is the inside, quoted pairs still in */
	RFC5322_COMMENT,	/* (...): the inside of the outer parentheses */
	RFC5322_ANGLE,		/* <...>: the inside (quoted strings in it skipped) */
	RFC5322_SPECIAL,	/* one of , ; : @ . [ ] > ) */
};

struct rfc5322_token {
	enum rfc5322_kind kind;
	const char *p;		/* into the tokenized string */
	size_t n;
	const char *start;	/* where the token begins, its opening quote or
				 * bracket included */
	const char *end;	/* just past it, its closing one included */
	int space_before;	/* white space or a comment came before it */
	int open;		/* a quoted string, comment or <...> that the
				 * string ended before it was closed */
};

/* Tokenizer modes. */
#define RFC5322_NO_COMMENTS 1	/* '(' and ')' are atom characters (git's
				 * "Name <email>" text has no comments) */

/*
 * Splits the NUL-terminated body into tokens (white space separates and
 * is not a token).  *out is a new array (free() it) of the returned
 * number of tokens, NULL when there are none; bounded by strlen(s).
 */
size_t rfc5322_tokenize(const char *s, unsigned mode, struct rfc5322_token **out);

/* Skips an RFC 5322 comment at p ('('), nested, with quoted pairs;
 * returns the position after it (the end of the string when it is not
 * closed). */
const char *rfc5322_skip_comment(const char *p);

/* The same for p[0..end) (not NUL-terminated: a NUL is ctext): the
 * position after the comment, or end when it is not closed. */
const char *rfc5322_comment_end(const char *p, const char *end);

/* Skips white space (CR and LF included) and comments. */
const char *rfc5322_skip_cfws(const char *p);

/* Appends the inside of a quoted string or comment with its quoted pairs
 * read ("\x" is x). */
void rfc5322_unquote(const char *p, size_t n, struct buf *out);

/* ---- msg-ids ---- */

/*
 * The ids in an In-Reply-To, References or Message-ID field body (NUL-
 * terminated, unfolded): each "<...>" with white space and comments
 * inside removed (but not inside a quoted local part, whose quotes stay);
 * words and quoted strings outside brackets (obsolete phrases) and
 * comments are skipped.  An id that is empty, unterminated, holds white
 * space inside quotes, is not printable ASCII, or is longer than
 * RFC5322_MAX_ID is dropped with a problem (prefixed with field; pr may
 * be NULL).  Appends at most RFC5322_MAX_IDS ids to *ids (malloc'd
 * strings, without <>; the array grows as ALLOC_GROW does).
 */
void rfc5322_ids(const char *field, const char *body, char ***ids, size_t *nr, size_t *alloc,
		 const struct problems *pr);

/*
 * The id of a Message-ID field body: the first one rfc5322_ids() reads,
 * else, as mail readers take it, a bare "left@right" without brackets
 * (with a problem saying so).  0 with id set (without <>), or -1 with a
 * problem when there is none.
 */
int rfc5322_message_id(const char *body, struct buf *id, const struct problems *pr);

#endif
