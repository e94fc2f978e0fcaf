#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "xalloc.h"
#include "banned.h"

#define USAGE_WIDTH 79		/* columns a usage line is wrapped at */
#define HELP_COLUMN_MAX 26	/* an option wider than this has its help on the next line */

void opt_list_release(struct opt_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void opt_args_release(struct opt_args *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static int takes_value(const struct opt *o)
{
	return o->type == OPT_STRING || o->type == OPT_LIST || o->type == OPT_INT;
}

/* How messages and the usage line name an option: its long form if it
 * has one. */
static void opt_name(struct buf *out, const struct opt *o)
{
	if (o->long_name)
		buf_addf(out, "--%s", o->long_name);
	else
		buf_addf(out, "-%c", o->short_name);
}

static int fail_opt(struct buf *err, const char *fmt, const struct opt *o)
{
	struct buf name = BUF_INIT;

	opt_name(&name, o);
	err_set(err, fmt, name.data);
	buf_release(&name);
	return -1;
}

static int set_value(const struct opt *o, const char *value, struct buf *err)
{
	struct opt_list *l;
	char *end;
	long n;

	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = 1;
		return 0;
	case OPT_COUNT:
		(*(int *)o->value)++;
		return 0;
	case OPT_STRING:
		*(const char **)o->value = value;
		return 0;
	case OPT_LIST:
		l = o->value;
		ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = value;
		return 0;
	case OPT_INT:
		errno = 0;
		n = strtol(value, &end, 10);
		if (!*value || *end || errno || n < o->min || n > o->max) {
			struct buf name = BUF_INIT;

			opt_name(&name, o);
			err_set(err, "option '%s': '%s' is not a whole number from %ld to %ld",
				name.data, value, o->min, o->max);
			buf_release(&name);
			return -1;
		}
		*(long *)o->value = n;
		return 0;
	case OPT_END:
		break;
	}
	return -1;
}

/* o was given: refuse it when another option of its exclusive group was
 * given before it. */
static int check_exclusive(const struct opt_spec *spec, const struct opt *o,
			   const unsigned char *seen, struct buf *err)
{
	const struct opt *p;

	if (!o->exclusive)
		return 0;
	for (p = spec->opts; p->type != OPT_END; p++) {
		if (p != o && p->exclusive == o->exclusive && seen[p - spec->opts]) {
			struct buf a = BUF_INIT, b = BUF_INIT;

			opt_name(&a, o);
			opt_name(&b, p);
			err_set(err, "%s cannot be used with %s", a.data, b.data);
			buf_release(&a);
			buf_release(&b);
			return -1;
		}
	}
	return 0;
}

static const struct opt *find_long(const struct opt_spec *spec, const char *name, size_t len)
{
	const struct opt *o;

	for (o = spec->opts; o->type != OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == len && !memcmp(o->long_name, name, len))
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt_spec *spec, char c)
{
	const struct opt *o;

	for (o = spec->opts; o->type != OPT_END; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

static size_t table_size(const struct opt_spec *spec)
{
	size_t n = 0;

	while (spec->opts && spec->opts[n].type != OPT_END)
		n++;
	return n;
}

static const struct opt no_options[] = { OPT_END_E };

/* Takes one option; *i moves past its value when that was the next word. */
static int take(const struct opt_spec *spec, const struct opt *o, const char *value,
		int *i, int argc, char **argv, unsigned char *seen, struct buf *err)
{
	if (check_exclusive(spec, o, seen, err) < 0)
		return -1;
	seen[o - spec->opts] = 1;
	if (takes_value(o) && !value) {
		if (*i + 1 >= argc)
			return fail_opt(err, "option '%s' needs a value", o);
		value = argv[++*i];
	}
	return set_value(o, value, err);
}

int opt_parse(const struct opt_spec *spec_in, int argc, char **argv, struct opt_args *args,
	      struct buf *err)
{
	struct opt_spec spec = *spec_in;
	unsigned char *seen;
	int i, only_args = 0, ret = 0;

	if (!spec.opts)
		spec.opts = no_options;
	memset(args, 0, sizeof(*args));
	args->v = xcalloc((size_t)(argc > 0 ? argc : 1), sizeof(*args->v));
	seen = xcalloc(table_size(&spec) + 1, 1);
	for (i = 1; i < argc && !ret; i++) {
		const char *a = argv[i];
		const struct opt *o;

		if (only_args || a[0] != '-' || !a[1]) {
			args->v[args->nr++] = argv[i];
			if (spec.stop_at_arg)
				only_args = 1;
		} else if (!strcmp(a, "--")) {
			only_args = 1;
		} else if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			if (len == 4 && !memcmp(name, "help", 4) && !eq) {
				ret = OPT_HELP;
			} else if (!(o = find_long(&spec, name, len))) {
				ret = err_set(err, "unknown option '--%.*s'", (int)len, name);
			} else if (eq && !takes_value(o)) {
				ret = fail_opt(err, "option '%s' takes no value", o);
			} else {
				ret = take(&spec, o, eq ? eq + 1 : NULL, &i, argc, argv, seen, err);
			}
		} else {
			const char *p;

			for (p = a + 1; *p && !ret; p++) {
				if (*p == 'h') {
					ret = OPT_HELP;
				} else if (!(o = find_short(&spec, *p))) {
					ret = err_set(err, "unknown option '-%c'", *p);
				} else if (takes_value(o)) {
					ret = take(&spec, o, p[1] ? p + 1 : NULL, &i, argc, argv, seen, err);
					break;
				} else {
					ret = take(&spec, o, NULL, &i, argc, argv, seen, err);
				}
			}
		}
	}
	free(seen);
	if (!ret && args->nr < spec.min_args)
		ret = err_set(err, "missing argument: %s takes %s", spec.name,
			      spec.args ? spec.args : "arguments");
	if (!ret && args->nr > spec.max_args)
		ret = err_set(err, "unexpected argument '%s' (%s takes %s)",
			      args->v[spec.max_args], spec.name,
			      spec.args && *spec.args ? spec.args : "none");
	if (ret)
		opt_args_release(args);
	return ret;
}

/* One option as the usage line shows it: "--name VALUE" or "-x". */
static void usage_item(struct buf *out, const struct opt *o)
{
	opt_name(out, o);
	if (takes_value(o))
		buf_addf(out, " %s", o->argh ? o->argh : "VALUE");
}

/* Appends word to the usage line, wrapping under the command's name. */
static void usage_word(struct buf *out, size_t *col, size_t indent, const char *word)
{
	size_t n = strlen(word);

	if (*col + 1 + n > USAGE_WIDTH && *col > indent + 1) {
		/* under the first word after the command's name */
		buf_addc(out, '\n');
		buf_addchars(out, ' ', indent + 1);
		*col = indent + 1;
	} else {
		buf_addc(out, ' ');
		(*col)++;
	}
	buf_add(out, word, n);
	*col += n;
}

void opt_usage(struct buf *out, const struct opt_spec *spec)
{
	const struct opt *opts = spec->opts ? spec->opts : no_options, *o, *p;
	struct buf word = BUF_INIT;
	size_t col, indent;

	buf_addf(out, "usage: %s", spec->name);
	col = indent = strlen("usage: ") + strlen(spec->name);
	for (o = opts; o->type != OPT_END; o++) {
		int first = 1;

		/* an exclusive group is shown once, where its first member is */
		if (o->exclusive) {
			for (p = opts; p < o; p++)
				if (p->exclusive == o->exclusive)
					break;
			if (p < o)
				continue;
		}
		buf_reset(&word);
		buf_addc(&word, '[');
		for (p = o; p->type != OPT_END; p++) {
			if (p != o && (!o->exclusive || p->exclusive != o->exclusive))
				continue;
			if (!first)
				buf_adds(&word, " | ");
			usage_item(&word, p);
			first = 0;
			if (!o->exclusive)
				break;
		}
		buf_addc(&word, ']');
		if (o->type == OPT_LIST && !o->exclusive)
			buf_adds(&word, "...");
		usage_word(out, &col, indent, word.data);
	}
	if (spec->args && *spec->args)
		usage_word(out, &col, indent, spec->args);
	buf_addc(out, '\n');
	buf_release(&word);
}

/* The left column of the option list: "  -n, --dry-run" or "      --all". */
static void help_left(struct buf *out, const struct opt *o)
{
	buf_adds(out, "  ");
	if (o->short_name)
		buf_addf(out, "-%c%s", o->short_name, o->long_name ? ", " : "");
	else
		buf_adds(out, "    ");
	if (o->long_name)
		buf_addf(out, "--%s", o->long_name);
	if (takes_value(o))
		buf_addf(out, " %s", o->argh ? o->argh : "VALUE");
}

static void help_line(struct buf *out, const struct opt *o, size_t column)
{
	size_t start = out->len, left;
	const char *h, *nl;

	help_left(out, o);
	left = out->len - start;
	if (left + 2 > column) {
		buf_addc(out, '\n');
		buf_addchars(out, ' ', column);
	} else {
		buf_addchars(out, ' ', column - left);
	}
	for (h = o->help ? o->help : ""; (nl = strchr(h, '\n')); h = nl + 1) {
		buf_add(out, h, (size_t)(nl - h));
		buf_addc(out, '\n');
		buf_addchars(out, ' ', column);
	}
	buf_adds(out, h);
	buf_addc(out, '\n');
}

void opt_help(struct buf *out, const struct opt_spec *spec)
{
	static const struct opt help = OPT_BOOL_E('h', "help", NULL, "show this help");
	const struct opt *opts = spec->opts ? spec->opts : no_options, *o;
	struct buf left = BUF_INIT;
	size_t column = 0;

	opt_usage(out, spec);
	if (spec->about && *spec->about)
		buf_addf(out, "\n%s", spec->about);
	for (o = opts; ; o++) {
		const struct opt *x = o->type == OPT_END ? &help : o;

		buf_reset(&left);
		help_left(&left, x);
		if (left.len + 2 > column && left.len + 2 <= HELP_COLUMN_MAX)
			column = left.len + 2;
		if (o->type == OPT_END)
			break;
	}
	buf_addc(out, '\n');
	for (o = opts; o->type != OPT_END; o++)
		help_line(out, o, column);
	help_line(out, &help, column);
	if (spec->notes && *spec->notes)
		buf_addf(out, "\n%s", spec->notes);
	buf_release(&left);
}
