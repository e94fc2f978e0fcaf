#ifndef PERFBOT_SAMPLES_H
#define PERFBOT_SAMPLES_H

/*
 * The per-run samples of a report's metrics, kept for the web site's
 * charts (perfbot-site(1)): the comparison file is gone after send, and
 * the state keeps its tests without their numbers.  send keeps them in
 * STATE/samples/ID.tsv (ID the report's number) once the report is in the
 * state, a line per fact, fields split by tabs:
 *
 *   perfbot-samples 1
 *   metric  TESTCASE  NAME
 *   base    MEAN  STDDEV_PERCENT (empty when unknown)
 *   head    MEAN  STDDEV_PERCENT
 *   good    RUN  RUN ...          (base's runs, in run order)
 *   bad     RUN  RUN ...          (head's)
 *
 * the five lines after "metric" once per metric that has samples, in the
 * JSON's samples order; numbers as perfbot writes JSON numbers (the
 * shortest text that reads back as the same double); in TESTCASE and NAME
 * a backslash, tab, newline and carriage return are written \\ \t \n \r.
 * Text, not JSON: a site run reads one per report, and this reads in a
 * twentieth of the time a JSON parser takes.  A file an older perfbot
 * kept (ID.json, {"tests": [{"testcase", "metrics": [{"name", "base":
 * {"mean", "stddev_percent"}, "head", "good", "bad"}]}]}) is read too.
 * A run killed between the state's commit and this file leaves the report
 * without charts; nothing else depends on it.
 */

#include <stdint.h>

#include "buf.h"
#include "report.h"

#define SAMPLES_MAX_BYTES (64u << 20)	/* of one file */

struct samples_metric {
	char *testcase;
	char *name;
	struct report_side side[2];	/* base, head: mean and stddev (their
					   values NULL: the runs are below) */
	double *runs[2];		/* base's (good) and head's (bad) */
	size_t nr_runs[2];
};

struct samples {
	struct samples_metric *v;
	size_t nr, alloc;
};

/* The file's text for r into out (pure); 0 when no test of r has samples
 * (out untouched), else 1. */
int samples_format(struct buf *out, const struct report *r);

/* Writes samples_format(r) to DIR/samples/ID.tsv (the folder made 0700),
 * atomically; nothing when r has no samples.  0 or -1 with a message
 * naming the file. */
int samples_keep(const char *state_dir, int64_t id, const struct report *r, struct buf *err);

/* Parses a file's text (name for messages) into *out (empty).  0, or -1
 * with a message naming the line; *out then holds what came before it. */
int samples_parse(const char *text, size_t len, const char *name, struct samples *out,
		  struct buf *err);

/* Reads DIR/samples/ID.tsv (else an older perfbot's ID.json) into *out
 * (empty): 1, 0 when there is none, -1 with a message when it cannot be
 * read or parsed.  samples_release() it either way. */
int samples_read(const char *state_dir, int64_t id, struct samples *out, struct buf *err);

void samples_release(struct samples *s);

#endif
