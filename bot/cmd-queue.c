/*
 * perfbot queue FILE.json...: validate each comparison as `send` will
 * (down to rendering the mail, commits resolved) and move it into the
 * spool.  A file that would not render is refused now, with the reason,
 * not at 3 am in a cron mail; it stays where it was.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "render.h"
#include "report.h"
#include "spool.h"
#include "banned.h"

/* Whether the file can become a mail: 0, or -1 with a message naming it. */
static int queue_check(struct render_env *env, const char *file, int64_t now, int verbose,
		       struct buf *err)
{
	struct render_request req;
	struct rendered out;
	struct report *report = NULL;
	struct stat sb;
	int ret = -1;

	if (!strcmp(file, "-"))
		return err_set(err, "-: standard input cannot be queued: write it to a file first");
	if (lstat(file, &sb) < 0)
		return err_set(err, "%s: cannot read: %s", file, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return err_set(err, "%s: not a regular file%s", file,
			       S_ISLNK(sb.st_mode) ? " but a symbolic link: queue the file it points to" : "");
	if (report_load_file(file, &report, err) < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.report = report;
	req.created = now;
	if (render_report(env, &req, &out, err) == 0) {
		if (verbose && out.notes.len)
			fputs(out.notes.data, stderr);
		ret = 0;
	}
	rendered_release(&out);
	report_free(report);
	return ret;
}

int cmd_queue(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, name = BUF_INIT;
	struct config *cfg = NULL;
	struct render_env env;
	int64_t now;
	struct opt_args args;
	size_t i;
	int rc = 0;
	const struct opt_spec spec = {
		.name = "perfbot queue",
		.args = "FILE.json...",
		.min_args = 1,
		.max_args = OPT_ARGS_ANY,
		.about = "Checks each comparison JSON as send would (including its commits and the\n"
			 "rendered mail) and moves it into the spool (perfbot.state/spool/incoming)\n"
			 "for the next `perfbot send`.  A file that fails is left where it was and\n"
			 "the reason printed; the others are still queued (exit 65 if any failed).\n",
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		fprintf(stderr, "perfbot queue: %s\n", err.data);
		buf_release(&err);
		opt_args_release(&args);
		return EX_CONFIG;
	}
	if (render_env_open(&env, cfg, &err) < 0) {
		fprintf(stderr, "perfbot queue: %s\n", err.data);
		config_free(cfg);
		buf_release(&err);
		opt_args_release(&args);
		return EX_CONFIG;
	}
	if (render_env_read_exclusions(&env, NULL, &err) < 0) {
		fprintf(stderr, "perfbot queue: %s\n", err.data);
		render_env_close(&env);
		config_free(cfg);
		buf_release(&err);
		opt_args_release(&args);
		return EX_IOERR;
	}
	now = opts->now;
	for (i = 0; i < args.nr; i++) {
		const char *file = args.v[i];

		buf_reset(&name);
		if (queue_check(&env, file, now, opts->verbose, &err) < 0) {
			fprintf(stderr, "perfbot queue: %s\n", err.data);
			if (rc != EX_IOERR)
				rc = EX_DATAERR;
			continue;
		}
		/* A good file that cannot be moved is the system's fault, not
		 * the file's: say so with a different exit code. */
		if (spool_queue_file(cfg->state, file, now, &name, &err) < 0) {
			fprintf(stderr, "perfbot queue: %s\n", err.data);
			rc = EX_IOERR;
			continue;
		}
		printf("queued %s as incoming/%s\n", file, name.data);
		fflush(stdout);
	}
	render_env_close(&env);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&name);
	return rc;
}
