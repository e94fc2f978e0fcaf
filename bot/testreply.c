/*
 * The answer to a test request mail (testreply.h), rendered as notice.c
 * renders a fix notice.
 */
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "date.h"
#include "message.h"
#include "render.h"
#include "testreply.h"
#include "view.h"
#include "xalloc.h"
#include "banned.h"

static struct value *view_new(const struct testreply_request *req, const struct testreply *t)
{
	const struct state_request *r = req->request;
	const struct mail *m = req->mail;
	struct value *v = value_new_object(), *o;
	struct buf b = BUF_INIT;

	value_object_add_string(v, "message_id", t->message_id);
	value_object_add_string(v, "subject", t->subject);
	view_add_lab(v, req->cfg);
	o = value_object_add(v, "request", value_new_object());
	value_object_add(o, "number", value_new_integer(r->id));
	value_object_add_string(o, "message_id", req->mail_id);
	value_object_add_string(o, "subject", m->subject ? m->subject : "");
	value_object_add_string(o, "args", r->args ? r->args : "");
	value_object_add_bool(o, "has_args", r->args && *r->args);
	value_object_add_string(o, "what", state_request_what_name(r->what));
	if (*m->from->name)
		buf_addf(&b, "%s <%s>", m->from->name, m->from->email);
	else
		buf_adds(&b, m->from->email);
	value_object_add_string(o, "requester", b.data);
	value_object_add_bool(v, "refused", req->refused);
	value_object_add_string(v, "why", req->why ? req->why : "");
	value_object_add_string(v, "commit", r->commit_id ? r->commit_id : "");
	buf_reset(&b);
	if (r->commit_id)
		buf_add(&b, r->commit_id, strlen(r->commit_id) < 12 ? strlen(r->commit_id) : 12);
	value_object_add_string(v, "short", b.data);
	value_object_add_string(v, "ref", r->ref ? r->ref : "");
	value_object_add_bool(v, "has_commit", r->commit_id != NULL);
	value_object_add_bool(v, "has_ref", r->ref != NULL);
	o = value_object_add(v, "report", value_new_object());
	value_object_add_string(o, "message_id", req->report->message_id);
	value_object_add_string(o, "subject", req->report->subject);
	buf_release(&b);
	return v;
}

int testreply_render(const struct testreply_request *req, struct testreply *out,
		     struct buf *err)
{
	const struct config *cfg = req->cfg;
	const struct mail *m = req->mail;
	struct address from, to;
	struct buf b = BUF_INIT;
	struct message_fields mf;
	struct value *view = NULL;
	char **refs = NULL;
	size_t nr_refs = 0, i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	buf_init(&out->mail);
	memset(&from, 0, sizeof(from));
	memset(&to, 0, sizeof(to));
	if (address_parse(cfg->from, &from, err) < 0) {
		err_prefix(err, "perfbot.from: ");
		goto done;
	}
	if (!m->from || address_parse(m->from->email, &to, err) < 0) {
		err_prefix(err, "the requester cannot be answered: ");
		goto done;
	}
	/* the requester's own name, as they wrote it */
	free(to.name);
	to.name = xstrdup(m->from->name);
	out->from_name = xstrdup(from.name);
	out->from_email = xstrdup(from.email);
	out->to = xstrdup(to.email);
	buf_addf(&b, "test-%s\nrequest mail %s\n", req->refused ? "refused" : "accepted", req->mail_id);
	out->identity = buf_detach(&b, NULL);
	date_format_stamp(&b, req->created, cfg->timezone);
	out->message_id = render_mint_id(cfg, b.data, out->identity, from.email);
	buf_reset(&b);
	if (!m->subject || strncasecmp(m->subject, "Re:", 3))
		buf_adds(&b, "Re: ");
	buf_adds(&b, m->subject ? m->subject : req->report->subject);
	out->subject = buf_detach(&b, NULL);
	/* References: the request mail's chain, then the request mail */
	for (i = 0; i < m->nr_references; i++)
		buf_addf(&b, "%s ", m->references[i]);
	if (!m->nr_references && m->nr_in_reply_to)
		buf_addf(&b, "%s ", m->in_reply_to[0]);
	buf_adds(&b, req->mail_id);
	out->refs = buf_detach(&b, NULL);
	message_refs_split(out->refs, &refs, &nr_refs);

	view = view_new(req, out);
	memset(&mf, 0, sizeof(mf));
	mf.from = &from;
	mf.to = &to;
	mf.nr_to = 1;
	mf.subject = out->subject;
	mf.date = req->created;
	mf.zone = cfg->timezone;
	mf.message_id = out->message_id;
	mf.in_reply_to = req->mail_id;
	mf.references = (const char *const *)refs;
	mf.nr_references = nr_refs;
	if (render_kind_mail(req->templates, cfg, req->refused ? "test-refused" : "test-accepted",
			     view, &mf, &out->mail, err) < 0)
		goto done;
	ret = 0;
done:
	address_release(&from);
	address_release(&to);
	message_refs_free(refs, nr_refs);
	value_free(view);
	buf_release(&b);
	return ret;
}

void testreply_release(struct testreply *t)
{
	free(t->message_id);
	free(t->subject);
	free(t->identity);
	free(t->refs);
	free(t->from_name);
	free(t->from_email);
	free(t->to);
	buf_release(&t->mail);
	memset(t, 0, sizeof(*t));
}

void testreply_row(const struct testreply *t, const struct testreply_request *req,
		   struct state_report *row)
{
	memset(row, 0, sizeof(*row));
	row->message_id = t->message_id;
	row->kind = STATE_KIND_NOTICE;
	row->parent_id = req->report->id;
	row->thread_key = t->identity;
	row->identity = t->identity;
	row->subject = t->subject;
	row->from_name = t->from_name;
	row->from_email = t->from_email;
	row->in_reply_to = (char *)req->mail_id;
	row->refs = t->refs;
	row->env_from = t->from_email;
	row->env_rcpt = t->to;
	row->to_addrs = t->to;
	row->cc_addrs = (char *)"";
	row->mail = t->mail.data;
	row->mail_len = t->mail.len;
	row->created = req->created;
}
