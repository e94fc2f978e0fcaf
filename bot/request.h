#ifndef PERFBOT_REQUEST_H
#define PERFBOT_REQUEST_H

/*
 * The job files of "#perfbot test" requests, for the lab's pipeline
 * (perfbot-requests(1), perfbot-json(5)), under perfbot.state (DIR):
 *
 *   DIR/requests/pending/N.json   accepted, waiting for a pipeline
 *   DIR/requests/taken/N.json     claimed by one (requests take)
 *   DIR/requests/dropped/N.json   ended without an answer (requests drop)
 *
 * Every change is atomic and durable: a file is written under a
 * dot-name, fsync'd, renamed into place, and the folder fsync'd.  A claim
 * is a rename from pending/ to taken/: of two pipelines racing for one
 * file exactly one rename succeeds, the other finds it gone and moves on.
 * Folders are made (mode 0700) on demand.
 *
 * Errors: -1 with one message naming the file.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "state.h"

#define REQUEST_MAX_FILE (4u << 20)	/* bytes of one job file read back */

/*
 * The job file's JSON for request r (accepted: its commit, or its git URL
 * and branch) of the report with Message-ID report_mid, with the report's
 * job (its commits, tree and tests as kept), and the request mail's
 * subject and References (space-separated, or NULL): what a result's
 * reply needs when `render --request FILE` has no state to ask.  Appends
 * to out, one object and a newline.  -1 when job->tests is not a JSON
 * array.
 */
int request_job_json(const struct state_request *r, const struct state_job *job,
		     const char *report_mid, const char *mail_subject, const char *mail_refs,
		     struct buf *out, struct buf *err);

/* Writes DIR/requests/pending/N.json with json (replacing one a killed
 * run left), atomically. */
int request_file_write(const char *dir, int64_t n, const char *json, size_t len,
		       struct buf *err);
/* Removes DIR/requests/pending/N.json when it is there (a killed run's
 * file for a number that is now a refused request).  0 or -1. */
int request_file_forget(const char *dir, int64_t n, struct buf *err);

/*
 * Claims request n (0: the oldest pending one, by number) for a pipeline:
 * moves it from pending/ to taken/ and appends its bytes to json.  1 with
 * *taken set, 0 when there is none to take (n not pending), -1 on error.
 */
int request_file_take(const char *dir, int64_t n, int64_t *taken, struct buf *json,
		      struct buf *err);
/* Moves request n's file, pending or taken, to dropped/.  1 when moved, 0
 * when there was none, -1 on error. */
int request_file_drop(const char *dir, int64_t n, struct buf *err);
/* Where request n's file is: "pending", "taken", "dropped", or NULL. */
const char *request_file_where(const char *dir, int64_t n);

#endif
