# posted-lib.sh: the set-up of the posted-fix tests (tests/t/posted.sh,
# tests/t/posted-nntp.sh), sourced after tlib.sh with $top, $perfbot, $tmp,
# $pids (processes the caller kills at exit), pass and fail set.
#
# Made with tests/helpers/reports-lib.sh (its marks T0 to T3 and functions
# commit, land, pb, snap, q): a bare repository $repo with a base commit
# and the head commits of three reports A to C on refs/remotes/linus/master
# ($head_A.., $heads_tip); the scripted SMTP peer; the configuration $tmp/c
# (state $state); the three reports sent at T1 and a follow-up of B
# ($mid_A, $mid_B, $mid_C, $fu_B).  Functions of its own: patch MID DATE
# SUBJECT FROM <TRAILERS (a patch mail as git send-email writes it), dbq SQL
# (a query of the state database).

. "$top/tests/helpers/reports-lib.sh"
reports_repo A B C
smtp_peer_start "$tmp/peer"
state=$tmp/state
reports_config "$state" "$peer_port" >"$tmp/c"

# 1. the reports, and a follow-up of B
reports_json A B C
cp "$tmp/B.json" "$tmp/B2.json"	# the same again: a follow-up
PERFBOT_NOW=$T1 pb send "$tmp/A.json" "$tmp/B.json" "$tmp/C.json" 2>"$tmp/send1.log"
check "send: the 3 reports go to the scripted peer" test "$(grep -c '^sent report' "$tmp/send1.log")" -eq 3
PERFBOT_NOW=$((T1 + 7200)) pb send "$tmp/B2.json" 2>"$tmp/send2.log"
check "send: B again is a follow-up" grep -q "(follow-up)" "$tmp/send2.log"
snap
reports_mids A B C
fu_B=$(python3 -c "import json; d=json.load(open('$tmp/s.json')); print([x for x in d['reports'] if x['subject'].startswith('Re:')][0]['message_id'])")
check "status: a report starts with no posted fixes" test "$(q "$mid_A" 'r["posted_fixes"]')" = "[]"

# patch MID DATE SUBJECT FROM <TRAILERS: a patch mail as git send-email writes it
patch() {
	printf 'From: %s\nTo: linux-mm@kvack.org\nSubject: %s\nDate: %s\nMessage-ID: <%s>\n' "$4" "$3" "$2" "$1"
	printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n'
	printf 'The change made hackbench slower: free the pages later.\n\n'
	cat
	printf -- '---\n mm/page.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n'
	printf 'diff --git a/mm/page.c b/mm/page.c\nindex 1111111..2222222 100644\n'
	printf -- '--- a/mm/page.c\n+++ b/mm/page.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n-- \n2.39.2\n'
}
dbq() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchall())' "$state/state.db" "$1"; }
