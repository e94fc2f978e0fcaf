#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "date.h"
#include "header.h"
#include "message.h"
#include "xalloc.h"
#include "banned.h"

int message_check_id(const char *id, struct buf *err)
{
	const char *at = strchr(id, '@'), *p;

	if (!*id)
		return err_set(err, "empty Message-ID");
	for (p = id; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || strchr("<>\"\\()[],;:", *p))
			return err_set(err, "Message-ID '%.80s' may hold only printable ASCII without spaces or <>\"\\()[],;:",
				       id);
	if (!at || at == id || !at[1] || strchr(at + 1, '@'))
		return err_set(err, "Message-ID '%.80s' is not of the form left@right", id);
	if (strlen(id) > 250)
		return err_set(err, "Message-ID '%.80s...' is longer than 250 characters", id);
	return 0;
}

void message_mint_id(struct buf *out, const char *stamp, const char *hash8,
		     const char *tag, const char *from_email)
{
	const char *at = strrchr(from_email, '@');

	buf_addf(out, "%s.%s-%s@%s", stamp, hash8, tag, at ? at + 1 : from_email);
}

void message_subject(struct buf *out, const char *tree, const char *head_subject,
		     const char *head_id, const char *headline, const char *percent,
		     const char *kind)
{
	const char *slash = strchr(tree, '/'), *colon = strchr(head_subject, ':');

	buf_addc(out, '[');
	if (slash) {
		buf_add(out, tree, (size_t)(slash - tree));
		buf_addf(out, ":%s", slash + 1);
	} else {
		buf_adds(out, tree);
	}
	buf_adds(out, "] ");
	if (colon && colon > head_subject) {
		buf_addc(out, '[');
		buf_add(out, head_subject, (size_t)(colon - head_subject));
		buf_adds(out, "]  ");
	}
	/* "%.10s: %s %s%% %s" */
	buf_add(out, head_id, strnlen(head_id, 10));
	buf_adds(out, ": ");
	buf_adds(out, headline);
	buf_addc(out, ' ');
	buf_adds(out, percent);
	buf_adds(out, "% ");
	buf_adds(out, kind);
}

static int check_body(const char *body, size_t len, struct buf *err)
{
	const char *p = body, *end = body + len, *nl;
	size_t line = 1;

	if (memchr(body, '\0', len) || memchr(body, '\r', len)) {
		/* rare: find the line for the message */
		size_t i;

		for (i = 0; i < len; i++) {
			if (body[i] == '\0')
				return err_set(err, "the rendered body has a NUL byte on line %zu", line);
			if (body[i] == '\r')
				return err_set(err, "the rendered body has a carriage return on line %zu", line);
			if (body[i] == '\n')
				line++;
		}
	}
	for (; p < end; p = nl + 1, line++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > MESSAGE_MAX_LINE)
			return err_set(err, "line %zu of the rendered body is %zu octets long; mail allows %d",
				       line, (size_t)(nl - p), MESSAGE_MAX_LINE);
	}
	return 0;
}

static int add_id_header(struct buf *h, const char *name, const char *id, struct buf *err)
{
	struct buf v = BUF_INIT;
	int r;

	if (message_check_id(id, err) < 0)
		return err_prefix(err, "%s: ", name);
	buf_addf(&v, "<%s>", id);
	r = header_add(h, name, v.data, err);
	buf_release(&v);
	return r;
}

static int build_headers(struct buf *h, const struct message_fields *f, struct buf *err)
{
	struct buf v = BUF_INIT;
	size_t i;
	int r = 0;

	if (header_add_addresses(h, "From", f->from, 1, err) < 0 ||
	    header_add_addresses(h, "To", f->to, f->nr_to, err) < 0 ||
	    (f->nr_cc && header_add_addresses(h, "Cc", f->cc, f->nr_cc, err) < 0) ||
	    header_add_text(h, "Subject", f->subject, err) < 0)
		return -1;
	date_format_rfc5322(&v, f->date, f->zone);
	r = header_add(h, "Date", v.data, err);
	buf_release(&v);
	if (r < 0 || add_id_header(h, "Message-ID", f->message_id, err) < 0)
		return -1;
	if (f->in_reply_to && add_id_header(h, "In-Reply-To", f->in_reply_to, err) < 0)
		return -1;
	if (f->nr_references) {
		for (i = 0; i < f->nr_references; i++) {
			if (message_check_id(f->references[i], err) < 0) {
				buf_release(&v);
				return err_prefix(err, "References: ");
			}
			buf_addf(&v, "%s<%s>", i ? " " : "", f->references[i]);
		}
		r = header_add(h, "References", v.data, err);
		buf_release(&v);
		if (r < 0)
			return -1;
	}
	buf_adds(h, "MIME-Version: 1.0\n"
		 "Content-Type: text/plain; charset=utf-8\n"
		 "Content-Disposition: inline\n"
		 "Content-Transfer-Encoding: 8bit\n"
		 "Auto-Submitted: auto-generated\n"
		 "X-Patchwork-Hint: ignore\n");
	return 0;
}

int message_build(struct buf *out, const struct message_fields *f,
		  const char *body, size_t len, struct buf *err)
{
	struct buf h = BUF_INIT;

	if (check_body(body, len, err) < 0)
		return -1;
	if (build_headers(&h, f, err) < 0) {
		buf_release(&h);
		return -1;
	}
	buf_add(out, h.data, h.len);
	buf_addc(out, '\n');
	buf_add(out, body, len);
	buf_release(&h);
	return 0;
}

void message_refs_split(const char *refs, char ***out, size_t *nr)
{
	const char *p = refs;

	*out = NULL;
	*nr = 0;
	while (p && *p) {
		size_t n = strcspn(p, " ");

		if (n) {
			*out = xrealloc(*out, (*nr + 1) * sizeof(**out));
			(*out)[(*nr)++] = xstrndup(p, n);
		}
		p += n;
		while (*p == ' ')
			p++;
	}
}

void message_refs_free(char **refs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(refs[i]);
	free(refs);
}

/* The length of the header field that starts at p (its continuation
 * lines and final '\n' included) in the header block ending at end. */
static size_t field_len(const char *p, const char *end)
{
	const char *q = p;

	do {
		const char *nl = memchr(q, '\n', (size_t)(end - q));

		q = nl ? nl + 1 : end;
	} while (q < end && (*q == ' ' || *q == '\t'));
	return (size_t)(q - p);
}

static int field_is(const char *p, size_t len, const char *name)
{
	size_t n = strlen(name);

	return len > n && p[n] == ':' && !strncasecmp(p, name, n);
}

int message_rethread(struct buf *out, const char *mail, size_t len, const char *in_reply_to,
		     const char *refs, struct buf *err)
{
	const char *p = mail, *end = mail + len, *body;
	struct buf h = BUF_INIT, o = BUF_INIT;
	char **ids = NULL;
	size_t nr = 0, i;
	int put = 0, ret = -1;

	body = len && mail[0] == '\n' ? mail : NULL;
	for (i = 0; !body && i + 1 < len; i++)
		if (mail[i] == '\n' && mail[i + 1] == '\n')
			body = mail + i + 1;
	if (!body) {
		err_set(err, "the stored mail has no end of its header block");
		goto done;
	}
	message_refs_split(refs, &ids, &nr);
	while (p < body) {
		size_t n = field_len(p, body);
		int threading = field_is(p, n, "In-Reply-To") || field_is(p, n, "References");

		/* the new fields where the old ones were, else after Message-ID */
		if (!put && (threading || field_is(p, n, "MIME-Version"))) {
			if (in_reply_to) {
				buf_addf(&h, "<%s>", in_reply_to);
				if (message_check_id(in_reply_to, err) < 0 ||
				    header_add(&o, "In-Reply-To", h.data, err) < 0)
					goto done;
			}
			buf_reset(&h);
			for (i = 0; i < nr; i++) {
				if (message_check_id(ids[i], err) < 0)
					goto done;
				buf_addf(&h, "%s<%s>", i ? " " : "", ids[i]);
			}
			if (nr && header_add(&o, "References", h.data, err) < 0)
				goto done;
			put = 1;
		}
		if (!threading)
			buf_add(&o, p, n);
		p += n;
	}
	if (!put) {
		err_set(err, "the stored mail has neither In-Reply-To, References nor MIME-Version");
		goto done;
	}
	buf_add(&o, body, (size_t)(end - body));
	buf_add(out, o.data, o.len);
	ret = 0;
done:
	message_refs_free(ids, nr);
	buf_release(&h);
	buf_release(&o);
	return ret;
}
