/*
 * perfbot: the command dispatcher.  Global options, then one command; each
 * command lives in cmd-<name>.c and returns a <sysexits.h> code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "cmd.h"
#include "banned.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv, const struct cmd_options *opts);
	const char *summary;
} commands[] = {
	{ "ingest", cmd_ingest, "read new mail: keep and archive the replies to reports" },
	{ "parse", cmd_parse, "show what perfbot reads from one mail, as JSON" },
	{ "render", cmd_render, "print the report mail for a comparison JSON" },
	{ "queue", cmd_queue, "check comparison JSONs and move them into the spool" },
	{ "send", cmd_send, "take the spool into the outbox, deliver what is due, archive it" },
	{ "status", cmd_status, "show the spool, the outbox and the replies" },
	{ "template", cmd_template, "render any template with any JSON data" },
	{ "thread", cmd_thread, "show a report's thread: overview, mbox or JSON" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	const struct command *c;

	fprintf(f, "usage: perfbot [--config FILE] [-v] COMMAND [ARGS]\n\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(f, "  %-9s %s\n", c->name, c->summary);
	fprintf(f, "\n'perfbot COMMAND --help' describes a command.\n");
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
	const struct command *c;
	int i;

	opts.now = clock_now();
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			opts.config_path = argv[++i];
		} else if (!strncmp(argv[i], "--config=", 9)) {
			opts.config_path = argv[i] + 9;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			opts.verbose++;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "perfbot: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EX_USAGE;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(c->name, argv[i]))
			return c->run(argc - i, argv + i, &opts);
	fprintf(stderr, "perfbot: '%s' is not a command\n", argv[i]);
	usage(stderr);
	return EX_USAGE;
}
