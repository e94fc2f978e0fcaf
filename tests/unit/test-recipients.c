#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "recipients.h"
#include "repo.h"
#include "xalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A head commit with the given trailers (key, value, person). */
static void head_init(struct commit_info *h, const char *const (*t)[3], size_t n)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	strcpy(h->id, "0123456789abcdef0123456789abcdef01234567");
	h->subject = xstrdup("mm: a change");
	h->author_name = xstrdup("Jane Doe");
	h->author_email = xstrdup("jane@example.org");
	h->trailers = xcalloc(n ? n : 1, sizeof(*h->trailers));
	for (i = 0; i < n; i++) {
		h->trailers[i].key = xstrdup(t[i][0]);
		h->trailers[i].value = xstrdup(t[i][1]);
		h->trailers[i].person = t[i][2] ? xstrdup(t[i][2]) : NULL;
	}
	h->nr_trailers = n;
}

static struct config *config_with(const char *const *cc, size_t ncc, int max)
{
	struct config *c = config_new_defaults();
	size_t i;

	c->cc.v = xcalloc(ncc ? ncc : 1, sizeof(*c->cc.v));
	for (i = 0; i < ncc; i++)
		c->cc.v[i] = xstrdup(cc[i]);
	c->cc.nr = ncc;
	if (max)
		c->max_recipients = max;
	return c;
}

/* "to | cc1, cc2, ..." */
static char *line(const struct recipients *r)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_addf(&b, "%s |", r->to.email);
	for (i = 0; i < r->nr_cc; i++)
		buf_addf(&b, "%s %s", i ? "," : "", r->cc[i].email);
	return buf_detach(&b, NULL);
}

static const char *const people[][3] = {
	{ "Signed-off-by", "Jane Doe <jane@example.org>", "Jane Doe <jane@example.org>" },
	{ "Acked-by", "Ann <ann@example.org>", "Ann <ann@example.org>" },
	{ "Link", "https://lore.kernel.org/r/x@y", NULL },
	{ "Reviewed-by", "Bob <bob@example.org> # v6.1+", "Bob <bob@example.org>" },
	{ "cc", "stable@vger.kernel.org # 6.1.x", NULL },
	{ "Tested-by", "LISTS@EXAMPLE.ORG", NULL },
	{ "Reported-by", "not an address", NULL },
	{ "Signed-off-by", "Ann Again <ANN@example.org>", "Ann Again <ANN@example.org>" },
};

static void order_and_dedup(void **state)
{
	const char *const cc[] = { "lists@example.org", "Other List <other@example.org>, jane@EXAMPLE.org" };
	struct config *c = config_with(cc, N(cc), 0);
	struct commit_info h;
	struct recipients r;
	struct buf notes = BUF_INIT, err = BUF_INIT;
	char *got;

	(void)state;
	head_init(&h, people, N(people));
	assert_int_equal(recipients_build(c, "linus", &h, &r, &notes, &err), 0);
	got = line(&r);
	/* configured lists first, then trailer people in trailer order; the
	 * author never in Cc, duplicates (any case) once; Link names nobody */
	assert_string_equal(got, "jane@example.org | lists@example.org, other@example.org, "
			    "ann@example.org, bob@example.org, stable@vger.kernel.org");
	assert_string_equal(r.to.name, "Jane Doe");
	/* an unusable trailer is skipped with a note, not an error */
	assert_non_null(strstr(notes.data, "Reported-by trailer skipped"));
	free(got);
	recipients_release(&r);
	commit_info_release(&h);
	config_free(c);
	buf_release(&notes);
	buf_release(&err);
}

static void trailers_off(void **state)
{
	struct config *c = config_with(NULL, 0, 0);
	struct commit_info h;
	struct recipients r;
	char *got;

	(void)state;
	c->cc_trailers = 0;
	head_init(&h, people, N(people));
	assert_int_equal(recipients_build(c, "linus", &h, &r, NULL, NULL), 0);
	got = line(&r);
	assert_string_equal(got, "jane@example.org |");
	free(got);
	recipients_release(&r);
	commit_info_release(&h);
	config_free(c);
}

static void cap_drops_people_last_first(void **state)
{
	const char *const cc[] = { "lists@example.org" };
	struct config *c = config_with(cc, N(cc), 3);
	struct commit_info h;
	struct recipients r;
	struct buf notes = BUF_INIT;
	char *got;

	(void)state;
	head_init(&h, people, N(people));
	assert_int_equal(recipients_build(c, "linus", &h, &r, &notes, NULL), 0);
	got = line(&r);
	/* To plus Cc at most 3: the list stays, the later people go */
	assert_string_equal(got, "jane@example.org | lists@example.org, ann@example.org");
	assert_non_null(strstr(notes.data, "Cc bob@example.org dropped: perfbot.maxRecipients is 3"));
	free(got);
	recipients_release(&r);
	commit_info_release(&h);
	config_free(c);
	buf_release(&notes);
}

static void bad_configured_address(void **state)
{
	const char *const cc[] = { "ok@example.org", "not an address" };
	struct config *c = config_with(cc, N(cc), 0);
	struct commit_info h;
	struct recipients r;
	struct buf err = BUF_INIT;

	(void)state;
	head_init(&h, NULL, 0);
	assert_int_equal(recipients_build(c, "linus", &h, &r, NULL, &err), -1);
	assert_non_null(strstr(err.data, "perfbot.cc: "));
	assert_int_equal(r.nr_cc, 0);
	commit_info_release(&h);
	config_free(c);
	buf_release(&err);
}

static void bad_author(void **state)
{
	struct config *c = config_with(NULL, 0, 0);
	struct commit_info h;
	struct recipients r;
	struct buf err = BUF_INIT;

	(void)state;
	head_init(&h, NULL, 0);
	free(h.author_email);
	h.author_email = xstrdup("jane@");
	assert_int_equal(recipients_build(c, "linus", &h, &r, NULL, &err), -1);
	assert_non_null(strstr(err.data, "the author of commit 0123456789ab: "));
	commit_info_release(&h);
	config_free(c);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order_and_dedup),
		cmocka_unit_test(trailers_off),
		cmocka_unit_test(cap_drops_people_last_first),
		cmocka_unit_test(bad_configured_address),
		cmocka_unit_test(bad_author),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
