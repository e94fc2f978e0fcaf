#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "address.h"
#include "archive.h"
#include "ingest.h"
#include "mail.h"
#include "reply.h"
#include "repo.h"
#include "track.h"
#include "xalloc.h"
#include "banned.h"

/* The known message this one hangs under: In-Reply-To first, then the
 * References from the nearest (last) back.  1 with *parent filled, 0 when
 * none is known, -1 on error. */
static int find_parent(struct ingest *in, const struct mail *m, struct state_message *parent,
		       struct buf *err)
{
	size_t i;
	int r;

	for (i = 0; i < m->nr_in_reply_to; i++)
		if ((r = state_message_find(in->st, m->in_reply_to[i], parent, err)) != 0)
			return r;
	for (i = m->nr_references; i > 0; i--)
		if ((r = state_message_find(in->st, m->references[i - 1], parent, err)) != 0)
			return r;
	return 0;
}

static char *join_ids(char **ids, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i ? " " : "", ids[i]);
	return n ? buf_detach(&b, NULL) : NULL;
}

/* #perfbot command -> the report's verdict */
static int command_verdict(const char *name, enum state_verdict *v)
{
	if (!strcmp(name, "invalid"))
		*v = STATE_VERDICT_INVALID;
	else if (!strcmp(name, "fixed-by"))
		*v = STATE_VERDICT_FIXED;
	else if (!strcmp(name, "dup-of"))
		*v = STATE_VERDICT_DUPLICATE;
	else if (!strcmp(name, "reopen"))
		*v = STATE_VERDICT_OPEN;
	else
		return -1;
	return 0;
}

/*
 * What a state command does to the report's fix (issue 15): fixed-by
 * resolves its commit in the repository and records it (opened for the
 * command: they are rare, and most ingest runs need no repository),
 * reopen sets the fix aside.  *what says what was found.  0; 1 when the
 * thread is not a report's (a digest's); -1 on state errors.
 */
static int fix_command(struct ingest *in, int64_t report_id, const char *name, const char *args,
		       struct buf *what, struct buf *err)
{
	struct state_tracked t;
	struct repo *repo = NULL;
	struct buf why = BUF_INIT;
	int e;

	e = state_tracked_get(in->st, report_id, &t, err);
	if (e <= 0)
		return e < 0 ? -1 : 1;
	state_tracked_release(&t);
	if (!strcmp(name, "reopen"))
		return state_fix_reopen(in->st, report_id, err);
	if (strcmp(name, "fixed-by"))
		return 0;
	if (repo_open(in->cfg->repo, &repo, &why) < 0)
		event_log_say(&in->log, "cannot resolve #perfbot fixed-by %s: %s", args, why.data);
	e = track_fixed_by(in->cfg, in->st, repo, report_id, args, in->now, what, err);
	repo_free(repo);
	buf_release(&why);
	return e;
}

/* Commands and trailers of a reply in a report's thread. */
static int act(struct ingest *in, const struct mail *m, const char *mid, int64_t report_id,
	       struct buf *err)
{
	struct reply_options ro;
	struct reply *r;
	struct buf author = BUF_INIT, what = BUF_INIT;
	size_t i;
	int ret = 0;

	memset(&ro, 0, sizeof(ro));
	ro.flowed = m->has_text_part && m->text_part.flowed;
	ro.delsp = m->has_text_part && m->text_part.delsp;
	ro.sender = m->from ? m->from->email : NULL;
	r = reply_analyse(m->text, m->text_len, &ro);
	if (m->from)
		address_format(&author, m->from);
	for (i = 0; i < r->nr_commands && ret == 0; i++) {
		enum state_verdict v;

		ret = state_command_add(in->st, report_id, mid, r->commands[i].name, r->commands[i].args,
					author.data, m->has_date ? m->date : in->now, err);
		if (ret == 0 && command_verdict(r->commands[i].name, &v) == 0) {
			buf_reset(&what);
			ret = fix_command(in, report_id, r->commands[i].name, r->commands[i].args, &what, err);
			if (ret == 1) {
				/* a digest's thread: recorded, nothing to change */
				event_log_say(&in->log, "#perfbot %s by %s is in the thread of digest %lld, not of a report: "
				    "it changes nothing", r->commands[i].name, author.data, (long long)report_id);
				ret = 0;
				continue;
			}
			if (ret == 0)
				ret = state_report_set_verdict(in->st, report_id, v, err);
			in->commands++;
			event_log_say(&in->log, "report %lld is now %s: #perfbot %s%s%s by %s%s%s%s", (long long)report_id,
			    state_verdict_name(v), r->commands[i].name, *r->commands[i].args ? " " : "",
			    r->commands[i].args, author.data, what.len ? " (" : "", what.data, what.len ? ")" : "");
		}
	}
	for (i = 0; i < r->nr_trailers && ret == 0; i++)
		ret = state_trailer_add(in->st, mid, r->trailers[i].key, r->trailers[i].value, err);
	reply_free(r);
	buf_release(&author);
	buf_release(&what);
	return ret;
}

static int is_own(const struct ingest *in, const struct mail *m)
{
	struct address from;
	int own = 0;

	if (!m->from || address_parse(in->cfg->from, &from, NULL) < 0)
		return 0;
	own = !strcasecmp(from.email, m->from->email);
	address_release(&from);
	return own;
}

/* Files a known message again when a killed run left it out of the
 * archive. */
static int refile(struct ingest *in, const struct state_message *known, const char *raw,
		  size_t len, struct buf *err)
{
	if (known->blob_oid || store_pending(in->store, known->message_id) ||
	    archive_check(raw, len, NULL) < 0)
		return 0;	/* filed, about to be, or never to be */
	return store_add(in->store, known->message_id, raw, len, err);
}

int ingest_message(struct ingest *in, const char *raw, size_t len, const char *where,
		   struct buf *err)
{
	struct mail *m = NULL;
	struct state_message row, parent, known;
	struct buf why = BUF_INIT, mid = BUF_INIT;
	int has_parent = 0, is_new = 0, found, ret = 0, act_on, refused = 0;
	int64_t report_id = 0;

	memset(&parent, 0, sizeof(parent));
	memset(&known, 0, sizeof(known));
	if (mail_parse(raw, len, &m, &why) < 0) {
		in->ignored++;
		event_log_say(&in->log, "%s: not a mail (%s): skipped", where, why.data);
		buf_release(&why);
		return 0;
	}
	{
		char *known_id = mail_known_id(raw, len);

		buf_adds(&mid, known_id);
		free(known_id);
	}
	found = state_message_find(in->st, mid.data, &known, err);
	if (found < 0) {
		ret = -1;
		goto done;
	}
	if (found) {
		in->duplicates++;
		if (in->verbose)
			event_log_say(&in->log, "%s: <%s> is known already", where, mid.data);
		ret = refile(in, &known, raw, len, err);
		goto done;
	}
	has_parent = find_parent(in, m, &parent, err);
	if (has_parent < 0) {
		ret = -1;
		goto done;
	}
	report_id = has_parent ? parent.report_id : 0;
	if (!report_id && !in->all) {
		in->unrelated++;
		if (in->verbose)
			event_log_say(&in->log, "%s: <%s> answers no report: skipped", where, mid.data);
		goto done;
	}

	/* a mail the archive can never take is recorded under quarantine and
	 * let go, so it never blocks the mail after it */
	buf_reset(&why);
	if (archive_check(raw, len, &why) < 0) {
		free(m->quarantine);
		m->quarantine = xstrdup(why.data);
		refused = 1;
	}

	memset(&row, 0, sizeof(row));
	row.message_id = mid.data;
	row.report_id = report_id;
	row.parent_message_id = has_parent ? parent.message_id : NULL;
	row.in_reply_to = join_ids(m->in_reply_to, m->nr_in_reply_to);
	row.refs = join_ids(m->references, m->nr_references);
	row.from_name = m->from ? m->from->name : (char *)"";
	row.from_email = m->from ? m->from->email : (char *)"";
	row.date = m->has_date ? m->date : 0;
	row.subject = m->subject ? m->subject : (char *)"";
	row.ingested = 1;
	row.quarantined = m->quarantine != NULL;
	row.quarantine_reason = m->quarantine;
	act_on = report_id && !m->auto_submitted && !is_own(in, m);
	if (state_begin(in->st, err) < 0) {
		ret = -1;
	} else if (state_message_add(in->st, &row, &is_new, err) < 0 ||
		   (act_on && act(in, m, mid.data, report_id, err) < 0)) {
		state_rollback(in->st);
		ret = -1;
	} else {
		ret = state_commit(in->st, err);
	}
	if (ret == 0 && !refused)
		ret = store_add(in->store, mid.data, raw, len, err);
	if (ret == 0) {
		in->kept++;
		if (m->quarantine)
			in->quarantined++;
		if (!act_on && report_id)
			in->ignored++;
		if (m->quarantine)
			event_log_say(&in->log, "%s: <%s> kept under quarantine: %s", where, mid.data, m->quarantine);
		else if (report_id)
			event_log_say(&in->log, "%s: <%s> kept in the thread of report %lld", where, mid.data,
			    (long long)report_id);
		else if (in->verbose)
			event_log_say(&in->log, "%s: <%s> kept", where, mid.data);
	}
	free(row.in_reply_to);
	free(row.refs);
done:
	if (has_parent > 0)
		state_message_release(&parent);
	if (found > 0)
		state_message_release(&known);
	mail_free(m);
	buf_release(&why);
	buf_release(&mid);
	return ret;
}

int ingest_flush(struct ingest *in, struct buf *err)
{
	return store_commit(in->store, err);
}
