#ifndef PERFBOT_STREAMBOUND_H
#define PERFBOT_STREAMBOUND_H

/*
 * A bound on what a server may send at once, over a libetpan stream.
 *
 * libetpan gathers a server's answer in memory until it ends (an SMTP
 * reply's last line, an IMAP response's tagged line), so a server that
 * sends an answer that never ends (one endless line, endless continuation
 * lines) would take all memory; and since bytes keep coming, no timeout
 * fires.  With the bound, at most max bytes are read between two of the
 * client's writes (and before its first one): the read that would pass
 * it fails, which libetpan takes as a lost connection, and *tripped is
 * set so that the caller can say why.
 *
 * The bound lies over the stream's current layer (plaintext, TCP or TLS).
 * libetpan frees that layer when STARTTLS puts TLS in its place, and the
 * bound with it: wrap the stream again after STARTTLS.
 */

#include <stddef.h>

#include <libetpan/libetpan.h>

/* 0, or -1 when out of memory (the stream is then as it was).  tripped
 * must outlive the stream. */
int streambound_wrap(mailstream *stream, size_t max, int *tripped);

#endif
