#ifndef PERFBOT_GITCONFIG_H
#define PERFBOT_GITCONFIG_H

/*
 * A reader of git-config files (git-config(1), "CONFIGURATION FILE"):
 * perfbot's configuration syntax (perfbot-config(5), SYNTAX).  perfbot
 * reads it itself rather than through libgit2, whose parser needs
 * git_libgit2_init(), and that loads the system's certificate bundle: 10
 * to 30 ms that every command paid before doing anything (measured; a
 * static build now skips the bundle, gitlib-ca.c, but the reason stood).
 *
 * Read as git reads it:
 *  - sections [name] and [name "subsection"]: names case-insensitive
 *    (letters, digits, '-' and '.'), subsections not (\" and \\ escape);
 *    [name.sub] is the old form of [name "sub"], lowercased;
 *  - variables: a letter, then letters, digits and '-'; case-insensitive;
 *    "name = value", or "name" alone (value NULL: true);
 *  - values: blanks around them dropped, blanks inside kept (each one as a
 *    space), double quotes keep blanks and comment characters, the escapes
 *    \n \t \b \" \\, and a backslash at the end of a line joins the next;
 *  - '#' and ';' begin a comment; CRLF line ends; a UTF-8 byte order mark;
 *  - include.path: the named file is read at that point, relative to the
 *    including file's folder ("~/" is $HOME); a missing one is skipped, as
 *    git skips it.  includeIf sections are passed on but not followed:
 *    there is no repository to test their conditions against.
 *
 * Limits: GITCONFIG_MAX_BYTES a file, GITCONFIG_MAX_DEPTH includes deep;
 * reaching one is an error.  A file is untrusted only in that it can be
 * malformed: errors name the file and line.
 */

#include <stddef.h>

#include "buf.h"

#define GITCONFIG_MAX_BYTES (1 << 20)
#define GITCONFIG_MAX_DEPTH 10

/*
 * Called for each variable, in file order (an included file's in place of
 * its include.path, which is passed on first): name is "section.key" or
 * "section.subsection.key", with section and key lowercased; value is
 * NULL for a variable without '='.  Both live only during the call.
 * Return 0 to go on, -1 to stop (with a message in the err given to the
 * reader, which then gains the file name and line).
 */
typedef int gitconfig_fn(const char *name, const char *value, void *ctx, struct buf *err);

/* Reads the file at path.  0, or -1 with a message. */
int gitconfig_read(const char *path, gitconfig_fn *fn, void *ctx, struct buf *err);

/* Parses text (len bytes; path names it in messages and anchors relative
 * includes).  0, or -1 with a message. */
int gitconfig_parse(const char *text, size_t len, const char *path, gitconfig_fn *fn,
		    void *ctx, struct buf *err);

/* A git boolean: true, yes, on / false, no, off, "" (any case), or an
 * integer (true when not 0, with git's k, m and g suffixes); NULL (a
 * variable without '=') is true.  0 with *out set to 0 or 1, or -1. */
int gitconfig_bool(const char *value, int *out);

#endif
