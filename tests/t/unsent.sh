#!/bin/sh
# unsent.sh: a reply is never dropped because perfbot has not yet recorded
# its parent as sent (perfbot-ingest(1)), with the real binary, the
# scripted SMTP peer (tests/helpers/smtp-peer.py) and public-inbox.
# Every mail perfbot minted and stored is known; a reply to it is kept,
# threaded, archived and its #perfbot commands applied as for a sent mail:
#   1. a report queued and not sent (perfbot.paused): the reply is kept in
#      its thread, its command applied, status and thread show it; archived
#      before the report, it is threaded by public-inbox under the report
#      once the report is sent and archived;
#   2. the server takes the DATA and the connection is cut before its
#      reply (recipients deferred, "may or may not have been delivered"):
#      the reply is kept; a copy of the report coming back from a list is
#      known already and not archived in its place;
#   3. the run is killed (kill -9) after the server took the DATA and
#      before its reply came (recipients pending): the reply is kept, and
#      the next send delivers the report into the reply's thread.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
skip=0
golden_start
python3 - "$top/tests/golden/improvement-derived-kind/input.json" "$tmp/p1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(dict(d, tests=[d["tests"][0]]), open(sys.argv[2], "w"))
PY

# peer NAME ARGS...: a scripted peer writing into $tmp/NAME.out; its port in $port
peer() {
	pname=$1
	shift
	smtp_peer_start "$tmp/$pname" --transcript "$tmp/$pname.out/transcript" "$@"
	port=$peer_port
}

# config STATE PORT [LINE...]: $tmp/c, LINEs added to [perfbot]
config() {
	{
		sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$1|" "$top/tests/golden/config"
		printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 20\n' "$2"
		printf '[perfbot]\n'
		shift 2
		for line in "$@"; do printf '\t%s\n' "$line"; done
	} >"$tmp/c"
}
pb() { "$perfbot" --config "$tmp/c" "$@"; }
json() { pb status --json | python3 -c "import json,sys; d=json.load(sys.stdin); r=d['reports'][0]; print($1)"; }
tjson() { pb thread --json "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"; }

# reply MAILDIR N PARENT TEXT: reply N to PARENT, from a recipient, into MAILDIR/new
reply() {
	mkdir -p "$1/new" "$1/cur" "$1/tmp"
	cat >"$1/new/$2.local" <<MAIL
From: Jose <jose@example.org>
To: perfbot lab <perfbot@lab.example.org>
Subject: Re: the report
Message-ID: <reply-$2@example.org>
In-Reply-To: <$3>
References: <$3>
Date: Wed, 25 Feb 2026 10:00:00 +0000

$4
MAIL
}

# pi STATE: public-inbox-index on STATE's archive; prints its "MESSAGES|THREADS"
pi() { sh "$top/tests/helpers/pi-check.sh" "$1/archive" 2>&1; }
archived() { git --git-dir="$1/archive/git/0.git" rev-list --count master 2>/dev/null || echo 0; }

# 1. a report queued, not sent
peer ok
config "$tmp/s1" "$port" "paused = true"
pb send "$tmp/p1.json" 2>"$tmp/1.send.log"
mid=$(json 'r["message_id"]')
check_eq "queued: the report waits (paused)" "queued" "$(json 'r["status"]')"
reply "$tmp/md1" 1 "$mid" "Noise, I think.

#perfbot invalid"
pb ingest --maildir "$tmp/md1" 2>"$tmp/1.ingest.log"
check_eq "queued: ingest exits 0" 0 $?
check "queued: the reply is kept in the report's thread" \
	grep -q "<reply-1@example.org> kept in the thread of report 1" "$tmp/1.ingest.log"
check "queued: its command is applied" grep -q "report 1 is now invalid: #perfbot invalid by Jose" "$tmp/1.ingest.log"
check_eq "queued: status counts the reply and the state" "1 invalid" "$(json 'str(r["replies"]) + " " + r["state"]')"
check_eq "queued: thread --json of the reply: the report is the root, not sent yet" \
	"$mid True reply-1@example.org 1 $mid" \
	"$(tjson '<reply-1@example.org>' 'd["root"], d["messages"][0]["unsent"], d["messages"][1]["message_id"], d["messages"][1]["depth"], d["messages"][1]["parent"]' | tr -d "(),'")"
pb thread 1 >"$tmp/1.thread"
check "queued: the overview marks the report not sent yet" grep -q "\[linux-next:master\].*\[not sent yet\]$" "$tmp/1.thread"
check "queued: ... and the reply under it" grep -q "\` Jose  Re: the report$" "$tmp/1.thread"
check_eq "queued: the reply is archived, the report not yet" 1 "$(archived "$tmp/s1")"
out=$(pi "$tmp/s1")
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "skip: public-inbox-index is not installed"
	skip=$((skip + 1))
else
	check_eq "queued: public-inbox indexes the reply alone" "0:1|1" "$rc:$out"
fi
config "$tmp/s1" "$port"
PERFBOT_NOW=$((now + 60)) pb send 2>"$tmp/1.send2.log"
check_eq "queued: unpaused, the report is sent" "sent" "$(json 'r["status"]')"
check_eq "queued: the archive holds both" 2 "$(archived "$tmp/s1")"
check_eq "queued: thread --json: the report is sent now" "False True" \
	"$(tjson 1 'd["messages"][0]["unsent"], d["messages"][0]["archived"]' | tr -d "(),'")"
if [ "$rc" -ne 77 ]; then
	out=$(pi "$tmp/s1")
	check_eq "queued: public-inbox indexes the report after its reply: 2 mails, 1 thread" "0:2|1" "$?:$out"
	sh "$top/tests/helpers/pi-thread.sh" "$tmp/s1/archive" "reply-1@example.org" >"$tmp/1.pi-thread"
	check_eq "queued: public-inbox's reader: the reply's thread holds the report and the reply" 2 \
		"$(head -n 1 "$tmp/1.pi-thread")"
	check "queued: ... the report among them" grep -q "^\[linux-next:master\]" "$tmp/1.pi-thread"
fi
kill "$peer_pid" 2>/dev/null

# 2. the connection is cut after the server took the DATA
peer cut --end-reply drop
config "$tmp/s2" "$port"
pb send "$tmp/p1.json" 2>"$tmp/2.send.log"
check_eq "cut: send exits 75" 75 $?
check "cut: the server had the data" test -s "$tmp/cut.out/1.raw"
mid=$(json 'r["message_id"]')
check_eq "cut: every recipient deferred" "deferred deferred deferred deferred" \
	"$(json '" ".join(x["status"] for x in r["recipients"])')"
reply "$tmp/md2" 2 "$mid" "Thanks, looking.

#perfbot dup-of: <nothing@example.org>"
# the list sends the report back before perfbot knows it went
tr -d '\r' <"$tmp/cut.out/1.raw" >"$tmp/md2/new/0.list-copy"
pb ingest --all --maildir "$tmp/md2" 2>"$tmp/2.ingest.log"
check_eq "cut: ingest exits 0" 0 $?
check "cut: the reply is kept in the report's thread" \
	grep -q "<reply-2@example.org> kept in the thread of report 1" "$tmp/2.ingest.log"
check "cut: its command is recorded, with why it was not applied" \
	grep -q "report 1: #perfbot dup-of nothing@example.org by Jose <jose@example.org> not applied" "$tmp/2.ingest.log"
check "cut: the list's copy of the report is known already" grep -q " 1 known already" "$tmp/2.ingest.log"
check_eq "cut: only the reply is archived (delivery archives the report's own bytes)" 1 "$(archived "$tmp/s2")"
kill "$peer_pid" 2>/dev/null
peer ok2
config "$tmp/s2" "$port"
PERFBOT_NOW=$((now + 300)) pb send 2>"$tmp/2.send2.log"
check_eq "cut: the next send delivers the report again, exit 0" "0 sent" "$? $(json 'r["status"]')"
check_eq "cut: the archive holds the report and the reply, once each" 2 "$(archived "$tmp/s2")"
check_eq "cut: thread --json of the reply: 2 mails, the reply under the report" \
	"2 $mid 1" "$(tjson '<reply-2@example.org>' 'len(d["messages"]), d["messages"][1]["parent"], d["messages"][1]["depth"]' | tr -d "(),'")"
kill "$peer_pid" 2>/dev/null

# 3. kill -9 after the server took the DATA, before its reply came
peer silent --end-reply silent
config "$tmp/s3" "$port"
"$perfbot" --config "$tmp/c" send "$tmp/p1.json" 2>"$tmp/3.send.log" &
send_pid=$!
i=0
while ! grep -q '^DATA: ' "$tmp/silent.out/transcript" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 "$send_pid" 2>/dev/null
wait "$send_pid" 2>/dev/null
kill "$peer_pid" 2>/dev/null
check "killed: the server had the data when send was killed" grep -q '^DATA: ' "$tmp/silent.out/transcript"
mid=$(sed -n 's/^Message-ID: <\(.*\)>.*/\1/Ip' "$tmp/silent.out/1.raw" | tr -d '\r')
check_eq "killed: the report is left sending, its recipients pending" "$mid queued pending pending pending pending" \
	"$(json 'r["message_id"] + " " + r["status"] + " " + " ".join(x["status"] for x in r["recipients"])')"
reply "$tmp/md3" 3 "$mid" "This one is real, thanks.

#perfbot invalid"
pb ingest --maildir "$tmp/md3" 2>"$tmp/3.ingest.log"
check_eq "killed: ingest exits 0" 0 $?
check "killed: the reply is kept in the report's thread" \
	grep -q "<reply-3@example.org> kept in the thread of report 1" "$tmp/3.ingest.log"
check_eq "killed: its command is applied" invalid "$(json 'r["state"]')"
peer ok3
config "$tmp/s3" "$port"
PERFBOT_NOW=$((now + 60)) pb send 2>"$tmp/3.send2.log"
check_eq "killed: the next send delivers the report" "0 sent" "$? $(json 'r["status"]')"
pb thread --json '<reply-3@example.org>' >"$tmp/3.thread.json"
check_eq "killed: thread --json '<reply>' exits 0" 0 $?
check_eq "killed: ... the reply under the report, both archived" "2 $mid 1 True True" \
	"$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); m=d['messages']; print(len(m), d['root'], m[1]['depth'], m[0]['archived'], m[1]['archived'])" "$tmp/3.thread.json")"
pb status >"$tmp/3.status"
check "killed: status shows the reply's command under the report" grep -q "#perfbot invalid by Jose <jose@example.org>" "$tmp/3.status"

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
