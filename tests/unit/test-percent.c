#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "percent.h"

static void decodes(void **state)
{
	static const struct {
		const char *in;
		int strict, ret;
		const char *want;
	} cases[] = {
		{ "plain", 0, 0, "plain" },
		{ "a%20b%2fc%2Fd", 0, 0, "a b/c/d" },
		{ "%3C1234.abcd%40x.org%3e", 0, 0, "<1234.abcd@x.org>" },
		{ "100%", 0, 0, "100%" },		/* lenient: a lone % stays */
		{ "%zz%4", 0, 0, "%zz%4" },
		{ "100%", 1, -1, "100" },		/* strict: it stops there */
		{ "a%4g", 1, -1, "a" },
		{ "%00x", 0, 0, "\0x" },		/* any byte, NUL included */
		{ "", 1, 0, "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT;
		size_t want_len = strlen(cases[i].want);

		if (!strcmp(cases[i].in, "%00x"))
			want_len = 2;
		assert_int_equal(percent_decode(cases[i].in, strlen(cases[i].in), cases[i].strict, &out),
				 cases[i].ret);
		assert_int_equal(out.len, want_len);
		assert_memory_equal(out.data, cases[i].want, want_len);
		buf_release(&out);
	}
}

static void limit_and_digits(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	out.limit = 3;
	assert_int_equal(percent_decode("%41%42%43", 9, 0, &out), 0);
	assert_string_equal(out.data, "ABC");
	assert_int_equal(percent_decode("D", 1, 0, &out), -1);
	buf_release(&out);
	assert_int_equal(percent_hex('0'), 0);
	assert_int_equal(percent_hex('f'), 15);
	assert_int_equal(percent_hex('F'), 15);
	assert_int_equal(percent_hex('g'), -1);
	assert_int_equal(percent_hex(0xc3), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decodes),
		cmocka_unit_test(limit_and_digits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
