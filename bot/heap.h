#ifndef PERFBOT_HEAP_H
#define PERFBOT_HEAP_H

/*
 * How malloc's memory is backed in a run that builds megabytes it keeps
 * (perfbot site: 10,000 pages' rows and JSON, index.html, reports.json).
 * Fresh 4 KiB pages cost a fault each, zeroed by the kernel; on a kernel
 * whose transparent huge pages are "on madvise", memory marked for them
 * costs a fault a 2 MiB.  Both functions are hints: a failure costs only
 * speed, and neither reports one.
 */

/* For the process, once, before its big allocations: buffers up to 32 MiB
 * come from the heap (reused within the run, not mapped anew each), and
 * the heap is grown once by 64 MiB more and marked for huge pages (what
 * glibc.malloc.hugetlb=1 does for it). */
void heap_for_big_pages(void);

/* For a thread that allocates much, at its start: the heap its arena
 * carves from marked for huge pages too (glibc gives each thread but the
 * first an arena of its own, whose memory the above does not cover). */
void heap_for_big_pages_thread(void);

#endif
