#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "patch.h"
#include "route.h"
#include "xalloc.h"
#include "banned.h"

/* A MAINTAINERS file this run parsed. */
struct parsed {
	char blob[41];
	struct maintainers *m;
	void *map;		/* the image m lies in (mapped), or NULL */
	size_t map_len;
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

static void parsed_release(struct parsed *p)
{
	maintainers_free(p->m);
	if (p->map)
		munmap(p->map, p->map_len);
	memset(p, 0, sizeof(*p));
}

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
		parsed_release(&r->kept[i]);
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

/* ---- the cache folder: a parse's image per blob ---- */

#define IMAGE_PREFIX "maintainers-"
#define IMAGE_MAX_SIZE (8 * (size_t)MAINTAINERS_MAX_SIZE)	/* an image is about 3x its file */

static void image_path(struct buf *out, const char *dir, const char *blob)
{
	buf_reset(out);
	buf_addf(out, "%s/" IMAGE_PREFIX "%s", dir, blob);
}

/* The parse of blob from its image, mapped (read-only, private: the
 * arrays are used where they lie, never written): 0 with *out, *map and
 * *map_len set, else 1 (none, or one that will not do: it is made again). */
static int image_read(struct route *r, const char *blob, struct maintainers **out, void **map,
		      size_t *map_len)
{
	struct buf path = BUF_INIT;
	struct stat sb;
	void *p;
	int fd, ret = 1;

	image_path(&path, r->cache_dir, blob);
	fd = open(path.data, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	buf_release(&path);
	if (fd < 0)
		return 1;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 ||
	    (uintmax_t)sb.st_size > IMAGE_MAX_SIZE)
		goto out;
	/* MAP_POPULATE: the pages are in the page cache; one call maps them
	 * all rather than a fault per page */
	p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED)
		goto out;
	if (maintainers_load(blob, p, (size_t)sb.st_size, out, NULL) < 0) {
		munmap(p, (size_t)sb.st_size);
		goto out;
	}
	*map = p;
	*map_len = (size_t)sb.st_size;
	(void)futimens(fd, NULL);	/* its mtime is its last use */
	ret = 0;
out:
	close(fd);
	return ret;
}

struct image_age {
	char *name;
	time_t used;
};

static int by_age(const void *a, const void *b)
{
	const struct image_age *x = a, *y = b;

	if (x->used != y->used)
		return x->used > y->used ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Removes all but the ROUTE_CACHE_KEEP images used last. */
static void image_prune(const char *dir)
{
	struct image_age *v = NULL;
	size_t nr = 0, alloc = 0, i;
	struct buf path = BUF_INIT;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat sb;

		if (strncmp(e->d_name, IMAGE_PREFIX, strlen(IMAGE_PREFIX)))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, e->d_name);
		if (lstat(path.data, &sb) < 0 || !S_ISREG(sb.st_mode))
			continue;
		ALLOC_GROW(v, nr + 1, alloc);
		v[nr].name = xstrdup(path.data);
		v[nr].used = sb.st_mtime;
		nr++;
	}
	closedir(d);
	if (nr > ROUTE_CACHE_KEEP) {
		xqsort(v, nr, sizeof(*v), by_age);
		for (i = ROUTE_CACHE_KEEP; i < nr; i++)
			unlink(v[i].name);
	}
	for (i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
	buf_release(&path);
}

/* Keeps m's image for later runs: written whole or not at all (a temp
 * file, fsync, rename).  A failure only costs the next run a parse. */
static void image_write(struct route *r, const char *blob, const struct maintainers *m)
{
	struct buf image = BUF_INIT, path = BUF_INIT, tmp = BUF_INIT;
	size_t done = 0;
	int fd, ok = 0;

	if (mkdir(r->cache_dir, 0700) < 0 && errno != EEXIST)
		return;
	if (maintainers_image(m, blob, &image) < 0)
		goto out;
	image_path(&path, r->cache_dir, blob);
	buf_addf(&tmp, "%s/.tmp-%s-%ld", r->cache_dir, blob, (long)getpid());
	fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		goto out;
	while (done < image.len) {
		ssize_t n = write(fd, image.data + done, image.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	ok = done == image.len && fsync(fd) == 0;
	if (close(fd) < 0)
		ok = 0;
	if (!ok || rename(tmp.data, path.data) < 0)
		unlink(tmp.data);
	else
		image_prune(r->cache_dir);
out:
	buf_release(&image);
	buf_release(&path);
	buf_release(&tmp);
}

/* The parsed file of blob: kept from earlier in the run, else from the
 * cache folder's image, else read and parsed (and its image written); the
 * least recently used one making room. */
static int maintainers_for(struct route *r, const char *blob, struct maintainers **out,
			   struct buf *err)
{
	struct buf text = BUF_INIT;
	struct parsed *slot, got;
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
	memset(&got, 0, sizeof(got));
	if (r->cache_dir && image_read(r, blob, &got.m, &got.map, &got.map_len) == 0) {
		r->source = "image";
	} else {
		if (repo_blob_read(r->repo, blob, MAINTAINERS_MAX_SIZE, &text, err) < 0 ||
		    maintainers_parse(r->cfg->route_file, &text, &got.m, err) < 0) {
			buf_release(&text);
			return -1;
		}
		buf_release(&text);
		if (r->cache_dir)
			image_write(r, blob, got.m);
		r->source = "parsed";
	}
	if (r->nr_kept < ROUTE_RUN_KEEP) {
		slot = &r->kept[r->nr_kept++];
	} else {
		slot = &r->kept[0];
		for (i = 1; i < r->nr_kept; i++)
			if (r->kept[i].used < slot->used)
				slot = &r->kept[i];
		parsed_release(slot);
	}
	*slot = got;
	memcpy(slot->blob, blob, sizeof(slot->blob));
	slot->used = r->clock;
	*out = slot->m;
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
		xqsort(out->steerers, out->nr_steerers, sizeof(*out->steerers), str_cmp);
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
