/*
 * bench-render: how fast perfbot renders reports, in one process with the
 * repository open and warm (`make bench`, tests/bench/run.sh).
 *
 *   bench-render [--dump-facts DIR] [--warmup K] [--batches B] CONFIG N
 *                [[--date 'YYYY-MM-DD hh:mm:ss'] [--message-id ID] FILE.json]...
 *
 * Loads CONFIG and opens its repository and templates once
 * (render_env_open), loads each FILE.json once (report_load_file), then
 * renders each report K times untimed (default 10) and N times timed
 * with render_report(): every render does its real work, the git look-ups
 * included (nothing is cached between renders).  --date and --message-id
 * apply to the one FILE after them, so the output is fixed (default date
 * 2026-01-01 00:00:00 in perfbot.timezone; default Message-ID: minted,
 * which is deterministic too).
 *
 * Wall-clock time (CLOCK_MONOTONIC) is what counts; the N renders are also
 * timed in BATCHES batches (default 10), and the process's CPU time is
 * taken too: on a shared machine the fastest batch and the CPU time are
 * the least disturbed measures.
 *
 * Output: per file and overall, reports/s and µs/report (over all N, of
 * the fastest batch, and in CPU time), and for scripts a line
 * "result perfbot NAME N SECONDS BEST_US CPU_SECONDS" per file (BEST_US:
 * µs per render in the fastest batch).
 *
 * --dump-facts DIR writes, per file, DIR/NAME.facts.json (what a peer
 * renderer needs ready-made: the commit facts, recipients, Message-ID,
 * dates and configuration values, see dump_facts()) and DIR/NAME.eml (the
 * mail perfbot rendered), for tests/bench/jinja2_render.py.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "address.h"
#include "buf.h"
#include "config.h"
#include "date.h"
#include "render.h"
#include "repo.h"
#include "report.h"
#include "value.h"
#include "xalloc.h"
#include "banned.h"

#define DEFAULT_DATE "2026-01-01 00:00:00"

static const char usage_text[] =
	"usage: bench-render [--dump-facts DIR] [--warmup K] [--batches B] CONFIG N\n"
	"                    [[--date 'YYYY-MM-DD hh:mm:ss'] [--message-id ID] FILE.json]...\n"
	"  --date and --message-id apply to the FILE after them.\n";

struct job {
	const char *path;
	char *name;		/* for output: the folder of an input.json, else the base name */
	const char *date;
	char *message_id;	/* without <>, or NULL to mint; owned */
	struct report *report;
	int64_t created;
	double seconds;		/* all N renders, wall clock */
	double cpu;		/* all N renders, the process's CPU time */
	double best;		/* the fastest batch, per render (wall clock) */
};

static double clock_seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

/* "cases/x86-its/input.json" -> "x86-its"; "dir/demo-report.json" -> "demo-report". */
static char *job_name(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t n = strlen(base);

	if (!strcmp(base, "input.json") && slash) {
		const char *end = slash, *p;

		while (end > path && end[-1] == '/')
			end--;
		for (p = end; p > path && p[-1] != '/'; p--)
			;
		if (p < end)
			return xstrndup(p, (size_t)(end - p));
	}
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	return xstrndup(base, n);
}

static char *strip_angles(const char *id)
{
	size_t n = strlen(id);

	if (n >= 2 && id[0] == '<' && id[n - 1] == '>')
		return xstrndup(id + 1, n - 2);
	return xstrdup(id);
}

static struct value *string_or_null(const char *s)
{
	return s ? value_new_string(s) : value_new_null();
}

static struct value *address_view(const struct address *a)
{
	struct value *v = value_new_object();
	struct buf b = BUF_INIT;

	value_object_set_string(v, "name", a->name);
	value_object_set_string(v, "email", a->email);
	address_format(&b, a);
	value_object_set_string(v, "formatted", b.data);
	buf_release(&b);
	return v;
}

static struct value *commit_facts(const struct commit_info *ci)
{
	struct value *v = value_new_object();

	value_object_set_string(v, "id", ci->id);
	value_object_set_string(v, "subject", ci->subject);
	value_object_set(v, "tag", string_or_null(ci->tag));
	value_object_set_string(v, "author_name", ci->author_name);
	value_object_set_string(v, "author_email", ci->author_email);
	return v;
}

static void add_polarity(struct value *list, const struct config_polarity *p, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		struct value *o = value_array_push(list, value_new_object());

		value_object_set_string(o, "pattern", p[i].pattern);
		value_object_set_bool(o, "higher", p[i].higher);
	}
}

/*
 * The facts a peer renderer gets ready-made: what perfbot reads from git
 * (commit ids, subjects, tags, author), who the mail goes to (as perfbot's
 * recipient rules chose them), the Message-ID and the two forms of the
 * creation time, and the configuration values the mail quotes (polarity
 * patterns as written: POSIX EREs, matched against the whole name).
 * Everything computed from the comparison JSON is left to the peer.
 */
static int dump_facts(const char *dir, struct render_env *env, const struct job *j,
		      const struct rendered *out, struct buf *err)
{
	const struct config *cfg = env->cfg;
	const struct report *r = j->report;
	struct value *v = value_new_object(), *c, *list;
	struct commit_info ci;
	struct address from;
	struct buf b = BUF_INIT, path = BUF_INIT;
	size_t i;
	int ret = -1;
	FILE *f;

	memset(&from, 0, sizeof(from));
	value_object_set_string(v, "input", j->path);
	c = value_object_set(v, "config", value_new_object());
	if (address_parse(cfg->from, &from, err) < 0)
		goto done;
	value_object_set(c, "from", address_view(&from));
	value_object_set_string(c, "reported_by", cfg->reported_by);
	value_object_set_string(c, "closes_url", cfg->closes_url);
	value_object_set_string(c, "artifacts_url", cfg->artifacts_url);
	value_object_set_string(c, "sender", *from.name ? from.name : from.email);
	value_object_set_string(c, "signature", cfg->signature ? cfg->signature
					       : *from.name ? from.name : from.email);
	value_object_set(c, "disclaimer", cfg->disclaimer ? value_new_string(cfg->disclaimer)
							  : value_new_null());
	list = value_object_set(c, "tree_urls", value_new_object());
	for (i = 0; i < cfg->nr_trees; i++)
		if (cfg->trees[i].url)
			value_object_set_string(list, cfg->trees[i].name, cfg->trees[i].url);
	/* in the order config_polarity() tries them: the peer takes the
	 * first match */
	list = value_object_set(c, "polarity", value_new_array());
	add_polarity(list, cfg->polarity, cfg->nr_polarity);
	if (cfg->polarity_builtin) {
		size_t nr;
		const struct config_polarity *builtin = config_polarity_builtin(&nr);

		add_polarity(list, builtin, nr);
	}

	date_format_rfc5322(&b, j->created, cfg->timezone);
	value_object_set_string(v, "date", b.data);
	buf_reset(&b);
	date_format_stamp(&b, j->created, cfg->timezone);
	value_object_set_string(v, "date_stamp", b.data);
	buf_reset(&b);
	value_object_set_string(v, "message_id", out->message_id);

	if (repo_lookup(env->repo, r->commit, &ci, err) < 0)
		goto done;
	value_object_set(v, "head", commit_facts(&ci));
	commit_info_release(&ci);
	list = value_object_set(v, "bases", value_new_array());
	for (i = 0; i < r->nr_tests; i++) {
		if (repo_lookup(env->repo, report_test_base(r, &r->tests[i]), &ci, err) < 0)
			goto done;
		value_array_push(list, commit_facts(&ci));
		commit_info_release(&ci);
	}
	value_object_set(v, "to", address_view(&out->rcpt.to));
	list = value_object_set(v, "cc", value_new_array());
	for (i = 0; i < out->rcpt.nr_cc; i++)
		value_array_push(list, address_view(&out->rcpt.cc[i]));

	value_write_json(&b, v, 1);
	buf_addc(&b, '\n');
	buf_addf(&path, "%s/%s.facts.json", dir, j->name);
	if (!(f = fopen(path.data, "w")) || fwrite(b.data, 1, b.len, f) != b.len || fclose(f)) {
		err_set(err, "%s: cannot write: %s", path.data, strerror(errno));
		goto done;
	}
	buf_reset(&path);
	buf_addf(&path, "%s/%s.eml", dir, j->name);
	if (!(f = fopen(path.data, "w")) || fwrite(out->mail.data, 1, out->mail.len, f) != out->mail.len ||
	    fclose(f)) {
		err_set(err, "%s: cannot write: %s", path.data, strerror(errno));
		goto done;
	}
	ret = 0;
done:
	address_release(&from);
	value_free(v);
	buf_release(&b);
	buf_release(&path);
	return ret;
}

/* Renders j once; -1 with a message. */
static int render_once(struct render_env *env, const struct job *j, struct rendered *out,
		       struct buf *err)
{
	struct render_request req;

	memset(&req, 0, sizeof(req));
	req.report = j->report;
	req.created = j->created;
	req.message_id = j->message_id;
	return render_report(env, &req, out, err);
}

static int run_job(struct render_env *env, struct job *j, long n, long warmup, long batches,
		   const char *dump_dir, struct buf *err)
{
	struct rendered out;
	long i, b, done = 0;

	for (i = 0; i < (warmup > 0 ? warmup : 1); i++) {
		int r = render_once(env, j, &out, err);

		if (r == 0 && i == 0 && dump_dir)
			r = dump_facts(dump_dir, env, j, &out, err);
		rendered_release(&out);
		if (r < 0)
			return -1;
	}
	j->seconds = 0;
	j->best = 0;
	j->cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
	for (b = 0; b < batches; b++) {
		long size = n * (b + 1) / batches - done;
		double t0 = now(), t;

		for (i = 0; i < size; i++) {
			int r = render_once(env, j, &out, err);

			rendered_release(&out);
			if (r < 0)
				return -1;
		}
		t = now() - t0;
		j->seconds += t;
		done += size;
		if (size && (!j->best || t / (double)size < j->best))
			j->best = t / (double)size;
	}
	j->cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - j->cpu;
	return 0;
}

static void print_rate(const char *what, long renders, double seconds, double best, double cpu)
{
	printf("  %-34s %6ld renders %7.3f s %7.1f µs/report %6.0f reports/s (best batch %.1f µs, cpu %.1f µs)\n",
	       what, renders, seconds, seconds / (double)renders * 1e6, (double)renders / seconds,
	       best * 1e6, cpu / (double)renders * 1e6);
}

static long parse_count(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || !*s || *end || v < 0) {
		fprintf(stderr, "bench-render: %s: '%s' is not a count\n%s", what, s, usage_text);
		exit(64);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *dump_dir = NULL, *config_path, *date = DEFAULT_DATE;
	char *message_id = NULL;
	struct buf err = BUF_INIT;
	struct config *cfg = NULL;
	struct render_env env;
	struct job *jobs = NULL;
	size_t nr_jobs = 0, i;
	long n, warmup = 10, batches = 10, total = 0;
	double seconds = 0, best = 0, cpu = 0;
	int a = 1, rc = 1;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--dump-facts") && a + 1 < argc)
			dump_dir = argv[++a];
		else if (!strcmp(argv[a], "--warmup") && a + 1 < argc)
			warmup = parse_count(argv[++a], "--warmup");
		else if (!strcmp(argv[a], "--batches") && a + 1 < argc)
			batches = parse_count(argv[++a], "--batches");
		else {
			fprintf(stderr, "bench-render: unknown option '%s'\n%s", argv[a], usage_text);
			return 64;
		}
	}
	if (argc - a < 3) {
		fputs(usage_text, stderr);
		return 64;
	}
	config_path = argv[a++];
	n = parse_count(argv[a++], "N");
	if (n < 1 || batches < 1) {
		fprintf(stderr, "bench-render: N and --batches must be at least 1\n");
		return 64;
	}
	if (batches > n)
		batches = n;
	if (config_load(config_path, &cfg, &err) < 0)
		goto fail;

	jobs = xcalloc((size_t)argc, sizeof(*jobs));
	for (; a < argc; a++) {
		struct job *j;

		if (!strcmp(argv[a], "--date") && a + 1 < argc) {
			date = argv[++a];
			continue;
		}
		if (!strcmp(argv[a], "--message-id") && a + 1 < argc) {
			free(message_id);
			message_id = strip_angles(argv[++a]);
			continue;
		}
		j = &jobs[nr_jobs++];
		j->path = argv[a];
		j->name = job_name(argv[a]);
		j->date = date;
		j->message_id = message_id;
		message_id = NULL;
		if (date_parse_local(date, cfg->timezone, &j->created, &err) < 0) {
			err_prefix(&err, "%s: --date: ", j->path);
			goto fail;
		}
		date = DEFAULT_DATE;
		if (report_load_file(j->path, &j->report, &err) < 0)
			goto fail;
	}
	if (!nr_jobs) {
		fputs(usage_text, stderr);
		rc = 64;
		goto done;
	}
	if (render_env_open(&env, cfg, &err) < 0)
		goto fail;

	printf("perfbot (in process, %s; repository and templates opened once; "
	       "%ld untimed renders first, then %ld batches):\n", config_path, warmup, batches);
	for (i = 0; i < nr_jobs; i++) {
		if (run_job(&env, &jobs[i], n, warmup, batches, dump_dir, &err) < 0) {
			render_env_close(&env);
			goto fail;
		}
		print_rate(jobs[i].name, n, jobs[i].seconds, jobs[i].best, jobs[i].cpu);
		fflush(stdout);
		total += n;
		seconds += jobs[i].seconds;
		best += jobs[i].best;
		cpu += jobs[i].cpu;
	}
	print_rate("all", total, seconds, best / (double)nr_jobs, cpu);
	for (i = 0; i < nr_jobs; i++)
		printf("result perfbot %s %ld %.9f %.3f %.9f\n", jobs[i].name, n, jobs[i].seconds,
		       jobs[i].best * 1e6, jobs[i].cpu);
	render_env_close(&env);
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "bench-render: %s\n", err.data);
done:
	for (i = 0; i < nr_jobs; i++) {
		report_free(jobs[i].report);
		free(jobs[i].name);
		free(jobs[i].message_id);
	}
	free(jobs);
	free(message_id);
	config_free(cfg);
	buf_release(&err);
	return rc;
}
