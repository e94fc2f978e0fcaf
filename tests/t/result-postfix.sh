#!/bin/sh
# result-postfix.sh: fix testing's whole loop through a real Postfix on
# 127.0.0.1, from the report to "Tested-by:" in its thread.  A report goes
# out; Peter answers with a patch by `git send-email --in-reply-to` and
# "#perfbot test" under its "---"; `perfbot ingest --maildir` takes it;
# `requests take` hands the job to a scripted pipeline that writes the
# result JSON from the job file (base, head, head + patch); `queue` and
# `send` deliver the reply through Postfix: "Re:" Peter's subject,
# In-Reply-To his mail, References the report and it, To Peter, Cc the
# report's recipients, the verdict and Tested-by; the request is answered.
# The archive holds the report, the request and the result, and
# public-inbox-index threads them: the result in the thread of the request
# and of the report.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
. "$top/tests/helpers/request-lib.sh"
request_start
skip=0
request_need postfix "$(git --exec-path)/git-send-email"
request_need_root

request_repo
request_postfix
{
	request_config "$tmp/s" "$pf_port"
	printf '[test]\n\tenabled = true\n'
} >"$tmp/c"

# 1. the report
request_report
wait_mail 1

# 2. Peter's patch, by git send-email --in-reply-to, the request under "---"
request_patch "$tmp/fp1"
p1=$patch
request_send_email "$p1"
check "git send-email: the request went through Postfix" test $? -eq 0
wait_mail 2
req=$(grep -l "^#perfbot test" "$maildir"/new/* | head -n 1)
req_mid=$(hdr "$req" Message-ID | tr -d '<>')

# 3. ingest, take: the job
pb ingest --maildir "$maildir" 2>"$tmp/ingest.log"
check "ingest: request 1 accepted" grep -q "request 1: commit" "$tmp/ingest.log"
pb requests take >"$tmp/job.json"
check_eq "take: request 1, naming Peter's mail" "$(jq_py '"%s %s" % (d["request"], d["request_message_id"])' <"$tmp/job.json")" \
	"1 $req_mid"

# 4. the lab's pipeline: its three kernels measured, the result written
# from the job file alone
python3 - "$tmp/job.json" "$tmp/result.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
tests = []
for t in job["tests"]:
    t = dict(t)
    t["metrics"] = [{"name": t["headline"], "base": {"values": [623219, 622010, 624428]},
                     "head": {"values": [541887, 540311, 543463]},
                     "extra": [{"values": [625154, 624102, 626206]}]}]
    tests.append(t)
json.dump({"perfbot": 1, "tree": job["tree"], "repo_url": "https://git.kernel.org/pub/scm/linux/kernel/git/tip/tip.git",
           "base": job["base"], "commit": job["head"], "request": job["request"],
           "extra": [{"commit": job["test"]["commit"], "label": "fix patch"}], "tests": tests},
          open(sys.argv[2], "w"), indent=1)
PY
pb queue "$tmp/result.json" 2>"$tmp/queue.err"
check "queue: the result is taken" test $? -eq 0
pb send 2>"$tmp/send2.log"
check "send: the result went out, fixed" sh -c "grep -q '(result of request 1, fixed)' '$tmp/send2.log' && grep -q '^sent notice' '$tmp/send2.log'"
wait_mail 3
got=$(grep -l "^In-Reply-To: <$req_mid>" "$maildir"/new/* 2>/dev/null | head -n 1)
check "the result arrived through Postfix" test -n "$got"
: "${got:=/dev/null}"
check_eq "Subject: Re: Peter's subject" "$(hdr "$got" Subject)" "Re: [PATCH] sched/fair: Keep the previous CPU for idle wakeups"
check_eq "References: the report, then Peter's mail" "$(hdr "$got" References)" "<$mid> <$req_mid>"
check_eq "To: Peter" "$(hdr "$got" To)" "Peter Zijlstra <peterz@example.org>"
check "Cc: the report's list" sh -c "echo '$(hdr "$got" Cc)' | grep -q 'perf-reports@lists.example.org'"
check "the verdict: fixed, with the numbers" grep -q "hackbench.throughput recovered: from -13.1% to +0.3%" "$got"
check "Tested-by: the lab" grep -q "^Tested-by: perfbot lab <perfbot@lab.example.org>" "$got"
rmid=$(hdr "$got" Message-ID | tr -d '<>')
check "requests: answered, fixed" sh -c "'$perfbot' --config '$tmp/c' requests | grep -q '^1  answered  .*: fixed, result <$rmid>'"

# 5. the thread as perfbot and public-inbox see it
pb thread --json "$mid" >"$tmp/thread.json"
check_eq "thread: report, request, result, each under the one before" \
	"$(jq_py '" ".join("%d:%s" % (m["depth"], m["message_id"]) for m in d["messages"])' <"$tmp/thread.json")" \
	"0:$mid 1:$req_mid 2:$rmid"
out=$(sh "$top/tests/helpers/pi-check.sh" "$tmp/s/archive" 2>&1)
rc=$?
if [ $rc -eq 77 ]; then
	echo "skip: public-inbox-index is not installed"
	skip=$((skip + 1))
else
	check "public-inbox-index: 3 mails in 1 thread ($out)" test "$rc:$out" = "0:3|1"
	sh "$top/tests/helpers/pi-thread.sh" "$tmp/s/archive" "$rmid" >"$tmp/pi-thread.txt"
	check "public-inbox's reader: the result's thread holds the report, the request and the result" \
		test "$(head -n 1 "$tmp/pi-thread.txt")" = 3
	check "public-inbox's reader: ... the result among them" \
		grep -qx "Re: \[PATCH\] sched/fair: Keep the previous CPU for idle wakeups" "$tmp/pi-thread.txt"
fi

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
