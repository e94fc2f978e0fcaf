/*
 * site.c: the static web site (site.h, perfbot-site(1)): gather the
 * state, render every page through templates/site, write the pages that
 * changed.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chart.h"
#include "cmd.h"
#include "date.h"
#include "digest.h"
#include "dir.h"
#include "fixes.h"
#include "hash.h"
#include "heap.h"
#include "html.h"
#include "json.h"
#include "maintainers.h"
#include "percent.h"
#include "repo.h"
#include "route.h"
#include "samples.h"
#include "site.h"
#include "thread.h"
#include "value.h"
#include "view.h"
#include "watch.h"
#include "xalloc.h"
#include "banned.h"

/* ---- gathering (the state, read only) ------------------------------- */

/* The body of a mail as sent: what follows its header block. */
static void keep_body(struct site_report *s, const char *mail, size_t len)
{
	const char *p = NULL;
	size_t i;

	for (i = 0; i + 1 < len && !p; i++)
		if (mail[i] == '\n' && mail[i + 1] == '\n')
			p = mail + i + 2;
	if (!p)
		return;
	s->body_len = (size_t)(mail + len - p);
	if (s->body_len > SITE_MAX_BODY)
		s->body_len = SITE_MAX_BODY;
	s->body = xmemdup(p, s->body_len);
}

/* n holds the len bytes at s. */
static int names_hasn(const struct state_names *n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (strlen(n->v[i]) == len && !memcmp(n->v[i], s, len))
			return 1;
	return 0;
}

static int names_have(const struct state_names *n, const char *name)
{
	return names_hasn(n, name, strlen(name));
}

static void names_add(struct state_names *n, const char *s, size_t len)
{
	if (names_hasn(n, s, len))
		return;
	ALLOC_GROW(n->v, n->nr + 1, n->alloc);
	n->v[n->nr++] = xstrndup(s, len);
}

/* addr (ASCII case ignored) is a line of lines. */
static int has_line(const char *lines, const char *addr)
{
	size_t n = strlen(addr);

	while (lines && *lines) {
		size_t len = strcspn(lines, "\n");

		if (len == n && !strncasecmp(lines, addr, n))
			return 1;
		lines += len + (lines[len] == '\n');
	}
	return 0;
}

/* The sections s's head commit touches and their lists it went to. */
static void gather_route(struct route *route, struct site_report *s, const char *head)
{
	struct route_result res;
	size_t i;

	if (!route || !head || route_commit(route, head, &res, NULL) < 0 || !res.on) {
		if (route)
			route_result_release(&res);
		return;
	}
	for (i = 0; i < res.sel.nr_hits; i++)
		if (!res.sel.hits[i].section->is_rest)
			names_add(&s->subsystems, res.sel.hits[i].section->name,
				  strlen(res.sel.hits[i].section->name));
	for (i = 0; i < res.sel.nr_entries; i++) {
		const struct maintainers_entry *e = &res.sel.entries[i];

		if (e->kind == MAINTAINERS_LIST &&
		    (has_line(s->r->to_addrs, e->address) || has_line(s->r->cc_addrs, e->address)))
			names_add(&s->lists, e->address, strlen(e->address));
	}
	route_result_release(&res);
}

/* The report's own: its thread, job, mail and routing (not for a report
 * whose page is kept; its samples are read as its page is made). */
static int gather_details(struct state *st, struct route *route, struct site_report *s,
			  struct buf *err)
{
	const struct state_report *r = s->r;
	struct buf mail = BUF_INIT;
	int e;

	if (state_message_list(st, r->id, &s->msgs, err) < 0)
		return -1;
	if ((e = state_job_get(st, r->id, &s->job, err)) < 0)
		return -1;
	s->has_job = e;
	if ((e = state_report_mail(st, r->id, &mail, err)) < 0)
		return -1;
	keep_body(s, mail.data, mail.len);
	buf_release(&mail);
	gather_route(route, s, s->t && s->t->head ? s->t->head : s->has_job ? s->job.head : NULL);
	return 0;
}

/* "report/N.html" (a path every run makes 10,000 of: no printf). */
static void add_report_path(struct buf *b, int64_t id)
{
	buf_adds(b, "report/");
	buf_add_int(b, id, 0);
	buf_adds(b, ".html");
}

/* ---- the manifest and the fingerprints ------------------------------ */

static void manifest_read(const char *dir, struct site_manifest *m)
{
	struct buf path = BUF_INIT;
	char *p;

	memset(m, 0, sizeof(*m));
	buf_init(&m->text);
	buf_addf(&path, "%s/%s", dir, SITE_MANIFEST);
	/* a manifest that cannot be read only costs a full run */
	if (buf_read_file(&m->text, path.data, 256u << 20, NULL) < 0)
		buf_reset(&m->text);
	buf_release(&path);
	/* the entries' fields point into a copy, each ended by a NUL where
	 * its tab or newline was: one allocation, not four a page */
	m->fields = xmemdup(m->text.data, m->text.len + 1);
	for (p = m->fields; *p;) {
		size_t n = strcspn(p, "\n"), h = strspn(p, "0123456789abcdef");
		char *q = p, *end = p + n, *next = p + n + (p[n] == '\n');
		unsigned long long size = 0;

		*end = '\0';
		/* "SIZE PATH[\tFP\tSUBSYSTEMS\tLISTS]" (an older perfbot's
		 * line began with the page's SHA-256: skipped); a line not so
		 * is skipped (its page is then written again) */
		if (h == 64 && p[h] == ' ')
			q = p + h + 1;
		if (*q >= '0' && *q <= '9') {
			while (*q >= '0' && *q <= '9' && size < (1ull << 40))
				size = size * 10 + (unsigned long long)(*q++ - '0');
			if (*q == ' ' && q + 1 < end) {
				struct site_manifest_entry *e;
				char **field[4];
				char *at = q + 1;
				size_t k;

				ALLOC_GROW(m->v, m->nr + 1, m->alloc);
				e = &m->v[m->nr++];
				memset(e, 0, sizeof(*e));
				e->size = size;
				field[0] = &e->path;
				field[1] = &e->fp;
				field[2] = &e->subsystems;
				field[3] = &e->lists;
				for (k = 0; k < 4; k++) {
					char *t = k < 3 ? strchr(at, '\t') : NULL;

					*field[k] = at;
					if (t) {
						*t = '\0';
						at = t + 1;
					} else {
						at = end;	/* "" from here on */
					}
				}
			}
		}
		p = next;
	}
}

static void manifest_release(struct site_manifest *m)
{
	free(m->v);
	free(m->fields);
	buf_release(&m->text);
	memset(m, 0, sizeof(*m));
}

/* The entry of path; the pages come in the manifest's order, so the
 * search starts after the last one found (*hint). */
static struct site_manifest_entry *manifest_find(const struct site_manifest *m, const char *path,
						 size_t *hint)
{
	size_t k;

	for (k = 0; k < m->nr; k++) {
		size_t at = (*hint + k) % m->nr;

		if (!strcmp(m->v[at].path, path)) {
			*hint = at + 1;
			return &m->v[at];
		}
	}
	return NULL;
}

/* Every regular file of dir, names sorted, into h's text (for the salt). */
static void salt_folder(struct buf *h, const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort), i;

	for (i = 0; i < n; i++) {
		struct buf path = BUF_INIT;

		buf_addf(&path, "%s/%s", dir, names[i]->d_name);
		buf_addf(h, "\n%s\n", names[i]->d_name);
		if (names[i]->d_name[0] != '.')
			buf_read_file(h, path.data, TEMPLATE_MAX_SIZE, NULL);
		buf_release(&path);
		free(names[i]);
	}
	free(names);
}

/* What every page depends on besides its report: perfbot, the
 * configuration, the templates, the day (a row's age). */
static void site_salt(const struct config *cfg, int64_t now, struct buf *out)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_addf(&b, "perfbot %s\n%lld\n", PERFBOT_VERSION,
		 (long long)date_day_number(now, cfg->timezone));
	if (cfg->path)
		buf_read_file(&b, cfg->path, 16u << 20, NULL);
	for (i = 0; i < cfg->templates.nr; i++) {
		struct buf d = BUF_INIT;

		buf_addf(&d, "%s/site", cfg->templates.v[i]);
		salt_folder(&b, d.data);
		buf_release(&d);
	}
	{
		struct buf d = BUF_INIT;

		buf_addf(&d, "%s/site", cfg->shipped_templates);
		salt_folder(&b, d.data);
		buf_release(&d);
	}
	/* its hash: each report's fingerprint hashes 64 bytes of it, not
	 * the templates again */
	{
		unsigned char d[HASH_SHA256_RAWSZ];

		if (hash_sha256(b.data, b.len, d, NULL) == 0)
			hash_hex(out, d, sizeof(d));
		else
			buf_add(out, b.data, b.len);
	}
	buf_release(&b);
}

/* s->fp: SHA-256 of the salt, its status object and what the object does
 * not say of its page (activity, the fix's and possible fixes' dates). */
static int fingerprint(struct site_report *s, const struct buf *salt, struct buf *err)
{
	struct buf b = BUF_INIT, hex = BUF_INIT;
	unsigned char d[HASH_SHA256_RAWSZ];
	size_t i;
	int ret;

	buf_add(&b, salt->data, salt->len);
	buf_add(&b, s->json, s->json_len);
	if (s->t) {
		/* "\n%lld %d %lld %lld %lld %d", then " %lld %lld" a possible fix */
		const long long f[] = { s->t->last_activity, s->t->has_fix, s->t->fix.recorded,
					s->t->fix.date, s->t->created, (int)s->t->verdict };

		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			buf_addc(&b, i ? ' ' : '\n');
			buf_add_int(&b, f[i], 0);
		}
		for (i = 0; i < s->t->nr_possible; i++) {
			buf_addc(&b, ' ');
			buf_add_int(&b, s->t->possible[i].date, 0);
			buf_addc(&b, ' ');
			buf_add_int(&b, s->t->possible[i].recorded, 0);
		}
	}
	ret = hash_sha256(b.data, b.len, d, err);
	if (!ret) {
		hash_hex(&hex, d, sizeof(d));
		memcpy(s->fp, hex.data, 64);
		s->fp[64] = '\0';
	}
	buf_release(&b);
	buf_release(&hex);
	return ret;
}

/* names as report_extra() wrote them, percent-encoded and joined by ','. */
static void names_split(struct state_names *n, const char *s)
{
	struct buf b = BUF_INIT;

	while (s && *s) {
		size_t len = strcspn(s, ",");

		buf_reset(&b);
		if (len && percent_decode(s, len, 1, &b) == 0 && b.len == strlen(b.data))
			names_add(n, b.data, b.len);
		s += len + (s[len] == ',');
	}
	buf_release(&b);
}

/* status.reports and in->v are in id order: a look-up is a bisection. */
static const struct state_report *report_by_id(const struct status *st, int64_t id)
{
	size_t lo = 0, hi = st->reports.nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->reports.v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->reports.nr && st->reports.v[lo].id == id ? &st->reports.v[lo] : NULL;
}

static struct site_report *site_of(struct site_input *in, int64_t id)
{
	size_t lo = 0, hi = in->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->v[mid].r->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < in->nr && in->v[lo].r->id == id ? &in->v[lo] : NULL;
}

/* Each report's commands (of its thread) and requests, and when its
 * state last changed: its newest applied command, or its fix's
 * recording.  One pass over each list. */
static void gather_links(struct site_input *in)
{
	size_t i;

	for (i = 0; i < in->status.commands.nr; i++) {
		const struct state_command *c = &in->status.commands.v[i];
		const struct state_report *r = report_by_id(&in->status, c->report_id);
		struct site_report *s = r ? site_of(in, r->thread_id) : NULL;

		if (!s)
			continue;
		s->commands = xrealloc(s->commands, (s->nr_commands + 1) * sizeof(*s->commands));
		s->commands[s->nr_commands++] = i;
		if (c->applied && c->date > s->changed)
			s->changed = c->date;
	}
	for (i = 0; i < in->status.requests.nr; i++) {
		struct site_report *s = site_of(in, in->status.requests.v[i].report_id);

		if (!s)
			continue;
		s->requests = xrealloc(s->requests, (s->nr_requests + 1) * sizeof(*s->requests));
		s->requests[s->nr_requests++] = i;
	}
	for (i = 0; i < in->status.reports.nr; i++) {
		const struct state_report *r = &in->status.reports.v[i];
		struct site_report *s;

		/* reports.json shows the sent follow-ups of published reports */
		if (r->kind != STATE_KIND_FOLLOWUP || !r->sent || !(s = site_of(in, r->thread_id)))
			continue;
		s->followups = xrealloc(s->followups, (s->nr_followups + 1) * sizeof(*s->followups));
		s->followups[s->nr_followups++] = i;
	}
	for (i = 0; i < in->nr; i++) {
		struct site_report *s = &in->v[i];

		if (s->t && s->t->has_fix && s->t->fix.recorded > s->changed)
			s->changed = s->t->fix.recorded;
	}
}

/* Whether every report the cache has and the state did not change since
 * has its page in the manifest (a page the run keeps as it is). */
static int cache_pages_listed(const struct site_input *in)
{
	struct buf path = BUF_INIT;
	size_t i, c = 0, hint = 0;
	int ok = 1;

	for (i = 0; i < in->cache.nr && ok; i++) {
		int64_t id = in->cache.v[i].id;

		while (c < in->changes.nr && in->changes.ids[c] < id)
			c++;
		if (c < in->changes.nr && in->changes.ids[c] == id)
			continue;
		buf_reset(&path);
		add_report_path(&path, id);
		ok = manifest_find(&in->manifest, path.data, &hint) != NULL;
	}
	buf_release(&path);
	return ok;
}

void site_default_dir(const struct config *cfg, struct buf *out)
{
	if (cfg->site_dir)
		buf_adds(out, cfg->site_dir);
	else
		buf_addf(out, "%s/site", cfg->state);
}

/* Whether dir is the configured site folder. */
static int is_site_dir(const struct config *cfg, const char *dir)
{
	struct buf conf = BUF_INIT;
	char *a = realpath(dir, NULL), *b;
	int same;

	site_default_dir(cfg, &conf);
	b = realpath(conf.data, NULL);
	same = a && b && !strcmp(a, b);
	free(a);
	free(b);
	buf_release(&conf);
	return same;
}

/* The cache read by a thread of its own while the state is opened (it is
 * most of a run after one reply; each is a few milliseconds). */
struct cache_reader {
	const struct site_input *in;
	struct site_cache *k;
	pthread_t thread;
	int started, ok;
};

static void *cache_read_work(void *arg)
{
	struct cache_reader *r = arg;

	/* the cache's pieces: 10,000 of them */
	heap_for_big_pages_thread();
	r->ok = site_cache_read(r->in->cfg->state, r->in->dir, r->k);
	return NULL;
}

/* Starts the read of the cache for a run that uses it (not --full, nor
 * a run into another folder than the configured one). */
static void cache_read_start(struct cache_reader *r, struct site_input *in)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->k = &in->cache;
	if (!in->full && in->cacheable)
		r->started = pthread_create(&r->thread, NULL, cache_read_work, r) == 0 ? 1 : -1;
}

/* 1 when the cache was read, whole. */
static int cache_read_finish(struct cache_reader *r)
{
	if (r->started > 0)
		pthread_join(r->thread, NULL);
	else if (r->started < 0)
		cache_read_work(r);
	r->started = 0;
	return r->ok;
}

int site_gather(const struct config *cfg, int64_t now, const char *dir, int full,
		struct site_input *in, struct buf *err)
{
	struct state_changes now_seq = { 0 };
	struct cache_reader reader;
	size_t i;
	int ret;

	memset(in, 0, sizeof(*in));
	in->cfg = cfg;
	in->now = now;
	in->dir = dir;
	in->full = full;
	buf_init(&in->salt);
	/* the cache serves the configured folder only, which a run with
	 * --out elsewhere leaves alone */
	in->cacheable = is_site_dir(cfg, dir);
	cache_read_start(&reader, in);
	manifest_read(dir, &in->manifest);
	site_salt(cfg, now, &in->salt);
	if (!state_exists(cfg->state)) {
		cache_read_finish(&reader);
		return status_gather(cfg, now, &in->status, err);
	}
	/* the state's seq first, in the read transaction every report's
	 * details are read in: what the run shows is at least that new (a
	 * change after it is looked at again by the next run) */
	if (state_open(cfg->state, &in->st, err) < 0 || state_begin_read(in->st, err) < 0 ||
	    state_changes_since(in->st, INT64_MAX, &now_seq, err) < 0) {
		cache_read_finish(&reader);
		return -1;
	}
	in->seq = now_seq.seq;
	state_changes_release(&now_seq);
	/* the last run's pieces serve when they were made with this salt, at
	 * a seq this state has, and their pages are listed: then only the
	 * reports changed since are gathered (many changed: all of them,
	 * which costs less than a query a report) */
	if (cache_read_finish(&reader) && in->cache.seq > 0 &&
	    !strcmp(in->cache.salt, in->salt.data)) {
		/* a cache seq above the state's newest (a state restored from
		 * a backup) comes back as every report */
		if (state_changes_since(in->st, in->cache.seq, &in->changes, err) < 0)
			return -1;
		in->partial = !in->changes.all && in->changes.nr <= in->cache.nr / 8 + 16 &&
			      cache_pages_listed(in);
	}
	if (in->partial)
		ret = status_gather_threads(cfg, now, in->st, in->changes.ids, in->changes.nr,
					    &in->status, err);
	else
		ret = status_gather_snapshot(cfg, now, in->st, in->seq, &in->status, err);
	if (ret < 0)
		return -1;
	/* room for every report at once, not a realloc() a report */
	in->v = xcalloc(in->status.reports.nr + 1, sizeof(*in->v));
	for (i = 0; i < in->status.reports.nr; i++) {
		const struct state_report *r = &in->status.reports.v[i];
		struct site_report *s;

		if (r->kind != STATE_KIND_REPORT || !r->sent || r->mark == STATE_MARK_DROPPED)
			continue;
		s = &in->v[in->nr++];
		s->r = r;
		s->t = status_tracked_of(&in->status, r->id);
	}
	gather_links(in);
	return 0;
}

/* s->json (its status --json object) and s->fp; s->cached when its page
 * is as the manifest has it (same fingerprint, its file of that size).
 * Pure but for a stat(); run by the threads of render_reports(). */
static int report_prepare(const struct site_input *in, struct site_report *s, size_t hint,
			  struct buf *err)
{
	const struct site_manifest_entry *e;
	struct value *o = status_report_json(&in->status, s->r);
	struct buf b = BUF_INIT;
	struct stat sb;

	value_write_json(&b, o, 0);
	value_free(o);
	s->json = buf_detach(&b, &s->json_len);
	if (fingerprint(s, &in->salt, err) < 0)
		return -1;
	if (in->full)
		return 0;
	add_report_path(&b, s->r->id);
	e = manifest_find(&in->manifest, b.data, &hint);
	buf_reset(&b);
	if (e && !strcmp(e->fp, s->fp)) {
		buf_adds(&b, in->dir);
		buf_addc(&b, '/');
		add_report_path(&b, s->r->id);
		if (stat(b.data, &sb) == 0 && (unsigned long long)sb.st_size == e->size) {
			s->cached = 1;
			names_split(&s->subsystems, e->subsystems);
			names_split(&s->lists, e->lists);
		}
	}
	buf_release(&b);
	return 0;
}

/* Routing as send did it, with send's cache of MAINTAINERS parses: set up
 * at the first report whose page is made.  Under the state's lock. */
static void route_open(struct site_input *in)
{
	struct buf cache = BUF_INIT;

	if (in->route_tried)
		return;
	in->route_tried = 1;
	if (in->cfg->route_file && repo_open(in->cfg->repo, &in->repo, NULL) == 0) {
		buf_addf(&cache, "%s/cache", in->cfg->state);
		in->route = route_new(in->cfg, in->repo, cache.data);
	}
	buf_release(&cache);
}

/* What only s's page shows (gather_details()'s but its names): released
 * once the page is made, so that 10,000 threads, jobs and mails are not
 * all held at once. */
static void details_release(struct site_report *s)
{
	state_messages_release(&s->msgs);
	if (s->has_job)
		state_job_release(&s->job);
	s->has_job = 0;
	free(s->body);
	s->body = NULL;
}

/* The reports' own and the status they point into (in->nr stays: -v
 * tells it). */
static void reports_release(struct site_input *in)
{
	size_t i;

	for (i = 0; in->v && i < in->nr; i++) {
		details_release(&in->v[i]);
		state_names_release(&in->v[i].subsystems);
		state_names_release(&in->v[i].lists);
		free(in->v[i].commands);
		free(in->v[i].requests);
		free(in->v[i].followups);
		free(in->v[i].json);
	}
	free(in->v);
	in->v = NULL;
	status_release(&in->status);
	memset(&in->status, 0, sizeof(in->status));
}

static void *release_early(void *arg)
{
	struct site_input *in = arg;
	size_t i;

	reports_release(in);
	/* a piece the cache is written from keeps its record (or, in a run
	 * that writes no cache, nothing) */
	for (i = 0; i < in->nr_pieces; i++)
		if (in->pieces[i].record || !in->cacheable)
			site_piece_release_texts(&in->pieces[i]);
	return NULL;
}

void site_input_release_early(struct site_input *in)
{
	if (!in->releasing)
		in->releasing = pthread_create(&in->releaser, NULL, release_early, in) == 0;
}

void site_input_release(struct site_input *in)
{
	size_t i;

	if (in->releasing)
		pthread_join(in->releaser, NULL);
	reports_release(in);
	for (i = 0; i < in->nr_pieces; i++)
		site_piece_release(&in->pieces[i]);
	free(in->pieces);
	site_cache_release(&in->cache);
	state_changes_release(&in->changes);
	manifest_release(&in->manifest);
	buf_release(&in->salt);
	route_free(in->route);
	repo_free(in->repo);
	if (in->st)
		state_rollback(in->st);	/* it read only */
	state_close(in->st);
	memset(in, 0, sizeof(*in));
}

void site_pages_release(struct site_pages *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		free(p->v[i].path);
		free(p->v[i].data);
		free(p->v[i].parts);
		free(p->v[i].extra);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* ---- names ---------------------------------------------------------- */

void site_file_name(struct buf *out, const char *name)
{
	size_t i, n = strlen(name), start = out->len;
	int ok = n > 0 && n <= 64, dash = 0;
	uint32_t h = 2166136261u;	/* FNV-1a, 32 bits */

	for (i = 0; i < n && ok; i++) {
		char c = name[i];

		ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		     (i > 0 && (c == '.' || c == '_' || c == '-'));
	}
	if (ok) {
		buf_adds(out, name);
		return;
	}
	for (i = 0; i < n; i++) {
		char c = name[i];

		h ^= (unsigned char)c;
		h *= 16777619u;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (out->len - start >= 40)
				continue;
			if (dash && out->len > start)
				buf_addc(out, '-');
			buf_addc(out, c);
			dash = 0;
		} else {
			dash = 1;
		}
	}
	buf_addf(out, "%s%08x", out->len > start ? "-" : "h-", (unsigned)h);
}

/* A tree's family ("linus" of "linus/master"): what its page is for. */
static void tree_family(struct buf *out, const char *tree)
{
	const char *slash = tree ? strchr(tree, '/') : NULL;

	if (!tree || !*tree)
		buf_adds(out, "unknown");
	else
		buf_add(out, tree, slash ? (size_t)(slash - tree) : strlen(tree));
}

/* ---- views ---------------------------------------------------------- */

struct render_ctx {
	const struct site_input *in;
	struct template_set *set;
	struct site_pages *out;
	struct buf *err;
	struct site_writer *writer;	/* puts each page as it is made
					   (site_render()'s w) */
	struct entry *entries;		/* every feed entry, newest first */
	size_t nr_entries;
	/* a partial run's (merge_cached()): the trees, subsystems and lists
	 * of the pieces made again or gone, as they were and as they are;
	 * touched: any such piece.  A list page of none of them shows what
	 * it showed. */
	int touched;
	struct state_names touched_names[3];	/* trees, subsystems, lists */
	/* and one of those pieces has other lines in reports.json, or another
	 * row in the index, than it had (or none then, or none now): the
	 * page's file cannot hold its new bytes (lists_differ()) */
	int json_differs, index_differs;
};

static void add_day(struct value *v, const char *key, int64_t t, int zone)
{
	struct date_civil c;
	struct buf b = BUF_INIT;

	if (!t) {
		value_object_add_bool(v, key, 0);
		return;
	}
	date_to_civil(t, zone, &c);
	if (c.year >= 0 && c.year <= 9999) {
		/* without vsnprintf: a day is in every row of every list */
		char d[] = "0000-00-00";

		d[0] = (char)('0' + c.year / 1000);
		d[1] = (char)('0' + c.year / 100 % 10);
		d[2] = (char)('0' + c.year / 10 % 10);
		d[3] = (char)('0' + c.year % 10);
		d[5] = (char)('0' + c.month / 10);
		d[6] = (char)('0' + c.month % 10);
		d[8] = (char)('0' + c.day / 10);
		d[9] = (char)('0' + c.day % 10);
		buf_add(&b, d, 10);
	} else {
		buf_add_int(&b, c.year, 4);
		buf_addc(&b, '-');
		buf_add_int(&b, c.month, 2);
		buf_addc(&b, '-');
		buf_add_int(&b, c.day, 2);
	}
	value_object_add(v, key, value_new_string_owned(buf_detach(&b, NULL), 10));
}

static void add_time(struct value *v, const char *key, int64_t t)
{
	struct buf b = BUF_INIT;
	size_t n;
	char *s;

	date_format_rfc3339_utc(&b, t);
	s = buf_detach(&b, &n);
	value_object_add(v, key, value_new_string_owned(s, n));
}

static void add_count(struct value *v, const char *key, int64_t n, const char *one,
		      const char *many)
{
	struct buf b = BUF_INIT;
	size_t len;
	char *s;

	buf_add_int(&b, n, 0);
	buf_addc(&b, ' ');
	buf_adds(&b, n == 1 ? one : many);
	s = buf_detach(&b, &len);
	value_object_add(v, key, value_new_string_owned(s, len));
}

/* site.archiveUrl followed by the Message-ID, percent-encoded, or false. */
static void add_archive_link(struct value *v, const struct config *cfg, const char *message_id)
{
	struct buf b = BUF_INIT;
	size_t n;
	char *s;

	/* "." and ".." stay dot-segments however encoded (html.h) */
	if (!cfg->site_archive_url || !strcmp(message_id, ".") || !strcmp(message_id, "..")) {
		value_object_add_bool(v, "link", 0);
		return;
	}
	buf_adds(&b, cfg->site_archive_url);
	html_url_component(&b, message_id, strlen(message_id));
	s = buf_detach(&b, &n);
	value_object_add(v, "link", value_new_string_owned(s, n));
}

/* The view every page has: its way back to the top, the lab's name. */
static struct value *page_view(const struct site_input *in, const char *root, const char *path)
{
	struct value *v = value_new_object();
	struct buf b = BUF_INIT;

	value_object_add_string(v, "root", root);
	value_object_add_string(v, "path", path);
	view_add_lab(v, in->cfg);
	if (in->cfg->site_url) {
		buf_addf(&b, "%s%s", in->cfg->site_url, path);
		value_object_add_string(v, "url", b.data);
	} else {
		value_object_add_bool(v, "url", 0);
	}
	buf_release(&b);
	return v;
}

/* Its tree and head commit: state_report_list() leaves them to
 * state_tracked_list(). */
static const char *tree_of(const struct site_report *s)
{
	/* not the job's: the lists show a report whose page is kept, and
	 * its job is not read then */
	if (s->t && s->t->tree)
		return s->t->tree;
	return s->r->tree;
}

static const char *head_of(const struct site_report *s)
{
	if (s->t && s->t->head)
		return s->t->head;
	if (s->has_job)
		return s->job.head;
	return s->r->head;
}

static int64_t last_activity(const struct site_report *s)
{
	int64_t t = s->t && s->t->last_activity ? s->t->last_activity : s->r->sent;

	return s->changed > t ? s->changed : t;
}

/* The newest of s's posted fixes that no later version supersedes, or
 * NULL (state.h: oldest first). */
static const struct state_posted_fix *posted_newest(const struct site_report *s)
{
	size_t i;

	for (i = s->t ? s->t->nr_posted : 0; i > 0; i--)
		if (s->t->posted[i - 1].latest)
			return &s->t->posted[i - 1];
	return NULL;
}

/* A posted fix: "vN", who, when, its evidence and its mail in the
 * archive (link, or false). */
static struct value *posted_view(const struct config *cfg, const struct state_posted_fix *p)
{
	struct value *v = value_new_object();
	struct buf b = BUF_INIT;

	value_object_add_string(v, "subject", p->subject);
	buf_addf(&b, "v%u", p->version);
	value_object_add_string(v, "version", b.data);
	buf_reset(&b);
	if (*p->author_name)
		buf_addf(&b, "%s <%s>", p->author_name, p->author_email);
	else
		buf_adds(&b, p->author_email);
	value_object_add_string(v, "author", b.data);
	add_time(v, "date", p->date);
	value_object_add_string(v, "evidence", fix_kind_name(p->kind));
	value_object_add_string(v, "message_id", p->message_id);
	value_object_add_bool(v, "superseded", !p->latest);
	add_archive_link(v, cfg, p->message_id);
	buf_release(&b);
	return v;
}

/* A test request's outcome as a list shows it: its verdict once
 * answered, else its state. */
static const char *request_outcome(const struct state_request *q)
{
	return q->verdict ? q->verdict : state_request_state_name(q->state);
}

/* A report's row in a list (index.html, the group pages). */
static struct value *row_view(const struct site_input *in, const struct site_report *s,
			      const char *root)
{
	struct value *v = value_new_object();
	struct buf b = BUF_INIT;
	/* in calendar days, which change when the salt's day does: a row is
	 * kept from the cache only on the day it was made (24-hour periods
	 * would turn at another hour for each report, and a kept row would
	 * say a day less than a --full run's) */
	int64_t age = date_day_number(in->now, in->cfg->timezone) -
		      date_day_number(s->r->created, in->cfg->timezone);
	const struct state_posted_fix *posted;
	struct value *tests;
	size_t nr_requests, i;

	value_object_add(v, "id", value_new_integer(s->r->id));
	buf_adds(&b, root);
	add_report_path(&b, s->r->id);
	value_object_add_string(v, "page", b.data);
	value_object_add_string(v, "subject", s->r->subject);
	value_object_add_string(v, "tree", tree_of(s) ? tree_of(s) : "");
	value_object_add_string(v, "state", state_verdict_name(s->r->verdict));
	value_object_add_bool(v, "open", s->r->verdict == STATE_VERDICT_OPEN);
	add_count(v, "age", age > 0 ? age : 0, "day", "days");
	add_day(v, "created", s->r->created, in->cfg->timezone);
	value_object_add(v, "nr_replies", value_new_integer((int64_t)s->r->replies));
	add_day(v, "last_activity", last_activity(s), in->cfg->timezone);
	buf_reset(&b);
	if (s->t && s->t->has_fix)
		buf_addf(&b, "%.12s", s->t->fix.commit);
	value_object_add(v, "fix", b.len ? value_new_string(b.data) : value_new_bool(0));
	value_object_add(v, "nr_possible_fixes",
			 value_new_integer(s->t ? (int64_t)s->t->nr_possible : 0));
	value_object_add_bool(v, "has_possible_fixes", s->t && s->t->nr_possible);
	posted = posted_newest(s);
	value_object_add(v, "posted", posted ? posted_view(in->cfg, posted) : value_new_bool(0));
	nr_requests = s->nr_requests;
	value_object_add(v, "nr_requests", value_new_integer((int64_t)nr_requests));
	value_object_add_bool(v, "has_requests", nr_requests > 0);
	tests = value_object_add(v, "tests", value_new_array());
	for (i = 0; i < nr_requests; i++) {
		const struct state_request *q = &in->status.requests.v[s->requests[i]];
		struct value *o = value_array_push(tests, value_new_object());

		value_object_add(o, "number", value_new_integer(q->id));
		value_object_add_string(o, "outcome", request_outcome(q));
	}
	buf_release(&b);
	return v;
}

/* The facts: the commits, and each test's machine and parameters, from
 * the job kept when the report was made (perfbot-json(5)). */
static struct value *facts_view(const struct site_report *s)
{
	struct value *v = value_new_object(), *tests, *parsed = NULL;
	size_t i, j;

	value_object_add_string(v, "head", head_of(s) ? head_of(s) : "");
	value_object_add_string(v, "base", s->has_job ? s->job.base : "");
	value_object_add_bool(v, "has_base", s->has_job);
	value_object_add_string(v, "tree", tree_of(s) ? tree_of(s) : "");
	tests = value_object_add(v, "tests", value_new_array());
	if (s->has_job && json_parse(s->job.tests, strlen(s->job.tests), "job", &parsed, NULL) == 0 &&
	    parsed->kind == VALUE_ARRAY) {
		static const char *const keys[] = { "testcase", "headline", "tbox_group", "machine",
						     "kconfig", "compiler", "rootfs" };

		for (i = 0; i < parsed->nr; i++) {
			const struct value *t = parsed->items[i], *params;
			struct value *o = value_array_push(tests, value_new_object()), *list;

			for (j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
				const struct value *x = value_object_get(t, keys[j]);

				value_object_add_string(o, keys[j], x && x->kind == VALUE_STRING ?
							x->str : "");
			}
			list = value_object_add(o, "params", value_new_array());
			params = value_object_get(t, "params");
			for (j = 0; params && params->kind == VALUE_OBJECT && j < params->nr; j++) {
				struct value *p = value_array_push(list, value_new_object());
				struct buf b = BUF_INIT;

				value_object_add_string(p, "key", params->keys[j]);
				value_format(&b, params->items[j]);
				value_object_add_string(p, "value", b.data);
				buf_release(&b);
			}
		}
	}
	value_free(parsed);
	return v;
}

static struct value *thread_view(const struct site_input *in, const struct site_report *s)
{
	struct value *list = value_new_array();
	struct thread_entry *t = NULL;
	size_t n = 0, i;

	if (thread_order(&s->msgs, s->r->message_id, &t, &n) < 0)
		return list;
	for (i = 0; i < n; i++) {
		const struct state_message *m = t[i].m;
		struct value *o = value_array_push(list, value_new_object());
		struct buf b = BUF_INIT;

		value_object_add_string(o, "message_id", m->message_id);
		value_object_add(o, "depth", value_new_integer(t[i].depth));
		/* the indent as a class name (depth-0 .. depth-9): a number
		 * in a style attribute would need a second escaper */
		buf_adds(&b, "depth-");
		buf_addc(&b, (char)('0' + (t[i].depth > 9 ? 9 : t[i].depth)));
		value_object_add_string(o, "indent", b.data);
		buf_release(&b);
		if (m->date)
			add_time(o, "date", m->date);
		else
			value_object_add_bool(o, "date", 0);
		value_object_add_string(o, "author", *m->from_name ? m->from_name : m->from_email);
		value_object_add_string(o, "subject", m->subject ? m->subject : "");
		value_object_add_bool(o, "unsent", m->unsent);
		add_archive_link(o, in->cfg, m->message_id);
	}
	free(t);
	return list;
}

static struct value *commands_view(const struct site_input *in, const struct site_report *s)
{
	struct value *list = value_new_array();
	size_t i;

	for (i = 0; i < s->nr_commands; i++) {
		const struct state_command *c = &in->status.commands.v[s->commands[i]];
		struct value *o = value_array_push(list, value_new_object());

		if (c->date)
			add_time(o, "date", c->date);
		else
			value_object_add_bool(o, "date", 0);
		value_object_add_string(o, "name", c->name);
		value_object_add_string(o, "args", c->args);
		value_object_add_string(o, "author", c->author);
		value_object_add_bool(o, "by_mail", c->message_id != NULL);
		value_object_add_bool(o, "applied", c->applied);
		value_object_add_string(o, "why", c->why ? c->why : "");
	}
	return list;
}

static struct value *requests_view(const struct site_input *in, const struct site_report *s)
{
	struct value *list = value_new_array();
	size_t i;

	for (i = 0; i < s->nr_requests; i++) {
		const struct state_request *q = &in->status.requests.v[s->requests[i]];
		struct value *o = value_array_push(list, digest_request(q));

		add_time(o, "requested", q->requested);
		if (q->verdict)
			value_object_add_string(o, "verdict", q->verdict);
		else
			value_object_add_bool(o, "verdict", 0);
		value_object_add_string(o, "outcome", request_outcome(q));
		if (q->result_message_id) {
			struct value *r = value_object_add(o, "result", value_new_object());

			add_archive_link(r, in->cfg, q->result_message_id);
			value_object_add_string(r, "message_id", q->result_message_id);
			add_count(r, "count", q->results, "result", "results");
		} else {
			value_object_add_bool(o, "result", 0);
		}
	}
	return list;
}

static struct value *fix_view(const struct config *cfg, const struct state_tracked *t)
{
	struct value *v, *posted = NULL;
	const char *p;
	size_t i;

	if (!t || !t->has_fix)
		return value_new_bool(0);
	v = digest_fix_commit(cfg, t->fix.commit, t->fix.subject, t->fix.ref);
	value_object_add_string(v, "evidence", fix_kind_name(t->fix.kind));
	if (t->fix.date)
		add_time(v, "date", t->fix.date);
	else
		value_object_add_bool(v, "date", 0);
	add_time(v, "recorded", t->fix.recorded);
	value_object_add_bool(v, "reopened", t->fix.reopened);
	/* the patch the landed commit was posted as (state_fix_set()) */
	for (i = 0; t->fix.posted && i < t->nr_posted && !posted; i++)
		if (!strcmp(t->posted[i].message_id, t->fix.posted))
			posted = posted_view(cfg, &t->posted[i]);
	value_object_add(v, "posted", posted ? posted : value_new_bool(0));
	p = t->fix.landed;
	{
		struct value *landed = value_object_add(v, "landed", value_new_array());

		while (p && *p) {
			size_t n = strcspn(p, "\n");

			if (n)
				value_array_push(landed, value_new_stringn(p, n));
			p += n + (p[n] == '\n');
		}
	}
	return v;
}

/* The charts: one per metric with samples (samples.h), base and head as
 * their short ids, at most site.maxSamples dots a side.  A metric whose
 * numbers chart_svg() refuses gets no chart (the file is perfbot's own,
 * so that is a damaged file, not an input to report). */
static struct value *charts_view(const struct site_input *in, const struct site_report *s)
{
	struct value *list = value_new_array();
	struct samples samples;
	struct buf base = BUF_INIT, head = BUF_INIT, svg = BUF_INIT;
	size_t i, k;

	/* a samples file that cannot be read costs the charts, not the page */
	if (samples_read(in->cfg->state, s->r->id, &samples, NULL) < 0)
		samples_release(&samples);
	buf_addf(&base, "%.10s", s->has_job ? s->job.base : "base");
	buf_addf(&head, "%.10s", head_of(s) ? head_of(s) : "head");
	for (i = 0; i < samples.nr; i++) {
		const struct samples_metric *m = &samples.v[i];
		struct chart_series series[2];
		struct chart c;
		struct value *o;

		memset(series, 0, sizeof(series));
		for (k = 0; k < 2; k++) {
			series[k].label = k ? head.data : base.data;
			series[k].has_mean = 1;
			series[k].mean = m->side[k].mean;
			series[k].has_stddev = m->side[k].has_stddev;
			series[k].stddev_percent = m->side[k].stddev_percent;
			series[k].values = m->runs[k];
			series[k].nr_values = m->nr_runs[k];
		}
		c.metric = m->name;
		c.series = series;
		c.nr_series = 2;
		c.max_points = (size_t)in->cfg->site_max_samples;
		buf_reset(&svg);
		if (chart_svg(&svg, &c, NULL) == 0) {
			o = value_array_push(list, value_new_object());
			value_object_add_string(o, "testcase", m->testcase);
			value_object_add_string(o, "metric", m->name);
			value_object_add_string(o, "svg", svg.data);
		}
	}
	samples_release(&samples);
	buf_release(&base);
	buf_release(&head);
	buf_release(&svg);
	return list;
}

/* The tags a fix carries: perfbot.reportedBy and perfbot.closesUrl. */
static void add_tags(struct value *v, const struct config *cfg, const char *message_id)
{
	struct buf b = BUF_INIT;

	if (cfg->reported_by && *cfg->reported_by)
		buf_addf(&b, "Reported-by: %s\n", cfg->reported_by);
	if (cfg->closes_url && *cfg->closes_url)
		buf_addf(&b, "Closes: %s%s\n", cfg->closes_url, message_id);
	if (b.len)
		buf_truncate(&b, b.len - 1);
	value_object_add_string(v, "tags", b.data);
	value_object_add_bool(v, "has_tags", b.len > 0);
	buf_release(&b);
}

/* names as a list of name and page (dir, the name's file, ".html"). */
static void add_names(struct value *v, const char *key, const char *has,
		      const struct state_names *n, const char *dir)
{
	struct value *list = value_object_add(v, key, value_new_array());
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n->nr; i++) {
		struct value *o = value_array_push(list, value_new_object());

		buf_reset(&b);
		buf_adds(&b, dir);
		site_file_name(&b, n->v[i]);
		buf_adds(&b, ".html");
		value_object_add_string(o, "name", n->v[i]);
		value_object_add_string(o, "page", b.data);
	}
	value_object_add_bool(v, has, n->nr > 0);
	buf_release(&b);
}

/* Renders template name with view into *p (path a copy of path), in room
 * for size bytes made at once. */
static int make_page(struct render_ctx *c, const char *name, const struct value *view,
		     const char *path, size_t size, struct site_page *p)
{
	const struct template_options opt = { .max_output = SITE_MAX_PAGE };
	const struct template *t;
	struct buf out = BUF_INIT;

	memset(p, 0, sizeof(*p));
	buf_grow(&out, size);
	if (template_set_get(c->set, name, &t, c->err) < 0 ||
	    template_render(c->set, t, view, &opt, &out, c->err) < 0) {
		buf_release(&out);
		return err_prefix(c->err, "%s: ", path);
	}
	p->path = xstrdup(path);
	p->data = buf_detach(&out, &p->len);
	return 0;
}

/* make_page() of a list into a new page at the end of c->out, in room for
 * what the last run made of it and an eighth more (the index of 10,000
 * reports is 2.8 MB, which a buffer doubled from 32 KB copied seven times,
 * into new memory each time; room never written costs nothing). */
static int emit_page(struct render_ctx *c, const char *name, const struct value *view,
		     const char *path)
{
	size_t hint = c->in->nr_pieces, size = 1u << 15;
	const struct site_manifest_entry *e = manifest_find(&c->in->manifest, path, &hint);

	if (e && e->size <= SITE_MAX_PAGE)
		size += e->size + e->size / 8;
	ALLOC_GROW(c->out->v, c->out->nr + 1, c->out->alloc);
	if (make_page(c, name, view, path, size, &c->out->v[c->out->nr]) < 0)
		return -1;
	c->out->nr++;
	return 0;
}

/* A report page's manifest fields: "\tFP\tSUBSYSTEMS\tLISTS", each name
 * percent-encoded (html_url_component()), joined by ','. */
static char *report_extra(const struct site_report *s)
{
	const struct state_names *n[2] = { &s->subsystems, &s->lists };
	struct buf b = BUF_INIT;
	size_t i, k;

	buf_addc(&b, '\t');
	buf_adds(&b, s->fp);
	for (k = 0; k < 2; k++) {
		buf_addc(&b, '\t');
		for (i = 0; i < n[k]->nr; i++) {
			if (i)
				buf_addc(&b, ',');
			html_url_component(&b, n[k]->v[i], strlen(n[k]->v[i]));
		}
	}
	return buf_detach(&b, NULL);
}

/* A report whose page is as the manifest has it: kept, not rendered. */
static void keep_report(const struct site_report *s, struct site_page *p)
{
	struct buf path = BUF_INIT;

	add_report_path(&path, s->r->id);
	memset(p, 0, sizeof(*p));
	p->path = buf_detach(&path, NULL);
	p->extra = report_extra(s);
}

/* Report s's page into *p (pure but for reading its samples file). */
static int page_report(struct render_ctx *c, const struct site_report *s, struct site_page *p)
{
	const struct site_input *in = c->in;
	struct buf path = BUF_INIT;
	struct value *v, *rep, *list;
	size_t i;
	int ret;

	add_report_path(&path, s->r->id);
	v = page_view(in, "../", path.data);
	rep = value_object_add(v, "report", row_view(in, s, "../"));
	value_object_add_string(rep, "message_id", s->r->message_id);
	add_archive_link(rep, in->cfg, s->r->message_id);
	add_time(rep, "sent", s->r->sent);
	value_object_add(v, "facts", facts_view(s));
	list = value_object_add(v, "charts", charts_view(in, s));
	value_object_add_bool(v, "has_charts", list->nr > 0);
	value_object_add_string(v, "mail", s->body ? s->body : "");
	value_object_add_bool(v, "has_mail", s->body != NULL);
	list = value_object_add(v, "thread", thread_view(in, s));
	value_object_add_bool(v, "has_thread", list->nr > 0);
	list = value_object_add(v, "commands", commands_view(in, s));
	value_object_add_bool(v, "has_commands", list->nr > 0);
	value_object_add(v, "fix", fix_view(in->cfg, s->t));
	list = value_object_add(v, "possible_fixes", value_new_array());
	for (i = 0; s->t && i < s->t->nr_possible; i++)
		value_array_push(list, digest_fix_commit(in->cfg, s->t->possible[i].commit,
						   s->t->possible[i].subject, s->t->possible[i].ref));
	value_object_add_bool(v, "has_possible_fixes", list->nr > 0);
	list = value_object_add(v, "posted_fixes", value_new_array());
	for (i = 0; s->t && i < s->t->nr_posted; i++)
		value_array_push(list, posted_view(in->cfg, &s->t->posted[i]));
	value_object_add_bool(v, "has_posted_fixes", list->nr > 0);
	list = value_object_add(v, "requests", requests_view(in, s));
	value_object_add_bool(v, "has_requests", list->nr > 0);
	add_tags(v, in->cfg, s->r->message_id);
	add_names(v, "subsystems", "has_subsystems", &s->subsystems, "../subsystem/");
	add_names(v, "lists", "has_lists", &s->lists, "../list/");
	/* a report's page is some 14 KB: grown once, not a dozen times */
	ret = make_page(c, "report.html", v, path.data, 1u << 15, p);
	if (!ret)
		p->extra = report_extra(s);
	value_free(v);
	buf_release(&path);
	return ret;
}

/* ---- each report's pieces ------------------------------------------- */

static const char *const roots[SITE_ROOTS] = { "", "../../", "../" };

void site_piece_release(struct site_piece *p)
{
	site_piece_release_texts(p);
	free(p->record);
	memset(p, 0, sizeof(*p));
}

void site_piece_release_texts(struct site_piece *p)
{
	size_t i;

	if (p->borrowed) {
		/* strings and arrays are the cache's (site_cache_release()) */
		return;
	}
	free(p->family);
	free(p->tree);
	free(p->state);
	free(p->subject);
	state_names_release(&p->subsystems);
	state_names_release(&p->lists);
	for (i = 0; i < SITE_ROOTS; i++)
		free(p->row[i]);
	for (i = 0; i < p->nr_entries; i++) {
		struct site_entry *e = &p->entries[i];

		free(e->urn);
		free(e->title);
		free(e->posted_subject);
		free(e->posted_version);
		free(e->posted_author);
		free(e->posted_evidence);
		free(e->posted_mid);
		free(e->verdict);
	}
	free(p->entries);
	for (i = 0; i < p->nr_json; i++)
		free(p->json[i].text);
	free(p->json);
	p->family = p->tree = p->state = p->subject = NULL;
	memset(&p->subsystems, 0, sizeof(p->subsystems));
	memset(&p->lists, 0, sizeof(p->lists));
	memset(p->row, 0, sizeof(p->row));
	p->entries = NULL;
	p->nr_entries = 0;
	p->json = NULL;
	p->nr_json = 0;
}

/* A urn:uuid: made of the SHA-256 of text (RFC 4122's layout, version 8:
 * stable for one text, unlike a random one), into out. */
static int urn_of(struct buf *out, const char *text, struct buf *err)
{
	unsigned char d[HASH_SHA256_RAWSZ];
	struct buf hex = BUF_INIT;

	if (hash_sha256(text, strlen(text), d, err) < 0)
		return -1;
	d[6] = (unsigned char)((d[6] & 0x0f) | 0x80);
	d[8] = (unsigned char)((d[8] & 0x3f) | 0x80);
	hash_hex(&hex, d, 16);
	buf_addf(out, "urn:uuid:%.8s-%.4s-%.4s-%.4s-%.12s", hex.data, hex.data + 8, hex.data + 12,
		 hex.data + 16, hex.data + 20);
	buf_release(&hex);
	return 0;
}

static struct site_entry *entry_new(struct site_piece *p, int kind, int64_t when)
{
	struct site_entry *e;

	p->entries = xrealloc(p->entries, (p->nr_entries + 1) * sizeof(*p->entries));
	e = &p->entries[p->nr_entries++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->when = when;
	return e;
}

/* s's feed entries: its mail, its state when not open, each fix posted
 * for it (every version) and each test request answered. */
static int piece_entries(const struct site_input *in, const struct site_report *s,
			 struct site_piece *p, struct buf *err)
{
	struct buf b = BUF_INIT, urn = BUF_INIT;
	struct site_entry *e;
	size_t k;
	int ret = 0;

	for (k = 0; s->t && k < s->t->nr_posted; k++) {
		const struct state_posted_fix *f = &s->t->posted[k];

		e = entry_new(p, 2, f->recorded);
		e->posted_subject = xstrdup(f->subject);
		buf_reset(&b);
		buf_addf(&b, "v%u", f->version);
		e->posted_version = xstrdup(b.data);
		buf_reset(&b);
		if (*f->author_name)
			buf_addf(&b, "%s <%s>", f->author_name, f->author_email);
		else
			buf_adds(&b, f->author_email);
		e->posted_author = xstrdup(b.data);
		e->posted_evidence = xstrdup(fix_kind_name(f->kind));
		e->posted_mid = xstrdup(f->message_id);
		e->posted_date = f->date;
		e->posted_superseded = !f->latest;
		buf_reset(&b);
		buf_addf(&b, "perfbot-site:posted:%s:%s", f->message_id, s->r->message_id);
		buf_reset(&urn);
		if ((ret = urn_of(&urn, b.data, err)) < 0)
			goto out;
		e->urn = xstrdup(urn.data);
		buf_reset(&b);
		buf_addf(&b, "[fix posted v%u] %s", f->version, s->r->subject);
		e->title = xstrdup(b.data);
	}
	for (k = 0; k < s->nr_requests; k++) {
		const struct state_request *q = &in->status.requests.v[s->requests[k]];

		if (!q->verdict)
			continue;
		e = entry_new(p, 3, q->changed);
		e->request = q->id;
		e->verdict = xstrdup(q->verdict);
		/* a later result of the same request is a new entry */
		buf_reset(&b);
		buf_addf(&b, "perfbot-site:request:%lld:%lld:%s", (long long)q->id,
			 (long long)q->results, q->verdict);
		buf_reset(&urn);
		if ((ret = urn_of(&urn, b.data, err)) < 0)
			goto out;
		e->urn = xstrdup(urn.data);
		buf_reset(&b);
		buf_addf(&b, "[test %lld: %s] %s", (long long)q->id, q->verdict, s->r->subject);
		e->title = xstrdup(b.data);
	}
	for (k = 0; k < 2; k++) {
		if (k && s->r->verdict == STATE_VERDICT_OPEN)
			break;
		e = entry_new(p, (int)k, k ? (s->changed ? s->changed : last_activity(s)) : s->r->sent);
		buf_reset(&b);
		buf_addf(&b, "perfbot-site:%s:%s", k ? state_verdict_name(s->r->verdict) : "report",
			 s->r->message_id);
		buf_reset(&urn);
		if ((ret = urn_of(&urn, b.data, err)) < 0)
			goto out;
		e->urn = xstrdup(urn.data);
		buf_reset(&b);
		if (k)
			buf_addf(&b, "[%s] ", state_verdict_name(s->r->verdict));
		buf_adds(&b, s->r->subject);
		e->title = xstrdup(b.data);
	}
out:
	buf_release(&b);
	buf_release(&urn);
	return ret;
}

/* The C1 controls and the bidirectional controls as \\uXXXX, never raw
 * (they occur in JSON strings only, where the escape means the same). */
static void json_escape_controls(struct buf *out, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const unsigned char *u = (const unsigned char *)s + i;
		unsigned cp = 0, n = 0;
		size_t plain = 0;

		/* ASCII goes as it is, in runs */
		while (i + plain < len && u[plain] < 0x80)
			plain++;
		if (plain) {
			buf_add(out, s + i, plain);
			i += plain;
			continue;
		}

		if (u[0] == 0xc2 && i + 1 < len && u[1] >= 0x80 && u[1] <= 0x9f)
			cp = u[1], n = 2;
		else if (u[0] == 0xd8 && i + 1 < len && u[1] == 0x9c)
			cp = 0x61c, n = 2;
		else if (u[0] == 0xe2 && i + 2 < len && (u[1] == 0x80 || u[1] == 0x81)) {
			unsigned c = 0x2000 + ((u[1] & 0x3fu) << 6) + (u[2] & 0x3fu);

			if (c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
			    (c >= 0x2066 && c <= 0x2069))
				cp = c, n = 3;
		}
		if (n) {
			buf_addf(out, "\\u%04x", cp);
			i += n;
		} else {
			buf_addc(out, s[i++]);
		}
	}
}

/* A line of reports.json: the status object text (one line of JSON), with
 * "page" added at its end, the controls escaped. */
static void piece_json(struct site_piece *p, int64_t id, const char *text, size_t len,
		       int64_t thread)
{
	struct buf b = BUF_INIT, out = BUF_INIT;
	struct site_json *j;

	buf_add(&b, text, len - 1);	/* its closing brace */
	buf_adds(&b, ",\"page\":\"");
	add_report_path(&b, thread);
	buf_adds(&b, "\"}");
	json_escape_controls(&out, b.data, b.len);
	p->json = xrealloc(p->json, (p->nr_json + 1) * sizeof(*p->json));
	j = &p->json[p->nr_json++];
	j->id = id;
	j->text = buf_detach(&out, &j->len);
	buf_release(&b);
}

/* s's piece (pure): its rows, feed entries and lines of reports.json. */
static int piece_make(struct render_ctx *c, const struct site_report *s, struct site_piece *p)
{
	const struct site_input *in = c->in;
	struct buf b = BUF_INIT;
	size_t k;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->id = s->r->id;
	p->activity = last_activity(s);
	p->open = s->r->verdict == STATE_VERDICT_OPEN;
	tree_family(&b, tree_of(s));
	p->family = buf_detach(&b, NULL);
	p->tree = xstrdup(tree_of(s) ? tree_of(s) : "");
	p->state = xstrdup(state_verdict_name(s->r->verdict));
	p->subject = xstrdup(s->r->subject);
	for (k = 0; k < s->subsystems.nr; k++)
		names_add(&p->subsystems, s->subsystems.v[k], strlen(s->subsystems.v[k]));
	for (k = 0; k < s->lists.nr; k++)
		names_add(&p->lists, s->lists.v[k], strlen(s->lists.v[k]));
	for (k = 0; k < SITE_ROOTS && !ret; k++) {
		struct value *v;
		const struct template *t;
		const char *name = p->open ? "row.html" : k ? "row-closed-group.html" : "row-closed.html";

		if (k == 2 && !p->subsystems.nr && !p->lists.nr)
			break;	/* on no subsystem's or list's page */
		v = row_view(in, s, roots[k]);
		buf_reset(&b);
		if (template_set_get(c->set, name, &t, c->err) < 0 ||
		    template_render(c->set, t, v, NULL, &b, c->err) < 0)
			ret = err_prefix(c->err, "report %lld's row: ", (long long)p->id);
		else
			p->row[k] = buf_detach(&b, &p->row_len[k]);
		value_free(v);
	}
	if (!ret)
		ret = piece_entries(in, s, p, c->err);
	if (!ret) {
		piece_json(p, s->r->id, s->json, s->json_len, s->r->id);
		for (k = 0; k < s->nr_followups; k++) {
			const struct state_report *f = &in->status.reports.v[s->followups[k]];
			struct value *o = status_report_json(&in->status, f);

			buf_reset(&b);
			value_write_json(&b, o, 0);
			value_free(o);
			piece_json(p, f->id, b.data, b.len, s->r->id);
		}
	}
	buf_release(&b);
	return ret;
}

/* The report pages are made by a thread per CPU and one more (at most
 * SITE_THREADS, and one per 16 reports) at once: each page is its own
 * (its details read under the state's lock, its samples read and drawn,
 * its values built and rendered, the page written), each thread taking
 * the next report not taken; each page has its slot in the run's pages, in order.  The first
 * failing report (by number, not by time) gives the message.  On a 2-CPU
 * machine a full run over 10,000 reports takes 60% of the time one
 * thread does. */
#define SITE_THREADS 8

/*
 * Jobs 0..nr-1 taken in order by several threads (each job's own output
 * keeps their order).  The first job that fails, in that order, is the one
 * told, and no job after it is taken.
 */
struct work_queue {
	pthread_mutex_t lock;
	size_t next;			/* the next job to take */
	size_t nr;
	size_t failed;			/* the first that failed, or nr */
	int code;			/* what it returned */
	struct buf err;			/* its message */
};

static void queue_init(struct work_queue *q, size_t nr)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
	q->nr = q->failed = nr;
	buf_init(&q->err);
}

static void queue_release(struct work_queue *q)
{
	pthread_mutex_destroy(&q->lock);
	buf_release(&q->err);
}

/* The next job, or q->nr when there is none to take. */
static size_t queue_take(struct work_queue *q)
{
	size_t i;

	pthread_mutex_lock(&q->lock);
	i = q->next < q->failed ? q->next++ : q->nr;
	pthread_mutex_unlock(&q->lock);
	return i;
}

/* Job i failed with code (and err, when not NULL). */
static void queue_fail(struct work_queue *q, size_t i, int code, const struct buf *err)
{
	pthread_mutex_lock(&q->lock);
	if (i < q->failed) {
		q->failed = i;
		q->code = code;
		buf_reset(&q->err);
		if (err)
			buf_add(&q->err, err->data, err->len);
	}
	pthread_mutex_unlock(&q->lock);
}

struct reports_job {
	struct render_ctx *c;
	struct site_input *in;		/* c->in, whose reports' details the
					   threads read */
	struct site_page *pages;	/* one per report of c->in */
	size_t first;			/* pages[0]'s index in c->out */
	struct work_queue q;		/* a report a job; a code < 0: it
					   failed reading the state or writing
					   its page, else the template's */
	pthread_mutex_t state_lock;	/* in->st and in->route: one
					   connection, one repository */
};

static void *reports_work(void *arg)
{
	struct reports_job *job = arg;
	struct site_input *in = job->in;
	struct buf err = BUF_INIT;
	struct render_ctx c = *job->c;
	/* a report's views are made and dropped whole: from a pool this
	 * thread takes back after each (nothing of them outlives its
	 * report: the page, row and json are bytes by then) */
	struct value_pool pool = { 0 };

	c.err = &err;
	heap_for_big_pages_thread();
	value_pool_use(&pool);
	for (;;) {
		size_t i;
		int e;

		if ((i = queue_take(&job->q)) >= in->nr)
			break;
		buf_reset(&err);
		if (report_prepare(in, &in->v[i], job->first + i, &err) < 0) {
			e = -1;
		} else if (in->v[i].cached) {
			keep_report(&in->v[i], &job->pages[i]);
			e = piece_make(&c, &in->v[i], &in->pieces[i]) < 0 ? 1 : 0;
		} else {
			/* in->st: site_gather()'s read transaction, one
			 * snapshot for every report's details */
			pthread_mutex_lock(&job->state_lock);
			route_open(in);
			e = gather_details(in->st, in->route, &in->v[i], &err);
			pthread_mutex_unlock(&job->state_lock);
		}
		if (e == 0 && !in->v[i].cached)
			e = page_report(&c, &in->v[i], &job->pages[i]) < 0 ||
			    piece_make(&c, &in->v[i], &in->pieces[i]) < 0 ? 1 : 0;
		/* its record for the cache, made here rather than by the one
		 * thread that writes the cache */
		if (e == 0 && in->cacheable)
			site_piece_record(&in->pieces[i]);
		details_release(&in->v[i]);
		/* written at once: 10,000 pages are not all held */
		if (e == 0 && !in->v[i].cached &&
		    site_write_page(c.writer, &job->pages[i], job->first + i, &err) < 0)
			e = -1;
		if (e)
			queue_fail(&job->q, i, e, &err);
		value_pool_reset(&pool);
	}
	value_pool_use(NULL);
	value_pool_release(&pool);
	buf_release(&err);
	return NULL;
}

static size_t site_cpus(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return cpus > 0 ? (size_t)cpus : 1;
}

/* work(arg) on nr threads (SITE_THREADS at most), this one among them; a
 * thread that cannot be started is one fewer. */
static void run_threads(size_t nr, void *(*work)(void *), void *arg)
{
	pthread_t th[SITE_THREADS];
	size_t started = 0, i;

	if (nr > SITE_THREADS)
		nr = SITE_THREADS;
	while (started + 1 < nr && pthread_create(&th[started], NULL, work, arg) == 0)
		started++;
	work(arg);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

/* Every report's page, in order, at the end of c->out. */
static int render_reports(struct render_ctx *c, struct site_input *in)
{
	struct reports_job job = { 0 };
	/* one more than the CPUs: a thread that waits in the file system
	 * (a page put in place on ext4) leaves its CPU to it; on 2 CPUs a
	 * full run over 10,000 reports took 7% less on disk, 5 runs of 6 */
	size_t nr = site_cpus() + 1;
	int ret = 0;

	/* a thread costs more than a few pages */
	if (nr > in->nr / 16 + 1)
		nr = in->nr / 16 + 1;
	ALLOC_GROW(c->out->v, c->out->nr + in->nr, c->out->alloc);
	in->pieces = xcalloc(in->nr + 1, sizeof(*in->pieces));
	in->nr_pieces = in->nr;
	job.c = c;
	job.in = in;
	job.pages = c->out->v + c->out->nr;
	job.first = c->out->nr;
	memset(job.pages, 0, in->nr * sizeof(*job.pages));
	queue_init(&job.q, in->nr);
	pthread_mutex_init(&job.state_lock, NULL);
	json_prepare_threads();
	run_threads(nr, reports_work, &job);
	pthread_mutex_destroy(&job.state_lock);
	c->out->nr += in->nr;
	if (job.q.failed < in->nr) {
		err_set(c->err, "%s", job.q.err.data);
		ret = job.q.code < 0 ? -2 : -1;
	}
	queue_release(&job.q);
	return ret;
}

/* A report page the run keeps as the manifest has it (its line's size
 * and fields), into *p. */
static void kept_page(const struct site_input *in, int64_t id, size_t hint, struct site_page *p)
{
	struct buf b = BUF_INIT;

	memset(p, 0, sizeof(*p));
	add_report_path(&b, id);
	/* cache_pages_listed() found it: no allocation for 10,000 pages */
	p->kept = manifest_find(&in->manifest, b.data, &hint);
	if (!p->kept)
		p->path = buf_detach(&b, NULL);
	buf_release(&b);
}

/* p is made again or gone: the list pages that show it (or showed it). */
static void touch(struct render_ctx *c, const struct site_piece *p)
{
	size_t i;

	c->touched = 1;
	names_add(&c->touched_names[0], p->family, strlen(p->family));
	for (i = 0; i < p->subsystems.nr; i++)
		names_add(&c->touched_names[1], p->subsystems.v[i], strlen(p->subsystems.v[i]));
	for (i = 0; i < p->lists.nr; i++)
		names_add(&c->touched_names[2], p->lists.v[i], strlen(p->lists.v[i]));
}

/* Whether a report's piece as it was (old) and as it is (now; either NULL
 * when there is none) shows other bytes in reports.json and the index.
 * Only ever a reason to write a list without reading its file first: a
 * list said to differ that does not is written again, never left wrong. */
static void lists_differ(struct render_ctx *c, const struct site_piece *old,
			 const struct site_piece *now)
{
	size_t i;

	if (!old || !now) {
		c->json_differs = c->index_differs = 1;
		return;
	}
	if (old->nr_json != now->nr_json)
		c->json_differs = 1;
	for (i = 0; !c->json_differs && i < now->nr_json; i++)
		c->json_differs = old->json[i].len != now->json[i].len ||
				  memcmp(old->json[i].text, now->json[i].text, now->json[i].len);
	if (!old->row[0] || !now->row[0] || old->row_len[0] != now->row_len[0] ||
	    memcmp(old->row[0], now->row[0], now->row_len[0]))
		c->index_differs = 1;
}

/* A partial run's pieces and report pages, by number: the new ones of the
 * changed reports (in->pieces, and the pages render_reports() put first
 * in c->out), and the cache's of every other, its page kept. */
static void merge_cached(struct render_ctx *c, struct site_input *in)
{
	struct site_cache *k = &in->cache;
	size_t total = k->nr + in->nr_pieces, n = 0, i = 0, j = 0, ch = 0;
	struct site_piece *all = xcalloc(total + 1, sizeof(*all));
	struct site_page *pages = xcalloc(total + 1, sizeof(*pages));
	int64_t had = -1;	/* the last changed report the cache had */

	while (i < k->nr || j < in->nr_pieces) {
		if (i < k->nr && (j == in->nr_pieces || k->v[i].id <= in->pieces[j].id)) {
			int64_t id = k->v[i].id;

			while (ch < in->changes.nr && in->changes.ids[ch] < id)
				ch++;
			if (ch < in->changes.nr && in->changes.ids[ch] == id) {
				/* changed: its new piece, if it is still
				 * published, comes from in->pieces */
				lists_differ(c, &k->v[i], j < in->nr_pieces &&
					     in->pieces[j].id == id ? &in->pieces[j] : NULL);
				had = id;
				touch(c, &k->v[i]);
				site_piece_release(&k->v[i++]);
				in->cache_dirty = 1;
				continue;
			}
			all[n] = k->v[i];
			memset(&k->v[i++], 0, sizeof(*k->v));
			kept_page(in, id, n, &pages[n]);
			n++;
			continue;
		}
		if (in->pieces[j].id != had)
			lists_differ(c, NULL, &in->pieces[j]);	/* a new one */
		touch(c, &in->pieces[j]);
		all[n] = in->pieces[j];
		pages[n++] = c->out->v[j++];
		in->cache_dirty = 1;
	}
	/* the report pages were all c->out had */
	free(c->out->v);
	c->out->v = pages;
	c->out->nr = n;
	c->out->alloc = total + 1;
	free(in->pieces);
	in->pieces = all;
	in->nr_pieces = n;
	k->nr = 0;
}

/* ---- lists and feeds ------------------------------------------------ */

/* The pieces by last activity, newest first (then by number). */
static const struct site_input *sort_in;

static int by_activity(const void *a, const void *b)
{
	const struct site_piece *x = &sort_in->pieces[*(const size_t *)a];
	const struct site_piece *y = &sort_in->pieces[*(const size_t *)b];

	if (x->activity != y->activity)
		return x->activity > y->activity ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id;
}

static size_t *sorted_pieces(const struct site_input *in)
{
	size_t *idx = xcalloc(in->nr_pieces + 1, sizeof(*idx)), i;

	for (i = 0; i < in->nr_pieces; i++)
		idx[i] = i;
	sort_in = in;
	qsort(idx, in->nr_pieces, sizeof(*idx), by_activity);
	sort_in = NULL;
	return idx;
}

/* A row of a list: the piece's text at root k (the list's {{{.}}}). */
static void push_row(struct value *list, const struct site_piece *p, size_t k)
{
	/* the row's bytes are the piece's, which outlive the list */
	value_array_push(list, p->row[k] ? value_new_string_ref(p->row[k], p->row_len[k])
					 : value_new_string(""));
}

/* A list of reports: the open ones (grouped by tree when group), then the
 * fixed and closed ones, at root k.  keep(p, arg) chooses the reports. */
static void add_lists(struct value *v, const struct site_input *in, const size_t *idx,
		      size_t k, int group,
		      int (*keep)(const struct site_piece *, const void *), const void *arg)
{
	struct value *groups = value_object_add(v, "groups", value_new_array());
	struct value *closed = value_new_array(), *open = value_new_array();
	/* each group's tree and rows, beside its view: looked up a row */
	struct group { const char *tree; struct value *rows; } *seen = NULL;
	struct buf b = BUF_INIT;
	size_t i, j, nr_open = 0, alloc = 0;

	for (i = 0; i < in->nr_pieces; i++) {
		const struct site_piece *p = &in->pieces[idx[i]];

		if (keep && !keep(p, arg))
			continue;
		if (!p->open) {
			push_row(closed, p, k);
			continue;
		}
		nr_open++;
		if (!group) {
			push_row(open, p, k);
			continue;
		}
		/* regzbot's grouping: a section per tree, in order of its
		 * newest activity */
		for (j = 0; j < groups->nr; j++)
			if (!strcmp(seen[j].tree, p->family))
				break;
		if (j == groups->nr) {
			struct value *view = value_array_push(groups, value_new_object());

			value_object_add_string(view, "tree", p->family);
			buf_reset(&b);
			buf_addf(&b, "%stree/", roots[k]);
			site_file_name(&b, p->family);
			buf_adds(&b, "/index.html");
			value_object_add_string(view, "page", b.data);
			ALLOC_GROW(seen, j + 1, alloc);
			seen[j].tree = p->family;
			seen[j].rows = value_object_add(view, "rows", value_new_array());
		}
		push_row(seen[j].rows, p, k);
	}
	free(seen);
	if (!group && open->nr) {
		struct value *g = value_array_push(groups, value_new_object());

		value_object_add_bool(g, "tree", 0);
		value_object_add_bool(g, "page", 0);
		value_object_add(g, "rows", open);
	} else {
		value_free(open);
	}
	value_object_add_bool(v, "has_open", nr_open > 0);
	value_object_add(v, "nr_open", value_new_integer((int64_t)nr_open));
	value_object_add_bool(v, "has_closed", closed->nr > 0);
	value_object_add(v, "closed", closed);
	buf_release(&b);
}

/* A feed's entry: one of a piece's. */
struct entry {
	const struct site_piece *p;
	const struct site_entry *e;
};

static int by_when(const void *a, const void *b)
{
	const struct site_entry *x = ((const struct entry *)a)->e, *y = ((const struct entry *)b)->e;
	int64_t ix = ((const struct entry *)a)->p->id, iy = ((const struct entry *)b)->p->id;

	if (x->when != y->when)
		return x->when > y->when ? -1 : 1;
	if (ix != iy)
		return ix > iy ? -1 : 1;
	if (x->kind != y->kind)
		return y->kind - x->kind;
	/* fixes posted or requests answered in one run: a total order, newest
	 * first, whatever qsort() does with ties */
	if (x->kind == 2 && x->posted_date != y->posted_date)
		return x->posted_date > y->posted_date ? -1 : 1;
	if (x->kind == 2)
		return strcmp(y->posted_mid, x->posted_mid);
	if (x->kind == 3 && x->request != y->request)
		return x->request > y->request ? -1 : 1;
	return 0;
}

/* A fix posted as the pages show it (posted_view()'s, from the entry). */
static struct value *entry_posted(const struct config *cfg, const struct site_entry *e)
{
	struct value *v = value_new_object();

	value_object_add_string(v, "subject", e->posted_subject);
	value_object_add_string(v, "version", e->posted_version);
	value_object_add_string(v, "author", e->posted_author);
	add_time(v, "date", e->posted_date);
	value_object_add_string(v, "evidence", e->posted_evidence);
	value_object_add_string(v, "message_id", e->posted_mid);
	value_object_add_bool(v, "superseded", e->posted_superseded);
	add_archive_link(v, cfg, e->posted_mid);
	return v;
}

/* Every piece's entries, newest first: a feed takes the first ones it
 * keeps (by_when() orders them totally, so that is what sorting its own
 * would give). */
static struct entry *entries_sorted(const struct site_input *in, size_t *nr)
{
	struct entry *e;
	size_t i, j, n = 0;

	for (i = 0; i < in->nr_pieces; i++)
		n += in->pieces[i].nr_entries;
	e = xcalloc(n + 1, sizeof(*e));
	for (i = n = 0; i < in->nr_pieces; i++)
		for (j = 0; j < in->pieces[i].nr_entries; j++) {
			e[n].p = &in->pieces[i];
			e[n++].e = &in->pieces[i].entries[j];
		}
	qsort(e, n, sizeof(*e), by_when);
	*nr = n;
	return e;
}

static int render_feed(struct render_ctx *c, const char *path, size_t k, const char *title,
		       int (*keep)(const struct site_piece *, const void *), const void *arg)
{
	const struct site_input *in = c->in;
	struct entry *e = xcalloc(SITE_MAX_FEED + 1, sizeof(*e));
	struct value *v = page_view(in, roots[k], path), *list;
	struct buf b = BUF_INIT;
	size_t i, n = 0;
	int ret = -1;

	for (i = 0; i < c->nr_entries && n < SITE_MAX_FEED; i++)
		if (!keep || keep(c->entries[i].p, arg))
			e[n++] = c->entries[i];
	value_object_add_string(v, "title", title);
	/* a relative reference resolves against the feed's own place */
	if (in->cfg->site_url)
		buf_addf(&b, "%s%s", in->cfg->site_url, path);
	else
		buf_adds(&b, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	value_object_add_string(v, "self", b.data);
	buf_reset(&b);
	buf_addf(&b, "perfbot-site:%s:%s", in->cfg->site_url ? in->cfg->site_url : in->cfg->from,
		 path);
	{
		struct buf urn = BUF_INIT;

		if (urn_of(&urn, b.data, c->err) < 0) {
			buf_release(&urn);
			goto out;
		}
		value_object_add_string(v, "id", urn.data);
		buf_release(&urn);
	}
	/* a feed with no entry has never changed: the epoch, not the clock,
	 * so that a run with nothing new writes nothing */
	add_time(v, "updated", n ? e[0].e->when : 0);
	list = value_object_add(v, "entries", value_new_array());
	for (i = 0; i < n; i++) {
		const struct site_piece *p = e[i].p;
		const struct site_entry *x = e[i].e;
		struct value *o = value_array_push(list, value_new_object());

		value_object_add_string(o, "id", x->urn);
		value_object_add_string(o, "title", x->title);
		add_time(o, "updated", x->when);
		buf_reset(&b);
		if (in->cfg->site_url)
			buf_addf(&b, "%sreport/%lld.html", in->cfg->site_url, (long long)p->id);
		else
			buf_addf(&b, "%sreport/%lld.html", roots[k], (long long)p->id);
		value_object_add_string(o, "link", b.data);
		value_object_add_string(o, "tree", p->tree);
		value_object_add_string(o, "state", p->state);
		value_object_add_bool(o, "new", x->kind == 0);
		value_object_add_bool(o, "changed", x->kind == 1);
		value_object_add_string(o, "report", p->subject);
		if (x->kind == 2)
			value_object_add(o, "posted", entry_posted(in->cfg, x));
		else
			value_object_add_bool(o, "posted", 0);
		if (x->kind == 3) {
			struct value *r = value_object_add(o, "answered", value_new_object());

			value_object_add(r, "number", value_new_integer(x->request));
			value_object_add_string(r, "verdict", x->verdict);
		} else {
			value_object_add_bool(o, "answered", 0);
		}
	}
	ret = emit_page(c, "atom.xml", v, path);
out:
	value_free(v);
	free(e);
	buf_release(&b);
	return ret;
}

static int keep_family(const struct site_piece *p, const void *arg)
{
	return !strcmp(p->family, arg);
}

struct group_key {
	const char *name;
	int subsystems;		/* 1: a subsystem's; 0: a list's */
};

static int keep_name(const struct site_piece *p, const void *arg)
{
	const struct group_key *key = arg;

	return names_have(key->subsystems ? &p->subsystems : &p->lists, key->name);
}

/* A group's page and its feed: page and feed paths from the top, at root
 * k. */
static int render_group(struct render_ctx *c, const size_t *idx, const char *kind,
			const char *name, const char *page, const char *feed, size_t k,
			int (*keep)(const struct site_piece *, const void *), const void *arg)
{
	struct buf title = BUF_INIT;
	struct value *v;
	int ret;

	buf_addf(&title, "%s %s", kind, name);
	ret = render_feed(c, feed, k, title.data, keep, arg);
	if (!ret) {
		v = page_view(c->in, roots[k], page);
		value_object_add_string(v, "kind", kind);
		value_object_add_string(v, "name", name);
		value_object_add_string(v, "title", title.data);
		value_object_add_string(v, "feed", strrchr(feed, '/') + 1);
		add_lists(v, c->in, idx, k, 0, keep, arg);
		ret = emit_page(c, "group.html", v, page);
		value_free(v);
	}
	buf_release(&title);
	return ret;
}

static int by_json_id(const void *a, const void *b)
{
	int64_t x = (*(const struct site_json *const *)a)->id, y = (*(const struct site_json *const *)b)->id;

	return x < y ? -1 : x > y;
}

/* s (n bytes) as the next of parts (*k of them, *len bytes so far). */
static void part_add(struct iovec *parts, size_t *k, size_t *len, const char *s, size_t n)
{
	parts[*k].iov_base = (void *)(uintptr_t)s;
	parts[(*k)++].iov_len = n;
	*len += n;
}

/* {"reports": [...]}, an object a line, by number: the published reports
 * and their sent follow-ups.  As parts: the lines are the pieces' own
 * (9 MB for 10,000 reports, which copied into one buffer were new memory
 * to fault in and fill on every run), written from where they are. */
static int render_json(struct render_ctx *c)
{
	static const char head[] = "{\"reports\": [\n", comma[] = ",\n", tail[] = "\n]}\n";
	const struct site_input *in = c->in;
	const struct site_json **all;
	struct iovec *parts;
	struct site_page *p;
	size_t i, j, n = 0, k = 0, len = 0;
	int sorted = 1;

	for (i = 0; i < in->nr_pieces; i++)
		n += in->pieces[i].nr_json;
	all = xcalloc(n + 1, sizeof(*all));
	for (i = n = 0; i < in->nr_pieces; i++)
		for (j = 0; j < in->pieces[i].nr_json; j++) {
			all[n] = &in->pieces[i].json[j];
			sorted = sorted && (!n || all[n - 1]->id < all[n]->id);
			n++;
		}
	/* in order already but where a follow-up came after a later report */
	if (!sorted)
		qsort(all, n, sizeof(*all), by_json_id);
	parts = xcalloc(2 * n + 2, sizeof(*parts));
	part_add(parts, &k, &len, head, sizeof(head) - 1);
	for (i = 0; i < n; i++) {
		if (i)
			part_add(parts, &k, &len, comma, sizeof(comma) - 1);
		part_add(parts, &k, &len, all[i]->text, all[i]->len);
	}
	part_add(parts, &k, &len, tail, sizeof(tail) - 1);
	free(all);
	ALLOC_GROW(c->out->v, c->out->nr + 1, c->out->alloc);
	p = &c->out->v[c->out->nr++];
	memset(p, 0, sizeof(*p));
	p->path = xstrdup("reports.json");
	p->parts = parts;
	p->nr_parts = k;
	p->len = len;
	p->differs = c->json_differs;
	return 0;
}

/*
 * The lists: pages of many reports each (reports.json, the index, the
 * site's feed, every tree's, subsystem's and list's page and feed), made
 * side by side by a thread per CPU, each into a list_task of its own, and
 * put in c->out in the order below.  Each is put in place by its thread
 * as soon as it is made, but the index: site_write() puts it after the
 * groups' pages it links to.  A view is made from a pool the thread takes
 * back after each page.
 */
enum task_kind { TASK_GROUP, TASK_INDEX, TASK_FEED, TASK_JSON };

struct list_task {
	enum task_kind kind;
	const char *what;	/* a group's kind: "tree", "subsystem", "list" */
	char *name;		/* a group's name */
	char *page, *feed;	/* a group's paths */
	size_t k;		/* a group's root */
	struct group_key key;	/* a subsystem's or list's, for keep_name() */
	struct site_pages out;	/* what it made */
	struct buf err;
	int ret;
};

struct lists_job {
	struct render_ctx *c;
	const size_t *idx;
	struct list_task *v;
	size_t nr;
	struct work_queue q;	/* a task a job (its message in its err) */
};

static void add_group_task(struct lists_job *job, size_t *alloc, const char *what,
			   const char *name)
{
	struct list_task *t;
	struct buf page = BUF_INIT, feed = BUF_INIT;
	int tree = !strcmp(what, "tree");

	ALLOC_GROW(job->v, job->nr + 1, *alloc);
	t = &job->v[job->nr++];
	memset(t, 0, sizeof(*t));
	buf_init(&t->err);
	t->kind = TASK_GROUP;
	t->what = what;
	t->name = xstrdup(name);
	buf_addf(&page, "%s/", tree ? "tree" : what);
	site_file_name(&page, name);
	if (tree) {
		buf_addf(&feed, "%s/atom.xml", page.data);
		buf_adds(&page, "/index.html");
	} else {
		buf_addf(&feed, "%s.xml", page.data);
		buf_adds(&page, ".html");
	}
	t->page = buf_detach(&page, NULL);
	t->feed = buf_detach(&feed, NULL);
	t->k = tree ? 1 : 2;
	t->key.name = t->name;
	t->key.subsystems = !strcmp(what, "subsystem");
}

static void add_task(struct lists_job *job, size_t *alloc, enum task_kind kind)
{
	ALLOC_GROW(job->v, job->nr + 1, *alloc);
	memset(&job->v[job->nr], 0, sizeof(job->v[job->nr]));
	buf_init(&job->v[job->nr].err);
	job->v[job->nr++].kind = kind;
}

/* The tasks: the json, the index and the feed, then the trees in order of
 * their first report, then one per subsystem and per list any report has.
 * The largest first (reports.json, 9 MB for 10,000 reports, then the
 * index): a run after one reply makes and writes those two, each on a
 * thread of its own, while another makes the rest. */
static void lists_plan(struct lists_job *job, const struct site_input *in)
{
	struct state_names fams = { 0 }, names = { 0 };
	size_t alloc = 0, i, j;
	int sub;

	add_task(job, &alloc, TASK_JSON);
	add_task(job, &alloc, TASK_INDEX);
	add_task(job, &alloc, TASK_FEED);
	for (i = 0; i < in->nr_pieces; i++) {
		const char *fam = in->pieces[i].family;

		if (names_have(&fams, fam))
			continue;
		names_add(&fams, fam, strlen(fam));
		add_group_task(job, &alloc, "tree", fam);
	}
	for (sub = 1; sub >= 0; sub--) {
		for (i = 0; i < in->nr_pieces; i++) {
			const struct state_names *n = sub ? &in->pieces[i].subsystems
							  : &in->pieces[i].lists;

			for (j = 0; j < n->nr; j++)
				names_add(&names, n->v[j], strlen(n->v[j]));
		}
		for (i = 0; i < names.nr; i++)
			add_group_task(job, &alloc, sub ? "subsystem" : "list", names.v[i]);
		state_names_release(&names);
	}
	state_names_release(&fams);
}

/* The index: its lists, and a link to each subsystem's and list's page. */
static int render_index(struct render_ctx *c, const struct lists_job *job)
{
	struct value *v = page_view(c->in, "", "index.html");
	struct value *named[2] = { value_new_array(), value_new_array() };
	size_t i;
	int ret;

	for (i = 0; i < job->nr; i++) {
		const struct list_task *t = &job->v[i];
		struct value *o;

		if (t->kind != TASK_GROUP || !strcmp(t->what, "tree"))
			continue;
		o = value_array_push(named[t->key.subsystems ? 0 : 1], value_new_object());
		value_object_add_string(o, "name", t->name);
		value_object_add_string(o, "page", t->page);
	}
	value_object_add_bool(v, "has_subsystems", named[0]->nr > 0);
	value_object_add(v, "subsystems", named[0]);
	value_object_add_bool(v, "has_lists", named[1]->nr > 0);
	value_object_add(v, "lists", named[1]);
	value_object_add_string(v, "title", "reports");
	value_object_add_string(v, "feed", "atom.xml");
	add_lists(v, c->in, job->idx, 0, 1, NULL, NULL);
	ret = emit_page(c, "index.html", v, "index.html");
	if (!ret)
		c->out->v[c->out->nr - 1].differs = c->index_differs;
	value_free(v);
	return ret;
}

/* A page of the last run kept as it is: listed by the manifest, and its
 * file of the size the manifest says (a file changed or gone behind
 * perfbot's back is made again, as a report's page is). */
static int keep_list_page(struct render_ctx *c, const char *path)
{
	const struct site_input *in = c->in;
	size_t hint = in->nr_pieces;
	const struct site_manifest_entry *e = manifest_find(&in->manifest, path, &hint);
	struct buf b = BUF_INIT;
	struct stat sb;
	int ok;

	buf_addf(&b, "%s/%s", in->dir, path);
	ok = e && stat(b.data, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == e->size;
	buf_release(&b);
	return ok;
}

/* In a partial run, a task whose pages show no piece made again or gone
 * (nor showed one) is what the last run made: its pages are kept, not
 * made and compared again.  1 when kept. */
static int task_kept(struct render_ctx *c, const struct list_task *t)
{
	const char *paths[2];
	size_t n = 0, i;

	if (!c->in->partial)
		return 0;
	switch (t->kind) {
	case TASK_GROUP:
		if (names_have(&c->touched_names[!strcmp(t->what, "tree") ? 0 :
						  t->key.subsystems ? 1 : 2], t->name))
			return 0;
		paths[n++] = t->feed;	/* in render_group()'s order */
		paths[n++] = t->page;
		break;
	case TASK_INDEX:
		paths[n++] = "index.html";
		break;
	case TASK_FEED:
		paths[n++] = "atom.xml";
		break;
	case TASK_JSON:
		paths[n++] = "reports.json";
		break;
	}
	if (t->kind != TASK_GROUP && c->touched)
		return 0;
	for (i = 0; i < n; i++)
		if (!keep_list_page(c, paths[i]))
			return 0;
	for (i = 0; i < n; i++) {
		struct site_page *p;

		ALLOC_GROW(c->out->v, c->out->nr + 1, c->out->alloc);
		p = &c->out->v[c->out->nr++];
		memset(p, 0, sizeof(*p));
		p->path = xstrdup(paths[i]);
	}
	return 1;
}

static int task_run(struct render_ctx *c, const struct lists_job *job, struct list_task *t)
{
	struct buf title = BUF_INIT;
	struct value *v;
	int ret = 0;

	if (task_kept(c, t))
		return 0;
	switch (t->kind) {
	case TASK_GROUP:
		if (!strcmp(t->what, "tree"))
			return render_group(c, job->idx, t->what, t->name, t->page, t->feed, t->k,
					    keep_family, t->name);
		return render_group(c, job->idx, t->what, t->name, t->page, t->feed, t->k,
				    keep_name, &t->key);
	case TASK_INDEX:
		return render_index(c, job);
	case TASK_FEED:
		view_add_lab(v = value_new_object(), c->in->cfg);
		buf_addf(&title, "%s reports", value_object_get(v, "sender")->str);
		value_free(v);
		ret = render_feed(c, "atom.xml", 0, title.data, NULL, NULL);
		buf_release(&title);
		return ret;
	case TASK_JSON:
		return render_json(c);
	}
	return ret;
}

/* The pages t made (not those it kept: site_write() lists them). */
static int write_made(struct render_ctx *c, struct list_task *t)
{
	size_t i;

	for (i = 0; i < t->out.nr; i++)
		if ((t->out.v[i].data || t->out.v[i].parts) &&
		    site_write_page(c->writer, &t->out.v[i], c->in->nr_pieces, c->err) < 0)
			return -2;
	return 0;
}

static void *lists_work(void *arg)
{
	struct lists_job *job = arg;
	struct value_pool pool = { 0 };

	/* the lists are megabytes (index.html, reports.json) */
	heap_for_big_pages_thread();
	value_pool_use(&pool);
	for (;;) {
		struct render_ctx c = *job->c;
		struct list_task *t;
		size_t i;

		if ((i = queue_take(&job->q)) >= job->nr)
			break;
		t = &job->v[i];
		c.out = &t->out;
		c.err = &t->err;
		t->ret = task_run(&c, job, t);
		value_pool_reset(&pool);
		/* its pages put in place at once, by this thread, while the
		 * others make theirs; but the index, which links to the
		 * groups' pages: site_write() puts it after them all */
		if (!t->ret && t->kind != TASK_INDEX)
			t->ret = write_made(&c, t);
		if (t->ret)
			queue_fail(&job->q, i, t->ret, NULL);
	}
	value_pool_use(NULL);
	value_pool_release(&pool);
	return NULL;
}

/* Every list page, at the end of c->out in the tasks' order. */
static int render_lists(struct render_ctx *c, const size_t *idx)
{
	struct lists_job job = { 0 };
	size_t nr = site_cpus(), i, j;
	int ret = 0;

	job.c = c;
	job.idx = idx;
	lists_plan(&job, c->in);
	queue_init(&job.q, job.nr);
	run_threads(nr < job.nr ? nr : job.nr, lists_work, &job);
	for (i = 0; i < job.nr; i++) {
		struct list_task *t = &job.v[i];

		if (!ret && i < job.q.failed) {
			ALLOC_GROW(c->out->v, c->out->nr + t->out.nr, c->out->alloc);
			for (j = 0; j < t->out.nr; j++)
				c->out->v[c->out->nr++] = t->out.v[j];
			t->out.nr = 0;
		} else if (!ret) {
			ret = t->ret;
			err_set(c->err, "%s", t->err.data);
		}
		site_pages_release(&t->out);
		buf_release(&t->err);
		free(t->name);
		free(t->page);
		free(t->feed);
	}
	queue_release(&job.q);
	free(job.v);
	return ret;
}

int site_render(struct site_input *in, struct template_set *set, struct site_writer *w,
		struct site_pages *out, struct buf *err)
{
	struct render_ctx c = { in, set, out, err, w };
	size_t *idx, i;
	int ret;

	ret = render_reports(&c, in);
	if (ret)
		return ret;
	if (in->partial)
		merge_cached(&c, in);
	else
		in->cache_dirty = in->cacheable;
	idx = sorted_pieces(in);
	c.entries = entries_sorted(in, &c.nr_entries);
	ret = render_lists(&c, idx);
	free(idx);
	free(c.entries);
	for (i = 0; i < 3; i++)
		state_names_release(&c.touched_names[i]);
	return ret;
}

/* ---- writing -------------------------------------------------------- */

static int make_parent(const char *dir, const char *page, struct buf *err)
{
	const char *slash = strrchr(page, '/');
	struct buf b = BUF_INIT;
	int r;

	buf_addf(&b, "%s/%.*s", dir, slash ? (int)(slash - page) : 0, page);
	r = dir_make(b.data, 0755, err);
	buf_release(&b);
	return r;
}

/* Removes the ".tmp-BASE" of page (dir_write_file_mode()'s name). */
static void tmp_remove(const char *dir, const char *page)
{
	const char *slash = strrchr(page, '/');
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%.*s.tmp-%s", dir, slash ? (int)(slash - page + 1) : 0, page,
		 slash ? slash + 1 : page);
	unlink(b.data);
	buf_release(&b);
}

/* Whether the file at path holds exactly the len bytes of the nr parts
 * of iov; a file that cannot be read does not.  Mapped, not read: the
 * lists of 10,000 reports are megabytes compared in the page cache, not
 * copied out. */
static int file_holds(const char *path, const struct iovec *iov, size_t nr, size_t len)
{
	const void *m;
	size_t n, at = 0, i;
	int same;

	if (!dir_map_file(path, len, &m, &n))
		return 0;
	same = n == len;
	for (i = 0; same && i < nr; at += iov[i++].iov_len)
		same = !iov[i].iov_len || !memcmp((const char *)m + at, iov[i].iov_base, iov[i].iov_len);
	dir_unmap_file(m, n);
	return same;
}

int site_writer_init(struct site_writer *w, const char *dir, const struct site_manifest *old,
		     int full, struct buf *err)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->dir = dir;
	w->old = old;
	w->full = full;
	buf_init(&w->made);
	pthread_mutex_init(&w->lock, NULL);
	for (i = 0; i < old->nr; i++)
		old->v[i].seen = 0;
	return dir_make(dir, 0755, err);
}

void site_writer_release(struct site_writer *w)
{
	pthread_mutex_destroy(&w->lock);
	buf_release(&w->made);
}

/* The folder page is in, made once a run (most pages share one). */
static int writer_parent(struct site_writer *w, const char *page, struct buf *err)
{
	const char *slash = strrchr(page, '/');
	struct buf line = BUF_INIT;
	int ret = 0;

	buf_addc(&line, '\n');
	buf_add(&line, page, slash ? (size_t)(slash - page) : 0);
	buf_addc(&line, '\n');
	pthread_mutex_lock(&w->lock);
	if (!w->made.len || !strstr(w->made.data, line.data)) {
		ret = make_parent(w->dir, page, err);
		if (!ret)
			buf_add(&w->made, line.data, line.len);
	}
	pthread_mutex_unlock(&w->lock);
	buf_release(&line);
	return ret;
}

/* A page at least this large that replaces its file is written into the
 * spare of it the run before last kept (dir_write_file_spare()): the
 * lists a run after one reply makes again (reports.json, the index, a
 * tree's page) are most of what it writes. */
#define SITE_SPARE_BYTES (256u << 10)

/* The nr parts of iov (len bytes) put at path, which held a file the
 * manifest lists (of old_size). */
static int replace_file(const char *path, const struct iovec *iov, size_t nr, size_t len,
			size_t old_size, struct buf *err)
{
	if (len >= SITE_SPARE_BYTES || old_size >= SITE_SPARE_BYTES)
		return dir_write_file_sparev(path, iov, nr, 0644, err);
	return dir_write_file_modev(path, iov, nr, 0644, 0, err);
}

int site_write_page(struct site_writer *w, struct site_page *pg, size_t hint, struct buf *err)
{
	struct site_manifest_entry *e = pg->kept ? pg->kept : manifest_find(w->old, pg->path, &hint);
	struct buf path = BUF_INIT;
	struct iovec one = { pg->data, pg->len };
	const struct iovec *iov = pg->parts ? pg->parts : &one;
	size_t nr = pg->parts ? pg->nr_parts : 1;
	int ret = 0, written = 0;

	if (e)
		e->seen = 1;	/* this page's own entry: no other thread's */
	if (!pg->data && !pg->parts)
		goto done;	/* kept: site_gather() found it as the manifest says */
	buf_adds(&path, w->dir);
	buf_addc(&path, '/');
	buf_adds(&path, pg->path);
	if (!w->full && !pg->differs && e && e->size == pg->len &&
	    file_holds(path.data, iov, nr, pg->len)) {
		/* the file has these bytes (reading and comparing costs a
		 * fraction of writing); the temporary file a killed --full run
		 * may have left goes (ENOENT, nothing touched, in every other
		 * case) */
		tmp_remove(w->dir, pg->path);
	} else if (writer_parent(w, pg->path, err) < 0 ||
		   (e ? replace_file(path.data, iov, nr, pg->len, e->size, err)
		      : dir_write_new_filev(path.data, iov, nr, 0644, err)) < 0) {
		ret = -1;
	} else {
		written = 1;
	}
	if (!ret) {
		free(pg->data);
		pg->data = NULL;
		free(pg->parts);
		pg->parts = NULL;
		pg->nr_parts = 0;
		pg->put = 1;
	}
done:
	pthread_mutex_lock(&w->lock);
	w->stats.pages += !ret;
	w->stats.written += written;
	pthread_mutex_unlock(&w->lock);
	buf_release(&path);
	return ret;
}

/* "SIZE PATH", each line's start (no printf: a line a page). */
static void manifest_head(struct buf *b, unsigned long long size, const char *path)
{
	buf_add_int(b, (long long)size, 0);
	buf_addc(b, ' ');
	buf_adds(b, path);
}

/* "SIZE PATH[EXTRA]\n". */
static void manifest_line(struct buf *b, unsigned long long size, const char *path,
			  const char *extra)
{
	manifest_head(b, size, path);
	if (extra)
		buf_adds(b, extra);
	buf_addc(b, '\n');
}

/* A report's page kept: its line as the last manifest has it. */
static void manifest_kept_line(struct buf *b, const struct site_manifest_entry *e)
{
	manifest_head(b, e->size, e->path);
	buf_addc(b, '\t');
	buf_adds(b, e->fp);
	buf_addc(b, '\t');
	buf_adds(b, e->subsystems);
	buf_addc(b, '\t');
	buf_adds(b, e->lists);
	buf_addc(b, '\n');
}

int site_write(struct site_writer *w, struct site_pages *p, struct buf *err)
{
	const struct site_manifest *old = w->old;
	struct buf manifest = BUF_INIT, path = BUF_INIT;
	size_t i, hint = 0;
	int ret = -1;

	for (i = 0; i < p->nr; i++) {
		struct site_page *pg = &p->v[i];
		const struct site_manifest_entry *e;

		if (!pg->put && site_write_page(w, pg, i, err) < 0)
			goto out;
		if (pg->kept) {
			manifest_kept_line(&manifest, pg->kept);
			continue;
		}
		if (pg->put) {
			manifest_line(&manifest, pg->len, pg->path, pg->extra);
			continue;
		}
		/* kept: its line as the manifest has it */
		e = manifest_find(old, pg->path, &hint);
		manifest_line(&manifest, e ? e->size : 0ull, pg->path, pg->extra);
	}
	/* a page no longer made (a tree no report is on any more): only
	 * files the manifest names, after the lists no longer link to them */
	for (i = 0; i < old->nr; i++) {
		if (old->v[i].seen || strstr(old->v[i].path, "..") || old->v[i].path[0] == '/')
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", w->dir, old->v[i].path);
		if (unlink(path.data) < 0 && errno != ENOENT) {
			err_set(err, "%s: cannot remove: %s", path.data, strerror(errno));
			goto out;
		}
		dir_remove_spare(path.data);
		w->stats.removed++;
	}
	ret = 0;
	/* the manifest last, and only when it says something new */
	if (manifest.len != old->text.len || memcmp(manifest.data, old->text.data, manifest.len)) {
		struct iovec one = { manifest.data, manifest.len };

		buf_reset(&path);
		buf_addf(&path, "%s/%s", w->dir, SITE_MANIFEST);
		ret = replace_file(path.data, &one, 1, manifest.len, old->text.len, err);
	}
out:
	buf_release(&manifest);
	buf_release(&path);
	return ret;
}
