#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "date.h"
#include "fixes.h"
#include "history.h"
#include "mboxrd.h"
#include "notice.h"
#include "track.h"
#include "watch.h"
#include "xalloc.h"
#include "banned.h"

/* One commit's evidence for one report, as the walk of one ref met it. */
struct finding {
	size_t report;		/* into the run's reports */
	enum fix_kind kind;
	char commit[41];
	char *subject;
	int64_t date;
	size_t ref;		/* into the watched refs */
};

/* A possible fix in the making. */
struct possible {
	struct state_possible_fix p;	/* owned strings */
	int dirty;			/* to be written */
};

/* What one run knows and decides about one report. */
struct work {
	struct state_tracked *t;
	size_t own;			/* its own ref in the watch list, or FIX_REF_NONE */
	int has_fix;
	struct state_fix fix;		/* the fix as it stands now (owned copy) */
	enum state_verdict verdict;	/* its state now */
	int fix_dirty;			/* the fix is to be written */
	int commit_taken;		/* a finding became its fix this run */
	int announceable;		/* before the run: not fixed, or by fixed-by alone */
	int loaded;			/* has_fix, fix, announceable and possible read
					   (work_details()): only for a report with
					   findings */
	struct possible *possible;
	size_t nr_possible, alloc_possible;
};

struct run {
	struct track *t;
	struct state_tracked_list reports;
	struct work *work;		/* parallel to reports.v */
	struct watch watch;
	struct fix_index *ix;
	size_t *ix_report;		/* the index's report number -> reports.v */
	struct fix_matches matches;
	struct finding *found;
	size_t nr_found, alloc_found;
	size_t ref;			/* the ref being walked */
	char (*tips)[41];		/* each ref's new tip; "" keeps its cursor */
	char (*cursors)[41];		/* each ref's cursor before the run; "" none */
};

static char *dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

static void fix_copy(struct state_fix *dst, const struct state_fix *src)
{
	*dst = *src;
	dst->commit = dup_or_empty(src->commit);
	dst->subject = dup_or_empty(src->subject);
	dst->ref = dup_or_empty(src->ref);
	dst->landed = dup_or_empty(src->landed);
}

static enum fix_state fix_state_of(enum state_verdict v)
{
	switch (v) {
	case STATE_VERDICT_FIXED: return FIX_STATE_FIXED;
	case STATE_VERDICT_INVALID: return FIX_STATE_INVALID;
	case STATE_VERDICT_DUPLICATE: return FIX_STATE_DUPLICATE;
	default: return FIX_STATE_OPEN;
	}
}

static enum state_verdict verdict_of(enum fix_state s)
{
	switch (s) {
	case FIX_STATE_FIXED: return STATE_VERDICT_FIXED;
	case FIX_STATE_INVALID: return STATE_VERDICT_INVALID;
	case FIX_STATE_DUPLICATE: return STATE_VERDICT_DUPLICATE;
	default: return STATE_VERDICT_OPEN;
	}
}

/* The rank of ref (a watched ref's name, "" for none) for w's report. */
static size_t rank_of(const struct run *r, const struct work *w, const char *ref)
{
	if (!ref || !*ref)
		return FIX_REF_NONE;
	return fix_ref_rank(watch_find(&r->watch, ref), w->own);
}

static int line_in(const char *lines, const char *s)
{
	size_t n = strlen(s);
	const char *p = lines;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len == n && !strncmp(p, s, n))
			return 1;
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* Appends ref to the landed list; 1 when it was not there. */
static int landed_add(char **landed, const char *ref)
{
	struct buf b = BUF_INIT;

	if (line_in(*landed, ref))
		return 0;
	buf_adds(&b, *landed);
	if (b.len)
		buf_addc(&b, '\n');
	buf_adds(&b, ref);
	free(*landed);
	*landed = buf_detach(&b, NULL);
	return 1;
}

static void set_str(char **slot, const char *s)
{
	free(*slot);
	*slot = dup_or_empty(s);
}

static void work_release(struct work *w)
{
	size_t i;

	state_fix_release(&w->fix);
	for (i = 0; i < w->nr_possible; i++) {
		free(w->possible[i].p.commit);
		free(w->possible[i].p.subject);
		free(w->possible[i].p.ref);
	}
	free(w->possible);
}

static void run_release(struct run *r)
{
	size_t i;

	for (i = 0; r->work && i < r->reports.nr; i++)
		work_release(&r->work[i]);
	free(r->work);
	state_tracked_list_release(&r->reports);
	watch_release(&r->watch);
	fix_index_free(r->ix);
	free(r->ix_report);
	fix_matches_release(&r->matches);
	for (i = 0; i < r->nr_found; i++)
		free(r->found[i].subject);
	free(r->found);
	free(r->tips);
	free(r->cursors);
}

/* ---- gathering ------------------------------------------------------- */

static int run_load(struct run *r, struct buf *err)
{
	struct track *t = r->t;
	size_t i, j;

	const struct state_names *trees = &r->reports.trees;
	size_t *own;

	if (state_tracked_list(t->st, 0, &r->reports, err) < 0)
		return -1;
	watch_build(t->cfg, (const char *const *)trees->v, trees->nr, &r->watch);
	/* each report's own ref, found once per tree (the list holds every
	 * report's tree), not once per report */
	own = xcalloc(trees->nr ? trees->nr : 1, sizeof(*own));
	for (j = 0; j < trees->nr; j++)
		own[j] = watch_own(&r->watch, t->cfg, trees->v[j]);
	r->work = xcalloc(r->reports.nr ? r->reports.nr : 1, sizeof(*r->work));
	for (i = 0; i < r->reports.nr; i++) {
		struct work *w = &r->work[i];
		struct state_tracked *rep = &r->reports.v[i];

		w->t = rep;
		for (j = 0; rep->tree && j < trees->nr && strcmp(trees->v[j], rep->tree); j++)
			;
		w->own = rep->tree && j < trees->nr ? own[j] : watch_own(&r->watch, t->cfg, rep->tree);
		w->verdict = rep->verdict;
	}
	free(own);
	return 0;
}

/* The fix and possible fixes of w's report, read when a finding for it
 * comes to be decided: the list holds only the fixed-by fixes (what the
 * index needs), and most reports get no finding in a run. */
static int work_details(struct run *r, struct work *w, struct buf *err)
{
	struct state_tracked *rep = w->t;
	size_t j;

	if (w->loaded)
		return 0;
	if (state_tracked_fixes(r->t->st, rep, err) < 0)
		return -1;
	w->loaded = 1;
	w->has_fix = rep->has_fix;
	if (rep->has_fix)
		fix_copy(&w->fix, &rep->fix);
	w->announceable = rep->verdict != STATE_VERDICT_FIXED ||
			  (rep->has_fix && rep->fix.kind == FIX_FIXED_BY);
	if (rep->nr_possible) {
		w->possible = xcalloc(rep->nr_possible, sizeof(*w->possible));
		w->alloc_possible = rep->nr_possible;
	}
	for (j = 0; j < rep->nr_possible; j++) {
		struct state_possible_fix *p = &w->possible[j].p;

		*p = rep->possible[j];
		p->commit = dup_or_empty(rep->possible[j].commit);
		p->subject = dup_or_empty(rep->possible[j].subject);
		p->ref = dup_or_empty(rep->possible[j].ref);
	}
	w->nr_possible = rep->nr_possible;
	return 0;
}

/* 1 when s is min..max hex digits. */
static int is_hex(const char *s, size_t min, size_t max)
{
	size_t n = 0;

	if (!s)
		return 0;
	while ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f') || (s[n] >= 'A' && s[n] <= 'F'))
		n++;
	return !s[n] && n >= min && n <= max;
}

int track_index(const struct config *cfg, const struct state_tracked_list *reports,
		struct fix_index **ix, size_t **ix_report, struct buf *err)
{
	struct fix_report *fr = xcalloc(reports->nr ? reports->nr : 1, sizeof(*fr));
	const char ***mids = xcalloc(reports->nr ? reports->nr : 1, sizeof(*mids));
	size_t *map = xcalloc(reports->nr ? reports->nr : 1, sizeof(*map));
	size_t i, j, n = 0;
	int ret;

	for (i = 0; i < reports->nr; i++) {
		const struct state_tracked *rep = &reports->v[i];

		if (!is_hex(rep->head, 40, 40))
			continue;	/* queued before schema 5 without a head in its thread key */
		mids[n] = xcalloc(rep->nr_followup_ids + 1, sizeof(**mids));
		mids[n][0] = rep->message_id;
		for (j = 0; j < rep->nr_followup_ids; j++)
			mids[n][j + 1] = rep->followup_ids[j];
		fr[n].id = rep->id;
		fr[n].head = rep->head;
		fr[n].message_ids = mids[n];
		fr[n].nr_message_ids = rep->nr_followup_ids + 1;
		fr[n].fixed_by = rep->has_fix && rep->fix.kind == FIX_FIXED_BY &&
				 is_hex(rep->fix.commit, 4, 40) ? rep->fix.commit : NULL;
		map[n] = i;
		n++;
	}
	ret = fix_index_new(fr, n, cfg->reported_by, ix, err);
	for (i = 0; i < n; i++)
		free(mids[i]);
	free(mids);
	free(fr);
	if (ret == 0 && ix_report)
		*ix_report = map;
	else
		free(map);
	return ret;
}

/* The fix index of the reports whose head commit is known. */
static int run_index(struct run *r, struct buf *err)
{
	return track_index(r->t->cfg, &r->reports, &r->ix, &r->ix_report, err);
}

/* ---- walking --------------------------------------------------------- */

static int want_commit(const char *id, const char *message, void *data)
{
	struct run *r = data;

	return fix_index_wants(r->ix, id, message);
}

static int on_commit(const struct fix_commit *c, void *data, struct buf *err)
{
	struct run *r = data;
	size_t i;

	(void)err;
	if (!fix_scan(r->ix, c, &r->matches))
		return 0;
	for (i = 0; i < r->matches.nr; i++) {
		struct finding *f;

		ALLOC_GROW(r->found, r->nr_found + 1, r->alloc_found);
		f = &r->found[r->nr_found++];
		f->report = r->ix_report[r->matches.v[i].report];
		f->kind = r->matches.v[i].kind;
		memcpy(f->commit, c->id, sizeof(f->commit));
		f->commit[40] = '\0';
		f->subject = xstrdup(c->subject ? c->subject : "");
		f->date = c->date;
		f->ref = r->ref;
	}
	return 0;
}

/* The boundary of a ref walked without a cursor. */
static int64_t walk_since(const struct run *r)
{
	int64_t oldest = 0;
	size_t i;

	if (r->t->since)
		return r->t->since;
	for (i = 0; i < r->reports.nr; i++)
		if (r->reports.v[i].verdict == STATE_VERDICT_OPEN &&
		    (!oldest || r->reports.v[i].created < oldest))
			oldest = r->reports.v[i].created;
	/* nothing open: nothing of a new ref is walked, its cursor is set */
	return oldest ? oldest : r->t->now;
}

static int run_walk(struct run *r, struct buf *err)
{
	struct track *t = r->t;
	int64_t since = walk_since(r);
	struct buf when = BUF_INIT;
	size_t i;
	int e;

	r->tips = xcalloc(r->watch.nr ? r->watch.nr : 1, sizeof(*r->tips));
	r->cursors = xcalloc(r->watch.nr ? r->watch.nr : 1, sizeof(*r->cursors));
	for (i = 0; i < r->watch.nr; i++) {
		const struct watch_ref *wr = &r->watch.v[i];
		struct history_result res;
		size_t before = r->nr_found;

		if (state_track_cursor_get(t->st, wr->ref, r->cursors[i], err) < 0)
			return -1;
		r->ref = i;
		e = history_walk(t->repo, wr->ref, r->cursors[i], since, want_commit, on_commit, r, &res, err);
		if (e < 0)
			return -1;
		if (res.missing) {
			if (wr->configured)
				event_log_say(&t->log, "%s (tree.%s.ref) is not in perfbot.repo: not watched "
					      "(does the lab's fetch update it?)", wr->ref, wr->tree);
			else if (t->verbose)
				event_log_say(&t->log, "%s is not in perfbot.repo: not watched", wr->ref);
			continue;
		}
		t->refs++;
		t->examined += res.examined;
		if (res.cursor_lost) {
			buf_reset(&when);
			date_format_rfc3339_utc(&when, since);
			event_log_say(&t->log, "%s was rewritten and %.12s, the commit examined last, is gone: "
				      "examined back to %s", wr->ref, r->cursors[i], when.data);
		}
		if (strcmp(res.tip, r->cursors[i]))
			memcpy(r->tips[i], res.tip, sizeof(r->tips[i]));
		if (t->verbose)
			event_log_say(&t->log, "%s: %zu commit%s examined (%zu with trailers read), %zu finding%s",
				      wr->ref, res.examined, res.examined == 1 ? "" : "s", res.parsed,
				      r->nr_found - before, r->nr_found - before == 1 ? "" : "s");
	}
	buf_release(&when);
	return 0;
}

/* ---- deciding -------------------------------------------------------- */

static void finding_describe(struct buf *out, const struct run *r, const struct finding *f)
{
	const struct state_tracked *rep = &r->reports.v[f->report];
	struct buf when = BUF_INIT;

	date_format_rfc3339_utc(&when, f->date);
	buf_addf(out, "report %lld <%s>: %s in %.12s (\"%s\") on %s, committed %s: ", (long long)rep->id,
		 rep->message_id, f->kind == FIX_POSSIBLE ? "possible fix (Fixes: without perfbot's Reported-by)" :
		 fix_kind_name(f->kind), f->commit, f->subject, r->watch.v[f->ref].ref, when.data);
	buf_release(&when);
}

static void decide_possible(struct run *r, struct work *w, const struct finding *f, struct buf *line)
{
	struct fix_finding found = { f->commit, f->date, FIX_POSSIBLE, rank_of(r, w, r->watch.v[f->ref].ref) };
	struct fix_finding entry;
	struct possible *p = NULL;
	unsigned take;
	size_t i;

	for (i = 0; i < w->nr_possible; i++)
		if (!strcmp(w->possible[i].p.commit, f->commit))
			p = &w->possible[i];
	if (p) {
		entry.commit = p->p.commit;
		entry.date = p->p.date;
		entry.kind = FIX_POSSIBLE;
		entry.ref_rank = rank_of(r, w, p->p.ref);
	}
	take = fix_decide_possible(p ? &entry : NULL, &found);
	if (take & FIX_TAKE_COMMIT) {
		ALLOC_GROW(w->possible, w->nr_possible + 1, w->alloc_possible);
		p = &w->possible[w->nr_possible++];
		p->p.commit = xstrdup(f->commit);
		p->p.subject = xstrdup(f->subject);
		p->p.ref = xstrdup(r->watch.v[f->ref].ref);
		p->p.date = f->date;
		p->p.recorded = r->t->now;
		p->dirty = 1;
		r->t->possible++;
		buf_adds(line, "listed; the report stays as it is");
	} else if (take & FIX_TAKE_REF) {
		set_str(&p->p.ref, r->watch.v[f->ref].ref);
		p->dirty = 1;
		buf_addf(line, "listed, now on %s", p->p.ref);
	} else {
		buf_adds(line, "listed already");
	}
}

/* Appends one part of what a finding did, "; " between parts. */
static void say(struct buf *what, const char *fmt, const char *arg)
{
	if (what->len)
		buf_adds(what, "; ");
	buf_addf(what, fmt, arg ? arg : "");
}

static void decide_fix(struct run *r, struct work *w, const struct finding *f, struct buf *what)
{
	const char *ref = r->watch.v[f->ref].ref;
	struct fix_standing standing;
	struct fix_finding found = { f->commit, f->date, f->kind, rank_of(r, w, ref) };
	struct fix_decision d;
	enum state_verdict before = w->verdict;
	char was[13];
	int same, landing;

	memset(&standing, 0, sizeof(standing));
	standing.state = fix_state_of(w->verdict);
	standing.has_fix = w->has_fix;
	if (w->has_fix) {
		standing.fix.commit = w->fix.commit;
		standing.fix.date = w->fix.date;
		standing.fix.kind = w->fix.kind;
		standing.fix.ref_rank = rank_of(r, w, w->fix.ref);
		standing.reopened = w->fix.reopened;
	}
	d = fix_decide(&standing, &found);
	if (d.take & FIX_TAKE_COMMIT) {
		snprintf(was, sizeof(was), "%.12s", w->has_fix ? w->fix.commit : "");
		state_fix_release(&w->fix);
		w->fix.report_id = w->t->id;
		w->fix.commit = xstrdup(f->commit);
		w->fix.subject = xstrdup(f->subject);
		w->fix.ref = xstrdup(ref);
		w->fix.landed = xstrdup(ref);
		w->fix.date = f->date;
		w->fix.kind = f->kind;
		w->fix.recorded = r->t->now;
		w->fix.in_repo = 1;
		w->fix.reopened = 0;
		w->has_fix = 1;
		w->fix_dirty = w->commit_taken = 1;
		w->verdict = verdict_of(d.state);
		if (w->verdict == STATE_VERDICT_FIXED && before != STATE_VERDICT_FIXED) {
			r->t->fixed++;
			say(what, "the report is fixed%s", "");
		} else if (w->verdict != STATE_VERDICT_FIXED) {
			say(what, "recorded; the report stays %s", state_verdict_name(w->verdict));
		} else {
			say(what, "now its fix%s", "");
			if (*was)
				buf_addf(what, " (was %s)", was);
		}
		return;
	}
	same = w->has_fix && fix_same_commit(w->fix.commit, f->commit);
	landing = same && w->fix.kind == FIX_FIXED_BY && !*w->fix.ref &&
		  (d.take & (FIX_TAKE_FACTS | FIX_TAKE_REF));
	if (d.take & FIX_TAKE_FACTS) {
		set_str(&w->fix.commit, f->commit);
		set_str(&w->fix.subject, f->subject);
		w->fix.date = f->date;
		w->fix.in_repo = 1;
	}
	if (landing)
		say(what, "the commit #perfbot fixed-by named has landed%s", "");
	if (d.take & FIX_TAKE_KIND) {
		w->fix.kind = f->kind;
		say(what, "its fix, now by %s", fix_kind_name(f->kind));
	}
	if (d.take & FIX_TAKE_REF) {
		set_str(&w->fix.ref, ref);
		if (!landing)
			say(what, "its fix, now shown on %s", ref);
	}
	if (same && landed_add(&w->fix.landed, ref))
		w->fix_dirty = 1;
	if (d.take)
		w->fix_dirty = 1;
	if (d.reopened != standing.reopened) {
		w->fix.reopened = d.reopened;
		w->fix_dirty = 1;
	}
	if (what->len)
		return;
	if (same && standing.reopened)
		say(what, "its fix, set aside by #perfbot reopen: the report stays %s",
		    state_verdict_name(w->verdict));
	else if (same)
		say(what, "its fix already%s", "");
	else
		say(what, "kept: its fix is %.12s", w->fix.commit);
}

static int run_decide(struct run *r, struct buf *err)
{
	struct buf line = BUF_INIT, what = BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < r->nr_found; i++) {
		const struct finding *f = &r->found[i];
		struct work *w = &r->work[f->report];

		if (work_details(r, w, err) < 0) {
			ret = -1;
			break;
		}
		buf_reset(&line);
		buf_reset(&what);
		finding_describe(&line, r, f);
		if (f->kind == FIX_POSSIBLE)
			decide_possible(r, w, f, &what);
		else
			decide_fix(r, w, f, &what);
		r->t->findings++;
		event_log_say(&r->t->log, "%s%s", line.data, what.data);
	}
	buf_release(&line);
	buf_release(&what);
	return ret;
}

/* ---- notices and the commit ------------------------------------------ */

static int wants_notice(const struct run *r, const struct work *w, struct buf *err)
{
	int e;

	if (!r->t->cfg->announce_fixes || !w->commit_taken || !w->announceable ||
	    w->verdict != STATE_VERDICT_FIXED || w->fix.reopened || w->fix.kind == FIX_FIXED_BY)
		return 0;
	e = state_notice_find(r->t->st, w->t->id, w->fix.commit, NULL, err);
	return e < 0 ? -1 : !e;
}

/* Renders w's notice; in a dry run it goes to the mbox, else into the
 * transaction the caller has open. */
static int queue_notice(struct run *r, struct work *w, struct buf *err)
{
	struct track *t = r->t;
	struct state_report rep, row;
	struct notice_request req;
	struct notice n;
	int64_t id = 0;
	int e, ret = -1;

	memset(&n, 0, sizeof(n));
	e = state_report_get(t->st, w->t->id, &rep, err);
	if (e <= 0)
		return e < 0 ? -1 : err_set(err, "report %lld is gone", (long long)w->t->id);
	if (rep.status != STATE_SENT) {
		/* it reached nobody (yet): there is no thread to answer */
		event_log_say(&t->log, "no notice for report %lld <%s>: it is %s, not sent", (long long)rep.id,
			      rep.message_id, state_status_name(rep.status));
		state_report_release(&rep);
		return 0;
	}
	memset(&req, 0, sizeof(req));
	req.cfg = t->cfg;
	req.templates = t->templates;
	req.report = &rep;
	req.fix = &w->fix;
	req.created = t->now;
	if (notice_render(&req, &n, err) < 0) {
		err_prefix(err, "the notice of report %lld: ", (long long)w->t->id);
		goto done;
	}
	if (t->dry_run) {
		mboxrd_append(t->dry_mbox, rep.from_email, t->now, n.mail.data, n.mail.len);
		event_log_say(&t->log, "would queue notice <%s> %s", n.message_id, n.subject);
		t->notices++;
		ret = 0;
		goto done;
	}
	notice_row(&n, &req, &row);
	e = state_notice_add(t->st, w->t->id, w->fix.commit, &row, &id, err);
	if (e < 0)
		goto done;
	if (e == STATE_EXISTS) {
		event_log_say(&t->log, "no notice: %s", err->data);
		buf_reset(err);
	} else {
		event_log_say(&t->log, "queued notice %lld <%s> %s", (long long)id, n.message_id, n.subject);
		t->notices++;
	}
	ret = 0;
done:
	notice_release(&n);
	state_report_release(&rep);
	return ret;
}

static int run_record(struct run *r, struct buf *err)
{
	struct track *t = r->t;
	size_t i, j;
	int e;

	for (i = 0; i < r->reports.nr; i++) {
		struct work *w = &r->work[i];

		if (w->fix_dirty && state_fix_set(t->st, &w->fix, err) < 0)
			return -1;
		if (w->verdict != w->t->verdict &&
		    state_report_set_verdict(t->st, w->t->id, w->verdict, err) < 0)
			return -1;
		for (j = 0; j < w->nr_possible; j++)
			if (w->possible[j].dirty &&
			    state_possible_fix_set(t->st, w->t->id, &w->possible[j].p, err) < 0)
				return -1;
	}
	for (i = 0; i < r->reports.nr; i++) {
		e = wants_notice(r, &r->work[i], err);
		if (e < 0 || (e && queue_notice(r, &r->work[i], err) < 0))
			return -1;
	}
	for (i = 0; i < r->watch.nr; i++)
		if (*r->tips[i] && state_track_cursor_set(t->st, r->watch.v[i].ref, r->tips[i], t->now, err) < 0)
			return -1;
	return 0;
}

static int run_dry(struct run *r, struct buf *err)
{
	size_t i;
	int e;

	for (i = 0; i < r->reports.nr; i++) {
		e = wants_notice(r, &r->work[i], err);
		if (e < 0 || (e && queue_notice(r, &r->work[i], err) < 0))
			return -1;
	}
	return 0;
}

int track_run(struct track *t, struct buf *err)
{
	struct repo *opened = NULL;
	struct run r;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	r.t = t;
	t->config_error = 0;
	if (run_load(&r, err) < 0 || run_index(&r, err) < 0)
		goto done;
	if (!r.watch.nr) {
		if (t->verbose)
			event_log_say(&t->log, "nothing is watched: no tree.NAME.ref is set and no report names a tree");
		ret = 0;
		goto done;
	}
	/* opened only now: libgit2's start (repo_warm_up()) went on while
	 * the state was read */
	if (!t->repo) {
		if (repo_open(t->cfg->repo, &opened, err) < 0) {
			t->config_error = 1;
			goto done;
		}
		t->repo = opened;
	}
	if (run_walk(&r, err) < 0)
		goto done;
	if (run_decide(&r, err) < 0)
		goto done;
	if (t->dry_run) {
		ret = run_dry(&r, err);
		goto done;
	}
	/* Not full (state_set_durable()): an operating-system crash may drop
	 * this run's transaction whole (findings, cursors and notices alike),
	 * and the next run walks the same commits and records the same again;
	 * a kill -9 loses nothing.  It spares the syncs, a fifth of an
	 * incremental run. */
	if (state_set_durable(t->st, 0, err) < 0 || state_begin(t->st, err) < 0)
		goto done;
	if (run_record(&r, err) < 0 || state_commit(t->st, err) < 0) {
		state_rollback(t->st);
		goto done;
	}
	ret = 0;
done:
	run_release(&r);
	if (opened) {
		repo_free(opened);
		t->repo = NULL;
	}
	return ret;
}

/* ---- #perfbot fixed-by ----------------------------------------------- */

static int is_hex_word(const char *s, size_t n)
{
	char word[41];

	if (n < 4 || n > 40)
		return 0;
	memcpy(word, s, n);
	word[n] = '\0';
	return is_hex(word, 4, 40);
}

/* Finds the watched refs the commit id is on; the shown ref into *ref
 * (the report's own when it is there, else the first). */
static int landed_refs(const struct config *cfg, struct state *st, struct repo *repo,
		       const struct state_tracked *rep, const char *id, char **landed, char **ref,
		       struct buf *err)
{
	struct state_names trees = { 0 };
	struct watch w;
	struct buf why = BUF_INIT;
	size_t i, own, best = FIX_REF_NONE;

	*landed = xstrdup("");
	*ref = xstrdup("");
	if (state_report_trees(st, &trees, err) < 0)
		return -1;
	watch_build(cfg, (const char *const *)trees.v, trees.nr, &w);
	state_names_release(&trees);
	own = watch_own(&w, cfg, rep->tree);
	for (i = 0; i < w.nr; i++) {
		buf_reset(&why);
		if (history_contains(repo, w.v[i].ref, id, &why) != 1)
			continue;	/* a ref that is missing, or an error: not landed there */
		landed_add(landed, w.v[i].ref);
		if (best == FIX_REF_NONE || fix_ref_rank(i, own) < fix_ref_rank(best, own))
			best = i;
	}
	if (best != FIX_REF_NONE)
		set_str(ref, w.v[best].ref);
	watch_release(&w);
	buf_release(&why);
	return 0;
}

int track_fixed_by(const struct config *cfg, struct state *st, struct repo *repo, int64_t report_id,
		   const char *args, int64_t now, struct buf *what, struct buf *err)
{
	struct state_tracked rep;
	struct history_commit hc;
	struct state_fix f;
	struct buf word = BUF_INIT, why = BUF_INIT, shown = BUF_INIT;
	size_t n, i;
	int found = 0, e, ret = 0;

	memset(&hc, 0, sizeof(hc));
	memset(&f, 0, sizeof(f));
	while (*args == ' ' || *args == '\t')
		args++;
	n = strcspn(args, " \t(");
	if (!is_hex_word(args, n)) {
		buf_addf(what, "'%.*s' is not a commit id (4 to 40 hex digits): no fix recorded", (int)n, args);
		return 0;
	}
	for (i = 0; i < n; i++)
		buf_addc(&word, args[i] >= 'A' && args[i] <= 'F' ? (char)(args[i] - 'A' + 'a') : args[i]);
	e = state_tracked_get(st, report_id, &rep, err);
	if (e <= 0) {
		buf_release(&word);
		if (e < 0)
			return -1;
		buf_adds(what, "not a report of perfbot's: no fix recorded");
		return 0;
	}
	if (!repo) {
		buf_adds(&why, "perfbot.repo could not be opened");
	} else {
		found = history_lookup(repo, word.data, &hc, &why);
		if (found < 0)
			found = 0;	/* ambiguous or odd: recorded as given, said why */
	}
	f.report_id = report_id;
	f.kind = FIX_FIXED_BY;
	f.recorded = now;
	if (found) {
		f.commit = xstrdup(hc.id);
		f.subject = xstrdup(hc.subject);
		f.date = hc.date;
		f.in_repo = 1;
		if (landed_refs(cfg, st, repo, &rep, hc.id, &f.landed, &f.ref, err) < 0) {
			ret = -1;
			goto done;
		}
	} else {
		f.commit = xstrdup(word.data);
		f.subject = xstrdup("");
		f.ref = xstrdup("");
		f.landed = xstrdup("");
	}
	if (rep.has_fix && fix_same_commit(rep.fix.commit, f.commit) && rep.fix.kind != FIX_FIXED_BY) {
		/* the commit is the fix already, by stronger evidence: kept,
		 * no longer set aside (a person says it is fixed) */
		state_fix_release(&f);
		fix_copy(&f, &rep.fix);
		f.reopened = 0;
	}
	if (state_fix_set(st, &f, err) < 0) {
		ret = -1;
		goto done;
	}
	if (found) {
		buf_addf(what, "%.12s (\"%s\"), ", hc.id, hc.subject);
		if (*f.ref) {
			watch_ref_short(&shown, cfg, f.ref);
			buf_addf(what, "on %s", shown.data);
		} else {
			buf_adds(what, "in the repository, on no watched tree yet");
		}
	} else {
		buf_addf(what, "%s: not found in the repository%s%s%s", word.data, why.len ? " (" : "",
			 why.data, why.len ? ")" : "");
	}
done:
	history_commit_release(&hc);
	state_fix_release(&f);
	state_tracked_release(&rep);
	buf_release(&word);
	buf_release(&why);
	buf_release(&shown);
	return ret;
}
