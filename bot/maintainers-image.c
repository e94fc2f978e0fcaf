/*
 * maintainers-image.c: the parsed MAINTAINERS as one image, written once
 * under perfbot.state and used where it is mapped by later runs
 * (maintainers_image(), maintainers_load()).
 */
#include <string.h>

#include "maintainers-data.h"
#include "xalloc.h"
#include "banned.h"

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
#define IMAGE_VERSION 3
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
			c->own_name = mnt_tv_text(m, &m->tv[c->first]);
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
			mnt_convert_glob(&re, mnt_fpat_value(m, f), f->len);
			/* it compiled when the image was made (else it is
			 * F_BROKEN): compiled on first use */
			(void)perlre_new(re.data, re.len, PERLRE_CHECKED, &m->fres[i], NULL);
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
	/* the N: and K: regexes, made again as mnt_build_sections() makes them,
	 * compiled on first use (their notes are the image's already) */
	for (i = 0; i < m->nr_secs; i++)
		for (j = m->secs[i].first; j < m->secs[i].end; j++)
			if (m->tv[j].type == 'N' || m->tv[j].type == 'K')
				mnt_add_rpat(m, j, i, 1);
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

