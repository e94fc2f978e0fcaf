#!/bin/sh
# install.sh: `make install` into a temporary DESTDIR puts every file where
# the Makefile says, and the installed binary renders the demo with the
# installed files only (its templates found beside it, since DATADIR
# itself is not there); `make uninstall` takes it all away again.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
prefix=/opt/perfbot-test-$$	# a prefix that exists nowhere but under DESTDIR
export HOME=$tmp PERFBOT_CONFIG= XDG_STATE_HOME=$tmp/state

if ! make -s -C "$top" install DESTDIR="$root" PREFIX="$prefix" >"$tmp/make.log" 2>&1; then
	not_ok "make install: $(tail -n 5 "$tmp/make.log")"
	echo "$pass passed, $fail failed"
	exit 1
fi
ok "make install DESTDIR=... PREFIX=$prefix"
p=$root$prefix
for f in bin/perfbot share/perfbot/templates/report.txt share/perfbot/templates/lkp.txt \
	 share/perfbot/templates/followup.txt share/perfbot/templates/README \
	 share/perfbot/config/perfbot.conf.example share/perfbot/config/demo.sh \
	 share/doc/perfbot/README.md share/doc/perfbot/perfbot.cron \
	 share/bash-completion/completions/perfbot \
	 lib/systemd/system/perfbot-send.service lib/systemd/system/perfbot-send.timer \
	 lib/systemd/system/perfbot-ingest.timer lib/systemd/system/perfbot-track.timer \
	 lib/systemd/system/perfbot-digest.service lib/systemd/system/perfbot-digest.timer \
	 share/perfbot/templates/fixed.txt share/perfbot/templates/lkp-fixed.txt \
	 share/perfbot/templates/digest.txt; do
	check "installed: $f" [ -f "$p/$f" ]
done
for m in "$top"/man/*.[157]; do
	[ -f "$m" ] || continue
	s=${m##*.}
	check "installed: man$s/$(basename "$m")" [ -f "$p/share/man/man$s/$(basename "$m")" ]
done
grep -q "^ExecStart=$prefix/bin/perfbot send$" "$p/lib/systemd/system/perfbot-send.service"
check_eq "the send service runs the installed binary" 0 $?
grep -q "^ExecStart=$prefix/bin/perfbot digest$" "$p/lib/systemd/system/perfbot-digest.service"
check_eq "the digest service runs the installed binary" 0 $?
check "the installed binary runs" sh -c "'$p/bin/perfbot' --version >/dev/null"
# perfbot help finds the installed pages beside the binary (MANDIR itself
# is not there: it is under DESTDIR)
if command -v man >/dev/null && [ -f "$p/share/man/man1/perfbot-send.1" ]; then
	MANPAGER=cat "$p/bin/perfbot" help send >"$tmp/help" 2>"$tmp/err"
	if [ $? -eq 0 ] && grep -q '^PERFBOT-SEND(1)' "$tmp/help"; then
		ok "the installed perfbot help shows the installed perfbot-send(1)"
	else
		not_ok "the installed perfbot help send: $(head -c 300 "$tmp/help") $(cat "$tmp/err")"
	fi
fi

# the demo, rendered by the installed binary from the installed files
sh "$p/share/perfbot/config/demo.sh" "$p/bin/perfbot" >"$tmp/installed.eml" 2>"$tmp/err"
check_eq "the installed demo renders (exit 0)" 0 $?
sh "$top/config/demo.sh" "$top/perfbot" >"$tmp/tree.eml" 2>/dev/null
check "it is the mail the source tree renders" cmp -s "$tmp/installed.eml" "$tmp/tree.eml"
# and it did use the installed templates: without them it cannot render
mv "$p/share/perfbot/templates" "$tmp/moved"
sh "$p/share/perfbot/config/demo.sh" "$p/bin/perfbot" >/dev/null 2>"$tmp/err"
if [ $? -ne 0 ] && grep -q "no such template" "$tmp/err"; then
	ok "without the installed templates the installed binary finds none"
else
	not_ok "the installed binary rendered without its templates: $(cat "$tmp/err")"
fi
mv "$tmp/moved" "$p/share/perfbot/templates"

# bash completion: commands and options come from perfbot's own --help
if command -v bash >/dev/null; then
	got=$(PATH="$p/bin:$PATH" bash -c ". '$p/share/bash-completion/completions/perfbot'
		COMP_WORDS=(perfbot se); COMP_CWORD=1; _perfbot; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=(perfbot send --d); COMP_CWORD=2; _perfbot; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=(perfbot help js); COMP_CWORD=2; _perfbot; echo \"\${COMPREPLY[*]}\"" 2>&1)
	check_eq "bash completion: commands, a command's options, help's topics" "send
--dry-run
json" "$got"
fi

make -s -C "$top" uninstall DESTDIR="$root" PREFIX="$prefix" >"$tmp/make.log" 2>&1
check_eq "make uninstall: exit 0" 0 $?
left=$(find "$root" -type f | wc -l)
check_eq "make uninstall leaves no file" 0 "$left"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
