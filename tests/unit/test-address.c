#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "address.h"
#include "buf.h"
#include "header.h"
#include "rfc2047.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void good_addresses_parse(void **state)
{
	static const struct { const char *in, *name, *email; } cases[] = {
		{ "a@b.c", "", "a@b.c" },
		{ "<a@b.c>", "", "a@b.c" },
		{ "  a@b.c  ", "", "a@b.c" },
		{ "< a@b.c >", "", "a@b.c" },
		{ "Name <a@b.c>", "Name", "a@b.c" },
		{ "  Name   <a@b.c>  ", "Name", "a@b.c" },
		{ "Name<a@b.c>", "Name", "a@b.c" },
		{ "kernel test robot <oliver.sang@intel.com>", "kernel test robot",
		  "oliver.sang@intel.com" },
		{ "\"Rafael J. Wysocki\" <rafael.j.wysocki@intel.com>", "Rafael J. Wysocki",
		  "rafael.j.wysocki@intel.com" },
		{ "Rafael J. Wysocki <rafael.j.wysocki@intel.com>", "Rafael J. Wysocki",
		  "rafael.j.wysocki@intel.com" },
		{ "\"Quoted, Name\" <a@b.c>", "Quoted, Name", "a@b.c" },
		{ "Doe, John <j@x.org>", "Doe, John", "j@x.org" },
		{ "\"a \\\"b\\\" \\\\c\" <a@b.c>", "a \"b\" \\c", "a@b.c" },
		{ "Some \"Quoted\" Words <a@b.c>", "Some Quoted Words", "a@b.c" },
		{ "\"x <y@z>\" <a@b.c>", "x <y@z>", "a@b.c" },
		{ "\"\" <a@b.c>", "", "a@b.c" },
		{ "\"  spaced  \" <a@b.c>", "  spaced  ", "a@b.c" },
		{ "Jos\xc3\xa9 M\xc3\xbcller <jose@example.org>", "Jos\xc3\xa9 M\xc3\xbcller",
		  "jose@example.org" },
		{ "\xe6\x9d\x8e\xe5\xb0\x8f\xe9\xbe\x8d <bruce@example.cn>",
		  "\xe6\x9d\x8e\xe5\xb0\x8f\xe9\xbe\x8d", "bruce@example.cn" },
		{ "Bot \xf0\x9f\xa4\x96 <bot@example.org>", "Bot \xf0\x9f\xa4\x96", "bot@example.org" },
		{ "a+tag@sub-domain.example.com", "", "a+tag@sub-domain.example.com" },
		{ "first.last@x.org", "", "first.last@x.org" },
		{ "user@localhost", "", "user@localhost" },
		{ "o'brien@x.ie", "", "o'brien@x.ie" },
		{ "x@123.45.com", "", "x@123.45.com" },
		{ "x@xn--bcher-kva.de", "", "x@xn--bcher-kva.de" },
		{ "!#$%&'*+-/=?^_`{|}~@x.org", "", "!#$%&'*+-/=?^_`{|}~@x.org" },
		{ "A.B@EXAMPLE.ORG", "", "A.B@EXAMPLE.ORG" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct address a;
		struct buf err = BUF_INIT;

		if (address_parse(cases[i].in, &a, &err))
			fail_msg("%s: %s", cases[i].in, err.data);
		assert_string_equal(a.name, cases[i].name);
		assert_string_equal(a.email, cases[i].email);
		assert_int_equal(address_check(&a, &err), 0);
		address_release(&a);
		assert_null(a.name);
		assert_null(a.email);
		buf_release(&err);
	}
}

static void limits_are_exact(void **state)
{
	struct buf s = BUF_INIT, err = BUF_INIT;
	struct address a;

	(void)state;
	/* A 64-octet local part is fine, 65 is not. */
	buf_addchars(&s, 'l', 64);
	buf_adds(&s, "@x.org");
	assert_int_equal(address_parse(s.data, &a, &err), 0);
	address_release(&a);
	buf_reset(&s);
	buf_addchars(&s, 'l', 65);
	buf_adds(&s, "@x.org");
	assert_int_equal(address_parse(s.data, &a, &err), -1);
	assert_non_null(strstr(err.data, ": the local part is 65 octets long (at most 64)"));

	/* 254 octets in all is fine, 255 is not (labels of 63). */
	buf_reset(&s);
	buf_addchars(&s, 'l', 59);
	buf_adds(&s, "@");
	buf_addchars(&s, 'a', 63);
	buf_adds(&s, ".");
	buf_addchars(&s, 'b', 63);
	buf_adds(&s, ".");
	buf_addchars(&s, 'c', 63);
	buf_adds(&s, ".dd");
	assert_int_equal(s.len, 254);
	assert_int_equal(address_parse(s.data, &a, &err), 0);
	address_release(&a);
	buf_addc(&s, 'd');
	assert_int_equal(address_parse(s.data, &a, &err), -1);
	assert_non_null(strstr(err.data, ": the address is 255 octets long (at most 254)"));

	/* A 63-octet label is fine, 64 is not. */
	buf_reset(&s);
	buf_adds(&s, "x@");
	buf_addchars(&s, 'a', 64);
	buf_adds(&s, ".org");
	assert_int_equal(address_parse(s.data, &a, &err), -1);
	assert_non_null(strstr(err.data, "is not a host name (a label longer than 63 octets)"));

	/* Names: 256 bytes fine, 257 not (counted in bytes, after unquoting). */
	buf_reset(&s);
	buf_addc(&s, '"');
	buf_addchars(&s, 'n', 254);
	buf_adds(&s, "\\\"\" <a@b.c>");
	assert_int_equal(address_parse(s.data, &a, &err), 0);
	assert_int_equal(strlen(a.name), 255);
	address_release(&a);
	buf_reset(&s);
	for (int i = 0; i < 128; i++)
		buf_adds(&s, "\xc3\xa9");
	buf_adds(&s, " <a@b.c>");
	assert_int_equal(address_parse(s.data, &a, &err), 0);
	address_release(&a);
	buf_reset(&s);
	buf_addc(&s, 'x');
	for (int i = 0; i < 128; i++)
		buf_adds(&s, "\xc3\xa9");
	buf_adds(&s, " <a@b.c>");
	assert_int_equal(address_parse(s.data, &a, &err), -1);
	assert_non_null(strstr(err.data, ": the name is 257 bytes long (at most 256)"));
	buf_release(&s);
	buf_release(&err);
}

static void bad_addresses_are_refused(void **state)
{
	static const struct { const char *in, *msg; } cases[] = {
		{ "", "address \"\": no address" },
		{ "   ", "address \"   \": no address" },
		{ "Name <>", "address \"Name <>\": no address" },
		/* Header injection, and control characters in general. */
		{ "Eve\r\nBcc: victim@example.org <eve@example.org>",
		  "address \"Eve\\r\\nBcc: victim@example.org <eve@example.org>\": "
		  "a control character is not allowed" },
		{ "\"Eve\r\nBcc: victim@example.org\" <eve@example.org>",
		  "address \"\\\"Eve\\r\\nBcc: victim@example.org\\\" <eve@example.org>\": "
		  "a control character is not allowed" },
		{ "Eve <eve@example.org>\r\nBcc: victim@example.org",
		  "address \"Eve <eve@example.org>\\r\\nBcc: victim@example.org\": "
		  "a control character is not allowed" },
		{ "eve@example.org\n", "address \"eve@example.org\\n\": a control character is not allowed" },
		{ "Eve\t<eve@example.org>", "address \"Eve\\t<eve@example.org>\": "
		  "a control character is not allowed" },
		{ "Eve\x1b[2J <eve@example.org>", "address \"Eve\\x1b[2J <eve@example.org>\": "
		  "a control character is not allowed" },
		{ "Eve <eve@example.org\x7f>", "address \"Eve <eve@example.org\\x7f>\": "
		  "a control character is not allowed" },
		{ "Eve <eve@example.org>, Bcc: victim@example.org",
		  "address \"Eve <eve@example.org>, Bcc: victim@example.org\": text after '>'" },
		{ "Eve <eve@example.org> Bcc: <victim@example.org>",
		  "address \"Eve <eve@example.org> Bcc: <victim@example.org>\": text after '>'" },
		/* Shape. */
		{ "Name", "address \"Name\": no '@' in the address" },
		{ "Name <name>", "address \"Name <name>\": no '@' in the address" },
		{ "@b.c", "address \"@b.c\": empty local part before '@'" },
		{ "a@", "address \"a@\": empty domain after '@'" },
		{ "a@b@c", "address \"a@b@c\": more than one '@' in the address" },
		{ "Foo <a@b.c", "address \"Foo <a@b.c\": '<' without '>'" },
		{ "Foo <a@b.c> x", "address \"Foo <a@b.c> x\": text after '>'" },
		{ "Foo <a@b.c>>", "address \"Foo <a@b.c>>\": text after '>'" },
		{ "\"Foo <a@b.c>", "address \"\\\"Foo <a@b.c>\": the quoted name has no closing '\"'" },
		{ "Fo\"o <a@b.c>", "address \"Fo\\\"o <a@b.c>\": the quoted name has no closing '\"'" },
		{ "Foo <<a@b.c>", "address \"Foo <<a@b.c>\": '<' is not allowed in an address" },
		/* Characters not allowed in the address. */
		{ "a b@c.d", "address \"a b@c.d\": a space is not allowed in an address" },
		{ "Foo <a b@c.d>", "address \"Foo <a b@c.d>\": a space is not allowed in an address" },
		{ "Foo <a@b c.d>", "address \"Foo <a@b c.d>\": a space is not allowed in an address" },
		{ "a(x)@b.c", "address \"a(x)@b.c\": '(' is not allowed in an address" },
		{ "a@b.c (Comment)", "address \"a@b.c (Comment)\": a space is not allowed in an address" },
		{ "a@[1.2.3.4]", "address \"a@[1.2.3.4]\": '[' is not allowed in an address" },
		{ "a\\b@c.d", "address \"a\\\\b@c.d\": '\\' is not allowed in an address" },
		{ "a,b@c.d", "address \"a,b@c.d\": ',' is not allowed in an address" },
		{ "a;b@c.d", "address \"a;b@c.d\": ';' is not allowed in an address" },
		{ "a:b@c.d", "address \"a:b@c.d\": ':' is not allowed in an address" },
		{ "\"a\"@b.c", "address \"\\\"a\\\"@b.c\": '\"' is not allowed in an address" },
		{ "a@b.c>", "address \"a@b.c>\": '>' is not allowed in an address" },
		/* Non-ASCII. */
		{ "j\xc3\xb6rg@example.de", "address \"j\xc3\xb6rg@example.de\": the local part "
		  "\"j\xc3\xb6rg\" is not ASCII (that would need SMTPUTF8, RFC 6531, which perfbot "
		  "does not use)" },
		{ "a@b\xc3\xbc" "cher.de", "address \"a@b\xc3\xbc" "cher.de\": the domain "
		  "\"b\xc3\xbc" "cher.de\" is not ASCII (internationalized domain names are not "
		  "supported; write it in its xn-- form)" },
		{ "a@\xe4\xbe\x8b\xe5\xad\x90.\xe6\xb5\x8b\xe8\xaf\x95", "address \"a@\xe4\xbe\x8b"
		  "\xe5\xad\x90.\xe6\xb5\x8b\xe8\xaf\x95\": the domain \"\xe4\xbe\x8b\xe5\xad\x90."
		  "\xe6\xb5\x8b\xe8\xaf\x95\" is not ASCII (internationalized domain names are not "
		  "supported; write it in its xn-- form)" },
		{ "\xff\xfe <a@b.c>", "address \"\\xff\\xfe <a@b.c>\": the name is not valid UTF-8" },
		{ "\xc0\xaf <a@b.c>", "address \"\\xc0\\xaf <a@b.c>\": the name is not valid UTF-8" },
		/* Host names and dot-atoms. */
		{ "a@b_c.d", "address \"a@b_c.d\": the domain \"b_c.d\" is not a host name "
		  "('_' is not allowed)" },
		{ "a@-b.c", "address \"a@-b.c\": the domain \"-b.c\" is not a host name "
		  "(a label starts or ends with '-')" },
		{ "a@b-.c", "address \"a@b-.c\": the domain \"b-.c\" is not a host name "
		  "(a label starts or ends with '-')" },
		{ "a@b..c", "address \"a@b..c\": the domain \"b..c\" is not a host name (empty label)" },
		{ "a@.b.c", "address \"a@.b.c\": the domain \".b.c\" is not a host name (empty label)" },
		{ "a@b.c.", "address \"a@b.c.\": the domain \"b.c.\" is not a host name (empty label)" },
		{ ".a@b.c", "address \".a@b.c\": the local part \".a\" starts or ends with '.' or has \"..\"" },
		{ "a.@b.c", "address \"a.@b.c\": the local part \"a.\" starts or ends with '.' or has \"..\"" },
		{ "a..b@c.d", "address \"a..b@c.d\": the local part \"a..b\" starts or ends with '.' "
		  "or has \"..\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct address a = { (char *)"untouched", (char *)"untouched" };
		struct buf err = BUF_INIT;

		if (address_parse(cases[i].in, &a, &err) != -1)
			fail_msg("accepted \"%s\"", cases[i].in);
		assert_string_equal(err.data, cases[i].msg);
		assert_string_equal(a.name, "untouched");
		assert_string_equal(a.email, "untouched");
		buf_release(&err);
	}
}

static void check_catches_built_addresses(void **state)
{
	static const struct { const char *name, *email, *msg; } cases[] = {
		{ "Eve\r\nBcc: v@x.org", "eve@x.org",
		  "address \"eve@x.org\": a control character is not allowed in the name" },
		{ "Eve", "eve@x.org\r\nBcc: v@x.org",
		  "address \"eve@x.org\\r\\nBcc: v@x.org\": more than one '@' in the address" },
		{ "caf\xe9", "a@b.c", "address \"a@b.c\": the name is not valid UTF-8" },
		{ "", "a b@c.d", "address \"a b@c.d\": a space is not allowed in an address" },
		{ "", "a@b.c", NULL },
		{ "Any (thing) \"at\" all, really", "a@b.c", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct address a = { (char *)cases[i].name, (char *)cases[i].email };
		struct buf err = BUF_INIT;

		if (!cases[i].msg) {
			assert_int_equal(address_check(&a, &err), 0);
		} else {
			assert_int_equal(address_check(&a, &err), -1);
			assert_string_equal(err.data, cases[i].msg);
		}
		buf_release(&err);
	}
}

static void lists_split_at_commas_outside_quotes(void **state)
{
	static const struct {
		const char *in;
		size_t n;
		const char *emails[4], *names[4];
	} cases[] = {
		{ "a@b.c", 1, { "a@b.c" }, { "" } },
		{ "a@b.c, \"Doe, John\" <j@x.org>, Foo <f@x.org>", 3,
		  { "a@b.c", "j@x.org", "f@x.org" }, { "", "Doe, John", "Foo" } },
		{ "\"a \\\" , b\" <a@b.c>,c@d.e", 2, { "a@b.c", "c@d.e" }, { "a \" , b", "" } },
		{ "", 0, { NULL }, { NULL } },
		{ "  ,  , ", 0, { NULL }, { NULL } },
		{ " , a@b.c ,, c@d.e, ", 2, { "a@b.c", "c@d.e" }, { "", "" } },
		{ "linux-mm@kvack.org,lkp@intel.com,oe-lkp@lists.linux.dev", 3,
		  { "linux-mm@kvack.org", "lkp@intel.com", "oe-lkp@lists.linux.dev" }, { "", "", "" } },
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct address *list = (struct address *)&list;
		struct buf err = BUF_INIT;
		size_t n = 99;

		if (address_list_parse(cases[i].in, &list, &n, &err))
			fail_msg("%s: %s", cases[i].in, err.data);
		assert_int_equal(n, cases[i].n);
		for (k = 0; k < n; k++) {
			assert_string_equal(list[k].email, cases[i].emails[k]);
			assert_string_equal(list[k].name, cases[i].names[k]);
		}
		if (!n)
			assert_null(list);
		address_list_free(list, n);
		buf_release(&err);
	}
}

static void bad_lists_name_the_element(void **state)
{
	static const struct { const char *in, *msg; } cases[] = {
		{ "a@b.c, bad, c@d.e", "address 2: address \"bad\": no '@' in the address" },
		{ "a@b.c,, bad", "address 3: address \"bad\": no '@' in the address" },
		{ "<a,b@c.d>", "address 1: address \"<a,b@c.d>\": ',' is not allowed in an address" },
		{ "a@b.c, \"unterminated <x@y.z>, c@d.e",
		  "address 2: address \"\\\"unterminated <x@y.z>, c@d.e\": the quoted name has no "
		  "closing '\"'" },
		{ "a@b.c,\r\nBcc: victim@example.org", "address 2: address \"\\r\\nBcc: "
		  "victim@example.org\": a control character is not allowed" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct address *list = (struct address *)&list;
		struct buf err = BUF_INIT;
		size_t n = 99;

		assert_int_equal(address_list_parse(cases[i].in, &list, &n, &err), -1);
		assert_string_equal(err.data, cases[i].msg);
		assert_null(list);
		assert_int_equal(n, 0);
		buf_release(&err);
	}
	{
		struct buf s = BUF_INIT, err = BUF_INIT;
		struct address *list;
		size_t n;

		for (i = 0; i < ADDRESS_MAX_LIST; i++)
			buf_addf(&s, "a%zu@b.c,", i);
		assert_int_equal(address_list_parse(s.data, &list, &n, &err), 0);
		assert_int_equal(n, ADDRESS_MAX_LIST);
		address_list_free(list, n);
		buf_adds(&s, "one@too.many");
		assert_int_equal(address_list_parse(s.data, &list, &n, &err), -1);
		assert_string_equal(err.data, "more than 1000 addresses in a list");
		buf_release(&s);
		buf_release(&err);
	}
}

static void equality_ignores_case_and_names(void **state)
{
	static const struct { const char *a, *b; int equal; } cases[] = {
		{ "a@b.c", "a@b.c", 1 },
		{ "Foo <A@B.C>", "bar <a@b.c>", 1 },
		{ "Rafael.J.Wysocki@Intel.COM", "rafael.j.wysocki@intel.com", 1 },
		{ "a@b.c", "a@b.d", 0 },
		{ "a@b.c", "b@b.c", 0 },
		{ "a@b.c", "a@b.cc", 0 },
		{ "ab@c.d", "a@bc.d", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct address a, b;

		assert_int_equal(address_parse(cases[i].a, &a, NULL), 0);
		assert_int_equal(address_parse(cases[i].b, &b, NULL), 0);
		assert_int_equal(address_equal(&a, &b), cases[i].equal);
		assert_int_equal(address_equal(&b, &a), cases[i].equal);
		address_release(&a);
		address_release(&b);
	}
}

static void format_quotes_and_encodes_names(void **state)
{
	static const struct { const char *name, *want; } cases[] = {
		{ "", "a@b.c" },
		{ "kernel test robot", "kernel test robot <a@b.c>" },
		{ "Christian Brauner", "Christian Brauner <a@b.c>" },
		{ "O'Brien", "O'Brien <a@b.c>" },
		{ "a+b=c{d}", "a+b=c{d} <a@b.c>" },
		/* The real mail quotes this one. */
		{ "Rafael J. Wysocki", "\"Rafael J. Wysocki\" <a@b.c>" },
		{ "Doe, John", "\"Doe, John\" <a@b.c>" },
		{ "Foo (Bar)", "\"Foo (Bar)\" <a@b.c>" },
		{ "x@y", "\"x@y\" <a@b.c>" },
		{ "a:b;c<d>", "\"a:b;c<d>\" <a@b.c>" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\" <a@b.c>" },
		{ "two  spaces", "\"two  spaces\" <a@b.c>" },
		{ " lead", "\" lead\" <a@b.c>" },
		{ "trail ", "\"trail \" <a@b.c>" },
		{ "x.", "\"x.\" <a@b.c>" },
		/* Encoded: B when shorter, Q otherwise (a tie goes to Q). */
		{ "Jos\xc3\xa9 M\xc3\xbcller", "=?UTF-8?B?Sm9zw6kgTcO8bGxlcg==?= <a@b.c>" },
		{ "J\xc3\xb6rg", "=?UTF-8?B?SsO2cmc=?= <a@b.c>" },
		{ "Ingo Moln\xc3\xa1r", "=?UTF-8?Q?Ingo_Moln=C3=A1r?= <a@b.c>" },
		{ "Uwe Kleine-K\xc3\xb6nig", "=?UTF-8?Q?Uwe_Kleine-K=C3=B6nig?= <a@b.c>" },
		{ "\xe6\x9d\x8e\xe5\xb0\x8f\xe9\xbe\x8d", "=?UTF-8?B?5p2O5bCP6b6N?= <a@b.c>" },
		{ "Bot \xf0\x9f\xa4\x96", "=?UTF-8?B?Qm90IPCfpJY=?= <a@b.c>" },
		/* In a phrase Q must also encode . , ( " = ? _ (RFC 2047 §5(3)). */
		{ "Dr. J\xc3\xb6rg Schmidtkowski-Hauptmannsberger (Mgr.)",
		  "=?UTF-8?Q?Dr=2E_J=C3=B6rg_Schmidtkowski-Hauptmannsberger_=28Mgr=2E=29?= <a@b.c>" },
		/* Something that looks like an encoded-word is encoded. */
		{ "=?UTF-8?Q?x?=", "=?UTF-8?B?PT9VVEYtOD9RP3g/PQ==?= <a@b.c>" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct address a = { (char *)cases[i].name, (char *)"a@b.c" };
		struct buf out = BUF_INIT;

		address_format(&out, &a);
		assert_string_equal(out.data, cases[i].want);
		buf_release(&out);
	}
}

/* Encoded names come back through the decoder, in words of at most 75
 * characters that each decode on their own. */
static void encoded_names_round_trip(void **state)
{
	static const char *const names[] = {
		"Jos\xc3\xa9 M\xc3\xbcller", "\xe6\x9d\x8e\xe5\xb0\x8f\xe9\xbe\x8d",
		"Bot \xf0\x9f\xa4\x96\xf0\x9f\xa4\x96", "\xc3\xa9_=?\" (x), y.",
		("\xe5\xbc\xa0\xe4\xbc\x9f \xe6\x9d\x8e\xe5\xa8\x9c \xe7\x8e\x8b\xe8\x8a\xb3 "
		"\xe5\x88\x98\xe6\xb4\x8b \xe9\x99\x88\xe9\x9d\x99 \xe6\x9d\xa8\xe5\x86\x9b "
		"\xe8\xb5\xb5\xe5\xbc\xba \xe9\xbb\x84\xe5\xa9\xb7 \xe5\x91\xa8\xe6\x9d\xb0 "
		"\xe5\x90\xb4\xe5\x8d\x8e \xe5\xbe\x90\xe9\xa3\x9e \xe5\xad\x99\xe6\x9e\x97"),
		("\xf0\x9f\x98\x80\xf0\x9f\x98\x81\xf0\x9f\x98\x82\xf0\x9f\x98\x83\xf0\x9f\x98\x84"
		"\xf0\x9f\x98\x85\xf0\x9f\x98\x86\xf0\x9f\x98\x87\xf0\x9f\x98\x88\xf0\x9f\x98\x89"
		"\xf0\x9f\x98\x8a\xf0\x9f\x98\x8b\xf0\x9f\x98\x8c\xf0\x9f\x98\x8d\xf0\x9f\x98\x8e"
		"\xf0\x9f\x98\x8f\xf0\x9f\x98\x90\xf0\x9f\x98\x91\xf0\x9f\x98\x92\xf0\x9f\x98\x93"),
		("Fran\xc3\xa7ois-Xavier de la Chapelle-Saint-\xc3\x89tienne du Mont-Blanc et "
		"de la R\xc3\xa9publique"),
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(names); i++) {
		struct address a;
		struct buf in = BUF_INIT, out = BUF_INIT, d = BUF_INIT, want = BUF_INIT;
		const char *p = NULL, *q;
		int words = 0;

		buf_addf(&in, "\"%s\" <someone@example.org>", names[i]);
		for (q = names[i]; *q; q++)
			if (*q == '"')
				p = q;
		if (p) {	/* the quote in the name needs escaping in the input */
			buf_reset(&in);
			for (q = names[i], buf_addc(&in, '"'); *q; q++) {
				if (*q == '"' || *q == '\\')
					buf_addc(&in, '\\');
				buf_addc(&in, *q);
			}
			buf_adds(&in, "\" <someone@example.org>");
		}
		assert_int_equal(address_parse(in.data, &a, NULL), 0);
		assert_string_equal(a.name, names[i]);
		address_format(&out, &a);
		for (p = out.data; (p = strstr(p, "=?UTF-8?")); p = q + 2) {
			const char *t;

			q = strstr(p + 10, "?=");
			assert_non_null(q);
			assert_true(q + 2 - p <= 75);
			if (p[8] == 'Q')
				for (t = p + 10; t < q; t++)
					assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
							       "opqrstuvwxyz0123456789!*+-/=_", *t));
			words++;
		}
		assert_true(words >= 1);
		assert_null(strchr(out.data, '\n'));
		assert_int_equal(rfc2047_decode(out.data, out.len, 0, &d), words);
		buf_addf(&want, "%s <someone@example.org>", names[i]);
		assert_string_equal(d.data, want.data);
		address_release(&a);
		buf_release(&in);
		buf_release(&out);
		buf_release(&d);
		buf_release(&want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_addresses_parse),
		cmocka_unit_test(limits_are_exact),
		cmocka_unit_test(bad_addresses_are_refused),
		cmocka_unit_test(check_catches_built_addresses),
		cmocka_unit_test(lists_split_at_commas_outside_quotes),
		cmocka_unit_test(bad_lists_name_the_element),
		cmocka_unit_test(equality_ignores_case_and_names),
		cmocka_unit_test(format_quotes_and_encodes_names),
		cmocka_unit_test(encoded_names_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
