#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "delivery.h"
#include "mboxrd.h"
#include "message.h"
#include "smtp.h"
#include "store.h"
#include "worker.h"
#include "xalloc.h"
#include "banned.h"

int64_t delivery_backoff(int retry_minutes, int attempts)
{
	int64_t wait = (int64_t)retry_minutes * 60;
	int i;

	for (i = 1; i < attempts && wait < 86400; i++)
		wait *= 2;
	return wait > 86400 ? 86400 : wait;
}

/* "follow-up", "report", "notice", "digest": a kind in a log line */
static const char *kind_word(enum state_kind k)
{
	return k == STATE_KIND_FOLLOWUP ? "follow-up" : state_kind_name(k);
}

/*
 * Where report r's envelope goes instead of its recipients, or NULL: the
 * staging address it was redirected to before, its parent's (a follow-up
 * stays with its thread), or perfbot.redirectTo for a mail nobody got
 * yet.
 */
static const char *redirect_of(const struct delivery *d, const struct state_report *r)
{
	if (r->redirected_to)
		return r->redirected_to;
	if (r->parent_redirected_to)
		return r->parent_redirected_to;
	if (d->cfg->redirect_to && !r->sent)
		return d->cfg->redirect_to;
	return NULL;
}

/* Calls fn for each address report r's envelope holds: the redirect
 * address alone, or the stored recipients, in order. */
static void envelope_each(const struct state_report *r, const char *redirect,
			  void (*fn)(void *ctx, const char *address, size_t len), void *ctx)
{
	const char *p = r->env_rcpt;

	if (redirect) {
		fn(ctx, redirect, strlen(redirect));
		return;
	}
	while (p && *p) {
		size_t len = strcspn(p, "\n");

		if (len)
			fn(ctx, p, len);
		p += len;
		if (*p == '\n')
			p++;
	}
}

/* r's stored outcome for the address (len bytes), or NULL. */
static const struct state_rcpt *outcome_of(const struct state_report *r, const char *address,
					   size_t len)
{
	size_t i;

	for (i = 0; i < r->nr_rcpt; i++)
		if (strlen(r->rcpt[i].address) == len && !memcmp(r->rcpt[i].address, address, len))
			return &r->rcpt[i];
	return NULL;
}

struct envelope {
	const struct state_report *r;
	char **v;
	size_t nr;
};

static void envelope_add(void *ctx, const char *address, size_t len)
{
	struct envelope *e = ctx;
	const struct state_rcpt *o = outcome_of(e->r, address, len);

	/* delivered and refused are final: never a recipient that has it */
	if (o && o->status != STATE_RCPT_DEFERRED)
		return;
	e->v = xrealloc(e->v, (e->nr + 1) * sizeof(*e->v));
	e->v[e->nr++] = xstrndup(address, len);
}

/* The recipients this attempt goes to: the envelope's, but for those
 * whose outcome is final. */
static size_t envelope(const struct state_report *r, const char *redirect, char ***out)
{
	struct envelope e = { r, NULL, 0 };

	envelope_each(r, redirect, envelope_add, &e);
	*out = e.v;
	return e.nr;
}

static void free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void open_options(const struct delivery *d, struct smtp_options *o)
{
	smtp_options_init(o, d->cfg, d->password);
	o->log = d->smtp_log;
}

/* One delivery attempt whose outcome is not yet in the database. */
struct attempt {
	const struct state_report *r;	/* NULL: none */
	const char *redirect;		/* where it went instead of its recipients, or NULL */
	int status;			/* smtp_send()'s */
	struct smtp_result res;
	struct buf why;			/* smtp_send()'s message */
	struct buf reply;		/* attempt_settle(): what is kept and logged */
	struct state_rcpt *rows;	/* attempt_settle(): every envelope recipient's
					 * outcome now (strings borrowed from res, why
					 * and r) */
	size_t nr_rows, alloc_rows;
	enum state_status outcome;	/* attempt_settle(): what rows make of the report */
	int64_t next;			/* attempt_settle(), queued: when to try again */
};

/* The outcome of recipient x of an attempt that ended as a->status. */
static void tried_outcome(const struct attempt *a, const struct smtp_rcpt_result *x,
			  struct state_rcpt *o)
{
	const struct smtp_result *res = &a->res;

	o->address = x->address;
	if (a->status == SMTP_OK && x->status == SMTP_OK) {
		/* the end of DATA's reply holds the server's queue id */
		o->status = STATE_RCPT_DELIVERED;
		o->code = res->code;
		o->reply = res->reply ? res->reply : (char *)"";
	} else if ((x->code >= 400 && x->code < 600) || a->status == SMTP_OK) {
		/* its own RCPT reply decided it */
		o->status = x->code >= 500 && x->code < 600 ? STATE_RCPT_REFUSED : STATE_RCPT_DEFERRED;
		o->code = x->code;
		o->reply = x->reply ? x->reply : (char *)"";
	} else {
		/* taken at RCPT, or never asked: the transaction's fate */
		o->status = a->status == SMTP_TEMPORARY ? STATE_RCPT_DEFERRED : STATE_RCPT_REFUSED;
		o->code = res->code;
		o->reply = res->code && res->reply ? res->reply : a->why.data;
	}
}

static void settle_one(void *ctx, const char *address, size_t len)
{
	struct attempt *a = ctx;
	const struct state_rcpt *before = outcome_of(a->r, address, len);
	struct state_rcpt *o;
	size_t i;

	ALLOC_GROW(a->rows, a->nr_rows + 1, a->alloc_rows);
	o = &a->rows[a->nr_rows];
	for (i = 0; i < a->res.nr_rcpt; i++) {
		if (strlen(a->res.rcpt[i].address) == len && !memcmp(a->res.rcpt[i].address, address, len)) {
			tried_outcome(a, &a->res.rcpt[i], o);
			a->nr_rows++;
			return;
		}
	}
	if (before) {
		*o = *before;
		a->nr_rows++;
	}
}

/* Derives from smtp_send()'s result what the database keeps and the log
 * says: the final reply, or the reason when none came; each recipient's
 * outcome (those tried now, and the final ones from before); and, while
 * one is deferred, when to try again. */
static void attempt_settle(struct delivery *d, struct attempt *a)
{
	buf_reset(&a->reply);
	if (a->res.code)
		buf_addf(&a->reply, "%d %s", a->res.code, a->res.reply ? a->res.reply : "");
	else
		buf_adds(&a->reply, a->why.data);
	a->nr_rows = 0;
	envelope_each(a->r, a->redirect, settle_one, a);
	a->outcome = state_rcpt_outcome(a->rows, a->nr_rows);
	a->next = 0;
	if (a->outcome == STATE_QUEUED)
		a->next = d->now + delivery_backoff(d->cfg->retry_minutes, a->r->attempts + 1);
}

/* Marks the settled attempt's outcome in the database (one transaction,
 * or a part of the caller's). */
static int attempt_mark(struct delivery *d, const struct attempt *a, struct buf *err)
{
	return state_report_mark_ended(d->st, a->r->id, d->now, a->next, a->reply.data, a->rows,
				       a->nr_rows, err);
}

/* The log lines of the recipients tried now that did not get it: the
 * server's "CODE text", or the local error (code 0) said as one. */
static void say_recipients(struct delivery *d, const struct attempt *a)
{
	struct buf words = BUF_INIT;
	size_t i, j;

	for (i = 0; i < a->nr_rows; i++) {
		const struct state_rcpt *o = &a->rows[i];
		int tried = 0;

		for (j = 0; j < a->res.nr_rcpt && !tried; j++)
			tried = !strcmp(a->res.rcpt[j].address, o->address);
		if (!tried || o->status == STATE_RCPT_DELIVERED)
			continue;
		buf_reset(&words);
		if (!o->code)
			buf_addf(&words, "local error: %s", o->reply);
		else if (*o->reply || o->status == STATE_RCPT_DEFERRED)
			buf_addf(&words, "%d %s", o->code, o->reply);
		else
			buf_addf(&words, "%d (not tried)", o->code);
		if (o->status == STATE_RCPT_DEFERRED)
			event_log_say(&d->log, "  recipient %s deferred: %s; next attempt in %lld minutes",
			    o->address, words.data, (long long)((a->next - d->now) / 60));
		else
			event_log_say(&d->log, "  recipient %s refused: %s", o->address, words.data);
	}
	buf_release(&words);
}

/* Once marked: counts and logs the outcome, files a mail delivered for
 * the first time in the store (never one redirected), and forgets the
 * attempt. */
static int attempt_done(struct delivery *d, struct attempt *a, struct store *store, struct buf *err)
{
	const struct state_report *r = a->r;
	const struct smtp_result *res = &a->res;
	const char *reply = a->reply.data;
	const char *kind = kind_word(r->kind);
	size_t accepted = 0, before = 0, i;
	int ret = 0;

	for (i = 0; i < a->nr_rows; i++)
		before += a->rows[i].status == STATE_RCPT_DELIVERED;
	for (i = 0; i < res->nr_rcpt; i++)
		accepted += a->status == SMTP_OK && res->rcpt[i].status == SMTP_OK;
	before -= accepted;
	if (a->status == SMTP_OK) {
		if (!r->sent && !a->redirect)
			ret = store_add(store, r->message_id, r->mail, r->mail_len, err);
		d->sent++;
		if (a->redirect)
			event_log_say(&d->log, "sent %s <%s> redirected to %s (perfbot.redirectTo), not to its "
			    "recipients: %s", kind, r->message_id, a->redirect, reply);
		else
			event_log_say(&d->log, "sent %s <%s> to %zu of %zu recipient%s%s: %s", kind, r->message_id,
			    accepted, res->nr_rcpt, res->nr_rcpt == 1 ? "" : "s",
			    before ? " (a retry: the others had it)" : "", reply);
		say_recipients(d, a);
	} else if (a->outcome == STATE_QUEUED) {
		event_log_say(&d->log, "deferred <%s> (attempt %d): %s; next attempt in %lld minutes", r->message_id,
		    r->attempts + 1, reply, (long long)((a->next - d->now) / 60));
		say_recipients(d, a);
	} else if (a->outcome == STATE_SENT) {
		/* the recipients left were refused; the others had it */
		event_log_say(&d->log, "done with %s <%s>: %zu recipient%s refused for good, %zu had it: %s", kind,
		    r->message_id, res->nr_rcpt, res->nr_rcpt == 1 ? "" : "s", before, reply);
		say_recipients(d, a);
	} else {
		event_log_say(&d->log, "failed <%s> for good: %s", r->message_id, reply);
	}
	if (a->outcome == STATE_QUEUED) {
		d->deferred++;
		d->temporary = 1;
	} else if (a->outcome == STATE_FAILED) {
		d->failed++;
	}
	smtp_result_release(&a->res);
	buf_reset(&a->why);
	a->nr_rows = 0;
	a->r = NULL;
	return ret;
}

/*
 * One transaction: the outcome of attempt a (if a is not NULL) and the
 * start of next's (if not NULL: 'sending', committed before its DATA, so
 * that a crash from then on sends it again).  Sharing the commit halves
 * the database work of a delivery.
 */
static int attempt_commit(struct delivery *d, struct attempt *a, const struct state_report *next,
			  const char *next_redirect, struct buf *err)
{
	if (!a && !next)
		return 0;
	if (state_begin(d->st, err) < 0)
		return -1;
	if ((a && attempt_mark(d, a, err) < 0) ||
	    (next && state_report_mark_sending(d->st, next->id, d->now, next_redirect, err) < 0) ||
	    state_commit(d->st, err) < 0) {
		state_rollback(d->st);
		return -1;
	}
	return 0;
}

/* attempt_commit() and attempt_done() of a's outcome, here and now. */
static int attempt_finish(struct delivery *d, struct attempt *a, struct store *store, struct buf *err)
{
	if (!a->r)
		return 0;
	if (attempt_commit(d, a, NULL, NULL, err) < 0)
		return -1;
	return attempt_done(d, a, store, err);
}

/*
 * The database's part of one mail, which the worker runs while the SMTP
 * server takes the mail's envelope: the previous mail's outcome and this
 * one's start, in one transaction.  smtp_send() waits for it at its gate,
 * before DATA, so the order on disk stays: previous outcome, this start,
 * then this mail's data.
 */
struct step {
	struct delivery *d;
	struct worker *w;
	struct attempt *prev;		/* the outcome to mark, or NULL */
	const struct state_report *next;
	const char *next_redirect;	/* where next goes instead, or NULL */
	int ret;			/* attempt_commit()'s */
	struct buf err;			/* its message */
	size_t steps;			/* run so far */
};

/* mails between two state_writeback() calls (some 10 KiB of WAL each) */
#define WRITEBACK_MAILS 32

static int step_run(void *arg)
{
	struct step *j = arg;

	buf_reset(&j->err);
	j->ret = attempt_commit(j->d, j->prev, j->next, j->next_redirect, &j->err);
	if (j->ret == 0 && ++j->steps % WRITEBACK_MAILS == 0)
		state_writeback(j->d->st);
	return j->ret;
}

static int step_gate(void *ctx, struct buf *err)
{
	struct step *j = ctx;

	worker_wait(j->w);
	if (j->ret < 0)
		return err_set(err, "%s", j->err.data);
	return 0;
}

static void flush_smtp_log(struct delivery *d)
{
	const char *p;

	if (!d->smtp_log || !d->smtp_log->len)
		return;
	for (p = d->smtp_log->data; *p;) {
		size_t n = strcspn(p, "\n");
		event_log_say(&d->log, "  smtp %.*s", (int)n, p);
		p += n;
		if (*p)
			p++;
	}
	buf_reset(d->smtp_log);
}

/*
 * Repairs what an earlier run left when it was killed: its sent mails'
 * count in the send log, and the mails it delivered but did not archive
 * (opening the store, whose catch-up first records what did reach the
 * archive).  Those are committed with this run's batch; the mark stays
 * until then.
 */
static int repair_unfinished(struct delivery *d, struct store **store, struct buf *err)
{
	struct state_reports left = { 0 };
	int64_t since;
	size_t i;
	int ret = -1, r;

	if ((r = state_delivery_unfinished(d->st, &since, err)) <= 0)
		return r;	/* the last run ended as it should */
	if (state_sent_recount(d->st, since, err) < 0 ||
	    state_report_unarchived(d->st, DELIVERY_MAX_BATCH, &left, err) < 0)
		goto out;
	if (!left.nr && state_delivery_end(d->st, err) < 0)
		goto out;
	if (left.nr) {
		if (store_open(d->cfg, d->st, d->now, store, err) != 0)
			goto out;
		state_reports_release(&left);
		if (state_report_unarchived(d->st, DELIVERY_MAX_BATCH, &left, err) < 0)
			goto out;
	}
	for (i = 0; i < left.nr; i++)
		if (store_add(*store, left.v[i].message_id, left.v[i].mail, left.v[i].mail_len, err) < 0)
			goto out;
	if (left.nr)
		event_log_say(&d->log, "archiving %zu mail%s sent by an earlier run that was cut short", left.nr,
		    left.nr == 1 ? "" : "s");
	ret = 0;
out:
	state_reports_release(&left);
	return ret;
}

int delivery_parent_went(const struct state_report *r)
{
	/* sent: no recipient waits; dropped after a first one had it: the
	 * others never will */
	return r->parent_status == STATE_SENT || (r->parent_mark == STATE_MARK_DROPPED && r->parent_sent);
}

enum delivery_wait delivery_waiting(const struct config *cfg, const struct state_report *r,
				    int64_t now, int64_t sent_last_hour, int64_t *until)
{
	*until = 0;
	if (r->mark == STATE_MARK_DROPPED || (r->status != STATE_QUEUED && r->status != STATE_SENDING))
		return DELIVERY_NOT_QUEUED;
	if (r->mark == STATE_MARK_HELD)
		return DELIVERY_HELD;
	if (r->kind == STATE_KIND_FOLLOWUP && r->thread_verdict != STATE_VERDICT_OPEN)
		return DELIVERY_REPORT_CLOSED;
	if (r->parent_id && !delivery_parent_went(r))
		return r->parent_mark == STATE_MARK_DROPPED ? DELIVERY_PARENT_DROPPED : DELIVERY_PARENT;
	if (r->status == STATE_QUEUED && r->next_attempt > now) {
		*until = r->next_attempt;
		return DELIVERY_BACKOFF;
	}
	if (cfg->redirect_to && !r->redirected_to && !r->parent_redirected_to && r->sent)
		return DELIVERY_REDIRECT;
	if (cfg->paused)
		return DELIVERY_PAUSED;
	if (cfg->max_per_hour && sent_last_hour >= cfg->max_per_hour) {
		*until = (now / 3600 + 1) * 3600;
		return DELIVERY_MAX_PER_HOUR;
	}
	return DELIVERY_DUE;
}

const char *delivery_wait_name(enum delivery_wait w)
{
	static const char *const names[] = {
		[DELIVERY_DUE] = "due", [DELIVERY_HELD] = "held", [DELIVERY_PAUSED] = "paused",
		[DELIVERY_BACKOFF] = "back-off", [DELIVERY_MAX_PER_HOUR] = "max-per-hour",
		[DELIVERY_PARENT] = "parent", [DELIVERY_PARENT_DROPPED] = "parent-dropped",
		[DELIVERY_REPORT_CLOSED] = "report-closed",
		[DELIVERY_REDIRECT] = "redirect", [DELIVERY_NOT_QUEUED] = "not-queued",
	};

	return (size_t)w < sizeof(names) / sizeof(names[0]) && names[w] ? names[w] : "?";
}

/* A mail that can never go: dropped or refused by every recipient
 * before anybody had it. */
static int gone_for_good(const struct state_report *r)
{
	return !r->sent && (r->mark == STATE_MARK_DROPPED || r->status == STATE_FAILED);
}

/* Makes orphan c answer what its gone parent answered (or, a digest
 * whose predecessors never went, nothing); one transaction. */
static int rethread_one(struct state *st, struct event_log *log, const struct state_report *c,
			size_t *count, struct buf *err)
{
	struct state_report g, p;
	struct buf mail = BUF_INIT, why = BUF_INIT;
	int ret = -1, e;

	memset(&p, 0, sizeof(p));
	if ((e = state_report_get(st, c->parent_id, &g, err)) <= 0)
		return e < 0 ? -1 : 0;	/* gone from under us: nothing to do */
	/* up the thread to the first mail that went or may still go: the
	 * last one passed (g) is the one whose place c takes */
	while (g.parent_id) {
		if ((e = state_report_get(st, g.parent_id, &p, err)) < 0)
			goto done;
		if (!e || !gone_for_good(&p) || (!p.parent_id && c->kind != STATE_KIND_DIGEST))
			break;
		state_report_release(&g);
		g = p;
		memset(&p, 0, sizeof(p));
	}
	if (message_rethread(&mail, c->mail, c->mail_len, g.in_reply_to, g.refs, &why) < 0) {
		err_set(err, "report %lld <%s>: cannot answer another mail: %s", (long long)c->id,
			c->message_id, why.data);
		goto done;
	}
	e = state_report_rethread(st, c->id, g.parent_id, g.in_reply_to, g.refs, mail.data, mail.len,
				  err);
	if (e < 0)
		goto done;
	ret = 0;
	if (e == STATE_REFUSED)
		goto done;	/* it went meanwhile, or was dropped: as it is */
	if (count)
		(*count)++;
	if (g.parent_id)
		event_log_say(log, "%s %lld <%s> now answers %lld <%s> in place of %lld, which %s", kind_word(c->kind),
		    (long long)c->id, c->message_id, (long long)g.parent_id, g.in_reply_to, (long long)c->parent_id,
		    c->parent_mark == STATE_MARK_DROPPED ? "was dropped" : "was refused by every recipient");
	else
		event_log_say(log, "%s %lld <%s> now starts a thread of its own: the %ss before it never went",
		    kind_word(c->kind), (long long)c->id, c->message_id, kind_word(c->kind));
done:
	state_report_release(&g);
	state_report_release(&p);
	buf_release(&mail);
	buf_release(&why);
	return ret;
}

int delivery_rethread(struct state *st, struct event_log *log, size_t *count, struct buf *err)
{
	struct state_reports orphans = { 0 };
	size_t i;
	int ret = 0;

	if (count)
		*count = 0;
	if (state_report_orphans(st, DELIVERY_MAX_BATCH, &orphans, err) < 0)
		return -1;
	for (i = 0; i < orphans.nr && ret == 0; i++)
		ret = rethread_one(st, log, &orphans.v[i], count, err);
	state_reports_release(&orphans);
	return ret;
}

/* The due mails a run skips, each kind said in one line: ids[] of n. */
struct skipped {
	int64_t *ids;
	size_t n, alloc;
};

static void skipped_say(struct delivery *d, const struct skipped *k, const char *what,
			const char *hint)
{
	struct buf ids = BUF_INIT;
	size_t i;

	if (!k->n)
		return;
	for (i = 0; i < k->n && i < 10; i++)
		buf_addf(&ids, "%s%lld", i ? ", " : "", (long long)k->ids[i]);
	if (k->n > 10)
		buf_addf(&ids, " and %zu more", k->n - 10);
	event_log_say(&d->log, "%s: %zu mail%s skipped (%s; %s)", what, k->n, k->n == 1 ? "" : "s", ids.data,
	    hint);
	d->held += k->n;
	buf_release(&ids);
}

/* The index of report id in todo[0..n-1] (in id order), or -1. */
static ssize_t todo_find(struct state_report *const *todo, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (todo[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && todo[lo]->id == id ? (ssize_t)lo : -1;
}

/*
 * Whether todo[i] may go now: it answers no mail, or one that went before
 * this run (delivery_parent_went()), or one that went earlier in this run
 * to every recipient it will ever reach (went[] of todo's indexes): never
 * before the mail it answers was accepted, and its outcome committed
 * before this mail's DATA (the gate), so a run killed in between cannot
 * leave the follow-up sent and its parent unknown.
 */
static int todo_ready(struct state_report *const *todo, const char *went, size_t i)
{
	const struct state_report *r = todo[i];
	ssize_t j;

	if (!r->parent_id || delivery_parent_went(r))
		return 1;
	j = todo_find(todo, i, r->parent_id);
	return j >= 0 && went[j];
}

/*
 * The due mails that can go, in *todo (pointers into due), and one line
 * for each kind of those that cannot: held, follow-ups of a dropped or
 * closed report, and mails that real recipients had while
 * perfbot.redirectTo is set (what is left of them goes once it is unset).
 * A follow-up whose parent has not gone is among them when its parent is
 * (it may go after it, todo_ready() decides), else it waits without a
 * word, as before.
 */
static size_t sort_due(struct delivery *d, struct state_reports *due, struct state_report ***todo)
{
	struct skipped held = { 0 }, orphans = { 0 }, closed = { 0 }, real = { 0 };
	size_t i, n = 0;
	int64_t until;

	*todo = xcalloc(due->nr ? due->nr : 1, sizeof(**todo));
	for (i = 0; i < due->nr; i++) {
		struct state_report *r = &due->v[i];
		struct skipped *k = NULL;

		/* the clock, pause and the hourly limit are the loop's */
		switch (delivery_waiting(d->cfg, r, d->now, 0, &until)) {
		case DELIVERY_HELD: k = &held; break;
		case DELIVERY_PARENT_DROPPED: k = &orphans; break;
		case DELIVERY_REPORT_CLOSED: k = &closed; break;
		case DELIVERY_REDIRECT: k = &real; break;
		case DELIVERY_PARENT:
			/* it may go after its parent, when that goes in this
			 * run; else it waits, as it did before this run */
			if (todo_find(*todo, n, r->parent_id) < 0)
				continue;
			if (d->cfg->redirect_to && !r->redirected_to && !r->parent_redirected_to && r->sent)
				k = &real;
			break;
		default: break;
		}
		if (!k) {
			(*todo)[n++] = r;
			continue;
		}
		ALLOC_GROW(k->ids, k->n + 1, k->alloc);
		k->ids[k->n++] = r->id;
	}
	skipped_say(d, &held, "held by the operator", "`perfbot outbox release ID` lets one go");
	skipped_say(d, &orphans, "follow-ups of a dropped report",
		    "`perfbot outbox drop ID --why TEXT` drops one too");
	skipped_say(d, &closed, "follow-ups of a closed report",
		    "they go if the report is reopened; `perfbot outbox drop ID --why TEXT` drops one");
	skipped_say(d, &real, "perfbot.redirectTo is set and their real recipients had them",
		    "the rest of them go once it is unset");
	free(held.ids);
	free(orphans.ids);
	free(closed.ids);
	free(real.ids);
	return n;
}

/*
 * The session failed before the transactions of mails todo[from..from+n-1]: each
 * counts an attempt, with the reason as its last reply and the back-off
 * after it, except after a configuration error (certificate, AUTH): the
 * next run tries again as soon as it runs.  One transaction.
 */
static int mark_stopped(struct delivery *d, struct state_report **todo, const char *went, size_t from,
			size_t n, const char *why, int config_error, struct buf *err)
{
	size_t i;

	if (!n)
		return 0;
	if (state_begin(d->st, err) < 0)
		return -1;
	for (i = from; i < from + n; i++) {
		int64_t next = config_error ? 0 :
			       d->now + delivery_backoff(d->cfg->retry_minutes, todo[i]->attempts + 1);

		/* a follow-up waiting for its parent was not stopped */
		if (!todo_ready(todo, went, i))
			continue;
		if (state_report_mark_stopped(d->st, todo[i]->id, d->now, next, why, err) < 0) {
			state_rollback(d->st);
			return -1;
		}
	}
	return state_commit(d->st, err);
}

int delivery_run(struct delivery *d, struct buf *err)
{
	struct state_reports due = { 0 };
	struct state_report **todo = NULL;
	struct smtp_session *s = NULL;
	struct store *store = NULL;
	struct buf why = BUF_INIT;
	struct attempt slot[2] = { { .why = BUF_INIT, .reply = BUF_INIT },
				   { .why = BUF_INIT, .reply = BUF_INIT } };
	struct step job = { .d = d, .err = BUF_INIT };
	struct worker *w = NULL;
	struct skipped orphans = { 0 };
	char *went = NULL;		/* todo[i] went in this run (todo_ready()) */
	int64_t sent_hour = 0;
	size_t i, k = 0, n = 0;
	int ret = 0, e;

	if (!d->dry_run && delivery_rethread(d->st, &d->log, NULL, err) < 0)
		return -1;
	if (state_report_due(d->st, d->now, DELIVERY_MAX_BATCH, &due, err) < 0)
		return -1;
	if (!d->dry_run && repair_unfinished(d, &store, err) < 0) {
		ret = -1;
		goto done;
	}
	n = sort_due(d, &due, &todo);
	went = xcalloc(n ? n : 1, 1);
	if (!n)
		goto done;
	if (d->dry_run) {
		for (i = 0; i < n; i++) {
			const char *redirect = redirect_of(d, todo[i]);

			mboxrd_append(d->dry_mbox, todo[i]->env_from, d->now, todo[i]->mail, todo[i]->mail_len);
			event_log_say(&d->log, "would send <%s> %s%s%s%s", todo[i]->message_id, todo[i]->subject,
			    redirect ? " (redirected to " : "", redirect ? redirect : "", redirect ? ")" : "");
		}
		goto done;
	}
	if (d->cfg->paused) {
		d->held += n;
		event_log_say(&d->log, "paused (perfbot.paused): %zu mail%s wait%s", n, n == 1 ? "" : "s",
		    n == 1 ? "s" : "");
		goto done;
	}
	if (state_sent_last_hour(d->st, d->now, &sent_hour, err) < 0 ||
	    state_set_durable(d->st, 0, err) < 0) {	/* see state_set_durable() */
		ret = -1;
		goto done;
	}
	if (worker_new(&w, err) < 0) {
		ret = -1;
		goto done;
	}
	job.w = w;
	for (i = 0; i < n; i++) {
		struct state_report *r = todo[i];
		struct attempt *cur = &slot[k], *prev = &slot[k ^ 1];
		size_t left = n - i;
		char **rcpt;
		size_t nr;

		if (!todo_ready(todo, went, i)) {
			ALLOC_GROW(orphans.ids, orphans.n + 1, orphans.alloc);
			orphans.ids[orphans.n++] = r->id;
			continue;
		}
		if (d->cfg->max_per_hour && sent_hour >= d->cfg->max_per_hour) {
			d->held += left;
			event_log_say(&d->log, "perfbot.maxPerHour (%d) reached: %zu mail%s wait for the next hour",
			    d->cfg->max_per_hour, left, left == 1 ? "" : "s");
			break;
		}
		if (!s) {
			struct smtp_options o;
			size_t stopped = left;

			if (attempt_finish(d, prev, store, err) < 0) {
				ret = -1;
				break;
			}
			open_options(d, &o);
			buf_reset(&why);
			e = smtp_open(&o, &s, &why);
			flush_smtp_log(d);
			if (e != SMTP_OK) {
				/* the mails it stopped count an attempt each;
				 * those over maxPerHour would not have gone */
				if (d->cfg->max_per_hour && (int64_t)stopped > d->cfg->max_per_hour - sent_hour)
					stopped = (size_t)(d->cfg->max_per_hour - sent_hour);
				d->held += left;
				if (e == SMTP_PERMANENT)
					d->config_error = 1;
				else
					d->temporary = 1;
				event_log_say(&d->log, "cannot deliver (%zu mail%s): %s; %s", left, left == 1 ? " waits" : "s wait",
				    why.data, e == SMTP_PERMANENT ? "the next run tries again" :
				    "each waits out its back-off");
				if (mark_stopped(d, todo, went, i, stopped, why.data, e == SMTP_PERMANENT, err) < 0)
					ret = -1;
				break;
			}
			smtp_set_gate(s, step_gate, &job);
		}
		if (!store && (store_open(d->cfg, d->st, d->now, &store, err) != 0 ||
			       state_delivery_begin(d->st, d->now, err) < 0)) {
			ret = -1;
			break;
		}
		cur->redirect = redirect_of(d, r);
		job.prev = prev->r ? prev : NULL;
		job.next = r;
		job.next_redirect = cur->redirect;
		worker_post(w, step_run, &job);
		nr = envelope(r, cur->redirect, &rcpt);
		cur->r = r;
		cur->status = smtp_send(s, r->env_from, (const char *const *)rcpt, nr, r->mail, r->mail_len,
					&cur->res, &cur->why);
		attempt_settle(d, cur);
		went[i] = cur->status == SMTP_OK && cur->outcome == STATE_SENT;
		worker_wait(w);	/* when the envelope failed, the gate was not reached */
		flush_smtp_log(d);
		free_list(rcpt, nr);
		if (job.ret < 0) {
			/* neither mark was made: this mail was held back before
			 * DATA, and the previous outcome is marked below */
			smtp_result_release(&cur->res);
			buf_reset(&cur->why);
			cur->r = NULL;
			err_set(err, "%s", job.err.data);
			ret = -1;
			break;
		}
		if (prev->r && attempt_done(d, prev, store, err) < 0) {
			ret = -1;
			break;
		}
		if (cur->status == SMTP_OK)
			sent_hour++;
		k ^= 1;
		if (!smtp_alive(s)) {
			if (attempt_finish(d, cur, store, err) < 0) {
				ret = -1;
				break;
			}
			smtp_close(s);
			s = NULL;
		}
	}
	worker_free(w);
	/* the outcomes not yet marked (at most one), also after an error,
	 * when the database lets us */
	for (k = 0; k < 2; k++)
		if (attempt_finish(d, &slot[k], store, ret < 0 ? NULL : err) < 0 && ret == 0)
			ret = -1;
	skipped_say(d, &orphans, "follow-ups whose parent did not go in this run",
		    "each goes after the mail it answers");
	/* the follow-ups of a mail refused for good in this run answer
	 * another from now on (status shows it); they go at the next send */
	if (ret == 0 && d->failed && delivery_rethread(d->st, &d->log, NULL, err) < 0)
		ret = -1;
done:
	smtp_close(s);
	/* what was delivered is counted and archived, also when the run
	 * stopped early; a failure leaves the mark for the next run */
	if (store) {
		e = state_sent_add(d->st, d->now, (int64_t)d->sent, ret < 0 ? NULL : err) < 0 ||
		    store_commit(store, ret < 0 ? NULL : err) < 0 ||
		    state_delivery_end(d->st, ret < 0 ? NULL : err) < 0;
		if (e && ret == 0)
			ret = -1;
	}
	flush_smtp_log(d);
	store_close(store);
	/* the last marks are fsynced before the run ends */
	if (state_set_durable(d->st, 1, ret < 0 ? NULL : err) < 0 && ret == 0)
		ret = -1;
	for (k = 0; k < 2; k++) {
		smtp_result_release(&slot[k].res);
		buf_release(&slot[k].why);
		buf_release(&slot[k].reply);
		free(slot[k].rows);
	}
	buf_release(&job.err);
	free(orphans.ids);
	free(went);
	free(todo);
	state_reports_release(&due);
	buf_release(&why);
	return ret;
}
