#include <stdlib.h>
#include <string.h>

#include "thread.h"
#include "xalloc.h"
#include "banned.h"

struct order {
	const struct state_messages *msgs;
	size_t root;
	size_t *parent;		/* index of each message's parent; root: itself */
	int *placed;
	struct thread_entry *out;
	size_t n;
};

static size_t find(const struct state_messages *msgs, const char *id)
{
	size_t i;

	for (i = 0; id && i < msgs->nr; i++)
		if (!strcmp(msgs->v[i].message_id, id))
			return i;
	return (size_t)-1;
}

static int earlier(const struct state_message *a, const struct state_message *b)
{
	if (a->date != b->date)
		return a->date < b->date;
	return strcmp(a->message_id, b->message_id) < 0;
}

/* Places i and, depth first, its children by date.  Iterative over
 * siblings, recursive over depth (a thread's depth is bounded by the
 * number of its messages; STATE limits keep that small). */
static void place(struct order *o, size_t i, int depth)
{
	const struct state_messages *msgs = o->msgs;

	o->placed[i] = 1;
	o->out[o->n].m = &msgs->v[i];
	o->out[o->n].parent = i == o->root ? NULL : msgs->v[o->parent[i]].message_id;
	o->out[o->n].depth = depth;
	o->n++;
	for (;;) {
		size_t best = (size_t)-1, j;

		for (j = 0; j < msgs->nr; j++)
			if (!o->placed[j] && j != o->root && o->parent[j] == i &&
			    (best == (size_t)-1 || earlier(&msgs->v[j], &msgs->v[best])))
				best = j;
		if (best == (size_t)-1)
			break;
		place(o, best, depth + 1);
	}
}

int thread_order(const struct state_messages *msgs, const char *root_id,
		 struct thread_entry **out, size_t *n)
{
	struct order o;
	size_t i;

	*out = NULL;
	*n = 0;
	memset(&o, 0, sizeof(o));
	o.msgs = msgs;
	o.root = find(msgs, root_id);
	if (o.root == (size_t)-1)
		return -1;
	o.parent = xcalloc(msgs->nr, sizeof(*o.parent));
	o.placed = xcalloc(msgs->nr, sizeof(*o.placed));
	o.out = xcalloc(msgs->nr, sizeof(*o.out));
	for (i = 0; i < msgs->nr; i++) {
		size_t p = find(msgs, msgs->v[i].parent_message_id);

		/* unknown parents, and any cycle a hostile mail could make,
		 * end at the root */
		o.parent[i] = p == (size_t)-1 || p == i ? o.root : p;
	}
	o.parent[o.root] = o.root;
	place(&o, o.root, 0);
	/* messages caught in a cycle are never reached from the root */
	for (i = 0; i < msgs->nr; i++)
		if (!o.placed[i]) {
			o.parent[i] = o.root;
			place(&o, i, 1);
		}
	free(o.parent);
	free(o.placed);
	*out = o.out;
	*n = o.n;
	return 0;
}
