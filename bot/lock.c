#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "lock.h"
#include "xalloc.h"
#include "banned.h"

struct lock {
	int fd;
};

/* Appends " (pid N)" from the lock file, when it names a process that is
 * alive. */
static void lock_holder(int fd, struct buf *out)
{
	char text[32];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0), i;
	long pid = 0;

	if (n <= 0)
		return;
	text[n] = '\0';
	for (i = 0; i < n && text[i] >= '0' && text[i] <= '9' && pid < 10000000; i++)
		pid = pid * 10 + (text[i] - '0');
	if (!i || (i < n && text[i] != '\n') || pid <= 0)
		return;
	if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
		buf_addf(out, " (pid %ld)", pid);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int lock_take(const char *path, int mode, unsigned wait_ms, const char *holder,
	      struct lock **out, struct buf *err)
{
	const struct timespec step = { 0, LOCK_POLL_MS * 1000000L };
	int64_t start = now_ms();
	struct buf who = BUF_INIT;
	char pid[32];
	int fd, n;

	*out = NULL;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, (mode_t)mode);
	if (fd < 0)
		return err_set(err, "%s: cannot open: %s", path, strerror(errno));
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			err_set(err, "%s: cannot lock: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (now_ms() - start >= (int64_t)wait_ms) {
			lock_holder(fd, &who);
			err_set(err, "%s is held by %s%s (waited %u ms); try again later", path, holder,
				who.data, wait_ms);
			buf_release(&who);
			close(fd);
			return LOCK_BUSY;
		}
		nanosleep(&step, NULL);
	}
	/* who holds it, for the message another process prints */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0)
		(void)!pwrite(fd, pid, (size_t)n, 0);	/* only informational */
	*out = xmalloc(sizeof(**out));
	(*out)->fd = fd;
	return 0;
}

void lock_free(struct lock *l)
{
	if (!l)
		return;
	/* an old pid would only mislead; if it stays, the next holder
	 * overwrites it */
	(void)!ftruncate(l->fd, 0);
	close(l->fd);	/* releases the flock */
	free(l);
}
