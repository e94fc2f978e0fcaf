#!/bin/sh
# patchmail.sh: the patch perfbot finds in a mail (`perfbot parse`, its
# "patch") is the patch file `git mailinfo --scissors` writes for the same
# mail, on the shapes maintainers send: inline after prose, after a
# scissors line, a whole `git format-patch` mail, an attached patch
# (mutt's text/x-diff, Gmail's base64 application/octet-stream),
# quoted-printable and base64 bodies, CRLF line ends, format=flowed;
# and the damaged ones are refused with a problem (a Gmail-wrapped hunk,
# a patch cut short, two patches in one mail), a patch only quoted with
# "> " is none.  The patches come from `git format-patch` in a scratch
# repository.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/helpers/tlib.sh"
perfbot=$top/perfbot
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap 'echo "kept $tmp"' EXIT
pass=0
fail=0

if ! command -v python3 >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1; then
	echo "skip: python3 and git are needed"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

export GIT_AUTHOR_NAME="Shakeel Butt" GIT_AUTHOR_EMAIL="shakeel.butt@linux.dev"
export GIT_COMMITTER_NAME="Shakeel Butt" GIT_COMMITTER_EMAIL="shakeel.butt@linux.dev"
export GIT_AUTHOR_DATE="1726000000 +0000" GIT_COMMITTER_DATE="1726000000 +0000"
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
repo=$tmp/repo
git init -q -b master "$repo"
cd "$repo"
mkdir -p mm
python3 - <<'PY'
lines = ["/* memcontrol: a file long enough for real hunks */"]
for i in range(60):
    lines.append("static int memcg_stat_%02d(struct mem_cgroup *memcg) { return memcg->stat[%d]; }" % (i, i))
open("mm/memcontrol.c", "w").write("\n".join(lines) + "\n")
open("mm/vmscan.c", "w").write("".join("int shrink_%d;\n" % i for i in range(30)))
PY
git add . && git commit -q -m "mm: the code as it was"
base=$(git rev-parse HEAD)
python3 - <<'PY'
p = "mm/memcontrol.c"
l = open(p).read().split("\n")
l[10] = "static int memcg_stat_09(struct mem_cgroup *memcg) { return READ_ONCE(memcg->vmstats->state_local[9]) + memcg_page_state_output_unit(9); }"
l[40] = "static int memcg_stat_39(struct mem_cgroup *memcg) { return 0; }"
open(p, "w").write("\n".join(l))
PY
git commit -q -a -m "memcg: use the local counters for stats

The regression comes from flushing the whole tree for every read.

Signed-off-by: Shakeel Butt <shakeel.butt@linux.dev>"
fix=$(git rev-parse HEAD)
sed -i 's/int shrink_3;/int shrink_3 = 1;/' mm/vmscan.c
git commit -q -a -m "vmscan: start shrink_3 at one"
git format-patch -q --base="$base" -o "$tmp/fp" "$base"..HEAD
p1=$(ls "$tmp"/fp/0001-*)
p2=$(ls "$tmp"/fp/0002-*)
git diff "$base" "$fix" >"$tmp/plain.diff"
cd "$tmp"

# the mails, as their clients write them
python3 - "$tmp" "$p1" "$p2" <<'PY'
import sys, base64, quopri, os
tmp, p1, p2 = sys.argv[1:]
fp1 = open(p1).read()
fp2 = open(p2).read()
plain = open(tmp + "/plain.diff").read()
hdr = ("From: Shakeel Butt <shakeel.butt@linux.dev>\n"
       "To: kernel test robot <oliver.sang@intel.com>\n"
       "Subject: Re: [linus:master] [memcg] 70a64b7919: will-it-scale.per_process_ops -11.9% regression\n"
       "Date: Tue, 10 Sep 2024 20:26:40 +0000\n"
       "Message-ID: <req-NAME@linux.dev>\n"
       "In-Reply-To: <202409101412.f0a1b2c3-oliver.sang@intel.com>\n")
quote = ("On Tue, Sep 10, 2024 at 02:12:01PM +0800, kernel test robot wrote:\n"
         "> Hello,\n>\n> kernel test robot noticed a -11.9% regression of will-it-scale.per_process_ops\n\n")
def mail(name, body, extra="", ctype="Content-Type: text/plain; charset=us-ascii\n"):
    open(os.path.join(tmp, name + ".eml"), "w", newline="").write(
        hdr.replace("NAME", name) + "MIME-Version: 1.0\n" + ctype + extra + "\n" + body)
# fp minus its mbox "From " line: the mail as a list delivers it
def fp_mail(text):
    return text.split("\n", 1)[1]
mail("inline", quote + "#perfbot test\n\nCan you test whether this fixes it?\n\n" + plain +
     "\nThanks,\nShakeel\n")
msg1 = fp1.split("\n\n", 1)[1]
mail("scissors", quote + "#perfbot test\n\nPlease try this one.\n\n-- >8 --\n"
     "From: Shakeel Butt <shakeel.butt@linux.dev>\n"
     "Subject: [PATCH] memcg: use the local counters for stats\n\n" + msg1)
open(tmp + "/formatpatch.eml", "w").write(fp_mail(fp1))
b = "------------5jVlbbiYsJ3YGDKpGkEWZ5Sr"
mutt = ("--%s\nContent-Type: text/plain; charset=us-ascii\nContent-Disposition: inline\n\n"
        "#perfbot test\n\nThe fix is attached.\n\n--%s\n"
        "Content-Type: text/x-diff; charset=us-ascii\n"
        "Content-Disposition: attachment; filename=\"0001-memcg-fix.patch\"\n\n%s\n--%s--\n") % (b, b, fp1, b)
mail("mutt-attached", mutt, ctype="Content-Type: multipart/mixed; boundary=\"%s\"\n" % b)
enc = base64.encodebytes(fp1.encode()).decode()
gm = ("--%s\nContent-Type: text/plain; charset=\"UTF-8\"\n\n#perfbot test\n\n--%s\n"
      "Content-Type: application/octet-stream; name=\"fix.patch\"\n"
      "Content-Disposition: attachment; filename=\"fix.patch\"\n"
      "Content-Transfer-Encoding: base64\nX-Attachment-Id: f_m0x\n\n%s--%s--\n") % (b, b, enc, b)
mail("gmail-attached", gm, ctype="Content-Type: multipart/mixed; boundary=\"%s\"\n" % b)
one = ("diff --git a/mm/vmscan.c b/mm/vmscan.c\n" + fp2.split("diff --git a/mm/vmscan.c b/mm/vmscan.c\n", 1)[1])
mail("one-liner", "#perfbot test\n\n--%s\nContent-Type: text/x-patch; charset=UTF-8; name=\"a.patch\"\n"
     "Content-Disposition: attachment; filename=\"a.patch\"\nContent-Transfer-Encoding: 7bit\n\n%s--%s--\n" % (b, one, b),
     ctype="Content-Type: multipart/mixed; boundary=\"%s\"\n" % b)
mail("qp", quopri.encodestring((quote + "#perfbot test\n\n" + plain).encode()).decode(),
     extra="Content-Transfer-Encoding: quoted-printable\n")
mail("base64", base64.encodebytes(("#perfbot test\n\n" + msg1).encode()).decode(),
     extra="Content-Transfer-Encoding: base64\n", ctype="Content-Type: text/plain; charset=utf-8\n")
crlf = (hdr.replace("NAME", "crlf") + "\n" + "#perfbot test\n\n-- >8 --\n" + msg1).replace("\n", "\r\n")
open(tmp + "/crlf.eml", "w", newline="").write(crlf)
# Gmail's web client wraps at 78 columns: the long + line breaks in two
wrapped = []
for l in plain.split("\n"):
    if len(l) > 78 and l.startswith("+"):
        cut = l.rfind(" ", 0, 78)
        wrapped += [l[:cut], l[cut + 1:]]
    else:
        wrapped.append(l)
mail("wrapped", "#perfbot test\n\n" + "\n".join(wrapped), ctype="Content-Type: text/plain; charset=\"UTF-8\"\n")
short = plain.split("\n")
mail("cut-short", "#perfbot test\n\n" + "\n".join(short[:len(short) - 4]) + "\n")
mail("two", "#perfbot test\n\n-- >8 --\n" + msg1 + "\n" + fp2)
mail("quoted", "#perfbot test: does this help?\n\n" + "".join("> " + l + "\n" for l in plain.split("\n")[:-1]))
mail("none", quote + "#perfbot test\n\nNo patch here, sorry.\n")
# format=flowed as Thunderbird sends it: space-stuffed, nothing wrapped
ff = "".join((" " + l if l.startswith((" ", ">", "From ")) else l) + "\n" for l in ("#perfbot test\n\n" + plain).split("\n")[:-1])
mail("flowed", ff, ctype="Content-Type: text/plain; charset=UTF-8; format=flowed\n")
PY

cat >"$tmp/check.py" <<'PY'
import json, sys
name, gitpatch = sys.argv[1], sys.argv[2]
d = json.load(open(sys.argv[3]))
g = open(gitpatch, 'rb').read().decode('utf-8')
p = d.get('patch')
bad = []
info = {}
for l in open(sys.argv[4], encoding='utf-8').read().splitlines():
    if ': ' in l:
        k, v = l.split(': ', 1)
        info[k] = v
# the subject and author are git's too
if p and (p['subject'] != info.get('Subject', '') or p['author']['name'] != info.get('Author', '')
          or p['author']['email'] != info.get('Email', '')):
    bad.append('subject/author %r, git says %r' % ((p['subject'], p['author']), info))
for line in sys.stdin.read().splitlines():
    line = line.strip()
    if line:
        try:
            ok = eval(line, {'p': p, 'g': g})
        except Exception as e:
            ok = False
            line += ' (%s: %s)' % (type(e).__name__, e)
        if not ok:
            bad.append(line)
if bad:
    print('not ok %s: %s' % (name, '; '.join(bad)))
    print('# perfbot: %r' % (p and {k: p[k] for k in p if k != 'diff'}))
    sys.exit(1)
print('ok %s' % name)
PY

# expect NAME: the assertions on stdin, about p (perfbot's patch) and g
# (the patch file git mailinfo wrote; for CRLF after git mailsplit, as
# git am gives it to mailinfo)
expect() {
	name=$1
	in=$tmp/$name.eml
	if [ "$name" = crlf ]; then
		# what git mailsplit does before git am runs mailinfo
		sed 's/\r$//' "$in" >"$tmp/$name.lf"
		in=$tmp/$name.lf
	fi
	git mailinfo --scissors "$tmp/$name.msg" "$tmp/$name.git" <"$in" >"$tmp/$name.info" 2>/dev/null
	if ! "$perfbot" parse "$tmp/$name.eml" >"$tmp/$name.json" 2>"$tmp/$name.err"; then
		not_ok "$name: perfbot parse failed: $(cat "$tmp/$name.err")"
		return
	fi
	if python3 "$tmp/check.py" "$name" "$tmp/$name.git" "$tmp/$name.json" "$tmp/$name.info"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
}

expect inline <<'PY'
p and p['diff'] == g
p['files'] == ['mm/memcontrol.c']
p['problems'] == []
p['base_commit'] is None
p['author'] == {'name': 'Shakeel Butt', 'email': 'shakeel.butt@linux.dev'}
PY
expect scissors <<PY
p and p['diff'] == g
p['subject'] == 'memcg: use the local counters for stats'
p['problems'] == [] and p['files'] == ['mm/memcontrol.c']
p['base_commit'] == '$base'
PY
expect formatpatch <<PY
p and p['diff'] == g and g.startswith('---\n mm/memcontrol.c')
p['subject'] == 'memcg: use the local counters for stats'
p['problems'] == [] and p['base_commit'] == '$base'
PY
for shape in mutt-attached gmail-attached base64; do
	expect $shape <<PY
p and p['diff'] == g
p['problems'] == [] and p['files'] == ['mm/memcontrol.c']
p['base_commit'] == '$base'
PY
done
expect crlf <<'PY'
p and p['diff'] == g and '\r' not in p['diff']
p['problems'] == [] and p['files'] == ['mm/memcontrol.c']
PY
expect one-liner <<'PY'
p and p['diff'] == g and p['files'] == ['mm/vmscan.c'] and p['problems'] == []
PY
expect qp <<'PY'
p and p['diff'] == g and p['problems'] == [] and 'READ_ONCE' in p['diff']
PY
expect flowed <<'PY'
p and p['diff'] == g and p['problems'] == []
PY
expect wrapped <<'PY'
p and p['diff'] == g
len(p['problems']) >= 1
'mm/memcontrol.c: hunk 1 (@@ -8,7 +8,7 @@)' in p['problems'][0] and 'wrapped' in p['problems'][0]
PY
expect cut-short <<'PY'
p and p['diff'] == g
any('hunk 2' in x and 'cut short' in x for x in p['problems'])
PY
expect two <<'PY'
p and p['diff'] == g
any('more than one patch' in x for x in p['problems'])
PY
expect quoted <<'PY'
p is None and g == ''
PY
expect none <<'PY'
p is None and g == ''
PY

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
