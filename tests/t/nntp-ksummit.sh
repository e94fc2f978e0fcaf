#!/bin/sh
# nntp-ksummit.sh: a real list over NNTP.  The ksummit corpus
# (../shared/corpora/ksummit.mboxrd.gz, 3,115 mails, 3,112 Message-IDs)
# is filed by perfbot's archive writer, served by Debian's
# public-inbox-nntpd on 127.0.0.1 (tests/helpers/pi-nntpd.sh), and read
# back with `perfbot ingest --all --nntp` into a fresh state: every
# article once, the same Message-IDs as the list's, public-inbox finds the
# 144 threads in what perfbot filed, and a second run takes nothing.
# Skipped, saying why, where ../shared is absent (a clean clone alone).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
pinntpd=$top/tests/helpers/pi-nntpd.sh
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
skip_all() {
	echo "skip: $1"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}
corpus=$top/../shared/corpora/ksummit.mboxrd.gz
[ -f "$corpus" ] || skip_all "../shared/corpora/ksummit.mboxrd.gz is absent (the shared suites need ../shared beside the repository)"
command -v public-inbox-nntpd >/dev/null || skip_all "public-inbox is not installed (tests/helpers/install-deps.sh test)"

tmp=$(mktemp -d)
cleanup() {
	sh "$pinntpd" stop "$tmp/pi" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=$tmp/home
mkdir -p "$HOME"
config() {
	printf '[perfbot]\n\tfrom = perfbot lab <perfbot@lab.example.org>\n\tstate = %s\n' "$1"
}
ids() { # STATE: its Message-IDs, sorted
	python3 -c "import sqlite3,sys; [print(r[0]) for r in sqlite3.connect(sys.argv[1]).execute('select message_id from messages order by 1')]" "$1/state.db"
}

gzip -dc "$corpus" >"$tmp/ks.mbox"
config "$tmp/list" >"$tmp/cl"
"$perfbot" --config "$tmp/cl" ingest --all --mbox "$tmp/ks.mbox" 2>/dev/null
port=$(free_port)
out=$(sh "$pinntpd" start "$tmp/pi" "$port" "$tmp/list/archive=lists.ksummit" 2>&1) ||
	{ echo "not ok public-inbox-nntpd does not start: $out"; echo "0 passed, 1 failed"; exit 1; }

config "$tmp/s" >"$tmp/c"
"$perfbot" --config "$tmp/c" ingest --all --since 2000-01-01 --nntp "nntp://127.0.0.1:$port/lists.ksummit" 2>"$tmp/1.log"
check "ksummit over NNTP: exit 0" test $? -eq 0
ids "$tmp/list" >"$tmp/list.ids"
ids "$tmp/s" >"$tmp/s.ids"
check_eq "ksummit over NNTP: 3112 mails, the list's Message-IDs" "3112" "$(wc -l <"$tmp/s.ids" | tr -d ' ')"
check "ksummit over NNTP: ... exactly the archive's" cmp -s "$tmp/list.ids" "$tmp/s.ids"
check "ksummit over NNTP: all kept" grep -q "^ingest: 3112 kept, 0 known already" "$tmp/1.log"
out=$(sh "$top/tests/helpers/pi-check.sh" "$tmp/s/archive" 2>&1)
check_eq "ksummit over NNTP: public-inbox finds 3112 mails in 144 threads in perfbot's archive" "3112|144" "$out"
"$perfbot" --config "$tmp/c" ingest --all --nntp "nntp://127.0.0.1:$port/lists.ksummit" 2>"$tmp/2.log"
check "ksummit over NNTP: a second run takes nothing" test $? -eq 0 -a ! -s "$tmp/2.log"
echo "$pass passed, $fail failed"
