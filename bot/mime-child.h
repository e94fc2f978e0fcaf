#ifndef PERFBOT_MIME_CHILD_H
#define PERFBOT_MIME_CHILD_H

/*
 * The MIME structure of a multipart message (untrusted), read by
 * libetpan's MIME parser in a child process: mime_find_text() is the seam,
 * the only code that includes libetpan's MIME headers (no libetpan type
 * crosses it).  libetpan 1.9.4 has a heap overflow on boundary="\"" and
 * other unfixed bugs, so the parser runs in a forked child with a time
 * limit (MIME_CHILD_TIMEOUT), CPU and memory limits and no core dump; the
 * child reports what it found through a pipe (at most MIME_MAX_REPORT
 * bytes), and a child that crashes, hangs, or writes anything but a
 * well-formed report leaves the message quarantined with the reason.
 * Before that, the boundary parameters of the whole message are checked
 * (rfc2045_check_boundaries()), so the known-bad ones never reach
 * libetpan at all.  libetpan reads no comment in the MIME fields (it takes
 * "(c) text/plain" for no Content-Type, "(c) base64" for none), so it is
 * given a copy of the message with those comments blanked
 * (rfc2045_blank_comments(): every offset the same), and the boundary
 * check reads that copy too.  The pure half of MIME (fields, transfer
 * decoders) is rfc2045.h.
 *
 * The caller owns everything returned; nothing here prints or exits.
 */

#include <stddef.h>

#include "buf.h"

#define MIME_MAX_DEPTH 20		/* nesting of multiparts */
#define MIME_MAX_PARTS 500		/* leaf parts in one message */
#define MIME_MAX_PROBLEMS 20		/* problems one MIME parse reports */
#define MIME_MAX_REPORT (256 * 1024)	/* bytes of the child's report */
#define MIME_CHILD_TIMEOUT 5		/* seconds the child may run */
#define MIME_CHILD_MEMORY (512UL << 20)	/* bytes of address space the child may add */

/* What mime_find_text() found in a multipart message. */
struct mime_text {
	int found;		/* a text/plain part that is not an attachment */
	size_t offset, length;	/* its body, still transfer-encoded, in raw */
	char *type;		/* its "type/subtype" ("text/plain"); NULL if !found */
	char *charset;		/* its charset as declared; NULL when none */
	char *encoding;		/* its Content-Transfer-Encoding; NULL when none */
	int flowed;		/* format=flowed (RFC 3676) */
	int delsp;		/* delsp=yes */
	int html_only;		/* no such part, but a text/html one */
	size_t attachments;	/* leaf parts that are attachments (disposition
				 * "attachment", or with a file name) */
	size_t parts;		/* leaf parts seen */
	char **problems;	/* oddities, one lowercase sentence each */
	size_t nr_problems;
	char *quarantine;	/* NULL, or why the structure could not be read */
};

struct mime_options {
	int no_isolation;	/* run libetpan in this process (fuzzing only) */
	unsigned timeout;	/* seconds for the child; 0 = MIME_CHILD_TIMEOUT */
	int no_boundary_check;	/* tests only: let known-bad input reach the
				 * child, to see the isolation work */
};

/*
 * Reads the MIME structure of the whole message raw[0..len) with libetpan
 * and picks the first text/plain part that is not an attachment, depth
 * first (so in multipart/alternative the plain text, in multipart/signed
 * the signed text; embedded message/rfc822 parts are not entered).
 * MIME_MAX_DEPTH and MIME_MAX_PARTS are enforced.  Never fails: whatever
 * goes wrong ends up in out->quarantine (with found 0), oddities in
 * out->problems.  opts may be NULL.  Release out with mime_text_release().
 * The child is waited for by its pid, so the caller must not set SIGCHLD
 * to SIG_IGN; stdio buffers are flushed before the fork, so that the
 * child cannot write them a second time.  A multipart message costs a
 * fork (about half a millisecond); single-part mail never comes here.
 */
void mime_find_text(const char *raw, size_t len, const struct mime_options *opts,
		    struct mime_text *out);
void mime_text_release(struct mime_text *t);

#endif
