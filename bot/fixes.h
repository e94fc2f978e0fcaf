#ifndef PERFBOT_FIXES_H
#define PERFBOT_FIXES_H

/*
 * Fix evidence (perfbot-track(1)): what one commit says about the reports perfbot
 * tracks, and which of several findings stands for a report.  Pure: facts
 * in, findings out; no I/O, no libgit2 (bot/history.h walks the commits).
 *
 * The evidence a commit can carry for a report, strongest first (the
 * order of enum fix_kind):
 *   closes    a `Closes:` trailer whose URL holds one of the report's
 *             Message-IDs (its own or a follow-up's);
 *   link      the same in a `Link:` trailer;
 *   revert    the commit reverts the report's head commit (its message
 *             says `This reverts commit <40 hex>`);
 *   fixes     a `Fixes: <id>` trailer naming the head commit, in a commit
 *             that also has a `Reported-by:` naming perfbot;
 *   fixed-by  the commit is the one a `#perfbot fixed-by:` named (it says
 *             where and when that commit landed, nothing more);
 *   possible  `Fixes:` naming the head commit without perfbot's
 *             `Reported-by:`: shown, but the report stays open.
 * The exact rules:
 *   - trailers are git's, as the walk hands them over (bot/trailer.h: the
 *     last paragraph, as `git log --format='%(trailers)'` reads it, with
 *     no patch divider, so a quoted splat's "------------[ cut here ]"
 *     line hides none); keys compare ignoring ASCII case; a value is read
 *     with surrounding white space (spaces, tabs, CR, LF) ignored;
 *   - a URL is the value's first white-space-separated word (one pair of
 *     <> around it removed); it holds a Message-ID when one of its path
 *     segments ('/'-separated, after the scheme's "//host" and before any
 *     '?' or '#'; every segment when there is no "scheme://"),
 *     percent-decoded and with one pair of <> stripped, equals it byte for
 *     byte.  A segment that merely contains the id does not match;
 *   - `Fixes:` names a head commit when its value starts with 12 to 40 hex
 *     digits (any case), ended by the end of the value, white space or
 *     '(', that are a prefix of the head commit's id;
 *   - `Reported-by:` names perfbot when its address (the text inside <>,
 *     else the whole value, a trailing `# comment` ignored) equals
 *     perfbot.reportedBy's address ignoring ASCII case;
 *   - a commit reverts the commit of the first line of its message that
 *     starts with "This reverts commit " followed by 40 hex digits (git
 *     revert's wording; "This reverts commit <id>, reversing changes
 *     made to ..." for a merge);
 *   - one commit gives a report at most one finding, of its strongest kind.
 *
 * Inputs from commits are untrusted text of any length: nothing here
 * copies them, so they need no limit.  The reports come from the state
 * database: FIX_MAX_MESSAGE_ID bounds what the index accepts.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define FIX_MAX_MESSAGE_ID 998	/* bytes in one Message-ID without <> (RFC 5322 line) */
#define FIX_MIN_FIXES_DIGITS 12	/* hex digits a `Fixes:` id needs to name a commit */
#define FIX_REF_NONE SIZE_MAX	/* fix_finding.ref_rank: on no watched ref */

enum fix_kind {
	FIX_CLOSES,
	FIX_LINK,
	FIX_REVERT,
	FIX_FIXES,
	FIX_FIXED_BY,
	FIX_POSSIBLE,
};

/* "closes", "link", "revert", "fixes", "fixed-by", "possible": the
 * names of status --json's "evidence". */
const char *fix_kind_name(enum fix_kind k);
/* The kind named s; -1 if none. */
int fix_kind_parse(const char *s, enum fix_kind *out);
/* 1 for the kinds that make a report fixed (all but possible). */
int fix_kind_closes(enum fix_kind k);

/* One trailer as git finds it (bot/trailer.h).  Borrowed strings. */
struct fix_trailer {
	const char *key;	/* as written, e.g. "CLOSES" */
	const char *value;	/* on one line, trimmed: continuation lines
				   joined with a space (a CR before one stays) */
};

/* One commit's facts.  Borrowed strings, valid for the call they are
 * given to. */
struct fix_commit {
	const char *id;			/* 40 lowercase hex digits; "" for a patch
					   mail, which is no commit yet (then no
					   fixed-by matches: bot/posted.h) */
	const char *subject;		/* first paragraph on one line; "" if none */
	int64_t date;			/* committer date, seconds since the epoch (UTC) */
	const struct fix_trailer *trailers;	/* in message order */
	size_t nr_trailers;
	const char *reverts;		/* 40 lowercase hex, or NULL (fix_parse_revert()) */
};

/* A tracked report, as given to fix_index_new() (which copies what it
 * keeps, so these may be freed afterwards). */
struct fix_report {
	int64_t id;			/* the report's row id */
	const char *head;		/* its head commit: 40 hex digits */
	const char *const *message_ids;	/* its own and its follow-ups' (<> optional) */
	size_t nr_message_ids;
	const char *fixed_by;		/* the commit a `#perfbot fixed-by:` named
					   (4..40 hex digits), or NULL */
};

/* The reports indexed for fix_scan(): a hash of the Message-IDs, the head
 * ids sorted for prefix look-ups, the fixed-by commits sorted likewise.
 * Read-only once built, so one index may serve any number of scans. */
struct fix_index;

/*
 * Builds the index of nr reports (nr may be 0).  reported_by is
 * perfbot.reportedBy ("Name <address>" or a bare address).  0 with *out
 * set (fix_index_free() it), or -1 with a message naming the report for a
 * head that is not 40 hex digits, a fixed-by that is not 4..40 hex
 * digits, an empty or over-long Message-ID, or one Message-ID given for
 * two reports.
 */
int fix_index_new(const struct fix_report *reports, size_t nr, const char *reported_by,
		  struct fix_index **out, struct buf *err);
void fix_index_free(struct fix_index *ix);

/*
 * The cheap pre-filter, for the walk to call before it parses trailers:
 * 0 when the commit can carry no evidence for any report, so its trailers
 * need not be read; 1 when its message has a line starting with "closes",
 * "link" or "fixes" (any case) or "This reverts commit ", or its id
 * (40 hex) is a fixed-by commit of the index.  A 1 is only "maybe".
 */
int fix_index_wants(const struct fix_index *ix, const char *id, const char *message);
/* The same without an index, for a text that is no commit (a patch mail,
 * bot/posted.h): 1 when a line starts with "closes", "link" or "fixes"
 * (any case) then ':' after optional blanks, or "This reverts commit ". */
int fix_message_wants(const char *message);

/*
 * The id a message says it reverts (the rule above), into out (40 hex
 * digits, lowercased, NUL-terminated): 1, or 0 when it says none.
 */
int fix_parse_revert(const char *message, char out[41]);

/* What fix_scan() found: one per report, in the order of the reports
 * given to fix_index_new(). */
struct fix_match {
	size_t report;		/* index into the reports given to fix_index_new() */
	int64_t report_id;	/* that report's id */
	enum fix_kind kind;	/* the strongest the commit carries for it */
};

struct fix_matches {
	struct fix_match *v;
	size_t nr, alloc;
};

void fix_matches_release(struct fix_matches *m);

/*
 * The evidence commit c carries, by the rules above: empties *out, then
 * fills it.  Returns out->nr.  Cannot fail.
 */
size_t fix_scan(const struct fix_index *ix, const struct fix_commit *c, struct fix_matches *out);

/*
 * Deciding what stands.  A finding is one commit's evidence for one
 * report as seen on one ref.  ref_rank orders the refs a commit may be
 * seen on: fix_ref_rank() gives the report's own tree's ref 0 and any
 * other watched ref 1 + its position in the configuration, so the lower
 * rank is the ref to show.
 */
struct fix_finding {
	const char *commit;	/* 40 hex digits; for a fixed-by command whose
				   commit is not in the repository, the 4..40
				   digits the command gave */
	int64_t date;		/* committer date (UTC); 0 when unknown */
	enum fix_kind kind;
	size_t ref_rank;	/* FIX_REF_NONE when on no watched ref */
};

/* The rank of watched ref number ref_index (configuration order, from 0)
 * for a report whose own tree's ref is number own_index (FIX_REF_NONE
 * when that ref is not watched). */
size_t fix_ref_rank(size_t ref_index, size_t own_index);

/* 1 when a and b name the same commit: equal, or one a prefix of the
 * other (a fixed-by command's short id), ignoring ASCII case. */
int fix_same_commit(const char *a, const char *b);

/* A report's state, as far as fixes are concerned. */
enum fix_state {
	FIX_STATE_OPEN,
	FIX_STATE_FIXED,
	FIX_STATE_INVALID,
	FIX_STATE_DUPLICATE,
};

/*
 * What a report has: its state, the fix that stands (if any), and whether
 * a `#perfbot reopen` came after that fix was recorded (it stays recorded
 * and shown, but no longer holds the report fixed).
 */
struct fix_standing {
	enum fix_state state;
	int has_fix;		/* 0: fix is unset */
	struct fix_finding fix;
	int reopened;		/* a reopen came after fix */
};

/* What fix_decide() says to do; take is 0 when nothing changes. */
#define FIX_TAKE_COMMIT 1	/* the found commit replaces the fix: its id,
				   subject, date, kind and ref */
#define FIX_TAKE_KIND 2		/* same commit, a stronger kind: the kind */
#define FIX_TAKE_REF 4		/* same commit, a better ref: the ref */
#define FIX_TAKE_FACTS 8	/* same commit, first seen on a ref after a
				   fixed-by named it: its full id, subject and
				   date */

struct fix_decision {
	unsigned take;		/* FIX_TAKE_* bits */
	enum fix_state state;	/* the report's state after it */
	int reopened;		/* the reopen mark after it */
};

/*
 * Given what stands and a new finding (never possible: those are kept
 * apart, see fix_decide_possible()), says which stands:
 *   - nothing stands (or a reopen set the fix aside and found is another
 *     commit): found stands (FIX_TAKE_COMMIT), the reopen mark is cleared;
 *   - the same commit (fix_same_commit()): the stronger kind and the
 *     better ref, and the commit's facts when the fix was a fixed-by
 *     command not yet seen on a ref; a set-aside fix seen again does not
 *     fix the report again;
 *   - another commit: a fixed-by sighting (kind fixed-by) never replaces
 *     a fix; trailer evidence replaces a fixed-by fix ("later trailer
 *     evidence replaces it"); between two trailer fixes the earlier
 *     committer date wins, then the stronger kind, then the lower id (so
 *     the outcome does not depend on the order commits are seen in).
 * The state becomes fixed when found stands with a closing kind and the
 * report was open or fixed; invalid and duplicate are kept (the facts are
 * still recorded).  A `#perfbot fixed-by:` command itself is not decided
 * here: it sets the fix (kind fixed-by, ref from where its commit is
 * found, or FIX_REF_NONE) unless the same commit already stands.
 */
struct fix_decision fix_decide(const struct fix_standing *standing, const struct fix_finding *found);

/*
 * Possible fixes are a list beside the fix, one entry per commit, kept
 * after the report is fixed.  Given the entry for found's commit (NULL
 * when there is none), says what to take: FIX_TAKE_COMMIT (a new entry),
 * FIX_TAKE_REF (a better ref) or 0.
 */
unsigned fix_decide_possible(const struct fix_finding *entry, const struct fix_finding *found);

#endif
