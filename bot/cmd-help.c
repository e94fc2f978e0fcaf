/*
 * perfbot help [COMMAND|TOPIC]: the manual page (perfbot-help(1)) through
 * man(1), found beside this perfbot so that an uninstalled build shows its
 * own pages; when man(1) or the page is missing, the command's --help.
 *
 * Where a page NAME.S (perfbot-render.1, perfbot-config.5) is looked for,
 * the first that exists winning, each also as NAME.S.gz:
 *   1. PERFBOT_MAN_DIR/NAME.S and PERFBOT_MAN_DIR/manS/NAME.S: the folder
 *      the build named (the source tree's man/ for a plain build, MANDIR
 *      for `make install`);
 *   2. BINDIR/../share/man/manS/NAME.S beside the running binary (an
 *      installation moved elsewhere, or still in its DESTDIR);
 *   3. the shipped templates' ../man/NAME.S (the source tree the templates
 *      come from).
 * The page is shown with `man -l FILE`, so man(1) and $MANPAGER do the
 * formatting and paging, whether or not FILE is in man's search path.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "template.h"
#include "banned.h"

#ifndef PERFBOT_MAN_DIR
#define PERFBOT_MAN_DIR "/usr/local/share/man"
#endif

/* The topics: pages that belong to no command. */
static const struct topic {
	const char *name;
	const char *page;	/* the page's file name */
} topics[] = {
	{ "config", "perfbot-config.5" },
	{ "json", "perfbot-json.5" },
	{ "templates", "perfbot-templates.7" },
	{ "mail", "perfbot-mail.7" },
};

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* path, else path.gz: 1 with *out set to the one that exists. */
static int page_try(struct buf *out, const char *path)
{
	buf_reset(out);
	buf_adds(out, path);
	if (is_file(out->data))
		return 1;
	buf_adds(out, ".gz");
	return is_file(out->data);
}

/* The folder the running binary is in, or "" when /proc cannot say. */
static void exe_dir(struct buf *out)
{
	char exe[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash) {
		*slash = '\0';
		buf_adds(out, exe);
	}
}

/* Finds the file of page (its name, "perfbot-render.1") in the places
 * the header comment lists: 1 with *out set, or 0. */
static int page_find(const char *page, struct buf *out)
{
	const char *section = strrchr(page, '.') + 1;
	struct buf path = BUF_INIT, dir = BUF_INIT;
	struct config *defaults;
	int found;

	buf_addf(&path, "%s/%s", PERFBOT_MAN_DIR, page);
	found = page_try(out, path.data);
	if (!found) {
		buf_reset(&path);
		buf_addf(&path, "%s/man%s/%s", PERFBOT_MAN_DIR, section, page);
		found = page_try(out, path.data);
	}
	exe_dir(&dir);
	if (!found && dir.len) {
		buf_reset(&path);
		buf_addf(&path, "%s/../share/man/man%s/%s", dir.data, section, page);
		found = page_try(out, path.data);
	}
	if (!found) {
		/* the defaults alone: help works whatever the configuration says */
		defaults = config_new_defaults();
		buf_reset(&path);
		buf_addf(&path, "%s/../man/%s", defaults->shipped_templates, page);
		config_free(defaults);
		found = page_try(out, path.data);
	}
	buf_release(&path);
	buf_release(&dir);
	return found;
}

/*
 * Runs `man -l FILE` and waits for it: its exit status, or -1 with
 * errno set when man(1) cannot be started (ENOENT: it is not installed).
 * perfbot ignores SIGINT and SIGQUIT meanwhile, as system(3) does, so that
 * an interrupt in the pager is man's to handle.
 */
static int man_run(const char *file)
{
	char *argv[] = { "man", "-l", (char *)file, NULL };
	struct sigaction ign, old_int, old_quit;
	posix_spawnattr_t attr;
	sigset_t deflt;
	pid_t pid;
	int status, e;

	fflush(stdout);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	e = posix_spawnp(&pid, "man", NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (e == 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (e) {
		errno = e;
		return -1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* What is shown instead of the page, in words for the message that says
 * so: a command's --help, the keys for "config", templates/README for
 * "templates", the command list for perfbot(1); NULL when nothing is. */
static const char *fallback_name(const char *word, const struct cmd_entry *command)
{
	if (command)
		return "here is its --help";
	if (!word)
		return "here are the commands";
	if (!strcmp(word, "config"))
		return "here are the keys (perfbot check --keys)";
	if (!strcmp(word, "templates"))
		return "here is the shipped templates/README";
	return NULL;
}

/* Shows what fallback_name() names: the exit code of the command run, 0,
 * or EX_UNAVAILABLE when it cannot be had after all. */
static int fallback_show(const char *word, const struct cmd_entry *command,
			 const struct cmd_entry *commands, const struct cmd_options *opts)
{
	const struct cmd_entry *c;
	struct buf path = BUF_INIT, text = BUF_INIT, err = BUF_INIT;
	struct config *defaults;
	char *av[3] = { NULL, NULL, NULL };
	int rc = 0;

	if (command) {
		av[0] = (char *)command->name;
		av[1] = "--help";
		return command->run(2, av, opts);
	}
	if (!word) {
		fputs("perfbot: mail performance reports of kernel commits and keep the replies\n\n"
		      "commands:\n", stdout);
		for (c = commands; c->name; c++)
			printf("  %-9s %s\n", c->name, c->summary);
		fputs("\n'perfbot --help' lists the global options, 'perfbot COMMAND --help' a command's.\n",
		      stdout);
		return 0;
	}
	if (!strcmp(word, "config")) {
		for (c = commands; c->name && strcmp(c->name, "check"); c++)
			;
		if (!c->name)
			return EX_UNAVAILABLE;
		av[0] = "check";
		av[1] = "--keys";
		return c->run(2, av, opts);
	}
	defaults = config_new_defaults();
	buf_addf(&path, "%s/README", defaults->shipped_templates);
	config_free(defaults);
	/* the README sits among the templates: bounded as they are */
	if (buf_read_file(&text, path.data, TEMPLATE_MAX_SIZE, &err) < 0) {
		fprintf(stderr, "perfbot help: %s\n", err.data);
		rc = EX_UNAVAILABLE;
	} else {
		fputs(text.data, stdout);
	}
	buf_release(&path);
	buf_release(&text);
	buf_release(&err);
	return rc;
}

int cmd_help(int argc, char **argv, const struct cmd_options *opts,
	     const struct cmd_entry *commands)
{
	const struct cmd_entry *command = NULL;
	const char *word = NULL, *page = NULL;
	struct buf name = BUF_INIT, file = BUF_INIT, why = BUF_INIT;
	struct opt_args args;
	size_t i;
	int rc;
	const struct opt_spec spec = {
		.name = "perfbot help",
		.args = "[COMMAND|TOPIC]",
		.max_args = 1,
		.about = "Shows the manual page of COMMAND (perfbot-COMMAND(1)), of a TOPIC, or\n"
			 "perfbot(1) without an argument, through man(1).  Where man(1) or the page\n"
			 "is missing, prints the command's --help instead.\n",
		.notes = "Topics: config (perfbot-config(5)), json (perfbot-json(5)),\n"
			 "templates (perfbot-templates(7)), mail (perfbot-mail(7)).\n",
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	word = args.nr ? args.v[0] : NULL;
	if (word && !strcmp(word, "perfbot"))
		word = NULL;
	else if (word && !strncmp(word, "perfbot-", 8) && word[8])
		word += 8;	/* the page's own name */
	if (!word) {
		page = "perfbot.1";
	} else {
		for (command = commands; command->name && strcmp(command->name, word); command++)
			;
		if (command->name) {
			buf_addf(&name, "perfbot-%s.1", command->name);
			page = name.data;
		} else {
			command = NULL;
			for (i = 0; i < sizeof(topics) / sizeof(topics[0]); i++)
				if (!strcmp(topics[i].name, word))
					page = topics[i].page;
		}
		if (!page) {
			rc = cmd_usage_error(&spec, "'%s' is neither a command nor a topic "
					     "(config, json, templates, mail)", args.v[0]);
			goto done;
		}
	}

	if (!page_find(page, &file)) {
		buf_addf(&why, "the page %.*s(%s) is not installed (make install installs the pages)",
			 (int)(strrchr(page, '.') - page), page, strrchr(page, '.') + 1);
	} else {
		rc = man_run(file.data);
		if (rc == 0)
			goto done;
		if (rc < 0 && errno == ENOENT)
			buf_addf(&why, "man(1) is not installed (apt-get install man-db), so %s cannot be shown",
				 file.data);
		else if (rc < 0)
			buf_addf(&why, "man(1) cannot be started: %s", strerror(errno));
		else
			buf_addf(&why, "man -l %s failed (exit %d)", file.data, rc);
	}
	if (!fallback_name(word, command)) {
		fprintf(stderr, "perfbot help: %s, and there is no other text for '%s'\n", why.data, word);
		rc = EX_UNAVAILABLE;
		goto done;
	}
	fprintf(stderr, "perfbot help: %s; %s instead\n", why.data, fallback_name(word, command));
	rc = fallback_show(word, command, commands, opts);
done:
	buf_release(&name);
	buf_release(&file);
	buf_release(&why);
	opt_args_release(&args);
	return rc;
}
