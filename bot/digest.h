#ifndef PERFBOT_DIGEST_H
#define PERFBOT_DIGEST_H

/*
 * perfbot digest (perfbot-digest(1)): one mail listing the reports still open,
 * those fixed since the previous digest and those marked invalid or
 * duplicate since then, threaded under the previous digest (In-Reply-To
 * it, References its chain; regzbot's weekly report is the model).
 *
 * What "since the previous digest" means: each digest records the state
 * of every report that was not open (and a fixed one's fix commit) as it
 * lists them (state_digest_add()); a report is fixed since the previous
 * digest when it is fixed now and that digest did not have it fixed by
 * the same commit, closed since when it is invalid or duplicate now and
 * that digest did not have it so.  The first digest lists every report
 * fixed or closed so far.  Only reports that were sent are listed (a
 * report still queued, or refused for good, reached nobody).
 *
 * Pure: the reports and the previous digest in, the mail out.  Its body
 * is the template NAME-digest (NAME being perfbot.template) when the
 * folders have one, else "digest" (templates/digest.txt); the names it
 * can use are in templates/README.  The Subject is perfbot's own:
 * "SENDER digest YYYY-MM-DD: N open, N fixed, N closed".
 */

#include <stddef.h>
#include <stdint.h>

#include "address.h"
#include "buf.h"
#include "config.h"
#include "state.h"
#include "template.h"
#include "value.h"

/* Which reports a digest lists.  The report pointers are borrowed from
 * the list digest_select() was given; entries are owned. */
struct digest {
	const struct state_tracked **open;	/* oldest first */
	size_t nr_open;
	const struct state_tracked **fixed;	/* fixed since the previous digest */
	size_t nr_fixed;
	const struct state_tracked **closed;	/* invalid or duplicate since then */
	size_t nr_closed;
	struct state_digest_entry *entries;	/* what this digest records */
	size_t nr_entries;
};

/* Chooses from reports, given the previous digest's entries (prev, nr_prev;
 * has_prev 0 for the first digest).  Cannot fail. */
void digest_select(const struct state_tracked_list *reports, int has_prev,
		   const struct state_digest_entry *prev, size_t nr_prev, struct digest *out);
void digest_release(struct digest *d);

/* 1 when the digest lists nothing. */
int digest_empty(const struct digest *d);

struct digest_request {
	const struct config *cfg;
	struct template_set *templates;
	const struct digest *d;
	const struct state_report *previous;	/* the previous digest, or NULL */
	const struct address *to;		/* the recipients (at least one) */
	size_t nr_to;
	int64_t created;			/* the digest's Date */
	const struct state_requests *requests;	/* #perfbot test requests, or NULL */
};

struct digest_mail {
	char *message_id;	/* without <> */
	char *subject;
	char *identity;		/* what the Message-ID's hash is of */
	char *refs;		/* References, space-separated; NULL for the first */
	char *from_name, *from_email;
	char *rcpt;		/* the recipients' addresses, one a line */
	struct buf mail;	/* the complete message, '\n' line ends */
};

/* The view the template gets (the caller value_free()s it): for the test
 * that holds templates/README to it. */
struct value *digest_view_new(const struct digest_request *req, const char *message_id,
			      const char *subject);

/* Renders the digest.  -1 with a message for a template error or a refused
 * header or address; *out is then empty.  digest_mail_release() either way. */
int digest_render(const struct digest_request *req, struct digest_mail *out, struct buf *err);
void digest_mail_release(struct digest_mail *m);

/* The outbox row of a rendered digest (strings point into m and req), for
 * state_digest_add(). */
void digest_row(const struct digest_mail *m, const struct digest_request *req,
		struct state_report *row);

/* A fix or possible fix commit as the digest and the site name it
 * (perfbot-templates(7)): commit, short (12 digits), subject, ref, tree
 * (the watched ref's short name, "" for none) and on ("on TREE", or "on
 * no watched tree yet").  subject and ref may be NULL.  The caller frees
 * it with value_free(). */
struct value *digest_fix_commit(const struct config *cfg, const char *commit, const char *subject,
				const char *ref);

/* A fix test request as the digest and the site name it
 * (perfbot-templates(7)): number, state, requester ("Name <email>"),
 * what (the URL and branch, the commit's 12 digits, or the words given),
 * why and has_why.  The caller frees it with value_free(). */
struct value *digest_request(const struct state_request *q);

#endif
