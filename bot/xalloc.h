#ifndef PERFBOT_XALLOC_H
#define PERFBOT_XALLOC_H

/*
 * Allocation that cannot fail: on out-of-memory these print one line and
 * exit(71) (EX_OSERR).  This is the only place perfbot exits outside main.c
 * and cmd-*.c, so that no other code needs an out-of-memory path.
 */

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);

/* Grow an array so that it holds at least nr elements: ALLOC_GROW(a, nr, alloc). */
#define ALLOC_GROW(a, nr, alloc) do { \
	if ((nr) > (alloc)) { \
		(alloc) = (alloc) < 8 ? 8 : (alloc) * 2; \
		if ((alloc) < (nr)) \
			(alloc) = (nr); \
		(a) = xrealloc((a), (alloc) * sizeof(*(a))); \
	} \
} while (0)

/* qsort() of an array that may be NULL when n is 0, which qsort() itself
 * does not allow (arrays perfbot grows start NULL). */
void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
