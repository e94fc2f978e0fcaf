/*
 * template.c: the mustache engine (see template.h).
 *
 * Parsing runs in passes over a flat token array:
 *   1. scan_tags() cuts the text into TEXT tokens (split after each
 *      newline, so a token never spans two lines) and tag tokens, follows
 *      {{= =}}, and pairs every section with its closing tag;
 *   2. mark_lines() applies the standalone rules line by line: a line that
 *      holds only blanks and one non-interpolating tag (or one of the
 *      inheritance pairs such as {{<p}}{{$b}}) loses its blanks and line
 *      end; it also marks the first node of every kept line ("bol"),
 *      which is where indentation goes;
 *   3. block_margins() finds the common indentation of standalone blocks;
 *   4. compact() drops removed text and closing, comment and delimiter
 *      tags, leaving a flat array in which a section's content is the
 *      nodes after it up to its `next`.
 *
 * Indentation (standalone partials, parents and blocks) is done while
 * rendering, with the meaning the spec gives it on source text: a struct
 * xform says "at the start of each source line, drop up to `strip` blanks,
 * then write the prefix".  Source lines that hold only blanks get no
 * prefix, so indented partials never leave trailing blanks.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html.h"
#include "template.h"
#include "xalloc.h"
#include "banned.h"

enum node_kind {
	NODE_TEXT,
	NODE_VAR,	/* {{x}}: escaped when html_escape is set */
	NODE_RAW,	/* {{{x}}}, {{&x}} */
	NODE_SECTION,
	NODE_INVERTED,
	NODE_PARTIAL,
	NODE_PARENT,
	NODE_BLOCK,
	/* Only while parsing: */
	NODE_CLOSE,
	NODE_COMMENT,
	NODE_DELIM,
};

struct node {
	unsigned char kind;
	unsigned char bol;		/* first node of a kept source line */
	unsigned char blank;		/* TEXT, bol: the line holds only blanks */
	unsigned char standalone;	/* alone on its line, which was removed */
	unsigned char has_content;	/* BLOCK, standalone: a non-blank content line */
	unsigned char removed;		/* parsing: dropped by a standalone rule */
	unsigned char pair;		/* parsing: BLOCK opened and closed on one line */
	int line;			/* 1-based, for messages */
	uint32_t off, len;		/* TEXT: the bytes; tags: the trimmed name */
	uint32_t ws;			/* TEXT, bol: leading blanks */
	uint32_t run, run_len;		/* TEXT: adjacent TEXT nodes and their bytes */
	uint32_t ind_off, ind_len;	/* standalone tag: the blanks before it */
	uint32_t margin_off, margin_len; /* BLOCK: common indentation of its content */
	uint32_t hash;			/* PARTIAL, PARENT: of the name */
	uint32_t next;			/* index after this node and its content */
	uint32_t match;			/* parsing: the other end of a section */
	uint32_t srcline;		/* parsing: index into parser.lines */
};

struct template {
	char *name;
	char *text;
	size_t len;
	struct node *nodes;
	uint32_t nr;
};

/* ---- names ---------------------------------------------------------- */

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static int template_name_validn(const char *s, size_t len)
{
	size_t i;

	if (!len || len > TEMPLATE_MAX_NAME || s[0] == '.')
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

int template_name_valid(const char *name)
{
	return template_name_validn(name, strlen(name));
}

/* A data name: no blanks or control bytes; dotted parts are not empty. */
static int data_name_valid(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c == 0x7f)
			return 0;
	}
	if (len == 1 && s[0] == '.')
		return 1;
	if (s[0] == '.' || s[len - 1] == '.' || memmem(s, len, "..", 2))
		return 0;
	return 1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static size_t lead_blanks(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* ---- parsing -------------------------------------------------------- */

struct srcline {
	uint32_t first;		/* its first token */
	uint32_t ws_off, ws_len; /* the blanks it starts with */
	int blank;		/* holds only blanks */
};

struct parser {
	const char *name;
	const char *text;
	size_t len;
	struct node *tok;
	size_t nr, alloc;
	struct srcline *lines;
	size_t nlines, alines;
	struct buf *err;
};

__attribute__((format(printf, 3, 4)))
static int parse_error(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;

	if (!p->err)
		return -1;
	buf_reset(p->err);
	buf_addf(p->err, "%s:%d: ", p->name, line);
	va_start(ap, fmt);
	buf_vaddf(p->err, fmt, ap);
	va_end(ap);
	return -1;
}

static struct node *parser_push(struct parser *p, enum node_kind kind, int line)
{
	struct node *n;

	ALLOC_GROW(p->tok, p->nr + 1, p->alloc);
	n = &p->tok[p->nr++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = line;
	return n;
}

static void add_text(struct parser *p, size_t a, size_t b, int *line)
{
	while (a < b) {
		const char *nl = memchr(p->text + a, '\n', b - a);
		size_t e = nl ? (size_t)(nl - p->text) + 1 : b;
		struct node *n = parser_push(p, NODE_TEXT, *line);

		n->off = (uint32_t)a;
		n->len = (uint32_t)(e - a);
		if (nl)
			(*line)++;
		a = e;
	}
}

struct delims {
	char open[TEMPLATE_MAX_DELIMITER + 1];
	char close[TEMPLATE_MAX_DELIMITER + 1];
	size_t olen, clen;
};

static int delim_word_valid(const char *s, size_t len)
{
	size_t i;

	if (!len || len > TEMPLATE_MAX_DELIMITER)
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f || s[i] == '=')
			return 0;
	return 1;
}

/* {{=OPEN CLOSE=}}: two words without blanks or '=', blanks between. */
static int set_delims(struct parser *p, struct delims *d, const char *s, size_t len, int line)
{
	size_t a = 0, b, c;

	while (a < len && !is_space(s[a]))
		a++;
	b = a;
	while (b < len && is_space(s[b]))
		b++;
	c = b;
	while (c < len && !is_space(s[c]))
		c++;
	if (a == 0 || b == a || c != len || !delim_word_valid(s, a) ||
	    !delim_word_valid(s + b, c - b))
		return parse_error(p, line, "bad delimiter tag '=%.*s=': want two words of at most %d bytes without blanks or '=', like {{=<%% %%>=}}",
				   (int)(len > 40 ? 40 : len), s, TEMPLATE_MAX_DELIMITER);
	memcpy(d->open, s, a);
	d->open[a] = '\0';
	d->olen = a;
	memcpy(d->close, s + b, c - b);
	d->close[c - b] = '\0';
	d->clen = c - b;
	return 0;
}

static const char *kind_word(int kind)
{
	switch (kind) {
	case NODE_PARENT:
		return "parent";
	case NODE_BLOCK:
		return "block";
	case NODE_INVERTED:
		return "inverted section";
	default:
		return "section";
	}
}

static int count_lines(const char *s, size_t len)
{
	int n = 0;
	const char *e = s + len;

	while ((s = memchr(s, '\n', (size_t)(e - s))) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* Checks a tag's name and pairs sections with their closing tags. */
static int check_tag(struct parser *p, struct node *n, uint32_t *stack, size_t *depth)
{
	const char *name = p->text + n->off;
	int len = (int)(n->len > 60 ? 60 : n->len);

	switch (n->kind) {
	case NODE_PARTIAL:
	case NODE_PARENT:
		if (!template_name_validn(name, n->len))
			return parse_error(p, n->line, "invalid template name '%.*s' (want [A-Za-z0-9._-]+, not starting with '.')",
					   len, name);
		n->hash = name_hash(name, n->len);
		break;
	case NODE_VAR:
	case NODE_RAW:
	case NODE_SECTION:
	case NODE_INVERTED:
	case NODE_BLOCK:
	case NODE_CLOSE:
		if (!n->len)
			return parse_error(p, n->line, "tag without a name");
		if (!data_name_valid(name, n->len))
			return parse_error(p, n->line, "invalid name '%.*s'", len, name);
		break;
	default:
		return 0;
	}
	if (n->kind == NODE_SECTION || n->kind == NODE_INVERTED ||
	    n->kind == NODE_PARENT || n->kind == NODE_BLOCK) {
		if (*depth >= TEMPLATE_MAX_NESTING)
			return parse_error(p, n->line, "sections nested deeper than %d", TEMPLATE_MAX_NESTING);
		stack[(*depth)++] = (uint32_t)(n - p->tok);
	} else if (n->kind == NODE_CLOSE) {
		struct node *o;

		if (!*depth)
			return parse_error(p, n->line, "closing tag '/%.*s' without an open section", len, name);
		o = &p->tok[stack[--*depth]];
		if (o->len != n->len || memcmp(p->text + o->off, name, n->len))
			return parse_error(p, n->line, "closing tag '/%.*s' does not match %s '%.*s' opened on line %d",
					   len, name, kind_word(o->kind),
					   (int)(o->len > 60 ? 60 : o->len), p->text + o->off, o->line);
		o->match = (uint32_t)(n - p->tok);
		n->match = (uint32_t)(o - p->tok);
	}
	return 0;
}

static enum node_kind tag_kind(char sigil)
{
	switch (sigil) {
	case '{':
	case '&':
		return NODE_RAW;
	case '#':
		return NODE_SECTION;
	case '^':
		return NODE_INVERTED;
	case '/':
		return NODE_CLOSE;
	case '!':
		return NODE_COMMENT;
	case '>':
		return NODE_PARTIAL;
	case '<':
		return NODE_PARENT;
	case '$':
		return NODE_BLOCK;
	case '=':
		return NODE_DELIM;
	default:
		return NODE_VAR;
	}
}

static int scan_tags(struct parser *p)
{
	struct delims d = { "{{", "}}", 2, 2 };
	uint32_t stack[TEMPLATE_MAX_NESTING];
	size_t depth = 0, pos = 0;
	int line = 1;

	while (pos < p->len) {
		const char *o = memmem(p->text + pos, p->len - pos, d.open, d.olen);
		size_t start = o ? (size_t)(o - p->text) : p->len;
		char end[TEMPLATE_MAX_DELIMITER + 2];
		const char *q;
		size_t elen, a, b;
		char sigil;
		enum node_kind kind;
		struct node *n;
		int tag_line;

		add_text(p, pos, start, &line);
		if (!o)
			break;
		tag_line = line;
		pos = start + d.olen;
		sigil = pos < p->len ? p->text[pos] : '\0';
		kind = tag_kind(sigil);
		if (kind != NODE_VAR)
			pos++;
		/* {{{x}}} ends at "}" and {{=a b=}} at "=" before the delimiter. */
		elen = 0;
		if (sigil == '{' || sigil == '=')
			end[elen++] = sigil == '{' ? '}' : '=';
		memcpy(end + elen, d.close, d.clen);
		elen += d.clen;
		end[elen] = '\0';
		q = memmem(p->text + pos, p->len - pos, end, elen);
		if (!q) {
			char sig[2] = { kind == NODE_VAR ? '\0' : sigil, '\0' };

			return parse_error(p, tag_line, "unclosed tag: '%s%s' without a matching '%s'",
					   d.open, sig, end);
		}
		a = pos;
		b = (size_t)(q - p->text);
		line += count_lines(p->text + start, b + elen - start);
		pos = b + elen;
		if (kind == NODE_COMMENT) {
			n = parser_push(p, kind, tag_line);
			n->off = (uint32_t)a;
			continue;
		}
		while (a < b && is_space(p->text[a]))
			a++;
		while (b > a && is_space(p->text[b - 1]))
			b--;
		if (kind == NODE_DELIM) {
			if (set_delims(p, &d, p->text + a, b - a, tag_line) < 0)
				return -1;
			n = parser_push(p, kind, tag_line);
			continue;
		}
		n = parser_push(p, kind, tag_line);
		n->off = (uint32_t)a;
		n->len = (uint32_t)(b - a);
		if (check_tag(p, n, stack, &depth) < 0)
			return -1;
	}
	if (depth) {
		struct node *o = &p->tok[stack[depth - 1]];

		return parse_error(p, o->line, "%s '%.*s' is not closed", kind_word(o->kind),
				   (int)(o->len > 60 ? 60 : o->len), p->text + o->off);
	}
	return 0;
}

static int is_tag(const struct node *n)
{
	return n->kind != NODE_TEXT;
}

/* Tags that may stand alone on a line (interpolations never do). */
static int can_stand(const struct node *n)
{
	return n->kind != NODE_TEXT && n->kind != NODE_VAR && n->kind != NODE_RAW;
}

/* Only blanks, then maybe "\n" or "\r\n". */
static int blank_text(const struct parser *p, const struct node *n)
{
	const char *s = p->text + n->off;
	size_t len = n->len;

	if (len && s[len - 1] == '\n') {
		len--;
		if (len && s[len - 1] == '\r')
			len--;
	}
	return lead_blanks(s, len) == len;
}

static void set_before(struct parser *p, size_t a, size_t t)
{
	if (a < t && p->tok[a].kind == NODE_TEXT) {
		p->tok[t].ind_off = p->tok[a].off;
		p->tok[t].ind_len = p->tok[a].len;
	}
}

static void remove_text(struct parser *p, size_t a, size_t b)
{
	size_t i;

	for (i = a; i < b; i++)
		if (p->tok[i].kind == NODE_TEXT)
			p->tok[i].removed = 1;
}

/*
 * The inheritance spec treats some pairs of adjacent tags like one
 * standalone tag: {{<p}}{{/p}}, {{<p}}{{$b}}, {{/b}}{{/p}}, and
 * {{$b}}{{/b}}, the last keeping its line end.  Returns 1 if applied.
 */
static int standalone_pair(struct parser *p, size_t a, size_t b, size_t t0, size_t t1)
{
	struct node *x = &p->tok[t0], *y = &p->tok[t1];

	if (x->kind == NODE_PARENT && y->kind == NODE_CLOSE && x->match == t1) {
		x->standalone = y->standalone = 1;
		set_before(p, a, t0);
	} else if (x->kind == NODE_PARENT && y->kind == NODE_BLOCK) {
		x->standalone = y->standalone = 1;
		set_before(p, a, t0);
		set_before(p, a, t1);
	} else if (x->kind == NODE_CLOSE && y->kind == NODE_CLOSE &&
		   p->tok[x->match].kind == NODE_BLOCK && p->tok[y->match].kind == NODE_PARENT) {
		x->standalone = y->standalone = 1;
	} else if (x->kind == NODE_BLOCK && y->kind == NODE_CLOSE && x->match == t1) {
		struct node *rest = t1 + 1 < b ? &p->tok[t1 + 1] : NULL;

		x->standalone = 1;
		x->pair = 1;
		set_before(p, a, t0);
		remove_text(p, a, t0);
		if (rest) {
			uint32_t k = (uint32_t)lead_blanks(p->text + rest->off, rest->len);

			rest->off += k;
			rest->len -= k;
			if (!rest->len)
				rest->removed = 1;
		}
		return 1;
	} else {
		return 0;
	}
	remove_text(p, a, b);
	return 1;
}

static void analyse_line(struct parser *p, size_t a, size_t b)
{
	struct srcline *sl;
	size_t i, ntags = 0, t[2] = { 0, 0 };
	int blank = 1;

	ALLOC_GROW(p->lines, p->nlines + 1, p->alines);
	sl = &p->lines[p->nlines];
	sl->first = (uint32_t)a;
	sl->ws_off = p->tok[a].off;
	sl->ws_len = 0;
	if (p->tok[a].kind == NODE_TEXT)
		sl->ws_len = (uint32_t)lead_blanks(p->text + p->tok[a].off, p->tok[a].len);
	for (i = a; i < b; i++) {
		p->tok[i].srcline = (uint32_t)p->nlines;
		if (p->tok[i].kind == NODE_TEXT) {
			if (!blank_text(p, &p->tok[i]))
				blank = 0;
		} else {
			if (ntags < 2)
				t[ntags] = i;
			ntags++;
		}
	}
	sl->blank = blank && !ntags;
	p->nlines++;

	if (blank && ntags == 1 && can_stand(&p->tok[t[0]])) {
		p->tok[t[0]].standalone = 1;
		set_before(p, a, t[0]);
		remove_text(p, a, b);
	} else if (blank && ntags == 2 && t[1] == t[0] + 1) {
		standalone_pair(p, a, b, t[0], t[1]);
	}

	for (i = a; i < b && p->tok[i].removed; i++)
		;
	if (i == b || (is_tag(&p->tok[i]) && p->tok[i].standalone))
		return;
	p->tok[i].bol = 1;
	if (p->tok[i].kind == NODE_TEXT) {
		p->tok[i].ws = (uint32_t)lead_blanks(p->text + p->tok[i].off, p->tok[i].len);
		p->tok[i].blank = (unsigned char)sl->blank;
	}
}

static void mark_lines(struct parser *p)
{
	size_t a = 0;

	while (a < p->nr) {
		size_t b = a;

		while (b < p->nr && !(p->tok[b].kind == NODE_TEXT &&
				      p->text[p->tok[b].off + p->tok[b].len - 1] == '\n'))
			b++;
		if (b < p->nr)
			b++;
		analyse_line(p, a, b);
		a = b;
	}
}

/*
 * A standalone block's content is re-indented where it is expanded: its
 * own common indentation (the blanks all its non-blank lines start with)
 * is dropped and the expansion site's added.
 */
static void block_margins(struct parser *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		struct node *n = &p->tok[i];
		const struct node *c;
		size_t l, last;
		uint32_t off = 0, len = 0;
		int have = 0;

		if (n->kind != NODE_BLOCK || !n->standalone || n->pair)
			continue;
		c = &p->tok[n->match];
		last = c->srcline;
		for (l = n->srcline + 1; l <= last; l++) {
			const struct srcline *sl = &p->lines[l];

			if (l == last && (c->standalone || sl->first >= n->match))
				break;
			if (sl->blank)
				continue;
			if (!have) {
				off = sl->ws_off;
				len = sl->ws_len;
				have = 1;
			} else {
				uint32_t k = 0;

				while (k < len && k < sl->ws_len &&
				       p->text[off + k] == p->text[sl->ws_off + k])
					k++;
				len = k;
			}
		}
		n->has_content = (unsigned char)have;
		n->margin_off = off;
		n->margin_len = len;
	}
}

/* Drops what rendering never looks at; sets `next` and the text runs. */
static void compact(struct parser *p, struct template *t)
{
	uint32_t stack[TEMPLATE_MAX_NESTING];
	size_t depth = 0, i;
	struct node *out = xcalloc(p->nr + 1, sizeof(*out));
	uint32_t nr = 0;

	for (i = 0; i < p->nr; i++) {
		const struct node *tk = &p->tok[i];

		if (tk->removed)
			continue;
		switch (tk->kind) {
		case NODE_CLOSE:
		case NODE_COMMENT:
		case NODE_DELIM:
			/* A line that starts with one of these still gets
			 * its indentation, as in the source: a placeholder. */
			if (tk->bol && !tk->standalone) {
				memset(&out[nr], 0, sizeof(out[nr]));
				out[nr].kind = NODE_TEXT;
				out[nr].bol = 1;
				out[nr].line = tk->line;
				out[nr].next = nr + 1;
				nr++;
			}
			if (tk->kind == NODE_CLOSE)
				out[stack[--depth]].next = nr;
			break;
		case NODE_SECTION:
		case NODE_INVERTED:
		case NODE_PARENT:
		case NODE_BLOCK:
			out[nr] = *tk;
			stack[depth++] = nr++;
			break;
		default:
			out[nr] = *tk;
			out[nr].next = nr + 1;
			nr++;
			break;
		}
	}
	for (i = nr; i-- > 0;) {
		struct node *n = &out[i];

		if (n->kind != NODE_TEXT)
			continue;
		n->run = 1;
		n->run_len = n->len;
		if (i + 1 < nr && out[i + 1].kind == NODE_TEXT &&
		    n->off + n->len == out[i + 1].off) {
			n->run += out[i + 1].run;
			n->run_len += out[i + 1].run_len;
		}
	}
	t->nodes = out;
	t->nr = nr;
}

int template_parse(const char *name, const char *text, size_t len,
		   struct template **out, struct buf *err)
{
	struct parser p = { 0 };
	struct template *t;

	*out = NULL;
	if (len > TEMPLATE_MAX_SIZE)
		return err_set(err, "%s: template is larger than %u bytes", name, TEMPLATE_MAX_SIZE);
	t = xcalloc(1, sizeof(*t));
	t->name = xstrdup(name);
	t->text = xmemdup(text, len);
	t->len = len;
	p.name = t->name;
	p.text = t->text;
	p.len = len;
	p.err = err;
	if (scan_tags(&p) < 0) {
		free(p.tok);
		template_free(t);
		return -1;
	}
	mark_lines(&p);
	block_margins(&p);
	compact(&p, t);
	free(p.tok);
	free(p.lines);
	*out = t;
	return 0;
}

void template_free(struct template *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->text);
	free(t->nodes);
	free(t);
}

const char *template_name(const struct template *t)
{
	return t->name;
}

/* ---- the set -------------------------------------------------------- */

struct set_entry {
	char *name;
	size_t len;
	uint32_t hash;
	struct template *t;	/* NULL: known not to exist */
};

struct template_set {
	char **dirs;		/* searched in order; none: only added templates */
	size_t nr_dirs;
	const char *suffix;	/* of its files: ".txt", "" (names carry theirs) */
	int html;		/* TEMPLATE_ESCAPE_HTML: {{x}} goes through html_text() */
	struct set_entry *entries;
	size_t nr, alloc;
	pthread_mutex_t lock;	/* entries: a set renders in several threads
				   at once (perfbot site's report pages), and
				   a partial is loaded at its first use */
};

void template_set_add_dir(struct template_set *set, const char *dir)
{
	size_t len = strlen(dir);

	/* "templates/" names its files templates/x.txt, not templates//x.txt */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	set->dirs = xrealloc(set->dirs, (set->nr_dirs + 1) * sizeof(*set->dirs));
	set->dirs[set->nr_dirs++] = xstrndup(dir, len);
}

struct template_set *template_set_new(const char *dir)
{
	struct template_set *set = xcalloc(1, sizeof(*set));

	set->suffix = ".txt";
	pthread_mutex_init(&set->lock, NULL);
	if (dir)
		template_set_add_dir(set, dir);
	return set;
}

void template_set_mode(struct template_set *set, const char *suffix, enum template_escape e)
{
	set->suffix = suffix;
	set->html = e == TEMPLATE_ESCAPE_HTML;
}

/* Where NAME was looked for, for messages: "DIR/NAME.txt", or "NAME.txt
 * in DIR1, DIR2 or DIR3". */
static void set_where(const struct template_set *set, struct buf *out, const char *name,
		      size_t len)
{
	size_t i;

	if (!set->nr_dirs) {
		buf_addf(out, "%.*s%s (the set has no folder)", (int)len, name, set->suffix);
		return;
	}
	if (set->nr_dirs == 1) {
		buf_addf(out, "%s/%.*s%s", set->dirs[0], (int)len, name, set->suffix);
		return;
	}
	buf_addf(out, "%.*s%s in ", (int)len, name, set->suffix);
	for (i = 0; i < set->nr_dirs; i++)
		buf_addf(out, "%s%s", i == 0 ? "" : i + 1 == set->nr_dirs ? " or " : ", ",
			 set->dirs[i]);
}

void template_set_free(struct template_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->nr; i++) {
		free(set->entries[i].name);
		template_free(set->entries[i].t);
	}
	free(set->entries);
	for (i = 0; i < set->nr_dirs; i++)
		free(set->dirs[i]);
	free(set->dirs);
	pthread_mutex_destroy(&set->lock);
	free(set);
}

static struct set_entry *set_find(struct template_set *set, const char *name, size_t len,
				  uint32_t hash)
{
	size_t i;

	for (i = 0; i < set->nr; i++) {
		struct set_entry *e = &set->entries[i];

		if (e->hash == hash && e->len == len && !memcmp(e->name, name, len))
			return e;
	}
	return NULL;
}

static struct set_entry *set_insert(struct template_set *set, const char *name, size_t len,
				    uint32_t hash, struct template *t)
{
	struct set_entry *e;

	ALLOC_GROW(set->entries, set->nr + 1, set->alloc);
	e = &set->entries[set->nr++];
	e->name = xmemdup(name, len);
	e->len = len;
	e->hash = hash;
	e->t = t;
	return e;
}

/* Reads DIR/NAME.txt from the first folder that has it.  *out NULL (and
 * 0) when none has. */
static int set_read(struct template_set *set, const char *name, size_t len,
		    struct template **out, struct buf *err)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	struct stat st;
	size_t i;
	int fd = -1, r = -1;

	*out = NULL;
	for (i = 0; i < set->nr_dirs && fd < 0; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%.*s%s", set->dirs[i], (int)len, name, set->suffix);
		fd = open(path.data, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT) {
			err_set(err, "%s: cannot open: %s", path.data, strerror(errno));
			goto out;
		}
	}
	if (fd < 0) {
		r = 0;
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_set(err, "%s: not a regular file", path.data);
		close(fd);
		goto out;
	}
	if (buf_read_fd(&text, fd, TEMPLATE_MAX_SIZE, err) < 0) {
		err_prefix(err, "%s: ", path.data);
		close(fd);
		goto out;
	}
	close(fd);
	r = template_parse(path.data, text.data, text.len, out, err);
out:
	buf_release(&path);
	buf_release(&text);
	return r;
}

/* Finds or loads NAME: 0 with *out NULL if it does not exist. */
static int set_load(struct template_set *set, const char *name, size_t len, uint32_t hash,
		    const struct template **out, struct buf *err)
{
	struct set_entry *e;
	struct template *t = NULL;
	int ret = 0;

	*out = NULL;
	pthread_mutex_lock(&set->lock);
	e = set_find(set, name, len, hash);
	if (e)
		*out = e->t;
	else if (set_read(set, name, len, &t, err) < 0)
		ret = -1;
	else {
		set_insert(set, name, len, hash, t);
		*out = t;
	}
	pthread_mutex_unlock(&set->lock);
	return ret;
}

int template_set_add(struct template_set *set, const char *name,
		     const char *text, size_t len, struct buf *err)
{
	size_t nlen = strlen(name);
	uint32_t hash = name_hash(name, nlen);
	struct set_entry *e;
	struct template *t;

	if (!template_name_validn(name, nlen))
		return err_set(err, "invalid template name '%.*s' (want [A-Za-z0-9._-]+, not starting with '.')",
			       (int)(nlen > 60 ? 60 : nlen), name);
	e = set_find(set, name, nlen, hash);
	if (e && e->t)
		return err_set(err, "template '%s' is already in the set", name);
	if (template_parse(name, text, len, &t, err) < 0)
		return -1;
	if (e)
		e->t = t;
	else
		set_insert(set, name, nlen, hash, t);
	return 0;
}

int template_set_lookup(struct template_set *set, const char *name,
			const struct template **out, struct buf *err)
{
	size_t len = strlen(name);

	*out = NULL;
	if (!template_name_validn(name, len))
		return err_set(err, "invalid template name '%.*s' (want [A-Za-z0-9._-]+, not starting with '.')",
			       (int)(len > 60 ? 60 : len), name);
	return set_load(set, name, len, name_hash(name, len), out, err);
}

int template_set_get(struct template_set *set, const char *name,
		     const struct template **out, struct buf *err)
{
	size_t len = strlen(name);

	*out = NULL;
	if (!template_name_validn(name, len))
		return err_set(err, "invalid template name '%.*s' (want [A-Za-z0-9._-]+, not starting with '.')",
			       (int)(len > 60 ? 60 : len), name);
	if (set_load(set, name, len, name_hash(name, len), out, err) < 0)
		return -1;
	if (!*out) {
		struct buf where = BUF_INIT;

		if (!set->nr_dirs)
			return err_set(err, "no template '%s'", name);
		set_where(set, &where, name, len);
		err_set(err, "%s: no such template", where.data);
		buf_release(&where);
		return -1;
	}
	return 0;
}

/* The templates check_refs() has been through, so that recursive
 * partials (which the data ends) are looked at once. */
struct seen {
	const struct template **v;
	size_t nr, alloc;
};

/* Loads every partial and parent t names, and theirs, depth first. */
static int check_refs(struct template_set *set, const struct template *t, struct seen *seen,
		      struct buf *err)
{
	uint32_t i;
	size_t j;

	for (j = 0; j < seen->nr; j++)
		if (seen->v[j] == t)
			return 0;
	ALLOC_GROW(seen->v, seen->nr + 1, seen->alloc);
	seen->v[seen->nr++] = t;
	for (i = 0; i < t->nr; i++) {
		const struct node *n = &t->nodes[i];
		const struct template *pt;

		if (n->kind != NODE_PARTIAL && n->kind != NODE_PARENT)
			continue;
		if (set_load(set, t->text + n->off, n->len, n->hash, &pt, err) < 0)
			return -1;
		if (!pt) {
			struct buf where = BUF_INIT;

			set_where(set, &where, t->text + n->off, n->len);
			err_set(err, "%s:%d: no %s '%.*s' (%s does not exist)", t->name, n->line,
				n->kind == NODE_PARENT ? "parent" : "partial", (int)n->len,
				t->text + n->off, where.data);
			buf_release(&where);
			return -1;
		}
		if (check_refs(set, pt, seen, err) < 0)
			return -1;
	}
	return 0;
}

int template_set_check(struct template_set *set, const char *name, struct buf *err)
{
	const struct template *t;
	struct seen seen = { 0 };
	int r;

	if (template_set_get(set, name, &t, err) < 0)
		return -1;
	r = check_refs(set, t, &seen, err);
	free(seen.v);
	return r;
}

/* ---- rendering ------------------------------------------------------ */

/* At each source line start: drop up to `strip` blanks, write the prefix
 * (bytes off..off+len of render.indent). */
struct xform {
	size_t strip;
	size_t off, len;
};

/* A parent being expanded: its blocks override those it reaches. */
struct frame {
	const struct template *t;
	const struct node *parent;
	const struct frame *up;
};

struct render {
	struct template_set *set;
	int lenient, escape;
	int html;		/* the set's TEMPLATE_ESCAPE_HTML: html_text() */
	struct buf escaped;	/* html_text()'s output, before emit() */
	struct buf *out;
	size_t out_max;		/* bytes out may grow by (for messages) */
	struct buf *err;
	const struct value **stack;
	size_t nstack, astack;
	struct buf indent;	/* the prefixes of all active xforms */
	struct buf scratch;
	const struct frame *frames;
	unsigned depth;
	size_t steps;
};

__attribute__((format(printf, 4, 5)))
static int render_error(struct render *r, const struct template *t, const struct node *n,
			const char *fmt, ...)
{
	va_list ap;

	if (!r->err)
		return -1;
	buf_reset(r->err);
	buf_addf(r->err, "%s:%d: ", t->name, n->line);
	va_start(ap, fmt);
	buf_vaddf(r->err, fmt, ap);
	va_end(ap);
	return -1;
}

static int too_long(struct render *r, const struct template *t, const struct node *n)
{
	return render_error(r, t, n, "output is longer than %zu bytes", r->out_max);
}

static int emit(struct render *r, const struct template *t, const struct node *n,
		const char *s, size_t len)
{
	if (buf_add(r->out, s, len) < 0)
		return too_long(r, t, n);
	return 0;
}

static int emit_prefix(struct render *r, const struct template *t, const struct node *n,
		       const struct xform *x)
{
	if (!x->len)
		return 0;
	if (buf_add(r->out, r->indent.data + x->off, x->len) < 0)
		return too_long(r, t, n);
	return 0;
}

static int emit_escaped(struct render *r, const struct template *t, const struct node *n,
			const char *s, size_t len)
{
	size_t i, start = 0;

	if (r->html) {
		/* straight into the output when the most it can grow by fits
		 * under its cap; else into a buffer of its own, so that the
		 * cap is checked once, by emit() (html_text() cannot fail) */
		if (len <= (r->out->limit - r->out->len) / HTML_ESCAPE_MAX) {
			html_text(r->out, s, len);
			return 0;
		}
		buf_reset(&r->escaped);
		html_text(&r->escaped, s, len);
		return emit(r, t, n, r->escaped.data, r->escaped.len);
	}
	for (i = 0; i < len; i++) {
		const char *rep;

		switch (s[i]) {
		case '&':
			rep = "&amp;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		default:
			continue;
		}
		if (buf_add(r->out, s + start, i - start) < 0 || buf_adds(r->out, rep) < 0)
			return too_long(r, t, n);
		start = i + 1;
	}
	return emit(r, t, n, s + start, len - start);
}

/* The spec's name resolution: the first part up the context stack, the
 * rest inside what it found.  0 if any part is missing. */
static int lookup(const struct render *r, const char *name, size_t len, const struct value **out)
{
	const struct value *v = NULL;
	const char *dot;
	size_t k, first;

	if (len == 1 && name[0] == '.') {
		*out = r->stack[r->nstack - 1];
		return 1;
	}
	dot = memchr(name, '.', len);
	first = dot ? (size_t)(dot - name) : len;
	for (k = r->nstack; k-- > 0;) {
		v = value_object_getn(r->stack[k], name, first);
		if (v)
			break;
	}
	while (v && dot) {
		const char *part = dot + 1;
		size_t rest = len - (size_t)(part - name);

		dot = memchr(part, '.', rest);
		v = value_object_getn(v, part, dot ? (size_t)(dot - part) : rest);
	}
	*out = v;
	return v != NULL;
}

static int unknown_name(struct render *r, const struct template *t, const struct node *n)
{
	return render_error(r, t, n, "unknown name '%.*s'", (int)n->len, t->text + n->off);
}

static void push_context(struct render *r, const struct value *v)
{
	ALLOC_GROW(r->stack, r->nstack + 1, r->astack);
	r->stack[r->nstack++] = v;
}

/* The xform for content expanded at a standalone tag whose line began
 * with raw (blanks, in the current source): the current xform applied to
 * raw becomes the new prefix. */
static int push_indent(struct render *r, const struct template *t, const struct node *n,
		       const struct xform *x, const char *raw, size_t rawlen, size_t strip,
		       struct xform *nx)
{
	size_t skip = x->strip < rawlen ? x->strip : rawlen;

	nx->strip = strip;
	nx->off = r->indent.len;
	if (buf_grow(&r->indent, x->len + rawlen - skip) < 0)
		return render_error(r, t, n, "indentation is longer than %zu bytes", r->indent.limit);
	/* No reallocation after buf_grow(), so copying from indent is safe. */
	buf_add(&r->indent, r->indent.data + x->off, x->len);
	buf_add(&r->indent, raw + skip, rawlen - skip);
	nx->len = r->indent.len - nx->off;
	return 0;
}

static int render_nodes(struct render *r, const struct template *t, uint32_t i, uint32_t end,
			const struct xform *x);

static int render_text(struct render *r, const struct template *t, const struct node *n,
		       const struct xform *x)
{
	const char *s = t->text + n->off;
	size_t len = n->len;

	if (n->bol) {
		size_t k = x->strip < n->ws ? x->strip : n->ws;

		s += k;
		len -= k;
		if (!n->blank && emit_prefix(r, t, n, x) < 0)
			return -1;
	}
	return emit(r, t, n, s, len);
}

static int render_var(struct render *r, const struct template *t, const struct node *n)
{
	const struct value *v;

	if (!lookup(r, t->text + n->off, n->len, &v))
		return r->lenient ? 0 : unknown_name(r, t, n);
	if (v->kind == VALUE_STRING) {
		if (n->kind == NODE_VAR && r->escape)
			return emit_escaped(r, t, n, v->str, v->len);
		return emit(r, t, n, v->str, v->len);
	}
	buf_reset(&r->scratch);
	value_format(&r->scratch, v);
	if (n->kind == NODE_VAR && r->escape)
		return emit_escaped(r, t, n, r->scratch.data, r->scratch.len);
	return emit(r, t, n, r->scratch.data, r->scratch.len);
}

static int render_section(struct render *r, const struct template *t, uint32_t i,
			  const struct xform *x)
{
	const struct node *n = &t->nodes[i];
	const struct value *v;
	int found = lookup(r, t->text + n->off, n->len, &v);
	size_t k;
	int ret = 0;

	if (n->kind == NODE_INVERTED) {
		if (found && value_truthy(v))
			return 0;
		return render_nodes(r, t, i + 1, n->next, x);
	}
	if (!found)
		return r->lenient ? 0 : unknown_name(r, t, n);
	if (v->kind == VALUE_ARRAY) {
		for (k = 0; k < v->nr && ret == 0; k++) {
			push_context(r, v->items[k]);
			ret = render_nodes(r, t, i + 1, n->next, x);
			r->nstack--;
		}
		return ret;
	}
	if (!value_truthy(v))
		return 0;
	push_context(r, v);
	ret = render_nodes(r, t, i + 1, n->next, x);
	r->nstack--;
	return ret;
}

static int enter(struct render *r, const struct template *t, const struct node *n)
{
	if (r->depth >= TEMPLATE_MAX_DEPTH)
		return render_error(r, t, n, "partials, parents and blocks nested deeper than %d (endless recursion?)",
				    TEMPLATE_MAX_DEPTH);
	r->depth++;
	return 0;
}

/* {{>name}} and {{<name}}...{{/name}}. */
static int render_partial(struct render *r, const struct template *t, uint32_t i,
			  const struct xform *x)
{
	const struct node *n = &t->nodes[i];
	const struct template *pt = NULL;
	struct xform nx = { 0, r->indent.len, 0 };
	size_t mark = r->indent.len;
	struct frame f = { 0 };
	int ret;

	if (r->set && set_load(r->set, t->text + n->off, n->len, n->hash, &pt, r->err) < 0)
		return -1;
	if (!pt) {
		if (r->lenient)
			return 0;
		if (r->set && r->set->nr_dirs) {
			struct buf where = BUF_INIT;

			set_where(r->set, &where, t->text + n->off, n->len);
			ret = render_error(r, t, n, "no %s '%.*s' (%s does not exist)",
					   n->kind == NODE_PARENT ? "parent" : "partial",
					   (int)n->len, t->text + n->off, where.data);
			buf_release(&where);
			return ret;
		}
		return render_error(r, t, n, "no %s '%.*s'",
				    n->kind == NODE_PARENT ? "parent" : "partial",
				    (int)n->len, t->text + n->off);
	}
	if (enter(r, t, n) < 0)
		return -1;
	if (n->standalone &&
	    push_indent(r, t, n, x, t->text + n->ind_off, n->ind_len, 0, &nx) < 0) {
		r->depth--;
		return -1;
	}
	if (n->kind == NODE_PARENT) {
		f.t = t;
		f.parent = n;
		f.up = r->frames;
		r->frames = &f;
	}
	ret = render_nodes(r, pt, 0, pt->nr, &nx);
	if (n->kind == NODE_PARENT)
		r->frames = f.up;
	r->depth--;
	buf_truncate(&r->indent, mark);
	return ret;
}

/* The outermost parent's block of that name wins. */
static void find_override(const struct render *r, const char *name, size_t len,
			  const struct template **ot, const struct node **on)
{
	const struct frame *f;

	*ot = NULL;
	*on = NULL;
	for (f = r->frames; f; f = f->up) {
		const struct node *c = f->parent + 1, *e = f->t->nodes + f->parent->next;

		for (; c < e; c = f->t->nodes + c->next) {
			if (c->kind == NODE_BLOCK && c->len == len &&
			    !memcmp(f->t->text + c->off, name, len)) {
				*ot = f->t;
				*on = c;
				break;
			}
		}
	}
}

static int render_block(struct render *r, const struct template *t, uint32_t i,
			const struct xform *x)
{
	const struct node *n = &t->nodes[i], *on;
	const struct template *ot;
	size_t mark = r->indent.len, strip;
	struct xform nx;
	int ret;

	find_override(r, t->text + n->off, n->len, &ot, &on);
	if (!on)
		return render_nodes(r, t, i + 1, n->next, x);
	if (enter(r, t, n) < 0)
		return -1;
	strip = on->standalone ? on->margin_len : 0;
	if (n->standalone) {
		const char *raw = t->text + (n->has_content ? n->margin_off : n->ind_off);
		size_t rawlen = n->has_content ? n->margin_len : n->ind_len;

		if (push_indent(r, t, n, x, raw, rawlen, strip, &nx) < 0) {
			r->depth--;
			return -1;
		}
	} else {
		nx.strip = strip;
		nx.off = r->indent.len;
		nx.len = 0;
	}
	ret = render_nodes(r, ot, (uint32_t)(on - ot->nodes) + 1, on->next, &nx);
	r->depth--;
	buf_truncate(&r->indent, mark);
	return ret;
}

static int render_nodes(struct render *r, const struct template *t, uint32_t i, uint32_t end,
			const struct xform *x)
{
	int plain = !x->strip && !x->len;

	while (i < end) {
		const struct node *n = &t->nodes[i];
		int ret = 0;

		if (++r->steps > TEMPLATE_MAX_STEPS)
			return render_error(r, t, n, "rendering takes more than %u steps",
					    TEMPLATE_MAX_STEPS);
		if (n->kind == NODE_TEXT) {
			if (plain) {
				if (emit(r, t, n, t->text + n->off, n->run_len) < 0)
					return -1;
				i += n->run;
			} else {
				if (render_text(r, t, n, x) < 0)
					return -1;
				i++;
			}
			continue;
		}
		if (n->bol && !plain && emit_prefix(r, t, n, x) < 0)
			return -1;
		switch (n->kind) {
		case NODE_VAR:
		case NODE_RAW:
			ret = render_var(r, t, n);
			break;
		case NODE_SECTION:
		case NODE_INVERTED:
			ret = render_section(r, t, i, x);
			break;
		case NODE_PARTIAL:
		case NODE_PARENT:
			ret = render_partial(r, t, i, x);
			break;
		case NODE_BLOCK:
			ret = render_block(r, t, i, x);
			break;
		}
		if (ret < 0)
			return -1;
		i = n->next;
	}
	return 0;
}

int template_render(struct template_set *set, const struct template *t,
		    const struct value *data, const struct template_options *opt,
		    struct buf *out, struct buf *err)
{
	static const struct value null_value = { VALUE_NULL };
	struct render r = { 0 };
	struct xform x = { 0, 0, 0 };
	size_t start = out->len, old_limit = out->limit;
	size_t max = opt && opt->max_output ? opt->max_output : TEMPLATE_MAX_OUTPUT;
	int ret;

	r.set = set;
	r.lenient = opt && opt->lenient;
	r.escape = opt && opt->html_escape;
	if (set && set->html)
		r.escape = r.html = 1;
	r.out = out;
	r.err = err;
	buf_init(&r.indent);
	buf_init(&r.scratch);
	buf_init(&r.escaped);
	r.indent.limit = max;
	if (!old_limit || old_limit - start > max)
		out->limit = start + max;
	r.out_max = out->limit - start;
	push_context(&r, data ? data : &null_value);
	ret = render_nodes(&r, t, 0, t->nr, &x);
	out->limit = old_limit;
	if (ret < 0)
		buf_truncate(out, start);
	free(r.stack);
	buf_release(&r.indent);
	buf_release(&r.scratch);
	buf_release(&r.escaped);
	return ret;
}
