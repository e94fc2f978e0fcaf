/*
 * The comparison JSON reader: one full valid document checked field by
 * field, then tables of broken documents, each with the part of the message
 * that must appear (mostly the JSON path).  Documents are written with ' for
 * " to keep them readable; doc() turns one into the other.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "json.h"
#include "report.h"
#include "value.h"

/* A full document: every key of the spec, both side forms, both failure
 * forms, samples, a tagged per-test base, x- keys at several levels. */
static const char full[] =
	"{\n"
	" 'perfbot': 1,\n"
	" 'tree': 'linus/master',\n"
	" 'repo_url': 'https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git',\n"
	" 'commit': '9890ecab6ad9c0d3d342469f3b619fd704b5c59a',\n"
	" 'base': 'cb431accb36e51b6',\n"
	" 'kind': 'regression',\n"
	" 'x-source': {'mail': '<x@y>', 'anything': [1, null, {'goes': true}]},\n"
	" 'still': [\n"
	"  {'label': 'still regression', 'on': 'linus/master', 'commit': '0031c06807cfa8aa51a759ff8aa09e1aa48149af'},\n"
	"  {'label': 'still regression', 'on': 'linux-next/master', 'commit': 'next-20250101', 'x-note': 1}\n"
	" ],\n"
	" 'tests': [\n"
	"  {\n"
	"   'testcase': 'vm-scalability',\n"
	"   'headline': 'vm-scalability.throughput',\n"
	"   'tbox_group': 'lkp-cpl-4sp2',\n"
	"   'machine': '224 threads 4 sockets Intel(R) Xeon(R) Platinum 8380H CPU @ 2.90GHz (Cooper Lake) with 192G memory',\n"
	"   'kconfig': 'x86_64-rhel-9.4',\n"
	"   'compiler': 'gcc-14',\n"
	"   'rootfs': 'debian-13-x86_64-20250902.cgz',\n"
	"   'params': {'runtime': '300s', 'size': '8T', 'nr_task': 16, 'ratio': 0.5, 'thp': true,"
	" 'opts': 'a\\tb', 'empty': '', 'x-param': 'kept', 'cpufreq_governor': 'performance'},\n"
	"   'x-test': 'ignored',\n"
	"   'failures': [\n"
	"    {'name': 'kmsg.usb#-#:cannot_read_configurations,error', 'base': {'fails': 0, 'runs': 4}, 'head': {'fails': 1, 'runs': 4}},\n"
	"    {'name': 'dmesg.WARNING', 'base': {'values': [0, 0, 0]}, 'head': {'values': [0, 1, 1, 0, 1]}, 'x-f': 0}\n"
	"   ],\n"
	"   'metrics': [\n"
	"    {'name': 'vm-scalability.free_time', 'base': {'mean': 0.08, 'stddev_percent': 3.1}, 'head': {'mean': 0.09}, 'change': 8.7},\n"
	"    {'name': 'vm-scalability.throughput', 'base': {'values': [1, 2, 3, 4]}, 'head': {'values': [7, 7, 7], 'x-side': 1}, 'x-row': 'ignored'},\n"
	"    {'name': 'one.value', 'base': {'values': [5]}, 'head': {'values': [0, 0]}, 'change': -100}\n"
	"   ],\n"
	"   'samples': {\n"
	"    'vm-scalability.throughput': {'good': [1, 2, 3, 4], 'bad': [7, 7, 7]},\n"
	"    'x-extra': 1,\n"
	"    'one.value': {'good': [], 'bad': [0.5], 'x-s': 2}\n"
	"   }\n"
	"  },\n"
	"  {\n"
	"   'testcase': 'will-it-scale', 'headline': 'will-it-scale.per_thread_ops', 'tbox_group': 'lkp-spr', 'machine': 'big box',\n"
	"   'kconfig': 'x86_64-rhel-9.4', 'compiler': 'gcc-12', 'rootfs': 'debian.cgz',\n"
	"   'params': {}, 'base': 'v6.18-rc3', 'kind': 'improvement',\n"
	"   'test_description': 'will-it-scale: does many things in parallel',\n"
	"   'test_url': 'https://github.com/antonblanchard/will-it-scale',\n"
	"   'metrics': [\n"
	"    {'name': 'other', 'base': {'mean': 1}, 'head': {'mean': 2}},\n"
	"    {'name': 'will-it-scale.per_thread_ops', 'base': {'mean': 0}, 'head': {'mean': -3.5, 'stddev_percent': 0}}\n"
	"   ]\n"
	"  }\n"
	" ]\n"
	"}\n";

/* The smallest valid document. */
static const char min[] =
	"{'perfbot': 1, 'tree': 'a/b', 'commit': 'abcd', 'base': 'abcd', 'tests': [{"
	"'testcase': 't', 'headline': 'm', 'tbox_group': 'g', 'machine': 'x', 'kconfig': 'k', "
	"'compiler': 'c', 'rootfs': 'r', 'params': {}, "
	"'metrics': [{'name': 'm', 'base': {'mean': 1}, 'head': {'mean': 2}}]}]}";

/* Appends s with ' turned into ". */
static void doc(struct buf *out, const char *s)
{
	for (; *s; s++)
		buf_addc(out, *s == '\'' ? '"' : *s);
}

/* Builds base with the one occurrence of from replaced by to (all with '
 * for "); fails the test when from does not occur exactly once. */
static void edit(struct buf *out, const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);

	if (!at || strstr(at + 1, from))
		fail_msg("'%s' must occur exactly once in the document", from);
	buf_add(out, base, (size_t)(at - base));
	buf_adds(out, to);
	buf_adds(out, at + strlen(from));
	{
		char *tmp = strdup(out->data);

		buf_reset(out);
		doc(out, tmp);
		free(tmp);
	}
}

static int load(const char *text, size_t len, struct report **r, struct buf *err)
{
	struct value *v;
	int res;

	*r = NULL;
	if (json_parse(text, len, "in.json", &v, err) < 0)
		return -1;
	res = report_from_value(v, "in.json", r, err);
	value_free(v);
	return res;
}

static void expect_error(const char *what, const char *text, size_t len, const char *want)
{
	struct report *r = (struct report *)1;
	struct buf err = BUF_INIT;

	if (load(text, len, &r, &err) == 0)
		fail_msg("%s: accepted, expected an error with '%s'", what, want);
	assert_null(r);
	if (strncmp(err.data, "in.json", 7))
		fail_msg("%s: '%s' does not start with the file name", what, err.data);
	if (strchr(err.data, '\n'))
		fail_msg("%s: '%s' is more than one line", what, err.data);
	if (!strstr(err.data, want))
		fail_msg("%s: '%s' lacks '%s'", what, err.data, want);
	buf_release(&err);
}

static void full_document_loads(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct report *r;
	const struct report_test *t;
	const struct report_metric *m;
	static const char *const params[][2] = {
		{ "runtime", "300s" }, { "size", "8T" }, { "nr_task", "16" }, { "ratio", "0.5" },
		{ "thp", "true" }, { "opts", "a\tb" }, { "empty", "" }, { "x-param", "kept" },
		{ "cpufreq_governor", "performance" },
	};
	size_t i;

	(void)state;
	doc(&text, full);
	if (load(text.data, text.len, &r, &err) < 0)
		fail_msg("%s", err.data);
	assert_string_equal(r->name, "in.json");
	assert_string_equal(r->tree, "linus/master");
	assert_string_equal(r->repo_url,
			    "https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git");
	assert_string_equal(r->branch, "master");
	assert_string_equal(r->commit, "9890ecab6ad9c0d3d342469f3b619fd704b5c59a");
	assert_string_equal(r->base, "cb431accb36e51b6");
	assert_int_equal(r->kind, REPORT_KIND_REGRESSION);
	assert_int_equal(r->nr_still, 2);
	assert_string_equal(r->still[0].label, "still regression");
	assert_string_equal(r->still[0].on, "linus/master");
	assert_string_equal(r->still[0].commit, "0031c06807cfa8aa51a759ff8aa09e1aa48149af");
	assert_string_equal(r->still[1].on, "linux-next/master");
	assert_string_equal(r->still[1].commit, "next-20250101");
	assert_int_equal(r->nr_tests, 2);

	t = &r->tests[0];
	assert_string_equal(t->testcase, "vm-scalability");
	assert_string_equal(t->headline, "vm-scalability.throughput");
	assert_int_equal(t->headline_index, 1);
	assert_string_equal(t->tbox_group, "lkp-cpl-4sp2");
	assert_string_equal(t->machine, "224 threads 4 sockets Intel(R) Xeon(R) Platinum 8380H "
			    "CPU @ 2.90GHz (Cooper Lake) with 192G memory");
	assert_string_equal(t->kconfig, "x86_64-rhel-9.4");
	assert_string_equal(t->compiler, "gcc-14");
	assert_string_equal(t->rootfs, "debian-13-x86_64-20250902.cgz");
	assert_null(t->base);
	assert_string_equal(report_test_base(r, t), "cb431accb36e51b6");
	assert_int_equal(t->kind, REPORT_KIND_UNSET);
	assert_null(t->description);
	assert_null(t->url);
	assert_int_equal(t->nr_params, sizeof(params) / sizeof(params[0]));
	for (i = 0; i < t->nr_params; i++) {
		assert_string_equal(t->params[i].key, params[i][0]);
		assert_string_equal(t->params[i].value, params[i][1]);
	}

	assert_int_equal(t->nr_failures, 2);
	assert_string_equal(t->failures[0].name, "kmsg.usb#-#:cannot_read_configurations,error");
	assert_int_equal(t->failures[0].base_fails, 0);
	assert_int_equal(t->failures[0].base_runs, 4);
	assert_int_equal(t->failures[0].head_fails, 1);
	assert_int_equal(t->failures[0].head_runs, 4);
	assert_string_equal(t->failures[1].name, "dmesg.WARNING");
	assert_int_equal(t->failures[1].base_fails, 0);
	assert_int_equal(t->failures[1].base_runs, 3);
	assert_int_equal(t->failures[1].head_fails, 3);
	assert_int_equal(t->failures[1].head_runs, 5);

	assert_int_equal(t->nr_metrics, 3);
	m = &t->metrics[0];
	assert_string_equal(m->name, "vm-scalability.free_time");
	assert_true(m->base.mean == 0.08);
	assert_true(m->base.has_stddev);
	assert_true(m->base.stddev_percent == 3.1);
	assert_null(m->base.values);
	assert_true(m->head.mean == 0.09);
	assert_false(m->head.has_stddev);
	assert_true(m->has_change);
	assert_true(m->change == 8.7);
	m = &t->metrics[1];
	assert_string_equal(m->name, "vm-scalability.throughput");
	assert_int_equal(m->base.nr_values, 4);
	assert_true(m->base.values[3] == 4);
	assert_true(m->base.mean == 2.5);
	assert_true(m->base.has_stddev);
	/* population stddev sqrt(1.25) = 1.1180...; / 2.5 * 100 */
	assert_true(fabs(m->base.stddev_percent - 44.721359549995796) < 1e-12);
	assert_true(m->head.mean == 7);
	assert_true(m->head.has_stddev);
	assert_true(m->head.stddev_percent == 0);
	assert_false(m->has_change);
	m = &t->metrics[2];
	assert_true(m->base.mean == 5);
	assert_false(m->base.has_stddev);	/* one value */
	assert_true(m->head.mean == 0);
	assert_false(m->head.has_stddev);	/* mean 0 */
	assert_true(m->change == -100);

	assert_int_equal(t->nr_samples, 2);
	assert_string_equal(t->samples[0].metric, "vm-scalability.throughput");
	assert_int_equal(t->samples[0].nr_good, 4);
	assert_int_equal(t->samples[0].nr_bad, 3);
	assert_true(t->samples[0].good[0] == 1 && t->samples[0].bad[2] == 7);
	assert_string_equal(t->samples[1].metric, "one.value");
	assert_int_equal(t->samples[1].nr_good, 0);
	assert_int_equal(t->samples[1].nr_bad, 1);
	assert_true(t->samples[1].bad[0] == 0.5);

	t = &r->tests[1];
	assert_string_equal(t->testcase, "will-it-scale");
	assert_int_equal(t->headline_index, 1);
	assert_int_equal(t->nr_params, 0);
	assert_string_equal(t->base, "v6.18-rc3");
	assert_string_equal(report_test_base(r, t), "v6.18-rc3");
	assert_int_equal(t->kind, REPORT_KIND_IMPROVEMENT);
	assert_string_equal(t->description, "will-it-scale: does many things in parallel");
	assert_string_equal(t->url, "https://github.com/antonblanchard/will-it-scale");
	assert_int_equal(t->nr_failures, 0);
	assert_int_equal(t->nr_samples, 0);
	assert_true(t->metrics[1].head.mean == -3.5);
	assert_true(t->metrics[1].head.has_stddev);
	assert_true(t->metrics[1].head.stddev_percent == 0);

	report_free(r);
	buf_release(&text);
	buf_release(&err);
}

static void optional_keys_and_defaults(void **state)
{
	static const struct { const char *from, *to, *branch; } cases[] = {
		{ "'tree': 'a/b'", "'tree': 'linux-next/master'", "master" },
		{ "'tree': 'a/b'", "'tree': 'tip/x86/urgent'", "x86/urgent" },
		{ "'tree': 'a/b'", "'tree': 'a/b', 'branch': 'stable'", "stable" },
		{ "'commit': 'abcd'", "'commit': 'v6.15-rc1'", "b" },
		{ "'commit': 'abcd'", "'commit': 'refs/tags/v6.15'", "b" },
		{ "'commit': 'abcd'", "'commit': 'ABCDEF0123'", "b" },
		{ "'tests': [", "'still': [], 'tests': [", "b" },
		{ "'params': {}", "'params': {'n': 1e-3, 'big': 9007199254740992, 'f': false}", "b" },
		{ "'params': {}", "'params': {}, 'samples': {}, 'failures': []", "b" },
		{ "'head': {'mean': 2}", "'head': {'mean': 2, 'stddev_percent': 0}", "b" },
		{ "'perfbot': 1", "'perfbot': 1.0", "b" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf text = BUF_INIT, err = BUF_INIT;
		struct report *r;

		edit(&text, min, cases[i].from, cases[i].to);
		if (load(text.data, text.len, &r, &err) < 0)
			fail_msg("case %zu: %s", i, err.data);
		assert_string_equal(r->branch, cases[i].branch);
		assert_null(r->repo_url);
		assert_int_equal(r->kind, REPORT_KIND_UNSET);
		report_free(r);
		buf_release(&text);
		buf_release(&err);
	}
}

static void params_numbers_as_text(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct report *r;

	(void)state;
	edit(&text, min, "'params': {}",
	     "'params': {'n': 1e-3, 'big': 9007199254740992, 'f': false, 'neg': -2.5}");
	if (load(text.data, text.len, &r, &err) < 0)
		fail_msg("%s", err.data);
	assert_string_equal(r->tests[0].params[0].value, "0.001");
	assert_string_equal(r->tests[0].params[1].value, "9007199254740992");
	assert_string_equal(r->tests[0].params[2].value, "false");
	assert_string_equal(r->tests[0].params[3].value, "-2.5");
	report_free(r);
	buf_release(&text);
	buf_release(&err);
}

#define E10 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"

static const struct bad_case {
	const char *base;	/* full or min */
	const char *from, *to;	/* the edit; from NULL: `to` is the whole document */
	const char *want;	/* in the message */
} bad_cases[] = {
	/* JSON itself (json.c): syntax with line:col, duplicates, numbers */
	{ NULL, NULL, "{\n 'perfbot': 1,\n 'tree': }", "in.json:3:" },
	{ NULL, NULL, "", "in.json:1:" },
	{ full, " 'perfbot': 1,\n", " 'perfbot': 1,\n 'perfbot': 1,\n", "in.json:3:" },
	{ full, "{'name': 'other'", "{'name': 'other', 'name': 'other'", "in.json:46:" },
	{ full, "'mean': 0.08", "'mean': 1e400", "in.json:29:" },
	{ full, "'mean': 0.09}", "'mean': 9007199254740993}",
	  "tests[0].metrics[0].head.mean: integer 9007199254740993 is larger than 2^53" },
	{ full, "'big box'", "'big\\u0000box'", "in.json:40:" },
	{ full, "'big box'", "'big\xff box'", "in.json:40:" },
	{ full, "'big box'", "'big\rbox'", "in.json:40:" },
	/* the root and the version */
	{ NULL, NULL, "[1, 2]", "in.json: (top level): must be a JSON object" },
	{ NULL, NULL, "'perfbot'", "in.json: (top level): must be a JSON object" },
	{ full, " 'perfbot': 1,\n", "", "in.json: perfbot: required key is missing" },
	{ full, "'perfbot': 1", "'perfbot': 2", "perfbot: format version 2 is not supported; "
	  "this perfbot reads version 1" },
	{ full, "'perfbot': 1", "'perfbot': '1'", "perfbot: must be the integer 1" },
	{ full, "'perfbot': 1", "'perfbot': 1.5", "perfbot: format version 1.5 is not supported" },
	/* unknown keys, at every level */
	{ full, "'kind': 'regression'", "'kind': 'regression', 'knid': 1",
	  "in.json: knid: unknown key; expected one of: perfbot, tree, repo_url" },
	{ full, "'kind': 'regression'", "'kind': 'regression', 'X-big': 1", "X-big: unknown key" },
	{ full, "{'label': 'still regression', 'on': 'linus/master'",
	  "{'lable': 'x', 'label': 'still regression', 'on': 'linus/master'",
	  "still[0].lable: unknown key; expected one of: label, on, commit" },
	{ full, "'testcase': 'vm-scalability',", "'testcase': 'vm-scalability', 'tetscase': 1,",
	  "tests[0].tetscase: unknown key; expected one of: testcase, headline" },
	{ full, "'change': 8.7", "'chnage': 8.7",
	  "tests[0].metrics[0].chnage: unknown key; expected one of: name, base, head, change" },
	{ full, "'head': {'values': [7, 7, 7],", "'head': {'values': [7, 7, 7], 'stdev': 1,",
	  "tests[0].metrics[1].head.stdev: unknown key; expected one of: values, mean, stddev_percent" },
	{ full, "{'name': 'dmesg.WARNING'", "{'nmae': 1, 'name': 'dmesg.WARNING'",
	  "tests[0].failures[1].nmae: unknown key; expected one of: name, base, head" },
	{ full, "'head': {'fails': 1, 'runs': 4}", "'head': {'fails': 1, 'runs': 4, 'run': 4}",
	  "tests[0].failures[0].head.run: unknown key; expected one of: fails, runs, values" },
	{ full, "'bad': [0.5],", "'bad': [0.5], 'ugly': [],",
	  "tests[0].samples[\"one.value\"].ugly: unknown key; expected one of: good, bad" },
	{ full, "'one.value': {'good'", "'two.value': {'good'",
	  "tests[0].samples[\"two.value\"]: names no row of tests[0].metrics" },
	{ full, "'kind': 'regression'", "'kind': 'regression', 'a\\nb': 1",
	  "[\"a\\nb\"]: unknown key" },
	{ full, "'kind': 'regression'", "'kind': 'regression', 'k" E10 E10 E10 E10 E10 "': 1",
	  "[\"k" E10 E10 E10 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	  "...\"]: unknown key" },
	/* the first violation wins: version, then unknown keys, then members */
	{ min, "'perfbot': 1, 'tree': 'a/b'", "'perfbot': 2, 'tree': 'a', 'a': 1",
	  "perfbot: format version 2" },
	{ full, "'tree': 'linus/master'", "'tree': 'linus', 'a': 1", "in.json: a: unknown key" },
	{ min, "'tree': 'a/b', 'commit': 'abcd'", "'tree': 'a', 'commit': 'a b'", "in.json: tree:" },
	/* tree, branch, repo_url */
	{ full, " 'tree': 'linus/master',\n", "", "in.json: tree: required key is missing" },
	{ full, "'tree': 'linus/master'", "'tree': 5", "in.json: tree: must be a string" },
	{ full, "'tree': 'linus/master'", "'tree': 'linus'", "tree: \"linus\" must be NAME/BRANCH" },
	{ full, "'tree': 'linus/master'", "'tree': '/master'", "tree: \"/master\" must be NAME/BRANCH" },
	{ full, "'tree': 'linus/master'", "'tree': 'linus/'", "tree: \"linus/\" must be NAME/BRANCH" },
	{ full, "'tree': 'linus/master'", "'tree': 'li nus/master'", "tree: \"li nus/master\" must be" },
	{ full, "'tree': 'linus/master'", "'tree': 'linus/ma ster'", "tree: \"linus/ma ster\" must be" },
	{ full, "'tree': 'linus/master'", "'tree': 'lin+us/master'", "tree: \"lin+us/master\" must be" },
	{ full, "'tree': 'linus/master'", "'tree': 'linus/master', 'branch': 'a b'",
	  "branch: must not contain spaces" },
	{ full, "'tree': 'linus/master'", "'tree': 'linus/master', 'branch': ''",
	  "branch: must not be empty" },
	{ full, "'repo_url': 'https://git", "'repo_url': 'https://a b/', 'x-': 'https://git", "repo_url: must not contain spaces" },
	{ full, "'repo_url': 'https://git", "'repo_url': null, 'x-': '", "repo_url: must be a string" },
	/* commit ids and tag names */
	{ full, "'commit': '9890ecab6ad9c0d3d342469f3b619fd704b5c59a'", "'commit': ''",
	  "commit: must not be empty" },
	{ full, "'commit': '9890ecab6ad9c0d3d342469f3b619fd704b5c59a'", "'commit': 'abc def'",
	  "commit: \"abc def\" is neither a commit id (4 to 40 hex digits) nor a valid tag name: "
	  "it contains a space" },
	{ full, "'commit': '9890ecab6ad9c0d3d342469f3b619fd704b5c59a'", "'commit': '-v1'",
	  "commit: \"-v1\" is neither" },
	{ full, "'commit': '9890ecab6ad9c0d3d342469f3b619fd704b5c59a'",
	  "'commit': '9890ecab6ad9c0d3d342469f3b619fd704b5c59a~1'", "it contains one of ~" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v1..v2'", "base: \"v1..v2\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v1.lock'", "ends with \".lock\"" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v1^'", "base: \"v1^\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v1:x'", "base: \"v1:x\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v1?'", "base: \"v1?\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v*'", "base: \"v*\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v[1]'", "base: \"v[1]\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v\\\\1'", "base: \"v\\\\1\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'HEAD@{1}'", "it contains \"@{\"" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': '.v1'", "base: \".v1\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'v1.'", "it ends with '.'" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'tags/'", "it ends with '/'" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'tags//v1'", "it contains \"//\"" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': 'tags/.v1'", "a part of it starts with '.'" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': '@'", "base: \"@\" is neither" },
	{ full, "'base': 'cb431accb36e51b6'", "'base': '/v1'", "it starts with '/'" },
	{ full, " 'base': 'cb431accb36e51b6',\n", "", "in.json: base: required key is missing" },
	{ full, "'commit': 'next-20250101'", "'commit': 'next 20250101'",
	  "still[1].commit: \"next 20250101\" is neither" },
	{ full, "'base': 'v6.18-rc3'", "'base': 'v6.18 rc3'", "tests[1].base: \"v6.18 rc3\" is neither" },
	/* kind */
	{ full, "'kind': 'regression'", "'kind': 'regresion'",
	  "kind: must be \"regression\" or \"improvement\"" },
	{ full, "'kind': 'regression'", "'kind': null", "kind: must be \"regression\" or" },
	{ full, "'kind': 'improvement'", "'kind': 'better'", "tests[1].kind: must be \"regression\"" },
	/* still */
	{ full, "'still': [", "'still': 1, 'x-still': [", "in.json: still: must be an array" },
	{ full, "'on': 'linux-next/master', ", "", "still[1].on: required key is missing" },
	{ full, "'label': 'still regression', 'on': 'linus/master'",
	  "'label': '', 'on': 'linus/master'", "still[0].label: must not be empty" },
	{ full, "{'label': 'still regression', 'on': 'linus/master', ",
	  "3, {'label': 'still regression', 'on': 'linus/master', ", "still[0]: must be an object" },
	/* tests and their strings */
	{ min, "'tests': [{", "'tests': 1, 'x': [{", "x: unknown key" },
	{ min, "'tests': [{", "'tests': {'a': 1}, 'x-': [{", "in.json: tests: must be an array" },
	{ NULL, NULL, "{'perfbot': 1, 'tree': 'a/b', 'commit': 'abcd', 'base': 'abcd'}",
	  "in.json: tests: required key is missing" },
	{ NULL, NULL, "{'perfbot': 1, 'tree': 'a/b', 'commit': 'abcd', 'base': 'abcd', 'tests': []}",
	  "in.json: tests: must not be empty" },
	{ min, "'tests': [{", "'tests': [1, {", "in.json: tests[0]: must be an object" },
	{ full, "'machine': 'big box',", "", "tests[1].machine: required key is missing" },
	{ full, "'compiler': 'gcc-12'", "'compiler': ''", "tests[1].compiler: must not be empty" },
	{ full, "'rootfs': 'debian.cgz'", "'rootfs': ['debian.cgz']", "tests[1].rootfs: must be a string" },
	{ full, "'big box'", "'big\\nbox'",
	  "tests[1].machine: contains the control character U+000A at byte 4; strings must fit on one line" },
	{ full, "'testcase': 'will-it-scale'", "'testcase': 'will-it-scale\\r'",
	  "tests[1].testcase: contains the control character U+000D at byte 14" },
	{ full, "'tbox_group': 'lkp-spr'", "'tbox_group': 'lkp\\tspr'",
	  "tests[1].tbox_group: contains the control character U+0009 at byte 4; strings must fit "
	  "on one line (TAB is allowed only in params values)" },
	{ full, "'rootfs': 'debian.cgz'", "'rootfs': '\\u001b[31mdebian.cgz'",
	  "tests[1].rootfs: contains the control character U+001B at byte 1" },
	{ full, "'kconfig': 'x86_64-rhel-9.4', 'compiler': 'gcc-12'",
	  "'kconfig': 'x86_64-rhel-9.4\x7f', 'compiler': 'gcc-12'",
	  "tests[1].kconfig: contains the control character U+007F" },
	{ full, "'kconfig': 'x86_64-rhel-9.4', 'compiler': 'gcc-12'",
	  "'kconfig': 'x86_64-rhel-9.4\\u007f', 'compiler': 'gcc-12'",
	  "tests[1].kconfig: contains the control character U+007F" },
	{ full, "'big box'", "'big\\u0085box'", "tests[1].machine: contains the control character U+0085" },
	{ full, "'headline': 'will-it-scale.per_thread_ops'", "'headline': 'x'",
	  "tests[1].headline: \"x\" names no row of tests[1].metrics" },
	{ full, "'headline': 'will-it-scale.per_thread_ops'", "'headline': ''",
	  "tests[1].headline: must not be empty" },
	{ full, "'test_url': 'https://github.com/", "'test_url': 'https://github.com/ ",
	  "tests[1].test_url: must not contain spaces" },
	{ full, "'test_description': 'will-it-scale: does many things in parallel'",
	  "'test_description': ''", "tests[1].test_description: must not be empty" },
	/* params */
	{ full, "'runtime': '300s'", "'runtime': null",
	  "tests[0].params.runtime: must be a string, a number or a boolean" },
	{ full, "'runtime': '300s'", "'runtime': ['300s']", "tests[0].params.runtime: must be a string" },
	{ full, "'size': '8T'", "'size': '8\\nT'", "tests[0].params.size: contains the control character U+000A" },
	{ full, "'params': {}", "'params': {'': 'x'}", "tests[1].params[\"\"]: a param name must not be empty" },
	{ full, "'params': {}", "'params': {'a\\tb': 'x'}",
	  "tests[1].params[\"a\\tb\"]: contains the control character U+0009" },
	{ full, "'params': {}", "'params': []", "tests[1].params: must be an object" },
	{ full, "'params': {}, ", "", "tests[1].params: required key is missing" },
	/* metric rows and sides */
	{ min, "'metrics': [{'name': 'm', 'base': {'mean': 1}, 'head': {'mean': 2}}]", "'metrics': []",
	  "tests[0].metrics: must not be empty" },
	{ min, ", 'metrics': [{'name': 'm', 'base': {'mean': 1}, 'head': {'mean': 2}}]", "",
	  "tests[0].metrics: required key is missing" },
	{ full, "{'name': 'other'", "{'name': 'will-it-scale.per_thread_ops'",
	  "tests[1].metrics[1].name: repeats the name of tests[1].metrics[0]; names must be unique" },
	{ full, "{'name': 'other', ", "{", "tests[1].metrics[0].name: required key is missing" },
	{ min, "'metrics': [", "'metrics': [{'name': 'z', 'base': {'mean': 1}, 'head': {'mean': 2}}, "
	  "{'name': 'm', 'base': {'mean': 1}, 'head': {'mean': 2}}, "
	  "{'name': 'z', 'base': {'mean': 1}, 'head': {'mean': 2}}, "
	  "{'name': 'm', 'base': {'mean': 1}, 'head': {'mean': 2}}, ",
	  "tests[0].metrics[2].name: repeats the name of tests[0].metrics[0]" },
	{ full, "{'name': 'other'", "{'name': ''", "tests[1].metrics[0].name: must not be empty" },
	{ full, "'change': -100", "'change': '-100'", "tests[0].metrics[2].change: must be a number" },
	{ full, "'head': {'mean': 0.09}", "'head': {'mean': 0.09, 'values': [1]}",
	  "tests[0].metrics[0].head: has both values and mean" },
	{ full, "'head': {'mean': 0.09}", "'head': {}", "tests[0].metrics[0].head: has neither values nor mean" },
	{ full, "'head': {'mean': 0.09}", "'head': {'stddev_percent': 1}",
	  "tests[0].metrics[0].head: has stddev_percent but no mean" },
	{ full, "'head': {'mean': 0.09}", "'head': {'mean': '0.09'}", "tests[0].metrics[0].head.mean: must be a number" },
	{ full, "'stddev_percent': 3.1", "'stddev_percent': -3.1",
	  "tests[0].metrics[0].base.stddev_percent: must not be negative" },
	{ full, "'head': {'mean': 2}", "'head': 2", "tests[1].metrics[0].head: must be an object" },
	{ full, "'head': {'mean': 2}", "'hed': {'mean': 2}", "tests[1].metrics[0].hed: unknown key" },
	{ full, "'base': {'mean': 1}, ", "", "tests[1].metrics[0].base: required key is missing" },
	{ full, "'values': [1, 2, 3, 4]}, 'head'", "'values': [1, 2, '3', 4]}, 'head'",
	  "tests[0].metrics[1].base.values[2]: must be a number" },
	{ full, "'values': [1, 2, 3, 4]}, 'head'", "'values': [1, 2, null, 4]}, 'head'",
	  "tests[0].metrics[1].base.values[2]: must be a number" },
	{ full, "'values': [5]", "'values': []", "tests[0].metrics[2].base.values: must not be empty" },
	{ full, "'values': [5]", "'values': 5", "tests[0].metrics[2].base.values: must be an array" },
	/* failures */
	{ full, "'head': {'fails': 1, 'runs': 4}", "'head': {'fails': 5, 'runs': 4}",
	  "tests[0].failures[0].head.fails: is 5, more than runs (4)" },
	{ full, "'base': {'fails': 0, 'runs': 4}", "'base': {'fails': 0, 'runs': 0}",
	  "tests[0].failures[0].base.runs: must be at least 1" },
	{ full, "'base': {'fails': 0, 'runs': 4}", "'base': {'fails': -1, 'runs': 4}",
	  "tests[0].failures[0].base.fails: must not be negative" },
	{ full, "'base': {'fails': 0, 'runs': 4}", "'base': {'fails': 0.5, 'runs': 4}",
	  "tests[0].failures[0].base.fails: must be a whole number" },
	{ full, "'base': {'fails': 0, 'runs': 4}", "'base': {'fails': 0, 'runs': '4'}",
	  "tests[0].failures[0].base.runs: must be a number" },
	{ full, "'base': {'fails': 0, 'runs': 4}", "'base': {'fails': 0}",
	  "tests[0].failures[0].base: needs runs" },
	{ full, "'base': {'fails': 0, 'runs': 4}", "'base': {}",
	  "tests[0].failures[0].base: needs fails and runs" },
	{ full, "'base': {'fails': 0, 'runs': 4}", "'base': {'fails': 0, 'runs': 4, 'values': [0]}",
	  "tests[0].failures[0].base: has both values and fails" },
	{ full, "'values': [0, 0, 0]", "'values': [0, 2, 2]",
	  "tests[0].failures[1].base.values: add up to more failures than there are runs (3)" },
	{ full, "'values': [0, 0, 0]", "'values': [0, -1, 0]",
	  "tests[0].failures[1].base.values[1]: must not be negative" },
	{ full, "'values': [0, 0, 0]", "'values': [0, 0.5, 0]",
	  "tests[0].failures[1].base.values[1]: must be a whole number" },
	{ full, "'values': [0, 0, 0]", "'values': []", "tests[0].failures[1].base.values: must not be empty" },
	{ full, "'name': 'dmesg.WARNING'", "'name': 'kmsg.usb#-#:cannot_read_configurations,error'",
	  "tests[0].failures[1].name: repeats the name of tests[0].failures[0]" },
	{ full, "'failures': [", "'failures': 0, 'x-f': [", "tests[0].failures: must be an array" },
	{ full, "'head': {'fails': 1, 'runs': 4}", "'head': 1", "tests[0].failures[0].head: must be an object" },
	/* samples */
	{ full, "{'good': [], 'bad': [0.5],", "{'good': [], 'bad': [],",
	  "tests[0].samples[\"one.value\"]: has no values; give at least one in good or bad" },
	{ full, "'bad': [0.5]", "'bad': [true]", "tests[0].samples[\"one.value\"].bad[0]: must be a number" },
	{ full, "'bad': [0.5], ", "", "tests[0].samples[\"one.value\"].bad: required key is missing" },
	{ full, "'good': [], ", "'good': {}, ", "tests[0].samples[\"one.value\"].good: must be an array" },
	{ full, "{'good': [], 'bad': [0.5], 'x-s': 2}", "[]", "tests[0].samples[\"one.value\"]: must be an object" },
	{ full, "'samples': {", "'samples': [], 'x-': {", "tests[0].samples: must be an object" },
};

static void bad_documents(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct buf text = BUF_INIT, what = BUF_INIT;

		if (c->from)
			edit(&text, c->base, c->from, c->to);
		else
			doc(&text, c->to);
		buf_addf(&what, "case %zu (%s)", i, c->want);
		expect_error(what.data, text.data, text.len, c->want);
		buf_release(&text);
		buf_release(&what);
	}
}

/* Limits: at the limit is fine, one past it is an error naming it. */
static const struct limit_case {
	const char *from;	/* in min */
	const char *prefix;	/* replaces from, then count units, then suffix */
	const char *unit;	/* one %zu: the unit's index */
	const char *suffix;
	size_t count;
	const char *want;	/* NULL: must load */
} limit_cases[] = {
	{ "'machine': 'x'", "'machine': '", "a", "'", REPORT_MAX_STRING, NULL },
	{ "'machine': 'x'", "'machine': '", "a", "'", REPORT_MAX_STRING + 1,
	  "tests[0].machine: is 1025 bytes long; the limit is REPORT_MAX_STRING (1024 bytes)" },
	{ "'machine': 'x'", "'machine': '", "\xc3\xa9", "'", REPORT_MAX_STRING / 2 + 1,
	  "tests[0].machine: is 1026 bytes long" },
	{ "'params': {}", "'params': {", "'p%zu': 1, ", "'last': 2}", REPORT_MAX_PARAMS - 1, NULL },
	{ "'params': {}", "'params': {", "'p%zu': 1, ", "'last': 2}", REPORT_MAX_PARAMS,
	  "tests[0].params: has 257 entries; the limit is REPORT_MAX_PARAMS (256)" },
	{ "'tests': [", "'still': [", "{'label': 'l', 'on': 'a/b', 'commit': 'v%zu'}, ",
	  "{'label': 'l', 'on': 'a/b', 'commit': 'abcd'}], 'tests': [", REPORT_MAX_STILL - 1, NULL },
	{ "'tests': [", "'still': [", "{'label': 'l', 'on': 'a/b', 'commit': 'v%zu'}, ",
	  "{'label': 'l', 'on': 'a/b', 'commit': 'abcd'}], 'tests': [", REPORT_MAX_STILL,
	  "in.json: still: has 33 entries; the limit is REPORT_MAX_STILL (32)" },
	{ "'base': {'mean': 1}", "'base': {'values': [", "%zu, ", "0]}", REPORT_MAX_VALUES - 1, NULL },
	{ "'base': {'mean': 1}", "'base': {'values': [", "%zu, ", "0]}", REPORT_MAX_VALUES,
	  "tests[0].metrics[0].base.values: has 100001 entries; the limit is REPORT_MAX_VALUES (100000)" },
	{ "'params': {}", "'params': {}, 'failures': [{'name': 'f', 'base': {'values': [", "0, ",
	  "1]}, 'head': {'fails': 0, 'runs': 1}}]", REPORT_MAX_VALUES,
	  "tests[0].failures[0].base.values: has 100001 entries; the limit is REPORT_MAX_VALUES" },
	{ "]}]}", "], 'samples': {'m': {'good': [", "%zu, ", "0], 'bad': [1]}}}]}",
	  REPORT_MAX_VALUES - 2, NULL },
	{ "]}]}", "], 'samples': {'m': {'good': [", "%zu, ", "0], 'bad': [1]}}}]}",
	  REPORT_MAX_VALUES - 1,
	  "tests[0].samples.m: good and bad hold 100001 values together; the limit is "
	  "REPORT_MAX_VALUES (100000)" },
	{ "'metrics': [", "'metrics': [", "{'name': 'n%zu', 'base': {'mean': 1}, 'head': {'mean': 2}}, ",
	  "", REPORT_MAX_METRICS - 1, NULL },
	{ "'metrics': [", "'metrics': [", "{'name': 'n%zu', 'base': {'mean': 1}, 'head': {'mean': 2}}, ",
	  "", REPORT_MAX_METRICS,
	  "tests[0].metrics: has 20001 entries; the limit is REPORT_MAX_METRICS (20000)" },
	{ "'params': {}", "'params': {}, 'failures': [",
	  "{'name': 'f%zu', 'base': {'fails': 0, 'runs': 1}, 'head': {'fails': 1, 'runs': 1}}, ",
	  "{'name': 'last', 'base': {'fails': 0, 'runs': 1}, 'head': {'fails': 1, 'runs': 1}}]",
	  REPORT_MAX_FAILURES,
	  "tests[0].failures: has 20001 entries; the limit is REPORT_MAX_FAILURES (20000)" },
};

static void limits(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(limit_cases) / sizeof(limit_cases[0]); i++) {
		const struct limit_case *c = &limit_cases[i];
		struct buf to = BUF_INIT, text = BUF_INIT, err = BUF_INIT, what = BUF_INIT;
		struct report *r;

		buf_adds(&to, c->prefix);
		for (j = 0; j < c->count; j++)
			buf_addf(&to, c->unit, j);
		buf_adds(&to, c->suffix);
		edit(&text, min, c->from, to.data);
		buf_addf(&what, "limit case %zu", i);
		if (c->want) {
			expect_error(what.data, text.data, text.len, c->want);
		} else {
			if (load(text.data, text.len, &r, &err) < 0)
				fail_msg("%s: %s", what.data, err.data);
			report_free(r);
		}
		buf_release(&to);
		buf_release(&text);
		buf_release(&err);
		buf_release(&what);
	}
}

static void tests_limit(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT;
	const char *test = strstr(min, "{'testcase'");
	size_t len = strlen(test) - 2, n;	/* without the closing "]}" */
	struct report *r;

	(void)state;
	for (n = REPORT_MAX_TESTS; n <= REPORT_MAX_TESTS + 1; n++) {
		struct buf src = BUF_INIT;
		size_t i;

		buf_adds(&src, "{'perfbot': 1, 'tree': 'a/b', 'commit': 'abcd', 'base': 'abcd', 'tests': [");
		for (i = 0; i < n; i++) {
			buf_add(&src, test, len);
			buf_adds(&src, i + 1 < n ? ", " : "]}");
		}
		buf_reset(&text);
		doc(&text, src.data);
		if (n == REPORT_MAX_TESTS) {
			if (load(text.data, text.len, &r, &err) < 0)
				fail_msg("%s", err.data);
			assert_int_equal(r->nr_tests, REPORT_MAX_TESTS);
			report_free(r);
		} else {
			expect_error("65 tests", text.data, text.len,
				     "in.json: tests: has 65 entries; the limit is REPORT_MAX_TESTS (64)");
		}
		buf_release(&src);
	}
	buf_release(&text);
	buf_release(&err);
}

/* Values built in code need not come from json.c: report.c checks UTF-8
 * and NUL itself. */
static void strings_checked_without_json(void **state)
{
	static const struct { const char *bytes; size_t len; const char *want; } cases[] = {
		{ "ab\xff", 3, "tests[0].machine: is not valid UTF-8 (at byte 3)" },
		{ "\xc0\xaf", 2, "is not valid UTF-8 (at byte 1)" },
		{ "a\xed\xa0\x80", 4, "is not valid UTF-8 (at byte 2)" },
		{ "\xf4\x90\x80\x80", 4, "is not valid UTF-8" },
		{ "\xe2\x82", 2, "is not valid UTF-8" },
		{ "a\0b", 3, "contains the control character U+0000 at byte 2" },
		{ "\xc2\x9b", 2, "contains the control character U+009B" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf text = BUF_INIT, err = BUF_INIT;
		struct value *v, *test;
		struct report *r;
		size_t k;

		doc(&text, min);
		assert_int_equal(json_parse(text.data, text.len, "in.json", &v, &err), 0);
		test = (struct value *)value_object_get(v, "tests")->items[0];
		for (k = 0; k < test->nr; k++)
			if (!strcmp(test->keys[k], "machine"))
				break;
		value_free(test->items[k]);
		test->items[k] = value_new_stringn(cases[i].bytes, cases[i].len);
		if (cases[i].want) {
			assert_int_equal(report_from_value(v, "in.json", &r, &err), -1);
			assert_null(r);
			if (!strstr(err.data, cases[i].want))
				fail_msg("case %zu: '%s' lacks '%s'", i, err.data, cases[i].want);
		} else {
			if (report_from_value(v, "in.json", &r, &err) < 0)
				fail_msg("case %zu: %s", i, err.data);
			assert_memory_equal(r->tests[0].machine, cases[i].bytes, cases[i].len + 1);
			report_free(r);
		}
		value_free(v);
		buf_release(&text);
		buf_release(&err);
	}
}

static void side_statistics(void **state)
{
	static const struct {
		const char *values;
		double mean;
		int has_stddev;
		double percent;	/* -1: do not compare */
	} cases[] = {
		{ "[1, 2, 3, 4]", 2.5, 1, 44.721359549995796 },
		{ "[0.1, 0.1, 0.1]", 0.1, 1, 0 },
		{ "[103400000, 103400000]", 103400000, 1, 0 },
		{ "[-2, -2]", -2, 1, 0 },
		{ "[2, 4]", 3, 1, 100.0 / 3 },
		{ "[-1, 1]", 0, 0, -1 },
		{ "[0]", 0, 0, -1 },
		{ "[42]", 42, 0, -1 },
		{ "[1e308, 1.5e308]", 1.25e308, 1, 20 },
		{ "[-1.7e308, -1.7e308, 1.7e308]", -1.7e308 / 3, 1, -1 },
		{ "[1e-320, 3e-320]", 2e-320, 1, -1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf to = BUF_INIT, text = BUF_INIT, err = BUF_INIT;
		const struct report_side *s;
		struct report *r;

		buf_addf(&to, "'base': {'values': %s}", cases[i].values);
		edit(&text, min, "'base': {'mean': 1}", to.data);
		if (load(text.data, text.len, &r, &err) < 0)
			fail_msg("case %zu: %s", i, err.data);
		s = &r->tests[0].metrics[0].base;
		if (fabs(s->mean - cases[i].mean) > fabs(cases[i].mean) * 1e-15 + 1e-323)
			fail_msg("case %zu: mean %.17g, expected %.17g", i, s->mean, cases[i].mean);
		assert_int_equal(s->has_stddev, cases[i].has_stddev);
		assert_true(isfinite(s->stddev_percent));
		if (cases[i].percent == 0 && s->stddev_percent != 0)
			fail_msg("case %zu: equal values give %.17g%%", i, s->stddev_percent);
		if (cases[i].percent > 0 && fabs(s->stddev_percent - cases[i].percent) > 1e-12)
			fail_msg("case %zu: stddev %.17g%%, expected %.17g%%", i, s->stddev_percent,
				 cases[i].percent);
		report_free(r);
		buf_release(&to);
		buf_release(&text);
		buf_release(&err);
	}
}

static void helpers(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT, name = BUF_INIT;
	struct report *r;

	(void)state;
	assert_string_equal(report_kind_name(REPORT_KIND_REGRESSION), "regression");
	assert_string_equal(report_kind_name(REPORT_KIND_IMPROVEMENT), "improvement");
	assert_null(report_kind_name(REPORT_KIND_UNSET));
	report_free(NULL);

	edit(&text, min, "'tree': 'a/b'", "'tree': 'linux-next/pending/fixes'");
	if (load(text.data, text.len, &r, &err) < 0)
		fail_msg("%s", err.data);
	report_tree_name(r, &name);
	assert_string_equal(name.data, "linux-next");
	assert_string_equal(r->branch, "pending/fixes");
	assert_string_equal(report_test_base(r, &r->tests[0]), "abcd");
	report_free(r);
	buf_release(&text);
	buf_release(&err);
	buf_release(&name);
}

static void load_file_names_the_file(void **state)
{
	char path[] = "/tmp/test-report-XXXXXX";
	struct buf text = BUF_INIT, err = BUF_INIT, want = BUF_INIT;
	struct report *r;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	doc(&text, min);
	assert_int_equal(write(fd, text.data, text.len), (ssize_t)text.len);
	assert_int_equal(report_load_file(path, &r, &err), 0);
	assert_string_equal(r->name, path);
	report_free(r);

	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "{\n\n  'x", 7, 0), 7);
	assert_int_equal(report_load_file(path, &r, &err), -1);
	assert_null(r);
	buf_addf(&want, "%s:3:", path);
	if (strncmp(err.data, want.data, want.len))
		fail_msg("'%s' does not start with '%s'", err.data, want.data);

	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "{}", 2, 0), 2);
	assert_int_equal(report_load_file(path, &r, &err), -1);
	buf_reset(&want);
	buf_addf(&want, "%s: perfbot: required key is missing", path);
	if (strncmp(err.data, want.data, want.len))
		fail_msg("'%s' does not start with '%s'", err.data, want.data);
	close(fd);
	unlink(path);

	assert_int_equal(report_load_file(path, &r, &err), -1);
	assert_null(r);
	assert_non_null(strstr(err.data, path));
	buf_release(&text);
	buf_release(&err);
	buf_release(&want);
}

/* Coalescing moves tests over with the base and kind their file gave. */
static void merge_keeps_bases_and_kinds(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT, err = BUF_INIT;
	struct report *into, *more;

	(void)state;
	edit(&a, min, "'tests'", "'kind': 'regression', 'tests'");
	edit(&b, min, "'base': 'abcd'", "'base': 'v1.0', 'kind': 'improvement'");
	assert_int_equal(load(a.data, a.len, &into, &err), 0);
	assert_int_equal(load(b.data, b.len, &more, &err), 0);
	assert_int_equal(report_merge(into, more, &err), 0);
	assert_int_equal(into->nr_tests, 2);
	assert_null(into->tests[0].base);
	assert_string_equal(report_test_base(into, &into->tests[0]), "abcd");
	assert_string_equal(report_test_base(into, &into->tests[1]), "v1.0");
	assert_int_equal(into->tests[0].kind, REPORT_KIND_UNSET);
	assert_int_equal(into->kind, REPORT_KIND_REGRESSION);
	assert_int_equal(into->tests[1].kind, REPORT_KIND_IMPROVEMENT);
	report_free(into);
	buf_release(&a);
	buf_release(&b);
	buf_release(&err);
}

/* A test result: the request it answers, two extra commits (4 columns),
 * extra sides of both forms with and without their own change, extra
 * failure counts, and samples keyed by the extra commits. */
static const char result[] =
	"{'perfbot': 1, 'tree': 'linus/master', 'commit': '85e511df3cec', 'base': '82e9d0456e06', "
	"'request': 7, "
	"'extra': [{'commit': 'v6.12-rc1', 'label': 'tip'}, {'commit': '1c3386188ad9', 'x-e': 1}], "
	"'tests': [{"
	"'testcase': 'hackbench', 'headline': 'hackbench.throughput', 'tbox_group': 'g', "
	"'machine': 'x', 'kconfig': 'k', 'compiler': 'c', 'rootfs': 'r', 'params': {}, "
	"'failures': [{'name': 'dmesg.WARNING', 'base': {'fails': 0, 'runs': 4}, "
	"'head': {'fails': 2, 'runs': 4}, "
	"'extra': [{'fails': 1, 'runs': 3}, {'values': [0, 0, 1, 0, 0]}]}], "
	"'metrics': [{'name': 'hackbench.throughput', 'base': {'mean': 623219}, "
	"'head': {'mean': 541887}, 'change': -13.1, "
	"'extra': [{'mean': 540000, 'stddev_percent': 2.5}, "
	"{'values': [625000, 625308], 'change': 0.3, 'x-s': 0}]}], "
	"'samples': {'hackbench.throughput': {'good': [623219], 'bad': [], "
	"'1c3386188ad9': [625000, 625308]}}}]}";

/* An error result: what the reply names, no numbers. */
static const char result_error[] =
	"{'perfbot': 1, 'tree': 'linus/master', 'commit': '85e511df3cec', 'base': '82e9d0456e06', "
	"'request': 7, 'extra': [{'commit': '1c3386188ad9'}], "
	"'error': 'kernel/sched/fair.c:42:1: error: expected \\u0027;\\u0027\\n\\tmake: *** Error 1', "
	"'tests': [{"
	"'testcase': 'hackbench', 'headline': 'hackbench.throughput', 'tbox_group': 'g', "
	"'machine': 'x', 'kconfig': 'k', 'compiler': 'c', 'rootfs': 'r', "
	"'params': {'mode': 'process'}}]}";

static void test_result_loads(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct report *r;
	const struct report_test *t;

	(void)state;
	doc(&text, result);
	if (load(text.data, text.len, &r, &err) < 0)
		fail_msg("%s", err.data);
	assert_int_equal(r->request, 7);
	assert_int_equal(r->nr_extra, 2);
	assert_string_equal(r->extra[0].commit, "v6.12-rc1");
	assert_string_equal(r->extra[0].label, "tip");
	assert_string_equal(r->extra[1].commit, "1c3386188ad9");
	assert_null(r->extra[1].label);
	assert_null(r->error);
	assert_true(report_has_numbers(r));
	t = &r->tests[0];
	assert_int_equal(t->headline_index, 0);
	assert_non_null(t->metrics[0].extra);
	assert_true(t->metrics[0].extra[0].side.mean == 540000);
	assert_true(t->metrics[0].extra[0].side.has_stddev);
	assert_true(t->metrics[0].extra[0].side.stddev_percent == 2.5);
	assert_false(t->metrics[0].extra[0].has_change);
	assert_int_equal(t->metrics[0].extra[1].side.nr_values, 2);
	assert_true(t->metrics[0].extra[1].side.mean == 625154);
	assert_true(t->metrics[0].extra[1].has_change);
	assert_true(t->metrics[0].extra[1].change == 0.3);
	assert_int_equal(t->failures[0].extra[0].fails, 1);
	assert_int_equal(t->failures[0].extra[0].runs, 3);
	assert_int_equal(t->failures[0].extra[1].fails, 1);
	assert_int_equal(t->failures[0].extra[1].runs, 5);
	assert_int_equal(t->nr_samples, 1);
	assert_int_equal(t->samples[0].nr_good, 1);
	assert_int_equal(t->samples[0].nr_bad, 0);
	assert_non_null(t->samples[0].extra);
	assert_null(t->samples[0].extra[0].values);
	assert_int_equal(t->samples[0].extra[0].nr, 0);
	assert_int_equal(t->samples[0].extra[1].nr, 2);
	assert_true(t->samples[0].extra[1].values[1] == 625308);
	report_free(r);

	/* a report has none of it */
	buf_reset(&text);
	doc(&text, min);
	assert_int_equal(load(text.data, text.len, &r, &err), 0);
	assert_int_equal(r->request, 0);
	assert_int_equal(r->nr_extra, 0);
	assert_null(r->extra);
	assert_null(r->error);
	assert_null(r->tests[0].metrics[0].extra);
	report_free(r);

	buf_reset(&text);
	doc(&text, result_error);
	if (load(text.data, text.len, &r, &err) < 0)
		fail_msg("%s", err.data);
	assert_string_equal(r->error, "kernel/sched/fair.c:42:1: error: expected ';'\n\tmake: *** Error 1");
	assert_false(report_has_numbers(r));
	t = &r->tests[0];
	assert_string_equal(t->headline, "hackbench.throughput");
	assert_string_equal(t->params[0].value, "process");
	assert_int_equal(t->nr_metrics, 0);
	assert_null(t->metrics);
	assert_int_equal(t->nr_failures, 0);
	assert_int_equal(t->nr_samples, 0);
	report_free(r);
	buf_release(&text);
	buf_release(&err);
}

static const struct bad_case result_cases[] = {
	/* request and extra together */
	{ result, "'request': 7, ", "", "in.json: extra: is only for a test result; give \"request\" too" },
	{ result, "'extra': [{'commit': 'v6.12-rc1', 'label': 'tip'}, {'commit': '1c3386188ad9', 'x-e': 1}], ", "",
	  "in.json: extra: required key is missing; a test result (with \"request\")" },
	{ result, "'request': 7", "'request': 0", "in.json: request: must be at least 1" },
	{ result, "'request': 7", "'request': 1.5", "in.json: request: must be a whole number" },
	{ result, "'request': 7", "'request': '7'", "in.json: request: must be a number" },
	{ result, "'extra': [{'commit': 'v6.12-rc1', 'label': 'tip'}, {'commit': '1c3386188ad9', 'x-e': 1}]",
	  "'extra': []", "in.json: extra: must not be empty" },
	{ result, "{'commit': 'v6.12-rc1', 'label': 'tip'}", "{'commit': 'v6..12', 'label': 'tip'}",
	  "extra[0].commit: " },
	{ result, "{'commit': 'v6.12-rc1', 'label': 'tip'}", "{'label': 'tip'}",
	  "extra[0].commit: required key is missing" },
	{ result, "{'commit': 'v6.12-rc1', 'label': 'tip'}", "{'commit': 'v6.12-rc1', 'lable': 'tip'}",
	  "extra[0].lable: unknown key; expected one of: commit, label" },
	{ result, "'label': 'tip'", "'label': ''", "extra[0].label: must not be empty" },
	{ result, "{'commit': 'v6.12-rc1', 'label': 'tip'}", "{'commit': 'good'}",
	  "extra[0].commit: \"good\" cannot be an extra commit" },
	{ result, "{'commit': 'v6.12-rc1', 'label': 'tip'}", "{'commit': '1c3386188ad9'}",
	  "extra[1].commit: repeats extra[0].commit" },
	/* rows: exactly one extra side per extra commit, of base's shape */
	{ result, "'extra': [{'fails': 1, 'runs': 3}, {'values': [0, 0, 1, 0, 0]}]", "'x-y': 0",
	  "tests[0].failures[0].extra: required key is missing; in a test result every row has one side per commit of the top level's extra (2)" },
	{ result, "'extra': [{'fails': 1, 'runs': 3}, ", "'extra': [",
	  "tests[0].failures[0].extra: has 1 entries; the top level's extra has 2 commits" },
	{ result, "{'fails': 1, 'runs': 3}", "{'fails': 4, 'runs': 3}",
	  "tests[0].failures[0].extra[0].fails: is 4, more than runs (3)" },
	{ result, "{'values': [0, 0, 1, 0, 0]}", "{'values': [0, 0, 1, 0, 0], 'change': 1}",
	  "tests[0].failures[0].extra[1].change: unknown key; expected one of: fails, runs, values" },
	{ result, "'change': 0.3", "'change': 'x'", "tests[0].metrics[0].extra[1].change: must be a number" },
	{ result, "{'mean': 540000, 'stddev_percent': 2.5}", "{'stddev_percent': 2.5}",
	  "tests[0].metrics[0].extra[0]: has stddev_percent but no mean" },
	{ result, "{'mean': 540000, 'stddev_percent': 2.5}", "{'mean': 540000, 'stddev': 2.5}",
	  "tests[0].metrics[0].extra[0].stddev: unknown key; expected one of: values, mean, stddev_percent, change" },
	{ result, "{'mean': 540000, 'stddev_percent': 2.5}, ", "",
	  "tests[0].metrics[0].extra: has 1 entries; the top level's extra has 2 commits" },
	{ result, "{'mean': 540000, 'stddev_percent': 2.5}", "{'mean': 540000}, {'mean': 1}",
	  "tests[0].metrics[0].extra: has 3 entries" },
	{ result, "'extra': [{'mean': 540000, 'stddev_percent': 2.5}, {'values': [625000, 625308], 'change': 0.3, 'x-s': 0}]",
	  "'extra': {}", "tests[0].metrics[0].extra: must be an array" },
	{ min, "'head': {'mean': 2}", "'head': {'mean': 2}, 'extra': [{'mean': 3}]",
	  "tests[0].metrics[0].extra: only a test result's rows have extra sides" },
	/* samples: good, bad and the extra commits */
	{ result, "'1c3386188ad9': [625000, 625308]", "'1c3386188ad8': [625000, 625308]",
	  "tests[0].samples[\"hackbench.throughput\"].1c3386188ad8: unknown key; expected one of: good, bad, v6.12-rc1, 1c3386188ad9" },
	{ result, "'1c3386188ad9': [625000, 625308]", "'1c3386188ad9': [true]",
	  "tests[0].samples[\"hackbench.throughput\"].1c3386188ad9[0]: must be a number" },
	{ result, "{'good': [623219], 'bad': [], '1c3386188ad9': [625000, 625308]}",
	  "{'good': [], 'bad': [], 'v6.12-rc1': []}",
	  "tests[0].samples[\"hackbench.throughput\"]: has no values; give at least one in good or bad or an extra commit's runs" },
	/* error: only in a result, bounded, lines allowed, no numbers */
	{ min, "'tests'", "'error': 'x', 'tests'", "in.json: error: is only for a test result" },
	{ result_error, "Error 1'", "Error 1\\r'", "in.json: error: contains the control character U+000D at byte" },
	{ result_error, "Error 1'", "Error 1\\u0085'", "only newlines and TAB are allowed" },
	{ result_error, "Error 1'", "Error 1\xff'", "in.json:1:" },
	{ result_error, "'error': 'kernel/sched/fair.c:42:1: error: expected \\u0027;\\u0027\\n\\tmake: *** Error 1'",
	  "'error': ''", "in.json: error: must not be empty" },
	{ result_error, "'error': 'k", "'error': 7, 'x-': 'k", "in.json: error: must be a string" },
	{ result_error, "'params': {'mode': 'process'}", "'params': {'mode': 'process'}, 'metrics': []",
	  "tests[0].metrics: a test result with \"error\" carries no numbers" },
	{ result_error, "'params': {'mode': 'process'}", "'params': {'mode': 'process'}, 'samples': {}",
	  "tests[0].samples: a test result with \"error\" carries no numbers" },
	{ result_error, "'params': {'mode': 'process'}", "'params': {'mode': 'process'}, 'failures': []",
	  "tests[0].failures: a test result with \"error\" carries no numbers" },
	{ result_error, "'machine': 'x', ", "", "tests[0].machine: required key is missing" },
	{ result_error, "'params': {'mode': 'process'}", "'parms': {}", "tests[0].parms: unknown key" },
	{ result_error, "'headline': 'hackbench.throughput', ", "", "tests[0].headline: required key is missing" },
};

static void test_result_refusals(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(result_cases) / sizeof(result_cases[0]); i++) {
		const struct bad_case *c = &result_cases[i];
		struct buf text = BUF_INIT, what = BUF_INIT;

		edit(&text, c->base, c->from, c->to);
		buf_addf(&what, "result case %zu (%s)", i, c->want);
		expect_error(what.data, text.data, text.len, c->want);
		buf_release(&text);
		buf_release(&what);
	}
}

/* The limits of a test result: REPORT_MAX_EXTRA commits, REPORT_MAX_ERROR
 * bytes of error, and REPORT_MAX_VALUES runs of a sample entry with its
 * extra commits' runs counted. */
static void test_result_limits(void **state)
{
	struct buf text = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	struct report *r;
	size_t i, n;

	(void)state;
	for (n = REPORT_MAX_EXTRA; n <= REPORT_MAX_EXTRA + 1; n++) {
		buf_reset(&body);
		buf_adds(&body, "'extra': [");
		for (i = 0; i < n; i++)
			buf_addf(&body, "%s{'commit': 'v%zu'}", i ? ", " : "", i);
		buf_adds(&body, "]");
		buf_reset(&text);
		edit(&text, result_error, "'extra': [{'commit': '1c3386188ad9'}]", body.data);
		if (n == REPORT_MAX_EXTRA) {
			if (load(text.data, text.len, &r, &err) < 0)
				fail_msg("%s", err.data);
			assert_int_equal(r->nr_extra, REPORT_MAX_EXTRA);
			report_free(r);
		} else {
			expect_error("9 extras", text.data, text.len,
				     "in.json: extra: has 9 entries; the limit is REPORT_MAX_EXTRA (8)");
		}
	}
	for (n = REPORT_MAX_ERROR; n <= REPORT_MAX_ERROR + 1; n++) {
		struct buf json = BUF_INIT;
		char *at;

		/* n bytes, a newline (JSON "\n") every 80 */
		buf_reset(&text);
		edit(&text, result_error,
		     "'error': 'kernel/sched/fair.c:42:1: error: expected \\u0027;\\u0027\\n\\tmake: *** Error 1'",
		     "'error': 'X'");
		at = strstr(text.data, "\"X\"");
		buf_add(&json, text.data, (size_t)(at - text.data) + 1);
		for (i = 0; i < n; i++)
			buf_adds(&json, i % 80 == 79 ? "\\n" : "e");
		buf_adds(&json, at + 2);
		if (n == REPORT_MAX_ERROR) {
			if (load(json.data, json.len, &r, &err) < 0)
				fail_msg("%s", err.data);
			assert_int_equal(strlen(r->error), REPORT_MAX_ERROR);
			assert_int_equal(r->error[79], '\n');
			report_free(r);
		} else {
			expect_error("long error", json.data, json.len,
				     "in.json: error: is 4097 bytes long; the limit is REPORT_MAX_ERROR (4096 bytes)");
		}
		buf_release(&json);
	}
	/* 1 good + 99999 extra runs: at the limit... */
	buf_reset(&body);
	buf_adds(&body, "'1c3386188ad9': [");
	for (i = 0; i < REPORT_MAX_VALUES - 1; i++)
		buf_addf(&body, "%s%zu", i ? ", " : "", i);
	buf_adds(&body, "]");
	buf_reset(&text);
	edit(&text, result, "'1c3386188ad9': [625000, 625308]", body.data);
	if (load(text.data, text.len, &r, &err) < 0)
		fail_msg("%s", err.data);
	assert_int_equal(r->tests[0].samples[0].extra[1].nr, REPORT_MAX_VALUES - 1);
	report_free(r);
	/* ...and one past it: 1 good + 100000 extra runs */
	buf_reset(&body);
	buf_adds(&body, "'1c3386188ad9': [");
	for (i = 0; i < REPORT_MAX_VALUES; i++)
		buf_addf(&body, "%s%zu", i ? ", " : "", i);
	buf_adds(&body, "]");
	buf_reset(&text);
	edit(&text, result, "'1c3386188ad9': [625000, 625308]", body.data);
	expect_error("many runs", text.data, text.len,
		     "tests[0].samples[\"hackbench.throughput\"]: its runs hold 100001 values together; "
		     "the limit is REPORT_MAX_VALUES (100000)");
	buf_release(&text);
	buf_release(&body);
	buf_release(&err);
}

/* A test result is never coalesced with another comparison. */
static void test_result_not_merged(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT, err = BUF_INIT;
	struct report *into, *more;

	(void)state;
	doc(&a, min);
	edit(&b, result_error, "'commit': '85e511df3cec'", "'commit': 'abcd'");
	assert_int_equal(load(a.data, a.len, &into, &err), 0);
	assert_int_equal(load(b.data, b.len, &more, &err), 0);
	assert_int_equal(report_merge(into, more, &err), -1);
	assert_non_null(strstr(err.data, "a test result (\"request\" 7) is not coalesced"));
	assert_int_equal(into->nr_tests, 1);
	buf_reset(&err);
	assert_int_equal(report_merge(more, into, &err), -1);
	report_free(into);
	report_free(more);
	buf_release(&a);
	buf_release(&b);
	buf_release(&err);
}

/* The result fixtures of tests/t/data/results (run from the top folder)
 * load, each a test result; the error one without rows. */
static void test_result_fixtures_load(void **state)
{
	static const struct { const char *name; size_t nr_extra; int error; size_t rows; } f[] = {
		{ "will-it-scale-poll2-3col.json", 1, 0, 43 },
		{ "hackbench-3col.json", 1, 0, 1 },
		{ "vm-scalability-4col.json", 2, 0, 1 },
		{ "hackbench-error.json", 1, 1, 0 },
	};
	struct buf path = BUF_INIT, err = BUF_INIT;
	struct report *r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		buf_reset(&path);
		buf_addf(&path, "tests/t/data/results/%s", f[i].name);
		if (report_load_file(path.data, &r, &err) < 0)
			fail_msg("%s", err.data);
		assert_int_equal(r->request, 1);
		assert_int_equal(r->nr_extra, f[i].nr_extra);
		assert_int_equal(r->error != NULL, f[i].error);
		assert_int_equal(r->tests[0].nr_metrics, f[i].rows);
		report_free(r);
	}
	buf_release(&path);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_document_loads),
		cmocka_unit_test(optional_keys_and_defaults),
		cmocka_unit_test(params_numbers_as_text),
		cmocka_unit_test(bad_documents),
		cmocka_unit_test(limits),
		cmocka_unit_test(tests_limit),
		cmocka_unit_test(strings_checked_without_json),
		cmocka_unit_test(side_statistics),
		cmocka_unit_test(helpers),
		cmocka_unit_test(load_file_names_the_file),
		cmocka_unit_test(merge_keeps_bases_and_kinds),
		cmocka_unit_test(test_result_loads),
		cmocka_unit_test(test_result_refusals),
		cmocka_unit_test(test_result_limits),
		cmocka_unit_test(test_result_not_merged),
		cmocka_unit_test(test_result_fixtures_load),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
