#ifndef PERFBOT_PLOT_H
#define PERFBOT_PLOT_H

/*
 * ASCII trend plots of per-run samples, as the kernel test robot's
 * 2018-2022 reports drew them with gnuplot's dumb terminal: 80 columns by
 * 20 lines, a centred title, y tick labels on round numbers (1, 2, 2.5,
 * 5 x 10^k) printed compactly, a frame, base ("good") samples as '+'
 * joined by '.', head ("bad") samples as 'O', x being the sample index
 * (good samples first, then bad ones).  Pure: no I/O.
 */

#include <stddef.h>

#include "buf.h"

#define PLOT_WIDTH 80
#define PLOT_HEIGHT 20
#define PLOT_MAX_SAMPLES 100000

/*
 * Appends the plot (PLOT_HEIGHT lines, each ending in '\n', none longer
 * than PLOT_WIDTH, no trailing spaces) to out.  title is printed as is
 * (cut to fit the width).  At least one sample in all; values must be
 * finite.  -1 with a message in err for no samples, more than
 * PLOT_MAX_SAMPLES, or a non-finite value; out is then unchanged.
 */
int plot_render(struct buf *out, const char *title,
		const double *good, size_t nr_good,
		const double *bad, size_t nr_bad, struct buf *err);

#endif
