#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "mail.h"
#include "reply.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct pair {
	const char *a, *b;
};

/*
 * One reply shape.  text is the decoded text of a reply, or with mail set
 * a whole message that goes through mail_parse() first (then flowed,
 * delsp and sender come from it).  comments are {after_quote, text},
 * commands {name, args}, trailers {key, value}; the lists end at the
 * first empty slot and must match exactly.
 */
static const struct reply_case {
	const char *name;
	const char *text;
	int mail, flowed, delsp;
	const char *sender;
	size_t quoted, new_lines;
	struct pair comments[4];
	struct pair commands[6];
	struct pair trailers[6];
	size_t problems;
} cases[] = {
	{ "bottom-posted inline (mutt)",
	  "On Tue, Mar 10, 2026 at 01:42:00PM +0800, kernel test robot wrote:\n"
	  "> Hello,\n"
	  ">\n"
	  "> kernel test robot noticed a 3.8% regression of vm-scalability.throughput on:\n"
	  ">\n"
	  "> commit: 9890ecab6a (\"mm: zero huge pages\")\n"
	  "\n"
	  "This is expected: the patch trades throughput for latency.\n"
	  "\n"
	  "> test: anon-w-seq-mt\n"
	  "> cpufreq_governor: performance\n"
	  "\n"
	  "This test exercises the THP sequential zeroing path.\n"
	  "#perfbot invalid\n"
	  "\n"
	  "Thanks,\n"
	  "Ankur\n",
	  0, 0, 0, "ankur.a.arora@oracle.com", 7, 5,
	  { { "> commit: 9890ecab6a (\"mm: zero huge pages\")",
	      "This is expected: the patch trades throughput for latency." },
	    { "> cpufreq_governor: performance",
	      "This test exercises the THP sequential zeroing path.\n#perfbot invalid\n\n"
	      "Thanks,\nAnkur" } },
	  { { "invalid", "" } }, { { NULL, NULL } }, 0 },

	{ "top-posted (no comment: nothing follows the quote)",
	  "Thanks, we are looking into it.\n"
	  "#perfbot fixed-by: 1234abcd5678\n"
	  "\n"
	  "Jane\n"
	  "\n"
	  "On Tue, Mar 10, 2026 at 5:42 AM kernel test robot <lkp@intel.com> wrote:\n"
	  "> Hello,\n"
	  ">\n"
	  "> kernel test robot noticed a 3.8% regression\n",
	  0, 0, 0, "jane@example.org", 3, 3,
	  { { NULL, NULL } }, { { "fixed-by", "1234abcd5678" } }, { { NULL, NULL } }, 0 },

	{ "Outlook: -----Original Message----- quotes the rest",
	  "Confirmed on our side too.\n"
	  "Reviewed-by: Jane Doe <jane@example.org>\n"
	  "\n"
	  "-----Original Message-----\n"
	  "From: kernel test robot <lkp@intel.com>\n"
	  "Sent: Tuesday, March 10, 2026 1:42 PM\n"
	  "To: Doe, Jane <jane@example.org>\n"
	  "Subject: [linus:master] [mm] 9890ecab6a: regression\n"
	  "\n"
	  "#perfbot invalid\n"
	  "Hello,\n",
	  0, 0, 0, "jane@example.org", 7, 2,
	  { { NULL, NULL } }, { { NULL, NULL } },
	  { { "Reviewed-by", "Jane Doe <jane@example.org>" } }, 0 },

	{ "Outlook: a From/Sent/Subject block under a rule of underscores",
	  "Looks like noise to me, see below.\n"
	  "\n"
	  "________________________________\n"
	  "From: kernel test robot <oliver.sang@intel.com>\n"
	  "Sent: Wednesday, March 11, 2026 09:00\n"
	  "To: Doe, Jane\n"
	  "Cc: lkp\n"
	  "Subject: [linus:master] [mm] 9890ecab6a: regression\n"
	  "\n"
	  "Hello,\n"
	  "#perfbot invalid\n"
	  "Tested-by: Jane Doe <jane@example.org>\n",
	  0, 0, 0, "jane@example.org", 9, 1,
	  { { NULL, NULL } }, { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "a patch header in the text is not an Outlook block (no Sent:)",
	  "> regression\n"
	  "\n"
	  "Here is what I will send:\n"
	  "\n"
	  "From: Jane Doe <jane@example.org>\n"
	  "Date: Tue, 10 Mar 2026 10:00:00 +0100\n"
	  "Subject: [PATCH] mm: fix\n"
	  "\n"
	  "Fixes: 9890ecab6a (\"mm: zero huge pages\")\n",
	  0, 0, 0, "jane@example.org", 1, 5,
	  { { "> regression",
	      "Here is what I will send:\n\nFrom: Jane Doe <jane@example.org>\n"
	      "Date: Tue, 10 Mar 2026 10:00:00 +0100\nSubject: [PATCH] mm: fix\n\n"
	      "Fixes: 9890ecab6a (\"mm: zero huge pages\")" } },
	  { { NULL, NULL } }, { { "Fixes", "9890ecab6a (\"mm: zero huge pages\")" } }, 0 },

	{ "nested quotes, with and without spaces; gnus attribution",
	  "Jane Doe <jane@example.org> writes:\n"
	  "\n"
	  "> Kernel Robot <lkp@intel.com> wrote:\n"
	  ">> kernel test robot noticed a -5.7% regression\n"
	  ">>\n"
	  ">> commit: abc123\n"
	  ">\n"
	  "> Is this real?\n"
	  "\n"
	  "Yes, reproduced here.\n"
	  "> > > deeper\n"
	  ">>>>even deeper without spaces\n"
	  "Also this.\n",
	  0, 0, 0, "bob@example.org", 8, 2,
	  { { "> Is this real?", "Yes, reproduced here." },
	    { ">>>>even deeper without spaces", "Also this." } },
	  { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "format=flowed: soft breaks joined, stuffed '>' is no quote",
	  "On Tue, Mar 10, 2026, kernel test robot wrote:\n"
	  "> kernel test robot noticed a 3.8% regression of \n"
	  "> vm-scalability.throughput on:\n"
	  "\n"
	  "This regression is expected with the new zeroing code and we decided \n"
	  "to accept it.\n"
	  " >this line is space-stuffed, not a quote\n"
	  "#perfbot invalid\n"
	  "-- \n"
	  "Jane\n",
	  0, 1, 0, "jane@example.org", 1, 3,
	  { { "> kernel test robot noticed a 3.8% regression of vm-scalability.throughput on:",
	      "This regression is expected with the new zeroing code and we decided to "
	      "accept it.\n>this line is space-stuffed, not a quote\n#perfbot invalid" } },
	  { { "invalid", "" } }, { { NULL, NULL } }, 0 },

	{ "the same text when the part does not say format=flowed",
	  "On Tue, Mar 10, 2026, kernel test robot wrote:\n"
	  "> kernel test robot noticed a 3.8% regression of \n"
	  "> vm-scalability.throughput on:\n"
	  "\n"
	  "This regression is expected with the new zeroing code and we decided \n"
	  "to accept it.\n"
	  " >this line is space-stuffed, not a quote\n"
	  "#perfbot invalid\n"
	  "-- \n"
	  "Jane\n",
	  0, 0, 0, "jane@example.org", 3, 3,
	  { { "> vm-scalability.throughput on:",
	      "This regression is expected with the new zeroing code and we decided \n"
	      "to accept it." },
	    { " >this line is space-stuffed, not a quote", "#perfbot invalid" } },
	  { { "invalid", "" } }, { { NULL, NULL } }, 0 },

	{ "format=flowed with DelSp=yes: the soft-break space goes",
	  "> regression\n"
	  "Please retest with commit 1234 \n"
	  "abcd, thanks.\n",
	  0, 1, 1, NULL, 1, 1,
	  { { "> regression", "Please retest with commit 1234abcd, thanks." } },
	  { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "quoted-printable soft breaks inside quoted and new lines (whole mail)",
	  "From: Jane Doe <jane@example.org>\n"
	  "Subject: Re: regression\n"
	  "Date: Tue, 10 Mar 2026 10:00:00 +0100\n"
	  "Content-Type: text/plain; charset=utf-8\n"
	  "Content-Transfer-Encoding: quoted-printable\n"
	  "\n"
	  "On Tue, Mar 10, 2026 at 01:42:00PM +0800, kernel test robot <lkp@intel.com> =\n"
	  "wrote:\n"
	  "> kernel test robot noticed a 3.8% regression of vm-scalability.throughput o=\n"
	  "n:\n"
	  ">=20\n"
	  "> commit: 9890ecab6a\n"
	  "\n"
	  "Na=C3=AFve question: is this THP-only?\n"
	  "Tested-by: Jane Doe <jane@example.org>\n"
	  "#perfbot =\n"
	  "invalid\n",
	  1, 0, 0, NULL, 3, 3,
	  { { "> commit: 9890ecab6a",
	      "Na\xc3\xafve question: is this THP-only?\nTested-by: Jane Doe <jane@example.org>\n"
	      "#perfbot invalid" } },
	  { { "invalid", "" } }, { { "Tested-by", "Jane Doe <jane@example.org>" } }, 0 },

	{ "format=flowed from the Content-Type of a whole mail",
	  "From: Jane Doe <jane@example.org>\n"
	  "Date: Tue, 10 Mar 2026 10:00:00 +0100\n"
	  "Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\n"
	  "\n"
	  "> a quoted line that was \n"
	  "> wrapped\n"
	  "#perfbot dup-of: <2026031001.abc-lkp@intel.com>\n",
	  1, 0, 0, NULL, 1, 1,
	  { { "> a quoted line that waswrapped",
	      "#perfbot dup-of: <2026031001.abc-lkp@intel.com>" } },
	  { { "dup-of", "2026031001.abc-lkp@intel.com" } }, { { NULL, NULL } }, 0 },

	{ "a signature hides commands and trailers",
	  "> regression\n"
	  "\n"
	  "Looking into it.\n"
	  "-- \n"
	  "Jane Doe\n"
	  "#perfbot invalid\n"
	  "Tested-by: Jane Doe <jane@example.org>\n",
	  0, 0, 0, "jane@example.org", 1, 1,
	  { { "> regression", "Looking into it." } },
	  { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "a signature ends at the next quote",
	  "Top text.\n"
	  "-- \n"
	  "Jane\n"
	  "> quoted again\n"
	  "After the quote.\n",
	  0, 0, 0, NULL, 1, 2,
	  { { "> quoted again", "After the quote." } },
	  { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "commands inside quotes are not commands",
	  "> #perfbot invalid\n"
	  ">#perfbot reopen\n"
	  "   > #perfbot dup-of: <x@y>\n"
	  "Fine by me.\n",
	  0, 0, 0, NULL, 3, 1,
	  { { "   > #perfbot dup-of: <x@y>", "Fine by me." } },
	  { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "trailers: the sender's, and those without a person; not someone else's",
	  "> patch\n"
	  "\n"
	  "Tested-by: Jane Doe <JANE@Example.org>\n"
	  "Reviewed-by: Bob Roe <bob@example.org>\n"
	  "acked-by: jane@example.org\n"
	  "Reported-by: kernel test robot <lkp@intel.com>\n"
	  "Fixes: 1234abcd5678 (\"mm: zero huge pages\")\n"
	  "Link: https://lore.kernel.org/r/20260310.abc@intel.com\n"
	  "Closes:\n"
	  "> Acked-by: Jane Doe <jane@example.org>\n"
	  "Signed-off-by: Jane Doe <jane@example.org>\n",
	  0, 0, 0, "jane@example.org", 2, 8,
	  { { "> patch",
	      "Tested-by: Jane Doe <JANE@Example.org>\nReviewed-by: Bob Roe <bob@example.org>\n"
	      "acked-by: jane@example.org\nReported-by: kernel test robot <lkp@intel.com>\n"
	      "Fixes: 1234abcd5678 (\"mm: zero huge pages\")\n"
	      "Link: https://lore.kernel.org/r/20260310.abc@intel.com\nCloses:" },
	    { "> Acked-by: Jane Doe <jane@example.org>",
	      "Signed-off-by: Jane Doe <jane@example.org>" } },
	  { { NULL, NULL } },
	  { { "Tested-by", "Jane Doe <JANE@Example.org>" }, { "Acked-by", "jane@example.org" },
	    { "Fixes", "1234abcd5678 (\"mm: zero huge pages\")" },
	    { "Link", "https://lore.kernel.org/r/20260310.abc@intel.com" } }, 0 },

	{ "trailer lines as git reads them: blanks before ':', no space inside the key",
	  "Tested-by :  Jane Doe <jane@example.org>\n"
	  "Closes\t: https://lore.kernel.org/oe-lkp/202603101342.297fb270-lkp@intel.com\n"
	  "Acked by: Jane Doe <jane@example.org>\n"
	  "Link https://lore.kernel.org/r/a:b\n",
	  0, 0, 0, "jane@example.org", 0, 4,
	  { { NULL, NULL } }, { { NULL, NULL } },
	  { { "Tested-by", "Jane Doe <jane@example.org>" },
	    { "Closes", "https://lore.kernel.org/oe-lkp/202603101342.297fb270-lkp@intel.com" } },
	  0 },

	{ "no sender: person trailers are not taken",
	  "Tested-by: Jane Doe <jane@example.org>\n"
	  "Closes: https://lore.kernel.org/oe-lkp/202603101342.297fb270-lkp@intel.com\n",
	  0, 0, 0, NULL, 0, 2,
	  { { NULL, NULL } }, { { NULL, NULL } },
	  { { "Closes", "https://lore.kernel.org/oe-lkp/202603101342.297fb270-lkp@intel.com" } },
	  0 },

	{ "command forms; unknown ones and missing arguments are commands not understood",
	  "> report\n"
	  "#perfbot frobnicate\n"
	  "#perfbot fixed-by:\n"
	  "#perfbot\n"
	  "#perfbotx invalid\n"
	  "#perfbot dup-of: <202603101342.297fb270-lkp@intel.com>\n"
	  "  #PERFBOT Reopen: the fix was reverted\n"
	  "#perfbot fixed-by 1234abcd\n",
	  0, 0, 0, NULL, 1, 7,
	  { { "> report",
	      "#perfbot frobnicate\n#perfbot fixed-by:\n#perfbot\n#perfbotx invalid\n"
	      "#perfbot dup-of: <202603101342.297fb270-lkp@intel.com>\n"
	      "  #PERFBOT Reopen: the fix was reverted\n#perfbot fixed-by 1234abcd" } },
	  { { "frobnicate", "" }, { "fixed-by", "" },
	    { "dup-of", "202603101342.297fb270-lkp@intel.com" },
	    { "reopen", "the fix was reverted" }, { "fixed-by", "1234abcd" } },
	  { { NULL, NULL } }, 1 },

	{ "Gmail's attribution wrapped onto two lines",
	  "On Tue, Mar 10, 2026 at 5:42 AM kernel test robot <\n"
	  "oliver.sang@intel.com> wrote:\n"
	  ">\n"
	  "> kernel test robot noticed a 3.8% regression\n"
	  "\n"
	  "ok, looking\n",
	  0, 0, 0, NULL, 2, 1,
	  { { "> kernel test robot noticed a 3.8% regression", "ok, looking" } },
	  { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "after_quote skips quote lines without text",
	  "> The numbers:\n"
	  ">   1562   +8.0%\n"
	  ">\n"
	  "> \n"
	  "\n"
	  "Thanks.\n",
	  0, 0, 0, NULL, 4, 1,
	  { { ">   1562   +8.0%", "Thanks." } },
	  { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "a line ending in ':' before a quote is no attribution unless it says so",
	  "> old\n"
	  "I see this in the log:\n"
	  "> BUG: soft lockup\n"
	  "Any idea?\n",
	  0, 0, 0, NULL, 2, 2,
	  { { "> old", "I see this in the log:" }, { "> BUG: soft lockup", "Any idea?" } },
	  { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "CRLF left in the text is read as LF",
	  "> a\r\nb\r\n",
	  0, 0, 0, NULL, 1, 1,
	  { { "> a", "b" } }, { { NULL, NULL } }, { { NULL, NULL } }, 0 },

	{ "empty text", "", 0, 0, 0, NULL, 0, 0,
	  { { NULL, NULL } }, { { NULL, NULL } }, { { NULL, NULL } }, 0 },
};

static size_t count_pairs(const struct pair *p, size_t max)
{
	size_t n = 0;

	while (n < max && p[n].a)
		n++;
	return n;
}

static void check_case(const struct reply_case *c)
{
	struct reply_options ro = { c->flowed, c->delsp, c->sender };
	struct mail *m = NULL;
	struct buf err = BUF_INIT;
	struct reply *r;
	size_t i;

	if (c->mail) {
		if (mail_parse(c->text, strlen(c->text), &m, &err))
			fail_msg("%s: %s", c->name, err.data);
		ro.flowed = m->text_part.flowed;
		ro.delsp = m->text_part.delsp;
		ro.sender = m->from ? m->from->email : NULL;
		r = reply_analyse(m->text, m->text_len, &ro);
	} else {
		r = reply_analyse(c->text, strlen(c->text), &ro);
	}
	if (r->quoted_lines != c->quoted || r->new_lines != c->new_lines)
		fail_msg("%s: %zu quoted and %zu new lines, want %zu and %zu", c->name,
			 r->quoted_lines, r->new_lines, c->quoted, c->new_lines);
	if (r->nr_comments != count_pairs(c->comments, N(c->comments)))
		fail_msg("%s: %zu comments, want %zu (first: %s)", c->name, r->nr_comments,
			 count_pairs(c->comments, N(c->comments)),
			 r->nr_comments ? r->comments[0].text : "-");
	for (i = 0; i < r->nr_comments; i++) {
		if (strcmp(r->comments[i].after_quote, c->comments[i].a) ||
		    strcmp(r->comments[i].text, c->comments[i].b))
			fail_msg("%s: comment %zu is [%s] after [%s], want [%s] after [%s]", c->name,
				 i, r->comments[i].text, r->comments[i].after_quote,
				 c->comments[i].b, c->comments[i].a);
	}
	if (r->nr_commands != count_pairs(c->commands, N(c->commands)))
		fail_msg("%s: %zu commands, want %zu", c->name, r->nr_commands,
			 count_pairs(c->commands, N(c->commands)));
	for (i = 0; i < r->nr_commands; i++)
		if (strcmp(r->commands[i].name, c->commands[i].a) ||
		    strcmp(r->commands[i].args, c->commands[i].b))
			fail_msg("%s: command %zu is %s [%s], want %s [%s]", c->name, i,
				 r->commands[i].name, r->commands[i].args, c->commands[i].a,
				 c->commands[i].b);
	if (r->nr_trailers != count_pairs(c->trailers, N(c->trailers)))
		fail_msg("%s: %zu trailers, want %zu", c->name, r->nr_trailers,
			 count_pairs(c->trailers, N(c->trailers)));
	for (i = 0; i < r->nr_trailers; i++)
		if (strcmp(r->trailers[i].key, c->trailers[i].a) ||
		    strcmp(r->trailers[i].value, c->trailers[i].b))
			fail_msg("%s: trailer %zu is %s: [%s], want %s: [%s]", c->name, i,
				 r->trailers[i].key, r->trailers[i].value, c->trailers[i].a,
				 c->trailers[i].b);
	if (r->nr_problems != c->problems)
		fail_msg("%s: %zu problems, want %zu (first: %s)", c->name, r->nr_problems,
			 c->problems, r->nr_problems ? r->problems[0] : "-");
	reply_free(r);
	mail_free(m);
	buf_release(&err);
}

static void reply_shapes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		check_case(&cases[i]);
}

/* Each limit holds exactly and says so once. */
static void limits_are_kept(void **state)
{
	struct buf text = BUF_INIT;
	struct reply *r;
	size_t i;

	(void)state;
	for (i = 0; i < REPLY_MAX_COMMANDS + 5; i++)
		buf_adds(&text, "#perfbot reopen\n");
	for (i = 0; i < REPLY_MAX_TRAILERS + 5; i++)
		buf_adds(&text, "Link: https://example.org/\n");
	for (i = 0; i < REPLY_MAX_COMMENTS + 5; i++)
		buf_adds(&text, "> q\nc\n");
	r = reply_analyse(text.data, text.len, NULL);
	assert_int_equal(r->nr_commands, REPLY_MAX_COMMANDS);
	assert_int_equal(r->nr_trailers, REPLY_MAX_TRAILERS);
	assert_int_equal(r->nr_comments, REPLY_MAX_COMMENTS);
	assert_int_equal(r->nr_problems, 3);
	reply_free(r);

	buf_reset(&text);
	for (i = 0; i < REPLY_MAX_PROBLEMS + 10; i++)
		buf_adds(&text, "#perfbot\n");
	r = reply_analyse(text.data, text.len, NULL);
	assert_int_equal(r->nr_commands, 0);
	assert_int_equal(r->nr_problems, REPLY_MAX_PROBLEMS + 1);
	assert_string_equal(r->problems[REPLY_MAX_PROBLEMS],
			    "more problems in the text were not listed");
	reply_free(r);
	buf_release(&text);
}

/* What perfbot does not understand is a command too, marked so: ingest
 * records it and counts it; the known words are understood in any case. */
static void commands_not_understood(void **state)
{
	static const char text[] =
		"#perfbot Frobnicate now\n"
		"#perfbot dup-of\n"
		"#perfbot UNSUBSCRIBE\n"
		"#perfbot subscribe: please\n"
		"#perfbot a-name-of-thirty-three-characters\n"
		"#perfbot a-name-of-thirty-two-characters-\n";
	struct reply *r;

	(void)state;
	r = reply_analyse(text, strlen(text), NULL);
	assert_int_equal(r->nr_commands, 5);
	assert_string_equal(r->commands[0].name, "frobnicate");
	assert_string_equal(r->commands[0].args, "now");
	assert_false(r->commands[0].understood);
	assert_string_equal(r->commands[1].name, "dup-of");
	assert_false(r->commands[1].understood);
	assert_string_equal(r->commands[2].name, "unsubscribe");
	assert_true(r->commands[2].understood);
	assert_string_equal(r->commands[3].name, "subscribe");
	assert_string_equal(r->commands[3].args, "please");
	assert_true(r->commands[3].understood);
	assert_string_equal(r->commands[4].name, "a-name-of-thirty-two-characters-");
	assert_false(r->commands[4].understood);
	assert_int_equal(r->nr_problems, 1);
	assert_non_null(strstr(r->problems[0], "longer than 32 characters"));
	reply_free(r);
}

/* A text that is not NUL-terminated is read only up to its length. */
static void length_is_respected(void **state)
{
	static const char text[] = "> q\nanswer\n#perfbot invalid\n";
	struct reply *r;

	(void)state;
	r = reply_analyse(text, strlen("> q\nanswer\n#perfbo"), NULL);
	assert_int_equal(r->nr_commands, 0);
	assert_int_equal(r->nr_comments, 1);
	assert_string_equal(r->comments[0].text, "answer\n#perfbo");
	reply_free(r);
}

/* A command that needs an argument has none when only brackets are left. */
/* An argument that is empty once its brackets are gone is none: the
 * command is recorded as not understood (perfbot-ingest(1)), not applied. */
static void empty_arguments_are_not_understood(void **state)
{
	static const char *const texts[] = {
		"#perfbot dup-of: <>\n", "#perfbot dup-of < >\n", "#perfbot fixed-by:\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct reply *r = reply_analyse(texts[i], strlen(texts[i]), NULL);

		assert_int_equal(r->nr_commands, 1);
		assert_false(r->commands[0].understood);
		assert_string_equal(r->commands[0].args, "");
		assert_int_equal(r->nr_problems, 0);
		reply_free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reply_shapes),
		cmocka_unit_test(limits_are_kept),
		cmocka_unit_test(commands_not_understood),
		cmocka_unit_test(length_is_respected),
		cmocka_unit_test(empty_arguments_are_not_understood),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
