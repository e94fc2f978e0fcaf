#!/bin/sh
# source-imap.sh: the IMAP source (bot/imap.c under bot/source.c) against a
# real Dovecot of our own on 127.0.0.1 (tests/helpers/dovecot.sh), driven by
# `tests/unit/test-source --imap`, which prints "imap:UID SIZE" for each
# message it takes, writes it to OUTDIR/UID and keeps the cursor in a file.
#
# STARTTLS verified against a test CA; implicit TLS (imaps://) through a
# small TLS front end (python3 ssl) before the same Dovecot; certificates
# refused for a wrong host name and a self-signed chain with nothing sent
# after the handshake (Dovecot logs no login); cursor resume; the n:*
# quirk; UIDVALIDITY change; CRLF -> LF; nothing marked \Seen; oversized
# mail skipped without fetching it; bad password, missing mailbox, no
# server.  Every server started here is stopped by the EXIT trap.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
drv=$top/tests/unit/test-source
dovecot=$top/tests/helpers/dovecot.sh
pass=0
fail=0

. "$top/tests/helpers/tlib.sh"
skip_all() {
	echo "skip: $1"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}

[ -x "$drv" ] || { echo "FAIL $drv is not built"; echo "0 passed, 1 failed"; exit 1; }
command -v dovecot >/dev/null || skip_all "dovecot is not installed (tests/helpers/install-deps.sh test)"
command -v openssl >/dev/null || skip_all "openssl is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
[ "$(id -u)" = 0 ] || skip_all "Dovecot's test user runs as nobody, which needs root"

tmp=$(mktemp -d)
chmod 755 "$tmp"
proxy_pid=
cleanup() {
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
	sh "$dovecot" stop "$tmp/dc" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

port=$(free_port)
tport=$(free_port)
user=bot
pw='test pass"word'
maildir=$tmp/dc/home/$user/Maildir
log=$tmp/dc/log/dovecot.log
certs=$tmp/certs
out=$tmp/out
mkdir -p "$out"

# The test CA, a server certificate for 127.0.0.1 and localhost, one for
# another host signed by the same CA, and a self-signed one.
if ! sh "$top/tests/helpers/make-test-certs.sh" "$certs" >"$tmp/certs.log" 2>&1; then
	echo "FAIL making the test certificates: $(cat "$tmp/certs.log")"
	echo "0 passed, 1 failed"
	exit 1
fi
ca=$certs/ca.pem

# start_dovecot CERTNAME
start_dovecot() {
	sh "$dovecot" stop "$tmp/dc" 2>/dev/null
	sh "$dovecot" start "$tmp/dc" "$port" "$user" "$pw" "$certs/$1.pem" "$certs/$1.key" ||
		{ echo "FAIL Dovecot did not start"; echo "$pass passed, $((fail + 1)) failed"; exit 1; }
}

# deliver NAME MESSAGE-ID [BODY]: a message file in new/, as an MDA leaves it
n=0
deliver() {
	n=$((n + 1))
	printf 'From: Tester <tester@example.org>\nTo: bot@example.org\nSubject: message %s\nMessage-ID: <%s@example.org>\n\n%s\n' \
		"$1" "$2" "${3:-body of $1}" >"$tmp/msg-$1"
	cp "$tmp/msg-$1" "$maildir/new/170000000$n.M$n.test"
	chown nobody:nogroup "$maildir/new/170000000$n.M$n.test"
}

# fetch URL STATE [noack]: runs the driver; sets rc, stdout in $tmp/stdout, stderr in $tmp/stderr
fetch() {
	rm -f "$out"/*
	"$drv" --imap "$1" "$pw" "$ca" "$tmp/$2" "$out" ${3:-} >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
}
# the UIDs taken, space-separated
uids() {
	sed -n 's/^imap:\([0-9]*\) .*/\1/p' "$tmp/stdout" | tr '\n' ' ' | sed 's/ $//'
}
logins() {
	grep -c 'imap-login: Login:' "$log" 2>/dev/null
}

starttls="imap://$user@127.0.0.1:$port/INBOX?starttls"

start_dovecot server
deliver 1 one
deliver 2 two "a body with
several lines"
deliver 3 three

# 1. STARTTLS, certificate verified against the test CA; every message, CRLF -> LF
fetch "$starttls" state
check_eq "starttls: all three messages" "0 1 2 3" "$rc $(uids)"
[ "$rc" = 0 ] || sed 's/^/  /' "$tmp/stderr"
same=0
for i in 1 2 3; do
	cmp -s "$out/$i" "$tmp/msg-$i" && same=$((same + 1))
done
check_eq "starttls: bytes as delivered (Dovecot's CRLF turned back into LF)" 3 "$same"
check_eq "no CR in what was fetched" "3 0" "$(ls "$out" | wc -l) $(cat "$out"/* | tr -cd '\r' | wc -c)"
validity=$(cut -d' ' -f1 "$tmp/state")
check_eq "the cursor holds the last UID" "3" "$(cut -d' ' -f2 "$tmp/state")"
check_eq "nothing was marked \\Seen (EXAMINE, BODY.PEEK[])" "" \
	"$(ls "$maildir/cur" "$maildir/new" | grep ':2,.*S' || true)"

# 2. the n:* quirk: the server answers UID SEARCH UID 4:* with 3, the source filters it
quirk=$(python3 - "$port" "$user" "$pw" <<'EOF' 2>&1
import imaplib, sys
m = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
m.login(sys.argv[2], sys.argv[3])
m.select("INBOX", readonly=True)
print(m.uid("SEARCH", "UID", "4:*")[1][0].decode())
m.logout()
EOF
)
check_eq "the server shows the n:* quirk (UID SEARCH UID 4:* finds 3)" "3" "$quirk"
fetch "$starttls" state
check_eq "resume with nothing new: nothing taken" "0 " "$rc $(uids)"

# 3. resume: only the new ones
deliver 4 four
deliver 5 five
fetch "$starttls" state
check_eq "resume: only the new messages" "0 4 5" "$rc $(uids)"
check_eq "resume: cursor" "$validity 5" "$(cat "$tmp/state")"

# 4. without acks the cursor stays and the message comes again
deliver 6 six
fetch "$starttls" state noack
check_eq "not acked: taken" "0 6" "$rc $(uids)"
fetch "$starttls" state
check_eq "not acked: taken again next time" "0 6" "$rc $(uids)"

# 5. host name: localhost matches the certificate's DNS name too
fetch "imap://$user@localhost:$port/INBOX?starttls" state-localhost
check_eq "starttls to localhost" "0 1 2 3 4 5 6" "$rc $(uids)"

# 6. implicit TLS (imaps://) through a TLS front end before the same Dovecot
cat >"$tmp/front.py" <<'EOF'
import socket, ssl, sys, threading
port, up, cert, key = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(8)
print("ready", flush=True)
def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
while True:
    c, _ = ls.accept()
    try:
        t = ctx.wrap_socket(c, server_side=True)
    except (OSError, ssl.SSLError):
        c.close()
        continue
    u = socket.create_connection(("127.0.0.1", up))
    threading.Thread(target=pump, args=(t, u), daemon=True).start()
    threading.Thread(target=pump, args=(u, t), daemon=True).start()
EOF
# start_front CERTNAME
start_front() {
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null
	# gone before the new one starts: the old file's "ready" would be read
	# before the shell's redirection below empties it (a flaky failure)
	rm -f "$tmp/front.out"
	python3 "$tmp/front.py" "$tport" "$port" "$certs/$1.pem" "$certs/$1.key" >"$tmp/front.out" 2>&1 &
	proxy_pid=$!
	i=0
	while ! grep -q ready "$tmp/front.out" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
start_front server
fetch "imaps://$user@127.0.0.1:$tport/INBOX" state-imaps
check_eq "imaps: all messages" "0 1 2 3 4 5 6" "$rc $(uids)"
[ "$rc" = 0 ] || sed 's/^/  /' "$tmp/stderr"
cmp -s "$out/2" "$tmp/msg-2" && ok "imaps: bytes as delivered" || not_ok "imaps: bytes as delivered"

before=$(logins)
start_front self
fetch "imaps://$user@127.0.0.1:$tport/INBOX" state-bad
check_eq "imaps, self-signed certificate: refused" "1" "$rc"
grep -q 'not trusted' "$tmp/stderr" && ok "imaps, self-signed: says why" ||
	not_ok "imaps, self-signed: says why: $(cat "$tmp/stderr")"
check_eq "imaps, self-signed: no login reached Dovecot" "$before" "$(logins)"
check_eq "imaps, self-signed: no cursor written" "no" "$([ -f "$tmp/state-bad" ] && echo yes || echo no)"
kill "$proxy_pid" 2>/dev/null
wait "$proxy_pid" 2>/dev/null
proxy_pid=

# 7. STARTTLS with certificates that must be refused: nothing after the handshake
for c in wrong self; do
	start_dovecot "$c"
	: >"$log"
	fetch "$starttls" state-bad
	check_eq "starttls, $c certificate: refused" "1" "$rc"
	case $c in
	wrong) want='another host name' ;;
	self) want='issuer unknown' ;;
	esac
	grep -q "$want" "$tmp/stderr" && ok "starttls, $c certificate: says '$want'" ||
		not_ok "starttls, $c certificate: message: $(cat "$tmp/stderr")"
	check_eq "starttls, $c certificate: Dovecot saw no login" "0" "$(logins)"
	grep -Eq 'no auth attempts|before auth was ready' "$log" &&
		ok "starttls, $c certificate: Dovecot saw no auth attempt" ||
		not_ok "starttls, $c certificate: Dovecot's log: $(cat "$log")"
done
start_dovecot server

# 8. plain imap:// to loopback, a missing mailbox, no server
fetch "imap://$user@127.0.0.1:$port/INBOX" state-plain
check_eq "plain imap:// to 127.0.0.1" "0 1 2 3 4 5 6" "$rc $(uids)"
fetch "imap://$user@127.0.0.1:$port/NoSuchBox?starttls" state-x
check_eq "missing mailbox: refused" "1" "$rc"
grep -q 'NoSuchBox' "$tmp/stderr" && ok "missing mailbox: named" || not_ok "missing mailbox: $(cat "$tmp/stderr")"
fetch "imap://$user@127.0.0.1:$(free_port)/INBOX?starttls" state-x
check_eq "no server: a temporary failure" "75" "$rc"

# 9. an oversized message is reported with its size, and its body is not fetched
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    f.write("From: big@example.org\nSubject: big\nMessage-ID: <big@example.org>\n\n")
    line = "x" * 1023 + "\n"
    for i in range(33 * 1024):
        f.write(line)
' "$maildir/new/1700000099.big.test"
chown nobody:nogroup "$maildir/new/1700000099.big.test"
: >"$log"
fetch "$starttls" state
check_eq "oversized: flagged" "0 7" "$rc $(uids)"
grep -q '^imap:7 [0-9]* oversized$' "$tmp/stdout" && ok "oversized: its size is given" ||
	not_ok "oversized: $(cat "$tmp/stdout")"
# Dovecot logs the session's end after perfbot has gone: wait for the line
i=0
while ! grep -q 'Logged out in=' "$log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sent=$(sed -n 's/.*Logged out in=[0-9]* out=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
[ -n "$sent" ] && [ "$sent" -lt 1000000 ] && ok "oversized: not downloaded (Dovecot sent $sent bytes)" ||
	not_ok "oversized: Dovecot sent '${sent}' bytes: $(tail -n 3 "$log")"
deliver 7 seven
fetch "$starttls" state
check_eq "oversized: acked like the others, the next one taken" "0 8" "$rc $(uids)"

# 10. UIDVALIDITY change: the mailbox recreated
sleep 1
sh "$dovecot" stop "$tmp/dc"
rm -rf "$maildir"
mkdir -p "$maildir/new" "$maildir/cur" "$maildir/tmp"
chown -R nobody:nogroup "$maildir"
start_dovecot server
deliver 9 nine
fetch "$starttls" state
check_eq "uidvalidity changed: read from the start" "0 1" "$rc $(uids)"
grep -q "^restart: the UIDVALIDITY of INBOX changed from $validity to " "$tmp/stdout" &&
	ok "uidvalidity changed: reported" || not_ok "uidvalidity changed: $(cat "$tmp/stdout")"
cmp -s "$out/1" "$tmp/msg-9" && ok "uidvalidity changed: the new message" ||
	not_ok "uidvalidity changed: the new message"
new_validity=$(cut -d' ' -f1 "$tmp/state")
[ "$new_validity" != "$validity" ] && ok "uidvalidity changed: new cursor" ||
	not_ok "uidvalidity changed: cursor $(cat "$tmp/state")"

# 11. a server whose answer never ends, from its greeting on or after the
# first command: cut at IMAP_RESPONSE_BYTES_MAX, at once (bytes keep
# coming, so no timeout would), as a temporary failure
cat >"$tmp/flood.py" <<'EOF'
import socket, sys
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", int(sys.argv[1])))
ls.listen(1)
print("ready", flush=True)
c, _ = ls.accept()
if sys.argv[2] == "command":
    c.sendall(b"* OK flood ready\r\n")
    c.recv(4096)
chunk = b"* " + b"x" * 65534
sent = 0
try:
    while sent < (256 << 20):
        c.sendall(chunk)
        sent += len(chunk)
except OSError:
    pass
print("sent %d" % sent, flush=True)
EOF
for when in greeting command; do
	fport=$(free_port)
	rm -f "$tmp/flood.out"
	python3 "$tmp/flood.py" "$fport" "$when" >"$tmp/flood.out" 2>&1 &
	flood_pid=$!
	i=0
	while ! grep -q ready "$tmp/flood.out" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	start=$(date +%s)
	fetch "imap://$user@127.0.0.1:$fport/INBOX" state-flood
	check_eq "endless answer ($when): a temporary failure" "75" "$rc"
	grep -q "the server's answer passed 50331648 bytes" "$tmp/stderr" && ok "endless answer ($when): says so" ||
		not_ok "endless answer ($when): $(cat "$tmp/stderr")"
	kill "$flood_pid" 2>/dev/null
	wait "$flood_pid" 2>/dev/null
	check_eq "endless answer ($when): cut at once, long before the server gave up" "yes" \
		"$([ $(($(date +%s) - start)) -lt 20 ] && ! grep -q '^sent 268' "$tmp/flood.out" && echo yes || echo no)"
done

# 12. the wrong password (last: Dovecot slows down logins from an address
# after a failure)
"$drv" --imap "$starttls" "wrong" "$ca" "$tmp/state-x" "$out" >"$tmp/stdout" 2>"$tmp/stderr"
check_eq "wrong password: refused, not temporary" "1" "$?"
grep -q 'login refused' "$tmp/stderr" && ok "wrong password: says so" ||
	not_ok "wrong password: $(cat "$tmp/stderr")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
