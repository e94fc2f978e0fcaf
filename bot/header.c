#include <string.h>
#include <strings.h>

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

/* RFC 2047 decoding. */

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

static int decode_q(const char *s, size_t n, struct buf *raw)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '_') {
			buf_addc(raw, ' ');
		} else if (s[i] == '=') {
			int hi, lo;

			if (i + 2 >= n || (hi = hex_value(s[i + 1])) < 0 ||
			    (lo = hex_value(s[i + 2])) < 0)
				return -1;
			buf_addc(raw, (char)(hi << 4 | lo));
			i += 2;
		} else {
			buf_addc(raw, s[i]);
		}
	}
	return 0;
}

/* Base64 with or without the final padding. */
static int decode_b(const char *s, size_t n, struct buf *raw)
{
	unsigned v = 0;
	size_t i, bits = 0, pad = 0;

	for (i = 0; i < n; i++) {
		int d;

		if (s[i] == '=') {
			pad++;
			continue;
		}
		if (pad || (d = b64_value(s[i])) < 0)
			return -1;
		v = (v << 6 | (unsigned)d) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf_addc(raw, (char)(v >> bits & 0xff));
		}
	}
	/* Leftover bits: 0 (complete), 2 or 4 (padding cut); 6 is a broken tail. */
	if (bits >= 6 || pad > 2 || (pad && (n % 4)))
		return -1;
	return 0;
}

static void add_utf8(struct buf *out, unsigned cp)
{
	if (cp < 0x80) {
		buf_addc(out, (char)cp);
	} else if (cp < 0x800) {
		buf_addc(out, (char)(0xc0 | cp >> 6));
		buf_addc(out, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(out, (char)(0xe0 | cp >> 12));
		buf_addc(out, (char)(0x80 | (cp >> 6 & 0x3f)));
		buf_addc(out, (char)(0x80 | (cp & 0x3f)));
	}
}

/* Windows-1252 0x80..0x9f; 0 where it has no character. */
static const unsigned short cp1252[32] = {
	0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
	0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
	0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
	0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
};

enum charset { CS_UNKNOWN, CS_UTF8, CS_ASCII, CS_LATIN1, CS_CP1252 };

static int name_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && !strncasecmp(s, name, n);
}

static enum charset charset_of(const char *s, size_t n)
{
	static const struct { const char *name; enum charset cs; } names[] = {
		{ "utf-8", CS_UTF8 }, { "utf8", CS_UTF8 },
		{ "us-ascii", CS_ASCII }, { "ascii", CS_ASCII },
		{ "iso-8859-1", CS_LATIN1 }, { "iso8859-1", CS_LATIN1 },
		{ "iso_8859-1", CS_LATIN1 }, { "latin1", CS_LATIN1 }, { "l1", CS_LATIN1 },
		{ "windows-1252", CS_CP1252 }, { "cp1252", CS_CP1252 },
	};
	const char *star = memchr(s, '*', n);
	size_t i;

	if (star)
		n = star - s;	/* RFC 2231 language: "UTF-8*en" */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name_is(s, n, names[i].name))
			return names[i].cs;
	return CS_UNKNOWN;
}

/* raw in charset cs to UTF-8 in out; -1 if raw is not valid in it. */
static int to_utf8(enum charset cs, const struct buf *raw, struct buf *out)
{
	size_t i, l;

	if (memchr(raw->data, '\0', raw->len))
		return -1;
	for (i = 0; i < raw->len; i++) {
		unsigned char c = (unsigned char)raw->data[i];

		switch (cs) {
		case CS_UTF8:
			if (!(l = header_utf8_char(raw->data + i, raw->len - i)))
				return -1;
			buf_add(out, raw->data + i, l);
			i += l - 1;
			break;
		case CS_ASCII:
			if (c >= 0x80)
				return -1;
			buf_addc(out, (char)c);
			break;
		case CS_CP1252:
			if (c >= 0x80 && c < 0xa0) {
				if (!cp1252[c - 0x80])
					return -1;
				add_utf8(out, cp1252[c - 0x80]);
			} else {
				add_utf8(out, c);	/* the rest is Latin-1 */
			}
			break;
		case CS_LATIN1:
			add_utf8(out, c);
			break;
		case CS_UNKNOWN:
			return -1;
		}
	}
	return 0;
}

/*
 * Decodes the encoded-word at s ("=?charset?E?text?=") into out.
 * Returns its length, or 0 (out unchanged) if it is not one we can decode.
 */
static size_t decode_word(const char *s, struct buf *out)
{
	const char *cs = s + 2, *enc, *text, *p;
	struct buf raw = BUF_INIT;
	enum charset charset;
	int bad;

	for (p = cs; *p && *p != '?'; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return 0;
	if (*p != '?' || p == cs || p - cs > 64)
		return 0;
	enc = p + 1;
	if (!*enc || !strchr("QqBb", *enc) || enc[1] != '?')
		return 0;
	text = enc + 2;
	for (p = text; *p && *p != '?'; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return 0;
	if (p[0] != '?' || p[1] != '=')
		return 0;
	charset = charset_of(cs, enc - 1 - cs);
	if (charset == CS_UNKNOWN)
		return 0;
	if (*enc == 'Q' || *enc == 'q')
		bad = decode_q(text, p - text, &raw);
	else
		bad = decode_b(text, p - text, &raw);
	if (!bad) {
		size_t mark = out->len;

		if (to_utf8(charset, &raw, out)) {
			buf_truncate(out, mark);
			bad = -1;
		}
	}
	buf_release(&raw);
	return bad ? 0 : (size_t)(p + 2 - s);
}

int header_decode_words(const char *in, struct buf *out)
{
	struct buf word = BUF_INIT;
	const char *p = in;
	size_t after = (size_t)-1;	/* out->len after the last decoded word, if only
					 * white space came since */
	int count = 0, failed = 0;

	while (*p) {
		size_t used;

		if (*p == '\r' || *p == '\n') {
			p++;
			continue;
		}
		if (p[0] == '=' && p[1] == '?') {
			buf_reset(&word);
			if ((used = decode_word(p, &word))) {
				if (after != (size_t)-1)
					buf_truncate(out, after);
				if (buf_add(out, word.data, word.len))
					failed = 1;
				after = out->len;
				count++;
				p += used;
				continue;
			}
		}
		if (!is_wsp(*p))
			after = (size_t)-1;
		if (buf_addc(out, *p++))
			failed = 1;
	}
	buf_release(&word);
	return failed ? -1 : count;
}
