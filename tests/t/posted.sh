#!/bin/sh
# posted.sh: fixes posted to the lists before they land (perfbot-ingest(1),
# Posted fixes), end to end.
#
# Three reports, A to C, are sent to the scripted SMTP peer (so their
# Message-IDs are perfbot's own), and B gets a follow-up.  Then patch mails
# arrive in new threads, through a Maildir and through stdin:
#   A  [PATCH] with Closes: to the report, then [PATCH v2] of it (the v2
#      through both sources: recorded once)
#   B  a patch with Link: to B's follow-up, and a [PATCH RFC] in B's thread
#   C  a patch with Fixes: C's head and perfbot's Reported-by:, one with
#      Fixes: without it (no posted fix), and a diff without [PATCH]
#   -  a patch naming no report, and a mail that is no patch with Closes:
#      A (neither recorded)
# Checked: status and thread (text and --json: posted_fixes, the latest
# version), the states unchanged, the ingest summary, a second run that
# changes nothing, the patch mails kept in the archive, the digest's "fix
# posted" line; then the commits land and `track` links each fix to the
# posted patch whose subject it has.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
tmp=$(mktemp -d)
pass=0
fail=0
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT

# 1. the repository, the reports and a follow-up of B (posted-lib.sh)
. "$top/tests/helpers/posted-lib.sh"

# 2. the patches, each in a thread of its own
md=$tmp/md
mkdir -p "$md/new" "$md/cur" "$md/tmp"
patch a-v1@example.org "Wed, 25 Feb 2026 10:00:00 +0000" "[PATCH] mm: fix A" "Dev A <devA@example.org>" \
	>"$md/new/1.eml" <<EOF
Closes: https://lore.kernel.org/all/$mid_A/
Signed-off-by: Dev A <devA@example.org>
EOF
patch a-v2@example.org "Thu, 26 Feb 2026 09:00:00 +0100" "[PATCH v2 1/1] mm: fix A" "Dev A <devA@example.org>" \
	>"$tmp/a-v2.eml" <<EOF
Closes: https://lore.kernel.org/all/$mid_A/
Signed-off-by: Dev A <devA@example.org>
EOF
cp "$tmp/a-v2.eml" "$md/new/2.eml"
patch b-v1@example.org "Wed, 25 Feb 2026 11:00:00 +0000" "[PATCH net] mm: fix B" "Dev B <devB@example.org>" \
	>"$md/new/3.eml" <<EOF
Link: https://lore.kernel.org/r/$fu_B
Signed-off-by: Dev B <devB@example.org>
EOF
patch c-v1@example.org "Wed, 25 Feb 2026 12:00:00 +0000" "[PATCH] mm: fix C" "Dev C <devC@example.org>" \
	>"$md/new/4.eml" <<EOF
Fixes: $(echo "$head_C" | cut -c1-12) ("mm: change C")
Reported-by: perfbot lab <perfbot@lab.example.org>
Signed-off-by: Dev C <devC@example.org>
EOF
patch c-tune@example.org "Wed, 25 Feb 2026 12:30:00 +0000" "[PATCH] mm: tune C" "Dev C <devC@example.org>" \
	>"$md/new/5.eml" <<EOF
Fixes: $(echo "$head_C" | cut -c1-12) ("mm: change C")
Signed-off-by: Dev C <devC@example.org>
EOF
patch other@example.org "Wed, 25 Feb 2026 13:00:00 +0000" "[PATCH] mm: something else" "Dev X <devX@example.org>" \
	>"$md/new/6.eml" <<EOF
Closes: https://lore.kernel.org/all/not-a-report@example.org/
Signed-off-by: Dev X <devX@example.org>
EOF
# a diff makes a patch without [PATCH] in the Subject
patch c-diff@example.org "Wed, 25 Feb 2026 12:45:00 +0000" "mm: fix C differently" "Dev D <devD@example.org>" \
	>"$md/new/5b.eml" <<EOF
Closes: https://lore.kernel.org/all/$mid_C
EOF
# a patch in B's own thread: kept there, and a posted fix too
{
	printf 'In-Reply-To: <%s>\nReferences: <%s>\n' "$mid_B" "$mid_B"
	patch b-thread@example.org "Wed, 25 Feb 2026 11:30:00 +0000" "[PATCH RFC] mm: try B" "Dev B <devB@example.org>" <<EOF
Closes: https://lore.kernel.org/all/$mid_B
EOF
} >"$md/new/3b.eml"
printf 'From: Dev Y <devY@example.org>\nTo: linux-mm@kvack.org\nSubject: mm: A is fixed, I think\nDate: Wed, 25 Feb 2026 14:00:00 +0000\nMessage-ID: <prose@example.org>\n\nSee the thread.\n\nCloses: https://lore.kernel.org/all/%s/\n' \
	"$mid_A" >"$md/new/7.eml"
PERFBOT_NOW=$T2 pb ingest - <"$tmp/a-v2.eml" 2>"$tmp/ingest0.log"
check "ingest -: the v2 through stdin first" grep -q "report [0-9]*: fix posted: <a-v2@example.org> \"mm: fix A\", v2, by devA@example.org (closes)" "$tmp/ingest0.log"
PERFBOT_NOW=$T2 pb ingest --maildir "$md" 2>"$tmp/ingest1.log"
check "ingest --maildir: exit 0" test $? -eq 0
check_eq "ingest: 5 more posted fixes (the v2 through the Maildir is known already)" 1 \
	"$(grep -c "^ingest: 5 kept, 1 known already, 3 answer no report, .*, 5 posted fixes$" "$tmp/ingest1.log")"
check "ingest: the v1 is said" grep -q "fix posted: <a-v1@example.org> \"mm: fix A\", v1, by devA@example.org (closes)" "$tmp/ingest1.log"
check "ingest: Link: to a follow-up" grep -q "fix posted: <b-v1@example.org> \"mm: fix B\", v1, by devB@example.org (link)" "$tmp/ingest1.log"
check "ingest: Fixes: with perfbot's Reported-by" grep -q "fix posted: <c-v1@example.org> \"mm: fix C\", v1, by devC@example.org (fixes)" "$tmp/ingest1.log"
check "ingest: a patch outside every thread is kept" grep -q "<a-v1@example.org> kept: a fix posted for report" "$tmp/ingest1.log"
check "ingest: a diff without [PATCH] is a patch" grep -q "fix posted: <c-diff@example.org> \"mm: fix C differently\", v1, by devD@example.org (closes)" "$tmp/ingest1.log"
check "ingest: a patch in the report's thread stays in it" grep -q "<b-thread@example.org> kept in the thread of report" "$tmp/ingest1.log"
check "ingest: ... and is a posted fix" grep -q "fix posted: <b-thread@example.org> \"mm: try B\", v1, by devB@example.org (closes)" "$tmp/ingest1.log"
check "ingest: Fixes: without Reported-by is no posted fix" sh -c "! grep -q c-tune '$tmp/ingest1.log'"
snap
check_eq "status --json: A's posted fixes, oldest first, v2 the latest" \
	"a-v1@example.org 1 False closes | a-v2@example.org 2 True closes" \
	"$(q "$mid_A" '" | ".join("%s %s %s %s" % (p["message_id"], p["version"], p["latest"], p["evidence"]) for p in r["posted_fixes"])')"
check_eq "status --json: subject, author, date in UTC" \
	"mm: fix A|Dev A|devA@example.org|2026-02-26T08:00:00Z" \
	"$(q "$mid_A" '"%s|%s|%s|%s" % (r["posted_fixes"][1]["subject"], r["posted_fixes"][1]["author"]["name"], r["posted_fixes"][1]["author"]["email"], r["posted_fixes"][1]["date"])')"
check_eq "status --json: B's through its follow-up, and in its thread" "b-v1@example.org link True | b-thread@example.org closes True" \
	"$(q "$mid_B" '" | ".join(" ".join(str(p[k]) for k in ("message_id", "evidence", "latest")) for p in r["posted_fixes"])')"
check_eq "status --json: C's by Fixes: and by a diff, the other patch not recorded" "c-v1@example.org fixes | c-diff@example.org closes" \
	"$(q "$mid_C" '" | ".join("%s %s" % (p["message_id"], p["evidence"]) for p in r["posted_fixes"])')"
check_eq "status --json: a posted fix changes no state" "open open open None" \
	"$(q "$mid_A" '" ".join(x["state"] for x in d["reports"] if not x["subject"].startswith("Re:")) + " " + str(r["fix"])')"
pb status >"$tmp/status1.txt"
check "status: the latest version is shown" grep -q "fix posted: \"mm: fix A\", v2, 2026-02-26T08:00:00Z, by Dev A <devA@example.org>, closes <a-v2@example.org>" "$tmp/status1.txt"
check "status: the earlier one is not" sh -c "! grep -q 'a-v1@example.org' '$tmp/status1.txt'"
pb thread "$mid_A" >"$tmp/thread.txt"
check "thread: shows the posted fix" grep -q "fix posted: \"mm: fix A\", v2, " "$tmp/thread.txt"
pb thread --json "$mid_A" >"$tmp/thread.json"
check_eq "thread --json: posted_fixes" "a-v1@example.org a-v2@example.org" \
	"$(python3 -c 'import json,sys; print(" ".join(p["message_id"] for p in json.load(open(sys.argv[1]))["posted_fixes"]))' "$tmp/thread.json")"
check_eq "state: the v2, read from two sources, is recorded once" "[(1,)]" \
	"$(dbq "SELECT COUNT(*) FROM posted_fixes WHERE message_id = 'a-v2@example.org'")"
check_eq "state: the patch mails are kept (outside every thread, but B's own), the others not" \
	"[('a-v1@example.org', 0), ('a-v2@example.org', 0), ('b-thread@example.org', 1), ('b-v1@example.org', 0), ('c-diff@example.org', 0), ('c-v1@example.org', 0)]" \
	"$(dbq "SELECT message_id, COALESCE(report_id, 0) > 0 FROM messages WHERE origin = 'ingested' ORDER BY message_id")"
check_eq "archive: the patch mails are filed, the others not" \
	"[PATCH RFC] mm: try B|[PATCH net] mm: fix B|[PATCH v2 1/1] mm: fix A|[PATCH] mm: fix A|[PATCH] mm: fix C|mm: fix C differently" \
	"$(git --git-dir="$state/archive/git/0.git" log --format=%s | grep -e PATCH -e 'C differently' | sort | paste -sd'|')"

# the same mails again: nothing changes
cp "$tmp/a-v2.eml" "$md/new/8.eml"
sum1=$(dbq "SELECT * FROM posted_fixes ORDER BY report_id, message_id")
PERFBOT_NOW=$T2 pb ingest - <"$tmp/a-v2.eml" 2>"$tmp/ingest2.log"
PERFBOT_NOW=$T2 pb ingest --maildir "$md" 2>>"$tmp/ingest2.log"
check "ingest again: nothing posted" sh -c "! grep -q 'fix posted' '$tmp/ingest2.log'"
check_eq "ingest again: the posted fixes are as they were" "$sum1" "$(dbq "SELECT * FROM posted_fixes ORDER BY report_id, message_id")"

# the digest lists the latest version under the open report
PERFBOT_NOW=$T2 pb digest --dry-run >"$tmp/digest.eml" 2>"$tmp/digest.log"
check "digest: fix posted: SUBJECT, vN, DATE, link" \
	grep -q "^  fix posted: mm: fix A, v2, 2026-02-26, https://lore.kernel.org/all/a-v2@example.org$" "$tmp/digest.eml"
check "digest: the earlier version is not listed" sh -c "! grep -q 'a-v1@example.org' '$tmp/digest.eml'"
check "digest: B's" grep -q "^  fix posted: mm: fix B, v1, 2026-02-25, https://lore.kernel.org/all/b-v1@example.org$" "$tmp/digest.eml"

# 3. the commits land: track links each fix to its posted patch
t=$((T2 + 3600))
linus=$heads_tip
land "mm: fix A

The change made hackbench slower: free the pages later.

Closes: https://lore.kernel.org/all/$mid_A/
Signed-off-by: Dev A <devA@example.org>"
land "mm: fix B, another way

Link: https://lore.kernel.org/r/$fu_B"
land "mm: fix C

Fixes: $(echo "$head_C" | cut -c1-12) (\"mm: change C\")
Reported-by: perfbot lab <perfbot@lab.example.org>"
git -C "$repo" update-ref refs/remotes/linus/master "$linus"
PERFBOT_NOW=$T3 pb track 2>"$tmp/track.log"
check "track: the three reports are fixed" test "$(grep -c "the report is fixed" "$tmp/track.log")" -eq 3
snap
check_eq "status --json: A's fix is the posted v2" "fixed closes a-v2@example.org" \
	"$(q "$mid_A" 'r["state"] + " " + r["fix"]["evidence"] + " " + str(r["fix"]["posted"])')"
check_eq "status --json: C's fix is its posted patch" "fixed fixes c-v1@example.org" \
	"$(q "$mid_C" 'r["state"] + " " + r["fix"]["evidence"] + " " + str(r["fix"]["posted"])')"
check_eq "status --json: B's commit has another subject: not linked" "fixed link None" \
	"$(q "$mid_B" 'r["state"] + " " + r["fix"]["evidence"] + " " + str(r["fix"]["posted"])')"
pb status >"$tmp/status2.txt"
check "status: the fix says which posted patch it is" grep -q "fix: .* (\"mm: fix A\") on linus/master, committed .*, closes; posted as <a-v2@example.org>" "$tmp/status2.txt"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
