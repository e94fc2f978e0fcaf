#!/bin/sh
# send.sh: `perfbot send` end to end against a real Postfix on 127.0.0.1
# (tests/helpers/postfix.sh) and the scripted SMTP peer
# (tests/helpers/smtp-peer.py): delivery equal to `render`, coalescing,
# follow-ups, maxPerHour, paused, redirectTo, --dry-run, two concurrent
# sends, 4xx/5xx/drops, and kill -9 at random instants of a batch.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
tmp=$(mktemp -d)
chmod 755 "$tmp"	# Postfix and Dovecot run as other users: they must reach their folders
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

if [ "$(id -u)" -ne 0 ] || ! command -v postfix >/dev/null; then
	echo "skip: send.sh needs root and Postfix (sh tests/helpers/install-deps.sh test)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

sh "$top/tests/golden/make-repo.sh" "$tmp/repo" >/dev/null
pf_port=$(free_port)
sh "$top/tests/helpers/postfix.sh" start "$tmp/pf" "$pf_port" || { echo "0 passed, 1 failed"; exit 1; }
maildir=$tmp/pf/mail/inbox

# config STATE PORT [EXTRA...]: a configuration sending to 127.0.0.1:PORT
config() {
	state=$1
	port=$2
	shift 2
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$state|" "$top/tests/golden/config"
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$port"
	printf '[perfbot]\n\tcoalesceMinutes = 30\n\tretryMinutes = 5\n'
	for line in "$@"; do printf '\t%s\n' "$line"; done
}

# strip_postfix FILE: the message without the headers Postfix adds
strip_postfix() {
	python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read().replace(b'\r\n', b'\n')
head, _, body = data.partition(b'\n\n')
lines, out = head.split(b'\n'), []
skip = False
for l in lines:
    if l[:1] in (b' ', b'\t'):
        if not skip:
            out.append(l)
        continue
    name = l.split(b':', 1)[0].lower()
    skip = name in (b'return-path', b'delivered-to', b'received', b'x-original-to')
    if not skip:
        out.append(l)
sys.stdout.buffer.write(b'\n'.join(out) + b'\n\n' + body)
PY
}

status_json() { "$perfbot" --config "$1" status --json; }

now=1772000000   # 2026-02-25T06:13:20Z, pinned for every run
export PERFBOT_NOW=$now

# 1. a named file is delivered at once, byte for byte what render shows
config "$tmp/s1" "$pf_port" > "$tmp/c1"
cp "$top/tests/golden/regression-two-tests/input.json" "$tmp/a.json"
"$perfbot" --config "$tmp/c1" send "$tmp/a.json" 2>"$tmp/log1"
check "send: a named file is delivered (exit 0)" test $? -eq 0
mid=$(status_json "$tmp/c1" | jq_py 'd["reports"][0]["message_id"]')
check "send: status says sent" test "$(status_json "$tmp/c1" | jq_py 'd["reports"][0]["status"]')" = sent
wait_mail 1 && f=$(ls "$maildir"/new/* | head -n 1)
SOURCE_DATE_EPOCH=$now "$perfbot" --config "$tmp/c1" render --message-id "$mid" "$tmp/a.json" >"$tmp/render1.eml"
strip_postfix "$f" >"$tmp/got1.eml"
check "send: the delivered mail equals render's output (Postfix's headers aside)" cmp -s "$tmp/render1.eml" "$tmp/got1.eml"
grep -q "^sent report <$mid>" "$tmp/log1"
check "send: one log line per report sent" test $? -eq 0
"$perfbot" --config "$tmp/c1" send "$tmp/a.json" 2>"$tmp/log1b"
check "send: the same file again is not queued again" grep -q "already queued" "$tmp/log1b"
check "send: ... and nothing more is delivered" test "$(transactions)" -eq 1

# 2. the archive has the sent report, and public-inbox-index accepts it
if command -v public-inbox-index >/dev/null && [ -d "$tmp/s1/archive/git/0.git" ]; then
	n=$(git --git-dir="$tmp/s1/archive/git/0.git" rev-list --count master 2>/dev/null)
	check "send: the sent report is in the archive (1 commit)" test "$n" = 1
else
	not_ok "send: no archive at $tmp/s1/archive"
fi

# 3. spool: coalescing waits, then one report with both tests; a repeat is a follow-up
config "$tmp/s2" "$pf_port" > "$tmp/c2"
python3 - "$top/tests/golden/improvement-derived-kind/input.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
one = dict(d); one["tests"] = [d["tests"][0]]
two = dict(d); two["tests"] = [d["tests"][1]]; two["base"] = d["tests"][1].get("base", d["base"])
json.dump(one, open(sys.argv[2] + "/one.json", "w"))
json.dump(two, open(sys.argv[2] + "/two.json", "w"))
again = dict(d); again["tree"] = "linux-next/master"; again["tests"] = [d["tests"][0]]
json.dump(again, open(sys.argv[2] + "/again.json", "w"))
PY
cp "$tmp/one.json" "$tmp/q1.json"
cp "$tmp/two.json" "$tmp/q2.json"
"$perfbot" --config "$tmp/c2" queue "$tmp/q1.json" "$tmp/q2.json" >/dev/null 2>&1
# arrival is the spool file's mtime: put it on the pinned clock
touch -d "@$now" "$tmp/s2/spool/incoming"/*
check "queue: two files in the spool" test "$(ls "$tmp/s2/spool/incoming" | wc -l)" -eq 2
before=$(transactions)
PERFBOT_NOW=$now "$perfbot" --config "$tmp/c2" send 2>"$tmp/log3"
check "send: a fresh spool group waits for coalesceMinutes" grep -q "^waiting until" "$tmp/log3"
check "send: ... and nothing is sent yet" test "$(transactions)" -eq "$before"
PERFBOT_NOW=$((now + 1900)) "$perfbot" --config "$tmp/c2" send 2>"$tmp/log3b"
check "send: after coalesceMinutes the two files become one report" test "$(grep -c '^queued report' "$tmp/log3b")" -eq 1
check "send: ... with the second test coalesced" grep -q "^coalesced" "$tmp/log3b"
wait_mail $((before + 1))
last=$(ls -t "$maildir"/new/* | head -n 1)
check "send: the coalesced report has the In addition box" grep -q "In addition to that" "$last"
check "send: the spool is empty again" test "$(ls "$tmp/s2/spool/incoming" | wc -l)" -eq 0
cp "$tmp/again.json" "$tmp/s2/spool/incoming/again.json"
touch -d "@$((now + 7200 - 3600))" "$tmp/s2/spool/incoming/again.json"
PERFBOT_NOW=$((now + 7200)) "$perfbot" --config "$tmp/c2" send 2>"$tmp/log3c"
check "send: the same test and head again becomes a follow-up" grep -q "(follow-up)" "$tmp/log3c"
wait_mail $((before + 2))
last=$(ls -t "$maildir"/new/* | head -n 1)
report_mid=$(status_json "$tmp/c2" | jq_py '[r for r in d["reports"] if not r["subject"].startswith("Re:")][0]["message_id"]')
check "send: the follow-up answers the report (In-Reply-To)" grep -q "^In-Reply-To: <$report_mid>" "$last"
check "send: the follow-up's subject is Re: the report's" grep -q "^Subject: Re: \[linux-next:master\]" "$last"

# 4. maxPerHour, paused, redirectTo
config "$tmp/s4" "$pf_port" "maxPerHour = 1" > "$tmp/c4"
cp "$tmp/one.json" "$tmp/p1.json"
# p2: another head commit (named files of one head would be coalesced)
python3 -c "import json,sys; d=json.load(open('$tmp/p1.json')); d['commit']='bdc753ab0b72'; json.dump(d, open('$tmp/p2.json','w'))"
before=$(transactions)
"$perfbot" --config "$tmp/c4" send "$tmp/p1.json" "$tmp/p2.json" 2>"$tmp/log4"
check "send: maxPerHour = 1 sends one" grep -q "maxPerHour (1) reached: 1 mail wait" "$tmp/log4"
check "send: ... and the other stays queued" test "$(status_json "$tmp/c4" | jq_py 'sorted(r["status"] for r in d["reports"])')" = "['queued', 'sent']"
config "$tmp/s5" "$pf_port" "paused = true" > "$tmp/c5"
"$perfbot" --config "$tmp/c5" send "$tmp/p1.json" 2>"$tmp/log5"
check "send: paused queues but sends nothing" test "$(status_json "$tmp/c5" | jq_py 'd["reports"][0]["status"]')" = queued
check "send: ... and says so" grep -q "^paused" "$tmp/log5"
config "$tmp/s6" "$pf_port" "redirectTo = staging@lab.example.org" > "$tmp/c6"
before=$(transactions)
"$perfbot" --config "$tmp/c6" send "$tmp/p1.json" 2>"$tmp/log6"
wait_mail $((before + 1))
last=$(ls -t "$maildir"/new/* | head -n 1)
check "send: redirectTo delivers to the staging address only" grep -q "^X-Original-To: staging@lab.example.org" "$last"
check "send: ... with the headers unchanged (To: the author)" grep -q "^To: =?UTF-8?B?Sm9zw6kgTcO8bGxlcg==?= <jose@example.org>" "$last"

# 5. --dry-run changes nothing
config "$tmp/s7" "$pf_port" > "$tmp/c7"
"$perfbot" --config "$tmp/c7" send --dry-run "$tmp/p1.json" >"$tmp/dry.mbox" 2>/dev/null
check "send --dry-run: prints an mbox" grep -q "^From perfbot@lab.example.org " "$tmp/dry.mbox"
check "send --dry-run: creates no state" test ! -e "$tmp/s7/state.db"

# 5b. a bad file dropped into the spool by a producer is set aside with why;
#     a password file others can read stops send before anything happens
config "$tmp/s11" "$pf_port" > "$tmp/c11"
mkdir -p "$tmp/s11/spool/incoming"
printf '{"perfbot": 1, "tree": "linus/master"\n' >"$tmp/s11/spool/incoming/broken.json"
"$perfbot" --config "$tmp/c11" send 2>"$tmp/log11"
check "send: a bad spool file exits 65" test $? -eq 65
check "send: ... is moved to spool/rejected/" test "$(ls "$tmp/s11/spool/rejected" | grep -c '\.why$')" -eq 1
check "send: ... with the reason beside it" grep -q "invalid JSON" "$tmp/s11/spool/rejected"/*.why
config "$tmp/s12" "$pf_port" > "$tmp/c12"
printf 'secret\n' >"$tmp/pw"
chmod 644 "$tmp/pw"
printf '[smtp]\n\tuser = bot\n\tpasswordFile = %s\n' "$tmp/pw" >>"$tmp/c12"
"$perfbot" --config "$tmp/c12" send "$tmp/p1.json" 2>"$tmp/log12"
check "send: a password file others can read exits 78" test $? -eq 78
check "send: ... saying how to fix it" grep -q "chmod 600" "$tmp/log12"
check "send: ... and nothing was queued" test ! -e "$tmp/s12/state.db"

# 6. two sends at once: the second exits 75 and changes nothing
config "$tmp/s8" "$pf_port" > "$tmp/c8"
mkdir -p "$tmp/s8"
( flock -x 9; sleep 4 ) 9>"$tmp/s8/lock" &
pids="$pids $!"
sleep 0.5
"$perfbot" --config "$tmp/c8" send "$tmp/p1.json" 2>"$tmp/log8"
check "send: a second send exits 75 at once" test $? -eq 75
check "send: ... having changed nothing" test ! -e "$tmp/s8/state.db"

# 7. the scripted peer: 4xx and 5xx on RCPT and DATA, a drop mid-DATA
peer() { smtp_peer_start "$tmp/peer" "$@"; }	# ARGS...: starts the peer, sets peer_port
peer_case() { # NAME WANT_STATUS PEER-ARGS...
	name=$1
	want=$2
	shift 2
	rm -rf "$tmp/s9" "$tmp/peer.out"
	mkdir -p "$tmp/peer.out"
	peer "$@"
	config "$tmp/s9" "$peer_port" > "$tmp/c9"
	"$perfbot" --config "$tmp/c9" send "$tmp/p1.json" 2>"$tmp/log9"
	rc=$?
	kill "$peer_pid" 2>/dev/null
	got=$(status_json "$tmp/c9" | jq_py 'd["reports"][0]["status"]')
	if [ "$got" = "$want" ]; then ok "send: $name -> $want (exit $rc)"; else not_ok "send: $name -> $got, want $want"; sed 's/^/    /' "$tmp/log9"; fi
}
peer_case "451 on DATA end" queued --end-reply "451 4.3.0 try again later"
peer_case "554 on DATA end" failed --end-reply "554 5.7.1 rejected"
peer_case "550 for the author, others taken" sent --rcpt-reply "jose@example.org=550 5.1.1 no such user"
peer_case "550 for every recipient" failed --rcpt-reply "jose@example.org=550 5.1.1 no" \
	--rcpt-reply "perf-reports@lists.example.org=550 5.1.1 no" --rcpt-reply "Peterz@Example.org=550 5.1.1 no" \
	--rcpt-reply "linux-next@vger.kernel.org=550 5.1.1 no"
peer_case "a drop in the middle of DATA" queued --drop-after-data-bytes 500
peer_case "a silent server" queued --silent

# 8. kill -9 at random instants of a batch: every mail arrives, only a mail
#    whose attempt was cut may arrive twice, always with the same Message-ID
config "$tmp/s10" "$pf_port" > "$tmp/c10"
# reports PREFIX N: N comparisons $tmp/PREFIX00.json..., one tree each
# (comparisons of one tree and head coalesce)
reports() {
	python3 - "$tmp" "$top/tests/golden/improvement-derived-kind/input.json" "$1" "$2" <<'PY'
import json, sys, copy
d = json.load(open(sys.argv[2]))
for i in range(int(sys.argv[4])):
    e = copy.deepcopy(d)
    e["tests"] = [d["tests"][0]]
    e["tree"] = "lab%d/master" % i
    e["repo_url"] = "https://git.example.org/lab%d.git" % i
    json.dump(e, open("%s/%s%02d.json" % (sys.argv[1], sys.argv[3], i), "w"))
PY
}
reports k 30
before=$(transactions)
"$perfbot" --config "$tmp/c10" queue "$tmp"/k*.json >/dev/null 2>&1
touch -d "@$now" "$tmp/s10/spool/incoming"/*
kills=0
# short delays: a batch to the private Postfix takes a fraction of a
# second, and only a kill that finds the run alive counts (exit 137)
for delay in 0.02 0.05 0.08 0.12 0.16 0.2 0.25 0.3; do
	PERFBOT_NOW=$((now + 3600)) "$perfbot" --config "$tmp/c10" send 2>>"$tmp/log10" &
	p=$!
	sleep "$delay"
	kill -9 "$p" 2>/dev/null
	rc=0
	wait "$p" 2>/dev/null || rc=$?
	[ "$rc" -ne 137 ] || kills=$((kills + 1))
done
i=0
while [ $i -lt 5 ]; do
	PERFBOT_NOW=$((now + 3600 + 86400)) "$perfbot" --config "$tmp/c10" send 2>>"$tmp/log10"
	i=$((i + 1))
done
sleep 2
python3 - "$maildir/new" "$tmp/c10" "$perfbot" "$kills" <<'PY' >"$tmp/crash.txt"
import json, os, re, subprocess, sys
d = json.loads(subprocess.run([sys.argv[3], "--config", sys.argv[2], "status", "--json"], capture_output=True, text=True).stdout)
mids = [r["message_id"] for r in d["reports"]]
seen = {m: set() for m in mids}	# the SMTP transactions (queue ids) of each
for f in os.listdir(sys.argv[1]):
    t = open(os.path.join(sys.argv[1], f), "rb").read().decode("utf-8", "replace")
    m = re.search(r"^Message-ID: <([^>]+)>", t, re.M | re.I)
    q = re.search(r"with ESMTP id ([0-9A-F]+)", t)
    if m and q and m.group(1) in seen:
        seen[m.group(1)].add(q.group(1))
count = {m: len(s) for m, s in seen.items()}
missing = [m for m, c in count.items() if c == 0]
dups = sum(c - 1 for c in count.values() if c > 1)
print(len(mids), len(missing), dups, int(sys.argv[4]), all(r["status"] == "sent" for r in d["reports"]))
PY
read n missing dups kills_done all_sent <"$tmp/crash.txt"
echo "  crash test: $n reports, $kills_done kill -9, $missing missing, $dups duplicate deliveries"
check "crash: a kill found a run at work ($kills_done)" test "$kills_done" -ge 1
check "crash: all 30 reports are in the outbox" test "$n" -eq 30
check "crash: every report was delivered" test "$missing" -eq 0
check "crash: all are marked sent" test "$all_sent" = True
check "crash: at most one duplicate per kill" test "$dups" -le "$kills_done"
# every report sent is in the archive once, also those a killed run
# delivered but had not archived yet
archived=$(git --git-dir="$tmp/s10/archive/git/0.git" log --format=%H master 2>/dev/null |
	while read -r c; do git --git-dir="$tmp/s10/archive/git/0.git" cat-file blob "$c:m"; done |
	sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' | sort | uniq -c | awk '$1 == 1 { n++ } END { print n + 0 }')
check "crash: each of the 30 reports is in the archive once ($archived)" test "$archived" -eq 30

# 9. a run killed after delivering mails but before archiving them: the
#    next run archives them (the kill falls while the peer holds the third
#    mail's MAIL command unanswered, after taking two)
rm -rf "$tmp/peer.out"
mkdir -p "$tmp/peer.out"
peer --silent-after 2
config "$tmp/s12" "$peer_port" > "$tmp/c12"
reports a 3
"$perfbot" --config "$tmp/c12" queue "$tmp"/a0*.json >"$tmp/log12q" 2>&1 || sed "s/^/    /" "$tmp/log12q"
touch -d "@$now" "$tmp/s12/spool/incoming"/*
PERFBOT_NOW=$((now + 3600)) "$perfbot" --config "$tmp/c12" send 2>"$tmp/log12" &
p=$!
i=0
while [ "$(ls "$tmp/peer.out" | grep -c '\.raw$')" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -9 "$p" 2>/dev/null
wait "$p" 2>/dev/null
kill "$peer_pid" 2>/dev/null
commits() { git --git-dir="$1/archive/git/0.git" rev-list --count master 2>/dev/null || echo 0; }
n_sent=$(status_json "$tmp/c12" | jq_py 'sum(r["status"] == "sent" for r in d["reports"])')
check "killed before archiving: 2 sent, none archived yet ($n_sent, $(commits "$tmp/s12"))" \
	test "$n_sent" = 2 -a "$(commits "$tmp/s12")" = 0
hour_count() { PERFBOT_NOW=$2 status_json "$1" | jq_py 'd["sent_last_hour"]'; }
n_hour=$(hour_count "$tmp/c12" $((now + 3600)))
check "killed before counting: status counts its 2 sent all the same ($n_hour)" test "$n_hour" = 2
config "$tmp/s12" "$pf_port" > "$tmp/c12"
PERFBOT_NOW=$((now + 7200)) "$perfbot" --config "$tmp/c12" send 2>>"$tmp/log12"
check "the next run archives the 2 with the third it sends ($(commits "$tmp/s12") commits)" \
	test "$(commits "$tmp/s12")" = 3
check "and says so" grep -q "archiving 2 mails sent by an earlier run that was cut short" "$tmp/log12"
n_hour="$(hour_count "$tmp/c12" $((now + 3600))) $(hour_count "$tmp/c12" $((now + 7200)))"
check "the send log counts 2 in the killed run's hour and 1 in the next ($n_hour)" \
	test "$n_hour" = "2 1"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
