/*
 * bot/watch.h: which refs perfbot track watches, in which order, each
 * report's own ref, the names people see, and which ref names are valid.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "config.h"
#include "fixes.h"
#include "watch.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct config *load_text(const char *text)
{
	char path[] = "/tmp/perfbot-watch-XXXXXX";
	struct buf err = BUF_INIT;
	struct config *c = NULL;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail_msg("cannot write %s", path);
	close(fd);
	if (config_load(path, &c, &err) < 0)
		fail_msg("%s", err.data);
	unlink(path);
	buf_release(&err);
	return c;
}

static const char conf[] =
	"[tree \"linux-next\"]\n"
	"\turl = https://example.org/next.git\n"
	"\tref = refs/remotes/next/master\n"
	"[tree \"linus\"]\n"
	"\turl = https://example.org/linus.git\n"
	"[tree \"quiet\"]\n"
	"\turl = https://example.org/quiet.git\n";

/* The trees of the reports, in the order of their first report. */
static const char *const trees[] = {
	"stable/linux-6.1.y", "linus/master", "linux-next/master", "linus/fixes",
	"stable/linux-6.6.y", "linux-next/pending", "linus/master", "not-a-tree",
	"odd/..", "odd/a b", "/master",
};

static void refs_in_configuration_order(void **state)
{
	static const struct { const char *ref, *tree; int configured; } want[] = {
		{ "refs/remotes/next/master", "linux-next", 1 },	/* one ref for all branches */
		{ "refs/remotes/linus/master", "linus", 0 },		/* its branches in report order */
		{ "refs/remotes/linus/fixes", "linus", 0 },
		/* "quiet" has a section but no ref and no report: nothing */
		{ "refs/remotes/stable/linux-6.1.y", "stable", 0 },	/* then trees without a section */
		{ "refs/remotes/stable/linux-6.6.y", "stable", 0 },
	};
	struct config *c = load_text(conf);
	struct watch w;
	size_t i;

	(void)state;
	watch_build(c, trees, N(trees), &w);
	for (i = 0; i < w.nr && i < N(want); i++) {
		assert_string_equal(w.v[i].ref, want[i].ref);
		assert_string_equal(w.v[i].tree, want[i].tree);
		assert_int_equal(w.v[i].configured, want[i].configured);
	}
	assert_int_equal(w.nr, N(want));
	watch_release(&w);

	/* no reports: only the configured refs */
	watch_build(c, NULL, 0, &w);
	assert_int_equal(w.nr, 1);
	assert_string_equal(w.v[0].ref, "refs/remotes/next/master");
	watch_release(&w);
	config_free(c);
}

static void own_ref_of_a_report(void **state)
{
	static const struct { const char *tree; size_t want; } cases[] = {
		{ "linux-next/master", 0 },
		{ "linux-next/anything", 0 },	/* tree.linux-next.ref, whatever the branch */
		{ "linus/master", 1 },
		{ "linus/fixes", 2 },
		{ "stable/linux-6.6.y", 4 },
		{ "linus/unseen", FIX_REF_NONE },
		{ "unknown/master", FIX_REF_NONE },
		{ "not-a-tree", FIX_REF_NONE },
		{ NULL, FIX_REF_NONE },
	};
	struct config *c = load_text(conf);
	struct watch w;
	struct buf ref = BUF_INIT;
	size_t i;

	(void)state;
	watch_build(c, trees, N(trees), &w);
	for (i = 0; i < N(cases); i++)
		if (watch_own(&w, c, cases[i].tree) != cases[i].want)
			fail_msg("%s: %zu, want %zu", cases[i].tree ? cases[i].tree : "(null)",
				 watch_own(&w, c, cases[i].tree), cases[i].want);
	assert_int_equal(watch_ref_of(c, "linux-next/x", &ref), 1);
	assert_string_equal(ref.data, "refs/remotes/next/master");
	buf_reset(&ref);
	assert_int_equal(watch_ref_of(c, "odd/a b", &ref), 0);
	assert_int_equal(ref.len, 0);
	assert_int_equal(watch_find(&w, "refs/remotes/linus/fixes"), 2);
	assert_int_equal(watch_find(&w, "refs/heads/master"), FIX_REF_NONE);
	/* the report's own ref first, then the others in order */
	assert_int_equal(fix_ref_rank(2, watch_own(&w, c, "linus/fixes")), 0);
	assert_int_equal(fix_ref_rank(0, watch_own(&w, c, "linus/fixes")), 1);
	watch_release(&w);
	buf_release(&ref);
	config_free(c);
}

static void refs_named_for_people(void **state)
{
	static const struct { const char *ref, *want; } cases[] = {
		{ "refs/remotes/next/master", "linux-next" },
		{ "refs/remotes/linus/master", "linus/master" },
		{ "refs/heads/fixes", "fixes" },
		{ "refs/tags/v6.1", "refs/tags/v6.1" },
	};
	struct config *c = load_text(conf);
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct buf out = BUF_INIT;

		watch_ref_short(&out, c, cases[i].ref);
		assert_string_equal(out.data, cases[i].want);
		buf_release(&out);
	}
	config_free(c);
}

static void ref_names_as_git_takes_them(void **state)
{
	static const struct { const char *ref; int ok; } cases[] = {
		{ "refs/remotes/linus/master", 1 },
		{ "refs/heads/linux-6.1.y", 1 },
		{ "refs/remotes/a/b/c", 1 },
		{ "linus/master", 0 },
		{ "refs/", 0 },
		{ "refs/remotes/a/../b", 0 },
		{ "refs/remotes/a//b", 0 },
		{ "refs/remotes/a/.b", 0 },
		{ "refs/remotes/a/b.", 0 },
		{ "refs/remotes/a/b/", 0 },
		{ "refs/remotes/a/b.lock", 0 },
		{ "refs/remotes/a@{1}", 0 },
		{ "refs/remotes/a b", 0 },
		{ "refs/remotes/a~1", 0 },
		{ "refs/remotes/a^", 0 },
		{ "refs/remotes/a:b", 0 },
		{ "refs/remotes/a?", 0 },
		{ "refs/remotes/a*", 0 },
		{ "refs/remotes/a[", 0 },
		{ "refs/remotes/a\\b", 0 },
		{ "refs/remotes/a\tb", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (config_ref_name_valid(cases[i].ref) != cases[i].ok)
			fail_msg("'%s': %d, want %d", cases[i].ref, config_ref_name_valid(cases[i].ref),
				 cases[i].ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refs_in_configuration_order),
		cmocka_unit_test(own_ref_of_a_report),
		cmocka_unit_test(refs_named_for_people),
		cmocka_unit_test(ref_names_as_git_takes_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
