/*
 * The web site's escapers (html.h says what each writes).  One walk over
 * the bytes decodes UTF-8 strictly (RFC 3629's table of well-formed
 * sequences, so overlong forms and surrogates never decode) and sorts each
 * character into: copied, entity, or visible escape.
 */
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "html.h"
#include "banned.h"

/*
 * The length of the well-formed UTF-8 sequence at s (at most n bytes) and
 * its code point in *cp, or 0 when s[0] does not start one.
 */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2;
		c = s[0] & 0x1F;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3;
		c = s[0] & 0x0F;
		if (s[0] == 0xE0)
			lo = 0xA0;	/* below: overlong */
		else if (s[0] == 0xED)
			hi = 0x9F;	/* above: surrogates */
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4;
		c = s[0] & 0x07;
		if (s[0] == 0xF0)
			lo = 0x90;	/* below: overlong */
		else if (s[0] == 0xF4)
			hi = 0x8F;	/* above: past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 1; i < len; i++) {
		if (i > 1 && (s[i] < 0x80 || s[i] > 0xBF))
			return 0;
		c = c << 6 | (s[i] & 0x3F);
	}
	*cp = c;
	return len;
}

/* Characters shown as "<U+XXXX>" rather than written (html.h lists them);
 * TAB and LF are the caller's choice. */
static int must_show(uint32_t c)
{
	if (c < 0x20 || (c >= 0x7F && c <= 0x9F))
		return 1;
	if (c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
	    (c >= 0x2066 && c <= 0x2069))
		return 1;
	return (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
}

/* The bytes that go out as they are without a look at them: printable
 * ASCII but & < > " ' (one load a byte, not five compares). */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* How many of the n bytes at p are plain, from the first. */
static size_t plain_run(const unsigned char *p, size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
	/* 16 at a time (a page's text is mostly plain: a report's page spent
	 * a twentieth of its making here, a byte at a time) */
	const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
	const __m128i quot = _mm_set1_epi8('"'), amp = _mm_set1_epi8('&');
	const __m128i apos = _mm_set1_epi8('\''), lt = _mm_set1_epi8('<');
	const __m128i gt = _mm_set1_epi8('>');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		/* signed: 0x80 to 0xFF are below 0x20 as the controls are */
		__m128i not_plain = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del));
		int mask;

		not_plain = _mm_or_si128(not_plain, _mm_cmpeq_epi8(v, quot));
		not_plain = _mm_or_si128(not_plain, _mm_cmpeq_epi8(v, amp));
		not_plain = _mm_or_si128(not_plain, _mm_cmpeq_epi8(v, apos));
		not_plain = _mm_or_si128(not_plain, _mm_cmpeq_epi8(v, lt));
		not_plain = _mm_or_si128(not_plain, _mm_cmpeq_epi8(v, gt));
		mask = _mm_movemask_epi8(not_plain);
		if (mask)
			return i + (size_t)__builtin_ctz((unsigned)mask);
	}
#endif
	while (i < n && plain[p[i]])
		i++;
	return i;
}

static void escape(struct buf *out, const char *s, size_t len, int keep_space)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, run = 0;
	uint32_t c;

	while (i < len) {
		const char *ent = NULL;

		/* printable ASCII that needs no entity, the bulk of a page's
		 * text, without decoding it */
		if (plain[p[i]]) {
			size_t j = i + 1 + plain_run(p + i + 1, len - i - 1);

			run += j - i;
			i = j;
			continue;
		}
		n = utf8_decode(p + i, len - i, &c);
		if (n == 1 && c >= 0x20 && c < 0x7F) {
			switch (c) {
			case '&': ent = "&amp;"; break;
			case '<': ent = "&lt;"; break;
			case '>': ent = "&gt;"; break;
			case '"': ent = "&quot;"; break;
			case '\'': ent = "&#39;"; break;
			default: i++; run++; continue;
			}
		} else if (n > 1 && !must_show(c)) {
			i += n;
			run += n;
			continue;
		} else if (n == 1 && keep_space && (c == '\t' || c == '\n')) {
			i++;
			run++;
			continue;
		}
		/* the characters copied as they are go out in one append */
		buf_add(out, s + i - run, run);
		run = 0;
		if (ent)
			buf_adds(out, ent);
		else if (n)
			buf_addf(out, "&lt;U+%04X&gt;", (unsigned)c);
		else
			buf_addf(out, "&lt;0x%02X&gt;", p[i]);
		i += n ? n : 1;
	}
	buf_add(out, s + i - run, run);
}

void html_text(struct buf *out, const char *s, size_t len)
{
	escape(out, s, len, 1);
}

void html_attr(struct buf *out, const char *s, size_t len)
{
	escape(out, s, len, 0);
}

void html_url_component(struct buf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, run = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char pct[3];

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			run++;
			continue;
		}
		buf_add(out, s + i - run, run);
		run = 0;
		pct[0] = '%';
		pct[1] = hex[c >> 4];
		pct[2] = hex[c & 15];
		buf_add(out, pct, 3);
	}
	buf_add(out, s + i - run, run);
}
