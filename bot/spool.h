#ifndef PERFBOT_SPOOL_H
#define PERFBOT_SPOOL_H

/*
 * The spool: comparison JSONs waiting for `send`, as files under
 * perfbot.state (DIR):
 *
 *   DIR/spool/incoming/NAME        waiting
 *   DIR/spool/rejected/NAME        refused by send, with
 *   DIR/spool/rejected/NAME.why    the reason, one or more lines
 *
 * Directories are created (mode 0700, with their parents) on demand;
 * spool_share() opens them to a group.  Every change is atomic
 * and durable: a file appears under its final name complete and fsync'd
 * (written under a dot-name, then renamed), renames never replace an
 * existing file, and the directories are fsync'd after each change.
 *
 * Names.  Spool names are "YYYYMMDDhhmmss-PID-N-BASE": the UTC time of
 * queueing, the queueing process, a counter, and the original file name
 * (characters other than [A-Za-z0-9._+-] turned into '_', shortened to
 * SPOOL_MAX_BASE bytes).  Sorting by name is arrival order, and a name is
 * never used twice, so state can record which names became reports.
 *
 * Producers (a lab pipeline) may drop files into incoming/ themselves:
 * write the file under a name beginning with '.' in incoming/ (or anywhere
 * on the same file system), fsync it, then rename it to a name not
 * beginning with '.'.  Dot-files are never looked at, so half-written
 * files are never read.  spool_list_incoming() gives such files a spool
 * name before it lists them.
 *
 * The order `send` keeps, so that nothing is ever deleted without having
 * been either sent or moved aside with a reason:
 *   1. read and render incoming/NAME;
 *   2. commit the report it became to state, with NAME among its sources;
 *   3. spool_done(NAME).
 * A run that dies between 2 and 3 finds NAME again next time, and
 * state_source_find() says it is done.  A file that cannot become a report
 * (invalid, or a duplicate of one already sent) goes to spool_reject()
 * with the reason instead.
 *
 * Untrusted input: file names and file contents given by users and
 * producers.  Names are sanitized as above; only regular files are
 * spooled (a symbolic link is refused, since moving it would move the
 * link, not the comparison).
 *
 * Errors: -1 with one message naming the file in err.  Out of memory is
 * fatal (xmalloc).
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define SPOOL_MAX_FILE (64u << 20)	/* bytes of one spooled file (JSON_MAX_BYTES) */
#define SPOOL_MAX_BASE 80		/* bytes of the original name kept in a spool name */
#define SPOOL_MAX_FILES 100000		/* files spool_list_incoming() will list */
#define SPOOL_MAX_WHY 65536		/* bytes of a rejection reason */

/* Names in a spool directory, sorted; spool_names_release() frees them. */
struct spool_names {
	char **v;
	size_t nr, alloc;
};

void spool_names_release(struct spool_names *names);

/*
 * A spool shared with a group (perfbot.spoolGroup), so that a pipeline
 * running as another user in that group can `perfbot queue` or drop files:
 * DIR becomes 0710 and DIR/spool 02710 of that group, incoming/ and
 * rejected/ 02770 (setgid, so that files made in them take the group).
 * A file queued by another user is then given the group and group read,
 * so that perfbot's user can read it.  group NULL: nothing changes (the
 * spool is perfbot's user's alone, 0700).  Idempotent; perfbot's user
 * must own DIR and be a member of the group.  0, or -1 with a message.
 */
int spool_share(const char *dir, const char *group, struct buf *err);

/*
 * Moves the regular file at path into DIR/spool/incoming under a new
 * spool name (now is the queueing time), appended to *name.  On the same
 * file system it is renamed (never replacing anything); across file
 * systems it is copied to incoming/.tmp-NAME, fsync'd, renamed into place,
 * and only then is path removed.  Either way the file is in exactly one
 * of the two places once this returns 0, and in at least one if it dies
 * midway.  -1 with a message; path is then where it was.
 */
int spool_queue_file(const char *dir, const char *path, int64_t now, struct buf *name,
		     struct buf *err);

/*
 * Appends to *out the names in DIR/spool/incoming, sorted, that are
 * regular files and do not begin with '.'.  Files a producer dropped in
 * under a name that is not a spool name are first renamed to one (now
 * being the time).  A missing incoming/ is empty.  More than
 * SPOOL_MAX_FILES files is an error.  0 or -1.
 */
int spool_list_incoming(const char *dir, int64_t now, struct spool_names *out,
			struct buf *err);

/* Appends to *out the names in DIR/spool/incoming, sorted, as
 * spool_list_incoming() does but renaming nothing (for status, which
 * changes nothing): a producer's file is listed under its own name.
 * 0 or -1. */
int spool_peek_incoming(const char *dir, struct spool_names *out, struct buf *err);

/* Sets *out to DIR/spool/incoming/NAME (for reading the file). */
void spool_incoming_path(struct buf *out, const char *dir, const char *name);

/*
 * Moves incoming/NAME to rejected/ and writes the reason beside it as
 * NAME.why (why plus a final newline; written atomically before the
 * move).  When rejected/ already holds that name, a counter is put in
 * front ("1-NAME").  The name used is appended to *rejected (may be NULL).
 * 0 or -1.
 */
int spool_reject(const char *dir, const char *name, const char *why, struct buf *rejected,
		 struct buf *err);

/*
 * Removes incoming/NAME, for good: call it only after the report NAME
 * became is committed to state.  A file already gone is not an error (a
 * rerun after a crash).  0 or -1.
 */
int spool_done(const char *dir, const char *name, struct buf *err);

/*
 * Takes rejected/NAME back into incoming/ under the spool name it had
 * (without the "N-" spool_reject() may have put in front), and removes
 * its NAME.why, in that order: a file is in exactly one of the two
 * folders, and a kill between the two steps leaves a .why alone.  The
 * name used is appended to *queued (may be NULL).  -1 with a message
 * (nothing changed) when there is no such rejected file, NAME is a .why,
 * or incoming/ has that name already.
 */
int spool_requeue(const char *dir, const char *name, struct buf *queued, struct buf *err);

/* Counts the files spool_list_incoming() would list, and the rejected
 * files (without their .why).  Missing directories count 0.  0 or -1. */
int spool_count(const char *dir, size_t *incoming, size_t *rejected, struct buf *err);

/* 1 if name is a spool name (the form above), else 0. */
int spool_name_is_spool(const char *name);

#endif
