#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fixes.h"
#include "percent.h"
#include "xalloc.h"
#include "banned.h"

/* A Message-ID in the hash: its bytes (in the index's mid_text) and the
 * report it names. */
struct mid_slot {
	const char *id;		/* NULL: an empty slot */
	size_t len;
	size_t report;
};

/* A head commit or a fixed-by commit, lowercased, and its report. */
struct commit_key {
	char hex[41];
	size_t len;
	size_t report;
};

struct fix_index {
	struct mid_slot *mids;		/* open addressing, a power of two */
	size_t mids_cap;
	char *mid_text;			/* every Message-ID's bytes, one allocation
					   (thousands of them, each run) */
	size_t mid_text_len;
	size_t mid_max;			/* the longest Message-ID indexed */
	struct commit_key *heads;	/* sorted by hex */
	size_t nr_heads;
	struct commit_key *fixed_by;	/* sorted by hex; prefixes of 4..40 */
	size_t nr_fixed_by;
	int64_t *report_ids;
	size_t nr_reports;
	char *reported_by;		/* perfbot's address; "" when none */
};

static const char *const kind_names[] = {
	[FIX_CLOSES] = "closes",
	[FIX_LINK] = "link",
	[FIX_REVERT] = "revert",
	[FIX_FIXES] = "fixes",
	[FIX_FIXED_BY] = "fixed-by",
	[FIX_POSSIBLE] = "possible",
};

const char *fix_kind_name(enum fix_kind k)
{
	if ((size_t)k < sizeof(kind_names) / sizeof(kind_names[0]))
		return kind_names[k];
	return "unknown";
}

int fix_kind_parse(const char *s, enum fix_kind *out)
{
	size_t i;

	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
		if (!strcmp(s, kind_names[i])) {
			*out = (enum fix_kind)i;
			return 0;
		}
	}
	return -1;
}

int fix_kind_closes(enum fix_kind k)
{
	return k != FIX_POSSIBLE;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int hex_value(char c)
{
	return percent_hex((unsigned char)c);
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* FNV-1a: Message-IDs are short and the table is rebuilt each run. */
static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037u;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211u;
	}
	return h;
}

static struct mid_slot *mid_find(const struct fix_index *ix, const char *s, size_t n)
{
	size_t mask = ix->mids_cap - 1, i;

	if (!ix->mids_cap)
		return NULL;
	for (i = (size_t)hash_bytes(s, n) & mask;; i = (i + 1) & mask) {
		struct mid_slot *slot = &ix->mids[i];

		if (!slot->id || (slot->len == n && !memcmp(slot->id, s, n)))
			return slot;
	}
}

/* Copies the address of a person value into out (at most cap - 1 bytes,
 * lowercased): the text inside <>, else the value up to a " #" comment,
 * trimmed.  0 when there is none or it is longer. */
static size_t person_address(const char *v, char *out, size_t cap)
{
	const char *lt = strchr(v, '<'), *s, *e;
	size_t n, i;

	if (lt) {
		s = lt + 1;
		e = strchr(s, '>');
		if (!e)
			return 0;
	} else {
		s = v;
		e = s + strlen(s);
		for (i = 0; s + i < e; i++) {
			if (s[i] == '#' && (i == 0 || is_space(s[i - 1]))) {
				e = s + i;
				break;
			}
		}
	}
	while (s < e && is_space(*s))
		s++;
	while (e > s && is_space(e[-1]))
		e--;
	n = (size_t)(e - s);
	if (!n || n >= cap)
		return 0;
	for (i = 0; i < n; i++)
		out[i] = lower(s[i]);
	out[n] = '\0';
	return n;
}

static int is_hex_n(const char *s, size_t min, size_t max, size_t *len)
{
	size_t n = 0;

	while (hex_value(s[n]) >= 0)
		n++;
	if (s[n] || n < min || n > max)
		return 0;
	*len = n;
	return 1;
}

static int key_cmp(const void *a, const void *b)
{
	const struct commit_key *x = a, *y = b;
	int c = strcmp(x->hex, y->hex);

	if (c)
		return c;
	return x->report < y->report ? -1 : x->report > y->report;
}

static void key_set(struct commit_key *k, const char *hex, size_t n, size_t report)
{
	size_t i;

	for (i = 0; i < n; i++)
		k->hex[i] = lower(hex[i]);
	k->hex[n] = '\0';
	k->len = n;
	k->report = report;
}

static int index_mid(struct fix_index *ix, const struct fix_report *r, size_t report,
		     const char *mid, struct buf *err)
{
	const char *s = mid;
	size_t n = strlen(mid);
	struct mid_slot *slot;

	if (n >= 2 && s[0] == '<' && s[n - 1] == '>') {
		s++;
		n -= 2;
	}
	if (!n)
		return err_set(err, "report %lld: empty message-id", (long long)r->id);
	if (n > FIX_MAX_MESSAGE_ID)
		return err_set(err, "report %lld: message-id longer than %d bytes",
			       (long long)r->id, FIX_MAX_MESSAGE_ID);
	slot = mid_find(ix, s, n);
	if (slot->id) {
		if (slot->report == report)
			return 0;
		return err_set(err, "message-id <%.*s> is given for reports %lld and %lld",
			       (int)n, s, (long long)ix->report_ids[slot->report], (long long)r->id);
	}
	memcpy(ix->mid_text + ix->mid_text_len, s, n);
	slot->id = ix->mid_text + ix->mid_text_len;
	ix->mid_text_len += n;
	slot->len = n;
	slot->report = report;
	if (n > ix->mid_max)
		ix->mid_max = n;
	return 0;
}

int fix_index_new(const struct fix_report *reports, size_t nr, const char *reported_by,
		  struct fix_index **out, struct buf *err)
{
	struct fix_index *ix = xcalloc(1, sizeof(*ix));
	char addr[FIX_MAX_MESSAGE_ID + 1];
	size_t nr_mids = 0, text = 0, i, j, len;

	*out = NULL;
	for (i = 0; i < nr; i++) {
		nr_mids += reports[i].nr_message_ids;
		for (j = 0; j < reports[i].nr_message_ids; j++)
			text += strlen(reports[i].message_ids[j]);
	}
	ix->mid_text = xmalloc(text ? text : 1);
	ix->mids_cap = 16;
	while (ix->mids_cap < 2 * nr_mids)
		ix->mids_cap *= 2;
	ix->mids = xcalloc(ix->mids_cap, sizeof(*ix->mids));
	ix->heads = xcalloc(nr ? nr : 1, sizeof(*ix->heads));
	ix->fixed_by = xcalloc(nr ? nr : 1, sizeof(*ix->fixed_by));
	ix->report_ids = xcalloc(nr ? nr : 1, sizeof(*ix->report_ids));
	ix->nr_reports = nr;
	ix->reported_by = xstrdup(person_address(reported_by ? reported_by : "", addr, sizeof(addr)) ?
				  addr : "");
	for (i = 0; i < nr; i++)
		ix->report_ids[i] = reports[i].id;
	for (i = 0; i < nr; i++) {
		const struct fix_report *r = &reports[i];

		if (!r->head || !is_hex_n(r->head, 40, 40, &len)) {
			fix_index_free(ix);
			return err_set(err, "report %lld: head commit '%s' is not 40 hex digits",
				       (long long)r->id, r->head ? r->head : "");
		}
		key_set(&ix->heads[ix->nr_heads++], r->head, len, i);
		if (r->fixed_by) {
			if (!is_hex_n(r->fixed_by, 4, 40, &len)) {
				fix_index_free(ix);
				return err_set(err, "report %lld: fixed-by commit '%s' is not 4 to 40 hex digits",
					       (long long)r->id, r->fixed_by);
			}
			key_set(&ix->fixed_by[ix->nr_fixed_by++], r->fixed_by, len, i);
		}
		for (j = 0; j < r->nr_message_ids; j++) {
			if (index_mid(ix, r, i, r->message_ids[j], err) < 0) {
				fix_index_free(ix);
				return -1;
			}
		}
	}
	if (ix->nr_heads > 1)
		xqsort(ix->heads, ix->nr_heads, sizeof(*ix->heads), key_cmp);
	if (ix->nr_fixed_by > 1)
		xqsort(ix->fixed_by, ix->nr_fixed_by, sizeof(*ix->fixed_by), key_cmp);
	*out = ix;
	return 0;
}

void fix_index_free(struct fix_index *ix)
{
	if (!ix)
		return;
	free(ix->mid_text);
	free(ix->mids);
	free(ix->heads);
	free(ix->fixed_by);
	free(ix->report_ids);
	free(ix->reported_by);
	free(ix);
}

/* The first key whose first n hex digits are not below prefix's. */
static size_t keys_lower_bound(const struct commit_key *v, size_t nr, const char *prefix, size_t n)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(v[mid].hex, prefix, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether s (at a line start) is KEY, optional blanks, then ':'. */
static int line_has_key(const char *s, const char *key, size_t n)
{
	if (strncasecmp(s, key, n))
		return 0;
	s += n;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == ':';
}

static const char revert_line[] = "This reverts commit ";

int fix_index_wants(const struct fix_index *ix, const char *id, const char *message)
{
	size_t i;

	if (ix->nr_fixed_by) {
		i = keys_lower_bound(ix->fixed_by, ix->nr_fixed_by, id, 4);
		for (; i < ix->nr_fixed_by && !strncmp(ix->fixed_by[i].hex, id, 4); i++)
			if (!strncmp(ix->fixed_by[i].hex, id, ix->fixed_by[i].len))
				return 1;
	}
	return fix_message_wants(message);
}

int fix_message_wants(const char *message)
{
	const char *p = message;

	while (p) {
		switch (*p) {
		case 'c': case 'C':
			if (line_has_key(p, "closes", 6))
				return 1;
			break;
		case 'l': case 'L':
			if (line_has_key(p, "link", 4))
				return 1;
			break;
		case 'f': case 'F':
			if (line_has_key(p, "fixes", 5))
				return 1;
			break;
		case 'T':
			if (!strncmp(p, revert_line, sizeof(revert_line) - 1))
				return 1;
			break;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

int fix_parse_revert(const char *message, char out[41])
{
	const char *p = message;
	size_t i;

	for (; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *h;

		if (strncmp(p, revert_line, sizeof(revert_line) - 1))
			continue;
		h = p + sizeof(revert_line) - 1;
		for (i = 0; i < 40 && hex_value(h[i]) >= 0; i++)
			;
		if (i < 40 || hex_value(h[40]) >= 0)
			continue;
		for (i = 0; i < 40; i++)
			out[i] = lower(h[i]);
		out[40] = '\0';
		return 1;
	}
	return 0;
}

void fix_matches_release(struct fix_matches *m)
{
	free(m->v);
	m->v = NULL;
	m->nr = m->alloc = 0;
}

/* Records kind for report, keeping the strongest per report. */
static void match_add(const struct fix_index *ix, struct fix_matches *m, size_t report,
		      enum fix_kind kind)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		if (m->v[i].report == report) {
			if (kind < m->v[i].kind)
				m->v[i].kind = kind;
			return;
		}
	}
	ALLOC_GROW(m->v, m->nr + 1, m->alloc);
	m->v[m->nr].report = report;
	m->v[m->nr].report_id = ix->report_ids[report];
	m->v[m->nr].kind = kind;
	m->nr++;
}

static int match_cmp(const void *a, const void *b)
{
	const struct fix_match *x = a, *y = b;

	return x->report < y->report ? -1 : x->report > y->report;
}

/* Whether key (trailing blanks ignored) is name, ignoring case. */
static int key_is(const char *key, const char *name)
{
	size_t n = strlen(name), k = strlen(key);

	while (k && is_space(key[k - 1]))
		k--;
	return k == n && !strncasecmp(key, name, n);
}

/* Looks up one path segment [s, e) of a URL. */
static void segment_match(const struct fix_index *ix, const char *s, const char *e,
			  enum fix_kind kind, struct fix_matches *out)
{
	struct buf id = BUF_INIT;
	size_t n, raw = (size_t)(e - s);
	const char *d;
	struct mid_slot *slot;

	/* an escape is 3 bytes for 1: a longer segment cannot decode to an
	 * indexed id, so it is not decoded at all */
	if (!raw || raw > 3 * (ix->mid_max + 2))
		return;
	id.limit = ix->mid_max + 2;	/* "<" and ">" */
	if (percent_decode(s, raw, 0, &id) < 0) {
		buf_release(&id);
		return;		/* longer than any indexed id */
	}
	d = id.data;
	n = id.len;
	if (n >= 2 && d[0] == '<' && d[n - 1] == '>') {
		d++;
		n -= 2;
	}
	if (n && n <= ix->mid_max) {
		slot = mid_find(ix, d, n);
		if (slot && slot->id)
			match_add(ix, out, slot->report, kind);
	}
	buf_release(&id);
}

/* The URL in a Closes:/Link: value and the reports its segments name. */
static void url_match(const struct fix_index *ix, const char *v, enum fix_kind kind,
		      struct fix_matches *out)
{
	const char *s = v, *e, *p;

	while (is_space(*s))
		s++;
	for (e = s; *e && !is_space(*e); e++)
		;
	if (e - s >= 2 && *s == '<' && e[-1] == '>') {
		s++;
		e--;
	}
	/* "scheme://authority": the authority is no path segment */
	for (p = s; p < e && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9' && p > s) || *p == '+' || *p == '-' || *p == '.');
	     p++)
		;
	if (p > s && e - p >= 3 && !memcmp(p, "://", 3)) {
		p += 3;
		while (p < e && *p != '/' && *p != '?' && *p != '#')
			p++;
		s = p;
	}
	for (p = s; p < e; p++) {
		if (*p == '?' || *p == '#') {
			e = p;
			break;
		}
	}
	while (s < e) {
		const char *slash = memchr(s, '/', (size_t)(e - s));
		const char *end = slash ? slash : e;

		segment_match(ix, s, end, kind, out);
		s = slash ? slash + 1 : e;
	}
}

/* The head commits a Fixes: value names. */
static void fixes_match(const struct fix_index *ix, const char *v, enum fix_kind kind,
			struct fix_matches *out)
{
	char prefix[41];
	size_t n = 0, i;

	while (is_space(*v))
		v++;
	while (hex_value(v[n]) >= 0) {
		if (n == 40)
			return;
		prefix[n] = lower(v[n]);
		n++;
	}
	prefix[n] = '\0';
	if (n < FIX_MIN_FIXES_DIGITS || (v[n] && !is_space(v[n]) && v[n] != '('))
		return;
	i = keys_lower_bound(ix->heads, ix->nr_heads, prefix, n);
	for (; i < ix->nr_heads && !strncmp(ix->heads[i].hex, prefix, n); i++)
		match_add(ix, out, ix->heads[i].report, kind);
}

static int names_perfbot(const struct fix_index *ix, const char *value)
{
	char addr[FIX_MAX_MESSAGE_ID + 1];

	return *ix->reported_by && person_address(value, addr, sizeof(addr)) &&
	       !strcmp(addr, ix->reported_by);
}

size_t fix_scan(const struct fix_index *ix, const struct fix_commit *c, struct fix_matches *out)
{
	int reported = 0;
	size_t i;

	out->nr = 0;
	for (i = 0; i < c->nr_trailers && !reported; i++)
		if (key_is(c->trailers[i].key, "reported-by") && names_perfbot(ix, c->trailers[i].value))
			reported = 1;
	for (i = 0; i < c->nr_trailers; i++) {
		const struct fix_trailer *t = &c->trailers[i];

		if (key_is(t->key, "closes"))
			url_match(ix, t->value, FIX_CLOSES, out);
		else if (key_is(t->key, "link"))
			url_match(ix, t->value, FIX_LINK, out);
		else if (key_is(t->key, "fixes"))
			fixes_match(ix, t->value, reported ? FIX_FIXES : FIX_POSSIBLE, out);
	}
	if (c->reverts) {
		size_t n = strlen(c->reverts), j;

		if (n == 40) {
			j = keys_lower_bound(ix->heads, ix->nr_heads, c->reverts, 40);
			for (; j < ix->nr_heads && !strcmp(ix->heads[j].hex, c->reverts); j++)
				match_add(ix, out, ix->heads[j].report, FIX_REVERT);
		}
	}
	if (ix->nr_fixed_by && strlen(c->id) >= 4) {
		i = keys_lower_bound(ix->fixed_by, ix->nr_fixed_by, c->id, 4);
		for (; i < ix->nr_fixed_by && !strncmp(ix->fixed_by[i].hex, c->id, 4); i++)
			if (!strncmp(ix->fixed_by[i].hex, c->id, ix->fixed_by[i].len))
				match_add(ix, out, ix->fixed_by[i].report, FIX_FIXED_BY);
	}
	if (out->nr > 1)
		xqsort(out->v, out->nr, sizeof(*out->v), match_cmp);
	return out->nr;
}

size_t fix_ref_rank(size_t ref_index, size_t own_index)
{
	if (ref_index == FIX_REF_NONE)
		return FIX_REF_NONE;
	if (ref_index == own_index)
		return 0;
	return ref_index + 1;
}

int fix_same_commit(const char *a, const char *b)
{
	size_t i;

	for (i = 0; a[i] && b[i]; i++)
		if (lower(a[i]) != lower(b[i]))
			return 0;
	return i > 0;
}

/* Whether found, another commit, beats the trailer fix f. */
static int beats(const struct fix_finding *found, const struct fix_finding *f)
{
	if (found->date != f->date)
		return found->date < f->date;
	if (found->kind != f->kind)
		return found->kind < f->kind;
	return strcmp(found->commit, f->commit) < 0;
}

struct fix_decision fix_decide(const struct fix_standing *standing, const struct fix_finding *found)
{
	struct fix_decision d = { 0, standing->state, standing->reopened };
	const struct fix_finding *f = &standing->fix;

	if (found->kind == FIX_POSSIBLE)
		return d;
	if (!standing->has_fix) {
		d.take = FIX_TAKE_COMMIT;
	} else if (fix_same_commit(f->commit, found->commit)) {
		if (found->kind < f->kind)
			d.take |= FIX_TAKE_KIND;
		if (found->ref_rank < f->ref_rank)
			d.take |= FIX_TAKE_REF;
		if (f->kind == FIX_FIXED_BY && found->date && (!f->date || strlen(f->commit) < 40))
			d.take |= FIX_TAKE_FACTS;
		/* a set-aside fix seen again does not fix the report again */
		return d;
	} else if (found->kind == FIX_FIXED_BY) {
		/* a sighting of a fixed-by commit that no longer stands */
		return d;
	} else if (standing->reopened || f->kind == FIX_FIXED_BY || beats(found, f)) {
		d.take = FIX_TAKE_COMMIT;
	}
	if (d.take & FIX_TAKE_COMMIT) {
		d.reopened = 0;
		if (fix_kind_closes(found->kind) &&
		    (standing->state == FIX_STATE_OPEN || standing->state == FIX_STATE_FIXED))
			d.state = FIX_STATE_FIXED;
	}
	return d;
}

unsigned fix_decide_possible(const struct fix_finding *entry, const struct fix_finding *found)
{
	if (!entry)
		return FIX_TAKE_COMMIT;
	if (fix_same_commit(entry->commit, found->commit) && found->ref_rank < entry->ref_rank)
		return FIX_TAKE_REF;
	return 0;
}
