#ifndef PERFBOT_POSTED_H
#define PERFBOT_POSTED_H

/*
 * Posted fixes (perfbot-ingest(1), Posted fixes): what a patch mail posted
 * to a list says about the reports before its commit lands.  Pure: the
 * mail's parts in, the reports it names out; no I/O.
 *
 * The rules:
 *   - a mail is a patch when its Subject starts with "[PATCH" (any case,
 *     after white space) or it carries a diff as `perfbot parse` finds one
 *     (bot/patchmail.h: the caller gives what patchmail_read() found);
 *   - its commit message is what `git am` would commit: the patch's
 *     subject, a blank line and its message; a mail without a diff (a
 *     series' cover letter) gives its Subject and its text;
 *   - its trailers are read as git reads a patch mail's (bot/trailer.h,
 *     TRAILER_MAIL: the "---" divider ends the message) and looked up by
 *     track's own rules (bot/fixes.h fix_scan(), on a commit with no id):
 *     Closes: or Link: naming a report's or a follow-up's Message-ID,
 *     Fixes: naming its head commit beside perfbot's Reported-by:.  A
 *     Fixes: without that Reported-by (a possible fix for track) is no
 *     posted fix: nothing then says the patch is meant for the report;
 *   - the subject is git am's (patchmail_subject()) and the version the
 *     "[PATCH vN ...]" prefix's, 1 when it names none.
 * The inputs are untrusted text of any length; nothing is copied but the
 * trailers (no longer than the text).
 */

#include <stddef.h>

#include "buf.h"
#include "fixes.h"
#include "trailer.h"

/* 1 when subject (NULL: none) starts with "[PATCH", any case, after
 * spaces and tabs. */
int posted_subject_is_patch(const char *subject);

/*
 * The evidence in a patch's commit message: subject (git am's, "" when
 * none) and message (its body; NUL-terminated) are read as one commit
 * message.  Empties *out, then fills it with one match per report, its
 * kind FIX_CLOSES, FIX_LINK or FIX_FIXES (the strongest), in the index's
 * order.  tl is scratch space (trailer_list_init()), reusable.  Returns
 * out->nr.  Cannot fail.
 */
size_t posted_scan(const struct fix_index *ix, const char *subject, const char *message,
		   struct trailer_list *tl, struct fix_matches *out);

#endif
