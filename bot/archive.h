#ifndef PERFBOT_ARCHIVE_H
#define PERFBOT_ARCHIVE_H

/*
 * The archive: a public-inbox v2 inbox written with libgit2, holding
 * every report sent and every reply ingested (perfbot(1), FILES; the format
 * is public-inbox's own, public-inbox-v2-format(5)).  Layout of the inbox directory:
 *
 *   inbox.lock     held (lock.h: flock, the holder's pid) while an archive is open;
 *                  public-inbox-index takes the same lock, so close the
 *                  archive before running it
 *   git/N.git      bare epochs (N = 0, 1, ...), HEAD -> refs/heads/master,
 *                  created the way public-inbox creates them (its config
 *                  file, include.path to ../../all.git/config)
 *   all.git, msgmap.sqlite3, xap15/   made by public-inbox-index, not here
 *
 * Each message becomes one commit on master of the newest epoch: a blob
 * with the message bytes (CRLF turned into LF), a tree with exactly the
 * entry "m" (mode 100644) pointing at it, and a commit whose parent is
 * the previous commit (the epoch's first commit has none).  The commit
 * metadata is what public-inbox 1.9 writes for the same mail (the author
 * and dates from the mail, the subject as the message: archive-meta.h
 * says exactly), so the same messages in the same order with the same
 * `now` give byte-identical commits, here and in public-inbox-mda.
 *
 * Writing: archive_add() hashes and deflates the objects into the batch's
 * pack file (pack.h), which is completed and synced whenever it holds
 * ARCHIVE_PACK_BYTES of mail and at archive_commit().  A batch
 * thus costs a few fsync() calls instead of two per loose object, which
 * under other disk traffic made loose objects ten times slower; the ref
 * is synced by libgit2 (GIT_OPT_ENABLE_FSYNC_GITDIR, which archive_open()
 * turns on for the whole process).  Like public-inbox's own writer (git
 * fast-import), this leaves one pack per batch: run
 * `git -C git/N.git repack -adq` now and then.
 *
 * Crash safety: the pack is written and synced before refs/heads/master
 * moves, and master moves with one atomic, synced ref update per batch.
 * A kill -9 at any instant leaves a valid repository whose master is the
 * old or the new tip; objects of a lost batch are at most an unreferenced
 * pack that `git gc` removes, and the next writer continues from master.
 *
 * Epochs: like public-inbox, a new epoch starts when the newest one
 * holds ARCHIVE_EPOCH_MAX bytes of raw mail (public-inbox's 1 GiB of
 * packed data over its packing factor 0.4).  On open the epoch's size
 * is taken from its object files (packs plus loose objects, each read
 * as packed bytes / 0.4), while open from the messages added.
 *
 * Messages are untrusted bytes.  Only the header block is read, by the
 * one RFC 5322 reader, within the limits of archive-meta.h
 * (ARCHIVE_HEADER_*); reaching one is an error for that message
 * (nothing is written), never a silent cut.
 */

#include <stddef.h>
#include <stdint.h>

#include "archive-meta.h"
#include "buf.h"

#define ARCHIVE_MESSAGE_MAX (64u << 20)		/* bytes of one message */
#define ARCHIVE_EPOCH_MAX ((uint64_t)1073741824 * 5 / 2)	/* raw bytes per epoch */
#define ARCHIVE_PACK_BYTES (8u << 20)		/* message bytes in one pack */
#define ARCHIVE_LOCK_WAIT_MS 30000		/* how long archive_open() waits for the lock */
#define ARCHIVE_IDENT_MAX 256			/* bytes of the inbox's name or address */

/* archive_open()'s return when another process holds inbox.lock. */
#define ARCHIVE_BUSY (-2)

struct archive;

/* Settings for tests; archive_open() uses the defaults above. */
struct archive_options {
	unsigned lock_wait_ms;	/* wait for inbox.lock at most this long */
	uint64_t epoch_max;	/* raw bytes after which a new epoch starts */
};

/*
 * Opens the v2 inbox at dir, creating dir (one level), inbox.lock and
 * git/0.git when missing, and takes the lock on inbox.lock, waiting at
 * most ARCHIVE_LOCK_WAIT_MS.  name and address are the inbox's committer
 * identity (trusted configuration, checked: 1..ARCHIVE_IDENT_MAX bytes,
 * no control characters, '<' or '>').  Leftovers of a writer that was
 * killed (a stale refs/heads/master.lock, temporary pack files, a
 * half-made epoch) are cleaned up.
 * Returns 0 with *out set (close it with archive_close()), ARCHIVE_BUSY
 * with a message when the lock stayed taken (a temporary failure: try
 * again later), or -1 with a message naming the path.
 */
int archive_open(const char *dir, const char *name, const char *address,
		 struct archive **out, struct buf *err);
/* The same with settings (opts NULL: the defaults). */
int archive_open_opts(const char *dir, const char *name, const char *address,
		      const struct archive_options *opts, struct archive **out,
		      struct buf *err);

/*
 * Adds one message (raw[0..len), untrusted; at most ARCHIVE_MESSAGE_MAX
 * bytes, not empty) as described above.  now (seconds since the epoch)
 * is the date used when the mail has none; the caller passes it so that
 * the result is reproducible.  Makes the blob, tree and commit but does
 * not move master: archive_commit() does, once per batch (until then the
 * objects are in no completed pack).  When the epoch is full, master of the
 * full epoch is moved first and a new epoch started.
 * Returns 0 with the hex ids of the blob and the commit (NUL-terminated),
 * or -1 with a message (a limit reached, a write failed); nothing of this
 * message is then on master, and earlier adds are unaffected.
 */
/* 0 when archive_add() would take the message (its size and header
 * within the limits above), else -1 with the reason: a message that can
 * never be archived, to be set aside rather than retried. */
int archive_check(const char *raw, size_t len, struct buf *err);

int archive_add(struct archive *a, const char *raw, size_t len, int64_t now,
		char blob_hex[41], char commit_hex[41], struct buf *err);

/*
 * Writes the batch's objects (one pack) and then moves refs/heads/master
 * to the newest commit archive_add() made; does nothing when there is
 * none.  0, or -1 with a message (master is then unchanged).
 */
int archive_commit(struct archive *a, struct buf *err);

/* The commit master of the newest epoch that has one points at (hex), or
 * "" when the archive is empty.  Commits not yet archive_commit()ed are
 * not counted.  0, or -1 with a message. */
int archive_tip(struct archive *a, char hex[41], struct buf *err);

/*
 * Calls cb, oldest first, with each commit on master (all epochs, in
 * order) after stop_hex, and the message bytes of its blob "m": what the
 * caller's own records missed after a crash between archive_commit() and
 * its own commit.  stop_hex "" or an id that is not on master walks
 * everything; otherwise it must be 40 hex digits.  Commits without an
 * "m" (public-inbox's deletion commits) are skipped.  raw is valid during
 * the call only.  A nonzero return from cb stops the walk and is
 * returned (the callback keeps its own message); else 0, or -1 with a
 * message.
 */
int archive_walk(struct archive *a, const char *stop_hex,
		 int (*cb)(void *ctx, const char *commit_hex, const char *raw, size_t len),
		 void *ctx, struct buf *err);

/* The epoch being written (the N of git/N.git). */
unsigned archive_epoch(const struct archive *a);

/* Appends the raw mail whose blob is blob_hex (40 hex digits), looked up
 * in every epoch of the inbox at dir; reading takes no lock (git objects
 * never change).  -1 with a message when it is not there. */
int archive_read(const char *dir, const char *blob_hex, struct buf *out, struct buf *err);

/* Releases the lock and frees a; accepts NULL.  Commits not yet
 * archive_commit()ed are dropped (or left unreachable when already
 * packed), master as it was. */
void archive_close(struct archive *a);

#endif
