#!/bin/sh
# dovecot.sh start DIR PORT USER PASSWORD [CERT KEY] | stop DIR
#
# A private Dovecot IMAP server for the tests: configuration, state, logs
# and the user's Maildir (DIR/home/USER/Maildir) under DIR, listening on
# 127.0.0.1:PORT only; plain IMAP with STARTTLS offered when CERT and KEY
# are given.  Nothing in /etc is read or changed.  Needs dovecot-imapd.
set -eu
cmd=${1:?usage: dovecot.sh start DIR PORT USER PASSWORD [CERT KEY] | stop DIR}
dir=${2:?usage}

case $cmd in
start)
	port=${3:?usage}
	user=${4:?usage}
	pass=${5:?usage}
	cert=${6:-}
	key=${7:-}
	command -v dovecot >/dev/null || { echo "dovecot.sh: dovecot is not installed" >&2; exit 69; }
	mkdir -p "$dir/base" "$dir/state" "$dir/log" "$dir/home/$user/Maildir/new" "$dir/home/$user/Maildir/cur" "$dir/home/$user/Maildir/tmp"
	dir=$(cd "$dir" && pwd)
	chown -R nobody:nogroup "$dir/home"
	uid=$(id -u nobody)
	gid=$(id -g nobody)
	echo "$user:{PLAIN}$pass:$uid:$gid::$dir/home/$user" >"$dir/passwd"
	if [ -n "$cert" ]; then
		ssl="ssl = yes
ssl_cert = <$cert
ssl_key = <$key"
	else
		ssl="ssl = no"
	fi
	cat >"$dir/dovecot.conf" <<CONF
instance_name = perfbot-test-$port
base_dir = $dir/base
state_dir = $dir/state
log_path = $dir/log/dovecot.log
info_log_path = $dir/log/dovecot.log
protocols = imap
listen = 127.0.0.1
$ssl
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
first_valid_uid = 1
default_internal_user = nobody
default_internal_group = nogroup
default_login_user = nobody
passdb {
  driver = passwd-file
  args = scheme=PLAIN $dir/passwd
}
userdb {
  driver = passwd-file
  args = $dir/passwd
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $port
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
CONF
	dovecot -c "$dir/dovecot.conf" || { cat "$dir/log/dovecot.log" >&2 2>/dev/null; exit 1; }
	i=0
	while ! python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 50 ]; then
			echo "dovecot.sh: Dovecot did not listen on 127.0.0.1:$port" >&2
			cat "$dir/log/dovecot.log" >&2 2>/dev/null || true
			exit 1
		fi
		sleep 0.1
	done
	;;
stop)
	[ -f "$dir/base/master.pid" ] || exit 0
	pid=$(cat "$dir/base/master.pid")
	kill "$pid" 2>/dev/null || true
	# a login process that was starting when the stop came waits 5 s for
	# the stats process, and the master waits for it
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 20 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rm -f "$dir/base/master.pid"
	;;
*)
	echo "usage: dovecot.sh start DIR PORT USER PASSWORD [CERT KEY] | stop DIR" >&2
	exit 64
	;;
esac
