# reports-lib.sh: the set-up of the tests of fixes found for reports
# (tests/t/track.sh; tests/helpers/posted-lib.sh for posted.sh and
# posted-nntp.sh), sourced after tlib.sh with $top, $perfbot and $tmp set;
# the caller kills $pids at exit.
#
# Sourcing it keeps git from the user's settings and sets the clock marks
# T0 (the fixture's history), T1 (2026-02-25T06:13:20Z: the reports are
# sent), T2 and T3 (a day apart each).  Functions:
#   reports_repo LETTER...   a bare repository $repo of empty-tree commits:
#                            the base $base and on it a chain of one head
#                            commit a report, $head_LETTER (by "Dev LETTER"),
#                            the last $heads_tip, named by
#                            refs/remotes/linus/master
#   commit DATE AUTHOR PARENT... <MESSAGE
#                            a commit of the empty tree in $repo; its id
#   land MESSAGE             a commit by "Dev fixer" on $linus, made a minute
#                            after $t: both move on to it (the caller sets
#                            them first; the commit is not on a ref)
#   reports_config STATE PORT  the golden configuration (tests/golden/config)
#                            with state STATE, digests to
#                            perf-digest@lists.example.org, mail to the
#                            scripted peer on 127.0.0.1:PORT; on stdout
#   reports_json LETTER...   $tmp/LETTER.json: the first test of
#                            tests/golden/regression-two-tests on
#                            $head_LETTER over $base, tree linus/master (or
#                            linux-next/master for a letter in $reports_next)
#   reports_mids LETTER...   $mid_LETTER, the Message-ID of each report (not
#                            of a follow-up), from the last snap
#   pb ARGS                  perfbot with the configuration $tmp/c
#   snap                     status --json into $tmp/s.json
#   q MID EXPR               EXPR of the report MID (r; d the whole), from
#                            the last snap

GIT_CONFIG_GLOBAL=/dev/null
GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM
unset GIT_DIR GIT_WORK_TREE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE 2>/dev/null || true

T0=1771000000	# the fixture's history
T1=1772000000	# 2026-02-25T06:13:20Z: the reports are sent
T2=$((T1 + 86400))
T3=$((T2 + 86400))
reports_next=

commit() {
	d=$1
	who=$2
	shift 2
	set -- $(for p in "$@"; do printf ' -p %s' "$p"; done)
	GIT_AUTHOR_NAME="Dev $who" GIT_AUTHOR_EMAIL="dev$who@example.org" GIT_AUTHOR_DATE="@$d +0000" \
	GIT_COMMITTER_NAME="Main Tainer" GIT_COMMITTER_EMAIL="maint@example.org" GIT_COMMITTER_DATE="@$d +0000" \
		git -C "$repo" commit-tree "$empty" "$@"
}

land() {
	t=$((t + 60))
	linus=$(printf '%s\n' "$1" | commit $t fixer "$linus")
}

reports_repo() {
	repo=$tmp/repo
	git init -q --bare "$repo"
	empty=$(git -C "$repo" hash-object -t tree -w /dev/null)
	base=$(echo "mm: the base of every test" | commit $T0 base)
	tip=$base
	rr_i=0
	for r in "$@"; do
		rr_i=$((rr_i + 1))
		tip=$(printf 'mm: change %s\n\nThe head commit of report %s.\n' "$r" "$r" | commit $((T0 + 60 * rr_i)) "$r" "$tip")
		eval "head_$r=$tip"
	done
	git -C "$repo" update-ref refs/remotes/linus/master "$tip"
	heads_tip=$tip
}

reports_config() {
	sed -e "s|@REPO@|$repo|" -e "s|@STATE@|$1|" "$top/tests/golden/config"
	printf '[digest]\n\tto = perf-digest@lists.example.org\n'
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$2"
}

reports_json() {
	python3 - "$top/tests/golden/regression-two-tests/input.json" "$tmp" "$reports_next" "base=$base" \
		$(for r in "$@"; do eval "printf '%s=%s ' $r \$head_$r"; done) <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
args = dict(a.split("=") for a in sys.argv[4:])
for r in args:
    if r == "base":
        continue
    e = dict(d)
    e["tests"] = [d["tests"][0]]
    e["tests"][0] = dict(e["tests"][0]); e["tests"][0].pop("base", None)
    e["still"] = []
    e["commit"] = args[r][:12]
    e["base"] = args["base"][:12]
    e["tree"] = "linux-next/master" if r in sys.argv[3] else "linus/master"
    e.pop("branch", None)
    e["repo_url"] = "https://git.example.org/linux.git"
    json.dump(e, open("%s/%s.json" % (sys.argv[2], r), "w"))
PY
}

reports_mids() {
	for r in "$@"; do
		eval "h=\$head_$r"
		mid=$(python3 -c "import json,sys; d=json.load(open('$tmp/s.json')); print([x for x in d['reports'] if x['subject'].find(sys.argv[1][:10]) >= 0 and not x['subject'].startswith('Re:')][0]['message_id'])" "$h")
		eval "mid_$r=$mid"
	done
}

pb() { "$perfbot" --config "$tmp/c" "$@"; }
snap() { pb status --json >"$tmp/s.json"; }
q() {
	python3 - "$tmp/s.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["reports"] if x["message_id"] == sys.argv[2]][0]
print(eval(sys.argv[3], {"r": r, "d": d}))
PY
}
