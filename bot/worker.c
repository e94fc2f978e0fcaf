#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "worker.h"
#include "xalloc.h"
#include "banned.h"

struct worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t posted;	/* to the thread: a job, or stop */
	pthread_cond_t done;	/* to the owner: the job returned */
	int (*fn)(void *arg);	/* the job in flight, NULL when none */
	void *arg;
	int busy;		/* posted and not yet waited for */
	int result;
	int stop;
};

static void *worker_main(void *p)
{
	struct worker *w = p;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		int (*fn)(void *);
		void *arg;

		while (!w->fn && !w->stop)
			pthread_cond_wait(&w->posted, &w->mu);
		if (!w->fn)
			break;
		fn = w->fn;
		arg = w->arg;
		pthread_mutex_unlock(&w->mu);
		w->result = fn(arg);	/* read by the owner only after done */
		pthread_mutex_lock(&w->mu);
		w->fn = NULL;
		pthread_cond_signal(&w->done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int worker_new(struct worker **out, struct buf *err)
{
	struct worker *w = xcalloc(1, sizeof(*w));
	int e;

	*out = NULL;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->posted, NULL);
	pthread_cond_init(&w->done, NULL);
	e = pthread_create(&w->thread, NULL, worker_main, w);
	if (e) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->posted);
		pthread_cond_destroy(&w->done);
		free(w);
		return err_set(err, "cannot start a thread: %s", strerror(e));
	}
	*out = w;
	return 0;
}

void worker_post(struct worker *w, int (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&w->mu);
	w->fn = fn;
	w->arg = arg;
	w->busy = 1;
	pthread_cond_signal(&w->posted);
	pthread_mutex_unlock(&w->mu);
}

int worker_busy(const struct worker *w)
{
	return w->busy;	/* written by the owner's thread only */
}

int worker_wait(struct worker *w)
{
	int r;

	if (!w->busy)
		return 0;
	pthread_mutex_lock(&w->mu);
	while (w->fn)
		pthread_cond_wait(&w->done, &w->mu);
	r = w->result;
	w->busy = 0;
	pthread_mutex_unlock(&w->mu);
	return r;
}

void worker_free(struct worker *w)
{
	if (!w)
		return;
	worker_wait(w);
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->posted);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->posted);
	pthread_cond_destroy(&w->done);
	free(w);
}
