#!/bin/sh
# ingest.sh: replies to a report, end to end.  A report goes out through a
# real Postfix on 127.0.0.1 into a Maildir; replies to it are written with
# `git send-email --in-reply-to` and by mutt in batch mode through the same
# Postfix; `perfbot ingest --maildir` keeps them, applies #perfbot
# commands, archives; public-inbox-index accepts the archive and finds one
# thread; `perfbot thread` shows it (overview, --json, --mbox); the same
# replies come again over IMAP from a real Dovecot (taken once), from an
# mbox (--all) and on stdin.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
tmp=$(mktemp -d)
chmod 755 "$tmp"	# Postfix and Dovecot run as other users
pass=0
fail=0
skip=0
cleanup() {
	[ -d "$tmp/pf" ] && sh "$top/tests/helpers/postfix.sh" stop "$tmp/pf"
	[ -d "$tmp/dv" ] && sh "$top/tests/helpers/dovecot.sh" stop "$tmp/dv"
	rm -rf "$tmp"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT

for tool in postfix dovecot mutt "$(git --exec-path)/git-send-email"; do
	if ! command -v "$tool" >/dev/null; then
		echo "skip: ingest.sh needs $tool (sh tests/helpers/install-deps.sh test)"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: ingest.sh starts Postfix and Dovecot, which needs root"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

sh "$top/tests/golden/make-repo.sh" "$tmp/repo" >/dev/null
pf_port=$(free_port)
sh "$top/tests/helpers/postfix.sh" start "$tmp/pf" "$pf_port" || { echo "0 passed, 1 failed"; exit 1; }
maildir=$tmp/pf/mail/inbox
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=$tmp/home
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@example.org GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@example.org
mkdir -p "$HOME"

config() { # STATE: a configuration sending to the Postfix
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$1|" "$top/tests/golden/config"
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n' "$pf_port"
}

# 1. the report
config "$tmp/s" >"$tmp/c"
cp "$top/tests/golden/regression-two-tests/input.json" "$tmp/r.json"
"$perfbot" --config "$tmp/c" send "$tmp/r.json" 2>"$tmp/send.log"
check "send: the report went out" grep -q "^sent report" "$tmp/send.log"
mid=$("$perfbot" --config "$tmp/c" status --json | jq_py 'd["reports"][0]["message_id"]')
wait_mail 1

# 2. a reply by git send-email --in-reply-to, with a command and a trailer
cat >"$tmp/reply1.txt" <<MAIL
From: Peter Zijlstra <peterz@example.org>
To: perfbot lab <perfbot@lab.example.org>
Subject: Re: [tip:sched/core] [sched/fair]  bdc753ab0b: hackbench.throughput 7.2% regression

On Tue, Mar 10, 2026, perfbot lab wrote:
> kernel test robot noticed a 7.2% regression of hackbench.throughput on:

This is expected: the waker-affine heuristic moved, hackbench pays for it.

#perfbot invalid

Acked-by: Peter Zijlstra <peterz@example.org>
MAIL
git send-email --quiet --confirm=never --suppress-cc=all --no-validate \
	--smtp-server=127.0.0.1 --smtp-server-port="$pf_port" \
	--from="Peter Zijlstra <peterz@example.org>" --to=perfbot@lab.example.org \
	--in-reply-to="<$mid>" "$tmp/reply1.txt" >"$tmp/gse.log" 2>&1
check "git send-email: the reply went through Postfix" test $? -eq 0
wait_mail 2

# 3. a reply to the reply, composed by mutt in batch mode
cat >"$tmp/muttrc" <<RC
set smtp_url="smtp://127.0.0.1:$pf_port/"
set from="Ingo Molnar <mingo@example.org>"
set use_from=yes
set edit_headers=yes
set copy=no
set record=""
set ssl_starttls=no
set ssl_force_tls=no
RC
gse_mid=$(grep -h -i "^Message-ID:" "$maildir"/new/* | sed 's/.*<\(.*\)>.*/\1/' | grep -v "^$mid$" | head -n 1)
cat >"$tmp/draft" <<MAIL
To: perfbot@lab.example.org
Subject: Re: [tip:sched/core] [sched/fair]  bdc753ab0b: hackbench.throughput 7.2% regression
In-Reply-To: <$gse_mid>
References: <$mid> <$gse_mid>

> This is expected: the waker-affine heuristic moved, hackbench pays for it.

Agreed, but let us keep an eye on it.
#perfbot reopen
MAIL
mutt -F "$tmp/muttrc" -H "$tmp/draft" </dev/null >"$tmp/mutt.log" 2>&1
check "mutt: the second reply went through Postfix" test $? -eq 0
wait_mail 3

# 4. ingest the Maildir
"$perfbot" --config "$tmp/c" ingest --maildir "$maildir" 2>"$tmp/ingest.log"
check "ingest --maildir: exit 0" test $? -eq 0
check "ingest: new/ is empty afterwards (moved to cur/)" test "$(ls "$maildir/new" | wc -l)" -eq 0
replies=$("$perfbot" --config "$tmp/c" status --json | jq_py 'd["reports"][0]["replies"]')
check "status: the report has 2 replies" test "$replies" = 2
state=$("$perfbot" --config "$tmp/c" status --json | jq_py 'd["reports"][0]["state"]')
check "status: #perfbot invalid then #perfbot reopen leave it open" test "$state" = open
check "ingest: the invalid command was applied and logged" grep -q "is now invalid: #perfbot invalid by Peter Zijlstra" "$tmp/ingest.log"
check "ingest: the reopen command was applied and logged" grep -q "is now open: #perfbot reopen by Ingo Molnar" "$tmp/ingest.log"
"$perfbot" --config "$tmp/c" ingest --maildir "$maildir" 2>"$tmp/ingest2.log"
check "ingest: a second run takes nothing again" test "$("$perfbot" --config "$tmp/c" status --json | jq_py 'd["reports"][0]["replies"]')" = 2

# 5. perfbot thread
"$perfbot" --config "$tmp/c" thread "$mid" >"$tmp/overview.txt"
check "thread: the overview has 3 mails" test "$(sed '/^$/,$d' "$tmp/overview.txt" | wc -l)" -eq 3
check "thread: ... then the maintainers' commands" grep -q "#perfbot reopen  by Ingo Molnar" "$tmp/overview.txt"
check "thread: the reply to the reply is indented deeper" grep -q "^.\{17\}  \` Ingo Molnar" "$tmp/overview.txt"
"$perfbot" --config "$tmp/c" thread --json 1 >"$tmp/thread.json"
check "thread --json: root and depths 0,1,2" test "$(jq_py '[m["depth"] for m in d["messages"]]' <"$tmp/thread.json")" = "[0, 1, 2]"
check "thread --json: the root is the report" test "$(jq_py 'd["root"]' <"$tmp/thread.json")" = "$mid"
"$perfbot" --config "$tmp/c" thread --mbox "$gse_mid" >"$tmp/thread.mbox"
n=$(python3 -c "import mailbox,sys; print(len(mailbox.mbox(sys.argv[1])))" "$tmp/thread.mbox")
check "thread --mbox: an mbox of 3 mails (python's mailbox reads it)" test "$n" = 3
check "thread --mbox: the first mail is the report" test "$(python3 -c "import mailbox,sys; print(mailbox.mbox(sys.argv[1])[0]['Message-ID'])" "$tmp/thread.mbox")" = "<$mid>"

# 6. public-inbox reads the archive: 3 messages, 1 thread
out=$(sh "$top/tests/helpers/pi-check.sh" "$tmp/s/archive" 2>&1)
rc=$?
if [ $rc -eq 77 ]; then
	echo "skip: public-inbox-index is not installed"
	skip=$((skip + 1))
else
	check "public-inbox-index: indexes the archive without complaint, 3 mails in 1 thread ($out)" test "$rc:$out" = "0:3|1"
	sh "$top/tests/helpers/pi-thread.sh" "$tmp/s/archive" "$gse_mid" >"$tmp/pi-thread.txt"
	check "public-inbox's reader: the reply's thread holds the report and both replies" test "$(head -n 1 "$tmp/pi-thread.txt")" = 3
	check "public-inbox's reader: ... the report among them" grep -qx "\[tip:sched/core\] \[sched/fair\]  bdc753ab0b: hackbench.throughput 7.2% regression" "$tmp/pi-thread.txt"
fi

# 7. the same replies and a new one over IMAP from Dovecot: each taken once
dv_port=$(free_port)
sh "$top/tests/helpers/dovecot.sh" start "$tmp/dv" "$dv_port" bot secret || not_ok "dovecot started"
for f in "$maildir"/cur/*; do cp "$f" "$tmp/dv/home/bot/Maildir/new/"; done
cat >"$tmp/dv/home/bot/Maildir/new/3.local" <<MAIL
From: Vincent Guittot <vincent@example.org>
To: perfbot lab <perfbot@lab.example.org>
Subject: Re: [tip:sched/core] [sched/fair]  bdc753ab0b: hackbench.throughput 7.2% regression
Message-ID: <third-reply@example.org>
In-Reply-To: <$mid>
References: <$mid>
Date: Wed, 11 Mar 2026 10:00:00 +0100

I see the same on my machines.

Tested-by: Vincent Guittot <vincent@example.org>
MAIL
chown -R nobody:nogroup "$tmp/dv/home"
printf 'secret\n' >"$tmp/imap-password"
chmod 600 "$tmp/imap-password"
printf '[ingest]\n\tpasswordFile = %s\n' "$tmp/imap-password" >>"$tmp/c"
"$perfbot" --config "$tmp/c" ingest --imap "imap://bot@127.0.0.1:$dv_port/INBOX" 2>"$tmp/imap.log"
check "ingest --imap: exit 0" test $? -eq 0
check "ingest --imap: the new reply is kept, the others known" test "$("$perfbot" --config "$tmp/c" status --json | jq_py 'd["reports"][0]["replies"]')" = 3
"$perfbot" --config "$tmp/c" ingest --imap "imap://bot@127.0.0.1:$dv_port/INBOX" 2>"$tmp/imap2.log"
check "ingest --imap: a second run reads nothing new (UID cursor)" test ! -s "$tmp/imap2.log"

# 8. an mbox of the thread, --all, into a fresh state; and stdin
config "$tmp/s2" >"$tmp/c2"
"$perfbot" --config "$tmp/c" thread --mbox "$mid" >"$tmp/all.mbox"
cp "$tmp/all.mbox" "$tmp/all.mbox.orig"
"$perfbot" --config "$tmp/c2" ingest --all --mbox "$tmp/all.mbox" 2>"$tmp/mbox.log"
check "ingest --all --mbox: exit 0" test $? -eq 0
check "ingest --all --mbox: the file is not changed" cmp -s "$tmp/all.mbox" "$tmp/all.mbox.orig"
out=$(sh "$top/tests/helpers/pi-check.sh" "$tmp/s2/archive" 2>&1)
[ $? -ne 77 ] && check "ingest --all: public-inbox finds 4 mails in 1 thread ($out)" test "$out" = "4|1"
printf 'not a mail at all\n' | "$perfbot" --config "$tmp/c2" ingest - 2>/dev/null
check "ingest -: input that is not a mail is ignored, exit 0" test $? -eq 0
cp "$tmp/dv/home/bot/Maildir/new/3.local" "$tmp/third.eml" 2>/dev/null || cp "$tmp/dv/home/bot/Maildir/cur/3.local"* "$tmp/third.eml"
"$perfbot" --config "$tmp/c" ingest - <"$tmp/third.eml" 2>/dev/null
check "ingest -: a known mail again, exit 0" test $? -eq 0
{
	printf 'From: Peter Zijlstra <peterz@example.org>\nTo: perfbot@lab.example.org\n'
	printf 'Subject: Re: hackbench\nMessage-ID: <commented-type@example.org>\n'
	printf 'In-Reply-To: <%s>\nReferences: <%s>\nDate: Thu, 12 Mar 2026 10:00:00 +0100\n' "$mid" "$mid"
	printf 'MIME-Version: 1.0\n'
	printf 'Content-Type: (hello) text (plain) / (world) plain (eod);charset=iso-8859-1\n'
	printf 'Content-Transfer-Encoding: (c) quoted-printable (c)\n\n'
	printf 'Apr=E8s tout, c=27est attendu.\n#perfbot invalid\n'
} >"$tmp/commented.eml"
"$perfbot" --config "$tmp/c" ingest - <"$tmp/commented.eml" 2>"$tmp/commented.log"
check "ingest -: comments in Content-Type and Content-Transfer-Encoding, the command is read" grep -q "is now invalid: #perfbot invalid by Peter Zijlstra" "$tmp/commented.log"
check "ingest -: ... and applied" test "$("$perfbot" --config "$tmp/c" status --json | jq_py 'd["reports"][0]["state"]')" = invalid

# 9. kill -9 at random instants of an ingest, then a run to the end: every
#    mail taken exactly once (in the database and in the archive once each)
config "$tmp/s3" >"$tmp/c3"
mkdir -p "$tmp/md/new" "$tmp/md/cur" "$tmp/md/tmp"
python3 - "$tmp/md/new" <<'PY'
import sys
for i in range(600):
    parent = "" if i % 10 == 0 else "In-Reply-To: <m%d@example.org>\nReferences: <m%d@example.org>\n" % (i - i % 10, i - i % 10)
    open("%s/%04d.local" % (sys.argv[1], i), "w").write(
        "From: Dev %d <dev%d@example.org>\nTo: list@example.org\nSubject: %s %d\n"
        "Message-ID: <m%d@example.org>\n%sDate: Mon, 2 Mar 2026 10:%02d:00 +0000\n\nbody %d\n"
        % (i % 7, i % 7, "Re: topic" if i % 10 else "topic", i - i % 10, i, parent, i % 60, i))
PY
# only a kill that finds the run alive counts (exit 137)
kills=0
for delay in 0.02 0.04 0.06 0.08 0.1 0.13 0.16 0.2; do
	"$perfbot" --config "$tmp/c3" ingest --all --maildir "$tmp/md" 2>/dev/null &
	p=$!
	sleep "$delay"
	kill -9 "$p" 2>/dev/null
	rc=0
	wait "$p" 2>/dev/null || rc=$?
	[ "$rc" -ne 137 ] || kills=$((kills + 1))
done
check "ingest: a kill -9 found a run at work ($kills)" test "$kills" -ge 1
"$perfbot" --config "$tmp/c3" ingest --all --maildir "$tmp/md" 2>"$tmp/crash-ingest.log"
check "ingest after $kills kill -9: exit 0 at the end" test $? -eq 0
check "ingest after kill -9: new/ is empty" test "$(ls "$tmp/md/new" | wc -l)" -eq 0
n=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*), count(blob_oid) from messages').fetchone())" "$tmp/s3/state.db")
check "ingest after kill -9: 600 mails known, all archived ($n)" test "$n" = "(600, 600)"
commits=0
for e in "$tmp/s3/archive/git/"*.git; do
	commits=$((commits + $(git --git-dir="$e" rev-list --count master)))
done
check "ingest after kill -9: 600 commits in the archive, none twice ($commits)" test "$commits" -eq 600
out=$(sh "$top/tests/helpers/pi-check.sh" "$tmp/s3/archive" 2>&1)
[ $? -ne 77 ] && check "ingest after kill -9: public-inbox finds 600 mails in 60 threads ($out)" test "$out" = "600|60"

echo "$pass passed, $fail failed${skip:+, $skip skipped}" | sed 's/, 0 skipped$//'
[ "$fail" -eq 0 ]
