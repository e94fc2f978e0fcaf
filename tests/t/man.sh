#!/bin/sh
# man.sh: the manual pages under man/ are clean and tell the truth about
# the binary beside them:
#   - every page passes `groff -man -ww -z` (in both the typesetter's and
#     the terminal's line lengths) and, when mandoc is installed,
#     `mandoc -T lint -W warning`, without a single warning;
#   - every command in `perfbot --help` has a page, listed in perfbot(1);
#   - each page's SYNOPSIS is the command's usage line, and its OPTIONS
#     are exactly the options `perfbot CMD --help` lists (perfbot(1): the
#     global ones);
#   - perfbot-config(5) has every key of `perfbot check --keys`, each with
#     the table's default, and no key the table lacks;
#   - config/perfbot.conf.example shows every key of that table in its own
#     section, set or commented out, and no key line, set or commented
#     out, that the table lacks;
#   - perfbot-json(5) has every key the comparison reader accepts
#     (bot/report.c) and every key parse, status and thread print with
#     --json (bot/cmd-*.c, bot/status.c); perfbot-templates(7) every name of the view
#     (bot/view.c) and every block of each shipped template;
#   - `perfbot help` shows a page through man(1), and falls back to the
#     command's --help when man(1) is not there.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/perfbot
pass=0
fail=0
skipped=0
. "$top/tests/helpers/tlib.sh"
skip() { echo "skip $*"; skipped=$((skipped + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PERFBOT_CONFIG= XDG_STATE_HOME=$tmp/state
cd "$top" || exit 1

pages=$(ls man/*.1 man/*.5 man/*.7 2>/dev/null)
check "man/ holds pages" [ -n "$pages" ]

# -- lint ---------------------------------------------------------------
if command -v groff >/dev/null; then
	for p in $pages; do
		out=$( { groff -man -ww -z "$p"; groff -man -ww -z -Tutf8 "$p"; } 2>&1)
		if [ -z "$out" ]; then ok "groff -ww: $p"; else not_ok "groff -ww: $p: $out"; fi
	done
else
	skip "groff is not installed (Debian: groff-base): the pages were not linted"
fi
if command -v mandoc >/dev/null; then
	for p in $pages; do
		out=$(mandoc -T lint -W warning "$p" 2>&1)
		if [ -z "$out" ]; then ok "mandoc -T lint: $p"; else not_ok "mandoc -T lint: $p: $out"; fi
	done
fi

# -- a page per command, each listed in perfbot(1) ------------------------
commands=$("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
check "perfbot --help lists commands" [ -n "$commands" ]
for c in $commands; do
	check "perfbot-$c(1) exists" [ -f "man/perfbot-$c.1" ]
	check "perfbot(1) lists perfbot-$c(1)" grep -q "^\.BR perfbot\\\\-$c (1)" man/perfbot.1
done
for p in perfbot.1 perfbot-config.5 perfbot-json.5 perfbot-templates.7 perfbot-mail.7; do
	check "man/$p exists" [ -f "man/$p" ]
done
# and no page for a command that does not exist
for p in man/perfbot-*.1; do
	c=$(basename "$p" .1)
	c=${c#perfbot-}
	case " $(echo $commands) " in
	*" $c "*) ;;
	*) not_ok "$p documents '$c', which perfbot --help does not list" ;;
	esac
done

# -- SYNOPSIS and OPTIONS against --help ----------------------------------
# pageopts PAGE: the options of the page's OPTIONS section, one a line
# (the words starting with '-' in the tag line after each .TP).
pageopts() {
	python3 - "$1" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split('\n')
sec, tag, opts = None, False, set()
for l in lines:
    if l.startswith('.SH '):
        sec = l[4:].strip('"')
        continue
    if sec != 'OPTIONS':
        continue
    if l.startswith('.TP'):
        tag = True
        continue
    if tag:
        tag = False
        t = l.replace('\\-', '-').replace('"', ' ').replace(',', ' ')
        t = re.sub(r'\\f[BIRP]', ' ', t)
        t = re.sub(r'^\.[A-Z]+', ' ', t)
        for w in t.split():
            if re.match(r'^--?[A-Za-z]', w):
                opts.add(w.split('=')[0])
print('\n'.join(sorted(opts)))
EOF
}

# helpopts: the options in the --help text on stdin, one a line.
helpopts() {
	python3 -c '
import re, sys
opts = set()
for l in sys.stdin.read().split("\n"):
    if l.startswith("commands:"):
        break
    m = re.match(r"^  +(-.*?)(  |$)", l)
    if m:
        for w in m.group(1).replace(",", " ").split():
            if w.startswith("-"):
                opts.add(w)
print("\n".join(sorted(opts)))'
}

# synopsis PAGE: the SYNOPSIS as formatted, on one line.
synopsis() {
	groff -man -Tascii -P-cbou -rLL=300n "$1" 2>/dev/null |
		sed -n '/^SYNOPSIS/,/^[A-Z]/{/^SYNOPSIS/d;/^[A-Z]/d;p}' | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

# usage: the usage line of the --help on stdin, on one line.
usage() {
	sed -n '1,/^$/p' | tr -s ' \n' '  ' | sed 's/^usage: //; s/ $//'
}

for c in "" $commands; do
	if [ -z "$c" ]; then page=man/perfbot.1 name=perfbot; else page=man/perfbot-$c.1 name="perfbot $c"; fi
	[ -f "$page" ] || continue
	"$bin" $c --help >"$tmp/help"
	pageopts "$page" >"$tmp/page.opts"
	helpopts <"$tmp/help" >"$tmp/help.opts"
	if cmp -s "$tmp/page.opts" "$tmp/help.opts"; then
		ok "$page: OPTIONS are those of '$name --help'"
	else
		not_ok "$page: OPTIONS differ from '$name --help' (< page, > help): $(diff "$tmp/page.opts" "$tmp/help.opts" | grep '^[<>]' | tr '\n' ' ')"
	fi
	if command -v groff >/dev/null; then
		want=$(usage <"$tmp/help")
		got=$(synopsis "$page")
		check_eq "$page: SYNOPSIS is the usage line" "$want" "$got"
	fi
done

# -- perfbot-config(5) against the parser's table ---------------------------
"$bin" check --keys >"$tmp/keys"
check "check --keys lists keys" [ -s "$tmp/keys" ]
python3 - man/perfbot-config.5 "$tmp/keys" >"$tmp/keys.out" <<'EOF'
import re, sys
page = open(sys.argv[1]).read().split('\n')
table = {}
for l in open(sys.argv[2]).read().split('\n'):
    if not l:
        continue
    key, doc = l.split('\t', 1)
    table[key] = doc[doc.rindex('(default: ') + 10:-1]

def plain(s):
    s = re.sub(r'\\f[BIRP]', '', s).replace('\\-', '-').replace('\\(aq', "'")
    s = s.replace('\\(dq', '"').replace('\\e', '\\').replace('\\&', '')
    return re.sub(r'^\.[A-Z]+ ', '', s).replace('"', '') if s.startswith('.') else s

entries, sec, cur, tag = {}, None, None, False
for l in page:
    if l.startswith('.SH '):
        sec, cur = l[4:].strip('"'), None
        continue
    if sec != 'KEYS':
        continue
    if l.startswith('.SS') or l.startswith('.PP'):
        cur = None
        continue
    if l.startswith('.TP'):
        tag, cur = True, None
        continue
    if tag:
        tag = False
        cur = plain(l).split()[0]
        entries[cur] = []
        continue
    if cur:
        entries[cur].append(plain(l))
for key in table:
    if key not in entries:
        print('not ok perfbot-config(5) lacks the key %s' % key)
        continue
    text = ' '.join(entries[key])
    want = 'Default: ' + table[key]
    i = text.find(want)
    if i < 0 or (i + len(want) < len(text) and text[i + len(want)] not in ' .,'):
        print('not ok perfbot-config(5): %s: no "%s" in: %s' % (key, want, text))
    else:
        print('ok perfbot-config(5): %s, default %s' % (key, table[key]))
for key in entries:
    if key not in table:
        print('not ok perfbot-config(5) documents %s, which perfbot check --keys does not list' % key)
EOF
cat "$tmp/keys.out"
pass=$((pass + $(grep -c '^ok' "$tmp/keys.out")))
fail=$((fail + $(grep -c '^not ok' "$tmp/keys.out")))

# -- config/perfbot.conf.example against the same table -----------------------
# Every key of the table is shown in its own section of the example, set
# or commented out ("\tkey = " or "\t#key = "), spelt as the table spells
# it; and every key line of the example, commented or not, names a key of
# the table in the section it stands in.  (The parser takes the set ones
# only; a commented-out key it does not know would mislead silently.)
python3 - config/perfbot.conf.example "$tmp/keys" >"$tmp/example.out" <<'EOF'
import re, sys
table = {}
for l in open(sys.argv[2]).read().split('\n'):
    if l:
        key = l.split('\t', 1)[0].split('.')
        table.setdefault(key[0], set()).add(key[-1])
shown, stray, sec = set(), [], None
for n, l in enumerate(open(sys.argv[1]).read().split('\n'), 1):
    m = re.match(r'^\[([A-Za-z0-9-]+)( "[^"]*")?\]\s*$', l)
    if m:
        sec = m.group(1)
        if sec not in table:
            stray.append('line %d: [%s] is no section of the table' % (n, sec))
        continue
    m = re.match(r'^\s+#?([A-Za-z][A-Za-z0-9]*)\s*=', l)
    if not m:
        continue
    key = m.group(1)
    if sec is None or key not in table.get(sec, ()):
        stray.append('line %d: %s.%s is not in the table' % (n, sec, key))
    else:
        shown.add((sec, key))
for sec in sorted(table):
    for key in sorted(table[sec]):
        if (sec, key) in shown:
            print('ok config/perfbot.conf.example shows %s.%s under [%s]' % (sec, key, sec))
        else:
            print('not ok config/perfbot.conf.example lacks %s.%s under [%s]' % (sec, key, sec))
for s in stray:
    print('not ok config/perfbot.conf.example, %s (perfbot check --keys)' % s)
if not stray:
    print('ok config/perfbot.conf.example names no key the table lacks')
EOF
cat "$tmp/example.out"
pass=$((pass + $(grep -c '^ok' "$tmp/example.out")))
fail=$((fail + $(grep -c '^not ok' "$tmp/example.out")))

# -- perfbot-json(5) and perfbot-templates(7) against the code --------------
# tags PAGE: the words of the tag lines after each .TP, one a line.
tags() {
	python3 - "$1" <<'EOF'
import re, sys
tag = False
for l in open(sys.argv[1]).read().split('\n'):
    if l.startswith('.TP'):
        tag = True
        continue
    if tag:
        tag = False
        t = re.sub(r'\\f[BIRP]', ' ', l).replace('\\-', '-').replace('\\(dq', ' ')
        t = re.sub(r'^\.[A-Z]+', ' ', t).replace('"', ' ').replace(',', ' ')
        for w in t.split():
            print(w)
EOF
}

# every key the comparison reader accepts
keys=$(sed -n '/_keys\[\] = {/,/};/p; /keys\[\] = { "/p' bot/report.c | grep -o '"[a-z_]*"' | tr -d '"' | sort -u)
check "bot/report.c: key tables found" [ -n "$keys" ]
tags man/perfbot-json.5 >"$tmp/json.tags"
for k in $keys; do
	check "perfbot-json(5) documents the input key $k" grep -qx "$k" "$tmp/json.tags"
done
# every key the --json outputs print
for f in bot/cmd-parse.c bot/cmd-status.c bot/status.c bot/cmd-thread.c; do
	for k in $(grep -o 'value_object_\(set\|add\)[a-z_]*([a-z]*, "[a-z_]*"' "$f" | sed 's/.*"\([a-z_]*\)"/\1/' | sort -u); do
		check "perfbot-json(5) documents $(basename "$f" .c)'s key $k" grep -qx "$k" "$tmp/json.tags"
	done
done
# and those of the fix, possible and posted fixes that status and thread share
for k in $(sed -n '/^void cmd_fix_json/,/^}/p' bot/cmd.c | grep -o 'value_object_\(set\|add\)[a-z_]*([a-z]*, "[a-z_]*"' | sed 's/.*"\([a-z_]*\)"/\1/' | sort -u); do
	check "perfbot-json(5) documents cmd_fix_json()'s key $k" grep -qx "$k" "$tmp/json.tags"
done
# every name of the view, and every block of each shipped template
tags man/perfbot-templates.7 >"$tmp/view.tags"
for k in $(grep -o 'value_object_add[a-z_]*([a-z]*, "[a-z_]*"' bot/view.c | sed 's/.*"\([a-z_]*\)"/\1/' | sort -u); do
	check "perfbot-templates(7) documents the view's name $k" grep -qx "$k" "$tmp/view.tags"
done
# entry PAGE WORD: the text of the entry whose .TP tag is ".B WORD" (with
# roff's \- for -), up to the next .TP, .SS or .SH
entry() {
	python3 - "$1" "$2" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split('\n')
tag = '.B ' + sys.argv[2].replace('-', '\\-')
out, on = [], False
for i, l in enumerate(lines):
    if l.startswith(('.TP', '.SS', '.SH')):
        on = l.startswith('.TP') and i + 1 < len(lines) and lines[i + 1] == tag
        continue
    if on:
        out.append(l)
print('\n'.join(out[1:]))
EOF
}
for t in templates/*.txt; do
	tname=$(basename "$t" .txt)	# not $name: check() sets it
	check "perfbot-templates(7) describes the template $tname" grep -qx "$tname.txt" "$tmp/view.tags"
	entry man/perfbot-templates.7 "$tname.txt" >"$tmp/entry"
	for b in $(grep -o '{{\$[a-z_]*}}' "$t" | sed 's/{{\$\(.*\)}}/\1/' | sort -u); do
		if grep -q "^\.B[R]* \\\$$b\\b" "$tmp/entry"; then
			ok "perfbot-templates(7): $tname.txt has the block \$$b"
		else
			not_ok "perfbot-templates(7): the entry of $tname.txt does not name its block \$$b"
		fi
	done
done

# -- perfbot help ------------------------------------------------------------
if command -v man >/dev/null && man -l man/perfbot.1 >/dev/null 2>&1; then
	MANPAGER=cat "$bin" help render >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^PERFBOT-RENDER(1)' "$tmp/out" && grep -q 'SYNOPSIS' "$tmp/out"; then
		ok "help render shows perfbot-render(1) through man"
	else
		not_ok "help render: exit $rc, $(head -c 300 "$tmp/out") $(cat "$tmp/err")"
	fi
	MANPAGER=cat "$bin" help config >"$tmp/out" 2>&1
	check "help config shows perfbot-config(5)" grep -q '^PERFBOT-CONFIG(5)' "$tmp/out"
	MANPAGER=cat "$bin" help >"$tmp/out" 2>&1
	check "help shows perfbot(1)" grep -q '^PERFBOT(1)' "$tmp/out"
	MANPAGER=cat "$bin" help perfbot-mail >"$tmp/out" 2>&1
	check "help perfbot-mail shows perfbot-mail(7)" grep -q '^PERFBOT-MAIL(7)' "$tmp/out"
else
	skip "man(1) is not installed (Debian: man-db): perfbot help was not tried with it"
fi
# without man(1) on PATH: the command's --help, and a word on stderr
"$bin" render --help >"$tmp/want"
PATH=/nonexistent "$bin" help render >"$tmp/out" 2>"$tmp/err"
check_eq "help render without man: exit 0" 0 $?
check "help render without man: prints render --help" cmp -s "$tmp/want" "$tmp/out"
check "help render without man: says man(1) is missing" grep -q 'man(1) is not installed' "$tmp/err"
PATH=/nonexistent "$bin" help config >"$tmp/out" 2>/dev/null
check "help config without man: the keys" cmp -s "$tmp/keys" "$tmp/out"
PATH=/nonexistent "$bin" help json >"$tmp/out" 2>"$tmp/err"
check_eq "help json without man: exit 69 (nothing else to show)" 69 $?
check "help json without man: nothing on stdout" [ ! -s "$tmp/out" ]
"$bin" help frobnicate >"$tmp/out" 2>"$tmp/err"
check_eq "help frobnicate: exit 64" 64 $?
check_eq "help frobnicate: the message" \
	"perfbot help: 'frobnicate' is neither a command nor a topic (config, json, templates, mail)" \
	"$(head -n 1 "$tmp/err")"

if [ "$skipped" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skipped skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
