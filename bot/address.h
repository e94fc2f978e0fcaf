#ifndef PERFBOT_ADDRESS_H
#define PERFBOT_ADDRESS_H

/*
 * Mail addresses: "Name <local@domain>", read from trusted-but-checked
 * text (configuration values, git author and trailer text, after
 * .mailmap) and written as RFC 5322 header text; and read, leniently,
 * from the address fields of incoming mail (address_list_read()).  Both
 * readings are one parser over rfc5322.h's tokens: the strict one takes
 * no comments ("(" is a name character in git's text) and refuses what
 * it cannot take, the lenient one reads RFC 5322 with its obsolete
 * syntax and drops what it cannot take with a problem.
 *
 * An address that address_parse() or address_check() accepted:
 *   - email is "local@domain" of printable ASCII, at most
 *     ADDRESS_MAX_EMAIL octets, no space and none of <>()[]\,;:" ;
 *     local is 1..ADDRESS_MAX_LOCAL octets, a dot-atom (no leading,
 *     trailing or doubled '.'); domain is a host name: labels of 1..63
 *     [A-Za-z0-9-] not starting or ending with '-', separated by single
 *     dots (no trailing dot, no [address literals]);
 *   - name is valid UTF-8 of at most ADDRESS_MAX_NAME bytes without
 *     control characters (so no CR, LF, TAB or NUL: nothing can be
 *     injected into a header), possibly "".
 * Non-ASCII local parts would need SMTPUTF8 (RFC 6531) and non-ASCII
 * domains IDNA; perfbot uses neither, so both are refused with a message
 * saying so.
 *
 * Messages quote the offending input with control characters escaped,
 * so they are safe to print.
 */

#include <stddef.h>

#include "buf.h"
#include "problem.h"

#define ADDRESS_MAX_EMAIL 254	/* octets in local@domain (RFC 5321 path limit) */
#define ADDRESS_MAX_LOCAL 64	/* octets in the local part (RFC 5321 §4.5.3.1.1) */
#define ADDRESS_MAX_NAME 256	/* bytes in a display name, after unquoting */
#define ADDRESS_MAX_LIST 1000	/* addresses in one list */
#define ADDRESS_MAX_INPUT 65536	/* bytes of text given to the parsers */

struct address {
	char *name;	/* display name, UTF-8, unquoted; "" when none; owned */
	char *email;	/* "local@domain"; owned */
};

/* Frees name and email and sets them to NULL. */
void address_release(struct address *a);
/* Releases each of the n addresses and frees the array; accepts NULL. */
void address_list_free(struct address *list, size_t n);

/*
 * Reads one address, surrounding spaces ignored:
 *     local@domain
 *     <local@domain>
 *     Name <local@domain>          (the name taken as written, trimmed)
 *     "Quoted, Name" <local@domain> (quotes removed, \x read as x)
 *     Some "Quoted" Words <local@domain>
 * Refuses control characters anywhere, text after '>', and everything
 * address_check() refuses.  0 with *out set (the caller releases it), or
 * -1 with a message (then *out is untouched).
 */
int address_parse(const char *s, struct address *out, struct buf *err);

/*
 * Reads a comma-separated list of addresses; a comma inside a quoted name
 * or inside <...> does not separate.  Empty elements (", ,", a trailing
 * comma, an empty string) are skipped, so *n may be 0.  0 with *list (a
 * new array, free with address_list_free()) and *n set, or -1 with a
 * message naming the element ("address 3: ...") and *list NULL, *n 0.
 */
int address_list_parse(const char *s, struct address **list, size_t *n, struct buf *err);

/* Checks an address built in code against the rules above: 0, or -1 with
 * a message. */
int address_check(const struct address *a, struct buf *err);

/* 1 when the emails are equal, ignoring ASCII case (the whole address,
 * local part included, as perfbot-mail(7) says recipients are
 * deduplicated); names are not compared. */
int address_equal(const struct address *a, const struct address *b);

/* ---- incoming mail (untrusted) ---- */

/* One element of an address list as incoming mail wrote it, not decoded:
 * for the readers that choose a name their own way (archive-meta.h). */
struct address_raw {
	char *phrase;	/* the display name's words before <...> (all words when
			 * there is no <...>), quoted strings unquoted, joined by
			 * one space where white space or a comment stood between
			 * them; "" when none */
	char *comment;	/* the first comment's text, quoted pairs read; NULL when none */
	char *email;	/* the inside of <...>, or the words of the element when it
			 * has none, with white space and comments outside quotes
			 * removed and a route ("@a,@b:") dropped; "" when none */
	int angle;	/* email came from <...> */
	const char *start, *end;	/* the element in the body */
};

/*
 * Splits an address field body (NUL-terminated, unfolded; untrusted) into
 * its elements: groups are flattened ("team: a, b;" is a and b), elements
 * without a word (", ,", a lone comment) skipped.  *out is a new array
 * (address_raw_free()) of the returned number of elements, bounded by the
 * body's length.
 */
size_t address_raw_read(const char *body, struct address_raw **out);
void address_raw_free(struct address_raw *v, size_t n);

/*
 * The addresses in a From, To or Cc field body: each element of
 * address_raw_read() whose email has local@domain (no controls, '<' or
 * '>', at most ADDRESS_MAX_EMAIL octets; not checked further: mail from
 * outside is read as it is), its name the phrase before <...>, or for
 * "a@b (Name)" the comment, RFC 2047-decoded (rfc2047.h) and trimmed.
 * An element without local@domain is dropped with a problem (prefixed
 * with field; pr may be NULL).  Appends to *list (grown like ALLOC_GROW),
 * at most ADDRESS_MAX_LIST; every string valid UTF-8 without NUL.
 */
void address_list_read(const char *field, const char *body, struct address **list, size_t *nr,
		       size_t *alloc, const struct problems *pr);

/*
 * Appends a as header text:
 *   - "local@domain" when the name is empty;
 *   - "Name <local@domain>" when the name is atoms (RFC 5322 atext)
 *     separated by single spaces, e.g. "kernel test robot";
 *   - "\"Rafael J. Wysocki\" <...>" when it is other printable ASCII
 *     (specials, runs of spaces), with \ and " escaped;
 *   - RFC 2047 encoded-words (UTF-8, Q or B, whichever is shorter, each
 *     at most 75 characters, split between characters, separated by
 *     spaces) then " <local@domain>", when the name has non-ASCII or
 *     control characters or something that looks like an encoded-word.
 * Output is one line; header_add_addresses() folds it.
 */
void address_format(struct buf *out, const struct address *a);

#endif
