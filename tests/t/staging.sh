#!/bin/sh
# staging.sh: perfbot.redirectTo is a staging mode, against the scripted
# SMTP peer (tests/helpers/smtp-peer.py): a redirected report goes to the
# staging address alone and says so (status, --json, the log), is not
# archived and is no parent for follow-ups; the same comparison sent for
# real afterwards is a new report, with another Message-ID even within the
# same minute, delivered to its recipients and archived; turning
# redirectTo off sends nothing redirected again (a deferred staging mail is
# retried to the staging address); a follow-up of a redirected report goes
# where it went, also once redirectTo is unset.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
golden_start
staging=staging@lab.example.org

# config PORT [LINE...]: the state $tmp/s, LINEs added to [perfbot]
config() {
	port=$1
	shift
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/s|" "$top/tests/golden/config"
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$port"
	printf '[perfbot]\n\tretryMinutes = 5\n\tcoalesceMinutes = 0\n'
	for line in "$@"; do printf '\t%s\n' "$line"; done
}

peer() {
	rm -rf "$tmp/peer.out"
	smtp_peer_start "$tmp/peer" --transcript "$tmp/peer.out/transcript" "$@"
}
peer_stop() { kill "$peer_pid" 2>/dev/null; wait "$peer_pid" 2>/dev/null; }
rcpt_cmds() { sed -n 's/^C: RCPT TO:<\(.*\)>.*/\1/p' "$tmp/peer.out/transcript" | sort | tr '\n' ' '; }
messages() { ls "$tmp/peer.out" | grep -c '\.raw$'; }
commits() { git --git-dir="$tmp/s/archive/git/0.git" rev-list --count master 2>/dev/null || echo 0; }
# json EXPR: EXPR of status --json (as d; rs the reports)
json() {
	"$perfbot" --config "$tmp/c" status --json |
		python3 -c "import json,sys; d=json.load(sys.stdin); rs=d['reports']; print($1)"
}

python3 - "$top/tests/golden/improvement-derived-kind/input.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tests"] = [d["tests"][0]]
for name in ("staged", "real", "again", "fu"):
    json.dump(d, open("%s/%s.json" % (sys.argv[2], name), "w"))
PY

# 1. a redirected report: to the staging address alone, marked, not archived
peer
config "$peer_port" "redirectTo = $staging" >"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/staged.json" 2>"$tmp/log1"
check_eq "redirectTo: exit 0" 0 $?
check_eq "redirectTo: the envelope is the staging address alone" "$staging " "$(rcpt_cmds)"
check "redirectTo: the log says redirected to" grep -q "^sent report <.*> redirected to $staging (perfbot.redirectTo)" "$tmp/log1"
check "redirectTo: the headers are unchanged (To: the author)" grep -q "^To: .*<jose@example.org>" "$tmp/peer.out/1.raw"
check_eq "redirectTo: status --json redirected_to" "$staging" "$(json 'rs[0]["redirected_to"]')"
check_eq "redirectTo: its recipients are the staging address" "[('$staging', 'delivered')]" \
	"$(json '[(x["address"], x["status"]) for x in rs[0]["recipients"]]')"
"$perfbot" --config "$tmp/c" status >"$tmp/st1"
check "redirectTo: human status says redirected to" grep -q "redirected to $staging (perfbot.redirectTo), not to its recipients" "$tmp/st1"
check_eq "redirectTo: nothing archived" 0 "$(commits)"
staged_mid=$(json 'rs[0]["message_id"]')
"$perfbot" --config "$tmp/c" thread "$staged_mid" >/dev/null 2>"$tmp/th1"
check "redirectTo: the staging mail is no known message (thread finds none)" grep -q "is known\|not among" "$tmp/th1"

# 2. the same comparison again, still staging: a new staging report, no
#    follow-up of the first
"$perfbot" --config "$tmp/c" send "$tmp/again.json" 2>"$tmp/log2"
check_eq "redirectTo: a second comparison is no follow-up of a staging report" "report None" \
	"$(json 'rs[1]["kind"] + " " + str(rs[1]["parent"])')"
check "redirectTo: ... and has its own Message-ID" test "$(json 'rs[1]["message_id"]')" != "$staged_mid"

# 3. redirectTo off: nothing redirected is sent again; the same comparison
#    for real is a new report, another Message-ID in the same minute, sent
#    to its recipients and archived
peer_stop
peer
config "$peer_port" >"$tmp/c"
"$perfbot" --config "$tmp/c" send 2>"$tmp/log3"
check_eq "redirectTo off: nothing redirected goes again" 0 "$(messages)"
"$perfbot" --config "$tmp/c" send "$tmp/real.json" 2>"$tmp/log3b"
check_eq "real send: exit 0" 0 $?
check_eq "real send: a new report, no follow-up" "3 report None None" \
	"$(json 'str(len(rs)) + " " + rs[2]["kind"] + " " + str(rs[2]["parent"]) + " " + str(rs[2]["redirected_to"])')"
real_mid=$(json 'rs[2]["message_id"]')
check "real send: its Message-ID differs from both staging ones in the same minute" \
	sh -c "[ '$real_mid' != '$staged_mid' ] && [ '$real_mid' != '$(json 'rs[1]["message_id"]')' ]"
check "real send: ... and has the minute's stamp" sh -c "echo '$real_mid' | grep -q '^202602251143\.'"
check_eq "real send: to its recipients" \
	"Peterz@Example.org jose@example.org linux-next@vger.kernel.org perf-reports@lists.example.org " "$(rcpt_cmds)"
check_eq "real send: archived" 1 "$(commits)"
check "real send: the archive has the real report" sh -c \
	"git --git-dir='$tmp/s/archive/git/0.git' show master:m | grep -qi '^Message-ID: <$real_mid>'"

# 4. a follow-up goes to its real report now, never to a staging one
"$perfbot" --config "$tmp/c" send "$tmp/fu.json" 2>"$tmp/log4"
check_eq "the next comparison follows up the real report" "followup 3" \
	"$(json 'rs[3]["kind"] + " " + str(rs[3]["parent"])')"
peer_stop

# 5. a staging mail deferred is retried to the staging address, also after
#    redirectTo is unset; its follow-up goes where it went
rm -rf "$tmp/s"
peer --rcpt-reply "$staging=450 4.2.1 busy"
config "$peer_port" "redirectTo = $staging" >"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/staged.json" 2>"$tmp/log5"
check_eq "a deferred staging mail: queued, redirected" "queued $staging" \
	"$(json 'rs[0]["status"] + " " + rs[0]["redirected_to"]')"
"$perfbot" --config "$tmp/c" send "$tmp/fu.json" 2>"$tmp/log5b"
check_eq "its comparison again (still staging) is a new report" "report" "$(json 'rs[1]["kind"]')"
peer_stop
peer
config "$peer_port" >"$tmp/c"
PERFBOT_NOW=$((now + 300)) "$perfbot" --config "$tmp/c" send 2>"$tmp/log5c"
check_eq "redirectTo unset: the staging mails go to the staging address only" "$staging $staging " "$(rcpt_cmds)"
check_eq "... and nothing is archived" 0 "$(commits)"
peer_stop

# 6. a follow-up queued under a report not sent yet goes where its report
#    went, also once redirectTo is unset
rm -rf "$tmp/s"
peer
config "$peer_port" "redirectTo = $staging" "paused = true" >"$tmp/c"
"$perfbot" --config "$tmp/c" send "$tmp/staged.json" 2>/dev/null
"$perfbot" --config "$tmp/c" send "$tmp/fu.json" 2>/dev/null
check_eq "a comparison of a queued report is its follow-up" "followup 1" \
	"$(json 'rs[1]["kind"] + " " + str(rs[1]["parent"])')"
config "$peer_port" "redirectTo = $staging" >"$tmp/c"
"$perfbot" --config "$tmp/c" send 2>"$tmp/log6"
config "$peer_port" >"$tmp/c"
"$perfbot" --config "$tmp/c" send 2>"$tmp/log6b"
check_eq "the follow-up of a redirected report goes to the staging address too" "$staging $staging " "$(rcpt_cmds)"
check_eq "... and records it" "$staging" "$(json 'rs[1]["redirected_to"]')"
check_eq "... and nothing is archived" 0 "$(commits)"
peer_stop

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
