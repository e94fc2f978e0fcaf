#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "value.h"
#include "xalloc.h"
#include "banned.h"

#define VALUE_POOL_BLOCK (64 * 1024)

/* The pool this thread's values come from, or NULL. */
static _Thread_local struct value_pool *pool_in_use;

void value_pool_use(struct value_pool *p)
{
	pool_in_use = p;
}

/* n bytes of p, aligned for any member of struct value. */
static void *pool_alloc(struct value_pool *p, size_t n)
{
	void *r;

	n = (n + 7) & ~(size_t)7;
	if ((size_t)(p->end - p->next) < n) {
		if (n > VALUE_POOL_BLOCK / 4) {
			ALLOC_GROW(p->big, p->nr_big + 1, p->alloc_big);
			return p->big[p->nr_big++] = xmalloc(n);
		}
		if (p->next)
			p->cur++;
		if (p->cur == p->nr) {
			ALLOC_GROW(p->blocks, p->nr + 1, p->alloc);
			p->blocks[p->nr++] = xmalloc(VALUE_POOL_BLOCK);
		}
		p->next = p->blocks[p->cur];
		p->end = p->next + VALUE_POOL_BLOCK;
	}
	r = p->next;
	p->next += n;
	return r;
}

void value_pool_reset(struct value_pool *p)
{
	size_t i;

	for (i = 0; i < p->nr_big; i++)
		free(p->big[i]);
	p->nr_big = 0;
	p->cur = 0;
	p->next = p->end = NULL;
}

void value_pool_release(struct value_pool *p)
{
	size_t i;

	value_pool_reset(p);
	for (i = 0; i < p->nr; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->big);
	memset(p, 0, sizeof(*p));
}

/* The pool a pooled tree is changed in: its own, in use by this thread
 * (changing one elsewhere is a bug no caller can handle). */
static struct value_pool *pool_of_tree(void)
{
	if (!pool_in_use)
		abort();
	return pool_in_use;
}

/* A node with extra bytes after it (a copied string's), zeroed but those. */
static struct value *node_alloc(enum value_kind kind, size_t extra)
{
	struct value *v;

	if (pool_in_use) {
		v = pool_alloc(pool_in_use, sizeof(*v) + extra);
		memset(v, 0, sizeof(*v));
		v->pooled = 1;
	} else if (extra) {
		v = xmalloc(sizeof(*v) + extra);
		memset(v, 0, sizeof(*v));
	} else {
		v = xcalloc(1, sizeof(*v));
	}
	v->kind = kind;
	return v;
}

static struct value *value_alloc(enum value_kind kind)
{
	return node_alloc(kind, 0);
}

struct value *value_new_null(void)
{
	return value_alloc(VALUE_NULL);
}

struct value *value_new_bool(int b)
{
	struct value *v = value_alloc(VALUE_BOOL);

	v->boolean = !!b;
	return v;
}

struct value *value_new_number(double d)
{
	struct value *v = value_alloc(VALUE_NUMBER);

	v->number = d;
	v->is_integer = 0;
	return v;
}

struct value *value_new_integer(int64_t i)
{
	struct value *v = value_alloc(VALUE_NUMBER);

	v->number = (double)i;
	v->is_integer = 1;
	return v;
}

struct value *value_new_string_owned(char *s, size_t len)
{
	struct value *v;

	if (pool_in_use) {
		/* the pool's own copy: value_free() of it frees nothing */
		v = value_new_stringn(s, len);
		free(s);
		return v;
	}
	v = value_alloc(VALUE_STRING);
	v->str = s;
	v->len = len;
	return v;
}

/*
 * A copied string lives in the same block as its node, just after it (one
 * allocation and one free instead of two: a view is hundreds of small
 * strings built and freed for each render); value_free() knows it by
 * that address.
 */
struct value *value_new_stringn(const char *s, size_t len)
{
	struct value *v = node_alloc(VALUE_STRING, len + 1);	/* len: of a string in memory */

	v->str = (char *)(v + 1);
	memcpy(v->str, s, len);
	v->str[len] = '\0';
	v->len = len;
	return v;
}

struct value *value_new_string_ref(const char *s, size_t len)
{
	struct value *v = value_alloc(VALUE_STRING);

	v->str = (char *)(uintptr_t)s;	/* read only: borrowed says so */
	v->len = len;
	v->borrowed = 1;
	return v;
}

struct value *value_new_string(const char *s)
{
	return value_new_stringn(s, strlen(s));
}

struct value *value_new_array(void)
{
	return value_alloc(VALUE_ARRAY);
}

struct value *value_new_object(void)
{
	return value_alloc(VALUE_OBJECT);
}

/*
 * An object's keys live in blocks it owns (KEY_BLOCK bytes, or one long
 * key's), not an allocation each: a page's view is thousands of fields
 * made and freed for one render, and their keys were a third of its
 * allocations.
 */
#define KEY_BLOCK 512

struct keyblock {
	struct keyblock *next;
	size_t used, size;
	char bytes[];
};

void value_free(struct value *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nr; i++)
		value_free(v->items[i]);
	if (v->pooled)
		return;		/* value_pool_reset() takes it back */
	free(v->items);
	free(v->keys);
	while (v->keymem) {
		struct keyblock *b = v->keymem;

		v->keymem = b->next;
		free(b);
	}
	if (v->str != (char *)(v + 1) && !v->borrowed)
		free(v->str);
	free(v);
}

/* Room for one more member (and its key, in an object). */
static void members_grow(struct value *c)
{
	size_t alloc = c->alloc;
	struct value_pool *p;
	struct value **items;
	char **keys;

	if (c->nr < c->alloc && (c->kind != VALUE_OBJECT || c->keys))
		return;
	if (!c->pooled) {
		ALLOC_GROW(c->items, c->nr + 1, c->alloc);
		if (c->kind == VALUE_OBJECT && (c->alloc != alloc || !c->keys))
			c->keys = xrealloc(c->keys, c->alloc * sizeof(*c->keys));
		return;
	}
	/* the pool's arrays are not given back: grown by copying */
	p = pool_of_tree();
	alloc = alloc < 8 ? 8 : alloc * 2;
	items = pool_alloc(p, alloc * sizeof(*items));
	if (c->nr)
		memcpy(items, c->items, c->nr * sizeof(*items));
	c->items = items;
	if (c->kind == VALUE_OBJECT) {
		keys = pool_alloc(p, alloc * sizeof(*keys));
		if (c->nr)
			memcpy(keys, c->keys, c->nr * sizeof(*keys));
		c->keys = keys;
	}
	c->alloc = alloc;
}

struct value *value_array_push(struct value *array, struct value *v)
{
	members_grow(array);
	array->items[array->nr++] = v;
	return v;
}

struct value *value_object_set(struct value *object, const char *key, struct value *v)
{
	size_t i;

	for (i = 0; i < object->nr; i++) {
		if (!strcmp(object->keys[i], key)) {
			value_free(object->items[i]);
			object->items[i] = v;
			return v;
		}
	}
	return value_object_add(object, key, v);
}

static char *key_copy(struct value *object, const char *key)
{
	size_t n = strlen(key) + 1;
	struct keyblock *b = object->keymem;
	char *p;

	if (object->pooled) {
		p = pool_alloc(pool_of_tree(), n);
		memcpy(p, key, n);
		return p;
	}
	if (!b || b->size - b->used < n) {
		size_t size = n > KEY_BLOCK ? n : KEY_BLOCK;

		b = xmalloc(sizeof(*b) + size);
		b->next = object->keymem;
		b->used = 0;
		b->size = size;
		object->keymem = b;
	}
	p = b->bytes + b->used;
	memcpy(p, key, n);
	b->used += n;
	return p;
}

struct value *value_object_add(struct value *object, const char *key, struct value *v)
{
	members_grow(object);
	object->keys[object->nr] = key_copy(object, key);
	object->items[object->nr++] = v;
	return v;
}

struct value *value_object_add_string(struct value *object, const char *key, const char *s)
{
	return value_object_add(object, key, value_new_string(s));
}

struct value *value_object_add_bool(struct value *object, const char *key, int b)
{
	return value_object_add(object, key, value_new_bool(b));
}

struct value *value_object_set_string(struct value *object, const char *key, const char *s)
{
	return value_object_set(object, key, value_new_string(s));
}

struct value *value_object_set_bool(struct value *object, const char *key, int b)
{
	return value_object_set(object, key, value_new_bool(b));
}

const struct value *value_object_getn(const struct value *object, const char *key, size_t keylen)
{
	size_t i;
	char first;

	if (!object || object->kind != VALUE_OBJECT)
		return NULL;
	/* the first byte rules out most keys without a call: every name a
	 * template shows is looked up this way, through several contexts */
	first = keylen ? key[0] : '\0';
	for (i = 0; i < object->nr; i++) {
		const char *k = object->keys[i];

		if (k[0] == first && !strncmp(k, key, keylen) && k[keylen] == '\0')
			return object->items[i];
	}
	return NULL;
}

const struct value *value_object_get(const struct value *object, const char *key)
{
	return value_object_getn(object, key, strlen(key));
}

int value_truthy(const struct value *v)
{
	if (!v)
		return 0;
	switch (v->kind) {
	case VALUE_NULL:
		return 0;
	case VALUE_BOOL:
		return v->boolean;
	case VALUE_ARRAY:
		return v->nr > 0;
	default:
		return 1;
	}
}

void value_format_number(struct buf *out, double d)
{
	char tmp[40];
	int prec;

	if (d == 0) {
		buf_adds(out, "0");
		return;
	}
	if (!isfinite(d)) {
		buf_adds(out, isnan(d) ? "nan" : d < 0 ? "-inf" : "inf");
		return;
	}
	if (fabs(d) < 9007199254740992.0 && d == (double)(long long)d) {
		/* report ids and dates, in every report's JSON */
		buf_add_int(out, (long long)d, 0);
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	buf_adds(out, tmp);
}

void value_format(struct buf *out, const struct value *v)
{
	if (!v)
		return;
	switch (v->kind) {
	case VALUE_NULL:
		break;
	case VALUE_BOOL:
		buf_adds(out, v->boolean ? "true" : "false");
		break;
	case VALUE_NUMBER:
		value_format_number(out, v->number);
		break;
	case VALUE_STRING:
		buf_add(out, v->str, v->len);
		break;
	case VALUE_ARRAY:
	case VALUE_OBJECT:
		value_write_json(out, v, 0);
		break;
	}
}

/* How many of the n bytes at p need no escape in a JSON string (all but
 * '"', '\\', the controls and DEL), from the first. */
static size_t json_plain_run(const unsigned char *p, size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
	/* 16 at a time: a site run writes 10,000 reports' JSON, mostly such
	 * runs, and a byte at a time was a fiftieth of its making */
	const __m128i ctl = _mm_set1_epi8(0x1F), del = _mm_set1_epi8(0x7F);
	const __m128i quot = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		/* unsigned v <= 0x1F: the controls (UTF-8's bytes are plain) */
		__m128i esc = _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v);
		int mask;

		esc = _mm_or_si128(esc, _mm_cmpeq_epi8(v, del));
		esc = _mm_or_si128(esc, _mm_cmpeq_epi8(v, quot));
		esc = _mm_or_si128(esc, _mm_cmpeq_epi8(v, bslash));
		mask = _mm_movemask_epi8(esc);
		if (mask)
			return i + (size_t)__builtin_ctz((unsigned)mask);
	}
#endif
	while (i < n && p[i] >= 0x20 && p[i] != 0x7f && p[i] != '"' && p[i] != '\\')
		i++;
	return i;
}

void value_write_json_string(struct buf *out, const char *s, size_t len)
{
	size_t i, run = 0;

	buf_addc(out, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		/* what needs no escape goes out in one append: a report's
		 * JSON is mostly such runs */
		size_t n = json_plain_run((const unsigned char *)s + i, len - i);
		const char *esc;

		if (n) {
			run += n;
			i += n - 1;
			continue;
		}
		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		default:
			esc = NULL;
		}
		buf_add(out, s + i - run, run);
		run = 0;
		if (esc)
			buf_adds(out, esc);
		else
			buf_addf(out, "\\u%04x", c);
	}
	buf_add(out, s + i - run, run);
	buf_addc(out, '"');
}

static void write_indent(struct buf *out, int indent, int depth)
{
	if (!indent)
		return;
	buf_addc(out, '\n');
	buf_addchars(out, ' ', (size_t)indent * (size_t)depth);
}

static void write_json(struct buf *out, const struct value *v, int indent, int depth)
{
	size_t i;

	switch (v->kind) {
	case VALUE_NULL:
		buf_adds(out, "null");
		return;
	case VALUE_BOOL:
		buf_adds(out, v->boolean ? "true" : "false");
		return;
	case VALUE_NUMBER:
		if (!isfinite(v->number))
			buf_adds(out, "null");
		else
			value_format_number(out, v->number);
		return;
	case VALUE_STRING:
		value_write_json_string(out, v->str, v->len);
		return;
	case VALUE_ARRAY:
	case VALUE_OBJECT:
		buf_addc(out, v->kind == VALUE_ARRAY ? '[' : '{');
		for (i = 0; i < v->nr; i++) {
			if (i)
				buf_addc(out, ',');
			write_indent(out, indent, depth + 1);
			if (v->kind == VALUE_OBJECT) {
				value_write_json_string(out, v->keys[i], strlen(v->keys[i]));
				buf_adds(out, indent ? ": " : ":");
			}
			write_json(out, v->items[i], indent, depth + 1);
		}
		if (v->nr)
			write_indent(out, indent, depth);
		buf_addc(out, v->kind == VALUE_ARRAY ? ']' : '}');
		return;
	}
}

void value_write_json(struct buf *out, const struct value *v, int indent)
{
	write_json(out, v, indent, 0);
}
