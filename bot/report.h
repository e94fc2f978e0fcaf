#ifndef PERFBOT_REPORT_H
#define PERFBOT_REPORT_H

/*
 * struct report: a comparison JSON (perfbot-json(5),
 * version 1), fully validated.  Code after report_from_value() trusts it:
 *   - every string is valid UTF-8 without C0 or C1 control characters or
 *     DEL (TAB only in param values), at most REPORT_MAX_STRING bytes, and
 *     not empty unless it is a param value, so it may go onto one line of
 *     a mail;
 *   - every required key was present and no unknown key (other than
 *     "x-..." keys, which are ignored) was;
 *   - each metric side has a mean, and has_stddev tells whether a
 *     standard deviation (as a percentage of the mean) is known;
 *   - each test's headline names one of its metrics (headline_index);
 *   - commit, base, still[].commit and extra[].commit are well-formed ids
 *     or tag names (whether they exist is the repository's business, see
 *     repo.h);
 *   - a test result (request > 0) has 1 to REPORT_MAX_EXTRA extra commits,
 *     distinct, none of them "good" or "bad" (the samples' own keys), and a
 *     comparison that is no test result has none;
 *   - every metric and failure row of a report with extras has exactly
 *     nr_extra extra sides (else their extra is NULL);
 *   - error != NULL (a test result whose kernel did not build or boot):
 *     then every test has nr_metrics == nr_failures == nr_samples == 0,
 *     metrics/failures/samples are NULL and headline_index means nothing;
 *     its testcase, headline (free text then, naming no row), tbox_group,
 *     machine, kconfig, compiler, rootfs and params are as checked as ever.
 *     Code that reads metrics[headline_index], a row or a change must
 *     test r->error first (report_has_numbers()).
 *
 * Ownership: report_free() frees everything, including all strings.
 */

#include <stddef.h>

#include "buf.h"
#include "value.h"

/* Limits on untrusted input; passing one is an error naming it. */
#define REPORT_MAX_STRING 1024		/* bytes in any one string */
#define REPORT_MAX_TESTS 64
#define REPORT_MAX_METRICS 20000	/* rows in one test */
#define REPORT_MAX_FAILURES 20000	/* failure rows in one test */
#define REPORT_MAX_VALUES 100000	/* per-run values on one side; good and bad
					   samples of one metric together */
#define REPORT_MAX_PARAMS 256
#define REPORT_MAX_STILL 32
#define REPORT_MAX_EXTRA 8		/* extra commits of a test result */
#define REPORT_MAX_ERROR 4096		/* bytes of a test result's "error" */

enum report_kind {
	REPORT_KIND_UNSET = 0,		/* not given: derived from polarity later */
	REPORT_KIND_REGRESSION,
	REPORT_KIND_IMPROVEMENT,
};

struct report_side {
	double mean;		/* given, or computed from values; finite */
	int has_stddev;		/* stddev_percent is known: given, or computed
				   from more than one value with mean != 0 */
	double stddev_percent;	/* population stddev / |mean| * 100 */
	double *values;		/* the per-run values when given (at least
				   one); else NULL */
	size_t nr_values;
};

/* A test result's extra column in one metric row: its side and its own
 * "change" against base, when given (as a row's change is the head's). */
struct report_extra_side {
	struct report_side side;
	int has_change;
	double change;
};

struct report_metric {
	char *name;		/* unique within the test */
	struct report_side base, head;
	int has_change;		/* "change" was given in the JSON */
	double change;		/* the given change (percent or points) */
	struct report_extra_side *extra;	/* r->nr_extra of them, in the
						   order of r->extra; NULL when
						   nr_extra == 0 */
};

struct report_fail_count {
	long fails, runs;	/* 0 <= fails <= runs, runs >= 1 */
};

struct report_failure {
	char *name;		/* unique within the test */
	long base_fails, base_runs;	/* 0 <= fails <= runs, runs >= 1 */
	long head_fails, head_runs;
	struct report_fail_count *extra;	/* as report_metric's extra */
};

struct report_param {
	char *key;
	char *value;		/* strings as given; numbers and booleans as text */
};

struct report_samples {
	char *metric;		/* names one of the test's metrics */
	double *good;		/* base runs */
	size_t nr_good;
	double *bad;		/* head runs */
	size_t nr_bad;
	struct report_sample_runs {
		double *values;	/* NULL (nr 0) when not given */
		size_t nr;
	} *extra;		/* the runs of r->extra[i], keyed by its commit
				   as given; r->nr_extra entries, NULL when
				   nr_extra == 0 */
};

struct report_test {
	char *testcase;
	char *headline;
	size_t headline_index;	/* metrics[headline_index].name == headline */
	char *tbox_group;
	char *machine;
	char *kconfig;
	char *compiler;
	char *rootfs;
	struct report_param *params;	/* in job (JSON) order */
	size_t nr_params;
	char *base;		/* this test's base, or NULL for the report's */
	enum report_kind kind;
	/* Extensions of format version 1, for the legacy template: */
	char *description;	/* optional "test_description", or NULL */
	char *url;		/* optional "test_url" (no spaces), or NULL */
	struct report_failure *failures;
	size_t nr_failures;
	struct report_metric *metrics;	/* in the order given */
	size_t nr_metrics;
	struct report_samples *samples;	/* in JSON order */
	size_t nr_samples;
};

struct report_still {
	char *label;
	char *on;
	char *commit;
};

/* A test result's commit compared after "commit" (the last one is the
 * commit that was tested). */
struct report_extra {
	char *commit;		/* as given, as commit is */
	char *label;		/* NULL when absent */
};

struct report {
	char *name;		/* the file name it was read from, for messages */
	char *tree;		/* "NAME/BRANCH" */
	char *repo_url;		/* NULL: use the configuration's tree.NAME.url */
	char *branch;		/* given, or the part of tree after '/' */
	char *commit;		/* as given: hex id (4-40 digits) or tag name */
	char *base;
	enum report_kind kind;
	struct report_still *still;
	size_t nr_still;
	struct report_test *tests;	/* at least one */
	size_t nr_tests;
	/* A test result (perfbot-json(5), "Test results"); all 0/NULL for a
	 * report: */
	long request;		/* the request it answers (>= 1), or 0 */
	struct report_extra *extra;	/* nr_extra >= 1 exactly when request > 0 */
	size_t nr_extra;
	char *error;		/* NULL, or why the tested kernel has no numbers:
				   valid UTF-8, not empty, at most
				   REPORT_MAX_ERROR bytes, newlines and TAB
				   allowed, no other control character */
};

/*
 * Validates v (untrusted) and builds a report.  `name` is used in messages.
 * -1 with "NAME: JSON.PATH: what is wrong" in err on the first violation
 * (the path is "(top level)" for the root itself; keys other than
 * [A-Za-z0-9_-]+, such as metric names in samples, appear as ["key"]);
 * *out is then NULL.
 * On success the caller frees *out with report_free().
 */
int report_from_value(const struct value *v, const char *name,
		      struct report **out, struct buf *err);

/* json_parse_file() then report_from_value(), with path as the name
 * ("-" reads stdin).  Syntax errors say PATH:LINE:COL. */
int report_load_file(const char *path, struct report **out, struct buf *err);

void report_free(struct report *r);

/*
 * Coalescing: appends the tests of `more` (a comparison of the same head
 * commit) to `into`, taking them over, and frees `more`.  Each moved test
 * keeps the base and kind its own file gave it.  -1 (nothing changed,
 * `more` not freed) when the result would pass REPORT_MAX_TESTS.
 */
int report_merge(struct report *into, struct report *more, struct buf *err);

/* Whether r's tests have rows (metrics, headline_index): every report, and
 * every test result but an "error" one. */
int report_has_numbers(const struct report *r);

/* The tree's name (before '/'), copied into out. */
void report_tree_name(const struct report *r, struct buf *out);

/* The test's base: its own, else the report's. */
const char *report_test_base(const struct report *r, const struct report_test *t);

/* "regression" / "improvement" / NULL for REPORT_KIND_UNSET. */
const char *report_kind_name(enum report_kind k);

#endif
