#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "charset.h"
#include "date.h"
#include "header.h"
#include "mail.h"
#include "mime.h"
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

static void problem(struct mail *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct mail *m, const char *fmt, ...)
{
	struct buf b = BUF_INIT, clean = BUF_INIT;
	va_list ap;

	if (m->nr_problems > MAIL_MAX_PROBLEMS)
		return;
	if (m->nr_problems == MAIL_MAX_PROBLEMS) {
		buf_adds(&b, "more problems were not listed");
	} else {
		va_start(ap, fmt);
		buf_vaddf(&b, fmt, ap);
		va_end(ap);
	}
	charset_repair_utf8(b.data, b.len, &clean);
	m->problems = xrealloc(m->problems, (m->nr_problems + 1) * sizeof(char *));
	m->problems[m->nr_problems++] = buf_detach(&clean, NULL);
	buf_release(&b);
}

/* Adds each line of lines (as the exported parsers write them) as a problem. */
static void problems_from(struct mail *m, const struct buf *lines)
{
	const char *p = lines->data, *nl;

	while ((nl = strchr(p, '\n'))) {
		problem(m, "%.*s", (int)(nl - p), p);
		p = nl + 1;
	}
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

/* The length of the line at p (up to, not including, its LF or CRLF), and
 * in *next where the next one starts. */
static size_t line_at(const char *p, size_t n, size_t *next)
{
	const char *nl = memchr(p, '\n', n);
	size_t l;

	if (!nl) {
		*next = n;
		return n;
	}
	*next = (size_t)(nl - p) + 1;
	l = (size_t)(nl - p);
	if (l && p[l - 1] == '\r')
		l--;
	return l;
}

/* The length of the field name at the start of a line, up to the colon
 * (white space before it allowed); 0 when the line is not a field. */
static size_t field_name(const char *p, size_t l, size_t *colon)
{
	size_t i = 0, n;

	while (i < l && (unsigned char)p[i] > ' ' && (unsigned char)p[i] < 0x7f && p[i] != ':')
		i++;
	n = i;
	while (i < l && is_wsp(p[i]))
		i++;
	if (!n || i >= l || p[i] != ':')
		return 0;
	*colon = i;
	return n;
}

static int field_index(const char *name, size_t n)
{
	int i;

	for (i = 0; i < F_COUNT; i++)
		if (strlen(field_names[i]) == n && !strncasecmp(name, field_names[i], n))
			return i;
	return -1;
}

/* Appends a piece of a field body, with NUL bytes made U+FFFD. */
static void add_body(struct buf *b, const char *p, size_t n)
{
	const char *nul;

	while ((nul = memchr(p, '\0', n))) {
		buf_add(b, p, (size_t)(nul - p));
		buf_adds(b, "\xef\xbf\xbd");
		n -= (size_t)(nul - p) + 1;
		p = nul + 1;
	}
	buf_add(b, p, n);
}

/* Ends the field being read: keeps it when it is wanted, first, and fit. */
static void field_end(struct mail *m, struct header *h, int index, struct buf *b, int dropped)
{
	struct buf q = BUF_INIT;

	if (index < 0) {
		buf_reset(b);
		return;
	}
	if (dropped) {
		problem(m, "the %s field is longer than %s and was ignored", field_names[index],
			dropped == 1 ? "65536 bytes on one line" : "262144 bytes");
	} else if (h->body[index]) {
		buf_truncate(b, b->len < 60 ? b->len : 60);
		problem(m, "more than one %s field; the first is used (ignored: %s)",
			field_names[index], quoted(&q, b->data));
	} else {
		h->body[index] = buf_detach(b, NULL);
	}
	buf_reset(b);
	buf_release(&q);
}

/*
 * Reads the header block of raw.  -1 when there is no header field
 * before the body would start: then it is not a mail.
 */
static int header_read(struct mail *m, const char *raw, size_t len, struct header *h)
{
	struct buf b = BUF_INIT;
	size_t pos = 0, next, l;
	int index = -1, dropped = 0, leading = 0;

	memset(h, 0, sizeof(*h));
	if (len >= 5 && !memcmp(raw, "From ", 5)) {
		size_t colon;

		/* an mbox "From " line, unless it is an obsolete "From :" field */
		l = line_at(raw, len, &next);
		if (!field_name(raw, l, &colon))
			pos = next;
	}
	h->start = pos;
	h->body_start = len;
	while (pos < len) {
		const char *p = raw + pos;
		size_t colon, n;

		l = line_at(p, len - pos, &next);
		if (!l && (p[0] == '\n' || (p[0] == '\r' && len - pos > 1 && p[1] == '\n'))) {
			h->body_start = pos + next;
			break;
		}
		if (is_wsp(p[0])) {
			if (!h->nr_fields) {
				leading++;
			} else if (index >= 0 && !dropped) {
				if (l > MAIL_MAX_LINE)
					dropped = 1;
				else if (b.len + l > MAIL_MAX_FIELD)
					dropped = 2;
				else
					add_body(&b, p, l);
			}
			pos += next;
			continue;
		}
		field_end(m, h, index, &b, dropped);
		index = -1;
		dropped = 0;
		n = field_name(p, l, &colon);
		if (!n) {
			if (!h->nr_fields)
				break;
			problem(m, "header line %zu is not a field; the body is taken to start there",
				h->nr_fields + (size_t)leading + 1);
			h->body_start = pos;
			break;
		}
		if (++h->nr_fields > MAIL_MAX_HEADERS) {
			h->too_many = 1;
			h->nr_fields--;
			break;
		}
		index = field_index(p, n);
		if (index >= 0) {
			if (l > MAIL_MAX_LINE)
				dropped = 1;
			else
				add_body(&b, p + colon + 1, l - colon - 1);
		}
		pos += next;
	}
	field_end(m, h, index, &b, dropped);
	buf_release(&b);
	if (!h->nr_fields)
		return -1;
	if (leading)
		problem(m, "the header starts with %d continuation line%s; ignored", leading,
			leading == 1 ? "" : "s");
	return 0;
}

/* ---- ids ---- */

static void add_line(struct buf *problems, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_line(struct buf *problems, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(problems, fmt, ap);
	va_end(ap);
	buf_addc(problems, '\n');
}

/* The id in in[0..n) (between the brackets) with CFWS removed, into id;
 * 0 when it is a usable id. */
static int id_clean(const char *in, size_t n, struct buf *id)
{
	struct buf tmp = BUF_INIT;
	const char *p, *end;
	size_t i;
	int ok = 1;

	buf_add(&tmp, in, n);
	p = tmp.data;
	end = tmp.data + tmp.len;
	while (p < end) {
		if (*p == '(') {
			p = mime_skip_comment(p);
			continue;
		}
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			p++;
			continue;
		}
		buf_addc(id, *p++);
	}
	buf_release(&tmp);
	if (!id->len || id->len > MAIL_MAX_ID)
		ok = 0;
	for (i = 0; ok && i < id->len; i++)
		if ((unsigned char)id->data[i] <= ' ' || (unsigned char)id->data[i] >= 0x7f ||
		    id->data[i] == '<')
			ok = 0;
	return ok ? 0 : -1;
}

void mail_ids_parse(const char *field, const char *body, char ***ids, size_t *nr,
		    size_t *alloc, struct buf *problems)
{
	const char *p = body;
	struct buf id = BUF_INIT, q = BUF_INIT;
	size_t found = 0;

	while (*p) {
		const char *close;

		if (*p == '(') {
			p = mime_skip_comment(p);
			continue;
		}
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
			continue;
		}
		if (*p != '<') {
			p++;
			continue;
		}
		close = strchr(p + 1, '>');
		if (!close) {
			add_line(problems, "%s: an id without its closing '>' was dropped: %s", field,
				 quoted(&q, p));
			break;
		}
		buf_reset(&id);
		if (id_clean(p + 1, (size_t)(close - p - 1), &id)) {
			struct buf raw = BUF_INIT;

			buf_add(&raw, p, (size_t)(close + 1 - p));
			add_line(problems, "%s: malformed id %s dropped", field, quoted(&q, raw.data));
			buf_release(&raw);
		} else if (++found > MAIL_MAX_IDS) {
			add_line(problems, "%s: more than %d ids; the rest were ignored", field,
				 MAIL_MAX_IDS);
			break;
		} else {
			ALLOC_GROW(*ids, *nr + 1, *alloc);
			(*ids)[(*nr)++] = xstrndup(id.data, id.len);
		}
		p = close + 1;
	}
	buf_release(&id);
	buf_release(&q);
}

/* ---- addresses ---- */

enum token_kind { T_ATOM, T_QUOTED, T_COMMENT, T_ANGLE, T_SPECIAL };

struct token {
	enum token_kind kind;
	const char *p;		/* the text (for T_QUOTED, T_COMMENT, T_ANGLE: inside) */
	size_t n;
	int space_before;	/* white space or a comment came before it */
};

/* Splits an address field body into tokens. */
static size_t tokenize(const char *s, struct token **out)
{
	struct token *t = NULL;
	size_t nr = 0, alloc = 0;
	int space = 0;

	while (*s) {
		struct token tok = { T_ATOM, s, 0, space };

		if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
			s++;
			space = 1;
			continue;
		}
		if (*s == '(') {
			const char *end = mime_skip_comment(s);

			tok.kind = T_COMMENT;
			tok.p = s + 1;
			tok.n = (size_t)(end - s - 1);
			if (tok.n && end[-1] == ')')
				tok.n--;
			s = end;
		} else if (*s == '"') {
			tok.kind = T_QUOTED;
			tok.p = ++s;
			while (*s && *s != '"') {
				if (*s == '\\' && s[1])
					s++;
				s++;
			}
			tok.n = (size_t)(s - tok.p);
			if (*s)
				s++;
		} else if (*s == '<') {
			tok.kind = T_ANGLE;
			tok.p = ++s;
			while (*s && *s != '>') {
				if (*s == '"') {
					for (s++; *s && *s != '"'; s++)
						if (*s == '\\' && s[1])
							s++;
					if (!*s)
						break;
				}
				s++;
			}
			tok.n = (size_t)(s - tok.p);
			if (*s)
				s++;
		} else if (strchr(",;:@.[]>)", *s)) {
			tok.kind = T_SPECIAL;
			tok.n = 1;
			s++;
		} else {
			while (*s && !strchr(" \t\r\n()\"<,;:@.[]>", *s))
				s++;
			tok.n = (size_t)(s - tok.p);
		}
		ALLOC_GROW(t, nr + 1, alloc);
		t[nr++] = tok;
		space = tok.kind == T_COMMENT;
	}
	*out = t;
	return nr;
}

/* Appends the inside of a quoted string or comment with quoted pairs read. */
static void add_unquoted(struct buf *b, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n)
			i++;
		buf_addc(b, p[i]);
	}
}

/* The display name from phrase tokens t[0..n): words joined with one
 * space where the field had white space, then RFC 2047-decoded. */
static char *phrase_name(const struct token *t, size_t n)
{
	struct buf raw = BUF_INIT, out = BUF_INIT;
	size_t i, start, end;

	for (i = 0; i < n; i++) {
		if (t[i].kind == T_COMMENT)
			continue;
		if (raw.len && t[i].space_before)
			buf_addc(&raw, ' ');
		if (t[i].kind == T_QUOTED)
			add_unquoted(&raw, t[i].p, t[i].n);
		else
			buf_add(&raw, t[i].p, t[i].n);
	}
	charset_decode_words(raw.data, raw.len, &out);
	for (start = 0; start < out.len && is_wsp(out.data[start]); start++)
		;
	for (end = out.len; end > start && is_wsp(out.data[end - 1]); end--)
		;
	buf_release(&raw);
	raw.len = 0;
	buf_add(&raw, out.data + start, end - start);
	buf_release(&out);
	return buf_detach(&raw, NULL);
}

/* The addr-spec in s[0..n) with white space and comments outside quotes
 * removed and an obsolete route ("@a,@b:") dropped, into out. */
static void addr_clean(const char *s, size_t n, struct buf *out)
{
	size_t i, colon = 0;
	int quoted = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (quoted) {
			buf_addc(out, c);
			if (c == '\\' && i + 1 < n)
				buf_addc(out, s[++i]);
			else if (c == '"')
				quoted = 0;
		} else if (c == '"') {
			quoted = 1;
			buf_addc(out, c);
		} else if (c == '(') {
			size_t depth = 0;

			for (; i < n; i++) {
				if (s[i] == '\\' && i + 1 < n)
					i++;
				else if (s[i] == '(')
					depth++;
				else if (s[i] == ')' && !--depth)
					break;
			}
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			continue;
		} else {
			buf_addc(out, c);
		}
	}
	if (out->len && out->data[0] == '@') {
		for (i = 0; i < out->len; i++)
			if (out->data[i] == ':')
				colon = i + 1;
		if (colon) {
			memmove(out->data, out->data + colon, out->len - colon);
			buf_truncate(out, out->len - colon);
		}
	}
}

/* 1 when e looks like local@domain: both sides non-empty, no controls,
 * not too long. */
static int email_ok(const struct buf *e)
{
	const char *at = e->len ? strrchr(e->data, '@') : NULL;
	size_t i;

	if (!at || at == e->data || !at[1] || e->len > ADDRESS_MAX_EMAIL)
		return 0;
	for (i = 0; i < e->len; i++)
		if ((unsigned char)e->data[i] < ' ' || e->data[i] == 0x7f || e->data[i] == '<' ||
		    e->data[i] == '>')
			return 0;
	return 1;
}

/* Reads one list element t[0..n) into an address; 0, or -1 (dropped). */
static int element_parse(const struct token *t, size_t n, struct address *a, struct buf *email)
{
	struct buf clean = BUF_INIT;
	size_t i, angle = n, last_comment = n;

	for (i = 0; i < n; i++) {
		if (t[i].kind == T_ANGLE && angle == n)
			angle = i;
		if (t[i].kind == T_COMMENT)
			last_comment = i;
	}
	buf_reset(email);
	if (angle < n) {
		addr_clean(t[angle].p, t[angle].n, email);
	} else {
		for (i = 0; i < n; i++) {
			if (t[i].kind == T_COMMENT)
				continue;
			if (t[i].kind == T_QUOTED) {
				buf_addc(email, '"');
				buf_add(email, t[i].p, t[i].n);
				buf_addc(email, '"');
			} else {
				addr_clean(t[i].p, t[i].n, email);
			}
		}
	}
	if (!email_ok(email))
		return -1;
	charset_repair_utf8(email->data, email->len, &clean);
	a->email = buf_detach(&clean, NULL);
	if (angle < n)
		a->name = phrase_name(t, angle);
	else if (last_comment < n)
		a->name = phrase_name(&(struct token){ T_QUOTED, t[last_comment].p,
						       t[last_comment].n, 0 }, 1);
	else
		a->name = xstrdup("");
	return 0;
}

void mail_addresses_parse(const char *field, const char *body, struct address **list,
			  size_t *nr, size_t *alloc, struct buf *problems)
{
	struct token *t = NULL;
	struct buf email = BUF_INIT, q = BUF_INIT, raw = BUF_INIT;
	size_t n = tokenize(body, &t), i = 0, start = 0, count = 0;
	int in_group = 0;

	for (i = 0; i <= n; i++) {
		struct address a = { NULL, NULL };
		int end_group = 0;

		if (i < n && t[i].kind == T_SPECIAL && t[i].p[0] == ':' && !in_group) {
			in_group = 1;	/* "group: a, b;": the group name is not an address */
			start = i + 1;
			continue;
		}
		if (i < n && t[i].kind == T_SPECIAL && t[i].p[0] == ';' && in_group)
			end_group = 1;
		if (i < n && !end_group && !(t[i].kind == T_SPECIAL && t[i].p[0] == ','))
			continue;
		if (start < i) {
			size_t j, words = 0;

			for (j = start; j < i; j++)
				if (t[j].kind != T_COMMENT)
					words++;
			if (words && element_parse(t + start, i - start, &a, &email) < 0) {
				buf_reset(&raw);
				buf_add(&raw, t[start].p, (size_t)(t[i - 1].p + t[i - 1].n - t[start].p));
				add_line(problems, "%s: %s is not an address; dropped", field,
					 quoted(&q, raw.data));
			} else if (words && ++count > ADDRESS_MAX_LIST) {
				address_release(&a);
				add_line(problems, "%s: more than %d addresses; the rest were ignored",
					 field, ADDRESS_MAX_LIST);
				break;
			} else if (words) {
				ALLOC_GROW(*list, *nr + 1, *alloc);
				(*list)[(*nr)++] = a;
			}
		}
		if (end_group)
			in_group = 0;
		start = i + 1;
	}
	free(t);
	buf_release(&email);
	buf_release(&q);
	buf_release(&raw);
}

/* ---- the body ---- */

/* The first word of a field body, lowercase, into w. */
static void first_word(const char *body, struct buf *w)
{
	const char *p = body;

	buf_reset(w);
	while (is_wsp(*p))
		p++;
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
	enum mime_encoding enc = mime_encoding_of(encoding);
	const char *in = body, *used = NULL;
	size_t i, len = n;
	long bad = 0;
	int outcome;

	switch (enc) {
	case MIME_QP:
		bad = mime_decode_qp(body, n, &decoded);
		in = decoded.data;
		len = decoded.len;
		if (bad > 0)
			problem(m, "the text has %ld malformed quoted-printable sequence%s, kept as "
				"they are", bad, bad == 1 ? "" : "s");
		break;
	case MIME_BASE64:
		bad = mime_decode_base64(body, n, &decoded);
		in = decoded.data;
		len = decoded.len;
		if (bad > 0)
			problem(m, "the text has %ld character%s that are not base64, skipped",
				bad, bad == 1 ? "" : "s");
		break;
	case MIME_UNKNOWN:
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
static void body_single(struct mail *m, const struct header *h, const struct mime_field *ct,
			const char *raw, size_t len)
{
	struct mime_field cd;
	int attachment = 0;
	struct buf err = BUF_INIT;

	/* The whole message is this part: a file name alone does not make
	 * it an attachment (in a multipart it does, see mime.h), only an
	 * explicit Content-Disposition does. */
	if (h->body[F_CONTENT_DISPOSITION] &&
	    !mime_field_parse(h->body[F_CONTENT_DISPOSITION], 0, &cd, &err)) {
		if (!strcmp(cd.value, "attachment"))
			attachment = 1;
		mime_field_release(&cd);
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
	struct mime_field ct;
	struct buf err = BUF_INIT, q = BUF_INIT;
	const char *body = h->body[F_CONTENT_TYPE];

	if (!body || mime_field_parse(body, 1, &ct, &err)) {
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
	mime_field_release(&ct);
	buf_release(&err);
	buf_release(&q);
}

/* ---- the header fields ---- */

static char *decoded_text(const char *body)
{
	struct buf out = BUF_INIT, trimmed = BUF_INIT;
	size_t start = 0, end;

	charset_decode_words(body, strlen(body), &out);
	while (start < out.len && is_wsp(out.data[start]))
		start++;
	end = out.len;
	while (end > start && is_wsp(out.data[end - 1]))
		end--;
	buf_add(&trimmed, out.data + start, end - start);
	buf_release(&out);
	return buf_detach(&trimmed, NULL);
}

static void read_ids(struct mail *m, const struct header *h)
{
	struct buf lines = BUF_INIT, q = BUF_INIT;
	char **ids = NULL;
	size_t nr = 0, alloc = 0, i;
	const char *mid = h->body[F_MESSAGE_ID];

	if (mid) {
		mail_ids_parse("Message-ID", mid, &ids, &nr, &alloc, &lines);
		if (nr) {
			m->message_id = ids[0];
			for (i = 1; i < nr; i++)
				free(ids[i]);
		} else {
			/* a bare id-left@id-right without brackets */
			struct buf id = BUF_INIT;

			buf_reset(&lines);
			if (strchr(mid, '@') && !strchr(mid, '<') && !id_clean(mid, strlen(mid), &id)) {
				problem(m, "Message-ID %s has no angle brackets", quoted(&q, mid));
				m->message_id = buf_detach(&id, NULL);
			} else {
				problem(m, "malformed Message-ID %s", quoted(&q, mid));
			}
			buf_release(&id);
		}
		free(ids);
	}
	alloc = 0;
	if (h->body[F_IN_REPLY_TO])
		mail_ids_parse("In-Reply-To", h->body[F_IN_REPLY_TO], &m->in_reply_to,
			       &m->nr_in_reply_to, &alloc, &lines);
	alloc = 0;
	if (h->body[F_REFERENCES])
		mail_ids_parse("References", h->body[F_REFERENCES], &m->references,
			       &m->nr_references, &alloc, &lines);
	problems_from(m, &lines);
	buf_release(&lines);
	buf_release(&q);
}

static void read_addresses(struct mail *m, const struct header *h)
{
	struct buf lines = BUF_INIT;
	struct address *from = NULL;
	size_t nr = 0, alloc = 0, i;

	if (h->body[F_FROM]) {
		mail_addresses_parse("From", h->body[F_FROM], &from, &nr, &alloc, &lines);
		if (nr) {
			m->from = xmalloc(sizeof(*m->from));
			*m->from = from[0];
			for (i = 1; i < nr; i++)
				address_release(&from[i]);
		}
		free(from);
	}
	if (!m->from)
		problem(m, h->body[F_FROM] ? "no address could be read from the From field" :
					     "no From field");
	alloc = 0;
	if (h->body[F_TO])
		mail_addresses_parse("To", h->body[F_TO], &m->to, &m->nr_to, &alloc, &lines);
	alloc = 0;
	if (h->body[F_CC])
		mail_addresses_parse("Cc", h->body[F_CC], &m->cc, &m->nr_cc, &alloc, &lines);
	problems_from(m, &lines);
	buf_release(&lines);
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
	for (i = 0; i < m->nr_problems; i++)
		free(m->problems[i]);
	free(m->problems);
	free(m);
}
