#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "message.h"

static void message_subject_rule(void **state)
{
	static const struct {
		const char *tree, *subject, *want;
	} cases[] = {
		{ "linus/master", "mm: folio_zero_user: clear pages sequentially",
		  "[linus:master] [mm]  9890ecab6a: vm-scalability.throughput 3.8% regression" },
		{ "linus/master", "x86/its: Enable Indirect Target Selection mitigation",
		  "[linus:master] [x86/its]  9890ecab6a: vm-scalability.throughput 3.8% regression" },
		{ "linux-next/master", "do_pollfd(): convert to CLASS(fd)",
		  "[linux-next:master] [do_pollfd()]  9890ecab6a: vm-scalability.throughput 3.8% regression" },
		/* no ':' -> no group and one space */
		{ "linus/master", "Revert the previous change",
		  "[linus:master] 9890ecab6a: vm-scalability.throughput 3.8% regression" },
		/* the rule is literal: up to the first ':', quotes and all */
		{ "linus/master", "Revert \"sched/numa: Delay retrying placement\"",
		  "[linus:master] [Revert \"sched/numa]  9890ecab6a: vm-scalability.throughput 3.8% regression" },
		/* only the first '/' of the tree becomes ':' */
		{ "tip/sched/core", "sched/fair: x",
		  "[tip:sched/core] [sched/fair]  9890ecab6a: vm-scalability.throughput 3.8% regression" },
		/* a leading ':' makes no empty group */
		{ "linus/master", ": odd",
		  "[linus:master] 9890ecab6a: vm-scalability.throughput 3.8% regression" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT;

		message_subject(&out, cases[i].tree, cases[i].subject, "9890ecab6ad9c0d3d342469f3b619fd704b5c59a",
				"vm-scalability.throughput", "3.8", "regression");
		if (strcmp(out.data, cases[i].want))
			fail_msg("case %zu: got '%s'", i, out.data);
		buf_release(&out);
	}
}

static void message_ids_are_checked(void **state)
{
	static const struct {
		const char *id;
		int ok;
	} cases[] = {
		{ "202603101342.297fb270-lkp@intel.com", 1 },
		{ "m3y0xyz123.fsf@oracle.com", 1 },
		{ "", 0 }, { "no-at-sign", 0 }, { "@right", 0 }, { "left@", 0 }, { "a@b@c", 0 },
		{ "a b@c", 0 }, { "a@b>\nBcc: x@y", 0 }, { "<a@b>", 0 }, { "a@b\r", 0 }, { "caf\xc3\xa9@x", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf err = BUF_INIT;

		if ((message_check_id(cases[i].id, &err) == 0) != cases[i].ok)
			fail_msg("case %zu ('%s'): %s", i, cases[i].id, cases[i].ok ? err.data : "accepted");
		buf_release(&err);
	}
}

static void message_mint_id_format(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	message_mint_id(&out, "202603101342", "297fb270", "lkp", "lkp@intel.com");
	assert_string_equal(out.data, "202603101342.297fb270-lkp@intel.com");
	/* the domain follows the last '@'; an address without one is all domain */
	buf_reset(&out);
	message_mint_id(&out, "202603101342", "297fb270", "lkp", "\"a@b\"@lab.example.org");
	assert_string_equal(out.data, "202603101342.297fb270-lkp@lab.example.org");
	buf_reset(&out);
	message_mint_id(&out, "202603101342", "297fb270", "perfbot", "localhost");
	assert_string_equal(out.data, "202603101342.297fb270-perfbot@localhost");
	buf_release(&out);
}

static struct address from = { "kernel test robot", "lkp@example.org" };
static struct address to = { "Rafael J. Wysocki", "rafael.j.wysocki@intel.com" };
static struct address cc[] = { { "", "oe-lkp@lists.linux.dev" }, { "Jos\xc3\xa9 M\xc3\xbcller", "jose@example.org" } };

static void fields_init(struct message_fields *f)
{
	memset(f, 0, sizeof(*f));
	f->from = &from;
	f->to = &to;
	f->nr_to = 1;
	f->cc = cc;
	f->nr_cc = 2;
	f->subject = "[linus:master] [cpuidle]  16ef33422e: lmbench3.PIPE.latency.us 11.5% improvement";
	f->date = 1762498868;	/* 2025-11-07 07:01:08 UTC */
	f->zone = 480;
	f->message_id = "202511071439.d081322d-lkp@intel.com";
}

static void message_build_headers(void **state)
{
	struct message_fields f;
	struct buf out = BUF_INIT, err = BUF_INIT;
	const char *refs[] = { "a@x", "b@y" };

	(void)state;
	fields_init(&f);
	assert_int_equal(message_build(&out, &f, "\n\nHello,\n", 9, &err), 0);
	assert_string_equal(out.data,
		"From: kernel test robot <lkp@example.org>\n"
		"To: \"Rafael J. Wysocki\" <rafael.j.wysocki@intel.com>\n"
		"Cc: oe-lkp@lists.linux.dev,\n"
		" =?UTF-8?B?Sm9zw6kgTcO8bGxlcg==?= <jose@example.org>\n"
		"Subject: [linus:master] [cpuidle]  16ef33422e: lmbench3.PIPE.latency.us 11.5%\n"
		" improvement\n"
		"Date: Fri, 7 Nov 2025 15:01:08 +0800\n"
		"Message-ID: <202511071439.d081322d-lkp@intel.com>\n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=utf-8\n"
		"Content-Disposition: inline\n"
		"Content-Transfer-Encoding: 8bit\n"
		"Auto-Submitted: auto-generated\n"
		"X-Patchwork-Hint: ignore\n"
		"\n"
		"\n\nHello,\n");
	buf_reset(&out);
	f.in_reply_to = "a@x";
	f.references = refs;
	f.nr_references = 2;
	f.nr_cc = 0;
	assert_int_equal(message_build(&out, &f, "x\n", 2, &err), 0);
	assert_non_null(strstr(out.data, "\nIn-Reply-To: <a@x>\nReferences: <a@x> <b@y>\n"));
	assert_null(strstr(out.data, "\nCc:"));
	buf_release(&out);
	buf_release(&err);
}

/* message_rethread() gives what message_build() would have made with the
 * other In-Reply-To and References, and keeps every other byte (a body
 * line that looks like a header field too). */
static void message_rethread_is_a_rebuild(void **state)
{
	static const char body[] = "Hello,\nReferences: <not@a.header>\n\nIn-Reply-To: <nor@this>\n";
	const char *ids[] = { "202511071439.d081322d-lkp@intel.com", "202511071440.00000001-lkp@intel.com",
			      "202511071441.00000002-lkp@intel.com", "202511071442.00000003-lkp@intel.com" };
	struct message_fields f;
	struct buf old = BUF_INIT, want = BUF_INIT, got = BUF_INIT, err = BUF_INIT;

	(void)state;
	fields_init(&f);
	f.message_id = "202511071443.00000004-lkp@intel.com";
	f.in_reply_to = ids[3];
	f.references = ids;
	f.nr_references = 4;	/* folded over lines */
	assert_int_equal(message_build(&old, &f, body, sizeof(body) - 1, &err), 0);
	assert_non_null(strstr(old.data, "\n <202511071442"));

	/* up the thread by two */
	f.in_reply_to = ids[1];
	f.nr_references = 2;
	assert_int_equal(message_build(&want, &f, body, sizeof(body) - 1, &err), 0);
	assert_int_equal(message_rethread(&got, old.data, old.len, ids[1], "202511071439.d081322d-lkp@intel.com "
					  "202511071440.00000001-lkp@intel.com", &err), 0);
	assert_string_equal(got.data, want.data);

	/* answering nothing (a digest that starts a thread) */
	buf_reset(&want);
	buf_reset(&got);
	f.in_reply_to = NULL;
	f.nr_references = 0;
	assert_int_equal(message_build(&want, &f, body, sizeof(body) - 1, &err), 0);
	assert_int_equal(message_rethread(&got, old.data, old.len, NULL, NULL, &err), 0);
	assert_string_equal(got.data, want.data);

	/* and back: a mail without the fields gets them after Message-ID */
	buf_reset(&old);
	assert_int_equal(message_rethread(&old, want.data, want.len, ids[0], ids[0], &err), 0);
	buf_reset(&want);
	f.in_reply_to = ids[0];
	f.nr_references = 1;
	assert_int_equal(message_build(&want, &f, body, sizeof(body) - 1, &err), 0);
	assert_string_equal(old.data, want.data);

	/* refused: a bad id, no header block; out unchanged */
	buf_reset(&got);
	assert_int_equal(message_rethread(&got, want.data, want.len, "no id", NULL, &err), -1);
	assert_int_equal(got.len, 0);
	assert_int_equal(message_rethread(&got, "Subject: x\n", 11, ids[0], NULL, &err), -1);
	assert_int_equal(got.len, 0);
	buf_release(&old);
	buf_release(&want);
	buf_release(&got);
	buf_release(&err);
}

/* Nothing from any input can add a header line. */
static void message_refuses_injection(void **state)
{
	struct message_fields f;
	struct buf out = BUF_INIT, err = BUF_INIT;
	struct address evil_name = { "Eve\r\nBcc: victim@example.org", "eve@example.org" };
	struct address evil_addr = { "", "eve@example.org\nBcc: victim@example.org" };
	const char *evil_refs[] = { "ok@x", "a@b>\nBcc: x@y" };

	(void)state;
	fields_init(&f);
	f.subject = "regression\nBcc: victim@example.org";
	assert_int_equal(message_build(&out, &f, "x\n", 2, &err), -1);
	fields_init(&f);
	f.to = &evil_name;
	assert_int_equal(message_build(&out, &f, "x\n", 2, &err), -1);
	fields_init(&f);
	f.cc = &evil_addr;
	f.nr_cc = 1;
	assert_int_equal(message_build(&out, &f, "x\n", 2, &err), -1);
	fields_init(&f);
	f.message_id = "a@b>\r\nBcc: victim@example.org";
	assert_int_equal(message_build(&out, &f, "x\n", 2, &err), -1);
	fields_init(&f);
	f.references = evil_refs;
	f.nr_references = 2;
	assert_int_equal(message_build(&out, &f, "x\n", 2, &err), -1);
	fields_init(&f);
	f.in_reply_to = "x@y\nBcc: z@w";
	assert_int_equal(message_build(&out, &f, "x\n", 2, &err), -1);
	assert_int_equal(out.len, 0);
	buf_release(&out);
	buf_release(&err);
}

static void message_refuses_bodies_mail_cannot_carry(void **state)
{
	struct message_fields f;
	struct buf out = BUF_INIT, err = BUF_INIT, body = BUF_INIT;

	(void)state;
	fields_init(&f);
	assert_int_equal(message_build(&out, &f, "a\r\nb\n", 5, &err), -1);
	assert_non_null(strstr(err.data, "carriage return on line 1"));
	assert_int_equal(message_build(&out, &f, "a\n\0b\n", 5, &err), -1);
	assert_non_null(strstr(err.data, "NUL byte on line 2"));
	buf_addchars(&body, 'x', 998);
	buf_addc(&body, '\n');
	assert_int_equal(message_build(&out, &f, body.data, body.len, &err), 0);
	buf_reset(&out);
	buf_addchars(&body, 'y', 999);
	assert_int_equal(message_build(&out, &f, body.data, body.len, &err), -1);
	assert_non_null(strstr(err.data, "line 2 of the rendered body is 999 octets long"));
	buf_release(&out);
	buf_release(&err);
	buf_release(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(message_subject_rule),
		cmocka_unit_test(message_ids_are_checked),
		cmocka_unit_test(message_mint_id_format),
		cmocka_unit_test(message_build_headers),
		cmocka_unit_test(message_rethread_is_a_rebuild),
		cmocka_unit_test(message_refuses_injection),
		cmocka_unit_test(message_refuses_bodies_mail_cannot_carry),
	};

	return cmocka_run_group_tests_name("message", tests, NULL, NULL);
}
