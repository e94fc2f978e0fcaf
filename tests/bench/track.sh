#!/bin/sh
# tests/bench/track.sh: the benchmark of perfbot track
# (tests/bench/bench-track.c says what it measures).  Builds bench-track
# against bot/libperfbot.a into a temporary folder and runs it: a
# fast-import history of BENCH_TRACK_COMMITS (100,000) commits and
# BENCH_TRACK_REPORTS (1,000) open reports, a full walk (target >= 50,000
# commits/s) and an incremental walk of 100 new commits, medians of
# BENCH_TRACK_RUNS (5) runs, for the engine alone; then the `perfbot
# track` command itself (start-up included, from a state database
# holding the reports) interleaved with `git log --format='%H
# %(trailers)'` over the same commits: the first run at least 0.8x git's
# commits per second, the incremental run at most 3x git's time.  BENCH_STRICT=1: exit 2 when a target is
# missed.  Needs git; writes only under /tmp (or BENCH_TRACK_KEEP).  bench-track
# is built by the Makefile, linked as perfbot is.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s perfbot tests/bench/bench-track
BENCH_PERFBOT=$top/perfbot "$top/tests/bench/bench-track"
