/*
 * The patch in a mail, found by git mailinfo's rules (mailinfo.c, with
 * --scissors and its defaults: in-body headers on, quoted CR kept).  The
 * first half follows git's code closely, function for function, so that
 * the patch file is the one git writes; the second half checks the patch
 * the way patchwork and git apply read it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "charset.h"
#include "patchmail.h"
#include "percent.h"
#include "problem.h"
#include "rfc2047.h"
#include "xalloc.h"
#include "banned.h"

enum { H_FROM, H_SUBJECT, H_DATE, H_COUNT };
static const char *const header_names[H_COUNT] = { "From", "Subject", "Date" };

enum { TE_DONTCARE, TE_QP, TE_BASE64 };

struct mi {
	const char *in;		/* the input, CR before LF removed */
	size_t len, pos;
	struct buf *content[PATCHMAIL_MAX_BOUNDARIES];	/* [0] stays NULL */
	int top;
	int transfer_encoding;
	int format_flowed, delsp;
	struct buf charset;
	struct buf *p_hdr[H_COUNT], *s_hdr[H_COUNT];
	struct buf accum;	/* in-body header being gathered */
	int header_stage, filter_stage;
	struct buf log, patch;
	size_t patch_lines;
	int too_big;
	struct buf name, email;
};

/* git's isspace(): space, \t, \n, \r only */
static int g_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void rtrim(struct buf *b)
{
	while (b->len && g_isspace((unsigned char)b->data[b->len - 1]))
		b->len--;
	b->data[b->len] = '\0';
}

static void trim(struct buf *b)
{
	size_t s = 0;

	rtrim(b);
	while (s < b->len && g_isspace((unsigned char)b->data[s]))
		s++;
	memmove(b->data, b->data + s, b->len - s + 1);
	b->len -= s;
}

static void buf_set(struct buf *b, const char *s, size_t n)
{
	struct buf t = BUF_INIT;

	buf_add(&t, s, n);
	buf_reset(b);
	buf_add(b, t.data, t.len);
	buf_release(&t);
}

/* ---- reading lines (strbuf_getwholeline, strbuf_getline_lf) ---- */

static int get_whole_line(struct mi *mi, struct buf *line)
{
	const char *nl;
	size_t n;

	buf_reset(line);
	if (mi->pos >= mi->len)
		return -1;
	nl = memchr(mi->in + mi->pos, '\n', mi->len - mi->pos);
	n = nl ? (size_t)(nl - (mi->in + mi->pos)) + 1 : mi->len - mi->pos;
	buf_add(line, mi->in + mi->pos, n);
	mi->pos += n;
	return 0;
}

static int get_line_lf(struct mi *mi, struct buf *line)
{
	if (get_whole_line(mi, line))
		return -1;
	if (line->len && line->data[line->len - 1] == '\n')
		buf_truncate(line, line->len - 1);
	return 0;
}

/* ---- header lines ---- */

static int skip_header(const char *line, const char *hdr, const char **outval)
{
	const char *val;

	if (strncasecmp(line, hdr, strlen(hdr)))
		return 0;
	val = line + strlen(hdr);
	if (*val++ != ':')
		return 0;
	while (g_isspace((unsigned char)*val))
		val++;
	*outval = val;
	return 1;
}

/* slurp_attr(): a parameter found anywhere in the line, case ignored */
static int slurp_attr(const char *line, const char *name, struct buf *attr)
{
	const char *ends, *ap = strcasestr(line, name);

	buf_reset(attr);
	if (!ap)
		return 0;
	ap += strlen(name);
	if (*ap == '"') {
		ap++;
		ends = "\"";
	} else {
		ends = "; \t";
	}
	buf_add(attr, ap, strcspn(ap, ends));
	return 1;
}

static int has_attr_value(const char *line, const char *name, const char *value)
{
	struct buf sb = BUF_INIT;
	int rc = slurp_attr(line, name, &sb) && !strcasecmp(sb.data, value);

	buf_release(&sb);
	return rc;
}

static void handle_content_type(struct mi *mi, const char *line)
{
	struct buf boundary = BUF_INIT;

	mi->format_flowed = has_attr_value(line, "format=", "flowed");
	mi->delsp = has_attr_value(line, "delsp=", "yes");
	if (slurp_attr(line, "boundary=", &boundary)) {
		/* git errors out past its stack; the rest is then read as text */
		if (mi->top + 1 < PATCHMAIL_MAX_BOUNDARIES) {
			struct buf *b = xmalloc(sizeof(*b));

			buf_init(b);
			buf_adds(b, "--");
			buf_add(b, boundary.data, boundary.len);
			mi->content[++mi->top] = b;
		}
	}
	slurp_attr(line, "charset=", &mi->charset);
	buf_release(&boundary);
}

static void handle_cte(struct mi *mi, const char *line)
{
	if (strcasestr(line, "base64"))
		mi->transfer_encoding = TE_BASE64;
	else if (strcasestr(line, "quoted-printable"))
		mi->transfer_encoding = TE_QP;
	else
		mi->transfer_encoding = TE_DONTCARE;
}

static int parse_header(const char *line, const char *hdr, struct buf *val)
{
	const char *v;

	if (!skip_header(line, hdr, &v))
		return 0;
	buf_reset(val);
	rfc2047_decode(v, strlen(v), 0, val);
	return 1;
}

static int check_header(struct mi *mi, const char *line, struct buf **hdr, int overwrite)
{
	struct buf sb = BUF_INIT;
	int i, ret = 0;

	for (i = 0; i < H_COUNT; i++) {
		if ((!hdr[i] || overwrite) && parse_header(line, header_names[i], &sb)) {
			if (!hdr[i]) {
				hdr[i] = xmalloc(sizeof(*hdr[i]));
				buf_init(hdr[i]);
			}
			buf_set(hdr[i], sb.data, sb.len);
			ret = 1;
			goto out;
		}
	}
	if (parse_header(line, "Content-Type", &sb)) {
		handle_content_type(mi, sb.data);
		ret = 1;
	} else if (parse_header(line, "Content-Transfer-Encoding", &sb)) {
		handle_cte(mi, sb.data);
		ret = 1;
	} else if (parse_header(line, "Message-ID", &sb)) {
		ret = 1;
	}
out:
	buf_release(&sb);
	return ret;
}

static int is_rfc2822_header(const char *cp)
{
	int ch;

	if (starts_with(cp, "From ") || starts_with(cp, ">From "))
		return 1;
	while ((ch = (unsigned char)*cp++)) {
		if (ch == ':')
			return 1;
		if ((33 <= ch && ch <= 57) || (59 <= ch && ch <= 126))
			continue;
		break;
	}
	return 0;
}

static int read_one_header_line(struct mi *mi, struct buf *line)
{
	struct buf cont = BUF_INIT;

	if (get_line_lf(mi, line))
		return 0;
	rtrim(line);
	if (!line->len || !is_rfc2822_header(line->data)) {
		buf_addc(line, '\n');
		return 0;
	}
	while (mi->pos < mi->len) {
		char peek = mi->in[mi->pos];

		if (peek != ' ' && peek != '\t')
			break;
		if (get_line_lf(mi, &cont))
			break;
		cont.data[0] = ' ';
		rtrim(&cont);
		buf_add(line, cont.data, cont.len);
	}
	buf_release(&cont);
	return 1;
}

/* ---- transfer decoding, one line at a time as git does ----
 * Not rfc2045_decode_qp()/_base64(), which decode a whole body: git
 * decodes each line on its own (a base64 line's partial group is dropped,
 * "=" before trailing blanks stays), and the patch must be git's. */

static void decode_q(struct buf *out, const struct buf *in)
{
	const char *p = in->data, *end = in->data + in->len;

	while (p < end) {
		int c = (unsigned char)*p++;

		if (c == '=') {
			int d = p < end ? (unsigned char)*p : 0;

			if (d == '\n' || !d)
				break;	/* a soft line break */
			if (p + 1 < end && percent_hex(p[0]) >= 0 && percent_hex(p[1]) >= 0) {
				buf_addc(out, (char)(percent_hex(p[0]) << 4 | percent_hex(p[1])));
				p += 2;
				continue;
			}
		}
		buf_addc(out, (char)c);
	}
}

static void decode_b(struct buf *out, const struct buf *in)
{
	int pos = 0, acc = 0;
	size_t i;

	for (i = 0; i < in->len; i++) {
		int c = (unsigned char)in->data[i];

		if (c == '+')
			c = 62;
		else if (c == '/')
			c = 63;
		else if ('A' <= c && c <= 'Z')
			c -= 'A';
		else if ('a' <= c && c <= 'z')
			c -= 'a' - 26;
		else if ('0' <= c && c <= '9')
			c -= '0' - 52;
		else
			continue;
		switch (pos++) {
		case 0:
			acc = c << 2;
			break;
		case 1:
			buf_addc(out, (char)(acc | (c >> 4)));
			acc = (c & 15) << 4;
			break;
		case 2:
			buf_addc(out, (char)(acc | (c >> 2)));
			acc = (c & 3) << 6;
			break;
		case 3:
			buf_addc(out, (char)(acc | c));
			acc = pos = 0;
			break;
		}
	}
}

static void decode_transfer_encoding(struct mi *mi, struct buf *line)
{
	struct buf ret = BUF_INIT;

	if (mi->transfer_encoding == TE_QP)
		decode_q(&ret, line);
	else if (mi->transfer_encoding == TE_BASE64)
		decode_b(&ret, line);
	else
		return;
	buf_reset(line);
	buf_add(line, ret.data, ret.len);
	buf_release(&ret);
}

/* ---- the message and the patch ---- */

static int patchbreak(const struct buf *line)
{
	size_t i;

	if (starts_with(line->data, "diff -") || starts_with(line->data, "Index: "))
		return 1;
	if (line->len < 4 || !starts_with(line->data, "---"))
		return 0;
	if (line->data[3] == ' ' && !g_isspace((unsigned char)line->data[4]))
		return 1;
	for (i = 3; i < line->len; i++) {
		unsigned char c = (unsigned char)line->data[i];

		if (c == '\n')
			return 1;
		if (!g_isspace(c))
			break;
	}
	return 0;
}

static int is_scissors_line(const char *line)
{
	const char *c, *first_nonblank = NULL, *last_nonblank = NULL;
	int scissors = 0, gap = 0, visible, perforation = 0, in_perforation = 0;

	for (c = line; *c; c++) {
		if (g_isspace((unsigned char)*c)) {
			if (in_perforation) {
				perforation++;
				gap++;
			}
			continue;
		}
		last_nonblank = c;
		if (!first_nonblank)
			first_nonblank = c;
		if (*c == '-') {
			in_perforation = 1;
			perforation++;
			continue;
		}
		if (starts_with(c, ">8") || starts_with(c, "8<") || starts_with(c, ">%") ||
		    starts_with(c, "%<")) {
			in_perforation = 1;
			perforation += 2;
			scissors += 2;
			c++;
			continue;
		}
		in_perforation = 0;
	}
	visible = first_nonblank && last_nonblank ? (int)(last_nonblank - first_nonblank + 1) : 0;
	return scissors && 8 <= visible && visible < perforation * 3 && gap * 2 < perforation;
}

static int is_format_patch_separator(const char *line, size_t len)
{
	static const char sample[] =
		"From e6807f3efca28b30decfecb1732a56c7db1137ee Mon Sep 17 00:00:00 2001\n";
	const char *cp;

	if (len != strlen(sample) || !starts_with(line, "From "))
		return 0;
	cp = line + 5;
	if (strspn(cp, "0123456789abcdef") != 40)
		return 0;
	cp += 40;
	return !memcmp(sample + (cp - line), cp, strlen(sample) - (size_t)(cp - line));
}

static void flush_inbody_header_accum(struct mi *mi)
{
	if (!mi->accum.len)
		return;
	check_header(mi, mi->accum.data, mi->s_hdr, 0);
	buf_reset(&mi->accum);
}

static int is_inbody_header(const struct mi *mi, const char *line)
{
	const char *val;
	int i;

	for (i = 0; i < H_COUNT; i++)
		if (!mi->s_hdr[i] && skip_header(line, header_names[i], &val))
			return 1;
	return 0;
}

static int check_inbody_header(struct mi *mi, const struct buf *line)
{
	if (mi->accum.len && (line->data[0] == ' ' || line->data[0] == '\t')) {
		if (is_scissors_line(line->data)) {
			flush_inbody_header_accum(mi);
			return 0;
		}
		if (mi->accum.len && mi->accum.data[mi->accum.len - 1] == '\n')
			buf_truncate(&mi->accum, mi->accum.len - 1);
		buf_add(&mi->accum, line->data, line->len);
		return 1;
	}
	flush_inbody_header_accum(mi);
	if (starts_with(line->data, ">From") && g_isspace((unsigned char)line->data[5]))
		return is_format_patch_separator(line->data + 1, line->len - 1);
	if (starts_with(line->data, "[PATCH]") && g_isspace((unsigned char)line->data[7])) {
		if (!mi->s_hdr[H_SUBJECT]) {
			mi->s_hdr[H_SUBJECT] = xmalloc(sizeof(struct buf));
			buf_init(mi->s_hdr[H_SUBJECT]);
		}
		buf_set(mi->s_hdr[H_SUBJECT], line->data, line->len);
		return 1;
	}
	if (is_inbody_header(mi, line->data)) {
		buf_add(&mi->accum, line->data, line->len);
		return 1;
	}
	return 0;
}

static int handle_commit_msg(struct mi *mi, struct buf *line)
{
	int i;

	if (mi->header_stage && (!line->len || (line->len == 1 && line->data[0] == '\n'))) {
		if (mi->accum.len) {
			flush_inbody_header_accum(mi);
			mi->header_stage = 0;
		}
		return 0;
	}
	if (mi->header_stage) {
		mi->header_stage = check_inbody_header(mi, line);
		if (mi->header_stage)
			return 0;
	}
	if (is_scissors_line(line->data)) {
		buf_reset(&mi->log);
		mi->header_stage = 1;
		for (i = 0; i < H_COUNT; i++) {
			if (mi->s_hdr[i]) {
				buf_release(mi->s_hdr[i]);
				free(mi->s_hdr[i]);
			}
			mi->s_hdr[i] = NULL;
		}
		return 0;
	}
	if (patchbreak(line))
		return 1;
	/* the log message is UTF-8, from the part's charset, as git's -u */
	charset_to_utf8(mi->charset.len ? mi->charset.data : NULL, line->data, line->len,
			&mi->log, NULL);
	return 0;
}

static void handle_patch(struct mi *mi, const struct buf *line)
{
	if (mi->too_big)
		return;
	if (mi->patch.len + line->len > PATCHMAIL_MAX_PATCH) {
		mi->too_big = 1;
		return;
	}
	buf_add(&mi->patch, line->data, line->len);
	mi->patch_lines++;
}

static void handle_filter(struct mi *mi, struct buf *line)
{
	if (mi->filter_stage == 0) {
		if (!handle_commit_msg(mi, line))
			return;
		mi->filter_stage = 1;
	}
	handle_patch(mi, line);
}

static void handle_filter_flowed(struct mi *mi, struct buf *line, struct buf *prev)
{
	size_t len = line->len;

	if (!mi->format_flowed) {
		handle_filter(mi, line);
		return;
	}
	if (len && line->data[len - 1] == '\n') {
		len--;
		if (len && line->data[len - 1] == '\r')
			len--;
	}
	if (len == 3 && starts_with(line->data, "-- ")) {
		if (prev->len) {
			handle_filter(mi, prev);
			buf_reset(prev);
		}
		handle_filter(mi, line);
		return;
	}
	if (len && line->data[0] == ' ') {
		memmove(line->data, line->data + 1, line->len);
		line->len--;
		len--;
	}
	if (len && line->data[len - 1] == ' ') {
		buf_add(prev, line->data, len - !!mi->delsp);
		return;
	}
	if (prev->len) {
		struct buf t = BUF_INIT;

		buf_add(&t, prev->data, prev->len);
		buf_add(&t, line->data, line->len);
		buf_set(line, t.data, t.len);
		buf_release(&t);
		buf_reset(prev);
	}
	handle_filter(mi, line);
}

static int is_multipart_boundary(const struct mi *mi, const struct buf *line)
{
	const struct buf *b = mi->content[mi->top];

	return b && b->len <= line->len && !memcmp(line->data, b->data, b->len);
}

static int find_boundary(struct mi *mi, struct buf *line)
{
	while (!get_line_lf(mi, line))
		if (mi->content[mi->top] && is_multipart_boundary(mi, line))
			return 1;
	return 0;
}

static int handle_boundary(struct mi *mi, struct buf *line)
{
	struct buf newline = BUF_INIT;

	buf_addc(&newline, '\n');
again:
	if (line->len >= mi->content[mi->top]->len + 2 &&
	    !memcmp(line->data + mi->content[mi->top]->len, "--", 2)) {
		/* an end boundary: pop it, and skip to the next one */
		buf_release(mi->content[mi->top]);
		free(mi->content[mi->top]);
		mi->content[mi->top] = NULL;
		if (mi->top)
			mi->top--;
		handle_filter(mi, &newline);
		if (!find_boundary(mi, line)) {
			buf_release(&newline);
			return 0;
		}
		goto again;
	}
	mi->transfer_encoding = TE_DONTCARE;
	buf_reset(&mi->charset);
	while (read_one_header_line(mi, line))
		check_header(mi, line->data, mi->p_hdr, 0);
	buf_release(&newline);
	if (get_line_lf(mi, line))
		return 0;
	buf_addc(line, '\n');
	return 1;
}

static void handle_body(struct mi *mi, struct buf *line)
{
	struct buf prev = BUF_INIT;

	if (mi->content[mi->top] && !find_boundary(mi, line))
		goto out;
	do {
		if (mi->content[mi->top] && is_multipart_boundary(mi, line)) {
			if (prev.len) {
				handle_filter(mi, &prev);
				buf_reset(&prev);
			}
			if (!handle_boundary(mi, line))
				goto out;
		}
		decode_transfer_encoding(mi, line);
		if ((mi->transfer_encoding == TE_BASE64 || mi->transfer_encoding == TE_QP) &&
		    !memchr(line->data, '\n', line->len)) {
			/* no line ends here: git would append it to prev, so
			 * append it (a body without line breaks stays linear) */
			buf_add(&prev, line->data, line->len);
		} else if (mi->transfer_encoding == TE_BASE64 || mi->transfer_encoding == TE_QP) {
			struct buf whole = BUF_INIT, one = BUF_INIT;
			size_t s = 0;

			buf_add(&whole, prev.data, prev.len);
			buf_add(&whole, line->data, line->len);
			buf_reset(&prev);
			while (s < whole.len) {
				const char *nl = memchr(whole.data + s, '\n', whole.len - s);
				size_t n = nl ? (size_t)(nl - whole.data - s) + 1 : whole.len - s;

				if (!nl) {
					/* a partial line, for the next round */
					buf_add(&prev, whole.data + s, n);
					break;
				}
				buf_reset(&one);
				buf_add(&one, whole.data + s, n);
				handle_filter_flowed(mi, &one, &prev);
				s += n;
			}
			buf_release(&whole);
			buf_release(&one);
		} else {
			handle_filter_flowed(mi, line, &prev);
		}
	} while (!get_whole_line(mi, line));
	if (prev.len)
		handle_filter(mi, &prev);
	flush_inbody_header_accum(mi);
out:
	buf_release(&prev);
}

/* ---- git's info: the subject and the author ---- */

/* Each run of white space becomes one space (git's cleanup_space()),
 * in one pass. */
static void cleanup_space(struct buf *sb)
{
	size_t r, w = 0;

	for (r = 0; r < sb->len; r++) {
		if (g_isspace((unsigned char)sb->data[r])) {
			if (w && sb->data[w - 1] == ' ' && r && g_isspace((unsigned char)sb->data[r - 1]))
				continue;
			sb->data[w++] = ' ';
		} else {
			sb->data[w++] = sb->data[r];
		}
	}
	buf_truncate(sb, w);
}

static void buf_remove(struct buf *b, size_t at, size_t n)
{
	memmove(b->data + at, b->data + at + n, b->len - at - n + 1);
	b->len -= n;
}

/* The version a removed "[...]" prefix [s, e) names (patchmail_subject()):
 * its first word "vN" or "PATCHvN" (any case), N 1 to 9999; 0 for none. */
static unsigned bracket_version(const char *s, const char *e)
{
	while (s < e) {
		const char *w = s, *d;
		unsigned n = 0;

		while (w < e && (*w == ' ' || *w == '\t' || *w == '[' || *w == ','))
			w++;
		for (s = w; s < e && *s != ' ' && *s != '\t' && *s != ']' && *s != ','; s++)
			;
		d = w;
		if (s - d > 6 && !strncasecmp(d, "patch", 5))
			d += 5;
		if (s - d < 2 || (*d != 'v' && *d != 'V'))
			continue;
		for (d++; d < s && *d >= '0' && *d <= '9' && n <= 9999; d++)
			n = n * 10 + (unsigned)(*d - '0');
		if (d == s && n >= 1 && n <= 9999)
			return n;
	}
	return 0;
}

/* git's cleanup_subject() without --keep-non-patch: "Re:", "[...]", ':'
 * and white space removed from the front, which is where it removes them
 * all (so one removal at the end, not one per piece).  *version (may be
 * NULL) gets the version the first removed bracket naming one says, or
 * 0. */
static void cleanup_subject(struct buf *s, unsigned *version)
{
	size_t at = 0;
	unsigned v = 0;

	while (at < s->len) {
		char c = s->data[at];

		if ((c == 'r' || c == 'R') && s->len > at + 3 &&
		    (s->data[at + 1] == 'e' || s->data[at + 1] == 'E') && s->data[at + 2] == ':') {
			at += 3;
		} else if (c == ' ' || c == '\t' || c == ':') {
			at++;
		} else if (c == '[') {
			const char *pos = memchr(s->data + at, ']', s->len - at);

			if (!pos)
				break;
			if (!v)
				v = bracket_version(s->data + at + 1, pos);
			at = (size_t)(pos - s->data) + 1;
		} else {
			break;
		}
	}
	buf_remove(s, 0, at);
	trim(s);
	if (version)
		*version = v;
}

void patchmail_subject(const char *subject, struct buf *out, unsigned *version)
{
	buf_reset(out);
	buf_adds(out, subject ? subject : "");
	cleanup_subject(out, version);
	cleanup_space(out);
	if (version && !*version)
		*version = 1;
}

static void get_sane_name(struct buf *out, const struct buf *name, const struct buf *email)
{
	const struct buf *src = name;

	if (!name->len || 60 < name->len || strpbrk(name->data, "@<>"))
		src = email;
	else if (name == out)
		return;
	buf_set(out, src->data, src->len);
}

static const char *unquote_comment(struct buf *out, const char *in)
{
	int literal = 0, depth = 1;

	buf_addc(out, '(');
	while (*in) {
		int c = *in++;

		if (literal) {
			literal = 0;
		} else if (c == '\\') {
			literal = 1;
			continue;
		} else if (c == '(') {
			buf_addc(out, '(');
			depth++;
			continue;
		} else if (c == ')') {
			buf_addc(out, ')');
			if (!--depth)
				return in;
			continue;
		}
		buf_addc(out, (char)c);
	}
	return in;
}

static const char *unquote_quoted_string(struct buf *out, const char *in)
{
	int literal = 0;

	while (*in) {
		int c = *in++;

		if (literal) {
			literal = 0;
		} else if (c == '\\') {
			literal = 1;
			continue;
		} else if (c == '"') {
			return in;
		}
		buf_addc(out, (char)c);
	}
	return in;
}

static void parse_bogus_from(struct mi *mi, const struct buf *line)
{
	const char *bra, *ket;

	if (mi->email.len || !(bra = strchr(line->data, '<')) || !(ket = strchr(bra, '>')))
		return;
	buf_set(&mi->email, bra + 1, (size_t)(ket - bra - 1));
	buf_set(&mi->name, line->data, (size_t)(bra - line->data));
	trim(&mi->name);
	get_sane_name(&mi->name, &mi->name, &mi->email);
}

static void handle_from(struct mi *mi, const struct buf *from)
{
	struct buf f = BUF_INIT;
	const char *in = from->data;
	char *at;
	size_t el;
	int c;

	while ((c = *in++)) {
		if (c == '"')
			in = unquote_quoted_string(&f, in);
		else if (c == '(')
			in = unquote_comment(&f, in);
		else
			buf_addc(&f, (char)c);
	}
	at = strchr(f.data, '@');
	if (!at) {
		parse_bogus_from(mi, from);
		goto out;
	}
	if (mi->email.len && strchr(at + 1, '@'))
		goto out;
	while (at > f.data) {
		char ch = at[-1];

		if (g_isspace((unsigned char)ch))
			break;
		if (ch == '<') {
			at[-1] = ' ';
			break;
		}
		at--;
	}
	el = strcspn(at, " \n\t\r\v\f>");
	buf_set(&mi->email, at, el);
	buf_remove(&f, (size_t)(at - f.data), el + (at[el] ? 1 : 0));
	cleanup_space(&f);
	trim(&f);
	if (f.len >= 2 && f.data[0] == '(' && f.data[f.len - 1] == ')') {
		buf_remove(&f, 0, 1);
		buf_truncate(&f, f.len - 1);
	}
	get_sane_name(&mi->name, &f, &mi->email);
out:
	buf_release(&f);
}

/* ---- the checks ---- */

struct check {
	struct patchmail *p;
	struct problems probs;
	size_t files_alloc;
	int second;	/* a file changed twice was seen */
};

static void check_problem(struct check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check_problem(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problem_vadd(&c->probs, fmt, ap);
	va_end(ap);
}

/* A path from a diff header line, a/ or b/ (or any first component of a
 * plain diff) removed; "" for /dev/null.  Quoted paths are unquoted. */
static void diff_path(const char *s, size_t n, struct buf *out)
{
	struct buf raw = BUF_INIT;
	const char *slash;
	size_t i;

	buf_reset(out);
	if (n && s[0] == '"') {
		for (i = 1; i < n && s[i] != '"'; i++) {
			if (s[i] == '\\' && i + 1 < n) {
				i++;
				if (s[i] >= '0' && s[i] <= '7' && i + 2 < n) {
					buf_addc(&raw, (char)((s[i] - '0') << 6 | (s[i + 1] - '0') << 3 |
							      (s[i + 2] - '0')));
					i += 2;
					continue;
				}
				buf_addc(&raw, s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i]);
				continue;
			}
			buf_addc(&raw, s[i]);
		}
	} else {
		/* a tab ends the name (a date may follow in plain diffs) */
		for (i = 0; i < n && s[i] != '\t'; i++)
			;
		while (i && s[i - 1] == ' ')
			i--;
		buf_add(&raw, s, i);
	}
	if (!strcmp(raw.data, "/dev/null")) {
		buf_release(&raw);
		return;
	}
	slash = strchr(raw.data, '/');
	charset_repair_utf8(slash ? slash + 1 : raw.data,
			    slash ? raw.len - (size_t)(slash + 1 - raw.data) : raw.len, out);
	buf_release(&raw);
}

/* 1 when the path was added, 0 when the diff already touched it */
static int file_add(struct check *c, const char *path)
{
	size_t i;

	if (!*path)
		return 1;
	for (i = 0; i < c->p->nr_files; i++)
		if (!strcmp(c->p->files[i], path))
			return 0;
	if (c->p->nr_files >= PATCHMAIL_MAX_FILES)
		return 1;
	if (c->p->nr_files == c->files_alloc) {
		c->files_alloc = c->files_alloc ? 2 * c->files_alloc : 8;
		c->p->files = xrealloc(c->p->files, c->files_alloc * sizeof(*c->p->files));
	}
	c->p->files[c->p->nr_files++] = xstrdup(path);
	return 1;
}

/* Reads "@@ -a[,b] +c[,d] @@"; 0 with the counts, -1 when malformed. */
static int hunk_header(const char *s, long *old, long *new)
{
	char *end;

	if (strncmp(s, "@@ -", 4))
		return -1;
	s += 4;
	strtol(s, &end, 10);
	if (end == s)
		return -1;
	*old = 1;
	if (*end == ',') {
		s = end + 1;
		*old = strtol(s, &end, 10);
		if (end == s)
			return -1;
	}
	if (strncmp(end, " +", 2))
		return -1;
	s = end + 2;
	strtol(s, &end, 10);
	if (end == s)
		return -1;
	*new = 1;
	if (*end == ',') {
		s = end + 1;
		*new = strtol(s, &end, 10);
		if (end == s)
			return -1;
	}
	if (strncmp(end, " @@", 3) || *old < 0 || *new < 0)
		return -1;
	return 0;
}

/* A line that may follow a finished hunk directly. */
static int may_follow_hunk(const char *l, size_t n)
{
	return !n || starts_with(l, "@@ ") || starts_with(l, "diff ") || starts_with(l, "--- ") ||
	       starts_with(l, "Index: ") || starts_with(l, "\\ ") || (n == 3 && !memcmp(l, "-- ", 3)) ||
	       starts_with(l, "base-commit: ") || starts_with(l, "prerequisite-patch-id: ") ||
	       starts_with(l, "-----BEGIN PGP") || l[0] == '=' || l[0] == '-';
}

enum hstate { OUTSIDE, IN_HUNK, AFTER_HUNK };

static void patch_check(struct check *c)
{
	struct patchmail *p = c->p;
	struct buf line = BUF_INIT, path = BUF_INIT, file = BUF_INIT, hunk = BUF_INIT;
	size_t pos = 0, lineno = 0, hunk_no = 0, hunk_line = 0;
	long old = 0, new = 0, want_old = 0, want_new = 0;
	enum hstate st = OUTSIDE;
	int second = 0, any = 0;

	while (pos < p->diff_len) {
		const char *nl = memchr(p->diff + pos, '\n', p->diff_len - pos);
		size_t n = nl ? (size_t)(nl - p->diff - pos) : p->diff_len - pos;
		const char *l;

		buf_reset(&line);
		buf_add(&line, p->diff + pos, n);
		pos += n + (nl ? 1 : 0);
		lineno++;
		l = line.data;
		if (st == IN_HUNK) {
			if (n == 0 || l[0] == ' ') {
				old--;
				new--;
			} else if (l[0] == '-') {
				old--;
			} else if (l[0] == '+') {
				new--;
			} else if (l[0] != '\\') {
				check_problem(c, "%s: hunk %zu (%s) at line %zu of the patch: line %zu "
					      "is not a line of the hunk, which still lacks %ld old and "
					      "%ld new lines (a line wrapped by the mail client, or the "
					      "patch cut short)", file.data, hunk_no, hunk.data,
					      hunk_line, lineno, old, new);
				st = OUTSIDE;
				goto header;
			}
			if (old < 0 || new < 0) {
				check_problem(c, "%s: hunk %zu (%s) at line %zu of the patch: line %zu "
					      "is one too many for its counts (%ld old, %ld new lines)",
					      file.data, hunk_no, hunk.data, hunk_line, lineno,
					      want_old, want_new);
				st = OUTSIDE;
				continue;
			}
			if (!old && !new)
				st = AFTER_HUNK;
			continue;
		}
		if (st == AFTER_HUNK) {
			st = OUTSIDE;
			if (!may_follow_hunk(l, n) && l[0] != ' ' && l[0] != '+') {
				check_problem(c, "%s: hunk %zu (%s) at line %zu of the patch: line %zu "
					      "right after it is not part of the patch (a line wrapped "
					      "by the mail client?)", file.data, hunk_no, hunk.data,
					      hunk_line, lineno);
				continue;
			}
			if (n && (l[0] == ' ' || l[0] == '+' ||
				  (l[0] == '-' && !starts_with(l, "--- ") &&
				   !(n == 3 && !memcmp(l, "-- ", 3))))) {
				check_problem(c, "%s: hunk %zu (%s) at line %zu of the patch: line %zu "
					      "goes beyond its counts (%ld old, %ld new lines)",
					      file.data, hunk_no, hunk.data, hunk_line, lineno,
					      want_old, want_new);
				continue;
			}
		}
header:
		if (starts_with(l, "diff --git ")) {
			/* the b/ name: the second half of the line */
			const char *b = strstr(l + 11, " b/");
			const char *q = strstr(l + 11, " \"b/");

			if (q && (!b || q < b))
				b = q;
			if (b) {
				diff_path(b + 1, strlen(b + 1), &path);
				if (any && !file_add(c, path.data))
					second = 1;
				else if (!any)
					file_add(c, path.data);
				buf_set(&file, path.data, path.len);
			}
			any = 1;
			hunk_no = 0;
		} else if (starts_with(l, "--- ") && pos < p->diff_len &&
			   !strncmp(p->diff + pos, "+++ ", 4)) {
			const char *nl2 = memchr(p->diff + pos, '\n', p->diff_len - pos);
			size_t n2 = nl2 ? (size_t)(nl2 - p->diff - pos) : p->diff_len - pos;
			struct buf oldp = BUF_INIT;

			diff_path(l + 4, n - 4, &oldp);
			diff_path(p->diff + pos + 4, n2 - 4, &path);
			if (!path.len)
				buf_set(&path, oldp.data, oldp.len);
			buf_release(&oldp);
			if (!file.len || strcmp(file.data, path.data)) {
				/* a plain diff, without a "diff --git" line */
				if (any && !file_add(c, path.data))
					second = 1;
				else
					file_add(c, path.data);
				hunk_no = 0;
			}
			buf_set(&file, path.data, path.len);
			any = 1;
			pos += n2 + (nl2 ? 1 : 0);
			lineno++;
		} else if (starts_with(l, "@@ -") && any) {
			if (hunk_header(l, &want_old, &want_new)) {
				check_problem(c, "%s: line %zu of the patch is not a hunk header: %.60s",
					      file.data, lineno, l);
				continue;
			}
			old = want_old;
			new = want_new;
			hunk_no++;
			hunk_line = lineno;
			buf_reset(&hunk);
			charset_repair_utf8(l, (size_t)(strstr(l + 2, " @@") + 3 - l), &hunk);
			st = old || new ? IN_HUNK : AFTER_HUNK;
		} else if (starts_with(l, "base-commit: ")) {
			const char *h = l + 13;
			size_t hl = strspn(h, "0123456789abcdefABCDEF");

			if ((hl == 40 || hl == 64) && !p->base_commit) {
				size_t k;

				p->base_commit = xstrndup(h, hl);
				for (k = 0; k < hl; k++)
					if (p->base_commit[k] >= 'A' && p->base_commit[k] <= 'F')
						p->base_commit[k] = (char)(p->base_commit[k] + 32);
			}
		}
	}
	if (st == IN_HUNK)
		check_problem(c, "%s: hunk %zu (%s) at line %zu of the patch: the patch ends while "
			      "the hunk still lacks %ld old and %ld new lines (the patch cut short?)",
			      file.data, hunk_no, hunk.data, hunk_line, old, new);
	c->second = second;
	if (second)
		check_problem(c, "the mail holds more than one patch; send one patch per request");
	buf_release(&line);
	buf_release(&path);
	buf_release(&file);
	buf_release(&hunk);
}

/* A second commit: git format-patch's separator line inside the patch. */
static int count_separators(const struct patchmail *p)
{
	size_t pos = 0;
	int n = 0;

	while (pos < p->diff_len) {
		const char *nl = memchr(p->diff + pos, '\n', p->diff_len - pos);
		size_t len = nl ? (size_t)(nl - p->diff - pos) + 1 : p->diff_len - pos;

		if (!strncmp(p->diff + pos, "From ", 5) && len < 100) {
			char *s = xstrndup(p->diff + pos, len);

			n += is_format_patch_separator(s, len);
			free(s);
		}
		pos += len;
	}
	return n;
}

static char *utf8_of(const struct buf *b)
{
	struct buf out = BUF_INIT;

	if (b)
		charset_repair_utf8(b->data, b->len, &out);
	return buf_detach(&out, NULL);
}

static void mi_release(struct mi *mi)
{
	int i;

	for (i = 0; i < PATCHMAIL_MAX_BOUNDARIES; i++) {
		if (mi->content[i]) {
			buf_release(mi->content[i]);
			free(mi->content[i]);
		}
	}
	for (i = 0; i < H_COUNT; i++) {
		if (mi->p_hdr[i]) {
			buf_release(mi->p_hdr[i]);
			free(mi->p_hdr[i]);
		}
		if (mi->s_hdr[i]) {
			buf_release(mi->s_hdr[i]);
			free(mi->s_hdr[i]);
		}
	}
	buf_release(&mi->charset);
	buf_release(&mi->accum);
	buf_release(&mi->log);
	buf_release(&mi->patch);
	buf_release(&mi->name);
	buf_release(&mi->email);
}

/* The info git prints: subject, author (in-body fields only with a patch). */
static void info_fill(struct mi *mi, struct patchmail *p)
{
	struct buf *subject = mi->s_hdr[H_SUBJECT] ? mi->s_hdr[H_SUBJECT] : mi->p_hdr[H_SUBJECT];
	struct buf *from = mi->s_hdr[H_FROM] ? mi->s_hdr[H_FROM] : mi->p_hdr[H_FROM];

	if (subject) {
		cleanup_subject(subject, NULL);
		cleanup_space(subject);
	}
	p->subject = utf8_of(subject);
	if (from) {
		cleanup_space(from);
		handle_from(mi, from);
	}
	p->author_name = utf8_of(&mi->name);
	p->author_email = utf8_of(&mi->email);
	p->message = utf8_of(&mi->log);
}

struct patchmail *patchmail_read(const char *raw, size_t len)
{
	struct buf in = BUF_INIT, line = BUF_INIT;
	struct patchmail *p = NULL;
	struct check c;
	struct mi mi;
	size_t i;

	memset(&mi, 0, sizeof(mi));
	/* as git mailsplit gives the mail to mailinfo: CR before LF removed */
	for (i = 0; i < len; i++)
		if (!(raw[i] == '\r' && i + 1 < len && raw[i + 1] == '\n'))
			buf_addc(&in, raw[i]);
	mi.in = in.data;
	mi.len = in.len;
	while (mi.pos < mi.len && g_isspace((unsigned char)mi.in[mi.pos]))
		mi.pos++;
	mi.header_stage = 1;
	while (read_one_header_line(&mi, &line))
		check_header(&mi, line.data, mi.p_hdr, 1);
	handle_body(&mi, &line);
	if (mi.patch_lines) {
		p = xcalloc(1, sizeof(*p));
		p->diff = buf_detach(&mi.patch, &p->diff_len);
		memset(&c, 0, sizeof(c));
		c.p = p;
		c.probs.v = &p->problems;
		c.probs.nr = &p->nr_problems;
		c.probs.max = PATCHMAIL_MAX_PROBLEMS;
		c.probs.more = "more problems were not listed";
		patch_check(&c);
		if (!p->nr_files) {
			patchmail_free(p);
			p = NULL;
		} else {
			if (mi.too_big)
				check_problem(&c, "the patch is larger than %lu bytes; it was cut there",
					      PATCHMAIL_MAX_PATCH);
			if (count_separators(p) && !c.second)
				check_problem(&c, "the mail holds more than one patch; send one "
					      "patch per request");
			info_fill(&mi, p);
		}
	}
	mi_release(&mi);
	buf_release(&in);
	buf_release(&line);
	return p;
}

void patchmail_free(struct patchmail *p)
{
	size_t i;

	if (!p)
		return;
	free(p->subject);
	free(p->author_name);
	free(p->author_email);
	free(p->message);
	free(p->diff);
	for (i = 0; i < p->nr_files; i++)
		free(p->files[i]);
	free(p->files);
	free(p->base_commit);
	problems_free(p->problems, p->nr_problems);
	free(p);
}
