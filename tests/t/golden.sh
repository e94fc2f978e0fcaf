#!/bin/sh
# golden.sh [--regen] [CASE...]: render each tests/golden/CASE/input.json
# with the fixture repository (tests/golden/make-repo.sh) and compare the
# whole output, headers included, byte for byte with expected.eml; or, for
# a case that must be refused, stderr with expected.err and the exit code
# with expected.rc.  args holds render's arguments, one per line;
# extra.conf is appended to the shared config.
# --regen rewrites the expected files from perfbot's output: do it on
# purpose, then review `git diff tests/golden`.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
golden=$top/tests/golden
regen=0
if [ "${1:-}" = "--regen" ]; then
	regen=1
	shift
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$golden/make-repo.sh" "$tmp/repo" >"$tmp/make-repo.log" 2>&1 || {
	cat "$tmp/make-repo.log"
	echo "0 passed, 1 failed"
	exit 1
}
mkdir "$tmp/state"
[ $# -gt 0 ] || set -- $(cd "$golden" && ls -d */ | tr -d /)
pass=0
fail=0
for name in "$@"; do
	dir=$golden/$name
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/state|" "$golden/config" >"$tmp/config"
	[ -f "$dir/extra.conf" ] && cat "$dir/extra.conf" >>"$tmp/config"
	set --
	if [ -f "$dir/args" ]; then
		while IFS= read -r arg; do
			set -- "$@" "$arg"
		done <"$dir/args"
	fi
	# stderr keeps the case-relative file name, so messages are stable
	(cd "$dir" && SOURCE_DATE_EPOCH= "$perfbot" --config "$tmp/config" render "$@" input.json) \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$regen" = 1 ]; then
		if [ -f "$dir/expected.rc" ] || [ "$rc" -ne 0 ]; then
			echo "$rc" >"$dir/expected.rc"
			sed "s|$tmp|TMP|g" "$tmp/err" >"$dir/expected.err"
		else
			cp "$tmp/out" "$dir/expected.eml"
		fi
		echo "regenerated $name"
		continue
	fi
	if [ -f "$dir/expected.rc" ]; then
		sed "s|$tmp|TMP|g" "$tmp/err" >"$tmp/err.norm"
		if [ "$rc" = "$(cat "$dir/expected.rc")" ] && cmp -s "$tmp/err.norm" "$dir/expected.err" &&
			[ ! -s "$tmp/out" ]; then
			echo "ok $name (exit $rc)"
			pass=$((pass + 1))
		else
			echo "FAIL $name: exit $rc (want $(cat "$dir/expected.rc")), stderr:"
			diff "$dir/expected.err" "$tmp/err.norm" | head -n 5
			[ -s "$tmp/out" ] && echo "  (and something on stdout)"
			fail=$((fail + 1))
		fi
	elif [ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$dir/expected.eml"; then
		echo "ok $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name: exit $rc: $(head -n 1 "$tmp/err")"
		diff "$dir/expected.eml" "$tmp/out" | head -n 10
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
