/*
 * What the commands share: reading their options from the table-driven
 * parser (opt.h) and printing its help or its error the one way.
 */
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmd.h"
#include "date.h"
#include "watch.h"
#include "xalloc.h"
#include "banned.h"

int cmd_parse_options(const struct opt_spec *spec, int argc, char **argv,
		      struct opt_args *args, int *rc)
{
	struct buf err = BUF_INIT, text = BUF_INIT;
	int r = opt_parse(spec, argc, argv, args, &err);

	if (r == 0) {
		buf_release(&err);
		return 0;
	}
	if (r == OPT_HELP) {
		opt_help(&text, spec);
		fputs(text.data, stdout);
		*rc = 0;
	} else {
		opt_usage(&text, spec);
		fprintf(stderr, "%s: %s\n%s", spec->name, err.data, text.data);
		*rc = EX_USAGE;
	}
	buf_release(&err);
	buf_release(&text);
	return 1;
}

int cmd_usage_error(const struct opt_spec *spec, const char *fmt, ...)
{
	struct buf text = BUF_INIT;
	va_list ap;

	buf_addf(&text, "%s: ", spec->name);
	va_start(ap, fmt);
	buf_vaddf(&text, fmt, ap);
	va_end(ap);
	buf_addc(&text, '\n');
	opt_usage(&text, spec);
	fputs(text.data, stderr);
	buf_release(&text);
	return EX_USAGE;
}

int cmd_report_number(const char *s, int64_t *out, struct buf *err)
{
	long long n;
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return 0;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || n <= 0)
		return err_set(err, "'%s' is not a report number (1 and up; perfbot status lists them)", s);
	*out = n;
	return 1;
}

char *cmd_strip_angles(const char *id)
{
	size_t n = strlen(id);

	if (n >= 2 && id[0] == '<' && id[n - 1] == '>')
		return xstrndup(id + 1, n - 2);
	return xstrdup(id);
}

/* The watched refs of a landed list, shortened, comma-separated. */
static void landed_list(struct buf *out, const struct config *cfg, const char *landed)
{
	const char *p = landed;
	int first = 1;

	while (p && *p) {
		size_t n = strcspn(p, "\n");
		char *ref = xstrndup(p, n);

		if (n) {
			buf_adds(out, first ? "" : ", ");
			watch_ref_short(out, cfg, ref);
			first = 0;
		}
		free(ref);
		p += n;
		if (*p == '\n')
			p++;
	}
}

void cmd_fix_lines(struct buf *out, const char *indent, const struct config *cfg,
		   const struct state_tracked *t)
{
	const struct state_fix *f = &t->fix;
	size_t i;

	if (t->has_fix) {
		buf_addf(out, "%sfix: %.12s", indent, f->commit);
		if (*f->subject)
			buf_addf(out, " (\"%s\")", f->subject);
		if (f->kind == FIX_FIXED_BY && !f->in_repo) {
			buf_adds(out, ", named by #perfbot fixed-by: not found in the repository");
		} else if (f->kind == FIX_FIXED_BY && !*f->landed) {
			buf_adds(out, ", named by #perfbot fixed-by: in the repository, on no watched tree yet");
		} else {
			if (*f->ref) {
				buf_adds(out, " on ");
				watch_ref_short(out, cfg, f->ref);
			}
			if (f->date) {
				buf_adds(out, ", committed ");
				date_format_rfc3339_utc(out, f->date);
			}
			buf_addf(out, ", %s", f->kind == FIX_FIXED_BY ? "named by #perfbot fixed-by" :
					      fix_kind_name(f->kind));
			if (strchr(f->landed, '\n')) {
				buf_adds(out, "; landed on ");
				landed_list(out, cfg, f->landed);
			}
		}
		if (f->posted)
			buf_addf(out, "; posted as <%s>", f->posted);
		if (f->reopened)
			buf_adds(out, "; set aside by #perfbot reopen");
		buf_addc(out, '\n');
	}
	/* a later version of a patch supersedes the earlier ones here */
	for (i = 0; i < t->nr_posted; i++) {
		const struct state_posted_fix *p = &t->posted[i];

		if (!p->latest)
			continue;
		buf_addf(out, "%sfix posted: \"%s\", v%u, ", indent, p->subject, p->version);
		date_format_rfc3339_utc(out, p->date);
		buf_adds(out, ", by ");
		if (*p->author_name)
			buf_addf(out, "%s <%s>", p->author_name, p->author_email);
		else
			buf_adds(out, *p->author_email ? p->author_email : "(no From)");
		buf_addf(out, ", %s <%s>\n", fix_kind_name(p->kind), p->message_id);
	}
	for (i = 0; i < t->nr_possible; i++) {
		const struct state_possible_fix *p = &t->possible[i];

		buf_addf(out, "%spossible fix: %.12s (\"%s\") on ", indent, p->commit, p->subject);
		watch_ref_short(out, cfg, p->ref);
		buf_addc(out, '\n');
	}
}

struct value *cmd_json_time(int64_t t)
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

const char *cmd_queue_word(const struct state_report *r)
{
	size_t i;

	if (r->status != STATE_QUEUED)
		return state_status_name(r->status);
	for (i = 0; i < r->nr_rcpt; i++)
		if (r->rcpt[i].status == STATE_RCPT_DEFERRED)
			return "deferred";
	return r->attempts ? "deferred" : "queued";
}

void cmd_fix_json(struct value *o, const struct state_tracked *t)
{
	struct value *fix, *list, *landed;
	size_t i;

	if (t && t->has_fix) {
		const struct state_fix *f = &t->fix;
		const char *p = f->landed;

		fix = value_object_set(o, "fix", value_new_object());
		value_object_add_string(fix, "commit", f->commit);
		value_object_add_string(fix, "subject", f->subject);
		value_object_add_string(fix, "ref", f->ref);
		value_object_add(fix, "date", cmd_json_time(f->date));
		value_object_add_string(fix, "evidence", fix_kind_name(f->kind));
		value_object_add_bool(fix, "in_repository", f->in_repo);
		landed = value_object_add(fix, "landed", value_new_array());
		while (p && *p) {
			size_t n = strcspn(p, "\n");

			if (n)
				value_array_push(landed, value_new_stringn(p, n));
			p += n;
			if (*p == '\n')
				p++;
		}
		value_object_add_bool(fix, "reopened", f->reopened);
		if (f->posted)
			value_object_add_string(fix, "posted", f->posted);
		else
			value_object_add(fix, "posted", value_new_null());
	} else {
		value_object_set(o, "fix", value_new_null());
	}
	list = value_object_set(o, "possible_fixes", value_new_array());
	for (i = 0; t && i < t->nr_possible; i++) {
		struct value *e = value_array_push(list, value_new_object());

		value_object_add_string(e, "commit", t->possible[i].commit);
		value_object_add_string(e, "subject", t->possible[i].subject);
		value_object_add_string(e, "ref", t->possible[i].ref);
	}
	list = value_object_set(o, "posted_fixes", value_new_array());
	for (i = 0; t && i < t->nr_posted; i++) {
		const struct state_posted_fix *p = &t->posted[i];
		struct value *e = value_array_push(list, value_new_object()), *who;

		value_object_add_string(e, "message_id", p->message_id);
		value_object_add_string(e, "subject", p->subject);
		value_object_add(e, "version", value_new_integer((int64_t)p->version));
		who = value_object_add(e, "author", value_new_object());
		value_object_add_string(who, "name", p->author_name);
		value_object_add_string(who, "email", p->author_email);
		value_object_add(e, "date", cmd_json_time(p->date));
		value_object_add_string(e, "evidence", fix_kind_name(p->kind));
		value_object_add_bool(e, "latest", p->latest);
	}
}

int cmd_check_reason(const char *why, struct buf *err)
{
	const unsigned char *p;

	for (p = (const unsigned char *)why; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return err_set(err, "--why: the reason has a line break or another control "
				       "character: give it on one line");
	return 0;
}

char *cmd_operator(void)
{
	struct passwd *pw = getpwuid(geteuid());
	struct buf b = BUF_INIT;

	if (pw && pw->pw_name && *pw->pw_name)
		buf_addf(&b, "operator (%s)", pw->pw_name);
	else
		buf_addf(&b, "operator (uid %ld)", (long)geteuid());
	return buf_detach(&b, NULL);
}

void cmd_rcpt_words(struct buf *out, const struct state_rcpt *o)
{
	if (o->code)
		buf_addf(out, "%d %s", o->code, o->reply ? o->reply : "");
	else
		buf_addf(out, "local error: %s", o->reply ? o->reply : "");
}

void cmd_describe_wait(struct buf *out, enum delivery_wait w, int64_t until,
		       const struct state_report *r)
{
	struct buf when = BUF_INIT;

	if (until)
		date_format_rfc3339_utc(&when, until);
	switch (w) {
	case DELIVERY_DUE:
		buf_adds(out, "goes at the next send");
		break;
	case DELIVERY_HELD:
		buf_adds(out, "held by the operator");
		if (r->mark_why && *r->mark_why)
			buf_addf(out, ": %s", r->mark_why);
		break;
	case DELIVERY_PAUSED:
		buf_adds(out, "paused (perfbot.paused)");
		break;
	case DELIVERY_BACKOFF:
		buf_addf(out, "waiting for back-off until %s", when.data);
		break;
	case DELIVERY_MAX_PER_HOUR:
		buf_addf(out, "over perfbot.maxPerHour until %s", when.data);
		break;
	case DELIVERY_PARENT:
		buf_addf(out, "waiting for %lld, the mail it answers, to go first", (long long)r->parent_id);
		if (r->parent_status == STATE_FAILED)
			buf_addf(out, " (refused by every recipient: `perfbot outbox retry %lld` tries it "
				 "again, `perfbot outbox drop` drops this one)", (long long)r->parent_id);
		break;
	case DELIVERY_PARENT_DROPPED:
		buf_addf(out, "skipped: report %lld, which it answers, was dropped",
			 (long long)r->parent_id);
		break;
	case DELIVERY_REPORT_CLOSED:
		buf_addf(out, "skipped: report %lld, which it follows up, is %s (it goes if reopened)",
			 (long long)r->thread_id, state_verdict_name(r->thread_verdict));
		break;
	case DELIVERY_REDIRECT:
		buf_adds(out, "waiting until perfbot.redirectTo is unset: real recipients had it");
		break;
	case DELIVERY_NOT_QUEUED:
		buf_adds(out, "not waiting");
		break;
	}
	buf_release(&when);
}

int cmd_lock(const char *name, const struct config *cfg, struct state_lock **lock, int *rc)
{
	struct buf err = BUF_INIT;
	int e = state_lock(cfg->state, STATE_LOCK_WAIT_MS, lock, &err);

	if (e == 0) {
		buf_release(&err);
		return 0;
	}
	if (e == STATE_BUSY) {
		fprintf(stderr, "%s: another perfbot is running (%s); nothing done: it runs again at the next tick\n",
			name, err.data);
		*rc = EX_TEMPFAIL;
	} else {
		fprintf(stderr, "%s: %s\n", name, err.data);
		*rc = EX_CANTCREAT;
	}
	buf_release(&err);
	return 1;
}

struct value *cmd_request_json(const struct state_request *r)
{
	struct value *o = value_new_object(), *v;

	value_object_set(o, "request", value_new_integer(r->id));
	value_object_set(o, "report", value_new_integer(r->report_id));
	value_object_set_string(o, "message_id", r->message_id);
	v = value_object_set(o, "requested_by", value_new_object());
	value_object_set_string(v, "name", r->requester_name);
	value_object_set_string(v, "email", r->requester_email);
	value_object_set(o, "requested", cmd_json_time(r->requested));
	value_object_set_string(o, "what", state_request_what_name(r->what));
	value_object_set_string(o, "args", r->args);
	value_object_set(o, "subject", r->subject ? value_new_string(r->subject) : value_new_null());
	value_object_set(o, "commit", r->commit_id ? value_new_string(r->commit_id) : value_new_null());
	value_object_set(o, "ref", r->ref ? value_new_string(r->ref) : value_new_null());
	if (r->what == STATE_REQUEST_GIT) {
		v = value_object_set(o, "git", value_new_object());
		value_object_set_string(v, "url", r->url);
		value_object_set_string(v, "branch", r->branch);
	} else {
		value_object_set(o, "git", value_new_null());
	}
	value_object_set_string(o, "state", state_request_state_name(r->state));
	value_object_set(o, "why", r->why ? value_new_string(r->why) : value_new_null());
	value_object_set(o, "changed", cmd_json_time(r->changed));
	value_object_set(o, "verdict", r->verdict ? value_new_string(r->verdict) : value_new_null());
	value_object_set(o, "result_message_id",
			 r->result_message_id ? value_new_string(r->result_message_id) : value_new_null());
	value_object_set(o, "results", value_new_integer(r->results));
	return o;
}

static void request_what(struct buf *out, const struct state_request *r)
{
	if (r->what == STATE_REQUEST_GIT)
		buf_addf(out, "git %s %s", r->url ? r->url : "", r->branch ? r->branch : "");
	else if (r->commit_id)
		buf_addf(out, "%s %.12s%s%s%s", state_request_what_name(r->what), r->commit_id,
			 r->subject ? " (\"" : "", r->subject ? r->subject : "", r->subject ? "\")" : "");
	else
		buf_addf(out, "%s %s", state_request_what_name(r->what), r->args);
}

void cmd_request_words(struct buf *out, const struct state_request *r)
{
	date_format_rfc3339_utc(out, r->requested);
	if (*r->requester_name)
		buf_addf(out, "  %s <%s>  ", r->requester_name, r->requester_email);
	else
		buf_addf(out, "  %s  ", r->requester_email);
	request_what(out, r);
	if (r->why)
		buf_addf(out, ": %s", r->why);
	if (r->verdict)
		buf_addf(out, ": %s, result <%s>%s", r->verdict, r->result_message_id,
			 r->results > 1 ? " and follow-ups" : "");
}

int cmd_ingest_since(struct state *st, const char *since, int64_t if_none, int64_t *day,
		     struct buf *why, struct buf *err)
{
	struct state_tracked_list l = { 0 };
	struct date_civil c;
	const char *what;
	int64_t t = 0;
	size_t i;

	if (since) {
		if (date_parse_iso8601(since, &t, err) < 0)
			return -1;
		what = "--since";
	} else {
		if (state_tracked_list(st, 0, &l, err) < 0)
			return -1;
		for (i = 0; i < l.nr; i++)
			if (l.v[i].verdict == STATE_VERDICT_OPEN && (!t || l.v[i].created < t))
				t = l.v[i].created;
		state_tracked_list_release(&l);
		if (!t && !if_none) {
			*day = 0;
			buf_adds(why, "the start: no report is open (--since DATE reads less)");
			return 0;
		}
		what = t ? "the day of the oldest open report's creation"
			 : "today: no report is open (--since DATE reads older mail)";
		if (!t)
			t = if_none;
	}
	date_to_civil(t, 0, &c);
	c.hour = c.minute = c.second = 0;
	*day = date_from_civil(&c, 0);
	buf_addf(why, "%04lld-%02d-%02d, %s", (long long)c.year, c.month, c.day, what);
	return 0;
}
