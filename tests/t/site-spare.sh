#!/bin/sh
# site-spare.sh: a site whose lists are large (perfbot-site(1), FILES:
# .spare-NAME).  Over a state of 1,000 reports made by tests/bench/bench-site
# (reports.json and the index past 256 KB), replies one at a time, each
# followed by a run: the file a list replaces is kept as its spare, and
# the run after next writes into that spare (its inode) and renames it
# into place; a reader that still has the spare open keeps reading what
# it had, whole, and that run writes a new file instead; each run leaves
# the site a --full run into a new folder makes.  The state's cache of the
# site, written anew by a --full run, the same way.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'exec 3<&-; rm -rf "$tmp"' EXIT
n=1000
if ! "$top/tests/bench/bench-site" "$tmp/state" "$n" >/dev/null; then
	not_ok "the test state could not be made"
	echo "$pass passed, $fail failed"
	exit 1
fi
site=$tmp/site
printf '[perfbot]\n\tstate = %s/state\n\trepo = %s\n[route]\n\tmaintainersFile = none\n[site]\n\tdir = %s\n' \
	"$tmp" "$tmp" "$site" >"$tmp/c"
pb() { "$perfbot" --config "$tmp/c" "$@"; }
reply() {	# reply I: a reply to report I
	mid=$(printf '20260601.%08d-bench@lab.example.org' "$1")
	printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Ann <ann@example.org>\nTo: robot <lkp@example.org>\nSubject: Re: report\nDate: Mon, 01 Jun 2026 10:00:00 +0000\nMessage-ID: <spare-reply%d@example.org>\nIn-Reply-To: <%s>\nReferences: <%s>\n\nSeen it.\n' \
		"$1" "$mid" "$mid" >"$tmp/r.mbox"
	pb ingest --mbox "$tmp/r.mbox" 2>/dev/null
}
inode() { stat -c %i "$1"; }
# as a --full run into a new folder makes it
same_as_fresh() {
	rm -rf "$tmp/fresh"
	pb site --full --out "$tmp/fresh" 2>/dev/null &&
		diff -r -x .lock -x .manifest -x '.spare-*' "$site" "$tmp/fresh" >/dev/null
}
replies() { python3 -c "import json,sys; print([r['replies'] for r in json.load(open(sys.argv[1]))['reports'] if r['id'] == int(sys.argv[2])][0])" "$1" "$2"; }

pb site --full 2>/dev/null
pb site 2>/dev/null	# the cache of it, as the timers keep it
check "the lists are past 256 KB" test "$(wc -c <"$site/reports.json")" -gt 262144 -a \
	"$(wc -c <"$site/index.html")" -gt 262144
check "... a --full run into a new folder keeps no spare" \
	test -z "$(find "$site" -name '.spare-*')"
first=$(inode "$site/reports.json")
cp "$site/reports.json" "$tmp/first.json"

reply 7
pb site 2>/dev/null
check_eq "a reply, a run: reports.json shows it" 3 "$(replies "$site/reports.json" 7)"
check "... the file it replaced is kept as the spare, unchanged" \
	cmp -s "$site/.spare-reports.json" "$tmp/first.json"
check_eq "... (its inode)" "$first" "$(inode "$site/.spare-reports.json")"
check "... the index's too" test -f "$site/.spare-index.html"
check "... the site is a --full run's" same_as_fresh
second=$(inode "$site/reports.json")
cp "$site/reports.json" "$tmp/second.json"

reply 8
pb site 2>/dev/null
check_eq "another reply, a run: reports.json shows it" 3 "$(replies "$site/reports.json" 8)"
check_eq "... written into the spare (the first file's inode)" "$first" "$(inode "$site/reports.json")"
check_eq "... the file it replaced is the spare now" "$second" \
	"$(inode "$site/.spare-reports.json")"
check "... unchanged" cmp -s "$site/.spare-reports.json" "$tmp/second.json"
check "... the site is a --full run's" same_as_fresh
check "... no temporary name is left" test -z "$(find "$site" -name '.tmp-*' -o -name '*.next')"

# a reader of the spare (it was reports.json two runs ago): the run
# writes a new file, and the reader reads on what it had
exec 3<"$site/.spare-reports.json"
third=$(inode "$site/reports.json")
reply 9
pb site 2>/dev/null
check_eq "a reader has the spare open, a run: reports.json shows the reply" 3 \
	"$(replies "$site/reports.json" 9)"
got=$(inode "$site/reports.json")
check "... in a new file, not the spare the reader has" test "$got" != "$second" -a "$got" != "$third"
check "... the reader reads what it had, whole" sh -c "cmp -s /dev/fd/3 '$tmp/second.json'" 3<&3
exec 3<&-
check_eq "... the file the run replaced is the spare now" "$third" "$(inode "$site/.spare-reports.json")"
check "... the site is a --full run's" same_as_fresh

# the state's cache, written anew by each --full run: the same way
cache=$tmp/state/cache/site.cache
c1=$(inode "$cache")
pb site --full 2>/dev/null
check_eq "a --full run: the cache it replaced is its spare" "$c1" \
	"$(inode "$tmp/state/cache/.spare-site.cache")"
pb site --full 2>/dev/null
check_eq "... and the next one writes into it" "$c1" "$(inode "$cache")"
reply 10
pb -v site 2>"$tmp/v.log"
check "... which the next run reads (one report read)" \
	grep -q "(0 removed; 1 of $n reports read, the others" "$tmp/v.log"
check "... the site is a --full run's" same_as_fresh

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
