#!/bin/sh
# install-deps.sh [build|test|bench]: install the Debian 12 packages perfbot needs, when missing.
#   build  compiler and libraries (enough for `make` and the demo)
#   test   build + what `make check` uses: cmocka, python3, clang, and the
#          servers the integration tests start privately on 127.0.0.1
#          (Postfix, Dovecot, public-inbox with IO::Socket::SSL for its
#          nntps:// and STARTTLS) with the clients that talk to
#          them (git send-email, mutt, swaks, openssl), the kernel's
#          MAINTAINERS and get_maintainer.pl (linux-source-6.1) that
#          tests/t/route-gm.sh compares perfbot's routing with, and groff
#          and man(1) for the manual pages (tests/t/man.sh), strace
#          (a kill -9 at a chosen system call, tests/t/request.sh),
#          headless chromium with a font (tests/helpers/browser.sh),
#          locales (localedef's sources: tests/t/chart.sh's de_DE.UTF-8)
#          and tidy (the site's pages, tests/t/site.sh)
#   bench  test + the peers `make bench` compares against
# Runs apt-get only when a package is missing; needs root (or sudo) then.
set -eu
what=${1:-test}
# The -dev packages whose static archives the Makefile links (libgit2's own
# libraries, and libunistring's for GnuTLS), and libkrb5-dev for the
# libgssapi_krb5.so that static libgit2 needs.
build="gcc make pkg-config git ca-certificates libjansson-dev libgit2-dev libetpan-dev libgnutls28-dev libsqlite3-dev zlib1g-dev libsasl2-modules libmbedtls-dev libssh2-1-dev libhttp-parser-dev libpcre2-dev libunistring-dev libkrb5-dev libxxhash-dev"
test="$build libcmocka-dev python3 clang libclang-rt-14-dev postfix dovecot-imapd public-inbox libio-socket-ssl-perl git-email libmailtools-perl mutt swaks openssl procps linux-source-6.1 xz-utils perl groff-base man-db strace chromium fonts-liberation locales tidy"
bench="$test python3-jinja2 hyperfine notmuch lei"
case $what in
build) pkgs=$build ;;
test) pkgs=$test ;;
bench) pkgs=$bench ;;
*) echo "usage: install-deps.sh [build|test|bench]" >&2; exit 64 ;;
esac
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps.sh: installing$missing" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# Postfix asks how to configure the system's own mailer: not at all (the
# tests run private instances with their own configuration).
echo "postfix postfix/main_mailer_type select No configuration" | $sudo debconf-set-selections
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
