#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "html.h"
#include "every-byte.h"

struct esc_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	const char *text;	/* html_text()'s output */
	const char *attr;	/* html_attr()'s output, NULL: the same as text */
};

#define S(lit) lit, sizeof(lit) - 1

static void run_cases(const struct esc_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct buf t = BUF_INIT, a = BUF_INIT;
		size_t len = c[i].len ? c[i].len : strlen(c[i].in);

		html_text(&t, c[i].in, len);
		html_attr(&a, c[i].in, len);
		if (strcmp(t.data, c[i].text))
			fail_msg("case %zu text: got \"%s\", want \"%s\"", i, t.data, c[i].text);
		if (strcmp(a.data, c[i].attr ? c[i].attr : c[i].text))
			fail_msg("case %zu attr: got \"%s\", want \"%s\"", i, a.data,
				 c[i].attr ? c[i].attr : c[i].text);
		buf_release(&t);
		buf_release(&a);
	}
}

static void markup_becomes_entities(void **state)
{
	static const struct esc_case cases[] = {
		{ S(""), "", NULL },
		{ S("plain text 1.5%"), "plain text 1.5%", NULL },
		{ S("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;", NULL },
		{ S("a & b"), "a &amp; b", NULL },
		{ S("\"q\" 'x'"), "&quot;q&quot; &#39;x&#39;", NULL },
		{ S("\" onmouseover=\"x"), "&quot; onmouseover=&quot;x", NULL },
		{ S("javascript:alert(1)"), "javascript:alert(1)", NULL },
		{ S("/../../etc"), "/../../etc", NULL },
		{ S("&amp;"), "&amp;amp;", NULL },
		{ S("]]>"), "]]&gt;", NULL },
	};

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void controls_show_as_visible_escapes(void **state)
{
	static const struct esc_case cases[] = {
		/* TAB and LF: kept in text, shown in attributes */
		{ S("a\tb\nc"), "a\tb\nc", "a&lt;U+0009&gt;b&lt;U+000A&gt;c" },
		{ S("a\r\nb"), "a&lt;U+000D&gt;\nb", "a&lt;U+000D&gt;&lt;U+000A&gt;b" },
		{ S("\x01"), "&lt;U+0001&gt;", NULL },
		{ S("\x1b[31m"), "&lt;U+001B&gt;[31m", NULL },
		{ S("\x1f"), "&lt;U+001F&gt;", NULL },
		{ S(" "), " ", NULL },			/* U+0020: the first one kept */
		{ S("~\x7f"), "~&lt;U+007F&gt;", NULL },	/* U+007E kept, DEL not */
		{ S("a\0b"), "a&lt;U+0000&gt;b", NULL },
		/* C1 controls, both ends, and the characters beside them */
		{ S("\xc2\x80"), "&lt;U+0080&gt;", NULL },
		{ S("\xc2\x85"), "&lt;U+0085&gt;", NULL },
		{ S("\xc2\x9f"), "&lt;U+009F&gt;", NULL },
		{ S("\xc2\xa0"), "\xc2\xa0", NULL },	/* U+00A0 kept */
	};

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* Every bidirectional control, and the characters on either side of each
 * range, which are kept. */
static void bidi_controls_show(void **state)
{
	static const unsigned shown[] = {
		0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
		0x2066, 0x2067, 0x2068, 0x2069,
	};
	static const unsigned kept[] = {
		0x061B, 0x061D, 0x200D, 0x2010, 0x2029, 0x202F, 0x2065, 0x206A, 0x00E9, 0x4E2D,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(shown) / sizeof(shown[0]) + sizeof(kept) / sizeof(kept[0]); i++) {
		int show = i < sizeof(shown) / sizeof(shown[0]);
		unsigned c = show ? shown[i] : kept[i - sizeof(shown) / sizeof(shown[0])];
		char in[8], want[32];
		size_t n;
		struct buf t = BUF_INIT, a = BUF_INIT;

		if (c < 0x800) {
			in[0] = (char)(0xC0 | c >> 6);
			in[1] = (char)(0x80 | (c & 0x3F));
			n = 2;
		} else {
			in[0] = (char)(0xE0 | c >> 12);
			in[1] = (char)(0x80 | (c >> 6 & 0x3F));
			in[2] = (char)(0x80 | (c & 0x3F));
			n = 3;
		}
		in[n] = 'x';
		html_text(&t, in, n + 1);
		html_attr(&a, in, n + 1);
		if (show)
			snprintf(want, sizeof(want), "&lt;U+%04X&gt;x", c);
		else
			memcpy(want, in, n + 1), want[n + 1] = '\0';
		if (strcmp(t.data, want) || strcmp(a.data, want))
			fail_msg("U+%04X: got \"%s\" / \"%s\", want \"%s\"", c, t.data, a.data, want);
		buf_release(&t);
		buf_release(&a);
	}
}

static void noncharacters_show(void **state)
{
	static const struct esc_case cases[] = {
		{ S("\xef\xbf\xbe"), "&lt;U+FFFE&gt;", NULL },
		{ S("\xef\xbf\xbf"), "&lt;U+FFFF&gt;", NULL },
		{ S("\xef\xbf\xbd"), "\xef\xbf\xbd", NULL },		/* U+FFFD kept */
		{ S("\xef\xb7\x90"), "&lt;U+FDD0&gt;", NULL },
		{ S("\xef\xb7\xaf"), "&lt;U+FDEF&gt;", NULL },
		{ S("\xef\xb7\x8f"), "\xef\xb7\x8f", NULL },		/* U+FDCF kept */
		{ S("\xef\xb7\xb0"), "\xef\xb7\xb0", NULL },		/* U+FDF0 kept */
		{ S("\xf0\x9f\xbf\xbe"), "&lt;U+1FFFE&gt;", NULL },
		{ S("\xf4\x8f\xbf\xbf"), "&lt;U+10FFFF&gt;", NULL },
	};

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void wellformed_utf8_kept(void **state)
{
	static const struct esc_case cases[] = {
		{ S("caf\xc3\xa9"), "caf\xc3\xa9", NULL },
		{ S("\xc2\xb1 5%"), "\xc2\xb1 5%", NULL },
		{ S("\xe2\x82\xac"), "\xe2\x82\xac", NULL },			/* U+20AC */
		{ S("\xed\x9f\xbf"), "\xed\x9f\xbf", NULL },			/* U+D7FF */
		{ S("\xee\x80\x80"), "\xee\x80\x80", NULL },			/* U+E000 */
		{ S("\xf0\x90\x80\x80"), "\xf0\x90\x80\x80", NULL },		/* U+10000 */
		{ S("\xf0\x9f\x98\x80!"), "\xf0\x9f\x98\x80!", NULL },		/* U+1F600 */
		{ S("\xf4\x8f\xbf\xbd"), "\xf4\x8f\xbf\xbd", NULL },		/* U+10FFFD */
	};

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void invalid_bytes_show_one_by_one(void **state)
{
	static const struct esc_case cases[] = {
		{ S("\xff"), "&lt;0xFF&gt;", NULL },
		{ S("\xfe\xfe"), "&lt;0xFE&gt;&lt;0xFE&gt;", NULL },
		{ S("\x80x"), "&lt;0x80&gt;x", NULL },			/* stray continuation */
		{ S("\xc3"), "&lt;0xC3&gt;", NULL },			/* truncated at the end */
		{ S("\xc3("), "&lt;0xC3&gt;(", NULL },			/* bad continuation */
		{ S("\xe2\x82"), "&lt;0xE2&gt;&lt;0x82&gt;", NULL },
		{ S("\xe2\x82<"), "&lt;0xE2&gt;&lt;0x82&gt;&lt;", NULL },
		{ S("\xf0\x9f\x98"), "&lt;0xF0&gt;&lt;0x9F&gt;&lt;0x98&gt;", NULL },
		/* overlong forms, of '<' and '/' among them */
		{ S("\xc0\xbc"), "&lt;0xC0&gt;&lt;0xBC&gt;", NULL },
		{ S("\xc1\xbf"), "&lt;0xC1&gt;&lt;0xBF&gt;", NULL },
		{ S("\xe0\x80\xaf"), "&lt;0xE0&gt;&lt;0x80&gt;&lt;0xAF&gt;", NULL },
		{ S("\xe0\x9f\xbf"), "&lt;0xE0&gt;&lt;0x9F&gt;&lt;0xBF&gt;", NULL },
		{ S("\xf0\x8f\xbf\xbf"), "&lt;0xF0&gt;&lt;0x8F&gt;&lt;0xBF&gt;&lt;0xBF&gt;", NULL },
		{ S("\xe0\xa0\x80"), "\xe0\xa0\x80", NULL },		/* U+0800: the first 3-byte */
		{ S("\xc2\xa1"), "\xc2\xa1", NULL },			/* U+00A1 */
		/* surrogates, both ends */
		{ S("\xed\xa0\x80"), "&lt;0xED&gt;&lt;0xA0&gt;&lt;0x80&gt;", NULL },
		{ S("\xed\xbf\xbf"), "&lt;0xED&gt;&lt;0xBF&gt;&lt;0xBF&gt;", NULL },
		/* above U+10FFFF */
		{ S("\xf4\x90\x80\x80"), "&lt;0xF4&gt;&lt;0x90&gt;&lt;0x80&gt;&lt;0x80&gt;", NULL },
		{ S("\xf5\x80\x80\x80"), "&lt;0xF5&gt;&lt;0x80&gt;&lt;0x80&gt;&lt;0x80&gt;", NULL },
		/* a bad byte inside a 4-byte sequence: the rest decodes again */
		{ S("\xf0\x9f\x41"), "&lt;0xF0&gt;&lt;0x9F&gt;A", NULL },
		/* a C1 control in Latin-1 (not UTF-8) */
		{ S("a\x85z"), "a&lt;0x85&gt;z", NULL },
	};

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void appends(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	buf_adds(&b, "<p>");
	html_text(&b, "a<b", 3);
	buf_adds(&b, "</p>");
	html_text(&b, "x<y", 1);	/* len, not the NUL, ends the input */
	assert_string_equal(b.data, "<p>a&lt;b</p>x");
	buf_release(&b);
}

static void url_components(void **state)
{
	static const struct { const char *in; size_t len; const char *want; } cases[] = {
		{ S("AZaz09-._~"), "AZaz09-._~" },
		{ S("<20240101.1234@example.org>"), "%3C20240101.1234%40example.org%3E" },
		{ S("a/b?c#d:e%f&g=h"), "a%2Fb%3Fc%23d%3Ae%25f%26g%3Dh" },
		{ S("\" ' <>"), "%22%20%27%20%3C%3E" },
		{ S("javascript:x"), "javascript%3Ax" },
		{ S("+!$()*,;[]@"), "%2B%21%24%28%29%2A%2C%3B%5B%5D%40" },
		{ S("\xe2\x80\xae\xff\x7f"), "%E2%80%AE%FF%7F" },
		{ S("a\0b"), "a%00b" },
		{ S(""), "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b = BUF_INIT;

		html_url_component(&b, cases[i].in, cases[i].len);
		assert_string_equal(b.data, cases[i].want);
		buf_release(&b);
	}
}

/* Every byte value alone, and every byte after a lead byte: the output
 * never holds a raw control, a bidi control or a character reference
 * other than the five entities. */
static void every_byte_is_safe(void **state)
{
	unsigned i, j;

	(void)state;
	for (i = 0; i < 256; i++) {
		for (j = 0; j < 256; j++) {
			char in[3] = { (char)i, (char)j, (char)0x80 };
			struct buf b = BUF_INIT;
			size_t k;

			html_attr(&b, in, 3);
			for (k = 0; k < b.len; k++) {
				unsigned char c = (unsigned char)b.data[k];

				assert_true(c >= 0x20 && c != 0x7F);
				if (c == '&')
					assert_true(!strncmp(b.data + k, "&amp;", 5) ||
						    !strncmp(b.data + k, "&lt;", 4) ||
						    !strncmp(b.data + k, "&gt;", 4) ||
						    !strncmp(b.data + k, "&quot;", 6) ||
						    !strncmp(b.data + k, "&#39;", 5));
				assert_true(c != '<' && c != '>' && c != '"' && c != '\'');
				/* C1 controls as UTF-8 */
				assert_false(c == 0xC2 && k + 1 < b.len &&
					     (unsigned char)b.data[k + 1] < 0xA0);
			}
			assert_null(strstr(b.data, "\xe2\x80\xae"));
			buf_release(&b);
		}
	}
}

/* Each byte at each place of a long plain text (the escaper looks at
 * plain text 16 bytes at a time). */
static void every_byte_anywhere_in_plain_text(void **state)
{
	(void)state;
	every_byte_anywhere(html_text, 0, 0);
	every_byte_anywhere(html_attr, 0, 0);
}

/* HTML_ESCAPE_MAX bounds what one byte becomes, whatever it is part of
 * (template.c escapes straight into a capped buffer on its word). */
static void escape_growth_is_bounded(void **state)
{
	uint32_t cp;
	unsigned c;

	(void)state;
	for (c = 0; c < 256; c++) {
		struct buf t = BUF_INIT, a = BUF_INIT;
		char b = (char)c;

		html_text(&t, &b, 1);
		html_attr(&a, &b, 1);
		assert_true(t.len <= HTML_ESCAPE_MAX && a.len <= HTML_ESCAPE_MAX);
		buf_release(&t);
		buf_release(&a);
	}
	for (cp = 0x80; cp <= 0x10FFFF; cp++) {
		unsigned char u[4];
		size_t n;
		struct buf t = BUF_INIT;

		if (cp < 0x800) {
			u[0] = (unsigned char)(0xC0 | cp >> 6), n = 2;
		} else if (cp < 0x10000) {
			u[0] = (unsigned char)(0xE0 | cp >> 12), n = 3;
			u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		} else {
			u[0] = (unsigned char)(0xF0 | cp >> 18), n = 4;
			u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
			u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		}
		if (n == 2)
			u[1] = (unsigned char)(0x80 | (cp & 0x3F));
		else
			u[n - 1] = (unsigned char)(0x80 | (cp & 0x3F));
		html_text(&t, (const char *)u, n);
		assert_true(t.len <= HTML_ESCAPE_MAX * n);
		buf_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(markup_becomes_entities),
		cmocka_unit_test(controls_show_as_visible_escapes),
		cmocka_unit_test(bidi_controls_show),
		cmocka_unit_test(noncharacters_show),
		cmocka_unit_test(wellformed_utf8_kept),
		cmocka_unit_test(invalid_bytes_show_one_by_one),
		cmocka_unit_test(appends),
		cmocka_unit_test(url_components),
		cmocka_unit_test(every_byte_is_safe),
		cmocka_unit_test(every_byte_anywhere_in_plain_text),
		cmocka_unit_test(escape_growth_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
