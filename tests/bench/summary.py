#!/usr/bin/env python3
"""summary.py: the table `make bench` ends with.

    summary.py RESULTS [HYPERFINE.json]

RESULTS holds the "result IMPL NAME N SECONDS BEST_US CPU_SECONDS" lines
of bench-render (IMPL perfbot) and jinja2_render.py (IMPL jinja2): N
renders took SECONDS by the clock and CPU_SECONDS of the process's CPU
time, and the fastest of the batches took BEST_US µs per render.  Prints
per report and overall µs/report (wall, best batch, CPU) and reports/s of
each, the ratio jinja2 time / perfbot time for each measure (best batch and
CPU time are the least disturbed ones on a shared machine), and whether the
targets are met, judged on wall-clock time over all N renders: perfbot at
least TARGET_RATIO times as fast as jinja2, and under TARGET_US µs per
report.  With
HYPERFINE.json (hyperfine --export-json), also the process-level times.
Exit status 0 when both targets are met, 2 when one is missed.
"""

import json
import sys

TARGET_RATIO = 10.0
TARGET_US = 500.0


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: summary.py RESULTS [HYPERFINE.json]\n")
        return 64
    runs = {}
    names = []
    with open(argv[1], encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) != 7 or w[0] != "result":
                continue
            runs[(w[1], w[2])] = (int(w[3]), float(w[4]), float(w[5]), float(w[6]))
            if w[2] not in names:
                names.append(w[2])
    missing = [(impl, n) for n in names for impl in ("perfbot", "jinja2") if (impl, n) not in runs]
    if not names or missing:
        sys.stderr.write("summary.py: no complete results (missing: %s)\n" % missing)
        return 1

    def rate(impl, which):
        """µs per report (wall, over all renders), reports/s, fastest-batch
        µs (the files' mean), CPU µs per report."""
        count = sum(runs[(impl, x)][0] for x in which)
        secs = sum(runs[(impl, x)][1] for x in which)
        best = sum(runs[(impl, x)][2] for x in which) / len(which)
        cpu = sum(runs[(impl, x)][3] for x in which)
        return secs / count * 1e6, count / secs, best, cpu / count * 1e6

    n = runs[("perfbot", names[0])][0]
    print("%-34s %-31s %-31s %s" % ("", "perfbot, µs/report", "jinja2, µs/report",
                                     "ratio jinja2/perfbot"))
    print("%-34s %7s %7s %7s %8s %7s %7s %7s %8s %6s %6s %6s"
          % ("report", "wall", "best", "cpu", "reports/s", "wall", "best", "cpu", "reports/s",
             "wall", "best", "cpu"))
    rule = "-" * 120
    print(rule)
    rows = [(x, [x]) for x in names] + [("all (%d reports, N=%d each)" % (len(names), n), names)]
    for label, which in rows:
        if label.startswith("all"):
            print(rule)
        pw, pr, pb, pc = rate("perfbot", which)
        jw, jr, jb, jc = rate("jinja2", which)
        print("%-34s %7.1f %7.1f %7.1f %8.0f  %7.1f %7.1f %7.1f %8.0f  %5.1fx %5.1fx %5.1fx"
              % (label, pw, pb, pc, pr, jw, jb, jc, jr, jw / pw, jb / pb, jc / pc))
    pw, _, pb, pc = rate("perfbot", names)
    jw, _, jb, jc = rate("jinja2", names)
    ratio = jw / pw
    ok_ratio = ratio >= TARGET_RATIO
    ok_us = pw < TARGET_US
    worst = max(names, key=lambda x: rate("perfbot", [x])[0])
    print("(wall: all N renders by the clock; best: the fastest of 10 batches; cpu: the process's"
          " CPU time)")
    print()
    print("target: perfbot >= %.0fx as fast as jinja2, git look-ups included: %5.1fx  %s"
          "  (best batches %.1fx, cpu %.1fx)" % (TARGET_RATIO, ratio, "met" if ok_ratio else "MISSED",
                                                  jb / pb, jc / pc))
    print("target: perfbot < %.0f µs per report:                          %5.1f µs %s"
          "  (slowest report %s: %.1f µs)" % (TARGET_US, pw, "met" if ok_us else "MISSED",
                                             worst, rate("perfbot", [worst])[0]))

    if len(argv) == 3:
        with open(argv[2], encoding="utf-8") as f:
            hf = json.load(f)
        print()
        print("process level (hyperfine: one process per run, start-up included):")
        for r in hf["results"]:
            print("  %-60s %7.2f ms ± %5.2f  (min %.2f, %d runs)"
                  % (r["command"][:60], r["mean"] * 1e3, (r.get("stddev") or 0) * 1e3,
                     r["min"] * 1e3, len(r["times"])))
    return 0 if ok_ratio and ok_us else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
