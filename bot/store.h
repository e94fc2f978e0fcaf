#ifndef PERFBOT_STORE_H
#define PERFBOT_STORE_H

/*
 * The store keeps the archive (archive.h, the public-inbox inbox under
 * perfbot.state/archive) and the state database in step, for `send`
 * (every delivered report) and `ingest` (every reply kept).
 *
 * Order of writes, so that a kill -9 at any instant loses nothing and
 * files nothing twice: the message is recorded in the state database by
 * the caller first (state_message_add: its Message-ID is then known, so a
 * second copy is never filed); store_add() writes its objects;
 * store_commit() moves the archive's master, then records in one
 * transaction where each message went and the archive's tip.  A run that
 * died between those two steps is caught up by store_open(): it walks the
 * archive from the tip the database knows and records what it finds,
 * each message under the id mail_known_id() (mail.h) gives it, the very
 * id ingest filed it under.
 *
 * Threads: the archive is written by a thread of the store's own, so that
 * hashing and deflating mail runs beside the caller's work (`send` waits
 * for the SMTP server most of the time).  store_add() copies the message
 * and returns at once; the caller's thread alone uses the state database.
 * A store is used from one thread (the one that opened it).
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "state.h"

#define STORE_MAX_BATCH 100000	/* messages filed before store_commit() */
#define STORE_QUEUE_BYTES (1u << 20)	/* message bytes waiting for the archive's thread (more held memory, not speed) */

struct store;

/* Opens (creating) perfbot.state/archive and catches up the database.
 * ARCHIVE_BUSY when another perfbot holds the archive (temporary), -1 with
 * a message on other errors. */
int store_open(const struct config *cfg, struct state *st, int64_t now,
	       struct store **out, struct buf *err);

/* Files one message (raw bytes as delivered or received, copied) whose
 * Message-ID the database already knows.  Not on master until
 * store_commit().  Waits while STORE_QUEUE_BYTES of mail wait for the
 * archive.  -1 with a message when an earlier message could not be
 * written (the store is then of no further use: close it). */
int store_add(struct store *s, const char *message_id, const char *raw, size_t len,
	      struct buf *err);

/* 1 when message_id was added since the last store_commit(). */
int store_pending(const struct store *s, const char *message_id);

/* Waits until every message given is written, syncs the state's commits
 * (state_sync(): the rows of the batch are on disk before master names
 * them), moves master and records the batch.  0, or -1 with a message (naming the message whose writing
 * failed, if one did). */
int store_commit(struct store *s, struct buf *err);

/* Closes without committing a pending batch (its objects stay unreferenced
 * and its messages unfiled until they are filed again).  Accepts NULL. */
void store_close(struct store *s);

#endif
