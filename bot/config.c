#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "address.h"
#include "config.h"
#include "gitconfig.h"
#include "date.h"
#include "xalloc.h"
#include "banned.h"

#ifndef PERFBOT_TEMPLATE_DIR
#define PERFBOT_TEMPLATE_DIR "/usr/local/share/perfbot/templates"
#endif

/* The built-in polarity table: the rows of config/polarity.tbl, in file
 * order (bot/polarity-table.h is generated from it by the Makefile). */
static const struct {
	const char *pattern;
	int higher;
} builtin_rows[] = {
#include "polarity-table.h"
};

/* builtin_rows compiled, higher ones first: made once, at the first use,
 * so that commands that never need a polarity do not pay for ~260
 * regcomp() calls (about a millisecond). */
static struct config_polarity *builtin_table;
static size_t builtin_nr;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void set_str(char **slot, const char *value)
{
	free(*slot);
	*slot = value ? xstrdup(value) : NULL;
}

static void push_str(char ***list, size_t *nr, const char *value)
{
	*list = xrealloc(*list, (*nr + 1) * sizeof(**list));
	(*list)[(*nr)++] = xstrdup(value);
}

/* Compiles pattern, anchored to the whole name, into *p. */
static int polarity_compile(struct config_polarity *p, const char *pattern, int higher,
			    struct buf *err)
{
	struct buf anchored = BUF_INIT;
	int r;

	buf_addf(&anchored, "^(%s)$", pattern);
	r = regcomp(&p->re, anchored.data, REG_EXTENDED | REG_NOSUB);
	buf_release(&anchored);
	if (r) {
		char msg[128];

		regerror(r, NULL, msg, sizeof(msg));
		return err_set(err, "polarity.%s: '%s' is not a POSIX extended regular expression: %s",
			       higher ? "higher" : "lower", pattern, msg);
	}
	p->pattern = xstrdup(pattern);
	p->higher = higher;
	return 0;
}

static int polarity_add(struct config *c, const char *pattern, int higher, struct buf *err)
{
	c->polarity = xrealloc(c->polarity, (c->nr_polarity + 1) * sizeof(*c->polarity));
	if (polarity_compile(&c->polarity[c->nr_polarity], pattern, higher, err) < 0)
		return -1;
	c->nr_polarity++;
	return 0;
}

/* "Higher patterns first": the configured ones are kept higher, then
 * lower, each in file order, so that config_polarity() tries them in
 * array order (and so does anything that lists them). */
static void polarity_order(struct config *c)
{
	struct config_polarity *sorted;
	size_t i, n = 0;
	int pass;

	if (!c->nr_polarity)
		return;
	sorted = xcalloc(c->nr_polarity, sizeof(*sorted));
	for (pass = 1; pass >= 0; pass--)
		for (i = 0; i < c->nr_polarity; i++)
			if (c->polarity[i].higher == pass)
				sorted[n++] = c->polarity[i];
	free(c->polarity);
	c->polarity = sorted;
}

static void builtin_compile(void)
{
	size_t i, n = sizeof(builtin_rows) / sizeof(builtin_rows[0]);
	int pass;

	builtin_table = xcalloc(n, sizeof(*builtin_table));
	/* tests/unit/test-polarity.c compiles every row, so regcomp() fails
	 * here only when memory runs out; such a row is left out, which can
	 * make a metric unknown (an error that says so) */
	for (pass = 1; pass >= 0; pass--)
		for (i = 0; i < n; i++)
			if (builtin_rows[i].higher == pass &&
			    polarity_compile(&builtin_table[builtin_nr], builtin_rows[i].pattern,
					     pass, NULL) == 0)
				builtin_nr++;
}

const struct config_polarity *config_polarity_builtin(size_t *nr)
{
	pthread_once(&builtin_once, builtin_compile);
	*nr = builtin_nr;
	return builtin_table;
}

/*
 * The shipped templates: the folder the build named (the source tree's, or
 * DATADIR's for `make install`), else, when that is not there (an install
 * moved elsewhere, or into a DESTDIR), ../share/perfbot/templates beside
 * the running binary.
 */
static char *shipped_templates(void)
{
	struct stat st;
	char exe[4096], *slash;
	ssize_t n;
	struct buf dir = BUF_INIT;

	if (stat(PERFBOT_TEMPLATE_DIR, &st) == 0 && S_ISDIR(st.st_mode))
		return xstrdup(PERFBOT_TEMPLATE_DIR);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			buf_addf(&dir, "%s/../share/perfbot/templates", exe);
			if (stat(dir.data, &st) == 0 && S_ISDIR(st.st_mode))
				return buf_detach(&dir, NULL);
			buf_release(&dir);
		}
	}
	return xstrdup(PERFBOT_TEMPLATE_DIR);
}

struct config *config_new_defaults(void)
{
	struct config *c = xcalloc(1, sizeof(*c));
	const char *home = getenv("HOME"), *xdg = getenv("XDG_STATE_HOME");
	struct buf state = BUF_INIT;

	c->from = xstrdup("perfbot <perfbot@localhost>");
	c->message_id_tag = xstrdup("perfbot");
	c->closes_url = xstrdup("https://lore.kernel.org/all/");
	c->artifacts_url = xstrdup("");
	c->repo = xstrdup(".");
	c->shipped_templates = shipped_templates();
	c->template_name = xstrdup("report");
	c->cc_trailers = 1;
	c->max_recipients = 20;
	c->max_per_hour = 60;
	c->site_max_samples = 1000;
	c->coalesce_minutes = 30;
	c->retry_minutes = 5;
	c->test_max_open = 3;
	c->test_max_per_day = 10;
	c->test_ref_prefix = xstrdup("refs/perfbot/tests/");
	c->test_fixed_ratio = 0.9;
	c->test_noise_percent = 1;
	c->test_partial_ratio = 0.2;
	if (xdg && *xdg == '/')
		buf_addf(&state, "%s/perfbot", xdg);
	else if (home && *home == '/')
		buf_addf(&state, "%s/.local/state/perfbot", home);
	else
		buf_adds(&state, "/var/lib/perfbot");
	c->state = buf_detach(&state, NULL);
	c->smtp_server = xstrdup("localhost");
	c->smtp_port = 587;
	c->smtp_encryption = SMTP_STARTTLS;
	c->smtp_timeout = 30;
	c->ingest_timeout = 60;
	c->polarity_builtin = 1;
	c->route_file = xstrdup("MAINTAINERS");
	c->route_lists = 1;
	return c;
}

static void list_release(struct config_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void tree_release(struct config_tree *t)
{
	free(t->name);
	free(t->url);
	free(t->ref);
	list_release(&t->cc);
}

void config_free(struct config *c)
{
	size_t i;

	if (!c)
		return;
	free(c->path);
	free(c->from);
	free(c->reported_by);
	free(c->message_id_tag);
	free(c->closes_url);
	free(c->artifacts_url);
	free(c->repo);
	list_release(&c->templates);
	free(c->shipped_templates);
	free(c->template_name);
	free(c->signature);
	free(c->disclaimer);
	list_release(&c->cc);
	free(c->redirect_to);
	free(c->state);
	free(c->spool_group);
	free(c->smtp_helo_name);
	list_release(&c->digest_to);
	list_release(&c->ingest_nntp);
	free(c->site_dir);
	free(c->site_url);
	free(c->site_archive_url);
	free(c->test_ref_prefix);
	for (i = 0; i < c->nr_trees; i++)
		tree_release(&c->trees[i]);
	free(c->trees);
	free(c->smtp_server);
	free(c->smtp_user);
	free(c->smtp_password_file);
	free(c->smtp_ca_file);
	free(c->ingest_maildir);
	free(c->ingest_imap);
	free(c->ingest_password_file);
	free(c->ingest_ca_file);
	for (i = 0; i < c->nr_polarity; i++) {
		free(c->polarity[i].pattern);
		regfree(&c->polarity[i].re);
	}
	free(c->polarity);
	free(c->route_file);
	list_release(&c->route_exclude);
	list_release(&c->commands_trusted);
	free(c);
}

const struct config_tree *config_tree(const struct config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_trees; i++)
		if (!strcmp(c->trees[i].name, name))
			return &c->trees[i];
	return NULL;
}

static struct config_tree *tree_get(struct config *c, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < c->nr_trees; i++)
		if (strlen(c->trees[i].name) == len && !strncmp(c->trees[i].name, name, len))
			return &c->trees[i];
	c->trees = xrealloc(c->trees, (c->nr_trees + 1) * sizeof(*c->trees));
	memset(&c->trees[c->nr_trees], 0, sizeof(c->trees[0]));
	c->trees[c->nr_trees].name = xstrndup(name, len);
	return &c->trees[c->nr_trees++];
}

static int polarity_find(const struct config_polarity *p, size_t nr, const char *metric)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!regexec(&p[i].re, metric, 0, NULL, 0))
			return p[i].higher ? 1 : -1;
	return 0;
}

int config_polarity(const struct config *c, const char *metric)
{
	const struct config_polarity *builtin;
	size_t nr;
	int r;

	/* both lists are in the order perfbot-config(5) gives: "the first matching
	 * pattern wins, higher patterns first, configured patterns before
	 * the built-in table" */
	r = polarity_find(c->polarity, c->nr_polarity, metric);
	if (r || !c->polarity_builtin)
		return r;
	builtin = config_polarity_builtin(&nr);
	return polarity_find(builtin, nr, metric);
}

static int parse_int(const char *key, const char *value, int min, int max, int *out, struct buf *err)
{
	char *end;
	long v;

	errno = 0;
	v = value ? strtol(value, &end, 10) : 0;
	if (!value || errno || end == value || *end || v < min || v > max)
		return err_set(err, "%s: '%s' is not a whole number from %d to %d", key,
			       value ? value : "", min, max);
	*out = (int)v;
	return 0;
}

static int parse_bool(const char *key, const char *value, int *out, struct buf *err)
{
	int b;

	if (!value) {	/* "[perfbot] paused" alone means true, as in git */
		*out = 1;
		return 0;
	}
	if (gitconfig_bool(value, &b) < 0)
		return err_set(err, "%s: '%s' is not a boolean (true/false/yes/no/on/off/1/0)", key, value);
	*out = b;
	return 0;
}

/* Strings that may reach a header, a URL in the body or a path. */
static int need_text(const char *key, const char *value, struct buf *err)
{
	const unsigned char *p;

	if (!value || !*value)
		return err_set(err, "%s: needs a value", key);
	for (p = (const unsigned char *)value; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return err_set(err, "%s: control character in value", key);
	return 0;
}

/* ---- the keys whose values need more than a type's checks ---- */

static int read_artifacts_url(struct config *c, void *field, const char *name,
			      const char *value, struct buf *err)
{
	(void)c;
	if (value && *value && need_text(name, value, err) < 0)
		return -1;
	set_str(field, value ? value : "");
	return 0;
}

static int read_message_id_tag(struct config *c, void *field, const char *name,
			       const char *value, struct buf *err)
{
	const char *p;

	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	for (p = value; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", *p))
			return err_set(err, "%s: '%s' may hold only letters, digits, '.', '-' and '_'",
				       name, value);
	set_str(field, value);
	return 0;
}

static int read_template(struct config *c, void *field, const char *name, const char *value,
			 struct buf *err)
{
	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	if (strchr(value, '/') || value[0] == '.')
		return err_set(err, "%s: '%s' is a template name (a file NAME.txt in perfbot.templates), not a path",
			       name, value);
	set_str(field, value);
	return 0;
}

static int read_timezone(struct config *c, void *field, const char *name, const char *value,
			 struct buf *err)
{
	(void)c;
	if (!value || date_parse_zone(value, field, err) < 0)
		return err_prefix(err, "%s: ", name);
	return 0;
}

static int read_encryption(struct config *c, void *field, const char *name, const char *value,
			   struct buf *err)
{
	enum smtp_encryption *e = field;

	(void)c;
	if (value && !strcmp(value, "starttls"))
		*e = SMTP_STARTTLS;
	else if (value && !strcmp(value, "ssl"))
		*e = SMTP_SSL;
	else if (value && !strcmp(value, "none"))
		*e = SMTP_NONE;
	else
		return err_set(err, "%s: '%s' is not one of starttls, ssl, none", name,
			       value ? value : "");
	return 0;
}

/* A host name for EHLO: labels of letters, digits and '-', or an address
 * literal in brackets; the SMTP client checks it again. */
static int read_helo_name(struct config *c, void *field, const char *name, const char *value,
			  struct buf *err)
{
	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	if (strlen(value) > 253 || strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789.-[]:") != strlen(value))
		return err_set(err, "%s: '%s' is not a host name (or [address literal])", name, value);
	set_str(field, value);
	return 0;
}

/* Text for the body of a mail, which may run over several lines ("\n" in
 * the file): no control characters but line breaks and TABs. */
static int read_paragraph(struct config *c, void *field, const char *name, const char *value,
			  struct buf *err)
{
	const unsigned char *p;

	(void)c;
	if (!value || !*value)
		return err_set(err, "%s: needs a value", name);
	for (p = (const unsigned char *)value; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			return err_set(err, "%s: control character in value", name);
	set_str(field, value);
	return 0;
}

int config_ref_name_valid(const char *ref)
{
	const unsigned char *p;
	size_t n = strlen(ref);

	if (strncmp(ref, "refs/", 5) || n == 5 || strstr(ref, "..") || strstr(ref, "//") ||
	    strstr(ref, "/.") || strstr(ref, "@{") || ref[n - 1] == '/' || ref[n - 1] == '.' ||
	    (n >= 5 && !strcmp(ref + n - 5, ".lock")))
		return 0;
	for (p = (const unsigned char *)ref; *p; p++)
		if (*p <= 0x20 || *p == 0x7f || strchr("~^:?*[\\", *p))
			return 0;
	return 1;
}

static int read_ref(struct config *c, void *field, const char *name, const char *value,
		    struct buf *err)
{
	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	if (!config_ref_name_valid(value))
		return err_set(err, "%s: '%s' is not a full ref name (refs/remotes/NAME/BRANCH, refs/heads/...)",
			       name, value);
	set_str(field, value);
	return 0;
}

/* test.refPrefix: a full ref name ending in '/' (the request's number
 * follows). */
static int read_ref_prefix(struct config *c, void *field, const char *name, const char *value,
			   struct buf *err)
{
	struct buf ref = BUF_INIT;
	int valid;

	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	buf_addf(&ref, "%s1", value);
	valid = value[strlen(value) - 1] == '/' && !strncmp(value, "refs/", 5) &&
		config_ref_name_valid(ref.data);
	buf_release(&ref);
	if (!valid)
		return err_set(err, "%s: '%s' is not a ref prefix (refs/.../, ending in '/')", name,
			       value);
	set_str(field, value);
	return 0;
}

/* test.fixedRatio, test.noisePercent, test.partialRatio: a decimal number
 * from 0 to 100 ("0.9", "1", "2.5"). */
static int read_number(struct config *c, void *field, const char *name, const char *value,
		       struct buf *err)
{
	char *end;
	double d;

	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	errno = 0;
	d = strtod(value, &end);
	if (errno || *end || end == value || !strchr("0123456789", *value) || !(d >= 0 && d <= 100))
		return err_set(err, "%s: '%s' is not a number from 0 to 100 (such as 0.9)", name, value);
	*(double *)field = d;
	return 0;
}

static int read_polarity(struct config *c, const char *name, const char *value, int higher,
			 struct buf *err)
{
	if (need_text(name, value, err) < 0)
		return -1;
	return polarity_add(c, value, higher, err);
}

static int read_higher(struct config *c, void *field, const char *name, const char *value,
		       struct buf *err)
{
	(void)field;
	return read_polarity(c, name, value, 1, err);
}

static int read_lower(struct config *c, void *field, const char *name, const char *value,
		      struct buf *err)
{
	(void)field;
	return read_polarity(c, name, value, 0, err);
}

/* route.maintainersFile: a path inside the head commit's tree (no leading
 * '/', no empty, "." or ".." part), or "none". */
static int read_route_file(struct config *c, void *field, const char *name, const char *value,
			   struct buf *err)
{
	const char *p;

	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	if (!strcmp(value, "none")) {
		set_str(field, NULL);
		return 0;
	}
	for (p = value; *p; ) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return err_set(err, "%s: '%s' is not a path inside the repository's tree "
				       "(such as MAINTAINERS or docs/MAINTAINERS), nor \"none\"", name, value);
		p += n;
		if (*p == '/' && !*++p)
			return err_set(err, "%s: '%s' names a directory, not a file", name, value);
	}
	set_str(field, value);
	return 0;
}

static char *ascii_lower(const char *s)
{
	char *l = xstrdup(s), *p;

	for (p = l; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return l;
}

/* route.exclude: an address ("Name <a@b>" is read as a@b) or "*@domain",
 * kept as "local@domain" / "*@domain" in lowercase. */
static int read_exclude(struct config *c, void *field, const char *name, const char *value,
			struct buf *err)
{
	struct config_list *l = field;
	struct address a;
	struct buf probe = BUF_INIT, why = BUF_INIT;
	int wildcard;

	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	wildcard = !strncmp(value, "*@", 2);
	if (wildcard)
		buf_addf(&probe, "x%s", value + 1);
	else
		buf_adds(&probe, value);
	if (address_parse(probe.data, &a, &why) < 0) {
		err_set(err, "%s: '%s' is neither an address nor *@domain: %s", name, value, why.data);
		buf_release(&probe);
		buf_release(&why);
		return -1;
	}
	buf_reset(&probe);
	buf_adds(&probe, wildcard ? "*" : "");
	buf_adds(&probe, wildcard ? strchr(a.email, '@') : a.email);
	l->v = xrealloc(l->v, (l->nr + 1) * sizeof(*l->v));
	l->v[l->nr++] = ascii_lower(probe.data);
	address_release(&a);
	buf_release(&probe);
	buf_release(&why);
	return 0;
}

/* commands.trusted: "*", or a pattern of one address ('*', '?' and [...]
 * as in the shell; case ignored). */
static int read_trusted(struct config *c, void *field, const char *name, const char *value,
			struct buf *err)
{
	struct config_list *l = field;
	const char *at;

	(void)c;
	if (need_text(name, value, err) < 0)
		return -1;
	at = strchr(value, '@');
	if (strcmp(value, "*") && (!at || at == value || !at[1] || strchr(at + 1, '@') ||
				   strpbrk(value, " <>,;")))
		return err_set(err, "%s: '%s' is not an address pattern (such as jane@example.org, "
			       "*@kernel.org, or * for anyone)", name, value);
	l->v = xrealloc(l->v, (l->nr + 1) * sizeof(*l->v));
	l->v[l->nr++] = xstrdup(value);
	return 0;
}

/* ---- the table ---- */

#define KEY(sec, key, type, field, def, doc) \
	{ sec, key, type, offsetof(struct config, field), 0, 0, NULL, def, doc }
#define INT(sec, key, field, lo, hi, def, doc) \
	{ sec, key, CONFIG_INT, offsetof(struct config, field), lo, hi, NULL, def, doc }
#define FN(sec, key, fn, field, def, doc) \
	{ sec, key, CONFIG_CUSTOM, offsetof(struct config, field), 0, 0, fn, def, doc }
#define TREE(key, type, field, def, doc) \
	{ "tree", key, type, offsetof(struct config_tree, field), 0, 0, NULL, def, doc }
#define TREE_FN(key, fn, field, def, doc) \
	{ "tree", key, CONFIG_CUSTOM, offsetof(struct config_tree, field), 0, 0, fn, def, doc }

static const struct config_key keys[] = {
	KEY("perfbot", "from", CONFIG_TEXT, from, "perfbot <perfbot@localhost>",
	    "the sender of every mail (its display name greets in the shipped report)"),
	KEY("perfbot", "reportedBy", CONFIG_TEXT, reported_by, "the value of from",
	    "the person in the \"Reported-by:\" tag of regression reports"),
	FN("perfbot", "messageIdTag", read_message_id_tag, message_id_tag, "perfbot",
	   "the TAG of Message-IDs <YYYYMMDDhhmm.HASH8-TAG@DOMAIN>"),
	KEY("perfbot", "closesUrl", CONFIG_TEXT, closes_url, "https://lore.kernel.org/all/",
	    "the prefix of the \"Closes:\" link (the Message-ID is appended)"),
	FN("perfbot", "artifactsUrl", read_artifacts_url, artifacts_url, "empty",
	   "where a report's materials are (%D the Message-ID's date, %M the Message-ID)"),
	FN("perfbot", "timezone", read_timezone, timezone, "+0000",
	   "the zone of Date and of the Message-ID's date part"),
	KEY("perfbot", "repo", CONFIG_TEXT, repo, ".",
	    "the git repository commits are resolved in"),
	KEY("perfbot", "templates", CONFIG_TEXT_LIST, templates, "the shipped templates",
	    "a folder of templates; several are searched in order, the shipped ones last"),
	FN("perfbot", "template", read_template, template_name, "report",
	   "the template reports are rendered with"),
	FN("perfbot", "signature", read_paragraph, signature, "the display name of from",
	   "the lab's signature under reports (\\n starts a line)"),
	FN("perfbot", "disclaimer", read_paragraph, disclaimer, "none",
	   "a paragraph printed above the signature of reports (\\n starts a line)"),
	KEY("perfbot", "cc", CONFIG_TEXT_LIST, cc, "none", "always Cc'd (several allowed)"),
	KEY("perfbot", "ccTrailers", CONFIG_BOOL, cc_trailers, "true",
	    "also Cc the people in the head commit's trailers"),
	INT("perfbot", "maxRecipients", max_recipients, 1, 1000, "20",
	    "at most this many recipients, To and Cc together"),
	KEY("perfbot", "redirectTo", CONFIG_TEXT, redirect_to, "unset",
	    "staging: deliver every mail to this address instead"),
	INT("perfbot", "maxPerHour", max_per_hour, 0, 1000000, "60",
	    "at most this many mails an hour"),
	KEY("perfbot", "paused", CONFIG_BOOL, paused, "false", "while true, send delivers nothing"),
	INT("perfbot", "coalesceMinutes", coalesce_minutes, 0, 10080, "30",
	    "wait this long for more tests of the same head commit"),
	INT("perfbot", "retryMinutes", retry_minutes, 0, 10080, "5",
	    "the first wait after a temporary failure, doubling"),
	KEY("perfbot", "state", CONFIG_TEXT, state, "$XDG_STATE_HOME/perfbot, else ~/.local/state/perfbot",
	    "perfbot's state: spool/, state.db, archive/"),
	KEY("perfbot", "spoolGroup", CONFIG_TEXT, spool_group, "unset",
	    "a group whose members may queue into the spool (made group-writable, setgid)"),
	KEY("perfbot", "announceFixes", CONFIG_BOOL, announce_fixes, "false",
	    "perfbot track puts a notice in the report's thread when it finds the fix"),

	KEY("smtp", "server", CONFIG_TEXT, smtp_server, "localhost", "the server mail is sent through"),
	INT("smtp", "port", smtp_port, 1, 65535, "587", "its port"),
	FN("smtp", "encryption", read_encryption, smtp_encryption, "starttls",
	   "starttls, ssl (implicit TLS) or none (loopback only)"),
	KEY("smtp", "user", CONFIG_TEXT, smtp_user, "unset (no AUTH)", "the AUTH user"),
	KEY("smtp", "passwordFile", CONFIG_TEXT, smtp_password_file, "unset",
	    "the AUTH password, alone in a file of mode 0600"),
	KEY("smtp", "caFile", CONFIG_TEXT, smtp_ca_file, "the system trust",
	    "CA certificates to verify the server with"),
	INT("smtp", "timeout", smtp_timeout, 1, 3600, "30", "seconds any one read or write may take"),
	FN("smtp", "heloName", read_helo_name, smtp_helo_name, "the host's fully qualified name",
	   "the name perfbot gives in EHLO"),

	KEY("ingest", "maildir", CONFIG_TEXT, ingest_maildir, "unset",
	    "a Maildir ingest reads when given no source"),
	KEY("ingest", "imap", CONFIG_TEXT, ingest_imap, "unset",
	    "an IMAP mailbox read too (imaps://USER@HOST/MAILBOX)"),
	KEY("ingest", "nntp", CONFIG_TEXT_LIST, ingest_nntp, "none",
	    "news groups read too (nntps://HOST/GROUP; several allowed)"),
	KEY("ingest", "passwordFile", CONFIG_TEXT, ingest_password_file, "unset",
	    "the IMAP password, alone in a file of mode 0600"),
	KEY("ingest", "caFile", CONFIG_TEXT, ingest_ca_file, "the system trust",
	    "CA certificates to verify the IMAP server with"),
	INT("ingest", "timeout", ingest_timeout, 1, 3600, "60",
	    "seconds any one IMAP or NNTP read or write may take"),

	FN("polarity", "higher", read_higher, polarity, "none",
	   "higher is better for metrics matching this pattern (several allowed)"),
	FN("polarity", "lower", read_lower, polarity, "none",
	   "lower is better for metrics matching this pattern (several allowed)"),
	KEY("polarity", "builtin", CONFIG_BOOL, polarity_builtin, "true",
	    "also try the built-in table (config/polarity.tbl)"),

	FN("route", "maintainersFile", read_route_file, route_file, "MAINTAINERS",
	   "the MAINTAINERS file in the head commit's tree that routes reports; none: no routing"),
	KEY("route", "lists", CONFIG_BOOL, route_lists, "true",
	    "Cc the mailing lists (L:) of the sections the head commit touches"),
	KEY("route", "maintainers", CONFIG_BOOL, route_maintainers, "false",
	    "also Cc their maintainers (M:)"),
	KEY("route", "reviewers", CONFIG_BOOL, route_reviewers, "false",
	    "also Cc their reviewers (R:)"),
	FN("route", "exclude", read_exclude, route_exclude, "none",
	   "an address or *@domain perfbot never mails, To or Cc (several allowed)"),

	FN("commands", "trusted", read_trusted, commands_trusted, "none",
	   "an address pattern whose #perfbot commands count on any report; * for anyone (several allowed)"),

	TREE("url", CONFIG_TEXT, url, "unset", "the URL printed under the commit line"),
	TREE("cc", CONFIG_TEXT_LIST, cc, "none", "Cc'd on this tree's reports (several allowed)"),
	TREE_FN("ref", read_ref, ref, "refs/remotes/NAME/BRANCH for each branch of its reports",
		"the ref perfbot track watches for fixes (the lab's fetch updates it)"),

	KEY("digest", "to", CONFIG_TEXT_LIST, digest_to, "none",
	    "who gets perfbot digest (several allowed)"),

	KEY("site", "dir", CONFIG_TEXT, site_dir, "STATE/site",
	    "the folder perfbot site writes the web site into"),
	KEY("site", "url", CONFIG_TEXT, site_url, "unset",
	    "where the site is served, ending in /: the feeds' links, and each report's page in the digest"),
	KEY("site", "archiveUrl", CONFIG_TEXT, site_archive_url, "unset",
	    "a mail's link on the site is this followed by its Message-ID (e.g. a public-inbox URL)"),
	INT("site", "maxSamples", site_max_samples, 1, 100000, "1000",
	    "at most this many runs a chart draws of each commit"),

	KEY("test", "enabled", CONFIG_BOOL, test_enabled, "false",
	    "#perfbot test requests are taken (turn on when the lab's pipeline takes them)"),
	INT("test", "maxOpen", test_max_open, 0, 1000, "3",
	    "at most this many requests not yet answered per report"),
	INT("test", "maxPerDay", test_max_per_day, 0, 10000, "10",
	    "at most this many requests per requester in 24 hours"),
	FN("test", "refPrefix", read_ref_prefix, test_ref_prefix, "refs/perfbot/tests/",
	   "where the commits made for requests are kept in perfbot.repo (N appended)"),
	KEY("test", "acknowledge", CONFIG_BOOL, test_acknowledge, "false",
	    "an accepted request gets a one-line reply naming the commit made"),
	FN("test", "fixedRatio", read_number, test_fixed_ratio, "0.9",
	   "a result is fixed when the tested commit recovered this share of the regression"),
	FN("test", "noisePercent", read_number, test_noise_percent, "1",
	   "... or when its headline is within this many percent of the base"),
	FN("test", "partialRatio", read_number, test_partial_ratio, "0.2",
	   "partial from this share on; worse when it lost as much again"),
};

#undef KEY
#undef INT
#undef FN
#undef TREE
#undef TREE_FN

const struct config_key *config_keys(size_t *nr)
{
	*nr = sizeof(keys) / sizeof(keys[0]);
	return keys;
}

static int is_section(const char *section, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].section) == len && !strncmp(keys[i].section, section, len))
			return 1;
	return 0;
}

/* Sets the field k describes (base: the config, or a tree). */
static int key_set(struct config *c, const struct config_key *k, void *base, const char *name,
		   const char *value, struct buf *err)
{
	void *field = (char *)base + k->offset;
	struct config_list *l;

	switch (k->type) {
	case CONFIG_TEXT:
		if (need_text(name, value, err) < 0)
			return -1;
		set_str(field, value);
		return 0;
	case CONFIG_TEXT_LIST:
		if (need_text(name, value, err) < 0)
			return -1;
		l = field;
		push_str(&l->v, &l->nr, value);
		return 0;
	case CONFIG_BOOL:
		return parse_bool(name, value, field, err);
	case CONFIG_INT:
		return parse_int(name, value, k->min, k->max, field, err);
	case CONFIG_CUSTOM:
		return k->read(c, field, name, value, err);
	}
	return -1;
}

/*
 * gitconfig_read()'s callback: data is the config being filled.  name is
 * "section.key" or "section.subsection.key", section and key lowercased;
 * the table's names are matched without regard to case, as git does.
 */
static int read_entry(const char *name, const char *value, void *data, struct buf *err)
{
	struct config *c = data;
	const char *dot = strchr(name, '.'), *key = strrchr(name, '.') + 1;
	size_t seclen = (size_t)(dot - name), i;
	int sub = dot != key - 1;

	if (!is_section(name, seclen))
		return 0;	/* include.*, a user's own sections: not perfbot's */
	if (sub != (seclen == 4 && !strncmp(name, "tree", 4)))
		return err_set(err, sub ? "%s: perfbot's sections take no subsection"
				    : "%s: a tree's keys go in [tree \"NAME\"]", name);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct config_key *k = &keys[i];
		void *base = c;

		if (strlen(k->section) != seclen || strncmp(k->section, name, seclen) ||
		    strcasecmp(k->name, key))
			continue;
		if (sub)
			base = tree_get(c, dot + 1, (size_t)(key - 1 - (dot + 1)));
		return key_set(c, k, base, name, value, err) < 0 ? -1 : 0;
	}
	return err_set(err, "%s: unknown key (perfbot-config(5) lists the keys perfbot reads)", name);
}

int config_load(const char *path, struct config **out, struct buf *err)
{
	struct config *c = config_new_defaults();
	struct buf home = BUF_INIT;
	const char *env = getenv("PERFBOT_CONFIG");
	int r = 0;

	*out = NULL;
	if (!path && env && *env)
		path = env;
	if (!path && getenv("HOME")) {
		buf_addf(&home, "%s/.config/perfbot/config", getenv("HOME"));
		if (access(home.data, F_OK) == 0)
			path = home.data;
	}
	if (path) {
		r = gitconfig_read(path, read_entry, c, err);
		c->path = xstrdup(path);
	}
	polarity_order(c);
	buf_release(&home);
	if (r < 0) {
		config_free(c);
		return -1;
	}
	if (!c->reported_by)
		c->reported_by = xstrdup(c->from);
	*out = c;
	return 0;
}
