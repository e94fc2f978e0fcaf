#ifndef PERFBOT_CMD_H
#define PERFBOT_CMD_H

#include <stdint.h>

/*
 * The commands.  Each cmd_NAME() gets argv starting at the command's name,
 * prints its own output and errors, and returns a <sysexits.h> exit code.
 * Only main.c and cmd-*.c print or choose exit codes.
 */

struct cmd_options {
	const char *config_path;	/* --config, or NULL */
	int verbose;			/* -v count */
	int64_t now;			/* the run's clock: PERFBOT_NOW (tests pin
					 * it) or time(NULL) */
};

int cmd_parse(int argc, char **argv, const struct cmd_options *opts);
int cmd_ingest(int argc, char **argv, const struct cmd_options *opts);
int cmd_thread(int argc, char **argv, const struct cmd_options *opts);
int cmd_send(int argc, char **argv, const struct cmd_options *opts);
int cmd_render(int argc, char **argv, const struct cmd_options *opts);
int cmd_queue(int argc, char **argv, const struct cmd_options *opts);
int cmd_status(int argc, char **argv, const struct cmd_options *opts);
int cmd_template(int argc, char **argv, const struct cmd_options *opts);

#endif
