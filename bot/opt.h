#ifndef PERFBOT_OPT_H
#define PERFBOT_OPT_H

/*
 * Command-line options, table-driven (after git's parse-options): each
 * command describes its options once, in a table, and the parser, the
 * usage line and the --help text are all made from that table, so they
 * cannot disagree with one another.
 *
 * What every command accepts, the same way:
 *   --name VALUE  --name=VALUE   an option with a value
 *   -x VALUE  -xVALUE            its one-letter form, when it has one
 *   -abc                         one-letter options without values, together
 *   --                           ends the options: what follows are arguments
 *   -                            an argument (standard input), never an option
 *   -h  --help                   built in: opt_parse() returns OPT_HELP
 * Options and arguments may be given in any order, unless the spec says
 * stop_at_arg (the global options before a command name).
 *
 * Errors are one lowercase message each, without the program's name:
 *   unknown option '--frob'
 *   option '--template' needs a value
 *   option '--dry-run' takes no value
 *   option '--limit': 'x' is not a whole number from 1 to 100
 *   --mbox cannot be used with --json
 *   too many arguments: 'b.json' (perfbot thread takes ID)
 *   missing argument: perfbot thread takes ID
 *
 * Pure: no printing (cmd.h's cmd_options_parse() prints for commands),
 * nothing kept after the call but what the table's value pointers got.
 * argv is trusted to be NUL-terminated strings (it is the command line);
 * values are handed over as pointers into it, not copied.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum opt_type {
	OPT_END = 0,		/* ends a table */
	OPT_BOOL,		/* int *: set to 1 */
	OPT_COUNT,		/* int *: one more each time (-v -v, -vv) */
	OPT_STRING,		/* const char **: the value (the last one given wins) */
	OPT_LIST,		/* struct opt_list *: every value, in order */
	OPT_INT,		/* long *: a decimal whole number within min..max */
};

/* The values of an OPT_LIST option.  opt_list_release() frees the array
 * (the strings are argv's). */
struct opt_list {
	const char **v;
	size_t nr, alloc;
};

void opt_list_release(struct opt_list *l);

struct opt {
	enum opt_type type;
	char short_name;	/* 'n' for -n; 0 when none */
	const char *long_name;	/* "dry-run" for --dry-run; NULL when none */
	void *value;		/* where the result goes (see enum opt_type) */
	const char *argh;	/* the value's name in the help ("FILE"); NULL
				 * for BOOL and COUNT */
	const char *help;	/* what it does, one line (a '\n' starts another,
				 * indented under the first) */
	int exclusive;		/* options of one table sharing a non-zero
				 * number cannot be given together */
	long min, max;		/* OPT_INT: the accepted range */
};

/* Table entries (a designated-initializer short-hand, like git's OPT_*). */
#define OPT_BOOL_E(s, l, v, h)	{ OPT_BOOL, (s), (l), (v), NULL, (h), 0, 0, 0 }
#define OPT_COUNT_E(s, l, v, h)	{ OPT_COUNT, (s), (l), (v), NULL, (h), 0, 0, 0 }
#define OPT_STRING_E(s, l, v, a, h)	{ OPT_STRING, (s), (l), (v), (a), (h), 0, 0, 0 }
#define OPT_LIST_E(s, l, v, a, h)	{ OPT_LIST, (s), (l), (v), (a), (h), 0, 0, 0 }
#define OPT_INT_E(s, l, v, a, lo, hi, h)	{ OPT_INT, (s), (l), (v), (a), (h), 0, (lo), (hi) }
#define OPT_END_E		{ OPT_END, 0, NULL, NULL, NULL, NULL, 0, 0, 0 }

#define OPT_ARGS_ANY SIZE_MAX	/* max_args: no upper bound */

/* A command's options and arguments. */
struct opt_spec {
	const char *name;	/* "perfbot send": usage lines and messages */
	const char *args;	/* the arguments in the usage line ("[FILE.json...]");
				 * NULL or "" for none */
	size_t min_args;	/* arguments required */
	size_t max_args;	/* arguments allowed (OPT_ARGS_ANY: any number) */
	const char *about;	/* the text under the usage line: lines ending in '\n' */
	const char *notes;	/* text after the option list, or NULL */
	const struct opt *opts;	/* the table, ended by OPT_END_E */
	int stop_at_arg;	/* the first argument ends the options (and is
				 * args.v[0], followed by everything after it) */
};

/* The arguments left once the options are taken: pointers into argv, in
 * order (opt_args_release() frees the array). */
struct opt_args {
	char **v;
	size_t nr;
};

void opt_args_release(struct opt_args *a);

#define OPT_HELP 1	/* opt_parse(): -h or --help was given */

/*
 * Parses argv[1..argc-1] (argv[0] is the command's name and is skipped)
 * against spec: every option's value goes where its table entry points,
 * and the arguments into *args.  Returns 0; OPT_HELP when -h or --help
 * came (the rest is then not looked at, and *args is empty); -1 with one
 * message in err (see above), *args empty.  The argument count is checked
 * against min_args and max_args.
 */
int opt_parse(const struct opt_spec *spec, int argc, char **argv, struct opt_args *args,
	      struct buf *err);

/* Appends "usage: NAME [--a] [--b VALUE | --c] ARGS\n". */
void opt_usage(struct buf *out, const struct opt_spec *spec);

/* Appends the whole help: the usage line, an empty line, about, the
 * option list (with -h, --help last), and notes. */
void opt_help(struct buf *out, const struct opt_spec *spec);

#endif
