/*
 * The state's change log (schema 11, state_changes_since()): each kind of
 * write through the state's own functions marks exactly the thread head
 * of the report it shows on (a follow-up's, a reply's, a trailer's
 * report's), at a larger seq; the exclusion list marks every report; the
 * bookkeeping no page shows (ingest and track cursors, the archive's tip,
 * the send log, the delivery flag) and a rolled back write mark nothing;
 * a seq the state never reached means every report;
 * a state migrated from schema 10 has every thread head at seq 1; the
 * site's status is one snapshot's, its second connection's list too.
 * Each test has its own state directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "buf.h"
#include "config.h"
#include "state.h"
#include "status.h"
#include "schema4.h"

#define T0 1773035458
#define HEAD_A "0123456789abcdef0123456789abcdef01234567"
#define FIX1 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define FIX2 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

struct fixture {
	char dir[64];
	char state[96];
	struct state *st;
	int64_t since;		/* the seq the last check ended at */
	int64_t a, b;		/* two reports, each its own thread */
};

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static char mail[] = "From: lab <lab@example.org>\nTo: Dev <dev@example.org>\nSubject: x\n\nbody\n";

static void report_init(struct state_report *r, enum state_kind kind, const char *mid,
			int64_t parent)
{
	memset(r, 0, sizeof(*r));
	r->message_id = (char *)mid;
	r->kind = kind;
	r->parent_id = parent;
	r->thread_key = (char *)mid;
	r->identity = "identity";
	r->subject = kind == STATE_KIND_REPORT ? "[linus:master] x 3.8% regression"
					       : "Re: [linus:master] x 3.8% regression";
	r->from_name = "lab";
	r->from_email = "lab@example.org";
	r->env_from = "lab@example.org";
	r->env_rcpt = "dev@example.org";
	r->to_addrs = "dev@example.org";
	r->cc_addrs = "";
	r->mail = mail;
	r->mail_len = sizeof(mail) - 1;
	r->created = T0;
	if (kind == STATE_KIND_REPORT || kind == STATE_KIND_FOLLOWUP) {
		r->tree = "linus/master";
		r->head = HEAD_A;
	}
}

static int64_t add(struct state *st, enum state_kind kind, const char *mid, int64_t parent)
{
	struct state_report r;
	struct buf err = BUF_INIT;
	int64_t id = 0;

	report_init(&r, kind, mid, parent);
	if (state_report_add(st, &r, &id, &err) != 0)
		fail_msg("state_report_add %s: %s", mid, err.data);
	buf_release(&err);
	return id;
}

static void ok(int r, const struct buf *err, const char *what)
{
	if (r != 0)
		fail_msg("%s: returned %d: %s", what, r, err->data);
}

/* The changes after f->since are exactly ids (ascending, nr of them) and
 * "every report" when all, at a seq above f->since; f->since moves on. */
static void expect(struct fixture *f, const char *what, int all, size_t nr, const int64_t *ids)
{
	struct state_changes c;
	struct buf err = BUF_INIT;
	size_t i;

	ok(state_changes_since(f->st, f->since, &c, &err), &err, what);
	if (c.all != all || c.nr != nr)
		fail_msg("%s: all %d, %zu reports; wanted all %d, %zu", what, c.all, c.nr, all, nr);
	for (i = 0; i < nr; i++)
		if (c.ids[i] != ids[i])
			fail_msg("%s: report %lld at %zu, wanted %lld", what, (long long)c.ids[i], i,
				 (long long)ids[i]);
	if (c.seq <= f->since)
		fail_msg("%s: seq %lld, not above %lld", what, (long long)c.seq, (long long)f->since);
	f->since = c.seq;
	state_changes_release(&c);
	buf_release(&err);
}

static void expect1(struct fixture *f, const char *what, int64_t id)
{
	expect(f, what, 0, 1, &id);
}

/* Nothing changed after f->since, and the newest seq is still it. */
static void unchanged(struct fixture *f, const char *what)
{
	struct state_changes c;
	struct buf err = BUF_INIT;

	ok(state_changes_since(f->st, f->since, &c, &err), &err, what);
	if (c.all || c.nr || c.seq != f->since)
		fail_msg("%s: all %d, %zu reports, seq %lld; wanted none at %lld", what, c.all, c.nr,
			 (long long)c.seq, (long long)f->since);
	state_changes_release(&c);
	buf_release(&err);
}

/* A state with reports a and b, queued; since is where that left it. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;
	struct state_changes c;

	snprintf(f->dir, sizeof(f->dir), "/tmp/perfbot-test-changes-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
	if (state_open(f->state, &f->st, &err) < 0) {
		fprintf(stderr, "state_open: %s\n", err.data);
		return -1;
	}
	if (state_changes_since(f->st, 0, &c, &err) < 0 || c.seq || c.nr || c.all) {
		fprintf(stderr, "a new state has changes: %s\n", err.data);
		return -1;
	}
	f->a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0);
	f->b = add(f->st, STATE_KIND_REPORT, "b@example.org", 0);
	if (state_changes_since(f->st, 0, &c, &err) < 0 || c.nr != 2 || c.ids[0] != f->a ||
	    c.ids[1] != f->b || c.all) {
		fprintf(stderr, "two reports queued are not the changes: %s\n", err.data);
		return -1;
	}
	f->since = c.seq;
	state_changes_release(&c);
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	state_close(f->st);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* A report queued, sent, held, its verdict set (by a command and by the
 * operator); a follow-up added marks its thread's report, not itself. */
static void report_writes_mark_the_report(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_rcpt rcpt = { STATE_RCPT_DELIVERED, "dev@example.org", 250, "ok" };
	int64_t c, fu;

	c = add(f->st, STATE_KIND_REPORT, "c@example.org", 0);
	expect1(f, "a report queued", c);
	ok(state_report_mark_sending(f->st, f->a, T0, NULL, &err), &err, "sending");
	expect1(f, "a report sending", f->a);
	ok(state_report_mark_ended(f->st, f->a, T0, 0, "250 ok", &rcpt, 1, &err), &err, "sent");
	expect1(f, "a report sent", f->a);
	ok(state_report_mark_stopped(f->st, f->b, T0, T0 + 60, "connection refused", &err), &err,
	   "stopped");
	expect1(f, "an attempt stopped", f->b);
	ok(state_report_act(f->st, f->b, STATE_ACTION_HOLD, "wait", "operator (root)", T0, &err), &err,
	   "hold");
	expect1(f, "a report held", f->b);
	ok(state_report_set_verdict(f->st, f->a, STATE_VERDICT_INVALID, &err), &err, "verdict");
	expect1(f, "a verdict set", f->a);
	ok(state_report_set_verdict_by(f->st, f->a, STATE_VERDICT_OPEN, "again", "operator (root)", T0,
				       &err), &err, "operator's verdict");
	expect1(f, "a verdict set by the operator", f->a);
	fu = add(f->st, STATE_KIND_FOLLOWUP, "fu@example.org", f->a);
	expect1(f, "a follow-up added", f->a);
	ok(state_report_mark_sending(f->st, fu, T0, NULL, &err), &err, "follow-up sending");
	expect1(f, "a follow-up sending", f->a);
	buf_release(&err);
}

static void message(struct state *st, const char *mid, int64_t report)
{
	struct state_message m;
	struct buf err = BUF_INIT;

	memset(&m, 0, sizeof(m));
	m.message_id = (char *)mid;
	m.report_id = report;
	m.from_email = "dev@example.org";
	m.date = T0;
	m.ingested = 1;
	ok(state_message_add(st, &m, NULL, &err), &err, mid);
	buf_release(&err);
}

/* Replies, their commands and trailers mark their thread's report; a
 * mail of no report marks nothing, nor does one known already. */
static void thread_writes_mark_the_report(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	int64_t fu = add(f->st, STATE_KIND_FOLLOWUP, "fu@example.org", f->a);

	expect1(f, "a follow-up added", f->a);
	message(f->st, "reply@x.org", f->b);
	expect1(f, "a reply", f->b);
	message(f->st, "reply@x.org", f->a);
	unchanged(f, "a reply known already");
	message(f->st, "fu-reply@x.org", fu);
	expect1(f, "a reply to a follow-up", f->a);
	message(f->st, "stray@x.org", 0);
	unchanged(f, "a mail of no report");
	ok(state_message_set_archived(f->st, "reply@x.org", FIX1, FIX2, &err), &err, "archived");
	expect1(f, "a reply archived", f->b);

	ok(state_command_add(f->st, fu, "fu-reply@x.org", "invalid", "", "Dev <dev@example.org>", T0,
			     &err), &err, "command");
	expect1(f, "a command on a follow-up", f->a);
	ok(state_command_add(f->st, fu, "fu-reply@x.org", "invalid", "", "Dev <dev@example.org>", T0,
			     &err), &err, "command again");
	unchanged(f, "a command recorded already");
	ok(state_command_record(f->st, f->b, "reply@x.org", "fixed-by", "abcd", "Eve <e@x.org>", T0, 0,
				"from e@x.org, who may not steer it", &err), &err, "command refused");
	expect1(f, "a command not applied", f->b);
	ok(state_command_add(f->st, 0, "stray@x.org", "invalid", "", "Dev <dev@example.org>", T0, &err),
	   &err, "command of no report");
	unchanged(f, "a command of no report");

	ok(state_trailer_add(f->st, "fu-reply@x.org", "Tested-by", "Dev <dev@example.org>", &err), &err,
	   "trailer");
	expect1(f, "a trailer in a follow-up's reply", f->a);
	ok(state_trailer_add(f->st, "stray@x.org", "Tested-by", "Dev <dev@example.org>", &err), &err,
	   "trailer of no report");
	unchanged(f, "a trailer of no report");
	buf_release(&err);
}

/* A fix recorded, replaced and set aside, a possible fix, a posted fix,
 * a notice; a digest marks its own thread and every report it lists. */
static void fix_writes_mark_the_report(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_fix fix;
	struct state_possible_fix p;
	struct state_posted_fix posted;
	struct state_report n;
	struct state_digest_entry e[] = {
		{ 0, STATE_VERDICT_FIXED, FIX1 },
		{ 0, STATE_VERDICT_INVALID, NULL },
	};
	int64_t d = 0, want[3];

	memset(&fix, 0, sizeof(fix));
	fix.report_id = f->a;
	fix.commit = "abcd";
	fix.subject = "";
	fix.ref = "";
	fix.kind = FIX_FIXED_BY;
	fix.recorded = T0;
	ok(state_fix_set(f->st, &fix, &err), &err, "fix");
	expect1(f, "a fix recorded", f->a);
	fix.commit = FIX1;
	fix.subject = "mm: fix";
	fix.ref = "refs/remotes/linus/master";
	fix.kind = FIX_CLOSES;
	fix.in_repo = 1;
	ok(state_fix_set(f->st, &fix, &err), &err, "fix replaced");
	expect1(f, "a fix replaced", f->a);
	ok(state_fix_reopen(f->st, f->a, &err), &err, "reopen");
	expect1(f, "a fix set aside", f->a);

	memset(&p, 0, sizeof(p));
	p.commit = FIX2;
	p.subject = "mm: maybe";
	p.ref = "refs/remotes/next/master";
	p.date = T0;
	p.recorded = T0;
	ok(state_possible_fix_set(f->st, f->b, &p, &err), &err, "possible fix");
	expect1(f, "a possible fix", f->b);
	p.ref = "refs/remotes/linus/master";
	ok(state_possible_fix_set(f->st, f->b, &p, &err), &err, "possible fix again");
	expect1(f, "a possible fix replaced", f->b);

	memset(&posted, 0, sizeof(posted));
	posted.report_id = f->b;
	posted.message_id = "patch@x.org";
	posted.subject = "mm: fix it";
	posted.version = 1;
	posted.author_name = "Dev";
	posted.author_email = "dev@example.org";
	posted.date = T0;
	posted.kind = FIX_CLOSES;
	posted.recorded = T0;
	ok(state_posted_fix_add(f->st, &posted, &err), &err, "posted fix");
	expect1(f, "a posted fix", f->b);
	assert_int_equal(state_posted_fix_add(f->st, &posted, &err), STATE_EXISTS);
	unchanged(f, "a posted fix recorded already");

	report_init(&n, STATE_KIND_NOTICE, "notice@example.org", f->a);
	n.thread_key = "notice\na@example.org\n" FIX1;
	ok(state_notice_add(f->st, f->a, FIX1, &n, NULL, &err), &err, "notice");
	expect1(f, "a notice", f->a);

	e[0].report_id = f->a;
	e[1].report_id = f->b;
	report_init(&n, STATE_KIND_DIGEST, "digest@example.org", 0);
	ok(state_digest_add(f->st, &n, e, 2, &d, &err), &err, "digest");
	want[0] = f->a;
	want[1] = f->b;
	want[2] = d;
	expect(f, "a digest", 0, 3, want);
	buf_release(&err);
}

/* A job kept, a request added and moved along to its verdict. */
static void request_writes_mark_the_report(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_job job = { HEAD_A, HEAD_A, "linus/master", 1, "[]" };
	struct state_request r;
	int64_t id = 0;

	ok(state_job_set(f->st, f->b, &job, &err), &err, "job");
	expect1(f, "a job kept", f->b);
	ok(state_job_set(f->st, f->b, &job, &err), &err, "job again");
	expect1(f, "a job replaced", f->b);

	message(f->st, "ask@x.org", f->a);
	expect1(f, "the request's mail", f->a);
	memset(&r, 0, sizeof(r));
	r.report_id = f->a;
	r.message_id = "ask@x.org";
	r.requester_email = "j@x.org";
	r.requested = T0;
	r.what = STATE_REQUEST_COMMIT;
	r.commit_id = FIX1;
	r.state = STATE_REQUEST_PENDING;
	ok(state_request_add(f->st, &r, &id, &err), &err, "request");
	expect1(f, "a request", f->a);
	assert_int_equal(state_request_set_state(f->st, id, STATE_REQUEST_TAKEN,
						 1u << STATE_REQUEST_PENDING, NULL, T0, &err), 1);
	expect1(f, "a request taken", f->a);
	assert_int_equal(state_request_set_state(f->st, id, STATE_REQUEST_TAKEN,
						 1u << STATE_REQUEST_PENDING, NULL, T0, &err), 0);
	unchanged(f, "a request in another state");
	assert_int_equal(state_request_answer(f->st, id, "fixed", "r1@x.org", T0, &err), 1);
	expect1(f, "a request answered", f->a);
	buf_release(&err);
}

/* The exclusion list is on every report's status: report 0. */
static void exclusions_mark_every_report(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_exclusion x = { "dev@example.org", "Dev <dev@example.org>", T0, "reply@x.org" };

	ok(state_exclusion_add(f->st, &x, &err), &err, "exclusion");
	expect(f, "an exclusion", 1, 0, NULL);
	ok(state_exclusion_add(f->st, &x, &err), &err, "exclusion again");
	expect(f, "an exclusion replaced", 1, 0, NULL);
	assert_int_equal(state_exclusion_remove(f->st, "dev@example.org", &err), 1);
	expect(f, "an exclusion removed", 1, 0, NULL);
	/* a report marked later is listed with "every report" */
	assert_int_equal(state_exclusion_add(f->st, &x, &err), 0);
	ok(state_report_set_verdict(f->st, f->b, STATE_VERDICT_FIXED, &err), &err, "verdict");
	expect(f, "an exclusion and a verdict", 1, 1, &f->b);
	buf_release(&err);
}

/* What no page shows: ingest cursors, track cursors, the archive's tip,
 * the send log and the delivery flag; and a write rolled back. */
static void bookkeeping_is_no_change(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_cursor cur = { 1, 42, 0, "fp" };
	struct state_changes c;

	ok(state_cursor_set(f->st, "imap:example", &cur, &err), &err, "cursor");
	cur.last_uid = 43;
	ok(state_cursor_set(f->st, "imap:example", &cur, &err), &err, "cursor again");
	unchanged(f, "an ingest cursor");
	ok(state_track_cursor_set(f->st, "refs/remotes/linus/master", FIX1, T0, &err), &err, "track");
	unchanged(f, "a track cursor");
	ok(state_archive_tip_set(f->st, 0, FIX2, &err), &err, "archive tip");
	unchanged(f, "the archive's tip");
	ok(state_sent_add(f->st, T0, 3, &err), &err, "send log");
	ok(state_sent_recount(f->st, T0 - 7200, &err), &err, "send log recount");
	unchanged(f, "the send log");
	ok(state_delivery_begin(f->st, T0, &err), &err, "delivery begun");
	ok(state_delivery_end(f->st, &err), &err, "delivery ended");
	unchanged(f, "the delivery flag");

	ok(state_begin(f->st, &err), &err, "begin");
	add(f->st, STATE_KIND_REPORT, "gone@example.org", 0);
	ok(state_report_set_verdict(f->st, f->a, STATE_VERDICT_FIXED, &err), &err, "verdict");
	state_rollback(f->st);
	unchanged(f, "a write rolled back");

	/* inside a read transaction, as the site asks */
	ok(state_begin_read(f->st, &err), &err, "begin read");
	ok(state_changes_since(f->st, 0, &c, &err), &err, "in a read transaction");
	assert_int_equal(c.nr, 2);
	assert_int_equal(c.seq, f->since);
	state_changes_release(&c);
	ok(state_commit(f->st, &err), &err, "end read");

	/* a seq this state never reached: everything */
	ok(state_changes_since(f->st, f->since + 1, &c, &err), &err, "a seq from elsewhere");
	assert_int_equal(c.all, 1);
	assert_int_equal(c.nr, 0);
	assert_int_equal(c.seq, f->since);
	state_changes_release(&c);
	buf_release(&err);
}

/* Schema 10 (or 4) -> 11: every thread head at seq 1, nothing else;
 * then the triggers count on from there. */
static void migrated_from(struct fixture *f, void (*undo)(const char *path))
{
	struct buf err = BUF_INIT, path = BUF_INIT;
	struct state_changes c;
	int64_t heads[2] = { f->a, f->b };

	add(f->st, STATE_KIND_FOLLOWUP, "fu@example.org", f->a);
	message(f->st, "reply@x.org", f->b);
	state_close(f->st);
	f->st = NULL;
	buf_addf(&path, "%s/state.db", f->state);
	undo(path.data);
	ok(state_open(f->state, &f->st, &err), &err, "migrating");
	ok(state_changes_since(f->st, 0, &c, &err), &err, "after the migration");
	assert_int_equal(c.seq, 1);
	assert_int_equal(c.all, 0);
	assert_int_equal(c.nr, 2);
	assert_int_equal(c.ids[0], heads[0]);
	assert_int_equal(c.ids[1], heads[1]);
	state_changes_release(&c);
	f->since = 1;
	unchanged(f, "after seq 1");
	ok(state_report_set_verdict(f->st, f->b, STATE_VERDICT_FIXED, &err), &err, "verdict");
	expect1(f, "a verdict after the migration", f->b);
	assert_int_equal(f->since, 2);
	buf_release(&path);
	buf_release(&err);
}

static void migration_marks_every_thread_head(void **state)
{
	migrated_from(*state, schema_undo_changes);
}

static void migration_from_4_marks_every_thread_head(void **state)
{
	migrated_from(*state, schema_back_to_4);
}

/* status_gather_snapshot() reads every list of one snapshot, the one of
 * the caller's read transaction: the list of every report (read by a
 * second connection when its snapshot is the same) is the caller's, with
 * a report another connection added since, and with a seq that is not
 * the snapshot's. */
static void status_snapshot_is_the_callers(void **state)
{
	struct fixture *f = *state;
	struct config *cfg = config_new_defaults();
	struct state_changes c = { 0 };
	struct status s;
	struct state *other;
	struct buf err = BUF_INIT;
	int64_t seq;

	free(cfg->state);
	cfg->state = strdup(f->state);
	ok(state_begin_read(f->st, &err), &err, "begin_read");
	ok(state_changes_since(f->st, INT64_MAX, &c, &err), &err, "changes");
	seq = c.seq;
	state_changes_release(&c);
	ok(status_gather_snapshot(cfg, T0, f->st, seq, &s, &err), &err, "snapshot");
	assert_int_equal(s.reports.nr, 2);
	assert_int_equal(s.tracked.nr, 2);
	status_release(&s);
	/* another connection adds a report after the snapshot began */
	ok(state_open(f->state, &other, &err), &err, "open another");
	add(other, STATE_KIND_REPORT, "c@example.org", 0);
	state_close(other);
	ok(status_gather_snapshot(cfg, T0, f->st, seq, &s, &err), &err, "snapshot after a write");
	assert_int_equal(s.reports.nr, 2);	/* the snapshot's, not the newest */
	assert_int_equal(s.tracked.nr, 2);
	status_release(&s);
	/* a seq that is not the snapshot's: the caller's connection reads all */
	ok(status_gather_snapshot(cfg, T0, f->st, seq + 1, &s, &err), &err, "another seq");
	assert_int_equal(s.reports.nr, 2);
	status_release(&s);
	state_rollback(f->st);
	/* a new snapshot has the third */
	ok(state_begin_read(f->st, &err), &err, "begin_read again");
	ok(state_changes_since(f->st, INT64_MAX, &c, &err), &err, "changes again");
	assert_true(c.seq > seq);
	ok(status_gather_snapshot(cfg, T0, f->st, c.seq, &s, &err), &err, "new snapshot");
	assert_int_equal(s.reports.nr, 3);
	assert_int_equal(s.tracked.nr, 3);
	status_release(&s);
	state_changes_release(&c);
	state_rollback(f->st);
	config_free(cfg);
	buf_release(&err);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(report_writes_mark_the_report),
		T(thread_writes_mark_the_report),
		T(fix_writes_mark_the_report),
		T(request_writes_mark_the_report),
		T(exclusions_mark_every_report),
		T(bookkeeping_is_no_change),
		T(migration_marks_every_thread_head),
		T(migration_from_4_marks_every_thread_head),
		T(status_snapshot_is_the_callers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
