#ifndef PERFBOT_TLS_H
#define PERFBOT_TLS_H

/*
 * TLS certificate verification, shared by the SMTP client and the IMAP
 * reader.  libetpan 1.9.4 makes the TLS connection but verifies nothing
 * and sends no SNI, so perfbot does both itself: tls_stream_setup() names
 * the server in the handshake, and tls_verify_stream() checks the chain
 * the server sent, and its host name, before anything is sent over the
 * connection (both in etpanlib.h, since they take libetpan's streams).
 *
 * This file, tls.c and sha1.c (the checksums of packs) are perfbot's
 * only users of GnuTLS.
 *
 * Untrusted: every certificate byte (it comes from the network).  The host
 * name and CA file come from the configuration.
 */

#include <stddef.h>

#include "buf.h"

#define TLS_CHAIN_MAX 16		/* certificates looked at in a server's chain */
#define TLS_CERT_MAX (64 * 1024)	/* bytes in one DER certificate */
#define TLS_HOST_MAX 253		/* bytes in a host name (RFC 1035) */

/*
 * Checks that der[0..n-1] (DER certificates as the server sent them, its
 * own first) chain up to a trusted CA, are valid now, allow TLS server use,
 * and that the first one is issued for hostname (a DNS name, matched with
 * wildcards as RFC 6125 allows, or an IPv4/IPv6 address literal, matched
 * against the IP addresses in subjectAltName).
 *
 * ca_file: PEM file of the CAs to trust instead of the system's; NULL
 * means the system trust store.
 *
 * 0 when trusted; -1 with one message saying why not ("certificate for
 * 127.0.0.1 is not trusted: issuer unknown (self-signed, or the CA is not
 * in smtp.caFile)"; a CA file that cannot be read or holds no certificate).
 */
int tls_verify_chain(const unsigned char *const *der, const size_t *len, size_t n,
		     const char *hostname, const char *ca_file, struct buf *err);

/* 1 when host is an IPv4 or IPv6 address literal (no brackets). */
int tls_host_is_ip(const char *host);

#endif
