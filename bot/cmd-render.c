/*
 * perfbot render FILE.json: the complete mail, exactly as send would
 * deliver it, on stdout.  Sends nothing, changes no state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "date.h"
#include "message.h"
#include "render.h"
#include "report.h"
#include "result.h"
#include "state.h"
#include "xalloc.h"
#include "banned.h"

/* The report's creation time: --date, else SOURCE_DATE_EPOCH, else now. */
static int creation_time(const char *date, int zone, int64_t *out, struct buf *err)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");

	if (date)
		return date_parse_local(date, zone, out, err) < 0 ? err_prefix(err, "--date: ") : 0;
	if (sde && *sde) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(sde, &end, 10);
		if (errno || *end || v < 0)
			return err_set(err, "SOURCE_DATE_EPOCH: '%s' is not a number of seconds", sde);
		*out = v;
		return 0;
	}
	*out = (int64_t)time(NULL);
	return 0;
}

int cmd_render(int argc, char **argv, const struct cmd_options *opts)
{
	const char *template_name = NULL, *date = NULL, *mid = NULL, *file = NULL, *job = NULL;
	struct result_request rq;
	struct state *st = NULL;
	int has_rq = 0;
	struct buf err = BUF_INIT;
	struct config *cfg = NULL;
	struct report *report = NULL;
	struct render_env env;
	struct render_request req;
	struct rendered out;
	char *message_id = NULL;
	int rc, env_open = 0, verbose = opts->verbose;
	struct opt_args args;
	const struct opt options[] = {
		OPT_STRING_E(0, "template", &template_name, "NAME",
			     "a template in perfbot.templates instead of perfbot.template"),
		OPT_STRING_E(0, "date", &date, "DATE",
			     "the creation time, 'YYYY-MM-DD hh:mm:ss' in perfbot.timezone\n"
			     "(default: $SOURCE_DATE_EPOCH, else now)"),
		OPT_STRING_E(0, "message-id", &mid, "ID",
			     "use this Message-ID (with or without <>) instead of minting one"),
		OPT_STRING_E(0, "request", &job, "FILE",
			     "a test result: the job file of its request (requests take printed it),\n"
			     "when the state does not have the request"),
		OPT_COUNT_E('v', "verbose", &verbose, "also say on stderr why each recipient gets the mail, who is left out\n"
			    "and why, the MAINTAINERS sections, and what was noticed on the way"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot render",
		.args = "FILE.json",
		.min_args = 1,
		.max_args = 1,
		.about = "Prints the report mail for FILE.json (headers and body) as it would be sent;\n"
			 "sends nothing and changes nothing.\n",
		.opts = options,
	};

	memset(&out, 0, sizeof(out));
	buf_init(&out.notes);
	buf_init(&out.mail);
	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	file = args.v[0];
	opt_args_release(&args);
	rc = EX_DATAERR;
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	memset(&req, 0, sizeof(req));
	if (creation_time(date, cfg->timezone, &req.created, &err) < 0) {
		rc = EX_USAGE;
		goto fail;
	}
	if (strcmp(file, "-") && access(file, R_OK) < 0) {
		err_set(&err, "%s: cannot read: %s", file, strerror(errno));
		rc = EX_NOINPUT;
		goto fail;
	}
	if (report_load_file(file, &report, &err) < 0)
		goto fail;
	if (render_env_open(&env, cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	env_open = 1;
	if (render_env_read_exclusions(&env, NULL, &err) < 0) {
		rc = EX_IOERR;
		goto fail;
	}
	if (mid) {
		message_id = cmd_strip_angles(mid);
		if (message_check_id(message_id, &err) < 0) {
			err_prefix(&err, "--message-id: ");
			rc = EX_USAGE;
			goto fail;
		}
	}
	if (report->request || job) {
		struct buf why = BUF_INIT;
		int e;

		/* the request a result answers: from its job file, else the
		 * state's (read, never created) */
		if (job) {
			e = result_request_from_job(job, &rq, &err) < 0 ? -1 : 1;
		} else if (!state_exists(cfg->state)) {
			err_set(&err, "%s: a test result answers request %ld: there is no state in %s; "
				"give its job file with --request FILE", file, report->request, cfg->state);
			e = -1;
		} else if (state_open(cfg->state, &st, &err) < 0) {
			rc = EX_IOERR;
			e = -1;
		} else {
			e = result_request_load(st, report->request, &rq, &why, &err);
			if (e == 0)
				err_set(&err, "%s: %s", file, why.data);
		}
		has_rq = e > 0;
		if (e > 0 && result_check(env.repo, report, &rq, &why)) {
			err_set(&err, "%s", why.data);
			e = -1;
		}
		buf_release(&why);
		if (e <= 0)
			goto fail;
		req.answer = &rq;
	}
	req.report = report;
	req.message_id = message_id;
	req.template_name = template_name;
	if (render_report(&env, &req, &out, &err) < 0)
		goto fail;
	if (verbose) {
		struct buf why = BUF_INIT;

		buf_adds(&why, out.notes.data);
		render_routing_text(&why, &out.rcpt, &out.route);
		fputs(why.data, stderr);
		buf_release(&why);
	}
	if (fwrite(out.mail.data, 1, out.mail.len, stdout) != out.mail.len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot render: cannot write to stdout: %s\n", strerror(errno));
		rc = EX_IOERR;
		goto done;
	}
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "perfbot render: %s\n", err.data);
done:
	if (has_rq)
		result_request_release(&rq);
	state_close(st);
	rendered_release(&out);
	if (env_open)
		render_env_close(&env);
	report_free(report);
	config_free(cfg);
	free(message_id);
	buf_release(&err);
	return rc;
}
