#ifndef PERFBOT_TESTREPLY_H
#define PERFBOT_TESTREPLY_H

/*
 * perfbot's answer to a "#perfbot test" request mail (perfbot-requests(1)):
 * a refusal saying why and what to do (template NAME-test-refused, else
 * "test-refused"), or, with test.acknowledge, the one line naming the
 * commit made ("test-accepted").  A reply to the request mail: "Re: " and
 * its subject (never "Re: Re:"), In-Reply-To it, References its chain and
 * it, To the requester only.  The Message-ID is minted from the request
 * mail's Message-ID and the kind of answer, so that one request mail gets
 * one answer however often it is ingested; it goes through the outbox as
 * a notice of the report (state.h), with the guarantees of reports.
 *
 * The view (templates/README): message_id, subject, the request (number,
 * message_id, subject, args, what, requester), refused and why, commit,
 * short, ref, the report (message_id, subject), and from, sender,
 * signature, disclaimer as reports have them.
 */

#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "mail.h"
#include "state.h"
#include "template.h"

struct testreply_request {
	const struct config *cfg;
	struct template_set *templates;
	const struct mail *mail;		/* the request mail (from, subject, ids) */
	const char *mail_id;			/* its Message-ID as ingest knows it */
	const struct state_report *report;	/* the report of its thread */
	const struct state_request *request;	/* id 0 when refused before numbering */
	int refused;
	const char *why;			/* refused: the reason */
	int64_t created;			/* the answer's Date */
};

struct testreply {
	char *message_id;	/* without <> */
	char *subject;
	char *identity;		/* what the Message-ID's hash is of */
	char *refs;		/* References, space-separated */
	char *from_name, *from_email;
	char *to;		/* the requester's address */
	struct buf mail;	/* the complete message */
};

/* Renders the answer.  -1 with a message (a template error, a requester
 * address that cannot be a recipient).  testreply_release() either way. */
int testreply_render(const struct testreply_request *req, struct testreply *out,
		     struct buf *err);
void testreply_release(struct testreply *t);

/* The outbox row of a rendered answer (strings point into t and req), a
 * notice of req->report, for state_report_add(). */
void testreply_row(const struct testreply *t, const struct testreply_request *req,
		   struct state_report *row);

#endif
