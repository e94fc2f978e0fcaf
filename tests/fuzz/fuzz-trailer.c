/*
 * libFuzzer target for bot/trailer.h: trailer_parse() in its three modes
 * on the input, into one list reused as history.c reuses it.  Besides
 * crashes, leaks and undefined behaviour it checks the contracts of
 * trailer.h and aborts when one is broken:
 *   - a key is one or more ASCII letters, digits and '-' (git's key rule);
 *   - a value holds no LF and starts and ends with no white space;
 *   - the output is no longer than the input, and no more trailers come
 *     out than the input has lines;
 *   - a trailer line split by trailer_line_split() has the key the list
 *     gave for it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trailer.h"

#define check(ok) check_at((ok), __LINE__)

static void check_at(int ok, int line)
{
	if (!ok) {
		fprintf(stderr, "fuzz-trailer.c:%d: contract broken\n", line);
		abort();
	}
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void check_list(const struct trailer_list *l, const char *data, size_t size)
{
	size_t i, j, lines = 1, out = 0;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	check(l->nr <= lines);
	for (i = 0; i < l->nr; i++) {
		const char *k = l->v[i].key, *v = l->v[i].value;
		size_t kn = strlen(k), vn = strlen(v), key_len, off;

		check(kn > 0);
		for (j = 0; j < kn; j++)
			check((k[j] >= 'a' && k[j] <= 'z') || (k[j] >= 'A' && k[j] <= 'Z') ||
			      (k[j] >= '0' && k[j] <= '9') || k[j] == '-');
		check(!memchr(v, '\n', vn));
		check(!vn || (!is_space(v[0]) && !is_space(v[vn - 1])));
		out += kn + vn;
		check(trailer_line_split(k, kn, &key_len, &off) == 0);
	}
	check(out <= size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum trailer_mode modes[] = { TRAILER_COMMIT, TRAILER_NO_DIVIDER, TRAILER_MAIL };
	struct trailer_list l = TRAILER_LIST_INIT;
	size_t i, key_len, off;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		trailer_parse(&l, (const char *)data, size, modes[i]);
		check_list(&l, (const char *)data, size);
	}
	if (trailer_line_split((const char *)data, size, &key_len, &off)) {
		check(key_len > 0 && key_len < off && off <= size);
		check(data[off - 1] == ':');
	}
	trailer_list_release(&l);
	return 0;
}
