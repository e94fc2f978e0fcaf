#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "xalloc.h"
#include "banned.h"

char buf_empty[1];

void buf_init(struct buf *b)
{
	b->data = buf_empty;
	b->len = 0;
	b->cap = 0;
	b->limit = 0;
}

void buf_release(struct buf *b)
{
	size_t limit = b->limit;

	if (b->cap)
		free(b->data);
	buf_init(b);
	b->limit = limit;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (len)
		*len = b->len;
	p = b->cap ? b->data : xstrdup("");
	buf_init(b);
	return p;
}

int buf_grow(struct buf *b, size_t n)
{
	size_t want;

	if (b->limit && (n > b->limit || b->len > b->limit - n))
		return -1;
	if (n >= (size_t)-1 / 2 - b->len) {
		fprintf(stderr, "perfbot: buffer size overflow\n");
		abort();
	}
	want = b->len + n + 1;
	if (want <= b->cap)
		return 0;
	if (want < b->cap * 2)
		want = b->cap * 2;
	if (want < 64)
		want = 64;
	if (b->cap) {
		b->data = xrealloc(b->data, want);
	} else {
		b->data = xmalloc(want);
		b->data[0] = '\0';
	}
	b->cap = want;
	return 0;
}

void buf_reset(struct buf *b)
{
	buf_truncate(b, 0);
}

void buf_truncate(struct buf *b, size_t len)
{
	if (len > b->len)
		len = b->len;
	b->len = len;
	if (b->cap)
		b->data[len] = '\0';
}

/* n more bytes and the NUL already fit, and no limit to check: the common
 * case of every append, decided without a call (rendering a report makes
 * thousands of small appends). */
static inline int has_room(const struct buf *b, size_t n)
{
	return n < b->cap - b->len && !b->limit;
}

int buf_add_grow(struct buf *b, const void *data, size_t n)
{
	if (!n)
		return 0;
	if (!has_room(b, n) && buf_grow(b, n) < 0)
		return -1;
	memmove(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int buf_addchars(struct buf *b, char c, size_t n)
{
	if (!n)
		return 0;
	if (!has_room(b, n) && buf_grow(b, n) < 0)
		return -1;
	memset(b->data + b->len, c, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

/* u's digits, zero-padded to width (at most 22), after sign when not 0. */
static int add_decimal(struct buf *b, unsigned long long u, int width, char sign)
{
	char tmp[24];
	size_t at = sizeof(tmp);

	do {
		tmp[--at] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (at > 1 && (int)(sizeof(tmp) - at) < width)
		tmp[--at] = '0';
	if (sign)
		tmp[--at] = sign;
	return buf_add(b, tmp + at, sizeof(tmp) - at);
}

int buf_add_int(struct buf *b, long long v, int width)
{
	return add_decimal(b, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, width,
			   v < 0 ? '-' : 0);
}

int buf_add_uint(struct buf *b, unsigned long long u)
{
	return add_decimal(b, u, 0, 0);
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (buf_grow(b, 64) < 0)
		return -1;
	va_copy(cp, ap);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, cp);
	va_end(cp);
	if (n < 0) {
		b->data[b->len] = '\0';
		return -1;
	}
	if ((size_t)n >= b->cap - b->len) {
		if (buf_grow(b, (size_t)n) < 0) {
			b->data[b->len] = '\0';
			return -1;
		}
		va_copy(cp, ap);
		n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, cp);
		va_end(cp);
	}
	b->len += (size_t)n;
	return 0;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

int err_set(struct buf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	buf_reset(err);
	va_start(ap, fmt);
	buf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct buf *err, const char *fmt, ...)
{
	struct buf pre = BUF_INIT;
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	buf_vaddf(&pre, fmt, ap);
	va_end(ap);
	buf_add(&pre, err->data, err->len);
	buf_reset(err);
	buf_add(err, pre.data, pre.len);
	buf_release(&pre);
	return -1;
}

int buf_read_fd(struct buf *b, int fd, size_t limit, struct buf *err)
{
	size_t start = b->len;
	struct stat st;

	/* a file: room for all of it and its end, one allocation of its
	 * size and one read (the site reads a small samples file per
	 * report; 64 KB for each, then freed, made it fault pages in) */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (!limit || (uint64_t)st.st_size <= limit) && (uint64_t)st.st_size < (1ull << 40))
		buf_grow(b, (size_t)st.st_size + 1);
	for (;;) {
		ssize_t n;

		/* grown only when full (a limited buffer: each time, so that
		 * the limit is checked): a file read into a buffer sized for
		 * it above is not copied into a bigger one just to see its
		 * end */
		if ((b->limit || b->cap - b->len <= 1) && buf_grow(b, 65536) < 0)
			return err_set(err, "input is larger than the buffer allows");
		n = read(fd, b->data + b->len, b->cap - b->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			buf_truncate(b, start);
			return err_set(err, "read failed: %s", strerror(errno));
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		b->data[b->len] = '\0';
		if (limit && b->len - start > limit) {
			buf_truncate(b, start);
			return err_set(err, "input is larger than %zu bytes", limit);
		}
	}
	return 0;
}

int buf_read_file(struct buf *b, const char *path, size_t limit, struct buf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return err_set(err, "%s: cannot open: %s", path, strerror(errno));
	r = buf_read_fd(b, fd, limit, err);
	close(fd);
	if (r < 0)
		err_prefix(err, "%s: ", path);
	return r;
}
