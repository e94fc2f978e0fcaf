#!/bin/sh
# spool-group.sh: perfbot.spoolGroup.  A pipeline running as another user
# (nobody, in group nogroup) queues into perfbot's spool once `send` shared
# it with that group, and perfbot's user then takes the file; without the
# key the spool is perfbot's alone (0700) and the same queue is refused
# with a message, the file left where it was.  Needs root (to act as two
# users).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/perfbot
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1 || ! getent group nogroup >/dev/null; then
	echo "skip: acting as a second user (nobody:nogroup) needs root"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PERFBOT_CONFIG=
sh "$top/config/make-demo-repo.sh" "$tmp/repo" >/dev/null 2>&1
chmod -R a+rX "$tmp/repo"
# the pipeline's user opens perfbot's repository too: git (and libgit2)
# want it named in safe.directory, as perfbot-queue(1) says
printf '[safe]\n\tdirectory = %s/repo\n' "$tmp" >"$tmp/.gitconfig"
chmod 644 "$tmp/.gitconfig"
sed -e "s|@REPO@|$tmp/repo|" -e "s|@STATE@|$tmp/state|" "$top/config/demo.conf" >"$tmp/plain.conf"
cp "$tmp/plain.conf" "$tmp/shared.conf"
printf '[perfbot]\n\tspoolGroup = nogroup\n[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n' \
	"$(free_port)" >>"$tmp/shared.conf"
chmod 644 "$tmp"/*.conf
mkdir "$tmp/pipe"
chown nobody:nogroup "$tmp/pipe"
cp "$top/config/demo-report.json" "$tmp/pipe/a.json"
chown nobody:nogroup "$tmp/pipe/a.json"
chmod 600 "$tmp/pipe/a.json"	# the pipeline's own file: perfbot could not read it as it is
# The pipeline's user need not reach this checkout (a clone under a 0700
# mktemp -d): it runs a copy of perfbot, which finds its templates beside
# it as an installed one does (../share/perfbot/templates).
mkdir -p "$tmp/bin" "$tmp/share/perfbot"
cp "$bin" "$tmp/bin/perfbot"
cp -R "$top/templates" "$tmp/share/perfbot/templates"
cp "$top/config/demo-report.json" "$tmp/demo-report.json"
chmod -R a+rX "$tmp/bin" "$tmp/share" "$tmp/demo-report.json"
pipeline_bin=$tmp/bin/perfbot

# 1. without spoolGroup: the spool is perfbot's alone
"$bin" --config "$tmp/plain.conf" send >/dev/null 2>&1
check_eq "without spoolGroup: the state folder is 0700" 700 "$(stat -c %a "$tmp/state")"
as_nobody "$pipeline_bin" --config "$tmp/plain.conf" queue "$tmp/pipe/a.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "Permission denied" "$tmp/err" && [ -f "$tmp/pipe/a.json" ]; then
	ok "without spoolGroup: the pipeline's queue is refused, the file left where it was (exit $rc)"
else
	not_ok "without spoolGroup: exit $rc, $(cat "$tmp/err")"
fi

# 2. with it: send shares the spool, the pipeline queues, perfbot takes it
"$bin" --config "$tmp/shared.conf" send >/dev/null 2>"$tmp/err"
check_eq "send shares the spool (exit 0)" 0 $?
check_eq "the state folder: group nogroup, 0710" "nogroup 710" "$(stat -c '%G %a' "$tmp/state")"
check_eq "spool/incoming: setgid, group-writable" "nogroup 2770" "$(stat -c '%G %a' "$tmp/state/spool/incoming")"
check_eq "spool/rejected: setgid, group-writable" "nogroup 2770" "$(stat -c '%G %a' "$tmp/state/spool/rejected")"
check_eq "the database stays perfbot's alone" 600 "$(stat -c %a "$tmp/state/state.db")"
as_nobody "$pipeline_bin" --config "$tmp/shared.conf" queue "$tmp/pipe/a.json" >"$tmp/out" 2>"$tmp/err"
check_eq "the pipeline queues (exit 0)" 0 $?
check "it says it could not read the state, and checked a new report" grep -q "is not this user's to read" "$tmp/err"
check "the event line is on stderr, stdout is empty" sh -c "grep -q '^queued ' '$tmp/err' && [ ! -s '$tmp/out' ]"
f=$(ls "$tmp/state/spool/incoming/")
check_eq "the queued file has the spool's group and group read" "nogroup 640" \
	"$(stat -c '%G %a' "$tmp/state/spool/incoming/$f")"
# a producer dropping a file itself (write .NAME, rename)
as_nobody sh -c "umask 027; cp '$tmp/demo-report.json' '$tmp/state/spool/incoming/.b.json' &&
	mv '$tmp/state/spool/incoming/.b.json' '$tmp/state/spool/incoming/b.json'"
check_eq "a producer drops a file in (exit 0)" 0 $?
"$bin" --config "$tmp/shared.conf" send --dry-run --flush >"$tmp/mbox" 2>"$tmp/err"
check "perfbot's user reads both (send --dry-run --flush coalesces them into one)" \
	sh -c "grep -q 'coalesced' '$tmp/err' && grep -q 'would queue' '$tmp/err'"
"$bin" --config "$tmp/shared.conf" check >"$tmp/out" 2>&1
check "check says the spool is shared" grep -q "shared with group nogroup" "$tmp/out"
printf '[perfbot]\n\tspoolGroup = no-such-group-here\n' >>"$tmp/shared.conf"
"$bin" --config "$tmp/shared.conf" check >"$tmp/out" 2>&1
check_eq "check: an unknown group is a problem (exit 78)" 78 $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
