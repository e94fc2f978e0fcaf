#ifndef PERFBOT_REPO_H
#define PERFBOT_REPO_H

/*
 * The git repository where report commits are resolved (perfbot.repo),
 * behind libgit2.  Open it once per run: a lookup costs tens of µs, an
 * open far more.
 *
 * Ids come from untrusted JSON.  They are resolved only as a hex prefix
 * (4-40 digits, through git_commit_lookup_prefix) or as a tag name
 * (refs/tags/NAME, after a syntax check) — never through revparse, whose
 * grammar would search commit messages and accept `@{...}` and friends.
 */

#include <stddef.h>

#include "buf.h"

struct repo;

struct commit_trailer {
	char *key;		/* as written, e.g. "Signed-off-by" */
	char *value;		/* e.g. "Jane Doe <jane@example.org> # 6.1+", on
				 * one line (trailer.h) */
	char *person;		/* "Name <email>" of the value after .mailmap,
				 * or NULL when the value has no <email> */
};

struct commit_info {
	char id[41];		/* full hex id */
	char *subject;		/* first line of the message, "" if none */
	char *author_name;	/* after .mailmap */
	char *author_email;	/* after .mailmap */
	char *tag;		/* a tag that points at this commit, or NULL */
	struct commit_trailer *trailers;	/* in message order, read as git log
						 * reads them (trailer.h) */
	size_t nr_trailers;
};

/*
 * libgit2 took 10 to 30 ms to start, reading the system's certificate
 * bundle; statically linked it no longer does (gitlib-ca.c), and its
 * start is about 2.4 M instructions (mbedTLS's entropy, libssh2's
 * OpenSSL), still worth a thread.  repo_warm_up() starts it on a thread of
 * its own, so that a command does other work meanwhile, and repo_open(),
 * the archive and the hashes below find it started (or wait for the
 * rest); the process keeps it started.  repo_warm_up_end() waits for that
 * thread: call it before the command returns.  Both are for one thread.
 */
void repo_warm_up(void);
void repo_warm_up_end(void);

/* -1 with a message naming path (and saying what to do for the
 * "safe.directory" ownership refusal). */
int repo_open(const char *path, struct repo **out, struct buf *err);
void repo_free(struct repo *r);

/*
 * Resolves spec (a hex id prefix or a tag name) to a commit and fills
 * *out (release with commit_info_release()).  -1 with a message for an
 * unknown or ambiguous id, a tag that does not lead to a commit, or a spec
 * that is neither form.
 */
int repo_lookup(struct repo *r, const char *spec, struct commit_info *out, struct buf *err);
void commit_info_release(struct commit_info *ci);
/* A deep copy of src into dst (release it as any). */
void commit_info_copy(struct commit_info *dst, const struct commit_info *src);

/* Files read from a commit's tree: at most this many bytes. */
#define REPO_MAX_TREE_FILE (16u << 20)

/*
 * Reads the file at path (e.g. "MAINTAINERS", no leading '/') in the tree
 * of commit id (40 hex digits, as struct commit_info has it), appending
 * its bytes to out (at most limit, 0 for REPO_MAX_TREE_FILE) and setting
 * blob_id to the 40 hex digits of its blob, so that a caller can keep
 * what it made of a blob once per run.  0 when read; 1 when the tree has
 * no such file (or path names a directory or a submodule): not an error,
 * out untouched; -1 with a message for an unknown commit, an unreadable
 * object or a file larger than the limit.  Only git objects are read: a
 * work tree, when there is one, is not looked at.
 */
int repo_tree_file(struct repo *r, const char *id, const char *path, size_t limit,
		   struct buf *out, char blob_id[41], struct buf *err);

/*
 * The two halves of repo_tree_file(): the blob id of path in commit id's
 * tree (0, or 1 when there is no such file, or -1 with a message), which
 * costs a tree walk; and the bytes of a blob (appended to out, at most
 * limit, 0 for REPO_MAX_TREE_FILE; 0 or -1), which costs inflating it.
 * A caller that keeps what it made of a blob needs only the first.
 */
int repo_tree_blob(struct repo *r, const char *id, const char *path, char blob_id[41],
		   struct buf *err);
int repo_blob_read(struct repo *r, const char *blob_id, size_t limit, struct buf *out,
		   struct buf *err);

/* The commit HEAD points to (40 hex digits into id).  -1 with a message
 * when HEAD is unborn or names no commit. */
int repo_head(struct repo *r, char id[41], struct buf *err);

/* Appends the 40 hex digits of the SHA-1 git gives text as a blob (what
 * `git hash-object --stdin` prints for it); repo_hash8() the first 8. */
void repo_hash_hex(struct buf *out, const char *text, size_t len);
void repo_hash8(struct buf *out, const char *text, size_t len);

#endif
