#!/bin/sh
# hostile.sh: the hostile-mail corpus: mails built to break a parser.  tests/helpers/make-hostile.py
# writes about 180 hostile mails (malformed boundaries, deep nesting,
# thousands of parts, NUL bytes, huge lines and headers, bad encodings,
# invalid UTF-8, random bytes, ...) with 20 good replies interleaved.
#   (a) `perfbot parse FILE --json` on every file, 10 s each: exit 0 (65
#       only for what is not a mail at all), never a signal or a timeout,
#       and on exit 0 strict JSON in UTF-8 with message_id and problems;
#       the good mails read right and not quarantined.
#   (b) all files in one Maildir's new/, `perfbot ingest --all --maildir`
#       once (120 s): exit 0, every good mail in the state database and
#       archived, new/ empty (hostile mail moved to cur/ as well, so it
#       never blocks a later run), and a second run takes nothing.
#   (c) the counts: parsed, quarantined, not a mail.
# HOSTILE_SEED=N varies the random inputs.  No server is needed; every
# process runs under `timeout` and is stopped by PID if the script is.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
seed=${HOSTILE_SEED:-5}
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pass=0
fail=0
skip=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok $*"; fail=$((fail + 1)); }
check() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

if ! command -v python3 >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1; then
	echo "skip: hostile.sh needs python3 and timeout (coreutils)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

# limited SECONDS CMD...: CMD under a time limit, in the background so that
# the trap above can stop it by PID; its exit status in $rc (124 or 137: the
# time ran out; above 128: a signal).
limited() {
	t=$1
	shift
	timeout -k 2 "$t" "$@" &
	pid=$!
	wait "$pid"
	rc=$?
	pid=
}

# Mails whose header block is over the archive's limits (archive.h:
# ARCHIVE_HEADER_MAX 256 KiB, ARCHIVE_HEADER_LINES_MAX 4096 lines,
# ARCHIVE_HEADER_LINE_MAX 16384 bytes a line) make `perfbot ingest` exit 75
# ("the message cannot be archived") without taking anything, so one such
# mail blocks the whole Maildir for good.  Reported; until it is fixed they
# are ingested in a run of their own below, which is a skip while it fails.
# When it passes, set known_blockers=0 to put them back in the main run.
known_blockers=0

start=$(date +%s)
python3 "$top/tests/helpers/make-hostile.py" "$tmp/corpus" --seed "$seed" >"$tmp/manifest"
gen_rc=$?
check "make-hostile.py wrote the corpus (seed $seed)" test "$gen_rc" -eq 0 -a -s "$tmp/manifest"
tab=$(printf '\t')

# (a) perfbot parse on every file
mkdir "$tmp/out"
while IFS=$tab read -r name kind mid; do
	limited 10 "$perfbot" parse "$tmp/corpus/$name" --json >"$tmp/out/$name.json" 2>"$tmp/out/$name.err"
	printf '%s\t%s\t%s\t%s\n' "$name" "$kind" "$mid" "$rc" >>"$tmp/results"
done <"$tmp/manifest"
parse_end=$(date +%s)

# check-parse.py RESULTS OUTDIR CORPUS: one line per file; the counts (pass
# fail parsed quarantined notmail) go to RESULTS.counts, and the names of
# the known blockers (see above) to RESULTS.blockers.
cat >"$tmp/check-parse.py" <<'EOF'
import json, os, sys

results, outdir, corpus = sys.argv[1:4]
MARKER = 'hostile-corpus-marker: '
HEADER_MAX, LINES_MAX, LINE_MAX = 256 << 10, 4096, 16384	# archive.h


def strict_json(raw):
    """The object in raw, or an exception: UTF-8, no NaN, no duplicate
    keys, no lone surrogates (\\ud800 escapes), one JSON object."""
    def pairs(kv):
        keys = [k for k, _ in kv]
        if len(set(keys)) != len(keys):
            raise ValueError('duplicate keys')
        return dict(kv)

    def bad_constant(c):
        raise ValueError('%s is not JSON' % c)

    d = json.loads(raw.decode('utf-8'), object_pairs_hook=pairs, parse_constant=bad_constant)

    def walk(v):
        if isinstance(v, str):
            v.encode('utf-8')	# fails on a lone surrogate
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(d)
    if not isinstance(d, dict):
        raise ValueError('not a JSON object')
    return d


def over_archive_limits(data):
    end = len(data)
    for sep in (b'\n\n', b'\r\n\r\n'):
        i = data.find(sep)
        if i >= 0:
            end = min(end, i)
    head = data[:end]
    lines = head.split(b'\n')
    return len(head) > HEADER_MAX or len(lines) > LINES_MAX or max(len(l) for l in lines) > LINE_MAX


p = f = parsed = quarantined = notmail = 0
blockers = []
for line in open(results):
    name, kind, mid, rc = line.rstrip('\n').split('\t')
    rc = int(rc)
    out = open(os.path.join(outdir, name + '.json'), 'rb').read()
    err = open(os.path.join(outdir, name + '.err'), 'rb').read().decode('utf-8', 'replace').strip()
    if over_archive_limits(open(os.path.join(corpus, name), 'rb').read()):
        blockers.append(name)
    why = []
    note = ''
    if rc in (124, 137):
        why.append('timed out (10 s)')
    elif rc > 128:
        why.append('killed by signal %d' % (rc - 128))
    elif rc not in {'notmail': (65,), 'any': (0, 65)}.get(kind, (0,)):
        why.append('exit %d for a %s input' % (rc, kind))
    if rc == 0:
        parsed += 1
        try:
            d = strict_json(out)
            for key in ('message_id', 'problems', 'quarantined', 'text', 'subject', 'from'):
                if key not in d:
                    why.append('no "%s" key' % key)
            if not isinstance(d.get('problems'), list) or not all(isinstance(x, str) for x in d['problems']):
                why.append('"problems" is not a list of strings')
            if d.get('quarantined') is not None:
                quarantined += 1
                note = ', quarantined: ' + d['quarantined'][:100]
            if kind == 'good':
                if d.get('message_id') != mid:
                    why.append('message_id %r, want %r' % (d.get('message_id'), mid))
                if d.get('quarantined') is not None or d.get('problems'):
                    why.append('a good mail quarantined or with problems: %r' % d.get('problems'))
                if MARKER + mid not in (d.get('text') or ''):
                    why.append('the marker line is not in the text')
        except (UnicodeDecodeError, ValueError, TypeError) as e:
            why.append('stdout is not valid JSON: %s' % e)
    elif rc == 65:
        notmail += 1
        if out:
            why.append('exit 65 with something on stdout')
        if 'not a mail' not in err:
            why.append('exit 65 without "not a mail" on stderr')
    if why:
        f += 1
        print('not ok parse %s (%s): %s%s' % (name, kind, '; '.join(why), ' [stderr: %s]' % err[:200] if err else ''))
    else:
        p += 1
        print('ok parse %s: exit %d%s' % (name, rc, note))
open(results + '.counts', 'w').write('%d %d %d %d %d\n' % (p, f, parsed, quarantined, notmail))
open(results + '.blockers', 'w').write(''.join(n + '\n' for n in blockers))
EOF
if ! python3 "$tmp/check-parse.py" "$tmp/results" "$tmp/out" "$tmp/corpus" || [ ! -s "$tmp/results.counts" ]; then
	not_ok "the parse results could be checked"
	echo 0 0 0 0 0 >"$tmp/results.counts"
fi
read -r p f parsed quarantined notmail <"$tmp/results.counts"
pass=$((pass + p))
fail=$((fail + f))
total=$(wc -l <"$tmp/manifest")

# (b) perfbot ingest --all on a Maildir holding the whole corpus
md=$tmp/maildir
mkdir -p "$md/new" "$md/cur" "$md/tmp" "$tmp/md2/new" "$tmp/md2/cur" "$tmp/md2/tmp"
[ "$known_blockers" -eq 1 ] || : >"$tmp/results.blockers"
while IFS=$tab read -r name kind mid; do
	if grep -qxF "$name" "$tmp/results.blockers"; then
		cp "$tmp/corpus/$name" "$tmp/md2/new/"
	else
		cp "$tmp/corpus/$name" "$md/new/"
	fi
done <"$tmp/manifest"
in_main=$(ls "$md/new" | wc -l)
sed -e "s|@REPO@|$tmp/no-repo|" -e "s|@STATE@|$tmp/state|" "$top/tests/golden/config" >"$tmp/config"
grep "$tab"good"$tab" "$tmp/manifest" | cut -f 3 >"$tmp/good-ids"

# db_check: every good Message-ID in messages with its blob archived; prints
# the count of rows, or what is missing.
db_check() {
	python3 - "$tmp/state/state.db" "$tmp/good-ids" <<'EOF'
import sqlite3, sys
db = sqlite3.connect('file:%s?mode=ro' % sys.argv[1], uri=True)
missing = []
for mid in open(sys.argv[2]).read().split():
    row = db.execute('SELECT blob_oid FROM messages WHERE message_id = ?', (mid,)).fetchone()
    if row is None:
        missing.append(mid + ' (absent)')
    elif row[0] is None:
        missing.append(mid + ' (not archived)')
print(db.execute('SELECT count(*) FROM messages').fetchone()[0])
if missing:
    print('missing: ' + ', '.join(missing))
    sys.exit(1)
EOF
}

ingest_start=$(date +%s)
limited 120 "$perfbot" --config "$tmp/config" ingest --all --maildir "$md" 2>"$tmp/ingest.log"
ingest_rc=$rc
ingest_end=$(date +%s)
check "ingest --all of $in_main files: exit 0, not a signal or timeout (exit $ingest_rc; $(tail -n 1 "$tmp/ingest.log" | cut -c 1-200))" \
	test "$ingest_rc" -eq 0
check "ingest: new/ is empty ($(ls "$md/new" | wc -l) left)" test "$(ls "$md/new" | wc -l)" -eq 0
check "ingest: every file is in cur/, hostile ones too ($(ls "$md/cur" | wc -l) of $in_main)" \
	test "$(ls "$md/cur" | wc -l)" -eq "$in_main"
rows=$(db_check 2>&1)
db_rc=$?
check "ingest: the $(wc -l <"$tmp/good-ids") good mails are in the state database and archived ($(echo "$rows" | tail -n 1 | cut -c 1-300))" \
	test "$db_rc" -eq 0
rows=$(echo "$rows" | head -n 1)
limited 120 "$perfbot" --config "$tmp/config" ingest --all --maildir "$md" 2>"$tmp/ingest2.log"
rc2=$rc
rows2=$(db_check 2>/dev/null | head -n 1)
check "ingest: a second run exits 0 and takes nothing (exit $rc2, messages $rows then $rows2)" \
	test "$rc2" -eq 0 -a "$rows" = "$rows2" -a ! -s "$tmp/ingest2.log"

nb=$(ls "$tmp/md2/new" | wc -l)
if [ "$nb" -gt 0 ]; then
	limited 120 "$perfbot" --config "$tmp/config" ingest --all --maildir "$tmp/md2" 2>"$tmp/ingest3.log"
	left=$(ls "$tmp/md2/new" | wc -l)
	if [ "$rc" -eq 0 ] && [ "$left" -eq 0 ]; then
		ok "ingest: the $nb mails over the archive's header limits are taken (set known_blockers=0 in hostile.sh)"
	elif [ "$rc" -eq 75 ] && grep -q "cannot be archived" "$tmp/ingest3.log"; then
		echo "skip: known bug: $nb mails over the archive's header limits make ingest exit 75 and stay in new/ (blocking the Maildir): $(tail -n 1 "$tmp/ingest3.log")"
		skip=$((skip + 1))
	else
		not_ok "ingest of the $nb mails over the archive's header limits: exit $rc, $left left in new/ ($(tail -n 1 "$tmp/ingest3.log" | cut -c 1-200))"
	fi
fi

# (c) the counts
end=$(date +%s)
echo "# $total files (seed $seed): $parsed parsed ($quarantined quarantined), $notmail not a mail;" \
	"parse $((parse_end - start)) s, ingest $((ingest_end - ingest_start)) s, total $((end - start)) s"
echo "# first run: $(grep '^ingest:' "$tmp/ingest.log" | tail -n 1)"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
