#ifndef PERFBOT_RENDER_H
#define PERFBOT_RENDER_H

/*
 * The render pipeline: a validated report becomes the exact mail perfbot
 * sends (report -> commit facts -> view -> template -> message).  Used by
 * `render` and, later, by `send`, so what render shows is what goes out.
 *
 * A run opens its configuration, repository and templates once and
 * renders any number of reports with them (struct render_env).
 */

#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "recipients.h"
#include "report.h"
#include "repo.h"
#include "result.h"
#include "route.h"
#include "state.h"
#include "template.h"

struct render_env {
	const struct config *cfg;
	struct repo *repo;
	struct template_set *templates;
	struct route *route;		/* MAINTAINERS routing (route.h): each
					 * file parsed once per run */
	struct recipients_exclusion *excluded;	/* #perfbot unsubscribe's list
						 * (render_env_read_exclusions()) */
	size_t nr_excluded;
};

/* The report a follow-up belongs to (perfbot-mail(7): a comparison for a head
 * commit already reported becomes a follow-up in that thread). */
struct render_parent {
	const char *message_id;		/* the report's, without <> */
	const char *subject;		/* the report's Subject */
	const char *const *references;	/* the report's References, oldest first */
	size_t nr_references;
};

struct render_request {
	const struct report *report;
	int64_t created;		/* the report's creation time (Date, Message-ID) */
	const char *message_id;		/* forced (without <>), or NULL to mint one */
	const char *template_name;	/* NULL: perfbot.template (render_template() says
					 * which a follow-up takes) */
	const struct render_parent *parent;	/* NULL: a new report */
	const char *after;		/* a new report only: the Message-ID of an
					 * earlier report of the same comparison that
					 * is not its parent (one redirected, dropped
					 * or failed), or NULL; the minted Message-ID
					 * then hashes it too, so the two never share
					 * one, even within the same minute */
	const struct result_request *answer;	/* a test result ("request": N):
					 * the request it answers, checked with
					 * result_check(); its reply is rendered
					 * (template NAME-test-result, else
					 * test-result): "Re: " the request mail's
					 * subject, In-Reply-To it (a follow-up
					 * result: the first result), To the
					 * requester, Cc the report's recipients */
};

struct rendered {
	char *message_id;	/* without <> */
	const char *verdict;	/* a test result: result_verdict()'s, else NULL */
	int regression;		/* its first test's kind, resolved, is a regression */
	char *subject;		/* decoded */
	char **references;	/* a follow-up's References (oldest first) */
	size_t nr_references;
	char *identity;		/* the text the Message-ID hash is taken of */
	struct recipients rcpt;
	struct route_result route;	/* the MAINTAINERS selection, or why none */
	struct buf notes;	/* lines worth a -v mention (skipped trailers, ...) */
	struct buf mail;	/* the complete message, '\n' line ends */
};

/* The templates of cfg: perfbot.templates' folders in order, then the
 * shipped folder (free it with template_set_free()). */
struct template_set *render_template_set(const struct config *cfg);

/*
 * The template req is rendered with: req->template_name, else
 * perfbot.template; for a follow-up, that name's NAME-followup when the
 * folders have one (lkp -> lkp-followup), else "followup".  -1 with a
 * message when it is missing or does not parse.
 */
int render_template(struct render_env *env, const struct render_request *req,
		    const struct template **out, struct buf *err);

struct message_fields;

/*
 * A mail that goes with reports rendered with NAME (perfbot.template):
 * the template NAME-KIND when the folders have one (lkp-fixed), else KIND
 * ("fixed", "digest"), rendered with view as the body of a message with
 * the fields f, appended to out.  -1 with a message when the template is
 * missing or does not parse, or the message cannot be built.
 */
int render_kind_mail(struct template_set *set, const struct config *cfg, const char *kind,
		     const struct value *view, const struct message_fields *f, struct buf *out,
		     struct buf *err);

/*
 * A new mail's Message-ID (malloc'd, without <>): the minute it was made
 * (stamp, date_format_stamp() in perfbot.timezone), the first 8 hex digits
 * of the git hash of identity (what makes the mail itself: the same
 * identity gives the same id), perfbot.messageIdTag and the domain of the
 * sender's address from_email: "202603101342.297fb270-lkp@intel.com".
 */
char *render_mint_id(const struct config *cfg, const char *stamp, const char *identity,
		     const char *from_email);

/* Opens repository and template set named by cfg, and a router whose
 * cache folder is STATE/cache when perfbot.state exists.  -1 with a
 * message. */
int render_env_open(struct render_env *env, const struct config *cfg, struct buf *err);
void render_env_close(struct render_env *env);

/*
 * Reads the addresses #perfbot unsubscribe stored (state.h) into env, so
 * that what is rendered leaves them out: from st, or, when st is NULL,
 * from perfbot.state's database if there is one (read-only, with
 * state_exclusion_read(); none is created).  0 or -1 with a message.
 */
int render_env_read_exclusions(struct render_env *env, struct state *st, struct buf *err);

/* Who a report goes to and why: what render_report() puts in To and Cc. */
struct render_routing {
	char *tree;			/* the report's tree name */
	struct commit_info head;	/* its head commit */
	struct route_result route;
	struct recipients rcpt;
	struct buf notes;		/* as struct rendered's */
};

/* Fills *out for report r (release it with render_routing_release(),
 * also after a failure).  -1 with a message naming the report file. */
int render_routing(struct render_env *env, const struct report *r, struct render_routing *out,
		   struct buf *err);
void render_routing_release(struct render_routing *rr);

/*
 * Appends, for people, each recipient with its reasons, each candidate
 * left out with why, and the routing (the sections selected and the line
 * that selected each, or why there is none):
 *     To: Name <address>
 *         because: author, Signed-off-by
 *     Cc: list@example.org
 *         because: list: SECTION
 *     Not mailed: other@example.org
 *         because: maintainer: SECTION
 *         dropped: excluded by route.exclude
 *     Routing: MAINTAINERS blob 0123456789ab
 *         SECTION: F: pattern (MAINTAINERS:LINE) matches path
 *     Routing: off: why
 */
void render_routing_text(struct buf *out, const struct recipients *rcpt,
			 const struct route_result *route);

/*
 * Renders one report.  -1 with a message naming the report file for
 * unknown commits, an unknown polarity, a missing tree URL, template
 * errors and refused headers; *out is then empty.  Release with
 * rendered_release() in either case.
 */
int render_report(struct render_env *env, const struct render_request *req,
		  struct rendered *out, struct buf *err);
void rendered_release(struct rendered *r);

/* The identity of a report (tree, head commit, and each test's testcase,
 * tbox_group, params and headline), one field per line. */
void render_identity(struct buf *out, const struct report *r, const char *head_id);

#endif
