#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	c->templates = xstrdup(PERFBOT_TEMPLATE_DIR);
	c->template_name = xstrdup("report");
	c->cc_trailers = 1;
	c->max_recipients = 20;
	c->max_per_hour = 60;
	c->coalesce_minutes = 30;
	c->retry_minutes = 5;
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
	return c;
}

static void tree_release(struct config_tree *t)
{
	size_t i;

	free(t->name);
	free(t->url);
	for (i = 0; i < t->nr_cc; i++)
		free(t->cc[i]);
	free(t->cc);
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
	free(c->templates);
	free(c->template_name);
	free(c->signature);
	for (i = 0; i < c->nr_cc; i++)
		free(c->cc[i]);
	free(c->cc);
	free(c->redirect_to);
	free(c->state);
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

	/* both lists are in the order DESIGN.md gives: "the first matching
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

#define STR(k, field) \
	if (!strcmp(key, k)) { \
		if (need_text(name, value, err) < 0) \
			return -1; \
		set_str(&c->field, value); \
		return 0; \
	}

static int read_perfbot(struct config *c, const char *name, const char *key, const char *value,
			struct buf *err)
{
	STR("from", from)
	STR("reportedby", reported_by)
	STR("closesurl", closes_url)
	STR("repo", repo)
	STR("templates", templates)
	STR("signature", signature)
	STR("redirectto", redirect_to)
	STR("state", state)
	if (!strcmp(key, "artifactsurl")) {
		if (value && *value && need_text(name, value, err) < 0)
			return -1;
		set_str(&c->artifacts_url, value ? value : "");
		return 0;
	}
	if (!strcmp(key, "messageidtag")) {
		const char *p;

		if (need_text(name, value, err) < 0)
			return -1;
		for (p = value; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", *p))
				return err_set(err, "%s: '%s' may hold only letters, digits, '.', '-' and '_'",
					       name, value);
		set_str(&c->message_id_tag, value);
		return 0;
	}
	if (!strcmp(key, "template")) {
		if (need_text(name, value, err) < 0)
			return -1;
		if (strchr(value, '/') || value[0] == '.')
			return err_set(err, "%s: '%s' is a template name (a file NAME.txt in perfbot.templates), not a path",
				       name, value);
		set_str(&c->template_name, value);
		return 0;
	}
	if (!strcmp(key, "timezone")) {
		if (!value || date_parse_zone(value, &c->timezone, err) < 0)
			return err_prefix(err, "%s: ", name);
		return 0;
	}
	if (!strcmp(key, "cc")) {
		if (need_text(name, value, err) < 0)
			return -1;
		push_str(&c->cc, &c->nr_cc, value);
		return 0;
	}
	if (!strcmp(key, "cctrailers"))
		return parse_bool(name, value, &c->cc_trailers, err);
	if (!strcmp(key, "paused"))
		return parse_bool(name, value, &c->paused, err);
	if (!strcmp(key, "maxrecipients"))
		return parse_int(name, value, 1, 1000, &c->max_recipients, err);
	if (!strcmp(key, "maxperhour"))
		return parse_int(name, value, 0, 1000000, &c->max_per_hour, err);
	if (!strcmp(key, "coalesceminutes"))
		return parse_int(name, value, 0, 10080, &c->coalesce_minutes, err);
	if (!strcmp(key, "retryminutes"))
		return parse_int(name, value, 0, 10080, &c->retry_minutes, err);
	return err_set(err, "%s: unknown key (see config/perfbot.conf.example for the keys perfbot reads)", name);
}

static int read_smtp(struct config *c, const char *name, const char *key, const char *value,
		     struct buf *err)
{
	STR("server", smtp_server)
	STR("user", smtp_user)
	STR("passwordfile", smtp_password_file)
	STR("cafile", smtp_ca_file)
	if (!strcmp(key, "port"))
		return parse_int(name, value, 1, 65535, &c->smtp_port, err);
	if (!strcmp(key, "timeout"))
		return parse_int(name, value, 1, 3600, &c->smtp_timeout, err);
	if (!strcmp(key, "encryption")) {
		if (value && !strcmp(value, "starttls"))
			c->smtp_encryption = SMTP_STARTTLS;
		else if (value && !strcmp(value, "ssl"))
			c->smtp_encryption = SMTP_SSL;
		else if (value && !strcmp(value, "none"))
			c->smtp_encryption = SMTP_NONE;
		else
			return err_set(err, "%s: '%s' is not one of starttls, ssl, none", name,
				       value ? value : "");
		return 0;
	}
	return err_set(err, "%s: unknown key (see config/perfbot.conf.example for the keys perfbot reads)", name);
}

/* gitconfig_read()'s callback: data is the config being filled. */
static int read_entry(const char *name, const char *value, void *data, struct buf *err)
{
	struct config *c = data;
	const char *dot, *key;

	dot = strchr(name, '.');
	key = strrchr(name, '.') + 1;
	if (!strncmp(name, "perfbot.", 8) && dot == key - 1)
		return read_perfbot(c, name, key, value, err) < 0 ? -1 : 0;
	if (!strncmp(name, "smtp.", 5) && dot == key - 1)
		return read_smtp(c, name, key, value, err) < 0 ? -1 : 0;
	if (!strncmp(name, "ingest.", 7) && dot == key - 1) {
		STR("maildir", ingest_maildir)
		STR("imap", ingest_imap)
		STR("passwordfile", ingest_password_file)
		STR("cafile", ingest_ca_file)
		if (!strcmp(key, "timeout"))
			return parse_int(name, value, 1, 3600, &c->ingest_timeout, err) < 0 ? -1 : 0;
		err_set(err, "%s: unknown key (see config/perfbot.conf.example)", name);
		return -1;
	}
	if (!strncmp(name, "polarity.", 9) && dot == key - 1) {
		if (!strcmp(key, "builtin"))
			return parse_bool(name, value, &c->polarity_builtin, err) < 0 ? -1 : 0;
		if (strcmp(key, "higher") && strcmp(key, "lower"))
			return err_set(err, "%s: unknown key (polarity.higher, polarity.lower or polarity.builtin)",
				       name);
		if (need_text(name, value, err) < 0)
			return -1;
		return polarity_add(c, value, !strcmp(key, "higher"), err);
	}
	if (!strncmp(name, "tree.", 5) && dot != key - 1) {
		struct config_tree *t = tree_get(c, dot + 1, (size_t)(key - 1 - (dot + 1)));

		if (!strcmp(key, "url")) {
			if (need_text(name, value, err) < 0)
				return -1;
			set_str(&t->url, value);
			return 0;
		}
		if (!strcmp(key, "cc")) {
			if (need_text(name, value, err) < 0)
				return -1;
			push_str(&t->cc, &t->nr_cc, value);
			return 0;
		}
		return err_set(err, "%s: unknown key (tree.NAME.url or tree.NAME.cc)", name);
	}
	if (!strncmp(name, "perfbot.", 8) || !strncmp(name, "smtp.", 5) ||
	    !strncmp(name, "ingest.", 7) || !strncmp(name, "polarity.", 9))
		return err_set(err, "%s: perfbot's sections take no subsection", name);
	/* other sections (include.*, a user's own) are not perfbot's */
	return 0;
}
#undef STR

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
