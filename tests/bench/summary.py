#!/usr/bin/env python3
"""summary.py: the table `make bench` ends with.

    summary.py RESULTS [HYPERFINE.json]

RESULTS holds the "result IMPL NAME N SECONDS BEST_US" lines of
bench-render (IMPL perfbot) and jinja2_render.py (IMPL jinja2): N renders
took SECONDS, and the fastest of the batches took BEST_US µs per render.
Prints per report and overall µs/report and reports/s of each (over all N
renders), the ratio jinja2 time / perfbot time, the same ratio from the
fastest batches (the least disturbed figure on a shared machine), and
whether the targets are met: perfbot at least TARGET_RATIO times as fast as
jinja2, and under TARGET_US µs per report (judged on all N renders).  With
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
            if len(w) != 6 or w[0] != "result":
                continue
            runs[(w[1], w[2])] = (int(w[3]), float(w[4]), float(w[5]))
            if w[2] not in names:
                names.append(w[2])
    missing = [(impl, n) for n in names for impl in ("perfbot", "jinja2") if (impl, n) not in runs]
    if not names or missing:
        sys.stderr.write("summary.py: no complete results (missing: %s)\n" % missing)
        return 1

    def rate(impl, which):
        """µs per report over all renders, reports/s, best-batch µs (mean over files)."""
        count = sum(runs[(impl, n)][0] for n in which)
        secs = sum(runs[(impl, n)][1] for n in which)
        best = sum(runs[(impl, n)][2] for n in which) / len(which)
        return secs / count * 1e6, count / secs, best

    n = runs[("perfbot", names[0])][0]
    print("%-34s %18s %18s %7s %11s" % ("", "perfbot", "jinja2", "ratio", "best batch"))
    print("%-34s %8s %9s %8s %9s %7s %11s" % ("report", "µs", "reports/s", "µs", "reports/s",
                                              "", "pb/j2/ratio"))
    rule = "-" * 103
    print(rule)
    rows = [(x, [x]) for x in names] + [("all (%d reports, N=%d each)" % (len(names), n), names)]
    for label, which in rows:
        if label.startswith("all"):
            print(rule)
        pu, pr, pb = rate("perfbot", which)
        ju, jr, jb = rate("jinja2", which)
        print("%-34s %8.1f %9.0f %8.1f %9.0f %6.1fx %7.1f/%.1f/%.1fx"
              % (label, pu, pr, ju, jr, ju / pu, pb, jb, jb / pb))
    pu, _, pb = rate("perfbot", names)
    ju, _, jb = rate("jinja2", names)
    ratio = ju / pu
    ok_ratio = ratio >= TARGET_RATIO
    ok_us = pu < TARGET_US
    worst = max(names, key=lambda x: rate("perfbot", [x])[0])
    print()
    print("target: perfbot >= %.0fx as fast as jinja2 (git look-ups included): %5.1fx  %s"
          "   (fastest batches: %.1fx)" % (TARGET_RATIO, ratio, "met" if ok_ratio else "MISSED",
                                           jb / pb))
    print("target: perfbot < %.0f µs per report:                            %5.1f µs %s"
          "  (slowest report %s: %.1f µs)" % (TARGET_US, pu, "met" if ok_us else "MISSED",
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
