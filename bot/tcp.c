#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tcp.h"
#include "banned.h"

static int addr_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			return in6->sin6_addr.s6_addr[12] == 127;
		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	}
	return 0;
}

/* Connects one address within timeout seconds: the fd (blocking), or -1
 * with errno set (ETIMEDOUT when no answer came). */
static int connect_one(const struct addrinfo *ai, int timeout)
{
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, r, e = 0;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	r = connect(fd, ai->ai_addr, ai->ai_addrlen);
	if (r < 0 && errno == EINPROGRESS) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do {
			r = poll(&pfd, 1, timeout * 1000);
		} while (r < 0 && errno == EINTR);
		if (r == 0)
			e = ETIMEDOUT;
		else if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
			e = errno;
	} else if (r < 0) {
		e = errno;
	}
	/* libetpan wants a blocking descriptor (its TLS handshake busy-loops
	 * on a non-blocking one); the socket timeouts bound every call. */
	if (!e && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		e = errno;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void socket_tune(int fd, int timeout)
{
	struct timeval tv = { timeout, 0 };
	int one = 1;

	/* Without it a mail larger than libetpan's 8 KB write buffer waits
	 * ~40 ms: Nagle holds its second write until the server's delayed
	 * ACK of the first (measured: 22 mails/s instead of 1,600). */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

int tcp_connect(const char *host, int port, int timeout, int loopback_only,
		const char *timeout_key, int *fd, struct buf *err)
{
	struct addrinfo hints, *res, *ai;
	char service[8];
	int r, e = 0;

	*fd = -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	snprintf(service, sizeof(service), "%d", port);
	r = getaddrinfo(host, service, &hints, &res);
	if (r) {
		err_set(err, "cannot resolve %s: %s", host,
			r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
		return r == EAI_AGAIN || r == EAI_SYSTEM ? TCP_TEMPORARY : -1;
	}
	for (ai = res; loopback_only && ai; ai = ai->ai_next) {
		char addr[NI_MAXHOST];

		if (addr_is_loopback(ai->ai_addr))
			continue;
		if (getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof(addr), NULL, 0,
				NI_NUMERICHOST))
			snprintf(addr, sizeof(addr), "?");
		err_set(err, "%s%s%s is not a loopback address (127.0.0.0/8 or ::1)", host,
			strcmp(addr, host) ? " at " : "", strcmp(addr, host) ? addr : "");
		freeaddrinfo(res);
		return TCP_NOT_LOOPBACK;
	}
	for (ai = res; ai && *fd < 0; ai = ai->ai_next) {
		*fd = connect_one(ai, timeout);
		if (*fd < 0)
			e = errno;
	}
	freeaddrinfo(res);
	if (*fd < 0) {
		if (e == ETIMEDOUT)
			err_set(err, "no answer to connect within %d s (%s)", timeout, timeout_key);
		else
			err_set(err, "cannot connect: %s", strerror(e));
		return TCP_TEMPORARY;
	}
	socket_tune(*fd, timeout);
	return 0;
}

void tcp_sigpipe_block(struct tcp_sigpipe *g)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
}

void tcp_sigpipe_restore(const struct tcp_sigpipe *g)
{
	struct timespec zero = { 0, 0 };
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	if (!sigismember(&g->old, SIGPIPE) && !sigpending(&pending) && sigismember(&pending, SIGPIPE))
		while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}
