#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "header.h"
#include "rfc5322.h"
#include "xalloc.h"
#include "banned.h"

static int is_wsp(char c)
{
	return c == ' ' || c == '\t';
}

/* Perl's \s, which public-inbox's patterns use. */
static int is_perl_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* ---- the header block ---- */

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
	while (l && p[l - 1] == '\r')
		l--;	/* as rfc5322_lf() reads "\r\r\n": one line end */
	return l;
}

/* The length of the field name at the start of a line, and in *colon
 * where its colon is; 0 when the line is not a field. */
static size_t field_name(const char *p, size_t l, unsigned flags, size_t *colon)
{
	size_t i = 0, n;

	while (i < l && (unsigned char)p[i] > ' ' && (unsigned char)p[i] < 0x7f && p[i] != ':')
		i++;
	n = i;
	if (!(flags & RFC5322_PI_LINES))
		while (i < l && is_wsp(p[i]))
			i++;
	if (!n || i >= l || p[i] != ':')
		return 0;
	*colon = i;
	return n;
}

/* Whether the line at p continues the field above it. */
static int line_continues(const char *p, size_t l, unsigned flags)
{
	size_t i;

	if (!(flags & RFC5322_PI_LINES))
		return l && is_wsp(p[0]);
	/* Eml.pm's continuation pattern: [^:\n]*?[ \t]+ */
	for (i = 0; i < l; i++) {
		if (p[i] == ':')
			return 0;
		if (is_wsp(p[i]))
			return 1;
	}
	return 0;
}

void rfc5322_reader_init(struct rfc5322_reader *r, const char *raw, size_t len,
			 unsigned flags)
{
	memset(r, 0, sizeof(*r));
	r->raw = raw;
	r->len = len;
	r->flags = flags;
	r->line_max = SIZE_MAX;
	r->body = len;
	if ((flags & RFC5322_MBOX_FROM) && len >= 5 && !memcmp(raw, "From ", 5)) {
		size_t next, colon, l = line_at(raw, len, &next);

		/* an mbox "From " line, unless it is an obsolete "From :" field */
		if (!field_name(raw, l, flags & ~RFC5322_PI_LINES, &colon))
			r->pos = next;
	}
	r->start = r->pos;
}

/* Counts a header line of length l starting at pos. */
static void line_seen(struct rfc5322_reader *r, size_t pos, size_t l)
{
	r->lines++;
	r->end = pos + l;
	if (l > r->line_max && !r->long_line)
		r->long_line = r->lines;
}

int rfc5322_next(struct rfc5322_reader *r, struct rfc5322_field *f)
{
	while (!r->done && r->pos < r->len) {
		const char *p = r->raw + r->pos;
		size_t next, l = line_at(p, r->len - r->pos, &next), colon, n, vend;

		if (!l) {
			r->body = r->pos + next;	/* the empty line ends the header */
			r->done = 1;
			return 0;
		}
		if (line_continues(p, l, r->flags)) {
			line_seen(r, r->pos, l);
			if (!r->fields)
				r->leading++;
			r->pos += next;	/* nothing to continue: passed over */
			continue;
		}
		n = field_name(p, l, r->flags, &colon);
		if (!n && (r->flags & RFC5322_PI_LINES)) {
			line_seen(r, r->pos, l);
			r->pos += next;
			continue;
		}
		if (!n) {
			/* the body starts at a line that is not a field */
			r->body = r->pos;
			if (r->fields)
				r->stray = r->lines + 1;
			r->done = 1;
			return 0;
		}
		line_seen(r, r->pos, l);
		f->name = p;
		f->name_len = n;
		f->value = p + colon + 1;
		f->line = r->lines;
		f->longest = l;
		vend = r->pos + l;
		r->pos += next;
		while (r->pos < r->len) {
			const char *c = r->raw + r->pos;

			l = line_at(c, r->len - r->pos, &next);
			if (!l || !line_continues(c, l, r->flags))
				break;
			line_seen(r, r->pos, l);
			if (l > f->longest)
				f->longest = l;
			vend = r->pos + l;
			r->pos += next;
		}
		f->value_len = (size_t)(r->raw + vend - f->value);
		r->fields++;
		return 1;
	}
	r->done = 1;
	return 0;
}

int rfc5322_is(const struct rfc5322_field *f, const char *name)
{
	return strlen(name) == f->name_len && !strncasecmp(f->name, name, f->name_len);
}

size_t rfc5322_unfold(const struct rfc5322_field *f, unsigned how, struct buf *out)
{
	const char *p = f->value, *e = f->value + f->value_len;
	size_t before = out->len;

	if (!(how & RFC5322_PI_LINES)) {
		for (; p < e; p++) {
			if (*p == '\n' || (*p == '\r' && p + 1 < e && p[1] == '\n'))
				continue;
			if (*p)
				buf_addc(out, *p);
			else
				buf_adds(out, "\xef\xbf\xbd");
		}
		return out->len - before;
	}
	while (p < e && is_perl_space(*p))
		p++;
	while (e > p && is_perl_space(e[-1]))
		e--;
	while (p < e) {
		if (*p == '\n' || (*p == '\r' && p + 1 < e && p[1] == '\n')) {
			buf_addc(out, ' ');
			for (p += *p == '\r' ? 2 : 1; p < e && is_wsp(*p); p++)
				;
			continue;
		}
		buf_addc(out, *p ? *p : ' ');
		p++;
	}
	return out->len - before;
}

const char *rfc5322_lf(const char *raw, size_t *len, struct buf *tmp)
{
	const char *p = raw, *end = raw + *len, *cr;

	if (!memchr(raw, '\r', *len))
		return raw;
	buf_reset(tmp);
	while ((cr = memchr(p, '\r', (size_t)(end - p)))) {
		const char *run = cr;

		buf_add(tmp, p, (size_t)(cr - p));
		/* a run of CRs before LF goes whole, so that doing it twice
		 * changes nothing ("\r\r\n" once would leave "\r\n") */
		while (run < end && *run == '\r')
			run++;
		if (run == end || *run != '\n')
			buf_add(tmp, cr, (size_t)(run - cr));
		p = run;
	}
	buf_add(tmp, p, (size_t)(end - p));
	*len = tmp->len;
	return tmp->data;
}

/* ---- tokens ---- */

const char *rfc5322_comment_end(const char *p, const char *end)
{
	size_t depth = 0;

	for (; p < end; p++) {
		if (*p == '\\' && p + 1 < end) {
			p++;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && !--depth) {
			return p + 1;
		}
	}
	return end;
}

const char *rfc5322_skip_comment(const char *p)
{
	return rfc5322_comment_end(p, p + strlen(p));
}

const char *rfc5322_skip_cfws(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p != '(')
			return p;
		p = rfc5322_skip_comment(p);
	}
}

/* The end of the quoted string whose opening quote is at s (the position
 * after its closing quote, or the end of the string). */
static const char *quoted_end(const char *s)
{
	for (s++; *s && *s != '"'; s++)
		if (*s == '\\' && s[1])
			s++;
	return *s ? s + 1 : s;
}

/* Reads the quoted string or <...> opened at s into tok: its inside (in
 * quotes a quoted pair is skipped whole, in <...> a quoted string) and
 * whether it was closed; returns the position after it. */
static const char *delimited(const char *s, char close, struct rfc5322_token *tok)
{
	tok->p = ++s;
	while (*s && *s != close) {
		if (close == '>' && *s == '"')
			s = quoted_end(s);
		else
			s += close == '"' && *s == '\\' && s[1] ? 2 : 1;
	}
	tok->n = (size_t)(s - tok->p);
	if (*s)
		return s + 1;
	tok->open = 1;
	return s;
}

size_t rfc5322_tokenize(const char *s, unsigned mode, struct rfc5322_token **out)
{
	const char *specials = mode & RFC5322_NO_COMMENTS ? ",;:@.[]>" : ",;:@.[]>)";
	const char *stops = mode & RFC5322_NO_COMMENTS ? " \t\r\n\"<,;:@.[]>" :
							 " \t\r\n()\"<,;:@.[]>";
	struct rfc5322_token *t = NULL;
	size_t nr = 0, alloc = 0;
	int space = 0;

	while (*s) {
		struct rfc5322_token tok = { RFC5322_ATOM, s, 0, s, s, space, 0 };

		if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
			s++;
			space = 1;
			continue;
		}
		if (*s == '(' && !(mode & RFC5322_NO_COMMENTS)) {
			const char *end = rfc5322_skip_comment(s);

			tok.kind = RFC5322_COMMENT;
			tok.p = s + 1;
			tok.n = (size_t)(end - s - 1);
			if (tok.n && end[-1] == ')')
				tok.n--;
			else
				tok.open = 1;
			s = end;
		} else if (*s == '"') {
			tok.kind = RFC5322_QUOTED;
			s = delimited(s, '"', &tok);
		} else if (*s == '<') {
			tok.kind = RFC5322_ANGLE;
			s = delimited(s, '>', &tok);
		} else if (strchr(specials, *s)) {
			tok.kind = RFC5322_SPECIAL;
			tok.n = 1;
			s++;
		} else {
			while (*s && !strchr(stops, *s))
				s++;
			tok.n = (size_t)(s - tok.p);
		}
		tok.end = s;
		ALLOC_GROW(t, nr + 1, alloc);
		t[nr++] = tok;
		space = tok.kind == RFC5322_COMMENT;
	}
	*out = t;
	return nr;
}

void rfc5322_unquote(const char *p, size_t n, struct buf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n)
			i++;
		buf_addc(out, p[i]);
	}
}

/* ---- msg-ids ---- */

/* s (C string) quoted for a problem. */
static const char *quoted(struct buf *q, const char *s, size_t n)
{
	struct buf raw = BUF_INIT;

	buf_reset(q);
	buf_add(&raw, s, n);
	header_quote_input(q, raw.data);
	buf_release(&raw);
	return q->data;
}

/* The id in in[0..n) (between the brackets) with CFWS outside quotes
 * removed, into id; 0 when it is a usable id. */
static int id_clean(const char *in, size_t n, struct buf *id)
{
	size_t i = 0, depth;
	int ok = 1;

	while (i < n) {
		char c = in[i];

		if (c == '"') {
			/* a quoted local part stays quoted, and may hold no space */
			buf_addc(id, in[i++]);
			while (i < n && in[i] != '"') {
				if (in[i] == '\\' && i + 1 < n)
					buf_addc(id, in[i++]);
				if (is_wsp(in[i]) || in[i] == '\r' || in[i] == '\n')
					ok = 0;
				buf_addc(id, in[i++]);
			}
			if (i >= n)
				return -1;
			buf_addc(id, in[i++]);
		} else if (c == '(') {
			for (depth = 0; i < n; i++) {
				if (in[i] == '\\' && i + 1 < n)
					i++;
				else if (in[i] == '(')
					depth++;
				else if (in[i] == ')' && !--depth)
					break;
			}
			i++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			i++;
		} else {
			buf_addc(id, in[i++]);
		}
	}
	if (!id->len || id->len > RFC5322_MAX_ID)
		ok = 0;
	for (i = 0; ok && i < id->len; i++)
		if ((unsigned char)id->data[i] <= ' ' || (unsigned char)id->data[i] >= 0x7f ||
		    id->data[i] == '<')
			ok = 0;
	return ok ? 0 : -1;
}

/* The '>' that closes the id opened at p[0] ('<'): quoted strings and
 * comments inside may hold one.  NULL when there is none. */
static const char *id_close(const char *p)
{
	for (p++; *p && *p != '>'; ) {
		if (*p == '"')
			p = quoted_end(p);
		else if (*p == '(')
			p = rfc5322_skip_comment(p);
		else
			p++;
	}
	return *p ? p : NULL;
}

void rfc5322_ids(const char *field, const char *body, char ***ids, size_t *nr, size_t *alloc,
		 const struct problems *pr)
{
	const char *p = body;
	struct buf id = BUF_INIT, q = BUF_INIT;
	size_t found = 0;

	while (*p) {
		const char *close;

		if (*p == '(') {
			p = rfc5322_skip_comment(p);
			continue;
		}
		if (*p == '"') {
			p = quoted_end(p);
			continue;
		}
		if (*p != '<') {
			p++;
			continue;
		}
		close = id_close(p);
		if (!close) {
			problem_add(pr, "%s: an id without its closing '>' was dropped: %s", field,
				    quoted(&q, p, strlen(p)));
			break;
		}
		buf_reset(&id);
		if (id_clean(p + 1, (size_t)(close - p - 1), &id)) {
			problem_add(pr, "%s: malformed id %s dropped", field,
				    quoted(&q, p, (size_t)(close + 1 - p)));
		} else if (++found > RFC5322_MAX_IDS) {
			problem_add(pr, "%s: more than %d ids; the rest were ignored", field,
				    RFC5322_MAX_IDS);
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

int rfc5322_message_id(const char *body, struct buf *id, const struct problems *pr)
{
	char **ids = NULL, **notes = NULL;
	size_t nr = 0, alloc = 0, nr_notes = 0, i;
	struct problems mine = { &notes, &nr_notes, pr ? pr->max : SIZE_MAX - 1, pr ? pr->more : "" };
	struct buf q = BUF_INIT;
	int ret = 0;

	rfc5322_ids("Message-ID", body, &ids, &nr, &alloc, &mine);
	if (nr) {
		buf_adds(id, ids[0]);
		/* what was dropped beside the id is worth saying */
		for (i = 0; i < nr_notes; i++)
			problem_add(pr, "%s", notes[i]);
	} else if (strchr(body, '@') && !strchr(body, '<') && !id_clean(body, strlen(body), id)) {
		/* a bare id-left@id-right without brackets, as mail readers take it */
		problem_add(pr, "Message-ID %s has no angle brackets", quoted(&q, body, strlen(body)));
	} else {
		buf_reset(id);
		problem_add(pr, "malformed Message-ID %s", quoted(&q, body, strlen(body)));
		ret = -1;
	}
	problems_free(ids, nr);
	problems_free(notes, nr_notes);
	buf_release(&q);
	return ret;
}
