#ifndef PERFBOT_MESSAGE_H
#define PERFBOT_MESSAGE_H

/*
 * The mail itself: perfbot's Subject rule, Message-ID minting, and the
 * RFC 5322 header block (perfbot-mail(7), THE HEADER), put in front of a
 * rendered body.  Pure: the time, the hash and every value are passed in.
 *
 * Nothing from any input reaches a header unchecked: header.c refuses CR,
 * LF and NUL, address.c checks every address, message_check_id() every
 * Message-ID, and the body is checked for line lengths SMTP can carry.
 */

#include <stddef.h>
#include <stdint.h>

#include "address.h"
#include "buf.h"

#define MESSAGE_MAX_LINE 998	/* octets, without the line end (RFC 5322 §2.1.1) */

struct message_fields {
	const struct address *from;
	const struct address *to;
	size_t nr_to;
	const struct address *cc;
	size_t nr_cc;
	const char *subject;		/* UTF-8; encoded as needed */
	int64_t date;			/* seconds since the epoch */
	int zone;			/* minutes east of UTC, for Date */
	const char *message_id;		/* without <> */
	const char *in_reply_to;	/* without <>, or NULL */
	const char *const *references;	/* without <>, oldest first */
	size_t nr_references;
};

/*
 * Appends the complete mail: headers (From, To, Cc, Subject, Date,
 * Message-ID, In-Reply-To, References, MIME-Version, Content-Type,
 * Content-Disposition, Content-Transfer-Encoding, Auto-Submitted,
 * X-Patchwork-Hint), an empty line, and body.  Lines end in '\n'.  -1
 * with a message (out unchanged) when a header value is refused or a body
 * line is longer than MESSAGE_MAX_LINE or holds CR or NUL.
 */
int message_build(struct buf *out, const struct message_fields *f,
		  const char *body, size_t len, struct buf *err);

/* 0 when id (without <>) is a dot-atom "left@right" of printable ASCII
 * without <>, spaces or quotes; else -1 with a message. */
int message_check_id(const char *id, struct buf *err);

/* Appends "YYYYMMDDhhmm.HASH8-TAG@DOMAIN" (no <>), DOMAIN being what
 * follows the last '@' of the sender's address from_email (all of it when
 * it has none). */
void message_mint_id(struct buf *out, const char *stamp, const char *hash8,
		     const char *tag, const char *from_email);

/*
 * Appends the report's Subject:
 * "[TREE:BRANCH] [SUBSYSTEM]  SHA10: HEADLINE P% KIND", where TREE:BRANCH
 * is tree with its first '/' turned into ':', SUBSYSTEM is head_subject up
 * to its first ':' (no group, and one space, when it has none).
 */
void message_subject(struct buf *out, const char *tree, const char *head_subject,
		     const char *head_id, const char *headline, const char *percent,
		     const char *kind);

/* The ids of a References text as perfbot stores it (ids without <>,
 * separated by spaces) as a new array of *nr strings (free each and the
 * array; NULL when none). */
void message_refs_split(const char *refs, char ***out, size_t *nr);
/* Frees what message_refs_split() made. */
void message_refs_free(char **refs, size_t nr);

/*
 * Appends mail (len bytes, as message_build() made it) with its
 * In-Reply-To and References fields replaced: in_reply_to (without <>, or
 * NULL for none) and refs (a References text as perfbot stores it, or
 * NULL/"" for none), where the old ones were (after Message-ID); every
 * other byte is kept.  For a mail whose parent never went out
 * (perfbot-send(1), Order).  -1 with a message, out unchanged, when an id
 * is refused or the mail has no header block.
 */
int message_rethread(struct buf *out, const char *mail, size_t len, const char *in_reply_to,
		     const char *refs, struct buf *err);

#endif
