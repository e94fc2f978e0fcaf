#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"

/*
 * The built-in polarity table (config/polarity.tbl, built into the binary)
 * and how configured patterns combine with it.  Run from the top of the
 * source tree, as `make check` does.
 */

#define TABLE "config/polarity.tbl"

struct row {
	int line;
	int higher;
	char pattern[256];
};

/* The rows of config/polarity.tbl, read as the Makefile reads them. */
static size_t table_rows(struct row **out)
{
	FILE *f = fopen(TABLE, "r");
	char line[512];
	struct row *rows = NULL;
	size_t nr = 0;
	int n = 0;

	if (!f)
		fail_msg("cannot open %s (run from the top of the source tree)", TABLE);
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");
		const char *pat = NULL;
		int higher = 0;

		n++;
		line[len] = '\0';
		if (!len || line[0] == '#')
			continue;
		if (!strncmp(line, "higher ", 7))
			higher = 1, pat = line + 7;
		else if (!strncmp(line, "lower ", 6))
			higher = 0, pat = line + 6;
		else
			fail_msg("%s:%d: neither a higher nor a lower row: '%s'", TABLE, n, line);
		if (strlen(pat) >= sizeof(rows->pattern))
			fail_msg("%s:%d: pattern too long for this test", TABLE, n);
		rows = realloc(rows, (nr + 1) * sizeof(*rows));
		rows[nr].line = n;
		rows[nr].higher = higher;
		snprintf(rows[nr].pattern, sizeof(rows[nr].pattern), "%s", pat);
		nr++;
	}
	fclose(f);
	*out = rows;
	return nr;
}

static int anchored_compile(regex_t *re, const char *pattern)
{
	char anchored[300];

	snprintf(anchored, sizeof(anchored), "^(%s)$", pattern);
	return regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
}

/* Every row compiles, no row is there twice, and the binary carries the
 * file's rows, higher ones first, each kind in file order. */
static void table_compiles_and_is_built_in(void **state)
{
	const struct config_polarity *builtin;
	struct row *rows;
	size_t nr = table_rows(&rows), nr_builtin, i, j, k = 0;
	int pass;

	(void)state;
	/* LKP's two files hold 255 distinct patterns, perfbot adds 7 */
	assert_true(nr >= 262);
	for (i = 0; i < nr; i++) {
		regex_t re;
		int r = anchored_compile(&re, rows[i].pattern);

		if (r) {
			char msg[128];

			regerror(r, NULL, msg, sizeof(msg));
			fail_msg("%s:%d: '%s' does not compile: %s", TABLE, rows[i].line,
				 rows[i].pattern, msg);
		}
		regfree(&re);
		for (j = 0; j < i; j++)
			if (!strcmp(rows[i].pattern, rows[j].pattern))
				fail_msg("%s:%d: '%s' is also on line %d", TABLE, rows[i].line,
					 rows[i].pattern, rows[j].line);
	}
	builtin = config_polarity_builtin(&nr_builtin);
	assert_int_equal(nr_builtin, nr);
	for (pass = 1; pass >= 0; pass--)
		for (i = 0; i < nr; i++) {
			if (rows[i].higher != pass)
				continue;
			if (strcmp(builtin[k].pattern, rows[i].pattern) || builtin[k].higher != pass)
				fail_msg("built-in entry %zu is '%s', want %s:%d '%s'", k,
					 builtin[k].pattern, TABLE, rows[i].line, rows[i].pattern);
			k++;
		}
	/* the table is made once per process */
	assert_ptr_equal(config_polarity_builtin(&nr_builtin), builtin);
	free(rows);
}

/*
 * A name the pattern matches, made the plain way: "\c" is c, ".+" is "x",
 * a lone "." is ".", an atom followed by "*" or "?" is left out, one
 * followed by "+" written once, a group is its first alternative.
 * These are all the constructs the table uses.
 */
static size_t atom_len(const char *p)
{
	size_t i, depth = 0;

	if (p[0] == '\\')
		return 2;
	if (p[0] != '(')
		return 1;
	for (i = 0; p[i]; i++) {
		if (p[i] == '\\' && p[i + 1])
			i++;
		else if (p[i] == '(')
			depth++;
		else if (p[i] == ')' && --depth == 0)
			return i + 1;
	}
	fail_msg("unbalanced group in '%s'", p);
	return 0;
}

static void example_of(const char *p, size_t len, char *out, size_t size)
{
	size_t i = 0, o = strlen(out);

	while (i < len && p[i] != '|') {
		size_t n = atom_len(p + i);
		char q = i + n < len ? p[i + n] : '\0';

		if (strchr("[]{}^$", p[i]))
			fail_msg("'%s': teach this test's example_of() about '%c'", p, p[i]);
		if (q != '*' && q != '?') {
			if (p[i] == '\\')
				out[o++] = p[i + 1];
			else if (p[i] == '(') {
				out[o] = '\0';
				example_of(p + i + 1, n - 2, out, size);
				o = strlen(out);
			} else if (p[i] == '.')
				out[o++] = q == '+' ? 'x' : '.';
			else
				out[o++] = p[i];
		}
		i += n;
		if (i < len && strchr("*+?", p[i]))
			i++;
		if (o >= size - 1)
			fail_msg("example of '%s' is too long", p);
	}
	out[o] = '\0';
}

/* Each row decides the names it is written for: no row of the other
 * direction that perfbot tries earlier takes them away.  For LKP's rows
 * this is LKP's own answer (first match in its files' order). */
static void table_gives_each_row_its_direction(void **state)
{
	struct config *c = config_new_defaults();
	struct row *rows;
	size_t nr = table_rows(&rows), i;

	(void)state;
	for (i = 0; i < nr; i++) {
		char name[300] = "";
		regex_t re;

		example_of(rows[i].pattern, strlen(rows[i].pattern), name, sizeof(name));
		assert_int_equal(anchored_compile(&re, rows[i].pattern), 0);
		if (regexec(&re, name, 0, NULL, 0))
			fail_msg("%s:%d: the example '%s' does not match '%s'", TABLE, rows[i].line,
				 name, rows[i].pattern);
		regfree(&re);
		if (config_polarity(c, name) != (rows[i].higher ? 1 : -1))
			fail_msg("%s:%d: '%s' (an example of '%s') gets %d", TABLE, rows[i].line,
				 name, rows[i].pattern, config_polarity(c, name));
	}
	free(rows);
	config_free(c);
}

/* Metric names of the suites LKP's files list, with the direction the file
 * gives them, and names neither file knows. */
static void table_knows_lkp_metrics(void **state)
{
	static const struct {
		const char *metric;
		int want;
	} cases[] = {
		/* etc/index-perf-all.yaml */
		{ "vm-scalability.throughput", 1 },
		{ "vm-scalability.median", 1 },
		{ "will-it-scale.per_process_ops", 1 },
		{ "will-it-scale.per_thread_ops", 1 },
		{ "will-it-scale.scalability", 1 },
		{ "fio.read_iops", 1 },
		{ "fio.write_iops", 1 },
		{ "fio.read_bw_MBps", 1 },
		{ "fio.write_bw_MBps", 1 },
		{ "aim7.jobs-per-min", 1 },
		{ "aim9.shell_rtns_3.ops_per_sec", 1 },
		{ "reaim.jobs_per_min", 1 },
		{ "netperf.Throughput_Mbps", 1 },
		{ "netperf.Throughput_tps", 1 },
		{ "hackbench.throughput", 1 },
		{ "ebizzy.throughput", 1 },
		{ "stress-ng.fork.ops_per_sec", 1 },
		{ "unixbench.score", 1 },
		{ "fsmark.files_per_sec", 1 },
		{ "dbench.throughput-MB/sec", 1 },
		{ "iperf.tcp.sender.bps", 1 },
		{ "lmbench3.TCP.socket.bandwidth.64B.MB/sec", 1 },
		{ "perf-bench-futex.ops/s", 1 },
		{ "perf-bench-sched-pipe.ops_per_sec", 1 },
		{ "pft.faults_per_sec_per_cpu", 1 },
		{ "stream.triad_bandwidth_MBps", 1 },
		{ "blogbench.read_score", 1 },
		{ "specjbb2015.max-jOPS", 1 },
		{ "postmark.transactions", 1 },
		{ "pmbench.throughput.aps", 1 },
		{ "sysbench-threads.throughput_events/s", 1 },
		{ "kernbench.elapsed_time", -1 },
		{ "fsmark.app_overhead", -1 },
		{ "lmbench3.Pagefaults.ms", -1 },
		{ "autonuma-benchmark.numa01.seconds", -1 },
		{ "kbuild.buildtime_per_iteration", -1 },
		{ "exit-free.duration", -1 },
		{ "chromeswap.throughput_swap_cycles_per_second", -1 },
		{ "power-idle.turbostat.PkgWatt", -1 },
		{ "idle.turbostat.Busy%", -1 },
		{ "dd.write_time_ms", -1 },
		/* etc/index-latency-all.yaml */
		{ "lmbench3.PIPE.latency.us", -1 },
		{ "lmbench3.AF_UNIX.sock.stream.latency.us", -1 },
		{ "lmbench3.TCP.localhost.latency", -1 },
		{ "vm-scalability.stddev", -1 },
		{ "pmbench.latency.ns.average", -1 },
		{ "ebizzy.throughput.per_thread.stddev_percent", -1 },
		{ "thrulay.RTT", -1 },
		{ "thrulay.jitter", -1 },
		{ "dd.startup_time", -1 },
		{ "dbench.max_latency", -1 },
		{ "pgbench.latency_ms", -1 },
		{ "qperf.tcp.latency", -1 },
		{ "iostat.sda.await.max", -1 },
		{ "apachebench.max_latency.99%", -1 },
		{ "perf-bench-futex.avg_per_thread_latency_ms", -1 },
		{ "kselftests.dma.dma_map_benchmark.average_unmap_latency", -1 },
		{ "stress-ng.vm.ms_munmap_max._duration", -1 },
		/* perfbot's own patterns */
		{ "mybench.ops_sec", 1 },
		{ "mybench.requests/s", 1 },
		{ "mybench.read.latency_us", -1 },
		/* neither */
		{ "proc-vmstat.pgfault", 0 },
		{ "perf-stat.ipc", 0 },
		{ "fio.read_clat_mean_us", 0 },
		{ "will-it-scale.workload", 0 },
		{ "perf-profile.self.cycles-pp.intel_idle", 0 },
		{ "hackbench.mystery", 0 },
		/* whole names only */
		{ "xfio.read_iops", 0 },
		{ "fio.read_iops2", 0 },
	};
	struct config *c = config_new_defaults();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (config_polarity(c, cases[i].metric) != cases[i].want)
			fail_msg("%s: got %d, want %d", cases[i].metric,
				 config_polarity(c, cases[i].metric), cases[i].want);
	config_free(c);
}

static struct config *load_text(const char *text)
{
	char path[] = "/tmp/perfbot-polarity-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct buf err = BUF_INIT;
	struct config *c = NULL;

	fputs(text, f);
	fclose(f);
	if (config_load(path, &c, &err) < 0)
		fail_msg("%s", err.data);
	unlink(path);
	buf_release(&err);
	return c;
}

/* What a lab configures is tried first, so it overrides the table for its
 * metrics and the table still answers for the rest; among the configured
 * patterns the higher ones come first. */
static void configured_patterns_come_first(void **state)
{
	static const struct {
		const char *text;
		const char *metric;
		int want;
	} cases[] = {
		{ "[polarity]\n\tlower = fio\\\\.read_iops\n", "fio.read_iops", -1 },
		{ "[polarity]\n\tlower = fio\\\\.read_iops\n", "fio.write_iops", 1 },
		{ "[polarity]\n\tlower = fio\\\\.read_iops\n", "lmbench3.PIPE.latency.us", -1 },
		{ "[polarity]\n\thigher = kernbench\\\\.elapsed_time\n", "kernbench.elapsed_time", 1 },
		{ "[polarity]\n\thigher = hackbench\\\\.mystery\n", "hackbench.mystery", 1 },
		{ "[polarity]\n\tlower = fio\\\\.read_iops\n\thigher = fio\\\\..+\n", "fio.read_iops", 1 },
		{ "[polarity]\n\tbuiltin = true\n", "fio.read_iops", 1 },
		{ "[polarity]\n\tbuiltin\n", "fio.read_iops", 1 },
		/* polarity.builtin = false: the configured patterns alone */
		{ "[polarity]\n\tbuiltin = false\n", "fio.read_iops", 0 },
		{ "[polarity]\n\tbuiltin = false\n", "vm-scalability.throughput", 0 },
		{ "[polarity]\n\tbuiltin = no\n\tlower = fio\\\\.read_iops\n", "fio.read_iops", -1 },
		{ "[polarity]\n\tbuiltin = no\n\tlower = fio\\\\.read_iops\n", "fio.write_iops", 0 },
		/* the last value wins, as in git */
		{ "[polarity]\n\tbuiltin = false\n[polarity]\n\tbuiltin = true\n", "fio.read_iops", 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config *c = load_text(cases[i].text);

		if (config_polarity(c, cases[i].metric) != cases[i].want)
			fail_msg("case %zu: %s: got %d, want %d", i, cases[i].metric,
				 config_polarity(c, cases[i].metric), cases[i].want);
		config_free(c);
	}
}

/* The defaults (no file at all) use the table. */
static void defaults_use_the_table(void **state)
{
	struct config *c = config_new_defaults();

	(void)state;
	assert_int_equal(c->polarity_builtin, 1);
	assert_int_equal(c->nr_polarity, 0);
	assert_int_equal(config_polarity(c, "fio.read_iops"), 1);
	config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_compiles_and_is_built_in),
		cmocka_unit_test(table_gives_each_row_its_direction),
		cmocka_unit_test(table_knows_lkp_metrics),
		cmocka_unit_test(configured_patterns_come_first),
		cmocka_unit_test(defaults_use_the_table),
	};

	setenv("PERFBOT_CONFIG", "", 1);
	return cmocka_run_group_tests_name("polarity", tests, NULL, NULL);
}
