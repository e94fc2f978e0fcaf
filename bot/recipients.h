#ifndef PERFBOT_RECIPIENTS_H
#define PERFBOT_RECIPIENTS_H

/*
 * Who gets a report, and why (perfbot-mail(7), Recipients).
 * Pure: the configuration, the head commit, the MAINTAINERS selection and
 * the stored exclusions are passed in; nothing is read here.
 *
 * Candidates, in this order (the order of Cc):
 *   1. the head commit's author (after .mailmap): To;
 *   2. perfbot.cc, then the tree's cc ("tree NAME cc");
 *   3. with perfbot.ccTrailers, the people of the head commit's
 *      Signed-off-by, Acked-by, Reviewed-by, Tested-by, Reported-by and
 *      Cc trailers, in trailer order (after .mailmap);
 *   4. the MAINTAINERS selection's lists (route.lists), then its people
 *      (M: with route.maintainers, R: with route.reviewers), in the
 *      selection's order (bot/maintainers.h: get_maintainer.pl's).
 * An address (compared ignoring ASCII case) is one recipient however
 * often it comes: it keeps the place and name of its first coming and
 * every reason it came for, in order.  The reasons are these words:
 *     author   perfbot.cc   tree NAME cc   Signed-off-by (the trailer's
 *     key as written)   list: SECTION   maintainer: SECTION
 *     reviewer: SECTION
 * A list is what perfbot.cc, a tree's cc or an L: line gives; the others
 * are people.
 *
 * Then, in this order, candidates are dropped, each with why:
 *   - "excluded by route.exclude" (an address or *@domain);
 *   - "unsubscribed YYYY-MM-DD by WHO" (an exclusion stored by
 *     #perfbot unsubscribe; the date in UTC);
 *   - "maxRecipients": while To and Cc hold more than
 *     perfbot.maxRecipients addresses, the last person of Cc goes (so
 *     MAINTAINERS people before trailer people), and only when no person
 *     is left the last list: a list never goes before a person.
 * The author stays To unless excluded; then the first list left becomes
 * To (else the first person left).  Nobody left at all is an error.
 *
 * Configured addresses must be valid (an error otherwise).  Trailers and
 * MAINTAINERS are commit text, not configuration: an unusable address
 * there is skipped with a note in `notes` (one line each) rather than
 * stopping the report; "# stable comments" and "[tags]" after a trailer's
 * address are allowed.
 */

#include <stddef.h>
#include <stdint.h>

#include "address.h"
#include "buf.h"
#include "config.h"
#include "maintainers.h"
#include "repo.h"

/* An address stored by `#perfbot unsubscribe` (the state's list). */
struct recipients_exclusion {
	const char *address;	/* compared ignoring ASCII case */
	const char *who;	/* "Name <email>" of the sender, decoded */
	int64_t date;		/* when (epoch seconds) */
};

struct recipients_input {
	const struct config *cfg;
	const char *tree_name;		/* [tree "NAME"] of the report */
	const struct commit_info *head;
	const struct maintainers_selection *route;	/* NULL: routing off */
	const struct recipients_exclusion *excluded;	/* the stored exclusions */
	size_t nr_excluded;
};

/* Why one address was chosen: every reason, in the order found (owned). */
struct recipient_why {
	char **reasons;
	size_t nr;
	int is_list;		/* a list (never dropped before a person) */
};

/* A candidate that is not mailed. */
struct recipient_dropped {
	struct address addr;
	struct recipient_why why;	/* why it was a candidate */
	char *because;			/* why it was dropped (words above) */
};

struct recipients {
	struct address to;
	struct recipient_why to_why;
	struct address *cc;
	struct recipient_why *cc_why;	/* nr_cc of them */
	size_t nr_cc;
	struct recipient_dropped *dropped;	/* in candidate order */
	size_t nr_dropped;
};

/* Fills *out (release with recipients_release(), also after a failure).
 * -1 with a message for an unusable author or configured address, or
 * when no recipient is left. */
int recipients_build(const struct recipients_input *in, struct recipients *out,
		     struct buf *notes, struct buf *err);
void recipients_release(struct recipients *r);

/* Frees w's reasons. */
void recipient_why_release(struct recipient_why *w);

/* Appends the reasons joined by ", ". */
void recipient_why_format(struct buf *out, const struct recipient_why *w);

/* 1 when email matches one of route.exclude's values (an address or
 * "*@domain", ignoring ASCII case). */
int recipients_excluded(const struct config *cfg, const char *email);

#endif
