#!/bin/sh
# tests/bench/ingest.sh: the ingest benchmark.  How fast `perfbot ingest
# --all` mirrors a real list from a Maildir into a fresh archive, and how
# much memory it takes, beside public-inbox's own import path
# (public-inbox-mda, one process per message), `lei import` and
# `notmuch new` on the same mail; and whether perfbot, public-inbox and
# notmuch find the same threads in it.
#
#  1. the list: ../shared/corpora/ksummit.mboxrd.gz (3,115 messages) when
#     ../shared exists beside the repository, split into a Maildir's new/
#     (mboxrd ">From " un-quoted); without it, a synthetic list of
#     BENCH_INGEST_SYNTH (3000) threaded messages made by a script, so the
#     bench runs anywhere;
#  2. perfbot: `perfbot ingest --all --maildir` into a fresh state, at two
#     sizes (the first BENCH_INGEST_SMALL = 1000 messages, and all), each
#     BENCH_INGEST_RUNS (3) times on a fresh copy; the median by the clock,
#     and the peak RSS of the run's processes (getrusage of the children:
#     perfbot and the children it forks to parse MIME);
#     then once on the list three times over (the copies with other
#     Message-IDs), for memory at a larger N;
#  3. threads: perfbot's from its state database (connected components of
#     messages joined to every id of their In-Reply-To and References,
#     ids never seen included, as public-inbox and notmuch thread);
#     public-inbox's from public-inbox-index run on perfbot's archive
#     (tests/helpers/pi-check.sh); notmuch's from `notmuch count`;
#  4. public-inbox-mda on the first BENCH_INGEST_MDA_N (50) messages into a
#     fresh v2 inbox (one process a message, as an MTA runs it;
#     --no-precheck so that every message is taken): a sample, extrapolated
#     per message;
#  5. `lei import maildir:` of the whole Maildir (daemon started first,
#     killed after); 6. `notmuch new` on a copy of the whole Maildir.
# Every tool runs with its own HOME, PI_CONFIG, NOTMUCH_CONFIG and XDG_*
# under a temporary directory; nothing listens on any address.
#
# Prints a table of messages/s, seconds, peak RSS, the ratios and the
# targets: >= 10x public-inbox-mda, >= 5x notmuch new, peak RSS under
# 64 MiB and not growing with N (the whole list against the small run, and
# three times the list against the whole: at most 10% more each), equal
# thread counts.  Environment: the BENCH_INGEST_* above,
# BENCH_STRICT=1 (exit 2 when a target is missed).  A peer that is not
# installed is left out with a note (public-inbox: package public-inbox;
# lei: package lei; notmuch: package notmuch).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
perfbot=$top/perfbot
small=${BENCH_INGEST_SMALL:-1000}
synth=${BENCH_INGEST_SYNTH:-3000}
mda_n=${BENCH_INGEST_MDA_N:-50}
runs=${BENCH_INGEST_RUNS:-3}

command -v python3 >/dev/null 2>&1 || {
	echo "ingest.sh: skipped: python3 is not installed"
	exit 0
}
make -s perfbot

tmp=$(mktemp -d)
lei_pid=
cleanup() {
	[ -z "$lei_pid" ] || kill "$lei_pid" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/t" "$tmp/home" "$tmp/cfg" "$tmp/data" "$tmp/cache" "$tmp/xstate" "$tmp/run"
chmod 700 "$tmp/run"
# the peers' private homes (public-inbox notes §4)
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/cfg" XDG_DATA_HOME="$tmp/data" \
	XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/xstate" XDG_RUNTIME_DIR="$tmp/run" \
	PI_CONFIG="$tmp/pi-config" NOTMUCH_CONFIG="$tmp/notmuch-config" \
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

# timed OUT CMD...: tests/bench/timed.py (wall, CPU and peak RSS to OUT)
timed() {
	python3 "$top/tests/bench/timed.py" "$@"
}

# maildir DEST [N]: a Maildir at DEST with the first N (default all)
# messages of the list in new/
maildir() {
	mkdir -p "$1/new" "$1/cur" "$1/tmp"
	python3 - "$tmp/list" "$1" "${2:-0}" <<'PY'
import os, shutil, sys
src, dest, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(os.listdir(src))
for name in names[:limit] if limit else names:
    shutil.copyfile(os.path.join(src, name), os.path.join(dest, "new", name))
PY
}

# 1. the list, one file a message, in $tmp/list
mkdir "$tmp/list"
shared=$(cd "$top/../shared" 2>/dev/null && pwd) || shared=
if [ -n "$shared" ] && [ -f "$shared/corpora/ksummit.mboxrd.gz" ] && [ -z "${BENCH_OWN:-}" ]; then
	source="ksummit@lists.linux.dev (../shared/corpora/ksummit.mboxrd.gz)"
	python3 - "$shared/corpora/ksummit.mboxrd.gz" "$tmp/list" <<'PY'
import gzip, os, re, sys
data = gzip.open(sys.argv[1], "rb").read()
# mboxrd: every line "From " at the start of a line separates; a body line
# that began with ">*From " has one more ">"
for i, m in enumerate(re.split(rb"(?m)^From [^\n]*\n", data)[1:]):
    if m.endswith(b"\n\n"):
        m = m[:-1]	# the separating empty line
    m = re.sub(rb"(?m)^>(>*From )", rb"\1", m)
    with open(os.path.join(sys.argv[2], "1700000000.%06d.bench" % i), "wb") as f:
        f.write(m)
PY
else
	source="a synthetic list of $synth messages (no ../shared/corpora)"
	python3 - "$tmp/list" "$synth" <<'PY'
# A deterministic mailing list: threads of 1 to 60 messages, replies to a
# random earlier message of their thread (References: the chain; some
# clients send only In-Reply-To, some only References), quoted text,
# plain, quoted-printable, base64 and multipart (patch attachment) bodies,
# RFC 2047 names and subjects.
import base64, os, random, sys
dest, total = sys.argv[1], int(sys.argv[2])
rnd = random.Random(5)
words = ("the scheduler patch regression latency throughput memory page cache lock "
         "fix revert commit test kernel driver tree merge series review trace "
         "benchmark result maintainer summit topic agree think should would").split()
people = [("Ann Author", "ann@example.org"), ("Bob Builder", "bob@example.net"),
          ("Jörg Maintainer", "joerg@example.de"), ("Li Wei", "li.wei@example.cn"),
          ("Peter Z", "peterz@example.org"), ("Sam Stable", "sam@example.com")]

def text(n):
    return "\n".join(" ".join(rnd.choice(words) for _ in range(rnd.randint(6, 14)))
                     for _ in range(n)) + "\n"

def addr(p):
    name, mail = p
    if any(ord(c) > 127 for c in name):
        name = "=?UTF-8?B?%s?=" % base64.b64encode(name.encode()).decode()
    return "%s <%s>" % (name, mail)

n = t = 0
while n < total:
    t += 1
    subject = "topic %d: %s" % (t, " ".join(rnd.choice(words) for _ in range(5)))
    thread = []	# (message-id, references, body)
    for k in range(min(rnd.randint(1, 60), total - n)):
        mid = "<%d.%d.bench@lists.example.org>" % (t, k)
        body = text(rnd.randint(5, 60))
        head = ["Return-Path: <list-bounces@lists.example.org>",
                "Received: from mx.example.org (mx.example.org [192.0.2.1])\n\tby lists.example.org with ESMTP id %05d;\n"
                "\tMon, 1 Jan 2024 00:00:00 +0000" % n,
                "From: %s" % addr(rnd.choice(people)),
                "To: bench-list@lists.example.org",
                "Date: Mon, %d Jan 2024 %02d:%02d:%02d +0100" % (1 + n // 1440 % 28, n // 60 % 24, n % 60, k % 60),
                "Message-ID: %s" % mid]
        refs = []
        if thread:
            pid, prefs, pbody = rnd.choice(thread)
            refs = prefs + [pid]
            how = rnd.random()
            if how < 0.9:
                head.append("In-Reply-To: %s" % pid)
            if how > 0.05:
                head.append("References: %s" % "\n ".join(refs))
            head.append("Subject: Re: %s" % subject)
            body = "On Monday someone wrote:\n" + "".join("> " + l + "\n" for l in pbody.splitlines()[:20]) + "\n" + body
        elif rnd.random() < 0.1:
            head.append("Subject: =?UTF-8?Q?%s_=C3=BCber?=" % subject.replace(" ", "_").replace(":", "=3A"))
        else:
            head.append("Subject: %s" % subject)
        kind = rnd.random()
        if kind < 0.1:
            head += ["MIME-Version: 1.0", "Content-Type: multipart/mixed; boundary=\"b%d\"" % n]
            patch = "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-old\n+new\n" * rnd.randint(1, 40)
            raw = ("This is a multi-part message.\n--b%d\nContent-Type: text/plain; charset=utf-8\n\n%s\n"
                   "--b%d\nContent-Type: text/x-patch; name=\"fix.patch\"\nContent-Transfer-Encoding: base64\n"
                   "Content-Disposition: attachment; filename=\"fix.patch\"\n\n%s\n--b%d--\n"
                   % (n, body, n, base64.encodebytes(patch.encode()).decode(), n))
        elif kind < 0.2:
            head += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
                     "Content-Transfer-Encoding: base64"]
            raw = base64.encodebytes(body.encode()).decode()
        elif kind < 0.3:
            head += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=iso-8859-1",
                     "Content-Transfer-Encoding: quoted-printable"]
            raw = body.replace("=", "=3D") + "Gr=FC=DFe\n"
        else:
            raw = body
        with open(os.path.join(dest, "1700000000.%06d.bench" % n), "w") as f:
            f.write("\n".join(head) + "\n\n" + raw)
        thread.append((mid, refs, body))
        n += 1
PY
fi
total=$(ls "$tmp/list" | wc -l)
[ "$small" -lt "$total" ] || small=$((total / 3))
list_bytes=$(cat "$tmp/list"/* | wc -c)

echo "ingest bench: $source: $total messages, $((list_bytes / 1048576)) MiB"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1), $(nproc 2>/dev/null) CPUs; $(uname -sr); load $(cut -d' ' -f1-3 /proc/loadavg)"

# 2. perfbot at two sizes; the last full run's state is kept for step 3
# perfbot_run N K: ingests the first N messages into a fresh state
perfbot_run() {
	rm -rf "$tmp/pb"
	mkdir "$tmp/pb"
	maildir "$tmp/pb/mail" "$1"
	printf '[perfbot]\n\tstate = %s\n' "$tmp/pb/state" >"$tmp/pb/config"
	sync
	timed "$tmp/t/perfbot.$1.$2" "$perfbot" --config "$tmp/pb/config" \
		ingest --all --maildir "$tmp/pb/mail" 2>"$tmp/pb/log" || {
		echo "ingest.sh: perfbot ingest --all failed:" >&2
		tail -n 5 "$tmp/pb/log" >&2
		exit 1
	}
	left=$(ls "$tmp/pb/mail/new" | wc -l)
	[ "$left" -eq 0 ] || {
		echo "ingest.sh: perfbot left $left messages in new/" >&2
		exit 1
	}
}
k=0
while [ $k -lt "$runs" ]; do
	perfbot_run "$small" $k
	perfbot_run "$total" $k
	k=$((k + 1))
done
echo "perfbot ingest --all: $(tail -n 1 "$tmp/pb/log")"

# 2b. memory at three times the list: its messages three times over, the
# copies with other Message-IDs (local part + .r1, .r2, also in
# In-Reply-To and References, so they thread among themselves), once
mkdir -p "$tmp/pb3/mail/new" "$tmp/pb3/mail/cur" "$tmp/pb3/mail/tmp"
python3 - "$tmp/list" "$tmp/pb3/mail/new" <<'PY'
import os, re, sys
src, dest = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(src))
for rep in range(3):
    for name in names:
        m = open(os.path.join(src, name), "rb").read()
        if rep:
            m = re.sub(rb"<([^<>@\s]+)@", lambda x: b"<" + x.group(1) + b".r%d@" % rep, m)
        open(os.path.join(dest, "%d.%s" % (rep, name)), "wb").write(m)
PY
printf '[perfbot]\n\tstate = %s\n' "$tmp/pb3/state" >"$tmp/pb3/config"
sync
timed "$tmp/t/triple" "$perfbot" --config "$tmp/pb3/config" ingest --all --maildir "$tmp/pb3/mail" \
	2>"$tmp/pb3/log" || {
	echo "ingest.sh: perfbot ingest --all of three times the list failed:" >&2
	tail -n 5 "$tmp/pb3/log" >&2
	exit 1
}
echo "perfbot ingest --all, three times the list: $(tail -n 1 "$tmp/pb3/log")"
rm -rf "$tmp/pb3"

# 3. threads: perfbot's, and public-inbox's on perfbot's archive
python3 - "$tmp/pb/state/state.db" >"$tmp/t/threads.perfbot" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
parent = {}
def find(x):
    root = x
    while parent.setdefault(root, root) != root:
        root = parent[root]
    while parent[x] != root:
        parent[x], x = root, parent[x]
    return root
mids = []
for mid, irt, refs in db.execute("SELECT message_id, in_reply_to, refs FROM messages"):
    mids.append(mid)
    for other in (refs or "").split() + (irt or "").split():
        a, b = find(mid), find(other)
        if a != b:
            parent[a] = b
print(len(mids), len({find(m) for m in mids}))
PY
echo "perfbot's threads: $(cut -d' ' -f2 "$tmp/t/threads.perfbot") among $(cut -d' ' -f1 "$tmp/t/threads.perfbot") messages (state database)"
pi_note=
if command -v public-inbox-index >/dev/null 2>&1; then
	set +e
	sh tests/helpers/pi-check.sh "$tmp/pb/state/archive" >"$tmp/pi-check.out" 2>&1
	rc=$?
	set -e
	if [ "$rc" -eq 0 ]; then
		tail -n 1 "$tmp/pi-check.out" | tr '|' ' ' >"$tmp/t/threads.pi"
	elif [ -f "$tmp/pb/state/archive/xap15/over.sqlite3" ]; then
		# the indexer warned (duplicate Message-IDs, say): its counts still stand
		pi_note="public-inbox-index warned: $(sed -n 2p "$tmp/pi-check.out" | cut -c1-120)"
		python3 - "$tmp/pb/state/archive/xap15/over.sqlite3" >"$tmp/t/threads.pi" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(*db.execute("SELECT count(*), count(distinct tid) FROM over WHERE num > 0").fetchone())
PY
	else
		echo "ingest.sh: public-inbox-index refused perfbot's archive:" >&2
		cat "$tmp/pi-check.out" >&2
		exit 1
	fi
	echo "public-inbox's threads: $(cut -d' ' -f2 "$tmp/t/threads.pi") among $(cut -d' ' -f1 "$tmp/t/threads.pi") messages (public-inbox-index on perfbot's archive)"
	[ -z "$pi_note" ] || echo "  $pi_note"
else
	echo "public-inbox: not installed (package public-inbox): no thread count, no public-inbox-mda"
fi

# 4. public-inbox-mda, one process a message, on a sample
if command -v public-inbox-mda >/dev/null 2>&1 && command -v public-inbox-init >/dev/null 2>&1; then
	[ "$mda_n" -le "$total" ] || mda_n=$total
	public-inbox-init -V2 -L basic bench "$tmp/mda-inbox" http://bench.invalid/bench \
		bench@lists.example.org >"$tmp/mda.log" 2>&1
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
	ls "$tmp/list" | head -n "$mda_n" | sed "s|^|$tmp/list/|" >"$tmp/mda.list"
	cat >"$tmp/mda.sh" <<'SH'
while IFS= read -r f; do
	ORIGINAL_RECIPIENT=bench@lists.example.org public-inbox-mda --no-precheck <"$f" || exit 1
done <"$1"
SH
	timed "$tmp/t/mda" sh "$tmp/mda.sh" "$tmp/mda.list" >>"$tmp/mda.log" 2>&1 || {
		echo "ingest.sh: public-inbox-mda failed:" >&2
		tail -n 5 "$tmp/mda.log" >&2
		exit 1
	}
	echo "public-inbox-mda: $mda_n messages (a sample) in $(cut -d' ' -f1 "$tmp/t/mda") s"
fi

# 5. lei import
if command -v lei >/dev/null 2>&1; then
	maildir "$tmp/lei-mail"
	lei_pid=$(lei daemon-pid 2>/dev/null) || lei_pid=
	sync
	timed "$tmp/t/lei" lei import "maildir:$tmp/lei-mail" >"$tmp/lei.log" 2>&1 || {
		echo "ingest.sh: lei import failed:" >&2
		tail -n 5 "$tmp/lei.log" >&2
		exit 1
	}
	lei daemon-kill >/dev/null 2>&1 || :
	# the daemon is gone (or killed by its PID on exit)
	i=0
	while [ -n "$lei_pid" ] && kill -0 "$lei_pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$lei_pid" 2>/dev/null || lei_pid=
	echo "lei import: $total messages in $(cut -d' ' -f1 "$tmp/t/lei") s ($(grep -c ' E: ' "$tmp/lei.log" || :) worker errors)"
else
	echo "lei: not installed (package lei): not compared"
fi

# 6. notmuch new
if command -v notmuch >/dev/null 2>&1; then
	maildir "$tmp/nm-mail"
	printf '[database]\npath=%s\n[user]\nname=Bench\nprimary_email=bench@lists.example.org\n[new]\ntags=inbox;\nignore=\n[search]\nexclude_tags=\n[maildir]\nsynchronize_flags=false\n' \
		"$tmp/nm-mail" >"$NOTMUCH_CONFIG"
	sync
	timed "$tmp/t/notmuch" notmuch new --quiet >"$tmp/nm.log" 2>&1 || {
		echo "ingest.sh: notmuch new failed:" >&2
		tail -n 5 "$tmp/nm.log" >&2
		exit 1
	}
	echo "$(notmuch count '*') $(notmuch count --output=threads '*')" >"$tmp/t/threads.notmuch"
	echo "notmuch new: $total messages in $(cut -d' ' -f1 "$tmp/t/notmuch") s; threads: $(cut -d' ' -f2 "$tmp/t/threads.notmuch") among $(cut -d' ' -f1 "$tmp/t/threads.notmuch") messages"
else
	echo "notmuch: not installed (package notmuch): not compared"
fi

echo
set +e
python3 - "$tmp/t" "$small" "$total" "$mda_n" <<'PY'
import os, sys
t, small, total, mda_n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def load(name):
    p = os.path.join(t, name)
    return tuple(float(x) for x in open(p).read().split()) if os.path.exists(p) else None

def median(prefix):
    runs = sorted(load(f) for f in os.listdir(t) if f.startswith(prefix + "."))
    return runs[(len(runs) - 1) // 2] if runs else None

pb_small, pb_all = median("perfbot.%d" % small), median("perfbot.%d" % total)
rss_small = max(load(f)[2] for f in os.listdir(t) if f.startswith("perfbot.%d." % small)) / 1024
rss_all = max(load(f)[2] for f in os.listdir(t) if f.startswith("perfbot.%d." % total)) / 1024
mda, lei, nm = load("mda"), load("lei"), load("notmuch")
triple = load("triple")
missed = []

def row(name, n, run, rss, note=""):
    wall = run[0]
    print("%-30s %6d %8.2f %9.0f %9.2f %8s  %s" % (name, n, wall, n / wall, wall / n * 1e3,
                                                   "%.1f" % rss if rss else "-", note))

print("summary (ingest): perfbot the median of its runs; peak RSS of the process and its children")
print("%-30s %6s %8s %9s %9s %8s" % ("", "msgs", "seconds", "msgs/s", "ms/msg", "RSS MiB"))
row("perfbot ingest --all", total, pb_all, rss_all, "fresh state, archive included")
row("perfbot ingest --all (small)", small, pb_small, rss_small)
if triple:
    row("perfbot ingest --all (3x)", 3 * total, triple, triple[2] / 1024, "the list three times, once")
if mda:
    row("public-inbox-mda", mda_n, mda, mda[2] / 1024, "one process a message, a sample of %d" % mda_n)
if lei:
    row("lei import maildir:", total, lei, None, "its daemon does the work: RSS not seen")
if nm:
    row("notmuch new", total, nm, nm[2] / 1024)
print()
rate = total / pb_all[0]

def target(what, ratio, want):
    ok = ratio >= want
    if not ok:
        missed.append(what)
    print("perfbot against %-20s %7.1fx   target >= %gx: %s" % (what + ":", ratio, want, "met" if ok else "MISSED"))

if mda:
    target("public-inbox-mda", rate / (mda_n / mda[0]), 10)
if lei:
    print("perfbot against %-20s %7.1fx   (no target)" % ("lei import:", rate / (total / lei[0])))
if nm:
    target("notmuch new", rate / (total / nm[0]), 5)
ok = rss_all < 64
print("peak RSS, %d messages: %.1f MiB   target < 64 MiB: %s" % (total, rss_all, "met" if ok else "MISSED"))
if not ok:
    missed.append("RSS")
grow = rss_all / rss_small - 1
ok = grow <= 0.10
print("peak RSS, %d against %d messages: %+.0f%%   target: not growing with N (<= +10%%): %s"
      % (total, small, grow * 100, "met" if ok else "MISSED"))
if not ok:
    missed.append("RSS growth")
if triple:
    grow = triple[2] / 1024 / rss_all - 1
    ok = grow <= 0.10
    print("peak RSS, %d against %d messages: %+.0f%%   target: not growing with N (<= +10%%): %s"
          % (3 * total, total, grow * 100, "met" if ok else "MISSED"))
    if not ok:
        missed.append("RSS growth at 3x")
counts = {}
for who in ("perfbot", "pi", "notmuch"):
    c = load("threads." + who)
    if c:
        counts[{"pi": "public-inbox"}.get(who, who)] = (int(c[0]), int(c[1]))
print("threads: " + ", ".join("%s %d (of %d messages)" % (k, v[1], v[0]) for k, v in counts.items()), end="")
same = len({v[1] for v in counts.values()}) == 1
print("   target equal: %s" % ("met" if same else "MISSED"))
if not same:
    missed.append("threads")
sys.exit(2 if missed else 0)
PY
status=$?
set -e
if [ "$status" -eq 2 ] && [ -n "${BENCH_STRICT:-}" ]; then
	exit 2
fi
[ "$status" -le 2 ] || exit "$status"
exit 0
