#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "address.h"
#include "archive.h"
#include "ingest.h"
#include "date.h"
#include "mail.h"
#include "patchmail.h"
#include "posted.h"
#include "render.h"
#include "reply.h"
#include "repo.h"
#include "request.h"
#include "testcommit.h"
#include "testreply.h"
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

/* ---- #perfbot test: a fix tested by the lab (perfbot-requests(1)) ---- */

/* What one request asks, read from its arguments and its mail. */
struct ask {
	struct state_request r;		/* strings borrowed, or owned by the buffers */
	struct buf message;		/* the commit message */
	struct buf url, branch;
	struct patchmail *patch;
	char commit[41];
};

static int is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return 0;
	return n > 0;
}

/* A git URL and a branch a pipeline may fetch: one word each, printable,
 * the branch a valid ref name part. */
static int git_source_valid(const char *url, const char *branch)
{
	struct buf ref = BUF_INIT;
	const char *p;
	int ok;

	for (p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 0;
	if (!strstr(url, "://") && strncmp(url, "git@", 4))
		return 0;
	buf_addf(&ref, "refs/heads/%s", branch);
	ok = config_ref_name_valid(ref.data);
	buf_release(&ref);
	return ok;
}

/* The commit message of a patch: its subject, its body as git am keeps
 * it (trailing white space and blank lines at both ends removed), and a
 * Link: to the request mail. */
static void test_message(const struct config *cfg, const struct patchmail *p, const char *mid,
			 struct buf *out)
{
	const char *s = p->message, *e;
	size_t blank = 0;
	int started = 0;

	buf_addf(out, "%s\n\n", *p->subject ? p->subject : "(no subject)");
	while (*s) {
		size_t n;

		e = strchr(s, '\n');
		n = e ? (size_t)(e - s) : strlen(s);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
		if (!n) {
			blank += started;
		} else {
			if (blank)
				buf_addc(out, '\n');
			blank = 0;
			started = 1;
			buf_add(out, s, n);
			buf_addc(out, '\n');
		}
		s = e ? e + 1 : s + strlen(s);
	}
	buf_addf(out, "%sLink: %s%s\n", started ? "\n" : "", cfg->closes_url, mid);
}

/*
 * Checks request a (who, whether taken at all, the limits, what it names)
 * and, for a patch, makes its commit.  0 with o->applied 1 when accepted
 * (a->r filled for the state), 0 with o->applied 0 and the reason when
 * refused, -1 on state errors.
 */
static int test_check(struct ingest *in, const struct mail *m, const char *raw, size_t len,
		      int64_t report_id, const struct reply_command *c, const struct state_job *job,
		      struct ask *a, struct outcome *o, struct buf *err)
{
	size_t n;
	int r;

	r = trusted_by_config(in->cfg, m->from->email) ? 1 :
	    state_report_may_steer(in->st, report_id, m->from->email, err);
	if (r < 0)
		return -1;
	if (!r) {
		buf_addf(&o->why, "from %s, who is not among the report's recipients, its MAINTAINERS "
			 "people or commands.trusted", m->from->email);
		return 0;
	}
	if (!in->cfg->test_enabled) {
		buf_adds(&o->why, "this lab does not take test requests (test.enabled is off)");
		return 0;
	}
	if (state_request_count_open(in->st, report_id, &n, err) < 0)
		return -1;
	if (n >= (size_t)in->cfg->test_max_open) {
		buf_addf(&o->why, "the report has %zu requests not yet answered, the most it may have "
			 "(test.maxOpen); ask again when one is answered", n);
		return 0;
	}
	if (state_request_count_since(in->st, m->from->email, a->r.requested - 86400, &n, err) < 0)
		return -1;
	if (n >= (size_t)in->cfg->test_max_per_day) {
		buf_addf(&o->why, "%s asked for %zu tests in 24 hours, the most one may (test.maxPerDay)",
			 m->from->email, n);
		return 0;
	}
	if (!job) {
		buf_addf(&o->why, "perfbot kept no job for report %lld (it was made before perfbot "
			 "kept them, or its base is not in perfbot.repo)", (long long)report_id);
		return 0;
	}
	if (!job->regression) {
		buf_adds(&o->why, "the report is not of a regression: fix tests are taken for "
			 "regression reports only");
		return 0;
	}
	if (!*c->args) {
		a->r.what = STATE_REQUEST_PATCH;
		a->patch = patchmail_read(raw, len);
		if (!a->patch) {
			buf_adds(&o->why, "no patch was found in the mail (inline after the text, after "
				 "a \"-- >8 --\" line, or attached, as git am reads it; quoted with "
				 "\"> \" does not count)");
			return 0;
		}
		a->r.subject = a->patch->subject;
		if (a->patch->nr_problems) {
			for (n = 0; n < a->patch->nr_problems; n++)
				buf_addf(&o->why, "%s%s", n ? "; " : "the patch cannot be tested: ",
					 a->patch->problems[n]);
			return 0;
		}
		return 1;	/* the commit is made once the number is known */
	}
	{
		const char *sp = strchr(c->args, ' ');

		if (!sp && is_hex(c->args, strlen(c->args)) && strlen(c->args) >= 7) {
			struct repo *repo = NULL;
			struct commit_info ci;
			struct buf why = BUF_INIT;

			a->r.what = STATE_REQUEST_COMMIT;
			if (repo_open(in->cfg->repo, &repo, &why) < 0 ||
			    repo_lookup(repo, c->args, &ci, &why) < 0) {
				buf_addf(&o->why, "%s is not a commit of the lab's repository (%s); push it "
					 "where the lab fetches, or name a git URL and branch", c->args,
					 why.data);
				repo_free(repo);
				buf_release(&why);
				return 0;
			}
			memcpy(a->commit, ci.id, sizeof(a->commit));
			a->r.commit_id = a->commit;
			commit_info_release(&ci);
			repo_free(repo);
			buf_release(&why);
			return 1;
		}
		a->r.what = STATE_REQUEST_GIT;
		if (sp) {
			buf_add(&a->url, c->args, (size_t)(sp - c->args));
			while (*sp == ' ')
				sp++;
			buf_adds(&a->branch, sp);
		}
		if (!sp || strchr(a->branch.data, ' ') || !git_source_valid(a->url.data, a->branch.data)) {
			buf_addf(&o->why, "\"%s\" is neither a commit nor a git URL and a branch "
				 "(#perfbot test: COMMIT, or #perfbot test: URL BRANCH)", c->args);
			return 0;
		}
		a->r.url = a->url.data;
		a->r.branch = a->branch.data;
		return 1;
	}
}

/* Makes the commit of an accepted patch request, numbered a->r.id.  0
 * (refused with the reason in o when it does not apply), -1 never: a
 * repository that cannot be opened or written refuses the request too. */
static int test_commit(struct ingest *in, const struct mail *m, const char *mid,
		       const struct state_job *job, struct ask *a, struct outcome *o)
{
	struct testcommit_input ti;
	struct address from;
	struct repo *repo = NULL;
	struct buf ref = BUF_INIT, why = BUF_INIT;
	int ret = 0;

	memset(&from, 0, sizeof(from));
	test_message(in->cfg, a->patch, mid, &a->message);
	buf_addf(&ref, "%s%lld", in->cfg->test_ref_prefix, (long long)a->r.id);
	memset(&ti, 0, sizeof(ti));
	ti.head = job->head;
	ti.diff = a->patch->diff;
	ti.diff_len = a->patch->diff_len;
	ti.author_name = a->patch->author_name;
	ti.author_email = *a->patch->author_email ? a->patch->author_email : m->from->email;
	ti.date = a->r.requested;
	ti.zone = m->has_date ? m->date_zone : 0;
	ti.message = a->message.data;
	ti.ref = ref.data;
	if (repo_open(in->cfg->repo, &repo, &why) < 0 ||
	    address_parse(in->cfg->from, &from, &why) < 0) {
		buf_addf(&o->why, "the lab cannot make the commit: %s", why.data);
		o->applied = 0;
		goto out;
	}
	ti.committer_name = *from.name ? from.name : from.email;
	ti.committer_email = from.email;
	if (testcommit_make(repo, &ti, a->commit, &why) < 0) {
		buf_addf(&o->why, "the patch does not apply: %s", why.data);
		o->applied = 0;
		goto out;
	}
	a->r.commit_id = a->commit;
	a->r.ref = buf_detach(&ref, NULL);
out:
	repo_free(repo);
	address_release(&from);
	buf_release(&ref);
	buf_release(&why);
	return ret;
}

/*
 * Queues perfbot's answer to request r (refused: why; accepted: with
 * test.acknowledge only) in the outbox, in the mail's transaction.  Its
 * Message-ID comes from the request mail's, so a mail is answered once:
 * an answer already queued is left as it is.  Never for perfbot's own or
 * auto-submitted mail: no command of theirs gets here.
 */
static int test_answer(struct ingest *in, const struct mail *m, const char *mid,
		       const struct state_request *r, const struct state_report *rep,
		       const char *why, struct buf *err)
{
	struct testreply_request req;
	struct testreply t;
	struct state_report row;
	struct template_set *set;
	struct buf terr = BUF_INIT;
	int e, ret = 0;

	if (r->state != STATE_REQUEST_REFUSED && !in->cfg->test_acknowledge)
		return 0;
	set = render_template_set(in->cfg);
	memset(&req, 0, sizeof(req));
	req.cfg = in->cfg;
	req.templates = set;
	req.mail = m;
	req.mail_id = mid;
	req.report = rep;
	req.request = r;
	req.refused = r->state == STATE_REQUEST_REFUSED;
	req.why = why;
	req.created = in->now;
	if (testreply_render(&req, &t, &terr) < 0) {
		/* the request stands recorded; the answer is said, not sent */
		event_log_say(&in->log, "report %lld: no answer to <%s>: %s", (long long)rep->id, mid,
			      terr.data);
	} else {
		testreply_row(&t, &req, &row);
		e = state_report_add(in->st, &row, NULL, err);
		if (e == STATE_EXISTS)
			buf_reset(err);
		else if (e < 0)
			ret = -1;
		else
			event_log_say(&in->log, "queued the answer <%s> to <%s> (%s)", t.message_id, mid,
				      req.refused ? "refused" : "accepted");
	}
	testreply_release(&t);
	template_set_free(set);
	buf_release(&terr);
	return ret;
}

/*
 * "#perfbot test": checks the request, makes its commit, records it in
 * the state (accepted or refused, with the reason) and, when accepted,
 * writes its job file, all in the mail's transaction: a run killed
 * before the commit leaves nothing (the number, the commit and the ref
 * come out the same next time, and the file is written again).
 */
static int test_request(struct ingest *in, const struct mail *m, const char *raw, size_t len,
			const char *mid, int64_t report_id, const struct reply_command *c,
			struct outcome *o, struct buf *err)
{
	struct state_job job;
	struct state_report rep;
	struct ask a;
	struct buf json = BUF_INIT, refs = BUF_INIT;
	size_t i;
	int has_job = 0, has_rep = 0, ret = 0, r;

	memset(&a, 0, sizeof(a));
	memset(&rep, 0, sizeof(rep));
	buf_init(&a.message);
	buf_init(&a.url);
	buf_init(&a.branch);
	o->applied = 0;
	if (!m->from) {
		buf_adds(&o->why, "the mail has no From address to answer");
		goto out;
	}
	a.r.report_id = report_id;
	a.r.message_id = (char *)mid;
	a.r.requester_name = m->from->name;
	a.r.requester_email = m->from->email;
	a.r.requested = m->has_date ? m->date : in->now;
	a.r.args = c->args;
	a.r.changed = in->now;
	/* what it asks, for the record even when it is refused */
	if (!*c->args)
		a.r.what = STATE_REQUEST_PATCH;
	else if (!strchr(c->args, ' ') && is_hex(c->args, strlen(c->args)))
		a.r.what = STATE_REQUEST_COMMIT;
	else
		a.r.what = STATE_REQUEST_GIT;
	if ((has_job = state_job_get(in->st, report_id, &job, err)) < 0 ||
	    state_request_next_id(in->st, &a.r.id, err) < 0) {
		ret = -1;
		goto out;
	}
	r = test_check(in, m, raw, len, report_id, c, has_job ? &job : NULL, &a, o, err);
	if (r < 0) {
		ret = -1;
		goto out;
	}
	if (r > 0)
		o->applied = 1;
	if (o->applied && a.r.what == STATE_REQUEST_PATCH)
		test_commit(in, m, mid, &job, &a, o);
	if (has_job) {
		a.r.base = job.base;
		a.r.head = job.head;
	}
	a.r.state = o->applied ? STATE_REQUEST_PENDING : STATE_REQUEST_REFUSED;
	a.r.why = o->applied ? NULL : o->why.data;
	r = state_request_add(in->st, &a.r, NULL, err);
	if (r == STATE_EXISTS) {
		o->applied = 0;
		buf_reset(&o->why);
		buf_adds(&o->why, "the mail asked for a test already: one request per mail");
		buf_reset(err);
		goto out;
	}
	if (r < 0) {
		ret = -1;
		goto out;
	}
	if ((has_rep = state_report_get(in->st, report_id, &rep, err)) < 0) {
		ret = -1;
		goto out;
	}
	if (!o->applied) {
		/* a killed run may have left a file under this number */
		if (request_file_forget(in->cfg->state, a.r.id, err) < 0 ||
		    (has_rep && test_answer(in, m, mid, &a.r, &rep, o->why.data, err) < 0))
			ret = -1;
		goto out;
	}
	for (i = 0; i < m->nr_references; i++)
		buf_addf(&refs, "%s%s", i ? " " : "", m->references[i]);
	if (!m->nr_references && m->nr_in_reply_to)
		buf_adds(&refs, m->in_reply_to[0]);
	if (!has_rep || request_job_json(&a.r, &job, rep.message_id, m->subject, refs.data, &json,
					 err) < 0 ||
	    request_file_write(in->cfg->state, a.r.id, json.data, json.len, err) < 0 ||
	    test_answer(in, m, mid, &a.r, &rep, NULL, err) < 0) {
		if (!has_rep)
			err_set(err, "report %lld is not in the state", (long long)report_id);
		ret = -1;
		goto out;
	}
	buf_addf(&o->why, "request %lld: ", (long long)a.r.id);
	if (a.r.what == STATE_REQUEST_GIT)
		buf_addf(&o->why, "%s %s", a.r.url, a.r.branch);
	else if (a.r.ref)
		buf_addf(&o->why, "commit %s on %s", a.r.commit_id, a.r.ref);
	else
		buf_addf(&o->why, "commit %s", a.r.commit_id);
	buf_addf(&o->why, ", job requests/pending/%lld.json", (long long)a.r.id);
out:
	if (has_job > 0)
		state_job_release(&job);
	if (has_rep > 0)
		state_report_release(&rep);
	free(a.r.ref);
	patchmail_free(a.patch);
	buf_release(&a.message);
	buf_release(&a.url);
	buf_release(&a.branch);
	buf_release(&json);
	buf_release(&refs);
	return ret;
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
static int act_on_command(struct ingest *in, const struct mail *m, const char *raw, size_t len,
			  const char *mid, int64_t report_id, const struct reply_command *c,
			  const char *author, int *tests_seen, struct buf *err)
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
				 "subscribe, unsubscribe and test");
	} else if (!strcmp(c->name, "test") && (*tests_seen)++) {
		o.applied = 0;
		buf_adds(&o.why, "the mail asked for a test already: one request per mail");
	} else if (!strcmp(c->name, "test")) {
		ret = test_request(in, m, raw, len, mid, report_id, c, &o, err);
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
		if (o.applied && !strcmp(c->name, "test"))
			event_log_say(&in->log, "report %lld: #perfbot test%s%s by %s: %s",
				      (long long)report_id, *c->args ? " " : "", c->args, author,
				      o.why.data);
		else if (o.applied && known)
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
static int act(struct ingest *in, const struct mail *m, const char *raw, size_t len,
	       const char *mid, int64_t report_id, struct buf *err)
{
	struct reply_options ro;
	struct reply *r;
	struct buf author = BUF_INIT;
	size_t i;
	int ret = 0, tests_seen = 0;

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
		ret = act_on_command(in, m, raw, len, mid, report_id, &r->commands[i], author.data,
				     &tests_seen, err);
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

/* ---- posted fixes (bot/posted.h) ---- */

/* What a patch mail posted says about the reports. */
struct posted {
	struct fix_matches matches;	/* empty: no posted fix */
	struct buf subject;		/* git am's */
	unsigned version;
};

/* The index of the reports, once a run; 0, or -1 on a state error.  A
 * report the index refuses (track refuses it too) is said once and the
 * run goes on without posted fixes. */
static int posted_index(struct ingest *in, struct buf *err)
{
	struct state_tracked_list list;
	struct buf why = BUF_INIT;

	if (in->fixes_read)
		return 0;
	if (state_tracked_list(in->st, 0, &list, err) < 0)
		return -1;
	in->fixes_read = 1;
	if (track_index(in->cfg, &list, &in->fixes, NULL, &why) < 0)
		event_log_say(&in->log, "posted fixes are not looked for: %s", why.data);
	state_tracked_list_release(&list);
	buf_release(&why);
	return 0;
}

/* Fills pf when m is a patch whose trailers hold evidence for reports.
 * 0 (pf->matches.nr says), -1 on a state error. */
static int posted_find(struct ingest *in, const struct mail *m, const char *raw, size_t len,
		       struct posted *pf, struct buf *err)
{
	struct trailer_list tl = TRAILER_LIST_INIT;
	struct patchmail *p = NULL;
	struct buf header = BUF_INIT;

	/* the cheap tests first: a line that may be such a trailer (before
	 * the reports are read: a run of one mail mostly has none), then the
	 * text's trailers naming a report (most patches on a list carry a
	 * Link: or a Fixes: naming none); only then the patch is read */
	if (!fix_message_wants(m->text))
		return 0;
	if (posted_index(in, err) < 0)
		return -1;
	if (!in->fixes)
		return 0;
	patchmail_subject(m->subject, &header, &pf->version);
	if (!posted_scan(in->fixes, header.data, m->text, &tl, &pf->matches))
		goto done;
	p = patchmail_read(raw, len);
	if (p) {
		buf_adds(&pf->subject, p->subject);
		posted_scan(in->fixes, pf->subject.data, p->message, &tl, &pf->matches);
	} else if (posted_subject_is_patch(m->subject)) {
		buf_adds(&pf->subject, header.data);
	} else {
		pf->matches.nr = 0;	/* no patch */
	}
done:
	trailer_list_release(&tl);
	buf_release(&header);
	patchmail_free(p);
	return 0;
}

/* Records the posted fixes pf found, in the mail's transaction. */
static int posted_record(struct ingest *in, const struct mail *m, const char *mid,
			 const struct posted *pf, struct buf *err)
{
	struct state_posted_fix p;
	size_t i;
	int e;

	for (i = 0; i < pf->matches.nr; i++) {
		memset(&p, 0, sizeof(p));
		p.report_id = pf->matches.v[i].report_id;
		p.message_id = (char *)mid;
		p.subject = pf->subject.data;
		p.version = pf->version;
		p.author_name = m->from ? m->from->name : (char *)"";
		p.author_email = m->from ? m->from->email : (char *)"";
		p.date = m->has_date ? m->date : in->now;
		p.kind = pf->matches.v[i].kind;
		p.recorded = in->now;
		e = state_posted_fix_add(in->st, &p, err);
		if (e == STATE_EXISTS) {
			buf_reset(err);
			continue;
		}
		if (e < 0)
			return -1;
		in->posted++;
		event_log_say(&in->log, "report %lld: fix posted: <%s> \"%s\", v%u, by %s (%s)",
			      (long long)p.report_id, mid, p.subject, p.version,
			      *p.author_email ? p.author_email : "(no From)", fix_kind_name(p.kind));
	}
	return 0;
}

void ingest_release(struct ingest *in)
{
	fix_index_free(in->fixes);
	in->fixes = NULL;
	in->fixes_read = 0;
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
	struct posted pf;
	int has_parent = 0, is_new = 0, found, ret = 0, act_on, refused = 0, own;
	int64_t report_id = 0;

	memset(&pf, 0, sizeof(pf));
	buf_init(&pf.subject);
	memset(&parent, 0, sizeof(parent));
	memset(&known, 0, sizeof(known));
	if (mail_parse(raw, len, &m, &why) < 0) {
		in->ignored++;
		event_log_say(&in->log, "%s: not a mail (%s): skipped", where, why.data);
		buf_release(&why);
		return 0;
	}
	{
		char *known_id = mail_known_id_of(m, raw, len);

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
	own = is_own(in, m);
	if (!own && posted_find(in, m, raw, len, &pf, err) < 0) {
		ret = -1;
		goto done;
	}
	if (!report_id && !in->all && !pf.matches.nr) {
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
	act_on = report_id && !m->auto_submitted && !own;
	if (state_begin(in->st, err) < 0) {
		ret = -1;
	} else if (state_message_add(in->st, &row, &is_new, err) < 0 ||
		   (act_on && act(in, m, raw, len, mid.data, report_id, err) < 0) ||
		   posted_record(in, m, mid.data, &pf, err) < 0) {
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
		else if (pf.matches.nr)
			event_log_say(&in->log, "%s: <%s> kept: a fix posted for report %lld", where, mid.data,
				      (long long)pf.matches.v[0].report_id);
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
	fix_matches_release(&pf.matches);
	buf_release(&pf.subject);
	buf_release(&why);
	buf_release(&mid);
	return ret;
}

int ingest_flush(struct ingest *in, struct buf *err)
{
	return store_commit(in->store, err);
}
