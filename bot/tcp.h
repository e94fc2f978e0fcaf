#ifndef PERFBOT_TCP_H
#define PERFBOT_TCP_H

/*
 * Opening a TCP connection for the mail protocols (smtp.c, imap.c), so
 * that what the server sends first already goes through perfbot's own
 * stream layers (streambound.h): the server's name is resolved, each
 * address is tried in turn, each connect bounded by the timeout, and the
 * socket gets TCP_NODELAY and the kernel's read and write timeouts.
 */

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

#endif
