#ifndef PERFBOT_CHART_H
#define PERFBOT_CHART_H

/*
 * The chart of one metric as an inline SVG element, for the web site's
 * report pages (perfbot-site(1)).  Pure: memory in, one <svg> element
 * appended to a buffer; no JavaScript, no external or internal reference
 * (no id, no href), so any number of charts may share a page.
 *
 * What it draws: the series side by side, each in its own lane (left to
 * right in the order given), its runs as dots in run order across the
 * lane, its mean as a line across the lane and a band from mean - stddev
 * to mean + stddev; each series its own mark (circle, square, triangle,
 * diamond, triangle down, plus, ring, cross; at most CHART_MAX_SERIES) and
 * colour; the label under its lane; a legend below with each series' mark,
 * label, number of runs, mean and stddev; a y axis whose tick labels are
 * printed by compare_format_value() (as the compare table prints the
 * means), leading blanks dropped, a label equal to the one below it left
 * out; the metric's name above the plot.
 *
 * The <svg> is the first and only element written; it carries xmlns,
 * viewBox, width and height (CHART_WIDTH by 220 + 18 per series), role="img",
 * class="chart", and as its first child a <title> giving the numbers:
 * "METRIC: LABEL n=N mean M ±S%; LABEL ..." (S with one decimal; "n/a"
 * when unknown; "n=N (K shown)" for a series with more than max_points
 * runs, and then the title ends in " (at most K runs a series drawn,
 * picked evenly in run order)").  Screen readers read it and browsers show
 * it on hover.  The legend repeats each series' part of it.
 *
 * Colours: each series' group has class "chart-sN" (N = 0..7) and fill
 * and stroke attributes with a colour that reads on white and on black,
 * so the chart reads without a stylesheet while a stylesheet's rules
 * (which beat presentation attributes) restyle it; the axis, grid and text
 * use currentColor (classes "chart-axis", "chart-grid", "chart-label").
 * Other classes: "chart-band", "chart-mean", "chart-legend".  A page's
 * stylesheet will want svg.chart { max-width: 100%; height: auto }.
 *
 * Numbers are written in the C locale whatever LC_NUMERIC says (the
 * formatting runs under a thread-local C locale).
 *
 * Every text (metric name, labels) goes through html_text(); they are
 * untrusted and may hold any bytes.  Labels are meant to be short (commit
 * ids); a long one is written whole and may overrun its lane.
 */

#include <stddef.h>

#include "buf.h"
#include "report.h"

#define CHART_MAX_SERIES 8
#define CHART_DEFAULT_MAX_POINTS 1000	/* site.maxSamples' default */
#define CHART_WIDTH 640

/* One series: one commit's runs of the metric. */
struct chart_series {
	const char *label;	/* e.g. a short commit id; untrusted text, not NULL */
	const double *values;	/* the runs in run order, each finite; NULL when
				   nr_values is 0 */
	size_t nr_values;	/* may be 0 when has_mean is set: then only the
				   mean (and band) is drawn */
	int has_mean;		/* mean is given; else computed from values */
	double mean;		/* finite */
	int has_stddev;		/* stddev_percent is given; else computed from
				   values when there are two or more and their
				   mean is not 0 (population stddev, as report.c) */
	double stddev_percent;	/* stddev / |mean| * 100, finite, >= 0 */
};

struct chart {
	const char *metric;	/* the metric's name; untrusted text, not NULL */
	const struct chart_series *series;
	size_t nr_series;	/* 1 to CHART_MAX_SERIES */
	size_t max_points;	/* dots drawn per series at most (site.maxSamples);
				   0 = CHART_DEFAULT_MAX_POINTS.  A series with more
				   runs shows max_points of them picked evenly in run
				   order (run floor(k * n / max_points) for k = 0,
				   1, ...), and the title says so; its mean and
				   stddev stay those of all its runs. */
};

/*
 * Appends the chart's <svg> element to out (no size cap).  -1 with a
 * message in err, out unchanged, when the input breaks the rules above:
 * no series or more than CHART_MAX_SERIES, a value, mean or stddev that is
 * not finite (or a negative stddev), a series with neither values nor a
 * mean, a NULL label or metric.  Any finite values are drawn, however
 * large or small, negative, equal or few (one run, zero range).
 */
int chart_svg(struct buf *out, const struct chart *c, struct buf *err);

/*
 * The two series of a report's metric: out[0] the base ("good" samples,
 * m->base's mean and stddev) labelled base_label, out[1] the head ("bad"
 * samples, m->head) labelled head_label.  s may be NULL (no samples: the
 * means alone).  out points into m and s, which must outlive it.
 */
void chart_series_from_report(struct chart_series out[2], const struct report_metric *m,
			      const struct report_samples *s, const char *base_label,
			      const char *head_label);

#endif
