/*
 * perfbot requests [take [N] | drop N --why TEXT]: the "#perfbot test"
 * requests for the lab's pipeline (perfbot-requests(1)).  Without a verb,
 * every request with its state; take claims the oldest pending job (or
 * N) by renaming its file, so that of two pipelines racing exactly one
 * gets it, prints its JSON and marks it taken; drop ends one with a
 * reason.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "date.h"
#include "request.h"
#include "state.h"
#include "value.h"
#include "banned.h"

static int list(struct state *st, int json, struct buf *out, struct buf *err)
{
	struct state_requests all = { 0 };
	size_t i;

	if (state_request_list(st, 0, &all, err) < 0)
		return -1;
	if (json) {
		struct value *o = value_new_object(), *a;

		a = value_object_set(o, "requests", value_new_array());
		for (i = 0; i < all.nr; i++)
			value_array_push(a, cmd_request_json(&all.v[i]));
		value_write_json(out, o, 2);
		buf_addc(out, '\n');
		value_free(o);
	}
	for (i = 0; i < all.nr && !json; i++) {
		const struct state_request *r = &all.v[i];

		buf_addf(out, "%" PRId64 "  %s  report %" PRId64 "  ", r->id,
			 state_request_state_name(r->state), r->report_id);
		cmd_request_words(out, r);
		buf_addc(out, '\n');
	}
	state_requests_release(&all);
	return 0;
}

int cmd_requests(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, out = BUF_INIT;
	struct config *cfg = NULL;
	struct state *st = NULL;
	struct opt_args args;
	const char *state_dir = NULL, *why = NULL, *verb = NULL;
	int json = 0, rc = 0, e;
	int64_t n = 0, taken = 0;
	const struct opt options[] = {
		OPT_BOOL_E(0, "json", &json, "the list as JSON (perfbot-json(5))"),
		OPT_STRING_E(0, "state", &state_dir, "STATE", "perfbot's state folder (else perfbot.state)"),
		OPT_STRING_E(0, "why", &why, "TEXT", "drop: the reason, recorded with it"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot requests",
		.args = "[take [N] | drop N --why TEXT]",
		.max_args = 2,
		.about = "Lists the #perfbot test requests and their states; take claims the oldest\n"
			 "pending job (or N) for the lab's pipeline, once, printing its JSON; drop ends\n"
			 "one with a reason.\n",
		.notes = "take exits 1 when no job is pending (or N is not).\n",
		.opts = options,
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (args.nr) {
		verb = args.v[0];
		if (strcmp(verb, "take") && strcmp(verb, "drop")) {
			rc = cmd_usage_error(&spec, "'%s': not take or drop", verb);
			goto done;
		}
		if (args.nr == 2 && cmd_report_number(args.v[1], &n, &err) <= 0) {
			rc = cmd_usage_error(&spec, "'%s' is not a request number", args.v[1]);
			goto done;
		}
		if (!strcmp(verb, "drop") && (!n || !why)) {
			rc = cmd_usage_error(&spec, "drop needs a request number and --why TEXT");
			goto done;
		}
		if (why && cmd_check_reason(why, &err) < 0) {
			rc = cmd_usage_error(&spec, "%s", err.data);
			goto done;
		}
	} else if (why) {
		rc = cmd_usage_error(&spec, "--why goes with drop");
		goto done;
	}
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (!state_dir)
		state_dir = cfg->state;
	if (!state_exists(state_dir)) {
		err_set(&err, "%s: no state yet", state_dir);
		rc = EX_DATAERR;
		goto fail;
	}
	if (state_open(state_dir, &st, &err) < 0) {
		rc = EX_CANTCREAT;
		goto fail;
	}
	if (!verb) {
		if (list(st, json, &out, &err) < 0) {
			rc = EX_SOFTWARE;
			goto fail;
		}
	} else if (!strcmp(verb, "take")) {
		/* the rename decides who takes it; the state follows */
		e = request_file_take(state_dir, n, &taken, &out, &err);
		if (e < 0) {
			rc = EX_IOERR;
			goto fail;
		}
		if (!e) {
			rc = 1;
			if (n)
				fprintf(stderr, "perfbot requests: request %" PRId64 " is not pending\n", n);
			goto done;
		}
		if (state_request_set_state(st, taken, STATE_REQUEST_TAKEN, 1u << STATE_REQUEST_PENDING,
					    NULL, opts->now, &err) < 0) {
			rc = EX_SOFTWARE;
			goto fail;
		}
	} else {
		e = state_request_set_state(st, n, STATE_REQUEST_DROPPED,
					    1u << STATE_REQUEST_PENDING | 1u << STATE_REQUEST_TAKEN, why,
					    opts->now, &err);
		if (e < 0 || (e > 0 && request_file_drop(state_dir, n, &err) < 0)) {
			rc = EX_SOFTWARE;
			goto fail;
		}
		if (!e) {
			err_set(&err, "request %" PRId64 " is not pending or taken", n);
			rc = EX_DATAERR;
			goto fail;
		}
		buf_addf(&out, "request %" PRId64 " dropped: %s\n", n, why);
	}
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot requests: cannot write to stdout\n");
		rc = EX_IOERR;
	}
	goto done;
fail:
	fprintf(stderr, "perfbot requests: %s\n", err.data);
done:
	state_close(st);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&out);
	return rc;
}
