#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "date.h"
#include "intake.h"
#include "message.h"
#include "mboxrd.h"
#include "result.h"
#include "samples.h"
#include "spool.h"
#include "value.h"
#include "xalloc.h"
#include "banned.h"

/* One comparison file on its way into the outbox. */
struct item {
	char *name;		/* the spool name, or the path as given */
	char *path;		/* the file read */
	char *source;		/* what the outbox records it as */
	int in_spool;		/* 1: spool/incoming; 0: named by the operator */
	int64_t arrival;	/* its mtime: when it was queued */
	struct report *report;	/* NULL once merged into another or rejected */
	char head[41];		/* the resolved head commit */
	int done;		/* queued, rejected or left waiting */
};

static void item_release(struct item *it)
{
	free(it->name);
	free(it->path);
	free(it->source);
	report_free(it->report);
}

/* Sets the file aside with why: spool files move to rejected/ (never
 * deleted), named files stay where they are.  A file refused is an error
 * of its producer; one set aside (a comparison of a report a maintainer
 * closed) is not, and is counted apart. */
static int set_aside(struct intake *in, struct item *it, const char *why, int refused,
		     struct buf *err)
{
	const char *verb = refused ? "refused" : "set aside";
	struct buf where = BUF_INIT;

	it->done = 1;
	if (refused)
		in->rejected++;
	else
		in->set_aside++;
	if (!it->in_spool || in->dry_run) {
		event_log_say(&in->log, "%s %s: %s", verb, it->name, why);
		return 0;
	}
	if (spool_reject(in->cfg->state, it->name, why, &where, err) < 0)
		return -1;
	event_log_say(&in->log, "%s %s: %s (moved to %s)", verb, it->name, why, where.data);
	buf_release(&where);
	return 0;
}

static int reject(struct intake *in, struct item *it, const char *why, struct buf *err)
{
	return set_aside(in, it, why, 1, err);
}

/* Loads and checks one file; a file that fails is rejected. */
static int item_load(struct intake *in, struct item *it, struct buf *err)
{
	struct buf why = BUF_INIT;
	struct commit_info head;
	struct stat sb;
	int r = 0;

	if (stat(it->path, &sb) == 0)
		it->arrival = (int64_t)sb.st_mtime;
	else
		it->arrival = in->now;
	if (report_load_file(it->path, &it->report, &why) < 0 ||
	    repo_lookup(in->env->repo, it->report->commit, &head, &why) < 0) {
		r = reject(in, it, why.data, err);
		report_free(it->report);
		it->report = NULL;
		buf_release(&why);
		return r;
	}
	memcpy(it->head, head.id, sizeof(it->head));
	commit_info_release(&head);
	buf_release(&why);
	return 0;
}

static int same_group(const struct item *a, const struct item *b)
{
	return !strcmp(a->head, b->head) && !strcmp(a->report->tree, b->report->tree);
}

static int item_cmp(const void *x, const void *y)
{
	const struct item *a = x, *b = y;

	if (a->arrival != b->arrival)
		return a->arrival < b->arrival ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* "family\nhead\ntestcase\nheadline": what makes a comparison the same
 * thing as a report already sent. */
static void thread_key(struct buf *out, const struct report *r, const char *head)
{
	report_tree_name(r, out);
	buf_addf(out, "\n%s\n%s\n%s", head, r->tests[0].testcase, r->tests[0].headline);
}

static char *join_lines(const struct address *a, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i ? "\n" : "", a[i].email);
	return buf_detach(&b, NULL);
}

/* The MAINTAINERS people who may steer the report, one per line, or NULL. */
static char *steerers_text(const struct route_result *route)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < route->nr_steerers; i++)
		buf_addf(&b, "%s%s", i ? "\n" : "", route->steerers[i]);
	return route->nr_steerers ? buf_detach(&b, NULL) : NULL;
}

/* Renders the merged report of a group and puts it into the outbox. */
void intake_plan_release(struct intake_plan *p)
{
	message_refs_free(p->refs, p->nr_refs);
	free(p->after);
	if (p->has_parent)
		state_report_release(&p->parent);
	buf_release(&p->key);
	memset(p, 0, sizeof(*p));
}

/* Why a comparison of the thread of parent, whose report is closed, gets
 * no follow-up: 1, or -1 on a database error. */
static int plan_closed(struct state *st, const struct state_report *parent, struct buf *why,
		       struct buf *err)
{
	struct state_report root;
	int64_t id = parent->thread_id ? parent->thread_id : parent->id;
	int e = id == parent->id ? 0 : state_report_get(st, id, &root, err);

	if (e < 0)
		return -1;
	buf_addf(why, "report <%s> was closed as %s (a #perfbot command, a fix, or perfbot report): "
		 "no follow-up is sent", e ? root.message_id : parent->message_id,
		 state_verdict_name(parent->thread_verdict));
	if (e)
		state_report_release(&root);
	return 1;
}

int intake_plan(struct state *st, const struct report *r, const char *head,
		struct intake_plan *p, struct buf *why, struct buf *err)
{
	int e;

	memset(p, 0, sizeof(*p));
	buf_init(&p->key);
	thread_key(&p->key, r, head);
	if (!st)
		return 0;
	e = state_report_find_by_thread_key(st, p->key.data, &p->parent, err);
	if (e < 0)
		return -1;
	p->has_parent = e;
	/* the thread's state is its report's, whichever mail of it the
	 * follow-up would answer */
	if (e && p->parent.thread_verdict != STATE_VERDICT_OPEN)
		return plan_closed(st, &p->parent, why, err);
	if (e) {
		message_refs_split(p->parent.refs, &p->refs, &p->nr_refs);
		p->render_parent.message_id = p->parent.message_id;
		p->render_parent.subject = p->parent.subject;
		p->render_parent.references = (const char *const *)p->refs;
		p->render_parent.nr_references = p->nr_refs;
		return 0;
	}
	/* a report of the same thing that is no parent (redirected,
	 * dropped, failed): the new one must not get its Message-ID */
	return state_report_last_message_id(st, p->key.data, &p->after, err) < 0 ? -1 : 0;
}

void intake_plan_request(const struct intake_plan *p, const struct report *r, int64_t now,
			 struct render_request *req)
{
	memset(req, 0, sizeof(*req));
	req->report = r;
	req->created = now;
	req->after = p->after;
	req->parent = p->has_parent ? &p->render_parent : NULL;
}

/* The tests of r as a request file's "tests" (perfbot-json(5)). */
static char *job_tests(const struct report *r)
{
	struct value *a = value_new_array();
	struct buf out = BUF_INIT;
	size_t i, j;

	for (i = 0; i < r->nr_tests; i++) {
		const struct report_test *t = &r->tests[i];
		struct value *o = value_array_push(a, value_new_object()), *p;

		value_object_set_string(o, "testcase", t->testcase);
		value_object_set_string(o, "tbox_group", t->tbox_group);
		value_object_set_string(o, "machine", t->machine);
		value_object_set_string(o, "kconfig", t->kconfig);
		value_object_set_string(o, "compiler", t->compiler);
		value_object_set_string(o, "rootfs", t->rootfs);
		p = value_object_set(o, "params", value_new_object());
		for (j = 0; j < t->nr_params; j++)
			value_object_set_string(p, t->params[j].key, t->params[j].value);
		value_object_set_string(o, "headline", t->headline);
	}
	value_write_json(&out, a, 0);
	value_free(a);
	return buf_detach(&out, NULL);
}

/*
 * Keeps what a lab needs to rerun report id (its base and head commits,
 * its tests) for "#perfbot test" requests: the comparison file is gone
 * after send.  A base the repository cannot resolve keeps no job (a
 * request on that report is then refused, saying so).
 */
static int job_keep(struct intake *in, int64_t id, const struct report *r, const char *head,
		    int regression, struct buf *err)
{
	struct commit_info base;
	struct state_job job;
	struct buf why = BUF_INIT;
	int ret = 0;

	if (repo_lookup(in->env->repo, r->base, &base, &why) < 0) {
		event_log_say(&in->log, "report %lld: no job kept for fix testing: %s", (long long)id,
			      why.data);
		buf_release(&why);
		return 0;
	}
	job.base = base.id;
	job.head = (char *)head;
	job.tree = r->tree;
	job.regression = regression;
	job.tests = job_tests(r);
	ret = state_job_set(in->st, id, &job, err);
	free(job.tests);
	commit_info_release(&base);
	return ret;
}

static int queue_group(struct intake *in, struct item **group, size_t n, struct buf *err)
{
	struct report *r = group[0]->report;
	struct buf why = BUF_INIT, refs = BUF_INIT;
	struct intake_plan plan;
	struct state_report row;
	struct render_request req;
	struct rendered out;
	struct address from;
	char **sources = xcalloc(n, sizeof(*sources));
	size_t i;
	int has_parent, ret = 0, e;
	int64_t id = 0;

	memset(&plan, 0, sizeof(plan));
	memset(&out, 0, sizeof(out));
	memset(&from, 0, sizeof(from));
	for (i = 1; i < n; i++) {
		if (report_merge(r, group[i]->report, &why) < 0) {
			ret = reject(in, group[i], why.data, err);
			if (ret < 0)
				goto done;
			buf_reset(&why);
			continue;
		}
		group[i]->report = NULL;
		event_log_say(&in->log, "coalesced %s into the report of %.12s", group[i]->name, group[0]->head);
	}
	e = intake_plan(in->st, r, group[0]->head, &plan, &why, err);
	if (e < 0) {
		ret = -1;
		goto done;
	}
	if (e > 0) {
		for (i = 0; i < n; i++)
			if (!group[i]->done && (ret = set_aside(in, group[i], why.data, 0, err)) < 0)
				goto done;
		goto done;
	}
	has_parent = plan.has_parent;
	intake_plan_request(&plan, r, in->now, &req);
	if (render_report(in->env, &req, &out, &why) < 0 ||
	    address_parse(in->cfg->from, &from, &why) < 0) {
		for (i = 0; i < n; i++)
			if (!group[i]->done && (ret = reject(in, group[i], why.data, err)) < 0)
				goto done;
		goto done;
	}

	if (in->dry_run) {
		mboxrd_append(in->dry_mbox, from.email, in->now, out.mail.data, out.mail.len);
		event_log_say(&in->log, "would queue <%s> %s%s", out.message_id, has_parent ? "(follow-up) " : "",
		    out.subject);
		for (i = 0; i < n; i++)
			group[i]->done = 1;
		in->queued++;
		goto done;
	}

	memset(&row, 0, sizeof(row));
	row.message_id = out.message_id;
	row.kind = has_parent ? STATE_KIND_FOLLOWUP : STATE_KIND_REPORT;
	row.parent_id = has_parent ? plan.parent.id : 0;
	row.thread_key = plan.key.data;
	row.tree = r->tree;		/* what perfbot track watches */
	row.head = group[0]->head;
	row.identity = out.identity;
	row.subject = out.subject;
	row.from_name = from.name;
	row.from_email = from.email;
	row.in_reply_to = has_parent ? plan.parent.message_id : NULL;
	for (i = 0; i < out.nr_references; i++)
		buf_addf(&refs, "%s%s", i ? " " : "", out.references[i]);
	row.refs = refs.len ? refs.data : NULL;
	row.env_from = from.email;
	{
		struct buf rcpt = BUF_INIT;
		char *to = join_lines(&out.rcpt.to, 1), *cc = join_lines(out.rcpt.cc, out.rcpt.nr_cc);

		buf_addf(&rcpt, "%s%s%s", to, *cc ? "\n" : "", cc);
		row.env_rcpt = rcpt.data;
		row.to_addrs = to;
		row.cc_addrs = cc;
		row.maintainer_addrs = steerers_text(&out.route);
		row.mail = out.mail.data;
		row.mail_len = out.mail.len;
		for (i = 0; i < n; i++)
			if (!group[i]->done)
				sources[row.nr_sources++] = group[i]->source;
		row.sources = sources;
		row.created = in->now;
		row.next_attempt = 0;
		/* the report and its job in one transaction: a run killed in
		 * between leaves neither, and the spool file is still there */
		e = state_begin(in->st, err);
		if (e == 0)
			e = state_report_add(in->st, &row, &id, err);
		if (e == 0 && job_keep(in, id, r, group[0]->head, out.regression, err) < 0)
			e = -1;
		if (e >= 0 && state_commit(in->st, err) < 0)
			e = -1;
		else if (e < 0)
			state_rollback(in->st);
		buf_release(&rcpt);
		free(to);
		free(cc);
		free(row.maintainer_addrs);
	}
	if (e < 0) {
		ret = -1;
		goto done;
	}
	/* the runs for the site's charts: after the commit, and a failure
	 * costs only the charts (samples.h) */
	if (e == 0) {
		struct buf lost = BUF_INIT;

		if (samples_keep(in->cfg->state, id, r, &lost) < 0)
			event_log_say(&in->log, "report %lld: its samples are not kept for the site: %s",
				      (long long)id, lost.data);
		buf_release(&lost);
	}
	if (e == STATE_EXISTS)
		event_log_say(&in->log, "already in the outbox: %s", err->data);
	else
		event_log_say(&in->log, "queued report %lld <%s> %s%s", (long long)id, out.message_id,
		    has_parent ? "(follow-up) " : "", out.subject);
	in->queued++;
	/* the outbox holds it now: only now may the spool files go */
	for (i = 0; i < n; i++) {
		if (group[i]->done)
			continue;
		group[i]->done = 1;
		if (group[i]->in_spool && spool_done(in->cfg->state, group[i]->name, err) < 0) {
			ret = -1;
			goto done;
		}
	}
done:
	free(sources);
	intake_plan_release(&plan);
	rendered_release(&out);
	address_release(&from);
	buf_release(&why);
	buf_release(&refs);
	return ret;
}

/*
 * A test result (result.h): checked against its request in the state,
 * rendered as the reply to the request mail (or, a follow-up result, to
 * the first result), and queued with the request made answered in one
 * transaction.  Results are never coalesced and never wait.
 */
static int queue_result(struct intake *in, struct item *it, struct buf *err)
{
	struct report *r = it->report;
	struct result_request q;
	struct render_request req;
	struct rendered out;
	struct state_report row;
	struct address from;
	struct buf why = BUF_INIT, refs = BUF_INIT, rcpt = BUF_INIT;
	char *to = NULL, *cc = NULL, *sources[1];
	int64_t id = 0;
	size_t i;
	int ret = 0, e;

	memset(&out, 0, sizeof(out));
	memset(&from, 0, sizeof(from));
	e = result_request_load(in->st, r->request, &q, &why, err);
	if (e < 0)
		return -1;
	if (e == 0 || result_check(in->env->repo, r, &q, &why)) {
		if (e == 0)
			err_prefix(&why, "%s: ", r->name);
		ret = reject(in, it, why.data, err);
		goto done;
	}
	memset(&req, 0, sizeof(req));
	req.report = r;
	req.created = in->now;
	req.answer = &q;
	if (render_report(in->env, &req, &out, &why) < 0 ||
	    address_parse(in->cfg->from, &from, &why) < 0) {
		ret = reject(in, it, why.data, err);
		goto done;
	}
	if (in->dry_run) {
		mboxrd_append(in->dry_mbox, from.email, in->now, out.mail.data, out.mail.len);
		event_log_say(&in->log, "would queue <%s> (result of request %lld, %s) %s", out.message_id,
			      (long long)q.number, out.verdict, out.subject);
		it->done = 1;
		in->queued++;
		goto done;
	}
	memset(&row, 0, sizeof(row));
	row.message_id = out.message_id;
	row.kind = STATE_KIND_NOTICE;
	row.parent_id = q.parent_id;
	row.thread_key = out.identity;
	row.identity = out.identity;
	row.subject = out.subject;
	row.from_name = from.name;
	row.from_email = from.email;
	row.in_reply_to = q.first_result ? q.first_result : q.message_id;
	for (i = 0; i < out.nr_references; i++)
		buf_addf(&refs, "%s%s", i ? " " : "", out.references[i]);
	row.refs = refs.len ? refs.data : NULL;
	row.env_from = from.email;
	to = join_lines(&out.rcpt.to, 1);
	cc = join_lines(out.rcpt.cc, out.rcpt.nr_cc);
	buf_addf(&rcpt, "%s%s%s", to, *cc ? "\n" : "", cc);
	row.env_rcpt = rcpt.data;
	row.to_addrs = to;
	row.cc_addrs = cc;
	row.mail = out.mail.data;
	row.mail_len = out.mail.len;
	sources[0] = it->source;
	row.sources = sources;
	row.nr_sources = 1;
	row.created = in->now;
	/* the mail and the request's answer in one transaction: a run killed
	 * in between leaves neither, and the spool file is still there */
	e = state_begin(in->st, err);
	if (e == 0)
		e = state_report_add(in->st, &row, &id, err);
	if (e == 0) {
		int moved = state_request_answer(in->st, q.number, out.verdict, out.message_id, in->now, err);

		if (moved == 0)
			err_set(err, "request %lld changed state while its result was queued",
				(long long)q.number);
		if (moved <= 0)
			e = -1;
	}
	if (e >= 0 && state_commit(in->st, err) < 0)
		e = -1;
	else if (e < 0)
		state_rollback(in->st);
	if (e < 0) {
		ret = -1;
		goto done;
	}
	if (e == STATE_EXISTS)
		event_log_say(&in->log, "already in the outbox: %s", err->data);
	else
		event_log_say(&in->log, "queued report %lld <%s> (result of request %lld, %s) %s",
			      (long long)id, out.message_id, (long long)q.number, out.verdict, out.subject);
	in->queued++;
	it->done = 1;
	if (it->in_spool && spool_done(in->cfg->state, it->name, err) < 0)
		ret = -1;
done:
	result_request_release(&q);
	rendered_release(&out);
	address_release(&from);
	buf_release(&why);
	buf_release(&refs);
	buf_release(&rcpt);
	free(to);
	free(cc);
	return ret;
}

/* Groups the loaded items and queues each group that is ready. */
static int take(struct intake *in, struct item *items, size_t n, int wait, struct buf *err)
{
	struct item **group = xcalloc(n ? n : 1, sizeof(*group));
	size_t i, j, ng;
	int ret = 0;

	xqsort(items, n, sizeof(*items), item_cmp);
	for (i = 0; i < n && ret == 0; i++) {
		if (items[i].done || !items[i].report)
			continue;
		if (items[i].report->request) {
			ret = queue_result(in, &items[i], err);
			continue;
		}
		ng = 0;
		for (j = i; j < n; j++)
			if (!items[j].done && items[j].report && !items[j].report->request &&
			    same_group(&items[i], &items[j]))
				group[ng++] = &items[j];
		/* items are in arrival order: group[0] is the oldest */
		if (wait && in->flush && in->now - group[0]->arrival < (int64_t)in->cfg->coalesce_minutes * 60)
			event_log_say(&in->log, "--flush: %zu file%s of %.12s taken before coalesceMinutes", ng,
			    ng == 1 ? "" : "s", group[0]->head);
		else if (wait && in->now - group[0]->arrival < (int64_t)in->cfg->coalesce_minutes * 60) {
			struct buf when = BUF_INIT;

			date_format_rfc3339_utc(&when, group[0]->arrival + (int64_t)in->cfg->coalesce_minutes * 60);
			event_log_say(&in->log, "waiting until %s for more tests of %.12s (%zu file%s)", when.data,
			    group[0]->head, ng, ng == 1 ? "" : "s");
			buf_release(&when);
			for (j = 0; j < ng; j++)
				group[j]->done = 1;
			in->waiting += ng;
			continue;
		}
		ret = queue_group(in, group, ng, err);
	}
	free(group);
	return ret;
}

int intake_spool(struct intake *in, struct buf *err)
{
	struct spool_names names = { 0 };
	struct item *items = NULL;
	size_t i, n = 0;
	int ret = 0;

	if (spool_list_incoming(in->cfg->state, in->now, &names, err) < 0)
		return -1;
	items = xcalloc(names.nr ? names.nr : 1, sizeof(*items));
	for (i = 0; i < names.nr && ret == 0; i++) {
		struct item *it = &items[n];
		struct buf path = BUF_INIT;
		int64_t report_id = 0;
		int found;

		found = state_source_find(in->st, names.v[i], &report_id, err);
		if (found < 0) {
			ret = -1;
			break;
		}
		if (found) {
			/* a run died after queueing it and before removing it */
			if (!in->dry_run && spool_done(in->cfg->state, names.v[i], err) < 0)
				ret = -1;
			else
				event_log_say(&in->log, "%s was already queued as report %lld", names.v[i], (long long)report_id);
			continue;
		}
		spool_incoming_path(&path, in->cfg->state, names.v[i]);
		it->name = xstrdup(names.v[i]);
		it->path = buf_detach(&path, NULL);
		it->source = xstrdup(names.v[i]);
		it->in_spool = 1;
		n++;
		ret = item_load(in, it, err);
	}
	if (ret == 0)
		ret = take(in, items, n, 1, err);
	for (i = 0; i < n; i++)
		item_release(&items[i]);
	free(items);
	spool_names_release(&names);
	return ret;
}

int intake_files(struct intake *in, char *const *paths, size_t n, struct buf *err)
{
	struct item *items = xcalloc(n ? n : 1, sizeof(*items));
	size_t i, m = 0;
	int ret = 0;

	for (i = 0; i < n && ret == 0; i++) {
		struct item *it = &items[m];
		struct buf text = BUF_INIT, why = BUF_INIT, source = BUF_INIT;
		char real[PATH_MAX];
		int64_t report_id = 0;
		int found;

		it->name = xstrdup(paths[i]);
		it->path = xstrdup(paths[i]);
		m++;
		if (!realpath(paths[i], real) || buf_read_file(&text, paths[i], SPOOL_MAX_FILE, &why) < 0) {
			if (!why.len)
				buf_addf(&why, "%s: %s", paths[i], strerror(errno));
			ret = reject(in, it, why.data, err);
			buf_release(&why);
			continue;
		}
		/* the same file with the same content is the same comparison */
		buf_addf(&source, "file:%s:", real);
		repo_hash_hex(&source, text.data, text.len);
		buf_release(&text);
		found = state_source_find(in->st, source.data, &report_id, err);
		if (found < 0) {
			ret = -1;
		} else if (found) {
			event_log_say(&in->log, "%s was already queued as report %lld", paths[i], (long long)report_id);
			it->done = 1;
		} else {
			it->source = buf_detach(&source, NULL);
			ret = item_load(in, it, err);
		}
		buf_release(&source);
	}
	if (ret == 0)
		ret = take(in, items, m, 0, err);
	for (i = 0; i < m; i++)
		item_release(&items[i]);
	free(items);
	return ret;
}

void intake_waits_release(struct intake_waits *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		free(w->v[i].name);
		free(w->v[i].refused);
	}
	free(w->v);
	memset(w, 0, sizeof(*w));
}

int intake_spool_waiting(const struct config *cfg, int64_t now, struct intake_waits *out,
			 struct buf *err)
{
	struct spool_names names = { 0 };
	struct {
		char *key;	/* "tree\ncommit", NULL for a file refused */
		int64_t arrival;
	} *f;
	struct buf path = BUF_INIT, why = BUF_INIT;
	const int64_t wait = (int64_t)cfg->coalesce_minutes * 60;
	size_t i, j;

	if (spool_peek_incoming(cfg->state, &names, err) < 0)
		return -1;
	f = xcalloc(names.nr ? names.nr : 1, sizeof(*f));
	for (i = 0; i < names.nr; i++) {
		struct intake_wait *w;
		struct report *r = NULL;
		struct stat sb;

		spool_incoming_path(&path, cfg->state, names.v[i]);
		f[i].arrival = stat(path.data, &sb) == 0 ? (int64_t)sb.st_mtime : now;
		buf_reset(&why);
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		w = &out->v[out->nr++];
		memset(w, 0, sizeof(*w));
		w->name = xstrdup(names.v[i]);
		if (report_load_file(path.data, &r, &why) < 0) {
			w->refused = buf_detach(&why, NULL);
			continue;
		}
		buf_reset(&why);
		/* a test result is never coalesced: it goes at the next send */
		if (r->request)
			buf_addf(&why, "result\n%s", names.v[i]);
		else
			buf_addf(&why, "%s\n%s", r->tree, r->commit);
		f[i].key = buf_detach(&why, NULL);
		report_free(r);
	}
	for (i = 0; i < names.nr; i++) {
		int64_t oldest = f[i].arrival;

		if (!f[i].key)
			continue;
		for (j = 0; j < names.nr; j++)
			if (f[j].key && !strcmp(f[i].key, f[j].key) && f[j].arrival < oldest)
				oldest = f[j].arrival;
		out->v[out->nr - names.nr + i].until = now - oldest < wait &&
			strncmp(f[i].key, "result\n", 7) ? oldest + wait : 0;
	}
	for (i = 0; i < names.nr; i++)
		free(f[i].key);
	free(f);
	spool_names_release(&names);
	buf_release(&path);
	buf_release(&why);
	return 0;
}
