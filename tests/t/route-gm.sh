#!/bin/sh
# route-gm.sh: perfbot's routing (bot/maintainers.h, bot/patch.h) against
# the kernel's own scripts/get_maintainer.pl, both given Linux 6.1's real
# MAINTAINERS, on the commits of tests/helpers/route-repo.sh (real kernel
# paths of many subsystems, renames, deletions, K: keywords).
#
# For each commit, get_maintainer.pl reads `git format-patch -1` of it (a
# merge, which format-patch skips: `git log --first-parent -p`), run as
#     perl get_maintainer.pl --no-tree --no-git --no-git-fallback --mpath MAINTAINERS PATCH
# from an empty directory, and perfbot selects for the commit itself
# (tests/unit/test-maintainers --gm, printing the same --rolestats form).
# A case matches when the outputs are identical, line for line and in
# order.  get_maintainer.pl orders sections of equal depth in Perl's hash
# order, which changes from run to run (and with it the order of people
# and lists, and the section a shared list is credited to): when the first
# answer differs, it is asked again, up to 12 times, and the case matches
# when perfbot's answer is one of get_maintainer.pl's.  Lines with an empty
# address (get_maintainer.pl prints "Mali DP Maintainers <...>" as one) are
# left out of its answers (bot/maintainers.h says why).
#
# Also checked: the diffstat perfbot writes for K: matches names each file
# as `git format-patch` does (the +/- histogram aside).
#
# Needs /usr/src/linux-source-6.1.tar.xz (Debian's linux-source-6.1) and
# perl; says why and skips otherwise.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
tarball=${ROUTE_GM_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
driver=$top/tests/unit/test-maintainers
if [ ! -f "$tarball" ]; then
	echo "skip: $tarball is absent (Debian's linux-source-6.1: sh tests/helpers/install-deps.sh test)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if ! command -v perl >/dev/null 2>&1; then
	echo "skip: perl is not installed, so get_maintainer.pl cannot run"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
[ -x "$driver" ] || { echo "not ok: $driver is not built (make tests/unit/test-maintainers)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/k" "$tmp/empty"
if ! tar xJf "$tarball" -C "$tmp/k" --strip-components=1 \
	linux-source-6.1/MAINTAINERS linux-source-6.1/scripts/get_maintainer.pl; then
	echo "not ok: MAINTAINERS and scripts/get_maintainer.pl could not be read from $tarball"
	echo "0 passed, 1 failed"
	exit 1
fi
gm=$tmp/k/scripts/get_maintainer.pl
if ! sh "$top/tests/helpers/route-repo.sh" "$tmp/k/MAINTAINERS" "$tmp/repo" >"$tmp/commits" 2>"$tmp/repo.log"; then
	cat "$tmp/repo.log"
	echo "0 passed, 1 failed"
	exit 1
fi

# run_gm PATCH OUT: get_maintainer.pl's answer, lines without an address dropped
run_gm() {
	(cd "$tmp/empty" && perl "$gm" --no-tree --no-git --no-git-fallback --mpath "$tmp/k/MAINTAINERS" "$1") \
		2>/dev/null | grep -v '^ (' >"$2"
}

cases=0
matches=0
first=0
while read -r label id; do
	cases=$((cases + 1))
	if [ "$(git -C "$tmp/repo" rev-list --parents -n 1 "$id" | wc -w)" -gt 2 ]; then
		git -C "$tmp/repo" log -1 --format=email --first-parent -p --stat=72 --summary "$id" >"$tmp/patch"
	else
		git -C "$tmp/repo" format-patch --stdout -1 "$id" >"$tmp/patch"
	fi
	if ! "$driver" --gm "$tmp/repo" "$id" >"$tmp/ours" 2>"$tmp/ours.err"; then
		not_ok "$label: the driver failed: $(cat "$tmp/ours.err")"
		continue
	fi
	run_gm "$tmp/patch" "$tmp/gm"
	tries=1
	agreed=0
	while :; do
		if cmp -s "$tmp/gm" "$tmp/ours"; then
			agreed=1
			break
		fi
		[ $tries -lt 12 ] || break
		run_gm "$tmp/patch" "$tmp/gm"
		tries=$((tries + 1))
	done
	if [ $agreed = 1 ]; then
		matches=$((matches + 1))
		[ $tries = 1 ] && first=$((first + 1))
		how=identical
		[ $tries = 1 ] || how="identical to get_maintainer.pl's answer $tries (its hash order varies)"
		ok "$label: $(wc -l <"$tmp/ours") recipients, $how"
	else
		not_ok "$label: differs from get_maintainer.pl in $tries runs; the last:"
		diff "$tmp/gm" "$tmp/ours" | sed 's/^/    /'
	fi
	# the diffstat names, as git format-patch writes them
	sed -n '/^---$/,/^$/p' "$tmp/patch" | sed -n 's/^\( .*\) | .*/\1/p' | sed 's/ *$//' >"$tmp/stat.git"
	"$driver" --text "$tmp/repo" "$id" | sed -n '/^---$/,/^$/p' | sed -n 's/^\( .*\) | .*/\1/p' | sed 's/ *$//' >"$tmp/stat.ours"
	if [ "$(git -C "$tmp/repo" rev-list --parents -n 1 "$id" | wc -w)" -gt 2 ]; then
		:	# git log's stat of a merge is not format-patch's
	elif cmp -s "$tmp/stat.git" "$tmp/stat.ours"; then
		ok "$label: diffstat names as git format-patch's"
	else
		not_ok "$label: diffstat names differ from git format-patch's:"
		diff "$tmp/stat.git" "$tmp/stat.ours" | sed 's/^/    /'
	fi
done <"$tmp/commits"
echo "agreement with get_maintainer.pl: $cases cases, $matches matches ($first on its first answer)"
check "at least 30 cases" [ "$cases" -ge 30 ]
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
