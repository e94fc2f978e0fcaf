/*
 * bot/digest.h and bot/notice.h: which reports a digest lists ("since the
 * previous digest", table-driven), and the two mails perfbot writes
 * beside reports, rendered with the shipped templates: their headers
 * (threading, recipients, Subject) and what the body says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "config.h"
#include "digest.h"
#include "notice.h"
#include "render.h"
#include "state.h"
#include "value.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define T0 1773035458	/* 2026-03-09T05:50:58Z */
#define FIX1 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define FIX2 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* A report: id, state, delivery status, fix commit (NULL: none), created. */
struct row {
	int64_t id;
	enum state_verdict verdict;
	enum state_status status;
	const char *fix;
	int64_t created;
};

static void tracked_of(const struct row *rows, size_t n, struct state_tracked_list *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->v = calloc(n, sizeof(*out->v));
	out->nr = out->alloc = n;
	for (i = 0; i < n; i++) {
		struct state_tracked *t = &out->v[i];
		char mid[32];

		snprintf(mid, sizeof(mid), "r%lld@example.org", (long long)rows[i].id);
		t->id = rows[i].id;
		t->message_id = strdup(mid);
		t->subject = strdup("[linus:master] [mm]  0123456789: x 3.8% regression");
		t->tree = strdup("linus/master");
		t->verdict = rows[i].verdict;
		t->status = rows[i].status;
		t->created = rows[i].created;
		if (rows[i].fix) {
			t->has_fix = 1;
			t->fix.report_id = t->id;
			t->fix.commit = strdup(rows[i].fix);
			t->fix.subject = strdup("mm: fix");
			t->fix.ref = strdup("refs/remotes/linus/master");
			t->fix.landed = strdup("refs/remotes/linus/master");
			t->fix.kind = FIX_CLOSES;
			t->fix.date = T0;
		}
	}
}

static void ids(struct buf *out, const struct state_tracked *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf_addf(out, "%s%lld", i ? " " : "", (long long)v[i]->id);
}

static void what_a_digest_lists(void **state)
{
	static const struct row rows[] = {
		{ 1, STATE_VERDICT_OPEN, STATE_SENT, NULL, T0 + 300 },
		{ 2, STATE_VERDICT_OPEN, STATE_SENT, NULL, T0 + 100 },	/* older: first */
		{ 3, STATE_VERDICT_OPEN, STATE_QUEUED, NULL, T0 },	/* reached nobody yet */
		{ 4, STATE_VERDICT_FIXED, STATE_SENT, FIX1, T0 },	/* fixed before: not again */
		{ 5, STATE_VERDICT_FIXED, STATE_SENT, FIX2, T0 },	/* another fix since */
		{ 6, STATE_VERDICT_FIXED, STATE_SENT, FIX1, T0 },	/* open at the last digest */
		{ 7, STATE_VERDICT_FIXED, STATE_SENT, NULL, T0 },	/* by a person's word alone */
		{ 8, STATE_VERDICT_INVALID, STATE_SENT, NULL, T0 },	/* invalid before */
		{ 9, STATE_VERDICT_DUPLICATE, STATE_SENT, NULL, T0 },	/* was invalid: now duplicate */
		{ 10, STATE_VERDICT_INVALID, STATE_FAILED, NULL, T0 },	/* refused for good */
		{ 11, STATE_VERDICT_INVALID, STATE_SENT, NULL, T0 },	/* new since */
	};
	static const struct state_digest_entry prev[] = {
		{ 4, STATE_VERDICT_FIXED, FIX1 },
		{ 5, STATE_VERDICT_FIXED, FIX1 },
		{ 7, STATE_VERDICT_FIXED, NULL },
		{ 8, STATE_VERDICT_INVALID, NULL },
		{ 9, STATE_VERDICT_INVALID, NULL },
	};
	static const struct {
		int has_prev;
		const char *open, *fixed, *closed;
		size_t entries;
	} cases[] = {
		{ 1, "2 1", "5 6", "9 11", 8 },
		/* the first digest: everything fixed or closed so far */
		{ 0, "2 1", "4 5 6 7", "8 9 11", 8 },
	};
	struct state_tracked_list l;
	size_t i;

	(void)state;
	tracked_of(rows, N(rows), &l);
	for (i = 0; i < N(cases); i++) {
		struct digest d;
		struct buf got = BUF_INIT;

		digest_select(&l, cases[i].has_prev, prev, N(prev), &d);
		ids(&got, d.open, d.nr_open);
		assert_string_equal(got.data, cases[i].open);
		buf_reset(&got);
		ids(&got, d.fixed, d.nr_fixed);
		assert_string_equal(got.data, cases[i].fixed);
		buf_reset(&got);
		ids(&got, d.closed, d.nr_closed);
		assert_string_equal(got.data, cases[i].closed);
		/* what it records: every report that is not open */
		assert_int_equal(d.nr_entries, cases[i].entries);
		assert_int_equal(d.entries[0].report_id, 4);
		assert_string_equal(d.entries[0].fix_commit, FIX1);
		assert_int_equal(digest_empty(&d), 0);
		digest_release(&d);
		buf_release(&got);
	}
	state_tracked_list_release(&l);
}

static struct config *test_config(void)
{
	struct config *c = config_new_defaults();

	free(c->from);
	c->from = strdup("Perf Lab <perf@lab.example.org>");
	c->reported_by = strdup(c->from);
	free(c->message_id_tag);
	c->message_id_tag = strdup("lab");
	free(c->shipped_templates);
	c->shipped_templates = strdup("templates");
	return c;
}

static void digest_mail_is_threaded_under_the_previous(void **state)
{
	static const struct row rows[] = {
		{ 1, STATE_VERDICT_OPEN, STATE_SENT, NULL, T0 - 3 * 86400 },
		{ 2, STATE_VERDICT_FIXED, STATE_SENT, FIX1, T0 },
	};
	struct config *c = test_config();
	struct template_set *set = render_template_set(c);
	struct state_tracked_list l;
	struct state_report prev;
	struct address to[2] = { { "Perf List", "perf@lists.example.org" }, { "", "lead@example.org" } };
	struct digest d;
	struct digest_request req;
	struct digest_mail m;
	struct state_report row;
	struct buf err = BUF_INIT;

	(void)state;
	tracked_of(rows, N(rows), &l);
	l.v[0].nr_possible = 1;
	l.v[0].possible = calloc(1, sizeof(*l.v[0].possible));
	l.v[0].possible[0].commit = strdup(FIX2);
	l.v[0].possible[0].subject = strdup("mm: maybe");
	l.v[0].possible[0].ref = strdup("refs/remotes/linus/master");
	digest_select(&l, 1, NULL, 0, &d);
	memset(&prev, 0, sizeof(prev));
	prev.id = 7;
	prev.message_id = "202603020000.12345678-lab@lab.example.org";
	prev.refs = "202602230000.87654321-lab@lab.example.org";
	prev.created = T0 - 7 * 86400;
	memset(&req, 0, sizeof(req));
	req.cfg = c;
	req.templates = set;
	req.d = &d;
	req.previous = &prev;
	req.to = to;
	req.nr_to = 2;
	req.created = T0;
	if (digest_render(&req, &m, &err) < 0)
		fail_msg("%s", err.data);
	assert_non_null(strstr(m.mail.data, "\nSubject: Perf Lab digest 2026-03-09: 1 open, 1 fixed, 0 closed\n"));
	assert_non_null(strstr(m.mail.data, "\nTo: Perf List <perf@lists.example.org>, lead@example.org\n"));
	assert_non_null(strstr(m.mail.data, "\nIn-Reply-To: <202603020000.12345678-lab@lab.example.org>\n"));
	assert_non_null(strstr(m.mail.data, "\nReferences: <202602230000.87654321-lab@lab.example.org>\n"
			       " <202603020000.12345678-lab@lab.example.org>\n"));
	assert_non_null(strstr(m.mail.data, "\nMessage-ID: <202603090550."));
	assert_non_null(strstr(m.mail.data, "since the previous digest of 2026-03-02"));
	assert_non_null(strstr(m.mail.data, "  3 days old, on linus/master, 0 replies\n"));
	assert_non_null(strstr(m.mail.data, "  possible fix: bbbbbbbbbbbb (\"mm: maybe\") on linus/master\n"));
	assert_non_null(strstr(m.mail.data, "  fixed by aaaaaaaaaaaa (\"mm: fix\") on linus/master (closes)\n"));
	assert_non_null(strstr(m.mail.data, "https://lore.kernel.org/all/r2@example.org\n"));
	digest_row(&m, &req, &row);
	assert_int_equal(row.kind, STATE_KIND_DIGEST);
	assert_int_equal(row.parent_id, 7);
	assert_string_equal(row.env_rcpt, "perf@lists.example.org\nlead@example.org");
	assert_string_equal(row.in_reply_to, prev.message_id);
	digest_mail_release(&m);

	/* the first digest answers nothing */
	req.previous = NULL;
	if (digest_render(&req, &m, &err) < 0)
		fail_msg("%s", err.data);
	assert_null(strstr(m.mail.data, "\nIn-Reply-To:"));
	assert_non_null(strstr(m.mail.data, "since reports began"));
	digest_mail_release(&m);
	digest_release(&d);
	state_tracked_list_release(&l);
	template_set_free(set);
	config_free(c);
	buf_release(&err);
}

static void notice_answers_the_report(void **state)
{
	static char report_mail[] =
		"From: Perf Lab <perf@lab.example.org>\n"
		"To: =?UTF-8?B?Sm9zw6kgTcO8bGxlcg==?= <jose@example.org>\n"
		"Cc: perf@lists.example.org,\n Peter <peterz@example.org>\n"
		"Subject: [linus:master] [mm]  0123456789: x 3.8% regression\n"
		"Message-ID: <r1@lab.example.org>\n\nbody\n";
	struct config *c = test_config();
	struct template_set *set = render_template_set(c);
	struct state_report rep, row;
	struct state_fix fix;
	struct notice_request req;
	struct notice n;
	struct buf err = BUF_INIT;

	(void)state;
	memset(&rep, 0, sizeof(rep));
	rep.id = 3;
	rep.message_id = "r1@lab.example.org";
	rep.subject = "[linus:master] [mm]  0123456789: x 3.8% regression";
	rep.to_addrs = "jose@example.org";
	rep.cc_addrs = "perf@lists.example.org\npeterz@example.org";
	rep.env_rcpt = "jose@example.org\nperf@lists.example.org\npeterz@example.org";
	rep.mail = report_mail;
	rep.mail_len = sizeof(report_mail) - 1;
	memset(&fix, 0, sizeof(fix));
	fix.commit = FIX1;
	fix.subject = "mm: fix the regression";
	fix.ref = "refs/remotes/linus/master";
	fix.landed = "refs/remotes/linus/master";
	fix.date = T0;
	fix.kind = FIX_REVERT;
	memset(&req, 0, sizeof(req));
	req.cfg = c;
	req.templates = set;
	req.report = &rep;
	req.fix = &fix;
	req.created = T0 + 3600;
	if (notice_render(&req, &n, &err) < 0)
		fail_msg("%s", err.data);
	assert_non_null(strstr(n.mail.data, "\nSubject: Re: [linus:master] [mm]  0123456789: x 3.8% regression\n"));
	assert_non_null(strstr(n.mail.data, "\nTo: =?UTF-8?B?Sm9zw6kgTcO8bGxlcg==?= <jose@example.org>\n"));
	assert_non_null(strstr(n.mail.data, "\nCc: perf@lists.example.org, Peter <peterz@example.org>\n"));
	assert_non_null(strstr(n.mail.data, "\nIn-Reply-To: <r1@lab.example.org>\nReferences: <r1@lab.example.org>\n"));
	assert_non_null(strstr(n.mail.data, "\ncommit: " FIX1 " (\"mm: fix the regression\")\n"));
	assert_non_null(strstr(n.mail.data, "\nIt reverts the commit this report is about.\n"));
	assert_non_null(strstr(n.mail.data, "\nPerf Lab noticed that"));
	notice_row(&n, &req, &row);
	assert_int_equal(row.kind, STATE_KIND_NOTICE);
	assert_int_equal(row.parent_id, 3);
	assert_string_equal(row.env_from, "perf@lab.example.org");
	assert_string_equal(row.env_rcpt, rep.env_rcpt);
	notice_release(&n);

	/* reports in the robot's words get the robot's notice (lkp-fixed) */
	free(c->template_name);
	c->template_name = strdup("lkp");
	if (notice_render(&req, &n, &err) < 0)
		fail_msg("%s", err.data);
	assert_non_null(strstr(n.mail.data, "\nkernel test robot noticed that"));
	assert_non_null(strstr(n.mail.data, "\n0-DAY CI Kernel Test Service\n"));
	notice_release(&n);
	/* the same notice is the same mail */
	{
		struct notice again;

		assert_int_equal(notice_render(&req, &n, &err), 0);
		assert_int_equal(notice_render(&req, &again, &err), 0);
		assert_string_equal(n.message_id, again.message_id);
		assert_string_equal(n.mail.data, again.mail.data);
		notice_release(&again);
		notice_release(&n);
	}
	template_set_free(set);
	config_free(c);
	buf_release(&err);
}

/* The names templates/README's section `title` lists (top-level ones:
 * "  name, name   what it is"), each checked to be in view. */
static void readme_section_names_exist(const char *title, const struct value *view)
{
	FILE *in = fopen("templates/README", "r");
	char line[512];
	int in_part = 0, checked = 0;

	assert_non_null(in);
	while (fgets(line, sizeof(line), in)) {
		char *p, *save;

		if (!strncmp(line, "The view", 8)) {
			in_part = !strncmp(line, title, strlen(title));
			continue;
		}
		if (!in_part || strncmp(line, "  ", 2) || line[2] == ' ')
			continue;
		p = strstr(line + 2, "  ");
		if (p)
			*p = '\0';
		for (p = strtok_r(line + 2, ", \n", &save); p; p = strtok_r(NULL, ", \n", &save)) {
			if (!value_object_get(view, p))
				fail_msg("templates/README's \"%s\" lists '%s', which the view does not have",
					 title, p);
			checked++;
		}
	}
	fclose(in);
	assert_true(checked >= 8);
}

static void readme_names_exist(void **state)
{
	static const struct row rows[] = { { 1, STATE_VERDICT_OPEN, STATE_SENT, NULL, T0 } };
	struct config *c = test_config();
	struct state_tracked_list l;
	struct state_report rep;
	struct state_fix fix;
	struct notice_request nreq;
	struct digest_request dreq;
	struct address to = { "", "perf@lists.example.org" };
	struct digest d;
	struct value *v;

	(void)state;
	memset(&rep, 0, sizeof(rep));
	rep.message_id = "r1@lab.example.org";
	rep.subject = "x";
	memset(&fix, 0, sizeof(fix));
	fix.commit = FIX1;
	fix.kind = FIX_LINK;
	memset(&nreq, 0, sizeof(nreq));
	nreq.cfg = c;
	nreq.report = &rep;
	nreq.fix = &fix;
	v = notice_view_new(&nreq, "n@lab.example.org", "Re: x");
	readme_section_names_exist("The view of fixed.txt", v);
	value_free(v);
	tracked_of(rows, N(rows), &l);
	digest_select(&l, 0, NULL, 0, &d);
	memset(&dreq, 0, sizeof(dreq));
	dreq.cfg = c;
	dreq.d = &d;
	dreq.to = &to;
	dreq.nr_to = 1;
	dreq.created = T0;
	v = digest_view_new(&dreq, "d@lab.example.org", "digest");
	readme_section_names_exist("The view of digest.txt", v);
	value_free(v);
	digest_release(&d);
	state_tracked_list_release(&l);
	config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(what_a_digest_lists),
		cmocka_unit_test(digest_mail_is_threaded_under_the_previous),
		cmocka_unit_test(notice_answers_the_report),
		cmocka_unit_test(readme_names_exist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
