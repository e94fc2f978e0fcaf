#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "charset.h"
#include "date.h"
#include "header.h"
#include "mail.h"
#include "mime-child.h"
#include "problem.h"
#include "repo.h"
#include "rfc2045.h"
#include "rfc2047.h"
#include "rfc5322.h"
#include "xalloc.h"
#include "banned.h"

/* The header fields perfbot reads; the first of each wins. */
enum field {
	F_FROM, F_TO, F_CC, F_SUBJECT, F_DATE, F_MESSAGE_ID, F_IN_REPLY_TO, F_REFERENCES,
	F_CONTENT_TYPE, F_CONTENT_TRANSFER_ENCODING, F_CONTENT_DISPOSITION,
	F_AUTO_SUBMITTED, F_X_AUTOREPLY, F_X_AUTORESPOND, F_PRECEDENCE,
	F_COUNT
};

static const char *const field_names[F_COUNT] = {
	"From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To", "References",
	"Content-Type", "Content-Transfer-Encoding", "Content-Disposition",
	"Auto-Submitted", "X-Autoreply", "X-Autorespond", "Precedence",
};

/* The header as read: the wanted fields' bodies, unfolded, NUL-free. */
struct header {
	char *body[F_COUNT];	/* NULL when absent */
	size_t start;		/* where the header begins (after a "From " line) */
	size_t body_start;	/* where the body begins (== len when none) */
	size_t nr_fields;
	int too_many;		/* MAIL_MAX_HEADERS was reached */
};

static const struct problems *problems_of(struct mail *m, struct problems *p)
{
	p->v = &m->problems;
	p->nr = &m->nr_problems;
	p->max = MAIL_MAX_PROBLEMS;
	p->more = "more problems were not listed";
	return p;
}

static void problem(struct mail *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct mail *m, const char *fmt, ...)
{
	struct problems p;
	va_list ap;

	va_start(ap, fmt);
	problem_vadd(problems_of(m, &p), fmt, ap);
	va_end(ap);
}

/* s (C string) quoted for a problem line. */
static const char *quoted(struct buf *q, const char *s)
{
	buf_reset(q);
	header_quote_input(q, s);
	return q->data;
}

static int is_wsp(char c)
{
	return c == ' ' || c == '\t';
}

static int field_index(const struct rfc5322_field *f)
{
	int i;

	for (i = 0; i < F_COUNT; i++)
		if (rfc5322_is(f, field_names[i]))
			return i;
	return -1;
}

/* Keeps the field f when it is wanted, first, and fits. */
static void field_keep(struct mail *m, struct header *h, const struct rfc5322_field *f)
{
	struct buf b = BUF_INIT, q = BUF_INIT;
	int index = field_index(f);

	if (index < 0)
		return;
	if (f->longest > MAIL_MAX_LINE) {
		problem(m, "the %s field is longer than 65536 bytes on one line and was ignored",
			field_names[index]);
		return;
	}
	rfc5322_unfold(f, 0, &b);
	if (b.len > MAIL_MAX_FIELD) {
		problem(m, "the %s field is longer than 262144 bytes and was ignored",
			field_names[index]);
	} else if (h->body[index]) {
		buf_truncate(&b, b.len < 60 ? b.len : 60);
		problem(m, "more than one %s field; the first is used (ignored: %s)",
			field_names[index], quoted(&q, b.data));
	} else {
		h->body[index] = buf_detach(&b, NULL);
	}
	buf_release(&b);
	buf_release(&q);
}

/*
 * Reads the header block of raw with the one reader (rfc5322.h).  -1 when
 * there is no header field before the body would start: then it is not a
 * mail.
 */
static int header_read(struct mail *m, const char *raw, size_t len, struct header *h)
{
	struct rfc5322_reader r;
	struct rfc5322_field f;

	memset(h, 0, sizeof(*h));
	rfc5322_reader_init(&r, raw, len, RFC5322_MBOX_FROM);
	while (rfc5322_next(&r, &f)) {
		if (r.fields > MAIL_MAX_HEADERS) {
			h->too_many = 1;
			break;
		}
		field_keep(m, h, &f);
	}
	h->start = r.start;
	h->body_start = r.body;
	h->nr_fields = r.fields > MAIL_MAX_HEADERS ? MAIL_MAX_HEADERS : r.fields;
	if (!h->nr_fields)
		return -1;
	if (r.stray)
		problem(m, "header line %zu is not a field; the body is taken to start there",
			r.stray);
	if (r.leading)
		problem(m, "the header starts with %zu continuation line%s; ignored", r.leading,
			r.leading == 1 ? "" : "s");
	return 0;
}

/* ---- the body ---- */

/* The first word of a structured field body, lowercase, into w: white
 * space and comments before it are skipped (RFC 5322 §3.2.2), as in
 * "(converted) quoted-printable" or "(RFC 3834) auto-replied". */
static void first_word(const char *body, struct buf *w)
{
	const char *p = rfc5322_skip_cfws(body);

	buf_reset(w);
	for (; *p && *p != ';' && *p != '(' && !is_wsp(*p); p++)
		buf_addc(w, (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p));
}


static void text_part_set(struct mail *m, const char *type, const char *charset,
			  const char *encoding, int flowed, int delsp)
{
	struct buf b = BUF_INIT;
	size_t i;

	m->has_text_part = 1;
	m->text_part.type = xstrdup(type);
	if (charset) {
		charset_repair_utf8(charset, strlen(charset), &b);
		for (i = 0; i < b.len; i++)
			if (b.data[i] >= 'A' && b.data[i] <= 'Z')
				b.data[i] = (char)(b.data[i] - 'A' + 'a');
		m->text_part.charset = buf_detach(&b, NULL);
	}
	if (encoding) {
		/* the field body as written may carry white space or comments */
		struct buf w = BUF_INIT;

		first_word(encoding, &w);
		charset_repair_utf8(w.data, w.len, &b);
		buf_release(&w);
		m->text_part.encoding = buf_detach(&b, NULL);
	} else {
		m->text_part.encoding = xstrdup("7bit");
	}
	m->text_part.flowed = flowed;
	m->text_part.delsp = delsp;
}

/* Decodes the text part's body into m->text. */
static void text_decode(struct mail *m, const char *body, size_t n, const char *encoding,
			const char *charset)
{
	struct buf decoded = BUF_INIT, utf8 = BUF_INIT, q = BUF_INIT;
	enum rfc2045_encoding enc = rfc2045_encoding_of(encoding);
	const char *in = body, *used = NULL;
	size_t i, len = n;
	long bad = 0;
	int outcome;

	switch (enc) {
	case RFC2045_QP:
		bad = rfc2045_decode_qp(body, n, &decoded);
		in = decoded.data;
		len = decoded.len;
		if (bad > 0)
			problem(m, "the text has %ld malformed quoted-printable sequence%s, kept as "
				"they are", bad, bad == 1 ? "" : "s");
		break;
	case RFC2045_BASE64:
		bad = rfc2045_decode_base64(body, n, &decoded);
		in = decoded.data;
		len = decoded.len;
		if (bad > 0)
			problem(m, "the text has %ld character%s that are not base64, skipped",
				bad, bad == 1 ? "" : "s");
		break;
	case RFC2045_UNKNOWN:
		problem(m, "unknown Content-Transfer-Encoding %s; the text is read as 8bit",
			quoted(&q, encoding));
		break;
	default:
		break;
	}
	outcome = charset_to_utf8(charset, in, len, &utf8, &used);
	if (outcome == CHARSET_FALLBACK && charset)
		problem(m, "unknown charset %s; the text is read as %s", quoted(&q, charset), used);
	else if (outcome == CHARSET_REPAIRED)
		problem(m, "the text has bytes that are invalid in %s; they became U+FFFD",
			charset ? quoted(&q, charset) : "utf-8");
	/* CRLF and lone CR to LF */
	buf_release(&decoded);
	buf_grow(&decoded, utf8.len);
	for (i = 0; i < utf8.len; i++) {
		if (utf8.data[i] == '\r') {
			buf_addc(&decoded, '\n');
			if (i + 1 < utf8.len && utf8.data[i + 1] == '\n')
				i++;
		} else {
			buf_addc(&decoded, utf8.data[i]);
		}
	}
	free(m->text);
	m->text = buf_detach(&decoded, &m->text_len);
	buf_release(&utf8);
	buf_release(&q);
}

static int starts_with_ci(const char *s, const char *prefix)
{
	return !strncasecmp(s, prefix, strlen(prefix));
}

/* Reads the body of a message whose top-level type is not multipart. */
static void body_single(struct mail *m, const struct header *h, const struct rfc2045_field *ct,
			const char *raw, size_t len)
{
	struct rfc2045_field cd;
	int attachment = 0;
	struct buf err = BUF_INIT;

	/* The whole message is this part: a file name alone does not make
	 * it an attachment (in a multipart it does, see mime-child.h), only an
	 * explicit Content-Disposition does. */
	if (h->body[F_CONTENT_DISPOSITION] &&
	    !rfc2045_field_parse(h->body[F_CONTENT_DISPOSITION], 0, &cd, &err)) {
		if (!strcmp(cd.value, "attachment"))
			attachment = 1;
		rfc2045_field_release(&cd);
	}
	buf_release(&err);
	if (attachment) {
		m->attachments = 1;
		return;
	}
	if (!strcmp(ct->value, "text/html")) {
		m->html_only = 1;
		return;
	}
	if (strcmp(ct->value, "text/plain"))
		return;
	text_part_set(m, "text/plain", ct->charset, h->body[F_CONTENT_TRANSFER_ENCODING],
		      ct->format && !strcmp(ct->format, "flowed"),
		      ct->delsp && !strcmp(ct->delsp, "yes"));
	text_decode(m, raw + h->body_start, len - h->body_start,
		    h->body[F_CONTENT_TRANSFER_ENCODING], ct->charset);
}

/* Reads the body of a multipart message through mime_find_text(). */
static void body_multipart(struct mail *m, const struct header *h, const char *raw, size_t len,
			   const struct mail_options *opts)
{
	struct mime_options mo = { opts->no_isolation, opts->timeout, 0 };
	struct mime_text t;
	size_t i;

	mime_find_text(raw + h->start, len - h->start, &mo, &t);
	for (i = 0; i < t.nr_problems; i++)
		problem(m, "%s", t.problems[i]);
	if (t.quarantine) {
		m->quarantine = t.quarantine;
		t.quarantine = NULL;
		problem(m, "quarantined: %s", m->quarantine);
	} else {
		m->html_only = t.html_only;
		m->attachments = t.attachments;
		if (t.found) {
			text_part_set(m, t.type, t.charset, t.encoding, t.flowed, t.delsp);
			text_decode(m, raw + h->start + t.offset, t.length, t.encoding, t.charset);
		}
	}
	mime_text_release(&t);
}

static void body_read(struct mail *m, const struct header *h, const char *raw, size_t len,
		      const struct mail_options *opts)
{
	struct rfc2045_field ct;
	struct buf err = BUF_INIT, q = BUF_INIT;
	const char *body = h->body[F_CONTENT_TYPE];

	if (!body || rfc2045_field_parse(body, 1, &ct, &err)) {
		if (body)
			problem(m, "unreadable Content-Type %s (%s); read as text/plain",
				quoted(&q, body), err.data);
		memset(&ct, 0, sizeof(ct));
		ct.value = xstrdup("text/plain");
	}
	if (starts_with_ci(ct.value, "multipart/") && !ct.boundary) {
		problem(m, "%s without a boundary; the body is read as text/plain", ct.value);
		free(ct.value);
		ct.value = xstrdup("text/plain");
	}
	if (starts_with_ci(ct.value, "multipart/"))
		body_multipart(m, h, raw, len, opts);
	else
		body_single(m, h, &ct, raw, len);
	rfc2045_field_release(&ct);
	buf_release(&err);
	buf_release(&q);
}

/* ---- the header fields ---- */

static char *decoded_text(const char *body)
{
	struct buf out = BUF_INIT, trimmed = BUF_INIT;
	size_t start = 0, end;

	rfc2047_decode(body, strlen(body), 0, &out);
	while (start < out.len && is_wsp(out.data[start]))
		start++;
	end = out.len;
	while (end > start && is_wsp(out.data[end - 1]))
		end--;
	buf_add(&trimmed, out.data + start, end - start);
	buf_release(&out);
	return buf_detach(&trimmed, NULL);
}

/* The Message-ID field's id: what mail_parse() and mail_known_id() both
 * read. */
static void read_message_id(struct mail *m, const struct header *h)
{
	struct buf id = BUF_INIT;
	struct problems p;

	if (h->body[F_MESSAGE_ID] &&
	    !rfc5322_message_id(h->body[F_MESSAGE_ID], &id, problems_of(m, &p)))
		m->message_id = buf_detach(&id, NULL);
	buf_release(&id);
}

static void read_ids(struct mail *m, const struct header *h)
{
	struct problems p;
	size_t alloc = 0;

	read_message_id(m, h);
	problems_of(m, &p);
	if (h->body[F_IN_REPLY_TO])
		rfc5322_ids("In-Reply-To", h->body[F_IN_REPLY_TO], &m->in_reply_to,
			    &m->nr_in_reply_to, &alloc, &p);
	alloc = 0;
	if (h->body[F_REFERENCES])
		rfc5322_ids("References", h->body[F_REFERENCES], &m->references, &m->nr_references,
			    &alloc, &p);
}

static void read_addresses(struct mail *m, const struct header *h)
{
	struct problems p;
	struct address *from = NULL;
	size_t nr = 0, alloc = 0;

	problems_of(m, &p);
	if (h->body[F_FROM]) {
		address_list_read("From", h->body[F_FROM], &from, &nr, &alloc, &p);
		if (nr) {
			m->from = xmalloc(sizeof(*m->from));
			*m->from = from[0];
			from[0].name = from[0].email = NULL;
		}
		address_list_free(from, nr);
	}
	if (!m->from)
		problem(m, h->body[F_FROM] ? "no address could be read from the From field" :
					     "no From field");
	alloc = 0;
	if (h->body[F_TO])
		address_list_read("To", h->body[F_TO], &m->to, &m->nr_to, &alloc, &p);
	alloc = 0;
	if (h->body[F_CC])
		address_list_read("Cc", h->body[F_CC], &m->cc, &m->nr_cc, &alloc, &p);
}

static void read_auto_submitted(struct mail *m, const struct header *h)
{
	struct buf w = BUF_INIT;

	if (h->body[F_AUTO_SUBMITTED]) {
		first_word(h->body[F_AUTO_SUBMITTED], &w);
		if (strcmp(w.data, "no"))
			m->auto_submitted = 1;
	}
	if (h->body[F_X_AUTOREPLY] || h->body[F_X_AUTORESPOND])
		m->auto_submitted = 1;
	if (h->body[F_PRECEDENCE]) {
		first_word(h->body[F_PRECEDENCE], &w);
		if (!strcmp(w.data, "auto_reply"))
			m->auto_submitted = 1;
	}
	buf_release(&w);
}

static void read_fields(struct mail *m, const struct header *h)
{
	struct buf q = BUF_INIT;

	read_ids(m, h);
	read_addresses(m, h);
	if (h->body[F_DATE]) {
		if (!date_parse_rfc5322(h->body[F_DATE], &m->date, &m->date_zone))
			m->has_date = 1;
		else
			problem(m, "unreadable Date %s", quoted(&q, h->body[F_DATE]));
	} else {
		problem(m, "no Date field");
	}
	if (h->body[F_SUBJECT])
		m->subject = decoded_text(h->body[F_SUBJECT]);
	read_auto_submitted(m, h);
	buf_release(&q);
}

int mail_parse_with(const char *raw, size_t len, const struct mail_options *opts,
		    struct mail **out, struct buf *err)
{
	static const struct mail_options defaults = { 0, 0 };
	struct mail *m = xcalloc(1, sizeof(*m));
	struct header h;
	int i;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	m->text = xstrdup("");
	if (header_read(m, raw, len, &h) < 0) {
		mail_free(m);
		for (i = 0; i < F_COUNT; i++)
			free(h.body[i]);
		return err_set(err, len ? "not a mail: no header field before the body" :
					  "not a mail: the input is empty");
	}
	read_fields(m, &h);
	if (h.too_many) {
		m->quarantine = xstrdup("more than 1000 header fields");
		problem(m, "quarantined: %s", m->quarantine);
	} else if (len > MAIL_MAX_SIZE) {
		m->quarantine = xstrdup("the message is larger than 32 MiB");
		problem(m, "quarantined: %s", m->quarantine);
	} else {
		body_read(m, &h, raw, len, opts);
	}
	for (i = 0; i < F_COUNT; i++)
		free(h.body[i]);
	*out = m;
	return 0;
}

char *mail_known_id_of(const struct mail *m, const char *raw, size_t len)
{
	struct buf id = BUF_INIT, lf = BUF_INIT;
	const char *bytes;

	if (m->message_id) {
		buf_adds(&id, m->message_id);
	} else {
		/* as public-inbox does for mail without one: derived from the
		 * bytes, as the archive keeps them (CRLF made LF), so that the
		 * received and the archived copy are known alike */
		bytes = rfc5322_lf(raw, &len, &lf);
		repo_hash_hex(&id, bytes, len);
		buf_adds(&id, "@perfbot.invalid");
	}
	buf_release(&lf);
	return buf_detach(&id, NULL);
}

char *mail_known_id(const char *raw, size_t len)
{
	struct mail *m = xcalloc(1, sizeof(*m));
	struct header h;
	char *id;
	int i;

	if (header_read(m, raw, len, &h) == 0)
		read_message_id(m, &h);
	for (i = 0; i < F_COUNT; i++)
		free(h.body[i]);
	id = mail_known_id_of(m, raw, len);
	mail_free(m);
	return id;
}

int mail_parse(const char *raw, size_t len, struct mail **out, struct buf *err)
{
	return mail_parse_with(raw, len, NULL, out, err);
}

void mail_free(struct mail *m)
{
	size_t i;

	if (!m)
		return;
	free(m->message_id);
	for (i = 0; i < m->nr_in_reply_to; i++)
		free(m->in_reply_to[i]);
	free(m->in_reply_to);
	for (i = 0; i < m->nr_references; i++)
		free(m->references[i]);
	free(m->references);
	address_list_free(m->from, m->from ? 1 : 0);
	address_list_free(m->to, m->nr_to);
	address_list_free(m->cc, m->nr_cc);
	free(m->subject);
	free(m->text);
	free(m->text_part.type);
	free(m->text_part.charset);
	free(m->text_part.encoding);
	free(m->quarantine);
	problems_free(m->problems, m->nr_problems);
	free(m);
}
