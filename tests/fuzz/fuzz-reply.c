/*
 * libFuzzer target for the mail reader and the reply analysis:
 * mail_parse_with() (with libetpan in this process, so that a crash in
 * perfbot's code or a libetpan crash the boundary check lets through is
 * seen here rather than hidden by the child process), then
 * reply_analyse() on the decoded text, and reply_analyse() once more on
 * the raw input as text, flowed or not.  Besides crashes, leaks and
 * undefined behaviour it checks the contracts of mail.h and reply.h and
 * aborts when one is broken:
 *   - a failure leaves *out NULL and a message in err; only an input
 *     without a header field fails;
 *   - every string is valid UTF-8 without NUL, text_len is its length;
 *   - limits are kept (ids, problems, commands, trailers, comments);
 *   - counts add up (quoted + new lines <= lines).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charset.h"
#include "mail.h"
#include "mime-child.h"
#include "reply.h"

/* abort() with the line of the broken contract on stderr */
#define check(ok) check_at((ok), __LINE__)

static void check_at(int ok, int line)
{
	if (!ok) {
		fprintf(stderr, "fuzz-reply.c:%d: contract broken\n", line);
		abort();
	}
}

static void check_string(const char *s)
{
	check(s != NULL);
	check(charset_is_utf8(s, strlen(s)));
}

static void check_addresses(const struct address *a, size_t n)
{
	size_t i;

	check(n <= ADDRESS_MAX_LIST);
	for (i = 0; i < n; i++) {
		check_string(a[i].name);
		check_string(a[i].email);
		check(strchr(a[i].email, '@') != NULL);
	}
}

static void check_ids(char *const *ids, size_t n)
{
	size_t i;

	check(n <= MAIL_MAX_IDS);
	for (i = 0; i < n; i++) {
		const char *p;

		check_string(ids[i]);
		check(*ids[i] && strlen(ids[i]) <= MAIL_MAX_ID);
		for (p = ids[i]; *p; p++)
			check(*p > ' ' && *p < 0x7f && *p != '<');
	}
}

static void check_mail(const struct mail *m)
{
	size_t i;

	if (m->message_id)
		check_ids(&m->message_id, 1);
	check_ids(m->in_reply_to, m->nr_in_reply_to);
	check_ids(m->references, m->nr_references);
	if (m->from)
		check_addresses(m->from, 1);
	check_addresses(m->to, m->nr_to);
	check_addresses(m->cc, m->nr_cc);
	if (m->subject)
		check_string(m->subject);
	check(m->text && strlen(m->text) == m->text_len);
	check_string(m->text);
	check(!memchr(m->text, '\r', m->text_len));
	if (m->has_text_part) {
		check_string(m->text_part.type);
		check_string(m->text_part.encoding);
		if (m->text_part.charset)
			check_string(m->text_part.charset);
		check(!m->html_only);
	} else {
		check(m->text_len == 0);
	}
	check(m->attachments <= MIME_MAX_PARTS);
	if (m->quarantine) {
		check_string(m->quarantine);
		check(m->text_len == 0);
	}
	check(m->nr_problems <= MAIL_MAX_PROBLEMS + 1);
	for (i = 0; i < m->nr_problems; i++)
		check_string(m->problems[i]);
}

static size_t count_lines(const char *s, size_t n)
{
	size_t lines = 0, i;

	for (i = 0; i < n; i++)
		if (s[i] == '\n')
			lines++;
	return lines + (n && s[n - 1] != '\n');
}

static void check_reply(const struct reply *r, const char *text, size_t len, int utf8, int flowed)
{
	size_t i;

	if (!flowed)
		check(r->quoted_lines + r->new_lines <= count_lines(text, len));
	check(r->nr_commands <= REPLY_MAX_COMMANDS);
	check(r->nr_trailers <= REPLY_MAX_TRAILERS);
	check(r->nr_comments <= REPLY_MAX_COMMENTS);
	check(r->nr_problems <= REPLY_MAX_PROBLEMS + 1);
	for (i = 0; i < r->nr_commands; i++) {
		const char *n = r->commands[i].name;

		check(!strcmp(n, "invalid") || !strcmp(n, "reopen") || !strcmp(n, "fixed-by") ||
		      !strcmp(n, "dup-of"));
		check(r->commands[i].args != NULL);
		if (utf8) {
			check(*r->commands[i].args ||
			      (strcmp(n, "fixed-by") && strcmp(n, "dup-of")));
			check_string(r->commands[i].args);
		}
	}
	for (i = 0; i < r->nr_trailers; i++) {
		check(r->trailers[i].key && r->trailers[i].value);
		if (utf8) {
			check(*r->trailers[i].value);
			check_string(r->trailers[i].value);
		}
	}
	for (i = 0; i < r->nr_comments; i++) {
		check(r->comments[i].after_quote && r->comments[i].text);
		if (utf8) {
			/* (raw input may hold NUL, which cuts the C strings) */
			check(*r->comments[i].text);
			check_string(r->comments[i].after_quote);
			check_string(r->comments[i].text);
		}
	}
	for (i = 0; i < r->nr_problems; i++)
		check_string(r->problems[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct mail_options opts = { 1, 0 };
	const char *raw = (const char *)data;
	struct buf err = BUF_INIT;
	struct mail *m = NULL;
	struct reply *r;

	if (mail_parse_with(raw, size, &opts, &m, &err) == 0) {
		struct reply_options ro = { m->text_part.flowed, m->text_part.delsp,
					    m->from ? m->from->email : NULL };

		check(m != NULL);
		check_mail(m);
		r = reply_analyse(m->text, m->text_len, &ro);
		check_reply(r, m->text, m->text_len, 1, ro.flowed);
		reply_free(r);
		mail_free(m);
	} else {
		check(m == NULL);
		check(err.len > 0 && !strchr(err.data, '\n'));
	}
	buf_release(&err);
	if (size) {
		struct reply_options ro = { data[0] & 1, data[0] & 2, "a@b.c" };

		r = reply_analyse(raw, size, &ro);
		check_reply(r, raw, size, 0, ro.flowed);
		reply_free(r);
	}
	return 0;
}
