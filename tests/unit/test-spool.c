/*
 * The spool: files moved in whole under unique names (also many with one
 * base name in one second), names sanitized (a table), refusals that leave
 * the file where it was, the copy path from another file system (/dev/shm
 * when it is one), producers' dot-files ignored and their plain names
 * claimed, rejection with a .why beside the file, a rejected file taken
 * back (requeue), removal, and counts.
 * Each test has its own temporary directory.
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
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "spool.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define T0 1773035458		/* 2026-03-09T05:50:58Z */
#define STAMP "20260309055058"

struct fixture {
	char dir[64];		/* the temporary directory: sources live here */
	char state[96];		/* dir/state, the spool's DIR */
	char shm[64];		/* a directory on /dev/shm, or "" */
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

	snprintf(f->dir, sizeof(f->dir), "/tmp/perfbot-test-spool-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (f->shm[0])
		nftw(f->shm, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static char *read_file(const char *path)
{
	struct buf b = BUF_INIT, err = BUF_INIT;

	if (buf_read_file(&b, path, 0, &err) < 0)
		fail_msg("%s", err.data);
	buf_release(&err);
	return buf_detach(&b, NULL);
}

static int exists(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0;
}

/* DIR/spool/SUB/NAME */
static const char *spath(const struct fixture *f, const char *sub, const char *name)
{
	static char path[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/spool/%s%s%s", f->state, sub, name ? "/" : "",
		 name ? name : "");
	return path[i];
}

static void queue(const struct fixture *f, const char *src, struct buf *name)
{
	struct buf err = BUF_INIT;

	buf_reset(name);
	if (spool_queue_file(f->state, src, T0, name, &err) != 0)
		fail_msg("spool_queue_file %s: %s", src, err.data);
	buf_release(&err);
}

static void list(const struct fixture *f, struct spool_names *names)
{
	struct buf err = BUF_INIT;

	spool_names_release(names);
	if (spool_list_incoming(f->state, T0, names, &err) != 0)
		fail_msg("spool_list_incoming: %s", err.data);
	buf_release(&err);
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static void queue_moves_the_file_whole(void **state)
{
	struct fixture *f = *state;
	struct buf name = BUF_INIT;
	struct stat sb;
	char src[128], *got;

	snprintf(src, sizeof(src), "%s/report.json", f->dir);
	write_file(src, "{\"perfbot\": 1}\n");
	queue(f, src, &name);
	assert_true(spool_name_is_spool(name.data));
	assert_int_equal(strncmp(name.data, STAMP "-", 15), 0);
	assert_true(ends_with(name.data, "-report.json"));
	assert_false(exists(src));
	got = read_file(spath(f, "incoming", name.data));
	assert_string_equal(got, "{\"perfbot\": 1}\n");
	free(got);
	assert_int_equal(stat(f->state, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	assert_int_equal(stat(spath(f, "incoming", NULL), &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	buf_release(&name);
}

/* Many files of one name in one second: each gets its own spool name and
 * nothing is overwritten. */
static void names_are_unique(void **state)
{
	struct fixture *f = *state;
	struct spool_names names = { 0 };
	struct buf name = BUF_INIT;
	char src[128], text[32], *got;
	size_t i, j;

	snprintf(src, sizeof(src), "%s/same.json", f->dir);
	for (i = 0; i < 50; i++) {
		snprintf(text, sizeof(text), "%zu", i);
		write_file(src, text);
		queue(f, src, &name);
	}
	list(f, &names);
	assert_int_equal(names.nr, 50);
	for (i = 1; i < names.nr; i++)
		assert_true(strcmp(names.v[i - 1], names.v[i]) < 0);
	/* each content is there exactly once */
	for (i = 0; i < 50; i++) {
		size_t hits = 0;

		snprintf(text, sizeof(text), "%zu", i);
		for (j = 0; j < names.nr; j++) {
			got = read_file(spath(f, "incoming", names.v[j]));
			hits += !strcmp(got, text);
			free(got);
		}
		assert_int_equal(hits, 1);
	}

	/* A file already at the next name is skipped over, not replaced. */
	{
		unsigned int n;
		char next[128];

		assert_int_equal(sscanf(name.data, STAMP "-%*d-%u-", &n), 1);
		snprintf(next, sizeof(next), STAMP "-%ld-%u-same.json", (long)getpid(), n + 1);
		write_file(spath(f, "incoming", next), "already there");
		write_file(src, "new");
		queue(f, src, &name);
		assert_string_not_equal(name.data, next);
		got = read_file(spath(f, "incoming", next));
		assert_string_equal(got, "already there");
		free(got);
	}
	spool_names_release(&names);
	buf_release(&name);
}

static void names_are_sanitized(void **state)
{
	struct fixture *f = *state;
	static const struct { const char *file, *tail; } cases[] = {
		{ "plain.json", "-plain.json" },
		{ "with space;and$more.json", "-with_space_and_more.json" },
		{ "\xc3\xa4-umlaut.json", "-__-umlaut.json" },
		{ ".hidden.json", "-.hidden.json" },
		{ "a+b_c-d.JSON", "-a+b_c-d.JSON" },
		{ "new\nline", "-new_line" },
	};
	struct buf name = BUF_INIT;
	char src[256], longname[SPOOL_MAX_BASE + 40];
	size_t i;

	for (i = 0; i < N(cases); i++) {
		snprintf(src, sizeof(src), "%s/%s", f->dir, cases[i].file);
		write_file(src, "{}");
		queue(f, src, &name);
		if (!ends_with(name.data, cases[i].tail) || !spool_name_is_spool(name.data))
			fail_msg("%s: spool name %s", cases[i].file, name.data);
	}
	/* a long base name is shortened, never longer than the limit */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(src, sizeof(src), "%s/%s", f->dir, longname);
	write_file(src, "{}");
	queue(f, src, &name);
	assert_int_equal(strlen(strrchr(name.data, '-') + 1), SPOOL_MAX_BASE);
	buf_release(&name);
}

static void refused_files_stay_where_they_were(void **state)
{
	struct fixture *f = *state;
	static const struct { const char *what, *want; } cases[] = {
		{ "missing", "cannot read" },
		{ "symlink", "symbolic link" },
		{ "directory", "not a regular file" },
	};
	struct buf name = BUF_INIT, err = BUF_INIT;
	struct spool_names names = { 0 };
	char real[128], src[128];
	size_t i;

	snprintf(real, sizeof(real), "%s/real.json", f->dir);
	write_file(real, "{}");
	for (i = 0; i < N(cases); i++) {
		snprintf(src, sizeof(src), "%s/%s", f->dir, cases[i].what);
		if (i == 1)
			assert_int_equal(symlink(real, src), 0);
		if (i == 2)
			assert_int_equal(mkdir(src, 0755), 0);
		if (spool_queue_file(f->state, src, T0, &name, &err) != -1 ||
		    !strstr(err.data, cases[i].want) || !strstr(err.data, src))
			fail_msg("%s: '%s', want '%s'", cases[i].what, err.data, cases[i].want);
		assert_int_equal(name.len, 0);
		assert_int_equal(exists(src), i != 0);
	}
	assert_true(exists(real));
	list(f, &names);
	assert_int_equal(names.nr, 0);
	spool_names_release(&names);
	buf_release(&name);
	buf_release(&err);
}

/* From another file system the file is copied, synced, renamed into
 * place, and only then removed: no temporary file stays behind. */
static void queue_copies_across_file_systems(void **state)
{
	struct fixture *f = *state;
	struct spool_names names = { 0 };
	struct buf name = BUF_INIT;
	struct stat a, b;
	char src[128], *got;

	snprintf(f->shm, sizeof(f->shm), "/dev/shm/perfbot-test-spool-XXXXXX");
	if (!mkdtemp(f->shm)) {
		f->shm[0] = '\0';
		fprintf(stderr, "skip: /dev/shm is not usable here\n");
		skip();
	}
	assert_int_equal(stat(f->shm, &a), 0);
	assert_int_equal(stat(f->dir, &b), 0);
	if (a.st_dev == b.st_dev) {
		fprintf(stderr, "skip: /dev/shm and /tmp are one file system here\n");
		skip();
	}
	snprintf(src, sizeof(src), "%s/far.json", f->shm);
	write_file(src, "{\"far\": true}\n");
	queue(f, src, &name);
	assert_false(exists(src));
	assert_true(ends_with(name.data, "-far.json"));
	got = read_file(spath(f, "incoming", name.data));
	assert_string_equal(got, "{\"far\": true}\n");
	free(got);
	assert_int_equal(stat(spath(f, "incoming", name.data), &a), 0);
	assert_int_equal(a.st_mode & 0777, 0600);
	list(f, &names);
	assert_int_equal(names.nr, 1);
	spool_names_release(&names);
	buf_release(&name);
}

/* Producers: dot-files are half-written and never listed; a plain name is
 * renamed to a spool name; directories and symlinks are not files. */
static void list_ignores_dot_files_and_claims_plain_names(void **state)
{
	struct fixture *f = *state;
	struct spool_names names = { 0 };
	struct buf name = BUF_INIT, err = BUF_INIT;
	char src[128], *got;

	list(f, &names);	/* no spool at all yet */
	assert_int_equal(names.nr, 0);
	snprintf(src, sizeof(src), "%s/q.json", f->dir);
	write_file(src, "queued");
	queue(f, src, &name);
	write_file(spath(f, "incoming", ".tmp-producer.json"), "half");
	write_file(spath(f, "incoming", ".producer2"), "half");
	write_file(spath(f, "incoming", "dropped.json"), "dropped");
	assert_int_equal(mkdir(spath(f, "incoming", "adir"), 0700), 0);
	assert_int_equal(symlink("/etc/passwd", spath(f, "incoming", "alink")), 0);

	list(f, &names);
	assert_int_equal(names.nr, 2);
	assert_string_equal(names.v[0], name.data);	/* queued first: sorts first */
	assert_true(spool_name_is_spool(names.v[1]));
	assert_true(ends_with(names.v[1], "-dropped.json"));
	assert_false(exists(spath(f, "incoming", "dropped.json")));
	got = read_file(spath(f, "incoming", names.v[1]));
	assert_string_equal(got, "dropped");
	free(got);
	assert_true(exists(spath(f, "incoming", ".tmp-producer.json")));

	/* a second listing renames nothing more */
	list(f, &names);
	assert_int_equal(names.nr, 2);
	assert_true(ends_with(names.v[1], "-dropped.json"));
	spool_names_release(&names);
	buf_release(&name);
	buf_release(&err);
}

static void reject_moves_aside_with_the_reason(void **state)
{
	struct fixture *f = *state;
	struct spool_names names = { 0 };
	struct buf name = BUF_INIT, rej = BUF_INIT, err = BUF_INIT, why = BUF_INIT;
	size_t in, out;
	char src[128], *got;

	snprintf(src, sizeof(src), "%s/bad.json", f->dir);
	write_file(src, "{bad");
	queue(f, src, &name);
	if (spool_reject(f->state, name.data, "bad.json:1:2: invalid JSON", &rej, &err) != 0)
		fail_msg("spool_reject: %s", err.data);
	assert_string_equal(rej.data, name.data);
	assert_false(exists(spath(f, "incoming", name.data)));
	got = read_file(spath(f, "rejected", name.data));
	assert_string_equal(got, "{bad");
	free(got);
	buf_addf(&why, "%s.why", name.data);
	got = read_file(spath(f, "rejected", why.data));
	assert_string_equal(got, "bad.json:1:2: invalid JSON\n");
	free(got);

	/* the same name again (a producer reusing it) does not overwrite */
	write_file(spath(f, "incoming", name.data), "{bad again");
	buf_reset(&rej);
	assert_int_equal(spool_reject(f->state, name.data, "second\n", &rej, &err), 0);
	assert_int_equal(strncmp(rej.data, "1-", 2), 0);
	assert_string_equal(rej.data + 2, name.data);
	got = read_file(spath(f, "rejected", name.data));
	assert_string_equal(got, "{bad");
	free(got);
	buf_reset(&why);
	buf_addf(&why, "%s.why", rej.data);
	got = read_file(spath(f, "rejected", why.data));
	assert_string_equal(got, "second\n");
	free(got);

	list(f, &names);
	assert_int_equal(names.nr, 0);
	assert_int_equal(spool_count(f->state, &in, &out, &err), 0);
	assert_int_equal(in, 0);
	assert_int_equal(out, 2);
	/* nothing temporary stays behind */
	assert_false(exists(spath(f, "rejected", ".tmp-1-" STAMP)));

	/* a file not in incoming/ cannot be rejected, and names are names */
	assert_int_equal(spool_reject(f->state, "nope.json", "why", NULL, &err), -1);
	assert_int_equal(spool_reject(f->state, "../x", "why", NULL, &err), -1);
	assert_int_equal(spool_reject(f->state, ".tmp-x", "why", NULL, &err), -1);
	spool_names_release(&names);
	buf_release(&name);
	buf_release(&rej);
	buf_release(&err);
	buf_release(&why);
}

/* A rejected file goes back under its spool name, the "N-" of a second
 * rejection taken off, and its .why goes; refusals change nothing. */
static void requeue_takes_a_rejected_file_back(void **state)
{
	struct fixture *f = *state;
	struct spool_names names = { 0 };
	struct buf name = BUF_INIT, rej = BUF_INIT, err = BUF_INIT, back = BUF_INIT, why = BUF_INIT;
	char src[128], *got;
	size_t in, out;

	snprintf(src, sizeof(src), "%s/fixed.json", f->dir);
	write_file(src, "{fixed later");
	queue(f, src, &name);
	assert_int_equal(spool_reject(f->state, name.data, "unknown commit", &rej, &err), 0);
	assert_int_equal(spool_requeue(f->state, rej.data, &back, &err), 0);
	assert_string_equal(back.data, name.data);
	got = read_file(spath(f, "incoming", name.data));
	assert_string_equal(got, "{fixed later");
	free(got);
	buf_addf(&why, "%s.why", name.data);
	assert_false(exists(spath(f, "rejected", name.data)));
	assert_false(exists(spath(f, "rejected", why.data)));
	assert_int_equal(spool_count(f->state, &in, &out, &err), 0);
	assert_int_equal(in, 1);
	assert_int_equal(out, 0);
	list(f, &names);
	assert_int_equal(names.nr, 1);
	assert_string_equal(names.v[0], name.data);	/* no second prefix */

	/* rejected again while an old copy is there: "1-NAME", and back as NAME */
	write_file(spath(f, "rejected", name.data), "{old copy");
	buf_reset(&rej);
	assert_int_equal(spool_reject(f->state, name.data, "still unknown", &rej, &err), 0);
	assert_int_equal(strncmp(rej.data, "1-", 2), 0);
	buf_reset(&back);
	assert_int_equal(spool_requeue(f->state, rej.data, &back, &err), 0);
	assert_string_equal(back.data, name.data);
	/* the old copy cannot go back while incoming/ has its name */
	assert_int_equal(spool_requeue(f->state, name.data, NULL, &err), -1);
	assert_non_null(strstr(err.data, "cannot move"));
	assert_true(exists(spath(f, "rejected", name.data)));
	buf_reset(&err);
	assert_int_equal(spool_requeue(f->state, "nope.json", NULL, &err), -1);
	assert_non_null(strstr(err.data, "nope.json"));
	buf_reset(&why);
	buf_addf(&why, "%s.why", rej.data);
	assert_int_equal(spool_requeue(f->state, why.data, NULL, &err), -1);
	assert_int_equal(spool_requeue(f->state, "../x", NULL, &err), -1);
	spool_names_release(&names);
	buf_release(&name);
	buf_release(&rej);
	buf_release(&err);
	buf_release(&back);
	buf_release(&why);
}

/* Peeking lists a producer's file under its own name and renames none. */
static void peek_renames_nothing(void **state)
{
	struct fixture *f = *state;
	struct spool_names names = { 0 };
	struct buf name = BUF_INIT, err = BUF_INIT;
	char src[128];

	snprintf(src, sizeof(src), "%s/a.json", f->dir);
	write_file(src, "{}");
	queue(f, src, &name);
	write_file(spath(f, "incoming", "dropped.json"), "{}");
	write_file(spath(f, "incoming", ".half"), "{");
	assert_int_equal(spool_peek_incoming(f->state, &names, &err), 0);
	assert_int_equal(names.nr, 2);
	assert_string_equal(names.v[0], name.data);
	assert_string_equal(names.v[1], "dropped.json");
	assert_true(exists(spath(f, "incoming", "dropped.json")));
	spool_names_release(&names);
	buf_release(&name);
	buf_release(&err);
}

static void done_removes_and_is_idempotent(void **state)
{
	struct fixture *f = *state;
	struct buf name = BUF_INIT, err = BUF_INIT;
	char src[128];

	snprintf(src, sizeof(src), "%s/ok.json", f->dir);
	write_file(src, "{}");
	queue(f, src, &name);
	assert_int_equal(spool_done(f->state, name.data, &err), 0);
	assert_false(exists(spath(f, "incoming", name.data)));
	assert_int_equal(spool_done(f->state, name.data, &err), 0);
	assert_int_equal(spool_done(f->state, "../../etc/passwd", &err), -1);
	assert_non_null(strstr(err.data, "not a spool file name"));
	buf_release(&name);
	buf_release(&err);
}

static void counts(void **state)
{
	struct fixture *f = *state;
	struct buf name = BUF_INIT, err = BUF_INIT;
	size_t in = 99, out = 99;
	char src[128];
	int i;

	assert_int_equal(spool_count(f->state, &in, &out, &err), 0);
	assert_int_equal(in, 0);
	assert_int_equal(out, 0);
	for (i = 0; i < 3; i++) {
		snprintf(src, sizeof(src), "%s/c%d.json", f->dir, i);
		write_file(src, "{}");
		queue(f, src, &name);
	}
	assert_int_equal(spool_reject(f->state, name.data, "no", NULL, &err), 0);
	write_file(spath(f, "incoming", ".tmp-half"), "");
	assert_int_equal(spool_count(f->state, &in, &out, &err), 0);
	assert_int_equal(in, 2);
	assert_int_equal(out, 1);
	buf_release(&name);
	buf_release(&err);
}

static void spool_names_recognized(void **state)
{
	static const struct { const char *name; int is; } cases[] = {
		{ STAMP "-123-0-a.json", 1 },
		{ STAMP "-1-99-x", 1 },
		{ STAMP "-1-99-", 0 },
		{ "2026030905505-1-0-a.json", 0 },
		{ STAMP "0-1-0-a.json", 0 },
		{ STAMP "-x-0-a.json", 0 },
		{ STAMP "-1--a.json", 0 },
		{ "a.json", 0 },
		{ "", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (spool_name_is_spool(cases[i].name) != cases[i].is)
			fail_msg("'%s': want %d", cases[i].name, cases[i].is);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(queue_moves_the_file_whole),
		T(names_are_unique),
		T(names_are_sanitized),
		T(refused_files_stay_where_they_were),
		T(queue_copies_across_file_systems),
		T(list_ignores_dot_files_and_claims_plain_names),
		T(reject_moves_aside_with_the_reason),
		T(done_removes_and_is_idempotent),
		T(requeue_takes_a_rejected_file_back),
		T(peek_renames_nothing),
		T(counts),
		cmocka_unit_test(spool_names_recognized),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
