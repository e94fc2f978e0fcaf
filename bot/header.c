#include <string.h>

#include "address.h"
#include "header.h"
#include "banned.h"

#define ENC_OVERHEAD 12		/* "=?UTF-8?Q?" and "?=" */
#define ENC_MIN_ROOM 30		/* fold rather than start an encoded-word in less */
#define QUOTE_MAX 80		/* bytes of input quoted in a message */

static const char hex[] = "0123456789ABCDEF";
static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int is_wsp(char c)
{
	return c == ' ' || c == '\t';
}

size_t header_utf8_char(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, i;

	if (!n)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] < 0xc2)
		return 0;
	len = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : p[0] < 0xf5 ? 4 : 0;
	if (!len || n < len)
		return 0;
	for (i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) ||	/* overlong */
	    (p[0] == 0xed && p[1] >= 0xa0) ||	/* surrogate */
	    (p[0] == 0xf0 && p[1] < 0x90) ||	/* overlong */
	    (p[0] == 0xf4 && p[1] >= 0x90))	/* past U+10FFFF */
		return 0;
	return len;
}

/* header_quote_input() of n bytes, which may include NUL. */
static void quote_bytes(struct buf *out, const char *s, size_t n)
{
	size_t i = 0;

	buf_addc(out, '"');
	while (i < n && i < QUOTE_MAX) {
		unsigned char c = (unsigned char)s[i];
		size_t l = header_utf8_char(s + i, n - i);

		if (c == '\r')
			buf_adds(out, "\\r");
		else if (c == '\n')
			buf_adds(out, "\\n");
		else if (c == '\t')
			buf_adds(out, "\\t");
		else if (c == '"' || c == '\\')
			buf_addf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f || !l || (c == 0xc2 && (unsigned char)s[i + 1] < 0xa0))
			buf_addf(out, "\\x%02x", c);	/* C0, DEL, invalid bytes and C1 controls */
		else {
			buf_add(out, s + i, l);
			i += l;
			continue;
		}
		i++;
	}
	if (i < n)
		buf_adds(out, "...");
	buf_addc(out, '"');
}

void header_quote_input(struct buf *out, const char *s)
{
	quote_bytes(out, s, strlen(s));
}

static int err_value(struct buf *err, const char *name, const char *value, const char *why)
{
	struct buf q = BUF_INIT;

	header_quote_input(&q, value);
	err_set(err, "header %s: value %s %s", name, q.data, why);
	buf_release(&q);
	return -1;
}

int header_check_bytes(const char *p, size_t len, struct buf *err)
{
	struct buf q = BUF_INIT;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] == '\r' || p[i] == '\n' || p[i] == '\0')
			break;
	if (i == len)
		return 0;
	quote_bytes(&q, p, len);
	err_set(err, "%s in text bound for a mail header: %s",
		p[i] == '\0' ? "NUL" : p[i] == '\n' ? "LF" : "CR", q.data);
	buf_release(&q);
	return -1;
}

int header_check_value(const char *value, struct buf *err)
{
	return header_check_bytes(value, strlen(value), err);
}

static int check_name(const char *name, struct buf *err)
{
	const char *p;

	for (p = name; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == ':')
			break;
	if (*p || p == name) {
		struct buf q = BUF_INIT;

		header_quote_input(&q, name);
		err_set(err, "invalid header name %s: expected printable ASCII without ':' or spaces",
			q.data);
		buf_release(&q);
		return -1;
	}
	return 0;
}

/* What every value must pass: no CR/LF, a sane size. */
static int check_value(const char *name, const char *value, struct buf *err)
{
	size_t len = strlen(value);

	if (strchr(value, '\r'))
		return err_value(err, name, value, "contains CR");
	if (strchr(value, '\n'))
		return err_value(err, name, value, "contains LF");
	if (len > HEADER_VALUE_MAX)
		return err_set(err, "header %s: value of %zu bytes is longer than %d",
			       name, len, HEADER_VALUE_MAX);
	return 0;
}

/*
 * The folding writer.  Appends to out, tracking where the current line
 * starts and whether it already holds a word (besides the field name),
 * since a fold before the first word would leave an empty line.
 */
struct fold {
	struct buf *out;
	size_t mark;	/* out->len before the field */
	size_t start;	/* offset of the current line */
	int words;	/* the current line holds a word */
	int failed;	/* an append passed out->limit */
};

static void fold_add(struct fold *f, const char *p, size_t n)
{
	if (buf_add(f->out, p, n))
		f->failed = 1;
}

static size_t fold_col(const struct fold *f)
{
	return f->out->len - f->start;
}

static void fold_break(struct fold *f)
{
	fold_add(f, "\n", 1);
	f->start = f->out->len;
	f->words = 0;
}

static void fold_begin(struct fold *f, struct buf *out, const char *name)
{
	f->out = out;
	f->mark = out->len;
	f->start = out->len;
	f->words = 0;
	f->failed = 0;
	fold_add(f, name, strlen(name));
	fold_add(f, ":", 1);
}

/* Appends white space ws and word w, folding before ws if the line would
 * pass HEADER_FOLD_WIDTH. */
static void fold_put(struct fold *f, const char *ws, size_t wslen, const char *w, size_t wlen)
{
	if (f->words && wslen && fold_col(f) + wslen + wlen > HEADER_FOLD_WIDTH)
		fold_break(f);
	fold_add(f, ws, wslen);
	fold_add(f, w, wlen);
	f->words = 1;
}

/* Appends s as words separated by its own white space runs; the first
 * word is preceded by ws. */
static void fold_plain(struct fold *f, const char *ws, size_t wslen, const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end) {
		const char *w = s;

		while (w < end && !is_wsp(*w))
			w++;
		if (w > s)
			fold_put(f, ws, wslen, s, w - s);
		else
			fold_add(f, ws, wslen);		/* white space at the very start */
		s = w;
		ws = s;
		while (s < end && is_wsp(*s))
			s++;
		wslen = s - ws;
		if (s == end && wslen)
			fold_add(f, ws, wslen);		/* trailing white space */
	}
}

/*
 * Ends the field: "\n", then checks the line lengths.  On failure out
 * is cut back to where the field began.
 */
static int fold_end(struct fold *f, const char *name, struct buf *err)
{
	size_t i, start, longest = 0;

	fold_add(f, "\n", 1);
	if (f->failed) {
		buf_truncate(f->out, f->mark);
		return err_set(err, "header %s: the message header passed its size limit", name);
	}
	start = f->mark;
	for (i = f->mark; i < f->out->len; i++) {
		if (f->out->data[i] == '\n') {
			if (i - start > longest)
				longest = i - start;
			start = i + 1;
		}
	}
	if (longest > HEADER_LINE_MAX) {
		buf_truncate(f->out, f->mark);
		return err_set(err, "header %s: a line of %zu octets that cannot be folded "
			       "(at most %d)", name, longest, HEADER_LINE_MAX);
	}
	return 0;
}

/* RFC 2047 encoding. */

/* Q may leave c as it is (§4.2 and, in a phrase, §5(3)). */
static int q_plain(unsigned char c, int phrase)
{
	if (phrase)
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		       (c >= '0' && c <= '9') || (c && strchr("!*+-/", c));
	return c > ' ' && c < 0x7f && c != '=' && c != '?' && c != '_';
}

static size_t q_cost(unsigned char c, int phrase)
{
	return q_plain(c, phrase) || c == ' ' ? 1 : 3;
}

/* One character, or one byte of invalid UTF-8 (encoded as it is). */
static size_t char_len(const char *s, size_t n)
{
	size_t l = header_utf8_char(s, n);

	return l ? l : 1;
}

static int shorter_in_b(const char *s, size_t n, int phrase)
{
	size_t q = 0, i;

	for (i = 0; i < n; i++)
		q += q_cost((unsigned char)s[i], phrase);
	return 4 * ((n + 2) / 3) < q;
}

static void add_b64(struct buf *out, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = p[i] << 16 | p[i + 1] << 8 | p[i + 2];

		buf_addc(out, b64[v >> 18]);
		buf_addc(out, b64[v >> 12 & 63]);
		buf_addc(out, b64[v >> 6 & 63]);
		buf_addc(out, b64[v & 63]);
	}
	if (i < n) {
		unsigned v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0);

		buf_addc(out, b64[v >> 18]);
		buf_addc(out, b64[v >> 12 & 63]);
		buf_addc(out, i + 1 < n ? b64[v >> 6 & 63] : '=');
		buf_addc(out, '=');
	}
}

/*
 * Appends one encoded-word holding the longest run of whole characters
 * at the start of s[0..n) that keeps it within max characters (at least
 * one character, whatever max is).  Returns the bytes used.
 */
static size_t encode_word(struct buf *out, const char *s, size_t n, int use_b, int phrase,
			  size_t max)
{
	size_t used = 0, cost = 0, i;

	while (used < n) {
		size_t l = char_len(s + used, n - used), c = cost;

		if (use_b)
			c = 4 * ((used + l + 2) / 3);
		else
			for (i = 0; i < l; i++)
				c += q_cost((unsigned char)s[used + i], phrase);
		if (used && ENC_OVERHEAD + c > max)
			break;
		used += l;
		cost = c;
	}
	buf_adds(out, use_b ? "=?UTF-8?B?" : "=?UTF-8?Q?");
	if (use_b) {
		add_b64(out, (const unsigned char *)s, used);
	} else {
		for (i = 0; i < used; i++) {
			unsigned char c = (unsigned char)s[i];

			if (c == ' ')
				buf_addc(out, '_');
			else if (q_plain(c, phrase))
				buf_addc(out, (char)c);
			else
				buf_addf(out, "=%c%c", hex[c >> 4], hex[c & 15]);
		}
	}
	buf_adds(out, "?=");
	return used;
}

void header_encode_phrase(struct buf *out, const char *s, size_t len)
{
	int use_b = shorter_in_b(s, len, 1);

	while (len) {
		size_t used = encode_word(out, s, len, use_b, 1, HEADER_WORD_MAX);

		s += used;
		len -= used;
		if (len)
			buf_addc(out, ' ');
	}
}

int header_needs_encoding(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < ' ' || c >= 0x7f || (c == '=' && i + 1 < len && s[i + 1] == '?'))
			return 1;
	}
	return 0;
}

/*
 * Appends s[0..n) as encoded-words, the first preceded by ws, the others
 * by one space.  Each word is as long as fits on the current line (at
 * most HEADER_WORD_MAX); when less than ENC_MIN_ROOM is left and the
 * rest does not fit, it folds first.
 */
static void fold_encoded(struct fold *f, const char *ws, size_t wslen, const char *s, size_t n,
			 int phrase)
{
	struct buf w = BUF_INIT;
	int use_b = shorter_in_b(s, n, phrase);

	while (n) {
		size_t col = fold_col(f) + wslen;
		size_t room = col < HEADER_FOLD_WIDTH ? HEADER_FOLD_WIDTH - col : 0;
		size_t used;

		buf_reset(&w);
		used = encode_word(&w, s, n, use_b, phrase, HEADER_WORD_MAX);
		if (w.len > room) {
			if (f->words && room < ENC_MIN_ROOM) {
				fold_break(f);
				room = wslen < HEADER_FOLD_WIDTH ? HEADER_FOLD_WIDTH - wslen : 0;
			}
			if (w.len > room) {
				buf_reset(&w);
				used = encode_word(&w, s, n, use_b, phrase, room);
			}
		}
		fold_add(f, ws, wslen);
		fold_add(f, w.data, w.len);
		f->words = 1;
		s += used;
		n -= used;
		ws = " ";
		wslen = 1;
	}
	buf_release(&w);
}

int header_add(struct buf *out, const char *name, const char *value, struct buf *err)
{
	struct fold f;
	const char *p;

	if (check_name(name, err) || check_value(name, value, err))
		return -1;
	for (p = value; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= 0x80)
			return err_value(err, name, value, "is not ASCII");
		if ((c < ' ' && c != '\t') || c == 0x7f)
			return err_value(err, name, value, "contains a control character");
	}
	fold_begin(&f, out, name);
	if (*value)
		fold_plain(&f, " ", 1, value, strlen(value));
	return fold_end(&f, name, err);
}

/* The length of the word at s (up to white space or the end). */
static size_t word_len(const char *s)
{
	size_t n = 0;

	while (s[n] && !is_wsp(s[n]))
		n++;
	return n;
}

static size_t wsp_len(const char *s)
{
	size_t n = 0;

	while (is_wsp(s[n]))
		n++;
	return n;
}

int header_add_text(struct buf *out, const char *name, const char *utf8, struct buf *err)
{
	struct fold f;
	const char *p = utf8, *ws;
	size_t n, wslen;

	if (check_name(name, err) || check_value(name, utf8, err))
		return -1;
	for (n = strlen(utf8); *p; p += header_utf8_char(p, n - (p - utf8)))
		if (!header_utf8_char(p, n - (p - utf8)))
			return err_value(err, name, utf8, "is not valid UTF-8");

	fold_begin(&f, out, name);
	if (*utf8)
		fold_add(&f, " ", 1);
	p = utf8;
	while (*p) {
		const char *w, *end;

		ws = p;
		wslen = wsp_len(p);
		p += wslen;
		if (!*p) {
			fold_add(&f, ws, wslen);	/* trailing white space */
			break;
		}
		w = p;
		n = word_len(w);
		p += n;
		if (!header_needs_encoding(w, n)) {
			fold_put(&f, ws, wslen, w, n);
			continue;
		}
		/* Adjacent words that need encoding become one sequence, the
		 * white space between them encoded too (RFC 2047 §5(1)). */
		for (end = p; *end; ) {
			const char *q = end + wsp_len(end);
			size_t l = word_len(q);

			if (!l || !header_needs_encoding(q, l))
				break;
			end = q + l;
		}
		fold_encoded(&f, ws, wslen, w, end - w, 0);
		p = end;
	}
	return fold_end(&f, name, err);
}

int header_add_addresses(struct buf *out, const char *name, const struct address *list,
			 size_t n, struct buf *err)
{
	struct buf unit = BUF_INIT;
	struct fold f;
	size_t i;

	if (check_name(name, err))
		return -1;
	if (!n)
		return err_set(err, "header %s: no addresses", name);
	for (i = 0; i < n; i++) {
		if (address_check(&list[i], err) < 0) {
			if (n > 1)
				err_prefix(err, "header %s: address %zu: ", name, i + 1);
			else
				err_prefix(err, "header %s: ", name);
			return -1;
		}
	}
	fold_begin(&f, out, name);
	for (i = 0; i < n; i++) {
		const struct address *a = &list[i];
		const char *comma = i + 1 < n ? "," : "";

		buf_reset(&unit);
		address_format(&unit, a);
		buf_adds(&unit, comma);
		/* Keep an address on one line when it fits on one. */
		if (f.words && fold_col(&f) + 1 + unit.len > HEADER_FOLD_WIDTH)
			fold_break(&f);
		if (a->name[0] && header_needs_encoding(a->name, strlen(a->name))) {
			buf_reset(&unit);
			buf_addf(&unit, "<%s>%s", a->email, comma);
			fold_encoded(&f, " ", 1, a->name, strlen(a->name), 1);
			fold_put(&f, " ", 1, unit.data, unit.len);
		} else {
			fold_plain(&f, " ", 1, unit.data, unit.len);
		}
	}
	buf_release(&unit);
	return fold_end(&f, name, err);
}
