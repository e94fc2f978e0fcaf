#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "chart.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *p = hay;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static char *draw(const char *metric, const struct chart_series *s, size_t n, size_t max)
{
	struct chart c = { metric, s, n, max };
	struct buf out = BUF_INIT, err = BUF_INIT;

	if (chart_svg(&out, &c, &err) < 0)
		fail_msg("chart_svg: %s", err.data);
	buf_release(&err);
	return buf_detach(&out, NULL);
}

/* The part of svg between the first "<g class=\"chart-sI\"" and its "</g>":
 * series i's band, mean and dots. */
static char *series_group(const char *svg, size_t i)
{
	char open[32];
	const char *p, *e;
	char *r;

	snprintf(open, sizeof(open), "<g class=\"chart-s%zu\"", i);
	p = strstr(svg, open);
	assert_non_null(p);
	e = strstr(p, "</g>");
	assert_non_null(e);
	r = malloc((size_t)(e - p) + 1);
	assert_non_null(r);
	memcpy(r, p, (size_t)(e - p));
	r[e - p] = '\0';
	return r;
}

/*
 * Every number in a geometry attribute (x y cx cy r width height d) lies
 * within the viewBox give or take a mark, and none is nan or inf: the
 * scale held whatever the values were.  Numbers are read by hand (the
 * test may run under a locale whose strtod wants a comma).
 */
static void check_geometry(const char *svg)
{
	static const char *const attrs[] = { " x=\"", " y=\"", " cx=\"", " cy=\"", " r=\"",
					     " width=\"", " height=\"", " d=\"" };
	size_t a;

	assert_null(strstr(svg, "nan"));
	assert_null(strstr(svg, "inf"));
	for (a = 0; a < N(attrs); a++) {
		const char *p = svg;

		while ((p = strstr(p, attrs[a]))) {
			p += strlen(attrs[a]);
			while (*p != '"') {
				double v = 0, scale = 0.1;
				int neg = 0, digits = 0;

				if (*p == '-')
					neg = 1, p++;
				while (*p >= '0' && *p <= '9')
					v = v * 10 + (*p++ - '0'), digits++;
				if (*p == '.')
					for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
						v += (*p - '0') * scale, digits++;
				if (!digits) {
					/* a path command letter or a separator */
					assert_true(strchr("MmHhVvLlZz ", *p) != NULL);
					p++;
					continue;
				}
				if (neg)
					v = -v;
				if (attrs[a][1] == 'd')
					assert_true(v >= -10 && v <= 660);	/* relative steps too */
				else
					assert_true(v >= 0 && v <= 660);
			}
		}
	}
}

/* What every chart is: one <svg> element, its <title> first, no script,
 * no reference of any kind, no id to collide with another chart's. */
static void check_frame(const char *svg)
{
	size_t n = strlen(svg);

	assert_true(!strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" ", 40));
	assert_non_null(strstr(svg, " role=\"img\""));
	assert_non_null(strstr(svg, " viewBox=\"0 0 640 "));
	assert_non_null(strstr(svg, " class=\"chart\""));
	assert_true(!strncmp(strchr(svg, '>'), "><title>", 8));
	assert_int_equal(count(svg, "<svg"), 1);
	assert_int_equal(count(svg, "<title>"), 1);
	assert_true(n > 7 && !strcmp(svg + n - 7, "</svg>\n"));
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "href"));
	assert_null(strstr(svg, " id="));
	assert_null(strstr(svg, "url("));
	assert_null(strstr(svg, "<style"));
	assert_null(strstr(svg, "<foreignObject"));
	check_geometry(svg);
}

static void report_chart_has_everything(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 6 };
	const struct chart_series s[2] = {
		{ "abc123", a, 3, 0, 0, 0, 0 },
		{ "def456", b, 2, 0, 0, 0, 0 },
	};
	char *svg = draw("m.ops", s, 2, 0), *g0 = series_group(svg, 0), *g1 = series_group(svg, 1);

	(void)state;
	check_frame(svg);
	/* population stddev: sqrt(2/3) / 2 = 40.8%, 1 / 5 = 20% */
	assert_non_null(strstr(svg, "<title>m.ops: abc123 n=3 mean 2.00 \xc2\xb1" "40.8%; "
				    "def456 n=2 mean 5.00 \xc2\xb1" "20.0%</title>"));
	/* the runs as dots in their marks, a mean line and a band each */
	assert_int_equal(count(g0, "<circle"), 3);
	assert_int_equal(count(g1, "<rect") - count(g1, "chart-band"), 2);
	assert_int_equal(count(g0, "chart-mean"), 1);
	assert_int_equal(count(g1, "chart-band"), 1);
	/* the fallback colours (a stylesheet may override them) */
	assert_non_null(strstr(g0, "fill=\"#2f7fd0\" stroke=\"#2f7fd0\""));
	assert_non_null(strstr(g1, "fill=\"#e0602a\" stroke=\"#e0602a\""));
	/* labels under the lanes, legend entries, the metric's name */
	assert_non_null(strstr(svg, ">abc123</text>"));
	assert_non_null(strstr(svg, ">abc123 n=3 mean 2.00 \xc2\xb1" "40.8%</text>"));
	assert_non_null(strstr(svg, ">m.ops</text>"));
	/* y labels as the compare table prints them */
	assert_non_null(strstr(svg, ">2.00</text>"));
	assert_non_null(strstr(svg, ">6.00</text>"));
	free(g0);
	free(g1);
	free(svg);
}

/* Run order: the dots go left to right in the order of the values. */
static void dots_in_run_order(void **state)
{
	const double v[] = { 10, 30, 20 };
	const struct chart_series s[1] = { { "x", v, 3, 0, 0, 0, 0 } };
	char *svg = draw("m", s, 1, 0), *g = series_group(svg, 0);
	const char *p = g;
	double cx[3], cy[3];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		p = strstr(p, "<circle cx=\"");
		assert_non_null(p);
		assert_int_equal(sscanf(p, "<circle cx=\"%lf\" cy=\"%lf\"", &cx[i], &cy[i]), 2);
		p++;
	}
	assert_true(cx[0] < cx[1] && cx[1] < cx[2]);
	assert_true(cy[1] < cy[2] && cy[2] < cy[0]);	/* 30 highest, 10 lowest */
	free(g);
	free(svg);
}

/* The given mean and stddev win over the values' (a report's side). */
static void given_numbers_are_used(void **state)
{
	const double v[] = { 1, 2, 3 };
	const struct chart_series s[2] = {
		{ "a", v, 3, 1, 1234.5, 1, 3.25 },
		{ "b", NULL, 0, 1, 99, 0, 0 },		/* a mean alone */
	};
	char *svg = draw("m", s, 2, 0), *g1 = series_group(svg, 1);

	(void)state;
	check_frame(svg);
	assert_non_null(strstr(svg, "<title>m: a n=3 mean 1234 \xc2\xb1" "3.2%; b n=0 mean 99.00 "
				    "\xc2\xb1n/a</title>"));
	assert_int_equal(count(g1, "<rect"), 0);	/* no dots, no band */
	assert_int_equal(count(g1, "chart-mean"), 1);
	free(g1);
	free(svg);
}

static void eight_marks(void **state)
{
	const double v[] = { 1, 2 };
	struct chart_series s[CHART_MAX_SERIES];
	char *svg, *g[CHART_MAX_SERIES];
	size_t i, j;

	(void)state;
	for (i = 0; i < CHART_MAX_SERIES; i++)
		s[i] = (struct chart_series){ "l", v, 2, 0, 0, 0, 0 };
	svg = draw("m", s, CHART_MAX_SERIES, 0);
	check_frame(svg);
	for (i = 0; i < CHART_MAX_SERIES; i++) {
		char *band;

		g[i] = series_group(svg, i);
		/* the band and mean removed, the marks differ from each other */
		band = strstr(g[i], "class=\"chart-mean\"");
		assert_non_null(band);
		memmove(g[i], strstr(band, "/>") + 2, strlen(strstr(band, "/>") + 2) + 1);
	}
	for (i = 0; i < CHART_MAX_SERIES; i++)
		for (j = 0; j < i; j++) {
			/* compare the element and its first attributes' names */
			char a[40], b[40];
			size_t k;

			snprintf(a, sizeof(a), "%s", g[i]);
			snprintf(b, sizeof(b), "%s", g[j]);
			for (k = 0; a[k]; k++)
				if ((a[k] >= '0' && a[k] <= '9') || a[k] == '.')
					a[k] = '#';
			for (k = 0; b[k]; k++)
				if ((b[k] >= '0' && b[k] <= '9') || b[k] == '.')
					b[k] = '#';
			if (!strcmp(a, b) && !strstr(g[i], "fill=\"none\"") == !strstr(g[j], "fill=\"none\""))
				fail_msg("series %zu and %zu share a mark: %s", i, j, a);
		}
	for (i = 0; i < CHART_MAX_SERIES; i++)
		free(g[i]);
	free(svg);
}

static void degenerate_inputs(void **state)
{
	static const double one[] = { 42.5 };
	static const double equal[] = { 7, 7, 7, 7 };
	static const double zeros[] = { 0, 0 };
	static const double huge[] = { -DBL_MAX, DBL_MAX, 1.7e308 };
	static const double huge_pos[] = { DBL_MAX, DBL_MAX };
	static const double tiny[] = { 5e-324, 1e-320, 2e-310 };
	static const double tiny_eq[] = { 5e-324 };
	static const double neg[] = { -3, -1.5, -2 };
	static const double mixed[] = { -1e-300, 1e300 };
	static const struct { const double *v; size_t n; } cases[] = {
		{ one, 1 }, { equal, 4 }, { zeros, 2 }, { huge, 3 }, { huge_pos, 2 },
		{ tiny, 3 }, { tiny_eq, 1 }, { neg, 3 }, { mixed, 2 },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++)
		for (j = 0; j < N(cases); j++) {
			const struct chart_series s[2] = {
				{ "a", cases[i].v, cases[i].n, 0, 0, 0, 0 },
				{ "b", cases[j].v, cases[j].n, 0, 0, 0, 0 },
			};
			char *svg = draw("m", s, 2, 0), *g = series_group(svg, 0);

			check_frame(svg);
			assert_int_equal(count(g, "<circle"), cases[i].n);
			free(g);
			free(svg);
		}
}

static void one_run_and_equal_runs(void **state)
{
	static const double one[] = { 42.5 }, equal[] = { 7, 7, 7 };
	const struct chart_series s[2] = {
		{ "a", one, 1, 0, 0, 0, 0 },
		{ "b", equal, 3, 0, 0, 0, 0 },
	};
	char *svg = draw("m", s, 2, 0);

	(void)state;
	assert_non_null(strstr(svg, "a n=1 mean 42.50 \xc2\xb1n/a; b n=3 mean 7.00 \xc2\xb1" "0.0%"));
	assert_int_equal(count(svg, "chart-band"), 0);	/* no spread, no band */
	free(svg);
	/* all equal: the axis still has distinct labels */
	{
		const struct chart_series e[1] = { { "b", equal, 3, 0, 0, 0, 0 } };

		svg = draw("m", e, 1, 0);
		assert_non_null(strstr(svg, ">7.00</text>"));
		assert_true(count(svg, "<text x=\"70\"") >= 2);
		free(svg);
	}
}

/* More runs than max_points: an even pick in run order, and it says so. */
static void subsample(void **state)
{
	static double v[3000];
	struct chart_series s[2];
	char *svg, *g0, *g1, *p;
	size_t i;
	char cy0[32] = "";

	(void)state;
	/* every third run is 0, the others 100: picking run 3k draws only 0s */
	for (i = 0; i < N(v); i++)
		v[i] = i % 3 ? 100 : 0;
	s[0] = (struct chart_series){ "a", v, 3000, 0, 0, 0, 0 };
	s[1] = (struct chart_series){ "b", v, 999, 0, 0, 0, 0 };
	svg = draw("m", s, 2, 1000);
	check_frame(svg);
	g0 = series_group(svg, 0);
	g1 = series_group(svg, 1);
	assert_int_equal(count(g0, "<circle"), 1000);
	assert_int_equal(count(g1, "<rect") - count(g1, "chart-band"), 999);
	assert_non_null(strstr(svg, "a n=3000 (1000 shown) mean 66.67"));
	assert_non_null(strstr(svg, "b n=999 mean"));
	assert_null(strstr(svg, "b n=999 (999 shown)"));
	assert_non_null(strstr(svg, "(at most 1000 runs a series drawn, picked evenly in run order)"
				    "</title>"));
	for (p = g0; (p = strstr(p, " cy=\"")); p++) {
		char cy[32];

		assert_int_equal(sscanf(p, " cy=\"%31[^\"]", cy), 1);
		if (!*cy0)
			snprintf(cy0, sizeof(cy0), "%s", cy);
		assert_string_equal(cy, cy0);
	}
	free(g0);
	free(g1);
	free(svg);
	/* max_points 0 is the default, 1000 */
	s[0].nr_values = 1500;
	svg = draw("m", s, 1, 0);
	g0 = series_group(svg, 0);
	assert_int_equal(count(g0, "<circle"), CHART_DEFAULT_MAX_POINTS);
	free(g0);
	free(svg);
}

static void hostile_text_is_escaped(void **state)
{
	const double v[] = { 1, 2 };
	const struct chart_series s[3] = {
		{ "<script>alert(1)</script>", v, 2, 0, 0, 0, 0 },
		{ "\" onload=\"alert(2)", v, 2, 0, 0, 0, 0 },
		{ "\xe2\x80\xae" "cba\x1b\x85\xff", v, 2, 0, 0, 0, 0 },
	};
	char *svg = draw("<script>alert(\"x\")</script>&'javascript:x'/../\xe2\x80\xae\x07", s, 3, 0);
	size_t i;

	(void)state;
	check_frame(svg);
	assert_int_equal(count(svg, "&lt;script&gt;alert(1)&lt;/script&gt;"), 3);
	assert_int_equal(count(svg, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"
				    "javascript:x&#39;/../&lt;U+202E&gt;&lt;U+0007&gt;"), 2);
	assert_int_equal(count(svg, "&quot; onload=&quot;alert(2)"), 3);
	assert_int_equal(count(svg, "&lt;U+202E&gt;cba&lt;U+001B&gt;&lt;0x85&gt;&lt;0xFF&gt;"), 3);
	assert_null(strstr(svg, "\xe2\x80\xae"));
	assert_null(strstr(svg, "onload=\""));
	for (i = 0; svg[i]; i++)
		assert_true((unsigned char)svg[i] >= 0x20 || svg[i] == '\n');
	free(svg);
}

static void refusals(void **state)
{
	const double v[] = { 1, 2 }, bad_v[] = { 1, NAN }, inf_v[] = { INFINITY };
	struct chart_series ok = { "a", v, 2, 0, 0, 0, 0 }, s[CHART_MAX_SERIES + 1];
	static const struct {
		int what;
		const char *msg;
	} cases[] = {
		{ 0, "chart: 0 series (1 to 8 can be drawn)" },
		{ 1, "chart: 9 series (1 to 8 can be drawn)" },
		{ 2, "chart: series 2: run 2 is not finite" },
		{ 3, "chart: series 1: run 1 is not finite" },
		{ 4, "chart: series 2: the mean is not finite" },
		{ 5, "chart: series 1: the stddev is not a finite, non-negative number" },
		{ 6, "chart: series 2 has neither values nor a mean" },
		{ 7, "chart: series 1 has no label" },
		{ 8, "chart: no metric name" },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct chart c = { "m", s, 2, 0 };
		struct buf out = BUF_INIT, err = BUF_INIT;

		for (j = 0; j < N(s); j++)
			s[j] = ok;
		switch (cases[i].what) {
		case 0: c.nr_series = 0; break;
		case 1: c.nr_series = CHART_MAX_SERIES + 1; break;
		case 2: s[1].values = bad_v; break;
		case 3: s[0].values = inf_v; s[0].nr_values = 1; break;
		case 4: s[1].has_mean = 1; s[1].mean = INFINITY; break;
		case 5: s[0].has_stddev = 1; s[0].stddev_percent = -1; break;
		case 6: s[1].values = NULL; s[1].nr_values = 0; break;
		case 7: s[0].label = NULL; break;
		case 8: c.metric = NULL; break;
		}
		buf_adds(&out, "kept");
		assert_int_equal(chart_svg(&out, &c, &err), -1);
		assert_string_equal(err.data, cases[i].msg);
		assert_string_equal(out.data, "kept");
		buf_release(&out);
		buf_release(&err);
	}
}

/* A lab's locale with a decimal comma changes nothing in the chart. */
static void c_locale_numbers(void **state)
{
	const double a[] = { 1.25, 2.5, 3.75 }, b[] = { 0.125, 0.375 };
	const struct chart_series s[2] = {
		{ "a", a, 3, 0, 0, 0, 0 },
		{ "b", b, 2, 1, 0.125, 1, 12.5 },
	};
	char *want = draw("m", s, 2, 0), *got, probe[16];

	(void)state;
	if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "de_DE.utf8")) {
		free(want);
		skip();		/* tests/t/chart.sh generates the locale and runs this again */
	}
	snprintf(probe, sizeof(probe), "%.1f", 1.5);
	assert_string_equal(probe, "1,5");	/* the locale is in force */
	got = draw("m", s, 2, 0);
	setlocale(LC_NUMERIC, "C");
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "\xc2\xb1" "12.5%"));
	assert_non_null(strstr(got, "mean 0.12 "));	/* the tie printf decides */
	free(got);
	free(want);
}

static void series_from_report(void **state)
{
	double good[] = { 1, 2 }, bad[] = { 3, 4, 5 };
	struct report_metric m;
	struct report_samples smp = { "x", good, 2, bad, 3 };
	struct chart_series s[2];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.name = "x";
	m.base = (struct report_side){ 1.5, 1, 33.3, NULL, 0 };
	m.head = (struct report_side){ 4, 0, 0, NULL, 0 };
	chart_series_from_report(s, &m, &smp, "base1", "head1");
	assert_string_equal(s[0].label, "base1");
	assert_ptr_equal(s[0].values, good);
	assert_int_equal(s[0].nr_values, 2);
	assert_true(s[0].has_mean && s[0].mean == 1.5 && s[0].has_stddev && s[0].stddev_percent == 33.3);
	assert_string_equal(s[1].label, "head1");
	assert_ptr_equal(s[1].values, bad);
	assert_int_equal(s[1].nr_values, 3);
	assert_true(s[1].has_mean && s[1].mean == 4 && !s[1].has_stddev);
	chart_series_from_report(s, &m, NULL, "b", "h");
	assert_null(s[0].values);
	assert_int_equal(s[1].nr_values, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_chart_has_everything),
		cmocka_unit_test(dots_in_run_order),
		cmocka_unit_test(given_numbers_are_used),
		cmocka_unit_test(eight_marks),
		cmocka_unit_test(degenerate_inputs),
		cmocka_unit_test(one_run_and_equal_runs),
		cmocka_unit_test(subsample),
		cmocka_unit_test(hostile_text_is_escaped),
		cmocka_unit_test(refusals),
		cmocka_unit_test(c_locale_numbers),
		cmocka_unit_test(series_from_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
