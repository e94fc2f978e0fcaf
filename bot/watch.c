#include <stdlib.h>
#include <string.h>

#include "fixes.h"
#include "watch.h"
#include "xalloc.h"
#include "banned.h"

/* The length of NAME in "NAME/BRANCH", or 0 when tree is not of that
 * form. */
static size_t tree_name_len(const char *tree)
{
	const char *slash = tree ? strchr(tree, '/') : NULL;

	if (!slash || slash == tree || !slash[1])
		return 0;
	return (size_t)(slash - tree);
}

int watch_ref_of(const struct config *cfg, const char *tree, struct buf *out)
{
	size_t n = tree_name_len(tree), i;
	struct buf name = BUF_INIT, ref = BUF_INIT;
	int ok = 0;

	if (!n)
		return 0;
	buf_add(&name, tree, n);
	for (i = 0; i < cfg->nr_trees; i++)
		if (!strcmp(cfg->trees[i].name, name.data) && cfg->trees[i].ref)
			break;
	if (i < cfg->nr_trees)
		buf_adds(&ref, cfg->trees[i].ref);
	else
		buf_addf(&ref, "refs/remotes/%s", tree);
	if (config_ref_name_valid(ref.data)) {
		buf_add(out, ref.data, ref.len);
		ok = 1;
	}
	buf_release(&name);
	buf_release(&ref);
	return ok;
}

size_t watch_find(const struct watch *w, const char *ref)
{
	size_t i;

	for (i = 0; ref && i < w->nr; i++)
		if (!strcmp(w->v[i].ref, ref))
			return i;
	return FIX_REF_NONE;
}

static void add_ref(struct watch *w, size_t *alloc, const char *ref, const char *tree, size_t tree_len,
		    int configured)
{
	if (watch_find(w, ref) != FIX_REF_NONE)
		return;
	ALLOC_GROW(w->v, w->nr + 1, *alloc);
	w->v[w->nr].ref = xstrdup(ref);
	w->v[w->nr].tree = xstrndup(tree, tree_len);
	w->v[w->nr].configured = configured;
	w->nr++;
}

/* The refs of the tree named name (len bytes): its configured ref, else
 * the default ref of each of its reports' branches. */
static void add_tree(struct watch *w, size_t *alloc, const struct config *cfg, const char *name,
		     size_t len, const char *const *trees, size_t nr_trees)
{
	struct buf ref = BUF_INIT;
	size_t i;

	for (i = 0; i < cfg->nr_trees; i++) {
		if (strlen(cfg->trees[i].name) == len && !strncmp(cfg->trees[i].name, name, len) &&
		    cfg->trees[i].ref) {
			if (config_ref_name_valid(cfg->trees[i].ref))
				add_ref(w, alloc, cfg->trees[i].ref, name, len, 1);
			return;
		}
	}
	for (i = 0; i < nr_trees; i++) {
		if (tree_name_len(trees[i]) != len || strncmp(trees[i], name, len))
			continue;
		buf_reset(&ref);
		if (watch_ref_of(cfg, trees[i], &ref))
			add_ref(w, alloc, ref.data, name, len, 0);
	}
	buf_release(&ref);
}

void watch_build(const struct config *cfg, const char *const *trees, size_t nr_trees,
		 struct watch *out)
{
	size_t alloc = 0, i, j, n;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < cfg->nr_trees; i++)
		add_tree(out, &alloc, cfg, cfg->trees[i].name, strlen(cfg->trees[i].name), trees, nr_trees);
	for (i = 0; i < nr_trees; i++) {
		n = tree_name_len(trees[i]);
		if (!n)
			continue;
		/* a tree with a section, or one met before, is done */
		for (j = 0; j < cfg->nr_trees; j++)
			if (strlen(cfg->trees[j].name) == n && !strncmp(cfg->trees[j].name, trees[i], n))
				break;
		if (j < cfg->nr_trees)
			continue;
		for (j = 0; j < i; j++)
			if (tree_name_len(trees[j]) == n && !strncmp(trees[j], trees[i], n))
				break;
		if (j < i)
			continue;
		add_tree(out, &alloc, cfg, trees[i], n, trees, nr_trees);
	}
}

void watch_release(struct watch *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		free(w->v[i].ref);
		free(w->v[i].tree);
	}
	free(w->v);
	memset(w, 0, sizeof(*w));
}

size_t watch_own(const struct watch *w, const struct config *cfg, const char *tree)
{
	struct buf ref = BUF_INIT;
	size_t i = FIX_REF_NONE;

	if (tree && watch_ref_of(cfg, tree, &ref))
		i = watch_find(w, ref.data);
	buf_release(&ref);
	return i;
}

void watch_ref_short(struct buf *out, const struct config *cfg, const char *ref)
{
	size_t i;

	for (i = 0; cfg && i < cfg->nr_trees; i++) {
		if (cfg->trees[i].ref && !strcmp(cfg->trees[i].ref, ref)) {
			buf_adds(out, cfg->trees[i].name);
			return;
		}
	}
	if (!strncmp(ref, "refs/remotes/", 13) && ref[13])
		buf_adds(out, ref + 13);
	else if (!strncmp(ref, "refs/heads/", 11) && ref[11])
		buf_adds(out, ref + 11);
	else
		buf_adds(out, ref);
}
