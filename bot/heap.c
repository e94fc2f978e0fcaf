/*
 * heap.c: malloc's memory backed by huge pages where the kernel gives them
 * on request (see heap.h).  Through glibc's public knobs (mallopt()) and
 * madvise(); one fact of glibc's it relies on is stated where it is used.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "heap.h"
#include "banned.h"

#define HEAP_BIG_PAD (64u << 20)
#define HUGE_PAGE (2u << 20)
/* glibc's HEAP_MAX_SIZE on 64-bit (2 * DEFAULT_MMAP_THRESHOLD_MAX): a
 * thread's arena carves from heaps of this size mapped at a multiple of
 * it, so that free() finds a chunk's arena by masking its address. */
#define ARENA_HEAP ((uintptr_t)64 << 20)

void heap_for_big_pages(void)
{
	uintptr_t start, end;
	void *p;

	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TOP_PAD, (int)HEAP_BIG_PAD);
	p = malloc(16u << 20);	/* from the heap, which grows by HEAP_BIG_PAD more */
	start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	end = (uintptr_t)sbrk(0) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (p && end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
	free(p);
}

void heap_for_big_pages_thread(void)
{
	void *p = malloc(64);	/* the thread's arena, made by its first malloc() */

	/* the heap holding it; were it the main heap after all (glibc's
	 * arenas all taken), the advice falls on memory of this process's
	 * own or on none (madvise() then fails), and changes no byte */
	if (p)
		madvise((void *)((uintptr_t)p & ~(ARENA_HEAP - 1)), (size_t)ARENA_HEAP,
			MADV_HUGEPAGE);
	free(p);
}
