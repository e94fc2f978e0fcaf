#!/bin/sh
# check.sh: `perfbot check` against the scripted SMTP peer (a good server
# with STARTTLS and AUTH, a self-signed certificate, a wrong password,
# nothing listening), a real Dovecot for --imap (when root and Dovecot are
# there), and configurations with faults: one line per problem, the exit
# codes 0 / 78 / 75, nothing sent (the peer sees no MAIL).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/perfbot
pass=0
fail=0
. "$top/tests/helpers/tlib.sh"

command -v python3 >/dev/null && command -v openssl >/dev/null || {
	echo "skip: python3 and openssl are needed (tests/helpers/install-deps.sh test)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}
tmp=$(mktemp -d)
chmod 755 "$tmp"
peer=
cleanup() {
	[ -n "$peer" ] && kill "$peer" 2>/dev/null
	sh "$top/tests/helpers/dovecot.sh" stop "$tmp/dc" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp PERFBOT_CONFIG=
sh "$top/tests/helpers/make-test-certs.sh" "$tmp/certs" >/dev/null 2>&1 || {
	echo "FAIL making the test certificates"; echo "0 passed, 1 failed"; exit 1; }
git init -q --bare "$tmp/repo.git"
printf 'secret\n' >"$tmp/pw"
chmod 600 "$tmp/pw"

# start_peer ARGS...: the scripted SMTP peer on a free port ($port)
start_peer() {
	rm -f "$tmp/port" "$tmp/transcript"
	python3 "$top/tests/helpers/smtp-peer.py" --port-file "$tmp/port" \
		--transcript "$tmp/transcript" "$@" >/dev/null 2>&1 &
	peer=$!
	i=0
	while [ ! -s "$tmp/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(cat "$tmp/port")
}
stop_peer() {
	kill "$peer" 2>/dev/null
	wait "$peer" 2>/dev/null
	peer=
}
# conf PORT [EXTRA LINES]: a configuration for the peer
conf() {
	cat >"$tmp/conf" <<CONF
[perfbot]
	repo = $tmp/repo.git
	state = $tmp/state/perfbot
[smtp]
	server = 127.0.0.1
	port = $1
	encryption = starttls
	caFile = $tmp/certs/ca.pem
	user = bot
	passwordFile = $tmp/pw
	timeout = 5
CONF
	shift
	for l in "$@"; do printf '%s\n' "$l" >>"$tmp/conf"; done
}
run() {	# run ARGS...: perfbot check ARGS, $rc and $tmp/out
	"$bin" --config "$tmp/conf" check "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
has() { grep -q -- "$1" "$tmp/out"; }

# 1. a good server: TLS verified, EHLO, AUTH, QUIT, and no mail
start_peer --mode starttls --cert "$tmp/certs/server.pem" --key "$tmp/certs/server.key" \
	--require-auth bot:secret
conf "$port" "	heloName = perf-ci.lab.example.org"
run --smtp
check_eq "good server: exit 0" 0 $rc
check "good server: TLS verified and AUTH accepted" has "smtp: 127.0.0.1:$port: TLS, certificate verified (STARTTLS), EHLO perf-ci.lab.example.org, AUTH accepted for bot"
check "good server: what it offers" has "smtp: offers:.*AUTH"
check "good server: the last line says ready" [ "$(tail -n 1 "$tmp/out")" = ready ]
check "good server: EHLO says smtp.heloName" grep -q "C: EHLO perf-ci.lab.example.org" "$tmp/transcript"
# the peer writes its transcript as it goes: perfbot may be done before
# it has written the QUIT it read (seen under load)
i=0
while [ $i -lt 100 ] && ! grep -q 'C: QUIT' "$tmp/transcript"; do sleep 0.05; i=$((i + 1)); done
check "good server: QUIT, and no MAIL" sh -c "grep -q 'C: QUIT' '$tmp/transcript' && ! grep -q 'C: MAIL' '$tmp/transcript'"
check "the repository, templates and state are looked at" sh -c "grep -q '^repository: ' '$tmp/out' && grep -q '^templates: ' '$tmp/out' && grep -q '^state: ' '$tmp/out'"
# the default EHLO name to a loopback server is never empty
conf "$port"
run --smtp
name=$(sed -n 's/^C: EHLO //p' "$tmp/transcript" | tail -n 1)
case $name in
*.*|localhost) ok "without smtp.heloName: EHLO $name" ;;
*) not_ok "without smtp.heloName: EHLO '$name'" ;;
esac
# without --smtp, no connection at all
: >"$tmp/transcript"
run
check_eq "without --smtp: exit 0" 0 $rc
check "without --smtp: the server is not contacted" sh -c "! grep -q CONNECT '$tmp/transcript'"
stop_peer

# 2. a self-signed certificate: refused before AUTH (78)
start_peer --mode starttls --cert "$tmp/certs/self.pem" --key "$tmp/certs/self.key" --require-auth bot:secret
conf "$port"
run --smtp
check_eq "self-signed certificate: exit 78" 78 $rc
check "self-signed certificate: one problem line naming it" has "^problem: smtp: .*not trusted"
check "self-signed certificate: no AUTH sent" sh -c "! grep -q 'C: AUTH' '$tmp/transcript'"
stop_peer

# 3. a wrong password (78)
start_peer --mode starttls --cert "$tmp/certs/server.pem" --key "$tmp/certs/server.key" \
	--require-auth bot:other
conf "$port"
run --smtp
check_eq "wrong password: exit 78" 78 $rc
check "wrong password: the problem says AUTH" has "^problem: smtp: .*AUTH"
stop_peer

# 4. nothing listening (75)
conf "$(free_port)"
run --smtp
check_eq "nothing listening: exit 75" 75 $rc
check "nothing listening: the problem names the server" has "^problem: smtp: 127.0.0.1:"

# 5. configuration faults (78), each on a line of its own
chmod 644 "$tmp/pw"
conf 25 "[perfbot]" "	templates = $tmp/no-such-folder"
run
check_eq "faults: exit 78" 78 $rc
check "a password file others can read: says chmod" has "^problem: smtp.passwordFile: .*chmod 600"
check "a missing template folder" has "^problem: perfbot.templates: $tmp/no-such-folder"
chmod 600 "$tmp/pw"
mkdir -p "$tmp/lab"
printf '{{<report}}{{$greeting}}Hi{{/greeting}}{{/report}}\n' >"$tmp/lab/mine.txt"
printf '{{> nowhere}}\n' >"$tmp/lab/broken-followup.txt"
conf 25 "[perfbot]" "	templates = $tmp/lab" "	template = mine"
run
check_eq "a lab's template over the shipped parent: exit 0" 0 $rc
check "it says which templates send uses" has "reports use mine, follow-ups followup"
conf 25 "[perfbot]" "	templates = $tmp/lab" "	template = broken"
run
check_eq "a follow-up template with a missing partial: exit 78" 78 $rc
check "it names the partial" has "^problem: .*no partial 'nowhere'"
conf 25 "[perfbot]" "	frobnicate = 1"
run
check_eq "an unknown key: exit 78" 78 $rc
check "an unknown key: named" has "^problem: .*perfbot.frobnicate: unknown key"
"$bin" check --keys >"$tmp/out"
check "check --keys lists smtp.heloName" has "^smtp.heloName	"

# 6. --imap against a real Dovecot (STARTTLS with the test CA)
if [ "$(id -u)" = 0 ] && command -v dovecot >/dev/null; then
	dport=$(free_port)
	if sh "$top/tests/helpers/dovecot.sh" start "$tmp/dc" "$dport" bot secret \
		"$tmp/certs/server.pem" "$tmp/certs/server.key" >"$tmp/dc.log" 2>&1; then
		conf 25 "[ingest]" "	imap = imap://bot@127.0.0.1:$dport/INBOX?starttls" \
			"	passwordFile = $tmp/pw" "	caFile = $tmp/certs/ca.pem"
		run --imap
		check_eq "Dovecot: exit 0" 0 $rc
		check "Dovecot: TLS, LOGIN, the mailbox's UIDVALIDITY and the capabilities" \
			has "^imap: TLS, certificate verified (STARTTLS), LOGIN accepted; 127.0.0.1:$dport/INBOX: UIDVALIDITY [0-9]*, 0 messages; capabilities: IMAP4rev1"
		printf 'wrong\n' >"$tmp/pw2"
		chmod 600 "$tmp/pw2"
		conf 25 "[ingest]" "	imap = imap://bot@127.0.0.1:$dport/INBOX?starttls" \
			"	passwordFile = $tmp/pw2" "	caFile = $tmp/certs/ca.pem"
		run --imap
		check_eq "Dovecot, a wrong password: exit 78" 78 $rc
		check "Dovecot, a wrong password: says the login was refused" has "^problem: imap: .*login refused"
	else
		not_ok "Dovecot did not start: $(tail -n 3 "$tmp/dc.log")"
	fi
else
	echo "skip: --imap against Dovecot needs root and dovecot-imapd"
	skipped=1
fi

if [ "${skipped:-0}" = 1 ]; then
	echo "$pass passed, $fail failed, 1 skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
