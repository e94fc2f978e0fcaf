#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "dir.h"

static void makes_parents(void **state)
{
	char top[] = "/tmp/test-dir.XXXXXX", path[256], cmd[300];
	struct buf err = BUF_INIT;
	struct stat sb;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/a/b//c/", top);
	assert_int_equal(dir_make(path, 0700, &err), 0);
	snprintf(path, sizeof(path), "%s/a/b/c", top);
	assert_int_equal(stat(path, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_mode & 0777, 0700);
	/* again: nothing to do */
	assert_int_equal(dir_make(path, 0700, &err), 0);
	assert_int_equal(dir_sync(path, &err), 0);
	/* a file in the way */
	snprintf(path, sizeof(path), "%s/a/file", top);
	f = fopen(path, "w");
	fclose(f);
	assert_int_equal(dir_make(path, 0700, &err), -1);
	assert_non_null(strstr(err.data, "not a folder"));
	snprintf(path, sizeof(path), "%s/a/file/below", top);
	assert_int_equal(dir_make(path, 0700, &err), -1);
	assert_non_null(strstr(err.data, "/a/file"));
	assert_int_equal(dir_sync("/nonexistent-dir", &err), -1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(makes_parents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
