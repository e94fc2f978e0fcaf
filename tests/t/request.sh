#!/bin/sh
# request.sh: "#perfbot test" from a maintainer's mail to a commit and a
# job file, with no mail server: a report goes to the scripted SMTP peer,
# replies are ingested from an mbox.  Accepted: a patch made with git
# format-patch (the commit under refs/perfbot/tests/N has the tree `git am`
# makes of the same mail on the head commit), a commit of the repository,
# a git URL and branch wrapped onto the next line.  Refused, each with its
# reason recorded: a stranger, no patch, a wrapped hunk, a patch that does
# not apply (file and hunk named), over test.maxOpen, test.enabled off, a
# second request in one mail.  The job file is valid; `requests take`
# hands each out once, also to two pipelines racing; `requests drop`.  A
# run that dies before its transaction commits (the commit, the ref and
# the file made, the state not: once by restoring the state, once by a
# real kill -9 that strace delivers at the job folder's fsync) is
# ingested again into one request, one commit, one file.  Refusals are
# answered once, to the requester; status, thread and digest show the
# requests.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
. "$top/tests/helpers/request-lib.sh"
request_start
request_need python3 git
request_repo
smtp_peer_start "$tmp/peer"
state=$tmp/state
request_config "$state" "$peer_port" 3 >"$tmp/c"
cp "$tmp/c" "$tmp/c-off"
printf '[test]\n\tenabled = true\n' >>"$tmp/c"

# 1. the report
request_report 1773100000

# 2. the patches, made with git format-patch on the head commit
export GIT_AUTHOR_DATE="1773200000 +0100" GIT_COMMITTER_DATE="1773200000 +0100"
request_patch "$tmp/fp" --base="$head"
sed -i '1s/^.*$/the first line of log.txt as nobody wrote it/' "$work/log.txt"
git -C "$work" commit -q -a -m "log: a line that is not there"
git -C "$work" format-patch -q -o "$tmp/fp-bad" -1
fp=$patch
fpbad=$(ls "$tmp"/fp-bad/0001-*)

python3 - "$tmp" "$mid" "$fp" "$fpbad" "$head" <<'PY'
import sys
tmp, mid, fp, fpbad, head = sys.argv[1:]
fp = open(fp).read().split("\n", 1)[1]
body = fp.split("\n\n", 1)[1]
bad = open(fpbad).read().split("\n", 1)[1].split("\n\n", 1)[1]
n = [0]
def mail(frm, text, date="Wed, 11 Mar 2026 10:00:00 +0100"):
    n[0] += 1
    return ("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: %s\nTo: perfbot lab <perfbot@lab.example.org>\n"
            "Subject: Re: [tip:sched/core] [sched/fair] bdc753ab0b: hackbench.throughput regression\n"
            "Date: %s\nMessage-ID: <req%d@example.org>\nIn-Reply-To: <%s>\nReferences: <%s>\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n%s\n") % (frm, date, n[0], mid, mid, text)
peter = "Peter Zijlstra <peterz@example.org>"
quote = "On Tue, Mar 10, 2026, perfbot lab wrote:\n> kernel test robot noticed a 7.2% regression\n\n"
one = [
    mail(peter, quote + "#perfbot test\n\nDoes this help?\n\n-- >8 --\nSubject: [PATCH] sched/fair: Keep the previous CPU for idle wakeups\n\n" + body),
    mail("Mallory <mallory@example.com>", quote + "#perfbot test\n\n-- >8 --\n" + body),
    mail(peter, quote + "#perfbot test\n\nI will send the patch later.\n"),
    mail(peter, quote + "#perfbot test\n\n" + body.replace(" Synchronous wakeups", " Synchronous\nwakeups").replace("+sched/fair: wake up on the previous CPU when it is idle", "+sched/fair: wake up on the previous CPU\nwhen it is idle")),
    mail(peter, quote + "#perfbot test\n\n-- >8 --\n" + bad),
    mail(peter, quote + "#perfbot test: " + head[:12] + "\n"),
    mail(peter, quote + "#perfbot test: https://git.kernel.org/pub/scm/linux/kernel/git/peterz/queue.git\nsched/core\n"),
    mail(peter, quote + "#perfbot test: " + head + "\n"),
    mail(peter, quote + "#perfbot test\n#perfbot test: " + head + "\n"),
]
# no request, no answer: an auto-reply quoting the command, perfbot's own mail
one.append(mail(peter, "I am away.\n\n#perfbot test\n").replace("MIME-Version", "Auto-Submitted: auto-replied\nMIME-Version"))
one.append(mail("perfbot lab <perfbot@lab.example.org>", "#perfbot test\n"))
open(tmp + "/replies.mbox", "w").write("".join(one))
# the first one alone, for git am
open(tmp + "/req1.eml", "w").write(one[0].split("\n", 1)[1])
PY

# 3. a run killed before its transaction commits: the commit, the ref and
# the file are made, the state is not (state.db as it was before)
cp -a "$state" "$tmp/state.before"
head -c "$(grep -b -m2 '^From mboxrd' "$tmp/replies.mbox" | tail -1 | cut -d: -f1)" "$tmp/replies.mbox" >"$tmp/first.mbox"
PERFBOT_NOW=1773220000 pb ingest --mbox "$tmp/first.mbox" 2>"$tmp/ingest0.log"
check "ingest: the first request is accepted" grep -q "#perfbot test by Peter Zijlstra <peterz@example.org>: request 1: commit [0-9a-f]\{40\} on refs/perfbot/tests/1" "$tmp/ingest0.log"
commit0=$(git -C "$repo" rev-parse refs/perfbot/tests/1)
mv "$state/requests" "$tmp/requests.left"
rm -rf "$state"
cp -a "$tmp/state.before" "$state"
mv "$tmp/requests.left" "$state/requests"
check_eq "as killed: the state knows no request" "$(sqlite3_py "$state/state.db" 'SELECT COUNT(*) FROM requests')" 0
check "as killed: the job file was left" test -f "$state/requests/pending/1.json"

# 4. ingest everything
PERFBOT_NOW=1773220000 pb ingest --mbox "$tmp/replies.mbox" 2>"$tmp/ingest.log"
check_eq "ingest again: one request 1, one commit, one file" \
	"$(sqlite3_py "$state/state.db" "SELECT COUNT(*) FROM requests WHERE message_id = 'req1@example.org'") $(git -C "$repo" rev-parse refs/perfbot/tests/1) $(ls "$state/requests/pending" | grep -c '^1\.json$')" \
	"1 $commit0 1"
check_eq "the refs made: request 1 only (the others name no patch to commit)" \
	"$(git -C "$repo" for-each-ref --format='%(refname)' refs/perfbot/tests/)" "refs/perfbot/tests/1"
# the commit's tree is git am's of the same mail on the head commit
git -C "$work" checkout -q "$head"
git -C "$work" am -q --scissors "$tmp/req1.eml" >/dev/null 2>&1
check_eq "the commit's tree is git am's" "$(git -C "$repo" rev-parse refs/perfbot/tests/1^{tree})" \
	"$(git -C "$work" rev-parse HEAD^{tree})"
check_eq "its parent is the head commit" "$(git -C "$repo" rev-parse refs/perfbot/tests/1^)" "$head"
git -C "$repo" log -1 --format='%an <%ae>|%cn <%ce>|%s' refs/perfbot/tests/1 >"$tmp/who"
check_eq "author the patch's, committer perfbot.from, the patch's subject" "$(cat "$tmp/who")" \
	"Peter Zijlstra <peterz@example.org>|perfbot lab <perfbot@lab.example.org>|sched/fair: Keep the previous CPU for idle wakeups"
check_eq "the message ends with a Link: to the request mail" \
	"$(git -C "$repo" log -1 --format=%B refs/perfbot/tests/1 | sed '/^$/d' | tail -1)" \
	"Link: https://lore.kernel.org/all/req1@example.org"

# what became of each
sqlite3_py "$state/state.db" "SELECT message_id, state, what, IFNULL(commit_id, ''), IFNULL(url, ''), IFNULL(branch, ''), IFNULL(why, '') FROM requests ORDER BY id" >"$tmp/requests"
row() { grep "^req$1@example.org|" "$tmp/requests"; }
check "2: a stranger is refused" sh -c "grep -q '^req2@example.org|refused|patch||||from mallory@example.com, who is not among' '$tmp/requests'"
check "3: no patch is refused" sh -c "grep -q '^req3@example.org|refused|patch||||no patch was found' '$tmp/requests'"
check "4: a wrapped hunk is refused naming file, hunk, line" sh -c "grep -q '^req4@example.org|refused|patch||||the patch cannot be tested: log.txt: hunk 1 (@@ .* @@) at line [0-9]* of the patch' '$tmp/requests'"
check "5: a patch that does not apply is refused naming file and hunk" sh -c "grep -q '^req5@example.org|refused|patch||||the patch does not apply: log.txt: hunk 1 (@@ -1,.* @@) does not apply' '$tmp/requests'"
check_eq "6: a commit of the repository is accepted" "$(row 6)" "req6@example.org|pending|commit|$head|||"
check_eq "7: a git URL and its branch wrapped onto the next line" "$(row 7)" \
	"req7@example.org|pending|git||https://git.kernel.org/pub/scm/linux/kernel/git/peterz/queue.git|sched/core|"
check "8: over test.maxOpen (3 open) is refused" sh -c "grep -q '^req8@example.org|refused|commit||||the report has 3 requests not yet answered' '$tmp/requests'"
check_eq "the refusals are recorded as commands not applied" \
	"$(sqlite3_py "$state/state.db" "SELECT COUNT(*) FROM commands WHERE name = 'test' AND applied = 0")" 7
check "9: a second request in one mail is refused" sh -c "python3 -c \"import sqlite3,sys; c=sqlite3.connect('$state/state.db'); sys.exit(0 if c.execute(\\\"SELECT why FROM commands WHERE message_id = 'req9@example.org' AND applied = 0\\\").fetchall() else 1)\""

# the answers: one per refused request mail, to the requester only,
# threaded under the request mail; none for the auto-reply or perfbot's own
sqlite3_py "$state/state.db" "SELECT in_reply_to, to_addrs, cc_addrs, subject FROM reports WHERE kind = 'notice' ORDER BY in_reply_to" >"$tmp/answers"
check_eq "answers: one to each refused request mail, nothing else" \
	"$(cut -d'|' -f1 "$tmp/answers" | tr '\n' ' ')" \
	"req2@example.org req3@example.org req4@example.org req5@example.org req8@example.org req9@example.org "
check_eq "answers go to the requester only, Re: once" "$(grep '^req2' "$tmp/answers")" \
	"req2@example.org|mallory@example.com||Re: [tip:sched/core] [sched/fair] bdc753ab0b: hackbench.throughput regression"
python3 -c 'import sqlite3,sys; sys.stdout.buffer.write(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
	"$state/state.db" "SELECT m.mail FROM reports r JOIN report_mails m ON m.report_id = r.id WHERE r.in_reply_to = 'req5@example.org'" >"$tmp/answer5.eml"
check "the answer says why (file and hunk) and what to do" sh -c "grep -q '^  #perfbot test\$' '$tmp/answer5.eml' && grep -q 'because the patch does not apply: log.txt: hunk 1' '$tmp/answer5.eml' && grep -q '^To ask again, reply' '$tmp/answer5.eml'"
check "the answer's References end with the request mail" grep -q "^References: <$mid> <req5@example.org>" "$tmp/answer5.eml"
PERFBOT_NOW=1773220100 pb ingest --mbox "$tmp/replies.mbox" 2>"$tmp/ingest-again.log"
check_eq "ingested again: no second answer" \
	"$(sqlite3_py "$state/state.db" "SELECT COUNT(*) FROM reports WHERE kind = 'notice'")" 6
PERFBOT_NOW=1773220200 pb send 2>"$tmp/send2.log"
check_eq "send delivers the six answers" "$(grep -c '^sent ' "$tmp/send2.log")" 6

# 5. the job file
python3 - "$state/requests/pending/1.json" "$mid" "$head" "$base" "$commit0" >"$tmp/job.check" <<'PY'
import json, sys
path, mid, head, base, commit = sys.argv[1:]
d = json.load(open(path))
want = {"perfbot": 1, "request": 1, "report": 1, "report_message_id": mid,
        "request_message_id": "req1@example.org",
        "requested_by": {"name": "Peter Zijlstra", "email": "peterz@example.org"},
        "requested": "2026-03-11T09:00:00Z", "tree": "tip/sched/core", "base": base, "head": head,
        "test": {"commit": commit}}
bad = [k for k in want if d.get(k) != want[k]]
t = d["tests"]
if len(t) != 2 or t[0]["testcase"] != "hackbench" or t[0]["headline"] != "hackbench.throughput" \
   or t[0]["params"].get("mode") != "process" or set(t[0]) != {"testcase", "tbox_group", "machine", "kconfig", "compiler", "rootfs", "params", "headline"}:
    bad.append("tests")
print("ok" if not bad else "bad: %s %r" % (bad, d))
PY
check_eq "the job file holds what perfbot-json(5) says" "$(cat "$tmp/job.check")" ok

# 6. requests, take, drop
pb requests --json >"$tmp/list.json"
check_eq "requests --json lists all nine with their states" \
	"$(python3 -c 'import json,sys; print(" ".join(r["state"] for r in json.load(open(sys.argv[1]))["requests"]))' "$tmp/list.json")" \
	"pending refused refused refused refused pending pending refused refused"
pb requests take >"$tmp/take1.json"
check_eq "take: the oldest pending one, its JSON printed" "$(jq_py 'd["request"]' <"$tmp/take1.json")" 1
check "take: its file moved to taken/" test -f "$state/requests/taken/1.json" -a ! -f "$state/requests/pending/1.json"
# two pipelines racing for the two left
( pb requests take >"$tmp/race1.json" 2>/dev/null; echo $? >"$tmp/race1.rc" ) &
p1=$!
( pb requests take >"$tmp/race2.json" 2>/dev/null; echo $? >"$tmp/race2.rc" ) &
p2=$!
wait $p1 $p2
got=$(for f in race1 race2; do [ "$(cat "$tmp/$f.rc")" = 0 ] && jq_py 'd["request"]' <"$tmp/$f.json"; done | sort | tr '\n' ' ')
check_eq "two racing pipelines take 6 and 7, each once" "$got" "6 7 "
pb requests take >"$tmp/none.out" 2>"$tmp/none.err"
check_eq "take with nothing pending: exit 1, nothing printed" "$?:$(wc -c <"$tmp/none.out")" "1:0"
pb requests drop 7 --why "the branch is gone" >"$tmp/drop.out" 2>"$tmp/drop.err"
check_eq "drop: ends a taken request with its reason" \
	"$(sqlite3_py "$state/state.db" 'SELECT state, why FROM requests WHERE id = 7')" "dropped|the branch is gone"
pb requests >"$tmp/list.txt"
check "requests: a line per request with who, what and state" \
	grep -q "^1  taken  .*Peter Zijlstra <peterz@example.org>  patch $(echo "$commit0" | cut -c1-12)" "$tmp/list.txt"

# seen in status and thread
pb status >"$tmp/status.txt"
check "status: each request under its report, with its state and commit" \
	grep -q "test request 1 taken: 2026-03-11T09:00:00Z  Peter Zijlstra <peterz@example.org>  patch $(echo "$commit0" | cut -c1-12) (\"sched/fair: Keep the previous CPU for idle wakeups\")" "$tmp/status.txt"
check "status: a refused one says why" grep -q "test request 3 refused: .*: no patch was found in the mail" "$tmp/status.txt"
check_eq "status --json: the report's requests" \
	"$(pb status --json | jq_py '" ".join(r["state"] for r in d["reports"][0]["requests"])')" \
	"taken refused refused refused refused taken dropped refused refused"
check_eq "thread --json: the thread's requests" \
	"$(pb thread --json 1 | jq_py '" ".join("%d:%s" % (r["request"], r["state"]) for r in d["requests"][:2])')" \
	"1:taken 2:refused"
pb thread 1 >"$tmp/thread.txt"
check "thread: the requests after the commands" grep -q "^7  dropped  report 1  .*git https://git.kernel.org/pub/scm/linux/kernel/git/peterz/queue.git sched/core: the branch is gone" "$tmp/thread.txt"

pb digest --dry-run --to digest@example.org >"$tmp/digest.mbox" 2>"$tmp/digest.err"
check "digest: the open report's requests" grep -q "^  test request 1, taken: $(echo "$commit0" | cut -c1-12) by Peter Zijlstra <peterz@example.org>$" "$tmp/digest.mbox"
check "digest: a refused one with why" grep -q "^  test request 2, refused: the patch in the mail by Mallory <mallory@example.com> (from mallory@example.com, who is not" "$tmp/digest.mbox"

# 7. test.enabled off: refused with that reason
"$perfbot" --config "$tmp/c-off" ingest --mbox /dev/null >/dev/null 2>&1
python3 - "$tmp" "$mid" <<'PY'
import sys
tmp, mid = sys.argv[1:]
open(tmp + "/off.mbox", "w").write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Peter Zijlstra <peterz@example.org>\n"
  "Subject: Re: x\nDate: Thu, 12 Mar 2026 10:00:00 +0100\nMessage-ID: <off@example.org>\nIn-Reply-To: <%s>\n\n"
  "#perfbot test: bdc753ab0b72\n" % mid)
PY
"$perfbot" --config "$tmp/c-off" ingest --mbox "$tmp/off.mbox" 2>"$tmp/off.log"
check "test.enabled off: refused, saying so" grep -q "not applied: this lab does not take test requests (test.enabled is off)" "$tmp/off.log"

check_eq "test.enabled off: the refusal is answered" \
	"$(sqlite3_py "$state/state.db" "SELECT to_addrs FROM reports WHERE kind = 'notice' AND in_reply_to = 'off@example.org'")" \
	"peterz@example.org"

# the robot's words when reports are rendered with lkp
cp "$tmp/c-off" "$tmp/c-lkp"
printf '[perfbot]\n\ttemplate = lkp\n' >>"$tmp/c-lkp"
sed "s/off@example.org/lkp@example.org/" "$tmp/off.mbox" >"$tmp/lkp.mbox"
"$perfbot" --config "$tmp/c-lkp" ingest --mbox "$tmp/lkp.mbox" 2>/dev/null
python3 -c 'import sqlite3,sys; sys.stdout.buffer.write(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
	"$state/state.db" "SELECT m.mail FROM reports r JOIN report_mails m ON m.report_id = r.id WHERE r.in_reply_to = 'lkp@example.org'" >"$tmp/lkp.eml" 2>/dev/null
check "lkp flavour: the refusal in the robot's words" sh -c "grep -q '^kernel test robot could not test the patch you asked for:' '$tmp/lkp.eml' && grep -q '^0-DAY CI Kernel Test Service' '$tmp/lkp.eml'"

# 8. test.acknowledge: an accepted request gets its one line
cp "$tmp/c" "$tmp/c-ack"
printf '\tacknowledge = true\n' >>"$tmp/c-ack"
sed "s/off@example.org/ack@example.org/" "$tmp/off.mbox" >"$tmp/ack.mbox"
"$perfbot" --config "$tmp/c-ack" ingest --mbox "$tmp/ack.mbox" 2>"$tmp/ack.log"
python3 -c 'import sqlite3,sys; sys.stdout.buffer.write(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
	"$state/state.db" "SELECT m.mail FROM reports r JOIN report_mails m ON m.report_id = r.id WHERE r.in_reply_to = 'ack@example.org'" >"$tmp/ack.eml" 2>/dev/null
check "test.acknowledge: one line naming the commit" grep -q "^perfbot lab will test commit $(echo "$head" | cut -c1-12) as request 12\.$" "$tmp/ack.eml"

# 9. a real kill -9 in the middle of ingesting a request mail (strace
# delivers SIGKILL at a chosen system call): at the fsync of the job
# folder right after the job file's rename, when the commit, the ref and
# the file are made and the state is not; ingest again: one request, one
# commit, one file
cp "$tmp/c" "$tmp/c-kill"
printf '\tmaxOpen = 100\n' >>"$tmp/c-kill"
if command -v strace >/dev/null 2>&1; then
	pk() { "$perfbot" --config "$tmp/c-kill" "$@"; }
	n1=$(( $(sqlite3_py "$state/state.db" 'SELECT MAX(id) FROM requests') + 1 ))
	# a patch request, killed after the commit, the ref and the file
	python3 - "$tmp" "$mid" "$tmp/req1.eml" <<'PY'
import sys
tmp, mid, req1 = sys.argv[1:]
body = open(req1).read().split("\n\n", 1)[1]
open(tmp + "/kill2.mbox", "w").write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Peter Zijlstra <peterz@example.org>\n"
  "Subject: Re: x\nDate: Fri, 13 Mar 2026 10:00:00 +0100\nMessage-ID: <kill2@example.org>\nIn-Reply-To: <%s>\n\n%s" % (mid, body))
PY
	n2=$n1
	strace -f -o /dev/null -P "$state/requests/pending" -e trace=fsync \
		-e inject=fsync:signal=KILL:when=1 \
		"$perfbot" --config "$tmp/c-kill" ingest --mbox "$tmp/kill2.mbox" >/dev/null 2>&1
	c1=$(git -C "$repo" rev-parse --verify -q "refs/perfbot/tests/$n2")
	check_eq "killed after the job file's rename: the commit and the file, no request" \
		"$(sqlite3_py "$state/state.db" "SELECT COUNT(*) FROM requests WHERE message_id = 'kill2@example.org'") $(ls "$state/requests/pending" | grep -c "^$n2\.json\$") ${c1:+ref}" "0 1 ref"
	pk ingest --mbox "$tmp/kill2.mbox" >/dev/null 2>&1
	check_eq "ingested again: one request, the same commit, one file" \
		"$(sqlite3_py "$state/state.db" "SELECT COUNT(*) FROM requests WHERE message_id = 'kill2@example.org'") $(git -C "$repo" rev-parse "refs/perfbot/tests/$n2") $(ls "$state/requests/pending" | grep -c "^$n2\.json\$")" \
		"1 $c1 1"
	check_eq "the job file names that commit" "$(jq_py 'd["test"]["commit"]' <"$state/requests/pending/$n2.json")" "$c1"
else
	echo "skip: strace is not installed, so no kill -9 at a chosen point"
fi

# 10. a report of an improvement takes no fix test
PERFBOT_NOW=1773300000 pb send "$top/tests/golden/improvement-derived-kind/input.json" 2>"$tmp/send-imp.log"
imp=$(pb status --json | jq_py '[r["message_id"] for r in d["reports"] if r["kind"] == "report"][-1]')
sed -e "s/off@example.org/imp@example.org/" -e "s/<$mid>/<$imp>/" "$tmp/off.mbox" >"$tmp/imp.mbox"
"$perfbot" --config "$tmp/c-kill" ingest --mbox "$tmp/imp.mbox" 2>"$tmp/imp.log"
check "an improvement report's request is refused, saying so" \
	grep -q "not applied: the report is not of a regression: fix tests are taken for regression reports only" "$tmp/imp.log"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
