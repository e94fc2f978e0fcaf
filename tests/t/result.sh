#!/bin/sh
# result.sh: a fix test's result goes back into the thread (perfbot-requests(1),
# "Results"), with no mail server: a report goes to the scripted SMTP peer, a
# maintainer's "#perfbot test" with a patch is ingested from an mbox, a
# pipeline takes the job and writes the result JSON from it; queue and send
# deliver the reply: "Re:" the request's subject once, In-Reply-To the
# request mail, References the chain, To the requester, Cc the report's
# recipients, the verdict and Tested-by only when fixed; the request becomes
# answered (status, thread, requests, digest, --json).  Refused, each with
# the reason and exit 65, and nothing queued: a result whose base, commit or
# tested commit are not the request's, one for a request never taken, one
# for a request the state does not have.  A second result is threaded under
# the first; an error result says what failed; render previews a result
# from the state or, given --request FILE, from the job file alone.
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
{
	request_config "$state" "$peer_port" 3
	printf '[test]\n\tenabled = true\n'
} >"$tmp/c"
# the newest mail the peer took whose In-Reply-To is $1, as NAME.txt with
# LF line ends
peer_mail() {
	f=$(grep -l "^In-Reply-To: <$1>" "$tmp"/peer.out/*.raw 2>/dev/null | tail -1)
	[ -n "$f" ] && tr -d '\r' <"$f" >"$f.txt" && echo "$f.txt"
}

# 1. the report
request_report 1773100000

# 2. the request: a patch made with git format-patch on the head commit
export GIT_AUTHOR_DATE="1773200000 +0100" GIT_COMMITTER_DATE="1773200000 +0100"
request_patch "$tmp/fp"
python3 - "$tmp" "$mid" "$patch" <<'PY'
import sys
tmp, mid, fp = sys.argv[1:]
body = open(fp).read().split("\n", 1)[1].split("\n\n", 1)[1]
def mail(n, text, subject="Re: [tip:sched/core] [sched/fair] bdc753ab0b: hackbench.throughput regression"):
    return ("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Peter Zijlstra <peterz@example.org>\n"
            "To: perfbot lab <perfbot@lab.example.org>\nSubject: %s\n"
            "Date: Wed, 11 Mar 2026 10:00:00 +0100\nMessage-ID: <req%d@example.org>\nIn-Reply-To: <%s>\n"
            "References: <%s>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n%s\n") % (subject, n, mid, mid, text)
one = mail(1, "#perfbot test\n\nDoes this help?\n\n-- >8 --\nSubject: [PATCH] sched/fair: Keep the previous CPU for idle wakeups\n\n" + body)
two = mail(2, "#perfbot test: " + "bdc753ab0b72\n")
open(tmp + "/replies.mbox", "w").write(one + two)
PY
PERFBOT_NOW=1773220000 pb ingest --mbox "$tmp/replies.mbox" 2>"$tmp/ingest.log"
check "ingest: request 1 accepted" grep -q "request 1: commit" "$tmp/ingest.log"
check "ingest: request 2 accepted" grep -q "request 2: commit" "$tmp/ingest.log"
tested=$(git -C "$repo" rev-parse refs/perfbot/tests/1)
pb requests take 1 >"$tmp/job1.json"
check_eq "take: request 1's job" "$(jq_py 'd["request"]' <"$tmp/job1.json")" 1
check_eq "the job names the request mail's subject and References" \
	"$(jq_py 'd["request_subject"] + "|" + d["request_references"]' <"$tmp/job1.json")" \
	"Re: [tip:sched/core] [sched/fair] bdc753ab0b: hackbench.throughput regression|$mid"

# 3. the pipeline: a result JSON written from the job file, with the
# numbers of its three kernels (base, head, head + patch)
result() {
	# result JOB OUT TESTED_MEAN [KEY=VALUE...]: KEY base/commit/tested/request/error override
	python3 - "$@" <<'PY'
import json, sys
job, out, mean = json.load(open(sys.argv[1])), sys.argv[2], float(sys.argv[3])
over = dict(a.split("=", 1) for a in sys.argv[4:])
t0 = job["tests"][0]
test = {k: t0[k] for k in ("testcase", "tbox_group", "machine", "kconfig", "compiler", "rootfs", "params", "headline")}
d = {"perfbot": 1, "tree": job["tree"], "repo_url": "https://git.kernel.org/pub/scm/linux/kernel/git/tip/tip.git",
     "base": over.get("base", job["base"]), "commit": over.get("commit", job["head"]),
     "request": int(over.get("request", job["request"])),
     "extra": [{"commit": over.get("tested", job["test"]["commit"]), "label": "fix patch"}],
     "tests": [test]}
if "error" in over:
    d["error"] = over["error"].replace("\\n", "\n")
else:
    test["metrics"] = [
        {"name": "hackbench.throughput", "base": {"mean": 412000, "stddev_percent": 0.5},
         "head": {"mean": 382000, "stddev_percent": 1.2},
         "extra": [{"mean": mean, "stddev_percent": 0.8}]},
        {"name": "hackbench.time.voluntary_context_switches", "base": {"mean": 1.0e8},
         "head": {"mean": 1.6e8}, "extra": [{"mean": 1.1e8}]},
    ]
json.dump(d, open(out, "w"), indent=1)
PY
}
result "$tmp/job1.json" "$tmp/fixed.json" 411000

# refusals first: nothing of them may reach the outbox
result "$tmp/job1.json" "$tmp/bad-base.json" 411000 base=bdc753ab0b72
result "$tmp/job1.json" "$tmp/bad-commit.json" 411000 commit=v6.99-rc3
result "$tmp/job1.json" "$tmp/bad-tested.json" 411000 tested=bdc753ab0b72
result "$tmp/job1.json" "$tmp/pending.json" 411000 request=2 tested=bdc753ab0b72
result "$tmp/job1.json" "$tmp/unknown.json" 411000 request=9
for f in bad-base bad-commit bad-tested pending unknown; do
	pb queue "$tmp/$f.json" 2>"$tmp/$f.err"
	echo $? >"$tmp/$f.rc"
done
check_eq "queue: a base that is not the request's: exit 65" "$(cat "$tmp/bad-base.rc")" 65
check "... with the reason" grep -q "bad-base.json: base bdc753ab0b72 is not request 1's base $(echo "$base" | cut -c1-12): a result never lands in the wrong thread" "$tmp/bad-base.err"
check_eq "queue: a commit that is not the request's head: exit 65" "$(cat "$tmp/bad-commit.rc")" 65
check "... with the reason" grep -q "commit [0-9a-f]\{12\} is not request 1's reported commit $(echo "$head" | cut -c1-12)" "$tmp/bad-commit.err"
check_eq "queue: a tested commit that is not the request's: exit 65" "$(cat "$tmp/bad-tested.rc")" 65
check "... with the reason" grep -q "the commit tested $(echo "$head" | cut -c1-12) (the last of \"extra\") is not request 1's commit $(echo "$tested" | cut -c1-12)" "$tmp/bad-tested.err"
check_eq "queue: a result for a request not taken: exit 65" "$(cat "$tmp/pending.rc")" 65
check "... with the reason" grep -q "request 2 is pending: only a request a pipeline took" "$tmp/pending.err"
check_eq "queue: a result for a request the state lacks: exit 65" "$(cat "$tmp/unknown.rc")" 65
check "... with the reason" grep -q "request 9 is not in the state" "$tmp/unknown.err"
PERFBOT_NOW=1773230000 pb send "$tmp/bad-base.json" "$tmp/pending.json" 2>"$tmp/send-bad.log"
check "send refuses them too, with the reason" sh -c "grep -q 'refused .*bad-base.json: .*base bdc753ab0b72 is not request 1' '$tmp/send-bad.log' && grep -q 'refused .*pending.json: .*request 2 is pending' '$tmp/send-bad.log'"
check_eq "nothing of them was queued; the requests are as they were" \
	"$(sqlite3_py "$state/state.db" "SELECT (SELECT COUNT(*) FROM reports WHERE in_reply_to LIKE 'req%'), group_concat(state) FROM requests")" \
	"0|taken,pending"

# 4. the result: queue, send
pb render "$tmp/fixed.json" --date '2026-03-12 10:00:00' >"$tmp/preview.eml" 2>"$tmp/preview.err"
check "render previews the result from the state" grep -q "^In-Reply-To: <req1@example.org>" "$tmp/preview.eml"
cp "$tmp/fixed.json" "$tmp/fixed.keep.json"	# queue moves it into the spool
pb queue "$tmp/fixed.json" 2>"$tmp/queue.err"
check_eq "queue takes the result" "$?" 0
PERFBOT_NOW=1773300000 pb send 2>"$tmp/send-result.log"
check "send queues it as request 1's result, fixed" grep -q "queued report [0-9]* <[^>]*> (result of request 1, fixed) Re: \[tip:sched/core\]" "$tmp/send-result.log"
check "... and delivers it" grep -q "^sent notice <[^>]*> to 4 of 4 recipients" "$tmp/send-result.log"
got=$(peer_mail req1@example.org)
check "the peer has the reply to the request mail" test -n "$got"
: "${got:=/dev/null}"
check_eq "Subject: Re: the request's subject, once" "$(hdr "$got" Subject)" \
	"Re: [tip:sched/core] [sched/fair] bdc753ab0b: hackbench.throughput regression"
check_eq "References: the chain, then the request mail" "$(hdr "$got" References)" "<$mid> <req1@example.org>"
check_eq "To: the requester" "$(hdr "$got" To)" "Peter Zijlstra <peterz@example.org>"
check_eq "Cc: the report's recipients, the requester not again" "$(hdr "$got" Cc)" \
	"$(hdr "$tmp/peer.out/1.raw" To), $(hdr "$tmp/peer.out/1.raw" Cc | sed 's/, Peterz@Example.org//')"
check "the verdict with its numbers" grep -q "^    hackbench.throughput recovered: from -7.3% to -0.2%$" "$got"
check "what was tested: the patch on the reported commit, from whom, which mail" sh -c \
	"grep -q '^  tested:    $(echo "$tested" | cut -c1-12) = $(echo "$head" | cut -c1-12) + \"sched/fair: Keep the previous CPU for idle wakeups\"' '$got' && grep -q 'from Peter Zijlstra <peterz@example.org> in <req1@example.org>' '$got'"
check "Tested-by: perfbot.reportedBy, as it is fixed" grep -q "^Tested-by: perfbot lab <perfbot@lab.example.org>$" "$got"
rmid=$(hdr "$got" Message-ID | tr -d '<>')

# 5. the request's state
check_eq "the request is answered, fixed, with the result's Message-ID" \
	"$(sqlite3_py "$state/state.db" "SELECT state, verdict, result_message_id, results FROM requests WHERE id = 1")" \
	"answered|fixed|$rmid|1"
pb requests >"$tmp/list.txt"
check "requests lists it answered, with its verdict" grep -q "^1  answered  .*: fixed, result <$rmid>" "$tmp/list.txt"
pb status >"$tmp/status.txt"
check "status: answered, fixed, the result" grep -q "test request 1 answered: .*: fixed, result <$rmid>" "$tmp/status.txt"
check_eq "status --json: verdict and result_message_id" \
	"$(pb status --json | jq_py '"%s %s %s" % ((lambda r: (r["verdict"], r["result_message_id"], r["results"]))(d["reports"][0]["requests"][0]))')" \
	"fixed $rmid 1"
pb thread "$mid" >"$tmp/thread.txt"
check "thread: the result under the request mail" sh -c "sed -n 2,3p '$tmp/thread.txt' | grep -q '^2026-03-12 [0-9:]*   \` perfbot lab  Re: \[tip:sched/core\]'"
check "thread: the request answered, fixed, the result" grep -q "^1  answered  .*: fixed, result <$rmid>" "$tmp/thread.txt"
check_eq "thread --json: the request's verdict" "$(pb thread --json "$mid" | jq_py 'd["requests"][0]["verdict"]')" "fixed"
PERFBOT_NOW=1773300100 pb digest --dry-run --to lab@example.org >"$tmp/digest.mbox" 2>/dev/null
check "digest: the request with its verdict" grep -q "test request 1, answered: .*: fixed$" "$tmp/digest.mbox"

# 6. a second result (a second run): threaded under the first
result "$tmp/job1.json" "$tmp/partial.json" 395000
pb queue "$tmp/partial.json" 2>"$tmp/queue2.err"
check_eq "queue takes a second result" "$?" 0
PERFBOT_NOW=1773400000 pb status >"$tmp/status2.txt"
check "status: a result in the spool goes at the next send (never coalesced)" \
	sh -c "grep -q 'partial.json: goes at the next send' '$tmp/status2.txt' && ! grep -q 'partial.json: coalescing' '$tmp/status2.txt'"
PERFBOT_NOW=1773400000 pb send 2>"$tmp/send2.log"
check "send: the second result, partial" grep -q "(result of request 1, partial)" "$tmp/send2.log"
got2=$(peer_mail "$rmid")
check "the second result answers the first" test -n "$got2"
: "${got2:=/dev/null}"
check_eq "its References: the chain, the request, the first result" "$(hdr "$got2" References)" \
	"<$mid> <req1@example.org> <$rmid>"
check "partial: the words with the numbers" grep -q "^    hackbench.throughput partially recovered: from -7.3% to -4.1%$" "$got2"
check "partial: no Tested-by" sh -c "! grep -q '^Tested-by:' '$got2'"
check_eq "the request: newest verdict, the first result kept, two results" \
	"$(sqlite3_py "$state/state.db" "SELECT verdict, result_message_id, results FROM requests WHERE id = 1")" \
	"partial|$rmid|2"

# 7. an error result: says what failed, with the commit; no verdict
result "$tmp/job1.json" "$tmp/error.json" 0 'error=make: *** [Makefile:1234: vmlinux] Error 2\nld: kernel/sched/fair.o: undefined reference'
pb queue "$tmp/error.json" 2>"$tmp/queue3.err"
check_eq "queue takes an error result" "$?" 0
PERFBOT_NOW=1773500000 pb send 2>"$tmp/send3.log"
check "send: the error result" grep -q "(result of request 1, error)" "$tmp/send3.log"
got3=$(peer_mail "$rmid")
check "it names the commit and quotes the log" sh -c "grep -q 'could not test $(echo "$tested" | cut -c1-12)' '$got3' && grep -q '^    ld: kernel/sched/fair.o: undefined reference$' '$got3' && ! grep -q '^Tested-by:' '$got3'"
check_eq "the request's verdict: error" "$(sqlite3_py "$state/state.db" "SELECT verdict, results FROM requests WHERE id = 1")" "error|3"

# 8. render --request FILE: the state does not have the request
sed "s|$state|$tmp/no-state|" "$tmp/c" >"$tmp/c-nostate"
"$perfbot" --config "$tmp/c-nostate" render "$tmp/fixed.keep.json" >/dev/null 2>"$tmp/nostate.err"
check_eq "render without state or --request: exit 65" "$?" 65
check "... saying to give the job file" grep -q "give its job file with --request FILE" "$tmp/nostate.err"
"$perfbot" --config "$tmp/c-nostate" render --request "$tmp/job1.json" --date '2026-03-12 10:00:00' \
	"$tmp/fixed.keep.json" >"$tmp/from-job.eml" 2>"$tmp/from-job.err"
check_eq "render --request FILE: exit 0" "$?" 0
check "... the very mail render made from the state (headers, the patch and its requester)" \
	cmp -s "$tmp/from-job.eml" "$tmp/preview.eml"
check "no state was made" test ! -e "$tmp/no-state"
"$perfbot" --config "$tmp/c-nostate" render --request "$tmp/job1.json" "$tmp/bad-base.json" >/dev/null 2>"$tmp/job-bad.err"
check_eq "render --request FILE refuses a mismatch: exit 65" "$?" 65

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
