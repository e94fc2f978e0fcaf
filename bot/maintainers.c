#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "maintainers.h"
#include "perlre.h"
#include "xalloc.h"
#include "banned.h"

/*
 * One entry of get_maintainer.pl's @typevalue: a kept line.  Like every
 * array but the sections', it holds no pointer (offsets into the text,
 * indexes into other arrays), so that an image (maintainers_load()) is
 * used where it is mapped, without a copy.
 */
struct tv {
	uint32_t off;		/* m->text + off: tag lines: the value; others: the line */
	unsigned len;		/* strlen(value) */
	unsigned line;		/* 1-based line in the file */
	char type;		/* 'A'..'Z' for a tag line; 0 for a name line */
};

/* A section: a maximal run of tag lines [first, end) in typevalue. */
struct sec {
	size_t first, end;
	int named;		/* typevalue[first - 1] is its name line */
	struct maintainers_section pub;
	size_t x_first;		/* its X: patterns: m->xs[x_first..x_first+nr_x) */
	size_t nr_x;
	char *own_name;		/* the name when it is built, else NULL */
};

enum fkind { F_PLAIN, F_GLOB, F_REGEX, F_BROKEN };

/* A glob token: a literal, '?', '*' or a class. */
struct gtok {
	unsigned char kind;	/* 'l', '?', '*', '[' */
	unsigned char c;	/* 'l': the character; '[': 1 when negated */
	unsigned short cls;	/* '[': index into m->classes */
};

struct gclass {
	unsigned char bit[32];
};

/* An F: or X: pattern (its value: fpat_value()). */
struct fpat {
	uint32_t tok;		/* F_GLOB: its tokens, m->toks[tok..tok+nr_tok) */
	uint32_t tv;
	uint32_t sec;
	uint32_t len;
	uint32_t nr_tok;
	uint32_t key;		/* length of the literal leading directory */
	uint32_t hash;		/* hash_key() of it */
	int32_t next;		/* next pattern of the same index bucket, -1 */
	int16_t slashes;	/* '/' in the pattern */
	int16_t depth;		/* get_maintainer.pl's $value_pd */
	unsigned char dir;	/* ends in '/' */
	unsigned char kind;	/* enum fkind */
};

/* An N: pattern, or a K: pattern (head: as written; diff: "^[+-].*" + it). */
struct rpat {
	size_t tv;
	size_t sec;
	struct perlre *head;
	struct perlre *diff;
	char order[24];		/* the typevalue index as text: K: sections sort by it */
};

struct bucket {
	uint32_t off;		/* the key: m->text + off, len bytes */
	uint32_t len;
	int32_t head;
	uint32_t used;		/* 0: empty */
};

struct maintainers {
	char *text;		/* text_len bytes and a NUL; lines end in NUL */
	size_t text_len;
	char *name;
	const void *image;	/* maintainers_load(): the image the arrays but
				 * secs, fres, npats and kpats point into (the
				 * caller's); else NULL */
	struct tv *tv;
	size_t nr_tv, alloc_tv;
	struct sec *secs;
	size_t nr_secs, alloc_secs;
	struct fpat *fpats;
	size_t nr_fpats, alloc_fpats;
	struct gclass *classes;
	size_t nr_classes, alloc_classes;
	struct perlre **fres;	/* F_REGEX patterns' regexes, by fpat index; NULL
				 * when none is (or once glibc refused it) */
	struct gtok *toks;	/* the glob patterns' tokens, one array */
	size_t nr_toks, alloc_toks;
	uint32_t *xs;		/* the sections' X: patterns, one array */
	size_t nr_xs, alloc_xs;
	struct rpat *npats;
	size_t nr_npats, alloc_npats;
	struct rpat *kpats;
	size_t nr_kpats, alloc_kpats;
	struct bucket *buckets;
	size_t nr_buckets;	/* a power of two */
	size_t nr_fx, nr_names;	/* F:/X: lines and other lines, counted when read */
	struct buf notes;
};

static const char *tv_value(const struct maintainers *m, const struct tv *t)
{
	return m->text + t->off;
}

static const char *fpat_value(const struct maintainers *m, const struct fpat *f)
{
	return m->text + m->tv[f->tv].off;
}

static int is_space(int c)
{
	/* Perl's \s */
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void note(struct maintainers *m, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct maintainers *m, unsigned line, const char *fmt, ...)
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
		for (s = p; s < e && is_space((unsigned char)*s); s++)
			;
		if (s < e && *s != '#') {
			ALLOC_GROW(m->tv, m->nr_tv + 1, m->alloc_tv);
			t = &m->tv[m->nr_tv++];
			t->line = line;
			if (p[0] >= 'A' && p[0] <= 'Z' && p[1] == ':') {
				for (s = p + 2; s < e && is_space((unsigned char)*s); s++)
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
static void convert_glob(struct buf *out, const char *v, size_t len)
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
	const char *v = fpat_value(m, f);
	struct gtok *tok;

	/* at most one token a character: room for all of them at once */
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
static int glob_prefix(const struct maintainers *m, const struct gtok *t, size_t n, const char *s)
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

static int count_slashes(const char *s, size_t n)
{
	int k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += s[i] == '/';
	return k;
}

/* FNV-1a, one byte at a time, so that a caller walking a path can hash
 * each of its leading directories on the way. */
#define HASH_START 2166136261u

static uint32_t hash_step(uint32_t h, unsigned char c)
{
	return (h ^ c) * 16777619u;
}

static struct bucket *bucket_find(const struct maintainers *m, const char *key, size_t len, uint32_t hash)
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
		/* the index key: every path the pattern matches starts with it
		 * (a regex is tried for every path) */
		dir = f->kind == F_REGEX ? 0 : f->key;
		b = bucket_find(m, fpat_value(m, f), dir, f->kind == F_REGEX ? HASH_START : f->hash);
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
	const char *v = tv_value(m, &m->tv[tv]);
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
			h = hash_step(h, (unsigned char)v[i]);
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
		convert_glob(&re, v, f->len);
		if (!m->fres)
			m->fres = xcalloc(m->nr_fx + 1, sizeof(*m->fres));	/* one per F:/X: line at most */
		if (perlre_new(re.data, re.len, 0, &m->fres[m->nr_fpats], &err) < 0) {
			f->kind = F_BROKEN;
			note(m, m->tv[tv].line, "%s: %s: never matches", v, err.data);
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

static void add_rpat(struct maintainers *m, size_t tv, size_t sec)
{
	const struct tv *t = &m->tv[tv];
	struct rpat r;
	struct buf err = BUF_INIT;
	size_t len = t->len;

	memset(&r, 0, sizeof(r));
	r.tv = tv;
	r.sec = sec;
	snprintf(r.order, sizeof(r.order), "%zu", tv);
	if (!len) {
		note(m, t->line, "empty %c: pattern: never matches", t->type);
		return;
	}
	if (perlre_new(tv_value(m, t), len, PERLRE_EXTENDED, &r.head, &err) < 0) {
		note(m, t->line, "%s: %s: never matches", tv_value(m, t), err.data);
		buf_release(&err);
		return;
	}
	if (t->type == 'K') {
		struct buf d = BUF_INIT;

		buf_adds(&d, "^[+-].*");
		buf_add(&d, tv_value(m, t), len);
		if (perlre_new(d.data, d.len, PERLRE_EXTENDED, &r.diff, &err) < 0) {
			note(m, t->line, "%s: %s (after \"^[+-].*\"): never matches", tv_value(m, t), err.data);
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
static char *tv_text(const struct maintainers *m, const struct tv *t)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%c:", t->type);
	if (t->type == 'F' || t->type == 'X')
		convert_glob(&b, tv_value(m, t), t->len);
	else
		buf_adds(&b, tv_value(m, t));
	return buf_detach(&b, NULL);
}

static void build_sections(struct maintainers *m)
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
			s->pub.name = tv_value(m, &m->tv[s->first - 1]);
			s->pub.line = m->tv[s->first - 1].line;
		} else {
			s->own_name = tv_text(m, &m->tv[s->first]);
			s->pub.name = s->own_name;
			s->pub.line = m->tv[s->first].line;
		}
		s->pub.status = "";
		s->pub.is_rest = !strcmp(s->pub.name, "THE REST");
		for (j = s->first + !s->named; j < s->end; j++)
			if (m->tv[j].type == 'S')
				s->pub.status = tv_value(m, &m->tv[j]);
		m->nr_secs++;
	}
	for (i = 0; i < m->nr_secs; i++) {
		size_t j;

		for (j = m->secs[i].first; j < m->secs[i].end; j++) {
			char type = m->tv[j].type;

			if (type == 'F' || type == 'X')
				add_fpat(m, j, i);
			else if (type == 'N' || type == 'K')
				add_rpat(m, j, i);
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
	build_sections(m);
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

/* ---- the image (maintainers_image(), maintainers_load()) ---- */

/*
 * The image is the parsed structure itself: the text, then each array as
 * it is in memory.  Every array but the sections' holds offsets and
 * indexes, no pointers, so a loaded image is used where it lies (mapped
 * from a file: no copy, no page written); the sections, whose public part
 * points into the text, are copied and their offsets made pointers.
 * Loading checks every index.  It is only read by the build that wrote
 * it: IMAGE_VERSION and the sizes of the structs make up image_layout(),
 * and an image of another layout is refused (and made again by the
 * caller).  Bump IMAGE_VERSION whenever struct tv, sec, fpat, gtok,
 * gclass or bucket changes.
 */
#define IMAGE_VERSION 2
#define IMAGE_MAGIC "perfbot MAINTAINERS image\n"
#define IMAGE_NONE UINTPTR_MAX

struct image_head {
	char magic[32];
	uint64_t layout;
	char key[MAINTAINERS_IMAGE_KEY];
	uint64_t size;		/* bytes, the head included */
	uint64_t text_len, name_len, notes_len;
	uint64_t nr_tv, nr_secs, nr_fpats, nr_toks, nr_classes, nr_xs, nr_buckets;
};

static uint64_t image_layout(void)
{
	const uint64_t v[] = {
		IMAGE_VERSION, sizeof(struct image_head), sizeof(struct tv), sizeof(struct sec),
		sizeof(struct fpat), sizeof(struct gtok), sizeof(struct gclass),
		sizeof(struct bucket), sizeof(void *), offsetof(struct fpat, kind),
		offsetof(struct sec, pub), offsetof(struct tv, type),
	};
	uint64_t h = 14695981039346656037u;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = (h ^ v[i]) * 1099511628211u;
	return h;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Appends n bytes at p, then zeros to the next multiple of 8. */
static void image_put(struct buf *out, const void *p, size_t n)
{
	static const char zeros[8];

	if (n)
		buf_add(out, p, n);
	buf_add(out, zeros, align8(out->len) - out->len);
}

static uintptr_t text_offset(const struct maintainers *m, const char *p)
{
	if (!p || p < m->text || p > m->text + m->text_len)
		return IMAGE_NONE;
	return (uintptr_t)(p - m->text);
}

int maintainers_image(const struct maintainers *m, const char *key, struct buf *out)
{
	struct image_head h;
	size_t i, start = out->len;

	if (strlen(key) >= sizeof(h.key))
		return -1;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, IMAGE_MAGIC, sizeof(IMAGE_MAGIC) - 1);
	h.layout = image_layout();
	memcpy(h.key, key, strlen(key));
	h.text_len = m->text_len;
	h.name_len = strlen(m->name);
	h.notes_len = m->notes.len;
	h.nr_tv = m->nr_tv;
	h.nr_secs = m->nr_secs;
	h.nr_fpats = m->nr_fpats;
	h.nr_toks = m->nr_toks;
	h.nr_classes = m->nr_classes;
	h.nr_xs = m->nr_xs;
	h.nr_buckets = m->nr_buckets;
	buf_grow(out, align8(sizeof(h)) + align8(m->text_len + 1) + m->nr_tv * sizeof(*m->tv) +
		 m->nr_secs * sizeof(*m->secs) + m->nr_fpats * sizeof(*m->fpats) +
		 m->nr_toks * sizeof(*m->toks) + m->nr_classes * sizeof(*m->classes) +
		 m->nr_xs * sizeof(*m->xs) + m->nr_buckets * sizeof(*m->buckets) + 4096);
	image_put(out, &h, sizeof(h));
	image_put(out, m->text, m->text_len + 1);
	image_put(out, m->name, h.name_len + 1);
	image_put(out, m->notes.data, m->notes.len + 1);
	image_put(out, m->tv, m->nr_tv * sizeof(*m->tv));
	for (i = 0; i < m->nr_secs; i++) {
		struct sec c = m->secs[i];

		c.pub.name = (const char *)(c.own_name ? IMAGE_NONE : text_offset(m, c.pub.name));
		c.pub.status = (const char *)text_offset(m, *c.pub.status ? c.pub.status : NULL);
		c.own_name = NULL;
		buf_add(out, &c, sizeof(c));
	}
	image_put(out, NULL, 0);
	image_put(out, m->fpats, m->nr_fpats * sizeof(*m->fpats));
	image_put(out, m->toks, m->nr_toks * sizeof(*m->toks));
	image_put(out, m->classes, m->nr_classes * sizeof(*m->classes));
	image_put(out, m->xs, m->nr_xs * sizeof(*m->xs));
	image_put(out, m->buckets, m->nr_buckets * sizeof(*m->buckets));
	/* the size, now that it is known */
	h.size = out->len - start;
	memcpy(out->data + start, &h, sizeof(h));
	return 0;
}

/* The section of the image at *off of n elements of size each: NULL when
 * it does not fit in len. */
static const void *image_take(const char *image, size_t len, size_t *off, uint64_t n, size_t size)
{
	const void *p = image + *off;

	if (*off > len || n > (len - *off) / (size ? size : 1))
		return NULL;
	*off = align8(*off + (size_t)n * size);
	if (*off > len)
		return NULL;
	return p;
}

/* A NUL-terminated string of the image at *off, n bytes long. */
static const char *image_string(const char *image, size_t len, size_t *off, uint64_t n)
{
	const char *p = n < len ? image_take(image, len, off, n + 1, 1) : NULL;

	return p && p[n] == '\0' ? p : NULL;
}

/* Checks every index of a loaded image, makes the sections' pointers and
 * the regexes.  0, or -1 (a word of why in *why). */
static int image_fix(struct maintainers *m, const struct sec *secs, const char **why)
{
	size_t i, j;

	for (i = 0; i < m->nr_tv; i++) {
		const struct tv *t = &m->tv[i];

		/* in bounds; that it ends in a NUL is not looked at (it would
		 * touch every page of the text): the text's own final NUL
		 * stops any reading */
		if (t->off >= m->text_len || t->len > m->text_len - t->off ||
		    (t->type && (t->type < 'A' || t->type > 'Z')))
			return *why = "a line", -1;
	}
	m->secs = xcalloc(m->nr_secs ? m->nr_secs : 1, sizeof(*m->secs));
	for (i = 0; i < m->nr_secs; i++) {
		struct sec *c = &m->secs[i];
		uintptr_t name = (uintptr_t)secs[i].pub.name, status = (uintptr_t)secs[i].pub.status;

		*c = secs[i];
		c->own_name = NULL;
		c->pub.name = c->pub.status = "";
		if (c->first >= c->end || c->end > m->nr_tv || (c->named && !c->first) ||
		    c->nr_x > m->nr_xs || c->x_first > m->nr_xs - c->nr_x ||
		    (name != IMAGE_NONE && name >= m->text_len) ||
		    (status != IMAGE_NONE && status >= m->text_len))
			return *why = "a section", -1;
		if (name == IMAGE_NONE)
			c->own_name = tv_text(m, &m->tv[c->first]);
		c->pub.name = name == IMAGE_NONE ? c->own_name : m->text + name;
		c->pub.status = status == IMAGE_NONE ? "" : m->text + status;
	}
	for (i = 0; i < m->nr_toks; i++) {
		const struct gtok *t = &m->toks[i];

		if (t->kind != 'l' && t->kind != '?' && t->kind != '*' &&
		    (t->kind != '[' || t->cls >= m->nr_classes))
			return *why = "a glob", -1;
	}
	for (i = 0; i < m->nr_xs; i++)
		if (m->xs[i] >= m->nr_fpats)
			return *why = "an X: line", -1;
	for (i = 0; i < m->nr_fpats; i++) {
		const struct fpat *f = &m->fpats[i];

		if (f->tv >= m->nr_tv || f->sec >= m->nr_secs || f->len != m->tv[f->tv].len ||
		    f->kind > F_BROKEN || f->key > f->len || f->next < -1 ||
		    f->next >= (int64_t)m->nr_fpats ||
		    (f->kind == F_GLOB && (f->tok > m->nr_toks || f->nr_tok > m->nr_toks - f->tok)))
			return *why = "a pattern", -1;
		if (f->kind == F_REGEX) {
			struct buf re = BUF_INIT;

			if (!m->fres)
				m->fres = xcalloc(m->nr_fpats, sizeof(*m->fres));
			buf_addc(&re, '^');
			convert_glob(&re, fpat_value(m, f), f->len);
			/* it parsed when the image was made; if not, it never matches */
			(void)perlre_new(re.data, re.len, 0, &m->fres[i], NULL);
			buf_release(&re);
		}
	}
	if (!m->nr_buckets || (m->nr_buckets & (m->nr_buckets - 1)))
		return *why = "the index", -1;
	for (i = 0; i < m->nr_buckets; i++) {
		const struct bucket *b = &m->buckets[i];

		if (b->used && (b->off > m->text_len || b->len > m->text_len - b->off ||
				b->head < -1 || b->head >= (int64_t)m->nr_fpats))
			return *why = "the index", -1;
	}
	/* the N: and K: regexes, made again as build_sections() makes them
	 * (their notes are the image's already) */
	for (i = 0; i < m->nr_secs; i++)
		for (j = m->secs[i].first; j < m->secs[i].end; j++)
			if (m->tv[j].type == 'N' || m->tv[j].type == 'K')
				add_rpat(m, j, i);
	return 0;
}

int maintainers_load(const char *key, const void *image, size_t len, struct maintainers **out,
		     struct buf *err)
{
	const char *img = image, *notes = NULL;
	const struct sec *secs = NULL;
	struct image_head h;
	struct maintainers *m;
	const char *why = "its size";
	size_t off = align8(sizeof(h));

	*out = NULL;
	if (len < sizeof(h))
		return err_set(err, "not a MAINTAINERS image: too short");
	memcpy(&h, image, sizeof(h));
	if (memcmp(h.magic, IMAGE_MAGIC, sizeof(IMAGE_MAGIC) - 1) || h.layout != image_layout())
		return err_set(err, "not a MAINTAINERS image of this perfbot");
	if (strnlen(h.key, sizeof(h.key)) == sizeof(h.key) || strcmp(h.key, key))
		return err_set(err, "a MAINTAINERS image of another file");
	m = xcalloc(1, sizeof(*m));
	m->image = image;
	buf_init(&m->notes);
	if (h.size != len || h.text_len > UINT32_MAX ||
	    !(m->text = (char *)image_string(img, len, &off, h.text_len)) ||
	    !(m->name = (char *)image_string(img, len, &off, h.name_len)) ||
	    !(notes = image_string(img, len, &off, h.notes_len)) ||
	    !(m->tv = (struct tv *)image_take(img, len, &off, h.nr_tv, sizeof(*m->tv))) ||
	    !(secs = image_take(img, len, &off, h.nr_secs, sizeof(*secs))) ||
	    !(m->fpats = (struct fpat *)image_take(img, len, &off, h.nr_fpats, sizeof(*m->fpats))) ||
	    !(m->toks = (struct gtok *)image_take(img, len, &off, h.nr_toks, sizeof(*m->toks))) ||
	    !(m->classes = (struct gclass *)image_take(img, len, &off, h.nr_classes, sizeof(*m->classes))) ||
	    !(m->xs = (uint32_t *)image_take(img, len, &off, h.nr_xs, sizeof(*m->xs))) ||
	    !(m->buckets = (struct bucket *)image_take(img, len, &off, h.nr_buckets, sizeof(*m->buckets))) ||
	    off != len)
		goto bad;
	m->text_len = (size_t)h.text_len;
	m->nr_tv = (size_t)h.nr_tv;
	m->nr_secs = (size_t)h.nr_secs;
	m->nr_fpats = (size_t)h.nr_fpats;
	m->nr_toks = (size_t)h.nr_toks;
	m->nr_classes = (size_t)h.nr_classes;
	m->nr_xs = (size_t)h.nr_xs;
	m->nr_buckets = (size_t)h.nr_buckets;
	if (image_fix(m, secs, &why) < 0)
		goto bad;
	buf_reset(&m->notes);
	buf_add(&m->notes, notes, (size_t)h.notes_len);
	*out = m;
	return 0;
bad:
	maintainers_free(m);
	return err_set(err, "a damaged MAINTAINERS image (%s)", why);
}

const char *maintainers_notes(const struct maintainers *m)
{
	return m->notes.data;
}

size_t maintainers_nr_sections(const struct maintainers *m)
{
	return m->nr_secs;
}

const struct maintainers_section *maintainers_section(const struct maintainers *m, size_t i)
{
	return &m->secs[i].pub;
}

/* ---- matching paths ---- */

/* get_maintainer.pl's file_match_pattern(). */
static int fpat_match(struct maintainers *m, const struct fpat *f, const char *file, int file_slashes)
{
	struct buf err = BUF_INIT;
	size_t i = (size_t)(f - m->fpats);
	int r;

	if (!f->dir && f->slashes != file_slashes)
		return 0;
	switch (f->kind) {
	case F_PLAIN:
		return !strncmp(file, fpat_value(m, f), f->len);
	case F_GLOB:
		return glob_prefix(m, m->toks + f->tok, f->nr_tok, file);
	case F_REGEX:
		if (!m->fres[i])
			return 0;	/* glibc refused it earlier */
		r = perlre_match(m->fres[i], file, &err);
		if (r < 0) {
			note(m, m->tv[f->tv].line, "%s: %s: never matches", fpat_value(m, f), err.data);
			perlre_free(m->fres[i]);
			m->fres[i] = NULL;
			r = 0;
		}
		buf_release(&err);
		return r;
	default:
		return 0;
	}
}

static int lower_contains(const char *lower, const struct perlre *re)
{
	size_t i, n = perlre_nr_literals(re);

	if (!n)
		return 1;
	for (i = 0; i < n; i++)
		if (strstr(lower, perlre_literal(re, i)))
			return 1;
	return 0;
}

/* Runs an N:/K: regex; one that glibc refuses is noted and dropped. */
static int rpat_run(struct maintainers *m, struct rpat *r, struct perlre **re, const char *s)
{
	struct buf err = BUF_INIT;
	int k = perlre_match(*re, s, &err);

	if (k < 0) {
		note(m, m->tv[r->tv].line, "%s: %s: never matches", tv_value(m, &m->tv[r->tv]), err.data);
		perlre_free(r->head);
		perlre_free(r->diff);
		r->head = r->diff = NULL;
		k = 0;
	}
	buf_release(&err);
	return k;
}

/* A section a path selects, and the line that decides its depth. */
struct cand {
	size_t sec;
	size_t tv;
	int depth;
	char tag;
};

static int cand_by_sec_tv(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->tv < y->tv ? -1 : x->tv > y->tv;
}

static int cand_by_depth(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->sec < y->sec ? -1 : x->sec > y->sec;
}

struct state {
	struct maintainers *m;
	unsigned flags;
	struct maintainers_selection *sel;
	unsigned char *selected;	/* per section */
	size_t alloc_hits;
	/* get_maintainer.pl's @email_to and @list_to */
	struct person *people;
	size_t nr_people, alloc_people;
	struct person *lists;
	size_t nr_lists, alloc_lists;
};

/* The sections one path selects, most specific first, into *out. */
static size_t path_sections(struct maintainers *m, const char *file, struct cand **out, size_t *alloc)
{
	size_t n = 0, i, len = strlen(file), k;
	int slashes = count_slashes(file, len);
	uint32_t h = HASH_START;
	struct buf lower = BUF_INIT;
	struct cand *c = *out;

	for (k = 0; k <= len; k++) {
		struct bucket *b;
		long p;

		if (k)
			h = hash_step(h, (unsigned char)file[k - 1]);
		if (k && file[k - 1] != '/')
			continue;
		b = bucket_find(m, file, k, h);
		if (!b->used)
			continue;
		for (p = b->head; p >= 0; p = m->fpats[p].next) {
			struct fpat *f = &m->fpats[p];

			if (fpat_match(m, f, file, slashes)) {
				ALLOC_GROW(c, n + 1, *alloc);
				c[n].sec = f->sec;
				c[n].tv = f->tv;
				c[n].depth = f->depth;
				c[n].tag = 'F';
				n++;
			}
		}
	}
	for (k = 0; k < len; k++)
		buf_addc(&lower, (char)tolower((unsigned char)file[k]));
	for (i = 0; i < m->nr_npats; i++) {
		struct rpat *r = &m->npats[i];

		if (!r->head || !lower_contains(lower.data, r->head))
			continue;
		if (rpat_run(m, r, &r->head, file)) {
			ALLOC_GROW(c, n + 1, *alloc);
			c[n].sec = r->sec;
			c[n].tv = r->tv;
			c[n].depth = 0;
			c[n].tag = 'N';
			n++;
		}
	}
	buf_release(&lower);
	/* per section, the last matching line decides (get_maintainer.pl
	 * overwrites $hash{$tvi} line by line); X: drops the section */
	xqsort(c, n, sizeof(*c), cand_by_sec_tv);
	for (i = k = 0; i < n; i++) {
		const struct sec *s = &m->secs[c[i].sec];
		size_t x;
		int excluded = 0;

		if (i + 1 < n && c[i + 1].sec == c[i].sec)
			continue;
		for (x = 0; x < s->nr_x && !excluded; x++)
			excluded = fpat_match(m, &m->fpats[m->xs[s->x_first + x]], file, slashes);
		if (!excluded)
			c[k++] = c[i];
	}
	xqsort(c, k, sizeof(*c), cand_by_depth);
	*out = c;
	return k;
}

/* ---- addresses, as get_maintainer.pl's parse_email() ---- */

struct person {
	enum maintainers_kind kind;
	char *name_q;		/* the name as format_email() writes it (quoted when needed) */
	char *name;		/* unquoted */
	char *addr;
	int moderated;
	const struct maintainers_section *section;
	int dropped;
};

static void trim(const char **b, const char **e)
{
	while (*b < *e && is_space((unsigned char)**b))
		(*b)++;
	while (*e > *b && is_space((unsigned char)(*e)[-1]))
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
	for (p = s; *p && is_space((unsigned char)*p); p++)
		;
	if (*p == '<') {
		for (q = end; q-- > p + 2;) {
			const char *r, *gt = NULL;

			if (*q != '@')
				continue;
			for (r = q + 1; *r && !is_space((unsigned char)*r); r++)
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
			for (p = q + 1; *p && !is_space((unsigned char)*p); p++)
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
static void person_parse(struct person *p, const char *text)
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

static void person_release(struct person *p)
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
			for (j++; is_space((unsigned char)s[j]); j++)
				;
		}
	}
	if (s[j] != ';')
		return -1;
	for (j++; is_space((unsigned char)s[j]); j++)
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
static size_t rfc_split(const char *value, char ***items)
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

/* ---- collecting, as add_categories() and push_email_address() ---- */

static int name_or_addr_used(const struct state *st, const struct person *p)
{
	size_t i;

	for (i = 0; i < st->nr_people; i++) {
		const struct person *q = &st->people[i];

		if (*p->name_q && !strcasecmp(q->name_q, p->name_q))
			return 1;
		if (!strcasecmp(q->addr, p->addr))
			return 1;
	}
	return 0;
}

static void push_person(struct state *st, const char *value, enum maintainers_kind kind,
			const struct maintainers_section *section)
{
	char **items;
	size_t n = rfc_split(value, &items), i;

	for (i = 0; i < n; i++) {
		struct person p;

		memset(&p, 0, sizeof(p));
		person_parse(&p, items[i]);
		p.kind = kind;
		p.section = section;
		if (!*p.addr || name_or_addr_used(st, &p)) {
			person_release(&p);
		} else {
			ALLOC_GROW(st->people, st->nr_people + 1, st->alloc_people);
			st->people[st->nr_people++] = p;
		}
		free(items[i]);
	}
	free(items);
}

/* The raw list addresses seen (hash_list_to), kept with the lists. */
static void push_list(struct state *st, const char *value, const struct maintainers_section *section)
{
	const char *e = value, *rest;
	struct person p;
	size_t i;

	while (*e && !is_space((unsigned char)*e))
		e++;
	rest = e;
	while (*rest && is_space((unsigned char)*rest))
		rest++;
	if (!*rest)
		rest = "";
	if (strstr(rest, "subscribers-only"))
		return;
	memset(&p, 0, sizeof(p));
	p.kind = MAINTAINERS_LIST;
	p.section = section;
	p.moderated = strstr(rest, "moderated") != NULL;
	/* name_q holds the address as written, for hash_list_to */
	p.name_q = xstrndup(value, (size_t)(e - value));
	for (i = 0; i < st->nr_lists; i++) {
		if (!strcasecmp(st->lists[i].name_q, p.name_q)) {
			free(p.name_q);
			return;
		}
	}
	ALLOC_GROW(st->lists, st->nr_lists + 1, st->alloc_lists);
	st->lists[st->nr_lists++] = p;
}

static void add_hit(struct state *st, size_t sec, char tag, size_t tv, const char *file)
{
	struct maintainers_selection *sel = st->sel;
	struct maintainers_hit *h;

	ALLOC_GROW(sel->hits, sel->nr_hits + 1, st->alloc_hits);
	h = &sel->hits[sel->nr_hits++];
	h->section = &st->m->secs[sec].pub;
	h->tag = tag;
	h->pattern = tv_value(st->m, &st->m->tv[tv]);
	h->line = st->m->tv[tv].line;
	h->file = file;
}

static void add_categories(struct state *st, size_t sec, char tag, size_t tv, const char *file)
{
	const struct sec *s = &st->m->secs[sec];
	size_t i;

	if (st->selected[sec])
		return;	/* again: nothing new, every list and person is taken */
	st->selected[sec] = 1;
	add_hit(st, sec, tag, tv, file);
	for (i = s->first + !s->named; i < s->end; i++) {
		const struct tv *t = &st->m->tv[i];

		if (t->type == 'L')
			push_list(st, tv_value(st->m, t), &s->pub);
		else if (t->type == 'M' && (st->flags & MAINTAINERS_MAINTAINERS))
			push_person(st, tv_value(st->m, t), MAINTAINERS_MAINTAINER, &s->pub);
		else if (t->type == 'R' && (st->flags & MAINTAINERS_REVIEWERS))
			push_person(st, tv_value(st->m, t), MAINTAINERS_REVIEWER, &s->pub);
	}
}

/* ---- the patch text ---- */

struct line {
	size_t start, len;
	signed char mode;	/* 0 before the first file line, 1 after, -1 not searched */
};

static void add_file(char ***files, size_t *n, size_t *alloc, const char *s, size_t len)
{
	ALLOC_GROW(*files, *n + 1, *alloc);
	(*files)[(*n)++] = xstrndup(s, len);
}

/* A token of non-space characters at s; its length. */
static size_t token(const char *s, const char *e)
{
	const char *p = s;

	while (p < e && !is_space((unsigned char)*p))
		p++;
	return (size_t)(p - s);
}

static int only_space(const char *s, const char *e)
{
	while (s < e && is_space((unsigned char)*s))
		s++;
	return s == e;
}

static int starts(const char *s, const char *e, const char *with)
{
	size_t n = strlen(with);

	return (size_t)(e - s) >= n && !memcmp(s, with, n);
}

/*
 * One line of the patch as get_maintainer.pl's loop reads it: the paths
 * it names (added to files), and whether its keywords are searched.
 * Returns 1 for a "---"/"+++" file line (the diff starts after it).
 */
static int read_patch_line(const char *s, const char *e, char ***files, size_t *n, size_t *alloc,
			   int *searched)
{
	const char *p;
	size_t t;

	*searched = 0;
	if (starts(s, e, " mode change ")) {
		/* ^ mode change [0-7]+ => [0-7]+ (\S+)\s*$ */
		p = s + 13;
		if (p < e && *p >= '0' && *p <= '7') {
			while (p < e && *p >= '0' && *p <= '7')
				p++;
			if (starts(p, e, " => ") && p + 4 < e && p[4] >= '0' && p[4] <= '7') {
				for (p += 4; p < e && *p >= '0' && *p <= '7'; p++)
					;
				if (p < e && *p == ' ' && (t = token(p + 1, e)) > 0 &&
				    only_space(p + 1 + t, e)) {
					add_file(files, n, alloc, p + 1, t);
					return 0;
				}
			}
		}
	}
	if (starts(s, e, "rename from ") || starts(s, e, "rename to ")) {
		p = s + (s[7] == 'f' ? 12 : 10);
		if ((t = token(p, e)) > 0 && only_space(p + t, e)) {
			add_file(files, n, alloc, p, t);
			return 0;
		}
	}
	if (starts(s, e, "diff --git a/")) {
		size_t t2;

		p = s + 13;
		t = token(p, e);
		if (t && starts(p + t, e, " b/") && (t2 = token(p + t + 3, e)) > 0 &&
		    only_space(p + t + 3 + t2, e)) {
			add_file(files, n, alloc, p, t);
			add_file(files, n, alloc, p + t + 3, t2);
			return 0;
		}
	}
	if (starts(s, e, "Fixes:")) {
		/* ^Fixes:\s+([0-9a-fA-F]{6,40}) */
		for (p = s + 6; p < e && is_space((unsigned char)*p); p++)
			;
		if (p > s + 6) {
			const char *h = p;

			while (p < e && isxdigit((unsigned char)*p))
				p++;
			if (p - h >= 6)
				return 0;
		}
	}
	if (starts(s, e, "+++") || starts(s, e, "---")) {
		/* ^\+\+\+\s+(\S+) or ^---\s+(\S+), the first directory dropped */
		for (p = s + 3; p < e && is_space((unsigned char)*p); p++)
			;
		if (p > s + 3 && (t = token(p, e)) > 0) {
			const char *slash = memchr(p, '/', t);

			if (slash)
				add_file(files, n, alloc, slash + 1, t - (size_t)(slash + 1 - p));
			else
				add_file(files, n, alloc, p, t);
			return 1;
		}
	}
	if (starts(s, e, "@@ -")) {
		/* ^\@\@ -(\d+),(\d+) */
		for (p = s + 4; p < e && isdigit((unsigned char)*p); p++)
			;
		if (p > s + 4 && p < e && *p == ',' && p + 1 < e && isdigit((unsigned char)p[1]))
			return 0;
	}
	*searched = 1;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int kpat_order(const void *a, const void *b)
{
	const struct rpat *x = *(const struct rpat *const *)a, *y = *(const struct rpat *const *)b;

	return strcmp(x->order, y->order);
}

struct text {
	const char *patch;
	char *lower;
	size_t len;
	struct line *lines;
	size_t nr_lines;
	struct buf scratch;
};

static size_t line_at(const struct text *t, size_t off)
{
	size_t lo = 0, hi = t->nr_lines;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->lines[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int line_matches(struct maintainers *m, struct rpat *r, struct text *t, size_t i)
{
	const struct line *l = &t->lines[i];
	struct perlre **re = l->mode ? &r->diff : &r->head;

	if (!*re)
		return 0;
	buf_reset(&t->scratch);
	buf_add(&t->scratch, t->patch + l->start, l->len);
	return rpat_run(m, r, re, t->scratch.data);
}

/* Does any searched line of mode `mode` match, with re's literals as a
 * first filter over the lowercased text? */
static int text_search(struct maintainers *m, struct rpat *r, struct text *t, int mode)
{
	struct perlre *re = mode ? r->diff : r->head;
	size_t i, k, n;

	if (!re)
		return 0;
	n = perlre_nr_literals(re);
	if (!n) {
		for (i = 0; i < t->nr_lines; i++)
			if (t->lines[i].mode == mode && line_matches(m, r, t, i))
				return 1;
		return 0;
	}
	for (k = 0; k < n; k++) {
		const char *lit = perlre_literal(re, k);
		size_t ll = strlen(lit), off = 0;

		while (off + ll <= t->len) {
			const char *hit = memmem(t->lower + off, t->len - off, lit, ll);

			if (!hit)
				break;
			i = line_at(t, (size_t)(hit - t->lower));
			if (t->lines[i].mode == mode && line_matches(m, r, t, i))
				return 1;
			if (mode ? !r->diff : !r->head)
				return 0;	/* refused by glibc: re is gone */
			off = t->lines[i].start + t->lines[i].len + 1;
		}
	}
	return 0;
}

static void read_patch(struct text *t, const char *patch, size_t len, char ***files, size_t *n,
		       size_t *alloc)
{
	size_t off = 0, alloc_lines = 0, i;
	int mode = 0;

	t->patch = patch;
	t->len = len;
	t->lower = xmalloc(len + 1);
	for (i = 0; i < len; i++)
		t->lower[i] = (char)tolower((unsigned char)patch[i]);
	t->lower[len] = '\0';
	while (off < len) {
		const char *s = patch + off, *nl = memchr(s, '\n', len - off), *e = nl ? nl : patch + len;
		int searched, file_line;

		file_line = read_patch_line(s, e, files, n, alloc, &searched);
		ALLOC_GROW(t->lines, t->nr_lines + 1, alloc_lines);
		t->lines[t->nr_lines].start = off;
		t->lines[t->nr_lines].len = (size_t)(e - s);
		t->lines[t->nr_lines].mode = (signed char)(searched ? mode : -1);
		t->nr_lines++;
		if (file_line)
			mode = 1;
		off = (size_t)(e - patch) + 1;
	}
}

/* ---- the answer ---- */

/* deduplicate_email()'s maps, as the list of first entries: the one
 * with p's name, else the one with its address. */
static const struct person *seen_by(const struct person *all, size_t n, const struct person *p)
{
	size_t i;

	if (*p->name_q)
		for (i = 0; i < n; i++)
			if (*all[i].name_q && !strcasecmp(all[i].name_q, p->name_q))
				return &all[i];
	for (i = 0; i < n; i++)
		if (!strcasecmp(all[i].addr, p->addr))
			return &all[i];
	return NULL;
}

/* Does s contain the chief penguin's "Name <address>", '.' matching any
 * character (get_maintainer.pl uses it as a regex)? */
static int is_chief(const char *s)
{
	static const char chief[] = "Linus Torvalds <torvalds@linux-foundation.org>";
	size_t n = strlen(s), k = sizeof(chief) - 1, i, j;

	for (i = 0; i + k <= n; i++) {
		for (j = 0; j < k && (chief[j] == '.' || chief[j] == s[i + j]); j++)
			;
		if (j == k)
			return 1;
	}
	return 0;
}

static char *formatted(const char *name_q, const char *addr)
{
	struct buf b = BUF_INIT;

	if (*name_q)
		buf_addf(&b, "%s <%s>", name_q, addr);
	else
		buf_adds(&b, addr);
	return buf_detach(&b, NULL);
}

static void finish(struct state *st)
{
	struct maintainers_selection *sel = st->sel;
	size_t nr = st->nr_people + st->nr_lists, i, k, nr_out = 0;
	struct person *all = xcalloc(nr ? nr : 1, sizeof(*all));
	struct person *first = xcalloc(nr ? nr : 1, sizeof(*first));
	char **out_forms = xcalloc(nr ? nr : 1, sizeof(*out_forms));
	size_t nr_first = 0;

	/* lists: their address as parse_email() reads it */
	for (i = 0; i < st->nr_lists; i++) {
		struct person *l = &st->lists[i], p;

		memset(&p, 0, sizeof(p));
		person_parse(&p, l->name_q);
		free(l->name_q);
		l->name_q = p.name_q;
		l->name = p.name;
		l->addr = p.addr;
	}
	for (i = 0; i < nr; i++)
		all[i] = i < st->nr_people ? st->people[i] : st->lists[i - st->nr_people];
	/* deduplicate_email(): each entry becomes the first one seen with its
	 * name, else with its address */
	for (i = 0; i < nr; i++) {
		const struct person *f;

		if (!*all[i].addr && !*all[i].name_q) {
			all[i].dropped = 1;	/* a list that is no address */
			continue;
		}
		f = seen_by(first, nr_first, &all[i]);
		if (f) {
			all[i].name_q = f->name_q;
			all[i].name = f->name;
			all[i].addr = f->addr;
		} else {
			first[nr_first++] = all[i];
		}
	}
	/* the chief penguin, and THE REST's people, never */
	for (i = 0; i < st->nr_people; i++) {
		char *form = formatted(all[i].name_q, all[i].addr);

		if (is_chief(form) || all[i].section->is_rest)
			all[i].dropped = 1;
		free(form);
	}
	/* merge_email(): each printed form once */
	sel->entries = xcalloc(nr ? nr : 1, sizeof(*sel->entries));
	for (i = 0; i < nr; i++) {
		char *form;

		if (all[i].dropped || !*all[i].addr)
			continue;
		form = formatted(all[i].name_q, all[i].addr);
		for (k = 0; k < nr_out && strcmp(out_forms[k], form); k++)
			;
		if (k < nr_out) {
			free(form);
			continue;
		}
		out_forms[nr_out++] = form;
		if (all[i].kind == MAINTAINERS_LIST && !(st->flags & MAINTAINERS_LISTS))
			continue;
		sel->entries[sel->nr_entries].kind = all[i].kind;
		sel->entries[sel->nr_entries].name = xstrdup(all[i].name);
		sel->entries[sel->nr_entries].address = xstrdup(all[i].addr);
		sel->entries[sel->nr_entries].moderated = all[i].moderated;
		sel->entries[sel->nr_entries].section = all[i].section;
		sel->nr_entries++;
	}
	for (k = 0; k < nr_out; k++)
		free(out_forms[k]);
	free(out_forms);
	/* the strings belong to st->people and st->lists */
	for (i = 0; i < st->nr_people; i++)
		person_release(&st->people[i]);
	for (i = 0; i < st->nr_lists; i++)
		person_release(&st->lists[i]);
	free(all);
	free(first);
}

int maintainers_match(struct maintainers *m, const char *const *files, size_t nr_files,
		      const char *patch, size_t patch_len, unsigned flags,
		      struct maintainers_selection *out, struct buf *err)
{
	struct state st;
	struct text t;
	char **all = NULL;
	size_t n = 0, alloc = 0, i, k, alloc_c = 0, nk = 0;
	struct cand *c = NULL;
	struct rpat **ks = NULL;

	memset(out, 0, sizeof(*out));
	memset(&t, 0, sizeof(t));
	buf_init(&t.scratch);
	if (nr_files > MAINTAINERS_MAX_FILES)
		return err_set(err, "more than %d changed paths", MAINTAINERS_MAX_FILES);
	if (patch_len > MAINTAINERS_MAX_PATCH)
		return err_set(err, "patch text larger than %u bytes", MAINTAINERS_MAX_PATCH);
	for (i = 0; i < nr_files; i++)
		add_file(&all, &n, &alloc, files[i], strlen(files[i]));
	if (patch)
		read_patch(&t, patch, patch_len, &all, &n, &alloc);
	if (n > MAINTAINERS_MAX_FILES) {
		err_set(err, "more than %d changed paths", MAINTAINERS_MAX_FILES);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		if (strlen(all[i]) > MAINTAINERS_MAX_PATH) {
			err_set(err, "path longer than %d bytes: %.40s...", MAINTAINERS_MAX_PATH, all[i]);
			goto fail;
		}
	}
	/* sort_and_uniq() */
	if (n)
		xqsort(all, n, sizeof(*all), str_cmp);
	for (i = k = 0; i < n; i++) {
		if (k && !strcmp(all[k - 1], all[i]))
			free(all[i]);
		else
			all[k++] = all[i];
	}
	out->files = all;
	out->nr_files = k;

	memset(&st, 0, sizeof(st));
	st.m = m;
	st.flags = flags;
	st.sel = out;
	st.selected = xcalloc(m->nr_secs ? m->nr_secs : 1, 1);
	for (i = 0; i < out->nr_files; i++) {
		size_t nc = path_sections(m, out->files[i], &c, &alloc_c), j;

		for (j = 0; j < nc; j++)
			add_categories(&st, c[j].sec, c[j].tag, c[j].tv, out->files[i]);
	}
	if (patch) {
		ks = xcalloc(m->nr_kpats ? m->nr_kpats : 1, sizeof(*ks));
		for (i = 0; i < m->nr_kpats; i++) {
			struct rpat *r = &m->kpats[i];

			if (text_search(m, r, &t, 0) || text_search(m, r, &t, 1))
				ks[nk++] = r;
		}
		xqsort(ks, nk, sizeof(*ks), kpat_order);
		for (i = 0; i < nk; i++)
			add_categories(&st, ks[i]->sec, 'K', ks[i]->tv, NULL);
	}
	finish(&st);
	free(st.people);
	free(st.lists);
	free(st.selected);
	free(ks);
	free(c);
	free(t.lower);
	free(t.lines);
	buf_release(&t.scratch);
	return 0;
fail:
	for (i = 0; i < n; i++)
		free(all[i]);
	free(all);
	free(t.lower);
	free(t.lines);
	buf_release(&t.scratch);
	return -1;
}

void maintainers_selection_release(struct maintainers_selection *sel)
{
	size_t i;

	for (i = 0; i < sel->nr_entries; i++) {
		free(sel->entries[i].name);
		free(sel->entries[i].address);
	}
	free(sel->entries);
	for (i = 0; i < sel->nr_files; i++)
		free(sel->files[i]);
	free(sel->files);
	free(sel->hits);
	memset(sel, 0, sizeof(*sel));
}
