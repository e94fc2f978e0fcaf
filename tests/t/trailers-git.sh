#!/bin/sh
# trailers-git.sh: perfbot reads a message's trailers as git does
# (bot/trailer.h), on TRAILERS_GIT_COUNT (3,000) messages generated from
# TRAILERS_GIT_SEED (19) by tests/helpers/trailer-corpus.py: splats, "---"
# lines of every shape, patches below a divider, trailers after blank
# lines, continuation lines, comments, scissors, CRLF, text lines among
# trailers (about the 25% line too), Signed-off-by and cherry-picked
# lines, odd keys, empty values,
# and a fifth of token soup of the same pieces.
# Each is read by git and by tests/unit/test-trailer --parse, and must
# give the same keys and values, byte for byte:
#   no-divider  git interpret-trailers --parse --no-divider
#   mail        git interpret-trailers --parse (the "---" divider)
#   commit      git log --format='%(trailers:only,unfold)', what `perfbot
#               track` reads from each commit
# The mail check leaves out the messages on which git 2.39 never returns
# (a scissors line below the divider) and says how many.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
driver=$top/tests/unit/test-trailer
seed=${TRAILERS_GIT_SEED:-19}
count=${TRAILERS_GIT_COUNT:-3000}
if ! command -v git >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	echo "skip: git and python3 are needed to compare with git"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
[ -x "$driver" ] || { echo "not ok: $driver is not built (make tests/unit/test-trailer)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# $(git --version), seed $seed, $count messages"
if ! python3 "$top/tests/helpers/trailer-corpus.py" "$driver" "$seed" "$count" "$tmp" \
	>"$tmp/result" 2>"$tmp/diffs"; then
	cat "$tmp/diffs"
	not_ok "the comparison ran"
	echo "$pass passed, $fail failed"
	exit 1
fi
for mode in no-divider mail commit; do
	line=$(grep "^$mode " "$tmp/result")
	set -- $line
	if [ $# -ne 5 ]; then
		not_ok "$mode: no result"
		continue
	fi
	compared=$2 differ=$3 left_out=$4 with=$5
	msg="$mode: $compared messages compared with git ($with with trailers"
	[ "$left_out" -gt 0 ] && msg="$msg; $left_out left out, on which git 2.39 loops"
	msg="$msg), $differ differ"
	if [ "$differ" -eq 0 ] && [ "$compared" -ge $((count * 9 / 10)) ] && [ "$with" -gt 0 ]; then
		ok "$msg"
	else
		not_ok "$msg"
	fi
done
[ -s "$tmp/diffs" ] && sed 's/^/# /' "$tmp/diffs"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
