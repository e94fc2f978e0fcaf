#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <limits.h>
#include <cmocka.h>

#include "delivery.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* delivery_backoff(): perfbot.retryMinutes after the first failure,
 * doubling after each further one, never more than a day. */
static void backoff(void **state)
{
	static const struct {
		int minutes, attempts;
		int64_t want;
	} cases[] = {
		{ 5, 1, 300 }, { 5, 2, 600 }, { 5, 3, 1200 }, { 5, 4, 2400 },
		{ 5, 9, 76800 }, { 5, 10, 86400 }, { 5, 11, 86400 },
		{ 5, INT_MAX, 86400 },		/* no overflow, however many */
		{ 0, 1, 0 }, { 0, 50, 0 },	/* 0: retry at the next send */
		{ 1, 0, 60 },			/* attempts counts from 1; 0 is taken as 1 */
		{ 1440, 1, 86400 }, { 1440, 2, 86400 },
		{ 100000, 1, 86400 },		/* a retry time beyond a day is a day */
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (delivery_backoff(cases[i].minutes, cases[i].attempts) != cases[i].want)
			fail_msg("delivery_backoff(%d, %d) = %lld, want %lld", cases[i].minutes,
				 cases[i].attempts,
				 (long long)delivery_backoff(cases[i].minutes, cases[i].attempts),
				 (long long)cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(backoff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
