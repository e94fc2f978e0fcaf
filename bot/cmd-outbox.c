/*
 * perfbot outbox [ACTION ID...]: the outbox in the operator's hands.
 * Without an action, the mails that have not gone (queued, held,
 * deferred, failed) and why each waits; hold, release, retry and drop act
 * on the mails named, each in one transaction that records the action as
 * the operator's command, under the lock `send` takes (so never in the
 * middle of a delivery).  Nothing is deleted: a dropped mail keeps its row
 * and its bytes, and is never sent.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "delivery.h"
#include "state.h"
#include "xalloc.h"
#include "banned.h"

static const struct {
	const char *name;
	enum state_action action;
	const char *done;	/* "held", ... for the line said after it */
} actions[] = {
	{ "hold", STATE_ACTION_HOLD, "held: it is not sent until released" },
	{ "release", STATE_ACTION_RELEASE, "released: it goes when it is due" },
	{ "retry", STATE_ACTION_RETRY, "due again: the next send tries it" },
	{ "drop", STATE_ACTION_DROP, "dropped: kept, and never sent" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A mail the outbox lists: not sent, not dropped. */
static int listed(const struct state_report *r)
{
	return r->mark != STATE_MARK_DROPPED && r->status != STATE_SENT;
}

static const char *list_status(const struct state_report *r)
{
	return r->mark == STATE_MARK_HELD ? "held" : cmd_queue_word(r);
}

/* "2 of 5 recipients have it; deferred: a@x (450 busy)" */
static void list_recipients(struct buf *out, const struct state_report *r)
{
	size_t i, delivered = 0, deferred = 0, refused = 0;

	for (i = 0; i < r->nr_rcpt; i++) {
		delivered += r->rcpt[i].status == STATE_RCPT_DELIVERED;
		deferred += r->rcpt[i].status == STATE_RCPT_DEFERRED;
		refused += r->rcpt[i].status == STATE_RCPT_REFUSED;
	}
	if (!r->nr_rcpt)
		return;
	buf_addf(out, "        recipients: %zu delivered, %zu deferred, %zu refused\n", delivered, deferred,
		 refused);
	for (i = 0; i < r->nr_rcpt; i++) {
		const struct state_rcpt *o = &r->rcpt[i];

		if (o->status == STATE_RCPT_DELIVERED)
			continue;
		buf_addf(out, "          %-9s %s: ", state_rcpt_status_name(o->status), o->address);
		cmd_rcpt_words(out, o);
		buf_addc(out, '\n');
	}
}

static int outbox_list(const struct config *cfg, int64_t now, struct buf *out, struct buf *err)
{
	struct state_reports list = { 0 };
	struct state *st = NULL;
	struct buf why = BUF_INIT;
	int64_t sent_hour = 0, until;
	size_t i, n = 0;
	int ret = 0;

	if (state_exists(cfg->state)) {
		if (state_open(cfg->state, &st, err) < 0)
			return -1;
		ret = state_report_list(st, &list, err);
		if (!ret)
			ret = state_sent_last_hour(st, now, &sent_hour, err);
		state_close(st);
		if (ret < 0)
			goto done;
	}
	for (i = 0; i < list.nr; i++) {
		const struct state_report *r = &list.v[i];
		enum delivery_wait w;

		if (!listed(r))
			continue;
		if (!n++)
			buf_addf(out, "%6s  %-8s %5s  %s\n", "ID", "STATUS", "TRIES", "SUBJECT");
		buf_addf(out, "%6" PRId64 "  %-8s %5d  %s\n", r->id, list_status(r), r->attempts, r->subject);
		buf_reset(&why);
		w = delivery_waiting(cfg, r, now, sent_hour, &until);
		if (w != DELIVERY_NOT_QUEUED) {
			cmd_describe_wait(&why, w, until, r);
			buf_addf(out, "        %s\n", why.data);
		} else if (r->status == STATE_FAILED) {
			buf_addf(out, "        refused for good: %s (`perfbot outbox retry %" PRId64 "` tries again)\n",
				 r->last_reply ? r->last_reply : "", r->id);
		}
		if (r->redirected_to)
			buf_addf(out, "        redirected to %s (perfbot.redirectTo)\n", r->redirected_to);
		if (r->attempts && r->last_reply && r->status == STATE_QUEUED)
			buf_addf(out, "        last attempt: %s\n", r->last_reply);
		list_recipients(out, r);
	}
	if (!n)
		buf_adds(out, "the outbox is empty: nothing queued, held, deferred or failed\n");
done:
	state_reports_release(&list);
	buf_release(&why);
	return ret;
}

/* The report ID names (a number or a Message-ID): 1 with *id, 0 when
 * there is none (a message in err), -1 on error. */
static int outbox_find(struct state *st, const char *arg, int64_t *id, struct buf *err)
{
	struct state_report r;
	char *mid;
	int e = cmd_report_number(arg, id, err);

	if (e < 0)
		return 0;
	if (e) {
		e = state_report_get(st, *id, &r, err);
		if (e == 1)
			state_report_release(&r);
		if (e == 0)
			err_set(err, "there is no report %s (perfbot outbox lists them)", arg);
		return e;
	}
	mid = cmd_strip_angles(arg);
	e = state_report_find_id(st, mid, id, err);
	if (e == 0)
		err_set(err, "no report has the Message-ID <%s>", mid);
	free(mid);
	return e;
}

static void outbox_log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

static int outbox_act(const struct config *cfg, size_t a, const char *why, char **ids, size_t n,
		      int64_t now)
{
	struct buf err = BUF_INIT;
	struct state_lock *lock = NULL;
	struct state *st = NULL;
	char *author = cmd_operator();
	struct event_log log = { outbox_log_line, NULL };
	size_t i, dropped = 0;
	int rc = 0, e;

	if (!state_exists(cfg->state)) {
		fprintf(stderr, "perfbot outbox: %s: no state yet (nothing was queued)\n", cfg->state);
		rc = EX_DATAERR;
		goto done;
	}
	if (cmd_lock("perfbot outbox", cfg, &lock, &rc))
		goto done;
	if (state_open(cfg->state, &st, &err) < 0) {
		fprintf(stderr, "perfbot outbox: %s\n", err.data);
		rc = EX_CANTCREAT;
		goto done;
	}
	for (i = 0; i < n; i++) {
		int64_t id = 0;

		buf_reset(&err);
		e = outbox_find(st, ids[i], &id, &err);
		if (e == 1)
			e = state_report_act(st, id, actions[a].action, why, author, now, &err);
		else
			e = e < 0 ? -1 : STATE_REFUSED;
		if (e == 0) {
			printf("report %" PRId64 " %s\n", id, actions[a].done);
			fflush(stdout);
			dropped += actions[a].action == STATE_ACTION_DROP;
		} else {
			fprintf(stderr, "perfbot outbox %s: %s\n", actions[a].name, err.data);
			if (e < 0)
				rc = EX_SOFTWARE;
			else if (rc != EX_SOFTWARE)
				rc = EX_DATAERR;
		}
	}
	/* the mails that answered a dropped one answer another from now on
	 * (perfbot-send(1), Order); a run killed first leaves it to send */
	buf_reset(&err);
	if (dropped && delivery_rethread(st, &log, NULL, &err) < 0) {
		fprintf(stderr, "perfbot outbox %s: %s\n", actions[a].name, err.data);
		rc = EX_SOFTWARE;
	}
done:
	state_close(st);
	state_unlock(lock);
	free(author);
	buf_release(&err);
	return rc;
}

int cmd_outbox(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, out = BUF_INIT;
	struct config *cfg = NULL;
	struct opt_args args;
	const char *why = NULL;
	size_t a = N(actions);
	int rc = 0;
	const struct opt options[] = {
		OPT_STRING_E(0, "why", &why, "TEXT",
			     "the reason, recorded with the action (drop needs one)"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot outbox",
		.args = "[hold|release|retry|drop ID...]",
		.max_args = OPT_ARGS_ANY,
		.about = "Without an action: the mails that have not gone (queued, held, deferred,\n"
			 "failed) and why each waits.  With one, on each mail named (its number, as\n"
			 "status shows it, or its Message-ID), as the operator, under send's lock:\n"
			 "  hold     keep a queued or deferred mail from being sent\n"
			 "  release  let a held mail go\n"
			 "  retry    clear the back-off of a queued or deferred mail; open a failed one\n"
			 "           (or one with refused recipients) for another attempt\n"
			 "  drop     never send it (--why TEXT); the mail is kept\n",
		.notes = "Each action is one transaction, recorded as the operator's command (status\n"
			 "and thread show it).  Exit 65 when an action does not apply to a mail (the\n"
			 "message says why), 75 when a send is running.\n",
		.opts = options,
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (args.nr) {
		for (a = 0; a < N(actions) && strcmp(actions[a].name, args.v[0]); a++)
			;
		if (a == N(actions)) {
			rc = cmd_usage_error(&spec, "'%s' is not an action (hold, release, retry, drop)",
					     args.v[0]);
			goto done;
		}
		if (args.nr < 2) {
			rc = cmd_usage_error(&spec, "%s needs the ID of a mail (perfbot outbox lists them)",
					     args.v[0]);
			goto done;
		}
		if (actions[a].action == STATE_ACTION_DROP && (!why || !*why)) {
			rc = cmd_usage_error(&spec, "drop needs --why TEXT: the reason is kept with the mail");
			goto done;
		}
	} else if (why) {
		rc = cmd_usage_error(&spec, "--why goes with an action");
		goto done;
	}
	if (cmd_check_reason(why, &err) < 0) {
		rc = cmd_usage_error(&spec, "%s", err.data);
		goto done;
	}
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		fprintf(stderr, "perfbot outbox: %s\n", err.data);
		rc = EX_CONFIG;
		goto done;
	}
	if (a < N(actions)) {
		rc = outbox_act(cfg, a, why, args.v + 1, args.nr - 1, opts->now);
		goto done;
	}
	if (outbox_list(cfg, opts->now, &out, &err) < 0) {
		fprintf(stderr, "perfbot outbox: %s\n", err.data);
		rc = EX_IOERR;
		goto done;
	}
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot outbox: cannot write to stdout\n");
		rc = EX_IOERR;
	}
done:
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&out);
	return rc;
}
