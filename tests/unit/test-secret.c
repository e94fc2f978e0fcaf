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

#include "mboxrd.h"
#include "secret.h"

static char dir[] = "/tmp/perfbot-secret-XXXXXX";

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static void secret_files(void **state)
{
	static const struct {
		const char *name, *text;
		mode_t mode;
		const char *want;	/* the password, or a piece of the message */
		int ok;
	} cases[] = {
		{ "good", "s3cret pass\n", 0600, "s3cret pass", 1 },
		{ "crlf", "pw\r\nsecond line ignored\n", 0400, "pw", 1 },
		{ "group", "pw\n", 0640, "can be read by others (mode 0640): chmod 600", 0 },
		{ "world", "pw\n", 0604, "chmod 600", 0 },
		{ "empty", "\n", 0600, "is empty", 0 },
	};
	char path[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf err = BUF_INIT;
		char *pw = NULL;
		int r;

		write_file(cases[i].name, cases[i].text, cases[i].mode);
		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].name);
		r = secret_read_file(path, &pw, &err);
		if (cases[i].ok) {
			assert_int_equal(r, 0);
			assert_string_equal(pw, cases[i].want);
		} else {
			assert_int_equal(r, -1);
			assert_null(pw);
			if (!strstr(err.data, cases[i].want))
				fail_msg("case %s: '%s'", cases[i].name, err.data);
		}
		secret_free(pw);
		buf_release(&err);
	}
	/* a symbolic link is refused even to a good file */
	snprintf(path, sizeof(path), "%s/link", dir);
	{
		char target[256];
		struct buf err = BUF_INIT;
		char *pw = NULL;

		snprintf(target, sizeof(target), "%s/good", dir);
		assert_int_equal(symlink(target, path), 0);
		assert_int_equal(secret_read_file(path, &pw, &err), -1);
		assert_non_null(strstr(err.data, "cannot open"));
		buf_release(&err);
	}
	snprintf(path, sizeof(path), "%s/missing", dir);
	{
		struct buf err = BUF_INIT;
		char *pw = NULL;

		assert_int_equal(secret_read_file(path, &pw, &err), -1);
		buf_release(&err);
	}
}

static void mboxrd_quotes_from_lines(void **state)
{
	const char *mail = "From: a@b\r\nSubject: x\r\n\r\nFrom here on\r\n>From there\r\nok";
	struct buf out = BUF_INIT;

	(void)state;
	mboxrd_append(&out, "lkp@example.org", 1762498868, mail, strlen(mail));
	assert_string_equal(out.data,
		"From lkp@example.org Fri Nov  7 07:01:08 2025\n"
		"From: a@b\n"
		"Subject: x\n"
		"\n"
		">From here on\n"
		">>From there\n"
		"ok\n"
		"\n");
	buf_reset(&out);
	mboxrd_append(&out, "bad sender", 0, "x\n", 2);
	assert_string_equal(out.data, "From MAILER-DAEMON Thu Jan  1 00:00:00 1970\nx\n\n");
	buf_release(&out);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(secret_files),
		cmocka_unit_test(mboxrd_quotes_from_lines),
	};

	return cmocka_run_group_tests_name("secret, mboxrd", tests, setup, teardown);
}
