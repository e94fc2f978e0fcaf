#!/bin/sh
# ingest-sync.sh: when `perfbot ingest` syncs the state database
# (perfbot-ingest(1), the paragraph on syncing).  Ingest of 1,200 mails
# from an mbox, every system call that syncs or renames logged by strace
# with the paths of its descriptors:
#  1. the WAL is synced once per batch (plus the first run's set-up and
#     the end, and once more when the end starts a WAL of more than 1 MiB
#     again, state.c's wal_restart()), not at each mail's commit;
#  2. before each move of the archive's master, the WAL was synced since
#     the move before: a mail the archive holds is on disk in the state;
#  3. at the end everything is in state.db itself (the run synced and
#     copied the WAL back), every mail recorded and archived;
#  4. a second run takes nothing.
# Skips without strace.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

. "$top/tests/helpers/tlib.sh"

if ! command -v strace >/dev/null 2>&1; then
	echo "skip: strace is not installed (tests/helpers/install-deps.sh test)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
export HOME=$tmp/home GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 PERFBOT_NOW=1773100000
mkdir -p "$HOME"
state=$tmp/state
printf '[perfbot]\n\tfrom = perfbot lab <perfbot@lab.example.org>\n\tstate = %s\n' "$state" >"$tmp/c"
n=1200
python3 - "$n" >"$tmp/list.mbox" <<'PY'
import sys
for i in range(int(sys.argv[1])):
    parent = "" if i % 10 == 0 else "In-Reply-To: <m%d@example.org>\n" % (i - i % 10)
    print("From dev@example.org Tue Mar 10 08:00:00 2026")
    print("From: Dev %d <dev%d@example.org>\nTo: list@example.org\nSubject: topic %d\n"
          "Message-ID: <m%d@example.org>\n%sDate: Tue, 10 Mar 2026 08:%02d:00 +0000\n\nline %d\n"
          % (i % 7, i % 7, i - i % 10, i, parent, i % 60, i))
PY

# a first run makes the state and the archive (and syncs its set-up)
printf 'From dev@example.org Tue Mar 10 07:00:00 2026\nFrom: Dev <dev@example.org>\nSubject: first\nMessage-ID: <first@example.org>\nDate: Tue, 10 Mar 2026 07:00:00 +0000\n\nfirst\n' >"$tmp/first.mbox"
"$perfbot" --config "$tmp/c" ingest --all --mbox "$tmp/first.mbox" 2>"$tmp/err0"
check_eq "a first run of one mail exits 0" "0" "$?"
strace -f -y -qq -e trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat -o "$tmp/trace" \
	"$perfbot" --config "$tmp/c" ingest --all --mbox "$tmp/list.mbox" 2>"$tmp/err"
check_eq "ingest of $n mails exits 0" "0" "$?"
n=$((n + 1))	# and the first run's

# the syncs of the WAL, and the moves of master, in the order made
python3 - "$tmp/trace" >"$tmp/events" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    if re.search(r"\bf(data)?sync\(\d+<[^>]*/state\.db-wal>\) = 0", line):
        print("sync")
    elif re.search(r"(rename|link)\w*\(.*\"[^\"]*/refs/heads/master\"", line) and line.rstrip().endswith("= 0"):
        print("master")
PY
syncs=$(grep -c '^sync$' "$tmp/events")
moves=$(grep -c '^master$' "$tmp/events")
batches=$(( (n - 1 + 499) / 500 ))
check_eq "master moves once per batch" "$batches" "$moves"
if [ "$syncs" -ge "$batches" ] && [ "$syncs" -le $((batches + 3)) ]; then
	ok "the WAL is synced once per batch, not per mail ($syncs syncs for $((n - 1)) mails)"
else
	not_ok "the WAL is synced $syncs times for $((n - 1)) mails in $batches batches"
fi
check_eq "each move of master comes after a sync of the WAL since the move before" "ok" \
	"$(awk '/^sync$/ { synced = 1 } /^master$/ { if (!synced) bad = 1; synced = 0 }
		END { print bad ? "a move without a sync" : "ok" }' "$tmp/events")"

# state.db alone, as an operating-system crash after the run could
# leave it had the WAL been left unsynced and not copied back
mkdir "$tmp/copy"
cp "$state/state.db" "$tmp/copy/state.db"
check_eq "state.db alone holds every mail, each archived" "$n $n" \
	"$(python3 -c "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); print(d.execute('select count(*) from messages').fetchone()[0], d.execute('select count(*) from messages where blob_oid is not null').fetchone()[0])" "$tmp/copy/state.db")"
check_eq "the archive holds every mail" "$n" "$(git --git-dir="$state/archive/git/0.git" rev-list --count master)"

"$perfbot" --config "$tmp/c" ingest --all --mbox "$tmp/list.mbox" 2>"$tmp/err2"
check_eq "a second run exits 0" "0" "$?"
check_eq "a second run takes nothing" "$n" "$(git --git-dir="$state/archive/git/0.git" rev-list --count master)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
