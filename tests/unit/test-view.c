#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "report.h"
#include "repo.h"
#include "view.h"
#include "xalloc.h"

/* The demo comparison (config/demo-report.json, two tests, still lines,
 * samples), with commit facts written here; the tests run from the
 * repository's top folder. */
struct fixture {
	struct config *cfg;
	struct report *report;
	struct commit_info head, bases[2];
	enum report_kind kinds[2];
	struct value *view;
};

static void commit_set(struct commit_info *c, const char *id, const char *subject)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", id);
	c->subject = xstrdup(subject);
	c->author_name = xstrdup("Jane Developer");
	c->author_email = xstrdup("jane@example.org");
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;
	struct view_facts facts;

	f->cfg = config_new_defaults();
	free(f->cfg->from);
	f->cfg->from = xstrdup("Example Lab CI <ci@lab.example.org>");
	if (!f->cfg->reported_by)	/* config_load() sets it from perfbot.from */
		f->cfg->reported_by = xstrdup(f->cfg->from);
	free(f->cfg->artifacts_url);
	f->cfg->artifacts_url = xstrdup("https://lab.example.org/%D/%M/100%%");
	if (report_load_file("config/demo-report.json", &f->report, &err) < 0)
		fail_msg("%s", err.data);
	commit_set(&f->head, "f8e0cee144d7f775b03f861dcf905aa0273ab20d", "mm: zero huge pages faster");
	commit_set(&f->bases[0], "0123456789abcdef0123456789abcdef01234567", "Linux 6.99-rc1");
	commit_set(&f->bases[1], "0123456789abcdef0123456789abcdef01234567", "Linux 6.99-rc1");
	f->kinds[0] = REPORT_KIND_REGRESSION;
	f->kinds[1] = REPORT_KIND_REGRESSION;
	memset(&facts, 0, sizeof(facts));
	facts.cfg = f->cfg;
	facts.report = f->report;
	facts.head = &f->head;
	facts.bases = f->bases;
	facts.kinds = f->kinds;
	facts.message_id = "202611300930.abcdef12-demo@lab.example.org";
	facts.date_stamp = "202611300930";
	facts.repo_url = "https://git.example.org/linux.git";
	facts.subject = "[linus:master] [mm]  f8e0cee144: vm-scalability.throughput 3.9% regression";
	if (view_build(&facts, &f->view, &err) < 0)
		fail_msg("%s", err.data);
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	value_free(f->view);
	commit_info_release(&f->head);
	commit_info_release(&f->bases[0]);
	commit_info_release(&f->bases[1]);
	report_free(f->report);
	config_free(f->cfg);
	free(f);
	return 0;
}

static const char *str(const struct value *o, const char *key)
{
	const struct value *v = value_object_get(o, key);

	if (!v || v->kind != VALUE_STRING)
		fail_msg("'%s' is not a string in the view", key);
	return v->str;
}

static void values(void **state)
{
	struct fixture *f = *state;
	const struct value *v = f->view, *still, *test, *further;

	assert_string_equal(str(v, "percent"), "3.9");
	assert_string_equal(str(v, "signed_percent"), "-3.9");
	assert_string_equal(str(v, "kind"), "regression");
	assert_true(value_object_get(v, "regression")->boolean);
	assert_false(value_object_get(v, "improvement")->boolean);
	assert_string_equal(str(v, "headline"), "vm-scalability.throughput");
	assert_string_equal(str(v, "closes"),
			    "https://lore.kernel.org/all/202611300930.abcdef12-demo@lab.example.org");
	/* %D is the Message-ID's date, %M the Message-ID, %% a per cent sign */
	assert_string_equal(str(v, "artifacts"),
			    "https://lab.example.org/20261130/202611300930.abcdef12-demo@lab.example.org/100%");
	/* the signature defaults to the display name of perfbot.from */
	assert_string_equal(str(v, "signature"), "Example Lab CI");
	assert_int_equal(value_object_get(v, "parent")->kind, VALUE_BOOL);
	assert_string_equal(str(value_object_get(v, "commit"), "short"), "f8e0cee144");
	assert_int_equal(value_object_get(value_object_get(v, "commit"), "tag")->kind, VALUE_BOOL);

	/* still: "on" padded to the longest */
	still = value_object_get(v, "still");
	assert_int_equal(still->nr, 2);
	assert_string_equal(str(still->items[0], "on_padded"), "linus/master     ");
	assert_string_equal(str(still->items[1], "on_padded"), "linux-next/master");
	assert_true(value_object_get(v, "has_still")->boolean);

	/* the first test is "test", the others "further"; two tests make a box */
	test = value_object_get(v, "test");
	assert_true(value_object_get(test, "first")->boolean);
	assert_string_equal(str(test, "testcase"), "vm-scalability");
	further = value_object_get(v, "further");
	assert_int_equal(further->nr, 1);
	assert_false(value_object_get(further->items[0], "first")->boolean);
	assert_string_equal(str(further->items[0], "testcase"), "will-it-scale");
	assert_int_equal(value_object_get(v, "addition")->kind, VALUE_OBJECT);
	assert_non_null(strstr(str(value_object_get(v, "addition"), "box"), "will-it-scale"));
	/* params in job order */
	assert_string_equal(str(value_object_get(test, "params")->items[0], "key"), "runtime");
	assert_string_equal(str(value_object_get(test, "params")->items[3], "key"), "cpufreq_governor");
	/* the first test has samples: one plot; the second none */
	assert_true(value_object_get(v, "plots")->boolean);
	assert_int_equal(value_object_get(test, "plots")->nr, 1);
	assert_false(value_object_get(further->items[0], "has_plots")->boolean);
}

/*
 * The template contract: every name templates/README lists is in the view
 * (at the top, or in each test), so the documentation cannot promise a name
 * a template would then find missing.
 */
static void readme_names_exist(void **state)
{
	struct fixture *f = *state;
	const struct value *test = value_object_get(f->view, "test");
	FILE *in = fopen("templates/README", "r");
	char line[512];
	int part = 0, checked = 0;

	assert_non_null(in);
	while (fgets(line, sizeof(line), in)) {
		char *p, *save;

		if (strstr(line, "The view: the names a report template can use"))
			part = 1;
		else if (!strncmp(line, "A test (test, and each of further):", 35))
			part = 2;
		else if (!strncmp(line, "The view of ", 12))
			break;	/* the notice's and the digest's: test-digest.c's */
		if (!part || strncmp(line, "  ", 2) || line[2] == ' ')
			continue;
		/* "  name, name   what it is": the names before the run of spaces */
		p = strstr(line + 2, "  ");
		if (p)
			*p = '\0';
		for (p = strtok_r(line + 2, ", \n", &save); p; p = strtok_r(NULL, ", \n", &save)) {
			const struct value *where = part == 1 ? f->view : test;

			if (!value_object_get(where, p))
				fail_msg("templates/README lists '%s'%s, which the view does not have", p,
					 part == 2 ? " (in a test)" : "");
			checked++;
		}
	}
	fclose(in);
	assert_true(checked > 40);
}

static void expand_url(void **state)
{
	static const struct {
		const char *pattern, *want;
	} cases[] = {
		{ "https://x/%D/%M", "https://x/20261130/id@x" },
		{ "%%D is %D", "%D is 20261130" },
		{ "no marks", "no marks" },
		{ "a lone % at the end %", "a lone % at the end %" },
		{ "%X stays", "%X stays" },
		{ "", "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT;

		view_expand_url(&out, cases[i].pattern, "id@x", "202611300930");
		assert_string_equal(out.data, cases[i].want);
		buf_release(&out);
	}
}

/* A test result's view: request, error, the extra commits (label, last),
 * the commit tested, and a section with every column. */
static void result_view_names_the_columns(void **state)
{
	struct config *cfg = config_new_defaults();
	struct report *r;
	struct commit_info head, base, extras[2];
	enum report_kind kind = REPORT_KIND_REGRESSION;
	struct view_facts facts;
	struct value *v;
	const struct value *extra, *section;
	struct buf err = BUF_INIT;

	(void)state;
	free(cfg->from);
	cfg->from = xstrdup("Example Lab CI <ci@lab.example.org>");
	if (!cfg->reported_by)
		cfg->reported_by = xstrdup(cfg->from);
	if (report_load_file("tests/t/data/results/vm-scalability-4col.json", &r, &err) < 0)
		fail_msg("%s", err.data);
	commit_set(&head, "c2f6ea38fc1b640aa7a2e155cc1e0dc3b1bcb2bb", "mm: page_alloc: don't steal single pages from biggest buddy");
	commit_set(&base, "f3b92176f4f7100f6b4a61d6b1cbd1f1a2c5c71c", "tools/selftests: add guard region test for /proc/$pid/pagemap");
	commit_set(&extras[0], "acc4d5ff0b61eb1715c498b6536fe2d9a3b1c0de", "Merge tag 'net-6.15-rc0'");
	commit_set(&extras[1], "2c847f27c37da65a93d23c237c5f11d2a6e1b0aa", "mm: page_alloc: speed up fallbacks in rmqueue_bulk()");
	memset(&facts, 0, sizeof(facts));
	facts.cfg = cfg;
	facts.report = r;
	facts.head = &head;
	facts.bases = &base;
	facts.extras = extras;
	facts.kinds = &kind;
	facts.message_id = "x@y";
	facts.date_stamp = "202612020000";
	facts.repo_url = "https://git.example.org/linux.git";
	facts.subject = "Re: x";
	if (view_build(&facts, &v, &err) < 0)
		fail_msg("%s", err.data);
	assert_int_equal(value_object_get(v, "request")->number, 1);
	assert_int_equal(value_object_get(v, "error")->kind, VALUE_BOOL);
	extra = value_object_get(v, "extra");
	assert_int_equal(extra->nr, 2);
	assert_string_equal(str(extra->items[0], "short"), "acc4d5ff0b");
	assert_string_equal(str(extra->items[0], "label"), "tip");
	assert_false(value_object_get(extra->items[0], "last")->boolean);
	assert_string_equal(str(extra->items[1], "label"), "your patch");
	assert_string_equal(str(extra->items[1], "subject"), "mm: page_alloc: speed up fallbacks in rmqueue_bulk()");
	assert_true(value_object_get(extra->items[1], "last")->boolean);
	assert_string_equal(str(value_object_get(v, "tested"), "id"), extras[1].id);
	section = value_object_get(value_object_get(v, "test"), "section");
	assert_non_null(strstr(section->str, "  2c847f27c3 (\"mm: page_alloc: speed up fallbacks in rmqueue_bulk()\")   <--- your patch\n"));
	assert_non_null(strstr(section->str,
		"f3b92176f4f7100f c2f6ea38fc1b640aa7a2e155cc1 acc4d5ff0b61eb1715c498b6536 2c847f27c37da65a93d23c237c5 \n"));
	assert_non_null(strstr(section->str, "     -56.4%   11135467           -57.8%   10779336           +31.6%   33581409        vm-scalability.throughput"));
	assert_string_equal(str(v, "percent"), "56.4");
	value_free(v);
	report_free(r);

	/* an error result: no rows, the error text, percents empty */
	if (report_load_file("tests/fuzz/seeds-json/result-error.json", &r, &err) < 0)
		fail_msg("%s", err.data);
	facts.report = r;
	if (view_build(&facts, &v, &err) < 0)
		fail_msg("%s", err.data);
	assert_int_equal(value_object_get(v, "request")->number, 7);
	assert_non_null(strstr(str(v, "error"), "\n\tmake: *** [Makefile:1] Error 1"));
	assert_string_equal(str(v, "percent"), "");
	assert_int_equal(value_object_get(v, "extra")->nr, 1);
	assert_null(strstr(str(value_object_get(v, "test"), "section"), "hackbench.throughput"));
	value_free(v);
	report_free(r);
	commit_info_release(&head);
	commit_info_release(&base);
	commit_info_release(&extras[0]);
	commit_info_release(&extras[1]);
	config_free(cfg);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(values, setup, teardown),
		cmocka_unit_test_setup_teardown(readme_names_exist, setup, teardown),
		cmocka_unit_test(expand_url),
		cmocka_unit_test(result_view_names_the_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
