#include <fnmatch.h>
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
 * What a state command does to the report's fix (perfbot-track(1)): fixed-by
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

/* "Name <email>" as people read it: decoded UTF-8, never RFC 2047 (the
 * state and the event lines are for people and scripts, not headers). */
static void person_text(struct buf *out, const struct address *a)
{
	if (*a->name)
		buf_addf(out, "%s <%s>", a->name, a->email);
	else
		buf_adds(out, a->email);
}

static int trusted_by_config(const struct config *cfg, const char *email)
{
	size_t i;

	for (i = 0; i < cfg->commands_trusted.nr; i++)
		if (!fnmatch(cfg->commands_trusted.v[i], email, FNM_CASEFOLD))
			return 1;
	return 0;
}

/* What became of one command: applied, or why not. */
struct outcome {
	int applied;
	struct buf why;
	struct buf detail;	/* what an applied command found (a fixed-by's commit) */
};

static int steer(struct ingest *in, const struct mail *m, int64_t report_id,
		 const struct reply_command *c, struct outcome *o, struct buf *err)
{
	struct buf what = BUF_INIT;
	enum state_verdict v;
	int r;

	command_verdict(c->name, &v);
	r = m->from ? (trusted_by_config(in->cfg, m->from->email) ? 1 :
		       state_report_may_steer(in->st, report_id, m->from->email, err)) : 0;
	if (r < 0)
		return -1;
	if (!r) {
		o->applied = 0;
		buf_addf(&o->why, "from %s, who is not among the report's recipients, its MAINTAINERS "
			 "people or commands.trusted", m->from ? m->from->email : "a mail without From");
		return 0;
	}
	if (!strcmp(c->name, "dup-of")) {
		struct state_message target;

		r = state_message_find(in->st, c->args, &target, err);
		if (r < 0)
			return -1;
		if (!r || !target.report_id) {
			o->applied = 0;
			buf_addf(&o->why, "dup-of <%s> names no report or reply perfbot knows", c->args);
		} else if (target.report_id == report_id) {
			o->applied = 0;
			buf_addf(&o->why, "dup-of <%s> names a mail of this report's own thread", c->args);
		}
		if (r)
			state_message_release(&target);
		if (!o->applied)
			return 0;
	}
	r = fix_command(in, report_id, c->name, c->args, &what, err);
	if (r == 1) {
		o->applied = 0;
		buf_addf(&o->why, "it is in the thread of digest %lld, not of a report: it changes nothing",
			 (long long)report_id);
		buf_release(&what);
		return 0;
	}
	if (r < 0 || state_report_set_verdict(in->st, report_id, v, err) < 0) {
		buf_release(&what);
		return -1;
	}
	buf_addf(&o->why, "report %lld is now %s", (long long)report_id, state_verdict_name(v));
	buf_add(&o->detail, what.data, what.len);
	buf_release(&what);
	return 0;
}

/* #perfbot unsubscribe / subscribe: open to every sender, for the
 * sender's own address only. */
static int subscription(struct ingest *in, const struct mail *m, const char *mid,
			const struct reply_command *c, struct outcome *o, struct buf *err)
{
	const char *self = m->from ? m->from->email : NULL;
	int r;

	if (!self) {
		o->applied = 0;
		buf_adds(&o->why, "the mail has no From address to change");
		return 0;
	}
	if (strchr(c->args, '@') && strcasecmp(c->args, self)) {
		o->applied = 0;
		buf_addf(&o->why, "only the sender's own address can change (%s asked about %s)", self,
			 c->args);
		return 0;
	}
	if (!strcmp(c->name, "unsubscribe")) {
		struct state_exclusion x;
		struct buf who = BUF_INIT;

		person_text(&who, m->from);
		x.address = (char *)self;
		x.who = who.data;
		x.date = m->has_date ? m->date : in->now;
		x.message_id = (char *)mid;
		r = state_exclusion_add(in->st, &x, err);
		buf_release(&who);
		if (r < 0)
			return -1;
		buf_addf(&o->why, "%s is mailed no more reports", self);
		return 0;
	}
	r = state_exclusion_remove(in->st, self, err);
	if (r < 0)
		return -1;
	if (r)
		buf_addf(&o->why, "%s is mailed reports again", self);
	else {
		o->applied = 0;
		buf_addf(&o->why, "%s was not unsubscribed", self);
	}
	return 0;
}

/* One command: what it does, recorded with its outcome. */
static int act_on_command(struct ingest *in, const struct mail *m, const char *mid,
			  int64_t report_id, const struct reply_command *c, const char *author,
			  struct buf *err)
{
	struct outcome o;
	enum state_verdict v;
	int ret = 0, known = command_verdict(c->name, &v) == 0;

	o.applied = 1;
	buf_init(&o.why);
	buf_init(&o.detail);
	if (!c->understood) {
		o.applied = 0;
		if (known)
			buf_addf(&o.why, "#perfbot %s needs an argument", c->name);
		else
			buf_adds(&o.why, "not understood: perfbot knows invalid, fixed-by, dup-of, reopen, "
				 "subscribe and unsubscribe");
	} else if (known) {
		ret = steer(in, m, report_id, c, &o, err);
	} else {
		ret = subscription(in, m, mid, c, &o, err);
	}
	if (ret == 0)
		ret = state_command_record(in->st, report_id, mid, c->name, c->args, author,
					   m->has_date ? m->date : in->now, o.applied,
					   o.applied ? NULL : o.why.data, err);
	if (ret == 0) {
		if (o.applied)
			in->commands++;
		else if (!c->understood)
			in->not_understood++;
		else
			in->not_applied++;
		if (o.applied && known)
			event_log_say(&in->log, "%s: #perfbot %s%s%s by %s%s%s%s", o.why.data, c->name,
				      *c->args ? " " : "", c->args, author, o.detail.len ? " (" : "",
				      o.detail.data, o.detail.len ? ")" : "");
		else
			event_log_say(&in->log, "report %lld: #perfbot %s%s%s by %s%s: %s",
				      (long long)report_id, c->name, *c->args ? " " : "", c->args, author,
				      o.applied ? "" : c->understood ? " not applied" : " not understood",
				      o.why.data);
	}
	buf_release(&o.why);
	buf_release(&o.detail);
	return ret;
}

/* Commands and trailers of a reply in a report's thread. */
static int act(struct ingest *in, const struct mail *m, const char *mid, int64_t report_id,
	       struct buf *err)
{
	struct reply_options ro;
	struct reply *r;
	struct buf author = BUF_INIT;
	size_t i;
	int ret = 0;

	memset(&ro, 0, sizeof(ro));
	ro.flowed = m->has_text_part && m->text_part.flowed;
	ro.delsp = m->has_text_part && m->text_part.delsp;
	ro.sender = m->from ? m->from->email : NULL;
	r = reply_analyse(m->text, m->text_len, &ro);
	if (m->from)
		person_text(&author, m->from);
	else
		buf_adds(&author, "(no From)");
	for (i = 0; i < r->nr_commands && ret == 0; i++)
		ret = act_on_command(in, m, mid, report_id, &r->commands[i], author.data, err);
	for (i = 0; i < r->nr_trailers && ret == 0; i++)
		ret = state_trailer_add(in->st, mid, r->trailers[i].key, r->trailers[i].value, err);
	reply_free(r);
	buf_release(&author);
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
 * archive.  A copy of perfbot's own mail that is not recorded as sent
 * (a list sent it back first) is not: delivery files its own bytes. */
static int refile(struct ingest *in, const struct state_message *known, const char *raw,
		  size_t len, struct buf *err)
{
	if (known->blob_oid || known->unsent || store_pending(in->store, known->message_id) ||
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
