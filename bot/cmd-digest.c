/*
 * perfbot digest [--dry-run] [--to ADDR]... [--force]: queues one mail
 * listing the reports still open, those fixed and those closed since the
 * previous digest, threaded under it (bot/digest.h).  Minted and stored
 * in the outbox before anything is sent: the next perfbot send delivers
 * it, with the same exactly-once guarantees as a report.  --dry-run
 * prints it (an mbox) and changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "address.h"
#include "cmd.h"
#include "config.h"
#include "date.h"
#include "digest.h"
#include "mboxrd.h"
#include "render.h"
#include "state.h"
#include "xalloc.h"
#include "banned.h"

/* The recipients: every value of list, each an address or a
 * comma-separated list of them.  -1 with a message naming what. */
static int recipients(const char *what, const char *const *list, size_t n, struct address **out,
		      size_t *nr, struct buf *err)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct address *some = NULL;
		size_t nr_some = 0;

		if (address_list_parse(list[i], &some, &nr_some, err) < 0)
			return err_prefix(err, "%s: ", what);
		*out = xrealloc(*out, (*nr + nr_some + 1) * sizeof(**out));
		for (j = 0; j < nr_some; j++)
			(*out)[(*nr)++] = some[j];
		free(some);
	}
	return 0;
}

int cmd_digest(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, out = BUF_INIT, when = BUF_INIT;
	struct config *cfg = NULL;
	struct state *st = NULL;
	struct state_lock *lock = NULL;
	struct template_set *templates = NULL;
	struct state_tracked_list reports = { 0 };
	struct state_requests requests = { 0 };
	struct state_report prev, row;
	struct state_digest_entry *entries = NULL;
	struct address *to = NULL;
	struct digest d;
	struct digest_request req;
	struct digest_mail m;
	struct opt_list to_opt = { 0 };
	struct opt_args args;
	size_t nr_to = 0, nr_entries = 0;
	int dry_run = 0, force = 0, rc = 0, has_prev = 0, e;
	int64_t id = 0;
	const struct opt options[] = {
		OPT_BOOL_E('n', "dry-run", &dry_run, "print the digest (an mbox) and change nothing"),
		OPT_LIST_E(0, "to", &to_opt, "ADDR",
			   "send it to ADDR instead of [digest] to (may be given several times)"),
		OPT_BOOL_E(0, "force", &force, "queue the digest even when it lists nothing"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot digest",
		.about = "Queues one mail to [digest] to (or --to) listing the reports still open\n"
			 "(oldest first: age, tree, subject, link, replies, last activity, possible\n"
			 "fixes), those fixed since the previous digest (with the fix commit and\n"
			 "tree) and those marked invalid or duplicate since then, threaded under\n"
			 "the previous digest.  perfbot send delivers it.  A digest that would list\n"
			 "nothing is not queued unless --force.\n",
		.opts = options,
	};

	memset(&prev, 0, sizeof(prev));
	memset(&d, 0, sizeof(d));
	memset(&m, 0, sizeof(m));
	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (recipients("--to", to_opt.v, to_opt.nr, &to, &nr_to, &err) < 0) {
		rc = cmd_usage_error(&spec, "%s", err.data);
		goto done;
	}
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (!to_opt.nr) {
		if (recipients("digest.to", (const char *const *)cfg->digest_to.v, cfg->digest_to.nr, &to,
			       &nr_to, &err) < 0) {
			rc = EX_CONFIG;
			goto fail;
		}
		if (!nr_to) {
			err_set(&err, "nobody to send a digest to: set [digest] to in %s, or give --to ADDR",
				cfg->path ? cfg->path : "the configuration");
			rc = EX_CONFIG;
			goto fail;
		}
	}
	if (!dry_run && cmd_lock("perfbot digest", cfg, &lock, &rc))
		goto done;
	/* a dry run without a state looks at an empty one */
	if ((!dry_run || state_exists(cfg->state)) && state_open(cfg->state, &st, &err) < 0) {
		rc = EX_CANTCREAT;
		goto fail;
	}
	if (st && (state_tracked_list(st, 1, &reports, &err) < 0 ||
		   state_request_list(st, 0, &requests, &err) < 0 ||
		   (has_prev = state_digest_last(st, &prev, &err)) < 0 ||
		   (has_prev && state_digest_entries(st, prev.id, &entries, &nr_entries, &err) < 0))) {
		rc = EX_SOFTWARE;
		goto fail;
	}
	digest_select(&reports, has_prev, entries, nr_entries, &d);
	if (digest_empty(&d) && !force) {
		if (has_prev)
			date_format_rfc3339_utc(&when, prev.created);
		fprintf(stderr, "perfbot digest: nothing to list (no report open, none fixed or closed since %s): "
			"no digest queued (--force queues one all the same)\n",
			has_prev ? when.data : "the start");
		goto done;
	}
	templates = render_template_set(cfg);
	memset(&req, 0, sizeof(req));
	req.cfg = cfg;
	req.templates = templates;
	req.d = &d;
	req.previous = has_prev ? &prev : NULL;
	req.to = to;
	req.nr_to = nr_to;
	req.created = opts->now;
	req.requests = &requests;
	if (digest_render(&req, &m, &err) < 0) {
		rc = EX_CONFIG;	/* --to was read already: the template or a key */
		goto fail;
	}
	if (dry_run) {
		mboxrd_append(&out, m.from_email, opts->now, m.mail.data, m.mail.len);
		if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
			fprintf(stderr, "perfbot digest: cannot write to stdout\n");
			rc = EX_IOERR;
			goto done;
		}
		fprintf(stderr, "would queue digest <%s> %s\n", m.message_id, m.subject);
		goto done;
	}
	digest_row(&m, &req, &row);
	e = state_digest_add(st, &row, d.entries, d.nr_entries, &id, &err);
	if (e) {
		rc = e == STATE_EXISTS ? EX_TEMPFAIL : EX_SOFTWARE;
		goto fail;
	}
	fprintf(stderr, "queued digest %lld <%s> %s%s%s: perfbot send delivers it\n", (long long)id,
		m.message_id, m.subject, has_prev ? ", under " : "", has_prev ? prev.message_id : "");
	goto done;
fail:
	fprintf(stderr, "perfbot digest: %s\n", err.data);
done:
	digest_mail_release(&m);
	digest_release(&d);
	state_digest_entries_free(entries, nr_entries);
	state_report_release(&prev);
	state_tracked_list_release(&reports);
	state_requests_release(&requests);
	template_set_free(templates);
	address_list_free(to, nr_to);
	state_close(st);
	state_unlock(lock);
	config_free(cfg);
	opt_list_release(&to_opt);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&out);
	buf_release(&when);
	return rc;
}
