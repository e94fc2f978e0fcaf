#!/bin/sh
# soak.sh: perfbot's cron cycle, many rounds in a row, against an SMTP
# server that fails at random, with send, ingest and track killed at
# random instants; then a drain with the faults off, and the invariants.
#
# Each round (the clock ten minutes later): queue comparisons (new
# reports, and follow-ups of heads already reported), send, maybe an
# outbox action (hold, release, retry, drop) or report --state invalid,
# replies written into a Maildir (to mails the server took and to mails
# perfbot made but has not sent; some with #perfbot invalid) and ingest,
# maybe a Closes: commit on a watched ref and track.  The scripted peer
# (tests/helpers/smtp-peer.py --faults) answers 4xx/5xx on any command,
# drops connections before and after taking DATA, waits before its 250,
# closes its listener for seconds, and logs every mail it takes.
# tests/helpers/soak.py runs the cycle and checks, against that log:
# every comparison ends in one mail or is set aside with a reason; every
# recipient the server took is recorded, and taken twice only after the
# unavoidable window (the 250 never arrived, or the run died after it);
# status --json agrees with the server; a follow-up or notice goes out
# only after the mail it answers; no follow-up for a closed report; every
# reply kept once and its command applied once; one notice per fix; the
# archive holds each delivered mail and kept reply once, git fsck and
# public-inbox-index clean; PRAGMA integrity_check ok.
#
# SEED (default 5) and ROUNDS (default 60, what make check runs: a seed
# whose kills find runs at work, some in the unavoidable window) come
# from the environment; `make soak SEED=N ROUNDS=N` runs long ones.  The
# seed is printed first and in every failure, to replay it.  KEEP=1 keeps
# the temporary folder (the peer's log in accept.log, each run's stderr
# in soak.log).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
SEED=${SEED:-5}
ROUNDS=${ROUNDS:-60}
echo "soak: SEED=$SEED ROUNDS=$ROUNDS (replay: make soak SEED=$SEED ROUNDS=$ROUNDS)"
tmp=$(mktemp -d)
peer_pid=
cleanup() {
	[ -z "$peer_pid" ] || kill "$peer_pid" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
[ -z "${KEEP:-}" ] || echo "  KEEP: $tmp"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=$tmp/home XDG_STATE_HOME=$tmp/xdg
mkdir -p "$HOME" "$tmp/maildir/new" "$tmp/maildir/cur" "$tmp/maildir/tmp"
sh "$top/tests/golden/make-repo.sh" "$tmp/repo" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }

python3 "$top/tests/helpers/smtp-peer.py" --faults "$SEED" --fault-rate 0.08 \
	--faults-off-file "$tmp/faults-off" --accept-log "$tmp/accept.log" \
	--transcript "$tmp/transcript" --port-file "$tmp/peer.port" >/dev/null &
peer_pid=$!
i=0
while [ ! -s "$tmp/peer.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/peer.port" ] || { echo "not ok the scripted peer did not start"; echo "0 passed, 1 failed"; exit 1; }

state=$tmp/state
{
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$state|" "$top/tests/golden/config"
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 5\n' "$(cat "$tmp/peer.port")"
	printf '[perfbot]\n\tcoalesceMinutes = 5\n\tretryMinutes = 5\n\tmaxPerHour = 0\n\tannounceFixes = true\n'
} >"$tmp/config"
export PERFBOT_CONFIG=$tmp/config

python3 "$top/tests/helpers/soak.py" --perfbot "$perfbot" --config "$tmp/config" --state "$state" \
	--repo "$tmp/repo" --maildir "$tmp/maildir" --accept-log "$tmp/accept.log" \
	--faults-off "$tmp/faults-off" --port-file "$tmp/peer.port" --tmp "$tmp" --top "$top" --seed "$SEED" --rounds "$ROUNDS" \
	--comparison "$top/tests/golden/improvement-derived-kind/input.json"
