/*
 * A fix test's result and the request it answers (result.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "result.h"
#include "value.h"
#include "verdict.h"
#include "compare.h"
#include "xalloc.h"
#include "banned.h"

void result_request_release(struct result_request *q)
{
	free(q->report_message_id);
	free(q->message_id);
	free(q->subject);
	free(q->references);
	free(q->requester_name);
	free(q->requester_email);
	free(q->patch_subject);
	free(q->commit);
	free(q->url);
	free(q->branch);
	free(q->base);
	free(q->head);
	free(q->first_result);
	memset(q, 0, sizeof(*q));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

int result_request_load(struct state *st, int64_t n, struct result_request *out,
			struct buf *why, struct buf *err)
{
	struct state_request r;
	struct state_message m;
	struct state_report rep;
	int e;

	memset(out, 0, sizeof(*out));
	e = state_request_get(st, n, &r, err);
	if (e <= 0) {
		if (e == 0)
			buf_addf(why, "request %lld is not in the state: a result answers a request "
				 "perfbot took (perfbot requests; render --request FILE previews one "
				 "from its job file)", (long long)n);
		return e;
	}
	out->number = r.id;
	out->report_id = r.report_id;
	out->message_id = xstrdup(r.message_id);
	out->requester_name = xstrdup(r.requester_name ? r.requester_name : "");
	out->requester_email = xstrdup(r.requester_email);
	out->what = r.what;
	out->patch_subject = dup_or_null(r.what == STATE_REQUEST_PATCH ? r.subject : NULL);
	out->commit = dup_or_null(r.commit_id);
	out->url = dup_or_null(r.url);
	out->branch = dup_or_null(r.branch);
	out->base = dup_or_null(r.base);
	out->head = dup_or_null(r.head);
	out->state = r.state;
	out->first_result = dup_or_null(r.result_message_id);
	state_request_release(&r);

	e = state_report_get(st, out->report_id, &rep, err);
	if (e < 0)
		goto fail;
	if (e) {
		out->report_message_id = xstrdup(rep.message_id);
		state_report_release(&rep);
	} else {
		out->report_message_id = xstrdup("");
	}
	e = state_message_find(st, out->message_id, &m, err);
	if (e < 0)
		goto fail;
	out->subject = xstrdup(e && m.subject ? m.subject : "");
	if (e && m.refs && *m.refs)
		out->references = xstrdup(m.refs);
	else if (e && m.in_reply_to && *m.in_reply_to)
		out->references = xstrdup(m.in_reply_to);
	if (e)
		state_message_release(&m);
	out->parent_id = out->report_id;
	if (out->first_result) {
		e = state_report_find_id(st, out->first_result, &out->parent_id, err);
		if (e < 0)
			goto fail;
		if (!e)
			out->parent_id = out->report_id;
	}
	return 1;
fail:
	result_request_release(out);
	return -1;
}

/* The string at key of o, or NULL when absent or not a string. */
static const char *get_str(const struct value *o, const char *key)
{
	const struct value *v = value_object_get(o, key);

	return v && v->kind == VALUE_STRING ? v->str : NULL;
}

/* A string of the job file that must be one line (it goes into headers). */
static int job_line(const char *path, const struct value *o, const char *key, int required,
		    char **out, struct buf *err)
{
	const char *s = get_str(o, key);

	if (!s) {
		if (required)
			return err_set(err, "%s: \"%s\": missing or not a string (a job file of "
				       "perfbot requests take?)", path, key);
		return 0;
	}
	if (strpbrk(s, "\r\n") || strlen(s) > 4096)
		return err_set(err, "%s: \"%s\": not one line of at most 4096 bytes", path, key);
	*out = xstrdup(s);
	return 0;
}

int result_request_from_job(const char *path, struct result_request *out, struct buf *err)
{
	struct value *v = NULL;
	const struct value *n, *who, *test, *git;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (json_parse_file(path, &v, err) < 0)
		return -1;
	if (v->kind != VALUE_OBJECT) {
		err_set(err, "%s: not a JSON object", path);
		goto done;
	}
	n = value_object_get(v, "request");
	if (!n || n->kind != VALUE_NUMBER || !n->is_integer || n->number < 1 || n->number > 1e15) {
		err_set(err, "%s: \"request\": not a request number", path);
		goto done;
	}
	out->number = (int64_t)n->number;
	out->from_job = 1;
	out->state = STATE_REQUEST_TAKEN;
	who = value_object_get(v, "requested_by");
	test = value_object_get(v, "test");
	if (!who || who->kind != VALUE_OBJECT || !test || test->kind != VALUE_OBJECT) {
		err_set(err, "%s: \"requested_by\" and \"test\" must be objects", path);
		goto done;
	}
	git = value_object_get(test, "git");
	if (job_line(path, v, "report_message_id", 1, &out->report_message_id, err) < 0 ||
	    job_line(path, v, "request_message_id", 1, &out->message_id, err) < 0 ||
	    job_line(path, v, "request_subject", 1, &out->subject, err) < 0 ||
	    job_line(path, v, "request_references", 0, &out->references, err) < 0 ||
	    job_line(path, who, "name", 0, &out->requester_name, err) < 0 ||
	    job_line(path, who, "email", 1, &out->requester_email, err) < 0 ||
	    job_line(path, v, "base", 1, &out->base, err) < 0 ||
	    job_line(path, v, "head", 1, &out->head, err) < 0)
		goto done;
	if (git && git->kind == VALUE_OBJECT) {
		out->what = STATE_REQUEST_GIT;
		if (job_line(path, git, "url", 1, &out->url, err) < 0 ||
		    job_line(path, git, "branch", 1, &out->branch, err) < 0)
			goto done;
	} else {
		const char *what = get_str(v, "what");

		/* "what" and "patch_subject" came later: without them the
		 * commit is shown as named */
		out->what = what && !strcmp(what, "patch") ? STATE_REQUEST_PATCH : STATE_REQUEST_COMMIT;
		if (job_line(path, test, "commit", 1, &out->commit, err) < 0 ||
		    (out->what == STATE_REQUEST_PATCH &&
		     job_line(path, v, "patch_subject", 0, &out->patch_subject, err) < 0))
			goto done;
	}
	if (!out->requester_name)
		out->requester_name = xstrdup("");
	if (out->references && !*out->references) {
		free(out->references);
		out->references = NULL;
	}
	ret = 0;
done:
	value_free(v);
	if (ret < 0)
		result_request_release(out);
	return ret;
}

/* The reason appended to why: 1, a refusal. */
static int refuse(struct buf *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(why, fmt, ap);
	va_end(ap);
	return 1;
}

static int refuse_named(struct buf *why, const char *name)
{
	err_prefix(why, "%s: ", name);
	return 1;
}

/* Resolves spec in repo into id (41 bytes): 0, or 1 with why. */
static int resolve(struct repo *repo, const char *what, const char *spec, char *id, struct buf *why)
{
	struct commit_info c;
	struct buf e = BUF_INIT;

	if (repo_lookup(repo, spec, &c, &e) < 0) {
		buf_addf(why, "%s: %s", what, e.data);
		buf_release(&e);
		return 1;
	}
	memcpy(id, c.id, 41);
	commit_info_release(&c);
	buf_release(&e);
	return 0;
}

int result_check(struct repo *repo, const struct report *r, const struct result_request *q,
		 struct buf *why)
{
	char id[41];
	const char *tested;

	if (!r->request)
		return refuse(why, "%s: not a test result (no \"request\"): --request is for results",
			      r->name);
	if (r->request != (long)q->number)
		return refuse(why, "%s: \"request\" is %ld but the request given is %lld", r->name,
				r->request, (long long)q->number);
	if (q->state != STATE_REQUEST_TAKEN && q->state != STATE_REQUEST_ANSWERED)
		return refuse(why, "%s: request %lld is %s: only a request a pipeline took "
				"(perfbot requests take) has a result", r->name, (long long)q->number,
				state_request_state_name(q->state));
	if (!q->base || !q->head)
		return refuse(why, "%s: request %lld has no commits to check against", r->name,
				(long long)q->number);
	if (resolve(repo, "base", r->base, id, why))
		return refuse_named(why, r->name);
	if (strcmp(id, q->base))
		return refuse(why, "%s: base %.12s is not request %lld's base %.12s: a result never "
				"lands in the wrong thread", r->name, id, (long long)q->number, q->base);
	if (resolve(repo, "commit", r->commit, id, why))
		return refuse_named(why, r->name);
	if (strcmp(id, q->head))
		return refuse(why, "%s: commit %.12s is not request %lld's reported commit %.12s: a "
				"result never lands in the wrong thread", r->name, id,
				(long long)q->number, q->head);
	if (!r->nr_extra)
		return refuse(why, "%s: a result names the commit tested as the last of \"extra\"",
				r->name);
	tested = r->extra[r->nr_extra - 1].commit;
	if (resolve(repo, "the commit tested", tested, id, why))
		return refuse_named(why, r->name);
	if (q->commit && strcmp(id, q->commit))
		return refuse(why, "%s: the commit tested %.12s (the last of \"extra\") is not request "
				"%lld's commit %.12s", r->name, id, (long long)q->number, q->commit);
	return 0;
}

/* The change of extra side e of m against the base, as the table prints
 * it: given, else computed as for the head (compare_metric_change()). */
static double extra_change(const struct report_metric *m, const struct report_extra_side *e)
{
	double base = m->base.mean;

	if (e->has_change)
		return e->change;
	if (compare_metric_is_absolute(m->name))
		return e->side.mean - base;
	if (base == 0)
		base = 1e-100;
	return 100.0 * (e->side.mean - base) / fabs(base);
}

const char *result_verdict(const struct config *cfg, const struct report *r, struct buf *words)
{
	const struct report_test *t = &r->tests[0];
	const struct report_metric *hl;
	const struct report_extra_side *e;
	struct verdict_limits l;
	enum verdict v;

	if (r->error)
		return "error";
	hl = &t->metrics[t->headline_index];
	e = &hl->extra[r->nr_extra - 1];
	l.fixed_ratio = cfg->test_fixed_ratio;
	l.noise_percent = cfg->test_noise_percent;
	l.partial_ratio = cfg->test_partial_ratio;
	v = verdict_judge(hl->base.mean, hl->head.mean, e->side.mean, &l);
	if (words)
		verdict_words(words, v, compare_metric_change(hl), extra_change(hl, e),
			      compare_metric_is_absolute(hl->name));
	return verdict_name(v);
}

static struct value *commit_view(const struct commit_info *c, const char *label)
{
	struct value *o = value_new_object();
	struct buf b = BUF_INIT;

	value_object_add_string(o, "id", c->id);
	buf_add(&b, c->id, 12);
	value_object_add_string(o, "short", b.data);
	value_object_add_string(o, "subject", c->subject);
	value_object_add_string(o, "label", label ? label : "");
	value_object_add_bool(o, "has_label", label != NULL);
	buf_release(&b);
	return o;
}

/* The requester's first name, for "hi, Peter,": the first word of the
 * name, else the address's local part. */
static void first_name(struct buf *out, const struct result_request *q)
{
	const char *s = q->requester_name && *q->requester_name ? q->requester_name
								: q->requester_email;
	size_t n = strcspn(s, *q->requester_name ? " " : "@");

	buf_add(out, s, n);
}

struct value *result_view(const struct config *cfg, const struct report *r,
			  const struct result_request *q, const struct result_commits *c)
{
	struct value *v = value_new_object(), *list;
	struct buf b = BUF_INIT;
	const char *verdict = result_verdict(cfg, r, &b), *p, *nl;

	value_object_add(v, "number", value_new_integer(q->number));
	value_object_add_bool(v, "followup", q->first_result != NULL);
	value_object_add_bool(v, "error", r->error != NULL);
	list = value_object_add(v, "error_lines", value_new_array());
	for (p = r->error; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
		struct value *o = value_array_push(list, value_new_object());

		nl = strchr(p, '\n');
		value_object_add(o, "line", value_new_stringn(p, nl ? (size_t)(nl - p) : strlen(p)));
	}
	value_object_add_string(v, "verdict", r->error ? "" : verdict);
	value_object_add_bool(v, "fixed", !strcmp(verdict, "fixed"));
	value_object_add_bool(v, "partial", !strcmp(verdict, "partial"));
	value_object_add_bool(v, "worse", !strcmp(verdict, "worse"));
	value_object_add_bool(v, "not_fixed", !strcmp(verdict, "not-fixed"));
	value_object_add_string(v, "words", b.data);
	value_object_add(v, "base", commit_view(c->base, NULL));
	value_object_add(v, "head", commit_view(c->head, NULL));
	value_object_add(v, "upon", commit_view(c->upon, r->nr_extra > 1 ?
						r->extra[r->nr_extra - 2].label : NULL));
	value_object_add_bool(v, "on_tip", r->nr_extra > 1);
	value_object_add(v, "tested", commit_view(c->tested, r->extra[r->nr_extra - 1].label));
	value_object_add_bool(v, "patch", q->what == STATE_REQUEST_PATCH);
	value_object_add_bool(v, "named", q->what == STATE_REQUEST_COMMIT);
	value_object_add_bool(v, "git", q->what == STATE_REQUEST_GIT);
	value_object_add_string(v, "patch_subject", q->patch_subject ? q->patch_subject : "");
	value_object_add_string(v, "url", q->url ? q->url : "");
	value_object_add_string(v, "branch", q->branch ? q->branch : "");
	buf_reset(&b);
	if (*q->requester_name)
		buf_addf(&b, "%s <%s>", q->requester_name, q->requester_email);
	else
		buf_adds(&b, q->requester_email);
	value_object_add_string(v, "requester", b.data);
	buf_reset(&b);
	first_name(&b, q);
	value_object_add_string(v, "requester_first", b.data);
	value_object_add_string(v, "request_message_id", q->message_id);
	/* config_load() sets reportedBy, from perfbot.from when not given */
	value_object_add_string(v, "tested_by", cfg->reported_by ? cfg->reported_by : cfg->from);
	buf_release(&b);
	return v;
}
