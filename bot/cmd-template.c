/*
 * perfbot template: render any template with any JSON data, for operators
 * writing templates and for the mustache spec suite.  A thin command over
 * template.c: it reads the files, picks exit codes and prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmd.h"
#include "json.h"
#include "template.h"
#include "xalloc.h"
#include "banned.h"

static const char usage_text[] =
	"usage: perfbot template [--partials DIR] [--lenient] [--html-escape] TEMPLATE DATA.json\n"
	"\n"
	"Renders the file TEMPLATE with DATA (any JSON value; '-' reads stdin) and\n"
	"prints the result exactly as it comes out.  A partial or parent {{> name}}\n"
	"is the file name.txt in DIR, else in TEMPLATE's directory.\n"
	"\n"
	"  --partials DIR   look partials up in DIR\n"
	"  --lenient        a missing name or partial renders empty (the mustache\n"
	"                   spec's rule); by default both are errors\n"
	"  --html-escape    {{x}} escapes & \" < > (the spec's rule; {{{x}}} and {{&x}}\n"
	"                   never do); by default nothing is escaped\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "perfbot template: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage_text);
	return EX_USAGE;
}

/*
 * Whether path can be opened as a file, so that an unreadable file exits
 * EX_NOINPUT and only bad contents exit EX_DATAERR.  *size gets its size
 * (0 for what is not a regular file).
 */
static int check_input(const char *what, const char *path, off_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "perfbot template: %s: cannot open %s: %s\n", path, what,
			strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		fprintf(stderr, "perfbot template: %s: %s is a directory, not a file\n", path, what);
		close(fd);
		return -1;
	}
	*size = S_ISREG(st.st_mode) ? st.st_size : 0;
	close(fd);
	return 0;
}

/* The directory TEMPLATE is in (malloc'd). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static int write_out(const struct buf *out)
{
	if (fwrite(out->data, 1, out->len, stdout) != out->len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot template: cannot write the output: %s\n", strerror(errno));
		return EX_IOERR;
	}
	return 0;
}

int cmd_template(int argc, char **argv, const struct cmd_options *opts)
{
	struct template_options topt = { 0 };
	const char *partials = NULL, *args[2];
	struct buf text = BUF_INIT, out = BUF_INIT, err = BUF_INIT;
	struct template_set *set = NULL;
	struct template *t = NULL;
	struct value *data = NULL;
	char *dir = NULL;
	off_t size;
	int i, nargs = 0, only_args = 0, ret;

	(void)opts;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (only_args || a[0] != '-' || !strcmp(a, "-")) {
			if (nargs == 2)
				return usage_error("too many arguments ('%s')", a);
			args[nargs++] = a;
		} else if (!strcmp(a, "--")) {
			only_args = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(a, "--partials")) {
			if (++i == argc)
				return usage_error("%s needs a directory", a);
			partials = argv[i];
		} else if (!strncmp(a, "--partials=", 11)) {
			partials = a + 11;
		} else if (!strcmp(a, "--lenient")) {
			topt.lenient = 1;
		} else if (!strcmp(a, "--html-escape")) {
			topt.html_escape = 1;
		} else {
			return usage_error("unknown option '%s'", a);
		}
	}
	if (nargs != 2)
		return usage_error("%s", "want a TEMPLATE file and a DATA.json file");
	if (!strcmp(args[0], "-"))
		return usage_error("%s", "TEMPLATE must be a file ('-' is only for DATA)");

	if (check_input("template", args[0], &size) < 0)
		return EX_NOINPUT;
	if (size > (off_t)TEMPLATE_MAX_SIZE) {
		fprintf(stderr, "perfbot template: %s: template is larger than %u bytes\n",
			args[0], TEMPLATE_MAX_SIZE);
		return EX_DATAERR;
	}
	if (strcmp(args[1], "-") && check_input("data", args[1], &size) < 0)
		return EX_NOINPUT;
	if (buf_read_file(&text, args[0], TEMPLATE_MAX_SIZE, &err) < 0) {
		ret = EX_NOINPUT;
		goto fail;
	}
	ret = EX_DATAERR;
	if (json_parse_file(args[1], &data, &err) < 0)
		goto fail;
	if (template_parse(args[0], text.data, text.len, &t, &err) < 0)
		goto fail;
	dir = partials ? xstrdup(partials) : dir_of(args[0]);
	set = template_set_new(dir);
	if (template_render(set, t, data, &topt, &out, &err) < 0)
		goto fail;
	ret = write_out(&out);
	goto done;
fail:
	fprintf(stderr, "perfbot template: %s\n", err.data);
done:
	template_set_free(set);
	template_free(t);
	value_free(data);
	free(dir);
	buf_release(&text);
	buf_release(&out);
	buf_release(&err);
	return ret;
}
