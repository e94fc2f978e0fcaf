#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "gitconfig.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Collects "name=value" (or "name" alone), one a line. */
static int collect(const char *name, const char *value, void *ctx, struct buf *err)
{
	struct buf *out = ctx;

	(void)err;
	buf_adds(out, name);
	if (value)
		buf_addf(out, "=%s", value);
	buf_addc(out, '\n');
	return 0;
}

static int refuse_b(const char *name, const char *value, void *ctx, struct buf *err)
{
	(void)value;
	(void)ctx;
	if (!strcmp(name, "a.b"))
		return err_set(err, "a.b: not wanted");
	return 0;
}

/* What `git config --file F --list` prints for each text (git 2.39, run
 * by hand), but for a variable before any section, which git takes as a
 * name without a dot and perfbot refuses. */
static void parses_as_git_does(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[perfbot]\n\tfrom = a b  c\n", "perfbot.from=a b  c\n" },
		{ "[a]\nk = x\ty\n", "a.k=x y\n" },
		{ "[a]\nk = v  # c\n", "a.k=v\n" },
		{ "[a]\nk = \" x ; y \"\n", "a.k= x ; y \n" },
		{ "[a]\nk = a\\tb\\nc\\\\d\\\"e\n", "a.k=a\tb\nc\\d\"e\n" },
		{ "[a]\nk = one \\\n  two\n", "a.k=one   two\n" },
		{ "[a]\nflag\n", "a.flag\n" },
		{ "[a]\nk =\n", "a.k=\n" },
		{ "[tree \"Linux-Next\"]\nURL = x\n", "tree.Linux-Next.url=x\n" },
		{ "[s \"a\\\"b\\\\c\"]\nk=v\n", "s.a\"b\\c.k=v\n" },
		{ "[Tree.Linus]\nk=v\n", "tree.linus.k=v\n" },
		{ "[PerfBot]\nMaxPerHour=3\n", "perfbot.maxperhour=3\n" },
		{ "[a]\r\nk = v\r\n", "a.k=v\n" },
		{ "\xef\xbb\xbf[a]\nk=v\n", "a.k=v\n" },
		{ "[a] k = v\n", "a.k=v\n" },
		{ "# c\n; c\n[a] ; c\nk=v\n", "a.k=v\n" },
		{ "[a]\nk=v", "a.k=v\n" },
		{ "[a]\nk=1\nk=2\n", "a.k=1\na.k=2\n" },
		{ "[a]\nk = x\\", "a.k=x\n" },
		{ "[a]\n  k  =  \"\"  \n", "a.k=\n" },
		{ "[a]\nk = a\"b c\"d\n", "a.k=ab cd\n" },
		{ "[a]\nk-2 = v\n", "a.k-2=v\n" },
		{ "[a]\nk = v\\\n", "a.k=v\n" },
		{ "[a.]\nk=v\n", "a..k=v\n" },
		{ "", "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT;

		if (gitconfig_parse(cases[i].text, strlen(cases[i].text), "t.conf", collect, &out, &err) < 0)
			fail_msg("case %zu: %s", i, err.data);
		if (strcmp(out.data, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, out.data, cases[i].want);
		buf_release(&out);
		buf_release(&err);
	}
}

/* git says "bad config line N" for each; perfbot says which line and why. */
static void refuses_bad_lines_naming_them(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[a\nk=v\n", "t.conf: line 1: a section header without its ']'" },
		{ "k=v\n", "t.conf: line 1: a variable before any [section]" },
		{ "[a]\nk = \"open\n", "t.conf: line 2: a value without its closing '\"'" },
		{ "[a]\nk = \\q\n", "t.conf: line 2: an unknown escape" },
		{ "[a]\n9k = v\n", "t.conf: line 2: a line must be" },
		{ "[a]\nk v\n", "t.conf: line 2: a variable name takes" },
		{ "[a \"s]\n", "t.conf: line 1: a subsection name without its closing" },
		{ "[a b]\n", "t.conf: line 1: a subsection name must be in double quotes" },
		{ "[]\n", "t.conf: line 1: a section without a name" },
		{ "[a]\nk # c\n", "t.conf: line 2: a variable name takes" },
		{ "[a \"s\" ]\nk=v\n", "t.conf: line 1: a section header without its ']'" },
		{ "[a \"s\"x]\nk=v\n", "t.conf: line 1: a section header without its ']'" },
		{ "[a]\n\nk = \"x\\\ny\n", "t.conf: line 4: a value without its closing" },
		{ "[a]\r\n\r\n[b\r\n", "t.conf: line 3: a section header" },
		{ "[a]\nk=\"v\0\"\n", "t.conf: a NUL byte" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT;
		size_t len = strlen(cases[i].text);

		if (strstr(cases[i].want, "NUL"))
			len += 3;	/* the text goes on after its \0 */
		if (gitconfig_parse(cases[i].text, len, "t.conf", collect, &out, &err) != -1)
			fail_msg("case %zu was accepted: '%s'", i, out.data);
		if (!strstr(err.data, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.data, cases[i].want);
		buf_release(&out);
		buf_release(&err);
	}
}

static void callback_errors_name_the_file_and_line(void **state)
{
	struct buf err = BUF_INIT;
	const char *text = "[a]\nc = 1\n\nb = 2\n";

	(void)state;
	assert_int_equal(gitconfig_parse(text, strlen(text), "t.conf", refuse_b, NULL, &err), -1);
	assert_string_equal(err.data, "t.conf: line 4: a.b: not wanted");
	buf_release(&err);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void includes_are_read_in_place(void **state)
{
	char dir[] = "/tmp/perfbot-gitconfig-XXXXXX";
	char path[256], inc[256], home_inc[256], loop[256], *old_home;
	struct buf out = BUF_INIT, err = BUF_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/main.conf", dir);
	snprintf(inc, sizeof(inc), "%s/inc.conf", dir);
	snprintf(home_inc, sizeof(home_inc), "%s/home.conf", dir);
	snprintf(loop, sizeof(loop), "%s/loop.conf", dir);
	write_file(path, "[a]\n\tk = 1\n[include]\n\tpath = inc.conf\n\tpath = missing.conf\n"
		   "[a]\n\tk = 4\n");
	write_file(inc, "[a]\n\tk = 2\n[include]\n\tpath = ~/home.conf\n");
	write_file(home_inc, "[b \"x\"]\n\tk = 3\n");
	write_file(loop, "[include]\n\tpath = loop.conf\n");
	old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", dir, 1);
	if (gitconfig_read(path, collect, &out, &err) < 0)
		fail_msg("%s", err.data);
	assert_string_equal(out.data, "a.k=1\ninclude.path=inc.conf\na.k=2\n"
				      "include.path=~/home.conf\nb.x.k=3\n"
				      "include.path=missing.conf\na.k=4\n");
	/* a file that includes itself is stopped */
	buf_reset(&out);
	assert_int_equal(gitconfig_read(loop, collect, &out, &err), -1);
	assert_non_null(strstr(err.data, "more than 10 includes deep"));
	/* the file named first must exist */
	snprintf(path, sizeof(path), "%s/none.conf", dir);
	assert_int_equal(gitconfig_read(path, collect, &out, &err), -1);
	assert_non_null(strstr(err.data, "none.conf: cannot read the configuration"));
	if (old_home)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_home);
	unlink(inc);
	unlink(home_inc);
	unlink(loop);
	snprintf(path, sizeof(path), "%s/main.conf", dir);
	unlink(path);
	rmdir(dir);
	buf_release(&out);
	buf_release(&err);
}

static void booleans_as_git_reads_them(void **state)
{
	static const struct {
		const char *value;
		int ret, want;
	} cases[] = {
		{ NULL, 0, 1 },   { "true", 0, 1 }, { "YES", 0, 1 },  { "On", 0, 1 },
		{ "1", 0, 1 },    { "-3", 0, 1 },   { "2k", 0, 1 },   { "false", 0, 0 },
		{ "no", 0, 0 },   { "OFF", 0, 0 },  { "", 0, 0 },     { "0", 0, 0 },
		{ "maybe", -1, 0 }, { "1x", -1, 0 }, { "2kk", -1, 0 }, { " true", -1, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int got = -1, r = gitconfig_bool(cases[i].value, &got);

		if (r != cases[i].ret || (r == 0 && got != cases[i].want))
			fail_msg("case %zu ('%s'): %d, %d", i, cases[i].value ? cases[i].value : "(null)", r, got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_as_git_does),
		cmocka_unit_test(refuses_bad_lines_naming_them),
		cmocka_unit_test(callback_errors_name_the_file_and_line),
		cmocka_unit_test(includes_are_read_in_place),
		cmocka_unit_test(booleans_as_git_reads_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
