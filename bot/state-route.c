/*
 * state-route.c: routing's part of the state (state.h; perfbot-mail(7), Recipients): who may
 * steer a report, what became of each command, the exclusion list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "state-db.h"
#include "xalloc.h"
#include "banned.h"

/* ---- routing: who may steer, command outcomes, exclusions --------------- */

int sdb_report_set_maintainers(struct state *st, int64_t id, const char *addrs,
				  struct buf *err)
{
	struct stmt q;

	if (sdb_stmt_prepare(st, &q, "UPDATE reports SET maintainer_addrs = ? WHERE id = ?", err) < 0)
		return -1;
	sdb_bind_text(&q, addrs);
	sdb_bind_int(&q, id);
	return sdb_stmt_run(&q, err);
}

int state_report_may_steer(struct state *st, int64_t report_id, const char *address,
			   struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_check_text("the address", address, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	/* one address per line in each column; lower() folds ASCII only, as
	 * addresses are compared everywhere else */
	if (sdb_stmt_prepare(st, &q, "SELECT 1 FROM reports WHERE thread_id = "
			 "(SELECT thread_id FROM reports WHERE id = ?) AND instr("
			 "lower(char(10) || to_addrs || char(10) || cc_addrs || char(10) || "
			 "IFNULL(maintainer_addrs, '') || char(10)), lower(char(10) || ? || char(10))) > 0 "
			 "LIMIT 1", err) < 0)
		return -1;
	sdb_bind_int(&q, report_id);
	sdb_bind_text(&q, address);
	r = sdb_stmt_step(&q, err);
	sdb_stmt_finish(&q);
	return r;
}

int state_report_maintainers(struct state *st, int64_t report_id, char **out, struct buf *err)
{
	struct stmt q;
	int r;

	*out = NULL;
	if (sdb_stmt_prepare(st, &q, "SELECT maintainer_addrs FROM reports WHERE id = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, report_id);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		*out = sdb_col_str(q.s, 0);
	sdb_stmt_finish(&q);
	return r < 0 ? -1 : 0;
}

int state_command_record(struct state *st, int64_t report_id, const char *message_id,
			 const char *name, const char *args, const char *author, int64_t date,
			 int applied, const char *why, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("message_id", message_id, 1, err) < 0 ||
	    sdb_check_text("the command name", name, 1, err) < 0 ||
	    sdb_check_text("the command arguments", args, 0, err) < 0 ||
	    sdb_check_text("the command author", author, 1, err) < 0 ||
	    sdb_check_text("why the command was not applied", why, 0, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "INSERT INTO commands (report_id, message_id, name, args, author, "
			 "date, applied, why) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
			 "ON CONFLICT (message_id, name, args) DO NOTHING", err) == 0) {
		sdb_bind_opt(&q, report_id);
		sdb_bind_text(&q, message_id);
		sdb_bind_text(&q, name);
		sdb_bind_text(&q, args ? args : "");
		sdb_bind_text(&q, author);
		sdb_bind_opt(&q, date);
		sdb_bind_int(&q, applied ? 1 : 0);
		sdb_bind_text(&q, why);
		ret = sdb_stmt_run(&q, err);
	}
	return sdb_tx_end(st, ret, err);
}

void state_trailers_release(struct state_trailers *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++) {
		free(list->v[i].message_id);
		free(list->v[i].key);
		free(list->v[i].value);
	}
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int state_trailer_list(struct state *st, int64_t report_id, struct state_trailers *out,
		       struct buf *err)
{
	struct stmt q;
	int row;

	if (sdb_stmt_prepare(st, &q, "SELECT t.message_id, t.key, t.value, IFNULL(m.report_id, 0) "
			 "FROM trailers t JOIN messages m ON m.message_id = t.message_id "
			 "WHERE ? = 0 OR m.report_id = ? ORDER BY t.rowid", err) < 0)
		return -1;
	sdb_bind_int(&q, report_id);
	sdb_bind_int(&q, report_id);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		struct state_trailer *t;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		t = &out->v[out->nr++];
		t->message_id = sdb_col_str(q.s, 0);
		t->key = sdb_col_str(q.s, 1);
		t->value = sdb_col_str(q.s, 2);
		t->report_id = sdb_col_int(q.s, 3);
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

/* Addresses are kept in ASCII lowercase: compared ignoring case. */
static char *lower_address(const char *s)
{
	char *l = xstrdup(s), *p;

	for (p = l; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return l;
}

int state_exclusion_add(struct state *st, const struct state_exclusion *x, struct buf *err)
{
	struct stmt q;
	char *addr;
	int ret = -1;

	if (sdb_check_text("the excluded address", x->address, 1, err) < 0 ||
	    sdb_check_text("who excluded it", x->who, 1, err) < 0 ||
	    sdb_check_text("the message_id", x->message_id, 0, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	addr = lower_address(x->address);
	if (sdb_tx_begin(st, 1, err) < 0) {
		free(addr);
		return -1;
	}
	if (sdb_stmt_prepare(st, &q, "INSERT OR REPLACE INTO exclusions (address, who, date, message_id) "
			 "VALUES (?, ?, ?, ?)", err) == 0) {
		sdb_bind_text(&q, addr);
		sdb_bind_text(&q, x->who);
		sdb_bind_int(&q, x->date);
		sdb_bind_text(&q, x->message_id);
		ret = sdb_stmt_run(&q, err);
	}
	free(addr);
	return sdb_tx_end(st, ret, err);
}

int state_exclusion_remove(struct state *st, const char *address, struct buf *err)
{
	struct stmt q;
	char *addr;
	int ret = -1, removed = 0;

	if (sdb_check_text("the excluded address", address, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	addr = lower_address(address);
	if (sdb_tx_begin(st, 1, err) < 0) {
		free(addr);
		return -1;
	}
	if (sdb_stmt_prepare(st, &q, "DELETE FROM exclusions WHERE address = ?", err) == 0) {
		sdb_bind_text(&q, addr);
		ret = sdb_stmt_run(&q, err);
		if (ret == 0)
			removed = sqlite3_changes(st->db) > 0;
	}
	free(addr);
	if (sdb_tx_end(st, ret, err) < 0)
		return -1;
	return removed;
}

void state_exclusions_release(struct state_exclusions *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++) {
		free(list->v[i].address);
		free(list->v[i].who);
		free(list->v[i].message_id);
	}
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int state_exclusion_list(struct state *st, struct state_exclusions *out, struct buf *err)
{
	struct stmt q;
	int row;

	if (sdb_stmt_prepare(st, &q, "SELECT address, who, date, message_id FROM exclusions "
			 "ORDER BY address", err) < 0)
		return -1;
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		struct state_exclusion *x;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		x = &out->v[out->nr++];
		x->address = sdb_col_str(q.s, 0);
		x->who = sdb_col_str(q.s, 1);
		x->date = sdb_col_int(q.s, 2);
		x->message_id = sdb_col_str(q.s, 3);
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_exclusion_read(const char *dir, struct state_exclusions *out, struct buf *err)
{
	struct state st;
	struct buf path = BUF_INIT;
	int ret = -1, rc;

	memset(&st, 0, sizeof(st));
	st.wal_fd = -1;
	sdb_path_join(&path, dir, "state.db");
	st.path = buf_detach(&path, NULL);
	if (access(st.path, F_OK) < 0) {
		free(st.path);
		return 0;	/* no state yet: nobody unsubscribed */
	}
	if (access(st.path, R_OK) < 0) {
		err_set(err, "%s: cannot read the #perfbot unsubscribe list: %s (run as perfbot's user)",
			st.path, strerror(errno));
		free(st.path);
		return -1;
	}
	/* read-only, no migration: what state_open() costs (a transaction
	 * per schema version, each synced) is a render's whole budget */
	rc = sqlite3_open_v2(st.path, &st.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
			     SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		err_set(err, "%s: cannot open: %s", st.path, st.db ? sqlite3_errmsg(st.db) : sqlite3_errstr(rc));
		goto out;
	}
	sqlite3_busy_timeout(st.db, STATE_BUSY_TIMEOUT_MS);
	rc = sqlite3_table_column_metadata(st.db, "main", "exclusions", "address", NULL, NULL, NULL,
					   NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = 0;	/* a database from before routing: no list yet */
		goto out;
	}
	ret = state_exclusion_list(&st, out, err);
out:
	for (size_t i = 0; i < st.nr_cache; i++)
		sqlite3_finalize(st.cache[i].s);
	sqlite3_close_v2(st.db);
	free(st.path);
	return ret;
}

