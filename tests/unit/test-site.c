/*
 * test-site.c: the site's file names (site_file_name(), perfbot-site(1)):
 * a plain name is kept, anything else becomes a slug and a hash that can
 * never leave its folder, and two names never share a file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "site.h"

static void name_is(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	site_file_name(&b, in);
	if (strcmp(b.data, want))
		fail_msg("site_file_name(\"%s\") = \"%s\", want \"%s\"", in, b.data, want);
	buf_release(&b);
}

/* The rules every name obeys: [a-z0-9A-Z._-], not starting with '.', at
 * most 64 bytes, never "." or "..". */
static void name_is_safe(const char *in)
{
	struct buf b = BUF_INIT;
	size_t i;

	site_file_name(&b, in);
	assert_true(b.len > 0 && b.len <= 64);
	assert_true(b.data[0] != '.' && b.data[0] != '-');
	for (i = 0; i < b.len; i++)
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
				       b.data[i]));
	buf_release(&b);
}

static void plain_names_are_kept(void **state)
{
	(void)state;
	name_is("linus", "linus");
	name_is("linux-next", "linux-next");
	name_is("net_next.2", "net_next.2");
}

static void other_names_are_slugged_and_hashed(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT;

	(void)state;
	name_is("CONTROL GROUP (CGROUP)", "control-group-cgroup-01500cfc");
	name_is("cgroups@vger.kernel.org", "cgroups-vger-kernel-org-beb93db5");
	/* names that differ only in what the slug drops differ in the hash */
	site_file_name(&a, "A B");
	site_file_name(&b, "A-B");
	assert_string_not_equal(a.data, b.data);
	buf_release(&a);
	buf_release(&b);
}

static void hostile_names_stay_in_their_folder(void **state)
{
	static const char *const names[] = {
		"", ".", "..", "../..", "/etc/passwd", ".hidden", "-x", "a/b",
		"<script>alert(1)</script>", "\xe2\x80\xae" "evil", "\x01\x1b", "javascript:x",
		"a name much longer than sixty-four bytes, which is cut to a slug of forty and a hash",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		name_is_safe(names[i]);
	name_is("..", "h-a3d4a70d");	/* FNV-1a of "..", as python computes it */
	name_is("", "h-811c9dc5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_names_are_kept),
		cmocka_unit_test(other_names_are_slugged_and_hashed),
		cmocka_unit_test(hostile_names_stay_in_their_folder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
