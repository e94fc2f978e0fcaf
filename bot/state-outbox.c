/*
 * state-outbox.c: the outbox (state.h): reports, follow-ups, notices and
 * digests as rows, their delivery marks and each recipient's outcome, the
 * hourly send log, and the operator's actions on them.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "state-db.h"
#include "xalloc.h"
#include "banned.h"

/* ---- reports --------------------------------------------------------- */


/* Fills out from a row of REPORT_COLUMNS (then the mail, if with_mail). */
static int report_from_row(struct state *st, sqlite3_stmt *s, int with_mail,
			   struct state_report *out, struct buf *err)
{
	int kind, status, verdict, mark, parent_status, parent_mark, thread_verdict;

	memset(out, 0, sizeof(*out));
	out->id = sdb_col_int(s, 0);
	out->message_id = sdb_col_str(s, 1);
	out->parent_id = sdb_col_int(s, 3);
	out->thread_id = sdb_col_int(s, 4);
	out->thread_key = sdb_col_str(s, 5);
	out->identity = sdb_col_str(s, 6);
	out->subject = sdb_col_str(s, 7);
	out->from_name = sdb_col_str(s, 8);
	out->from_email = sdb_col_str(s, 9);
	out->in_reply_to = sdb_col_str(s, 10);
	out->refs = sdb_col_str(s, 11);
	out->env_from = sdb_col_str(s, 12);
	out->env_rcpt = sdb_col_str(s, 13);
	out->to_addrs = sdb_col_str(s, 14);
	out->cc_addrs = sdb_col_str(s, 15);
	out->created = sdb_col_int(s, 16);
	out->next_attempt = sdb_col_int(s, 17);
	out->attempts = (int)sdb_col_int(s, 19);
	out->last_attempt = sdb_col_int(s, 20);
	out->last_reply = sdb_col_str(s, 21);
	out->sent = sdb_col_int(s, 22);
	kind = sdb_name_index(sdb_kind_names, N(sdb_kind_names), (const char *)sqlite3_column_text(s, 2));
	status = sdb_name_index(sdb_status_names, N(sdb_status_names), (const char *)sqlite3_column_text(s, 18));
	verdict = sdb_name_index(sdb_verdict_names, N(sdb_verdict_names), (const char *)sqlite3_column_text(s, 23));
	out->redirected_to = sdb_col_str(s, 24);
	out->mark_why = sdb_col_str(s, 26);
	out->parent_redirected_to = sdb_col_str(s, 28);
	out->parent_sent = sdb_col_int(s, 32);
	/* NULL: no mark; no parent */
	mark = sqlite3_column_type(s, 25) == SQLITE_NULL ? STATE_MARK_NONE :
	       sdb_name_index(sdb_mark_names, N(sdb_mark_names), (const char *)sqlite3_column_text(s, 25));
	parent_status = sqlite3_column_type(s, 29) == SQLITE_NULL ? STATE_QUEUED :
			sdb_name_index(sdb_status_names, N(sdb_status_names), (const char *)sqlite3_column_text(s, 29));
	parent_mark = sqlite3_column_type(s, 30) == SQLITE_NULL ? STATE_MARK_NONE :
		      sdb_name_index(sdb_mark_names, N(sdb_mark_names), (const char *)sqlite3_column_text(s, 30));
	/* NULL: no thread (a digest's is its own) */
	thread_verdict = sqlite3_column_type(s, 31) == SQLITE_NULL ? verdict :
			 sdb_name_index(sdb_verdict_names, N(sdb_verdict_names), (const char *)sqlite3_column_text(s, 31));
	if (kind < 0 || status < 0 || verdict < 0 || mark < 0 || parent_status < 0 || parent_mark < 0 ||
	    thread_verdict < 0 || sdb_rcpt_decode((const char *)sqlite3_column_text(s, 27), &out->rcpt, &out->nr_rcpt) < 0) {
		state_report_release(out);
		return err_set(err, "%s: report row has an unknown kind, status, state, mark or "
			       "recipient outcome", st->path);
	}
	out->kind = (enum state_kind)kind;
	out->status = (enum state_status)status;
	out->verdict = (enum state_verdict)verdict;
	out->thread_verdict = (enum state_verdict)thread_verdict;
	out->mark = (enum state_mark)mark;
	out->parent_status = (enum state_status)parent_status;
	out->parent_mark = (enum state_mark)parent_mark;
	if (with_mail) {
		const void *p = sqlite3_column_blob(s, REPORT_NR_COLUMNS);
		size_t n = (size_t)sqlite3_column_bytes(s, REPORT_NR_COLUMNS);

		out->mail = xmalloc(n + 1);
		if (n)
			memcpy(out->mail, p, n);
		out->mail[n] = '\0';
		out->mail_len = n;
	}
	return 0;
}

static int report_load_sources(struct state *st, struct state_report *r, struct buf *err)
{
	struct stmt q;
	size_t alloc = 0;
	int row;

	if (sdb_stmt_prepare(st, &q, "SELECT name FROM report_sources WHERE report_id = ? ORDER BY name",
			 err) < 0)
		return -1;
	sdb_bind_int(&q, r->id);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		ALLOC_GROW(r->sources, r->nr_sources + 1, alloc);
		r->sources[r->nr_sources++] = sdb_col_str(q.s, 0);
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

/* Runs q (selecting REPORT_COLUMNS, mail) and appends each row, with its
 * sources when with_sources, to out.  Finalizes q. */
static int reports_collect(struct state *st, struct stmt *q, struct state_reports *out,
			   int with_sources, struct buf *err)
{
	int row;

	while ((row = sdb_stmt_step(q, err)) == 1) {
		struct state_report *r;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		r = &out->v[out->nr];
		if (report_from_row(st, q->s, 1, r, err) < 0) {
			row = -1;
			break;
		}
		out->nr++;
		if (with_sources && report_load_sources(st, r, err) < 0) {
			row = -1;
			break;
		}
	}
	sdb_stmt_finish(q);
	return row < 0 ? -1 : 0;
}

/* Runs q (selecting REPORT_COLUMNS, mail; bound but for its last
 * parameter, a LIMIT, which limit binds) in a read transaction and appends
 * its reports, without their sources, to out.  0 or -1. */
static int reports_read(struct state *st, struct stmt *q, size_t limit,
			struct state_reports *out, struct buf *err)
{
	int ret;

	sdb_bind_int(q, limit > INT64_MAX ? INT64_MAX : (int64_t)limit);
	if (sdb_tx_begin(st, 0, err) < 0) {
		sdb_stmt_finish(q);
		return -1;
	}
	ret = reports_collect(st, q, out, 0, err);
	return sdb_tx_end(st, ret, err);
}

/* Runs q (which yields at most one report row) into *out: 1, 0 or -1. */
int sdb_report_select_one(struct state *st, struct stmt *q, struct state_report *out,
			     struct buf *err)
{
	struct state_reports list = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	if (sdb_tx_begin(st, 0, err) < 0) {
		sdb_stmt_finish(q);
		return -1;
	}
	ret = reports_collect(st, q, &list, 1, err);
	ret = sdb_tx_end(st, ret, err);
	if (ret < 0) {
		state_reports_release(&list);
		return -1;
	}
	if (!list.nr) {
		free(list.v);
		return 0;
	}
	*out = list.v[0];
	list.nr--;
	memmove(list.v, list.v + 1, list.nr * sizeof(*list.v));
	state_reports_release(&list);
	return 1;
}

/* 1 when a row of table has col = s, 0 if none, -1 on error. */
static int row_exists(struct state *st, const char *sql, const char *s, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	sdb_bind_text(&q, s);
	r = sdb_stmt_step(&q, err);
	sdb_stmt_finish(&q);
	return r;
}


int sdb_report_insert(struct state *st, const struct state_report *r, int64_t *id,
			 struct buf *err)
{
	struct stmt q;
	int64_t thread_id = 0, new_id;
	size_t i;
	int found;

	found = row_exists(st, "SELECT 1 FROM reports WHERE message_id = ?", r->message_id, err);
	if (found) {
		if (found > 0)
			err_set(err, "%s: Message-ID %s is already in the outbox", st->path,
				r->message_id);
		return found < 0 ? -1 : STATE_EXISTS;
	}
	for (i = 0; i < r->nr_sources; i++) {
		found = row_exists(st, "SELECT 1 FROM report_sources WHERE name = ?",
				   r->sources[i], err);
		if (found) {
			if (found > 0)
				err_set(err, "%s: spool file %s already went into a report", st->path,
					r->sources[i]);
			return found < 0 ? -1 : STATE_EXISTS;
		}
	}
	if (r->parent_id) {
		if (sdb_stmt_prepare(st, &q, "SELECT thread_id FROM reports WHERE id = ?", err) < 0)
			return -1;
		sdb_bind_int(&q, r->parent_id);
		found = sdb_stmt_step(&q, err);
		if (found == 1)
			thread_id = sdb_col_int(q.s, 0);
		sdb_stmt_finish(&q);
		if (found < 0)
			return -1;
		if (!found)
			return err_set(err, "%s: the parent report %lld does not exist", st->path,
				       (long long)r->parent_id);
	}

	if (sdb_stmt_prepare(st, &q,
			 "INSERT INTO reports (message_id, kind, parent_id, thread_id, thread_key, "
			 "identity, subject, from_name, from_email, in_reply_to, refs, env_from, "
			 "env_rcpt, to_addrs, cc_addrs, created, next_attempt, tree, head) "
			 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", err) < 0)
		return -1;
	sdb_bind_text(&q, r->message_id);
	sdb_bind_text(&q, state_kind_name(r->kind));
	sdb_bind_opt(&q, r->parent_id);
	sdb_bind_opt(&q, thread_id);
	sdb_bind_text(&q, r->thread_key);
	sdb_bind_text(&q, r->identity);
	sdb_bind_text(&q, r->subject);
	sdb_bind_text(&q, r->from_name ? r->from_name : "");
	sdb_bind_text(&q, r->from_email);
	sdb_bind_text(&q, r->in_reply_to);
	sdb_bind_text(&q, r->refs);
	sdb_bind_text(&q, r->env_from);
	sdb_bind_text(&q, r->env_rcpt);
	sdb_bind_text(&q, r->to_addrs);
	sdb_bind_text(&q, r->cc_addrs ? r->cc_addrs : "");
	sdb_bind_int(&q, r->created);
	sdb_bind_opt(&q, r->next_attempt);
	sdb_bind_text(&q, r->tree);
	sdb_bind_text(&q, r->head);
	if (sdb_stmt_run(&q, err) < 0)
		return -1;
	new_id = sqlite3_last_insert_rowid(st->db);
	if (sdb_stmt_prepare(st, &q, "INSERT INTO report_mails (report_id, mail) VALUES (?, ?)", err) < 0)
		return -1;
	sdb_bind_int(&q, new_id);
	sdb_bind_blob(&q, r->mail, r->mail_len);
	if (sdb_stmt_run(&q, err) < 0)
		return -1;

	if (r->maintainer_addrs && sdb_report_set_maintainers(st, new_id, r->maintainer_addrs, err) < 0)
		return -1;
	/* A report starts its own thread. */
	if (!r->parent_id) {
		if (sdb_stmt_prepare(st, &q, "UPDATE reports SET thread_id = id WHERE id = ?", err) < 0)
			return -1;
		sdb_bind_int(&q, new_id);
		if (sdb_stmt_run(&q, err) < 0)
			return -1;
	}
	for (i = 0; i < r->nr_sources; i++) {
		if (sdb_stmt_prepare(st, &q, "INSERT INTO report_sources (name, report_id) VALUES (?, ?)",
				 err) < 0)
			return -1;
		sdb_bind_text(&q, r->sources[i]);
		sdb_bind_int(&q, new_id);
		if (sdb_stmt_run(&q, err) < 0)
			return -1;
	}
	if (id)
		*id = new_id;
	return 0;
}

int state_report_add(struct state *st, const struct state_report *r, int64_t *id,
		     struct buf *err)
{
	int ret;

	if (sdb_check_report(r, err) < 0)
		return err_prefix(err, "%s: cannot add a report: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	ret = sdb_report_insert(st, r, id, err);
	return sdb_tx_end(st, ret, err);
}

int state_report_get(struct state *st, int64_t id, struct state_report *out, struct buf *err)
{
	struct stmt q;

	memset(out, 0, sizeof(*out));
	if (sdb_stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "JOIN report_mails m ON m.report_id = r.id WHERE r.id = ?",
			 err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	return sdb_report_select_one(st, &q, out, err);
}

int state_report_mail(struct state *st, int64_t id, struct buf *out, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_stmt_prepare(st, &q, "SELECT mail FROM report_mails WHERE report_id = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		buf_add(out, sqlite3_column_blob(q.s, 0), (size_t)sqlite3_column_bytes(q.s, 0));
	sdb_stmt_finish(&q);
	return r;
}

int state_report_find_by_thread_key(struct state *st, const char *thread_key,
				    struct state_report *out, struct buf *err)
{
	struct stmt q;

	memset(out, 0, sizeof(*out));
	if (sdb_check_text("thread_key", thread_key, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "JOIN report_mails m ON m.report_id = r.id "
			 "WHERE r.thread_key = ? AND r.status IN ('queued', 'sending', 'sent') "
			 "AND r.redirected_to IS NULL AND NOT (r.mark IS 'dropped' AND r.sent IS NULL) "
			 "ORDER BY r.id DESC LIMIT 1", err) < 0)
		return -1;
	sdb_bind_text(&q, thread_key);
	return sdb_report_select_one(st, &q, out, err);
}

int state_report_last_message_id(struct state *st, const char *thread_key, char **message_id,
				 struct buf *err)
{
	struct stmt q;
	int r;

	*message_id = NULL;
	if (sdb_check_text("thread_key", thread_key, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT message_id FROM reports WHERE thread_key = ? "
			 "ORDER BY id DESC LIMIT 1", err) < 0)
		return -1;
	sdb_bind_text(&q, thread_key);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		*message_id = sdb_col_str(q.s, 0);
	sdb_stmt_finish(&q);
	return r;
}

int state_report_find_id(struct state *st, const char *message_id, int64_t *id, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_check_text("message_id", message_id, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT id FROM reports WHERE message_id = ?", err) < 0)
		return -1;
	sdb_bind_text(&q, message_id);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		*id = sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	return r;
}

int state_source_find(struct state *st, const char *name, int64_t *report_id, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_check_text("the source name", name, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT report_id FROM report_sources WHERE name = ?", err) < 0)
		return -1;
	sdb_bind_text(&q, name);
	r = sdb_stmt_step(&q, err);
	if (r == 1 && report_id)
		*report_id = sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	return r;
}

int state_report_due(struct state *st, int64_t now, size_t limit, struct state_reports *out,
		     struct buf *err)
{
	struct stmt q;

	if (!limit)
		return 0;
	/* through the index of pending reports, which is in id order (no
	 * sort of the mails); the planner would rather scan every report ever
	 * sent */
	if (sdb_stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "INDEXED BY reports_pending JOIN report_mails m ON m.report_id = r.id "
			 "WHERE r.status IN ('queued', 'sending') AND r.mark IS NOT 'dropped' "
			 "AND (r.status = 'sending' OR (r.status = 'queued' AND "
			 "(r.next_attempt IS NULL OR r.next_attempt <= ?))) "
			 "ORDER BY r.id LIMIT ?", err) < 0)
		return -1;
	sdb_bind_int(&q, now);
	return reports_read(st, &q, limit, out, err);
}

int state_report_orphans(struct state *st, size_t limit, struct state_reports *out,
			 struct buf *err)
{
	struct stmt q;

	if (!limit)
		return 0;
	if (sdb_stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "INDEXED BY reports_pending JOIN report_mails m ON m.report_id = r.id "
			 "JOIN reports p ON p.id = r.parent_id "
			 "WHERE r.status IN ('queued', 'sending') AND r.status = 'queued' "
			 "AND r.mark IS NOT 'dropped' AND r.sent IS NULL "
			 "AND p.sent IS NULL AND (p.status = 'failed' OR p.mark IS 'dropped') "
			 "AND (p.parent_id IS NOT NULL OR r.kind = 'digest') "
			 "ORDER BY r.id LIMIT ?", err) < 0)
		return -1;
	return reports_read(st, &q, limit, out, err);
}

int state_report_rethread(struct state *st, int64_t id, int64_t parent_id, const char *in_reply_to,
			  const char *refs, const char *mail, size_t mail_len, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("In-Reply-To", in_reply_to, 0, err) < 0 ||
	    sdb_check_text("References", refs, 0, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)id);
	if (!mail_len || mail_len > STATE_MAX_MAIL)
		return err_set(err, "%s: report %lld: a mail of %zu bytes", st->path, (long long)id, mail_len);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	/* a digest that answers nothing starts a thread, as a report does */
	if (sdb_stmt_prepare(st, &q, "UPDATE reports SET parent_id = ?1, in_reply_to = ?2, refs = ?3, "
			 "thread_id = CASE WHEN ?1 IS NULL THEN id ELSE thread_id END "
			 "WHERE id = ?4 AND status = 'queued' AND sent IS NULL", err) < 0)
		goto done;
	sdb_bind_opt(&q, parent_id);
	sdb_bind_text(&q, in_reply_to);
	sdb_bind_text(&q, refs && *refs ? refs : NULL);
	sdb_bind_int(&q, id);
	if (sdb_stmt_run(&q, err) < 0)
		goto done;
	if (sqlite3_changes(st->db) != 1) {
		err_set(err, "report %lld is no longer queued, or somebody has it", (long long)id);
		ret = STATE_REFUSED;
		goto done;
	}
	if (sdb_stmt_prepare(st, &q, "UPDATE report_mails SET mail = ? WHERE report_id = ?", err) < 0)
		goto done;
	sdb_bind_blob(&q, mail, mail_len);
	sdb_bind_int(&q, id);
	if (sdb_stmt_run(&q, err) < 0)
		goto done;
	/* a Message-ID known before it went out (a reply may have come) */
	if (sdb_stmt_prepare(st, &q, "UPDATE messages SET parent_message_id = ?, in_reply_to = ?, "
			 "refs = ? WHERE message_id = (SELECT message_id FROM reports WHERE id = ?) "
			 "AND origin IS NOT 'ingested'", err) < 0)
		goto done;
	sdb_bind_text(&q, in_reply_to);
	sdb_bind_text(&q, in_reply_to);
	sdb_bind_text(&q, refs && *refs ? refs : NULL);
	sdb_bind_int(&q, id);
	ret = sdb_stmt_run(&q, err);
done:
	return sdb_tx_end(st, ret, err);
}

int state_report_unarchived(struct state *st, size_t limit, struct state_reports *out,
			    struct buf *err)
{
	struct stmt q;

	if (!limit)
		return 0;
	if (sdb_stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "JOIN report_mails m ON m.report_id = r.id "
			 "LEFT JOIN messages g ON g.message_id = r.message_id "
			 "WHERE r.sent IS NOT NULL AND r.redirected_to IS NULL "
			 "AND g.blob_oid IS NULL AND IFNULL(g.quarantined, 0) = 0 "
			 "ORDER BY r.id LIMIT ?", err) < 0)
		return -1;
	return reports_read(st, &q, limit, out, err);
}

int state_delivery_unfinished(struct state *st, int64_t *since, struct buf *err)
{
	struct stmt q;
	int row;

	*since = 0;
	if (sdb_stmt_prepare(st, &q, "SELECT value FROM flags WHERE name = 'delivery_unfinished'",
			 err) < 0)
		return -1;
	if ((row = sdb_stmt_step(&q, err)) == 1)
		*since = sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	return row;
}

int state_delivery_begin(struct state *st, int64_t since, struct buf *err)
{
	return sdb_write_ints(st, "INSERT INTO flags (name, value) VALUES ('delivery_unfinished', ?) "
			  "ON CONFLICT (name) DO UPDATE SET value = MIN(value, excluded.value)",
			  1, &since, err);
}

int state_delivery_end(struct state *st, struct buf *err)
{
	return sdb_write_ints(st, "DELETE FROM flags WHERE name = 'delivery_unfinished'", 0, NULL, err);
}

/* Says why report id could not make a transition to `to`. */
static int transition_refused(struct state *st, int64_t id, const char *to, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_stmt_prepare(st, &q, "SELECT status, mark FROM reports WHERE id = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		err_set(err, "%s: report %lld is %s%s%s and cannot become %s", st->path, (long long)id,
			(const char *)sqlite3_column_text(q.s, 0),
			sqlite3_column_type(q.s, 1) == SQLITE_NULL ? "" : " and ",
			sqlite3_column_type(q.s, 1) == SQLITE_NULL ? "" :
			(const char *)sqlite3_column_text(q.s, 1), to);
	else if (r == 0)
		err_set(err, "%s: there is no report %lld", st->path, (long long)id);
	sdb_stmt_finish(&q);
	return -1;
}

/* Runs q, an UPDATE of report id; exactly one row must change. */
static int report_update(struct state *st, struct stmt *q, int64_t id, const char *to,
			 struct buf *err)
{
	if (sdb_stmt_run(q, err) < 0)
		return -1;
	if (sqlite3_changes(st->db) != 1)
		return transition_refused(st, id, to, err);
	return 0;
}

int state_report_mark_sending(struct state *st, int64_t id, int64_t now, const char *redirect,
			      struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("the redirect address", redirect, 0, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)id);
	if (sdb_tx_begin_one(st, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "UPDATE reports SET status = 'sending', attempts = attempts + 1, "
			 "last_attempt = ?, redirected_to = COALESCE(redirected_to, ?) "
			 "WHERE id = ? AND status IN ('queued', 'sending') AND mark IS NULL", err) == 0) {
		sdb_bind_int(&q, now);
		sdb_bind_text(&q, redirect);
		sdb_bind_int(&q, id);
		ret = report_update(st, &q, id, "sending", err);
	}
	return sdb_tx_end_one(st, ret, err);
}

int state_report_mark_ended(struct state *st, int64_t id, int64_t now, int64_t next_attempt,
			    const char *reply, const struct state_rcpt *rcpt, size_t nr,
			    struct buf *err)
{
	enum state_status to = state_rcpt_outcome(rcpt, nr);
	struct buf results = BUF_INIT;
	struct stmt q;
	size_t i, delivered = 0;
	int ret = -1;

	if (sdb_check_rcpts(rcpt, nr, reply, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)id);
	for (i = 0; i < nr; i++)
		delivered += rcpt[i].status == STATE_RCPT_DELIVERED;
	sdb_rcpt_encode(&results, rcpt, nr);
	if (sdb_tx_begin_one(st, err) < 0) {
		buf_release(&results);
		return -1;
	}
	if (sdb_stmt_prepare(st, &q, "UPDATE reports SET status = ?, next_attempt = ?, "
			 "sent = COALESCE(sent, ?), last_reply = ?, rcpt_results = ? "
			 "WHERE id = ? AND status = 'sending'", err) == 0) {
		sdb_bind_text(&q, state_status_name(to));
		sdb_bind_opt(&q, to == STATE_QUEUED ? next_attempt : 0);
		sdb_bind_opt(&q, delivered ? now : 0);
		sdb_bind_text(&q, reply);
		sdb_bind_text(&q, nr ? results.data : NULL);
		sdb_bind_int(&q, id);
		ret = report_update(st, &q, id, state_status_name(to), err);
	}
	buf_release(&results);
	return sdb_tx_end_one(st, ret, err);
}

int state_report_mark_stopped(struct state *st, int64_t id, int64_t now, int64_t next_attempt,
			      const char *reply, struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("the reply", reply, 0, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)id);
	if (sdb_tx_begin_one(st, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "UPDATE reports SET status = 'queued', attempts = attempts + 1, "
			 "last_attempt = ?, last_reply = ?, next_attempt = COALESCE(?, next_attempt) "
			 "WHERE id = ? AND status IN ('queued', 'sending')", err) == 0) {
		sdb_bind_int(&q, now);
		sdb_bind_text(&q, reply);
		sdb_bind_opt(&q, next_attempt);
		sdb_bind_int(&q, id);
		ret = report_update(st, &q, id, "queued", err);
	}
	return sdb_tx_end_one(st, ret, err);
}

int state_report_results(struct state *st, int64_t id, struct state_rcpt **out, size_t *nr,
			 struct buf *err)
{
	struct stmt q;
	int row;

	*out = NULL;
	*nr = 0;
	if (sdb_stmt_prepare(st, &q, "SELECT rcpt_results FROM reports WHERE id = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	if ((row = sdb_stmt_step(&q, err)) == 1 &&
	    sdb_rcpt_decode((const char *)sqlite3_column_text(q.s, 0), out, nr) < 0)
		row = err_set(err, "%s: report %lld has malformed recipient outcomes", st->path,
			      (long long)id);
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_sent_last_hour(struct state *st, int64_t now, int64_t *count, struct buf *err)
{
	int64_t hour = now / 3600 * 3600, since;
	struct stmt q;
	int r;

	*count = 0;
	if ((r = state_delivery_unfinished(st, &since, err)) < 0)
		return -1;
	/* a run that is going on, or was cut short, has not added its count
	 * to the log yet: then count that hour's reports themselves */
	if (r == 1 && since < hour + 3600) {
		if (sdb_stmt_prepare(st, &q, "SELECT COUNT(*) FROM reports WHERE sent >= ? AND sent < ?",
				 err) < 0)
			return -1;
		sdb_bind_int(&q, hour);
		sdb_bind_int(&q, hour + 3600);
	} else {
		if (sdb_stmt_prepare(st, &q, "SELECT count FROM send_log WHERE hour = ?", err) < 0)
			return -1;
		sdb_bind_int(&q, now / 3600);
	}
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		*count = sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	return r < 0 ? -1 : 0;
}

int state_sent_add(struct state *st, int64_t now, int64_t count, struct buf *err)
{
	const int64_t v[] = { now / 3600, count };

	if (count <= 0)
		return 0;
	return sdb_write_ints(st, "INSERT INTO send_log (hour, count) VALUES (?, ?) "
			  "ON CONFLICT (hour) DO UPDATE SET count = count + excluded.count", 2, v, err);
}

int state_sent_recount(struct state *st, int64_t since, struct buf *err)
{
	const int64_t hour = since / 3600 * 3600;

	/* every report sent is counted in the hour its run began (its
	 * `sent`), as state_sent_add() counts them */
	return sdb_write_ints(st, "INSERT INTO send_log (hour, count) "
			  "SELECT sent / 3600, COUNT(*) FROM reports "
			  "WHERE sent >= ? GROUP BY sent / 3600 "
			  "ON CONFLICT (hour) DO UPDATE SET count = excluded.count", 1, &hour, err);
}

/* Appends the reports the query q yields (REPORT_COLUMNS, replies, follow-ups). */
static int reports_collect_rows(struct state *st, struct stmt *q, struct state_reports *out,
				struct buf *err)
{
	int row;

	while ((row = sdb_stmt_step(q, err)) == 1) {
		struct state_report *r;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		r = &out->v[out->nr];
		if (report_from_row(st, q->s, 0, r, err) < 0) {
			row = -1;
			break;
		}
		r->replies = (size_t)sdb_col_int(q->s, REPORT_NR_COLUMNS);
		r->followups = (size_t)sdb_col_int(q->s, REPORT_NR_COLUMNS + 1);
		out->nr++;
	}
	sdb_stmt_finish(q);
	return row < 0 ? -1 : 0;
}

#define REPORT_LIST_SQL \
	"SELECT " REPORT_JOINED_COLUMNS ", " \
	"(SELECT COUNT(*) FROM messages m WHERE m.report_id = r.id " \
	" AND m.origin = 'ingested'), " \
	"(SELECT COUNT(*) FROM reports f WHERE f.thread_id = r.id " \
	" AND f.kind = 'followup') " \
	"FROM reports r " REPORT_JOINS

int state_report_list(struct state *st, struct state_reports *out, struct buf *err)
{
	struct stmt q;

	if (sdb_stmt_prepare(st, &q, REPORT_LIST_SQL "ORDER BY r.id", err) < 0)
		return -1;
	return reports_collect_rows(st, &q, out, err);
}

int state_report_list_thread(struct state *st, int64_t id, struct state_reports *out,
			     struct buf *err)
{
	struct stmt q;

	if (sdb_stmt_prepare(st, &q, REPORT_LIST_SQL "WHERE r.id = ?1 OR r.thread_id = ?1 "
			     "ORDER BY r.id", err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	return reports_collect_rows(st, &q, out, err);
}

int state_report_set_verdict(struct state *st, int64_t id, enum state_verdict v,
			     struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if ((size_t)v >= N(sdb_verdict_names))
		return err_set(err, "%s: unknown report state %d", st->path, (int)v);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "UPDATE reports SET state = ? WHERE id = ?", err) == 0) {
		sdb_bind_text(&q, state_verdict_name(v));
		sdb_bind_int(&q, id);
		ret = report_update(st, &q, id, state_verdict_name(v), err);
	}
	return sdb_tx_end(st, ret, err);
}

/* ---- the operator's actions ------------------------------------------ */

/* Records the operator's action on report id (one of the caller's
 * transaction's statements). */
static int operator_command(struct state *st, int64_t id, const char *name, const char *args,
			    const char *author, int64_t now, struct buf *err)
{
	struct stmt q;

	if (sdb_stmt_prepare(st, &q, "INSERT INTO commands (report_id, message_id, name, args, author, "
			 "date) VALUES (?, NULL, ?, ?, ?, ?)", err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	sdb_bind_text(&q, name);
	sdb_bind_text(&q, args ? args : "");
	sdb_bind_text(&q, author);
	sdb_bind_opt(&q, now);
	return sdb_stmt_run(&q, err);
}

/* What state_report_act() reads of a report before it acts. */
struct act_row {
	enum state_status status;
	enum state_mark mark;
	enum state_kind kind;
	enum state_verdict verdict;
	int64_t sent;
	struct state_rcpt *rcpt;
	size_t nr_rcpt;
};

/* 1 with *row filled (its rcpt freed by the caller), 0 when there is no
 * such report, -1 on error. */
static int act_row_read(struct state *st, int64_t id, struct act_row *row, struct buf *err)
{
	struct stmt q;
	int r, status, mark, kind, verdict;

	memset(row, 0, sizeof(*row));
	if (sdb_stmt_prepare(st, &q, "SELECT status, mark, kind, state, sent, rcpt_results FROM reports "
			 "WHERE id = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	r = sdb_stmt_step(&q, err);
	if (r == 1) {
		status = sdb_name_index(sdb_status_names, N(sdb_status_names), (const char *)sqlite3_column_text(q.s, 0));
		mark = sqlite3_column_type(q.s, 1) == SQLITE_NULL ? STATE_MARK_NONE :
		       sdb_name_index(sdb_mark_names, N(sdb_mark_names), (const char *)sqlite3_column_text(q.s, 1));
		kind = sdb_name_index(sdb_kind_names, N(sdb_kind_names), (const char *)sqlite3_column_text(q.s, 2));
		verdict = sdb_name_index(sdb_verdict_names, N(sdb_verdict_names), (const char *)sqlite3_column_text(q.s, 3));
		row->sent = sdb_col_int(q.s, 4);
		if (status < 0 || mark < 0 || kind < 0 || verdict < 0 ||
		    sdb_rcpt_decode((const char *)sqlite3_column_text(q.s, 5), &row->rcpt, &row->nr_rcpt) < 0) {
			r = err_set(err, "%s: report %lld has an unknown status, mark or recipient outcome",
				    st->path, (long long)id);
		} else {
			row->status = (enum state_status)status;
			row->mark = (enum state_mark)mark;
			row->kind = (enum state_kind)kind;
			row->verdict = (enum state_verdict)verdict;
		}
	}
	sdb_stmt_finish(&q);
	if (r == 0)
		err_set(err, "there is no report %lld (perfbot outbox lists them)", (long long)id);
	return r;
}

/* Why action a does not apply to row (a message in err, STATE_REFUSED),
 * or 0 when it does. */
static int act_refusal(int64_t id, enum state_action a, const struct act_row *row, size_t refused,
		       struct buf *err)
{
	long long n = (long long)id;

	if (row->mark == STATE_MARK_DROPPED)
		return err_set(err, "report %lld was dropped: it is never sent", n), STATE_REFUSED;
	switch (a) {
	case STATE_ACTION_HOLD:
		if (row->mark == STATE_MARK_HELD)
			return err_set(err, "report %lld is held already", n), STATE_REFUSED;
		if (row->status == STATE_SENT)
			return err_set(err, "report %lld was sent: nothing is left to hold", n), STATE_REFUSED;
		if (row->status == STATE_FAILED)
			return err_set(err, "report %lld failed for good: nothing is left to hold "
				       "(`perfbot outbox retry %lld` opens it again)", n, n), STATE_REFUSED;
		return 0;
	case STATE_ACTION_RELEASE:
		if (row->mark != STATE_MARK_HELD)
			return err_set(err, "report %lld is not held", n), STATE_REFUSED;
		return 0;
	case STATE_ACTION_RETRY:
		if (row->mark == STATE_MARK_HELD)
			return err_set(err, "report %lld is held: `perfbot outbox release %lld` lets it go",
				       n, n), STATE_REFUSED;
		if (row->status == STATE_SENT && !refused)
			return err_set(err, "report %lld was sent to every recipient: nothing to retry", n),
			       STATE_REFUSED;
		return 0;
	case STATE_ACTION_DROP:
		if (row->status == STATE_SENT)
			return err_set(err, "report %lld was sent: nothing is left to drop", n), STATE_REFUSED;
		return 0;
	}
	return err_set(err, "unknown action %d", (int)a);
}

/* Runs an UPDATE of report id with its parameters bound in order: text
 * (NULL for none) and then id. */
static int act_update(struct state *st, const char *sql, const char *text, int64_t id,
		      struct buf *err)
{
	struct stmt q;

	if (sdb_stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	if (text)
		sdb_bind_text(&q, text);
	sdb_bind_int(&q, id);
	return sdb_stmt_run(&q, err);
}

static int act_apply(struct state *st, int64_t id, enum state_action a, const char *why,
		     const struct act_row *row, struct buf *err)
{
	struct buf kept = BUF_INIT;
	size_t i;
	int ret;

	switch (a) {
	case STATE_ACTION_HOLD:
		return act_update(st, why ? "UPDATE reports SET mark = 'held', mark_why = ? WHERE id = ?" :
				  "UPDATE reports SET mark = 'held', mark_why = NULL WHERE id = ?", why, id, err);
	case STATE_ACTION_RELEASE:
		return act_update(st, "UPDATE reports SET mark = NULL, mark_why = NULL WHERE id = ?",
				  NULL, id, err);
	case STATE_ACTION_DROP:
		return act_update(st, "UPDATE reports SET mark = 'dropped', mark_why = ? WHERE id = ?",
				  why, id, err);
	case STATE_ACTION_RETRY:
		if (row->status == STATE_QUEUED || row->status == STATE_SENDING)
			return act_update(st, "UPDATE reports SET next_attempt = NULL WHERE id = ?", NULL,
					  id, err);
		/* failed, or sent with refused recipients: those are tried
		 * again, the delivered ones never */
		for (i = 0; i < row->nr_rcpt; i++)
			if (row->rcpt[i].status == STATE_RCPT_DELIVERED)
				sdb_rcpt_encode(&kept, &row->rcpt[i], 1);
		ret = act_update(st, kept.len ?
				 "UPDATE reports SET status = 'queued', next_attempt = NULL, "
				 "rcpt_results = ? WHERE id = ?" :
				 "UPDATE reports SET status = 'queued', next_attempt = NULL, "
				 "rcpt_results = NULL WHERE id = ?", kept.len ? kept.data : NULL, id, err);
		buf_release(&kept);
		return ret;
	}
	return err_set(err, "unknown action %d", (int)a);
}

int state_report_act(struct state *st, int64_t id, enum state_action a, const char *why,
		     const char *author, int64_t now, struct buf *err)
{
	struct act_row row;
	size_t i, refused = 0;
	int ret;

	if ((size_t)a >= N(sdb_action_names))
		return err_set(err, "unknown action %d", (int)a);
	if (sdb_check_reason(why, a == STATE_ACTION_DROP, err) < 0 ||
	    sdb_check_text("the author", author, 1, err) < 0)
		return -1;
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	ret = act_row_read(st, id, &row, err);
	if (ret == 1) {
		for (i = 0; i < row.nr_rcpt; i++)
			refused += row.rcpt[i].status == STATE_RCPT_REFUSED;
		ret = act_refusal(id, a, &row, refused, err);
		if (ret == 0 && (act_apply(st, id, a, why, &row, err) < 0 ||
				 operator_command(st, id, sdb_action_names[a], why, author, now, err) < 0))
			ret = -1;
	} else if (ret == 0) {
		ret = -1;
	}
	state_rcpts_free(row.rcpt, row.nr_rcpt);
	/* a refusal changed nothing: roll back, and say why */
	return sdb_tx_end(st, ret, err);
}

int state_report_set_verdict_by(struct state *st, int64_t id, enum state_verdict v,
				const char *why, const char *author, int64_t now,
				struct buf *err)
{
	struct act_row row;
	int ret;

	if ((size_t)v >= N(sdb_verdict_names))
		return err_set(err, "%s: unknown report state %d", st->path, (int)v);
	if (sdb_check_reason(why, 0, err) < 0 || sdb_check_text("the author", author, 1, err) < 0)
		return -1;
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	ret = act_row_read(st, id, &row, err);
	if (ret == 1) {
		ret = 0;
		if (row.kind != STATE_KIND_REPORT) {
			err_set(err, "report %lld is a follow-up: a thread's state is its report's "
				"(perfbot thread %lld shows it)", (long long)id, (long long)id);
			ret = STATE_REFUSED;
		} else if (row.verdict == v) {
			err_set(err, "report %lld is %s already", (long long)id, state_verdict_name(v));
			ret = STATE_REFUSED;
		}
		if (ret == 0 &&
		    (act_update(st, "UPDATE reports SET state = ? WHERE id = ?", state_verdict_name(v), id,
				err) < 0 ||
		     operator_command(st, id, sdb_verdict_commands[v], why, author, now, err) < 0))
			ret = -1;
		/* an operator's reopen sets the fix aside as a #perfbot reopen
		 * does (perfbot-track(1)) */
		if (ret == 0 && v == STATE_VERDICT_OPEN &&
		    act_update(st, "UPDATE fixes SET reopened = 1 WHERE report_id = ?", NULL, id, err) < 0)
			ret = -1;
	} else if (ret == 0) {
		ret = -1;
	}
	state_rcpts_free(row.rcpt, row.nr_rcpt);
	return sdb_tx_end(st, ret, err);
}

