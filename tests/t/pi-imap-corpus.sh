#!/bin/sh
# pi-imap-corpus.sh: a real list read over IMAP from public-inbox-imapd.
# The ksummit corpus (../shared/corpora/ksummit.mboxrd.gz, 3,115 mails of
# which public-inbox keeps 3,112) is imported with public-inbox's own
# writer and served by the real public-inbox-imapd at its real slice size
# (tests/helpers/pi-imapd.sh); `perfbot ingest --all --imap` names the
# inbox, not the slice:
#   - the first run takes every mail the server has, once (as many as
#     public-inbox indexed), and a second run takes nothing;
#   - a run killed with SIGKILL once it has filed a batch, then a run: each
#     mail once.
# Skipped, with the reason, without ../shared.
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
corpus=$top/../shared/corpora/ksummit.mboxrd.gz
[ -f "$corpus" ] || skip_all "no ../shared/corpora/ksummit.mboxrd.gz (the shared corpora are not here)"
command -v python3 >/dev/null || skip_all "python3 is not installed"
command -v public-inbox-imapd >/dev/null ||
	skip_all "public-inbox is not installed (tests/helpers/install-deps.sh test)"

tmp=$(mktemp -d)
run=
cleanup() {
	[ -n "$run" ] && kill -9 "$run" 2>/dev/null
	sh "$pi" stop "$tmp/pi" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! sh "$pi" init "$tmp/pi" org.kernel.ksummit >"$tmp/pi.log" 2>&1 ||
   ! gzip -dc "$corpus" | sh "$pi" add "$tmp/pi" >>"$tmp/pi.log" 2>&1; then
	echo "FAIL making the inbox: $(cat "$tmp/pi.log")"
	echo "0 passed, 1 failed"
	exit 1
fi
served=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select count(*) from over where num > 0").fetchone()[0])' \
	"$tmp/pi/inbox/xap15/over.sqlite3")
port=$(free_port)
sh "$pi" start "$tmp/pi" "$port" >"$tmp/start.log" 2>&1 ||
	{ echo "FAIL public-inbox-imapd: $(cat "$tmp/start.log")"; echo "0 passed, 1 failed"; exit 1; }

printf 'anything\n' >"$tmp/pw"
chmod 600 "$tmp/pw"
url=imap://anonymous@127.0.0.1:$port/org.kernel.ksummit
# config NAME: $tmp/NAME.conf with its state in $tmp/NAME
config() {
	printf '[perfbot]\n\tstate = %s\n[ingest]\n\tpasswordFile = %s\n\ttimeout = 60\n' \
		"$tmp/$1" "$tmp/pw" >"$tmp/$1.conf"
}
# summary NAME: "KEPT/KNOWN" of the last run's summary line
summary() { sed -n 's/^ingest: \([0-9]*\) kept, \([0-9]*\) known already.*/\1\/\2/p' "$tmp/$1.err"; }
# distinct NAME: the Message-IDs in NAME's state, and how many are distinct
distinct() {
	python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print("%d/%d" % db.execute("select count(*), count(distinct message_id) from messages").fetchone())' \
		"$tmp/$1/state.db"
}

check_eq "public-inbox serves the 3,112 mails it indexes of the corpus's 3,115" 3112 "$served"

config one
"$perfbot" --config "$tmp/one.conf" ingest --all -v --imap "$url" >/dev/null 2>"$tmp/one.err"
check_eq "first run: exit 0" 0 $?
check_eq "first run: every mail the server has, once" "$served/0" "$(summary one)"
check_eq "first run: the state holds each once" "$served/$served" "$(distinct one)"
python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(" ".join("%s=%d" % r for r in db.execute("select source, last_uid from cursors")))' \
	"$tmp/one/state.db" >"$tmp/one.cursors"
check_eq "first run: one cursor, for slice .0, at the last UID" "imap:$url.0=$served" "$(cat "$tmp/one.cursors")"
"$perfbot" --config "$tmp/one.conf" ingest --all -v --imap "$url" >/dev/null 2>"$tmp/one.err"
check_eq "second run: exit 0, nothing taken or read again" "0 0/0" "$? $(summary one)"

# SIGKILL once the first batch is filed (its cursor stored), then a run
config kill
"$perfbot" --config "$tmp/kill.conf" ingest --all --imap "$url" >/dev/null 2>"$tmp/kill.err" &
run=$!
python3 - "$tmp/kill/state.db" "$run" <<'PY'
import os, sqlite3, sys, time
path, pid = sys.argv[1], int(sys.argv[2])
while True:
    try:
        os.kill(pid, 0)
    except OSError:
        break	# it ended first: the check below still holds
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=1)
        n = db.execute("select count(*) from cursors where last_uid > 0").fetchone()[0]
        db.close()
        if n:
            os.kill(pid, 9)
            break
    except sqlite3.Error:
        pass
    time.sleep(0.02)
PY
wait "$run" 2>/dev/null
killed=$?
run=
"$perfbot" --config "$tmp/kill.conf" ingest --all -v --imap "$url" >/dev/null 2>"$tmp/kill.err"
check_eq "killed (exit $killed), then a run: exit 0" 0 $?
check_eq "killed, then a run: each mail once" "$served/$served" "$(distinct kill)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
