#!/bin/sh
# site-state.sh TOP TMP PORT: a small state for the site's tests
# (tests/t/site.sh), made by the real commands against the scripted SMTP
# peer on PORT, with the clock pinned: TMP/repo (tests/golden/make-repo.sh),
# TMP/c (its configuration, state TMP/state, site.archiveUrl set) and
#   report 1  regression-two-tests: a reply that says "#perfbot test:
#             HEAD" from a recipient (test request 1), and one that gives
#             a Closes: trailer ... then a Closes: commit on the watched
#             ref that perfbot track records as its fix; a fix posted
#             for it, v1 then v2 (the subject of that commit); test
#             request 1 taken and answered by a result (fixed);
#   report 2  improvement-derived-kind, one test: a reply "#perfbot
#             invalid" from a recipient (closed);
#   report 4  route-lists: its head commit is routed (subsystem CONTROL
#             GROUP (CGROUP), lists cgroups@ and linux-kernel@); test
#             request 2, answered by a result (fixed);
#   report 3  the hostile one: subject, test case, machine, parameters
#             and metric names with <script>, quotes, javascript:, /../,
#             U+202E and C0/C1 controls, and a reply whose author and
#             subject carry them too, and a fix posted for it whose
#             subject and author carry them.
# Prints nothing; exits non-zero when a step fails.
set -eu
top=$1
tmp=$2
port=$3
perfbot=$top/perfbot
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
sh "$top/tests/golden/make-repo.sh" "$tmp/repo" >/dev/null
{
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/state|" "$top/tests/golden/config"
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n\ttimeout = 3\n' "$port"
	printf '[test]\n\tenabled = true\n'
	printf '[site]\n\tarchiveUrl = https://lore.kernel.org/all/\n'
} >"$tmp/c"
pb() { "$perfbot" --config "$tmp/c" "$@"; }

python3 - "$top" "$tmp" <<'PY'
import json, sys
top, tmp = sys.argv[1:]
reg = json.load(open(top + "/tests/golden/regression-two-tests/input.json"))
# the runs of report 1's headline, for its chart
m0 = reg["tests"][0]["metrics"][0]
# (the samples are the runs the metric's values summarize: the same ones)
reg["tests"][0]["samples"] = {m0["name"]: {
    "good": list(m0["base"]["values"]), "bad": list(m0["head"]["values"])}}
imp = json.load(open(top + "/tests/golden/improvement-derived-kind/input.json"))
json.dump(reg, open(tmp + "/one.json", "w"))
json.dump(dict(imp, tests=[imp["tests"][1]]), open(tmp + "/two.json", "w"))
# the hostile comparison: every name a page shows, made of what a page
# must never carry raw
# (report.c refuses control characters in a comparison: those come by
# mail below)
evil = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>javascript:alert(3)/../\u202e'
h = dict(imp, tests=[dict(imp["tests"][0])])
t = h["tests"][0]
t["testcase"] = "hack" + evil
t["machine"] = "lkp" + evil
t["params"] = dict(t.get("params", {}), **{"mode" + evil: "v" + evil})
# a metric named so too (not the headline: the polarity table names that)
t["metrics"] = [dict(m) for m in t["metrics"]]
t["metrics"][1]["name"] = "lmbench3.x" + evil
t["samples"] = {t["metrics"][1]["name"]: {"good": [2.9e8, 2.95e8, 2.99e8], "bad": [3.3e8, 3.34e8, 3.37e8]}}
json.dump(h, open(tmp + "/evil.json", "w"))
PY
PERFBOT_NOW=1773100000 pb send "$tmp/one.json" 2>"$tmp/send1.log"
PERFBOT_NOW=1773100100 pb send "$tmp/two.json" 2>"$tmp/send2.log"
PERFBOT_NOW=1773100200 pb send "$tmp/evil.json" 2>"$tmp/send3.log"
# report 4: a head commit that MAINTAINERS routes (a section and THE REST)
PERFBOT_NOW=1773100300 pb send "$top/tests/golden/route-lists/input.json" 2>"$tmp/send4.log"

mid() { pb status --json | python3 -c "import json,sys; print([r['message_id'] for r in json.load(sys.stdin)['reports'] if r['id'] == $1][0])"; }
m1=$(mid 1)
m2=$(mid 2)
m4=$(mid 4)
head=$(git -C "$tmp/repo" rev-parse bdc753ab0b72)
python3 - "$tmp" "$m1" "$m2" "$head" "$m4" <<'PY'
import sys
tmp, m1, m2, head, m4 = sys.argv[1:]
evil = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>javascript:alert(3)/../\u202e\x01\u0085'
def mail(n, frm, mid, subject, text, date):
    return ("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: %s\nTo: perfbot lab <perfbot@lab.example.org>\n"
            "Subject: %s\nDate: %s\nMessage-ID: <site%d@example.org>\nIn-Reply-To: <%s>\nReferences: <%s>\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n%s\n"
            ) % (frm, subject, date, n, mid, mid, text)
peter = "Peter Zijlstra <peterz@example.org>"
out = [
    mail(1, peter, m1, "Re: the regression", "Looking.\n\n#perfbot test: " + head + "\n",
         "Wed, 11 Mar 2026 10:00:00 +0100"),
    mail(2, peter, m2, "Re: the improvement", "Noise on that machine.\n\n#perfbot invalid\n",
         "Wed, 11 Mar 2026 11:00:00 +0100"),
    mail(3, "=?utf-8?q?Mal=E2=80=AEory=01=C2=85?= <mallory@example.com>", m1,
         "Re: " + evil.replace("\x01", "").replace("\u0085", "") + " =?utf-8?q?ctl=01=1B=C2=85=E2=80=8F?=",
         "Hostile text " + evil + "\n",
         "Wed, 11 Mar 2026 12:00:00 +0100"),
    mail(4, peter, m4, "Re: the cgroup regression", "Try this one.\n\n#perfbot test: d9c9e245cd02\n",
         "Wed, 11 Mar 2026 13:00:00 +0100"),
]
open(tmp + "/replies.mbox", "w", encoding="utf-8").write("".join(out))
PY
PERFBOT_NOW=1773220000 pb ingest --mbox "$tmp/replies.mbox" 2>"$tmp/ingest.log"
# fixes posted: report 1's v1 and v2 (the subject of the commit that lands
# below), and report 3's, hostile
m3=$(mid 3)
python3 - "$tmp" "$m1" "$m3" <<'PY'
import sys
tmp, m1, m3 = sys.argv[1:]
evil = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>javascript:alert(3)/../\u202e'
def patch(n, frm, subject, date, trailer):
    return ("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: %s\nTo: linux-kernel@vger.kernel.org\n"
            "Subject: %s\nDate: %s\nMessage-ID: <fix%d@example.org>\nMIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
            "Wake up on the previous CPU.\n\n%s\nSigned-off-by: %s\n---\n"
            "diff --git a/k.c b/k.c\n--- a/k.c\n+++ b/k.c\n@@ -1 +1 @@\n-a\n+b\n") % (
            frm, subject, date, n, trailer, frm)
fixer = "Fixer <fixer@example.org>"
out = [
    patch(1, fixer, "[PATCH] sched/fair: fix the wakeup regression", "Wed, 11 Mar 2026 13:00:00 +0000",
          "Closes: https://lore.kernel.org/all/%s/" % m1),
    patch(2, fixer, "[PATCH v2] sched/fair: fix the wakeup regression", "Thu, 12 Mar 2026 09:00:00 +0000",
          "Closes: https://lore.kernel.org/all/%s/" % m1),
    patch(3, "=?utf-8?q?Mal=E2=80=AEory?= <mallory@example.com>", "[PATCH] fix " + evil,
          "Thu, 12 Mar 2026 10:00:00 +0000", "Closes: https://lore.kernel.org/all/%s/" % m3),
]
open(tmp + "/patches.mbox", "w", encoding="utf-8").write("".join(out))
PY
PERFBOT_NOW=1773230000 pb ingest --mbox "$tmp/patches.mbox" 2>"$tmp/ingest-fix.log"
# test requests 1 (report 1) and 2 (report 4) answered: a pipeline takes
# each and its result is sent
for n in 1 2; do
	PERFBOT_NOW=1773235000 pb requests take $n >"$tmp/job$n.json"
	python3 "$top/tests/helpers/job-result.py" "$tmp/job$n.json" "$tmp/result$n.json" 412000 382000 411000
	PERFBOT_NOW=1773236000 pb queue "$tmp/result$n.json" 2>"$tmp/queue$n.log"
	PERFBOT_NOW=$((1773240000 + n)) pb send 2>"$tmp/send-result$n.log"
done
# the fix of report 1: a Closes: commit on the watched ref of its tree
tree=$(pb status --json | python3 -c "import json,sys; print([r for r in json.load(sys.stdin)['reports'] if r['id'] == 1][0]['subject'])" | sed -n 's/^\[\([^]:]*\):\([^]]*\)\].*/\1 \2/p')
fam=${tree% *}
br=${tree#* }
fix=$(GIT_AUTHOR_DATE="@1773300000 +0000" GIT_COMMITTER_DATE="@1773300000 +0000" \
	git -C "$tmp/repo" -c user.name=Fixer -c user.email=fixer@example.org commit-tree -p HEAD \
	-m "sched/fair: fix the wakeup regression" -m "Closes: https://lore.kernel.org/all/$m1/" "HEAD^{tree}")
git -C "$tmp/repo" update-ref "refs/remotes/$fam/$br" "$fix"
PERFBOT_NOW=1773300100 pb track 2>"$tmp/track.log"
