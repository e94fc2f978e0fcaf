#!/bin/sh
# closed.sh: a closed report gets no follow-up, however long its thread is
# (perfbot-send(1), perfbot-queue(1), perfbot-report(1)), with the real
# binary and the scripted SMTP peer (tests/helpers/smtp-peer.py).
#   - a report and its follow-up are sent; the report is closed by
#     perfbot report --state, by a Closes: commit that perfbot track finds,
#     by #perfbot invalid in a reply to the follow-up, or by #perfbot dup-of;
#     then a third comparison of the same thing is refused by queue (exit
#     65) and set aside by send (exit 0, counted apart), whatever mail of
#     the thread it would answer, and the peer gets nothing more;
#   - a follow-up already queued when its report is closed is not sent:
#     send skips it with one line, status says why it waits, and it goes
#     once the report is reopened.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
golden_start

smtp_peer_start "$tmp/peer"
port=$peer_port
messages() { ls "$tmp/peer.out" | grep -c '\.raw$'; }

# config NAME [LINE...]: $tmp/NAME.conf with state $tmp/NAME, LINEs added to [perfbot]
config() {
	cname=$1
	shift
	{
		sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/$cname|" "$top/tests/golden/config"
		printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$port"
		printf '[perfbot]\n'
		for line in "$@"; do printf '\t%s\n' "$line"; done
	} >"$tmp/$cname.conf"
}

# Three comparisons of one thing (a, b, c: the same tree, head, testcase
# and headline), and one of another thing (other: the second test first).
python3 - "$top/tests/golden/improvement-derived-kind/input.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
one = dict(d, tests=[d["tests"][0]])
for name in "abc":
    json.dump(one, open("%s/%s.json" % (sys.argv[2], name), "w"))
json.dump(dict(d, tests=[d["tests"][1]]), open("%s/other.json" % sys.argv[2], "w"))
PY

# json NAME EXPR: EXPR of NAME's status --json (as d; r(N) is report N)
json() {
	"$perfbot" --config "$tmp/$1.conf" status --json |
		python3 -c "import json,sys; d=json.load(sys.stdin); r=lambda n: [x for x in d['reports'] if x['id'] == n][0]; print($2)"
}

# reply FROM MID TEXT: a reply to MID, as an mbox
reply() {
	printf 'From %s Wed Feb 25 10:00:00 2026\n' "$1"
	printf 'From: Jose <%s>\nTo: perfbot lab <perfbot@lab.example.org>\n' "$1"
	printf 'Subject: Re: the follow-up\nDate: Wed, 25 Feb 2026 10:00:00 +0000\n'
	printf 'Message-ID: <reply-%s@example.org>\n' "$(echo "$3" | cksum | cut -d' ' -f1)"
	printf 'In-Reply-To: <%s>\nReferences: <%s>\n\n%s\n\n' "$2" "$2" "$3"
}

# closed_case NAME STATE: report 1 and its follow-up are sent, close_NAME
# closes the report (as STATE), then a third comparison gets nothing
closed_case() {
	k=$1
	want=$2
	config "$k"
	c="$tmp/$k.conf"
	before=$(messages)
	extra=0
	"$perfbot" --config "$c" send "$tmp/a.json" 2>"$tmp/$k.1.log"
	PERFBOT_NOW=$((now + 60)) "$perfbot" --config "$c" send "$tmp/b.json" 2>"$tmp/$k.2.log"
	check_eq "$k: the report and its follow-up are sent" "sent report sent follow-up $((before + 2))" \
		"$(sed -n 's/^\(sent [a-z-]*\) .*/\1/p' "$tmp/$k.1.log" "$tmp/$k.2.log" | tr '\n' ' ')$(messages)"
	report_mid=$(json "$k" 'r(1)["message_id"]')
	followup_mid=$(json "$k" 'r(2)["message_id"]')
	"close_$k"
	check_eq "$k: the report is $want" "$want" "$(json "$k" 'r(1)["state"]')"

	mkdir -p "$tmp/$k.in"
	cp "$tmp/c.json" "$tmp/$k.in/c.json"
	PERFBOT_NOW=$((now + 120)) "$perfbot" --config "$c" queue "$tmp/$k.in/c.json" 2>"$tmp/$k.q.log"
	check_eq "$k: queue refuses a comparison of the closed report (exit 65)" 65 $?
	check "$k: ... saying the report was closed" \
		grep -q "c.json: report <$report_mid> was closed as $want" "$tmp/$k.q.log"
	check "$k: ... and leaves the file where it was" test -f "$tmp/$k.in/c.json"

	PERFBOT_NOW=$((now + 120)) "$perfbot" --config "$c" send "$tmp/$k.in/c.json" 2>"$tmp/$k.s.log"
	check_eq "$k: send sets it aside, exit 0" 0 $?
	check "$k: ... with the report's reason" \
		grep -q "^set aside .*c.json: report <$report_mid> was closed as $want" "$tmp/$k.s.log"
	check "$k: ... counted apart" grep -q " 0 refused, 1 set aside" "$tmp/$k.s.log"
	mkdir -p "$tmp/$k/spool/incoming"
	cp "$tmp/c.json" "$tmp/$k/spool/incoming/20260225061320-1-0-c.json"
	PERFBOT_NOW=$((now + 180)) "$perfbot" --config "$c" send --flush 2>"$tmp/$k.f.log"
	check_eq "$k: a spool file of it is set aside too, exit 0" 0 $?
	check "$k: ... to spool/rejected with its .why" \
		grep -q "was closed as $want" "$tmp/$k/spool/rejected/20260225061320-1-0-c.json.why"
	check_eq "$k: no third mail: the thread holds one follow-up, the peer got nothing more" \
		"1 $((before + 2 + extra))" "$(json "$k" 'r(1)["followups"]') $(messages)"
}

close_report() {
	"$perfbot" --config "$c" report 1 --state invalid --why "noise" >/dev/null
}

close_track() {
	# a Closes: trailer naming the report, on the watched ref of its tree
	fix=$(GIT_AUTHOR_DATE="@$((now + 90)) +0000" GIT_COMMITTER_DATE="@$((now + 90)) +0000" \
		git -C "$tmp/repo" -c user.name=Fixer -c user.email=fixer@example.org commit-tree -p HEAD \
		-m "sched: fix the latency" -m "Closes: https://lore.kernel.org/all/$report_mid/" "HEAD^{tree}")
	git -C "$tmp/repo" update-ref refs/remotes/linux-next/master "$fix"
	PERFBOT_NOW=$((now + 100)) "$perfbot" --config "$c" track 2>"$tmp/track.track.log"
	check "track: the Closes: commit fixes the report" grep -q "fixed" "$tmp/track.track.log"
}

close_mail() {
	# #perfbot invalid in a reply to the follow-up, from a recipient
	reply jose@example.org "$followup_mid" "Noise.

#perfbot invalid" >"$tmp/mail.mbox"
	PERFBOT_NOW=$((now + 100)) "$perfbot" --config "$c" ingest --mbox "$tmp/mail.mbox" 2>"$tmp/mail.ingest.log"
}

close_dup() {
	# another report first, then dup-of it in a reply to the follow-up
	PERFBOT_NOW=$((now + 80)) "$perfbot" --config "$c" send "$tmp/other.json" 2>/dev/null
	extra=1
	other_mid=$(json dup 'r(3)["message_id"]')
	reply jose@example.org "$followup_mid" "The same as the other one.

#perfbot dup-of: <$other_mid>" >"$tmp/dup.mbox"
	PERFBOT_NOW=$((now + 100)) "$perfbot" --config "$c" ingest --mbox "$tmp/dup.mbox" 2>"$tmp/dup.ingest.log"
}

closed_case report invalid
closed_case track fixed
closed_case mail invalid
closed_case dup duplicate

# A follow-up queued before its report was closed is not sent; reopened,
# the report lets it go.
config queued
config queued-paused "paused = true"
sed -i "s|$tmp/queued-paused|$tmp/queued|" "$tmp/queued-paused.conf"
c=$tmp/queued.conf
before=$(messages)
"$perfbot" --config "$c" send "$tmp/a.json" 2>/dev/null
PERFBOT_NOW=$((now + 60)) "$perfbot" --config "$tmp/queued-paused.conf" send "$tmp/b.json" 2>/dev/null
check_eq "queued: the follow-up waits in the outbox" "followup queued $((before + 1))" \
	"$(json queued 'r(2)["kind"] + " " + r(2)["status"]') $(messages)"
"$perfbot" --config "$c" report 1 --state invalid >/dev/null
PERFBOT_NOW=$((now + 120)) "$perfbot" --config "$c" send 2>"$tmp/queued.log"
check_eq "queued: send exits 0" 0 $?
check_eq "queued: the follow-up of the closed report is not sent" "queued $((before + 1))" \
	"$(json queued 'r(2)["status"]') $(messages)"
check "queued: one line says it was skipped, and why" \
	grep -q "^follow-ups of a closed report: 1 mail skipped (2; they go if the report is reopened" "$tmp/queued.log"
check_eq "queued: status --json says why it waits" "report-closed" "$(json queued 'r(2)["waiting"]["reason"]')"
"$perfbot" --config "$c" status >"$tmp/queued.status"
check "queued: status says it in words" grep -q "skipped: report 1, which it follows up, is invalid (it goes if reopened)" "$tmp/queued.status"
"$perfbot" --config "$c" outbox >"$tmp/queued.outbox"
check "queued: the outbox listing says why it waits" grep -q "report 1, which it follows up, is invalid" "$tmp/queued.outbox"
"$perfbot" --config "$c" report 1 --state open >/dev/null
PERFBOT_NOW=$((now + 180)) "$perfbot" --config "$c" send 2>"$tmp/queued2.log"
check_eq "queued: reopened, the report lets its follow-up go" "sent $((before + 2))" \
	"$(json queued 'r(2)["status"]') $(messages)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
