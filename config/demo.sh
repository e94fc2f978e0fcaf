#!/bin/sh
# demo.sh [PERFBOT] [render options]: build the demo repository in a
# temporary folder and render config/demo-report.json to stdout with
# config/demo.conf.  `make demo` runs it; extra options go to render,
# e.g. `sh config/demo.sh ./perfbot --template report-legacy`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
perfbot=${1:-$here/../perfbot}
[ $# -gt 0 ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$here/make-demo-repo.sh" "$tmp/repo" >/dev/null
sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/state|" "$here/demo.conf" >"$tmp/demo.conf"
"$perfbot" --config "$tmp/demo.conf" render --date '2026-11-30 09:30:00' "$@" "$here/demo-report.json"
