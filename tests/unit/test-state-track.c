/*
 * The state database's part of tracking (perfbot-track(1)): the migration to schema 5 (the
 * kinds notice and digest, each report's tree and head filled from what
 * older rows say), fixes and possible fixes, the track cursors, one
 * notice per report and fix commit, digests and their entries, and the
 * reports as track sees them.  Each test has its own state directory.
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
#include "state.h"
#include "schema4.h"

#define T0 1773035458
#define HEAD_A "0123456789abcdef0123456789abcdef01234567"
#define HEAD_B "89abcdef0123456789abcdef0123456789abcdef"
#define FIX1 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define FIX2 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

struct fixture {
	char dir[64];
	char state[96];
	struct state *st;
};

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;

	snprintf(f->dir, sizeof(f->dir), "/tmp/perfbot-test-track-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
	if (state_open(f->state, &f->st, &err) < 0) {
		fprintf(stderr, "state_open: %s\n", err.data);
		return -1;
	}
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

static char mail[] = "From: lab <lab@example.org>\nTo: Dev <dev@example.org>\nSubject: x\n\nbody\n";

/* A report or follow-up as intake adds it. */
static int64_t add(struct state *st, enum state_kind kind, const char *mid, int64_t parent,
		   const char *tree, const char *head)
{
	struct state_report r;
	struct buf err = BUF_INIT, key = BUF_INIT, subject = BUF_INIT;
	int64_t id = 0;
	const char *slash = tree ? strchr(tree, '/') : NULL;

	memset(&r, 0, sizeof(r));
	buf_addf(&key, "%.*s\n%s\ntc\nhl", slash ? (int)(slash - tree) : 5, slash ? tree : "linus",
		 head ? head : HEAD_A);
	buf_addf(&subject, "%s[%.*s:%s] [mm]  0123456789: x 3.8%% regression",
		 kind == STATE_KIND_REPORT ? "" : "Re: ", slash ? (int)(slash - tree) : 5,
		 slash ? tree : "linus", slash ? slash + 1 : "master");
	r.message_id = (char *)mid;
	r.kind = kind;
	r.parent_id = parent;
	r.thread_key = key.data;
	r.identity = "identity";
	r.subject = subject.data;
	r.from_name = "lab";
	r.from_email = "lab@example.org";
	r.env_from = "lab@example.org";
	r.env_rcpt = "dev@example.org";
	r.to_addrs = "dev@example.org";
	r.cc_addrs = "";
	r.mail = mail;
	r.mail_len = sizeof(mail) - 1;
	r.created = T0;
	r.tree = (char *)tree;
	r.head = (char *)head;
	if (state_report_add(st, &r, &id, &err) != 0)
		fail_msg("state_report_add %s: %s", mid, err.data);
	buf_release(&err);
	buf_release(&key);
	buf_release(&subject);
	return id;
}

static void list(struct state *st, struct state_tracked_list *out)
{
	struct buf err = BUF_INIT;

	memset(out, 0, sizeof(*out));
	if (state_tracked_list(st, 1, out, &err) < 0)
		fail_msg("state_tracked_list: %s", err.data);
	buf_release(&err);
}

/* A version 4 database with a report and a follow-up of it, neither
 * knowing its tree or head, is migrated: both filled from the thread key,
 * the report's branch from its Subject; the new kinds are taken; the
 * indexes and the view are there again; no foreign key is broken. */
static void migration_fills_trees_and_takes_the_new_kinds(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT, path = BUF_INIT;
	struct state_tracked_list l;
	struct state_names trees = { 0 };
	struct state_message m;
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t a, b, fu;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	b = add(f->st, STATE_KIND_REPORT, "b@example.org", 0, "linux-next/pending", HEAD_B);
	fu = add(f->st, STATE_KIND_FOLLOWUP, "fu@example.org", a, "linux-next/master", HEAD_A);
	{
		struct state_rcpt rcpt = { STATE_RCPT_DELIVERED, "dev@example.org", 250, "ok" };

		assert_int_equal(state_report_mark_sending(f->st, a, T0, NULL, &err), 0);
		assert_int_equal(state_report_mark_ended(f->st, a, T0, 0, "250 ok", &rcpt, 1, &err), 0);
	}
	state_close(f->st);
	f->st = NULL;
	buf_addf(&path, "%s/state.db", f->state);
	schema_back_to_4(path.data);

	assert_int_equal(state_open(f->state, &f->st, &err), 0);
	list(f->st, &l);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.v[0].id, a);
	assert_string_equal(l.v[0].tree, "linus/master");
	assert_string_equal(l.v[0].head, HEAD_A);
	assert_string_equal(l.v[1].tree, "linux-next/pending");
	assert_string_equal(l.v[1].head, HEAD_B);
	assert_int_equal(l.v[0].nr_followup_ids, 1);
	assert_string_equal(l.v[0].followup_ids[0], "fu@example.org");
	state_tracked_list_release(&l);
	/* a follow-up's Subject is its report's: its own tree is unknown */
	assert_int_equal(state_report_trees(f->st, &trees, &err), 0);
	assert_int_equal(trees.nr, 2);
	state_names_release(&trees);
	/* the known messages, read through the view made again */
	assert_int_equal(state_message_find(f->st, "a@example.org", &m, &err), 1);
	assert_int_equal(m.report_id, a);
	state_message_release(&m);
	/* the new kinds: a notice answers its report, a digest may answer nothing */
	add(f->st, STATE_KIND_NOTICE, "n@example.org", a, NULL, NULL);
	add(f->st, STATE_KIND_DIGEST, "d1@example.org", 0, NULL, NULL);
	(void)fu;
	(void)b;
	state_close(f->st);
	f->st = NULL;
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' "
					    "AND name IN ('reports_thread_key', 'reports_thread_id', "
					    "'reports_pending')", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 3);
	sqlite3_finalize(s);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	/* and the constraints still hold: a report with a parent is refused */
	assert_int_not_equal(sqlite3_exec(db, "UPDATE reports SET parent_id = 1 WHERE message_id = "
					  "'b@example.org'", NULL, NULL, NULL), SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(db, "UPDATE reports SET kind = 'other' WHERE id = 1",
					  NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(state_open(f->state, &f->st, &err), 0);
	buf_release(&err);
	buf_release(&path);
}

static void new_kinds_keep_the_parent_rules(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_report r;

	memset(&r, 0, sizeof(r));
	r.message_id = "n@example.org";
	r.kind = STATE_KIND_NOTICE;
	r.thread_key = "notice";
	r.identity = "i";
	r.subject = "Re: x";
	r.from_email = r.env_from = r.env_rcpt = r.to_addrs = "lab@example.org";
	r.mail = mail;
	r.mail_len = sizeof(mail) - 1;
	assert_int_equal(state_report_add(f->st, &r, NULL, &err), -1);
	assert_non_null(strstr(err.data, "needs a parent"));
	buf_release(&err);
}

static void fixes_are_set_replaced_and_set_aside(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_tracked t;
	struct state_fix fix = { 0 };
	struct state_possible_fix p = { 0 };
	int64_t a, fu;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	fu = add(f->st, STATE_KIND_FOLLOWUP, "fu@example.org", a, "linus/master", HEAD_A);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_int_equal(t.has_fix, 0);
	state_tracked_release(&t);
	assert_int_equal(state_tracked_get(f->st, fu, &t, &err), 0);	/* not a report */

	fix.report_id = a;
	fix.commit = "abcd";
	fix.kind = FIX_FIXED_BY;
	fix.recorded = T0;
	assert_int_equal(state_fix_set(f->st, &fix, &err), 0);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_int_equal(t.has_fix, 1);
	assert_string_equal(t.fix.commit, "abcd");
	assert_string_equal(t.fix.subject, "");
	assert_string_equal(t.fix.ref, "");
	assert_string_equal(t.fix.landed, "");
	assert_int_equal(t.fix.kind, FIX_FIXED_BY);
	assert_int_equal(t.fix.in_repo, 0);
	assert_int_equal(t.fix.date, 0);
	state_tracked_release(&t);

	fix.commit = FIX1;
	fix.subject = "mm: fix";
	fix.ref = "refs/remotes/linus/master";
	fix.landed = "refs/remotes/linus/master\nrefs/remotes/next/master";
	fix.date = T0 + 60;
	fix.kind = FIX_CLOSES;
	fix.in_repo = 1;
	assert_int_equal(state_fix_set(f->st, &fix, &err), 0);
	assert_int_equal(state_fix_reopen(f->st, a, &err), 0);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_string_equal(t.fix.commit, FIX1);
	assert_string_equal(t.fix.landed, fix.landed);
	assert_int_equal(t.fix.kind, FIX_CLOSES);
	assert_int_equal(t.fix.date, T0 + 60);
	assert_int_equal(t.fix.reopened, 1);
	state_tracked_release(&t);

	/* refused: a possible fix as a fix, a report that is not there */
	fix.kind = FIX_POSSIBLE;
	assert_int_equal(state_fix_set(f->st, &fix, &err), -1);
	fix.kind = FIX_LINK;
	fix.report_id = fu;
	assert_int_equal(state_fix_set(f->st, &fix, &err), -1);
	assert_non_null(strstr(err.data, "there is no report"));

	p.commit = FIX2;
	p.subject = "mm: maybe";
	p.ref = "refs/remotes/next/master";
	p.date = T0 + 120;
	p.recorded = T0 + 200;
	assert_int_equal(state_possible_fix_set(f->st, a, &p, &err), 0);
	p.ref = "refs/remotes/linus/master";
	assert_int_equal(state_possible_fix_set(f->st, a, &p, &err), 0);	/* replaced, not added */
	p.commit = FIX1;
	p.recorded = T0 + 300;
	assert_int_equal(state_possible_fix_set(f->st, a, &p, &err), 0);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_int_equal(t.nr_possible, 2);
	assert_string_equal(t.possible[0].commit, FIX2);
	assert_string_equal(t.possible[0].ref, "refs/remotes/linus/master");
	assert_int_equal(t.possible[0].recorded, T0 + 200);
	assert_string_equal(t.possible[1].commit, FIX1);
	state_tracked_release(&t);
	buf_release(&err);
}

static void posted(struct state *st, int64_t report, const char *mid, const char *subject,
		   unsigned version, int64_t date, enum fix_kind kind, int want)
{
	struct state_posted_fix p;
	struct buf err = BUF_INIT;
	int e;

	memset(&p, 0, sizeof(p));
	p.report_id = report;
	p.message_id = (char *)mid;
	p.subject = (char *)subject;
	p.version = version;
	p.author_name = "Dev";
	p.author_email = "dev@example.org";
	p.date = date;
	p.kind = kind;
	p.recorded = T0 + 1000;
	e = state_posted_fix_add(st, &p, &err);
	if (e != want)
		fail_msg("state_posted_fix_add <%s>: %d, not %d: %s", mid, e, want, err.data);
	buf_release(&err);
}

/* Posted fixes: once per report and Message-ID, the highest version of a
 * subject the latest, kinds other than closes, link and fixes refused;
 * the fix is linked to the latest posted fix of its subject, whichever
 * comes first, and never changes the report's state. */
static void posted_fixes_once_latest_and_linked(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_tracked t;
	struct state_fix fix = { 0 };
	int64_t a, b;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	b = add(f->st, STATE_KIND_REPORT, "b@example.org", 0, "linus/master", HEAD_B);
	posted(f->st, a, "v1@example.org", "mm: fix it", 1, T0 + 10, FIX_CLOSES, 0);
	posted(f->st, a, "other@example.org", "mm: another", 1, T0 + 15, FIX_FIXES, 0);
	posted(f->st, a, "v2@example.org", "mm: fix it", 2, T0 + 20, FIX_LINK, 0);
	posted(f->st, a, "v2@example.org", "mm: fix it", 2, T0 + 20, FIX_LINK, STATE_EXISTS);
	posted(f->st, b, "v2@example.org", "mm: fix it", 2, T0 + 20, FIX_CLOSES, 0);	/* two reports */
	posted(f->st, a, "possible@example.org", "x", 1, T0, FIX_POSSIBLE, -1);
	posted(f->st, a, "revert@example.org", "x", 1, T0, FIX_REVERT, -1);
	posted(f->st, a, "zero@example.org", "x", 0, T0, FIX_CLOSES, -1);
	posted(f->st, a, "", "x", 1, T0, FIX_CLOSES, -1);
	posted(f->st, 999, "gone@example.org", "x", 1, T0, FIX_CLOSES, -1);

	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_int_equal(t.verdict, STATE_VERDICT_OPEN);
	assert_int_equal(t.has_fix, 0);
	assert_int_equal(t.nr_posted, 3);
	assert_string_equal(t.posted[0].message_id, "v1@example.org");
	assert_int_equal(t.posted[0].version, 1);
	assert_int_equal(t.posted[0].latest, 0);
	assert_int_equal(t.posted[0].kind, FIX_CLOSES);
	assert_string_equal(t.posted[0].author_email, "dev@example.org");
	assert_int_equal(t.posted[0].date, T0 + 10);
	assert_string_equal(t.posted[1].message_id, "other@example.org");
	assert_int_equal(t.posted[1].latest, 1);
	assert_string_equal(t.posted[2].message_id, "v2@example.org");
	assert_int_equal(t.posted[2].latest, 1);
	assert_int_equal(t.posted[2].kind, FIX_LINK);
	state_tracked_release(&t);

	/* the landed commit's subject is the patch's: linked to v2 */
	fix.report_id = a;
	fix.commit = FIX1;
	fix.subject = "mm: fix it";
	fix.ref = "refs/remotes/linus/master";
	fix.kind = FIX_CLOSES;
	fix.recorded = T0 + 2000;
	assert_int_equal(state_fix_set(f->st, &fix, &err), 0);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_non_null(t.fix.posted);
	assert_string_equal(t.fix.posted, "v2@example.org");
	state_tracked_release(&t);
	/* another subject: no link */
	fix.subject = "mm: something else";
	assert_int_equal(state_fix_set(f->st, &fix, &err), 0);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_null(t.fix.posted);
	state_tracked_release(&t);
	/* the commit landed first, its patch is recorded after: linked then */
	posted(f->st, a, "v3@example.org", "mm: something else", 3, T0 + 30, FIX_CLOSES, 0);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_string_equal(t.fix.posted, "v3@example.org");
	assert_int_equal(t.nr_posted, 4);
	state_tracked_release(&t);
	buf_release(&err);
}

/* A version 8 database with a fix migrates: the fix kept, not linked. */
static void migration_to_posted_keeps_fixes(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT, path = BUF_INIT;
	struct state_tracked t;
	struct state_fix fix = { 0 };
	int64_t a;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	fix.report_id = a;
	fix.commit = FIX1;
	fix.subject = "mm: fix it";
	fix.kind = FIX_CLOSES;
	fix.recorded = T0;
	assert_int_equal(state_fix_set(f->st, &fix, &err), 0);
	state_close(f->st);
	buf_addf(&path, "%s/state.db", f->state);
	schema_undo_posted(path.data);
	if (state_open(f->state, &f->st, &err) < 0)
		fail_msg("state_open: %s", err.data);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_string_equal(t.fix.commit, FIX1);
	assert_null(t.fix.posted);
	assert_int_equal(t.nr_posted, 0);
	state_tracked_release(&t);
	posted(f->st, a, "v1@example.org", "mm: fix it", 1, T0 + 10, FIX_CLOSES, 0);
	assert_int_equal(state_tracked_get(f->st, a, &t, &err), 1);
	assert_string_equal(t.fix.posted, "v1@example.org");
	state_tracked_release(&t);
	buf_release(&err);
	buf_release(&path);
}

static void cursors_round_trip(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	char tip[41];

	assert_int_equal(state_track_cursor_get(f->st, "refs/remotes/linus/master", tip, &err), 0);
	assert_string_equal(tip, "");
	assert_int_equal(state_track_cursor_set(f->st, "refs/remotes/linus/master", FIX1, T0, &err), 0);
	assert_int_equal(state_track_cursor_set(f->st, "refs/remotes/linus/master", FIX2, T0, &err), 0);
	assert_int_equal(state_track_cursor_get(f->st, "refs/remotes/linus/master", tip, &err), 1);
	assert_string_equal(tip, FIX2);
	assert_int_equal(state_track_cursor_set(f->st, "refs/remotes/linus/master", "abc", T0, &err), -1);
	assert_int_equal(state_track_cursor_set(f->st, "refs/remotes/linus/master",
						"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", T0, &err), -1);
	buf_release(&err);
}

static void one_notice_per_report_and_fix(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_report n;
	int64_t a, id = 0, found = 0;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	memset(&n, 0, sizeof(n));
	n.message_id = "n1@example.org";
	n.kind = STATE_KIND_NOTICE;
	n.parent_id = a;
	n.thread_key = "notice\na@example.org\n" FIX1;
	n.identity = "notice";
	n.subject = "Re: x";
	n.from_email = n.env_from = n.env_rcpt = n.to_addrs = "lab@example.org";
	n.cc_addrs = "";
	n.mail = mail;
	n.mail_len = sizeof(mail) - 1;
	n.created = T0;
	assert_int_equal(state_notice_find(f->st, a, FIX1, &found, &err), 0);
	assert_int_equal(state_notice_add(f->st, a, FIX1, &n, &id, &err), 0);
	assert_int_equal(state_notice_find(f->st, a, FIX1, &found, &err), 1);
	assert_int_equal(found, id);
	n.message_id = "n2@example.org";
	assert_int_equal(state_notice_add(f->st, a, FIX1, &n, NULL, &err), STATE_EXISTS);
	assert_int_equal(state_notice_add(f->st, a, FIX2, &n, NULL, &err), 0);	/* another fix */
	/* a notice is of kind notice, answering its own report */
	n.message_id = "n3@example.org";
	n.parent_id = id;
	assert_int_equal(state_notice_add(f->st, a, "cccc", &n, NULL, &err), -1);
	buf_release(&err);
}

static void digests_chain_and_keep_their_entries(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_report d, last;
	struct state_digest_entry e[] = {
		{ 0, STATE_VERDICT_FIXED, FIX1 },
		{ 0, STATE_VERDICT_INVALID, NULL },
	};
	struct state_digest_entry *got;
	size_t nr;
	int64_t a, b, d1 = 0, d2 = 0;

	assert_int_equal(state_digest_last(f->st, &last, &err), 0);
	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	b = add(f->st, STATE_KIND_REPORT, "b@example.org", 0, "linus/master", HEAD_B);
	e[0].report_id = a;
	e[1].report_id = b;
	memset(&d, 0, sizeof(d));
	d.message_id = "d1@example.org";
	d.kind = STATE_KIND_DIGEST;
	d.thread_key = "digest";
	d.identity = "digest 1";
	d.subject = "digest";
	d.from_email = d.env_from = d.env_rcpt = d.to_addrs = "lab@example.org";
	d.cc_addrs = "";
	d.mail = mail;
	d.mail_len = sizeof(mail) - 1;
	d.created = T0;
	assert_int_equal(state_digest_add(f->st, &d, e, 2, &d1, &err), 0);
	assert_int_equal(state_digest_add(f->st, &d, e, 2, NULL, &err), STATE_EXISTS);
	d.message_id = "d2@example.org";
	d.parent_id = d1;
	d.in_reply_to = "d1@example.org";
	d.refs = "d1@example.org";
	assert_int_equal(state_digest_add(f->st, &d, e, 1, &d2, &err), 0);
	assert_int_equal(state_digest_last(f->st, &last, &err), 1);
	assert_int_equal(last.id, d2);
	assert_int_equal(last.parent_id, d1);
	assert_int_equal(last.thread_id, d1);	/* one thread of digests */
	assert_non_null(last.mail);
	state_report_release(&last);
	assert_int_equal(state_digest_entries(f->st, d1, &got, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(got[0].report_id, a);
	assert_int_equal(got[0].verdict, STATE_VERDICT_FIXED);
	assert_string_equal(got[0].fix_commit, FIX1);
	assert_int_equal(got[1].verdict, STATE_VERDICT_INVALID);
	assert_null(got[1].fix_commit);
	state_digest_entries_free(got, nr);
	assert_int_equal(state_digest_entries(f->st, d2, &got, &nr, &err), 0);
	assert_int_equal(nr, 1);
	state_digest_entries_free(got, nr);
	/* a digest is not a report: not tracked, no fix */
	{
		struct state_tracked_list l;

		list(f->st, &l);
		assert_int_equal(l.nr, 2);
		state_tracked_list_release(&l);
	}
	buf_release(&err);
}

static void trees_in_order_of_their_first_report(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_names trees = { 0 };
	int64_t a;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "stable/linux-6.1.y", HEAD_A);
	add(f->st, STATE_KIND_REPORT, "b@example.org", 0, "linus/master", HEAD_B);
	add(f->st, STATE_KIND_FOLLOWUP, "c@example.org", a, "linux-next/master", HEAD_A);
	add(f->st, STATE_KIND_REPORT, "d@example.org", 0, "linus/master",
	    "cccccccccccccccccccccccccccccccccccccccc");
	add(f->st, STATE_KIND_NOTICE, "n@example.org", a, NULL, NULL);
	assert_int_equal(state_report_trees(f->st, &trees, &err), 0);
	assert_int_equal(trees.nr, 3);
	assert_string_equal(trees.v[0], "stable/linux-6.1.y");
	assert_string_equal(trees.v[1], "linus/master");
	assert_string_equal(trees.v[2], "linux-next/master");
	state_names_release(&trees);
	buf_release(&err);
}

/* What track reads before its walk: of the fixes only the fixed-by ones,
 * no possible fixes, the trees of reports and follow-ups in order of
 * their first mail; state_tracked_fixes() then reads one report's whole. */
static void track_list_reads_fixes_of_one_report_later(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_tracked_list l;
	struct state_fix fix = { 0 };
	struct state_possible_fix p = { 0 };
	int64_t a, b;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	b = add(f->st, STATE_KIND_REPORT, "b@example.org", 0, "linux-next/master", HEAD_B);
	add(f->st, STATE_KIND_FOLLOWUP, "fu@example.org", b, "stable/linux-6.1.y", HEAD_B);
	add(f->st, STATE_KIND_FOLLOWUP, "fu2@example.org", a, "linux-next/master", HEAD_A);
	fix.report_id = a;
	fix.commit = FIX1;
	fix.subject = "mm: fix";
	fix.ref = fix.landed = "refs/remotes/linus/master";
	fix.kind = FIX_CLOSES;
	fix.recorded = T0;
	fix.in_repo = 1;
	assert_int_equal(state_fix_set(f->st, &fix, &err), 0);
	fix.report_id = b;
	fix.commit = "abcd";
	fix.subject = fix.ref = fix.landed = "";
	fix.kind = FIX_FIXED_BY;
	fix.in_repo = 0;
	assert_int_equal(state_fix_set(f->st, &fix, &err), 0);
	p.commit = FIX2;
	p.subject = "mm: maybe";
	p.ref = "refs/remotes/linus/master";
	p.recorded = T0;
	assert_int_equal(state_possible_fix_set(f->st, a, &p, &err), 0);

	assert_int_equal(state_tracked_list(f->st, 0, &l, &err), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.v[0].id, a);
	assert_int_equal(l.v[0].has_fix, 0);
	assert_int_equal(l.v[0].nr_possible, 0);
	assert_int_equal(l.v[0].nr_followup_ids, 1);
	assert_int_equal(l.v[1].has_fix, 1);
	assert_string_equal(l.v[1].fix.commit, "abcd");
	assert_int_equal(l.v[1].fix.kind, FIX_FIXED_BY);
	assert_int_equal(l.trees.nr, 3);
	assert_string_equal(l.trees.v[0], "linus/master");
	assert_string_equal(l.trees.v[1], "linux-next/master");
	assert_string_equal(l.trees.v[2], "stable/linux-6.1.y");

	assert_int_equal(state_tracked_fixes(f->st, &l.v[0], &err), 0);
	assert_int_equal(l.v[0].has_fix, 1);
	assert_string_equal(l.v[0].fix.commit, FIX1);
	assert_string_equal(l.v[0].fix.landed, "refs/remotes/linus/master");
	assert_int_equal(l.v[0].fix.kind, FIX_CLOSES);
	assert_int_equal(l.v[0].nr_possible, 1);
	assert_string_equal(l.v[0].possible[0].commit, FIX2);
	/* read again: replaced, not added to */
	assert_int_equal(state_tracked_fixes(f->st, &l.v[0], &err), 0);
	assert_int_equal(l.v[0].nr_possible, 1);
	assert_int_equal(state_tracked_fixes(f->st, &l.v[1], &err), 0);
	assert_string_equal(l.v[1].fix.commit, "abcd");
	assert_int_equal(l.v[1].nr_possible, 0);
	state_tracked_list_release(&l);
	buf_release(&err);
}

/* The newest activity of each report (not its outbox) is what the
 * known_messages view says, written out in the query that lists the
 * reports: a reply, a follow-up or notice sent (a redirected one not), a
 * follow-up also ingested as a message (its message row counts, not its
 * report row), an unsent report (none). */
static void last_activity_is_the_views(void **state)
{
	struct fixture *f = *state;
	struct buf path = BUF_INIT;
	struct state_tracked_list l;
	sqlite3 *db;
	int64_t a, b, c, d, e;
	size_t i;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	b = add(f->st, STATE_KIND_REPORT, "b@example.org", 0, "linus/master", HEAD_B);
	c = add(f->st, STATE_KIND_REPORT, "c@example.org", 0, "linux-next/master", HEAD_A);
	d = add(f->st, STATE_KIND_REPORT, "d@example.org", 0, "linux-next/master", HEAD_B);
	e = add(f->st, STATE_KIND_REPORT, "e@example.org", 0, "linus/master", HEAD_B);
	add(f->st, STATE_KIND_FOLLOWUP, "b1@example.org", b, "linus/master", HEAD_B);
	add(f->st, STATE_KIND_FOLLOWUP, "b2@example.org", b, "linus/master", HEAD_B);
	add(f->st, STATE_KIND_FOLLOWUP, "c1@example.org", c, "linux-next/master", HEAD_A);
	add(f->st, STATE_KIND_FOLLOWUP, "d1@example.org", d, "linux-next/master", HEAD_B);
	add(f->st, STATE_KIND_NOTICE, "e1@example.org", e, NULL, NULL);
	buf_addf(&path, "%s/state.db", f->state);
	assert_int_equal(sqlite3_open(path.data, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
		"UPDATE reports SET sent = created, status = 'sent' WHERE message_id <> 'a@example.org' "
		"AND message_id <> 'b2@example.org';"
		"UPDATE reports SET created = created + 100 WHERE message_id = 'b1@example.org';"
		"UPDATE reports SET created = created + 200 WHERE message_id = 'b2@example.org';"
		"UPDATE reports SET created = created + 300 WHERE message_id = 'c1@example.org';"
		"UPDATE reports SET created = created + 400, redirected_to = 'x@example.org' "
		"WHERE message_id = 'd1@example.org';"
		"UPDATE reports SET created = created + 500 WHERE message_id = 'e1@example.org';"
		"INSERT INTO messages (message_id, report_id, date, origin) "
		"SELECT 'c1@example.org', thread_id, created - 250, 'sent' FROM reports "
		"WHERE message_id = 'c1@example.org';"
		"INSERT INTO messages (message_id, report_id, date, origin) "
		"SELECT 'reply@example.org', id, created + 50, 'ingested' FROM reports "
		"WHERE message_id = 'b@example.org';",
		NULL, NULL, NULL), SQLITE_OK);
	list(f->st, &l);
	assert_int_equal(l.nr, 5);
	for (i = 0; i < l.nr; i++) {
		sqlite3_stmt *q;
		int64_t want;

		assert_int_equal(sqlite3_prepare_v2(db, "SELECT MAX(k.date) FROM known_messages k "
			"WHERE k.report_id = ? AND k.origin <> 'outbox'", -1, &q, NULL), SQLITE_OK);
		sqlite3_bind_int64(q, 1, l.v[i].id);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		want = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
		assert_int_equal(l.v[i].last_activity, want);
	}
	/* the cases, by hand */
	assert_int_equal(l.v[0].id, a);
	assert_int_equal(l.v[0].last_activity, 0);
	assert_int_equal(l.v[1].id, b);
	assert_int_equal(l.v[1].last_activity, T0 + 100);
	assert_int_equal(l.v[2].id, c);
	assert_int_equal(l.v[2].last_activity, T0 + 50);
	assert_int_equal(l.v[3].id, d);
	assert_int_equal(l.v[3].last_activity, T0);
	assert_int_equal(l.v[4].id, e);
	assert_int_equal(l.v[4].last_activity, T0 + 500);
	sqlite3_close(db);
	state_tracked_list_release(&l);
	buf_release(&path);
}

static void same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* One report's, read by its key (what the site reads after a reply), is
 * what the list of every report has for it: follow-ups, fix, possible
 * and posted fixes, in their order. */
static void one_report_reads_as_in_the_list(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct state_tracked_list all;
	struct state_fix fix = { 0 };
	struct state_possible_fix p = { 0 };
	int64_t a, b, c;
	size_t i, j;

	a = add(f->st, STATE_KIND_REPORT, "a@example.org", 0, "linus/master", HEAD_A);
	b = add(f->st, STATE_KIND_REPORT, "b@example.org", 0, "next/master", HEAD_B);
	c = add(f->st, STATE_KIND_REPORT, "c@example.org", 0, "linus/master", NULL);
	add(f->st, STATE_KIND_FOLLOWUP, "fb2@example.org", b, "next/master", HEAD_B);
	add(f->st, STATE_KIND_FOLLOWUP, "fb1@example.org", b, "next/master", HEAD_B);
	add(f->st, STATE_KIND_FOLLOWUP, "fa@example.org", a, "linus/master", HEAD_A);
	fix.report_id = b;
	fix.commit = FIX1;
	fix.subject = "mm: fix it";
	fix.ref = "refs/remotes/next/master";
	fix.kind = FIX_CLOSES;
	fix.recorded = T0;
	assert_int_equal(state_fix_set(f->st, &fix, &err), 0);
	p.commit = FIX2;
	p.subject = "mm: maybe";
	p.ref = "refs/remotes/linus/master";
	p.recorded = T0 + 20;
	assert_int_equal(state_possible_fix_set(f->st, a, &p, &err), 0);
	p.commit = FIX1;
	p.recorded = T0 + 10;
	assert_int_equal(state_possible_fix_set(f->st, a, &p, &err), 0);
	assert_int_equal(state_possible_fix_set(f->st, c, &p, &err), 0);
	posted(f->st, b, "v2@example.org", "mm: fix it", 2, T0 + 20, FIX_LINK, 0);
	posted(f->st, b, "v1@example.org", "mm: fix it", 1, T0 + 10, FIX_CLOSES, 0);
	posted(f->st, a, "x@example.org", "mm: x", 1, T0 + 5, FIX_FIXES, 0);

	list(f->st, &all);
	assert_int_equal(all.nr, 3);
	for (i = 0; i < all.nr; i++) {
		const struct state_tracked *w = &all.v[i];
		struct state_tracked_list one = { 0 };
		const struct state_tracked *g;

		assert_int_equal(state_begin_read(f->st, &err), 0);
		assert_int_equal(state_tracked_list_of(f->st, w->id, &one, &err), 0);
		state_rollback(f->st);
		assert_int_equal(one.nr, 1);
		g = &one.v[0];
		assert_int_equal(g->id, w->id);
		same_str(g->message_id, w->message_id);
		same_str(g->subject, w->subject);
		same_str(g->tree, w->tree);
		same_str(g->head, w->head);
		assert_int_equal(g->status, w->status);
		assert_int_equal(g->verdict, w->verdict);
		assert_int_equal(g->created, w->created);
		assert_int_equal(g->sent, w->sent);
		assert_int_equal(g->replies, w->replies);
		assert_int_equal(g->last_activity, w->last_activity);
		assert_int_equal(g->nr_followup_ids, w->nr_followup_ids);
		for (j = 0; j < w->nr_followup_ids; j++)
			assert_string_equal(g->followup_ids[j], w->followup_ids[j]);
		assert_int_equal(g->has_fix, w->has_fix);
		if (w->has_fix) {
			assert_string_equal(g->fix.commit, w->fix.commit);
			assert_int_equal(g->fix.kind, w->fix.kind);
			same_str(g->fix.posted, w->fix.posted);
		}
		assert_int_equal(g->nr_possible, w->nr_possible);
		for (j = 0; j < w->nr_possible; j++) {
			assert_string_equal(g->possible[j].commit, w->possible[j].commit);
			assert_int_equal(g->possible[j].recorded, w->possible[j].recorded);
		}
		assert_int_equal(g->nr_posted, w->nr_posted);
		for (j = 0; j < w->nr_posted; j++) {
			assert_string_equal(g->posted[j].message_id, w->posted[j].message_id);
			assert_int_equal(g->posted[j].latest, w->posted[j].latest);
		}
		state_tracked_list_release(&one);
	}
	/* and what was put in is there: b's follow-ups in their order, a's
	 * possible fixes in theirs, b's fix linked to its latest posting */
	assert_int_equal(all.v[1].nr_followup_ids, 2);
	assert_string_equal(all.v[1].followup_ids[0], "fb2@example.org");
	assert_string_equal(all.v[0].possible[0].commit, FIX1);
	assert_string_equal(all.v[0].possible[1].commit, FIX2);
	assert_string_equal(all.v[1].fix.posted, "v2@example.org");
	assert_int_equal(all.v[1].nr_posted, 2);
	assert_string_equal(all.v[1].posted[0].message_id, "v1@example.org");
	state_tracked_list_release(&all);
	buf_release(&err);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(migration_fills_trees_and_takes_the_new_kinds),
		T(new_kinds_keep_the_parent_rules),
		T(fixes_are_set_replaced_and_set_aside),
		T(posted_fixes_once_latest_and_linked),
		T(migration_to_posted_keeps_fixes),
		T(cursors_round_trip),
		T(one_notice_per_report_and_fix),
		T(digests_chain_and_keep_their_entries),
		T(trees_in_order_of_their_first_report),
		T(track_list_reads_fixes_of_one_report_later),
		T(last_activity_is_the_views),
		T(one_report_reads_as_in_the_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
