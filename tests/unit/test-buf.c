#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "value.h"
#include "json.h"
#include "every-byte.h"

static void buf_appends_and_stays_terminated(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_string_equal(b.data, "");
	buf_adds(&b, "abc");
	buf_addf(&b, "-%d-", 42);
	buf_addchars(&b, 'x', 3);
	assert_string_equal(b.data, "abc-42-xxx");
	assert_int_equal(b.len, 10);
	buf_truncate(&b, 2);
	assert_string_equal(b.data, "ab");
	buf_release(&b);
	assert_string_equal(b.data, "");
}

static void buf_limit_refuses_and_keeps_contents(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	b.limit = 5;
	assert_int_equal(buf_adds(&b, "1234"), 0);
	assert_int_equal(buf_adds(&b, "56"), -1);
	assert_string_equal(b.data, "1234");
	assert_int_equal(buf_addf(&b, "%s", "long text"), -1);
	assert_string_equal(b.data, "1234");
	buf_release(&b);
}

static void err_set_replaces_and_prefix_wraps(void **state)
{
	struct buf err = BUF_INIT;

	(void)state;
	assert_int_equal(err_set(&err, "first %d", 1), -1);
	err_set(&err, "second");
	err_prefix(&err, "file.json: ");
	assert_string_equal(err.data, "file.json: second");
	buf_release(&err);
}

static void value_numbers_print_shortest(void **state)
{
	static const struct { double d; const char *want; } cases[] = {
		{ 85, "85" }, { 1.21, "1.21" }, { -0.5, "-0.5" }, { 0, "0" },
		{ 1e100, "1e+100" }, { 103400000, "103400000" }, { 0.1 + 0.2, "0.30000000000000004" },
		{ -7, "-7" }, { 10, "10" }, { 9007199254740991.0, "9007199254740991" },
		{ -9007199254740991.0, "-9007199254740991" },
		{ 9007199254740992.0, "9007199254740992" }, { -1773035458, "-1773035458" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b = BUF_INIT;

		value_format_number(&b, cases[i].d);
		assert_string_equal(b.data, cases[i].want);
		buf_release(&b);
	}
}

/* The escapes and the runs between them (appended whole). */
static void json_strings_escape_controls(void **state)
{
	static const char in[] = "plain \"q\" back\\slash\n\r\t\x01\x1f\x7f end\xc3\xa9";
	struct buf b = BUF_INIT;

	(void)state;
	value_write_json_string(&b, in, sizeof(in) - 1);
	assert_string_equal(b.data, "\"plain \\\"q\\\" back\\\\slash\\n\\r\\t\\u0001\\u001f"
				    "\\u007f end\xc3\xa9\"");
	buf_reset(&b);
	value_write_json_string(&b, "", 0);
	assert_string_equal(b.data, "\"\"");
	buf_release(&b);
}

/* Each byte at each place of a long plain string (the writer looks at
 * plain runs 16 bytes at a time), between the string's quotes. */
static void json_strings_every_byte_anywhere(void **state)
{
	(void)state;
	every_byte_anywhere(value_write_json_string, 1, 1);
}

static void json_path_index_digits(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	json_path_index(&b, 0);
	json_path_index(&b, 10);
	json_path_index(&b, 4096);
	json_path_index(&b, SIZE_MAX);
	assert_string_equal(b.data, "[0][10][4096][18446744073709551615]");
	buf_release(&b);
}

/* A file read whole whatever its size (one read into a buffer of its
 * size, or several), by path or from its descriptor, and a limit still
 * refused. */
static void buf_read_file_sizes(void **state)
{
	char path[] = "/tmp/test-buf-XXXXXX";
	size_t sizes[] = { 0, 1, 850, 65535, 65536, 65537, 300000 }, i, k;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct buf want = BUF_INIT, got = BUF_INIT, err = BUF_INIT;

		for (k = 0; k < sizes[i]; k++)
			buf_addc(&want, (char)('a' + k % 26));
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(pwrite(fd, want.data ? want.data : "", want.len, 0),
				 (ssize_t)want.len);
		buf_adds(&got, "kept:");
		assert_int_equal(buf_read_file(&got, path, 0, &err), 0);
		assert_int_equal(got.len, 5 + want.len);
		assert_memory_equal(got.data + 5, want.data ? want.data : "", want.len);
		assert_int_equal(got.data[got.len], '\0');
		buf_reset(&got);
		/* read from an open file, into a buffer of its size: not
		 * 64 KB for each small file (the site reads 10,000) */
		{
			struct buf fdgot = BUF_INIT;
			int rfd = open(path, O_RDONLY);

			assert_true(rfd >= 0);
			assert_int_equal(buf_read_fd(&fdgot, rfd, 1u << 20, &err), 0);
			close(rfd);
			assert_int_equal(fdgot.len, want.len);
			assert_memory_equal(fdgot.data, want.data ? want.data : "", want.len);
			if (sizes[i])
				assert_true(fdgot.cap <= (want.len + 2 > 64 ? want.len + 2 : 64));
			buf_release(&fdgot);
		}
		if (sizes[i] > 1) {
			assert_int_equal(buf_read_file(&got, path, sizes[i] - 1, &err), -1);
			assert_int_equal(got.len, 0);
			assert_int_equal(buf_read_file(&got, path, sizes[i], &err), 0);
			assert_int_equal(got.len, want.len);
		}
		buf_release(&want);
		buf_release(&got);
		buf_release(&err);
	}
	close(fd);
	unlink(path);
}

static void json_round_trip_keeps_order(void **state)
{
	const char *in = "{\"b\":1,\"a\":[true,null,\"x\\n\"],\"c\":{\"d\":1.5}}";
	struct value *v;
	struct buf out = BUF_INIT, err = BUF_INIT;

	(void)state;
	assert_int_equal(json_parse(in, strlen(in), "t", &v, &err), 0);
	value_write_json(&out, v, 0);
	assert_string_equal(out.data, in);
	value_free(v);
	buf_release(&out);
	buf_release(&err);
}

static void json_errors_name_place(void **state)
{
	static const struct { const char *in; const char *want; } cases[] = {
		{ "{\"a\":1,\"a\":2}", "t:1:" },
		{ "{\n\"a\": tru}", "t:2:" },
		{ "{\"a\":[1,9007199254740993]}", "a[1]: integer" },
		{ "{\"a\":1e400}", "t:1:" },
		{ "\"\\u0000\"", "t:1:" },
		{ "\"\xff\"", "t:1:" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct value *v = NULL;
		struct buf err = BUF_INIT;

		assert_int_equal(json_parse(cases[i].in, strlen(cases[i].in), "t", &v, &err), -1);
		assert_null(v);
		if (!strstr(err.data, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.data, cases[i].want);
		buf_release(&err);
	}
}

/* buf_add_int() is "%0*lld" for v >= 0, "%lld" for any v. */
static void buf_add_int_is_printf(void **state)
{
	static const long long v[] = { 0, 1, 9, 10, 99, 100, 2026, 12345, -1, -42,
				       9007199254740993LL, LLONG_MAX, LLONG_MIN };
	size_t i;
	int w;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		for (w = 0; w <= 6; w++) {
			struct buf b = BUF_INIT;
			char want[32];

			if (v[i] < 0 && w)
				continue;
			snprintf(want, sizeof(want), "%0*lld", w, v[i]);
			buf_adds(&b, "x");
			buf_add_int(&b, v[i], w);
			assert_string_equal(b.data + 1, want);
			assert_int_equal(b.len, strlen(want) + 1);
			buf_release(&b);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buf_appends_and_stays_terminated),
		cmocka_unit_test(buf_limit_refuses_and_keeps_contents),
		cmocka_unit_test(err_set_replaces_and_prefix_wraps),
		cmocka_unit_test(value_numbers_print_shortest),
		cmocka_unit_test(json_strings_escape_controls),
		cmocka_unit_test(json_strings_every_byte_anywhere),
		cmocka_unit_test(json_path_index_digits),
		cmocka_unit_test(buf_read_file_sizes),
		cmocka_unit_test(json_round_trip_keeps_order),
		cmocka_unit_test(json_errors_name_place),
		cmocka_unit_test(buf_add_int_is_printf),
	};

	return cmocka_run_group_tests_name("buf, value, json", tests, NULL, NULL);
}
