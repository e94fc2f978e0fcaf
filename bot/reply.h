#ifndef PERFBOT_REPLY_H
#define PERFBOT_REPLY_H

/*
 * struct reply: what a maintainer's reply says, read from its text (the
 * decoded UTF-8 text of struct mail; untrusted).  Pure: text in, analysis
 * out, no I/O; it cannot fail (running out of memory is fatal in xmalloc).
 *
 * The rules (perfbot-json(5), perfbot parse; perfbot-ingest(1)), line by
 * line, lines ending in LF:
 *   - format=flowed text (RFC 3676) is first unwrapped: space-stuffing
 *     removed, soft breaks (a trailing space; with DelSp the space goes
 *     too) joined within one quote depth, quoted lines rebuilt as
 *     ">>> text"; "-- " is never a soft break.  Line numbers and counts
 *     are those of the unwrapped text, and a line is quoted when its
 *     quote depth is not 0 (so a stuffed " >x" is not quoted).
 *   - quoted: the first character after optional spaces or tabs is '>'.
 *   - Outlook-style quoting: a line "-----Original Message-----" (also
 *     the German and French wording), or a block of header lines
 *     "From: ..." then "Sent: ..." then, before an empty line, "Subject:
 *     ...", or Outlook's line of underscores right above such a block:
 *     that line and every line after it that is not blank are quoted.
 *   - attribution: an unquoted line ending in ':' that says "wrote",
 *     "writes", "said", "schrieb", "a écrit" or starts with "On " and
 *     is followed (blank lines between allowed) by a quoted line, and
 *     the line before it when the attribution is wrapped onto two lines
 *     (Gmail's "On ..., Name <\naddr> wrote:").  An attribution is
 *     neither quoted nor new, and ends a comment: it introduces the
 *     quote that follows rather than saying anything itself.
 *   - signature: the lines after a line that is exactly "-- ", up to the
 *     next quoted line.  Not new, not a comment, not scanned for
 *     commands or trailers.
 *   - new lines: the other lines that are not blank.
 *   - a comment: each run of new lines (with the blank lines inside it,
 *     trimmed at both ends) that comes after quoted text, up to the next
 *     quoted line, attribution or signature; after_quote is the last
 *     quoted line before it that has text after its '>' marks (the last
 *     quoted line when none has).  New text before the first quote
 *     (top-posting) is new but no comment.
 *   - commands: new lines starting (after white space) with "#perfbot"
 *     and a name: "invalid", "reopen", "subscribe", "unsubscribe"
 *     (arguments optional, kept as a reason), "test" (optional: a
 *     commit, or a git URL and branch; an argument a mail client wrapped
 *     is taken from the next line when that line is new text holding
 *     only a commit or URL, or the branch after a URL), "fixed-by: COMMIT",
 *     "dup-of: MESSAGE-ID" (arguments required; a Message-ID loses its
 *     <>).  Names are read in any case and given in lowercase, the ':'
 *     after them is optional.  A name perfbot does not know, or a known
 *     one without its required argument, is a command too, marked not
 *     understood (ingest records it, so the sender can see what became
 *     of it); "#perfbot" alone, or a name longer than REPLY_MAX_NAME,
 *     is a problem.
 *   - trailers: new lines "Key: value" (key in any case, given as
 *     below; blanks before the ':' allowed: a trailer line as git reads
 *     one, trailer_line_split() of trailer.h) for Tested-by, Reviewed-by,
 *     Acked-by and Reported-by when the value's address (in <>, or the
 *     value itself) is the sender's (ignoring case), and for Fixes,
 *     Closes and Link, which name no person, when the value is not
 *     empty.  Any new line, not git's last paragraph: a reviewer's tag
 *     is often followed by more text, quotes or a signature, and the
 *     reply is no commit message (trailer.h reads those).
 *
 * Limits: REPLY_MAX_COMMANDS, REPLY_MAX_TRAILERS and REPLY_MAX_COMMENTS
 * are kept; reaching one adds a problem saying the rest were ignored.
 */

#include <stddef.h>

#define REPLY_MAX_COMMANDS 100
#define REPLY_MAX_TRAILERS 100
#define REPLY_MAX_COMMENTS 1000
#define REPLY_MAX_PROBLEMS 50
#define REPLY_MAX_NAME 32	/* characters of a #perfbot command's name */

struct reply_comment {
	char *after_quote;	/* the quoted line it answers, as written */
	char *text;		/* its lines joined with "\n" */
	size_t line;		/* 1-based line of its first line */
};

struct reply_command {
	char *name;	/* "invalid", "fixed-by", "dup-of", "reopen", "subscribe",
			 * "unsubscribe", "test"; when not understood, the word as
			 * written, lowercase (letters, digits, '-', '_') */
	char *args;	/* the rest of the line, trimmed; "" when none */
	size_t line;
	int understood;	/* 0: an unknown name, or a missing argument */
};

struct reply_trailer {
	char *key;	/* "Tested-by", "Reviewed-by", "Acked-by", "Reported-by",
			 * "Fixes", "Closes" or "Link" */
	char *value;	/* as written, trimmed */
	size_t line;
};

struct reply {
	size_t quoted_lines;
	size_t new_lines;
	struct reply_comment *comments;
	size_t nr_comments;
	struct reply_command *commands;
	size_t nr_commands;
	struct reply_trailer *trailers;
	size_t nr_trailers;
	char **problems;	/* lowercase sentences, e.g. "line 12: unknown command ..." */
	size_t nr_problems;
};

struct reply_options {
	int flowed;		/* the text part says format=flowed */
	int delsp;		/* ... and delsp=yes */
	const char *sender;	/* the sender's address (From); NULL: no person
				 * trailer is taken */
};

/* Analyses text[0..len); opts may be NULL.  Returns a new struct reply
 * (free it with reply_free()); its strings are pieces of text, so they
 * are valid UTF-8 whenever text is.  text should hold no NUL (the text
 * of struct mail never does): one would cut a returned string short. */
struct reply *reply_analyse(const char *text, size_t len, const struct reply_options *opts);
void reply_free(struct reply *r);

#endif
