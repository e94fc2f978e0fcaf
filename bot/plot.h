#ifndef PERFBOT_PLOT_H
#define PERFBOT_PLOT_H

/*
 * ASCII trend plots of per-run samples, as the kernel test robot's
 * 2018-2022 reports drew them with gnuplot's `set terminal dumb 80,20`.
 * Pure: no I/O, no global state.
 *
 * The layout (columns 1-based; every line ends in '\n', trailing blanks
 * are removed, so empty lines are just "\n"):
 *
 *   line 1   empty
 *   line 2   the title, centred over the 80 columns
 *   line 3   empty
 *   4-18     the frame, 15 rows:
 *
 *     "  1.13e+08 +-+--------------------------------------------------------------+"
 *     "  1.12e+08 +-+    .+.+.+.   .+.+.+   + +   +     .+.+..    +                |"
 *     "           | +.+..+.+     +..+    +..+.+.+ +.+..+.+.+.+ +.      + +        +|"
 *     ...
 *     "  1.06e+08 O-+ O O O                                                        |"
 *     "  1.02e+08 +-+--------------------------------------------------------------+"
 *
 *            the left border in column 12, the right one in column 77;
 *            the top and bottom rows are border and tick at once
 *            ("+-+---...---+"); a row with a y tick shows "+-+" at the left
 *            border and its label right-aligned in columns 1-10 (column 11
 *            stays blank); a row without one shows '|'.  No x ticks, no x
 *            labels, no key.
 *   19-20    empty
 *
 * Y ticks are gnuplot's defaults (quantize_normal_tics with guide 20, then
 * the range extended outward to whole steps): for r = max - min, power =
 * 10^floor(log10 r) and xnorm = r / power, the step is 0.2, 0.5 or 1 x
 * power for xnorm below 2, below 5, or above; the bottom and top ticks are
 * the multiples of the step at or below the smallest value and at or above
 * the largest (so the extreme values may sit on the top or bottom border).
 * Multiples are decimal: 0.3 is 6 x 0.05, though not in doubles, where
 * gnuplot would add a tick below it.
 * Each tick is on the row nearest its value, halves rounded up.  Should two
 * ticks ever share a row, the step grows along 1, 2, 2.5, 5 x 10^k until
 * none do (with 15 rows gnuplot's step never gives more than 12 ticks).
 * As gnuplot widens an empty range, values that are all equal (or whose
 * spread is below 1e-12 of their size, or below 1e-290) are drawn in
 * the range +-1% around them, +-1 around 0 (also for values below 1e-290).
 *
 * Labels are printed like gnuplot's "% h", that is printf's %g: 6
 * significant digits, more when a tick needs them to be exact and they
 * still fit (1000008 rather than 1.00001e+06), at most PLOT_LABEL_WIDTH
 * characters.  When no exact form fits, all labels are printed with the
 * largest precision below 6 that fits, and neighbouring labels may then
 * read the same ("1.2346e+10").  Any finite double can be plotted, DBL_MAX
 * too (its ticks are written from their digits, never formed as doubles).
 *
 * X is the sample index, for both series alike (gnuplot plots two data
 * sets each against its own index): good sample i and bad sample i are
 * drawn in the same column.  x runs from 0 to max(nr_good, nr_bad) - 1,
 * 0 in the left border column, the last in the right border column, each
 * in the nearest column (a lone sample in the middle, column 45, as
 * gnuplot widens the empty x range to [-1:1]); with more than 66 samples
 * several share a column.  Good ("base") samples are '+' joined by '.',
 * bad ("head") samples 'O' without a line.  A line has a dot in each
 * column between its points (each row, when steeper) in the nearest row
 * (column), halves going up (right) as in gnuplot's dumb terminal, drawn
 * only on blank cells.  Markers overwrite borders and ticks, a value in
 * the nearest row, halves up; 'O' overwrites '+'.
 */

#include <stddef.h>

#include "buf.h"

#define PLOT_WIDTH 80
#define PLOT_HEIGHT 20
#define PLOT_LABEL_WIDTH 10
#define PLOT_MAX_SAMPLES 100000

/*
 * Appends the plot (PLOT_HEIGHT lines, each ending in '\n', none longer
 * than PLOT_WIDTH bytes, no trailing spaces) to out.  title is printed as
 * is, except that control characters (bytes below 0x20 and DEL) become
 * '?', and it is cut to PLOT_WIDTH bytes at a UTF-8 character boundary;
 * NULL is an empty title.  good and bad may be NULL when their count is 0.
 * At least one sample in all; values must be finite.  -1 with a message
 * in err for no samples, more than PLOT_MAX_SAMPLES, a non-finite value,
 * or an out buffer whose size limit the plot would pass; out is then
 * unchanged.
 */
int plot_render(struct buf *out, const char *title,
		const double *good, size_t nr_good,
		const double *bad, size_t nr_bad, struct buf *err);

#endif
