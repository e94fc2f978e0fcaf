#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
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

/* The v forms: many parts (more than one writev() takes), empty ones
 * among them, land in order, in a new file, a replaced one and a spare
 * larger than they are (cut to their size); no parts is an empty file. */
static void parts_land_in_order(void **state)
{
	char top[] = "/tmp/test-dir.XXXXXX", path[256], cmd[300];
	struct buf err = BUF_INIT, text = BUF_INIT, want = BUF_INIT, big = BUF_INIT;
	struct iovec *iov = calloc(3000, sizeof(*iov));
	char *words = malloc(3000 * 8);
	size_t i;

	(void)state;
	assert_non_null(iov);
	assert_non_null(words);
	assert_non_null(mkdtemp(top));
	for (i = 0; i < 3000; i++) {
		/* "12345,\n", "", "12345 " ... of lengths 0 to 7 */
		size_t len = (size_t)snprintf(words + 8 * i, 8, "%zu%s", i, i % 3 ? " " : ",\n");

		len = i % 7 == 3 ? 0 : len;
		iov[i].iov_base = words + 8 * i;
		iov[i].iov_len = len;
		buf_add(&want, words + 8 * i, len);
	}
	snprintf(path, sizeof(path), "%s/reports.json", top);
	assert_int_equal(dir_write_new_filev(path, iov, 3000, 0644, &err), 0);
	assert_int_equal(buf_read_file(&text, path, 0, &err), 0);
	assert_int_equal(text.len, want.len);
	assert_memory_equal(text.data, want.data, want.len);
	/* the file replaced becomes the spare; the next is written into it */
	for (i = 1; i < 4; i++) {
		size_t j;

		assert_int_equal(dir_write_file_sparev(path, iov + i, 3000 - i, 0644, &err), 0);
		buf_reset(&big);
		for (j = i; j < 3000; j++)
			buf_add(&big, iov[j].iov_base, iov[j].iov_len);
		buf_reset(&text);
		assert_int_equal(buf_read_file(&text, path, 0, &err), 0);
		assert_int_equal(text.len, big.len);
		assert_memory_equal(text.data, big.data, big.len);
	}
	buf_reset(&big);
	/* a spare larger than the parts: cut to them */
	for (i = 0; i < 20000; i++)
		buf_addc(&big, 'x');
	assert_int_equal(dir_write_file_spare(path, big.data, big.len, 0644, &err), 0);
	assert_int_equal(dir_write_file_spare(path, big.data, big.len, 0644, &err), 0);
	assert_int_equal(dir_write_file_sparev(path, iov, 3000, 0644, &err), 0);
	buf_reset(&text);
	assert_int_equal(buf_read_file(&text, path, 0, &err), 0);
	assert_int_equal(text.len, want.len);
	assert_memory_equal(text.data, want.data, want.len);
	assert_int_equal(dir_write_file_modev(path, iov, 0, 0644, 0, &err), 0);
	buf_reset(&text);
	assert_int_equal(buf_read_file(&text, path, 0, &err), 0);
	assert_int_equal(text.len, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	free(iov);
	free(words);
	buf_release(&err);
	buf_release(&text);
	buf_release(&want);
	buf_release(&big);
}

static ino_t inode_of(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return sb.st_ino;
}

static void assert_holds(const char *path, const char *text)
{
	struct buf b = BUF_INIT, err = BUF_INIT;

	assert_int_equal(buf_read_file(&b, path, 0, &err), 0);
	assert_string_equal(b.data, text);
	buf_release(&b);
	buf_release(&err);
}

static void assert_names(const char *top, const char *names)
{
	struct buf b = BUF_INIT, err = BUF_INIT;
	char cmd[300];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", top);
	p = popen(cmd, "r");
	assert_int_equal(buf_read_fd(&b, fileno(p), 0, &err), 0);
	pclose(p);
	assert_string_equal(b.data, names);
	buf_release(&b);
	buf_release(&err);
}

/* dir_write_file_spare(): the file replaced is kept as the spare, and the
 * next replacement is written into it (its inode), shorter or longer;
 * a spare someone has open, or with another name too, is not written
 * into; a killed run's ".next" is no matter; dir_remove_spare(). */
static void spare_takes_the_next_file(void **state)
{
	char top[] = "/tmp/test-dir.XXXXXX", path[256], spare[256], other[256], cmd[300];
	struct buf err = BUF_INIT;
	ino_t one, two, three;
	char held[16] = "";
	int fd;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/r.json", top);
	snprintf(spare, sizeof(spare), "%s/.spare-r.json", top);
	assert_int_equal(dir_write_file_spare(path, "one\n", 4, 0644, &err), 0);
	assert_holds(path, "one\n");
	assert_names(top, "r.json\n");
	one = inode_of(path);

	assert_int_equal(dir_write_file_spare(path, "two two\n", 8, 0644, &err), 0);
	assert_holds(path, "two two\n");
	assert_holds(spare, "one\n");
	assert_true(inode_of(spare) == one);
	two = inode_of(path);
	assert_true(two != one);

	/* shorter: into the first file's inode, cut to its length */
	assert_int_equal(dir_write_file_spare(path, "3\n", 2, 0644, &err), 0);
	assert_holds(path, "3\n");
	assert_true(inode_of(path) == one);
	assert_holds(spare, "two two\n");
	assert_true(inode_of(spare) == two);
	assert_names(top, ".spare-r.json\nr.json\n");

	/* a reader still has the spare open (it was the page two
	 * replacements ago): a new file; what the reader reads is unchanged */
	fd = open(spare, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dir_write_file_spare(path, "four\n", 5, 0644, &err), 0);
	assert_holds(path, "four\n");
	three = inode_of(path);
	assert_true(three != one && three != two);
	assert_int_equal(pread(fd, held, sizeof(held) - 1, 0), 8);
	assert_string_equal(held, "two two\n");
	close(fd);
	assert_true(inode_of(spare) == one);

	/* a spare with another name too is not written into */
	snprintf(other, sizeof(other), "%s/other", top);
	assert_int_equal(link(spare, other), 0);
	assert_int_equal(dir_write_file_spare(path, "five\n", 5, 0644, &err), 0);
	assert_holds(path, "five\n");
	assert_holds(other, "3\n");
	assert_true(inode_of(spare) == three);
	assert_int_equal(unlink(other), 0);

	/* what a run killed between its link and its rename left */
	snprintf(other, sizeof(other), "%s/.spare-r.json.next", top);
	assert_int_equal(link(path, other), 0);
	assert_int_equal(dir_write_file_spare(path, "six\n", 4, 0644, &err), 0);
	assert_holds(path, "six\n");
	assert_names(top, ".spare-r.json\nr.json\n");

	dir_remove_spare(path);
	assert_names(top, "r.json\n");
	snprintf(path, sizeof(path), "%s/no-such/r.json", top);
	assert_int_equal(dir_write_file_spare(path, "x", 1, 0644, &err), -1);
	assert_non_null(strstr(err.data, "no-such/"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(makes_parents),
		cmocka_unit_test(new_files_appear_whole),
		cmocka_unit_test(spare_takes_the_next_file),
		cmocka_unit_test(parts_land_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
