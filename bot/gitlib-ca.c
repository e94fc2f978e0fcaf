/*
 * gitlib-ca.c: libgit2 started without the system's CA bundle.
 *
 * libgit2 1.5's git_libgit2_init() parses the whole CA bundle with mbedTLS
 * (from GIT_DEFAULT_CERT_LOCATION, a path fixed when Debian built it, with
 * no option or environment variable to skip it): 56 M instructions, half
 * of an incremental `perfbot track` and eight times what `git log` takes
 * for the same walk, spent on every perfbot process that touches a
 * repository, for HTTPS transports perfbot never asks libgit2 for.
 * perfbot never fetches or pushes with libgit2; its own TLS is GnuTLS's
 * (tls.c).
 *
 * Where libgit2 is linked statically the Makefile passes the linker's
 * --wrap=mbedtls_x509_crt_parse_file, which sends the calls to that
 * function from the objects linked (libgit2's one call; nothing else in
 * the binary uses mbedTLS) here instead.  Nothing is read, and libgit2 is
 * told the file could not be read, which it records and goes on from.  An
 * HTTPS connection made through libgit2 would then trust no certificate
 * and fail its verification: it fails closed, never open.  A build that
 * links libgit2 shared (make STATIC=0) never calls this, and pays the
 * bundle's cost again.
 */

#include "gitlib.h"

int gitlib_ca_refused;

int __wrap_mbedtls_x509_crt_parse_file(void *chain, const char *path);

int __wrap_mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	gitlib_ca_refused++;
	return -0x2900;	/* MBEDTLS_ERR_X509_FILE_IO_ERROR */
}
