#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "compare.h"
#include "date.h"
#include "message.h"
#include "render.h"
#include "view.h"
#include "xalloc.h"
#include "banned.h"

struct template_set *render_template_set(const struct config *cfg)
{
	struct template_set *set = template_set_new(NULL);
	size_t i;

	for (i = 0; i < cfg->templates.nr; i++)
		template_set_add_dir(set, cfg->templates.v[i]);
	template_set_add_dir(set, cfg->shipped_templates);
	return set;
}

int render_template(struct render_env *env, const struct render_request *req,
		    const struct template **out, struct buf *err)
{
	const char *name = req->template_name ? req->template_name : env->cfg->template_name;
	struct buf followup = BUF_INIT;
	int r;

	if (!req->parent)
		return template_set_get(env->templates, name, out, err);
	buf_addf(&followup, "%s-followup", name);
	r = template_set_lookup(env->templates, followup.data, out, err);
	buf_release(&followup);
	if (r < 0 || *out)
		return r;
	return template_set_get(env->templates, "followup", out, err);
}

char *render_mint_id(const struct config *cfg, const char *stamp, const char *identity,
		     const char *from_email)
{
	struct buf hash = BUF_INIT, mid = BUF_INIT;

	repo_hash8(&hash, identity, strlen(identity));
	message_mint_id(&mid, stamp, hash.data, cfg->message_id_tag, from_email);
	buf_release(&hash);
	return buf_detach(&mid, NULL);
}

static int render_template_kind(struct template_set *set, const struct config *cfg,
				const char *kind, const struct template **out, struct buf *err)
{
	struct buf name = BUF_INIT;
	int r;

	buf_addf(&name, "%s-%s", cfg->template_name, kind);
	r = template_set_lookup(set, name.data, out, err);
	buf_release(&name);
	if (r < 0 || *out)
		return r;
	return template_set_get(set, kind, out, err);
}

int render_kind_mail(struct template_set *set, const struct config *cfg, const char *kind,
		     const struct value *view, const struct message_fields *f, struct buf *out,
		     struct buf *err)
{
	const struct template *tmpl;
	struct template_options topt = { 0, 0 };
	struct buf body = BUF_INIT;
	int ret = -1;

	if (render_template_kind(set, cfg, kind, &tmpl, err) == 0 &&
	    template_render(set, tmpl, view, &topt, &body, err) == 0)
		ret = message_build(out, f, body.data, body.len, err);
	buf_release(&body);
	return ret;
}

int render_env_open(struct render_env *env, const struct config *cfg, struct buf *err)
{
	struct buf cache = BUF_INIT;
	struct stat sb;

	memset(env, 0, sizeof(*env));
	env->cfg = cfg;
	if (repo_open(cfg->repo, &env->repo, err) < 0)
		return -1;
	env->templates = render_template_set(cfg);
	/* a render never creates the state: the cache is used once it exists */
	if (stat(cfg->state, &sb) == 0 && S_ISDIR(sb.st_mode))
		buf_addf(&cache, "%s/cache", cfg->state);
	env->route = route_new(cfg, env->repo, cache.len ? cache.data : NULL);
	buf_release(&cache);
	return 0;
}

static void exclusions_free(struct render_env *env)
{
	size_t i;

	for (i = 0; i < env->nr_excluded; i++) {
		free((char *)env->excluded[i].address);
		free((char *)env->excluded[i].who);
	}
	free(env->excluded);
	env->excluded = NULL;
	env->nr_excluded = 0;
}

void render_env_close(struct render_env *env)
{
	route_free(env->route);
	repo_free(env->repo);
	template_set_free(env->templates);
	exclusions_free(env);
	memset(env, 0, sizeof(*env));
}

int render_env_read_exclusions(struct render_env *env, struct state *st, struct buf *err)
{
	struct state_exclusions list = { 0 };
	size_t i;

	exclusions_free(env);
	if ((st ? state_exclusion_list(st, &list, err)
		: state_exclusion_read(env->cfg->state, &list, err)) < 0) {
		state_exclusions_release(&list);
		return -1;
	}
	env->excluded = xcalloc(list.nr ? list.nr : 1, sizeof(*env->excluded));
	for (i = 0; i < list.nr; i++) {
		env->excluded[i].address = list.v[i].address;
		env->excluded[i].who = list.v[i].who;
		env->excluded[i].date = list.v[i].date;
		list.v[i].address = list.v[i].who = NULL;
	}
	env->nr_excluded = list.nr;
	state_exclusions_release(&list);
	return 0;
}

void rendered_release(struct rendered *r)
{
	free(r->message_id);
	free(r->subject);
	free(r->identity);
	for (size_t i = 0; i < r->nr_references; i++)
		free(r->references[i]);
	free(r->references);
	recipients_release(&r->rcpt);
	route_result_release(&r->route);
	buf_release(&r->notes);
	buf_release(&r->mail);
	memset(r, 0, sizeof(*r));
	buf_init(&r->notes);
	buf_init(&r->mail);
}

void render_identity(struct buf *out, const struct report *r, const char *head_id)
{
	size_t i, j;

	/* "tree %s\ncommit %s\n", then "test %s %s %s" and " %s=%s" per
	 * parameter, without printf: this runs for every render */
	buf_adds(out, "tree ");
	buf_adds(out, r->tree);
	buf_adds(out, "\ncommit ");
	buf_adds(out, head_id);
	buf_addc(out, '\n');
	for (i = 0; i < r->nr_tests; i++) {
		const struct report_test *t = &r->tests[i];

		buf_adds(out, "test ");
		buf_adds(out, t->testcase);
		buf_addc(out, ' ');
		buf_adds(out, t->tbox_group);
		buf_addc(out, ' ');
		buf_adds(out, t->headline);
		for (j = 0; j < t->nr_params; j++) {
			buf_addc(out, ' ');
			buf_adds(out, t->params[j].key);
			buf_addc(out, '=');
			buf_adds(out, t->params[j].value);
		}
		buf_addc(out, '\n');
	}
}

/* A test's kind: its own, the report's (first test only), or from the
 * headline's change and the metric's polarity. */
static int resolve_kind(const struct config *cfg, const struct report *r, size_t i,
			enum report_kind *out, struct buf *err)
{
	const struct report_test *t = &r->tests[i];
	const struct report_metric *hl;
	double change;
	int polarity;

	*out = t->kind;
	if (*out == REPORT_KIND_UNSET && i == 0)
		*out = r->kind;
	if (*out != REPORT_KIND_UNSET)
		return 0;
	/* an "error" test result has no rows: fix tests are taken for
	 * regression reports only */
	if (!report_has_numbers(r)) {
		*out = REPORT_KIND_REGRESSION;
		return 0;
	}
	hl = &t->metrics[t->headline_index];
	polarity = config_polarity(cfg, hl->name);
	/* both ways to fix it, and why a table metric is unknown */
	if (!polarity)
		return err_set(err, "%s: tests[%zu]: no \"kind\" given and no polarity known for '%s'%s: "
			       "add \"kind\" to the JSON or a polarity.higher/lower pattern to the configuration",
			       r->name, i, hl->name,
			       cfg->polarity_builtin ? "" : " (polarity.builtin is false)");
	change = compare_metric_change(hl);
	if ((polarity > 0) == (change >= 0))
		*out = REPORT_KIND_IMPROVEMENT;
	else
		*out = REPORT_KIND_REGRESSION;
	return 0;
}

/* A follow-up's References: the report's own, then the report. */
static void followup_references(struct rendered *out, const struct render_parent *p)
{
	size_t i;

	out->references = xcalloc(p->nr_references + 1, sizeof(*out->references));
	for (i = 0; i < p->nr_references; i++)
		out->references[out->nr_references++] = xstrdup(p->references[i]);
	out->references[out->nr_references++] = xstrdup(p->message_id);
}

/* Everything render_report() looks up before it can build the view. */
struct facts {
	struct commit_info head;
	struct commit_info *bases;
	enum report_kind *kinds;
	size_t nr;
	struct commit_info *extras;	/* a test result's extra commits */
	size_t nr_extras;
};

static void facts_release(struct facts *f)
{
	size_t i;

	commit_info_release(&f->head);
	for (i = 0; i < f->nr; i++)
		commit_info_release(&f->bases[i]);
	free(f->bases);
	free(f->kinds);
	for (i = 0; i < f->nr_extras; i++)
		commit_info_release(&f->extras[i]);
	free(f->extras);
}

static int facts_gather(struct render_env *env, const struct report *r, struct facts *f,
			struct buf *err)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->bases = xcalloc(r->nr_tests, sizeof(*f->bases));
	f->kinds = xcalloc(r->nr_tests, sizeof(*f->kinds));
	if (repo_lookup(env->repo, r->commit, &f->head, err) < 0)
		return err_prefix(err, "%s: commit: ", r->name);
	f->extras = r->nr_extra ? xcalloc(r->nr_extra, sizeof(*f->extras)) : NULL;
	for (i = 0; i < r->nr_extra; i++) {
		if (repo_lookup(env->repo, r->extra[i].commit, &f->extras[i], err) < 0)
			return err_prefix(err, "%s: extra[%zu].commit: ", r->name, i);
		f->nr_extras = i + 1;
	}
	for (i = 0; i < r->nr_tests; i++) {
		const char *base = report_test_base(r, &r->tests[i]);
		size_t j;

		f->nr = i + 1;
		/* tests mostly share a base: look each one up once */
		for (j = 0; j < i; j++)
			if (!strcmp(base, report_test_base(r, &r->tests[j])))
				break;
		if (j < i)
			commit_info_copy(&f->bases[i], &f->bases[j]);
		else if (repo_lookup(env->repo, base, &f->bases[i], err) < 0)
			return r->tests[i].base ? err_prefix(err, "%s: tests[%zu].base: ", r->name, i)
						: err_prefix(err, "%s: base: ", r->name);
		/* a result answers a regression report (requests are taken for
		 * those only); an error result has no numbers to say it */
		if (r->request)
			f->kinds[i] = REPORT_KIND_REGRESSION;
		else if (resolve_kind(env->cfg, r, i, &f->kinds[i], err) < 0)
			return -1;
	}
	return 0;
}

/* The MAINTAINERS routing of head and, with it, the recipients. */
static int route_and_recipients(struct render_env *env, const struct report *r, const char *tree,
				const struct commit_info *head, struct route_result *route,
				struct recipients *rcpt, struct buf *notes, struct buf *err)
{
	struct recipients_input in;

	if (route_commit(env->route, head->id, route, err) < 0)
		return err_prefix(err, "%s: ", r->name);
	if (route->on && route->file_notes && *route->file_notes)
		buf_adds(notes, route->file_notes);
	else if (!route->on && route->blob[0])
		buf_addf(notes, "%s: not routed: %s\n", r->name, route->off);
	memset(&in, 0, sizeof(in));
	in.cfg = env->cfg;
	in.tree_name = tree;
	in.head = head;
	in.route = route->on ? &route->sel : NULL;
	in.excluded = env->excluded;
	in.nr_excluded = env->nr_excluded;
	if (recipients_build(&in, rcpt, notes, err) < 0)
		return err_prefix(err, "%s: ", r->name);
	return 0;
}

int render_routing(struct render_env *env, const struct report *r, struct render_routing *out,
		   struct buf *err)
{
	struct buf tree = BUF_INIT;

	memset(out, 0, sizeof(*out));
	buf_init(&out->notes);
	report_tree_name(r, &tree);
	out->tree = buf_detach(&tree, NULL);
	if (repo_lookup(env->repo, r->commit, &out->head, err) < 0)
		return err_prefix(err, "%s: commit: ", r->name);
	return route_and_recipients(env, r, out->tree, &out->head, &out->route, &out->rcpt,
				    &out->notes, err);
}

void render_routing_release(struct render_routing *rr)
{
	free(rr->tree);
	commit_info_release(&rr->head);
	route_result_release(&rr->route);
	recipients_release(&rr->rcpt);
	buf_release(&rr->notes);
	memset(rr, 0, sizeof(*rr));
	buf_init(&rr->notes);
}

/* "Name <address>" as people read it (UTF-8, never RFC 2047), or the
 * address alone. */
static void add_person(struct buf *out, const struct address *a)
{
	if (*a->name)
		buf_addf(out, "%s <%s>", a->name, a->email);
	else
		buf_adds(out, a->email);
}

void render_routing_text(struct buf *out, const struct recipients *rcpt,
			 const struct route_result *route)
{
	size_t i;

	buf_adds(out, "To: ");
	add_person(out, &rcpt->to);
	buf_adds(out, "\n    because: ");
	recipient_why_format(out, &rcpt->to_why);
	buf_addc(out, '\n');
	for (i = 0; i < rcpt->nr_cc; i++) {
		buf_adds(out, "Cc: ");
		add_person(out, &rcpt->cc[i]);
		buf_adds(out, "\n    because: ");
		recipient_why_format(out, &rcpt->cc_why[i]);
		buf_addc(out, '\n');
	}
	for (i = 0; i < rcpt->nr_dropped; i++) {
		buf_adds(out, "Not mailed: ");
		add_person(out, &rcpt->dropped[i].addr);
		buf_adds(out, "\n    because: ");
		recipient_why_format(out, &rcpt->dropped[i].why);
		buf_addf(out, "\n    dropped: %s\n", rcpt->dropped[i].because);
	}
	if (!route->on) {
		buf_addf(out, "Routing: off: %s\n", route->off);
		return;
	}
	buf_addf(out, "Routing: %s blob %.12s\n", route->file, route->blob);
	for (i = 0; i < route->sel.nr_hits; i++) {
		const struct maintainers_hit *h = &route->sel.hits[i];

		buf_addf(out, "    %s: %c: %s (%s:%u)", h->section->name, h->tag, h->pattern, route->file,
			 h->line);
		if (h->file)
			buf_addf(out, " matches %s", h->file);
		else
			buf_adds(out, " matches the patch");
		buf_addc(out, '\n');
	}
}

/* A result's reply goes To the requester and Cc the report's recipients
 * (the requester once). */
static int answer_recipients(struct recipients *rcpt, const struct result_request *q,
			     struct buf *err)
{
	struct address to;
	struct recipient_why why;
	size_t i, n = 0;
	struct address *cc = xcalloc(rcpt->nr_cc + 1, sizeof(*cc));
	struct recipient_why *cc_why = xcalloc(rcpt->nr_cc + 1, sizeof(*cc_why));

	memset(&to, 0, sizeof(to));
	if (address_parse(q->requester_email, &to, err) < 0) {
		free(cc);
		free(cc_why);
		return err_prefix(err, "request %lld: the requester cannot be answered: ",
				  (long long)q->number);
	}
	free(to.name);
	to.name = xstrdup(q->requester_name);
	memset(&why, 0, sizeof(why));
	why.reasons = xcalloc(1, sizeof(*why.reasons));
	why.reasons[why.nr++] = xstrdup("asked for the test");
	for (i = 0; i <= rcpt->nr_cc; i++) {
		struct address *a = i ? &rcpt->cc[i - 1] : &rcpt->to;
		struct recipient_why *w = i ? &rcpt->cc_why[i - 1] : &rcpt->to_why;

		if (!strcasecmp(a->email, to.email)) {
			address_release(a);
			recipient_why_release(w);
			continue;
		}
		cc[n] = *a;
		cc_why[n++] = *w;
	}
	free(rcpt->cc);
	free(rcpt->cc_why);
	rcpt->to = to;
	rcpt->to_why = why;
	rcpt->cc = cc;
	rcpt->cc_why = cc_why;
	rcpt->nr_cc = n;
	return 0;
}

/* The result's subject, References and identity. */
static void answer_thread(struct rendered *out, const struct result_request *q,
			  struct buf *subject, struct buf *id, int64_t created)
{
	char **refs = NULL;
	size_t nr = 0, i;

	if (strncasecmp(q->subject, "Re:", 3))
		buf_adds(subject, "Re: ");
	if (*q->subject)
		buf_adds(subject, q->subject);
	else
		buf_addf(subject, "test request %lld", (long long)q->number);
	message_refs_split(q->references, &refs, &nr);
	out->references = xcalloc(nr + 2, sizeof(*out->references));
	for (i = 0; i < nr; i++)
		out->references[out->nr_references++] = refs[i];
	free(refs);
	out->references[out->nr_references++] = xstrdup(q->message_id);
	if (q->first_result)
		out->references[out->nr_references++] = xstrdup(q->first_result);
	buf_addf(id, "result of request %lld at %lld\n", (long long)q->number, (long long)created);
}

/* The commits a result names, looked up: 0 or -1. */
static int answer_commits(struct render_env *env, const struct report *r, struct facts *f,
			  struct commit_info *upon, struct commit_info *tested,
			  struct result_commits *c, struct buf *err)
{
	c->base = &f->bases[0];
	c->head = &f->head;
	if (repo_lookup(env->repo, r->extra[r->nr_extra - 1].commit, tested, err) < 0)
		return err_prefix(err, "%s: extra[%zu]: ", r->name, r->nr_extra - 1);
	c->tested = tested;
	c->upon = &f->head;
	if (r->nr_extra > 1) {
		if (repo_lookup(env->repo, r->extra[r->nr_extra - 2].commit, upon, err) < 0)
			return err_prefix(err, "%s: extra[%zu]: ", r->name, r->nr_extra - 2);
		c->upon = upon;
	}
	return 0;
}

/* The template of a result: NAME-test-result, else test-result. */
static int answer_template(struct render_env *env, const struct render_request *req,
			   const struct template **out, struct buf *err)
{
	struct buf name = BUF_INIT;
	int r;

	buf_addf(&name, "%s-test-result", req->template_name ? req->template_name
							     : env->cfg->template_name);
	r = template_set_lookup(env->templates, name.data, out, err);
	buf_release(&name);
	if (r < 0 || *out)
		return r;
	return template_set_get(env->templates, "test-result", out, err);
}

int render_report(struct render_env *env, const struct render_request *req,
		  struct rendered *out, struct buf *err)
{
	const struct config *cfg = env->cfg;
	const struct report *r = req->report;
	const struct template *tmpl;
	struct template_options topt = { 0, 0 };
	struct facts f;
	struct address from;
	struct buf stamp = BUF_INIT, id = BUF_INIT, subject = BUF_INIT, body = BUF_INIT;
	struct buf tree = BUF_INIT, percent = BUF_INIT;
	struct value *view = NULL;
	struct view_facts vf;
	struct message_fields mf;
	const struct config_tree *ct;
	const char *repo_url;
	const struct result_request *q = req->answer;
	struct commit_info upon, tested;
	struct result_commits rc;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	buf_init(&out->notes);
	buf_init(&out->mail);
	memset(&from, 0, sizeof(from));
	memset(&upon, 0, sizeof(upon));
	memset(&tested, 0, sizeof(tested));
	if (facts_gather(env, r, &f, err) < 0)
		goto done;
	if (address_parse(cfg->from, &from, err) < 0) {
		err_prefix(err, "perfbot.from: ");
		goto done;
	}
	report_tree_name(r, &tree);
	ct = config_tree(cfg, tree.data);
	repo_url = r->repo_url ? r->repo_url : ct ? ct->url : NULL;
	if (!repo_url) {
		err_set(err, "%s: no repo_url in the JSON and no tree.%s.url in the configuration", r->name,
			tree.data);
		goto done;
	}

	if (r->request && !q) {
		err_set(err, "%s: a test result (\"request\": %ld) is rendered with its request", r->name,
			r->request);
		goto done;
	}
	if (q && answer_commits(env, r, &f, &upon, &tested, &rc, err) < 0)
		goto done;
	date_format_stamp(&stamp, req->created, cfg->timezone);
	render_identity(&id, r, f.head.id);
	if (q)
		answer_thread(out, q, &subject, &id, req->created);
	else if (req->parent)
		buf_addf(&id, "followup of %s at %lld\n", req->parent->message_id,
			 (long long)req->created);
	else if (req->after)
		buf_addf(&id, "after %s\n", req->after);
	out->identity = xstrdup(id.data);
	if (req->message_id) {
		if (message_check_id(req->message_id, err) < 0)
			goto done;
		out->message_id = xstrdup(req->message_id);
	} else {
		out->message_id = render_mint_id(cfg, stamp.data, id.data, from.email);
	}

	if (report_has_numbers(r))
		compare_format_percent(&percent, compare_metric_change(&r->tests[0].metrics[r->tests[0].headline_index]));
	if (q) {
		out->verdict = result_verdict(cfg, r, NULL);
	} else if (req->parent) {
		if (strncmp(req->parent->subject, "Re: ", 4))
			buf_adds(&subject, "Re: ");
		buf_adds(&subject, req->parent->subject);
		followup_references(out, req->parent);
	} else {
		message_subject(&subject, r->tree, f.head.subject, f.head.id, r->tests[0].headline,
				percent.data, report_kind_name(f.kinds[0]));
	}
	out->subject = xstrdup(subject.data);
	out->regression = f.kinds[0] == REPORT_KIND_REGRESSION;
	if (route_and_recipients(env, r, tree.data, &f.head, &out->route, &out->rcpt, &out->notes,
				 err) < 0 ||
	    (q && answer_recipients(&out->rcpt, q, err) < 0))
		goto done;

	vf.cfg = cfg;
	vf.report = r;
	vf.head = &f.head;
	vf.bases = f.bases;
	vf.extras = f.extras;
	vf.kinds = f.kinds;
	vf.message_id = out->message_id;
	vf.date_stamp = stamp.data;
	vf.repo_url = repo_url;
	vf.subject = out->subject;
	vf.parent_message_id = req->parent ? req->parent->message_id : NULL;
	if (view_build(&vf, &view, err) < 0) {
		err_prefix(err, "%s: ", r->name);
		goto done;
	}
	if (q)
		value_object_add(view, "result", result_view(cfg, r, q, &rc));
	buf_grow(&body, 48 * 1024);	/* most reports fit: grown once (below 64 KiB, whose free makes glibc consolidate) */
	if ((q ? answer_template(env, req, &tmpl, err) : render_template(env, req, &tmpl, err)) < 0 ||
	    template_render(env->templates, tmpl, view, &topt, &body, err) < 0)
		goto done;

	memset(&mf, 0, sizeof(mf));
	mf.from = &from;
	mf.to = &out->rcpt.to;
	mf.nr_to = 1;
	mf.cc = out->rcpt.cc;
	mf.nr_cc = out->rcpt.nr_cc;
	mf.subject = out->subject;
	mf.date = req->created;
	mf.zone = cfg->timezone;
	mf.message_id = out->message_id;
	if (q) {
		mf.in_reply_to = q->first_result ? q->first_result : q->message_id;
		mf.references = (const char *const *)out->references;
		mf.nr_references = out->nr_references;
	} else if (req->parent) {
		mf.in_reply_to = req->parent->message_id;
		mf.references = (const char *const *)out->references;
		mf.nr_references = out->nr_references;
	}
	buf_grow(&out->mail, body.len + 4096);
	if (message_build(&out->mail, &mf, body.data, body.len, err) < 0) {
		err_prefix(err, "%s: ", r->name);
		goto done;
	}
	ret = 0;
done:
	facts_release(&f);
	commit_info_release(&upon);
	commit_info_release(&tested);
	address_release(&from);
	value_free(view);
	buf_release(&stamp);
	buf_release(&id);
	buf_release(&subject);
	buf_release(&body);
	buf_release(&tree);
	buf_release(&percent);
	return ret;
}
