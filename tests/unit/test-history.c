#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "buf.h"
#include "fixes.h"
#include "history.h"
#include "repo.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define T0 1773000000		/* 2026-03-08 20:00:00 UTC; every date is T0 + n */
#define LINUS "refs/remotes/linus/master"
#define NEXT "refs/remotes/next/master"
#define REPORTED_BY "kernel test robot <lkp@intel.com>"
#define MID_A "202603081900.aaaaaaaa-lkp@intel.com"
#define MID_B "202603081901.bbbbbbbb-lkp@intel.com"
#define MID_C "202603081902.cccccccc-lkp@intel.com"
#define MID_D "202603081903.dddddddd-lkp@intel.com"
#define MID_E "202603081904.eeeeeeee-lkp@intel.com"
#define MID_E_FOLLOWUP "202603091904.eeeeeeee-lkp@intel.com"

/*
 * The fixture: a bare repository written by `git fast-import` with fixed
 * dates, so its ids never change.
 *
 * linus/master (committer dates T0 + n):
 *   c1 100 base (report D's head)    c2 200 head A    c3 300 head B
 *   c4 400 head C
 *   c5 500 `CLOSES :` A, odd case and spacing
 *   c6 600 `link:` B percent-encoded, a CRLF message
 *   c7 700 revert of C
 *   s1 750 on a side branch off c6: Fixes: D + perfbot's Reported-by # comment
 *   c8 800 Fixes: A without Reported-by, folded over two lines
 *   c9 900 plain (report E's head)
 *   c10 1000 merge of the side branch
 * next/master, first (v1, on c9): n1 1100 `Closes:` E; n2 1200 plain.
 * next/master, rebased (v2, on c10): n1' 1300, n2' 1400, n3' 1500 `Link:`
 * E's follow-up with <> percent-encoded.
 */
struct fixture {
	char dir[64];
	struct buf sh;
	char head_a[41], head_b[41], head_c[41], head_d[41], head_e[41];
	char v1[41], v2[41], n1[41], s1[41];
	struct repo *repo;
};

static struct fixture fx;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int sh(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;

	buf_reset(&fx.sh);
	va_start(ap, fmt);
	buf_vaddf(&fx.sh, fmt, ap);
	va_end(ap);
	return system(fx.sh.data);
}

/* The id `git rev-parse` gives rev, into out. */
static int rev_parse(const char *rev, char out[41])
{
	FILE *p;
	char line[64];
	int ok;

	buf_reset(&fx.sh);
	buf_addf(&fx.sh, "git -C %s rev-parse --verify -q '%s^{commit}'", fx.dir, rev);
	p = popen(fx.sh.data, "r");
	if (!p)
		return -1;
	ok = fgets(line, sizeof(line), p) && strlen(line) == 41;
	if (pclose(p) != 0 || !ok)
		return -1;
	memcpy(out, line, 40);
	out[40] = '\0';
	return 0;
}

static void fi_commit(struct buf *s, const char *ref, int mark, int at, const char *msg,
		      const char *from, const char *merge)
{
	buf_addf(s, "commit %s\nmark :%d\n", ref, mark);
	buf_addf(s, "committer Dev <dev@example.org> %lld +0000\n", (long long)T0 + at);
	buf_addf(s, "data %zu\n%s\n\n", strlen(msg) + 1, msg);
	if (from)
		buf_addf(s, "from %s\n", from);
	if (merge)
		buf_addf(s, "merge %s\n", merge);
	buf_addc(s, '\n');
}

static int fi_run(const struct buf *s)
{
	FILE *p;
	int ok;

	buf_reset(&fx.sh);
	buf_addf(&fx.sh, "git -C %s fast-import --quiet", fx.dir);
	p = popen(fx.sh.data, "w");
	if (!p)
		return -1;
	ok = fwrite(s->data, 1, s->len, p) == s->len;
	return pclose(p) == 0 && ok ? 0 : -1;
}

static int setup(void **state)
{
	struct buf s = BUF_INIT, m = BUF_INIT, err = BUF_INIT;
	char c4[41], c9[41], c10[41];

	(void)state;
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	buf_init(&fx.sh);
	snprintf(fx.dir, sizeof(fx.dir), "/tmp/test-history-XXXXXX");
	if (!mkdtemp(fx.dir) || sh("git init -q --bare %s", fx.dir))
		return -1;

	/* the report heads first: the fixes below quote their ids */
	fi_commit(&s, LINUS, 1, 100, "base\n\nSigned-off-by: Dev <dev@example.org>", NULL, NULL);
	fi_commit(&s, LINUS, 2, 200, "mm: head A", ":1", NULL);
	fi_commit(&s, LINUS, 3, 300, "net: head B", ":2", NULL);
	fi_commit(&s, LINUS, 4, 400, "fs: head C", ":3", NULL);
	if (fi_run(&s) || rev_parse(LINUS "~3", fx.head_d) || rev_parse(LINUS "~2", fx.head_a) ||
	    rev_parse(LINUS "~1", fx.head_b) || rev_parse(LINUS, fx.head_c))
		return -1;
	memcpy(c4, fx.head_c, sizeof(c4));

	buf_reset(&s);
	buf_adds(&m, "mm: fix A\n\nBody.\n\nCLOSES :  https://lore.kernel.org/oe-lkp/" MID_A "  \n"
		 "Signed-off-by: Dev <dev@example.org>");
	fi_commit(&s, LINUS, 5, 500, m.data, c4, NULL);
	fi_commit(&s, LINUS, 6, 600,
		  "net: fix B\r\n\r\nBody.\r\n\r\nlink:https://lore.kernel.org/r/"
		  "202603081901.bbbbbbbb-lkp%40intel.com\r\nSigned-off-by: Dev <dev@example.org>\r", ":5",
		  NULL);
	buf_reset(&m);
	buf_addf(&m, "Revert \"fs: head C\"\n\nThis reverts commit %s.\n\n"
		 "Signed-off-by: Dev <dev@example.org>", fx.head_c);
	fi_commit(&s, LINUS, 7, 700, m.data, ":6", NULL);
	buf_reset(&m);
	buf_addf(&m, "base: fix D\n\nFixes: %.12s (\"base\")\nReported-by: Kernel Test Robot "
		 "<LKP@intel.com> # v6.1\nSigned-off-by: Dev <dev@example.org>", fx.head_d);
	fi_commit(&s, "refs/heads/side", 8, 750, m.data, ":6", NULL);
	buf_reset(&m);
	buf_addf(&m, "mm: maybe fix A\n\nfixes: %.14s (\"mm: a subject folded\n over two lines\")\n"
		 "Signed-off-by: Dev <dev@example.org>", fx.head_a);
	fi_commit(&s, LINUS, 9, 800, m.data, ":7", NULL);
	fi_commit(&s, LINUS, 10, 900, "plain: head E", ":9", NULL);
	fi_commit(&s, LINUS, 11, 1000, "Merge branch 'side'", ":10", ":8");
	fi_commit(&s, "refs/tags/next-v1", 12, 1100,
		  "fix E, only on next\n\nCloses: https://lore.kernel.org/all/" MID_E "/\n"
		  "Signed-off-by: Dev <dev@example.org>", ":10", NULL);
	fi_commit(&s, "refs/tags/next-v1", 13, 1200, "plain on next", ":12", NULL);
	fi_commit(&s, "refs/tags/next-v2", 14, 1300,
		  "fix E, only on next\n\nCloses: https://lore.kernel.org/all/" MID_E "/\n"
		  "Signed-off-by: Dev <dev@example.org>", ":11", NULL);
	fi_commit(&s, "refs/tags/next-v2", 15, 1400, "plain on next", ":14", NULL);
	fi_commit(&s, "refs/tags/next-v2", 16, 1500,
		  "fix E again\n\nLink: https://lore.kernel.org/r/%3C" MID_E_FOLLOWUP "%3E\n"
		  "Signed-off-by: Dev <dev@example.org>", ":15", NULL);
	buf_adds(&s, "reset refs/tags/side\nfrom :8\n\nreset refs/tags/n1\nfrom :12\n\n");
	if (fi_run(&s) || rev_parse(LINUS "~1", c9) || rev_parse(LINUS, c10) ||
	    rev_parse("refs/tags/next-v1", fx.v1) || rev_parse("refs/tags/next-v2", fx.v2) ||
	    rev_parse("refs/tags/n1", fx.n1) || rev_parse("refs/tags/side", fx.s1) ||
	    sh("git -C %s update-ref %s %s", fx.dir, NEXT, fx.v1))
		return -1;
	memcpy(fx.head_e, c9, sizeof(fx.head_e));
	(void)c10;
	buf_release(&s);
	buf_release(&m);
	if (repo_open(fx.dir, &fx.repo, &err)) {
		fprintf(stderr, "%s\n", err.data);
		return -1;
	}
	buf_release(&err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	repo_free(fx.repo);
	nftw(fx.dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	buf_release(&fx.sh);
	return 0;
}

/* What a walk saw: one line per commit, "subject: findings". */
struct seen {
	struct fix_index *ix;
	struct fix_matches m;
	struct buf lines;
	int stop_after;		/* >0: fail at that commit */
	int calls;
};

static int want(const char *id, const char *message, void *data)
{
	struct seen *s = data;

	return fix_index_wants(s->ix, id, message);
}

static int on_commit(const struct fix_commit *c, void *data, struct buf *err)
{
	struct seen *s = data;
	size_t i;

	if (++s->calls == s->stop_after)
		return err_set(err, "stopped at %s", c->subject);
	assert_int_equal(strlen(c->id), 40);
	assert_true(c->date > T0);
	for (i = 0; i < c->nr_trailers; i++) {
		assert_null(strchr(c->trailers[i].value, '\r'));
		assert_null(strchr(c->trailers[i].value, '\n'));
	}
	buf_addf(&s->lines, "%s:", c->subject);
	fix_scan(s->ix, c, &s->m);
	for (i = 0; i < s->m.nr; i++)
		buf_addf(&s->lines, " %c=%s", (char)('A' + s->m.v[i].report), fix_kind_name(s->m.v[i].kind));
	buf_addc(&s->lines, '\n');
	return 0;
}

static void seen_init(struct seen *s)
{
	static const char *const a[] = { MID_A }, *const b[] = { MID_B }, *const c[] = { MID_C },
			  *const d[] = { MID_D }, *const e[] = { MID_E, MID_E_FOLLOWUP };
	const struct fix_report reports[] = {
		{ 1, fx.head_a, a, 1, NULL }, { 2, fx.head_b, b, 1, NULL },
		{ 3, fx.head_c, c, 1, NULL }, { 4, fx.head_d, d, 1, NULL },
		{ 5, fx.head_e, e, 2, NULL },
	};
	struct buf err = BUF_INIT;

	memset(s, 0, sizeof(*s));
	buf_init(&s->lines);
	if (fix_index_new(reports, N(reports), REPORTED_BY, &s->ix, &err))
		fail_msg("%s", err.data);
	buf_release(&err);
}

static void seen_release(struct seen *s)
{
	fix_index_free(s->ix);
	fix_matches_release(&s->m);
	buf_release(&s->lines);
}

static void walk(struct seen *s, const char *ref, const char *cursor, int64_t since,
		 struct history_result *out)
{
	struct buf err = BUF_INIT;

	if (history_walk(fx.repo, ref, cursor, since, want, on_commit, s, out, &err))
		fail_msg("%s: %s", ref, err.data);
	buf_release(&err);
}

/* The first walk of linus back to T0 + 450: every shape of fix on it. */
static void first_walk_is_bounded_by_time(void **state)
{
	struct seen s;
	struct history_result r;
	char tip[41];

	(void)state;
	seen_init(&s);
	walk(&s, LINUS, NULL, T0 + 450, &r);
	assert_string_equal(s.lines.data,
			    "Merge branch 'side':\n"
			    "plain: head E:\n"
			    "mm: maybe fix A: A=possible\n"
			    "base: fix D: D=fixes\n"
			    "Revert \"fs: head C\": C=revert\n"
			    "net: fix B: B=link\n"
			    "mm: fix A: A=closes\n");
	assert_int_equal(r.examined, 7);
	assert_int_equal(r.parsed, 5);
	assert_int_equal(r.missing, 0);
	assert_int_equal(r.cursor_lost, 0);
	assert_int_equal(rev_parse(LINUS, tip), 0);
	assert_string_equal(r.tip, tip);
	seen_release(&s);

	/* no boundary: the whole history, the heads themselves included */
	seen_init(&s);
	walk(&s, LINUS, "", 0, &r);
	assert_int_equal(r.examined, 11);
	assert_non_null(strstr(s.lines.data, "mm: fix A: A=closes\nfs: head C:\nnet: head B:\n"
					     "mm: head A:\nbase:\n"));
	seen_release(&s);
}

/* A second walk from the cursor the first returned finds nothing. */
static void walk_twice_finds_nothing_new(void **state)
{
	struct seen s;
	struct history_result r, again;
	char cursor[41];

	(void)state;
	seen_init(&s);
	walk(&s, LINUS, NULL, T0 + 450, &r);
	memcpy(cursor, r.tip, sizeof(cursor));
	buf_reset(&s.lines);
	walk(&s, LINUS, cursor, T0 + 450, &again);
	assert_int_equal(again.examined, 0);
	assert_string_equal(again.tip, cursor);
	assert_string_equal(s.lines.data, "");
	seen_release(&s);
}

/* next: a fix only there; then next is rebased onto a newer linus (its
 * new tip does not descend from the old) and the walk from the old tip
 * examines exactly the commits the old tip did not have. */
static void rebased_ref_walks_only_new_commits(void **state)
{
	struct seen s;
	struct history_result r;
	struct buf err = BUF_INIT;
	char cursor[41];

	(void)state;
	assert_int_equal(sh("git -C %s update-ref %s %s", fx.dir, NEXT, fx.v1), 0);
	seen_init(&s);
	walk(&s, NEXT, NULL, T0 + 850, &r);
	assert_string_equal(s.lines.data,
			    "plain on next:\n"
			    "fix E, only on next: E=closes\n"
			    "plain: head E:\n");
	assert_string_equal(r.tip, fx.v1);
	memcpy(cursor, r.tip, sizeof(cursor));

	/* the fix is on next only */
	assert_int_equal(history_contains(fx.repo, NEXT, fx.n1, &err), 1);
	assert_int_equal(history_contains(fx.repo, LINUS, fx.n1, &err), 0);

	assert_int_equal(sh("git -C %s update-ref %s %s", fx.dir, NEXT, fx.v2), 0);
	assert_int_equal(sh("git -C %s merge-base --is-ancestor %s %s", fx.dir, fx.v1, fx.v2) != 0, 1);
	buf_reset(&s.lines);
	walk(&s, NEXT, cursor, T0 + 850, &r);
	assert_string_equal(s.lines.data,
			    "fix E again: E=link\n"
			    "plain on next:\n"
			    "fix E, only on next: E=closes\n"
			    "Merge branch 'side':\n"
			    "base: fix D: D=fixes\n");
	assert_string_equal(r.tip, fx.v2);
	assert_int_equal(r.cursor_lost, 0);
	memcpy(cursor, r.tip, sizeof(cursor));

	buf_reset(&s.lines);
	walk(&s, NEXT, cursor, T0 + 850, &r);
	assert_int_equal(r.examined, 0);
	seen_release(&s);
	assert_int_equal(history_contains(fx.repo, NEXT, fx.n1, &err), 0);
	assert_int_equal(sh("git -C %s update-ref %s %s", fx.dir, NEXT, fx.v1), 0);
	buf_release(&err);
}

/* The cursor's commit is gone: back to the boundary, and said so. */
static void lost_cursor_falls_back_to_the_boundary(void **state)
{
	struct seen s;
	struct history_result r;

	(void)state;
	seen_init(&s);
	walk(&s, LINUS, "0123456789abcdef0123456789abcdef01234567", T0 + 750, &r);
	assert_int_equal(r.cursor_lost, 1);
	assert_string_equal(s.lines.data,
			    "Merge branch 'side':\n"
			    "plain: head E:\n"
			    "mm: maybe fix A: A=possible\n"
			    "base: fix D: D=fixes\n");
	/* a blob's id is no commit either */
	buf_reset(&s.lines);
	walk(&s, LINUS, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", T0 + 850, &r);
	assert_int_equal(r.cursor_lost, 1);
	assert_int_equal(r.examined, 2);
	seen_release(&s);
}

static void missing_and_bad_refs(void **state)
{
	struct seen s;
	struct history_result r;
	struct buf err = BUF_INIT;
	static const struct {
		const char *ref, *cursor, *err;
	} bad[] = {
		{ "refs/remotes/linus/..bad", NULL,
		  "ref 'refs/remotes/linus/..bad' is not a full reference name (refs/...)" },
		{ "master", NULL, "ref 'master' is not a full reference name (refs/...)" },
		{ LINUS, "abc", LINUS ": cursor 'abc' is not a 40-digit commit id" },
		{ LINUS, "0123456789abcdef0123456789abcdef0123456z",
		  LINUS ": cursor '0123456789abcdef0123456789abcdef0123456z' is not a 40-digit commit id" },
	};
	size_t i;

	(void)state;
	seen_init(&s);
	assert_int_equal(history_walk(fx.repo, "refs/remotes/nope/master", NULL, 0, want, on_commit, &s,
				      &r, &err), 0);
	assert_int_equal(r.missing, 1);
	assert_int_equal(r.examined, 0);
	assert_string_equal(r.tip, "");
	for (i = 0; i < N(bad); i++) {
		buf_reset(&err);
		assert_int_equal(history_walk(fx.repo, bad[i].ref, bad[i].cursor, 0, want, on_commit, &s,
					      &r, &err), -1);
		assert_string_equal(err.data, bad[i].err);
	}
	/* a tag ref that names a blob leads to no commit */
	assert_int_equal(sh("git -C %s hash-object -w --stdin </dev/null >/dev/null && "
			    "git -C %s update-ref refs/tags/blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
			    fx.dir, fx.dir), 0);
	buf_reset(&err);
	assert_int_equal(history_walk(fx.repo, "refs/tags/blob", NULL, 0, want, on_commit, &s, &r, &err),
			 -1);
	assert_string_equal(err.data, "ref 'refs/tags/blob' does not lead to a commit");
	assert_int_equal(history_contains(fx.repo, "refs/remotes/nope/master", fx.n1, &err), 0);
	assert_int_equal(history_contains(fx.repo, LINUS, "0000000000000000000000000000000000000000", &err), 0);
	assert_int_equal(history_contains(fx.repo, LINUS, "xyz", &err), -1);
	assert_int_equal(history_contains(fx.repo, NEXT, fx.v1, &err), 1);
	seen_release(&s);
	buf_release(&err);
}

/* The callback can stop the walk: -1 with its message; the walk run
 * again (as after a killed run, the cursor not stored) finds what an
 * uninterrupted one finds.  Without a pre-filter every commit's trailers
 * are read. */
static void callback_stops_and_no_filter(void **state)
{
	struct seen s;
	struct history_result r;
	struct buf err = BUF_INIT, whole = BUF_INIT;

	(void)state;
	seen_init(&s);
	walk(&s, LINUS, NULL, T0 + 450, &r);
	buf_addf(&whole, "%s", s.lines.data);
	seen_release(&s);
	seen_init(&s);
	s.stop_after = 3;
	assert_int_equal(history_walk(fx.repo, LINUS, NULL, T0 + 450, want, on_commit, &s, &r, &err), -1);
	assert_string_equal(err.data, "stopped at mm: maybe fix A");
	buf_reset(&s.lines);
	s.stop_after = 0;
	walk(&s, LINUS, NULL, T0 + 450, &r);
	assert_string_equal(s.lines.data, whole.data);
	seen_release(&s);
	buf_release(&whole);

	seen_init(&s);
	assert_int_equal(history_walk(fx.repo, LINUS, NULL, 0, NULL, on_commit, &s, &r, &err), 0);
	assert_int_equal(r.examined, 11);
	assert_int_equal(r.parsed, 11);
	seen_release(&s);
	buf_release(&err);
}

/* What the walk hands over: folded values, keys as written, the subject. */
struct facts {
	struct buf text;
};

static int on_facts(const struct fix_commit *c, void *data, struct buf *err)
{
	struct facts *f = data;
	size_t i;

	(void)err;
	if (strncmp(c->subject, "mm: maybe", 9) && strncmp(c->subject, "net: fix B", 10) &&
	    strncmp(c->subject, "Revert", 6))
		return 0;
	buf_addf(&f->text, "[%s] %lld reverts=%.7s\n", c->subject, (long long)(c->date - T0),
		 c->reverts ? c->reverts : "-");
	for (i = 0; i < c->nr_trailers; i++)
		buf_addf(&f->text, "  %s=%s|\n", c->trailers[i].key, c->trailers[i].value);
	return 0;
}

/* Every commit: "ID DATE [SUBJECT]". */
static int on_every(const struct fix_commit *c, void *data, struct buf *err)
{
	struct facts *f = data;

	(void)err;
	buf_addf(&f->text, "%s %lld [%s]\n", c->id, (long long)c->date, c->subject);
	return 0;
}

static void facts_are_folded(void **state)
{
	struct facts f;
	struct history_result r;
	struct buf err = BUF_INIT, want_text = BUF_INIT;

	(void)state;
	buf_init(&f.text);
	assert_int_equal(history_walk(fx.repo, LINUS, NULL, T0 + 450, NULL, on_facts, &f, &r, &err), 0);
	buf_addf(&want_text,
		 "[mm: maybe fix A] 800 reverts=-\n"
		 "  fixes=%.14s (\"mm: a subject folded over two lines\")|\n"
		 "  Signed-off-by=Dev <dev@example.org>|\n"
		 "[Revert \"fs: head C\"] 700 reverts=%.7s\n"
		 "  Signed-off-by=Dev <dev@example.org>|\n"
		 "[net: fix B] 600 reverts=-\n"
		 "  link=https://lore.kernel.org/r/202603081901.bbbbbbbb-lkp%%40intel.com|\n"
		 "  Signed-off-by=Dev <dev@example.org>|\n",
		 fx.head_a, fx.head_c);
	assert_string_equal(f.text.data, want_text.data);
	buf_release(&f.text);
	buf_release(&want_text);
	buf_release(&err);
}

/* Odd commits written raw (git hash-object): the walk reads the committer
 * date and the message itself and makes the subject itself, and must
 * give what libgit2's commit parser and git_commit_summary() give
 * (history_lookup() uses those). */
static const char *const odd_commits[] = {
	"committer A <a@x> 1773000101 +0000\n\n\n\n  leading blank lines\nthe same  paragraph\n\nbody\n",
	"committer A <a@x> 1773000102 +0000\n\nsubject\twith\ttabs  and   spaces\n  continued \n \t \nnext\n",
	"committer A <a@x> 1773000103 +0000\n\nCRLF subject\r\ncontinues\r\n\r\nbody\r\n",
	"committer A <a@x> 1773000104 +0000\n\n",
	"committer A <a@x> 1773000105 +0000\n\nno line break at the end",
	"committer A <a@x> 1773000106 +0000\n\n   \n\t\n",
	"committer A <a@x>   1773000107 -0700\n\ntime after more blanks, west of UTC\n",
	"committer A>B <a@x> 1773000108 +0530\nencoding ISO-8859-1\n\nencoding header\n",
	"committer A <a@x> 1773000109 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n"
	" -----END PGP SIGNATURE-----\n\nsigned\n\n\nbody after two blank lines\n",
	"committer A <a@x> 1773000110 +0000\n\nsubject ends in blanks \t \n",
	"committer A <a@x> 1773000111 +0000\n\none\ntwo\n\t\nthree\n",
};

static void walk_reads_commits_as_libgit2(void **state)
{
	char tree[41], parent[41] = "", id[41];
	struct buf raw = BUF_INIT, err = BUF_INIT, path = BUF_INIT;
	struct seen_odd { char id[41]; } ids[N(odd_commits)];
	struct history_result r;
	struct facts f;
	size_t i;
	FILE *fp;

	(void)state;
	buf_addf(&path, "%s/odd-commit", fx.dir);
	assert_int_equal(sh("git -C %s hash-object -t tree -w /dev/null >%s", fx.dir, path.data), 0);
	fp = fopen(path.data, "r");
	assert_non_null(fp);
	assert_non_null(fgets(tree, sizeof(tree), fp));
	fclose(fp);
	for (i = 0; i < N(odd_commits); i++) {
		buf_reset(&raw);
		buf_addf(&raw, "tree %s\n", tree);
		if (*parent)
			buf_addf(&raw, "parent %s\n", parent);
		buf_addf(&raw, "author A <a@x> 1700000000 +0000\n%s", odd_commits[i]);
		fp = fopen(path.data, "w");
		assert_non_null(fp);
		assert_int_equal(fwrite(raw.data, 1, raw.len, fp), raw.len);
		fclose(fp);
		assert_int_equal(sh("git -C %s hash-object --literally -t commit -w %s >%s.id", fx.dir,
				    path.data, path.data), 0);
		buf_adds(&path, ".id");
		fp = fopen(path.data, "r");
		buf_truncate(&path, path.len - 3);
		assert_non_null(fp);
		assert_non_null(fgets(id, sizeof(id), fp));
		fclose(fp);
		memcpy(parent, id, sizeof(parent));
		memcpy(ids[i].id, id, sizeof(ids[i].id));
	}
	assert_int_equal(sh("git -C %s update-ref refs/heads/odd %s", fx.dir, parent), 0);

	buf_init(&f.text);
	assert_int_equal(history_walk(fx.repo, "refs/heads/odd", NULL, 0, NULL, on_every, &f, &r, &err), 0);
	assert_int_equal(r.examined, N(odd_commits));
	/* each commit's line, newest first, as libgit2 reads it */
	buf_reset(&raw);
	for (i = N(odd_commits); i-- > 0;) {
		struct history_commit hc;

		assert_int_equal(history_lookup(fx.repo, ids[i].id, &hc, &err), 1);
		buf_addf(&raw, "%s %lld [%s]\n", hc.id, (long long)hc.date, hc.subject);
		history_commit_release(&hc);
	}
	assert_string_equal(f.text.data, raw.data);
	buf_release(&f.text);
	buf_release(&raw);
	buf_release(&err);
	buf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_walk_is_bounded_by_time),
		cmocka_unit_test(walk_twice_finds_nothing_new),
		cmocka_unit_test(rebased_ref_walks_only_new_commits),
		cmocka_unit_test(lost_cursor_falls_back_to_the_boundary),
		cmocka_unit_test(missing_and_bad_refs),
		cmocka_unit_test(callback_stops_and_no_filter),
		cmocka_unit_test(facts_are_folded),
		cmocka_unit_test(walk_reads_commits_as_libgit2),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
