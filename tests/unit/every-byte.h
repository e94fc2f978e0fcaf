/*
 * every-byte.h: for the unit tests of the escapers that look at plain text
 * many bytes at a time (test-html.c, test-buf.c) only.  Included after
 * <cmocka.h> and buf.h; a static function.
 */
#ifndef PERFBOT_TEST_EVERY_BYTE_H
#define PERFBOT_TEST_EVERY_BYTE_H

/*
 * Each byte at each place of a 40-byte plain text (past two 16-byte
 * blocks and into a tail): what write() appends for it is what it appends
 * for that byte alone, between the text's two plain halves.  write() puts
 * lead bytes before and trail bytes after what it writes (a JSON string's
 * quotes).
 */
static void every_byte_anywhere(void (*write)(struct buf *, const char *, size_t), size_t lead,
				size_t trail)
{
	unsigned c;
	size_t at;

	for (c = 0; c < 256; c++) {
		struct buf one = BUF_INIT;
		char b = (char)c;

		write(&one, &b, 1);
		assert_true(one.len >= lead + trail);
		for (at = 0; at < 40; at++) {
			char in[40];
			struct buf got = BUF_INIT, want = BUF_INIT;
			size_t k;

			for (k = 0; k < sizeof(in); k++)
				in[k] = (char)('a' + k % 26);
			in[at] = b;
			write(&got, in, sizeof(in));
			buf_add(&want, one.data, lead);
			buf_add(&want, in, at);
			buf_add(&want, one.data + lead, one.len - lead - trail);
			buf_add(&want, in + at + 1, sizeof(in) - at - 1);
			buf_add(&want, one.data + one.len - trail, trail);
			assert_int_equal(got.len, want.len);
			assert_memory_equal(got.data, want.data, got.len);
			buf_release(&got);
			buf_release(&want);
		}
		buf_release(&one);
	}
}

#endif
