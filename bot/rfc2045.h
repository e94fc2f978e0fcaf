#ifndef PERFBOT_RFC2045_H
#define PERFBOT_RFC2045_H

/*
 * MIME (RFC 2045, 2046, 2231) for incoming mail, the pure half: the
 * Content-Type and Content-Disposition reader with its parameters, the one
 * quoted-printable and the one base64 decoder, and the boundary check
 * that guards libetpan's MIME parser (mime-child.h).  No I/O, nothing
 * printed; all input is untrusted.  The caller owns what is returned.
 */

#include <stddef.h>

#include "buf.h"

#define RFC2045_MAX_BOUNDARY 70		/* characters in a boundary (RFC 2046 §5.1.1) */
#define RFC2045_MAX_BOUNDARIES 500	/* boundary parameters in one message */
#define RFC2045_MAX_PARAM 1024		/* bytes in one parameter value (continuations joined) */
#define RFC2045_MAX_PARAMS 64		/* parameters (or RFC 2231 sections) read from one field */

/* One parameter, RFC 2231 continuations joined and decoded. */
struct rfc2045_param {
	char *name;	/* lowercase, without "*N" or "*" */
	char *value;	/* as written for the plain form; for the RFC 2231
			 * extended form percent-decoded and converted from its
			 * charset to UTF-8 (charset.h); never NUL inside */
};

/* A Content-Type or Content-Disposition field, read leniently. */
struct rfc2045_field {
	char *value;	/* "text/plain" or "attachment", lowercase; never NULL */
	char *charset;	/* charset=, as written; NULL when absent */
	char *boundary;	/* boundary=, unquoted (the plain form only: the RFC 2231
			 * form is refused before libetpan, which does not read
			 * it); NULL when absent */
	char *format;	/* format=, lowercase ("flowed"); NULL when absent */
	char *delsp;	/* delsp=, lowercase ("yes"); NULL when absent */
	int has_name;	/* a name= or filename= parameter (RFC 2231 forms too) */
	struct rfc2045_param *params;	/* every parameter, in field order */
	size_t nr_params;
};

/*
 * Reads a Content-Type field body (with_subtype: "type/subtype") or a
 * Content-Disposition one (a single token), then its parameters: quoted
 * strings with quoted pairs, comments, white space anywhere, and, as mail
 * readers accept, unquoted values with '/', '=' or '?' in them.  RFC 2231:
 * "name*0", "name*1"... are joined in order up to the first missing
 * section, "name*" and "name*N*" sections are percent-decoded, and the
 * charset'language' prefix of the first extended section converts the
 * result.  The plain form of a parameter wins over its RFC 2231 form, and
 * the first of a repeated parameter wins; a value over RFC2045_MAX_PARAM
 * bytes or with a NUL is dropped; a malformed parameter ends the list;
 * at most RFC2045_MAX_PARAMS are read.  0 with *out set (release it), or
 * -1 with a message when there is no valid type (then *out is empty and
 * needs no release).
 */
int rfc2045_field_parse(const char *body, int with_subtype, struct rfc2045_field *out,
			struct buf *err);
void rfc2045_field_release(struct rfc2045_field *f);

enum rfc2045_encoding {
	RFC2045_7BIT,	/* also the default when the field is absent */
	RFC2045_8BIT,
	RFC2045_BINARY,
	RFC2045_QP,
	RFC2045_BASE64,
	RFC2045_UNKNOWN,	/* x-uuencode, garbage: read as 8bit */
};

/* The Content-Transfer-Encoding named in a field body (case, white space
 * and comments ignored); NULL means absent. */
enum rfc2045_encoding rfc2045_encoding_of(const char *body);

/*
 * The transfer decoders, lenient as mail readers are (rfc2047.h uses them
 * for Q and B words too).  Quoted-printable: "=XX" (either case) is the
 * byte, "=" at a line end (trailing white space allowed) or at the end of
 * the input a soft break, any other "=" stays as it is; line breaks are
 * kept as they are.  Base64: white space is skipped, other characters
 * outside the alphabet are skipped and counted, padding may be missing
 * and may also appear between concatenated chunks (a lone sextet before
 * it counts as malformed).  Both append to out and return the number of
 * malformed sequences (0 for clean input), or -1 when out->limit was
 * reached.
 */
long rfc2045_decode_qp(const char *in, size_t len, struct buf *out);
long rfc2045_decode_base64(const char *in, size_t len, struct buf *out);

/*
 * Checks every boundary parameter of every Content-Type field in
 * raw[0..len) (top level and nested, also text that only looks like such
 * a field, to stay on the safe side) before libetpan sees it: 1 to
 * RFC2045_MAX_BOUNDARY characters, printable ASCII, no quote or backslash
 * inside (the known libetpan crash), a closing quote, not in RFC 2231
 * form, and at most RFC2045_MAX_BOUNDARIES of them.  0, or -1 with why set
 * to one lowercase sentence.
 */
int rfc2045_check_boundaries(const char *raw, size_t len, struct buf *why);

/*
 * Overwrites with spaces the comments (RFC 5322 §3.2.2: nested, with
 * quoted pairs, never inside a quoted string) of every Content-Type,
 * Content-Transfer-Encoding and Content-Disposition field in raw[0..len)
 * (top level and nested, also text that only looks like such a field, as
 * rfc2045_check_boundaries() reads them), keeping line breaks, so that
 * every offset stays the same.  libetpan's MIME parser reads no comment
 * in these fields (it takes "(c) text/plain" for no Content-Type at all),
 * so mime_find_text() gives it a copy blanked this way; rfc2045_field_parse()
 * reads the comments itself.  An unclosed comment runs to the field's end.
 */
void rfc2045_blank_comments(char *raw, size_t len);

#endif
