#ifndef PERFBOT_VALUE_H
#define PERFBOT_VALUE_H

/*
 * struct value: a JSON-shaped tree, perfbot's one data model between the
 * JSON reader (json.c, the only user of jansson), the validated report
 * (report.c), the template engine (template.c) and the --json writers.
 *
 * Objects keep their keys in insertion order (params order is meaningful)
 * and may not hold a key twice: value_object_set() replaces.  Strings are
 * byte strings with a length; the JSON reader guarantees they are valid
 * UTF-8 without NUL, values built in code must keep to that as well.
 *
 * Ownership: a container owns its members.  value_free() frees a whole
 * tree and accepts NULL.  The value_new_*() constructors cannot fail.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum value_kind {
	VALUE_NULL,
	VALUE_BOOL,
	VALUE_NUMBER,
	VALUE_STRING,
	VALUE_ARRAY,
	VALUE_OBJECT,
};

struct value {
	enum value_kind kind;
	int boolean;		/* VALUE_BOOL: 0 or 1 */
	int is_integer;		/* VALUE_NUMBER: written without a fraction */
	double number;		/* VALUE_NUMBER */
	char *str;		/* VALUE_STRING: NUL-terminated, len bytes */
	size_t len;		/* VALUE_STRING: length of str */
	size_t nr, alloc;	/* VALUE_ARRAY/OBJECT: members */
	struct value **items;	/* VALUE_ARRAY/OBJECT: the members, in order */
	char **keys;		/* VALUE_OBJECT: keys, parallel to items (their
				   bytes in keymem's blocks) */
	void *keymem;		/* VALUE_OBJECT: the blocks its keys live in */
	int line, column;	/* where the JSON reader found it (1-based); 0 if built */
	int pooled;		/* made in a struct value_pool: its memory, and its
				   members' arrays, keys and string, are the pool's */
	int borrowed;		/* VALUE_STRING: str is someone else's (value_new_string_ref()) */
};

/*
 * A pool for a thread that makes and frees many short-lived trees (the
 * site makes a view a page, 10,000 pages a run, and malloc and free were
 * a fifth of its time).  While value_pool_use(p) is in force on a thread,
 * the values it makes are carved from p's blocks; value_free() of them
 * gives nothing back, and value_pool_reset() takes them all back at once,
 * so none may be used after it, nor be a member of a tree that outlives
 * it.  A value made outside the pool may be put into one made in it, and
 * value_free() of the pooled one frees it as before.  A pool belongs to
 * one thread at a time; struct value_pool p = { 0 } is an empty one.  The
 * blocks are kept by value_pool_reset() for the next tree and freed by
 * value_pool_release().
 */
struct value_pool {
	char **blocks;		/* VALUE_POOL_BLOCK bytes each */
	size_t nr, alloc;
	size_t cur;		/* the block being carved */
	char *next, *end;	/* its free bytes */
	void **big;		/* allocations larger than a block's quarter */
	size_t nr_big, alloc_big;
};

/* The calling thread's values come from p from now on (NULL: from malloc). */
void value_pool_use(struct value_pool *p);
void value_pool_reset(struct value_pool *p);
void value_pool_release(struct value_pool *p);

struct value *value_new_null(void);
struct value *value_new_bool(int b);
struct value *value_new_number(double d);
struct value *value_new_integer(int64_t i);
struct value *value_new_string(const char *s);
struct value *value_new_stringn(const char *s, size_t len);
/* Takes a malloc'd NUL-terminated string of len bytes. */
struct value *value_new_string_owned(char *s, size_t len);
/* Refers to s (NUL-terminated, len bytes) without copying it: s must
 * outlive the value and is neither written nor freed through it (the
 * site's lists are 10,000 rows of bytes it already holds). */
struct value *value_new_string_ref(const char *s, size_t len);
struct value *value_new_array(void);
struct value *value_new_object(void);
void value_free(struct value *v);

/* Appends v (taking ownership) and returns it, so calls can nest. */
struct value *value_array_push(struct value *array, struct value *v);
/* Sets key to v (taking ownership; an earlier value of key is freed) and
 * returns v. */
struct value *value_object_set(struct value *object, const char *key, struct value *v);
/* Appends key (taking v) without looking for an earlier one: for code
 * that builds an object from keys it knows are distinct (a view), where
 * value_object_set()'s scan would make building quadratic. */
struct value *value_object_add(struct value *object, const char *key, struct value *v);
/* Short-hands for building views (these add, like value_object_add()). */
struct value *value_object_add_string(struct value *object, const char *key, const char *s);
struct value *value_object_add_bool(struct value *object, const char *key, int b);
/* Short-hands that set. */
struct value *value_object_set_string(struct value *object, const char *key, const char *s);
struct value *value_object_set_bool(struct value *object, const char *key, int b);

/* The member named key, or NULL (also when object is not an object). */
const struct value *value_object_get(const struct value *object, const char *key);
const struct value *value_object_getn(const struct value *object, const char *key, size_t keylen);

/* Mustache truthiness: false, null and the empty array are false. */
int value_truthy(const struct value *v);

/* Appends the shortest text that reads back as the same double ("85",
 * "1.21", "1e+100"); integers in the 2^53 range print without exponent. */
void value_format_number(struct buf *out, double d);
/* Appends v as a string the way a template shows it: strings as they are,
 * numbers by value_format_number(), true/false, null as "". */
void value_format(struct buf *out, const struct value *v);

/* Appends v as JSON.  indent 0: one line; otherwise pretty with that many
 * spaces.  Non-ASCII is written as UTF-8, control characters escaped. */
void value_write_json(struct buf *out, const struct value *v, int indent);
/* Appends s as a JSON string literal. */
void value_write_json_string(struct buf *out, const char *s, size_t len);

#endif
