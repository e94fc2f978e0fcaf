#ifndef PERFBOT_HEADER_H
#define PERFBOT_HEADER_H

/*
 * Header fields of outgoing mail, and RFC 2047 encoded-words.
 *
 * The header_add*() functions append one complete field, "Name: value\n",
 * with "\n" line ends (the SMTP layer turns them into CRLF).  They fold
 * (RFC 5322 §2.2.3) by putting "\n" before white space that is already in
 * the value, never inside a word, so that unfolding (deleting each "\n")
 * gives back exactly what was written.  Lines are kept within
 * HEADER_FOLD_WIDTH octets where the words allow; a line longer than
 * HEADER_LINE_MAX that no fold can shorten is an error.
 *
 * Header injection cannot happen through them: CR, LF (and NUL, for the
 * functions that take a length) in a name or value are refused, the name
 * must be printable ASCII without ':', and the output is 7-bit ASCII
 * (non-ASCII text is RFC 2047-encoded, never written raw).  Values are
 * treated as untrusted.
 *
 * On error they return -1 with one message in err and leave out as it
 * was; they also fail (with a message) when out->limit is reached.
 */

#include <stddef.h>

#include "buf.h"

struct address;

#define HEADER_FOLD_WIDTH 78	/* octets per line to aim for (RFC 5322 §2.1.1) */
#define HEADER_LINE_MAX 998	/* octets per line, at most */
#define HEADER_WORD_MAX 75	/* characters in one encoded-word (RFC 2047 §2) */
#define HEADER_VALUE_MAX 16384	/* bytes of one value given to header_add*() */

/*
 * 0 when value has no CR, LF or NUL (in len bytes; header_check_value()
 * uses strlen), else -1 with a message quoting it.  For other modules
 * that put text into headers or SMTP commands.
 */
int header_check_value(const char *value, struct buf *err);
int header_check_bytes(const char *p, size_t len, struct buf *err);

/*
 * Appends "Name: value\n" for a structured field (Date, Message-ID,
 * References, Content-Type...): value must be printable ASCII, spaces and
 * TABs; control characters and non-ASCII bytes are refused (text goes
 * through header_add_text()).  Folded at white space.
 */
int header_add(struct buf *out, const char *name, const char *value, struct buf *err);

/*
 * Appends an unstructured field (Subject) from UTF-8 text.  Words (runs
 * without space or TAB) that are printable ASCII are written as they are;
 * a word with non-ASCII or control characters, or with "=?" in it (which
 * a decoder could take for an encoded-word), is RFC 2047-encoded (§5(1)),
 * together with any such words next to it and the white space between
 * them, as a sequence of UTF-8 encoded-words (Q or B, whichever is
 * shorter; at most HEADER_WORD_MAX characters each; split between
 * characters; folded between encoded-words).  Invalid UTF-8 is refused.
 * Decoding with rfc2047_decode() gives back the text.
 */
int header_add_text(struct buf *out, const char *name, const char *utf8, struct buf *err);

/*
 * Appends "Name: a, b, c\n" with each address as address_format() writes
 * it, folding after a comma rather than inside an address, and inside one
 * only if it does not fit on a line by itself.  Each address is checked
 * with address_check(); n must be at least 1.
 */
int header_add_addresses(struct buf *out, const char *name, const struct address *list,
			 size_t n, struct buf *err);

/*
 * RFC 2047 helpers for display names (address.c).
 * header_needs_encoding(): 1 when s[0..len) has a byte outside printable
 * ASCII and space, or "=?".
 * header_encode_phrase(): appends s[0..len) as encoded-words for a
 * phrase (§5(3): Q leaves only letters, digits and !*+-/ unencoded),
 * separated by single spaces; one line.
 */
int header_needs_encoding(const char *s, size_t len);
void header_encode_phrase(struct buf *out, const char *s, size_t len);

/* The length (1..4) of the valid UTF-8 character at s[0..n), or 0 for an
 * invalid, overlong, surrogate or truncated sequence (or n == 0). */
size_t header_utf8_char(const char *s, size_t n);

/*
 * Appends s in double quotes for an error message: control characters as
 * \r, \n, \t or \xNN, '"' and '\' escaped, invalid UTF-8 and C1 controls
 * as \xNN; cut after 80 bytes with "...".
 */
void header_quote_input(struct buf *out, const char *s);

#endif
