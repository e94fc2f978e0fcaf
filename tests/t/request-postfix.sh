#!/bin/sh
# request-postfix.sh: "#perfbot test" end to end through a real Postfix
# on 127.0.0.1.  A report goes out; Peter answers with a patch made by
# git format-patch and sent by `git send-email --in-reply-to` (the
# command below its "---" line, where notes go); Ingo answers from mutt
# with a patch attached; `perfbot ingest --maildir` takes both: each
# commit is under refs/perfbot/tests/N, its tree equal to `git am` of the
# same mail on the head commit; the job files are valid and `requests
# take` hands each out once; a mutt mail without a patch is refused, and
# the refusal is delivered through Postfix to its sender, threaded under
# the request.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
. "$top/tests/helpers/request-lib.sh"
request_start
request_need postfix mutt "$(git --exec-path)/git-send-email"
request_need_root

request_repo
request_postfix
{
	request_config "$tmp/s" "$pf_port"
	printf '[test]\n\tenabled = true\n'
	printf '[commands]\n\ttrusted = *@example.org\n'
} >"$tmp/c"

# 1. the report
request_report
wait_mail 1

# 2. Peter's patch, by git send-email --in-reply-to
request_patch "$tmp/fp1"
p1=$patch
git -C "$work" reset -q --hard "$head"
request_send_email "$p1"
check "git send-email: the patch went through Postfix" test $? -eq 0
wait_mail 2

# 3. Ingo's patch, attached by mutt
export GIT_AUTHOR_NAME="Ingo Molnar" GIT_AUTHOR_EMAIL=mingo@example.org
printf 'sched: one more line\n' >>"$work/log.txt"
git -C "$work" commit -q -a -m "sched: Note one more line

Signed-off-by: Ingo Molnar <mingo@example.org>"
git -C "$work" format-patch -q -o "$tmp/fp2" -1
p2=$(ls "$tmp"/fp2/0001-*)
cat >"$tmp/muttrc" <<RC
set smtp_url="smtp://127.0.0.1:$pf_port/"
set from="Ingo Molnar <mingo@example.org>"
set use_from=yes
set edit_headers=yes
set copy=no
set record=""
set ssl_starttls=no
set ssl_force_tls=no
set send_charset="utf-8"
RC
cat >"$tmp/draft" <<MAIL
To: perfbot@lab.example.org
Subject: Re: [tip:sched/core] [sched/fair]  bdc753ab0b: hackbench.throughput 7.2% regression
In-Reply-To: <$mid>
References: <$mid>

Peter's patch is one way; could you also test the attached one?

#perfbot test
MAIL
mutt -F "$tmp/muttrc" -H "$tmp/draft" -a "$p2" </dev/null >"$tmp/mutt.log" 2>&1
check "mutt: the mail with the attached patch went through Postfix" test $? -eq 0
wait_mail 3
cat >"$tmp/draft2" <<MAIL
To: perfbot@lab.example.org
Subject: Re: [tip:sched/core] [sched/fair]  bdc753ab0b: hackbench.throughput 7.2% regression
In-Reply-To: <$mid>
References: <$mid>

#perfbot test

I forgot the patch.
MAIL
mutt -F "$tmp/muttrc" -H "$tmp/draft2" </dev/null >"$tmp/mutt2.log" 2>&1
wait_mail 4

# 4. ingest
pb ingest --maildir "$maildir" 2>"$tmp/ingest.log"
check "ingest: exit 0" test $? -eq 0
check_eq "two requests accepted, one refused" \
	"$(pb requests --json | jq_py '" ".join("%s:%s" % (r["requested_by"]["email"], r["state"]) for r in d["requests"])')" \
	"peterz@example.org:pending mingo@example.org:pending mingo@example.org:refused"
check_eq "two commits under refs/perfbot/tests/" \
	"$(git -C "$repo" for-each-ref --format='%(refname)' refs/perfbot/tests/ | tr '\n' ' ')" \
	"refs/perfbot/tests/1 refs/perfbot/tests/2 "
# git am of the same mails, as received, on the head commit
n=0
for f in "$maildir"/new/* "$maildir"/cur/*; do
	[ -f "$f" ] || continue
	grep -q "#perfbot test" "$f" || continue
	grep -q "^From: perfbot" "$f" && continue
	grep -q "I forgot the patch" "$f" && continue
	if grep -q "^From: Peter" "$f"; then k=1; else k=2; fi
	git -C "$work" checkout -q "$head"
	if git -C "$work" am -q --scissors "$f" >/dev/null 2>&1; then
		check_eq "request $k: the commit's tree is git am's of the same mail" \
			"$(git -C "$repo" rev-parse "refs/perfbot/tests/$k^{tree}")" "$(git -C "$work" rev-parse 'HEAD^{tree}')"
	else
		git -C "$work" am --abort >/dev/null 2>&1
		not_ok "request $k: git am of the mail failed"
	fi
	n=$((n + 1))
done
check_eq "both request mails were compared" "$n" 2
# git am takes the subject of the mail, not of the attached patch's own
# header lines (they are not at the top of the message): so does perfbot
check_eq "request 2: the author and subject git am gives the mail" \
	"$(git -C "$repo" log -1 --format='%an|%s' refs/perfbot/tests/2)" \
	"Ingo Molnar|bdc753ab0b: hackbench.throughput 7.2% regression"

# 5. the job files, taken once each
pb requests take >"$tmp/t1.json"
pb requests take >"$tmp/t2.json"
pb requests take >"$tmp/t3.json"
rc3=$?
check_eq "take, take, take: 1, 2, then none (exit 1)" \
	"$(jq_py 'd["request"]' <"$tmp/t1.json") $(jq_py 'd["request"]' <"$tmp/t2.json") $rc3" "1 2 1"
check_eq "the job names the commit made, the report's head and its tests" \
	"$(jq_py '"%s %s %d" % (d["test"]["commit"], d["head"], len(d["tests"]))' <"$tmp/t2.json")" \
	"$(git -C "$repo" rev-parse refs/perfbot/tests/2) $head 2"

# 6. the refusal goes out through Postfix, to its sender, under the request
pb send 2>"$tmp/send2.log"
check_eq "send: the refusal went out" "$(grep -c '^sent ' "$tmp/send2.log")" 1
wait_mail 5
answer=$(grep -l "did not take this test request" "$maildir"/new/* "$maildir"/cur/* 2>/dev/null | head -n 1)
check "the refusal arrived" test -n "$answer"
req3=$(grep -l "I forgot the patch" "$maildir"/new/* "$maildir"/cur/* 2>/dev/null | head -n 1 | xargs grep -h -i "^Message-ID:" | sed 's/.*<\(.*\)>.*/\1/')
check "the refusal is In-Reply-To the request mail" grep -q "^In-Reply-To: <$req3>" "$answer"
check "the refusal goes to Ingo only" sh -c "grep -q '^To: Ingo Molnar <mingo@example.org>' '$answer' && ! grep -q '^Cc:' '$answer'"
check "the refusal says why" grep -q "because no patch was found in the mail" "$answer"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
