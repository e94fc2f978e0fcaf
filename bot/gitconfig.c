#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitconfig.h"
#include "xalloc.h"
#include "banned.h"

/* The text being read, a character at a time, as git's get_next_char():
 * CRLF is LF, and the end of the text is one more LF. */
struct cursor {
	const char *p, *end;
	const char *path;
	int line;		/* of the character last returned */
	int line_ended;		/* it was an LF: the next one is on the next line */
	int eof;
};

struct parser {
	struct cursor c;
	int depth;		/* includes above this file */
	gitconfig_fn *fn;
	void *ctx;
	struct buf section;	/* lowercased, ".subsection" appended */
	struct buf name;
	struct buf value;
};

static int next_char(struct cursor *c)
{
	int ch;

	if (c->line_ended) {
		c->line++;
		c->line_ended = 0;
	}
	if (c->p >= c->end) {
		c->eof = 1;
		c->line_ended = 1;
		return '\n';
	}
	ch = (unsigned char)*c->p++;
	if (ch == '\r' && c->p < c->end && *c->p == '\n')
		ch = (unsigned char)*c->p++;
	if (ch == '\n')
		c->line_ended = 1;
	return ch;
}

static int is_space(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

static int is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static int is_key_char(int ch)
{
	return is_alpha(ch) || (ch >= '0' && ch <= '9') || ch == '-';
}

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

static int bad_line(struct parser *ps, const char *why, struct buf *err)
{
	return err_set(err, "%s: line %d: %s", ps->c.path, ps->c.line, why);
}

/* After '[': the section's name, and its subsection if any, up to ']'. */
static int read_section(struct parser *ps, struct buf *err)
{
	struct cursor *c = &ps->c;
	int ch;

	buf_reset(&ps->section);
	for (;;) {
		ch = next_char(c);
		if (c->eof || ch == '\n')
			return bad_line(ps, "a section header without its ']'", err);
		if (ch == ']')
			break;
		if (is_space(ch)) {
			while (is_space(ch) && ch != '\n')
				ch = next_char(c);
			if (ch != '"')
				return bad_line(ps, "a subsection name must be in double quotes", err);
			buf_addc(&ps->section, '.');
			for (;;) {
				ch = next_char(c);
				if (ch == '\\')
					ch = next_char(c);	/* any character stands for itself */
				else if (ch == '"')
					break;
				if (ch == '\n')
					return bad_line(ps, "a subsection name without its closing '\"'", err);
				buf_addc(&ps->section, (char)ch);
			}
			if (next_char(c) != ']')
				return bad_line(ps, "a section header without its ']'", err);
			break;
		}
		if (!is_key_char(ch) && ch != '.')
			return bad_line(ps, "a section name takes letters, digits, '-' and '.'", err);
		buf_addc(&ps->section, (char)lower(ch));
	}
	if (!ps->section.len || ps->section.data[0] == '.')
		return bad_line(ps, "a section without a name", err);
	return 0;
}

/* After '=': the value up to the end of its line (git's parse_value()). */
static int read_value(struct parser *ps, struct buf *err)
{
	struct cursor *c = &ps->c;
	int quote = 0, comment = 0, ch;
	size_t blanks = 0;

	buf_reset(&ps->value);
	for (;;) {
		ch = next_char(c);
		if (ch == '\n') {
			if (quote)
				return bad_line(ps, "a value without its closing '\"'", err);
			return 0;
		}
		if (comment)
			continue;
		if (is_space(ch) && !quote) {
			if (ps->value.len)
				blanks++;	/* kept only when more follows */
			continue;
		}
		if (!quote && (ch == ';' || ch == '#')) {
			comment = 1;
			continue;
		}
		for (; blanks; blanks--)
			buf_addc(&ps->value, ' ');
		if (ch == '\\') {
			ch = next_char(c);
			if (ch == '\n')
				continue;	/* the value goes on on the next line */
			if (ch == 't')
				ch = '\t';
			else if (ch == 'b')
				ch = '\b';
			else if (ch == 'n')
				ch = '\n';
			else if (ch != '\\' && ch != '"')
				return bad_line(ps, "an unknown escape in a value (\\n, \\t, \\b, \\\", \\\\)", err);
		} else if (ch == '"') {
			quote = !quote;
			continue;
		}
		buf_addc(&ps->value, (char)ch);
	}
}

static int read_include(struct parser *ps, const char *value, struct buf *err);

/* From a variable's first letter to the end of its line. */
static int read_variable(struct parser *ps, int ch, struct buf *err)
{
	struct cursor *c = &ps->c;
	const char *value = NULL;
	int line;

	if (!ps->section.len)
		return bad_line(ps, "a variable before any [section]", err);
	buf_reset(&ps->name);
	buf_add(&ps->name, ps->section.data, ps->section.len);
	buf_addc(&ps->name, '.');
	buf_addc(&ps->name, (char)lower(ch));
	for (;;) {
		ch = next_char(c);
		if (c->eof || !is_key_char(ch))
			break;
		buf_addc(&ps->name, (char)lower(ch));
	}
	while (ch == ' ' || ch == '\t')
		ch = next_char(c);
	line = c->line;
	if (ch != '\n') {
		if (ch != '=')
			return bad_line(ps, "a variable name takes letters, digits and '-', then '=' or "
					"the end of the line", err);
		if (read_value(ps, err) < 0)
			return -1;
		value = ps->value.data;
	}
	if (ps->fn(ps->name.data, value, ps->ctx, err) < 0)
		return err_prefix(err, "%s: line %d: ", c->path, line);
	if (value && !strcmp(ps->name.data, "include.path"))
		return read_include(ps, value, err);
	return 0;
}

static int parse_file(const char *text, size_t len, const char *path, int depth,
		      gitconfig_fn *fn, void *ctx, struct buf *err)
{
	struct parser ps = { .c = { text, text + len, path, 1, 0, 0 }, .depth = depth,
			     .fn = fn, .ctx = ctx };
	int comment = 0, ret = -1, ch;

	buf_init(&ps.section);
	buf_init(&ps.name);
	buf_init(&ps.value);
	if (memchr(text, '\0', len)) {
		err_set(err, "%s: a NUL byte: not a configuration file", path);
		goto out;
	}
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		ps.c.p += 3;	/* a UTF-8 byte order mark */
	for (;;) {
		ch = next_char(&ps.c);
		if (ch == '\n') {
			if (ps.c.eof)
				break;
			comment = 0;
		} else if (comment || is_space(ch)) {
			continue;
		} else if (ch == '#' || ch == ';') {
			comment = 1;
		} else if (ch == '[') {
			if (read_section(&ps, err) < 0)
				goto out;
		} else if (!is_alpha(ch)) {
			bad_line(&ps, "a line must be a [section], a variable or a comment", err);
			goto out;
		} else if (read_variable(&ps, ch, err) < 0) {
			goto out;
		}
	}
	ret = 0;
out:
	buf_release(&ps.section);
	buf_release(&ps.name);
	buf_release(&ps.value);
	return ret;
}

/* 1 with the file's bytes in *out, 0 when there is no such file, -1. */
static int read_text(const char *path, struct buf *out, struct buf *err)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, "%s: cannot read the configuration: %s", path, strerror(errno));
	}
	if (fstat(fd, &sb) < 0)
		err_set(err, "%s: cannot read the configuration: %s", path, strerror(errno));
	else if (!S_ISREG(sb.st_mode))
		err_set(err, "%s: the configuration is not a regular file", path);
	else if (buf_read_fd(out, fd, GITCONFIG_MAX_BYTES, err) < 0)
		err_prefix(err, "%s: cannot read the configuration: ", path);
	else
		ret = 1;
	close(fd);
	return ret;
}

static int read_path(const char *path, int depth, gitconfig_fn *fn, void *ctx, int missing_ok,
		     struct buf *err)
{
	struct buf text = BUF_INIT;
	int r = read_text(path, &text, err);

	if (r == 0 && !missing_ok)
		r = err_set(err, "%s: cannot read the configuration: %s", path, strerror(ENOENT));
	if (r > 0)
		r = parse_file(text.data, text.len, path, depth, fn, ctx, err);
	buf_release(&text);
	return r < 0 ? -1 : 0;
}

static int read_include(struct parser *ps, const char *value, struct buf *err)
{
	struct buf path = BUF_INIT;
	const char *slash;
	int r;

	if (ps->depth >= GITCONFIG_MAX_DEPTH)
		return err_set(err, "%s: line %d: include.path: more than %d includes deep (a loop?)",
			       ps->c.path, ps->c.line, GITCONFIG_MAX_DEPTH);
	if (!*value)
		return err_set(err, "%s: line %d: include.path: needs a value", ps->c.path, ps->c.line);
	if (!strncmp(value, "~/", 2)) {
		const char *home = getenv("HOME");

		if (!home || !*home)
			return err_set(err, "%s: line %d: include.path: '%s' needs $HOME", ps->c.path,
				       ps->c.line, value);
		buf_addf(&path, "%s/%s", home, value + 2);
	} else if (value[0] != '/' && (slash = strrchr(ps->c.path, '/'))) {
		buf_addf(&path, "%.*s/%s", (int)(slash - ps->c.path), ps->c.path, value);
	} else {
		buf_adds(&path, value);
	}
	r = read_path(path.data, ps->depth + 1, ps->fn, ps->ctx, 1, err);
	buf_release(&path);
	return r;
}

int gitconfig_parse(const char *text, size_t len, const char *path, gitconfig_fn *fn,
		    void *ctx, struct buf *err)
{
	return parse_file(text, len, path, 0, fn, ctx, err);
}

int gitconfig_read(const char *path, gitconfig_fn *fn, void *ctx, struct buf *err)
{
	return read_path(path, 0, fn, ctx, 0, err);
}

int gitconfig_bool(const char *value, int *out)
{
	static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no", "off", "" };
	char *end;
	long long v;
	size_t i;

	if (!value) {
		*out = 1;
		return 0;
	}
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcasecmp(value, yes[i]))
			return *out = 1, 0;
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcasecmp(value, no[i]))
			return *out = 0, 0;
	errno = 0;
	v = strtoll(value, &end, 10);
	if (errno || end == value || (*end && strchr("kKmMgG", *end) == NULL) || (*end && end[1]))
		return -1;
	*out = v != 0;
	return 0;
}
