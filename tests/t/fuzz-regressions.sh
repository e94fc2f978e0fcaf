#!/bin/sh
# fuzz-regressions.sh: every input that once made a libFuzzer target find a
# bug (tests/fuzz/regressions/NAME/FILE) is run again through that target,
# built without libFuzzer by `make check` (tests/fuzz/replay-NAME, from
# tests/fuzz/fuzz-NAME.c and tests/fuzz/replay.c), so that a bug that comes
# back fails here on a machine without clang too.  A broken contract
# aborts the replay: not ok.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
skip=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT

for dir in "$top"/tests/fuzz/regressions/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	replay=$top/tests/fuzz/replay-$name
	if [ ! -x "$replay" ]; then
		not_ok "$name: $replay is not built (make check builds it)"
		continue
	fi
	for f in "$dir"*; do
		[ -f "$f" ] || continue
		if timeout -k 2 60 "$replay" "$f" >/dev/null 2>"$err"; then
			ok "$name/$(basename "$f")"
		else
			not_ok "$name/$(basename "$f"): $(tail -n 3 "$err" | tr '\n' ' ')"
		fi
	done
done
if [ $((pass + fail)) -eq 0 ]; then
	echo "skip: no inputs in tests/fuzz/regressions"
	skip=1
fi
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
