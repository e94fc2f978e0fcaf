/*
 * perfbot report ID --state open|invalid|fixed|duplicate [--why TEXT]:
 * sets a report's state as the operator, recorded like a maintainer's
 * #perfbot command (author "operator (USER)"), in one transaction with the
 * change; status and thread show it.  A closed report gets no follow-ups.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "state.h"
#include "banned.h"

int cmd_report(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT;
	struct config *cfg = NULL;
	struct state *st = NULL;
	struct state_lock *lock = NULL;
	struct state_report r;
	struct opt_args args;
	const char *state_name = NULL, *why = NULL;
	enum state_verdict v;
	char *author = NULL, *mid;
	int64_t id = 0;
	int rc = 0, e, found = 0;
	const struct opt options[] = {
		OPT_STRING_E(0, "state", &state_name, "STATE",
			     "open, invalid, fixed or duplicate"),
		OPT_STRING_E(0, "why", &why, "TEXT", "the reason, recorded with it"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot report",
		.args = "ID",
		.min_args = 1,
		.max_args = 1,
		.about = "Sets the state of report ID (its number, or its Message-ID) as the operator,\n"
			 "as a maintainer's #perfbot command would (reopen, invalid, fixed-by, dup-of):\n"
			 "recorded with the operator's name, shown by status and thread.  A report that\n"
			 "is not open gets no follow-ups.\n",
		.opts = options,
	};

	memset(&r, 0, sizeof(r));
	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (!state_name) {
		rc = cmd_usage_error(&spec, "--state is needed (open, invalid, fixed or duplicate)");
		goto done;
	}
	if (state_verdict_parse(state_name, &v) < 0) {
		rc = cmd_usage_error(&spec, "--state '%s': not one of open, invalid, fixed, duplicate",
				     state_name);
		goto done;
	}
	if (cmd_check_reason(why, &err) < 0) {
		rc = cmd_usage_error(&spec, "%s", err.data);
		goto done;
	}
	e = cmd_report_number(args.v[0], &id, &err);
	if (e < 0) {
		rc = cmd_usage_error(&spec, "%s", err.data);
		goto done;
	}
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (!state_exists(cfg->state)) {
		err_set(&err, "%s: no state yet (nothing was queued)", cfg->state);
		rc = EX_DATAERR;
		goto fail;
	}
	/* under send's lock, as the outbox's actions */
	if (cmd_lock("perfbot report", cfg, &lock, &rc))
		goto done;
	if (state_open(cfg->state, &st, &err) < 0) {
		rc = EX_CANTCREAT;
		goto fail;
	}
	if (!e) {
		mid = cmd_strip_angles(args.v[0]);
		found = state_report_find_id(st, mid, &id, &err);
		if (found == 0)
			err_set(&err, "no report has the Message-ID <%s>", mid);
		free(mid);
	} else {
		found = state_report_get(st, id, &r, &err);
		if (found == 0)
			err_set(&err, "there is no report %s (perfbot status lists them)", args.v[0]);
	}
	if (found == 1 && !r.id)
		found = state_report_get(st, id, &r, &err);
	if (found <= 0) {
		rc = found < 0 ? EX_SOFTWARE : EX_DATAERR;
		goto fail;
	}
	author = cmd_operator();
	e = state_report_set_verdict_by(st, id, v, why, author, opts->now, &err);
	if (e) {
		rc = e < 0 ? EX_SOFTWARE : EX_DATAERR;
		goto fail;
	}
	printf("report %" PRId64 " is %s now (it was %s), as %s\n", id, state_verdict_name(v),
	       state_verdict_name(r.verdict), author);
	goto done;
fail:
	fprintf(stderr, "perfbot report: %s\n", err.data);
done:
	state_report_release(&r);
	state_close(st);
	state_unlock(lock);
	config_free(cfg);
	free(author);
	opt_args_release(&args);
	buf_release(&err);
	return rc;
}
