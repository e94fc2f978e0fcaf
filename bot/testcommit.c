/*
 * The commit a test request makes, with libgit2 (testcommit.h): the
 * patch applied with git_apply_to_tree() on the head commit's tree,
 * following which file and hunk libgit2 is at, so that a failure names
 * them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitlib.h"
#include "testcommit.h"
#include "banned.h"

/* Where the application is, for the message when it fails. */
struct where {
	struct buf file;
	struct buf hunk;
	int nr_hunk;
};

static int on_delta(const git_diff_delta *delta, void *payload)
{
	struct where *w = payload;

	buf_reset(&w->file);
	buf_adds(&w->file, delta->new_file.path ? delta->new_file.path : delta->old_file.path);
	w->nr_hunk = 0;
	buf_reset(&w->hunk);
	return 0;
}

static int on_hunk(const git_diff_hunk *hunk, void *payload)
{
	struct where *w = payload;
	size_t n = hunk->header_len;

	while (n && (hunk->header[n - 1] == '\n' || hunk->header[n - 1] == '\r'))
		n--;
	w->nr_hunk++;
	buf_reset(&w->hunk);
	buf_add(&w->hunk, hunk->header, n);
	return 0;
}

static int apply(git_repository *g, git_tree *tree, const struct testcommit_input *in,
		 git_oid *out, struct buf *err)
{
	git_diff *diff = NULL;
	git_index *index = NULL;
	git_apply_options opts = GIT_APPLY_OPTIONS_INIT;
	struct where w;
	int ret = -1;

	buf_init(&w.file);
	buf_init(&w.hunk);
	w.nr_hunk = 0;
	opts.delta_cb = on_delta;
	opts.hunk_cb = on_hunk;
	opts.payload = &w;
	if (git_diff_from_buffer(&diff, in->diff, in->diff_len) < 0) {
		gitlib_fail(err, "the patch cannot be read");
		goto out;
	}
	if (git_apply_to_tree(&index, g, tree, diff, &opts) < 0) {
		const git_error *e = git_error_last();

		if (w.nr_hunk)
			err_set(err, "%s: hunk %d (%s) does not apply on the reported commit (%s)",
				w.file.data, w.nr_hunk, w.hunk.data, e ? e->message : "unknown error");
		else if (w.file.len)
			err_set(err, "%s: the patch does not apply on the reported commit (%s)",
				w.file.data, e ? e->message : "unknown error");
		else
			gitlib_fail(err, "the patch does not apply on the reported commit");
		goto out;
	}
	if (git_index_write_tree_to(out, index, g) < 0) {
		gitlib_fail(err, "cannot write the patched tree");
		goto out;
	}
	ret = 0;
out:
	git_index_free(index);
	git_diff_free(diff);
	buf_release(&w.file);
	buf_release(&w.hunk);
	return ret;
}

int testcommit_make(struct repo *r, const struct testcommit_input *in, char id[41],
		    struct buf *err)
{
	git_repository *g = repo_git(r);
	git_oid head_oid, tree_oid, commit_oid;
	git_commit *head = NULL;
	git_tree *tree = NULL, *patched = NULL;
	git_signature *author = NULL, *committer = NULL;
	git_reference *ref = NULL;
	const git_commit *parents[1];
	int ret = -1;

	if (git_oid_fromstrn(&head_oid, in->head, strlen(in->head)) < 0 ||
	    git_commit_lookup(&head, g, &head_oid) < 0)
		return err_set(err, "%s: the reported commit is not in the repository", in->head);
	if (git_commit_tree(&tree, head) < 0) {
		gitlib_fail(err, "cannot read the reported commit's tree");
		goto out;
	}
	if (apply(g, tree, in, &tree_oid, err) < 0)
		goto out;
	if (git_tree_lookup(&patched, g, &tree_oid) < 0) {
		gitlib_fail(err, "cannot read the patched tree");
		goto out;
	}
	if (git_signature_new(&author, *in->author_name ? in->author_name : in->author_email,
			      in->author_email, (git_time_t)in->date, in->zone) < 0 ||
	    git_signature_new(&committer, in->committer_name, in->committer_email,
			      (git_time_t)in->date, in->zone) < 0) {
		gitlib_fail(err, "the patch's author or perfbot.from cannot sign a commit");
		goto out;
	}
	parents[0] = head;
	if (git_commit_create(&commit_oid, g, NULL, author, committer, "UTF-8", in->message,
			      patched, 1, parents) < 0) {
		gitlib_fail(err, "cannot write the commit");
		goto out;
	}
	if (git_reference_create(&ref, g, in->ref, &commit_oid, 1, "perfbot: test request") < 0) {
		gitlib_fail(err, in->ref);
		goto out;
	}
	git_oid_tostr(id, 41, &commit_oid);
	ret = 0;
out:
	git_reference_free(ref);
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(patched);
	git_tree_free(tree);
	git_commit_free(head);
	return ret;
}
