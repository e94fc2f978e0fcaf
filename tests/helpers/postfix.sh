#!/bin/sh
# postfix.sh start DIR PORT [EXTRA.cf] | reload DIR | stop DIR
#
# A private Postfix for the tests: its own configuration, queue and logs
# under DIR, an SMTP listener on 127.0.0.1:PORT only, and every recipient
# (any domain) delivered by virtual(8) into the one Maildir DIR/mail/inbox/
# as user nobody: one file per recipient, each with Delivered-To, and the
# queue id of its SMTP transaction in the first Received: header ("with
# ESMTP id QUEUEID"), which tells transactions apart.  EXTRA.cf, when
# given, is appended to main.cf (a later setting overrides an earlier one:
# a test's smtpd_recipient_restrictions with a check_recipient_access map,
# say); `reload` makes Postfix read it and its maps again.  Nothing in /etc
# is read or changed.  Needs root (Postfix's master runs as root and drops
# privileges) and the postfix package.
set -eu
cmd=${1:?usage: postfix.sh start DIR PORT [EXTRA.cf] | reload DIR | stop DIR}
dir=${2:?usage: postfix.sh start DIR PORT [EXTRA.cf] | reload DIR | stop DIR}

case $cmd in
start)
	port=${3:?usage: postfix.sh start DIR PORT [EXTRA.cf]}
	extra=${4:-}
	command -v postfix >/dev/null || { echo "postfix.sh: postfix is not installed" >&2; exit 69; }
	mkdir -p "$dir/conf" "$dir/queue" "$dir/data" "$dir/mail" "$dir/log"
	dir=$(cd "$dir" && pwd)
	chown postfix "$dir/data"
	chown nobody:nogroup "$dir/mail"
	uid=$(id -u nobody)
	gid=$(id -g nobody)
	cat >"$dir/conf/main.cf" <<CF
compatibility_level = 3.6
queue_directory = $dir/queue
data_directory = $dir/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
myhostname = postfix.test.invalid
mydestination =
relay_domains =
relayhost =
smtpd_banner = \$myhostname ESMTP perfbot-test
virtual_mailbox_domains = static:all
virtual_mailbox_base = $dir/mail
virtual_mailbox_maps = static:inbox/
virtual_uid_maps = static:$uid
virtual_gid_maps = static:$gid
virtual_minimum_uid = 1
smtpd_recipient_restrictions = permit_mynetworks, reject
message_size_limit = 52428800
virtual_mailbox_limit = 0
maillog_file = $dir/log/maillog
maillog_file_prefixes = $dir/log
smtputf8_enable = no
biff = no
CF
	if [ -n "$extra" ]; then
		# Postfix warns about each overridden setting; the last one wins
		printf '# from %s\n' "$extra" >>"$dir/conf/main.cf"
		cat "$extra" >>"$dir/conf/main.cf"
	fi
	# master.cf: the distribution's, without chroot, with the SMTP listener
	# moved to 127.0.0.1:PORT and the postlog service for maillog_file.
	sed -e 's/^smtp\( *\)inet\( *\)n\( *\)-\( *\)[yn-]/#&/' \
		-e 's/^\([a-z][a-z0-9-]*  *\(unix\|unix-dgram\|fifo\|pass\|inet\)  *[-yn]  *[-yn]  *\)[-y]/\1n/' \
		/usr/share/postfix/master.cf.dist >"$dir/conf/master.cf"
	echo "127.0.0.1:$port inet n - n - - smtpd" >>"$dir/conf/master.cf"
	grep -q '^postlog' "$dir/conf/master.cf" ||
		echo "postlog unix-dgram n - n - 1 postlogd" >>"$dir/conf/master.cf"
	postfix -c "$dir/conf" check >"$dir/log/check.log" 2>&1 || { cat "$dir/log/check.log" >&2; exit 1; }
	postfix -c "$dir/conf" start >"$dir/log/start.log" 2>&1 || { cat "$dir/log/start.log" >&2; exit 1; }
	# wait for the listener
	i=0
	while ! python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 50 ]; then
			echo "postfix.sh: Postfix did not listen on 127.0.0.1:$port" >&2
			cat "$dir/log/maillog" >&2 2>/dev/null || true
			postfix -c "$dir/conf" stop >/dev/null 2>&1 || true
			exit 1
		fi
		sleep 0.1
	done
	;;
reload)
	postfix -c "$dir/conf" reload >"$dir/log/reload.log" 2>&1 || { cat "$dir/log/reload.log" >&2; exit 1; }
	;;
stop)
	[ -f "$dir/conf/main.cf" ] || exit 0
	postfix -c "$dir/conf" stop >/dev/null 2>&1 || true
	# master exits asynchronously; make sure nothing is left behind
	pid=$(cat "$dir/queue/pid/master.pid" 2>/dev/null | tr -d ' ' || true)
	i=0
	while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
	;;
*)
	echo "usage: postfix.sh start DIR PORT [EXTRA.cf] | reload DIR | stop DIR" >&2
	exit 64
	;;
esac
