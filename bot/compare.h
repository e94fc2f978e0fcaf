#ifndef PERFBOT_COMPARE_H
#define PERFBOT_COMPARE_H

/*
 * The computed blocks of a report (perfbot-mail(7), "A compare section"
 * and "The In addition box"): a test's compare section (axes, commit list,
 * id line, fail:runs block, %stddev/%change table) and the "In addition"
 * box.  Pure: takes the validated report and the commit facts, appends
 * text.  Every line ends in '\n'.
 */

#include <stddef.h>

#include "buf.h"
#include "report.h"

/* How a commit is shown in a section. */
struct compare_commit {
	const char *id;		/* full hex id */
	const char *subject;	/* its subject line */
	const char *tag;	/* a tag pointing at it, or NULL */
	const char *label;	/* words after its commit: line ("<--- LABEL"), or
				   NULL (a test result's extra commit's label) */
};

/* One further test in the "In addition" box. */
struct compare_box_entry {
	const struct report_test *test;
	double change;		/* the headline's change (compare_metric_change) */
	const char *kind;	/* "regression" / "improvement" */
};

/* Metrics whose change is a difference of means, not a percentage:
 * names starting with "perf-profile" or ending in '%'. */
int compare_metric_is_absolute(const char *name);

/* The change printed for m: the JSON's "change" when given, else computed
 * from the means (a zero base mean is divided as 1e-100). */
double compare_metric_change(const struct report_metric *m);

/* The change printed for m's extra column j (j < the report's nr_extra):
 * the side's own "change" when given, else computed against base as
 * compare_metric_change() computes the head's. */
double compare_metric_extra_change(const struct report_metric *m, size_t j);

/* One value column: %10.2f below 1000, %10.4g above 1e8, else %10d of the
 * value truncated toward zero. */
void compare_format_value(struct buf *out, double v);
/* v as printf's "%*.*f" (width w, prec 0 to 2 digits) writes it, without
 * printf where the rounding is unambiguous. */
void compare_format_fixed(struct buf *out, double v, int w, int prec);

/* One stddev column: " ±%3d%%" of the truncated percentage when it is
 * greater than 2 (and the mean is not 0), else six spaces. */
void compare_format_stddev(struct buf *out, const struct report_side *s);

/* One change column (12 columns wide for the usual magnitudes). */
void compare_format_change(struct buf *out, const char *metric, double change);

/* A whole perf row, ending in '\n'; _n: with a test result's nr_extra
 * later columns (m->extra), each with its %change against base. */
void compare_format_row(struct buf *out, const struct report_metric *m);
void compare_format_row_n(struct buf *out, const struct report_metric *m, size_t nr_extra);

/* A whole fail:runs row, ending in '\n'; _n: as compare_format_row_n(). */
void compare_format_failure(struct buf *out, const struct report_failure *f);
void compare_format_failure_n(struct buf *out, const struct report_failure *f,
			      size_t nr_extra);

/* The two axis lines ("keys:\n  values\n"): params plus tbox_group,
 * testcase, rootfs, kconfig and compiler, sorted by "key=value". */
void compare_format_axes(struct buf *out, const struct report_test *t);

/* The head column of the id line: 27 in today's reports and the robot's
 * late-2022 ones (report-2022.txt uses the "section" of the view), 26 in
 * the 2018 ones ("section_legacy", report-legacy.txt). */
#define COMPARE_HEAD_ID_WIDTH 27
#define COMPARE_HEAD_ID_WIDTH_LEGACY 26

/* A test's whole compare section, from the '=' rule to the empty line that
 * ends it; head_width is the head column of the id line. */
void compare_format_section(struct buf *out, const struct report_test *t,
			    const struct compare_commit *base,
			    const struct compare_commit *head, int head_width);

/* The "In addition" box for n further tests (n >= 1), from the opening
 * rule to the closing one. */
void compare_format_box(struct buf *out, const struct compare_box_entry *e, size_t n);

/* The three parts of a section, for building it in both id widths at
 * little cost: from the '=' rule to the empty line after the commit list;
 * the id line and its dashes; the tables. */
void compare_format_section_head(struct buf *out, const struct report_test *t,
				 const struct compare_commit *base,
				 const struct compare_commit *head);
void compare_format_id_line(struct buf *out, const struct compare_commit *base,
			    const struct compare_commit *head, int head_width);
void compare_format_section_rows(struct buf *out, const struct report_test *t);

/*
 * The same for N >= 2 columns, as LKP's compare prints more than two
 * commits (lib/compare.rb, show_group): cols[0] the base, cols[1] the
 * head, cols[2..] a test result's extra commits (r->extra, in order), so
 * n == 2 + r->nr_extra.  Every commit gets a line of the commit list (with
 * its label), the id line a "%27s"-wide column (head_width) and its
 * dashes, the headers one "%change %stddev" pair per later column, each
 * row every later column's change against the base.  With n == 2 the
 * output is the two-column functions' byte for byte.
 */
void compare_format_section_head_n(struct buf *out, const struct report_test *t,
				   const struct compare_commit *cols, size_t n);
void compare_format_id_line_n(struct buf *out, const struct compare_commit *cols, size_t n,
			      int head_width);
void compare_format_section_rows_n(struct buf *out, const struct report_test *t,
				   size_t nr_extra);
void compare_format_section_n(struct buf *out, const struct report_test *t,
			      const struct compare_commit *cols, size_t n, int head_width);

/* "%.1f" of |change|: the P of "P% regression" in subject and body. */
void compare_format_percent(struct buf *out, double change);

#endif
