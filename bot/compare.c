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

double compare_metric_change(const struct report_metric *m)
{
	double base = m->base.mean, head = m->head.mean;

	if (m->has_change)
		return m->change;
	if (compare_metric_is_absolute(m->name))
		return head - base;
	if (base == 0)
		base = 1e-100;
	return 100.0 * (head - base) / fabs(base);
}

void compare_format_value(struct buf *out, double v)
{
	double a = fabs(v);

	if (a < 1000)
		buf_addf(out, "%10.2f", v);
	else if (a > 100000000)
		buf_addf(out, "%10.4g", v);
	else
		buf_addf(out, "%10lld", (long long)v);	/* the cast truncates toward zero */
}

void compare_format_stddev(struct buf *out, const struct report_side *s)
{
	if (s->has_stddev && s->mean != 0 && s->stddev_percent > 2)
		buf_addf(out, " \xc2\xb1%3d%%", (int)s->stddev_percent);
	else
		buf_addchars(out, ' ', 6);
}

void compare_format_change(struct buf *out, const char *metric, double change)
{
	if (compare_metric_is_absolute(metric))
		buf_addf(out, "%+10.1f  ", change);
	else if (fabs(change) >= 100000)
		buf_addf(out, "%+10.2g%% ", change);
	else
		buf_addf(out, "%+10.1f%% ", change);
}

void compare_format_row(struct buf *out, const struct report_metric *m)
{
	compare_format_value(out, m->base.mean);
	compare_format_stddev(out, &m->base);
	compare_format_change(out, m->name, compare_metric_change(m));
	compare_format_value(out, m->head.mean);
	compare_format_stddev(out, &m->head);
	buf_addf(out, "  %s\n", m->name);
}

static void format_fail_runs(struct buf *out, long fails, long runs)
{
	if (fails)
		buf_addf(out, "%11ld", fails);
	else
		buf_addchars(out, ' ', 11);
	buf_addf(out, ":%-4ld", runs);
}

void compare_format_failure(struct buf *out, const struct report_failure *f)
{
	double change = 100.0 * ((double)f->head_fails / (double)f->head_runs -
				 (double)f->base_fails / (double)f->base_runs);

	format_fail_runs(out, f->base_fails, f->base_runs);
	buf_addf(out, "%10.0f%% ", change);
	format_fail_runs(out, f->head_fails, f->head_runs);
	buf_addf(out, "  %s\n", f->name);
}

struct axis {
	const char *key;
	const char *value;
	char *sort;	/* "key=value" */
};

static int axis_cmp(const void *a, const void *b)
{
	return strcmp(((const struct axis *)a)->sort, ((const struct axis *)b)->sort);
}

void compare_format_axes(struct buf *out, const struct report_test *t)
{
	const char *fixed[][2] = {
		{ "tbox_group", t->tbox_group }, { "testcase", t->testcase },
		{ "rootfs", t->rootfs }, { "kconfig", t->kconfig }, { "compiler", t->compiler },
	};
	size_t n = t->nr_params + 5, i;
	struct axis *ax = xcalloc(n, sizeof(*ax));
	struct buf s = BUF_INIT;

	for (i = 0; i < t->nr_params; i++) {
		ax[i].key = t->params[i].key;
		ax[i].value = t->params[i].value;
	}
	for (i = 0; i < 5; i++) {
		ax[t->nr_params + i].key = fixed[i][0];
		ax[t->nr_params + i].value = fixed[i][1];
	}
	for (i = 0; i < n; i++) {
		buf_reset(&s);
		buf_addf(&s, "%s=%s", ax[i].key, ax[i].value);
		ax[i].sort = xstrdup(s.data);
	}
	qsort(ax, n, sizeof(*ax), axis_cmp);
	for (i = 0; i < n; i++)
		buf_addf(out, "%s%s", i ? "/" : "", ax[i].key);
	buf_adds(out, ":\n  ");
	for (i = 0; i < n; i++)
		buf_addf(out, "%s%s", i ? "/" : "", ax[i].value);
	buf_addc(out, '\n');
	for (i = 0; i < n; i++)
		free(ax[i].sort);
	free(ax);
	buf_release(&s);
}

static void format_commit_line(struct buf *out, const struct compare_commit *c)
{
	if (c->tag)
		buf_addf(out, "  %s\n", c->tag);
	else
		buf_addf(out, "  %.10s (\"%s\")\n", c->id, c->subject);
}

void compare_format_section(struct buf *out, const struct report_test *t,
			    const struct compare_commit *base,
			    const struct compare_commit *head, int head_width)
{
	size_t i;

	buf_addchars(out, '=', SECTION_RULE_WIDTH);
	buf_addc(out, '\n');
	compare_format_axes(out, t);
	buf_adds(out, "\ncommit: \n");
	format_commit_line(out, base);
	format_commit_line(out, head);
	buf_addc(out, '\n');
	if (base->tag)
		buf_addf(out, "%16s ", base->tag);
	else
		buf_addf(out, "%.16s ", base->id);
	if (head->tag)
		buf_addf(out, "%*s \n", head_width, head->tag);
	else
		buf_addf(out, "%.*s \n", head_width, head->id);
	buf_adds(out, "---------------- ");
	buf_addchars(out, '-', (size_t)head_width);
	buf_adds(out, " \n");
	if (t->nr_failures) {
		buf_adds(out, "       fail:runs  %reproduction    fail:runs\n");
		buf_adds(out, "           |             |             |    \n");
		for (i = 0; i < t->nr_failures; i++)
			compare_format_failure(out, &t->failures[i]);
	}
	buf_adds(out, "         %stddev     %change         %stddev\n");
	buf_adds(out, "             \\          |                \\  \n");
	for (i = 0; i < t->nr_metrics; i++)
		compare_format_row(out, &t->metrics[i]);
	buf_addc(out, '\n');
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
	buf_addf(out, "| %-16s | %s", left, right);
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
	qsort(sorted, t->nr_params, sizeof(*sorted), param_cmp);
	for (i = 0; i < t->nr_params; i++) {
		buf_addf(&s, "%s=%s", sorted[i]->key, sorted[i]->value);
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
