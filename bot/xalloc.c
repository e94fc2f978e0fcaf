#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "banned.h"

static void die_oom(size_t n)
{
	fprintf(stderr, "perfbot: out of memory (allocating %zu bytes)\n", n);
	exit(71);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die_oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die_oom(n);
	return q;
}

void *xmemdup(const void *p, size_t n)
{
	char *q = xmalloc(n + 1);

	memcpy(q, p, n);
	q[n] = '\0';
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	const char *end = memchr(s, '\0', n);

	return xmemdup(s, end ? (size_t)(end - s) : n);
}

char *xstrdup(const char *s)
{
	return xmemdup(s, strlen(s));
}

void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}
