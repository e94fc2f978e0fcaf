/*
 * libFuzzer target for bot/chart.h: chart_svg() on series built from the
 * input (the number of series, max_points, each series' label, flags,
 * mean, stddev and values as raw doubles, so NaN, infinities, subnormals
 * and DBL_MAX all come), the rest as the metric's name.  Besides crashes
 * and undefined behaviour it checks the contracts of chart.h and aborts
 * when one is broken:
 *   - -1 exactly when a number is not finite or a stddev negative, or a
 *     series has neither values nor mean; the output is then unchanged;
 *   - else one <svg> element ending in "</svg>\n", with no control
 *     character but TAB and LF (html_text() keeps them), no bidi control,
 *     no raw '<' from the text (as many '<' as '>'), and every attribute
 *     value free of "nan" and "inf";
 *   - at most max_points dots a series: the output stays bounded.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

#define check(ok) check_at((ok), __LINE__)

static void check_at(int ok, int line)
{
	if (!ok) {
		fprintf(stderr, "fuzz-chart.c:%d: contract broken\n", line);
		abort();
	}
}

struct input {
	const uint8_t *p;
	size_t left;
};

static uint8_t take_byte(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static double take_double(struct input *in)
{
	double d = 0;

	if (in->left >= sizeof(d)) {
		memcpy(&d, in->p, sizeof(d));
		in->p += sizeof(d);
		in->left -= sizeof(d);
	}
	return d;
}

static char *take_text(struct input *in, size_t n)
{
	char *s;

	if (n > in->left)
		n = in->left;
	s = malloc(n + 1);
	check(s != NULL);
	memcpy(s, in->p, n);
	s[n] = '\0';	/* a NUL inside ends the text early, as in C */
	in->p += n;
	in->left -= n;
	return s;
}

static void check_svg(const struct buf *b)
{
	size_t i, lt = 0, gt = 0;
	const char *p;

	check(!strncmp(b->data, "<svg xmlns=\"http://www.w3.org/2000/svg\" ", 40));
	check(b->len > 7 && !strcmp(b->data + b->len - 7, "</svg>\n"));
	for (i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->data[i];

		check(c >= 0x20 || c == '\n' || c == '\t');
		check(c != 0x7F);
		lt += c == '<';
		gt += c == '>';
	}
	check(lt == gt);
	check(!strstr(b->data, "\xe2\x80\xae") && !strstr(b->data, "\xc2\x85"));
	for (p = b->data; (p = strstr(p, "=\"")); ) {
		const char *end = strchr(p + 2, '"');
		size_t n;

		check(end != NULL);
		n = (size_t)(end - p - 2);
		check(!memmem(p + 2, n, "nan", 3) && !memmem(p + 2, n, "inf", 3));
		p = end + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct chart_series s[CHART_MAX_SERIES];
	double *values[CHART_MAX_SERIES];
	char *labels[CHART_MAX_SERIES], *metric;
	struct chart c;
	struct buf out = BUF_INIT, err = BUF_INIT;
	size_t i, j, nr = (size_t)(take_byte(&in) % CHART_MAX_SERIES) + 1, dots = 0;
	int valid = 1, r;

	memset(s, 0, sizeof(s));
	c.max_points = take_byte(&in);
	for (i = 0; i < nr; i++) {
		uint8_t flags = take_byte(&in), n = take_byte(&in) % 64;

		labels[i] = take_text(&in, take_byte(&in) % 24);
		s[i].label = labels[i];
		s[i].has_mean = flags & 1;
		s[i].mean = flags & 2 ? take_double(&in) : (double)(int8_t)take_byte(&in);
		s[i].has_stddev = (flags & 4) != 0;
		s[i].stddev_percent = flags & 8 ? take_double(&in) : take_byte(&in) / 4.0;
		values[i] = calloc(n ? n : 1, sizeof(double));
		check(values[i] != NULL);
		for (j = 0; j < n; j++)
			values[i][j] = flags & 16 ? take_double(&in) : (double)(int8_t)take_byte(&in) / 8;
		s[i].values = values[i];
		s[i].nr_values = n;
		if (s[i].has_mean && !isfinite(s[i].mean))
			valid = 0;
		if (s[i].has_stddev && !(isfinite(s[i].stddev_percent) && s[i].stddev_percent >= 0))
			valid = 0;
		if (!n && !s[i].has_mean)
			valid = 0;
		for (j = 0; j < n; j++)
			valid &= isfinite(values[i][j]) != 0;
		dots += n < (c.max_points ? c.max_points : CHART_DEFAULT_MAX_POINTS) ? n :
			(c.max_points ? c.max_points : CHART_DEFAULT_MAX_POINTS);
	}
	metric = take_text(&in, in.left);
	c.metric = metric;
	c.series = s;
	c.nr_series = nr;
	buf_adds(&out, "x");
	r = chart_svg(&out, &c, &err);
	check(r == (valid ? 0 : -1));
	if (r < 0) {
		check(!strcmp(out.data, "x") && err.len > 0);
	} else {
		struct buf svg = BUF_INIT;

		buf_add(&svg, out.data + 1, out.len - 1);
		check_svg(&svg);
		/* a bounded size: the text, a fixed part, one mark per dot */
		check(svg.len < 8000 + 600 * nr + 80 * dots + 60 * (size + 1) * 3);
		buf_release(&svg);
	}
	for (i = 0; i < nr; i++) {
		free(values[i]);
		free(labels[i]);
	}
	free(metric);
	buf_release(&out);
	buf_release(&err);
	return 0;
}
