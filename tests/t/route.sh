#!/bin/sh
# route.sh: routing end to end (perfbot-mail(7), Recipients).  Reports of the golden fixture's
# routed commits (tests/golden/make-repo.sh: a MAINTAINERS file in the
# tree) go out through the scripted SMTP peer on 127.0.0.1; `perfbot
# recipients` says why each address gets them; replies come in through
# `perfbot ingest -`:
#   - #perfbot unsubscribe from a list address: a later report leaves it
#     out of its envelope and Cc, and `recipients` says why; #perfbot
#     subscribe puts it back; only the sender's own address changes;
#   - commands that change a report's state count from its recipients,
#     its MAINTAINERS people and commands.trusted, and are recorded as not
#     applied (with why, shown by status) from anyone else;
#   - dup-of naming no known mail is not applied; an unknown word is
#     recorded as not understood and counted in ingest's summary;
#   - names are decoded UTF-8 in event lines and the state.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
tmp=$(mktemp -d)
peer_pid=
cleanup() {
	[ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

sh "$top/tests/golden/make-repo.sh" "$tmp/repo" >"$tmp/ids" 2>&1 || {
	cat "$tmp/ids"
	echo "0 passed, 1 failed"
	exit 1
}
smtp_peer_start "$tmp/peer"
port=$peer_port
{
	sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/state|" "$top/tests/golden/config"
	printf '[perfbot]\n\tcoalesceMinutes = 0\n'
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n' "$port"
	printf '[commands]\n\ttrusted = *@boss.example.org\n'
} >"$tmp/config"
pb() { "$perfbot" --config "$tmp/config" "$@"; }
export PERFBOT_NOW=1796032800	# 2026-11-30T10:00:00Z

# 1. the cgroup report: routed, sent; who gets it and why
cp "$top/tests/golden/route-lists/input.json" "$tmp/cgroup.json"
pb recipients "$tmp/cgroup.json" >"$tmp/why.txt" 2>"$tmp/why.err"
check "recipients: exit 0" test $? -eq 0
check "recipients: the author is To, for two reasons" grep -qx "    because: author, Signed-off-by" "$tmp/why.txt"
check "recipients: the subsystem list is Cc'd, with its section" \
	sh -c "grep -A1 -x 'Cc: cgroups@vger.kernel.org' '$tmp/why.txt' | grep -qx '    because: list: CONTROL GROUP (CGROUP)'"
check "recipients: the section and the F: line that selected it" \
	grep -q "CONTROL GROUP (CGROUP): F: kernel/cgroup/ (MAINTAINERS:[0-9]*) matches kernel/cgroup/cgroup.c" "$tmp/why.txt"
pb send "$tmp/cgroup.json" 2>"$tmp/send1.log"
check "send: the routed report went out" grep -q "^sent report <.*> to 7 of 7 recipients" "$tmp/send1.log"
check "send: its envelope holds the subsystem list" grep -q "RCPT TO:<cgroups@vger.kernel.org>" "$tmp/peer.out/1.env"
check "send: its Cc holds the subsystem list" sh -c "sed -n '/^Cc:/,/^Subject:/p' '$tmp/peer.out/1.raw' | grep -q 'cgroups@vger.kernel.org'"
mid=$(pb status --json | jq_py 'd["reports"][0]["message_id"]')

# reply FROM TEXT [SUBJECT]: one reply to the report, on stdin of ingest -
n=0
reply() {
	n=$((n + 1))
	printf 'From: %s\nTo: perfbot lab <perfbot@lab.example.org>\nSubject: Re: the report\nDate: Mon, 30 Nov 2026 12:%02d:00 +0000\nMessage-ID: <reply%d@example.org>\nIn-Reply-To: <%s>\nReferences: <%s>\nContent-Type: text/plain; charset=utf-8\nMIME-Version: 1.0\nContent-Transfer-Encoding: 8bit\n\n> the report\n\n%s\n' \
		"$1" "$n" "$n" "$mid" "$mid" "$2" | pb ingest - 2>"$tmp/ingest$n.log"
}

# 2. #perfbot unsubscribe from the list's address
reply "Cgroups List <cgroups@vger.kernel.org>" "#perfbot unsubscribe"
check "unsubscribe: exit 0" test $? -eq 0
check "unsubscribe: logged" grep -q "#perfbot unsubscribe by Cgroups List <cgroups@vger.kernel.org>: cgroups@vger.kernel.org is mailed no more reports" "$tmp/ingest1.log"
pb status --json >"$tmp/status.json"
check_eq "status --json: the exclusion, who and when" "cgroups@vger.kernel.org|Cgroups List <cgroups@vger.kernel.org>|2026-11-30T12:01:00Z|reply1@example.org" \
	"$(jq_py '"|".join([d["exclusions"][0][k] for k in ("address", "who", "date", "message_id")])' <"$tmp/status.json")"
pb status >"$tmp/status.txt"
check "status: the exclusion list" grep -q "^  cgroups@vger.kernel.org  by Cgroups List <cgroups@vger.kernel.org>  2026-11-30T12:01:00Z" "$tmp/status.txt"
reply "Mallory <mallory@example.org>" "#perfbot unsubscribe jane.dev@example.org"
check "unsubscribe: another's address does not change" grep -q "not applied: only the sender's own address can change" "$tmp/ingest2.log"

# 3. a later report of the same list leaves it out, and says why
cp "$top/tests/golden/route-misc/input.json" "$tmp/misc.json"
pb recipients "$tmp/misc.json" >"$tmp/why2.txt"
check "recipients: the unsubscribed list is not mailed" grep -qx "Not mailed: cgroups@vger.kernel.org" "$tmp/why2.txt"
check "recipients: ... because it was unsubscribed, when and by whom" \
	grep -qx "    dropped: unsubscribed 2026-11-30 by Cgroups List <cgroups@vger.kernel.org>" "$tmp/why2.txt"
pb recipients --json "$tmp/misc.json" >"$tmp/why2.json"
check_eq "recipients --json: the dropped list and why" \
	"cgroups@vger.kernel.org: unsubscribed 2026-11-30 by Cgroups List <cgroups@vger.kernel.org>" \
	"$(jq_py '"; ".join(x["email"] + ": " + x["why"] for x in d["reports"][0]["dropped"])' <"$tmp/why2.json")"
# the parse's image, kept under the state once it exists, answers the same
# way, and one that is damaged is made again
image=$(ls "$tmp/state/cache/"maintainers-* 2>/dev/null)
check "cache: the MAINTAINERS parse is kept as an image under its blob id" test -s "$image"
pb recipients --json "$tmp/misc.json" >"$tmp/why2b.json"
check "cache: the image gives the same answer" cmp -s "$tmp/why2.json" "$tmp/why2b.json"
size=$(wc -c <"$image")
head -c 1000 "$image" >"$tmp/cut" && cat "$tmp/cut" >"$image"
pb recipients --json "$tmp/misc.json" >"$tmp/why2c.json"
check "cache: a damaged image is not used" cmp -s "$tmp/why2.json" "$tmp/why2c.json"
check_eq "cache: ... and is made again" "$size" "$(wc -c <"$image")"
pb render -v "$tmp/misc.json" >/dev/null 2>"$tmp/render.err"
check "render -v: the same reasons on stderr" grep -qx "    dropped: unsubscribed 2026-11-30 by Cgroups List <cgroups@vger.kernel.org>" "$tmp/render.err"
pb send "$tmp/misc.json" 2>"$tmp/send2.log"
check "send: the later report went out" grep -q "^sent report <" "$tmp/send2.log"
check "send: ... its envelope without the unsubscribed list" sh -c "! grep -qi 'cgroups@vger' '$tmp/peer.out/2.env'"
check "send: ... its Cc without it" sh -c "! sed -n '/^Cc:/,/^Subject:/p' '$tmp/peer.out/2.raw' | grep -qi 'cgroups@vger'"
check "send: ... but still to THE REST's list" grep -q "RCPT TO:<linux-kernel@vger.kernel.org>" "$tmp/peer.out/2.env"

# 4. #perfbot subscribe puts it back
reply "Cgroups List <cgroups@vger.kernel.org>" "#perfbot subscribe"
check "subscribe: logged" grep -q "cgroups@vger.kernel.org is mailed reports again" "$tmp/ingest3.log"
check_eq "status --json: no exclusion left" "0" "$(pb status --json | jq_py 'len(d["exclusions"])')"
pb recipients "$tmp/misc.json" >"$tmp/why3.txt"
check "recipients: the list is mailed again" grep -qx "Cc: cgroups@vger.kernel.org" "$tmp/why3.txt"
reply "Cgroups List <cgroups@vger.kernel.org>" "#perfbot subscribe"
check "subscribe twice: not applied, with why" grep -q "not applied: cgroups@vger.kernel.org was not unsubscribed" "$tmp/ingest4.log"

# 5. who may steer: not a recipient
reply "Eve <eve@example.net>" "#perfbot invalid"
check "untrusted: the command is not applied" grep -q "#perfbot invalid by Eve <eve@example.net> not applied: from eve@example.net, who is not among the report's recipients, its MAINTAINERS people or commands.trusted" "$tmp/ingest5.log"
check "untrusted: counted in the summary" grep -q ", 0 commands, 1 not applied, 0 not understood" "$tmp/ingest5.log"
check_eq "untrusted: the report stays open" open "$(pb status --json | jq_py 'd["reports"][0]["state"]')"
pb status --json >"$tmp/status.json"
check_eq "status --json: the command not applied, with why" \
	"invalid|Eve <eve@example.net>|from eve@example.net, who is not among the report's recipients, its MAINTAINERS people or commands.trusted" \
	"$(jq_py '"|".join([c for c in d["reports"][0]["commands"] if not c["applied"]][-1][k] for k in ("name", "author", "why"))' <"$tmp/status.json")"
pb status >"$tmp/status.txt"
check "status: the command not applied under its report" grep -q "#perfbot invalid by Eve <eve@example.net> not applied: from eve@example.net" "$tmp/status.txt"

# 6. a MAINTAINERS person of the report's sections who was not Cc'd (route.maintainers
#    is false) may; the name is decoded
reply "=?UTF-8?Q?Michal_Koutn=C3=BD?= <mkoutny@example.com>" "#perfbot invalid"
check "MAINTAINERS person: applied" grep -q "report 1 is now invalid: #perfbot invalid by Michal Koutný <mkoutny@example.com>" "$tmp/ingest6.log"
check_eq "MAINTAINERS person: the report is invalid" invalid "$(pb status --json | jq_py 'd["reports"][0]["state"]')"

# 7. commands.trusted; a recipient's dup-of naming nothing; an unknown word
reply "The Boss <boss@boss.example.org>" "#perfbot reopen"
check "commands.trusted: applied" grep -q "report 1 is now open: #perfbot reopen by The Boss" "$tmp/ingest7.log"
reply "Tejun Heo <tj@kernel.example.org>" "#perfbot dup-of: <nothing@example.org>"
check "dup-of naming nothing: not applied" grep -q "not applied: dup-of <nothing@example.org> names no report or reply perfbot knows" "$tmp/ingest8.log"
check_eq "dup-of naming nothing: the report stays open" open "$(pb status --json | jq_py 'd["reports"][0]["state"]')"
reply "Tejun Heo <tj@kernel.example.org>" "#perfbot dup-of: <$mid>"
check "dup-of naming its own thread: not applied" grep -q "names a mail of this report's own thread" "$tmp/ingest9.log"
mid2=$(pb status --json | jq_py 'd["reports"][1]["message_id"]')
reply "Tejun Heo <tj@kernel.example.org>" "#perfbot dup-of: $mid2
#perfbot frobnicate the knob"
check "dup-of another report: applied" grep -q "report 1 is now duplicate: #perfbot dup-of $mid2 by Tejun Heo" "$tmp/ingest10.log"
check "unknown word: recorded as not understood" grep -q "#perfbot frobnicate the knob by Tejun Heo <tj@kernel.example.org> not understood" "$tmp/ingest10.log"
check "unknown word: counted in the summary" grep -q ", 1 commands, 0 not applied, 1 not understood" "$tmp/ingest10.log"

# 8. thread --json: each reply's commands with their outcome, and trailers
reply "Tejun Heo <tj@kernel.example.org>" "Tested-by: Tejun Heo <tj@kernel.example.org>"
pb thread --json 1 >"$tmp/thread.json"
check_eq "thread --json: an untrusted command, not applied, with why" \
	"invalid False from eve@example.net" \
	"$(jq_py '" ".join(str(x) for c in [m["commands"][0] for m in d["messages"] if m["message_id"] == "reply5@example.org"] for x in (c["name"], c["applied"], c["why"][:20]))' <"$tmp/thread.json")"
check_eq "thread --json: commands recorded per reply (name, applied)" \
	"dup-of:True frobnicate:False" \
	"$(jq_py '" ".join("%s:%s" % (c["name"], c["applied"]) for m in d["messages"] if m["message_id"] == "reply10@example.org" for c in m["commands"])' <"$tmp/thread.json")"
check_eq "thread --json: trailers" "Tested-by: Tejun Heo <tj@kernel.example.org>" \
	"$(jq_py '"".join("%s: %s" % (t["key"], t["value"]) for m in d["messages"] for t in m["trailers"])' <"$tmp/thread.json")"
pb status --json >"$tmp/status2.json"
check_eq "status --json: each reply's commands with their outcome" \
	"unsubscribe:True unsubscribe:False subscribe:True subscribe:False invalid:False invalid:True reopen:True dup-of:False dup-of:False dup-of:True frobnicate:False" \
	"$(jq_py '" ".join("%s:%s" % (c["name"], c["applied"]) for c in d["reports"][0]["commands"])' <"$tmp/status2.json")"
check_eq "status --json: and trailers" "reply11@example.org Tested-by" \
	"$(jq_py '" ".join("%s %s" % (t["message_id"], t["key"]) for t in d["reports"][0]["trailers"])' <"$tmp/status2.json")"
check_eq "thread --json: the decoded name in the state" "Michal Koutný" \
	"$(jq_py '[m["from"]["name"] for m in d["messages"] if m["message_id"] == "reply6@example.org"][0]' <"$tmp/thread.json")"

# 9. check says whether routing is on for HEAD; maintainersFile = none turns it off
pb check >"$tmp/check.txt" 2>&1
check "check: routing is on for HEAD" grep -q "^routing: on for HEAD ([0-9a-f]*): MAINTAINERS blob [0-9a-f]*, 6 sections; reports Cc the sections' lists$" "$tmp/check.txt"
printf '[route]\n\tmaintainersFile = none\n' >>"$tmp/config"
pb check >"$tmp/check2.txt" 2>&1
check "check: routing off" grep -q "^routing: off (route.maintainersFile is none)" "$tmp/check2.txt"
pb recipients "$tmp/misc.json" >"$tmp/why4.txt"
check "recipients: routing off, and why" grep -qx "Routing: off: route.maintainersFile is none" "$tmp/why4.txt"

# 10. errors: an unreadable file among good ones (66), a bad one (65)
pb recipients "$tmp/misc.json" "$tmp/none.json" >/dev/null 2>"$tmp/err.txt"
check_eq "recipients: an unreadable file: exit 66" 66 $?
printf '{"perfbot": 2}\n' >"$tmp/bad.json"
pb recipients --json "$tmp/bad.json" "$tmp/misc.json" >"$tmp/bad.out" 2>/dev/null
check_eq "recipients: a bad file: exit 65" 65 $?
check_eq "recipients --json: the good report and the error" "1 1" \
	"$(jq_py '"%d %d" % (len(d["reports"]), len(d["errors"]))' <"$tmp/bad.out")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
