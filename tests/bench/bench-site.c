/*
 * tests/bench/bench-site.c STATEDIR [N]: the state tests/bench/site.sh
 * benchmarks perfbot site (perfbot-site(1)) on; tests/t/site-spare.sh makes
 * one of 1,000 reports in make check.
 *
 * Writes N (default 10,000) reports into STATEDIR/state.db through the
 * state's own functions, each as send leaves it: sent to two recipients,
 * on one of eight trees, with its job (base, head, tree, one test with
 * parameters), a mail of about 3 kB (a compare table), two replies in its
 * thread (one a #perfbot command, every tenth report closed by it), and
 * STATEDIR/samples/ID.tsv with two metrics of 20 runs a side.  Fixed
 * dates and names, so two runs write the same state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir.h"
#include "state.h"
#include "banned.h"

#define T0 1780000000

static const char *const trees[] = { "linus/master", "linux-next/master", "tip/sched/core",
				     "mm/mm-unstable", "net-next/main", "bpf-next/master",
				     "block/for-next", "vfs/vfs.all" };

static void mail_text(struct buf *b, long i)
{
	int k;

	buf_reset(b);
	buf_addf(b, "From: robot <lkp@example.org>\nSubject: report %ld\n\nHello,\n\n"
		 "kernel test robot noticed a 3.%ld%% regression of will-it-scale.per_process_ops\n\n",
		 i, i % 10);
	buf_adds(b, "=========================================================================================\n"
		    "compiler/cpufreq_governor/kconfig/mode/nr_task/rootfs/tbox_group/test/testcase:\n"
		    "  gcc-12/performance/x86_64-rhel-8.3/process/100%/debian-12-x86_64.cgz/lkp-icl/pipe/will-it-scale\n\n"
		    "     base        head\n---------------- ---------------------------\n"
		    "         %stddev     %change         %stddev\n             \\          |                \\  \n");
	for (k = 0; k < 30; k++)
		buf_addf(b, "  %8ld ±  %d%%      -%d.%d%%  %8ld ±  1%%  will-it-scale.metric_%d\n",
			 100000 + i + k, k % 5, k % 9, k % 7, 97000 + i + k, k);
	buf_adds(b, "\n-- \nrobot\n");
}

int main(int argc, char **argv)
{
	struct buf err = BUF_INIT, b = BUF_INIT, mail = BUF_INIT, mid = BUF_INIT, path = BUF_INIT;
	struct buf head = BUF_INIT, key = BUF_INIT;
	struct state *st = NULL;
	long n = argc > 2 ? atol(argv[2]) : 10000, i;
	int ret = 0;

	if (argc < 2 || n < 1) {
		fprintf(stderr, "usage: bench-site STATEDIR [N]\n");
		return 64;
	}
	buf_addf(&path, "%s/samples", argv[1]);
	if (dir_make(path.data, 0700, &err) < 0 || state_open(argv[1], &st, &err) < 0 ||
	    state_begin(st, &err) < 0) {
		fprintf(stderr, "bench-site: %s\n", err.data);
		return 1;
	}
	for (i = 1; i <= n && !ret; i++) {
		struct state_report r;
		struct state_message m;
		struct state_job job;
		struct state_rcpt rcpt[2] = { { STATE_RCPT_DELIVERED, "dev@example.org", 250, "ok" },
					      { STATE_RCPT_DELIVERED, "list@example.org", 250, "ok" } };
		int64_t id = 0;
		const char *tree = trees[i % 8];
		int k;

		memset(&r, 0, sizeof(r));
		buf_reset(&mid);
		buf_addf(&mid, "20260601.%08ld-bench@lab.example.org", i);
		buf_reset(&head);
		buf_addf(&head, "%040lx", 0x1000000L + i);
		buf_reset(&key);
		buf_addf(&key, "%s\n%s\nwill-it-scale\nwill-it-scale.per_process_ops", tree, head.data);
		mail_text(&mail, i);
		buf_reset(&b);
		buf_addf(&b, "[%s] [sched]  %.10s: will-it-scale.per_process_ops 3.%ld%% regression",
			 tree, head.data, i % 10);
		r.message_id = mid.data;
		r.kind = STATE_KIND_REPORT;
		r.thread_key = key.data;
		r.identity = key.data;
		r.subject = b.data;
		r.from_name = "robot";
		r.from_email = r.env_from = "lkp@example.org";
		r.env_rcpt = "dev@example.org\nlist@example.org";
		r.to_addrs = "dev@example.org";
		r.cc_addrs = "list@example.org";
		r.mail = mail.data;
		r.mail_len = mail.len;
		r.created = T0 + i * 600;
		r.tree = (char *)tree;
		r.head = head.data;
		ret = state_report_add(st, &r, &id, &err);
		if (!ret)
			ret = state_report_mark_sending(st, id, r.created + 5, NULL, &err);
		if (!ret)
			ret = state_report_mark_ended(st, id, r.created + 6, 0, "250 ok", rcpt, 2, &err);
		job.base = "0123456789abcdef0123456789abcdef01234567";
		job.head = head.data;
		job.tree = (char *)tree;
		job.regression = 1;
		job.tests = "[{\"testcase\":\"will-it-scale\",\"tbox_group\":\"lkp-icl\",\"machine\":\"Ice Lake\","
			    "\"kconfig\":\"x86_64-rhel-8.3\",\"compiler\":\"gcc-12\",\"rootfs\":\"debian-12\","
			    "\"params\":{\"mode\":\"process\",\"nr_task\":\"100%\",\"test\":\"pipe\"},"
			    "\"headline\":\"will-it-scale.per_process_ops\"}]";
		if (!ret)
			ret = state_job_set(st, id, &job, &err);
		for (k = 0; k < 2 && !ret; k++) {
			struct buf rmid = BUF_INIT;

			memset(&m, 0, sizeof(m));
			buf_addf(&rmid, "reply%d.%ld@example.org", k, i);
			m.message_id = rmid.data;
			m.report_id = id;
			m.parent_message_id = mid.data;
			m.in_reply_to = mid.data;
			m.refs = mid.data;
			m.from_name = k ? "Maintainer" : "Developer";
			m.from_email = k ? "maint@example.org" : "dev@example.org";
			m.date = r.created + 3600 * (k + 1);
			m.subject = b.data;
			m.ingested = 1;
			ret = state_message_add(st, &m, NULL, &err);
			if (!ret && k && i % 10 == 0)
				ret = state_command_add(st, id, rmid.data, "invalid", "", "Maintainer <maint@example.org>",
							m.date, &err);
			if (!ret && k && i % 10 == 0)
				ret = state_report_set_verdict(st, id, STATE_VERDICT_INVALID, &err);
			buf_release(&rmid);
		}
		/* its samples: two metrics of 20 runs a side */
		buf_reset(&b);
		/* samples.h's file, as send keeps it */
		buf_adds(&b, "perfbot-samples 1\n");
		for (k = 0; k < 2; k++) {
			int j;

			buf_addf(&b, "metric\twill-it-scale\twill-it-scale.metric_%d\nbase\t%d\t1.5\n"
				 "head\t%d\t2.5\ngood", k, 100000 + k, 97000 + k);
			for (j = 0; j < 20; j++)
				buf_addf(&b, "\t%d", 99000 + (int)((i * 7 + j * 13) % 2000));
			buf_adds(&b, "\nbad");
			for (j = 0; j < 20; j++)
				buf_addf(&b, "\t%d", 96000 + (int)((i * 11 + j * 17) % 2000));
			buf_adds(&b, "\n");
		}
		buf_reset(&path);
		buf_addf(&path, "%s/samples/%lld.tsv", argv[1], (long long)id);
		if (!ret)
			ret = dir_write_file_mode(path.data, b.data, b.len, 0600, 0, &err);
	}
	if (ret || state_commit(st, &err) < 0) {
		fprintf(stderr, "bench-site: %s\n", err.data);
		ret = 1;
	}
	state_close(st);
	buf_release(&err);
	buf_release(&b);
	buf_release(&mail);
	buf_release(&mid);
	buf_release(&path);
	buf_release(&head);
	buf_release(&key);
	return ret;
}
