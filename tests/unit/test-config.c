#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/perfbot-config-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	return path;
}

static struct config *load_text(const char *text, struct buf *err)
{
	char *path = write_temp(text);
	struct config *c = NULL;

	config_load(path, &c, err);
	unlink(path);
	free(path);
	return c;
}

static void config_reads_every_kind_of_key(void **state)
{
	struct buf err = BUF_INIT;
	struct config *c = load_text(
		"[perfbot]\n"
		"\tfrom = kernel test robot <lkp@example.org>\n"
		"\tmessageIdTag = lkp\n"
		"\ttimezone = +0530\n"
		"\tcc = a@example.org\n"
		"\tcc = b@example.org\n"
		"\tccTrailers = no\n"
		"\tpaused\n"
		"\tmaxPerHour = 7\n"
		"\tannounceFixes = yes\n"
		"[tree \"linux-next\"]\n"
		"\turl = https://example.org/next.git\n"
		"\tcc = next@example.org\n"
		"\tref = refs/remotes/next/master\n"
		"[digest]\n"
		"\tto = list@example.org\n"
		"\tto = boss@example.org, lead@example.org\n"
		"[smtp]\n"
		"\tencryption = ssl\n"
		"\tport = 465\n"
		"[polarity]\n"
		"\tlower = .+\\\\.latency.*\n"
		"\thigher = .+\\\\.throughput\n"
		"[user]\n\tname = not perfbot's section\n", &err);

	(void)state;
	if (!c)
		fail_msg("%s", err.data);
	assert_string_equal(c->from, "kernel test robot <lkp@example.org>");
	assert_string_equal(c->reported_by, c->from);
	assert_string_equal(c->message_id_tag, "lkp");
	assert_int_equal(c->timezone, 330);
	assert_int_equal(c->cc.nr, 2);
	assert_string_equal(c->cc.v[1], "b@example.org");
	assert_int_equal(c->cc_trailers, 0);
	assert_int_equal(c->paused, 1);
	assert_int_equal(c->max_per_hour, 7);
	assert_int_equal(c->smtp_encryption, SMTP_SSL);
	assert_int_equal(c->smtp_port, 465);
	assert_non_null(config_tree(c, "linux-next"));
	assert_string_equal(config_tree(c, "linux-next")->url, "https://example.org/next.git");
	assert_int_equal(config_tree(c, "linux-next")->cc.nr, 1);
	assert_string_equal(config_tree(c, "linux-next")->ref, "refs/remotes/next/master");
	assert_int_equal(c->announce_fixes, 1);
	assert_int_equal(c->digest_to.nr, 2);
	assert_string_equal(c->digest_to.v[1], "boss@example.org, lead@example.org");
	assert_null(config_tree(c, "linus"));
	assert_int_equal(config_polarity(c, "vm-scalability.throughput"), 1);
	assert_int_equal(config_polarity(c, "lmbench3.PIPE.latency.us"), -1);
	/* anchored: a pattern matches the whole name */
	assert_int_equal(config_polarity(c, "throughput"), 0);
	/* configured patterns come before the built-in table, not instead */
	assert_int_equal(config_polarity(c, "will-it-scale.per_thread_ops"), 1);
	assert_int_equal(c->polarity_builtin, 1);
	config_free(c);
	buf_release(&err);
}

static void config_reads_routing(void **state)
{
	struct buf err = BUF_INIT;
	struct config *c = load_text(
		"[route]\n"
		"\tmaintainersFile = docs/MAINTAINERS\n"
		"\tlists = false\n"
		"\tmaintainers = yes\n"
		"\treviewers\n"
		"\texclude = Bounce Box <Bounces@Example.ORG>\n"
		"\texclude = *@Lists.Example.NET\n"
		"[commands]\n"
		"\ttrusted = *@lab.example.org\n"
		"\ttrusted = *\n", &err);

	(void)state;
	if (!c)
		fail_msg("%s", err.data);
	assert_string_equal(c->route_file, "docs/MAINTAINERS");
	assert_int_equal(c->route_lists, 0);
	assert_int_equal(c->route_maintainers, 1);
	assert_int_equal(c->route_reviewers, 1);
	assert_int_equal(c->route_exclude.nr, 2);
	assert_string_equal(c->route_exclude.v[0], "bounces@example.org");
	assert_string_equal(c->route_exclude.v[1], "*@lists.example.net");
	assert_int_equal(c->commands_trusted.nr, 2);
	assert_string_equal(c->commands_trusted.v[1], "*");
	config_free(c);
	c = load_text("[route]\n\tmaintainersFile = none\n", &err);
	assert_non_null(c);
	assert_null(c->route_file);
	config_free(c);
	buf_release(&err);
}

static void config_defaults_render_without_a_file(void **state)
{
	struct config *c = config_new_defaults();

	(void)state;
	assert_string_equal(c->route_file, "MAINTAINERS");
	assert_int_equal(c->route_lists, 1);
	assert_int_equal(c->route_maintainers, 0);
	assert_int_equal(c->route_reviewers, 0);
	assert_string_equal(c->template_name, "report");
	assert_int_equal(c->max_recipients, 20);
	assert_int_equal(c->retry_minutes, 5);
	assert_int_equal(c->smtp_encryption, SMTP_STARTTLS);
	assert_int_equal(c->announce_fixes, 0);
	assert_int_equal(c->digest_to.nr, 0);
	config_free(c);
}

static void config_builtin_polarity_when_none_configured(void **state)
{
	struct buf err = BUF_INIT;
	struct config *c = load_text("[perfbot]\n\ttimezone = -0330\n", &err);

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->timezone, -210);
	assert_int_equal(config_polarity(c, "will-it-scale.per_thread_ops"), 1);
	assert_int_equal(config_polarity(c, "aim7.jobs-per-min"), 1);
	assert_int_equal(config_polarity(c, "lmbench3.PIPE.latency.us"), -1);
	assert_int_equal(config_polarity(c, "proc-vmstat.pgfault"), 0);
	config_free(c);
	buf_release(&err);
}

static void config_refuses_what_it_cannot_use(void **state)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "[perfbot]\n\tfrm = x\n", "perfbot.frm: unknown key" },
		{ "[perfbot]\n\tpaused = maybe\n", "perfbot.paused: 'maybe' is not a boolean" },
		{ "[perfbot]\n\ttimezone = +2500\n", "perfbot.timezone" },
		{ "[perfbot]\n\tmaxRecipients = 0\n", "perfbot.maxrecipients: '0' is not a whole number from 1" },
		{ "[perfbot]\n\tmaxPerHour = ten\n", "perfbot.maxperhour" },
		{ "[perfbot]\n\tmessageIdTag = a b\n", "perfbot.messageidtag" },
		{ "[perfbot]\n\ttemplate = ../etc/passwd\n", "perfbot.template" },
		{ "[smtp]\n\tencryption = tls\n", "smtp.encryption: 'tls' is not one of starttls, ssl, none" },
		{ "[smtp]\n\tport = 70000\n", "smtp.port" },
		{ "[polarity]\n\thigher = (\n", "polarity.higher: '(' is not a POSIX extended regular expression" },
		{ "[polarity]\n\tsideways = x\n", "polarity.sideways: unknown key" },
		{ "[polarity]\n\tbuiltin = some\n", "polarity.builtin: 'some' is not a boolean" },
		{ "[polarity]\n\thigher =\n", "polarity.higher: needs a value" },
		{ "[tree \"linus\"]\n\tlink = x\n", "tree.linus.link: unknown key" },
		{ "[tree \"linus\"]\n\tref = linus/master\n", "tree.linus.ref: 'linus/master' is not a full ref name" },
		{ "[tree \"linus\"]\n\tref = refs/remotes/linus/../x\n", "tree.linus.ref" },
		{ "[tree \"linus\"]\n\tref = refs/remotes/a b\n", "tree.linus.ref" },
		{ "[perfbot]\n\tannounceFixes = often\n", "perfbot.announcefixes: 'often' is not a boolean" },
		{ "[digest]\n\tfrom = x\n", "digest.from: unknown key" },
		{ "[digest]\n\tto =\n", "digest.to: needs a value" },
		{ "[perfbot \"x\"]\n\tfrom = x\n", "take no subsection" },
		{ "[route]\n\tmaintainersFile = /etc/MAINTAINERS\n", "route.maintainersfile: '/etc/MAINTAINERS' is not a path inside" },
		{ "[route]\n\tmaintainersFile = a/../MAINTAINERS\n", "is not a path inside" },
		{ "[route]\n\tmaintainersFile = docs/\n", "route.maintainersfile: 'docs/' names a directory" },
		{ "[route]\n\tlists = often\n", "route.lists: 'often' is not a boolean" },
		{ "[route]\n\texclude = nobody\n", "route.exclude: 'nobody' is neither an address nor *@domain" },
		{ "[route]\n\texclude = *@\n", "route.exclude: '*@' is neither" },
		{ "[route]\n\tcc = x@y.org\n", "route.cc: unknown key" },
		{ "[commands]\n\ttrusted = jane\n", "commands.trusted: 'jane' is not an address pattern" },
		{ "[commands]\n\ttrusted = a@b <c@d>\n", "commands.trusted" },
		{ "[perfbot\n", "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf err = BUF_INIT;
		struct config *c = load_text(cases[i].text, &err);

		if (c)
			fail_msg("case %zu was accepted", i);
		if (!strstr(err.data, cases[i].want) || !strstr(err.data, "/tmp/perfbot-config-"))
			fail_msg("case %zu: '%s' lacks '%s' or the file name", i, err.data, cases[i].want);
		buf_release(&err);
	}
}

static void config_missing_file_is_an_error(void **state)
{
	struct buf err = BUF_INIT;
	struct config *c = NULL;

	(void)state;
	assert_int_equal(config_load("/nonexistent/perfbot.conf", &c, &err), -1);
	assert_null(c);
	assert_non_null(strstr(err.data, "/nonexistent/perfbot.conf: cannot read"));
	buf_release(&err);
}

/* The example file is read by the parser as it stands: every key it
 * documents is one the parser knows, and its [polarity] section means what
 * its comments say (patterns tried before the built-in table). */
static void config_example_loads_and_means_what_it_says(void **state)
{
	struct buf err = BUF_INIT;
	struct config *example = NULL;

	(void)state;
	if (config_load("config/perfbot.conf.example", &example, &err) < 0)
		fail_msg("%s", err.data);
	assert_int_equal(example->timezone, 480);
	assert_non_null(config_tree(example, "linus"));
	assert_int_equal(example->polarity_builtin, 1);
	assert_int_equal(example->nr_polarity, 2);
	assert_string_equal(example->polarity[0].pattern, "stress-ng\\..+\\.ops");
	assert_int_equal(example->polarity[0].higher, 1);
	assert_string_equal(example->polarity[1].pattern, "fio\\..+_clat_.+_us");
	assert_int_equal(example->polarity[1].higher, 0);
	assert_int_equal(config_polarity(example, "stress-ng.fork.ops"), 1);
	assert_int_equal(config_polarity(example, "fio.read_clat_mean_us"), -1);
	/* the built-in table still answers for the rest */
	assert_int_equal(config_polarity(example, "fio.read_iops"), 1);
	assert_int_equal(config_polarity(example, "kernbench.elapsed_time"), -1);
	config_free(example);
	buf_release(&err);
}

/* Every key of the parser's table is documented in the example file (set,
 * or shown commented out) under its section, and the table's names are
 * the ones the parser takes. */
static void config_example_documents_every_key(void **state)
{
	const struct config_key *k;
	struct buf text = BUF_INIT, err = BUF_INIT, want = BUF_INIT;
	size_t nr, i;

	(void)state;
	assert_int_equal(buf_read_file(&text, "config/perfbot.conf.example", 0, &err), 0);
	k = config_keys(&nr);
	assert_true(nr > 30);
	for (i = 0; i < nr; i++) {
		const char *sec, *p;

		buf_reset(&want);
		if (!strcmp(k[i].section, "tree"))
			buf_adds(&want, "[tree \"");
		else
			buf_addf(&want, "[%s]", k[i].section);
		sec = strstr(text.data, want.data);
		if (!sec)
			fail_msg("no [%s] section in the example", k[i].section);
		buf_reset(&want);
		buf_addf(&want, "\t%s = ", k[i].name);
		p = strstr(sec, want.data);
		if (!p) {
			buf_reset(&want);
			buf_addf(&want, "\t#%s = ", k[i].name);
			p = strstr(sec, want.data);
		}
		if (!p)
			fail_msg("%s.%s is in the parser's table but not in config/perfbot.conf.example",
				 k[i].section, k[i].name);
		assert_non_null(k[i].doc);
		assert_non_null(k[i].def);
	}
	buf_release(&text);
	buf_release(&err);
	buf_release(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_reads_every_kind_of_key),
		cmocka_unit_test(config_reads_routing),
		cmocka_unit_test(config_defaults_render_without_a_file),
		cmocka_unit_test(config_builtin_polarity_when_none_configured),
		cmocka_unit_test(config_refuses_what_it_cannot_use),
		cmocka_unit_test(config_missing_file_is_an_error),
		cmocka_unit_test(config_example_loads_and_means_what_it_says),
		cmocka_unit_test(config_example_documents_every_key),
	};

	setenv("PERFBOT_CONFIG", "", 1);
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
