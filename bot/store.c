#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "address.h"
#include "archive.h"
#include "mail.h"
#include "repo.h"
#include "store.h"
#include "xalloc.h"
#include "banned.h"

/* A message given to store_add(), in order; the archiver fills in the ids. */
struct filed {
	char *message_id;
	char *raw;		/* a copy until the archiver filed it, then NULL */
	size_t len;
	char blob[41];
	char commit[41];
};

/*
 * The archiver thread owns s->archive while it runs; the caller's thread
 * owns s->st.  Shared, under mu: pending (the caller appends, the archiver
 * fills entries below nr), nr, done, queued_bytes, stop, failed, fail.
 * The caller touches the archive only when the archiver is idle (done ==
 * nr), which store_commit() waits for.
 */
struct store {
	struct archive *archive;
	struct state *st;
	int64_t now;
	struct filed *pending;
	size_t nr, alloc;
	size_t done;		/* entries the archiver has filed (or given up on) */
	size_t queued_bytes;	/* message bytes waiting for the archiver */
	int stop;		/* store_close(): the archiver ends */
	int failed;		/* archive_add() failed: fail says why; the rest is not filed */
	struct buf fail;
	pthread_t archiver;
	int has_archiver;
	pthread_mutex_t mu;
	pthread_cond_t more;	/* to the archiver: an entry was added, or stop */
	pthread_cond_t progress;	/* to the caller: an entry was filed */
};

/* Queued mail that wakes the archiver: some tens of mails, not each one (a
 * wake-up costs two context switches), and not many more, since what is
 * still queued when the caller commits is written while it waits (with
 * 256 KiB that was 6 to 13 ms at the end of a 1,000-mail delivery). */
#define STORE_WAKE_BYTES (64u << 10)

static int archiver_start(struct store *s, struct buf *err);

/* archive_walk() callback: a commit the database missed. */
static int catch_up(void *ctx, const char *commit_hex, const char *raw, size_t len)
{
	struct store *s = ctx;
	struct buf blob = BUF_INIT, err = BUF_INIT;
	char *id = mail_known_id(raw, len);
	int r = 0;

	repo_hash_hex(&blob, raw, len);
	/* unknown ids (filed by hand?) are left alone */
	if (state_message_set_archived(s->st, id, blob.data, commit_hex, &err) < 0)
		r = 0;
	free(id);
	buf_release(&blob);
	buf_release(&err);
	return r;
}

int store_open(const struct config *cfg, struct state *st, int64_t now,
	       struct store **out, struct buf *err)
{
	struct store *s;
	struct buf dir = BUF_INIT;
	struct address from;
	char tip[41];
	char *known = NULL;
	int r;

	*out = NULL;
	if (address_parse(cfg->from, &from, err) < 0)
		return err_prefix(err, "perfbot.from: ");
	s = xcalloc(1, sizeof(*s));
	s->st = st;
	s->now = now;
	buf_addf(&dir, "%s/archive", cfg->state);
	r = archive_open(dir.data, *from.name ? from.name : "perfbot", from.email, &s->archive, err);
	address_release(&from);
	buf_release(&dir);
	if (r != 0) {
		free(s);
		return r;
	}
	if (archive_tip(s->archive, tip, err) < 0 ||
	    state_archive_tip_get(st, archive_epoch(s->archive), &known, err) < 0)
		goto fail;
	if (*tip && (!known || strcmp(known, tip))) {
		if (state_begin(st, err) < 0)
			goto fail;
		if (archive_walk(s->archive, known ? known : "", catch_up, s, err) < 0 ||
		    state_archive_tip_set(st, archive_epoch(s->archive), tip, err) < 0) {
			state_rollback(st);
			goto fail;
		}
		if (state_commit(st, err) < 0)
			goto fail;
	}
	if (archiver_start(s, err) < 0)
		goto fail;
	free(known);
	*out = s;
	return 0;
fail:
	free(known);
	archive_close(s->archive);
	free(s);
	return -1;
}

/*
 * The archive's thread runs at a lower priority than the rest of perfbot:
 * it has the whole run to catch up, while delivery waits on each SMTP
 * reply.  At equal priority it took CPU from the SMTP exchange and the
 * server on a 2-CPU machine (send bench, medians of 31 runs: 0.257 s,
 * and 0.220 s at nice 10).  Linux's nice is a thread's own.
 */
#define STORE_NICE 10

/* The archiver: files the entries in order, each outside the lock. */
static void *archiver_main(void *arg)
{
	struct store *s = arg;
	struct buf err = BUF_INIT;

	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), STORE_NICE);	/* only a preference */
	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct filed f;
		size_t i;
		int r;

		while (!s->stop && s->done == s->nr)
			pthread_cond_wait(&s->more, &s->mu);
		if (s->done == s->nr)
			break;	/* stop, and nothing left */
		i = s->done;
		f = s->pending[i];	/* the array may move while unlocked */
		r = 0;
		if (!s->failed) {
			pthread_mutex_unlock(&s->mu);
			buf_reset(&err);
			r = archive_add(s->archive, f.raw, f.len, s->now, f.blob, f.commit, &err);
			pthread_mutex_lock(&s->mu);
			if (r < 0) {
				s->failed = 1;
				buf_reset(&s->fail);
				buf_addf(&s->fail, "<%s>: %s", f.message_id, err.data);
			}
		}
		memcpy(s->pending[i].blob, f.blob, sizeof(f.blob));
		memcpy(s->pending[i].commit, f.commit, sizeof(f.commit));
		s->pending[i].raw = NULL;
		s->queued_bytes -= f.len;
		s->done++;
		free(f.raw);
		pthread_cond_signal(&s->progress);
	}
	pthread_mutex_unlock(&s->mu);
	buf_release(&err);
	return NULL;
}

/* Starts the archiver, the thread that writes the archive: 0, or -1
 * with a message. */
static int archiver_start(struct store *s, struct buf *err)
{
	int e;

	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->more, NULL);
	pthread_cond_init(&s->progress, NULL);
	buf_init(&s->fail);
	e = pthread_create(&s->archiver, NULL, archiver_main, s);
	if (e)
		return err_set(err, "cannot start the archive's thread: %s", strerror(e));
	s->has_archiver = 1;
	return 0;
}

/* Waits, holding mu, until the archiver filed everything; -1 with its
 * message when an entry failed. */
static int archiver_drain(struct store *s, struct buf *err)
{
	if (s->done < s->nr)
		pthread_cond_signal(&s->more);
	while (s->done < s->nr)
		pthread_cond_wait(&s->progress, &s->mu);
	if (s->failed)
		return err_set(err, "archive: %s", s->fail.data);
	return 0;
}

int store_add(struct store *s, const char *message_id, const char *raw, size_t len,
	      struct buf *err)
{
	struct filed *f;
	int r = 0;

	if (s->nr >= STORE_MAX_BATCH && store_commit(s, err) < 0)
		return -1;
	pthread_mutex_lock(&s->mu);
	/* memory stays bounded when the caller is faster than the archive */
	while (s->queued_bytes && s->queued_bytes + len > STORE_QUEUE_BYTES && !s->failed) {
		pthread_cond_signal(&s->more);
		pthread_cond_wait(&s->progress, &s->mu);
	}
	if (s->failed) {
		r = err_set(err, "archive: %s", s->fail.data);
	} else {
		ALLOC_GROW(s->pending, s->nr + 1, s->alloc);
		f = &s->pending[s->nr];
		memset(f, 0, sizeof(*f));
		f->message_id = xstrdup(message_id);
		f->raw = xmalloc(len ? len : 1);
		memcpy(f->raw, raw, len);
		f->len = len;
		s->queued_bytes += len;
		s->nr++;
		if (s->queued_bytes >= STORE_WAKE_BYTES)
			pthread_cond_signal(&s->more);
	}
	pthread_mutex_unlock(&s->mu);
	return r;
}

int store_pending(const struct store *s, const char *message_id)
{
	size_t i;

	/* message_id is written by this (the caller's) thread only */
	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->pending[i].message_id, message_id))
			return 1;
	return 0;
}

static void pending_clear(struct store *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->pending[i].message_id);
		free(s->pending[i].raw);
	}
	s->nr = 0;
	s->done = 0;
	s->queued_bytes = 0;
}

int store_commit(struct store *s, struct buf *err)
{
	char tip[41];
	size_t i;
	int r;

	pthread_mutex_lock(&s->mu);
	r = archiver_drain(s, err);
	pthread_mutex_unlock(&s->mu);
	/* from here the archiver waits for more: the archive is ours */
	if (r < 0)
		return -1;
	if (!s->nr)
		return 0;
	/* the messages' rows reach the disk before the archive names them,
	 * also while the state's commits are not full: else a crash could
	 * leave mail in the archive that no row knows, filed again later */
	if (state_sync(s->st, err) < 0 ||
	    archive_commit(s->archive, err) < 0 || archive_tip(s->archive, tip, err) < 0)
		return -1;
	if (state_begin(s->st, err) < 0)
		return -1;
	for (i = 0; i < s->nr; i++) {
		if (state_message_set_archived(s->st, s->pending[i].message_id, s->pending[i].blob,
					       s->pending[i].commit, err) < 0) {
			state_rollback(s->st);
			return -1;
		}
	}
	if (state_archive_tip_set(s->st, archive_epoch(s->archive), tip, err) < 0 ||
	    state_commit(s->st, err) < 0) {
		state_rollback(s->st);
		return -1;
	}
	pthread_mutex_lock(&s->mu);
	pending_clear(s);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->has_archiver) {
		pthread_mutex_lock(&s->mu);
		s->stop = 1;
		s->failed = 1;	/* what is still queued is dropped, not filed */
		pthread_cond_signal(&s->more);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->archiver, NULL);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->more);
		pthread_cond_destroy(&s->progress);
		buf_release(&s->fail);
	}
	pending_clear(s);
	free(s->pending);
	archive_close(s->archive);
	free(s);
}
