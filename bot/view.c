#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "plot.h"
#include "view.h"
#include "xalloc.h"
#include "banned.h"

void view_expand_url(struct buf *out, const char *pattern, const char *message_id,
		     const char *date_stamp)
{
	const char *p;

	for (p = pattern; *p; p++) {
		if (*p != '%' || !p[1]) {
			buf_addc(out, *p);
			continue;
		}
		p++;
		if (*p == 'D')
			buf_add(out, date_stamp, strlen(date_stamp) < 8 ? strlen(date_stamp) : 8);
		else if (*p == 'M')
			buf_adds(out, message_id);
		else if (*p == '%')
			buf_addc(out, '%');
		else {
			buf_addc(out, '%');
			buf_addc(out, *p);
		}
	}
}

static struct value *string_of(struct buf *b)
{
	size_t len;
	char *s = buf_detach(b, &len);

	return value_new_string_owned(s, len);
}

/* A block of lines for a template to put on a line of its own: without its
 * final newline, which the template's line supplies. */
static struct value *block_of(struct buf *b)
{
	if (b->len && b->data[b->len - 1] == '\n')
		buf_truncate(b, b->len - 1);
	return string_of(b);
}

static struct value *commit_view(const struct commit_info *ci)
{
	struct value *v = value_new_object();

	value_object_add_string(v, "id", ci->id);
	value_object_add(v, "short", value_new_stringn(ci->id, 10));
	value_object_add_string(v, "subject", ci->subject);
	value_object_add_string(v, "author_name", ci->author_name);
	value_object_add_string(v, "author_email", ci->author_email);
	value_object_add(v, "tag", ci->tag ? value_new_string(ci->tag) : value_new_bool(0));
	return v;
}

static struct value *params_view(const struct report_test *t)
{
	struct value *list = value_new_array();
	size_t i;

	for (i = 0; i < t->nr_params; i++) {
		struct value *p = value_array_push(list, value_new_object());

		value_object_add_string(p, "key", t->params[i].key);
		value_object_add_string(p, "value", t->params[i].value);
	}
	return list;
}

static int plots_view(const struct report_test *t, struct value **out, struct buf *err)
{
	struct value *list = value_new_array();
	struct buf text = BUF_INIT;
	size_t i;

	/* one plot per metric that has samples, in the order of the samples
	 * object (object order is significant in the input, as the real
	 * reports show their plots in the order the producer listed them),
	 * not in the order of the metric rows */
	for (i = 0; i < t->nr_samples; i++) {
		const struct report_samples *s = &t->samples[i];

		if (plot_render(&text, s->metric, s->good, s->nr_good, s->bad, s->nr_bad, err) < 0) {
			err_prefix(err, "samples.%s: ", s->metric);
			value_free(list);
			buf_release(&text);
			return -1;
		}
		value_object_add(value_array_push(list, value_new_object()), "plot", block_of(&text));
	}
	*out = list;
	return 0;
}

static int test_view(const struct view_facts *f, size_t i, struct value **out, struct buf *err)
{
	const struct report *r = f->report;
	const struct report_test *t = &r->tests[i];
	const struct commit_info *base = &f->bases[i];
	/* base, head, then a test result's extra commits */
	size_t j, ncols = 2 + (f->extras ? r->nr_extra : 0);
	struct compare_commit *cols = xcalloc(ncols, sizeof(*cols));
	struct value *v = value_new_object(), *plots;
	struct buf s = BUF_INIT;
	/* an "error" test result has no rows: its percents are "" */
	int numbers = report_has_numbers(f->report);
	double change = numbers ? compare_metric_change(&t->metrics[t->headline_index]) : 0;

	value_object_add_bool(v, "first", i == 0);
	value_object_add_string(v, "testcase", t->testcase);
	value_object_add_string(v, "headline", t->headline);
	value_object_add_string(v, "tbox_group", t->tbox_group);
	value_object_add_string(v, "machine", t->machine);
	value_object_add_string(v, "kconfig", t->kconfig);
	value_object_add_string(v, "compiler", t->compiler);
	value_object_add_string(v, "rootfs", t->rootfs);
	value_object_add(v, "params", params_view(t));
	value_object_add(v, "description", t->description ? value_new_string(t->description) : value_new_bool(0));
	value_object_add(v, "url", t->url ? value_new_string(t->url) : value_new_bool(0));
	value_object_add_string(v, "kind", report_kind_name(f->kinds[i]));
	if (numbers)
		compare_format_percent(&s, change);
	value_object_add(v, "percent", string_of(&s));
	if (numbers)
		buf_addf(&s, "%.1f", change);
	value_object_add(v, "signed_percent", string_of(&s));
	value_object_add(v, "base", commit_view(base));
	cols[0] = (struct compare_commit){ base->id, base->subject, base->tag, NULL };
	cols[1] = (struct compare_commit){ f->head->id, f->head->subject, f->head->tag, NULL };
	for (j = 2; j < ncols; j++)
		cols[j] = (struct compare_commit){ f->extras[j - 2].id, f->extras[j - 2].subject,
						   f->extras[j - 2].tag, r->extra[j - 2].label };
	{
		struct buf head = BUF_INIT, rows = BUF_INIT;

		/* sized once: these are the largest strings of a report */
		buf_grow(&rows, (160 + 28 * (ncols - 2)) * (t->nr_metrics + t->nr_failures) + 512);
		compare_format_section_head_n(&head, t, cols, ncols);
		compare_format_section_rows_n(&rows, t, ncols - 2);
		buf_grow(&s, head.len + rows.len + 128);
		buf_add(&s, head.data, head.len);
		compare_format_id_line_n(&s, cols, ncols, COMPARE_HEAD_ID_WIDTH);
		buf_add(&s, rows.data, rows.len);
		value_object_add(v, "section", block_of(&s));
		buf_grow(&s, head.len + rows.len + 128);
		buf_add(&s, head.data, head.len);
		compare_format_id_line_n(&s, cols, ncols, COMPARE_HEAD_ID_WIDTH_LEGACY);
		buf_add(&s, rows.data, rows.len);
		value_object_add(v, "section_legacy", block_of(&s));
		buf_release(&head);
		buf_release(&rows);
	}
	free(cols);
	if (plots_view(t, &plots, err) < 0) {
		value_free(v);
		return -1;
	}
	value_object_add_bool(v, "has_plots", plots->nr > 0);
	value_object_add(v, "plots", plots);
	*out = v;
	return 0;
}

/* The display name of perfbot.from (its address when it has none): who
 * greets in the shipped templates. */
static struct value *sender_view(const struct config *cfg)
{
	struct address from;
	struct value *v;

	if (address_parse(cfg->from, &from, NULL) < 0)
		return value_new_string(cfg->from);
	v = value_new_string(*from.name ? from.name : from.email);
	address_release(&from);
	return v;
}

void view_add_lab(struct value *v, const struct config *cfg)
{
	const struct value *sender;

	value_object_add_string(v, "from", cfg->from);
	/* perfbot.from is read once for both names */
	sender = value_object_add(v, "sender", sender_view(cfg));
	value_object_add(v, "signature", cfg->signature ? value_new_string(cfg->signature)
							: value_new_stringn(sender->str, sender->len));
	value_object_add(v, "disclaimer", cfg->disclaimer ? value_new_string(cfg->disclaimer)
							  : value_new_bool(0));
	value_object_add_string(v, "reported_by", cfg->reported_by);
	value_object_add_string(v, "closes_url", cfg->closes_url);
}

static struct value *still_view(const struct report *r)
{
	struct value *list = value_new_array();
	size_t i, w = 0;

	for (i = 0; i < r->nr_still; i++)
		if (strlen(r->still[i].on) > w)
			w = strlen(r->still[i].on);
	for (i = 0; i < r->nr_still; i++) {
		struct value *s = value_array_push(list, value_new_object());
		struct buf b = BUF_INIT;

		value_object_add_string(s, "label", r->still[i].label);
		value_object_add_string(s, "on", r->still[i].on);
		value_object_add_string(s, "commit", r->still[i].commit);
		buf_addf(&b, "%-*s", (int)w, r->still[i].on);
		value_object_add(s, "on_padded", string_of(&b));
	}
	return list;
}

/* A test result's extra commits (perfbot-templates(7)): each as commit_view()
 * with its label (or false) and whether it is the last, the commit tested. */
static void result_view(const struct view_facts *f, struct value *v)
{
	const struct report *r = f->report;
	struct value *list = value_new_array();
	size_t i;

	value_object_add(v, "request", r->request ? value_new_integer(r->request)
						  : value_new_bool(0));
	value_object_add(v, "error", r->error ? value_new_string(r->error) : value_new_bool(0));
	for (i = 0; f->extras && i < r->nr_extra; i++) {
		struct value *c = value_array_push(list, commit_view(&f->extras[i]));

		value_object_add(c, "label", r->extra[i].label ? value_new_string(r->extra[i].label)
							       : value_new_bool(0));
		value_object_add_bool(c, "last", i + 1 == r->nr_extra);
	}
	value_object_add(v, "extra", list);
	if (f->extras && r->nr_extra)
		value_object_add(v, "tested", commit_view(&f->extras[r->nr_extra - 1]));
	else
		value_object_add_bool(v, "tested", 0);
}

static void addition_view(const struct view_facts *f, struct value *v)
{
	const struct report *r = f->report;
	struct compare_box_entry *e;
	struct buf box = BUF_INIT;
	size_t i;

	if (r->nr_tests < 2) {
		value_object_add_bool(v, "addition", 0);
		return;
	}
	e = xcalloc(r->nr_tests - 1, sizeof(*e));
	for (i = 1; i < r->nr_tests; i++) {
		e[i - 1].test = &r->tests[i];
		e[i - 1].change = report_has_numbers(r) ?
			compare_metric_change(&r->tests[i].metrics[r->tests[i].headline_index]) : 0;
		e[i - 1].kind = report_kind_name(f->kinds[i]);
	}
	compare_format_box(&box, e, r->nr_tests - 1);
	free(e);
	value_object_add(value_object_add(v, "addition", value_new_object()), "box", block_of(&box));
}

int view_build(const struct view_facts *f, struct value **out, struct buf *err)
{
	const struct report *r = f->report;
	const struct config *cfg = f->cfg;
	struct value *v = value_new_object(), *further;
	struct buf s = BUF_INIT;
	size_t i;
	int any_plot = 0;

	*out = NULL;
	value_object_add_string(v, "message_id", f->message_id);
	value_object_add_string(v, "subject", f->subject);
	value_object_add(v, "parent", f->parent_message_id ? value_new_string(f->parent_message_id)
							   : value_new_bool(0));
	value_object_add_string(v, "from", cfg->from);
	value_object_add_string(v, "reported_by", cfg->reported_by);
	value_object_add_bool(v, "test_enabled", cfg->test_enabled);
	value_object_add_string(v, "closes_url", cfg->closes_url);
	buf_adds(&s, cfg->closes_url);
	buf_adds(&s, f->message_id);
	value_object_add(v, "closes", string_of(&s));
	if (*cfg->artifacts_url) {
		view_expand_url(&s, cfg->artifacts_url, f->message_id, f->date_stamp);
		value_object_add(v, "artifacts", string_of(&s));
	} else {
		value_object_add_bool(v, "artifacts", 0);
	}
	value_object_add(v, "sender", sender_view(cfg));
	value_object_add(v, "signature", cfg->signature ? value_new_string(cfg->signature)
							: sender_view(cfg));
	value_object_add(v, "disclaimer", cfg->disclaimer ? value_new_string(cfg->disclaimer)
							  : value_new_bool(0));
	value_object_add_string(v, "tree", r->tree);
	value_object_add_string(v, "branch", r->branch);
	value_object_add_string(v, "repo_url", f->repo_url);
	value_object_add(v, "commit", commit_view(f->head));
	value_object_add(v, "still", still_view(r));
	result_view(f, v);
	value_object_add_bool(v, "has_still", r->nr_still > 0);

	further = value_new_array();
	for (i = 0; i < r->nr_tests; i++) {
		struct value *t;

		if (test_view(f, i, &t, err) < 0) {
			value_free(further);
			value_free(v);
			return -1;
		}
		if (value_truthy(value_object_get(t, "plots")))
			any_plot = 1;
		if (i > 0) {
			value_array_push(further, t);
			continue;
		}
		value_object_add_string(v, "headline", r->tests[0].headline);
		value_object_add(v, "percent", value_new_string(value_object_get(t, "percent")->str));
		value_object_add(v, "signed_percent",
				 value_new_string(value_object_get(t, "signed_percent")->str));
		value_object_add_string(v, "kind", report_kind_name(f->kinds[0]));
		value_object_add_bool(v, "regression", f->kinds[0] == REPORT_KIND_REGRESSION);
		value_object_add_bool(v, "improvement", f->kinds[0] == REPORT_KIND_IMPROVEMENT);
		value_object_add(v, "test", t);
	}
	/* the first test is "test", the others "further" (in order) */
	value_object_add(v, "further", further);
	value_object_add_bool(v, "plots", any_plot);
	addition_view(f, v);
	*out = v;
	return 0;
}
