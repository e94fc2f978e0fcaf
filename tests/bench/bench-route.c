/*
 * bench-route: what MAINTAINERS routing costs one render (perfbot-mail(7), Recipients).
 *
 *   bench-route [--repeat N] REPO COMMIT...
 *
 * In one process, as a render would: opens REPO, reads MAINTAINERS from
 * the first COMMIT's tree (repo_tree_file), parses it once (the first,
 * cold parse is the one a render pays; then N more parses, each on a
 * fresh copy, for the steady state), and for each COMMIT reads it as a
 * patch (patch_from_commit) and matches it (maintainers_match, lists,
 * maintainers and reviewers), once cold and N times warm.
 *
 * Then the parse's image (bot/route.h's cache): its size, how long making
 * it takes and loading it back (maintainers_load(), from memory: its arrays are used where they lie); and
 * what one render pays for routing, the way a new `perfbot render` does
 * (route_new() and route_commit() of the first COMMIT, a fresh struct
 * route each time): with the image in a cache folder (a temporary one),
 * and without a cache folder (inflating and parsing the blob).
 *
 * Prints, in milliseconds: the tree read, the cold parse and the fastest
 * and median warm parse; per commit the patch read and the cold and
 * median match; the image; and one line
 *     result route PARSE_COLD_MS PARSE_MEDIAN_MS PATCH_MEDIAN_MS MATCH_MEDIAN_MS
 *                  IMAGE_LOAD_MS RENDER_IMAGE_MS RENDER_PARSE_MS
 * for scripts.  Wall-clock time (CLOCK_MONOTONIC); on a shared machine the
 * medians are the measure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "maintainers.h"
#include "patch.h"
#include "repo.h"
#include "route.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? v[n / 2] : 0;
}

static int die(const char *what, const struct buf *err)
{
	fprintf(stderr, "bench-route: %s: %s\n", what, err->data);
	return 1;
}

int main(int argc, char **argv)
{
	struct repo *r;
	struct buf err = BUF_INIT, text = BUF_INIT, copy = BUF_INIT;
	struct maintainers *m;
	struct commit_info ci;
	char blob[41];
	int repeat = 50, i, k, first = 1;
	double t, tree_ms, cold_ms, parse_ms, *v, *patch_ms, *match_ms;
	size_t nc, c;

	if (argc > 2 && !strcmp(argv[1], "--repeat")) {
		repeat = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 3 || repeat < 1) {
		fprintf(stderr, "usage: bench-route [--repeat N] REPO COMMIT...\n");
		return 64;
	}
	nc = (size_t)argc - 2;
	v = calloc((size_t)repeat, sizeof(*v));
	patch_ms = calloc(nc, sizeof(*patch_ms));
	match_ms = calloc(nc, sizeof(*match_ms));
	if (repo_open(argv[1], &r, &err) < 0)
		return die(argv[1], &err);
	if (repo_lookup(r, argv[2], &ci, &err) < 0)
		return die(argv[2], &err);
	t = now_ms();
	if (repo_tree_file(r, ci.id, "MAINTAINERS", 0, &text, blob, &err) != 0)
		return die("MAINTAINERS", &err);
	tree_ms = now_ms() - t;
	buf_add(&copy, text.data, text.len);
	t = now_ms();
	if (maintainers_parse("MAINTAINERS", &copy, &m, &err) < 0)
		return die("MAINTAINERS", &err);
	cold_ms = now_ms() - t;
	for (i = 0; i < repeat; i++) {
		struct maintainers *again;

		buf_add(&copy, text.data, text.len);
		t = now_ms();
		maintainers_parse("MAINTAINERS", &copy, &again, &err);
		v[i] = now_ms() - t;
		maintainers_free(again);
	}
	parse_ms = median(v, (size_t)repeat);
	printf("MAINTAINERS: %zu bytes, %zu sections; tree read %.3f ms, parse cold %.3f ms, warm median %.3f ms\n",
	       text.len, maintainers_nr_sections(m), tree_ms, cold_ms, parse_ms);
	commit_info_release(&ci);
	for (c = 0; c < nc; c++) {
		struct patch p;
		struct maintainers_selection sel;
		double cold_match = 0;

		if (repo_lookup(r, argv[2 + c], &ci, &err) < 0)
			return die(argv[2 + c], &err);
		for (i = 0; i < repeat; i++) {
			t = now_ms();
			if (patch_from_commit(r, ci.id, &p, &err) < 0)
				return die(ci.id, &err);
			v[i] = now_ms() - t;
			if (i + 1 < repeat)
				patch_release(&p);
		}
		patch_ms[c] = median(v, (size_t)repeat);
		for (i = -1; i < repeat; i++) {
			t = now_ms();
			if (maintainers_match(m, (const char *const *)p.files, p.nr_files, p.text.data,
					      p.text.len, MAINTAINERS_ALL, &sel, &err) < 0)
				return die(ci.id, &err);
			if (i < 0)
				cold_match = now_ms() - t;
			else
				v[i] = now_ms() - t;
			k = (int)sel.nr_entries;
			maintainers_selection_release(&sel);
		}
		match_ms[c] = median(v, (size_t)repeat);
		printf("%.12s: %zu files, %zu bytes of patch, %d recipients; patch %.3f ms, match cold %.3f ms, warm %.3f ms%s\n",
		       ci.id, p.nr_files, p.text.len, k, patch_ms[c], cold_match, match_ms[c],
		       first ? " (the first match compiles the regexes it needs)" : "");
		first = 0;
		patch_release(&p);
		commit_info_release(&ci);
	}
	{
		struct buf image = BUF_INIT, dir = BUF_INIT;
		struct config *cfg = config_new_defaults();
		double image_ms, load_ms, with_ms, without_ms;
		char tmpl[] = "/tmp/bench-route-XXXXXX";
		const char *first_commit = argv[2];

		/* a parse that has matched nothing yet, as route.c keeps it */
		buf_add(&copy, text.data, text.len);
		maintainers_free(m);
		maintainers_parse("MAINTAINERS", &copy, &m, &err);
		t = now_ms();
		maintainers_image(m, blob, &image);
		image_ms = now_ms() - t;
		for (i = 0; i < repeat; i++) {
			struct maintainers *again;
			char *bytes = malloc(image.len);

			memcpy(bytes, image.data, image.len);
			t = now_ms();
			if (maintainers_load(blob, bytes, image.len, &again, &err) < 0)
				return die("image", &err);
			v[i] = now_ms() - t;
			maintainers_free(again);
			free(bytes);
		}
		load_ms = median(v, (size_t)repeat);
		printf("image: %zu bytes, made in %.3f ms (once per blob), loaded in %.3f ms (median)\n",
		       image.len, image_ms, load_ms);
		if (!mkdtemp(tmpl))
			return 1;
		buf_addf(&dir, "%s/cache", tmpl);
		if (repo_lookup(r, first_commit, &ci, &err) < 0)
			return die(first_commit, &err);
		for (k = 0; k < 2; k++) {
			for (i = -1; i < repeat; i++) {
				struct route *rt = route_new(cfg, r, k ? NULL : dir.data);
				struct route_result res;

				t = now_ms();
				if (route_commit(rt, ci.id, &res, &err) < 0)
					return die(ci.id, &err);
				if (i >= 0)
					v[i] = now_ms() - t;
				if (i >= 0 && strcmp(route_source(rt), k ? "parsed" : "image"))
					fprintf(stderr, "bench-route: the MAINTAINERS came %s\n", route_source(rt));
				route_result_release(&res);
				route_free(rt);
			}
			if (k)
				without_ms = median(v, (size_t)repeat);
			else
				with_ms = median(v, (size_t)repeat);
		}
		printf("one render's routing (%.12s, a new run each time): %.3f ms with the cache folder's image, "
		       "%.3f ms reading and parsing the blob (medians)\n", ci.id, with_ms, without_ms);
		printf("result route %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", cold_ms, parse_ms, median(patch_ms, nc),
		       median(match_ms, nc), load_ms, with_ms, without_ms);
		commit_info_release(&ci);
		buf_reset(&copy);
		buf_addf(&copy, "rm -rf '%s'", tmpl);
		if (system(copy.data) != 0)
			fprintf(stderr, "bench-route: could not remove %s\n", tmpl);
		config_free(cfg);
		buf_release(&image);
		buf_release(&dir);
	}
	maintainers_free(m);
	repo_free(r);
	free(v);
	free(patch_ms);
	free(match_ms);
	buf_release(&text);
	buf_release(&err);
	return 0;
}
