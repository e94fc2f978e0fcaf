#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "trailer.h"

/*
 * bot/trailer.h against what git 2.39 prints for the same text
 * (`git interpret-trailers --parse`, with --no-divider for the commit
 * modes; `git log --format='%(trailers:only,unfold)'` for TRAILER_COMMIT's
 * blank lines at the start).  tests/t/trailers-git.sh compares thousands
 * of generated messages with git itself through this binary:
 *
 *   test-trailer --parse commit|no-divider|mail
 *       reads texts separated by NUL bytes on stdin and prints, for each,
 *       its trailers as git's --parse does ("key: value" lines), then a
 *       NUL.
 */

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Every mode: the text gives the same trailers with or without a divider
 * and without blank lines at its start. */
#define ALL (-1)

struct tcase {
	const char *name;
	int mode;		/* enum trailer_mode, or ALL */
	const char *text;
	const char *want;	/* "key: value\n" lines, as git --parse prints them */
};

#define SPLAT \
	"mm/slub: fix a use after free in kfree_rcu\n" \
	"\n" \
	"The kernel test robot reports:\n" \
	"\n" \
	"------------[ cut here ]------------\n" \
	"WARNING: CPU: 1 PID: 1 at mm/slub.c:4321 kfree+0x1a/0x2b\n" \
	"Modules linked in:\n" \
	"CPU: 1 PID: 1 Comm: swapper/0 Not tainted 6.8.0-rc1 #1\n" \
	"---[ end trace 0000000000000000 ]---\n" \
	"\n" \
	"Free the object after the grace period.\n" \
	"\n" \
	"Fixes: 0123456789ab (\"mm/slub: add kfree_rcu\")\n" \
	"Reported-by: kernel test robot <lkp@intel.com>\n" \
	"Closes: https://lore.kernel.org/oe-lkp/202603091350.abcdef01-lkp@intel.com\n" \
	"Signed-off-by: Jane Doe <jane@example.org>\n"

#define SPLAT_TRAILERS \
	"Fixes: 0123456789ab (\"mm/slub: add kfree_rcu\")\n" \
	"Reported-by: kernel test robot <lkp@intel.com>\n" \
	"Closes: https://lore.kernel.org/oe-lkp/202603091350.abcdef01-lkp@intel.com\n" \
	"Signed-off-by: Jane Doe <jane@example.org>\n"

static const struct tcase cases[] = {
	/* the splat a fix quotes is no patch divider (libgit2 1.5 saw one) */
	{ "splat, short", ALL,
	  "subject\n\n------------[ cut here ]------------\n\nCloses: https://x/y\n",
	  "Closes: https://x/y\n" },
	{ "splat, a kernel fix", ALL, SPLAT, SPLAT_TRAILERS },
	{ "splat right above the trailers", ALL,
	  "subject\n\n---[ end trace ]---\nFixes: abc\n", "" },
	/* "---" lines: a divider in a mail only, and only "---" + white space */
	{ "--- divides a mail", TRAILER_MAIL,
	  "subject\n\nFixes: abc\n---\n foo.c | 2 +-\nLink: https://x/y\n", "Fixes: abc\n" },
	{ "--- is text in a commit", TRAILER_COMMIT,
	  "subject\n\nFixes: abc\n---\n foo.c | 2 +-\nLink: https://x/y\n", "" },
	{ "--- is text without a divider", TRAILER_NO_DIVIDER,
	  "subject\n\nFixes: abc\n\n---\n\nLink: https://x/y\n", "Link: https://x/y\n" },
	{ "'--- ' divides", TRAILER_MAIL, "subject\n\nFixes: abc\n--- \nLink: x\n", "Fixes: abc\n" },
	{ "'---<tab>' divides", TRAILER_MAIL, "subject\n\nFixes: abc\n---\tx\nLink: x\n", "Fixes: abc\n" },
	{ "'---<CR>' divides", TRAILER_MAIL, "subject\r\n\r\nFixes: abc\r\n---\r\nLink: x\r\n",
	  "Fixes: abc\n" },
	{ "'----' does not divide", TRAILER_MAIL, "subject\n\nbody\n----\n\nLink: x\n", "Link: x\n" },
	{ "'--- a/file' divides", TRAILER_MAIL,
	  "subject\n\nFixes: abc\n\n--- a/file\n+++ b/file\n\nLink: x\n", "Fixes: abc\n" },
	{ "'---' at the very end does not divide", TRAILER_MAIL, "subject\n\nFixes: abc\n---", "" },
	{ "a divider in the title", TRAILER_MAIL, "--- \n\nLink: x\n", "" },
	/* the last paragraph only, and all of it trailers */
	{ "title only", ALL, "Fixes: abc\n", "" },
	{ "one paragraph", ALL, "subject\nFixes: abc\n", "" },
	{ "text after the trailers", ALL, "subject\n\nFixes: abc\n\nmore text\n", "" },
	{ "a text line among trailers", ALL, "subject\n\nFixes: abc\nsee above\nLink: x\n", "" },
	{ "blank lines after", ALL, "subject\n\nFixes: abc\n\n \n\t\n\n", "Fixes: abc\n" },
	{ "no final newline", ALL, "subject\n\nFixes: abc\nLink: x", "Fixes: abc\nLink: x\n" },
	{ "empty", ALL, "", "" },
	/* 25% with a git-generated line */
	{ "25%: 1 of 4 with Signed-off-by", ALL,
	  "subject\n\nsome text\nmore text\neven more\nSigned-off-by: A <a@b>\n",
	  "Signed-off-by: A <a@b>\n" },
	{ "25%: 1 of 5 is too few", ALL,
	  "subject\n\na\nb\nc\nd\nSigned-off-by: A <a@b>\n", "" },
	{ "25%: without a git-generated line, nothing", ALL,
	  "subject\n\nsome text\nLink: x\nReviewed-by: A <a@b>\n", "" },
	{ "Signed-off-by needs its space", ALL,
	  "subject\n\ntext\ntext\nSigned-off-by:A <a@b>\n", "" },
	{ "cherry-picked line", ALL,
	  "subject\n\nsome text\nFixes: abc\n(cherry picked from commit 0123456789abcdef)\n",
	  "Fixes: abc\n" },
	/* continuation lines */
	{ "continuation lines", ALL,
	  "subject\n\nFixes: abc (\"a long\n  subject\")\nLink:\n\thttps://x/y\n",
	  "Fixes: abc (\"a long subject\")\nLink: https://x/y\n" },
	{ "spaces before a line break stay", ALL,
	  "subject\n\nKey: a  \n   b\n", "Key: a   b\n" },
	{ "CRLF continuation keeps the CR", ALL,
	  "subject\r\n\r\nKey: a\r\n b\r\nOther: c\r\n", "Key: a\r b\nOther: c\n" },
	{ "a continuation line under text", ALL,
	  "subject\n\nFixes: abc\ntext\n more\n", "" },
	{ "indented lines alone are text", ALL, "subject\n\n indented\nFixes: abc\n", "" },
	/* comments, git commit's leftovers */
	{ "comment lines", ALL,
	  "subject\n\n# a comment\nFixes: abc\n# another\nLink: x\n# trailing\n",
	  "Fixes: abc\nLink: x\n" },
	{ "scissors", ALL,
	  "subject\n\nFixes: abc\n# ------------------------ >8 ------------------------\nLink: x\n",
	  "Fixes: abc\n" },
	{ "a CRLF scissors line is none", ALL,
	  "subject\r\n\r\nFixes: abc\r\n# ------------------------ >8 ------------------------\r\n"
	  "Link: x\r\n", "Fixes: abc\nLink: x\n" },
	{ "conflicts block", ALL,
	  "subject\n\nFixes: abc\n\nConflicts:\n\tfoo.c\n\tbar.c\n", "Fixes: abc\n" },
	/* keys and separators */
	{ "white space before the colon", ALL, "subject\n\nCloses \t:  https://x/y  \n",
	  "Closes: https://x/y\n" },
	{ "a space inside the key", ALL, "subject\n\nAcked by: A <a@b>\n", "" },
	{ "key case as written", ALL, "subject\n\nCLOSES: x\nreported-BY: y\n",
	  "CLOSES: x\nreported-BY: y\n" },
	{ "empty value", ALL, "subject\n\nCc:\nLink: x\n", "Cc: \nLink: x\n" },
	{ "'=' and '#' are no separators", ALL, "subject\n\nBug #42\nKey=v\n", "" },
	{ "a colon first", ALL, "subject\n\n: x\n", "" },
	{ "URL value", ALL, "subject\n\nLink: https://lore.kernel.org/r/a:b@c\n",
	  "Link: https://lore.kernel.org/r/a:b@c\n" },
	/* the start of the text */
	{ "commit: blank lines at the start skipped", TRAILER_COMMIT, " \n\r\nFixes: abc\n", "" },
	{ "no divider: a blank first line ends the title", TRAILER_NO_DIVIDER, " \nFixes: abc\n",
	  "Fixes: abc\n" },
	{ "a comment in the title", ALL, "subject\n# note\n\nFixes: abc\n", "Fixes: abc\n" },
	{ "the text ends at a NUL", ALL, "subject\n\nFixes: abc\0\nLink: x\n", "Fixes: abc\n" },
};

/* 1 when the case gives what git gives, else 0 with the difference said. */
static int parse_case(const struct tcase *c, enum trailer_mode mode, struct trailer_list *l)
{
	struct buf got = BUF_INIT;
	size_t len = strlen(c->text), i;
	int ok;

	/* the NUL case: the whole literal, past its NUL */
	if (!strcmp(c->name, "the text ends at a NUL"))
		len = sizeof("subject\n\nFixes: abc\0\nLink: x\n") - 1;
	trailer_parse(l, c->text, len, mode);
	for (i = 0; i < l->nr; i++)
		buf_addf(&got, "%s: %s\n", l->v[i].key, l->v[i].value);
	ok = !strcmp(got.data, c->want);
	if (!ok)
		print_error("%s (mode %d): got\n%swant\n%s", c->name, (int)mode, got.data, c->want);
	buf_release(&got);
	return ok;
}

static void table(void **state)
{
	struct trailer_list l = TRAILER_LIST_INIT;
	size_t i, bad = 0;
	int m;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		if (cases[i].mode != ALL) {
			bad += !parse_case(&cases[i], (enum trailer_mode)cases[i].mode, &l);
			continue;
		}
		for (m = TRAILER_COMMIT; m <= TRAILER_MAIL; m++)
			bad += !parse_case(&cases[i], (enum trailer_mode)m, &l);
	}
	trailer_list_release(&l);
	assert_int_equal(bad, 0);
}

/* A list reused for a smaller text keeps nothing of the larger one. */
static void reuse(void **state)
{
	struct trailer_list l;
	const char *big = SPLAT, *none = "subject\n\nno trailers here\n";

	(void)state;
	trailer_list_init(&l);
	trailer_parse(&l, big, strlen(big), TRAILER_COMMIT);
	assert_int_equal(l.nr, 4);
	assert_string_equal(l.v[2].key, "Closes");
	trailer_parse(&l, none, strlen(none), TRAILER_COMMIT);
	assert_int_equal(l.nr, 0);
	trailer_parse(&l, "s\n\nA: 1\nB: 2\n", 12, TRAILER_COMMIT);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.v[1].value, "2");
	trailer_list_release(&l);
	assert_int_equal(l.nr, 0);
	trailer_list_release(&l);
}

/* One line, as reply.c reads a review tag: git's key rule. */
static void line_split(void **state)
{
	static const struct {
		const char *line;
		int ok;
		size_t key_len, value_off;
	} lines[] = {
		{ "Tested-by: x", 1, 9, 10 },
		{ "Closes \t: x", 1, 6, 9 },
		{ "Link:", 1, 4, 5 },
		{ "Acked by: x", 0, 0, 0 },
		{ " Fixes: x", 0, 0, 0 },
		{ ": x", 0, 0, 0 },
		{ "Bug #42: x", 0, 0, 0 },
		{ "Fixes", 0, 0, 0 },
	};
	size_t i, k, off;

	(void)state;
	for (i = 0; i < N(lines); i++) {
		k = off = 99;
		assert_int_equal(trailer_line_split(lines[i].line, strlen(lines[i].line), &k, &off),
				 lines[i].ok);
		if (!lines[i].ok)
			continue;
		assert_int_equal(k, lines[i].key_len);
		assert_int_equal(off, lines[i].value_off);
	}
}

/* The driver of tests/t/trailers-git.sh (see the top of this file). */
static int drive(int argc, char **argv)
{
	struct trailer_list l = TRAILER_LIST_INIT;
	struct buf in = BUF_INIT, err = BUF_INIT, out = BUF_INIT;
	enum trailer_mode mode;
	size_t pos = 0, i;

	if (argc != 3 || strcmp(argv[1], "--parse")) {
		fprintf(stderr, "usage: test-trailer --parse commit|no-divider|mail <texts\n");
		return 64;
	}
	if (!strcmp(argv[2], "commit"))
		mode = TRAILER_COMMIT;
	else if (!strcmp(argv[2], "no-divider"))
		mode = TRAILER_NO_DIVIDER;
	else if (!strcmp(argv[2], "mail"))
		mode = TRAILER_MAIL;
	else {
		fprintf(stderr, "test-trailer: unknown mode '%s'\n", argv[2]);
		return 64;
	}
	if (buf_read_fd(&in, 0, 0, &err) < 0) {
		fprintf(stderr, "test-trailer: %s\n", err.data);
		return 1;
	}
	while (pos < in.len) {
		const char *nul = memchr(in.data + pos, '\0', in.len - pos);
		size_t n = nul ? (size_t)(nul - in.data) - pos : in.len - pos;

		trailer_parse(&l, in.data + pos, n, mode);
		for (i = 0; i < l.nr; i++)
			buf_addf(&out, "%s: %s\n", l.v[i].key, l.v[i].value);
		buf_addc(&out, '\0');
		pos += n + 1;
	}
	fwrite(out.data, 1, out.len, stdout);
	trailer_list_release(&l);
	buf_release(&in);
	buf_release(&out);
	buf_release(&err);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test(reuse),
		cmocka_unit_test(line_split),
	};

	if (argc > 1)
		return drive(argc, argv);
	return cmocka_run_group_tests_name("trailer", tests, NULL, NULL);
}
