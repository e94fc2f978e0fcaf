#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "fixes.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define REPORTED_BY "kernel test robot <lkp@intel.com>"

#define HEAD1 "1111111111111111111111111111111111111111"
#define HEAD2 "2222222222222222222222222222222222222222"
#define HEAD3 "abcdef0123456789abcdef0123456789abcdef01"
#define MID1 "202603091350.abcdef01-lkp@intel.com"
#define MID1_FOLLOWUP "202603101200.abcdef01-lkp@intel.com"
#define MID2 "202603091400.12345678-lkp@intel.com"
#define MID3 "202603091500.87654321-lkp@intel.com"
#define MID5 "202603091600.11111111-lkp@intel.com"
#define COMMIT "c0ffee0000000000000000000000000000000000"

static const char *const mids1[] = { MID1, MID1_FOLLOWUP };
static const char *const mids2[] = { "<" MID2 ">" };
static const char *const mids3[] = { MID3 };
static const char *const mids5[] = { MID5 };

/* Report 15 is on the same head commit as report 11 (another tree);
 * report 14 has a fixed-by command naming deadbeef. */
static const struct fix_report reports[] = {
	{ 11, HEAD1, mids1, N(mids1), NULL },
	{ 12, HEAD2, mids2, N(mids2), NULL },
	{ 13, HEAD3, mids3, N(mids3), NULL },
	{ 14, "4444444444444444444444444444444444444444", NULL, 0, "DEADbeef" },
	{ 15, HEAD1, mids5, N(mids5), NULL },
};

static struct fix_index *index_make(void)
{
	struct fix_index *ix = NULL;
	struct buf err = BUF_INIT;

	if (fix_index_new(reports, N(reports), REPORTED_BY, &ix, &err))
		fail_msg("fix_index_new: %s", err.data);
	buf_release(&err);
	return ix;
}

/* "11:closes 13:possible" for the matches. */
static void matches_show(struct buf *out, const struct fix_matches *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		buf_addf(out, "%s%lld:%s", i ? " " : "", (long long)m->v[i].report_id,
			 fix_kind_name(m->v[i].kind));
}

#define T(k, v) { k, v }
#define MAX_TRAILERS 6

static const struct {
	const char *what;
	struct fix_trailer trailers[MAX_TRAILERS];
	const char *reverts;
	const char *id;
	const char *expect;
} scans[] = {
	{ "closes with a lore link",
	  { T("Closes", "https://lore.kernel.org/oe-lkp/" MID1) }, NULL, NULL, "11:closes" },
	{ "odd key case, blanks, CR and a trailing comment",
	  { T("CLOSES  ", "  https://lore.kernel.org/oe-lkp/" MID1 "  # the report\r") }, NULL, NULL,
	  "11:closes" },
	{ "closes with no space after the colon", { T("closes", "https://lore.kernel.org/r/" MID2) },
	  NULL, NULL, "12:closes" },
	{ "link to a follow-up counts as the report",
	  { T("link", "https://lore.kernel.org/all/" MID1_FOLLOWUP "/") }, NULL, NULL, "11:link" },
	{ "link with the message-id percent-encoded",
	  { T("Link", "https://lore.kernel.org/r/202603091400.12345678-lkp%40intel.com") }, NULL, NULL,
	  "12:link" },
	{ "link with <> percent-encoded",
	  { T("Link", "https://lore.kernel.org/r/%3C" MID2 "%3E") }, NULL, NULL, "12:link" },
	{ "link with <> as written", { T("Link", "https://lore.kernel.org/r/<" MID2 ">/T/") }, NULL,
	  NULL, "12:link" },
	{ "link with lowercase escapes", { T("Link", "https://lore.kernel.org/r/%3c" MID2 "%3e") },
	  NULL, NULL, "12:link" },
	{ "link as <URL>", { T("Link", "<https://lore.kernel.org/r/" MID2 ">") }, NULL, NULL,
	  "12:link" },
	{ "link with a thread view and fragment",
	  { T("Link", "https://lore.kernel.org/all/" MID3 "/T/#u") }, NULL, NULL, "13:link" },
	{ "link with a continuation line after the URL",
	  { T("Link", "https://lore.kernel.org/r/" MID3 "\n  (the report)") }, NULL, NULL, "13:link" },
	{ "a bare message-id", { T("Link", "<" MID3 ">") }, NULL, NULL, "13:link" },
	{ "a segment that contains the id is no match",
	  { T("Link", "https://lore.kernel.org/r/" MID1 ".mbox"),
	    T("Link", "https://lore.kernel.org/r/x" MID1),
	    T("Closes", "https://lore.kernel.org/r/" MID1 "x/") }, NULL, NULL, "" },
	{ "the id in a query, a fragment or the host is no match",
	  { T("Link", "https://lore.kernel.org/?q=" MID1),
	    T("Link", "https://lore.kernel.org/r/#" MID1),
	    T("Link", "https://" MID1 "/") }, NULL, NULL, "" },
	{ "only one pair of <> is stripped", { T("Link", "https://lore.kernel.org/r/<<" MID1 ">>") },
	  NULL, NULL, "" },
	{ "the id compares exactly (case)",
	  { T("Link", "https://lore.kernel.org/r/202603091350.ABCDEF01-lkp@intel.com") }, NULL, NULL,
	  "" },
	{ "other keys are not evidence",
	  { T("Linked", "https://lore.kernel.org/r/" MID1), T("Closes-by", "https://x/" MID1),
	    T("Message-ID", MID1), T("References", "https://lore.kernel.org/r/" MID1) }, NULL, NULL,
	  "" },
	{ "fixes with 12 digits and perfbot's reported-by",
	  { T("Fixes", "abcdef012345 (\"mm: speed things up\")"), T("Reported-by", REPORTED_BY) }, NULL,
	  NULL, "13:fixes" },
	{ "reported-by before fixes, in odd case",
	  { T("reported-BY", "Kernel Test Robot <LKP@Intel.com>"), T("fixes ", "abcdef0123456") }, NULL,
	  NULL, "13:fixes" },
	{ "fixes with 40 digits", { T("Fixes", HEAD3), T("Reported-by", REPORTED_BY) }, NULL, NULL,
	  "13:fixes" },
	{ "fixes in uppercase hex, '(' right after the id",
	  { T("FIXES", "ABCDEF012345(\"x\")"), T("Reported-by", REPORTED_BY) }, NULL, NULL, "13:fixes" },
	{ "fixes with 11 digits names nothing",
	  { T("Fixes", "abcdef01234 (\"x\")"), T("Reported-by", REPORTED_BY) }, NULL, NULL, "" },
	{ "fixes with a wrong prefix names nothing",
	  { T("Fixes", "abcdef012346 (\"x\")"), T("Reported-by", REPORTED_BY) }, NULL, NULL, "" },
	{ "fixes with 41 digits or a non-hex tail names nothing",
	  { T("Fixes", HEAD3 "0"), T("Fixes", "abcdef012345x"), T("Fixes", "commit abcdef012345"),
	    T("Reported-by", REPORTED_BY) }, NULL, NULL, "" },
	{ "reported-by with a # comment",
	  { T("Fixes", "abcdef012345"), T("Reported-by", "kernel test robot <lkp@intel.com> # v6.1") },
	  NULL, NULL, "13:fixes" },
	{ "a bare reported-by address with a # comment",
	  { T("Fixes", "abcdef012345"), T("Reported-by", "lkp@intel.com # v6.1") }, NULL, NULL,
	  "13:fixes" },
	{ "reported-by folded over lines with a CR",
	  { T("Fixes", "abcdef012345\r"), T("Reported-by", "kernel test robot\n <lkp@intel.com>\r") },
	  NULL, NULL, "13:fixes" },
	{ "fixes without reported-by is a possible fix", { T("Fixes", "abcdef012345 (\"x\")") }, NULL,
	  NULL, "13:possible" },
	{ "fixes with someone else's reported-by is a possible fix",
	  { T("Fixes", "abcdef012345"), T("Reported-by", "Jane <jane@example.org>"),
	    T("Reported-by", "lkp@intel.com.evil.org") }, NULL, NULL, "13:possible" },
	{ "fixes naming a head two reports share", { T("Fixes", HEAD1), T("Reported-by", REPORTED_BY) },
	  NULL, NULL, "11:fixes 15:fixes" },
	{ "a revert of the head", { T("Signed-off-by", "A <a@example.org>") }, HEAD2, NULL,
	  "12:revert" },
	{ "a revert of a head two reports share", { T("Signed-off-by", "A <a@example.org>") }, HEAD1,
	  NULL, "11:revert 15:revert" },
	{ "a revert of another commit", { T("Signed-off-by", "A <a@example.org>") }, COMMIT, NULL, "" },
	{ "within one commit the strongest kind",
	  { T("Fixes", HEAD1), T("Link", "https://lore.kernel.org/r/" MID1),
	    T("Closes", "https://lore.kernel.org/r/" MID1_FOLLOWUP) }, HEAD1, NULL,
	  "11:closes 15:revert" },
	{ "link beats revert beats fixes",
	  { T("Reported-by", REPORTED_BY), T("Fixes", HEAD2), T("Link", "https://x.org/" MID2) }, HEAD2,
	  NULL, "12:link" },
	{ "revert beats fixes", { T("Reported-by", REPORTED_BY), T("Fixes", HEAD2) }, HEAD2, NULL,
	  "12:revert" },
	{ "several reports in one commit, in report order",
	  { T("Closes", "https://lore.kernel.org/r/" MID3), T("Link", "https://lore.kernel.org/r/" MID1),
	    T("Fixes", "2222222222222 (\"x\")") }, NULL, NULL, "11:link 12:possible 13:closes" },
	{ "the commit a fixed-by named", { { NULL, NULL } }, NULL,
	  "deadbeef00000000000000000000000000000000", "14:fixed-by" },
	{ "a commit with another prefix", { { NULL, NULL } }, NULL,
	  "deadbee000000000000000000000000000000000", "" },
	{ "empty values and keys", { T("Closes", ""), T("Link", "   "), T("Fixes", ""), T("", "x") },
	  NULL, NULL, "" },
};

static void scan_finds_each_kind(void **state)
{
	struct fix_index *ix = index_make();
	struct fix_matches m = { 0 };
	size_t i, k, n;

	(void)state;
	for (i = 0; i < N(scans); i++) {
		struct fix_commit c = { scans[i].id ? scans[i].id : COMMIT, "subject", 1773035458,
					scans[i].trailers, 0, scans[i].reverts };
		struct buf got = BUF_INIT;

		for (k = 0; k < MAX_TRAILERS && scans[i].trailers[k].key; k++)
			;
		c.nr_trailers = k;
		n = fix_scan(ix, &c, &m);
		assert_int_equal(n, m.nr);
		matches_show(&got, &m);
		if (strcmp(got.data, scans[i].expect))
			fail_msg("%s: got \"%s\", want \"%s\"", scans[i].what, got.data, scans[i].expect);
		buf_release(&got);
	}
	fix_matches_release(&m);
	fix_index_free(ix);
}

static void scan_with_no_reported_by_configured(void **state)
{
	struct fix_index *ix = NULL;
	struct fix_matches m = { 0 };
	struct buf err = BUF_INIT;
	const struct fix_trailer t[] = { { "Fixes", HEAD3 }, { "Reported-by", "<>" } };
	struct fix_commit c = { COMMIT, "s", 1, t, N(t), NULL };

	(void)state;
	assert_int_equal(fix_index_new(reports, N(reports), "", &ix, &err), 0);
	assert_int_equal(fix_scan(ix, &c, &m), 1);
	assert_int_equal(m.v[0].kind, FIX_POSSIBLE);
	fix_matches_release(&m);
	fix_index_free(ix);
	assert_int_equal(fix_index_new(NULL, 0, REPORTED_BY, &ix, &err), 0);
	assert_int_equal(fix_scan(ix, &c, &m), 0);
	fix_matches_release(&m);
	fix_index_free(ix);
	buf_release(&err);
}

static void index_refuses_bad_reports(void **state)
{
	static const char *const dup[] = { MID1 };
	static const char *const empty[] = { "<>" };
	static const struct {
		struct fix_report r;
		const char *err;
	} bad[] = {
		{ { 21, "1234", mids3, 1, NULL }, "report 21: head commit '1234' is not 40 hex digits" },
		{ { 22, "g111111111111111111111111111111111111111", mids3, 1, NULL },
		  "report 22: head commit 'g111111111111111111111111111111111111111' is not 40 hex digits" },
		{ { 23, HEAD2, dup, 1, NULL }, "message-id <" MID1 "> is given for reports 11 and 23" },
		{ { 24, HEAD2, empty, 1, NULL }, "report 24: empty message-id" },
		{ { 25, HEAD2, mids3, 1, "abc" }, "report 25: fixed-by commit 'abc' is not 4 to 40 hex digits" },
		{ { 26, NULL, mids3, 1, NULL }, "report 26: head commit '' is not 40 hex digits" },
	};
	char longid[FIX_MAX_MESSAGE_ID + 2];
	const char *const longids[] = { longid };
	size_t i;

	(void)state;
	for (i = 0; i < N(bad); i++) {
		struct fix_report two[2] = { reports[0], bad[i].r };
		struct fix_index *ix = (struct fix_index *)1;
		struct buf err = BUF_INIT;

		assert_int_equal(fix_index_new(two, 2, REPORTED_BY, &ix, &err), -1);
		assert_null(ix);
		assert_string_equal(err.data, bad[i].err);
		buf_release(&err);
	}
	memset(longid, 'x', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	{
		struct fix_report r = { 27, HEAD2, longids, 1, NULL };
		struct fix_index *ix = NULL;
		struct buf err = BUF_INIT;

		assert_int_equal(fix_index_new(&r, 1, REPORTED_BY, &ix, &err), -1);
		assert_string_equal(err.data, "report 27: message-id longer than 998 bytes");
		buf_release(&err);
		longid[FIX_MAX_MESSAGE_ID] = '\0';
		assert_int_equal(fix_index_new(&r, 1, REPORTED_BY, &ix, &err), 0);
		fix_index_free(ix);
	}
}

static void longest_id_matches_and_long_segments_do_not(void **state)
{
	char longid[FIX_MAX_MESSAGE_ID + 1], url[4 * FIX_MAX_MESSAGE_ID];
	const char *const longids[] = { longid };
	struct fix_report r = { 31, HEAD2, longids, 1, NULL };
	struct fix_index *ix = NULL;
	struct fix_matches m = { 0 };
	struct buf err = BUF_INIT;
	struct fix_trailer t[] = { { "Link", url } };
	struct fix_commit c = { COMMIT, "s", 1, t, 1, NULL };

	(void)state;
	memset(longid, 'y', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_int_equal(fix_index_new(&r, 1, REPORTED_BY, &ix, &err), 0);
	snprintf(url, sizeof(url), "https://x.org/%%3C%s%%3E", longid);
	assert_int_equal(fix_scan(ix, &c, &m), 1);
	snprintf(url, sizeof(url), "https://x.org/%sy", longid);
	assert_int_equal(fix_scan(ix, &c, &m), 0);
	snprintf(url, sizeof(url), "https://x.org/%s%s", longid, longid);
	assert_int_equal(fix_scan(ix, &c, &m), 0);
	fix_matches_release(&m);
	fix_index_free(ix);
	buf_release(&err);
}

static void prefilter_passes_only_what_may_match(void **state)
{
	static const struct {
		const char *message, *id;
		int want;
	} cases[] = {
		{ "mm: speed up\n\nBody.\n\nSigned-off-by: A <a@example.org>\n", COMMIT, 0 },
		{ "mm: speed up\n\nCloses: https://x/y\n", COMMIT, 1 },
		{ "mm: speed up\n\nBody.\n\nCLOSES  : https://x/y\n", COMMIT, 1 },
		{ "mm: speed up\n\nlink:https://x/y\n", COMMIT, 1 },
		{ "mm: speed up\n\nFixes:\t123456789012\n", COMMIT, 1 },
		{ "Revert \"mm\"\n\nThis reverts commit " HEAD1 ".\n", COMMIT, 1 },
		{ "mm: speed up\n\nLinking is slow.\nFixes are needed.\nCloses the gap\n", COMMIT, 0 },
		{ "mm: speed up\n\nSee the Link: below\n", COMMIT, 0 },
		{ "", COMMIT, 0 },
		{ "Closes: x", COMMIT, 1 },
		{ "nothing", "deadbeef99999999999999999999999999999999", 1 },
		{ "nothing", "deadbee999999999999999999999999999999999", 0 },
	};
	struct fix_index *ix = index_make();
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (fix_index_wants(ix, cases[i].id, cases[i].message) != cases[i].want)
			fail_msg("case %zu: \"%s\" should give %d", i, cases[i].message, cases[i].want);
	fix_index_free(ix);
}

static void revert_lines_parse(void **state)
{
	static const struct {
		const char *message, *id;
	} cases[] = {
		{ "Revert \"x\"\n\nThis reverts commit " HEAD3 ".\n\nSigned-off-by: A <a@b.org>\n", HEAD3 },
		{ "Revert \"x\"\n\nThis reverts commit " HEAD3 ", reversing\nchanges made to " HEAD1 ".\n",
		  HEAD3 },
		{ "Revert\n\nThis reverts commit ABCDEF0123456789ABCDEF0123456789ABCDEF01.\n", HEAD3 },
		{ "Revert\n\nThis reverts commit " HEAD3 "\n", HEAD3 },
		{ "Revert\n\nThis reverts commit abcdef012345.\nThis reverts commit " HEAD1 ".\n", HEAD1 },
		{ "Revert\n\nThis reverts commit abcdef012345 (\"x\").\n", NULL },
		{ "Revert\n\nThis reverts commit " HEAD3 "0.\n", NULL },
		{ "Revert\n\n  This reverts commit " HEAD3 ".\n", NULL },
		{ "Revert\n\nthis reverts commit " HEAD3 ".\n", NULL },
		{ "This reverts commit " HEAD3, HEAD3 },
		{ "", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		char id[41] = "";
		int found = fix_parse_revert(cases[i].message, id);

		if (found != !!cases[i].id || (found && strcmp(id, cases[i].id)))
			fail_msg("case %zu: got %d \"%s\"", i, found, id);
	}
}

static void kinds_have_names(void **state)
{
	static const char *const names[] = { "closes", "link", "revert", "fixes", "fixed-by", "possible" };
	enum fix_kind k;
	size_t i;

	(void)state;
	for (i = 0; i < N(names); i++) {
		assert_string_equal(fix_kind_name((enum fix_kind)i), names[i]);
		assert_int_equal(fix_kind_parse(names[i], &k), 0);
		assert_int_equal(k, (enum fix_kind)i);
		assert_int_equal(fix_kind_closes(k), k != FIX_POSSIBLE);
	}
	assert_int_equal(fix_kind_parse("Closes", &k), -1);
	assert_int_equal(fix_ref_rank(2, 2), 0);
	assert_int_equal(fix_ref_rank(0, 2), 1);
	assert_int_equal(fix_ref_rank(3, FIX_REF_NONE), 4);
	assert_true(fix_ref_rank(FIX_REF_NONE, 0) == FIX_REF_NONE);
	assert_true(fix_same_commit("ABCDEF01", HEAD3));
	assert_true(fix_same_commit(HEAD3, HEAD3));
	assert_false(fix_same_commit(HEAD3, HEAD1));
	assert_false(fix_same_commit("", HEAD1));
}

#define C_A "aaaa000000000000000000000000000000000000"
#define C_B "bbbb000000000000000000000000000000000000"
#define DAY 86400

/* Standing fixes and findings, each with its expected decision. */
static const struct {
	const char *what;
	struct fix_standing standing;
	struct fix_finding found;
	unsigned take;
	enum fix_state state;
	int reopened;
} decisions[] = {
	{ "first evidence fixes an open report", { FIX_STATE_OPEN, 0 },
	  { C_A, 10 * DAY, FIX_LINK, 0 }, FIX_TAKE_COMMIT, FIX_STATE_FIXED, 0 },
	{ "a possible fix decides nothing", { FIX_STATE_OPEN, 0 },
	  { C_A, 10 * DAY, FIX_POSSIBLE, 0 }, 0, FIX_STATE_OPEN, 0 },
	{ "an earlier commit wins", { FIX_STATE_FIXED, 1, { C_A, 10 * DAY, FIX_CLOSES, 0 } },
	  { C_B, 9 * DAY, FIX_FIXES, 3 }, FIX_TAKE_COMMIT, FIX_STATE_FIXED, 0 },
	{ "a later commit does not", { FIX_STATE_FIXED, 1, { C_A, 10 * DAY, FIX_FIXES, 3 } },
	  { C_B, 11 * DAY, FIX_CLOSES, 0 }, 0, FIX_STATE_FIXED, 0 },
	{ "same date: the stronger kind", { FIX_STATE_FIXED, 1, { C_B, 10 * DAY, FIX_REVERT, 0 } },
	  { C_A, 10 * DAY, FIX_LINK, 1 }, FIX_TAKE_COMMIT, FIX_STATE_FIXED, 0 },
	{ "same date: not the weaker kind", { FIX_STATE_FIXED, 1, { C_B, 10 * DAY, FIX_LINK, 0 } },
	  { C_A, 10 * DAY, FIX_REVERT, 0 }, 0, FIX_STATE_FIXED, 0 },
	{ "same date and kind: the lower id", { FIX_STATE_FIXED, 1, { C_B, 10 * DAY, FIX_LINK, 0 } },
	  { C_A, 10 * DAY, FIX_LINK, 1 }, FIX_TAKE_COMMIT, FIX_STATE_FIXED, 0 },
	{ "same date and kind: not the higher id", { FIX_STATE_FIXED, 1, { C_A, 10 * DAY, FIX_LINK, 0 } },
	  { C_B, 10 * DAY, FIX_LINK, 0 }, 0, FIX_STATE_FIXED, 0 },
	{ "same commit on the report's own ref", { FIX_STATE_FIXED, 1, { C_A, 10 * DAY, FIX_LINK, 2 } },
	  { C_A, 10 * DAY, FIX_LINK, 0 }, FIX_TAKE_REF, FIX_STATE_FIXED, 0 },
	{ "same commit on a later ref", { FIX_STATE_FIXED, 1, { C_A, 10 * DAY, FIX_LINK, 1 } },
	  { C_A, 10 * DAY, FIX_LINK, 2 }, 0, FIX_STATE_FIXED, 0 },
	{ "a fixed-by commit lands", { FIX_STATE_FIXED, 1, { "aaaa0000", 0, FIX_FIXED_BY, FIX_REF_NONE } },
	  { C_A, 10 * DAY, FIX_FIXED_BY, 2 }, FIX_TAKE_REF | FIX_TAKE_FACTS, FIX_STATE_FIXED, 0 },
	{ "a fixed-by commit lands with a trailer",
	  { FIX_STATE_FIXED, 1, { "AAAA0000", 0, FIX_FIXED_BY, FIX_REF_NONE } },
	  { C_A, 10 * DAY, FIX_CLOSES, 0 }, FIX_TAKE_KIND | FIX_TAKE_REF | FIX_TAKE_FACTS,
	  FIX_STATE_FIXED, 0 },
	{ "a fixed-by commit seen on a second ref",
	  { FIX_STATE_FIXED, 1, { C_A, 10 * DAY, FIX_FIXED_BY, 0 } },
	  { C_A, 10 * DAY, FIX_FIXED_BY, 2 }, 0, FIX_STATE_FIXED, 0 },
	{ "trailer evidence replaces a fixed-by, even later",
	  { FIX_STATE_FIXED, 1, { C_A, 1 * DAY, FIX_FIXED_BY, 0 } },
	  { C_B, 20 * DAY, FIX_FIXES, 1 }, FIX_TAKE_COMMIT, FIX_STATE_FIXED, 0 },
	{ "an old fixed-by commit landing does not replace a fix",
	  { FIX_STATE_FIXED, 1, { C_B, 20 * DAY, FIX_FIXES, 1 } },
	  { C_A, 1 * DAY, FIX_FIXED_BY, 0 }, 0, FIX_STATE_FIXED, 0 },
	{ "after a reopen, another commit fixes it again",
	  { FIX_STATE_OPEN, 1, { C_A, 1 * DAY, FIX_CLOSES, 0 }, 1 },
	  { C_B, 20 * DAY, FIX_FIXES, 1 }, FIX_TAKE_COMMIT, FIX_STATE_FIXED, 0 },
	{ "after a reopen, the set-aside commit does not",
	  { FIX_STATE_OPEN, 1, { C_A, 1 * DAY, FIX_CLOSES, 1 }, 1 },
	  { C_A, 1 * DAY, FIX_CLOSES, 0 }, FIX_TAKE_REF, FIX_STATE_OPEN, 1 },
	{ "an invalid report keeps its state", { FIX_STATE_INVALID, 0 },
	  { C_A, 10 * DAY, FIX_CLOSES, 0 }, FIX_TAKE_COMMIT, FIX_STATE_INVALID, 0 },
	{ "a duplicate keeps its state", { FIX_STATE_DUPLICATE, 1, { C_B, 10 * DAY, FIX_FIXES, 0 } },
	  { C_A, 9 * DAY, FIX_CLOSES, 0 }, FIX_TAKE_COMMIT, FIX_STATE_DUPLICATE, 0 },
};

static void decisions_follow_the_rules(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(decisions); i++) {
		struct fix_decision d = fix_decide(&decisions[i].standing, &decisions[i].found);

		if (d.take != decisions[i].take || d.state != decisions[i].state ||
		    d.reopened != decisions[i].reopened)
			fail_msg("%s: take %u state %d reopened %d", decisions[i].what, d.take, d.state,
				 d.reopened);
	}
}

static void possible_fixes_merge_refs(void **state)
{
	struct fix_finding e = { C_A, 10 * DAY, FIX_POSSIBLE, 2 };
	struct fix_finding better = { C_A, 10 * DAY, FIX_POSSIBLE, 0 };
	struct fix_finding worse = { C_A, 10 * DAY, FIX_POSSIBLE, 3 };

	(void)state;
	assert_int_equal(fix_decide_possible(NULL, &e), FIX_TAKE_COMMIT);
	assert_int_equal(fix_decide_possible(&e, &better), FIX_TAKE_REF);
	assert_int_equal(fix_decide_possible(&e, &worse), 0);
	assert_int_equal(fix_decide_possible(&e, &e), 0);
}

/* Three commits with evidence for report 11, and one with none, on two
 * refs (rank 0: the report's own; rank 2: another), taken in every order:
 * the same fix stands, with the own ref. */
static void precedence_does_not_depend_on_order(void **state)
{
	static const struct fix_trailer link[] = { { "Link", "https://lore.kernel.org/r/" MID1 } };
	static const struct fix_trailer fixes[] = { { "Fixes", HEAD1 }, { "Reported-by", REPORTED_BY } };
	static const struct fix_trailer closes[] = { { "Closes", "https://lore.kernel.org/r/" MID1 } };
	static const struct fix_trailer none[] = { { "Signed-off-by", REPORTED_BY } };
	static const struct {
		struct fix_commit c;
		size_t rank;
	} seen[] = {
		/* closes two days later than the link: the link wins */
		{ { C_B, "late closes", 12 * DAY, closes, 1, NULL }, 2 },
		{ { C_A, "link", 10 * DAY, link, 1, NULL }, 2 },
		{ { "cccc000000000000000000000000000000000000", "fixes, same day, weaker", 10 * DAY, fixes,
		    2, NULL }, 0 },
		{ { C_A, "link", 10 * DAY, link, 1, NULL }, 0 },
		{ { "dddd000000000000000000000000000000000000", "nothing", 1 * DAY, none, 1, NULL }, 0 },
	};
	static const size_t orders[][N(seen)] = {
		{ 0, 1, 2, 3, 4 }, { 4, 3, 2, 1, 0 }, { 2, 0, 3, 4, 1 }, { 3, 4, 0, 1, 2 },
		{ 1, 3, 2, 0, 4 },
	};
	struct fix_index *ix = index_make();
	struct fix_matches m = { 0 };
	size_t o, i, j;

	(void)state;
	for (o = 0; o < N(orders); o++) {
		struct fix_standing st = { FIX_STATE_OPEN, 0 };

		for (i = 0; i < N(seen); i++) {
			const struct fix_commit *c = &seen[orders[o][i]].c;

			fix_scan(ix, c, &m);
			for (j = 0; j < m.nr; j++) {
				struct fix_finding f = { c->id, c->date, m.v[j].kind,
							 seen[orders[o][i]].rank };
				struct fix_decision d;

				if (m.v[j].report_id != 11)
					continue;
				d = fix_decide(&st, &f);
				if (d.take & FIX_TAKE_COMMIT)
					st.fix = f;
				if (d.take & FIX_TAKE_KIND)
					st.fix.kind = f.kind;
				if (d.take & FIX_TAKE_REF)
					st.fix.ref_rank = f.ref_rank;
				st.has_fix = 1;
				st.state = d.state;
				st.reopened = d.reopened;
			}
		}
		assert_int_equal(st.state, FIX_STATE_FIXED);
		assert_string_equal(st.fix.commit, C_A);
		assert_int_equal(st.fix.kind, FIX_LINK);
		assert_int_equal(st.fix.ref_rank, 0);
	}
	fix_matches_release(&m);
	fix_index_free(ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scan_finds_each_kind),
		cmocka_unit_test(scan_with_no_reported_by_configured),
		cmocka_unit_test(index_refuses_bad_reports),
		cmocka_unit_test(longest_id_matches_and_long_segments_do_not),
		cmocka_unit_test(prefilter_passes_only_what_may_match),
		cmocka_unit_test(revert_lines_parse),
		cmocka_unit_test(kinds_have_names),
		cmocka_unit_test(decisions_follow_the_rules),
		cmocka_unit_test(possible_fixes_merge_refs),
		cmocka_unit_test(precedence_does_not_depend_on_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
