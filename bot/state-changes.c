/*
 * state-changes.c: the change log (state.h, schema 11): which thread
 * heads the triggers of state.c's migration 11 marked after a seq.  Read
 * only; the triggers are the only writers.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "state-db.h"
#include "xalloc.h"
#include "banned.h"

void state_changes_release(struct state_changes *c)
{
	free(c->ids);
	memset(c, 0, sizeof(*c));
}

static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int state_changes_since(struct state *st, int64_t since, struct state_changes *out,
			struct buf *err)
{
	struct stmt q;
	int r, ret = -1;

	memset(out, 0, sizeof(*out));
	/* both queries in one snapshot: a seq newer than the ids read would
	 * make the caller skip a change for good */
	if (sdb_tx_begin(st, 0, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT IFNULL(MAX(seq), 0) FROM changes", err) < 0)
		goto done;
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		out->seq = sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	if (r != 1)
		goto done;
	/* by the seq index; sorted here, so SQLite never prefers a walk of
	 * the whole table in report_id order */
	if (sdb_stmt_prepare(st, &q, "SELECT report_id FROM changes WHERE seq > ?", err) < 0)
		goto done;
	sdb_bind_int(&q, since);
	while ((r = sdb_stmt_step(&q, err)) == 1) {
		int64_t id = sdb_col_int(q.s, 0);

		if (id == 0) {
			out->all = 1;
			continue;
		}
		ALLOC_GROW(out->ids, out->nr + 1, out->alloc);
		out->ids[out->nr++] = id;
	}
	sdb_stmt_finish(&q);
	if (r < 0)
		goto done;
	if (out->nr > 1)
		xqsort(out->ids, out->nr, sizeof(*out->ids), id_cmp);
	/* a seq this log never reached: since was read from another state
	 * (one restored from a backup, made again), so nothing is known */
	if (since > out->seq)
		out->all = 1;
	ret = 0;
done:
	ret = sdb_tx_end(st, ret, err);
	if (ret < 0)
		state_changes_release(out);
	return ret;
}
