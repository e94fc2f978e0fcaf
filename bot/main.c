/*
 * perfbot: the command dispatcher.  Global options, then one command; each
 * command lives in cmd-<name>.c and returns a <sysexits.h> code.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "buf.h"
#include "cmd.h"
#include "opt.h"
#include "banned.h"

static int run_help(int argc, char **argv, const struct cmd_options *opts);

static const struct cmd_entry commands[] = {
	{ "check", cmd_check, "check the configuration, repository, templates and servers" },
	{ "digest", cmd_digest, "queue a digest of the open, fixed and closed reports" },
	{ "help", run_help, "show a command's manual page (or its --help)" },
	{ "ingest", cmd_ingest, "read new mail: keep and archive the replies to reports" },
	{ "outbox", cmd_outbox, "list what waits to go out; hold, release, retry or drop a mail" },
	{ "parse", cmd_parse, "show what perfbot reads from one mail, as JSON" },
	{ "queue", cmd_queue, "check comparison JSONs and move them into the spool" },
	{ "recipients", cmd_recipients, "show who would get each report and why" },
	{ "render", cmd_render, "print the report mail for a comparison JSON" },
	{ "report", cmd_report, "set a report's state as the operator" },
	{ "requests", cmd_requests, "list #perfbot test requests; take a job for the lab, drop one" },
	{ "send", cmd_send, "take the spool into the outbox, deliver what is due, archive it" },
	{ "site", cmd_site, "write the static web site: reports, trees, feeds, reports.json" },
	{ "status", cmd_status, "show the spool, the outbox and the replies" },
	{ "template", cmd_template, "render any template with any JSON data" },
	{ "thread", cmd_thread, "show a report's thread: overview, mbox or JSON" },
	{ "track", cmd_track, "notice the fixes of reports in the watched git trees" },
	{ NULL, NULL, NULL },
};

/* help needs the table, to tell commands from topics and to print a
 * command's --help when its page cannot be shown. */
static int run_help(int argc, char **argv, const struct cmd_options *opts)
{
	return cmd_help(argc, argv, opts, commands);
}

static void usage(FILE *f, const struct opt_spec *spec)
{
	struct buf text = BUF_INIT;
	const struct cmd_entry *c;

	opt_help(&text, spec);
	buf_adds(&text, "\ncommands:\n");
	for (c = commands; c->name; c++)
		buf_addf(&text, "  %-10s %s\n", c->name, c->summary);
	buf_adds(&text, "\n'perfbot COMMAND --help' describes a command; 'perfbot help COMMAND' shows its\nmanual page.\n");
	fputs(text.data, f);
	buf_release(&text);
}

static int64_t clock_now(void)
{
	const char *fake = getenv("PERFBOT_NOW");	/* tests pin the clock */

	if (fake && *fake)
		return strtoll(fake, NULL, 10);
	return (int64_t)time(NULL);
}

int main(int argc, char **argv)
{
	struct cmd_options opts = { 0 };
	const struct cmd_entry *c;
	struct opt_args args;
	struct buf err = BUF_INIT;
	int version = 0, r;
	const struct opt options[] = {
		OPT_STRING_E(0, "config", &opts.config_path, "FILE",
			     "the configuration (else $PERFBOT_CONFIG, else ~/.config/perfbot/config)"),
		OPT_COUNT_E('v', "verbose", &opts.verbose, "say more (-v -v: more still)"),
		OPT_BOOL_E(0, "version", &version, "print perfbot's version and exit"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot",
		.args = "COMMAND [ARGS]",
		.max_args = OPT_ARGS_ANY,
		.opts = options,
		.stop_at_arg = 1,
	};

	/* glibc gives freed memory at the heap's top back to the kernel
	 * once 128 KiB are free, and takes it again at the next malloc: a
	 * command that builds and frees many pages' worth of values (site,
	 * digest, ingest) then spends more time in page faults and brk than
	 * in its own work (a site run over 10,000 reports: 257,000 faults,
	 * 107,000 with this).  A perfbot run is short: memory goes back when
	 * it exits. */
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_TOP_PAD, 16 << 20);
	opts.now = clock_now();
	r = opt_parse(&spec, argc, argv, &args, &err);
	if (r == OPT_HELP) {
		usage(stdout, &spec);
		return 0;
	}
	if (r < 0) {
		fprintf(stderr, "perfbot: %s\n", err.data);
		usage(stderr, &spec);
		buf_release(&err);
		return EX_USAGE;
	}
	if (version) {
		printf("perfbot %s\n", PERFBOT_VERSION);
		opt_args_release(&args);
		return 0;
	}
	if (!args.nr) {
		usage(stderr, &spec);
		return EX_USAGE;
	}
	for (c = commands; c->name; c++) {
		if (!strcmp(c->name, args.v[0])) {
			r = c->run((int)args.nr, args.v, &opts);
			opt_args_release(&args);
			return r;
		}
	}
	fprintf(stderr, "perfbot: '%s' is not a command\n", args.v[0]);
	usage(stderr, &spec);
	opt_args_release(&args);
	return EX_USAGE;
}
