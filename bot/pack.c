#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2/errors.h>
#include <git2/odb.h>
#include <git2/oid.h>
#include <zlib.h>

#include "dir.h"
#include "pack.h"
#include "hash.h"
#include "xalloc.h"
#include "banned.h"

#define PACK_HEADER 12		/* "PACK", version 2, object count */
#define ENTRY_HEADER_MAX 10	/* type and a 64-bit size, 7 bits a byte */
#define SMALL_OBJECT 512	/* bytes: trees and most commits */
#define WRITE_CHUNK (64u << 10)	/* bytes gathered before a write() */
#define WRITEBACK_BYTES (1u << 20)	/* bytes written between writeback hints */

struct entry {
	unsigned char id[PACK_ID_RAWSZ];
	uint32_t crc;		/* CRC-32 of the object's bytes in the pack */
	uint32_t offset;	/* from the start of the pack file */
};

struct pack {
	char *dir;		/* where the pack goes */
	int fd;			/* the temporary pack file, or -1 before the first object */
	struct buf path;	/* its name */
	uint64_t size;		/* bytes of objects in it and in out */
	size_t unsynced;	/* bytes written since the last writeback hint */
	struct buf out;		/* objects not yet written to fd */
	struct entry *v;
	size_t nr, alloc;
	uint32_t *slots;	/* open addressing on the ids: entry index + 1, 0 = free */
	size_t nr_slots;	/* a power of two, more than twice nr */
	/* Two deflate streams, made at first use: for small objects, zlib's
	 * smallest window (512 bytes, 3 KiB of state) at level 0, stored
	 * blocks: deflating a 250-byte commit took as long as a 1 KiB mail
	 * (Huffman tables are built for each) and saved some 50 bytes (a
	 * 1,000-mail delivery: 6% less CPU, 5% more pack); for the rest,
	 * the full window (256 KiB of state) at level 1. */
	z_stream z[2];
	unsigned char z_ready[2];
};

struct pack *pack_new(const char *dir)
{
	struct pack *p = xcalloc(1, sizeof(*p));

	p->dir = xstrdup(dir);
	p->fd = -1;
	buf_init(&p->path);
	buf_init(&p->out);
	return p;
}

/* Back to no objects and no file. */
static void pack_clear(struct pack *p)
{
	if (p->fd >= 0) {
		close(p->fd);
		unlink(p->path.data);
	}
	p->fd = -1;
	buf_reset(&p->path);
	buf_reset(&p->out);
	p->size = 0;
	p->unsynced = 0;
	p->nr = 0;
	if (p->slots)
		memset(p->slots, 0, p->nr_slots * sizeof(*p->slots));
}

void pack_free(struct pack *p)
{
	int w;

	if (!p)
		return;
	for (w = 0; w < 2; w++)
		if (p->z_ready[w])
			deflateEnd(&p->z[w]);
	pack_clear(p);
	free(p->dir);
	buf_release(&p->path);
	buf_release(&p->out);
	free(p->v);
	free(p->slots);
	free(p);
}

size_t pack_objects(const struct pack *p)
{
	return p->nr;
}

size_t pack_bytes(const struct pack *p)
{
	return (size_t)p->size;
}

int pack_is_temporary(const char *name)
{
	return !strncmp(name, "tmp_pack_", 9) || !strncmp(name, "tmp_idx_", 8);
}

/* ---- the set of ids ---- */

static size_t slot_of(const struct pack *p, const unsigned char *id)
{
	uint32_t h;

	memcpy(&h, id, sizeof(h));	/* ids are uniformly distributed */
	return h & (p->nr_slots - 1);
}

/* The index of the entry with this id, or -1. */
static long entry_find(const struct pack *p, const unsigned char *id)
{
	size_t i;

	if (!p->nr_slots)
		return -1;
	for (i = slot_of(p, id); p->slots[i]; i = (i + 1) & (p->nr_slots - 1))
		if (!memcmp(p->v[p->slots[i] - 1].id, id, PACK_ID_RAWSZ))
			return (long)p->slots[i] - 1;
	return -1;
}

static void slot_put(struct pack *p, size_t entry)
{
	size_t i;

	for (i = slot_of(p, p->v[entry].id); p->slots[i]; i = (i + 1) & (p->nr_slots - 1))
		;
	p->slots[i] = (uint32_t)entry + 1;
}

/* Room for one more entry in the set, kept at most half full. */
static void slots_grow(struct pack *p)
{
	size_t i;

	if ((p->nr + 1) * 2 <= p->nr_slots)
		return;
	free(p->slots);
	p->nr_slots = p->nr_slots ? p->nr_slots * 2 : 1024;
	p->slots = xcalloc(p->nr_slots, sizeof(*p->slots));
	for (i = 0; i < p->nr; i++)
		slot_put(p, i);
}

/* ---- adding ---- */

/* libgit2's name for a type (its numbers are the pack's type codes). */
static git_object_t git_type(enum pack_type type)
{
	switch (type) {
	case PACK_COMMIT:
		return GIT_OBJECT_COMMIT;
	case PACK_TREE:
		return GIT_OBJECT_TREE;
	case PACK_BLOB:
		return GIT_OBJECT_BLOB;
	}
	return GIT_OBJECT_INVALID;
}

/* The object's header in a pack: type and size, 7 bits a byte, low first. */
static size_t entry_header(unsigned char *out, int type, uint64_t size)
{
	size_t n = 0;
	unsigned char c = (unsigned char)((type << 4) | (size & 15));

	size >>= 4;
	while (size) {
		out[n++] = c | 0x80;
		c = size & 0x7f;
		size >>= 7;
	}
	out[n++] = c;
	return n;
}

/* A reset deflate stream for len bytes. */
static z_stream *deflate_stream(struct pack *p, size_t len, struct buf *err)
{
	int w = len > SMALL_OBJECT;
	z_stream *z = &p->z[w];

	if (!p->z_ready[w]) {
		memset(z, 0, sizeof(*z));
		if (deflateInit2(z, w ? Z_BEST_SPEED : Z_NO_COMPRESSION, Z_DEFLATED, w ? 15 : 9, w ? 8 : 2,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
			err_set(err, "zlib: %s", z->msg ? z->msg : "cannot start deflate");
			return NULL;
		}
		p->z_ready[w] = 1;
	} else if (deflateReset(z) != Z_OK) {
		err_set(err, "zlib: cannot reset deflate");
		return NULL;
	}
	return z;
}

/* Appends data deflated (see z[] above) to p->out; the bytes written or 0. */
static size_t deflate_into(struct pack *p, const void *data, size_t len, struct buf *err)
{
	z_stream *z = deflate_stream(p, len, err);
	size_t bound;
	int e;

	if (!z)
		return 0;
	/* zlib 1.2.13's bound is a byte short for stored blocks in a small
	 * window (an empty object takes 11 bytes, not 10) */
	bound = deflateBound(z, (uLong)len) + 16;
	buf_grow(&p->out, bound);
	/* a z_stream counts in uInt: large objects go in by steps */
	z->next_in = (Bytef *)data;
	z->next_out = (Bytef *)p->out.data + p->out.len;
	z->avail_out = (uInt)bound;
	z->avail_in = 0;
	do {
		if (!z->avail_in && len) {
			size_t step = len > (1u << 30) ? (1u << 30) : len;

			z->avail_in = (uInt)step;
			len -= step;
		}
		e = deflate(z, len ? Z_NO_FLUSH : Z_FINISH);
	} while (e == Z_OK);
	if (e != Z_STREAM_END) {
		err_set(err, "zlib: %s", z->msg ? z->msg : "deflate failed");
		return 0;
	}
	return bound - z->avail_out;
}

/* Creates the temporary file, its header with a count of 0 for now. */
static int file_start(struct pack *p, struct buf *err)
{
	static const char head[PACK_HEADER] = { 'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0 };

	buf_reset(&p->path);
	buf_addf(&p->path, "%s/tmp_pack_XXXXXX", p->dir);
	p->fd = mkostemp(p->path.data, O_CLOEXEC);
	if (p->fd < 0) {
		err_set(err, "cannot create a file in %s: %s", p->dir, strerror(errno));
		buf_reset(&p->path);
		return -1;
	}
	if (dir_write_all(p->fd, head, sizeof(head)) < 0) {
		err_set(err, "cannot write %s: %s", p->path.data, strerror(errno));
		pack_clear(p);
		return -1;
	}
	return 0;
}

/* Writes out what p->out gathered; after a failure p->out keeps what did
 * not go out, so that the file never holds a byte twice. */
static int out_flush(struct pack *p, struct buf *err)
{
	size_t done = 0;

	while (done < p->out.len) {
		ssize_t w = write(p->fd, p->out.data + done, p->out.len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err_set(err, "cannot write %s: %s", p->path.data, w ? strerror(errno) : "no space");
			memmove(p->out.data, p->out.data + done, p->out.len - done);
			buf_truncate(&p->out, p->out.len - done);
			return -1;
		}
		done += (size_t)w;
	}
	buf_reset(&p->out);
	/* the kernel starts writing now, so that the fsync at the end has
	 * little left to wait for */
	p->unsynced += done;
	if (p->unsynced >= WRITEBACK_BYTES) {
		(void)sync_file_range(p->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		p->unsynced = 0;
	}
	return 0;
}

int pack_add(struct pack *p, enum pack_type type, const void *data, size_t len,
	     unsigned char id[PACK_ID_RAWSZ], struct buf *err)
{
	unsigned char head[ENTRY_HEADER_MAX];
	size_t start, hlen, zlen;
	git_object_t gtype = git_type(type);
	struct entry *e;
	git_oid oid;

	if (gtype == GIT_OBJECT_INVALID)
		return err_set(err, "pack: object type %d cannot be packed", (int)type);
	if (git_odb_hash(&oid, data, len, gtype) < 0) {
		const git_error *ge = git_error_last();

		return err_set(err, "pack: hashing an object: %s", ge && ge->message ? ge->message : "failed");
	}
	memcpy(id, oid.id, PACK_ID_RAWSZ);
	if (entry_find(p, id) >= 0)
		return 0;
	if (p->nr >= PACK_OBJECTS_MAX)
		return err_set(err, "pack: more than %u objects", PACK_OBJECTS_MAX);
	if (len > PACK_BYTES_MAX || PACK_HEADER + p->size + ENTRY_HEADER_MAX + len + len / 1000 + 64 >
	    PACK_BYTES_MAX)
		return err_set(err, "pack: more than %zu bytes", PACK_BYTES_MAX);
	if (p->fd < 0 && file_start(p, err) < 0)
		return -1;
	/* what earlier objects gathered goes out first, so that a failed
	 * write leaves the pack as it was */
	if (p->out.len >= WRITE_CHUNK && out_flush(p, err) < 0)
		return -1;
	start = p->out.len;
	hlen = entry_header(head, (int)type, len);
	buf_add(&p->out, head, hlen);
	if (!(zlen = deflate_into(p, data, len, err))) {
		buf_truncate(&p->out, start);
		return -1;
	}
	p->out.len += zlen;
	p->out.data[p->out.len] = '\0';

	slots_grow(p);
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	e = &p->v[p->nr];
	memcpy(e->id, id, PACK_ID_RAWSZ);
	e->offset = (uint32_t)(PACK_HEADER + p->size);
	e->crc = (uint32_t)crc32(0, (const Bytef *)p->out.data + start, (uInt)(hlen + zlen));
	slot_put(p, p->nr);
	p->nr++;
	p->size += hlen + zlen;
	return 0;
}

/* ---- writing ---- */

static void put32(struct buf *b, uint32_t v)
{
	unsigned char c[4] = { v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff };

	buf_add(b, c, 4);
}

static int cmp_entry(const void *a, const void *b)
{
	return memcmp((*(const struct entry *const *)a)->id, (*(const struct entry *const *)b)->id,
		      PACK_ID_RAWSZ);
}

/* The version 2 index of the pack whose checksum is sum. */
static void index_build(const struct pack *p, const unsigned char sum[HASH_SHA1_RAWSZ], struct buf *idx,
			struct hash_sha1 *h)
{
	static const unsigned char magic[4] = { 0xff, 't', 'O', 'c' };
	const struct entry **sorted = xcalloc(p->nr, sizeof(*sorted));
	unsigned char own[HASH_SHA1_RAWSZ];
	uint32_t count = 0;
	size_t i, k = 0;

	for (i = 0; i < p->nr; i++)
		sorted[i] = &p->v[i];
	xqsort(sorted, p->nr, sizeof(*sorted), cmp_entry);
	buf_add(idx, magic, sizeof(magic));
	put32(idx, 2);
	for (i = 0; i < 256; i++) {
		while (k < p->nr && sorted[k]->id[0] == i) {
			k++;
			count++;
		}
		put32(idx, count);
	}
	for (i = 0; i < p->nr; i++)
		buf_add(idx, sorted[i]->id, PACK_ID_RAWSZ);
	for (i = 0; i < p->nr; i++)
		put32(idx, sorted[i]->crc);
	for (i = 0; i < p->nr; i++)
		put32(idx, sorted[i]->offset);	/* < 2^31: no 64-bit table */
	buf_add(idx, sum, HASH_SHA1_RAWSZ);
	hash_sha1_update(h, idx->data, idx->len);
	hash_sha1_final(h, own);
	buf_add(idx, own, HASH_SHA1_RAWSZ);
	free(sorted);
}

/* Writes data into a new temporary file dir/PREFIXXXXXXX, synced and
 * read-only, whose name is left in path. */
static int temp_write(const char *dir, const char *prefix, struct buf *path,
		      const struct buf *data, struct buf *err)
{
	int fd;

	buf_reset(path);
	buf_addf(path, "%s/%sXXXXXX", dir, prefix);
	fd = mkostemp(path->data, O_CLOEXEC);
	if (fd < 0) {
		err_set(err, "cannot create a file in %s: %s", dir, strerror(errno));
		buf_reset(path);
		return -1;
	}
	if (dir_write_all(fd, data->data, data->len) < 0 || fchmod(fd, 0444) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	err_set(err, "cannot write %s: %s", path->data, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(path->data);
	buf_reset(path);
	return -1;
}

/* The SHA-1 of the pack file's first n bytes, read back: the header
 * changed after the objects were written, as in git fast-import. */
static int file_sum(struct pack *p, uint64_t n, unsigned char sum[HASH_SHA1_RAWSZ], struct buf *err)
{
	struct hash_sha1 h;
	uint64_t at = 0;

	if (hash_sha1_init(&h, err) < 0)
		return -1;
	buf_grow(&p->out, WRITE_CHUNK);
	while (at < n) {
		size_t want = n - at > WRITE_CHUNK ? WRITE_CHUNK : (size_t)(n - at);
		ssize_t got = pread(p->fd, p->out.data, want, (off_t)at);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			hash_sha1_release(&h);
			return err_set(err, "cannot read %s back: %s", p->path.data,
				       got ? strerror(errno) : "it is shorter than written");
		}
		hash_sha1_update(&h, p->out.data, (size_t)got);
		at += (uint64_t)got;
	}
	hash_sha1_final(&h, sum);
	return 0;
}

static int pwrite_all(int fd, const void *data, size_t n, off_t at)
{
	const char *c = data;

	while (n) {
		ssize_t w = pwrite(fd, c, n, at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
		at += w;
	}
	return 0;
}

int pack_write(struct pack *p, struct buf *err)
{
	struct buf idx = BUF_INIT, tmp_idx = BUF_INIT, name = BUF_INIT, count = BUF_INIT;
	unsigned char sum[HASH_SHA1_RAWSZ];
	uint64_t end = PACK_HEADER + p->size;
	struct hash_sha1 h = { 0 };
	char hex[GIT_OID_HEXSZ + 1];
	git_oid named;
	int rc = -1;

	if (!p->nr)
		return 0;
	put32(&count, (uint32_t)p->nr);
	/* every step can be done again after a failure: writes at fixed offsets */
	if (out_flush(p, err) < 0)
		goto out;
	if (pwrite_all(p->fd, count.data, 4, 8) < 0) {
		err_set(err, "cannot write %s: %s", p->path.data, strerror(errno));
		goto out;
	}
	if (file_sum(p, end, sum, err) < 0)
		goto out;
	if (pwrite_all(p->fd, sum, sizeof(sum), (off_t)end) < 0 || fchmod(p->fd, 0444) < 0 ||
	    fsync(p->fd) < 0) {
		err_set(err, "cannot write %s: %s", p->path.data, strerror(errno));
		goto out;
	}
	if (hash_sha1_init(&h, err) < 0)
		goto out;
	index_build(p, sum, &idx, &h);
	/* the pack is named for its checksum, written as git writes ids */
	git_oid_fromraw(&named, sum);
	git_oid_tostr(hex, sizeof(hex), &named);
	if (temp_write(p->dir, "tmp_idx_", &tmp_idx, &idx, err) < 0)
		goto out;
	/* the pack first: a reader only looks at packs that have an index */
	buf_addf(&name, "%s/pack-%s.pack", p->dir, hex);
	if (rename(p->path.data, name.data) < 0) {
		err_set(err, "cannot rename %s to %s: %s", p->path.data, name.data, strerror(errno));
		goto out;
	}
	buf_reset(&p->path);
	buf_adds(&p->path, name.data);
	buf_reset(&name);
	buf_addf(&name, "%s/pack-%s.idx", p->dir, hex);
	if (rename(tmp_idx.data, name.data) < 0) {
		err_set(err, "cannot rename %s to %s: %s", tmp_idx.data, name.data, strerror(errno));
		goto out;
	}
	buf_reset(&tmp_idx);
	if (dir_sync(p->dir, err) < 0)
		goto out;
	close(p->fd);
	p->fd = -1;	/* the file stays: it is the pack now */
	pack_clear(p);
	rc = 0;
out:
	hash_sha1_release(&h);
	if (tmp_idx.len)
		unlink(tmp_idx.data);
	buf_release(&idx);
	buf_release(&tmp_idx);
	buf_release(&name);
	buf_release(&count);
	return rc;
}
