#include <stdlib.h>
#include <string.h>

#include "date.h"
#include "digest.h"
#include "message.h"
#include "render.h"
#include "view.h"
#include "watch.h"
#include "xalloc.h"
#include "banned.h"

static const struct state_digest_entry *entry_of(const struct state_digest_entry *v, size_t nr,
						 int64_t id)
{
	size_t lo = 0, hi = nr;

	/* state_digest_entries() returns them in report order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].report_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && v[lo].report_id == id ? &v[lo] : NULL;
}

static int open_cmp(const void *a, const void *b)
{
	const struct state_tracked *x = *(const struct state_tracked *const *)a;
	const struct state_tracked *y = *(const struct state_tracked *const *)b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void digest_select(const struct state_tracked_list *reports, int has_prev,
		   const struct state_digest_entry *prev, size_t nr_prev, struct digest *out)
{
	size_t n = reports->nr ? reports->nr : 1, i;

	memset(out, 0, sizeof(*out));
	out->open = xcalloc(n, sizeof(*out->open));
	out->fixed = xcalloc(n, sizeof(*out->fixed));
	out->closed = xcalloc(n, sizeof(*out->closed));
	out->entries = xcalloc(n, sizeof(*out->entries));
	for (i = 0; i < reports->nr; i++) {
		const struct state_tracked *t = &reports->v[i];
		const struct state_digest_entry *e = has_prev ? entry_of(prev, nr_prev, t->id) : NULL;
		const char *fix = t->verdict == STATE_VERDICT_FIXED && t->has_fix ? t->fix.commit : NULL;

		if (t->verdict != STATE_VERDICT_OPEN) {
			struct state_digest_entry *mine = &out->entries[out->nr_entries++];

			mine->report_id = t->id;
			mine->verdict = t->verdict;
			mine->fix_commit = fix ? xstrdup(fix) : NULL;
		}
		if (t->status != STATE_SENT)
			continue;
		switch (t->verdict) {
		case STATE_VERDICT_OPEN:
			out->open[out->nr_open++] = t;
			break;
		case STATE_VERDICT_FIXED:
			if (!e || e->verdict != STATE_VERDICT_FIXED ||
			    strcmp(e->fix_commit ? e->fix_commit : "", fix ? fix : ""))
				out->fixed[out->nr_fixed++] = t;
			break;
		default:
			if (!e || e->verdict != t->verdict)
				out->closed[out->nr_closed++] = t;
			break;
		}
	}
	xqsort(out->open, out->nr_open, sizeof(*out->open), open_cmp);
}

void digest_release(struct digest *d)
{
	free(d->open);
	free(d->fixed);
	free(d->closed);
	state_digest_entries_free(d->entries, d->nr_entries);
	memset(d, 0, sizeof(*d));
}

int digest_empty(const struct digest *d)
{
	return !d->nr_open && !d->nr_fixed && !d->nr_closed;
}

void digest_mail_release(struct digest_mail *m)
{
	free(m->message_id);
	free(m->subject);
	free(m->identity);
	free(m->refs);
	free(m->from_name);
	free(m->from_email);
	free(m->rcpt);
	buf_release(&m->mail);
	memset(m, 0, sizeof(*m));
}

/* ---- the view -------------------------------------------------------- */

/* "YYYY-MM-DD" of t in the zone; nothing for 0 (unknown). */
static void format_day(struct buf *out, int64_t t, int zone)
{
	struct date_civil c;

	if (!t)
		return;
	date_to_civil(t, zone, &c);
	buf_addf(out, "%04lld-%02d-%02d", (long long)c.year, c.month, c.day);
}

static void add_day(struct value *v, const char *key, int64_t t, int zone)
{
	struct buf b = BUF_INIT;

	format_day(&b, t, zone);
	value_object_add_string(v, key, b.data);
	buf_release(&b);
}

static void add_count(struct value *v, const char *key, int64_t n, const char *one, const char *many)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%lld %s", (long long)n, n == 1 ? one : many);
	value_object_add_string(v, key, b.data);
	buf_release(&b);
}

/* What every listed report has: id, subject, message_id, link, tree. */
static struct value *report_view(const struct config *cfg, const struct state_tracked *t)
{
	struct value *v = value_new_object();
	struct buf b = BUF_INIT;

	value_object_add(v, "id", value_new_integer(t->id));
	value_object_add_string(v, "subject", t->subject);
	value_object_add_string(v, "message_id", t->message_id);
	buf_addf(&b, "%s%s", cfg->closes_url, t->message_id);
	value_object_add_string(v, "link", b.data);
	value_object_add_string(v, "tree", t->tree ? t->tree : "");
	/* its page on the web site (perfbot-site(1)), which has the reports
	 * a server took */
	buf_reset(&b);
	if (cfg->site_url && t->sent)
		buf_addf(&b, "%sreport/%lld.html", cfg->site_url, (long long)t->id);
	value_object_add(v, "page", b.len ? value_new_string(b.data) : value_new_bool(0));
	buf_release(&b);
	return v;
}

struct value *digest_fix_commit(const struct config *cfg, const char *commit, const char *subject,
				const char *ref)
{
	struct value *v = value_new_object();
	struct buf b = BUF_INIT;

	value_object_add_string(v, "commit", commit);
	buf_addf(&b, "%.12s", commit);
	value_object_add_string(v, "short", b.data);
	value_object_add_string(v, "subject", subject ? subject : "");
	value_object_add_string(v, "ref", ref ? ref : "");
	buf_reset(&b);
	if (ref && *ref)
		watch_ref_short(&b, cfg, ref);
	value_object_add_string(v, "tree", b.data);
	buf_reset(&b);
	if (ref && *ref)
		buf_addf(&b, "on %s", value_object_get(v, "tree")->str);
	else
		buf_adds(&b, "on no watched tree yet");
	value_object_add_string(v, "on", b.data);
	buf_release(&b);
	return v;
}

struct value *digest_request(const struct state_request *q)
{
	struct value *o = value_new_object();
	struct buf b = BUF_INIT;

	value_object_add(o, "number", value_new_integer(q->id));
	value_object_add_string(o, "state", state_request_state_name(q->state));
	if (*q->requester_name)
		buf_addf(&b, "%s <%s>", q->requester_name, q->requester_email);
	else
		buf_adds(&b, q->requester_email);
	value_object_add_string(o, "requester", b.data);
	buf_reset(&b);
	if (q->what == STATE_REQUEST_GIT)
		buf_addf(&b, "%s %s", q->url ? q->url : "", q->branch ? q->branch : "");
	else if (q->commit_id)
		buf_addf(&b, "%.12s", q->commit_id);
	else
		buf_adds(&b, *q->args ? q->args : "the patch in the mail");
	value_object_add_string(o, "what", b.data);
	value_object_add_string(o, "why", q->why ? q->why : "");
	value_object_add_bool(o, "has_why", q->why != NULL);
	buf_release(&b);
	return o;
}

static struct value *open_view(const struct digest_request *req, const struct state_tracked *t)
{
	struct value *v = report_view(req->cfg, t), *list;
	int64_t age = req->created > t->created ? (req->created - t->created) / 86400 : 0;
	size_t i;

	value_object_add(v, "age_days", value_new_integer(age));
	add_count(v, "age", age, "day", "days");
	value_object_add(v, "nr_replies", value_new_integer((int64_t)t->replies));
	add_count(v, "replies", (int64_t)t->replies, "reply", "replies");
	if (t->last_activity)
		add_day(v, "last_activity", t->last_activity, req->cfg->timezone);
	else
		value_object_add_bool(v, "last_activity", 0);
	list = value_object_add(v, "possible_fixes", value_new_array());
	for (i = 0; i < t->nr_possible; i++)
		value_array_push(list, digest_fix_commit(req->cfg, t->possible[i].commit, t->possible[i].subject,
						   t->possible[i].ref));
	value_object_add_bool(v, "has_possible_fixes", t->nr_possible > 0);
	list = value_object_add(v, "posted_fixes", value_new_array());
	for (i = 0; i < t->nr_posted; i++) {
		const struct state_posted_fix *p = &t->posted[i];
		struct value *o;
		struct buf b = BUF_INIT;

		if (!p->latest)
			continue;	/* superseded by a later version */
		o = value_array_push(list, value_new_object());
		value_object_add_string(o, "subject", p->subject);
		value_object_add(o, "version", value_new_integer((int64_t)p->version));
		add_day(o, "date", p->date, req->cfg->timezone);
		value_object_add_string(o, "message_id", p->message_id);
		buf_addf(&b, "%s%s", req->cfg->closes_url, p->message_id);
		value_object_add_string(o, "link", b.data);
		value_object_add_string(o, "evidence", fix_kind_name(p->kind));
		buf_release(&b);
	}
	value_object_add_bool(v, "has_posted_fixes", list->nr > 0);
	list = value_object_add(v, "requests", value_new_array());
	for (i = 0; req->requests && i < req->requests->nr; i++) {
		const struct state_request *q = &req->requests->v[i];
		struct value *o;

		if (q->report_id != t->id)
			continue;
		o = value_array_push(list, digest_request(q));
		value_object_add_string(o, "verdict", q->verdict ? q->verdict : "");
		value_object_add_bool(o, "has_verdict", q->verdict != NULL);
	}
	return v;
}

static struct value *fixed_view(const struct digest_request *req, const struct state_tracked *t)
{
	struct value *v = report_view(req->cfg, t), *fix;

	if (t->has_fix) {
		fix = value_object_add(v, "fix", digest_fix_commit(req->cfg, t->fix.commit, t->fix.subject,
							     t->fix.ref));
		value_object_add_string(fix, "evidence", fix_kind_name(t->fix.kind));
		add_day(fix, "date", t->fix.date, 0);
	} else {
		/* fixed by a person's word alone, before perfbot kept fixes */
		value_object_add_bool(v, "fix", 0);
	}
	return v;
}

static struct value *closed_view(const struct digest_request *req, const struct state_tracked *t)
{
	struct value *v = report_view(req->cfg, t);

	value_object_add_string(v, "state", state_verdict_name(t->verdict));
	return v;
}

struct value *digest_view_new(const struct digest_request *req, const char *message_id,
			      const char *subject)
{
	const struct digest *d = req->d;
	struct value *v = value_new_object(), *list, *prev;
	size_t i;

	value_object_add_string(v, "message_id", message_id);
	value_object_add_string(v, "subject", subject);
	add_day(v, "date", req->created, req->cfg->timezone);
	view_add_lab(v, req->cfg);
	if (req->previous) {
		prev = value_object_add(v, "previous", value_new_object());
		value_object_add_string(prev, "message_id", req->previous->message_id);
		add_day(prev, "date", req->previous->created, req->cfg->timezone);
	} else {
		value_object_add_bool(v, "previous", 0);
	}
	value_object_add(v, "nr_open", value_new_integer((int64_t)d->nr_open));
	add_count(v, "open_count", (int64_t)d->nr_open, "report", "reports");
	value_object_add(v, "nr_fixed", value_new_integer((int64_t)d->nr_fixed));
	value_object_add(v, "nr_closed", value_new_integer((int64_t)d->nr_closed));
	value_object_add_bool(v, "has_open", d->nr_open > 0);
	value_object_add_bool(v, "has_fixed", d->nr_fixed > 0);
	value_object_add_bool(v, "has_closed", d->nr_closed > 0);
	value_object_add_bool(v, "empty", digest_empty(d));
	list = value_object_add(v, "open", value_new_array());
	for (i = 0; i < d->nr_open; i++)
		value_array_push(list, open_view(req, d->open[i]));
	list = value_object_add(v, "fixed", value_new_array());
	for (i = 0; i < d->nr_fixed; i++)
		value_array_push(list, fixed_view(req, d->fixed[i]));
	list = value_object_add(v, "closed", value_new_array());
	for (i = 0; i < d->nr_closed; i++)
		value_array_push(list, closed_view(req, d->closed[i]));
	return v;
}

/* ---- the mail -------------------------------------------------------- */

int digest_render(const struct digest_request *req, struct digest_mail *out, struct buf *err)
{
	const struct config *cfg = req->cfg;
	const struct digest *d = req->d;
	struct address from;
	struct message_fields mf;
	struct value *view = NULL;
	struct buf b = BUF_INIT, day = BUF_INIT;
	char **refs = NULL;
	size_t nr_refs = 0, i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	buf_init(&out->mail);
	memset(&from, 0, sizeof(from));
	if (!req->nr_to) {
		err_set(err, "a digest needs a recipient");
		goto done;
	}
	if (address_parse(cfg->from, &from, err) < 0) {
		err_prefix(err, "perfbot.from: ");
		goto done;
	}
	out->from_name = xstrdup(from.name);
	out->from_email = xstrdup(from.email);
	for (i = 0; i < req->nr_to; i++) {
		if (address_check(&req->to[i], err) < 0)
			goto done;
		buf_addf(&b, "%s%s", i ? "\n" : "", req->to[i].email);
	}
	out->rcpt = buf_detach(&b, NULL);

	buf_addf(&b, "digest\nat %lld\nafter %s\n", (long long)req->created,
		 req->previous ? req->previous->message_id : "none");
	out->identity = buf_detach(&b, NULL);
	date_format_stamp(&b, req->created, cfg->timezone);
	out->message_id = render_mint_id(cfg, b.data, out->identity, from.email);
	buf_reset(&b);

	format_day(&day, req->created, cfg->timezone);
	buf_addf(&b, "%s digest %s: %zu open, %zu fixed, %zu closed", *from.name ? from.name : from.email,
		 day.data, d->nr_open, d->nr_fixed, d->nr_closed);
	out->subject = buf_detach(&b, NULL);

	if (req->previous) {
		if (req->previous->refs && *req->previous->refs)
			buf_addf(&b, "%s ", req->previous->refs);
		buf_adds(&b, req->previous->message_id);
		out->refs = buf_detach(&b, NULL);
		message_refs_split(out->refs, &refs, &nr_refs);
	}

	view = digest_view_new(req, out->message_id, out->subject);
	memset(&mf, 0, sizeof(mf));
	mf.from = &from;
	mf.to = req->to;
	mf.nr_to = req->nr_to;
	mf.subject = out->subject;
	mf.date = req->created;
	mf.zone = cfg->timezone;
	mf.message_id = out->message_id;
	if (req->previous) {
		mf.in_reply_to = req->previous->message_id;
		mf.references = (const char *const *)refs;
		mf.nr_references = nr_refs;
	}
	if (render_kind_mail(req->templates, cfg, "digest", view, &mf, &out->mail, err) < 0)
		goto done;
	ret = 0;
done:
	if (ret < 0) {
		digest_mail_release(out);
		buf_init(&out->mail);
	}
	address_release(&from);
	message_refs_free(refs, nr_refs);
	value_free(view);
	buf_release(&b);
	buf_release(&day);
	return ret;
}

void digest_row(const struct digest_mail *m, const struct digest_request *req,
		struct state_report *row)
{
	memset(row, 0, sizeof(*row));
	row->message_id = m->message_id;
	row->kind = STATE_KIND_DIGEST;
	row->parent_id = req->previous ? req->previous->id : 0;
	row->thread_key = "digest";
	row->identity = m->identity;
	row->subject = m->subject;
	row->from_name = m->from_name;
	row->from_email = m->from_email;
	row->in_reply_to = req->previous ? req->previous->message_id : NULL;
	row->refs = m->refs;
	row->env_from = m->from_email;
	row->env_rcpt = m->rcpt;
	row->to_addrs = m->rcpt;
	row->cc_addrs = "";
	row->mail = m->mail.data;
	row->mail_len = m->mail.len;
	row->created = req->created;
}
