#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "trailer.h"
#include "xalloc.h"
#include "banned.h"

/*
 * A port of git's trailer.c (find_end_of_log_message(),
 * find_trailer_block_start(), trailer_info_get(), parse_trailer(),
 * unfold_value()) and of ignored_log_message_bytes() of its commit.c, for
 * one configuration: no trailer.* keys, core.commentChar '#' and
 * trailer.separators ":".  git walks NUL-terminated strings; here every
 * read is bounded by n, the text's length up to its first NUL, which
 * comes to the same since git's reads stop at that NUL.
 */

#define COMMENT_CHAR '#'

/* git commit's scissors line, as `git commit -v` writes it.  Its LF is
 * part of it: a CRLF one is no scissors line. */
static const char cut_line[] = "# ------------------------ >8 ------------------------\n";

#define PREFIX(s) { s, sizeof(s) - 1 }
static const struct {
	const char *s;
	size_t n;
} git_generated_prefixes[] = {
	PREFIX("Signed-off-by: "),
	PREFIX("(cherry picked from commit "),
};

/* One entry of the trailer block: a line and its continuation lines. */
struct trailer_span {
	size_t start, end;	/* [start, end) of the text, the last LF included */
	size_t key_end;		/* the separator's offset; 0 for a line that is
				   not a trailer */
	size_t key_off, value_off;	/* in l->text, once copied */
};

/* git's isspace() and isalnum(): ASCII only, whatever the locale. */
static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int starts_with(const char *s, size_t n, size_t pos, const char *prefix, size_t plen)
{
	return n - pos >= plen && !memcmp(s + pos, prefix, plen);
}

#define STARTS_WITH(s, n, pos, lit) starts_with((s), (n), (pos), (lit), sizeof(lit) - 1)

/* The start of the line after the one at pos (n at the end). */
static size_t next_line(const char *s, size_t n, size_t pos)
{
	const char *nl = memchr(s + pos, '\n', n - pos);

	return nl ? (size_t)(nl - s) + 1 : n;
}

/* The start of the last line of s[0..len), -1 when len is 0.  A final LF
 * belongs to the last line. */
static ssize_t last_line(const char *s, size_t len)
{
	const char *nl;

	if (len == 0)
		return -1;
	if (len == 1)
		return 0;
	nl = memrchr(s, '\n', len - 1);
	return nl ? nl - s + 1 : 0;
}

/* Empty or white space only, up to its LF or the end. */
static int is_blank_line(const char *s, size_t n, size_t pos)
{
	while (pos < n && s[pos] != '\n' && is_space(s[pos]))
		pos++;
	return pos == n || s[pos] == '\n';
}

/*
 * git's find_separator(): the offset of ':' from pos when the line there
 * is "<key><optional blanks>:...", where the key is letters, digits and
 * '-'; 0 when ':' starts the line; -1 when the line is not of that form.
 */
static ssize_t find_separator(const char *s, size_t n, size_t pos)
{
	int whitespace_found = 0;
	size_t c;

	for (c = pos; c < n; c++) {
		if (s[c] == ':')
			return (ssize_t)(c - pos);
		if (!whitespace_found && (is_alnum(s[c]) || s[c] == '-'))
			continue;
		if (c != pos && (s[c] == ' ' || s[c] == '\t')) {
			whitespace_found = 1;
			continue;
		}
		break;
	}
	return -1;
}

/* Where the scissors line starts in s[0..len), len when there is none.
 * One that starts before len ends before it: len is the start of a line,
 * and the scissors line ends with its LF. */
static size_t scissors(const char *s, size_t n, size_t len)
{
	size_t pos = 0;
	const char *p;

	while (pos < len && (p = memchr(s + pos, COMMENT_CHAR, len - pos))) {
		pos = (size_t)(p - s);
		if ((!pos || s[pos - 1] == '\n') && starts_with(s, n, pos, cut_line, sizeof(cut_line) - 1))
			return pos;
		pos++;
	}
	return len;
}

/*
 * ignored_log_message_bytes(): how many bytes at the end of s[0..len) are
 * git commit's leftovers: a run of comment lines, empty lines and
 * "Conflicts:" blocks (their paths on tab-indented lines), or everything
 * from the scissors line on.  The scissors line is looked for only before
 * len, as git 2.44 does.
 */
static size_t ignored_bytes(const char *s, size_t n, size_t len)
{
	size_t boc = 0, bol = 0, cutoff = scissors(s, n, len);
	ssize_t last;
	int in_old_conflicts_block = 0;

	/* the usual message ends with a line that closes any run of
	 * leftovers: then only the scissors count, and the lines above need
	 * no reading */
	last = last_line(s, cutoff);
	if (last < 0 || (s[last] != COMMENT_CHAR && s[last] != '\n' && s[last] != 'C' &&
			 s[last] != '\t'))
		return len - cutoff;
	while (bol < cutoff) {
		const char *nl = memchr(s + bol, '\n', len - bol);
		size_t next = nl ? (size_t)(nl - s) + 1 : len;

		if (s[bol] == COMMENT_CHAR || s[bol] == '\n') {
			/* boc 0 means "none": git's quirk, kept (a run
			 * starting at offset 0 is seen from its second line) */
			if (!boc)
				boc = bol;
		} else if (STARTS_WITH(s, n, bol, "Conflicts:\n")) {
			in_old_conflicts_block = 1;
			if (!boc)
				boc = bol;
		} else if (in_old_conflicts_block && s[bol] == '\t') {
			/* a path of the conflicts block */
		} else if (boc) {
			boc = 0;
			in_old_conflicts_block = 0;
		}
		bol = next;
	}
	return boc ? len - boc : len - cutoff;
}

/* find_end_of_log_message(): where the message proper ends. */
static size_t end_of_log_message(const char *s, size_t n, enum trailer_mode mode)
{
	size_t end = n, pos;

	if (mode == TRAILER_MAIL) {
		for (pos = 0; pos < n; pos = next_line(s, n, pos)) {
			if (STARTS_WITH(s, n, pos, "---") && pos + 3 < n && is_space(s[pos + 3])) {
				end = pos;
				break;
			}
		}
	}
	return end - ignored_bytes(s, n, end);
}

/*
 * find_trailer_block_start(): the start of the trailer block in
 * s[0..len), len when there is none.  Read backwards from the end: the
 * block is the run of lines above len up to a blank line, and it counts
 * when all its lines are trailers, or a quarter of them with a
 * git-generated one.
 */
static size_t trailer_block_start(const char *s, size_t n, size_t len)
{
	size_t pos, end_of_title;
	ssize_t l;
	int only_spaces = 1, recognized_prefix = 0;
	size_t trailer_lines = 0, non_trailer_lines = 0;
	/* continuation lines seen below: a trailer above makes them its
	 * own, anything else makes them non-trailer lines */
	size_t possible_continuation_lines = 0;

	/* the first paragraph is the title and cannot be trailers */
	for (pos = 0; pos < len; pos = next_line(s, n, pos)) {
		if (s[pos] == COMMENT_CHAR)
			continue;
		if (is_blank_line(s, n, pos))
			break;
	}
	end_of_title = pos;

	for (l = last_line(s, len); l >= 0 && (size_t)l >= end_of_title; l = last_line(s, (size_t)l)) {
		size_t bol = (size_t)l, i;
		ssize_t separator_pos;
		int generated = 0;

		if (s[bol] == COMMENT_CHAR) {
			non_trailer_lines += possible_continuation_lines;
			possible_continuation_lines = 0;
			continue;
		}
		if (is_blank_line(s, n, bol)) {
			if (only_spaces)
				continue;
			non_trailer_lines += possible_continuation_lines;
			if (recognized_prefix && trailer_lines * 3 >= non_trailer_lines)
				return next_line(s, n, bol);
			if (trailer_lines && !non_trailer_lines)
				return next_line(s, n, bol);
			return len;
		}
		only_spaces = 0;

		for (i = 0; i < sizeof(git_generated_prefixes) / sizeof(git_generated_prefixes[0]); i++) {
			if (starts_with(s, n, bol, git_generated_prefixes[i].s,
					git_generated_prefixes[i].n)) {
				generated = 1;
				break;
			}
		}
		if (generated) {
			trailer_lines++;
			possible_continuation_lines = 0;
			recognized_prefix = 1;
			continue;
		}

		separator_pos = find_separator(s, n, bol);
		if (separator_pos >= 1 && !is_space(s[bol])) {
			trailer_lines++;
			possible_continuation_lines = 0;
		} else if (is_space(s[bol])) {
			possible_continuation_lines++;
		} else {
			non_trailer_lines++;
			non_trailer_lines += possible_continuation_lines;
			possible_continuation_lines = 0;
		}
	}
	return len;
}

/* The block's lines as entries, continuation lines joined to the
 * trailer above them (trailer_info_get()). */
static void split_block(struct trailer_list *l, const char *s, size_t n, size_t start, size_t end,
			size_t *nr_spans)
{
	size_t pos, nr = 0;
	int last_is_trailer = 0;

	for (pos = start; pos < end;) {
		const char *nl = memchr(s + pos, '\n', end - pos);
		size_t next = nl ? (size_t)(nl - s) + 1 : end;
		ssize_t sep;

		if (last_is_trailer && is_space(s[pos])) {
			l->spans[nr - 1].end = next;
			pos = next;
			continue;
		}
		ALLOC_GROW(l->spans, nr + 1, l->spans_alloc);
		sep = find_separator(s, n, pos);
		l->spans[nr].start = pos;
		l->spans[nr].end = next;
		l->spans[nr].key_end = sep >= 1 ? pos + (size_t)sep : 0;
		last_is_trailer = sep >= 1;
		nr++;
		pos = next;
	}
	*nr_spans = nr;
}

/* Appends s[a..b) trimmed, each LF and the white space after it as one
 * space (unfold_value(); its second trim has nothing left to do: the
 * value starts and ends with a character that is not white space). */
static void add_unfolded(struct buf *out, const char *s, size_t a, size_t b)
{
	while (a < b && is_space(s[a]))
		a++;
	while (b > a && is_space(s[b - 1]))
		b--;
	while (a < b) {
		const char *nl = memchr(s + a, '\n', b - a);

		if (!nl) {
			buf_add(out, s + a, b - a);
			break;
		}
		buf_add(out, s + a, (size_t)(nl - s) - a);
		a = (size_t)(nl - s) + 1;
		while (a < b && is_space(s[a]))
			a++;
		buf_addc(out, ' ');
	}
}

int trailer_line_split(const char *line, size_t len, size_t *key_len, size_t *value_off)
{
	ssize_t sep = find_separator(line, len, 0);
	size_t k;

	if (sep < 1)
		return 0;
	k = (size_t)sep;
	while (k && is_space(line[k - 1]))
		k--;
	*key_len = k;
	*value_off = (size_t)sep + 1;
	return 1;
}

void trailer_list_init(struct trailer_list *l)
{
	memset(l, 0, sizeof(*l));
	buf_init(&l->text);
}

void trailer_list_release(struct trailer_list *l)
{
	free(l->v);
	free(l->spans);
	buf_release(&l->text);
	trailer_list_init(l);
}

/* The blank lines at the start of a commit message, as git's pretty.c
 * skip_blank_lines() passes over them before reading trailers. */
static size_t skip_blank_lines(const char *s, size_t n)
{
	size_t pos = 0;

	while (pos < n && is_blank_line(s, n, pos))
		pos = next_line(s, n, pos);
	return pos;
}

void trailer_parse(struct trailer_list *l, const char *text, size_t len, enum trailer_mode mode)
{
	const char *nul = memchr(text, '\0', len);
	size_t n = nul ? (size_t)(nul - text) : len;
	size_t end, start, nr_spans, i, nr = 0;

	l->nr = 0;
	buf_reset(&l->text);
	if (mode == TRAILER_COMMIT) {
		size_t skip = skip_blank_lines(text, n);

		text += skip;
		n -= skip;
	}
	end = end_of_log_message(text, n, mode);
	start = trailer_block_start(text, n, end);
	if (start >= end)
		return;
	split_block(l, text, n, start, end, &nr_spans);
	/* what is copied is at most the block, plus two NULs a trailer: one
	 * allocation for the whole list */
	buf_grow(&l->text, end - start + 2 * nr_spans + 1);
	for (i = 0; i < nr_spans; i++) {
		struct trailer_span *sp = &l->spans[i];
		size_t a = sp->start, b = sp->key_end;

		if (!b)
			continue;	/* a comment, a "(cherry picked ...)" line, text */
		while (b > a && is_space(text[b - 1]))
			b--;
		sp->key_off = l->text.len;
		buf_add(&l->text, text + a, b - a);
		buf_addc(&l->text, '\0');
		sp->value_off = l->text.len;
		add_unfolded(&l->text, text, sp->key_end + 1, sp->end);
		buf_addc(&l->text, '\0');
		l->spans[nr++] = *sp;
	}
	ALLOC_GROW(l->v, nr, l->alloc);
	for (i = 0; i < nr; i++) {
		l->v[i].key = l->text.data + l->spans[i].key_off;
		l->v[i].value = l->text.data + l->spans[i].value_off;
	}
	l->nr = nr;
}
