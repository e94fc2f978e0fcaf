#ifndef PERFBOT_INGEST_H
#define PERFBOT_INGEST_H

/*
 * Ingest: one received mail at a time, as `perfbot ingest` reads them
 * from a source (source.h).  For each mail:
 *   - it is parsed safely (mail.h: the MIME part in a child process; a
 *     mail that crashes or hangs the parser is quarantined, its header
 *     fields still used);
 *   - a Message-ID already known is a duplicate: stored once (but filed
 *     in the archive if a killed run left it unfiled);
 *   - it is tied to a report by walking In-Reply-To, then References
 *     nearest first, to a Message-ID perfbot knows (its own mails and the
 *     replies it keeps); with `all` every mail is kept, threaded among the
 *     kept ones, otherwise a mail that answers no report is counted and
 *     skipped, not archived;
 *   - in a report's thread, unless it is perfbot's own mail or marked
 *     auto-submitted, its #perfbot commands are recorded (with author,
 *     date, whether applied and why not) and its trailers too.  A command
 *     that changes the report's state (invalid, fixed-by, dup-of, reopen)
 *     is applied only when its sender is among the To and Cc of the
 *     thread's mails as sent, their MAINTAINERS people, or matches
 *     commands.trusted; a dup-of must name a mail of another report's
 *     thread.  A fixed-by's commit is resolved in perfbot.repo and
 *     recorded as the report's fix, with the watched trees it has landed
 *     on, or as not found (bot/track.h's track_fixed_by()), and a reopen
 *     sets the fix aside; commands in a digest's thread are recorded and
 *     change nothing.  unsubscribe and subscribe, from anyone, change the
 *     sender's own address on the exclusion list.  "#perfbot test" asks
 *     the lab to test a fix (perfbot-requests(1)): checked, made into a
 *     commit and a job file, or refused with the reason, in the mail's
 *     transaction.  Words perfbot does not
 *     understand are recorded as such.  Names are decoded UTF-8, never
 *     RFC 2047;
 *   - a patch (bot/posted.h) whose trailers hold fix evidence for a
 *     report is recorded as a posted fix of that report, in its thread or
 *     not, with or without `all`; one outside every thread is kept too
 *     (its report_id 0), so that the archive holds what status and the
 *     digest link to.  Not perfbot's own mail;
 *   - it is recorded in the state database and filed in the archive.
 * ingest_message() says when the source may let the mail go: only after
 * ingest_flush() has filed the batch (the caller acks then).
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "eventlog.h"
#include "fixes.h"
#include "config.h"
#include "state.h"
#include "store.h"

#define INGEST_BATCH 500	/* mails filed per archive commit */

struct ingest {
	const struct config *cfg;
	struct state *st;
	struct store *store;	/* opened by the caller */
	int all;		/* keep every mail (mirror a list) */
	int64_t now;
	struct event_log log;		/* one line per event */
	int verbose;		/* log every mail, not only the ones acted on */
	/* counts; commands: applied, not_applied: refused (not trusted, a
	 * dup-of naming nothing...), not_understood: unknown words */
	size_t kept, duplicates, unrelated, ignored, quarantined, commands, not_applied,
	       not_understood;
	size_t posted;		/* posted fixes recorded */
	/* private: the reports' fix index for posted fixes, read at the
	 * first mail that may hold evidence (NULL when it could not be) */
	struct fix_index *fixes;
	int fixes_read;
};

/* Frees what ingest_message() kept between mails.  struct ingest must
 * start zeroed (memset) for this to be called on it at any time. */
void ingest_release(struct ingest *in);

/* Takes one mail.  0: taken or deliberately skipped (the source may ack it
 * after the next ingest_flush()); -1 with a message: an error of the state
 * database or the archive (a temporary failure: do not ack). */
int ingest_message(struct ingest *in, const char *raw, size_t len, const char *where,
		   struct buf *err);

/* Files what ingest_message() took since the last flush.  0 or -1. */
int ingest_flush(struct ingest *in, struct buf *err);

#endif
