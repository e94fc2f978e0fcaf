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
	struct state_exclusions exclusions;	/* #perfbot unsubscribe's list */
	struct state_commands commands;		/* every #perfbot command recorded */
	struct state_trailers trailers;		/* every trailer recorded */
};

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
		ret = state_sent_last_hour(st, now, &s->sent_last_hour, err);
	if (!ret)
		ret = state_exclusion_list(st, &s->exclusions, err);
	if (!ret)
		ret = state_command_list(st, 0, 0, &s->commands, err);
	if (!ret)
		ret = state_trailer_list(st, 0, &s->trailers, err);
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

static struct value *json_report(const struct state_report *r)
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
	return o;
}

/* Routing (issue 14): the commands of report id's thread with what
 * became of them, its trailers, and the exclusion list. */
static struct value *json_commands(const struct status *s, int64_t id)
{
	struct value *a = value_new_array();
	size_t i;

	for (i = 0; i < s->commands.nr; i++) {
		const struct state_command *c = &s->commands.v[i];
		struct value *o;

		if (c->report_id != id)
			continue;
		o = value_array_push(a, value_new_object());
		value_object_set_string(o, "message_id", c->message_id);
		value_object_set_string(o, "name", c->name);
		value_object_set_string(o, "args", c->args);
		value_object_set_string(o, "author", c->author);
		value_object_set(o, "date", json_time(c->date));
		value_object_set_bool(o, "applied", c->applied);
		value_object_set(o, "why", c->why ? value_new_string(c->why) : value_new_null());
	}
	return a;
}

static struct value *json_trailers(const struct status *s, int64_t id)
{
	struct value *a = value_new_array();
	size_t i;

	for (i = 0; i < s->trailers.nr; i++) {
		const struct state_trailer *t = &s->trailers.v[i];
		struct value *o;

		if (t->report_id != id)
			continue;
		o = value_array_push(a, value_new_object());
		value_object_set_string(o, "message_id", t->message_id);
		value_object_set_string(o, "key", t->key);
		value_object_set_string(o, "value", t->value);
	}
	return a;
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
		value_object_set(o, "date", json_time(x->date));
		value_object_set(o, "message_id", x->message_id ? value_new_string(x->message_id)
							       : value_new_null());
	}
	return a;
}

static void text_refused(const struct status *s, int64_t id, struct buf *out)
{
	size_t i;

	for (i = 0; i < s->commands.nr; i++) {
		const struct state_command *c = &s->commands.v[i];

		if (c->report_id == id && !c->applied)
			buf_addf(out, "%6s  #perfbot %s%s%s by %s not applied: %s\n", "", c->name,
				 *c->args ? " " : "", c->args, c->author, c->why ? c->why : "");
	}
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
	struct value *spool, *reports;
	size_t i;

	value_object_set_bool(root, "paused", s->paused);
	spool = value_object_set(root, "spool", value_new_object());
	value_object_set(spool, "incoming", value_new_integer((int64_t)s->incoming));
	value_object_set(spool, "rejected", value_new_integer((int64_t)s->rejected));
	reports = value_object_set(root, "reports", value_new_array());
	for (i = 0; i < s->reports.nr; i++) {
		struct value *r = value_array_push(reports, json_report(&s->reports.v[i]));

		value_object_set(r, "commands", json_commands(s, s->reports.v[i].id));
		value_object_set(r, "trailers", json_trailers(s, s->reports.v[i].id));
	}
	value_object_set(root, "sent_last_hour", value_new_integer(s->sent_last_hour));
	value_object_set(root, "exclusions", json_exclusions(s));
	value_write_json(out, root, 2);
	buf_addc(out, '\n');
	value_free(root);
}

static void status_text(const struct status *s, struct buf *out)
{
	size_t i;

	buf_addf(out, "paused: %s\n", s->paused ? "yes (perfbot.paused): nothing is sent" : "no");
	buf_addf(out, "spool: %zu incoming, %zu rejected\n", s->incoming, s->rejected);
	buf_addf(out, "sent this hour: %" PRId64 " (perfbot.maxPerHour %d)\n", s->sent_last_hour,
		 s->max_per_hour);
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

		if (r->status == STATE_QUEUED && r->next_attempt)
			date_format_rfc3339_utc(&next, r->next_attempt);
		else
			buf_adds(&next, r->status == STATE_QUEUED ? "now" : "-");
		buf_addf(out, "%6" PRId64 "  %-8s %-9s %5d  %-20s %7zu  %s\n", r->id,
			 state_status_name(r->status), state_verdict_name(r->verdict), r->attempts,
			 next.data, r->replies, r->subject);
		if (r->status == STATE_FAILED && r->last_reply)
			buf_addf(out, "%6s  refused: %s\n", "", r->last_reply);
		text_refused(s, r->id, out);
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
		.about = "Shows whether sending is paused, the spool, every report with its delivery\n"
			 "status, replies and state, and how many mails went out this hour.\n",
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
		status_text(&s, &out);
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot status: cannot write to stdout\n");
		rc = EX_IOERR;
	}
done:
	state_reports_release(&s.reports);
	state_exclusions_release(&s.exclusions);
	state_commands_release(&s.commands);
	state_trailers_release(&s.trailers);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&out);
	return rc;
}
