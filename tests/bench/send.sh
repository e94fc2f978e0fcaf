#!/bin/sh
# tests/bench/send.sh: the send benchmark.  How fast `perfbot send`
# delivers N reports over one SMTP connection, beside Postfix's own load
# generator and git send-email, all three sending to the same Postfix
# smtp-sink on 127.0.0.1 started with -p (no PIPELINING, so every client
# waits for each reply: MAIL, each RCPT, DATA, the final dot).
#
#  1. N comparison JSONs (tests/golden/improvement-derived-kind, one test,
#     tree labK/master and its own repo_url each, so none coalesce) are
#     taken into the outbox by `perfbot send FILES` under a configuration
#     with perfbot.paused = true: intake, timed on its own;
#     `perfbot send --dry-run` then prints the N mails exactly as they
#     will go out (an mbox), for the peers;
#  2. perfbot: `perfbot send` (not paused) on a copy of that state delivers
#     the N mails: start-up, outbox, SMTP, state marks and the archive
#     commit, timed by the clock (and its CPU time);
#  3. smtp-source -d -s 1 -m N -r RCPTS -F MAIL: one session, N messages
#     of the same bytes (the first report) to as many recipients as a report
#     has: the practical limit of an SMTP client.  perfbot and smtp-source
#     take turns, BENCH_SEND_RUNS times each (default 9: on a shared machine
#     single runs vary by a fifth); the medians count;
#  4. git send-email: one invocation, the first BENCH_SEND_GSE_N (default
#     100) of the same mails, same sender and recipients (~45 ms a mail, so
#     1,000 would take a minute): compared per message;
#  5. where perfbot's time goes: its state and archive once more on tmpfs
#     (/dev/shm: fsync costs nothing there), and, when strace is installed,
#     how many fsync/fdatasync calls a delivery makes and how long they take.
#
# Prints a table of messages/s, ratios and the targets (within 1.3x of
# smtp-source, >= 10x git send-email).  Environment: BENCH_SEND_N (1000),
# BENCH_SEND_GSE_N (100), BENCH_SEND_RUNS (9), BENCH_STRICT=1 (exit 2 when
# a target is missed).  Needs Postfix's smtp-sink and smtp-source (package
# postfix) and python3; git send-email is skipped with a note when absent.
# Only 127.0.0.1 is contacted; the sink is stopped by its PID on any exit.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
perfbot=$top/perfbot
n=${BENCH_SEND_N:-1000}
gse_n=${BENCH_SEND_GSE_N:-100}
runs=${BENCH_SEND_RUNS:-9}
[ "$gse_n" -le "$n" ] || gse_n=$n

for tool in smtp-sink smtp-source python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "send.sh: skipped: $tool is not installed (sh tests/helpers/install-deps.sh bench)"
		exit 0
	fi
done
make -s perfbot

tmp=$(mktemp -d)
chmod 755 "$tmp"	# the sink drops to nobody
sink_pid=
cleanup() {
	[ -z "$sink_pid" ] || kill "$sink_pid" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
# timed OUT CMD...: tests/bench/timed.py (wall, CPU and peak RSS to OUT)
timed() {
	python3 "$top/tests/bench/timed.py" "$@"
}
# walls FILE...: the wall times in FILEs, for the log
walls() { cat "$@" | awk '{ printf " %s", $1 }'; }

sh tests/golden/make-repo.sh "$tmp/repo" >/dev/null
port=$(free_port)

# config STATE [LINE...]: the golden configuration, sending to the sink
config() {
	state=$1
	shift
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$state|" tests/golden/config
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 30\n' "$port"
	printf '[perfbot]\n\tmaxPerHour = 0\n\tcoalesceMinutes = 0\n'
	for line in "$@"; do printf '\t%s\n' "$line"; done
}

# 1. N reports into the outbox, with sending paused
mkdir "$tmp/json" "$tmp/t"
python3 - tests/golden/improvement-derived-kind/input.json "$tmp/json" "$n" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
for i in range(int(sys.argv[3])):
    e = copy.deepcopy(d)
    e["tests"] = [d["tests"][0]]
    e["tree"] = "lab%d/master" % i
    e["repo_url"] = "https://git.example.org/lab%d.git" % i
    with open("%s/r%05d.json" % (sys.argv[2], i), "w") as f:
        json.dump(e, f)
PY
config "$tmp/queued" "paused = true" >"$tmp/paused.conf"
timed "$tmp/t/intake" "$perfbot" --config "$tmp/paused.conf" send "$tmp"/json/*.json 2>"$tmp/intake.log" || {
	echo "send.sh: perfbot send (paused) failed:" >&2
	tail -n 5 "$tmp/intake.log" >&2
	exit 1
}
grep -q "^done: $n queued, 0 sent" "$tmp/intake.log" || {
	echo "send.sh: intake did not queue $n reports:" >&2
	tail -n 3 "$tmp/intake.log" >&2
	exit 1
}
"$perfbot" --config "$tmp/paused.conf" send --dry-run >"$tmp/dry.mbox" 2>/dev/null

# The mails one per file (mboxrd un-quoted), the first one as smtp-source's
# message, and the recipients of a report (all N have the same ones).
mkdir "$tmp/mails"
python3 - "$tmp/dry.mbox" "$tmp/mails" "$n" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
mails = re.split(rb"(?m)^From [^\n]*\n", data)[1:]
if len(mails) != int(sys.argv[3]):
    sys.exit("send.sh: --dry-run printed %d mails, not %s" % (len(mails), sys.argv[3]))
for i, m in enumerate(mails):
    if m.endswith(b"\n\n"):
        m = m[:-1]	# the mbox's separating empty line
    m = re.sub(rb"(?m)^>(>*From )", rb"\1", m)
    with open("%s/%05d.eml" % (sys.argv[2], i), "wb") as f:
        f.write(m)
PY
mail_bytes=$(wc -c <"$tmp/mails/00000.eml")
"$perfbot" --config "$tmp/paused.conf" status --json >"$tmp/status.json"
python3 - "$tmp/status.json" >"$tmp/rcpt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["reports"][0]
print(" ".join(r["to"]))
print(" ".join(r["cc"]))
PY
to=$(sed -n 1p "$tmp/rcpt")
cc=$(sed -n 2p "$tmp/rcpt")
nrcpt=$(echo $to $cc | wc -w)
mail_from=$(sed -n 's/^From: //p' "$tmp/mails/00000.eml" | head -n 1)
env_from=$(printf '%s\n' "$mail_from" | sed 's/.*<\(.*\)>.*/\1/')

# The sink: no PIPELINING (-p); as root it must drop to nobody
sink_user=
[ "$(id -u)" -ne 0 ] || sink_user="-u nobody"
smtp-sink -p $sink_user 127.0.0.1:"$port" 64 >"$tmp/sink.log" 2>&1 &
sink_pid=$!
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || { echo "send.sh: smtp-sink did not start:" >&2; cat "$tmp/sink.log" >&2; exit 1; }
	sleep 0.1
done

echo "send bench: $n reports of $mail_bytes bytes, $nrcpt recipients each, one SMTP session to smtp-sink -p on 127.0.0.1"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1), $(nproc 2>/dev/null) CPUs; $(uname -sr); load $(cut -d' ' -f1-3 /proc/loadavg)"

# deliver DIR OUT: copies the queued state to DIR, times `perfbot send` on
# it into OUT, and checks that all N went out.  The copy is flushed first,
# so its write-back does not land in the timed run.
deliver() {
	rm -rf "$1"
	cp -a "$tmp/queued" "$1"
	config "$1" >"$tmp/send.conf"
	sync
	timed "$2" "$perfbot" --config "$tmp/send.conf" send 2>"$tmp/send.log" || {
		echo "send.sh: perfbot send failed:" >&2
		tail -n 5 "$tmp/send.log" >&2
		exit 1
	}
	grep -q "^done: 0 queued, $n sent, 0 deferred, 0 failed" "$tmp/send.log" || {
		echo "send.sh: perfbot did not send $n mails:" >&2
		tail -n 3 "$tmp/send.log" >&2
		exit 1
	}
}

# 2. perfbot and 3. smtp-source, taking turns, so that a busy moment of the
# machine does not fall on one of them only
k=0
while [ $k -lt "$runs" ]; do
	deliver "$tmp/run" "$tmp/t/perfbot.$k"
	sync
	timed "$tmp/t/source.$k" smtp-source -d -s 1 -m "$n" -r "$nrcpt" -F "$tmp/mails/00000.eml" \
		-f "$env_from" -t "$(echo $to | cut -d' ' -f1)" 127.0.0.1:"$port" || {
		echo "send.sh: smtp-source failed" >&2
		exit 1
	}
	k=$((k + 1))
done
echo "perfbot send:  wall$(walls "$tmp"/t/perfbot.*) s"
echo "smtp-source:   wall$(walls "$tmp"/t/source.*) s"

# 4. git send-email
gse=$(git --exec-path 2>/dev/null)/git-send-email
if [ -x "$gse" ] && perl -MMail::Address -e 1 2>/dev/null; then
	mkdir "$tmp/home"
	set --
	for addr in $to; do set -- "$@" --to="$addr"; done
	for addr in $cc; do set -- "$@" --cc="$addr"; done
	ls "$tmp/mails" | head -n "$gse_n" | sed "s|^|$tmp/mails/|" >"$tmp/gse.list"
	while IFS= read -r f; do set -- "$@" "$f"; done <"$tmp/gse.list"
	sync
	timed "$tmp/t/gse" env HOME="$tmp/home" GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		git send-email --quiet --confirm=never --no-validate --no-thread --no-format-patch \
		--suppress-cc=all --from="$mail_from" --envelope-sender="$env_from" \
		--smtp-server=127.0.0.1 --smtp-server-port="$port" "$@" >"$tmp/gse.log" 2>&1 || {
		echo "send.sh: git send-email failed:" >&2
		tail -n 5 "$tmp/gse.log" >&2
		exit 1
	}
	[ "$(grep -c '^Sent ' "$tmp/gse.log")" -eq "$gse_n" ] || {
		echo "send.sh: git send-email did not send $gse_n mails" >&2
		exit 1
	}
	echo "git send-email: wall $(cut -d' ' -f1 "$tmp/t/gse") s for $gse_n mails"
else
	echo "git send-email: not installed (packages git-email, libmailtools-perl): not compared"
fi

# 5. where the time goes: the state on tmpfs (no disk under state.db and
# the archive); how often a delivery run syncs to disk
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	shm=$(mktemp -d /dev/shm/perfbot-bench.XXXXXX)
	k=0
	while [ $k -lt "$runs" ]; do
		deliver "$shm/run" "$tmp/t/shm.$k"
		k=$((k + 1))
	done
	rm -rf "$shm"
	echo "perfbot send, state on tmpfs: wall$(walls "$tmp"/t/shm.*) s"
fi
if command -v strace >/dev/null 2>&1; then
	rm -rf "$tmp/run"
	cp -a "$tmp/queued" "$tmp/run"
	config "$tmp/run" >"$tmp/send.conf"
	sync
	if strace -f -c -w -U name,calls,total-time -e trace=fsync,fdatasync -o "$tmp/strace.out" \
		"$perfbot" --config "$tmp/send.conf" send 2>/dev/null; then
		awk '$1 == "fsync" || $1 == "fdatasync" { c += $2; s += $3 } END { printf "%d %.4f\n", c, s }' \
			"$tmp/strace.out" >"$tmp/t/syncs"
	fi
fi

echo
set +e
python3 - "$n" "$gse_n" "$tmp/t" <<'PY'
import os, sys
n, gse_n, t = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

def load(prefix):
    """(wall, cpu) of the run of median wall time among t/PREFIX*, or None."""
    runs = sorted(tuple(map(float, open(os.path.join(t, f)).read().split()))
                  for f in os.listdir(t) if f == prefix or f.startswith(prefix + "."))
    return runs[(len(runs) - 1) // 2] if runs else None

perfbot, source, gse = load("perfbot"), load("source"), load("gse")
intake, shm = load("intake"), load("shm")
syncs = load("syncs")
missed = 0

def row(name, count, run, note=""):
    wall, cpu = run[0], run[1]
    print("%-30s %6d %8.3f %9.0f %9.1f %9.1f  %s"
          % (name, count, wall, count / wall, wall / count * 1e6, cpu / count * 1e6, note))

print("summary (send): median of each; µs per mail by the clock and in CPU time (user + system)")
print("%-30s %6s %8s %9s %9s %9s" % ("", "mails", "seconds", "mails/s", "µs/mail", "cpu µs"))
row("perfbot send (delivery)", n, perfbot, "start-up, SMTP, state marks, archive")
row("smtp-source", n, source, "SMTP only: same bytes, same recipients")
if gse:
    row("git send-email", gse_n, gse, "one invocation" + (", the first %d mails" % gse_n if gse_n < n else ""))
row("perfbot intake (paused)", n, intake, "comparison JSON -> outbox; not in the ratios")
if shm:
    row("perfbot send, state on tmpfs", n, shm, "no disk under state.db and the archive")
print()
r = perfbot[0] / source[0]
ok = r <= 1.3
missed += not ok
print("perfbot time / smtp-source time:     %6.2fx   target <= 1.3x: %s" % (r, "met" if ok else "MISSED"))
if gse:
    r = (gse[0] / gse_n) / (perfbot[0] / n)
    ok = r >= 10
    missed += not ok
    print("git send-email time / perfbot time:  %6.1fx   target >= 10x: %s (per mail)"
          % (r, "met" if ok else "MISSED"))
print("perfbot: %.0f µs a mail, %.0f µs more than smtp-source's SMTP alone; %.0f µs of it CPU"
      % (perfbot[0] / n * 1e6, (perfbot[0] - source[0]) / n * 1e6, perfbot[1] / n * 1e6))
if shm:
    print("state and archive on tmpfs: %.0f µs a mail (%+.0f µs against the disk)"
          % (shm[0] / n * 1e6, (shm[0] - perfbot[0]) / n * 1e6))
if syncs:
    calls, secs = syncs
    print("durability: %d fsync/fdatasync in a delivery run of %d mails, %.1f ms in all (strace -w, an upper bound)"
          % (calls, n, secs * 1e3))
sys.exit(2 if missed else 0)
PY
status=$?
set -e
if [ "$status" -eq 2 ] && [ -n "${BENCH_STRICT:-}" ]; then
	exit 2
fi
[ "$status" -le 2 ] || exit "$status"
exit 0
