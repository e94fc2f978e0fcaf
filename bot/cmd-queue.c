/*
 * perfbot queue FILE.json...: validate each comparison as `send` will
 * (down to rendering the mail, commits resolved) and move it into the
 * spool.  A file that would not render is refused now, with the reason,
 * not at 3 am in a cron mail; it stays where it was.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "intake.h"
#include "repo.h"
#include "state.h"
#include "render.h"
#include "report.h"
#include "result.h"
#include "spool.h"
#include "xalloc.h"
#include "banned.h"

/* Whether the file can become a mail: 0, or -1 with a message naming it. */
/* What queue checks against: the same repository, templates and state
 * (read only, when there is one) as the next send. */
struct queue {
	struct render_env *env;
	struct state *st;	/* NULL: no state yet */
	int64_t now;
	int verbose;
};

#define QUEUE_REFUSED (-1)	/* the file breaks a rule: 65 */
#define QUEUE_UNREADABLE (-2)	/* the file cannot be read: 66 */

/*
 * A test result: its request must be in the state and taken, its commits
 * the request's (result_check()), and its reply must render.  0, or
 * QUEUE_REFUSED with a message; -1 on a database error too.
 */
static int queue_check_result(struct queue *q, const struct report *report, struct buf *err)
{
	struct result_request rq;
	struct render_request req;
	struct rendered out;
	struct buf why = BUF_INIT;
	int ret = QUEUE_REFUSED, e;

	memset(&out, 0, sizeof(out));
	if (!q->st)
		return err_set(err, "%s: a test result answers request %ld, and there is no state "
			       "(or it is not this user's) to check it against", report->name,
			       report->request);
	e = result_request_load(q->st, report->request, &rq, &why, err);
	if (e < 0)
		return QUEUE_REFUSED;
	if (e == 0) {
		err_set(err, "%s: %s", report->name, why.data);
	} else if (result_check(q->env->repo, report, &rq, &why)) {
		err_set(err, "%s", why.data);
	} else {
		memset(&req, 0, sizeof(req));
		req.report = report;
		req.created = q->now;
		req.answer = &rq;
		if (render_report(q->env, &req, &out, err) == 0) {
			if (q->verbose && out.notes.len)
				fputs(out.notes.data, stderr);
			ret = 0;
		}
		rendered_release(&out);
	}
	if (e > 0)
		result_request_release(&rq);
	buf_release(&why);
	return ret;
}

/*
 * Renders file as send will: as a new report, or as the follow-up it
 * becomes when its thread has a report (with the follow-up template), or
 * refused when a maintainer or the operator closed that thread.  0, or
 * QUEUE_REFUSED / QUEUE_UNREADABLE with a message.
 */
static int queue_check(struct queue *q, const char *file, struct buf *err)
{
	struct render_request req;
	struct rendered out;
	struct report *report = NULL;
	struct intake_plan plan;
	struct commit_info head;
	struct buf why = BUF_INIT;
	struct stat sb;
	int ret = QUEUE_REFUSED, e;

	if (!strcmp(file, "-"))
		return err_set(err, "-: standard input cannot be queued: write it to a file first");
	if (lstat(file, &sb) < 0 || (S_ISREG(sb.st_mode) && access(file, R_OK) < 0)) {
		err_set(err, "%s: cannot read: %s", file, strerror(errno));
		return QUEUE_UNREADABLE;
	}
	if (!S_ISREG(sb.st_mode))
		return err_set(err, "%s: not a regular file%s", file,
			       S_ISLNK(sb.st_mode) ? " but a symbolic link: queue the file it points to" : "");
	if (report_load_file(file, &report, err) < 0)
		return QUEUE_REFUSED;
	if (report->request) {
		ret = queue_check_result(q, report, err);
		report_free(report);
		return ret;
	}
	memset(&out, 0, sizeof(out));
	if (repo_lookup(q->env->repo, report->commit, &head, err) < 0) {
		err_prefix(err, "%s: commit: ", report->name);	/* as render says it */
		report_free(report);
		return QUEUE_REFUSED;
	}
	e = intake_plan(q->st, report, head.id, &plan, &why, err);
	commit_info_release(&head);
	if (e == 0) {
		intake_plan_request(&plan, report, q->now, &req);
		if (render_report(q->env, &req, &out, err) == 0) {
			if (q->verbose && out.notes.len)
				fputs(out.notes.data, stderr);
			ret = 0;
		}
		rendered_release(&out);
	} else if (e > 0) {
		err_set(err, "%s: %s", file, why.data);
	}
	intake_plan_release(&plan);
	buf_release(&why);
	report_free(report);
	return ret;
}

/*
 * The rejected file arg names: NAME, STATE/spool/rejected/NAME (any path
 * to that folder), or spool/rejected/NAME under perfbot.state.  0 with
 * *name (malloc'd), or -1 with a message.
 */
static int rejected_name(const char *state, const char *arg, char **name, struct buf *err)
{
	const char *slash = strrchr(arg, '/');
	struct buf want = BUF_INIT, dir = BUF_INIT;
	char a[PATH_MAX], b[PATH_MAX];
	int ret = -1, here;

	*name = NULL;
	if (!slash) {
		*name = xstrdup(arg);
		return 0;
	}
	if (!slash[1])
		return err_set(err, "%s: name a file in %s/spool/rejected", arg, state);
	buf_addf(&want, "%s/spool/rejected", state);
	buf_add(&dir, arg, (size_t)(slash - arg));
	if (!realpath(want.data, a)) {
		err_set(err, "%s: %s", want.data, strerror(errno));
		goto done;
	}
	/* a path as given, or one under perfbot.state */
	here = realpath(dir.len ? dir.data : "/", b) && !strcmp(a, b);
	if (!here && arg[0] != '/') {
		buf_reset(&dir);
		buf_addf(&dir, "%s/%.*s", state, (int)(slash - arg), arg);
		here = realpath(dir.data, b) && !strcmp(a, b);
	}
	if (here) {
		*name = xstrdup(slash + 1);
		ret = 0;
	} else {
		err_set(err, "%s: not in %s (--requeue takes rejected files back)", arg, want.data);
	}
done:
	buf_release(&want);
	buf_release(&dir);
	return ret;
}

/* queue --requeue: each rejected file, checked again, goes back. */
static int requeue(const struct config *cfg, struct queue *q, struct opt_args *args)
{
	struct buf err = BUF_INIT, path = BUF_INIT, name = BUF_INIT;
	size_t i;
	int rc = 0;

	for (i = 0; i < args->nr; i++) {
		char *rej = NULL;

		buf_reset(&err);
		buf_reset(&name);
		if (rejected_name(cfg->state, args->v[i], &rej, &err) < 0) {
			fprintf(stderr, "perfbot queue: %s\n", err.data);
			rc = EX_DATAERR;
			continue;
		}
		buf_reset(&path);
		buf_addf(&path, "%s/spool/rejected/%s", cfg->state, rej);
		if (queue_check(q, path.data, &err) < 0) {
			fprintf(stderr, "perfbot queue: %s (left in spool/rejected)\n", err.data);
			rc = EX_DATAERR;
		} else if (spool_requeue(cfg->state, rej, &name, &err) < 0) {
			fprintf(stderr, "perfbot queue: %s\n", err.data);
			rc = EX_DATAERR;
		} else {
			fprintf(stderr, "requeued rejected/%s as incoming/%s\n", rej, name.data);
		}
		free(rej);
	}
	buf_release(&err);
	buf_release(&path);
	buf_release(&name);
	return rc;
}

int cmd_queue(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, name = BUF_INIT;
	struct config *cfg = NULL;
	struct render_env env;
	struct queue q;
	int64_t now;
	struct opt_args args;
	size_t i;
	int rc = 0, again = 0;
	const struct opt options[] = {
		OPT_BOOL_E(0, "requeue", &again,
			   "take rejected files back (spool/rejected/NAME, or NAME): checked\n"
			   "again, moved to incoming/ under the same name, their .why removed"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot queue",
		.args = "FILE.json...",
		.min_args = 1,
		.max_args = OPT_ARGS_ANY,
		.about = "Checks each comparison JSON as send would (including its commits and the\n"
			 "rendered mail) and moves it into the spool (perfbot.state/spool/incoming)\n"
			 "for the next `perfbot send`.  A file that fails is left where it was and\n"
			 "the reason printed; the others are still queued (exit 65 if any failed).\n",
		.opts = options,
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		fprintf(stderr, "perfbot queue: %s\n", err.data);
		buf_release(&err);
		opt_args_release(&args);
		return EX_CONFIG;
	}
	if (render_env_open(&env, cfg, &err) < 0) {
		fprintf(stderr, "perfbot queue: %s\n", err.data);
		config_free(cfg);
		buf_release(&err);
		opt_args_release(&args);
		return EX_CONFIG;
	}
	now = opts->now;
	memset(&q, 0, sizeof(q));
	q.env = &env;
	q.now = now;
	q.verbose = opts->verbose;
	/* the outbox decides what a comparison becomes: read it, if there
	 * is one this user may open (a pipeline user queueing into a spool
	 * shared with perfbot.spoolGroup may not) */
	if (state_exists(cfg->state)) {
		buf_reset(&name);
		buf_addf(&name, "%s/state.db", cfg->state);
		if (access(name.data, R_OK | W_OK) < 0)
			fprintf(stderr, "perfbot queue: note: %s is not this user's to read: each file is checked "
				"as a new report (send decides whether it is a follow-up)\n", name.data);
		else if (state_open(cfg->state, &q.st, &err) < 0) {
			fprintf(stderr, "perfbot queue: %s\n", err.data);
			rc = EX_CANTCREAT;
			goto done;
		}
	}
	/* the #perfbot unsubscribe list, as send applies it (without the
	 * state, send alone can tell whether it leaves anybody) */
	if (q.st && render_env_read_exclusions(&env, q.st, &err) < 0) {
		fprintf(stderr, "perfbot queue: %s\n", err.data);
		rc = EX_CANTCREAT;
		goto done;
	}
	if (again) {
		rc = requeue(cfg, &q, &args);
		args.nr = 0;
	}
	for (i = 0; i < args.nr; i++) {
		const char *file = args.v[i];
		int e;

		buf_reset(&name);
		e = queue_check(&q, file, &err);
		if (e < 0) {
			fprintf(stderr, "perfbot queue: %s\n", err.data);
			/* the worst outcome decides: 74, then 66, then 65 */
			if (rc != EX_IOERR && (e == QUEUE_UNREADABLE || rc != EX_NOINPUT))
				rc = e == QUEUE_UNREADABLE ? EX_NOINPUT : EX_DATAERR;
			continue;
		}
		/* A good file that cannot be moved is the system's fault, not
		 * the file's: say so with a different exit code. */
		if (spool_queue_file(cfg->state, file, now, &name, &err) < 0) {
			fprintf(stderr, "perfbot queue: %s\n", err.data);
			rc = EX_IOERR;
			continue;
		}
		fprintf(stderr, "queued %s as incoming/%s\n", file, name.data);
	}
done:
	state_close(q.st);
	render_env_close(&env);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&name);
	return rc;
}
