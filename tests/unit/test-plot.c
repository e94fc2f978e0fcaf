#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <setjmp.h>
#include <cmocka.h>

#include "buf.h"
#include "plot.h"

/*
 * The plot's contract (plot.h) checked from the outside: the text is
 * parsed back (layout, frame, tick labels, markers) and compared with the
 * input.  Golden plots live in data/plot/ next to this file (found through
 * __FILE__, so run this from the top directory, as make check does); run
 * with PERFBOT_UPDATE_GOLDEN=1 to rewrite them, then review the diff.
 */

/* 0-based lines and columns of the layout in plot.h */
#define TITLE_LINE 1
#define FRAME_TOP 3
#define FRAME_BOTTOM 17
#define ROWS (FRAME_BOTTOM - FRAME_TOP)	/* intervals between the rows */
#define LEFT 11			/* column 12, 1-based */
#define RIGHT 76		/* column 77 */
#define MID_LINE ((FRAME_TOP + FRAME_BOTTOM) / 2)
#define MID_COLUMN 44		/* a lone sample: x range [-1:1] */

struct parsed {
	char line[PLOT_HEIGHT][PLOT_WIDTH + 1];	/* NUL-terminated, unpadded */
	int nr_ticks;
	int tick_line[PLOT_HEIGHT];	/* top first */
	double tick[PLOT_HEIGHT];
	char label[PLOT_HEIGHT][PLOT_LABEL_WIDTH + 1];
};

/* What the input implies for the checks. */
struct facts {
	double min, max;
	int exact;		/* labels must be exact: they surely fit */
	int flat;		/* surely drawn as a widened empty range */
};

static char at(const struct parsed *p, int line, int col)
{
	return col < (int)strlen(p->line[line]) ? p->line[line][col] : ' ';
}

/* 20 lines, each ending in '\n', at most 80 bytes, no trailing blank. */
static void split_lines(const char *text, struct parsed *p)
{
	const char *s = text;
	int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < PLOT_HEIGHT; i++) {
		const char *nl = strchr(s, '\n');
		size_t len;

		if (!nl)
			fail_msg("line %d has no newline:\n%s", i + 1, text);
		len = (size_t)(nl - s);
		if (len > PLOT_WIDTH)
			fail_msg("line %d is %zu bytes long:\n%s", i + 1, len, text);
		if (len && s[len - 1] == ' ')
			fail_msg("line %d has a trailing space:\n%s", i + 1, text);
		memcpy(p->line[i], s, len);
		s = nl + 1;
	}
	if (*s)
		fail_msg("more than %d lines:\n%s", PLOT_HEIGHT, text);
}

/* A label is a number printed like %g: "%.*g" for some precision 1..17
 * (or, past DBL_MAX, in its exponent form). */
static int is_g_format(const char *label, double v)
{
	char want[64];
	int prec;

	if (isinf(v)) {
		size_t n = strspn(label + (*label == '-'), "0123456789.");

		return n && !strncmp(label + (*label == '-') + n, "e+30", 4);
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(want, sizeof(want), "%.*g", prec, v);
		if (!strcmp(want, label))
			return 1;
	}
	return 0;
}

static int in(char c, const char *set)
{
	return c && strchr(set, c);
}

/*
 * The layout: empty lines 1, 3, 19 and 20; the frame's borders in columns
 * 12 and 77 (markers may cover them); y labels right-aligned in columns
 * 1-10 with "+-+" after them, on the top and bottom rows at least.
 */
static void parse_frame(const char *text, struct parsed *p)
{
	int i, col;

	for (i = 0; i < PLOT_HEIGHT; i++)
		if ((i < FRAME_TOP || i > FRAME_BOTTOM) && i != TITLE_LINE && p->line[i][0])
			fail_msg("line %d is not empty:\n%s", i + 1, text);
	for (i = FRAME_TOP; i <= FRAME_BOTTOM; i++) {
		const char *s = p->line[i];
		int border = i == FRAME_TOP || i == FRAME_BOTTOM, start;
		char *end;

		if (strlen(s) != RIGHT + 1)
			fail_msg("line %d does not end at the right border:\n%s", i + 1, text);
		if (!in(s[RIGHT], border ? "+O" : "|+O") || !in(s[LEFT], border ? "+O" : "|+O"))
			fail_msg("line %d: borders '%c' '%c':\n%s", i + 1, s[LEFT], s[RIGHT], text);
		for (col = LEFT + 3; col < RIGHT; col++)
			if (!in(s[col], border ? "-+O" : " .+O"))
				fail_msg("line %d: '%c' in column %d:\n%s", i + 1, s[col], col + 1, text);
		if (s[LEFT - 1] != ' ')
			fail_msg("line %d: column %d is not blank:\n%s", i + 1, LEFT, text);
		for (start = 0; start < LEFT - 1 && s[start] == ' '; start++)
			;
		if (start == LEFT - 1) {
			if (border)
				fail_msg("line %d has no y label:\n%s", i + 1, text);
			if (!in(s[LEFT + 1], " .+O") || !in(s[LEFT + 2], " .+O"))
				fail_msg("line %d: a tick without a label:\n%s", i + 1, text);
			continue;
		}
		/* a tick: "+-+", markers may cover it */
		if (!in(s[LEFT], "+O") || !in(s[LEFT + 1], "-+O") || !in(s[LEFT + 2], "+O"))
			fail_msg("line %d: a label without a tick:\n%s", i + 1, text);
		if (start + strcspn(s + start, " ") != LEFT - 1)
			fail_msg("line %d: the label is not one word before column %d:\n%s",
				 i + 1, LEFT, text);
		memcpy(p->label[p->nr_ticks], s + start, (size_t)(LEFT - 1 - start));
		p->tick[p->nr_ticks] = strtod(p->label[p->nr_ticks], &end);
		if (*end || !is_g_format(p->label[p->nr_ticks], p->tick[p->nr_ticks]))
			fail_msg("line %d: label '%s' is not a %%g number:\n%s", i + 1,
				 p->label[p->nr_ticks], text);
		p->tick_line[p->nr_ticks++] = i;
	}
}

/* A label as an exact decimal s x 10^e (s without trailing zeros), so
 * that ticks of many digits can be compared exactly; -1 if too long. */
static int decimal_parse(const char *label, long long *s, int *e)
{
	const char *p = label + (*label == '-');
	int frac = 0, seen_point = 0;

	*s = 0;
	*e = 0;
	for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
		if (*p == '.') {
			seen_point = 1;
			continue;
		}
		if (*s > (LLONG_MAX - 9) / 10)
			return -1;
		*s = *s * 10 + (*p - '0');
		frac += seen_point;
	}
	if (*p == 'e')
		*e = atoi(p + 1);
	*e -= frac;
	while (*s && *s % 10 == 0) {
		*s /= 10;
		(*e)++;
	}
	if (!*s)
		*e = INT_MAX;	/* 0 takes any exponent */
	if (*label == '-')
		*s = -*s;
	return 0;
}

/* gnuplot's quantize_normal_tics(r, 20), r > 0: 0.2, 0.5 or 1 x 10^p. */
static double gnuplot_step(double r)
{
	double power = pow(10, floor(log10(r))), xnorm = r / power;

	if (xnorm >= 10) {
		power *= 10;
		xnorm /= 10;
	} else if (xnorm < 1) {
		power /= 10;
		xnorm *= 10;
	}
	return (xnorm < 2 ? 0.2 : xnorm < 5 ? 0.5 : 1) * power;
}

/*
 * Ticks: the top and bottom rows among them, at most one a row, labels
 * not increasing downwards.  Exact labels also decrease evenly by a step
 * m x 10^k (m in 1, 2, 2.5, 5), are multiples of it, each on the row
 * nearest its value; for a range that is not widened, the step is
 * gnuplot's and the ends are the multiples of it just outside the values.
 */
static void check_ticks(const char *text, const struct parsed *p, const struct facts *f)
{
	long long s[PLOT_HEIGHT], step = 0, m;
	int e[PLOT_HEIGHT], emin = INT_MAX, n = p->nr_ticks, i, k;
	double top = p->tick[0], bottom = p->tick[n - 1], dstep, slack;

	if (n < 2 || p->tick_line[0] != FRAME_TOP || p->tick_line[n - 1] != FRAME_BOTTOM)
		fail_msg("the top and bottom rows are not ticks:\n%s", text);
	for (i = 1; i < n; i++)
		if (p->tick[i] > p->tick[i - 1])
			fail_msg("ticks increase downwards:\n%s", text);
	if (!f->exact)
		return;
	for (i = 0; i < n; i++) {
		if (decimal_parse(p->label[i], &s[i], &e[i]) < 0)
			fail_msg("label '%s' has too many digits:\n%s", p->label[i], text);
		if (e[i] < emin)
			emin = e[i];
	}
	/* all in units of 10^emin */
	for (i = 0; i < n; i++)
		for (k = s[i] ? e[i] : emin; k > emin; k--) {
			if (llabs(s[i]) > LLONG_MAX / 20)
				fail_msg("labels of very different sizes:\n%s", text);
			s[i] *= 10;
		}
	for (i = 1; i < n; i++) {
		if (s[i] >= s[i - 1])
			fail_msg("ticks do not decrease:\n%s", text);
		if (i == 1)
			step = s[0] - s[1];
		else if (s[i - 1] - s[i] != step)
			fail_msg("ticks are not evenly spaced:\n%s", text);
	}
	for (m = step; m % 10 == 0; m /= 10)
		;
	if (m != 1 && m != 2 && m != 25 && m != 5)
		fail_msg("the step is not 1, 2, 2.5 or 5 x 10^k:\n%s", text);
	for (i = 0; i < n; i++) {
		int from_bottom = n - 1 - i;

		if (s[i] % step)
			fail_msg("tick %s is not a multiple of the step:\n%s", p->label[i], text);
		if (p->tick_line[i] != FRAME_BOTTOM - (2 * from_bottom * ROWS + n - 1) / (2 * (n - 1)))
			fail_msg("tick %s is not on the row nearest its value:\n%s", p->label[i], text);
	}
	if (f->flat || !isfinite(top) || !isfinite(bottom))
		return;
	dstep = (top - bottom) / (n - 1);
	slack = 1e-8 * dstep;
	if (fabs(dstep - gnuplot_step(f->max - f->min)) > slack)
		fail_msg("step %g is not gnuplot's %g for [%g, %g]:\n%s", dstep,
			 gnuplot_step(f->max - f->min), f->min, f->max, text);
	if (!(bottom <= f->min + slack && f->min - slack < bottom + dstep &&
	      f->max - slack <= top && top - dstep < f->max + slack))
		fail_msg("[%g, %g] is not [%g, %g] extended to whole steps:\n%s", bottom, top,
			 f->min, f->max, text);
}

/* The column of sample i of n: x = 0 on the left border, n - 1 on the
 * right one, the nearest column (halves right); a lone one mid-frame. */
static int sample_column(size_t i, size_t n)
{
	if (n == 1)
		return MID_COLUMN;
	return LEFT + (int)((2 * i * (RIGHT - LEFT) + n - 1) / (2 * (n - 1)));
}

/*
 * The line a value should be on; *other is the other nearest line when
 * the value is so close to halfway that rounding may go either way (a
 * tick of many digits is itself a rounded double).
 */
static int value_line(const struct parsed *p, double v, int *other)
{
	double top = p->tick[0], bottom = p->tick[p->nr_ticks - 1];
	double f = (v - bottom) / (top - bottom) * ROWS;
	double slack = 1e-6 + 64 * DBL_EPSILON * fmax(fabs(top), fabs(bottom)) / (top - bottom) * ROWS;

	*other = -1;
	if (fabs(f - floor(f) - 0.5) < slack)
		*other = FRAME_BOTTOM - (int)floor(f) - (f - floor(f) < 0.5);
	return FRAME_BOTTOM - (int)floor(f + 0.5);
}

/* Whether column col holds c on some line of the frame. */
static int column_has(const struct parsed *p, int col, char c)
{
	int l;

	for (l = FRAME_TOP; l <= FRAME_BOTTOM; l++)
		if (at(p, l, col) == c)
			return 1;
	return 0;
}

/* The dots of lines in the frame (a label's decimal point is none). */
static int nr_dots(const struct parsed *p)
{
	int line, col, n = 0;

	for (line = FRAME_TOP; line <= FRAME_BOTTOM; line++)
		for (col = LEFT; p->line[line][col]; col++)
			n += p->line[line][col] == '.';
	return n;
}

/*
 * Markers: bad sample i an 'O', good sample i a '+' (or an 'O' over it),
 * both in column sample_column(i, max(nr_good, nr_bad)), on the row of the
 * value when the labels say where that is; as many 'O's as bad samples
 * when the samples have a column each; dots only inside the frame, and
 * only with two good samples or more.
 */
static void check_markers(const char *text, const struct parsed *p, const struct facts *f,
			  const double *good, size_t nr_good, const double *bad, size_t nr_bad)
{
	size_t n = nr_good > nr_bad ? nr_good : nr_bad, i, nr_o = 0, nr_dots = 0;
	int line, col;
	int rows_known = f->exact && isfinite(p->tick[0]) && isfinite(p->tick[p->nr_ticks - 1]);

	for (line = FRAME_TOP; line <= FRAME_BOTTOM; line++)
		for (col = 0; p->line[line][col]; col++) {
			char c = p->line[line][col];

			if (c == 'O' && col < LEFT)
				fail_msg("an 'O' left of the frame:\n%s", text);
			if (c == 'O')
				nr_o++;
			if (col < LEFT)
				continue;	/* "1.5": no dot of a line */
			if (c == '.')
				nr_dots++;
			if (c == '.' && (col == LEFT || col == RIGHT ||
					 line == FRAME_TOP || line == FRAME_BOTTOM))
				fail_msg("a '.' on the border:\n%s", text);
		}
	if (nr_good < 2 && nr_dots)
		fail_msg("dots without two good samples:\n%s", text);
	if (n <= RIGHT - LEFT + 1)
		assert_int_equal(nr_o, nr_bad);
	else
		assert_true(nr_o <= nr_bad && (!nr_bad || nr_o > 0));
	for (i = 0; i < nr_good + nr_bad; i++) {
		int is_bad = i >= nr_good;
		size_t x = is_bad ? i - nr_good : i;
		double v = is_bad ? bad[x] : good[x];
		int other, l;

		col = sample_column(x, n);
		if (!rows_known) {
			if (!column_has(p, col, 'O') && (is_bad || !column_has(p, col, '+')))
				fail_msg("no marker for sample %zu in column %d:\n%s", i, col + 1, text);
			continue;
		}
		if (!(p->tick[p->nr_ticks - 1] <= v && v <= p->tick[0]))
			fail_msg("%g is outside the y range:\n%s", v, text);
		l = value_line(p, v, &other);
		if (at(p, l, col) != 'O' && (is_bad || at(p, l, col) != '+') &&
		    (other < 0 || !in(at(p, other, col), is_bad ? "O" : "+O")))
			fail_msg("%s sample %zu (%g) is not on line %d, column %d:\n%s",
				 is_bad ? "bad" : "good", x, v, l + 1, col + 1, text);
	}
}

/* The title, cleaned, centred over the 80 columns as gnuplot does. */
static void check_title(const char *text, const struct parsed *p, const char *title)
{
	const char *s = p->line[TITLE_LINE];
	size_t lead = strspn(s, " "), len = strlen(s + lead), want = title ? strlen(title) : 0;
	size_t cols = 0, i;

	while (want && title[want - 1] == ' ')
		want--;
	while (want && *title == ' ') {
		title++;
		want--;
	}
	if (!want) {
		assert_string_equal(s, "");
		return;
	}
	if (want > PLOT_WIDTH)
		return;		/* cut: see titles_are_cleaned_and_cut */
	for (i = 0; i < want; i++)
		if ((unsigned char)title[i] < 0x20 || title[i] == 0x7f)
			return;	/* cleaned: see titles_are_cleaned_and_cut */
	if (want != len || memcmp(s + lead, title, len))
		fail_msg("title '%s' is not '%.*s':\n%s", s + lead, (int)want, title, text);
	for (i = 0; i < len; i++)
		cols += ((unsigned char)s[lead + i] & 0xc0) != 0x80;
	if (lead + cols / 2 != PLOT_WIDTH / 2 && lead + len != PLOT_WIDTH)
		fail_msg("title is not centred:\n%s", text);
}

static void get_facts(struct facts *f, const double *good, size_t nr_good,
		      const double *bad, size_t nr_bad)
{
	double big, spread;
	size_t i;

	f->min = INFINITY;
	f->max = -INFINITY;
	for (i = 0; i < nr_good + nr_bad; i++) {
		double v = i < nr_good ? good[i] : bad[i - nr_good];

		f->min = fmin(f->min, v);
		f->max = fmax(f->max, v);
	}
	big = fmax(fabs(f->min), fabs(f->max));
	spread = f->max - f->min;	/* may be inf */
	f->flat = spread < 1e-290 || spread < 0.9e-12 * big;
	/*
	 * Exact labels surely fit 10 columns when the ticks have at most 4
	 * digits (values within 100 spreads of 0: the step is over a tenth of
	 * the spread, so |tick| < 1001 steps) and 2-digit exponents.
	 */
	if (f->flat)
		f->exact = big < 1e-290 || (big > 1e-95 && big < 1e95);
	else
		f->exact = spread > 3e-290 && spread > 1.1e-12 * big && big <= 100 * spread &&
			   big > 1e-95 && big < 1e95;
}

/* Render and check every invariant; the text is left in *out. */
static void render_and_check(struct buf *out, const char *title,
			     const double *good, size_t nr_good, const double *bad, size_t nr_bad)
{
	struct buf err = BUF_INIT;
	struct parsed p;
	struct facts f;

	if (plot_render(out, title, good, nr_good, bad, nr_bad, &err) < 0)
		fail_msg("plot_render failed: %s", err.data);
	buf_release(&err);
	get_facts(&f, good, nr_good, bad, nr_bad);
	split_lines(out->data, &p);
	parse_frame(out->data, &p);
	check_ticks(out->data, &p, &f);
	check_markers(out->data, &p, &f, good, nr_good, bad, nr_bad);
	check_title(out->data, &p, title);
}

/* --- inputs ------------------------------------------------------------ */

static uint64_t rng_state;

/* xorshift64: repeatable, and no integer overflow for sanitizers to flag */
static double rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

enum shape { CONST, NOISE, RAMP, SINE, SPAN, ALTERNATE };

struct series {
	enum shape shape;
	double a, b;		/* CONST: a; NOISE: a +- b; RAMP: a to b;
				 * SINE: a + b sin; SPAN: a x (b/a)^(i/n);
				 * ALTERNATE: a, b, a, ... */
	size_t n;
};

static double *make_series(const struct series *s)
{
	double *v = calloc(s->n ? s->n : 1, sizeof(*v));
	size_t i;

	assert_non_null(v);
	for (i = 0; i < s->n; i++) {
		double f = s->n > 1 ? (double)i / (double)(s->n - 1) : 0;

		switch (s->shape) {
		case CONST: v[i] = s->a; break;
		case NOISE: v[i] = s->a + s->b * (2 * rnd() - 1); break;
		case RAMP: v[i] = s->a + (s->b - s->a) * f; break;
		case SINE: v[i] = s->a + s->b * sin((double)i / 7.0); break;
		case SPAN: v[i] = exp(log(s->a) + (log(s->b) - log(s->a)) * f); break;
		case ALTERNATE: v[i] = i % 2 ? s->b : s->a; break;
		}
	}
	return v;
}

static const struct shape_case {
	const char *name;
	struct series good, bad;
} shape_cases[] = {
	{ "pxz.throughput", { NOISE, 1.1175e8, 3e5, 32 }, { NOISE, 1.05e8, 1.5e6, 15 } },
	{ "one good sample", { CONST, 5, 0, 1 }, { CONST, 0, 0, 0 } },
	{ "one bad sample", { CONST, 0, 0, 0 }, { CONST, -7.25, 0, 1 } },
	{ "one each", { CONST, 3, 0, 1 }, { CONST, 4, 0, 1 } },
	{ "all equal", { CONST, 42, 0, 10 }, { CONST, 42, 0, 10 } },
	{ "all zero", { CONST, 0, 0, 5 }, { CONST, 0, 0, 5 } },
	{ "all equal, huge", { CONST, 1e300, 0, 3 }, { CONST, 1e300, 0, 3 } },
	{ "all equal, huge, negative", { CONST, -1e300, 0, 3 }, { CONST, -1e300, 0, 3 } },
	{ "all equal, negative", { CONST, -3e-7, 0, 4 }, { CONST, -3e-7, 0, 2 } },
	{ "equal to 1e-15", { CONST, 1e15, 0, 2 }, { CONST, 1e15 + 0.125, 0, 2 } },
	{ "negative", { NOISE, -250, 40, 20 }, { NOISE, -400, 40, 20 } },
	{ "across zero", { RAMP, -3, 2, 12 }, { RAMP, 2, -3, 12 } },
	{ "1e-3 to 1e9", { SPAN, 1e-3, 1e9, 30 }, { ALTERNATE, 1e-3, 1e9, 10 } },
	{ "1e-300 to 1e300", { SPAN, 1e-300, 1e300, 20 }, { CONST, 0, 0, 0 } },
	{ "DBL_MAX both ways", { ALTERNATE, DBL_MAX, -DBL_MAX, 9 }, { CONST, DBL_MAX, 0, 3 } },
	{ "denormals", { ALTERNATE, 5e-324, 0, 6 }, { CONST, 1e-310, 0, 6 } },
	{ "tiny spread", { ALTERNATE, 1e-200, 3e-200, 6 }, { CONST, 2e-200, 0, 6 } },
	{ "2^53 + 0..1e5", { RAMP, 9007199254740992.0, 9007199254840992.0, 8 }, { CONST, 0, 0, 0 } },
	{ "1e12 + 0..7", { RAMP, 1e12, 1e12 + 7, 8 }, { CONST, 1e12 + 3, 0, 2 } },
	{ "only good", { SINE, 1000, 300, 60 }, { CONST, 0, 0, 0 } },
	{ "only bad", { CONST, 0, 0, 0 }, { SINE, 0.5, 0.25, 60 } },
	{ "more bad than good", { NOISE, 10, 1, 5 }, { NOISE, 12, 1, 40 } },
	{ "as many as columns", { NOISE, 10, 1, 66 }, { NOISE, 12, 1, 66 } },
	{ "one more than columns", { NOISE, 10, 1, 67 }, { NOISE, 12, 1, 67 } },
	{ "more samples than columns", { SINE, 1000, 50, 700 }, { SINE, 900, 30, 500 } },
	{ "PLOT_MAX_SAMPLES", { NOISE, 3, 1, PLOT_MAX_SAMPLES / 2 },
	  { NOISE, 5, 1, PLOT_MAX_SAMPLES / 2 } },
};

static void shapes_hold_for_all_inputs(void **state)
{
	size_t i;

	(void)state;
	rng_state = 1;
	for (i = 0; i < sizeof(shape_cases) / sizeof(shape_cases[0]); i++) {
		const struct shape_case *c = &shape_cases[i];
		double *good = make_series(&c->good), *bad = make_series(&c->bad);
		struct buf out = BUF_INIT;

		render_and_check(&out, c->name, good, c->good.n, bad, c->bad.n);
		buf_release(&out);
		free(good);
		free(bad);
	}
}

/* Random sizes, magnitudes and signs: the invariants hold for all. */
static void shapes_hold_for_random_inputs(void **state)
{
	double good[200], bad[200];
	int round;

	(void)state;
	rng_state = 42;
	for (round = 0; round < 3000; round++) {
		size_t ng = (size_t)(rnd() * 100), nb = (size_t)(rnd() * 100), i;
		double centre = pow(10, rnd() * 40 - 20) * (rnd() < 0.3 ? -1 : 1);
		double spread = fabs(centre) * pow(10, -rnd() * 14);
		struct buf out = BUF_INIT;

		if (!ng && !nb)
			nb = 1;
		for (i = 0; i < ng; i++)
			good[i] = centre + spread * (rnd() - 0.5);
		for (i = 0; i < nb; i++)
			bad[i] = centre + spread * (rnd() - 0.3);
		if (round % 10 == 0 && ng)
			good[0] = 0;
		render_and_check(&out, "random", good, ng, bad, nb);
		buf_release(&out);
	}
}

/* --- tick labels ------------------------------------------------------- */

/* The labels top first, separated by one blank. */
static void labels_of(const char *text, struct buf *got)
{
	struct parsed p;
	int i;

	split_lines(text, &p);
	parse_frame(text, &p);
	for (i = 0; i < p.nr_ticks; i++)
		buf_addf(got, "%s%s", i ? " " : "", p.label[i]);
}

/* gnuplot's step for r = max - min (0.2, 0.5, 1 x 10^floor(log10 r) as
 * r / 10^k is below 2, below 5, or above), the range extended outward to
 * whole steps, labels as %g with more digits only where needed. */
static void tick_labels_follow_gnuplot(void **state)
{
	static const struct {
		double v[4];
		size_t n;
		const char *want;	/* the labels, top first */
	} cases[] = {
		/* seed 002: r = 9.2e6, step 1e6 */
		{ { 1.029e8, 1.1205e8 }, 2,
		  "1.13e+08 1.12e+08 1.11e+08 1.1e+08 1.09e+08 1.08e+08 1.07e+08 1.06e+08 "
		  "1.05e+08 1.04e+08 1.03e+08 1.02e+08" },
		{ { 1.121e8, 1.139e8, 1.13e8, 1.125e8 }, 4,
		  "1.14e+08 1.138e+08 1.136e+08 1.134e+08 1.132e+08 1.13e+08 1.128e+08 1.126e+08 "
		  "1.124e+08 1.122e+08 1.12e+08" },
		/* the boundaries of gnuplot's table */
		{ { 0, 1 }, 2, "1 0.8 0.6 0.4 0.2 0" },
		{ { 0, 1.99 }, 2, "2 1.8 1.6 1.4 1.2 1 0.8 0.6 0.4 0.2 0" },
		{ { 0, 2 }, 2, "2 1.5 1 0.5 0" },
		{ { 0, 4.9 }, 2, "5 4.5 4 3.5 3 2.5 2 1.5 1 0.5 0" },
		{ { 0, 5 }, 2, "5 4 3 2 1 0" },
		{ { 0, 9.9 }, 2, "10 9 8 7 6 5 4 3 2 1 0" },
		{ { 0, 10 }, 2, "10 8 6 4 2 0" },
		/* extended outward on both sides */
		{ { 3, 1003 }, 2, "1200 1000 800 600 400 200 0" },
		{ { 10000, 1.6e6, 900000, 600000 }, 4,
		  "1.6e+06 1.4e+06 1.2e+06 1e+06 800000 600000 400000 200000 0" },
		{ { 0.1, 1.9, 1, 1.2 }, 4, "2 1.8 1.6 1.4 1.2 1 0.8 0.6 0.4 0.2 0" },
		{ { -6.5, 9, 0, 1 }, 4, "10 8 6 4 2 0 -2 -4 -6 -8" },
		{ { -0.5, -3, -1, -2 }, 4, "-0.5 -1 -1.5 -2 -2.5 -3" },
		{ { 1.2e-5, 4.1e-5, 2e-5, 3e-5 }, 4,
		  "4.5e-05 4e-05 3.5e-05 3e-05 2.5e-05 2e-05 1.5e-05 1e-05" },
		{ { 0.00012, 0.00031, 0.0002, 0.0003 }, 4,
		  "0.00032 0.0003 0.00028 0.00026 0.00024 0.00022 0.0002 0.00018 0.00016 "
		  "0.00014 0.00012" },
		/* whole steps in decimal, though 0.3 / 0.05 < 6 in doubles */
		{ { 0.3, 0.7 }, 2, "0.7 0.65 0.6 0.55 0.5 0.45 0.4 0.35 0.3" },
		/* more digits than %g's 6 where the ticks need them */
		{ { 1000000, 1000007, 1000003, 1000004 }, 4,
		  "1000007 1000006 1000005 1000004 1000003 1000002 1000001 1000000" },
		{ { 1234560, 1234570 }, 2, "1234570 1234568 1234566 1234564 1234562 1234560" },
		{ { -123456700, -123456100 }, 2,
		  "-123456100 -123456200 -123456300 -123456400 -123456500 -123456600 -123456700" },
		/* no exact form fits 10 columns: cut to a precision that does */
		{ { 1.2345678e10, 1.2345679e10 }, 2,
		  "1.2346e+10 1.2346e+10 1.2346e+10 1.2346e+10 1.2346e+10 1.2346e+10" },
		/* empty ranges widened by 1%, or by 1 around 0 */
		{ { 5, 5, 5, 5 }, 4, "5.06 5.04 5.02 5 4.98 4.96 4.94" },
		{ { 0, 0, 0, 0 }, 4, "1 0.5 0 -0.5 -1" },
		{ { -2 }, 1, "-1.98 -1.985 -1.99 -1.995 -2 -2.005 -2.01 -2.015 -2.02" },
		/* r = 5000: xnorm is 5, posns 4, so the step is 1000 */
		{ { 250000 }, 1, "253000 252000 251000 250000 249000 248000 247000" },
		/* ticks past DBL_MAX, written from their digits */
		{ { DBL_MAX, -DBL_MAX, 0, 1 }, 4,
		  "2e+308 1.5e+308 1e+308 5e+307 0 -5e+307 -1e+308 -1.5e+308 -2e+308" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT, got = BUF_INIT;

		render_and_check(&out, "ticks", cases[i].v, cases[i].n, NULL, 0);
		labels_of(out.data, &got);
		if (strcmp(got.data, cases[i].want))
			fail_msg("case %zu: labels '%s', want '%s':\n%s", i, got.data, cases[i].want,
				 out.data);
		buf_release(&out);
		buf_release(&got);
	}
}

/* Each tick on the row nearest its value, the halves up: 12 ticks on 15
 * rows as in seed 002 leave rows 3, 8 and 13 (1-based) without one. */
static void ticks_take_the_nearest_rows(void **state)
{
	static const char *const want[] = {
		"  1.13e+08 +-+", "  1.12e+08 +-+", "           |", "  1.11e+08 +-+",
		"   1.1e+08 +-+", "  1.09e+08 +-+", "  1.08e+08 +-+", "           |",
		"  1.07e+08 +-+", "  1.06e+08 +-+", "  1.05e+08 +-+", "  1.04e+08 +-+",
		"           |", "  1.03e+08 +-+", "  1.02e+08 +-+",
	};
	double v[] = { 1.029e8, 1.1205e8 };
	struct buf out = BUF_INIT;
	struct parsed p;
	int i;

	(void)state;
	render_and_check(&out, "rows", v, 1, v + 1, 1);
	split_lines(out.data, &p);
	for (i = 0; i < 15; i++) {
		const char *line = p.line[FRAME_TOP + i];
		size_t len = strlen(want[i]);

		if (strncmp(line, want[i], len) || (line[len] != '-' && line[len] != ' '))
			fail_msg("line %d is not '%s...':\n%s", FRAME_TOP + i + 1, want[i], out.data);
	}
	buf_release(&out);
}

/* --- the drawing ------------------------------------------------------- */

/* Good sample i and bad sample i share a column: x = 0 on the left
 * border, the last x (of the longer series) on the right one. */
static void both_series_start_at_the_left_border(void **state)
{
	double good[] = { 10, 10, 10, 10, 10 }, bad[] = { 0, 0, 0 };
	static const int col[] = { LEFT, 27, 44, 60, RIGHT };	/* 65 x i / 4, rounded */
	struct buf out = BUF_INIT;
	struct parsed p;
	int i;

	(void)state;
	render_and_check(&out, "overlay", good, 5, bad, 3);
	split_lines(out.data, &p);
	for (i = 0; i < 5; i++) {
		assert_int_equal(at(&p, FRAME_TOP, col[i]), '+');
		assert_int_equal(at(&p, FRAME_BOTTOM, col[i]), i < 3 ? 'O' : i == 4 ? '+' : '-');
	}
	assert_string_equal(p.line[FRAME_BOTTOM],
			    "         0 O-+-------------O----------------O--------------"
			    "-----------------+");
	buf_release(&out);

	/* the other way round: 5 bad, 3 good */
	render_and_check(&out, "overlay", bad, 3, good, 5);
	split_lines(out.data, &p);
	for (i = 0; i < 5; i++)
		assert_int_equal(at(&p, FRAME_TOP, col[i]), 'O');
	for (i = 0; i < 3; i++)
		assert_int_equal(at(&p, FRAME_BOTTOM, col[i]), '+');
	buf_release(&out);
}

/* 'O' wins a cell from '+'. */
static void bad_covers_good(void **state)
{
	double good[] = { 1, 2, 3 }, bad[] = { 1, 0, 3 };
	struct buf out = BUF_INIT;
	struct parsed p;

	(void)state;
	render_and_check(&out, "cover", good, 3, bad, 3);
	split_lines(out.data, &p);
	assert_int_equal(at(&p, FRAME_BOTTOM - 5, LEFT), 'O');	/* 1: 2 x 14 / 6 rows up */
	assert_int_equal(at(&p, FRAME_TOP, RIGHT), 'O');
	assert_int_equal(at(&p, FRAME_BOTTOM - 9, MID_COLUMN), '+');	/* 2 */
	assert_int_equal(at(&p, FRAME_BOTTOM, MID_COLUMN), 'O');	/* 0 */
	buf_release(&out);
}

/* Dots between consecutive good points, only on blank cells: not on the
 * tick's "+-+", not between bad samples. */
static void good_samples_are_joined_by_dots(void **state)
{
	double good[] = { 5, 5, 5 };
	struct buf out = BUF_INIT, want = BUF_INIT;
	struct parsed p;
	int line;

	(void)state;
	render_and_check(&out, "dots", good, 3, good, 0);
	split_lines(out.data, &p);
	buf_adds(&want, "         5 +-+");
	buf_addchars(&want, '.', MID_COLUMN - LEFT - 3);
	buf_addc(&want, '+');
	buf_addchars(&want, '.', RIGHT - MID_COLUMN - 1);
	buf_addc(&want, '+');
	assert_string_equal(p.line[MID_LINE], want.data);
	buf_release(&out);

	render_and_check(&out, "no dots", NULL, 0, good, 3);
	split_lines(out.data, &p);
	assert_int_equal(nr_dots(&p), 0);
	buf_release(&out);
	buf_release(&want);

	/* a climb: a dot on each row between */
	good[0] = 0;
	good[1] = 14;
	render_and_check(&out, "climb", good, 2, NULL, 0);
	split_lines(out.data, &p);
	for (line = FRAME_TOP + 1; line < FRAME_BOTTOM; line++)
		assert_non_null(strchr(p.line[line] + LEFT + 1, '.'));
	buf_release(&out);
}

/* No headroom: the extreme values may sit on the top and bottom border
 * rows, as gnuplot's ranges end on the ticks next to them. */
static void extremes_may_sit_on_the_border(void **state)
{
	double v[] = { 150, 200, 100, 150 };
	struct buf out = BUF_INIT;
	struct parsed p;

	(void)state;
	render_and_check(&out, "border", v, 4, NULL, 0);
	split_lines(out.data, &p);
	assert_int_equal(at(&p, FRAME_TOP, 33), '+');	/* x = 1: 65 / 3 = 21.7 */
	assert_int_equal(at(&p, FRAME_BOTTOM, 54), '+');	/* x = 2: 43.3 */
	assert_true(!strncmp(p.line[FRAME_TOP], "       200 +-+", 14));
	assert_true(!strncmp(p.line[FRAME_BOTTOM], "       100 +-+", 14));
	buf_release(&out);
}

/* --- degenerate inputs -------------------------------------------------- */

/* The line whose label is want, or -1. */
static int label_line(const struct parsed *p, const char *want)
{
	int i;

	for (i = FRAME_TOP; i <= FRAME_BOTTOM; i++) {
		const char *s = p->line[i] + strspn(p->line[i], " ");

		if (!strncmp(s, want, strlen(want)) && s[strlen(want)] == ' ')
			return i;
	}
	return -1;
}

static void equal_values_sit_mid_frame(void **state)
{
	static const struct {
		double v;
		const char *label;
	} cases[] = {
		{ 5, "5" }, { 0, "0" }, { -3, "-3" }, { 1e9, "1e+09" }, { 1e-250, "1e-250" },
		{ 1e-300, "0" },	/* below 1e-290 counts as 0 */
		{ 42, "42" }, { 7, "7" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v[3] = { cases[i].v, cases[i].v, cases[i].v };
		struct buf out = BUF_INIT;
		struct parsed p;

		render_and_check(&out, "flat", v, 2, v, 1);
		split_lines(out.data, &p);
		if (label_line(&p, cases[i].label) != MID_LINE)
			fail_msg("case %zu: '%s' is not the middle tick:\n%s", i, cases[i].label,
				 out.data);
		assert_int_equal(at(&p, MID_LINE, LEFT), 'O');
		assert_int_equal(at(&p, MID_LINE, RIGHT), '+');
		buf_release(&out);
	}
}

/* gnuplot widens the empty x range of one sample to [-1:1]. */
static void one_sample_is_centred(void **state)
{
	double v = 7;
	struct buf out = BUF_INIT;
	struct parsed p;

	(void)state;
	render_and_check(&out, "one", &v, 1, NULL, 0);
	split_lines(out.data, &p);
	assert_int_equal(at(&p, MID_LINE, MID_COLUMN), '+');
	assert_int_equal(nr_dots(&p), 0);
	buf_release(&out);

	render_and_check(&out, "one", NULL, 0, &v, 1);
	split_lines(out.data, &p);
	assert_int_equal(at(&p, MID_LINE, MID_COLUMN), 'O');
	buf_release(&out);
}

static void titles_are_cleaned_and_cut(void **state)
{
	char long_title[300], utf8[100];
	double v[] = { 1, 2 };
	struct buf out = BUF_INIT;
	struct parsed p;

	(void)state;
	memset(long_title, 'x', sizeof(long_title) - 1);
	long_title[sizeof(long_title) - 1] = '\0';
	assert_int_equal(plot_render(&out, long_title, v, 2, NULL, 0, NULL), 0);
	split_lines(out.data, &p);
	assert_int_equal(strlen(p.line[TITLE_LINE]), PLOT_WIDTH);
	assert_int_equal(strspn(p.line[TITLE_LINE], "x"), PLOT_WIDTH);
	buf_release(&out);

	/* 79 bytes and a 2-byte character: the character goes whole */
	memset(utf8, 'y', 79);
	memcpy(utf8 + 79, "\xc3\xa9", 3);
	assert_int_equal(plot_render(&out, utf8, v, 2, NULL, 0, NULL), 0);
	split_lines(out.data, &p);
	assert_int_equal(strspn(p.line[TITLE_LINE] + strspn(p.line[TITLE_LINE], " "), "y"), 79);
	assert_null(strchr(p.line[TITLE_LINE], '\xc3'));
	buf_release(&out);

	/* centred by characters, not bytes: 7 of them from column 38 */
	render_and_check(&out, "caf\xc3\xa9 ns", v, 2, NULL, 0);
	split_lines(out.data, &p);
	assert_string_equal(p.line[TITLE_LINE], "                                     caf\xc3\xa9 ns");
	buf_release(&out);

	/* as the seed: 14 characters from column 34 */
	render_and_check(&out, "pxz.throughput", v, 2, NULL, 0);
	split_lines(out.data, &p);
	assert_string_equal(p.line[TITLE_LINE], "                                 pxz.throughput");
	buf_release(&out);

	assert_int_equal(plot_render(&out, "a\tb\nc\x7f" "d", v, 2, NULL, 0, NULL), 0);
	split_lines(out.data, &p);
	assert_string_equal(p.line[TITLE_LINE] + strspn(p.line[TITLE_LINE], " "), "a?b?c?d");
	buf_release(&out);

	render_and_check(&out, NULL, v, 2, NULL, 0);
	split_lines(out.data, &p);
	assert_string_equal(p.line[TITLE_LINE], "");
	buf_release(&out);
}

static void output_is_appended(void **state)
{
	double v[] = { 1, 2 };
	struct buf out = BUF_INIT;

	(void)state;
	buf_adds(&out, "before\n");
	assert_int_equal(plot_render(&out, "t", v, 1, v + 1, 1, NULL), 0);
	assert_memory_equal(out.data, "before\n", 7);
	assert_int_equal(out.len, 7 + strlen(out.data + 7));
	buf_release(&out);
}

/* Hundreds of plots a second, trivially: here 2000 within a few seconds
 * even under sanitizers. */
static void rendering_is_fast(void **state)
{
	double good[50], bad[50];
	clock_t start = clock();
	int i;

	(void)state;
	rng_state = 7;
	for (i = 0; i < 50; i++) {
		good[i] = 1e6 + 1e4 * rnd();
		bad[i] = 9e5 + 1e4 * rnd();
	}
	for (i = 0; i < 2000; i++) {
		struct buf out = BUF_INIT;

		assert_int_equal(plot_render(&out, "speed", good, 50, bad, 50, NULL), 0);
		buf_release(&out);
	}
	assert_true((double)(clock() - start) / CLOCKS_PER_SEC < 5.0);
}

/* --- errors ------------------------------------------------------------ */

static void errors_leave_out_unchanged(void **state)
{
	static const double ok[] = { 1, 2, 3 };
	static double nan_at_2[3], inf_at_0[2], ninf_at_1[2];
	static const struct {
		const double *good;
		size_t nr_good;
		const double *bad;
		size_t nr_bad;
		size_t limit;
		const char *want;
	} cases[] = {
		{ NULL, 0, NULL, 0, 0, "no samples to plot" },
		{ ok, PLOT_MAX_SAMPLES, ok, 1, 0, "too many samples to plot: more than 100000" },
		{ ok, 0, ok, PLOT_MAX_SAMPLES + 1, 0, "too many samples to plot: more than 100000" },
		{ ok, SIZE_MAX, ok, 2, 0, "too many samples to plot: more than 100000" },
		{ nan_at_2, 3, ok, 3, 0, "good[2] is not a finite number" },
		{ ok, 3, inf_at_0, 2, 0, "bad[0] is not a finite number" },
		{ ninf_at_1, 2, NULL, 0, 0, "good[1] is not a finite number" },
		{ ok, 3, ok, 3, 100, "the plot does not fit in the output buffer" },
	};
	size_t i;

	(void)state;
	nan_at_2[2] = NAN;
	inf_at_0[0] = INFINITY;
	ninf_at_1[1] = -INFINITY;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT;

		buf_adds(&out, "kept");
		out.limit = cases[i].limit;
		assert_int_equal(plot_render(&out, "t", cases[i].good, cases[i].nr_good,
					     cases[i].bad, cases[i].nr_bad, &err), -1);
		assert_string_equal(out.data, "kept");
		assert_int_equal(out.len, 4);
		assert_string_equal(err.data, cases[i].want);
		/* a NULL err is allowed too */
		assert_int_equal(plot_render(&out, "t", cases[i].good, cases[i].nr_good,
					     cases[i].bad, cases[i].nr_bad, NULL), -1);
		assert_string_equal(out.data, "kept");
		buf_release(&out);
		buf_release(&err);
	}
}

/* --- golden plots ------------------------------------------------------- */

/*
 * Read off the trend plot of seed 002 (lkp, 2018): pxz.throughput.  The
 * seed's plot has more markers than 32 + 15 samples at distinct x would
 * give (lkp plotted several runs per commit), so these keep its rows and
 * its shape: the good samples on and just below 1.12e+08, one at 1.11e+08
 * near the end; the bad ones at 1.03e+08-1.07e+08, as many on each row as
 * in the seed.
 */
static const double pxz_good[] = {
	112000000, 111750000, 111700000, 111650000, 111950000, 112000000, 111950000, 111700000,
	111900000, 111950000, 112050000, 111750000, 111950000, 111900000, 111700000, 112000000,
	111750000, 111700000, 111950000, 111900000, 111650000, 111700000, 111750000, 111950000,
	111700000, 111000000, 111750000, 111700000, 111650000, 111700000, 111750000, 111700000,
};
static const double pxz_bad[] = {
	106000000, 105000000, 106000000, 106000000, 106000000, 107000000, 102900000, 107000000,
	104000000, 107000000, 104000000, 104000000, 104000000, 104000000, 104000000,
};

/* Read off a 2020 lkp plot: will-it-scale.per_thread_ops, a rise. */
static const double wis_good[] = {
	6900, 7000, 6800, 6700, 6700, 6800, 6700, 7000, 6700, 6700, 6700, 6900, 7000, 7000,
	6700, 6800, 6700, 6700, 6900, 7000, 6800, 6800, 6700, 6900, 7000, 7000,
};
static const double wis_bad[] = {
	12000, 12000, 12500, 11900, 11000, 9000, 8800, 9000, 11900, 11600, 9000, 8800, 9000,
	10000, 11000, 12500, 10000, 9000, 11000, 12500, 11800, 12000, 11800, 12400, 11900,
};

static void check_golden(const char *name, const char *title, const double *good, size_t nr_good,
			 const double *bad, size_t nr_bad)
{
	struct buf path = BUF_INIT, want = BUF_INIT, got = BUF_INIT, err = BUF_INIT;
	const char *file = __FILE__, *slash = strrchr(file, '/');

	buf_addf(&path, "%.*sdata/plot/%s.txt", slash ? (int)(slash - file + 1) : 0, file, name);
	render_and_check(&got, title, good, nr_good, bad, nr_bad);
	if (getenv("PERFBOT_UPDATE_GOLDEN")) {
		FILE *f = fopen(path.data, "w");

		assert_non_null(f);
		fputs(got.data, f);
		assert_int_equal(fclose(f), 0);
	}
	if (buf_read_file(&want, path.data, 1 << 16, &err) < 0)
		fail_msg("%s", err.data);
	if (strcmp(got.data, want.data))
		fail_msg("%s differs from the plot drawn now:\n%s", path.data, got.data);
	buf_release(&path);
	buf_release(&want);
	buf_release(&got);
	buf_release(&err);
}

static void golden_plots(void **state)
{
	(void)state;
	check_golden("pxz.throughput", "pxz.throughput", pxz_good,
		     sizeof(pxz_good) / sizeof(pxz_good[0]), pxz_bad,
		     sizeof(pxz_bad) / sizeof(pxz_bad[0]));
	check_golden("will-it-scale.per_thread_ops", "will-it-scale.per_thread_ops", wis_good,
		     sizeof(wis_good) / sizeof(wis_good[0]), wis_bad,
		     sizeof(wis_bad) / sizeof(wis_bad[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shapes_hold_for_all_inputs),
		cmocka_unit_test(shapes_hold_for_random_inputs),
		cmocka_unit_test(tick_labels_follow_gnuplot),
		cmocka_unit_test(ticks_take_the_nearest_rows),
		cmocka_unit_test(both_series_start_at_the_left_border),
		cmocka_unit_test(bad_covers_good),
		cmocka_unit_test(good_samples_are_joined_by_dots),
		cmocka_unit_test(extremes_may_sit_on_the_border),
		cmocka_unit_test(equal_values_sit_mid_frame),
		cmocka_unit_test(one_sample_is_centred),
		cmocka_unit_test(titles_are_cleaned_and_cut),
		cmocka_unit_test(output_is_appended),
		cmocka_unit_test(rendering_is_fast),
		cmocka_unit_test(errors_leave_out_unchanged),
		cmocka_unit_test(golden_plots),
	};

	return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
