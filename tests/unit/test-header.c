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
#include "header.h"
#include "rfc2047.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* What a reader makes of the encoded-words written (rfc2047.h). */
static int rfc2047_words(const char *s, struct buf *out)
{
	return rfc2047_decode(s, strlen(s), 0, out);
}

/* Unfolding (RFC 5322 §2.2.3): delete each "\n" that precedes white
 * space, and the final "\n". */
static void unfold(const char *s, struct buf *out)
{
	for (; *s; s++) {
		if (*s == '\n' && (s[1] == ' ' || s[1] == '\t'))
			continue;
		if (*s == '\n' && !s[1])
			break;
		buf_addc(out, *s);
	}
}

/*
 * The shape every field must have: ends in one "\n", every other "\n"
 * is followed by white space (a fold), no line is empty or only white
 * space or longer than max, no CR, no byte outside 7-bit ASCII.
 */
static void check_field(const char *s, size_t max)
{
	const char *line = s, *p;

	assert_true(strlen(s) > 0 && s[strlen(s) - 1] == '\n');
	for (p = s; *p; p++) {
		if ((unsigned char)*p >= 0x80 || *p == '\r' || *p == '\0')
			fail_msg("byte 0x%02x in %s", (unsigned char)*p, s);
		if (*p != '\n')
			continue;
		if ((size_t)(p - line) > max)
			fail_msg("line of %zu octets (max %zu) in:\n%s", (size_t)(p - line), max, s);
		if (p[1] && p[1] != ' ' && p[1] != '\t')
			fail_msg("a line break that is not a fold in:\n%s", s);
		{
			const char *q = line;

			while (q < p && (*q == ' ' || *q == '\t'))
				q++;
			if (q == p)
				fail_msg("an empty or blank line in:\n%s", s);
		}
		line = p + 1;
	}
}

/*
 * Each encoded-word in s: at most 75 characters, and it decodes on its
 * own, i.e. it was split between characters (a split inside a UTF-8
 * sequence would leave invalid UTF-8, which the decoder refuses).
 */
static size_t check_encoded_words(const char *s)
{
	const char *p = s;
	size_t count = 0;

	while ((p = strstr(p, "=?UTF-8?"))) {
		const char *e = strstr(p + 10, "?=");
		struct buf w = BUF_INIT, d = BUF_INIT;

		assert_non_null(e);
		e += 2;
		if (e - p > 75)
			fail_msg("encoded-word of %d characters: %.*s", (int)(e - p), (int)(e - p), p);
		buf_add(&w, p, e - p);
		if (rfc2047_words(w.data, &d) != 1)
			fail_msg("encoded-word does not decode on its own: %s", w.data);
		buf_release(&w);
		buf_release(&d);
		count++;
		p = e;
	}
	return count;
}

/* The field body of a "Name: value\n" field, unfolded and decoded. */
static void decoded_body(const char *field, const char *name, struct buf *out)
{
	struct buf u = BUF_INIT;
	size_t n = strlen(name);

	assert_memory_equal(field, name, n);
	assert_int_equal(field[n], ':');
	unfold(field + n + 1, &u);
	assert_true(rfc2047_words(u.len && u.data[0] == ' ' ? u.data + 1 : u.data, out) >= 0);
	buf_release(&u);
}

static void structured_fields_are_written_as_given(void **state)
{
	static const struct { const char *name, *value, *want; } cases[] = {
		{ "Date", "Mon, 9 Mar 2026 13:50:58 +0800",
		  "Date: Mon, 9 Mar 2026 13:50:58 +0800\n" },
		{ "Message-ID", "<202603091347.982f38c4-lkp@intel.com>",
		  "Message-ID: <202603091347.982f38c4-lkp@intel.com>\n" },
		{ "Content-Type", "text/plain; charset=utf-8",
		  "Content-Type: text/plain; charset=utf-8\n" },
		{ "X-Patchwork-Hint", "ignore", "X-Patchwork-Hint: ignore\n" },
		{ "X-Empty", "", "X-Empty:\n" },
		{ "X-Tab", "a\tb", "X-Tab: a\tb\n" },
		{ "References",
		  "<20260101.aaaaaaaa-lkp@intel.com> <20260102.bbbbbbbb-lkp@intel.com> "
		  "<20260103.cccccccc-lkp@intel.com>",
		  "References: <20260101.aaaaaaaa-lkp@intel.com>\n"
		  " <20260102.bbbbbbbb-lkp@intel.com> <20260103.cccccccc-lkp@intel.com>\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT;

		buf_adds(&out, "From: x@y.z\n");
		if (header_add(&out, cases[i].name, cases[i].value, &err))
			fail_msg("%s: %s", cases[i].name, err.data);
		assert_string_equal(out.data + 12, cases[i].want);
		buf_release(&out);
		buf_release(&err);
	}
}

/* Every refusal leaves out as it was, with one precise message. */
static void injection_and_bad_names_are_refused(void **state)
{
	static const struct { const char *name, *value, *msg; } cases[] = {
		{ "Subject", "hello\r\nBcc: victim@example.org",
		  "header Subject: value \"hello\\r\\nBcc: victim@example.org\" contains CR" },
		{ "Subject", "hello\nBcc: victim@example.org",
		  "header Subject: value \"hello\\nBcc: victim@example.org\" contains LF" },
		{ "Subject", "hello\r", "header Subject: value \"hello\\r\" contains CR" },
		{ "In-Reply-To", "<a@b>\x1b[2J", "header In-Reply-To: value \"<a@b>\\x1b[2J\" "
		  "contains a control character" },
		{ "X-A", "caf\xc3\xa9", "header X-A: value \"caf\xc3\xa9\" is not ASCII" },
		{ "X-A", "del\x7f", "header X-A: value \"del\\x7f\" contains a control character" },
		{ "", "x", "invalid header name \"\": expected printable ASCII without ':' or spaces" },
		{ "Sub ject", "x", "invalid header name \"Sub ject\": expected printable ASCII "
		  "without ':' or spaces" },
		{ "Subject:", "x", "invalid header name \"Subject:\": expected printable ASCII "
		  "without ':' or spaces" },
		{ "Bcc: v@x.org\nSubject", "x", "invalid header name \"Bcc: v@x.org\\nSubject\": "
		  "expected printable ASCII without ':' or spaces" },
		{ "S\xc3\xbc", "x", "invalid header name \"S\xc3\xbc\": expected printable ASCII "
		  "without ':' or spaces" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT;

		buf_adds(&out, "To: a@b.c\n");
		assert_int_equal(header_add(&out, cases[i].name, cases[i].value, &err), -1);
		assert_string_equal(err.data, cases[i].msg);
		assert_string_equal(out.data, "To: a@b.c\n");
		/* header_add_text() refuses the same line breaks and names. */
		if (strchr(cases[i].value, '\r') || strchr(cases[i].value, '\n') ||
		    strncmp(cases[i].msg, "invalid header name", 19) == 0) {
			buf_reset(&err);
			assert_int_equal(header_add_text(&out, cases[i].name, cases[i].value, &err), -1);
			assert_string_equal(err.data, cases[i].msg);
			assert_string_equal(out.data, "To: a@b.c\n");
		}
		buf_release(&out);
		buf_release(&err);
	}
}

static void check_value_finds_cr_lf_nul(void **state)
{
	static const struct { const char *p; size_t len; const char *msg; } cases[] = {
		{ "fine text", 9, NULL },
		{ "", 0, NULL },
		{ "caf\xc3\xa9\ttab", 9, NULL },
		{ "a\rb", 3, "CR in text bound for a mail header: \"a\\rb\"" },
		{ "a\nb", 3, "LF in text bound for a mail header: \"a\\nb\"" },
		{ "a\0b", 3, "NUL in text bound for a mail header: \"a\\x00b\"" },
		{ "x\r\nBcc: v@x", 11, "CR in text bound for a mail header: \"x\\r\\nBcc: v@x\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf err = BUF_INIT;
		int r = header_check_bytes(cases[i].p, cases[i].len, &err);

		if (!cases[i].msg) {
			assert_int_equal(r, 0);
			assert_int_equal(header_check_value(cases[i].p, &err), 0);
			assert_string_equal(err.data, "");
		} else {
			assert_int_equal(r, -1);
			assert_string_equal(err.data, cases[i].msg);
		}
		buf_release(&err);
	}
	{
		struct buf err = BUF_INIT;

		assert_int_equal(header_check_value("To: x\nBcc: y", &err), -1);
		assert_string_equal(err.data, "LF in text bound for a mail header: \"To: x\\nBcc: y\"");
		buf_release(&err);
	}
}

static void ascii_subjects_fold_at_spaces(void **state)
{
	static const char *const subjects[] = {
		"[linus:master] [mm]  fe09c81434: aim7.jobs-per-min 1.2% regression",
		"[linus:master] [x86/its]  fe09c81434:  aim7.jobs-per-min 1.2% regression",
		"[linux-next:master] [do_pollfd()]  0123456789: will-it-scale.per_thread_ops "
		"-12.3% regression of a metric with a long name and more words after it so "
		"that it needs several lines to hold it all, with  two  spaces  and\ttabs",
		"   leading and trailing white space is kept   ",
		"one-very-long-word-without-any-white-space-that-cannot-be-folded-anywhere-at-all-x",
		"short then one-very-long-word-without-any-white-space-that-cannot-be-folded-anywhere",
		"Re: [PATCH] fix a=b? and 100% of_the_underscores ?= ? = (comments) \"quotes\"",
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(subjects); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT, u = BUF_INIT;
		size_t longest_word = 0, n = 0;
		const char *p;

		if (header_add_text(&out, "Subject", subjects[i], &err))
			fail_msg("%s: %s", subjects[i], err.data);
		for (p = subjects[i]; ; p++) {
			if (!*p || *p == ' ' || *p == '\t') {
				if (n > longest_word)
					longest_word = n;
				n = 0;
				if (!*p)
					break;
			} else {
				n++;
			}
		}
		/* Within 78 unless one word alone is longer. */
		check_field(out.data, longest_word + 10 > 78 ? longest_word + 10 : 78);
		assert_null(strstr(out.data, "=?UTF-8?"));
		unfold(out.data, &u);
		assert_memory_equal(u.data, "Subject: ", 9);
		assert_string_equal(u.data + 9, subjects[i]);
		buf_release(&out);
		buf_release(&err);
		buf_release(&u);
	}
}

static void known_folds(void **state)
{
	static const struct { const char *name, *value, *want; } cases[] = {
		{ "Subject", "[linus:master] [x86/its]  fe09c81434:  aim7.jobs-per-min 1.2% regression",
		  "Subject: [linus:master] [x86/its]  fe09c81434:  aim7.jobs-per-min 1.2%\n"
		  " regression\n" },
		{ "Subject", "[linus:master] [pidfs]  3ce7e82751: stress-ng.pthread.ops_per_sec "
		  "115.4% improvement",
		  "Subject: [linus:master] [pidfs]  3ce7e82751: stress-ng.pthread.ops_per_sec\n"
		  " 115.4% improvement\n" },
		/* Exactly 78 stays on one line; 79 folds. */
		{ "Subject", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbb",
		  "Subject: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbb\n" },
		{ "Subject", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbb",
		  "Subject: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n bbbbb\n" },
		/* Never before the first word: a lone long word stays after the name. */
		{ "Subject", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "Subject: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n" },
		/* Trailing white space is not folded onto a line of its own. */
		{ "Subject", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa          ",
		  "Subject: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa          \n" },
		/* A run of spaces moves to the next line whole. */
		{ "Subject", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa   bbbbbbbb",
		  "Subject: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n   bbbbbbbb\n" },
		/* Q or B, whichever is shorter: "caf=C3=A9" is 9, "Y2Fmw6k=" 8. */
		{ "Subject", "caf\xc3\xa9", "Subject: =?UTF-8?B?Y2Fmw6k=?=\n" },
		{ "Subject", "Stra\xc3\x9f" "e", "Subject: =?UTF-8?Q?Stra=C3=9Fe?=\n" },
		{ "Subject", "[PATCH] Qualit\xc3\xa4tssicherung au lait",
		  "Subject: [PATCH] =?UTF-8?Q?Qualit=C3=A4tssicherung?= au lait\n" },
		/* Adjacent words that need encoding: one sequence, space inside. */
		{ "Subject", "Z\xc3\xbcrich Bahnhofstra\xc3\x9f" "e",
		  "Subject: =?UTF-8?Q?Z=C3=BCrich_Bahnhofstra=C3=9Fe?=\n" },
		{ "Subject", "Gr\xc3\xbc\xc3\x9f" "e K\xc3\xb6ln",
		  "Subject: =?UTF-8?B?R3LDvMOfZSBLw7Zsbg==?=\n" },
		{ "Subject", "Z\xc3\xbcrich and Stra\xc3\x9f" "e",
		  "Subject: =?UTF-8?Q?Z=C3=BCrich?= and =?UTF-8?Q?Stra=C3=9Fe?=\n" },
		/* B where it is shorter. */
		{ "Subject", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "Subject: =?UTF-8?B?5pel5pys6Kqe?=\n" },
		/* Something that looks like an encoded-word is encoded itself. */
		{ "Subject", "fix =?UTF-8?Q?abc?= parsing",
		  "Subject: fix =?UTF-8?B?PT9VVEYtOD9RP2FiYz89?= parsing\n" },
		/* Control characters are encoded, not written raw. */
		{ "Subject", "bell\x07 here", "Subject: =?UTF-8?Q?bell=07?= here\n" },
		{ "Subject", "", "Subject:\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT;

		if (header_add_text(&out, cases[i].name, cases[i].value, &err))
			fail_msg("%s: %s", cases[i].value, err.data);
		assert_string_equal(out.data, cases[i].want);
		buf_release(&out);
		buf_release(&err);
	}
}

static void over_long_words_fail_only_past_998(void **state)
{
	static const struct { const char *before; size_t word; int ok; } cases[] = {
		{ "", 989, 1 },		/* "Subject: " + 989 = 998 */
		{ "", 990, 0 },
		{ "short ", 990, 1 },	/* folded before the word: " " + 990 */
		{ "short ", 997, 1 },	/* " " + 997 = 998 */
		{ "short ", 998, 0 },
		{ "", 2000, 0 },
		{ "a b c ", 2000, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf value = BUF_INIT, out = BUF_INIT, err = BUF_INIT, want = BUF_INIT;
		int r;

		buf_adds(&value, cases[i].before);
		buf_addchars(&value, 'x', cases[i].word);
		buf_adds(&out, "To: a@b.c\n");
		r = header_add_text(&out, "Subject", value.data, &err);
		if (cases[i].ok) {
			if (r)
				fail_msg("%zu: %s", cases[i].word, err.data);
			check_field(out.data + 10, 998);
		} else {
			size_t line = cases[i].word + (*cases[i].before ? 1 : 9);

			assert_int_equal(r, -1);
			assert_string_equal(out.data, "To: a@b.c\n");
			buf_addf(&want, "header Subject: a line of %zu octets that cannot be folded "
				 "(at most 998)", line);
			assert_string_equal(err.data, want.data);
			/* header_add() folds the same way and has the same limit. */
			buf_reset(&err);
			assert_int_equal(header_add(&out, "Subject", value.data, &err), -1);
			assert_string_equal(err.data, want.data);
			assert_string_equal(out.data, "To: a@b.c\n");
		}
		buf_release(&value);
		buf_release(&out);
		buf_release(&err);
		buf_release(&want);
	}
}

/* Subjects that must come back unchanged through encode, fold, unfold, decode. */
static const char *const texts[] = {
	"Jos\xc3\xa9 M\xc3\xbcller",
	"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88",
	"[linus:master] [mm]  1234567890: \xe2\x80\x9cquoted\xe2\x80\x9d 12.5% regression",
	"\xf0\x9f\x98\x80\xf0\x9f\x98\x80 emoji \xf0\x9f\xa4\x96 and \xf0\x9f\x98\x80",
	"two  spaces  between  caf\xc3\xa9  and  th\xc3\xa9",
	"caf\xc3\xa9\t\tth\xc3\xa9 after tabs",
	"  leading caf\xc3\xa9 and trailing  ",
	"under_score caf\xc3\xa9_th\xc3\xa9 eq=uals ques?tion caf\xc3\xa9=?th\xc3\xa9?=",
	"=?UTF-8?Q?looks_encoded?= =?utf-8?b?YWJj?= =?x?= plain",
	"a=?b?c?=d and =?iso-8859-1?q?x?= in the middle",
	"\xc3\xa9",
	"\x01\x1b[31mred\x1b[0m control characters",
	"Re: [PATCH v2 3/7] mm: \xc3\xa9 fix the \xe2\x80\x94 thing (\xc3\xa9t\xc3\xa9)",
	"\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82, \xd0\xbc\xd0\xb8\xd1\x80!",
	"\xd8\xa7\xd9\x84\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a\xd8\xa9 mixed \xd7\xa2\xd7\x91\xd7\xa8\xd7\x99\xd7\xaa",
};

/*
 * The longest line header_add_text() may need for text: 78, unless a
 * plain word (with "Subject: " or the white space before it) or a white
 * space run with the shortest encoded-word after it is longer.
 */
static size_t allowed_line(const char *text)
{
	size_t allowed = 78, ws, w;
	const char *p = text;

	while (*p) {
		for (ws = 0; p[ws] == ' ' || p[ws] == '\t'; ws++)
			;
		p += ws;
		for (w = 0; p[w] && p[w] != ' ' && p[w] != '\t'; w++)
			;
		if (!header_needs_encoding(p, w) && (p == text + ws ? 9 : 0) + ws + w > allowed)
			allowed = (p == text + ws ? 9 : 0) + ws + w;
		if (header_needs_encoding(p, w) && ws + 20 > allowed)
			allowed = ws + 20;
		p += w;
	}
	return allowed;
}

static void check_round_trip(const char *text)
{
	struct buf out = BUF_INIT, err = BUF_INIT, d = BUF_INIT;

	if (header_add_text(&out, "Subject", text, &err))
		fail_msg("%s: %s", text, err.data);
	check_field(out.data, allowed_line(text));
	check_encoded_words(out.data);
	decoded_body(out.data, "Subject", &d);
	if (strcmp(d.data, text))
		fail_msg("round trip:\n  in:  %s\n  out: %s\n  via:\n%s", text, d.data, out.data);
	buf_release(&out);
	buf_release(&err);
	buf_release(&d);
}

static void non_ascii_subjects_round_trip(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(texts); i++)
		check_round_trip(texts[i]);
}

/* Long runs: many encoded-words, folded, each split between characters. */
static void long_subjects_round_trip(void **state)
{
	static const char *const pieces[] = {
		"\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "a", " ", "_", "=", "?",
		"\xf0\x90\x8d\x88", "\xe2\x82\xac", "\xc3\xa9\xc3\xa9 ", "ab ",
	};
	size_t i, len, k;

	(void)state;
	/* One piece repeated: lengths around every split point. */
	for (i = 0; i < N(pieces); i++) {
		for (len = 1; len < 200; len += (len < 40 ? 1 : 13)) {
			struct buf t = BUF_INIT;

			buf_adds(&t, "start ");
			for (k = 0; k < len; k++)
				buf_adds(&t, pieces[i]);
			buf_adds(&t, "\xc3\xa9 end");
			check_round_trip(t.data);
			buf_release(&t);
		}
	}
	/* Mixtures (a fixed pseudo-random sequence). */
	{
		unsigned x = 12345;

		for (i = 0; i < 300; i++) {
			struct buf t = BUF_INIT;
			size_t n = i % 120 + 1;

			for (k = 0; k < n; k++) {
				x = x * 1103515245 + 12345;
				buf_adds(&t, pieces[(x >> 16) % N(pieces)]);
			}
			check_round_trip(t.data);
			buf_release(&t);
		}
	}
}

static void invalid_utf8_is_refused(void **state)
{
	static const char *const bad[] = {
		"caf\xe9", "\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		"\xf8\x88\x80\x80\x80", "ok \xff",
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(bad); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT;

		assert_int_equal(header_add_text(&out, "Subject", bad[i], &err), -1);
		assert_non_null(strstr(err.data, "is not valid UTF-8"));
		assert_int_equal(out.len, 0);
		buf_release(&out);
		buf_release(&err);
	}
}

static void utf8_char_lengths(void **state)
{
	static const struct { const char *s; size_t n, want; } cases[] = {
		{ "a", 1, 1 }, { "", 0, 0 }, { "\xc2\x80", 2, 2 }, { "\xdf\xbf", 2, 2 },
		{ "\xe0\xa0\x80", 3, 3 }, { "\xef\xbf\xbf", 3, 3 }, { "\xf0\x90\x80\x80", 4, 4 },
		{ "\xf4\x8f\xbf\xbf", 4, 4 }, { "\xc0\x80", 2, 0 }, { "\xc1\xbf", 2, 0 },
		{ "\xe0\x9f\xbf", 3, 0 }, { "\xed\xa0\x80", 3, 0 }, { "\xed\x9f\xbf", 3, 3 },
		{ "\xf0\x8f\xbf\xbf", 4, 0 }, { "\xf4\x90\x80\x80", 4, 0 }, { "\xf5\x80\x80\x80", 4, 0 },
		{ "\x80", 1, 0 }, { "\xc3", 1, 0 }, { "\xc3\xa9", 1, 0 }, { "\xe2\x82", 2, 0 },
		{ "\xe2\x28\xa1", 3, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (header_utf8_char(cases[i].s, cases[i].n) != cases[i].want)
			fail_msg("case %zu: %zu, want %zu", i, header_utf8_char(cases[i].s, cases[i].n),
				 cases[i].want);
}

static void quote_input_is_safe_to_print(void **state)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "plain", "\"plain\"" },
		{ "a\r\nb\t\"q\"\\", "\"a\\r\\nb\\t\\\"q\\\"\\\\\"" },
		{ "esc\x1b[0m del\x7f", "\"esc\\x1b[0m del\\x7f\"" },
		{ "caf\xc3\xa9 \xe6\x97\xa5", "\"caf\xc3\xa9 \xe6\x97\xa5\"" },
		{ "c1 \xc2\x9b", "\"c1 \\xc2\\x9b\"" },
		{ "bad \xff\xc3", "\"bad \\xff\\xc3\"" },
		{ "0123456789012345678901234567890123456789012345678901234567890123456789012345678901",
		  "\"01234567890123456789012345678901234567890123456789012345678901234567890123456789...\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;

		header_quote_input(&out, cases[i].in);
		assert_string_equal(out.data, cases[i].want);
		buf_release(&out);
	}
}

static void writers_respect_the_limit(void **state)
{
	struct buf out = BUF_INIT, err = BUF_INIT;
	struct address a = { (char *)"Jos\xc3\xa9", (char *)"jose@example.org" };

	(void)state;
	out.limit = 30;
	buf_adds(&out, "X: y\n");
	assert_int_equal(header_add(&out, "Subject", "a value that is too long", &err), -1);
	assert_string_equal(err.data, "header Subject: the message header passed its size limit");
	assert_string_equal(out.data, "X: y\n");
	assert_int_equal(header_add_text(&out, "Subject", "caf\xc3\xa9 and more text", &err), -1);
	assert_string_equal(out.data, "X: y\n");
	assert_int_equal(header_add_addresses(&out, "To", &a, 1, &err), -1);
	assert_string_equal(err.data, "header To: the message header passed its size limit");
	assert_string_equal(out.data, "X: y\n");
	assert_int_equal(header_add(&out, "Subject", "short", &err), 0);
	assert_string_equal(out.data, "X: y\nSubject: short\n");
	buf_release(&out);
	buf_release(&err);
}

static struct address mk(const char *name, const char *email)
{
	struct address a;

	a.name = (char *)name;
	a.email = (char *)email;
	return a;
}

static void address_fields(void **state)
{
	struct buf out = BUF_INIT, err = BUF_INIT;
	struct address one[] = { mk("Rafael J. Wysocki", "rafael.j.wysocki@intel.com") };
	struct address two[] = { mk("kernel test robot", "oliver.sang@intel.com"),
				 mk("", "lkp@intel.com") };

	(void)state;
	assert_int_equal(header_add_addresses(&out, "To", one, 1, &err), 0);
	assert_string_equal(out.data, "To: \"Rafael J. Wysocki\" <rafael.j.wysocki@intel.com>\n");
	buf_reset(&out);
	assert_int_equal(header_add_addresses(&out, "From", two, 2, &err), 0);
	assert_string_equal(out.data, "From: kernel test robot <oliver.sang@intel.com>, lkp@intel.com\n");
	buf_reset(&out);
	assert_int_equal(header_add_addresses(&out, "To", one, 0, &err), -1);
	assert_string_equal(err.data, "header To: no addresses");
	assert_int_equal(out.len, 0);
	buf_release(&out);
	buf_release(&err);
}

/* Addresses built in code are checked too: no injection through them. */
static void address_fields_refuse_bad_addresses(void **state)
{
	static const struct { const char *name, *email, *msg; } cases[] = {
		{ "Eve\r\nBcc: victim@example.org", "eve@example.org",
		  "header Cc: address 2: address \"eve@example.org\": a control character is not "
		  "allowed in the name" },
		{ "Eve", "eve@example.org>\r\nBcc: victim@example.org",
		  "header Cc: address 2: address \"eve@example.org>\\r\\nBcc: victim@example.org\": "
		  "more than one '@' in the address" },
		{ "Eve", "eve@example.org\nBcc:victim",
		  "header Cc: address 2: address \"eve@example.org\\nBcc:victim\": a control "
		  "character is not allowed in an address" },
		{ "Eve", "", "header Cc: address 2: address \"\": no address" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT, err = BUF_INIT;
		struct address list[] = { mk("Good", "good@example.org"),
					  mk(cases[i].name, cases[i].email) };

		buf_adds(&out, "From: x@y.z\n");
		assert_int_equal(header_add_addresses(&out, "Cc", list, 2, &err), -1);
		assert_string_equal(err.data, cases[i].msg);
		assert_string_equal(out.data, "From: x@y.z\n");
		buf_release(&out);
		buf_release(&err);
	}
}

static void twenty_addresses_fold_after_commas(void **state)
{
	static const char *const names[] = {
		"", "kernel test robot", "Rafael J. Wysocki", "Jos\xc3\xa9 M\xc3\xbcller",
		"\xe6\x9d\x8e\xe5\xb0\x8f\xe9\xbe\x8d", "Doe, John", "Ingo Moln\xc3\xa1r",
		"Bot \xf0\x9f\xa4\x96", "Linus Torvalds", "O'Brien",
	};
	struct address list[20];
	struct buf out = BUF_INIT, err = BUF_INIT, u = BUF_INIT, want = BUF_INIT;
	char emails[20][64];
	const char *p;
	size_t i;

	(void)state;
	for (i = 0; i < 20; i++) {
		snprintf(emails[i], sizeof(emails[i]), "person.number%zu@subsystem%zu.example.org",
			 i, i % 3);
		list[i] = mk(names[i % N(names)], emails[i]);
		if (i)
			buf_adds(&want, ", ");
		address_format(&want, &list[i]);
	}
	assert_int_equal(header_add_addresses(&out, "Cc", list, 20, &err), 0);
	check_field(out.data, 78);
	/* Unfolding gives the addresses as address_format() writes them. */
	unfold(out.data, &u);
	assert_memory_equal(u.data, "Cc: ", 4);
	assert_string_equal(u.data + 4, want.data);
	/* Folded after commas only: each line but the last ends with ','. */
	for (p = out.data; (p = strchr(p, '\n')) && p[1]; p++)
		assert_int_equal(p[-1], ',');
	assert_true(strchr(out.data, '\n') != out.data + out.len - 1);	/* it did fold */
	buf_release(&out);
	buf_release(&err);
	buf_release(&u);
	buf_release(&want);
}

/* A name too long for one line is split between encoded-words. */
static void long_names_fold_inside(void **state)
{
	struct buf name = BUF_INIT, out = BUF_INIT, err = BUF_INIT, u = BUF_INIT, d = BUF_INIT;
	struct address list[2];
	size_t i, words;

	(void)state;
	for (i = 0; i < 80; i++)
		buf_adds(&name, i % 10 == 9 ? " " : "\xe6\x9d\x8e");	/* 3 bytes, or a space */
	list[0] = mk("Short", "short@example.org");
	list[1] = mk(name.data, "long@example.org");
	assert_int_equal(header_add_addresses(&out, "To", list, 2, &err), 0);
	check_field(out.data, 78);
	words = check_encoded_words(out.data);
	assert_true(words >= 4);
	unfold(out.data, &u);
	assert_int_equal(rfc2047_words(u.data, &d), (int)words);
	buf_reset(&u);
	buf_addf(&u, "To: Short <short@example.org>, %s <long@example.org>", name.data);
	assert_string_equal(d.data, u.data);
	buf_release(&name);
	buf_release(&out);
	buf_release(&err);
	buf_release(&u);
	buf_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(structured_fields_are_written_as_given),
		cmocka_unit_test(injection_and_bad_names_are_refused),
		cmocka_unit_test(check_value_finds_cr_lf_nul),
		cmocka_unit_test(ascii_subjects_fold_at_spaces),
		cmocka_unit_test(known_folds),
		cmocka_unit_test(over_long_words_fail_only_past_998),
		cmocka_unit_test(non_ascii_subjects_round_trip),
		cmocka_unit_test(long_subjects_round_trip),
		cmocka_unit_test(invalid_utf8_is_refused),
		cmocka_unit_test(utf8_char_lengths),
		cmocka_unit_test(quote_input_is_safe_to_print),
		cmocka_unit_test(writers_respect_the_limit),
		cmocka_unit_test(address_fields),
		cmocka_unit_test(address_fields_refuse_bad_addresses),
		cmocka_unit_test(twenty_addresses_fold_after_commas),
		cmocka_unit_test(long_names_fold_inside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
