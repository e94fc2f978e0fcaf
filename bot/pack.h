#ifndef PERFBOT_PACK_H
#define PERFBOT_PACK_H

/*
 * A git pack made by perfbot itself: the archive's objects are hashed
 * (libgit2's git_odb_hash()), deflated once and written to a temporary
 * file as they come, and pack_write() completes that file as a pack with
 * its version 2 index.  Memory stays the same however many objects a
 * pack holds, apart from about 40 bytes an object for the index and the
 * set of ids.
 *
 * Why not libgit2: its packbuilder deflated every object and then its
 * indexer read the pack back, inflating and hashing each object again;
 * that was 40% of `perfbot send` and a third of `ingest`.  A pack of
 * blobs, trees and commits without deltas is a simple format
 * (Documentation/gitformat-pack.txt), and `git fsck`, `git verify-pack`,
 * libgit2 and public-inbox read what this writes (tests/unit/test-pack.c).
 *
 * Objects are deflated at zlib level 1 (Z_BEST_SPEED): on a kernel list
 * (the ksummit corpus) that is 1.7 times faster than git's default level
 * and packs 4% larger; objects of at most 512 bytes (trees, commits) are
 * stored, not compressed (pack.c says why).  `git repack -adF`
 * recompresses when space matters.
 *
 * On disk: the pack and its index are written under temporary names
 * (tmp_pack_*, tmp_idx_*; git gc removes leftovers, and so does the
 * archive when it opens an epoch); pack_write() sets the object count in
 * the pack's header, reads the file back for its checksum (as git
 * fast-import does), fsyncs both, renames them to pack-<checksum>.pack
 * and then .idx (readers look for the .idx), and fsyncs the directory:
 * once pack_write() returns, the objects are on disk, and a kill -9
 * before that leaves no pack git would read.
 *
 * Limits: a pack holds at most PACK_OBJECTS_MAX objects and PACK_BYTES_MAX
 * bytes (so that every offset fits the index's 31-bit table); pack_add()
 * refuses more, and the caller writes the pack out before that.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define PACK_OBJECTS_MAX (1u << 24)
#define PACK_BYTES_MAX ((size_t)1 << 31)
#define PACK_ID_RAWSZ 20	/* bytes of an object id (SHA-1) */

/* The kinds of object a pack holds here; the values are git's type codes
 * in a pack entry. */
enum pack_type {
	PACK_COMMIT = 1,
	PACK_TREE = 2,
	PACK_BLOB = 3,
};

struct pack;

/* An empty pack to be written into dir, an existing objects/pack
 * directory (no file is made before the first object); free it with
 * pack_free(), which removes a pack not written. */
struct pack *pack_new(const char *dir);
void pack_free(struct pack *p);

/*
 * Adds an object of type (blob, tree or commit) with the given contents
 * and sets id to its object id (raw, as in a tree entry).  An object already in this pack is not
 * added twice (its id is still set).  -1 with a message when a limit
 * above is reached, zlib fails, or the file cannot be made or written
 * (the message names it); the pack then holds what it held before.
 */
int pack_add(struct pack *p, enum pack_type type, const void *data, size_t len,
	     unsigned char id[PACK_ID_RAWSZ], struct buf *err);

/* Objects and bytes (compressed, with their headers) in the pack. */
size_t pack_objects(const struct pack *p);
size_t pack_bytes(const struct pack *p);

/*
 * Completes the pack as pack-<checksum>.pack and .idx, as described
 * above, and starts an empty one.  Does nothing for an empty pack.  -1
 * with a message naming the path when a write fails; the objects are then
 * still in the pack, and pack_write() may be called again.
 */
int pack_write(struct pack *p, struct buf *err);

/* 1 when name is one of pack_write()'s temporary files. */
int pack_is_temporary(const char *name);

#endif
