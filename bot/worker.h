#ifndef PERFBOT_WORKER_H
#define PERFBOT_WORKER_H

/*
 * A worker: a second thread that runs one job at a time for the thread
 * that made it, so that work that must be finished by a known moment can
 * run while the owner waits for something else (delivery: the database
 * marks of one mail while the SMTP server answers the next one's envelope).
 *
 * The owner posts a job and later waits for it; at most one job is in
 * flight.  Everything the job touches belongs to the job until
 * worker_wait() returns, and the post and the wait order memory as a
 * mutex does, so data handed over that way needs no locking of its own.
 */

#include "buf.h"

struct worker;

/* Starts the thread.  0 with *out set, or -1 with a message. */
int worker_new(struct worker **out, struct buf *err);

/* Runs fn(arg) on the worker's thread.  No job may be in flight. */
void worker_post(struct worker *w, int (*fn)(void *arg), void *arg);

/* 1 while a posted job has not been waited for. */
int worker_busy(const struct worker *w);

/* Waits for the job in flight and returns what fn returned (0 when none
 * is in flight). */
int worker_wait(struct worker *w);

/* Waits for a job in flight, ends the thread and frees w; accepts NULL. */
void worker_free(struct worker *w);

#endif
