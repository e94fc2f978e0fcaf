#ifndef PERFBOT_HASH_H
#define PERFBOT_HASH_H

/*
 * Hashes of perfbot's own bytes, through GnuTLS:
 *   - SHA-1 over a stream: the checksums that close a git pack and its
 *     index (pack.c);
 *   - SHA-256 of one buffer: the fingerprint of an mbox prefix (source-mbox.c).
 * Git object ids are not made here but by libgit2 (git_odb_hash(), which
 * detects SHA-1 collision attacks): those hash untrusted mail.
 *
 * This file, tls.c and tls.h are perfbot's only users of GnuTLS.
 */

#include <stddef.h>

#include "buf.h"

#define HASH_SHA1_RAWSZ 20
#define HASH_SHA256_RAWSZ 32

struct hash_sha1 {
	void *hd;	/* the GnuTLS hash handle */
};

/* Starts a hash.  -1 with a message when GnuTLS refuses (it should not). */
int hash_sha1_init(struct hash_sha1 *h, struct buf *err);
void hash_sha1_update(struct hash_sha1 *h, const void *data, size_t len);
/* Writes the digest of everything given and ends the hash. */
void hash_sha1_final(struct hash_sha1 *h, unsigned char out[HASH_SHA1_RAWSZ]);
/* Ends a hash whose digest is not wanted; accepts one never started. */
void hash_sha1_release(struct hash_sha1 *h);

/* SHA-256 of data[0..n) into out: 0, or -1 with a message when GnuTLS
 * refuses (it should not). */
int hash_sha256(const void *data, size_t n, unsigned char out[HASH_SHA256_RAWSZ],
		struct buf *err);

/* Appends the n bytes of digest as lowercase hex. */
void hash_hex(struct buf *out, const unsigned char *digest, size_t n);

#endif
