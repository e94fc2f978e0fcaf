/*
 * libFuzzer target for bot/html.h: html_text(), html_attr() and
 * html_url_component() on the input.  Besides crashes and undefined
 * behaviour it checks the contracts of html.h and aborts when one is
 * broken:
 *   - the output of the first two is well-formed UTF-8 whose every
 *     character is an XML 1.0 Char and none of the characters html.h
 *     shows instead (controls but TAB and LF in text, the bidi controls,
 *     the noncharacters);
 *   - it parses as XML character data and as an attribute value: no '<',
 *     '>' or quote, and each '&' starts one of &amp; &lt; &gt; &quot; &#39;;
 *   - the URL component holds only RFC 3986 unreserved characters and
 *     "%XX" with upper-case hex, and decodes back to the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define check(ok) check_at((ok), __LINE__)

static void check_at(int ok, int line)
{
	if (!ok) {
		fprintf(stderr, "fuzz-html.c:%d: contract broken\n", line);
		abort();
	}
}

/* The code point at s (well-formed UTF-8 checked by hand, apart from
 * html.c's decoder) and its length in *n. */
static uint32_t next_char(const unsigned char *s, size_t left, size_t *n)
{
	uint32_t c;
	size_t i;

	if (s[0] < 0x80) {
		*n = 1;
		return s[0];
	}
	if ((s[0] & 0xE0) == 0xC0)
		*n = 2, c = s[0] & 0x1F;
	else if ((s[0] & 0xF0) == 0xE0)
		*n = 3, c = s[0] & 0x0F;
	else if ((s[0] & 0xF8) == 0xF0)
		*n = 4, c = s[0] & 0x07;
	else
		check(0);
	check(*n <= left);
	for (i = 1; i < *n; i++) {
		check((s[i] & 0xC0) == 0x80);
		c = c << 6 | (s[i] & 0x3F);
	}
	/* shortest form, no surrogate, in range */
	check(*n == 2 ? c >= 0x80 : *n == 3 ? c >= 0x800 : *n == 4 ? c >= 0x10000 : 1);
	check(c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF));
	return c;
}

static void check_escaped(const struct buf *b, int keep_space)
{
	const unsigned char *s = (const unsigned char *)b->data;
	size_t i = 0, n;

	check(strlen(b->data) == b->len);
	while (i < b->len) {
		uint32_t c = next_char(s + i, b->len - i, &n);

		if (c < 0x20)
			check(keep_space && (c == '\t' || c == '\n'));
		check(c < 0x7F || c > 0x9F);
		check(c != 0x061C && c != 0x200E && c != 0x200F);
		check(c < 0x202A || c > 0x202E);
		check(c < 0x2066 || c > 0x2069);
		check(c < 0xFDD0 || c > 0xFDEF);
		check((c & 0xFFFE) != 0xFFFE);
		check(c != '<' && c != '>' && c != '"' && c != '\'');
		if (c == '&') {
			static const char *const ent[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };
			size_t k;
			int found = 0;

			for (k = 0; k < 5; k++)
				found |= !strncmp(b->data + i, ent[k], strlen(ent[k]));
			check(found);
		}
		i += n;
	}
}

static int hex_value(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void check_url(const struct buf *b, const uint8_t *data, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < b->len; i++, o++) {
		char c = b->data[i];

		check(o < size);
		if (c == '%') {
			int hi, lo;

			check(i + 2 < b->len);
			hi = hex_value(b->data[i + 1]);
			lo = hex_value(b->data[i + 2]);
			check(hi >= 0 && lo >= 0);
			check(data[o] == (uint8_t)(hi << 4 | lo));
			i += 2;
			continue;
		}
		check((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '.' || c == '_' || c == '~');
		check(data[o] == (uint8_t)c);
	}
	check(o == size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf b = BUF_INIT;

	html_text(&b, (const char *)data, size);
	check_escaped(&b, 1);
	buf_reset(&b);
	html_attr(&b, (const char *)data, size);
	check_escaped(&b, 0);
	buf_reset(&b);
	html_url_component(&b, (const char *)data, size);
	check_url(&b, data, size);
	buf_release(&b);
	return 0;
}
