#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "percent.h"
#include "perlre.h"
#include "xalloc.h"
#include "banned.h"

struct perlre {
	struct buf ere;
	char *literals[PERLRE_MAX_LITERALS];	/* lowercase */
	size_t nr_literals;
	regex_t compiled;
	int state;		/* 0 not compiled, 1 compiled, -1 refused */
};

/*
 * What a node tells about the text it matches: either exactly one string
 * (`exact`, lowercase: "" for anchors), or a set of strings one of which
 * every match contains (`req`), or nothing.
 */
struct info {
	int exact;
	struct buf lit;
	int has_req;
	char *req[PERLRE_MAX_LITERALS];
	size_t nr_req;
};

struct parser {
	const char *p;
	size_t len, pos;
	unsigned flags;
	int depth;
	struct buf *ere;
	struct buf *err;
};

static void info_init(struct info *in)
{
	memset(in, 0, sizeof(*in));
	buf_init(&in->lit);
}

static void info_clear_req(struct info *in)
{
	size_t i;

	for (i = 0; i < in->nr_req; i++)
		free(in->req[i]);
	in->nr_req = 0;
	in->has_req = 0;
}

static void info_release(struct info *in)
{
	info_clear_req(in);
	buf_release(&in->lit);
	in->exact = 0;
}

/* The shortest string of a set: how selective it is (0 = not at all). */
static size_t req_score(char *const *req, size_t n)
{
	size_t i, best = (size_t)-1;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (strlen(req[i]) < best)
			best = strlen(req[i]);
	return best;
}

/* The node's own set: its exact string, or its req. */
static size_t info_set(const struct info *in, char **out)
{
	size_t i;

	if (in->exact) {
		if (!in->lit.len)
			return 0;
		out[0] = xstrdup(in->lit.data);
		return 1;
	}
	if (!in->has_req)
		return 0;
	for (i = 0; i < in->nr_req; i++)
		out[i] = xstrdup(in->req[i]);
	return in->nr_req;
}

static void set_free(char **set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(set[i]);
}

/* Keeps the candidate set in best when it is more selective. */
static void req_offer(struct info *best, char **cand, size_t n)
{
	size_t i;

	if (n && req_score(cand, n) > req_score(best->req, best->nr_req)) {
		info_clear_req(best);
		for (i = 0; i < n; i++)
			best->req[i] = cand[i];
		best->nr_req = n;
		best->has_req = 1;
		return;
	}
	set_free(cand, n);
}

static int fail(struct parser *ps, const char *what)
{
	return err_set(ps->err, "%s at offset %zu", what, ps->pos);
}

static int at_end(const struct parser *ps)
{
	return ps->pos >= ps->len;
}

static int peek(const struct parser *ps, size_t ahead)
{
	return ps->pos + ahead < ps->len ? (unsigned char)ps->p[ps->pos + ahead] : -1;
}

/* /x: white space is ignored and '#' comments to the end. */
static void skip_extended(struct parser *ps)
{
	if (!(ps->flags & PERLRE_EXTENDED))
		return;
	while (!at_end(ps)) {
		int c = peek(ps, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			ps->pos++;
		} else if (c == '#') {
			ps->pos = ps->len;
		} else {
			break;
		}
	}
}

/* Character sets: one bit per byte value; NUL never matches. */
struct set {
	unsigned char bit[32];
};

static void set_add(struct set *s, int c)
{
	if (c > 0 && c < 256)
		s->bit[c >> 3] |= (unsigned char)(1u << (c & 7));
}

static int set_has(const struct set *s, int c)
{
	return c > 0 && c < 256 && (s->bit[c >> 3] & (1u << (c & 7)));
}

static void set_add_range(struct set *s, int lo, int hi)
{
	int c;

	for (c = lo; c <= hi; c++)
		set_add(s, c);
}

static void set_merge(struct set *s, const struct set *o, int negate)
{
	int c;

	for (c = 1; c < 256; c++)
		if (set_has(o, c) != negate)
			set_add(s, c);
}

/* Perl's ASCII \d \w \s, and the POSIX names. */
static int set_named(struct set *s, int letter)
{
	struct set t;

	memset(&t, 0, sizeof(t));
	switch (tolower(letter)) {
	case 'd':
		set_add_range(&t, '0', '9');
		break;
	case 'w':
		set_add_range(&t, '0', '9');
		set_add_range(&t, 'A', 'Z');
		set_add_range(&t, 'a', 'z');
		set_add(&t, '_');
		break;
	case 's':
		set_add(&t, ' ');
		set_add_range(&t, '\t', '\r');	/* \t \n \v \f \r */
		break;
	default:
		return -1;
	}
	set_merge(s, &t, isupper(letter) != 0);
	return 0;
}

static int set_posix(struct set *s, const char *name, size_t n, int negate)
{
	static const struct {
		const char *name;
		int (*is)(int);
	} classes[] = {
		{ "alpha", isalpha }, { "digit", isdigit }, { "alnum", isalnum }, { "upper", isupper },
		{ "lower", islower }, { "space", isspace }, { "punct", ispunct }, { "print", isprint },
		{ "graph", isgraph }, { "cntrl", iscntrl }, { "xdigit", isxdigit }, { "blank", isblank },
	};
	struct set t;
	size_t i;
	int c;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (strlen(classes[i].name) != n || memcmp(classes[i].name, name, n))
			continue;
		for (c = 1; c < 128; c++)	/* ASCII: the C locale */
			if (classes[i].is(c))
				set_add(&t, c);
		set_merge(s, &t, negate);
		return 0;
	}
	if (n == 4 && !memcmp(name, "word", 4)) {
		set_named(&t, 'w');
		set_merge(s, &t, negate);
		return 0;
	}
	return -1;
}

static void set_fold(struct set *s)
{
	int c;

	for (c = 'a'; c <= 'z'; c++) {
		if (set_has(s, c) || set_has(s, toupper(c))) {
			set_add(s, c);
			set_add(s, toupper(c));
		}
	}
}

/*
 * Writes a set as a POSIX bracket expression: ']' first, '[' '^' '-' at
 * the end, runs of digits and letters as ranges, so that no member can be
 * read as a range, a class name or a negation.
 */
static void set_emit(struct buf *ere, const struct set *given, int negate)
{
	size_t start = ere->len;
	struct set flipped;
	const struct set *s = given;
	int c, count = 0, spaces;

	/* \D, \W, [[:^digit:]]...: the shorter side, with the other sign */
	for (c = 1; c < 256; c++)
		count += set_has(given, c) != 0;
	if (count > 127) {
		memset(&flipped, 0, sizeof(flipped));
		set_merge(&flipped, given, 1);
		s = &flipped;
		negate = !negate;
		if (count == 255) {
			/* [\s\S]: every character (the subjects hold no NUL) */
			buf_addc(ere, '.');
			return;
		}
	}

	buf_adds(ere, negate ? "[^" : "[");
	if (set_has(s, ']'))
		buf_addc(ere, ']');
	spaces = set_has(s, ' ');
	for (c = '\t'; c <= '\r'; c++)
		spaces &= set_has(s, c) != 0;
	if (spaces)
		buf_adds(ere, "[:space:]");	/* \s: no raw control characters */
	for (c = 1; c < 256; c++) {
		int end;

		if (c == ']' || c == '[' || c == '^' || c == '-' || !set_has(s, c))
			continue;
		if (spaces && (c == ' ' || (c >= '\t' && c <= '\r')))
			continue;
		end = c;
		if (isalnum(c)) {
			while (end + 1 < 256 && set_has(s, end + 1) && isalnum(end + 1) &&
			       !isdigit(end + 1) == !isdigit(c) && !isupper(end + 1) == !isupper(c))
				end++;
		}
		if (end - c >= 2) {
			buf_addf(ere, "%c-%c", c, end);
			c = end;
		} else {
			buf_addc(ere, (char)c);
		}
	}
	if (set_has(s, '['))
		buf_addc(ere, '[');
	if (set_has(s, '^')) {
		if (!negate && ere->len == start + 1) {
			/* only '^' and maybe '-': a leading '^' would negate */
			buf_truncate(ere, start);
			buf_adds(ere, set_has(s, '-') ? "[-^]" : "\\^");
			return;
		}
		buf_addc(ere, '^');
	}
	if (set_has(s, '-'))
		buf_addc(ere, '-');
	buf_addc(ere, ']');
}

/* The one character a set stands for, ignoring ASCII case; -1 if more. */
static int set_single(const struct set *s)
{
	int c, found = -1;

	for (c = 1; c < 256; c++) {
		int l;

		if (!set_has(s, c))
			continue;
		l = tolower(c);
		if (found >= 0 && found != l)
			return -1;
		found = l;
	}
	return found;
}

static void emit_literal(struct parser *ps, int c, int ci)
{
	if (ci && isalpha(c)) {
		buf_addf(ps->ere, "[%c%c]", tolower(c), toupper(c));
	} else if (c == '\\') {
		buf_adds(ps->ere, "[\\]");
	} else if (strchr(".[()*+?{|^$", c)) {
		buf_addc(ps->ere, '\\');
		buf_addc(ps->ere, (char)c);
	} else {
		buf_addc(ps->ere, (char)c);
	}
}


/*
 * A character escape after '\' (the backslash already read): its byte
 * value, or -1 after an error.  `\b` means backspace here (classes only
 * call it for that).
 */
static int escape_char(struct parser *ps)
{
	int c = peek(ps, 0), v;
	static const char from[] = "tnrfeab", to[] = "\t\n\r\f\033\a\b";
	const char *k;

	if (c < 0)
		return fail(ps, "trailing backslash");
	if (c == 'x') {
		int h1 = percent_hex(peek(ps, 1)), h2 = percent_hex(peek(ps, 2));

		if (h1 < 0)
			return fail(ps, "unsupported \\x form (only \\xHH)");
		v = h2 < 0 ? h1 : h1 * 16 + h2;
		ps->pos += h2 < 0 ? 2 : 3;
		if (!v)
			return fail(ps, "NUL character");
		return v;
	}
	if (c != 0 && (k = strchr(from, c)) != NULL) {
		ps->pos++;
		return (unsigned char)to[k - from];
	}
	if (isalnum(c)) {
		struct buf what = BUF_INIT;
		int r;

		buf_addf(&what, "unsupported escape \\%c", c);
		r = fail(ps, what.data);
		buf_release(&what);
		return r;
	}
	ps->pos++;
	return c;
}

/* One element of a class: a character (returned), or a named set added
 * to s (returns 256), or -1 on error. */
static int class_element(struct parser *ps, struct set *s)
{
	int c = peek(ps, 0);

	if (c == '[' && peek(ps, 1) == ':') {
		size_t i, name = ps->pos + 2;
		int negate = 0;

		if (name < ps->len && ps->p[name] == '^') {
			negate = 1;
			name++;
		}
		for (i = name; i + 1 < ps->len; i++) {
			if (ps->p[i] == ':' && ps->p[i + 1] == ']') {
				if (set_posix(s, ps->p + name, i - name, negate) < 0)
					return fail(ps, "unknown [:class:] name");
				ps->pos = i + 2;
				return 256;
			}
			if (!isalpha((unsigned char)ps->p[i]))
				break;
		}
		ps->pos++;
		return '[';
	}
	if (c == '\\') {
		int e = peek(ps, 1);

		ps->pos++;
		if (e > 0 && strchr("dwsDWS", e)) {
			set_named(s, e);
			ps->pos++;
			return 256;
		}
		return escape_char(ps);
	}
	ps->pos++;
	return c;
}

static int parse_class(struct parser *ps, int ci, struct info *in)
{
	struct set s;
	int negate = 0, first = 1, single;

	memset(&s, 0, sizeof(s));
	ps->pos++;	/* '[' */
	if (peek(ps, 0) == '^') {
		negate = 1;
		ps->pos++;
	}
	for (;;) {
		int lo, hi;

		if (at_end(ps))
			return fail(ps, "unterminated [ class");
		if (peek(ps, 0) == ']' && !first) {
			ps->pos++;
			break;
		}
		first = 0;
		lo = class_element(ps, &s);
		if (lo < 0)
			return -1;
		if (lo == 256)
			continue;
		if (peek(ps, 0) == '-' && peek(ps, 1) >= 0 && peek(ps, 1) != ']') {
			ps->pos++;
			hi = class_element(ps, &s);
			if (hi < 0)
				return -1;
			if (hi == 256) {
				/* Perl: a range to a named set is the two ends and '-' */
				set_add(&s, lo);
				set_add(&s, '-');
				continue;
			}
			if (hi < lo)
				return fail(ps, "invalid range in [ class");
			set_add_range(&s, lo, hi);
			continue;
		}
		set_add(&s, lo);
	}
	if (ci)
		set_fold(&s);
	single = set_single(&s);
	if (single < 0) {
		int c, count = 0;

		for (c = 1; c < 256; c++)
			count += set_has(&s, c) != 0;
		if ((!negate && !count) || (negate && count == 255))
			return fail(ps, "[ class that matches nothing");
	}
	set_emit(ps->ere, &s, negate);
	if (!negate && single >= 0) {
		in->exact = 1;
		buf_addc(&in->lit, (char)single);
	}
	return 0;
}

static int parse_alt(struct parser *ps, int ci, struct info *out);

/* After '(' : a group, or an inline flag group (returns 1, emits
 * nothing and sets *ci), or a comment (returns 1). */
static int parse_group(struct parser *ps, int *ci, struct info *in)
{
	int inner = *ci;

	ps->pos++;	/* '(' */
	if (peek(ps, 0) == '?') {
		int on = 1, seen = 0, c;

		ps->pos++;
		if (peek(ps, 0) == '#') {
			while (!at_end(ps) && peek(ps, 0) != ')')
				ps->pos++;
			if (at_end(ps))
				return fail(ps, "unterminated (?# comment");
			ps->pos++;
			return 1;
		}
		for (;;) {
			c = peek(ps, 0);
			if (c == 'i') {
				inner = on;
				seen = 1;
			} else if (c == '-' && on) {
				on = 0;
			} else if (c == ':' || c == ')') {
				break;
			} else {
				return fail(ps, c == '=' || c == '!' || c == '<' ?
					    "unsupported look-around or named group" :
					    "unsupported (? group or flag (only (?:, (?i) and (?i: are)");
			}
			ps->pos++;
		}
		if (c == ')') {
			if (!seen && on)
				return fail(ps, "empty (?) flag group");
			ps->pos++;
			*ci = inner;
			return 1;
		}
		ps->pos++;	/* ':' */
	}
	if (++ps->depth > PERLRE_MAX_DEPTH)
		return fail(ps, "groups nested too deep");
	buf_addc(ps->ere, '(');
	if (parse_alt(ps, inner, in) < 0)
		return -1;
	if (peek(ps, 0) != ')')
		return fail(ps, "unmatched (");
	ps->pos++;
	buf_addc(ps->ere, ')');
	ps->depth--;
	return 0;
}

/*
 * One atom.  0 and *zero_width set for anchors; 1 for an atom that
 * matches nothing at all (an inline flag or a comment group).
 */
static int parse_atom(struct parser *ps, int *ci, struct info *in, int *zero_width)
{
	int c = peek(ps, 0), v;

	*zero_width = 0;
	switch (c) {
	case '(':
		return parse_group(ps, ci, in);
	case '[':
		return parse_class(ps, *ci, in);
	case '.':
		ps->pos++;
		buf_addc(ps->ere, '.');
		return 0;
	case '^':
	case '$':
		ps->pos++;
		buf_addc(ps->ere, (char)c);
		in->exact = 1;
		*zero_width = 1;
		return 0;
	case '*':
	case '+':
	case '?':
		return fail(ps, "quantifier follows nothing");
	case '{':
		return fail(ps, "unescaped '{' (write \\{)");
	case '\\':
		ps->pos++;
		v = peek(ps, 0);
		if (v == 'b' || v == 'B') {
			ps->pos++;
			buf_addc(ps->ere, '\\');
			buf_addc(ps->ere, (char)v);
			in->exact = 1;
			*zero_width = 1;
			return 0;
		}
		if (v > 0 && strchr("dwsDWS", v)) {
			struct set s;

			memset(&s, 0, sizeof(s));
			set_named(&s, v);
			ps->pos++;
			set_emit(ps->ere, &s, 0);
			return 0;
		}
		v = escape_char(ps);
		if (v < 0)
			return -1;
		emit_literal(ps, v, *ci);
		in->exact = 1;
		buf_addc(&in->lit, (char)tolower(v));
		return 0;
	default:
		ps->pos++;
		emit_literal(ps, c, *ci);
		in->exact = 1;
		buf_addc(&in->lit, (char)tolower(c));
		return 0;
	}
}

static int read_number(struct parser *ps, size_t *at, long *out)
{
	long n = 0;
	size_t i = *at;

	if (i >= ps->len || !isdigit((unsigned char)ps->p[i]))
		return 0;
	while (i < ps->len && isdigit((unsigned char)ps->p[i])) {
		n = n * 10 + (ps->p[i] - '0');
		if (n > 100000)
			n = 100000;
		i++;
	}
	*at = i;
	*out = n;
	return 1;
}

/*
 * A quantifier at the parser's position: 1 with min/max (max -1 for no
 * bound), 0 when there is none, -1 on error.
 */
static int parse_quantifier(struct parser *ps, long *min, long *max)
{
	int c = peek(ps, 0);
	size_t i;
	long a = 0, b = -1;
	int has_a, has_b;

	if (c == '*' || c == '+' || c == '?') {
		*min = c == '+';
		*max = c == '?' ? 1 : -1;
		ps->pos++;
		return 1;
	}
	if (c != '{')
		return 0;
	i = ps->pos + 1;
	has_a = read_number(ps, &i, &a);
	if (i < ps->len && ps->p[i] == '}') {
		if (!has_a)
			return fail(ps, "unescaped '{' (write \\{)");
		b = a;
	} else if (i < ps->len && ps->p[i] == ',') {
		i++;
		has_b = read_number(ps, &i, &b);
		if (!has_a && !has_b)
			return fail(ps, "unescaped '{' (write \\{)");
		if (!has_b)
			b = -1;
		if (i >= ps->len || ps->p[i] != '}')
			return fail(ps, "unescaped '{' (write \\{)");
	} else {
		return fail(ps, "unescaped '{' (write \\{)");
	}
	if (a > PERLRE_MAX_REPEAT || b > PERLRE_MAX_REPEAT)
		return fail(ps, "repetition count too large");
	if (b >= 0 && b < a)
		return fail(ps, "{n,m} with m < n");
	ps->pos = i + 1;
	*min = a;
	*max = b;
	return 1;
}

static void emit_quantifier(struct buf *ere, long min, long max)
{
	if (min == 0 && max == -1)
		buf_addc(ere, '*');
	else if (min == 1 && max == -1)
		buf_addc(ere, '+');
	else if (min == 0 && max == 1)
		buf_addc(ere, '?');
	else if (max == -1)
		buf_addf(ere, "{%ld,}", min);
	else if (min == max)
		buf_addf(ere, "{%ld}", min);
	else
		buf_addf(ere, "{%ld,%ld}", min, max);
}

/* A sequence of quantified atoms, up to '|' or ')' or the end. */
static int parse_seq(struct parser *ps, int *ci, struct info *out)
{
	struct buf run = BUF_INIT;
	int all_exact = 1, r = -1;

	for (;;) {
		struct info a;
		int zero_width, kind, q;
		long min = 1, max = 1;
		char *set[PERLRE_MAX_LITERALS];
		size_t n;

		skip_extended(ps);
		if (at_end(ps) || peek(ps, 0) == '|' || peek(ps, 0) == ')')
			break;
		info_init(&a);
		kind = parse_atom(ps, ci, &a, &zero_width);
		if (kind < 0) {
			info_release(&a);
			goto out;
		}
		skip_extended(ps);
		q = parse_quantifier(ps, &min, &max);
		if (q < 0) {
			info_release(&a);
			goto out;
		}
		if (q) {
			int next;

			if (kind == 1 || zero_width) {
				info_release(&a);
				fail(ps, "quantifier follows nothing");
				goto out;
			}
			if (peek(ps, 0) == '+') {
				info_release(&a);
				fail(ps, "unsupported possessive quantifier");
				goto out;
			}
			if (peek(ps, 0) == '?')
				ps->pos++;	/* lazy: the same matches exist */
			skip_extended(ps);
			next = peek(ps, 0);
			if (next == '*' || next == '+' || next == '?' ||
			    (next == '{' && isdigit(peek(ps, 1)))) {
				info_release(&a);
				fail(ps, "nested quantifiers");
				goto out;
			}
			emit_quantifier(ps->ere, min, max);
			if (!(min == 1 && max == 1)) {
				n = min >= 1 ? info_set(&a, set) : 0;
				info_release(&a);
				info_init(&a);
				for (size_t i = 0; i < n; i++)
					a.req[i] = set[i];
				a.nr_req = n;
				a.has_req = n > 0;
			}
		}
		if (kind == 1) {
			info_release(&a);
			continue;
		}
		if (a.exact) {
			buf_add(&run, a.lit.data, a.lit.len);
		} else {
			all_exact = 0;
			if (run.len) {
				set[0] = buf_detach(&run, NULL);
				req_offer(out, set, 1);
			}
			n = info_set(&a, set);
			req_offer(out, set, n);
		}
		info_release(&a);
	}
	if (all_exact) {
		out->exact = 1;
		buf_add(&out->lit, run.data, run.len);
	}
	if (run.len) {
		char *set[1];

		set[0] = buf_detach(&run, NULL);
		req_offer(out, set, 1);
	}
	r = 0;
out:
	buf_release(&run);
	return r;
}

static int parse_alt(struct parser *ps, int ci, struct info *out)
{
	int local_ci = ci, branches = 0, usable = 1;
	char *uni[PERLRE_MAX_LITERALS];
	size_t nu = 0, i;

	for (;;) {
		struct info b;
		char *set[PERLRE_MAX_LITERALS];
		size_t n, j;

		info_init(&b);
		if (parse_seq(ps, &local_ci, &b) < 0) {
			info_release(&b);
			set_free(uni, nu);
			return -1;
		}
		if (!branches) {
			/* one branch so far: the group is what it is */
			out->exact = b.exact;
			buf_add(&out->lit, b.lit.data, b.lit.len);
		}
		n = info_set(&b, set);
		if (!n)
			usable = 0;
		for (j = 0; j < n; j++) {
			size_t k;

			for (k = 0; k < nu && strcmp(uni[k], set[j]); k++)
				;
			if (k < nu || !usable) {
				free(set[j]);
			} else if (nu == PERLRE_MAX_LITERALS) {
				usable = 0;
				free(set[j]);
			} else {
				uni[nu++] = set[j];
			}
		}
		info_release(&b);
		branches++;
		if (peek(ps, 0) != '|')
			break;
		ps->pos++;
		buf_addc(ps->ere, '|');
	}
	if (branches > 1) {
		out->exact = 0;
		buf_reset(&out->lit);
	}
	info_clear_req(out);
	if (usable && nu) {
		for (i = 0; i < nu; i++)
			out->req[i] = uni[i];
		out->nr_req = nu;
		out->has_req = 1;
	} else {
		set_free(uni, nu);
	}
	return 0;
}

int perlre_new(const char *pattern, size_t len, unsigned flags, struct perlre **out, struct buf *err)
{
	struct perlre *re;
	struct parser ps;
	struct info top;
	size_t i;

	*out = NULL;
	if (len > PERLRE_MAX_PATTERN)
		return err_set(err, "pattern longer than %d bytes", PERLRE_MAX_PATTERN);
	if (memchr(pattern, '\0', len))
		return err_set(err, "NUL byte in pattern");
	re = xcalloc(1, sizeof(*re));
	buf_init(&re->ere);
	memset(&ps, 0, sizeof(ps));
	ps.p = pattern;
	ps.len = len;
	ps.flags = flags;
	ps.ere = &re->ere;
	ps.err = err;
	info_init(&top);
	if (parse_alt(&ps, 0, &top) < 0 ||
	    (!at_end(&ps) && fail(&ps, "unmatched )") < 0)) {
		info_release(&top);
		perlre_free(re);
		return -1;
	}
	re->nr_literals = info_set(&top, re->literals);
	for (i = 0; i < re->nr_literals; i++) {
		char *s;

		for (s = re->literals[i]; *s; s++)
			*s = (char)tolower((unsigned char)*s);
	}
	info_release(&top);
	*out = re;
	return 0;
}

void perlre_free(struct perlre *re)
{
	size_t i;

	if (!re)
		return;
	if (re->state == 1)
		regfree(&re->compiled);
	for (i = 0; i < re->nr_literals; i++)
		free(re->literals[i]);
	buf_release(&re->ere);
	free(re);
}

const char *perlre_ere(const struct perlre *re)
{
	return re->ere.data;
}

size_t perlre_nr_literals(const struct perlre *re)
{
	return re->nr_literals;
}

const char *perlre_literal(const struct perlre *re, size_t i)
{
	return re->literals[i];
}

int perlre_match(struct perlre *re, const char *s, struct buf *err)
{
	if (re->state == 0) {
		int e = regcomp(&re->compiled, re->ere.data, REG_EXTENDED | REG_NOSUB);

		if (e) {
			char msg[128];

			regerror(e, &re->compiled, msg, sizeof(msg));
			re->state = -1;
			return err_set(err, "regcomp refused '%s': %s", re->ere.data, msg);
		}
		re->state = 1;
	}
	if (re->state < 0)
		return err_set(err, "regcomp refused '%s'", re->ere.data);
	return regexec(&re->compiled, s, 0, NULL, 0) == 0;
}
