/*
 * perfbot check [--smtp] [--imap] [--nntp URL] [--keys]: is this set-up able to work?
 * Reads and validates the configuration, opens the repository, compiles
 * the templates reports and follow-ups are rendered with, and looks at the
 * state directory and the password files; with --smtp and --imap it also
 * talks to the servers (TLS verified, EHLO and AUTH, QUIT; LOGIN, EXAMINE,
 * LOGOUT) without sending or changing anything.
 *
 * Prints what it looked at, one line each, on stdout, and one line
 * "problem: ..." per problem, saying what to do.  Exit 0 when there is
 * none, 78 when the configuration is at fault (a key, a file, a refused
 * certificate or password), else 75 when a server could not be reached.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "maintainers.h"
#include "source-imap.h"
#include "source-nntp.h"
#include "render.h"
#include "repo.h"
#include "secret.h"
#include "smtp.h"
#include "template.h"
#include "url.h"
#include "xalloc.h"
#include "banned.h"

struct check {
	int config_problems;	/* problems a change of set-up cures */
	int temporary;		/* a server that could not be reached */
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void problem(struct check *c, int temporary, const char *what, const char *why)
{
	printf("problem: %s: %s\n", what, why);
	if (temporary)
		c->temporary = 1;
	else
		c->config_problems++;
}

/* Whether reports of the repository's HEAD would be routed (perfbot-mail(7), Recipients):
 * a note, since routing is decided per head commit; a MAINTAINERS file
 * that cannot be parsed is a problem (every report of it would fail). */
static void check_routing(struct check *c, const struct config *cfg, struct repo *r)
{
	struct buf err = BUF_INIT, text = BUF_INIT, what = BUF_INIT;
	struct maintainers *m = NULL;
	char head[41], blob[41];
	int e;

	if (!cfg->route_file) {
		say("routing: off (route.maintainersFile is none)");
		return;
	}
	if (repo_head(r, head, &err) < 0) {
		say("routing: cannot look at HEAD (%s): reports are routed when their head commit's tree has %s",
		    err.data, cfg->route_file);
		goto out;
	}
	e = repo_tree_blob(r, head, cfg->route_file, blob, &err);
	if (e > 0) {
		say("routing: off for HEAD (%.12s): no %s in its tree (a report is routed when its head commit's tree has one)",
		    head, cfg->route_file);
		goto out;
	}
	buf_addf(&what, "route.maintainersFile %s in HEAD (%.12s)", cfg->route_file, head);
	if (e < 0 || repo_blob_read(r, blob, MAINTAINERS_MAX_SIZE, &text, &err) < 0 ||
	    maintainers_parse(cfg->route_file, &text, &m, &err) < 0) {
		problem(c, 0, what.data, err.data);
		goto out;
	}
	buf_reset(&what);
	if (cfg->route_lists)
		buf_adds(&what, "lists");
	if (cfg->route_maintainers)
		buf_addf(&what, "%smaintainers", what.len ? ", " : "");
	if (cfg->route_reviewers)
		buf_addf(&what, "%sreviewers", what.len ? ", " : "");
	say("routing: on for HEAD (%.12s): %s blob %.12s, %zu sections; reports Cc the sections' %s", head,
	    cfg->route_file, blob, maintainers_nr_sections(m),
	    what.len ? what.data : "nothing (route.lists, route.maintainers and route.reviewers are false)");
	if (*maintainers_notes(m))
		printf("%s", maintainers_notes(m));
out:
	maintainers_free(m);
	buf_release(&err);
	buf_release(&text);
	buf_release(&what);
}

static void check_repository(struct check *c, const struct config *cfg)
{
	struct buf err = BUF_INIT;
	struct repo *r;

	if (repo_open(cfg->repo, &r, &err) < 0) {
		problem(c, 0, "repository", err.data);
	} else {
		say("repository: %s: opened", cfg->repo);
		check_routing(c, cfg, r);
		repo_free(r);
	}
	buf_release(&err);
}

/* Every NAME.txt of one folder parses. */
static void check_folder(struct check *c, struct template_set *set, const char *dir,
			 size_t *count)
{
	struct buf err = BUF_INIT, name = BUF_INIT;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		buf_addf(&err, "%s: %s", dir, strerror(errno));
		problem(c, 0, "perfbot.templates", err.data);
		buf_release(&err);
		return;
	}
	while ((e = readdir(d))) {
		const struct template *t;
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".txt") || e->d_name[0] == '.')
			continue;
		buf_reset(&name);
		buf_add(&name, e->d_name, n - 4);
		if (!template_name_valid(name.data))
			continue;
		buf_reset(&err);
		if (template_set_get(set, name.data, &t, &err) < 0)
			problem(c, 0, "template", err.data);
		else
			(*count)++;
	}
	closedir(d);
	buf_release(&err);
	buf_release(&name);
}

static void check_templates(struct check *c, const struct config *cfg)
{
	struct template_set *set = render_template_set(cfg);
	struct buf err = BUF_INIT, followup = BUF_INIT;
	const struct template *t;
	size_t i, count = 0;
	const char *used;

	for (i = 0; i < cfg->templates.nr; i++)
		check_folder(c, set, cfg->templates.v[i], &count);
	check_folder(c, set, cfg->shipped_templates, &count);
	/* what send renders: the report template and its follow-up one */
	if (template_set_check(set, cfg->template_name, &err) < 0)
		problem(c, 0, "perfbot.template", err.data);
	buf_addf(&followup, "%s-followup", cfg->template_name);
	buf_reset(&err);
	used = template_set_lookup(set, followup.data, &t, &err) == 0 && t ? followup.data
									     : "followup";
	buf_reset(&err);
	if (template_set_check(set, used, &err) < 0)
		problem(c, 0, "follow-up template", err.data);
	say("templates: %zu parse in %zu folder%s (%s last); reports use %s, follow-ups %s", count,
	    cfg->templates.nr + 1, cfg->templates.nr ? "s" : "", cfg->shipped_templates,
	    cfg->template_name, used);
	template_set_free(set);
	buf_release(&err);
	buf_release(&followup);
}

/* perfbot.spoolGroup names a group, and the spool is shared with it (the
 * next send shares it; check only looks). */
static void check_spool_group(struct check *c, const struct config *cfg)
{
	struct buf path = BUF_INIT, why = BUF_INIT;
	struct group *g;
	struct stat sb;

	if (!cfg->spool_group)
		return;
	if (!(g = getgrnam(cfg->spool_group))) {
		buf_addf(&why, "no group '%s' on this host (groupadd it, or unset the key)", cfg->spool_group);
		problem(c, 0, "perfbot.spoolGroup", why.data);
	} else {
		buf_addf(&path, "%s/spool/incoming", cfg->state);
		if (stat(path.data, &sb) == 0 && sb.st_gid == g->gr_gid && (sb.st_mode & 02070) == 02070)
			say("spool: %s: shared with group %s", path.data, cfg->spool_group);
		else
			say("spool: %s: the next send shares it with group %s", path.data, cfg->spool_group);
	}
	buf_release(&path);
	buf_release(&why);
}

/* The state directory can be written (or made: its nearest existing
 * parent can be written). */
static void check_state(struct check *c, const struct config *cfg)
{
	struct buf dir = BUF_INIT, why = BUF_INIT;
	struct stat st;

	buf_adds(&dir, cfg->state);
	while (stat(dir.data, &st) < 0 && errno == ENOENT) {
		char *slash = strrchr(dir.data, '/');

		if (!slash || slash == dir.data) {
			buf_reset(&dir);
			buf_adds(&dir, "/");
			break;
		}
		buf_truncate(&dir, (size_t)(slash - dir.data));
	}
	if (stat(dir.data, &st) < 0 || !S_ISDIR(st.st_mode)) {
		buf_addf(&why, "%s is not a folder", dir.data);
		problem(c, 0, "perfbot.state", why.data);
	} else if (access(dir.data, W_OK | X_OK) < 0) {
		buf_addf(&why, "%s cannot be written by this user (%s): give perfbot's user the folder",
			 dir.data, strerror(errno));
		problem(c, 0, "perfbot.state", why.data);
	} else if (!strcmp(dir.data, cfg->state)) {
		say("state: %s: writable", cfg->state);
		check_spool_group(c, cfg);
	} else {
		say("state: %s: not there yet; it will be made in %s", cfg->state, dir.data);
	}
	buf_release(&dir);
	buf_release(&why);
}

/* A password file: 0 with *out (secret_free() it) when it is readable by
 * perfbot's user only; else a problem. */
static int check_secret(struct check *c, const char *key, const char *path, char **out)
{
	struct buf err = BUF_INIT;
	int r = 0;

	*out = NULL;
	if (secret_read_file(path, out, &err) < 0) {
		problem(c, 0, key, err.data);
		r = -1;
	} else {
		say("%s: %s: mode and owner ok", key, path);
	}
	buf_release(&err);
	return r;
}

static void check_smtp(struct check *c, const struct config *cfg, int talk)
{
	struct smtp_options o;
	struct smtp_session *s;
	struct buf err = BUF_INIT;
	char *password = NULL;
	const char *p, *nl;
	int st;

	if (cfg->smtp_user && !cfg->smtp_password_file) {
		problem(c, 0, "smtp.passwordFile",
			"smtp.user is set but smtp.passwordFile is not: put the password in a file of mode 0600 and name it there");
		return;
	}
	if (cfg->smtp_password_file && check_secret(c, "smtp.passwordFile", cfg->smtp_password_file,
						     &password) < 0)
		return;
	if (!talk) {
		secret_free(password);
		return;
	}
	smtp_options_init(&o, cfg, password);
	st = smtp_open(&o, &s, &err);
	if (st != SMTP_OK) {
		problem(c, st == SMTP_TEMPORARY, "smtp", err.data);
	} else {
		say("smtp: %s:%d: %s, EHLO %s%s%s", cfg->smtp_server, cfg->smtp_port,
		    url_transport(cfg->smtp_encryption == SMTP_NONE,
				  cfg->smtp_encryption == SMTP_STARTTLS),
		    smtp_ehlo_name(s),
		    cfg->smtp_user ? ", AUTH accepted for " : ", no AUTH (smtp.user unset)",
		    cfg->smtp_user ? cfg->smtp_user : "");
		/* the first EHLO line is the server's name, the others what it offers */
		p = smtp_ehlo_reply(s);
		nl = strchr(p, '\n');
		if (nl && nl[1]) {
			printf("smtp: offers:");
			for (p = nl + 1; (nl = strchr(p, '\n')); p = nl + 1)
				printf(" %.*s%s", (int)(nl - p), p, nl[1] ? "," : "");
			putchar('\n');
		}
		smtp_close(s);
	}
	secret_free(password);
	buf_release(&err);
}

static void check_imap(struct check *c, const struct config *cfg, int talk)
{
	struct imap_url url;
	struct imap *im;
	struct buf err = BUF_INIT, out = BUF_INIT;
	char *password = NULL;
	int r;

	if (cfg->ingest_maildir) {
		struct buf nw = BUF_INIT;
		struct stat st;

		buf_addf(&nw, "%s/new", cfg->ingest_maildir);
		if (stat(cfg->ingest_maildir, &st) < 0 && errno == ENOENT) {
			/* the MTA makes it with the first mail it delivers */
			say("ingest.maildir: %s: not there yet (the MTA makes it with the first mail; "
			    "until then ingest says so and exits 66)", cfg->ingest_maildir);
		} else if (stat(nw.data, &st) < 0 || !S_ISDIR(st.st_mode)) {
			buf_addf(&err, "%s is not a Maildir (no new/ folder)", cfg->ingest_maildir);
			problem(c, 0, "ingest.maildir", err.data);
			buf_reset(&err);
		} else {
			say("ingest.maildir: %s: a Maildir", cfg->ingest_maildir);
		}
		buf_release(&nw);
	}
	if (!cfg->ingest_imap) {
		if (talk)
			problem(c, 0, "ingest.imap", "--imap asks to check the IMAP server, but ingest.imap is not set");
		return;
	}
	if (imap_url_parse(cfg->ingest_imap, &url, &err) < 0) {
		problem(c, 0, "ingest.imap", err.data);
		buf_release(&err);
		return;
	}
	if (!cfg->ingest_password_file)
		problem(c, 0, "ingest.passwordFile", "needed for IMAP (a file of mode 0600 with the password)");
	else if (check_secret(c, "ingest.passwordFile", cfg->ingest_password_file, &password) == 0 &&
		 talk) {
		r = imap_open(&url, password, cfg->ingest_ca_file, cfg->ingest_timeout, &im, &err);
		if (r < 0) {
			problem(c, r == IMAP_TEMPORARY, "imap", err.data);
		} else {
			size_t n = imap_slices(im);

			/* a public-inbox inbox: its newest slice is where mail arrives */
			if (n > 1 && (r = imap_examine_slice(im, n - 1, &err)) < 0) {
				problem(c, r == IMAP_TEMPORARY, "imap", err.data);
				imap_close(im);
				goto out;
			}
			if (n)
				buf_addf(&out, "a sliced inbox (public-inbox): %zu slice%s, %s.0 to %s.%zu; ",
					 n, n == 1 ? "" : "s", url.mailbox, url.mailbox, n - 1);
			imap_describe(im, &out);
			say("imap: %s, LOGIN accepted; %s",
			    url_transport(url.security == IMAP_PLAIN, url.security == IMAP_STARTTLS),
			    out.data);
			imap_close(im);
		}
	}
out:
	secret_free(password);
	imap_url_release(&url);
	buf_release(&err);
	buf_release(&out);
}

/* Every ingest.nntp URL is read; with url (--nntp URL), that group's
 * server is connected to and the group selected. */
static void check_nntp(struct check *c, const struct config *cfg, const char *talk)
{
	struct nntp_url url;
	struct nntp_range range;
	struct nntp *n;
	struct buf err = BUF_INIT;
	const char *transport;
	size_t i;
	int r;

	for (i = 0; i < cfg->ingest_nntp.nr; i++) {
		if (nntp_url_parse(cfg->ingest_nntp.v[i], &url, &err) < 0) {
			problem(c, 0, "ingest.nntp", err.data);
			buf_reset(&err);
			continue;
		}
		nntp_url_release(&url);
	}
	if (!talk)
		return;
	if (nntp_url_parse(talk, &url, &err) < 0) {
		problem(c, 0, "--nntp", err.data);
		buf_release(&err);
		return;
	}
	transport = url_transport(url.security == NNTP_PLAIN, url.security == NNTP_STARTTLS);
	r = nntp_open(&url, cfg->ingest_ca_file, cfg->ingest_timeout, &n, &err);
	if (r == 0) {
		r = nntp_group(n, url.group, &range, &err);
		if (r == 0 && range.count)
			say("nntp: %s: %s; group %s: articles %u to %u (about %u)", nntp_where(n),
			    transport, url.group, (unsigned)range.first, (unsigned)range.last,
			    (unsigned)range.count);
		else if (r == 0)
			say("nntp: %s: %s; group %s: empty", nntp_where(n), transport, url.group);
		nntp_close(n);
	}
	if (r < 0)
		problem(c, r == NNTP_TEMPORARY, "nntp", err.data);
	nntp_url_release(&url);
	buf_release(&err);
}

static void print_keys(void)
{
	const struct config_key *k;
	size_t nr, i;

	k = config_keys(&nr);
	for (i = 0; i < nr; i++)
		printf("%s.%s%s\t%s (default: %s)\n", k[i].section,
		       !strcmp(k[i].section, "tree") ? "NAME." : "", k[i].name, k[i].doc, k[i].def);
}

int cmd_check(int argc, char **argv, const struct cmd_options *opts)
{
	struct check c = { 0, 0 };
	struct buf err = BUF_INIT;
	struct config *cfg = NULL;
	struct opt_args args;
	int smtp = 0, imap = 0, keys = 0, rc;
	const char *nntp = NULL;
	const struct opt options[] = {
		OPT_BOOL_E(0, "smtp", &smtp, "also connect to the SMTP server: TLS, EHLO, AUTH, QUIT"),
		OPT_BOOL_E(0, "imap", &imap, "also connect to the IMAP server: TLS, LOGIN, EXAMINE, LOGOUT"),
		OPT_STRING_E(0, "nntp", &nntp, "URL", "also connect to this news server: TLS, GROUP (its range), QUIT"),
		OPT_BOOL_E(0, "keys", &keys, "list every configuration key perfbot reads, and exit"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot check",
		.about = "Checks the configuration (every key), the repository, the templates, the\n"
			 "state directory and the password files, and with --smtp, --imap and --nntp\n"
			 "the servers, without sending or changing anything.  One line per problem, with\n"
			 "what to do.\n",
		.notes = "Exit 0: no problem; 78: the configuration is at fault (a key, a file, a\n"
			 "refused certificate or password); 75: a server could not be reached.\n",
		.opts = options,
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	opt_args_release(&args);
	if (keys) {
		print_keys();
		return 0;
	}
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		printf("problem: %s\n", err.data);
		buf_release(&err);
		return EX_CONFIG;
	}
	say("configuration: %s", cfg->path ? cfg->path : "none (the built-in defaults)");
	check_repository(&c, cfg);
	check_templates(&c, cfg);
	check_state(&c, cfg);
	check_smtp(&c, cfg, smtp);
	check_imap(&c, cfg, imap);
	check_nntp(&c, cfg, nntp);
	fflush(stdout);
	rc = c.config_problems ? EX_CONFIG : c.temporary ? EX_TEMPFAIL : 0;
	say("%s", rc ? (c.config_problems ? "not ready: see the problems above" :
			"the configuration is good, but a server could not be reached")
		     : "ready");
	config_free(cfg);
	buf_release(&err);
	return rc;
}
