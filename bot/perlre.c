/*
 * perlre.c: Perl regular expressions by PCRE2 (perlre.h), and the
 * literals a pattern requires, read from its plain text.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "perlre.h"
#include "xalloc.h"
#include "banned.h"

struct perlre {
	char *pattern;		/* with PERLRE_CHECKED, until compiled */
	size_t len;
	unsigned flags;
	int unicode;		/* Perl's Unicode rules: the pattern has \p or \P */
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	int jit;		/* 0 not tried, 1 JIT-compiled, -1 not available */
	char *literals[PERLRE_MAX_LITERALS];	/* lowercase */
	size_t nr_literals;
};

/* ---- the literals a match requires ----
 *
 * A conservative reading of the pattern's text: a run of plain
 * characters, or a set of them (one from each alternative), that every
 * match contains.  Anything that would need more than a few lines to read
 * soundly (escapes with arguments, back references, conditionals, (?x)
 * turning /x on or off, verbs) gives no set: the filter is then skipped,
 * never wrong.  The pattern has compiled already: its parentheses and
 * classes are balanced.
 */

struct lits {
	char *s[PERLRE_MAX_LITERALS];
	size_t n;
	int known;
};

struct scan {
	const char *p;
	size_t len, pos;
	int extended;
	int bail;		/* no set can be told */
};

static void lits_clear(struct lits *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->s[i]);
	memset(l, 0, sizeof(*l));
}

/* The worth of a set as a filter: its shortest string's length. */
static size_t lits_score(const struct lits *l)
{
	size_t i, min = (size_t)-1;

	if (!l->known || !l->n)
		return 0;
	for (i = 0; i < l->n; i++)
		if (strlen(l->s[i]) < min)
			min = strlen(l->s[i]);
	return min;
}

/* Keeps the better of *best and *cand in *best; *cand is emptied. */
static void lits_offer(struct lits *best, struct lits *cand)
{
	if (lits_score(cand) > lits_score(best)) {
		lits_clear(best);
		*best = *cand;
		memset(cand, 0, sizeof(*cand));
	} else {
		lits_clear(cand);
	}
}

static void run_flush(struct lits *best, struct buf *run)
{
	struct lits one;

	if (!run->len)
		return;
	memset(&one, 0, sizeof(one));
	one.known = 1;
	one.n = 1;
	one.s[0] = buf_detach(run, NULL);
	lits_offer(best, &one);
}

static int is_blank(int c)
{
	/* PCRE2_EXTENDED's (and Perl's /x) white space in a byte pattern */
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == 0x85;
}

/* Past white space and comments, with /x. */
static void scan_ignorable(struct scan *sc)
{
	while (sc->extended && sc->pos < sc->len) {
		if (is_blank((unsigned char)sc->p[sc->pos])) {
			sc->pos++;
		} else if (sc->p[sc->pos] == '#') {
			while (sc->pos < sc->len && sc->p[sc->pos] != '\n')
				sc->pos++;
		} else {
			break;
		}
	}
}

/* A quantifier at sc->pos (taken), making the atom before it optional
 * or repeated: 1, else 0. */
static int scan_quantifier(struct scan *sc)
{
	size_t q;

	scan_ignorable(sc);
	if (sc->pos >= sc->len)
		return 0;
	if (strchr("*+?", sc->p[sc->pos])) {
		sc->pos++;
	} else if (sc->p[sc->pos] == '{') {
		/* {n} {n,} {n,m} {,m}, blanks allowed inside; any other '{'
		 * is not a quantifier (and stops the scan as an atom) */
		for (q = sc->pos + 1; q < sc->len && (isdigit((unsigned char)sc->p[q]) ||
						      sc->p[q] == ',' || sc->p[q] == ' ' || sc->p[q] == '\t'); q++)
			;
		if (q >= sc->len || sc->p[q] != '}')
			return 0;
		sc->pos = q + 1;
	} else {
		return 0;
	}
	if (sc->pos < sc->len && (sc->p[sc->pos] == '?' || sc->p[sc->pos] == '+'))
		sc->pos++;	/* lazy or possessive */
	return 1;
}

static void scan_alt(struct scan *sc, struct lits *out);

/* Past a bracket class; sc->pos is at its '['. */
static void scan_class(struct scan *sc)
{
	size_t i = sc->pos + 1;

	if (i < sc->len && sc->p[i] == '^')
		i++;
	if (i < sc->len && sc->p[i] == ']')
		i++;
	while (i < sc->len && sc->p[i] != ']') {
		if (sc->p[i] == '\\') {
			i += 2;
		} else if (sc->p[i] == '[' && i + 1 < sc->len && strchr(":.=", sc->p[i + 1])) {
			const char end[3] = { sc->p[i + 1], ']', 0 };
			const char *e = i + 2 < sc->len ? memmem(sc->p + i + 2, sc->len - i - 2, end, 2) : NULL;

			i = e ? (size_t)(e - sc->p) + 2 : sc->len;
		} else {
			i++;
		}
	}
	if (i >= sc->len)
		sc->bail = 1;
	sc->pos = i + 1;
}

/* A group; sc->pos is at its '('.  *grp gets what it requires when a
 * match of the pattern must match the group (not a look-around).
 * Returns 0, or 1 when it was only flags or a comment (no atom). */
static int scan_group(struct scan *sc, struct lits *grp)
{
	const char *p = sc->p;
	size_t i = sc->pos + 1;
	int opaque = 0;

	if (i < sc->len && p[i] == '*') {
		sc->bail = 1;	/* a verb, or an alpha assertion */
		return 1;
	}
	if (i < sc->len && p[i] == '?') {
		i++;
		if (i < sc->len && p[i] == '#') {
			const char *e = memchr(p + i, ')', sc->len - i);

			sc->pos = e ? (size_t)(e - p) + 1 : sc->len;
			return 1;
		}
		if (i < sc->len && (p[i] == '=' || p[i] == '!' || p[i] == '>' || p[i] == '|')) {
			opaque = 1;
			i++;
		} else if (i + 1 < sc->len && p[i] == '<' && (p[i + 1] == '=' || p[i + 1] == '!')) {
			opaque = 1;
			i += 2;
		} else {
			size_t f = i;

			/* Perl's flags; (?R), (?P<n>...) and the like are not */
			while (i < sc->len && p[i] && strchr("imnspadlux-^", p[i]))
				i++;
			if (memchr(p + f, 'x', i - f) || memchr(p + f, '^', i - f) || i >= sc->len ||
			    (p[i] != ':' && p[i] != ')')) {
				sc->bail = 1;	/* /x switched, or a construct not read here */
				return 1;
			}
			if (p[i++] == ')') {
				sc->pos = i;
				return 1;	/* (?i) and the like: case is ignored anyway */
			}
		}
	}
	sc->pos = i;
	scan_alt(sc, grp);
	if (sc->pos >= sc->len || p[sc->pos] != ')')
		sc->bail = 1;
	sc->pos++;
	if (opaque)
		lits_clear(grp);
	return 0;
}

/* One alternative, up to '|', ')' or the end. */
static void scan_seq(struct scan *sc, struct lits *best)
{
	struct buf run = BUF_INIT;

	memset(best, 0, sizeof(*best));
	for (;;) {
		struct lits grp;
		int c, lit = -1;

		memset(&grp, 0, sizeof(grp));
		scan_ignorable(sc);
		if (sc->bail || sc->pos >= sc->len || sc->p[sc->pos] == '|' || sc->p[sc->pos] == ')')
			break;
		c = (unsigned char)sc->p[sc->pos];
		if (c == '\\') {
			int e = sc->pos + 1 < sc->len ? (unsigned char)sc->p[sc->pos + 1] : 0;

			sc->pos += 2;
			if (!e || (e == 'N' && sc->pos < sc->len && sc->p[sc->pos] == '{'))
				sc->bail = 1;
			else if (!isalnum(e))
				lit = e;
			else if (!strchr("bBAzZGKwWdDsShHvVRNXtnrfae", e))
				sc->bail = 1;	/* an escape with an argument, a back reference... */
		} else if (c == '[') {
			scan_class(sc);
		} else if (c == '(') {
			if (scan_group(sc, &grp))
				continue;
		} else if (c == '*' || c == '+' || c == '?' || c == '{') {
			sc->bail = 1;
		} else {
			sc->pos++;
			if (c != '.' && c != '^' && c != '$')
				lit = c;
		}
		if (sc->bail) {
			lits_clear(&grp);
			break;
		}
		if (scan_quantifier(sc)) {
			/* optional, perhaps: it requires nothing */
			lits_clear(&grp);
			run_flush(best, &run);
			continue;
		}
		if (lit >= 0) {
			buf_addc(&run, (char)tolower(lit));
		} else {
			run_flush(best, &run);
			lits_offer(best, &grp);
		}
	}
	run_flush(best, &run);
	buf_release(&run);
}

static void scan_alt(struct scan *sc, struct lits *out)
{
	memset(out, 0, sizeof(*out));
	out->known = 1;
	for (;;) {
		struct lits seq;
		size_t i;

		scan_seq(sc, &seq);
		if (!lits_score(&seq) || out->n + seq.n > PERLRE_MAX_LITERALS)
			out->known = 0;
		for (i = 0; out->known && i < seq.n; i++) {
			out->s[out->n++] = seq.s[i];
			seq.s[i] = NULL;
		}
		lits_clear(&seq);
		if (sc->bail || sc->pos >= sc->len || sc->p[sc->pos] != '|')
			break;
		sc->pos++;
	}
	if (!out->known)
		lits_clear(out);
}

static void find_literals(struct perlre *re)
{
	struct scan sc;
	struct lits top;
	size_t i;

	memset(&sc, 0, sizeof(sc));
	sc.p = re->pattern;
	sc.len = re->len;
	sc.extended = !!(re->flags & PERLRE_EXTENDED);
	scan_alt(&sc, &top);
	if (sc.bail || sc.pos != sc.len)
		lits_clear(&top);
	for (i = 0; i < top.n; i++)
		re->literals[i] = top.s[i];
	re->nr_literals = top.n;
}

/* ---- Perl's reading where PCRE2 10.42's differs ---- */

static void skip_blanks(const char *p, size_t len, size_t *i, int *blank)
{
	while (*i < len && (p[*i] == ' ' || p[*i] == '\t')) {
		++*i;
		*blank = 1;
	}
}

/* {n} {n,} {n,m} {,m} with blanks inside, at p (its '{'): the length up
 * to its '}', the quantifier appended as PCRE2 reads it; else 0. */
static size_t perl_braces(const char *p, size_t len, struct buf *out)
{
	size_t i = 1, lo, lo_end, hi = 0, hi_end = 0;
	int comma = 0, blank = 0;

	skip_blanks(p, len, &i, &blank);
	for (lo = i; i < len && isdigit((unsigned char)p[i]); i++)
		;
	lo_end = i;
	skip_blanks(p, len, &i, &blank);
	if (i < len && p[i] == ',') {
		comma = 1;
		i++;
		skip_blanks(p, len, &i, &blank);
		for (hi = i; i < len && isdigit((unsigned char)p[i]); i++)
			;
		hi_end = i;
		skip_blanks(p, len, &i, &blank);
	}
	if (i >= len || p[i] != '}' || (lo == lo_end && hi == hi_end) || (!blank && lo < lo_end))
		return 0;	/* not a quantifier, or one PCRE2 reads as Perl does */
	buf_addc(out, '{');
	if (lo == lo_end)
		buf_addc(out, '0');
	buf_add(out, p + lo, lo_end - lo);
	if (comma) {
		buf_addc(out, ',');
		buf_add(out, p + hi, hi_end - hi);
	}
	buf_addc(out, '}');
	return i + 1;
}

/* An escape pair at p (its '\'): one Perl's regexes do not know ("\y",
 * "\Q", "\L"...) is the letter. */
static void perl_escape(const char *p, struct buf *out)
{
	if (!strchr("ijlmquyEFIJLMOQTUY", p[1]))
		buf_addc(out, '\\');
	buf_addc(out, p[1]);
}

/* A class's item at p that stands for a set: "\d", "\p{..}", "[:name:]". */
static int class_set_at(const char *p, size_t len)
{
	return len >= 2 && ((p[0] == '\\' && strchr("dDwWsShHvVpP", p[1])) || (p[0] == '[' && p[1] == ':'));
}

/*
 * The pattern as PCRE2 must read it to mean what it means to Perl 5.36:
 *   - an escape Perl's regexes do not know is the letter: "\y", and
 *     "\Q", "\E", "\L"..., which are string interpolation, done before a
 *     pattern taken from a variable reaches the regex compiler (PCRE2
 *     would quote, or refuse);
 *   - in a class, a '-' next to a set ("[\d-z]", "[a-\w]") is itself
 *     (PCRE2 refuses the range);
 *   - a quantifier may have blanks inside its braces, and "{,m}" is
 *     "{0,m}" (Perl 5.34); PCRE2 10.42 reads both as literal text (and
 *     refuses "\x{ 41 }", which this makes "\x{41}").
 * Everything else is passed as it is.  Returns 1 when the pattern has a
 * \p or \P: Perl then matches it by Unicode's rules (as /u), in which
 * byte 0xE9 is é, a letter for \w and [[:alpha:]] too.
 */
static int perl_fixup(const char *p, size_t len, struct buf *out)
{
	size_t i = 0, n;
	int unicode = 0;

	while (i < len) {
		if (p[i] == '\\' && i + 1 < len) {
			unicode |= p[i + 1] == 'p' || p[i + 1] == 'P';
			perl_escape(p + i, out);
			i += 2;
		} else if (p[i] == '[') {
			/* a class: [^]...], []...], [:name:] inside */
			int set = 0;

			buf_addc(out, p[i++]);
			if (i < len && p[i] == '^')
				buf_addc(out, p[i++]);
			if (i < len && p[i] == ']')
				buf_addc(out, p[i++]);
			while (i < len && p[i] != ']') {
				const char *e;
				int was_set = set;

				set = class_set_at(p + i, len - i);
				if (p[i] == '\\' && i + 1 < len) {
					unicode |= p[i + 1] == 'p' || p[i + 1] == 'P';
					perl_escape(p + i, out);
					i += 2;
				} else if (p[i] == '[' && i + 2 < len && p[i + 1] == ':' &&
					   (e = memmem(p + i + 2, len - i - 2, ":]", 2)) != NULL) {
					buf_add(out, p + i, (size_t)(e + 2 - (p + i)));
					i = (size_t)(e + 2 - p);
				} else if (p[i] == '-' && i + 1 < len && p[i + 1] != ']' &&
					   (was_set || class_set_at(p + i + 1, len - i - 1))) {
					buf_adds(out, "\\-");
					i++;
				} else {
					buf_addc(out, p[i++]);
				}
			}
		} else if (p[i] == '{' && (n = perl_braces(p + i, len - i, out)) > 0) {
			i += n;
		} else {
			buf_addc(out, p[i++]);
		}
	}
	return unicode;
}

/* ---- PCRE2 ---- */

/* PCRE2's memory comes from xmalloc(): out of memory is handled in one
 * place, as everywhere else.  A match's memory is bounded by
 * PERLRE_MATCH_HEAP_KIB. */
static void *pcre2_xmalloc(size_t n, void *data)
{
	(void)data;
	return xmalloc(n ? n : 1);
}

static void pcre2_xfree(void *p, void *data)
{
	(void)data;
	free(p);
}

/* Made once, read only after: shared by every pattern and thread. */
static pcre2_general_context *general;
static pcre2_compile_context *compile;
static pthread_once_t contexts_once = PTHREAD_ONCE_INIT;

static void contexts_make(void)
{
	general = pcre2_general_context_create(pcre2_xmalloc, pcre2_xfree, NULL);
	compile = pcre2_compile_context_create(general);
	/* Perl's meanings, whatever this PCRE2 was built with */
	pcre2_set_newline(compile, PCRE2_NEWLINE_LF);
	pcre2_set_bsr(compile, PCRE2_BSR_UNICODE);
	pcre2_set_max_pattern_length(compile, PERLRE_MAX_PATTERN);
}

/* A PCRE2-only option at the start of a pattern, "(*UTF)", "(*CRLF)",
 * "(*LIMIT_MATCH=9)": Perl knows none of them (its own verbs, "(*FAIL)",
 * "(*PRUNE)"... are fine). */
static int pcre2_only_start(const char *p, size_t len)
{
	static const char *const perl[] = { "PRUNE", "SKIP", "MARK", "THEN", "COMMIT", "FAIL", "F", "ACCEPT" };
	size_t i = 2, k;

	if (len < 3 || p[0] != '(' || p[1] != '*')
		return 0;
	while (i < len && (isupper((unsigned char)p[i]) || isdigit((unsigned char)p[i]) || p[i] == '_'))
		i++;
	if (i == 2 || i >= len || (p[i] != ')' && p[i] != '='))
		return 0;
	for (k = 0; k < sizeof(perl) / sizeof(perl[0]); k++)
		if (strlen(perl[k]) == i - 2 && !memcmp(p + 2, perl[k], i - 2))
			return 0;
	return 1;
}

static int re_compile(struct perlre *re, struct buf *err)
{
	/* Perl allows two groups of one name */
	uint32_t options = PCRE2_NEVER_UTF | PCRE2_NEVER_BACKSLASH_C | PCRE2_DUPNAMES;
	int code;
	PCRE2_SIZE at;

	if (re->flags & PERLRE_EXTENDED)
		options |= PCRE2_EXTENDED;
	options |= re->unicode ? PCRE2_UCP : PCRE2_NEVER_UCP;
	/* PCRE2 10.42 takes a positive look-ahead's first character as the
	 * match's and then misses matches ("(?=a)(?<=a)\s*a" finds none in
	 * "aa"; fixed in 10.45): with one, no start-of-match optimization */
	if (memmem(re->pattern, re->len, "(?=", 3) || memmem(re->pattern, re->len, "(*", 2) ||
	    memmem(re->pattern, re->len, "(?*", 3))
		options |= PCRE2_NO_START_OPTIMIZE;
	/* and makes "\R*" possessive before "\s" ("\R*\s" finds none in
	 * "y\n"): with a \R, no auto-possessification */
	if (memmem(re->pattern, re->len, "\\R", 2))
		options |= PCRE2_NO_AUTO_POSSESS;
	pthread_once(&contexts_once, contexts_make);
	re->code = pcre2_compile((PCRE2_SPTR)re->pattern, re->len, options, &code, &at, compile);
	if (!re->code) {
		PCRE2_UCHAR msg[256];

		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			return err_set(err, "refused by PCRE2 at offset %zu", (size_t)at);
		return err_set(err, "%s at offset %zu", (const char *)msg, (size_t)at);
	}
	return 0;
}

int perlre_new(const char *pattern, size_t len, unsigned flags, struct perlre **out, struct buf *err)
{
	struct perlre *re;
	struct buf fixed = BUF_INIT;

	*out = NULL;
	if (len > PERLRE_MAX_PATTERN)
		return err_set(err, "pattern longer than %d bytes", PERLRE_MAX_PATTERN);
	if (memchr(pattern, '\0', len))
		return err_set(err, "NUL byte in pattern");
	if (pcre2_only_start(pattern, len))
		return err_set(err, "a PCRE2 option, not Perl, at offset 0");
	re = xcalloc(1, sizeof(*re));
	re->unicode = perl_fixup(pattern, len, &fixed);
	re->pattern = buf_detach(&fixed, &re->len);
	re->flags = flags;
	if (!(flags & PERLRE_CHECKED) && re_compile(re, err) < 0) {
		perlre_free(re);
		return -1;
	}
	find_literals(re);
	*out = re;
	return 0;
}

void perlre_free(struct perlre *re)
{
	size_t i;

	if (!re)
		return;
	pcre2_code_free(re->code);
	pcre2_match_data_free(re->md);
	pcre2_match_context_free(re->mc);
	for (i = 0; i < re->nr_literals; i++)
		free(re->literals[i]);
	free(re->pattern);
	free(re);
}

size_t perlre_nr_literals(const struct perlre *re)
{
	return re->nr_literals;
}

const char *perlre_literal(const struct perlre *re, size_t i)
{
	return re->literals[i];
}

int perlre_match(struct perlre *re, const char *s, size_t len, struct buf *err)
{
	size_t steps;
	int r;

	if (!re->code && re_compile(re, err) < 0)
		return -1;
	if (!re->jit) {
		re->jit = pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE) == 0 ? 1 : -1;
		re->md = pcre2_match_data_create(1, general);
		re->mc = pcre2_match_context_create(general);
		pcre2_set_heap_limit(re->mc, PERLRE_MATCH_HEAP_KIB);
	}
	/* steps linear in the subject: a pattern's whole search of a text
	 * stays linear in the text's length */
	steps = PERLRE_MATCH_STEPS + PERLRE_MATCH_STEPS_PER_BYTE * (len < UINT32_MAX / 256 ? len : UINT32_MAX / 256);
	pcre2_set_match_limit(re->mc, (uint32_t)steps);
	r = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, re->md, re->mc);
	if (r == PCRE2_ERROR_JIT_STACKLIMIT)
		r = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, PCRE2_NO_JIT, re->md, re->mc);
	if (r >= 0)
		return 1;
	if (r == PCRE2_ERROR_NOMATCH)
		return 0;
	{
		PCRE2_UCHAR msg[256];

		if (pcre2_get_error_message(r, msg, sizeof(msg)) < 0)
			return err_set(err, "gave up matching: PCRE2 error %d", r);
		return err_set(err, "gave up matching: %s", (const char *)msg);
	}
}
