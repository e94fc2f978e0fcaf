#!/bin/sh
# queue-status.sh: `perfbot queue` and `perfbot status` with the real
# binary, the golden fixture repository and the golden cases' inputs.
#   - queue moves good comparisons into spool/incoming (byte for byte) and
#     leaves refused ones where they were, with the reason, exit 65;
#   - status works on a missing state directory without creating it;
#   - status --json has the keys of spec/cli-json.md, checked with python3,
#     also for reports of every status (rows written into state.db with
#     python3's sqlite3, since `send` is another command's business).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
golden=$top/tests/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() {
	echo "ok $1"
	pass=$((pass + 1))
}

not_ok() {
	echo "FAIL $1"
	shift
	for line in "$@"; do
		echo "  $line"
	done
	fail=$((fail + 1))
}

# check DESC COMMAND...: ok when the command succeeds.
check() {
	desc=$1
	shift
	if "$@" >"$tmp/check.out" 2>&1; then
		ok "$desc"
	else
		not_ok "$desc" "$(head -n 5 "$tmp/check.out")"
	fi
}

sh "$golden/make-repo.sh" "$tmp/repo" >"$tmp/make-repo.log" 2>&1 || {
	cat "$tmp/make-repo.log"
	echo "0 passed, 1 failed"
	exit 1
}
state=$tmp/state
sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$state|" "$golden/config" >"$tmp/config"
cat "$golden/regression-two-tests/extra.conf" >>"$tmp/config"
pb() {
	"$perfbot" --config "$tmp/config" "$@"
}

# status_json FILE PYTHON: runs python checks on the JSON in FILE (as `d`).
status_json() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
' "$1" "$2"
}

# --- status before anything exists -----------------------------------------
pb status --json >"$tmp/s0.json" 2>"$tmp/s0.err"
rc=$?
check "status --json on a missing state dir exits 0" test "$rc" -eq 0
check "status --json on a missing state dir: empty, spec keys" status_json "$tmp/s0.json" '
assert set(d) >= {"paused", "spool", "reports", "sent_last_hour"}, d
assert d["paused"] is False and d["reports"] == [] and d["sent_last_hour"] == 0, d
assert d["spool"] == {"incoming": 0, "rejected": 0, "waiting": []}, d
'
check "status does not create the state dir" test ! -e "$state"
pb status >"$tmp/s0.txt" 2>&1
check "human status on a missing state dir" grep -q '^no reports$' "$tmp/s0.txt"

# --- queue: good and bad together -------------------------------------------
mkdir "$tmp/in"
for c in improvement-derived-kind regression-two-tests err-unknown-commit err-json-syntax \
	err-headline-names-no-row err-no-polarity; do
	cp "$golden/$c/input.json" "$tmp/in/$c.json"
done
(cd "$tmp/in" && "$perfbot" --config "$tmp/config" queue improvement-derived-kind.json \
	err-unknown-commit.json regression-two-tests.json err-json-syntax.json \
	err-headline-names-no-row.json err-no-polarity.json) >"$tmp/q1.out" 2>"$tmp/q1.err"
rc=$?
check "queue with refused files exits 65" test "$rc" -eq 65
check "queue prints one line per queued file, on stderr" test "$(grep -c '^queued ' "$tmp/q1.err")" -eq 2
check "queue prints nothing on stdout" test ! -s "$tmp/q1.out"
check "queue prints one reason per refused file" test "$(grep -c '^perfbot queue: ' "$tmp/q1.err")" -eq 4
check "the unknown commit is named" grep -q "^perfbot queue: err-unknown-commit.json: commit: 'deadbeefdeadbeef' is neither" "$tmp/q1.err"
check "the JSON syntax error has line and column" grep -q '^perfbot queue: err-json-syntax.json:4:10: invalid JSON' "$tmp/q1.err"
check "a file that would not render is refused" grep -q '^perfbot queue: err-no-polarity.json: .*no polarity known' "$tmp/q1.err"
for c in err-unknown-commit err-json-syntax err-headline-names-no-row err-no-polarity; do
	check "refused $c.json stays where it was" cmp -s "$tmp/in/$c.json" "$golden/$c/input.json"
done
for c in improvement-derived-kind regression-two-tests; do
	check "queued $c.json is gone from where it was" test ! -e "$tmp/in/$c.json"
	name=$(sed -n "s|^queued $c.json as incoming/||p" "$tmp/q1.err")
	if [ -n "$name" ] && cmp -s "$state/spool/incoming/$name" "$golden/$c/input.json"; then
		ok "$c.json is in the spool byte for byte as $name"
	else
		not_ok "$c.json is in the spool byte for byte" "name '$name'" "$(ls "$state/spool/incoming" 2>&1)"
	fi
	case $name in
	[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-*-*-"$c.json") ok "spool name $name has time, pid and counter" ;;
	*) not_ok "spool name '$name' has time, pid and counter" ;;
	esac
done
check "the spool is private" test "$(stat -c %a "$state/spool/incoming")" = 700
check "nothing but the two files is in incoming" test "$(ls -A "$state/spool/incoming" | wc -l)" -eq 2

# --- queue: usage and odd arguments -----------------------------------------
pb queue >/dev/null 2>&1
check "queue without files exits 64" test $? -eq 64
pb queue "$tmp/in/missing.json" >/dev/null 2>"$tmp/q2.err"
rc=$?
check "queue of a missing file exits 66 (the README's code for an unreadable input) and names it" sh -c "[ $rc -eq 66 ] && grep -q 'missing.json: cannot read' '$tmp/q2.err'"
cp "$golden/improvement-derived-kind/input.json" "$tmp/in/target.json"
ln -s "$tmp/in/target.json" "$tmp/in/link.json"
pb queue "$tmp/in/link.json" >/dev/null 2>"$tmp/q3.err"
rc=$?
check "queue refuses a symbolic link (exit 65) and leaves it" sh -c "[ $rc -eq 65 ] && [ -L '$tmp/in/link.json' ] && grep -q 'symbolic link' '$tmp/q3.err'"
printf '[perfbot]\n\tnoSuchKey = 1\n' >"$tmp/bad.config"
"$perfbot" --config "$tmp/bad.config" queue "$tmp/in/target.json" >/dev/null 2>&1
check "queue with a bad configuration exits 78" test $? -eq 78
check "... and leaves the file" test -f "$tmp/in/target.json"
pb queue "$tmp/in/target.json" >"$tmp/q4.out" 2>&1
check "queue of one good file exits 0" test $? -eq 0
# a producer's half-written dot-file is not counted
echo '{' >"$state/spool/incoming/.tmp-producer.json"

# --- status with a spool and no database ------------------------------------
pb status --json >"$tmp/s1.json" 2>"$tmp/s1.err"
check "status --json counts the spool" status_json "$tmp/s1.json" '
assert (d["spool"]["incoming"], d["spool"]["rejected"]) == (3, 0), d["spool"]
w = d["spool"]["waiting"]
assert len(w) == 3 and all(x["refused"] is None and x["until"] for x in w), w
assert d["reports"] == [], d
'
pb status >"$tmp/s1.txt" 2>&1
check "human status counts the spool" grep -q '^spool: 3 incoming, 0 rejected$' "$tmp/s1.txt"
check "status still created no database" test ! -e "$state/state.db"

# --- status with reports of every kind ---------------------------------------
# An empty file is an empty SQLite database: status opens it and brings it
# to the current schema; the rows are then written as send would leave them.
: >"$state/state.db"
pb status --json >"$tmp/s2.json" 2>"$tmp/s2.err"
check "status migrates an empty database" status_json "$tmp/s2.json" 'assert d["reports"] == [], d'
python3 - "$state/state.db" >"$tmp/py.out" 2>&1 <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
def report(mid, subject, status, attempts, created, sent=None, next_attempt=None, last_reply=None,
           kind="report", parent=None, state="open", cc="oe-lkp@lists.linux.dev\nlkp@intel.com"):
    cur = db.execute(
        "INSERT INTO reports (message_id, kind, parent_id, thread_key, identity, subject, from_name,"
        " from_email, env_from, env_rcpt, to_addrs, cc_addrs, status, attempts, next_attempt,"
        " last_reply, created, sent, state) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (mid, kind, parent, "key", "identity", subject, "lab", "lab@example.org", "lab@example.org",
         "ankur.a.arora@oracle.com", "ankur.a.arora@oracle.com", cc, status, attempts,
         next_attempt, last_reply, created, sent, state))
    rid = cur.lastrowid
    db.execute("INSERT INTO report_mails (report_id, mail) VALUES (?, ?)", (rid, b"mail"))
    db.execute("UPDATE reports SET thread_id = ? WHERE id = ?", (parent or rid, rid))
    return rid
r1 = report("202603101342.297fb270-lkp@intel.com",
            "[linus:master] [mm]  9890ecab6a: vm-scalability.throughput 3.8% regression",
            "sent", 1, 1773121320, sent=1773124740, last_reply="250 2.0.0 Ok: queued as 4Z7")
report("later@lab", "deferred one", "queued", 2, 1773121320, next_attempt=1773125040,
       last_reply="451 4.3.0 try again", cc="")
report("crashed@lab", "killed while sending", "sending", 1, 1773121320)
report("failed@lab", "refused one", "failed", 1, 1773121320, last_reply="550 5.1.1 no such user",
       state="invalid")
report("fu@lab", "Re: follow-up", "queued", 0, 1773121400, kind="followup", parent=r1)
db.execute("INSERT INTO messages (message_id, report_id, origin, date) VALUES (?, ?, 'ingested', ?)",
           ("m3y0xyz123.fsf@oracle.com", r1, 1773255840))
hour = int(time.time()) // 3600
db.executemany("INSERT INTO send_log (hour, count) VALUES (?, 3)", [(hour,), (hour + 1,)])
db.commit()
PY
check "rows written with python3's sqlite3" test $? -eq 0
pb status --json >"$tmp/s3.json" 2>"$tmp/s3.err"
check "status --json exits 0 with reports" test $? -eq 0
check "status --json reports have the spec's keys and values" status_json "$tmp/s3.json" '
keys = {"id", "message_id", "subject", "status", "attempts", "created", "sent", "next_attempt",
        "last_reply", "to", "cc", "replies", "state", "followups"}
r = d["reports"]
assert len(r) == 5, r
for x in r:
    assert set(x) >= keys, set(x) ^ keys
want = {"id": 1, "message_id": "202603101342.297fb270-lkp@intel.com",
        "subject": "[linus:master] [mm]  9890ecab6a: vm-scalability.throughput 3.8% regression",
        "status": "sent", "attempts": 1, "created": "2026-03-10T05:42:00Z",
        "sent": "2026-03-10T06:39:00Z", "next_attempt": None,
        "last_reply": "250 2.0.0 Ok: queued as 4Z7", "to": ["ankur.a.arora@oracle.com"],
        "cc": ["oe-lkp@lists.linux.dev", "lkp@intel.com"], "replies": 1, "state": "open",
        "followups": 1}
assert {k: r[0][k] for k in keys} == want, r[0]
assert r[1]["status"] == "queued" and r[1]["next_attempt"] == "2026-03-10T06:44:00Z", r[1]
assert r[1]["cc"] == [] and r[1]["sent"] is None and r[1]["replies"] == 0, r[1]
assert r[2]["status"] == "queued" and r[2]["next_attempt"] is None, r[2]
assert r[3]["status"] == "failed" and r[3]["state"] == "invalid", r[3]
assert r[3]["last_reply"] == "550 5.1.1 no such user", r[3]
assert r[4]["followups"] == 0 and r[4]["last_reply"] is None, r[4]
assert d["sent_last_hour"] == 3, d["sent_last_hour"]
assert d["paused"] is False
'
pb status >"$tmp/s3.txt" 2>&1
check "human status lists each report" test "$(grep -c '^ *[0-9]  ' "$tmp/s3.txt")" -eq 5
check "human status shows a sent report's subject" grep -q '^ *1  sent .*vm-scalability.throughput 3.8% regression$' "$tmp/s3.txt"
check "human status shows the refusal" grep -q 'refused: 550 5.1.1 no such user' "$tmp/s3.txt"
check "human status shows sent this hour" grep -q '^sent this hour: 3 ' "$tmp/s3.txt"
printf '\tpaused = true\n' >>"$tmp/config"
pb status --json >"$tmp/s4.json" 2>&1
check "status --json shows paused" status_json "$tmp/s4.json" 'assert d["paused"] is True'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
