#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "date.h"
#include "message.h"
#include "notice.h"
#include "render.h"
#include "rfc5322.h"
#include "view.h"
#include "watch.h"
#include "xalloc.h"
#include "banned.h"

void notice_release(struct notice *n)
{
	free(n->message_id);
	free(n->subject);
	free(n->identity);
	free(n->thread_key);
	free(n->refs);
	free(n->from_name);
	free(n->from_email);
	buf_release(&n->mail);
	memset(n, 0, sizeof(*n));
}

/* The addresses of a recipient list (one address a line) as the message
 * builder takes them; *n set. */
static int addresses_of(const char *lines, struct address **out, size_t *n, struct buf *err)
{
	const char *p = lines;

	*out = NULL;
	*n = 0;
	while (p && *p) {
		size_t len = strcspn(p, "\n");

		if (len) {
			char *one = xstrndup(p, len);
			int e;

			*out = xrealloc(*out, (*n + 1) * sizeof(**out));
			e = address_parse(one, &(*out)[*n], err);
			free(one);
			if (e < 0)
				return -1;
			(*n)++;
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return 0;
}

/* The body of header field name in mail's header, unfolded, into out: 1,
 * or 0 when the field is not there. */
static int header_body(const char *mail, size_t len, const char *name, struct buf *out)
{
	struct rfc5322_reader r;
	struct rfc5322_field f;

	rfc5322_reader_init(&r, mail, len, 0);
	while (rfc5322_next(&r, &f) == 1) {
		if (rfc5322_is(&f, name)) {
			rfc5322_unfold(&f, 0, out);
			return 1;
		}
	}
	return 0;
}

/* The report's To or Cc as its mail has them, display names included;
 * from the outbox's address list when the mail has no such field. */
static int recipients_of(const struct state_report *rep, const char *field, const char *lines,
			 struct address **out, size_t *n, struct buf *err)
{
	struct buf body = BUF_INIT;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	if (!rep->mail || !header_body(rep->mail, rep->mail_len, field, &body)) {
		buf_release(&body);
		return addresses_of(lines, out, n, err);
	}
	/* perfbot's own header: what it wrote reads back */
	address_list_read(field, body.data, out, n, &alloc, NULL);
	buf_release(&body);
	return 0;
}

static struct value *fix_view(const struct config *cfg, const struct state_fix *f)
{
	static const char *const kinds[] = { "closes", "link", "revert", "fixes", "fixed-by" };
	struct value *v = value_new_object();
	struct buf b = BUF_INIT;
	size_t i;

	value_object_add_string(v, "commit", f->commit);
	buf_addf(&b, "%.12s", f->commit);
	value_object_add_string(v, "short", b.data);
	value_object_add_string(v, "subject", f->subject ? f->subject : "");
	value_object_add_string(v, "ref", f->ref ? f->ref : "");
	buf_reset(&b);
	if (f->ref && *f->ref)
		watch_ref_short(&b, cfg, f->ref);
	value_object_add_string(v, "tree", b.data);
	buf_reset(&b);
	if (f->date)
		date_format_rfc3339_utc(&b, f->date);
	value_object_add_string(v, "date", b.data);
	value_object_add_string(v, "evidence", fix_kind_name(f->kind));
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		value_object_add_bool(v, kinds[i], !strcmp(kinds[i], fix_kind_name(f->kind)));
	buf_release(&b);
	return v;
}

struct value *notice_view_new(const struct notice_request *req, const char *message_id,
			      const char *subject)
{
	const struct state_report *rep = req->report;
	struct value *v = value_new_object(), *r;
	struct buf b = BUF_INIT;

	value_object_add_string(v, "message_id", message_id);
	value_object_add_string(v, "subject", subject);
	view_add_lab(v, req->cfg);
	r = value_object_add(v, "report", value_new_object());
	value_object_add_string(r, "message_id", rep->message_id);
	value_object_add_string(r, "subject", rep->subject);
	buf_addf(&b, "%s%s", req->cfg->closes_url, rep->message_id);
	value_object_add_string(r, "closes", b.data);
	value_object_add(v, "fix", fix_view(req->cfg, req->fix));
	buf_release(&b);
	return v;
}

int notice_render(const struct notice_request *req, struct notice *out, struct buf *err)
{
	const struct config *cfg = req->cfg;
	const struct state_report *rep = req->report;
	struct address from, *to = NULL, *cc = NULL;
	size_t nr_to = 0, nr_cc = 0, nr_refs = 0;
	struct buf b = BUF_INIT;
	char **refs = NULL;
	struct message_fields mf;
	struct value *view = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	buf_init(&out->mail);
	memset(&from, 0, sizeof(from));
	if (address_parse(cfg->from, &from, err) < 0) {
		err_prefix(err, "perfbot.from: ");
		goto done;
	}
	if (recipients_of(rep, "To", rep->to_addrs, &to, &nr_to, err) < 0 ||
	    recipients_of(rep, "Cc", rep->cc_addrs, &cc, &nr_cc, err) < 0)
		goto done;
	if (!nr_to) {
		err_set(err, "report <%s> has no To: address", rep->message_id);
		goto done;
	}
	out->from_name = xstrdup(from.name);
	out->from_email = xstrdup(from.email);

	buf_addf(&b, "notice\nreport %s\nfix %s\n", rep->message_id, req->fix->commit);
	out->identity = buf_detach(&b, NULL);
	buf_addf(&b, "notice\n%s\n%s", rep->message_id, req->fix->commit);
	out->thread_key = buf_detach(&b, NULL);
	date_format_stamp(&b, req->created, cfg->timezone);
	out->message_id = render_mint_id(cfg, b.data, out->identity, from.email);
	buf_reset(&b);
	if (strncmp(rep->subject, "Re: ", 4))
		buf_adds(&b, "Re: ");
	buf_adds(&b, rep->subject);
	out->subject = buf_detach(&b, NULL);

	/* References: the report's own chain, then the report */
	if (rep->refs && *rep->refs)
		buf_addf(&b, "%s ", rep->refs);
	buf_adds(&b, rep->message_id);
	out->refs = buf_detach(&b, NULL);
	message_refs_split(out->refs, &refs, &nr_refs);

	view = notice_view_new(req, out->message_id, out->subject);
	memset(&mf, 0, sizeof(mf));
	mf.from = &from;
	mf.to = to;
	mf.nr_to = nr_to;
	mf.cc = cc;
	mf.nr_cc = nr_cc;
	mf.subject = out->subject;
	mf.date = req->created;
	mf.zone = cfg->timezone;
	mf.message_id = out->message_id;
	mf.in_reply_to = rep->message_id;
	mf.references = (const char *const *)refs;
	mf.nr_references = nr_refs;
	if (render_kind_mail(req->templates, cfg, "fixed", view, &mf, &out->mail, err) < 0)
		goto done;
	ret = 0;
done:
	if (ret < 0) {
		notice_release(out);
		buf_init(&out->mail);
	}
	address_release(&from);
	address_list_free(to, nr_to);
	address_list_free(cc, nr_cc);
	message_refs_free(refs, nr_refs);
	value_free(view);
	buf_release(&b);
	return ret;
}

void notice_row(const struct notice *n, const struct notice_request *req, struct state_report *row)
{
	const struct state_report *rep = req->report;

	memset(row, 0, sizeof(*row));
	row->message_id = n->message_id;
	row->kind = STATE_KIND_NOTICE;
	row->parent_id = rep->id;
	row->thread_key = n->thread_key;
	row->identity = n->identity;
	row->subject = n->subject;
	row->from_name = n->from_name;
	row->from_email = n->from_email;
	row->in_reply_to = rep->message_id;
	row->refs = n->refs;
	row->env_from = n->from_email;
	row->env_rcpt = rep->env_rcpt;
	row->to_addrs = rep->to_addrs;
	row->cc_addrs = rep->cc_addrs;
	row->mail = n->mail.data;
	row->mail_len = n->mail.len;
	row->created = req->created;
}
