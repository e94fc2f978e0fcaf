#ifndef PERFBOT_CONFIG_H
#define PERFBOT_CONFIG_H

/*
 * perfbot's configuration: git-config syntax (perfbot-config(5)), read by
 * gitconfig.h (not libgit2, whose start, linked shared, takes 10 to 30 ms).
 *
 * Every key has a built-in default, so perfbot runs with no file at all.
 * Reading is strict: an unknown key in a section perfbot owns ([perfbot],
 * [smtp], [ingest], [polarity], [route], [commands], [digest], [test], [tree "NAME"])
 * is an error, so a typo never silently drops a setting; values are
 * checked here, once (numbers in
 * range, booleans, time zone, encryption mode, regular expressions, no CR
 * or LF in anything that can reach a header).  Addresses (from, cc, ...)
 * are checked by the message builder, which knows their use.
 *
 * Ownership: config_free() frees everything.
 */

#include <regex.h>
#include <stddef.h>

#include "buf.h"

/* A key given several times: every value, in file order (owned). */
struct config_list {
	char **v;
	size_t nr;
};

struct config_tree {
	char *name;		/* the NAME of [tree "NAME"] */
	char *url;		/* tree.NAME.url or NULL */
	struct config_list cc;	/* tree.NAME.cc */
	char *ref;		/* tree.NAME.ref: the ref perfbot track watches;
				   NULL: refs/remotes/NAME/BRANCH for each branch
				   the tree's reports were on */
};

struct config_polarity {
	char *pattern;		/* as written */
	regex_t re;		/* anchored: matches the whole metric name */
	int higher;		/* 1: higher is better; 0: lower is better */
};

enum smtp_encryption {
	SMTP_STARTTLS,
	SMTP_SSL,
	SMTP_NONE,
};

struct config {
	char *path;		/* the file read, or NULL for built-in defaults */

	/* [perfbot] */
	char *from;
	char *reported_by;
	char *message_id_tag;
	char *closes_url;
	char *artifacts_url;	/* "" = no artifacts line */
	int timezone;		/* minutes east of UTC */
	char *repo;
	struct config_list templates;	/* the lab's folders, searched in order */
	char *shipped_templates;	/* then the shipped folder (config_load() finds it) */
	char *template_name;
	char *signature;	/* the lab's signature; NULL: from's display name */
	char *disclaimer;	/* a paragraph above the signature; NULL: none */
	struct config_list cc;
	int cc_trailers;
	int max_recipients;
	char *redirect_to;	/* NULL = deliver normally */
	int max_per_hour;
	int paused;
	int coalesce_minutes;
	int retry_minutes;
	char *state;
	char *spool_group;	/* the group that may queue into the spool, or NULL */
	int announce_fixes;	/* perfbot.announceFixes: a notice in the report's
				   thread when track finds its fix */

	struct config_tree *trees;
	size_t nr_trees;

	/* [smtp] */
	char *smtp_server;
	int smtp_port;
	enum smtp_encryption smtp_encryption;
	char *smtp_user;	/* NULL = no AUTH */
	char *smtp_password_file;
	char *smtp_ca_file;	/* NULL = system trust */
	int smtp_timeout;	/* seconds */
	char *smtp_helo_name;	/* NULL: the host's fully qualified name */

	/* [ingest] */
	char *ingest_maildir;
	char *ingest_imap;
	struct config_list ingest_nntp;	/* ingest.nntp: news groups, nntps://HOST/GROUP */
	char *ingest_password_file;	/* the IMAP password, mode 0600 */
	char *ingest_ca_file;		/* NULL = system trust */
	int ingest_timeout;		/* seconds */

	/* [digest] */
	struct config_list digest_to;	/* digest.to: who gets perfbot digest */

	/* [site]: perfbot site (perfbot-site(1)) */
	char *site_dir;		/* site.dir; NULL: STATE/site */
	char *site_url;		/* site.url: where the site is served, or NULL */
	char *site_archive_url;	/* site.archiveUrl: a mail's link is this and its
				   Message-ID, percent-encoded; NULL: none */
	int site_max_samples;	/* site.maxSamples: points a chart draws a side */

	/* [polarity]: the configured patterns, in the order config_polarity()
	 * tries them: the higher ones, then the lower ones, each in file order */
	struct config_polarity *polarity;
	size_t nr_polarity;
	int polarity_builtin;	/* polarity.builtin: then try the built-in table */

	/* [route]: recipients from the head commit's MAINTAINERS (route.h) */
	char *route_file;	/* route.maintainersFile, a path in the tree;
				 * NULL when it is "none" (routing off) */
	int route_lists;	/* Cc the sections' L: lists */
	int route_maintainers;	/* Cc their M: people */
	int route_reviewers;	/* Cc their R: people */
	struct config_list route_exclude;	/* "local@domain" or "*@domain",
						 * lowercase: never mailed */

	/* [test]: "#perfbot test" requests (perfbot-requests(1)) */
	int test_enabled;	/* test.enabled: requests are taken */
	int test_max_open;	/* test.maxOpen: per report, not yet answered */
	int test_max_per_day;	/* test.maxPerDay: per requester */
	char *test_ref_prefix;	/* test.refPrefix: "refs/perfbot/tests/", ends in '/' */
	int test_acknowledge;	/* test.acknowledge: reply to accepted ones too */
	double test_fixed_ratio;	/* test.fixedRatio: share recovered that is fixed */
	double test_noise_percent;	/* test.noisePercent: this close to the base is fixed */
	double test_partial_ratio;	/* test.partialRatio: share recovered that is partial */

	/* [commands] */
	struct config_list commands_trusted;	/* address patterns (fnmatch,
						 * case ignored) whose #perfbot
						 * commands count on any report */
};

/*
 * The keys perfbot reads, one table for the parser, `perfbot check` and
 * the test that holds perfbot-config(5) and config/perfbot.conf.example
 * to it (so no key can be missing from either).
 */
enum config_type {
	CONFIG_TEXT,		/* one string: no control characters, not empty */
	CONFIG_TEXT_LIST,	/* struct config_list: every value given */
	CONFIG_BOOL,		/* int: git's booleans */
	CONFIG_INT,		/* int within min..max */
	CONFIG_CUSTOM,		/* read by the key's own function */
};

struct config_key {
	const char *section;	/* "perfbot", "smtp", ...; "tree" for [tree "NAME"] */
	const char *name;	/* as documented ("reportedBy"); matched ignoring case */
	enum config_type type;
	size_t offset;		/* of the field in struct config (struct config_tree) */
	int min, max;		/* CONFIG_INT */
	int (*read)(struct config *c, void *field, const char *name, const char *value,
		    struct buf *err);	/* CONFIG_CUSTOM */
	const char *def;	/* the default, in words */
	const char *doc;	/* what it is, one line */
};

/* The table, in documentation order; *nr set. */
const struct config_key *config_keys(size_t *nr);

/*
 * Loads the configuration.  path: a file that must exist, or NULL to use
 * $PERFBOT_CONFIG, else ~/.config/perfbot/config if it exists, else the
 * built-in defaults.  -1 with "FILE: key: what is wrong" in err.
 */
int config_load(const char *path, struct config **out, struct buf *err);

/* The defaults alone (never fails). */
struct config *config_new_defaults(void);

void config_free(struct config *c);

/* 1 when ref is a full reference name git would take (refs/..., as
 * git check-ref-format has it), else 0. */
int config_ref_name_valid(const char *ref);

/* [tree "name"], or NULL. */
const struct config_tree *config_tree(const struct config *c, const char *name);

/*
 * +1 when higher is better for metric, -1 when lower is, 0 when unknown:
 * the first pattern that matches the whole name decides, the configured
 * ones first (c->polarity), then, unless polarity.builtin is false, the
 * built-in table.  Thread-safe.
 */
int config_polarity(const struct config *c, const char *metric);

/*
 * The built-in polarity table: config/polarity.tbl (intel/lkp-tests'
 * etc/index-perf-all.yaml and etc/index-latency-all.yaml, and perfbot's
 * own patterns), built into the binary.  Returns its entries in the order
 * config_polarity() tries them (higher, then lower, each in file order)
 * and sets *nr.  Compiled at the first call, once per process
 * (thread-safe); the entries live as long as the process.
 */
const struct config_polarity *config_polarity_builtin(size_t *nr);

#endif
