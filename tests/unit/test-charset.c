#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "charset.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FFFD "\xef\xbf\xbd"

/* Every path of charset_to_utf8(): its own tables, iconv, the fall-back. */
static void conversions(void **state)
{
	static const struct {
		const char *charset, *in;
		size_t len;	/* 0: strlen(in) */
		const char *out, *used;
		int outcome;
	} cases[] = {
		/* UTF-8, and its repairs */
		{ "utf-8", "caf\xc3\xa9", 0, "caf\xc3\xa9", "utf-8", CHARSET_OK },
		{ "UTF8", "a\xc3", 0, "a" FFFD, "utf-8", CHARSET_REPAIRED },
		{ "utf-8", "\xc0\xaf", 0, FFFD FFFD, "utf-8", CHARSET_REPAIRED },	/* overlong */
		{ "utf-8", "\xed\xa0\x80", 0, FFFD FFFD FFFD, "utf-8", CHARSET_REPAIRED },	/* surrogate */
		{ "utf-8", "\xf4\x90\x80\x80", 0, FFFD FFFD FFFD FFFD, "utf-8", CHARSET_REPAIRED },
		{ "utf-8", "a\0b", 3, "a" FFFD "b", "utf-8", CHARSET_REPAIRED },
		/* US-ASCII; with 8-bit bytes it is mislabelled and falls back */
		{ "us-ascii", "plain", 0, "plain", "us-ascii", CHARSET_OK },
		{ "ANSI_X3.4-1968", "plain", 0, "plain", "us-ascii", CHARSET_OK },
		{ "us-ascii", "caf\xe9", 0, "caf\xc3\xa9", "windows-1252", CHARSET_FALLBACK },
		{ "us-ascii", "caf\xc3\xa9", 0, "caf\xc3\xa9", "utf-8", CHARSET_FALLBACK },
		/* Latin-1 is read as Windows-1252, which defines 0x80-0x9f but five */
		{ "ISO-8859-1", "\x80\xb1", 0, "\xe2\x82\xac\xc2\xb1", "windows-1252", CHARSET_OK },
		{ "latin1", "\xff", 0, "\xc3\xbf", "windows-1252", CHARSET_OK },
		{ "windows-1252", "\x93q\x94", 0, "\xe2\x80\x9cq\xe2\x80\x9d", "windows-1252", CHARSET_OK },
		{ "windows-1252", "\x81", 0, FFFD, "windows-1252", CHARSET_REPAIRED },
		{ "cp1252", "\x8d\x8f\x90\x9d", 0, FFFD FFFD FFFD FFFD, "windows-1252", CHARSET_REPAIRED },
		{ "x-cp1252", "a\0", 2, "a" FFFD, "windows-1252", CHARSET_REPAIRED },
		/* iconv, under its own names and the aliases mail uses */
		{ "iso-8859-15", "\xa4", 0, "\xe2\x82\xac", "iso-8859-15", CHARSET_OK },
		{ "ISO-8859-2*pl", "\xb1", 0, "\xc4\x85", "ISO-8859-2*pl", CHARSET_OK },
		{ "iso-8859-8-i", "\xe0", 0, "\xd7\x90", "iso-8859-8-i", CHARSET_OK },
		{ "koi8-r", "\xf6", 0, "\xd0\x96", "koi8-r", CHARSET_OK },
		{ "shift_jis", "\x82\xa0", 0, "\xe3\x81\x82", "shift_jis", CHARSET_OK },
		{ "x-sjis", "\x82\xa0", 0, "\xe3\x81\x82", "x-sjis", CHARSET_OK },
		{ "gb2312", "\xa5\xc6", 0, "\xe3\x83\x86", "gb2312", CHARSET_OK },
		{ "ks_c_5601-1987", "\xc7\xd1", 0, "\xed\x95\x9c", "ks_c_5601-1987", CHARSET_OK },
		{ "utf-16le", "a\0", 2, "a", "utf-16le", CHARSET_OK },
		{ "utf-16le", "\0\0", 2, FFFD, "utf-16le", CHARSET_REPAIRED },
		/* an invalid byte, and a sequence cut at the end, in iconv */
		{ "shift_jis", "a\x82", 0, "a" FFFD, "shift_jis", CHARSET_REPAIRED },
		{ "utf-16le", "a\0b", 3, "a" FFFD, "utf-16le", CHARSET_REPAIRED },
		/* unknown: labels that say so, names iconv lacks, names never
		 * passed on (bad characters, too long, options) */
		{ NULL, "caf\xc3\xa9", 0, "caf\xc3\xa9", "utf-8", CHARSET_FALLBACK },
		{ NULL, "caf\xe9", 0, "caf\xc3\xa9", "windows-1252", CHARSET_FALLBACK },
		{ "", "x", 0, "x", "utf-8", CHARSET_FALLBACK },
		{ "unknown-8bit", "\xe9", 0, "\xc3\xa9", "windows-1252", CHARSET_FALLBACK },
		{ "x-unknown", "x", 0, "x", "utf-8", CHARSET_FALLBACK },
		{ "x-no-such-charset", "x", 0, "x", "utf-8", CHARSET_FALLBACK },
		{ "../../etc/passwd", "x", 0, "x", "utf-8", CHARSET_FALLBACK },
		{ "utf-8//TRANSLIT", "x", 0, "x", "utf-8", CHARSET_FALLBACK },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "x", 0, "x", "utf-8", CHARSET_FALLBACK },
		{ NULL, "a\0b", 3, "a" FFFD "b", "windows-1252", CHARSET_FALLBACK },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
		const char *used = NULL;
		int outcome;

		outcome = charset_to_utf8(cases[i].charset, cases[i].in, len, &out, &used);
		if (outcome != cases[i].outcome || strcmp(out.data, cases[i].out) ||
		    !used || strcmp(used, cases[i].used))
			fail_msg("case %zu (%s): [%s] as %s, outcome %d; want [%s] as %s, outcome %d", i,
				 cases[i].charset ? cases[i].charset : "(none)", out.data,
				 used ? used : "(null)", outcome, cases[i].out, cases[i].used,
				 cases[i].outcome);
		assert_true(charset_is_utf8(out.data, out.len));
		buf_release(&out);
	}
}

static void known_names(void **state)
{
	static const struct { const char *name; int known; } cases[] = {
		{ "utf-8", 1 }, { "UTF-8*en", 1 }, { "latin1", 1 }, { "iso-8859-7", 1 },
		{ "euc-kr", 1 }, { "big5", 1 }, { NULL, 0 }, { "", 0 }, { "unknown-8bit", 0 },
		{ "x-no-such-charset", 0 }, { "utf 8", 0 }, { "utf-8\n", 0 },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (charset_known(cases[i].name) != cases[i].known)
			fail_msg("%s: %d", cases[i].name ? cases[i].name : "(null)",
				 charset_known(cases[i].name));
}

/* More charsets than the iconv cache holds, back and forth: each still
 * converts right after being evicted. */
static void iconv_cache_eviction(void **state)
{
	static const struct { const char *name, *in, *out; } cs[] = {
		{ "iso-8859-2", "\xb1", "\xc4\x85" }, { "iso-8859-5", "\xb0", "\xd0\x90" },
		{ "iso-8859-7", "\xe1", "\xce\xb1" }, { "koi8-r", "\xf6", "\xd0\x96" },
		{ "shift_jis", "\x82\xa0", "\xe3\x81\x82" }, { "gb18030", "\xa5\xc6", "\xe3\x83\x86" },
		{ "iso-8859-15", "\xa4", "\xe2\x82\xac" }, { "cp866", "\x80", "\xd0\x90" },
	};
	size_t round, i;

	(void)state;
	for (round = 0; round < 3; round++)
		for (i = 0; i < N(cs); i++) {
			struct buf out = BUF_INIT;

			assert_int_equal(charset_to_utf8(cs[i].name, cs[i].in, strlen(cs[i].in), &out, NULL),
					 CHARSET_OK);
			if (strcmp(out.data, cs[i].out))
				fail_msg("round %zu, %s: [%s]", round, cs[i].name, out.data);
			buf_release(&out);
		}
}

static void utf8_checks_and_repairs(void **state)
{
	static const struct { const char *in; size_t len; int valid; const char *repaired; long bad; } cases[] = {
		{ "", 0, 1, "", 0 },
		{ "plain", 5, 1, "plain", 0 },
		{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, 1, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 0 },
		{ "a\0b", 3, 0, "a" FFFD "b", 1 },
		{ "\xc3", 1, 0, FFFD, 1 },
		{ "\xe2\x82", 2, 0, FFFD FFFD, 2 },
		{ "\x80x", 2, 0, FFFD "x", 1 },
		{ "\xc1\xbf", 2, 0, FFFD FFFD, 2 },
		{ "\xe0\x80\x80", 3, 0, FFFD FFFD FFFD, 3 },
		{ "\xff", 1, 0, FFFD, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;
		long bad;

		assert_int_equal(charset_is_utf8(cases[i].in, cases[i].len), cases[i].valid);
		bad = charset_repair_utf8(cases[i].in, cases[i].len, &out);
		if (bad != cases[i].bad || strcmp(out.data, cases[i].repaired))
			fail_msg("case %zu: [%s] %ld", i, out.data, bad);
		buf_release(&out);
	}
}

/* Raw header bytes: UTF-8 where it is valid, Windows-1252 elsewhere. */
static void mixed_header_bytes(void **state)
{
	static const struct { const char *in; size_t len; const char *out; long bad; } cases[] = {
		{ "caf\xc3\xa9 caf\xe9", 0, "caf\xc3\xa9 caf\xc3\xa9", 0 },
		{ "\x93q\x94", 0, "\xe2\x80\x9cq\xe2\x80\x9d", 0 },
		{ "\xc3(", 0, "\xc3\x83(", 0 },
		{ "a\0b\x81", 4, "a" FFFD "b" FFFD, 2 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
		long bad = charset_mixed_to_utf8(cases[i].in, len, &out);

		if (bad != cases[i].bad || strcmp(out.data, cases[i].out))
			fail_msg("case %zu: [%s] %ld", i, out.data, bad);
		assert_true(charset_is_utf8(out.data, out.len));
		buf_release(&out);
	}
}

/* A caller's limit stops every converter with -1, never past it. */
static void limits(void **state)
{
	static const char *const names[] = { "utf-8", "windows-1252", "koi8-r", NULL };
	struct buf in = BUF_INIT;
	size_t i;

	(void)state;
	buf_addchars(&in, 'x', 100);
	for (i = 0; i < N(names); i++) {
		struct buf out = BUF_INIT;

		out.limit = 10;
		assert_int_equal(charset_to_utf8(names[i], in.data, in.len, &out, NULL), -1);
		assert_true(out.len <= 10);
		buf_release(&out);
	}
	{
		struct buf out = BUF_INIT;

		out.limit = 10;
		assert_int_equal(charset_repair_utf8(in.data, in.len, &out), -1);
		buf_reset(&out);
		assert_int_equal(charset_mixed_to_utf8(in.data, in.len, &out), -1);
		buf_release(&out);
	}
	buf_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(conversions),
		cmocka_unit_test(known_names),
		cmocka_unit_test(iconv_cache_eviction),
		cmocka_unit_test(utf8_checks_and_repairs),
		cmocka_unit_test(mixed_header_bytes),
		cmocka_unit_test(limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
