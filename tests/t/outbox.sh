#!/bin/sh
# outbox.sh: the operator's hands on the outbox, with the real binary and
# the scripted SMTP peer (tests/helpers/smtp-peer.py):
#   - perfbot outbox hold|release|retry|drop on a queued, deferred, failed,
#     sent, held and dropped mail: done (exit 0) or refused with a message
#     (exit 65), recorded as the operator's command;
#   - a held mail survives send (one line says it was skipped) and goes once
#     released; retry sends a deferred mail at once and re-opens a failed
#     one; a dropped mail is kept, bytes and all, and never sent;
#   - the outbox listing, IDs as Message-IDs, usage errors, a send running;
#   - perfbot report ID --state: recorded like a maintainer's command,
#     shown by status and thread, and a closed report gets no follow-up;
#   - send --flush ends the coalescing wait; queue --requeue takes a
#     rejected file back under its name, without its .why;
#   - kill -9 at random instants of outbox actions leaves the database
#     whole: integrity_check, each report in exactly one state, every
#     action that returned recorded.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
golden_start
me="operator ($(id -un))"

# peer NAME ARGS...: a scripted peer; its port in $tmp/NAME.port
peer() {
	name=$1
	shift
	smtp_peer_start "$tmp/$name" --transcript "$tmp/$name.out/transcript" "$@"
}
# Every recipient list (sorted Message-IDs) the ok peer took.
taken() { cat "$tmp/ok.out"/*.raw 2>/dev/null | sed -n 's/^Message-ID: <\(.*\)>.*/\1/Ip' | tr -d '\r' | sort | tr '\n' ' '; }

# config NAME PORT [LINE...]: $tmp/NAME, state $tmp/s, LINEs added to [perfbot]
config() {
	name=$1
	port=$2
	shift 2
	{
		sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/s|" "$top/tests/golden/config"
		printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$port"
		printf '[perfbot]\n\tretryMinutes = 5\n\tcoalesceMinutes = 30\n'
		for line in "$@"; do printf '\t%s\n' "$line"; done
	} >"$tmp/$name"
}

# The envelope of the generated comparisons: the author and the two Cc's.
peer ok
peer t451 --rcpt-reply "jose@example.org=451 4.3.0 later" \
	--rcpt-reply "perf-reports@lists.example.org=451 4.3.0 later" --rcpt-reply "Peterz@Example.org=451 4.3.0 later"
peer p550 --rcpt-reply "jose@example.org=550 5.1.1 no" \
	--rcpt-reply "perf-reports@lists.example.org=550 5.1.1 no" --rcpt-reply "Peterz@Example.org=550 5.1.1 no"
config c "$(cat "$tmp/ok.port")"
config c451 "$(cat "$tmp/t451.port")"
config c550 "$(cat "$tmp/p550.port")"
config paused "$(cat "$tmp/ok.port")" "paused = true"

# N comparisons $tmp/kI.json, one tree each (so none coalesces or follows up)
python3 - "$top/tests/golden/improvement-derived-kind/input.json" "$tmp" <<'PY'
import json, sys, copy
d = json.load(open(sys.argv[1]))
for i in range(60):
    e = copy.deepcopy(d)
    e["tests"] = [d["tests"][0]]
    e["tree"] = "lab%d/master" % i
    e["repo_url"] = "https://git.example.org/lab%d.git" % i
    json.dump(e, open("%s/k%d.json" % (sys.argv[2], i), "w"))
PY
n=0
# make STATE: a new report in that state; its id in $id
make() {
	f=$tmp/k$n.json
	n=$((n + 1))
	case $1 in
	queued|held|dropped) "$perfbot" --config "$tmp/paused" send "$f" 2>/dev/null ;;
	deferred) "$perfbot" --config "$tmp/c451" send "$f" 2>/dev/null ;;
	failed) "$perfbot" --config "$tmp/c550" send "$f" 2>/dev/null ;;
	sent) "$perfbot" --config "$tmp/c" send "$f" 2>/dev/null ;;
	esac
	id=$(json 'rs[-1]["id"]')
	case $1 in
	held) "$perfbot" --config "$tmp/c" outbox hold "$id" >/dev/null ;;
	dropped) "$perfbot" --config "$tmp/c" outbox drop --why "made so" "$id" >/dev/null ;;
	esac
}
# json EXPR: EXPR of status --json (as d; rs the reports; r(ID) one)
json() {
	"$perfbot" --config "$tmp/c" status --json | python3 -c "
import json,sys
d=json.load(sys.stdin); rs=d['reports']
def r(i): return [x for x in rs if x['id'] == int(i)][0]
print($1)"
}

"$perfbot" --config "$tmp/c" outbox >"$tmp/empty.txt"
check_eq "outbox with no state: empty, exit 0" "0 the outbox is empty: nothing queued, held, deferred or failed" \
	"$? $(cat "$tmp/empty.txt")"
"$perfbot" --config "$tmp/c" outbox hold 1 >/dev/null 2>"$tmp/nostate.err"
check_eq "an action with no state yet: exit 65, no state made" "65 no" "$? $(test -e "$tmp/s" && echo yes || echo no)"

# 1. every action on every state: done or refused, as the table says
while read -r state action want says after; do
	says=$(printf '%s' "$says" | tr _ ' ')
	[ "$says" = - ] && says=
	make "$state"
	before=$(json 'len(r('"$id"')["commands"])')
	if [ "$action" = drop ]; then
		"$perfbot" --config "$tmp/c" outbox drop --why "no longer wanted" "$id" >"$tmp/act.out" 2>"$tmp/act.err"
	else
		"$perfbot" --config "$tmp/c" outbox "$action" "$id" >"$tmp/act.out" 2>"$tmp/act.err"
	fi
	rc=$?
	got=$(json 'r('"$id"')["status"] + ("/held" if r('"$id"')["held"] else "")')
	cmds=$(json 'len(r('"$id"')["commands"])')
	if [ "$rc" != "$want" ]; then
		not_ok "outbox $action on a $state mail: exit $rc, want $want: $(cat "$tmp/act.err")"
	elif [ "$want" = 65 ] && ! grep -q "^perfbot outbox $action: report $id .*$says" "$tmp/act.err"; then
		not_ok "outbox $action on a $state mail: the message '$(cat "$tmp/act.err")' lacks '$says'"
	elif [ "$got" != "$after" ]; then
		not_ok "outbox $action on a $state mail: $got after it, want $after"
	elif [ "$want" = 0 ] && [ "$cmds" != $((before + 1)) ]; then
		not_ok "outbox $action on a $state mail: not recorded ($before, then $cmds commands)"
	elif [ "$want" = 65 ] && [ "$cmds" != "$before" ]; then
		not_ok "outbox $action on a $state mail: refused, yet recorded"
	else
		ok "outbox $action on a $state mail: exit $rc${says:+ ($says)}, then $got"
	fi
done <<'TABLE'
queued hold 0 - queued/held
queued release 65 is_not_held queued
queued retry 0 - queued
queued drop 0 - dropped
deferred hold 0 - queued/held
deferred release 65 is_not_held queued
deferred retry 0 - queued
deferred drop 0 - dropped
failed hold 65 failed_for_good failed
failed release 65 is_not_held failed
failed retry 0 - queued
failed drop 0 - dropped
sent hold 65 was_sent sent
sent release 65 is_not_held sent
sent retry 65 nothing_to_retry sent
sent drop 65 nothing_is_left_to_drop sent
held hold 65 held_already queued/held
held release 0 - queued
held retry 65 outbox_release queued/held
held drop 0 - dropped
dropped hold 65 was_dropped dropped
dropped release 65 was_dropped dropped
dropped retry 65 was_dropped dropped
dropped drop 65 was_dropped dropped
TABLE
# (the table's messages have '_' for ' ': read splits on spaces)
# clear what the table left due, so the next checks start from a quiet outbox
"$perfbot" --config "$tmp/c" send >/dev/null 2>&1

# 2. hold survives send; release lets it go
make queued
held_id=$id
held_mid=$(json 'r('"$id"')["message_id"]')
"$perfbot" --config "$tmp/c" outbox hold --why "waiting for the lab's ok" "$held_id" >"$tmp/h.out"
check_eq "hold: says so" "report $held_id held: it is not sent until released" "$(cat "$tmp/h.out")"
"$perfbot" --config "$tmp/c" send 2>"$tmp/hold.log"
check "hold survives send: not sent" sh -c "! echo '$(taken)' | grep -q '$held_mid'"
check "hold survives send: one line says it was skipped" grep -q "^held by the operator: [0-9]* mails\{0,1\} skipped (\(.*, \)\{0,1\}$held_id[,;]" "$tmp/hold.log"
check_eq "hold survives send: still held, with the reason" "True waiting for the lab's ok held" \
	"$(json 'str(r('"$held_id"')["held"]) + " " + r('"$held_id"')["mark_reason"] + " " + r('"$held_id"')["waiting"]["reason"]')"
"$perfbot" --config "$tmp/c" outbox >"$tmp/list.txt"
check "outbox lists the held mail with why" grep -q "held by the operator: waiting for the lab's ok" "$tmp/list.txt"
"$perfbot" --config "$tmp/c" status >"$tmp/st.txt"
check "status shows it held" grep -q "^ *$held_id  held " "$tmp/st.txt"
check "status shows the hold as the operator's command" grep -q "hold: waiting for the lab's ok by $me" "$tmp/st.txt"
check_eq "the command in status --json" "hold waiting for the lab's ok $me None 2026-02-25T06:13:20Z" \
	"$(json '" ".join(str(c[k]) for c in r('"$held_id"')["commands"] for k in ("name", "args", "author", "message_id", "date"))')"
"$perfbot" --config "$tmp/c" outbox release "<$held_mid>" >"$tmp/r.out"
check "release by Message-ID" grep -q "^report $held_id released" "$tmp/r.out"
"$perfbot" --config "$tmp/c" send 2>/dev/null
check "released: the next send delivers it" sh -c "echo '$(taken)' | grep -q '$held_mid'"

# 3. retry: a deferred mail goes at once; a failed one is opened again
make deferred
d_id=$id
check_eq "deferred: waits for its back-off" back-off "$(json 'r('"$d_id"')["waiting"]["reason"]')"
"$perfbot" --config "$tmp/c" outbox retry "$d_id" >/dev/null
check_eq "retry: due now" "due None" "$(json 'r('"$d_id"')["waiting"]["reason"] + " " + str(r('"$d_id"')["next_attempt"])')"
"$perfbot" --config "$tmp/c" send 2>/dev/null
check_eq "retry: the next send delivers it, at once" sent "$(json 'r('"$d_id"')["status"]')"
make failed
f_id=$id
"$perfbot" --config "$tmp/c" outbox retry "$f_id" >/dev/null
"$perfbot" --config "$tmp/c" send 2>/dev/null
check_eq "retry of a failed mail: another attempt, delivered" "sent 2" \
	"$(json 'r('"$f_id"')["status"] + " " + str(r('"$f_id"')["attempts"])')"

# 4. drop: kept, never sent, not listed
make queued
x_id=$id
x_mid=$(json 'r('"$x_id"')["message_id"]')
"$perfbot" --config "$tmp/c" outbox drop --why "a false alarm" "$x_id" >/dev/null
"$perfbot" --config "$tmp/c" send 2>/dev/null
check "drop: never sent" sh -c "! echo '$(taken)' | grep -q '$x_mid'"
check_eq "drop: status dropped, the reason kept" "dropped a false alarm None" \
	"$(json 'r('"$x_id"')["status"] + " " + r('"$x_id"')["mark_reason"] + " " + str(r('"$x_id"')["waiting"])')"
check "drop: the row and its bytes are kept" python3 -c "
import sqlite3, sys
db = sqlite3.connect('$tmp/s/state.db')
n = db.execute('SELECT length(mail) FROM report_mails WHERE report_id = ?', ($x_id,)).fetchone()[0]
sys.exit(0 if n > 1000 else 1)"
"$perfbot" --config "$tmp/c" outbox >"$tmp/list2.txt"
check "drop: the outbox does not list it" sh -c "! grep -q '^ *$x_id ' '$tmp/list2.txt'"

# 5. usage and refusals
"$perfbot" --config "$tmp/c" outbox hold 9999 >/dev/null 2>"$tmp/e1"
check_eq "an unknown report: exit 65" 65 $?
check "... named" grep -q "there is no report 9999" "$tmp/e1"
"$perfbot" --config "$tmp/c" outbox hold "<nobody@nowhere>" >/dev/null 2>"$tmp/e2"
check_eq "an unknown Message-ID: exit 65" 65 $?
"$perfbot" --config "$tmp/c" outbox drop "$held_id" >/dev/null 2>"$tmp/e3"
check_eq "drop without --why: exit 64" 64 $?
check "... saying so" grep -q "drop needs --why TEXT" "$tmp/e3"
"$perfbot" --config "$tmp/c" outbox hold --why "$(printf 'two\nlines')" "$held_id" >/dev/null 2>"$tmp/e7"
check_eq "a reason on two lines is refused: exit 64" 64 $?
check "... saying so" grep -q "give it on one line" "$tmp/e7"
"$perfbot" --config "$tmp/c" outbox frob 1 >/dev/null 2>"$tmp/e4"
check_eq "an unknown action: exit 64" 64 $?
"$perfbot" --config "$tmp/c" outbox hold >/dev/null 2>&1
check_eq "an action without an ID: exit 64" 64 $?
make queued
( flock -x 9; sleep 6 ) 9>"$tmp/s/lock" &
locker=$!
sleep 0.3
"$perfbot" --config "$tmp/c" outbox hold "$id" >/dev/null 2>"$tmp/e5"
check_eq "outbox while a send runs: exit 75" 75 $?
check_eq "... and nothing changed" False "$(json 'r('"$id"')["held"]')"
"$perfbot" --config "$tmp/c" report "$id" --state invalid >/dev/null 2>"$tmp/e6"
check_eq "report --state while a send runs: exit 75 (send's lock, as the outbox)" 75 $?
check_eq "... and the state is still open" open "$(json 'r('"$id"')["state"]')"
wait "$locker"

# 6. perfbot report --state, recorded as the operator's, shown by status
#    and thread; a closed report gets no follow-up
make sent
s_id=$id
s_mid=$(json 'r('"$s_id"')["message_id"]')
"$perfbot" --config "$tmp/c" report "$s_id" --state invalid --why "a noisy machine" >"$tmp/rep.out"
check_eq "report --state: exit 0" 0 $?
check "... says what it did" grep -q "^report $s_id is invalid now (it was open), as $me" "$tmp/rep.out"
check_eq "... status state invalid, the command recorded" "invalid invalid a noisy machine $me" \
	"$(json 'r('"$s_id"')["state"] + " " + " ".join(c["name"] + " " + c["args"] + " " + c["author"] for c in r('"$s_id"')["commands"])')"
"$perfbot" --config "$tmp/c" thread "$s_id" >"$tmp/thread.txt"
check "... thread shows it like a maintainer's command" grep -q "report $s_id  invalid: a noisy machine  by $me" "$tmp/thread.txt"
"$perfbot" --config "$tmp/c" report "$s_mid" --state invalid >/dev/null 2>"$tmp/e6"
check_eq "report --state: the state it has is refused (exit 65)" 65 $?
check "... saying so" grep -q "is invalid already" "$tmp/e6"
cp "$tmp/k$((n - 1)).json" "$tmp/again.json"
"$perfbot" --config "$tmp/c" send "$tmp/again.json" 2>"$tmp/closed.log"
check "a closed report gets no follow-up" grep -q "was closed as invalid" "$tmp/closed.log"
"$perfbot" --config "$tmp/c" report "$s_id" --state bogus >/dev/null 2>&1
check_eq "report --state bogus: exit 64" 64 $?
"$perfbot" --config "$tmp/c" report "$s_id" >/dev/null 2>&1
check_eq "report without --state: exit 64" 64 $?
"$perfbot" --config "$tmp/c" report 9999 --state fixed >/dev/null 2>&1
check_eq "report of an unknown one: exit 65" 65 $?

# 7. send --flush ends the coalescing wait
"$perfbot" --config "$tmp/c" queue "$tmp/k$n.json" >/dev/null 2>&1
n=$((n + 1))
touch -d "@$now" "$tmp/s/spool/incoming"/*
"$perfbot" --config "$tmp/c" send 2>"$tmp/flush1.log"
check "a fresh spool file waits" grep -q "^waiting until 2026-02-25T06:43:20Z" "$tmp/flush1.log"
"$perfbot" --config "$tmp/c" status >"$tmp/st2.txt"
check "status: coalescing until" grep -q "coalescing until 2026-02-25T06:43:20Z (send --flush takes it now)" "$tmp/st2.txt"
check_eq "status --json: the spool file's until" "2026-02-25T06:43:20Z" "$(json 'd["spool"]["waiting"][0]["until"]')"
"$perfbot" --config "$tmp/c" send --flush 2>"$tmp/flush2.log"
check "send --flush takes it now" grep -q "^--flush: 1 file of .* taken before coalesceMinutes" "$tmp/flush2.log"
check "... queued and sent" grep -q "^sent report" "$tmp/flush2.log"

# 8. queue --requeue: a rejected file back under its name, its .why gone
mkdir -p "$tmp/s/spool/incoming"
cp "$top/tests/golden/err-no-tree-url/input.json" "$tmp/s/spool/incoming/20260225061320-1-0-mystery.json"
"$perfbot" --config "$tmp/c" send --flush 2>"$tmp/rq1.log"
check "a bad spool file is rejected with a .why" test -f "$tmp/s/spool/rejected/20260225061320-1-0-mystery.json.why"
"$perfbot" --config "$tmp/c" queue --requeue spool/rejected/20260225061320-1-0-mystery.json >/dev/null 2>"$tmp/rq2.err"
check_eq "requeue of a file still bad: exit 65, left where it was" "65 yes" \
	"$? $(test -f "$tmp/s/spool/rejected/20260225061320-1-0-mystery.json" && echo yes)"
check "... with the reason" grep -q "no tree.mystery.url" "$tmp/rq2.err"
printf '[tree "mystery"]\n\turl = https://git.example.org/mystery.git\n' >>"$tmp/c"
"$perfbot" --config "$tmp/c" queue --requeue "$tmp/s/spool/rejected/20260225061320-1-0-mystery.json" 2>"$tmp/rq3.out"
check_eq "requeue once fixed: exit 0" 0 $?
check_eq "... back under its name" "requeued rejected/20260225061320-1-0-mystery.json as incoming/20260225061320-1-0-mystery.json" "$(cat "$tmp/rq3.out")"
check_eq "... its .why removed, nothing left in rejected/" "" "$(ls "$tmp/s/spool/rejected")"
"$perfbot" --config "$tmp/c" send --flush 2>"$tmp/rq4.log"
check "... and the next send takes it" grep -q "^queued report .*\[mystery:master\]" "$tmp/rq4.log"
"$perfbot" --config "$tmp/c" queue --requeue nothing-here.json >/dev/null 2>&1
check_eq "requeue of a name not rejected: exit 65" 65 $?
"$perfbot" --config "$tmp/c" queue --requeue /etc/passwd >/dev/null 2>"$tmp/rq5.err"
check_eq "requeue of a file elsewhere: exit 65" 65 $?

# 9. kill -9 at random instants of outbox actions: the database stays whole
make queued
k_id=$id
python3 - "$perfbot" "$tmp/c" "$k_id" >"$tmp/kill.txt" <<'PY'
import random, subprocess, sys, time
perfbot, conf, rid = sys.argv[1:]
random.seed(12)
kills = done = 0
for i in range(60):
    act = ["hold", "release", "retry"][i % 3]
    p = subprocess.Popen([perfbot, "--config", conf, "outbox", act, rid],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(random.uniform(0, 0.04))
    p.kill()
    rc = p.wait()
    if rc == -9:
        kills += 1
    elif rc == 0:
        done += 1
print(kills, done)
PY
read -r kills done <"$tmp/kill.txt"
echo "  kill test: 60 actions, $kills killed, $done done"
check "kill -9: some actions were killed ($kills)" test "$kills" -ge 1
check "kill -9: the database passes integrity_check" python3 -c "
import sqlite3, sys
db = sqlite3.connect('$tmp/s/state.db')
sys.exit(0 if db.execute('PRAGMA integrity_check').fetchone()[0] == 'ok' else 1)"
check "kill -9: the report is in exactly one state, its mark what its commands say" python3 -c "
import sqlite3, sys
db = sqlite3.connect('$tmp/s/state.db')
st, mark = db.execute('SELECT status, mark FROM reports WHERE id = ?', ($k_id,)).fetchone()
names = [n for (n,) in db.execute('SELECT name FROM commands WHERE report_id = ? ORDER BY id', ($k_id,))]
held = False
for n in names:
    if n == 'hold': assert not held; held = True
    if n == 'release': assert held; held = False
    if n == 'retry': assert not held
assert st == 'queued' and mark == ('held' if held else None), (st, mark, names)
assert len(db.execute('SELECT mail FROM report_mails WHERE report_id = ?', ($k_id,)).fetchone()[0]) > 1000
"
check "kill -9: every action that returned is recorded" test \
	"$(json 'len(r('"$k_id"')["commands"])')" -ge "$done"
check "kill -9: status still reads it" test "$(json 'r('"$k_id"')["status"]')" = queued

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
