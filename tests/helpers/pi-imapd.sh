#!/bin/sh
# pi-imapd.sh: a public-inbox v2 inbox served by the real
# public-inbox-imapd on 127.0.0.1, privately: HOME, PI_CONFIG and the
# XDG_* directories point into DIR, so nothing in /etc or ~ is read or
# written.
#
#   pi-imapd.sh init DIR NEWSGROUP   a new empty inbox DIR/inbox (-L basic),
#                                    its newsgroup NEWSGROUP (the IMAP
#                                    mailboxes NEWSGROUP.0, NEWSGROUP.1, ...)
#   pi-imapd.sh add DIR <MBOXRD      imports the mails of an mboxrd on stdin
#                                    with public-inbox's own v2 writer (which
#                                    indexes them)
#   pi-imapd.sh start DIR PORT [SLICE]  starts public-inbox-imapd on
#                                    127.0.0.1:PORT in the background (its
#                                    pid in DIR/imapd.pid) and waits for its
#                                    greeting; SLICE: messages per mailbox
#                                    instead of 50,000
#   pi-imapd.sh stop DIR             stops it (by that pid) and waits for it
#
# SLICE: public-inbox keeps the slice size in the constant
# PublicInbox::IMAP::UID_SLICE, which no option or setting changes, so the
# server is run with a copy of IMAP.pm in which only that constant differs,
# found first through PERL5LIB.  Exit 77 with "skip: ..." when public-inbox
# is not installed; 1 with what went wrong.
set -u
if [ $# -lt 2 ]; then
	echo "usage: pi-imapd.sh init|add|start|stop DIR [...]" >&2
	exit 2
fi
cmd=$1
dir=$2
if ! command -v public-inbox-imapd >/dev/null 2>&1; then
	echo "skip: public-inbox is not installed (tests/helpers/install-deps.sh test)"
	exit 77
fi

penv() {
	env HOME="$dir/home" PI_CONFIG="$dir/pi-config" XDG_CONFIG_HOME="$dir/config" \
		XDG_DATA_HOME="$dir/data" XDG_CACHE_HOME="$dir/cache" XDG_STATE_HOME="$dir/state" \
		XDG_RUNTIME_DIR="$dir/run" GIT_CONFIG_NOSYSTEM=1 "$@"
}

case $cmd in
init)
	[ $# -eq 3 ] || { echo "usage: pi-imapd.sh init DIR NEWSGROUP" >&2; exit 2; }
	mkdir -p "$dir/home" "$dir/config" "$dir/data" "$dir/cache" "$dir/state" "$dir/run" || exit 1
	chmod 700 "$dir/run"
	: >"$dir/pi-config"
	penv public-inbox-init -V2 -L basic test "$dir/inbox" http://127.0.0.1/test \
		test@example.org --ng "$3" >"$dir/init.log" 2>&1 ||
		{ echo "public-inbox-init failed:"; cat "$dir/init.log"; exit 1; }
	;;
add)
	penv perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
		my $ibx = PublicInbox::Config->new->lookup_name("test") or die "no inbox\n";
		PublicInbox::InboxWritable->new($ibx)->import_mbox(\*STDIN, "mboxrd");' ||
		{ echo "importing into $dir/inbox failed"; exit 1; }
	;;
start)
	[ $# -ge 3 ] || { echo "usage: pi-imapd.sh start DIR PORT [SLICE]" >&2; exit 2; }
	port=$3
	lib=
	if [ -n "${4:-}" ]; then
		src=$(perl -MPublicInbox::IMAP -e 'print $INC{"PublicInbox/IMAP.pm"}') || exit 1
		mkdir -p "$dir/lib/PublicInbox"
		sed "s/^sub UID_SLICE () { 50_000 }/sub UID_SLICE () { $4 }/" "$src" \
			>"$dir/lib/PublicInbox/IMAP.pm"
		if ! grep -q "^sub UID_SLICE () { $4 }" "$dir/lib/PublicInbox/IMAP.pm"; then
			echo "$src has no 'sub UID_SLICE () { 50_000 }' to change"
			exit 1
		fi
		lib=$dir/lib
	fi
	# env execs the server: $! is its pid
	env HOME="$dir/home" PI_CONFIG="$dir/pi-config" XDG_CONFIG_HOME="$dir/config" \
		XDG_DATA_HOME="$dir/data" XDG_CACHE_HOME="$dir/cache" XDG_STATE_HOME="$dir/state" \
		XDG_RUNTIME_DIR="$dir/run" GIT_CONFIG_NOSYSTEM=1 PERL5LIB="$lib" \
		public-inbox-imapd -W0 -l "127.0.0.1:$port" -1 "$dir/imapd.out" -2 "$dir/imapd.err" \
		</dev/null >/dev/null 2>&1 &
	echo $! >"$dir/imapd.pid"
	python3 - "$port" <<'EOF' || { echo "public-inbox-imapd did not greet:"; cat "$dir/imapd.err"; exit 1; }
import socket, sys, time
for _ in range(600):	# up to 30 s on a loaded machine
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
        line = s.makefile("rb").readline()
        s.close()
        if line.startswith(b"* OK"):
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.05)
sys.exit(1)
EOF
	;;
stop)
	[ -s "$dir/imapd.pid" ] || exit 0
	pid=$(cat "$dir/imapd.pid")
	kill "$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	rm -f "$dir/imapd.pid"
	;;
*)
	echo "usage: pi-imapd.sh init|add|start|stop DIR [...]" >&2
	exit 2
	;;
esac
exit 0
