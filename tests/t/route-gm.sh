#!/bin/sh
# route-gm.sh: perfbot's routing against the kernel's own
# scripts/get_maintainer.pl, both given Linux 6.1's real MAINTAINERS, on
# the commits of tests/helpers/route-repo.sh (real kernel paths of many
# subsystems, renames, deletions, K: keywords).
#
# For each commit, get_maintainer.pl reads `git format-patch -1` of it (a
# merge, which format-patch skips: `git log --first-parent -p`), run as
#     perl get_maintainer.pl --no-tree --no-git --no-git-fallback --mpath MAINTAINERS PATCH
# from an empty directory.  perfbot answers for all the commits at once,
# one comparison JSON each, through
#     perfbot recipients --json A.json B.json ...
# with [route] maintainers = true and reviewers = true: the JSON's
# routing.selection, printed in get_maintainer.pl's --rolestats form,
# must be its answer, and every address of it must be in the report's To
# or Cc with the reason naming its role and section.  A case matches
# when the outputs are identical, line for line and in order.
# get_maintainer.pl orders sections of equal depth in Perl's hash order,
# which changes from run to run (and with it the order of people and
# lists, and the section a shared list is credited to): when the first
# answer differs, it is asked again, up to 12 times, and the case matches
# when perfbot's answer is one of get_maintainer.pl's.  Lines with an
# empty address (get_maintainer.pl prints "Mali DP Maintainers <...>" as
# one) are left out of its answers (bot/maintainers.h says why).
#
# Also checked: the diffstat perfbot writes for K: matches names each file
# as `git format-patch` does (the +/- histogram aside).
#
# Needs /usr/src/linux-source-6.1.tar.xz (Debian's linux-source-6.1) and
# perl; says why and skips otherwise.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
tarball=${ROUTE_GM_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
driver=$top/tests/unit/test-maintainers
if [ ! -f "$tarball" ]; then
	echo "skip: $tarball is absent (Debian's linux-source-6.1: sh tests/helpers/install-deps.sh test)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if ! command -v perl >/dev/null 2>&1; then
	echo "skip: perl is not installed, so get_maintainer.pl cannot run"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
[ -x "$driver" ] || { echo "not ok: $driver is not built (make tests/unit/test-maintainers)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/k" "$tmp/empty"
if ! tar xJf "$tarball" -C "$tmp/k" --strip-components=1 \
	linux-source-6.1/MAINTAINERS linux-source-6.1/scripts/get_maintainer.pl; then
	echo "not ok: MAINTAINERS and scripts/get_maintainer.pl could not be read from $tarball"
	echo "0 passed, 1 failed"
	exit 1
fi
gm=$tmp/k/scripts/get_maintainer.pl
if ! sh "$top/tests/helpers/route-repo.sh" "$tmp/k/MAINTAINERS" "$tmp/repo" >"$tmp/commits" 2>"$tmp/repo.log"; then
	cat "$tmp/repo.log"
	echo "0 passed, 1 failed"
	exit 1
fi

# perfbot's answers: one comparison JSON per commit, one recipients run
cat >"$tmp/config" <<CONF
[perfbot]
	repo = $tmp/repo
	state = $tmp/state
	ccTrailers = false
	maxRecipients = 1000
[tree "linus"]
	url = https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git
[route]
	maintainers = true
	reviewers = true
CONF
mkdir "$tmp/json" "$tmp/ours"
set --
while read -r label id; do
	base=$(git -C "$tmp/repo" rev-parse --verify -q "$id^") || base=$id
	cat >"$tmp/json/$label.json" <<JSON
{"perfbot": 1, "tree": "linus/master", "commit": "$id", "base": "$base", "kind": "regression",
 "tests": [{"testcase": "will-it-scale", "headline": "will-it-scale.per_process_ops",
  "tbox_group": "lkp-icl-2sp2", "machine": "a machine", "kconfig": "x86_64-rhel-9.4",
  "compiler": "gcc-14", "rootfs": "debian-12", "params": {},
  "metrics": [{"name": "will-it-scale.per_process_ops", "base": {"values": [100, 101]},
               "head": {"values": [90, 91]}}]}]}
JSON
	set -- "$@" "$tmp/json/$label.json"
done <"$tmp/commits"
if ! "$top/perfbot" --config "$tmp/config" recipients --json "$@" >"$tmp/recipients.json" 2>"$tmp/recipients.err"; then
	not_ok "perfbot recipients --json failed: $(head -n 3 "$tmp/recipients.err")"
fi
# a second run reads the parse's image that the first one kept under
# perfbot.state (bot/route.h): the very same answers
mkdir -p "$tmp/state"
"$top/perfbot" --config "$tmp/config" recipients --json "$@" >"$tmp/recipients1.json" 2>/dev/null
"$top/perfbot" --config "$tmp/config" recipients --json "$@" >"$tmp/recipients2.json" 2>/dev/null
check "the real MAINTAINERS's image is kept ($(du -k "$tmp"/state/cache/maintainers-* 2>/dev/null | cut -f1) KiB)" \
	test -s "$(ls "$tmp"/state/cache/maintainers-* 2>/dev/null | head -n 1)"
check "answers from the image are the parse's" cmp -s "$tmp/recipients.json" "$tmp/recipients2.json"
# the selection in get_maintainer.pl's --rolestats form, one file a case,
# and a problem line for each address it lacks among To and Cc
python3 - "$tmp/recipients.json" "$tmp/ours" <<'PY' >"$tmp/plumbing"
import json, os, re, sys

roles = {"supported": "supporter", "maintained": "maintainer", "odd fixes": "odd fixer",
         "orphan": "orphan minder", "obsolete": "obsolete minder",
         "buried alive in reporters": "chief penguin"}

def subsystem(name):
    if len(name) > 50:
        return name[:47].rstrip() + "..."
    return name

def person(e):
    name, addr = e["name"], e["email"]
    if not name:
        return addr
    if re.search(r"[^A-Za-z0-9_ \-]", name):
        out = ""
        for i, c in enumerate(name):
            if c == '"' and (i == 0 or name[i - 1] != "\\"):
                out += "\\"
            out += c
        return '"%s" <%s>' % (out, addr)
    return "%s <%s>" % (name, addr)

def line(e):
    sub = subsystem(e["section"])
    if e["role"] == "list":
        kind = "moderated" if e["moderated"] else "open"
        return "%s (%s list%s)" % (person(e), kind, "" if sub == "THE REST" else ":" + sub)
    if e["role"] == "reviewer":
        return "%s (reviewer:%s)" % (person(e), sub)
    status = (e["status"] or "unknown").lower()
    return "%s (%s:%s)" % (person(e), roles.get(status, status), sub)

d = json.load(open(sys.argv[1]))
for r in d["reports"]:
    label = os.path.basename(r["file"])[:-5]
    with open(os.path.join(sys.argv[2], label), "w") as f:
        for e in r["routing"]["selection"]:
            f.write(line(e) + "\n")
    mailed = {}
    for p in r["to"] + r["cc"]:
        mailed[p["email"].lower()] = p["reasons"]
    for e in r["routing"]["selection"]:
        want = "%s: %s" % (e["role"], e["section"])
        if want not in mailed.get(e["email"].lower(), []):
            print("%s: %s is not among To and Cc with the reason '%s'" % (label, e["email"], want))
for e in d["errors"]:
    print("%s: %s" % (e["file"], e["error"]))
PY

# run_gm PATCH OUT: get_maintainer.pl's answer, lines without an address dropped
run_gm() {
	(cd "$tmp/empty" && perl "$gm" --no-tree --no-git --no-git-fallback --mpath "$tmp/k/MAINTAINERS" "$1") \
		2>/dev/null | grep -v '^ (' >"$2"
}

cases=0
matches=0
first=0
while read -r label id; do
	cases=$((cases + 1))
	if [ "$(git -C "$tmp/repo" rev-list --parents -n 1 "$id" | wc -w)" -gt 2 ]; then
		git -C "$tmp/repo" log -1 --format=email --first-parent -p --stat=72 --summary "$id" >"$tmp/patch"
	else
		git -C "$tmp/repo" format-patch --stdout -1 "$id" >"$tmp/patch"
	fi
	cp "$tmp/ours/$label" "$tmp/ours.txt" 2>/dev/null || {
		not_ok "$label: perfbot recipients gave no answer"
		continue
	}
	run_gm "$tmp/patch" "$tmp/gm"
	tries=1
	agreed=0
	while :; do
		if cmp -s "$tmp/gm" "$tmp/ours.txt"; then
			agreed=1
			break
		fi
		[ $tries -lt 12 ] || break
		run_gm "$tmp/patch" "$tmp/gm"
		tries=$((tries + 1))
	done
	if [ $agreed = 1 ]; then
		matches=$((matches + 1))
		[ $tries = 1 ] && first=$((first + 1))
		how=identical
		[ $tries = 1 ] || how="identical to get_maintainer.pl's answer $tries (its hash order varies)"
		ok "$label: $(wc -l <"$tmp/ours.txt") recipients, $how"
	else
		not_ok "$label: differs from get_maintainer.pl in $tries runs; the last:"
		diff "$tmp/gm" "$tmp/ours.txt" | sed 's/^/    /'
	fi
	# the diffstat names, as git format-patch writes them
	sed -n '/^---$/,/^$/p' "$tmp/patch" | sed -n 's/^\( .*\) | .*/\1/p' | sed 's/ *$//' >"$tmp/stat.git"
	"$driver" --text "$tmp/repo" "$id" | sed -n '/^---$/,/^$/p' | sed -n 's/^\( .*\) | .*/\1/p' | sed 's/ *$//' >"$tmp/stat.ours"
	if [ "$(git -C "$tmp/repo" rev-list --parents -n 1 "$id" | wc -w)" -gt 2 ]; then
		:	# git log's stat of a merge is not format-patch's
	elif cmp -s "$tmp/stat.git" "$tmp/stat.ours"; then
		ok "$label: diffstat names as git format-patch's"
	else
		not_ok "$label: diffstat names differ from git format-patch's:"
		diff "$tmp/stat.git" "$tmp/stat.ours" | sed 's/^/    /'
	fi
done <"$tmp/commits"
echo "agreement with get_maintainer.pl: $cases cases, $matches matches ($first on its first answer)"
if [ -s "$tmp/plumbing" ]; then
	not_ok "the selection reaches To and Cc with its reasons:"
	sed 's/^/    /' "$tmp/plumbing"
else
	ok "every selected address is in To or Cc with its role and section as reason ($cases cases)"
fi
check "at least 30 cases" [ "$cases" -ge 30 ]
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
