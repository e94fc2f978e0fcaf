/*
 * perfbot status [--json]: the spool, the outbox and the replies at a
 * glance, for an operator or (--json, spec/cli-json.md) for scripts.
 * Reads only: a missing state directory is an empty state, not created.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "date.h"
#include "spool.h"
#include "state.h"
#include "value.h"
#include "banned.h"

/* Everything status shows, gathered before anything is printed. */
struct status {
	int paused;
	int max_per_hour;
	size_t incoming, rejected;
	int64_t sent_last_hour;
	struct state_reports reports;
	struct state_tracked_list tracked;	/* the fixes of the reports (issue 15) */
};

/* The tracked facts of report id (both lists are in id order), or NULL. */
static const struct state_tracked *tracked_of(const struct status *s, int64_t id)
{
	size_t lo = 0, hi = s->tracked.nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->tracked.v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->tracked.nr && s->tracked.v[lo].id == id ? &s->tracked.v[lo] : NULL;
}

static int status_gather(const struct config *cfg, int64_t now, struct status *s,
			 struct buf *err)
{
	struct state *st;
	int ret;

	memset(s, 0, sizeof(*s));
	s->paused = cfg->paused;
	s->max_per_hour = cfg->max_per_hour;
	if (spool_count(cfg->state, &s->incoming, &s->rejected, err) < 0)
		return -1;
	if (!state_exists(cfg->state))
		return 0;
	if (state_open(cfg->state, &st, err) < 0)
		return -1;
	ret = state_report_list(st, &s->reports, err);
	if (!ret)
		ret = state_tracked_list(st, 1, &s->tracked, err);
	if (!ret)
		ret = state_sent_last_hour(st, now, &s->sent_last_hour, err);
	state_close(st);
	return ret;
}

/* A 'sending' report is one whose attempt has not ended: for scripts it
 * is still waiting to go out, as the spec's three statuses have it. */
static const char *json_status(enum state_status s)
{
	return s == STATE_SENDING ? "queued" : state_status_name(s);
}

static struct value *json_time(int64_t t)
{
	struct buf b = BUF_INIT;
	size_t len;
	char *s;

	if (!t)
		return value_new_null();
	date_format_rfc3339_utc(&b, t);
	s = buf_detach(&b, &len);
	return value_new_string_owned(s, len);
}

/* One address per line -> a JSON array of them. */
static struct value *json_lines(const char *text)
{
	struct value *a = value_new_array();

	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		if (n)
			value_array_push(a, value_new_stringn(text, n));
		text += n + (nl ? 1 : 0);
	}
	return a;
}

static struct value *json_report(const struct state_report *r, const struct state_tracked *t)
{
	struct value *o = value_new_object();

	value_object_set(o, "id", value_new_integer(r->id));
	value_object_set_string(o, "message_id", r->message_id);
	value_object_set_string(o, "subject", r->subject);
	value_object_set_string(o, "status", json_status(r->status));
	value_object_set(o, "attempts", value_new_integer(r->attempts));
	value_object_set(o, "created", json_time(r->created));
	value_object_set(o, "sent", json_time(r->sent));
	value_object_set(o, "next_attempt",
			 r->status == STATE_QUEUED ? json_time(r->next_attempt) : value_new_null());
	value_object_set(o, "last_reply",
			 r->last_reply ? value_new_string(r->last_reply) : value_new_null());
	value_object_set(o, "to", json_lines(r->to_addrs));
	value_object_set(o, "cc", json_lines(r->cc_addrs));
	value_object_set(o, "replies", value_new_integer((int64_t)r->replies));
	value_object_set_string(o, "state", state_verdict_name(r->verdict));
	value_object_set(o, "followups", value_new_integer((int64_t)r->followups));
	value_object_set_string(o, "kind", state_kind_name(r->kind));
	value_object_set(o, "parent", r->parent_id ? value_new_integer(r->parent_id)
						    : value_new_null());
	cmd_fix_json(o, t);
	return o;
}

static void status_json(const struct status *s, struct buf *out)
{
	struct value *root = value_new_object();
	struct value *spool, *reports;
	size_t i;

	value_object_set_bool(root, "paused", s->paused);
	spool = value_object_set(root, "spool", value_new_object());
	value_object_set(spool, "incoming", value_new_integer((int64_t)s->incoming));
	value_object_set(spool, "rejected", value_new_integer((int64_t)s->rejected));
	reports = value_object_set(root, "reports", value_new_array());
	for (i = 0; i < s->reports.nr; i++)
		value_array_push(reports, json_report(&s->reports.v[i], tracked_of(s, s->reports.v[i].id)));
	value_object_set(root, "sent_last_hour", value_new_integer(s->sent_last_hour));
	value_write_json(out, root, 2);
	buf_addc(out, '\n');
	value_free(root);
}

static void status_text(const struct status *s, const struct config *cfg, struct buf *out)
{
	size_t i;

	buf_addf(out, "paused: %s\n", s->paused ? "yes (perfbot.paused): nothing is sent" : "no");
	buf_addf(out, "spool: %zu incoming, %zu rejected\n", s->incoming, s->rejected);
	buf_addf(out, "sent this hour: %" PRId64 " (perfbot.maxPerHour %d)\n", s->sent_last_hour,
		 s->max_per_hour);
	if (!s->reports.nr) {
		buf_adds(out, "no reports\n");
		return;
	}
	buf_addf(out, "\n%6s  %-8s %-9s %5s  %-20s %7s  %s\n", "ID", "STATUS", "STATE", "TRIES",
		 "NEXT ATTEMPT", "REPLIES", "SUBJECT");
	for (i = 0; i < s->reports.nr; i++) {
		const struct state_report *r = &s->reports.v[i];
		struct buf next = BUF_INIT;

		if (r->status == STATE_QUEUED && r->next_attempt)
			date_format_rfc3339_utc(&next, r->next_attempt);
		else
			buf_adds(&next, r->status == STATE_QUEUED ? "now" : "-");
		buf_addf(out, "%6" PRId64 "  %-8s %-9s %5d  %-20s %7zu  %s\n", r->id,
			 state_status_name(r->status),
			 r->kind == STATE_KIND_REPORT || r->kind == STATE_KIND_FOLLOWUP ?
			 state_verdict_name(r->verdict) : state_kind_name(r->kind), r->attempts,
			 next.data, r->replies, r->subject);
		if (r->status == STATE_FAILED && r->last_reply)
			buf_addf(out, "%6s  refused: %s\n", "", r->last_reply);
		if (tracked_of(s, r->id))
			cmd_fix_lines(out, "        ", cfg, tracked_of(s, r->id));
		buf_release(&next);
	}
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
		.about = "Shows whether sending is paused, the spool, every report with its delivery\n"
			 "status, replies, state and fix (perfbot track), and how many mails went\n"
			 "out this hour.\n",
		.opts = options,
	};

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
		status_text(&s, cfg, &out);
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot status: cannot write to stdout\n");
		rc = EX_IOERR;
	}
done:
	state_reports_release(&s.reports);
	state_tracked_list_release(&s.tracked);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&out);
	return rc;
}
