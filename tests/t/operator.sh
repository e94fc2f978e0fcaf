#!/bin/sh
# operator.sh: perfbot(1)'s GETTING STARTED, done as a new operator would,
# with the installed files only: `make install` (into a prefix of its own,
# nothing of the source tree used afterwards), the configuration in
# ~/.config/perfbot/config (found without --config), the password in a
# file of mode 0600, `perfbot check --smtp` ready, render, queue, send
# (through a private Postfix with STARTTLS and AUTH would be the real
# thing; here a loopback Postfix without TLS, as perfbot-config(5)
# allows), status, a maintainer's reply (git send-email) delivered into
# the Maildir, ingest, thread.  Needs root (Postfix) and git send-email.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"

[ "$(id -u)" = 0 ] && command -v postfix >/dev/null && [ -x "$(git --exec-path)/git-send-email" ] || {
	echo "skip: needs root, postfix and git send-email (tests/helpers/install-deps.sh test)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}
tmp=$(mktemp -d)
chmod 755 "$tmp"
cleanup() {
	[ -d "$tmp/pf" ] && sh "$top/tests/helpers/postfix.sh" stop "$tmp/pf" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
prefix=$tmp/usr

# 1. build and install
make -s -C "$top" install PREFIX="$prefix" >"$tmp/make.log" 2>&1
check_eq "1. make install PREFIX=... (exit 0)" 0 $?
PATH=$prefix/bin:$PATH
export PATH HOME=$tmp/home PERFBOT_CONFIG= XDG_STATE_HOME=
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org
mkdir -p "$HOME"
check_eq "the installed perfbot is the one on PATH" "$prefix/bin/perfbot" "$(command -v perfbot)"
MANPAGER=cat perfbot help >"$tmp/man.txt" 2>&1
check "perfbot help shows the installed perfbot(1)" grep -q "GETTING STARTED" "$tmp/man.txt"

# the lab's repository with the commits its comparisons name
sh "$prefix/share/perfbot/config/make-demo-repo.sh" "$tmp/linux.git" >/dev/null 2>&1
pf_port=$(free_port)
sh "$top/tests/helpers/postfix.sh" start "$tmp/pf" "$pf_port" >/dev/null 2>&1 ||
	{ not_ok "Postfix did not start"; echo "$pass passed, $fail failed"; exit 1; }
maildir=$tmp/pf/mail/inbox

# 3. the configuration, where perfbot looks for it
mkdir -p "$HOME/.config/perfbot"
cat >"$HOME/.config/perfbot/config" <<CONF
[perfbot]
	from = Example Lab perf CI <perf-ci@lab.example.org>
	repo = $tmp/linux.git
	state = $HOME/state
	cc = perf-reports@lists.example.org
	coalesceMinutes = 0
[tree "linus"]
	url = https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git
[smtp]
	server = 127.0.0.1
	port = $pf_port
	encryption = none
	user = perf-ci
	passwordFile = $HOME/smtp-password
[ingest]
	maildir = $maildir
CONF
# 4. the password, readable by this user alone
(umask 077; printf 'secret\n' >"$HOME/smtp-password")
# the private Postfix offers no AUTH: without TLS it would refuse it anyway
sed -i '/user = perf-ci/d; /passwordFile/d' "$HOME/.config/perfbot/config"

# 5. check the set-up and the server: nothing sent
perfbot check --smtp >"$tmp/check.out" 2>&1
check_eq "5. perfbot check --smtp (exit 0)" 0 $?
check_eq "... its last line says ready" ready "$(tail -n 1 "$tmp/check.out")"
check_eq "... and nothing was delivered" 0 "$(ls "$maildir/new" 2>/dev/null | wc -l)"
check "... it says the Maildir is not there yet" grep -q "^ingest.maildir: .*not there yet" "$tmp/check.out"

# 6. render, queue, send, status
cp "$prefix/share/perfbot/config/demo-report.json" "$tmp/comparison.json"
perfbot render "$tmp/comparison.json" >"$tmp/render.eml" 2>"$tmp/err"
check_eq "6. perfbot render (exit 0)" 0 $?
check "... the greeting names the lab" grep -q "^Example Lab perf CI noticed a " "$tmp/render.eml"
perfbot queue "$tmp/comparison.json" 2>"$tmp/queue.err"
check_eq "perfbot queue (exit 0)" 0 $?
perfbot send 2>"$tmp/send.err"
check_eq "perfbot send (exit 0)" 0 $?
check "... says it sent the report" grep -q "^sent report" "$tmp/send.err"
wait_mail 1
check "the report is in the Maildir" grep -lq "^Example Lab perf CI noticed" "$maildir"/new/*
perfbot status >"$tmp/status.out" 2>&1
check "perfbot status lists it as sent" grep -q "sent" "$tmp/status.out"
mid=$(perfbot status --json | jq_py 'd["reports"][0]["message_id"]')

# 7. a maintainer's reply arrives in the Maildir; ingest it, read the thread
cat >"$tmp/reply.txt" <<MAIL
From: Jane Developer <jane@example.org>
To: perf-ci@lab.example.org
Cc: perf-reports@lists.example.org
Subject: Re: the regression

> Example Lab perf CI noticed a 3.9% regression

Thanks, I can reproduce it; looking.
MAIL
git send-email --quiet --confirm=never --suppress-cc=all --no-validate \
	--smtp-server=127.0.0.1 --smtp-server-port="$pf_port" \
	--from="Jane Developer <jane@example.org>" --to=perf-ci@lab.example.org \
	--in-reply-to="<$mid>" "$tmp/reply.txt" >"$tmp/gse.log" 2>&1
check_eq "7. the reply goes through Postfix" 0 $?
wait_mail 2
perfbot ingest >"$tmp/ingest.out" 2>&1
check_eq "perfbot ingest (exit 0)" 0 $?
check "... keeps the reply" grep -q "1 kept" "$tmp/ingest.out"
perfbot thread 1 >"$tmp/thread.out" 2>&1
check_eq "perfbot thread 1 (exit 0)" 0 $?
check "... shows the report and Jane's reply under it" sh -c \
	"grep -q 'Example Lab perf CI' '$tmp/thread.out' && grep -q 'Jane Developer' '$tmp/thread.out'"

# 8. the timers and the crontab example are installed
check "8. perfbot-send.timer installed" test -f "$prefix/lib/systemd/system/perfbot-send.timer"
check "... and the crontab example" test -f "$prefix/share/doc/perfbot/perfbot.cron"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
