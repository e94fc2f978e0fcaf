#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "heap.h"

/* Whether the mapping holding p is marked for huge pages ("hg" in its
 * VmFlags, proc(5)): 1, 0, or -1 when smaps does not say. */
static int marked_huge(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512], perms[8];
	int in = 0, ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		/* a mapping's first line: "LO-HI PERMS ..." */
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			ret = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* The kernel takes the advice at all (not when built without huge
 * pages): else there is nothing to see. */
static int thp_present(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return 0;
	fclose(f);
	return 1;
}

/* malloc() is glibc's, whose heaps and arenas heap.c speaks of: not under
 * AddressSanitizer (make SANITIZE=address), which brings its own. */
#if defined(__SANITIZE_ADDRESS__)
#define GLIBC_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLIBC_MALLOC 0
#endif
#endif
#ifndef GLIBC_MALLOC
#define GLIBC_MALLOC 1
#endif

#define SKIP_UNLESS_SEEN()						\
	do {								\
		if (!GLIBC_MALLOC)					\
			skip();	/* AddressSanitizer's malloc, not glibc's */ \
		if (!thp_present())					\
			skip();	/* no transparent huge pages in this kernel */ \
	} while (0)

static void *thread_allocates(void *arg)
{
	void **out = arg;

	heap_for_big_pages_thread();
	*out = malloc(64u << 10);	/* below glibc's first mmap threshold: from the arena */
	return NULL;
}

/* The process's heap, then a thread's arena: what they hand out next is
 * in memory marked for huge pages. */
static void heaps_are_marked(void **state)
{
	void *p, *q = NULL;
	pthread_t th;

	(void)state;
	SKIP_UNLESS_SEEN();
	heap_for_big_pages();
	/* the heap is marked from its first 2 MiB boundary on: the middle of
	 * 8 MiB from it is past that */
	p = malloc(8u << 20);
	assert_non_null(p);
	assert_int_equal(marked_huge((char *)p + (4u << 20)), 1);
	assert_int_equal(pthread_create(&th, NULL, thread_allocates, &q), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_non_null(q);
	assert_ptr_not_equal(q, p);
	assert_int_equal(marked_huge(q), 1);
	free(p);
	free(q);
}

/* A thread that does not ask: its arena is not marked (the test above
 * sees the advice, not a kernel that marks every mapping). */
static void *thread_plain(void *arg)
{
	void **out = arg;

	*out = malloc(64u << 10);	/* below glibc's first mmap threshold: from the arena */
	return NULL;
}

static void unasked_arena_is_not_marked(void **state)
{
	void *q = NULL;
	pthread_t th;

	(void)state;
	SKIP_UNLESS_SEEN();
	assert_int_equal(pthread_create(&th, NULL, thread_plain, &q), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_non_null(q);
	assert_int_equal(marked_huge(q), 0);
	free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unasked_arena_is_not_marked),
		cmocka_unit_test(heaps_are_marked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
