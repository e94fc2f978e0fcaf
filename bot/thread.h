#ifndef PERFBOT_THREAD_H
#define PERFBOT_THREAD_H

/*
 * A report's thread in reading order (perfbot-json(5), `perfbot thread`):
 * depth-first from the root, siblings by date (then Message-ID).  A
 * message whose parent is not among the thread's messages hangs under
 * the root (ingest already chose the nearest known ancestor from its
 * References as its parent).  Pure.
 */

#include <stddef.h>

#include "state.h"

struct thread_entry {
	const struct state_message *m;	/* points into the list given */
	const char *parent;		/* the parent's Message-ID, NULL for the root */
	int depth;			/* 0 for the root */
};

/* Orders msgs (which must hold root_id) into *out (malloc'd, *n
 * entries, free() it).  -1 when root_id is not among them. */
int thread_order(const struct state_messages *msgs, const char *root_id,
		 struct thread_entry **out, size_t *n);

#endif
