#ifndef PERFBOT_LOCK_H
#define PERFBOT_LOCK_H

/*
 * A run lock: an exclusive flock() on a file, taken with a bounded wait.
 * The state's run lock (DIR/lock) and the archive's inbox.lock (which
 * public-inbox's tools take too) are both this.
 *
 * flock() has no timeout of its own, and a cron job must give up after a
 * moment, so lock_take() tries every LOCK_POLL_MS until wait_ms passed.
 * The holder writes its pid into the file, so that a process that finds
 * the lock taken can say who holds it; the lock itself is the flock, which
 * dies with its process, so a pid left by a killed holder means nothing
 * (a pid is named only while a process of that number lives).  Two
 * lock_take() calls on one file in one process contend as two processes
 * do (each has its own open file description).
 */

#include "buf.h"

#define LOCK_POLL_MS 50		/* between two tries */
#define LOCK_BUSY 1		/* lock_take(): another process held it for wait_ms */

struct lock;

/*
 * Opens path (created with mode when missing, never through a symbolic
 * link) and locks it, waiting at most wait_ms.  holder names who else
 * could hold it, for the message ("another perfbot").  0 with *out set
 * (lock_free() releases it); LOCK_BUSY with "PATH is held by HOLDER (pid
 * N) ..." (a temporary failure: nothing was changed); -1 with a message
 * naming the path when it cannot be opened or locked.
 */
int lock_take(const char *path, int mode, unsigned wait_ms, const char *holder,
	      struct lock **out, struct buf *err);

/* Releases the lock (emptying the pid) and frees l; accepts NULL. */
void lock_free(struct lock *l);

#endif
