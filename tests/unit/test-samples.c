/*
 * samples.h: the file send keeps of each metric's runs for the site's
 * charts.  What is written reads back as the same doubles and names (tabs,
 * newlines and backslashes in names included); a damaged file is refused
 * with the line; an older perfbot's JSON file reads as the same samples.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "dir.h"
#include "json.h"
#include "report.h"
#include "samples.h"

/* Two tests; the second's names have backslashes, spaces, quotes and
 * U+202E (report.c lets no control character through); its base is one
 * run (no stddev); numbers that print long. */
static const char report_json[] =
	"{\"perfbot\": 1, \"tree\": \"linux-next/master\", \"commit\": \"1111111111111111111111111111111111111111\","
	" \"base\": \"2222222222222222222222222222222222222222\", \"kind\": \"regression\","
	" \"tests\": ["
	"  {\"testcase\": \"hackbench\", \"headline\": \"hackbench.throughput\","
	"   \"tbox_group\": \"lkp-icl\", \"machine\": \"lkp-icl-2sp2\", \"kconfig\": \"x86_64-rhel-9.4\","
	"   \"compiler\": \"gcc-12\", \"rootfs\": \"debian-12-x86_64.cgz\", \"params\": {},"
	"   \"metrics\": [{\"name\": \"hackbench.throughput\", \"base\": {\"values\": [412027.5, 412000.25, 0.1]},"
	"                 \"head\": {\"values\": [382217, 382000, 1e-300]}, \"change\": -7.2}],"
	"   \"samples\": {\"hackbench.throughput\": {\"good\": [412027.5, 412000.25, 0.1],"
	"                                            \"bad\": [382217, 382000, 1e-300]}}},"
	"  {\"testcase\": \"will it\\\\scale\", \"headline\": \"m \\\"<n>\\u202e\","
	"   \"tbox_group\": \"lkp-icl\", \"machine\": \"lkp-icl-2sp2\", \"kconfig\": \"x86_64-rhel-9.4\","
	"   \"compiler\": \"gcc-12\", \"rootfs\": \"debian-12-x86_64.cgz\", \"params\": {},"
	"   \"metrics\": [{\"name\": \"m \\\"<n>\\u202e\", \"base\": {\"values\": [-2.5]},"
	"                 \"head\": {\"values\": [-3.75, -3.5]}, \"change\": 45}],"
	"   \"samples\": {\"m \\\"<n>\\u202e\": {\"good\": [-2.5], \"bad\": [-3.75, -3.5]}}}]}";

static struct report *load(void)
{
	struct value *v = NULL;
	struct report *r = NULL;
	struct buf err = BUF_INIT;

	if (json_parse(report_json, strlen(report_json), "report", &v, &err) < 0 ||
	    report_from_value(v, "report", &r, &err) < 0)
		fail_msg("%s", err.data);
	value_free(v);
	buf_release(&err);
	return r;
}

static void same_as_report(const struct samples *s, const struct report *r)
{
	size_t i, k, x, at = 0;

	for (i = 0; i < r->nr_tests; i++) {
		const struct report_test *t = &r->tests[i];
		const struct report_metric *m = &t->metrics[0];
		const struct report_samples *rs = &t->samples[0];
		const struct samples_metric *sm;

		assert_true(at < s->nr);
		sm = &s->v[at++];
		assert_string_equal(sm->testcase, t->testcase);
		assert_string_equal(sm->name, m->name);
		for (k = 0; k < 2; k++) {
			const struct report_side *side = k ? &m->head : &m->base;

			assert_true(sm->side[k].mean == side->mean);
			assert_int_equal(sm->side[k].has_stddev, side->has_stddev);
			if (side->has_stddev)
				assert_true(sm->side[k].stddev_percent == side->stddev_percent);
			assert_int_equal(sm->nr_runs[k], k ? rs->nr_bad : rs->nr_good);
			for (x = 0; x < sm->nr_runs[k]; x++)
				assert_true(sm->runs[k][x] == (k ? rs->bad : rs->good)[x]);
		}
	}
	assert_int_equal(at, s->nr);
}

static void written_reads_back_the_same(void **state)
{
	struct report *r = load();
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct samples s;

	(void)state;
	assert_int_equal(samples_format(&text, r), 1);
	/* one line per fact; the name's tab and newline escaped */
	assert_non_null(strstr(text.data, "perfbot-samples 1\nmetric\thackbench\thackbench.throughput\n"));
	assert_non_null(strstr(text.data, "metric\twill it\\\\scale\tm \"<n>\xe2\x80\xae\n"));
	assert_non_null(strstr(text.data, "\ngood\t412027.5\t412000.25\t0.1\n"));
	assert_non_null(strstr(text.data, "\nbad\t382217\t382000\t1e-300\n"));
	assert_non_null(strstr(text.data, "\nbase\t-2.5\t\n"));	/* one run: no stddev */
	if (samples_parse(text.data, text.len, "t", &s, &err) < 0)
		fail_msg("%s", err.data);
	same_as_report(&s, r);
	samples_release(&s);
	report_free(r);
	buf_release(&text);
	buf_release(&err);
}

/* What report.c never lets through is still written so that it reads
 * back: a tab, a newline, a carriage return, a backslash. */
static void escapes_read_back(void **state)
{
	static const char text[] = "perfbot-samples 1\nmetric\ta\\tb\\\\c\td\\ne\\rf\n"
				   "base\t1\t2\nhead\t3\t\ngood\nbad\t4\n";
	struct buf err = BUF_INIT;
	struct samples s;

	(void)state;
	if (samples_parse(text, strlen(text), "t", &s, &err) < 0)
		fail_msg("%s", err.data);
	assert_int_equal(s.nr, 1);
	assert_string_equal(s.v[0].testcase, "a\tb\\c");
	assert_string_equal(s.v[0].name, "d\ne\rf");
	assert_int_equal(s.v[0].side[0].has_stddev, 1);
	assert_int_equal(s.v[0].side[1].has_stddev, 0);
	assert_int_equal(s.v[0].nr_runs[0], 0);
	assert_int_equal(s.v[0].nr_runs[1], 1);
	samples_release(&s);
	buf_release(&err);
}

static void no_samples_no_text(void **state)
{
	struct report *r = load();
	struct buf text = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < r->nr_tests; i++)
		r->tests[i].nr_samples = 0;	/* as if none were given */
	buf_adds(&text, "kept");
	assert_int_equal(samples_format(&text, r), 0);
	assert_string_equal(text.data, "kept");
	for (i = 0; i < r->nr_tests; i++)
		r->tests[i].nr_samples = 1;
	report_free(r);
	buf_release(&text);
}

static void damaged_files_are_refused_with_the_line(void **state)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "", "t: ends empty" },
		{ "perfbot-samples 2\n", "t:1: not a line" },
		{ "perfbot-samples 1\nmetric\ta\tb\nbase\t1\t\nhead\t1\t\ngood\t1\n", "t: ends inside a metric" },
		{ "perfbot-samples 1\nmetric\ta\tb\nhead\t1\t\n", "t:3: not a line" },
		{ "perfbot-samples 1\nmetric\ta\t\nbase\t1\t\n", "t:2: not a line" },	/* no name */
		{ "perfbot-samples 1\nmetric\ta\\x\tb\n", "t:2: not a line" },	/* not our escape */
		{ "perfbot-samples 1\nmetric\ta\tb\nbase\t1x\t\n", "t:3: not a line" },
		{ "perfbot-samples 1\nmetric\ta\tb\nbase\tinf\t\n", "t:3: not a line" },
		{ "perfbot-samples 1\nmetric\ta\tb\nbase\t1\t\nhead\t1\t2\ngood\t1\t\t2\n", "t:5: not a line" },
		{ "perfbot-samples 1\nbase\t1\t\n", "t:2: not a line" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf err = BUF_INIT;
		struct samples s;

		if (samples_parse(cases[i].text, strlen(cases[i].text), "t", &s, &err) == 0)
			fail_msg("case %zu parsed", i);
		if (strncmp(err.data, cases[i].message, strlen(cases[i].message)))
			fail_msg("case %zu: %s", i, err.data);
		samples_release(&s);
		buf_release(&err);
	}
}

/* An older perfbot's STATE/samples/N.json reads as the same samples; a
 * .tsv, when there, is read first; neither: 0. */
static void older_json_files_are_read(void **state)
{
	char dir[] = "/tmp/test-samples-XXXXXX";
	struct report *r = load();
	struct buf path = BUF_INIT, err = BUF_INIT, json = BUF_INIT;
	struct samples s;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(samples_read(dir, 7, &s, &err), 0);
	assert_int_equal(s.nr, 0);
	/* the JSON as the older samples_keep() wrote it */
	buf_adds(&json, "{\"tests\":[");
	for (i = 0; i < r->nr_tests; i++) {
		const struct report_test *t = &r->tests[i];
		const struct report_metric *m = &t->metrics[0];
		const struct report_samples *rs = &t->samples[0];
		struct value *o = value_new_object(), *side, *a;
		size_t k, x;

		value_object_add_string(o, "testcase", t->testcase);
		a = value_object_add(o, "metrics", value_new_array());
		a = value_array_push(a, value_new_object());
		value_object_add_string(a, "name", m->name);
		for (k = 0; k < 2; k++) {
			const struct report_side *sd = k ? &m->head : &m->base;
			struct value *runs;

			side = value_object_add(a, k ? "head" : "base", value_new_object());
			value_object_add(side, "mean", value_new_number(sd->mean));
			value_object_add(side, "stddev_percent", sd->has_stddev ?
					 value_new_number(sd->stddev_percent) : value_new_null());
			runs = value_object_add(a, k ? "bad" : "good", value_new_array());
			for (x = 0; x < (k ? rs->nr_bad : rs->nr_good); x++)
				value_array_push(runs, value_new_number((k ? rs->bad : rs->good)[x]));
		}
		if (i)
			buf_addc(&json, ',');
		value_write_json(&json, o, 0);
		value_free(o);
	}
	buf_adds(&json, "]}\n");
	buf_addf(&path, "%s/samples", dir);
	assert_int_equal(mkdir(path.data, 0700), 0);
	buf_addf(&path, "/7.json");
	assert_int_equal(dir_write_file(path.data, json.data, json.len, &err), 0);
	if (samples_read(dir, 7, &s, &err) != 1)
		fail_msg("%s", err.data);
	same_as_report(&s, r);
	samples_release(&s);
	/* samples_keep()'s file is read first */
	assert_int_equal(samples_keep(dir, 7, r, &err), 0);
	assert_int_equal(dir_write_file(path.data, "{", 1, &err), 0);	/* a broken JSON file */
	if (samples_read(dir, 7, &s, &err) != 1)
		fail_msg("%s", err.data);
	same_as_report(&s, r);
	samples_release(&s);
	/* a damaged one is an error, not "no samples" */
	buf_reset(&path);
	buf_addf(&path, "%s/samples/7.tsv", dir);
	assert_int_equal(dir_write_file(path.data, "perfbot-samples 1\nbad\n", 22, &err), 0);
	buf_reset(&err);
	assert_int_equal(samples_read(dir, 7, &s, &err), -1);
	assert_non_null(strstr(err.data, "7.tsv:2: not a line"));
	samples_release(&s);
	unlink(path.data);
	buf_reset(&path);
	buf_addf(&path, "%s/samples/7.json", dir);
	unlink(path.data);
	buf_reset(&path);
	buf_addf(&path, "%s/samples", dir);
	rmdir(path.data);
	rmdir(dir);
	report_free(r);
	buf_release(&path);
	buf_release(&err);
	buf_release(&json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(written_reads_back_the_same),
		cmocka_unit_test(escapes_read_back),
		cmocka_unit_test(no_samples_no_text),
		cmocka_unit_test(damaged_files_are_refused_with_the_line),
		cmocka_unit_test(older_json_files_are_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
