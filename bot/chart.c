/*
 * The chart of one metric as inline SVG (chart.h says what it draws).
 * Coordinates are in a fixed viewBox and written by hand with one
 * decimal, counts and colours by hand too; the axis labels and the stddev
 * percentages are compare.c's numbers, which leave to printf only what
 * it must decide (a tie), under a thread-local C locale.
 */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "chart.h"
#include "compare.h"
#include "html.h"
#include "banned.h"

/* The layout, in viewBox units. */
#define PLOT_X0 76.0	/* the y axis; its labels end 6 to the left */
#define PLOT_X1 628.0
#define PLOT_Y0 28.0	/* the metric's name sits above */
#define PLOT_Y1 188.0
#define LANE_PAD 10.0	/* between a lane's edge and its first or last dot */
#define LABEL_Y 204.0	/* the series' labels under their lanes */
#define LEGEND_Y 226.0	/* the first legend row's baseline */
#define LEGEND_ROW 18.0
#define MAX_TICKS 16

/* Each colour reads on white and on black backgrounds. */
static const char *const colours[CHART_MAX_SERIES] = {
	"#2f7fd0", "#e0602a", "#2a9d4a", "#c43c8c", "#8a6ad0", "#b08a1a", "#1a9aa0", "#808080",
};

/* A series with its numbers settled. */
struct drawn {
	const struct chart_series *s;
	double mean;
	int has_stddev;
	double sd;		/* absolute stddev, finite (mean +- sd may not be:
				   add_clamped() them) */
	double stddev_percent;
	size_t shown;		/* dots drawn: min(nr_values, max_points) */
};

/* Mean and population stddev (percent of |mean|) of n > 0 values, scaled
 * by a power of two so that neither the sum nor the squares overflow (as
 * report.c computes a side's).  has_stddev as chart.h says. */
static void series_stats(const double *v, size_t n, double *mean, int *has_stddev, double *pct)
{
	double max = 0, sum = 0, ss = 0, m, k;
	size_t i;
	int e;

	for (i = 0; i < n; i++)
		if (fabs(v[i]) > max)
			max = fabs(v[i]);
	frexp(max, &e);
	/* x * 2^-e is ldexp(x, -e) (exact, or rounded once the same way)
	 * where 2^-e is a double: a multiplication a run, not a call */
	k = e >= -1023 ? ldexp(1, -e) : 0;
	for (i = 0; i < n; i++)
		sum += k ? v[i] * k : ldexp(v[i], -e);
	m = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = (k ? v[i] * k : ldexp(v[i], -e)) - m;

		ss += d * d;
	}
	*mean = ldexp(m, e);
	if (!isfinite(*mean))
		*mean = *mean > 0 ? DBL_MAX : -DBL_MAX;
	*has_stddev = n > 1 && m != 0;
	*pct = m != 0 ? sqrt(ss / (double)n) / fabs(m) * 100 : 0;
	if (!isfinite(*pct))
		*has_stddev = 0;
}

static int check_input(const struct chart *c, struct buf *err)
{
	size_t i, j;

	if (!c->metric)
		return err_set(err, "chart: no metric name");
	if (c->nr_series < 1 || c->nr_series > CHART_MAX_SERIES)
		return err_set(err, "chart: %zu series (1 to %d can be drawn)", c->nr_series,
			       CHART_MAX_SERIES);
	for (i = 0; i < c->nr_series; i++) {
		const struct chart_series *s = &c->series[i];

		if (!s->label)
			return err_set(err, "chart: series %zu has no label", i + 1);
		if (!s->nr_values && !s->has_mean)
			return err_set(err, "chart: series %zu has neither values nor a mean", i + 1);
		if (s->has_mean && !isfinite(s->mean))
			return err_set(err, "chart: series %zu: the mean is not finite", i + 1);
		if (s->has_stddev && !(isfinite(s->stddev_percent) && s->stddev_percent >= 0))
			return err_set(err, "chart: series %zu: the stddev is not a finite, "
				       "non-negative number", i + 1);
		for (j = 0; j < s->nr_values; j++)
			if (!isfinite(s->values[j]))
				return err_set(err, "chart: series %zu: run %zu is not finite",
					       i + 1, j + 1);
	}
	return 0;
}

static void settle(struct drawn *d, const struct chart_series *s, size_t max_points)
{
	double m = 0, pct = 0;
	int has = 0;

	d->s = s;
	if (s->nr_values)
		series_stats(s->values, s->nr_values, &m, &has, &pct);
	d->mean = s->has_mean ? s->mean : m;
	d->has_stddev = s->has_stddev ? 1 : has;
	d->stddev_percent = s->has_stddev ? s->stddev_percent : pct;
	d->sd = d->has_stddev ? d->stddev_percent / 100 * fabs(d->mean) : 0;
	if (!isfinite(d->sd))
		d->sd = DBL_MAX;	/* the band's edges are clamped where used */
	d->shown = s->nr_values < max_points ? s->nr_values : max_points;
}

/* The y range: [lo, hi] with lo < hi, every value, mean and band inside
 * with a margin, finite. */
struct yscale {
	double lo, hi;
	double half;		/* hi / 2 - lo / 2: never overflows */
};

static void widen(double *lo, double *hi, double v)
{
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

static double add_clamped(double a, double b)
{
	double r = a + b;

	return isfinite(r) ? r : r > 0 ? DBL_MAX : -DBL_MAX;
}

static void yscale_make(struct yscale *y, const struct drawn *d, size_t n)
{
	double lo = d[0].mean, hi = d[0].mean, pad;
	size_t i, j;

	for (i = 0; i < n; i++) {
		widen(&lo, &hi, add_clamped(d[i].mean, -d[i].sd));
		widen(&lo, &hi, add_clamped(d[i].mean, d[i].sd));
		for (j = 0; j < d[i].s->nr_values; j++)
			widen(&lo, &hi, d[i].s->values[j]);
	}
	if (lo == hi) {
		/* one value: a range around it */
		pad = lo == 0 ? 1 : fabs(lo) / 10;
		if (lo - pad == lo)
			pad = 1;	/* too small for a tenth of itself */
	} else {
		pad = (hi / 2 - lo / 2) / 10;	/* 5% of the range each side */
	}
	y->lo = add_clamped(lo, -pad);
	y->hi = add_clamped(hi, pad);
	y->half = y->hi / 2 - y->lo / 2;
	if (!(y->half > 0)) {
		/* a subnormal range, lost in the halving: one the table's
		 * precision shows as it is, around the values */
		y->lo = lo / 2 + hi / 2 - 1;
		y->hi = y->lo + 2;
		y->half = 1;
	}
}

/* v's y coordinate in the plot (PLOT_Y1 at lo, PLOT_Y0 at hi). */
static double yscale_at(const struct yscale *y, double v)
{
	return PLOT_Y1 - (v / 2 - y->lo / 2) / y->half * (PLOT_Y1 - PLOT_Y0);
}

/* A round step (1, 2 or 5 times a power of ten) near x, or 0 when there
 * is none in doubles. */
static double nice_step(double x)
{
	double p, f;

	if (!(x > 0) || !isfinite(x))
		return 0;
	p = pow(10, floor(log10(x)));
	if (!(p > 0) || !isfinite(p))
		return 0;
	f = x / p;
	f = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	p *= f;
	return isfinite(p) ? p : 0;
}

/* The axis' ticks, ascending: round steps inside [lo, hi], or lo and hi
 * themselves when no round step exists (subnormal or huge ranges). */
static size_t yscale_ticks(const struct yscale *y, double *t)
{
	double step = nice_step(y->half / 2), first;
	size_t n = 0;
	int i;

	if (step > 0 && isfinite(y->lo / step)) {
		first = ceil(y->lo / step) * step;
		for (i = 0; i < MAX_TICKS && isfinite(first); i++) {
			/* halves, so that first + i * step may near DBL_MAX */
			double v = 2 * (first / 2 + (double)i * (step / 2));

			if (!isfinite(v) || v > y->hi)
				break;
			if (n && v <= t[n - 1])
				continue;	/* below a double's resolution */
			t[n++] = fabs(v) < step / 1e6 ? 0 : v;
		}
	}
	if (n < 2) {
		t[0] = y->lo;
		t[1] = y->hi;
		n = 2;
	}
	return n;
}

/* A coordinate with at most one decimal, without printf ("12.5", "-3",
 * "640"), written at p (COORD_MAX bytes at most); returns its end.
 * Coordinates are within the viewBox give or take a mark; a chart has
 * thousands, and vsnprintf, then a call per byte, were most of the cost
 * of drawing one.  Rounds half away from zero, as llround() does: x -
 * trunc(x) is exact for |x| < 2^52. */
#define COORD_MAX 16
static char *coord_put(char *p, double v)
{
	long long t, u;
	double x, f;
	size_t n = 1;

	if (!(v > -1e6))
		v = -1e6;
	if (v > 1e6)
		v = 1e6;
	x = v * 10;
	t = (long long)x;
	f = x - (double)t;
	if (f >= 0.5)
		t++;
	else if (f <= -0.5)
		t--;
	if (t < 0) {
		*p++ = '-';
		t = -t;
	}
	/* written in place from its end, its length counted first (a
	 * chart's hundreds of numbers each cost a call of memcpy() before) */
	for (u = t / 10; u >= 10; u /= 10)
		n++;
	if (t % 10)
		n += 2;
	p += n;
	if (t % 10) {
		*--p = (char)('0' + t % 10);
		*--p = '.';
	}
	t /= 10;
	do {
		*--p = (char)('0' + t % 10);
		t /= 10;
	} while (t);
	return p + n;
}

/* Appends a string literal at p and returns its end. */
#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static void add_coord(struct buf *out, double v)
{
	char b[COORD_MAX];

	buf_add(out, b, (size_t)(coord_put(b, v) - b));
}

/* "x" then a space then "y". */
static char *xy_put(char *p, double x, double y)
{
	p = coord_put(p, x);
	*p++ = ' ';
	return coord_put(p, y);
}

static void add_xy(struct buf *out, double x, double y)
{
	char b[2 * COORD_MAX + 1];

	buf_add(out, b, (size_t)(xy_put(b, x, y) - b));
}

/* ' NAME="V"' (name a literal of at most 8 bytes). */
static void add_attr_coord(struct buf *out, const char *name, double v)
{
	char b[16 + COORD_MAX], *p = b;
	size_t n = strlen(name);

	*p++ = ' ';
	memcpy(p, name, n);
	p += n;
	p = PUT(p, "=\"");
	p = coord_put(p, v);
	*p++ = '"';
	buf_add(out, b, (size_t)(p - b));
}

/* A value as the compare table prints it, without its leading blanks. */
static void add_value(struct buf *out, double v)
{
	struct buf t = BUF_INIT;
	size_t i = 0;

	compare_format_value(&t, v);
	while (t.data[i] == ' ')
		i++;
	buf_add(out, t.data + i, t.len - i);
	buf_release(&t);
}

/* The group of series i's marks, in its colour. */
static void add_group(struct buf *out, size_t i)
{
	buf_adds(out, "<g class=\"chart-s");
	buf_add_uint(out, i);
	buf_adds(out, "\" fill=\"");
	buf_adds(out, colours[i]);
	buf_adds(out, "\" stroke=\"");
	buf_adds(out, colours[i]);
	buf_adds(out, "\">");
}

/* Series i's mark centred on (x, y), made whole on the stack and
 * appended once: a chart draws one per run. */
static void add_mark(struct buf *out, size_t i, double x, double y)
{
	char b[160], *p = b;

	switch (i % CHART_MAX_SERIES) {
	case 0:
	case 6:	/* a disc, a ring */
		p = PUT(p, "<circle cx=\"");
		p = coord_put(p, x);
		p = PUT(p, "\" cy=\"");
		p = coord_put(p, y);
		if (i % CHART_MAX_SERIES == 0)
			p = PUT(p, "\" r=\"3\"/>");
		else
			p = PUT(p, "\" r=\"2.8\" fill=\"none\" stroke-width=\"1.4\"/>");
		break;
	case 1:
		p = PUT(p, "<rect x=\"");
		p = coord_put(p, x - 2.6);
		p = PUT(p, "\" y=\"");
		p = coord_put(p, y - 2.6);
		p = PUT(p, "\" width=\"5.2\" height=\"5.2\"/>");
		break;
	case 2:	/* triangle */
		p = PUT(p, "<path d=\"M");
		p = xy_put(p, x, y - 3.6);
		p = PUT(p, "l3.4 6h-6.8z\"/>");
		break;
	case 3:	/* diamond */
		p = PUT(p, "<path d=\"M");
		p = xy_put(p, x, y - 3.8);
		p = PUT(p, "l3.8 3.8-3.8 3.8-3.8-3.8z\"/>");
		break;
	case 4:	/* triangle down */
		p = PUT(p, "<path d=\"M");
		p = xy_put(p, x, y + 3.6);
		p = PUT(p, "l3.4-6h-6.8z\"/>");
		break;
	case 5:	/* plus */
		p = PUT(p, "<path d=\"M");
		p = xy_put(p, x - 3.6, y);
		p = PUT(p, "h7.2M");
		p = xy_put(p, x, y - 3.6);
		p = PUT(p, "v7.2\" fill=\"none\" stroke-width=\"1.6\"/>");
		break;
	default:	/* cross */
		p = PUT(p, "<path d=\"M");
		p = xy_put(p, x - 3, y - 3);
		p = PUT(p, "l6 6m0-6-6 6\" fill=\"none\" stroke-width=\"1.6\"/>");
		break;
	}
	buf_add(out, b, (size_t)(p - b));
}

/* "LABEL n=N mean M ±S%", the numbers of one series in title and legend. */
static void add_numbers(struct buf *out, const struct drawn *d)
{
	html_text(out, d->s->label, strlen(d->s->label));
	buf_adds(out, " n=");
	buf_add_uint(out, d->s->nr_values);
	if (d->shown < d->s->nr_values) {
		buf_adds(out, " (");
		buf_add_uint(out, d->shown);
		buf_adds(out, " shown)");
	}
	buf_adds(out, " mean ");
	add_value(out, d->mean);
	buf_adds(out, " \xc2\xb1");
	if (d->has_stddev) {
		compare_format_fixed(out, d->stddev_percent, 0, 1);
		buf_addc(out, '%');
	} else {
		buf_adds(out, "n/a");
	}
}

static void add_title(struct buf *out, const struct chart *c, const struct drawn *d,
		      size_t max)
{
	size_t i, cut = 0;

	buf_adds(out, "<title>");
	html_text(out, c->metric, strlen(c->metric));
	buf_adds(out, ":");
	for (i = 0; i < c->nr_series; i++) {
		buf_adds(out, i ? "; " : " ");
		add_numbers(out, &d[i]);
		cut |= d[i].shown < d[i].s->nr_values;
	}
	if (cut)
		buf_addf(out, " (at most %zu runs a series drawn, picked evenly in run order)", max);
	buf_adds(out, "</title>");
}

static void add_axis(struct buf *out, const struct yscale *y)
{
	double t[MAX_TICKS];
	size_t n = yscale_ticks(y, t), i;
	struct buf label = BUF_INIT, prev = BUF_INIT;

	buf_adds(out, "<path class=\"chart-grid\" fill=\"none\" stroke=\"currentColor\" "
		 "stroke-opacity=\"0.2\" d=\"");
	for (i = 0; i < n; i++) {
		buf_adds(out, "M");
		add_xy(out, PLOT_X0, yscale_at(y, t[i]));
		buf_adds(out, "H");
		add_coord(out, PLOT_X1);
	}
	buf_adds(out, "\"/><path class=\"chart-axis\" fill=\"none\" stroke=\"currentColor\" d=\"M");
	add_xy(out, PLOT_X0, PLOT_Y0);
	buf_adds(out, "V");
	add_coord(out, PLOT_Y1);
	buf_adds(out, "H");
	add_coord(out, PLOT_X1);
	buf_adds(out, "\"/><g class=\"chart-axis\" fill=\"currentColor\" text-anchor=\"end\">");
	for (i = 0; i < n; i++) {
		buf_reset(&label);
		add_value(&label, t[i]);
		if (i && !strcmp(label.data, prev.data))
			continue;	/* the table's precision cannot tell them apart */
		buf_adds(out, "<text");
		add_attr_coord(out, "x", PLOT_X0 - 6);
		add_attr_coord(out, "y", yscale_at(y, t[i]) + 4);
		buf_addc(out, '>');
		buf_add(out, label.data, label.len);
		buf_adds(out, "</text>");
		buf_reset(&prev);
		buf_add(&prev, label.data, label.len);
	}
	buf_adds(out, "</g>");
	buf_release(&label);
	buf_release(&prev);
}

static void add_series(struct buf *out, const struct drawn *d, size_t i, size_t nr,
		       const struct yscale *y)
{
	double lane = (PLOT_X1 - PLOT_X0) / (double)nr;
	double left = PLOT_X0 + lane * (double)i, inner = lane - 2 * LANE_PAD;
	size_t k, n = d->s->nr_values;

	add_group(out, i);
	if (d->sd > 0) {
		double top = yscale_at(y, add_clamped(d->mean, d->sd));
		double bottom = yscale_at(y, add_clamped(d->mean, -d->sd));

		buf_adds(out, "<rect class=\"chart-band\"");
		add_attr_coord(out, "x", left + 2);
		add_attr_coord(out, "y", top);
		add_attr_coord(out, "width", lane - 4);
		add_attr_coord(out, "height", bottom - top);
		buf_adds(out, " fill-opacity=\"0.15\" stroke=\"none\"/>");
	}
	buf_adds(out, "<path class=\"chart-mean\" stroke-width=\"2\" d=\"M");
	add_xy(out, left + 2, yscale_at(y, d->mean));
	buf_adds(out, "H");
	add_coord(out, left + lane - 2);
	buf_adds(out, "\"/>");
	for (k = 0; k < d->shown; k++) {
		/* an even pick in run order when there are more runs than dots */
		size_t at = d->shown == n ? k : (size_t)floor((double)k * (double)n / (double)d->shown);

		if (at >= n)
			at = n - 1;
		add_mark(out, i, left + LANE_PAD + ((double)k + 0.5) * inner / (double)d->shown,
			 yscale_at(y, d->s->values[at]));
	}
	buf_adds(out, "</g>");
}

static void add_labels_and_legend(struct buf *out, const struct drawn *d, size_t nr)
{
	double lane = (PLOT_X1 - PLOT_X0) / (double)nr;
	size_t i;

	buf_adds(out, "<g class=\"chart-label\" fill=\"currentColor\" text-anchor=\"middle\">");
	for (i = 0; i < nr; i++) {
		buf_adds(out, "<text");
		add_attr_coord(out, "x", PLOT_X0 + lane * ((double)i + 0.5));
		add_attr_coord(out, "y", LABEL_Y);
		buf_adds(out, ">");
		html_text(out, d[i].s->label, strlen(d[i].s->label));
		buf_adds(out, "</text>");
	}
	buf_adds(out, "</g><g class=\"chart-legend\">");
	for (i = 0; i < nr; i++) {
		double row = LEGEND_Y + LEGEND_ROW * (double)i;

		add_group(out, i);
		add_mark(out, i, PLOT_X0 + 4, row - 4);
		buf_adds(out, "</g><text fill=\"currentColor\"");
		add_attr_coord(out, "x", PLOT_X0 + 14);
		add_attr_coord(out, "y", row);
		buf_adds(out, ">");
		add_numbers(out, &d[i]);
		buf_adds(out, "</text>");
	}
	buf_adds(out, "</g>");
}

static void draw(struct buf *out, const struct chart *c, const struct drawn *d, size_t max)
{
	struct yscale y;
	double height = LEGEND_Y - 6 + LEGEND_ROW * (double)c->nr_series;
	size_t i;

	yscale_make(&y, d, c->nr_series);
	buf_adds(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" "
		 "viewBox=\"0 0 ");
	buf_add_uint(out, CHART_WIDTH);
	buf_addc(out, ' ');
	add_coord(out, height);
	buf_adds(out, "\" width=\"");
	buf_add_uint(out, CHART_WIDTH);
	buf_adds(out, "\" height=\"");
	add_coord(out, height);
	buf_adds(out, "\" font-family=\"sans-serif\" font-size=\"11\">");
	add_title(out, c, d, max);
	buf_adds(out, "<text class=\"chart-label\" fill=\"currentColor\" font-weight=\"bold\"");
	add_attr_coord(out, "x", PLOT_X0);
	add_attr_coord(out, "y", PLOT_Y0 - 12);
	buf_adds(out, ">");
	html_text(out, c->metric, strlen(c->metric));
	buf_adds(out, "</text>");
	add_axis(out, &y);
	for (i = 0; i < c->nr_series; i++)
		add_series(out, &d[i], i, c->nr_series, &y);
	add_labels_and_legend(out, d, c->nr_series);
	buf_adds(out, "</svg>\n");
}

int chart_svg(struct buf *out, const struct chart *c, struct buf *err)
{
	struct drawn d[CHART_MAX_SERIES] = { { 0 } };
	size_t i, max = c->max_points ? c->max_points : CHART_DEFAULT_MAX_POINTS;
	locale_t cloc, old;

	if (check_input(c, err) < 0)
		return -1;
	/* printf's %f follows LC_NUMERIC ("1,5" in de_DE): the labels must not */
	cloc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!cloc)
		return err_set(err, "chart: cannot make the C locale");
	old = uselocale(cloc);
	for (i = 0; i < c->nr_series; i++)
		settle(&d[i], &c->series[i], max);
	draw(out, c, d, max);
	uselocale(old);
	freelocale(cloc);
	return 0;
}

void chart_series_from_report(struct chart_series out[2], const struct report_metric *m,
			      const struct report_samples *s, const char *base_label,
			      const char *head_label)
{
	const struct report_side *side[2] = { &m->base, &m->head };
	size_t i;

	for (i = 0; i < 2; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].label = i ? head_label : base_label;
		out[i].has_mean = 1;
		out[i].mean = side[i]->mean;
		out[i].has_stddev = side[i]->has_stddev;
		out[i].stddev_percent = side[i]->stddev_percent;
		if (s) {
			out[i].values = i ? s->bad : s->good;
			out[i].nr_values = i ? s->nr_bad : s->nr_good;
		}
	}
}
