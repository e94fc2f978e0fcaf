#ifndef PERFBOT_SOURCE_IMAP_H
#define PERFBOT_SOURCE_IMAP_H

/*
 * An IMAP mailbox read over libetpan (imap.c is perfbot's only user of
 * libetpan's IMAP client): the reader under source_open_imap().
 *
 * What it does with a server, in this order, and nothing else:
 *   1. connects with implicit TLS (imaps://), or in plain text and at
 *      once STARTTLS (imap://...?starttls: anything but a successful TLS
 *      handshake ends it; there is no plain-text fallback), or in plain
 *      text to a loopback address only (imap:// without ?starttls);
 *   2. checks the server's certificate chain and host name with tls.h,
 *      before it sends a single byte over the TLS connection (libetpan
 *      verifies nothing); a refused certificate closes the connection
 *      without another word;
 *   3. LOGIN (over TLS or loopback only; a PREAUTH greeting skips it, but
 *      is refused before STARTTLS, where anyone on the path could have
 *      sent it);
 *   4. EXAMINE (read-only: nothing in the mailbox changes, not even
 *      \Seen or \Recent); when the server has no such mailbox, or gives
 *      it no UIDVALIDITY, LIST "" "MAILBOX.%" for a public-inbox inbox's
 *      slices (below) and EXAMINE of the first;
 *   5. UID SEARCH UID n:* (or SINCE a day, on a first read) and UID FETCH
 *      of RFC822.SIZE and BODY.PEEK[].
 *
 * Slices: public-inbox-imapd serves an inbox (its newsgroup name) as
 * mailboxes of 50,000 messages each, NEWSGROUP.0, NEWSGROUP.1, ..., and
 * the inbox's own name as an empty mailbox without a UIDVALIDITY.  A URL
 * naming the inbox reads its slices (imap_slices(), imap_examine_slice());
 * a URL naming one slice reads that mailbox alone, as any other.
 *
 * Untrusted: everything the server sends (its greeting, texts, UIDs,
 * sizes, message bytes); its texts reach error messages only quoted and
 * cut (header_quote_input).  The URL and password come from the
 * configuration and are checked: no control characters, so nothing can
 * be injected into a command.
 *
 * Errors: -1 for what retrying will not cure (a bad URL, a refused
 * certificate or login, a missing mailbox, a server that does not speak
 * IMAP as expected), IMAP_TEMPORARY (-2) for what may pass (the server
 * cannot be reached, the connection dropped or timed out, the server
 * says [UNAVAILABLE] or BYE); both with one message naming the server.
 * After IMAP_TEMPORARY the connection is gone and every later call
 * returns IMAP_TEMPORARY.  A server that closes or resets the connection
 * at any point is IMAP_TEMPORARY ("the server closed the connection"),
 * and SIGPIPE from it never reaches the process (tcp.h's guard is held
 * while each function below runs).  Out of memory is fatal.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define IMAP_TEMPORARY (-2)

#define IMAP_URL_MAX 1024		/* bytes in a URL */
#define IMAP_USER_MAX 256		/* bytes of the user name, decoded */
#define IMAP_MAILBOX_MAX 512		/* bytes of the mailbox name, decoded */
#define IMAP_PASSWORD_MAX 1024		/* bytes of the password */
#define IMAP_SEARCH_MAX 100000		/* new UIDs taken from one search (the lowest) */
#define IMAP_FETCH_MAX 1000		/* UIDs named in one UID FETCH */
#define IMAP_SLICES_MAX 100000		/* slices of one inbox (MAILBOX.0 ..) */
/* Bytes of one server response, at most (the bound of etpanlib.h): a FETCH brings
 * one message of at most 32 MiB, or some of at most 8 MiB together
 * (source.h), and a SEARCH some hundred thousand UIDs.  More ends the
 * session: temporary. */
#define IMAP_RESPONSE_BYTES_MAX (48u << 20)

enum imap_security {
	IMAP_TLS,		/* imaps://: TLS from the first byte */
	IMAP_STARTTLS,		/* imap://...?starttls: STARTTLS, mandatory */
	IMAP_PLAIN,		/* imap://: no TLS; loopback hosts only */
};

/* A parsed URL.  Plain data; imap_url_release() frees the strings. */
struct imap_url {
	enum imap_security security;
	char *user;	/* the login name, %-decoded */
	char *host;	/* DNS name or address literal, without [] */
	int port;	/* as given, else 993 (imaps) or 143 (imap) */
	char *mailbox;	/* %-decoded; "INBOX" when the URL names none */
};

/*
 * Reads imaps://USER@HOST[:PORT][/MAILBOX] or imap://USER@HOST[:PORT][/MAILBOX][?starttls]
 * (HOST a DNS name, an IPv4 address or [an IPv6 address]).  USER and
 * MAILBOX may hold %XX escapes ("bot%40example.org"); neither may hold
 * control characters after decoding, and MAILBOX must be ASCII (non-ASCII
 * names are written in IMAP's modified UTF-7, as the server lists them).
 * A password in the URL is refused (it belongs in a file of mode 0600).
 * Plain imap:// is accepted only for 127.0.0.0/8, ::1 and localhost.
 * 0 and *out set (release it), or -1 with a message quoting the URL.
 */
int imap_url_parse(const char *url, struct imap_url *out, struct buf *err);
void imap_url_release(struct imap_url *u);

struct imap;

/*
 * Steps 1-4 above (a sliced inbox: its first slice examined).  password: the login password (NUL-terminated, no
 * control characters, at most IMAP_PASSWORD_MAX bytes; not kept after
 * this returns).  ca_file: PEM file of the CAs to trust, NULL for the
 * system's.  timeout: seconds for connecting and for each read; it also
 * sets libetpan's process-wide mailstream_network_delay, which is what
 * bounds its TLS handshake.  0 and *out (close it with imap_close()),
 * -1 or IMAP_TEMPORARY.
 */
int imap_open(const struct imap_url *url, const char *password, const char *ca_file,
	      int timeout, struct imap **out, struct buf *err);

/* Appends what the server says of itself and the mailbox, for `perfbot
 * check`: "HOST:PORT/MAILBOX: UIDVALIDITY n, m messages; capabilities:
 * ..." (the capabilities as the server last sent them, quoted). */
void imap_describe(const struct imap *im, struct buf *out);

/* The mailbox's UIDVALIDITY (never 0: a server that sends none is refused). */
uint32_t imap_uidvalidity(const struct imap *im);

/* 0 when the URL named a mailbox, else how many slices (MAILBOX.0 to
 * MAILBOX.n-1, listed without a gap, at most IMAP_SLICES_MAX) the
 * server listed when opened or at the last imap_relist(). */
size_t imap_slices(const struct imap *im);

/* EXAMINE slice i (< imap_slices()): the mailbox the calls below read
 * from now on.  0, -1 (also when the slice is gone) or IMAP_TEMPORARY. */
int imap_examine_slice(struct imap *im, size_t i, struct buf *err);

/* A sliced inbox: LIST again, for slices added since (public-inbox-imapd
 * lists a new slice once one of the inbox's mailboxes was examined after
 * it was made).  The count never goes down.  0 (also for a plain
 * mailbox: nothing is sent), -1 or IMAP_TEMPORARY. */
int imap_relist(struct imap *im, struct buf *err);

/*
 * UID SEARCH SINCE day (epoch seconds, UTC, of the day's start: the
 * server compares its internal dates, by day): *last is the UID just
 * before the lowest found, so that imap_search_after(*last) reads from
 * that day on; when nothing is that recent, UIDNEXT - 1 (without a
 * UIDNEXT, the highest UID UID SEARCH UID 1:* finds; 0 when none).  0, -1 or
 * IMAP_TEMPORARY.
 */
int imap_search_since(struct imap *im, int64_t day, uint32_t *last, struct buf *err);

/*
 * The UIDs above last, ascending, at most IMAP_SEARCH_MAX of them (the
 * lowest).  UID SEARCH UID last+1:* answers with the highest UID even when
 * it is not above last (RFC 3501 §6.4.8: "*" is the highest UID in use),
 * so what is not above last is dropped here.  *uids is malloc'd (free it;
 * NULL when *nr is 0).  0, -1 or IMAP_TEMPORARY.
 */
int imap_search_after(struct imap *im, uint32_t last, uint32_t **uids, size_t *nr,
		      struct buf *err);

/* One message of the mailbox, as imap_fetch_sizes() and imap_fetch_bodies()
 * fill it in. */
struct imap_message {
	uint32_t uid;		/* (in) */
	int64_t size;		/* RFC822.SIZE as the server gave it; -1: the server
				 * returned nothing for the UID (expunged meanwhile) */
	int fetched;		/* 1: raw holds the message */
	struct buf raw;		/* its bytes, CRLF turned into LF; the caller releases it */
};

/*
 * Sets size for each of v[0..nr-1] (nr <= IMAP_FETCH_MAX, UIDs ascending).
 * 0, -1 or IMAP_TEMPORARY.
 */
int imap_fetch_sizes(struct imap *im, struct imap_message *v, size_t nr, struct buf *err);

/*
 * Fetches BODY.PEEK[] of each of v[0..nr-1] (nr <= IMAP_FETCH_MAX, UIDs
 * ascending) into raw, and sets fetched; a UID the server returns nothing
 * for keeps fetched 0.  All the bodies are in memory at once: the caller
 * chooses nr by the sizes.  0, -1 or IMAP_TEMPORARY.
 */
int imap_fetch_bodies(struct imap *im, struct imap_message *v, size_t nr, struct buf *err);

/* Says LOGOUT (unless the connection is gone or was never trusted) and
 * frees everything; accepts NULL. */
void imap_close(struct imap *im);

/* Appends p[0..n-1] to out with each CRLF turned into LF (a lone CR or LF
 * is kept).  -1 only when out->limit is reached. */
int imap_crlf_to_lf(struct buf *out, const char *p, size_t n);

#endif
