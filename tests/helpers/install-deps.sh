#!/bin/sh
# install-deps.sh [build|test|bench]: install the Debian 12 packages perfbot needs, when missing.
#   build  compiler and libraries (enough for `make` and the demo)
#   test   build + what `make check` uses (cmocka, jinja2-free; python3 for the shared checks)
#   bench  test + the peers `make bench` compares against
# Runs apt-get only when a package is missing; needs root (or sudo) then.
set -eu
what=${1:-test}
build="gcc make pkg-config git ca-certificates libjansson-dev libgit2-dev libetpan-dev libgnutls28-dev libsqlite3-dev libsasl2-modules"
test="$build libcmocka-dev python3 clang libclang-rt-14-dev"
bench="$test python3-jinja2 hyperfine"
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
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
