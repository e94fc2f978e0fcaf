#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "address.h"
#include "buf.h"
#include "problem.h"
#include "rfc5322.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The fields of raw as "Name=unfolded|...", then "#body=OFFSET", the
 * stray, leading and long-line notes. */
static void fields_of(const char *raw, size_t len, unsigned flags, size_t line_max,
		      struct buf *out)
{
	struct rfc5322_reader r;
	struct rfc5322_field f;

	rfc5322_reader_init(&r, raw, len, flags);
	if (line_max)
		r.line_max = line_max;
	while (rfc5322_next(&r, &f)) {
		buf_add(out, f.name, f.name_len);
		buf_addc(out, '=');
		rfc5322_unfold(&f, flags & RFC5322_PI_LINES, out);
		buf_addc(out, '|');
	}
	buf_addf(out, "#body=%zu", r.body);
	if (r.stray)
		buf_addf(out, " stray=%zu", r.stray);
	if (r.leading)
		buf_addf(out, " leading=%zu", r.leading);
	if (r.long_line)
		buf_addf(out, " long=%zu", r.long_line);
}

static void header_block(void **state)
{
	static const struct {
		const char *what, *raw;
		unsigned flags;
		size_t line_max;
		const char *want;
	} cases[] = {
		{ "plain fields, the body after the empty line", "A: 1\nB: 2\n\nbody\n", 0, 0,
		  "A= 1|B= 2|#body=11" },
		{ "CRLF", "A: 1\r\nB:2\r\n\r\nbody", 0, 0, "A= 1|B=2|#body=13" },
		{ "CRs and LF end a line too", "A: 1\r\r\n\r\r\nbody", 0, 0, "A= 1|#body=10" },
		{ "folding: only the line breaks go", "Subject: a\n b\n\tc\n\n", 0, 0,
		  "Subject= a b\tc|#body=18" },
		{ "a folded field whose first line is empty", "Message-ID:\n <x@y>\n\n", 0, 0,
		  "Message-ID= <x@y>|#body=20" },
		{ "white space before the colon (obsolete)", "Message-Id : <x@y>\n\n", 0, 0,
		  "Message-Id= <x@y>|#body=20" },
		{ "no body at all", "A: 1", 0, 0, "A= 1|#body=4" },
		{ "an mbox From_ line is passed over", "From x@y Mon Mar  9 13:50:58 2026\nA: 1\n\n",
		  RFC5322_MBOX_FROM, 0, "A= 1|#body=40" },
		{ "but an obsolete \"From :\" field is not", "From : x@y\n\n", RFC5322_MBOX_FROM, 0,
		  "From= x@y|#body=12" },
		{ "without the flag the From_ line ends it", "From x@y\nA: 1\n\n", 0, 0, "#body=0" },
		{ "leading continuation lines", " x\n\ty\nA: 1\n\n", 0, 0, "A= 1|#body=12 leading=2" },
		{ "a stray line starts the body", "A: 1\nB: 2\nnot a field\nC: 3\n", 0, 0,
		  "A= 1|B= 2|#body=10 stray=3" },
		{ "NUL in a value becomes U+FFFD", "A: a\0b\n\n", 0, 0, "A= a\xef\xbf\xbd" "b|#body=8" },
		{ "a lone CR stays", "A: a\rb\n\n", 0, 0, "A= a\rb|#body=8" },
		{ "a long line is noted", "A: 12345\nB: 1\n C\n\n", 0, 6, "A= 12345|B= 1 C|#body=18 long=1" },
		/* public-inbox's reading (PublicInbox::Eml) */
		{ "PI: a blank before any ':' continues", "Subject: a\nfoo bar: b\nX: c\n\n",
		  RFC5322_PI_LINES, 0, "Subject=a foo bar: b|X=c|#body=28" },
		{ "PI: \"Name :\" is a continuation", "A: 1\nMessage-Id : <x@y>\n\n", RFC5322_PI_LINES,
		  0, "A=1 Message-Id : <x@y>|#body=25" },
		{ "PI: a line that is not a field is passed over, and ends the field",
		  "A: 1\njunk\n cont\nB: 2\n\n", RFC5322_PI_LINES, 0, "A=1|B=2|#body=22" },
		{ "PI: trimmed, line breaks and the blanks after made one space, NUL a space",
		  "A:  x \n\t  y\0z  \n\n", RFC5322_PI_LINES, 0, "A=x  y z|#body=17" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;
		size_t len = strlen(cases[i].raw);

		if (strstr(cases[i].what, "NUL"))
			len += strlen(cases[i].raw + len + 1) + 1;
		fields_of(cases[i].raw, len, cases[i].flags, cases[i].line_max, &out);
		if (strcmp(out.data, cases[i].want))
			fail_msg("%s: [%s], want [%s]", cases[i].what, out.data, cases[i].want);
		buf_release(&out);
	}
}

static void lf_only(void **state)
{
	struct buf tmp = BUF_INIT;
	const char *raw = "a\r\nb\rc\r\n", *got;
	size_t len = strlen(raw);

	(void)state;
	got = rfc5322_lf(raw, &len, &tmp);
	assert_int_equal(len, 6);
	assert_memory_equal(got, "a\nb\rc\n", 6);
	/* a run of CRs before LF goes whole: doing it twice changes nothing */
	raw = "a\r\r\nb\r\rc";
	len = strlen(raw);
	got = rfc5322_lf(raw, &len, &tmp);
	assert_int_equal(len, 6);
	assert_memory_equal(got, "a\nb\r\rc", 6);
	/* without a CR: the bytes themselves */
	raw = "a\nb";
	len = 3;
	assert_ptr_equal(rfc5322_lf(raw, &len, &tmp), raw);
	assert_int_equal(len, 3);
	buf_release(&tmp);
}

/* Tokens as "kind:text" with '+' for white space before and '!' for an
 * unclosed one. */
static void tokens(void **state)
{
	static const struct { const char *in; unsigned mode; const char *want; } cases[] = {
		{ "Foo Bar <a@b>", 0, "A:Foo +A:Bar +<:a@b" },
		{ "\"Q \\\"x\\\"\" (c (nested) \\) ) x", 0, "Q:Q \\\"x\\\" +C:c (nested) \\)  +A:x" },
		{ "a,b;c:d@e.f[]>)", 0, "A:a S:, A:b S:; A:c S:: A:d S:@ A:e S:. A:f S:[ S:] S:> S:)" },
		{ "<\"a>b\"@c> x", 0, "<:\"a>b\"@c +A:x" },
		{ "\"open", 0, "Q!:open" },
		{ "(open", 0, "C!:open" },
		{ "<open", 0, "<!:open" },
		{ "Name (Company) <a@b>", RFC5322_NO_COMMENTS, "A:Name +A:(Company) +<:a@b" },
		{ "", 0, "" },
		{ " \t\r\n", 0, "" },
		{ "caf\xc3\xa9", 0, "A:caf\xc3\xa9" },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct rfc5322_token *t = NULL;
		size_t n = rfc5322_tokenize(cases[i].in, cases[i].mode, &t);
		struct buf got = BUF_INIT;

		for (j = 0; j < n; j++) {
			static const char kinds[] = { 'A', 'Q', 'C', '<', 'S' };

			if (j)
				buf_addc(&got, ' ');
			if (t[j].space_before)
				buf_addc(&got, '+');
			buf_addc(&got, kinds[t[j].kind]);
			if (t[j].open)
				buf_addc(&got, '!');
			buf_addc(&got, ':');
			buf_add(&got, t[j].p, t[j].n);
			assert_true(t[j].start <= t[j].p && t[j].p + t[j].n <= t[j].end);
		}
		if (strcmp(got.data, cases[i].want))
			fail_msg("[%s]: [%s], want [%s]", cases[i].in, got.data, cases[i].want);
		free(t);
		buf_release(&got);
	}
}

static void comments_and_cfws(void **state)
{
	static const struct { const char *in; size_t skip; } cases[] = {
		{ "(a) x", 3 }, { "(a (b) c) x", 9 }, { "(a \\) b) x", 8 }, { "(open", 5 }, { "()", 2 },
	};
	struct buf out = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		assert_int_equal(rfc5322_skip_comment(cases[i].in) - cases[i].in, cases[i].skip);
	/* the bounded form: a NUL is ctext, and the end bounds an open one */
	{
		static const char nul[] = "(a\0b) x", open[] = "(a (b) c";
		static const char pair[] = "(a\\";

		assert_int_equal(rfc5322_comment_end(nul, nul + sizeof(nul) - 1) - nul, 5);
		assert_int_equal(rfc5322_comment_end(open, open + 5) - open, 5);
		assert_int_equal(rfc5322_comment_end(open, open + 8) - open, 8);
		assert_int_equal(rfc5322_comment_end(pair, pair + 3) - pair, 3);
	}
	assert_string_equal(rfc5322_skip_cfws(" (a)\r\n\t(b (c)) x"), "x");
	rfc5322_unquote("a\\\"b\\\\c\\", 8, &out);
	assert_string_equal(out.data, "a\"b\\c\\");
	buf_release(&out);
}

/* msg-ids, as "id id ..." and the problems as "; "-joined text. */
static void ids(void **state)
{
	static const struct { const char *in, *ids, *problem; } cases[] = {
		{ "<a@b>", "a@b", NULL },
		{ "<a@b> <c@d>\n\t<e@f>", "a@b c@d e@f", NULL },
		{ "Your message of Tue, 10 Mar (ok) <k@l.m>", "k@l.m", NULL },
		{ "<1234 @ local(c) .example>", "1234@local.example", NULL },
		{ "(a comment <x@y>) <z@w>", "z@w", NULL },
		{ "\"a phrase <x@y>\" <z@w>", "z@w", NULL },
		{ "<\"quoted.local\"@example.org>", "\"quoted.local\"@example.org", NULL },
		{ "<\"a>b\"@c>", "\"a>b\"@c", NULL },
		{ "<\"a b\"@c>", "", "malformed id" },
		{ "<a(>)@b>", "a@b", NULL },
		{ "<>", "", "malformed id" },
		{ "<c\x01" "d@e>", "", "malformed id" },
		{ "<caf\xc3\xa9@x>", "", "malformed id" },
		{ "<a<b@c>", "", "malformed id" },
		{ "<f@g", "", "without its closing" },
		{ "no ids at all", "", NULL },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		char **v = NULL, **problems = NULL;
		size_t nr = 0, alloc = 0, nr_problems = 0;
		struct problems pr = { &problems, &nr_problems, 10, "more" };
		struct buf got = BUF_INIT;

		rfc5322_ids("References", cases[i].in, &v, &nr, &alloc, &pr);
		for (j = 0; j < nr; j++)
			buf_addf(&got, "%s%s", j ? " " : "", v[j]);
		if (strcmp(got.data, cases[i].ids))
			fail_msg("[%s]: [%s], want [%s]", cases[i].in, got.data, cases[i].ids);
		if (!cases[i].problem ? nr_problems != 0 :
		    nr_problems != 1 || !strstr(problems[0], cases[i].problem) ||
		    strncmp(problems[0], "References: ", 12))
			fail_msg("[%s]: %zu problems (%s)", cases[i].in, nr_problems,
				 nr_problems ? problems[0] : "");
		problems_free(v, nr);
		problems_free(problems, nr_problems);
		buf_release(&got);
	}
}

static void ids_limit(void **state)
{
	struct buf in = BUF_INIT, big = BUF_INIT;
	char **v = NULL, **problems = NULL;
	size_t nr = 0, alloc = 0, nr_problems = 0, i;
	struct problems pr = { &problems, &nr_problems, 10, "more" };

	(void)state;
	for (i = 0; i <= RFC5322_MAX_IDS; i++)
		buf_addf(&in, "<%zu@x> ", i);
	rfc5322_ids("References", in.data, &v, &nr, &alloc, &pr);
	assert_int_equal(nr, RFC5322_MAX_IDS);
	assert_int_equal(nr_problems, 1);
	assert_non_null(strstr(problems[0], "more than 1000 ids"));
	problems_free(v, nr);
	problems_free(problems, nr_problems);
	v = problems = NULL;
	nr = alloc = nr_problems = 0;
	/* RFC5322_MAX_ID bytes are an id, one more is not */
	buf_addc(&big, '<');
	buf_addchars(&big, 'a', RFC5322_MAX_ID - 2);
	buf_adds(&big, "@b> <");
	buf_addchars(&big, 'a', RFC5322_MAX_ID - 1);
	buf_adds(&big, "@b>");
	rfc5322_ids("References", big.data, &v, &nr, &alloc, &pr);
	assert_int_equal(nr, 1);
	assert_int_equal(strlen(v[0]), RFC5322_MAX_ID);
	assert_int_equal(nr_problems, 1);
	problems_free(v, nr);
	problems_free(problems, nr_problems);
	buf_release(&in);
	buf_release(&big);
}

/* The Message-ID as mail readers take it: bracketed, or bare. */
static void message_id(void **state)
{
	static const struct { const char *in; int rc; const char *id, *problem; } cases[] = {
		{ " <a@b>", 0, "a@b", NULL },
		{ " bare@example.org", 0, "bare@example.org", "no angle brackets" },
		{ " (was <old@x>) <new@x>", 0, "new@x", NULL },
		{ " <a@b> <>", 0, "a@b", "malformed id" },
		{ " <>", -1, "", "malformed Message-ID" },
		{ " no id here", -1, "", "malformed Message-ID" },
		{ " a b@c", 0, "ab@c", "no angle brackets" },
		{ "", -1, "", "malformed Message-ID" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		char **problems = NULL;
		size_t nr_problems = 0;
		struct problems pr = { &problems, &nr_problems, 10, "more" };
		struct buf id = BUF_INIT;
		int rc = rfc5322_message_id(cases[i].in, &id, &pr);

		if (rc != cases[i].rc || strcmp(id.data, cases[i].id))
			fail_msg("[%s]: %d [%s]", cases[i].in, rc, id.data);
		if (!cases[i].problem ? nr_problems != 0 :
		    nr_problems != 1 || !strstr(problems[0], cases[i].problem))
			fail_msg("[%s]: %zu problems (%s)", cases[i].in, nr_problems,
				 nr_problems ? problems[0] : "");
		problems_free(problems, nr_problems);
		buf_release(&id);
	}
}

/* Incoming addresses (address.h's lenient reading over these tokens). */
static void addresses(void **state)
{
	static const struct { const char *in, *want, *problem; } cases[] = {
		{ "Jane Doe <jane@example.org>", "Jane Doe|jane@example.org", NULL },
		{ "jane@example.org (Jane Doe)", "Jane Doe|jane@example.org", NULL },
		{ "jane@example.org (first) (second)", "first|jane@example.org", NULL },
		{ "\"Doe, Jane\" <j@x.org>, b@x.org", "Doe, Jane|j@x.org; |b@x.org", NULL },
		{ "Team: a@b.example, Bob <bob@example.org>;, undisclosed-recipients:;",
		  "|a@b.example; Bob|bob@example.org", NULL },
		{ "Mary <@node.test:mary@example.net>", "Mary|mary@example.net", NULL },
		{ "jdoe@test  . example", "|jdoe@test.example", NULL },
		{ "=?UTF-8?Q?J=C3=B6rg?= <j@x>", "J\xc3\xb6rg|j@x", NULL },
		{ "\"=?UTF-8?Q?J=C3=B6rg?=\" <j@x>", "J\xc3\xb6rg|j@x", NULL },
		{ "Rafael J. Wysocki <rjw@x>", "Rafael J. Wysocki|rjw@x", NULL },
		{ "\"quoted local\"@x", "|\"quoted local\"@x", NULL },
		{ ", , (just a comment),", "", NULL },
		{ "Fan Flli m>, ok@x", "|ok@x", "is not an address" },
		{ "<.com>", "", "is not an address" },
		{ "<a\x01" "b@c>", "", "is not an address" },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct address *list = NULL;
		char **problems = NULL;
		size_t nr = 0, alloc = 0, nr_problems = 0;
		struct problems pr = { &problems, &nr_problems, 10, "more" };
		struct buf got = BUF_INIT;

		address_list_read("To", cases[i].in, &list, &nr, &alloc, &pr);
		for (j = 0; j < nr; j++)
			buf_addf(&got, "%s%s|%s", j ? "; " : "", list[j].name, list[j].email);
		if (strcmp(got.data, cases[i].want))
			fail_msg("[%s]: [%s], want [%s]", cases[i].in, got.data, cases[i].want);
		if (!cases[i].problem ? nr_problems != 0 :
		    nr_problems != 1 || !strstr(problems[0], cases[i].problem))
			fail_msg("[%s]: %zu problems (%s)", cases[i].in, nr_problems,
				 nr_problems ? problems[0] : "");
		address_list_free(list, nr);
		problems_free(problems, nr_problems);
		buf_release(&got);
	}
}

static void addresses_limit(void **state)
{
	struct buf in = BUF_INIT;
	struct address *list = NULL;
	char **problems = NULL;
	size_t nr = 0, alloc = 0, nr_problems = 0, i;
	struct problems pr = { &problems, &nr_problems, 10, "more" };

	(void)state;
	for (i = 0; i <= ADDRESS_MAX_LIST; i++)
		buf_addf(&in, "bad%zu, a%zu@x, ", i, i);
	address_list_read("Cc", in.data, &list, &nr, &alloc, &pr);
	assert_int_equal(nr, ADDRESS_MAX_LIST);
	/* ten "is not an address", then "more", and the limit not listed */
	assert_int_equal(nr_problems, 11);
	assert_string_equal(problems[10], "more");
	address_list_free(list, nr);
	problems_free(problems, nr_problems);
	buf_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_block),
		cmocka_unit_test(lf_only),
		cmocka_unit_test(tokens),
		cmocka_unit_test(comments_and_cfws),
		cmocka_unit_test(ids),
		cmocka_unit_test(ids_limit),
		cmocka_unit_test(message_id),
		cmocka_unit_test(addresses),
		cmocka_unit_test(addresses_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
