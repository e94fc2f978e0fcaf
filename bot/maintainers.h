#ifndef PERFBOT_MAINTAINERS_H
#define PERFBOT_MAINTAINERS_H

/*
 * A MAINTAINERS file (the Linux kernel's format) and the choice, for a
 * patch, of the sections, lists, maintainers and reviewers that the
 * kernel's scripts/get_maintainer.pl (0.26, Linux 6.1) prints when run as
 *     get_maintainer.pl --no-tree --no-git --no-git-fallback [--no-m]
 *                       [--no-r] --mpath MAINTAINERS PATCH
 * from a directory that is not a kernel tree.  Pure: bytes in, structs
 * out; no files, no git (bot/patch.h reads a commit; bot/repo.h reads the
 * file from a commit's tree).
 *
 * The file is untrusted (it comes from the repository being tested).
 *
 * Reading (maintainers_parse), line by line, as get_maintainer.pl does:
 *   - "T: value" (T one capital letter, a colon, white space skipped) is
 *     a tag line.  M: R: L: S: F: X: N: K: are used; every other letter
 *     (W: T: Q: B: C: P: ...) is kept and ignored, without error.
 *   - blank lines and lines whose first non-blank character is '#' are
 *     dropped entirely: they do not end a section.
 *   - any other line (a section name, but also a malformed tag such as
 *     "m: x", "F :x", "FOO: x", an indented line) is a section name: the
 *     tag lines that follow it, up to the next such line, are its
 *     section.  The text before the first tag line is the preamble.  A
 *     file whose first kept line is a tag line has a first section named
 *     by that line, which then only counts for its patterns (F: X: N:).
 *   - so a malformed line is never an error: it starts a section of its
 *     own, exactly as in get_maintainer.pl.
 *   - values are kept as written, trailing white space included (a
 *     trailing space makes an F: pattern match nothing, as there).
 * Deliberate departures, each because get_maintainer.pl's behaviour
 * depends on something perfbot does not have or is plainly accidental:
 *   - CRLF files are read as LF (get_maintainer.pl keeps the CR in every
 *     value, so nothing would match);
 *   - an F:/X: value naming a directory without a trailing '/' is taken
 *     as written (get_maintainer.pl adds the '/' when the directory exists
 *     in its working directory; routing works from git objects);
 *   - an empty N: or K: never matches (in Perl an empty pattern means
 *     "the last successful one");
 *   - an N: or K: pattern that is not valid Perl, or that PCRE2 cannot
 *     read (bot/perlre.h), never matches and is listed by
 *     maintainers_notes() with its line (get_maintainer.pl dies on an
 *     invalid one); an F:/X: pattern Perl would refuse ("[" unclosed)
 *     likewise; so is, from then on, one that gives up on a line (a
 *     runaway pattern reaching bot/perlre.h's match limit, where Perl
 *     would run on);
 *   - a list whose address is not an address ("L: Mali DP Maintainers
 *     <malidp@foss.arm.com>" gives the word "Mali", which get_maintainer
 *     prints as an empty line) is left out.
 *
 * Matching (maintainers_match), given the paths a patch changes and the
 * patch text:
 *   - files: the paths given, plus those get_maintainer.pl reads from the
 *     patch text: both names of "diff --git a/X b/Y", "rename from/to X",
 *     " mode change 100644 => 100755 X", and "--- X" / "+++ X" with its
 *     first directory removed (so an added or deleted file also gives
 *     "dev/null", from "--- /dev/null", which THE REST matches);
 *     sorted (byte order) and unique.
 *   - F: patterns: '*' is any run of characters ('/' included), '?' any
 *     one, '.' itself, '[...]' a class; other regex characters keep their
 *     Perl meaning.  The pattern must match at the start of the path and
 *     need not reach its end ("f/sysfs-power" matches "f/sysfs-powercap").
 *     A pattern ending in '/' matches everything below; one that does not
 *     matches only paths with as many '/' as it has ("drivers/a*" does not
 *     reach "drivers/ab/c.c").  X: patterns, same rules, are tested first:
 *     a path excluded by a section's X: does not select that section.
 *   - N: is a Perl regex (/x) searched anywhere in the path (PCRE2,
 *     bot/perlre.h).
 *   - for each path, its sections come most specific first: a section's
 *     depth is that of its last (in file order) F: or N: line matching
 *     the path: the number of '/' in the pattern, plus one when it does
 *     not end in '/'; 0 for N:; -1 for a pattern starting with '*' (THE
 *     REST's two patterns, a star with or without a slash).  Sections of
 *     equal depth come in file order (get_maintainer.pl uses Perl's hash
 *     order there, which changes from run to run).  Paths are taken in
 *     sorted order, and a section selected again by a later path keeps
 *     its first place.
 *   - K: is a Perl regex (/x) searched in each line of the patch text,
 *     its newline included (get_maintainer.pl reads lines with <>):
 *     in the lines before the first "--- X"/"+++ X" line (mail headers,
 *     author, subject, message, diffstat) as written, after it as
 *     "^[+-].*" followed by the pattern (so, as in get_maintainer.pl, an
 *     alternative after a top-level '|' is searched in every line).  The
 *     lines read as files above, "Fixes: <id>" lines and "@@ -n,m" hunk
 *     headers are not searched.  Sections found by K: come after all
 *     others, ordered by the K: line's position as text ("100" before
 *     "99"), as get_maintainer.pl sorts them.
 *   - from each selected section in order: L: lists (one whose text after
 *     the address says "subscribers-only" is left out; "moderated" ones
 *     are kept and flagged), M: maintainers and R: reviewers (when asked
 *     for; an M: or R: value that is a valid RFC 822 list of several
 *     addresses gives each).
 *   - de-duplication as get_maintainer.pl: a person whose name (ignoring
 *     ASCII case) or address (ignoring ASCII case) was already given by an
 *     earlier section is left out, so the first section naming a person
 *     decides their address and role; a list already given is left out;
 *     an address that is both a person's and a list's is given once, as
 *     the person.  Which people take part depends on the flags: without
 *     MAINTAINERS_REVIEWERS a reviewer does not take a person's place
 *     (as --no-r).
 *   - THE REST: its list is in every answer (it matches every path); its
 *     people are never given, nor is Linus Torvalds
 *     <torvalds@linux-foundation.org> from any section (get_maintainer.pl's
 *     "chief penguin", removed from every answer).
 *
 * Not done (get_maintainer.pl does them only with a work tree or git
 * history): the e-mail addresses in changed .yaml files, .mailmap,
 * git history for paths that no pattern names exactly.
 *
 * Limits (each an error): MAINTAINERS_MAX_SIZE bytes of file,
 * MAINTAINERS_MAX_LINE bytes a line, MAINTAINERS_MAX_FILES paths and
 * MAINTAINERS_MAX_PATCH bytes of patch text a match, MAINTAINERS_MAX_PATH
 * bytes a path.  N:/K: patterns and their matches are bounded by
 * bot/perlre.h.
 *
 * Cost (tests/bench/bench-route): parsing the kernel's file (23,000
 * lines, 7,000 F: patterns) takes about 1.5-2 ms of CPU, matching a
 * typical commit 10-50 µs: F: patterns are indexed by their literal
 * leading directory (a path looks up each of its leading directories),
 * and N:/K: regexes are run (and JIT-compiled, on first use) only on a
 * path or line that holds one of their required literals.  Parse once
 * per run per blob; across runs, maintainers_image() keeps the parse
 * (about 1.9 MB for the kernel's file) and maintainers_load() takes it
 * back in about 0.3 ms, using its arrays where they lie (a regex is
 * compiled on first use).
 */

#include <stddef.h>

#include "buf.h"

#define MAINTAINERS_MAX_SIZE (16u << 20)	/* bytes of a MAINTAINERS file */
#define MAINTAINERS_MAX_LINE 4096		/* bytes of one of its lines */
#define MAINTAINERS_MAX_FILES 10000		/* paths given to one match */
#define MAINTAINERS_MAX_PATH 4096		/* bytes of one path */
#define MAINTAINERS_MAX_PATCH (64u << 20)	/* bytes of patch text */

struct maintainers;

/* A section of the file.  The strings point into the parsed file. */
struct maintainers_section {
	const char *name;	/* its name line as written, e.g. "CONTROL GROUP (CGROUP)" */
	const char *status;	/* its last S: value, "" when none */
	unsigned line;		/* 1-based line of the name in the file */
	int is_rest;		/* the section named "THE REST" */
};

/* Why a section was selected (the first reason found). */
struct maintainers_hit {
	const struct maintainers_section *section;
	char tag;		/* 'F', 'N' or 'K' */
	const char *pattern;	/* the pattern's value as written */
	unsigned line;		/* 1-based line of the pattern */
	const char *file;	/* the path it matched (owned by the selection); NULL for K: */
};

enum maintainers_kind {
	MAINTAINERS_MAINTAINER,	/* an M: person */
	MAINTAINERS_REVIEWER,	/* an R: person */
	MAINTAINERS_LIST,	/* an L: list */
};

struct maintainers_entry {
	enum maintainers_kind kind;
	char *name;		/* display name, unquoted; "" when none (always for lists) */
	char *address;		/* as written in MAINTAINERS */
	int moderated;		/* lists: marked moderated */
	const struct maintainers_section *section;	/* the section that gave it */
};

struct maintainers_selection {
	struct maintainers_hit *hits;	/* selected sections, in order */
	size_t nr_hits;
	struct maintainers_entry *entries;	/* people (M: and R:, in order), then lists */
	size_t nr_entries;
	char **files;			/* the paths routed, sorted */
	size_t nr_files;
};

/* What maintainers_match() gives (get_maintainer.pl's --m, --r, --l). */
#define MAINTAINERS_LISTS 1u
#define MAINTAINERS_MAINTAINERS 2u
#define MAINTAINERS_REVIEWERS 4u
#define MAINTAINERS_ALL (MAINTAINERS_LISTS | MAINTAINERS_MAINTAINERS | MAINTAINERS_REVIEWERS)

/*
 * Parses the file's bytes into a new *out (free with maintainers_free()).
 * The bytes are taken, not copied: text is left empty (also on failure,
 * but for a file too large or holding a NUL byte).  Malformed lines are
 * not errors (see above); -1 with a message only for a limit passed
 * (naming the line) or a NUL byte.  name (e.g. "MAINTAINERS") prefixes
 * messages and notes.
 */
int maintainers_parse(const char *name, struct buf *text, struct maintainers **out, struct buf *err);
void maintainers_free(struct maintainers *m);

/*
 * The parse kept for later runs (bot/route.h keeps it in a file): an
 * image of m, appended to out, marked with key (the blob id, at most
 * MAINTAINERS_IMAGE_KEY - 1 bytes; -1 when longer).  Make it right after
 * maintainers_parse(), before any match.  maintainers_load() takes an
 * image back (only one written by this very build: another layout is
 * refused) into a new *out, checking every index in it.  It does not
 * copy the image: image (8-byte aligned, as malloc() and mmap() give it)
 * must stay as it is until maintainers_free(*out), and is never written
 * (a read-only mapping will do).  -1 with a message for an image that is
 * of another build or key, or damaged.  The loaded m is what the parse
 * gave, notes included.
 */
#define MAINTAINERS_IMAGE_KEY 64
int maintainers_image(const struct maintainers *m, const char *key, struct buf *out);
int maintainers_load(const char *key, const void *image, size_t len, struct maintainers **out,
		     struct buf *err);

/* "NAME:LINE: ..." lines, one per pattern that can never match; "" when
 * all are usable.  Grows when maintainers_match() gives a pattern up (a
 * match limit reached).  Owned by m. */
const char *maintainers_notes(const struct maintainers *m);

/* Number of sections, and the i-th in file order (for tools and tests). */
size_t maintainers_nr_sections(const struct maintainers *m);
const struct maintainers_section *maintainers_section(const struct maintainers *m, size_t i);

/*
 * Selects for a patch: files are the nr_files paths it changes (as in the
 * repository, no leading "a/"), patch its text (patch_len bytes, may be
 * NULL with 0: then no K: match and no paths from text).  flags are
 * MAINTAINERS_* bits.  Fills *out (release with
 * maintainers_selection_release()); -1 with a message when a limit is
 * passed.  m is not changed but for compiling regexes on first use: one
 * m must not be matched from two threads at once.
 */
int maintainers_match(struct maintainers *m, const char *const *files, size_t nr_files,
		      const char *patch, size_t patch_len, unsigned flags,
		      struct maintainers_selection *out, struct buf *err);
void maintainers_selection_release(struct maintainers_selection *sel);

#endif
