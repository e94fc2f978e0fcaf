#ifndef PERFBOT_MAIL_H
#define PERFBOT_MAIL_H

/*
 * struct mail: one incoming message (untrusted), read once into plain
 * data that the rest of perfbot can trust: parsed once, at the edge,
 * with every limit below (perfbot-ingest(1) says what ingest makes of it).
 *
 * The top-level header is read here, by the one RFC 5322 reader
 * (rfc5322.h), which does not depend on libetpan: "From " (mbox) first
 * lines are skipped, lines end in LF or CRLF, continuation lines are
 * unfolded (only the line break is removed, so "a \n b" is "a  b"),
 * obsolete syntax (white space before the colon, comments, routes, CFWS
 * inside ids and domains) is read, and for the fields used here the first
 * of several wins, with a problem noted.  Ids are read by rfc5322_ids(),
 * addresses by address_list_read() (address.h), encoded-words by
 * rfc2047_decode().  The body is found through MIME: a single-part
 * message is decoded here (rfc2045.h: quoted-printable, base64); a
 * multipart one goes to mime_find_text(), i.e. to libetpan in a child
 * process (mime-child.h), and a crash, hang or limit there leaves the mail
 * quarantined (with the header fields still read).
 *
 * Every string in a struct mail is valid UTF-8 without NUL (bad bytes
 * become U+FFFD), so it can go into JSON as it is; header text may hold
 * other control characters, which the JSON writer escapes.  Oddities
 * never fail the parse: they are listed in problems, one lowercase
 * sentence each, with any quoted input escaped.
 *
 * Limits (reaching one is a problem, never a silent cut):
 *   MAIL_MAX_SIZE      a larger message is quarantined, its header read;
 *   MAIL_MAX_HEADERS   fields after that many are ignored, the mail is
 *                      quarantined;
 *   MAIL_MAX_LINE      a header line longer than that drops its field;
 *   MAIL_MAX_FIELD     a field longer than that (unfolded) is dropped;
 *   MAIL_MAX_IDS       ids read from In-Reply-To or References;
 *   MAIL_MAX_ID        bytes in one Message-ID (both rfc5322.h's);
 *   ADDRESS_MAX_LIST   addresses read from one field (address.h);
 *   MAIL_MAX_PROBLEMS  problems listed (one more says the rest were cut).
 */

#include <stddef.h>
#include <stdint.h>

#include "address.h"
#include "buf.h"
#include "rfc5322.h"

#define MAIL_MAX_SIZE (32UL << 20)	/* bytes in one message */
#define MAIL_MAX_HEADERS 1000		/* header fields */
#define MAIL_MAX_LINE 65536		/* bytes in one header line */
#define MAIL_MAX_FIELD (256 * 1024)	/* bytes in one unfolded field */
#define MAIL_MAX_IDS RFC5322_MAX_IDS	/* ids in In-Reply-To or References */
#define MAIL_MAX_ID RFC5322_MAX_ID	/* bytes in one Message-ID (a line) */
#define MAIL_MAX_PROBLEMS 50		/* problems listed */

/* The text part the text came from. */
struct mail_text_part {
	char *type;	/* "text/plain" */
	char *charset;	/* as declared, lowercase; NULL when none */
	char *encoding;	/* Content-Transfer-Encoding, lowercase; "7bit" when none */
	int flowed;	/* format=flowed (RFC 3676) */
	int delsp;	/* delsp=yes */
};

struct mail {
	char *message_id;	/* without <>; NULL when absent or malformed */
	char **in_reply_to;	/* ids without <>, in mail order; malformed ones dropped */
	size_t nr_in_reply_to;
	char **references;
	size_t nr_references;
	struct address *from;	/* the first author; NULL when none could be read */
	struct address *to;	/* name RFC 2047-decoded, email as written (CFWS removed) */
	size_t nr_to;
	struct address *cc;
	size_t nr_cc;
	int has_date;		/* 0: Date absent or unreadable (a problem says which) */
	int64_t date;		/* epoch seconds (UTC) */
	int date_zone;		/* the zone written, minutes east of UTC */
	char *subject;		/* unfolded, RFC 2047-decoded, trimmed; NULL when absent */
	/*
	 * Auto-Submitted with a value other than "no" (RFC 3834), or
	 * X-Autoreply / X-Autorespond (vacation programs), or Precedence:
	 * auto_reply.  Precedence: bulk/junk/list is NOT counted: every
	 * mailing list adds it to the maintainers' own replies.
	 */
	int auto_submitted;
	char *text;		/* the text (below); never NULL, "" when none */
	size_t text_len;
	/*
	 * text is the body of the first text/plain part that is not an
	 * attachment, transfer-decoded, converted to UTF-8 from its charset
	 * (missing or unknown: UTF-8 if valid, else Windows-1252; see
	 * charset.h), with CRLF (and a lone CR) turned into LF.  format=flowed
	 * text is left as sent: reply.h undoes it.
	 */
	int has_text_part;	/* text_part is set */
	struct mail_text_part text_part;
	int html_only;		/* no such part, but a text/html one */
	size_t attachments;	/* attachments (mime-child.h says what counts) */
	char *quarantine;	/* NULL, or why the body could not be read */
	char **problems;
	size_t nr_problems;
};

struct mail_options {
	int no_isolation;	/* libetpan in this process: for the fuzzer only */
	unsigned timeout;	/* seconds for the MIME child; 0 = MIME_CHILD_TIMEOUT */
};

/*
 * Reads the message raw[0..len) (untrusted; need not be NUL-terminated).
 * 0 with *out set (free it with mail_free()), whatever the oddities; -1
 * with a message and *out NULL only when the input is not a mail at all:
 * it has no header field before its first empty line (an empty file,
 * random bytes, plain text).  mail_parse() uses the default options.
 */
int mail_parse(const char *raw, size_t len, struct mail **out, struct buf *err);
int mail_parse_with(const char *raw, size_t len, const struct mail_options *opts,
		    struct mail **out, struct buf *err);
void mail_free(struct mail *m);

/*
 * The Message-ID the mail raw[0..len) (untrusted) is known by: ingest
 * files it under this id, and the store's recovery walk (store.h) finds
 * it again under it in the archive, so this is the only place it is
 * computed.  Its Message-ID field read exactly as mail_parse() reads it
 * (m->message_id: the first such field, a bare id taken too); when there
 * is none, "<git blob id of the bytes>@perfbot.invalid", the bytes taken
 * with CRLF made LF as the archive stores them, so that the received and
 * the archived copy of a mail give the same id.  Without <>; malloc'd,
 * never NULL.
 */
char *mail_known_id(const char *raw, size_t len);

/* The same id from m, which mail_parse() made of raw[0..len): its
 * header is not read a second time (ingest reads every mail once). */
char *mail_known_id_of(const struct mail *m, const char *raw, size_t len);

#endif
