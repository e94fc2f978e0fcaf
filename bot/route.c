#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "patch.h"
#include "route.h"
#include "xalloc.h"
#include "banned.h"

/* A MAINTAINERS file this run parsed. */
struct parsed {
	char blob[41];
	struct maintainers *m;
	unsigned long used;	/* route->clock at its last use */
};

struct route {
	const struct config *cfg;
	struct repo *repo;
	char *cache_dir;
	struct parsed kept[ROUTE_RUN_KEEP];
	size_t nr_kept;
	unsigned long clock;
	const char *source;
};

struct route *route_new(const struct config *cfg, struct repo *repo, const char *cache_dir)
{
	struct route *r = xcalloc(1, sizeof(*r));

	r->cfg = cfg;
	r->repo = repo;
	r->cache_dir = cache_dir ? xstrdup(cache_dir) : NULL;
	r->source = "";
	return r;
}

void route_free(struct route *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_kept; i++)
		maintainers_free(r->kept[i].m);
	free(r->cache_dir);
	free(r);
}

const char *route_source(const struct route *r)
{
	return r->source;
}

void route_result_release(struct route_result *res)
{
	size_t i;

	free(res->off);
	maintainers_selection_release(&res->sel);
	for (i = 0; i < res->nr_steerers; i++)
		free(res->steerers[i]);
	free(res->steerers);
	memset(res, 0, sizeof(*res));
}

/* The parsed file of blob: kept from earlier in the run, else read and
 * parsed (the least recently used one making room). */
static int maintainers_for(struct route *r, const char *blob, struct maintainers **out,
			   struct buf *err)
{
	struct buf text = BUF_INIT;
	struct parsed *slot;
	size_t i;

	r->clock++;
	for (i = 0; i < r->nr_kept; i++) {
		if (!strcmp(r->kept[i].blob, blob)) {
			r->kept[i].used = r->clock;
			r->source = "cached";
			*out = r->kept[i].m;
			return 0;
		}
	}
	if (repo_blob_read(r->repo, blob, MAINTAINERS_MAX_SIZE, &text, err) < 0 ||
	    maintainers_parse(r->cfg->route_file, &text, out, err) < 0) {
		buf_release(&text);
		return -1;
	}
	buf_release(&text);
	r->source = "parsed";
	if (r->nr_kept < ROUTE_RUN_KEEP) {
		slot = &r->kept[r->nr_kept++];
	} else {
		slot = &r->kept[0];
		for (i = 1; i < r->nr_kept; i++)
			if (r->kept[i].used < slot->used)
				slot = &r->kept[i];
		maintainers_free(slot->m);
	}
	memcpy(slot->blob, blob, sizeof(slot->blob));
	slot->m = *out;
	slot->used = r->clock;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The M: and R: addresses of sel's people, lowercase, sorted, unique. */
static void collect_steerers(struct route_result *out, const struct maintainers_selection *sel)
{
	size_t i, k;

	out->steerers = xcalloc(sel->nr_entries ? sel->nr_entries : 1, sizeof(*out->steerers));
	for (i = 0; i < sel->nr_entries; i++) {
		char *a, *p;

		if (sel->entries[i].kind == MAINTAINERS_LIST)
			continue;
		a = xstrdup(sel->entries[i].address);
		for (p = a; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		out->steerers[out->nr_steerers++] = a;
	}
	if (out->nr_steerers)
		qsort(out->steerers, out->nr_steerers, sizeof(*out->steerers), str_cmp);
	for (i = k = 0; i < out->nr_steerers; i++) {
		if (k && !strcmp(out->steerers[k - 1], out->steerers[i]))
			free(out->steerers[i]);
		else
			out->steerers[k++] = out->steerers[i];
	}
	out->nr_steerers = k;
}

int route_commit(struct route *r, const char *id, struct route_result *out, struct buf *err)
{
	const struct config *cfg = r->cfg;
	struct maintainers *m;
	struct patch p;
	struct buf why = BUF_INIT;
	unsigned flags = MAINTAINERS_LISTS;
	int e;

	memset(out, 0, sizeof(*out));
	memset(&p, 0, sizeof(p));
	buf_init(&p.text);
	out->file = cfg->route_file;
	if (!cfg->route_file) {
		out->off = xstrdup("route.maintainersFile is none");
		return 0;
	}
	e = repo_tree_blob(r->repo, id, cfg->route_file, out->blob, err);
	if (e < 0)
		return err_prefix(err, "route.maintainersFile: ");
	if (e > 0) {
		buf_addf(&why, "no %s in the tree of commit %.12s", cfg->route_file, id);
		out->off = buf_detach(&why, NULL);
		out->blob[0] = '\0';
		return 0;
	}
	if (maintainers_for(r, out->blob, &m, err) < 0)
		return err_prefix(err, "commit %.12s: ", id);
	out->file_notes = maintainers_notes(m);
	if (patch_from_commit(r->repo, id, &p, &why) < 0) {
		/* a commit too large to read as a patch still gets its report */
		out->off = buf_detach(&why, NULL);
		return 0;
	}
	if (cfg->route_maintainers)
		flags |= MAINTAINERS_MAINTAINERS;
	if (cfg->route_reviewers)
		flags |= MAINTAINERS_REVIEWERS;
	if (maintainers_match(m, (const char *const *)p.files, p.nr_files, p.text.data, p.text.len,
			      flags, &out->sel, &why) < 0) {
		out->off = buf_detach(&why, NULL);
		patch_release(&p);
		return 0;
	}
	if ((flags & MAINTAINERS_ALL) == MAINTAINERS_ALL) {
		collect_steerers(out, &out->sel);
	} else {
		struct maintainers_selection people;

		if (maintainers_match(m, (const char *const *)p.files, p.nr_files, p.text.data,
				      p.text.len, MAINTAINERS_MAINTAINERS | MAINTAINERS_REVIEWERS, &people,
				      err) < 0) {
			patch_release(&p);
			return err_prefix(err, "commit %.12s: ", id);
		}
		collect_steerers(out, &people);
		maintainers_selection_release(&people);
	}
	patch_release(&p);
	out->on = 1;
	return 0;
}
