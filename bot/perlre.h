#ifndef PERFBOT_PERLRE_H
#define PERFBOT_PERLRE_H

/*
 * struct perlre: a Perl regular expression, as the kernel's
 * scripts/get_maintainer.pl uses them from MAINTAINERS, compiled and
 * matched by PCRE2 (libpcre2-8, the library made to follow Perl's syntax
 * and meaning; this file is its only user).  get_maintainer.pl matches
 * N: with `$file =~ m/$value/x`, K: with `$line =~ m/$prefix$value/x`
 * and the regex it makes of an F:/X: glob with `$file =~ m@^$pattern@`;
 * PERLRE_EXTENDED is Perl's /x (PCRE2_EXTENDED).  As there, the pattern
 * and the subject are bytes (no UTF-8 mode: \w, \s, \b and case folding
 * are ASCII's, as Perl's for strings read without a decoding layer), `.`
 * is any byte but a newline, and `$` also matches before a final
 * newline.  Where PCRE2 10.42 reads a pattern otherwise than Perl 5.36
 * does, the pattern is first rewritten to Perl's meaning: an escape
 * Perl's regexes do not know is the letter ("\y"; "\Q", "\E", "\L"...,
 * which Perl handles in string interpolation, never in a pattern taken
 * from a variable), a '-' next to a class's set is itself ("[\d-z]"),
 * blanks inside a quantifier's braces and "{,m}" make a quantifier; a
 * pattern with \p or \P is matched by Unicode's rules, as Perl does
 * (PCRE2_UCP; byte 0xE9 is then é, a letter).  Two bugs of PCRE2 10.42
 * that lose matches are worked around (fixed in later versions: a
 * positive look-ahead's first character, "\R*\s" made possessive).  So
 * any pattern Perl accepts works, but for the constructs PCRE2 lacks
 * (\N{name}, (?{code}), "\x{zz}", "a{3,1}", a quantifier on nothing or
 * on an assertion, "\b+"): those, and every pattern Perl refuses, are
 * refused with PCRE2's message, as is a PCRE2-only option at the start
 * of a pattern ("(*UTF)", "(*LIMIT_MATCH=1)"...).  With \p, a few
 * characters are classed otherwise ("²" is \w to PCRE2, not to Perl).
 * Offsets in messages are the rewritten pattern's (the same but after a
 * rewritten part).  tests/unit/test-perlre.c holds Perl's answers.
 *
 * The input is untrusted (a MAINTAINERS file comes from the repository
 * under test).  Limits: PERLRE_MAX_PATTERN bytes of pattern (an error);
 * each match may take a bounded number of steps, linear in the length of
 * the subject (PERLRE_MATCH_STEPS and PERLRE_MATCH_STEPS_PER_BYTE), and
 * bounded memory (PERLRE_MATCH_HEAP_KIB): a pattern that backtracks past
 * them (a hostile "(a+)+$" on a long line) gives an error rather than
 * hanging the run.  PCRE2's JIT compiler is used where it is available
 * (it is not on every architecture, nor where the system forbids
 * executable memory); the interpreter otherwise, and for a match that
 * needs more than the JIT's 32 KiB of stack.  Either gives the same
 * answer.
 */

#include <stddef.h>

#include "buf.h"

#define PERLRE_MAX_PATTERN 8192	/* bytes of one pattern: a MAINTAINERS line and more */
#define PERLRE_MAX_LITERALS 8	/* strings in a required-literal set */
#define PERLRE_MATCH_STEPS 100000u	/* PCRE2 match limit: a fixed part */
#define PERLRE_MATCH_STEPS_PER_BYTE 100u	/* and one per subject byte */
#define PERLRE_MATCH_HEAP_KIB 16384u	/* PCRE2 heap limit of one match */

#define PERLRE_EXTENDED 1	/* Perl's /x */
#define PERLRE_CHECKED 2	/* known to compile (it did when an image was
				 * made): compiled on first use, not now */

struct perlre;

/*
 * Compiles pattern (len bytes, may hold no NUL) into a new *out (free
 * with perlre_free()).  -1 with PCRE2's message and the byte offset
 * ("missing closing parenthesis at offset 4") and *out NULL.  With
 * PERLRE_CHECKED nothing is compiled yet (a failure then comes from
 * perlre_match()).
 */
int perlre_new(const char *pattern, size_t len, unsigned flags, struct perlre **out, struct buf *err);
void perlre_free(struct perlre *re);

/*
 * Required literals, a first filter: when perlre_nr_literals() is n > 0,
 * every subject that matches contains at least one of the n strings,
 * compared ignoring ASCII case (they are lowercase, owned by re).  0
 * means no such set is known (the pattern's plain text was not simple
 * enough to tell) and every subject must be tried.  Callers use them to
 * skip perlre_match() on text that cannot match; they never change an
 * answer.
 */
size_t perlre_nr_literals(const struct perlre *re);
const char *perlre_literal(const struct perlre *re, size_t i);

/*
 * 1 when s (len bytes: one line, its newline included when it has one,
 * or one path) matches, 0 when not.  The first call JIT-compiles the
 * pattern (and compiles it, with PERLRE_CHECKED).  -1 with a message
 * when a limit is reached or the pattern cannot be compiled; the caller
 * treats the pattern as unusable.  Not for concurrent use on one re.
 */
int perlre_match(struct perlre *re, const char *s, size_t len, struct buf *err);

#endif
