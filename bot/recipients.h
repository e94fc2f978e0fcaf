#ifndef PERFBOT_RECIPIENTS_H
#define PERFBOT_RECIPIENTS_H

/*
 * Who gets a report (perfbot-mail(7), Recipients).  To: the head commit's
 * author (after .mailmap).  Cc: perfbot.cc, then the tree's cc, then (with
 * ccTrailers) the people in the head commit's Signed-off-by, Acked-by,
 * Reviewed-by, Tested-by, Reported-by and Cc trailers, in trailer order.
 * Duplicates (case-insensitive address) are dropped, the author is never
 * in Cc, and To plus Cc hold at most perfbot.maxRecipients addresses (the
 * lists come first, so a cap drops trailer people, latest first).
 *
 * Configured addresses must be valid (an error otherwise).  Trailers are
 * commit text, not configuration: an unusable trailer address is skipped
 * with a note in `notes` (one line each) rather than stopping the report;
 * "# stable comments" and "[tags]" after an address are allowed, and
 * trailer people are mapped through .mailmap as the author is.
 */

#include <stddef.h>

#include "address.h"
#include "buf.h"
#include "config.h"
#include "repo.h"

struct recipients {
	struct address to;
	struct address *cc;
	size_t nr_cc;
};

int recipients_build(const struct config *cfg, const char *tree_name,
		     const struct commit_info *head, struct recipients *out,
		     struct buf *notes, struct buf *err);
void recipients_release(struct recipients *r);

#endif
