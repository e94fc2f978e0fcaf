#ifndef PERFBOT_ETPANLIB_H
#define PERFBOT_ETPANLIB_H

/*
 * The libetpan seam's own header: included only by the modules that drive
 * libetpan's streams (smtp.c, source-imap.c, source-nntp.c, tls.c, streambound.c),
 * never by a public header.  Everything else sees perfbot's types (smtp.h,
 * source-imap.h, source-nntp.h, tls.h), so libetpan's types stay behind those modules.
 */

#include <stddef.h>

#include <libetpan/libetpan.h>

#include "buf.h"

/*
 * A bound on what a server may send at once, over a libetpan stream
 * (streambound.c).
 *
 * libetpan gathers a server's answer in memory until it ends (an SMTP
 * reply's last line, an IMAP response's tagged line), so a server that
 * sends an answer that never ends (one endless line, endless continuation
 * lines) would take all memory; and since bytes keep coming, no timeout
 * fires.  With the bound, at most max bytes are read between two of the
 * client's writes (and before its first one): the read that would pass
 * it fails, which libetpan takes as a lost connection, and tripped is set
 * so that the caller can say why.  The same layer notes when the server
 * went away (a read that found the connection closed, reset or timed out,
 * or a write that found it gone), which libetpan may otherwise report as
 * a reply it could not parse.
 *
 * The bound lies over the stream's current layer (plaintext, TCP or TLS).
 * libetpan frees that layer when STARTTLS puts TLS in its place, and the
 * bound with it: wrap the stream again after STARTTLS (with the same
 * struct streambound, which keeps what it noted).
 */
struct streambound {
	int tripped;	/* a server's answer passed the bound */
	int closed;	/* the connection was found closed, reset or timed out */
};

/* 0, or -1 when out of memory (the stream is then as it was).  sb must
 * outlive the stream. */
int streambound_wrap(mailstream *stream, size_t max, struct streambound *sb);

/*
 * TLS over libetpan's streams (tls.c): libetpan 1.9.4 makes the TLS
 * connection but verifies nothing and sends no SNI, so perfbot does both.
 *
 * tls_stream_setup() is the callback to give libetpan's *_with_callback()
 * connect and STARTTLS functions, with the server's host name (const char
 * *) as data: it sends that name as SNI, unless it is an IP address
 * literal (RFC 6066 allows only DNS names).  The name must outlive the
 * handshake.
 *
 * tls_verify_stream() takes the certificate chain of a TLS stream (after
 * its handshake) and checks it with tls_verify_chain() (tls.h).  -1 with
 * a message, also when the stream has no TLS or the server sent no
 * certificate.
 */
void tls_stream_setup(struct mailstream_ssl_context *ctx, void *hostname);
int tls_verify_stream(mailstream *stream, const char *hostname, const char *ca_file,
		      struct buf *err);

/*
 * The connection of the mail readers (source-imap.c, source-nntp.c), made
 * by perfbot rather than by libetpan's connect functions so that the
 * greeting is read through the bound too and, with tls (imaps://,
 * nntps://), the certificate is checked before anything is read:
 * tcp_connect() (tcp.h: loopback_only, timeout "ingest.timeout"), TLS
 * from the first byte when tls, then the bound of max bytes (sb) over the
 * stream.  0 and *out (the caller closes it with mailstream_close()); -1,
 * TCP_TEMPORARY (the server cannot be reached, or the TLS handshake
 * failed) or TCP_NOT_LOOPBACK, with a message that the caller prefixes
 * with the server's name.
 *
 * STARTTLS is each protocol's own; after its handshake, tls_stream_secure()
 * checks the certificate (tls_verify_stream()) and lays the bound over
 * the TLS layer again: 0, or -1 with a message as tls_stream_connect()'s.
 */
int tls_stream_connect(const char *host, int port, int tls, int loopback_only, int timeout,
		       const char *ca_file, size_t max, struct streambound *sb, mailstream **out,
		       struct buf *err);
int tls_stream_secure(mailstream *stream, const char *host, const char *ca_file, size_t max,
		      struct streambound *sb, struct buf *err);

#endif
