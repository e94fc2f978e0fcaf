/*
 * status.c: every report as `perfbot status` knows it (status.h), gathered
 * from the spool and the state, and each one's JSON object, which
 * status --json and the site's reports.json both print.
 */
#include <inttypes.h>
#include <pthread.h>
#include <string.h>

#include "cmd.h"
#include "delivery.h"
#include "heap.h"
#include "spool.h"
#include "status.h"
#include "xalloc.h"
#include "banned.h"



/* The tracked facts of report id (both lists are in id order), or NULL. */
const struct state_tracked *status_tracked_of(const struct status *s, int64_t id)
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

/* s emptied, then the spool's counts and waits. */
static int gather_spool(const struct config *cfg, int64_t now, struct status *s, struct buf *err)
{
	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->now = now;
	if (spool_count(cfg->state, &s->incoming, &s->rejected, err) < 0 ||
	    intake_spool_waiting(cfg, now, &s->waits, err) < 0)
		return -1;
	return 0;
}

/* Every list of status but the reports', from st. */
static int gather_all_but_reports(struct state *st, int64_t now, struct status *s,
				  struct buf *err)
{
	int ret = state_tracked_list(st, 1, &s->tracked, err);

	if (!ret)
		ret = state_sent_last_hour(st, now, &s->sent_last_hour, err);
	if (!ret)
		ret = state_command_list(st, 0, &s->commands, err);
	if (!ret)
		ret = state_trailer_list(st, 0, &s->trailers, err);
	if (!ret)
		ret = state_exclusion_list(st, &s->exclusions, err);
	if (!ret)
		ret = state_request_list(st, 0, &s->requests, err);
	return ret;
}

int status_gather(const struct config *cfg, int64_t now, struct status *s,
			 struct buf *err)
{
	struct state *st;
	int ret;

	if (gather_spool(cfg, now, s, err) < 0)
		return -1;
	if (!state_exists(cfg->state))
		return 0;
	if (state_open(cfg->state, &st, err) < 0)
		return -1;
	ret = state_report_list(st, &s->reports, err);
	if (!ret)
		ret = gather_all_but_reports(st, now, s, err);
	state_close(st);
	return ret;
}

/* The list of every report, read by a thread of its own. */
struct side_list {
	const struct config *cfg;
	int64_t seq;			/* the snapshot it must read */
	struct state_reports reports;
	int read;			/* 1: reports are that snapshot's */
	struct buf err;
};

static void *side_list_run(void *arg)
{
	struct side_list *x = arg;
	struct state_changes c = { 0 };
	struct state *st;

	/* every report's row, kept for the run: 10,000 of them */
	heap_for_big_pages_thread();
	if (state_open(x->cfg->state, &st, &x->err) < 0)
		return NULL;
	if (state_begin_read(st, &x->err) == 0 &&
	    state_changes_since(st, INT64_MAX, &c, &x->err) == 0 && c.seq == x->seq &&
	    state_report_list(st, &x->reports, &x->err) == 0)
		x->read = 1;
	state_changes_release(&c);
	state_close(st);
	return NULL;
}

int status_gather_snapshot(const struct config *cfg, int64_t now, struct state *st, int64_t seq,
			   struct status *s, struct buf *err)
{
	struct side_list side = { cfg, seq, { 0 }, 0, BUF_INIT };
	pthread_t th;
	int ret, threaded;

	if (gather_spool(cfg, now, s, err) < 0)
		return -1;
	/* the two big lists side by side: a tenth of a site run over 10,000
	 * reports was this one thread reading them one after the other */
	threaded = pthread_create(&th, NULL, side_list_run, &side) == 0;
	ret = gather_all_but_reports(st, now, s, err);
	if (threaded)
		pthread_join(th, NULL);
	if (threaded && side.read) {
		s->reports = side.reports;
	} else {
		state_reports_release(&side.reports);
		if (!ret)
			ret = state_report_list(st, &s->reports, err);
	}
	buf_release(&side.err);
	return ret;
}

static int by_report_id(const void *a, const void *b)
{
	int64_t x = ((const struct state_report *)a)->id, y = ((const struct state_report *)b)->id;

	return x < y ? -1 : x > y;
}

int status_gather_threads(const struct config *cfg, int64_t now, struct state *st,
			  const int64_t *ids, size_t nr, struct status *s, struct buf *err)
{
	size_t i;
	int ret = 0;

	if (gather_spool(cfg, now, s, err) < 0 ||
	    state_sent_last_hour(st, now, &s->sent_last_hour, err) < 0 ||
	    state_exclusion_list(st, &s->exclusions, err) < 0)
		return -1;
	/* each list in its own order, a thread after another: what a report
	 * shows of them (its commands by date, ...) is as status_gather()'s */
	for (i = 0; i < nr && !ret; i++) {
		ret = state_report_list_thread(st, ids[i], &s->reports, err);
		if (!ret)
			ret = state_tracked_list_of(st, ids[i], &s->tracked, err);
		if (!ret)
			ret = state_command_list(st, ids[i], &s->commands, err);
		if (!ret)
			ret = state_trailer_list(st, ids[i], &s->trailers, err);
		if (!ret)
			ret = state_request_list(st, ids[i], &s->requests, err);
	}
	xqsort(s->reports.v, s->reports.nr, sizeof(*s->reports.v), by_report_id);
	return ret;
}

void status_release(struct status *s)
{
	state_reports_release(&s->reports);
	state_tracked_list_release(&s->tracked);
	state_commands_release(&s->commands);
	intake_waits_release(&s->waits);
	state_trailers_release(&s->trailers);
	state_exclusions_release(&s->exclusions);
	state_requests_release(&s->requests);
}

/* A 'sending' report is one whose attempt has not ended: for scripts it
 * is still waiting to go out, as the spec's three statuses have it.  A
 * dropped one never goes: "dropped". */
static const char *json_status(const struct state_report *r)
{
	if (r->mark == STATE_MARK_DROPPED)
		return "dropped";
	return r->status == STATE_SENDING ? "queued" : state_status_name(r->status);
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

/* Calls fn for each envelope recipient of r (the staging address alone
 * when it was redirected) with its outcome, or NULL while it has none. */
void status_each_recipient(const struct state_report *r,
			   void (*fn)(void *ctx, const char *address, size_t len,
				      const struct state_rcpt *o),
			   void *ctx)
{
	const char *p = r->redirected_to ? r->redirected_to : r->env_rcpt;
	size_t i;

	while (p && *p) {
		size_t len = r->redirected_to ? strlen(p) : strcspn(p, "\n");
		const struct state_rcpt *o = NULL;

		for (i = 0; i < r->nr_rcpt && !o; i++)
			if (strlen(r->rcpt[i].address) == len && !memcmp(r->rcpt[i].address, p, len))
				o = &r->rcpt[i];
		if (len)
			fn(ctx, p, len, o);
		p += len;
		if (*p == '\n')
			p++;
	}
}

static void json_recipient(void *ctx, const char *address, size_t len, const struct state_rcpt *o)
{
	struct value *e = value_array_push(ctx, value_new_object());
	struct buf reply = BUF_INIT;
	size_t n;
	char *s;

	value_object_set(e, "address", value_new_stringn(address, len));
	value_object_set_string(e, "status", o ? state_rcpt_status_name(o->status) : "pending");
	/* a server's reply has its code; a local error (code 0) is no reply */
	if (o && o->code) {
		buf_addf(&reply, "%d %s", o->code, o->reply ? o->reply : "");
		s = buf_detach(&reply, &n);
		value_object_set(e, "code", value_new_integer(o->code));
		value_object_set(e, "reply", value_new_string_owned(s, n));
	} else {
		value_object_set(e, "code", value_new_null());
		value_object_set(e, "reply", value_new_null());
	}
	value_object_set(e, "local_error", o && !o->code ? value_new_string(o->reply ? o->reply : "")
							 : value_new_null());
}


static struct value *json_waiting(const struct status *s, const struct state_report *r)
{
	struct value *o;
	struct buf text = BUF_INIT;
	int64_t until;
	enum delivery_wait w = delivery_waiting(s->cfg, r, s->now, s->sent_last_hour, &until);

	if (w == DELIVERY_NOT_QUEUED)
		return value_new_null();
	o = value_new_object();
	value_object_set_string(o, "reason", delivery_wait_name(w));
	value_object_set(o, "until", cmd_json_time(until));
	cmd_describe_wait(&text, w, until, r);
	value_object_set_string(o, "text", text.data);
	buf_release(&text);
	return o;
}

/* Routing (perfbot-mail(7), Recipients): the commands of report id's thread with what
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
		value_object_set_string(o, "name", c->name);
		value_object_set_string(o, "args", c->args);
		value_object_set_string(o, "author", c->author);
		value_object_set(o, "date", cmd_json_time(c->date));
		value_object_set(o, "message_id", c->message_id ? value_new_string(c->message_id)
							       : value_new_null());
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

static struct value *json_requests(const struct status *s, int64_t id)
{
	struct value *a = value_new_array();
	size_t i;

	for (i = 0; i < s->requests.nr; i++)
		if (s->requests.v[i].report_id == id)
			value_array_push(a, cmd_request_json(&s->requests.v[i]));
	return a;
}

struct value *status_report_json(const struct status *s, const struct state_report *r)
{
	struct value *o = value_new_object();

	/* added, not set: its keys are distinct, and setting scans those
	 * before (a site run makes 10,000 of these objects) */
	value_object_add(o, "id", value_new_integer(r->id));
	value_object_add_string(o, "message_id", r->message_id);
	value_object_add_string(o, "subject", r->subject);
	value_object_add_string(o, "status", json_status(r));
	value_object_add(o, "attempts", value_new_integer(r->attempts));
	value_object_add(o, "created", cmd_json_time(r->created));
	value_object_add(o, "sent", cmd_json_time(r->sent));
	value_object_add(o, "next_attempt",
			 r->status == STATE_QUEUED && r->mark != STATE_MARK_DROPPED ?
			 cmd_json_time(r->next_attempt) : value_new_null());
	value_object_add(o, "last_reply",
			 r->last_reply ? value_new_string(r->last_reply) : value_new_null());
	value_object_add(o, "to", json_lines(r->to_addrs));
	value_object_add(o, "cc", json_lines(r->cc_addrs));
	value_object_add(o, "replies", value_new_integer((int64_t)r->replies));
	value_object_add_string(o, "state", state_verdict_name(r->verdict));
	value_object_add(o, "followups", value_new_integer((int64_t)r->followups));
	value_object_add_string(o, "kind", state_kind_name(r->kind));
	value_object_add(o, "parent", r->parent_id ? value_new_integer(r->parent_id)
						    : value_new_null());
	value_object_add(o, "last_attempt", cmd_json_time(r->last_attempt));
	status_each_recipient(r, json_recipient, value_object_add(o, "recipients", value_new_array()));
	value_object_add(o, "redirected_to", r->redirected_to ? value_new_string(r->redirected_to)
							     : value_new_null());
	value_object_add_bool(o, "held", r->mark == STATE_MARK_HELD);
	value_object_add_bool(o, "dropped", r->mark == STATE_MARK_DROPPED);
	value_object_add(o, "mark_reason", r->mark != STATE_MARK_NONE && r->mark_why ?
			 value_new_string(r->mark_why) : value_new_null());
	value_object_add(o, "waiting", json_waiting(s, r));
	value_object_add(o, "commands", json_commands(s, r->id));
	value_object_add(o, "trailers", json_trailers(s, r->id));
	value_object_add(o, "requests", json_requests(s, r->id));
	cmd_fix_json(o, status_tracked_of(s, r->id));
	return o;
}

