/*
 * What the commands share: reading their options from the table-driven
 * parser (opt.h) and printing its help or its error the one way.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sysexits.h>

#include "cmd.h"
#include "xalloc.h"
#include "banned.h"

int cmd_parse_options(const struct opt_spec *spec, int argc, char **argv,
		      struct opt_args *args, int *rc)
{
	struct buf err = BUF_INIT, text = BUF_INIT;
	int r = opt_parse(spec, argc, argv, args, &err);

	if (r == 0) {
		buf_release(&err);
		return 0;
	}
	if (r == OPT_HELP) {
		opt_help(&text, spec);
		fputs(text.data, stdout);
		*rc = 0;
	} else {
		opt_usage(&text, spec);
		fprintf(stderr, "%s: %s\n%s", spec->name, err.data, text.data);
		*rc = EX_USAGE;
	}
	buf_release(&err);
	buf_release(&text);
	return 1;
}

int cmd_usage_error(const struct opt_spec *spec, const char *fmt, ...)
{
	struct buf text = BUF_INIT;
	va_list ap;

	buf_addf(&text, "%s: ", spec->name);
	va_start(ap, fmt);
	buf_vaddf(&text, fmt, ap);
	va_end(ap);
	buf_addc(&text, '\n');
	opt_usage(&text, spec);
	fputs(text.data, stderr);
	buf_release(&text);
	return EX_USAGE;
}

int cmd_report_number(const char *s, int64_t *out, struct buf *err)
{
	long long n;
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return 0;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || n <= 0)
		return err_set(err, "'%s' is not a report number (1 and up; perfbot status lists them)", s);
	*out = n;
	return 1;
}

char *cmd_strip_angles(const char *id)
{
	size_t n = strlen(id);

	if (n >= 2 && id[0] == '<' && id[n - 1] == '>')
		return xstrndup(id + 1, n - 2);
	return xstrdup(id);
}
