/*
 * maintainers-match.c: the sections, lists and people get_maintainer.pl
 * selects for a commit's files and patch text (maintainers_match()).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "maintainers-data.h"
#include "xalloc.h"
#include "banned.h"

/* ---- matching paths ---- */

/* get_maintainer.pl's file_match_pattern(). */
static int fpat_match(struct maintainers *m, const struct fpat *f, const char *file, int file_slashes)
{
	struct buf err = BUF_INIT;
	size_t i = (size_t)(f - m->fpats);
	int r;

	if (!f->dir && f->slashes != file_slashes)
		return 0;
	switch (f->kind) {
	case F_PLAIN:
		return !strncmp(file, mnt_fpat_value(m, f), f->len);
	case F_GLOB:
		return mnt_glob_prefix(m, m->toks + f->tok, f->nr_tok, file);
	case F_REGEX:
		if (!m->fres[i])
			return 0;	/* it failed earlier */
		r = perlre_match(m->fres[i], file, strlen(file), &err);
		if (r < 0) {
			mnt_note(m, m->tv[f->tv].line, "%s: %s: never matches", mnt_fpat_value(m, f), err.data);
			perlre_free(m->fres[i]);
			m->fres[i] = NULL;
			r = 0;
		}
		buf_release(&err);
		return r;
	default:
		return 0;
	}
}

static int lower_contains(const char *lower, const struct perlre *re)
{
	size_t i, n = perlre_nr_literals(re);

	if (!n)
		return 1;
	for (i = 0; i < n; i++)
		if (strstr(lower, perlre_literal(re, i)))
			return 1;
	return 0;
}

/* Runs an N:/K: regex; one that fails (a match limit reached) is noted
 * and dropped. */
static int rpat_run(struct maintainers *m, struct rpat *r, struct perlre **re, const char *s, size_t len)
{
	struct buf err = BUF_INIT;
	int k = perlre_match(*re, s, len, &err);

	if (k < 0) {
		mnt_note(m, m->tv[r->tv].line, "%s: %s: never matches", mnt_tv_value(m, &m->tv[r->tv]), err.data);
		perlre_free(r->head);
		perlre_free(r->diff);
		r->head = r->diff = NULL;
		k = 0;
	}
	buf_release(&err);
	return k;
}

/* A section a path selects, and the line that decides its depth. */
struct cand {
	size_t sec;
	size_t tv;
	int depth;
	char tag;
};

static int cand_by_sec_tv(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->tv < y->tv ? -1 : x->tv > y->tv;
}

static int cand_by_depth(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->sec < y->sec ? -1 : x->sec > y->sec;
}

struct state {
	struct maintainers *m;
	unsigned flags;
	struct maintainers_selection *sel;
	unsigned char *selected;	/* per section */
	size_t alloc_hits;
	/* get_maintainer.pl's @email_to and @list_to */
	struct person *people;
	size_t nr_people, alloc_people;
	struct person *lists;
	size_t nr_lists, alloc_lists;
};

/* The sections one path selects, most specific first, into *out. */
static size_t path_sections(struct maintainers *m, const char *file, struct cand **out, size_t *alloc)
{
	size_t n = 0, i, len = strlen(file), k;
	int slashes = mnt_count_slashes(file, len);
	uint32_t h = HASH_START;
	struct buf lower = BUF_INIT;
	struct cand *c = *out;

	for (k = 0; k <= len; k++) {
		struct bucket *b;
		long p;

		if (k)
			h = mnt_hash_step(h, (unsigned char)file[k - 1]);
		if (k && file[k - 1] != '/')
			continue;
		b = mnt_bucket_find(m, file, k, h);
		if (!b->used)
			continue;
		for (p = b->head; p >= 0; p = m->fpats[p].next) {
			struct fpat *f = &m->fpats[p];

			if (fpat_match(m, f, file, slashes)) {
				ALLOC_GROW(c, n + 1, *alloc);
				c[n].sec = f->sec;
				c[n].tv = f->tv;
				c[n].depth = f->depth;
				c[n].tag = 'F';
				n++;
			}
		}
	}
	for (k = 0; k < len; k++)
		buf_addc(&lower, (char)tolower((unsigned char)file[k]));
	for (i = 0; i < m->nr_npats; i++) {
		struct rpat *r = &m->npats[i];

		if (!r->head || !lower_contains(lower.data, r->head))
			continue;
		if (rpat_run(m, r, &r->head, file, len)) {
			ALLOC_GROW(c, n + 1, *alloc);
			c[n].sec = r->sec;
			c[n].tv = r->tv;
			c[n].depth = 0;
			c[n].tag = 'N';
			n++;
		}
	}
	buf_release(&lower);
	/* per section, the last matching line decides (get_maintainer.pl
	 * overwrites $hash{$tvi} line by line); X: drops the section */
	xqsort(c, n, sizeof(*c), cand_by_sec_tv);
	for (i = k = 0; i < n; i++) {
		const struct sec *s = &m->secs[c[i].sec];
		size_t x;
		int excluded = 0;

		if (i + 1 < n && c[i + 1].sec == c[i].sec)
			continue;
		for (x = 0; x < s->nr_x && !excluded; x++)
			excluded = fpat_match(m, &m->fpats[m->xs[s->x_first + x]], file, slashes);
		if (!excluded)
			c[k++] = c[i];
	}
	xqsort(c, k, sizeof(*c), cand_by_depth);
	*out = c;
	return k;
}

/* ---- collecting, as add_categories() and push_email_address() ---- */

static int name_or_addr_used(const struct state *st, const struct person *p)
{
	size_t i;

	for (i = 0; i < st->nr_people; i++) {
		const struct person *q = &st->people[i];

		if (*p->name_q && !strcasecmp(q->name_q, p->name_q))
			return 1;
		if (!strcasecmp(q->addr, p->addr))
			return 1;
	}
	return 0;
}

static void push_person(struct state *st, const char *value, enum maintainers_kind kind,
			const struct maintainers_section *section)
{
	char **items;
	size_t n = mnt_rfc_split(value, &items), i;

	for (i = 0; i < n; i++) {
		struct person p;

		memset(&p, 0, sizeof(p));
		mnt_person_parse(&p, items[i]);
		p.kind = kind;
		p.section = section;
		if (!*p.addr || name_or_addr_used(st, &p)) {
			mnt_person_release(&p);
		} else {
			ALLOC_GROW(st->people, st->nr_people + 1, st->alloc_people);
			st->people[st->nr_people++] = p;
		}
		free(items[i]);
	}
	free(items);
}

/* The raw list addresses seen (hash_list_to), kept with the lists. */
static void push_list(struct state *st, const char *value, const struct maintainers_section *section)
{
	const char *e = value, *rest;
	struct person p;
	size_t i;

	while (*e && !mnt_is_space((unsigned char)*e))
		e++;
	rest = e;
	while (*rest && mnt_is_space((unsigned char)*rest))
		rest++;
	if (!*rest)
		rest = "";
	if (strstr(rest, "subscribers-only"))
		return;
	memset(&p, 0, sizeof(p));
	p.kind = MAINTAINERS_LIST;
	p.section = section;
	p.moderated = strstr(rest, "moderated") != NULL;
	/* name_q holds the address as written, for hash_list_to */
	p.name_q = xstrndup(value, (size_t)(e - value));
	for (i = 0; i < st->nr_lists; i++) {
		if (!strcasecmp(st->lists[i].name_q, p.name_q)) {
			free(p.name_q);
			return;
		}
	}
	ALLOC_GROW(st->lists, st->nr_lists + 1, st->alloc_lists);
	st->lists[st->nr_lists++] = p;
}

static void add_hit(struct state *st, size_t sec, char tag, size_t tv, const char *file)
{
	struct maintainers_selection *sel = st->sel;
	struct maintainers_hit *h;

	ALLOC_GROW(sel->hits, sel->nr_hits + 1, st->alloc_hits);
	h = &sel->hits[sel->nr_hits++];
	h->section = &st->m->secs[sec].pub;
	h->tag = tag;
	h->pattern = mnt_tv_value(st->m, &st->m->tv[tv]);
	h->line = st->m->tv[tv].line;
	h->file = file;
}

static void add_categories(struct state *st, size_t sec, char tag, size_t tv, const char *file)
{
	const struct sec *s = &st->m->secs[sec];
	size_t i;

	if (st->selected[sec])
		return;	/* again: nothing new, every list and person is taken */
	st->selected[sec] = 1;
	add_hit(st, sec, tag, tv, file);
	for (i = s->first + !s->named; i < s->end; i++) {
		const struct tv *t = &st->m->tv[i];

		if (t->type == 'L')
			push_list(st, mnt_tv_value(st->m, t), &s->pub);
		else if (t->type == 'M' && (st->flags & MAINTAINERS_MAINTAINERS))
			push_person(st, mnt_tv_value(st->m, t), MAINTAINERS_MAINTAINER, &s->pub);
		else if (t->type == 'R' && (st->flags & MAINTAINERS_REVIEWERS))
			push_person(st, mnt_tv_value(st->m, t), MAINTAINERS_REVIEWER, &s->pub);
	}
}

/* ---- the patch text ---- */

struct line {
	size_t start, len;
	signed char mode;	/* 0 before the first file line, 1 after, -1 not searched */
};

static void add_file(char ***files, size_t *n, size_t *alloc, const char *s, size_t len)
{
	ALLOC_GROW(*files, *n + 1, *alloc);
	(*files)[(*n)++] = xstrndup(s, len);
}

/* A mnt_token of non-space characters at s; its length. */
size_t mnt_token(const char *s, const char *e)
{
	const char *p = s;

	while (p < e && !mnt_is_space((unsigned char)*p))
		p++;
	return (size_t)(p - s);
}

static int only_space(const char *s, const char *e)
{
	while (s < e && mnt_is_space((unsigned char)*s))
		s++;
	return s == e;
}

int mnt_starts(const char *s, const char *e, const char *with)
{
	size_t n = strlen(with);

	return (size_t)(e - s) >= n && !memcmp(s, with, n);
}

/*
 * One line of the patch as get_maintainer.pl's loop reads it: the paths
 * it names (added to files), and whether its keywords are searched.
 * Returns 1 for a "---"/"+++" file line (the diff mnt_starts after it).
 */
static int read_patch_line(const char *s, const char *e, char ***files, size_t *n, size_t *alloc,
			   int *searched)
{
	const char *p;
	size_t t;

	*searched = 0;
	if (mnt_starts(s, e, " mode change ")) {
		/* ^ mode change [0-7]+ => [0-7]+ (\S+)\s*$ */
		p = s + 13;
		if (p < e && *p >= '0' && *p <= '7') {
			while (p < e && *p >= '0' && *p <= '7')
				p++;
			if (mnt_starts(p, e, " => ") && p + 4 < e && p[4] >= '0' && p[4] <= '7') {
				for (p += 4; p < e && *p >= '0' && *p <= '7'; p++)
					;
				if (p < e && *p == ' ' && (t = mnt_token(p + 1, e)) > 0 &&
				    only_space(p + 1 + t, e)) {
					add_file(files, n, alloc, p + 1, t);
					return 0;
				}
			}
		}
	}
	if (mnt_starts(s, e, "rename from ") || mnt_starts(s, e, "rename to ")) {
		p = s + (s[7] == 'f' ? 12 : 10);
		if ((t = mnt_token(p, e)) > 0 && only_space(p + t, e)) {
			add_file(files, n, alloc, p, t);
			return 0;
		}
	}
	if (mnt_starts(s, e, "diff --git a/")) {
		size_t t2;

		p = s + 13;
		t = mnt_token(p, e);
		if (t && mnt_starts(p + t, e, " b/") && (t2 = mnt_token(p + t + 3, e)) > 0 &&
		    only_space(p + t + 3 + t2, e)) {
			add_file(files, n, alloc, p, t);
			add_file(files, n, alloc, p + t + 3, t2);
			return 0;
		}
	}
	if (mnt_starts(s, e, "Fixes:")) {
		/* ^Fixes:\s+([0-9a-fA-F]{6,40}) */
		for (p = s + 6; p < e && mnt_is_space((unsigned char)*p); p++)
			;
		if (p > s + 6) {
			const char *h = p;

			while (p < e && isxdigit((unsigned char)*p))
				p++;
			if (p - h >= 6)
				return 0;
		}
	}
	if (mnt_starts(s, e, "+++") || mnt_starts(s, e, "---")) {
		/* ^\+\+\+\s+(\S+) or ^---\s+(\S+), the first directory dropped */
		for (p = s + 3; p < e && mnt_is_space((unsigned char)*p); p++)
			;
		if (p > s + 3 && (t = mnt_token(p, e)) > 0) {
			const char *slash = memchr(p, '/', t);

			if (slash)
				add_file(files, n, alloc, slash + 1, t - (size_t)(slash + 1 - p));
			else
				add_file(files, n, alloc, p, t);
			return 1;
		}
	}
	if (mnt_starts(s, e, "@@ -")) {
		/* ^\@\@ -(\d+),(\d+) */
		for (p = s + 4; p < e && isdigit((unsigned char)*p); p++)
			;
		if (p > s + 4 && p < e && *p == ',' && p + 1 < e && isdigit((unsigned char)p[1]))
			return 0;
	}
	*searched = 1;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int kpat_order(const void *a, const void *b)
{
	const struct rpat *x = *(const struct rpat *const *)a, *y = *(const struct rpat *const *)b;

	return strcmp(x->order, y->order);
}

struct text {
	const char *patch;
	char *lower;
	size_t len;
	struct line *lines;
	size_t nr_lines;
};

static size_t line_at(const struct text *t, size_t off)
{
	size_t lo = 0, hi = t->nr_lines;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->lines[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* get_maintainer.pl reads the patch with <$patch>: a line is matched
 * with its newline ('$', '\s' and '[^x]' can tell). */
static int line_matches(struct maintainers *m, struct rpat *r, struct text *t, size_t i)
{
	const struct line *l = &t->lines[i];
	struct perlre **re = l->mode ? &r->diff : &r->head;

	if (!*re)
		return 0;
	return rpat_run(m, r, re, t->patch + l->start, l->len + (l->start + l->len < t->len));
}

/* Does any searched line of mode `mode` match, with re's literals as a
 * first filter over the lowercased text? */
static int text_search(struct maintainers *m, struct rpat *r, struct text *t, int mode)
{
	struct perlre *re = mode ? r->diff : r->head;
	size_t i, k, n;

	if (!re)
		return 0;
	n = perlre_nr_literals(re);
	if (!n) {
		for (i = 0; i < t->nr_lines; i++)
			if (t->lines[i].mode == mode && line_matches(m, r, t, i))
				return 1;
		return 0;
	}
	for (k = 0; k < n; k++) {
		const char *lit = perlre_literal(re, k);
		size_t ll = strlen(lit), off = 0;

		while (off + ll <= t->len) {
			const char *hit = memmem(t->lower + off, t->len - off, lit, ll);

			if (!hit)
				break;
			i = line_at(t, (size_t)(hit - t->lower));
			if (t->lines[i].mode == mode && line_matches(m, r, t, i))
				return 1;
			if (mode ? !r->diff : !r->head)
				return 0;	/* it failed: re is gone */
			off = t->lines[i].start + t->lines[i].len + 1;
		}
	}
	return 0;
}

static void read_patch(struct text *t, const char *patch, size_t len, char ***files, size_t *n,
		       size_t *alloc)
{
	size_t off = 0, alloc_lines = 0, i;
	int mode = 0;

	t->patch = patch;
	t->len = len;
	t->lower = xmalloc(len + 1);
	for (i = 0; i < len; i++)
		t->lower[i] = (char)tolower((unsigned char)patch[i]);
	t->lower[len] = '\0';
	while (off < len) {
		const char *s = patch + off, *nl = memchr(s, '\n', len - off), *e = nl ? nl : patch + len;
		int searched, file_line;

		file_line = read_patch_line(s, e, files, n, alloc, &searched);
		ALLOC_GROW(t->lines, t->nr_lines + 1, alloc_lines);
		t->lines[t->nr_lines].start = off;
		t->lines[t->nr_lines].len = (size_t)(e - s);
		t->lines[t->nr_lines].mode = (signed char)(searched ? mode : -1);
		t->nr_lines++;
		if (file_line)
			mode = 1;
		off = (size_t)(e - patch) + 1;
	}
}

/* ---- the answer ---- */

/* deduplicate_email()'s maps, as the list of first entries: the one
 * with p's name, else the one with its address. */
static const struct person *seen_by(const struct person *all, size_t n, const struct person *p)
{
	size_t i;

	if (*p->name_q)
		for (i = 0; i < n; i++)
			if (*all[i].name_q && !strcasecmp(all[i].name_q, p->name_q))
				return &all[i];
	for (i = 0; i < n; i++)
		if (!strcasecmp(all[i].addr, p->addr))
			return &all[i];
	return NULL;
}

/* Does s contain the chief penguin's "Name <address>", '.' matching any
 * character (get_maintainer.pl uses it as a regex)? */
static int is_chief(const char *s)
{
	static const char chief[] = "Linus Torvalds <torvalds@linux-foundation.org>";
	size_t n = strlen(s), k = sizeof(chief) - 1, i, j;

	for (i = 0; i + k <= n; i++) {
		for (j = 0; j < k && (chief[j] == '.' || chief[j] == s[i + j]); j++)
			;
		if (j == k)
			return 1;
	}
	return 0;
}

static char *formatted(const char *name_q, const char *addr)
{
	struct buf b = BUF_INIT;

	if (*name_q)
		buf_addf(&b, "%s <%s>", name_q, addr);
	else
		buf_adds(&b, addr);
	return buf_detach(&b, NULL);
}

static void finish(struct state *st)
{
	struct maintainers_selection *sel = st->sel;
	size_t nr = st->nr_people + st->nr_lists, i, k, nr_out = 0;
	struct person *all = xcalloc(nr ? nr : 1, sizeof(*all));
	struct person *first = xcalloc(nr ? nr : 1, sizeof(*first));
	char **out_forms = xcalloc(nr ? nr : 1, sizeof(*out_forms));
	size_t nr_first = 0;

	/* lists: their address as parse_email() reads it */
	for (i = 0; i < st->nr_lists; i++) {
		struct person *l = &st->lists[i], p;

		memset(&p, 0, sizeof(p));
		mnt_person_parse(&p, l->name_q);
		free(l->name_q);
		l->name_q = p.name_q;
		l->name = p.name;
		l->addr = p.addr;
	}
	for (i = 0; i < nr; i++)
		all[i] = i < st->nr_people ? st->people[i] : st->lists[i - st->nr_people];
	/* deduplicate_email(): each entry becomes the first one seen with its
	 * name, else with its address */
	for (i = 0; i < nr; i++) {
		const struct person *f;

		if (!*all[i].addr && !*all[i].name_q) {
			all[i].dropped = 1;	/* a list that is no address */
			continue;
		}
		f = seen_by(first, nr_first, &all[i]);
		if (f) {
			all[i].name_q = f->name_q;
			all[i].name = f->name;
			all[i].addr = f->addr;
		} else {
			first[nr_first++] = all[i];
		}
	}
	/* the chief penguin, and THE REST's people, never */
	for (i = 0; i < st->nr_people; i++) {
		char *form = formatted(all[i].name_q, all[i].addr);

		if (is_chief(form) || all[i].section->is_rest)
			all[i].dropped = 1;
		free(form);
	}
	/* merge_email(): each printed form once */
	sel->entries = xcalloc(nr ? nr : 1, sizeof(*sel->entries));
	for (i = 0; i < nr; i++) {
		char *form;

		if (all[i].dropped || !*all[i].addr)
			continue;
		form = formatted(all[i].name_q, all[i].addr);
		for (k = 0; k < nr_out && strcmp(out_forms[k], form); k++)
			;
		if (k < nr_out) {
			free(form);
			continue;
		}
		out_forms[nr_out++] = form;
		if (all[i].kind == MAINTAINERS_LIST && !(st->flags & MAINTAINERS_LISTS))
			continue;
		sel->entries[sel->nr_entries].kind = all[i].kind;
		sel->entries[sel->nr_entries].name = xstrdup(all[i].name);
		sel->entries[sel->nr_entries].address = xstrdup(all[i].addr);
		sel->entries[sel->nr_entries].moderated = all[i].moderated;
		sel->entries[sel->nr_entries].section = all[i].section;
		sel->nr_entries++;
	}
	for (k = 0; k < nr_out; k++)
		free(out_forms[k]);
	free(out_forms);
	/* the strings belong to st->people and st->lists */
	for (i = 0; i < st->nr_people; i++)
		mnt_person_release(&st->people[i]);
	for (i = 0; i < st->nr_lists; i++)
		mnt_person_release(&st->lists[i]);
	free(all);
	free(first);
}

int maintainers_match(struct maintainers *m, const char *const *files, size_t nr_files,
		      const char *patch, size_t patch_len, unsigned flags,
		      struct maintainers_selection *out, struct buf *err)
{
	struct state st;
	struct text t;
	char **all = NULL;
	size_t n = 0, alloc = 0, i, k, alloc_c = 0, nk = 0;
	struct cand *c = NULL;
	struct rpat **ks = NULL;

	memset(out, 0, sizeof(*out));
	memset(&t, 0, sizeof(t));
	if (nr_files > MAINTAINERS_MAX_FILES)
		return err_set(err, "more than %d changed paths", MAINTAINERS_MAX_FILES);
	if (patch_len > MAINTAINERS_MAX_PATCH)
		return err_set(err, "patch text larger than %u bytes", MAINTAINERS_MAX_PATCH);
	for (i = 0; i < nr_files; i++)
		add_file(&all, &n, &alloc, files[i], strlen(files[i]));
	if (patch)
		read_patch(&t, patch, patch_len, &all, &n, &alloc);
	if (n > MAINTAINERS_MAX_FILES) {
		err_set(err, "more than %d changed paths", MAINTAINERS_MAX_FILES);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		if (strlen(all[i]) > MAINTAINERS_MAX_PATH) {
			err_set(err, "path longer than %d bytes: %.40s...", MAINTAINERS_MAX_PATH, all[i]);
			goto fail;
		}
	}
	/* sort_and_uniq() */
	if (n)
		xqsort(all, n, sizeof(*all), str_cmp);
	for (i = k = 0; i < n; i++) {
		if (k && !strcmp(all[k - 1], all[i]))
			free(all[i]);
		else
			all[k++] = all[i];
	}
	out->files = all;
	out->nr_files = k;

	memset(&st, 0, sizeof(st));
	st.m = m;
	st.flags = flags;
	st.sel = out;
	st.selected = xcalloc(m->nr_secs ? m->nr_secs : 1, 1);
	for (i = 0; i < out->nr_files; i++) {
		size_t nc = path_sections(m, out->files[i], &c, &alloc_c), j;

		for (j = 0; j < nc; j++)
			add_categories(&st, c[j].sec, c[j].tag, c[j].tv, out->files[i]);
	}
	if (patch) {
		ks = xcalloc(m->nr_kpats ? m->nr_kpats : 1, sizeof(*ks));
		for (i = 0; i < m->nr_kpats; i++) {
			struct rpat *r = &m->kpats[i];

			if (text_search(m, r, &t, 0) || text_search(m, r, &t, 1))
				ks[nk++] = r;
		}
		xqsort(ks, nk, sizeof(*ks), kpat_order);
		for (i = 0; i < nk; i++)
			add_categories(&st, ks[i]->sec, 'K', ks[i]->tv, NULL);
	}
	finish(&st);
	free(st.people);
	free(st.lists);
	free(st.selected);
	free(ks);
	free(c);
	free(t.lower);
	free(t.lines);
	return 0;
fail:
	for (i = 0; i < n; i++)
		free(all[i]);
	free(all);
	free(t.lower);
	free(t.lines);
	return -1;
}

void maintainers_selection_release(struct maintainers_selection *sel)
{
	size_t i;

	for (i = 0; i < sel->nr_entries; i++) {
		free(sel->entries[i].name);
		free(sel->entries[i].address);
	}
	free(sel->entries);
	for (i = 0; i < sel->nr_files; i++)
		free(sel->files[i]);
	free(sel->files);
	free(sel->hits);
	memset(sel, 0, sizeof(*sel));
}

