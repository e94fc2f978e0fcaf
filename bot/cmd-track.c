/*
 * perfbot track [--dry-run] [--since DATE]: the cron job after the lab's
 * git fetch (perfbot never fetches).  Walks the commits of the watched
 * refs it has not examined yet, records the fixes and possible fixes of
 * the reports, and with perfbot.announceFixes queues a notice in the
 * thread of each report that became fixed (bot/track.h).  One line per
 * finding on stderr; with --dry-run the notices it would queue go to
 * stdout as an mbox and nothing changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "date.h"
#include "render.h"
#include "repo.h"
#include "state.h"
#include "track.h"
#include "banned.h"

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

int cmd_track(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, dry = BUF_INIT;
	struct config *cfg = NULL;
	struct state *st = NULL;
	struct state_lock *lock = NULL;
	struct template_set *templates = NULL;
	struct track t;
	struct opt_args args;
	const char *since = NULL;
	int64_t since_epoch = 0;
	int dry_run = 0, rc = 0, verbose = opts->verbose;
	const struct opt options[] = {
		OPT_BOOL_E('n', "dry-run", &dry_run,
			   "walk and say what it finds, print the notices it would queue (an mbox),\n"
			   "change nothing"),
		OPT_STRING_E(0, "since", &since, "DATE",
			     "walk a ref never walked before back to DATE (YYYY-MM-DD or an ISO 8601\n"
			     "time, UTC unless it says), not to the oldest open report's creation"),
		OPT_COUNT_E('v', "verbose", &verbose, "also say what each ref gave, and which refs are missing"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot track",
		.about = "Walks the commits of the watched trees that perfbot has not examined yet\n"
			 "(each [tree \"NAME\"]'s ref, else refs/remotes/NAME/BRANCH for the branches\n"
			 "its reports were on) and records what fixes the reports: a Closes: or Link:\n"
			 "tag holding a report's Message-ID, a revert of its commit, Fixes: naming its\n"
			 "commit with perfbot's Reported-by: (without it: a possible fix, the report\n"
			 "stays open), and where a #perfbot fixed-by commit lands.  With\n"
			 "perfbot.announceFixes, a notice goes into the thread of each report that\n"
			 "became fixed (sent by the next perfbot send).  perfbot never fetches: run\n"
			 "the lab's git fetch first.\n",
		.opts = options,
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (since && date_parse_iso8601(since, &since_epoch, &err) < 0) {
		rc = cmd_usage_error(&spec, "--since: %s", err.data);
		goto done;
	}
	/* libgit2 starts (10 ms and more) while the state is read */
	repo_warm_up();
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (!dry_run) {
		if (cmd_lock("perfbot track", cfg, &lock, &rc))
			goto done;
	} else if (!state_exists(cfg->state)) {
		fprintf(stderr, "perfbot track: no state yet in %s: no reports to track\n", cfg->state);
		goto done;
	}
	if (state_open(cfg->state, &st, &err) < 0) {
		rc = EX_CANTCREAT;
		goto fail;
	}
	state_defer_checkpoint(st);
	templates = render_template_set(cfg);

	memset(&t, 0, sizeof(t));
	t.cfg = cfg;
	t.st = st;
	t.repo = NULL;	/* track_run() opens it once the state is read */
	t.templates = templates;
	t.now = opts->now;
	t.since = since_epoch;
	t.dry_run = dry_run;
	t.dry_mbox = &dry;
	t.verbose = verbose;
	t.log.line = log_line;
	if (track_run(&t, &err) < 0) {
		rc = t.config_error ? EX_CONFIG : EX_SOFTWARE;
		goto fail;
	}
	if (dry_run && fwrite(dry.data, 1, dry.len, stdout) != dry.len) {
		fprintf(stderr, "perfbot track: cannot write to stdout\n");
		rc = EX_IOERR;
	}
	if (verbose || t.findings || t.notices)
		fprintf(stderr, "%s: %zu ref%s walked, %zu commit%s examined, %zu finding%s: %zu fixed, "
			"%zu possible fix%s, %zu notice%s %s\n", dry_run ? "dry run" : "done",
			t.refs, t.refs == 1 ? "" : "s", t.examined, t.examined == 1 ? "" : "s",
			t.findings, t.findings == 1 ? "" : "s", t.fixed, t.possible,
			t.possible == 1 ? "" : "es", t.notices, t.notices == 1 ? "" : "s",
			dry_run ? "to queue" : "queued");
	goto done;
fail:
	fprintf(stderr, "perfbot track: %s\n", err.data);
done:
	template_set_free(templates);
	repo_warm_up_end();
	state_close(st);
	state_unlock(lock);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&dry);
	return rc;
}
