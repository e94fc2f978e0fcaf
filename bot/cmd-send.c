/*
 * perfbot send [--dry-run] [FILE.json...]: the cron job.  Takes the spool
 * (or the files named) into the outbox, delivers what is due over SMTP,
 * archives what was delivered.  One line per event on stderr; with
 * --dry-run the mails it would send go to stdout as an mbox and nothing
 * changes.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "delivery.h"
#include "intake.h"
#include "render.h"
#include "repo.h"
#include "secret.h"
#include "spool.h"
#include "state.h"
#include "xalloc.h"
#include "banned.h"

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The throwaway state of a --dry-run without history. */
static void remove_tree(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int cmd_send(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, dry = BUF_INIT, smtp_log = BUF_INIT;
	struct config *cfg = NULL;
	struct state *st = NULL;
	struct state_lock *lock = NULL;
	struct render_env env;
	struct intake in;
	struct delivery d;
	struct opt_args args;
	char *password = NULL, **files = NULL;
	char tmpdir[] = "/tmp/perfbot-dry-XXXXXX";
	int dry_run = 0, flush = 0, env_open = 0, use_tmp = 0, rc = 0, nfiles = 0;
	const struct opt options[] = {
		OPT_BOOL_E('n', "dry-run", &dry_run,
			   "print the mails it would send (an mbox) and change nothing"),
		OPT_BOOL_E(0, "flush", &flush,
			   "end the coalescing wait: take every spool file now, however new"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot send",
		.args = "[FILE.json...]",
		.notes = "Held mails, follow-ups of dropped reports and mails over perfbot.maxPerHour\n"
			 "are skipped with one line each; `perfbot outbox` lists what waits and why.\n",
		.max_args = OPT_ARGS_ANY,
		.about = "Takes the spool's comparisons (or the files named, at once) into the outbox,\n"
			 "sends what is due over SMTP and archives what was sent.\n",
		.opts = options,
	};
	size_t incoming = 0, rejected = 0;

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	files = args.v;
	nfiles = (int)args.nr;
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	/* the archive needs libgit2: it starts while the outbox is read */
	repo_warm_up();
	/* a configuration error stops the command before it does anything */
	if (!dry_run && cfg->smtp_user) {
		if (!cfg->smtp_password_file) {
			err_set(&err, "smtp.user is set but smtp.passwordFile is not: put the password in a file of mode 0600 and name it there");
			rc = EX_CONFIG;
			goto fail;
		}
		if (secret_read_file(cfg->smtp_password_file, &password, &err) < 0) {
			err_prefix(&err, "smtp.passwordFile: ");
			rc = EX_CONFIG;
			goto fail;
		}
	}
	if (!dry_run) {
		if (cmd_lock("perfbot send", cfg, &lock, &rc))
			goto done;
	} else if (!state_exists(cfg->state)) {
		/* no history yet: look at an empty one rather than create it */
		if (!mkdtemp(tmpdir)) {
			err_set(&err, "cannot make a temporary folder for --dry-run");
			rc = EX_CANTCREAT;
			goto fail;
		}
		use_tmp = 1;
	}
	if (state_open(use_tmp ? tmpdir : cfg->state, &st, &err) < 0) {
		rc = EX_CANTCREAT;
		goto fail;
	}
	/* a spool shared with perfbot.spoolGroup is kept open to the group */
	if (!dry_run && spool_share(cfg->state, cfg->spool_group, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (!nfiles && spool_count(cfg->state, &incoming, &rejected, &err) < 0) {
		rc = EX_CANTCREAT;
		goto fail;
	}
	/* nothing to take in, no repository to open */
	if ((nfiles || incoming) && render_env_open(&env, cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	env_open = nfiles || incoming;
	if (env_open && render_env_read_exclusions(&env, st, &err) < 0) {
		rc = EX_SOFTWARE;
		goto fail;
	}

	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.env = &env;
	in.st = st;
	in.now = opts->now;
	in.dry_run = dry_run;
	in.flush = flush;
	in.dry_mbox = &dry;
	in.log.line = log_line;
	if (env_open &&
	    (nfiles ? intake_files(&in, files, (size_t)nfiles, &err) : intake_spool(&in, &err)) < 0) {
		rc = EX_SOFTWARE;
		goto fail;
	}

	memset(&d, 0, sizeof(d));
	d.cfg = cfg;
	d.st = st;
	d.now = in.now;
	d.password = password;
	d.smtp_log = opts->verbose ? &smtp_log : NULL;
	d.dry_run = dry_run;
	d.dry_mbox = &dry;
	d.log.line = log_line;
	if (delivery_run(&d, &err) < 0) {
		rc = EX_SOFTWARE;
		goto fail;
	}
	if (dry_run && fwrite(dry.data, 1, dry.len, stdout) != dry.len) {
		fprintf(stderr, "perfbot send: cannot write to stdout\n");
		rc = EX_IOERR;
	}
	if (opts->verbose || in.queued || d.sent || d.deferred || d.failed || in.rejected || in.set_aside)
		fprintf(stderr, "%s: %zu queued, %zu sent, %zu deferred, %zu failed, %zu refused, %zu set aside, %zu waiting\n",
			dry_run ? "dry run" : "done", in.queued, d.sent, d.deferred, d.failed, in.rejected,
			in.set_aside, in.waiting + d.held);
	if (d.config_error)
		rc = EX_CONFIG;
	else if (d.temporary)
		rc = EX_TEMPFAIL;
	else if (in.rejected)
		rc = EX_DATAERR;
	goto done;
fail:
	fprintf(stderr, "perfbot send: %s\n", err.data);
done:
	if (env_open)
		render_env_close(&env);
	repo_warm_up_end();
	state_close(st);
	state_unlock(lock);
	if (use_tmp)
		remove_tree(tmpdir);
	secret_free(password);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&dry);
	buf_release(&smtp_log);
	return rc;
}
