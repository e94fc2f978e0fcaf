#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "lock.h"

struct fixture {
	char dir[64];
	char path[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/perfbot-lock-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/lock", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char link[128];

	snprintf(link, sizeof(link), "%s/link", f->dir);
	unlink(link);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The second taker waits as long as it was told, names the holder's pid,
 * and gets the lock once the first let go; the pid is gone from the file
 * then. */
static void busy_names_the_holder(void **state)
{
	struct fixture *f = *state;
	struct lock *a = NULL, *b = NULL;
	struct buf err = BUF_INIT;
	struct timespec t0;
	struct stat st;
	char pid[96];
	long ms;

	assert_int_equal(lock_take(f->path, 0600, 0, "another test", &a, &err), 0);
	assert_non_null(a);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(lock_take(f->path, 0600, 300, "another test", &b, &err), LOCK_BUSY);
	ms = elapsed_ms(&t0);
	assert_true(ms >= 300 && ms < 3000);
	assert_null(b);
	snprintf(pid, sizeof(pid), "is held by another test (pid %ld)", (long)getpid());
	if (!strstr(err.data, pid) || !strstr(err.data, f->path))
		fail_msg("message \"%s\"", err.data);
	lock_free(a);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_size, 0);
	buf_reset(&err);
	assert_int_equal(lock_take(f->path, 0600, 0, "another test", &b, &err), 0);
	lock_free(b);
	lock_free(NULL);
	buf_release(&err);
}

/* A pid left in the file by a holder that died is not named. */
static void dead_holder_is_not_named(void **state)
{
	struct fixture *f = *state;
	struct lock *a = NULL, *b = NULL;
	struct buf err = BUF_INIT;
	int fd, status;
	pid_t dead = fork();

	assert_true(dead >= 0);
	if (!dead)
		_exit(0);
	assert_int_equal(waitpid(dead, &status, 0), dead);
	assert_int_equal(lock_take(f->path, 0600, 0, "x", &a, &err), 0);
	fd = open(f->path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_true(dprintf(fd, "%ld\n", (long)dead) > 0);
	close(fd);
	assert_int_equal(lock_take(f->path, 0600, 0, "x", &b, &err), LOCK_BUSY);
	assert_null(strstr(err.data, "(pid"));
	lock_free(a);
	buf_release(&err);
}

/* The lock dies with its process, and is never taken through a link. */
static void dies_with_its_process_and_refuses_links(void **state)
{
	struct fixture *f = *state;
	struct lock *l = NULL;
	struct buf err = BUF_INIT;
	char link[128];
	int ready[2], status;
	char c;
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct lock *mine;

		close(ready[0]);
		if (lock_take(f->path, 0600, 0, "x", &mine, NULL) != 0 || write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_int_equal(lock_take(f->path, 0600, 100, "x", &l, &err), LOCK_BUSY);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(lock_take(f->path, 0600, 0, "x", &l, &err), 0);
	lock_free(l);

	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(symlink(f->path, link), 0);
	buf_reset(&err);
	assert_int_equal(lock_take(link, 0600, 0, "x", &l, &err), -1);
	assert_non_null(strstr(err.data, "cannot open"));
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(busy_names_the_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(dead_holder_is_not_named, setup, teardown),
		cmocka_unit_test_setup_teardown(dies_with_its_process_and_refuses_links, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
