#!/bin/sh
# parse.sh: runs `perfbot parse` on the small mails in tests/t/data/parse
# and on hostile ones generated here (deep nesting, many parts, NUL bytes,
# huge lines, random bytes, a message over the size limit), and checks
# the exit codes and key fields of the JSON with python3.  Every run has
# a time limit; nothing is started in the background.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
data=$top/tests/t/data/parse
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

if ! command -v python3 >/dev/null 2>&1; then
	echo "skip: python3 is not installed, so the JSON could not be checked"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

# check.py NAME RC WANT_RC: reads the output in $tmp/out, the assertions
# (one Python expression per line, about d = the JSON) on stdin.
cat >"$tmp/check.py" <<'EOF'
import json, sys
name, rc, want = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = open(sys.argv[4], 'rb').read()
err = open(sys.argv[5], 'rb').read().decode('utf-8', 'replace')
wants = [int(w) for w in want.split(',')]
problems = []
if rc not in wants:
    problems.append('exit %d, want %s (stderr: %s)' % (rc, want, err.strip()[:200]))
d = None
if rc == 0 and not problems:
    try:
        d = json.loads(out.decode('utf-8'))
        if not isinstance(d, dict):
            problems.append('output is not a JSON object')
    except (UnicodeDecodeError, ValueError) as e:
        problems.append('output is not JSON in UTF-8: %s' % e)
elif rc != 0 and out:
    problems.append('exit %d but something on stdout' % rc)
if not problems:
    for line in sys.stdin.read().splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            ok = eval(line, {'d': d, 'err': err})
        except Exception as e:
            ok = False
            line += ' (%s: %s)' % (type(e).__name__, e)
        if not ok:
            problems.append('not true: ' + line)
if problems:
    print('FAIL %s: %s' % (name, '; '.join(problems)))
    sys.exit(1)
print('ok %s' % name)
EOF

# run NAME WANT_RC ARGS...: runs perfbot parse ARGS, then check.py with the
# assertions on stdin.
run() {
	name=$1
	want=$2
	shift 2
	timeout -k 2 20 "$perfbot" parse "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if python3 "$tmp/check.py" "$name" "$rc" "$want" "$tmp/out" "$tmp/err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
}

# run_stdin NAME WANT_RC FILE: the same with the mail on stdin ("-").
run_stdin() {
	name=$1
	want=$2
	timeout -k 2 20 "$perfbot" parse - --json <"$3" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if python3 "$tmp/check.py" "$name" "$rc" "$want" "$tmp/out" "$tmp/err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
}

run reply-inline 0 "$data/reply-inline.eml" --json <<'EOF'
d['message_id'] == '87abc.fsf@example.org'
d['in_reply_to'] == ['202603101342.297fb270-lkp@intel.com']
d['references'] == ['202603091200.11111111-lkp@intel.com', '202603101342.297fb270-lkp@intel.com']
d['from'] == {'name': 'Jane Doe', 'email': 'jane@example.org'}
d['to'] == [{'name': 'kernel test robot', 'email': 'oliver.sang@intel.com'}]
d['cc'] == [{'name': '', 'email': 'oe-lkp@lists.linux.dev'}, {'name': 'Doe, John', 'email': 'john@example.org'}]
d['date'] == '2026-03-11T19:04:00Z'
d['subject'] == 'Re: [linus:master] [mm]  9890ecab6a: vm-scalability.throughput 3.8% regression'
d['auto_submitted'] is False
d['text_part'] == {'type': 'text/plain', 'charset': 'utf-8', 'encoding': '8bit'}
d['quoted_lines'] == 7 and d['new_lines'] == 5
len(d['comments']) == 2
d['comments'][0] == {'after_quote': '> commit: 9890ecab6a ("mm: zero huge pages")', 'text': 'That commit trades throughput for latency; this is expected.'}
d['comments'][1]['after_quote'] == '> test: anon-w-seq-mt'
d['comments'][1]['text'].startswith('This test exercises') and d['comments'][1]['text'].endswith('Tested-by: John Doe <john@example.org>')
d['commands'] == [{'name': 'invalid', 'args': '', 'understood': True}]
d['trailers'] == [{'key': 'Reviewed-by', 'value': 'Jane Doe <jane@example.org>'}]
d['quarantined'] is None and d['problems'] == []
EOF

run reply-qp-latin1 0 "$data/reply-qp-latin1.eml" <<'EOF'
d['from'] == {'name': 'Ren\u00e9 Fran\u00e7ois', 'email': 'rene@example.fr'}
d['subject'] == 'Re: r\u00e9gression'
"C'est attendu, voir le d\u00e9p\u00f4t: la r\u00e9gression de 3.8% est acceptable.\n" in d['text']
'regression of vm-scalability.throughput on:' in d['text']
d['text_part'] == {'type': 'text/plain', 'charset': 'iso-8859-1', 'encoding': 'quoted-printable'}
d['commands'] == [{'name': 'dup-of', 'args': '202603091200.11111111-lkp@intel.com', 'understood': True}]
d['quoted_lines'] == 1 and d['comments'] == []
EOF

run multipart-alternative 0 "$data/multipart-alternative.eml" <<'EOF'
d['text'].startswith('> kernel test robot noticed a 3.8% regression\n')
'Fixed by the patch in next \u2014 thanks!' in d['text']
'<div>' not in d['text']
d['text_part'] == {'type': 'text/plain', 'charset': 'utf-8', 'encoding': 'base64'}
d['html_only'] is False and d['attachments'] == 1
d['commands'] == [{'name': 'fixed-by', 'args': '1234abcd5678', 'understood': True}]
len(d['comments']) == 1 and d['comments'][0]['text'].startswith('Fixed by the patch')
d['quarantined'] is None
EOF

# Comments (RFC 2045 §5.1) around the type, the '/', the subtype, each
# parameter, '=' and value, and in Content-Transfer-Encoding and
# Content-Disposition: the same text, charset and commands as without.
run 'comments in Content-Type: 8bit ISO-8859-1' 0 "$data/comments-8bit.eml" <<'EOF'
d['text'] == 'La r\u00e9gression est attendue.\n#perfbot dup-of: <202603091200.11111111-lkp@intel.com>\n'
d['text_part'] == {'type': 'text/plain', 'charset': 'iso-8859-1', 'encoding': '8bit'}
d['commands'] == [{'name': 'dup-of', 'args': '202603091200.11111111-lkp@intel.com', 'understood': True}]
d['problems'] == [] and d['quarantined'] is None
EOF

run 'comments in Content-Type and Content-Transfer-Encoding: quoted-printable' 0 "$data/comments-qp.eml" <<'EOF'
d['text'] == 'La r\u00e9gression est attendue.\n#perfbot invalid\n'
d['text_part'] == {'type': 'text/plain', 'charset': 'iso-8859-1', 'encoding': 'quoted-printable'}
d['commands'] == [{'name': 'invalid', 'args': '', 'understood': True}]
d['problems'] == []
EOF

run 'comments in every MIME field of a multipart: base64 part, attachment' 0 "$data/comments-multipart.eml" <<'EOF'
d['text'] == 'Le d\u00e9p\u00f4t est pr\u00eat.\n#perfbot fixed-by: 1234abcd5678\n'
d['text_part'] == {'type': 'text/plain', 'charset': 'utf-8', 'encoding': 'base64'}
d['attachments'] == 1 and d['html_only'] is False
d['commands'] == [{'name': 'fixed-by', 'args': '1234abcd5678', 'understood': True}]
d['problems'] == [] and d['quarantined'] is None
EOF

run html-only 0 "$data/html-only.eml" <<'EOF'
d['html_only'] is True and d['text'] == '' and d['text_part'] is None
d['subject'] == 'RE: regression'
EOF

run 'bad boundary (the libetpan crash) is quarantined' 0 "$data/bad-boundary.eml" <<'EOF'
d['quarantined'] is not None and 'boundary' in d['quarantined']
any(p.startswith('quarantined') for p in d['problems'])
d['subject'] == 'crash me' and d['message_id'] == 'bad.boundary@example.com'
d['from'] == {'name': 'Mallory', 'email': 'mallory@example.com'}
d['text'] == ''
EOF

run_stdin 'bad boundary on stdin' 0 "$data/bad-boundary.eml" <<'EOF'
d['quarantined'] is not None and d['subject'] == 'crash me'
EOF

run 'mbox From_ line, CRLF, auto-reply' 0 "$data/mbox-crlf-autoreply.eml" <<'EOF'
d['auto_submitted'] is True
d['text'] == 'I am out of the office.\n'
d['from'] == {'name': 'Jane Doe', 'email': 'jane@example.org'}
EOF

run 'not a mail: exit 65' 65 "$data/not-a-mail.txt" <<'EOF'
'not a mail' in err
EOF
: >"$tmp/empty"
run 'an empty file: exit 65' 65 "$tmp/empty" </dev/null
run 'a missing file: exit 66' 66 "$tmp/does-not-exist.eml" </dev/null
run 'a directory: exit 66' 66 "$tmp" </dev/null
run 'an unknown option: exit 64' 64 --frobnicate "$data/html-only.eml" </dev/null
run 'two files: exit 64' 64 "$data/html-only.eml" "$data/html-only.eml" </dev/null
timeout 10 "$perfbot" parse --help >"$tmp/out" 2>&1
if [ $? -eq 0 ] && grep -q 'usage: perfbot parse' "$tmp/out"; then
	echo "ok parse --help"
	pass=$((pass + 1))
else
	echo "FAIL parse --help"
	fail=$((fail + 1))
fi

# Hostile inputs, made here so they need not be stored.
mkdir "$tmp/hostile"
python3 - "$tmp/hostile" <<'EOF'
import os, random, sys
d = sys.argv[1]
head = b'From: Eve <eve@example.com>\nSubject: hostile\nDate: Fri, 13 Mar 2026 12:00:00 +0000\n'
def w(name, data):
    open(os.path.join(d, name), 'wb').write(data)
deep = head + b''.join(b'Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n' % (i, i) for i in range(60))
w('deep-nesting.eml', deep + b'Content-Type: text/plain\n\nx\n')
w('many-parts.eml', head + b'Content-Type: multipart/mixed; boundary=p\n\n'
  + b''.join(b'--p\nContent-Type: application/x-%d\n\nx\n' % i for i in range(2000)) + b'--p--\n')
w('nul-bytes.eml', head.replace(b'Eve', b'E\0ve') + b'Content-Type: text/plain; charset=u\0tf-8\n\na\0b\0\n> q\0\n\0#perfbot invalid\n')
w('huge-header-line.eml', b'From: a@b.c\nSubject: ' + b'x' * (2 << 20) + b'\n\nbody\n')
w('huge-body-line.eml', head + b'\n' + b'y' * (4 << 20) + b'\n')
w('many-headers.eml', head + b''.join(b'X-H%d: v\n' % i for i in range(1500)) + b'\nbody\n')
w('invalid-utf8.eml', head + b'Content-Type: text/plain; charset=utf-8\n\n\xff\xfe\xc3\x28\xe2\x82\n\xf0\x9f\x98')
w('lone-cr.eml', head.replace(b'\n', b'\r') + b'\r\rbody\r')
w('bad-encodings.eml', head + b'Content-Type: multipart/mixed; boundary=z\n\n--z\nContent-Type: text/plain; charset="\xff\xfe"\n'
  b'Content-Transfer-Encoding: base64\n\n!!!!====@@@@\n--z--\n')
w('too-large.eml', head + b'\n' + b'z' * (33 << 20))
w('mime-garbage.eml', head + b'Content-Type: multipart/mixed; boundary=g\n\n' + b'--g\nContent-Type: multipart/mixed; boundary=g\n\n' * 30)
rnd = random.Random(5)
for i in range(10):
    w('random-%d.eml' % i, bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 5000))))
    w('random-after-header-%d.eml' % i, head + b'\n' + bytes(rnd.randrange(256) for _ in range(5000)))
EOF
for f in "$tmp"/hostile/*.eml; do
	run "hostile/$(basename "$f" .eml)" 0,65 "$f" </dev/null
done
run 'deep nesting is quarantined' 0 "$tmp/hostile/deep-nesting.eml" <<'EOF'
d['quarantined'] is not None and 'nested deeper than 20' in d['quarantined']
d['subject'] == 'hostile'
EOF
run 'too many parts are quarantined' 0 "$tmp/hostile/many-parts.eml" <<'EOF'
'more than 500' in d['quarantined']
EOF
run 'too many header fields are quarantined' 0 "$tmp/hostile/many-headers.eml" <<'EOF'
'more than 1000 header fields' in d['quarantined']
EOF
run 'too large a message is quarantined' 0 "$tmp/hostile/too-large.eml" <<'EOF'
'larger than 32 MiB' in d['quarantined'] and d['subject'] == 'hostile'
EOF
run 'NUL bytes become U+FFFD' 0 "$tmp/hostile/nul-bytes.eml" <<'EOF'
d['text'] == 'a\ufffdb\ufffd\n> q\ufffd\n\ufffd#perfbot invalid\n'
d['from']['name'] == 'E\ufffdve'
d['commands'] == []
EOF
run 'invalid UTF-8 is repaired' 0 "$tmp/hostile/invalid-utf8.eml" <<'EOF'
d['text'].startswith('\ufffd\ufffd\ufffd(')
any('U+FFFD' in p for p in d['problems'])
EOF

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
