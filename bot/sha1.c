#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "buf.h"
#include "sha1.h"
#include "banned.h"

int sha1_init(struct sha1 *h, struct buf *err)
{
	gnutls_hash_hd_t hd;
	int e = gnutls_hash_init(&hd, GNUTLS_DIG_SHA1);

	h->hd = NULL;
	if (e < 0)
		return err_set(err, "sha-1: %s", gnutls_strerror(e));
	h->hd = hd;
	return 0;
}

void sha1_update(struct sha1 *h, const void *data, size_t len)
{
	gnutls_hash((gnutls_hash_hd_t)h->hd, data, len);
}

void sha1_final(struct sha1 *h, unsigned char out[SHA1_RAWSZ])
{
	gnutls_hash_deinit((gnutls_hash_hd_t)h->hd, out);
	h->hd = NULL;
}

void sha1_release(struct sha1 *h)
{
	if (h->hd)
		gnutls_hash_deinit((gnutls_hash_hd_t)h->hd, NULL);
	h->hd = NULL;
}
