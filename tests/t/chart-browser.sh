#!/bin/sh
# chart-browser.sh: the charts in a real browser (headless Chromium, through
# tests/helpers/browser.sh).  A page of charts drawn by bot/chart.c
# (tests/helpers/chart-page: a report, a test result, one run, equal,
# huge, tiny and negative values, a subsample, a hostile metric name):
#   (a) loads from the file with no console message, no exception and no
#       resource that failed to load (cdp.py);
#   (b) its DOM after load holds the 8 <svg> elements with their titles,
#       the hostile names as text, and no <script>;
#   (c) its screenshot is a PNG of the window's size that shows the charts:
#       pixels in the first three series' colours, not a blank page;
#   (d) the problem catcher itself: a page with console.error, an uncaught
#       exception and a missing image is reported with all three;
#   (e) the flag-driven helpers (--dump-dom, --screenshot) give the same
#       DOM and a PNG with the charts in it.
# Skips, saying why, when Chromium is not installed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
page=$top/tests/helpers/chart-page
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"
. "$top/tests/helpers/browser.sh"

if ! command -v python3 >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1; then
	echo "skip: chart-browser.sh needs python3 and timeout (coreutils)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if ! browser_find; then
	echo "skip: $browser_why"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if [ ! -x "$page" ]; then
	not_ok "tests/helpers/chart-page is built (make tests/helpers/chart-page)"
	echo "$pass passed, $fail failed"
	exit 1
fi
"$page" >"$tmp/charts.html" 2>/dev/null
check "chart-page draws every chart" test $? -eq 0

# (a) one browser: DOM, screenshot and problems
browser_load "$tmp/charts.html" "$tmp/load" 900,3400 2>"$tmp/load.err"
rc=$?
check_eq "the page loads in Chromium with no console problem (cdp.py exit)" 0 "$rc"
[ "$rc" -eq 0 ] || sed 's/^/  /' "$tmp/load.err" "$tmp/load/console.txt" 2>/dev/null
check "no console line at all" test -f "$tmp/load/console.txt" -a ! -s "$tmp/load/console.txt"

# (b) the DOM
dom=$tmp/load/dom.html
check_eq "8 <svg> elements in the DOM" 8 "$(grep -o '<svg ' "$dom" 2>/dev/null | wc -l)"
check "the report chart's title is in the DOM, numbers and all" \
	grep -q '<title>will-it-scale.per_process_ops: a1b2c3d4e5f6 n=8 mean 1247 ±0.3%; 0f9e8d7c6b5a n=8 mean 1121 ±0.6%</title>' "$dom"
check "the subsample says so in its title" \
	grep -q 'n=3000 (1000 shown) mean .*(at most 1000 runs a series drawn, picked evenly in run order)</title>' "$dom"
check "no <script> element in the DOM" sh -c "! grep -qi '<script' '$dom'"
check "the hostile metric name is text (escaped in the DOM's serialization)" \
	grep -q '&lt;script&gt;alert("x")&lt;/script&gt;&amp;amp;' "$dom"
check "U+202E shows as the visible escape" grep -q '&lt;U+202E&gt;evil&lt;U+001B&gt;' "$dom"
check "no U+202E character in the DOM" sh -c "! grep -q '$(printf '\342\200\256')' '$dom'"

# (c) the screenshot
shot=$tmp/load/shot.png
size=$(wc -c <"$shot" 2>/dev/null || echo 0)
check "the screenshot is a PNG" sh -c "head -c 8 '$shot' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
check "the screenshot is more than 20 KB ($size bytes)" test "$size" -gt 20000
set -- $(png_info "$shot" 2f7fd0 e0602a 2a9d4a 2>/dev/null)
check_eq "the screenshot is the window's size" "900 3400" "${1:-?} ${2:-?}"
check "the screenshot has many colours (${3:-0}), not a blank page" test "${3:-0}" -gt 50
check "the base series' blue dots are drawn (${4:-0} pixels)" test "${4:-0}" -gt 500
check "the head series' orange squares are drawn (${5:-0} pixels)" test "${5:-0}" -gt 500
check "the third commit's green triangles are drawn (${6:-0} pixels)" test "${6:-0}" -gt 50

# (d) the catcher catches
cat >"$tmp/bad.html" <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>bad</title></head>
<body><p>bad</p><img src="missing.png" alt="">
<script>console.error("chart-browser-error"); undefinedFunction();</script>
</body></html>
EOF
browser_console "$tmp/bad.html" "$tmp/bad.txt" 2>"$tmp/bad.err"
check_eq "a page with problems: browser_console says so (exit 1)" 1 "$?"
check "it names the console.error" grep -q '^error console.error: chart-browser-error' "$tmp/bad.txt"
check "it names the uncaught exception" grep -q '^error exception: ReferenceError: undefinedFunction' "$tmp/bad.txt"
check "it names the missing image" grep -q 'ERR_FILE_NOT_FOUND (.*missing.png' "$tmp/bad.txt"
browser_console "$tmp/nonexistent.html" "$tmp/none.txt" 2>/dev/null
check_eq "a page that is not there: exit 2" 2 "$?"

# (e) the flag-driven helpers
browser_dom "$tmp/charts.html" "$tmp/flags-dom.html"
check_eq "--dump-dom: exit 0" 0 "$?"
check_eq "--dump-dom: 8 <svg> elements" 8 "$(grep -o '<svg ' "$tmp/flags-dom.html" | wc -l)"
browser_screenshot "$tmp/charts.html" "$tmp/flags.png" 800,1200
check_eq "--screenshot: exit 0" 0 "$?"
set -- $(png_info "$tmp/flags.png" 2f7fd0 2>/dev/null)
check_eq "--screenshot: the window's size" "800 1200" "${1:-?} ${2:-?}"
check "--screenshot: the blue dots are in it (${4:-0} pixels)" test "${4:-0}" -gt 200

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
