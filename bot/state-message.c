/*
 * state-message.c: the messages perfbot knows for threading (its own and
 * the replies ingest kept), their commands and trailers, the ingest
 * cursors and the archive's tip (state.h).
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "state-db.h"
#include "xalloc.h"
#include "banned.h"

/* ---- messages, commands, trailers ------------------------------------ */

static int check_message(const struct state_message *m, struct buf *err)
{
	const struct { const char *what, *s; int required; } fields[] = {
		{ "message_id", m->message_id, 1 },
		{ "parent_message_id", m->parent_message_id, 0 },
		{ "in_reply_to", m->in_reply_to, 0 },
		{ "refs", m->refs, 0 },
		{ "from_name", m->from_name, 0 },
		{ "from_email", m->from_email, 0 },
		{ "subject", m->subject, 0 },
		{ "blob_oid", m->blob_oid, 0 },
		{ "commit_oid", m->commit_oid, 0 },
		{ "quarantine_reason", m->quarantine_reason, 0 },
	};
	size_t i;

	for (i = 0; i < N(fields); i++)
		if (sdb_check_text(fields[i].what, fields[i].s, fields[i].required, err) < 0)
			return -1;
	return 0;
}

int state_message_add(struct state *st, const struct state_message *m, int *is_new,
		      struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (is_new)
		*is_new = 0;
	if (check_message(m, err) < 0)
		return err_prefix(err, "%s: cannot add a message: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "INSERT INTO messages (message_id, report_id, parent_message_id, "
			 "in_reply_to, refs, from_name, from_email, date, subject, origin, blob_oid, "
			 "commit_oid, quarantined, quarantine_reason) "
			 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
			 "ON CONFLICT (message_id) DO NOTHING", err) == 0) {
		sdb_bind_text(&q, m->message_id);
		sdb_bind_opt(&q, m->report_id);
		sdb_bind_text(&q, m->parent_message_id);
		sdb_bind_text(&q, m->in_reply_to);
		sdb_bind_text(&q, m->refs);
		sdb_bind_text(&q, m->from_name);
		sdb_bind_text(&q, m->from_email);
		sdb_bind_opt(&q, m->date);
		sdb_bind_text(&q, m->subject);
		sdb_bind_text(&q, m->ingested ? "ingested" : "sent");
		sdb_bind_text(&q, m->blob_oid);
		sdb_bind_text(&q, m->commit_oid);
		sdb_bind_int(&q, m->quarantined ? 1 : 0);
		sdb_bind_text(&q, m->quarantine_reason);
		ret = sdb_stmt_run(&q, err);
		if (ret == 0 && is_new)
			*is_new = sqlite3_changes(st->db) == 1;
	}
	return sdb_tx_end(st, ret, err);
}

static void message_from_row(sqlite3_stmt *s, struct state_message *m)
{
	const unsigned char *origin = sqlite3_column_text(s, 9);

	memset(m, 0, sizeof(*m));
	m->message_id = sdb_col_str(s, 0);
	m->report_id = sdb_col_int(s, 1);
	m->parent_message_id = sdb_col_str(s, 2);
	m->in_reply_to = sdb_col_str(s, 3);
	m->refs = sdb_col_str(s, 4);
	m->from_name = sdb_col_str(s, 5);
	m->from_email = sdb_col_str(s, 6);
	m->date = sdb_col_int(s, 7);
	m->subject = sdb_col_str(s, 8);
	m->ingested = origin && !strcmp((const char *)origin, "ingested");
	m->unsent = origin && !strcmp((const char *)origin, "outbox");
	m->blob_oid = sdb_col_str(s, 10);
	m->commit_oid = sdb_col_str(s, 11);
	m->quarantined = sdb_col_int(s, 12) != 0;
	m->quarantine_reason = sdb_col_str(s, 13);
}

int state_message_find(struct state *st, const char *message_id, struct state_message *out,
		       struct buf *err)
{
	struct stmt q;
	int r;

	memset(out, 0, sizeof(*out));
	if (sdb_check_text("message_id", message_id, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT " MESSAGE_COLUMNS " FROM known_messages WHERE message_id = ?",
			 err) < 0)
		return -1;
	sdb_bind_text(&q, message_id);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		message_from_row(q.s, out);
	sdb_stmt_finish(&q);
	return r;
}

/* A row of state_message_list() with what its order needs. */
struct listed {
	struct state_message m;
	int dated;		/* 0: date IS NULL, which SQL sorts first */
};

/* ORDER BY date, message_id as SQLite has it: NULL first, then the
 * integers, then the Message-IDs' bytes. */
static int listed_cmp(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;

	if (x->dated != y->dated)
		return x->dated - y->dated;
	if (x->m.date != y->m.date)
		return x->m.date < y->m.date ? -1 : 1;
	return strcmp(x->m.message_id ? x->m.message_id : "", y->m.message_id ? y->m.message_id : "");
}

int state_message_list(struct state *st, int64_t report_id, struct state_messages *out,
		       struct buf *err)
{
	struct listed *v = NULL;
	size_t nr = 0, alloc = 0, i;
	struct stmt q;
	int row;

	/* sorted here, not by an ORDER BY: a thread has a few mails, and
	 * SQLite's sorter for them cost more than the rest of the query
	 * (the site asks for every report's) */
	if (sdb_stmt_prepare(st, &q, "SELECT " MESSAGE_COLUMNS ", date IS NOT NULL "
			 "FROM known_messages WHERE report_id = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, report_id);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		ALLOC_GROW(v, nr + 1, alloc);
		message_from_row(q.s, &v[nr].m);
		v[nr++].dated = sdb_col_int(q.s, 14) != 0;
	}
	sdb_stmt_finish(&q);
	if (nr > 1)
		xqsort(v, nr, sizeof(*v), listed_cmp);
	ALLOC_GROW(out->v, out->nr + nr, out->alloc);
	for (i = 0; i < nr; i++)
		out->v[out->nr++] = v[i].m;
	free(v);
	return row < 0 ? -1 : 0;
}

int state_message_set_archived(struct state *st, const char *message_id, const char *blob_oid,
			       const char *commit_oid, struct buf *err)
{
	/* A sent mail gets its row here, with its archive batch (schema 3);
	 * ingest may have seen it come back from a list first, and then it
	 * becomes perfbot's own.  Else the message is one ingested.  At most
	 * one of the statements changes a row: neither needs a savepoint. */
	static const char *const sql[] = {
		"INSERT INTO messages (message_id, report_id, parent_message_id, in_reply_to, refs, "
		"from_name, from_email, date, subject, origin, blob_oid, commit_oid) "
		"SELECT message_id, thread_id, in_reply_to, in_reply_to, refs, from_name, "
		"from_email, created, subject, 'sent', ?, ? FROM reports "
		"WHERE message_id = ? AND sent IS NOT NULL AND redirected_to IS NULL "
		"ON CONFLICT (message_id) DO UPDATE SET origin = 'sent', "
		"report_id = excluded.report_id, blob_oid = excluded.blob_oid, "
		"commit_oid = excluded.commit_oid",
		"UPDATE messages SET blob_oid = ?, commit_oid = ? WHERE message_id = ?",
	};
	struct stmt q;
	size_t i;
	int own;

	if (sdb_check_text("message_id", message_id, 1, err) < 0 ||
	    sdb_check_text("blob_oid", blob_oid, 1, err) < 0 ||
	    sdb_check_text("commit_oid", commit_oid, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	/* An INSERT from a SELECT into a table with triggers (messages has
	 * schema 11's) goes through a temporary table, made and dropped each
	 * time: the first statement runs only for a sent report's mail, not
	 * for each mail ingest archives. */
	if (sdb_stmt_prepare(st, &q, "SELECT 1 FROM reports WHERE message_id = ? AND sent IS NOT NULL "
			     "AND redirected_to IS NULL", err) < 0)
		return -1;
	sdb_bind_text(&q, message_id);
	own = sdb_stmt_step(&q, err);
	sdb_stmt_finish(&q);
	if (own < 0)
		return -1;
	for (i = own ? 0 : 1; i < N(sql); i++) {
		if (sdb_stmt_prepare(st, &q, sql[i], err) < 0)
			return -1;
		sdb_bind_text(&q, blob_oid);
		sdb_bind_text(&q, commit_oid);
		sdb_bind_text(&q, message_id);
		if (sdb_stmt_run(&q, err) < 0)
			return -1;
		if (sqlite3_changes(st->db) == 1)
			return 0;
	}
	return err_set(err, "%s: message %s is not known", st->path, message_id);
}

int state_command_add(struct state *st, int64_t report_id, const char *message_id,
		      const char *name, const char *args, const char *author, int64_t date,
		      struct buf *err)
{
	return state_command_record(st, report_id, message_id, name, args, author, date, 1, NULL, err);
}

void state_commands_release(struct state_commands *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++) {
		free(list->v[i].message_id);
		free(list->v[i].name);
		free(list->v[i].args);
		free(list->v[i].author);
		free(list->v[i].why);
	}
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int state_command_list(struct state *st, int64_t thread_id, struct state_commands *out,
		       struct buf *err)
{
	struct stmt q;
	int row;

	if (sdb_stmt_prepare(st, &q, "SELECT report_id, message_id, name, args, author, date, applied, why FROM commands "
			 "WHERE ? = 0 OR report_id IN (SELECT id FROM reports WHERE thread_id = ?) "
			 "ORDER BY date, id", err) < 0)
		return -1;
	sdb_bind_int(&q, thread_id);
	sdb_bind_int(&q, thread_id);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		struct state_command *c;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		c = &out->v[out->nr++];
		c->report_id = sdb_col_int(q.s, 0);
		c->message_id = sdb_col_str(q.s, 1);
		c->name = sdb_col_str(q.s, 2);
		c->args = sdb_col_str(q.s, 3);
		c->author = sdb_col_str(q.s, 4);
		c->date = sdb_col_int(q.s, 5);
		c->applied = sdb_col_int(q.s, 6) != 0;
		c->why = sdb_col_str(q.s, 7);
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_trailer_add(struct state *st, const char *message_id, const char *key,
		      const char *value, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("message_id", message_id, 1, err) < 0 ||
	    sdb_check_text("the trailer key", key, 1, err) < 0 ||
	    sdb_check_text("the trailer value", value, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "INSERT INTO trailers (message_id, key, value) VALUES (?, ?, ?) "
			 "ON CONFLICT (message_id, key, value) DO NOTHING", err) == 0) {
		sdb_bind_text(&q, message_id);
		sdb_bind_text(&q, key);
		sdb_bind_text(&q, value);
		ret = sdb_stmt_run(&q, err);
	}
	return sdb_tx_end(st, ret, err);
}

/* ---- cursors and the archive tip ------------------------------------- */

int state_cursor_get(struct state *st, const char *source, struct state_cursor *out,
		     struct buf *err)
{
	struct stmt q;
	int r;

	memset(out, 0, sizeof(*out));
	if (sdb_check_text("the cursor source", source, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT uidvalidity, last_uid, offset, fingerprint FROM cursors "
			 "WHERE source = ?", err) < 0)
		return -1;
	sdb_bind_text(&q, source);
	r = sdb_stmt_step(&q, err);
	if (r == 1) {
		out->uidvalidity = sdb_col_int(q.s, 0);
		out->last_uid = sdb_col_int(q.s, 1);
		out->offset = sdb_col_int(q.s, 2);
		out->fingerprint = sdb_col_str(q.s, 3);
	}
	sdb_stmt_finish(&q);
	return r;
}

int state_cursor_set(struct state *st, const char *source, const struct state_cursor *c,
		     struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("the cursor source", source, 1, err) < 0 ||
	    sdb_check_text("the cursor fingerprint", c->fingerprint, 0, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "INSERT OR REPLACE INTO cursors (source, uidvalidity, last_uid, "
			 "offset, fingerprint) VALUES (?, ?, ?, ?, ?)", err) == 0) {
		sdb_bind_text(&q, source);
		sdb_bind_int(&q, c->uidvalidity);
		sdb_bind_int(&q, c->last_uid);
		sdb_bind_int(&q, c->offset);
		sdb_bind_text(&q, c->fingerprint);
		ret = sdb_stmt_run(&q, err);
	}
	return sdb_tx_end(st, ret, err);
}

int state_archive_tip_get(struct state *st, int64_t epoch, char **oid, struct buf *err)
{
	struct stmt q;
	int r;

	*oid = NULL;
	if (sdb_stmt_prepare(st, &q, "SELECT commit_oid FROM archive_tip WHERE epoch = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, epoch);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		*oid = sdb_col_str(q.s, 0);
	sdb_stmt_finish(&q);
	return r;
}

int state_archive_tip_set(struct state *st, int64_t epoch, const char *oid, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("the archive commit", oid, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "INSERT OR REPLACE INTO archive_tip (epoch, commit_oid) "
			 "VALUES (?, ?)", err) == 0) {
		sdb_bind_int(&q, epoch);
		sdb_bind_text(&q, oid);
		ret = sdb_stmt_run(&q, err);
	}
	return sdb_tx_end(st, ret, err);
}

