/*
 * bot/gitlib-ca.c: in a static build, libgit2 starts without reading the
 * system's CA bundle (the linker's --wrap sends its one call to
 * gitlib-ca.c, which refuses).  A shared build (make STATIC=0) reads it:
 * the test is skipped there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gitlib.h"

static void libgit2_starts_without_the_ca_bundle(void **state)
{
	(void)state;
#ifndef PERFBOT_STATIC
	skip();
#else
	assert_int_equal(gitlib_ca_refused, 0);
	assert_true(git_libgit2_init() > 0);
	assert_int_equal(gitlib_ca_refused, 1);
	/* started once per process: a second init only counts */
	assert_true(git_libgit2_init() > 0);
	assert_int_equal(gitlib_ca_refused, 1);
	git_libgit2_shutdown();
	git_libgit2_shutdown();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(libgit2_starts_without_the_ca_bundle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
