#!/bin/sh
# order.sh: a mail that answers another goes out only after the server
# accepted that one for a recipient (perfbot-send(1), ORDER), against the
# scripted SMTP peer (tests/helpers/smtp-peer.py), whose messages are
# checked in the order it took them:
#   1. a report and two follow-ups queued together go in one send, in
#      order, each answering the one before;
#   2. the report deferred (4xx): none of its follow-ups goes, status says
#      what each waits for; after the back-off the three go in one run;
#   3. a follow-up refused by every recipient (5xx): the next follow-up
#      does not go in its place, and from then on answers the report
#      (In-Reply-To, References, the archived bytes), Message-ID kept;
#   4. follow-ups dropped with `outbox drop`: the next one answers the
#      nearest mail of the thread that went, at once (status says which);
#   5. a report refused by every recipient: its follow-up waits (status
#      says how to retry it), and goes after it once `outbox retry` sends it;
#   6. a run killed while the report's DATA waits for the server's answer
#      (pending): its follow-up did not go, and the next run sends both in
#      order;
#   7. a digest whose previous digest was refused by everyone starts a
#      thread of its own instead of answering it;
#   8. a fix notice (perfbot track) answers a report that went: none is
#      queued for a report refused by everyone.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
golden_start

# config STATE [LINE...]: sending to the peer, LINEs added to [perfbot]
config() {
	state=$1
	shift
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$state|" "$top/tests/golden/config"
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$peer_port"
	printf '[digest]\n\tto = lead@example.org\n'
	printf '[perfbot]\n\tretryMinutes = 5\n\tcoalesceMinutes = 30\n'
	for line in "$@"; do printf '\t%s\n' "$line"; done
}

# peer ARGS...: a new peer writing to $out ($tmp/peer.N.out), sets peer_port
peer_n=0
peer() {
	peer_n=$((peer_n + 1))
	out=$tmp/peer.$peer_n.out
	smtp_peer_start "$tmp/peer.$peer_n" --transcript "$out/transcript" "$@"
}
peer_stop() { kill "$peer_pid" 2>/dev/null; wait "$peer_pid" 2>/dev/null; }

# header NAME N: header NAME of the current peer's message N (unfolded)
header() {
	python3 - "$out/$2.raw" "$1" <<'PY'
import email.parser, sys
try:
    raw = open(sys.argv[1], "rb").read()
except OSError:
    print("(no message)")
    sys.exit()
m = email.parser.BytesParser().parsebytes(raw, headersonly=True)
print(" ".join((m.get(sys.argv[2]) or "").split()))
PY
}
# ids: the Message-IDs of the current peer's messages, in order
ids() {
	for f in $(ls "$out" | grep '\.raw$' | sort -n); do header Message-ID "${f%.raw}"; done | tr '\n' ' '
}

# order_ok DIR...: every message the peers in DIRs accepted (in that
# order) answers nothing, or a message accepted before it
order_ok() { python3 "$top/tests/helpers/order-check.py" "$@"; }

# json EXPR: EXPR of status --json (d; rs the reports)
json() {
	"$perfbot" --config "$tmp/c" status --json |
		python3 -c "import json,sys; d=json.load(sys.stdin); rs=d['reports']; print($1)"
}
mid() { json "rs[$(($1 - 1))]['message_id']"; }

# Three comparisons of the same head, test and headline: a report and
# two follow-ups when they arrive one after the other.
python3 - "$top/tests/golden/improvement-derived-kind/input.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tests"] = [d["tests"][0]]
for n in ("a", "b", "c", "e", "f"):
    json.dump(d, open("%s/%s.json" % (sys.argv[2], n), "w"))
PY

# queue_chain STATE N: report 1 and follow-ups 2..N queued (paused), one a
# minute, through the spool as a lab's pipeline queues them
queue_chain() {
	config "$1" "paused = true" >"$tmp/c"
	i=1
	for f in a b c e f; do
		[ $i -le "$2" ] || break
		cp "$tmp/$f.json" "$tmp/queued-$f.json"
		PERFBOT_NOW=$((now + 60 * (i - 1))) "$perfbot" --config "$tmp/c" queue "$tmp/queued-$f.json" >/dev/null 2>&1
		touch -d "@$((now + 60 * (i - 1) - 1900))" "$1/spool/incoming"/*
		PERFBOT_NOW=$((now + 60 * (i - 1))) "$perfbot" --config "$tmp/c" send 2>>"$tmp/queue.log"
		i=$((i + 1))
	done
}

# 1. a chain in one run
peer
queue_chain "$tmp/s1" 3
check_eq "three comparisons of one head: a report and two follow-ups" "report:None followup:1 followup:2" \
	"$(json '" ".join("%s:%s" % (r["kind"], r["parent"]) for r in rs)')"
config "$tmp/s1" >"$tmp/c"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log1"
check_eq "one send delivers the three (exit 0)" 0 $?
check_eq "... in order" "<$(mid 1)> <$(mid 2)> <$(mid 3)> " "$(ids)"
check_eq "... the first follow-up answers the report" "<$(mid 1)>" "$(header In-Reply-To 2)"
check_eq "... the second answers the first" "<$(mid 2)>" "$(header In-Reply-To 3)"
check_eq "... References: the thread" "<$(mid 1)> <$(mid 2)>" "$(header References 3)"
check "... each answers a mail the server took before it" order_ok "$out"
check_eq "... all sent" "sent sent sent" "$(json '" ".join(r["status"] for r in rs)')"
peer_stop

# 2. the report deferred: none of its follow-ups goes
peer --mail-reply "451 4.3.0 try later"
queue_chain "$tmp/s2" 3
config "$tmp/s2" >"$tmp/c"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log2"
check_eq "the report deferred: exit 75" 75 $?
check_eq "... one MAIL: none of its follow-ups went" 1 "$(grep -c '^C: MAIL FROM' "$out/transcript")"
check "... the log says they wait" grep -q "^follow-ups whose parent did not go in this run: 2 mails skipped (2, 3;" "$tmp/log2"
check_eq "... status: queued, each follow-up waits for its parent" \
	"queued back-off|queued parent|queued parent" \
	"$(PERFBOT_NOW=$((now + 600)) json '"|".join(r["status"] + " " + r["waiting"]["reason"] for r in rs)')"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" status >"$tmp/st2"
check "... human status: waiting for the mail it answers" grep -q "waiting for 2, the mail it answers, to go first" "$tmp/st2"
check "... human status: which mail it answers" grep -q "answers follow-up 2 <$(mid 2)>" "$tmp/st2"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>/dev/null
check_eq "... in its back-off nothing goes" 1 "$(grep -c '^C: MAIL FROM' "$out/transcript")"
peer_stop
peer
config "$tmp/s2" >"$tmp/c"
PERFBOT_NOW=$((now + 900)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log2b"
check_eq "after the back-off the three go in one run, in order" "<$(mid 1)> <$(mid 2)> <$(mid 3)> " "$(ids)"
peer_stop

# 3. a follow-up refused by every recipient: the next one answers the report
peer
queue_chain "$tmp/s3" 1
config "$tmp/s3" >"$tmp/c"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>/dev/null
first=$out
peer_stop
config "$tmp/s3" "paused = true" >"$tmp/c"
for f in b c; do
	PERFBOT_NOW=$((now + 700)) "$perfbot" --config "$tmp/c" send "$tmp/$f.json" 2>/dev/null
	now=$((now + 60))
done
now=1772000000
check_eq "two follow-ups queued under the sent report" "followup:1 followup:2" \
	"$(json '" ".join("%s:%s" % (r["kind"], r["parent"]) for r in rs[1:])')"
f3=$(mid 3)
peer --mail-reply "554 5.7.1 refused"
config "$tmp/s3" >"$tmp/c"
PERFBOT_NOW=$((now + 900)) "$perfbot" --config "$tmp/c" send --dry-run >"$tmp/before3.mbox" 2>/dev/null
PERFBOT_NOW=$((now + 900)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log3"
check_eq "follow-up 2 refused by everyone: one MAIL, 3 did not go" 1 "$(grep -c '^C: MAIL FROM' "$out/transcript")"
check "... the log says 3 now answers the report" \
	grep -q "^follow-up 3 <$f3> now answers 1 <$(mid 1)> in place of 2, which was refused by every recipient" "$tmp/log3"
check_eq "... status: 2 failed, 3 answers the report" "failed|followup 1" \
	"$(json 'rs[1]["status"] + "|" + rs[2]["kind"] + " " + str(rs[2]["parent"])')"
"$perfbot" --config "$tmp/c" status >"$tmp/st3"
check "... human status says which mail it answers" grep -q "answers report 1 <$(mid 1)>" "$tmp/st3"
check_eq "... its Message-ID kept" "$f3" "$(mid 3)"
peer_stop
peer
config "$tmp/s3" >"$tmp/c"
PERFBOT_NOW=$((now + 1200)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log3b"
check_eq "the next send: 3 goes" "<$f3> " "$(ids)"
check_eq "... In-Reply-To the report" "<$(mid 1)>" "$(header In-Reply-To 1)"
check_eq "... References the report" "<$(mid 1)>" "$(header References 1)"
check "... it answers a mail the server took before it" order_ok "$first" "$out"
"$perfbot" --config "$tmp/c" thread --mbox 1 >"$tmp/thread3.mbox" 2>/dev/null
check "... the archive has it as it went" python3 - "$tmp/thread3.mbox" "$f3" "$(mid 1)" <<'PY'
import mailbox, sys
found = [m for m in mailbox.mbox(sys.argv[1]) if (m["Message-ID"] or "").strip() == "<%s>" % sys.argv[2]]
sys.exit(not (len(found) == 1 and found[0]["In-Reply-To"].strip() == "<%s>" % sys.argv[3]
              and " ".join(found[0]["References"].split()) == "<%s>" % sys.argv[3]))
PY
check "... every other byte is what was queued" python3 - "$tmp/before3.mbox" "$out/1.raw" "$f3" <<'PY'
import mailbox, re, sys
def strip(b):
    head, _, body = b.partition(b"\n\n")
    head = re.sub(rb"(?mi)^(in-reply-to|references):.*\n([ \t].*\n)*", b"", head + b"\n")
    return head + b"\n" + body
queued = [m.as_bytes() for m in mailbox.mbox(sys.argv[1]) if (m["Message-ID"] or "").strip() == "<%s>" % sys.argv[3]]
sent = open(sys.argv[2], "rb").read().replace(b"\r\n", b"\n")
sent = re.sub(rb"(?m)^\.\.", b".", sent)
sys.exit(not (len(queued) == 1 and strip(queued[0]).rstrip(b"\n") == strip(sent).rstrip(b"\n")))
PY
peer_stop

# 4. follow-ups dropped: the next one answers the nearest mail that went
peer
queue_chain "$tmp/s4" 1
config "$tmp/s4" >"$tmp/c"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>/dev/null
first=$out
peer_stop
config "$tmp/s4" "paused = true" >"$tmp/c"
for f in b c e; do
	PERFBOT_NOW=$((now + 700)) "$perfbot" --config "$tmp/c" send "$tmp/$f.json" 2>/dev/null
	now=$((now + 60))
done
now=1772000000
check_eq "three follow-ups in a chain under the sent report" "1 2 3" \
	"$(json '" ".join(str(r["parent"]) for r in rs[1:])')"
"$perfbot" --config "$tmp/c" outbox drop 2 3 --why "stale" >/dev/null 2>"$tmp/log4"
check_eq "outbox drop 2 3: exit 0" 0 $?
check "... says that 4 now answers the report" grep -q "^follow-up 4 <$(mid 4)> now answers 1 <$(mid 1)> in place of 3, which was dropped" "$tmp/log4"
config "$tmp/s4" >"$tmp/c"
check_eq "... status: 4's parent is the report" 1 "$(json 'rs[3]["parent"]')"
check_eq "... it goes at the next send" due "$(json 'rs[3]["waiting"]["reason"]')"
peer
config "$tmp/s4" >"$tmp/c"
PERFBOT_NOW=$((now + 900)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log4b"
check_eq "the next send: 4 alone goes" "<$(mid 4)> " "$(ids)"
check_eq "... In-Reply-To the report" "<$(mid 1)>" "$(header In-Reply-To 1)"
check_eq "... References the report" "<$(mid 1)>" "$(header References 1)"
check "... it answers a mail the server took before it" order_ok "$first" "$out"
peer_stop

# 5. the report refused by every recipient: its follow-up waits for it
peer --mail-reply "550 5.7.1 no"
queue_chain "$tmp/s5" 2
config "$tmp/s5" >"$tmp/c"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log5"
check_eq "the report refused: one MAIL, the follow-up did not go" 1 "$(grep -c '^C: MAIL FROM' "$out/transcript")"
PERFBOT_NOW=$((now + 9000)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log5b"
check_eq "... nor at the next send" 1 "$(grep -c '^C: MAIL FROM' "$out/transcript")"
check_eq "... status: failed, the follow-up waits for it" "failed parent" \
	"$(json 'rs[0]["status"] + " " + rs[1]["waiting"]["reason"]')"
"$perfbot" --config "$tmp/c" status >"$tmp/st5"
check "... human status says how to send it" grep -q "refused by every recipient: .perfbot outbox retry 1. tries it again" "$tmp/st5"
peer_stop
peer
config "$tmp/s5" >"$tmp/c"
"$perfbot" --config "$tmp/c" outbox retry 1 >/dev/null 2>&1
PERFBOT_NOW=$((now + 9000)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log5c"
check_eq "outbox retry 1: the report, then its follow-up, in one run" "<$(mid 1)> <$(mid 2)> " "$(ids)"
check "... in order" order_ok "$out"
peer_stop

# 6. killed while the report's end of DATA waits for an answer: pending
peer --end-reply silent
queue_chain "$tmp/s6" 2
config "$tmp/s6" >"$tmp/c"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>/dev/null &
send_pid=$!
i=0
while ! grep -q "^DATA: " "$out/transcript" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 "$send_pid" 2>/dev/null
wait "$send_pid" 2>/dev/null
check_eq "killed during the report's DATA: the follow-up did not go" 1 "$(grep -c '^C: MAIL FROM' "$out/transcript")"
check_eq "... status: the report's recipients pending, the follow-up waits" "pending parent" \
	"$(json 'rs[0]["recipients"][0]["status"] + " " + rs[1]["waiting"]["reason"]')"
peer_stop
peer
config "$tmp/s6" >"$tmp/c"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log6"
check_eq "the next run: the report again, then its follow-up" "<$(mid 1)> <$(mid 2)> " "$(ids)"
peer_stop

# 7. a digest after one refused by everyone starts its own thread
peer --mail-reply "550 5.7.1 no"
config "$tmp/s7" >"$tmp/c"
"$perfbot" --config "$tmp/c" digest --force >/dev/null 2>&1
"$perfbot" --config "$tmp/c" send 2>/dev/null
peer_stop
PERFBOT_NOW=$((now + 86400)) "$perfbot" --config "$tmp/c" digest --force >/dev/null 2>&1
check_eq "a second digest is queued under the refused one" "failed digest:1" \
	"$(json 'rs[0]["status"] + " " + rs[1]["kind"] + ":" + str(rs[1]["parent"])')"
peer
config "$tmp/s7" >"$tmp/c"
PERFBOT_NOW=$((now + 86400)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log7"
check_eq "... it goes" "<$(mid 2)> " "$(ids)"
check_eq "... answering nothing" "|" "$(header In-Reply-To 1)|$(header References 1)"
check "... the log says so" grep -q "^digest 2 <$(mid 2)> now starts a thread of its own" "$tmp/log7"
check_eq "... status: no parent" None "$(json 'rs[1]["parent"]')"
peer_stop

# 8. a fix notice answers a report that went: track queues none for a
#    report refused by everyone
peer --mail-reply "550 5.7.1 no"
queue_chain "$tmp/s8" 1
config "$tmp/s8" "announceFixes = true" >"$tmp/c"
PERFBOT_NOW=$((now + 600)) "$perfbot" --config "$tmp/c" send 2>/dev/null
peer_stop
head=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["commit"])' "$tmp/a.json")
fix=$(printf 'fix it\n\nCloses: https://lore.kernel.org/all/%s\n' "$(mid 1)" |
	GIT_AUTHOR_DATE="@$((now + 700)) +0000" GIT_COMMITTER_DATE="@$((now + 700)) +0000" \
	git -C "$tmp/repo" commit-tree "$(git -C "$tmp/repo" rev-parse "$head^{tree}")" -p "$head")
git -C "$tmp/repo" update-ref refs/remotes/linux-next/master "$fix"
PERFBOT_NOW=$((now + 800)) "$perfbot" --config "$tmp/c" track --since 2026-01-01 2>"$tmp/track8"
check "a fix of the refused report: track says no notice" grep -q "^no notice for report 1 .*: it is failed, not sent" "$tmp/track8"
check_eq "... and queues none" 1 "$(json 'len(rs)')"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
