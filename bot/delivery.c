#include <stdlib.h>
#include <string.h>

#include "delivery.h"
#include "mboxrd.h"
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

/* The envelope recipients: the stored ones, or redirectTo alone. */
static size_t envelope(const struct delivery *d, const struct state_report *r, char ***out)
{
	const char *p = r->env_rcpt;
	size_t n = 0;

	*out = NULL;
	if (d->cfg->redirect_to) {
		*out = xcalloc(1, sizeof(**out));
		(*out)[n++] = xstrdup(d->cfg->redirect_to);
		return n;
	}
	while (p && *p) {
		size_t len = strcspn(p, "\n");

		if (len) {
			*out = xrealloc(*out, (n + 1) * sizeof(**out));
			(*out)[n++] = xstrndup(p, len);
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return n;
}

static void free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* smtp_result -> the state's per-recipient rows (pointers into res). */
static struct state_rcpt *rcpt_rows(const struct smtp_result *res)
{
	struct state_rcpt *rows = xcalloc(res->nr_rcpt ? res->nr_rcpt : 1, sizeof(*rows));
	size_t i;

	for (i = 0; i < res->nr_rcpt; i++) {
		rows[i].address = res->rcpt[i].address;
		rows[i].code = res->rcpt[i].code;
		rows[i].reply = res->rcpt[i].reply ? res->rcpt[i].reply : (char *)"";
	}
	return rows;
}

static void open_options(const struct delivery *d, struct smtp_options *o)
{
	const struct config *c = d->cfg;

	memset(o, 0, sizeof(*o));
	o->server = c->smtp_server;
	o->port = c->smtp_port;
	o->encryption = c->smtp_encryption;
	o->user = c->smtp_user;
	o->password = d->password;
	o->ca_file = c->smtp_ca_file;
	o->timeout = c->smtp_timeout;
	o->log = d->smtp_log;
}

/* One delivery attempt whose outcome is not yet in the database. */
struct attempt {
	const struct state_report *r;	/* NULL: none */
	int status;			/* smtp_send()'s */
	struct smtp_result res;
	struct buf why;			/* smtp_send()'s message */
	struct buf reply;		/* attempt_settle(): what is kept and logged */
	int64_t next;			/* attempt_settle(), TEMPORARY: when to try again */
};

/* Derives from smtp_send()'s result what the database keeps and the log
 * says: the final reply, or the reason when none came; and for a
 * temporary failure, when to try again. */
static void attempt_settle(struct delivery *d, struct attempt *a)
{
	buf_reset(&a->reply);
	if (a->res.code)
		buf_addf(&a->reply, "%d %s", a->res.code, a->res.reply ? a->res.reply : "");
	else
		buf_adds(&a->reply, a->why.data);
	if (a->status == SMTP_TEMPORARY)
		a->next = d->now + delivery_backoff(d->cfg->retry_minutes, a->r->attempts + 1);
}

/* Marks the settled attempt's outcome in the database (one transaction,
 * or a part of the caller's). */
static int attempt_mark(struct delivery *d, const struct attempt *a, struct buf *err)
{
	const struct smtp_result *res = &a->res;
	struct state_rcpt *rows = rcpt_rows(res);
	int ret;

	if (a->status == SMTP_OK)
		ret = state_report_mark_sent(d->st, a->r->id, d->now, a->reply.data, rows, res->nr_rcpt, err);
	else if (a->status == SMTP_TEMPORARY)
		ret = state_report_mark_deferred(d->st, a->r->id, a->next, a->reply.data, rows, res->nr_rcpt,
						 err);
	else
		ret = state_report_mark_failed(d->st, a->r->id, a->reply.data, rows, res->nr_rcpt, err);
	free(rows);
	return ret;
}

/* Once marked: counts and logs the outcome, files a delivered mail in
 * the store, and forgets the attempt. */
static int attempt_done(struct delivery *d, struct attempt *a, struct store *store, struct buf *err)
{
	const struct state_report *r = a->r;
	const struct smtp_result *res = &a->res;
	const char *reply = a->reply.data;
	size_t accepted = 0, i;
	int ret = 0;

	for (i = 0; i < res->nr_rcpt; i++)
		accepted += res->rcpt[i].status == SMTP_OK;
	if (a->status == SMTP_OK) {
		ret = store_add(store, r->message_id, r->mail, r->mail_len, err);
		d->sent++;
		event_log_say(&d->log, "sent %s <%s> to %zu of %zu recipient%s: %s", r->kind == STATE_KIND_FOLLOWUP ? "follow-up" : state_kind_name(r->kind),
		    r->message_id, accepted, res->nr_rcpt, res->nr_rcpt == 1 ? "" : "s", reply);
		for (i = 0; i < res->nr_rcpt; i++)
			if (res->rcpt[i].status != SMTP_OK)
				event_log_say(&d->log, "  recipient %s refused: %d %s", res->rcpt[i].address, res->rcpt[i].code,
				    res->rcpt[i].reply ? res->rcpt[i].reply : "(not tried)");
	} else if (a->status == SMTP_TEMPORARY) {
		d->deferred++;
		d->temporary = 1;
		event_log_say(&d->log, "deferred <%s> (attempt %d): %s; next attempt in %lld minutes", r->message_id,
		    r->attempts + 1, reply, (long long)((a->next - d->now) / 60));
	} else {
		d->failed++;
		event_log_say(&d->log, "failed <%s> for good: %s", r->message_id, reply);
	}
	smtp_result_release(&a->res);
	buf_reset(&a->why);
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
			  struct buf *err)
{
	if (!a && !next)
		return 0;
	if (state_begin(d->st, err) < 0)
		return -1;
	if ((a && attempt_mark(d, a, err) < 0) ||
	    (next && state_report_mark_sending(d->st, next->id, d->now, err) < 0) ||
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
	if (attempt_commit(d, a, NULL, err) < 0)
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
	j->ret = attempt_commit(j->d, j->prev, j->next, &j->err);
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

int delivery_run(struct delivery *d, struct buf *err)
{
	struct state_reports due = { 0 };
	struct smtp_session *s = NULL;
	struct store *store = NULL;
	struct buf why = BUF_INIT;
	struct attempt slot[2] = { { .why = BUF_INIT, .reply = BUF_INIT },
				   { .why = BUF_INIT, .reply = BUF_INIT } };
	struct step job = { .d = d, .err = BUF_INIT };
	struct worker *w = NULL;
	int64_t sent_hour = 0;
	size_t i, k = 0;
	int ret = 0, e;

	if (state_report_due(d->st, d->now, DELIVERY_MAX_BATCH, &due, err) < 0)
		return -1;
	if (!d->dry_run && repair_unfinished(d, &store, err) < 0) {
		ret = -1;
		goto done;
	}
	if (!due.nr)
		goto done;
	if (d->dry_run) {
		for (i = 0; i < due.nr; i++) {
			mboxrd_append(d->dry_mbox, due.v[i].env_from, d->now, due.v[i].mail, due.v[i].mail_len);
			event_log_say(&d->log, "would send <%s> %s", due.v[i].message_id, due.v[i].subject);
		}
		goto done;
	}
	if (d->cfg->paused) {
		d->held = due.nr;
		event_log_say(&d->log, "paused (perfbot.paused): %zu mail%s wait%s", due.nr, due.nr == 1 ? "" : "s",
		    due.nr == 1 ? "s" : "");
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
	for (i = 0; i < due.nr; i++) {
		struct state_report *r = &due.v[i];
		struct attempt *cur = &slot[k], *prev = &slot[k ^ 1];
		char **rcpt;
		size_t nr;

		if (d->cfg->max_per_hour && sent_hour >= d->cfg->max_per_hour) {
			d->held = due.nr - i;
			event_log_say(&d->log, "perfbot.maxPerHour (%d) reached: %zu mail%s wait for the next hour",
			    d->cfg->max_per_hour, d->held, d->held == 1 ? "" : "s");
			break;
		}
		if (!s) {
			struct smtp_options o;

			if (attempt_finish(d, prev, store, err) < 0) {
				ret = -1;
				break;
			}
			open_options(d, &o);
			buf_reset(&why);
			e = smtp_open(&o, &s, &why);
			flush_smtp_log(d);
			if (e != SMTP_OK) {
				/* nothing was attempted: the mails stay as they are */
				d->held = due.nr - i;
				if (e == SMTP_PERMANENT)
					d->config_error = 1;
				else
					d->temporary = 1;
				event_log_say(&d->log, "cannot deliver (%zu mail%s wait): %s", d->held, d->held == 1 ? "" : "s",
				    why.data);
				break;
			}
			smtp_set_gate(s, step_gate, &job);
		}
		if (!store && (store_open(d->cfg, d->st, d->now, &store, err) != 0 ||
			       state_delivery_begin(d->st, d->now, err) < 0)) {
			ret = -1;
			break;
		}
		job.prev = prev->r ? prev : NULL;
		job.next = r;
		worker_post(w, step_run, &job);
		nr = envelope(d, r, &rcpt);
		cur->r = r;
		cur->status = smtp_send(s, r->env_from, (const char *const *)rcpt, nr, r->mail, r->mail_len,
					&cur->res, &cur->why);
		attempt_settle(d, cur);
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
	}
	buf_release(&job.err);
	state_reports_release(&due);
	buf_release(&why);
	return ret;
}
