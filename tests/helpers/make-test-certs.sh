#!/bin/sh
# make-test-certs.sh DIR: the certificates the TLS tests use, made with
# openssl into DIR (created if missing).  Nothing here is secret: the keys
# are made fresh for each test run and never leave the temp directory.
#
#   ca.pem                    a test CA (CA:TRUE, keyCertSign)
#   server.pem  server.key    signed by the test CA, for IP:127.0.0.1 and
#                             DNS:localhost (serverAuth)
#   wrong.pem   wrong.key     signed by the test CA, but for
#                             DNS:wrong.example only: refused by host name
#   self.pem    self.key      self-signed, for IP:127.0.0.1 and
#                             DNS:localhost: refused by trust alone
#
# EC P-256 keys keep generation fast.  Exits non-zero with openssl's
# message when something fails.
set -eu
[ $# -eq 1 ] || { echo "usage: make-test-certs.sh DIR" >&2; exit 64; }
dir=$1
mkdir -p "$dir"
cd "$dir"

key() {
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
}

# ext NAME SAN: an extension file for a server certificate.
ext() {
	cat >"$1.ext" <<EOF
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = $2
EOF
}

key ca.key
openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/CN=perfbot test CA" \
	-addext "basicConstraints = critical, CA:TRUE" \
	-addext "keyUsage = critical, keyCertSign, cRLSign" \
	-out ca.pem

# signed NAME CN SAN: a certificate signed by the test CA.
signed() {
	key "$1.key"
	openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
	ext "$1" "$3"
	openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
		-sha256 -days 3650 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
	rm -f "$1.csr" "$1.ext"
}

signed server localhost "IP:127.0.0.1, DNS:localhost"
signed wrong wrong.example "DNS:wrong.example"

key self.key
openssl req -x509 -new -key self.key -sha256 -days 3650 -subj "/CN=localhost" \
	-addext "basicConstraints = critical, CA:FALSE" \
	-addext "extendedKeyUsage = serverAuth" \
	-addext "subjectAltName = IP:127.0.0.1, DNS:localhost" \
	-out self.pem
rm -f ca.srl
