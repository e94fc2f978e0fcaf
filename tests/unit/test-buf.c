#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "value.h"
#include "json.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buf_appends_and_stays_terminated),
		cmocka_unit_test(buf_limit_refuses_and_keeps_contents),
		cmocka_unit_test(err_set_replaces_and_prefix_wraps),
		cmocka_unit_test(value_numbers_print_shortest),
		cmocka_unit_test(json_round_trip_keeps_order),
		cmocka_unit_test(json_errors_name_place),
	};

	return cmocka_run_group_tests_name("buf, value, json", tests, NULL, NULL);
}
