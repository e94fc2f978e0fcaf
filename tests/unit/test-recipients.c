/*
 * bot/recipients: who gets a report and why (cmocka, table-driven).
 * Each case gives the configuration, the head commit's trailers, a
 * MAINTAINERS selection and the stored exclusions, and wants the whole
 * answer in one line: To, each Cc, each candidate left out, with reasons.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "recipients.h"
#include "repo.h"
#include "xalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A head commit by Jane Doe with the given trailers (key, value, person). */
static void head_init(struct commit_info *h, const char *const (*t)[3], size_t n)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	strcpy(h->id, "0123456789abcdef0123456789abcdef01234567");
	h->subject = xstrdup("mm: a change");
	h->author_name = xstrdup("Jane Doe");
	h->author_email = xstrdup("jane@example.org");
	h->trailers = xcalloc(n ? n : 1, sizeof(*h->trailers));
	for (i = 0; i < n; i++) {
		h->trailers[i].key = xstrdup(t[i][0]);
		h->trailers[i].value = xstrdup(t[i][1]);
		h->trailers[i].person = t[i][2] ? xstrdup(t[i][2]) : NULL;
	}
	h->nr_trailers = n;
}

static void list_set(struct config_list *l, const char *const *v)
{
	size_t i;

	for (i = 0; v && v[i]; i++) {
		l->v = xrealloc(l->v, (l->nr + 1) * sizeof(*l->v));
		l->v[l->nr++] = xstrdup(v[i]);
	}
}

/* "To a [r1, r2] | Cc b [r] ... | Not c [r] (why) ..." */
static char *line(const struct recipients *r)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_addf(&b, "To %s [", r->to.email);
	recipient_why_format(&b, &r->to_why);
	buf_adds(&b, "]");
	for (i = 0; i < r->nr_cc; i++) {
		buf_addf(&b, " | Cc %s [", r->cc[i].email);
		recipient_why_format(&b, &r->cc_why[i]);
		buf_adds(&b, "]");
	}
	for (i = 0; i < r->nr_dropped; i++) {
		buf_addf(&b, " | Not %s [", r->dropped[i].addr.email);
		recipient_why_format(&b, &r->dropped[i].why);
		buf_addf(&b, "] (%s)", r->dropped[i].because);
	}
	return buf_detach(&b, NULL);
}

static const char *const people[][3] = {
	{ "Signed-off-by", "Jane Doe <jane@example.org>", "Jane Doe <jane@example.org>" },
	{ "Acked-by", "Ann <ann@example.org>", "Ann <ann@example.org>" },
	{ "Link", "https://lore.kernel.org/r/x@y", NULL },
	{ "Reviewed-by", "Bob <bob@example.org> # v6.1+", "Bob <bob@example.org>" },
	{ "cc", "stable@vger.kernel.org # 6.1.x", NULL },
	{ "Tested-by", "LISTS@EXAMPLE.ORG", NULL },
	{ "Reported-by", "not an address", NULL },
	{ "Signed-off-by", "Ann Again <ANN@example.org>", "Ann Again <ANN@example.org>" },
};

static const char *const one_sob[][3] = {
	{ "Signed-off-by", "Jane Doe <jane@example.org>", "Jane Doe <jane@example.org>" },
};

static const struct maintainers_section cgroup = { "CONTROL GROUP (CGROUP)", "Maintained", 10, 0 };
static const struct maintainers_section mm = { "MEMORY MANAGEMENT", "Maintained", 20, 0 };
static const struct maintainers_section rest = { "THE REST", "Buried alive in reporters", 30, 1 };

/* A selection as bot/maintainers.h gives it: people first, then lists. */
static const struct maintainers_entry route_entries[] = {
	{ MAINTAINERS_MAINTAINER, (char *)"Tejun Heo", (char *)"tj@kernel.org", 0, &cgroup },
	{ MAINTAINERS_MAINTAINER, (char *)"Ann", (char *)"ann@example.org", 0, &mm },
	{ MAINTAINERS_REVIEWER, (char *)"Rita Reviewer", (char *)"rita@example.org", 0, &mm },
	{ MAINTAINERS_MAINTAINER, (char *)"", (char *)"x86@kernel.org", 0, &mm },
	{ MAINTAINERS_LIST, (char *)"", (char *)"cgroups@vger.kernel.org", 0, &cgroup },
	{ MAINTAINERS_LIST, (char *)"", (char *)"linux-mm@kvack.org", 0, &mm },
	{ MAINTAINERS_LIST, (char *)"", (char *)"lists@example.org", 0, &mm },
	{ MAINTAINERS_LIST, (char *)"", (char *)"linux-kernel@vger.kernel.org", 0, &rest },
	{ MAINTAINERS_LIST, (char *)"", (char *)"not an address", 0, &mm },
};

static const struct recipients_exclusion stored[] = {
	/* 2026-11-30 10:00 UTC */
	{ "LINUX-MM@kvack.org", "Mm Admin <linux-mm@kvack.org>", 1796032800 },
	{ "bob@example.org", "Bob <bob@example.org>", 1796032800 },
};

static const struct recipients_case {
	const char *name;
	const char *cc[4];		/* perfbot.cc */
	const char *tree_cc[3];		/* tree.linus.cc */
	int max;			/* perfbot.maxRecipients; 0: the default */
	int no_trailers;		/* perfbot.ccTrailers false */
	int route;			/* use route_entries */
	int lists, maintainers, reviewers;	/* route.* */
	const char *exclude[4];		/* route.exclude, as config.c keeps them */
	int stored;			/* use the stored exclusions */
	int one_trailer;		/* the head's trailers: one_sob, not people */
	const char *want;		/* line(), or the error's start */
	int fails;
} cases[] = {
	{ "configured lists first, then trailer people in trailer order; duplicates once",
	  { "lists@example.org", "Other List <other@example.org>, jane@EXAMPLE.org" }, { NULL }, 0, 0,
	  0, 1, 0, 0, { NULL }, 0, 0,
	  "To jane@example.org [author, perfbot.cc, Signed-off-by] | Cc lists@example.org [perfbot.cc, Tested-by]"
	  " | Cc other@example.org [perfbot.cc] | Cc ann@example.org [Acked-by, Signed-off-by]"
	  " | Cc bob@example.org [Reviewed-by] | Cc stable@vger.kernel.org [cc]", 0 },
	{ "no trailers: the author alone",
	  { NULL }, { NULL }, 0, 1, 0, 1, 0, 0, { NULL }, 0, 0,
	  "To jane@example.org [author]", 0 },
	{ "the tree's cc after perfbot.cc",
	  { "oe-lkp@lists.linux.dev" }, { "linux-kernel@vger.kernel.org" }, 0, 1, 0, 1, 0, 0, { NULL }, 0, 0,
	  "To jane@example.org [author] | Cc oe-lkp@lists.linux.dev [perfbot.cc]"
	  " | Cc linux-kernel@vger.kernel.org [tree linus cc]", 0 },
	{ "MAINTAINERS lists after the trailer people; lists only by default; THE REST's list merges with the tree's",
	  { "oe-lkp@lists.linux.dev" }, { "linux-kernel@vger.kernel.org" }, 0, 0, 1, 1, 0, 0, { NULL }, 0, 1,
	  "To jane@example.org [author, Signed-off-by] | Cc oe-lkp@lists.linux.dev [perfbot.cc]"
	  " | Cc linux-kernel@vger.kernel.org [tree linus cc, list: THE REST]"
	  " | Cc cgroups@vger.kernel.org [list: CONTROL GROUP (CGROUP)] | Cc linux-mm@kvack.org [list: MEMORY MANAGEMENT]"
	  " | Cc lists@example.org [list: MEMORY MANAGEMENT]", 0 },
	{ "maintainers and reviewers when asked, after the lists; a trailer person keeps its place",
	  { NULL }, { NULL }, 0, 0, 1, 1, 1, 1, { NULL }, 0, 0,
	  "To jane@example.org [author, Signed-off-by] | Cc ann@example.org [Acked-by, Signed-off-by, maintainer: MEMORY MANAGEMENT]"
	  " | Cc bob@example.org [Reviewed-by] | Cc stable@vger.kernel.org [cc]"
	  " | Cc LISTS@EXAMPLE.ORG [Tested-by, list: MEMORY MANAGEMENT]"
	  " | Cc cgroups@vger.kernel.org [list: CONTROL GROUP (CGROUP)] | Cc linux-mm@kvack.org [list: MEMORY MANAGEMENT]"
	  " | Cc linux-kernel@vger.kernel.org [list: THE REST] | Cc tj@kernel.org [maintainer: CONTROL GROUP (CGROUP)]"
	  " | Cc rita@example.org [reviewer: MEMORY MANAGEMENT] | Cc x86@kernel.org [maintainer: MEMORY MANAGEMENT]", 0 },
	{ "route.lists false: no MAINTAINERS list",
	  { NULL }, { NULL }, 0, 1, 1, 0, 1, 0, { NULL }, 0, 0,
	  "To jane@example.org [author] | Cc tj@kernel.org [maintainer: CONTROL GROUP (CGROUP)]"
	  " | Cc ann@example.org [maintainer: MEMORY MANAGEMENT] | Cc x86@kernel.org [maintainer: MEMORY MANAGEMENT]", 0 },
	{ "route.exclude: an address and a domain, To or Cc",
	  { "oe-lkp@lists.linux.dev" }, { NULL }, 0, 1, 1, 1, 1, 0, { "tj@kernel.org", "*@kvack.org" }, 0, 0,
	  "To jane@example.org [author] | Cc oe-lkp@lists.linux.dev [perfbot.cc]"
	  " | Cc cgroups@vger.kernel.org [list: CONTROL GROUP (CGROUP)] | Cc lists@example.org [list: MEMORY MANAGEMENT]"
	  " | Cc linux-kernel@vger.kernel.org [list: THE REST] | Cc ann@example.org [maintainer: MEMORY MANAGEMENT]"
	  " | Cc x86@kernel.org [maintainer: MEMORY MANAGEMENT]"
	  " | Not linux-mm@kvack.org [list: MEMORY MANAGEMENT] (excluded by route.exclude)"
	  " | Not tj@kernel.org [maintainer: CONTROL GROUP (CGROUP)] (excluded by route.exclude)", 0 },
	{ "the author excluded: the first list left becomes To",
	  { "oe-lkp@lists.linux.dev" }, { NULL }, 0, 0, 0, 1, 0, 0, { "jane@example.org" }, 0, 1,
	  "To oe-lkp@lists.linux.dev [perfbot.cc]"
	  " | Not jane@example.org [author, Signed-off-by] (excluded by route.exclude)", 0 },
	{ "stored exclusions (#perfbot unsubscribe), compared ignoring case, with who and when",
	  { NULL }, { NULL }, 0, 0, 1, 1, 0, 0, { NULL }, 1, 0,
	  "To jane@example.org [author, Signed-off-by] | Cc ann@example.org [Acked-by, Signed-off-by]"
	  " | Cc stable@vger.kernel.org [cc] | Cc LISTS@EXAMPLE.ORG [Tested-by, list: MEMORY MANAGEMENT]"
	  " | Cc cgroups@vger.kernel.org [list: CONTROL GROUP (CGROUP)] | Cc linux-kernel@vger.kernel.org [list: THE REST]"
	  " | Not bob@example.org [Reviewed-by] (unsubscribed 2026-11-30 by Bob <bob@example.org>)"
	  " | Not linux-mm@kvack.org [list: MEMORY MANAGEMENT] (unsubscribed 2026-11-30 by Mm Admin <linux-mm@kvack.org>)", 0 },
	{ "maxRecipients drops people, latest first, before any list",
	  { "oe-lkp@lists.linux.dev" }, { NULL }, 5, 0, 1, 1, 1, 1, { NULL }, 0, 0,
	  "To jane@example.org [author, Signed-off-by] | Cc oe-lkp@lists.linux.dev [perfbot.cc]"
	  " | Cc LISTS@EXAMPLE.ORG [Tested-by, list: MEMORY MANAGEMENT]"
	  " | Cc cgroups@vger.kernel.org [list: CONTROL GROUP (CGROUP)] | Cc linux-mm@kvack.org [list: MEMORY MANAGEMENT]"
	  " | Not ann@example.org [Acked-by, Signed-off-by, maintainer: MEMORY MANAGEMENT] (maxRecipients (5))"
	  " | Not bob@example.org [Reviewed-by] (maxRecipients (5))"
	  " | Not stable@vger.kernel.org [cc] (maxRecipients (5))"
	  " | Not linux-kernel@vger.kernel.org [list: THE REST] (maxRecipients (5))"
	  " | Not tj@kernel.org [maintainer: CONTROL GROUP (CGROUP)] (maxRecipients (5))"
	  " | Not rita@example.org [reviewer: MEMORY MANAGEMENT] (maxRecipients (5))"
	  " | Not x86@kernel.org [maintainer: MEMORY MANAGEMENT] (maxRecipients (5))", 0 },
	{ "maxRecipients 1: the author alone",
	  { "oe-lkp@lists.linux.dev" }, { NULL }, 1, 1, 0, 1, 0, 0, { NULL }, 0, 0,
	  "To jane@example.org [author] | Not oe-lkp@lists.linux.dev [perfbot.cc] (maxRecipients (1))", 0 },
	{ "nobody left is an error",
	  { NULL }, { NULL }, 0, 1, 0, 1, 0, 0, { "*@example.org" }, 0, 0,
	  "commit 0123456789ab: no recipient is left", 1 },
	{ "a bad configured address is an error naming the key",
	  { "ok@example.org", "not an address" }, { NULL }, 0, 1, 0, 1, 0, 0, { NULL }, 0, 0,
	  "perfbot.cc: ", 1 },
};

static void check_case(const struct recipients_case *k)
{
	struct config *c = config_new_defaults();
	struct config_tree *t;
	struct maintainers_selection sel;
	struct recipients_input in;
	struct commit_info h;
	struct recipients r;
	struct buf notes = BUF_INIT, err = BUF_INIT;
	int e;

	list_set(&c->cc, k->cc);
	c->trees = xcalloc(1, sizeof(*c->trees));
	c->nr_trees = 1;
	t = &c->trees[0];
	t->name = xstrdup("linus");
	list_set(&t->cc, k->tree_cc);
	if (k->max)
		c->max_recipients = k->max;
	c->cc_trailers = !k->no_trailers;
	c->route_lists = k->lists;
	c->route_maintainers = k->maintainers;
	c->route_reviewers = k->reviewers;
	list_set(&c->route_exclude, k->exclude);
	if (k->one_trailer)
		head_init(&h, one_sob, N(one_sob));
	else
		head_init(&h, people, N(people));
	memset(&sel, 0, sizeof(sel));
	sel.entries = (struct maintainers_entry *)route_entries;
	sel.nr_entries = N(route_entries);
	memset(&in, 0, sizeof(in));
	in.cfg = c;
	in.tree_name = "linus";
	in.head = &h;
	in.route = k->route ? &sel : NULL;
	in.excluded = k->stored ? stored : NULL;
	in.nr_excluded = k->stored ? N(stored) : 0;
	e = recipients_build(&in, &r, &notes, &err);
	if (k->fails) {
		if (e != -1 || strncmp(err.data, k->want, strlen(k->want)))
			fail_msg("%s: got %d [%s], want an error [%s...]", k->name, e, err.data, k->want);
		assert_int_equal(r.nr_cc, 0);
	} else {
		char *got;

		if (e != 0)
			fail_msg("%s: failed: %s", k->name, err.data);
		got = line(&r);
		if (strcmp(got, k->want))
			fail_msg("%s:\n got  %s\n want %s", k->name, got, k->want);
		free(got);
		/* an unusable trailer or MAINTAINERS address is a note, not an error */
		if (!k->no_trailers && !k->one_trailer && !strstr(notes.data, "Reported-by trailer skipped"))
			fail_msg("%s: no note for the unusable trailer: [%s]", k->name, notes.data);
		if (k->route && k->lists && !strstr(notes.data, "list not an address of MEMORY MANAGEMENT skipped"))
			fail_msg("%s: no note for the unusable list: [%s]", k->name, notes.data);
	}
	recipients_release(&r);
	commit_info_release(&h);
	config_free(c);
	buf_release(&notes);
	buf_release(&err);
}

static void recipients_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		check_case(&cases[i]);
}

static void bad_author(void **state)
{
	struct config *c = config_new_defaults();
	struct recipients_input in;
	struct commit_info h;
	struct recipients r;
	struct buf err = BUF_INIT;

	(void)state;
	head_init(&h, NULL, 0);
	free(h.author_email);
	h.author_email = xstrdup("jane@");
	memset(&in, 0, sizeof(in));
	in.cfg = c;
	in.tree_name = "linus";
	in.head = &h;
	assert_int_equal(recipients_build(&in, &r, NULL, &err), -1);
	assert_non_null(strstr(err.data, "the author of commit 0123456789ab: "));
	recipients_release(&r);
	commit_info_release(&h);
	config_free(c);
	buf_release(&err);
}

static void excluded_patterns(void **state)
{
	struct config *c = config_new_defaults();
	static const char *const x[] = { "jane@example.org", "*@kvack.org", NULL };

	(void)state;
	list_set(&c->route_exclude, x);
	assert_true(recipients_excluded(c, "Jane@Example.org"));
	assert_true(recipients_excluded(c, "linux-mm@KVACK.org"));
	assert_false(recipients_excluded(c, "linux-mm@kvack.org.evil.com"));
	assert_false(recipients_excluded(c, "jane@example.org.uk"));
	assert_false(recipients_excluded(c, "john@example.org"));
	config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recipients_cases),
		cmocka_unit_test(bad_author),
		cmocka_unit_test(excluded_patterns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
