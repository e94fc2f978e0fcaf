#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "charset.h"
#include "rfc2047.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* in (NUL-terminated unless len) decoded, with flags; the words counted. */
static const struct {
	const char *in;
	size_t len;	/* 0: strlen(in) */
	unsigned flags;
	const char *want;
	int count;
} cases[] = {
	/* RFC 2047 §8 examples */
	{ "(=?ISO-8859-1?Q?a?=)", 0, 0, "(a)", 1 },
	{ "(=?ISO-8859-1?Q?a?= b)", 0, 0, "(a b)", 1 },
	{ "(=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?=)", 0, 0, "(ab)", 2 },
	{ "(=?ISO-8859-1?Q?a?=  =?ISO-8859-1?Q?b?=)", 0, 0, "(ab)", 2 },
	{ "(=?ISO-8859-1?Q?a?=\r\n    =?ISO-8859-1?Q?b?=)", 0, 0, "(ab)", 2 },
	{ "(=?ISO-8859-1?Q?a_b?=)", 0, 0, "(a b)", 1 },
	{ "(=?ISO-8859-1?Q?a?= =?ISO-8859-2?Q?_b?=)", 0, 0, "(a b)", 2 },
	{ "=?US-ASCII?Q?Keith_Moore?= <moore@cs.utk.edu>", 0, 0, "Keith Moore <moore@cs.utk.edu>", 1 },
	{ "=?ISO-8859-1?Q?Olle_J=E4rvinen?=", 0, 0, "Olle J\xc3\xa4rvinen", 1 },
	{ "=?iso-8859-1?q?this=20is=20some=20text?=", 0, 0, "this is some text", 1 },
	{ "=?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?=", 0, 0, "If you can read this yo", 1 },
	/* charsets, through charset.h (iconv for the rest) */
	{ "=?windows-1252?Q?=93quoted=94_=80?=", 0, 0, "\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x82\xac", 1 },
	{ "=?cp1252?Q?caf=E9?=", 0, 0, "caf\xc3\xa9", 1 },
	{ "=?koi8-r?B?8NLJ18XU?=", 0, 0, "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82", 1 },
	{ "=?UTF-8?B?8J+YgA==?=", 0, 0, "\xf0\x9f\x98\x80", 1 },
	{ "=?utf-8?b?8J+YgA?=", 0, 0, "\xf0\x9f\x98\x80", 1 },
	{ "=?UTF-8*en?Q?Hello?=", 0, 0, "Hello", 1 },
	{ "=?utf8?q?a=c3=a9?=", 0, 0, "a\xc3\xa9", 1 },
	/* a character split between two words comes out whole */
	{ "=?UTF-8?Q?=C3?= =?UTF-8?Q?=A9?=", 0, 0, "\xc3\xa9", 2 },
	{ "=?UTF-8?B?w6k=?= =?ISO-8859-2?Q?=B1?=", 0, 0, "\xc3\xa9\xc4\x85", 2 },
	/* recognised inside words and next to each other, as readers do */
	{ "a=?UTF-8?Q?b?=c", 0, 0, "abc", 1 },
	{ "=?UTF-8?Q?x?==?UTF-8?Q?y?=", 0, 0, "xy", 2 },
	{ "=?UTF-8?Q?a?= plain =?UTF-8?Q?b?=", 0, 0, "a plain b", 2 },
	{ "=?UTF-8?Q?a?=\n =?UTF-8?Q?b?=\n c", 0, 0, "ab c", 2 },
	/* bytes invalid in their charset become U+FFFD, a NUL too */
	{ "=?UTF-8?Q?=C3?=", 0, 0, "\xef\xbf\xbd", 1 },
	{ "=?UTF-8?Q?a=00b?=", 0, 0, "a\xef\xbf\xbd" "b", 1 },
	{ "=?windows-1252?Q?=81?=", 0, 0, "\xef\xbf\xbd", 1 },
	/* US-ASCII with 8-bit bytes is mislabelled: the fall-back reads it */
	{ "=?US-ASCII?Q?=E9?=", 0, 0, "\xc3\xa9", 1 },
	/* a stray '=' in Q stays, as the quoted-printable decoder keeps it */
	{ "=?UTF-8?Q?bad=ZZ?=", 0, 0, "bad=ZZ", 1 },
	{ "=?UTF-8?Q?bad=4?=", 0, 0, "bad=4", 1 },
	/* left as they are: malformed, or an unknown charset */
	{ "=?UTF-8?Q?a?= =?foo?Q?b?= =?UTF-8?Q?c?=", 0, 0, "a =?foo?Q?b?= c", 2 },
	{ "=?UTF-8?X?abc?=", 0, 0, "=?UTF-8?X?abc?=", 0 },
	{ "=?UTF-8?Q?abc", 0, 0, "=?UTF-8?Q?abc", 0 },
	{ "=?UTF-8?Q?a b?=", 0, 0, "=?UTF-8?Q?a b?=", 0 },
	{ "=??Q?abc?=", 0, 0, "=??Q?abc?=", 0 },
	{ "=?UTF-8?B?!!!!?=", 0, 0, "=?UTF-8?B?!!!!?=", 0 },
	{ "=?UTF-8?B?QQ=A?=", 0, 0, "=?UTF-8?B?QQ=A?=", 0 },
	{ "=?UTF-8?B?Q?=", 0, 0, "=?UTF-8?B?Q?=", 0 },
	{ "=?x-unknown?Q?a?=", 0, 0, "=?x-unknown?Q?a?=", 0 },
	{ "=?aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa?Q?a?=", 0, 0,
	  "=?aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa?Q?a?=", 0 },
	{ "no words here", 0, 0, "no words here", 0 },
	{ "=?", 0, 0, "=?", 0 },
	{ "", 0, 0, "", 0 },
	/* line breaks are unfolded away */
	{ "a\r\n b", 0, 0, "a b", 0 },
	/* raw 8-bit text: UTF-8 kept, other bytes read as Windows-1252, NUL
	 * replaced; or, with RFC2047_RAW, all kept */
	{ "caf\xc3\xa9 \x93q\x94", 0, 0, "caf\xc3\xa9 \xe2\x80\x9cq\xe2\x80\x9d", 0 },
	{ "a\0b", 3, 0, "a\xef\xbf\xbd" "b", 0 },
	{ "caf\xe9 =?UTF-8?Q?=C3=A9?=", 0, RFC2047_RAW, "caf\xe9 \xc3\xa9", 1 },
	{ "a\0b", 3, RFC2047_RAW, "a\0b", 0 },
};

static void decodes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
		size_t want_len = cases[i].len ? len : strlen(cases[i].want);
		int count;

		buf_adds(&out, ">");
		count = rfc2047_decode(cases[i].in, len, cases[i].flags, &out);
		if (cases[i].len && !(cases[i].flags & RFC2047_RAW))
			want_len = strlen(cases[i].want);
		if (out.len - 1 != want_len || memcmp(out.data + 1, cases[i].want, want_len))
			fail_msg("case %zu [%s]: got [%s], want [%s]", i, cases[i].in, out.data + 1,
				 cases[i].want);
		if (count != cases[i].count)
			fail_msg("case %zu [%s]: %d words, want %d", i, cases[i].in, count, cases[i].count);
		if (!(cases[i].flags & RFC2047_RAW) && !charset_is_utf8(out.data, out.len))
			fail_msg("case %zu [%s]: not valid UTF-8", i, cases[i].in);
		buf_release(&out);
	}
}

static void respects_the_limit(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	out.limit = 4;
	assert_int_equal(rfc2047_decode("=?UTF-8?Q?abcdef?=", 18, 0, &out), -1);
	assert_true(out.len <= 4);
	buf_reset(&out);
	assert_int_equal(rfc2047_decode("plain text", 10, 0, &out), -1);
	assert_true(out.len <= 4);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decodes),
		cmocka_unit_test(respects_the_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
