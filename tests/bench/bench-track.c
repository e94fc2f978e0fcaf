/*
 * tests/bench/bench-track.c: the benchmark of perfbot track (perfbot-track(1)):
 * the engine (bot/history.h walking, bot/fixes.h finding) and the command,
 * beside git reading the same commits' trailers.  Not run by make check.
 *
 *   1. writes a bare repository with `git fast-import` from a generator
 *      in this file: BENCH_TRACK_COMMITS (100,000) commits with fixed
 *      dates and a fixed pseudo-random sequence, kernel-like messages
 *      (Signed-off-by on each; about 30% with an unrelated Link:, 12%
 *      with an unrelated Fixes:, reviewers, Cc; a merge every 100
 *      commits) and, for half of BENCH_TRACK_REPORTS (1,000) open
 *      reports, one fix in each shape (closes, link percent-encoded,
 *      revert, fixes with perfbot's Reported-by, possible fix);
 *   2. full walk: repo_open(), fix_index_new() of the reports, then
 *      history_walk() of the whole ref (no cursor, no boundary) with
 *      fix_index_wants() as the pre-filter and fix_scan() on each
 *      commit; BENCH_TRACK_RUNS (5) times, each with a fresh repository
 *      handle (the files in the page cache);
 *   3. incremental walk: 100 more commits (2 of them fixes) are added on
 *      top, and the walk from the old tip is timed likewise;
 *   4. checks that each walk found exactly the fixes planted, and prints
 *      the medians: commits/s of the full walk (target >= 50,000) and
 *      the incremental walk's time, each for the walk alone and with the
 *      repository opened and the index built;
 *   5. the command itself, when BENCH_PERFBOT names the binary: a state
 *      database with the reports (and a follow-up each, whose Message-IDs
 *      the Link: fixes name) and a configuration watching the ref; then
 *      `perfbot track` is run as a process (start-up, configuration,
 *      lock, state, repository, the walk and the transaction included),
 *      BENCH_TRACK_RUNS times each from a copy of the same state: the
 *      first run of a ref (the whole history) and, from the state that
 *      run left, the incremental run over the 100 new commits; checked
 *      for the findings planted.  Each run is followed by its peer, `git
 *      log --format='%H %(trailers)'` over the same commits (REF, then
 *      OLD..REF), a process too, so both sides pay their start-up and
 *      the machine's noise falls on both alike.  Targets, on the medians:
 *      the first run at least 0.8x git's commits per second, the
 *      incremental run at most 3x git's time.
 * Exit 1 when the findings are wrong; with BENCH_STRICT=1, 2 when a
 * target is missed.  BENCH_TRACK_KEEP=DIR keeps the repository there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fixes.h"
#include "history.h"
#include "repo.h"
#include "state.h"
#include "xalloc.h"

#define REF "refs/remotes/linus/master"
#define REPORTED_BY "kernel test robot <lkp@intel.com>"
#define T0 1700000000
#define INCREMENT 100
#define MAX_RUNS 50

struct bench_report {
	char head[41];
	char mid[64], followup[64];
	const char *mids[2];
};

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static unsigned long long rng(void)
{
	/* xorshift64*: the same sequence on every machine */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static void hex_random(char *out, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = digits[rng() & 15];
	out[n] = '\0';
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* What the generator planted, by kind, to check the walks against. */
struct planted {
	size_t by_kind[FIX_POSSIBLE + 1];
	size_t total;
};

static const char *const subsystems[] = { "mm", "net", "fs/ext4", "sched", "drm/i915", "x86",
					   "block", "btrfs", "bpf", "usb" };

/* One commit of the fast-import stream: a message like the kernel's. */
static void gen_commit(struct buf *s, const char *ref, long mark, long from, long merge, long at,
		       const struct bench_report *fix_for, enum fix_kind kind, struct planted *p)
{
	struct buf m = BUF_INIT;
	char hex[41];
	unsigned long long r = rng();
	const char *sub = subsystems[r % 10];

	if (merge)
		buf_addf(&m, "Merge branch '%s-fixes'\n\nPull %s fixes.\n", sub, sub);
	else if (fix_for && kind == FIX_REVERT)
		buf_addf(&m, "Revert \"%s: change\"\n\nThis reverts commit %s.\n\nIt regressed.\n", sub,
			 fix_for->head);
	else
		buf_addf(&m, "%s: change number %ld of the series\n\n"
			 "This changes the way things are done in %s, because the old way\n"
			 "was slow under load and wasted memory on large machines.  Tested\n"
			 "on a 2-socket box with the usual benchmarks.\n", sub, mark, sub);
	buf_adds(&m, "\n");
	if (!merge && (r >> 8) % 100 < 12) {
		hex_random(hex, 12);
		buf_addf(&m, "Fixes: %s (\"%s: an older change\")\n", hex, sub);
	}
	if (fix_for) {
		switch (kind) {
		case FIX_CLOSES:
			buf_addf(&m, "Reported-by: %s\nCloses: https://lore.kernel.org/oe-lkp/%s\n",
				 REPORTED_BY, fix_for->mid);
			break;
		case FIX_LINK: {
			const char *at_sign = strchr(fix_for->followup, '@');

			buf_addf(&m, "Link: https://lore.kernel.org/r/%.*s%%40%s\n",
				 (int)(at_sign - fix_for->followup), fix_for->followup, at_sign + 1);
			break;
		}
		case FIX_FIXES:
			buf_addf(&m, "Fixes: %.12s (\"x\")\nReported-by: Kernel Test Robot <LKP@intel.com>\n",
				 fix_for->head);
			break;
		case FIX_POSSIBLE:
			buf_addf(&m, "Fixes: %.14s (\"x\")\n", fix_for->head);
			break;
		default:
			break;
		}
		p->by_kind[kind]++;
		p->total++;
	}
	if ((r >> 16) % 100 < 30)
		buf_addf(&m, "Reviewed-by: Rev Iewer <rev%llu@example.org>\n", (r >> 24) % 50);
	if ((r >> 32) % 100 < 20)
		buf_adds(&m, "Cc: stable@vger.kernel.org\n");
	buf_addf(&m, "Signed-off-by: Dev Eloper <dev%llu@example.org>\n", (r >> 40) % 200);
	if (!merge && (r >> 48) % 100 < 30) {
		hex_random(hex, 8);
		buf_addf(&m, "Link: https://lore.kernel.org/r/20231114.%s-1-dev@example.org\n", hex);
	}
	buf_addf(&m, "Signed-off-by: Main Tainer <maint%llu@example.org>\n", (r >> 56) % 20);

	buf_addf(s, "commit %s\nmark :%ld\n", ref, mark);
	buf_addf(s, "committer Main Tainer <maint@example.org> %ld +0000\n", (long)T0 + at);
	buf_addf(s, "data %zu\n%s\n", m.len, m.data);
	if (from > 0)
		buf_addf(s, "from :%ld\n", from);
	if (merge)
		buf_addf(s, "merge :%ld\n", merge);
	buf_release(&m);
}

static int fast_import(const char *dir, const struct buf *s, const char *marks_in,
		       const char *marks_out)
{
	struct buf cmd = BUF_INIT;
	FILE *p;
	int ok;

	buf_addf(&cmd, "git -C %s fast-import --quiet --export-marks=%s", dir, marks_out);
	if (marks_in)
		buf_addf(&cmd, " --import-marks=%s", marks_in);
	p = popen(cmd.data, "w");
	buf_release(&cmd);
	if (!p)
		return -1;
	ok = fwrite(s->data, 1, s->len, p) == s->len;
	return pclose(p) == 0 && ok ? 0 : -1;
}

struct counts {
	struct fix_index *ix;
	struct fix_matches m;
	size_t by_kind[FIX_POSSIBLE + 1];
	size_t total;
};

static int want(const char *id, const char *message, void *data)
{
	struct counts *c = data;

	return fix_index_wants(c->ix, id, message);
}

static int on_commit(const struct fix_commit *fc, void *data, struct buf *err)
{
	struct counts *c = data;
	size_t i;

	(void)err;
	fix_scan(c->ix, fc, &c->m);
	for (i = 0; i < c->m.nr; i++) {
		c->by_kind[c->m.v[i].kind]++;
		c->total++;
	}
	return 0;
}

/* One timed walk; 0 or -1.  *walk_s is the walk alone, *all_s with the
 * open and the index. */
static int timed_walk(const char *dir, const struct fix_report *reports, size_t nr,
		      const char *cursor, struct counts *c, struct history_result *res,
		      double *walk_s, double *all_s)
{
	struct repo *r = NULL;
	struct buf err = BUF_INIT;
	double t0 = now(), t1;

	memset(c, 0, sizeof(*c));
	if (repo_open(dir, &r, &err) || fix_index_new(reports, nr, REPORTED_BY, &c->ix, &err)) {
		fprintf(stderr, "bench-track: %s\n", err.data);
		return -1;
	}
	t1 = now();
	if (history_walk(r, REF, cursor, 0, want, on_commit, c, res, &err)) {
		fprintf(stderr, "bench-track: %s\n", err.data);
		return -1;
	}
	*walk_s = now() - t1;
	*all_s = now() - t0;
	fix_index_free(c->ix);
	fix_matches_release(&c->m);
	repo_free(r);
	buf_release(&err);
	return 0;
}

static int check(const char *what, const struct counts *c, const struct planted *p)
{
	size_t k;

	for (k = 0; k <= FIX_POSSIBLE; k++) {
		if (c->by_kind[k] != p->by_kind[k]) {
			fprintf(stderr, "bench-track: %s walk found %zu %s, planted %zu\n", what,
				c->by_kind[k], fix_kind_name((enum fix_kind)k), p->by_kind[k]);
			return -1;
		}
	}
	return 0;
}

/* ---- the command -------------------------------------------------------- */

extern char **environ;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	struct buf cmd = BUF_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	r = system(cmd.data);
	buf_release(&cmd);
	return r;
}

/* The state `perfbot track` starts from: every report open, on the
 * watched tree, with one follow-up.  0 or -1. */
static int make_state(const char *dir, const struct bench_report *br, int nr)
{
	static char mail[] = "From: robot <lkp@intel.com>\nSubject: x\n\nbody\n";
	struct state *st = NULL;
	struct buf err = BUF_INIT, key = BUF_INIT;
	int i, ret = 0;

	if (state_open(dir, &st, &err) < 0 || state_begin(st, &err) < 0) {
		fprintf(stderr, "bench-track: %s\n", err.data);
		state_close(st);
		return -1;
	}
	for (i = 0; i < nr && ret == 0; i++) {
		struct state_report r;
		int64_t id = 0;

		memset(&r, 0, sizeof(r));
		buf_reset(&key);
		buf_addf(&key, "linus\n%s\ntc\nhl", br[i].head);
		r.message_id = (char *)br[i].mid;
		r.kind = STATE_KIND_REPORT;
		r.thread_key = key.data;
		r.identity = key.data;
		r.subject = "[linus:master] [mm]  0123456789: x 3.8% regression";
		r.from_name = "robot";
		r.from_email = r.env_from = "lkp@intel.com";
		r.env_rcpt = r.to_addrs = "dev@example.org";
		r.cc_addrs = "";
		r.mail = mail;
		r.mail_len = sizeof(mail) - 1;
		r.created = T0 - 60;
		r.tree = "linus/master";
		r.head = (char *)br[i].head;
		ret = state_report_add(st, &r, &id, &err);
		r.message_id = (char *)br[i].followup;
		r.kind = STATE_KIND_FOLLOWUP;
		r.parent_id = id;
		r.subject = "Re: [linus:master] [mm]  0123456789: x 3.8% regression";
		if (ret == 0)
			ret = state_report_add(st, &r, NULL, &err);
	}
	if (ret || state_commit(st, &err) < 0) {
		fprintf(stderr, "bench-track: %s\n", err.data);
		ret = -1;
	}
	state_close(st);
	buf_release(&err);
	buf_release(&key);
	return ret;
}

/* Runs argv[0] (a path) with stdout to /dev/null and stderr to log (or
 * /dev/null when NULL): *secs its wall time, from the spawn to its exit,
 * *cpu the processor time it used (user and system: what it costs on a
 * machine others do not share).  Its exit status, or -1 when it could
 * not be run. */
static int spawn_timed(char *const argv[], const char *log, double *secs, double *cpu)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	double t0;
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
					 0600);
	t0 = now();
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		perror(argv[0]);
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*secs = now() - t0;
	*cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* One `perfbot --config CONF track` from a fresh copy of the state
 * `from` (in run/, where CONF points), timed as spawn_timed() says;
 * *findings the lines it printed for findings, *examined what its
 * summary says.  0, or -1 when it failed. */
static int run_command(const char *perfbot, const char *dir, const char *from, double *secs,
		       double *cpu, size_t *findings, size_t *examined)
{
	char conf[300], log[300], line[4096];
	char *argv[] = { (char *)perfbot, "--config", conf, "track", NULL };
	FILE *f;
	int rc;

	snprintf(conf, sizeof(conf), "%s/perfbot.conf", dir);
	snprintf(log, sizeof(log), "%s/track.log", dir);
	if (sh("rm -rf '%s/run' && cp -a '%s' '%s/run'", dir, from, dir))
		return -1;
	rc = spawn_timed(argv, log, secs, cpu);
	*findings = *examined = 0;
	f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " walked, ");

		if (!strncmp(line, "report ", 7))
			(*findings)++;
		if (!strncmp(line, "done: ", 6) && p)
			*examined = (size_t)strtoull(p + 9, NULL, 10);
	}
	if (f)
		fclose(f);
	if (rc) {
		fprintf(stderr, "bench-track: perfbot track exited %d:\n", rc);
		sh("tail -n 5 '%s' >&2", log);
		return -1;
	}
	return 0;
}

/* The peer: git walking the same commits and reading their trailers,
 * `git log --format='%H %(trailers)' RANGE` (git's own reading of a
 * commit message's trailers), as a process, output to /dev/null.  0, or
 * -1 when git failed. */
static int run_git_log(const char *git, const char *dir, const char *range, double *secs, double *cpu)
{
	char gitdir[300];
	char *argv[] = { (char *)git, gitdir, "log", "--format=%H %(trailers)", (char *)range, NULL };

	snprintf(gitdir, sizeof(gitdir), "--git-dir=%s", dir);
	if (spawn_timed(argv, NULL, secs, cpu)) {
		fprintf(stderr, "bench-track: git log %s failed\n", range);
		return -1;
	}
	return 0;
}

/* The wall time of `perfbot --version`: what starting the process costs
 * (the loader, the libraries' constructors), for comparison. */
static double run_version(const char *perfbot)
{
	char *argv[] = { (char *)perfbot, "--version", NULL };
	double secs = 0, cpu;

	return spawn_timed(argv, NULL, &secs, &cpu) == 0 ? secs : 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	int nr_commits = env_int("BENCH_TRACK_COMMITS", 100000);
	int nr_reports = env_int("BENCH_TRACK_REPORTS", 1000);
	int runs = env_int("BENCH_TRACK_RUNS", 5);
	const char *keep = getenv("BENCH_TRACK_KEEP");
	const char *perfbot = getenv("BENCH_PERFBOT");
	double cmd_s[MAX_RUNS], icmd_s[MAX_RUNS], cmd_full = 0, cmd_inc = 0;
	double cpu_s[MAX_RUNS], icpu_s[MAX_RUNS], cpu_full = 0, cpu_inc = 0;
	double ver_s[MAX_RUNS], ver = 0, load[3] = { 0, 0, 0 };
	double git_s[MAX_RUNS], igit_s[MAX_RUNS], gcpu_s[MAX_RUNS], igcpu_s[MAX_RUNS];
	double git_full = 0, git_inc = 0, gcpu_full = 0, gcpu_inc = 0;
	const char *git = getenv("BENCH_GIT") && *getenv("BENCH_GIT") ? getenv("BENCH_GIT") : "/usr/bin/git";
	char range[100];
	char path0[300], path1[300], conf_path[300];
	size_t findings, examined;
	FILE *conf;
	char dir[256], marks[300], tip[41] = "";
	struct bench_report *br;
	struct fix_report *reports;
	struct planted full = { { 0 }, 0 }, inc = { { 0 }, 0 };
	struct buf s = BUF_INIT, cmd = BUF_INIT;
	double walk_s[MAX_RUNS], all_s[MAX_RUNS], iwalk_s[MAX_RUNS], iall_s[MAX_RUNS];
	double gen_s, full_walk, full_all, inc_walk, inc_all, rate;
	struct counts c;
	struct history_result res;
	long mark = 0, main_mark = 0, at = 0;
	int i, fail = 0, strict = env_int("BENCH_STRICT", 0);
	size_t next_fix = 0, nr_fixed;

	if (runs < 1 || runs > MAX_RUNS || nr_commits < 1000 || nr_reports < 10) {
		fprintf(stderr, "bench-track: BENCH_TRACK_RUNS 1..%d, COMMITS >= 1000, REPORTS >= 10\n",
			MAX_RUNS);
		return 1;
	}
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	if (keep && *keep) {
		snprintf(dir, sizeof(dir), "%s", keep);
		if (mkdir(dir, 0700) && errno != EEXIST) {
			perror(dir);
			return 1;
		}
	} else {
		snprintf(dir, sizeof(dir), "/tmp/bench-track-XXXXXX");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			return 1;
		}
	}
	snprintf(marks, sizeof(marks), "%s/marks", dir);

	/* the reports: heads that need not be in the repository (the index
	 * only compares ids), perfbot-style Message-IDs, a follow-up each */
	br = xcalloc((size_t)nr_reports, sizeof(*br));
	reports = xcalloc((size_t)nr_reports, sizeof(*reports));
	for (i = 0; i < nr_reports; i++) {
		char h8[9];

		hex_random(br[i].head, 40);
		hex_random(h8, 8);
		snprintf(br[i].mid, sizeof(br[i].mid), "2023%02d%02d%02d%02d.%s-lkp@intel.com",
			 1 + i % 12, 1 + i % 28, i % 24, i % 60, h8);
		snprintf(br[i].followup, sizeof(br[i].followup), "2023%02d%02d%02d%02d.%s-lkp@intel.com",
			 1 + i % 12, 1 + i % 28, (i + 1) % 24, i % 60, h8);
		br[i].mids[0] = br[i].mid;
		br[i].mids[1] = br[i].followup;
		reports[i] = (struct fix_report){ i + 1, br[i].head, br[i].mids, 2, NULL };
	}
	nr_fixed = (size_t)nr_reports / 2;

	gen_s = now();
	buf_addf(&cmd, "git init -q --bare %s", dir);
	if (system(cmd.data)) {
		fprintf(stderr, "bench-track: git init failed\n");
		return 1;
	}
	while (mark < nr_commits) {
		const struct bench_report *fix_for = NULL;
		enum fix_kind kind = FIX_CLOSES;

		at += 60;
		if (mark && mark % 100 == 99 && mark + 2 <= nr_commits) {
			long side = ++mark;

			gen_commit(&s, "refs/heads/side", side, main_mark, 0, at, NULL, 0, &full);
			at += 60;
			mark++;
			gen_commit(&s, REF, mark, main_mark, side, at, NULL, 0, &full);
			main_mark = mark;
			continue;
		}
		/* the planted fixes, spread evenly over the history */
		if (next_fix < nr_fixed && (size_t)mark * nr_fixed / (size_t)nr_commits >= next_fix) {
			fix_for = &br[next_fix];
			kind = (enum fix_kind)(next_fix % 5);
			if (kind == FIX_FIXED_BY)
				kind = FIX_POSSIBLE;
			next_fix++;
		}
		mark++;
		gen_commit(&s, REF, mark, main_mark, 0, at, fix_for, kind, &full);
		main_mark = mark;
	}
	if (fast_import(dir, &s, NULL, marks)) {
		fprintf(stderr, "bench-track: git fast-import failed\n");
		return 1;
	}
	gen_s = now() - gen_s;

	printf("bench-track: %d commits (%ld seconds of history), %d open reports, %zu fixes planted;"
	       " generated in %.1f s\n", nr_commits, at, nr_reports, full.total, gen_s);
	for (i = 0; i < runs; i++) {
		if (timed_walk(dir, reports, (size_t)nr_reports, NULL, &c, &res, &walk_s[i], &all_s[i]))
			return 1;
		if (res.examined != (size_t)nr_commits) {
			fprintf(stderr, "bench-track: the full walk examined %zu commits, not %d\n",
				res.examined, nr_commits);
			return 1;
		}
		if (check("the full", &c, &full))
			return 1;
	}
	memcpy(tip, res.tip, sizeof(tip));
	printf("  full walk: %zu commits examined, %zu with trailers read, %zu findings\n",
	       res.examined, res.parsed, c.total);

	/* the command, on its first run of the ref */
	snprintf(path0, sizeof(path0), "%s/state0", dir);
	snprintf(path1, sizeof(path1), "%s/state1", dir);
	if (perfbot && *perfbot) {
		snprintf(conf_path, sizeof(conf_path), "%s/perfbot.conf", dir);
		conf = fopen(conf_path, "w");
		if (!conf || fprintf(conf, "[perfbot]\n\tfrom = kernel test robot <lkp@intel.com>\n"
				     "\treportedBy = %s\n\trepo = %s\n\tstate = %s/run\n"
				     "[tree \"linus\"]\n\turl = https://example.org/linux.git\n",
				     REPORTED_BY, dir, dir) < 0 || fclose(conf) != 0) {
			perror(conf_path);
			return 1;
		}
		if (make_state(path0, br, nr_reports))
			return 1;
		setenv("PERFBOT_NOW", "1800000000", 1);
		for (i = 0; i < runs; i++) {
			if (run_command(perfbot, dir, path0, &cmd_s[i], &cpu_s[i], &findings, &examined) ||
			    run_git_log(git, dir, REF, &git_s[i], &gcpu_s[i]))
				return 1;
			if (findings != full.total || examined != (size_t)nr_commits) {
				fprintf(stderr, "bench-track: perfbot track found %zu in %zu commits, not %zu in %d\n",
					findings, examined, full.total, nr_commits);
				return 1;
			}
			if (i == 0 && sh("cp -a '%s/run' '%s'", dir, path1))
				return 1;
		}
		cmd_full = median(cmd_s, runs);
		cpu_full = median(cpu_s, runs);
		git_full = median(git_s, runs);
		gcpu_full = median(gcpu_s, runs);
	}

	/* 100 more commits on top, two of them fixes of still open reports */
	buf_reset(&s);
	for (i = 0; i < INCREMENT; i++) {
		const struct bench_report *fix_for = NULL;

		at += 60;
		if (i == 10 || i == 60)
			fix_for = &br[nr_fixed + (i == 60)];
		mark++;
		gen_commit(&s, REF, mark, main_mark, 0, at, fix_for, i == 10 ? FIX_CLOSES : FIX_REVERT,
			   &inc);
		main_mark = mark;
	}
	if (fast_import(dir, &s, marks, marks)) {
		fprintf(stderr, "bench-track: git fast-import (increment) failed\n");
		return 1;
	}
	for (i = 0; i < runs; i++) {
		if (timed_walk(dir, reports, (size_t)nr_reports, tip, &c, &res, &iwalk_s[i], &iall_s[i]))
			return 1;
		if (res.examined != INCREMENT) {
			fprintf(stderr, "bench-track: the incremental walk examined %zu commits, not %d\n",
				res.examined, INCREMENT);
			return 1;
		}
		if (check("the incremental", &c, &inc))
			return 1;
	}

	if (perfbot && *perfbot) {
		snprintf(range, sizeof(range), "%s.." REF, tip);
		for (i = 0; i < runs; i++) {
			if (run_command(perfbot, dir, path1, &icmd_s[i], &icpu_s[i], &findings, &examined) ||
			    run_git_log(git, dir, range, &igit_s[i], &igcpu_s[i]))
				return 1;
			if (findings != inc.total || examined != INCREMENT) {
				fprintf(stderr, "bench-track: perfbot track (incremental) found %zu in %zu commits, "
					"not %zu in %d\n", findings, examined, inc.total, INCREMENT);
				return 1;
			}
		}
		cmd_inc = median(icmd_s, runs);
		cpu_inc = median(icpu_s, runs);
		git_inc = median(igit_s, runs);
		gcpu_inc = median(igcpu_s, runs);
		for (i = 0; i < runs; i++)
			ver_s[i] = run_version(perfbot);
		ver = median(ver_s, runs);
	}

	full_walk = median(walk_s, runs);
	full_all = median(all_s, runs);
	inc_walk = median(iwalk_s, runs);
	inc_all = median(iall_s, runs);
	rate = (double)nr_commits / full_walk;
	printf("  medians of %d runs:\n", runs);
	printf("  %-34s %10.0f commits/s  (%.3f s; with open + index %.3f s, %.0f commits/s)"
	       "  target >= 50000: %s\n", "full walk", rate, full_walk, full_all,
	       (double)nr_commits / full_all, rate >= 50000 ? "met" : "MISSED");
	printf("  %-34s %10.2f ms         (with open + index %.2f ms)\n",
	       "incremental walk (100 commits)", inc_walk * 1e3, inc_all * 1e3);
	if (rate < 50000)
		fail = strict ? 2 : 0;
	if (perfbot && *perfbot) {
		if (getloadavg(load, 3) < 0)
			load[0] = load[1] = load[2] = 0;
		printf("  perfbot track, the command, beside `git log --format='%%H %%(trailers)'` over the same"
		       " commits, interleaved, both as processes (start-up included; load average"
		       " %.2f %.2f %.2f, perfbot --version alone %.2f ms):\n", load[0], load[1], load[2],
		       ver * 1e3);
		printf("  %-34s perfbot %8.0f commits/s (%.3f s, processor %.3f s), git log %8.0f commits/s"
		       " (%.3f s, processor %.3f s): %.2fx git's rate, target >= 0.8x: %s\n",
		       "first run (whole history)", (double)nr_commits / cmd_full, cmd_full, cpu_full,
		       (double)nr_commits / git_full, git_full, gcpu_full, git_full / cmd_full,
		       git_full / cmd_full >= 0.8 ? "met" : "MISSED");
		printf("  %-34s perfbot %8.2f ms (processor %.2f ms), git log %.2f ms (processor %.2f ms):"
		       " %.2fx git's time, target <= 3x: %s\n", "incremental run (100 commits)",
		       cmd_inc * 1e3, cpu_inc * 1e3, git_inc * 1e3, gcpu_inc * 1e3, cmd_inc / git_inc,
		       cmd_inc <= 3 * git_inc ? "met" : "MISSED");
		if (git_full / cmd_full < 0.8 || cmd_inc > 3 * git_inc)
			fail = strict ? 2 : 0;
	}

	if (!keep || !*keep)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	buf_release(&s);
	buf_release(&cmd);
	free(br);
	free(reports);
	return fail;
}
