# tlib.sh: shared pieces of the shell tests in tests/t (sourced, not run).
# The sourcing script sets pass=0 and fail=0 first, and $maildir before it
# uses transactions or wait_mail.

ok() { echo "ok $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok $*"; fail=$((fail + 1)); }

# check NAME COMMAND...: ok when COMMAND succeeds
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# check_eq NAME WANT GOT: ok when GOT is WANT, else says both
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got '$3', want '$2'"; fi
}

# A free TCP port on 127.0.0.1.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# jq_py EXPR: EXPR of the JSON on stdin (as d), printed by python3.
jq_py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# How many SMTP transactions the private Postfix (tests/helpers/postfix.sh)
# delivered into $maildir: it writes one file per recipient, and the queue
# id in the first Received: header tells the transactions apart.
transactions() {
	cat "$maildir"/new/* 2>/dev/null | sed -n 's/.*with ESMTP id \([0-9A-F]*\).*/\1/p' | sort -u | wc -l
}

# wait_mail N: until N transactions are delivered (Postfix delivers
# asynchronously), at most 10 s.
wait_mail() {
	i=0
	while [ "$(transactions)" -lt "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.3	# the other recipients' copies of the last one
	[ "$(transactions)" -ge "$1" ]
}

# golden_start: the set-up of a test over the golden fixture (needs $top):
# $tmp, removed at exit with the processes in $pids killed (unless KEEP is
# set); tests/golden/make-repo.sh's repository in $tmp/repo; the clock
# pinned at $now, 2026-02-25T06:13:20Z.
golden_start() {
	tmp=$(mktemp -d)
	pids=
	[ -n "${KEEP:-}" ] || trap golden_cleanup EXIT
	sh "$top/tests/golden/make-repo.sh" "$tmp/repo" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
	now=1772000000
	export PERFBOT_NOW=$now
}
golden_cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}

# smtp_peer_start DIR [ARG...]: the scripted SMTP peer (smtp-peer.py ARG...)
# on a free port of 127.0.0.1, its mails in DIR.out, its port in DIR.port;
# $peer_pid (also added to $pids, which the caller kills at exit) and
# $peer_port (empty when it did not start within 5 s).
smtp_peer_start() {
	sp_dir=$1
	shift
	rm -f "$sp_dir.port"
	mkdir -p "$sp_dir.out"
	python3 "$top/tests/helpers/smtp-peer.py" --port-file "$sp_dir.port" --outdir "$sp_dir.out" "$@" >/dev/null &
	peer_pid=$!
	pids="${pids:-} $peer_pid"
	sp_i=0
	while [ ! -s "$sp_dir.port" ] && [ $sp_i -lt 50 ]; do sleep 0.1; sp_i=$((sp_i + 1)); done
	peer_port=$(cat "$sp_dir.port" 2>/dev/null)
}
