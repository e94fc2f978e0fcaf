/*
 * The NNTP URL reader (source-nntp.h): what ingest --nntp, ingest.nntp and
 * check --nntp accept, the server a connection is shared by and the
 * cursor's name.  The reader itself is tested against public-inbox-nntpd
 * by tests/t/source-nntp.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "source-nntp.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_url_accepted(void **state)
{
	static const struct {
		const char *url;
		enum nntp_security sec;
		const char *host;
		int port;
		const char *group, *server, *key;
	} v[] = {
		{ "nntps://nntp.lore.kernel.org/org.kernel.vger.linux-kernel", NNTP_TLS,
		  "nntp.lore.kernel.org", 563, "org.kernel.vger.linux-kernel",
		  "nntps://nntp.lore.kernel.org:563",
		  "nntp://nntp.lore.kernel.org:563/org.kernel.vger.linux-kernel" },
		{ "nntp://news.example.org:1119/a.b_c+d?starttls", NNTP_STARTTLS, "news.example.org",
		  1119, "a.b_c+d", "nntp://news.example.org:1119?starttls",
		  "nntp://news.example.org:1119/a.b_c+d" },
		{ "nntp://127.0.0.1/inbox.test", NNTP_PLAIN, "127.0.0.1", 119, "inbox.test",
		  "nntp://127.0.0.1:119", "nntp://127.0.0.1:119/inbox.test" },
		{ "nntp://localhost:4119/g", NNTP_PLAIN, "localhost", 4119, "g",
		  "nntp://localhost:4119", "nntp://localhost:4119/g" },
		{ "nntp://[::1]:4119/g", NNTP_PLAIN, "::1", 4119, "g", "nntp://[::1]:4119",
		  "nntp://[::1]:4119/g" },
		{ "nntps://[2001:db8::1]/g", NNTP_TLS, "2001:db8::1", 563, "g",
		  "nntps://[2001:db8::1]:563", "nntp://[2001:db8::1]:563/g" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(v); i++) {
		struct nntp_url u;
		struct buf err = BUF_INIT;

		assert_int_equal(nntp_url_parse(v[i].url, &u, &err), 0);
		assert_int_equal(u.security, v[i].sec);
		assert_string_equal(u.host, v[i].host);
		assert_int_equal(u.port, v[i].port);
		assert_string_equal(u.group, v[i].group);
		assert_string_equal(u.server, v[i].server);
		assert_string_equal(u.key, v[i].key);
		nntp_url_release(&u);
		buf_release(&err);
	}
}

static void test_url_refused(void **state)
{
	static const struct {
		const char *url, *why;
	} v[] = {
		{ "imaps://news.example.org/g", "must begin with nntps:// or nntp://" },
		{ "nntps://news.example.org", "name the group" },
		{ "nntps://news.example.org/", "name the group" },
		{ "nntp://news.example.org/g", "plain nntp:// only to 127.0.0.1" },
		{ "nntp://127.1.example.org/g", "plain nntp:// only to 127.0.0.1" },
		{ "nntps://news.example.org/g?starttls", "the only query allowed is ?starttls" },
		{ "nntp://news.example.org/g?tls", "the only query allowed is ?starttls" },
		{ "nntps://me@news.example.org/g", "no user in the URL" },
		{ "nntps://me:pw@news.example.org/g", "no user in the URL" },
		{ "nntps://news.example.org:0/g", "the port must be a number" },
		{ "nntps://news.example.org:65536/g", "the port must be a number" },
		{ "nntps://news.example.org:x/g", "the port must be a number" },
		{ "nntps://news_example.org/g", "not a DNS name" },
		{ "nntps://[::1/g", "closing ']'" },
		{ "nntps://news.example.org/a b", "the group must be" },
		{ "nntps://news.example.org/a%0d%0aQUIT", "the group must be" },
		{ "nntps://news.example.org/a\r\nQUIT", "the group must be" },
		{ "nntps://news.example.org/a/b", "the group must be" },
		{ "nntps://news.example.org/.hidden", "the group must be" },
		{ "nntps://news.example.org/a*", "the group must be" },
	};
	char longgroup[300];
	struct nntp_url u;
	struct buf err = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < N(v); i++) {
		buf_reset(&err);
		assert_int_equal(nntp_url_parse(v[i].url, &u, &err), -1);
		if (!strstr(err.data, v[i].why))
			fail_msg("%s: \"%s\" does not say \"%s\"", v[i].url, err.data, v[i].why);
		assert_null(u.host);
	}
	memcpy(longgroup, "nntps://h/", 10);
	memset(longgroup + 10, 'a', sizeof(longgroup) - 11);
	longgroup[sizeof(longgroup) - 1] = '\0';
	buf_reset(&err);
	assert_int_equal(nntp_url_parse(longgroup, &u, &err), -1);
	assert_non_null(strstr(err.data, "at most 256 bytes"));
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_accepted),
		cmocka_unit_test(test_url_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
