#ifndef PERFBOT_SHA1_H
#define PERFBOT_SHA1_H

/*
 * SHA-1 over a stream of bytes: the checksums that close a git pack and
 * its index (pack.c).  Git object ids are not made here but by libgit2
 * (git_odb_hash(), which detects SHA-1 collision attacks): those hash
 * untrusted mail, while these hash perfbot's own output.
 *
 * This file, tls.c and tls.h are perfbot's only users of GnuTLS.
 */

#include <stddef.h>

#include "buf.h"

#define SHA1_RAWSZ 20

struct sha1 {
	void *hd;	/* the GnuTLS hash handle */
};

/* Starts a hash.  -1 with a message when GnuTLS refuses (it should not). */
int sha1_init(struct sha1 *h, struct buf *err);
void sha1_update(struct sha1 *h, const void *data, size_t len);
/* Writes the digest of everything given and ends the hash. */
void sha1_final(struct sha1 *h, unsigned char out[SHA1_RAWSZ]);
/* Ends a hash whose digest is not wanted; accepts one never started. */
void sha1_release(struct sha1 *h);

#endif
