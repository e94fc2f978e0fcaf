#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "banned.h"

/* Lines of the plot, 0-based (see plot.h for the layout). */
#define TITLE_LINE 0
#define FRAME_TOP 2
#define FRAME_ROWS 17
#define FRAME_BOTTOM (FRAME_TOP + FRAME_ROWS - 1)
#define XLABEL_LINE (FRAME_BOTTOM + 1)

/* As gnuplot: the right border leaves room for the last x label. */
#define RIGHT_BORDER (PLOT_WIDTH - 4)
/* Longest y label: "-1.2345678901234567e+308" is 24 bytes. */
#define LABEL_MAX 32
/* Below this a spread of values counts as none (see y_range()). */
#define FLAT_RELATIVE 1e-12
#define TINY 1e-290

/*
 * The y axis.  Ticks are t x step for the integers t0 <= t <= t1, and
 * step = m10 / 10 x 10^e.  Geometry is done in units of step, so that no
 * tick value is ever formed as a double (the top tick of values near
 * DBL_MAX would overflow); labels are written from the integers.
 */
struct yaxis {
	int m10;		/* 10 x the mantissa of step: 10, 20, 25 or 50 */
	int e;			/* decimal exponent of step */
	double step;		/* m10 / 10 x 10^e, for placing values */
	double t0, t1;		/* bottom and top tick, in steps (integers) */
	int nr_ticks;		/* t1 - t0 + 1, at most PLOT_MAX_YTICKS */
	char label[PLOT_MAX_YTICKS][LABEL_MAX];	/* bottom tick first */
	int width;		/* of the widest label */
};

struct canvas {
	char cell[PLOT_HEIGHT][PLOT_WIDTH];
	int left;		/* column of the left border */
	size_t nr;		/* samples, good and bad */
};

/*
 * The range to cover as a centre and a half-width, both finite for any
 * finite input (max - min itself can overflow).  A spread too small to
 * draw becomes +-1% around the value, as gnuplot widens an empty range;
 * such a made-up range is flagged flat, and *sign is -1 or 1 when all
 * values are <= 0 or >= 0 (0 stays the top or bottom tick then).
 */
static void y_range(const double *good, size_t nr_good, const double *bad, size_t nr_bad,
		    double *centre, double *half, int *flat, int *sign)
{
	double min = INFINITY, max = -INFINITY, big;
	size_t i;

	for (i = 0; i < nr_good + nr_bad; i++) {
		double v = i < nr_good ? good[i] : bad[i - nr_good];

		min = fmin(min, v);
		max = fmax(max, v);
	}
	*centre = min / 2 + max / 2;
	*half = max / 2 - min / 2;
	*sign = min >= 0 ? 1 : max <= 0 ? -1 : 0;
	big = fmax(fabs(min), fabs(max));
	*flat = !(*half >= TINY && *half > big * (FLAT_RELATIVE / 2));
	if (!*flat)
		return;
	if (fabs(*centre) < TINY) {
		*centre = 0;
		*half = 1;
	} else {
		*half = fabs(*centre) / 100;
	}
}

/*
 * Ticks t0 <= t1 (in steps) that cover [lo, hi] (in steps) with headroom:
 * the extreme values stay half a row away from the top and bottom border
 * (so that they do not land on it), except that a range of values >= 0
 * keeps 0 as its bottom tick, and one of values <= 0 keeps 0 as its top.
 */
static void y_cover(double lo, double hi, int flat, int sign, double *t0, double *t1)
{
	*t0 = floor(lo);
	*t1 = ceil(hi);
	if (*t1 <= *t0)
		*t1 = *t0 + 1;
	if (flat)
		return;
	while ((*t1 - hi) * 2 * (FRAME_ROWS - 1) < *t1 - *t0 && (sign >= 0 || *t1 < 0))
		(*t1)++;
	while ((lo - *t0) * 2 * (FRAME_ROWS - 1) < *t1 - *t0 && (sign <= 0 || *t0 > 0))
		(*t0)--;
}

/*
 * The smallest step m x 10^e (m in 1, 2, 2.5, 5) whose ticks cover the
 * range with at most PLOT_MAX_YTICKS of them.  Every step of the sequence
 * is at most twice the one before, and headroom adds at most one tick at
 * each end, so the one before needed 7 ticks without headroom: the range
 * spans more than 4 of its steps, more than 2 of the chosen one, which
 * then needs at least 4 ticks.  The range is at least TINY and at most
 * DBL_MAX wide on each side, so the search starts at a normal number and
 * ends by e = 308 (a step of 1e308 covers [-DBL_MAX, DBL_MAX] with 5
 * ticks).  The ticks then need at most 17 digits: |t0|, |t1| < 2e15.
 */
static void y_step(struct yaxis *ax, double centre, double half, int flat, int sign)
{
	static const int m10s[] = { 10, 20, 25, 50 };
	int e = (int)floor(log10(half / PLOT_MAX_YTICKS)) - 1;
	size_t k;

	for (; e <= 308; e++) {
		for (k = 0; k < sizeof(m10s) / sizeof(m10s[0]); k++) {
			double step = m10s[k] / 10.0 * pow(10, e);
			double t0, t1;

			if (!isfinite(step))
				break;
			y_cover(centre / step - half / step, centre / step + half / step,
				flat, sign, &t0, &t1);
			if (t1 - t0 + 1 <= PLOT_MAX_YTICKS) {
				ax->m10 = m10s[k];
				ax->e = e;
				ax->step = step;
				ax->t0 = t0;
				ax->t1 = t1;
				ax->nr_ticks = (int)(t1 - t0) + 1;
				return;
			}
		}
	}
	/* not reached (see above); a range that surely covers the values */
	ax->m10 = 10;
	ax->e = 308;
	ax->step = 1e308;
	ax->t0 = -2;
	ax->t1 = 2;
	ax->nr_ticks = 5;
}

/* The tick t x step as digits (|t x m10| without its trailing zeros) and
 * the exponent of the last digit; returns the number of digits, 0 for 0. */
static int tick_digits(const struct yaxis *ax, long long t, char digits[24], int *exp10)
{
	unsigned long long u;

	*exp10 = ax->e - 1;
	if (!t) {
		digits[0] = '\0';
		return 0;
	}
	u = (unsigned long long)(t < 0 ? -t : t);	/* |t| < 2e15, see y_step() */
	u *= (unsigned)ax->m10;
	while (u % 10 == 0) {
		u /= 10;
		(*exp10)++;
	}
	return snprintf(digits, 24, "%llu", u);
}

/*
 * The label of tick t as printf's "%.*g" with precision prec would print
 * the exact decimal value (prec is at least the number of digits, so
 * nothing is rounded).
 */
static void tick_format(const struct yaxis *ax, long long t, int prec, char *out)
{
	char digits[24];
	int exp10, nr = tick_digits(ax, t, digits, &exp10), lead, i;
	char *p = out;

	if (!nr) {
		memcpy(out, "0", 2);
		return;
	}
	if (t < 0)
		*p++ = '-';
	lead = exp10 + nr - 1;	/* exponent of the first digit */
	if (lead < -4 || lead >= prec) {
		*p++ = digits[0];
		if (nr > 1) {
			*p++ = '.';
			memcpy(p, digits + 1, (size_t)nr - 1);
			p += nr - 1;
		}
		snprintf(p, (size_t)(out + LABEL_MAX - p), "e%c%02d", lead < 0 ? '-' : '+', abs(lead));
		return;
	}
	if (exp10 >= 0) {
		memcpy(p, digits, (size_t)nr);
		p += nr;
		for (i = 0; i < exp10; i++)
			*p++ = '0';
	} else if (lead >= 0) {
		memcpy(p, digits, (size_t)lead + 1);
		p += lead + 1;
		*p++ = '.';
		memcpy(p, digits + lead + 1, (size_t)(nr - lead - 1));
		p += nr - lead - 1;
	} else {
		*p++ = '0';
		*p++ = '.';
		for (i = 0; i < -lead - 1; i++)
			*p++ = '0';
		memcpy(p, digits, (size_t)nr);
		p += nr;
	}
	*p = '\0';
}

/* Labels like %g: 6 significant digits, more only if a tick needs them. */
static void y_labels(struct yaxis *ax)
{
	char digits[24];
	int prec = 6, exp10, i;

	for (i = 0; i < ax->nr_ticks; i++) {
		int nr = tick_digits(ax, (long long)ax->t0 + i, digits, &exp10);

		if (nr > prec)
			prec = nr;
	}
	ax->width = 0;
	for (i = 0; i < ax->nr_ticks; i++) {
		int len;

		tick_format(ax, (long long)ax->t0 + i, prec, ax->label[i]);
		len = (int)strlen(ax->label[i]);
		if (len > ax->width)
			ax->width = len;
	}
}

/* The line of a value: the nearest of the frame's rows. */
static int y_line(const struct yaxis *ax, double v)
{
	double f = (ax->t1 - v / ax->step) / (ax->t1 - ax->t0) * (FRAME_ROWS - 1);

	if (!(f > 0))
		f = 0;
	if (f > FRAME_ROWS - 1)
		f = FRAME_ROWS - 1;
	return FRAME_TOP + (int)lround(f);
}

static int y_tick_line(const struct yaxis *ax, int i)
{
	double f = (ax->t1 - ax->t0 - i) / (ax->t1 - ax->t0) * (FRAME_ROWS - 1);

	return FRAME_TOP + (int)lround(f);
}

/* The column of sample i: the centre of its share of the inside. */
static int x_column(const struct canvas *c, size_t i)
{
	size_t inside = (size_t)(RIGHT_BORDER - c->left - 1);

	return c->left + 1 + (int)((2 * i + 1) * inside / (2 * c->nr));
}

static int decimal_width(size_t n)
{
	int w = 1;

	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w;
}

/* The smallest step of 1, 2, 5 x 10^k whose labels keep two blanks apart
 * (a step past the last sample leaves the one tick 0, which always fits). */
static size_t x_step(const struct canvas *c)
{
	static const size_t ms[] = { 1, 2, 5 };
	size_t decade, k, step, t;

	for (decade = 1;; decade *= 10) {
		for (k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
			int width, fits = 1;

			step = ms[k] * decade;
			width = decimal_width((c->nr - 1) / step * step);
			for (t = step; t < c->nr && fits; t += step)
				fits = x_column(c, t) - x_column(c, t - step) >= width + 2;
			if (fits)
				return step;
		}
	}
}

static void put(struct canvas *c, int line, int col, const char *s)
{
	size_t n = strlen(s);

	memcpy(&c->cell[line][col], s, n);
}

static void draw_title(struct canvas *c, const char *title)
{
	size_t len = title ? strlen(title) : 0, cols = 0, i;
	long start;

	if (len > PLOT_WIDTH) {
		len = PLOT_WIDTH;
		while (len && ((unsigned char)title[len] & 0xc0) == 0x80)
			len--;
	}
	for (i = 0; i < len; i++)
		cols += ((unsigned char)title[i] & 0xc0) != 0x80;
	start = (c->left + RIGHT_BORDER) / 2 - (long)cols / 2;
	if (start + (long)len > PLOT_WIDTH)
		start = PLOT_WIDTH - (long)len;
	if (start < 0)
		start = 0;
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)title[i];

		c->cell[TITLE_LINE][start + (long)i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
}

static void draw_frame(struct canvas *c, const struct yaxis *ax)
{
	int line, i;

	for (line = FRAME_TOP; line <= FRAME_BOTTOM; line++) {
		c->cell[line][c->left] = '|';
		c->cell[line][RIGHT_BORDER] = '|';
	}
	for (i = c->left; i <= RIGHT_BORDER; i++) {
		char ch = i == c->left || i == RIGHT_BORDER ? '+' : '-';

		c->cell[FRAME_TOP][i] = ch;
		c->cell[FRAME_BOTTOM][i] = ch;
	}
	for (i = 0; i < ax->nr_ticks; i++) {
		int len = (int)strlen(ax->label[i]);

		line = y_tick_line(ax, i);
		put(c, line, c->left - 1 - len, ax->label[i]);
		put(c, line, c->left, "+-+");
	}
}

static void draw_x_ticks(struct canvas *c)
{
	size_t step = x_step(c), t;
	char label[24];

	for (t = 0; t < c->nr; t += step) {
		int col = x_column(c, t), len;

		len = snprintf(label, sizeof(label), "%zu", t);
		/* no mark where it would run into the y tick's "+-+" or a corner */
		if (col > c->left + 2 && col < RIGHT_BORDER - 1)
			c->cell[FRAME_BOTTOM][col] = '+';
		put(c, XLABEL_LINE, col - (len - 1) / 2, label);
	}
}

/* Dots from one good point to the next, ends excluded, on blank cells only. */
static void draw_line(struct canvas *c, int c0, int l0, int c1, int l1)
{
	int dc = abs(c1 - c0), dl = -abs(l1 - l0);
	int sc = c0 < c1 ? 1 : -1, sl = l0 < l1 ? 1 : -1;
	int e = dc + dl;

	while (c0 != c1 || l0 != l1) {
		int e2 = 2 * e;

		if (e2 >= dl) {
			e += dl;
			c0 += sc;
		}
		if (e2 <= dc) {
			e += dc;
			l0 += sl;
		}
		if ((c0 != c1 || l0 != l1) && c->cell[l0][c0] == ' ')
			c->cell[l0][c0] = '.';
	}
}

static void draw_samples(struct canvas *c, const struct yaxis *ax,
			 const double *good, size_t nr_good, const double *bad, size_t nr_bad)
{
	size_t i;

	for (i = 1; i < nr_good; i++)
		draw_line(c, x_column(c, i - 1), y_line(ax, good[i - 1]),
			  x_column(c, i), y_line(ax, good[i]));
	for (i = 0; i < nr_good; i++)
		c->cell[y_line(ax, good[i])][x_column(c, i)] = '+';
	for (i = 0; i < nr_bad; i++)
		c->cell[y_line(ax, bad[i])][x_column(c, nr_good + i)] = 'O';
}

static int check_samples(const double *v, size_t nr, const char *name, struct buf *err)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!isfinite(v[i]))
			return err_set(err, "%s[%zu] is not a finite number", name, i);
	return 0;
}

int plot_render(struct buf *out, const char *title,
		const double *good, size_t nr_good,
		const double *bad, size_t nr_bad, struct buf *err)
{
	struct canvas c;
	struct yaxis ax;
	char text[PLOT_HEIGHT * (PLOT_WIDTH + 1)];
	double centre, half;
	size_t len = 0;
	int line, flat, sign;

	if (!nr_good && !nr_bad)
		return err_set(err, "no samples to plot");
	if (nr_good > PLOT_MAX_SAMPLES || nr_bad > PLOT_MAX_SAMPLES - nr_good)
		return err_set(err, "too many samples to plot: more than %d", PLOT_MAX_SAMPLES);
	if (check_samples(good, nr_good, "good", err) < 0 ||
	    check_samples(bad, nr_bad, "bad", err) < 0)
		return -1;

	y_range(good, nr_good, bad, nr_bad, &centre, &half, &flat, &sign);
	y_step(&ax, centre, half, flat, sign);
	y_labels(&ax);

	memset(c.cell, ' ', sizeof(c.cell));
	c.left = ax.width + 3;
	c.nr = nr_good + nr_bad;
	draw_title(&c, title);
	draw_frame(&c, &ax);
	draw_x_ticks(&c);
	draw_samples(&c, &ax, good, nr_good, bad, nr_bad);

	for (line = 0; line < PLOT_HEIGHT; line++) {
		int end = PLOT_WIDTH;

		while (end > 0 && c.cell[line][end - 1] == ' ')
			end--;
		memcpy(text + len, c.cell[line], (size_t)end);
		len += (size_t)end;
		text[len++] = '\n';
	}
	if (buf_add(out, text, len) < 0)
		return err_set(err, "the plot does not fit in the output buffer");
	return 0;
}
