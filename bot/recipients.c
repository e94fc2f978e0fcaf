#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Appends a (taking it over) unless it is the author or already there. */
static void cc_add(struct recipients *r, struct address *a, size_t *alloc)
{
	size_t i;

	if (address_equal(a, &r->to)) {
		address_release(a);
		return;
	}
	for (i = 0; i < r->nr_cc; i++) {
		if (address_equal(a, &r->cc[i])) {
			address_release(a);
			return;
		}
	}
	ALLOC_GROW(r->cc, r->nr_cc + 1, *alloc);
	r->cc[r->nr_cc++] = *a;
}

static int add_configured(struct recipients *r, size_t *alloc, char *const *list, size_t n,
			  const char *key, struct buf *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct address *as = NULL;
		size_t na = 0, j;

		if (address_list_parse(list[i], &as, &na, err) < 0)
			return err_prefix(err, "%s: ", key);
		for (j = 0; j < na; j++)
			cc_add(r, &as[j], alloc);
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

int recipients_build(const struct config *cfg, const char *tree_name,
		     const struct commit_info *head, struct recipients *out,
		     struct buf *notes, struct buf *err)
{
	const struct config_tree *tree = config_tree(cfg, tree_name);
	struct buf text = BUF_INIT;
	size_t alloc = 0, i, keep;

	memset(out, 0, sizeof(*out));
	buf_addf(&text, "%s <%s>", head->author_name, head->author_email);
	if (address_parse(text.data, &out->to, err) < 0) {
		buf_release(&text);
		return err_prefix(err, "the author of commit %.12s: ", head->id);
	}
	buf_release(&text);
	if (add_configured(out, &alloc, cfg->cc.v, cfg->cc.nr, "perfbot.cc", err) < 0)
		goto fail;
	if (tree && add_configured(out, &alloc, tree->cc.v, tree->cc.nr, "tree.cc", err) < 0)
		goto fail;
	for (i = 0; cfg->cc_trailers && i < head->nr_trailers; i++) {
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
			cc_add(out, &a, &alloc);
		}
		free(addr);
		buf_release(&why);
	}
	keep = cfg->max_recipients > 1 ? (size_t)cfg->max_recipients - 1 : 0;
	for (i = keep; i < out->nr_cc; i++) {
		if (notes)
			buf_addf(notes, "Cc %s dropped: perfbot.maxRecipients is %d\n", out->cc[i].email,
				 cfg->max_recipients);
		address_release(&out->cc[i]);
	}
	if (out->nr_cc > keep)
		out->nr_cc = keep;
	return 0;
fail:
	recipients_release(out);
	return -1;
}

void recipients_release(struct recipients *r)
{
	size_t i;

	address_release(&r->to);
	for (i = 0; i < r->nr_cc; i++)
		address_release(&r->cc[i]);
	free(r->cc);
	memset(r, 0, sizeof(*r));
}
