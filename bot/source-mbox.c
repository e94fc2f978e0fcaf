#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "source-mbox.h"
#include "xalloc.h"
#include "banned.h"

struct mbox {
	char *path;
	int fd;
	int64_t size;		/* noted under the lock; nothing past it is read */
	char *buf;		/* MBOX_CHUNK bytes: the file from bufpos on */
	int64_t bufpos;
	size_t start, end;	/* unread bytes are buf[start..end-1] */
	int bol;		/* buf[start] begins a line */
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Notes the size while no writer appends: see mbox.h. */
static int snapshot_size(struct mbox *m, struct buf *err)
{
	struct flock lk = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	struct stat st;
	long waited = 0;
	int locked = 0, ret = 0;

	for (;;) {
		if (fcntl(m->fd, F_SETLK, &lk) == 0) {
			locked = 1;
			break;
		}
		if (errno != EAGAIN && errno != EACCES)
			break;	/* e.g. ENOLCK: a file system without locks */
		if (waited >= MBOX_LOCK_WAIT_MS) {
			err_set(err, "%s: another program kept the mailbox locked for %d s; "
				"try again later", m->path, MBOX_LOCK_WAIT_MS / 1000);
			return MBOX_BUSY;
		}
		sleep_ms(50);
		waited += 50;
	}
	if (fstat(m->fd, &st) < 0)
		ret = err_set(err, "%s: %s", m->path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		ret = err_set(err, "%s: not a regular file", m->path);
	else
		m->size = st.st_size;
	if (locked) {
		lk.l_type = F_UNLCK;
		fcntl(m->fd, F_SETLK, &lk);
	}
	return ret;
}

int mbox_open(const char *path, struct mbox **out, struct buf *err)
{
	struct mbox *m;
	int fd, r;

	*out = NULL;
	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below. */
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, "%s: %s", path, strerror(errno));
	m = xcalloc(1, sizeof(*m));
	m->path = xstrdup(path);
	m->fd = fd;
	r = snapshot_size(m, err);
	if (r < 0) {
		mbox_free(m);
		return r;
	}
	m->buf = xmalloc(MBOX_CHUNK);
	m->bol = 1;
	*out = m;
	return 0;
}

int64_t mbox_size(const struct mbox *m)
{
	return m->size;
}

void mbox_free(struct mbox *m)
{
	if (!m)
		return;
	close(m->fd);
	free(m->buf);
	free(m->path);
	free(m);
}

/* Reads exactly n bytes at off, all below the noted size. */
static int read_at(struct mbox *m, void *dst, size_t n, int64_t off, struct buf *err)
{
	char *p = dst;

	while (n) {
		ssize_t r = pread(m->fd, p, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_set(err, "%s: %s", m->path, strerror(errno));
		if (r == 0)
			return err_set(err, "%s: the file shrank while perfbot read it; "
				       "run again to read it from the start", m->path);
		p += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

static int64_t offset_now(const struct mbox *m)
{
	return m->bufpos + (int64_t)m->start;
}

static void reader_reset(struct mbox *m, int64_t offset)
{
	m->bufpos = offset;
	m->start = m->end = 0;
	m->bol = 1;
}

/*
 * The next piece of the current line, without taking it: a whole line
 * with its '\n', or MBOX_CHUNK bytes of a longer one, or the file's last
 * bytes when they do not end in '\n'.  A piece that begins a line holds
 * the line's first min(length, MBOX_CHUNK) bytes.  1, 0 at the end, -1.
 */
static int line_peek(struct mbox *m, const char **line, size_t *n, struct buf *err)
{
	for (;;) {
		char *nl = memchr(m->buf + m->start, '\n', m->end - m->start);
		int64_t left;
		size_t want;

		if (nl) {
			*n = (size_t)(nl + 1 - (m->buf + m->start));
			break;
		}
		if (m->end - m->start == MBOX_CHUNK) {
			*n = MBOX_CHUNK;
			break;
		}
		left = m->size - (m->bufpos + (int64_t)m->end);
		if (left == 0) {
			*n = m->end - m->start;
			if (!*n)
				return 0;
			break;
		}
		memmove(m->buf, m->buf + m->start, m->end - m->start);
		m->bufpos += (int64_t)m->start;
		m->end -= m->start;
		m->start = 0;
		want = MBOX_CHUNK - m->end;
		if ((int64_t)want > left)
			want = (size_t)left;
		if (read_at(m, m->buf + m->end, want, m->bufpos + (int64_t)m->end, err) < 0)
			return -1;
		m->end += want;
	}
	*line = m->buf + m->start;
	return 1;
}

static void line_take(struct mbox *m, size_t n)
{
	m->start += n;
	m->bol = m->buf[m->start - 1] == '\n';
}

static int is_from_line(const char *line, size_t n)
{
	return n >= 5 && !memcmp(line, "From ", 5);
}

static int is_empty_line(const char *line, size_t n)
{
	return (n == 1 && line[0] == '\n') || (n == 2 && line[0] == '\r' && line[1] == '\n');
}

/* ">+From " (mboxrd's escape). */
static int is_escaped_from(const char *line, size_t n)
{
	size_t i = 0;

	while (i < n && line[i] == '>')
		i++;
	return i > 0 && is_from_line(line + i, n - i);
}

int mbox_seek(struct mbox *m, int64_t offset, struct buf *err)
{
	char head[8];
	size_t n, skip = 0;

	if (offset < 0 || offset > m->size)
		return 0;
	if (offset > 0 && offset < m->size) {
		n = m->size - offset < 7 ? (size_t)(m->size - offset) : 7;
		if (read_at(m, head, n + 1, offset - 1, err) < 0)
			return -1;
		/* A message without the separator's empty line may have been
		 * the last when the offset was stored; the writer that appended
		 * after it may have added the empty line first. */
		if (n > 1 && head[1] == '\n')
			skip = 1;
		else if (n > 2 && head[1] == '\r' && head[2] == '\n')
			skip = 2;
		if (head[0] != '\n' || n < skip + 5 || memcmp(head + 1 + skip, "From ", 5))
			return 0;
	}
	reader_reset(m, offset + (int64_t)skip);
	return 1;
}

/* Appends n bytes of the message, or only counts them once past limit. */
static void message_add(struct buf *msg, size_t limit, struct mbox_pos *pos,
			const char *p, size_t n)
{
	pos->size += n;
	if (pos->size <= limit)
		buf_add(msg, p, n);
	else if (msg->len)
		buf_release(msg);
}

int mbox_next(struct mbox *m, struct buf *msg, size_t limit, struct mbox_pos *pos,
	      struct buf *err)
{
	const char *line;
	size_t n, held = 0;
	int r;

	buf_reset(msg);
	r = line_peek(m, &line, &n, err);
	if (r <= 0)
		return r;
	if (!m->bol || !is_from_line(line, n)) {
		if (offset_now(m) == 0)
			return err_set(err, "%s: not an mbox file: it does not begin with a \"From \" line",
				       m->path);
		return err_set(err, "%s: no \"From \" line at offset %" PRId64, m->path, offset_now(m));
	}
	pos->start = offset_now(m);
	pos->size = 0;
	do {
		line_take(m, n);
		if (m->bol)
			break;
		r = line_peek(m, &line, &n, err);
	} while (r > 0);
	if (r < 0)
		return -1;

	while ((r = line_peek(m, &line, &n, err)) > 0) {
		int at_bol = m->bol;

		if (at_bol && is_from_line(line, n))
			break;
		/* An empty line waits: if the next "From " or the end follows,
		 * it is the separator and not the message's. */
		if (held)
			message_add(msg, limit, pos, held == 2 ? "\r\n" : "\n", held);
		held = 0;
		if (at_bol && is_empty_line(line, n))
			held = n;
		else if (at_bol && is_escaped_from(line, n))
			message_add(msg, limit, pos, line + 1, n - 1);
		else
			message_add(msg, limit, pos, line, n);
		line_take(m, n);
	}
	if (r < 0)
		return -1;
	pos->end = offset_now(m);
	if (pos->size > limit)
		buf_release(msg);
	return 1;
}

int mbox_fingerprint(struct mbox *m, int64_t offset, char hex[MBOX_FINGERPRINT_LEN + 1],
		     struct buf *err)
{
	struct buf data = BUF_INIT;
	unsigned char digest[HASH_SHA256_RAWSZ];
	struct buf h = BUF_INIT;
	int64_t head, tail;
	size_t before;
	int r;

	if (offset < 0 || offset > m->size)
		return err_set(err, "%s: offset %" PRId64 " is past the end (%" PRId64 " bytes)",
			       m->path, offset, m->size);
	head = offset < MBOX_FINGERPRINT_SPAN ? offset : MBOX_FINGERPRINT_SPAN;
	tail = offset - head;
	if (tail > MBOX_FINGERPRINT_SPAN)
		tail = MBOX_FINGERPRINT_SPAN;
	buf_addf(&data, "%" PRId64 ":", offset);
	before = data.len;
	buf_grow(&data, (size_t)(head + tail));
	if (read_at(m, data.data + before, (size_t)head, 0, err) < 0 ||
	    read_at(m, data.data + before + head, (size_t)tail, offset - tail, err) < 0) {
		buf_release(&data);
		return -1;
	}
	data.len += (size_t)(head + tail);
	r = hash_sha256(data.data, data.len, digest, err);
	buf_release(&data);
	if (r < 0)
		return err_prefix(err, "%s: ", m->path);
	hash_hex(&h, digest, sizeof(digest));
	memcpy(hex, h.data, MBOX_FINGERPRINT_LEN + 1);
	buf_release(&h);
	return 0;
}
