#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "url.h"

static void hosts(void **state)
{
	static const struct {
		const char *in;
		int ret;
		const char *host;
		int port;	/* 7 when the input names none: left as it was */
		const char *why;
	} cases[] = {
		{ "news.example.org", 0, "news.example.org", 7, NULL },
		{ "news.example.org:563", 0, "news.example.org", 563, NULL },
		{ "127.0.0.1:1", 0, "127.0.0.1", 1, NULL },
		{ "[::1]:65535", 0, "::1", 65535, NULL },
		{ "[2001:db8::1]", 0, "2001:db8::1", 7, NULL },
		{ "h:0", -1, NULL, 0, "the port must be a number from 1 to 65535" },
		{ "h:65536", -1, NULL, 0, "the port must be a number from 1 to 65535" },
		{ "h:", -1, NULL, 0, "the port must be a number from 1 to 65535" },
		{ "h:123456", -1, NULL, 0, "the port must be a number from 1 to 65535" },
		{ "h:12a", -1, NULL, 0, "the port must be a number from 1 to 65535" },
		{ "[::1", -1, NULL, 0, "an IPv6 address needs its closing ']'" },
		{ "[news.example.org]", -1, NULL, 0, "not an IPv6 address between [ and ]" },
		{ "[::1]x", -1, NULL, 0, "only :PORT may follow ']'" },
		{ "", -1, NULL, 0, "the host is not a DNS name or IP address" },
		{ "-h", -1, NULL, 0, "the host is not a DNS name or IP address" },
		{ ".h", -1, NULL, 0, "the host is not a DNS name or IP address" },
		{ "a_b", -1, NULL, 0, "the host is not a DNS name or IP address" },
		{ "a b:1", -1, NULL, 0, "the host is not a DNS name or IP address" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *in = cases[i].in, *why = NULL;
		char *host = NULL;
		int port = 7;

		assert_int_equal(url_host_parse(in, in + strlen(in), &host, &port, &why), cases[i].ret);
		if (cases[i].ret == 0) {
			assert_string_equal(host, cases[i].host);
			assert_int_equal(port, cases[i].port);
			assert_null(why);
		} else {
			assert_string_equal(why, cases[i].why);
		}
		free(host);
	}
}

/* Only the part before end is read: the caller's URL goes on after it. */
static void host_stops_at_end(void **state)
{
	const char *in = "h.example:119/group", *why = NULL;
	char *host = NULL;
	int port = 0;

	(void)state;
	assert_int_equal(url_host_parse(in, strchr(in, '/'), &host, &port, &why), 0);
	assert_string_equal(host, "h.example");
	assert_int_equal(port, 119);
	free(host);
}

static void host_too_long(void **state)
{
	char name[300];
	const char *why = NULL;
	char *host = NULL;
	int port = 0;

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(url_host_parse(name, name + strlen(name), &host, &port, &why), -1);
	free(host);
	name[253] = '\0';
	assert_int_equal(url_host_parse(name, name + strlen(name), &host, &port, &why), 0);
	free(host);
}

static void loopback(void **state)
{
	(void)state;
	assert_true(url_host_is_loopback("localhost"));
	assert_true(url_host_is_loopback("LocalHost"));
	assert_true(url_host_is_loopback("127.0.0.1"));
	assert_true(url_host_is_loopback("127.255.0.9"));
	assert_true(url_host_is_loopback("::1"));
	assert_false(url_host_is_loopback("128.0.0.1"));
	assert_false(url_host_is_loopback("::2"));
	assert_false(url_host_is_loopback("localhost.example.org"));
	assert_false(url_host_is_loopback("10.0.0.1"));
}

static void host_port_and_words(void **state)
{
	struct buf b = BUF_INIT, err = BUF_INIT;

	(void)state;
	url_add_host_port(&b, "news.example.org", 563);
	assert_string_equal(b.data, "news.example.org:563");
	buf_reset(&b);
	url_add_host_port(&b, "2001:db8::1", 119);
	assert_string_equal(b.data, "[2001:db8::1]:119");
	buf_release(&b);

	assert_int_equal(url_fail("nntp", "nntp://x\n/y", "why", &err), -1);
	assert_non_null(strstr(err.data, "nntp url "));
	assert_non_null(strstr(err.data, ": why"));
	assert_null(strchr(err.data, '\n'));
	buf_release(&err);

	assert_string_equal(url_transport(1, 0), "plain text (loopback)");
	assert_string_equal(url_transport(0, 0), "TLS, certificate verified");
	assert_string_equal(url_transport(0, 1), "TLS, certificate verified (STARTTLS)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hosts),
		cmocka_unit_test(host_stops_at_end),
		cmocka_unit_test(host_too_long),
		cmocka_unit_test(loopback),
		cmocka_unit_test(host_port_and_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
