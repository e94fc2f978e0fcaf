/*
 * maintainers.c: a MAINTAINERS file read into the arrays of
 * maintainers-data.h, line by line as get_maintainer.pl reads it
 * (maintainers_parse()), and the notes on patterns that cannot match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maintainers-data.h"
#include "xalloc.h"
#include "banned.h"

const char *mnt_tv_value(const struct maintainers *m, const struct tv *t)
{
	return m->text + t->off;
}

const char *mnt_fpat_value(const struct maintainers *m, const struct fpat *f)
{
	return m->text + m->tv[f->tv].off;
}

int mnt_is_space(int c)
{
	/* Perl's \s */
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}


void mnt_note(struct maintainers *m, unsigned line, const char *fmt, ...)
{
	va_list ap;

	buf_addf(&m->notes, "%s:%u: ", m->name, line);
	va_start(ap, fmt);
	buf_vaddf(&m->notes, fmt, ap);
	va_end(ap);
	buf_addc(&m->notes, '\n');
}

/* ---- reading the file ---- */

static int read_lines(struct maintainers *m, size_t len, struct buf *err)
{
	char *p = m->text, *end = m->text + len;
	unsigned line = 0;

	/* the kernel's lines average 30 bytes: one allocation, mostly */
	m->alloc_tv = len / 24 + 16;
	m->tv = xmalloc(m->alloc_tv * sizeof(*m->tv));
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *s;
		struct tv *t;

		line++;
		if ((size_t)(e - p) > MAINTAINERS_MAX_LINE)
			return err_set(err, "%s:%u: line longer than %d bytes", m->name, line,
				       MAINTAINERS_MAX_LINE);
		*e = '\0';
		if (e > p && e[-1] == '\r')
			*--e = '\0';	/* CRLF read as LF */
		for (s = p; s < e && mnt_is_space((unsigned char)*s); s++)
			;
		if (s < e && *s != '#') {
			ALLOC_GROW(m->tv, m->nr_tv + 1, m->alloc_tv);
			t = &m->tv[m->nr_tv++];
			memset(t, 0, sizeof(*t));	/* its padding too: it goes into the image */
			t->line = line;
			if (p[0] >= 'A' && p[0] <= 'Z' && p[1] == ':') {
				for (s = p + 2; s < e && mnt_is_space((unsigned char)*s); s++)
					;
				t->type = p[0];
				t->off = (uint32_t)(s - m->text);
				m->nr_fx += p[0] == 'F' || p[0] == 'X';
				t->len = (unsigned)(e - s);
			} else {
				t->type = 0;
				t->off = (uint32_t)(p - m->text);
				m->nr_names++;
				t->len = (unsigned)(e - p);
			}
		}
		p = e + 1;
		if (nl && e < nl)
			p = nl + 1;
	}
	return 0;
}

/* Characters of an F:/X: value: 1 makes it more than a plain prefix,
 * 2 is the '/' its depth counts. */
static const unsigned char glob_char[256] = {
	['*'] = 1, ['?'] = 1, ['['] = 1, ['\\'] = 1, ['+'] = 1, ['('] = 1, [')'] = 1,
	['{'] = 1, ['}'] = 1, ['|'] = 1, ['^'] = 1, ['$'] = 1, ['/'] = 2,
};

/* F: and X: as get_maintainer.pl turns them into a regex: '.' -> "\.",
 * '*' -> ".*", '?' -> ".". */
void mnt_convert_glob(struct buf *out, const char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (v[i] == '.')
			buf_adds(out, "\\.");
		else if (v[i] == '*')
			buf_adds(out, ".*");
		else if (v[i] == '?')
			buf_addc(out, '.');
		else
			buf_addc(out, v[i]);
	}
}

static size_t add_class(struct maintainers *m, const struct gclass *c)
{
	ALLOC_GROW(m->classes, m->nr_classes + 1, m->alloc_classes);
	m->classes[m->nr_classes] = *c;
	return m->nr_classes++;
}

static int class_has(const struct gclass *c, unsigned char ch)
{
	return (c->bit[ch >> 3] >> (ch & 7)) & 1;
}

static void class_add(struct gclass *c, unsigned char ch)
{
	c->bit[ch >> 3] |= (unsigned char)(1u << (ch & 7));
}

/*
 * The glob tokens of an F:/X: value, or -1 when it uses more of Perl's
 * regex syntax than '*' '?' and simple classes (then it is matched as the
 * regex get_maintainer.pl makes of it).
 */
static int compile_glob(struct maintainers *m, struct fpat *f)
{
	size_t i, n = 0, start = m->nr_toks;
	const char *v = mnt_fpat_value(m, f);
	struct gtok *tok;

	/* at most one mnt_token a character: room for all of them at once */
	ALLOC_GROW(m->toks, start + f->len + 1, m->alloc_toks);
	tok = m->toks + start;
	memset(tok, 0, (f->len + 1) * sizeof(*tok));

	for (i = 0; i < f->len; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c == '*' || c == '?') {
			tok[n++].kind = c;
		} else if (c == '[') {
			struct gclass cl;
			size_t j = i + 1;
			int first = 1, negate = 0;

			memset(&cl, 0, sizeof(cl));
			if (j < f->len && v[j] == '^') {
				negate = 1;
				j++;
			}
			for (;;) {
				unsigned char lo, hi;

				if (j >= f->len)
					goto regex;
				lo = (unsigned char)v[j];
				if (lo == ']' && !first)
					break;
				first = 0;
				if (strchr("\\[*?", lo))
					goto regex;
				if (j + 2 < f->len && v[j + 1] == '-' && v[j + 2] != ']') {
					unsigned c2;

					hi = (unsigned char)v[j + 2];
					if (strchr("\\[*?", hi) || hi < lo)
						goto regex;
					for (c2 = lo; c2 <= hi; c2++)
						class_add(&cl, (unsigned char)c2);
					j += 3;
					continue;
				}
				class_add(&cl, lo);
				j++;
			}
			if (m->nr_classes >= 65535)
				goto regex;
			tok[n].kind = '[';
			tok[n].c = (unsigned char)negate;
			tok[n].cls = (unsigned short)add_class(m, &cl);
			n++;
			i = j;
		} else if (c && strchr("\\+(){}|^$", c)) {
			goto regex;
		} else {
			tok[n].kind = 'l';
			tok[n].c = c;
			n++;
		}
	}
	f->tok = (uint32_t)start;
	f->nr_tok = (uint32_t)n;
	m->nr_toks = start + n;
	return 0;
regex:
	return -1;	/* m->nr_toks unchanged: the tokens written are dropped */
}

static int gtok_match(const struct maintainers *m, const struct gtok *t, unsigned char c)
{
	switch (t->kind) {
	case 'l':
		return t->c == c;
	case '?':
		return 1;
	default:
		return class_has(&m->classes[t->cls], c) != t->c;
	}
}

/* Does the glob match a prefix of s (as the regex "^glob" would)?  The
 * classic one-star backtracking, with an implicit '*' at the end. */
int mnt_glob_prefix(const struct maintainers *m, const struct gtok *t, size_t n, const char *s)
{
	size_t i = 0, j = 0, star_i = (size_t)-1, star_j = 0;

	for (;;) {
		if (i < n && t[i].kind == '*') {
			star_i = i++;
			star_j = j;
			continue;
		}
		if (i == n)
			return 1;
		if (s[j] && gtok_match(m, &t[i], (unsigned char)s[j])) {
			i++;
			j++;
			continue;
		}
		if (star_i == (size_t)-1 || !s[star_j])
			return 0;
		i = star_i + 1;
		j = ++star_j;
	}
}

int mnt_count_slashes(const char *s, size_t n)
{
	int k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += s[i] == '/';
	return k;
}

/* FNV-1a, one byte at a time, so that a caller walking a path can hash
 * each of its leading directories on the way. */

uint32_t mnt_hash_step(uint32_t h, unsigned char c)
{
	return (h ^ c) * 16777619u;
}

struct bucket *mnt_bucket_find(const struct maintainers *m, const char *key, size_t len, uint32_t hash)
{
	size_t i = hash & (m->nr_buckets - 1);

	while (m->buckets[i].used &&
	       (m->buckets[i].len != len || memcmp(m->text + m->buckets[i].off, key, len)))
		i = (i + 1) & (m->nr_buckets - 1);
	return &m->buckets[i];
}

static void build_index(struct maintainers *m)
{
	size_t i, n = 16;

	while (n < 2 * m->nr_fpats)
		n *= 2;
	m->nr_buckets = n;
	m->buckets = xcalloc(n, sizeof(*m->buckets));
	for (i = 0; i < m->nr_fpats; i++) {
		struct fpat *f = &m->fpats[i];
		struct bucket *b;
		size_t dir;

		if (m->tv[f->tv].type != 'F' || f->kind == F_BROKEN)
			continue;
		/* the index key: every path the pattern matches mnt_starts with it
		 * (a regex is tried for every path) */
		dir = f->kind == F_REGEX ? 0 : f->key;
		b = mnt_bucket_find(m, mnt_fpat_value(m, f), dir, f->kind == F_REGEX ? HASH_START : f->hash);
		if (!b->used) {
			b->used = 1;
			b->off = m->tv[f->tv].off;
			b->len = dir;
			b->head = -1;
		}
		f->next = b->head;
		b->head = (long)i;
	}
}

static void add_fpat(struct maintainers *m, size_t tv, size_t sec)
{
	struct fpat *f;
	const char *v = mnt_tv_value(m, &m->tv[tv]);
	size_t i, key = 0;
	int special = 0, slashes = 0;
	uint32_t h = HASH_START, key_hash = HASH_START;

	ALLOC_GROW(m->fpats, m->nr_fpats + 1, m->alloc_fpats);
	f = &m->fpats[m->nr_fpats];
	memset(f, 0, sizeof(*f));
	f->tv = tv;
	f->sec = sec;
	f->len = m->tv[tv].len;
	f->dir = f->len && v[f->len - 1] == '/';
	f->next = -1;
	for (i = 0; i < f->len; i++) {
		unsigned char k = glob_char[(unsigned char)v[i]];

		slashes += k >> 1;
		special |= k & 1;
		if (!special) {
			h = mnt_hash_step(h, (unsigned char)v[i]);
			if (k == 2) {
				key = i + 1;	/* the literal leading directory so far */
				key_hash = h;
			}
		}
	}
	f->key = (uint32_t)key;
	f->hash = key_hash;
	f->slashes = (int16_t)(slashes < INT16_MAX ? slashes : INT16_MAX);
	f->depth = v[0] == '*' ? -1 : f->slashes + !f->dir;
	if (!special) {
		f->kind = F_PLAIN;
	} else if (compile_glob(m, f) == 0) {
		f->kind = F_GLOB;
	} else {
		struct buf re = BUF_INIT, err = BUF_INIT;

		buf_addc(&re, '^');
		mnt_convert_glob(&re, v, f->len);
		if (!m->fres)
			m->fres = xcalloc(m->nr_fx + 1, sizeof(*m->fres));	/* one per F:/X: line at most */
		if (perlre_new(re.data, re.len, 0, &m->fres[m->nr_fpats], &err) < 0) {
			f->kind = F_BROKEN;
			mnt_note(m, m->tv[tv].line, "%s: %s: never matches", v, err.data);
		} else {
			f->kind = F_REGEX;
		}
		buf_release(&re);
		buf_release(&err);
	}
	if (m->tv[tv].type == 'X') {
		struct sec *s = &m->secs[sec];

		/* sections are read in order: each one's X: lines are a run */
		if (!s->nr_x)
			s->x_first = m->nr_xs;
		ALLOC_GROW(m->xs, m->nr_xs + 1, m->alloc_xs);
		m->xs[m->nr_xs++] = (uint32_t)m->nr_fpats;
		s->nr_x++;
	}
	m->nr_fpats++;
}

/*
 * An N: or K: line's regexes.  Read from an image (from_image), the line
 * compiled when the image was made, unless it is marked refused: its
 * regexes are compiled on first use, and its notes are the image's.
 */
void mnt_add_rpat(struct maintainers *m, size_t tv, size_t sec, int from_image)
{
	struct tv *t = &m->tv[tv];
	struct rpat r;
	struct buf err = BUF_INIT;
	size_t len = t->len;
	unsigned flags = PERLRE_EXTENDED | (from_image ? PERLRE_CHECKED : 0);

	memset(&r, 0, sizeof(r));
	r.tv = tv;
	r.sec = sec;
	snprintf(r.order, sizeof(r.order), "%zu", tv);
	if (from_image && t->refused)
		return;
	if (!len) {
		if (!from_image)
			mnt_note(m, t->line, "empty %c: pattern: never matches", t->type);
		return;
	}
	if (perlre_new(mnt_tv_value(m, t), len, flags, &r.head, &err) < 0) {
		mnt_note(m, t->line, "%s: %s: never matches", mnt_tv_value(m, t), err.data);
		if (!from_image)
			t->refused = 1;	/* an image's lines are never written */
		buf_release(&err);
		return;
	}
	if (t->type == 'K') {
		struct buf d = BUF_INIT;

		buf_adds(&d, "^[+-].*");
		buf_add(&d, mnt_tv_value(m, t), len);
		if (perlre_new(d.data, d.len, flags, &r.diff, &err) < 0) {
			mnt_note(m, t->line, "%s: %s (after \"^[+-].*\"): never matches", mnt_tv_value(m, t), err.data);
			if (!from_image)
				t->refused = 1;
			perlre_free(r.head);
			buf_release(&d);
			buf_release(&err);
			return;
		}
		buf_release(&d);
		ALLOC_GROW(m->kpats, m->nr_kpats + 1, m->alloc_kpats);
		m->kpats[m->nr_kpats++] = r;
	} else {
		ALLOC_GROW(m->npats, m->nr_npats + 1, m->alloc_npats);
		m->npats[m->nr_npats++] = r;
	}
	buf_release(&err);
}

/* The text get_maintainer.pl keeps for a tag line: "T:value", F: and X:
 * converted.  Only a section without a name line is named by it. */
char *mnt_tv_text(const struct maintainers *m, const struct tv *t)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%c:", t->type);
	if (t->type == 'F' || t->type == 'X')
		mnt_convert_glob(&b, mnt_tv_value(m, t), t->len);
	else
		buf_adds(&b, mnt_tv_value(m, t));
	return buf_detach(&b, NULL);
}

void mnt_build_sections(struct maintainers *m)
{
	size_t i = 0;

	m->alloc_secs = m->nr_names + 1;
	m->secs = xmalloc(m->alloc_secs * sizeof(*m->secs));
	m->alloc_fpats = m->nr_fx + 1;
	m->fpats = xmalloc(m->alloc_fpats * sizeof(*m->fpats));

	while (i < m->nr_tv) {
		struct sec *s;
		size_t j;

		if (!m->tv[i].type) {
			i++;
			continue;
		}
		ALLOC_GROW(m->secs, m->nr_secs + 1, m->alloc_secs);
		s = &m->secs[m->nr_secs];
		memset(s, 0, sizeof(*s));
		s->first = i;
		while (i < m->nr_tv && m->tv[i].type)
			i++;
		s->end = i;
		s->named = s->first > 0;
		if (s->named) {
			s->pub.name = mnt_tv_value(m, &m->tv[s->first - 1]);
			s->pub.line = m->tv[s->first - 1].line;
		} else {
			s->own_name = mnt_tv_text(m, &m->tv[s->first]);
			s->pub.name = s->own_name;
			s->pub.line = m->tv[s->first].line;
		}
		s->pub.status = "";
		s->pub.is_rest = !strcmp(s->pub.name, "THE REST");
		for (j = s->first + !s->named; j < s->end; j++)
			if (m->tv[j].type == 'S')
				s->pub.status = mnt_tv_value(m, &m->tv[j]);
		m->nr_secs++;
	}
	for (i = 0; i < m->nr_secs; i++) {
		size_t j;

		for (j = m->secs[i].first; j < m->secs[i].end; j++) {
			char type = m->tv[j].type;

			if (type == 'F' || type == 'X')
				add_fpat(m, j, i);
			else if (type == 'N' || type == 'K')
				mnt_add_rpat(m, j, i, 0);
		}
	}
}

int maintainers_parse(const char *name, struct buf *text, struct maintainers **out, struct buf *err)
{
	struct maintainers *m;
	size_t len = text->len;

	*out = NULL;
	if (len > MAINTAINERS_MAX_SIZE)
		return err_set(err, "%s: larger than %u bytes", name, MAINTAINERS_MAX_SIZE);
	if (memchr(text->data, '\0', len))
		return err_set(err, "%s: holds a NUL byte: not a MAINTAINERS file", name);
	m = xcalloc(1, sizeof(*m));
	m->name = xstrdup(name);
	buf_init(&m->notes);
	/* the values point into the text: take it rather than copy it */
	m->text = buf_detach(text, NULL);
	m->text_len = len;
	if (read_lines(m, len, err) < 0) {
		maintainers_free(m);
		return -1;
	}
	mnt_build_sections(m);
	build_index(m);
	*out = m;
	return 0;
}

static void rpat_release(struct rpat *r)
{
	perlre_free(r->head);
	perlre_free(r->diff);
}

void maintainers_free(struct maintainers *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; m->fres && i < m->nr_fpats; i++)
		perlre_free(m->fres[i]);
	free(m->fres);
	for (i = 0; i < m->nr_npats; i++)
		rpat_release(&m->npats[i]);
	for (i = 0; i < m->nr_kpats; i++)
		rpat_release(&m->kpats[i]);
	for (i = 0; m->secs && i < m->nr_secs; i++)
		free(m->secs[i].own_name);
	free(m->npats);
	free(m->kpats);
	buf_release(&m->notes);
	if (m->image) {
		free(m->secs);	/* a copy; every other array is the image's */
		free(m);
		return;
	}
	free(m->fpats);
	free(m->toks);
	free(m->xs);
	free(m->classes);
	free(m->secs);
	free(m->tv);
	free(m->buckets);
	free(m->text);
	free(m->name);
	free(m);
}

