#ifndef PERFBOT_DELIVERY_H
#define PERFBOT_DELIVERY_H

/*
 * Delivery: the outbox's due mails go out over one SMTP connection (the
 * second half of `perfbot send`), and each delivered one into the archive.
 *
 * Per mail: the attempt is committed as 'sending' before the DATA goes
 * out; the server's answer then gives each envelope recipient its
 * outcome: delivered (the server took it), deferred (4xx, a dropped
 * connection, a timeout) or refused (5xx).  Delivered and refused are
 * final; while one is deferred the mail stays queued, with an
 * exponential back-off from perfbot.retryMinutes, and the next attempt
 * goes to the deferred recipients alone (same Message-ID, same bytes).  A
 * mail is 'sent' once none is deferred, 'failed' when every one was
 * refused.  It is archived once, when a first recipient got it.  A run
 * killed while a mail was 'sending' leaves it 'sending'; the next run
 * sends it again to the same recipients, since the server may not have
 * taken it — receivers and the archive drop duplicates by Message-ID.
 * The marks survive kill -9 at any instant; they are fsynced at the end
 * of the run, not at each mail (state_set_durable() says why that loses
 * nothing).
 *
 * A session that fails before a mail's transaction (connection refused,
 * timeout, greeting, STARTTLS, certificate, AUTH) counts an attempt for
 * each due mail it stopped, with the reason as its last reply and the
 * back-off after it; a configuration failure (certificate, AUTH, no
 * STARTTLS) keeps the next attempt where it was, so the next run tries
 * again.
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
 * Nothing is sent while perfbot.paused, at most perfbot.maxPerHour an
 * hour (the rest waits), nothing the operator held, and no follow-up of
 * a dropped report or of a closed one (its report is invalid, fixed or
 * duplicate: it goes if the report is reopened); each kind skipped is
 * said in one line.
 *
 * The order (perfbot-send(1), Order): a mail that answers another (follow-up,
 * notice, digest) goes only once the mail it answers went to every
 * recipient it will reach (sent, or dropped after a first one had it):
 * before this run, or earlier in this run, whose outcome is then
 * committed before the follow-up's DATA (the gate), so a chain goes in
 * one run and a run killed in between never leaves a follow-up out with
 * its parent unknown ('sending').  A parent deferred, in back-off, held
 * or pending keeps its follow-ups waiting.  A parent that can never go
 * (dropped, or refused by every recipient, before anybody had it) is
 * replaced: delivery_rethread().
 *
 * perfbot.redirectTo: the envelope of a mail nobody got yet goes to that
 * address alone (headers unchanged), and the mail records it
 * (redirected_to) at its attempt: it stays a staging mail, retried to
 * that address, never archived, never a parent for follow-ups; its
 * follow-ups go where it went.  A mail real recipients already had waits
 * (its deferred recipients) until redirectTo is unset.
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
	size_t sent, deferred, failed, held;	/* counts, for the caller: mails
						 * taken (for one recipient at
						 * least), left with a deferred
						 * recipient, refused for good,
						 * left waiting */
	int temporary;			/* a temporary failure left mail queued */
	int config_error;		/* the SMTP settings were refused (TLS, AUTH, none) */
};

/* -1 only for errors of the state database or the archive; SMTP trouble
 * is counted and logged. */
int delivery_run(struct delivery *d, struct buf *err);

/*
 * The mails whose parent can never go take its place in the thread: each
 * answers what that parent answered (parent, In-Reply-To, References and
 * the stored bytes rewritten in one transaction; the Message-ID kept),
 * going up the thread past every mail that can never go, to the nearest
 * that went or may still go.  A follow-up of a report that never went
 * answers the report still (it waits for it, or is skipped when it was
 * dropped); a digest whose predecessors never went starts a thread of its
 * own.  One line each in log; *count (may be NULL) says how many.  Called
 * by delivery_run() before it picks the due mails and after a mail was
 * refused for good, and by `outbox drop`.  0 or -1.
 */
int delivery_rethread(struct state *st, struct event_log *log, size_t *count, struct buf *err);

/* Whether follow-up r's parent went: sent, or dropped after a first
 * recipient had it (state_report's parent_* fields).  Pure. */
int delivery_parent_went(const struct state_report *r);

/* The wait after attempt number `attempts` (1, 2, ...) failed: retry
 * minutes doubling, capped at a day. */
int64_t delivery_backoff(int retry_minutes, int attempts);

/* Why a mail of the outbox has not gone out (for status and outbox). */
enum delivery_wait {
	DELIVERY_DUE,		/* the next send takes it */
	DELIVERY_HELD,		/* held by the operator */
	DELIVERY_PAUSED,	/* perfbot.paused */
	DELIVERY_BACKOFF,	/* back-off after a failed attempt, until *until */
	DELIVERY_MAX_PER_HOUR,	/* perfbot.maxPerHour is used up, until *until */
	DELIVERY_PARENT,	/* a follow-up: the mail it answers has not gone yet */
	DELIVERY_PARENT_DROPPED,	/* a follow-up of a dropped report */
	DELIVERY_REPORT_CLOSED,	/* a follow-up of a report that is not open */
	DELIVERY_REDIRECT,	/* real recipients had it and perfbot.redirectTo is set */
	DELIVERY_NOT_QUEUED,	/* sent, failed or dropped: not waiting at all */
};

/*
 * What delivery would make of report r at now, sent_last_hour mails
 * having gone this hour (state_sent_last_hour()), in the order send
 * checks; *until is the time the wait ends (0 when it has no end of its
 * own).  Pure.
 */
enum delivery_wait delivery_waiting(const struct config *cfg, const struct state_report *r,
				    int64_t now, int64_t sent_last_hour, int64_t *until);

/* "due", "held", "paused", "back-off", "max-per-hour", "parent",
 * "parent-dropped", "report-closed", "redirect", "not-queued" */
const char *delivery_wait_name(enum delivery_wait w);

#endif
