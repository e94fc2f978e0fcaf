#!/bin/sh
# retry.sh: each recipient's outcome, and the attempts a failed session
# stops, with the real binary:
#   - the scripted SMTP peer (tests/helpers/smtp-peer.py): a 450 for one of
#     three recipients, then the next run delivers to that one alone; 4xx
#     then 5xx for the same recipient; a drop after one of several RCPTs;
#     status and status --json say it all;
#   - AUTH refused, connection refused, greeting timeout: status shows the
#     reason and the attempt, and the back-off (not after AUTH);
#   - a real Postfix (tests/helpers/postfix.sh) deferring one address with
#     check_recipient_access, then, the rule lifted, delivering to it alone:
#     the Maildir holds one copy per recipient.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
tmp=$(mktemp -d)
chmod 755 "$tmp"	# Postfix delivers as another user: it must reach its folders
pass=0
fail=0
skip=0
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -d "$tmp/pf" ] && sh "$top/tests/helpers/postfix.sh" stop "$tmp/pf"
	rm -rf "$tmp"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT

sh "$top/tests/golden/make-repo.sh" "$tmp/repo" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
now=1772000000	# 2026-02-25T06:13:20Z
export PERFBOT_NOW=$now

# config STATE PORT [LINE...]: sending to 127.0.0.1:PORT, LINEs added to [perfbot]
config() {
	state=$1
	port=$2
	shift 2
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$state|" "$top/tests/golden/config"
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$port"
	printf '[perfbot]\n\tretryMinutes = 5\n'
	for line in "$@"; do printf '\t%s\n' "$line"; done
}

# peer ARGS...: starts the scripted peer writing to $tmp/peer.out, sets peer_port
peer() {
	rm -rf "$tmp/peer.out"
	smtp_peer_start "$tmp/peer" --transcript "$tmp/peer.out/transcript" "$@"
}
peer_stop() { kill "$peer_pid" 2>/dev/null; wait "$peer_pid" 2>/dev/null; }

# The RCPT addresses of the peer's message N, sorted, on one line.
rcpts() { sed -n 's/^RCPT TO:<\(.*\)>.*/\1/p' "$tmp/peer.out/$1.env" 2>/dev/null | sort | tr '\n' ' '; }
messages() { ls "$tmp/peer.out" | grep -c '\.raw$'; }
# Every RCPT command the peer got, sorted, on one line (also without DATA).
rcpt_cmds() { sed -n 's/^C: RCPT TO:<\(.*\)>.*/\1/p' "$tmp/peer.out/transcript" | sort | tr '\n' ' '; }

# json EXPR [NOW]: EXPR of status --json (as d; r is the first report)
json() {
	PERFBOT_NOW=${2:-$now} "$perfbot" --config "$tmp/c" status --json |
		python3 -c "import json,sys; d=json.load(sys.stdin); r=(d['reports'] or [None])[0]; print($1)"
}

# The test comparison: one test of tree linux-next; its envelope is the
# author, two configured Cc's and the tree's list.
python3 - "$top/tests/golden/improvement-derived-kind/input.json" "$tmp/p1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tests"] = [d["tests"][0]]
json.dump(d, open(sys.argv[2], "w"))
PY
busy=Peterz@Example.org
all="Peterz@Example.org jose@example.org linux-next@vger.kernel.org perf-reports@lists.example.org "

# 1. 450 for one recipient: sent to the others; the next run to it alone
peer --rcpt-reply "$busy=450 4.2.1 mailbox busy"
config "$tmp/s1" "$peer_port" >"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/p1.json" 2>"$tmp/log1"
check_eq "450 for one: send exits 75 (a recipient waits)" 75 $?
check_eq "450 for one: the three others got it" "jose@example.org linux-next@vger.kernel.org perf-reports@lists.example.org " "$(rcpts 1)"
check "450 for one: the log names the deferred recipient" grep -q "^  recipient $busy deferred: 450 4.2.1 mailbox busy; next attempt in 5 minutes" "$tmp/log1"
check_eq "450 for one: status is queued" queued "$(json 'r["status"]')"
check_eq "450 for one: recipients in status --json" \
	"[('jose@example.org', 'delivered'), ('perf-reports@lists.example.org', 'delivered'), ('$busy', 'deferred'), ('linux-next@vger.kernel.org', 'delivered')]" \
	"$(json '[(x["address"], x["status"]) for x in r["recipients"]]')"
check_eq "450 for one: the deferred one's reply" "450 4.2.1 mailbox busy" \
	"$(json '[x["reply"] for x in r["recipients"] if x["status"] == "deferred"][0]')"
check_eq "450 for one: a delivered one's reply is the server's queue id" "250 2.0.0 ok: queued as M1" \
	"$(json 'r["recipients"][0]["reply"]')"
check_eq "450 for one: the codes, 250 and 450, and no local error" "[(250, None), (450, None)]" \
	"$(json '[(x["code"], x["local_error"]) for x in r["recipients"] if x["address"] in ("jose@example.org", "'$busy'")]')"
check_eq "450 for one: next_attempt after the back-off" "2026-02-25T06:18:20Z" "$(json 'r["next_attempt"]')"
check_eq "450 for one: sent is when the first recipient got it" "2026-02-25T06:13:20Z" "$(json 'r["sent"]')"
check_eq "450 for one: waiting says back-off" "back-off 2026-02-25T06:18:20Z" "$(json 'r["waiting"]["reason"] + " " + r["waiting"]["until"]')"
"$perfbot" --config "$tmp/c" status >"$tmp/st1"
check "450 for one: human status shows the deferred recipient" grep -q "deferred  $busy: 450 4.2.1 mailbox busy" "$tmp/st1"
check "450 for one: human status says why it waits" grep -q "waiting for back-off until 2026-02-25T06:18:20Z" "$tmp/st1"
check "450 for one: the report is archived once it went out" \
	test "$(git --git-dir="$tmp/s1/archive/git/0.git" rev-list --count master 2>/dev/null)" = 1
"$perfbot" --config "$tmp/c" send 2>"$tmp/log1b"
check_eq "450 for one: nothing goes before the back-off" 1 "$(messages)"
peer_stop
peer
config "$tmp/s1" "$peer_port" >"$tmp/c"
PERFBOT_NOW=$((now + 300)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log1c"
check_eq "the retry: send exits 0" 0 $?
check_eq "the retry goes to the deferred recipient alone" "$busy " "$(rcpts 1)"
check_eq "the retry: one message, the same Message-ID" \
	"$(sed -n 's/^Message-ID: //Ip' "$tmp/peer.out/1.raw" | tr -d '\r')" "<$(json 'r["message_id"]')>"
check_eq "the retry: status is sent" sent "$(json 'r["status"]')"
check_eq "the retry: every recipient delivered" "delivered delivered delivered delivered" \
	"$(json '" ".join(x["status"] for x in r["recipients"])')"
check_eq "the retry: two attempts" 2 "$(json 'r["attempts"]')"
check "the retry: not archived again" \
	test "$(git --git-dir="$tmp/s1/archive/git/0.git" rev-list --count master)" = 1
PERFBOT_NOW=$((now + 9000)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log1d"
check_eq "the retry: nobody gets it again" 1 "$(messages)"
peer_stop

# 2. 4xx, then 5xx for the same recipient: refused for good, the report sent
peer --rcpt-reply "$busy=451 4.7.1 greylisted"
config "$tmp/s2" "$peer_port" >"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/p1.json" 2>"$tmp/log2"
peer_stop
peer --rcpt-reply "$busy=550 5.1.1 no such user"
config "$tmp/s2" "$peer_port" >"$tmp/c"
PERFBOT_NOW=$((now + 300)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log2b"
check_eq "4xx then 5xx: exit 0" 0 $?
check_eq "4xx then 5xx: the second run tries that one alone" "$busy " "$(rcpt_cmds)"
check_eq "4xx then 5xx: sent, the recipient refused" "sent refused 550 5.1.1 no such user" \
	"$(json 'r["status"] + " " + [x["status"] + " " + x["reply"] for x in r["recipients"] if x["address"] == "'$busy'"][0]')"
check "4xx then 5xx: the log says refused" grep -q "^  recipient $busy refused: 550 5.1.1 no such user" "$tmp/log2b"
check "4xx then 5xx: ... and that the others had it" grep -q "^done with report <.*>: 1 recipient refused for good, 3 had it" "$tmp/log2b"
"$perfbot" --config "$tmp/c" status >"$tmp/st2"
check "4xx then 5xx: human status shows the refused recipient" grep -q "refused   $busy: 550 5.1.1 no such user" "$tmp/st2"
PERFBOT_NOW=$((now + 9000)) "$perfbot" --config "$tmp/c" send 2>/dev/null
check_eq "4xx then 5xx: a refused recipient is never tried again" "$busy " "$(rcpt_cmds)"
peer_stop

# 3. the connection drops after one of several RCPTs: nobody has it, every
#    recipient is deferred, the next run sends to all once
peer --rcpt-reply "perf-reports@lists.example.org=drop"
config "$tmp/s3" "$peer_port" >"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/p1.json" 2>"$tmp/log3"
check_eq "a drop after a RCPT: exit 75" 75 $?
check_eq "a drop after a RCPT: no message went" 0 "$(messages)"
check_eq "a drop after a RCPT: every recipient deferred" "deferred deferred deferred deferred" \
	"$(json '" ".join(x["status"] for x in r["recipients"])')"
check_eq "a drop after a RCPT: a local error, not an SMTP code: code and reply null" \
	"None None None None" "$(json '" ".join(str(x["code"] or x["reply"]) for x in r["recipients"])')"
check_eq "a drop after a RCPT: local_error says the connection was lost" \
	"127.0.0.1:$peer_port: connection lost at RCPT TO" \
	"$(json '" ".join(sorted(set(x["local_error"] for x in r["recipients"])))')"
check "a drop after a RCPT: the log says a local error, not code 0" \
	grep -q "^  recipient jose@example.org deferred: local error: 127.0.0.1:$peer_port: connection lost at RCPT TO; next" "$tmp/log3"
check "a drop after a RCPT: ... and no line has code 0" sh -c "! grep -q 'deferred: 0 ' '$tmp/log3'"
"$perfbot" --config "$tmp/c" status >"$tmp/st3"
check "a drop after a RCPT: human status says a local error" \
	grep -q "deferred  jose@example.org: local error: 127.0.0.1:$peer_port: connection lost at RCPT TO$" "$tmp/st3"
"$perfbot" --config "$tmp/c" outbox >"$tmp/ob3"
check "a drop after a RCPT: the outbox listing says a local error" \
	grep -q "deferred  jose@example.org: local error: 127.0.0.1:$peer_port: connection lost at RCPT TO$" "$tmp/ob3"
check_eq "a drop after a RCPT: nothing archived" 0 "$(git --git-dir="$tmp/s3/archive/git/0.git" rev-list --count master 2>/dev/null || echo 0)"
peer_stop
peer
config "$tmp/s3" "$peer_port" >"$tmp/c"
PERFBOT_NOW=$((now + 300)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log3b"
check_eq "a drop after a RCPT: the next run sends to all four at once" "$all" "$(rcpts 1)"
check_eq "a drop after a RCPT: ... once" 1 "$(messages)"
check_eq "a drop after a RCPT: sent and archived" "sent 1" \
	"$(json 'r["status"]') $(git --git-dir="$tmp/s3/archive/git/0.git" rev-list --count master)"
peer_stop

# 4. a session that fails before the mail: the attempt and its reason are
#    where the operator looks
printf 'wrong\n' >"$tmp/pw"
chmod 600 "$tmp/pw"
peer --require-auth bot:right
config "$tmp/s4" "$peer_port" >"$tmp/c"
printf '[smtp]\n\tuser = bot\n\tpasswordFile = %s\n' "$tmp/pw" >>"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/p1.json" 2>"$tmp/log4"
check_eq "AUTH refused: exit 78" 78 $?
check_eq "AUTH refused: one attempt, still queued" "queued 1" "$(json 'r["status"] + " " + str(r["attempts"])')"
check "AUTH refused: last_reply has the server's words" \
	test -n "$(json '"x" if "AUTH refused: 535 5.7.8 authentication credentials invalid" in r["last_reply"] else ""')"
check_eq "AUTH refused: the next attempt is not pushed later" "None due" \
	"$(json 'str(r["next_attempt"]) + " " + r["waiting"]["reason"]')"
check_eq "AUTH refused: last_attempt" "2026-02-25T06:13:20Z" "$(json 'r["last_attempt"]')"
"$perfbot" --config "$tmp/c" status >"$tmp/st4"
check "AUTH refused: human status shows the reason" grep -q "last attempt 2026-02-25 06:13 UTC: .*AUTH refused: 535" "$tmp/st4"
check "AUTH refused: human status shows the attempt" grep -q "^ *1  deferred open *1  now" "$tmp/st4"
"$perfbot" --config "$tmp/c" send 2>/dev/null
check_eq "AUTH refused: the next run tries again at once" 2 "$(json 'r["attempts"]')"
peer_stop

port=$(free_port)	# nothing listens there
config "$tmp/s5" "$port" >"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/p1.json" 2>"$tmp/log5"
check_eq "connection refused: exit 75" 75 $?
check_eq "connection refused: one attempt, the reason, the back-off" \
	"1 127.0.0.1:$port: cannot connect: Connection refused 2026-02-25T06:18:20Z" \
	"$(json 'str(r["attempts"]) + " " + r["last_reply"] + " " + r["next_attempt"]')"
"$perfbot" --config "$tmp/c" status >"$tmp/st5"
check "connection refused: human status shows it" grep -q "last attempt .*cannot connect: Connection refused" "$tmp/st5"
PERFBOT_NOW=$((now + 300)) "$perfbot" --config "$tmp/c" send 2>/dev/null
check_eq "connection refused: the second failure doubles the wait" "2 2026-02-25T06:28:20Z" \
	"$(json 'str(r["attempts"]) + " " + r["next_attempt"]')"

peer --silent
config "$tmp/s6" "$peer_port" >"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/p1.json" 2>"$tmp/log6"
check_eq "greeting timeout: exit 75" 75 $?
check_eq "greeting timeout: the attempt and the reason" \
	"1 127.0.0.1:$peer_port: no reply to the greeting within 3 s (smtp.timeout)" \
	"$(json 'str(r["attempts"]) + " " + r["last_reply"]')"
"$perfbot" --config "$tmp/c" status >"$tmp/st6"
check "greeting timeout: human status shows it" grep -q "no reply to the greeting within 3 s" "$tmp/st6"
peer_stop

# 5. a real Postfix defers one address (check_recipient_access, 450); the
#    rule lifted, the next run delivers to it alone
if [ "$(id -u)" -ne 0 ] || ! command -v postfix >/dev/null; then
	echo "skip: the real Postfix case needs root and Postfix (sh tests/helpers/install-deps.sh test)"
	skip=$((skip + 1))
else
	lower=$(echo "$busy" | tr 'A-Z' 'a-z')
	printf '%s 450 4.2.1 mailbox busy\n' "$lower" >"$tmp/busy.map"
	printf 'smtpd_recipient_restrictions = check_recipient_access texthash:%s, permit_mynetworks, reject\n' \
		"$tmp/busy.map" >"$tmp/busy.cf"
	pf_port=$(free_port)
	if sh "$top/tests/helpers/postfix.sh" start "$tmp/pf" "$pf_port" "$tmp/busy.cf"; then
		maildir=$tmp/pf/mail/inbox
		config "$tmp/s7" "$pf_port" >"$tmp/c"
		"$perfbot" --config "$tmp/c" send "$tmp/p1.json" 2>"$tmp/log7"
		check_eq "Postfix: a 450 for one address: exit 75" 75 $?
		check "Postfix: ... deferred with Postfix's words" grep -q "recipient $busy deferred: 450 4.2.1 <$busy>: Recipient address rejected: mailbox busy" "$tmp/log7"
		wait_mail 1
		check_eq "Postfix: the three others have it" 3 "$(cat "$maildir"/new/* | grep -c '^Delivered-To:')"
		: >"$tmp/busy.map"
		sh "$top/tests/helpers/postfix.sh" reload "$tmp/pf"
		sleep 1
		PERFBOT_NOW=$((now + 300)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log7b"
		check_eq "Postfix: the rule lifted, the next run: exit 0" 0 $?
		check "Postfix: ... to the one recipient" grep -q "to 1 of 1 recipient (a retry: the others had it)" "$tmp/log7b"
		wait_mail 2
		got=$(cat "$maildir"/new/* | sed -n 's/^Delivered-To: //p' | tr 'A-Z' 'a-z' | sort | uniq -c |
			awk '{ printf "%s:%s ", $2, $1 }')
		check_eq "Postfix: the Maildir holds one copy per recipient" \
			"jose@example.org:1 linux-next@vger.kernel.org:1 perf-reports@lists.example.org:1 peterz@example.org:1 " "$got"
		check_eq "Postfix: status sent, all delivered" "sent 4" \
			"$(json 'r["status"] + " " + str(sum(x["status"] == "delivered" for x in r["recipients"]))' $((now + 300)))"
	else
		not_ok "Postfix did not start"
	fi
fi

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
