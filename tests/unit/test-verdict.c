#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "verdict.h"

static const struct verdict_limits defaults = { 0.9, 1, 0.2 };

/* Every boundary of verdict.h's rules, on both sides, with means whose
 * ratios are exact in binary (b = 100, h = 50: r = (f - 50) / 50). */
static void judges_at_every_boundary(void **state)
{
	static const struct {
		double b, h, f;
		enum verdict want;
	} cases[] = {
		{ 100, 50, 95, VERDICT_FIXED },		/* r = 0.9: fixedRatio itself */
		{ 100, 50, 94.5, VERDICT_PARTIAL },	/* r = 0.89 */
		{ 100, 50, 60, VERDICT_PARTIAL },	/* r = 0.2: partialRatio itself */
		{ 100, 50, 59.5, VERDICT_NOT_FIXED },	/* r = 0.19 */
		{ 100, 50, 50, VERDICT_NOT_FIXED },	/* r = 0 */
		{ 100, 50, 40.5, VERDICT_NOT_FIXED },	/* r = -0.19 */
		{ 100, 50, 40, VERDICT_WORSE },		/* r = -0.2 */
		{ 100, 50, 10, VERDICT_WORSE },
		{ 100, 50, 120, VERDICT_FIXED },	/* r = 1.4: better than the base */
		/* a small regression: the noise rule decides */
		{ 100, 99, 99, VERDICT_FIXED },		/* |f - b| / b = 1%: noisePercent itself */
		{ 100, 99, 98.9, VERDICT_NOT_FIXED },	/* 1.1%, r = -0.1 */
		{ 100, 99, 101, VERDICT_FIXED },	/* 1% the other way */
		/* lower is better: the same rules, the signs turned */
		{ 100, 150, 105, VERDICT_FIXED },	/* r = 0.9 */
		{ 100, 150, 140, VERDICT_PARTIAL },	/* r = 0.2 */
		{ 100, 150, 160, VERDICT_WORSE },	/* r = -0.2 */
		{ 100, 150, 150, VERDICT_NOT_FIXED },
		/* no regression at all (b == h): noise or not-fixed */
		{ 100, 100, 100.5, VERDICT_FIXED },
		{ 100, 100, 120, VERDICT_NOT_FIXED },
		/* a zero base: no relative distance, r alone */
		{ 0, 5, 0.5, VERDICT_FIXED },		/* r = 0.9 */
		{ 0, 5, 4, VERDICT_PARTIAL },		/* r = 0.2 */
		{ 0, 0, 0, VERDICT_NOT_FIXED },
		/* negative means (a metric below zero) */
		{ -100, -50, -95, VERDICT_FIXED },
		{ -100, -50, -60, VERDICT_PARTIAL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum verdict got = verdict_judge(cases[i].b, cases[i].h, cases[i].f, &defaults);

		if (got != cases[i].want)
			fail_msg("b %g h %g f %g: %s, want %s", cases[i].b, cases[i].h, cases[i].f,
				 verdict_name(got), verdict_name(cases[i].want));
	}
}

static void limits_are_the_configured_ones(void **state)
{
	struct verdict_limits l = { 0.5, 0, 0.1 };

	(void)state;
	assert_int_equal(verdict_judge(100, 50, 75, &l), VERDICT_FIXED);	/* r = 0.5 */
	assert_int_equal(verdict_judge(100, 50, 74, &l), VERDICT_PARTIAL);
	assert_int_equal(verdict_judge(100, 50, 55, &l), VERDICT_PARTIAL);	/* r = 0.1 */
	assert_int_equal(verdict_judge(100, 50, 45, &l), VERDICT_WORSE);	/* r = -0.1 */
	assert_int_equal(verdict_judge(100, 99, 99.9, &l), VERDICT_FIXED);	/* r = 0.9 */
	assert_int_equal(verdict_judge(100, 99, 99.4, &l), VERDICT_PARTIAL);	/* r = 0.4 */
	assert_int_equal(verdict_judge(100, 100, 100.5, &l), VERDICT_NOT_FIXED);	/* noise 0 */
}

static void names_and_words(void **state)
{
	static const struct {
		enum verdict v;
		double head, tested;
		int absolute;
		const char *want;
	} cases[] = {
		{ VERDICT_FIXED, -13.1, 0.3, 0, "recovered: from -13.1% to +0.3%" },
		{ VERDICT_PARTIAL, -13.1, -4.5, 0, "partially recovered: from -13.1% to -4.5%" },
		{ VERDICT_WORSE, 25.04, 40, 0, "worse: from +25.0% to +40.0%" },
		{ VERDICT_NOT_FIXED, -6.2, -6.0, 0, "not recovered: still -6.0%" },
		{ VERDICT_PARTIAL, -0.52, -0.1, 1, "partially recovered: from -0.52 to -0.10" },
	};
	enum verdict v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT;

		verdict_words(&out, cases[i].v, cases[i].head, cases[i].tested, cases[i].absolute);
		assert_string_equal(out.data, cases[i].want);
		buf_release(&out);
		assert_int_equal(verdict_parse(verdict_name(cases[i].v), &v), 0);
		assert_int_equal(v, cases[i].v);
	}
	assert_string_equal(verdict_name(VERDICT_NOT_FIXED), "not-fixed");
	assert_int_equal(verdict_parse("Fixed", &v), -1);
	assert_int_equal(verdict_parse("", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(judges_at_every_boundary),
		cmocka_unit_test(limits_are_the_configured_ones),
		cmocka_unit_test(names_and_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
