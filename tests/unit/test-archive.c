#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <git2.h>

#include "archive.h"
#include "buf.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NAME "perfbot"
#define ADDRESS "archive@example.org"
#define NOW 1700000000

/*
 * A report, a reply to it (with CRLF line ends, as IMAP delivers it) and
 * a reply to the reply without Date: or Subject:.  The commit ids are
 * what public-inbox 1.9's own writer (PublicInbox::Import, v2 layout,
 * committer "perfbot <archive@example.org>", time() fixed at NOW) made
 * of the same three messages: byte-identical commits.
 */
static const char msg1[] =
	"From: Kernel Test Robot <lkp@example.org>\n"
	"Date: Mon, 9 Mar 2026 13:50:58 +0800\n"
	"Subject: [linux-next:master] [mm] abcdef0123: will-it-scale.per_thread_ops -12.3% regression\n"
	"Message-ID: <202603091350.abcdef01-lkp@example.org>\n"
	"\n"
	"Hello,\n";
static const char msg2_crlf[] =
	"Received: from mail.example.org by mx.example.org; Mon, 9 Mar 2026 09:00:00 +0100\r\n"
	"From: =?UTF-8?Q?J=C3=B6rg_R=C3=B6del?= <joerg@example.de>\r\n"
	"Date: Mon, 9 Mar 2026 08:58:00 +0100\r\n"
	"Subject: Re: [linux-next:master] [mm] abcdef0123: will-it-scale.per_thread_ops\r\n"
	" -12.3% regression\r\n"
	"Message-ID: <reply1@example.de>\r\n"
	"In-Reply-To: <202603091350.abcdef01-lkp@example.org>\r\n"
	"References: <202603091350.abcdef01-lkp@example.org>\r\n"
	"\r\n"
	"> Hello,\r\n"
	"\r\n"
	"Thanks.\r\n";
static const char msg2_lf[] =
	"Received: from mail.example.org by mx.example.org; Mon, 9 Mar 2026 09:00:00 +0100\n"
	"From: =?UTF-8?Q?J=C3=B6rg_R=C3=B6del?= <joerg@example.de>\n"
	"Date: Mon, 9 Mar 2026 08:58:00 +0100\n"
	"Subject: Re: [linux-next:master] [mm] abcdef0123: will-it-scale.per_thread_ops\n"
	" -12.3% regression\n"
	"Message-ID: <reply1@example.de>\n"
	"In-Reply-To: <202603091350.abcdef01-lkp@example.org>\n"
	"References: <202603091350.abcdef01-lkp@example.org>\n"
	"\n"
	"> Hello,\n"
	"\n"
	"Thanks.\n";
static const char msg3[] =
	"From: maint@example.com\n"
	"Message-ID: <reply2@example.com>\n"
	"In-Reply-To: <reply1@example.de>\n"
	"\n"
	"body\n";

static const struct {
	const char *raw, *lf, *commit;
	const char *author, *committer, *message;
} three[] = {
	{ msg1, msg1, "e06c7b5800270a5d2467826ad8adb41c51513585",
	  "Kernel Test Robot <lkp@example.org> 1773035458 +0800",
	  NAME " <" ADDRESS "> 1773035458 +0800",
	  "[linux-next:master] [mm] abcdef0123: will-it-scale.per_thread_ops -12.3% regression\n" },
	{ msg2_crlf, msg2_lf, "85831c6296b6a946443f513a443861e508571115",
	  "J\xc3\xb6rg R\xc3\xb6" "del <joerg@example.de> 1773043080 +0100",
	  NAME " <" ADDRESS "> 1773043200 +0100",
	  "Re: [linux-next:master] [mm] abcdef0123: will-it-scale.per_thread_ops -12.3% regression\n" },
	{ msg3, msg3, "5fe6a83f4d21037a1cf2543df8f44e4e7c7303ae",
	  "maint <maint@example.com> 1700000000 +0000",
	  NAME " <" ADDRESS "> 1700000000 +0000",
	  "(no subject)\n" },
};

/* ---- helpers ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* A fresh directory holding the inbox at <dir>/inbox. */
struct fixture {
	char dir[64];
	char inbox[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test-archive-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->inbox, sizeof(f->inbox), "%s/inbox", f->dir);
	git_libgit2_init();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	git_libgit2_shutdown();
	return 0;
}

static struct archive *open_ok(const char *inbox, const struct archive_options *opts)
{
	struct buf err = BUF_INIT;
	struct archive *a = NULL;

	if (archive_open_opts(inbox, NAME, ADDRESS, opts, &a, &err))
		fail_msg("archive_open: %s", err.data);
	buf_release(&err);
	return a;
}

static void add_ok(struct archive *a, const char *raw, size_t len, char blob[41], char commit[41])
{
	struct buf err = BUF_INIT;
	char b[41], c[41];

	if (archive_add(a, raw, len, NOW, blob ? blob : b, commit ? commit : c, &err))
		fail_msg("archive_add: %s", err.data);
	buf_release(&err);
}

static void commit_ok(struct archive *a)
{
	struct buf err = BUF_INIT;

	if (archive_commit(a, &err))
		fail_msg("archive_commit: %s", err.data);
	buf_release(&err);
}

static git_repository *epoch_repo(const char *inbox, unsigned n)
{
	char path[160];
	git_repository *r = NULL;

	snprintf(path, sizeof(path), "%s/git/%u.git", inbox, n);
	if (git_repository_open_bare(&r, path))
		fail_msg("cannot open %s: %s", path, git_error_last()->message);
	return r;
}

/* master of an epoch in hex, "" when it has none. */
static void master_hex(const char *inbox, unsigned n, char hex[41])
{
	git_repository *r = epoch_repo(inbox, n);
	git_oid id;

	if (git_reference_name_to_id(&id, r, "refs/heads/master"))
		hex[0] = '\0';
	else
		git_oid_tostr(hex, 41, &id);
	git_repository_free(r);
}

/* The commit object's text. */
static void commit_text(git_repository *r, const char *hex, struct buf *out)
{
	git_odb *odb;
	git_odb_object *o;
	git_oid id;

	assert_int_equal(git_oid_fromstr(&id, hex), 0);
	assert_int_equal(git_repository_odb(&odb, r), 0);
	if (git_odb_read(&o, odb, &id))
		fail_msg("no object %s", hex);
	assert_int_equal(git_odb_object_type(o), GIT_OBJECT_COMMIT);
	buf_add(out, git_odb_object_data(o), git_odb_object_size(o));
	git_odb_object_free(o);
	git_odb_free(odb);
}

/* The value of the line "<key> ..." in a commit's text. */
static void commit_line(const char *text, const char *key, struct buf *out)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p && *p != '\n') {
		const char *eol = strchr(p, '\n');

		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			buf_add(out, p + kl + 1, (size_t)(eol - p - kl - 1));
			return;
		}
		p = eol ? eol + 1 : NULL;
	}
}

static int count_commits(const char *inbox, unsigned n)
{
	git_repository *r = epoch_repo(inbox, n);
	git_revwalk *w;
	git_oid id;
	int count = 0;

	if (!git_revwalk_new(&w, r) && !git_revwalk_push_ref(w, "refs/heads/master"))
		while (!git_revwalk_next(&id, w))
			count++;
	git_revwalk_free(w);
	git_repository_free(r);
	return count;
}

static int exists(const char *inbox, const char *rel)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", inbox, rel);
	return !stat(path, &st);
}

/* ---- three messages: layout, history, trees, blobs, metadata ---- */

static void three_messages(void **state)
{
	struct fixture *f = *state;
	struct archive *a = open_ok(f->inbox, NULL);
	char blob[N(three)][41], commit[N(three)][41], hex[41];
	git_repository *r;
	struct buf err = BUF_INIT;
	size_t i;

	assert_true(exists(f->inbox, "inbox.lock"));
	assert_true(exists(f->inbox, "git/0.git/HEAD"));
	assert_true(exists(f->inbox, "git/0.git/config"));
	for (i = 0; i < N(three); i++)
		add_ok(a, three[i].raw, strlen(three[i].raw), blob[i], commit[i]);
	/* objects are written, master has not moved */
	master_hex(f->inbox, 0, hex);
	assert_string_equal(hex, "");
	assert_int_equal(archive_tip(a, hex, &err), 0);
	assert_string_equal(hex, "");
	commit_ok(a);
	master_hex(f->inbox, 0, hex);
	assert_string_equal(hex, commit[N(three) - 1]);
	assert_int_equal(archive_tip(a, hex, &err), 0);
	assert_string_equal(hex, commit[N(three) - 1]);
	archive_close(a);

	r = epoch_repo(f->inbox, 0);
	for (i = 0; i < N(three); i++) {
		git_commit *c;
		git_tree *t;
		const git_tree_entry *e;
		git_blob *b;
		git_oid id;
		struct buf text = BUF_INIT, line = BUF_INIT;

		/* byte-identical to public-inbox's commit */
		assert_string_equal(commit[i], three[i].commit);
		git_oid_fromstr(&id, commit[i]);
		assert_int_equal(git_commit_lookup(&c, r, &id), 0);
		/* linear: the first commit has no parent, the others the one before */
		assert_int_equal(git_commit_parentcount(c), i ? 1 : 0);
		if (i) {
			git_oid_tostr(hex, sizeof(hex), git_commit_parent_id(c, 0));
			assert_string_equal(hex, commit[i - 1]);
		}
		/* the tree holds exactly m, a regular file, the message with LF */
		assert_int_equal(git_commit_tree(&t, c), 0);
		assert_int_equal(git_tree_entrycount(t), 1);
		e = git_tree_entry_byindex(t, 0);
		assert_string_equal(git_tree_entry_name(e), "m");
		assert_int_equal(git_tree_entry_filemode(e), GIT_FILEMODE_BLOB);
		git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e));
		assert_string_equal(hex, blob[i]);
		assert_int_equal(git_blob_lookup(&b, r, git_tree_entry_id(e)), 0);
		assert_int_equal(git_blob_rawsize(b), strlen(three[i].lf));
		assert_memory_equal(git_blob_rawcontent(b), three[i].lf, strlen(three[i].lf));

		commit_text(r, commit[i], &text);
		commit_line(text.data, "author", &line);
		assert_string_equal(line.data, three[i].author);
		buf_reset(&line);
		commit_line(text.data, "committer", &line);
		assert_string_equal(line.data, three[i].committer);
		assert_string_equal(strstr(text.data, "\n\n") + 2, three[i].message);
		buf_release(&text);
		buf_release(&line);
		git_blob_free(b);
		git_tree_free(t);
		git_commit_free(c);
	}
	git_repository_free(r);
	buf_release(&err);
}

/* The same bytes with CRLF and with LF give the same blob. */
static void crlf_same_blob(void **state)
{
	struct fixture *f = *state;
	struct archive *a = open_ok(f->inbox, NULL);
	char b1[41], b2[41], c1[41], c2[41];

	add_ok(a, msg2_crlf, strlen(msg2_crlf), b1, c1);
	add_ok(a, msg2_lf, strlen(msg2_lf), b2, c2);
	assert_string_equal(b1, b2);
	/* a lone CR is not a line end and stays */
	add_ok(a, "Subject: a\r\rb\n\nx\r", 17, b1, c1);
	assert_string_not_equal(b1, b2);
	archive_close(a);
}

/* Two archives of the same messages with the same now are identical. */
static void reproducible(void **state)
{
	struct fixture *f = *state;
	char other[128], c1[41], c2[41];
	struct archive *a, *b;
	size_t i;

	snprintf(other, sizeof(other), "%s/other", f->dir);
	a = open_ok(f->inbox, NULL);
	b = open_ok(other, NULL);
	for (i = 0; i < N(three); i++) {
		add_ok(a, three[i].raw, strlen(three[i].raw), NULL, c1);
		add_ok(b, three[i].lf, strlen(three[i].lf), NULL, c2);
		assert_string_equal(c1, c2);
	}
	archive_close(a);
	archive_close(b);
}

static const char tab_nul[] =
	"From: Foo <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +0100\nSubject: tab\there and nul \0 here\n\nbody\n";

/* ---- commit metadata, case by case ----
 * Expected values are what public-inbox 1.9 (PublicInbox::Import) wrote for
 * the same mail, except where marked: there it writes an empty name or
 * address (with a warning), which git fsck and libgit2 refuse. */
static const struct {
	const char *what, *raw;
	size_t len;		/* 0: strlen(raw) */
	const char *author, *committer, *message;
} meta[] = {
	{ "display name, negative zone",
	  "From: Foo Bar <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 -0400\nSubject: plain\n\nbody\n", 0,
	  "Foo Bar <foo@example.org> 1600362732 -0400", "1600362732 -0400", "plain\n" },
	{ "no Date: or Received: takes now at +0000",
	  "From: foo@example.org\nSubject: no date\n\nbody\n", 0,
	  "foo <foo@example.org> 1700000000 +0000", "1700000000 +0000", "no date\n" },
	{ "no From: (perfbot: unknown)",
	  "Subject: no from\nDate: Thu, 17 Sep 2020 13:12:12 +0530\n\nbody\n", 0,
	  "unknown <unknown@unknown> 1600328532 +0530", "1600328532 +0530", "no from\n" },
	{ "+1400 is written +0000, no Subject:",
	  "From: Foo <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +1400\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600297932 +0000", "1600297932 +0000", "(no subject)\n" },
	{ "-1400 is written +0000, empty Subject:",
	  "From: Foo <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 -1400\nSubject: \n\nbody\n", 0,
	  "Foo <foo@example.org> 1600398732 +0000", "1600398732 +0000", "(no subject)\n" },
	{ "+1359 stays", "From: Foo <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +1359\nSubject: 1359\n\nbody", 0,
	  "Foo <foo@example.org> 1600297992 +1359", "1600297992 +1359", "1359\n" },
	{ "+2000 is written +0000",
	  "From: \"Bar, Foo\" <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +2000\nSubject: zone 2000\n\nbody\n", 0,
	  "Bar, Foo <foo@example.org> 1600276332 +0000", "1600276332 +0000", "zone 2000\n" },
	{ "+0545", "From: Foo <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +0545\nSubject: odd zone\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600327632 +0545", "1600327632 +0545", "odd zone\n" },
	{ "-0000", "From: Foo <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 -0000\nSubject: minus zero\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600348332 +0000", "1600348332 +0000", "minus zero\n" },
	{ "RFC 2047 name and folded, split subject",
	  "From: =?UTF-8?Q?J=C3=B6rg?= <j@example.de>\nSubject: =?UTF-8?B?w4Z2YXIgdGVzdA==?=\n =?UTF-8?Q?_more?=\n"
	  "Date: Thu, 17 Sep 2020 13:12:12 +0000\n\nbody\n", 0,
	  "J\xc3\xb6rg <j@example.de> 1600348332 +0000", "1600348332 +0000", "\xc3\x86var test more\n" },
	{ "Latin-1 and UTF-8 encoded-words",
	  "From: Foo <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +0100\n"
	  "Subject: =?ISO-8859-1?Q?caf=E9?= =?utf-8?q?_ok?=\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600344732 +0100", "1600344732 +0100", "caf\xc3\xa9 ok\n" },
	{ "folding: the break and the blanks after it become one space",
	  "From: Foo <foo@example.org>\nSubject: folded\n\t   subject  line \nDate: Thu, 17 Sep 2020 13:12:12 +0100\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600344732 +0100", "1600344732 +0100", "folded subject  line\n" },
	{ "raw 8-bit Latin-1 is read as Latin-1",
	  "From: Foo\xe9 <foo@example.org>\nSubject: latin1 \xe9t\xe9\nDate: Thu, 17 Sep 2020 13:12:12 +0100\n\nbody\n", 0,
	  "Foo\xc3\xa9 <foo@example.org> 1600344732 +0100", "1600344732 +0100", "latin1 \xc3\xa9t\xc3\xa9\n" },
	{ "committer time from the first Received:",
	  "Received: from x by y; Fri, 18 Sep 2020 01:02:03 +0900 (JST)\n"
	  "Received: from a by b; Fri, 18 Sep 2020 00:00:00 +0000\n"
	  "From: Foo <foo@example.org>\nSubject: received\nDate: Thu, 17 Sep 2020 13:12:12 +0100\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600344732 +0100", "1600358523 +0900", "received\n" },
	{ "a Received: date needs a numeric zone",
	  "Received: from x by y; Fri, 18 Sep 2020 01:02:03 GMT\n"
	  "Received: from a by b; Fri, 18 Sep 2020 00:00:00 -0700\n"
	  "From: Foo <foo@example.org>\nSubject: received no numeric zone\nDate: Thu, 17 Sep 2020 13:12:12 +0100\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600344732 +0100", "1600412400 -0700", "received no numeric zone\n" },
	{ "an unreadable Received: and no Date:",
	  "Received: garbage\nFrom: Foo <foo@example.org>\nSubject: only received\n\nbody\n", 0,
	  "Foo <foo@example.org> 1700000000 +0000", "1700000000 +0000", "only received\n" },
	{ "no Date: takes Received: for the author too",
	  "Received: from a by b; Fri, 18 Sep 2020 00:00:00 -0700\nFrom: Foo <foo@example.org>\nSubject: only received date\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600412400 -0700", "1600412400 -0700", "only received date\n" },
	{ "the first Subject: counts",
	  "From: Foo <foo@example.org>\nSubject: first\nSubject: second\nDate: Thu, 17 Sep 2020 13:12:12 +0100\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600344732 +0100", "1600344732 +0100", "first\n" },
	{ "the first readable Date: counts",
	  "From: Foo <foo@example.org>\nDate: garbage\nDate: Thu, 17 Sep 2020 13:12:12 +0100\nSubject: second date\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600344732 +0100", "1600344732 +0100", "second date\n" },
	{ "addr (Comment)",
	  "From: foo@example.org (Foo Comment)\nDate: Thu, 17 Sep 2020 13:12:12 +0100\nSubject: comment\n\nbody\n", 0,
	  "Foo Comment <foo@example.org> 1600344732 +0100", "1600344732 +0100", "comment\n" },
	{ "empty From: takes Sender: (perfbot: its name too)",
	  "From: <>\nSender: Real Sender <sender@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +0100\nSubject: sender\n\nbody\n", 0,
	  "Real Sender <sender@example.org> 1600344732 +0100", "1600344732 +0100", "sender\n" },
	{ "dates before 1970 are not read",
	  "From: Foo <foo@example.org>\nDate: Thu, 17 Sep 1960 13:12:12 +0100\nSubject: 1960\n\nbody\n", 0,
	  "Foo <foo@example.org> 1700000000 +0000", "1700000000 +0000", "1960\n" },
	{ "field names in any case",
	  "from: Lower Case <lc@example.org>\nDATE: Thu, 17 Sep 2020 13:12:12 +0100\nsubject: lower case names\n\nbody\n", 0,
	  "Lower Case <lc@example.org> 1600344732 +0100", "1600344732 +0100", "lower case names\n" },
	{ "TAB and NUL become spaces",
	  tab_nul, sizeof(tab_nul) - 1,
	  "Foo <foo@example.org> 1600344732 +0100", "1600344732 +0100", "tab here and nul   here\n" },
	{ "obsolete date forms",
	  "From: Foo <foo@example.org>\nDate: 17 Sep 20 13:12 +0100\nSubject: x\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600344720 +0100", "1600344720 +0100", "x\n" },
	{ "group syntax",
	  "From: Team: Foo <foo@example.org>;\nDate: Thu, 17 Sep 2020 13:12:12 +0100\nSubject: group\n\nbody\n", 0,
	  "Foo <foo@example.org> 1600344732 +0100", "1600344732 +0100", "group\n" },
	{ "angle brackets leave names, stay in subjects",
	  "From: \"'A U Thor <u@example.com>' via foo\" <foo@example.com>\nDate: Thu, 17 Sep 2020 13:12:12 +0100\n"
	  "Subject: Re: [PATCH] x <y>\n\nbody\n", 0,
	  "'A U Thor u@example.com' via foo <foo@example.com> 1600344732 +0100", "1600344732 +0100",
	  "Re: [PATCH] x <y>\n" },
	{ "a body without a header (perfbot: unknown)", "body only, no header at all\n", 0,
	  "unknown <unknown@unknown> 1700000000 +0000", "1700000000 +0000", "(no subject)\n" },
	{ "\"addr\" <addr> names no one",
	  "From: \"foo@example.org\" <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +0100\nSubject: s\n\nbody\n", 0,
	  "foo <foo@example.org> 1600344732 +0100", "1600344732 +0100", "s\n" },
	{ "unquoted words are joined by one space",
	  "From: Foo   Bar (c)  <foo@example.org>\nDate: Thu, 17 Sep 2020 13:12:12 +0100\nSubject: s\n\nbody\n", 0,
	  "Foo Bar <foo@example.org> 1600344732 +0100", "1600344732 +0100", "s\n" },
};

static void metadata(void **state)
{
	struct fixture *f = *state;
	struct archive *a = open_ok(f->inbox, NULL);
	char commit[N(meta)][41];
	git_repository *r;
	size_t i;

	for (i = 0; i < N(meta); i++)
		add_ok(a, meta[i].raw, meta[i].len ? meta[i].len : strlen(meta[i].raw), NULL, commit[i]);
	commit_ok(a);
	archive_close(a);
	r = epoch_repo(f->inbox, 0);
	for (i = 0; i < N(meta); i++) {
		struct buf text = BUF_INIT, line = BUF_INIT, want = BUF_INIT;
		const char *msg;

		commit_text(r, commit[i], &text);
		commit_line(text.data, "author", &line);
		if (strcmp(line.data, meta[i].author))
			fail_msg("%s: author \"%s\", want \"%s\"", meta[i].what, line.data, meta[i].author);
		buf_reset(&line);
		commit_line(text.data, "committer", &line);
		buf_addf(&want, NAME " <" ADDRESS "> %s", meta[i].committer);
		if (strcmp(line.data, want.data))
			fail_msg("%s: committer \"%s\", want \"%s\"", meta[i].what, line.data, want.data);
		msg = strstr(text.data, "\n\n") + 2;
		if (strcmp(msg, meta[i].message))
			fail_msg("%s: message \"%s\", want \"%s\"", meta[i].what, msg, meta[i].message);
		buf_release(&text);
		buf_release(&line);
		buf_release(&want);
	}
	git_repository_free(r);
}

/* ---- refused messages ---- */

static void refused(void **state)
{
	struct fixture *f = *state;
	struct archive *a = open_ok(f->inbox, NULL);
	struct buf big = BUF_INIT, err = BUF_INIT;
	char blob[41], commit[41], tip[41];
	size_t i;
	static const struct {
		const char *what;
		size_t line_len, lines;
		const char *want;
	} cases[] = {
		{ "a long line", ARCHIVE_HEADER_LINE_MAX + 1, 1, "header line 1 is longer than" },
		{ "the longest line", ARCHIVE_HEADER_LINE_MAX, 1, NULL },
		{ "too many lines", 10, ARCHIVE_HEADER_LINES_MAX + 1, "more than" },
		{ "as many lines as allowed", 10, ARCHIVE_HEADER_LINES_MAX, NULL },
		{ "a long header", ARCHIVE_HEADER_LINE_MAX, ARCHIVE_HEADER_MAX / ARCHIVE_HEADER_LINE_MAX + 1,
		  "the header is longer than" },
	};

	add_ok(a, msg1, strlen(msg1), NULL, NULL);
	commit_ok(a);
	master_hex(f->inbox, 0, tip);
	for (i = 0; i < N(cases); i++) {
		size_t l;
		int rc;

		buf_reset(&big);
		buf_reset(&err);
		for (l = 0; l < cases[i].lines; l++) {
			buf_adds(&big, "X-Filler: ");
			buf_addchars(&big, 'x', cases[i].line_len - 10);
			buf_addc(&big, '\n');
		}
		buf_adds(&big, "\nbody\n");
		rc = archive_add(a, big.data, big.len, NOW, blob, commit, &err);
		if (!cases[i].want) {
			if (rc)
				fail_msg("%s: %s", cases[i].what, err.data);
			continue;
		}
		if (rc != -1 || !strstr(err.data, cases[i].want))
			fail_msg("%s: rc %d, message \"%s\"", cases[i].what, rc, err.data);
	}
	buf_reset(&err);
	assert_int_equal(archive_add(a, "", 0, NOW, blob, commit, &err), -1);
	assert_non_null(strstr(err.data, "empty"));
	buf_reset(&big);
	buf_addchars(&big, '\n', ARCHIVE_MESSAGE_MAX + 1);
	buf_reset(&err);
	assert_int_equal(archive_add(a, big.data, big.len, NOW, blob, commit, &err), -1);
	assert_non_null(strstr(err.data, "larger than"));
	archive_close(a);
	/* the accepted ones were not committed, the refused ones not written */
	master_hex(f->inbox, 0, blob);
	assert_string_equal(blob, tip);
	buf_release(&big);
	buf_release(&err);
}

static void bad_identity(void **state)
{
	struct fixture *f = *state;
	static const struct { const char *name, *address, *want; } cases[] = {
		{ "", ADDRESS, "name is empty" },
		{ NAME, "", "address is empty" },
		{ "a <b>", ADDRESS, "may not hold" },
		{ NAME, "a@b\nBcc: c@d", "may not hold" },
	};
	size_t i;

	for (i = 0; i < N(cases); i++) {
		struct buf err = BUF_INIT;
		struct archive *a = NULL;

		assert_int_equal(archive_open(f->inbox, cases[i].name, cases[i].address, &a, &err), -1);
		assert_null(a);
		if (!strstr(err.data, cases[i].want))
			fail_msg("%zu: \"%s\"", i, err.data);
		buf_release(&err);
	}
	assert_false(exists(f->inbox, "inbox.lock"));
}

/* ---- crash safety and the lock ---- */

static void crash_before_commit(void **state)
{
	static const char *const leftovers[] = {
		"refs/heads/master.lock",
		"objects/pack/pack_git2_0123456789abcdef",
		"objects/pack/pack-0123456789012345678901234567890123456789.idx",
		"objects/pack/pack-0123456789012345678901234567890123456789.idx.lock",
	};
	struct fixture *f = *state;
	struct archive *a = open_ok(f->inbox, NULL);
	char c1[41], c2[41], c3[41], hex[41], lock[160];
	git_repository *r;
	git_commit *c;
	git_oid id;
	FILE *fp;
	size_t i;

	add_ok(a, msg1, strlen(msg1), NULL, c1);
	commit_ok(a);
	add_ok(a, msg2_lf, strlen(msg2_lf), NULL, c2);
	archive_close(a);	/* as if killed before archive_commit() */
	master_hex(f->inbox, 0, hex);
	assert_string_equal(hex, c1);

	/* a writer killed while moving the ref leaves master.lock behind, one
	 * killed while writing a pack its temporary files */
	for (i = 0; i < N(leftovers); i++) {
		snprintf(lock, sizeof(lock), "%s/git/0.git/%s", f->inbox, leftovers[i]);
		fp = fopen(lock, "w");
		assert_non_null(fp);
		fputs("x", fp);
		fclose(fp);
	}

	a = open_ok(f->inbox, NULL);
	for (i = 0; i < N(leftovers); i++) {
		snprintf(lock, sizeof(lock), "git/0.git/%s", leftovers[i]);
		if (exists(f->inbox, lock))
			fail_msg("%s is still there", leftovers[i]);
	}
	add_ok(a, msg3, strlen(msg3), NULL, c3);
	commit_ok(a);
	archive_close(a);
	master_hex(f->inbox, 0, hex);
	assert_string_equal(hex, c3);
	/* the next commit continues from master, not from the lost one */
	r = epoch_repo(f->inbox, 0);
	git_oid_fromstr(&id, c3);
	assert_int_equal(git_commit_lookup(&c, r, &id), 0);
	git_oid_tostr(hex, sizeof(hex), git_commit_parent_id(c, 0));
	assert_string_equal(hex, c1);
	git_commit_free(c);
	git_repository_free(r);
	assert_int_equal(count_commits(f->inbox, 0), 2);
}

static void lock_refuses_second_writer(void **state)
{
	struct fixture *f = *state;
	struct archive_options opts = { 200, ARCHIVE_EPOCH_MAX };
	struct archive *a = open_ok(f->inbox, NULL), *b = NULL;
	struct buf err = BUF_INIT;
	struct timespec t0, t1;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(archive_open_opts(f->inbox, NAME, ADDRESS, &opts, &b, &err), ARCHIVE_BUSY);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_null(b);
	assert_non_null(strstr(err.data, "inbox.lock is held by another writer (perfbot or public-inbox)"));
	{
		char pid[32];

		snprintf(pid, sizeof(pid), "(pid %ld)", (long)getpid());
		assert_non_null(strstr(err.data, pid));
	}
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 200 && ms < 2000);
	archive_close(a);
	/* released on close */
	b = open_ok(f->inbox, &opts);
	archive_close(b);
	buf_release(&err);
}

/* A batch bigger than ARCHIVE_PACK_BYTES reaches the disk as it goes,
 * without moving master. */
static void big_batch(void **state)
{
	struct fixture *f = *state;
	struct archive *a = open_ok(f->inbox, NULL);
	struct buf m = BUF_INIT;
	char c[6][41], hex[41];
	size_t i, part = ARCHIVE_PACK_BYTES / 4 + 1;
	git_repository *r;
	git_oid id;
	git_odb *odb;

	for (i = 0; i < N(c); i++) {
		buf_reset(&m);
		buf_addf(&m, "Subject: part %zu\n\n", i);
		while (m.len < part)
			buf_addf(&m, "line %zu of part %zu\n", m.len, i);
		add_ok(a, m.data, m.len, NULL, c[i]);
	}
	/* the fifth part found four in memory and packed them first; the
	 * last two are in memory only */
	r = epoch_repo(f->inbox, 0);
	assert_int_equal(git_repository_odb(&odb, r), 0);
	git_oid_fromstr(&id, c[3]);
	assert_true(git_odb_exists(odb, &id));
	git_oid_fromstr(&id, c[4]);
	assert_false(git_odb_exists(odb, &id));
	git_odb_free(odb);
	git_repository_free(r);
	master_hex(f->inbox, 0, hex);
	assert_string_equal(hex, "");

	commit_ok(a);
	master_hex(f->inbox, 0, hex);
	assert_string_equal(hex, c[5]);
	archive_close(a);
	assert_int_equal(count_commits(f->inbox, 0), 6);
	buf_release(&m);
}

/* ---- epochs ---- */

static void epoch_rollover(void **state)
{
	struct fixture *f = *state;
	struct archive_options tiny = { 0, 1 }, big = { 0, ARCHIVE_EPOCH_MAX };
	struct archive *a = open_ok(f->inbox, &tiny);
	char c[4][41], hex[41];
	struct buf err = BUF_INIT;
	git_repository *r;
	git_commit *cm;
	git_oid id;

	add_ok(a, msg1, strlen(msg1), NULL, c[0]);
	assert_int_equal(archive_epoch(a), 0);
	add_ok(a, msg2_lf, strlen(msg2_lf), NULL, c[1]);	/* epoch 0 is full */
	assert_int_equal(archive_epoch(a), 1);
	/* the full epoch's master moved when the new one started */
	master_hex(f->inbox, 0, hex);
	assert_string_equal(hex, c[0]);
	master_hex(f->inbox, 1, hex);
	assert_string_equal(hex, "");
	assert_int_equal(archive_tip(a, hex, &err), 0);
	assert_string_equal(hex, c[0]);
	commit_ok(a);
	archive_close(a);
	master_hex(f->inbox, 1, hex);
	assert_string_equal(hex, c[1]);
	assert_true(exists(f->inbox, "git/1.git/config"));
	assert_false(exists(f->inbox, "git/2.git"));

	/* a new epoch starts a new history */
	r = epoch_repo(f->inbox, 1);
	git_oid_fromstr(&id, c[1]);
	assert_int_equal(git_commit_lookup(&cm, r, &id), 0);
	assert_int_equal(git_commit_parentcount(cm), 0);
	git_commit_free(cm);
	git_repository_free(r);

	/* reopening writes on in the newest epoch while it has room */
	a = open_ok(f->inbox, &big);
	add_ok(a, msg3, strlen(msg3), NULL, c[2]);
	commit_ok(a);
	assert_int_equal(archive_epoch(a), 1);
	archive_close(a);
	assert_int_equal(count_commits(f->inbox, 0), 1);
	assert_int_equal(count_commits(f->inbox, 1), 2);

	/* and sizes a full one from its files */
	a = open_ok(f->inbox, &tiny);
	add_ok(a, msg1, strlen(msg1), NULL, c[3]);
	assert_int_equal(archive_epoch(a), 2);
	commit_ok(a);
	assert_int_equal(archive_tip(a, hex, &err), 0);
	assert_string_equal(hex, c[3]);
	archive_close(a);
	assert_int_equal(count_commits(f->inbox, 1), 2);
	assert_int_equal(count_commits(f->inbox, 2), 1);
	buf_release(&err);
}

/* ---- walking master ---- */

struct seen {
	char ids[8][41];
	size_t nr;
	size_t stop_after;	/* return 7 after this many; 0 never */
};

static int collect(void *ctx, const char *hex, const char *raw, size_t len)
{
	struct seen *s = ctx;

	assert_true(s->nr < N(s->ids));
	assert_true(len > 0 && raw[len - 1] == '\n');
	snprintf(s->ids[s->nr++], 41, "%s", hex);
	return s->stop_after && s->nr == s->stop_after ? 7 : 0;
}

static void walk(void **state)
{
	struct fixture *f = *state;
	struct archive_options tiny = { 0, 1 };
	struct archive *a = open_ok(f->inbox, NULL);
	char c[4][41], bogus[41];
	struct buf err = BUF_INIT;
	struct seen s;
	size_t i;

	memset(&s, 0, sizeof(s));
	assert_int_equal(archive_walk(a, "", collect, &s, &err), 0);
	assert_int_equal(s.nr, 0);
	for (i = 0; i < 3; i++)
		add_ok(a, three[i].raw, strlen(three[i].raw), NULL, c[i]);
	commit_ok(a);
	archive_close(a);
	/* a fourth in a new epoch, not yet committed, is not walked */
	a = open_ok(f->inbox, &tiny);
	add_ok(a, msg1, strlen(msg1), NULL, c[3]);
	assert_int_equal(archive_epoch(a), 1);

	memset(&s, 0, sizeof(s));
	assert_int_equal(archive_walk(a, "", collect, &s, &err), 0);
	assert_int_equal(s.nr, 3);
	for (i = 0; i < 3; i++)
		assert_string_equal(s.ids[i], c[i]);

	commit_ok(a);
	memset(&s, 0, sizeof(s));
	assert_int_equal(archive_walk(a, c[1], collect, &s, &err), 0);
	assert_int_equal(s.nr, 2);
	assert_string_equal(s.ids[0], c[2]);
	assert_string_equal(s.ids[1], c[3]);

	memset(&s, 0, sizeof(s));
	assert_int_equal(archive_walk(a, c[3], collect, &s, &err), 0);
	assert_int_equal(s.nr, 0);

	/* an id that is not on master: everything */
	memset(&s, 0, sizeof(s));
	memset(bogus, 'a', 40);
	bogus[40] = '\0';
	assert_int_equal(archive_walk(a, bogus, collect, &s, &err), 0);
	assert_int_equal(s.nr, 4);
	assert_string_equal(s.ids[0], c[0]);
	assert_string_equal(s.ids[3], c[3]);

	/* the callback stops the walk */
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	assert_int_equal(archive_walk(a, "", collect, &s, &err), 7);
	assert_int_equal(s.nr, 2);

	assert_int_equal(archive_walk(a, "xyz", collect, &s, &err), -1);
	assert_non_null(strstr(err.data, "not a commit id"));
	archive_close(a);
	buf_release(&err);
}

/*
 * Not a test: `test-archive --import INBOX NOW [--epoch-max BYTES] FILE...`
 * adds each file as a message with one archive_commit() at the end and
 * prints the commit ids, for tests/t/archive.sh until a perfbot command
 * writes the archive.  Exit 0, or 1 with the message on stderr.
 */
static int import_main(int argc, char **argv)
{
	struct archive_options opts = { ARCHIVE_LOCK_WAIT_MS, ARCHIVE_EPOCH_MAX };
	struct buf err = BUF_INIT, msg = BUF_INIT;
	struct archive *a;
	char blob[41], commit[41];
	int64_t now;
	int i = 4;

	if (argc < 4)
		return fprintf(stderr, "usage: test-archive --import INBOX NOW [--epoch-max BYTES] FILE...\n"), 1;
	now = strtoll(argv[3], NULL, 10);
	if (argc > 5 && !strcmp(argv[4], "--epoch-max")) {
		opts.epoch_max = strtoull(argv[5], NULL, 10);
		i = 6;
	}
	if (archive_open_opts(argv[2], NAME, ADDRESS, &opts, &a, &err))
		return fprintf(stderr, "%s\n", err.data), 1;
	for (; i < argc; i++) {
		buf_reset(&msg);
		if (buf_read_file(&msg, argv[i], ARCHIVE_MESSAGE_MAX, &err) ||
		    archive_add(a, msg.data, msg.len, now, blob, commit, &err)) {
			fprintf(stderr, "%s: %s\n", argv[i], err.data);
			archive_close(a);
			return 1;
		}
		/* flushed at once: a test kills this at random instants */
		printf("%s %s\n", commit, argv[i]);
		fflush(stdout);
	}
	if (archive_commit(a, &err)) {
		fprintf(stderr, "%s\n", err.data);
		archive_close(a);
		return 1;
	}
	archive_close(a);
	buf_release(&msg);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(three_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(crlf_same_blob, setup, teardown),
		cmocka_unit_test_setup_teardown(reproducible, setup, teardown),
		cmocka_unit_test_setup_teardown(metadata, setup, teardown),
		cmocka_unit_test_setup_teardown(refused, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(crash_before_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(lock_refuses_second_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(big_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(epoch_rollover, setup, teardown),
		cmocka_unit_test_setup_teardown(walk, setup, teardown),
	};

	if (argc > 1 && !strcmp(argv[1], "--import"))
		return import_main(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
