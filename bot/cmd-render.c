/*
 * perfbot render FILE.json: the complete mail, exactly as send would
 * deliver it, on stdout.  Sends nothing, changes no state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "date.h"
#include "message.h"
#include "render.h"
#include "report.h"
#include "xalloc.h"
#include "banned.h"

static const char usage_text[] =
	"usage: perfbot render [--template NAME] [--date 'YYYY-MM-DD hh:mm:ss'] [--message-id ID] FILE.json\n"
	"\n"
	"Prints the report mail for FILE.json (headers and body) as it would be sent.\n"
	"  --template NAME   a template in perfbot.templates instead of perfbot.template\n"
	"  --date D          the creation time, read in perfbot.timezone\n"
	"                    (default: $SOURCE_DATE_EPOCH, else now)\n"
	"  --message-id ID   use this Message-ID (with or without <>) instead of minting one\n";

/* The report's creation time: --date, else SOURCE_DATE_EPOCH, else now. */
static int creation_time(const char *date, int zone, int64_t *out, struct buf *err)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");

	if (date)
		return date_parse_local(date, zone, out, err) < 0 ? err_prefix(err, "--date: ") : 0;
	if (sde && *sde) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(sde, &end, 10);
		if (errno || *end || v < 0)
			return err_set(err, "SOURCE_DATE_EPOCH: '%s' is not a number of seconds", sde);
		*out = v;
		return 0;
	}
	*out = (int64_t)time(NULL);
	return 0;
}

/* "<id>" or "id" -> "id" (a copy). */
static char *strip_angles(const char *id)
{
	size_t n = strlen(id);

	if (n >= 2 && id[0] == '<' && id[n - 1] == '>')
		return xstrndup(id + 1, n - 2);
	return xstrdup(id);
}

int cmd_render(int argc, char **argv, const struct cmd_options *opts)
{
	const char *template_name = NULL, *date = NULL, *mid = NULL, *file = NULL;
	struct buf err = BUF_INIT;
	struct config *cfg = NULL;
	struct report *report = NULL;
	struct render_env env;
	struct render_request req;
	struct rendered out;
	char *message_id = NULL;
	int i, rc = EX_DATAERR, env_open = 0;

	memset(&out, 0, sizeof(out));
	buf_init(&out.notes);
	buf_init(&out.mail);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--template") && i + 1 < argc) {
			template_name = argv[++i];
		} else if (!strcmp(argv[i], "--date") && i + 1 < argc) {
			date = argv[++i];
		} else if (!strcmp(argv[i], "--message-id") && i + 1 < argc) {
			mid = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "perfbot render: unknown option '%s'\n%s", argv[i], usage_text);
			return EX_USAGE;
		} else if (!file) {
			file = argv[i];
		} else {
			fprintf(stderr, "perfbot render: one FILE.json at a time\n%s", usage_text);
			return EX_USAGE;
		}
	}
	if (!file) {
		fputs(usage_text, stderr);
		return EX_USAGE;
	}

	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	memset(&req, 0, sizeof(req));
	if (creation_time(date, cfg->timezone, &req.created, &err) < 0) {
		rc = EX_USAGE;
		goto fail;
	}
	if (strcmp(file, "-") && access(file, R_OK) < 0) {
		err_set(&err, "%s: cannot read: %s", file, strerror(errno));
		rc = EX_NOINPUT;
		goto fail;
	}
	if (report_load_file(file, &report, &err) < 0)
		goto fail;
	if (render_env_open(&env, cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	env_open = 1;
	if (mid) {
		message_id = strip_angles(mid);
		if (message_check_id(message_id, &err) < 0) {
			err_prefix(&err, "--message-id: ");
			rc = EX_USAGE;
			goto fail;
		}
	}
	req.report = report;
	req.message_id = message_id;
	req.template_name = template_name;
	if (render_report(&env, &req, &out, &err) < 0)
		goto fail;
	if (opts->verbose && out.notes.len)
		fputs(out.notes.data, stderr);
	if (fwrite(out.mail.data, 1, out.mail.len, stdout) != out.mail.len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot render: cannot write to stdout: %s\n", strerror(errno));
		rc = EX_IOERR;
		goto done;
	}
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "perfbot render: %s\n", err.data);
done:
	rendered_release(&out);
	if (env_open)
		render_env_close(&env);
	report_free(report);
	config_free(cfg);
	free(message_id);
	buf_release(&err);
	return rc;
}
