#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "address.h"
#include "header.h"
#include "xalloc.h"
#include "banned.h"

/* Characters that may not appear in an address (besides space and
 * controls): RFC 5322 specials, which would need quoting. */
static const char address_specials[] = "<>()[]\\,;:\"";

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
	if (strchr(address_specials, c))
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

static int parse(const char *s, struct address *out, struct buf *err)
{
	struct buf name = BUF_INIT;
	const char *b = s, *e = s + strlen(s), *p, *lt = NULL, *gt, *eb, *ee;
	int quoted = 0;

	if (e - s > ADDRESS_MAX_INPUT)
		return err_set(err, "longer than %d bytes", ADDRESS_MAX_INPUT);
	for (p = s; p < e; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			return err_set(err, "a control character is not allowed");
	while (b < e && *b == ' ')
		b++;
	while (e > b && e[-1] == ' ')
		e--;
	if (b == e)
		return err_set(err, "no address");
	for (p = b; p < e && !lt; p++) {
		if (quoted && *p == '\\' && p + 1 < e)
			p++;
		else if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == '<')
			lt = p;
	}
	if (!lt) {
		if (quoted)
			return err_set(err, "the quoted name has no closing '\"'");
		eb = b;
		ee = e;
	} else {
		gt = memchr(lt, '>', e - lt);
		if (!gt)
			return err_set(err, "'<' without '>'");
		if (gt + 1 != e)
			return err_set(err, "text after '>'");
		for (eb = lt + 1; eb < gt && *eb == ' '; eb++)
			;
		for (ee = gt; ee > eb && ee[-1] == ' '; ee--)
			;
		for (p = lt; p > b && p[-1] == ' '; p--)
			;
		if (unquote_name(b, p - b, &name, err)) {
			buf_release(&name);
			return -1;
		}
	}
	out->name = buf_detach(&name, NULL);
	out->email = xstrndup(eb, ee - eb);
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
	size_t nr = 0, alloc = 0, len = strlen(s), start = 0, i, element = 0;
	int quoted = 0, angle = 0;

	*list = NULL;
	*n = 0;
	if (len > ADDRESS_MAX_INPUT)
		return err_set(err, "address list longer than %d bytes", ADDRESS_MAX_INPUT);
	for (i = 0; i <= len; i++) {
		char *one;
		size_t k;

		if (i < len) {
			if (quoted && s[i] == '\\' && i + 1 < len)
				i++;
			else if (s[i] == '"')
				quoted = !quoted;
			else if (!quoted && s[i] == '<')
				angle = 1;
			else if (!quoted && s[i] == '>')
				angle = 0;
			if (quoted || angle || s[i] != ',')
				continue;
		}
		element++;
		for (k = start; k < i && s[k] == ' '; k++)
			;
		start = i + 1;
		if (k == i)
			continue;	/* empty element */
		if (nr == ADDRESS_MAX_LIST) {
			address_list_free(a, nr);
			return err_set(err, "more than %d addresses in a list", ADDRESS_MAX_LIST);
		}
		one = xstrndup(s + k, i - k);
		ALLOC_GROW(a, nr + 1, alloc);
		if (address_parse(one, &a[nr], err)) {
			err_prefix(err, "address %zu: ", element);
			free(one);
			address_list_free(a, nr);
			return -1;
		}
		free(one);
		nr++;
	}
	*list = a;
	*n = nr;
	return 0;
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
	buf_addf(out, " <%s>", a->email);
}
