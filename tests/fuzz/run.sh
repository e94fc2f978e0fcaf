#!/bin/sh
# run.sh SECONDS FUZZER...: run each libFuzzer target for SECONDS with a
# seed corpus from tests/fuzz/seeds-NAME (and, for the JSON reader, the
# shipped example JSONs); a crash, leak or timeout fails the run.
set -u
seconds=${1:?usage: run.sh SECONDS FUZZER...}
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
status=0
for f in "$@"; do
	name=$(basename "$f")
	corpus=$(mktemp -d)
	seeds=$top/tests/fuzz/seeds-${name#fuzz-}
	[ -d "$seeds" ] && cp "$seeds"/* "$corpus"/ 2>/dev/null
	# the inputs that found bugs are seeds too
	regressions=$top/tests/fuzz/regressions/${name#fuzz-}
	[ -d "$regressions" ] && cp "$regressions"/* "$corpus"/ 2>/dev/null
	case $name in
	fuzz-json) cp "$top"/config/*.json "$top"/tests/golden/*/input.json "$corpus"/ 2>/dev/null ;;
	fuzz-template) cp "$top"/templates/*.txt "$corpus"/ 2>/dev/null ;;
	fuzz-reply) cp "$top"/tests/t/data/parse/* "$corpus"/ 2>/dev/null ;;
	fuzz-rfc5322)
		cp "$top"/tests/t/data/parse/* "$corpus"/ 2>/dev/null
		python3 "$top"/tests/helpers/make-hostile.py "$corpus/hostile" >/dev/null 2>&1 &&
			mv "$corpus"/hostile/* "$corpus"/ && rmdir "$corpus/hostile" ;;
	fuzz-gitconfig) cp "$top"/config/perfbot.conf.example "$top"/tests/golden/config "$corpus"/ 2>/dev/null ;;
	esac
	echo "== $name: ${seconds}s"
	if "$f" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$top/tests/fuzz/" "$corpus" >"$corpus.log" 2>&1; then
		tail -n 3 "$corpus.log"
		echo "ok $name"
	else
		tail -n 40 "$corpus.log"
		echo "FAIL $name (artifacts in tests/fuzz/)"
		status=1
	fi
	rm -rf "$corpus" "$corpus.log"
done
exit $status
