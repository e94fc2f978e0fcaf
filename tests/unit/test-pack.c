#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <git2.h>

#include "buf.h"
#include "pack.h"

struct fixture {
	char dir[64];		/* a bare repository */
	struct buf pack_dir;	/* its objects/pack */
	struct buf sh;		/* scratch for commands */
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	git_repository *r;

	git_libgit2_init();
	snprintf(f->dir, sizeof(f->dir), "/tmp/test-pack-XXXXXX");
	if (!mkdtemp(f->dir) || git_repository_init(&r, f->dir, 1) < 0)
		return -1;
	git_repository_free(r);
	buf_init(&f->pack_dir);
	buf_init(&f->sh);
	buf_addf(&f->pack_dir, "%s/objects/pack", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	buf_release(&f->pack_dir);
	buf_release(&f->sh);
	free(f);
	git_libgit2_shutdown();
	return 0;
}

/* Files in dir whose names start with prefix. */
static int count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* The object id as `git hash-object` computes it, for comparison. */
static void read_back(const char *dir, const git_oid *id, git_object_t type, const void *data,
		      size_t len)
{
	git_repository *r;
	git_odb *odb;
	git_odb_object *o;

	assert_int_equal(git_repository_open_bare(&r, dir), 0);
	assert_int_equal(git_repository_odb(&odb, r), 0);
	assert_int_equal(git_odb_read(&o, odb, id), 0);
	assert_int_equal(git_odb_object_type(o), type);
	assert_int_equal(git_odb_object_size(o), len);
	assert_memory_equal(git_odb_object_data(o), data, len);
	git_odb_object_free(o);
	git_odb_free(odb);
	git_repository_free(r);
}

static int run(struct fixture *f, const char *fmt, ...)
{
	va_list ap;

	buf_reset(&f->sh);
	va_start(ap, fmt);
	buf_vaddf(&f->sh, fmt, ap);
	va_end(ap);
	return system(f->sh.data);
}

/* Blobs of every size class (empty, small, above the 4-bit and 7-bit size
 * fields, larger than zlib's window), a tree and a commit: libgit2 reads
 * each back, git verify-pack and git fsck --strict accept the pack. */
static void objects_read_back(void **state)
{
	struct fixture *f = *state;
	struct pack *p = pack_new(f->pack_dir.data);
	struct buf big = BUF_INIT, err = BUF_INIT, commit = BUF_INIT;
	unsigned char tree[9 + GIT_OID_RAWSZ] = "100644 m";
	git_oid ids[6], tree_id, commit_id;
	const char *small[] = { "", "x", "fifteen bytes!!", "sixteen bytes!!!",
				"From: a@example.org\nSubject: hello\n\nbody\n" };
	size_t i;
	char hex[GIT_OID_HEXSZ + 1];

	for (i = 0; i < 300000; i++)
		buf_addc(&big, (char)('a' + (i * 7919) % 26));
	for (i = 0; i < 5; i++)
		assert_int_equal(pack_add(p, PACK_BLOB, small[i], strlen(small[i]), ids[i].id, &err), 0);
	assert_int_equal(pack_add(p, PACK_BLOB, big.data, big.len, ids[5].id, &err), 0);
	/* git hash-object's id of the empty blob */
	assert_string_equal(git_oid_tostr(hex, sizeof(hex), &ids[0]), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	memcpy(tree + 9, ids[4].id, GIT_OID_RAWSZ);
	assert_int_equal(pack_add(p, PACK_TREE, tree, sizeof(tree), tree_id.id, &err), 0);
	buf_addf(&commit, "tree %s\nauthor A <a@example.org> 1700000000 +0000\n"
		 "committer C <c@example.org> 1700000000 +0000\n\nhello\n",
		 git_oid_tostr(hex, sizeof(hex), &tree_id));
	assert_int_equal(pack_add(p, PACK_COMMIT, commit.data, commit.len, commit_id.id, &err), 0);
	assert_int_equal(pack_objects(p), 8);
	assert_true(pack_bytes(p) < big.len / 10);	/* deflated */
	assert_int_equal(count_files(f->pack_dir.data, "tmp_pack_"), 1);

	assert_int_equal(pack_write(p, &err), 0);
	assert_int_equal(pack_objects(p), 0);
	assert_int_equal(pack_bytes(p), 0);
	assert_int_equal(count_files(f->pack_dir.data, "pack-"), 2);
	assert_int_equal(count_files(f->pack_dir.data, "tmp_"), 0);

	for (i = 0; i < 5; i++)
		read_back(f->dir, &ids[i], GIT_OBJECT_BLOB, small[i], strlen(small[i]));
	read_back(f->dir, &ids[5], GIT_OBJECT_BLOB, big.data, big.len);
	read_back(f->dir, &tree_id, GIT_OBJECT_TREE, tree, sizeof(tree));
	read_back(f->dir, &commit_id, GIT_OBJECT_COMMIT, commit.data, commit.len);

	assert_int_equal(run(f, "git -C %s verify-pack %s/pack-*.idx", f->dir, f->pack_dir.data), 0);
	assert_int_equal(run(f, "git -C %s update-ref refs/heads/master %s && "
			     "git -C %s fsck --strict --no-dangling 2>&1 | (! grep .)",
			     f->dir, git_oid_tostr(hex, sizeof(hex), &commit_id), f->dir), 0);
	pack_free(p);
	buf_release(&big);
	buf_release(&commit);
	buf_release(&err);
}

/* The same object twice is packed once (an index must not name an id twice). */
static void duplicates_once(void **state)
{
	struct fixture *f = *state;
	struct pack *p = pack_new(f->pack_dir.data);
	struct buf err = BUF_INIT, body = BUF_INIT;
	git_oid a, b;
	size_t i, before;

	assert_int_equal(pack_add(p, PACK_BLOB, "same\n", 5, a.id, &err), 0);
	before = pack_bytes(p);
	assert_int_equal(pack_add(p, PACK_BLOB, "same\n", 5, b.id, &err), 0);
	assert_true(git_oid_equal(&a, &b));
	assert_int_equal(pack_objects(p), 1);
	assert_int_equal(pack_bytes(p), before);
	/* many objects: the set grows, and still finds each */
	for (i = 0; i < 5000; i++) {
		buf_reset(&body);
		buf_addf(&body, "blob %zu\n", i % 2500);
		assert_int_equal(pack_add(p, PACK_BLOB, body.data, body.len, a.id, &err), 0);
	}
	assert_int_equal(pack_objects(p), 2501);
	assert_int_equal(pack_write(p, &err), 0);
	assert_int_equal(run(f, "git -C %s verify-pack %s/pack-*.idx", f->dir, f->pack_dir.data), 0);
	pack_free(p);
	buf_release(&err);
	buf_release(&body);
}

/* A pack that cannot be made names the path and stays empty; an empty
 * pack writes nothing; tags and other types are refused; a pack freed
 * before it was written leaves no file. */
static void failures_leave_nothing(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT, missing = BUF_INIT;
	struct pack *p;
	git_oid id;

	buf_addf(&missing, "%s/nowhere", f->dir);
	p = pack_new(missing.data);
	assert_int_equal(pack_add(p, PACK_BLOB, "kept\n", 5, id.id, &err), -1);
	assert_non_null(strstr(err.data, missing.data));
	assert_int_equal(pack_objects(p), 0);
	assert_int_equal(pack_write(p, &err), 0);
	pack_free(p);

	p = pack_new(f->pack_dir.data);
	assert_int_equal(pack_write(p, &err), 0);
	assert_int_equal(count_files(f->pack_dir.data, "pack-"), 0);
	assert_int_equal(pack_add(p, (enum pack_type)4 /* a tag */, "x", 1, id.id, &err), -1);
	assert_non_null(strstr(err.data, "cannot be packed"));
	assert_int_equal(count_files(f->pack_dir.data, "tmp_"), 0);	/* nothing made yet */
	assert_int_equal(pack_add(p, PACK_BLOB, "dropped\n", 8, id.id, &err), 0);
	assert_int_equal(count_files(f->pack_dir.data, "tmp_pack_"), 1);
	pack_free(p);
	assert_int_equal(count_files(f->pack_dir.data, "tmp_"), 0);
	assert_int_equal(count_files(f->pack_dir.data, "pack-"), 0);

	/* one pack after another from the same struct pack */
	p = pack_new(f->pack_dir.data);
	assert_int_equal(pack_add(p, PACK_BLOB, "first\n", 6, id.id, &err), 0);
	assert_int_equal(pack_write(p, &err), 0);
	read_back(f->dir, &id, GIT_OBJECT_BLOB, "first\n", 6);
	assert_int_equal(pack_add(p, PACK_BLOB, "first\n", 6, id.id, &err), 0);
	assert_int_equal(pack_objects(p), 1);	/* the set starts afresh */
	assert_int_equal(pack_add(p, PACK_BLOB, "second\n", 7, id.id, &err), 0);
	assert_int_equal(pack_write(p, &err), 0);
	read_back(f->dir, &id, GIT_OBJECT_BLOB, "second\n", 7);
	assert_int_equal(count_files(f->pack_dir.data, "pack-"), 4);
	assert_int_equal(run(f, "for i in %s/pack-*.idx; do git -C %s verify-pack $i || exit 1; done",
			     f->pack_dir.data, f->dir), 0);
	pack_free(p);

	assert_true(pack_is_temporary("tmp_pack_abc123"));
	assert_true(pack_is_temporary("tmp_idx_abc123"));
	assert_false(pack_is_temporary("pack-0123.pack"));
	pack_free(NULL);
	buf_release(&err);
	buf_release(&missing);
}

/* A write that fails (here: the file size limit, EFBIG) leaves the pack
 * as it was; once the cause is gone the same pack goes on and is written
 * whole, every object readable. */
static void write_failure_keeps_the_pack(void **state)
{
	struct fixture *f = *state;
	struct pack *p = pack_new(f->pack_dir.data);
	struct buf err = BUF_INIT, body = BUF_INIT;
	struct rlimit old, small;
	git_oid ids[400];
	size_t n = 0, i, objects = 0;
	int failed = 0;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 96 << 10;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	/* incompressible bodies of 2 KiB, until a write fails */
	while (n < 400 && !failed) {
		buf_reset(&body);
		for (i = 0; i < 2048; i++)
			buf_addc(&body, (char)(((n + 1) * 2654435761u + i * 40503u) >> 7));
		if (pack_add(p, PACK_BLOB, body.data, body.len, ids[n].id, &err) < 0) {
			failed = 1;
			assert_non_null(strstr(err.data, "cannot write"));
			assert_int_equal(pack_objects(p), objects);
		} else {
			objects = pack_objects(p);
			n++;
		}
	}
	assert_true(failed);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	/* the one that failed goes in now, and the pack is complete */
	assert_int_equal(pack_add(p, PACK_BLOB, body.data, body.len, ids[n].id, &err), 0);
	n++;
	assert_int_equal(pack_write(p, &err), 0);
	assert_int_equal(run(f, "git -C %s verify-pack %s/pack-*.idx", f->dir, f->pack_dir.data), 0);
	for (i = 0; i < n; i++) {
		size_t k;

		buf_reset(&body);
		for (k = 0; k < 2048; k++)
			buf_addc(&body, (char)(((i + 1) * 2654435761u + k * 40503u) >> 7));
		read_back(f->dir, &ids[i], GIT_OBJECT_BLOB, body.data, body.len);
	}
	pack_free(p);
	buf_release(&err);
	buf_release(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(objects_read_back, setup, teardown),
		cmocka_unit_test_setup_teardown(duplicates_once, setup, teardown),
		cmocka_unit_test_setup_teardown(failures_leave_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(write_failure_keeps_the_pack, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
