#ifndef PERFBOT_DELIVERY_H
#define PERFBOT_DELIVERY_H

/*
 * Delivery: the outbox's due mails go out over one SMTP connection (the
 * second half of `perfbot send`), and each delivered one into the archive.
 *
 * Per mail: the attempt is committed as 'sending' before the DATA goes
 * out; the server's answer then makes it 'sent' (the server took it for at
 * least one recipient), 'queued' again with an exponential back-off from
 * perfbot.retryMinutes (4xx, a dropped connection, a timeout), or
 * 'failed' (5xx).  A run killed while a mail was 'sending' leaves it
 * 'sending'; the next run sends it again with the same bytes and
 * Message-ID, since the server may not have taken it — receivers and the
 * archive drop duplicates by Message-ID.  The marks survive kill -9 at any
 * instant; they are fsynced at the end of the run, not at each mail
 * (state_set_durable() says why that loses nothing).
 *
 * Pipelining: one transaction per mail marks the previous mail's outcome
 * and this one's start; a worker thread (worker.h) commits it while the
 * server answers this mail's MAIL and RCPT commands, and smtp_send()
 * waits for it at its gate, before DATA (smtp_set_gate()).  So a mail's
 * outcome is on disk before the next mail's data goes out, as if the
 * marks ran in line, and the archive (store.h) is written by a thread of
 * its own.  The transaction changes the report's row alone: the hourly
 * send log is added to once a run, and a sent mail's row among the known
 * messages is written with the archive batch.  A run marks itself
 * unfinished before its first mail (state_delivery_begin()); the next run
 * after one killed recounts the send log and archives what was delivered
 * but not archived.
 *
 * Nothing is sent while
 * perfbot.paused, at most perfbot.maxPerHour an hour (the rest waits),
 * and with perfbot.redirectTo every envelope goes to that address only
 * (headers unchanged).
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "eventlog.h"
#include "config.h"
#include "state.h"

#define DELIVERY_MAX_BATCH 10000	/* mails one run tries */

struct delivery {
	const struct config *cfg;
	struct state *st;
	int64_t now;
	const char *password;		/* from smtp.passwordFile, or NULL */
	struct buf *smtp_log;		/* non-NULL (-v): the SMTP conversation */
	int dry_run;			/* print instead of sending: nothing changes */
	struct buf *dry_mbox;		/* dry_run: the due mails, as mboxrd */
	struct event_log log;		/* one line per event */
	size_t sent, deferred, failed, held;	/* counts, for the caller */
	int temporary;			/* a temporary failure left mail queued */
	int config_error;		/* the SMTP settings were refused (TLS, AUTH, none) */
};

/* -1 only for errors of the state database or the archive; SMTP trouble
 * is counted and logged. */
int delivery_run(struct delivery *d, struct buf *err);

/* The wait after attempt number `attempts` (1, 2, ...) failed: retry
 * minutes doubling, capped at a day. */
int64_t delivery_backoff(int retry_minutes, int attempts);

#endif
