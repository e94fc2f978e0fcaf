#ifndef PERFBOT_VIEW_H
#define PERFBOT_VIEW_H

/*
 * The view: everything a report template can name, as one struct value
 * built from the validated report, the commit facts, the configuration
 * and the computed blocks.  Pure: no repository, no clock, no files.
 * The names are documented in templates/README (the template contract).
 */

#include "compare.h"
#include "config.h"
#include "report.h"
#include "repo.h"
#include "value.h"

struct view_facts {
	const struct config *cfg;
	const struct report *report;
	const struct commit_info *head;
	const struct commit_info *bases;	/* one per test */
	const struct commit_info *extras;	/* a test result's extra commits:
						   report->nr_extra, else NULL */
	const enum report_kind *kinds;		/* one per test, resolved */
	const char *message_id;			/* without <> */
	const char *date_stamp;			/* "YYYYMMDDhhmm" of the Message-ID */
	const char *repo_url;			/* the report's or the tree's */
	const char *subject;			/* the mail's Subject (decoded) */
	const char *parent_message_id;		/* a follow-up's report, or NULL */
};

/*
 * Builds the view (the caller frees it with value_free()).  -1 with a
 * message when a plot cannot be drawn (the only computed block that can
 * refuse its input).
 */
int view_build(const struct view_facts *f, struct value **out, struct buf *err);

/* Adds the names every mail perfbot writes shares with reports (the
 * lab's voice): from, sender, signature, disclaimer, reported_by,
 * closes_url.  For the notice and digest views (perfbot-templates(7)). */
void view_add_lab(struct value *v, const struct config *cfg);

/* perfbot.artifactsUrl with %D (the Message-ID's YYYYMMDD), %M (the
 * Message-ID without <>) and %% expanded. */
void view_expand_url(struct buf *out, const char *pattern, const char *message_id,
		     const char *date_stamp);

#endif
