#ifndef PERFBOT_MBOXRD_H
#define PERFBOT_MBOXRD_H

/*
 * Writing mail as an mboxrd (the format `send --dry-run` and `thread
 * --mbox` print, and that mutt, b4 and public-inbox read): a "From "
 * separator line, the message with every line matching /^>*From / given
 * one more '>', and an empty line.  Pure.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Appends one message.  sender: the envelope sender for the separator
 * ("MAILER-DAEMON" when NULL or empty); date: seconds since the epoch, in
 * asctime form in UTC.  CRLF line ends become LF; a missing final newline
 * is added. */
void mboxrd_append(struct buf *out, const char *sender, int64_t date,
		   const char *raw, size_t len);

#endif
