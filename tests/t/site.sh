#!/bin/sh
# site.sh: perfbot site (perfbot-site(1)) over a small state made by the
# real commands (tests/helpers/site-state.sh: reports, replies, a fix, a
# fix posted as v1 and v2, test requests answered, a routed report and a
# hostile one, with a hostile posted fix):
#   - the pages are the golden ones (tests/site-golden/, made on purpose
#     with `sh tests/t/site.sh --regen` and reviewed, never edited);
#   - tidy accepts every page; every local link names a file; the feeds
#     are Atom (python3's XML parser); the hostile report's pages hold no
#     executable content and no raw control or bidi character;
#   - a run with nothing changed writes nothing (no file's mtime or inode
#     moves); after one reply, or a fix posted, only the pages showing
#     it are written;
#     --full writes them all; a second run while one holds the lock exits
#     75; a run killed (SIGKILL at a chosen rename) leaves whole pages,
#     whose links resolve on a site that existed, and the next run makes
#     the site a fresh one would.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
regen=
[ "${1:-}" = --regen ] && regen=1
golden_start
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=$tmp/home
mkdir -p "$HOME" "$tmp/peer.out"
rm -rf "$tmp/repo"

python3 "$top/tests/helpers/smtp-peer.py" --port-file "$tmp/peer.port" --outdir "$tmp/peer.out" >/dev/null &
pids="$pids $!"
i=0
while [ ! -s "$tmp/peer.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if ! sh "$top/tests/helpers/site-state.sh" "$top" "$tmp" "$(cat "$tmp/peer.port")"; then
	not_ok "the test state could not be made"
	echo "$pass passed, $fail failed"
	exit 1
fi
pb() { PERFBOT_NOW=1773400000 "$perfbot" --config "$tmp/c" "$@"; }
site=$tmp/state/site
golden=$top/tests/site-golden
written() { sed -n 's/^perfbot site: \([0-9]* pages, [0-9]* written\).*/\1/p' "$1"; }

# 1. the site, and its golden pages
pb -v site 2>"$tmp/site1.log"
check_eq "site: exit 0, every page written" "0 17 pages, 17 written" "$? $(written "$tmp/site1.log")"
if [ -n "$regen" ]; then
	rm -rf "$golden"
	cp -r "$site" "$golden"
	find "$golden" -name '.*' -type f -exec rm -f {} +
	echo "regenerated $golden: review the diff (git diff tests/site-golden)"
fi
if diff -r -x '.*' "$golden" "$site" >"$tmp/golden.diff"; then
	ok "site: the pages are the golden ones"
else
	not_ok "site: the pages differ from the golden ones:"
	head -40 "$tmp/golden.diff"
fi
check "site: index, a page per published report, tree, subsystem and list pages, feeds, reports.json" \
	test -f "$site/index.html" -a -f "$site/report/1.html" -a -f "$site/report/4.html" \
	-a -f "$site/tree/tip/index.html" -a -f "$site/tree/linux-next/atom.xml" \
	-a -f "$site/subsystem/control-group-cgroup-01500cfc.html" \
	-a -f "$site/list/cgroups-vger-kernel-org-beb93db5.html" -a -f "$site/atom.xml" -a -f "$site/reports.json"

# 2. what the pages hold
check "report 1: its chart (an inline svg whose title gives the numbers)" \
	sh -c "grep -q '<svg xmlns=\"http://www.w3.org/2000/svg\"' '$site/report/1.html' && grep -q '<title>hackbench' '$site/report/1.html'"
check "report 1: the fix, the test request, the thread's archive links, the tags" \
	sh -c "grep -q 'evidence <em>closes</em>' '$site/report/1.html' && grep -q '<td>1</td><td>answered</td>' '$site/report/1.html' &&
	       grep -q 'href=\"https://lore.kernel.org/all/site1%40example.org\"' '$site/report/1.html' &&
	       grep -q '^Closes: https://lore.kernel.org/all/' '$site/report/1.html'"
check "report 1: the fix says the patch it was posted as (v2), linked to the archive" \
	grep -q 'recorded [0-9T:Z-]*; posted as <a href="https://lore.kernel.org/all/fix2%40example.org">sched/fair: fix the wakeup regression v2</a>' "$site/report/1.html"
check "report 1: its posted fixes, v2 and v1 superseded, with author, date, evidence, link" \
	sh -c "grep -q '<h2>Posted fixes</h2>' '$site/report/1.html' &&
	       grep -q '<tr class=\"mute\"><td>v1 (superseded)</td><td class=\"subject\"><a href=\"https://lore.kernel.org/all/fix1%40example.org\">sched/fair: fix the wakeup regression</a></td><td>Fixer &lt;fixer@example.org&gt;</td><td>2026-03-11T13:00:00Z</td><td>closes</td></tr>' '$site/report/1.html' &&
	       grep -q '<tr><td>v2</td><td class=\"subject\"><a href=\"https://lore.kernel.org/all/fix2%40example.org\">' '$site/report/1.html'"
check "report 1: test request 1's verdict and its result mail in the archive, the number of results" \
	grep -q '<td>1</td><td>answered</td>.*<td>fixed</td><td><a href="https://lore.kernel.org/all/[0-9.a-f]*-lab%40lab.example.org">the result</a> (1 result)</td></tr>' "$site/report/1.html"
check "index: report 4's row says its test request's verdict" \
	grep -q '<a href="report/4.html">.*<td>test: fixed </td></tr>' "$site/index.html"
check "index: report 3's row says its fix posted, v1, linked" \
	grep -q '<a href="report/3.html">.*<td>fix posted: <a href="https://lore.kernel.org/all/fix3%40example.org">v1</a></td>' "$site/index.html"
check "tree page: report 1 (fixed) says its fix and the fix posted, v2" \
	grep -q '<a href="../../report/1.html">.*<td>c56126c842ba fix posted: <a href="https://lore.kernel.org/all/fix2%40example.org">v2</a></td>' "$site/tree/tip/index.html"
check "atom.xml: a fix posted and a test request answered are entries" \
	sh -c "grep -q '<title>\[fix posted v2\] \[tip:sched/core\]' '$site/atom.xml' &&
	       grep -q '<summary>Test request 2 answered, fixed, for \[linux-next:master\] \[cgroup\]' '$site/atom.xml'"
check "report 1: the compare table as mailed" grep -q '%stddev     %change         %stddev' "$site/report/1.html"
check "report 2: closed by #perfbot invalid: listed, the command shown" \
	sh -c "grep -q 'report/2.html' '$site/index.html' && grep -q '#perfbot invalid' '$site/report/2.html'"
cat >"$tmp/json1.py" <<'PY'
import json, sys
site = json.load(open(sys.argv[1]))
ids = [r["id"] for r in site["reports"]]
assert ids == [1, 2, 3, 4], ids
assert all(r["page"] == "report/%d.html" % r["id"] for r in site["reports"])
assert site["reports"][0]["fix"]["evidence"] == "closes"
PY
check "reports.json: the four published reports, each with its page" python3 "$tmp/json1.py" "$site/reports.json"
pb status --json >"$tmp/status.json"
cat >"$tmp/json2.py" <<'PY'
import json, sys
site = {r["id"]: r for r in json.load(open(sys.argv[1]))["reports"]}
status = {r["id"]: r for r in json.load(open(sys.argv[2]))["reports"]}
for i, r in site.items():
    r = dict(r)
    del r["page"]
    assert r == status[i], (i, r, status[i])
PY
check "reports.json: the objects are status --json's, page aside" \
	python3 "$tmp/json2.py" "$site/reports.json" "$tmp/status.json"

# the digest links each report's page when site.url is set (and only then)
pb digest --dry-run --to ann@example.org >"$tmp/digest.plain" 2>/dev/null
cp "$tmp/c" "$tmp/c-url"
printf '[site]\n\turl = https://perf.example.org/perfbot/\n' >>"$tmp/c-url"
PERFBOT_NOW=1773400000 "$perfbot" --config "$tmp/c-url" digest --dry-run --to ann@example.org >"$tmp/digest.url" 2>/dev/null
check "digest with site.url: each report's page under its link" \
	sh -c "grep -q '^  https://perf.example.org/perfbot/report/4.html\$' '$tmp/digest.url' && grep -q '^  https://perf.example.org/perfbot/report/1.html\$' '$tmp/digest.url'"
check_eq "digest without site.url: no page line" 0 "$(grep -c 'report/[0-9]*.html' "$tmp/digest.plain")"
check_eq "digest: site.url adds those lines and nothing else" \
	"$(grep -c 'perf.example.org' "$tmp/digest.url")" "$(diff "$tmp/digest.plain" "$tmp/digest.url" | grep -c '^>')"

# 3. conformance: tidy, links, feeds, the hostile report
if command -v tidy >/dev/null 2>&1; then
	bad=
	for f in $(cd "$site" && find . -name '*.html' | sort); do
		# tidy 5.6's tables predate SVG's presentation attributes
		# font-family and font-size on <svg> (valid SVG and HTML5): that
		# warning alone is let through
		tidy -q -e "$site/$f" >"$tmp/tidy.out" 2>&1
		if grep -v 'Warning: <svg> proprietary attribute "font-\(family\|size\)"' "$tmp/tidy.out" | grep -q .; then
			bad="$bad $f"
			cat "$tmp/tidy.out"
		fi
	done
	check_eq "tidy -q -e: every page accepted" "" "$bad"
else
	echo "skip: tidy is not installed (tests/helpers/install-deps.sh test)"
	skipped=$((${skipped:-0} + 1))
fi
for what in links feeds hostile whole; do
	check "site-check $what" python3 "$top/tests/helpers/site-check.py" "$what" "$site"
done
check "the hostile report: its names are on its page, escaped" \
	grep -q 'hack&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;javascript:alert(3)/../&lt;U+202E&gt;' "$site/report/3.html"
check "the hostile reply: its author's U+202E, C0 and C1 controls shown as visible escapes" \
	grep -q 'Mal&lt;U+202E&gt;ory&lt;U+0001&gt;&lt;U+0085&gt;' "$site/report/1.html"
check "the hostile posted fix: its subject and author escaped, U+202E a visible escape, on the page, the index and the feed" \
	sh -c "grep -q '<td class=\"subject\"><a href=\"https://lore.kernel.org/all/fix3%40example.org\">fix &lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;javascript:alert(3)/../&lt;U+202E&gt;</a></td><td>Mal&lt;U+202E&gt;ory &lt;mallory@example.com&gt;</td>' '$site/report/3.html' &&
	       grep -q 'Fix posted (v1, closes) by Mal&lt;U+202E&gt;ory &lt;mallory@example.com&gt;: fix &lt;script&gt;' '$site/atom.xml'"
check "the hostile metric: its chart's title escaped" \
	grep -q '<title>lmbench3.x&lt;script&gt;' "$site/report/3.html"

# 4. incremental: nothing changed, nothing written
# (.lock aside: it is the lock, which holds the pid of the run)
snap() { (cd "$site" && find . -type f ! -name .lock -printf '%p %i %T@\n' | sort); }
snap >"$tmp/snap1"
pb -v site 2>"$tmp/site2.log"
snap >"$tmp/snap2"
check_eq "a second run: nothing written" "17 pages, 0 written" "$(written "$tmp/site2.log")"
check "a second run: no file touched (inode and mtime)" cmp -s "$tmp/snap1" "$tmp/snap2"

# one reply to report 2: its page, the lists that show it, reports.json
m1=$(python3 -c "import json,sys; print([r['message_id'] for r in json.load(open(sys.argv[1]))['reports'] if r['id'] == 1][0])" "$site/reports.json")
m2=$(python3 -c "import json,sys; print([r['message_id'] for r in json.load(open(sys.argv[1]))['reports'] if r['id'] == 2][0])" "$site/reports.json")
reply() {
	printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Ann <ann@example.org>\nTo: perfbot lab <perfbot@lab.example.org>\n'
	printf 'Subject: Re: the report\nDate: Thu, 12 Mar 2026 10:00:00 +0100\nMessage-ID: <%s>\n' "$1"
	printf 'In-Reply-To: <%s>\nReferences: <%s>\n\nSeen it too.\n' "$2" "$2"
}
reply site9@example.org "$m2" >"$tmp/one.mbox"
PERFBOT_NOW=1773390000 "$perfbot" --config "$tmp/c" ingest --mbox "$tmp/one.mbox" 2>"$tmp/ingest9.log"
pb -v site 2>"$tmp/site3.log"
snap >"$tmp/snap3"
changed=$(diff "$tmp/snap2" "$tmp/snap3" | sed -n 's/^> \([^ ]*\) .*/\1/p' | grep -v '^./\.manifest$' | sort | tr '\n' ' ')
check_eq "one reply: only report 2's page, the lists showing it and reports.json are written" \
	"./index.html ./report/2.html ./reports.json ./tree/linux-next/index.html " "$changed"
# a fix posted for report 4: its page, the pages listing it and the feeds
# with the new entry
m4=$(python3 -c "import json,sys; print([r['message_id'] for r in json.load(open(sys.argv[1]))['reports'] if r['id'] == 4][0])" "$site/reports.json")
printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Jane <jane.dev@example.org>\nTo: cgroups@vger.kernel.org\nSubject: [PATCH] cgroup: fix the throughput regression\nDate: Thu, 12 Mar 2026 11:00:00 +0100\nMessage-ID: <fix9@example.org>\n\nFix it.\n\nCloses: https://lore.kernel.org/all/%s/\nSigned-off-by: Jane <jane.dev@example.org>\n---\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n+b\n' \
	"$m4" >"$tmp/fix9.mbox"
PERFBOT_NOW=1773395000 "$perfbot" --config "$tmp/c" ingest --mbox "$tmp/fix9.mbox" 2>"$tmp/ingest-fix9.log"
pb -v site 2>"$tmp/site5.log"
snap >"$tmp/snap5"
changed=$(diff "$tmp/snap3" "$tmp/snap5" | sed -n 's/^> \([^ ]*\) .*/\1/p' | grep -v '^./\.manifest$' | sort | tr '\n' ' ')
check_eq "a fix posted: report 4's page, the pages listing it, their feeds and reports.json are written" \
	"./atom.xml ./index.html ./list/cgroups-vger-kernel-org-beb93db5.html ./list/cgroups-vger-kernel-org-beb93db5.xml ./list/linux-kernel-vger-kernel-org-2b46684e.html ./list/linux-kernel-vger-kernel-org-2b46684e.xml ./report/4.html ./reports.json ./subsystem/control-group-cgroup-01500cfc.html ./subsystem/control-group-cgroup-01500cfc.xml ./tree/linux-next/atom.xml ./tree/linux-next/index.html " "$changed"
check "... the row says it, the page lists it" \
	sh -c "grep -q '<a href=\"report/4.html\">.*<td>fix posted: <a href=\"https://lore.kernel.org/all/fix9%40example.org\">v1</a></td>' '$site/index.html' &&
	       grep -q 'cgroup: fix the throughput regression</a></td><td>Jane &lt;jane.dev@example.org&gt;</td>' '$site/report/4.html'"
pb -v site --full 2>"$tmp/site4.log"
check_eq "--full: every page written" "17 pages, 17 written" "$(written "$tmp/site4.log")"
# a list page changed behind perfbot's back: a run that reads no report
# again keeps a list page of the size the manifest says (as it keeps a
# report's page), makes one of another size again, and --full (or the
# next day's run, which reads every report) writes every page
cp "$site/index.html" "$tmp/index.good"
python3 -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[-2] ^= 1; open(p, 'wb').write(b)" "$site/index.html"
cp "$site/index.html" "$tmp/index.altered"
pb -v site 2>"$tmp/site6.log"
check_eq "index.html altered, same size: a run with nothing new keeps it" "17 pages, 0 written" "$(written "$tmp/site6.log")"
check "... as it was" cmp -s "$tmp/index.altered" "$site/index.html"
printf 'x' >>"$site/index.html"
pb -v site 2>"$tmp/site6b.log"
check_eq "index.html of another size: the next run writes it again" "17 pages, 1 written" "$(written "$tmp/site6b.log")"
check "... with its bytes" cmp -s "$tmp/index.good" "$site/index.html"
cp "$tmp/index.altered" "$site/index.html"
pb -v site --full 2>"$tmp/site6c.log"
check "altered again, same size: --full writes it with its bytes" cmp -s "$tmp/index.good" "$site/index.html"

# 5. two runs at once: the second waits, then exits 75
flock "$site/.lock" sleep 5 &
holder=$!
sleep 0.5
pb site 2>"$tmp/busy.log"
check_eq "a run while another holds the lock: exit 75, saying so" "75 1" \
	"$? $(grep -c 'is held by another perfbot site' "$tmp/busy.log")"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# 6. kill -9 midway (SIGKILL as a chosen page is put in place: a new
# page is linked into the folder, an existing one renamed over): the
# pages there are whole; on a site that exists, every link resolves
# (pages are put in place before the lists that link to them); the next
# run makes the site a fresh run makes, and leaves no temporary file
if command -v strace >/dev/null 2>&1; then
	killed_run() {	# killed_run SYSCALL N
		strace -f -o /dev/null -e trace="$1" -e inject="$1":signal=KILL:when="$2" \
			env PERFBOT_NOW=1773400000 "$perfbot" --config "$tmp/c" site 2>/dev/null
	}
	rm -rf "$site"
	killed_run linkat 6
	check "a first run killed as its 6th new page is linked: some pages there, not the index nor the manifest" \
		sh -c "test -f '$site/report/1.html' && ! test -f '$site/index.html' && ! test -f '$site/.manifest'"
	check "killed: every page there is whole" python3 "$top/tests/helpers/site-check.py" whole "$site"
	pb site 2>"$tmp/site5.log"
	pb site --out "$tmp/fresh" 2>>"$tmp/site5.log"
	check "the next run: the site a fresh run makes, no temporary file left" \
		sh -c "diff -r -x .lock -x .manifest '$site' '$tmp/fresh' && ! find '$site' -name '.tmp-*' | grep -q ."
	reply site10@example.org "$m1" >"$tmp/two.mbox"
	PERFBOT_NOW=1773395000 "$perfbot" --config "$tmp/c" ingest --mbox "$tmp/two.mbox" 2>"$tmp/ingest10.log"
	cp "$site/index.html" "$tmp/index.before"
	killed_run rename 2
	check "a run killed at its 2nd rename: report 1's page new, the index not yet" \
		sh -c "grep -q 'site10%40example.org' '$site/report/1.html' && cmp -s '$site/index.html' '$tmp/index.before'"
	for what in whole links; do
		check "killed: site-check $what" python3 "$top/tests/helpers/site-check.py" "$what" "$site"
	done
	pb site 2>"$tmp/site6.log"
	rm -rf "$tmp/fresh"
	pb site --out "$tmp/fresh" 2>>"$tmp/site6.log"
	check "the next run: the site a fresh run makes" diff -r -x .lock -x .manifest "$site" "$tmp/fresh"
else
	echo "skip: strace is not installed (the kill -9 cases)"
	skipped=$((${skipped:-0} + 1))
fi

echo "$pass passed, $fail failed${skipped:+, $skipped skipped}"
[ "$fail" -eq 0 ]
