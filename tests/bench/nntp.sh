#!/bin/sh
# tests/bench/nntp.sh: the NNTP benchmark.  How long `perfbot ingest --all
# --nntp` takes to read a real list from Debian's public-inbox-nntpd on
# 127.0.0.1 into a fresh state, beside a client that only downloads the
# same articles over the same kind of connection
# (tests/bench/nntp_download.py: GROUP, XOVER, one ARTICLE at a time):
# the protocol's limit.
#
#  1. the list: ../shared/corpora/ksummit.mboxrd.gz (3,115 messages) when
#     ../shared exists beside the repository, else BENCH_NNTP_SYNTH (3000)
#     generated messages; perfbot's archive writer files it (ingest --all
#     --mbox) and tests/helpers/pi-nntpd.sh serves that inbox;
#  2. BENCH_NNTP_RUNS (5) rounds, each the download client, perfbot over
#     NNTP, and perfbot on the same list from a local mbox (no network:
#     what ingest itself costs, the floor of the NNTP run), interleaved so
#     that load on the machine falls on all alike, perfbot each time into
#     a fresh state (--since 2000-01-01 for NNTP); the medians by the
#     clock, perfbot's peak RSS (tests/bench/timed.py), and a run with
#     nothing new (the commands the server saw, through
#     tests/helpers/nntp-proxy.py: GROUP and QUIT).
#
# Prints the table, the ratio and the targets: perfbot at most 1.5x the
# download's time, peak RSS under 64 MiB.  BENCH_STRICT=1: exit 2 when a
# target is missed.  Skips (exit 0) without public-inbox.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
runs=${BENCH_NNTP_RUNS:-5}
echo "== NNTP: perfbot ingest --nntp beside a download-only client (public-inbox-nntpd)"
if ! command -v public-inbox-nntpd >/dev/null 2>&1; then
	echo "skip: public-inbox-nntpd is not installed (tests/helpers/install-deps.sh test)"
	exit 0
fi
make -s perfbot
tmp=$(mktemp -d)
proxy_pid=
cleanup() {
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
	sh tests/helpers/pi-nntpd.sh stop "$tmp/pi" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=$tmp/home
mkdir -p "$HOME"
config() {
	printf '[perfbot]\n\tfrom = perfbot lab <perfbot@lab.example.org>\n\tstate = %s\n' "$1"
}
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

shared=$(cd "$top/../shared" 2>/dev/null && pwd || true)
if [ -n "$shared" ] && [ -f "$shared/corpora/ksummit.mboxrd.gz" ]; then
	what="ksummit (../shared/corpora)"
	gzip -dc "$shared/corpora/ksummit.mboxrd.gz" >"$tmp/list.mbox"
else
	what="a generated list of ${BENCH_NNTP_SYNTH:-3000} messages (../shared is absent)"
	python3 - "${BENCH_NNTP_SYNTH:-3000}" >"$tmp/list.mbox" <<'PY'
import sys
for i in range(int(sys.argv[1])):
    parent = "" if i % 20 == 0 else "In-Reply-To: <s%d@example.org>\n" % (i - i % 20)
    print("From dev@example.org Mon Mar  2 10:00:00 2026")
    print("From: Dev %d <dev%d@example.org>\nTo: list@example.org\nSubject: topic %d\n"
          "Message-ID: <s%d@example.org>\n%sDate: Mon, 02 Mar 2026 10:%02d:00 +0000\n\n%s\n"
          % (i % 50, i % 50, i - i % 20, i, parent, i % 60, ("line %d of a reply\n" % i) * 80))
PY
fi
config "$tmp/producer" >"$tmp/cp"
./perfbot --config "$tmp/cp" ingest --all --mbox "$tmp/list.mbox" 2>/dev/null || true
port=$(free_port)
sh tests/helpers/pi-nntpd.sh start "$tmp/pi" "$port" "$tmp/producer/archive=bench.list" >/dev/null
url=nntp://127.0.0.1:$port/bench.list

i=0
: >"$tmp/dl.times"
: >"$tmp/pb.times"
: >"$tmp/mb.times"
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	python3 tests/bench/nntp_download.py "$port" bench.list >"$tmp/dl.out"
	awk '{print $(NF-1)}' "$tmp/dl.out" >>"$tmp/dl.times"
	rm -rf "$tmp/s"
	config "$tmp/s" >"$tmp/c"
	python3 tests/bench/timed.py "$tmp/t" ./perfbot --config "$tmp/c" ingest --all --since 2000-01-01 \
		--nntp "$url" 2>"$tmp/ingest.log"
	cat "$tmp/t" >>"$tmp/pb.times"
	rm -rf "$tmp/m"
	config "$tmp/m" >"$tmp/cm"
	python3 tests/bench/timed.py "$tmp/t" ./perfbot --config "$tmp/cm" ingest --all --mbox "$tmp/list.mbox" 2>/dev/null
	cat "$tmp/t" >>"$tmp/mb.times"
done
articles=$(awk '{print $1}' "$tmp/dl.out")
kept=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from messages').fetchone()[0])" "$tmp/s/state.db")

# a run with nothing new, through the logging proxy
pport=$(free_port)
python3 tests/helpers/nntp-proxy.py "$pport" "$port" "$tmp/proxy.log" &
proxy_pid=$!
sleep 0.5
# the cursor is per server and group: a first read through the proxy's
# port (from today: nothing, no report being open), then the run measured
./perfbot --config "$tmp/c" ingest --nntp "nntp://127.0.0.1:$pport/bench.list" 2>/dev/null || true
: >"$tmp/proxy.log"
./perfbot --config "$tmp/c" ingest --nntp "nntp://127.0.0.1:$pport/bench.list" 2>/dev/null || true
idle=$(tr '\n' ' ' <"$tmp/proxy.log")

python3 - "$tmp/dl.times" "$tmp/pb.times" "$what" "$articles" "$kept" "$idle" "$tmp/mb.times" <<'PY'
import statistics, sys
dl = [float(l) for l in open(sys.argv[1])]
pb = [l.split() for l in open(sys.argv[2])]
wall = [float(p[0]) for p in pb]
rss = max(int(p[2]) for p in pb)
mb = [float(l.split()[0]) for l in open(sys.argv[7])]
mdl, mpb, mmb = statistics.median(dl), statistics.median(wall), statistics.median(mb)
ratio = mpb / mdl
print("list: %s, %s articles served, %s kept by perfbot" % (sys.argv[3], sys.argv[4], sys.argv[5]))
print("%-34s %10s %12s" % ("", "median s", "articles/s"))
print("%-34s %10.3f %12.0f" % ("download only (nntp_download.py)", mdl, int(sys.argv[4]) / mdl))
print("%-34s %10.3f %12.0f" % ("perfbot ingest --all --nntp", mpb, int(sys.argv[4]) / mpb))
print("%-34s %10.3f %12.0f" % ("perfbot ingest --all --mbox (local)", mmb, int(sys.argv[4]) / mmb))
print("runs: download %s; perfbot --nntp %s; --mbox %s" % (" ".join("%.2f" % x for x in dl),
      " ".join("%.2f" % x for x in wall), " ".join("%.2f" % x for x in mb)))
print("ratio perfbot --nntp / --mbox (what reading over NNTP adds to ingest): %.2fx" % (mpb / mmb))
print("ratio perfbot/download: %.2fx (target <= 1.5x): %s" % (ratio, "met" if ratio <= 1.5 else "MISSED"))
print("perfbot peak RSS: %.1f MiB (target < 64 MiB): %s" % (rss / 1024, "met" if rss < 64 * 1024 else "MISSED"))
print("a run with nothing new, the commands the server saw: %s" % sys.argv[6])
sys.exit(0 if ratio <= 1.5 and rss < 64 * 1024 else 2)
PY
