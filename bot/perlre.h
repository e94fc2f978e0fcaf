#ifndef PERFBOT_PERLRE_H
#define PERFBOT_PERLRE_H

/*
 * struct perlre: a Perl regular expression, as the kernel's
 * scripts/get_maintainer.pl writes them in MAINTAINERS (N: and K:),
 * translated into a POSIX extended regular expression that glibc's
 * <regex.h> matches with the same answer (match or no match), so that
 * perfbot needs no PCRE.
 *
 * The input is untrusted (a MAINTAINERS file comes from the repository
 * under test).  The subset translated, with its exact meaning:
 *   - literal characters; `\` before any non-alphanumeric character
 *     (`\.`, `\/`, `\-`...) is that character; `\t \n \r \f \e \a`,
 *     `\xHH`;
 *   - `.` (any character but a newline), `^`, `$` (the subjects hold no
 *     newline, so Perl's "before a final newline" never differs);
 *   - `\b \B` (word boundary, as GNU regex's, with Perl's ASCII word
 *     characters [A-Za-z0-9_]: perfbot never calls setlocale(), so glibc
 *     works in the C locale, as get_maintainer.pl reads bytes);
 *     `\w \W \d \D \s \S` (ASCII: \s is space, \t \n \v \f \r);
 *   - bracket classes with ranges, escapes and [:name:] classes, `[^...]`;
 *   - groups `(...)`, `(?:...)`, `(?i:...)`, `(?-i:...)`, and the inline
 *     `(?i)` / `(?-i)`, which last to the end of the enclosing group (its
 *     later alternatives included), as in Perl; case folding is ASCII;
 *   - alternation, empty alternatives included;
 *   - quantifiers `* + ? {n} {n,} {n,m} {,m}`, the lazy forms (`*?`...:
 *     laziness never changes whether a match exists);
 *   - with PERLRE_EXTENDED (Perl's /x, as MAINTAINERS K: and N: are
 *     matched): white space outside classes is ignored and `#` outside a
 *     class starts a comment that runs to the end.
 * Anything else (look-around, back references, \A \z \Q \p{..},
 * possessive quantifiers, a `{` that is not a quantifier, other (?...)
 * groups, flags other than i) is refused with a message naming it and its
 * offset, and so is a pattern Perl itself refuses (unbalanced parentheses
 * or brackets, a quantifier that follows nothing, nested quantifiers).
 *
 * Limits (each an error): PERLRE_MAX_PATTERN bytes, PERLRE_MAX_DEPTH
 * nested groups, repetition counts up to PERLRE_MAX_REPEAT.
 *
 * Matching is against one line or one path, without its newline.
 */

#include <stddef.h>

#include "buf.h"

#define PERLRE_MAX_PATTERN 1024	/* bytes of one pattern */
#define PERLRE_MAX_DEPTH 16	/* nested groups */
#define PERLRE_MAX_REPEAT 255	/* largest n or m in {n,m} */
#define PERLRE_MAX_LITERALS 8	/* strings in a required-literal set */

#define PERLRE_EXTENDED 1	/* Perl's /x */

struct perlre;

/*
 * Translates pattern (len bytes, may hold no NUL) into a new *out (free
 * with perlre_free()).  -1 with a message (naming the construct and its
 * byte offset) and *out NULL.  Nothing is compiled yet: perlre_match()
 * compiles on first use, so a parsed file pays only for the regexes it
 * uses.
 */
int perlre_new(const char *pattern, size_t len, unsigned flags, struct perlre **out, struct buf *err);
void perlre_free(struct perlre *re);

/* The POSIX ERE the pattern became (owned by re). */
const char *perlre_ere(const struct perlre *re);

/*
 * Required literals: when perlre_nr_literals() is n > 0, every subject
 * that matches contains at least one of the n strings, compared ignoring
 * ASCII case (they are lowercase, owned by re).  0 means no such set is
 * known and every subject must be tried.  Callers use them to skip
 * regexec() on text that cannot match.
 */
size_t perlre_nr_literals(const struct perlre *re);
const char *perlre_literal(const struct perlre *re, size_t i);

/*
 * 1 when s (NUL-terminated, one line or path) matches, 0 when not.  The
 * first call compiles the ERE (glibc regcomp, about 10 µs); -1 with a
 * message when glibc refuses it or runs out of memory (not expected for
 * a translated pattern; the caller treats the pattern as unusable).  Not
 * for concurrent use on one re.
 */
int perlre_match(struct perlre *re, const char *s, struct buf *err);

#endif
