#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "header.h"
#include "problem.h"
#include "reply.h"
#include "trailer.h"
#include "xalloc.h"
#include "banned.h"

struct line {
	const char *p;	/* not NUL-terminated */
	size_t n;
	int quoted;	/* set by split_lines() */
};

/* The analysis under way. */
struct state {
	struct reply *r;
	const struct reply_options *opts;
	size_t alloc_comments, alloc_commands, alloc_trailers;
	int commands_full, trailers_full, comments_full;
};

static void problem(struct reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct reply *r, const char *fmt, ...)
{
	const struct problems p = { &r->problems, &r->nr_problems, REPLY_MAX_PROBLEMS,
				    "more problems in the text were not listed" };
	va_list ap;

	va_start(ap, fmt);
	problem_vadd(&p, fmt, ap);
	va_end(ap);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* l without white space at both ends. */
static struct line trim(struct line l)
{
	while (l.n && is_space(l.p[0])) {
		l.p++;
		l.n--;
	}
	while (l.n && (is_space(l.p[l.n - 1]) || l.p[l.n - 1] == '\r'))
		l.n--;
	return l;
}

static int is_blank(struct line l)
{
	return trim(l).n == 0;
}

static int is_quoted(struct line l)
{
	size_t i = 0;

	while (i < l.n && is_space(l.p[i]))
		i++;
	return i < l.n && l.p[i] == '>';
}

/* A quoted line with text after its quote marks. */
static int quote_has_text(struct line l)
{
	size_t i = 0;

	while (i < l.n && (is_space(l.p[i]) || l.p[i] == '>'))
		i++;
	return i < l.n;
}

static int is_signature_separator(struct line l)
{
	return l.n == 3 && !memcmp(l.p, "-- ", 3);
}

/* l starts with prefix, ignoring ASCII case. */
static int starts_ci(struct line l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l.n >= n && !strncasecmp(l.p, prefix, n);
}

/* l contains word, ignoring ASCII case. */
static int contains_ci(struct line l, const char *word)
{
	size_t n = strlen(word), i;

	for (i = 0; i + n <= l.n; i++)
		if (!strncasecmp(l.p + i, word, n))
			return 1;
	return 0;
}

/* "-----Original Message-----" in its usual wordings. */
static int is_outlook_marker(struct line l)
{
	static const char *const words[] = {
		"original message", "ursprüngliche nachricht", "message d'origine",
	};
	size_t i;

	l = trim(l);
	if (l.n < 4 || l.p[0] != '-' || l.p[l.n - 1] != '-')
		return 0;
	while (l.n && l.p[0] == '-') {
		l.p++;
		l.n--;
	}
	while (l.n && l.p[l.n - 1] == '-')
		l.n--;
	l = trim(l);
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (l.n == strlen(words[i]) && !strncasecmp(l.p, words[i], l.n))
			return 1;
	return 0;
}

/* "Key:" at the start of l, after white space and Outlook's bold '*'. */
static int starts_key(struct line l, const char *key)
{
	l = trim(l);
	while (l.n && l.p[0] == '*') {
		l.p++;
		l.n--;
	}
	return starts_ci(l, key);
}

/* An Outlook header block at lines[i]: From:, then Sent:, then Subject:
 * before an empty line (To: and Cc: may come between). */
static int is_outlook_block(const struct line *lines, size_t nr, size_t i)
{
	size_t j;
	int sent = 0;

	if (!starts_key(lines[i], "From:"))
		return 0;
	for (j = i + 1; j < nr && j < i + 12 && !is_blank(lines[j]); j++) {
		if (starts_key(lines[j], "Sent:"))
			sent = 1;
		else if (sent && starts_key(lines[j], "Subject:"))
			return 1;
	}
	return 0;
}

/* Outlook's "____" line above its header block. */
static int is_outlook_rule(const struct line *lines, size_t nr, size_t i)
{
	struct line l = trim(lines[i]);
	size_t j;

	if (l.n < 10 || i + 1 >= nr)
		return 0;
	for (j = 0; j < l.n; j++)
		if (l.p[j] != '_')
			return 0;
	return is_outlook_block(lines, nr, i + 1);
}

static int ends_with_colon(struct line l)
{
	l = trim(l);
	return l.n && l.p[l.n - 1] == ':';
}

static int opens_attribution(struct line l)
{
	l = trim(l);
	return starts_ci(l, "On ") || starts_ci(l, "Am ") || starts_ci(l, "Le ") ||
	       starts_ci(l, "El ");
}

static int says_wrote(struct line l)
{
	static const char *const words[] = {
		"wrote", "writes", "said", "schrieb", "a écrit", "escribió", "scrisse",
		"napisał",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (contains_ci(l, words[i]))
			return 1;
	return opens_attribution(l);
}

/* Marks the attribution lines (reply.h) in attr[]. */
static void find_attributions(const struct line *lines, size_t nr, char *attr)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		if (lines[i].quoted || !ends_with_colon(lines[i]) || !says_wrote(lines[i]))
			continue;
		for (j = i + 1; j < nr && !lines[j].quoted && is_blank(lines[j]); j++)
			;
		if (j == nr || !lines[j].quoted)
			continue;
		attr[i] = 1;
		if (i > 0 && !opens_attribution(lines[i]) && opens_attribution(lines[i - 1]) &&
		    !lines[i - 1].quoted && !ends_with_colon(lines[i - 1]))
			attr[i - 1] = 1;
	}
}

/* ---- commands and trailers ---- */

static void add_command(struct state *s, const char *name, struct line args, size_t lineno,
			int understood)
{
	struct reply *r = s->r;

	if (r->nr_commands >= REPLY_MAX_COMMANDS) {
		if (!s->commands_full++)
			problem(r, "more than %d commands; the rest were ignored",
				REPLY_MAX_COMMANDS);
		return;
	}
	ALLOC_GROW(r->commands, r->nr_commands + 1, s->alloc_commands);
	r->commands[r->nr_commands].name = xstrdup(name);
	r->commands[r->nr_commands].args = xstrndup(args.p, args.n);
	r->commands[r->nr_commands].line = lineno;
	r->commands[r->nr_commands].understood = understood;
	r->nr_commands++;
}

static int is_hex_word(struct line w)
{
	size_t i;

	if (w.n < 7 || w.n > 64)
		return 0;
	for (i = 0; i < w.n; i++)
		if (!((w.p[i] >= '0' && w.p[i] <= '9') || (w.p[i] >= 'a' && w.p[i] <= 'f') ||
		      (w.p[i] >= 'A' && w.p[i] <= 'F')))
			return 0;
	return 1;
}

static int is_one_word(struct line w)
{
	size_t i;

	if (!w.n)
		return 0;
	for (i = 0; i < w.n; i++)
		if (is_space(w.p[i]))
			return 0;
	return 1;
}

static int is_url(struct line w)
{
	return is_one_word(w) && w.n > 6 && (memmem(w.p, w.n, "://", 3) || starts_ci(w, "git@"));
}

/*
 * "#perfbot test" with its argument wrapped by a mail client: a commit
 * or a URL alone on the next line, or the branch after a URL.  next is
 * the next line, or NULL when it is not new text.
 */
static struct line test_args(struct line args, const struct line *next, struct buf *joined)
{
	struct line n;

	if (!next)
		return args;
	n = trim(*next);
	if ((!args.n && (is_hex_word(n) || is_url(n))) || (is_url(args) && is_one_word(n) &&
							  !starts_ci(n, "diff") && n.p[0] != '-')) {
		buf_add(joined, args.p, args.n);
		if (args.n)
			buf_addc(joined, ' ');
		buf_add(joined, n.p, n.n);
		args.p = joined->data;
		args.n = joined->len;
	}
	return args;
}

/* A "#perfbot ..." line; next: the line after it when it is new text. */
static void scan_command(struct state *s, struct line l, size_t lineno, const struct line *next)
{
	static const struct { const char *name; int needs_args; } known[] = {
		{ "invalid", 0 }, { "reopen", 0 }, { "fixed-by", 1 }, { "dup-of", 1 },
		{ "subscribe", 0 }, { "unsubscribe", 0 }, { "test", 0 },
	};
	struct buf joined = BUF_INIT;
	char name[REPLY_MAX_NAME + 1];
	struct line args;
	struct buf q = BUF_INIT, raw = BUF_INIT;
	size_t n = 0, i;

	l = trim(l);
	if (!starts_ci(l, "#perfbot"))
		return;
	l.p += 8;
	l.n -= 8;
	if (l.n && !is_space(l.p[0]) && l.p[0] != ':')
		return;	/* "#perfbotx": another word */
	while (l.n && (is_space(l.p[0]) || l.p[0] == ':')) {
		l.p++;
		l.n--;
	}
	while (n < l.n && ((l.p[n] >= 'a' && l.p[n] <= 'z') || (l.p[n] >= 'A' && l.p[n] <= 'Z') ||
			   (l.p[n] >= '0' && l.p[n] <= '9') || l.p[n] == '-' || l.p[n] == '_'))
		n++;
	if (!n) {
		problem(s->r, "line %zu: '#perfbot' without a command", lineno);
		return;
	}
	args.p = l.p + n;
	args.n = l.n - n;
	args = trim(args);
	if (args.n && args.p[0] == ':') {
		args.p++;
		args.n--;
		args = trim(args);
	}
	buf_add(&raw, l.p, n);
	if (n > REPLY_MAX_NAME) {
		header_quote_input(&q, raw.data);
		problem(s->r, "line %zu: #perfbot %s: a command name longer than %d characters", lineno,
			q.data, REPLY_MAX_NAME);
		goto out;
	}
	for (i = 0; i < n; i++)
		name[i] = (char)((l.p[i] >= 'A' && l.p[i] <= 'Z') ? l.p[i] - 'A' + 'a' : l.p[i]);
	name[n] = '\0';
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].name, name))
			break;
	if (i == sizeof(known) / sizeof(known[0])) {
		/* recorded, as not understood: the sender learns why from status */
		add_command(s, name, args, lineno, 0);
	} else {
		if (!strcmp(name, "dup-of") && args.n >= 2 && args.p[0] == '<' &&
		    args.p[args.n - 1] == '>') {
			args.p++;
			args.n -= 2;
			args = trim(args);
		}
		if (!strcmp(name, "test"))
			args = test_args(args, next, &joined);
		/* after the brackets: "dup-of: <>" has no argument either */
		add_command(s, name, args, lineno, !known[i].needs_args || args.n);
	}
out:
	buf_release(&joined);
	buf_release(&q);
	buf_release(&raw);
}

/* The address in a trailer value: inside <>, or the value itself. */
static struct line trailer_address(struct line v)
{
	const char *lt = memchr(v.p, '<', v.n), *gt;

	if (lt && (gt = memchr(lt, '>', v.n - (size_t)(lt - v.p)))) {
		struct line a = { lt + 1, (size_t)(gt - lt - 1) };

		return trim(a);
	}
	return v;
}

static void scan_trailer(struct state *s, struct line l, size_t lineno)
{
	static const struct { const char *key; int person; } keys[] = {
		{ "Tested-by", 1 }, { "Reviewed-by", 1 }, { "Acked-by", 1 }, { "Reported-by", 1 },
		{ "Fixes", 0 }, { "Closes", 0 }, { "Link", 0 },
	};
	struct reply *r = s->r;
	struct line v;
	size_t i, k, off;

	l = trim(l);
	if (!trailer_line_split(l.p, l.n, &k, &off))
		return;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].key) == k && !strncasecmp(keys[i].key, l.p, k))
			break;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return;
	v.p = l.p + off;
	v.n = l.n - off;
	v = trim(v);
	if (!v.n)
		return;
	if (keys[i].person) {
		const char *sender = s->opts->sender;
		struct line a = trailer_address(v);

		if (!sender || strlen(sender) != a.n || strncasecmp(sender, a.p, a.n))
			return;
	}
	if (r->nr_trailers >= REPLY_MAX_TRAILERS) {
		if (!s->trailers_full++)
			problem(r, "more than %d trailers; the rest were ignored",
				REPLY_MAX_TRAILERS);
		return;
	}
	ALLOC_GROW(r->trailers, r->nr_trailers + 1, s->alloc_trailers);
	r->trailers[r->nr_trailers].key = xstrdup(keys[i].key);
	r->trailers[r->nr_trailers].value = xstrndup(v.p, v.n);
	r->trailers[r->nr_trailers].line = lineno;
	r->nr_trailers++;
}

/* ---- format=flowed ---- */

/* The unwrapped text and whether each of its lines is quoted: in flowed
 * text that is the quote depth, since a line of depth 0 may start with
 * '>' once its space-stuffing is gone. */
struct unwrapped {
	struct buf text;
	char *quoted;
	size_t nr, alloc;
};

static void flowed_emit(struct unwrapped *out, int depth, const struct buf *content)
{
	buf_addchars(&out->text, '>', (size_t)depth);
	if (depth)
		buf_addc(&out->text, ' ');
	buf_add(&out->text, content->data, content->len);
	buf_addc(&out->text, '\n');
	ALLOC_GROW(out->quoted, out->nr + 1, out->alloc);
	out->quoted[out->nr++] = depth > 0;
}

/* Unwraps RFC 3676 text into out (see reply.h). */
static void flowed_unwrap(const char *text, size_t len, int delsp, struct unwrapped *out)
{
	struct buf cur = BUF_INIT;
	size_t pos = 0;
	int open = 0, cur_depth = 0;

	while (pos < len) {
		const char *p = text + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		int depth = 0, flowed;

		pos += n + (nl ? 1 : 0);
		while ((size_t)depth < n && p[depth] == '>')
			depth++;
		p += depth;
		n -= (size_t)depth;
		if (n && p[0] == ' ') {
			p++;
			n--;
		}
		flowed = n && p[n - 1] == ' ' && !(n == 3 && !memcmp(p, "-- ", 3));
		if (open && depth != cur_depth) {
			flowed_emit(out, cur_depth, &cur);
			open = 0;
		}
		if (!open) {
			buf_reset(&cur);
			cur_depth = depth;
		}
		buf_add(&cur, p, n);
		if (flowed) {
			if (delsp)
				buf_truncate(&cur, cur.len - 1);
			open = 1;
		} else {
			flowed_emit(out, cur_depth, &cur);
			open = 0;
		}
	}
	if (open)
		flowed_emit(out, cur_depth, &cur);
	buf_release(&cur);
}

/* ---- the walk ---- */

/* Splits text into lines; quoted, when not NULL, says which are quoted
 * (flowed text), else the '>' rule does. */
static size_t split_lines(const char *text, size_t len, const char *quoted, size_t nr_quoted,
			  struct line **out)
{
	struct line *lines = NULL;
	size_t nr = 0, alloc = 0, pos = 0;

	while (pos < len) {
		const char *p = text + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;

		ALLOC_GROW(lines, nr + 1, alloc);
		lines[nr].p = p;
		lines[nr].n = n && p[n - 1] == '\r' ? n - 1 : n;
		lines[nr].quoted = quoted ? nr < nr_quoted && quoted[nr] : is_quoted(lines[nr]);
		nr++;
		pos += n + (nl ? 1 : 0);
	}
	*out = lines;
	return nr;
}

static void comment_add(struct state *s, const struct line *lines, size_t first, size_t last,
			struct line after)
{
	struct reply *r = s->r;
	struct buf text = BUF_INIT;
	size_t i;

	if (r->nr_comments >= REPLY_MAX_COMMENTS) {
		if (!s->comments_full++)
			problem(r, "more than %d comments; the rest were ignored",
				REPLY_MAX_COMMENTS);
		return;
	}
	for (i = first; i <= last; i++) {
		if (i > first)
			buf_addc(&text, '\n');
		buf_add(&text, lines[i].p, lines[i].n);
	}
	ALLOC_GROW(r->comments, r->nr_comments + 1, s->alloc_comments);
	r->comments[r->nr_comments].after_quote = xstrndup(after.p, after.n);
	r->comments[r->nr_comments].text = buf_detach(&text, NULL);
	r->comments[r->nr_comments].line = first + 1;
	r->nr_comments++;
}

struct reply *reply_analyse(const char *text, size_t len, const struct reply_options *opts)
{
	static const struct reply_options defaults = { 0, 0, NULL };
	struct reply *r = xcalloc(1, sizeof(*r));
	struct state s = { r, opts ? opts : &defaults, 0, 0, 0, 0, 0, 0 };
	struct unwrapped unwrapped = { BUF_INIT, NULL, 0, 0 };
	struct line *lines, last_quote = { "", 0, 1 }, comment_quote = { "", 0, 1 };
	size_t nr, i, first = 0, last = 0;
	int seen_quote = 0, in_comment = 0, in_signature = 0, outlook = 0;
	char *attr;

	if (s.opts->flowed) {
		flowed_unwrap(text, len, s.opts->delsp, &unwrapped);
		nr = split_lines(unwrapped.text.data, unwrapped.text.len, unwrapped.quoted,
				 unwrapped.nr, &lines);
	} else {
		nr = split_lines(text, len, NULL, 0, &lines);
	}
	attr = xcalloc(nr ? nr : 1, 1);
	find_attributions(lines, nr, attr);
	for (i = 0; i < nr; i++) {
		struct line l = lines[i];
		int ends_comment = 1;

		if (!outlook && !l.quoted &&
		    (is_outlook_marker(l) || is_outlook_block(lines, nr, i) ||
		     is_outlook_rule(lines, nr, i)))
			outlook = 1;
		if (outlook && !l.quoted && is_blank(l)) {
			/* blank lines are neither quoted nor new, here too */
		} else if (outlook || l.quoted) {
			r->quoted_lines++;
			seen_quote = 1;
			in_signature = 0;
			if (quote_has_text(l) || !last_quote.n)
				last_quote = l;
		} else if (in_signature || attr[i]) {
			/* neither new nor quoted */
		} else if (is_signature_separator(l)) {
			in_signature = 1;
		} else if (is_blank(l)) {
			ends_comment = 0;
		} else {
			ends_comment = 0;
			r->new_lines++;
			scan_command(&s, l, i + 1,
				     i + 1 < nr && !lines[i + 1].quoted && !outlook ? &lines[i + 1] : NULL);
			scan_trailer(&s, l, i + 1);
			if (seen_quote) {
				if (!in_comment) {
					in_comment = 1;
					first = i;
					comment_quote = last_quote;
				}
				last = i;
			}
		}
		if (ends_comment && in_comment) {
			comment_add(&s, lines, first, last, comment_quote);
			in_comment = 0;
		}
	}
	if (in_comment)
		comment_add(&s, lines, first, last, comment_quote);
	free(attr);
	free(lines);
	buf_release(&unwrapped.text);
	free(unwrapped.quoted);
	return r;
}

void reply_free(struct reply *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_comments; i++) {
		free(r->comments[i].after_quote);
		free(r->comments[i].text);
	}
	free(r->comments);
	for (i = 0; i < r->nr_commands; i++) {
		free(r->commands[i].name);
		free(r->commands[i].args);
	}
	free(r->commands);
	for (i = 0; i < r->nr_trailers; i++) {
		free(r->trailers[i].key);
		free(r->trailers[i].value);
	}
	free(r->trailers);
	problems_free(r->problems, r->nr_problems);
	free(r);
}
