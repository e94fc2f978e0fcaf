#!/bin/sh
# pi-imap.sh: `perfbot ingest --imap` and `check --imap` against the real
# public-inbox-imapd on 127.0.0.1 (tests/helpers/pi-imapd.sh), serving a
# v2 inbox this test builds with public-inbox's own writer.
#
# The server runs with 3 messages per slice instead of 50,000 (pi-imapd.sh
# says how: public-inbox has no setting for it), so ten mails make the
# mailboxes test.inbox.0 to test.inbox.3 as lore's big lists have theirs:
#   - the URL naming the inbox reads every slice in order, each mail once,
#     with one cursor per slice; a second run takes nothing;
#   - mails added to the inbox are taken by the next run, also from a slice
#     that did not exist before;
#   - naming one slice reads that one only;
#   - check --imap says it is a sliced inbox and how many slices;
#   - --since on a first read starts at that day, and the cursors it leaves
#     keep the older mail out of later runs; without --since, a first read
#     starts at the day the oldest open report was made;
#   - the server stopped in the middle of a run (at the EXAMINE of the
#     second slice, tests/helpers/tcp-cut.py): exit 75 with the first
#     slice filed, and the next run completes, each mail once.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
pi=$top/tests/helpers/pi-imapd.sh
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"
skip_all() {
	echo "skip: $1"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}
command -v python3 >/dev/null || skip_all "python3 is not installed"
command -v public-inbox-imapd >/dev/null ||
	skip_all "public-inbox is not installed (tests/helpers/install-deps.sh test)"

golden_start
relay=
cleanup_all() {
	[ -n "$relay" ] && kill "$relay" 2>/dev/null
	sh "$pi" stop "$tmp/pi" 2>/dev/null
	golden_cleanup
}
[ -n "${KEEP:-}" ] || trap cleanup_all EXIT
trap 'exit 1' INT TERM

# mails FIRST LAST: an mboxrd of mails mFIRST..mLAST, mail i dated
# 2026-02-(19+i) (public-inbox dates a mail without Received: by its Date:)
mails() {
	python3 - "$1" "$2" <<'PY'
import sys, datetime
for i in range(int(sys.argv[1]), int(sys.argv[2]) + 1):
    d = datetime.datetime(2026, 2, 19, 10, 0) + datetime.timedelta(days=i)
    print("From mboxrd@z Thu Jan  1 00:00:00 1970")
    print("From: Tester <tester@example.org>")
    print("To: test@example.org")
    print("Subject: mail %d" % i)
    print("Date: " + d.strftime("%a, %d %b %Y %H:%M:%S +0000"))
    print("Message-ID: <m%d@example.org>" % i)
    print()
    print("body of mail %d" % i)
    print()
PY
}

if ! sh "$pi" init "$tmp/pi" test.inbox >"$tmp/pi.log" 2>&1 ||
   ! mails 1 7 | sh "$pi" add "$tmp/pi" >>"$tmp/pi.log" 2>&1; then
	echo "FAIL making the inbox: $(cat "$tmp/pi.log")"
	echo "$pass passed, $((fail + 1)) failed"
	exit 1
fi
port=$(free_port)
start_server() {
	sh "$pi" start "$tmp/pi" "$1" 3 >"$tmp/pi-start.log" 2>&1 ||
		{ echo "FAIL public-inbox-imapd: $(cat "$tmp/pi-start.log")"; echo "$pass passed, $((fail + 1)) failed"; exit 1; }
}
start_server "$port"

printf 'anything\n' >"$tmp/pw"
chmod 600 "$tmp/pw"
# config NAME PORT: $tmp/NAME.conf, its state in $tmp/NAME, reading the inbox at PORT
config() {
	{
		sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/$1|" "$top/tests/golden/config"
		printf '[ingest]\n\tpasswordFile = %s\n\ttimeout = 10\n' "$tmp/pw"
		printf '\timap = imap://bot@127.0.0.1:%s/test.inbox\n' "$2"
	} >"$tmp/$1.conf"
}
# ingest NAME [ARG...]: a run with -v --all; its exit code in $rc, the
# Message-IDs it kept, in order and one a line, in $tmp/NAME.kept
ingest() {
	cname=$1
	shift
	"$perfbot" --config "$tmp/$cname.conf" ingest --all -v "$@" >"$tmp/$cname.out" 2>"$tmp/$cname.err"
	rc=$?
	sed -n 's/^imap:[0-9]*: <\(.*\)@example.org> kept$/\1/p' "$tmp/$cname.err" >"$tmp/$cname.kept"
}
kept() { tr '\n' ' ' <"$tmp/$1.kept" | sed 's/ $//'; }
known() { sed -n 's/^ingest: [0-9]* kept, \([0-9]*\) known already.*/\1/p' "$tmp/$1.err"; }
# cursors NAME: the stored cursors, "MAILBOX=LAST_UID" in order
cursors() {
	python3 - "$tmp/$1/state.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
rows = db.execute("select source, last_uid from cursors order by source").fetchall()
print(" ".join("%s=%d" % (s.rsplit("/", 1)[1], u) for s, u in rows))
PY
}

# 1. every slice in order, each mail once; then nothing
config all "$port"
ingest all
check_eq "first run: exit 0" 0 "$rc"
check_eq "first run: every mail of the three slices once, in order" "m1 m2 m3 m4 m5 m6 m7" "$(kept all)"
check_eq "first run: a cursor per slice" "test.inbox.0=3 test.inbox.1=6 test.inbox.2=7" "$(cursors all)"
ingest all
check_eq "second run: exit 0" 0 "$rc"
check_eq "second run: nothing taken, nothing read again" "/0" "$(kept all)/$(known all)"

# 2. new mail, in the open slice and in a slice that is new
mails 8 10 | sh "$pi" add "$tmp/pi" >>"$tmp/pi.log" 2>&1
ingest all
check_eq "after new mail: exit 0" 0 "$rc"
check_eq "after new mail: the three new ones, the last from the new slice test.inbox.3" \
	"m8 m9 m10/0" "$(kept all)/$(known all)"
check_eq "after new mail: the new slice has its cursor" \
	"test.inbox.0=3 test.inbox.1=6 test.inbox.2=9 test.inbox.3=10" "$(cursors all)"
ingest all
check_eq "and then nothing" "/0" "$(kept all)/$(known all)"

# 3. check --imap
"$perfbot" --config "$tmp/all.conf" check --imap >"$tmp/check.out" 2>&1
grep '^imap:' "$tmp/check.out" >"$tmp/check.imap"
check "check --imap: a sliced inbox of 4 slices, the newest described" \
	grep -q "LOGIN accepted; a sliced inbox (public-inbox): 4 slices, test.inbox.0 to test.inbox.3; 127.0.0.1:$port/test.inbox.3: UIDVALIDITY [0-9]*, 1 message" \
	"$tmp/check.imap"

# 4. one slice named: that one only
config one "$port"
ingest one --imap "imap://bot@127.0.0.1:$port/test.inbox.1"
check_eq "one slice named: exit 0" 0 "$rc"
check_eq "one slice named: its mails only" "m4 m5 m6" "$(kept one)"

# 5. --since on a first read
config since "$port"
ingest since --since 2026-02-26
check_eq "--since 2026-02-26: exit 0" 0 "$rc"
check_eq "--since 2026-02-26: the mails of that day on" "m7 m8 m9 m10" "$(kept since)"
check_eq "--since: every slice has its cursor, the older ones past their mail" \
	"test.inbox.0=10 test.inbox.1=10 test.inbox.2=9 test.inbox.3=10" "$(cursors since)"
ingest since
check_eq "--since, then a run without it: the older mail stays out" "0//0" "$rc/$(kept since)/$(known since)"
ingest since --since 2026-02-20
check_eq "--since on a mailbox read before: no effect" "0//0" "$rc/$(kept since)/$(known since)"

# 6. without --since, a first read starts at the oldest open report's day
# (the golden clock: 2026-02-25), and reads everything when none is open
config report "$port"
# no SMTP server: the report is made and waits in the outbox, open
printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' \
	"$(free_port)" >>"$tmp/report.conf"
cp "$top/tests/golden/regression-two-tests/input.json" "$tmp/report.json"	# send takes it away
"$perfbot" --config "$tmp/report.conf" send "$tmp/report.json" \
	>"$tmp/send.out" 2>&1
check_eq "a report is made (created 2026-02-25), no server to send it to" \
	"75/open" "$?/$("$perfbot" --config "$tmp/report.conf" status --json | jq_py "d['reports'][0]['state']")"
ingest report
check_eq "first read with an open report: from its day on" "0/m6 m7 m8 m9 m10" "$rc/$(kept report)"

# 7. the server stopped at the second slice's EXAMINE: exit 75, the first
# slice filed; the next run (the server back on the same port) completes
rport=$(free_port)
config cut "$rport"
python3 "$top/tests/helpers/tcp-cut.py" --port-file "$tmp/relay.port" --port "$rport" --to "$port" \
	--at 'EXAMINE "test.inbox.1"' --kill-pid "$(cat "$tmp/pi/imapd.pid")" >/dev/null 2>&1 &
relay=$!
i=0
while [ ! -s "$tmp/relay.port" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
ingest cut
wait "$relay" 2>/dev/null
relay_rc=$?
relay=
check_eq "server stopped mid-run: the relay stopped it at the second slice" 0 "$relay_rc"
check_eq "server stopped mid-run: exit 75" 75 "$rc"
check "server stopped mid-run: the message names the server" \
	grep -q "^perfbot ingest: imap 127.0.0.1:$rport/test.inbox.1: " "$tmp/cut.err"
check_eq "server stopped mid-run: the first slice filed" "m1 m2 m3/test.inbox.0=3" "$(kept cut)/$(cursors cut)"
sh "$pi" stop "$tmp/pi"
start_server "$rport"
ingest cut
check_eq "the next run: exit 0, the rest, each once" "0/m4 m5 m6 m7 m8 m9 m10/0" "$rc/$(kept cut)/$(known cut)"
ingest cut
check_eq "and then nothing" "0//0" "$rc/$(kept cut)/$(known cut)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
