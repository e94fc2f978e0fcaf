#!/bin/sh
# chart.sh: the charts of bot/chart.c in a page (tests/helpers/chart-page,
# built by `make check`), read by an XML parser, and the C locale:
#   (a) the page parses as XML (python3's xml.etree); it holds one <svg>
#       per chart, each with xmlns, viewBox, role="img" and a <title>
#       first; nothing in it can run: no <script>, <style>, <foreignObject>
#       or <iframe> element, no on* attribute, no href or src at all;
#   (b) the hostile chart's metric name and labels are text: "<script>"
#       shows as characters, U+202E as the visible escape "<U+202E>", and
#       no bidi or C0/C1 control character is in the page;
#   (c) under a locale with a decimal comma (de_DE.UTF-8, generated here
#       with localedef into the test's folder, since Debian's images ship
#       none), the page is byte for byte the one made in the C locale, and
#       tests/unit/test-chart runs its locale case instead of skipping it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
page=$top/tests/helpers/chart-page
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
pass=0
fail=0
skip=0
. "$top/tests/helpers/tlib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "skip: chart.sh needs python3 (tests/helpers/install-deps.sh test)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if [ ! -x "$page" ]; then
	not_ok "tests/helpers/chart-page is built (make tests/helpers/chart-page)"
	echo "$pass passed, $fail failed"
	exit 1
fi

LC_ALL=C "$page" >"$tmp/c.html" 2>"$tmp/c.err"
check "chart-page draws every chart (exit 0)" test $? -eq 0

# (a) and (b): one python3 run prints one "ok"/"not ok" line per check
python3 - "$tmp/c.html" >"$tmp/xml.out" 2>&1 <<'EOF'
import re, sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
path = sys.argv[1]
raw = open(path, encoding="utf-8").read()

def check(name, cond):
    print(("ok " if cond else "not ok ") + name)

try:
    root = ET.parse(path).getroot()
except ET.ParseError as e:
    check("the page parses as XML (%s)" % e, False)
    sys.exit(0)
check("the page parses as XML", True)
svgs = root.findall(".//" + SVG + "svg")
check("8 charts, each one <svg> element (got %d)" % len(svgs), len(svgs) == 8)
check("every chart has viewBox, role=img and class=chart",
      all(s.get("viewBox", "").startswith("0 0 640 ") and s.get("role") == "img"
          and s.get("class") == "chart" for s in svgs))
check("every chart's first child is its <title>, with numbers",
      all(len(s) and s[0].tag == SVG + "title" and re.search(r" n=\d+( \(\d+ shown\))? mean -?[0-9]", s[0].text or "")
          for s in svgs))
bad_tags = {"script", "style", "foreignObject", "iframe", "object", "embed", "a", "use", "image"}
found = [e.tag for s in svgs for e in s.iter() if e.tag.split("}")[-1] in bad_tags]
check("no element that runs or fetches anything in a chart %s" % found, not found)
attrs = [(e.tag, k) for e in root.iter() for k in e.attrib
         if k.lower().startswith("on") or k.split("}")[-1] in ("href", "src")]
check("no on* handler, href or src attribute in the page %s" % attrs, not attrs)
check("no <script> element anywhere", not any(e.tag.split("}")[-1] == "script" for e in root.iter()))

hostile = svgs[-1]
title = hostile[0].text
check("the hostile metric name is text in the title",
      title.startswith('<script>alert("x")</script>&amp;\'javascript:alert(3)\'/../<U+202E>evil<U+001B>[0m<0xFF>:'))
labels = [t.text for t in hostile.iter(SVG + "text")]
check("the hostile labels are text under the lanes",
      "<script>alert(1)</script>" in labels and '" onload="alert(2)' in labels and "<U+202E>cba" in labels)
bidi = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x061C, 0x200E, 0x200F}
chars = [hex(ord(c)) for c in raw if ord(c) in bidi or (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
check("no bidi or control character in the page %s" % chars[:5], not chars)
check("the escaped form is what the file holds", "&lt;U+202E&gt;evil&lt;U+001B&gt;" in raw)
EOF
cat "$tmp/xml.out"
pass=$((pass + $(grep -c '^ok ' "$tmp/xml.out")))
fail=$((fail + $(grep -c '^not ok ' "$tmp/xml.out")))
grep -q '^ok the page parses as XML$' "$tmp/xml.out" || fail=$((fail + 1))

# (c) a decimal comma changes nothing
mkdir -p "$tmp/locale"
if ! command -v localedef >/dev/null 2>&1 ||
	! localedef -i de_DE -f UTF-8 "$tmp/locale/de_DE.UTF-8" >"$tmp/localedef.out" 2>&1; then
	echo "skip: cannot generate de_DE.UTF-8 with localedef (package locales): $(head -n 1 "$tmp/localedef.out" 2>/dev/null)"
	skip=$((skip + 1))
else
	LOCPATH=$tmp/locale LC_ALL=de_DE.UTF-8 "$page" >"$tmp/de.html" 2>"$tmp/de.err"
	check_eq "the de_DE.UTF-8 locale is in force (printf's decimal point)" \
		'chart-page: decimal point ","' "$(cat "$tmp/de.err")"
	check "the page is the same byte for byte under de_DE.UTF-8" cmp -s "$tmp/c.html" "$tmp/de.html"
	if [ -x "$top/tests/unit/test-chart" ]; then
		(cd "$top" && env -u LC_ALL -u LC_NUMERIC -u LANG LOCPATH="$tmp/locale" \
			./tests/unit/test-chart) >"$tmp/unit.out" 2>&1
		check "test-chart's locale case runs under de_DE.UTF-8 and passes" \
			grep -q '^\[       OK \] c_locale_numbers' "$tmp/unit.out"
	else
		not_ok "tests/unit/test-chart is built"
	fi
fi

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
