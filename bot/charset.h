#ifndef PERFBOT_CHARSET_H
#define PERFBOT_CHARSET_H

/*
 * Text from incoming mail (untrusted) to UTF-8.
 *
 * Everything these functions append to out is valid UTF-8 without NUL:
 * a NUL byte, an invalid or truncated sequence, and a byte the source
 * charset does not define become U+FFFD.  So their output can go into a
 * struct value, and from there into JSON, as it is.
 *
 * Charsets: UTF-8, US-ASCII, ISO-8859-1 and Windows-1252 are converted
 * here; every other name goes to glibc's iconv (ISO-8859-x, KOI8-R,
 * GB18030, Shift_JIS, UTF-16...).  Names are matched without regard to
 * case, an RFC 2231 "*language" suffix is ignored, and a name longer than
 * CHARSET_MAX_NAME or with characters other than [A-Za-z0-9._:+()-] is
 * treated as unknown (it never reaches iconv_open).
 *
 * The fall-back for a missing or unknown charset, as mail readers do: the
 * bytes as UTF-8 if they are valid UTF-8, else as Windows-1252 (which
 * also covers ISO-8859-1 and US-ASCII, the usual mislabels).  Text
 * declared US-ASCII that has 8-bit bytes gets the same fall-back; text
 * declared ISO-8859-1 is read as Windows-1252 (its superset in practice,
 * as the WHATWG encoding standard does).
 *
 * None of these fails: out has no limit set by them (a caller may set
 * out->limit; reaching it stops the conversion and is reported with -1).
 *
 * Not thread-safe: a few iconv descriptors are kept open in a
 * process-wide cache (iconv_open() costs more than converting a mail).
 */

#include <stddef.h>

#include "buf.h"

#define CHARSET_MAX_NAME 40	/* bytes in a charset name given to iconv */

/* How charset_to_utf8() read the bytes. */
enum charset_outcome {
	CHARSET_OK,		/* converted from the declared charset, nothing replaced */
	CHARSET_REPAIRED,	/* converted; some bytes were invalid and became U+FFFD */
	CHARSET_FALLBACK,	/* charset unknown or missing: read by the fall-back */
};

/*
 * Appends in[0..len) converted from charset (NULL or "" when none was
 * declared) to UTF-8.  *used, when not NULL, gets the name of what the
 * bytes were read as ("utf-8", "windows-1252", or the declared name
 * lowercased; a static string or one that lives as long as charset).
 * Returns the outcome, or -1 when out->limit was reached.
 */
int charset_to_utf8(const char *charset, const char *in, size_t len, struct buf *out,
		    const char **used);

/* 1 when charset_to_utf8() would convert this name itself or through
 * iconv (that is, it is not unknown). */
int charset_known(const char *charset);

/* 1 when s[0..len) is valid UTF-8 without NUL. */
int charset_is_utf8(const char *s, size_t len);

/*
 * Appends s[0..len) with every NUL, invalid or truncated UTF-8 sequence
 * (overlong forms and surrogates included) replaced by U+FFFD, one per
 * bad byte.  Returns the number of replacements, or -1 when out->limit
 * was reached.
 */
long charset_repair_utf8(const char *s, size_t len, struct buf *out);

/*
 * Appends raw header bytes s[0..len) as UTF-8: each valid UTF-8 sequence
 * as it is, every other byte (NUL too) read as Windows-1252, whose five
 * undefined bytes become U+FFFD (headers mix the two more often than
 * bodies do).  Returns the number of U+FFFD written for NUL and the
 * undefined bytes, or -1 when out->limit was reached.
 */
long charset_mixed_to_utf8(const char *s, size_t len, struct buf *out);

#endif
