#ifndef PERFBOT_RESULT_H
#define PERFBOT_RESULT_H

/*
 * A fix test's result (perfbot-requests(1), "Results"): a comparison JSON
 * with "request": N (report.h), and the request it answers, as the state
 * keeps it or as its job file (request.h) says when the state does not
 * have it (`render --request FILE`).  A result never lands in the wrong
 * thread: result_resolve() refuses one whose commits are not its
 * request's, and one for a request that was never taken.
 *
 * Errors: -1 with one message in err for a database or file error; a
 * refusal (the producer's error, exit 65) is 0 with the reason in why.
 */

#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "report.h"
#include "repo.h"
#include "state.h"

/* The request a result answers.  Owned strings (result_request_release()). */
struct result_request {
	int64_t number;		/* N */
	int64_t report_id;	/* the report of its thread; 0 from a job file */
	char *report_message_id;
	char *message_id;	/* the request mail */
	char *subject;		/* its Subject, decoded; "" when unknown */
	char *references;	/* its References, space-separated, or NULL */
	char *requester_name;	/* "" when none */
	char *requester_email;
	enum state_request_what what;
	char *patch_subject;	/* what patch: the patch's subject, or NULL */
	char *commit;		/* the commit made (patch) or named (commit), 40
				   hex; NULL for git (the lab fetches the branch) */
	char *url, *branch;	/* what git */
	char *base, *head;	/* the report's commits, 40 hex */
	enum state_request_state state;
	int from_job;		/* read from a job file, not the state */
	/* a follow-up result (the request was answered before) answers the
	 * first result mail; else the result answers the request mail */
	char *first_result;	/* that first result's Message-ID, or NULL */
	int64_t parent_id;	/* the outbox row the mail answers (the first
				   result, else the report); 0 from a job file */
};

void result_request_release(struct result_request *q);

/*
 * Request n from the state, with its mail's subject and References and,
 * when answered, its first result.  1 with *out filled, 0 with why set
 * when the state has no request n, -1 on a database error.
 */
int result_request_load(struct state *st, int64_t n, struct result_request *out,
			struct buf *why, struct buf *err);

/* The request of job file path (request.h's, as `requests take` printed
 * it; untrusted): 0 with *out filled (state taken), -1 with a message
 * naming the file. */
int result_request_from_job(const char *path, struct result_request *out, struct buf *err);

/*
 * Checks result r against its request q: r->request is q's number, the
 * request was taken (pending, refused and dropped ones have no result),
 * and base, commit and the last "extra" commit, resolved in repo, are the
 * request's base, head and tested commit (any commit for a git request).
 * 0 when it fits; 1 with why set when refused; -1 never (a commit that
 * does not resolve is a refusal too).
 */
int result_check(struct repo *repo, const struct report *r, const struct result_request *q,
		 struct buf *why);


/* The commits a result's reply names, looked up by the caller. */
struct result_commits {
	const struct commit_info *base;
	const struct commit_info *head;		/* the reported commit */
	const struct commit_info *upon;		/* what the fix went on: the head, or
						   (4 columns) the extra commit before
						   the tested one */
	const struct commit_info *tested;	/* the last extra commit */
};

/*
 * The verdict of result r (verdict.h) on its first test's headline, with
 * the limits of cfg: "fixed", "partial", "worse", "not-fixed", or "error"
 * for an "error" result (no verdict).  words (may be NULL) gets the words
 * with the numbers ("partially recovered: from -13.1% to -4.5%").  r has
 * passed result_check().
 */
const char *result_verdict(const struct config *cfg, const struct report *r, struct buf *words);

/* The view's "result" object for the reply (templates/README, "The test
 * result"): a new value, the caller frees it (or adds it to the view). */
struct value *result_view(const struct config *cfg, const struct report *r,
			  const struct result_request *q, const struct result_commits *c);

#endif
