# request-lib.sh: the set-up of the fix-test request suites
# (tests/t/request.sh, result.sh, request-postfix.sh, result-postfix.sh),
# sourced after tlib.sh with $top and $perfbot set.  Functions:
#   request_start            $tmp (mode 755: Postfix delivers as other
#                            users), pass, fail, $pids; at exit the processes
#                            in $pids killed, the Postfix in $tmp/pf stopped
#                            and $tmp removed (kept, and said, when KEEP is
#                            set)
#   request_need TOOL...     unless every TOOL is there: the suite says what
#                            it needs and exits skipped
#   request_need_root        the same unless the suite runs as root (Postfix)
#   request_repo             git kept from the user's settings, HOME under
#                            $tmp; tests/golden/make-repo.sh's repository
#                            $repo, the golden report's head commit $head
#                            and its base $base
#   request_postfix          a private Postfix on a free port $pf_port
#                            (tests/helpers/postfix.sh, in $tmp/pf: the
#                            caller stops it at exit), delivering into
#                            $maildir; exits "0 passed, 1 failed" when it
#                            does not start
#   request_config STATE PORT [TIMEOUT]
#                            the golden configuration with state STATE,
#                            mail to 127.0.0.1:PORT without TLS (smtp.timeout
#                            TIMEOUT when given); on stdout, for $tmp/c
#   pb ARGS                  perfbot with the configuration $tmp/c
#   request_report [NOW]     the golden report (regression-two-tests) sent,
#                            at PERFBOT_NOW=NOW when given; checks that it
#                            went out; its Message-ID $mid
#   request_patch DIR [ARG...]
#                            Peter Zijlstra's fix, committed on $head in the
#                            clone $work (a line added to log.txt; the dates
#                            are the caller's GIT_*_DATE, if any) and made
#                            into DIR by git format-patch ARG...; the file
#                            $patch.  Peter stays the exported author.
#   request_send_email FILE  "#perfbot test" put under FILE's "---" line
#                            (where a patch's notes go), FILE sent from Peter
#                            to perfbot by git send-email --in-reply-to the
#                            report, through the Postfix; git's exit code
#   sqlite3_py DB SQL        the rows of SQL, columns joined by |
#   hdr FILE NAME            the header field NAME of the mail FILE, unfolded

request_start() {
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	pass=0
	fail=0
	pids=""
	trap request_cleanup EXIT
}
request_cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -d "$tmp/pf" ] && sh "$top/tests/helpers/postfix.sh" stop "$tmp/pf"
	[ -n "${KEEP:-}" ] && { echo "kept $tmp"; return; }
	rm -rf "$tmp"
}

request_need() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 && continue
		echo "skip: $(basename "$0") needs $tool (sh tests/helpers/install-deps.sh test)"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	done
}
request_need_root() {
	[ "$(id -u)" -eq 0 ] && return
	echo "skip: $(basename "$0") starts Postfix, which needs root"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}

request_repo() {
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=$tmp/home
	mkdir -p "$HOME"
	repo=$tmp/repo
	sh "$top/tests/golden/make-repo.sh" "$repo" >/dev/null
	head=$(git -C "$repo" rev-parse bdc753ab0b72)
	base=$(git -C "$repo" rev-parse 'v6.99-rc3^{commit}')
}

request_postfix() {
	pf_port=$(free_port)
	sh "$top/tests/helpers/postfix.sh" start "$tmp/pf" "$pf_port" || { echo "0 passed, 1 failed"; exit 1; }
	maildir=$tmp/pf/mail/inbox
}

request_config() {
	sed -e "s|@REPO@|$repo|" -e "s|@STATE@|$1|" "$top/tests/golden/config"
	printf '[smtp]\n\tserver = 127.0.0.1\n\tport = %s\n\tencryption = none\n' "$2"
	[ -z "${3:-}" ] || printf '\ttimeout = %s\n' "$3"
}

pb() { "$perfbot" --config "$tmp/c" "$@"; }

request_report() {
	if [ -n "${1:-}" ]; then
		PERFBOT_NOW=$1 pb send "$top/tests/golden/regression-two-tests/input.json" 2>"$tmp/send.log"
	else
		pb send "$top/tests/golden/regression-two-tests/input.json" 2>"$tmp/send.log"
	fi
	check "send: the report went out" grep -q "^sent report" "$tmp/send.log"
	mid=$(pb status --json | jq_py 'd["reports"][0]["message_id"]')
}

request_patch() {
	rp_dir=$1
	shift
	work=$tmp/work
	git clone -q "$repo" "$work"
	git -C "$work" checkout -q "$head"
	export GIT_AUTHOR_NAME="Peter Zijlstra" GIT_AUTHOR_EMAIL=peterz@example.org
	export GIT_COMMITTER_NAME="Peter Zijlstra" GIT_COMMITTER_EMAIL=peterz@example.org
	# request.sh wraps this line and the message's second paragraph in its
	# wrapped-hunk case: change them there too
	echo "sched/fair: wake up on the previous CPU when it is idle" >>"$work/log.txt"
	git -C "$work" commit -q -a -m "sched/fair: Keep the previous CPU for idle wakeups

Synchronous wakeups moved tasks across the LLC for nothing.

Signed-off-by: Peter Zijlstra <peterz@example.org>"
	git -C "$work" format-patch -q -o "$rp_dir" "$@" -1
	patch=$(ls "$rp_dir"/0001-*)
}

request_send_email() {
	sed -i '0,/^---$/s//---\n#perfbot test\n/' "$1"
	git -C "$work" send-email --quiet --confirm=never --suppress-cc=all --no-validate \
		--smtp-server=127.0.0.1 --smtp-server-port="$pf_port" \
		--from="Peter Zijlstra <peterz@example.org>" --to=perfbot@lab.example.org \
		--in-reply-to="<$mid>" "$1" >"$tmp/gse.log" 2>&1
}

sqlite3_py() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print("\n".join("|".join(str(x) for x in r) for r in c.execute(sys.argv[2])))' "$@"; }
hdr() { python3 -c 'import email,sys; m=email.message_from_binary_file(open(sys.argv[1],"rb")); print(" ".join((m[sys.argv[2]] or "").split()))' "$1" "$2"; }
