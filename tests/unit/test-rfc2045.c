#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "rfc2045.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check_string_or_null(const char *name, const char *what, const char *got,
				 const char *want)
{
	if ((!got) != (!want) || (got && strcmp(got, want)))
		fail_msg("%s: %s is [%s], want [%s]", name, what, got ? got : "(null)",
			 want ? want : "(null)");
}

/* The transfer decoders on their own. */
static void decoders(void **state)
{
	static const struct { const char *in, *out; long bad; int base64; } cases[] = {
		{ "", "", 0, 0 },
		{ "=41=42=4a=4A", "ABJJ", 0, 0 },
		{ "soft=\nbreak", "softbreak", 0, 0 },
		{ "soft= \t\r\nbreak", "softbreak", 0, 0 },
		{ "end=", "end", 0, 0 },
		{ "a=\rb", "a=\rb", 1, 0 },
		{ "=G1 =4", "=G1 =4", 2, 0 },
		{ "trailing space \n", "trailing space \n", 0, 0 },
		{ "8bit \xe9 stays", "8bit \xe9 stays", 0, 0 },
		{ "YQ==", "a", 0, 1 },
		{ "YWI=", "ab", 0, 1 },
		{ "YWJj", "abc", 0, 1 },
		{ "YWJ j\r\nZA", "abcd", 0, 1 },
		{ "YQ==YQ==", "aa", 0, 1 },
		{ "Y*Q", "a", 1, 1 },
		{ "YWJjZ", "abc", 1, 1 },
		{ "Y=", "", 1, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;
		long bad = cases[i].base64 ?
			rfc2045_decode_base64(cases[i].in, strlen(cases[i].in), &out) :
			rfc2045_decode_qp(cases[i].in, strlen(cases[i].in), &out);

		if (bad != cases[i].bad || strcmp(out.data, cases[i].out))
			fail_msg("%s: [%s] with %ld bad, want [%s] with %ld", cases[i].in, out.data,
				 bad, cases[i].out, cases[i].bad);
		buf_release(&out);
	}
}

static void decoders_respect_the_limit(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	out.limit = 4;
	assert_int_equal(rfc2045_decode_qp("abcdefgh", 8, &out), -1);
	buf_reset(&out);
	assert_int_equal(rfc2045_decode_base64("YWJjZGVmZ2g=", 12, &out), -1);
	buf_release(&out);
}

static void encodings(void **state)
{
	static const struct { const char *in; enum rfc2045_encoding want; } cases[] = {
		{ NULL, RFC2045_7BIT },
		{ "7bit", RFC2045_7BIT },
		{ " 8BIT ", RFC2045_8BIT },
		{ "binary (comment)", RFC2045_BINARY },
		{ "Quoted-Printable", RFC2045_QP },
		{ "\tbase64\r\n", RFC2045_BASE64 },
		{ "(a (nested) comment) quoted-printable (and \\) one more)", RFC2045_QP },
		{ "(c)base64(c)", RFC2045_BASE64 },
		{ "\"base64\"", RFC2045_UNKNOWN },
		{ "x-uuencode", RFC2045_UNKNOWN },
		{ "base64 garbage", RFC2045_UNKNOWN },
		{ "", RFC2045_UNKNOWN },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (rfc2045_encoding_of(cases[i].in) != cases[i].want)
			fail_msg("case %zu [%s]: %d", i, cases[i].in ? cases[i].in : "(null)",
				 (int)rfc2045_encoding_of(cases[i].in));
}

static void content_type_fields(void **state)
{
	static const struct {
		const char *in, *value, *charset, *boundary, *format;
		int has_name, ok;
	} cases[] = {
		{ "text/plain", "text/plain", NULL, NULL, NULL, 0, 1 },
		{ " Text/Plain ; Charset=\"UTF-8\" (comment); format=Flowed", "text/plain", "UTF-8",
		  NULL, "flowed", 0, 1 },
		{ "multipart/mixed;\n\tboundary=\"----=_Part_1\"", "multipart/mixed", NULL,
		  "----=_Part_1", NULL, 0, 1 },
		{ "multipart/mixed; boundary==_unquoted=; charset=a; charset=b", "multipart/mixed", "a",
		  "=_unquoted=", NULL, 0, 1 },
		{ "text / plain; name*0*=utf-8''a%20b", "text/plain", NULL, NULL, NULL, 1, 1 },
		{ "text/plain; boundary=\"a\\\"b\"", "text/plain", NULL, "a\"b", NULL, 0, 1 },
		{ "text/plain; broken; charset=utf-8", "text/plain", NULL, NULL, NULL, 0, 1 },
		/* RFC 2231: continuations, charsets, the plain form first */
		{ "text/plain; charset*=us-ascii'en'utf-8", "text/plain", "utf-8", NULL, NULL, 0, 1 },
		{ "text/plain; charset*0=\"utf\"; charset*1=-8", "text/plain", "utf-8", NULL, NULL, 0, 1 },
		{ "text/plain; charset*1=-8; charset*0=utf", "text/plain", "utf-8", NULL, NULL, 0, 1 },
		{ "text/plain; charset*0=utf; charset*2=x", "text/plain", "utf", NULL, NULL, 0, 1 },
		{ "text/plain; charset=plain; charset*=utf-8''ext", "text/plain", "plain", NULL, NULL, 0, 1 },
		{ "text/plain; charset*01=x; charset*00=y", "text/plain", NULL, NULL, NULL, 0, 1 },
		{ "multipart/mixed; boundary*=utf-8''x", "multipart/mixed", NULL, NULL, NULL, 0, 1 },
		{ "application/x; filename*=UTF-8''n%C3%A4me.txt", "application/x", NULL, NULL, NULL, 1, 1 },
		{ "text", NULL, NULL, NULL, NULL, 0, 0 },
		{ "/plain", NULL, NULL, NULL, NULL, 0, 0 },
		{ "", NULL, NULL, NULL, NULL, 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct rfc2045_field f;
		struct buf err = BUF_INIT;
		int rc = rfc2045_field_parse(cases[i].in, 1, &f, &err);

		if ((rc == 0) != cases[i].ok)
			fail_msg("%s: rc %d (%s)", cases[i].in, rc, err.data);
		if (rc == 0) {
			check_string_or_null(cases[i].in, "value", f.value, cases[i].value);
			check_string_or_null(cases[i].in, "charset", f.charset, cases[i].charset);
			check_string_or_null(cases[i].in, "boundary", f.boundary, cases[i].boundary);
			check_string_or_null(cases[i].in, "format", f.format, cases[i].format);
			assert_int_equal(f.has_name, cases[i].has_name);
			rfc2045_field_release(&f);
		}
		buf_release(&err);
	}
}

/* Every parameter, joined and decoded, in field order. */
static void parameters(void **state)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "attachment; filename*0*=UTF-8''n%C3%A4; filename*1*=%20me; filename*2=\".txt\"",
		  "filename=n\xc3\xa4 me.txt" },
		{ "attachment; filename*=iso-8859-1'de'caf%E9", "filename=caf\xc3\xa9" },
		{ "attachment; filename*=''no%20charset", "filename=no charset" },
		{ "attachment; filename*=bad%zz%4", "filename=bad%zz%4" },
		{ "attachment; a=1; B=\"2\"; a=3; c*=x", "a=1|b=2|c=x" },
		{ "attachment; x*0=\"\\\"q\\\"\"; x*1=\" r\"", "x=\"q\" r" },
		{ "attachment;", "" },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct rfc2045_field f;
		struct buf err = BUF_INIT, got = BUF_INIT;

		if (rfc2045_field_parse(cases[i].in, 0, &f, &err))
			fail_msg("%s: %s", cases[i].in, err.data);
		for (j = 0; j < f.nr_params; j++)
			buf_addf(&got, "%s%s=%s", j ? "|" : "", f.params[j].name, f.params[j].value);
		if (strcmp(got.data, cases[i].want))
			fail_msg("%s: [%s], want [%s]", cases[i].in, got.data, cases[i].want);
		assert_string_equal(f.value, "attachment");
		rfc2045_field_release(&f);
		buf_release(&err);
		buf_release(&got);
	}
}

/* RFC2045_MAX_PARAMS parameters are read, RFC2045_MAX_PARAM bytes a value. */
static void parameter_limits(void **state)
{
	struct buf in = BUF_INIT, err = BUF_INIT;
	struct rfc2045_field f;
	size_t i;

	(void)state;
	buf_adds(&in, "text/plain");
	for (i = 0; i < RFC2045_MAX_PARAMS + 5; i++)
		buf_addf(&in, "; p%zu=v", i);
	assert_int_equal(rfc2045_field_parse(in.data, 1, &f, &err), 0);
	assert_int_equal(f.nr_params, RFC2045_MAX_PARAMS);
	rfc2045_field_release(&f);

	buf_reset(&in);
	buf_adds(&in, "text/plain; charset=");
	buf_addchars(&in, 'x', RFC2045_MAX_PARAM + 1);
	assert_int_equal(rfc2045_field_parse(in.data, 1, &f, &err), 0);
	assert_null(f.charset);
	rfc2045_field_release(&f);

	/* continuations joined past the limit are dropped too */
	buf_reset(&in);
	buf_adds(&in, "text/plain");
	for (i = 0; i < 3; i++) {
		buf_addf(&in, "; charset*%zu=", i);
		buf_addchars(&in, 'x', RFC2045_MAX_PARAM / 2);
	}
	assert_int_equal(rfc2045_field_parse(in.data, 1, &f, &err), 0);
	assert_null(f.charset);
	rfc2045_field_release(&f);
	buf_release(&in);
	buf_release(&err);
}

/* Comments and white space (CFWS) wherever RFC 2045 §5.1 lets them stand:
 * around the type, the '/', the subtype, each ';', name, '=' and value. */
static void comments_in_fields(void **state)
{
	static const struct {
		const char *in, *value, *charset, *boundary;
		int with_subtype;
	} cases[] = {
		{ "(hello) text (plain) / (world) plain (eod);charset=iso-8859-1", "text/plain",
		  "iso-8859-1", NULL, 1 },
		{ "text(a)/(b)plain(c);(d)charset(e)=(f)utf-8(g)", "text/plain", "utf-8", NULL, 1 },
		{ "text/plain;charset=\"utf-8\"(after the quotes)", "text/plain", "utf-8", NULL, 1 },
		{ "(a (nested (twice)) comment) text/plain; charset=us-ascii", "text/plain",
		  "us-ascii", NULL, 1 },
		{ "(a \\) quoted pair) text/(\\(x)plain; charset=(\\\\)koi8-r", "text/plain",
		  "koi8-r", NULL, 1 },
		{ "(\"a quote in a comment is text) text/plain; charset=utf-8", "text/plain",
		  "utf-8", NULL, 1 },
		{ "text/plain; charset=\"(not a comment)\"", "text/plain", "(not a comment)", NULL, 1 },
		{ "text/plain; charset=\"a(b\"; format=(c)flowed", "text/plain", "a(b", NULL, 1 },
		{ "multipart/mixed (c);\r\n (folded\r\n comment) boundary (c) = (c) \"XX\" (c)",
		  "multipart/mixed", NULL, "XX", 1 },
		{ "Multipart (c) / (c) Alternative; boundary=(c)=_x=", "multipart/alternative", NULL,
		  "=_x=", 1 },
		/* RFC 2231 sections too */
		{ "text/plain; charset*0 (c) = (c) utf (c); (c) charset*1 = \"-8\"", "text/plain",
		  "utf-8", NULL, 1 },
		{ "text/plain; charset* (c) = (c) us-ascii'en'utf-8 (c)", "text/plain", "utf-8",
		  NULL, 1 },
		/* Content-Disposition: one token */
		{ "(c) attachment (c) ; (c) filename (c) = (c) \"a.txt\"", "attachment", NULL, NULL,
		  0 },
		{ "(inline (nested)) inline", "inline", NULL, NULL, 0 },
	};
	static const char *const refused[] = {
		"(only a comment)", "text (c) plain", "(c) / plain", "text / (c)",
		"(unclosed text/plain",
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct rfc2045_field f;
		struct buf err = BUF_INIT;

		if (rfc2045_field_parse(cases[i].in, cases[i].with_subtype, &f, &err))
			fail_msg("%s: %s", cases[i].in, err.data);
		check_string_or_null(cases[i].in, "value", f.value, cases[i].value);
		check_string_or_null(cases[i].in, "charset", f.charset, cases[i].charset);
		check_string_or_null(cases[i].in, "boundary", f.boundary, cases[i].boundary);
		rfc2045_field_release(&f);
		buf_release(&err);
	}
	for (i = 0; i < N(refused); i++) {
		struct rfc2045_field f;
		struct buf err = BUF_INIT;

		if (!rfc2045_field_parse(refused[i], 1, &f, &err))
			fail_msg("%s: read as [%s]", refused[i], f.value);
		buf_release(&err);
	}
	/* format= after a comment is read too */
	{
		struct rfc2045_field f;
		struct buf err = BUF_INIT;

		assert_int_equal(rfc2045_field_parse("text/plain; format=(c)Flowed; delsp=(d) yes",
						     1, &f, &err), 0);
		assert_string_equal(f.format, "flowed");
		assert_string_equal(f.delsp, "yes");
		rfc2045_field_release(&f);
		buf_release(&err);
	}
}

/* The copy libetpan reads: comments of the MIME fields blanked, the
 * length and line breaks kept, quoted strings and other fields left. */
static void blanked_comments(void **state)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "Content-Type: (hello) text (plain) / (world) plain (eod);charset=x\n",
		  "Content-Type:         text         /         plain      ;charset=x\n" },
		{ "content-transfer-encoding : (a (b) c) base64\r\n",
		  "content-transfer-encoding :           base64\r\n" },
		{ "Content-Disposition: inline (x\\)y)\nSubject: (kept)\n",
		  "Content-Disposition: inline       \nSubject: (kept)\n" },
		{ "Content-Type: text/plain; charset=\"(q)\" (c)\n",
		  "Content-Type: text/plain; charset=\"(q)\"    \n" },
		{ "Content-Type: multipart/mixed; (a\r\n folded) boundary=b\r\n\r\nbody (x)\n",
		  "Content-Type: multipart/mixed;   \r\n         boundary=b\r\n\r\nbody (x)\n" },
		{ "Content-Type: text/plain (unclosed\n\tstill\nX: (y)\n",
		  "Content-Type: text/plain          \n      \nX: (y)\n" },
		{ "X-Content-Type: (c) text/plain\n", "X-Content-Type: (c) text/plain\n" },
		{ "Content-Typo: (c)\n", "Content-Typo: (c)\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf b = BUF_INIT;

		buf_adds(&b, cases[i].in);
		rfc2045_blank_comments(b.data, b.len);
		if (strcmp(b.data, cases[i].want))
			fail_msg("case %zu:\n[%s], want\n[%s]", i, b.data, cases[i].want);
		buf_release(&b);
	}
}

static void boundary_check(void **state)
{
	static const struct { const char *raw; int ok; } cases[] = {
		{ "Content-Type: multipart/mixed; boundary=\"simple\"\n", 1 },
		{ "content-type : multipart/mixed;\n boundary=unquoted_=.+/:?'()\n", 1 },
		{ "Content-Type: multipart/mixed; boundary=\"\\\"\"\n", 0 },
		{ "Content-Type: multipart/mixed; boundary=\"a\\\\b\"\n", 0 },
		{ "Content-Type: multipart/mixed; boundary=a\"b\n", 0 },
		{ "Content-Type: multipart/mixed; boundary=\"unterminated\n", 0 },
		{ "Content-Type: multipart/mixed; boundary=\"\"\n", 0 },
		{ "Content-Type: multipart/mixed; boundary*=utf-8''x\n", 0 },
		{ "Content-Type: multipart/mixed; boundary=\"\x01\"\n", 0 },
		{ "Content-Type: text/plain; x-boundary=\"\\\"\"\n", 1 },
		{ "X-Note: boundary=\"\\\"\"\n", 1 },
	};
	struct buf many = BUF_INIT, why = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int rc = rfc2045_check_boundaries(cases[i].raw, strlen(cases[i].raw), &why);

		if ((rc == 0) != cases[i].ok)
			fail_msg("%s: rc %d (%s)", cases[i].raw, rc, why.data);
		buf_reset(&why);
	}
	/* a boundary of 70 characters is fine, 71 is not */
	buf_adds(&many, "Content-Type: multipart/mixed; boundary=");
	buf_addchars(&many, 'b', RFC2045_MAX_BOUNDARY);
	buf_addc(&many, '\n');
	assert_int_equal(rfc2045_check_boundaries(many.data, many.len, &why), 0);
	buf_truncate(&many, many.len - 1);
	buf_adds(&many, "b\n");
	assert_int_equal(rfc2045_check_boundaries(many.data, many.len, &why), -1);
	/* and so many of them */
	buf_reset(&many);
	for (i = 0; i <= RFC2045_MAX_BOUNDARIES; i++)
		buf_addf(&many, "Content-Type: multipart/mixed; boundary=b%zu\n", i);
	assert_int_equal(rfc2045_check_boundaries(many.data, many.len, &why), -1);
	assert_non_null(strstr(why.data, "more than"));
	buf_release(&many);
	buf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decoders),
		cmocka_unit_test(decoders_respect_the_limit),
		cmocka_unit_test(encodings),
		cmocka_unit_test(content_type_fields),
		cmocka_unit_test(parameters),
		cmocka_unit_test(parameter_limits),
		cmocka_unit_test(comments_in_fields),
		cmocka_unit_test(blanked_comments),
		cmocka_unit_test(boundary_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
