#!/bin/sh
# pi-nntpd.sh: Debian's public-inbox-nntpd on 127.0.0.1, privately (HOME,
# PI_CONFIG and the XDG_* directories inside DIR: nothing in /etc or ~ is
# read or written).
#
#   pi-nntpd.sh start DIR PORT INBOX=GROUP...   index each v2 INBOX
#       (public-inbox-index -L basic) and serve it as GROUP on
#       127.0.0.1:PORT; with CERTS=CERTDIR (tests/helpers/make-test-certs.sh)
#       the plain port offers STARTTLS, and with NNTPS_PORT=N also nntps://
#       on 127.0.0.1:N, both with CERTDIR/server.pem.
#   pi-nntpd.sh index DIR INBOX   index INBOX again (after new mail); the
#       running server sees the new articles at the next GROUP.
#   pi-nntpd.sh purge DIR INBOX MAIL...   erase each MAIL (a file of one
#       message) from INBOX, history included (public-inbox-purge): its
#       article number is gone, so purging the first articles raises the
#       group's low mark (a list whose old articles expired).  After start.
#   pi-nntpd.sh stop DIR          stop the server by its pid file.
#
# Exit 77 with "skip: ..." when public-inbox is not installed; 1 with the
# server's words when it does not start.
set -u
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: pi-nntpd.sh start|index|purge|stop DIR ..." >&2; exit 64; }
pi_env() {
	env HOME="$dir/home" PI_CONFIG="$dir/pi-config" XDG_CONFIG_HOME="$dir/home/.config" \
		XDG_DATA_HOME="$dir/home/.local" XDG_CACHE_HOME="$dir/home/.cache" \
		XDG_STATE_HOME="$dir/home/.state" XDG_RUNTIME_DIR="$dir/run" GIT_CONFIG_NOSYSTEM=1 "$@"
}
case $cmd in
start)
	port=$3
	shift 3
	command -v public-inbox-nntpd >/dev/null 2>&1 || { echo "skip: public-inbox-nntpd is not installed"; exit 77; }
	mkdir -p "$dir/home" "$dir/run"
	chmod 700 "$dir/run"
	: >"$dir/pi-config"
	n=0
	for pair in "$@"; do
		inbox=${pair%%=*}
		group=${pair#*=}
		n=$((n + 1))
		printf '[publicinbox "i%s"]\n\tinboxdir = %s\n\taddress = i%s@example.org\n\turl = http://example.org/i%s\n\tnewsgroup = %s\n' \
			"$n" "$inbox" "$n" "$n" "$group" >>"$dir/pi-config"
		pi_env public-inbox-index -L basic "$inbox" >"$dir/index.log" 2>&1 || { cat "$dir/index.log"; exit 1; }
	done
	set -- -l "127.0.0.1:$port"
	if [ -n "${CERTS:-}" ]; then
		set -- "$@" --cert "$CERTS/server.pem" --key "$CERTS/server.key"
		[ -n "${NNTPS_PORT:-}" ] && set -- "$@" -l "nntps://127.0.0.1:$NNTPS_PORT"
	fi
	pi_env public-inbox-nntpd -W0 "$@" -1 "$dir/out.log" -2 "$dir/err.log" -P "$dir/pid" -D \
		>"$dir/start.log" 2>&1 || { cat "$dir/start.log" "$dir/err.log"; exit 1; }
	# -D returns once the daemon listens; the pid file comes with it
	i=0
	while [ ! -s "$dir/pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$dir/pid" ] || { echo "public-inbox-nntpd wrote no pid file"; cat "$dir/err.log"; exit 1; }
	;;
index)
	pi_env public-inbox-index -L basic "$3" >"$dir/index.log" 2>&1 || { cat "$dir/index.log"; exit 1; }
	;;
purge)
	inbox=$3
	shift 3
	for m in "$@"; do
		pi_env public-inbox-purge "$inbox" <"$m" >"$dir/purge.log" 2>&1 || { cat "$dir/purge.log"; exit 1; }
	done
	;;
stop)
	[ -s "$dir/pid" ] && kill "$(cat "$dir/pid")" 2>/dev/null
	rm -f "$dir/pid"
	;;
*)
	echo "usage: pi-nntpd.sh start|index|purge|stop DIR ..." >&2
	exit 64
	;;
esac
exit 0
