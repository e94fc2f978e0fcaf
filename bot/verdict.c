/*
 * The verdict of a fix test (verdict.h).
 */
#include <math.h>
#include <string.h>

#include "verdict.h"
#include "banned.h"

static const char *const names[] = { "fixed", "partial", "worse", "not-fixed" };

enum verdict verdict_judge(double b, double h, double f, const struct verdict_limits *l)
{
	double r;

	/* multiplied out, so that the boundary itself is exact */
	if (b != 0 && fabs(f - b) * 100 <= l->noise_percent * fabs(b))
		return VERDICT_FIXED;
	if (b == h)
		return VERDICT_NOT_FIXED;
	r = (f - h) / (b - h);
	if (r >= l->fixed_ratio)
		return VERDICT_FIXED;
	if (r >= l->partial_ratio)
		return VERDICT_PARTIAL;
	if (r <= -l->partial_ratio)
		return VERDICT_WORSE;
	return VERDICT_NOT_FIXED;
}

const char *verdict_name(enum verdict v)
{
	return names[v];
}

int verdict_parse(const char *s, enum verdict *out)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum verdict)i;
			return 0;
		}
	return -1;
}

/* "-13.1%" (a percentage) or "-0.52" (points), with its sign */
static void change_text(struct buf *out, double change, int absolute)
{
	if (absolute)
		buf_addf(out, "%+.2f", change);
	else
		buf_addf(out, "%+.1f%%", change);
}

void verdict_words(struct buf *out, enum verdict v, double head_change, double tested_change,
		   int absolute)
{
	static const char *const lead[] = { "recovered", "partially recovered", "worse" };

	if (v == VERDICT_NOT_FIXED) {
		buf_adds(out, "not recovered: still ");
		change_text(out, tested_change, absolute);
		return;
	}
	buf_adds(out, lead[v]);
	buf_adds(out, ": from ");
	change_text(out, head_change, absolute);
	buf_adds(out, " to ");
	change_text(out, tested_change, absolute);
}
