#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "banned.h"

/* Lines and columns of the plot, 0-based (plot.h has the picture). */
#define TITLE_LINE 1
#define FRAME_TOP 3
#define FRAME_ROWS 15
#define FRAME_BOTTOM (FRAME_TOP + FRAME_ROWS - 1)
#define LEFT 11			/* the left border: labels end two columns before */
#define RIGHT 76		/* the right border */

/* gnuplot's guide for quantize_normal_tics(): about 20 ticks at most */
#define GUIDE 20
/* Longest label before shortening: "-1.2345678901234567e+308" is 24. */
#define LABEL_MAX 32
/* Below this a spread of values counts as none (see y_range()). */
#define FLAT_RELATIVE 1e-12
#define TINY 1e-290
/* A quotient this close to a whole number of steps is that number: 0.3 /
 * 0.1 is 2.9999999999999996 in doubles, and must not add a tick. */
#define SNAP 1e-9

/*
 * The y axis.  Ticks are t x step for the integers t0 <= t <= t1, and
 * step = m x 10^e.  Geometry is done in units of step, so that no tick
 * value is ever formed as a double (the top tick of values near DBL_MAX
 * would overflow); labels are written from the integers.
 */
struct yaxis {
	int m;			/* 1, 2 or 5; 25 (2.5 x 10^(e+1)) once grown; 3-9 never */
	int e;			/* its decimal exponent */
	double step;		/* m x 10^e, for placing values */
	double t0, t1;		/* bottom and top tick, in steps (integers) */
	int nr_ticks;		/* t1 - t0 + 1, at most FRAME_ROWS */
	char label[FRAME_ROWS][LABEL_MAX];	/* bottom tick first */
};

struct canvas {
	char cell[PLOT_HEIGHT][PLOT_WIDTH];
	size_t nr_x;		/* max(nr_good, nr_bad): the x range is 0 .. nr_x - 1 */
};

/*
 * The range to cover as a centre and a half-width, both finite for any
 * finite input (max - min itself can overflow).  A spread too small to
 * draw becomes +-1% around the value, +-1 around 0, as gnuplot widens an
 * empty range.
 */
static void y_range(const double *good, size_t nr_good, const double *bad, size_t nr_bad,
		    double *centre, double *half)
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
	big = fmax(fabs(min), fabs(max));
	if (*half >= TINY && *half > big * (FLAT_RELATIVE / 2))
		return;
	if (fabs(*centre) < TINY) {
		*centre = 0;
		*half = 1;
	} else {
		*half = fabs(*centre) / 100;
	}
}

/*
 * gnuplot's quantize_normal_tics(r, 20) for r = 2 x half, as m x 10^e.
 * r is written as xnorm x 10^p with xnorm in [1, 10) (gnuplot takes
 * floor(log10 r), which can be off by one in doubles), so posns is in
 * (2, 20] and only the 0.2, 0.5 and 1 branches are ever taken; the others
 * are kept so that this reads as gnuplot's table.  half is at least TINY
 * and at most DBL_MAX, so 10^p is a normal double.
 */
static void y_quantize(double half, int *m, int *e)
{
	int p = (int)floor(log10(half) + log10(2.0));
	double xnorm = 2 * (half / pow(10, p)), posns;

	if (xnorm >= 10) {
		p++;
		xnorm /= 10;
	} else if (xnorm < 1) {
		p--;
		xnorm *= 10;
	}
	posns = GUIDE / xnorm;
	if (posns > 40) {
		*m = 5;
		*e = p - 2;
	} else if (posns > 20) {
		*m = 1;
		*e = p - 1;
	} else if (posns > 10) {
		*m = 2;
		*e = p - 1;
	} else if (posns > 4) {
		*m = 5;
		*e = p - 1;
	} else if (posns > 2) {
		*m = 1;
		*e = p;
	} else if (posns > 0.5) {
		*m = 2;
		*e = p;
	} else {
		*m = (int)ceil(xnorm);
		*e = p;
	}
	if (*m == 10) {
		*m = 1;
		(*e)++;
	}
}

/* The next larger step of 1, 2, 2.5, 5 x 10^k. */
static void y_next_step(int *m, int *e)
{
	if (*m == 1) {
		*m = 2;
	} else if (*m == 2) {
		*m = 25;
		(*e)--;
	} else if (*m < 5) {
		*m = 5;
	} else if (*m == 25) {
		*m = 5;
		(*e)++;
	} else {
		*m = 1;
		(*e)++;
	}
}

static double snap(double u)
{
	double n = nearbyint(u);

	return fabs(u - n) < SNAP ? n : u;
}

/*
 * Ticks t0 <= t1 (in steps) at or outside the values, with the step grown
 * while two ticks would share a row: k x (FRAME_ROWS - 1) / (t1 - t0)
 * rounds to distinct rows exactly when t1 - t0 <= FRAME_ROWS - 1.  The
 * values span at most 1e12 of their spread (see y_range()) and gnuplot's
 * step is more than a tenth of it, so |t0|, |t1| < 2e13.
 */
static void y_ticks(struct yaxis *ax, double centre, double half)
{
	y_quantize(half, &ax->m, &ax->e);
	for (;;) {
		ax->step = ax->m * pow(10, ax->e);
		ax->t0 = floor(snap(centre / ax->step - half / ax->step));
		ax->t1 = ceil(snap(centre / ax->step + half / ax->step));
		if (ax->t1 <= ax->t0)
			ax->t1 = ax->t0 + 1;
		if (ax->t1 - ax->t0 <= FRAME_ROWS - 1 || !isfinite(ax->m * pow(10, ax->e + 1)))
			break;
		y_next_step(&ax->m, &ax->e);
	}
	ax->nr_ticks = (int)(ax->t1 - ax->t0) + 1;
}

/*
 * The tick t x step as decimal digits (|t x m| without its trailing
 * zeros) and the exponent of the last digit; returns the number of
 * digits, 0 for 0.  |t x m| < 5e14 (see y_ticks()).
 */
static int tick_digits(const struct yaxis *ax, long long t, char digits[24], int *exp10)
{
	unsigned long long u;

	*exp10 = ax->e;
	if (!t) {
		digits[0] = '\0';
		return 0;
	}
	u = (unsigned long long)(t < 0 ? -t : t) * (unsigned)ax->m;
	while (u % 10 == 0) {
		u /= 10;
		(*exp10)++;
	}
	return snprintf(digits, 24, "%llu", u);
}

/*
 * Round digits (nr of them, exponent of the last exp10) to prec
 * significant ones, half up as printf rounds an exact decimal, and drop
 * the trailing zeros; returns the new number of digits.
 */
static int round_digits(char *digits, int nr, int *exp10, int prec)
{
	int i, up;

	if (nr <= prec)
		return nr;
	up = digits[prec] >= '5';
	*exp10 += nr - prec;
	nr = prec;
	for (i = nr - 1; up && i >= 0; i--) {
		if (digits[i] == '9') {
			digits[i] = '0';
		} else {
			digits[i]++;
			up = 0;
		}
	}
	if (up) {		/* 999 became 000: one digit more in front */
		memmove(digits + 1, digits, (size_t)nr);
		digits[0] = '1';
		nr++;
	}
	while (nr > 1 && digits[nr - 1] == '0') {
		nr--;
		(*exp10)++;
	}
	digits[nr] = '\0';
	return nr;
}

/* The label of tick t as printf's "%.*g" with precision prec prints the
 * exact decimal value. */
static void tick_format(const struct yaxis *ax, long long t, int prec, char *out)
{
	char digits[24];
	int exp10, nr = tick_digits(ax, t, digits, &exp10), lead, i;
	char *p = out;

	if (!nr) {
		memcpy(out, "0", 2);
		return;
	}
	nr = round_digits(digits, nr, &exp10, prec);
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

/* All labels with precision prec; 1 if each fits PLOT_LABEL_WIDTH. */
static int y_format(struct yaxis *ax, int prec)
{
	int i, fits = 1;

	for (i = 0; i < ax->nr_ticks; i++) {
		tick_format(ax, (long long)ax->t0 + i, prec, ax->label[i]);
		fits &= strlen(ax->label[i]) <= PLOT_LABEL_WIDTH;
	}
	return fits;
}

/*
 * Labels like %g: precision 6, or the smallest one at least as large as
 * the ticks' digits that fits (a larger precision prints 1234560 rather
 * than 1.23456e+06); else the largest below 6 that fits, which 1 always
 * does ("-1e-300" is 7 characters).
 */
static void y_labels(struct yaxis *ax)
{
	char digits[24];
	int need = 6, exp10, prec, i;

	for (i = 0; i < ax->nr_ticks; i++) {
		int nr = tick_digits(ax, (long long)ax->t0 + i, digits, &exp10);

		if (nr > need)
			need = nr;
	}
	for (prec = need; prec <= 17; prec++)
		if (y_format(ax, prec))
			return;
	for (prec = 5; prec > 1; prec--)
		if (y_format(ax, prec))
			return;
	y_format(ax, 1);
}

/* The row of t0 + u steps, counted from the bottom: the nearest one,
 * halves up (gnuplot maps with (int)(x + 0.5)). */
static int y_row(const struct yaxis *ax, double u)
{
	double f = u * (FRAME_ROWS - 1) / (ax->t1 - ax->t0);

	if (!(f > 0))
		return 0;
	if (f > FRAME_ROWS - 1)
		return FRAME_ROWS - 1;
	return (int)floor(f + 0.5);
}

static int y_line(const struct yaxis *ax, double v)
{
	return FRAME_BOTTOM - y_row(ax, snap(v / ax->step) - ax->t0);
}

/* The column of sample i: 0 on the left border, nr_x - 1 on the right
 * one, the nearest column, halves to the right; a lone one in the middle. */
static int x_column(const struct canvas *c, size_t i)
{
	size_t w = RIGHT - LEFT, n = c->nr_x;

	if (n == 1)
		return LEFT + (int)((w + 1) / 2);
	return LEFT + (int)((2 * i * w + n - 1) / (2 * (n - 1)));
}

static void put(struct canvas *c, int line, int col, const char *s)
{
	memcpy(&c->cell[line][col], s, strlen(s));
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
	/* gnuplot centres it over the whole terminal, not the frame */
	start = PLOT_WIDTH / 2 - (long)cols / 2;
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
	int line, col, k;

	for (line = FRAME_TOP; line <= FRAME_BOTTOM; line++) {
		c->cell[line][LEFT] = '|';
		c->cell[line][RIGHT] = '|';
	}
	for (col = LEFT; col <= RIGHT; col++) {
		char ch = col == LEFT || col == RIGHT ? '+' : '-';

		c->cell[FRAME_TOP][col] = ch;
		c->cell[FRAME_BOTTOM][col] = ch;
	}
	for (k = 0; k < ax->nr_ticks; k++) {
		line = FRAME_BOTTOM - y_row(ax, k);
		put(c, line, LEFT - 1 - (int)strlen(ax->label[k]), ax->label[k]);
		put(c, line, LEFT, "+-+");
	}
}

/* floor(a / b) for b > 0 */
static int floor_div(int a, int b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/*
 * Dots from one good point to the next, ends excluded, on blank cells
 * only: one in each column between them (each row, when the line is
 * steeper), in the nearest row (column) of the straight line.  Halves go
 * up (right), as gnuplot's dumb terminal rounds with (int)(x + 0.5) with
 * y upwards.
 */
static void draw_line(struct canvas *c, int c0, int l0, int c1, int l1)
{
	int dc = c1 - c0, dl = l1 - l0, n = abs(dc) > abs(dl) ? abs(dc) : abs(dl), k;

	for (k = 1; k < n; k++) {
		/* lines count downwards: half a row up is half a line less */
		int col = c0 + floor_div(2 * dc * k + n, 2 * n);
		int line = l0 - floor_div(n - 2 * dl * k, 2 * n);

		if (c->cell[line][col] == ' ')
			c->cell[line][col] = '.';
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
		c->cell[y_line(ax, bad[i])][x_column(c, i)] = 'O';
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
	int line;

	if (!nr_good && !nr_bad)
		return err_set(err, "no samples to plot");
	if (nr_good > PLOT_MAX_SAMPLES || nr_bad > PLOT_MAX_SAMPLES - nr_good)
		return err_set(err, "too many samples to plot: more than %d", PLOT_MAX_SAMPLES);
	if (check_samples(good, nr_good, "good", err) < 0 ||
	    check_samples(bad, nr_bad, "bad", err) < 0)
		return -1;

	y_range(good, nr_good, bad, nr_bad, &centre, &half);
	y_ticks(&ax, centre, half);
	y_labels(&ax);

	memset(c.cell, ' ', sizeof(c.cell));
	c.nr_x = nr_good > nr_bad ? nr_good : nr_bad;
	draw_title(&c, title);
	draw_frame(&c, &ax);
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
