/*
 * Posted fixes, the pure parts (bot/posted.h, patchmail_subject() in
 * bot/patchmail.h): the subject as git am commits it and the version of
 * "[PATCH vN m/n]", what counts as a patch's Subject, and the evidence a
 * patch's commit message holds by track's rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "fixes.h"
#include "patchmail.h"
#include "posted.h"
#include "trailer.h"

static void subject_and_version(void **state)
{
	static const struct {
		const char *in, *subject;
		unsigned version;
	} cases[] = {
		{ "[PATCH] mm: fix it", "mm: fix it", 1 },
		{ "[PATCH v2] mm: fix it", "mm: fix it", 2 },
		{ "[PATCH v12 3/7] mm: fix it", "mm: fix it", 12 },
		{ "[PATCHv3] mm: fix it", "mm: fix it", 3 },
		{ "[patch V4 net] mm: fix it", "mm: fix it", 4 },
		{ "[RFC PATCH net-next v5 1/2] mm:  fix\tit ", "mm: fix it", 5 },
		{ "[PATCH 1/2 v6] mm: fix it", "mm: fix it", 6 },
		{ "Re: [PATCH v2] mm: fix it", "mm: fix it", 2 },
		{ "[PATCH] [v3] mm: fix it", "mm: fix it", 3 },
		{ "[PATCH,v7] mm: fix it", "mm: fix it", 7 },
		/* git removes every bracket at the front, keeps the rest */
		{ "[PATCH] [mm] fix [v9] it", "fix [v9] it", 1 },
		{ "[PATCH vx] a", "a", 1 },
		{ "[PATCH v0] a", "a", 1 },
		{ "[PATCH v99999] a", "a", 1 },
		{ "[PATCH v 2] a", "a", 1 },
		{ "[PATCH] dev: v2 of the driver", "dev: v2 of the driver", 1 },
		{ "mm: fix it", "mm: fix it", 1 },
		{ "[PATCH unclosed", "[PATCH unclosed", 1 },
		{ ":: re: RE:[x] y", "y", 1 },
		{ "", "", 1 },
	};
	struct buf out = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned v = 99;

		patchmail_subject(cases[i].in, &out, &v);
		if (strcmp(out.data, cases[i].subject) || v != cases[i].version)
			fail_msg("'%s': '%s' v%u, not '%s' v%u", cases[i].in, out.data, v,
				 cases[i].subject, cases[i].version);
	}
	patchmail_subject(NULL, &out, NULL);
	assert_string_equal(out.data, "");
	buf_release(&out);
}

static void patch_subjects(void **state)
{
	(void)state;
	assert_true(posted_subject_is_patch("[PATCH] x"));
	assert_true(posted_subject_is_patch("  [patch v2 1/3] x"));
	assert_true(posted_subject_is_patch("[PATCHv2] x"));
	assert_false(posted_subject_is_patch("Re: [PATCH] x"));
	assert_false(posted_subject_is_patch("[RFC PATCH] x"));
	assert_false(posted_subject_is_patch("[PATC] x"));
	assert_false(posted_subject_is_patch(NULL));
}

/* The cheap test before the reports are read: a line that may be a
 * trailer with evidence. */
static void texts_worth_reading(void **state)
{
	(void)state;
	assert_true(fix_message_wants("x\n\nCloses: https://l/r/a@b\n"));
	assert_true(fix_message_wants("LINK : x"));
	assert_true(fix_message_wants("a\nfixes:\t0123456789ab\n"));
	assert_false(fix_message_wants("a\n> Closes: x\n"));
	assert_false(fix_message_wants("Linked: x\nFixed: y\n"));
	assert_false(fix_message_wants(""));
}

#define HEAD_A "0123456789abcdef0123456789abcdef01234567"
#define HEAD_B "89abcdef0123456789abcdef0123456789abcdef"

static struct fix_index *index_of_two(void)
{
	static const char *const mids_a[] = { "report-a@lab.example.org", "followup-a@lab.example.org" };
	static const char *const mids_b[] = { "<report-b@lab.example.org>" };
	const struct fix_report r[] = {
		{ 11, HEAD_A, mids_a, 2, NULL },
		{ 12, HEAD_B, mids_b, 1, NULL },
	};
	struct fix_index *ix = NULL;
	struct buf err = BUF_INIT;

	if (fix_index_new(r, 2, "perfbot lab <perfbot@lab.example.org>", &ix, &err) < 0)
		fail_msg("fix_index_new: %s", err.data);
	buf_release(&err);
	return ix;
}

static void evidence_by_track_rules(void **state)
{
	static const struct {
		const char *message;
		size_t nr;
		int64_t report;
		enum fix_kind kind;
	} cases[] = {
		{ "It was slow.\n\nCloses: https://lore.kernel.org/all/report-a@lab.example.org/\n"
		  "Signed-off-by: Dev <dev@example.org>\n", 1, 11, FIX_CLOSES },
		{ "Link: https://lore.kernel.org/r/followup-a%40lab.example.org\n", 1, 11, FIX_LINK },
		{ "Fixes: 0123456789ab (\"mm: change\")\nReported-by: perfbot lab <perfbot@lab.example.org>\n",
		  1, 11, FIX_FIXES },
		/* Fixes: without perfbot's Reported-by: no posted fix */
		{ "Fixes: 0123456789ab (\"mm: change\")\nSigned-off-by: Dev <dev@example.org>\n", 0, 0, 0 },
		/* closes beats fixes for one report */
		{ "Fixes: 0123456789ab\nReported-by: perfbot@lab.example.org\n"
		  "Closes: https://lore.kernel.org/all/report-a@lab.example.org\n", 1, 11, FIX_CLOSES },
		/* not the last paragraph: no trailer */
		{ "Closes: https://lore.kernel.org/all/report-a@lab.example.org\n\nThanks.\n", 0, 0, 0 },
		/* an id no report has */
		{ "Closes: https://lore.kernel.org/all/else@example.org\n", 0, 0, 0 },
		/* a revert of the head is no posted fix */
		{ "This reverts commit " HEAD_A ".\n", 0, 0, 0 },
		{ "", 0, 0, 0 },
	};
	struct fix_index *ix = index_of_two();
	struct trailer_list tl = TRAILER_LIST_INIT;
	struct fix_matches m = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = posted_scan(ix, "mm: fix it", cases[i].message, &tl, &m);

		if (n != cases[i].nr || m.nr != n)
			fail_msg("case %zu: %zu matches, not %zu", i, n, cases[i].nr);
		if (n && (m.v[0].report_id != cases[i].report || m.v[0].kind != cases[i].kind))
			fail_msg("case %zu: report %lld %s", i, (long long)m.v[0].report_id,
				 fix_kind_name(m.v[0].kind));
	}
	/* two reports at once, in the index's order */
	assert_int_equal(posted_scan(ix, "x", "Closes: https://l/r/report-b@lab.example.org\n"
				     "Link: https://l/r/report-a@lab.example.org\n", &tl, &m), 2);
	assert_int_equal(m.v[0].report_id, 11);
	assert_int_equal(m.v[0].kind, FIX_LINK);
	assert_int_equal(m.v[1].report_id, 12);
	assert_int_equal(m.v[1].kind, FIX_CLOSES);
	/* the subject is the message's first paragraph: never a trailer */
	assert_int_equal(posted_scan(ix, "Closes: https://l/r/report-a@lab.example.org", "", &tl, &m), 0);
	trailer_list_release(&tl);
	fix_matches_release(&m);
	fix_index_free(ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(subject_and_version),
		cmocka_unit_test(patch_subjects),
		cmocka_unit_test(texts_worth_reading),
		cmocka_unit_test(evidence_by_track_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
