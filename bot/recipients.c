#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "date.h"
#include "recipients.h"
#include "xalloc.h"
#include "banned.h"

static const char *const trailer_keys[] = {
	"Signed-off-by", "Acked-by", "Reviewed-by", "Tested-by", "Reported-by", "Cc",
};

static int is_person_trailer(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(trailer_keys) / sizeof(trailer_keys[0]); i++)
		if (!strcasecmp(key, trailer_keys[i]))
			return 1;
	return 0;
}

/* A candidate, in the order they come. */
struct cand {
	struct address a;
	struct recipient_why why;
	char *because;		/* NULL: still in */
};

struct cands {
	struct cand *v;
	size_t nr, alloc;
};

static void why_add(struct recipient_why *w, const char *reason)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		if (!strcmp(w->reasons[i], reason))
			return;	/* two trailers of one kind: one reason */
	w->reasons = xrealloc(w->reasons, (w->nr + 1) * sizeof(*w->reasons));
	w->reasons[w->nr++] = xstrdup(reason);
}

void recipient_why_release(struct recipient_why *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		free(w->reasons[i]);
	free(w->reasons);
	memset(w, 0, sizeof(*w));
}

void recipient_why_format(struct buf *out, const struct recipient_why *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		buf_addf(out, "%s%s", i ? ", " : "", w->reasons[i]);
}

/* Adds a (taking it over) for reason, or only the reason when its address
 * is there already. */
static void cand_add(struct cands *c, struct address *a, const char *reason, int is_list)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		if (address_equal(a, &c->v[i].a)) {
			why_add(&c->v[i].why, reason);
			c->v[i].why.is_list |= is_list;	/* a list by any reason */
			address_release(a);
			return;
		}
	}
	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	memset(&c->v[c->nr], 0, sizeof(c->v[0]));
	c->v[c->nr].a = *a;
	c->v[c->nr].why.is_list = is_list;
	why_add(&c->v[c->nr].why, reason);
	c->nr++;
}

static int add_configured(struct cands *c, char *const *list, size_t n, const char *key,
			  const char *reason, struct buf *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct address *as = NULL;
		size_t na = 0, j;

		if (address_list_parse(list[i], &as, &na, err) < 0)
			return err_prefix(err, "%s: ", key);
		for (j = 0; j < na; j++)
			cand_add(c, &as[j], reason, 1);
		free(as);
	}
	return 0;
}

/* The address part of a trailer value, without what kernel developers put
 * after it ("# v6.1+", "[backport]"). */
static char *trailer_address(const char *value)
{
	const char *gt = strchr(value, '>');
	size_t n = gt ? (size_t)(gt - value) + 1 : strcspn(value, "#[");

	while (n && (value[n - 1] == ' ' || value[n - 1] == '\t'))
		n--;
	return xstrndup(value, n);
}

static void add_trailers(struct cands *c, const struct commit_info *head, struct buf *notes)
{
	size_t i;

	for (i = 0; i < head->nr_trailers; i++) {
		const struct commit_trailer *t = &head->trailers[i];
		struct address a;
		struct buf why = BUF_INIT;
		char *addr;

		if (!is_person_trailer(t->key))
			continue;
		addr = t->person ? xstrdup(t->person) : trailer_address(t->value);
		if (address_parse(addr, &a, &why) < 0) {
			if (notes)
				buf_addf(notes, "commit %.12s: %s trailer skipped: %s\n", head->id, t->key, why.data);
		} else {
			cand_add(c, &a, t->key, 0);
		}
		free(addr);
		buf_release(&why);
	}
}

static void add_route(struct cands *c, const struct config *cfg,
		      const struct maintainers_selection *sel, struct buf *notes)
{
	struct buf reason = BUF_INIT, why = BUF_INIT;
	size_t i;
	int pass;

	/* the lists first, then the people (both in the selection's order) */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < sel->nr_entries; i++) {
			const struct maintainers_entry *e = &sel->entries[i];
			struct address a;
			const char *role;

			if ((e->kind == MAINTAINERS_LIST) != (pass == 0))
				continue;
			if (e->kind == MAINTAINERS_LIST) {
				if (!cfg->route_lists)
					continue;
				role = "list";
			} else if (e->kind == MAINTAINERS_MAINTAINER) {
				if (!cfg->route_maintainers)
					continue;
				role = "maintainer";
			} else {
				if (!cfg->route_reviewers)
					continue;
				role = "reviewer";
			}
			a.name = e->name;
			a.email = e->address;
			buf_reset(&why);
			if (address_check(&a, &why) < 0) {
				if (notes)
					buf_addf(notes, "%s:%u: %s %s of %s skipped: %s\n", cfg->route_file,
						 e->section->line, role, e->address, e->section->name, why.data);
				continue;
			}
			a.name = xstrdup(e->name);
			a.email = xstrdup(e->address);
			buf_reset(&reason);
			buf_addf(&reason, "%s: %s", role, e->section->name);
			cand_add(c, &a, reason.data, pass == 0);
		}
	}
	buf_release(&reason);
	buf_release(&why);
}

int recipients_excluded(const struct config *cfg, const char *email)
{
	const char *at = strrchr(email, '@');
	size_t i;

	for (i = 0; i < cfg->route_exclude.nr; i++) {
		const char *x = cfg->route_exclude.v[i];

		if (x[0] == '*' ? at && !strcasecmp(x + 1, at) : !strcasecmp(x, email))
			return 1;
	}
	return 0;
}

static void drop(struct cand *c, const char *because)
{
	c->because = xstrdup(because);
}

static void apply_exclusions(struct cands *c, const struct recipients_input *in)
{
	struct buf b = BUF_INIT;
	size_t i, j;

	for (i = 0; i < c->nr; i++) {
		if (recipients_excluded(in->cfg, c->v[i].a.email)) {
			drop(&c->v[i], "excluded by route.exclude");
			continue;
		}
		for (j = 0; j < in->nr_excluded; j++) {
			const struct recipients_exclusion *x = &in->excluded[j];
			struct date_civil d;

			if (strcasecmp(x->address, c->v[i].a.email))
				continue;
			date_to_civil(x->date, 0, &d);
			buf_reset(&b);
			buf_addf(&b, "unsubscribed %04lld-%02d-%02d by %s", (long long)d.year, d.month, d.day,
				 x->who);
			drop(&c->v[i], b.data);
			break;
		}
	}
	buf_release(&b);
}

/* The candidate that becomes To: the author, else the first list left,
 * else the first person left; -1 when nobody is left. */
static long choose_to(const struct cands *c)
{
	size_t i;
	int pass;

	if (!c->v[0].because)
		return 0;
	for (pass = 1; pass >= 0; pass--)
		for (i = 1; i < c->nr; i++)
			if (!c->v[i].because && c->v[i].why.is_list == pass)
				return (long)i;
	return -1;
}

static void apply_cap(struct cands *c, size_t to, int max)
{
	struct buf b = BUF_INIT;
	size_t in = 0, i;
	int pass;

	buf_addf(&b, "maxRecipients (%d)", max);
	for (i = 0; i < c->nr; i++)
		in += !c->v[i].because;
	/* people from the end first, then lists from the end */
	for (pass = 0; pass < 2 && in > (size_t)max; pass++) {
		for (i = c->nr; i-- > 0 && in > (size_t)max;) {
			if (i == to || c->v[i].because || c->v[i].why.is_list != pass)
				continue;
			drop(&c->v[i], b.data);
			in--;
		}
	}
	buf_release(&b);
}

static void cands_release(struct cands *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		address_release(&c->v[i].a);
		recipient_why_release(&c->v[i].why);
		free(c->v[i].because);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int recipients_build(const struct recipients_input *in, struct recipients *out,
		     struct buf *notes, struct buf *err)
{
	const struct config *cfg = in->cfg;
	const struct config_tree *tree = config_tree(cfg, in->tree_name);
	struct buf text = BUF_INIT;
	struct cands c = { 0 };
	struct address a;
	size_t i, alloc_dropped = 0;
	long to;

	memset(out, 0, sizeof(*out));
	buf_addf(&text, "%s <%s>", in->head->author_name, in->head->author_email);
	if (address_parse(text.data, &a, err) < 0) {
		buf_release(&text);
		return err_prefix(err, "the author of commit %.12s: ", in->head->id);
	}
	cand_add(&c, &a, "author", 0);
	buf_reset(&text);
	buf_addf(&text, "tree %s cc", in->tree_name);
	if (add_configured(&c, cfg->cc.v, cfg->cc.nr, "perfbot.cc", "perfbot.cc", err) < 0 ||
	    (tree && add_configured(&c, tree->cc.v, tree->cc.nr, "tree.cc", text.data, err) < 0))
		goto fail;
	if (cfg->cc_trailers)
		add_trailers(&c, in->head, notes);
	if (in->route)
		add_route(&c, cfg, in->route, notes);
	apply_exclusions(&c, in);
	to = choose_to(&c);
	if (to < 0) {
		err_set(err, "commit %.12s: no recipient is left: every candidate is excluded "
			"(route.exclude, #perfbot unsubscribe)", in->head->id);
		goto fail;
	}
	apply_cap(&c, (size_t)to, cfg->max_recipients);

	out->cc = xcalloc(c.nr, sizeof(*out->cc));
	out->cc_why = xcalloc(c.nr, sizeof(*out->cc_why));
	for (i = 0; i < c.nr; i++) {
		struct cand *k = &c.v[i];

		if (k->because) {
			struct recipient_dropped *d;

			ALLOC_GROW(out->dropped, out->nr_dropped + 1, alloc_dropped);
			d = &out->dropped[out->nr_dropped++];
			d->addr = k->a;
			d->why = k->why;
			d->because = k->because;
		} else if (i == (size_t)to) {
			out->to = k->a;
			out->to_why = k->why;
		} else {
			out->cc[out->nr_cc] = k->a;
			out->cc_why[out->nr_cc] = k->why;
			out->nr_cc++;
		}
	}
	free(c.v);
	buf_release(&text);
	return 0;
fail:
	cands_release(&c);
	buf_release(&text);
	recipients_release(out);
	return -1;
}

void recipients_release(struct recipients *r)
{
	size_t i;

	address_release(&r->to);
	recipient_why_release(&r->to_why);
	for (i = 0; i < r->nr_cc; i++) {
		address_release(&r->cc[i]);
		recipient_why_release(&r->cc_why[i]);
	}
	free(r->cc);
	free(r->cc_why);
	for (i = 0; i < r->nr_dropped; i++) {
		address_release(&r->dropped[i].addr);
		recipient_why_release(&r->dropped[i].why);
		free(r->dropped[i].because);
	}
	free(r->dropped);
	memset(r, 0, sizeof(*r));
}
