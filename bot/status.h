#ifndef PERFBOT_STATUS_H
#define PERFBOT_STATUS_H

/*
 * Every report as `perfbot status` shows it, gathered once from the spool
 * and the state (read only: a missing state folder is an empty state), and
 * the JSON object of one report (perfbot-json(5), status --json's
 * "reports"), which the site's reports.json prints too (perfbot-site(1)).
 */

#include <stdint.h>

#include "config.h"
#include "intake.h"
#include "state.h"
#include "value.h"

/* Everything status shows, gathered before anything is printed. */
struct status {
	const struct config *cfg;
	int64_t now;
	size_t incoming, rejected;
	int64_t sent_last_hour;
	struct state_reports reports;
	struct state_tracked_list tracked;	/* the fixes of the reports (track) */
	struct state_commands commands;	/* all of them, by date */
	struct intake_waits waits;	/* the spool's files */
	struct state_trailers trailers;		/* every trailer recorded */
	struct state_exclusions exclusions;	/* #perfbot unsubscribe's list */
	struct state_requests requests;		/* #perfbot test, by number */
};

/* Fills *s (its previous contents ignored): 0, or -1 with a message
 * (status_release() it either way). */
int status_gather(const struct config *cfg, int64_t now, struct status *s, struct buf *err);
/* The same of the threads ids[0..nr) (ascending; each a report's number)
 * alone, read in st's transaction: their reports and follow-ups, facts,
 * commands, trailers and requests, with every exclusion and the spool's
 * waits.  0, or -1 with a message (status_release() it either way). */
int status_gather_threads(const struct config *cfg, int64_t now, struct state *st,
			  const int64_t *ids, size_t nr, struct status *s, struct buf *err);
/* status_gather()'s, read in st's read transaction (whose change-log seq
 * is seq), the list of every report by a second thread on a connection of
 * its own when that one's snapshot is st's (the same seq: every table
 * status shows bumps it), else by this one after the rest.  0, or -1 with
 * a message (status_release() it either way). */
int status_gather_snapshot(const struct config *cfg, int64_t now, struct state *st, int64_t seq,
			   struct status *s, struct buf *err);
void status_release(struct status *s);

/* The tracked facts (fix, possible fixes, activity) of report id, or NULL. */
const struct state_tracked *status_tracked_of(const struct status *s, int64_t id);

/* Calls fn for each envelope recipient of r (the staging address alone
 * when it was redirected) with its outcome, or NULL while it has none. */
void status_each_recipient(const struct state_report *r,
			   void (*fn)(void *ctx, const char *address, size_t len,
				      const struct state_rcpt *o),
			   void *ctx);

/* Report r's object (a new value the caller frees), as status --json
 * prints it. */
struct value *status_report_json(const struct status *s, const struct state_report *r);

#endif
