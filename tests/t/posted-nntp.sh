#!/bin/sh
# posted-nntp.sh: fixes posted to a list, read over NNTP (perfbot-ingest(1),
# Posted fixes; the issue's "in v1 and v2, through NNTP"), end to end.
#
# The set-up of posted.sh (tests/helpers/posted-lib.sh): three reports
# sent to the scripted SMTP peer.  The list is a public-inbox inbox served
# by Debian's public-inbox-nntpd (tests/helpers/pi-nntpd.sh); a mail is
# posted to it by a producer state that files it (ingest --all --mbox)
# and public-inbox-index.  Then:
#   the first read of the group (from the oldest open report's day) takes
#   nothing older; [PATCH] v1 with Closes: to report A is posted, and the
#   next `ingest --nntp` records it; [PATCH v2] is posted, the next run
#   records it, and status --json shows v2 the latest and v1 not; a run
#   with nothing new changes nothing; the same two mails arriving in the
#   Maildir too are known already, not recorded twice; the fix commit
#   lands and `track` records it as A's fix with "posted" = v2's
#   Message-ID.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
pinntpd=$top/tests/helpers/pi-nntpd.sh
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
command -v public-inbox-nntpd >/dev/null || {
	echo "skip: public-inbox is not installed (tests/helpers/install-deps.sh test)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}
tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	sh "$pinntpd" stop "$tmp/pi" 2>/dev/null
	rm -rf "$tmp"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT
trap 'exit 1' INT TERM
export HOME=$tmp/home
mkdir -p "$HOME"

# 1. the repository, the reports and a follow-up of B (posted-lib.sh)
. "$top/tests/helpers/posted-lib.sh"

# 2. the list: an inbox filed by a producer state, served as a group
printf '[perfbot]\n\tfrom = list archiver <archiver@example.org>\n\tstate = %s\n' "$tmp/list" >"$tmp/cl"
post() { # FILE...: the mails posted to the list, filed and indexed
	for f in "$@"; do
		printf 'From dev@example.org Wed Feb 25 10:00:00 2026\n'
		cat "$f"
		printf '\n'
	done >"$tmp/post.mbox"
	"$perfbot" --config "$tmp/cl" ingest --all --mbox "$tmp/post.mbox" 2>"$tmp/post.log" ||
		not_ok "posting to the list: $(cat "$tmp/post.log")"
	[ -s "$tmp/pi/pid" ] && { sh "$pinntpd" index "$tmp/pi" "$tmp/list/archive" ||
		not_ok "public-inbox-index of the list"; }
}
printf 'From: Dev Y <devY@example.org>\nTo: linux-mm@kvack.org\nSubject: mm: an older thread\nDate: Fri, 20 Feb 2026 10:00:00 +0000\nMessage-ID: <older@example.org>\n\nBefore the reports.\n' \
	>"$tmp/older.eml"
post "$tmp/older.eml"
port=$(free_port)
out=$(sh "$pinntpd" start "$tmp/pi" "$port" "$tmp/list/archive=org.kvack.linux-mm" 2>&1)
rc=$?
[ $rc -eq 77 ] && { echo "$out"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
[ $rc -eq 0 ] || { echo "not ok public-inbox-nntpd does not start: $out"; echo "$pass passed, $((fail + 1)) failed"; exit 1; }
# a proxy that logs the commands the server saw (tests/helpers/nntp-proxy.py)
pport=$(free_port)
python3 "$top/tests/helpers/nntp-proxy.py" "$pport" "$port" "$tmp/proxy.log" &
pids="$pids $!"
i=0
while ! python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1]))).close()" "$pport" 2>/dev/null &&
	[ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
url=nntp://127.0.0.1:$pport/org.kvack.linux-mm

# 3. the first read: from the day of the oldest open report, nothing older
PERFBOT_NOW=$T2 pb ingest --nntp "$url" 2>"$tmp/ingest1.log"
check "ingest --nntp, first read: exit 0" test $? -eq 0
check "ingest --nntp, first read: from the day of the oldest open report" \
	grep -q "first read of $url from 2026-02-25, the day of the oldest open report's creation" "$tmp/ingest1.log"
check_eq "ingest --nntp, first read: the older mail not taken" "[(0,)]" \
	"$(dbq "SELECT COUNT(*) FROM messages WHERE message_id = 'older@example.org'")"

# 4. v1 posted to the list, in a thread of its own: the next run records it
patch a-v1@example.org "Wed, 25 Feb 2026 10:00:00 +0000" "[PATCH] mm: fix A" "Dev A <devA@example.org>" \
	>"$tmp/a-v1.eml" <<EOF
Closes: https://lore.kernel.org/all/$mid_A/
Signed-off-by: Dev A <devA@example.org>
EOF
post "$tmp/a-v1.eml"
: >"$tmp/proxy.log"
PERFBOT_NOW=$T2 pb ingest --nntp "$url" 2>"$tmp/ingest2.log"
check "ingest --nntp, v1 posted: exit 0" test $? -eq 0
check "ingest --nntp, v1 posted: recorded as a posted fix of A" \
	grep -q "report [0-9]*: fix posted: <a-v1@example.org> \"mm: fix A\", v1, by devA@example.org (closes)" "$tmp/ingest2.log"
check "ingest --nntp, v1 posted: kept, 1 posted fix" grep -q "^ingest: 1 kept, .*1 posted fix" "$tmp/ingest2.log"
check_eq "ingest --nntp, v1 posted: only the new article fetched" "ARTICLE 2" "$(grep '^ARTICLE' "$tmp/proxy.log" | paste -sd' ')"
snap
check_eq "status --json: v1, the latest so far" "a-v1@example.org 1 True closes" \
	"$(q "$mid_A" '" | ".join("%s %s %s %s" % (p["message_id"], p["version"], p["latest"], p["evidence"]) for p in r["posted_fixes"])')"

# 5. v2 posted: the next run records it, and it supersedes v1
patch a-v2@example.org "Thu, 26 Feb 2026 09:00:00 +0100" "[PATCH v2 1/1] mm: fix A" "Dev A <devA@example.org>" \
	>"$tmp/a-v2.eml" <<EOF
Closes: https://lore.kernel.org/all/$mid_A/
Signed-off-by: Dev A <devA@example.org>
EOF
post "$tmp/a-v2.eml"
PERFBOT_NOW=$T3 pb ingest --nntp "$url" 2>"$tmp/ingest3.log"
check "ingest --nntp, v2 posted: exit 0" test $? -eq 0
check "ingest --nntp, v2 posted: recorded" \
	grep -q "report [0-9]*: fix posted: <a-v2@example.org> \"mm: fix A\", v2, by devA@example.org (closes)" "$tmp/ingest3.log"
check "ingest --nntp, v2 posted: v1 not taken again" sh -c "! grep -q 'a-v1@example.org' '$tmp/ingest3.log'"
snap
check_eq "status --json: A's posted fixes, v2 the latest and v1 not" \
	"a-v1@example.org 1 False closes | a-v2@example.org 2 True closes" \
	"$(q "$mid_A" '" | ".join("%s %s %s %s" % (p["message_id"], p["version"], p["latest"], p["evidence"]) for p in r["posted_fixes"])')"
check_eq "status --json: a posted fix changes no state" "open None" "$(q "$mid_A" 'r["state"] + " " + str(r["fix"])')"
pb status >"$tmp/status1.txt"
check "status: the latest version is shown" \
	grep -q "fix posted: \"mm: fix A\", v2, 2026-02-26T08:00:00Z, by Dev A <devA@example.org>, closes <a-v2@example.org>" "$tmp/status1.txt"
check "status: the earlier one is not" sh -c "! grep -q 'a-v1@example.org' '$tmp/status1.txt'"

# 6. nothing new on the list: nothing changes
sum1=$(dbq "SELECT * FROM posted_fixes ORDER BY report_id, message_id")
PERFBOT_NOW=$T3 pb ingest --nntp "$url" 2>"$tmp/ingest4.log"
check "ingest --nntp, nothing new: exit 0, silent" test $? -eq 0 -a ! -s "$tmp/ingest4.log"

# 7. the same mails in the Maildir too (perfbot was in Cc): known already
md=$tmp/md
mkdir -p "$md/new" "$md/cur" "$md/tmp"
cp "$tmp/a-v1.eml" "$md/new/1.eml"
cp "$tmp/a-v2.eml" "$md/new/2.eml"
PERFBOT_NOW=$T3 pb ingest --maildir "$md" 2>"$tmp/ingest5.log"
check "ingest --maildir, the same mails: exit 0" test $? -eq 0
check "ingest --maildir, the same mails: nothing said, nothing new" test ! -s "$tmp/ingest5.log"
check_eq "state: each mail known once" "[('a-v1@example.org', 1), ('a-v2@example.org', 1)]" \
	"$(dbq "SELECT message_id, COUNT(*) FROM messages WHERE message_id LIKE 'a-v_@example.org' GROUP BY message_id ORDER BY message_id")"
check "ingest --maildir, the same mails: no fix posted again" sh -c "! grep -q 'fix posted' '$tmp/ingest5.log'"
check_eq "state: each version recorded once" "$sum1" "$(dbq "SELECT * FROM posted_fixes ORDER BY report_id, message_id")"
check_eq "state: two posted fixes in all" "[(2,)]" "$(dbq "SELECT COUNT(*) FROM posted_fixes")"

# 8. the commit lands: track records it as A's fix, linked to v2
linus=$(printf '%s\n' "mm: fix A

The change made hackbench slower: free the pages later.

Closes: https://lore.kernel.org/all/$mid_A/
Signed-off-by: Dev A <devA@example.org>" | commit $((T3 + 60)) fixer "$heads_tip")
git -C "$repo" update-ref refs/remotes/linus/master "$linus"
PERFBOT_NOW=$((T3 + 3600)) pb track 2>"$tmp/track.log"
check "track: A is fixed" test "$(grep -c "the report is fixed" "$tmp/track.log")" -eq 1
snap
check_eq "status --json: A's fix is the landed commit, posted as v2" "fixed closes a-v2@example.org ${linus}" \
	"$(q "$mid_A" 'r["state"] + " " + r["fix"]["evidence"] + " " + str(r["fix"]["posted"]) + " " + r["fix"]["commit"]')"
pb status >"$tmp/status2.txt"
check "status: the fix says which posted patch it is" \
	grep -q "fix: .* (\"mm: fix A\") on linus/master, committed .*, closes; posted as <a-v2@example.org>" "$tmp/status2.txt"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
