#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "date.h"
#include "gitlib.h"
#include "patch.h"
#include "xalloc.h"
#include "banned.h"

/* format-patch's diffstat width (git's MAIL_DEFAULT_WRAP). */
#define STAT_WIDTH 72

/* One changed file, as the diffstat shows it. */
struct stat_file {
	char *name;		/* the name shown: quoted, or "pfx{a => b}sfx" */
	uintmax_t added, deleted;	/* lines; bytes for a binary file */
	int binary;
};

static int needs_quote(unsigned char c)
{
	/* git quotes these in paths (core.quotePath, its default) */
	return c == '"' || c == '\\' || c < 0x20 || c >= 0x7f;
}

/* A path as git writes it in a diffstat: "as is", or C-quoted. */
static void add_quoted(struct buf *out, const char *s)
{
	static const char from[] = "\a\b\t\n\v\f\r\"\\", to[] = "abtnvfr\"\\";
	const char *p;
	int quote = 0;

	for (p = s; *p; p++)
		quote |= needs_quote((unsigned char)*p);
	if (!quote) {
		buf_adds(out, s);
		return;
	}
	buf_addc(out, '"');
	for (p = s; *p; p++) {
		const char *k = needs_quote((unsigned char)*p) ? strchr(from, *p) : NULL;

		if (!needs_quote((unsigned char)*p))
			buf_addc(out, *p);
		else if (k)
			buf_addf(out, "\\%c", to[k - from]);
		else
			buf_addf(out, "\\%03o", (unsigned char)*p);
	}
	buf_addc(out, '"');
}

static int any_quote(const char *s)
{
	for (; *s; s++)
		if (needs_quote((unsigned char)*s))
			return 1;
	return 0;
}

/*
 * A rename as git's diffstat shows it: the common leading directories and
 * the common trailing part (from a '/') written once, "a/{b => c}/d".
 */
static void add_rename(struct buf *out, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), pfx = 0, sfx = 0, i, ia, ib, stop;
	size_t mid_a, mid_b;

	if (any_quote(a) || any_quote(b)) {
		add_quoted(out, a);
		buf_adds(out, " => ");
		add_quoted(out, b);
		return;
	}
	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			pfx = i + 1;
	/* the suffix may reach back to the prefix's own '/' */
	stop = pfx ? pfx - 1 : 0;
	for (ia = la, ib = lb;; ia--, ib--) {
		if (a[ia] != b[ia - la + lb])
			break;
		if (a[ia] == '/')
			sfx = la - ia;
		if (ia == stop || ib == stop)
			break;
	}
	mid_a = la > pfx + sfx ? la - pfx - sfx : 0;
	mid_b = lb > pfx + sfx ? lb - pfx - sfx : 0;
	if (pfx + sfx) {
		buf_add(out, a, pfx);
		buf_addc(out, '{');
	}
	buf_add(out, a + pfx, mid_a);
	buf_adds(out, " => ");
	buf_add(out, b + pfx, mid_b);
	if (pfx + sfx) {
		buf_addc(out, '}');
		buf_add(out, a + la - sfx, sfx);
	}
}

static int decimal_width(uintmax_t n)
{
	int w = 1;

	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w;
}

/*
 * The diffstat's lines as `git format-patch` prints them, the names cut
 * to the width it gives them ("..." and the tail from a '/'); the +/-
 * histogram is left out.
 */
static void add_diffstat(struct buf *out, const struct stat_file *f, size_t n)
{
	uintmax_t max_change = 0, adds = 0, dels = 0;
	size_t i, max_len = 0;
	long width = STAT_WIDTH, name_width, graph_width, number_width = 0, bin_width = 0;

	for (i = 0; i < n; i++) {
		size_t len = strlen(f[i].name);

		if (len > max_len)
			max_len = len;
		if (f[i].binary) {
			long w = 14 + decimal_width(f[i].added) + decimal_width(f[i].deleted);

			if (w > bin_width)
				bin_width = w;
			number_width = 3;
			continue;
		}
		if (f[i].added + f[i].deleted > max_change)
			max_change = f[i].added + f[i].deleted;
	}
	if (decimal_width(max_change) > number_width)
		number_width = decimal_width(max_change);
	if (width < 16 + 6 + number_width)
		width = 16 + 6 + number_width;
	graph_width = (long)max_change + 4 > bin_width ? (long)max_change : bin_width - 4;
	name_width = (long)max_len;
	if (name_width + number_width + 6 + graph_width > width) {
		if (graph_width > width * 3 / 8 - number_width - 6) {
			graph_width = width * 3 / 8 - number_width - 6;
			if (graph_width < 6)
				graph_width = 6;
		}
		if (name_width > width - number_width - 6 - graph_width)
			name_width = width - number_width - 6 - graph_width;
	}
	for (i = 0; i < n; i++) {
		const char *name = f[i].name, *prefix = "";
		long len = name_width, name_len = (long)strlen(name);

		if (name_width < name_len) {
			const char *slash;

			prefix = "...";
			len -= 3;
			if (len < 0)
				len = 0;
			name += name_len - len;
			slash = strchr(name, '/');
			if (slash)
				name = slash;
		}
		buf_addf(out, " %s%-*s |", prefix, (int)len, name);
		if (f[i].binary) {
			buf_addf(out, " %*s", (int)number_width, "Bin");
			if (f[i].added || f[i].deleted)
				buf_addf(out, " %ju -> %ju bytes", f[i].deleted, f[i].added);
		} else {
			buf_addf(out, " %*ju", (int)number_width, f[i].added + f[i].deleted);
			adds += f[i].added;
			dels += f[i].deleted;
		}
		buf_addc(out, '\n');
	}
	buf_addf(out, " %zu file%s changed", n, n == 1 ? "" : "s");
	if (adds || !dels)
		buf_addf(out, ", %ju insertion%s(+)", adds, adds == 1 ? "" : "s");
	if (dels || !adds)
		buf_addf(out, ", %ju deletion%s(-)", dels, dels == 1 ? "" : "s");
	buf_addc(out, '\n');
}

/* --summary: created, deleted, renamed, mode-changed files. */
static void add_summary(struct buf *out, const git_diff_delta *d)
{
	switch (d->status) {
	case GIT_DELTA_ADDED:
		buf_addf(out, " create mode %06o ", d->new_file.mode);
		add_quoted(out, d->new_file.path);
		buf_addc(out, '\n');
		return;
	case GIT_DELTA_DELETED:
		buf_addf(out, " delete mode %06o ", d->old_file.mode);
		add_quoted(out, d->old_file.path);
		buf_addc(out, '\n');
		return;
	case GIT_DELTA_RENAMED:
		buf_adds(out, " rename ");
		add_rename(out, d->old_file.path, d->new_file.path);
		buf_addf(out, " (%d%%)\n", d->similarity);
		if (d->old_file.mode != d->new_file.mode)
			buf_addf(out, " mode change %06o => %06o\n", d->old_file.mode, d->new_file.mode);
		return;
	default:
		if (d->old_file.mode != d->new_file.mode) {
			buf_addf(out, " mode change %06o => %06o ", d->old_file.mode, d->new_file.mode);
			add_quoted(out, d->new_file.path);
			buf_addc(out, '\n');
		}
		return;
	}
}

/* A binary file's patch is cut after its "GIT binary patch" line. */
static int add_patch_text(struct buf *out, const char *text, size_t len, int binary)
{
	const char *cut;

	if (binary && (cut = strstr(text, "\nGIT binary patch\n")) != NULL)
		len = (size_t)(cut - text) + strlen("\nGIT binary patch\n");
	return buf_add(out, text, len);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_path(struct patch *p, size_t *alloc, const char *path)
{
	ALLOC_GROW(p->files, p->nr_files + 1, *alloc);
	p->files[p->nr_files++] = xstrdup(path);
}

static int diff_commit(git_repository *git, git_commit *c, git_diff **diff, const char *id, struct buf *err)
{
	git_tree *new_tree = NULL, *old_tree = NULL;
	git_commit *parent = NULL;
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
	int r = -1;

	opts.flags = GIT_DIFF_SHOW_BINARY;
	opts.context_lines = 3;
	opts.interhunk_lines = 0;
	find.flags = GIT_DIFF_FIND_RENAMES;
	find.rename_threshold = 50;
	if (git_commit_tree(&new_tree, c) < 0) {
		gitlib_fail(err, id);
		goto out;
	}
	/* the first parent: a merge is routed by what it brings in */
	if (git_commit_parentcount(c) > 0 && git_commit_parent(&parent, c, 0) < 0) {
		gitlib_fail(err, id);
		goto out;
	}
	if (parent && git_commit_tree(&old_tree, parent) < 0) {
		gitlib_fail(err, id);
		goto out;
	}
	if (git_diff_tree_to_tree(diff, git, old_tree, new_tree, &opts) < 0 ||
	    git_diff_find_similar(*diff, &find) < 0) {
		gitlib_fail(err, id);
		goto out;
	}
	r = 0;
out:
	git_tree_free(new_tree);
	git_tree_free(old_tree);
	git_commit_free(parent);
	return r;
}

static void add_header(struct buf *out, git_commit *c, const char *id)
{
	const git_signature *a = git_commit_author(c);
	const char *summary = git_commit_summary(c), *body = git_commit_body(c);

	buf_addf(out, "From %s Mon Sep 17 00:00:00 2001\n", id);
	buf_addf(out, "From: %s <%s>\nDate: ", a->name, a->email);
	date_format_rfc5322(out, (int64_t)a->when.time, a->when.offset);
	buf_addf(out, "\nSubject: [PATCH] %s\n\n", summary ? summary : "");
	if (body && *body) {
		buf_adds(out, body);
		if (body[strlen(body) - 1] != '\n')
			buf_addc(out, '\n');
	}
	buf_adds(out, "---\n");
}

int patch_from_commit(struct repo *r, const char *id, struct patch *out, struct buf *err)
{
	git_repository *git = repo_git(r);
	git_commit *c = NULL;
	git_diff *diff = NULL;
	git_oid oid;
	struct stat_file *files = NULL;
	struct buf diffs = BUF_INIT;
	size_t n = 0, i, k, alloc = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	buf_init(&out->text);
	if (strlen(id) != GIT_OID_HEXSZ || git_oid_fromstrn(&oid, id, GIT_OID_HEXSZ) < 0)
		return err_set(err, "'%s' is not a full commit id", id);
	if (git_commit_lookup(&c, git, &oid) < 0)
		return gitlib_fail(err, id);
	if (diff_commit(git, c, &diff, id, err) < 0)
		goto out;
	n = git_diff_num_deltas(diff);
	if (n > PATCH_MAX_FILES) {
		err_set(err, "commit %s changes %zu files, more than %d", id, n, PATCH_MAX_FILES);
		goto out;
	}
	files = xcalloc(n ? n : 1, sizeof(*files));
	out->text.limit = PATCH_MAX_TEXT;
	diffs.limit = PATCH_MAX_TEXT;
	for (i = 0; i < n; i++) {
		git_patch *p = NULL;
		git_buf text = GIT_BUF_INIT;
		const git_diff_delta *d;
		size_t adds = 0, dels = 0;
		struct buf name = BUF_INIT;

		if (git_patch_from_diff(&p, diff, i) < 0 || !p) {
			gitlib_fail(err, id);
			goto out;
		}
		d = git_patch_get_delta(p);
		if (git_patch_line_stats(NULL, &adds, &dels, p) < 0 || git_patch_to_buf(&text, p) < 0) {
			git_patch_free(p);
			gitlib_fail(err, id);
			goto out;
		}
		files[i].binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
		if (files[i].binary) {
			files[i].added = d->new_file.size;
			files[i].deleted = d->old_file.size;
		} else {
			files[i].added = adds;
			files[i].deleted = dels;
		}
		if (d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED)
			add_rename(&name, d->old_file.path, d->new_file.path);
		else
			add_quoted(&name, d->new_file.path);
		files[i].name = buf_detach(&name, NULL);
		add_path(out, &alloc, d->old_file.path);
		if (strcmp(d->old_file.path, d->new_file.path))
			add_path(out, &alloc, d->new_file.path);
		k = (size_t)add_patch_text(&diffs, text.ptr, text.size, files[i].binary);
		git_buf_dispose(&text);
		git_patch_free(p);
		if (k) {
			err_set(err, "the patch of commit %s is larger than %u bytes", id, PATCH_MAX_TEXT);
			goto out;
		}
	}
	add_header(&out->text, c, id);
	add_diffstat(&out->text, files, n);
	for (i = 0; i < n; i++)
		add_summary(&out->text, git_diff_get_delta(diff, i));
	buf_addc(&out->text, '\n');
	if (buf_add(&out->text, diffs.data, diffs.len) < 0) {
		err_set(err, "the patch of commit %s is larger than %u bytes", id, PATCH_MAX_TEXT);
		goto out;
	}
	out->text.limit = 0;
	if (out->nr_files)
		xqsort(out->files, out->nr_files, sizeof(*out->files), str_cmp);
	for (i = k = 0; i < out->nr_files; i++) {
		if (k && !strcmp(out->files[k - 1], out->files[i]))
			free(out->files[i]);
		else
			out->files[k++] = out->files[i];
	}
	out->nr_files = k;
	ret = 0;
out:
	for (i = 0; files && i < n; i++)
		free(files[i].name);
	free(files);
	buf_release(&diffs);
	git_diff_free(diff);
	git_commit_free(c);
	if (ret < 0)
		patch_release(out);
	return ret;
}

void patch_release(struct patch *p)
{
	size_t i;

	for (i = 0; i < p->nr_files; i++)
		free(p->files[i]);
	free(p->files);
	buf_release(&p->text);
	p->files = NULL;
	p->nr_files = 0;
}
