/*
 * state-track.c: tracking's part of the state (state.h, perfbot-track(1)): each
 * report's fix and possible fixes, the watched refs' cursors, notices and
 * digests, and the code half of migration 6.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "state-db.h"
#include "xalloc.h"
#include "banned.h"

/* ---- fixes, watched refs, notices, digests ------------------------- */

/* Replaces the one occurrence of from in sql by to; -1 when from is not
 * there exactly once. */
static int sql_replace_once(struct buf *sql, const char *from, const char *to)
{
	const char *at = strstr(sql->data, from);
	struct buf out = BUF_INIT;

	if (!at || strstr(at + 1, from))
		return -1;
	buf_add(&out, sql->data, (size_t)(at - sql->data));
	buf_adds(&out, to);
	buf_adds(&out, at + strlen(from));
	buf_reset(sql);
	buf_add(sql, out.data, out.len);
	buf_release(&out);
	return 0;
}

/* Runs each statement of list in order. */
static int exec_all(struct state *st, const struct state_names *list, struct buf *err)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		if (sdb_exec_sql(st, list->v[i], err) < 0)
			return -1;
	return 0;
}

/*
 * Schema 5's rebuild of reports, which SQLite cannot give new CHECK
 * constraints in place: its CREATE statement as the database holds it
 * (so every column an earlier migration added is kept, in order) with
 * the two constraints widened, the rows copied, then its indexes,
 * triggers and the views (which name it) made again.  Then the columns
 * track reads, filled for the reports queued before: the head commit and
 * the tree name from the thread key, the branch from the Subject's
 * "[NAME:BRANCH]" (a report whose Subject does not say it keeps tree
 * NULL: its own tree's ref is then unknown).
 */
int sdb_migrate_track(struct state *st, struct buf *err)
{
	static const char *const rewrite[][2] = {
		{ "CREATE TABLE reports (", "CREATE TABLE reports_rebuilt (" },
		{ "CHECK (kind IN ('report', 'followup'))",
		  "CHECK (kind IN ('report', 'followup', 'notice', 'digest'))" },
		{ "CHECK ((kind = 'report') = (parent_id IS NULL))",
		  "CHECK (kind = 'digest' OR (kind = 'report') = (parent_id IS NULL))" },
	};
	struct state_names again = { 0 }, drops = { 0 };
	struct buf table = BUF_INIT, sql = BUF_INIT;
	struct stmt q;
	size_t i;
	int row, ret = -1;

	if (sdb_stmt_prepare(st, &q, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'reports'",
			 err) < 0)
		return -1;
	if ((row = sdb_stmt_step(&q, err)) == 1)
		buf_adds(&table, (const char *)sqlite3_column_text(q.s, 0));
	sdb_stmt_finish(&q);
	if (row <= 0) {
		if (row == 0)
			err_set(err, "%s: there is no reports table", st->path);
		goto done;
	}
	/* a table that was renamed into place is named in quotes */
	sql_replace_once(&table, "CREATE TABLE \"reports\" (", "CREATE TABLE reports (");
	for (i = 0; i < N(rewrite); i++) {
		if (sql_replace_once(&table, rewrite[i][0], rewrite[i][1]) < 0) {
			err_set(err, "%s: the reports table is not as schema version 4 left it (\"%s\")",
				st->path, rewrite[i][0]);
			goto done;
		}
	}
	if (sdb_stmt_prepare(st, &q, "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND "
			 "((type IN ('index', 'trigger') AND tbl_name = 'reports') OR type = 'view') "
			 "ORDER BY rowid", err) < 0)
		goto done;
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		ALLOC_GROW(again.v, again.nr + 1, again.alloc);
		again.v[again.nr++] = sdb_col_str(q.s, 2);
		if (!strcmp((const char *)sqlite3_column_text(q.s, 0), "view")) {
			buf_reset(&sql);
			buf_addf(&sql, "DROP VIEW \"%s\"", (const char *)sqlite3_column_text(q.s, 1));
			ALLOC_GROW(drops.v, drops.nr + 1, drops.alloc);
			drops.v[drops.nr++] = buf_detach(&sql, NULL);
		}
	}
	sdb_stmt_finish(&q);
	if (row < 0 || sdb_exec_sql(st, table.data, err) < 0 ||
	    sdb_exec_sql(st, "INSERT INTO reports_rebuilt SELECT * FROM reports", err) < 0 ||
	    exec_all(st, &drops, err) < 0 ||
	    sdb_exec_sql(st, "DROP TABLE reports; ALTER TABLE reports_rebuilt RENAME TO reports", err) < 0 ||
	    exec_all(st, &again, err) < 0)
		goto done;
	ret = sdb_exec_sql(st,
		       "ALTER TABLE reports ADD COLUMN tree TEXT;"
		       "ALTER TABLE reports ADD COLUMN head TEXT;"
		       "UPDATE reports SET head = substr(thread_key, instr(thread_key, char(10)) + 1, 40)"
		       "  WHERE kind IN ('report', 'followup') AND instr(thread_key, char(10)) > 1;"
		       "UPDATE reports SET tree = substr(thread_key, 1, instr(thread_key, char(10)) - 1)"
		       "    || '/' || substr(subject, instr(thread_key, char(10)) + 2,"
		       "                     instr(subject, ']') - instr(thread_key, char(10)) - 2)"
		       "  WHERE kind = 'report' AND instr(thread_key, char(10)) > 1"
		       "    AND substr(subject, 1, instr(thread_key, char(10))) ="
		       "        '[' || substr(thread_key, 1, instr(thread_key, char(10)) - 1)"
		       "    AND substr(subject, instr(thread_key, char(10)) + 1, 1) = ':'"
		       "    AND instr(subject, ']') > instr(thread_key, char(10)) + 2;"
		       /* what track reads of every report and follow-up, each
			* run: from this index alone, not from the rows (a tenth
			* of the pages); nothing delivery changes is in it */
		       "CREATE INDEX reports_tracked ON reports(kind, id, thread_id, message_id, tree, head,"
		       "  state, created);",
		       err);
done:
	state_names_release(&again);
	state_names_release(&drops);
	buf_release(&table);
	buf_release(&sql);
	return ret;
}

void state_names_release(struct state_names *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		free(n->v[i]);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

void state_fix_release(struct state_fix *f)
{
	free(f->commit);
	free(f->subject);
	free(f->ref);
	free(f->landed);
	free(f->posted);
	memset(f, 0, sizeof(*f));
}

static void possible_release(struct state_possible_fix *p)
{
	free(p->commit);
	free(p->subject);
	free(p->ref);
}

void state_tracked_release(struct state_tracked *t)
{
	size_t i;

	free(t->message_id);
	free(t->subject);
	free(t->tree);
	free(t->head);
	for (i = 0; i < t->nr_followup_ids; i++)
		free(t->followup_ids[i]);
	free(t->followup_ids);
	state_fix_release(&t->fix);
	for (i = 0; i < t->nr_possible; i++)
		possible_release(&t->possible[i]);
	free(t->possible);
	for (i = 0; i < t->nr_posted; i++)
		state_posted_fix_release(&t->posted[i]);
	free(t->posted);
	memset(t, 0, sizeof(*t));
}

void state_tracked_list_release(struct state_tracked_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		state_tracked_release(&l->v[i]);
	free(l->v);
	state_names_release(&l->trees);
	memset(l, 0, sizeof(*l));
}

void state_digest_entries_free(struct state_digest_entry *v, size_t nr)
{
	size_t i;

	for (i = 0; v && i < nr; i++)
		free(v[i].fix_commit);
	free(v);
}

/* The report with this id among list->v[from..] (in id order), or NULL. */
static struct state_tracked *tracked_find(struct state_tracked_list *list, size_t from, int64_t id)
{
	size_t lo = from, hi = list->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (list->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < list->nr && list->v[lo].id == id ? &list->v[lo] : NULL;
}

static int evidence_of(const char *name, enum fix_kind *out)
{
	return name && fix_kind_parse(name, out) == 0 && *out != FIX_POSSIBLE ? 0 : -1;
}

/* The distinct trees of the mails, each with the smallest id of a mail
 * on it.  A handful, so a list searched in full: no copy or sort per
 * mail (there are thousands). */
struct tree_seen {
	int64_t id;
	char *tree;	/* owned */
};

struct trees_seen {
	struct tree_seen *v;
	size_t nr, alloc;
};

static void trees_seen_add(struct trees_seen *s, int64_t id, const char *tree)
{
	size_t i;

	if (!tree)
		return;
	for (i = 0; i < s->nr; i++) {
		if (!strcmp(s->v[i].tree, tree)) {
			if (id < s->v[i].id)
				s->v[i].id = id;
			return;
		}
	}
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr].id = id;
	s->v[s->nr++].tree = xstrdup(tree);
}

static int tree_seen_cmp(const void *a, const void *b)
{
	const struct tree_seen *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The distinct trees seen, first seen (smallest id) first; frees s. */
static void trees_collect(struct trees_seen *s, struct state_names *out)
{
	size_t i;

	xqsort(s->v, s->nr, sizeof(*s->v), tree_seen_cmp);
	for (i = 0; i < s->nr; i++) {
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr++] = s->v[i].tree;
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/*
 * Each query in two forms: every report's (only = 0: "?1 = 0 OR ..." keeps
 * one parameter), and one report's, by its key.  One text for both would
 * make the one report's a scan of every report (SQLite plans before it
 * knows ?1), and the site asks for one report's after a reply.
 */
#define TRACKED_TRACK \
	"SELECT r.id, r.message_id, NULL, r.tree, r.head, 'queued', r.state, r.created, 0, " \
	"0, 0 FROM reports r "
#define TRACKED_ACTIVITY \
	"SELECT r.id, r.message_id, r.subject, r.tree, r.head, r.status, r.state, r.created, r.sent, " \
	"(SELECT COUNT(*) FROM messages m WHERE m.report_id = r.id AND m.origin = 'ingested'), " \
	/* the newest of known_messages' rows of the report that are not in \
	 * the outbox, its two halves written out: through the view, SQLite \
	 * builds the whole union and an automatic index on each run (twice \
	 * this query's time over 2,000 reports), where these two use \
	 * messages_report and reports_thread_id */ \
	"(SELECT MAX(d) FROM (SELECT m.date AS d FROM messages m WHERE m.report_id = r.id " \
	"UNION ALL SELECT x.created FROM reports x WHERE x.thread_id = r.id " \
	"AND x.redirected_to IS NULL AND x.sent IS NOT NULL " \
	"AND NOT EXISTS (SELECT 1 FROM messages m2 WHERE m2.message_id = x.message_id))) " \
	"FROM reports r "
#define FIXES_COLUMNS \
	"SELECT report_id, commit_id, subject, ref, date, evidence, recorded, in_repo, landed, " \
	"reopened, posted FROM fixes "
#define POSSIBLE_COLUMNS \
	"SELECT report_id, commit_id, subject, ref, date, recorded FROM possible_fixes "

/* [activity][one] */
static const char *const tracked_sql[2][2] = {
	/* track's: the columns of reports_tracked alone */
	{ TRACKED_TRACK "INDEXED BY reports_tracked WHERE r.kind = 'report' "
	  "AND (?1 = 0 OR r.id = ?1) ORDER BY r.id",
	  TRACKED_TRACK "WHERE r.id = ?1 AND r.kind = 'report'" },
	{ TRACKED_ACTIVITY "WHERE r.kind = 'report' AND (?1 = 0 OR r.id = ?1) ORDER BY r.id",
	  TRACKED_ACTIVITY "WHERE r.id = ?1 AND r.kind = 'report'" },
};

/* [one] */
static const char *const followups_sql[2] = {
	"SELECT thread_id, message_id, tree, id FROM reports INDEXED BY reports_tracked "
	"WHERE kind = 'followup' AND (?1 = 0 OR thread_id = ?1) ORDER BY id",
	"SELECT thread_id, message_id, tree, id FROM reports "
	"WHERE thread_id = ?1 AND kind = 'followup' ORDER BY id",
};

/* [activity][one] */
static const char *const fixes_sql[2][2] = {
	/* track's: the fixes by #perfbot fixed-by alone, which its index
	 * needs before the walk; state_tracked_fixes() reads the rest for the
	 * few reports a walk finds evidence for */
	{ FIXES_COLUMNS "WHERE evidence = 'fixed-by' AND (?1 = 0 OR report_id = ?1)",
	  FIXES_COLUMNS "WHERE report_id = ?1 AND evidence = 'fixed-by'" },
	{ FIXES_COLUMNS "WHERE ?1 = 0 OR report_id = ?1",
	  FIXES_COLUMNS "WHERE report_id = ?1" },
};

static const char *const possible_sql[] = {
	POSSIBLE_COLUMNS "WHERE ?1 = 0 OR report_id = ?1 ORDER BY report_id, recorded, commit_id",
	POSSIBLE_COLUMNS "WHERE report_id = ?1 ORDER BY recorded, commit_id",
};

/* The fixes sql (one parameter: only) yields, into the reports of
 * out->v[from..] they belong to. */
static int fixes_load(struct state *st, const char *sql, int64_t only, size_t from,
		      struct state_tracked_list *out, struct buf *err)
{
	struct stmt q;
	int row;

	if (sdb_stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	sdb_bind_int(&q, only);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		struct state_tracked *t = tracked_find(out, from, sdb_col_int(q.s, 0));
		struct state_fix *f;

		if (!t)
			continue;
		f = &t->fix;
		if (evidence_of((const char *)sqlite3_column_text(q.s, 5), &f->kind) < 0) {
			row = err_set(err, "%s: report %lld: unknown fix evidence", st->path, (long long)t->id);
			break;
		}
		t->has_fix = 1;
		f->report_id = t->id;
		f->commit = sdb_col_str(q.s, 1);
		f->subject = sdb_col_str(q.s, 2);
		f->ref = sdb_col_str(q.s, 3);
		f->date = sdb_col_int(q.s, 4);
		f->recorded = sdb_col_int(q.s, 6);
		f->in_repo = sdb_col_int(q.s, 7) != 0;
		f->landed = sdb_col_str(q.s, 8);
		f->reopened = sdb_col_int(q.s, 9) != 0;
		f->posted = sqlite3_column_type(q.s, 10) == SQLITE_NULL ? NULL : sdb_col_str(q.s, 10);
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

/* The possible fixes sql (one parameter: only) yields, likewise. */
static int possible_load(struct state *st, const char *sql, int64_t only, size_t from,
			 struct state_tracked_list *out, struct buf *err)
{
	struct stmt q;
	int row;

	if (sdb_stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	sdb_bind_int(&q, only);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		struct state_tracked *t = tracked_find(out, from, sdb_col_int(q.s, 0));
		struct state_possible_fix *p;

		if (!t)
			continue;
		t->possible = xrealloc(t->possible, (t->nr_possible + 1) * sizeof(*t->possible));
		p = &t->possible[t->nr_possible++];
		p->commit = sdb_col_str(q.s, 1);
		p->subject = sdb_col_str(q.s, 2);
		p->ref = sdb_col_str(q.s, 3);
		p->date = sdb_col_int(q.s, 4);
		p->recorded = sdb_col_int(q.s, 5);
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

/* Which of a report's posted fixes are shown as the latest: none of the
 * same subject has a higher version, or the same version and a later
 * date (then a larger Message-ID). */
#define POSTED_LATEST \
	"NOT EXISTS (SELECT 1 FROM posted_fixes o WHERE o.report_id = p.report_id " \
	"AND o.subject = p.subject AND (o.version > p.version OR (o.version = p.version AND " \
	"(o.date > p.date OR (o.date = p.date AND o.message_id > p.message_id)))))"

#define POSTED_COLUMNS \
	"SELECT p.report_id, p.message_id, p.subject, p.version, p.author_name, p.author_email, " \
	"p.date, p.evidence, p.recorded, " POSTED_LATEST " FROM posted_fixes p "

int sdb_posted_load(struct state *st, int64_t only, size_t from, struct state_tracked_list *out,
		    struct buf *err)
{
	struct stmt q;
	int row, kind;

	/* every report's, or one's by its key (as tracked_sql) */
	static const char *const sql[2] = {
		POSTED_COLUMNS "WHERE ?1 = 0 OR p.report_id = ?1 "
		"ORDER BY p.report_id, p.date, p.version, p.message_id",
		POSTED_COLUMNS "WHERE p.report_id = ?1 ORDER BY p.date, p.version, p.message_id",
	};

	if (sdb_stmt_prepare(st, &q, sql[only != 0], err) < 0)
		return -1;
	sdb_bind_int(&q, only);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		struct state_tracked *t = tracked_find(out, from, sdb_col_int(q.s, 0));
		struct state_posted_fix *p;
		enum fix_kind k;

		if (!t)
			continue;
		kind = evidence_of((const char *)sqlite3_column_text(q.s, 7), &k);
		if (kind < 0) {
			row = err_set(err, "%s: report %lld: unknown posted fix evidence", st->path,
				      (long long)t->id);
			break;
		}
		t->posted = xrealloc(t->posted, (t->nr_posted + 1) * sizeof(*t->posted));
		p = &t->posted[t->nr_posted++];
		p->report_id = t->id;
		p->message_id = sdb_col_str(q.s, 1);
		p->subject = sdb_col_str(q.s, 2);
		p->version = (unsigned)sdb_col_int(q.s, 3);
		p->author_name = sdb_col_str(q.s, 4);
		p->author_email = sdb_col_str(q.s, 5);
		p->date = sdb_col_int(q.s, 6);
		p->kind = k;
		p->recorded = sdb_col_int(q.s, 8);
		p->latest = sdb_col_int(q.s, 9) != 0;
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

/* Loads the reports (only the one with id `only`, unless it is 0) of
 * kind report and what track knows of them; the trees into *trees unless
 * it is NULL.  In the caller's read transaction. */
static int tracked_load(struct state *st, int64_t only, int activity, size_t from,
			struct state_tracked_list *out, struct state_names *trees, struct buf *err)
{
	struct trees_seen seen = { 0 };
	size_t i;
	struct stmt q;
	int row;

	if (sdb_stmt_prepare(st, &q, tracked_sql[activity ? 1 : 0][only != 0], err) < 0)
		return -1;
	sdb_bind_int(&q, only);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		struct state_tracked *t;
		int status, verdict;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		t = &out->v[out->nr];
		memset(t, 0, sizeof(*t));
		t->id = sdb_col_int(q.s, 0);
		t->message_id = sdb_col_str(q.s, 1);
		t->subject = sdb_col_str(q.s, 2);
		t->tree = sdb_col_str(q.s, 3);
		t->head = sdb_col_str(q.s, 4);
		status = sdb_name_index(sdb_status_names, N(sdb_status_names), (const char *)sqlite3_column_text(q.s, 5));
		verdict = sdb_name_index(sdb_verdict_names, N(sdb_verdict_names), (const char *)sqlite3_column_text(q.s, 6));
		t->created = sdb_col_int(q.s, 7);
		t->sent = sdb_col_int(q.s, 8);
		t->replies = (size_t)sdb_col_int(q.s, 9);
		t->last_activity = sdb_col_int(q.s, 10);
		out->nr++;
		if (status < 0 || verdict < 0) {
			row = err_set(err, "%s: report %lld has an unknown status or state", st->path,
				      (long long)t->id);
			break;
		}
		t->status = (enum state_status)status;
		t->verdict = (enum state_verdict)verdict;
	}
	sdb_stmt_finish(&q);
	if (row < 0)
		return -1;

	if (sdb_stmt_prepare(st, &q, followups_sql[only != 0], err) < 0)
		return -1;
	sdb_bind_int(&q, only);
	for (i = from; trees && i < out->nr; i++)
		trees_seen_add(&seen, out->v[i].id, out->v[i].tree);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		struct state_tracked *t = tracked_find(out, from, sdb_col_int(q.s, 0));

		if (trees)
			trees_seen_add(&seen, sdb_col_int(q.s, 3), (const char *)sqlite3_column_text(q.s, 2));
		if (!t)
			continue;
		t->followup_ids = xrealloc(t->followup_ids, (t->nr_followup_ids + 1) * sizeof(char *));
		t->followup_ids[t->nr_followup_ids++] = sdb_col_str(q.s, 1);
	}
	sdb_stmt_finish(&q);
	if (trees)
		trees_collect(&seen, trees);
	if (row < 0)
		return -1;

	if (fixes_load(st, fixes_sql[activity ? 1 : 0][only != 0], only, from, out, err) < 0 ||
	    (activity && possible_load(st, possible_sql[only != 0], only, from, out, err) < 0) ||
	    (activity && sdb_posted_load(st, only, from, out, err) < 0))
		return -1;
	return 0;
}

int state_tracked_list(struct state *st, int activity, struct state_tracked_list *out,
		       struct buf *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	if (sdb_tx_begin(st, 0, err) < 0)
		return -1;
	ret = tracked_load(st, 0, activity, 0, out, &out->trees, err);
	return sdb_tx_end(st, ret, err);
}

int state_tracked_list_of(struct state *st, int64_t id, struct state_tracked_list *out,
			  struct buf *err)
{
	return tracked_load(st, id, 1, out->nr, out, NULL, err);
}

int state_tracked_fixes(struct state *st, struct state_tracked *t, struct buf *err)
{
	struct state_tracked_list one = { t, 1, 1, { 0 } };
	size_t i;
	int ret;

	state_fix_release(&t->fix);
	t->has_fix = 0;
	for (i = 0; i < t->nr_possible; i++)
		possible_release(&t->possible[i]);
	free(t->possible);
	t->possible = NULL;
	t->nr_possible = 0;
	if (sdb_tx_begin(st, 0, err) < 0)
		return -1;
	ret = fixes_load(st, fixes_sql[1][1], t->id, 0, &one, err) < 0 ||
	      possible_load(st, possible_sql[1], t->id, 0, &one, err) < 0 ? -1 : 0;
	return sdb_tx_end(st, ret, err);
}

int state_tracked_get(struct state *st, int64_t id, struct state_tracked *out, struct buf *err)
{
	struct state_tracked_list list = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	if (id <= 0)
		return 0;
	if (sdb_tx_begin(st, 0, err) < 0)
		return -1;
	ret = tracked_load(st, id, 1, 0, &list, NULL, err);
	ret = sdb_tx_end(st, ret, err);
	if (ret == 0 && list.nr == 1) {
		*out = list.v[0];
		list.nr = 0;
		ret = 1;
	}
	state_tracked_list_release(&list);
	return ret;
}

int state_report_trees(struct state *st, struct state_names *out, struct buf *err)
{
	struct stmt q;
	int row;

	if (sdb_stmt_prepare(st, &q, "SELECT tree FROM reports WHERE tree IS NOT NULL "
			 "AND kind IN ('report', 'followup') GROUP BY tree ORDER BY MIN(id)", err) < 0)
		return -1;
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr++] = sdb_col_str(q.s, 0);
	}
	sdb_stmt_finish(&q);
	return row < 0 ? -1 : 0;
}

static int check_fix_text(const char *commit, const char *subject, const char *ref, struct buf *err)
{
	if (sdb_check_text("the fix commit", commit, 1, err) < 0 ||
	    sdb_check_text("the fix subject", subject, 0, err) < 0 ||
	    sdb_check_text("the fix ref", ref, 0, err) < 0)
		return -1;
	return 0;
}

void state_defer_checkpoint(struct state *st)
{
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
}

/* 1 when sql (one integer parameter) yields a row, 0 if not, -1 on error. */
static int row_exists_id(struct state *st, const char *sql, int64_t id, struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_stmt_prepare(st, &q, sql, err) < 0)
		return -1;
	sdb_bind_int(&q, id);
	r = sdb_stmt_step(&q, err);
	sdb_stmt_finish(&q);
	return r;
}

int state_fix_set(struct state *st, const struct state_fix *f, struct buf *err)
{
	struct stmt q;
	int ret = -1, found;

	if (check_fix_text(f->commit, f->subject, f->ref, err) < 0 ||
	    sdb_check_text("the refs the fix landed on", f->landed, 0, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)f->report_id);
	if (f->kind == FIX_POSSIBLE || !fix_kind_closes(f->kind) || f->kind > FIX_FIXED_BY)
		return err_set(err, "%s: report %lld: a fix cannot be of kind %s", st->path,
			       (long long)f->report_id, fix_kind_name(f->kind));
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	found = row_exists_id(st, "SELECT 1 FROM reports WHERE id = ? AND kind = 'report'",
			      f->report_id, err);
	if (found == 0)
		err_set(err, "%s: there is no report %lld", st->path, (long long)f->report_id);
	if (found == 1 && sdb_stmt_prepare(st, &q, "INSERT INTO fixes (report_id, commit_id, subject, ref, date, "
				"evidence, recorded, in_repo, landed, reopened) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (report_id) DO UPDATE SET "
				"commit_id = excluded.commit_id, subject = excluded.subject, ref = excluded.ref, "
				"date = excluded.date, evidence = excluded.evidence, recorded = excluded.recorded, "
				"in_repo = excluded.in_repo, landed = excluded.landed, "
				"reopened = excluded.reopened", err) == 0) {
		sdb_bind_int(&q, f->report_id);
		sdb_bind_text(&q, f->commit);
		sdb_bind_text(&q, f->subject ? f->subject : "");
		sdb_bind_text(&q, f->ref ? f->ref : "");
		sdb_bind_opt(&q, f->date);
		sdb_bind_text(&q, fix_kind_name(f->kind));
		sdb_bind_int(&q, f->recorded);
		sdb_bind_int(&q, f->in_repo ? 1 : 0);
		sdb_bind_text(&q, f->landed ? f->landed : "");
		sdb_bind_int(&q, f->reopened ? 1 : 0);
		ret = sdb_stmt_run(&q, err);
	}
	if (ret == 0)
		ret = sdb_fix_link_posted(st, f->report_id, err);
	return sdb_tx_end(st, ret, err);
}

int state_fix_reopen(struct state *st, int64_t report_id, struct buf *err)
{
	return sdb_write_ints(st, "UPDATE fixes SET reopened = 1 WHERE report_id = ?", 1, &report_id, err);
}

int state_possible_fix_set(struct state *st, int64_t report_id, const struct state_possible_fix *p,
			   struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (check_fix_text(p->commit, p->subject, p->ref, err) < 0)
		return err_prefix(err, "%s: report %lld: possible fix: ", st->path, (long long)report_id);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "INSERT INTO possible_fixes (report_id, commit_id, subject, ref, date, "
			 "recorded) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (report_id, commit_id) DO UPDATE "
			 "SET subject = excluded.subject, ref = excluded.ref, date = excluded.date", err) == 0) {
		sdb_bind_int(&q, report_id);
		sdb_bind_text(&q, p->commit);
		sdb_bind_text(&q, p->subject ? p->subject : "");
		sdb_bind_text(&q, p->ref ? p->ref : "");
		sdb_bind_opt(&q, p->date);
		sdb_bind_int(&q, p->recorded);
		ret = sdb_stmt_run(&q, err);
	}
	return sdb_tx_end(st, ret, err);
}

static int is_full_hex(const char *s)
{
	size_t i;

	for (i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[40] == '\0';
}

int state_track_cursor_get(struct state *st, const char *ref, char tip[41], struct buf *err)
{
	struct stmt q;
	int r;

	tip[0] = '\0';
	if (sdb_check_text("the ref", ref, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT tip FROM track_cursors WHERE ref = ?", err) < 0)
		return -1;
	sdb_bind_text(&q, ref);
	r = sdb_stmt_step(&q, err);
	if (r == 1) {
		const char *t = (const char *)sqlite3_column_text(q.s, 0);

		if (t && is_full_hex(t))
			memcpy(tip, t, 41);
		else
			r = err_set(err, "%s: the cursor of %s is not a commit id", st->path, ref);
	}
	sdb_stmt_finish(&q);
	return r;
}

int state_track_cursor_set(struct state *st, const char *ref, const char *tip, int64_t now,
			   struct buf *err)
{
	struct stmt q;
	int ret = -1;

	if (sdb_check_text("the ref", ref, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (!tip || !is_full_hex(tip))
		return err_set(err, "%s: %s: the cursor must be 40 lowercase hex digits", st->path, ref);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "INSERT INTO track_cursors (ref, tip, walked) VALUES (?, ?, ?) "
			 "ON CONFLICT (ref) DO UPDATE SET tip = excluded.tip, walked = excluded.walked",
			 err) == 0) {
		sdb_bind_text(&q, ref);
		sdb_bind_text(&q, tip);
		sdb_bind_int(&q, now);
		ret = sdb_stmt_run(&q, err);
	}
	return sdb_tx_end(st, ret, err);
}

int state_notice_find(struct state *st, int64_t report_id, const char *commit, int64_t *notice_id,
		      struct buf *err)
{
	struct stmt q;
	int r;

	if (sdb_check_text("the fix commit", commit, 1, err) < 0)
		return err_prefix(err, "%s: ", st->path);
	if (sdb_stmt_prepare(st, &q, "SELECT notice_id FROM notices WHERE report_id = ? AND commit_id = ?",
			 err) < 0)
		return -1;
	sdb_bind_int(&q, report_id);
	sdb_bind_text(&q, commit);
	r = sdb_stmt_step(&q, err);
	if (r == 1 && notice_id)
		*notice_id = sdb_col_int(q.s, 0);
	sdb_stmt_finish(&q);
	return r;
}

int state_notice_add(struct state *st, int64_t report_id, const char *commit,
		     const struct state_report *mail, int64_t *id, struct buf *err)
{
	struct stmt q;
	int64_t new_id = 0;
	int ret;

	if (sdb_check_report(mail, err) < 0 || sdb_check_text("the fix commit", commit, 1, err) < 0)
		return err_prefix(err, "%s: cannot add a notice: ", st->path);
	if (mail->kind != STATE_KIND_NOTICE || mail->parent_id != report_id)
		return err_set(err, "%s: a notice is of kind notice and answers its report", st->path);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	ret = state_notice_find(st, report_id, commit, NULL, err);
	if (ret > 0) {
		err_set(err, "%s: report %lld already has a notice of %s", st->path, (long long)report_id,
			commit);
		ret = STATE_EXISTS;
	}
	if (ret == 0)
		ret = sdb_report_insert(st, mail, &new_id, err);
	if (ret == 0 && (ret = sdb_stmt_prepare(st, &q, "INSERT INTO notices (report_id, commit_id, notice_id) "
					    "VALUES (?, ?, ?)", err)) == 0) {
		sdb_bind_int(&q, report_id);
		sdb_bind_text(&q, commit);
		sdb_bind_int(&q, new_id);
		ret = sdb_stmt_run(&q, err);
	}
	ret = sdb_tx_end(st, ret, err);
	if (ret == 0 && id)
		*id = new_id;
	return ret;
}

int state_digest_last(struct state *st, struct state_report *out, struct buf *err)
{
	struct stmt q;

	memset(out, 0, sizeof(*out));
	if (sdb_stmt_prepare(st, &q, "SELECT " REPORT_COLUMNS ", m.mail FROM reports r "
			 "JOIN report_mails m ON m.report_id = r.id WHERE r.kind = 'digest' "
			 "ORDER BY r.id DESC LIMIT 1", err) < 0)
		return -1;
	return sdb_report_select_one(st, &q, out, err);
}

int state_digest_entries(struct state *st, int64_t digest_id, struct state_digest_entry **out,
			 size_t *nr, struct buf *err)
{
	struct state_digest_entry *v = NULL;
	size_t n = 0, alloc = 0;
	struct stmt q;
	int row;

	*out = NULL;
	*nr = 0;
	if (sdb_stmt_prepare(st, &q, "SELECT report_id, state, fix_commit FROM digest_entries "
			 "WHERE digest_id = ? ORDER BY report_id", err) < 0)
		return -1;
	sdb_bind_int(&q, digest_id);
	while ((row = sdb_stmt_step(&q, err)) == 1) {
		int verdict = sdb_name_index(sdb_verdict_names, N(sdb_verdict_names),
					 (const char *)sqlite3_column_text(q.s, 1));

		if (verdict < 0) {
			row = err_set(err, "%s: digest %lld: unknown report state", st->path,
				      (long long)digest_id);
			break;
		}
		ALLOC_GROW(v, n + 1, alloc);
		v[n].report_id = sdb_col_int(q.s, 0);
		v[n].verdict = (enum state_verdict)verdict;
		v[n].fix_commit = sdb_col_str(q.s, 2);
		n++;
	}
	sdb_stmt_finish(&q);
	if (row < 0) {
		state_digest_entries_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

int state_digest_add(struct state *st, const struct state_report *mail,
		     const struct state_digest_entry *v, size_t nr, int64_t *id, struct buf *err)
{
	struct stmt q;
	int64_t new_id = 0;
	size_t i;
	int ret;

	if (sdb_check_report(mail, err) < 0)
		return err_prefix(err, "%s: cannot add a digest: ", st->path);
	if (mail->kind != STATE_KIND_DIGEST)
		return err_set(err, "%s: a digest is of kind digest", st->path);
	for (i = 0; i < nr; i++)
		if ((size_t)v[i].verdict >= N(sdb_verdict_names) ||
		    sdb_check_text("a fix commit", v[i].fix_commit, 0, err) < 0)
			return err_set(err, "%s: cannot add a digest: a bad entry for report %lld", st->path,
				       (long long)v[i].report_id);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	ret = sdb_report_insert(st, mail, &new_id, err);
	for (i = 0; i < nr && ret == 0; i++) {
		if ((ret = sdb_stmt_prepare(st, &q, "INSERT INTO digest_entries (digest_id, report_id, state, "
					"fix_commit) VALUES (?, ?, ?, ?)", err)) < 0)
			break;
		sdb_bind_int(&q, new_id);
		sdb_bind_int(&q, v[i].report_id);
		sdb_bind_text(&q, state_verdict_name(v[i].verdict));
		sdb_bind_text(&q, v[i].fix_commit);
		ret = sdb_stmt_run(&q, err);
	}
	ret = sdb_tx_end(st, ret, err);
	if (ret == 0 && id)
		*id = new_id;
	return ret;
}

