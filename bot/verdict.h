#ifndef PERFBOT_VERDICT_H
#define PERFBOT_VERDICT_H

/*
 * The verdict of a fix test (perfbot-requests(1), "The verdict"): how much
 * of a regression the tested commit recovered, on the first test's
 * headline metric.  With b, h and f the means of the base, the head (the
 * reported commit) and the last column (the commit tested),
 * r = (f - h) / (b - h) is the share of the regression recovered:
 *
 *   fixed       r >= fixed_ratio, or |f - b| / |b| * 100 <= noise_percent
 *   partial     partial_ratio <= r < fixed_ratio
 *   worse       r <= -partial_ratio
 *   not-fixed   otherwise
 *
 * When b == h there is no regression to share: only the noise rule can
 * make it fixed, else it is not-fixed.  When b == 0 the noise rule does not
 * apply (no relative distance).  Pure: numbers in, an enum and words out.
 */

#include "buf.h"

enum verdict {
	VERDICT_FIXED,
	VERDICT_PARTIAL,
	VERDICT_WORSE,
	VERDICT_NOT_FIXED,
};

/* test.fixedRatio, test.noisePercent, test.partialRatio */
struct verdict_limits {
	double fixed_ratio;	/* 0.9 */
	double noise_percent;	/* 1 */
	double partial_ratio;	/* 0.2 */
};

/* The verdict of means b, h, f (finite) under the limits. */
enum verdict verdict_judge(double b, double h, double f, const struct verdict_limits *l);

/* "fixed", "partial", "worse", "not-fixed"; verdict_parse() the reverse
 * (-1 for another word). */
const char *verdict_name(enum verdict v);
int verdict_parse(const char *s, enum verdict *out);

/*
 * The words with the numbers, appended to out: head_change and
 * tested_change are the head's and the tested commit's changes against
 * the base as the compare table prints them (percent, or points when
 * absolute, e.g. perf-profile metrics):
 *   fixed      "recovered: from -13.1% to +0.3%"
 *   partial    "partially recovered: from -13.1% to -4.5%"
 *   worse      "worse: from -13.1% to -20.0%"
 *   not-fixed  "not recovered: still -6.0%"
 */
void verdict_words(struct buf *out, enum verdict v, double head_change, double tested_change,
		   int absolute);

#endif
