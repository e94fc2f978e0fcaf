#ifndef PERFBOT_BUF_H
#define PERFBOT_BUF_H

/*
 * struct buf: perfbot's one growable byte buffer (after git's strbuf).
 *
 * Invariants, always, also after a failed append:
 *   - b->data is never NULL (an empty buffer points at a static "").
 *   - b->data[b->len] == '\0', so data can be used as a C string when it
 *     holds no NUL bytes of its own.
 *   - b->len < b->cap or b->cap == 0 (the static empty string).
 *
 * A buffer may carry a size cap (b->limit, 0 = none) for untrusted input:
 * an append that would pass it fails with -1 and leaves the buffer as it
 * was.  Appends without a cap cannot fail: running out of memory is fatal
 * in one place (xmalloc).
 *
 * Lifecycle: BUF_INIT or buf_init() (no allocation); buf_release() frees
 * the contents and leaves an empty, reusable buffer; buf_detach() hands the
 * bytes to the caller (free() them).
 */

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct buf {
	char *data;	/* the bytes, NUL-terminated; never NULL */
	size_t len;	/* bytes in use, not counting the terminating NUL */
	size_t cap;	/* bytes allocated; 0 while data is the static "" */
	size_t limit;	/* largest len allowed; 0 = no limit */
};

extern char buf_empty[];
#define BUF_INIT { buf_empty, 0, 0, 0 }

void buf_init(struct buf *b);
void buf_release(struct buf *b);
/* Returns the bytes (malloc'd, NUL-terminated; *len set if len != NULL)
 * and leaves b empty. */
char *buf_detach(struct buf *b, size_t *len);

/* Make room for n more bytes.  -1 only when that would pass b->limit. */
int buf_grow(struct buf *b, size_t n);
void buf_reset(struct buf *b);
/* Cut to len bytes (len <= b->len). */
void buf_truncate(struct buf *b, size_t len);

/* Appends n bytes (data may not point past b->len into b).  Inline: a
 * page is thousands of small appends, most of them of a literal, whose
 * length the compiler then knows; buf_add_grow() when b must grow. */
int buf_add_grow(struct buf *b, const void *data, size_t n);
static inline int buf_add(struct buf *b, const void *data, size_t n)
{
	if (n >= b->cap - b->len || b->limit)
		return buf_add_grow(b, data, n);
	memmove(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}
static inline int buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}
/* Inline: parsers append most bytes one at a time (a call each was a
 * sixth of ingest's instructions); the slow path is buf_grow(). */
static inline int buf_addc(struct buf *b, char c)
{
	if ((b->cap - b->len <= 1 || b->limit) && buf_grow(b, 1) < 0)
		return -1;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
	return 0;
}
/* Append c n times. */
int buf_addchars(struct buf *b, char c, size_t n);
/* Append v in decimal, its digits zero-padded to at least width, the
 * sign before them (for v >= 0, "%0*lld"): without vsnprintf, which
 * costs a thousand instructions a call (a site run formats a few dozen
 * numbers for each of 10,000 reports). */
int buf_add_int(struct buf *b, long long v, int width);
/* Append u in decimal ("%llu"). */
int buf_add_uint(struct buf *b, unsigned long long u);
int buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * Error messages: library code reports a failure by returning -1 and
 * appending one lowercase message to a caller-owned struct buf *err.
 * err_set() replaces whatever err held (so the innermost, most precise
 * message is kept unless a caller deliberately wraps it with err_prefix()).
 * Both accept err == NULL and then do nothing.  Both return -1, so a
 * failure path can be written `return err_set(err, "...")`.
 */
int err_set(struct buf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int err_prefix(struct buf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Read a whole file (at most limit bytes; 0 = no limit) into b, appending.
 * -1 with a message naming the path on a read error or when it is larger. */
int buf_read_file(struct buf *b, const char *path, size_t limit, struct buf *err);
/* Read all of fd (at most limit bytes) into b, appending. */
int buf_read_fd(struct buf *b, int fd, size_t limit, struct buf *err);

#endif
