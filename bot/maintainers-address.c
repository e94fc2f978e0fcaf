/*
 * maintainers-address.c: addresses as get_maintainer.pl reads them
 * (parse_email(), rfc822_valid()), which is not RFC 5322's reading
 * (address.c): perfbot must give the same answer as the script.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "maintainers-data.h"
#include "xalloc.h"
#include "banned.h"


static void trim(const char **b, const char **e)
{
	while (*b < *e && mnt_is_space((unsigned char)**b))
		(*b)++;
	while (*e > *b && mnt_is_space((unsigned char)(*e)[-1]))
		(*e)--;
}

/* parse_email(): the address part, or 0 when no branch matches. */
static int email_parts(const char *s, const char **nb, const char **ne, const char **ab, const char **ae)
{
	const char *end = s + strlen(s), *lt = strchr(s, '<'), *p, *q;

	*nb = *ne = s;
	/* ^([^<]+)<(.+\@.*)>.*$ */
	if (lt && lt > s) {
		for (q = end; q-- > lt + 1;) {
			if (*q != '>')
				continue;
			if (q - lt >= 3 && memchr(lt + 2, '@', (size_t)(q - lt - 2))) {
				*ne = lt;
				*ab = lt + 1;
				*ae = q;
				return 1;
			}
		}
	}
	/* ^\s*<(.+\@\S*)>.*$ */
	for (p = s; *p && mnt_is_space((unsigned char)*p); p++)
		;
	if (*p == '<') {
		for (q = end; q-- > p + 2;) {
			const char *r, *gt = NULL;

			if (*q != '@')
				continue;
			for (r = q + 1; *r && !mnt_is_space((unsigned char)*r); r++)
				if (*r == '>')
					gt = r;
			if (gt) {
				*ab = p + 1;
				*ae = gt;
				return 1;
			}
		}
	}
	/* ^(.+\@\S*).*$ */
	for (q = end; q-- > s + 1;) {
		if (*q == '@') {
			for (p = q + 1; *p && !mnt_is_space((unsigned char)*p); p++)
				;
			*ab = s;
			*ae = p;
			return 1;
		}
	}
	return 0;
}

/* A name with characters other than \w, space and '-' is quoted, its
 * unescaped quotes escaped (format_email()). */
static char *quote_name(const char *name)
{
	struct buf b = BUF_INIT;
	const char *p;
	int special = 0;

	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != ' ' && *p != '-')
			special = 1;
	if (!special)
		return xstrdup(name);
	buf_addc(&b, '"');
	for (p = name; *p; p++) {
		if (*p == '"' && (p == name || p[-1] != '\\'))
			buf_addc(&b, '\\');
		buf_addc(&b, *p);
	}
	buf_addc(&b, '"');
	return buf_detach(&b, NULL);
}

/* Fills name, name_q and addr of p from text as parse_email() reads it;
 * addr may come out "". */
void mnt_person_parse(struct person *p, const char *text)
{
	const char *nb, *ne, *ab = text, *ae = text;

	if (!email_parts(text, &nb, &ne, &ab, &ae))
		nb = ne = ab = ae = text;
	trim(&nb, &ne);
	if (ne > nb && *nb == '"')
		nb++;
	if (ne > nb && ne[-1] == '"')
		ne--;
	trim(&ab, &ae);
	p->name = xstrndup(nb, (size_t)(ne - nb));
	p->name_q = quote_name(p->name);
	p->addr = xstrndup(ab, (size_t)(ae - ab));
}

void mnt_person_release(struct person *p)
{
	free(p->name);
	free(p->name_q);
	free(p->addr);
}

/* ---- RFC 822 lists (get_maintainer.pl's rfc822_valid/_validlist) ---- */

static int lwsp(const char *s, size_t i)
{
	/* (?:\r\n)?[ \t]: its length at i, 0 if none */
	if (s[i] == ' ' || s[i] == '\t')
		return 1;
	if (s[i] == '\r' && s[i + 1] == '\n' && (s[i + 2] == ' ' || s[i + 2] == '\t'))
		return 3;
	return 0;
}

static size_t skip_lwsp(const char *s, size_t i)
{
	int k;

	while ((k = lwsp(s, i)) > 0)
		i += (size_t)k;
	return i;
}

static int rfc_special(int c)
{
	return c && strchr("()<>@,;:\\\".[]", c) != NULL;
}

static long rfc_atom(const char *s, size_t i)
{
	size_t j = i;
	unsigned char c;

	while ((c = (unsigned char)s[j]) && !rfc_special(c) && c != ' ' && c > 31 && c != 127)
		j++;
	if (j == i)
		return -1;
	if (lwsp(s, j))
		return (long)skip_lwsp(s, j);
	if (!s[j] || rfc_special((unsigned char)s[j]))
		return (long)j;
	return -1;
}

static long rfc_quoted(const char *s, size_t i)
{
	if (s[i] != '"')
		return -1;
	for (i++; s[i] && s[i] != '"';) {
		int k;

		if (s[i] == '\\' && s[i + 1])
			i += 2;
		else if ((k = lwsp(s, i)) > 0)
			i += (size_t)k;
		else if (s[i] == '\r' || s[i] == '\\')
			return -1;
		else
			i++;
	}
	if (s[i] != '"')
		return -1;
	return (long)skip_lwsp(s, i + 1);
}

static long rfc_word(const char *s, size_t i)
{
	long e = rfc_atom(s, i);

	return e >= 0 ? e : rfc_quoted(s, i);
}

static long rfc_subdomain(const char *s, size_t i)
{
	long e = rfc_atom(s, i);

	if (e >= 0 || s[i] != '[')
		return e;
	for (i++; s[i] && s[i] != ']';) {
		if (s[i] == '\\' && s[i + 1])
			i += 2;
		else if (s[i] == '[' || s[i] == '\r' || s[i] == '\\')
			return -1;
		else
			i++;
	}
	if (s[i] != ']')
		return -1;
	return (long)skip_lwsp(s, i + 1);
}

static long rfc_dotted(const char *s, size_t i, long (*part)(const char *, size_t))
{
	long e = part(s, i);

	while (e >= 0 && s[e] == '.') {
		long f = part(s, skip_lwsp(s, (size_t)e + 1));

		if (f < 0)
			break;
		e = f;
	}
	return e;
}

static long rfc_addr_spec(const char *s, size_t i)
{
	long e = rfc_dotted(s, i, rfc_word);

	if (e < 0 || s[e] != '@')
		return -1;
	return rfc_dotted(s, skip_lwsp(s, (size_t)e + 1), rfc_subdomain);
}

static long rfc_route_addr(const char *s, size_t i)
{
	long e;
	size_t j;

	if (s[i] != '<')
		return -1;
	j = skip_lwsp(s, i + 1);
	if (s[j] == '@') {
		/* a route: @domain(,@ domain)*: */
		e = rfc_dotted(s, j + 1, rfc_subdomain);
		for (;;) {
			if (e < 0)
				return -1;
			if (s[e] == ',' && s[e + 1] == '@') {
				e = rfc_dotted(s, skip_lwsp(s, (size_t)e + 2), rfc_subdomain);
				continue;
			}
			if (s[e] != ':')
				return -1;
			j = skip_lwsp(s, (size_t)e + 1);
			break;
		}
	}
	e = rfc_addr_spec(s, j);
	if (e < 0 || s[e] != '>')
		return -1;
	return (long)skip_lwsp(s, (size_t)e + 1);
}

static size_t rfc_phrase(const char *s, size_t i)
{
	long e;

	while ((e = rfc_word(s, i)) >= 0)
		i = (size_t)e;
	return i;
}

/* A mailbox at i whose end is followed by one of `follow` ("" = the end
 * of s), or -1. */
static int rfc_follows(const char *s, long e, const char *follow)
{
	return e >= 0 && (!s[e] || (s[e] && strchr(follow, s[e])));
}

static long rfc_mailbox(const char *s, size_t i, const char *follow)
{
	long e = rfc_addr_spec(s, i);

	if (rfc_follows(s, e, follow))
		return e;
	e = rfc_route_addr(s, rfc_phrase(s, i));
	return rfc_follows(s, e, follow) ? e : -1;
}

static long rfc_address(const char *s, size_t i, const char *follow)
{
	long e = rfc_mailbox(s, i, follow);
	size_t j;

	if (e >= 0)
		return e;
	/* a group: phrase : [mailbox (, \s* mailbox)*] ; \s* */
	j = rfc_phrase(s, i);
	if (s[j] != ':')
		return -1;
	j = skip_lwsp(s, j + 1);
	if (s[j] != ';') {
		for (;;) {
			e = rfc_mailbox(s, j, ",;");
			if (e < 0)
				return -1;
			j = (size_t)e;
			if (s[j] != ',')
				break;
			for (j++; mnt_is_space((unsigned char)s[j]); j++)
				;
		}
	}
	if (s[j] != ';')
		return -1;
	for (j++; mnt_is_space((unsigned char)s[j]); j++)
		;
	return rfc_follows(s, (long)j, follow) ? (long)j : -1;
}

/* Comments (...) outside quoted strings become one space, innermost
 * first, as rfc822_strip_comments() does. */
static char *rfc_strip_comments(const char *in)
{
	char *s = xstrdup(in);
	int changed = 1;

	while (changed) {
		size_t i, n = strlen(s), best = (size_t)-1, best_end = 0;
		int quoted = 0;

		changed = 0;
		for (i = 0; i < n; i++) {
			if (s[i] == '\\' && i + 1 < n) {
				i++;
				continue;
			}
			if (s[i] == '"') {
				quoted = !quoted;
				continue;
			}
			if (s[i] == '(' && !quoted) {
				size_t j = i + 1;

				while (j < n && s[j] != '(' && s[j] != ')')
					j += s[j] == '\\' && j + 1 < n ? 2 : 1;
				if (j < n && s[j] == ')') {
					/* the greedy prefix takes the last one */
					best = i;
					best_end = j + 1;
				}
			}
		}
		if (best != (size_t)-1) {
			s[best] = ' ';
			memmove(s + best + 1, s + best_end, n - best_end + 1);
			changed = 1;
		}
	}
	return s;
}

/*
 * The addresses push_email_addresses() takes from an M:/R: value: the
 * value itself, unless it is not one valid RFC 822 address but a valid
 * list of them.  Returns the number put in items (each malloc'd).
 */
size_t mnt_rfc_split(const char *value, char ***items)
{
	char *s;
	size_t n = 0, alloc = 0, i;
	long e;

	*items = NULL;
	if (!strchr(value, ','))
		goto single;
	s = rfc_strip_comments(value);
	e = rfc_address(s, skip_lwsp(s, 0), "");
	if (e >= 0 && !s[e]) {
		free(s);
		goto single;
	}
	/* ^(?:address)?(?:,(?:address)?)*$ */
	for (i = 0;;) {
		size_t j = skip_lwsp(s, i);

		if (s[i] == ',' || !s[i]) {
			e = (long)i;	/* an empty item */
		} else {
			e = rfc_address(s, j, ",");
			if (e < 0)
				break;
			ALLOC_GROW(*items, n + 1, alloc);
			(*items)[n++] = xstrndup(s + j, (size_t)e - j);
		}
		if (!s[e]) {
			free(s);
			return n;
		}
		i = (size_t)e + 1;	/* the ',' */
	}
	/* not a valid list either */
	while (n)
		free((*items)[--n]);
	free(*items);
	*items = NULL;
	free(s);
single:
	*items = xmalloc(sizeof(**items));
	(*items)[0] = xstrdup(value);
	return 1;
}

