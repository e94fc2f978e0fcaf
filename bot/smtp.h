#ifndef PERFBOT_SMTP_H
#define PERFBOT_SMTP_H

/*
 * The SMTP client: one connection (struct smtp_session) that sends any
 * number of mails, one transaction each.  This file and smtp.c are
 * perfbot's only users of libetpan's SMTP code; TLS certificates are
 * verified by tls.c.
 *
 * What it guarantees:
 *   - encryption SMTP_STARTTLS or SMTP_SSL: the server's certificate chain
 *     and host name are verified (smtp_options.ca_file, or the system
 *     trust) right after the handshake, before any other byte is sent; a
 *     server that does not offer STARTTLS, or a failed handshake, ends the
 *     attempt: never a fall-back to plaintext.
 *   - encryption SMTP_NONE only to a loopback server: the name is resolved
 *     and every address must be in 127.0.0.0/8 or ::1, else nothing is
 *     connected to at all.
 *   - timeout bounds the connect, the TLS handshake and every read and
 *     write, the greeting included.
 *   - CR, LF, NUL, spaces and other control characters in addresses, the
 *     EHLO name or the user name are refused before anything is sent, and
 *     so are values too long for an SMTP command line (the limits below).
 *   - temporary and permanent failures are told apart by the server's
 *     reply code (4xx and 5xx), a dropped connection or a timeout is
 *     temporary.
 *   - the password and the AUTH exchange never reach the log.
 *   - SIGPIPE from a dropped connection does not kill the process: it is
 *     blocked while smtp_*() run and a pending one is discarded (tcp.h).
 *
 * Untrusted: everything the server sends.  At most SMTP_REPLY_BYTES_MAX
 * bytes are read for one reply (more ends the session: temporary).  Reply
 * texts are kept at most SMTP_REPLY_MAX bytes (longer ones end in "[...]")
 * with control and non-ASCII bytes replaced by '?', so they are safe to
 * print and store.
 *
 * Statuses: SMTP_OK; SMTP_TEMPORARY (connection refused or lost, timeout,
 * a failed TLS handshake, a 4xx reply: try again later); SMTP_PERMANENT
 * (a 5xx reply, a refused certificate or AUTH, no STARTTLS offered, a
 * configuration error: trying again unchanged will not help).
 * smtp_open() failures concern the connection, not any one mail: callers
 * keep their mails queued.
 *
 * Process-wide effect: smtp_open() sets libetpan's global
 * mailstream_network_delay to the timeout (libetpan reads some timeouts
 * only from there).
 */

#include <stddef.h>

#include "buf.h"
#include "config.h"

#define SMTP_ADDRESS_MAX 254	/* octets in an envelope address (RFC 5321 path) */
#define SMTP_HOST_MAX 253	/* octets in the server and EHLO names */
#define SMTP_USER_MAX 128	/* octets in the AUTH user name */
#define SMTP_PASSWORD_MAX 240	/* octets in the password: AUTH PLAIN of both fits one command line */
#define SMTP_RCPT_MAX 1000	/* recipients of one message */
#define SMTP_REPLY_MAX 1024	/* bytes of a server reply kept */
#define SMTP_REPLY_BYTES_MAX (64 << 10)	/* bytes read for one reply, at most */
#define SMTP_TIMEOUT_MAX 3600	/* seconds */

enum smtp_status {
	SMTP_OK = 0,
	SMTP_TEMPORARY = 1,
	SMTP_PERMANENT = 2,
};

struct smtp_options {
	const char *server;		/* host name or address literal */
	int port;			/* 1..65535 */
	enum smtp_encryption encryption; /* config.h: STARTTLS, SSL (implicit TLS) or NONE */
	const char *user;		/* NULL = no AUTH */
	const char *password;		/* with user */
	const char *auth_mechanism;	/* "PLAIN" or "LOGIN"; NULL = PLAIN */
	const char *ca_file;		/* PEM CAs to trust; NULL = the system trust */
	int timeout;			/* seconds, 1..SMTP_TIMEOUT_MAX */
	const char *helo_name;		/* the EHLO name; NULL: the host's fully qualified
					 * name (smtp_helo_choose()) */
	struct buf *log;		/* non-NULL: the conversation is appended, one
					 * "> command" or "< reply" per line (AUTH data
					 * and message bytes left out) */
};

struct smtp_rcpt_result {
	char *address;			/* as given; owned */
	int code;			/* the server's reply code; 0 = not tried (connection lost) */
	char *reply;			/* its text, code stripped; owned; NULL when not tried */
	enum smtp_status status;	/* OK (2xx), TEMPORARY (4xx, not tried) or PERMANENT (5xx) */
};

struct smtp_result {
	enum smtp_status status;	/* as smtp_send() returned */
	int code;			/* the final reply's code (end of DATA) or the failing
					 * one's; 0 when no reply came (lost, refused locally) */
	char *reply;			/* that reply's text, code stripped; owned; may be NULL */
	struct smtp_rcpt_result *rcpt;	/* one per recipient, in the order given; owned */
	size_t nr_rcpt;
};

struct smtp_session;

/*
 * Connects to o->server:o->port, reads the greeting, says EHLO, does
 * STARTTLS (then verifies the certificate, then EHLO again) or starts with
 * implicit TLS (verifying before reading the greeting), and AUTHs when
 * o->user is set.  The options are copied: o need not outlive the call,
 * except o->log, which is used until smtp_close().
 *
 * Returns SMTP_OK with *out set (close it with smtp_close()), or
 * SMTP_TEMPORARY / SMTP_PERMANENT with *out NULL and one message in err
 * naming the server and saying what went wrong and, where it can, what to
 * do (e.g. "127.0.0.1:25: the server does not offer STARTTLS; not sending
 * without TLS (smtp.encryption = starttls)").
 */
int smtp_open(const struct smtp_options *o, struct smtp_session **out, struct buf *err);

/*
 * Sends one message: MAIL FROM:<env_from>, RCPT TO: for each of rcpt[0..
 * nr_rcpt-1] (every one is tried, whatever the others got), DATA when at
 * least one was accepted, then the message.
 *
 * mail: the whole message, headers and body, with LF (or CRLF) line ends;
 * it is sent as given, the line ends turned into CRLF and lines starting
 * with '.' doubled by libetpan.  One final line end is not sent twice.  A
 * NUL byte in it is refused.
 *
 * Returns the overall status, also stored in res->status:
 *   SMTP_OK         the server accepted the message after DATA (recipients
 *                   it refused are in res->rcpt with their reply);
 *   SMTP_TEMPORARY  a 4xx reply to MAIL, DATA or the message, every
 *                   recipient refused and at least one with 4xx, or the
 *                   connection was lost or timed out;
 *   SMTP_PERMANENT  a 5xx reply to MAIL, DATA or the message, every
 *                   recipient refused with 5xx, or an address or message
 *                   refused before anything was sent.
 * err gets one message for TEMPORARY and PERMANENT.  After a failed
 * transaction RSET is sent, so the session can send the next mail.
 * A connection lost or timed out while the message was being sent or its
 * reply awaited may or may not have delivered it: send it again later
 * (with the same Message-ID).  After a loss the session is dead: this and
 * every later smtp_send() return SMTP_TEMPORARY at once.
 *
 * res is always filled (also on failure) and must be released with
 * smtp_result_release().
 */
int smtp_send(struct smtp_session *s, const char *env_from, const char *const *rcpt,
	      size_t nr_rcpt, const char *mail, size_t len, struct smtp_result *res,
	      struct buf *err);

/*
 * A gate that smtp_send() calls once the server took the envelope (MAIL
 * and at least one RCPT) and before DATA, the last moment a mail can
 * still be held back: delivery waits there for the database to have the
 * attempt on disk, while the envelope's round trips ran beside that work.
 * A gate that returns non-zero (with a message in err) holds the mail:
 * the transaction is reset and smtp_send() returns SMTP_TEMPORARY, the
 * message not sent.  NULL removes the gate.
 */
void smtp_set_gate(struct smtp_session *s, int (*gate)(void *ctx, struct buf *err), void *ctx);

/* Frees what res holds and zeroes it; accepts a zeroed res. */
void smtp_result_release(struct smtp_result *res);

/* 1 while the connection is usable (no loss or timeout seen). */
int smtp_alive(const struct smtp_session *s);

/* Sends QUIT when the connection is alive, closes it and frees s; accepts NULL. */
void smtp_close(struct smtp_session *s);

/* The options smtp.* of c give (password: the one read from
 * smtp.passwordFile, or NULL); log unset. */
void smtp_options_init(struct smtp_options *o, const struct config *c, const char *password);

/*
 * The EHLO name when none is configured, from what the host says of
 * itself: its canonical name (getaddrinfo of hostname) or its host name,
 * whichever has a dot and is not localhost; else "localhost" to a
 * loopback server and, to any other, the address literal of the
 * connection's own end ("[192.0.2.7]"), so that no relay ever sees a
 * bare "localhost".  Pure.  0 with out set, -1 when nothing fits.
 */
int smtp_helo_choose(const char *hostname, const char *canonical, const char *local_literal,
		     int loopback, char *out, size_t size);

/* The EHLO name the session said, and the server's answer to the last
 * EHLO: its lines without the code, one a line, made printable ("" when
 * none).  For `perfbot check`. */
const char *smtp_ehlo_name(const struct smtp_session *s);
const char *smtp_ehlo_reply(const struct smtp_session *s);

/* "ok", "temporary" or "permanent". */
const char *smtp_status_name(enum smtp_status status);

#endif
