/*
 * bot/patch and repo_tree_file(): a commit's paths and format-patch text,
 * and a file read from a commit's tree, on a repository made with git in
 * a temporary directory (then read as a bare clone: no work tree).
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

#include "buf.h"
#include "patch.h"
#include "repo.h"

struct fixture {
	char dir[64];
	struct buf bare;	/* the bare clone perfbot reads */
	struct repo *repo;
	char ids[8][41];	/* root, change, rename, delete, mode, side, merge, binary */
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static const char script[] =
	"set -e; export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 "
	"GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@mediatek.com GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@x.org "
	"GIT_AUTHOR_DATE='@1767225600 +0100' GIT_COMMITTER_DATE='@1767225600 +0000'; "
	"cd %s; git init -q w; cd w; git config commit.gpgsign false; "
	"mkdir -p kernel/cgroup drivers/a; printf 'A\\nM:\\ta@x.org\\nF:\\tdrivers/a/\\n' > MAINTAINERS; "
	"printf 'one\\ntwo\\nthree\\n' > kernel/cgroup/cgroup.c; "
	"printf 'l1\\nl2\\nl3\\nl4\\nl5\\nl6\\nl7\\nl8\\n' > drivers/a/old.c; "
	"printf 'x\\n' > drivers/a/gone.c; printf 'x\\n' > run.sh; "
	"git add -A; git commit -qm root; git rev-parse HEAD > ../ids; "
	"echo four >> kernel/cgroup/cgroup.c; git commit -qam 'cgroup: Add four' -m 'Uses pidfd here.'; git rev-parse HEAD >> ../ids; "
	"git mv drivers/a/old.c drivers/b.c; git commit -qm rename; git rev-parse HEAD >> ../ids; "
	"git rm -q drivers/a/gone.c; git commit -qm delete; git rev-parse HEAD >> ../ids; "
	"chmod 755 run.sh; git commit -qam mode; git rev-parse HEAD >> ../ids; "
	"git checkout -q -b side HEAD~1; echo side > side.c; git add side.c; git commit -qm side; git rev-parse HEAD >> ../ids; "
	"git checkout -q master; git merge -q --no-ff -m merge side; git rev-parse HEAD >> ../ids; "
	"printf '\\000\\001\\002binary' > blob.bin; git add blob.bin; git commit -qm binary; git rev-parse HEAD >> ../ids; "
	"cd ..; git clone -q --bare w bare.git";

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf sh = BUF_INIT, err = BUF_INIT, ids = BUF_INIT;
	size_t i;

	snprintf(f->dir, sizeof(f->dir), "/tmp/test-patch-XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	buf_addf(&sh, script, f->dir);
	if (system(sh.data) != 0)
		return -1;
	buf_reset(&sh);
	buf_addf(&sh, "%s/ids", f->dir);
	if (buf_read_file(&ids, sh.data, 0, &err) < 0 || ids.len != 8 * 41)
		return -1;
	for (i = 0; i < 8; i++) {
		memcpy(f->ids[i], ids.data + i * 41, 40);
		f->ids[i][40] = '\0';
	}
	buf_init(&f->bare);
	buf_addf(&f->bare, "%s/bare.git", f->dir);
	if (repo_open(f->bare.data, &f->repo, &err) < 0)
		return -1;
	buf_release(&sh);
	buf_release(&ids);
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	repo_free(f->repo);
	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	buf_release(&f->bare);
	free(f);
	return 0;
}

static char *joined(const struct patch *p)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < p->nr_files; i++)
		buf_addf(&b, "%s%s", i ? " " : "", p->files[i]);
	return buf_detach(&b, NULL);
}

static void paths_of_each_kind(void **state)
{
	static const struct {
		int commit;
		const char *files;
		const char *in_text;	/* a line the text must hold */
	} cases[] = {
		{ 0, "MAINTAINERS drivers/a/gone.c drivers/a/old.c kernel/cgroup/cgroup.c run.sh", " create mode 100644 run.sh\n" },
		{ 1, "kernel/cgroup/cgroup.c", "+four\n" },
		{ 2, "drivers/a/old.c drivers/b.c", " rename drivers/{a/old.c => b.c} (100%)\n" },
		{ 3, "drivers/a/gone.c", "--- a/drivers/a/gone.c\n+++ /dev/null\n" },
		{ 4, "run.sh", " mode change 100644 => 100755 run.sh\n" },
		/* a merge: what it brings to its first parent */
		{ 6, "side.c", "+side\n" },
		{ 7, "blob.bin", "GIT binary patch\n" },
	};
	struct fixture *f = *state;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct patch p;
		struct buf err = BUF_INIT;
		char *files;

		if (patch_from_commit(f->repo, f->ids[cases[i].commit], &p, &err) < 0)
			fail_msg("commit %d: %s", cases[i].commit, err.data);
		files = joined(&p);
		if (strcmp(files, cases[i].files))
			fail_msg("commit %d: files '%s', want '%s'", cases[i].commit, files, cases[i].files);
		if (!strstr(p.text.data, cases[i].in_text))
			fail_msg("commit %d: no '%s' in:\n%s", cases[i].commit, cases[i].in_text, p.text.data);
		free(files);
		patch_release(&p);
		buf_release(&err);
	}
}

static void text_is_format_patch(void **state)
{
	struct fixture *f = *state;
	struct patch p;
	struct buf err = BUF_INIT, want = BUF_INIT;

	assert_int_equal(patch_from_commit(f->repo, f->ids[1], &p, &err), 0);
	buf_addf(&want,
		 "From %s Mon Sep 17 00:00:00 2001\n"
		 "From: Ann <ann@mediatek.com>\n"
		 "Date: Thu, 1 Jan 2026 01:00:00 +0100\n"
		 "Subject: [PATCH] cgroup: Add four\n"
		 "\n"
		 "Uses pidfd here.\n"
		 "---\n"
		 " kernel/cgroup/cgroup.c | 1\n"
		 " 1 file changed, 1 insertion(+)\n"
		 "\n"
		 "diff --git a/kernel/cgroup/cgroup.c b/kernel/cgroup/cgroup.c\n", f->ids[1]);
	if (strncmp(p.text.data, want.data, want.len))
		fail_msg("got:\n%s\nwant the start:\n%s", p.text.data, want.data);
	assert_non_null(strstr(p.text.data, "@@ -1,3 +1,4 @@\n one\n two\n three\n+four\n"));
	patch_release(&p);
	buf_release(&want);
	buf_release(&err);
}

static void bad_ids(void **state)
{
	struct fixture *f = *state;
	struct patch p;
	struct buf err = BUF_INIT;

	assert_int_equal(patch_from_commit(f->repo, "1234", &p, &err), -1);
	assert_string_equal(err.data, "'1234' is not a full commit id");
	assert_int_equal(patch_from_commit(f->repo, "0123456789012345678901234567890123456789", &p, &err), -1);
	assert_non_null(strstr(err.data, "0123456789012345678901234567890123456789: "));
	buf_release(&err);
}

static void tree_files(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT, err = BUF_INIT, sh = BUF_INIT, want = BUF_INIT;
	char blob[41];
	FILE *p;
	char line[64];

	assert_int_equal(repo_tree_file(f->repo, f->ids[0], "MAINTAINERS", 0, &out, blob, &err), 0);
	assert_string_equal(out.data, "A\nM:\ta@x.org\nF:\tdrivers/a/\n");
	buf_addf(&sh, "git -C %s rev-parse %s:MAINTAINERS", f->bare.data, f->ids[0]);
	p = popen(sh.data, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	line[40] = '\0';
	assert_string_equal(blob, line);
	buf_reset(&out);
	/* not there, a directory: 1, not an error, nothing read */
	assert_int_equal(repo_tree_file(f->repo, f->ids[0], "NOPE", 0, &out, blob, &err), 1);
	assert_int_equal(repo_tree_file(f->repo, f->ids[0], "drivers", 0, &out, blob, &err), 1);
	assert_int_equal(repo_tree_file(f->repo, f->ids[3], "drivers/a/gone.c", 0, &out, blob, &err), 1);
	assert_int_equal(out.len, 0);
	assert_int_equal(repo_tree_file(f->repo, f->ids[0], "MAINTAINERS", 10, &out, blob, &err), -1);
	buf_addf(&want, "MAINTAINERS in commit %.12s: 27 bytes, more than 10", f->ids[0]);
	assert_string_equal(err.data, want.data);
	buf_release(&out);
	buf_release(&err);
	buf_release(&sh);
	buf_release(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paths_of_each_kind),
		cmocka_unit_test(text_is_format_patch),
		cmocka_unit_test(bad_ids),
		cmocka_unit_test(tree_files),
	};

	return cmocka_run_group_tests_name("patch", tests, setup, teardown);
}
