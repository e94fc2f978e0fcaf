/*
 * result.c's pure parts: the verdict of a result (on the means, with the
 * table's changes in its words), the view's "result" object, and the job
 * file read back for render --request.  The checks against the state and
 * the repository are tests/t/result.sh's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "json.h"
#include "report.h"
#include "result.h"
#include "value.h"

/* A result of one test whose headline has base 100, head h and the
 * tested commit f; change_f: the tested side's "change" (NULL: none). */
static struct report *result_of(const char *metric, double h, double f, const char *change_f)
{
	char text[2048];
	struct value *v = NULL;
	struct report *r = NULL;
	struct buf err = BUF_INIT;

	snprintf(text, sizeof(text),
		 "{\"perfbot\": 1, \"tree\": \"linus/master\", \"commit\": \"bdc753ab0b72\", "
		 "\"base\": \"79110700aa4a\", \"kind\": \"regression\", \"request\": 3, "
		 "\"extra\": [{\"commit\": \"dfcd72e6d090\", \"label\": \"fix patch\"}], "
		 "\"tests\": [{\"testcase\": \"t\", \"headline\": \"%s\", \"tbox_group\": \"g\", "
		 "\"machine\": \"m\", \"kconfig\": \"k\", \"compiler\": \"c\", \"rootfs\": \"r\", "
		 "\"params\": {}, \"metrics\": [{\"name\": \"%s\", \"base\": {\"mean\": 100}, "
		 "\"head\": {\"mean\": %g}, \"extra\": [{\"mean\": %g%s%s}]}]}]}",
		 metric, metric, h, f, change_f ? ", \"change\": " : "", change_f ? change_f : "");
	if (json_parse(text, strlen(text), "in.json", &v, &err) < 0 ||
	    report_from_value(v, "in.json", &r, &err) < 0)
		fail_msg("%s", err.data);
	value_free(v);
	buf_release(&err);
	return r;
}

static void verdicts_and_words(void **state)
{
	static const struct {
		const char *metric;
		double h, f;
		const char *change_f;
		const char *verdict, *words;
	} cases[] = {
		{ "a.throughput", 80, 99.5, NULL, "fixed", "recovered: from -20.0% to -0.5%" },
		{ "a.throughput", 80, 90, NULL, "partial", "partially recovered: from -20.0% to -10.0%" },
		/* the words take the tested side's given change, as the table does */
		{ "a.throughput", 80, 90, "-9.7", "partial", "partially recovered: from -20.0% to -9.7%" },
		{ "a.throughput", 80, 70, NULL, "worse", "worse: from -20.0% to -30.0%" },
		{ "a.throughput", 80, 81, NULL, "not-fixed", "not recovered: still -19.0%" },
		/* perf-profile and "%" metrics are in points */
		{ "perf-profile.self.cycles-pp.x", 80, 99, NULL, "fixed", "recovered: from -20.00 to -1.00" },
	};
	struct config *cfg = config_new_defaults();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report *r = result_of(cases[i].metric, cases[i].h, cases[i].f, cases[i].change_f);
		struct buf words = BUF_INIT;

		if (strcmp(result_verdict(cfg, r, &words), cases[i].verdict))
			fail_msg("case %zu: %s, want %s", i, result_verdict(cfg, r, NULL), cases[i].verdict);
		assert_string_equal(words.data, cases[i].words);
		buf_release(&words);
		report_free(r);
	}
	/* the configured limits decide */
	cfg->test_fixed_ratio = 0.5;
	{
		struct report *r = result_of("a.throughput", 80, 90, NULL);

		assert_string_equal(result_verdict(cfg, r, NULL), "fixed");
		report_free(r);
	}
	config_free(cfg);
}

static const struct value *get(const struct value *o, const char *path)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = value_object_get(o, key);
		assert_non_null(o);
		path = dot + 1;
	}
	o = value_object_get(o, path);
	if (!o)
		fail_msg("no %s in the view", path);
	return o;
}

static void the_view(void **state)
{
	struct config *cfg = config_new_defaults();
	struct report *r = result_of("a.throughput", 80, 99.5, NULL);
	struct commit_info base = { "79110700aa4a9fdb25faba7c7d405bcd46c523ef", "Linux 6.99-rc3", NULL, NULL, NULL, NULL, 0 };
	struct commit_info head = { "bdc753ab0b72ccec0adc50eab018088a779cb1b6", "sched: x", NULL, NULL, NULL, NULL, 0 };
	struct commit_info fix = { "dfcd72e6d090934c575440da83d7d761f101e16f", "sched: fix", NULL, NULL, NULL, NULL, 0 };
	struct result_commits c = { &base, &head, &head, &fix };
	struct result_request q;
	struct value *v;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.number = 3;
	q.message_id = (char *)"req@x.org";
	q.requester_name = (char *)"Peter Zijlstra";
	q.requester_email = (char *)"peterz@example.org";
	q.what = STATE_REQUEST_PATCH;
	q.patch_subject = (char *)"sched: fix";
	v = result_view(cfg, r, &q, &c);
	assert_string_equal(get(v, "verdict")->str, "fixed");
	assert_true(get(v, "fixed")->boolean);
	assert_false(get(v, "partial")->boolean);
	assert_false(get(v, "error")->boolean);
	assert_false(get(v, "followup")->boolean);
	assert_false(get(v, "on_tip")->boolean);
	assert_true(get(v, "patch")->boolean);
	assert_string_equal(get(v, "tested.short")->str, "dfcd72e6d090");
	assert_string_equal(get(v, "tested.label")->str, "fix patch");
	assert_string_equal(get(v, "upon.short")->str, "bdc753ab0b72");
	assert_string_equal(get(v, "requester")->str, "Peter Zijlstra <peterz@example.org>");
	assert_string_equal(get(v, "requester_first")->str, "Peter");
	assert_string_equal(get(v, "tested_by")->str, "perfbot <perfbot@localhost>");
	value_free(v);
	/* no name: the address's local part; a second result */
	q.requester_name = (char *)"";
	q.first_result = (char *)"r1@x.org";
	v = result_view(cfg, r, &q, &c);
	assert_string_equal(get(v, "requester_first")->str, "peterz");
	assert_string_equal(get(v, "requester")->str, "peterz@example.org");
	assert_true(get(v, "followup")->boolean);
	value_free(v);
	report_free(r);
	config_free(cfg);
}

/* Writes text to a new file in dir; returns its path (static). */
static const char *job_file(const char *dir, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/job.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

#define JOB_HEAD "{\"perfbot\": 1, \"request\": 4, \"report\": 1, \"report_message_id\": \"r@x.org\", " \
	"\"request_message_id\": \"q@x.org\", \"requested_by\": {\"name\": \"P Z\", \"email\": \"p@x.org\"}, " \
	"\"base\": \"79110700aa4a9fdb25faba7c7d405bcd46c523ef\", " \
	"\"head\": \"bdc753ab0b72ccec0adc50eab018088a779cb1b6\", \"tests\": [], "

static void job_files(void **state)
{
	static const struct {
		const char *tail;
		int ok;
		const char *why;	/* a part of the message */
	} cases[] = {
		{ "\"request_subject\": \"Re: x\", \"request_references\": \"r@x.org\", "
		  "\"test\": {\"commit\": \"dfcd72e6d090934c575440da83d7d761f101e16f\"}, "
		  "\"what\": \"patch\", \"patch_subject\": \"sched: fix\"}", 1, NULL },
		{ "\"request_subject\": \"Re: x\", \"test\": {\"git\": {\"url\": \"https://g\", \"branch\": \"b\"}}}",
		  1, NULL },
		{ "\"test\": {\"commit\": \"dfcd72e6d090934c575440da83d7d761f101e16f\"}}", 0,
		  "\"request_subject\": missing" },
		{ "\"request_subject\": \"Re: x\\nBcc: y@z\", \"test\": {\"commit\": \"dfcd72e6d090\"}}", 0,
		  "not one line" },
		{ "\"request_subject\": \"Re: x\", \"test\": {}}", 0, "\"commit\": missing" },
		{ "\"request_subject\": \"Re: x\", \"test\": 1}", 0, "must be objects" },
	};
	char dir[] = "/tmp/test-result.XXXXXX";
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048];
		struct result_request q;
		struct buf err = BUF_INIT;
		const char *path;
		int r;

		snprintf(text, sizeof(text), "%s%s", JOB_HEAD, cases[i].tail);
		path = job_file(dir, text);
		r = result_request_from_job(path, &q, &err);
		if (!cases[i].ok) {
			assert_int_equal(r, -1);
			if (!strstr(err.data, cases[i].why))
				fail_msg("case %zu: '%s' lacks '%s'", i, err.data, cases[i].why);
			buf_release(&err);
			continue;
		}
		if (r < 0)
			fail_msg("case %zu: %s", i, err.data);
		assert_int_equal(q.number, 4);
		assert_int_equal(q.state, STATE_REQUEST_TAKEN);
		assert_string_equal(q.subject, "Re: x");
		assert_string_equal(q.requester_name, "P Z");
		if (i == 0) {
			assert_int_equal(q.what, STATE_REQUEST_PATCH);
			assert_string_equal(q.patch_subject, "sched: fix");
			assert_string_equal(q.references, "r@x.org");
			assert_string_equal(q.commit, "dfcd72e6d090934c575440da83d7d761f101e16f");
		} else {
			assert_int_equal(q.what, STATE_REQUEST_GIT);
			assert_null(q.commit);
			assert_null(q.references);
			assert_string_equal(q.branch, "b");
		}
		result_request_release(&q);
		buf_release(&err);
	}
	unlink(job_file(dir, ""));
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts_and_words),
		cmocka_unit_test(the_view),
		cmocka_unit_test(job_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
