/*
 * state-posted.c: the fixes posted to the lists before they land (state.h,
 * perfbot-ingest(1) Posted fixes): recorded once per report and
 * Message-ID, and linked to the report's fix when the landed commit's
 * subject is the posted patch's.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "state-db.h"
#include "xalloc.h"
#include "banned.h"

void state_posted_fix_release(struct state_posted_fix *p)
{
	free(p->message_id);
	free(p->subject);
	free(p->author_name);
	free(p->author_email);
	memset(p, 0, sizeof(*p));
}

int sdb_fix_link_posted(struct state *st, int64_t report_id, struct buf *err)
{
	/* the latest version of the patch whose subject the commit has: a
	 * series posted again keeps its subjects, and git am commits them */
	struct stmt q;

	if (sdb_stmt_prepare(st, &q, "UPDATE fixes SET posted = (SELECT p.message_id FROM posted_fixes p "
			     "WHERE p.report_id = fixes.report_id AND p.subject = fixes.subject "
			     "AND fixes.subject <> '' "
			     "ORDER BY p.version DESC, p.date DESC, p.message_id DESC LIMIT 1) "
			     "WHERE report_id = ?", err) < 0)
		return -1;
	sdb_bind_int(&q, report_id);
	return sdb_stmt_run(&q, err);
}

int state_posted_fix_add(struct state *st, const struct state_posted_fix *p, struct buf *err)
{
	struct stmt q;
	int ret = -1, found;

	if (sdb_check_text("the posted fix's Message-ID", p->message_id, 1, err) < 0 ||
	    sdb_check_text("the posted fix's subject", p->subject, 0, err) < 0 ||
	    sdb_check_text("the posted fix's author", p->author_name, 0, err) < 0 ||
	    sdb_check_text("the posted fix's address", p->author_email, 0, err) < 0)
		return err_prefix(err, "%s: report %lld: ", st->path, (long long)p->report_id);
	if (p->kind != FIX_CLOSES && p->kind != FIX_LINK && p->kind != FIX_FIXES)
		return err_set(err, "%s: report %lld: a posted fix cannot be of kind %s", st->path,
			       (long long)p->report_id, fix_kind_name(p->kind));
	if (p->version < 1)
		return err_set(err, "%s: report %lld: a posted fix's version starts at 1", st->path,
			       (long long)p->report_id);
	if (sdb_tx_begin(st, 1, err) < 0)
		return -1;
	if (sdb_stmt_prepare(st, &q, "SELECT 1 FROM posted_fixes WHERE report_id = ? AND message_id = ?",
			     err) < 0)
		return sdb_tx_end(st, -1, err);
	sdb_bind_int(&q, p->report_id);
	sdb_bind_text(&q, p->message_id);
	found = sdb_stmt_step(&q, err);
	sdb_stmt_finish(&q);
	if (found) {
		if (found > 0)
			err_set(err, "%s: <%s> is a posted fix of report %lld already", st->path,
				p->message_id, (long long)p->report_id);
		sdb_tx_end(st, -1, err);
		return found < 0 ? -1 : STATE_EXISTS;
	}
	found = 0;
	if (sdb_stmt_prepare(st, &q, "SELECT 1 FROM reports WHERE id = ? AND kind = 'report'", err) == 0) {
		sdb_bind_int(&q, p->report_id);
		found = sdb_stmt_step(&q, err);
		sdb_stmt_finish(&q);
		if (found == 0)
			err_set(err, "%s: there is no report %lld", st->path, (long long)p->report_id);
	}
	if (found == 1 && sdb_stmt_prepare(st, &q, "INSERT INTO posted_fixes (report_id, message_id, subject, "
					   "version, author_name, author_email, date, evidence, recorded) "
					   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", err) == 0) {
		sdb_bind_int(&q, p->report_id);
		sdb_bind_text(&q, p->message_id);
		sdb_bind_text(&q, p->subject ? p->subject : "");
		sdb_bind_int(&q, (int64_t)p->version);
		sdb_bind_text(&q, p->author_name ? p->author_name : "");
		sdb_bind_text(&q, p->author_email ? p->author_email : "");
		sdb_bind_int(&q, p->date);
		sdb_bind_text(&q, fix_kind_name(p->kind));
		sdb_bind_int(&q, p->recorded);
		ret = sdb_stmt_run(&q, err);
	}
	if (ret == 0)
		ret = sdb_fix_link_posted(st, p->report_id, err);
	return sdb_tx_end(st, ret, err);
}
