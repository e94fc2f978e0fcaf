#!/bin/sh
# pi-check.sh INBOX [SQL]: index the public-inbox v2 inbox INBOX with the
# real `public-inbox-index -L basic` (incrementally when it was indexed
# before), privately: HOME, PI_CONFIG and the XDG_* directories point into
# a temporary directory, so nothing in /etc or ~ is read or written.  Then
# print the result of SQL on INBOX/xap15/over.sqlite3, one row a line,
# columns separated by '|' (default: "MESSAGES|THREADS").
#
# Exit 0 when the indexer exited 0 with nothing on stderr; 1 otherwise,
# with what it printed; 77 with "skip: public-inbox-index not installed"
# when it is absent.  The inbox must not be open by a writer: the indexer
# takes the same inbox.lock.
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: pi-check.sh INBOX [SQL]" >&2
	exit 2
fi
inbox=$1
sql=${2:-'select count(*), count(distinct tid) from over where num > 0'}
if ! command -v public-inbox-index >/dev/null 2>&1; then
	echo "skip: public-inbox-index not installed"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home" "$tmp/config" "$tmp/data" "$tmp/cache" "$tmp/state" "$tmp/run"
chmod 700 "$tmp/run"
: >"$tmp/pi-config"

env HOME="$tmp/home" PI_CONFIG="$tmp/pi-config" XDG_CONFIG_HOME="$tmp/config" \
	XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" \
	XDG_RUNTIME_DIR="$tmp/run" GIT_CONFIG_NOSYSTEM=1 \
	public-inbox-index -L basic "$inbox" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ] || [ -s "$tmp/err" ]; then
	echo "public-inbox-index -L basic $inbox: exit $rc, stderr:"
	cat "$tmp/err"
	exit 1
fi

db=$inbox/xap15/over.sqlite3
if [ ! -f "$db" ]; then
	echo "public-inbox-index made no $db"
	exit 1
fi
if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 -readonly "$db" "$sql" || exit 1
else
	python3 - "$db" "$sql" <<'EOF' || exit 1
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for row in db.execute(sys.argv[2]):
    print("|".join(str(c) for c in row))
EOF
fi
