#ifndef PERFBOT_SOURCE_MAILDIR_H
#define PERFBOT_SOURCE_MAILDIR_H

/*
 * A Maildir's new mail: the reader under source_open_maildir().  Plain
 * readdir(), not libetpan's maildir driver, whose maildir_update() creates
 * a "maildirfolder" file and whose flag changes report success when the
 * file has gone (both seen in libetpan 1.9.4).
 *
 * Only DIR/new is read, and only to take messages out of it: a message is
 * moved to DIR/cur/NAME:2, (NAME kept as is when it already carries an
 * info part after ':') once the caller has it safely; nothing is created,
 * deleted or rewritten, and DIR/tmp is never looked at.
 *
 * Untrusted: the directory's entries and the files' contents.  Names that
 * begin with '.' and everything that is not a regular file (symbolic
 * links included) are skipped.  At most MAILDIR_MAX_NAMES names are taken
 * from one listing (in name order; the rest wait for the next open).
 *
 * Errors: -1 with one message naming the directory or file.
 */

#include <stddef.h>

#include "buf.h"

#define MAILDIR_MAX_NAMES 100000	/* messages taken from new/ in one open */

struct maildir;

/*
 * Lists DIR/new (the names only, sorted bytewise: Maildir names begin
 * with the delivery time, so this is delivery order).  -1 when DIR/new or
 * DIR/cur is not a directory that can be read.  Free with maildir_free().
 */
int maildir_open(const char *dir, struct maildir **out, struct buf *err);

/*
 * The next message in DIR/new.  1: *name (owned by md, valid until
 * maildir_free()) set, msg replaced by the file's bytes when it has at
 * most limit of them, emptied when it is larger, *size its size either
 * way; 0: no more; -1 when a file that is there cannot be read.  A file
 * that vanished since the listing (another reader took it) is skipped.
 */
int maildir_next(struct maildir *md, const char **name, struct buf *msg, size_t limit,
		 size_t *size, struct buf *err);

/*
 * Moves new/NAME to cur/ (see above) and makes the move durable (both
 * directories fsync'd).  name must be one maildir_next() returned.  -1
 * when the rename fails, also when the file has gone.
 */
int maildir_take(struct maildir *md, const char *name, struct buf *err);

/* Closes the directories; accepts NULL. */
void maildir_free(struct maildir *md);

#endif
