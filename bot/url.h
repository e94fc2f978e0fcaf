#ifndef PERFBOT_URL_H
#define PERFBOT_URL_H

/*
 * What the URLs of the servers perfbot reads mail from have in common
 * (source-imap.c's imap[s]://, source-nntp.c's nntp[s]://, and what
 * cmd-check.c says of them): the HOST[:PORT] part, the loopback rule for
 * plain text, the "host:port" written in messages and keys, and the
 * refusal message.  Each scheme's own parts (user, mailbox, group) stay
 * with its source.
 *
 * Pure: no sockets, no resolver (a name is loopback by its spelling
 * only; tcp_connect() checks the addresses it resolves to).  Every input
 * is untrusted (it comes from the configuration or the command line).
 */

#include "buf.h"

/*
 * Splits p..end, "HOST", "HOST:PORT", "[V6]" or "[V6]:PORT", into *host
 * (malloc'd, without brackets: the caller frees it, also on failure) and
 * *port (left as it was when no port is given: the scheme's default).
 * HOST is a DNS name of letters, digits, '.' and '-' (not starting with
 * '.' or '-', at most TLS_HOST_MAX bytes) or an IPv4 address; V6 an IPv6
 * address.  PORT is 1 to 65535.  0, or -1 with *why set to a fixed
 * sentence saying what is wrong.
 */
int url_host_parse(const char *p, const char *end, char **host, int *port, const char **why);

/* 1 when host names the loopback by its spelling: localhost (any case),
 * 127.0.0.0/8 or ::1. */
int url_host_is_loopback(const char *host);

/* Appends "host:port", or "[host]:port" for an IPv6 address. */
void url_add_host_port(struct buf *out, const char *host, int port);

/* Sets err to "KIND url URL: why" (the URL quoted and cut as header.h's
 * header_quote_input() does) and returns -1. */
int url_fail(const char *kind, const char *url, const char *why, struct buf *err);

/* How a connection is made, for check's lines: "plain text (loopback)",
 * "TLS, certificate verified" or "TLS, certificate verified (STARTTLS)". */
const char *url_transport(int plain, int starttls);

#endif
