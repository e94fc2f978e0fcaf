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

/* dir_write_new_file(): a new name appears with the whole file, its mode
 * as asked (before the umask), no other name left in the folder; a name
 * that exists is replaced whole (the rename way); a folder that is not
 * there is an error naming the file. */
static void new_files_appear_whole(void **state)
{
	char top[] = "/tmp/test-dir.XXXXXX", path[256], cmd[300];
	struct buf err = BUF_INIT, text = BUF_INIT;
	struct stat sb;
	mode_t old = umask(022);
	FILE *p;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/page.html", top);
	assert_int_equal(dir_write_new_file(path, "<p>one</p>\n", 11, 0666, &err), 0);
	assert_int_equal(buf_read_file(&text, path, 0, &err), 0);
	assert_string_equal(text.data, "<p>one</p>\n");
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	assert_int_equal(dir_write_new_file(path, "<p>two</p>\n", 11, 0644, &err), 0);
	buf_reset(&text);
	assert_int_equal(buf_read_file(&text, path, 0, &err), 0);
	assert_string_equal(text.data, "<p>two</p>\n");
	snprintf(cmd, sizeof(cmd), "ls -A '%s'", top);
	p = popen(cmd, "r");
	buf_reset(&text);
	assert_int_equal(buf_read_fd(&text, fileno(p), 0, &err), 0);
	pclose(p);
	assert_string_equal(text.data, "page.html\n");
	snprintf(path, sizeof(path), "%s/no-such/page.html", top);
	assert_int_equal(dir_write_new_file(path, "x", 1, 0644, &err), -1);
	assert_non_null(strstr(err.data, "no-such/"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	umask(old);
	buf_release(&err);
	buf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(makes_parents),
		cmocka_unit_test(new_files_appear_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
