#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "opt.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The options every case is parsed against, and where they land. */
static int dry, verbose, mbox, json;
static const char *name, *date;
static struct opt_list cc;
static long limit;

static const struct opt table[] = {
	OPT_BOOL_E('n', "dry-run", &dry, "do nothing"),
	OPT_COUNT_E('v', "verbose", &verbose, "say more"),
	OPT_STRING_E('t', "template", &name, "NAME", "a template"),
	OPT_STRING_E(0, "date", &date, "DATE", "when"),
	OPT_LIST_E(0, "cc", &cc, "ADDR", "also to ADDR"),
	OPT_INT_E(0, "limit", &limit, "N", 1, 100, "at most N"),
	{ OPT_BOOL, 0, "mbox", &mbox, NULL, "as an mbox", 1, 0, 0 },
	{ OPT_BOOL, 0, "json", &json, NULL, "as JSON", 1, 0, 0 },
	OPT_END_E,
};

static const struct opt_spec spec = {
	.name = "perfbot x",
	.args = "[FILE...]",
	.max_args = 3,
	.about = "Does x.\n",
	.opts = table,
};

static void reset(void)
{
	dry = verbose = mbox = json = 0;
	name = date = NULL;
	opt_list_release(&cc);
	limit = 0;
}

/* Splits s at spaces into argv (argv[0] is the command). */
static int split(char *s, char **argv, int max)
{
	int n = 0;
	char *p;

	for (p = strtok_r(s, " ", &s); p && n < max; p = strtok_r(NULL, " ", &s))
		argv[n++] = p;
	return n;
}

static const struct {
	const char *line;
	int ret;		/* 0, OPT_HELP or -1 */
	const char *err;	/* the message for -1 */
	/* what the good cases give: */
	int dry, verbose, mbox;
	const char *name, *date;
	long limit;
	size_t ncc;
	const char *args;	/* the arguments left, joined with '|' */
} cases[] = {
	{ "x", 0, NULL, 0, 0, 0, NULL, NULL, 0, 0, "" },
	{ "x a b", 0, NULL, 0, 0, 0, NULL, NULL, 0, 0, "a|b" },
	{ "x --dry-run a", 0, NULL, 1, 0, 0, NULL, NULL, 0, 0, "a" },
	{ "x a -n", 0, NULL, 1, 0, 0, NULL, NULL, 0, 0, "a" },
	{ "x -vv -v", 0, NULL, 0, 3, 0, NULL, NULL, 0, 0, "" },
	{ "x -nv", 0, NULL, 1, 1, 0, NULL, NULL, 0, 0, "" },
	{ "x --template lkp", 0, NULL, 0, 0, 0, "lkp", NULL, 0, 0, "" },
	{ "x --template=lkp", 0, NULL, 0, 0, 0, "lkp", NULL, 0, 0, "" },
	{ "x --template= a", 0, NULL, 0, 0, 0, "", NULL, 0, 0, "a" },
	{ "x -t lkp", 0, NULL, 0, 0, 0, "lkp", NULL, 0, 0, "" },
	{ "x -tlkp", 0, NULL, 0, 0, 0, "lkp", NULL, 0, 0, "" },
	{ "x -nt lkp f", 0, NULL, 1, 0, 0, "lkp", NULL, 0, 0, "f" },
	{ "x --template a --template b", 0, NULL, 0, 0, 0, "b", NULL, 0, 0, "" },
	/* the value is the next word, whatever it looks like (as git does) */
	{ "x --template --dry-run", 0, NULL, 0, 0, 0, "--dry-run", NULL, 0, 0, "" },
	{ "x --cc a@b --cc=c@d", 0, NULL, 0, 0, 0, NULL, NULL, 0, 2, "" },
	{ "x --limit 7", 0, NULL, 0, 0, 0, NULL, NULL, 7, 0, "" },
	{ "x --limit=100", 0, NULL, 0, 0, 0, NULL, NULL, 100, 0, "" },
	{ "x -- --dry-run -n", 0, NULL, 0, 0, 0, NULL, NULL, 0, 0, "--dry-run|-n" },
	{ "x - a", 0, NULL, 0, 0, 0, NULL, NULL, 0, 0, "-|a" },
	{ "x --mbox", 0, NULL, 0, 0, 1, NULL, NULL, 0, 0, "" },
	{ "x --mbox --mbox", 0, NULL, 0, 0, 1, NULL, NULL, 0, 0, "" },
	{ "x --help --bogus", OPT_HELP, NULL, 0, 0, 0, NULL, NULL, 0, 0, "" },
	{ "x a -h", OPT_HELP, NULL, 0, 0, 0, NULL, NULL, 0, 0, "" },
	{ "x -nh", OPT_HELP, NULL, 0, 0, 0, NULL, NULL, 0, 0, "" },
	{ "x --bogus", -1, "unknown option '--bogus'" },
	{ "x --bogus=1", -1, "unknown option '--bogus'" },
	{ "x --dry", -1, "unknown option '--dry'" },
	{ "x -q", -1, "unknown option '-q'" },
	{ "x -nq", -1, "unknown option '-q'" },
	{ "x --template", -1, "option '--template' needs a value" },
	{ "x -t", -1, "option '--template' needs a value" },
	{ "x --dry-run=yes", -1, "option '--dry-run' takes no value" },
	{ "x --limit 0", -1, "option '--limit': '0' is not a whole number from 1 to 100" },
	{ "x --limit 12x", -1, "option '--limit': '12x' is not a whole number from 1 to 100" },
	{ "x --limit=", -1, "option '--limit': '' is not a whole number from 1 to 100" },
	{ "x --limit 99999999999999999999", -1,
	  "option '--limit': '99999999999999999999' is not a whole number from 1 to 100" },
	{ "x --mbox --json", -1, "--json cannot be used with --mbox" },
	{ "x a b c d", -1, "unexpected argument 'd' (perfbot x takes [FILE...])" },
	{ "x --help=1", -1, "unknown option '--help'" },
};

static void parse_cases(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		char line[200], *argv[20];
		struct buf err = BUF_INIT, got = BUF_INIT;
		struct opt_args args;
		int argc, r;

		reset();
		snprintf(line, sizeof(line), "%s", cases[i].line);
		argc = split(line, argv, 20);
		r = opt_parse(&spec, argc, argv, &args, &err);
		if (r != cases[i].ret)
			fail_msg("'%s': returned %d, want %d (%s)", cases[i].line, r, cases[i].ret, err.data);
		if (r < 0) {
			assert_string_equal(err.data, cases[i].err);
			assert_int_equal(args.nr, 0);
		} else if (r == 0) {
			assert_int_equal(dry, cases[i].dry);
			assert_int_equal(verbose, cases[i].verbose);
			assert_int_equal(mbox, cases[i].mbox);
			if (cases[i].name)
				assert_string_equal(name, cases[i].name);
			else
				assert_null(name);
			assert_int_equal(limit, cases[i].limit);
			assert_int_equal(cc.nr, cases[i].ncc);
			for (j = 0; j < args.nr; j++)
				buf_addf(&got, "%s%s", j ? "|" : "", args.v[j]);
			assert_string_equal(got.data, cases[i].args);
		}
		opt_args_release(&args);
		buf_release(&err);
		buf_release(&got);
	}
	reset();
}

static void list_keeps_order(void **state)
{
	char a0[] = "x", a1[] = "--cc", a2[] = "one@x", a3[] = "--cc=two@x";
	char *argv[] = { a0, a1, a2, a3 };
	struct opt_args args;

	(void)state;
	reset();
	assert_int_equal(opt_parse(&spec, 4, argv, &args, NULL), 0);
	assert_int_equal(cc.nr, 2);
	assert_string_equal(cc.v[0], "one@x");
	assert_string_equal(cc.v[1], "two@x");
	opt_args_release(&args);
	reset();
}

static void argument_counts(void **state)
{
	const struct opt_spec one = { .name = "perfbot thread", .args = "ID", .min_args = 1,
				      .max_args = 1, .opts = table };
	char a0[] = "thread", a1[] = "7", a2[] = "8";
	char *argv[] = { a0, a1, a2 };
	struct buf err = BUF_INIT;
	struct opt_args args;

	(void)state;
	reset();
	assert_int_equal(opt_parse(&one, 1, argv, &args, &err), -1);
	assert_string_equal(err.data, "missing argument: perfbot thread takes ID");
	assert_int_equal(opt_parse(&one, 2, argv, &args, &err), 0);
	assert_int_equal(args.nr, 1);
	assert_string_equal(args.v[0], "7");
	opt_args_release(&args);
	assert_int_equal(opt_parse(&one, 3, argv, &args, &err), -1);
	assert_string_equal(err.data, "unexpected argument '8' (perfbot thread takes ID)");
	buf_release(&err);
}

static void stop_at_arg(void **state)
{
	const struct opt_spec global = { .name = "perfbot", .args = "COMMAND [ARGS]",
					 .max_args = OPT_ARGS_ANY, .opts = table, .stop_at_arg = 1 };
	char a0[] = "perfbot", a1[] = "-v", a2[] = "send", a3[] = "-n", a4[] = "--", a5[] = "f";
	char *argv[] = { a0, a1, a2, a3, a4, a5 };
	struct opt_args args;

	(void)state;
	reset();
	assert_int_equal(opt_parse(&global, 6, argv, &args, NULL), 0);
	assert_int_equal(verbose, 1);
	assert_int_equal(dry, 0);	/* -n belongs to the command */
	assert_int_equal(args.nr, 4);
	assert_string_equal(args.v[0], "send");
	assert_string_equal(args.v[1], "-n");
	assert_string_equal(args.v[2], "--");
	assert_string_equal(args.v[3], "f");
	opt_args_release(&args);
}

static void usage_and_help(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	opt_usage(&out, &spec);
	assert_string_equal(out.data,
			    "usage: perfbot x [--dry-run] [--verbose] [--template NAME] [--date DATE]\n"
			    "                 [--cc ADDR]... [--limit N] [--mbox | --json] [FILE...]\n");
	buf_reset(&out);
	opt_help(&out, &spec);
	assert_string_equal(out.data,
			    "usage: perfbot x [--dry-run] [--verbose] [--template NAME] [--date DATE]\n"
			    "                 [--cc ADDR]... [--limit N] [--mbox | --json] [FILE...]\n"
			    "\n"
			    "Does x.\n"
			    "\n"
			    "  -n, --dry-run        do nothing\n"
			    "  -v, --verbose        say more\n"
			    "  -t, --template NAME  a template\n"
			    "      --date DATE      when\n"
			    "      --cc ADDR        also to ADDR\n"
			    "      --limit N        at most N\n"
			    "      --mbox           as an mbox\n"
			    "      --json           as JSON\n"
			    "  -h, --help           show this help\n");
	buf_release(&out);
}

/* Every option the help lists is one the parser takes: the help is made
 * from the same table, and this holds for any table. */
static void help_lists_what_parses(void **state)
{
	struct buf out = BUF_INIT;
	const struct opt *o;

	(void)state;
	opt_help(&out, &spec);
	for (o = table; o->type != OPT_END; o++) {
		char flag[64], a0[] = "x", *argv[3];
		struct opt_args args;

		snprintf(flag, sizeof(flag), "--%s", o->long_name);
		assert_non_null(strstr(out.data, flag));
		reset();
		argv[0] = a0;
		argv[1] = flag;
		argv[2] = (char *)"5";
		assert_int_equal(opt_parse(&spec, o->type == OPT_BOOL || o->type == OPT_COUNT ? 2 : 3,
					   argv, &args, NULL), 0);
		opt_args_release(&args);
	}
	reset();
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_cases),
		cmocka_unit_test(list_keeps_order),
		cmocka_unit_test(argument_counts),
		cmocka_unit_test(stop_at_arg),
		cmocka_unit_test(usage_and_help),
		cmocka_unit_test(help_lists_what_parses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
