#!/bin/sh
# templates.sh: template folders that layer (perfbot.templates before the
# shipped ones), end to end: a lab's child template over the shipped
# parent, a lab's follow-up template used by send for a comparison of a
# report already in the outbox, and queue rendering what send will render
# (refusing a comparison whose follow-up template is broken, taking a new
# report with the same templates).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/perfbot
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PERFBOT_CONFIG=
sh "$top/config/make-demo-repo.sh" "$tmp/repo" >/dev/null 2>&1
sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/state|" "$top/config/demo.conf" >"$tmp/conf"
cat >>"$tmp/conf" <<CONF
[perfbot]
	templates = $tmp/lab
	template = mine
	coalesceMinutes = 0
[tree "linux-next"]
	url = https://git.kernel.org/pub/scm/linux/kernel/git/next/linux-next.git
[smtp]
	server = 127.0.0.1
	port = $(free_port)
	encryption = none
	timeout = 2
CONF
mkdir "$tmp/lab"
printf '{{<report}}\n{{$greeting}}\nHi from the lab,\n{{/greeting}}\n{{/report}}\n' >"$tmp/lab/mine.txt"
printf '{{<followup}}\n{{$intro}}\nThe lab still sees it.\n{{/intro}}\n{{/followup}}\n' >"$tmp/lab/mine-followup.txt"
cp "$top/config/demo-report.json" "$tmp/a.json"
cp "$top/config/demo-report.json" "$tmp/b.json"
sed 's|"tree": "linus/master"|"tree": "linux-next/master"|' "$top/config/demo-report.json" >"$tmp/next.json"

"$bin" --config "$tmp/conf" render --date '2026-11-30 09:30:00' "$tmp/a.json" >"$tmp/r.eml" 2>"$tmp/err"
check_eq "a lab's child template renders (exit 0)" 0 $?
check "its block is the lab's" grep -q "^Hi from the lab,$" "$tmp/r.eml"
check "the rest is the shipped parent's" grep -q "^Details are as below:" "$tmp/r.eml"

# the report goes into the outbox (the server is away: it stays queued)
"$bin" --config "$tmp/conf" send "$tmp/a.json" >/dev/null 2>"$tmp/err"
check_eq "send queues the report (the server is away: exit 75)" 75 $?
# the same comparison again: a follow-up, with the lab's follow-up template
"$bin" --config "$tmp/conf" queue "$tmp/b.json" >/dev/null 2>"$tmp/err"
check_eq "queue takes the follow-up (exit 0)" 0 $?
"$bin" --config "$tmp/conf" send --dry-run >"$tmp/mbox" 2>"$tmp/err"
check "send makes it a follow-up" grep -q "would queue <.*> (follow-up) Re: " "$tmp/err"
check "rendered with the lab's follow-up template" grep -q "^The lab still sees it.$" "$tmp/mbox"

# a broken follow-up template: queue refuses what send would refuse
printf '{{<followup}}\n{{$intro}}\n{{> nowhere}}\n{{/intro}}\n{{/followup}}\n' >"$tmp/lab/mine-followup.txt"
cp "$top/config/demo-report.json" "$tmp/c.json"
"$bin" --config "$tmp/conf" queue "$tmp/c.json" >/dev/null 2>"$tmp/err"
check_eq "queue refuses a follow-up send could not render (exit 65)" 65 $?
check "it names the missing partial" grep -q "no partial 'nowhere'" "$tmp/err"
check "the refused file stays where it was" test -f "$tmp/c.json"
"$bin" --config "$tmp/conf" queue "$tmp/next.json" >/dev/null 2>"$tmp/err"
check_eq "a new report (another tree family) is taken (exit 0)" 0 $?

# a comparison of a report that was closed is set aside, not an error
"$bin" --config "$tmp/conf" outbox hold 1 >/dev/null 2>&1	# nothing due: no server needed
"$bin" --config "$tmp/conf" report 1 --state invalid --why "a noisy machine" >/dev/null 2>&1
check_eq "the operator closes report 1" 0 $?
cp "$top/config/demo-report.json" "$tmp/d.json"
"$bin" --config "$tmp/conf" send "$tmp/d.json" >/dev/null 2>"$tmp/err"
check_eq "send of a comparison of the closed report: exit 0, not 65" 0 $?
check "it is set aside with the reason" grep -q "^set aside .*d.json: report <.*> was closed as invalid" "$tmp/err"
check "the summary counts it apart" grep -q "0 refused, 1 set aside" "$tmp/err"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
