#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include "buf.h"
#include "etpanlib.h"
#include "tcp.h"
#include "tls.h"
#include "xalloc.h"
#include "banned.h"

int tls_host_is_ip(const char *host)
{
	unsigned char addr[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
}

void tls_stream_setup(struct mailstream_ssl_context *ctx, void *hostname)
{
	/* A failure here only loses SNI; the chain is still verified. */
	if (hostname && !tls_host_is_ip(hostname))
		mailstream_ssl_set_server_name(ctx, hostname);
}

static const struct {
	unsigned int bit;
	const char *what;
} reasons[] = {
	{ GNUTLS_CERT_SIGNER_NOT_FOUND,
	  "issuer unknown (self-signed, or its CA is not in the trusted CAs)" },
	{ GNUTLS_CERT_UNEXPECTED_OWNER, "issued for another host name" },
	{ GNUTLS_CERT_EXPIRED, "expired" },
	{ GNUTLS_CERT_NOT_ACTIVATED, "not valid yet" },
	{ GNUTLS_CERT_REVOKED, "revoked" },
	{ GNUTLS_CERT_SIGNER_NOT_CA, "signed by a certificate that is not a CA" },
	{ GNUTLS_CERT_INSECURE_ALGORITHM, "signed with an insecure algorithm" },
	{ GNUTLS_CERT_SIGNATURE_FAILURE, "bad signature" },
	{ GNUTLS_CERT_PURPOSE_MISMATCH, "not meant for TLS servers" },
	{ GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE, "outside its issuer's constraints" },
};

/* Appends why status refused a chain, as "a; b; c". */
static void describe_status(struct buf *out, unsigned int status)
{
	size_t i, before = out->len;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (!(status & reasons[i].bit))
			continue;
		if (out->len > before)
			buf_adds(out, "; ");
		buf_adds(out, reasons[i].what);
		status &= ~reasons[i].bit;
	}
	/* GNUTLS_CERT_INVALID is set with every other reason. */
	status &= ~GNUTLS_CERT_INVALID;
	if (status || out->len == before)
		buf_addf(out, "%sverification status 0x%x", out->len > before ? "; " : "", status);
}

/* GnuTLS's message for r as perfbot writes messages: lowercase, no
 * final period. */
static const char *gnutls_why(int r, char *out, size_t size)
{
	size_t n;

	snprintf(out, size, "%s", gnutls_strerror(r));
	if (out[0] >= 'A' && out[0] <= 'Z' && !(out[1] >= 'A' && out[1] <= 'Z'))
		out[0] = (char)(out[0] - 'A' + 'a');
	n = strlen(out);
	if (n && out[n - 1] == '.')
		out[n - 1] = '\0';
	return out;
}

static int trust_load(gnutls_x509_trust_list_t list, const char *ca_file, struct buf *err)
{
	char why[128];
	int r;

	if (ca_file) {
		r = gnutls_x509_trust_list_add_trust_file(list, ca_file, NULL,
							  GNUTLS_X509_FMT_PEM, 0, 0);
		if (r == 0 || r == GNUTLS_E_NO_CERTIFICATE_FOUND)
			return err_set(err, "%s: holds no PEM certificate", ca_file);
		if (r < 0)
			return err_set(err, "%s: cannot read CA certificates: %s", ca_file,
				       gnutls_why(r, why, sizeof(why)));
		return 0;
	}
	r = gnutls_x509_trust_list_add_system_trust(list, 0, 0);
	if (r < 0)
		return err_set(err, "cannot load the system's trusted CAs: %s",
			       gnutls_why(r, why, sizeof(why)));
	if (r == 0)
		return err_set(err, "the system trust store holds no CA (install ca-certificates, "
			       "or name a CA file)");
	return 0;
}

int tls_verify_chain(const unsigned char *const *der, const size_t *len, size_t n,
		     const char *hostname, const char *ca_file, struct buf *err)
{
	gnutls_x509_crt_t crt[TLS_CHAIN_MAX];
	gnutls_x509_trust_list_t list = NULL;
	gnutls_typed_vdata_st vdata[2];
	unsigned int status = 0;
	size_t i, nr = 0;
	int r, ret = -1;
	char why[128];

	if (!hostname || !*hostname || strlen(hostname) > TLS_HOST_MAX)
		return err_set(err, "no valid host name to check the certificate against");
	if (n == 0)
		return err_set(err, "%s sent no certificate", hostname);
	if (n > TLS_CHAIN_MAX)
		return err_set(err, "%s sent %zu certificates, more than the %d perfbot accepts",
			       hostname, n, TLS_CHAIN_MAX);
	for (i = 0; i < n; i++) {
		gnutls_datum_t d = { (unsigned char *)der[i], (unsigned int)len[i] };

		if (len[i] == 0 || len[i] > TLS_CERT_MAX) {
			err_set(err, "certificate %zu from %s has %zu bytes (the limit is %d)",
				i + 1, hostname, len[i], TLS_CERT_MAX);
			goto out;
		}
		r = gnutls_x509_crt_init(&crt[nr]);
		if (r < 0) {
			err_set(err, "cannot verify certificates: %s",
				gnutls_why(r, why, sizeof(why)));
			goto out;
		}
		nr++;
		r = gnutls_x509_crt_import(crt[nr - 1], &d, GNUTLS_X509_FMT_DER);
		if (r < 0) {
			err_set(err, "certificate %zu from %s cannot be read: %s",
				i + 1, hostname, gnutls_why(r, why, sizeof(why)));
			goto out;
		}
	}

	r = gnutls_x509_trust_list_init(&list, 0);
	if (r < 0) {
		err_set(err, "cannot verify certificates: %s", gnutls_why(r, why, sizeof(why)));
		goto out;
	}
	if (trust_load(list, ca_file, err))
		goto out;

	memset(vdata, 0, sizeof(vdata));
	vdata[0].type = GNUTLS_DT_DNS_HOSTNAME;
	vdata[0].data = (unsigned char *)hostname;
	vdata[1].type = GNUTLS_DT_KEY_PURPOSE_OID;
	vdata[1].data = (unsigned char *)GNUTLS_KP_TLS_WWW_SERVER;
	r = gnutls_x509_trust_list_verify_crt2(list, crt, (unsigned int)nr, vdata, 2, 0,
					       &status, NULL);
	if (r < 0) {
		err_set(err, "cannot verify the certificate of %s: %s", hostname,
			gnutls_why(r, why, sizeof(why)));
		goto out;
	}
	if (status) {
		struct buf what = BUF_INIT;

		describe_status(&what, status);
		err_set(err, "the certificate of %s is not trusted: %s", hostname, what.data);
		buf_release(&what);
		goto out;
	}
	ret = 0;
out:
	if (list)
		gnutls_x509_trust_list_deinit(list, 1);
	for (i = 0; i < nr; i++)
		gnutls_x509_crt_deinit(crt[i]);
	return ret;
}

int tls_verify_stream(mailstream *stream, const char *hostname,
		      const char *ca_file, struct buf *err)
{
	const unsigned char **der;
	size_t *len, i, n;
	carray *chain;
	int ret;

	chain = mailstream_get_certificate_chain(stream);
	if (!chain)
		return err_set(err, "%s: the connection has no TLS certificate to verify",
			       hostname ? hostname : "server");
	n = carray_count(chain);
	if (n > TLS_CHAIN_MAX) {
		mailstream_certificate_chain_free(chain);
		return err_set(err, "%s sent %zu certificates, more than the %d perfbot accepts",
			       hostname, n, TLS_CHAIN_MAX);
	}
	der = xcalloc(n ? n : 1, sizeof(*der));
	len = xcalloc(n ? n : 1, sizeof(*len));
	for (i = 0; i < n; i++) {
		MMAPString *s = carray_get(chain, (unsigned int)i);

		der[i] = (const unsigned char *)s->str;
		len[i] = s->len;
	}
	ret = tls_verify_chain(der, len, n, hostname, ca_file, err);
	free(der);
	free(len);
	mailstream_certificate_chain_free(chain);
	return ret;
}

int tls_stream_connect(const char *host, int port, int tls, int loopback_only, int timeout,
		       const char *ca_file, size_t max, struct streambound *sb, mailstream **out,
		       struct buf *err)
{
	mailstream *stream;
	int fd, r;

	*out = NULL;
	r = tcp_connect(host, port, timeout, loopback_only, "ingest.timeout", &fd, err);
	if (r < 0) {
		err_prefix(err, "connect: ");
		return r;
	}
	if (tls) {
		/* host outlives the handshake: it is the caller's */
		stream = mailstream_ssl_open_with_callback_timeout(fd, timeout, tls_stream_setup,
								   (void *)host);
		if (!stream) {
			close(fd);
			err_set(err, "connect: the TLS handshake failed");
			return TCP_TEMPORARY;
		}
		if (tls_verify_stream(stream, host, ca_file, err) < 0) {
			mailstream_close(stream);
			return -1;
		}
	} else if (!(stream = mailstream_socket_open_timeout(fd, timeout))) {
		close(fd);
		return err_set(err, "out of memory");
	}
	if (streambound_wrap(stream, max, sb) < 0) {
		mailstream_close(stream);
		return err_set(err, "out of memory");
	}
	*out = stream;
	return 0;
}

int tls_stream_secure(mailstream *stream, const char *host, const char *ca_file, size_t max,
		      struct streambound *sb, struct buf *err)
{
	if (tls_verify_stream(stream, host, ca_file, err) < 0)
		return -1;
	if (streambound_wrap(stream, max, sb) < 0)
		return err_set(err, "out of memory");
	return 0;
}
