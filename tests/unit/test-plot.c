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
 * parsed back (frame, tick labels, markers) and compared with the input.
 * Golden plots live in data/plot/ next to this file (found through
 * __FILE__, so run this from the top directory, as make check does); run
 * with PERFBOT_UPDATE_GOLDEN=1 to rewrite them, then review the diff.
 */

#define FRAME_TOP 2		/* 0-based line of the top border */
#define FRAME_BOTTOM 18
#define XLABEL_LINE 19

struct parsed {
	char line[PLOT_HEIGHT][PLOT_WIDTH + 1];	/* NUL-terminated, unpadded */
	int left, right;	/* border columns */
	int nr_ticks;
	int tick_line[PLOT_HEIGHT];	/* top first */
	double tick[PLOT_HEIGHT];
	char label[PLOT_HEIGHT][64];
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

/* A label is a number printed like %g: "%.*g" for some precision 6..17
 * (or, past DBL_MAX, in its exponent form). */
static int is_g_format(const char *label, double v)
{
	char want[64];
	int prec;

	if (isinf(v)) {
		size_t n = strspn(label + (*label == '-'), "0123456789.");

		return n && !strncmp(label + (*label == '-') + n, "e+30", 4);
	}
	for (prec = 6; prec <= 17; prec++) {
		snprintf(want, sizeof(want), "%.*g", prec, v);
		if (!strcmp(want, label))
			return 1;
	}
	return 0;
}

/* The frame's borders and the y tick labels left of it. */
static void parse_frame(const char *text, struct parsed *p)
{
	const char *top = p->line[FRAME_TOP];
	/* the top line: blanks, its label, one blank, the border */
	const char *corner = top + strspn(top, " ");
	int i, col;

	corner += strcspn(corner, " ");
	p->left = (int)(corner + 1 - top);
	p->right = (int)strlen(top) - 1;
	assert_true(p->left >= 3);
	assert_int_equal(p->right, PLOT_WIDTH - 4);
	for (i = FRAME_TOP; i <= FRAME_BOTTOM; i++) {
		char l = at(p, i, p->left), r = at(p, i, p->right);
		const char *s = p->line[i];
		char label[64], *end;
		int start;

		if (i == FRAME_TOP || i == FRAME_BOTTOM) {
			assert_int_equal(l, '+');
			assert_int_equal(r, '+');
			for (col = p->left + 1; col < p->right; col++)
				if (!strchr("-+O", at(p, i, col)))
					fail_msg("line %d: '%c' in the border:\n%s", i + 1, at(p, i, col), text);
		} else if (!strchr("|+", l) || r != '|') {
			fail_msg("line %d: side borders '%c' '%c':\n%s", i + 1, l, r, text);
		}
		/* the label, if any: right-aligned, one blank before the border */
		for (start = 0; start < p->left && s[start] == ' '; start++)
			;
		if (start == p->left) {
			assert_int_not_equal(l, '+');
			continue;
		}
		assert_int_equal(l, '+');
		assert_int_equal(s[p->left - 1], ' ');
		assert_true(strchr("-+O", at(p, i, p->left + 1)) != NULL);
		assert_true(strchr("+O", at(p, i, p->left + 2)) != NULL);
		memcpy(label, s + start, (size_t)(p->left - 1 - start));
		label[p->left - 1 - start] = '\0';
		p->tick[p->nr_ticks] = strtod(label, &end);
		if (*end || !is_g_format(label, p->tick[p->nr_ticks]))
			fail_msg("line %d: label '%s' is not a %%g number:\n%s", i + 1, label, text);
		memcpy(p->label[p->nr_ticks], label, sizeof(label));
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

/* Ticks: top and bottom rows, 4 to 8 of them, decreasing evenly by a step
 * m x 10^k (m in 1, 2, 2.5, 5), each a multiple of the step. */
static void check_ticks(const char *text, const struct parsed *p)
{
	long long s[PLOT_HEIGHT], step = 0, m;
	int e[PLOT_HEIGHT], emin = INT_MAX, i, k;

	if (p->nr_ticks < 4 || p->nr_ticks > PLOT_MAX_YTICKS)
		fail_msg("%d y ticks:\n%s", p->nr_ticks, text);
	assert_int_equal(p->tick_line[0], FRAME_TOP);
	assert_int_equal(p->tick_line[p->nr_ticks - 1], FRAME_BOTTOM);
	for (i = 0; i < p->nr_ticks; i++) {
		if (decimal_parse(p->label[i], &s[i], &e[i]) < 0)
			fail_msg("label '%s' has too many digits:\n%s", p->label[i], text);
		if (e[i] < emin)
			emin = e[i];
	}
	/* all in units of 10^emin */
	for (i = 0; i < p->nr_ticks; i++)
		for (k = s[i] ? e[i] : emin; k > emin; k--) {
			if (llabs(s[i]) > LLONG_MAX / 20)
				fail_msg("labels of very different sizes:\n%s", text);
			s[i] *= 10;
		}
	for (i = 1; i < p->nr_ticks; i++) {
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
	for (i = 0; i < p->nr_ticks; i++)
		if (s[i] % step)
			fail_msg("tick %s is not a multiple of the step:\n%s", p->label[i], text);
}

/* The column of sample i of n: the centre of its share of the inside. */
static int sample_column(const struct parsed *p, size_t i, size_t n)
{
	size_t inside = (size_t)(p->right - p->left - 1);

	return p->left + 1 + (int)((2 * i + 1) * inside / (2 * n));
}

/*
 * The line a value should be on; *other is the other nearest line when
 * the value is so close to halfway that rounding may go either way (a
 * tick of many digits is itself a rounded double).
 */
static int value_line(const struct parsed *p, double v, int *other)
{
	double top = p->tick[0], bottom = p->tick[p->nr_ticks - 1];
	double rows = FRAME_BOTTOM - FRAME_TOP;
	double f = (top - v) / (top - bottom) * rows;
	double slack = 1e-6 + 64 * DBL_EPSILON * fmax(fabs(top), fabs(bottom)) / (top - bottom) * rows;

	*other = -1;
	if (fabs(f - floor(f) - 0.5) < slack)
		*other = FRAME_TOP + (int)floor(f) + (f - floor(f) < 0.5);
	return FRAME_TOP + (int)lround(f);
}

static void check_markers(const char *text, const struct parsed *p,
			  const double *good, size_t nr_good, const double *bad, size_t nr_bad)
{
	size_t n = nr_good + nr_bad, i, nr_o = 0;
	int line, col, inside = p->right - p->left - 1;
	double top = p->tick[0], bottom = p->tick[p->nr_ticks - 1];

	for (line = 1; line < PLOT_HEIGHT; line++)	/* the title may hold an 'O' */
		for (col = 0; p->line[line][col]; col++)
			if (p->line[line][col] == 'O') {
				if (line < FRAME_TOP || line > FRAME_BOTTOM ||
				    col <= p->left || col >= p->right)
					fail_msg("an 'O' outside the frame:\n%s", text);
				nr_o++;
			}
	if (n > (size_t)inside) {
		/* several samples a column: some may share a cell */
		assert_true(nr_o <= nr_bad);
		assert_true(!nr_bad || nr_o > 0);
		return;
	}
	assert_int_equal(nr_o, nr_bad);
	for (i = 0; i < n; i++) {
		double v = i < nr_good ? good[i] : bad[i - nr_good];
		char want = i < nr_good ? '+' : 'O';
		int other, l;

		col = sample_column(p, i, n);
		if (!(bottom <= v && v <= top) && isfinite(top) && isfinite(bottom))
			fail_msg("%g is outside the y range:\n%s", v, text);
		if (!isfinite(top) || !isfinite(bottom)) {
			for (l = FRAME_TOP; l <= FRAME_BOTTOM && at(p, l, col) != want; l++)
				;
			if (l > FRAME_BOTTOM)
				fail_msg("no '%c' in column %d:\n%s", want, col, text);
			continue;
		}
		l = value_line(p, v, &other);
		if (at(p, l, col) != want && (other < 0 || at(p, other, col) != want))
			fail_msg("sample %zu (%g) is not a '%c' on line %d, column %d:\n%s",
				 i, v, want, l + 1, col, text);
	}
}

/* The x labels: 0 first, increasing evenly by 1, 2 or 5 x 10^k, each
 * under its sample's column, none past the last sample. */
static void check_x_labels(const char *text, const struct parsed *p, size_t n)
{
	const char *s = p->line[XLABEL_LINE];
	long prev = -1, step = 0, t;
	int nr = 0;

	while (*s) {
		char *end;
		int start, col;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		start = (int)(s - p->line[XLABEL_LINE]);
		t = strtol(s, &end, 10);
		if (end == s || (*end && *end != ' '))
			fail_msg("x label at column %d is not a number:\n%s", start, text);
		if (t < 0 || (size_t)t >= n || t <= prev || (!nr && t))
			fail_msg("x label %ld out of order:\n%s", t, text);
		if (nr == 1)
			step = t - prev;
		else if (nr > 1 && t - prev != step)
			fail_msg("x labels not evenly spaced:\n%s", text);
		col = sample_column(p, (size_t)t, n);
		if (col < start || col >= start + (int)(end - s))
			fail_msg("x label %ld is not under column %d:\n%s", t, col, text);
		prev = t;
		nr++;
		s = end;
	}
	if (!nr)
		fail_msg("no x labels:\n%s", text);
	if (step) {
		long m = step;

		while (m % 10 == 0)
			m /= 10;
		assert_true(m == 1 || m == 2 || m == 5);
	}
}

static void check_title(const char *text, const struct parsed *p, const char *title)
{
	const char *s = p->line[0];
	size_t lead = strspn(s, " "), len = strlen(s + lead), want = strlen(title);
	double mid, frame_mid;

	assert_int_equal(strlen(p->line[1]), 0);
	while (want && title[want - 1] == ' ')
		want--;
	if (!want) {
		assert_int_equal(strlen(s), 0);
		return;
	}
	while (*title == ' ' && want) {
		title++;
		want--;
	}
	if (want != len || memcmp(s + lead, title, len))
		fail_msg("title '%s' is not '%.*s':\n%s", s + lead, (int)want, title, text);
	mid = lead + len / 2.0;
	frame_mid = (p->left + p->right) / 2.0;
	if (fabs(mid - frame_mid) > 1.5)
		fail_msg("title is not centred over the frame:\n%s", text);
}

/* Render and check every invariant; the text is left in *out. */
static void render_and_check(struct buf *out, const char *title,
			     const double *good, size_t nr_good, const double *bad, size_t nr_bad)
{
	struct buf err = BUF_INIT;
	struct parsed p;

	if (plot_render(out, title, good, nr_good, bad, nr_bad, &err) < 0)
		fail_msg("plot_render failed: %s", err.data);
	buf_release(&err);
	split_lines(out->data, &p);
	parse_frame(out->data, &p);
	check_ticks(out->data, &p);
	check_markers(out->data, &p, good, nr_good, bad, nr_bad);
	check_x_labels(out->data, &p, nr_good + nr_bad);
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
	{ "all equal", { CONST, 42, 0, 10 }, { CONST, 42, 0, 10 } },
	{ "all zero", { CONST, 0, 0, 5 }, { CONST, 0, 0, 5 } },
	{ "all equal, huge", { CONST, 1e300, 0, 3 }, { CONST, 1e300, 0, 3 } },
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
	{ "only good", { SINE, 1000, 300, 60 }, { CONST, 0, 0, 0 } },
	{ "only bad", { CONST, 0, 0, 0 }, { SINE, 0.5, 0.25, 60 } },
	{ "as many as columns", { NOISE, 10, 1, 34 }, { NOISE, 12, 1, 34 } },
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

static void tick_labels_are_round_and_compact(void **state)
{
	static const struct {
		double v[4];
		const char *want;	/* the labels, top first */
	} cases[] = {
		{ { 1.121e8, 1.139e8, 1.13e8, 1.125e8 },
		  "1.14e+08 1.135e+08 1.13e+08 1.125e+08 1.12e+08" },
		{ { 1.03e8, 1.12e8, 1.05e8, 1.11e8 },
		  "1.14e+08 1.12e+08 1.1e+08 1.08e+08 1.06e+08 1.04e+08 1.02e+08" },
		{ { 10000, 1.6e6, 900000, 600000 },
		  "1.75e+06 1.5e+06 1.25e+06 1e+06 750000 500000 250000 0" },
		{ { 0.1, 1.9, 1, 1.2 }, "2 1.5 1 0.5 0" },
		{ { -6.5, 9, 0, 1 }, "10 7.5 5 2.5 0 -2.5 -5 -7.5" },
		{ { -0.5, -3, -1, -2 }, "0 -0.5 -1 -1.5 -2 -2.5 -3 -3.5" },
		{ { 1.2e-5, 4.1e-5, 2e-5, 3e-5 },
		  "4.5e-05 4e-05 3.5e-05 3e-05 2.5e-05 2e-05 1.5e-05 1e-05" },
		{ { 0.00012, 0.00031, 0.0002, 0.0003 }, "0.00035 0.0003 0.00025 0.0002 0.00015 0.0001" },
		{ { 1000000, 1000007, 1000003, 1000004 },
		  "1000008 1000006 1000004 1000002 1000000 999998" },
		{ { 5, 5, 5, 5 }, "5.06 5.04 5.02 5 4.98 4.96 4.94" },
		{ { 0, 0, 0, 0 }, "1 0.5 0 -0.5 -1" },
		{ { DBL_MAX, -DBL_MAX, 0, 1 }, "2e+308 1e+308 0 -1e+308 -2e+308" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT, got = BUF_INIT;
		struct parsed p;
		int t;

		render_and_check(&out, "ticks", cases[i].v, 4, NULL, 0);
		split_lines(out.data, &p);
		for (t = FRAME_TOP; t <= FRAME_BOTTOM; t++) {
			const char *s = p.line[t] + strspn(p.line[t], " ");

			if (*s != '|')
				buf_addf(&got, "%s%.*s", got.len ? " " : "", (int)strcspn(s, " "), s);
		}
		if (strcmp(got.data, cases[i].want))
			fail_msg("case %zu: labels '%s', want '%s':\n%s", i, got.data, cases[i].want,
				 out.data);
		buf_release(&out);
		buf_release(&got);
	}
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
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v[3] = { cases[i].v, cases[i].v, cases[i].v };
		struct buf out = BUF_INIT;
		struct parsed p;
		int mid = (FRAME_TOP + FRAME_BOTTOM) / 2;

		render_and_check(&out, "flat", v, 2, v, 1);
		split_lines(out.data, &p);
		if (label_line(&p, cases[i].label) != mid)
			fail_msg("case %zu: '%s' is not the middle tick:\n%s", i, cases[i].label,
				 out.data);
		assert_non_null(strchr(p.line[mid], '+'));
		assert_non_null(strchr(p.line[mid], 'O'));
		buf_release(&out);
	}
}

static void one_sample_is_centred(void **state)
{
	double v = 7;
	struct buf out = BUF_INIT;
	struct parsed p;
	int mid = (FRAME_TOP + FRAME_BOTTOM) / 2, col;

	(void)state;
	render_and_check(&out, "one", &v, 1, NULL, 0);
	split_lines(out.data, &p);
	parse_frame(out.data, &p);
	col = sample_column(&p, 0, 1);
	assert_int_equal(at(&p, mid, col), '+');
	assert_string_equal(p.line[XLABEL_LINE] + strspn(p.line[XLABEL_LINE], " "), "0");
	buf_release(&out);

	render_and_check(&out, "one", NULL, 0, &v, 1);
	split_lines(out.data, &p);
	assert_int_equal(at(&p, mid, col), 'O');
	buf_release(&out);
}

/* Values >= 0 keep 0 as the bottom tick, values <= 0 as the top one. */
static void zero_bounds_a_one_signed_range(void **state)
{
	double pos[] = { 0, 3, 10 }, neg[] = { -10, -3, 0 };
	struct buf out = BUF_INIT;
	struct parsed p;

	(void)state;
	render_and_check(&out, "pos", pos, 3, NULL, 0);
	split_lines(out.data, &p);
	parse_frame(out.data, &p);
	assert_true(p.tick[p.nr_ticks - 1] == 0);
	assert_true(p.tick[0] > 10);	/* headroom above the largest */
	buf_release(&out);

	render_and_check(&out, "neg", NULL, 0, neg, 3);
	split_lines(out.data, &p);
	parse_frame(out.data, &p);
	assert_true(p.tick[0] == 0);
	assert_true(p.tick[p.nr_ticks - 1] < -10);
	buf_release(&out);
}

/* Extreme values stay off the top and bottom border. */
static void extremes_get_headroom(void **state)
{
	double v[] = { 100, 120, 140, 160, 180, 200 };
	struct buf out = BUF_INIT;
	struct parsed p;
	int col;

	(void)state;
	render_and_check(&out, "headroom", v, 6, NULL, 0);
	split_lines(out.data, &p);
	parse_frame(out.data, &p);
	for (col = p.left + 3; col < p.right; col++) {
		assert_int_not_equal(at(&p, FRAME_TOP, col), '+');
		if (at(&p, FRAME_BOTTOM, col) == '+')
			assert_int_not_equal(p.line[XLABEL_LINE][col], ' ');	/* an x tick */
	}
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
	assert_int_equal(strlen(p.line[0]), PLOT_WIDTH);
	assert_int_equal(strspn(p.line[0], "x"), PLOT_WIDTH);
	buf_release(&out);

	/* 79 bytes and a 2-byte character: the character goes whole */
	memset(utf8, 'y', 79);
	memcpy(utf8 + 79, "\xc3\xa9", 3);
	assert_int_equal(plot_render(&out, utf8, v, 2, NULL, 0, NULL), 0);
	split_lines(out.data, &p);
	assert_int_equal(strspn(p.line[0] + strspn(p.line[0], " "), "y"), 79);
	assert_null(strchr(p.line[0], '\xc3'));
	buf_release(&out);

	render_and_check(&out, "caf\xc3\xa9 ns", v, 2, NULL, 0);
	buf_release(&out);

	assert_int_equal(plot_render(&out, "a\tb\nc\x7f" "d", v, 2, NULL, 0, NULL), 0);
	split_lines(out.data, &p);
	assert_string_equal(p.line[0] + strspn(p.line[0], " "), "a?b?c?d");
	buf_release(&out);

	assert_int_equal(plot_render(&out, NULL, v, 2, NULL, 0, NULL), 0);
	split_lines(out.data, &p);
	assert_string_equal(p.line[0], "");
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

/* Read off the trend plot of seed 002 (lkp, 2018): pxz.throughput. */
static const double pxz_good[] = {
	111950000, 111700000, 111950000, 111750000, 111950000, 111700000, 111750000, 111950000,
	111800000, 111700000, 111950000, 111950000, 111700000, 111750000, 111950000, 112000000,
	111700000, 111950000, 111700000, 111750000, 111700000, 111950000, 111700000, 111700000,
	111750000, 111700000, 111100000, 111950000, 111750000, 111950000, 111700000, 111750000,
};
static const double pxz_bad[] = {
	106000000, 105000000, 107000000, 104000000, 106000000, 107000000, 104000000, 104000000,
	106000000, 107000000, 104000000, 104000000, 103000000, 104000000, 106000000,
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
		cmocka_unit_test(tick_labels_are_round_and_compact),
		cmocka_unit_test(equal_values_sit_mid_frame),
		cmocka_unit_test(one_sample_is_centred),
		cmocka_unit_test(zero_bounds_a_one_signed_range),
		cmocka_unit_test(extremes_get_headroom),
		cmocka_unit_test(titles_are_cleaned_and_cut),
		cmocka_unit_test(output_is_appended),
		cmocka_unit_test(rendering_is_fast),
		cmocka_unit_test(errors_leave_out_unchanged),
		cmocka_unit_test(golden_plots),
	};

	return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
