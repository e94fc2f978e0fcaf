#!/bin/sh
# tests/bench/run.sh: `make bench`.  How fast perfbot renders a report, beside
# Python's jinja2 rendering the same mail from the same JSON.
#
#  1. in process: tests/bench/bench-render renders each example report
#     BENCH_N times (default 10000) with the repository open and warm, every
#     render doing its git look-ups; tests/bench/jinja2_render.py renders the
#     same mails (headers included, checked byte for byte against perfbot's
#     before timing) with the commit facts handed to it ready-made;
#  2. a table of µs/report and reports/s, the ratio (jinja2 time / perfbot
#     time) and the targets: >= 10x jinja2, < 500 µs per report;
#  3. process level: one `perfbot render` (start-up included) with hyperfine
#     (else a loop of 200 runs), beside `python3 -c 'import jinja2'` and one
#     jinja2_render.py --print;
#  4. then tests/bench/send.sh (delivery over SMTP beside smtp-source),
#     tests/bench/ingest.sh (mirroring a list beside public-inbox-mda and
#     notmuch), tests/bench/route.sh (MAINTAINERS routing beside
#     get_maintainer.pl) and tests/bench/track.sh (perfbot track over
#     100,000 commits with 1,000 open reports beside `git log` reading the
#     same trailers: a first run at least 0.8x git's commits per second,
#     an incremental run of 100 commits at most 3x git's time, both as
#     processes), tests/bench/nntp.sh (ingest --nntp from
#     public-inbox-nntpd beside a download-only client: at most 1.5x)
#     and tests/bench/site.sh (perfbot site over 10,000 reports beside
#     cp -r of its output: at most 3x; a run after one reply at most 5%
#     of a full one), each printing its own summary.
#
# The reports: ../shared/examples (its make-repo.sh and cases) when ../shared
# exists next to the repository, else the project's own tests/golden cases
# that render a mail with the default template, and config/demo-report.json
# (BENCH_OWN=1 forces these).
# Environment: BENCH_N, BENCH_PYTHON (default /usr/bin/python3, Debian's,
# when it has jinja2), BENCH_STRICT=1 (exit 2 when a target is missed).
# Installs nothing itself except through tests/helpers/install-deps.sh bench.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bench=$top/tests/bench
n=${BENCH_N:-10000}

sh tests/helpers/install-deps.sh bench
make -s perfbot tests/bench/bench-render

python=${BENCH_PYTHON:-}
if [ -z "$python" ]; then
	python=python3
	if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import jinja2' 2>/dev/null; then
		python=/usr/bin/python3
	fi
fi
"$python" -c 'import jinja2' || {
	echo "run.sh: $python cannot import jinja2 (BENCH_PYTHON names another python3)" >&2
	exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/facts" "$tmp/state"

# fill_config TEMPLATE REPO OUT: a config naming REPO and a scratch state dir.
fill_config() {
	sed -e "s|@REPO@|$2|" -e "s|@STATE@|$tmp/state|" "$1" >"$3"
}

# Each group: one config, one bench-render process; the config, then the
# files and their --date/--message-id go into $tmp/args.N, one argument a
# line.  The first file of the first group, with its config and options, is
# also kept in $tmp/one.args for the process-level runs.
groups=0
add_group() {
	groups=$((groups + 1))
	printf '%s\n' "$@" >"$tmp/args.$groups"
	[ "$groups" -gt 1 ] || awk '{ print } /\.json$/ { exit }' "$tmp/args.1" >"$tmp/one.args"
}

# run_or_mark CMD...: runs CMD; a failure is recorded in $tmp/failed, so a
# pipeline into tee does not hide it.
run_or_mark() {
	"$@" || echo "$* exited $?" >>"$tmp/failed"
}

shared=$(cd "$top/../shared" 2>/dev/null && pwd) || shared=
if [ -n "$shared" ] && [ -f "$shared/examples/make-repo.sh" ] && [ -z "${BENCH_OWN:-}" ]; then
	source=../shared/examples
	sh "$shared/examples/make-repo.sh" "$tmp/repo" >/dev/null 2>&1
	fill_config "$shared/examples/config" "$tmp/repo" "$tmp/config"
	set -- "$tmp/config"
	for c in "$shared"/examples/cases/*/; do
		c=${c%/}
		[ -f "$c/input.json" ] || continue
		date=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["date"])' "$c/case.json")
		mid=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["message_id"])' "$c/case.json")
		set -- "$@" --date "$date" --message-id "$mid" "$c/input.json"
	done
	add_group "$@"
else
	source="the project's own tests/golden cases and config/demo-report.json"
	sh tests/golden/make-repo.sh "$tmp/golden-repo" >/dev/null 2>&1
	fill_config tests/golden/config "$tmp/golden-repo" "$tmp/golden.conf"
	set -- "$tmp/golden.conf"
	for c in tests/golden/*/; do
		c=${c%/}
		[ -f "$c/expected.eml" ] || continue	# the err-* cases render nothing
		# the peer reproduces the default template only
		! grep -qx -e '--template' "$c/args" 2>/dev/null || continue
		[ -f "$c/extra.conf" ] && cat "$c/extra.conf" >>"$tmp/golden.conf"
		if [ -f "$c/args" ]; then
			while IFS= read -r arg; do
				set -- "$@" "$arg"
			done <"$c/args"
		fi
		set -- "$@" "$top/$c/input.json"
	done
	add_group "$@"
	sh config/make-demo-repo.sh "$tmp/demo-repo" >/dev/null 2>&1
	fill_config config/demo.conf "$tmp/demo-repo" "$tmp/demo.conf"
	add_group "$tmp/demo.conf" --date '2026-11-30 09:30:00' "$top/config/demo-report.json"
fi

echo "make bench: $source, N=$n renders each"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1), $(nproc 2>/dev/null) CPUs; $(uname -sr)"
echo

: >"$tmp/results"
i=1
while [ "$i" -le "$groups" ]; do
	set --
	while IFS= read -r arg; do
		set -- "$@" "$arg"
	done <"$tmp/args.$i"
	cfg=$1
	shift
	run_or_mark tests/bench/bench-render --dump-facts "$tmp/facts" "$cfg" "$n" "$@" |
		tee -a "$tmp/results" | grep -v '^result '
	[ ! -f "$tmp/failed" ] || exit 1
	i=$((i + 1))
done
echo
run_or_mark "$python" "$bench/jinja2_render.py" "$n" "$tmp"/facts/*.facts.json |
	tee -a "$tmp/results" | grep -v '^result '
[ ! -f "$tmp/failed" ] || exit 1
echo

# Process level: the first report, rendered by one `perfbot render`.
set --
while IFS= read -r arg; do
	set -- "$@" "$arg"
done <"$tmp/one.args"
one_cfg=$1
shift
for file in "$@"; do :; done	# the last argument
name=$(basename "$(dirname "$file")")
[ "$(basename "$file")" = input.json ] || name=$(basename "$file" .json)
facts=$tmp/facts/$name.facts.json
./perfbot --config "$one_cfg" render "$@" >"$tmp/one.eml"
cmp -s "$tmp/one.eml" "$tmp/facts/$name.eml" || {
	echo "run.sh: perfbot render of $name differs from bench-render's mail" >&2
	exit 1
}
# quote ARG: ARG in single quotes, for hyperfine's command line
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
render_cmd="./perfbot --config $(quote "$one_cfg") render"
for arg in "$@"; do
	render_cmd="$render_cmd $(quote "$arg")"
done

hf=
if command -v hyperfine >/dev/null 2>&1; then
	# -N: no shell in between; output goes to /dev/null
	hyperfine -N --style none --warmup 20 --min-runs 200 --export-json "$tmp/hyperfine.json" \
		-n "perfbot render ($name)" "$render_cmd" \
		-n "python3 -c 'import jinja2'" "$(quote "$python") -c 'import jinja2'" \
		-n "jinja2_render.py --print ($name)" \
		"$(quote "$python") $(quote "$bench/jinja2_render.py") --print $(quote "$facts")" \
		>/dev/null 2>"$tmp/hyperfine.err" || {
		cat "$tmp/hyperfine.err" >&2
		exit 1
	}
	hf=$tmp/hyperfine.json
fi

echo "summary"
set +e
"$python" "$bench/summary.py" "$tmp/results" ${hf:+"$hf"}
status=$?
set -e
[ "$status" -le 2 ] || exit "$status"
if [ -z "$hf" ]; then
	# no hyperfine: 200 runs in a loop, the loop's own cost included
	t0=$(date +%s%N)
	k=0
	while [ "$k" -lt 200 ]; do
		./perfbot --config "$one_cfg" render "$@" >/dev/null
		k=$((k + 1))
	done
	t1=$(date +%s%N)
	echo
	echo "process level (200 runs in a shell loop, no hyperfine):"
	echo "  perfbot render ($name): $(( (t1 - t0) / 200000 )) µs per run"
fi

# The send, ingest, routing, track, NNTP and site benchmarks, each with its own summary; BENCH_STRICT=1 passes on to them (exit 2: a
# target missed).
for b in send ingest route track nntp site; do
	echo
	set +e
	sh "$bench/$b.sh"
	s=$?
	set -e
	if [ "$s" -eq 2 ]; then
		status=2
	elif [ "$s" -ne 0 ]; then
		echo "run.sh: tests/bench/$b.sh exited $s" >&2
		exit "$s"
	fi
done
if [ "$status" -eq 2 ] && [ -n "${BENCH_STRICT:-}" ]; then
	exit 2
fi
exit 0
