#ifndef PERFBOT_TCP_H
#define PERFBOT_TCP_H

/*
 * Opening a TCP connection for the mail protocols (smtp.c, and
 * tls_stream_connect() for source-imap.c and source-nntp.c), so that what
 * the server sends first already goes through perfbot's own stream layers (etpanlib.h): the server's name is resolved, each
 * address is tried in turn, each connect bounded by the timeout, and the
 * socket gets TCP_NODELAY and the kernel's read and write timeouts.
 */

#include <signal.h>

#include "buf.h"

#define TCP_TEMPORARY (-2)	/* try again later: no answer, refused, resolver busy */
#define TCP_NOT_LOOPBACK (-3)	/* loopback_only, and an address is not loopback */

/*
 * Connects to host:port.  With loopback_only, every address host resolves
 * to must be loopback (127.0.0.0/8, ::1), checked before connecting
 * anywhere.  timeout_key names the setting in a message about a timeout
 * ("smtp.timeout").  0 with *fd (blocking, close-on-exec); -1 (the name
 * does not resolve), TCP_TEMPORARY or TCP_NOT_LOOPBACK with a message.
 */
int tcp_connect(const char *host, int port, int timeout, int loopback_only,
		const char *timeout_key, int *fd, struct buf *err);

/*
 * SIGPIPE, for every client of the mail protocols.  libetpan writes with
 * send(fd, ..., 0) and GnuTLS without MSG_NOSIGNAL, so a write to a
 * connection the server dropped would kill the process (exit 141, and
 * nothing said).  Each client function that lets libetpan talk runs
 * between tcp_sigpipe_block() and tcp_sigpipe_restore(): the write then
 * fails with EPIPE, which libetpan takes as a lost connection, and a
 * SIGPIPE that became pending meanwhile is taken before the old mask
 * comes back, so it never reaches the process.  Per thread.
 */
struct tcp_sigpipe {
	sigset_t old;	/* the mask before tcp_sigpipe_block() */
};

void tcp_sigpipe_block(struct tcp_sigpipe *g);
void tcp_sigpipe_restore(const struct tcp_sigpipe *g);

#endif
