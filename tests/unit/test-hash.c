#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "hash.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Expected digests from Python's hashlib; the lengths around 55, 56 and
 * 64 bytes are SHA's padding edges. */
static const struct {
	char fill;
	size_t n;
	const char *text, *sha256, *sha1;
} cases[] = {
	{ 0, 0, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	  "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
	{ 0, 0, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	  "a9993e364706816aba3e25717850c26c9cd0d89d" },
	{ 0, 0, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", NULL },
	{ 'a', 55, NULL, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318", NULL },
	{ 'a', 56, NULL, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a", NULL },
	{ 'a', 63, NULL, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34", NULL },
	{ 'a', 64, NULL, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb", NULL },
	{ 'a', 1000, NULL, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3",
	  "291e9a6c66994949b57ba5e650361e98fc36b1ba" },
};

static void input(size_t i, struct buf *in)
{
	if (cases[i].text)
		buf_adds(in, cases[i].text);
	else
		buf_addchars(in, cases[i].fill, cases[i].n);
}

static void sha256_known_digests(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf in = BUF_INIT, hex = BUF_INIT, err = BUF_INIT;
		unsigned char d[HASH_SHA256_RAWSZ];

		input(i, &in);
		if (hash_sha256(in.data, in.len, d, &err))
			fail_msg("case %zu: %s", i, err.data);
		hash_hex(&hex, d, sizeof(d));
		if (strcmp(hex.data, cases[i].sha256))
			fail_msg("case %zu (%zu bytes): %s", i, in.len, hex.data);
		buf_release(&in);
		buf_release(&hex);
		buf_release(&err);
	}
}

/* SHA-1 as a stream: the same digest whatever the pieces. */
static void sha1_stream(void **state)
{
	size_t i, step;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf in = BUF_INIT;

		if (!cases[i].sha1)
			continue;
		input(i, &in);
		for (step = 1; step <= 64; step *= 4) {
			struct hash_sha1 h;
			struct buf hex = BUF_INIT, err = BUF_INIT;
			unsigned char d[HASH_SHA1_RAWSZ];
			size_t off;

			if (hash_sha1_init(&h, &err))
				fail_msg("%s", err.data);
			for (off = 0; off < in.len; off += step)
				hash_sha1_update(&h, in.data + off, in.len - off < step ? in.len - off : step);
			hash_sha1_final(&h, d);
			hash_hex(&hex, d, sizeof(d));
			if (strcmp(hex.data, cases[i].sha1))
				fail_msg("case %zu, pieces of %zu: %s", i, step, hex.data);
			hash_sha1_release(&h);	/* after final: harmless */
			buf_release(&hex);
			buf_release(&err);
		}
		buf_release(&in);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sha256_known_digests),
		cmocka_unit_test(sha1_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
