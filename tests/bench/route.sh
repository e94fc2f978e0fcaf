#!/bin/sh
# tests/bench/route.sh: the benchmark of routing.  On Linux 6.1's
# real MAINTAINERS (Debian's linux-source-6.1) and the 44 commits of
# tests/helpers/route-repo.sh, in a bare, packed copy of that repository
# (as a lab's mirror is):
#
#  1. one render's cost of routing, in process (tests/bench/bench-route):
#     route_commit() as a new run pays it, with the parse's image in the
#     cache folder and without one (inflating and parsing the blob); and
#  2. process level: `perfbot render` of one commit with routing on (the
#     image in place) and with route.maintainersFile = none: the
#     difference is what routing adds to a render (target: <= 2 ms; judged
#     on the in-process figure, the process-level one being two ~15 ms
#     runs' difference: with hyperfine, the CPU time is shown too);
#  3. `perfbot recipients --json` on the batch of all commits, the image
#     in place (warm) and not (cold: the first run of a new MAINTAINERS),
#     beside `get_maintainer.pl --no-tree --no-git --no-git-fallback` on
#     the same patches, one process a patch as it is run: per commit and
#     the ratio (target: perfbot >= 100x faster per commit).
# Medians of BENCH_ROUTE_RUNS (5) runs.  BENCH_STRICT=1: exit 2 when a
# target is missed.  Needs the linux-source-6.1 tarball, perl and git; says
# why and exits 0 without them.  Writes only under /tmp.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
runs=${BENCH_ROUTE_RUNS:-5}
tarball=${ROUTE_GM_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
echo "routing: Linux 6.1's MAINTAINERS, the commits of tests/helpers/route-repo.sh"
if [ ! -f "$tarball" ] || ! command -v perl >/dev/null 2>&1; then
	echo "  skipped: needs $tarball (linux-source-6.1) and perl"
	exit 0
fi
make -s perfbot tests/bench/bench-route
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/k" "$tmp/empty" "$tmp/json" "$tmp/patch" "$tmp/state"
tar xJf "$tarball" -C "$tmp/k" --strip-components=1 \
	linux-source-6.1/MAINTAINERS linux-source-6.1/scripts/get_maintainer.pl
sh tests/helpers/route-repo.sh "$tmp/k/MAINTAINERS" "$tmp/work" >"$tmp/commits" 2>"$tmp/repo.log"
git clone -q --bare "$tmp/work" "$tmp/repo.git"
git -C "$tmp/repo.git" repack -adq
gm=$tmp/k/scripts/get_maintainer.pl
cat >"$tmp/config" <<CONF
[perfbot]
	repo = $tmp/repo.git
	state = $tmp/state
	cc = oe-lkp@lists.linux.dev
[tree "linus"]
	url = https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git
	cc = linux-kernel@vger.kernel.org
CONF
{ cat "$tmp/config"; printf '[route]\n\tmaintainersFile = none\n'; } >"$tmp/config.off"
set --
# the root commit (the fixture's import of all its files and of the 700 KB
# MAINTAINERS itself) is no kernel commit: left out
sed 1d "$tmp/commits" >"$tmp/commits.used"
while read -r label id; do
	base=$(git -C "$tmp/repo.git" rev-parse --verify -q "$id^") || base=$id
	cat >"$tmp/json/$label.json" <<JSON
{"perfbot": 1, "tree": "linus/master", "commit": "$id", "base": "$base", "kind": "regression",
 "tests": [{"testcase": "will-it-scale", "headline": "will-it-scale.per_process_ops",
  "tbox_group": "lkp-icl-2sp2", "machine": "a machine", "kconfig": "x86_64-rhel-9.4",
  "compiler": "gcc-14", "rootfs": "debian-12", "params": {},
  "metrics": [{"name": "will-it-scale.per_process_ops", "base": {"values": [100, 101]},
               "head": {"values": [90, 91]}}]}]}
JSON
	if [ "$(git -C "$tmp/repo.git" rev-list --parents -n 1 "$id" | wc -w)" -gt 2 ]; then
		git -C "$tmp/repo.git" log -1 --format=email --first-parent -p --stat=72 --summary "$id" >"$tmp/patch/$label"
	else
		git -C "$tmp/repo.git" format-patch --stdout -1 "$id" >"$tmp/patch/$label"
	fi
	set -- "$@" "$tmp/json/$label.json"
done <"$tmp/commits.used"
n=$#
first=$1

# ms CMD...: wall-clock milliseconds of one run of CMD (output dropped)
ms() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 ))	# µs, for the median's precision
}
# median: the median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# fmt US: microseconds as milliseconds with three decimals
fmt() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }

# 1. in process
line=$(tests/bench/bench-route --repeat 30 "$tmp/repo.git" $(awk '{ print $2 }' "$tmp/commits.used" | head -n 5) |
	tee "$tmp/bench-route.out" | sed -n 's/^result route //p')
sed -n '/^MAINTAINERS:/p; /^image:/p; /^one render/p' "$tmp/bench-route.out" | sed 's/^/  /'
render_image_ms=$(echo "$line" | cut -d' ' -f6)

# 2. process level: one render, routing on (image in place) and off
./perfbot --config "$tmp/config" recipients "$first" >/dev/null	# keeps the parse's image
ls "$tmp/state/cache/"maintainers-* >/dev/null 2>&1 || { echo "route.sh: no image was kept" >&2; exit 1; }
if command -v hyperfine >/dev/null 2>&1; then
	# wall-clock medians and CPU time (user + system), which the other
	# jobs of a shared machine disturb less
	hyperfine -N --style none --warmup 10 --runs $((runs * 20)) --export-json "$tmp/hf.json" \
		"./perfbot --config $tmp/config render --date '2026-11-30 10:00:00' $first" \
		"./perfbot --config $tmp/config.off render --date '2026-11-30 10:00:00' $first" >/dev/null 2>&1
	set -- $(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(" ".join("%d %d" % (x["median"] * 1e6, (x["user"] + x["system"]) * 1e6) for x in r))' "$tmp/hf.json") "$@"
	on=$1 on_cpu=$2 off=$3 off_cpu=$4
	shift 4
	cpu_note="; CPU time $(fmt "$on_cpu") and $(fmt "$off_cpu") ms, a difference of $(fmt $((on_cpu - off_cpu))) ms"
else
	: >"$tmp/on"
	: >"$tmp/off"
	i=0
	while [ $i -lt $((runs * 20)) ]; do
		ms ./perfbot --config "$tmp/config" render --date '2026-11-30 10:00:00' "$first" >>"$tmp/on"
		ms ./perfbot --config "$tmp/config.off" render --date '2026-11-30 10:00:00' "$first" >>"$tmp/off"
		i=$((i + 1))
	done
	on=$(median <"$tmp/on")
	off=$(median <"$tmp/off")
	cpu_note=
fi
added=$((on - off))
echo "  perfbot render, one commit: $(fmt "$on") ms routed, $(fmt "$off") ms with maintainersFile = none:" \
	"routing adds $(fmt "$added") ms (wall-clock medians of $((runs * 20)) runs each$cpu_note)"

# 3. the batch, perfbot beside get_maintainer.pl
: >"$tmp/warm"
: >"$tmp/cold"
: >"$tmp/gm"
i=0
while [ $i -lt "$runs" ]; do
	ms ./perfbot --config "$tmp/config" recipients --json "$@" >>"$tmp/warm"
	rm -rf "$tmp/state/cache"
	ms ./perfbot --config "$tmp/config" recipients --json "$@" >>"$tmp/cold"
	i=$((i + 1))
done
i=0
while [ $i -lt "$runs" ]; do
	t0=$(date +%s%N)
	for p in "$tmp"/patch/*; do
		(cd "$tmp/empty" && perl "$gm" --no-tree --no-git --no-git-fallback --mpath "$tmp/k/MAINTAINERS" "$p") >/dev/null 2>&1
	done
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 )) >>"$tmp/gm"
	i=$((i + 1))
done
warm=$(median <"$tmp/warm")
cold=$(median <"$tmp/cold")
gmt=$(median <"$tmp/gm")
per_warm=$((warm / n))
per_cold=$((cold / n))
per_gm=$((gmt / n))
ratio=$(awk -v g="$per_gm" -v p="$per_warm" 'BEGIN { printf "%.0f", g / (p ? p : 1) }')
ratio_cold=$(awk -v g="$per_gm" -v p="$per_cold" 'BEGIN { printf "%.0f", g / (p ? p : 1) }')
echo "  perfbot recipients --json, $n commits in one run: $(fmt "$warm") ms with the image" \
	"($(fmt "$per_warm") ms a commit), $(fmt "$cold") ms parsing anew ($(fmt "$per_cold") ms a commit)"
echo "  get_maintainer.pl, one run a patch: $(fmt "$gmt") ms ($(fmt "$per_gm") ms a commit)"
echo "  ratio per commit: ${ratio}x (${ratio_cold}x on a new MAINTAINERS); medians of $runs runs"
status=0
# judged in process: the process-level difference of two ~20 ms runs is
# within the noise of a shared machine
if awk -v m="$render_image_ms" 'BEGIN { exit !(m > 2) }'; then
	echo "  target missed: routing adds more than 2 ms to a render ($render_image_ms ms in process)"
	status=2
else
	echo "  target met: routing adds at most 2 ms to a render ($render_image_ms ms in process," \
		"$(fmt "$added") ms wall-clock by process)"
fi
if [ "$ratio" -lt 100 ]; then
	echo "  target missed: perfbot is less than 100x faster than get_maintainer.pl per commit"
	status=2
else
	echo "  target met: perfbot is at least 100x faster than get_maintainer.pl per commit"
fi
[ "$status" -eq 0 ] || [ -z "${BENCH_STRICT:-}" ] || exit 2
exit 0
