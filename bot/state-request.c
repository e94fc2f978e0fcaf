/*
 * state-request.c: fix testing's part of the state (state.h): each
 * report's job (what a lab needs to rerun it) and the "#perfbot test"
 * requests with their states.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "state-db.h"
#include "xalloc.h"
#include "banned.h"

static const char *const what_names[] = { "patch", "commit", "git" };
static const char *const request_state_names[] = {
	"pending", "taken", "answered", "refused", "dropped",
};

const char *state_request_what_name(enum state_request_what w)
{
	return what_names[w];
}

const char *state_request_state_name(enum state_request_state s)
{
	return request_state_names[s];
}

void state_job_release(struct state_job *j)
{
	free(j->base);
	free(j->head);
	free(j->tree);
	free(j->tests);
	memset(j, 0, sizeof(*j));
}

int state_job_set(struct state *st, int64_t report_id, const struct state_job *j,
		  struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("the base commit", j->base, 1, err) < 0 ||
	    sdb_check_text("the head commit", j->head, 1, err) < 0 ||
	    sdb_check_text("the tree", j->tree, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "INSERT OR REPLACE INTO report_jobs (report_id, base, head, tree, "
			     "regression, tests) VALUES (?, ?, ?, ?, ?, ?)", err) == 0) {
		sdb_bind_int(&q, report_id);
		sdb_bind_text(&q, j->base);
		sdb_bind_text(&q, j->head);
		sdb_bind_text(&q, j->tree);
		sdb_bind_int(&q, j->regression ? 1 : 0);
		sdb_bind_text(&q, j->tests);
		ret = sdb_stmt_run(&q, err);
	}
	return sdb_tx_end(st, ret, err);
}

int state_job_get(struct state *st, int64_t report_id, struct state_job *out, struct buf *err)
{
	struct stmt q;
	int r;

	memset(out, 0, sizeof(*out));
	/* the report's own job, else its thread's: two lookups by key (an
	 * IN list with an ORDER BY made a table and a sorter per call, a
	 * fourteenth of a site run's instructions) */
	if (sdb_stmt_prepare(st, &q, "SELECT base, head, tree, tests, regression FROM report_jobs "
			     "WHERE report_id = IFNULL((SELECT report_id FROM report_jobs WHERE report_id = ?1), "
			     "(SELECT thread_id FROM reports WHERE id = ?1))", err) < 0)
		return -1;
	sdb_bind_int(&q, report_id);
	r = sdb_stmt_step(&q, err);
	if (r == 1) {
		out->base = sdb_col_str(q.s, 0);
		out->head = sdb_col_str(q.s, 1);
		out->tree = sdb_col_str(q.s, 2);
		out->tests = sdb_col_str(q.s, 3);
		out->regression = sdb_col_int(q.s, 4) != 0;
	}
	sdb_stmt_finish(&q);
	return r;
}

void state_request_release(struct state_request *r)
{
	free(r->message_id);
	free(r->requester_name);
	free(r->requester_email);
	free(r->args);
	free(r->subject);
	free(r->url);
	free(r->branch);
	free(r->commit_id);
	free(r->base);
	free(r->head);
	free(r->ref);
	free(r->why);
	free(r->verdict);
	free(r->result_message_id);
	memset(r, 0, sizeof(*r));
}

void state_requests_release(struct state_requests *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		state_request_release(&list->v[i]);
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int state_request_next_id(struct state *st, int64_t *id, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_stmt_prepare(st, &q, "SELECT IFNULL(MAX(id), 0) + 1 FROM requests", err) < 0)
		return -1;
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		*id = sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	return r < 0 ? -1 : 0;
}

int state_request_add(struct state *st, const struct state_request *r, int64_t *id,
		      struct buf *err)
{
	struct stmt q;
	int ret = -1, found;

	if (sdb_check_text("message_id", r->message_id, 1, err) < 0 ||
	    sdb_check_text("the requester", r->requester_email, 1, err) < 0 ||
	    sdb_check_text("the request's arguments", r->args, 0, err) < 0 ||
	    sdb_check_text("why", r->why, 0, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT 1 FROM requests WHERE message_id = ?", err) < 0)
		return sdb_tx_end(st, -1, err);
	sdb_bind_text(&q, r->message_id);
	found = sdb_stmt_step(&q, err);
	sdb_stmt_finish(&q);
	if (found) {
		if (found > 0)
			err_set(err, "%s: <%s> made a request already", st->path, r->message_id);
		sdb_tx_end(st, -1, err);
		return found < 0 ? -1 : STATE_EXISTS;
	}
	if (sdb_stmt_prepare(st, &q, "INSERT INTO requests (id, report_id, message_id, requester_name, "
			     "requester_email, requested, what, args, subject, url, branch, commit_id, "
			     "base, head, ref, state, why, changed) "
			     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", err) == 0) {
		sdb_bind_opt(&q, r->id);
		sdb_bind_int(&q, r->report_id);
		sdb_bind_text(&q, r->message_id);
		sdb_bind_text(&q, r->requester_name ? r->requester_name : "");
		sdb_bind_text(&q, r->requester_email);
		sdb_bind_int(&q, r->requested);
		sdb_bind_text(&q, what_names[r->what]);
		sdb_bind_text(&q, r->args ? r->args : "");
		sdb_bind_text(&q, r->subject);
		sdb_bind_text(&q, r->url);
		sdb_bind_text(&q, r->branch);
		sdb_bind_text(&q, r->commit_id);
		sdb_bind_text(&q, r->base);
		sdb_bind_text(&q, r->head);
		sdb_bind_text(&q, r->ref);
		sdb_bind_text(&q, request_state_names[r->state]);
		sdb_bind_text(&q, r->why);
		sdb_bind_int(&q, r->changed ? r->changed : r->requested);
		ret = sdb_stmt_run(&q, err);
	}
	if (ret == 0 && id)
		*id = sqlite3_last_insert_rowid(st->db);
	return sdb_tx_end(st, ret, err);
}

static int count(struct state *st, const char *sql, int64_t a, const char *s, int64_t b,
		 size_t *n, struct buf *err)
{
	struct stmt q;
	int r;

	*n = 0;
	if (sdb_stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	if (s)
		sdb_bind_text(&q, s);
	else
		sdb_bind_int(&q, a);
	sdb_bind_int(&q, b);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		*n = (size_t)sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	return r < 0 ? -1 : 0;
}

int state_request_count_open(struct state *st, int64_t report_id, size_t *n, struct buf *err)
{
	return count(st, "SELECT COUNT(*) FROM requests WHERE report_id IN "
		     "(SELECT id FROM reports WHERE thread_id = "
		     "(SELECT thread_id FROM reports WHERE id = ?)) AND state IN ('pending', 'taken') "
		     "AND ? = 0", report_id, NULL, 0, n, err);
}

int state_request_count_since(struct state *st, const char *email, int64_t since, size_t *n,
			      struct buf *err)
{
	return count(st, "SELECT COUNT(*) FROM requests WHERE lower(requester_email) = lower(?) "
		     "AND requested >= ? AND state != 'refused'", 0, email, since, n, err);
}

#define REQUEST_COLUMNS \
	"id, report_id, message_id, requester_name, requester_email, requested, what, args, " \
	"subject, url, branch, commit_id, base, head, ref, state, why, changed, verdict, " \
	"result_message_id, results"

static void request_from_row(sqlite3_stmt *s, struct state_request *r)
{
	char *w;

	memset(r, 0, sizeof(*r));
	r->id = sdb_col_int(s, 0);
	r->report_id = sdb_col_int(s, 1);
	r->message_id = sdb_col_str(s, 2);
	r->requester_name = sdb_col_str(s, 3);
	r->requester_email = sdb_col_str(s, 4);
	r->requested = sdb_col_int(s, 5);
	w = sdb_col_str(s, 6);
	r->what = (enum state_request_what)(w ? sdb_name_index(what_names, N(what_names), w) : 0);
	free(w);
	r->args = sdb_col_str(s, 7);
	r->subject = sdb_col_str(s, 8);
	r->url = sdb_col_str(s, 9);
	r->branch = sdb_col_str(s, 10);
	r->commit_id = sdb_col_str(s, 11);
	r->base = sdb_col_str(s, 12);
	r->head = sdb_col_str(s, 13);
	r->ref = sdb_col_str(s, 14);
	w = sdb_col_str(s, 15);
	r->state = (enum state_request_state)(w ? sdb_name_index(request_state_names,
							       N(request_state_names), w) : 0);
	free(w);
	r->why = sdb_col_str(s, 16);
	r->changed = sdb_col_int(s, 17);
	r->verdict = sdb_col_str(s, 18);
	r->result_message_id = sdb_col_str(s, 19);
	r->results = sdb_col_int(s, 20);
}

int state_request_list(struct state *st, int64_t report_id, struct state_requests *out,
		       struct buf *err)
{
	struct stmt q;
	int row;

	if (sdb_stmt_prepare(st, &q, "SELECT " REQUEST_COLUMNS " FROM requests WHERE ? = 0 OR "
			     "report_id IN (SELECT id FROM reports WHERE thread_id = "
			     "(SELECT thread_id FROM reports WHERE id = ?)) ORDER BY id", err) < 0)
		return -1;
	sdb_bind_int(&q, report_id);
	sdb_bind_int(&q, report_id);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		request_from_row(q.s, &out->v[out->nr++]);
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

int state_request_get(struct state *st, int64_t id, struct state_request *out, struct buf *err)
{
	struct stmt q;
	int r;

	memset(out, 0, sizeof(*out));
	if (sdb_stmt_prepare(st, &q, "SELECT " REQUEST_COLUMNS " FROM requests WHERE id = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	r = sdb_stmt_step(&q, err);
	if (r == 1)
		request_from_row(q.s, out);
	sdb_stmt_finish(&q);
	return r;
}

int state_request_set_state(struct state *st, int64_t id, enum state_request_state s,
			    unsigned mask, const char *why, int64_t now, struct buf *err)
{
	struct stmt q;
	int ret = -1, changed = 0;

	if (sdb_check_text("why", why, 0, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	/* mask's bit i stands for request_state_names[i] */
	if (sdb_stmt_prepare(st, &q, "UPDATE requests SET state = ?, why = IFNULL(?, why), changed = ? "
			     "WHERE id = ? AND (? >> (CASE state WHEN 'pending' THEN 0 WHEN 'taken' "
			     "THEN 1 WHEN 'answered' THEN 2 WHEN 'refused' THEN 3 ELSE 4 END)) & 1",
			     err) == 0) {
		sdb_bind_text(&q, request_state_names[s]);
		sdb_bind_text(&q, why);
		sdb_bind_int(&q, now);
		sdb_bind_int(&q, id);
		sdb_bind_int(&q, (int64_t)mask);
		ret = sdb_stmt_run(&q, err);
		if (ret == 0)
			changed = sqlite3_changes(st->db) > 0;
	}
	ret = sdb_tx_end(st, ret, err);
	return ret < 0 ? -1 : changed;
}

int state_request_answer(struct state *st, int64_t id, const char *verdict,
			 const char *result_mid, int64_t now, struct buf *err)
{
	struct stmt q;
	int ret = -1, changed = 0;

	if (sdb_check_text("the verdict", verdict, 1, err) < 0 ||
	    sdb_check_text("the result's Message-ID", result_mid, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "UPDATE requests SET state = 'answered', verdict = ?, "
			     "result_message_id = IFNULL(result_message_id, ?), results = results + 1, "
			     "changed = ? WHERE id = ? AND state IN ('taken', 'answered')", err) == 0) {
		sdb_bind_text(&q, verdict);
		sdb_bind_text(&q, result_mid);
		sdb_bind_int(&q, now);
		sdb_bind_int(&q, id);
		ret = sdb_stmt_run(&q, err);
		if (ret == 0)
			changed = sqlite3_changes(st->db) > 0;
	}
	ret = sdb_tx_end(st, ret, err);
	return ret < 0 ? -1 : changed;
}
