#include <math.h>
#include <string.h>

#include <jansson.h>

#include "json.h"
#include "xalloc.h"
#include "banned.h"

#define MAX_SAFE_INTEGER ((json_int_t)1 << 53)

void json_quote(struct buf *out, const char *s, size_t len, size_t max)
{
	int cut = 0;

	if (len > max) {
		len = max;
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
		cut = 1;
	}
	value_write_json_string(out, s, len);
	if (cut) {
		buf_truncate(out, out->len - 1);
		buf_adds(out, "...\"");
	}
}

static int plain_key(const char *key)
{
	const char *p;

	if (!*key)
		return 0;
	for (p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			return 0;
	return 1;
}

void json_path_key(struct buf *path, const char *key)
{
	if (!plain_key(key)) {
		buf_addc(path, '[');
		json_quote(path, key, strlen(key), JSON_QUOTE_MAX);
		buf_addc(path, ']');
		return;
	}
	if (path->len)
		buf_addc(path, '.');
	buf_adds(path, key);
}

void json_path_index(struct buf *path, size_t i)
{
	/* without vsnprintf: the reader marks the path of every array
	 * item it converts (a samples file has hundreds) */
	char d[2 + 3 * sizeof(i)];
	size_t at = sizeof(d);

	d[--at] = ']';
	do {
		d[--at] = (char)('0' + i % 10);
		i /= 10;
	} while (i);
	d[--at] = '[';
	buf_add(path, d + at, sizeof(d) - at);
}

static int convert(json_t *j, const char *name, struct buf *path, int depth,
		   struct value **out, struct buf *err)
{
	struct value *v = NULL;
	size_t mark = path->len;

	if (depth > JSON_MAX_DEPTH)
		return err_set(err, "%s: %s: nested deeper than %d levels", name,
			       path->len ? path->data : "(top level)", JSON_MAX_DEPTH);
	switch (json_typeof(j)) {
	case JSON_NULL:
		v = value_new_null();
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		v = value_new_bool(json_is_true(j));
		break;
	case JSON_INTEGER: {
		json_int_t i = json_integer_value(j);

		if (i > MAX_SAFE_INTEGER || i < -MAX_SAFE_INTEGER)
			return err_set(err, "%s: %s: integer %lld is larger than 2^53", name,
				       path->len ? path->data : "(top level)", (long long)i);
		v = value_new_integer((int64_t)i);
		break;
	}
	case JSON_REAL: {
		double d = json_real_value(j);

		if (!isfinite(d))
			return err_set(err, "%s: %s: number is not finite", name,
				       path->len ? path->data : "(top level)");
		v = value_new_number(d);
		break;
	}
	case JSON_STRING:
		v = value_new_stringn(json_string_value(j), json_string_length(j));
		break;
	case JSON_ARRAY: {
		size_t i;
		json_t *item;

		v = value_new_array();
		json_array_foreach(j, i, item) {
			struct value *child;

			json_path_index(path, i);
			if (convert(item, name, path, depth + 1, &child, err) < 0) {
				value_free(v);
				return -1;
			}
			buf_truncate(path, mark);
			value_array_push(v, child);
		}
		break;
	}
	case JSON_OBJECT: {
		const char *key;
		json_t *item;

		v = value_new_object();
		json_object_foreach(j, key, item) {
			struct value *child;

			json_path_key(path, key);
			if (convert(item, name, path, depth + 1, &child, err) < 0) {
				value_free(v);
				return -1;
			}
			buf_truncate(path, mark);
			value_object_set(v, key, child);
		}
		break;
	}
	}
	*out = v;
	return 0;
}

void json_prepare_threads(void)
{
	json_object_seed(0);
}

int json_parse(const char *text, size_t len, const char *name,
	       struct value **out, struct buf *err)
{
	json_error_t jerr;
	json_t *j;
	struct buf path = BUF_INIT;
	int r;

	*out = NULL;
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!j)
		return err_set(err, "%s:%d:%d: invalid JSON: %s", name, jerr.line,
			       jerr.column, jerr.text);
	r = convert(j, name, &path, 0, out, err);
	json_decref(j);
	buf_release(&path);
	return r;
}

int json_parse_file(const char *path, struct value **out, struct buf *err)
{
	struct buf text = BUF_INIT;
	int r;

	*out = NULL;
	if (!strcmp(path, "-"))
		r = buf_read_fd(&text, 0, JSON_MAX_BYTES, err);
	else
		r = buf_read_file(&text, path, JSON_MAX_BYTES, err);
	if (r == 0)
		r = json_parse(text.data, text.len, path, out, err);
	buf_release(&text);
	return r;
}
