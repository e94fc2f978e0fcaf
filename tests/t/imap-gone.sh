#!/bin/sh
# imap-gone.sh: `perfbot ingest --imap` when the server goes away at any
# point (tests/helpers/imap-peer.py closes or resets the connection at each
# command in turn): exit 75 (try again later) with one message on stderr
# naming the server and what it was doing, never death by SIGPIPE (141)
# with nothing said, and no state written but the (empty) database.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/perfbot
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"

command -v python3 >/dev/null || { echo "skip: python3 is not installed"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
tmp=$(mktemp -d)
peer=
trap '[ -n "$peer" ] && kill $peer 2>/dev/null; rm -rf "$tmp"' EXIT
printf 'secret\n' >"$tmp/pw"
chmod 600 "$tmp/pw"
cat >"$tmp/conf" <<CONF
[perfbot]
	state = $tmp/state
[ingest]
	passwordFile = $tmp/pw
	timeout = 5
CONF

for mode in "--close-after LOGIN" "--close-after LOGIN --reset" \
	    "--close-after-reply LOGIN" "--close-after-reply LOGIN --reset" \
	    "--close-after EXAMINE" "--close-after EXAMINE --reset" \
	    "--close-after-reply EXAMINE --reset" \
	    "--close-after UID" "--close-after UID --reset"; do
	rm -f "$tmp/port"
	python3 "$top/tests/helpers/imap-peer.py" --port-file "$tmp/port" $mode >/dev/null &
	peer=$!
	i=0
	while [ ! -s "$tmp/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(cat "$tmp/port")
	"$bin" --config "$tmp/conf" ingest --imap "imap://bot@127.0.0.1:$port/INBOX" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	msg=$(head -n 1 "$tmp/err")
	case $msg in
	"perfbot ingest: imap 127.0.0.1:$port/INBOX: "*) named=1 ;;
	*) named=0 ;;
	esac
	if [ $rc -eq 75 ] && [ $named -eq 1 ] && [ ! -s "$tmp/out" ]; then
		ok "server gone ($mode): exit 75, '$msg'"
	else
		not_ok "server gone ($mode): exit $rc, stderr '$msg'"
	fi
	kill $peer 2>/dev/null
	wait $peer 2>/dev/null
	peer=
done

# and a server that stays: the same peer serves an empty mailbox, exit 0
python3 "$top/tests/helpers/imap-peer.py" --port-file "$tmp/port2" >/dev/null &
peer=$!
i=0
while [ ! -s "$tmp/port2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
"$bin" --config "$tmp/conf" ingest --imap "imap://bot@127.0.0.1:$(cat "$tmp/port2")/INBOX" >"$tmp/out" 2>"$tmp/err"
check_eq "the peer that stays: exit 0" 0 $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
