/*
 * The comparison JSON reader: struct value (untrusted) -> struct report
 * (trusted).  Every rule of perfbot-json(5) is checked
 * here, in one pass, and the first violation is reported as
 * "NAME: JSON.PATH: what is wrong and what is expected".
 *
 * Order of checks, so that "first violation" is well defined: the root
 * type, then "perfbot" (a file of another version is told so before its
 * keys are judged), then in every object its unknown keys (in document
 * order), then its members in the order the spec lists them.  Checks that
 * need a whole list (duplicate names, headline and samples naming a row)
 * come after the list.
 *
 * Decisions where the spec is silent:
 *   - "test_description" and "test_url" are extensions of version 1 for the
 *     legacy (2018-2022) template: optional, non-empty strings; test_url has
 *     no spaces.
 *   - "x-" keys are ignored in every fixed-schema object and in "samples";
 *     "params" is data (job parameters), so an "x-" key there is a param.
 *   - null is not "absent": an optional key given as null is a type error.
 *   - counts (perfbot, fails, runs, failure values) accept integral reals
 *     such as 1.0; JSON does not tell 1 from 1.0 in meaning.
 *   - failures {"values": [...]}: fails is the sum of the entries, runs
 *     their number; a sum above the number of runs is an error (use 0 or 1
 *     per run).  Failure names must be unique within a test, like metric
 *     names.
 *   - samples: "good" and "bad" are both required arrays, either may be
 *     empty but not both, and together they hold at most REPORT_MAX_VALUES
 *     (so that every valid report can be plotted, see plot.h).
 *   - besides C0 and DEL, the C1 controls (U+0080-U+009F) are refused too:
 *     they are control characters (NEL is a line break to some readers).
 *   - tag names follow git check-ref-format (also no "//", no component
 *     starting with '.' or ending in ".lock", not "@").
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "xalloc.h"
#include "banned.h"

struct ctx {
	const char *name;	/* for messages */
	struct buf path;	/* JSON path of the value being checked */
	struct buf *err;
	const struct report *r;	/* the report being built: its top level is
				   read before its tests (extra, error) */
};

enum {
	OPTIONAL = 1,		/* the key may be absent */
	MAY_BE_EMPTY = 2,	/* "" is fine */
	TAB_OK = 4,		/* TAB is fine (params values) */
	NO_SPACE = 8,		/* no ' ' */
	NEWLINE_OK = 16,	/* '\n' is fine (a test result's error) */
};

static int fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct ctx *c, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	err_set(c->err, "%s: %s: %s", c->name, c->path.len ? c->path.data : "(top level)",
		msg.data);
	buf_release(&msg);
	return -1;
}

static int is_extension(const char *key)
{
	return key[0] == 'x' && key[1] == '-';
}

/* Refuses keys of obj that are neither in allowed (NULL-terminated) nor
 * "x-..." keys. */
static int check_keys(struct ctx *c, const struct value *obj, const char *const *allowed)
{
	size_t i, j;

	for (i = 0; i < obj->nr; i++) {
		const char *key = obj->keys[i];
		struct buf list = BUF_INIT;

		if (is_extension(key))
			continue;
		for (j = 0; allowed[j]; j++)
			if (!strcmp(key, allowed[j]))
				break;
		if (allowed[j])
			continue;
		for (j = 0; allowed[j]; j++)
			buf_addf(&list, "%s%s", j ? ", " : "", allowed[j]);
		json_path_key(&c->path, key);
		fail(c, "unknown key; expected one of: %s (keys starting with \"x-\" are ignored)",
		     list.data);
		buf_release(&list);
		return -1;
	}
	return 0;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t len, i;
	unsigned min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2, min = 0x80, *cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3, min = 0x800, *cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4, min = 0x10000, *cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* The checks every string gets; the flags add or relax some.  max and
 * maxname: the length limit. */
static int check_text(struct ctx *c, const struct value *v, unsigned flags, size_t max,
		      const char *maxname)
{
	const unsigned char *s;
	size_t i, n;

	if (v->kind != VALUE_STRING)
		return fail(c, "must be a string");
	if (v->len > max)
		return fail(c, "is %zu bytes long; the limit is %s (%zu bytes)",
			    v->len, maxname, max);
	s = (const unsigned char *)v->str;
	for (i = 0; i < v->len; i += n) {
		unsigned cp;

		n = utf8_len(s + i, v->len - i, &cp);
		if (!n)
			return fail(c, "is not valid UTF-8 (at byte %zu)", i + 1);
		if ((cp == '\t' && (flags & TAB_OK)) || (cp == '\n' && (flags & NEWLINE_OK)))
			continue;
		if (flags & NEWLINE_OK) {
			if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
				return fail(c, "contains the control character U+%04X at byte %zu; "
					    "only newlines and TAB are allowed", cp, i + 1);
			continue;
		}
		if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			return fail(c, "contains the control character U+%04X at byte %zu; "
				    "strings must fit on one line%s", cp, i + 1,
				    cp == '\t' ? " (TAB is allowed only in params values)" : "");
	}
	if (!v->len && !(flags & MAY_BE_EMPTY))
		return fail(c, "must not be empty");
	if ((flags & NO_SPACE) && memchr(v->str, ' ', v->len))
		return fail(c, "must not contain spaces");
	return 0;
}

static int check_string(struct ctx *c, const struct value *v, unsigned flags)
{
	return check_text(c, v, flags, REPORT_MAX_STRING, "REPORT_MAX_STRING");
}

/* Looks key up in obj.  0: *out is the member and the path points at it
 * (the caller restores it with leave() on success); 1: absent and OPTIONAL
 * (*out is NULL, the path unchanged); -1: required and absent. */
static int enter(struct ctx *c, const struct value *obj, const char *key, unsigned flags,
		 const struct value **out)
{
	*out = value_object_get(obj, key);
	if (!*out && (flags & OPTIONAL))
		return 1;
	json_path_key(&c->path, key);
	if (!*out)
		return fail(c, "required key is missing");
	return 0;
}

static void leave(struct ctx *c, size_t mark)
{
	buf_truncate(&c->path, mark);
}

/* A string member; *out stays NULL when an optional key is absent. */
static int get_string(struct ctx *c, const struct value *obj, const char *key, unsigned flags,
		      char **out)
{
	const struct value *v;
	size_t mark = c->path.len;
	int r = enter(c, obj, key, flags, &v);

	if (r)
		return r > 0 ? 0 : -1;
	if (check_string(c, v, flags) < 0)
		return -1;
	*out = xmemdup(v->str, v->len);
	leave(c, mark);
	return 0;
}

static int check_number(struct ctx *c, const struct value *v, double *out)
{
	if (v->kind != VALUE_NUMBER)
		return fail(c, "must be a number");
	if (!isfinite(v->number))
		return fail(c, "must be a finite number");
	*out = v->number;
	return 0;
}

/* A whole number >= 0 that fits a long. */
static int check_count(struct ctx *c, const struct value *v, long *out)
{
	double d = 0;

	if (check_number(c, v, &d) < 0)
		return -1;
	if (d != floor(d))
		return fail(c, "must be a whole number");
	if (d < 0)
		return fail(c, "must not be negative");
	if (d > (double)LONG_MAX / 2)
		return fail(c, "is too large");
	*out = (long)d;
	return 0;
}

static int check_array(struct ctx *c, const struct value *v, int nonempty, size_t max,
		       const char *maxname)
{
	if (v->kind != VALUE_ARRAY)
		return fail(c, "must be an array");
	if (nonempty && !v->nr)
		return fail(c, "must not be empty");
	if (v->nr > max)
		return fail(c, "has %zu entries; the limit is %s (%zu)", v->nr, maxname, max);
	return 0;
}

static int check_object(struct ctx *c, const struct value *v, const char *const *allowed)
{
	if (v->kind != VALUE_OBJECT)
		return fail(c, "must be an object");
	return allowed ? check_keys(c, v, allowed) : 0;
}

/* An array of finite numbers (its path entered), copied into *out. */
static int get_numbers(struct ctx *c, const struct value *v, int nonempty,
		       double **out, size_t *nr)
{
	size_t i, mark = c->path.len;

	if (check_array(c, v, nonempty, REPORT_MAX_VALUES, "REPORT_MAX_VALUES") < 0)
		return -1;
	*out = xcalloc(v->nr, sizeof(**out));
	*nr = v->nr;
	for (i = 0; i < v->nr; i++) {
		json_path_index(&c->path, i);
		if (check_number(c, v->items[i], &(*out)[i]) < 0)
			return -1;
		leave(c, mark);
	}
	return 0;
}

static int is_hex_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	return !s[n] && n >= 4 && n <= 40;
}

/* Why s is not a tag name git would accept (git check-ref-format), or
 * NULL when it is one. */
static const char *ref_problem(const char *s)
{
	size_t len = strlen(s);
	const char *p, *comp;

	if (s[0] == '-')
		return "it starts with '-'";
	if (!strcmp(s, "@"))
		return "it is \"@\"";
	if (s[0] == '/')
		return "it starts with '/'";
	if (s[len - 1] == '/')
		return "it ends with '/'";
	if (s[len - 1] == '.')
		return "it ends with '.'";
	if (strstr(s, ".."))
		return "it contains \"..\"";
	if (strstr(s, "@{"))
		return "it contains \"@{\"";
	if (strstr(s, "//"))
		return "it contains \"//\"";
	for (p = s; *p; p++) {
		if (*p == ' ')
			return "it contains a space";
		if (strchr("~^:?*[\\", *p))
			return "it contains one of ~ ^ : ? * [ \\";
	}
	for (comp = s; comp; comp = strchr(comp, '/') ? strchr(comp, '/') + 1 : NULL) {
		size_t n = strcspn(comp, "/");

		if (comp[0] == '.')
			return "a part of it starts with '.'";
		if (n >= 5 && !strncmp(comp + n - 5, ".lock", 5))
			return "a part of it ends with \".lock\"";
	}
	return NULL;
}

/* commit, base, still[].commit: a hex id or a tag name. */
static int get_rev(struct ctx *c, const struct value *obj, const char *key, unsigned flags,
		   char **out)
{
	const struct value *v;
	const char *why;
	size_t mark = c->path.len;
	int r = enter(c, obj, key, flags, &v);

	if (r)
		return r > 0 ? 0 : -1;
	if (check_string(c, v, flags & ~(unsigned)MAY_BE_EMPTY) < 0)
		return -1;
	if (!is_hex_id(v->str) && (why = ref_problem(v->str))) {
		struct buf q = BUF_INIT;

		json_quote(&q, v->str, v->len, JSON_QUOTE_MAX);
		fail(c, "%s is neither a commit id (4 to 40 hex digits) nor a valid tag name: %s",
		     q.data, why);
		buf_release(&q);
		return -1;
	}
	*out = xmemdup(v->str, v->len);
	leave(c, mark);
	return 0;
}

static int get_kind(struct ctx *c, const struct value *obj, enum report_kind *out)
{
	const struct value *v;
	size_t mark = c->path.len;
	int r = enter(c, obj, "kind", OPTIONAL, &v);

	if (r)
		return r > 0 ? 0 : -1;
	if (v->kind == VALUE_STRING && !strcmp(v->str, "regression"))
		*out = REPORT_KIND_REGRESSION;
	else if (v->kind == VALUE_STRING && !strcmp(v->str, "improvement"))
		*out = REPORT_KIND_IMPROVEMENT;
	else
		return fail(c, "must be \"regression\" or \"improvement\" (or left out)");
	leave(c, mark);
	return 0;
}

/* Mean and population standard deviation of s->values.  Equal values give
 * exactly their value and 0.  The values are scaled by a power of two first
 * (exact) so that neither the sum nor the squares can overflow. */
static int side_stats(struct ctx *c, struct report_side *s)
{
	const double *v = s->values;
	size_t i, n = s->nr_values;
	double max = 0, sum = 0, ss = 0, mean;
	int e, equal = 1;

	for (i = 0; i < n; i++) {
		if (fabs(v[i]) > max)
			max = fabs(v[i]);
		if (v[i] != v[0])
			equal = 0;
	}
	if (equal) {
		s->mean = v[0];
		s->has_stddev = n > 1 && v[0] != 0;
		s->stddev_percent = 0;
		return 0;
	}
	frexp(max, &e);
	for (i = 0; i < n; i++)
		sum += ldexp(v[i], -e);
	mean = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = ldexp(v[i], -e) - mean;

		ss += d * d;
	}
	s->mean = ldexp(mean, e);
	if (!isfinite(s->mean))
		return fail(c, "the mean of these values is too large for a double");
	s->has_stddev = mean != 0;
	s->stddev_percent = mean != 0 ? sqrt(ss / (double)n) / fabs(mean) * 100 : 0;
	if (!isfinite(s->stddev_percent))
		return fail(c, "the standard deviation of these values is too large to show");
	return 0;
}

static const char *const side_keys[] = { "values", "mean", "stddev_percent", NULL };
static const char *const extra_side_keys[] = {
	"values", "mean", "stddev_percent", "change", NULL
};

/* A side whose path is entered; keys: side_keys or extra_side_keys (whose
 * "change" the caller reads).  The path is left as it was. */
static int parse_side_value(struct ctx *c, const struct value *side, const char *const *keys,
			    struct report_side *s)
{
	const struct value *values, *mean, *sd;
	size_t inner = c->path.len;

	if (side->kind != VALUE_OBJECT)
		return fail(c, "must be an object: {\"values\": [...]} or {\"mean\": M}");
	if (check_keys(c, side, keys) < 0)
		return -1;
	values = value_object_get(side, "values");
	mean = value_object_get(side, "mean");
	sd = value_object_get(side, "stddev_percent");
	if (values && (mean || sd))
		return fail(c, "has both values and %s; give either {\"values\": [...]} or "
			    "{\"mean\": M, \"stddev_percent\": S}", mean ? "mean" : "stddev_percent");
	if (!values && !mean)
		return fail(c, "%s; give {\"values\": [...]} or {\"mean\": M}",
			    sd ? "has stddev_percent but no mean" : "has neither values nor mean");
	if (values) {
		json_path_key(&c->path, "values");
		if (get_numbers(c, values, 1, &s->values, &s->nr_values) < 0 ||
		    side_stats(c, s) < 0)
			return -1;
		leave(c, inner);
	} else {
		json_path_key(&c->path, "mean");
		if (check_number(c, mean, &s->mean) < 0)
			return -1;
		leave(c, inner);
		if (sd) {
			json_path_key(&c->path, "stddev_percent");
			if (check_number(c, sd, &s->stddev_percent) < 0)
				return -1;
			if (s->stddev_percent < 0)
				return fail(c, "must not be negative");
			s->has_stddev = 1;
			leave(c, inner);
		}
	}
	return 0;
}

static int parse_side(struct ctx *c, const struct value *obj, const char *key,
		      struct report_side *s)
{
	const struct value *side;
	size_t mark = c->path.len;

	if (enter(c, obj, key, 0, &side) < 0 ||
	    parse_side_value(c, side, side_keys, s) < 0)
		return -1;
	leave(c, mark);
	return 0;
}

/* A row's "extra" (optional key `key` of obj): an array of exactly
 * r->nr_extra entries in a test result, absent otherwise.  *out is set to
 * the array, NULL when absent (nr_extra == 0); the path is left as it was. */
static int enter_extra(struct ctx *c, const struct value *obj, const struct value **out)
{
	size_t n = c->r->nr_extra, mark = c->path.len;
	int r = enter(c, obj, "extra", OPTIONAL, out);

	if (r < 0)
		return -1;
	if (r > 0) {
		if (!n)
			return 0;
		json_path_key(&c->path, "extra");
		return fail(c, "required key is missing; in a test result every row has one "
			    "side per commit of the top level's extra (%zu)", n);
	}
	if (!n)
		return fail(c, "only a test result's rows have extra sides (the top level has "
			    "no \"request\" and \"extra\")");
	if (check_array(c, *out, 1, REPORT_MAX_EXTRA, "REPORT_MAX_EXTRA") < 0)
		return -1;
	if ((*out)->nr != n)
		return fail(c, "has %zu entries; the top level's extra has %zu commits, one "
			    "side each", (*out)->nr, n);
	leave(c, mark);
	return 0;
}

static int parse_metric_extra(struct ctx *c, const struct value *row, struct report_metric *m)
{
	const struct value *v;
	size_t i, mark = c->path.len, list;

	if (enter_extra(c, row, &v) < 0)
		return -1;
	if (!v)
		return 0;
	json_path_key(&c->path, "extra");
	list = c->path.len;
	m->extra = xcalloc(v->nr, sizeof(*m->extra));
	for (i = 0; i < v->nr; i++) {
		struct report_extra_side *e = &m->extra[i];
		const struct value *change;

		json_path_index(&c->path, i);
		if (parse_side_value(c, v->items[i], extra_side_keys, &e->side) < 0)
			return -1;
		change = value_object_get(v->items[i], "change");
		if (change) {
			json_path_key(&c->path, "change");
			if (check_number(c, change, &e->change) < 0)
				return -1;
			e->has_change = 1;
		}
		leave(c, list);
	}
	leave(c, mark);
	return 0;
}

/* Names of a list of rows, sorted, to find duplicates and look names up. */
struct name_ix {
	const char *name;
	size_t ix;
};

static int name_ix_cmp(const void *a, const void *b)
{
	const struct name_ix *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : (x->ix > y->ix) - (x->ix < y->ix);
}

/* Sorts idx and returns 1 when a name repeats, with *first and *second the
 * repeat that comes first in document order (smallest second index). */
static int find_duplicate(struct name_ix *idx, size_t n, size_t *first, size_t *second)
{
	size_t i;
	int found = 0;

	xqsort(idx, n, sizeof(*idx), name_ix_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(idx[i - 1].name, idx[i].name) || (i >= 2 &&
		    !strcmp(idx[i - 2].name, idx[i].name)))
			continue;
		if (!found || idx[i].ix < *second) {
			*first = idx[i - 1].ix;
			*second = idx[i].ix;
			found = 1;
		}
	}
	return found;
}

static const struct name_ix *find_name(const struct name_ix *idx, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(name, idx[mid].name);

		if (!r)
			return &idx[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static const char *const metric_keys[] = { "name", "base", "head", "change", "extra", NULL };

static int parse_metric(struct ctx *c, const struct value *v, struct report_metric *m)
{
	const struct value *change;
	size_t mark;

	if (check_object(c, v, metric_keys) < 0 ||
	    get_string(c, v, "name", 0, &m->name) < 0 ||
	    parse_side(c, v, "base", &m->base) < 0 ||
	    parse_side(c, v, "head", &m->head) < 0)
		return -1;
	mark = c->path.len;
	if (enter(c, v, "change", OPTIONAL, &change) < 0)
		return -1;
	if (change) {
		if (check_number(c, change, &m->change) < 0)
			return -1;
		m->has_change = 1;
		leave(c, mark);
	}
	return parse_metric_extra(c, v, m);
}

/* One side of a failure row, its path entered: {"fails": N, "runs": M} or
 * {"values": [...]}.  The path is left as it was. */
static int parse_fail_side_value(struct ctx *c, const struct value *side, long *fails,
				 long *runs)
{
	static const char *const keys[] = { "fails", "runs", "values", NULL };
	const struct value *values, *f, *r;
	size_t i, inner;

	if (side->kind != VALUE_OBJECT)
		return fail(c, "must be an object: {\"fails\": N, \"runs\": M} or {\"values\": [...]}");
	if (check_keys(c, side, keys) < 0)
		return -1;
	values = value_object_get(side, "values");
	f = value_object_get(side, "fails");
	r = value_object_get(side, "runs");
	if (values && (f || r))
		return fail(c, "has both values and %s; give either {\"fails\": N, \"runs\": M} "
			    "or {\"values\": [...]}", f ? "fails" : "runs");
	inner = c->path.len;
	if (values) {
		size_t list;

		json_path_key(&c->path, "values");
		list = c->path.len;
		if (check_array(c, values, 1, REPORT_MAX_VALUES, "REPORT_MAX_VALUES") < 0)
			return -1;
		*fails = 0;
		for (i = 0; i < values->nr; i++) {
			long n;

			json_path_index(&c->path, i);
			if (check_count(c, values->items[i], &n) < 0)
				return -1;
			leave(c, list);
			/* fails <= nr before, n < LONG_MAX / 2: cannot overflow */
			*fails += n;
			if (*fails > (long)values->nr)
				return fail(c, "add up to more failures than there are runs (%zu); "
					    "give 0 or 1 per run", values->nr);
		}
		*runs = (long)values->nr;
		leave(c, inner);
	} else {
		if (!f || !r)
			return fail(c, "needs %s; give {\"fails\": N, \"runs\": M} or {\"values\": [...]}",
				    !f && !r ? "fails and runs" : !f ? "fails" : "runs");
		json_path_key(&c->path, "runs");
		if (check_count(c, r, runs) < 0)
			return -1;
		if (*runs < 1)
			return fail(c, "must be at least 1");
		leave(c, inner);
		json_path_key(&c->path, "fails");
		if (check_count(c, f, fails) < 0)
			return -1;
		if (*fails > *runs)
			return fail(c, "is %ld, more than runs (%ld)", *fails, *runs);
		leave(c, inner);
	}
	return 0;
}

static int parse_fail_side(struct ctx *c, const struct value *obj, const char *key,
			   long *fails, long *runs)
{
	const struct value *side;
	size_t mark = c->path.len;

	if (enter(c, obj, key, 0, &side) < 0 ||
	    parse_fail_side_value(c, side, fails, runs) < 0)
		return -1;
	leave(c, mark);
	return 0;
}

static int parse_failure_extra(struct ctx *c, const struct value *row, struct report_failure *f)
{
	const struct value *v;
	size_t i, mark = c->path.len, list;

	if (enter_extra(c, row, &v) < 0)
		return -1;
	if (!v)
		return 0;
	json_path_key(&c->path, "extra");
	list = c->path.len;
	f->extra = xcalloc(v->nr, sizeof(*f->extra));
	for (i = 0; i < v->nr; i++) {
		json_path_index(&c->path, i);
		if (parse_fail_side_value(c, v->items[i], &f->extra[i].fails, &f->extra[i].runs) < 0)
			return -1;
		leave(c, list);
	}
	leave(c, mark);
	return 0;
}

static const char *const failure_keys[] = { "name", "base", "head", "extra", NULL };

static int parse_failure(struct ctx *c, const struct value *v, struct report_failure *f)
{
	return check_object(c, v, failure_keys) < 0 ||
	       get_string(c, v, "name", 0, &f->name) < 0 ||
	       parse_fail_side(c, v, "base", &f->base_fails, &f->base_runs) < 0 ||
	       parse_fail_side(c, v, "head", &f->head_fails, &f->head_runs) < 0 ||
	       parse_failure_extra(c, v, f) < 0 ? -1 : 0;
}

/* Refuses a name given twice among the rows of the array at c->path. */
static int check_unique(struct ctx *c, struct name_ix *idx, size_t n)
{
	struct buf prev = BUF_INIT;
	size_t first = 0, second = 0;

	if (!find_duplicate(idx, n, &first, &second))
		return 0;
	buf_add(&prev, c->path.data, c->path.len);
	json_path_index(&prev, first);
	json_path_index(&c->path, second);
	json_path_key(&c->path, "name");
	fail(c, "repeats the name of %s; names must be unique", prev.data);
	buf_release(&prev);
	return -1;
}

static int parse_failures(struct ctx *c, const struct value *test, struct report_test *t)
{
	const struct value *v;
	struct name_ix *idx;
	size_t i, mark = c->path.len;
	int r = enter(c, test, "failures", OPTIONAL, &v);

	if (r)
		return r > 0 ? 0 : -1;
	if (check_array(c, v, 0, REPORT_MAX_FAILURES, "REPORT_MAX_FAILURES") < 0)
		return -1;
	t->failures = xcalloc(v->nr, sizeof(*t->failures));
	t->nr_failures = v->nr;
	for (i = 0; i < v->nr; i++) {
		size_t row = c->path.len;

		json_path_index(&c->path, i);
		if (parse_failure(c, v->items[i], &t->failures[i]) < 0)
			return -1;
		leave(c, row);
	}
	idx = xcalloc(v->nr, sizeof(*idx));
	for (i = 0; i < v->nr; i++) {
		idx[i].name = t->failures[i].name;
		idx[i].ix = i;
	}
	r = check_unique(c, idx, v->nr);
	free(idx);
	if (r < 0)
		return -1;
	leave(c, mark);
	return 0;
}

/* Fills t->metrics and *idx, the names sorted for look-ups (freed by the
 * caller, also on failure). */
static int parse_metrics(struct ctx *c, const struct value *test, struct report_test *t,
			 struct name_ix **idx)
{
	const struct value *v;
	size_t i, mark = c->path.len;

	if (enter(c, test, "metrics", 0, &v) < 0 ||
	    check_array(c, v, 1, REPORT_MAX_METRICS, "REPORT_MAX_METRICS") < 0)
		return -1;
	t->metrics = xcalloc(v->nr, sizeof(*t->metrics));
	t->nr_metrics = v->nr;
	for (i = 0; i < v->nr; i++) {
		size_t row = c->path.len;

		json_path_index(&c->path, i);
		if (parse_metric(c, v->items[i], &t->metrics[i]) < 0)
			return -1;
		leave(c, row);
	}
	*idx = xcalloc(v->nr, sizeof(**idx));
	for (i = 0; i < v->nr; i++) {
		(*idx)[i].name = t->metrics[i].name;
		(*idx)[i].ix = i;
	}
	if (check_unique(c, *idx, v->nr) < 0)
		return -1;
	leave(c, mark);
	return 0;
}

static int parse_params(struct ctx *c, const struct value *test, struct report_test *t)
{
	const struct value *v;
	size_t i, mark = c->path.len;

	if (enter(c, test, "params", 0, &v) < 0 || check_object(c, v, NULL) < 0)
		return -1;
	if (v->nr > REPORT_MAX_PARAMS)
		return fail(c, "has %zu entries; the limit is REPORT_MAX_PARAMS (%d)",
			    v->nr, REPORT_MAX_PARAMS);
	t->params = xcalloc(v->nr, sizeof(*t->params));
	t->nr_params = v->nr;
	for (i = 0; i < v->nr; i++) {
		const struct value *item = v->items[i];
		struct value key = { .kind = VALUE_STRING };
		struct buf text = BUF_INIT;
		size_t inner = c->path.len;

		key.str = v->keys[i];
		key.len = strlen(v->keys[i]);
		json_path_key(&c->path, v->keys[i]);
		if (!key.len)
			return fail(c, "a param name must not be empty");
		if (check_string(c, &key, 0) < 0)
			return -1;
		t->params[i].key = xstrdup(v->keys[i]);
		switch (item->kind) {
		case VALUE_STRING:
			if (check_string(c, item, MAY_BE_EMPTY | TAB_OK) < 0)
				return -1;
			break;
		case VALUE_NUMBER:
		case VALUE_BOOL:
			if (item->kind == VALUE_NUMBER && !isfinite(item->number))
				return fail(c, "must be a finite number");
			break;
		default:
			return fail(c, "must be a string, a number or a boolean");
		}
		value_format(&text, item);
		t->params[i].value = buf_detach(&text, NULL);
		leave(c, inner);
	}
	leave(c, mark);
	return 0;
}

/* A test result's runs of its extra commits in one sample entry s (its
 * path entered): keyed by each extra commit as given, each optional.
 * *total counts the values. */
static int parse_sample_extra(struct ctx *c, const struct value *s, struct report_samples *out,
			      size_t *total)
{
	const struct report *r = c->r;
	size_t i, entry = c->path.len;

	if (!r->nr_extra)
		return 0;
	out->extra = xcalloc(r->nr_extra, sizeof(*out->extra));
	for (i = 0; i < r->nr_extra; i++) {
		const struct value *runs = value_object_get(s, r->extra[i].commit);

		if (!runs)
			continue;
		json_path_key(&c->path, r->extra[i].commit);
		if (get_numbers(c, runs, 0, &out->extra[i].values, &out->extra[i].nr) < 0)
			return -1;
		leave(c, entry);
		*total += out->extra[i].nr;
	}
	return 0;
}

static int parse_samples(struct ctx *c, const struct value *test, struct report_test *t,
			 const struct name_ix *idx)
{
	const char *keys[REPORT_MAX_EXTRA + 3] = { "good", "bad" };
	const struct value *v;
	size_t i, mark = c->path.len;
	int r = enter(c, test, "samples", OPTIONAL, &v);

	if (r)
		return r > 0 ? 0 : -1;
	if (check_object(c, v, NULL) < 0)
		return -1;
	/* an entry's keys: good, bad and the extra commits as given */
	for (i = 0; i < c->r->nr_extra; i++)
		keys[2 + i] = c->r->extra[i].commit;
	t->samples = xcalloc(v->nr, sizeof(*t->samples));
	for (i = 0; i < v->nr; i++) {
		const struct value *s = v->items[i], *good, *bad;
		struct report_samples *out = &t->samples[t->nr_samples];
		size_t inner = c->path.len, entry, total;

		if (is_extension(v->keys[i]))
			continue;
		json_path_key(&c->path, v->keys[i]);
		entry = c->path.len;
		/* mark is the test's path */
		if (!find_name(idx, t->nr_metrics, v->keys[i]))
			return fail(c, "names no row of %.*s.metrics; samples are keyed by "
				    "metric name", (int)mark, c->path.data);
		out->metric = xstrdup(v->keys[i]);
		t->nr_samples++;
		if (check_object(c, s, keys) < 0 ||
		    enter(c, s, "good", 0, &good) < 0 ||
		    get_numbers(c, good, 0, &out->good, &out->nr_good) < 0)
			return -1;
		leave(c, entry);
		if (enter(c, s, "bad", 0, &bad) < 0 ||
		    get_numbers(c, bad, 0, &out->bad, &out->nr_bad) < 0)
			return -1;
		leave(c, entry);
		total = out->nr_good + out->nr_bad;
		if (parse_sample_extra(c, s, out, &total) < 0)
			return -1;
		if (!total)
			return fail(c, "has no values; give at least one in good or bad%s",
				    c->r->nr_extra ? " or an extra commit's runs" : "");
		if (total > REPORT_MAX_VALUES)
			return fail(c, "%s hold %zu values together; the limit is "
				    "REPORT_MAX_VALUES (%d)", c->r->nr_extra ? "its runs" : "good and bad",
				    total, REPORT_MAX_VALUES);
		leave(c, inner);
	}
	leave(c, mark);
	return 0;
}

static const char *const test_keys[] = {
	"testcase", "headline", "tbox_group", "machine", "kconfig", "compiler", "rootfs",
	"params", "base", "kind", "test_description", "test_url", "failures", "metrics",
	"samples", NULL
};

/* An "error" result's test: what the reply names, and no numbers. */
static int check_no_numbers(struct ctx *c, const struct value *test)
{
	static const char *const keys[] = { "failures", "metrics", "samples", NULL };
	size_t i;

	for (i = 0; keys[i]; i++) {
		if (!value_object_get(test, keys[i]))
			continue;
		json_path_key(&c->path, keys[i]);
		return fail(c, "a test result with \"error\" carries no numbers; leave out "
			    "failures, metrics and samples");
	}
	return 0;
}

static int parse_test(struct ctx *c, const struct value *v, struct report_test *t)
{
	struct name_ix *idx = NULL;
	const struct name_ix *head;
	int r = -1;

	if (check_object(c, v, test_keys) < 0 ||
	    get_string(c, v, "testcase", 0, &t->testcase) < 0 ||
	    get_string(c, v, "headline", 0, &t->headline) < 0 ||
	    get_string(c, v, "tbox_group", 0, &t->tbox_group) < 0 ||
	    get_string(c, v, "machine", 0, &t->machine) < 0 ||
	    get_string(c, v, "kconfig", 0, &t->kconfig) < 0 ||
	    get_string(c, v, "compiler", 0, &t->compiler) < 0 ||
	    get_string(c, v, "rootfs", 0, &t->rootfs) < 0 ||
	    parse_params(c, v, t) < 0 ||
	    get_rev(c, v, "base", OPTIONAL, &t->base) < 0 ||
	    get_kind(c, v, &t->kind) < 0 ||
	    get_string(c, v, "test_description", OPTIONAL, &t->description) < 0 ||
	    get_string(c, v, "test_url", OPTIONAL | NO_SPACE, &t->url) < 0)
		goto out;
	if (c->r->error) {
		r = check_no_numbers(c, v);
		goto out;
	}
	if (parse_failures(c, v, t) < 0 ||
	    parse_metrics(c, v, t, &idx) < 0)
		goto out;
	head = find_name(idx, t->nr_metrics, t->headline);
	if (!head) {
		struct buf q = BUF_INIT;
		size_t mark = c->path.len;

		json_quote(&q, t->headline, strlen(t->headline), JSON_QUOTE_MAX);
		json_path_key(&c->path, "headline");
		fail(c, "%s names no row of %.*s.metrics", q.data, (int)mark, c->path.data);
		buf_release(&q);
		goto out;
	}
	t->headline_index = head->ix;
	r = parse_samples(c, v, t, idx);
out:
	free(idx);
	return r;
}

static int parse_tests(struct ctx *c, const struct value *root, struct report *r)
{
	const struct value *v;
	size_t i, mark = c->path.len, list;

	if (enter(c, root, "tests", 0, &v) < 0 ||
	    check_array(c, v, 1, REPORT_MAX_TESTS, "REPORT_MAX_TESTS") < 0)
		return -1;
	list = c->path.len;
	r->tests = xcalloc(v->nr, sizeof(*r->tests));
	r->nr_tests = v->nr;
	for (i = 0; i < v->nr; i++) {
		json_path_index(&c->path, i);
		if (parse_test(c, v->items[i], &r->tests[i]) < 0)
			return -1;
		leave(c, list);
	}
	leave(c, mark);
	return 0;
}

static int parse_still(struct ctx *c, const struct value *root, struct report *r)
{
	static const char *const keys[] = { "label", "on", "commit", NULL };
	const struct value *v;
	size_t i, mark = c->path.len;
	int res = enter(c, root, "still", OPTIONAL, &v);

	if (res)
		return res > 0 ? 0 : -1;
	if (check_array(c, v, 0, REPORT_MAX_STILL, "REPORT_MAX_STILL") < 0)
		return -1;
	r->still = xcalloc(v->nr, sizeof(*r->still));
	r->nr_still = v->nr;
	for (i = 0; i < v->nr; i++) {
		const struct value *s = v->items[i];
		struct report_still *out = &r->still[i];
		size_t inner = c->path.len;

		json_path_index(&c->path, i);
		if (check_object(c, s, keys) < 0 ||
		    get_string(c, s, "label", 0, &out->label) < 0 ||
		    get_string(c, s, "on", 0, &out->on) < 0 ||
		    get_rev(c, s, "commit", 0, &out->commit) < 0)
			return -1;
		leave(c, inner);
	}
	leave(c, mark);
	return 0;
}

static int check_version(struct ctx *c, const struct value *root)
{
	const struct value *v = value_object_get(root, "perfbot");
	struct buf num = BUF_INIT;

	if (v && v->kind == VALUE_NUMBER && v->number == 1)
		return 0;
	json_path_key(&c->path, "perfbot");
	if (!v)
		return fail(c, "required key is missing; a comparison JSON starts with "
			    "\"perfbot\": 1 (the format version)");
	if (v->kind != VALUE_NUMBER || !isfinite(v->number))
		return fail(c, "must be the integer 1 (the format version)");
	value_format_number(&num, v->number);
	fail(c, "format version %s is not supported; this perfbot reads version 1", num.data);
	buf_release(&num);
	return -1;
}

/* tree is NAME/BRANCH. */
static int check_tree(struct ctx *c, const struct report *r)
{
	const char *slash = strchr(r->tree, '/');
	size_t n = slash ? (size_t)(slash - r->tree) : 0;

	if (!slash || !n || strspn(r->tree, "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n ||
	    !slash[1] || strchr(slash, ' ')) {
		struct buf q = BUF_INIT;

		json_quote(&q, r->tree, strlen(r->tree), JSON_QUOTE_MAX);
		json_path_key(&c->path, "tree");
		fail(c, "%s must be NAME/BRANCH, like \"linus/master\": NAME of letters, digits, "
		     "'.', '_' or '-', BRANCH not empty and without spaces", q.data);
		buf_release(&q);
		return -1;
	}
	return 0;
}

static void default_branch(struct report *r)
{
	if (!r->branch)
		r->branch = xstrdup(strchr(r->tree, '/') + 1);
}

static int parse_request(struct ctx *c, const struct value *root, struct report *r)
{
	const struct value *v;
	size_t mark = c->path.len;
	int res = enter(c, root, "request", OPTIONAL, &v);

	if (res)
		return res > 0 ? 0 : -1;
	if (check_count(c, v, &r->request) < 0)
		return -1;
	if (r->request < 1)
		return fail(c, "must be at least 1 (the number of the request answered)");
	leave(c, mark);
	return 0;
}

static int parse_extra(struct ctx *c, const struct value *root, struct report *r)
{
	static const char *const keys[] = { "commit", "label", NULL };
	const struct value *v;
	size_t i, j, mark = c->path.len, list;
	int res = enter(c, root, "extra", OPTIONAL, &v);

	if (res < 0)
		return -1;
	if (res > 0) {
		if (!r->request)
			return 0;
		json_path_key(&c->path, "extra");
		return fail(c, "required key is missing; a test result (with \"request\") lists "
			    "the commits compared after commit, the last one the commit tested");
	}
	if (!r->request)
		return fail(c, "is only for a test result; give \"request\" too");
	if (check_array(c, v, 1, REPORT_MAX_EXTRA, "REPORT_MAX_EXTRA") < 0)
		return -1;
	list = c->path.len;
	r->extra = xcalloc(v->nr, sizeof(*r->extra));
	r->nr_extra = v->nr;
	for (i = 0; i < v->nr; i++) {
		struct report_extra *e = &r->extra[i];
		size_t inner;

		json_path_index(&c->path, i);
		inner = c->path.len;
		if (check_object(c, v->items[i], keys) < 0 ||
		    get_rev(c, v->items[i], "commit", 0, &e->commit) < 0 ||
		    get_string(c, v->items[i], "label", OPTIONAL, &e->label) < 0)
			return -1;
		/* the commits key the extra runs in samples, next to good and bad */
		json_path_key(&c->path, "commit");
		if (!strcmp(e->commit, "good") || !strcmp(e->commit, "bad"))
			return fail(c, "\"%s\" cannot be an extra commit: it is a key of samples",
				    e->commit);
		for (j = 0; j < i; j++)
			if (!strcmp(r->extra[j].commit, e->commit))
				return fail(c, "repeats extra[%zu].commit; each extra commit is "
					    "compared once", j);
		leave(c, inner);
		leave(c, list);
	}
	leave(c, mark);
	return 0;
}

static int parse_error(struct ctx *c, const struct value *root, struct report *r)
{
	const struct value *v;
	size_t mark = c->path.len;
	int res = enter(c, root, "error", OPTIONAL, &v);

	if (res)
		return res > 0 ? 0 : -1;
	if (!r->request)
		return fail(c, "is only for a test result; give \"request\" and \"extra\" too");
	if (check_text(c, v, NEWLINE_OK | TAB_OK, REPORT_MAX_ERROR, "REPORT_MAX_ERROR") < 0)
		return -1;
	r->error = xmemdup(v->str, v->len);
	leave(c, mark);
	return 0;
}

static const char *const top_keys[] = {
	"perfbot", "tree", "repo_url", "branch", "commit", "base", "kind", "still",
	"request", "extra", "error", "tests", NULL
};

static int parse_report(struct ctx *c, const struct value *v, struct report *r)
{
	if (!v || v->kind != VALUE_OBJECT)
		return fail(c, "must be a JSON object (a comparison, see perfbot-json(5))");
	if (check_version(c, v) < 0 ||
	    check_keys(c, v, top_keys) < 0 ||
	    get_string(c, v, "tree", 0, &r->tree) < 0 ||
	    check_tree(c, r) < 0 ||
	    get_string(c, v, "repo_url", OPTIONAL | NO_SPACE, &r->repo_url) < 0 ||
	    get_string(c, v, "branch", OPTIONAL | NO_SPACE, &r->branch) < 0)
		return -1;
	default_branch(r);
	return get_rev(c, v, "commit", 0, &r->commit) < 0 ||
	       get_rev(c, v, "base", 0, &r->base) < 0 ||
	       get_kind(c, v, &r->kind) < 0 ||
	       parse_still(c, v, r) < 0 ||
	       parse_request(c, v, r) < 0 ||
	       parse_extra(c, v, r) < 0 ||
	       parse_error(c, v, r) < 0 ||
	       parse_tests(c, v, r) < 0 ? -1 : 0;
}

int report_from_value(const struct value *v, const char *name,
		      struct report **out, struct buf *err)
{
	struct report *r = xcalloc(1, sizeof(*r));
	struct ctx c = { name, BUF_INIT, err, r };
	int res;

	*out = NULL;
	r->name = xstrdup(name);
	res = parse_report(&c, v, r);
	buf_release(&c.path);
	if (res < 0) {
		report_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int report_load_file(const char *path, struct report **out, struct buf *err)
{
	struct value *v;
	int r;

	*out = NULL;
	if (json_parse_file(path, &v, err) < 0)
		return -1;
	r = report_from_value(v, path, out, err);
	value_free(v);
	return r;
}

static void test_release(struct report_test *t, size_t nr_extra)
{
	size_t i, j;

	free(t->testcase);
	free(t->headline);
	free(t->tbox_group);
	free(t->machine);
	free(t->kconfig);
	free(t->compiler);
	free(t->rootfs);
	for (i = 0; i < t->nr_params; i++) {
		free(t->params[i].key);
		free(t->params[i].value);
	}
	free(t->params);
	free(t->base);
	free(t->description);
	free(t->url);
	for (i = 0; i < t->nr_failures; i++) {
		free(t->failures[i].name);
		free(t->failures[i].extra);
	}
	free(t->failures);
	for (i = 0; i < t->nr_metrics; i++) {
		free(t->metrics[i].name);
		free(t->metrics[i].base.values);
		free(t->metrics[i].head.values);
		if (t->metrics[i].extra)
			for (j = 0; j < nr_extra; j++)
				free(t->metrics[i].extra[j].side.values);
		free(t->metrics[i].extra);
	}
	free(t->metrics);
	for (i = 0; i < t->nr_samples; i++) {
		free(t->samples[i].metric);
		free(t->samples[i].good);
		free(t->samples[i].bad);
		if (t->samples[i].extra)
			for (j = 0; j < nr_extra; j++)
				free(t->samples[i].extra[j].values);
		free(t->samples[i].extra);
	}
	free(t->samples);
}

void report_free(struct report *r)
{
	size_t i;

	if (!r)
		return;
	free(r->name);
	free(r->tree);
	free(r->repo_url);
	free(r->branch);
	free(r->commit);
	free(r->base);
	for (i = 0; i < r->nr_still; i++) {
		free(r->still[i].label);
		free(r->still[i].on);
		free(r->still[i].commit);
	}
	free(r->still);
	for (i = 0; i < r->nr_tests; i++)
		test_release(&r->tests[i], r->nr_extra);
	free(r->tests);
	for (i = 0; i < r->nr_extra; i++) {
		free(r->extra[i].commit);
		free(r->extra[i].label);
	}
	free(r->extra);
	free(r->error);
	free(r);
}

int report_has_numbers(const struct report *r)
{
	return !r->error;
}

void report_tree_name(const struct report *r, struct buf *out)
{
	buf_add(out, r->tree, strcspn(r->tree, "/"));
}

const char *report_test_base(const struct report *r, const struct report_test *t)
{
	return t->base ? t->base : r->base;
}

const char *report_kind_name(enum report_kind k)
{
	switch (k) {
	case REPORT_KIND_REGRESSION:
		return "regression";
	case REPORT_KIND_IMPROVEMENT:
		return "improvement";
	default:
		return NULL;
	}
}

int report_merge(struct report *into, struct report *more, struct buf *err)
{
	size_t i;

	/* a test result answers its own request in its own thread */
	if (into->request || more->request)
		return err_set(err, "%s and %s: a test result (\"request\" %ld) is not "
			       "coalesced with another comparison", into->name, more->name,
			       into->request ? into->request : more->request);
	if (into->nr_tests + more->nr_tests > REPORT_MAX_TESTS)
		return err_set(err, "%s and %s: together more than REPORT_MAX_TESTS (%d) tests",
			       into->name, more->name, REPORT_MAX_TESTS);
	into->tests = xrealloc(into->tests, (into->nr_tests + more->nr_tests) * sizeof(*into->tests));
	for (i = 0; i < more->nr_tests; i++) {
		struct report_test *t = &more->tests[i];

		/* keep the base and kind each test was given in its own file */
		if (!t->base)
			t->base = xstrdup(more->base);
		if (i == 0 && t->kind == REPORT_KIND_UNSET)
			t->kind = more->kind;
		into->tests[into->nr_tests++] = *t;
	}
	more->nr_tests = 0;
	report_free(more);
	return 0;
}
