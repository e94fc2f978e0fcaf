#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "thread.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A message of a case: its id, the parent it was filed under, its date. */
struct msg {
	const char *id, *parent;
	int64_t date;
};

/* Orders the messages and returns "id/depth/parent" joined with ' '. */
static char *order(const struct msg *m, size_t n, const char *root)
{
	struct state_messages list = { 0 };
	struct thread_entry *t;
	struct buf out = BUF_INIT;
	size_t nt, i;

	list.v = calloc(n, sizeof(*list.v));
	list.nr = list.alloc = n;
	for (i = 0; i < n; i++) {
		list.v[i].message_id = (char *)m[i].id;
		list.v[i].parent_message_id = (char *)m[i].parent;
		list.v[i].date = m[i].date;
	}
	if (thread_order(&list, root, &t, &nt) < 0) {
		free(list.v);
		return NULL;
	}
	assert_int_equal(nt, n);	/* every message is placed, once */
	for (i = 0; i < nt; i++)
		buf_addf(&out, "%s%s/%d/%s", i ? " " : "", t[i].m->message_id, t[i].depth,
			 t[i].parent ? t[i].parent : "-");
	free(t);
	free(list.v);
	return buf_detach(&out, NULL);
}

static const struct {
	const char *name;
	const char *root;
	struct msg m[8];
	size_t n;
	const char *want;
} cases[] = {
	{ "the root alone", "r", { { "r", NULL, 10 } }, 1, "r/0/-" },
	{ "replies by date, depth first", "r",
	  { { "b", "r", 30 }, { "r", NULL, 10 }, { "a", "r", 20 }, { "a1", "a", 40 }, { "b1", "b", 35 } }, 5,
	  "r/0/- a/1/r a1/2/a b/1/r b1/2/b" },
	{ "siblings of one date by Message-ID", "r",
	  { { "r", NULL, 10 }, { "z", "r", 20 }, { "m", "r", 20 }, { "c", "r", 20 } }, 4,
	  "r/0/- c/1/r m/1/r z/1/r" },
	{ "a parent never seen: under the root", "r",
	  { { "r", NULL, 10 }, { "x", "gone@example.org", 20 }, { "y", NULL, 15 } }, 3,
	  "r/0/- y/1/r x/1/r" },
	{ "a message filed under itself: under the root", "r",
	  { { "r", NULL, 10 }, { "s", "s", 20 } }, 2, "r/0/- s/1/r" },
	{ "a cycle that does not reach the root is cut at its first message, under the root", "r",
	  { { "r", NULL, 10 }, { "p", "q", 20 }, { "q", "p", 30 }, { "p1", "p", 40 } }, 4,
	  "r/0/- p/1/r q/2/p p1/2/p" },
	{ "the root may have a parent of its own; another parentless mail hangs under it", "f",
	  { { "f", "r0", 5 }, { "r0", NULL, 1 }, { "x", "f", 6 } }, 3, "f/0/- r0/1/f x/1/f" },
	{ "a reply dated before its parent stays under it", "r",
	  { { "r", NULL, 10 }, { "a", "r", 50 }, { "b", "a", 20 } }, 3, "r/0/- a/1/r b/2/a" },
};

static void orders(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		char *got = order(cases[i].m, cases[i].n, cases[i].root);

		if (!got || strcmp(got, cases[i].want))
			fail_msg("%s: got '%s', want '%s'", cases[i].name, got ? got : "(error)",
				 cases[i].want);
		free(got);
	}
}

static void unknown_root(void **state)
{
	const struct msg m[] = { { "a", NULL, 1 } };

	(void)state;
	assert_null(order(m, 1, "b"));
}

/* A long chain is placed whole and in order (depth n-1 at the end). */
static void long_chain(void **state)
{
	enum { LEN = 2000 };
	struct msg *m = calloc(LEN, sizeof(*m));
	char (*ids)[16] = calloc(LEN, 16);
	char *got, want[32];
	size_t i;

	(void)state;
	for (i = 0; i < LEN; i++) {
		snprintf(ids[i], 16, "m%zu", i);
		m[i].id = ids[i];
		m[i].parent = i ? ids[i - 1] : NULL;
		m[i].date = (int64_t)(LEN - i);	/* dates run backwards: order is by parent */
	}
	got = order(m, LEN, "m0");
	assert_non_null(got);
	snprintf(want, sizeof(want), " m%d/%d/m%d", LEN - 1, LEN - 1, LEN - 2);
	assert_string_equal(got + strlen(got) - strlen(want), want);
	free(got);
	free(ids);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(orders),
		cmocka_unit_test(unknown_root),
		cmocka_unit_test(long_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
