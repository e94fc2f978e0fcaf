#!/bin/sh
# archive.sh: the public-inbox v2 archive that bot/archive.c writes, checked
# with git fsck and with the real public-inbox-index (tests/helpers/pi-check.sh):
# a report with a reply chain and an unrelated report, then a second batch
# (a reply to the second report, a new thread, a reply that arrives before
# its parent) indexed incrementally, then the same mail spread over many
# epochs.  Messages are written by `tests/unit/test-archive --import`, which
# adds files through archive_add() with one archive_commit() per batch.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
import=$top/tests/unit/test-archive
picheck=$top/tests/helpers/pi-check.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
skip=0
NOW=1773100000

. "$top/tests/helpers/tlib.sh"

if [ ! -x "$import" ]; then
	echo "FAIL $import is not built"
	echo "0 passed, 1 failed"
	exit 1
fi

# mail NAME MESSAGE-ID SUBJECT [IN-REPLY-TO [REFERENCES]]: a message file
mail() {
	{
		echo "Received: from mx.example.org by archive.example.org; Tue, 10 Mar 2026 08:00:0${#1} +0000"
		echo "From: Person $1 <$1@example.org>"
		echo "To: list@example.org"
		echo "Date: Tue, 10 Mar 2026 07:59:0${#1} +0100"
		echo "Subject: $3"
		echo "Message-ID: <$2>"
		[ -n "${4:-}" ] && echo "In-Reply-To: <$4>"
		[ -n "${5:-}" ] && echo "References: $5"
		echo
		echo "Message $1."
	} >"$tmp/mail/$1"
}
mkdir "$tmp/mail"
mail report1 r1@perfbot.example.org "[linux-next:master] [mm] 1234567890: regression"
mail replyA a@example.org "Re: [linux-next:master] [mm] 1234567890: regression" \
	r1@perfbot.example.org "<r1@perfbot.example.org>"
mail replyB b@example.org "Re: [linux-next:master] [mm] 1234567890: regression" \
	a@example.org "<r1@perfbot.example.org> <a@example.org>"
# mail fetched over IMAP comes with CRLF
sed 's/$/\r/' "$tmp/mail/replyB" >"$tmp/mail/replyB.crlf"
mail report2 r2@perfbot.example.org "[linus:master] [sched] abcdef0123: improvement"
mail replyC c@example.org "Re: improvement" r2@perfbot.example.org "<r2@perfbot.example.org>"
mail lone3 t3@example.org "an unrelated thread"
mail early d@example.org "Re: late parent" late@example.org "<late@example.org>"
mail late late@example.org "late parent"

threads_sql='select group_concat(mid, " ") from (select o.tid, m.mid from over o
	join id2num i on i.num = o.num join msgid m on m.id = i.id
	where o.num > 0 order by o.tid, m.mid) group by tid order by 1'

# fsck_all INBOX [--garbage-ok]: git fsck --strict on every epoch, with no
# output at all (or only "garbage found" warnings: a writer killed while
# writing a pack leaves its temporary files until the next one opens)
fsck_all() {
	for e in "$1"/git/*.git; do
		git -C "$e" fsck --strict --no-dangling >"$tmp/fsck" 2>&1 || echo "exit $?" >>"$tmp/fsck"
		[ "${2:-}" = --garbage-ok ] && sed -i '/^warning: garbage found: .*\/objects\/pack\//d' "$tmp/fsck"
		if [ -s "$tmp/fsck" ]; then
			echo "  $e:"
			sed 's/^/    /' "$tmp/fsck"
			return 1
		fi
	done
	return 0
}

inbox=$tmp/inbox
m=$tmp/mail
if "$import" --import "$inbox" $NOW "$m/report1" "$m/replyA" "$m/replyB.crlf" "$m/report2" \
	>"$tmp/ids" 2>"$tmp/err"; then
	ok "first batch written"
else
	not_ok "first batch: $(cat "$tmp/err")"
fi
check_eq "one commit per message on master" 4 "$(git -C "$inbox/git/0.git" rev-list --count master 2>&1)"
check_eq "master is the last commit written" "$(tail -n 1 "$tmp/ids" | cut -d' ' -f1)" \
	"$(git -C "$inbox/git/0.git" rev-parse master 2>&1)"
check_eq "each commit holds only m" "m m m m" \
	"$(for c in $(git -C "$inbox/git/0.git" rev-list master); do git -C "$inbox/git/0.git" ls-tree --name-only "$c"; done | tr '\n' ' ' | sed 's/ $//')"
if git -C "$inbox/git/0.git" cat-file blob master~1:m | cmp -s - "$m/replyB"; then
	ok "a CRLF message is stored with LF"
else
	not_ok "a CRLF message is stored with LF"
fi
if fsck_all "$inbox"; then ok "git fsck --strict"; else not_ok "git fsck --strict"; fi

sh "$picheck" "$inbox" >"$tmp/pi" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	cat "$tmp/pi"
	skip=$((skip + 1))
else
	check_eq "public-inbox-index: 4 messages in 2 threads" "4|2" "$(cat "$tmp/pi")"
	check_eq "the report and its replies are one thread" \
		"a@example.org b@example.org r1@perfbot.example.org
r2@perfbot.example.org" \
		"$(sh "$picheck" "$inbox" "$threads_sql" 2>&1)"

	if "$import" --import "$inbox" $NOW "$m/replyC" "$m/lone3" "$m/early" "$m/late" \
		>"$tmp/ids" 2>"$tmp/err"; then
		ok "second batch written"
	else
		not_ok "second batch: $(cat "$tmp/err")"
	fi
	check_eq "the second batch continues the history" 8 \
		"$(git -C "$inbox/git/0.git" rev-list --count master 2>&1)"
	check_eq "public-inbox-index again (incremental): 8 messages in 4 threads" "8|4" \
		"$(sh "$picheck" "$inbox" 2>&1)"
	check_eq "threads after the second batch, a reply before its parent included" \
		"a@example.org b@example.org r1@perfbot.example.org
c@example.org r2@perfbot.example.org
d@example.org late@example.org
t3@example.org" \
		"$(sh "$picheck" "$inbox" "$threads_sql" 2>&1)"

	# The same mail with a new epoch after every message.
	ep=$tmp/epochs
	"$import" --import "$ep" $NOW --epoch-max 1 "$m/report1" "$m/replyA" "$m/replyB" "$m/report2" \
		>/dev/null 2>"$tmp/err" || not_ok "epochs, first batch: $(cat "$tmp/err")"
	check_eq "one epoch per message" "0.git 1.git 2.git 3.git" "$(ls "$ep/git" | tr '\n' ' ' | sed 's/ $//')"
	check_eq "public-inbox-index over 4 epochs: 4 messages in 2 threads" "4|2" "$(sh "$picheck" "$ep" 2>&1)"
	"$import" --import "$ep" $NOW --epoch-max 1 "$m/replyC" "$m/lone3" "$m/early" "$m/late" \
		>/dev/null 2>"$tmp/err" || not_ok "epochs, second batch: $(cat "$tmp/err")"
	check_eq "public-inbox-index over 8 epochs (incremental): 8 messages in 4 threads" "8|4" \
		"$(sh "$picheck" "$ep" 2>&1)"
	check_eq "all.git lists every epoch" 8 "$(wc -l <"$ep/all.git/objects/info/alternates" 2>&1)"
	if fsck_all "$ep"; then ok "git fsck --strict, every epoch"; else not_ok "git fsck --strict, every epoch"; fi
fi

# kill -9 at random instants: master is always the old or the new tip of a
# batch, the repository stays valid, and the next run continues from master.
crash=$tmp/crash
mkdir "$tmp/many"
i=0
# 400 messages of 40 kB: two packs written on the way, one at the end
body=$(awk 'BEGIN { for (i = 0; i < 500; i++) printf "line %d of a long body, to fill the pack\n", i }')
while [ $i -lt 400 ]; do
	i=$((i + 1))
	printf 'From: P%d <p%d@example.org>\nDate: Tue, 10 Mar 2026 07:59:00 +0100\nSubject: message %d\nMessage-ID: <m%d@example.org>\n\n%s %d\n' \
		$i $i $i $i "$body" $i >"$tmp/many/$i"
done
"$import" --import "$crash" $NOW "$m/report1" >/dev/null 2>&1
# how long a whole run takes here, so the kills spread over all of it
t0=$(date +%s%N)
"$import" --import "$tmp/timing" $NOW "$tmp"/many/* >/dev/null 2>&1
ms=$((($(date +%s%N) - t0) / 1000000))
bad=0
killed=0
leftover=0
round=0
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
while [ $round -lt 8 ]; do
	round=$((round + 1))
	before=$(git -C "$crash/git/0.git" rev-parse master)
	"$import" --import "$crash" $((NOW + round)) "$tmp"/many/* >"$tmp/crash.ids" 2>/dev/null &
	pid=$!
	sleep "$(awk -v r=$round -v ms=$ms 'BEGIN { srand(r * 7919 + '"$$"'); printf "%.3f", rand() * ms * 1.2 / 1000 }')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
	after=$(git -C "$crash/git/0.git" rev-parse master 2>&1)
	[ "$after" = "$before" ] && killed=$((killed + 1))
	ls "$crash/git/0.git/objects/pack" | grep -q '^tmp_pack_' && leftover=$((leftover + 1))
	last=$(tail -n 1 "$tmp/crash.ids" | cut -d' ' -f1)
	if [ "$after" != "$before" ] && [ "$after" != "$last" ]; then
		echo "  round $round: master $after is neither $before nor $last"
		bad=$((bad + 1))
	fi
	fsck_all "$crash" --garbage-ok || bad=$((bad + 1))
done
echo "  $killed of 8 runs (of about $ms ms each) were killed before master moved, $leftover with a pack half written"
check_eq "kill -9 leaves master at the old or the new tip, and git fsck clean" 0 "$bad"
before=$(git -C "$crash/git/0.git" rev-list --count master)
if "$import" --import "$crash" $NOW "$m/report2" >"$tmp/crash.ids" 2>"$tmp/err"; then
	check_eq "after the kills, the next run continues from master" "$((before + 1)) $before" \
		"$(git -C "$crash/git/0.git" rev-list --count master) $(git -C "$crash/git/0.git" rev-list --count master~1)"
	if fsck_all "$crash"; then ok "and removes what the killed runs left"; else not_ok "leftovers after the kills"; fi
else
	not_ok "after the kills: $(cat "$tmp/err")"
fi

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
