#!/bin/sh
# site-changes.sh: what a perfbot site run after a change reads again
# (perfbot-site(1), "Atomic and incremental").  Over the state of
# tests/helpers/site-state.sh, each kind of change a report can have (a
# reply, a #perfbot command, a fix by command, a fix posted, a test request,
# its result, a new report through the outbox) is made by the real
# commands, then a run: it reads only the changed report again (-v says
# "1 of N reports read"), writes its page, and leaves a site byte for byte
# the one a --full run into a new folder makes.  An unsubscribe (every
# report) reads all of them, and so does a run into another folder than
# the configured one (which leaves the cache alone) and into the folder
# made again; a damaged cache costs a run that reads all of them, not a
# wrong page; what an unfinished run left at the cache's end is not read,
# and the next run's records go in its place.  A list template that does
# not parse fails the run (65) with the same message each time, whichever
# of the threads making the lists met it first, and changes no file; a
# list page that cannot be put in place fails it (74) before the index.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
skip=0
golden_start
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=$tmp/home
mkdir -p "$HOME"
rm -rf "$tmp/repo"
smtp_peer_start "$tmp/peer"
if ! sh "$top/tests/helpers/site-state.sh" "$top" "$tmp" "$peer_port"; then
	not_ok "the test state could not be made"
	echo "$pass passed, $fail failed"
	exit 1
fi
site=$tmp/state/site
now=1773400000
pb() { PERFBOT_NOW=$now "$perfbot" --config "$tmp/c" "$@"; }
mid() { python3 -c "import json,sys; print([r['message_id'] for r in json.load(open(sys.argv[1]))['reports'] if r['id'] == int(sys.argv[2])][0])" "$site/reports.json" "$1"; }
snap() { (cd "$site" && find . -type f ! -name .lock -printf '%p %i %T@\n' | sort); }
mail() {	# mail N FROM SUBJECT IN-REPLY-TO BODY
	printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: %s\nTo: perfbot lab <perfbot@lab.example.org>\n' "$2"
	printf 'Subject: %s\nDate: Fri, 13 Mar 2026 10:%02d:00 +0000\nMessage-ID: <change%s@example.org>\n' "$3" "$1" "$1"
	printf 'In-Reply-To: <%s>\nReferences: <%s>\n\n%s\n' "$4" "$4" "$5"
}
ingest() { now=$((now + 100)); pb ingest --mbox "$1" 2>>"$tmp/ingest.log"; }

pb -v site 2>"$tmp/site0.log"
check "the first run reads every report" grep -q "(0 removed; 4 of 4 reports read;" "$tmp/site0.log"
cache=$tmp/state/cache/site.cache
check "its cache is in the state's folder, not the public site's" \
	sh -c "test -s '$cache' && ! find '$site' -name '*.cache' | grep -q ."
pb -v site 2>"$tmp/site00.log"
check "a run with nothing new reads no report" grep -q "(0 removed; 0 of 4 reports read, the others" "$tmp/site00.log"

# a run into another folder reads every report and leaves the cache to
# the configured one; a configured folder made again is read whole
pb -v site --out "$tmp/other" 2>"$tmp/site-other.log"
check "--out elsewhere: every report read" grep -q "(0 removed; 4 of 4 reports read;" "$tmp/site-other.log"
pb -v site 2>"$tmp/site-after-other.log"
check "... the configured folder's next run reads none" \
	grep -q "(0 removed; 0 of 4 reports read, the others" "$tmp/site-after-other.log"
mv "$site" "$tmp/site-moved"
mkdir "$site"
cp -a "$tmp/site-moved/." "$site/"
pb -v site 2>"$tmp/site-remade.log"
check "the folder made again (a copy of it): every report read" \
	grep -q "(0 removed; 4 of 4 reports read;" "$tmp/site-remade.log"

# after: CHANGE READ TOTAL PAGE: a run reads READ of TOTAL reports,
# writes PAGE, and the site is a --full run's
step=0
after() {
	step=$((step + 1))
	now=$((now + 100))
	snap >"$tmp/before.$step"
	pb -v site 2>"$tmp/run.$step.log"
	rc=$?
	snap >"$tmp/after.$step"
	check_eq "$1: exit 0, $2 of $3 reports read" "0 yes" \
		"$rc $(grep -q "removed; $2 of $3 reports read" "$tmp/run.$step.log" && echo yes || sed -n 's/.*removed; \([^;]*\);.*/\1/p' "$tmp/run.$step.log")"
	if [ -n "$4" ]; then
		check "$1: $4 written" sh -c "diff '$tmp/before.$step' '$tmp/after.$step' | grep -q '^> ./$4 '"
	fi
	same_as_full "$1"
}

# same_as_full WHAT: the site is what a --full run into a new folder makes
same_as_full() {
	rm -rf "$tmp/fresh"
	pb site --full --out "$tmp/fresh" 2>"$tmp/fresh.log"
	if diff -r -x '.*' "$tmp/fresh" "$site" >"$tmp/diff"; then
		ok "$1: the site is the one a --full run makes"
	else
		not_ok "$1: the site differs from a --full run's:"
		head -20 "$tmp/diff"
	fi
}

m2=$(mid 2)
m4=$(mid 4)
head=$(git -C "$tmp/repo" rev-parse HEAD)
mail 1 'Ann <ann@example.org>' 'Re: the report' "$m2" 'Seen it too.' >"$tmp/1.mbox"
ingest "$tmp/1.mbox"
after "a reply to report 2" 1 4 report/2.html

mail 2 'Peter Zijlstra <peterz@example.org>' 'Re: the cgroup regression' "$m4" '#perfbot invalid' >"$tmp/2.mbox"
ingest "$tmp/2.mbox"
after "a #perfbot command closing report 4" 1 4 report/4.html
check "... its row moved to the closed ones" grep -q 'href="report/4.html".*state-invalid' "$site/index.html"

mail 3 'Peter Zijlstra <peterz@example.org>' 'Re: the cgroup regression' "$m4" '#perfbot reopen' >"$tmp/3.mbox"
ingest "$tmp/3.mbox"
after "a #perfbot command reopening it" 1 4 report/4.html

mail 4 'Peter Zijlstra <peterz@example.org>' 'Re: the cgroup regression' "$m4" "#perfbot fixed-by: $head" >"$tmp/4.mbox"
ingest "$tmp/4.mbox"
after "a fix by #perfbot fixed-by" 1 4 report/4.html
check "... its page names the fix" grep -q "${head%"${head#????????????}"}" "$site/report/4.html"

printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Jane <jane.dev@example.org>\nTo: linux-kernel@vger.kernel.org\nSubject: [PATCH] improve it again\nDate: Fri, 13 Mar 2026 11:00:00 +0000\nMessage-ID: <fix-change5@example.org>\n\nFix it.\n\nCloses: https://lore.kernel.org/all/%s/\nSigned-off-by: Jane <jane.dev@example.org>\n---\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n+b\n' \
	"$m2" >"$tmp/5.mbox"
ingest "$tmp/5.mbox"
after "a fix posted for report 2" 1 4 report/2.html
check "... the feed has it" grep -q 'Fix posted (v1, closes) by Jane' "$site/atom.xml"

now=$((now + 100))
pb report --state open --why "not fixed after all" 1 >"$tmp/reopen.log" 2>&1
after "the operator reopening report 1" 1 4 report/1.html
m1=$(mid 1)
mail 6 'Peter Zijlstra <peterz@example.org>' 'Re: the regression' "$m1" "#perfbot test: $head" >"$tmp/6.mbox"
ingest "$tmp/6.mbox"
after "a test request for report 1" 1 4 report/1.html
pb requests >"$tmp/requests.txt"
n=3
check "... it is request 3, pending" grep -q "^3  pending  report 1" "$tmp/requests.txt"

# its result, as site-state.sh's pipeline makes one
now=$((now + 100))
pb requests take "$n" >"$tmp/job.json"
python3 "$top/tests/helpers/job-result.py" "$tmp/job.json" "$tmp/result.json" 100 120 101
pb queue "$tmp/result.json" 2>"$tmp/queue.log"
now=$((now + 100))
pb send 2>"$tmp/send-result.log"
after "the request's result sent" 1 4 report/1.html
check "... the feed says it was answered" grep -q "Test request $n answered" "$site/atom.xml"

# through the outbox: a new report sent is a page of its own; a follow-up
# sent (the hostile report's comparison again) is in its report's thread
now=$((now + 100))
pb send "$top/tests/golden/legacy-pxz/input.json" 2>"$tmp/send-new.log"
new=$(pb status --json | python3 -c "import json,sys; print(max(r['id'] for r in json.load(sys.stdin)['reports'] if r['kind'] == 'report'))")
after "a new report sent" 1 5 "report/$new.html"
now=$((now + 100))
python3 - "$tmp/evil.json" "$tmp/evil2.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
m = j["tests"][0]["metrics"][0]
for side in ("base", "head"):
    if "mean" in m[side]:
        m[side]["mean"] *= 1.01
    if "values" in m[side]:
        m[side]["values"] = [v * 1.01 for v in m[side]["values"]]
json.dump(j, open(sys.argv[2], "w"))
PY
pb send "$tmp/evil2.json" 2>"$tmp/send-followup.log"
after "a follow-up of report 3 sent" 1 5 report/3.html
check "... reports.json has it" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['reports']
sys.exit(0 if any(x['kind'] == 'followup' and x['page'] == 'report/3.html' for x in r) else 1)" "$site/reports.json"

# an unsubscribe changes every report's recipients: every report is read
mail 9 'Peter Zijlstra <peterz@example.org>' 'Re: the cgroup regression' "$m4" '#perfbot unsubscribe' >"$tmp/9.mbox"
ingest "$tmp/9.mbox"
after "an unsubscribe" 5 5 ""

# what an unfinished run left after the cache's last whole run: not read,
# cut by the next run's records
printf 'P\nI77\nS3:abc\n' >>"$cache"
size=$(wc -c <"$cache")
mail 10 'Ann <ann@example.org>' 'Re: the report' "$m2" 'Still there.' >"$tmp/10.mbox"
ingest "$tmp/10.mbox"
after "a reply, the cache ending in an unfinished run's records" 1 5 report/2.html
check "... those records are gone" sh -c "! tail -c 20 '$cache' | grep -q abc"
pb -v site 2>"$tmp/site-after-cut.log"
check "... and the next run reads the cache (no report read)" \
	grep -q "(0 removed; 0 of 5 reports read, the others" "$tmp/site-after-cut.log"

# later on the same day, nothing new: the rows the run keeps say each
# report's age as a --full run's do (an age in calendar days, which turn
# with the day the cache's salt has; 24-hour periods would turn at
# another hour for each report).  Reports 1 to 4 were made at 23:46 UTC
# on March 9th: at 19:00 UTC on the 12th, which is the 13th in the
# configuration's +0530, as at $now, they were 2 times 24 hours old, and
# 3 at $now; both are 3 days in calendar days.
saved=$now
now=1773342000	# 2026-03-12 19:00 UTC
pb site --full 2>/dev/null
now=$saved
after "a run later the same day, nothing new" 0 5 ""

# a damaged cache costs a run that reads every report, never a wrong page
python3 -c "import sys; p = sys.argv[1]; b = open(p, 'rb').read(); open(p, 'wb').write(b[:len(b) // 2] + b'X' + b[len(b) // 2 + 1:])" "$cache"
mail 11 'Ann <ann@example.org>' 'Re: the report' "$m2" 'And again.' >"$tmp/11.mbox"
ingest "$tmp/11.mbox"
after "a reply, the cache damaged" 5 5 report/2.html
pb -v site 2>"$tmp/site-after-damage.log"
check "... the next run reads the cache it wrote anew" \
	grep -q "(0 removed; 0 of 5 reports read, the others" "$tmp/site-after-damage.log"

# a record damaged after a whole run's C: the cache is read up to that C
# (its checksums are checked beside the reading, which then drops what it read
# past the damage), and the reports changed since that C are read again
size=$(wc -c <"$cache")
mail 12 'Ann <ann@example.org>' 'Re: the report' "$m2" 'Once more.' >"$tmp/12.mbox"
ingest "$tmp/12.mbox"
after "a reply, its run's records appended to the cache" 1 5 report/2.html
check "... appended after what was there" test "$(wc -c <"$cache")" -gt "$size"
python3 -c "import sys; p, at = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, 'rb').read()); at += (len(b) - at) // 2; b[at] ^= 1; open(p, 'wb').write(bytes(b))" "$cache" "$size"
mail 13 'Peter Zijlstra <peterz@example.org>' 'Re: the cgroup regression' "$m4" 'Noted.' >"$tmp/13.mbox"
ingest "$tmp/13.mbox"
after "a reply, the last run's records damaged: its report and this one read" 2 5 report/4.html

# a list page's template that does not parse: exit 65 naming the page
# (the lists are made side by side: the first in their order that failed
# is the one told), and no file of the site changes
mkdir -p "$tmp/tpl/site"
printf '<p>{{#rows}}unclosed</p>\n' >"$tmp/tpl/site/group.html"
cp "$tmp/c" "$tmp/c-broken"
printf '[perfbot]\n\ttemplates = %s/tpl\n' "$tmp" >>"$tmp/c-broken"
before=$(snap)
PERFBOT_NOW=$now "$perfbot" --config "$tmp/c-broken" site 2>"$tmp/broken.log"
rc=$?
check "a list template that does not parse: exit 65" test "$rc" = 65
check "... the message names a tree's page and the template" \
	grep -q "^perfbot site: tree/[^/]*/index.html: .*/tpl/site/group.html:1: section 'rows' is not closed" \
	"$tmp/broken.log"
for i in 1 2 3; do
	PERFBOT_NOW=$now "$perfbot" --config "$tmp/c-broken" site 2>>"$tmp/broken-again.log"
done
check "... the same page each time, whichever thread failed first" \
	test "$(sort -u "$tmp/broken-again.log")" = "$(cat "$tmp/broken.log")"
check "... and no file of the site changed" test "$(snap)" = "$before"

# a list page that cannot be put in place (a folder where its file was):
# exit 74 naming it; the index, put after the groups' pages it links to,
# is not put in place
t1=$(cd "$site/tree" && ls | head -1)
rm "$site/tree/$t1/index.html"
mkdir "$site/tree/$t1/index.html"
inode=$(stat -c %i "$site/index.html")
PERFBOT_NOW=$now "$perfbot" --config "$tmp/c" site --full 2>"$tmp/unwritable.log"
rc=$?
check "a list page that cannot be put in place: exit 74" test "$rc" = 74
check "... the message names it" grep -q "tree/$t1/index.html: cannot write" "$tmp/unwritable.log"
check "... the index is not put in place" test "$(stat -c %i "$site/index.html")" = "$inode"
rmdir "$site/tree/$t1/index.html"
pb site --full 2>/dev/null
check "... and the next run puts both" test -f "$site/tree/$t1/index.html" -a "$(stat -c %i "$site/index.html")" != "$inode"

# a reply changes report 2's line of reports.json (its replies): the file
# is written without being read first (it cannot hold the new bytes:
# lists_differ()), and the site is still a --full run's
if command -v strace >/dev/null 2>&1; then
	mail 30 'Ann <ann@example.org>' 'Re: the report' "$m2" 'And again.' >"$tmp/30.mbox"
	ingest "$tmp/30.mbox"
	now=$((now + 100))
	json=$(cat "$site/reports.json")
	PERFBOT_NOW=$now strace -f -qq -e trace=openat -o "$tmp/open.trace" "$perfbot" --config "$tmp/c" site
	check "a reply under strace: exit 0" test "$?" = 0
	check "... reports.json is written again" test "$(cat "$site/reports.json")" != "$json"
	check "... and was not read first" sh -c "! grep -F '\"$site/reports.json\", O_RDONLY' '$tmp/open.trace'"
	same_as_full "..."
else
	echo "skip: strace is not installed (tests/helpers/install-deps.sh test): reports.json's reads not checked"
	skip=$((skip + 1))
fi

# a list page larger than a mail template may make (16 MB, the index of
# some 57,000 reports): the site's pages may be 256 MB (a lab's index.html
# here that shows a part of 1,000,000 bytes 17 times)
mkdir -p "$tmp/tpl-big/site"
python3 -c "import sys; sys.stdout.write('y' * 999999 + '\n')" >"$tmp/tpl-big/site/mb.html"
python3 -c "import sys; sys.stdout.write('{{>mb.html}}' * 17 + '\n')" >"$tmp/tpl-big/site/index.html"
cp "$tmp/c" "$tmp/c-big"
printf '[perfbot]\n\ttemplates = %s/tpl-big\n' "$tmp" >>"$tmp/c-big"
PERFBOT_NOW=$now "$perfbot" --config "$tmp/c-big" site 2>"$tmp/big.log"
rc=$?
check "an index of 17 MB: exit 0" test "$rc" = 0
check "... and it is put in place whole" test "$(stat -c %s "$site/index.html")" = $((17 * 1000000 + 1))
pb site 2>/dev/null
check "... the shipped templates make it again" grep -q "</html>" "$site/index.html"

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" = 0 ]
