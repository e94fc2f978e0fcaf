#ifndef PERFBOT_DIR_H
#define PERFBOT_DIR_H

/*
 * Folders on disk: making them (with their parents), making a change to
 * their entries durable, and writing a file into one atomically.  The one
 * place perfbot's state, spool, packs and test requests do any of these.
 *
 * Paths are trusted (configuration, perfbot's own names).  Errors: -1 with
 * one message naming the path.
 */

#include <sys/types.h>
#include <sys/uio.h>

#include "buf.h"

/*
 * Makes path a folder: creates it, and each missing parent, with mode
 * (before the umask), as `mkdir -p` does.  A folder already there is left
 * as it is.  -1 when something on the way is not a folder or cannot be
 * made (the message names the part that failed).
 */
int dir_make(const char *path, mode_t mode, struct buf *err);

/* fsync()s the folder, so that entries made or renamed in it survive a
 * crash.  0 or -1. */
int dir_sync(const char *path, struct buf *err);

/* Writes all n bytes of p to fd, again after EINTR.  0, or -1 with errno
 * set (a write of nothing counts as EIO). */
int dir_write_all(int fd, const void *p, size_t n);

/* The same for the nr parts of iov, in order (writev(), any number of
 * parts). */
int dir_writev_all(int fd, const struct iovec *iov, size_t nr);

/*
 * Writes len bytes of data to path atomically: into ".tmp-BASE" beside it
 * (one a killed run left is removed first), fsync'd, then renamed over
 * path, so a reader sees the old file or the whole new one.  The folder is
 * not synced (dir_sync() after it, when the entry must survive a crash).
 * Mode 0600.  0, or -1 with a message naming the file.
 */
int dir_write_file(const char *path, const char *data, size_t len, struct buf *err);

/* The same with the file's mode (before the umask) and, with sync 0, no
 * fsync: still whole or absent for any reader and after a killed run,
 * but not across a power loss (for files made again from the state, as
 * the site's pages are). */
int dir_write_file_mode(const char *path, const char *data, size_t len, mode_t mode, int sync,
			struct buf *err);
/* ... of the nr parts of iov, in order. */
int dir_write_file_modev(const char *path, const struct iovec *iov, size_t nr, mode_t mode,
			 int sync, struct buf *err);

/* Maps the regular file at path read only: 1 with *data and *len set
 * (dir_unmap_file() them; an empty file is NULL and 0), 0 when it cannot
 * be (none, not a regular file, over max bytes: a caller that only reads
 * what it made falls back on making it again). */
int dir_map_file(const char *path, size_t max, const void **data, size_t *len);
void dir_unmap_file(const void *data, size_t len);

/* dir_write_file_mode(path, ..., mode, 0, err) for a path that does not
 * exist yet: the file is written nameless (O_TMPFILE) and then given its
 * name, whole (linkat()): one change to the folder instead of a temporary
 * name's two (a site's first run makes 10,000 pages).  Where the file
 * system cannot, or the name exists by then: dir_write_file_mode().  0,
 * or -1 with a message naming the file. */
int dir_write_new_file(const char *path, const char *data, size_t len, mode_t mode,
		       struct buf *err);
/* ... of the nr parts of iov, in order. */
int dir_write_new_filev(const char *path, const struct iovec *iov, size_t nr, mode_t mode,
			struct buf *err);

/*
 * dir_write_file_mode(path, ..., mode, 0, err) for a large file replaced
 * often (a site's lists: reports.json is 9 MB for 10,000 reports), whose
 * blocks are reused instead of freed and allocated anew: the file it
 * replaces is kept as ".spare-BASE" beside it, and the next replacement
 * is written into that spare, in place, and renamed over path.  A reader
 * sees the old file or the whole new one, as ever: the spare is written
 * only under a write lease, which the kernel grants only while no one
 * else has it open (a reader of path two replacements ago still reading:
 * then the spare is let go and a new file written).  Where there is no
 * spare, it cannot be leased (another owner, a file system without
 * leases) or it cannot be written: a new file, as dir_write_file_mode()
 * writes it, and the file replaced still kept.  The spare keeps the mode
 * it was made with.  0, or -1 with a message naming the file.
 *
 * (On ext4 mounted with discard, replacing the 9 MB file took 11 ms, most
 * of it freeing the old file's blocks; writing into the spare, 2.5 ms.)
 */
int dir_write_file_spare(const char *path, const char *data, size_t len, mode_t mode,
			 struct buf *err);
/* ... of the nr parts of iov, in order (a file made of many pieces'
 * bytes, written where they are rather than copied together first). */
int dir_write_file_sparev(const char *path, const struct iovec *iov, size_t nr, mode_t mode,
			  struct buf *err);

/* Removes path's spare (dir_write_file_spare()), if any, for a file
 * removed. */
void dir_remove_spare(const char *path);

#endif
