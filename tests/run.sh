#!/bin/sh
# tests/run.sh: the whole `make check` suite.  Runs every cmocka binary in
# tests/unit, every test script in tests/t (each ends with its own
# "N passed, M failed[, K skipped]" line), and, where ../shared exists, the
# shared example and mustache spec checks; prints what each printed and ends
# with one line "N passed, M failed" for everything.  Skips are reported
# with their reason and are not passes.  `tests/run.sh --unit` (make unit)
# runs the cmocka tests alone.
set -u
unit_only=
[ "${1:-}" = --unit ] && unit_only=1	# `make unit`: the cmocka tests alone
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
total_pass=0
total_fail=0
total_skip=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# count_cmocka FILE: add cmocka's summary lines to the totals.
count_cmocka() {
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\..*/\1/p' "$1" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p' "$1" | tail -n 1)
	total_pass=$((total_pass + ${p:-0}))
	total_fail=$((total_fail + ${f:-0}))
}

# count_plain FILE RC: add the last "N passed, M failed[, K skipped]" line;
# a suite that failed without printing one counts as one failure.
count_plain() {
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		total_fail=$((total_fail + 1))
		echo "  (no summary line; counted as 1 failure, exit $2)"
		return
	fi
	p=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed.*/\2/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + ${s:-0}))
	if [ "$f" -eq 0 ] && [ "$2" -ne 0 ]; then
		total_fail=$((total_fail + 1))
		echo "  (summary says no failures but the suite exited $2; counted as 1 failure)"
	fi
}

echo "== unit tests (cmocka)"
for t in tests/unit/test-*; do
	case $t in *.c) continue ;; esac
	[ -x "$t" ] || continue
	"$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	if ! grep -q '^\[  PASSED  \]\|^\[  FAILED  \]' "$out"; then
		echo "  ($t printed no cmocka summary; exit $rc: counted as 1 failure)"
		total_fail=$((total_fail + 1))
	else
		count_cmocka "$out"
	fi
done

if [ -n "$unit_only" ]; then
	echo "$total_pass passed, $total_fail failed"
	[ "$total_fail" -eq 0 ]
	exit
fi

for t in tests/t/*.sh; do
	[ -f "$t" ] || continue
	echo "== $t"
	sh "$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	count_plain "$out" "$rc"
done

shared=$(cd "$top/../shared" 2>/dev/null && pwd)
if [ -n "$shared" ]; then
	if [ -f "$shared/examples/check.sh" ]; then
		echo "== ../shared/examples/check.sh"
		bash "$shared/examples/check.sh" ./perfbot >"$out" 2>&1
		rc=$?
		cat "$out"
		count_plain "$out" "$rc"
	fi
	if [ -d "$shared/mustache-spec" ]; then
		echo "== ../shared/mustache-spec"
		python3 tests/helpers/mustache-spec.py ./perfbot "$shared/mustache-spec" >"$out" 2>&1
		rc=$?
		cat "$out"
		count_plain "$out" "$rc"
	fi
	if [ -f "$shared/peer-suites/replies/check.sh" ] && ./perfbot parse --help >/dev/null 2>&1; then
		echo "== ../shared/peer-suites/replies/check.sh"
		bash "$shared/peer-suites/replies/check.sh" ./perfbot >"$out" 2>&1
		rc=$?
		tail -n 40 "$out"
		count_plain "$out" "$rc"
	fi
else
	echo "skip: ../shared is absent, so the shared example, mustache spec and reply suites were not run"
fi

if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" -eq 0 ]
