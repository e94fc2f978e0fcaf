#ifndef PERFBOT_PLOT_H
#define PERFBOT_PLOT_H

/*
 * ASCII trend plots of per-run samples, as the kernel test robot's
 * 2018-2022 reports drew them with gnuplot's dumb terminal: 80 columns by
 * 20 lines, a centred title, y tick labels on round numbers (1, 2, 2.5,
 * 5 x 10^k) printed compactly, a frame, base ("good") samples as '+'
 * joined by '.', head ("bad") samples as 'O', x being the sample index
 * (good samples first, then bad ones).  Pure: no I/O, no global state.
 *
 * The layout, line by line:
 *   1      the title, centred over the frame
 *   2      empty
 *   3-19   the frame: '+' corners, '-' top and bottom, '|' sides; a y
 *          tick is "+-+" at the left border with its label right-aligned
 *          before it (the top and bottom rows are always ticks); an x tick
 *          is a '+' in the bottom border (left out where it would touch a
 *          corner or the y tick's "+-+")
 *   20     the x tick labels (sample indexes), each centred under its tick
 *
 * The y range runs from a tick below the smallest value to one above the
 * largest, with the smallest step m x 10^k (m in 1, 2, 2.5, 5) that needs
 * at most PLOT_MAX_YTICKS ticks (so 4 to 8 of them).  The range leaves
 * the extreme values half a row of headroom, so they do not land on the
 * top or bottom border, except that 0 stays the bottom tick when no value
 * is negative (the top tick when none is positive).
 * Values whose spread is below 1e-12 of their size, or below 1e-290, are
 * drawn as equal, in a range of +-1% around them (+-1 around 0, which is
 * also used when they are smaller than 1e-290).  Labels are the exact tick
 * values printed like printf's %g, with more than 6 significant digits
 * only when a tick needs them ("1.13e+08", "250000", "0.5", "-2.5", "0").
 * Any finite double can be plotted, DBL_MAX too.
 *
 * Sample i of n (good ones first) owns an equal share of the columns
 * inside the frame and is drawn at its centre, so no sample lands on the
 * left or right border; with more samples than columns several share a
 * column.  A value is drawn in the nearest row.  Markers are drawn over
 * anything: 'O' over '+', '+' over '.' and over ticks and borders; '.'
 * only on blank cells.
 */

#include <stddef.h>

#include "buf.h"

#define PLOT_WIDTH 80
#define PLOT_HEIGHT 20
#define PLOT_MAX_SAMPLES 100000
#define PLOT_MAX_YTICKS 8

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
