/*
 * perfbot status [--json]: the spool, the outbox and the replies at a
 * glance, for an operator or (--json, perfbot-json(5)) for scripts: each
 * report with every recipient's outcome, where it went with
 * perfbot.redirectTo, why a queued one has not gone, and the commands of
 * maintainers and operators about it.  Reads only: a missing state
 * directory is an empty state, not created.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "date.h"
#include "delivery.h"
#include "intake.h"
#include "spool.h"
#include "state.h"
#include "status.h"
#include "value.h"
#include "banned.h"

/* The STATUS column: also held, deferred (an attempt failed or a
 * recipient waits) and dropped. */
static const char *text_status(const struct state_report *r)
{
	return r->mark != STATE_MARK_NONE ? state_mark_name(r->mark) : cmd_queue_word(r);
}

static struct value *json_exclusions(const struct status *s)
{
	struct value *a = value_new_array();
	size_t i;

	for (i = 0; i < s->exclusions.nr; i++) {
		const struct state_exclusion *x = &s->exclusions.v[i];
		struct value *o = value_array_push(a, value_new_object());

		value_object_set_string(o, "address", x->address);
		value_object_set_string(o, "who", x->who);
		value_object_set(o, "date", cmd_json_time(x->date));
		value_object_set(o, "message_id", x->message_id ? value_new_string(x->message_id)
							       : value_new_null());
	}
	return a;
}

static void text_exclusions(const struct status *s, struct buf *out)
{
	size_t i;

	if (!s->exclusions.nr)
		return;
	buf_adds(out, "\nnot mailed (#perfbot unsubscribe):\n");
	for (i = 0; i < s->exclusions.nr; i++) {
		const struct state_exclusion *x = &s->exclusions.v[i];
		struct buf when = BUF_INIT;

		date_format_rfc3339_utc(&when, x->date);
		buf_addf(out, "  %s  by %s  %s\n", x->address, x->who, when.data);
		buf_release(&when);
	}
}

static void status_json(const struct status *s, struct buf *out)
{
	struct value *root = value_new_object();
	struct value *spool, *reports, *waiting;
	size_t i;

	value_object_set_bool(root, "paused", s->cfg->paused);
	spool = value_object_set(root, "spool", value_new_object());
	value_object_set(spool, "incoming", value_new_integer((int64_t)s->incoming));
	value_object_set(spool, "rejected", value_new_integer((int64_t)s->rejected));
	waiting = value_object_set(spool, "waiting", value_new_array());
	for (i = 0; i < s->waits.nr; i++) {
		const struct intake_wait *w = &s->waits.v[i];
		struct value *e = value_array_push(waiting, value_new_object());

		value_object_set_string(e, "file", w->name);
		value_object_set(e, "until", cmd_json_time(w->until));
		value_object_set(e, "refused", w->refused ? value_new_string(w->refused)
							  : value_new_null());
	}
	reports = value_object_set(root, "reports", value_new_array());
	for (i = 0; i < s->reports.nr; i++)
		value_array_push(reports, status_report_json(s, &s->reports.v[i]));
	value_object_set(root, "sent_last_hour", value_new_integer(s->sent_last_hour));
	value_object_set(root, "exclusions", json_exclusions(s));
	value_write_json(out, root, 2);
	buf_addc(out, '\n');
	value_free(root);
}

#define INDENT "        "	/* the detail lines under a report's */

static void text_recipient(void *ctx, const char *address, size_t len, const struct state_rcpt *o)
{
	struct buf *out = ctx;

	if (!o || o->status == STATE_RCPT_DELIVERED)
		return;
	buf_addf(out, INDENT "%-9s %.*s: ", state_rcpt_status_name(o->status), (int)len, address);
	cmd_rcpt_words(out, o);
	buf_addc(out, '\n');
}

static void text_date(struct buf *out, int64_t t)
{
	struct date_civil c;

	if (!t) {
		buf_adds(out, "(no date)       ");
		return;
	}
	date_to_civil(t, 0, &c);
	buf_addf(out, "%04lld-%02d-%02d %02d:%02d", (long long)c.year, c.month, c.day, c.hour, c.minute);
}

/* What report id is ("report", "followup"...), from the list (in id order). */
static const char *kind_of(const struct status *s, int64_t id)
{
	size_t lo = 0, hi = s->reports.nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->reports.v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->reports.nr && s->reports.v[lo].id == id)
		return s->reports.v[lo].kind == STATE_KIND_FOLLOWUP ? "follow-up" :
		       state_kind_name(s->reports.v[lo].kind);
	return "mail";
}

/* The lines under a report: where it went, why it waits, the recipients
 * that do not have it, the commands about it. */
static void text_details(const struct status *s, const struct state_report *r, struct buf *out)
{
	struct buf line = BUF_INIT;
	int64_t until;
	enum delivery_wait w = delivery_waiting(s->cfg, r, s->now, s->sent_last_hour, &until);
	size_t i;

	/* which mail it answers: another than it did when it was queued,
	 * when that one never went (perfbot-send(1), Order) */
	if (r->parent_id && !r->sent && r->mark != STATE_MARK_DROPPED)
		buf_addf(out, INDENT "answers %s %lld <%s>\n", kind_of(s, r->parent_id), (long long)r->parent_id,
			 r->in_reply_to ? r->in_reply_to : "");
	if (r->redirected_to)
		buf_addf(out, INDENT "redirected to %s (perfbot.redirectTo), not to its recipients\n",
			 r->redirected_to);
	if (r->mark == STATE_MARK_DROPPED)
		buf_addf(out, INDENT "dropped by the operator%s%s: never sent\n",
			 r->mark_why && *r->mark_why ? ": " : "", r->mark_why ? r->mark_why : "");
	if (w != DELIVERY_NOT_QUEUED) {
		cmd_describe_wait(&line, w, until, r);
		buf_addf(out, INDENT "%s\n", line.data);
		if (r->attempts && r->last_reply && r->status == STATE_QUEUED) {
			buf_reset(&line);
			text_date(&line, r->last_attempt);
			buf_addf(out, INDENT "last attempt %s UTC: %s\n", line.data, r->last_reply);
		}
	}
	if (r->status == STATE_FAILED && r->last_reply)
		buf_addf(out, INDENT "refused: %s\n", r->last_reply);
	status_each_recipient(r, text_recipient, out);
	for (i = 0; i < s->commands.nr; i++) {
		const struct state_command *c = &s->commands.v[i];

		if (c->report_id != r->id)
			continue;
		buf_reset(&line);
		text_date(&line, c->date);
		buf_addf(out, INDENT "%s  %s%s%s%s by %s", line.data, c->message_id ? "#perfbot " : "",
			 c->name, *c->args ? (c->message_id ? " " : ": ") : "", c->args, c->author);
		if (!c->applied)
			buf_addf(out, " not applied: %s", c->why ? c->why : "");
		buf_addc(out, '\n');
	}
	for (i = 0; i < s->requests.nr; i++) {
		const struct state_request *q = &s->requests.v[i];

		if (q->report_id != r->id)
			continue;
		buf_addf(out, INDENT "test request %lld %s: ", (long long)q->id,
			 state_request_state_name(q->state));
		cmd_request_words(out, q);
		buf_addc(out, '\n');
	}
	buf_release(&line);
}

static void status_text(const struct status *s, struct buf *out)
{
	size_t i;

	buf_addf(out, "paused: %s\n", s->cfg->paused ? "yes (perfbot.paused): nothing is sent" : "no");
	buf_addf(out, "spool: %zu incoming, %zu rejected\n", s->incoming, s->rejected);
	for (i = 0; i < s->waits.nr; i++) {
		const struct intake_wait *w = &s->waits.v[i];
		struct buf when = BUF_INIT;

		if (w->refused) {
			buf_addf(out, "  %s: the next send refuses it: %s\n", w->name, w->refused);
		} else if (w->until) {
			date_format_rfc3339_utc(&when, w->until);
			buf_addf(out, "  %s: coalescing until %s (send --flush takes it now)\n", w->name,
				 when.data);
		} else {
			buf_addf(out, "  %s: goes at the next send\n", w->name);
		}
		buf_release(&when);
	}
	buf_addf(out, "sent this hour: %" PRId64 " (perfbot.maxPerHour %d)\n", s->sent_last_hour,
		 s->cfg->max_per_hour);
	if (!s->reports.nr) {
		buf_adds(out, "no reports\n");
		text_exclusions(s, out);
		return;
	}
	buf_addf(out, "\n%6s  %-8s %-9s %5s  %-20s %7s  %s\n", "ID", "STATUS", "STATE", "TRIES",
		 "NEXT ATTEMPT", "REPLIES", "SUBJECT");
	for (i = 0; i < s->reports.nr; i++) {
		const struct state_report *r = &s->reports.v[i];
		struct buf next = BUF_INIT;
		int64_t until;
		enum delivery_wait w = delivery_waiting(s->cfg, r, s->now, s->sent_last_hour, &until);

		if (w == DELIVERY_BACKOFF || w == DELIVERY_MAX_PER_HOUR)
			date_format_rfc3339_utc(&next, until);
		else
			buf_adds(&next, w == DELIVERY_DUE ? "now" : "-");
		buf_addf(out, "%6" PRId64 "  %-8s %-9s %5d  %-20s %7zu  %s\n", r->id, text_status(r),
			 r->kind == STATE_KIND_REPORT || r->kind == STATE_KIND_FOLLOWUP ?
			 state_verdict_name(r->verdict) : state_kind_name(r->kind), r->attempts,
			 next.data, r->replies, r->subject);
		text_details(s, r, out);
		if (status_tracked_of(s, r->id))
			cmd_fix_lines(out, INDENT, s->cfg, status_tracked_of(s, r->id));
		buf_release(&next);
	}
	text_exclusions(s, out);
}

int cmd_status(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, out = BUF_INIT;
	struct config *cfg = NULL;
	struct status s;
	int json = 0, rc = 0;
	struct opt_args args;
	const struct opt options[] = {
		OPT_BOOL_E(0, "json", &json, "the same as JSON (perfbot-json(5))"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot status",
		.about = "Shows whether sending is paused, the spool (and when each file goes), every\n"
			 "report with its delivery status, each recipient that does not have it, where\n"
			 "perfbot.redirectTo sent it, why a queued one has not gone, its replies, state,\n"
			 "fix and possible fixes (perfbot track) and the commands about it, and how many\n"
			 "mails went out this hour.\n",
		.opts = options,
	};

	memset(&s, 0, sizeof(s));
	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		fprintf(stderr, "perfbot status: %s\n", err.data);
		buf_release(&err);
		opt_args_release(&args);
		return EX_CONFIG;
	}
	if (status_gather(cfg, opts->now, &s, &err) < 0) {
		fprintf(stderr, "perfbot status: %s\n", err.data);
		rc = EX_IOERR;
		goto done;
	}
	if (json)
		status_json(&s, &out);
	else
		status_text(&s, &out);
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot status: cannot write to stdout\n");
		rc = EX_IOERR;
	}
done:
	status_release(&s);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&out);
	return rc;
}
