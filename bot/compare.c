#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "xalloc.h"
#include "banned.h"

#define SECTION_RULE_WIDTH 89

int compare_metric_is_absolute(const char *name)
{
	size_t n = strlen(name);

	return !strncmp(name, "perf-profile", 12) || (n && name[n - 1] == '%');
}

/* The change of m, whose name is (absolute) or is not a percentage or
 * perf-profile metric: a row asks once for both. */
static double metric_change(const struct report_metric *m, int absolute)
{
	double base = m->base.mean, head = m->head.mean;

	if (m->has_change)
		return m->change;
	if (absolute)
		return head - base;
	if (base == 0)
		base = 1e-100;
	return 100.0 * (head - base) / fabs(base);
}

double compare_metric_change(const struct report_metric *m)
{
	return metric_change(m, compare_metric_is_absolute(m->name));
}

/* The change of m's extra column j against base, by metric_change()'s rule:
 * LKP's compare computes every later column's change against the first. */
static double extra_change(const struct report_metric *m, size_t j, int absolute)
{
	const struct report_extra_side *e = &m->extra[j];
	double base = m->base.mean;

	if (e->has_change)
		return e->change;
	if (absolute)
		return e->side.mean - base;
	if (base == 0)
		base = 1e-100;
	return 100.0 * (e->side.mean - base) / fabs(base);
}

double compare_metric_extra_change(const struct report_metric *m, size_t j)
{
	return extra_change(m, j, compare_metric_is_absolute(m->name));
}

/*
 * The table's numbers are written without printf where that is safe:
 * printf's float conversion is most of a report's rendering time.
 * Writes v as printf's "%+*.*f" / "%*.*f" would (width w, prec digits,
 * plus: force a sign) when the rounding is unambiguous; returns the length,
 * or 0 when the caller must use printf (ties, large values). */
static size_t fast_fixed(char *out, double v, int w, int prec, int plus)
{
	static const double scale[] = { 1, 10, 100 };
	double x = fabs(v) * scale[prec], r, fr;
	char tmp[40];
	size_t n = 0, i, len;
	unsigned long long u;
	int neg = signbit(v) != 0;

	if (!(x < 1e9))
		return 0;	/* keeps the product's rounding error far below the tie window */
	r = floor(x);
	fr = x - r;
	if (fabs(fr - 0.5) < 1e-6)
		return 0;	/* near a tie: let printf decide exactly */
	u = (unsigned long long)r + (fr > 0.5);
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
		if ((int)n == prec)
			tmp[n++] = '.';
	} while (u || (int)n <= prec + (prec > 0));
	if (neg) {
		/* printf prints -0.00 for negative values rounding to zero */
		tmp[n++] = '-';
	} else if (plus) {
		tmp[n++] = '+';
	}
	len = n < (size_t)w ? (size_t)w : n;
	for (i = 0; i < len - n; i++)
		out[i] = ' ';
	for (i = 0; i < n; i++)
		out[len - n + i] = tmp[n - 1 - i];
	return len;
}

static void add_fixed(struct buf *out, double v, int w, int prec, int plus)
{
	char tmp[48];
	size_t n = fast_fixed(tmp, v, w, prec, plus);

	if (n)
		buf_add(out, tmp, n);
	else
		buf_addf(out, plus ? "%+*.*f" : "%*.*f", w, prec, v);
}

void compare_format_fixed(struct buf *out, double v, int w, int prec)
{
	add_fixed(out, v, w, prec, 0);
}

/* "%10.4g" for 1e8 < |v| < 1e22 (always the exponent form there), by
 * hand when the rounding is unambiguous; 0 when printf must decide. */
static size_t fast_g4(char *out, double v)
{
	double a = fabs(v), m, r, next = 1e9, unit = 1e5;	/* powers of ten below 1e23 are exact */
	char tmp[24];
	size_t n = 0, len, i;
	int e = 8, digits[4], k, last;
	unsigned u;

	while (e < 21 && a >= next) {	/* next = 10^(e+1), unit = 10^(e-3) */
		next *= 10;
		unit *= 10;
		e++;
	}
	if (e >= 21)
		return 0;
	m = a / unit;	/* 4 significant digits before the point: [1000, 10000) */
	r = floor(m);
	if (fabs(m - r - 0.5) < 1e-6 || m < 1000)
		return 0;
	u = (unsigned)r + (m - r > 0.5);
	if (u >= 10000) {
		u /= 10;
		e++;
	}
	for (k = 3; k >= 0; k--) {
		digits[k] = (int)(u % 10);
		u /= 10;
	}
	for (last = 3; last > 0 && digits[last] == 0; last--)
		;
	if (signbit(v))
		tmp[n++] = '-';
	tmp[n++] = (char)('0' + digits[0]);
	if (last > 0) {
		tmp[n++] = '.';
		for (k = 1; k <= last; k++)
			tmp[n++] = (char)('0' + digits[k]);
	}
	tmp[n++] = 'e';
	tmp[n++] = '+';
	tmp[n++] = (char)('0' + e / 10);
	tmp[n++] = (char)('0' + e % 10);
	len = n < 10 ? 10 : n;
	for (i = 0; i < len - n; i++)
		out[i] = ' ';
	memcpy(out + len - n, tmp, n);
	return len;
}

void compare_format_value(struct buf *out, double v)
{
	double a = fabs(v);

	if (a < 1000) {
		add_fixed(out, v, 10, 2, 0);
	} else if (a > 100000000) {
		char tmp[24];
		size_t n = fast_g4(tmp, v);

		if (n)
			buf_add(out, tmp, n);
		else
			buf_addf(out, "%10.4g", v);
	}
	else {
		add_fixed(out, trunc(v), 10, 0, 0);	/* truncated toward zero */
	}
}

void compare_format_stddev(struct buf *out, const struct report_side *s)
{
	int p;

	if (!(s->has_stddev && s->mean != 0 && s->stddev_percent > 2)) {
		buf_addchars(out, ' ', 6);
		return;
	}
	p = (int)s->stddev_percent;
	if (p < 1000) {
		/* " ±%3d%%" by hand */
		char t[7] = { ' ', '\xc2', '\xb1', p >= 100 ? (char)('0' + p / 100) : ' ',
			      p >= 10 ? (char)('0' + p / 10 % 10) : ' ', (char)('0' + p % 10), '%' };

		buf_add(out, t, sizeof(t));
	} else {
		buf_addf(out, " \xc2\xb1%3d%%", p);
	}
}

static void format_change(struct buf *out, int absolute, double change)
{
	if (absolute) {
		add_fixed(out, change, 10, 1, 1);
		buf_adds(out, "  ");
	} else if (fabs(change) >= 100000) {
		buf_addf(out, "%+10.2g%% ", change);
	} else {
		add_fixed(out, change, 10, 1, 1);
		buf_adds(out, "% ");
	}
}

void compare_format_change(struct buf *out, const char *metric, double change)
{
	format_change(out, compare_metric_is_absolute(metric), change);
}

void compare_format_row(struct buf *out, const struct report_metric *m)
{
	compare_format_row_n(out, m, 0);
}

void compare_format_row_n(struct buf *out, const struct report_metric *m, size_t nr_extra)
{
	int absolute = compare_metric_is_absolute(m->name);
	size_t j;

	compare_format_value(out, m->base.mean);
	compare_format_stddev(out, &m->base);
	format_change(out, absolute, metric_change(m, absolute));
	compare_format_value(out, m->head.mean);
	compare_format_stddev(out, &m->head);
	for (j = 0; j < nr_extra; j++) {
		format_change(out, absolute, extra_change(m, j, absolute));
		compare_format_value(out, m->extra[j].side.mean);
		compare_format_stddev(out, &m->extra[j].side);
	}
	buf_adds(out, "  ");
	buf_adds(out, m->name);
	buf_addc(out, '\n');
}

static void format_fail_runs(struct buf *out, long fails, long runs)
{
	if (fails)
		buf_addf(out, "%11ld", fails);
	else
		buf_addchars(out, ' ', 11);
	buf_addf(out, ":%-4ld", runs);
}

/* A later column's %reproduction against base: each column's share of
 * failing runs over its own runs (LKP's calc_failure_change() divides by
 * the runs of the column before; the two agree whenever the columns made
 * as many runs, as the lab's comparisons do). */
static void format_fail_change(struct buf *out, const struct report_failure *f, long fails,
			       long runs)
{
	double change = 100.0 * ((double)fails / (double)runs -
				 (double)f->base_fails / (double)f->base_runs);

	buf_addf(out, "%10.0f%% ", change);
}

void compare_format_failure(struct buf *out, const struct report_failure *f)
{
	compare_format_failure_n(out, f, 0);
}

void compare_format_failure_n(struct buf *out, const struct report_failure *f, size_t nr_extra)
{
	size_t j;

	format_fail_runs(out, f->base_fails, f->base_runs);
	format_fail_change(out, f, f->head_fails, f->head_runs);
	format_fail_runs(out, f->head_fails, f->head_runs);
	for (j = 0; j < nr_extra; j++) {
		format_fail_change(out, f, f->extra[j].fails, f->extra[j].runs);
		format_fail_runs(out, f->extra[j].fails, f->extra[j].runs);
	}
	buf_addf(out, "  %s\n", f->name);
}

struct axis {
	const char *key;
	const char *value;
	size_t key_len;
};

/* Byte i of "key=value" (0 past its end), so axes sort without building
 * the strings. */
static unsigned char axis_char(const struct axis *a, size_t i)
{
	if (i < a->key_len)
		return (unsigned char)a->key[i];
	if (i == a->key_len)
		return '=';
	return (unsigned char)a->value[i - a->key_len - 1];
}

static int axis_cmp(const void *pa, const void *pb)
{
	const struct axis *a = pa, *b = pb;
	size_t i;

	for (i = 0;; i++) {
		unsigned char x = axis_char(a, i), y = axis_char(b, i);

		if (x != y || !x)
			return (int)x - (int)y;
	}
}

void compare_format_axes(struct buf *out, const struct report_test *t)
{
	const char *fixed[][2] = {
		{ "tbox_group", t->tbox_group }, { "testcase", t->testcase },
		{ "rootfs", t->rootfs }, { "kconfig", t->kconfig }, { "compiler", t->compiler },
	};
	size_t n = t->nr_params + 5, i;
	struct axis *ax = xcalloc(n, sizeof(*ax));

	for (i = 0; i < t->nr_params; i++) {
		ax[i].key = t->params[i].key;
		ax[i].value = t->params[i].value;
	}
	for (i = 0; i < 5; i++) {
		ax[t->nr_params + i].key = fixed[i][0];
		ax[t->nr_params + i].value = fixed[i][1];
	}
	for (i = 0; i < n; i++)
		ax[i].key_len = strlen(ax[i].key);
	xqsort(ax, n, sizeof(*ax), axis_cmp);
	for (i = 0; i < n; i++) {
		if (i)
			buf_addc(out, '/');
		buf_add(out, ax[i].key, ax[i].key_len);
	}
	buf_adds(out, ":\n  ");
	for (i = 0; i < n; i++) {
		if (i)
			buf_addc(out, '/');
		buf_adds(out, ax[i].value);
	}
	buf_addc(out, '\n');
	free(ax);
}

/* The plain strings of a section are appended without printf, whose
 * format parsing is a tenth of a render ("%.Ns" is add_at_most(), "%Ns"
 * add_right()). */
static void add_at_most(struct buf *out, const char *s, size_t max)
{
	buf_add(out, s, strnlen(s, max));
}

static void add_right(struct buf *out, const char *s, size_t width)
{
	size_t n = strlen(s);

	if (n < width)
		buf_addchars(out, ' ', width - n);
	buf_add(out, s, n);
}

static void format_commit_line(struct buf *out, const struct compare_commit *c)
{
	buf_adds(out, "  ");
	if (c->tag) {
		buf_adds(out, c->tag);
	} else {
		add_at_most(out, c->id, 10);
		buf_adds(out, " (\"");
		buf_adds(out, c->subject);
		buf_addc(out, '"');
		buf_addc(out, ')');
	}
	if (c->label) {
		/* the robot's team marks the commit they tested so */
		buf_adds(out, "   <--- ");
		buf_adds(out, c->label);
	}
	buf_addc(out, '\n');
}

void compare_format_section_head(struct buf *out, const struct report_test *t,
				 const struct compare_commit *base,
				 const struct compare_commit *head)
{
	const struct compare_commit cols[2] = { *base, *head };

	compare_format_section_head_n(out, t, cols, 2);
}

void compare_format_section_head_n(struct buf *out, const struct report_test *t,
				   const struct compare_commit *cols, size_t n)
{
	size_t i;

	buf_addchars(out, '=', SECTION_RULE_WIDTH);
	buf_addc(out, '\n');
	compare_format_axes(out, t);
	buf_adds(out, "\ncommit: \n");
	for (i = 0; i < n; i++)
		format_commit_line(out, &cols[i]);
	buf_addc(out, '\n');
}

void compare_format_id_line(struct buf *out, const struct compare_commit *base,
			    const struct compare_commit *head, int head_width)
{
	const struct compare_commit cols[2] = { *base, *head };

	compare_format_id_line_n(out, cols, 2, head_width);
}

/* LKP's show_group_header(): "%16s " of the first column's id cut to 16,
 * then "%27s " of each later one's cut to 27, and as many dashes. */
void compare_format_id_line_n(struct buf *out, const struct compare_commit *cols, size_t n,
			      int head_width)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t w = i ? (size_t)head_width : 16;

		if (i)
			buf_addc(out, ' ');
		if (cols[i].tag) {
			add_right(out, cols[i].tag, w);
		} else {
			size_t len = strnlen(cols[i].id, w);

			buf_addchars(out, ' ', w - len);
			buf_add(out, cols[i].id, len);
		}
	}
	buf_adds(out, " \n");
	buf_adds(out, "----------------");
	for (i = 1; i < n; i++) {
		buf_addc(out, ' ');
		buf_addchars(out, '-', (size_t)head_width);
	}
	buf_adds(out, " \n");
}

void compare_format_section_rows(struct buf *out, const struct report_test *t)
{
	compare_format_section_rows_n(out, t, 0);
}

void compare_format_section_rows_n(struct buf *out, const struct report_test *t,
				   size_t nr_extra)
{
	size_t i, j;

	/* show_failure_header() and show_perf_header() with n later columns */
	if (t->nr_failures) {
		buf_adds(out, "       fail:runs");
		for (j = 0; j <= nr_extra; j++)
			buf_adds(out, "  %reproduction    fail:runs");
		buf_adds(out, "\n           |    ");
		for (j = 0; j <= nr_extra; j++)
			buf_adds(out, "         |             |    ");
		buf_addc(out, '\n');
		for (i = 0; i < t->nr_failures; i++)
			compare_format_failure_n(out, &t->failures[i], nr_extra);
	}
	buf_adds(out, "         %stddev");
	for (j = 0; j <= nr_extra; j++)
		buf_adds(out, "     %change         %stddev");
	buf_adds(out, "\n             \\  ");
	for (j = 0; j <= nr_extra; j++)
		buf_adds(out, "        |                \\  ");
	buf_addc(out, '\n');
	for (i = 0; i < t->nr_metrics; i++)
		compare_format_row_n(out, &t->metrics[i], nr_extra);
	buf_addc(out, '\n');
}

void compare_format_section(struct buf *out, const struct report_test *t,
			    const struct compare_commit *base,
			    const struct compare_commit *head, int head_width)
{
	compare_format_section_head(out, t, base, head);
	compare_format_id_line(out, base, head, head_width);
	compare_format_section_rows(out, t);
}

void compare_format_section_n(struct buf *out, const struct report_test *t,
			      const struct compare_commit *cols, size_t n, int head_width)
{
	compare_format_section_head_n(out, t, cols, n);
	compare_format_id_line_n(out, cols, n, head_width);
	compare_format_section_rows_n(out, t, n - 2);
}

void compare_format_percent(struct buf *out, double change)
{
	buf_addf(out, "%.1f", fabs(change));
}

/* Width in characters (UTF-8 code points), for padding box cells. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void box_line(struct buf *out, const char *left, const char *right, size_t w)
{
	size_t n = strlen(left);

	buf_adds(out, "| ");
	buf_add(out, left, n);
	if (n < 16)
		buf_addchars(out, ' ', 16 - n);
	buf_adds(out, " | ");
	buf_adds(out, right);
	buf_addchars(out, ' ', w - text_width(right));
	buf_adds(out, " |\n");
}

static void box_rule(struct buf *out, size_t w)
{
	buf_adds(out, "+------------------+");
	buf_addchars(out, '-', w + 2);
	buf_adds(out, "+\n");
}

static int param_cmp(const void *a, const void *b)
{
	const struct report_param *x = *(const struct report_param *const *)a;
	const struct report_param *y = *(const struct report_param *const *)b;

	return strcmp(x->key, y->key);
}

/* The right-hand strings of one test's rows, in order. */
static size_t box_cells(const struct compare_box_entry *e, char ***cells)
{
	const struct report_test *t = e->test;
	const struct report_param **sorted = xcalloc(t->nr_params + 1, sizeof(*sorted));
	struct buf s = BUF_INIT;
	size_t i, n = 0;
	char pct[64];

	*cells = xcalloc(t->nr_params + 2, sizeof(**cells));
	/* "%+.1f%%" with '+' dropped and '-' made a space */
	snprintf(pct, sizeof(pct), "%.1f%%", fabs(e->change));
	buf_addf(&s, "%s: %s %s%s %s", t->testcase, t->headline,
		 signbit(e->change) ? " " : "", pct, e->kind);
	(*cells)[n++] = buf_detach(&s, NULL);
	(*cells)[n++] = xstrdup(t->machine);
	for (i = 0; i < t->nr_params; i++)
		sorted[i] = &t->params[i];
	xqsort(sorted, t->nr_params, sizeof(*sorted), param_cmp);
	for (i = 0; i < t->nr_params; i++) {
		buf_adds(&s, sorted[i]->key);
		buf_addc(&s, '=');
		buf_adds(&s, sorted[i]->value);
		(*cells)[n++] = buf_detach(&s, NULL);
	}
	free(sorted);
	return n;
}

void compare_format_box(struct buf *out, const struct compare_box_entry *e, size_t n)
{
	char ***cells = xcalloc(n, sizeof(*cells));
	size_t *nr = xcalloc(n, sizeof(*nr));
	size_t w = 0, i, j;

	for (i = 0; i < n; i++) {
		nr[i] = box_cells(&e[i], &cells[i]);
		for (j = 0; j < nr[i]; j++)
			if (text_width(cells[i][j]) > w)
				w = text_width(cells[i][j]);
	}
	box_rule(out, w);
	for (i = 0; i < n; i++) {
		for (j = 0; j < nr[i]; j++) {
			const char *left = j == 0 ? "testcase: change" : j == 1 ? "test machine" :
					   j == 2 ? "test parameters" : "";

			box_line(out, left, cells[i][j], w);
			free(cells[i][j]);
		}
		free(cells[i]);
		box_rule(out, w);
	}
	free(cells);
	free(nr);
}
