#!/bin/sh
# site-browser.sh: the web site perfbot site writes (perfbot-site(1)), in a
# real browser: headless Chromium through tests/helpers/browser.sh, over
# the small state of tests/helpers/site-state.sh.  index.html and
# report/1.html (a chart, a fix, a test request, a hostile reply) and
# report/3.html (the hostile report):
#   - load from the files with no console message, no exception and no
#     resource that failed to load (cdp.py);
#   - their DOM after load: the report's chart is an <svg> with its title,
#     no <script> element, no raw U+202E;
#   - their screenshots are PNGs of the window's size, more than 20 KB,
#     with many colours (not a blank page); the report page's shows the
#     chart's two series' colours.
# Skips, saying why, when Chromium is not installed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
. "$top/tests/helpers/browser.sh"
pass=0
fail=0

if ! browser_find; then
	echo "skip: $browser_why"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
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
PERFBOT_NOW=1773400000 "$perfbot" --config "$tmp/c" site
check "site: exit 0" test $? -eq 0
site=$tmp/state/site

for page in index report/1 report/3; do
	out=$tmp/load-$(echo "$page" | tr / -)
	browser_load "$site/$page.html" "$out" 1280,2400 2>"$out.err"
	rc=$?
	check_eq "$page.html loads in Chromium with no console problem (cdp.py exit)" 0 "$rc"
	[ "$rc" -eq 0 ] || sed 's/^/  /' "$out.err" "$out/console.txt" 2>/dev/null
	check "$page.html: no console line at all" test -f "$out/console.txt" -a ! -s "$out/console.txt"
	check "$page.html: no <script> element in the DOM" sh -c "! grep -qi '<script' '$out/dom.html'"
	check "$page.html: no U+202E character in the DOM" sh -c "! grep -q '$(printf '\342\200\256')' '$out/dom.html'"
	shot=$out/shot.png
	size=$(wc -c <"$shot" 2>/dev/null || echo 0)
	check "$page.html: the screenshot is a PNG" sh -c "head -c 8 '$shot' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
	check "$page.html: the screenshot is more than 20 KB ($size bytes)" test "$size" -gt 20000
	set -- $(png_info "$shot" 2f7fd0 e0602a 2>/dev/null)
	check_eq "$page.html: the screenshot is the window's size" "1280 2400" "${1:-?} ${2:-?}"
	check "$page.html: the screenshot has many colours (${3:-0}), not a blank page" test "${3:-0}" -gt 20
	echo "# $page.html: screenshot $size bytes, ${1:-?}x${2:-?}, ${3:-0} colours, ${4:-0} blue and ${5:-0} orange pixels"
	if [ "$page" = report/1 ]; then
		check "report/1.html: the chart's <svg> is in the DOM, with its title" \
			sh -c "grep -q '<svg ' '$out/dom.html' && grep -q '<title>hackbench' '$out/dom.html'"
		check "report/1.html: the base series' blue dots are drawn (${4:-0} pixels)" test "${4:-0}" -gt 100
		check "report/1.html: the head series' orange squares are drawn (${5:-0} pixels)" test "${5:-0}" -gt 100
	fi
	if [ "$page" = report/3 ]; then
		check "report/3.html: the hostile names are text in the DOM" \
			grep -q 'hack&lt;script&gt;alert(1)&lt;/script&gt;' "$out/dom.html"
	fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
