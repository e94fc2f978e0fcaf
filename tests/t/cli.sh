#!/bin/sh
# cli.sh: the command line is the same for every command (bot/opt.h):
# --help on stdout with exit 0 and a usage line made from the option table,
# one message for an unknown option and one for a missing value (exit 64,
# nothing on stdout), --opt=value as well as --opt value, -- ending the
# options, and perfbot --version.  Every option a command's --help lists is
# one its parser takes (a listed option never comes back "unknown").
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/perfbot
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PERFBOT_CONFIG= XDG_STATE_HOME=$tmp/state

commands=$("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
check "perfbot --help lists the commands" [ -n "$commands" ]

for c in $commands; do
	"$bin" "$c" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && head -n 1 "$tmp/out" | grep -q "^usage: perfbot $c" && [ ! -s "$tmp/err" ]; then
		ok "$c --help: usage on stdout, exit 0"
	else
		not_ok "$c --help: exit $rc, stdout '$(head -n 1 "$tmp/out")', stderr '$(head -n 1 "$tmp/err")'"
	fi
	"$bin" "$c" -h >"$tmp/out2" 2>&1
	check "$c -h is --help" cmp -s "$tmp/out" "$tmp/out2"

	"$bin" "$c" --frobnicate >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 64 ] && [ ! -s "$tmp/out" ] &&
	   [ "$(head -n 1 "$tmp/err")" = "perfbot $c: unknown option '--frobnicate'" ] &&
	   sed -n 2p "$tmp/err" | grep -q "^usage: perfbot $c"; then
		ok "$c --frobnicate: one message and the usage line, exit 64"
	else
		not_ok "$c --frobnicate: exit $rc, stderr '$(cat "$tmp/err")'"
	fi

	# every option the help lists is one the parser knows
	for o in $(sed -n 's/^  \(-., \)\{0,1\} *\(--[a-z-]*\).*/\2/p' "$tmp/out2"); do
		"$bin" "$c" "$o" >"$tmp/o" 2>&1 </dev/null
		if grep -q "unknown option" "$tmp/o"; then
			not_ok "$c: $o is in --help but the parser refuses it"
		fi
	done
done

# a value option without its value, and --opt=value
"$bin" render --template >"$tmp/out" 2>"$tmp/err"
check_eq "a missing value: exit 64" 64 $?
check_eq "a missing value: the message" "perfbot render: option '--template' needs a value" \
	"$(head -n 1 "$tmp/err")"
"$bin" render --date=2026-13-01 "$top/config/demo-report.json" >"$tmp/out" 2>"$tmp/err"
check_eq "--date=VALUE is read (and refused as a date): exit 64" 64 $?
"$bin" send --dry-run=yes >"$tmp/out" 2>"$tmp/err"
check_eq "a flag given a value: the message" "perfbot send: option '--dry-run' takes no value" \
	"$(head -n 1 "$tmp/err")"

# -- ends the options: "--help" after it is a file name
"$bin" parse -- --help >"$tmp/out" 2>"$tmp/err"
check_eq "parse -- --help reads the file --help: exit 66" 66 $?

# the one-letter form of --dry-run is listed, and works
"$bin" send --help | grep -q -- '-n, --dry-run'
check_eq "send --help lists -n" 0 $?

# ingest -v is a verbose ingest, not a usage error
"$bin" ingest -v --mbox "$tmp/none" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 64 ]; then ok "ingest -v is accepted (exit $rc)"; else not_ok "ingest -v: exit 64: $(cat "$tmp/err")"; fi

# thread: a report number too large is an error, not clamped; <id> is named once
"$bin" thread 99999999999999999999999 >"$tmp/out" 2>"$tmp/err"
check_eq "thread: an overflowing report number: exit 64" 64 $?
check_eq "thread: an overflowing report number is refused, not clamped" \
	"perfbot thread: '99999999999999999999999' is not a report number (1 and up; perfbot status lists them)" \
	"$(head -n 1 "$tmp/err")"

# --version
v=$("$bin" --version)
case $v in "perfbot "[0-9]*) ok "perfbot --version: $v" ;; *) not_ok "perfbot --version: '$v'" ;; esac
"$bin" --bogus >"$tmp/out" 2>"$tmp/err"
check_eq "perfbot --bogus: exit 64" 64 $?
check_eq "perfbot --bogus: the message" "perfbot: unknown option '--bogus'" "$(head -n 1 "$tmp/err")"
"$bin" frob >"$tmp/out" 2>"$tmp/err"
check_eq "perfbot frob: exit 64" 64 $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
