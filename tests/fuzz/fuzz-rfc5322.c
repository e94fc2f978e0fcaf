/*
 * libFuzzer target for the one RFC 5322 reader and what sits on it: the
 * header block in both readings (rfc5322.h), unfolding, the tokenizer,
 * msg-ids, the Message-ID a mail is known by (mail_known_id()), the
 * strict and the lenient address parser (address.h), RFC 2047 (rfc2047.h),
 * MIME fields and decoders (rfc2045.h), public-inbox's commit metadata
 * (archive-meta.h), and libetpan's MIME walk with its limits (mime-child.h,
 * in this process, so that a crash is seen here).  The whole input is the
 * message; each field's unfolded value is fed to the field parsers.
 * Besides crashes, leaks and undefined behaviour it checks the contracts
 * of those headers and aborts when one is broken.
 *
 * tests/fuzz/replay.c runs the same function over the inputs kept in
 * tests/fuzz/regressions/rfc5322/, without libFuzzer, in `make check`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2/global.h>

#include "address.h"
#include "archive-meta.h"
#include "charset.h"
#include "mail.h"
#include "mime-child.h"
#include "rfc2045.h"
#include "rfc2047.h"
#include "rfc5322.h"

/* abort() with the line of the broken contract on stderr */
#define check(ok) check_at((ok), __LINE__)

static void check_at(int ok, int line)
{
	if (!ok) {
		fprintf(stderr, "fuzz-rfc5322.c:%d: contract broken\n", line);
		abort();
	}
}

static void check_utf8(const char *s)
{
	check(s != NULL);
	check(charset_is_utf8(s, strlen(s)));
}

static void check_id(const char *id)
{
	const char *p;

	check(id && *id && strlen(id) <= RFC5322_MAX_ID + 64);
	for (p = id; *p; p++)
		check(*p > ' ' && *p < 0x7f && *p != '<');
}

static void check_problems(char **v, size_t n, size_t max)
{
	size_t i;

	check(n <= max + 1);
	for (i = 0; i < n; i++)
		check_utf8(v[i]);
}

/* The tokenizer: tokens in order, inside the string, spans consistent. */
static void tokens(const char *s, unsigned mode)
{
	struct rfc5322_token *t = NULL;
	size_t n = rfc5322_tokenize(s, mode, &t), i, len = strlen(s);
	const char *prev = s;

	check(n <= len);
	for (i = 0; i < n; i++) {
		check(t[i].start >= prev && t[i].start <= t[i].p);
		check(t[i].p + t[i].n <= t[i].end && t[i].end <= s + len);
		check(t[i].end > t[i].start);
		prev = t[i].end;
	}
	free(t);
}

/* A structured field body through every parser that takes one. */
static void field_value(const char *v)
{
	char **ids = NULL, **problems = NULL;
	size_t nr = 0, alloc = 0, nr_problems = 0, i;
	struct problems pr = { &problems, &nr_problems, 20, "more" };
	struct address *list = NULL, a;
	struct rfc2045_field f;
	struct buf out = BUF_INIT, err = BUF_INIT;
	int words;

	tokens(v, 0);
	tokens(v, RFC5322_NO_COMMENTS);

	rfc5322_ids("References", v, &ids, &nr, &alloc, &pr);
	check(nr <= RFC5322_MAX_IDS);
	for (i = 0; i < nr; i++) {
		check_id(ids[i]);
		check(strlen(ids[i]) <= RFC5322_MAX_ID);
	}
	problems_free(ids, nr);
	ids = NULL;
	nr = alloc = 0;
	if (!rfc5322_message_id(v, &out, &pr)) {
		check_id(out.data);
		check(out.len <= RFC5322_MAX_ID);
	} else {
		check(out.len == 0);
	}
	buf_reset(&out);

	alloc = 0;
	address_list_read("To", v, &list, &nr, &alloc, &pr);
	check(nr <= ADDRESS_MAX_LIST);
	for (i = 0; i < nr; i++) {
		check_utf8(list[i].name);
		check_utf8(list[i].email);
		check(strchr(list[i].email, '@') && strlen(list[i].email) <= ADDRESS_MAX_EMAIL);
	}
	address_list_free(list, nr);
	check_problems(problems, nr_problems, pr.max);
	problems_free(problems, nr_problems);

	/* the strict reading accepts only what address_check() accepts */
	if (!address_parse(v, &a, &err)) {
		check(!address_check(&a, NULL));
		address_release(&a);
	} else {
		check(err.len && !strchr(err.data, '\n'));
	}
	buf_reset(&err);
	list = NULL;
	if (!address_list_parse(v, &list, &nr, &err)) {
		for (i = 0; i < nr; i++)
			check(!address_check(&list[i], NULL));
		address_list_free(list, nr);
	} else {
		check(list == NULL && nr == 0 && err.len);
	}

	words = rfc2047_decode(v, strlen(v), 0, &out);
	check(words >= 0);
	check(charset_is_utf8(out.data, out.len));
	buf_reset(&out);
	check(rfc2047_decode(v, strlen(v), RFC2047_RAW, &out) == words);

	for (i = 0; i < 2; i++) {
		buf_reset(&err);
		if (rfc2045_field_parse(v, (int)i, &f, &err) == 0) {
			size_t j;
			const char *p;

			check(*f.value);
			for (p = f.value; *p; p++)
				check(!(*p >= 'A' && *p <= 'Z'));
			check(f.nr_params <= RFC2045_MAX_PARAMS);
			for (j = 0; j < f.nr_params; j++) {
				check(*f.params[j].name);
				check(strlen(f.params[j].value) <= 4 * RFC2045_MAX_PARAM);
			}
			if (f.boundary)
				check(strlen(f.boundary) <= RFC2045_MAX_PARAM);
			rfc2045_field_release(&f);
		} else {
			check(f.value == NULL && err.len);
		}
	}
	rfc2045_encoding_of(v);
	buf_release(&out);
	buf_release(&err);
}

/* The header block in one reading; each field's value to field_value(). */
static void header(const char *raw, size_t len, unsigned flags, int deep)
{
	struct rfc5322_reader r;
	struct rfc5322_field f;
	struct buf v = BUF_INIT;
	size_t fields = 0;

	rfc5322_reader_init(&r, raw, len, flags);
	r.line_max = 200;
	while (rfc5322_next(&r, &f)) {
		size_t i;

		fields++;
		check(f.name >= raw && f.name + f.name_len <= raw + len && f.name_len);
		check(f.value >= f.name + f.name_len && f.value + f.value_len <= raw + len);
		for (i = 0; i < f.name_len; i++)
			check(f.name[i] != ':' && (unsigned char)f.name[i] > ' ');
		check(f.line >= 1 && f.line <= r.lines);
		buf_reset(&v);
		rfc5322_unfold(&f, flags & RFC5322_PI_LINES, &v);
		check(!memchr(v.data, '\n', v.len) && !memchr(v.data, '\0', v.len));
		if (!(flags & RFC5322_PI_LINES))
			check(v.len <= 3 * f.value_len);
		if (deep && fields <= 8 && v.len <= 4096)
			field_value(v.data);
	}
	check(r.fields == fields && r.fields <= r.lines);
	check(r.start <= r.body && r.body <= len && r.end <= len);
	check(!r.long_line || r.long_line <= r.lines);
	buf_release(&v);
}

/* public-inbox's metadata: clean text, sane stamps, one line of message. */
static void meta(const char *raw, size_t len)
{
	struct buf lf = BUF_INIT, err = BUF_INIT;
	const char *msg = rfc5322_lf(raw, &len, &lf);
	struct archive_meta m;

	if (archive_meta_read(msg, len, 1700000000, &m, &err) == 0) {
		check(m.name.len && m.email.len);
		check_utf8(m.name.data);
		check_utf8(m.email.data);
		check(!strpbrk(m.name.data, "<>\n") && !strpbrk(m.email.data, "<>\n"));
		check(m.message.len && m.message.data[m.message.len - 1] == '\n');
		check(memchr(m.message.data, '\n', m.message.len) == m.message.data + m.message.len - 1);
		check(m.author.time >= 0 && m.commit.time >= 0);
		check(m.author.zone > -14 * 60 && m.author.zone < 14 * 60);
		check(m.commit.zone > -14 * 60 && m.commit.zone < 14 * 60);
		archive_meta_release(&m);
	} else {
		check(err.len && !strchr(err.data, '\n'));
	}
	buf_release(&lf);
	buf_release(&err);
}

/* The id a mail is known by: mail_parse()'s Message-ID when it reads one,
 * and the same for the bytes as archived (CRLF made LF). */
static void known_id(const char *raw, size_t len)
{
	static const struct mail_options opts = { 1, 0 };
	struct buf lf = BUF_INIT, err = BUF_INIT;
	size_t lf_len = len;
	const char *archived = rfc5322_lf(raw, &lf_len, &lf);
	char *id = mail_known_id(raw, len), *again = mail_known_id(archived, lf_len);
	struct mail *m = NULL;

	check_id(id);
	check(!strcmp(id, again));
	if (len <= 65536 && mail_parse_with(raw, len, &opts, &m, &err) == 0) {
		if (m->message_id)
			check(!strcmp(id, m->message_id));
		else
			check(strstr(id, "@perfbot.invalid") != NULL);
		check_problems(m->problems, m->nr_problems, MAIL_MAX_PROBLEMS);
		mail_free(m);
	}
	free(id);
	free(again);
	buf_release(&lf);
	buf_release(&err);
}

/* libetpan's MIME walk, in this process, with its limits. */
static void mime_walk(const char *raw, size_t len)
{
	static const struct mime_options opts = { 1, 0, 0 };
	struct mime_text t;

	mime_find_text(raw, len, &opts, &t);
	check(t.parts <= MIME_MAX_PARTS + 1 && t.attachments <= MIME_MAX_PARTS);
	check_problems(t.problems, t.nr_problems, MIME_MAX_PROBLEMS);
	if (t.found) {
		check(!t.quarantine && t.type && t.offset <= len && t.length <= len - t.offset);
		check(!t.html_only);
	} else {
		check(!t.type && !t.charset && !t.encoding);
	}
	if (t.quarantine)
		check_utf8(t.quarantine);
	mime_text_release(&t);
}

/* The copy libetpan reads (rfc2045_blank_comments()): the same length,
 * every line break where it was, a changed byte now a space; and blanking
 * again changes nothing. */
static void blanked(const char *raw, size_t size)
{
	struct buf b = BUF_INIT, again = BUF_INIT;
	size_t i;

	buf_add(&b, raw, size);
	rfc2045_blank_comments(b.data, b.len);
	check(b.len == size);
	for (i = 0; i < size; i++) {
		if (raw[i] == '\r' || raw[i] == '\n')
			check(b.data[i] == raw[i]);
		else if (b.data[i] != raw[i])
			check(b.data[i] == ' ');
	}
	buf_add(&again, b.data, b.len);
	rfc2045_blank_comments(again.data, again.len);
	check(!memcmp(again.data, b.data, b.len));
	buf_release(&b);
	buf_release(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int git_ready;
	const char *raw = (const char *)data;
	struct buf qp = BUF_INIT, b64 = BUF_INIT;

	/* mail_known_id() hashes with libgit2, whose every first init reads
	 * the system's certificates: keep it initialized, as an open archive
	 * does in ingest */
	if (!git_ready++)
		git_libgit2_init();
	header(raw, size, RFC5322_MBOX_FROM, 1);
	header(raw, size, RFC5322_PI_LINES, 0);
	meta(raw, size);
	known_id(raw, size);
	blanked(raw, size);
	if (size <= 65536)
		mime_walk(raw, size);
	check(rfc2045_decode_qp(raw, size, &qp) >= 0 && qp.len <= size);
	check(rfc2045_decode_base64(raw, size, &b64) >= 0 && b64.len <= size / 4 * 3 + 3);
	buf_release(&qp);
	buf_release(&b64);
	return 0;
}
