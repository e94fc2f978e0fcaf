#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <time.h>
#include <cmocka.h>

#include "buf.h"
#include "worker.h"

struct job {
	pthread_t ran_on;	/* the thread that ran it */
	int in, out;
	int sleep_ms;
};

static int job_run(void *arg)
{
	struct job *j = arg;
	struct timespec nap = { 0, j->sleep_ms * 1000000L };

	if (j->sleep_ms)
		nanosleep(&nap, NULL);
	j->ran_on = pthread_self();
	j->out = j->in * 2;
	return j->in < 0 ? -1 : j->in;
}

/* Jobs run on another thread, one at a time, and the owner sees what
 * they wrote once worker_wait() returned. */
static void runs_jobs_in_turn(void **state)
{
	struct worker *w;
	struct buf err = BUF_INIT;
	struct job j = { 0 };
	int i;

	(void)state;
	assert_int_equal(worker_new(&w, &err), 0);
	assert_false(worker_busy(w));
	assert_int_equal(worker_wait(w), 0);	/* nothing in flight */
	for (i = 0; i < 1000; i++) {
		j.in = i;
		j.sleep_ms = i % 100 == 0;
		worker_post(w, job_run, &j);
		assert_true(worker_busy(w));
		assert_int_equal(worker_wait(w), i);
		assert_false(worker_busy(w));
		assert_int_equal(j.out, 2 * i);
		assert_false(pthread_equal(j.ran_on, pthread_self()));
	}
	j.in = -5;
	worker_post(w, job_run, &j);
	assert_int_equal(worker_wait(w), -1);
	assert_int_equal(worker_wait(w), 0);	/* waited for already */
	worker_free(w);
	buf_release(&err);
}

/* Freeing a worker with a job in flight lets the job finish first. */
static void free_waits_for_the_job(void **state)
{
	struct worker *w;
	struct job j = { .in = 21, .sleep_ms = 50 };

	(void)state;
	assert_int_equal(worker_new(&w, NULL), 0);
	worker_post(w, job_run, &j);
	worker_free(w);
	assert_int_equal(j.out, 42);
	worker_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runs_jobs_in_turn),
		cmocka_unit_test(free_waits_for_the_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
