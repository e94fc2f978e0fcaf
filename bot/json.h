#ifndef PERFBOT_JSON_H
#define PERFBOT_JSON_H

/*
 * The JSON reader: the one module that includes jansson.  Turns JSON text
 * into a struct value tree.
 *
 * Untrusted input.  Refused, with -1 and a message in err:
 *   - syntax errors, invalid UTF-8, NUL in strings, numbers jansson cannot
 *     hold (the message names `name`, the line and the column);
 *   - an object with the same key twice (jansson's JSON_REJECT_DUPLICATES);
 *   - integers outside +/-2^53 (they would not survive as doubles), and
 *     reals that overflowed; the message names the JSON path;
 *   - nesting deeper than JSON_MAX_DEPTH.
 * `name` is used only in messages (a file name, or "-" for stdin).
 * On success *out is a new tree the caller frees with value_free().
 */

#include <stddef.h>

#include "buf.h"
#include "value.h"

#define JSON_MAX_DEPTH 64
#define JSON_MAX_BYTES (64u << 20)

/* Makes json_parse() ready for threads: jansson seeds its hash tables
 * once, on the first object it makes, unless told before (call it once,
 * before the threads start). */
void json_prepare_threads(void);

int json_parse(const char *text, size_t len, const char *name,
	       struct value **out, struct buf *err);

/* Reads and parses a file (at most JSON_MAX_BYTES); path "-" reads stdin. */
int json_parse_file(const char *path, struct value **out, struct buf *err);

/* Outside text quoted in a message is cut after this many bytes. */
#define JSON_QUOTE_MAX 80

/* Appends a JSON path element: ".key" (or "key" at the root) for keys of
 * [A-Za-z0-9_-], else ["key"] quoted and escaped (keys come from outside:
 * a newline or escape sequence must not reach a message), or "[i]". */
void json_path_key(struct buf *path, const char *key);
void json_path_index(struct buf *path, size_t i);

/* Appends s as a JSON string literal, cut at a character boundary after
 * max bytes with "..." so that huge outside text cannot flood a message. */
void json_quote(struct buf *out, const char *s, size_t len, size_t max);

#endif
