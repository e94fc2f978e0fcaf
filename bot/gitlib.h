#ifndef PERFBOT_GITLIB_H
#define PERFBOT_GITLIB_H

/*
 * The libgit2 seam's own header: included only by the modules that drive
 * libgit2 (repo.c, archive.c, pack.c and their kin), never by a public
 * header.  Everything else sees perfbot's types (repo.h, archive.h), so
 * libgit2's types and errors stay behind those modules.
 */

#include <git2.h>

#include "buf.h"

struct repo;

/*
 * Turns libgit2's last error into perfbot's: sets err to "WHAT: <libgit2's
 * message>" and returns -1.  Call it right after the failing call:
 * git_error_last() is not cleared by calls that succeed, and may be NULL.
 */
int gitlib_fail(struct buf *err, const char *what);

/* How many times libgit2 asked for the system's CA bundle and was told
 * it cannot be read (gitlib-ca.c): once per git_libgit2_init() that
 * started it, in a static build; never in a shared one. */
extern int gitlib_ca_refused;

/* The libgit2 handle of an open repository (owned by r). */
git_repository *repo_git(const struct repo *r);

#endif
