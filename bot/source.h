#ifndef PERFBOT_SOURCE_H
#define PERFBOT_SOURCE_H

/*
 * The mail sources `perfbot ingest` reads: a Maildir's new/, an mbox file,
 * an IMAP mailbox, or one message on a file descriptor.  All four look the
 * same to the caller:
 *
 *	source_open_*(..., &s, &err);
 *	while ((r = source_next(s, &msg, &err)) == 1) {
 *		... archive or record msg, then ...
 *		source_ack(s, &msg, &err);
 *		source_msg_release(&msg);
 *	}
 *	source_cursor_get(s, &cursor);	... store it with what was recorded ...
 *	source_close(s);
 *
 * Taking each message exactly once, also across a run that is killed:
 *   - Maildir: a message stays in new/ until source_ack() moves it to cur/,
 *     so one that was read but not acked is read again next time.
 *   - mbox, IMAP and NNTP: nothing in the mailbox changes (the mbox is opened
 *     read-only; the IMAP mailbox with EXAMINE and BODY.PEEK[]).  What was
 *     taken is the cursor the caller stores between runs, in the same
 *     transaction as the messages it recorded.  Acks move the cursor past
 *     the longest run of acked messages from its start, so a message not
 *     acked (a temporary failure) holds back the ones after it, which are
 *     read again next time (the caller drops those it already has, by
 *     Message-ID).
 *
 * The cursor also notices a mailbox that is not the one it was made for:
 * a new IMAP UIDVALIDITY, or an mbox whose start differs from the
 * fingerprint or that has no message boundary at the offset any more
 * (replaced, rotated, rewritten).  Then the source is read from the start
 * and source_restart_reason() says why.
 *
 * Untrusted: everything in the mailboxes and everything an IMAP server
 * sends.  Messages are bytes, not parsed here (a message may hold NUL
 * bytes; len counts them).  Limits: SOURCE_MAX_MESSAGE per message, and
 * those in source-maildir.h, source-mbox.h and source-imap.h.  A message larger than
 * SOURCE_MAX_MESSAGE is never cut: it comes back with oversized set and
 * no bytes, so the caller can record that it skipped it, and ack it.
 *
 * Errors: functions return -1 with one message in err, or
 * SOURCE_TEMPORARY (-2) when trying again later may work (an IMAP server
 * that cannot be reached, a dropped connection or timeout, an mbox locked
 * by a writer, a read error on the descriptor).  After an error in
 * source_next(), calling it again goes on with the next message of a
 * Maildir (the one that failed stays in new/); the other sources return
 * the error again.  Out of memory is fatal (xmalloc).
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define SOURCE_MAX_MESSAGE (32u << 20)	/* bytes of one message */
#define SOURCE_IMAP_BATCH_BYTES (8u << 20)	/* IMAP bodies fetched at once (a larger one alone) */
#define SOURCE_IMAP_BATCH_MAX 100		/* IMAP messages fetched at once */
#define SOURCE_NNTP_BATCH_BYTES (8u << 20)	/* NNTP articles asked for at once (a larger one alone) */
#define SOURCE_NNTP_BATCH_MAX 32		/* NNTP articles asked for at once */
#define SOURCE_TEMPORARY (-2)

struct source;

/* One message, as source_next() hands it over.  The caller owns the
 * strings: source_msg_release() frees them. */
struct source_msg {
	char *raw;	/* the bytes (NUL-terminated for convenience, may hold NULs);
			 * NULL when oversized */
	size_t len;	/* bytes in raw */
	char *key;	/* what identifies it in its source: the file name in new/,
			 * "mbox:OFFSET" (of its "From " line), "imap:UID" or "-" */
	size_t size;	/* its size: len, or for an oversized message the size the
			 * source reports (IMAP: RFC822.SIZE, with CRLF line ends) */
	int oversized;	/* 1: larger than SOURCE_MAX_MESSAGE and skipped */
};

void source_msg_release(struct source_msg *msg);

/* How far a source was read: stored by the caller between runs.  Plain
 * data; all zero means "from the start" (and is what a Maildir or a
 * descriptor always has). */
struct source_cursor {
	int64_t uidvalidity;	/* IMAP: the mailbox's UIDVALIDITY; 0 = none */
	int64_t last_uid;	/* IMAP: every UID up to this one was taken;
				 * NNTP: every article number up to this one */
	int64_t offset;		/* mbox: every message before this byte was taken */
	char fingerprint[65];	/* mbox: mbox_fingerprint() at offset; "" = none */
};

/*
 * DIR/new, read in name order (see source-maildir.h: nothing is created, dot
 * files and anything not a regular file are skipped).  -1 when DIR/new or
 * DIR/cur is missing or unreadable.
 */
int source_open_maildir(const char *dir, struct source **out, struct buf *err);

/*
 * The mbox file at path, read-only (see source-mbox.h for the format and
 * locking).  from: the stored cursor, or NULL to read from the start;
 * when its offset is past the file's end, is not where a message begins,
 * or its fingerprint does not match the file, the whole file is read
 * (source_restart_reason() says why).  -1, or SOURCE_TEMPORARY when a
 * writer kept the file locked.
 */
int source_open_mbox(const char *path, const struct source_cursor *from,
		     struct source **out, struct buf *err);

/*
 * The IMAP mailbox at url (source-imap.h: imaps://USER@HOST[:PORT]/MAILBOX,
 * imap://USER@HOST[:PORT]/MAILBOX?starttls, or plain imap:// to loopback
 * only), with the certificate checked against ca_file (NULL: the
 * system's CAs) before LOGIN with password.  timeout: seconds for
 * connecting and each read (0: libetpan's default, 300).  When the
 * server has no mailbox MAILBOX but lists MAILBOX.0, MAILBOX.1, ... (a
 * public-inbox inbox's slices), the source reads those: see
 * source_imap_slices().  Nothing is searched or read until
 * source_imap_begin().  -1 or SOURCE_TEMPORARY.
 */
int source_connect_imap(const char *url, const char *password, const char *ca_file, int timeout,
			struct source **out, struct buf *err);

/* 0 for one mailbox, else the slices of the inbox, as listed when
 * connected or at the last source_imap_relist(). */
size_t source_imap_slices(const struct source *s);

/* Lists the slices again, so that a slice added meanwhile is read too;
 * nothing is sent for one mailbox.  0, -1 or SOURCE_TEMPORARY. */
int source_imap_relist(struct source *s, struct buf *err);

/*
 * Reads slice (0 for one mailbox; a slice is read once a run, the
 * mailbox too) from the cursor from: finds the messages after
 * from->last_uid (all of them when from is NULL or its UIDVALIDITY differs
 * from the server's) and fetches them as source_next() asks: sizes first,
 * then bodies in batches of at most SOURCE_IMAP_BATCH_MAX messages and
 * SOURCE_IMAP_BATCH_BYTES by the server's sizes, so an oversized message
 * is never downloaded.  A first read (from NULL or without a UIDVALIDITY)
 * with since > 0 (epoch seconds of a day's start, UTC) starts at the
 * first message the server dates that day or later (UID SEARCH SINCE),
 * and the cursor starts just before it (at the highest UID when nothing
 * is that recent), so older mail is never read.  Call it again for the
 * next slice once every message source_next() gave was acked and the
 * cursor stored: the queue of pending messages and the restart reason
 * start anew.  -1 or SOURCE_TEMPORARY.
 */
int source_imap_begin(struct source *s, size_t slice, const struct source_cursor *from,
		      int64_t since, struct buf *err);

/* source_connect_imap() and source_imap_begin(s, 0, from, 0): one
 * mailbox, or a sliced inbox's first slice. */
int source_open_imap(const char *url, const char *password, const char *ca_file, int timeout,
		     const struct source_cursor *from, struct source **out, struct buf *err);

struct nntp;

/*
 * A newsgroup on conn, a connection nntp_open() made (source-nntp.h; the
 * caller keeps it, and may read other groups of the same server on it
 * after source_close()).  Selects the group (GROUP) and goes on after
 * from->last_uid, the article number read up to.  A group read for the
 * first time (from NULL), or whose numbers start again (its low mark
 * above the cursor + 1, or its high mark below the cursor: said by
 * source_restart_reason()), is read from its first article dated `since`
 * or later (nntp_find_date()); the caller leaves out the mail it has by
 * Message-ID.  With nothing new, GROUP is the only command sent.  Then
 * source_next() asks XOVER of NNTP_OVER_MAX numbers at a time (the
 * articles that exist and their sizes, so an oversized one is never
 * downloaded) and ARTICLE of each; a number the server no longer has
 * holds nothing back.  Keys are "nntp:NUMBER".  -1 or SOURCE_TEMPORARY.
 */
int source_open_nntp(struct nntp *conn, const char *group, const struct source_cursor *from,
		     int64_t since, struct source **out, struct buf *err);

/*
 * One message read from fd to its end (`perfbot ingest -` from an MTA);
 * key "-".  The descriptor is read by source_next() and not closed.
 */
int source_open_fd(int fd, struct source **out, struct buf *err);

/*
 * The next message: 1 with *msg filled (release it with
 * source_msg_release()), 0 when there are no more, -1 or SOURCE_TEMPORARY
 * (then *msg is empty).  Messages come in source order: Maildir names,
 * mbox file order, ascending UIDs.
 */
int source_next(struct source *s, struct source_msg *msg, struct buf *err);

/*
 * Marks msg (one source_next() returned from s, oversized or not) as
 * taken; call it only once what the message means is safely recorded.
 * Maildir: moves new/NAME to cur/NAME:2, and fsyncs both directories;
 * -1 when that fails (also when the file has gone).  mbox and IMAP: moves
 * the cursor (see above); -1 only when msg is not one of s's, or when the
 * mbox can no longer be read for the fingerprint.  A descriptor: nothing.
 */
int source_ack(struct source *s, const struct source_msg *msg, struct buf *err);

/* The cursor to store after acks: see struct source_cursor. */
void source_cursor_get(const struct source *s, struct source_cursor *out);

/*
 * NULL when the source was read on from the cursor given (or from the
 * start, when none was given), else why the cursor was dropped ("the
 * UIDVALIDITY of INBOX changed from 1 to 7: reading it from the start"),
 * owned by s.
 */
const char *source_restart_reason(const struct source *s);

/* Ends an IMAP session (LOGOUT), closes files; accepts NULL. */
void source_close(struct source *s);

#endif
