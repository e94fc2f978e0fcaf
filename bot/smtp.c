#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#include "buf.h"
#include "header.h"
#include "smtp.h"
#include "etpanlib.h"
#include "tcp.h"
#include "tls.h"
#include "xalloc.h"
#include "banned.h"

/*
 * libetpan 1.9.4 exports these but leaves them out of its headers.  They
 * are the only way to say EHLO with a name of our choosing:
 * mailesmtp_ehlo() always sends gethostname(), which a relay may refuse.
 */
int mailsmtp_send_command(mailsmtp *session, char *command);
int mailsmtp_read_response(mailsmtp *session);
int mailesmtp_parse_ehlo(mailsmtp *session);

/* libetpan's command buffer (SMTP_STRING_SIZE in mailsmtp.c): longer
 * commands are cut by snprintf and sent without their CRLF. */
#define COMMAND_MAX 512

/* response_code before a command: still there afterwards means nothing
 * was read (the command could not be sent, or a local error). */
#define NO_REPLY (-1)

struct smtp_session {
	mailsmtp *smtp;
	char *server;		/* also SASL's server name and TLS's host name */
	char *where;		/* "server:port" for messages */
	int timeout;
	int alive;		/* 0 once the connection was lost: no more commands */
	struct buf *log;
	struct timespec start;	/* when the current command was sent */
	const char *command;	/* the current command's verb, for messages */
	int plain;		/* the plaintext stream below: no SIGPIPE to block */
	int (*gate)(void *ctx, struct buf *err);	/* smtp_set_gate() */
	void *gate_ctx;
	struct streambound bound;	/* a reply passed SMTP_REPLY_BYTES_MAX; the server went away */
	char helo[SMTP_HOST_MAX + 3];	/* the EHLO name said */
	struct buf ehlo;	/* the last EHLO reply's lines, code stripped, '\n'-ended */
};

void smtp_set_gate(struct smtp_session *s, int (*gate)(void *ctx, struct buf *err), void *ctx)
{
	s->gate = gate;
	s->gate_ctx = ctx;
}

const char *smtp_status_name(enum smtp_status status)
{
	switch (status) {
	case SMTP_OK:
		return "ok";
	case SMTP_TEMPORARY:
		return "temporary";
	case SMTP_PERMANENT:
		return "permanent";
	}
	return "unknown";
}

/*
 * The plaintext stream (smtp.encryption = none, to a loopback server
 * only).  libetpan's socket driver calls select() before each read and
 * write for its timeout: two system calls for each of a mail's dozen
 * reads and writes, where one does.  Here the kernel keeps smtp.timeout
 * (SO_RCVTIMEO and SO_SNDTIMEO, set by tcp_connect(): a read or write
 * that waits longer fails with EAGAIN, which libetpan takes as a lost
 * connection, as it takes its own timeouts), and MSG_NOSIGNAL keeps a
 * dropped connection from raising SIGPIPE.
 */
struct plain {
	int fd;
};

static ssize_t plain_read(mailstream_low *low, void *buf, size_t n)
{
	struct plain *p = low->data;
	ssize_t r;

	do
		r = recv(p->fd, buf, n, 0);
	while (r < 0 && errno == EINTR);
	return r;
}

static ssize_t plain_write(mailstream_low *low, const void *buf, size_t n)
{
	struct plain *p = low->data;
	ssize_t r;

	do
		r = send(p->fd, buf, n, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r;
}

static int plain_close(mailstream_low *low)
{
	struct plain *p = low->data;

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	return 0;
}

static int plain_get_fd(mailstream_low *low)
{
	return ((struct plain *)low->data)->fd;
}

static void plain_free(mailstream_low *low)
{
	free(low->data);
	free(low);
}

static struct mailstream_cancel *plain_get_cancel(mailstream_low *low)
{
	(void)low;
	return NULL;
}

static carray *plain_get_certificate_chain(mailstream_low *low)
{
	(void)low;
	return NULL;
}

static mailstream_low_driver plain_driver = {
	.mailstream_read = plain_read,
	.mailstream_write = plain_write,
	.mailstream_close = plain_close,
	.mailstream_get_fd = plain_get_fd,
	.mailstream_free = plain_free,
	.mailstream_get_cancel = plain_get_cancel,
	.mailstream_get_certificate_chain = plain_get_certificate_chain,
};

/* A buffered libetpan stream over fd with the driver above; NULL when
 * out of memory (fd is then not closed). */
static mailstream *plain_open(int fd)
{
	struct plain *p = malloc(sizeof(*p));
	mailstream_low *low;
	mailstream *stream;

	if (!p)
		return NULL;
	p->fd = fd;
	if (!(low = mailstream_low_new(p, &plain_driver))) {
		free(p);
		return NULL;
	}
	/* libetpan's own socket streams use the same 8 KiB buffer */
	if (!(stream = mailstream_new(low, 8192))) {
		p->fd = -1;
		mailstream_low_free(low);
		return NULL;
	}
	return stream;
}

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (now.tv_nsec - t->tv_nsec) / 1e9;
}

/* --- checks of what we are asked to send ------------------------------ */

/* An envelope address: printable ASCII without space, '<' or '>'. */
static int address_ok(const char *a, int may_be_empty, const char *what, struct buf *err)
{
	struct buf q = BUF_INIT;
	size_t n = strlen(a);
	const char *p;

	for (p = a; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '<' || *p == '>')
			break;
	if (!*p && n <= SMTP_ADDRESS_MAX && (n || may_be_empty))
		return 0;
	header_quote_input(&q, a);
	if (*p)
		err_set(err, "%s %s: %s", what, q.data,
			*p == '\r' || *p == '\n' ? "contains a line break" :
			*p == '<' || *p == '>' ? "contains '<' or '>'" :
			"contains a space, control or non-ASCII character");
	else if (!n)
		err_set(err, "%s is empty", what);
	else
		err_set(err, "%s %s: longer than %d octets", what, q.data, SMTP_ADDRESS_MAX);
	buf_release(&q);
	return -1;
}

/* A name that goes into a command line: printable ASCII without space. */
static int word_ok(const char *s, size_t max, const char *what, struct buf *err)
{
	struct buf q = BUF_INIT;
	const char *p;

	for (p = s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			break;
	if (!*p && p != s && (size_t)(p - s) <= max)
		return 0;
	header_quote_input(&q, s);
	err_set(err, "%s %s: %s", what, q.data,
		p == s ? "is empty" :
		*p ? "must be printable ASCII without spaces or line breaks" :
		"is too long");
	buf_release(&q);
	return -1;
}

static int options_check(const struct smtp_options *o, struct buf *err)
{
	const char *p;

	if (!o->server || word_ok(o->server, SMTP_HOST_MAX, "smtp server", err))
		return o->server ? -1 : err_set(err, "no smtp server configured");
	if (o->port < 1 || o->port > 65535)
		return err_set(err, "smtp port %d is not in 1..65535", o->port);
	if (o->timeout < 1 || o->timeout > SMTP_TIMEOUT_MAX)
		return err_set(err, "smtp timeout %d is not in 1..%d seconds", o->timeout,
			       SMTP_TIMEOUT_MAX);
	if (o->encryption != SMTP_STARTTLS && o->encryption != SMTP_SSL &&
	    o->encryption != SMTP_NONE)
		return err_set(err, "unknown smtp encryption %d", (int)o->encryption);
	if (o->helo_name && word_ok(o->helo_name, SMTP_HOST_MAX, "EHLO name", err))
		return -1;
	if (!o->user)
		return 0;
	if (word_ok(o->user, SMTP_USER_MAX, "smtp user", err))
		return -1;
	if (!o->password)
		return err_set(err, "smtp user %s has no password", o->user);
	/* Never quote the password in a message. */
	if (strlen(o->password) > SMTP_PASSWORD_MAX)
		return err_set(err, "the smtp password is longer than %d bytes", SMTP_PASSWORD_MAX);
	for (p = o->password; *p; p++)
		if (*p == '\r' || *p == '\n')
			return err_set(err, "the smtp password contains a line break (the "
				       "password file must hold it on one line)");
	if (o->auth_mechanism && strcmp(o->auth_mechanism, "PLAIN") &&
	    strcmp(o->auth_mechanism, "LOGIN"))
		return err_set(err, "smtp auth mechanism %s: only PLAIN and LOGIN are supported",
			       o->auth_mechanism);
	return 0;
}

/* --- the log and the replies --------------------------------------------- */

static void log_line(struct smtp_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void log_line(struct smtp_session *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->log)
		return;
	va_start(ap, fmt);
	buf_vaddf(s->log, fmt, ap);
	va_end(ap);
	buf_addc(s->log, '\n');
}

/*
 * The text of the last reply, code stripped, lines joined with spaces,
 * control and non-ASCII bytes as '?', at most SMTP_REPLY_MAX bytes (then
 * ending in "[...]").  libetpan keeps it as "line\nline\n".
 */
static char *reply_text(const struct smtp_session *s)
{
	struct buf out = BUF_INIT;
	const char *p = s->smtp->response ? s->smtp->response : "";
	size_t n = strlen(p);

	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	for (; n; p++, n--) {
		unsigned char c = (unsigned char)*p;

		if (out.len >= SMTP_REPLY_MAX) {
			buf_adds(&out, "[...]");
			break;
		}
		if (c == '\n')
			buf_addc(&out, ' ');
		else if (c == '\r')
			continue;
		else
			buf_addc(&out, c < 0x20 || c >= 0x7f ? '?' : (char)c);
	}
	return buf_detach(&out, NULL);
}

/* Before a command: log it, remember when and what, mark "no reply yet". */
static void command_begin(struct smtp_session *s, const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* fmt NULL: nothing to log (the greeting is read without a command). */
static void command_begin(struct smtp_session *s, const char *verb, const char *fmt, ...)
{
	va_list ap;

	if (s->log && fmt) {
		buf_adds(s->log, "> ");
		va_start(ap, fmt);
		buf_vaddf(s->log, fmt, ap);
		va_end(ap);
		buf_addc(s->log, '\n');
	}
	s->command = verb;
	s->smtp->response_code = NO_REPLY;
	clock_gettime(CLOCK_MONOTONIC, &s->start);
}

/*
 * After a command: the reply code, or 0 when none came (the connection is
 * then lost: marked dead).  Logs the reply.
 */
static int command_end(struct smtp_session *s)
{
	int code = s->smtp->response_code;
	char *text;

	if (code <= 0) {
		s->alive = 0;
		log_line(s, "< (no reply)");
		return 0;
	}
	text = reply_text(s);
	log_line(s, "< %d %s", code, text);
	free(text);
	return code;
}

/* The status a reply code stands for (0: no reply). */
static enum smtp_status code_status(int code)
{
	if (code >= 200 && code < 400)
		return SMTP_OK;
	if (code >= 500 && code < 600)
		return SMTP_PERMANENT;
	if (code >= 400 && code < 500)
		return SMTP_TEMPORARY;
	return code ? SMTP_PERMANENT : SMTP_TEMPORARY;
}

/*
 * Sets err to "where: VERB refused: CODE text" or "where: no reply to VERB
 * within N s" (then what, a hint, is appended) for a failed command, and
 * returns its status.
 */
static enum smtp_status command_failed(struct smtp_session *s, int code, const char *then,
				       struct buf *err)
{
	char *text;

	if (!code) {
		if (s->bound.tripped)
			err_set(err, "%s: the reply to %s passed %d bytes; not reading further%s",
				s->where, s->command, SMTP_REPLY_BYTES_MAX, then);
		else if (seconds_since(&s->start) >= s->timeout - 0.1)
			err_set(err, "%s: no reply to %s within %d s (smtp.timeout)%s", s->where,
				s->command, s->timeout, then);
		else
			err_set(err, "%s: connection lost at %s%s", s->where, s->command, then);
		return SMTP_TEMPORARY;
	}
	text = reply_text(s);
	err_set(err, "%s: %s refused: %d %s%s", s->where, s->command, code, text, then);
	free(text);
	return code_status(code);
}

/* --- connecting ---------------------------------------------------------- */

/*
 * Resolves and connects.  For SMTP_NONE every address must be loopback,
 * checked before connecting anywhere.  0 with *fd, or a status with a
 * message.
 */
static enum smtp_status server_connect(struct smtp_session *s, const struct smtp_options *o,
				       int *fd, struct buf *err)
{
	int r = tcp_connect(o->server, o->port, o->timeout, o->encryption == SMTP_NONE,
			    "smtp.timeout", fd, err);

	if (r == 0)
		return SMTP_OK;
	if (r == TCP_NOT_LOOPBACK) {
		err_prefix(err, "%s: smtp.encryption = none is only allowed to a loopback server: ",
			   s->where);
		buf_adds(err, "; use starttls or ssl");
		return SMTP_PERMANENT;
	}
	err_prefix(err, "%s: ", s->where);
	return r == TCP_TEMPORARY ? SMTP_TEMPORARY : SMTP_PERMANENT;
}

/* --- the session --------------------------------------------------------- */

/* Closes without a word to the server (after a loss, or when the server
 * must not get anything more: a refused certificate). */
static void session_free(struct smtp_session *s)
{
	if (!s)
		return;
	if (s->smtp) {
		if (s->smtp->stream)
			mailstream_close(s->smtp->stream);
		s->smtp->stream = NULL;
		mailsmtp_free(s->smtp);
	}
	free(s->server);
	free(s->where);
	buf_release(&s->ehlo);
	free(s);
}

/* The server's EHLO lines (untrusted), each made printable and cut as a
 * reply text is, at most 64 of them. */
static void ehlo_keep(struct buf *out, const char *response)
{
	const char *p = response;
	int lines = 0;

	while (*p && lines++ < 64) {
		size_t n = strcspn(p, "\r\n");

		if (n) {
			size_t i, keep = n > 200 ? 200 : n;

			for (i = 0; i < keep; i++)
				buf_addc(out, p[i] >= ' ' && p[i] < 0x7f ? p[i] : '?');
			buf_addc(out, '\n');
		}
		p += n;
		p += strspn(p, "\r\n");
	}
}

int smtp_helo_choose(const char *hostname, const char *canonical, const char *local_literal,
		     int loopback, char *out, size_t size)
{
	const char *best = NULL;

	/* a name with a dot that is not localhost's: the host's FQDN */
	if (canonical && strchr(canonical, '.') && strncasecmp(canonical, "localhost", 9))
		best = canonical;
	else if (hostname && strchr(hostname, '.') && strncasecmp(hostname, "localhost", 9))
		best = hostname;
	if (!best && loopback)
		best = "localhost";
	if (!best)
		best = local_literal;
	if (!best || !*best || strlen(best) >= size || strlen(best) > SMTP_HOST_MAX + 2)
		return -1;
	snprintf(out, size, "%s", best);
	return 0;
}

/* The EHLO name when smtp.heloName is not set: the host's fully qualified
 * name, never "localhost" to a server that is not on loopback (then the
 * address literal of the connection's own end, as RFC 5321 §4.1.4 allows). */
static void helo_default(struct smtp_session *s, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[256] = "", literal[INET6_ADDRSTRLEN + 8] = "", addr[INET6_ADDRSTRLEN] = "";
	char *canonical = NULL;
	int loopback = 0;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
		if (ss.ss_family == AF_INET) {
			const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &in->sin_addr, addr, sizeof(addr));
			snprintf(literal, sizeof(literal), "[%s]", addr);
			loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
		} else if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof(addr));
			snprintf(literal, sizeof(literal), "[IPv6:%s]", addr);
			loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
		}
	}
	if (gethostname(host, sizeof(host) - 1) == 0 && *host && !strchr(host, '.')) {
		struct addrinfo hints, *ai = NULL;

		memset(&hints, 0, sizeof(hints));
		hints.ai_flags = AI_CANONNAME;
		if (getaddrinfo(host, NULL, &hints, &ai) == 0 && ai && ai->ai_canonname)
			canonical = xstrdup(ai->ai_canonname);
		if (ai)
			freeaddrinfo(ai);
	}
	if (smtp_helo_choose(host, canonical, literal, loopback, s->helo, sizeof(s->helo)) < 0)
		snprintf(s->helo, sizeof(s->helo), "%s", *literal ? literal : "localhost");
	free(canonical);
}

static enum smtp_status say_ehlo(struct smtp_session *s, const char *name, struct buf *err)
{
	struct buf cmd = BUF_INIT;
	int code;

	buf_addf(&cmd, "EHLO %s\r\n", name);
	command_begin(s, "EHLO", "EHLO %s", name);
	if (mailsmtp_send_command(s->smtp, cmd.data) == 0)
		mailsmtp_read_response(s->smtp);
	buf_release(&cmd);
	code = command_end(s);
	if (code != 250)
		return command_failed(s, code, "", err);
	buf_reset(&s->ehlo);
	if (s->smtp->response)
		ehlo_keep(&s->ehlo, s->smtp->response);
	mailesmtp_parse_ehlo(s->smtp);
	return SMTP_OK;
}

static enum smtp_status verify(struct smtp_session *s, mailstream *stream,
			       const struct smtp_options *o, struct buf *err)
{
	if (tls_verify_stream(stream, s->server, o->ca_file, err)) {
		err_prefix(err, "%s: ", s->where);
		log_line(s, "* TLS certificate refused; closing without another word");
		return SMTP_PERMANENT;
	}
	log_line(s, "* TLS certificate of %s verified%s%s", s->server,
		 o->ca_file ? " with " : "", o->ca_file ? o->ca_file : "");
	return SMTP_OK;
}

static enum smtp_status starttls(struct smtp_session *s, const struct smtp_options *o,
				 struct buf *err)
{
	int r, code;

	if (!(s->smtp->esmtp & MAILSMTP_ESMTP_STARTTLS)) {
		err_set(err, "%s: the server does not offer STARTTLS; not sending without TLS "
			"(smtp.encryption = starttls)", s->where);
		return SMTP_PERMANENT;
	}
	command_begin(s, "STARTTLS", "STARTTLS");
	r = mailsmtp_socket_starttls_with_callback(s->smtp, tls_stream_setup, s->server);
	code = command_end(s);
	if (code != 220)
		return command_failed(s, code, "", err);
	if (r == MAILSMTP_NO_ERROR) {
		/* libetpan put TLS in the place of the bound */
		if (streambound_wrap(s->smtp->stream, SMTP_REPLY_BYTES_MAX, &s->bound) < 0) {
			s->alive = 0;
			err_set(err, "out of memory");
			return SMTP_TEMPORARY;
		}
		return verify(s, s->smtp->stream, o, err);
	}
	/* The 220 came but TLS did not start: the connection is unusable. */
	s->alive = 0;
	if (s->smtp->stream && s->smtp->stream->read_buffer_len) {
		err_set(err, "%s: the server sent more after its 220 reply to STARTTLS "
			"(a response injection?); not continuing", s->where);
		return SMTP_PERMANENT;
	}
	if (seconds_since(&s->start) >= s->timeout - 0.1)
		err_set(err, "%s: TLS handshake not done within %d s (smtp.timeout)", s->where,
			s->timeout);
	else
		err_set(err, "%s: TLS handshake failed after STARTTLS; not sending without TLS",
			s->where);
	return SMTP_TEMPORARY;
}

static enum smtp_status authenticate(struct smtp_session *s, const struct smtp_options *o,
				     struct buf *err)
{
	const char *mech = o->auth_mechanism ? o->auth_mechanism : "PLAIN";
	int flag = strcmp(mech, "LOGIN") ? MAILSMTP_AUTH_PLAIN : MAILSMTP_AUTH_LOGIN;
	int r, code;

	if (!(s->smtp->auth & flag)) {
		err_set(err, "%s: the server does not offer AUTH %s%s", s->where, mech,
			s->smtp->auth & (MAILSMTP_AUTH_PLAIN | MAILSMTP_AUTH_LOGIN) ? "" :
			" (nor any mechanism perfbot uses)");
		return SMTP_PERMANENT;
	}
	/* Only the mechanism is logged: the exchange carries the password. */
	command_begin(s, "AUTH", "AUTH %s (credentials not logged)", mech);
	r = mailesmtp_auth_sasl(s->smtp, mech, s->server, NULL, NULL, NULL, o->user,
				o->password, NULL);
	if (s->smtp->response_code == NO_REPLY && r != MAILSMTP_ERROR_STREAM) {
		log_line(s, "< (nothing sent: SASL failed)");
		err_set(err, "%s: Cyrus SASL cannot start AUTH %s (is libsasl2-modules "
			"installed?)", s->where, mech);
		return SMTP_PERMANENT;
	}
	code = command_end(s);
	if (code == 235 && r == MAILSMTP_NO_ERROR)
		return SMTP_OK;
	if (code == 334) {
		/* SASL gave up in the middle: the server still waits for a line. */
		s->alive = 0;
		err_set(err, "%s: AUTH %s failed in the middle of the exchange", s->where, mech);
		return SMTP_PERMANENT;
	}
	return command_failed(s, code, code == 535 ?
			      " (check smtp.user and smtp.passwordFile)" : "", err);
}

static enum smtp_status session_open(struct smtp_session *s, const struct smtp_options *o,
				     struct buf *err)
{
	mailstream *stream;
	enum smtp_status st;
	int fd, code;

	/* libetpan's plain reads and writes take their timeout from here. */
	mailstream_network_delay.tv_sec = o->timeout;
	mailstream_network_delay.tv_usec = 0;

	st = server_connect(s, o, &fd, err);
	if (st)
		return st;
	s->smtp = mailsmtp_new(0, NULL);
	if (!s->smtp) {
		close(fd);
		err_set(err, "out of memory");
		return SMTP_TEMPORARY;
	}
	mailsmtp_set_timeout(s->smtp, o->timeout);
	log_line(s, "* connected to %s", s->where);
	if (o->helo_name)
		snprintf(s->helo, sizeof(s->helo), "%s", o->helo_name);
	else
		helo_default(s, fd);

	clock_gettime(CLOCK_MONOTONIC, &s->start);
	if (o->encryption == SMTP_SSL) {
		s->command = "the TLS handshake";
		stream = mailstream_ssl_open_with_callback_timeout(fd, o->timeout,
								    tls_stream_setup, s->server);
		if (!stream) {
			close(fd);
			if (seconds_since(&s->start) >= s->timeout - 0.1)
				err_set(err, "%s: TLS handshake not done within %d s (smtp.timeout)",
					s->where, s->timeout);
			else
				err_set(err, "%s: TLS handshake failed (smtp.encryption = ssl: is "
					"this port for implicit TLS?)", s->where);
			return SMTP_TEMPORARY;
		}
		st = verify(s, stream, o, err);
		if (st) {
			mailstream_close(stream);
			return st;
		}
	} else {
		s->plain = o->encryption == SMTP_NONE;
		stream = s->plain ? plain_open(fd) : mailstream_socket_open_timeout(fd, o->timeout);
		if (!stream) {
			close(fd);
			err_set(err, "out of memory");
			return SMTP_TEMPORARY;
		}
	}
	if (streambound_wrap(stream, SMTP_REPLY_BYTES_MAX, &s->bound) < 0) {
		mailstream_close(stream);
		err_set(err, "out of memory");
		return SMTP_TEMPORARY;
	}

	s->alive = 1;
	command_begin(s, "the greeting", NULL);
	/* On any reply but 220 libetpan closes the stream itself. */
	mailsmtp_connect(s->smtp, stream);
	code = command_end(s);
	if (code != 220) {
		s->alive = 0;
		return command_failed(s, code, "", err);
	}

	st = say_ehlo(s, s->helo, err);
	if (st)
		return st;
	if (o->encryption == SMTP_STARTTLS) {
		st = starttls(s, o, err);
		if (st) {
			s->alive = 0;
			return st;
		}
		st = say_ehlo(s, s->helo, err);
		if (st)
			return st;
	}
	if (o->user)
		return authenticate(s, o, err);
	return SMTP_OK;
}

int smtp_open(const struct smtp_options *o, struct smtp_session **out, struct buf *err)
{
	struct smtp_session *s;
	struct buf where = BUF_INIT;
	enum smtp_status st;
	struct tcp_sigpipe old;

	*out = NULL;
	if (options_check(o, err))
		return SMTP_PERMANENT;
	s = xcalloc(1, sizeof(*s));
	s->server = xstrdup(o->server);
	if (strchr(o->server, ':'))
		buf_addf(&where, "[%s]:%d", o->server, o->port);
	else
		buf_addf(&where, "%s:%d", o->server, o->port);
	s->where = buf_detach(&where, NULL);
	s->timeout = o->timeout;
	s->log = o->log;

	tcp_sigpipe_block(&old);
	st = session_open(s, o, err);
	if (st) {
		/* QUIT only when the session is alive: after a refused
		 * certificate, or a failed STARTTLS, the server gets nothing. */
		if (s->alive && s->smtp->stream) {
			log_line(s, "> QUIT");
			mailsmtp_quit(s->smtp);
		}
		session_free(s);
	} else {
		*out = s;
	}
	tcp_sigpipe_restore(&old);
	return st;
}

int smtp_alive(const struct smtp_session *s)
{
	return s && s->alive;
}

void smtp_close(struct smtp_session *s)
{
	struct tcp_sigpipe old;

	if (!s)
		return;
	tcp_sigpipe_block(&old);
	if (s->alive && s->smtp->stream) {
		log_line(s, "> QUIT");
		mailsmtp_quit(s->smtp);
	}
	session_free(s);
	tcp_sigpipe_restore(&old);
}

/* --- one mail ------------------------------------------------------------ */

void smtp_result_release(struct smtp_result *res)
{
	size_t i;

	for (i = 0; i < res->nr_rcpt; i++) {
		free(res->rcpt[i].address);
		free(res->rcpt[i].reply);
	}
	free(res->rcpt);
	free(res->reply);
	memset(res, 0, sizeof(*res));
}

/* Records the reply just read as the result's final one. */
static void result_reply(struct smtp_session *s, struct smtp_result *res, int code)
{
	free(res->reply);
	res->code = code;
	res->reply = code ? reply_text(s) : NULL;
}

static int message_check(const char *mail, size_t *len, struct buf *err)
{
	const char *nul = memchr(mail, '\0', *len);

	if (nul)
		return err_set(err, "the message has a NUL byte at offset %zu",
			       (size_t)(nul - mail));
	/* libetpan ends the data with CRLF.CRLF itself. */
	if (*len >= 2 && mail[*len - 2] == '\r' && mail[*len - 1] == '\n')
		*len -= 2;
	else if (*len && (mail[*len - 1] == '\n' || mail[*len - 1] == '\r'))
		*len -= 1;
	if (!*len)
		return err_set(err, "the message is empty");
	return 0;
}

static enum smtp_status reset(struct smtp_session *s, enum smtp_status st)
{
	if (!s->alive)
		return st;
	command_begin(s, "RSET", "RSET");
	mailsmtp_reset(s->smtp);
	/* libetpan reports success whatever the reply; only a loss matters,
	 * and the next MAIL FROM tells about the rest. */
	command_end(s);
	return st;
}

static enum smtp_status transaction(struct smtp_session *s, const char *from,
				    const char *const *rcpt, size_t nr_rcpt,
				    const char *mail, size_t len, struct smtp_result *res,
				    struct buf *err)
{
	size_t size = mailstream_get_data_crlf_size(mail, len);
	size_t i, accepted = 0, temporary = 0;
	struct buf params = BUF_INIT;
	int code;

	/* Logged as libetpan writes it: RET and SIZE when the server offers
	 * DSN and SIZE. */
	if (s->smtp->esmtp & MAILSMTP_ESMTP_DSN)
		buf_adds(&params, " RET=HDRS");
	if (s->smtp->esmtp & MAILSMTP_ESMTP_SIZE)
		buf_addf(&params, " SIZE=%zu", size);
	command_begin(s, "MAIL FROM", "MAIL FROM:<%s>%s", from, params.data);
	buf_release(&params);
	mailesmtp_mail_size(s->smtp, from, 0, NULL, size);
	code = command_end(s);
	result_reply(s, res, code);
	if (code / 100 != 2)
		return reset(s, command_failed(s, code, "", err));

	for (i = 0; i < nr_rcpt; i++) {
		struct smtp_rcpt_result *r = &res->rcpt[i];

		command_begin(s, "RCPT TO", "RCPT TO:<%s>", rcpt[i]);
		mailesmtp_rcpt(s->smtp, rcpt[i], 0, NULL);
		code = command_end(s);
		if (!code) {
			result_reply(s, res, 0);
			return command_failed(s, code, "", err);
		}
		r->code = code;
		r->reply = reply_text(s);
		r->status = code_status(code);
		if (r->status == SMTP_OK)
			accepted++;
		else if (r->status == SMTP_TEMPORARY)
			temporary++;
	}
	if (!accepted) {
		result_reply(s, res, code);
		err_set(err, "%s: every recipient refused (%zu with a temporary reply); the "
			"last: %d %s", s->where, temporary, code, res->reply);
		return reset(s, temporary ? SMTP_TEMPORARY : SMTP_PERMANENT);
	}

	if (s->gate && s->gate(s->gate_ctx, err)) {
		result_reply(s, res, 0);
		err_prefix(err, "%s: held back before DATA: ", s->where);
		return reset(s, SMTP_TEMPORARY);
	}
	command_begin(s, "DATA", "DATA");
	mailsmtp_data(s->smtp);
	code = command_end(s);
	result_reply(s, res, code);
	if (code != 354)
		return reset(s, command_failed(s, code, "", err));

	command_begin(s, "the end of the message data", "(%zu bytes of message, then \".\")",
		      len);
	mailsmtp_data_message(s->smtp, mail, len);
	code = command_end(s);
	result_reply(s, res, code);
	if (code / 100 == 2)
		return SMTP_OK;
	if (!code)
		return command_failed(s, code,
				      "; the message may or may not have been delivered", err);
	return reset(s, command_failed(s, code, "", err));
}

int smtp_send(struct smtp_session *s, const char *env_from, const char *const *rcpt,
	      size_t nr_rcpt, const char *mail, size_t len, struct smtp_result *res,
	      struct buf *err)
{
	enum smtp_status st;
	struct tcp_sigpipe old;
	size_t i;

	memset(res, 0, sizeof(*res));
	res->rcpt = xcalloc(nr_rcpt ? nr_rcpt : 1, sizeof(*res->rcpt));
	res->nr_rcpt = nr_rcpt;
	for (i = 0; i < nr_rcpt; i++)
		res->rcpt[i].address = xstrdup(rcpt[i] ? rcpt[i] : "");

	if (!s || !s->alive) {
		st = SMTP_TEMPORARY;
		err_set(err, "%s: the connection was lost earlier; nothing sent",
			s ? s->where : "smtp");
		goto out;
	}
	st = SMTP_PERMANENT;
	if (!nr_rcpt) {
		err_set(err, "no recipients");
		goto out;
	}
	if (nr_rcpt > SMTP_RCPT_MAX) {
		err_set(err, "%zu recipients, more than the %d allowed", nr_rcpt, SMTP_RCPT_MAX);
		goto out;
	}
	if (address_ok(env_from, 1, "envelope sender", err))
		goto out;
	for (i = 0; i < nr_rcpt; i++)
		if (address_ok(res->rcpt[i].address, 0, "recipient", err))
			goto out;
	if (message_check(mail, &len, err))
		goto out;

	if (s->plain) {
		st = transaction(s, env_from, rcpt, nr_rcpt, mail, len, res, err);
	} else {
		tcp_sigpipe_block(&old);
		st = transaction(s, env_from, rcpt, nr_rcpt, mail, len, res, err);
		tcp_sigpipe_restore(&old);
	}
out:
	/* Recipients not tried share the overall fate. */
	for (i = 0; i < nr_rcpt; i++)
		if (!res->rcpt[i].code)
			res->rcpt[i].status = st;
	res->status = st;
	return st;
}

const char *smtp_ehlo_name(const struct smtp_session *s)
{
	return s->helo;
}

const char *smtp_ehlo_reply(const struct smtp_session *s)
{
	return s->ehlo.data;
}

void smtp_options_init(struct smtp_options *o, const struct config *c, const char *password)
{
	memset(o, 0, sizeof(*o));
	o->server = c->smtp_server;
	o->port = c->smtp_port;
	o->encryption = c->smtp_encryption;
	o->user = c->smtp_user;
	o->password = password;
	o->ca_file = c->smtp_ca_file;
	o->timeout = c->smtp_timeout;
	o->helo_name = c->smtp_helo_name;
}
