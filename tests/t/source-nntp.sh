#!/bin/sh
# source-nntp.sh: `perfbot ingest --nntp` and `check --nntp` against Debian's
# real public-inbox-nntpd on 127.0.0.1 (tests/helpers/pi-nntpd.sh), serving
# inboxes perfbot's own archive writer made from generated lists (a
# producer state that ingests an mbox --all).  Between perfbot and the
# server a line-logging proxy (tests/helpers/nntp-proxy.py) counts the
# commands the server saw, and drops or hangs a connection at a chosen
# ARTICLE (a server that stops or times out mid-run).
#
# Every message taken once; a second run is GROUP and QUIT only; new mail
# taken next run; --since finds the first article of the day; the default
# first read (the oldest open report's day; with none, today); dropped and timed-out connections
# exit 75 with what was taken filed, and the next run completes; kill -9
# mid-run then a run: each mail once; a server that numbers again (its
# high mark below the cursor; its low mark above it, the first articles
# purged) is said and read from the day, nothing twice; `ingest` with no source reads every
# configured group over one connection per server, and one failing group
# does not stop the others (the worst exit code); nntps:// and ?starttls
# verified against a test CA, a refused certificate; URLs refused;
# `check --nntp`.  Every server started here is stopped by the EXIT trap.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
pinntpd=$top/tests/helpers/pi-nntpd.sh
proxy=$top/tests/helpers/nntp-proxy.py
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
skip_all() {
	echo "skip: $1"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}
command -v public-inbox-nntpd >/dev/null || skip_all "public-inbox is not installed (tests/helpers/install-deps.sh test)"
command -v python3 >/dev/null || skip_all "python3 is not installed"
command -v openssl >/dev/null || skip_all "openssl is not installed"

tmp=$(mktemp -d)
proxies=
cleanup() {
	for p in $proxies; do kill "$p" 2>/dev/null; done
	sh "$pinntpd" stop "$tmp/pi" 2>/dev/null
	rm -rf "$tmp"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT
trap 'exit 1' INT TERM
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=$tmp/home
mkdir -p "$HOME"

config() { # STATE [LINES...]: a configuration with its own state
	printf '[perfbot]\n\tfrom = perfbot lab <perfbot@lab.example.org>\n\tstate = %s\n[ingest]\n\ttimeout = 2\n' "$1"
	shift
	for l in "$@"; do printf '\t%s\n' "$l"; done
}
gen() { # N FIRST: an mbox of N mails, numbered from FIRST, 10 a day from 2026-03-01
	python3 - "$1" "$2" <<'PY'
import sys
n, first = int(sys.argv[1]), int(sys.argv[2])
for i in range(first, first + n):
    print("From dev@example.org Mon Mar  2 10:00:00 2026")
    print("From: Dev %d <dev%d@example.org>\nTo: list@example.org\nSubject: topic %d\n"
          "Message-ID: <n%d@example.org>\nDate: %s, %02d Mar 2026 10:%02d:00 +0000\n\nbody %d\n.a line with a dot\n..two\n"
          % (i % 7, i % 7, i, i, "Sun Mon Tue Wed Thu Fri Sat".split()[(i // 10) % 7],
             1 + (i // 10) % 28, i % 60, i))
PY
}
count() { # STATE: mails known, mails archived, archive commits
	n=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print('%d %d' % c.execute('select count(*), count(blob_oid) from messages').fetchone())" "$1/state.db")
	commits=0
	for e in "$1/archive/git/"*.git; do
		[ -d "$e" ] && commits=$((commits + $(git --git-dir="$e" rev-list --count master 2>/dev/null || echo 0)))
	done
	echo "$n $commits"
}
start_proxy() { # PORT LOG ARGS...: a proxy to the server
	pp=$1
	pl=$2
	shift 2
	python3 "$proxy" "$pp" "$port" "$pl" "$@" &
	proxies="$proxies $!"
	i=0
	while ! python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1]))).close()" "$pp" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || break
		sleep 0.1
	done
}

# The lists: inbox.test (30 mails, 2026-03-01..03) and inbox.two (5), as
# perfbot's archive writer stores them.
config "$tmp/pa" >"$tmp/ca"
config "$tmp/pb" >"$tmp/cb"
gen 30 0 >"$tmp/a1.mbox"
gen 5 200 >"$tmp/b.mbox"
"$perfbot" --config "$tmp/ca" ingest --all --mbox "$tmp/a1.mbox" 2>/dev/null
"$perfbot" --config "$tmp/cb" ingest --all --mbox "$tmp/b.mbox" 2>/dev/null
sh "$top/tests/helpers/make-test-certs.sh" "$tmp/certs" >"$tmp/certs.log" 2>&1 ||
	{ echo "not ok making the test certificates: $(cat "$tmp/certs.log")"; echo "0 passed, 1 failed"; exit 1; }
port=$(free_port)
sport=$(free_port)
out=$(CERTS=$tmp/certs NNTPS_PORT=$sport sh "$pinntpd" start "$tmp/pi" "$port" \
	"$tmp/pa/archive=inbox.test" "$tmp/pb/archive=inbox.two" 2>&1)
rc=$?
[ $rc -eq 77 ] && skip_all "$out"
[ $rc -eq 0 ] || { echo "not ok public-inbox-nntpd does not start: $out"; echo "0 passed, 1 failed"; exit 1; }
pport=$(free_port)
start_proxy "$pport" "$tmp/proxy.log"
url=nntp://127.0.0.1:$pport/inbox.test

# 1. every message once; the first read from --since
config "$tmp/s1" >"$tmp/c1"
"$perfbot" --config "$tmp/c1" ingest --all --since 2026-03-01 --nntp "$url" 2>"$tmp/1.log"
check "ingest --nntp: exit 0" test $? -eq 0
check "ingest --nntp: says where the first read starts" grep -q "first read of nntp://127.0.0.1:$pport/inbox.test from 2026-03-01, --since" "$tmp/1.log"
check_eq "ingest --nntp: 30 mails known, archived, committed once each" "30 30 30" "$(count "$tmp/s1")"
body() { # ARCHIVE SUBJECT: the body of that mail's blob
	c=$(git --git-dir="$1/git/0.git" log --format=%H -n1 --grep="^$2\$" master)
	git --git-dir="$1/git/0.git" cat-file blob "$c:m" | python3 -c "import sys; d=sys.stdin.buffer.read(); sys.stdout.buffer.write(d[d.index(b'\\n\\n'):])"
}
check_eq "ingest --nntp: the body byte for byte as the list's archive holds it (dots unstuffed, CRLF made LF)" \
	"$(body "$tmp/pa/archive" "topic 7" | od -c)" "$(body "$tmp/s1/archive" "topic 7" | od -c)"
body "$tmp/s1/archive" "topic 7" >"$tmp/n7.body"
check "ingest --nntp: ... its lines that begin with dots as sent" grep -qx '[.][.]two' "$tmp/n7.body"

# 2. a second run: nothing new, one connection, GROUP and QUIT only
: >"$tmp/proxy.log"
"$perfbot" --config "$tmp/c1" ingest --all --nntp "$url" 2>"$tmp/2.log"
check "ingest --nntp again: exit 0, silent" test $? -eq 0 -a ! -s "$tmp/2.log"
check_eq "ingest --nntp again: the server saw one connection, GROUP and QUIT" \
	"connect GROUP inbox.test QUIT " "$(tr '\n' ' ' <"$tmp/proxy.log")"

# 3. new mail added to the list is taken by the next run, and only it
gen 5 30 >"$tmp/a2.mbox"
"$perfbot" --config "$tmp/ca" ingest --all --mbox "$tmp/a2.mbox" 2>/dev/null
sh "$pinntpd" index "$tmp/pi" "$tmp/pa/archive" || not_ok "public-inbox-index of the new mail"
"$perfbot" --config "$tmp/c1" ingest --all --nntp "$url" 2>"$tmp/3.log"
check "ingest --nntp, new mail: exit 0" test $? -eq 0
check "ingest --nntp, new mail: 5 kept" grep -q "^ingest: 5 kept, 0 known already" "$tmp/3.log"
check_eq "ingest --nntp, new mail: 35 mails, once each" "35 35 35" "$(count "$tmp/s1")"

# 4. --since finds the first article of that day by XOVER dates
config "$tmp/s4" >"$tmp/c4"
: >"$tmp/proxy.log"
"$perfbot" --config "$tmp/c4" ingest --all --since 2026-03-02 --nntp "$url" 2>"$tmp/4.log"
check "ingest --since 2026-03-02: exit 0" test $? -eq 0
check_eq "ingest --since 2026-03-02: the 25 mails from that day on" "25 25 25" "$(count "$tmp/s4")"
check "ingest --since 2026-03-02: ARTICLE from number 11 on, nothing before" \
	test "$(grep '^ARTICLE' "$tmp/proxy.log" | head -n 1):$(grep -c '^ARTICLE' "$tmp/proxy.log")" = "ARTICLE 11:25"

# 5. no --since, no open report: from today, so nothing of March; the
#    cursor is set at the high mark and later mail is read
config "$tmp/s5" >"$tmp/c5"
"$perfbot" --config "$tmp/c5" ingest --all --nntp "$url" 2>"$tmp/5.log"
check "ingest, first read without --since: exit 0" test $? -eq 0
check "ingest, first read without --since: says it starts today, no report being open" grep -q "from [0-9-]*, today: no report is open" "$tmp/5.log"
check_eq "ingest, first read without --since: nothing older taken" "0 0 0" "$(count "$tmp/s5")"

# 5b. no --since, a report open since 2026-03-02 12:00 (queued while the
#     SMTP server could not be reached): from the first article of that day
sh "$top/tests/golden/make-repo.sh" "$tmp/repo" >/dev/null 2>&1
sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/s5b|" "$top/tests/golden/config" >"$tmp/c5b"
printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n' "$(free_port)" >>"$tmp/c5b"
PERFBOT_NOW=$(date -d '2026-03-02 12:00 UTC' +%s) "$perfbot" --config "$tmp/c5b" send \
	"$top/tests/golden/regression-two-tests/input.json" >/dev/null 2>&1
"$perfbot" --config "$tmp/c5b" ingest --all --nntp "$url" 2>"$tmp/5b.log"
check "ingest, first read with a report open: exit 0" test $? -eq 0
check "ingest, first read with a report open: from the day of its creation, said" grep -q "from 2026-03-02, the day of the oldest open report's creation" "$tmp/5b.log"
check_eq "ingest, first read with a report open: the 25 mails from that day on" "25" \
	"$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from messages where message_id like \'n%@example.org\'').fetchone()[0])" "$tmp/s5b/state.db")"

# 6. the server stops mid-run (the connection dropped when the 11th ARTICLE
#    arrives; pipelined, the answers before it may or may not have come):
#    exit 75, what came is filed; the next run completes
dport=$(free_port)
start_proxy "$dport" "$tmp/drop.log" --drop-after 10
config "$tmp/s6" >"$tmp/c6"
"$perfbot" --config "$tmp/c6" ingest --all --since 2026-03-01 --nntp "nntp://127.0.0.1:$dport/inbox.test" 2>"$tmp/6.log"
check_eq "ingest --nntp, connection dropped: exit 75" 75 "$?"
check "ingest --nntp, connection dropped: says the server closed it" grep -q "nntp 127.0.0.1:$dport: ARTICLE: the server closed the connection" "$tmp/6.log"
n6=$(count "$tmp/s6")
check "ingest --nntp, connection dropped: at most the 10 answered are filed ($n6)" test "${n6%% *}" -le 10 -a "$n6" = "${n6%% *} ${n6%% *} ${n6%% *}"
"$perfbot" --config "$tmp/c6" ingest --all --nntp "nntp://127.0.0.1:$dport/inbox.test" 2>"$tmp/6b.log"
check "ingest --nntp after the drop: exit 0" test $? -eq 0
check_eq "ingest --nntp after the drop: 35 mails, once each" "35 35 35" "$(count "$tmp/s6")"

# 7. the server stops answering at the 6th ARTICLE: ingest.timeout (2 s),
#    exit 75, the 5 taken filed; the next run completes
hport=$(free_port)
start_proxy "$hport" "$tmp/hang.log" --hang-after 5
config "$tmp/s7" >"$tmp/c7"
"$perfbot" --config "$tmp/c7" ingest --all --since 2026-03-01 --nntp "nntp://127.0.0.1:$hport/inbox.test" 2>"$tmp/7.log"
check_eq "ingest --nntp, server silent: exit 75" 75 "$?"
check_eq "ingest --nntp, server silent: the 5 answered before the silence are filed" "5 5 5" "$(count "$tmp/s7")"
"$perfbot" --config "$tmp/c7" ingest --all --nntp "nntp://127.0.0.1:$hport/inbox.test" 2>"$tmp/7b.log"
check "ingest --nntp after the timeout: exit 0" test $? -eq 0
check_eq "ingest --nntp after the timeout: 35 mails, once each" "35 35 35" "$(count "$tmp/s7")"

# 8. kill -9 of perfbot while it waits for the 13th article, then a run:
#    each mail once
kport=$(free_port)
start_proxy "$kport" "$tmp/kill.log" --hang-after 12 --mark "$tmp/at12"
config "$tmp/s8" >"$tmp/c8"
"$perfbot" --config "$tmp/c8" ingest --all --since 2026-03-01 --nntp "nntp://127.0.0.1:$kport/inbox.test" 2>/dev/null &
kp=$!
i=0
while [ ! -e "$tmp/at12" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 "$kp" 2>/dev/null
wait "$kp" 2>/dev/null
check_eq "ingest --nntp, kill -9: perfbot was killed while at work" 137 "$?"
"$perfbot" --config "$tmp/c8" ingest --all --since 2026-03-01 --nntp "nntp://127.0.0.1:$kport/inbox.test" 2>"$tmp/8.log"
check "ingest --nntp after kill -9: exit 0" test $? -eq 0
check_eq "ingest --nntp after kill -9: 35 mails, once each" "35 35 35" "$(count "$tmp/s8")"

# 9. `ingest` with no source: every configured group, one connection per
#    server; a group the server lacks fails alone, exit the worst (66)
config "$tmp/s9" "nntp = $url" "nntp = nntp://127.0.0.1:$pport/inbox.two" >"$tmp/c9"
: >"$tmp/proxy.log"
"$perfbot" --config "$tmp/c9" ingest --all --since 2026-03-01 2>"$tmp/9.log"
check "ingest, two groups configured: exit 0" test $? -eq 0
check_eq "ingest, two groups configured: 40 mails" "40 40 40" "$(count "$tmp/s9")"
check_eq "ingest, two groups configured: one connection, both groups on it" \
	"1:GROUP inbox.test GROUP inbox.two " "$(grep -c '^connect' "$tmp/proxy.log"):$(grep '^GROUP' "$tmp/proxy.log" | tr '\n' ' ')"
config "$tmp/s9b" "nntp = nntp://127.0.0.1:$pport/no.such.group" "nntp = nntp://127.0.0.1:$pport/inbox.two" >"$tmp/c9b"
"$perfbot" --config "$tmp/c9b" ingest --all --since 2026-03-01 2>"$tmp/9b.log"
check_eq "ingest, a group the server lacks: exit 66 (the worst)" 66 "$?"
check "ingest, a group the server lacks: says so" grep -q "no.such.group: the server has no such group" "$tmp/9b.log"
check_eq "ingest, a group the server lacks: the other group is read" "5 5 5" "$(count "$tmp/s9b")"

# 10. the server numbers again (another inbox served under the name, its
#     high mark below the cursor): said, read from the day, nothing twice
"$perfbot" --config "$tmp/c1" ingest --all --nntp "nntp://127.0.0.1:$pport/inbox.two" --since 2026-03-01 2>/dev/null
sh "$pinntpd" stop "$tmp/pi"
config "$tmp/pr" >"$tmp/cr"
{ gen 10 0; gen 3 100; } >"$tmp/r.mbox"
"$perfbot" --config "$tmp/cr" ingest --all --mbox "$tmp/r.mbox" 2>/dev/null
out=$(CERTS=$tmp/certs NNTPS_PORT=$sport sh "$pinntpd" start "$tmp/pi" "$port" \
	"$tmp/pr/archive=inbox.test" "$tmp/pb/archive=inbox.two" 2>&1) || not_ok "public-inbox-nntpd restarts: $out"
"$perfbot" --config "$tmp/c1" ingest --all --since 2026-03-01 --nntp "$url" 2>"$tmp/10.log"
check "ingest --nntp, renumbered: exit 0" test $? -eq 0
check "ingest --nntp, renumbered: says why it reads the group again" grep -q "reading nntp://127.0.0.1:$pport/inbox.test again: the high mark of inbox.test is 13, below the 35 read up to" "$tmp/10.log"
check "ingest --nntp, renumbered: the 3 new mails kept, the 10 known left out" grep -q "^ingest: 3 kept, 10 known already" "$tmp/10.log"
check_eq "ingest --nntp, renumbered: 43 mails (35 + inbox.two's 5 + 3), once each" "43 43 43" "$(count "$tmp/s1")"
"$perfbot" --config "$tmp/c1" ingest --all --nntp "$url" 2>"$tmp/10b.log"
check "ingest --nntp, renumbered, again: nothing" test ! -s "$tmp/10b.log"

# 11. TLS: nntps:// and ?starttls verified with ingest.caFile; a CA not
#     given: refused before anything is said
config "$tmp/s11" "caFile = $tmp/certs/ca.pem" >"$tmp/c11"
"$perfbot" --config "$tmp/c11" ingest --all --since 2026-03-01 --nntp "nntps://127.0.0.1:$sport/inbox.two" 2>"$tmp/11.log"
check "ingest --nntp nntps://: exit 0" test $? -eq 0
check_eq "ingest --nntp nntps://: 5 mails" "5 5 5" "$(count "$tmp/s11")"
config "$tmp/s11b" "caFile = $tmp/certs/ca.pem" >"$tmp/c11b"
"$perfbot" --config "$tmp/c11b" ingest --all --since 2026-03-01 --nntp "nntp://127.0.0.1:$port/inbox.two?starttls" 2>"$tmp/11b.log"
check "ingest --nntp ?starttls: exit 0" test $? -eq 0
check_eq "ingest --nntp ?starttls: 5 mails" "5 5 5" "$(count "$tmp/s11b")"
config "$tmp/s11c" >"$tmp/c11c"
"$perfbot" --config "$tmp/c11c" ingest --all --since 2026-03-01 --nntp "nntps://127.0.0.1:$sport/inbox.two" 2>"$tmp/11c.log"
check_eq "ingest --nntp nntps://, the test CA not trusted: exit 66" 66 "$?"
check "ingest --nntp nntps://, the test CA not trusted: says why" grep -q "not trusted" "$tmp/11c.log"

# 12. URLs
"$perfbot" --config "$tmp/c1" ingest --nntp nntp://example.org/inbox.test 2>"$tmp/12.log"
check "ingest --nntp: plain nntp:// to another host is refused (exit 64)" test $? -eq 64 -a -n "$(grep 'plain nntp:// only to 127.0.0.1' "$tmp/12.log")"
"$perfbot" --config "$tmp/c1" ingest --nntp "nntps://me@example.org/inbox.test" 2>"$tmp/12b.log"
check "ingest --nntp: a user in the URL is refused" grep -q "no user in the URL" "$tmp/12b.log"
"$perfbot" --config "$tmp/c1" ingest --nntp "nntps://example.org/a%0d%0aQUIT" 2>"$tmp/12c.log"
check "ingest --nntp: a group name that is not one is refused" grep -q "the group must be letters" "$tmp/12c.log"
"$perfbot" --config "$tmp/c1" ingest --since yesterday --nntp "$url" 2>"$tmp/12d.log"
check "ingest --since: a date that is not one is a usage error" test $? -eq 64

# 13. check --nntp
"$perfbot" --config "$tmp/c11" check --nntp "nntps://127.0.0.1:$sport/inbox.two" >"$tmp/13.log" 2>&1
check "check --nntp nntps://: the group's range, TLS verified" grep -q "^nntp: 127.0.0.1:$sport: TLS, certificate verified; group inbox.two: articles 1 to 5" "$tmp/13.log"
"$perfbot" --config "$tmp/c11" check --nntp "nntp://127.0.0.1:$port/no.such" >"$tmp/13b.log" 2>&1
check_eq "check --nntp, no such group: exit 78" 78 "$?"
fport=$(free_port)
"$perfbot" --config "$tmp/c11" check --nntp "nntp://127.0.0.1:$fport/inbox.two" >"$tmp/13c.log" 2>&1
check_eq "check --nntp, no server: exit 75" 75 "$?"

# 14. the group rebuilt with its first articles expired: its low mark above
#     the cursor.  A state reads inbox.two (5 articles, 2026-03-21); then the
#     server serves under that name another inbox: 8 mails of 2026-03-20,
#     the same 5, 2 new of 2026-03-22, whose first 7 are purged
#     (public-inbox-purge: their numbers are gone, the low mark is 8).  Said,
#     read again from the --since day: the 5 known left out, the 2 new kept,
#     nothing of 2026-03-20 taken.
config "$tmp/s14" >"$tmp/c14"
"$perfbot" --config "$tmp/c14" ingest --all --since 2026-03-21 --nntp "nntp://127.0.0.1:$pport/inbox.two" 2>"$tmp/14a.log"
check_eq "ingest --nntp, before the group is rebuilt: inbox.two's 5 mails" "5 5 5" "$(count "$tmp/s14")"
config "$tmp/pe" >"$tmp/ce"
gen 8 190 >"$tmp/e-old.mbox"
{ cat "$tmp/e-old.mbox"; gen 5 200; gen 2 210; } >"$tmp/e.mbox"
"$perfbot" --config "$tmp/ce" ingest --all --mbox "$tmp/e.mbox" 2>/dev/null
mkdir -p "$tmp/expired"
python3 - "$tmp/e-old.mbox" "$tmp/expired" <<'PY'
import sys
mails = open(sys.argv[1]).read().split("From dev@example.org Mon Mar  2 10:00:00 2026\n")[1:]
for i, m in enumerate(mails[:7]):
    open("%s/%d.eml" % (sys.argv[2], i), "w").write(m)
PY
sh "$pinntpd" stop "$tmp/pi"
out=$(CERTS=$tmp/certs NNTPS_PORT=$sport sh "$pinntpd" start "$tmp/pi" "$port" \
	"$tmp/pr/archive=inbox.test" "$tmp/pe/archive=inbox.two" 2>&1) || not_ok "public-inbox-nntpd restarts: $out"
out=$(sh "$pinntpd" purge "$tmp/pi" "$tmp/pe/archive" "$tmp/expired/"*.eml 2>&1) || not_ok "public-inbox-purge: $out"
"$perfbot" --config "$tmp/c14" check --nntp "nntp://127.0.0.1:$pport/inbox.two" >"$tmp/14c.log" 2>&1
check "check --nntp: the rebuilt group's low mark is 8" grep -q "group inbox.two: articles 8 to 15" "$tmp/14c.log"
: >"$tmp/proxy.log"
"$perfbot" --config "$tmp/c14" ingest --all --since 2026-03-21 --nntp "nntp://127.0.0.1:$pport/inbox.two" 2>"$tmp/14.log"
check "ingest --nntp, low mark above the cursor: exit 0" test $? -eq 0
check "ingest --nntp, low mark above the cursor: says why it reads the group again" \
	grep -q "reading nntp://127.0.0.1:$pport/inbox.two again: the low mark of inbox.two is 8, above the 5 read up to" "$tmp/14.log"
check "ingest --nntp, low mark above the cursor: from the --since day" \
	grep -q "first read of nntp://127.0.0.1:$pport/inbox.two from 2026-03-21" "$tmp/14.log"
check "ingest --nntp, low mark above the cursor: the 2 new kept, the 5 known left out" \
	grep -q "^ingest: 2 kept, 5 known already" "$tmp/14.log"
check_eq "ingest --nntp, low mark above the cursor: ARTICLE 9 to 15, none of the day before" \
	"ARTICLE 9 ARTICLE 10 ARTICLE 11 ARTICLE 12 ARTICLE 13 ARTICLE 14 ARTICLE 15" \
	"$(grep '^ARTICLE' "$tmp/proxy.log" | paste -sd' ')"
check_eq "ingest --nntp, low mark above the cursor: 7 mails, once each" "7 7 7" "$(count "$tmp/s14")"
"$perfbot" --config "$tmp/c14" ingest --all --nntp "nntp://127.0.0.1:$pport/inbox.two" 2>"$tmp/14b.log"
check "ingest --nntp, low mark above the cursor, again: nothing" test ! -s "$tmp/14b.log"

echo "$pass passed, $fail failed"
