#ifndef PERFBOT_NOTICE_H
#define PERFBOT_NOTICE_H

/*
 * The in-thread notice of a fix (perfbot-track(1), perfbot.announceFixes): a
 * reply to the report ("Re: " and its Subject, In-Reply-To the report,
 * References its chain), to the report's recipients, its body the
 * template NAME-fixed (NAME being perfbot.template) when the folders have
 * one, else "fixed" (templates/fixed.txt).  The Message-ID is minted as a
 * report's, from the notice's own identity (the report and the fix
 * commit), so that the same notice is the same mail.
 *
 * The view the template gets (templates/README lists it): the report's
 * message_id, subject and closes link, the fix (commit, short, subject,
 * ref, tree, date, evidence and one boolean per kind), and from, sender,
 * signature, disclaimer as reports have them.
 */

#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "state.h"
#include "template.h"
#include "value.h"

struct notice_request {
	const struct config *cfg;
	struct template_set *templates;
	const struct state_report *report;	/* the report: message_id, subject,
						   refs, to_addrs, cc_addrs */
	const struct state_fix *fix;		/* what to announce */
	int64_t created;			/* the notice's Date */
};

struct notice {
	char *message_id;	/* without <> */
	char *subject;
	char *identity;		/* what the Message-ID's hash is of */
	char *thread_key;	/* "notice", the report's Message-ID and the commit */
	char *refs;		/* References, space-separated */
	char *from_name;	/* perfbot.from's display name ("" if none) */
	char *from_email;	/* and address: the envelope sender */
	struct buf mail;	/* the complete message, '\n' line ends */
};

/* The view the template gets (the caller value_free()s it): for the test
 * that holds templates/README to it. */
struct value *notice_view_new(const struct notice_request *req, const char *message_id,
			      const char *subject);

/* Renders the notice.  -1 with a message for a template error or a
 * refused header; *out is then empty.  notice_release() in either case. */
int notice_render(const struct notice_request *req, struct notice *out, struct buf *err);
void notice_release(struct notice *n);

/* The outbox row of a rendered notice (its strings point into n and req:
 * valid while they are), for state_notice_add(). */
void notice_row(const struct notice *n, const struct notice_request *req, struct state_report *row);

#endif
