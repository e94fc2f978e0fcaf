#ifndef PERFBOT_SOURCE_NNTP_H
#define PERFBOT_SOURCE_NNTP_H

/*
 * A news server read over libetpan's NNTP client (source-nntp.c is its
 * only user): the connection under source_open_nntp(), one per server,
 * which reads as many groups as the caller selects one after the other.
 *
 * What it does with a server, and nothing else:
 *   1. connects with implicit TLS (nntps://), or in plain text and at
 *      once STARTTLS (nntp://...?starttls, RFC 4642: anything but a 382
 *      answer and a successful handshake ends it; no plain-text
 *      fallback), or in plain text to a loopback address only (nntp://);
 *   2. checks the certificate chain and host name with tls.h before it
 *      sends a single byte over TLS (libetpan verifies nothing);
 *   3. GROUP (the range: first and last article numbers, count);
 *   4. XOVER of ranges (the article numbers that exist, their Date and
 *      :bytes), and ARTICLE by number, pipelined;
 *   5. QUIT.
 * No login: public list archives (lore, public-inbox-nntpd) need none.
 *
 * Untrusted: everything the server sends (greeting, numbers, overview
 * lines, article bytes); its texts reach messages only quoted and cut.
 * The URL comes from the configuration or the command line and is
 * checked: no control characters, so nothing can be injected into a
 * command.
 *
 * Errors: -1 for what retrying will not cure (a bad URL, a refused
 * certificate, a group the server does not have, a server that does not
 * speak NNTP as expected), NNTP_TEMPORARY (-2) for what may pass (the
 * server cannot be reached, closed the connection or timed out, answered
 * 400); both with one message naming the server.  After NNTP_TEMPORARY
 * the connection is gone and every later call returns NNTP_TEMPORARY.
 * SIGPIPE never reaches the process (tcp.h's guard is held while each
 * function below talks).  Out of memory is fatal.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define NNTP_TEMPORARY (-2)

#define NNTP_URL_MAX 1024		/* bytes in a URL */
#define NNTP_GROUP_MAX 256		/* bytes of a group name */
#define NNTP_OVER_MAX 1000		/* articles named in one XOVER range */
#define NNTP_PIPELINE_MAX 64		/* ARTICLE commands awaiting their answers */
#define NNTP_NUMBER_MAX 2147483647u	/* RFC 3977 §6: article numbers fit 31 bits */
/* Bytes of one server answer, at most (etpanlib.h's bound): an article
 * of at most 32 MiB (source.h) or an overview of NNTP_OVER_MAX lines. */
#define NNTP_RESPONSE_BYTES_MAX (48u << 20)

enum nntp_security {
	NNTP_TLS,		/* nntps://: TLS from the first byte */
	NNTP_STARTTLS,		/* nntp://...?starttls: STARTTLS, mandatory */
	NNTP_PLAIN,		/* nntp://: no TLS; loopback hosts only */
};

/* A parsed URL.  Plain data; nntp_url_release() frees the strings. */
struct nntp_url {
	enum nntp_security security;
	char *host;	/* DNS name or address literal, without [] */
	int port;	/* as given, else 563 (nntps) or 119 (nntp) */
	char *group;	/* the newsgroup */
	char *server;	/* "nntps://HOST:PORT" (or nntp://, ?starttls kept apart):
			 * URLs with the same server share one connection */
	char *key;	/* the group's cursor name: "nntp://HOST:PORT/GROUP",
			 * the same whatever the transport */
};

/*
 * Reads nntps://HOST[:PORT]/GROUP or nntp://HOST[:PORT]/GROUP[?starttls]
 * (HOST a DNS name, an IPv4 address or [an IPv6 address]; GROUP of
 * letters, digits and ".+-_", at most NNTP_GROUP_MAX bytes).  A user or
 * password in the URL is refused.  Plain nntp:// is accepted only for
 * 127.0.0.0/8, ::1 and localhost.  0 and *out set (release it), or -1
 * with a message quoting the URL.
 */
int nntp_url_parse(const char *url, struct nntp_url *out, struct buf *err);
void nntp_url_release(struct nntp_url *u);

struct nntp;

/*
 * Steps 1-2 above, with the greeting read.  ca_file: PEM file of the CAs
 * to trust, NULL for the system's.  timeout: seconds for connecting and
 * for each read (0: libetpan's default, 300); it also sets libetpan's
 * process-wide mailstream_network_delay.  0 and *out (close it with
 * nntp_close()), -1 or NNTP_TEMPORARY.
 */
int nntp_open(const struct nntp_url *url, const char *ca_file, int timeout,
	      struct nntp **out, struct buf *err);

/* "HOST:PORT" for messages, owned by n. */
const char *nntp_where(const struct nntp *n);

/* A group's range as GROUP answers it. */
struct nntp_range {
	uint32_t first, last;	/* the low and high marks */
	uint32_t count;		/* estimated articles (0: the group is empty; at
				 * least 1 when first <= last, whatever the
				 * server estimated) */
};

/* GROUP group (checked as nntp_url_parse() checks it); the answers to
 * ARTICLE commands still awaited (a group left early) are read and dropped
 * first.  0, -1 (no such group) or NNTP_TEMPORARY. */
int nntp_group(struct nntp *n, const char *group, struct nntp_range *out, struct buf *err);

/* One line of an overview. */
struct nntp_over {
	uint32_t number;
	int64_t date;		/* its Date: (UTC epoch); 0 when unreadable */
	uint64_t size;		/* :bytes as the server counts it; 0 unknown */
};

/*
 * XOVER lo-hi of the selected group (lo <= hi, at most NNTP_OVER_MAX
 * numbers): the articles that exist in the range, ascending numbers,
 * each once, only numbers within lo..hi.  *v is malloc'd (free it; NULL
 * when *nr is 0).  A range with no article is 0 with *nr 0.  0, -1 or
 * NNTP_TEMPORARY.
 */
int nntp_over(struct nntp *n, uint32_t lo, uint32_t hi, struct nntp_over **v, size_t *nr,
	      struct buf *err);

/*
 * Pipelining (RFC 3977 §3.5): nntp_article_send() sends ARTICLE for each
 * of numbers[0..nr-1] in one write, so the server works on them while the
 * caller handles earlier ones; nntp_article_read() reads the answer to
 * the oldest one sent and not read into raw (reset first; CRLF turned
 * into LF, dots unstuffed): 1, 0 for a number the server no longer has
 * (423/430: removed meanwhile), -1 or NNTP_TEMPORARY.  At most
 * NNTP_PIPELINE_MAX awaited at once; no other command may be sent while
 * any is (-1; nntp_group() reads them first).  An answer other than 220, 423 or 430 ends the session
 * (the answers after it could not be matched to their commands).
 */
int nntp_article_send(struct nntp *n, const uint32_t *numbers, size_t nr, struct buf *err);
int nntp_article_read(struct nntp *n, struct buf *raw, struct buf *err);

/*
 * The number of the first article dated `since` or later among
 * range's, found by a binary search over article numbers with small
 * XOVER ranges (so a group of millions of articles costs some twenty
 * overviews); range->last + 1 when there is none.  A list's dates are
 * nearly in number order; where they are not, an article on either side
 * of the answer may be out of order.  0, -1 or NNTP_TEMPORARY.
 */
int nntp_find_date(struct nntp *n, const struct nntp_range *range, int64_t since,
		   uint32_t *first, struct buf *err);

/* Says QUIT (unless the connection is gone or was never trusted) and
 * frees everything; accepts NULL. */
void nntp_close(struct nntp *n);

#endif
