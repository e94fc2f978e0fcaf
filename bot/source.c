#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source-imap.h"
#include "source-maildir.h"
#include "source-mbox.h"
#include "source-nntp.h"
#include "source.h"
#include "xalloc.h"
#include "banned.h"

enum source_kind {
	SOURCE_MAILDIR,
	SOURCE_MBOX,
	SOURCE_IMAP,
	SOURCE_NNTP,
	SOURCE_FD,
};

/* A message handed out and not yet passed by the cursor. */
struct pending {
	char *key;
	int64_t mark;		/* mbox: the offset after it; IMAP: its UID; NNTP: its number */
	int acked;
};

struct source {
	enum source_kind kind;
	struct source_cursor cursor;
	char *restart;			/* source_restart_reason(), or NULL */
	struct buf scratch;		/* the message being read */

	/* mbox and IMAP: a queue, oldest first from pending[head] */
	struct pending *pending;
	size_t head, nr_pending, alloc_pending;

	/* after an error that cannot be read past: the code and message */
	int failed;
	struct buf failure;

	struct maildir *maildir;
	struct mbox *mbox;

	struct imap *imap;
	char *mailbox;			/* the URL's mailbox (a sliced inbox's name) */
	int begun;			/* source_imap_begin() was called */
	struct imap_message *msgs;	/* the UIDs found, ascending */
	size_t nr_msgs;
	size_t next;			/* msgs[next] is the next to hand out */
	size_t sized;			/* msgs[0..sized-1] have their sizes */
	size_t fetched;			/* msgs[next..fetched-1] were fetched */

	struct nntp *nntp;		/* borrowed: the caller's connection */
	struct nntp_over *overs;	/* the overview being read */
	size_t nr_overs, next_over;	/* overs[next_over..] are not asked for yet */
	size_t batch_end;		/* overs[..batch_end-1] asked for (ARTICLE sent) */
	struct nntp_ready {		/* read, not handed out yet, in number order */
		uint32_t number;
		int state;		/* 1 the bytes in raw, 0 removed, -1 oversized */
		size_t size;
		struct buf raw;
	} *ready;
	size_t nr_ready, next_ready, alloc_ready;
	int nntp_failed;		/* an error after what ready holds */
	struct buf nntp_failure;
	uint32_t over_end;		/* the overview's last number */
	uint32_t nntp_next;		/* the next number to ask an overview from */
	uint32_t nntp_last;		/* the group's high mark */

	int fd;
	int fd_done;
};

void source_msg_release(struct source_msg *msg)
{
	free(msg->raw);
	free(msg->key);
	memset(msg, 0, sizeof(*msg));
}

static struct source *source_new(enum source_kind kind)
{
	struct source *s = xcalloc(1, sizeof(*s));

	s->kind = kind;
	s->fd = -1;
	buf_init(&s->scratch);
	buf_init(&s->failure);
	buf_init(&s->nntp_failure);
	return s;
}

void source_close(struct source *s)
{
	size_t i;

	if (!s)
		return;
	maildir_free(s->maildir);
	mbox_free(s->mbox);
	imap_close(s->imap);
	free(s->mailbox);
	for (i = 0; i < s->nr_msgs; i++)
		buf_release(&s->msgs[i].raw);
	free(s->msgs);
	free(s->overs);
	for (i = 0; i < s->nr_ready; i++)
		buf_release(&s->ready[i].raw);
	free(s->ready);
	buf_release(&s->nntp_failure);
	for (i = s->head; i < s->nr_pending; i++)
		free(s->pending[i].key);
	free(s->pending);
	free(s->restart);
	buf_release(&s->scratch);
	buf_release(&s->failure);
	free(s);
}

void source_cursor_get(const struct source *s, struct source_cursor *out)
{
	*out = s->cursor;
}

const char *source_restart_reason(const struct source *s)
{
	return s->restart;
}

static void set_restart(struct source *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_restart(struct source *s, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(s->restart);
	s->restart = buf_detach(&b, NULL);
}

/* Remembers an error that source_next() returns from now on. */
static int fail(struct source *s, int code, struct buf *err)
{
	s->failed = code;
	buf_reset(&s->failure);
	if (err)
		buf_add(&s->failure, err->data, err->len);
	return code;
}

/* Cursor queue (mbox, IMAP) */

static void pending_add(struct source *s, char *key, int64_t mark, int acked)
{
	if (s->head && s->head == s->nr_pending) {
		s->head = s->nr_pending = 0;
	} else if (s->head > 1024 && s->head > s->nr_pending / 2) {
		memmove(s->pending, s->pending + s->head,
			(s->nr_pending - s->head) * sizeof(*s->pending));
		s->nr_pending -= s->head;
		s->head = 0;
	}
	ALLOC_GROW(s->pending, s->nr_pending + 1, s->alloc_pending);
	s->pending[s->nr_pending].key = key;
	s->pending[s->nr_pending].mark = mark;
	s->pending[s->nr_pending].acked = acked;
	s->nr_pending++;
}

/* Moves the cursor over the acked messages at the queue's head. */
static int pending_advance(struct source *s, struct buf *err)
{
	size_t i = s->head;
	int64_t mark = 0;

	while (i < s->nr_pending && s->pending[i].acked)
		mark = s->pending[i++].mark;
	if (i == s->head)
		return 0;
	if (s->kind == SOURCE_MBOX) {
		char fp[MBOX_FINGERPRINT_LEN + 1];

		/* The fingerprint first: a failure leaves the cursor as it was. */
		if (mbox_fingerprint(s->mbox, mark, fp, err) < 0)
			return -1;
		s->cursor.offset = mark;
		memcpy(s->cursor.fingerprint, fp, sizeof(fp));
	} else {
		s->cursor.last_uid = mark;
	}
	for (; s->head < i; s->head++)
		free(s->pending[s->head].key);
	return 0;
}

static int pending_ack(struct source *s, const char *key, struct buf *err)
{
	size_t i;

	for (i = s->head; i < s->nr_pending; i++)
		if (!strcmp(s->pending[i].key, key))
			break;
	if (i == s->nr_pending || s->pending[i].acked)
		return err_set(err, "%s: not a message this source handed out, or acked already", key);
	s->pending[i].acked = 1;
	if (pending_advance(s, err) < 0) {
		s->pending[i].acked = 0;
		return -1;
	}
	return 0;
}

/* Maildir */

int source_open_maildir(const char *dir, struct source **out, struct buf *err)
{
	struct source *s = source_new(SOURCE_MAILDIR);

	*out = NULL;
	if (maildir_open(dir, &s->maildir, err) < 0) {
		source_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

/* Fills msg from what was read into s->scratch: its bytes, or only its
 * size when it is larger than SOURCE_MAX_MESSAGE.  Returns 1. */
static int msg_from_scratch(struct source *s, struct source_msg *msg, const char *key, size_t size)
{
	msg->key = xstrdup(key);
	msg->size = size;
	if (size > SOURCE_MAX_MESSAGE)
		msg->oversized = 1;
	else
		msg->raw = buf_detach(&s->scratch, &msg->len);
	return 1;
}

static int next_maildir(struct source *s, struct source_msg *msg, struct buf *err)
{
	const char *name;
	size_t size = 0;
	int r;

	r = maildir_next(s->maildir, &name, &s->scratch, SOURCE_MAX_MESSAGE, &size, err);
	if (r <= 0)
		return r;
	return msg_from_scratch(s, msg, name, size);
}

/* mbox */

/* Whether the cursor from still describes the file: 1, 0 (restart noted), -1. */
static int mbox_resume(struct source *s, const char *path, const struct source_cursor *from,
		       struct buf *err)
{
	char fp[MBOX_FINGERPRINT_LEN + 1];
	int64_t size = mbox_size(s->mbox);
	int r;

	if (from->offset < 0 || from->offset > size) {
		set_restart(s, "%s is shorter (%" PRId64 " bytes) than where it was read to last time "
			    "(%" PRId64 "): it was replaced or rewritten; reading it from the start",
			    path, size, from->offset);
		return 0;
	}
	if (mbox_fingerprint(s->mbox, from->offset, fp, err) < 0)
		return -1;
	if (strncmp(fp, from->fingerprint, sizeof(from->fingerprint))) {
		set_restart(s, "%s does not begin as it did when it was read to offset %" PRId64
			    " last time: it was replaced or rewritten; reading it from the start",
			    path, from->offset);
		return 0;
	}
	r = mbox_seek(s->mbox, from->offset, err);
	if (r == 0)
		set_restart(s, "%s: no message begins at offset %" PRId64 ", where it was read to "
			    "last time: it was rewritten; reading it from the start", path, from->offset);
	return r;
}

int source_open_mbox(const char *path, const struct source_cursor *from,
		     struct source **out, struct buf *err)
{
	struct source *s = source_new(SOURCE_MBOX);
	int r = 0;

	*out = NULL;
	r = mbox_open(path, &s->mbox, err);
	if (r < 0) {
		source_close(s);
		return r == MBOX_BUSY ? SOURCE_TEMPORARY : -1;
	}
	if (from && (from->offset || from->fingerprint[0])) {
		r = mbox_resume(s, path, from, err);
		if (r < 0) {
			source_close(s);
			return -1;
		}
	}
	if (r == 1) {
		s->cursor.offset = from->offset;
		memcpy(s->cursor.fingerprint, from->fingerprint, sizeof(s->cursor.fingerprint));
		s->cursor.fingerprint[sizeof(s->cursor.fingerprint) - 1] = '\0';
	} else if (mbox_seek(s->mbox, 0, err) < 0 ||
		   mbox_fingerprint(s->mbox, 0, s->cursor.fingerprint, err) < 0) {
		source_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

static int next_mbox(struct source *s, struct source_msg *msg, struct buf *err)
{
	struct mbox_pos pos;
	struct buf key = BUF_INIT;
	int r;

	r = mbox_next(s->mbox, &s->scratch, SOURCE_MAX_MESSAGE, &pos, err);
	if (r < 0)
		return fail(s, -1, err);
	if (r == 0)
		return 0;
	buf_addf(&key, "mbox:%" PRId64, pos.start);
	msg->key = buf_detach(&key, NULL);
	msg->size = pos.size;
	if (pos.size > SOURCE_MAX_MESSAGE)
		msg->oversized = 1;
	else
		msg->raw = buf_detach(&s->scratch, &msg->len);
	pending_add(s, xstrdup(msg->key), pos.end, 0);
	return 1;
}

/* IMAP */

int source_connect_imap(const char *url, const char *password, const char *ca_file, int timeout,
			struct source **out, struct buf *err)
{
	struct imap_url u;
	struct source *s;
	int r;

	*out = NULL;
	if (imap_url_parse(url, &u, err) < 0)
		return -1;
	s = source_new(SOURCE_IMAP);
	r = imap_open(&u, password, ca_file, timeout, &s->imap, err);
	if (r < 0) {
		imap_url_release(&u);
		source_close(s);
		return r == IMAP_TEMPORARY ? SOURCE_TEMPORARY : -1;
	}
	s->mailbox = u.mailbox;
	u.mailbox = NULL;
	imap_url_release(&u);
	*out = s;
	return 0;
}

size_t source_imap_slices(const struct source *s)
{
	return s->kind == SOURCE_IMAP ? imap_slices(s->imap) : 0;
}

int source_imap_relist(struct source *s, struct buf *err)
{
	int r;

	if (s->kind != SOURCE_IMAP)
		return err_set(err, "not an IMAP source");
	r = imap_relist(s->imap, err);
	if (r < 0)
		return fail(s, r == IMAP_TEMPORARY ? SOURCE_TEMPORARY : -1, err);
	return 0;
}

/* Forgets the messages of the mailbox read before. */
static void imap_forget(struct source *s)
{
	size_t i;

	for (i = 0; i < s->nr_msgs; i++)
		buf_release(&s->msgs[i].raw);
	free(s->msgs);
	s->msgs = NULL;
	s->nr_msgs = s->next = s->sized = s->fetched = 0;
	for (i = s->head; i < s->nr_pending; i++)
		free(s->pending[i].key);
	s->head = s->nr_pending = 0;
	free(s->restart);
	s->restart = NULL;
	memset(&s->cursor, 0, sizeof(s->cursor));
}

int source_imap_begin(struct source *s, size_t slice, const struct source_cursor *from,
		      int64_t since, struct buf *err)
{
	struct buf name = BUF_INIT;
	uint32_t *uids = NULL, validity;
	size_t nr = 0, i;
	int64_t last = 0;
	int r, first_read = 1;

	if (s->kind != SOURCE_IMAP)
		return err_set(err, "not an IMAP source");
	if (s->failed) {
		err_set(err, "%s", s->failure.data);
		return s->failed;
	}
	imap_forget(s);
	if (imap_slices(s->imap)) {
		if (slice >= imap_slices(s->imap))
			return err_set(err, "imap: %s has no slice %zu", s->mailbox, slice);
		buf_addf(&name, "%s.%zu", s->mailbox, slice);
		/* the first slice is examined already when opened */
		if (slice || s->begun) {
			r = imap_examine_slice(s->imap, slice, err);
			if (r < 0) {
				buf_release(&name);
				return fail(s, r == IMAP_TEMPORARY ? SOURCE_TEMPORARY : -1, err);
			}
		}
	} else {
		if (slice)
			return err_set(err, "imap: %s is not a sliced inbox", s->mailbox);
		buf_adds(&name, s->mailbox);
		if (s->begun) {
			buf_release(&name);
			return err_set(err, "imap: %s is read once a run", s->mailbox);
		}
	}
	s->begun = 1;
	validity = imap_uidvalidity(s->imap);
	if (from && from->uidvalidity && from->uidvalidity != validity) {
		first_read = 0;
		set_restart(s, "the UIDVALIDITY of %s changed from %" PRId64 " to %" PRIu32
			    " (the mailbox was recreated): reading it from the start",
			    name.data, from->uidvalidity, validity);
	} else if (from && from->uidvalidity) {
		first_read = 0;
		if (from->last_uid >= 0 && from->last_uid <= UINT32_MAX)
			last = from->last_uid;
		else
			set_restart(s, "the stored last UID %" PRId64 " of %s is not a UID: "
				    "reading the mailbox from the start", from->last_uid, name.data);
	}
	buf_release(&name);
	if (first_read && since > 0) {
		uint32_t before;

		r = imap_search_since(s->imap, since, &before, err);
		if (r < 0)
			return fail(s, r == IMAP_TEMPORARY ? SOURCE_TEMPORARY : -1, err);
		last = before;
	}
	s->cursor.uidvalidity = validity;
	s->cursor.last_uid = last;
	r = imap_search_after(s->imap, (uint32_t)last, &uids, &nr, err);
	if (r < 0)
		return fail(s, r == IMAP_TEMPORARY ? SOURCE_TEMPORARY : -1, err);
	s->msgs = xcalloc(nr ? nr : 1, sizeof(*s->msgs));
	for (i = 0; i < nr; i++) {
		s->msgs[i].uid = uids[i];
		buf_init(&s->msgs[i].raw);
	}
	s->nr_msgs = nr;
	free(uids);
	return 0;
}

int source_open_imap(const char *url, const char *password, const char *ca_file, int timeout,
		     const struct source_cursor *from, struct source **out, struct buf *err)
{
	struct source *s;
	int r;

	r = source_connect_imap(url, password, ca_file, timeout, &s, err);
	if (r < 0)
		return r;
	r = source_imap_begin(s, 0, from, 0, err);
	if (r < 0) {
		source_close(s);
		return r;
	}
	*out = s;
	return 0;
}

static int fetchable(const struct imap_message *m)
{
	return m->size >= 0 && (uint64_t)m->size <= SOURCE_MAX_MESSAGE;
}

/* Fetches the bodies of the messages from msgs[next] on: a run of
 * fetchable ones within the batch limits. */
static int fetch_batch(struct source *s, struct buf *err)
{
	size_t end = s->next;
	uint64_t bytes = 0;

	while (end < s->sized && end - s->next < SOURCE_IMAP_BATCH_MAX && fetchable(s->msgs + end)) {
		if (end > s->next && bytes + (uint64_t)s->msgs[end].size > SOURCE_IMAP_BATCH_BYTES)
			break;
		bytes += (uint64_t)s->msgs[end].size;
		end++;
	}
	s->fetched = end;
	return imap_fetch_bodies(s->imap, s->msgs + s->next, end - s->next, err);
}

static int next_imap(struct source *s, struct source_msg *msg, struct buf *err)
{
	while (s->next < s->nr_msgs) {
		struct imap_message *m = s->msgs + s->next;
		struct buf key = BUF_INIT;
		int r = 0;

		if (s->next >= s->sized) {
			size_t n = s->nr_msgs - s->sized;

			if (n > IMAP_FETCH_MAX)
				n = IMAP_FETCH_MAX;
			r = imap_fetch_sizes(s->imap, s->msgs + s->sized, n, err);
			if (r < 0)
				return fail(s, r == IMAP_TEMPORARY ? SOURCE_TEMPORARY : -1, err);
			s->sized += n;
			continue;
		}
		if (fetchable(m) && s->next >= s->fetched) {
			r = fetch_batch(s, err);
			if (r < 0)
				return fail(s, r == IMAP_TEMPORARY ? SOURCE_TEMPORARY : -1, err);
		}
		s->next++;
		/* Expunged since the search: nothing to take, and nothing to
		 * hold the cursor back. */
		if (m->size < 0 || (fetchable(m) && !m->fetched)) {
			pending_add(s, xstrdup("imap:expunged"), m->uid, 1);
			if (pending_advance(s, err) < 0)
				return -1;
			continue;
		}
		buf_addf(&key, "imap:%" PRIu32, m->uid);
		msg->key = buf_detach(&key, NULL);
		if (!fetchable(m) || m->raw.len > SOURCE_MAX_MESSAGE) {
			/* The server's size, or what it sent when that was larger. */
			msg->size = m->raw.len > (uint64_t)m->size ? m->raw.len : (size_t)m->size;
			msg->oversized = 1;
			buf_release(&m->raw);
		} else {
			msg->raw = buf_detach(&m->raw, &msg->len);
			msg->size = msg->len;
		}
		pending_add(s, xstrdup(msg->key), m->uid, 0);
		return 1;
	}
	return 0;
}

/* NNTP */

int source_open_nntp(struct nntp *conn, const char *group, const struct source_cursor *from,
		     int64_t since, struct source **out, struct buf *err)
{
	struct nntp_range range;
	struct source *s;
	uint32_t start;
	int r, fresh = !from;

	*out = NULL;
	r = nntp_group(conn, group, &range, err);
	if (r < 0)
		return r == NNTP_TEMPORARY ? SOURCE_TEMPORARY : -1;
	s = source_new(SOURCE_NNTP);
	s->nntp = conn;
	s->nntp_last = range.count ? range.last : 0;
	if (from && (from->last_uid < 0 || from->last_uid > NNTP_NUMBER_MAX)) {
		set_restart(s, "the stored article number %" PRId64 " of %s is not one: "
			    "reading the group from the day of the first read", from->last_uid, group);
		fresh = 1;
	} else if (from && range.count && range.first > from->last_uid + 1) {
		set_restart(s, "the low mark of %s is %" PRIu32 ", above the %" PRId64
			    " read up to (the server numbers again): reading it from the day of the first read"
			    ", leaving out the mail already taken",
			    group, range.first, from->last_uid);
		fresh = 1;
	} else if (from && (range.count ? range.last : range.first ? range.first - 1 : 0) <
		   from->last_uid) {
		set_restart(s, "the high mark of %s is %" PRIu32 ", below the %" PRId64
			    " read up to (the server numbers again): reading it from the day of the first read"
			    ", leaving out the mail already taken",
			    group, range.count ? range.last : 0, from->last_uid);
		fresh = 1;
	}
	if (fresh) {
		r = nntp_find_date(conn, &range, since, &start, err);
		if (r < 0) {
			source_close(s);
			return r == NNTP_TEMPORARY ? SOURCE_TEMPORARY : -1;
		}
		s->cursor.last_uid = (int64_t)start - 1;
		if (!range.count)
			s->cursor.last_uid = range.first ? range.first - 1 : 0;
	} else {
		s->cursor.last_uid = from->last_uid;
	}
	s->nntp_next = (uint32_t)s->cursor.last_uid + 1;
	*out = s;
	return 0;
}

/* The next overview window from nntp_next on; 0 when the group is read. */
static int over_window(struct source *s, struct buf *err)
{
	uint32_t lo = s->nntp_next, hi;
	int r;

	free(s->overs);
	s->overs = NULL;
	s->nr_overs = s->next_over = s->batch_end = 0;
	if (!s->nntp_last || lo > s->nntp_last)
		return 0;
	hi = s->nntp_last - lo >= NNTP_OVER_MAX ? lo + NNTP_OVER_MAX - 1 : s->nntp_last;
	r = nntp_over(s->nntp, lo, hi, &s->overs, &s->nr_overs, err);
	if (r < 0)
		return r == NNTP_TEMPORARY ? SOURCE_TEMPORARY : -1;
	s->over_end = hi;
	s->nntp_next = hi + 1;
	return 1;
}

/* Sends ARTICLE for the next batch of the window: at most
 * SOURCE_NNTP_BATCH_MAX articles and SOURCE_NNTP_BATCH_BYTES by the
 * overview's sizes (a larger one alone); oversized ones are not asked for. */
static int nntp_send_batch(struct source *s, struct buf *err)
{
	uint32_t numbers[SOURCE_NNTP_BATCH_MAX];
	size_t end = s->next_over, n = 0;
	uint64_t bytes = 0;
	int r;

	while (end < s->nr_overs && n < SOURCE_NNTP_BATCH_MAX) {
		const struct nntp_over *o = s->overs + end;

		if (o->size <= SOURCE_MAX_MESSAGE) {
			if (n && bytes + o->size > SOURCE_NNTP_BATCH_BYTES)
				break;
			bytes += o->size;
			numbers[n++] = o->number;
		}
		end++;
	}
	r = nntp_article_send(s->nntp, numbers, n, err);
	if (r < 0)
		return r == NNTP_TEMPORARY ? SOURCE_TEMPORARY : -1;
	s->batch_end = end;
	return 0;
}

/* Reads the answers of the batch sent into ready; an error is kept in
 * nntp_failed, for after what was read is handed out. */
static void nntp_read_batch(struct source *s)
{
	size_t i;

	for (i = 0; i < s->nr_ready; i++)
		buf_release(&s->ready[i].raw);
	s->nr_ready = s->next_ready = 0;
	for (; s->next_over < s->batch_end; s->next_over++) {
		const struct nntp_over *o = s->overs + s->next_over;
		struct nntp_ready *d;
		int r = 1;

		ALLOC_GROW(s->ready, s->nr_ready + 1, s->alloc_ready);
		d = s->ready + s->nr_ready;
		d->number = o->number;
		buf_init(&d->raw);
		if (o->size > SOURCE_MAX_MESSAGE) {
			d->state = -1;
			d->size = (size_t)o->size;
		} else if ((r = nntp_article_read(s->nntp, &d->raw, &s->nntp_failure)) < 0) {
			buf_release(&d->raw);
			s->nntp_failed = r == NNTP_TEMPORARY ? SOURCE_TEMPORARY : -1;
			return;
		} else if (r == 1 && d->raw.len > SOURCE_MAX_MESSAGE) {
			/* larger than the overview said */
			d->state = -1;
			d->size = d->raw.len;
			buf_release(&d->raw);
		} else {
			d->state = r;
			d->size = d->raw.len;
		}
		s->nr_ready++;
	}
}

static int next_nntp(struct source *s, struct source_msg *msg, struct buf *err)
{
	for (;;) {
		struct nntp_ready *d;
		struct buf key = BUF_INIT;
		int r;

		if (s->next_ready < s->nr_ready) {
			d = s->ready + s->next_ready++;
			if (d->state == 0) {
				/* removed since the overview: holds nothing back */
				pending_add(s, xstrdup("nntp:removed"), d->number, 1);
				if (pending_advance(s, err) < 0)
					return fail(s, -1, err);
				continue;
			}
			buf_addf(&key, "nntp:%" PRIu32, d->number);
			msg->key = buf_detach(&key, NULL);
			if (d->state < 0) {
				msg->size = d->size;
				msg->oversized = 1;
			} else {
				msg->raw = buf_detach(&d->raw, &msg->len);
				msg->size = msg->len;
			}
			pending_add(s, xstrdup(msg->key), d->number, 0);
			return 1;
		}
		if (s->nntp_failed) {
			err_set(err, "%s", s->nntp_failure.data);
			return fail(s, s->nntp_failed, err);
		}
		if (s->next_over < s->batch_end) {
			/* the batch in flight: read it, and ask for the next
			 * before handing it out, so the server works meanwhile */
			nntp_read_batch(s);
			if (!s->nntp_failed && s->next_over < s->nr_overs &&
			    (r = nntp_send_batch(s, &s->nntp_failure)) < 0)
				s->nntp_failed = r;
			continue;
		}
		if (s->next_over < s->nr_overs) {
			r = nntp_send_batch(s, err);
			if (r < 0)
				return fail(s, r, err);
			continue;
		}
		/* the window is done: the numbers it had no article for hold
		 * nothing back */
		if (s->overs || s->over_end) {
			pending_add(s, xstrdup("nntp:gap"), s->over_end, 1);
			if (pending_advance(s, err) < 0)
				return fail(s, -1, err);
			s->over_end = 0;
		}
		r = over_window(s, err);
		if (r <= 0)
			return r < 0 ? fail(s, r, err) : 0;
	}
}

/* A descriptor */

int source_open_fd(int fd, struct source **out, struct buf *err)
{
	struct source *s;

	*out = NULL;
	if (fd < 0)
		return err_set(err, "no descriptor to read a message from");
	s = source_new(SOURCE_FD);
	s->fd = fd;
	*out = s;
	return 0;
}

static int next_fd(struct source *s, struct source_msg *msg, struct buf *err)
{
	char chunk[65536];
	size_t size = 0;

	if (s->fd_done)
		return 0;
	buf_reset(&s->scratch);
	for (;;) {
		ssize_t n = read(s->fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_set(err, "reading the message from descriptor %d: %s", s->fd, strerror(errno));
			return fail(s, SOURCE_TEMPORARY, err);
		}
		if (n == 0)
			break;
		/* Past the limit the rest is read and counted, not kept: an
		 * MTA writing into a pipe expects it to be read to the end. */
		size += (size_t)n;
		if (size <= SOURCE_MAX_MESSAGE)
			buf_add(&s->scratch, chunk, (size_t)n);
		else if (s->scratch.len)
			buf_release(&s->scratch);
	}
	s->fd_done = 1;
	return msg_from_scratch(s, msg, "-", size);
}

/* All */

int source_next(struct source *s, struct source_msg *msg, struct buf *err)
{
	memset(msg, 0, sizeof(*msg));
	if (s->failed) {
		err_set(err, "%s", s->failure.data);
		return s->failed;
	}
	switch (s->kind) {
	case SOURCE_MAILDIR:
		return next_maildir(s, msg, err);
	case SOURCE_MBOX:
		return next_mbox(s, msg, err);
	case SOURCE_IMAP:
		return next_imap(s, msg, err);
	case SOURCE_NNTP:
		return next_nntp(s, msg, err);
	case SOURCE_FD:
		return next_fd(s, msg, err);
	}
	return err_set(err, "unknown source");
}

int source_ack(struct source *s, const struct source_msg *msg, struct buf *err)
{
	if (!msg->key)
		return err_set(err, "a message without a key cannot be acked");
	switch (s->kind) {
	case SOURCE_MAILDIR:
		return maildir_take(s->maildir, msg->key, err);
	case SOURCE_MBOX:
	case SOURCE_IMAP:
	case SOURCE_NNTP:
		return pending_ack(s, msg->key, err);
	case SOURCE_FD:
		return 0;
	}
	return err_set(err, "unknown source");
}
