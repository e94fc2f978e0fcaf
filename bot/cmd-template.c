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
	const char *partials = NULL;
	const char *const *args;
	struct opt_args a;
	struct buf text = BUF_INIT, out = BUF_INIT, err = BUF_INIT;
	struct template_set *set = NULL;
	struct template *t = NULL;
	struct value *data = NULL;
	char *dir = NULL;
	off_t size;
	int ret;
	const struct opt options[] = {
		OPT_STRING_E(0, "partials", &partials, "DIR", "look partials up in DIR"),
		OPT_BOOL_E(0, "lenient", &topt.lenient,
			   "a missing name or partial renders empty (the mustache\n"
			   "spec's rule); by default both are errors"),
		OPT_BOOL_E(0, "html-escape", &topt.html_escape,
			   "{{x}} escapes & \" < > (the spec's rule; {{{x}}} and {{&x}}\n"
			   "never do); by default nothing is escaped"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot template",
		.args = "TEMPLATE DATA.json",
		.min_args = 2,
		.max_args = 2,
		.about = "Renders the file TEMPLATE with DATA (any JSON value; '-' reads stdin) and\n"
			 "prints the result exactly as it comes out.  A partial or parent {{> name}}\n"
			 "is the file name.txt in DIR, else in TEMPLATE's directory.\n",
		.opts = options,
	};

	(void)opts;
	if (cmd_parse_options(&spec, argc, argv, &a, &ret))
		return ret;
	args = (const char *const *)a.v;
	if (!strcmp(args[0], "-")) {
		ret = cmd_usage_error(&spec, "TEMPLATE must be a file ('-' is only for DATA)");
		goto done;
	}

	ret = EX_NOINPUT;
	if (check_input("template", args[0], &size) < 0)
		goto done;
	if (size > (off_t)TEMPLATE_MAX_SIZE) {
		fprintf(stderr, "perfbot template: %s: template is larger than %u bytes\n",
			args[0], TEMPLATE_MAX_SIZE);
		ret = EX_DATAERR;
		goto done;
	}
	if (strcmp(args[1], "-") && check_input("data", args[1], &size) < 0)
		goto done;
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
	opt_args_release(&a);
	return ret;
}
