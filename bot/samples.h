#ifndef PERFBOT_SAMPLES_H
#define PERFBOT_SAMPLES_H

/*
 * The per-run samples of a report's metrics, kept for the web site's
 * charts (perfbot-site(1)): the comparison file is gone after send, and
 * the state keeps its tests without their numbers.  send keeps them in
 * STATE/samples/ID.json (ID the report's number) once the report is in
 * the state:
 *
 *   {"tests": [{"testcase": T, "metrics": [{"name": M,
 *      "base": {"mean": X, "stddev_percent": S or null},
 *      "head": {...}, "good": [runs...], "bad": [runs...]}]}]}
 *
 * with the metrics that have samples, in the JSON's samples order.  A
 * run killed between the state's commit and this file leaves the report
 * without charts; nothing else depends on it.
 */

#include <stdint.h>

#include "buf.h"
#include "report.h"
#include "value.h"

/* The object above for r (pure; a new value), or NULL when no test of r
 * has samples. */
struct value *samples_of_report(const struct report *r);

/* Writes samples_of_report(r) to DIR/samples/ID.json (the folder made
 * 0700), atomically; nothing when r has no samples.  0 or -1 with a
 * message naming the file. */
int samples_keep(const char *state_dir, int64_t id, const struct report *r, struct buf *err);

/* Reads DIR/samples/ID.json: 1 with *out set (value_free() it), 0 when
 * there is none, -1 with a message when it cannot be read or parsed. */
int samples_read(const char *state_dir, int64_t id, struct value **out, struct buf *err);

#endif
