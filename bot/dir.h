#ifndef PERFBOT_DIR_H
#define PERFBOT_DIR_H

/*
 * Folders on disk: making them (with their parents) and making a change
 * to their entries durable.  The one place perfbot's state, spool and
 * packs do either.
 *
 * Paths are trusted (configuration, perfbot's own names).  Errors: -1 with
 * one message naming the path.
 */

#include <sys/types.h>

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

#endif
