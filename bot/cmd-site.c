/*
 * perfbot site [--out DIR] [--full]: writes the static web site
 * (bot/site.h, perfbot-site(1)) into site.dir (else STATE/site), only the
 * pages whose bytes changed, under the site's own lock (DIR/.lock): a
 * second run waits STATE_LOCK_WAIT_MS, then exits 75.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "cmd.h"
#include "config.h"
#include "dir.h"
#include "heap.h"
#include "lock.h"
#include "site.h"
#include "template.h"
#include "banned.h"

/* templates/site in each perfbot.templates folder, then the shipped one. */
static struct template_set *site_templates(const struct config *cfg)
{
	struct template_set *set = template_set_new(NULL);
	struct buf b = BUF_INIT;
	size_t i;

	template_set_mode(set, "", TEMPLATE_ESCAPE_HTML);
	for (i = 0; i < cfg->templates.nr; i++) {
		buf_reset(&b);
		buf_addf(&b, "%s/site", cfg->templates.v[i]);
		template_set_add_dir(set, b.data);
	}
	buf_reset(&b);
	buf_addf(&b, "%s/site", cfg->shipped_templates);
	template_set_add_dir(set, b.data);
	buf_release(&b);
	return set;
}

/* Seconds on the monotonic clock, for -v's account of where a run went. */
static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cmd_site(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, dir = BUF_INIT, lockpath = BUF_INIT;
	struct config *cfg = NULL;
	struct lock *lock = NULL;
	struct template_set *set = NULL;
	struct site_input in;
	struct site_pages pages = { 0 };
	struct site_writer w;
	int writer = 0;
	const char *out = NULL;
	int full = 0, rc = 0, e;
	double t0, t1, t2, t3;
	struct opt_args args;
	const struct opt options[] = {
		OPT_STRING_E(0, "out", &out, "DIR", "write the site into DIR instead of site.dir"),
		OPT_BOOL_E(0, "full", &full, "write every page, changed or not"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot site",
		.about = "Writes the static web site of what perfbot knows: index.html (the open\n"
			 "reports by tree), a page per report, per tree, Atom feeds and reports.json,\n"
			 "rewriting only the pages whose content changed.\n",
		.opts = options,
	};

	memset(&in, 0, sizeof(in));
	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	heap_for_big_pages();
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (out)
		buf_adds(&dir, out);
	else
		site_default_dir(cfg, &dir);
	if (dir_make(dir.data, 0755, &err) < 0) {
		rc = EX_CANTCREAT;
		goto fail;
	}
	buf_addf(&lockpath, "%s/.lock", dir.data);
	e = lock_take(lockpath.data, 0644, STATE_LOCK_WAIT_MS, "another perfbot site", &lock, &err);
	if (e) {
		rc = e == LOCK_BUSY ? EX_TEMPFAIL : EX_CANTCREAT;
		goto fail;
	}
	t0 = seconds();
	if (site_gather(cfg, opts->now, dir.data, full, &in, &err) < 0) {
		rc = EX_IOERR;
		goto fail;
	}
	t1 = seconds();
	set = site_templates(cfg);
	if (site_writer_init(&w, dir.data, &in.manifest, full, &err) < 0) {
		rc = EX_CANTCREAT;
		goto fail;
	}
	writer = 1;
	if ((e = site_render(&in, set, &w, &pages, &err)) < 0) {
		rc = e == -2 ? EX_IOERR : EX_DATAERR;
		goto fail;
	}
	t2 = seconds();
	site_input_release_early(&in);
	if (site_write(&w, &pages, &err) < 0 ||
	    (in.cache_dirty && site_cache_write(&in, &err) < 0)) {
		rc = EX_IOERR;
		goto fail;
	}
	t3 = seconds();
	if (opts->verbose)
		fprintf(stderr, "perfbot site: %zu pages, %zu written into %s (%zu removed; "
			"%zu of %zu reports read%s; gathered in %.3f s, report pages made and "
			"written in %.3f s, the rest written in %.3f s)\n", w.stats.pages,
			w.stats.written, dir.data, w.stats.removed, in.nr, in.nr_pieces,
			in.partial ? ", the others as the last run left them" : "", t1 - t0,
			t2 - t1, t3 - t2);
	goto done;
fail:
	fprintf(stderr, "perfbot site: %s\n", err.data);
done:
	site_pages_release(&pages);
	if (writer)
		site_writer_release(&w);
	site_input_release(&in);
	template_set_free(set);
	lock_free(lock);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&dir);
	buf_release(&lockpath);
	return rc;
}
