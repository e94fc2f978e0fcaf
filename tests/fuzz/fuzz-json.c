/*
 * libFuzzer target for the JSON reader and the report validator:
 * json_parse() then report_from_value() then report_free().  Besides
 * crashes, leaks and undefined behaviour, it checks the contracts of
 * report.h and json.h and aborts when one is broken:
 *   - a failure leaves *out NULL and one line "fuzz..." in err;
 *   - a success gives a report whose invariants hold (strings without
 *     control characters, headline_index names the headline, finite
 *     means, 0 <= fails <= runs, samples naming rows, limits kept);
 *     a test result's extra sides, failure counts and sample runs aligned
 *     with its extra commits, and an "error" one without rows.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "value.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

static void check_string(const char *s, int tab_ok, int may_be_empty)
{
	size_t n;

	check(s != NULL);
	n = strlen(s);
	check(n <= REPORT_MAX_STRING);
	check(may_be_empty || n > 0);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		check(c >= 0x20 || (tab_ok && c == '\t'));
		check(c != 0x7f);
	}
}

static void check_side(const struct report_side *s)
{
	size_t i;

	check(isfinite(s->mean));
	check(!s->has_stddev || (isfinite(s->stddev_percent) && s->stddev_percent >= 0));
	if (s->values) {
		check(s->nr_values >= 1 && s->nr_values <= REPORT_MAX_VALUES);
		for (i = 0; i < s->nr_values; i++)
			check(isfinite(s->values[i]));
		check(s->has_stddev == (s->nr_values > 1 && s->mean != 0));
	}
}

static void check_fails(long fails, long runs)
{
	check(fails >= 0 && fails <= runs && runs >= 1);
}

static void check_test(const struct report *r, const struct report_test *t)
{
	size_t i, j;

	check_string(t->testcase, 0, 0);
	check_string(t->headline, 0, 0);
	check_string(t->tbox_group, 0, 0);
	check_string(t->machine, 0, 0);
	check_string(t->kconfig, 0, 0);
	check_string(t->compiler, 0, 0);
	check_string(t->rootfs, 0, 0);
	if (t->base)
		check_string(t->base, 0, 0);
	if (t->description)
		check_string(t->description, 0, 0);
	if (t->url)
		check_string(t->url, 0, 0);
	check(t->nr_params <= REPORT_MAX_PARAMS);
	for (i = 0; i < t->nr_params; i++) {
		check_string(t->params[i].key, 0, 0);
		check_string(t->params[i].value, 1, 1);
	}
	if (r->error) {
		check(!report_has_numbers(r));
		check(!t->nr_metrics && !t->metrics);
		check(!t->nr_failures && !t->failures);
		check(!t->nr_samples && !t->samples);
		return;
	}
	check(report_has_numbers(r));
	check(t->nr_metrics >= 1 && t->nr_metrics <= REPORT_MAX_METRICS);
	check(t->headline_index < t->nr_metrics);
	check(!strcmp(t->metrics[t->headline_index].name, t->headline));
	for (i = 0; i < t->nr_metrics; i++) {
		check_string(t->metrics[i].name, 0, 0);
		check_side(&t->metrics[i].base);
		check_side(&t->metrics[i].head);
		check(!t->metrics[i].has_change || isfinite(t->metrics[i].change));
		check(!r->nr_extra == !t->metrics[i].extra);
		for (j = 0; j < r->nr_extra; j++) {
			check_side(&t->metrics[i].extra[j].side);
			check(!t->metrics[i].extra[j].has_change ||
			      isfinite(t->metrics[i].extra[j].change));
		}
	}
	for (i = 0; i < t->nr_failures; i++) {
		const struct report_failure *f = &t->failures[i];

		check_string(f->name, 0, 0);
		check_fails(f->base_fails, f->base_runs);
		check_fails(f->head_fails, f->head_runs);
		check(!r->nr_extra == !f->extra);
		for (j = 0; j < r->nr_extra; j++)
			check_fails(f->extra[j].fails, f->extra[j].runs);
	}
	for (i = 0; i < t->nr_samples; i++) {
		const struct report_samples *s = &t->samples[i];
		size_t total;

		for (j = 0; j < t->nr_metrics; j++)
			if (!strcmp(t->metrics[j].name, s->metric))
				break;
		check(j < t->nr_metrics);
		total = s->nr_good + s->nr_bad;
		for (j = 0; j < s->nr_good; j++)
			check(isfinite(s->good[j]));
		for (j = 0; j < s->nr_bad; j++)
			check(isfinite(s->bad[j]));
		check(!r->nr_extra == !s->extra);
		for (j = 0; j < r->nr_extra; j++) {
			size_t k;

			check(!s->extra[j].values == !s->extra[j].nr || (s->extra[j].values && !s->extra[j].nr));
			for (k = 0; k < s->extra[j].nr; k++)
				check(isfinite(s->extra[j].values[k]));
			total += s->extra[j].nr;
		}
		check(total >= 1 && total <= REPORT_MAX_VALUES);
	}
}

static void check_report(const struct report *r)
{
	struct buf name = BUF_INIT;
	size_t i;

	check_string(r->tree, 0, 0);
	check_string(r->branch, 0, 0);
	check_string(r->commit, 0, 0);
	check_string(r->base, 0, 0);
	if (r->repo_url)
		check_string(r->repo_url, 0, 0);
	check(r->nr_still <= REPORT_MAX_STILL);
	for (i = 0; i < r->nr_still; i++) {
		check_string(r->still[i].label, 0, 0);
		check_string(r->still[i].on, 0, 0);
		check_string(r->still[i].commit, 0, 0);
	}
	check(r->request >= 0);
	check(!r->request == !r->nr_extra && !r->nr_extra == !r->extra);
	check(r->nr_extra <= REPORT_MAX_EXTRA);
	for (i = 0; i < r->nr_extra; i++) {
		check_string(r->extra[i].commit, 0, 0);
		if (r->extra[i].label)
			check_string(r->extra[i].label, 0, 0);
	}
	if (r->error) {
		const char *p;

		check(r->request > 0);
		check(*r->error && strlen(r->error) <= REPORT_MAX_ERROR);
		for (p = r->error; *p; p++)
			check((unsigned char)*p >= 0x20 || *p == '\n' || *p == '\t');
		check(!strchr(r->error, 0x7f));
	}
	check(r->nr_tests >= 1 && r->nr_tests <= REPORT_MAX_TESTS);
	for (i = 0; i < r->nr_tests; i++) {
		check_test(r, &r->tests[i]);
		check(report_test_base(r, &r->tests[i]) != NULL);
	}
	report_tree_name(r, &name);
	check(name.len > 0 && !strchr(name.data, '/'));
	buf_release(&name);
	report_kind_name(r->kind);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct value *v;
	struct report *r = NULL;
	struct buf err = BUF_INIT;

	if (json_parse((const char *)data, size, "fuzz", &v, &err) == 0) {
		struct buf once = BUF_INIT, twice = BUF_INIT;
		struct value *again = NULL;

		/* what the writer makes reads back as the same tree: written
		 * again, the same bytes */
		value_write_json(&once, v, 0);
		check(json_parse(once.data, once.len, "again", &again, NULL) == 0);
		value_write_json(&twice, again, 0);
		check(once.len == twice.len && !memcmp(once.data, twice.data, once.len));
		value_free(again);
		buf_release(&once);
		buf_release(&twice);
		if (report_from_value(v, "fuzz", &r, &err) == 0) {
			check(r != NULL);
			check_report(r);
			report_free(r);
		} else {
			check(r == NULL);
			check(!strncmp(err.data, "fuzz: ", 6));
			check(!strchr(err.data, '\n'));
		}
		value_free(v);
	} else {
		check(v == NULL);
	}
	check(err.len == strlen(err.data));
	buf_release(&err);
	return 0;
}
