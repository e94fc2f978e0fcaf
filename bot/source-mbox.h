#ifndef PERFBOT_SOURCE_MBOX_H
#define PERFBOT_SOURCE_MBOX_H

/*
 * An mbox file read, never written: the reader under source_open_mbox().
 * libetpan's mbox driver is not used: it drops the last line of a file
 * that does not end in an empty line, and its read-write open rewrites
 * the file (both seen in libetpan 1.9.4).
 *
 * The format read (RFC 4155, mboxo and mboxrd):
 *   - every line that begins with "From " starts a message and is not part
 *     of it (writers escape such lines in bodies as ">From ");
 *   - the file must begin with such a line (an empty file has no message);
 *   - one empty line ("\n" or "\r\n") just before the next "From " line or
 *     the end of the file is the separator and is dropped; a message that
 *     is not followed by one (the last of a file without a final empty
 *     line, or a sloppy writer) is kept whole, down to a last line
 *     without a newline;
 *   - a line matching ">+From " loses one '>' (mboxrd).  An mboxo file
 *     reads the same, except a line that was ">From " before the writer
 *     left it unescaped: it loses its '>' too (mboxo cannot tell them
 *     apart).
 *
 * The file is opened O_RDONLY and only ever read with pread(): nothing,
 * not its mtime nor its bytes, changes.  Mail delivered while perfbot
 * reads is left for the next run: mbox_open() notes the file's size while
 * holding a shared fcntl() lock (the lock MTAs such as Postfix's local(8)
 * and Dovecot take while appending), and only bytes below that size are
 * read, so a half-written message is never seen.
 *
 * Untrusted: the file's contents.  Lines of any length are handled; a
 * message larger than the caller's limit is measured, not stored.  An
 * escaped line whose ">" run is longer than MBOX_CHUNK is copied as is.
 *
 * Errors: -1 with one message naming the file.  Out of memory is fatal.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define MBOX_CHUNK (64 * 1024)		/* bytes read at a time */
#define MBOX_FINGERPRINT_SPAN 4096	/* bytes hashed at each end of a prefix */
#define MBOX_FINGERPRINT_LEN 64		/* hex digits in a fingerprint */
#define MBOX_LOCK_WAIT_MS 10000		/* how long mbox_open() waits for a writer */
#define MBOX_BUSY (-2)			/* mbox_open(): a writer held the lock too long */

struct mbox;

/* Where one message lies in the file.  Plain data. */
struct mbox_pos {
	int64_t start;	/* offset of its "From " line */
	int64_t end;	/* offset just past it: the next "From " line or the end */
	size_t size;	/* its bytes after un-escaping, separator dropped */
};

/*
 * Opens path read-only and notes its size (see above).  -1 when it
 * cannot be opened or is not a regular file; MBOX_BUSY when a writer held
 * its lock for MBOX_LOCK_WAIT_MS.  *out is freed with mbox_free().
 */
int mbox_open(const char *path, struct mbox **out, struct buf *err);

/* The size noted by mbox_open(): nothing past it is read. */
int64_t mbox_size(const struct mbox *m);

/*
 * Reads from offset on from now: offset must be 0, the size, or the
 * offset of a "From " line that begins a line, or of one empty line
 * before such a line (the separator a writer added when it appended after
 * a message that had none).  1 when it is, 0 (and the reader left where
 * it was) when the file has no message boundary there, -1 on a read
 * error.
 */
int mbox_seek(struct mbox *m, int64_t offset, struct buf *err);

/*
 * The next message.  1: *pos filled, msg replaced by the message's bytes
 * when pos->size <= limit, emptied when it is larger (the message is
 * skipped, and pos->size says how large it was); 0: no more messages;
 * -1: a read error, or the file does not begin with a "From " line.
 */
int mbox_next(struct mbox *m, struct buf *msg, size_t limit, struct mbox_pos *pos,
	      struct buf *err);

/*
 * What the first offset bytes of the file were, to notice later that the
 * file was replaced or rewritten: SHA-256, as MBOX_FINGERPRINT_LEN
 * lowercase hex digits and a NUL in hex, of the decimal offset, a ':',
 * the first MBOX_FINGERPRINT_SPAN bytes and the last MBOX_FINGERPRINT_SPAN
 * bytes below offset (each span once when they overlap: the bytes
 * 0..offset-1 when offset <= 2 * MBOX_FINGERPRINT_SPAN).  -1 on a read
 * error or when offset is past the noted size.
 */
int mbox_fingerprint(struct mbox *m, int64_t offset, char hex[MBOX_FINGERPRINT_LEN + 1],
		     struct buf *err);

/* Closes the file; accepts NULL. */
void mbox_free(struct mbox *m);

#endif
