#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "header.h"
#include "tls.h"
#include "url.h"
#include "xalloc.h"
#include "banned.h"

int url_host_is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (!strcasecmp(host, "localhost"))
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return 0;
}

static int host_ok(const char *host)
{
	size_t i, n = strlen(host);

	if (!n || n > TLS_HOST_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)host[i]) && host[i] != '.' && host[i] != '-')
			return 0;
	return host[0] != '-' && host[0] != '.';
}

int url_host_parse(const char *p, const char *end, char **host, int *port, const char **why)
{
	const char *colon;
	struct in6_addr a6;

	*host = NULL;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (!close) {
			*why = "an IPv6 address needs its closing ']'";
			return -1;
		}
		*host = xstrndup(p + 1, (size_t)(close - p - 1));
		if (inet_pton(AF_INET6, *host, &a6) != 1) {
			*why = "not an IPv6 address between [ and ]";
			return -1;
		}
		colon = close + 1 < end ? close + 1 : NULL;
		if (colon && *colon != ':') {
			*why = "only :PORT may follow ']'";
			return -1;
		}
	} else {
		colon = memchr(p, ':', (size_t)(end - p));
		*host = xstrndup(p, (size_t)((colon ? colon : end) - p));
		if (!host_ok(*host)) {
			*why = "the host is not a DNS name or IP address";
			return -1;
		}
	}
	if (colon) {
		const char *d = colon + 1;
		long n = 0;

		if (d == end || end - d > 5)
			goto bad_port;
		for (; d < end; d++) {
			if (!isdigit((unsigned char)*d))
				goto bad_port;
			n = n * 10 + (*d - '0');
		}
		if (n < 1 || n > 65535)
			goto bad_port;
		*port = (int)n;
	}
	return 0;
bad_port:
	*why = "the port must be a number from 1 to 65535";
	return -1;
}

void url_add_host_port(struct buf *out, const char *host, int port)
{
	buf_addf(out, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

int url_fail(const char *kind, const char *url, const char *why, struct buf *err)
{
	struct buf q = BUF_INIT;

	header_quote_input(&q, url);
	err_set(err, "%s url %s: %s", kind, q.data, why);
	buf_release(&q);
	return -1;
}

const char *url_transport(int plain, int starttls)
{
	if (plain)
		return "plain text (loopback)";
	return starttls ? "TLS, certificate verified (STARTTLS)" : "TLS, certificate verified";
}
