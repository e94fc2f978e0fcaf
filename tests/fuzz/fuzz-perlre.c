/*
 * libFuzzer target for bot/perlre: the input is a flag byte, a pattern,
 * a NUL, then a subject (any bytes).  Besides crashes, leaks and
 * undefined behaviour it checks the contracts of perlre.h and aborts when
 * one is broken:
 *   - a refused pattern leaves *out NULL and a message in err;
 *   - the required literals are non-empty and lowercase, and a subject
 *     that matches holds one of them, ignoring ASCII case (the filter
 *     maintainers-match.c relies on never to lose a match);
 *   - a pattern made with PERLRE_CHECKED (compiled on first use) gives
 *     the same answer as one compiled at once.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perlre.h"
#include "xalloc.h"

#define check(ok) check_at((ok), __LINE__)

static void check_at(int ok, int line)
{
	if (!ok) {
		fprintf(stderr, "fuzz-perlre.c:%d: contract broken\n", line);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1, *nul;
	size_t plen, slen, i;
	unsigned flags;
	struct perlre *re = NULL, *lazy = NULL;
	struct buf err = BUF_INIT;
	char *subject, *lower;
	int r, r2;

	if (size < 1)
		return 0;
	flags = data[0] & PERLRE_EXTENDED;
	nul = memchr(p, '\0', size - 1);
	plen = nul ? (size_t)(nul - p) : size - 1;
	slen = nul ? size - 1 - plen - 1 : 0;
	subject = xmalloc(slen + 1);
	memcpy(subject, nul ? nul + 1 : "", slen);
	subject[slen] = '\0';
	if (perlre_new(p, plen, flags, &re, &err) < 0) {
		check(re == NULL && err.len > 0);
		free(subject);
		buf_release(&err);
		return 0;
	}
	for (i = 0; i < perlre_nr_literals(re); i++) {
		const char *l = perlre_literal(re, i);

		check(*l != '\0');
		for (; *l; l++)
			check(tolower((unsigned char)*l) == (unsigned char)*l);
	}
	r = perlre_match(re, subject, slen, &err);
	check(r >= -1 && r <= 1);
	if (r == 1 && perlre_nr_literals(re)) {
		int found = 0;

		lower = xmemdup(subject, slen + 1);
		for (i = 0; i < slen; i++)
			lower[i] = (char)tolower((unsigned char)lower[i]);
		for (i = 0; i < perlre_nr_literals(re) && !found; i++)
			found = memmem(lower, slen, perlre_literal(re, i), strlen(perlre_literal(re, i))) != NULL;
		check(found);
		free(lower);
	}
	check(perlre_new(p, plen, flags | PERLRE_CHECKED, &lazy, &err) == 0);
	r2 = perlre_match(lazy, subject, slen, &err);
	check(r2 == r || r == -1 || r2 == -1);
	check(perlre_nr_literals(lazy) == perlre_nr_literals(re));
	perlre_free(lazy);
	perlre_free(re);
	free(subject);
	buf_release(&err);
	return 0;
}
