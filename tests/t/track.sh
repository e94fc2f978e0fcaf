#!/bin/sh
# track.sh: perfbot track and perfbot digest end to end (perfbot-track(1), perfbot-digest(1)).
#
# A fixture repository with two watched trees (linus: refs/remotes/linus/
# master by default; linux-next: tree.linux-next.ref = refs/remotes/next/
# master) and eleven reports, A to K, sent to the scripted SMTP peer first
# so that their Message-IDs are perfbot's own.  Then fixes arrive in every
# shape:
#   A  CLOSES :  in odd case and spacing                  -> fixed (closes)
#   B  Link: with the Message-ID (and <>) percent-encoded -> fixed (link)
#   C  a revert of its head commit                        -> fixed (revert)
#   D  Fixes: + perfbot's Reported-by (odd case, # comment) -> fixed (fixes)
#   E  Fixes: without Reported-by                         -> possible, open
#   F  a report on linus whose fix is on linux-next only  -> fixed, that ref
#      (the fix quotes a splat, "------------[ cut here ]...", above its
#      trailers)
#   G  #perfbot fixed-by: a commit on no watched tree; it lands one run later
#   H  #perfbot fixed-by: a commit the repository does not have
#   I  linux-next rebased between two runs, the new one with Link: I
#   J  #perfbot invalid, then a Closes: J                 -> stays invalid
#   K  fixed, #perfbot reopen, then newer evidence        -> fixed again
# Checked: the states, fix facts and possible fixes in status --json and
# thread, one log line per finding, a second run that changes nothing, a
# --dry-run that changes nothing, kill -9 at random instants of a long run
# ending in the state of an uninterrupted one, the notices (announceFixes)
# delivered through the real Postfix into the reports' threads and threaded
# by public-inbox-index under the reports, and a digest rendered byte for
# byte (tests/t/data/track/digest.eml; UPDATE_GOLDEN=1 rewrites it) under
# the previous digest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
tmp=$(mktemp -d)
chmod 755 "$tmp"	# Postfix delivers as another user
pass=0
fail=0
skip=0
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -d "$tmp/pf" ] && sh "$top/tests/helpers/postfix.sh" stop "$tmp/pf"
	rm -rf "$tmp"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT
golden=$top/tests/t/data/track/digest.eml

. "$top/tests/helpers/reports-lib.sh"
T4=$((T3 + 86400))
T5=$((T4 + 86400))
reports_repo A B C D E F G H I J K
git -C "$repo" update-ref refs/remotes/next/master "$heads_tip"

# config STATE PORT: the golden tests' configuration, sending to 127.0.0.1:PORT
config() {
	reports_config "$1" "$2"
	printf '[tree "linux-next"]\n\tref = refs/remotes/next/master\n'
	printf '[perfbot]\n\tannounceFixes = true\n'
}

smtp_peer_start "$tmp/peer"
state=$tmp/state
config "$state" "$peer_port" >"$tmp/c"
# dump: the whole state database as SQL text (python3's sqlite3)
dump() {
	python3 -c 'import sqlite3, sys; print("\n".join(sqlite3.connect(sys.argv[1]).iterdump()))' "$1/state.db"
}

# 1. the reports, sent to the scripted peer
reports_next=HI
reports_json A B C D E F G H I J K
PERFBOT_NOW=$T1 pb send "$tmp"/[A-K].json 2>"$tmp/send1.log"
check "send: the 11 reports go to the scripted peer" test "$(grep -c '^sent report' "$tmp/send1.log")" -eq 11
snap
reports_mids A B C D E F G H I J K
check "status: a report starts with no fix" test "$(q "$mid_A" 'r["fix"]')" = None
check "status: ... and no possible fixes" test "$(q "$mid_A" 'r["possible_fixes"]')" = "[]"

# 2. replies: J is invalid, G fixed by a commit on no watched tree, H by one
#    the repository does not have
pending=$(printf 'mm: fix G\n\nSigned-off-by: Dev G <devG@example.org>\n' | commit $((T1 + 600)) G "$heads_tip")
git -C "$repo" update-ref refs/heads/pending "$pending"
reply() { # LETTER MID DATE TEXT: one mbox message answering report LETTER
	printf 'From dev%s@example.org Wed Feb 25 10:00:00 2026\n' "$1"
	printf 'From: Dev %s <dev%s@example.org>\nTo: perfbot lab <perfbot@lab.example.org>\n' "$1" "$1"
	printf 'Subject: Re: report %s\nDate: %s\nMessage-ID: <reply-%s-%s@example.org>\n' "$1" "$3" "$1" "$(echo "$4" | cksum | cut -d' ' -f1)"
	printf 'In-Reply-To: <%s>\nReferences: <%s>\n\n%s\n\n' "$2" "$2" "$4"
}
{
	reply J "$mid_J" "Wed, 25 Feb 2026 10:00:00 +0000" "That is noise, not a regression.

#perfbot invalid"
	reply G "$mid_G" "Wed, 25 Feb 2026 10:05:00 +0000" "Thanks, queued a fix.

#perfbot fixed-by: $(echo "$pending" | cut -c1-12)"
	reply H "$mid_H" "Wed, 25 Feb 2026 10:10:00 +0000" "Fixed in my tree.

#perfbot fixed-by: deadbeef1234"
} >"$tmp/replies1.mbox"
PERFBOT_NOW=$((T1 + 7200)) pb ingest --mbox "$tmp/replies1.mbox" 2>"$tmp/ingest1.log"
check "ingest: fixed-by resolved in the repository, on no watched tree yet" \
	grep -q "is now fixed: #perfbot fixed-by $(echo "$pending" | cut -c1-12) by Dev G <devG@example.org> ($(echo "$pending" | cut -c1-12) (\"mm: fix G\"), in the repository, on no watched tree yet)" "$tmp/ingest1.log"
check "ingest: fixed-by of a commit the repository lacks is recorded as not found" \
	grep -q "is now fixed: #perfbot fixed-by deadbeef1234 by Dev H <devH@example.org> (deadbeef1234: not found in the repository)" "$tmp/ingest1.log"
snap
check_eq "status: G's fix is the commit in full, not on a tree yet" "$pending fixed-by True '' []" \
	"$(q "$mid_G" '"%s %s %s %r %s" % (r["fix"]["commit"], r["fix"]["evidence"], r["fix"]["in_repository"], r["fix"]["ref"], r["fix"]["landed"])')"
check_eq "status: H's fix is the digits given, not in the repository" "deadbeef1234 False None" \
	"$(q "$mid_H" '"%s %s %s" % (r["fix"]["commit"], r["fix"]["in_repository"], r["fix"]["date"])')"
pb status >"$tmp/status1.txt"
check "status: says the fixed-by commit is not found in the repository" \
	grep -q "fix: deadbeef1234, named by #perfbot fixed-by: not found in the repository" "$tmp/status1.txt"
check "status: says the fixed-by commit is on no watched tree yet" \
	grep -q "fix: $(echo "$pending" | cut -c1-12) (\"mm: fix G\"), named by #perfbot fixed-by: in the repository, on no watched tree yet" "$tmp/status1.txt"

# 3. the fixes land (committer dates after the reports were made)
pct() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
t=$((T1 + 3600))
linus=$heads_tip
land "mm: fix A

CLOSES :  https://lore.kernel.org/all/$mid_A"
land "mm: fix B

Signed-off-by: Dev B <devB@example.org>
Link: https://lore.kernel.org/r/$(pct "<$mid_B>")"
land "Revert \"mm: change C\"

This reverts commit $head_C.

It made hackbench slower."
land "mm: fix D

Fixes: $(echo "$head_D" | cut -c1-12) (\"mm: change D\")
reported-BY:  perfbot lab <PERFBOT@lab.example.org> # thanks"
land "mm: tune E

Fixes: $(echo "$head_E" | cut -c1-14) (\"mm: change E\")
Signed-off-by: Dev E <devE@example.org>"
land "mm: fix J

Closes: https://lore.kernel.org/all/$mid_J"
land "mm: fix K

Closes: https://lore.kernel.org/all/$mid_K"
git -C "$repo" update-ref refs/remotes/linus/master "$linus"
# linux-next, first version: F's fix is there only
n1=$(printf 'next: an unrelated change\n' | commit $((T1 + 4000)) next "$heads_tip")
# F's fix quotes the splat it fixes above its trailers, as kernel fixes do:
# a "------------[ cut here ]" line is no patch divider (libgit2's
# git_message_trailers took it for one and lost the trailers)
next_v1=$(printf 'mm: fix F\n\nThe robot reported:\n\n%s\n%s\n%s\n%s\n\nFree it later.\n\nReported-by: perfbot lab <perfbot@lab.example.org>\nCloses: https://lore.kernel.org/all/%s\nSigned-off-by: Fixer <fixer@example.org>\n' \
	'------------[ cut here ]------------' \
	'WARNING: CPU: 1 PID: 1 at mm/slub.c:4321 kfree+0x1a/0x2b' \
	'Modules linked in:' \
	'---[ end trace 0000000000000000 ]---' "$mid_F" | commit $((T1 + 4100)) fixer "$n1")
git -C "$repo" update-ref refs/remotes/next/master "$next_v1"
cp -a "$state" "$tmp/state-before-track"

# 4. the first run
PERFBOT_NOW=$T2 pb track -v >"$tmp/track1.out" 2>"$tmp/track1.log"
check "track: exit 0" test $? -eq 0
check "track: prints nothing on stdout" test ! -s "$tmp/track1.out"
check_eq "track: one line per finding (8)" 8 "$(grep -c '^report ' "$tmp/track1.log")"
check "track: the closes line" grep -q "^report [0-9]* <$mid_A>: closes in .* on refs/remotes/linus/master, committed .*: the report is fixed$" "$tmp/track1.log"
check "track: a fix quoting a splat above its trailers is found (F's)" grep -q "^report [0-9]* <$mid_F>: closes in $(echo "$next_v1" | cut -c1-12) " "$tmp/track1.log"
check "track: the fix only on linux-next counts" grep -q "^report [0-9]* <$mid_F>: closes in .* on refs/remotes/next/master, .*: the report is fixed$" "$tmp/track1.log"
check "track: the possible fix keeps the report open" grep -q "^report [0-9]* <$mid_E>: possible fix (Fixes: without perfbot's Reported-by) in .*: listed; the report stays as it is$" "$tmp/track1.log"
check "track: the invalid report stays invalid" grep -q "^report [0-9]* <$mid_J>: closes in .*: recorded; the report stays invalid$" "$tmp/track1.log"
check "track: notices queued for the 6 reports that became fixed by a commit" \
	test "$(grep -c '^queued notice' "$tmp/track1.log")" -eq 6
check "track: -v says what each ref gave" grep -q "^refs/remotes/linus/master: 7 commits examined" "$tmp/track1.log"
check "track: the summary line" grep -q "^done: 2 refs walked, 9 commits examined, 8 findings: 6 fixed, 1 possible fix, 6 notices queued$" "$tmp/track1.log"
snap
for case in "A closes" "B link" "C revert" "D fixes" "F closes" "K closes"; do
	set -- $case
	eval "m=\$mid_$1"
	check_eq "status: $1 is fixed by $2" "fixed $2" "$(q "$m" 'r["state"] + " " + r["fix"]["evidence"]')"
done
check_eq "status: A's fix: commit, subject, ref, date" \
	"40 mm: fix A refs/remotes/linus/master $(date -u -d @$((T1 + 3660)) +%Y-%m-%dT%H:%M:%SZ)" \
	"$(q "$mid_A" '"%d %s %s %s" % (len(r["fix"]["commit"]), r["fix"]["subject"], r["fix"]["ref"], r["fix"]["date"])')"
check_eq "status: F's fix is shown on linux-next's ref" "refs/remotes/next/master" "$(q "$mid_F" 'r["fix"]["ref"]')"
check_eq "status: E stays open with one possible fix" "open 1 mm: tune E refs/remotes/linus/master" \
	"$(q "$mid_E" '"%s %d %s %s" % (r["state"], len(r["possible_fixes"]), r["possible_fixes"][0]["subject"], r["possible_fixes"][0]["ref"])')"
check_eq "status: J stays invalid, its fix recorded" "invalid closes" "$(q "$mid_J" 'r["state"] + " " + r["fix"]["evidence"]')"
check_eq "status: G is still waiting for its commit" "fixed ''" "$(q "$mid_G" 'r["state"] + " %r" % r["fix"]["ref"]')"
check_eq "status: I is still open" "open None" "$(q "$mid_I" 'r["state"] + " " + str(r["fix"])')"
pb thread "$mid_A" >"$tmp/thread-a.txt"
check "thread: the fix under the report" grep -q "^ *fix: [0-9a-f]\{12\} (\"mm: fix A\") on linus/master, committed .*, closes$" "$tmp/thread-a.txt"
pb thread --json "$mid_E" | jq_py '"%s %d" % (d["fix"], len(d["possible_fixes"]))' >"$tmp/thread-e.txt"
check_eq "thread --json: fix and possible_fixes" "None 1" "$(cat "$tmp/thread-e.txt")"

# 5. the same again changes nothing; --dry-run changes nothing
dump "$state" >"$tmp/dump1"
PERFBOT_NOW=$((T2 + 60)) pb track >"$tmp/track2.out" 2>"$tmp/track2.log"
check "track again: exit 0, silent" test $? -eq 0 -a ! -s "$tmp/track2.out" -a ! -s "$tmp/track2.log"
dump "$state" >"$tmp/dump2"
check "track again: the state is unchanged" cmp -s "$tmp/dump1" "$tmp/dump2"
cp -a "$tmp/state-before-track" "$tmp/state-dry"
config "$tmp/state-dry" "$peer_port" >"$tmp/c-dry"
dump "$tmp/state-dry" >"$tmp/dump-dry1"
PERFBOT_NOW=$T2 "$perfbot" --config "$tmp/c-dry" track --dry-run >"$tmp/dry.mbox" 2>"$tmp/dry.log"
check "track --dry-run: exit 0" test $? -eq 0
dump "$tmp/state-dry" >"$tmp/dump-dry2"
check "track --dry-run: the state is unchanged" cmp -s "$tmp/dump-dry1" "$tmp/dump-dry2"
check_eq "track --dry-run: says the same findings" "$(grep -c '^report ' "$tmp/track1.log")" "$(grep -c '^report ' "$tmp/dry.log")"
check "track --dry-run: prints the 6 notices as an mbox" test "$(grep -c '^From perfbot@lab.example.org ' "$tmp/dry.mbox")" -eq 6

# 6. kill -9 at random instants of a long run: the next run ends where an
#    uninterrupted one ends
krepo=$tmp/krepo
cp -a "$repo" "$krepo"
python3 - "$linus" "$T1" <<'PY' | git -C "$krepo" fast-import --quiet
import sys
tip, t = sys.argv[1], int(sys.argv[2]) + 5000
print("reset refs/remotes/linus/master\nfrom %s\n" % tip)
for i in range(30000):
    msg = "filler %d\n\nSigned-off-by: Dev F <devF@example.org>\nLink: https://lore.kernel.org/r/filler-%d@example.org\n" % (i, i)
    print("commit refs/remotes/linus/master\ncommitter Main Tainer <maint@example.org> %d +0000" % (t + i))
    print("data %d\n%s" % (len(msg.encode()), msg))
PY
for s in ref kill; do
	cp -a "$tmp/state-before-track" "$tmp/state-$s"
	sed -e "s|^\trepo = .*|\trepo = $krepo|" "$tmp/c" | sed -e "s|$state\$|$tmp/state-$s|" >"$tmp/c-$s"
done
PERFBOT_NOW=$T2 "$perfbot" --config "$tmp/c-ref" track >/dev/null 2>"$tmp/kref.log"
check "kill: the uninterrupted run walks the long history" grep -q "^done: 2 refs walked, 30009 commits examined" "$tmp/kref.log"
kills=0
for delay in 0.05 0.1 0.15 0.2 0.3 0.4 0.5 0.6; do
	PERFBOT_NOW=$T2 "$perfbot" --config "$tmp/c-kill" track >/dev/null 2>>"$tmp/kkill.log" &
	p=$!
	sleep "$delay"
	kill -9 "$p" 2>/dev/null
	rc=0
	wait "$p" 2>/dev/null || rc=$?
	[ "$rc" -ne 137 ] || kills=$((kills + 1))
done
PERFBOT_NOW=$T2 "$perfbot" --config "$tmp/c-kill" track >/dev/null 2>>"$tmp/kkill.log"
echo "  kill test: $kills of 8 runs killed while at work"
check "kill: a kill found a run at work ($kills)" test "$kills" -ge 1
dump "$tmp/state-ref" >"$tmp/kdump-ref"
dump "$tmp/state-kill" >"$tmp/kdump-kill"
check "kill: killed runs and one more end in the uninterrupted run's state" cmp -s "$tmp/kdump-ref" "$tmp/kdump-kill"
check "kill: ... which has the 6 notices" test "$(grep -c "INSERT INTO \"notices\"" "$tmp/kdump-kill")" -eq 6

# 7. the notices go out through the real Postfix, into the reports' threads
if [ "$(id -u)" -eq 0 ] && command -v postfix >/dev/null; then
	pf_port=$(free_port)
	if sh "$top/tests/helpers/postfix.sh" start "$tmp/pf" "$pf_port"; then
		maildir=$tmp/pf/mail/inbox
		config "$state" "$pf_port" >"$tmp/c-pf"
		PERFBOT_NOW=$((T2 + 120)) "$perfbot" --config "$tmp/c-pf" send 2>"$tmp/send2.log"
		check "send: the 6 notices are sent" test "$(grep -c '^sent notice' "$tmp/send2.log")" -eq 6
		wait_mail 6
		f=$(grep -l "^In-Reply-To: <$mid_A>" "$maildir"/new/* | head -n 1)
		check "notice: delivered by Postfix, In-Reply-To the report" test -n "$f"
		subject_a=$(q "$mid_A" 'r["subject"]')
		check "notice: its Subject is Re: the report's" grep -qF "Subject: Re: $(echo "$subject_a" | cut -c1-40)" "$f"
		check "notice: References the report" grep -q "^References: <$mid_A>" "$f"
		check "notice: says which commit fixed it and how" grep -q "^Its Closes: tag names this report.$" "$f"
		check "notice: to the report's author" grep -q "^To: Dev A <devA@example.org>" "$f"
		sh "$top/tests/helpers/pi-check.sh" "$state/archive" >"$tmp/pi" 2>&1
		rc=$?
		if [ "$rc" -eq 77 ]; then
			cat "$tmp/pi"
			skip=$((skip + 1))
		else
			check_eq "public-inbox-index: the 11 reports, 3 replies and 6 notices, in 11 threads" "20|11" "$(cat "$tmp/pi")"
			sh "$top/tests/helpers/pi-thread.sh" "$state/archive" "$mid_A" >"$tmp/pi-thread" 2>&1
			check_eq "public-inbox: the notice is in the report's thread" "2" "$(head -n 1 "$tmp/pi-thread")"
			check "public-inbox: ... under the report, as Re: its subject" grep -q "^Re: " "$tmp/pi-thread"
		fi
	else
		not_ok "postfix.sh start failed"
	fi
else
	echo "skip: the notices through Postfix need root and Postfix (sh tests/helpers/install-deps.sh test)"
	skip=$((skip + 1))
	PERFBOT_NOW=$((T2 + 120)) pb send 2>"$tmp/send2.log"
fi

# 8. the first digest, then a reopen, a fixed-by commit landing, a rebase
PERFBOT_NOW=$T3 pb digest 2>"$tmp/digest1.log"
check "digest: the first one is queued" grep -q "^queued digest [0-9]* <.*> perfbot lab digest .*: 2 open, 8 fixed, 1 closed: perfbot send delivers it$" "$tmp/digest1.log"
digest1=$(sed -n 's/^queued digest [0-9]* <\([^>]*\)>.*/\1/p' "$tmp/digest1.log")
PERFBOT_NOW=$((T3 + 60)) pb send 2>"$tmp/send3.log"
check "send: the digest goes out" grep -q "^sent digest <$digest1>" "$tmp/send3.log"
reply K "$mid_K" "Sat, 28 Feb 2026 10:00:00 +0000" "The fix did not help.

#perfbot reopen" >"$tmp/replies2.mbox"
PERFBOT_NOW=$((T3 + 3600)) pb ingest --mbox "$tmp/replies2.mbox" 2>"$tmp/ingest2.log"
snap
check_eq "reopen: K is open, its fix kept and set aside" "open True" "$(q "$mid_K" 'r["state"] + " " + str(r["fix"]["reopened"])')"
t=$((T3 + 7200))
merge=$(printf "Merge branch 'pending'\n" | commit $((t + 30)) maint "$linus" "$pending")
linus=$merge
land "Revert \"mm: change K\"

This reverts commit $head_K."
git -C "$repo" update-ref refs/remotes/linus/master "$linus"
n1b=$(printf 'next: an unrelated change, rebased\n' | commit $((T3 + 7300)) next "$heads_tip")
n2b=$(printf 'mm: fix F\n\nCloses: https://lore.kernel.org/all/%s\n' "$mid_F" | commit $((T3 + 7400)) fixer "$n1b")
next_v2=$(printf 'mm: fix I\n\nLink: https://lore.kernel.org/all/%s\n' "$mid_I" | commit $((T3 + 7500)) fixer "$n2b")
git -C "$repo" update-ref refs/remotes/next/master "$next_v2"
dump "$state" >"$tmp/dump3"
PERFBOT_NOW=$T4 pb track --dry-run >/dev/null 2>"$tmp/dry2.log"
dump "$state" >"$tmp/dump4"
check "track --dry-run after new commits: nothing changes" cmp -s "$tmp/dump3" "$tmp/dump4"
check "track --dry-run: would queue the 2 notices" test "$(grep -c '^would queue notice' "$tmp/dry2.log")" -eq 2
PERFBOT_NOW=$T4 pb track -v 2>"$tmp/track3.log"
check "rebase: only the rebased ref's new commits are examined" grep -q "^refs/remotes/next/master: 3 commits examined" "$tmp/track3.log"
check "fixed-by: the commit's landing is noticed" \
	grep -q "^report [0-9]* <$mid_G>: fixed-by in .* on refs/remotes/linus/master, .*: the commit #perfbot fixed-by named has landed$" "$tmp/track3.log"
check "rebase: the new tip's Link: fixes I" grep -q "^report [0-9]* <$mid_I>: link in .* on refs/remotes/next/master, .*: the report is fixed$" "$tmp/track3.log"
check "rebase: F's fix seen again on the new tip changes nothing" grep -q "^report [0-9]* <$mid_F>: closes in .*: kept: its fix is" "$tmp/track3.log"
check "reopen: newer evidence fixes K again" grep -q "^report [0-9]* <$mid_K>: revert in .*: the report is fixed$" "$tmp/track3.log"
check "notices: one each for I and K's new fix" test "$(grep -c '^queued notice' "$tmp/track3.log")" -eq 2
snap
check_eq "status: G's fix is on linus now" "fixed refs/remotes/linus/master" "$(q "$mid_G" 'r["state"] + " " + r["fix"]["ref"]')"
pb status >"$tmp/status2.txt"
check "status: G's fix says where it landed" grep -q "fix: $(echo "$pending" | cut -c1-12) (\"mm: fix G\") on linus/master, committed .*, named by #perfbot fixed-by$" "$tmp/status2.txt"
check_eq "status: K is fixed by the revert" "fixed revert False" "$(q "$mid_K" 'r["state"] + " " + r["fix"]["evidence"] + " " + str(r["fix"]["reopened"])')"
check_eq "status: I's fix is linux-next's" "fixed link refs/remotes/next/master" "$(q "$mid_I" 'r["state"] + " " + r["fix"]["evidence"] + " " + r["fix"]["ref"]')"
PERFBOT_NOW=$((T4 + 60)) pb send 2>"$tmp/send4.log"
check "send: the 2 new notices go out" test "$(grep -c '^sent notice' "$tmp/send4.log")" -eq 2

# 9. the second digest, byte for byte, threaded under the first
PERFBOT_NOW=$T5 pb digest --dry-run >"$tmp/digest2.mbox" 2>"$tmp/digest2.log"
sed 1d "$tmp/digest2.mbox" >"$tmp/digest2.eml"
if [ -n "${UPDATE_GOLDEN:-}" ]; then
	mkdir -p "$(dirname "$golden")"
	cp "$tmp/digest2.eml" "$golden"
	echo "  wrote $golden"
fi
if cmp -s "$golden" "$tmp/digest2.eml"; then
	ok "digest: rendered byte for byte as tests/t/data/track/digest.eml"
else
	not_ok "digest: differs from tests/t/data/track/digest.eml"
	diff "$golden" "$tmp/digest2.eml" | head -n 20 | sed 's/^/    /'
fi
check "digest: In-Reply-To the first digest" grep -q "^In-Reply-To: <$digest1>$" "$tmp/digest2.eml"
PERFBOT_NOW=$T5 pb digest 2>"$tmp/digest3.log"
check "digest: queued the same mail it printed" \
	grep -q "^queued digest [0-9]* <$(sed -n 's/^Message-ID: <\(.*\)>$/\1/p' "$tmp/digest2.eml")>" "$tmp/digest3.log"
config "$tmp/state-empty" "$peer_port" >"$tmp/c-empty"
PERFBOT_NOW=$T5 "$perfbot" --config "$tmp/c-empty" digest 2>"$tmp/digest4.log"
check "digest: one that would list nothing is not queued" \
	grep -q "nothing to list (no report open, none fixed or closed since the start): no digest queued (--force queues one all the same)" "$tmp/digest4.log"
PERFBOT_NOW=$T5 "$perfbot" --config "$tmp/c-empty" digest --force --dry-run >"$tmp/digest-empty.mbox" 2>/dev/null
check "digest --force: an empty one says so" grep -q "^Nothing is open, and nothing was fixed or closed since then.$" "$tmp/digest-empty.mbox"
pb digest --to 'not an address' >/dev/null 2>"$tmp/digest5.log"
check_eq "digest --to with a bad address: exit 64" 64 $?
"$perfbot" --config "$top/tests/golden/config" digest --dry-run >/dev/null 2>"$tmp/digest6.log"
check_eq "digest without [digest] to or --to: exit 78" 78 $?
check "digest without recipients: says how to name them" grep -q "set \[digest\] to in" "$tmp/digest6.log"
pb track --since 2026-13-01 >/dev/null 2>"$tmp/since.log"
check_eq "track --since with a bad date: exit 64" 64 $?

kill "$peer_pid" 2>/dev/null
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
