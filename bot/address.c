#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "address.h"
#include "charset.h"
#include "header.h"
#include "rfc2047.h"
#include "rfc5322.h"
#include "xalloc.h"
#include "banned.h"

/* Characters that may not appear in an address (besides space and
 * controls): RFC 5322 specials, which would need quoting.  A switch, not
 * strchr() over a string: every character of every address is checked,
 * several times a render. */
static int is_address_special(unsigned char c)
{
	switch (c) {
	case '<': case '>': case '(': case ')': case '[': case ']':
	case '\\': case ',': case ';': case ':': case '"':
		return 1;
	default:
		return 0;
	}
}

void address_release(struct address *a)
{
	free(a->name);
	free(a->email);
	a->name = NULL;
	a->email = NULL;
}

void address_list_free(struct address *list, size_t n)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < n; i++)
		address_release(&list[i]);
	free(list);
}

static int reason(struct buf *err, const char *what, const char *part, size_t len,
		  const char *why)
{
	struct buf q = BUF_INIT, p = BUF_INIT;

	buf_add(&p, part, len);
	header_quote_input(&q, p.data);
	err_set(err, "the %s %s %s", what, q.data, why);
	buf_release(&q);
	buf_release(&p);
	return -1;
}

static int check_char(struct buf *err, unsigned char c)
{
	if (c == ' ')
		return err_set(err, "a space is not allowed in an address");
	if (c < ' ' || c == 0x7f)
		return err_set(err, "a control character is not allowed in an address");
	if (is_address_special(c))
		return err_set(err, "'%c' is not allowed in an address", c);
	return 0;
}

static int is_label_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-';
}

static int check_domain(const char *d, size_t n, struct buf *err)
{
	size_t i, start = 0;

	for (i = 0; i < n; i++)
		if ((unsigned char)d[i] >= 0x80)
			return reason(err, "domain", d, n, "is not ASCII (internationalized "
				      "domain names are not supported; write it in its xn-- form)");
	for (i = 0; i < n; i++)
		if (check_char(err, (unsigned char)d[i]))
			return -1;
	for (i = 0; i <= n; i++) {
		if (i < n && d[i] != '.') {
			if (!is_label_char(d[i])) {
				char why[64];

				snprintf(why, sizeof(why), "is not a host name ('%c' is not allowed)",
					 d[i]);
				return reason(err, "domain", d, n, why);
			}
			continue;
		}
		if (i == start)
			return reason(err, "domain", d, n, "is not a host name (empty label)");
		if (i - start > 63)
			return reason(err, "domain", d, n,
				      "is not a host name (a label longer than 63 octets)");
		if (d[start] == '-' || d[i - 1] == '-')
			return reason(err, "domain", d, n,
				      "is not a host name (a label starts or ends with '-')");
		start = i + 1;
	}
	return 0;
}

static int check_local(const char *l, size_t n, struct buf *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)l[i] >= 0x80)
			return reason(err, "local part", l, n, "is not ASCII (that would need "
				      "SMTPUTF8, RFC 6531, which perfbot does not use)");
	for (i = 0; i < n; i++)
		if (check_char(err, (unsigned char)l[i]))
			return -1;
	if (l[0] == '.' || l[n - 1] == '.' || memmem(l, n, "..", 2))
		return reason(err, "local part", l, n, "starts or ends with '.' or has \"..\"");
	if (n > ADDRESS_MAX_LOCAL)
		return err_set(err, "the local part is %zu octets long (at most %d)", n,
			       ADDRESS_MAX_LOCAL);
	return 0;
}

static int check_email(const char *e, struct buf *err)
{
	const char *at = strchr(e, '@');
	size_t len = strlen(e);

	if (!len)
		return err_set(err, "no address");
	if (!at)
		return err_set(err, "no '@' in the address");
	if (strchr(at + 1, '@'))
		return err_set(err, "more than one '@' in the address");
	if (at == e)
		return err_set(err, "empty local part before '@'");
	if (!at[1])
		return err_set(err, "empty domain after '@'");
	if (check_local(e, at - e, err) || check_domain(at + 1, strlen(at + 1), err))
		return -1;
	if (len > ADDRESS_MAX_EMAIL)
		return err_set(err, "the address is %zu octets long (at most %d)", len,
			       ADDRESS_MAX_EMAIL);
	return 0;
}

static int check_name(const char *s, struct buf *err)
{
	size_t n = strlen(s), i, l;

	for (i = 0; i < n; i += l) {
		unsigned char c = (unsigned char)s[i];

		if (c < ' ' || c == 0x7f)
			return err_set(err, "a control character is not allowed in the name");
		if (!(l = header_utf8_char(s + i, n - i)))
			return err_set(err, "the name is not valid UTF-8");
	}
	if (n > ADDRESS_MAX_NAME)
		return err_set(err, "the name is %zu bytes long (at most %d)", n, ADDRESS_MAX_NAME);
	return 0;
}

static int prefix_quoted(struct buf *err, const char *s)
{
	struct buf q = BUF_INIT;

	header_quote_input(&q, s);
	err_prefix(err, "address %s: ", q.data);
	buf_release(&q);
	return -1;
}

int address_check(const struct address *a, struct buf *err)
{
	if (!a->email || !a->name)
		return err_set(err, "address without an email or a name");
	if (check_email(a->email, err) || check_name(a->name, err))
		return prefix_quoted(err, a->email);
	return 0;
}

/* The display name in s[0..n): quoted strings unquoted, the rest as is. */
static int unquote_name(const char *s, size_t n, struct buf *name, struct buf *err)
{
	size_t i;
	int quoted = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '"') {
			quoted = !quoted;
		} else if (quoted && s[i] == '\\' && i + 1 < n) {
			buf_addc(name, s[++i]);
		} else {
			buf_addc(name, s[i]);
		}
	}
	if (quoted)
		return err_set(err, "the quoted name has no closing '\"'");
	return 0;
}

/* s[0..n) without the spaces at both ends, into out. */
static void trim_spaces(const char *s, size_t n, struct buf *out)
{
	while (n && *s == ' ') {
		s++;
		n--;
	}
	while (n && s[n - 1] == ' ')
		n--;
	buf_add(out, s, n);
}

/*
 * The strict reading of one address (trimmed, NUL-terminated s), from the
 * same tokens as incoming mail's but without comments: git's and the
 * configuration's "Name <email>" text has none, so "(" is a name
 * character there.
 */
static int parse_strict(const char *s, struct address *out, struct buf *err)
{
	struct rfc5322_token *t = NULL;
	struct buf name = BUF_INIT, email = BUF_INIT;
	size_t n = rfc5322_tokenize(s, RFC5322_NO_COMMENTS, &t), i, angle = n;
	int rc = -1;

	for (i = 0; i < n && angle == n; i++)
		if (t[i].kind == RFC5322_ANGLE)
			angle = i;
	if (angle == n) {
		for (i = 0; i < n; i++)
			if (t[i].kind == RFC5322_QUOTED && t[i].open) {
				err_set(err, "the quoted name has no closing '\"'");
				goto out;
			}
		buf_adds(&email, s);
	} else if (t[angle].open) {
		err_set(err, "'<' without '>'");
		goto out;
	} else if (angle + 1 != n) {
		err_set(err, "text after '>'");
		goto out;
	} else {
		struct buf raw = BUF_INIT;

		trim_spaces(t[angle].p, t[angle].n, &email);
		trim_spaces(s, (size_t)(t[angle].start - s), &raw);
		i = unquote_name(raw.data, raw.len, &name, err);
		buf_release(&raw);
		if (i)
			goto out;
	}
	out->name = buf_detach(&name, NULL);
	out->email = buf_detach(&email, NULL);
	rc = 0;
out:
	free(t);
	buf_release(&name);
	buf_release(&email);
	return rc;
}

static int parse(const char *s, struct address *out, struct buf *err)
{
	struct buf trimmed = BUF_INIT;
	const char *p;
	int rc;

	if (strlen(s) > ADDRESS_MAX_INPUT)
		return err_set(err, "longer than %d bytes", ADDRESS_MAX_INPUT);
	for (p = s; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			return err_set(err, "a control character is not allowed");
	trim_spaces(s, strlen(s), &trimmed);
	if (!trimmed.len) {
		buf_release(&trimmed);
		return err_set(err, "no address");
	}
	rc = parse_strict(trimmed.data, out, err);
	buf_release(&trimmed);
	if (rc)
		return -1;
	if (check_email(out->email, err) || check_name(out->name, err)) {
		address_release(out);
		return -1;
	}
	return 0;
}

int address_parse(const char *s, struct address *out, struct buf *err)
{
	struct address a;

	if (parse(s, &a, err))
		return prefix_quoted(err, s);
	*out = a;
	return 0;
}

int address_list_parse(const char *s, struct address **list, size_t *n, struct buf *err)
{
	struct address *a = NULL;
	struct rfc5322_token *t = NULL;
	size_t nr = 0, alloc = 0, nt, i, element = 0;
	const char *start = s;

	*list = NULL;
	*n = 0;
	if (strlen(s) > ADDRESS_MAX_INPUT)
		return err_set(err, "address list longer than %d bytes", ADDRESS_MAX_INPUT);
	/* commas outside quoted names and <...> separate */
	nt = rfc5322_tokenize(s, RFC5322_NO_COMMENTS, &t);
	for (i = 0; i <= nt; i++) {
		const char *end;
		struct buf one = BUF_INIT;

		if (i < nt && !(t[i].kind == RFC5322_SPECIAL && *t[i].p == ','))
			continue;
		end = i < nt ? t[i].start : s + strlen(s);
		element++;
		trim_spaces(start, (size_t)(end - start), &one);
		start = i < nt ? t[i].end : end;
		if (!one.len)
			continue;	/* empty element */
		if (nr == ADDRESS_MAX_LIST) {
			buf_release(&one);
			address_list_free(a, nr);
			free(t);
			return err_set(err, "more than %d addresses in a list", ADDRESS_MAX_LIST);
		}
		ALLOC_GROW(a, nr + 1, alloc);
		if (address_parse(one.data, &a[nr], err)) {
			err_prefix(err, "address %zu: ", element);
			buf_release(&one);
			address_list_free(a, nr);
			free(t);
			return -1;
		}
		buf_release(&one);
		nr++;
	}
	free(t);
	*list = a;
	*n = nr;
	return 0;
}

/* ---- incoming mail: the lenient reading ---- */

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

/* One list element t[0..n) as written. */
static void element_raw(const struct rfc5322_token *t, size_t n, struct address_raw *a)
{
	struct buf phrase = BUF_INIT, email = BUF_INIT, comment = BUF_INIT;
	size_t i, angle = n;
	int has_comment = 0;

	for (i = 0; i < n; i++) {
		if (t[i].kind == RFC5322_ANGLE && angle == n)
			angle = i;
		if (t[i].kind == RFC5322_COMMENT && !has_comment) {
			rfc5322_unquote(t[i].p, t[i].n, &comment);
			has_comment = 1;
		}
	}
	for (i = 0; i < angle; i++) {
		if (t[i].kind == RFC5322_COMMENT)
			continue;
		if (phrase.len && t[i].space_before)
			buf_addc(&phrase, ' ');
		if (t[i].kind == RFC5322_QUOTED)
			rfc5322_unquote(t[i].p, t[i].n, &phrase);
		else
			buf_add(&phrase, t[i].p, t[i].n);
	}
	if (angle < n) {
		addr_clean(t[angle].p, t[angle].n, &email);
	} else {
		for (i = 0; i < n; i++) {
			if (t[i].kind == RFC5322_COMMENT)
				continue;
			if (t[i].kind == RFC5322_QUOTED) {
				buf_addc(&email, '"');
				buf_add(&email, t[i].p, t[i].n);
				buf_addc(&email, '"');
			} else {
				addr_clean(t[i].p, t[i].n, &email);
			}
		}
	}
	a->phrase = buf_detach(&phrase, NULL);
	a->email = buf_detach(&email, NULL);
	a->comment = has_comment ? buf_detach(&comment, NULL) : NULL;
	buf_release(&comment);
	a->angle = angle < n;
	a->start = t[0].start;
	a->end = t[n - 1].end;
}

size_t address_raw_read(const char *body, struct address_raw **out)
{
	struct rfc5322_token *t = NULL;
	struct address_raw *v = NULL;
	size_t n = rfc5322_tokenize(body, 0, &t), i, start = 0, nr = 0, alloc = 0;
	int in_group = 0;

	for (i = 0; i <= n; i++) {
		int end_group = 0;
		size_t j, words = 0;

		if (i < n && t[i].kind == RFC5322_SPECIAL && t[i].p[0] == ':' && !in_group) {
			in_group = 1;	/* "group: a, b;": the group name is not an address */
			start = i + 1;
			continue;
		}
		if (i < n && t[i].kind == RFC5322_SPECIAL && t[i].p[0] == ';' && in_group)
			end_group = 1;
		if (i < n && !end_group && !(t[i].kind == RFC5322_SPECIAL && t[i].p[0] == ','))
			continue;
		for (j = start; j < i; j++)
			if (t[j].kind != RFC5322_COMMENT)
				words++;
		if (words) {
			ALLOC_GROW(v, nr + 1, alloc);
			element_raw(t + start, i - start, &v[nr++]);
		}
		if (end_group)
			in_group = 0;
		start = i + 1;
	}
	free(t);
	*out = v;
	return nr;
}

void address_raw_free(struct address_raw *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].phrase);
		free(v[i].comment);
		free(v[i].email);
	}
	free(v);
}

/* 1 when e looks like local@domain: both sides non-empty, no controls,
 * not too long. */
static int email_ok(const char *e)
{
	const char *at = strrchr(e, '@');
	size_t i, n = strlen(e);

	if (!at || at == e || !at[1] || n > ADDRESS_MAX_EMAIL)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)e[i] < ' ' || e[i] == 0x7f || e[i] == '<' || e[i] == '>')
			return 0;
	return 1;
}

/* A display name: RFC 2047 decoded, blanks at both ends trimmed. */
static char *name_decode(const char *s)
{
	struct buf out = BUF_INIT, trimmed = BUF_INIT;
	size_t start = 0, end;

	rfc2047_decode(s, strlen(s), 0, &out);
	while (start < out.len && (out.data[start] == ' ' || out.data[start] == '\t'))
		start++;
	for (end = out.len; end > start && (out.data[end - 1] == ' ' || out.data[end - 1] == '\t');
	     end--)
		;
	buf_add(&trimmed, out.data + start, end - start);
	buf_release(&out);
	return buf_detach(&trimmed, NULL);
}

void address_list_read(const char *field, const char *body, struct address **list, size_t *nr,
		       size_t *alloc, const struct problems *pr)
{
	struct address_raw *raw = NULL;
	struct buf q = BUF_INIT, span = BUF_INIT, clean = BUF_INIT;
	size_t n = address_raw_read(body, &raw), i, count = 0;

	for (i = 0; i < n; i++) {
		struct address a;

		buf_reset(&clean);
		charset_repair_utf8(raw[i].email, strlen(raw[i].email), &clean);
		/* the limit counts the bytes kept: U+FFFD is three of them */
		if (!email_ok(clean.data)) {
			buf_reset(&span);
			buf_reset(&q);
			buf_add(&span, raw[i].start, (size_t)(raw[i].end - raw[i].start));
			header_quote_input(&q, span.data);
			problem_add(pr, "%s: %s is not an address; dropped", field, q.data);
			continue;
		}
		if (++count > ADDRESS_MAX_LIST) {
			problem_add(pr, "%s: more than %d addresses; the rest were ignored", field,
				    ADDRESS_MAX_LIST);
			break;
		}
		a.email = buf_detach(&clean, NULL);
		if (raw[i].angle)
			a.name = name_decode(raw[i].phrase);
		else if (raw[i].comment)
			a.name = name_decode(raw[i].comment);
		else
			a.name = xstrdup("");
		ALLOC_GROW(*list, *nr + 1, *alloc);
		(*list)[(*nr)++] = a;
	}
	address_raw_free(raw, n);
	buf_release(&q);
	buf_release(&span);
	buf_release(&clean);
}

int address_equal(const struct address *a, const struct address *b)
{
	return !strcasecmp(a->email, b->email);
}

static int is_atext(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

/* Atoms separated by single spaces: "kernel test robot". */
static int is_atom_phrase(const char *s)
{
	const char *p;

	if (!*s || *s == ' ')
		return 0;
	for (p = s; *p; p++)
		if (!is_atext(*p) && !(*p == ' ' && p[1] && p[1] != ' '))
			return 0;
	return 1;
}

void address_format(struct buf *out, const struct address *a)
{
	const char *p;

	if (!a->name[0]) {
		buf_adds(out, a->email);
		return;
	}
	if (header_needs_encoding(a->name, strlen(a->name))) {
		header_encode_phrase(out, a->name, strlen(a->name));
	} else if (is_atom_phrase(a->name)) {
		buf_adds(out, a->name);
	} else {
		buf_addc(out, '"');
		for (p = a->name; *p; p++) {
			if (*p == '"' || *p == '\\')
				buf_addc(out, '\\');
			buf_addc(out, *p);
		}
		buf_addc(out, '"');
	}
	buf_adds(out, " <");
	buf_adds(out, a->email);
	buf_addc(out, '>');
}
