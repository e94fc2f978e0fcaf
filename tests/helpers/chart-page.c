/*
 * chart-page: prints an HTML page (also well-formed XML) holding charts
 * that bot/chart.c drew from fixed inputs: a report's two series, a test
 * result's four, one run, equal runs, huge, tiny and negative values, more
 * runs than max_points, a hostile metric name and labels.  For
 * tests/t/chart.sh (XML parse, locale) and tests/t/chart-browser.sh
 * (headless Chromium).  It takes the locale from the environment, as a
 * lab's perfbot would, and says on stderr which decimal point printf
 * would use there, so a test can tell the locale was in force.
 */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "chart.h"
#include "html.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int add_chart(struct buf *page, const char *caption, const char *metric,
		     struct chart_series *s, size_t n, size_t max_points)
{
	struct chart c = { metric, s, n, max_points };
	struct buf err = BUF_INIT;

	buf_adds(page, "<section>\n<h2>");
	html_text(page, caption, strlen(caption));
	buf_adds(page, "</h2>\n");
	if (chart_svg(page, &c, &err) < 0) {
		fprintf(stderr, "chart-page: %s: %s\n", caption, err.data);
		buf_release(&err);
		return -1;
	}
	buf_adds(page, "</section>\n");
	return 0;
}

int main(void)
{
	static const double good[] = { 1245.2, 1251.7, 1239.9, 1248.3, 1250.1, 1244.6, 1247.0, 1252.8 };
	static const double bad[] = { 1120.4, 1131.9, 1109.7, 1125.0, 1118.2, 1127.6, 1122.3, 1119.8 };
	static const double c3[] = { 1190.5, 1201.2, 1185.0, 1195.4, 1199.9 };
	static const double c4[] = { 1240.0, 1236.1, 1243.3, 1238.8 };
	static const double one[] = { 42.5 };
	static const double equal[] = { 7, 7, 7, 7, 7, 7 };
	static const double huge_a[] = { 1.2e300, 1.5e300, 1.1e300, 1.35e300 };
	static const double huge_b[] = { -1.7e308, 1.7e308 };
	static const double tiny_a[] = { 2.5e-9, 2.7e-9, 2.4e-9 };
	static const double tiny_b[] = { 3.1e-9, 3.3e-9, 3.0e-9 };
	static const double neg_a[] = { -12.5, -10.25, -11.75, -13.0 };
	static const double neg_b[] = { 3.5, -2.25, 0.75, 1.5 };
	static double many_a[3000], many_b[2500];
	struct buf page = BUF_INIT;
	const char *point;
	size_t i;
	int bad_chart = 0;

	setlocale(LC_ALL, "");
	point = localeconv()->decimal_point;
	fprintf(stderr, "chart-page: decimal point \"%s\"\n", point);
	for (i = 0; i < N(many_a); i++)
		many_a[i] = 5000 + 300 * sin((double)i / 40) + (double)(i % 7) * 11;
	for (i = 0; i < N(many_b); i++)
		many_b[i] = 5400 + 250 * cos((double)i / 55) + (double)(i % 5) * 13;

	buf_adds(&page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		 "<title>perfbot charts</title>\n"
		 "<style>svg.chart { max-width: 100%; height: auto; display: block }</style>\n"
		 "</head>\n<body>\n<h1>perfbot charts</h1>\n");
	{
		struct chart_series s[2] = {
			{ "a1b2c3d4e5f6", good, N(good), 0, 0, 0, 0 },
			{ "0f9e8d7c6b5a", bad, N(bad), 0, 0, 0, 0 },
		};
		bad_chart |= add_chart(&page, "a report: base and head", "will-it-scale.per_process_ops",
				       s, 2, 0);
	}
	{
		struct chart_series s[4] = {
			{ "a1b2c3d4e5f6", good, N(good), 0, 0, 0, 0 },
			{ "0f9e8d7c6b5a", bad, N(bad), 0, 0, 0, 0 },
			{ "1111222233334", c3, N(c3), 0, 0, 0, 0 },
			{ "5555666677778", c4, N(c4), 0, 0, 0, 0 },
		};
		bad_chart |= add_chart(&page, "a test result: four commits", "fio.write_bw_MBps", s, 4, 0);
	}
	{
		struct chart_series s[2] = {
			{ "base", one, 1, 0, 0, 0, 0 },
			{ "head", equal, N(equal), 0, 0, 0, 0 },
		};
		bad_chart |= add_chart(&page, "one run; equal runs", "hackbench.throughput", s, 2, 0);
	}
	{
		struct chart_series s[2] = {
			{ "base", huge_a, N(huge_a), 0, 0, 0, 0 },
			{ "head", huge_b, N(huge_b), 0, 0, 0, 0 },
		};
		bad_chart |= add_chart(&page, "huge values", "stress-ng.huge", s, 2, 0);
	}
	{
		struct chart_series s[2] = {
			{ "base", tiny_a, N(tiny_a), 0, 0, 0, 0 },
			{ "head", tiny_b, N(tiny_b), 0, 0, 0, 0 },
		};
		bad_chart |= add_chart(&page, "tiny values", "latency.seconds", s, 2, 0);
	}
	{
		struct chart_series s[2] = {
			{ "base", neg_a, N(neg_a), 0, 0, 0, 0 },
			{ "head", neg_b, N(neg_b), 0, 0, 0, 0 },
		};
		bad_chart |= add_chart(&page, "negative values", "perf-profile.delta", s, 2, 0);
	}
	{
		struct chart_series s[2] = {
			{ "base", many_a, N(many_a), 0, 0, 0, 0 },
			{ "head", many_b, N(many_b), 0, 0, 0, 0 },
		};
		bad_chart |= add_chart(&page, "more runs than site.maxSamples (1000)", "netperf.Throughput_Mbps",
				       s, 2, 1000);
	}
	{
		struct chart_series s[3] = {
			{ "<script>alert(1)</script>", good, N(good), 0, 0, 0, 0 },
			{ "\" onload=\"alert(2)", bad, N(bad), 0, 0, 0, 0 },
			{ "\xe2\x80\xae" "cba", c3, N(c3), 1, 1200, 1, 3.25 },
		};
		bad_chart |= add_chart(&page, "a hostile metric name",
				       "<script>alert(\"x\")</script>&amp;'javascript:alert(3)'/../"
				       "\xe2\x80\xae" "evil\x1b[0m\xff",
				       s, 3, 0);
	}
	buf_adds(&page, "</body>\n</html>\n");
	fwrite(page.data, 1, page.len, stdout);
	buf_release(&page);
	return bad_chart || fflush(stdout) ? 1 : 0;
}
