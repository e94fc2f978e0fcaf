#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "buf.h"
#include "hash.h"
#include "banned.h"

int hash_sha1_init(struct hash_sha1 *h, struct buf *err)
{
	gnutls_hash_hd_t hd;
	int e = gnutls_hash_init(&hd, GNUTLS_DIG_SHA1);

	h->hd = NULL;
	if (e < 0)
		return err_set(err, "sha-1: %s", gnutls_strerror(e));
	h->hd = hd;
	return 0;
}

void hash_sha1_update(struct hash_sha1 *h, const void *data, size_t len)
{
	gnutls_hash((gnutls_hash_hd_t)h->hd, data, len);
}

void hash_sha1_final(struct hash_sha1 *h, unsigned char out[HASH_SHA1_RAWSZ])
{
	gnutls_hash_deinit((gnutls_hash_hd_t)h->hd, out);
	h->hd = NULL;
}

void hash_sha1_release(struct hash_sha1 *h)
{
	if (h->hd)
		gnutls_hash_deinit((gnutls_hash_hd_t)h->hd, NULL);
	h->hd = NULL;
}

int hash_sha256(const void *data, size_t n, unsigned char out[HASH_SHA256_RAWSZ],
		struct buf *err)
{
	int e = gnutls_hash_fast(GNUTLS_DIG_SHA256, data, n, out);

	if (e < 0)
		return err_set(err, "sha-256: %s", gnutls_strerror(e));
	return 0;
}

void hash_hex(struct buf *out, const unsigned char *digest, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		buf_addc(out, hex[digest[i] >> 4]);
		buf_addc(out, hex[digest[i] & 15]);
	}
}
