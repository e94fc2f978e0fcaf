#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "archive-meta.h"
#include "date.h"
#include "header.h"
#include "rfc2047.h"
#include "rfc5322.h"
#include "banned.h"

/* The fields the metadata comes from. */
enum kind { K_FROM, K_SENDER, K_SUBJECT, K_DATE, K_RECEIVED, K_COUNT };

static const char *const kind_names[K_COUNT] = {
	[K_FROM] = "From", [K_SENDER] = "Sender", [K_SUBJECT] = "Subject",
	[K_DATE] = "Date", [K_RECEIVED] = "Received",
};

/* What the header gave, while it is read. */
struct reading {
	struct rfc5322_field first[K_COUNT];	/* the first field of each kind */
	int has[K_COUNT];
	struct archive_stamp date, received;	/* the first readable ones */
	int has_date, has_received;
	struct buf text, tmp;	/* scratch */
};

/* Perl's \s, which public-inbox's patterns use. */
static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int utf8_valid(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t l = header_utf8_char(s + i, n - i);

		if (!l)
			return 0;
		i += l;
	}
	return 1;
}

/*
 * Makes decoded header text fit for a commit, as public-inbox does: CR
 * dropped, NUL, TAB and LF made spaces, '<' and '>' dropped when
 * strip_angles, and text that is not UTF-8 read as Latin-1 (Perl's
 * utf8::decode failing, then utf8::encode).
 */
static void text_clean(const struct buf *in, struct buf *out, int strip_angles)
{
	size_t i;
	int latin1 = !utf8_valid(in->data, in->len);

	for (i = 0; i < in->len; i++) {
		unsigned char c = (unsigned char)in->data[i];

		if (c == '\r' || (strip_angles && (c == '<' || c == '>')))
			continue;
		if (c == '\0' || c == '\t' || c == '\n')
			c = ' ';
		if (latin1 && c >= 0x80) {
			buf_addc(out, (char)(0xc0 | c >> 6));
			buf_addc(out, (char)(0x80 | (c & 0x3f)));
		} else {
			buf_addc(out, (char)c);
		}
	}
}

/* Appends s (a C string) with RFC 2047 words decoded, then cleaned. */
static void text_decode(struct reading *r, const char *s, struct buf *out, int strip_angles)
{
	buf_reset(&r->tmp);
	rfc2047_decode(s, strlen(s), RFC2047_RAW, &r->tmp);
	text_clean(&r->tmp, out, strip_angles);
}

/* Appends s[0..n) without the blanks around it. */
static void add_trimmed(const char *s, size_t n, struct buf *out)
{
	while (n && is_space(*s)) {
		s++;
		n--;
	}
	while (n && is_space(s[n - 1]))
		n--;
	buf_add(out, s, n);
}

/*
 * The author name and address, from the From: field (or Sender: for what
 * From: lacks), with public-inbox's choice of name: the display name,
 * else a comment, else the address's local part.
 */
static void author_read(struct reading *r, struct buf *name, struct buf *email)
{
	static const enum kind kinds[] = { K_FROM, K_SENDER };
	size_t k;

	for (k = 0; k < 2 && (!name->len || !email->len); k++) {
		struct address_raw *v = NULL;
		struct buf n = BUF_INIT, e = BUF_INIT;
		const char *at;
		size_t nr;

		if (!r->has[kinds[k]])
			continue;
		buf_reset(&r->text);
		rfc5322_unfold(&r->first[kinds[k]], RFC5322_PI_LINES, &r->text);
		nr = address_raw_read(r->text.data, &v);
		/* the first mailbox: a bare one's words are its address when they
		 * hold an '@', else its name */
		if (nr && (v[0].angle || strchr(v[0].email, '@')))
			add_trimmed(v[0].email, strlen(v[0].email), &e);
		if (nr && (v[0].angle || !e.len) && *v[0].phrase)
			text_decode(r, v[0].phrase, &n, 1);
		if (nr && !n.len && v[0].comment)
			text_decode(r, v[0].comment, &n, 1);
		if (n.len && e.len && !strcmp(n.data, e.data))
			buf_reset(&n);	/* "addr" <addr> names no one */
		if (!n.len && e.len && (at = strrchr(e.data, '@'))) {
			buf_reset(&r->tmp);
			buf_add(&r->tmp, e.data, (size_t)(at - e.data));
			text_clean(&r->tmp, &n, 1);
		}
		if (!name->len)
			buf_add(name, n.data, n.len);
		if (!email->len) {
			buf_reset(&r->tmp);
			buf_add(&r->tmp, e.data, e.len);
			text_clean(&r->tmp, email, 1);
		}
		address_raw_free(v, nr);
		buf_release(&n);
		buf_release(&e);
	}
	if (!name->len)
		buf_adds(name, "unknown");
	if (!email->len)
		buf_adds(email, "unknown@unknown");
}

/* ---- dates ---- */

/* A date as git writes it: public-inbox turns zones of 14:00 and more
 * into +0000 and does not read dates before 1970. */
static int stamp_parse(const char *s, struct archive_stamp *st)
{
	int64_t t;
	int zone, abs_zone;

	if (date_parse_rfc5322(s, &t, &zone) || t < 0)
		return -1;
	abs_zone = zone < 0 ? -zone : zone;
	if ((abs_zone / 60) * 100 + abs_zone % 60 >= 1400)
		zone = 0;
	st->time = t;
	st->zone = zone;
	return 0;
}

static size_t digits(const char *s)
{
	size_t n = 0;

	while (is_digit(s[n]))
		n++;
	return n;
}

static size_t spaces(const char *s)
{
	size_t n = 0;

	while (is_space(s[n]))
		n++;
	return n;
}

/*
 * The length of public-inbox's Received: date pattern at s, 0 when it is
 * not there:  [0-9]+\s+[a-zA-Z]+\s+[0-9]{2,4}\s+[0-9]+[^0-9][0-9]+
 * [^0-9][0-9]+\s+[+-][0-9]+  (every run is maximal, so no backtracking).
 */
static size_t received_date_len(const char *s)
{
	const char *p = s;
	size_t n;
	int part;

	if (!(n = digits(p)))
		return 0;
	p += n;
	if (!(n = spaces(p)))
		return 0;
	p += n;
	for (n = 0; (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z'); n++)
		;
	if (!n)
		return 0;
	p += n;
	if (!(n = spaces(p)))
		return 0;
	p += n;
	n = digits(p);
	if (n < 2 || n > 4)
		return 0;
	p += n;
	if (!(n = spaces(p)))
		return 0;
	p += n;
	for (part = 0; part < 3; part++) {
		if (part && (!*p || is_digit(*p)))
			return 0;
		if (part)
			p++;
		if (!(n = digits(p)))
			return 0;
		p += n;
	}
	if (!(n = spaces(p)))
		return 0;
	p += n;
	if (*p != '+' && *p != '-')
		return 0;
	p++;
	if (!(n = digits(p)))
		return 0;
	return (size_t)(p + n - s);
}

/* The date of a Received: value: the first place the pattern matches. */
static int received_stamp(struct reading *r, const char *s, struct archive_stamp *st)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		size_t n;

		if (!is_digit(s[i]) || (i && is_digit(s[i - 1])))
			continue;
		if (!(n = received_date_len(s + i)))
			continue;
		buf_reset(&r->tmp);
		buf_add(&r->tmp, s + i, n);
		return stamp_parse(r->tmp.data, st);
	}
	return -1;
}

/* Notes a field the metadata needs: the first of each kind, and the
 * first readable Date: and Received: stamps. */
static void field_note(struct reading *r, const struct rfc5322_field *f)
{
	int k;

	for (k = 0; k < K_COUNT; k++)
		if (rfc5322_is(f, kind_names[k]))
			break;
	if (k == K_COUNT)
		return;
	if (!r->has[k]) {
		r->first[k] = *f;
		r->has[k] = 1;
	}
	if (k == K_DATE && !r->has_date) {
		buf_reset(&r->text);
		rfc5322_unfold(f, RFC5322_PI_LINES, &r->text);
		r->has_date = !stamp_parse(r->text.data, &r->date);
	} else if (k == K_RECEIVED && !r->has_received) {
		buf_reset(&r->text);
		rfc5322_unfold(f, RFC5322_PI_LINES, &r->text);
		r->has_received = !received_stamp(r, r->text.data, &r->received);
	}
}

/* -1 with the reason when the header read so far is over a limit. */
static int limits_check(const struct rfc5322_reader *rd, struct buf *err)
{
	if (rd->lines > ARCHIVE_HEADER_LINES_MAX)
		return err_set(err, "the header has more than %d lines", ARCHIVE_HEADER_LINES_MAX);
	if (rd->long_line)
		return err_set(err, "header line %zu is longer than %d bytes", rd->long_line,
			       ARCHIVE_HEADER_LINE_MAX);
	if (rd->end > ARCHIVE_HEADER_MAX)
		return err_set(err, "the header is longer than %u bytes", ARCHIVE_HEADER_MAX);
	return 0;
}

int archive_meta_read(const char *msg, size_t len, int64_t now, struct archive_meta *out,
		      struct buf *err)
{
	struct reading r;
	struct rfc5322_reader rd;
	struct rfc5322_field f;
	struct archive_stamp fallback = { now < 0 ? 0 : now, 0 };
	int rc = 0;

	memset(&r, 0, sizeof(r));
	buf_init(&r.text);
	buf_init(&r.tmp);
	rfc5322_reader_init(&rd, msg, len, RFC5322_PI_LINES);
	rd.line_max = ARCHIVE_HEADER_LINE_MAX;
	while (rfc5322_next(&rd, &f) && !(rc = limits_check(&rd, err)))
		field_note(&r, &f);
	if (rc || (rc = limits_check(&rd, err)) < 0)
		goto out;

	buf_init(&out->name);
	buf_init(&out->email);
	buf_init(&out->message);
	out->author = r.has_date ? r.date : r.has_received ? r.received : fallback;
	out->commit = r.has_received ? r.received : r.has_date ? r.date : fallback;
	author_read(&r, &out->name, &out->email);
	if (r.has[K_SUBJECT]) {
		buf_reset(&r.text);
		rfc5322_unfold(&r.first[K_SUBJECT], RFC5322_PI_LINES, &r.text);
		text_decode(&r, r.text.data, &out->message, 0);
	}
	if (!out->message.len)
		buf_adds(&out->message, "(no subject)");
	buf_addc(&out->message, '\n');
out:
	buf_release(&r.text);
	buf_release(&r.tmp);
	return rc;
}

void archive_meta_release(struct archive_meta *m)
{
	buf_release(&m->name);
	buf_release(&m->email);
	buf_release(&m->message);
}

static void stamp_format(struct buf *out, const struct archive_stamp *st)
{
	int z = st->zone < 0 ? -st->zone : st->zone;

	buf_addf(out, " %" PRId64 " %c%02d%02d", st->time, st->zone < 0 ? '-' : '+', z / 60, z % 60);
}

void archive_meta_commit(const struct archive_meta *m, const char *tree, const char *parent,
			 const char *committer, struct buf *out)
{
	buf_addf(out, "tree %s\n", tree);
	if (parent)
		buf_addf(out, "parent %s\n", parent);
	buf_addf(out, "author %s <%s>", m->name.data, m->email.data);
	stamp_format(out, &m->author);
	buf_addf(out, "\ncommitter %s", committer);
	stamp_format(out, &m->commit);
	buf_adds(out, "\n\n");
	buf_add(out, m->message.data, m->message.len);
}
