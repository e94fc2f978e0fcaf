#!/bin/sh
# tests/bench/site.sh: perfbot site (perfbot-site(1)) over a state of
# BENCH_SITE_N (10,000) reports made by tests/bench/bench-site (each sent,
# with two replies, a job and samples of two metrics).
#
#   1. full: `perfbot site --full --out A` into a new folder beside its
#      peer `cp -r A B` (the same files copied: the I/O a site of these
#      bytes costs), interleaved BENCH_SITE_RUNS (5) times, each into a
#      folder of its own, all removed at the end (ext4 makes a file slowly
#      where many were removed lately: its recently_deleted() skips an
#      inode freed in the last minute, or six while its block is dirty, and
#      each skip looks the block up; removing between runs would time that,
#      and only for whichever side came first; for the same reason a bench
#      started within minutes of another's end, or of any large rm, times
#      both sides slower); medians and the ratio (target <= 3x);
#   2. incremental: on the site folder of the last full run, after a run
#      that makes the state's cache of it (as the timers keep it), one
#      reply to one report (perfbot ingest), then a run:
#      the files it wrote (target: that report's page and the lists that
#      show it, nothing else) and its time beside the full run's median
#      (target <= 5%), BENCH_SITE_RUNS times, each after a reply of its own;
#   3. a run with nothing new: files written (target 0) and its time.
# BENCH_STRICT=1: exit 2 when a target is missed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
n=${BENCH_SITE_N:-10000}
runs=${BENCH_SITE_RUNS:-5}
make -s perfbot tests/bench/bench-site
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
./tests/bench/bench-site "$tmp/state" "$n"
# a configuration a site folder: each full run makes its folder the
# configured one, and so keeps the state's cache of it as a real one does
conf() { printf '[perfbot]\n\tstate = %s/state\n\trepo = %s\n[route]\n\tmaintainersFile = none\n[site]\n\tdir = %s\n' "$tmp" "$tmp" "$1" >"$tmp/c"; }
pb() { "$top/perfbot" --config "$tmp/c" "$@"; }
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

: >"$tmp/full"
: >"$tmp/cp"
i=0
while [ $i -lt "$runs" ]; do
	conf "$tmp/A$i"
	sync
	t0=$(now)
	pb site --full
	t1=$(now)
	cp -r "$tmp/A$i" "$tmp/B$i"
	t2=$(now)
	echo "$t1 - $t0" | bc -l >>"$tmp/full"
	echo "$t2 - $t1" | bc -l >>"$tmp/cp"
	i=$((i + 1))
done
# the last full run's folder is the configured one: the runs below use it
mv "$tmp/A$((runs - 1))" "$tmp/A"
conf "$tmp/A"
pages=$(find "$tmp/A" -type f ! -name '.*' | wc -l)
bytes=$(du -sb "$tmp/A" | cut -f1)
full=$(median <"$tmp/full")
cp=$(median <"$tmp/cp")
ratio=$(echo "$full / $cp" | bc -l)

# the incremental runs, on the site folder A (the configured one, whose
# pieces the state's cache keeps; moved, so a first run makes its cache
# again, as the timers' runs keep it); then one reply each
pb site >/dev/null 2>&1
: >"$tmp/incr"
: >"$tmp/written"
i=0
while [ $i -lt "$runs" ]; do
	id=$(( (i * 997) % n + 1 ))
	mid=$(printf '20260601.%08d-bench@lab.example.org' "$id")
	printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Ann <ann@example.org>\nTo: robot <lkp@example.org>\nSubject: Re: report\nDate: Mon, 01 Jun 2026 10:00:00 +0000\nMessage-ID: <bench-reply%d@example.org>\nIn-Reply-To: <%s>\nReferences: <%s>\n\nSeen it.\n' \
		"$i" "$mid" "$mid" >"$tmp/r.mbox"
	pb ingest --mbox "$tmp/r.mbox" 2>/dev/null
	sync	# as before each full run: not timing the last runs' writeback
	t0=$(now)
	pb -v site --out "$tmp/A" 2>"$tmp/incr.log"
	t1=$(now)
	echo "$t1 - $t0" | bc -l >>"$tmp/incr"
	sed -n 's/.* \([0-9]*\) written.*/\1/p' "$tmp/incr.log" >>"$tmp/written"
	i=$((i + 1))
done
incr=$(median <"$tmp/incr")
written=$(sort -n "$tmp/written" | tr '\n' ' ')
share=$(echo "100 * $incr / $full" | bc -l)
sync
t0=$(now)
pb -v site --out "$tmp/A" 2>"$tmp/none.log"
t1=$(now)
none=$(echo "$t1 - $t0" | bc -l)
nothing=$(sed -n 's/.* \([0-9]*\) written.*/\1/p' "$tmp/none.log")

printf '\nperfbot site: %s reports, %s files (%s bytes), medians of %s interleaved runs\n' "$n" "$pages" "$bytes" "$runs"
printf '  full run (--full, empty folder)   %8.3f s\n' "$full"
printf '  cp -r of its output               %8.3f s\n' "$cp"
printf '  ratio                             %8.2fx   (target <= 3x)\n' "$ratio"
printf '  after one reply: a run            %8.3f s   %.1f%% of the full run (target <= 5%%)\n' "$incr" "$share"
printf '  files it wrote (each run)         %s  (its page, index, its tree'"'"'s page, reports.json)\n' "$written"
printf '  nothing new: a run                %8.3f s, %s files written (target 0)\n' "$none" "$nothing"
# each run, in the order made (s): a median hides how they spread
runs() { awk '{printf " %.3f", $1}' "$1"; }
printf '  runs: full%s; cp -r%s; after one reply%s\n' "$(runs "$tmp/full")" "$(runs "$tmp/cp")" "$(runs "$tmp/incr")"
miss=0
[ "$(echo "$ratio <= 3" | bc -l)" = 1 ] || miss=1
[ "$(echo "$share <= 5" | bc -l)" = 1 ] || miss=1
[ "$nothing" = 0 ] || miss=1
if [ "$miss" = 1 ]; then
	echo "  a target is missed"
	[ -z "${BENCH_STRICT:-}" ] || exit 2
fi
