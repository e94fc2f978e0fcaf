# posted-lib.sh: the set-up of the posted-fix tests (tests/t/posted.sh,
# tests/t/posted-nntp.sh), sourced after tlib.sh with $top, $perfbot, $tmp,
# $pids (processes the caller kills at exit), pass and fail set.
#
# A bare repository $repo with a base commit and the head commits of three
# reports A to C on refs/remotes/linus/master ($head_A.., $heads_tip); the
# scripted SMTP peer; the configuration $tmp/c (state $state); the three
# reports sent at T1 and a follow-up of B ($mid_A, $mid_B, $mid_C, $fu_B).
# Functions: commit DATE AUTHOR PARENT... <MESSAGE, pb ARGS (perfbot with
# the configuration), snap (status --json into $tmp/s.json), q MID EXPR,
# patch MID DATE SUBJECT FROM <TRAILERS (a patch mail as git send-email
# writes it), dbq SQL (a query of the state database).

GIT_CONFIG_GLOBAL=/dev/null
GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM
unset GIT_DIR GIT_WORK_TREE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE 2>/dev/null || true

T0=1771000000	# the fixture's history
T1=1772000000	# 2026-02-25T06:13:20Z: the reports are sent
T2=$((T1 + 86400))
T3=$((T2 + 86400))

repo=$tmp/repo
git init -q --bare "$repo"
empty=$(git -C "$repo" hash-object -t tree -w /dev/null)

# commit DATE AUTHOR PARENT... <MESSAGE: a commit of the empty tree; its id
commit() {
	d=$1
	who=$2
	shift 2
	set -- $(for p in "$@"; do printf ' -p %s' "$p"; done)
	GIT_AUTHOR_NAME="Dev $who" GIT_AUTHOR_EMAIL="dev$who@example.org" GIT_AUTHOR_DATE="@$d +0000" \
	GIT_COMMITTER_NAME="Main Tainer" GIT_COMMITTER_EMAIL="maint@example.org" GIT_COMMITTER_DATE="@$d +0000" \
		git -C "$repo" commit-tree "$empty" "$@"
}

base=$(echo "mm: the base of every test" | commit $T0 base)
tip=$base
i=0
for r in A B C; do
	i=$((i + 1))
	tip=$(printf 'mm: change %s\n\nThe head commit of report %s.\n' "$r" "$r" | commit $((T0 + 60 * i)) "$r" "$tip")
	eval "head_$r=$tip"
done
git -C "$repo" update-ref refs/remotes/linus/master "$tip"
heads_tip=$tip

rm -f "$tmp/peer.port"
mkdir -p "$tmp/peer.out"
python3 "$top/tests/helpers/smtp-peer.py" --port-file "$tmp/peer.port" --outdir "$tmp/peer.out" >/dev/null &
pids="$pids $!"
i=0
while [ ! -s "$tmp/peer.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
state=$tmp/state
{
	sed -e "s|@REPO@|$repo|" -e "s|@STATE@|$state|" "$top/tests/golden/config"
	printf '[digest]\n\tto = perf-digest@lists.example.org\n'
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$(cat "$tmp/peer.port")"
} >"$tmp/c"
pb() { "$perfbot" --config "$tmp/c" "$@"; }
snap() { pb status --json >"$tmp/s.json"; }
# q MID EXPR: EXPR of the report MID (r), from the last snap
q() {
	python3 - "$tmp/s.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["reports"] if x["message_id"] == sys.argv[2]][0]
print(eval(sys.argv[3], {"r": r, "d": d}))
PY
}

# 1. the reports, and a follow-up of B
python3 - "$top/tests/golden/regression-two-tests/input.json" "$tmp" \
	"A=$head_A" "B=$head_B" "C=$head_C" "base=$base" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
args = dict(a.split("=") for a in sys.argv[3:])
for r in "ABC":
    e = dict(d)
    e["tests"] = [d["tests"][0]]
    e["tests"][0] = dict(e["tests"][0]); e["tests"][0].pop("base", None)
    e["still"] = []
    e["commit"] = args[r][:12]
    e["base"] = args["base"][:12]
    e["tree"] = "linus/master"
    e.pop("branch", None)
    e["repo_url"] = "https://git.example.org/linux.git"
    json.dump(e, open("%s/%s.json" % (sys.argv[2], r), "w"))
    if r == "B":
        json.dump(e, open("%s/B2.json" % sys.argv[2], "w"))	# the same again: a follow-up
PY
PERFBOT_NOW=$T1 pb send "$tmp/A.json" "$tmp/B.json" "$tmp/C.json" 2>"$tmp/send1.log"
check "send: the 3 reports go to the scripted peer" test "$(grep -c '^sent report' "$tmp/send1.log")" -eq 3
PERFBOT_NOW=$((T1 + 7200)) pb send "$tmp/B2.json" 2>"$tmp/send2.log"
check "send: B again is a follow-up" grep -q "(follow-up)" "$tmp/send2.log"
snap
for r in A B C; do
	eval "h=\$head_$r"
	mid=$(python3 -c "import json,sys; d=json.load(open('$tmp/s.json')); print([x for x in d['reports'] if x['subject'].find(sys.argv[1][:10]) >= 0 and not x['subject'].startswith('Re:')][0]['message_id'])" "$h")
	eval "mid_$r=$mid"
done
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
