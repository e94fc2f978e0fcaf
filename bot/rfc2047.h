#ifndef PERFBOT_RFC2047_H
#define PERFBOT_RFC2047_H

/*
 * The one decoder of RFC 2047 encoded-words ("=?charset?Q?text?="), for
 * header text of incoming mail (untrusted).  Its encoder half, for
 * perfbot's own headers, is header_add_text() and header_encode_phrase()
 * (header.h).
 *
 * rfc2047_decode() appends the raw text of a header field (unfolded or
 * not) with its encoded-words decoded, in any charset charset.h converts:
 *   - line breaks (CR, LF) are removed; all other white space stays;
 *   - the white space between two encoded-words is dropped (§6.2), and the
 *     bytes of adjacent words in one charset are converted together, so a
 *     character split between two words comes out whole;
 *   - an encoded-word is recognised also inside a word and next to another
 *     one ("=?a?Q?x?==?a?Q?y?="), as mail readers do; a "*language"
 *     suffix on the charset (RFC 2231 §5) is ignored;
 *   - Q is read by the quoted-printable decoder, B by the base64 one
 *     (rfc2045.h); a word that is malformed (white space or '?' in its
 *     text, not valid Q or B, a charset longer than twice
 *     CHARSET_MAX_NAME) or in a charset that is not known is copied as it
 *     is; one whose bytes are invalid in its charset is decoded with
 *     U+FFFD for the bad bytes (a NUL too);
 *   - 8-bit bytes outside encoded-words (raw UTF-8 or Latin-1 headers):
 *     each valid UTF-8 sequence is kept, every other byte is read as
 *     Windows-1252, so the result is valid UTF-8 without NUL; or, with
 *     RFC2047_RAW, they are copied as they are (a NUL too), for a reader
 *     that cleans the text its own way (archive-meta.h).
 * Returns the number of words decoded, or -1 when out->limit was reached.
 */

#include <stddef.h>

#include "buf.h"

#define RFC2047_RAW 1	/* rfc2047_decode(): text outside words as it is */

int rfc2047_decode(const char *in, size_t len, unsigned flags, struct buf *out);

#endif
