#ifndef PERFBOT_ARCHIVE_META_H
#define PERFBOT_ARCHIVE_META_H

/*
 * The commit metadata public-inbox 1.9 writes for one message in a v2
 * inbox (PublicInbox::Import), computed here so that the archive
 * (archive.h) makes byte-identical commits: the same messages in the same
 * order with the same `now` give the same commits here and in
 * public-inbox-mda.  Pure: bytes and `now` in, text out.  The header is
 * read by the one RFC 5322 reader in public-inbox's reading of the lines
 * (rfc5322.h, RFC5322_PI_LINES), addresses by address_raw_read(),
 * encoded-words by rfc2047_decode():
 *
 *   author     From's display name (RFC 2047 decoded; for "addr (Name)"
 *              the comment; else the address's local part) and address,
 *              '<' and '>' removed, CR dropped, NUL, TAB and LF made
 *              spaces, invalid UTF-8 read as Latin-1; Sender: when From
 *              has no address; "unknown" and "unknown@unknown" when
 *              there is no name or no address at all (public-inbox 1.9
 *              writes them empty with a warning; libgit2 and git fsck
 *              refuse that)
 *   author date    Date: (the first readable one), else the first
 *              Received: date, else `now` at +0000
 *   committer  the inbox's name and address (the caller's)
 *   commit date    the first readable Received: date (public-inbox's
 *              pattern "D Mon YYYY hh:mm:ss +zone", a numeric zone
 *              required), else Date:, else `now` at +0000
 *   zones      as written; a zone of 14:00 or more either way is
 *              written +0000 (the time itself stays right), as
 *              public-inbox does; dates before 1970 are unreadable
 *   message    the first Subject: unfolded, RFC 2047 decoded, cleaned
 *              like the name, plus "\n"; "(no subject)" when missing
 *              or empty
 *
 * The message is untrusted.  Only its header block is read, within the
 * limits below; reaching one is an error for that message, never a
 * silent cut.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define ARCHIVE_HEADER_MAX (256u << 10)		/* bytes of the header block */
#define ARCHIVE_HEADER_LINES_MAX 4096		/* lines in the header block */
#define ARCHIVE_HEADER_LINE_MAX 16384		/* bytes of one header line */

/* A git time stamp. */
struct archive_stamp {
	int64_t time;	/* seconds since the epoch, >= 0 */
	int zone;	/* minutes east of UTC, within -13:59..+13:59 */
};

struct archive_meta {
	struct buf name;		/* the author's name, never empty */
	struct buf email;		/* the author's address, never empty */
	struct archive_stamp author;	/* the author date */
	struct archive_stamp commit;	/* the commit date */
	struct buf message;		/* the commit message, ending in "\n" */
};

/*
 * Reads msg[0..len) (with LF line ends: the bytes as archived, see
 * rfc5322_lf()) into *out, now being the date of a mail without one.
 * 0 with *out set (release it), or -1 with a message when a limit above
 * is reached (then *out needs no release).
 */
int archive_meta_read(const char *msg, size_t len, int64_t now, struct archive_meta *out,
		      struct buf *err);
void archive_meta_release(struct archive_meta *m);

/*
 * Appends the commit object (git's text form) for m: "tree TREE\n",
 * "parent PARENT\n" unless parent is NULL, the author and the committer
 * (committer: "name <address>", trusted) with their dates, an empty line
 * and the message.
 */
void archive_meta_commit(const struct archive_meta *m, const char *tree, const char *parent,
			 const char *committer, struct buf *out);

#endif
