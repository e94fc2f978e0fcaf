#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compare.h"
#include "report.h"

/* A side given as mean and stddev_percent, as the examples' JSON has it. */
#define SIDE(m, s) { (m), (s) >= 0, (s) >= 0 ? (s) : 0, NULL, 0 }

/* Rows copied from the real 0-day mails in ../shared/examples. */
static void compare_rows_match_real_mails(void **state)
{
	static const struct {
		const char *name;
		double bm, bs, hm, hs;
		int has_change;
		double change;
		const char *want;
	} rows[] = {
		{ "aim7.jobs-per-min", 75730, -1, 74795, -1, 1, -1.2,
		  "     75730            -1.2%      74795        aim7.jobs-per-min\n" },
		{ "aim7.time.system_time", 494.88, -1, 505.76, -1, 1, 2.2,
		  "    494.88            +2.2%     505.76        aim7.time.system_time\n" },
		{ "x.avg.ms", 0.01, 26.5, 0.01, 38.5, 1, -54.5,
		  "      0.01 \xc2\xb1 26%     -54.5%       0.01 \xc2\xb1 38%  x.avg.ms\n" },
		{ "perf-stat.i.branch-instructions", 1542000000.0, -1, 1606000000.0, -1, 1, 4.1,
		  " 1.542e+09            +4.1%  1.606e+09        perf-stat.i.branch-instructions\n" },
		{ "perf-stat.i.branch-miss-rate%", 1.87, -1, 1.77, -1, 1, -0.1,
		  "      1.87            -0.1        1.77        perf-stat.i.branch-miss-rate%\n" },
		{ "perf-profile.children.cycles-pp.xlog_ticket_alloc", 0.22, 7.5, 0.18, 6.5, 1, -0.0,
		  "      0.22 \xc2\xb1  7%      -0.0        0.18 \xc2\xb1  6%  perf-profile.children.cycles-pp.xlog_ticket_alloc\n" },
		{ "perf-sched.sch_delay.max.ms.x", 5.72, 49.5, 192.19, 185.5, 1, 3259.9,
		  "      5.72 \xc2\xb1 49%   +3259.9%     192.19 \xc2\xb1" "185%  perf-sched.sch_delay.max.ms.x\n" },
		{ "proc-vmstat.numa_hit", 3223000000.0, -1, 3170000000.0, -1, 1, -1.7,
		  " 3.223e+09            -1.7%   3.17e+09        proc-vmstat.numa_hit\n" },
		/* stddev of exactly 2% is not shown, above 2% it is (truncated) */
		{ "a.b", 100, 2.0, 100, 2.01, 1, 0,
		  "    100.00            +0.0%     100.00 \xc2\xb1  2%  a.b\n" },
		/* 357969.83 prints truncated, not rounded */
		{ "c.d", 357969.83, -1, -357969.83, -1, 1, -200,
		  "    357969          -200.0%    -357969        c.d\n" },
		/* computed change, and %.2g past 100000% */
		{ "e.f", 1, -1, 2001, -1, 0, 0,
		  "      1.00          +2e+05%       2001        e.f\n" },
		/* a zero base is divided as 1e-100 */
		{ "g.h", 0, -1, 5, -1, 0, 0,
		  "      0.00         +5e+102%       5.00        g.h\n" },
		/* absolute change computed for perf-profile */
		{ "perf-profile.self.x", 4.37, -1, 4.13, -1, 0, 0,
		  "      4.37            -0.2        4.13        perf-profile.self.x\n" },
		/* exactly 1e8 is still %d; just above it switches to %g */
		{ "i.j", 100000000, -1, 100000001, -1, 1, 0,
		  " 100000000            +0.0%      1e+08        i.j\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct report_metric m = { (char *)rows[i].name, SIDE(rows[i].bm, rows[i].bs),
					   SIDE(rows[i].hm, rows[i].hs), rows[i].has_change, rows[i].change };
		struct buf out = BUF_INIT;

		compare_format_row(&out, &m);
		if (strcmp(out.data, rows[i].want))
			fail_msg("row %zu:\n got  '%s'\n want '%s'", i, out.data, rows[i].want);
		buf_release(&out);
	}
}

static void compare_failure_rows(void **state)
{
	struct report_failure f1 = { "dmesg.BUG:x", 0, 6, 6, 6 };
	struct report_failure f2 = { "kmsg.y", 1, 4, 0, 4 };
	struct buf out = BUF_INIT;

	(void)state;
	compare_format_failure(&out, &f1);
	assert_string_equal(out.data, "           :6          100%           6:6     dmesg.BUG:x\n");
	buf_reset(&out);
	compare_format_failure(&out, &f2);
	assert_string_equal(out.data, "          1:4          -25%            :4     kmsg.y\n");
	buf_release(&out);
}

static struct report_param params[] = {
	{ "runtime", "300s" }, { "memory.high", "90%" }, { "memory", "8G" }, { "test", "anon" },
};

static struct report_test test_with_params(void)
{
	struct report_test t;

	memset(&t, 0, sizeof(t));
	t.testcase = "vm-scalability";
	t.headline = "vm-scalability.throughput";
	t.tbox_group = "lkp-cpl-4sp2";
	t.machine = "224 threads";
	t.kconfig = "x86_64-rhel-9.4";
	t.compiler = "gcc-14";
	t.rootfs = "debian.cgz";
	t.params = params;
	t.nr_params = 4;
	return t;
}

static void compare_axes_sort_by_key_value(void **state)
{
	struct report_test t = test_with_params();
	struct buf out = BUF_INIT;

	(void)state;
	compare_format_axes(&out, &t);
	/* "memory.high=" sorts before "memory=" in byte order */
	assert_string_equal(out.data,
		"compiler/kconfig/memory.high/memory/rootfs/runtime/tbox_group/test/testcase:\n"
		"  gcc-14/x86_64-rhel-9.4/90%/8G/debian.cgz/300s/lkp-cpl-4sp2/anon/vm-scalability\n");
	buf_release(&out);
}

static void compare_section_shows_tags_and_ids(void **state)
{
	struct report_metric m = { "vm-scalability.throughput", SIDE(103400000, -1), SIDE(99380000, -1), 1, -3.9 };
	struct report_test t = test_with_params();
	struct compare_commit base = { "cb431accb36e51b6aaaaaaaaaaaaaaaaaaaaaaaa", "Linux 7.0-rc5", "v7.0-rc5" };
	struct compare_commit head = { "9890ecab6ad9c0d3d342469f3b619fd704b5c59a", "mm: x", NULL };
	struct buf out = BUF_INIT;
	const char *p;

	(void)state;
	t.metrics = &m;
	t.nr_metrics = 1;
	compare_format_section(&out, &t, &base, &head, COMPARE_HEAD_ID_WIDTH);
	p = strstr(out.data, "\ncommit: \n");
	assert_non_null(p);
	assert_string_equal(p,
		"\ncommit: \n"
		"  v7.0-rc5\n"
		"  9890ecab6a (\"mm: x\")\n"
		"\n"
		"        v7.0-rc5 9890ecab6ad9c0d3d342469f3b6 \n"
		"---------------- --------------------------- \n"
		"         %stddev     %change         %stddev\n"
		"             \\          |                \\  \n"
		" 1.034e+08            -3.9%   99380000        vm-scalability.throughput\n"
		"\n");
	assert_int_equal(strncmp(out.data, "=========================================================================================\n", 90), 0);
	buf_reset(&out);
	base.tag = NULL;
	compare_format_section(&out, &t, &base, &head, COMPARE_HEAD_ID_WIDTH);
	assert_non_null(strstr(out.data, "  cb431accb3 (\"Linux 7.0-rc5\")\n"));
	assert_non_null(strstr(out.data, "\ncb431accb36e51b6 9890ecab6ad9c0d3d342469f3b6 \n"));
	/* the 2018-2022 reports had a 26-column head id */
	buf_reset(&out);
	compare_format_section(&out, &t, &base, &head, COMPARE_HEAD_ID_WIDTH_LEGACY);
	assert_non_null(strstr(out.data, "\ncb431accb36e51b6 9890ecab6ad9c0d3d342469f3b \n"
				       "---------------- -------------------------- \n"));
	buf_release(&out);
}

static void compare_box_pads_to_the_widest_cell(void **state)
{
	struct report_metric m1 = { "netperf.Throughput_Mbps", SIDE(21551, -1), SIDE(21162, -1), 1, -1.8 };
	struct report_metric m2 = { "will-it-scale.per_thread_ops", SIDE(1, -1), SIDE(1, -1), 1, 13.4 };
	struct report_param p1[] = { { "test", "UDP_STREAM" }, { "cluster", "cs-localhost" } };
	struct report_test t1, t2;
	struct compare_box_entry e[2];
	struct buf out = BUF_INIT;

	(void)state;
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	t1.testcase = "netperf";
	t1.headline = m1.name;
	t1.metrics = &m1;
	t1.nr_metrics = 1;
	t1.machine = "128 threads";
	t1.params = p1;
	t1.nr_params = 2;
	t2.testcase = "will-it-scale";
	t2.headline = m2.name;
	t2.metrics = &m2;
	t2.nr_metrics = 1;
	t2.machine = "224 threads";
	e[0].test = &t1;
	e[0].change = -1.8;
	e[0].kind = "regression";
	e[1].test = &t2;
	e[1].change = 13.4;
	e[1].kind = "improvement";
	compare_format_box(&out, e, 2);
	assert_string_equal(out.data,
		"+------------------+---------------------------------------------------------------+\n"
		"| testcase: change | netperf: netperf.Throughput_Mbps  1.8% regression             |\n"
		"| test machine     | 128 threads                                                   |\n"
		"| test parameters  | cluster=cs-localhost                                          |\n"
		"|                  | test=UDP_STREAM                                               |\n"
		"+------------------+---------------------------------------------------------------+\n"
		"| testcase: change | will-it-scale: will-it-scale.per_thread_ops 13.4% improvement |\n"
		"| test machine     | 224 threads                                                   |\n"
		"+------------------+---------------------------------------------------------------+\n");
	buf_release(&out);
}

static void compare_percent_is_absolute_one_decimal(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	compare_format_percent(&out, -3.85);
	assert_string_equal(out.data, "3.9");
	buf_reset(&out);
	compare_format_percent(&out, 115.4);
	assert_string_equal(out.data, "115.4");
	buf_release(&out);
}

/* A value column must be exactly what report-format.md's printf gives. */
static void check_value(double v)
{
	struct buf got = BUF_INIT;
	char want[64];

	compare_format_value(&got, v);
	if (fabs(v) < 1000)
		snprintf(want, sizeof(want), "%10.2f", v);
	else if (fabs(v) > 100000000)
		snprintf(want, sizeof(want), "%10.4g", v);
	else
		snprintf(want, sizeof(want), "%10lld", (long long)v);
	if (strcmp(got.data, want))
		fail_msg("value %.17g: got '%s', printf '%s'", v, got.data, want);
	buf_release(&got);
}

/* The columns are written without printf where that is safe: they must
 * still be exactly what printf gives, for any value. */
static void compare_numbers_equal_printf(void **state)
{
	unsigned long long x = 88172645463325252ULL;
	size_t i;

	(void)state;
	for (i = 0; i < 300000; i++) {
		struct buf got = BUF_INIT;
		char want[64];
		double v, mag;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		mag = pow(10.0, (double)(x % 25) - 4);	/* 1e-4 .. 1e20 */
		v = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 2 * mag;
		if (i % 7 == 0)	/* values on and near printf's ties */
			v = (double)((long long)(x % 2000000) - 1000000) / 200.0 + (i % 3 ? 0 : 0.005);
		check_value(v);
		compare_format_change(&got, "perf-profile.x", v);
		snprintf(want, sizeof(want), "%+10.1f  ", v);
		if (strcmp(got.data, want))
			fail_msg("change %.17g: got '%s', printf '%s'", v, got.data, want);
		if (i % 11 == 0)	/* ties of %.4g */
			v = (double)((long long)(x % 20000) - 10000) * 5e5 + (i % 2 ? 0 : 5e4);
		check_value(v);
		if (fabs(v) < 100000) {
			buf_reset(&got);
			compare_format_change(&got, "x.y", v);
			snprintf(want, sizeof(want), "%+10.1f%% ", v);
			if (strcmp(got.data, want))
				fail_msg("change %.17g: got '%s', printf '%s'", v, got.data, want);
		}
		buf_release(&got);
	}
}

/*
 * N columns, against the kernel test robot team's real replies (the text
 * in data/compare/, the numbers in ../t/data/results/, made from the text
 * by tests/helpers/table-to-result.py):
 *   - will-it-scale-poll2.txt: Carel Si's reply of 13 Dec 2021 on
 *     linux-kernel, "Re: [LKP] Re: [fget] 054aa8d439:
 *     will-it-scale.per_thread_ops -5.7% regression" (Message-ID
 *     20211213083154.GA20853@linux.intel.com): base, the reported commit
 *     and Linus's patch on it, 3 columns, from the '=' rule through the
 *     table's first 43 rows (the mail goes on with more perf-profile rows),
 *     as LKP printed it, trailing blanks included;
 *   - hackbench.txt: Oliver Sang's reply of 23 Sep 2024 on linux-kernel to
 *     Chen Yu's "sched/eevdf: Fix wakeup-preempt by checking
 *     cfs_rq->nr_running" ("we applied this patch upon 85e511df3cec,
 *     confirmed the regression is fixed."), 3 columns, the table from the
 *     id row: the reply's lines lost their trailing blanks on the way;
 *   - vm-scalability.txt: the robot's 4-column result (base, the reported
 *     commit, a later tip, the patch on it) as Johannes Weiner's "[PATCH
 *     1/2] mm: page_alloc: speed up fallbacks in rmqueue_bulk()" quotes it
 *     (April 2025, linux-mm and stable; read from Shivank Garg's reply of
 *     10 Apr 2025 with its "> " taken off), from the commit list: also
 *     without trailing blanks.
 */
static char *data_file(const char *dir, const char *name, size_t *len)
{
	const char *file = __FILE__, *slash = strrchr(file, '/');
	struct buf path = BUF_INIT, text = BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *f;

	buf_addf(&path, "%.*s%s/%s", slash ? (int)(slash - file + 1) : 0, file, dir, name);
	f = fopen(path.data, "rb");
	if (!f)
		fail_msg("cannot open %s", path.data);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&text, chunk, n);
	fclose(f);
	buf_release(&path);
	return buf_detach(&text, len);
}

static struct report *load_result(const char *name)
{
	const char *file = __FILE__, *slash = strrchr(file, '/');
	struct buf path = BUF_INIT, err = BUF_INIT;
	struct report *r;

	buf_addf(&path, "%.*s../t/data/results/%s", slash ? (int)(slash - file + 1) : 0, file, name);
	if (report_load_file(path.data, &r, &err) < 0)
		fail_msg("%s", err.data);
	buf_release(&path);
	buf_release(&err);
	return r;
}

/* out with every line's trailing blanks dropped, as a mail client drops them */
static void strip_trailing_blanks(struct buf *out, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "\n"), end = n;

		while (end && s[end - 1] == ' ')
			end--;
		buf_add(out, s, end);
		if (s[n] == '\n')
			buf_addc(out, '\n');
		s += n + (s[n] == '\n');
	}
}

static void expect_text(const char *what, const char *got, const char *want)
{
	size_t i = 0, line = 1, start = 0;

	if (!strcmp(got, want))
		return;
	while (got[i] && got[i] == want[i]) {
		if (got[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	fail_msg("%s: line %zu differs:\n got: '%.*s'\nwant: '%.*s'", what, line,
		 (int)strcspn(got + start, "\n"), got + start,
		 (int)strcspn(want + start, "\n"), want + start);
}

static void compare_n_columns_match_real_replies(void **state)
{
	struct report *r;
	struct buf out = BUF_INIT, want = BUF_INIT, stripped = BUF_INIT;
	char *text;
	size_t len;

	(void)state;
	/* 3 columns, the whole section as LKP printed it */
	{
		struct compare_commit cols[3] = {
			{ "5f58da2befa58edf", "Merge tag 'drm-fixes-2021-12-03-1' of git://anongit.freedesktop.org/drm/drm", NULL, NULL },
			{ "054aa8d439b9185d4f5eb9a9028", "fget: check that the fd still exists after getting a ref to it", NULL, NULL },
			{ "242d36be3ad02063a1cf6df7802", "fixup-for-054aa8d439", NULL, NULL },
		};

		r = load_result("will-it-scale-poll2-3col.json");
		assert_int_equal(r->nr_extra, 1);
		compare_format_section_n(&out, &r->tests[0], cols, 3, COMPARE_HEAD_ID_WIDTH);
		text = data_file("data/compare", "will-it-scale-poll2.txt", &len);
		buf_adds(&want, text);
		buf_addc(&want, '\n');	/* the section's closing empty line */
		expect_text("will-it-scale-poll2", out.data, want.data);
		free(text);
		report_free(r);
	}
	/* 3 columns, the table from the id row */
	{
		struct compare_commit cols[3] = {
			{ "82e9d0456e06cebe", "sched/fair: Avoid re-setting virtual deadline on 'migrations'", NULL, NULL },
			{ "85e511df3cec46021024176672a", "sched/eevdf: Allow shorter slices to wakeup-preempt", NULL, NULL },
			{ "1c3386188ad9007c9975470c817", "sched/eevdf: Fix wakeup-preempt by checking cfs_rq->nr_running", NULL, NULL },
		};

		buf_reset(&out);
		buf_reset(&want);
		r = load_result("hackbench-3col.json");
		compare_format_id_line_n(&out, cols, 3, COMPARE_HEAD_ID_WIDTH);
		compare_format_section_rows_n(&out, &r->tests[0], r->nr_extra);
		strip_trailing_blanks(&stripped, out.data);
		text = data_file("data/compare", "hackbench.txt", &len);
		buf_adds(&want, text);
		buf_addc(&want, '\n');
		expect_text("hackbench", stripped.data, want.data);
		free(text);
		report_free(r);
	}
	/* 4 columns, from the commit list, the tested commit labelled */
	{
		struct compare_commit cols[4] = {
			{ "f3b92176f4f7100f", "tools/selftests: add guard region test for /proc/$pid/pagemap", NULL, NULL },
			{ "c2f6ea38fc1b640aa7a2e155cc1", "mm: page_alloc: don't steal single pages from biggest buddy", NULL, NULL },
			{ "acc4d5ff0b61eb1715c498b6536", "Merge tag 'net-6.15-rc0' of git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net", NULL, NULL },
			{ "2c847f27c37da65a93d23c237c5", "mm: page_alloc: speed up fallbacks in rmqueue_bulk()", NULL, "your patch" },
		};
		const char *from;

		buf_reset(&out);
		buf_reset(&want);
		buf_reset(&stripped);
		r = load_result("vm-scalability-4col.json");
		assert_int_equal(r->nr_extra, 2);
		assert_string_equal(r->extra[1].label, "your patch");
		compare_format_section_n(&out, &r->tests[0], cols, 4, COMPARE_HEAD_ID_WIDTH);
		from = strstr(out.data, "\ncommit: \n");
		assert_non_null(from);
		strip_trailing_blanks(&stripped, from + 1);
		text = data_file("data/compare", "vm-scalability.txt", &len);
		buf_adds(&want, text);
		buf_addc(&want, '\n');
		expect_text("vm-scalability", stripped.data, want.data);
		free(text);
		report_free(r);
	}
	buf_release(&out);
	buf_release(&want);
	buf_release(&stripped);
}

/* With n == 2 the N-column functions print the two-column block byte for
 * byte; tags and short ids stay right-aligned in every later column; a
 * failure row's later columns each count against the base; a row's extra
 * change is computed from the means unless given. */
static void compare_n_columns_rules(void **state)
{
	struct report_side b = SIDE(100, -1), h = SIDE(90, 5), e1 = SIDE(99, -1), e2 = SIDE(0.5, 3);
	struct report_extra_side ex[2] = { { e1, 0, 0 }, { e2, 1, -0.25 } };
	struct report_metric m = { "x.y", b, h, 0, 0, ex };
	struct report_metric pm = { "perf-profile.self.z", SIDE(4.37, -1), SIDE(4.13, -1), 0, 0, ex };
	struct report_fail_count fc[2] = { { 0, 4 }, { 3, 6 } };
	struct report_failure f = { "dmesg.WARNING", 0, 4, 2, 4, fc };
	struct report_param p = { "mode", "process" };
	struct report_test t = { 0 };
	struct compare_commit cols[4] = {
		{ "0123456789abcdef0123456789abcdef01234567", "base subject", NULL, NULL },
		{ "89abcdef0123456789abcdef0123456789abcdef", "head subject", NULL, NULL },
		{ "fedcba9876543210fedcba9876543210fedcba98", "tip subject", "v6.13", "tip" },
		{ "abcdef", "tested", NULL, "tip + the patch" },
	};
	struct buf two = BUF_INIT, n = BUF_INIT;

	(void)state;
	t.testcase = "t";
	t.tbox_group = "g";
	t.rootfs = "r";
	t.kconfig = "k";
	t.compiler = "c";
	t.params = &p;
	t.nr_params = 1;
	t.metrics = &m;
	t.nr_metrics = 1;
	t.failures = &f;
	t.nr_failures = 1;
	compare_format_section(&two, &t, &cols[0], &cols[1], COMPARE_HEAD_ID_WIDTH);
	compare_format_section_n(&n, &t, cols, 2, COMPARE_HEAD_ID_WIDTH);
	assert_string_equal(n.data, two.data);
	buf_reset(&two);
	buf_reset(&n);
	compare_format_section(&two, &t, &cols[0], &cols[1], COMPARE_HEAD_ID_WIDTH_LEGACY);
	compare_format_section_n(&n, &t, cols, 2, COMPARE_HEAD_ID_WIDTH_LEGACY);
	assert_string_equal(n.data, two.data);

	buf_reset(&n);
	compare_format_section_n(&n, &t, cols, 4, COMPARE_HEAD_ID_WIDTH);
	expect_text("4 columns", n.data,
		"=========================================================================================\n"
		"compiler/kconfig/mode/rootfs/tbox_group/testcase:\n"
		"  c/k/process/r/g/t\n"
		"\n"
		"commit: \n"
		"  0123456789 (\"base subject\")\n"
		"  89abcdef01 (\"head subject\")\n"
		"  v6.13   <--- tip\n"
		"  abcdef (\"tested\")   <--- tip + the patch\n"
		"\n"
		"0123456789abcdef 89abcdef0123456789abcdef012                       v6.13                      abcdef \n"
		"---------------- --------------------------- --------------------------- --------------------------- \n"
		"       fail:runs  %reproduction    fail:runs  %reproduction    fail:runs  %reproduction    fail:runs\n"
		"           |             |             |             |             |             |             |    \n"
		"           :4           50%           2:4            0%            :4           50%           3:6     dmesg.WARNING\n"
		"         %stddev     %change         %stddev     %change         %stddev     %change         %stddev\n"
		"             \\          |                \\          |                \\          |                \\  \n"
		"    100.00           -10.0%      90.00 \xc2\xb1  5%      -1.0%      99.00            -0.2%       0.50 \xc2\xb1  3%  x.y\n"
		"\n");
	assert_true(compare_metric_extra_change(&m, 0) == -1.0);
	assert_true(compare_metric_extra_change(&m, 1) == -0.25);
	/* absolute metrics: the difference of means */
	ex[0].has_change = 0;
	assert_true(fabs(compare_metric_extra_change(&pm, 0) - (99 - 4.37)) < 1e-9);
	buf_release(&two);
	buf_release(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compare_rows_match_real_mails),
		cmocka_unit_test(compare_failure_rows),
		cmocka_unit_test(compare_axes_sort_by_key_value),
		cmocka_unit_test(compare_section_shows_tags_and_ids),
		cmocka_unit_test(compare_box_pads_to_the_widest_cell),
		cmocka_unit_test(compare_percent_is_absolute_one_decimal),
		cmocka_unit_test(compare_numbers_equal_printf),
		cmocka_unit_test(compare_n_columns_match_real_replies),
		cmocka_unit_test(compare_n_columns_rules),
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
