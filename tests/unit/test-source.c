/*
 * Mail sources: Maildir, mbox, descriptor, the IMAP URL reader and the
 * pieces of the IMAP reader that need no server.  The IMAP reader itself
 * is tested against a real Dovecot by tests/t/source-imap.sh, which runs
 * this program as its driver: test-source --imap URL PASSWORD CAFILE
 * STATEFILE OUTDIR [noack] (see imap_main()).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "source-imap.h"
#include "source-maildir.h"
#include "source-mbox.h"
#include "source.h"
#include "xalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-source.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int remove_tmpdir(void **state)
{
	(void)state;
	return nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* tmpdir/name, in a static buffer per slot. */
static const char *tmp_path(int slot, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *tmp_path(int slot, const char *fmt, ...)
{
	static char paths[4][512];
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(paths[slot], sizeof(paths[slot]), "%s/%s", tmpdir, name);
	return paths[slot];
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		fail_msg("cannot write %s: %s", path, strerror(errno));
}

static void append_file(const char *path, const char *data)
{
	FILE *f = fopen(path, "ab");

	if (!f || fputs(data, f) < 0 || fclose(f))
		fail_msg("cannot append to %s: %s", path, strerror(errno));
}

/* A sparse file of size bytes: huge on paper, cheap on disk. */
static void write_sparse(const char *path, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || ftruncate(fd, size) < 0 || pwrite(fd, "X: y\n\n", 6, 0) != 6 || close(fd))
		fail_msg("cannot make %s: %s", path, strerror(errno));
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* All messages of s as "KEY=BYTES" joined by "|" (oversized: "KEY=oversized:SIZE"),
 * acking each when ack is set. */
static void drain(struct source *s, int ack, struct buf *out)
{
	struct source_msg msg;
	struct buf err = BUF_INIT;
	int r;

	while ((r = source_next(s, &msg, &err)) == 1) {
		if (out->len)
			buf_addc(out, '|');
		buf_addf(out, "%s=", msg.key);
		if (msg.oversized)
			buf_addf(out, "oversized:%zu", msg.size);
		else
			buf_add(out, msg.raw, msg.len);
		if (ack && source_ack(s, &msg, &err))
			fail_msg("ack %s: %s", msg.key, err.data);
		source_msg_release(&msg);
	}
	if (r < 0)
		fail_msg("source_next: %s", err.data);
	buf_release(&err);
}

/* mbox */

static const struct {
	const char *name;
	const char *file;
	const char *want[4];	/* the messages, NULL after the last */
} mbox_cases[] = {
	{ "two messages with empty separator lines",
	  "From a@example.org Thu Jan  1 00:00:00 1970\nSubject: 1\n\nbody 1\n\n"
	  "From b@example.org Thu Jan  1 00:00:00 1970\nSubject: 2\n\nbody 2\n\n",
	  { "Subject: 1\n\nbody 1\n", "Subject: 2\n\nbody 2\n" } },
	{ "the last message has no empty line after it: kept whole",
	  "From a\nA: 1\n\nb1\n\nFrom b\nA: 2\n\nlast line\n",
	  { "A: 1\n\nb1\n", "A: 2\n\nlast line\n" } },
	{ "the file does not end in a newline",
	  "From a\nA: 1\n\nno newline",
	  { "A: 1\n\nno newline" } },
	{ "mboxrd: one '>' comes off >From lines, nothing else changes",
	  "From a\nA: 1\n\n>From me\n>>From you\n> From not\n>From\nFrom-no\nFromage\n\n",
	  { "A: 1\n\nFrom me\n>From you\n> From not\n>From\nFrom-no\nFromage\n" } },
	{ "only one empty line is the separator's",
	  "From a\nA: 1\n\nbody\n\n\n\nFrom b\nA: 2\n\n",
	  { "A: 1\n\nbody\n\n\n", "A: 2\n" } },
	{ "CRLF line ends are kept, the CRLF separator dropped",
	  "From a\r\nA: 1\r\n\r\nbody\r\n\r\nFrom b\r\nA: 2\r\n\r\nb\r\n",
	  { "A: 1\r\n\r\nbody\r\n", "A: 2\r\n\r\nb\r\n" } },
	{ "a sloppy writer without empty lines between messages",
	  "From a\nA: 1\n\nb1\nFrom b\nA: 2\n\nb2\n",
	  { "A: 1\n\nb1\n", "A: 2\n\nb2\n" } },
	{ "an empty file has no messages", "", { NULL } },
	{ "a From line alone is an empty message", "From a\n", { "" } },
	{ "a From line without a newline", "From a", { "" } },
	{ "escaped From lines right after the From line",
	  "From a\n>From b\n\nx\n",
	  { "From b\n\nx\n" } },
};

static void read_mbox(const char *path, const struct source_cursor *from, int ack,
		      struct buf *out, struct source_cursor *cursor)
{
	struct source *s;
	struct buf err = BUF_INIT;

	if (source_open_mbox(path, from, &s, &err))
		fail_msg("open %s: %s", path, err.data);
	drain(s, ack, out);
	if (cursor)
		source_cursor_get(s, cursor);
	source_close(s);
	buf_release(&err);
}

static void mbox_cases_split(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < N(mbox_cases); i++) {
		const char *path = tmp_path(0, "case%zu.mbox", i);
		struct buf got = BUF_INIT, want = BUF_INIT;
		size_t offset = 0;

		write_file(path, mbox_cases[i].file, strlen(mbox_cases[i].file));
		for (j = 0; mbox_cases[i].want[j]; j++) {
			if (want.len)
				buf_addc(&want, '|');
			buf_addf(&want, "mbox:%zu=%s", offset, mbox_cases[i].want[j]);
			/* The next "From " line (the keys are its offsets). */
			offset = (size_t)(strstr(mbox_cases[i].file + offset + 1, "\nFrom ") -
					  mbox_cases[i].file) + 1;
		}
		read_mbox(path, NULL, 1, &got, NULL);
		if (strcmp(got.data, want.data))
			fail_msg("%s:\n got: %s\nwant: %s", mbox_cases[i].name, got.data, want.data);
		buf_release(&got);
		buf_release(&want);
	}
}

static void mbox_refuses_what_is_not_one(void **state)
{
	static const char *const bad[] = {
		"Subject: a plain message\n\nbody\n",
		"\nFrom a\nA: 1\n\n",
		" From a\nA: 1\n\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(bad); i++) {
		const char *path = tmp_path(0, "bad%zu.mbox", i);
		struct buf err = BUF_INIT;
		struct source_msg msg;
		struct source *s;

		write_file(path, bad[i], strlen(bad[i]));
		assert_int_equal(source_open_mbox(path, NULL, &s, &err), 0);
		assert_int_equal(source_next(s, &msg, &err), -1);
		assert_non_null(strstr(err.data, "not an mbox file"));
		assert_non_null(strstr(err.data, path));
		/* and again: the reader does not guess where to go on */
		assert_int_equal(source_next(s, &msg, &err), -1);
		source_close(s);
		buf_release(&err);
	}
	{
		struct buf err = BUF_INIT;
		struct source *s;

		assert_int_equal(source_open_mbox(tmpdir, NULL, &s, &err), -1);
		assert_non_null(strstr(err.data, "not a regular file"));
		assert_int_equal(source_open_mbox(tmp_path(0, "missing"), NULL, &s, &err), -1);
		buf_release(&err);
	}
}

/* Lines longer than the reader's buffer, and "From " where a piece of
 * such a line begins (not a line), stay in the message. */
static void mbox_long_lines(void **state)
{
	const char *path = tmp_path(0, "long.mbox");
	struct buf file = BUF_INIT, body = BUF_INIT, got = BUF_INIT, want = BUF_INIT;

	(void)state;
	buf_adds(&body, "A: 1\n\n");
	buf_addchars(&body, 'x', MBOX_CHUNK);
	buf_adds(&body, "From not a separator\n");
	buf_addchars(&body, 'y', 3 * MBOX_CHUNK + 17);
	buf_adds(&body, "\n>From escaped\n");
	buf_addf(&file, "From a\n%s\nFrom b\nA: 2\n\n", body.data);
	write_file(path, file.data, file.len);
	buf_adds(&want, "mbox:0=");
	buf_add(&want, body.data, body.len);
	want.len -= strlen(">From escaped\n");
	buf_addf(&want, "From escaped\n|mbox:%zu=A: 2\n", body.len + strlen("From a\n") + 1);
	read_mbox(path, NULL, 1, &got, NULL);
	assert_true(got.len == want.len);
	assert_memory_equal(got.data, want.data, want.len);
	buf_release(&file);
	buf_release(&body);
	buf_release(&got);
	buf_release(&want);
}

static const char three[] =
	"From a\nMessage-ID: <1@x>\n\none\n\n"
	"From b\nMessage-ID: <2@x>\n\ntwo\n\n"
	"From c\nMessage-ID: <3@x>\n\nthree\n";

static void mbox_resumes_from_its_cursor(void **state)
{
	const char *path = tmp_path(0, "resume.mbox");
	struct source_cursor c1, c2, c3;
	struct buf got = BUF_INIT;
	struct stat st;

	(void)state;
	write_file(path, three, strlen(three));
	read_mbox(path, NULL, 1, &got, &c1);
	assert_int_equal(stat(path, &st), 0);
	assert_true(c1.offset == st.st_size);
	assert_int_equal(strlen(c1.fingerprint), MBOX_FINGERPRINT_LEN);
	assert_true(c1.uidvalidity == 0 && c1.last_uid == 0);

	/* Nothing new: nothing read, the cursor stays. */
	buf_reset(&got);
	read_mbox(path, &c1, 1, &got, &c2);
	assert_string_equal(got.data, "");
	assert_true(c2.offset == c1.offset);
	assert_string_equal(c2.fingerprint, c1.fingerprint);

	/* Appended mail, after a last message that had no empty line. */
	append_file(path, "\nFrom d\nMessage-ID: <4@x>\n\nfour\n\nFrom e\nMessage-ID: <5@x>\n\nfive\n\n");
	buf_reset(&got);
	read_mbox(path, &c2, 1, &got, &c3);
	assert_non_null(strstr(got.data, "Message-ID: <4@x>\n\nfour\n|mbox:"));
	assert_non_null(strstr(got.data, "Message-ID: <5@x>\n\nfive\n"));
	assert_null(strstr(got.data, "<3@x>"));
	assert_int_equal(stat(path, &st), 0);
	assert_true(c3.offset == st.st_size);
	buf_release(&got);
}

/* A message not acked holds the cursor back; the ones after it are read again. */
static void mbox_unacked_message_holds_the_cursor(void **state)
{
	const char *path = tmp_path(0, "hold.mbox");
	struct source_cursor c = { 0 };
	struct source_msg msg[3];
	struct buf err = BUF_INIT, got = BUF_INIT;
	struct source *s;
	int i;

	(void)state;
	write_file(path, three, strlen(three));
	assert_int_equal(source_open_mbox(path, NULL, &s, &err), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(source_next(s, &msg[i], &err), 1);
	assert_int_equal(source_ack(s, &msg[0], &err), 0);
	assert_int_equal(source_ack(s, &msg[2], &err), 0);
	source_cursor_get(s, &c);
	assert_true(c.offset == (int64_t)(strstr(three, "From b") - three));
	/* the same message twice, or a stranger, is refused */
	assert_int_equal(source_ack(s, &msg[0], &err), -1);
	for (i = 0; i < 3; i++)
		source_msg_release(&msg[i]);
	source_close(s);

	read_mbox(path, &c, 0, &got, NULL);
	assert_null(strstr(got.data, "<1@x>"));
	assert_non_null(strstr(got.data, "<2@x>"));
	assert_non_null(strstr(got.data, "<3@x>"));
	buf_release(&got);
	buf_release(&err);
}

static void mbox_rewritten_file_is_read_from_the_start(void **state)
{
	static const struct {
		const char *name;
		const char *content;	/* replaces the file after a full read */
	} cases[] = {
		{ "replaced by a longer file with another start",
		  "From z\nMessage-ID: <9@x>\n\nnew\n\nFrom a\nMessage-ID: <1@x>\n\none\n\n"
		  "From b\nMessage-ID: <2@x>\n\ntwo\n\nFrom c\nMessage-ID: <3@x>\n\nthree\n"
		  "\nFrom d\nMessage-ID: <4@x>\n\nfour\n" },
		{ "truncated (rotated)", "From z\nMessage-ID: <9@x>\n\nnew\n" },
		{ "rewritten in place: a message deleted, more appended",
		  "From a\nMessage-ID: <1@x>\n\none\n\n"
		  "From c\nMessage-ID: <3@x>\n\nthree\n\n"
		  "From d\nMessage-ID: <4@x>\n\nfour four four four four four four\n\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		const char *path = tmp_path(0, "rewrite%zu.mbox", i);
		struct source_cursor c, c2;
		struct buf got = BUF_INIT, err = BUF_INIT;
		struct source *s;

		write_file(path, three, strlen(three));
		read_mbox(path, NULL, 1, &got, &c);
		write_file(path, cases[i].content, strlen(cases[i].content));
		assert_int_equal(source_open_mbox(path, &c, &s, &err), 0);
		if (!source_restart_reason(s))
			fail_msg("%s: the old cursor was taken", cases[i].name);
		assert_non_null(strstr(source_restart_reason(s), "from the start"));
		buf_reset(&got);
		drain(s, 1, &got);
		if (strncmp(got.data, "mbox:0=", 7))
			fail_msg("%s: not read from the start: %s", cases[i].name, got.data);
		source_cursor_get(s, &c2);
		assert_true(c2.offset == (int64_t)strlen(cases[i].content));
		source_close(s);
		buf_release(&got);
		buf_release(&err);
	}
}

static void mbox_file_is_never_changed(void **state)
{
	const char *path = tmp_path(0, "ro.mbox");
	struct source_cursor c;
	struct buf got = BUF_INIT, before = BUF_INIT, after = BUF_INIT, err = BUF_INIT;
	struct stat st1, st2;

	(void)state;
	write_file(path, three, strlen(three));
	/* Read-only for its owner too: an attempt to open it for writing
	 * would fail for anyone but root, and root is caught by the checks. */
	assert_int_equal(chmod(path, 0444), 0);
	assert_int_equal(stat(path, &st1), 0);
	assert_int_equal(buf_read_file(&before, path, 0, &err), 0);
	sleep(1);
	read_mbox(path, NULL, 1, &got, &c);
	read_mbox(path, &c, 1, &got, &c);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(buf_read_file(&after, path, 0, &err), 0);
	assert_true(st1.st_mtim.tv_sec == st2.st_mtim.tv_sec && st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec);
	assert_true(st1.st_ctim.tv_sec == st2.st_ctim.tv_sec && st1.st_ctim.tv_nsec == st2.st_ctim.tv_nsec);
	assert_true(st1.st_size == st2.st_size && st1.st_ino == st2.st_ino);
	assert_true(before.len == after.len);
	assert_memory_equal(before.data, after.data, before.len);
	/* and no lock or temporary file beside it */
	assert_false(exists(tmp_path(1, "ro.mbox.lock")));
	buf_release(&got);
	buf_release(&before);
	buf_release(&after);
	buf_release(&err);
}

/* A writer holding the lock while it appends: the reader waits for it and
 * sees the whole message, never half of it. */
static void mbox_waits_for_a_writer(void **state)
{
	const char *path = tmp_path(0, "locked.mbox");
	struct buf got = BUF_INIT;
	int ready[2];
	char c;
	pid_t pid;

	(void)state;
	write_file(path, "From a\nA: 1\n\none\n\n", 18);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd = open(path, O_WRONLY | O_APPEND);

		if (fd < 0 || fcntl(fd, F_SETLKW, &lk) < 0 || write(fd, "From b\nA: 2\n", 12) != 12)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		if (write(fd, "\ntwo\n\n", 6) != 6)
			_exit(1);
		_exit(0);	/* exiting drops the lock */
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	read_mbox(path, NULL, 1, &got, NULL);
	assert_string_equal(got.data, "mbox:0=A: 1\n\none\n|mbox:18=A: 2\n\ntwo\n");
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	buf_release(&got);
}

static void mbox_oversized_message_is_flagged(void **state)
{
	const char *path = tmp_path(0, "huge.mbox");
	size_t big = SOURCE_MAX_MESSAGE + 100, b, c;
	struct buf file = BUF_INIT, got = BUF_INIT, want = BUF_INIT;

	(void)state;

	buf_adds(&file, "From a\nA: 1\n\nsmall\n\n");
	b = file.len;
	buf_adds(&file, "From b\nA: 2\n\n");
	buf_addchars(&file, 'z', big - strlen("A: 2\n\n") - 1);
	buf_adds(&file, "\n\n");
	c = file.len;
	buf_adds(&file, "From c\nA: 3\n\nsmall\n");
	write_file(path, file.data, file.len);
	read_mbox(path, NULL, 1, &got, NULL);
	buf_addf(&want, "mbox:0=A: 1\n\nsmall\n|mbox:%zu=oversized:%zu|mbox:%zu=A: 3\n\nsmall\n",
		 b, big, c);
	assert_string_equal(got.data, want.data);
	buf_release(&file);
	buf_release(&got);
	buf_release(&want);
}

/* The fingerprint covers both ends of a long prefix, and the offset. */
static void mbox_fingerprint_sees_both_ends(void **state)
{
	const char *path = tmp_path(0, "fp.mbox");
	struct buf file = BUF_INIT, err = BUF_INIT;
	char a[65], b[65], c[65], d[65];
	struct mbox *m;
	int64_t end;

	(void)state;
	buf_adds(&file, "From a\n\n");
	buf_addchars(&file, 'x', 5 * MBOX_FINGERPRINT_SPAN);
	end = (int64_t)file.len;
	write_file(path, file.data, file.len);
	assert_int_equal(mbox_open(path, &m, &err), 0);
	assert_int_equal(mbox_fingerprint(m, end, a, &err), 0);
	assert_int_equal(mbox_fingerprint(m, end - 1, d, &err), 0);
	assert_int_equal(mbox_fingerprint(m, end + 1, d, &err), -1);
	mbox_free(m);
	assert_string_not_equal(a, d);

	file.data[end - 10] = 'y';	/* near the offset */
	write_file(path, file.data, file.len);
	assert_int_equal(mbox_open(path, &m, &err), 0);
	assert_int_equal(mbox_fingerprint(m, end, b, &err), 0);
	mbox_free(m);
	file.data[end - 10] = 'x';
	file.data[20] = 'y';		/* near the start */
	write_file(path, file.data, file.len);
	assert_int_equal(mbox_open(path, &m, &err), 0);
	assert_int_equal(mbox_fingerprint(m, end, c, &err), 0);
	mbox_free(m);
	assert_string_not_equal(a, b);
	assert_string_not_equal(a, c);
	buf_release(&file);
	buf_release(&err);
}

/* Maildir */

static void make_maildir(const char *dir)
{
	char sub[512];
	static const char *const subs[] = { "", "/new", "/cur", "/tmp" };
	size_t i;

	for (i = 0; i < N(subs); i++) {
		snprintf(sub, sizeof(sub), "%s%s", dir, subs[i]);
		if (mkdir(sub, 0700) < 0)
			fail_msg("mkdir %s: %s", sub, strerror(errno));
	}
}

static void read_maildir(const char *dir, int ack, struct buf *out)
{
	struct source *s;
	struct buf err = BUF_INIT;
	struct source_cursor c;

	if (source_open_maildir(dir, &s, &err))
		fail_msg("open %s: %s", dir, err.data);
	drain(s, ack, out);
	source_cursor_get(s, &c);
	assert_true(c.offset == 0 && c.last_uid == 0 && c.uidvalidity == 0 && !c.fingerprint[0]);
	assert_null(source_restart_reason(s));
	source_close(s);
	buf_release(&err);
}

/* The names in dir, sorted, joined by " ". */
static void list_dir(const char *dir, struct buf *out)
{
	struct buf cmd = BUF_INIT;
	char line[512];
	FILE *p;

	buf_addf(&cmd, "ls -A '%s'", dir);
	p = popen(cmd.data, "r");
	assert_non_null(p);
	buf_reset(out);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if (out->len)
			buf_addc(out, ' ');
		buf_adds(out, line);
	}
	pclose(p);
	buf_release(&cmd);
}

/* Gives path a fixed mtime: new/ is read in delivery order (mtime) then
 * by name, so files of one instant are read by name. */
static void set_mtime(const char *path, time_t t)
{
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void maildir_takes_new_mail_into_cur(void **state)
{
	const char *dir = tmp_path(0, "md1");
	struct buf got = BUF_INIT, names = BUF_INIT;

	(void)state;
	make_maildir(dir);
	write_file(tmp_path(1, "md1/new/1700000002.M2.host"), "B: 2\n\ntwo\n", 10);
	write_file(tmp_path(1, "md1/new/1700000001.M1.host"), "A: 1\n\none\n", 10);
	write_file(tmp_path(1, "md1/new/1700000003.M3.host:2,S"), "C: 3\n\n", 6);
	set_mtime(tmp_path(1, "md1/new/1700000002.M2.host"), 1700000000);
	set_mtime(tmp_path(1, "md1/new/1700000001.M1.host"), 1700000000);
	set_mtime(tmp_path(1, "md1/new/1700000003.M3.host:2,S"), 1700000000);
	write_file(tmp_path(1, "md1/tmp/1700000004.M4.host"), "D: 4\n\n", 6);
	write_file(tmp_path(1, "md1/cur/1700000000.M0.host:2,S"), "E: 0\n\n", 6);

	/* Unacked: read again next time, nothing moved. */
	read_maildir(dir, 0, &got);
	assert_string_equal(got.data,
			    "1700000001.M1.host=A: 1\n\none\n|1700000002.M2.host=B: 2\n\ntwo\n|"
			    "1700000003.M3.host:2,S=C: 3\n\n");
	buf_reset(&got);
	read_maildir(dir, 1, &got);
	assert_non_null(strstr(got.data, "1700000001.M1.host="));
	list_dir(tmp_path(1, "md1/new"), &names);
	assert_string_equal(names.data, "");
	list_dir(tmp_path(1, "md1/cur"), &names);
	assert_string_equal(names.data, "1700000000.M0.host:2,S 1700000001.M1.host:2, "
			    "1700000002.M2.host:2, 1700000003.M3.host:2,S");
	list_dir(tmp_path(1, "md1/tmp"), &names);
	assert_string_equal(names.data, "1700000004.M4.host");
	/* Nothing was created in the Maildir itself (no maildirfolder). */
	list_dir(dir, &names);
	assert_string_equal(names.data, "cur new tmp");
	buf_reset(&got);
	read_maildir(dir, 1, &got);
	assert_string_equal(got.data, "");
	buf_release(&got);
	buf_release(&names);
}

static void maildir_skips_what_is_not_mail(void **state)
{
	const char *dir = tmp_path(0, "md2");
	struct buf got = BUF_INIT;

	(void)state;
	make_maildir(dir);
	write_file(tmp_path(1, "md2/new/.hidden"), "X: 1\n\n", 6);
	write_file(tmp_path(1, "md2/new/real"), "R: 1\n\n", 6);
	write_file(tmp_path(1, "secret"), "S: 1\n\n", 6);
	assert_int_equal(mkdir(tmp_path(1, "md2/new/adir"), 0700), 0);
	assert_int_equal(mkfifo(tmp_path(1, "md2/new/afifo"), 0600), 0);
	assert_int_equal(symlink(tmp_path(2, "secret"), tmp_path(1, "md2/new/alink")), 0);
	read_maildir(dir, 1, &got);
	assert_string_equal(got.data, "real=R: 1\n\n");
	assert_true(exists(tmp_path(1, "md2/new/.hidden")));
	assert_true(exists(tmp_path(1, "md2/new/alink")));
	assert_true(exists(tmp_path(1, "md2/new/afifo")));
	buf_release(&got);
}

/* Delivery order wins over names: a reply delivered after the mail it
 * answers is read after it, whatever the names. */
static void maildir_reads_in_delivery_order(void **state)
{
	const char *dir = tmp_path(0, "md5");
	struct buf got = BUF_INIT;

	(void)state;
	make_maildir(dir);
	write_file(tmp_path(1, "md5/new/a-reply"), "R: 1\n\n", 6);
	write_file(tmp_path(1, "md5/new/b-report"), "P: 1\n\n", 6);
	set_mtime(tmp_path(1, "md5/new/b-report"), 1700000001);
	set_mtime(tmp_path(1, "md5/new/a-reply"), 1700000002);
	read_maildir(dir, 0, &got);
	assert_string_equal(got.data, "b-report=P: 1\n\n|a-reply=R: 1\n\n");
	buf_release(&got);
}

static void maildir_flags_oversized_mail(void **state)
{
	const char *dir = tmp_path(0, "md3");
	struct buf got = BUF_INIT, want = BUF_INIT;

	(void)state;
	make_maildir(dir);
	write_sparse(tmp_path(1, "md3/new/2-huge"), (off_t)SOURCE_MAX_MESSAGE + 1);
	write_sparse(tmp_path(1, "md3/new/1-limit"), (off_t)SOURCE_MAX_MESSAGE);
	/* one instant, so they are read by name (on a busy machine the two
	 * writes fell in different ticks and 2-huge came first) */
	set_mtime(tmp_path(1, "md3/new/2-huge"), 1700000000);
	set_mtime(tmp_path(1, "md3/new/1-limit"), 1700000000);
	read_maildir(dir, 1, &got);
	/* Exactly the limit is read; one byte more is not. */
	assert_true(got.len == strlen("1-limit=") + SOURCE_MAX_MESSAGE + strlen("|2-huge=oversized:33554433"));
	buf_addf(&want, "|2-huge=oversized:%u", SOURCE_MAX_MESSAGE + 1);
	assert_string_equal(got.data + got.len - want.len, want.data);
	/* Acked like any other, so it is not met again. */
	assert_true(exists(tmp_path(1, "md3/cur/2-huge:2,")));
	buf_release(&got);
	buf_release(&want);
}

static void maildir_errors(void **state)
{
	const char *dir = tmp_path(0, "md4");
	struct buf err = BUF_INIT;
	struct source_msg msg;
	struct source *s;

	(void)state;
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(mkdir(tmp_path(1, "md4/new"), 0700), 0);
	/* no cur/ */
	assert_int_equal(source_open_maildir(dir, &s, &err), -1);
	assert_non_null(strstr(err.data, "md4/cur"));
	assert_int_equal(mkdir(tmp_path(1, "md4/cur"), 0700), 0);
	write_file(tmp_path(1, "md4/new/gone"), "G: 1\n\n", 6);
	write_file(tmp_path(1, "md4/new/kept"), "K: 1\n\n", 6);
	assert_int_equal(source_open_maildir(dir, &s, &err), 0);
	assert_int_equal(source_next(s, &msg, &err), 1);
	assert_string_equal(msg.key, "gone");
	/* The file vanished before the ack: an error, not a quiet success. */
	assert_int_equal(unlink(tmp_path(1, "md4/new/gone")), 0);
	assert_int_equal(source_ack(s, &msg, &err), -1);
	assert_non_null(strstr(err.data, "gone"));
	source_msg_release(&msg);
	/* A file already in cur/ under the target name is not replaced. */
	assert_int_equal(source_next(s, &msg, &err), 1);
	write_file(tmp_path(1, "md4/cur/kept:2,"), "old\n", 4);
	assert_int_equal(source_ack(s, &msg, &err), -1);
	assert_true(exists(tmp_path(1, "md4/new/kept")));
	/* Keys that are not file names are refused. */
	free(msg.key);
	msg.key = xstrdup("../cur/kept:2,");
	assert_int_equal(source_ack(s, &msg, &err), -1);
	source_msg_release(&msg);
	assert_int_equal(source_next(s, &msg, &err), 0);
	source_close(s);
	/* A file that vanished between listing and reading is skipped. */
	write_file(tmp_path(1, "md4/new/a"), "A: 1\n\n", 6);
	write_file(tmp_path(1, "md4/new/b"), "B: 1\n\n", 6);
	set_mtime(tmp_path(1, "md4/new/kept"), 1700000002);	/* after a and b */
	set_mtime(tmp_path(1, "md4/new/a"), 1700000001);
	set_mtime(tmp_path(1, "md4/new/b"), 1700000001);
	assert_int_equal(source_open_maildir(dir, &s, &err), 0);
	assert_int_equal(unlink(tmp_path(1, "md4/new/a")), 0);
	assert_int_equal(source_next(s, &msg, &err), 1);
	assert_string_equal(msg.key, "b");
	source_msg_release(&msg);
	source_close(s);
	buf_release(&err);
}

/* Descriptor */

static void fd_reads_one_message(void **state)
{
	static const char mail[] = "Subject: hi\r\n\r\nbody with a NUL \0 inside\n";
	struct buf err = BUF_INIT;
	struct source_cursor c;
	struct source_msg msg;
	struct source *s;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_true(write(p[1], mail, sizeof(mail) - 1) == (ssize_t)sizeof(mail) - 1);
	close(p[1]);
	assert_int_equal(source_open_fd(p[0], &s, &err), 0);
	assert_int_equal(source_next(s, &msg, &err), 1);
	assert_string_equal(msg.key, "-");
	assert_false(msg.oversized);
	assert_true(msg.len == sizeof(mail) - 1 && msg.size == msg.len);
	assert_memory_equal(msg.raw, mail, msg.len);
	assert_int_equal(source_ack(s, &msg, &err), 0);
	source_msg_release(&msg);
	assert_int_equal(source_next(s, &msg, &err), 0);
	source_cursor_get(s, &c);
	assert_true(c.offset == 0 && c.last_uid == 0);
	source_close(s);
	close(p[0]);

	assert_int_equal(source_open_fd(-1, &s, &err), -1);
	buf_release(&err);
}

static void fd_flags_oversized_input(void **state)
{
	const char *path = tmp_path(0, "huge.eml");
	struct buf err = BUF_INIT;
	struct source_msg msg;
	struct source *s;
	int fd;

	(void)state;
	write_sparse(path, (off_t)SOURCE_MAX_MESSAGE + 4096);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(source_open_fd(fd, &s, &err), 0);
	assert_int_equal(source_next(s, &msg, &err), 1);
	assert_true(msg.oversized);
	assert_null(msg.raw);
	assert_true(msg.size == SOURCE_MAX_MESSAGE + 4096);
	/* read to the end, as a pipe from an MTA must be */
	assert_true(lseek(fd, 0, SEEK_CUR) == (off_t)SOURCE_MAX_MESSAGE + 4096);
	source_msg_release(&msg);
	source_close(s);
	close(fd);
	buf_release(&err);
}

/* IMAP pieces that need no server */

static void imap_urls_parse(void **state)
{
	static const struct {
		const char *url;
		enum imap_security security;
		const char *user, *host;
		int port;
		const char *mailbox;
	} good[] = {
		{ "imaps://bot@imap.example.org/INBOX", IMAP_TLS, "bot", "imap.example.org", 993, "INBOX" },
		{ "imaps://bot%40example.org@imap.example.org:1993/Lists/perf%20lab", IMAP_TLS,
		  "bot@example.org", "imap.example.org", 1993, "Lists/perf lab" },
		{ "imap://bot@mail.example.org/INBOX?starttls", IMAP_STARTTLS, "bot",
		  "mail.example.org", 143, "INBOX" },
		{ "imap://bot@127.0.0.1:10143/Archive", IMAP_PLAIN, "bot", "127.0.0.1", 10143, "Archive" },
		{ "imap://u@[::1]:143/", IMAP_PLAIN, "u", "::1", 143, "INBOX" },
		{ "imaps://u@[2001:db8::1]/x", IMAP_TLS, "u", "2001:db8::1", 993, "x" },
		{ "imaps://u@host", IMAP_TLS, "u", "host", 993, "INBOX" },
		{ "imap://u@LocalHost", IMAP_PLAIN, "u", "LocalHost", 143, "INBOX" },
		{ "imap://a@b@127.1.2.3/", IMAP_PLAIN, "a@b", "127.1.2.3", 143, "INBOX" },
	};
	static const struct {
		const char *url, *why;
	} bad[] = {
		{ "http://u@h/INBOX", "must begin with" },
		{ "imaps://h/INBOX", "name the user" },
		{ "imaps://@h/INBOX", "name the user" },
		{ "imaps://u:secret@h/INBOX", "no password in the URL" },
		{ "imap://u@imap.example.org/INBOX", "plain imap:// only to" },
		{ "imap://u@127.0.0.1.example.org/", "plain imap:// only to" },
		{ "imap://u@[2001:db8::1]/", "plain imap:// only to" },
		{ "imaps://u@h/INBOX?starttls", "only query" },
		{ "imap://u@h/INBOX?starttls=no", "only query" },
		{ "imaps://u@h:0/", "port" },
		{ "imaps://u@h:65536/", "port" },
		{ "imaps://u@h:12a/", "port" },
		{ "imaps://u@h:/", "port" },
		{ "imaps://u@[::1/", "closing" },
		{ "imaps://u@[nothex]/", "IPv6" },
		{ "imaps://u@[::1]x/", "only :PORT" },
		{ "imaps://u@h/IN%0ABOX", "mailbox" },
		{ "imaps://u@h/IN\rBOX", "mailbox" },
		{ "imaps://u@h/%ZZ", "mailbox" },
		{ "imaps://u@h/%4", "mailbox" },
		{ "imaps://u@h/caf\xc3\xa9", "ASCII" },
		{ "imaps://u%0d@h/", "user" },
		{ "imaps://u@ho st/", "host" },
		{ "imaps://u@-h/", "host" },
		{ "imaps://u@h_x/", "host" },
		{ "imaps://u@/", "host" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(good); i++) {
		struct imap_url u;
		struct buf err = BUF_INIT;

		if (imap_url_parse(good[i].url, &u, &err))
			fail_msg("%s: %s", good[i].url, err.data);
		assert_int_equal(u.security, good[i].security);
		assert_string_equal(u.user, good[i].user);
		assert_string_equal(u.host, good[i].host);
		assert_int_equal(u.port, good[i].port);
		assert_string_equal(u.mailbox, good[i].mailbox);
		imap_url_release(&u);
		buf_release(&err);
	}
	for (i = 0; i < N(bad); i++) {
		struct imap_url u;
		struct buf err = BUF_INIT;

		if (!imap_url_parse(bad[i].url, &u, &err))
			fail_msg("%s: accepted", bad[i].url);
		if (!strstr(err.data, bad[i].why) || strncmp(err.data, "imap url \"", 10))
			fail_msg("%s: message \"%s\" does not say \"%s\"", bad[i].url, err.data, bad[i].why);
		/* the URL is quoted with its control characters escaped */
		assert_null(strpbrk(err.data, "\r\n"));
		buf_release(&err);
	}
	{
		struct buf url = BUF_INIT, err = BUF_INIT;
		struct imap_url u;

		buf_adds(&url, "imaps://u@h/");
		buf_addchars(&url, 'm', IMAP_URL_MAX);
		assert_int_equal(imap_url_parse(url.data, &u, &err), -1);
		buf_release(&url);
		buf_release(&err);
	}
}

static void imap_crlf_becomes_lf(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "a\r\nb\r\n", "a\nb\n" },
		{ "a\rb", "a\rb" },
		{ "\r\r\n", "\r\n" },
		{ "x\r", "x\r" },
		{ "\n\r\n\n", "\n\n\n" },
		{ "no line end", "no line end" },
		{ "\r\n\r\n", "\n\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;

		assert_int_equal(imap_crlf_to_lf(&out, cases[i].in, strlen(cases[i].in)), 0);
		assert_string_equal(out.data, cases[i].out);
		buf_release(&out);
	}
}

static void imap_refuses_bad_passwords_before_connecting(void **state)
{
	struct imap_url u;
	struct buf err = BUF_INIT;
	struct imap *im;

	(void)state;
	/* Port 1 on loopback: nothing listens there, but it is never tried. */
	assert_int_equal(imap_url_parse("imap://u@127.0.0.1:1/", &u, &err), 0);
	assert_int_equal(imap_open(&u, "pass\r\nA1 LOGOUT", NULL, 5, &im, &err), -1);
	assert_non_null(strstr(err.data, "password"));
	assert_int_equal(imap_open(&u, NULL, NULL, 5, &im, &err), -1);
	/* and a server that is not there is a temporary failure */
	assert_int_equal(imap_open(&u, "pw", NULL, 5, &im, &err), IMAP_TEMPORARY);
	assert_non_null(strstr(err.data, "127.0.0.1:1/INBOX"));
	imap_url_release(&u);
	buf_release(&err);
}

/*
 * The driver for tests/t/source-imap.sh: reads the cursor from STATEFILE
 * ("UIDVALIDITY LAST_UID", if it exists), writes each new message to
 * OUTDIR/UID, prints "imap:UID SIZE" per message (and " oversized"),
 * acks it unless "noack" is given, prints "restart: REASON" when the
 * cursor was dropped, then writes the cursor back.  Exits 0, 75 on a
 * temporary failure, 1 on another.
 */
static int imap_main(int argc, char **argv)
{
	struct source_cursor c = { 0 };
	struct buf err = BUF_INIT;
	struct source_msg msg;
	struct source *s;
	FILE *f;
	int r, ack = !(argc > 7 && !strcmp(argv[7], "noack"));

	if (argc < 7) {
		fprintf(stderr, "usage: test-source --imap URL PASSWORD CAFILE|- STATEFILE OUTDIR [noack]\n");
		return 2;
	}
	f = fopen(argv[5], "r");
	if (f) {
		if (fscanf(f, "%" SCNd64 " %" SCNd64, &c.uidvalidity, &c.last_uid) != 2)
			c.uidvalidity = c.last_uid = 0;
		fclose(f);
	}
	r = source_open_imap(argv[2], argv[3], strcmp(argv[4], "-") ? argv[4] : NULL, 10, &c, &s,
			     &err);
	if (r < 0)
		goto out;
	if (source_restart_reason(s))
		printf("restart: %s\n", source_restart_reason(s));
	while ((r = source_next(s, &msg, &err)) == 1) {
		struct buf path = BUF_INIT;

		printf("%s %zu%s\n", msg.key, msg.size, msg.oversized ? " oversized" : "");
		buf_addf(&path, "%s/%s", argv[6], msg.key + strlen("imap:"));
		if (!msg.oversized)
			write_file(path.data, msg.raw, msg.len);
		buf_release(&path);
		r = ack ? source_ack(s, &msg, &err) : 0;
		source_msg_release(&msg);
		if (r < 0)
			break;
	}
	source_cursor_get(s, &c);
	source_close(s);
	if (r < 0)
		goto out;
	f = fopen(argv[5], "w");
	if (!f || fprintf(f, "%" PRId64 " %" PRId64 "\n", c.uidvalidity, c.last_uid) < 0 || fclose(f))
		r = err_set(&err, "%s: cannot write", argv[5]);
	else
		printf("cursor %" PRId64 " %" PRId64 "\n", c.uidvalidity, c.last_uid);
out:
	if (r < 0)
		fprintf(stderr, "%s\n", err.data);
	buf_release(&err);
	return r == SOURCE_TEMPORARY ? 75 : r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mbox_cases_split),
		cmocka_unit_test(mbox_refuses_what_is_not_one),
		cmocka_unit_test(mbox_long_lines),
		cmocka_unit_test(mbox_resumes_from_its_cursor),
		cmocka_unit_test(mbox_unacked_message_holds_the_cursor),
		cmocka_unit_test(mbox_rewritten_file_is_read_from_the_start),
		cmocka_unit_test(mbox_file_is_never_changed),
		cmocka_unit_test(mbox_waits_for_a_writer),
		cmocka_unit_test(mbox_oversized_message_is_flagged),
		cmocka_unit_test(mbox_fingerprint_sees_both_ends),
		cmocka_unit_test(maildir_takes_new_mail_into_cur),
		cmocka_unit_test(maildir_skips_what_is_not_mail),
		cmocka_unit_test(maildir_reads_in_delivery_order),
		cmocka_unit_test(maildir_flags_oversized_mail),
		cmocka_unit_test(maildir_errors),
		cmocka_unit_test(fd_reads_one_message),
		cmocka_unit_test(fd_flags_oversized_input),
		cmocka_unit_test(imap_urls_parse),
		cmocka_unit_test(imap_crlf_becomes_lf),
		cmocka_unit_test(imap_refuses_bad_passwords_before_connecting),
	};

	if (argc > 1 && !strcmp(argv[1], "--imap"))
		return imap_main(argc, argv);
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
