#!/bin/sh
# recovery.sh: a run killed between archiving and marking.  Mails whose
# Message-ID is written in the odd ways mail from outside writes it (bare,
# folded after an empty first line, "Message-Id :", a comment holding an
# id, none at all with CRLF line ends) are ingested with --all; then the
# marks the run would have made last are cleared in state.db (where each
# mail went, the archive's tip), as if it had been killed between moving
# the archive's master and recording it, and the mails are put back in
# new/.  The next run's catch-up (store_open) must recognise every one of
# them in the archive, so that ingesting them again files nothing twice:
# the archive keeps one commit per mail.  No server is needed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
perfbot=$top/perfbot
. "$top/tests/helpers/tlib.sh"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "skip: recovery.sh needs the sqlite3 command (to clear the marks)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

cat >"$tmp/c" <<EOF
[perfbot]
	from = perfbot lab <perfbot@lab.example.org>
	state = $tmp/s
EOF
md=$tmp/md
mkdir -p "$md/new" "$md/cur" "$md/tmp"

# mail NAME MESSAGE-ID-LINES: a small mail whose Message-ID field is given
mail() {
	{
		printf 'From: Tester <tester@example.org>\n'
		printf 'Date: Tue, 10 Mar 2026 10:00:00 +0000\n'
		printf 'Subject: %s\n' "$1"
		printf '%b' "$2"
		printf '\nbody of %s\n' "$1"
	} >"$md/new/$1"
}
mail bare 'Message-ID: bare@example.org\n'
mail folded 'Message-ID:\n <folded@example.org>\n'
mail space 'Message-Id : <space@example.org>\n'
mail comment 'Message-ID: (was <old@example.org>) <comment@example.org>\n'
mail plain 'Message-ID: <plain@example.org>\n'
mail none ''
printf 'From: Tester <tester@example.org>\r\nDate: Tue, 10 Mar 2026 10:00:00 +0000\r\nSubject: crlf\r\n\r\nno id, CRLF\r\n' >"$md/new/crlf"
n=$(ls "$md/new" | wc -l)

commits() { git --git-dir="$tmp/s/archive/git/0.git" rev-list --count master 2>/dev/null || echo 0; }

"$perfbot" --config "$tmp/c" ingest --all --maildir "$md" >"$tmp/out" 2>&1
check "first ingest --all: exit 0" test $? -eq 0
check_eq "the archive holds one commit per mail" "$n" "$(commits)"
ids=$(sqlite3 "$tmp/s/state.db" "select message_id from messages order by message_id" | tr '\n' ' ')
# a derived id is the archived blob's: the same from the received and the
# archived bytes (CRLF made LF)
check_eq "a mail without a Message-ID is known by its archived blob" 2 \
	"$(sqlite3 "$tmp/s/state.db" "select count(*) from messages where message_id = blob_oid || '@perfbot.invalid'")"
check_eq "every mail has its mark" 0 \
	"$(sqlite3 "$tmp/s/state.db" "select count(*) from messages where blob_oid is null or commit_oid is null")"

# the run "killed" after master moved, before the marks were recorded
sqlite3 "$tmp/s/state.db" "update messages set blob_oid = null, commit_oid = null; delete from archive_tip;"
mv "$md"/cur/* "$md/new/"
"$perfbot" --config "$tmp/c" ingest --all --maildir "$md" >"$tmp/out2" 2>&1
check "second ingest: exit 0" test $? -eq 0
check_eq "the catch-up found every mail: nothing was filed twice" "$n" "$(commits)"
check_eq "the catch-up restored every mark" 0 \
	"$(sqlite3 "$tmp/s/state.db" "select count(*) from messages where blob_oid is null or commit_oid is null")"
check_eq "the state still knows each mail once" "$ids" \
	"$(sqlite3 "$tmp/s/state.db" "select message_id from messages order by message_id" | tr '\n' ' ')"
check_eq "no mail is new to the second run" "0" "$(ls "$md/new" | wc -l)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
