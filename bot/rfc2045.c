#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "charset.h"
#include "header.h"
#include "percent.h"
#include "rfc2045.h"
#include "rfc5322.h"
#include "xalloc.h"
#include "banned.h"

/* ---- Content-Type and Content-Disposition ---- */

static int is_wsp(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* RFC 2045 token characters: no space, controls or tspecials. */
static int is_token_char(unsigned char c)
{
	return c > ' ' && c < 0x7f && !strchr("()<>@,;:\\\"/[]?=", c);
}

static char *lower_dup(const char *s, size_t n)
{
	char *d = xstrndup(s, n);
	size_t i;

	for (i = 0; i < n; i++)
		if (d[i] >= 'A' && d[i] <= 'Z')
			d[i] = (char)(d[i] - 'A' + 'a');
	return d;
}

/* Reads a parameter value at *pp (quoted string or lenient token) into v;
 * 0, or -1 when there is none. */
static int param_value(const char **pp, struct buf *v)
{
	const char *p = *pp;

	if (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '\r' || *p == '\n')
				continue;	/* a fold inside the quotes */
			buf_addc(v, *p);
		}
		if (*p == '"')
			p++;
	} else {
		/* Unquoted values with '/', '=' or '?' are common
		 * (boundary==_Part_1); RFC 2045 would want them quoted. */
		for (; *p && *p != ';' && *p != '"' && *p != '(' && !is_wsp(*p) &&
		       (unsigned char)*p >= ' ' && (unsigned char)*p != 0x7f; p++)
			buf_addc(v, *p);
		if (p == *pp)
			return -1;
	}
	*pp = p;
	return 0;
}

/* A parameter as written: "name*N*=value", before joining. */
struct raw_param {
	char *name;	/* lowercase, without the RFC 2231 marks */
	long section;	/* N of "name*N", -1 for "name" and "name*" */
	int extended;	/* a trailing '*': percent-encoded (and charset'lang' in section 0) */
	struct buf value;
};

/* Splits "name", "name*", "name*N" or "name*N*" (lowercased) into rp; 0,
 * or -1 when the marks are malformed. */
static int raw_name(const char *name, size_t n, struct raw_param *rp)
{
	const char *star = memchr(name, '*', n);
	size_t base = star ? (size_t)(star - name) : n, i = base + 1;

	rp->section = -1;
	rp->extended = 0;
	if (!base)
		return -1;
	if (star) {
		if (i < n && name[i] >= '0' && name[i] <= '9') {
			long v = 0;

			if (name[i] == '0' && i + 1 < n && name[i + 1] >= '0' && name[i + 1] <= '9')
				return -1;	/* "*01": no leading zeros (RFC 2231 §3) */
			for (; i < n && name[i] >= '0' && name[i] <= '9'; i++)
				if ((v = v * 10 + (name[i] - '0')) >= RFC2045_MAX_PARAMS)
					return -1;
			rp->section = v;
			if (i < n && name[i] == '*') {
				rp->extended = 1;	/* "name*N*" */
				i++;
			}
		} else {
			rp->extended = 1;	/* "name*" */
		}
		if (i != n)
			return -1;
	}
	rp->name = lower_dup(name, base);
	return 0;
}

/*
 * The value of parameter name from its RFC 2231 sections in v (no plain
 * form was given): 0 with out set, -1 when there is none or it is too
 * long.
 */
static int joined_value(const struct raw_param *v, size_t nr, const char *name, struct buf *out)
{
	struct buf bytes = BUF_INIT, charset = BUF_INIT;
	const char *cs = NULL;
	long want = 0;
	size_t i;
	int found = 0;

	for (i = 0; i < nr; i++)	/* "name*" alone: one extended section */
		if (!strcmp(v[i].name, name) && v[i].section < 0 && v[i].extended) {
			found = 1;
			want = -1;
			break;
		}
	for (;;) {
		const struct raw_param *s = NULL;
		const char *p;
		size_t n;

		for (i = 0; i < nr && !s; i++)
			if (!strcmp(v[i].name, name) && v[i].section == want &&
			    (want >= 0 || v[i].extended))
				s = &v[i];
		if (!s)
			break;
		found = 1;
		p = s->value.data;
		n = s->value.len;
		if (s->extended && want <= 0) {
			/* charset'language'bytes */
			const char *q1 = memchr(p, '\'', n), *q2 = q1 ? memchr(q1 + 1, '\'', n - (size_t)(q1 + 1 - p)) : NULL;

			if (q2) {
				buf_add(&charset, p, (size_t)(q1 - p));
				cs = charset.data;
				n -= (size_t)(q2 + 1 - p);
				p = q2 + 1;
			}
		}
		if (s->extended)
			percent_decode(p, n, 0, &bytes);
		else
			buf_add(&bytes, p, n);
		if (want < 0 || bytes.len > RFC2045_MAX_PARAM)
			break;
		want++;
	}
	if (found && bytes.len <= RFC2045_MAX_PARAM && !memchr(bytes.data, '\0', bytes.len)) {
		if (cs && *cs)
			charset_to_utf8(cs, bytes.data, bytes.len, out, NULL);
		else
			buf_add(out, bytes.data, bytes.len);
	} else {
		found = 0;
	}
	buf_release(&bytes);
	buf_release(&charset);
	return found ? 0 : -1;
}

/* Joins the parameters as read into f->params and the fields f names. */
static void params_set(struct rfc2045_field *f, const struct raw_param *v, size_t nr)
{
	size_t i, j;

	for (i = 0; i < nr; i++)
		if (!strcmp(v[i].name, "name") || !strcmp(v[i].name, "filename"))
			f->has_name = 1;
	for (i = 0; i < nr; i++) {
		struct buf value = BUF_INIT;
		int plain = v[i].section < 0 && !v[i].extended, have = 0;
		char **slot = NULL;
		int lower = 0;

		for (j = 0; j < f->nr_params; j++)
			if (!strcmp(f->params[j].name, v[i].name))
				have = 1;
		if (have)
			continue;	/* the first of a repeated parameter wins */
		for (j = 0; j < nr && !plain; j++)
			if (!strcmp(v[j].name, v[i].name) && v[j].section < 0 && !v[j].extended)
				plain = 1;	/* the plain form wins over the RFC 2231 one */
		if (plain) {
			for (j = 0; j < nr; j++)
				if (!strcmp(v[j].name, v[i].name) && v[j].section < 0 && !v[j].extended)
					break;
			if (v[j].value.len > RFC2045_MAX_PARAM ||
			    memchr(v[j].value.data, '\0', v[j].value.len))
				continue;
			buf_add(&value, v[j].value.data, v[j].value.len);
		} else if (joined_value(v, nr, v[i].name, &value) < 0) {
			buf_release(&value);
			continue;
		}
		f->params = xrealloc(f->params, (f->nr_params + 1) * sizeof(*f->params));
		f->params[f->nr_params].name = xstrdup(v[i].name);
		f->params[f->nr_params].value = xstrndup(value.data, value.len);
		f->nr_params++;
		if (!strcmp(v[i].name, "charset")) {
			slot = &f->charset;
		} else if (!strcmp(v[i].name, "boundary")) {
			slot = plain ? &f->boundary : NULL;
		} else if (!strcmp(v[i].name, "format")) {
			slot = &f->format;
			lower = 1;
		} else if (!strcmp(v[i].name, "delsp")) {
			slot = &f->delsp;
			lower = 1;
		}
		if (slot)
			*slot = lower ? lower_dup(value.data, value.len) : xstrndup(value.data, value.len);
		buf_release(&value);
	}
}

int rfc2045_field_parse(const char *body, int with_subtype, struct rfc2045_field *out,
			struct buf *err)
{
	const char *p = rfc5322_skip_cfws(body), *start = p;
	struct buf v = BUF_INIT;
	struct raw_param *raw = NULL;
	size_t nr = 0, alloc = 0, i;

	memset(out, 0, sizeof(*out));
	while (is_token_char((unsigned char)*p))
		p++;
	if (p == start)
		return err_set(err, "no type");
	if (with_subtype) {
		const char *type = start;
		size_t type_len = (size_t)(p - start);

		/* CFWS may stand on either side of the '/' (RFC 2045 §5.1 and
		 * RFC 822's lexical tokens): "text (plain) / plain" is
		 * text/plain; only the two tokens make the value */
		p = rfc5322_skip_cfws(p);
		if (*p != '/')
			return err_set(err, "no subtype");
		p = rfc5322_skip_cfws(p + 1);
		start = p;
		while (is_token_char((unsigned char)*p))
			p++;
		if (p == start)
			return err_set(err, "no subtype");
		buf_add(&v, type, type_len);
		buf_addc(&v, '/');
		buf_add(&v, start, (size_t)(p - start));
		out->value = lower_dup(v.data, v.len);
	} else {
		out->value = lower_dup(start, (size_t)(p - start));
	}
	for (;;) {
		struct raw_param rp;
		const char *name;
		size_t n;

		p = rfc5322_skip_cfws(p);
		if (*p != ';')
			break;
		p = rfc5322_skip_cfws(p + 1);
		name = p;
		while (is_token_char((unsigned char)*p) || *p == '*')
			p++;
		n = (size_t)(p - name);
		p = rfc5322_skip_cfws(p);
		if (!n || *p != '=')
			break;
		p = rfc5322_skip_cfws(p + 1);
		buf_reset(&v);
		if (param_value(&p, &v) < 0 || nr >= RFC2045_MAX_PARAMS)
			break;
		if (raw_name(name, n, &rp) < 0)
			continue;	/* malformed RFC 2231 marks: this one is not read */
		buf_init(&rp.value);
		buf_add(&rp.value, v.data, v.len);
		ALLOC_GROW(raw, nr + 1, alloc);
		raw[nr++] = rp;
	}
	params_set(out, raw, nr);
	for (i = 0; i < nr; i++) {
		free(raw[i].name);
		buf_release(&raw[i].value);
	}
	free(raw);
	buf_release(&v);
	return 0;
}

void rfc2045_field_release(struct rfc2045_field *f)
{
	size_t i;

	free(f->value);
	free(f->charset);
	free(f->boundary);
	free(f->format);
	free(f->delsp);
	for (i = 0; i < f->nr_params; i++) {
		free(f->params[i].name);
		free(f->params[i].value);
	}
	free(f->params);
	memset(f, 0, sizeof(*f));
}

enum rfc2045_encoding rfc2045_encoding_of(const char *body)
{
	static const struct { const char *name; enum rfc2045_encoding enc; } names[] = {
		{ "7bit", RFC2045_7BIT }, { "8bit", RFC2045_8BIT }, { "binary", RFC2045_BINARY },
		{ "quoted-printable", RFC2045_QP }, { "base64", RFC2045_BASE64 },
	};
	const char *p, *start;
	size_t i, n;

	if (!body)
		return RFC2045_7BIT;
	p = start = rfc5322_skip_cfws(body);
	while (is_token_char((unsigned char)*p))
		p++;
	n = (size_t)(p - start);
	if (*rfc5322_skip_cfws(p))
		return RFC2045_UNKNOWN;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && !strncasecmp(start, names[i].name, n))
			return names[i].enc;
	return RFC2045_UNKNOWN;
}

/* ---- transfer decoding ---- */


long rfc2045_decode_qp(const char *in, size_t len, struct buf *out)
{
	size_t i = 0, start = 0;
	long bad = 0;

	if (buf_grow(out, len))
		return -1;
	while (i < len) {
		size_t j;
		int hi, lo;

		if (in[i] != '=') {
			i++;
			continue;
		}
		buf_add(out, in + start, i - start);
		if (i + 2 < len && (hi = percent_hex((unsigned char)in[i + 1])) >= 0 &&
		    (lo = percent_hex((unsigned char)in[i + 2])) >= 0) {
			buf_addc(out, (char)(hi << 4 | lo));
			start = i += 3;
			continue;
		}
		/* a soft line break: "=", optional white space, CRLF or LF */
		for (j = i + 1; j < len && (in[j] == ' ' || in[j] == '\t'); j++)
			;
		if (j < len && in[j] == '\r' && j + 1 < len && in[j + 1] == '\n')
			j++;
		if (j == len || in[j] == '\n') {
			start = i = j < len ? j + 1 : j;
			continue;
		}
		bad++;
		buf_addc(out, '=');
		start = ++i;
	}
	buf_add(out, in + start, i - start);
	return bad;
}

static int base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long rfc2045_decode_base64(const char *in, size_t len, struct buf *out)
{
	unsigned acc = 0;
	int bits = 0, chars = 0;
	long bad = 0;
	size_t i;

	if (buf_grow(out, len / 4 * 3 + 3))
		return -1;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		int v = base64_value(c);

		if (v < 0) {
			if (c == '=') {
				/* padding ends a chunk; a lone sextet is garbage */
				if (chars % 4 == 1)
					bad++;
				acc = 0;
				bits = chars = 0;
			} else if (!is_wsp((char)c)) {
				bad++;
			}
			continue;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		chars++;
		if (bits >= 8) {
			bits -= 8;
			buf_addc(out, (char)((acc >> bits) & 0xff));
		}
	}
	if (chars % 4 == 1)
		bad++;
	return bad;
}

/* ---- the boundary check ---- */

static int has_prefix_ci(const char *s, size_t n, const char *prefix)
{
	size_t l = strlen(prefix);

	return n >= l && !strncasecmp(s, prefix, l);
}

/* The end of the field starting at s[0], continuation lines included. */
static size_t field_end(const char *s, size_t n)
{
	size_t i = 0;

	for (;;) {
		const char *nl = memchr(s + i, '\n', n - i);

		if (!nl)
			return n;
		i = (size_t)(nl - s) + 1;
		if (i >= n || (s[i] != ' ' && s[i] != '\t'))
			return i;
	}
}

static int refuse(struct buf *why, const char *what, const char *v, size_t n)
{
	struct buf raw = BUF_INIT, q = BUF_INIT;

	buf_add(&raw, v, n < 100 ? n : 100);
	header_quote_input(&q, raw.data);
	err_set(why, "boundary %s %s", q.data, what);
	buf_release(&raw);
	buf_release(&q);
	return -1;
}

/* Checks the boundary value starting at f[i] (just after "="). */
static int check_boundary_value(const char *f, size_t n, size_t i, struct buf *why)
{
	size_t start, j;

	while (i < n && is_wsp(f[i]))
		i++;
	if (i < n && f[i] == '"') {
		start = ++i;
		for (j = start; j < n && f[j] != '"'; j++) {
			unsigned char c = (unsigned char)f[j];

			if (c == '\\')
				return refuse(why, "has a backslash (refused before parsing)",
					      f + start, j + 1 - start);
			if (c < ' ' || c >= 0x7f)
				return refuse(why, "has a control or 8-bit character",
					      f + start, j + 1 - start);
		}
		if (j == n)
			return refuse(why, "has no closing quote", f + start, j - start);
	} else {
		start = i;
		for (j = start; j < n && f[j] != ';' && !is_wsp(f[j]); j++) {
			unsigned char c = (unsigned char)f[j];

			if (c == '"' || c == '\\')
				return refuse(why, "has a quote or backslash (refused before parsing)",
					      f + start, j + 1 - start);
			if (c < ' ' || c >= 0x7f)
				return refuse(why, "has a control or 8-bit character",
					      f + start, j + 1 - start);
		}
	}
	if (j == start)
		return refuse(why, "is empty", f + start, 0);
	if (j - start > RFC2045_MAX_BOUNDARY)
		return refuse(why, "is longer than 70 characters (RFC 2046)", f + start, j - start);
	return 0;
}

/* Checks each boundary parameter in the field f[0..n). */
static int check_field(const char *f, size_t n, size_t *count, struct buf *why)
{
	size_t i;

	for (i = 0; i + 8 <= n; i++) {
		size_t j, k;

		if (strncasecmp(f + i, "boundary", 8))
			continue;
		/* a parameter name: after ';' and white space */
		for (k = i; k > 0 && is_wsp(f[k - 1]); k--)
			;
		if (k == 0 || f[k - 1] != ';')
			continue;
		for (j = i + 8; j < n && is_wsp(f[j]); j++)
			;
		if (j < n && f[j] == '*')
			return err_set(why, "a boundary in RFC 2231 form (refused before parsing)");
		if (j >= n || f[j] != '=')
			continue;
		if (++*count > RFC2045_MAX_BOUNDARIES)
			return err_set(why, "more than %d boundaries", RFC2045_MAX_BOUNDARIES);
		if (check_boundary_value(f, n, j + 1, why))
			return -1;
	}
	return 0;
}

int rfc2045_check_boundaries(const char *raw, size_t len, struct buf *why)
{
	size_t i = 0, count = 0;

	while (i < len) {
		const char *p = raw + i, *nl;
		size_t rest = len - i, name = 12;

		if (has_prefix_ci(p, rest, "content-type")) {
			while (name < rest && (p[name] == ' ' || p[name] == '\t'))
				name++;
			if (name < rest && p[name] == ':') {
				size_t end = field_end(p, rest);

				if (check_field(p + name + 1, end - name - 1, &count, why))
					return -1;
				i += end;
				continue;
			}
		}
		nl = memchr(p, '\n', rest);
		if (!nl)
			break;
		i = (size_t)(nl - raw) + 1;
	}
	return 0;
}


/* ---- comments blanked for libetpan ---- */

/* The length of the MIME field name at p (followed by optional blanks and
 * its colon) when p starts one whose comments are blanked, else 0. */
static size_t blanked_field_name(const char *p, size_t rest)
{
	static const char *const names[] = {
		"content-type", "content-transfer-encoding", "content-disposition",
	};
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!has_prefix_ci(p, rest, names[i]))
			continue;
		for (n = strlen(names[i]); n < rest && (p[n] == ' ' || p[n] == '\t'); n++)
			;
		if (n < rest && p[n] == ':')
			return n + 1;
	}
	return 0;
}

/* Blanks the comments in the field body f[0..n). */
static void blank_field(char *f, size_t n)
{
	char *p = f, *end = f + n;

	while (p < end) {
		if (*p == '"') {
			/* a quoted string: a '(' inside is text, not a comment */
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\' && p + 1 < end)
					p++;
			if (p < end)
				p++;
		} else if (*p == '(') {
			char *close = (char *)rfc5322_comment_end(p, end);

			for (; p < close; p++)
				if (*p != '\r' && *p != '\n')
					*p = ' ';
		} else {
			p++;
		}
	}
}

void rfc2045_blank_comments(char *raw, size_t len)
{
	size_t i = 0;

	while (i < len) {
		char *p = raw + i, *nl;
		size_t rest = len - i, name = blanked_field_name(p, rest);

		if (name) {
			size_t end = field_end(p, rest);

			blank_field(p + name, end - name);
			i += end;
			continue;
		}
		nl = memchr(p, '\n', rest);
		if (!nl)
			break;
		i = (size_t)(nl - raw) + 1;
	}
}
