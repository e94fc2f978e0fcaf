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
# missed.  Needs git; writes only under /tmp (or BENCH_TRACK_KEEP).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s perfbot bot/libperfbot.a
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs="$(pkg-config --libs jansson libgit2 sqlite3 gnutls zlib) -letpan -lm -pthread"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Ibot $(pkg-config --cflags libgit2) \
	-o "$tmp/bench-track" tests/bench/bench-track.c bot/libperfbot.a $libs
BENCH_PERFBOT=$top/perfbot "$tmp/bench-track"
