/*
 * samples.c: the per-run samples of a report's metrics, kept for the web
 * site's charts (samples.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "dir.h"
#include "json.h"
#include "samples.h"
#include "banned.h"

static struct value *side_view(const struct report_side *s)
{
	struct value *o = value_new_object();

	value_object_add(o, "mean", value_new_number(s->mean));
	value_object_add(o, "stddev_percent", s->has_stddev ? value_new_number(s->stddev_percent)
							    : value_new_null());
	return o;
}

static struct value *runs(const double *v, size_t n)
{
	struct value *a = value_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		value_array_push(a, value_new_number(v[i]));
	return a;
}

struct value *samples_of_report(const struct report *r)
{
	struct value *root = value_new_object(), *tests;
	size_t i, j, k, found = 0;

	tests = value_object_add(root, "tests", value_new_array());
	for (i = 0; i < r->nr_tests; i++) {
		const struct report_test *t = &r->tests[i];
		struct value *o = value_array_push(tests, value_new_object()), *list;

		value_object_add_string(o, "testcase", t->testcase);
		list = value_object_add(o, "metrics", value_new_array());
		for (j = 0; j < t->nr_samples; j++) {
			const struct report_samples *s = &t->samples[j];
			const struct report_metric *m = NULL;
			struct value *e;

			for (k = 0; k < t->nr_metrics && !m; k++)
				if (!strcmp(t->metrics[k].name, s->metric))
					m = &t->metrics[k];
			if (!m)
				continue;	/* report.c names a metric for each */
			e = value_array_push(list, value_new_object());
			value_object_add_string(e, "name", m->name);
			value_object_add(e, "base", side_view(&m->base));
			value_object_add(e, "head", side_view(&m->head));
			value_object_add(e, "good", runs(s->good, s->nr_good));
			value_object_add(e, "bad", runs(s->bad, s->nr_bad));
			found++;
		}
	}
	if (!found) {
		value_free(root);
		return NULL;
	}
	return root;
}

int samples_keep(const char *state_dir, int64_t id, const struct report *r, struct buf *err)
{
	struct value *v = samples_of_report(r);
	struct buf path = BUF_INIT, text = BUF_INIT;
	int ret = 0;

	if (!v)
		return 0;
	buf_addf(&path, "%s/samples", state_dir);
	if (dir_make(path.data, 0700, err) < 0) {
		ret = -1;
		goto out;
	}
	buf_addf(&path, "/%lld.json", (long long)id);
	value_write_json(&text, v, 0);
	buf_addc(&text, '\n');
	ret = dir_write_file(path.data, text.data, text.len, err);
out:
	value_free(v);
	buf_release(&path);
	buf_release(&text);
	return ret;
}

int samples_read(const char *state_dir, int64_t id, struct value **out, struct buf *err)
{
	struct buf path = BUF_INIT;
	int ret;

	*out = NULL;
	buf_addf(&path, "%s/samples/%lld.json", state_dir, (long long)id);
	if (access(path.data, F_OK) < 0 && errno == ENOENT)
		ret = 0;
	else
		ret = json_parse_file(path.data, out, err) < 0 ? -1 : 1;
	buf_release(&path);
	return ret;
}
