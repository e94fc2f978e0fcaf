/*
 * bot/maintainers: the MAINTAINERS parser and matcher, with literal
 * inputs (cmocka, table-driven).
 *
 * Also a driver for tests/t/route-gm.sh, which compares perfbot's routing
 * with the kernel's get_maintainer.pl:
 *     test-maintainers --gm REPO COMMIT
 * reads MAINTAINERS from COMMIT's tree (bot/repo.h), the commit as a
 * patch (bot/patch.h), and prints what bot/maintainers.h selects (lists,
 * maintainers and reviewers) in get_maintainer.pl's --rolestats form;
 *     test-maintainers --text REPO COMMIT
 * prints the patch text K: keywords are searched in.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "maintainers.h"
#include "patch.h"
#include "repo.h"
#include "xalloc.h"

/* ---- get_maintainer.pl's output form ---- */

static void gm_subsystem(struct buf *b, const char *name)
{
	size_t n = strlen(name);

	/* get_subsystem_name(): at most 50 characters */
	if (n > 50) {
		n = 47;
		while (n && isspace((unsigned char)name[n - 1]))
			n--;
		buf_add(b, name, n);
		buf_adds(b, "...");
	} else {
		buf_adds(b, name);
	}
}

static const char *gm_role(const char *status, char *role, size_t size)
{
	static const char *const map[][2] = {
		{ "supported", "supporter" }, { "maintained", "maintainer" }, { "odd fixes", "odd fixer" },
		{ "orphan", "orphan minder" }, { "obsolete", "obsolete minder" },
		{ "buried alive in reporters", "chief penguin" },
	};
	size_t k;

	if (!*status)
		status = "unknown";
	for (k = 0; status[k] && k + 1 < size; k++)
		role[k] = (char)tolower((unsigned char)status[k]);
	role[k] = '\0';
	for (k = 0; k < sizeof(map) / sizeof(map[0]); k++)
		if (!strcmp(role, map[k][0]))
			return map[k][1];
	return role;
}

/* One entry as get_maintainer.pl --rolestats prints it. */
static void gm_line(struct buf *b, const struct maintainers_entry *e)
{
	struct buf sub = BUF_INIT;
	const char *p;
	int special = 0;
	char role[128];

	for (p = e->name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != ' ' && *p != '-')
			special = 1;
	if (*e->name && special) {
		buf_addc(b, '"');
		for (p = e->name; *p; p++) {
			if (*p == '"' && (p == e->name || p[-1] != '\\'))
				buf_addc(b, '\\');
			buf_addc(b, *p);
		}
		buf_addf(b, "\" <%s>", e->address);
	} else if (*e->name) {
		buf_addf(b, "%s <%s>", e->name, e->address);
	} else {
		buf_adds(b, e->address);
	}
	gm_subsystem(&sub, e->section->name);
	if (e->kind == MAINTAINERS_LIST) {
		buf_addf(b, " (%s list", e->moderated ? "moderated" : "open");
		if (strcmp(sub.data, "THE REST"))
			buf_addf(b, ":%s", sub.data);
		buf_addc(b, ')');
	} else if (e->kind == MAINTAINERS_REVIEWER) {
		buf_addf(b, " (reviewer:%s)", sub.data);
	} else {
		buf_addf(b, " (%s:%s)", gm_role(e->section->status, role, sizeof(role)), sub.data);
	}
	buf_release(&sub);
}

static int drive(int argc, char **argv)
{
	struct repo *r = NULL;
	struct buf err = BUF_INIT, text = BUF_INIT;
	struct commit_info ci;
	struct patch p;
	struct maintainers *m = NULL;
	struct maintainers_selection sel;
	char blob[41];
	size_t i;
	int e, rc = 1, have_ci = 0, have_patch = 0, have_sel = 0;

	memset(&ci, 0, sizeof(ci));
	memset(&p, 0, sizeof(p));
	if (argc != 4) {
		fprintf(stderr, "usage: test-maintainers [--gm | --text] REPO COMMIT\n");
		return 64;
	}
	if (repo_open(argv[2], &r, &err) < 0 || repo_lookup(r, argv[3], &ci, &err) < 0) {
		fprintf(stderr, "test-maintainers: %s\n", err.data);
		goto done;
	}
	have_ci = 1;
	if (patch_from_commit(r, ci.id, &p, &err) < 0) {
		fprintf(stderr, "test-maintainers: %s\n", err.data);
		goto done;
	}
	have_patch = 1;
	if (!strcmp(argv[1], "--text")) {
		fwrite(p.text.data, 1, p.text.len, stdout);
		rc = 0;
		goto done;
	}
	e = repo_tree_file(r, ci.id, "MAINTAINERS", 0, &text, blob, &err);
	if (e != 0 || maintainers_parse("MAINTAINERS", &text, &m, &err) < 0) {
		fprintf(stderr, "test-maintainers: %s\n", e > 0 ? "no MAINTAINERS in the commit" : err.data);
		goto done;
	}
	if (maintainers_match(m, (const char *const *)p.files, p.nr_files, p.text.data, p.text.len,
			      MAINTAINERS_ALL, &sel, &err) < 0) {
		fprintf(stderr, "test-maintainers: %s\n", err.data);
		goto done;
	}
	have_sel = 1;
	for (i = 0; i < sel.nr_entries; i++) {
		struct buf line = BUF_INIT;

		gm_line(&line, &sel.entries[i]);
		printf("%s\n", line.data);
		buf_release(&line);
	}
	if (*maintainers_notes(m))
		fprintf(stderr, "%s", maintainers_notes(m));
	rc = 0;
done:
	if (have_sel)
		maintainers_selection_release(&sel);
	maintainers_free(m);
	if (have_patch)
		patch_release(&p);
	if (have_ci)
		commit_info_release(&ci);
	repo_free(r);
	buf_release(&err);
	buf_release(&text);
	return rc;
}

/* ---- the unit tests ---- */

/* The selection in a compact form: "M name <addr> @SECTION" per line. */
/* m made again from its image (maintainers_image()), the first one freed;
 * the image, which the new one points into, goes to *keep. */
static struct maintainers *through_image(struct maintainers *m, char **keep)
{
	struct buf image = BUF_INIT, err = BUF_INIT;
	struct maintainers *again;
	size_t len;

	assert_int_equal(maintainers_image(m, "0123456789abcdef0123456789abcdef01234567", &image), 0);
	maintainers_free(m);
	*keep = buf_detach(&image, &len);
	if (maintainers_load("0123456789abcdef0123456789abcdef01234567", *keep, len, &again, &err) < 0)
		fail_msg("load: %s", err.data);
	buf_release(&err);
	return again;
}

static char *run_with(const char *maintainers, const char *const *files, const char *patch,
		      unsigned flags, int via_image)
{
	struct buf text = BUF_INIT, err = BUF_INIT, out = BUF_INIT;
	struct maintainers *m;
	struct maintainers_selection sel;
	size_t n = 0, i;
	char *image = NULL;

	while (files && files[n])
		n++;
	buf_adds(&text, maintainers);
	if (maintainers_parse("MAINTAINERS", &text, &m, &err) < 0)
		fail_msg("parse: %s", err.data);
	if (via_image)
		m = through_image(m, &image);
	if (maintainers_match(m, files, n, patch, patch ? strlen(patch) : 0, flags, &sel, &err) < 0)
		fail_msg("match: %s", err.data);
	for (i = 0; i < sel.nr_entries; i++) {
		const struct maintainers_entry *e = &sel.entries[i];

		buf_addf(&out, "%c %s%s%s%s @%s%s\n", "MRL"[e->kind], e->name, *e->name ? " <" : "",
			 e->address, *e->name ? ">" : "", e->section->name, e->moderated ? " (moderated)" : "");
	}
	maintainers_selection_release(&sel);
	maintainers_free(m);
	free(image);
	buf_release(&err);
	return buf_detach(&out, NULL);
}

static char *run(const char *maintainers, const char *const *files, const char *patch, unsigned flags)
{
	return run_with(maintainers, files, patch, flags, 0);
}

static const char rest[] =
	"\nTHE REST\n"
	"M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
	"L:\tlinux-kernel@vger.kernel.org\n"
	"S:\tBuried alive in reporters\n"
	"F:\t*\n"
	"F:\t*/\n";

struct match_case {
	const char *name;
	const char *maintainers;	/* THE REST is appended */
	const char *files[6];
	const char *patch;
	unsigned flags;
	const char *want;
};

static const struct match_case match_cases[] = {
	{ "trailing slash: everything below",
	  "A\nM:\tAnn <ann@x.org>\nL:\ta@lists.org\nS:\tMaintained\nF:\tdrivers/a/\n",
	  { "drivers/a/b/c.c" }, NULL, MAINTAINERS_ALL,
	  "M Ann <ann@x.org> @A\nL a@lists.org @A\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "no trailing slash: same depth only",
	  "A\nM:\tAnn <ann@x.org>\nS:\tMaintained\nF:\tdrivers/a*\n",
	  { "drivers/ab/c.c" }, NULL, MAINTAINERS_ALL,
	  "L linux-kernel@vger.kernel.org @THE REST\n" },
	{ "not anchored at the end",
	  "A\nM:\tAnn <ann@x.org>\nS:\tMaintained\nF:\tDocumentation/ABI/sysfs-class-power\n",
	  { "Documentation/ABI/sysfs-class-powercap" }, NULL, MAINTAINERS_ALL,
	  "M Ann <ann@x.org> @A\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "? and [] classes, '.' literal",
	  "A\nM:\tAnn <ann@x.org>\nS:\tMaintained\nF:\tdrivers/input/da72??.[ch]\n"
	  "\nB\nM:\tBob <bob@x.org>\nS:\tMaintained\nF:\tlib/a.c\n",
	  { "drivers/input/da7219.c", "lib/abc" }, NULL, MAINTAINERS_ALL,
	  "M Ann <ann@x.org> @A\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "a pattern with more regex than globs keeps its Perl meaning",
	  "A\nM:\tAnn <ann@x.org>\nS:\tMaintained\nF:\tdrivers/(foo|bar)/\n",
	  { "drivers/bar/x.c" }, NULL, MAINTAINERS_ALL,
	  "M Ann <ann@x.org> @A\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "X: over F:",
	  "NET\nM:\tNed <ned@x.org>\nL:\tnetdev@x.org\nS:\tMaintained\nF:\tdrivers/net/\nX:\tdrivers/net/wireless/\n"
	  "\nWIFI\nM:\tWes <wes@x.org>\nL:\twifi@x.org\nS:\tMaintained\nF:\tdrivers/net/wireless/\n",
	  { "drivers/net/wireless/ath/main.c" }, NULL, MAINTAINERS_ALL,
	  "M Wes <wes@x.org> @WIFI\nL wifi@x.org @WIFI\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "N: searched anywhere in the path",
	  "TEGRA\nM:\tTed <ted@x.org>\nS:\tMaintained\nN:\t[^a-z]tegra\n",
	  { "arch/arm/boot/dts/tegra30.dtsi", "drivers/integrator/a.c" }, NULL, MAINTAINERS_ALL,
	  "M Ted <ted@x.org> @TEGRA\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "deeper first, equal depth in file order, K: last",
	  "ZED\nM:\tZoe <zoe@x.org>\nS:\tMaintained\nF:\tdrivers/\n"
	  "\nKEY\nM:\tKim <kim@x.org>\nS:\tMaintained\nK:\tfrobnicate\n"
	  "\nMID\nM:\tMia <mia@x.org>\nS:\tMaintained\nF:\tdrivers/m/\n"
	  "\nALSO MID\nM:\tAl <al@x.org>\nS:\tMaintained\nF:\tdrivers/m/\n",
	  { "drivers/m/x.c" }, "+\tfrobnicate();\n", MAINTAINERS_ALL,
	  "M Mia <mia@x.org> @MID\nM Al <al@x.org> @ALSO MID\nM Zoe <zoe@x.org> @ZED\n"
	  "M Kim <kim@x.org> @KEY\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "the last matching line of a section decides its depth",
	  "SHALLOW LAST\nM:\tSam <sam@x.org>\nS:\tMaintained\nF:\tdrivers/m/x.c\nF:\tdrivers/\n"
	  "\nMID\nM:\tMia <mia@x.org>\nS:\tMaintained\nF:\tdrivers/m/\n",
	  { "drivers/m/x.c" }, NULL, MAINTAINERS_ALL,
	  "M Mia <mia@x.org> @MID\nM Sam <sam@x.org> @SHALLOW LAST\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "K: in the message, and in diff lines only as +/- lines",
	  "PIDFD\nM:\tPia <pia@x.org>\nS:\tMaintained\nK:\t(?i)pidfd\n"
	  "\nCTX\nM:\tCat <cat@x.org>\nS:\tMaintained\nK:\tcontext_only\n",
	  { "README" },
	  "Subject: [PATCH] x\n\nUse PIDFD_NONBLOCK.\n---\ndiff --git a/README b/README\n--- a/README\n+++ b/README\n"
	  "@@ -1,2 +1,2 @@\n context_only\n+new\n",
	  MAINTAINERS_ALL,
	  "M Pia <pia@x.org> @PIDFD\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "K: alternatives after a top-level '|' are searched in every line",
	  "PHY\nM:\tPat <pat@x.org>\nS:\tMaintained\nK:\tphylink\\.h|struct\\s+phylink\n",
	  { "README" },
	  "---\n--- a/README\n+++ b/README\n@@ -1,2 +1,2 @@\n struct phylink *pl;\n+x\n", MAINTAINERS_ALL,
	  "M Pat <pat@x.org> @PHY\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "Fixes: and hunk header lines are not searched",
	  "BPF\nM:\tBo <bo@x.org>\nS:\tMaintained\nK:\tbpf_thing\n",
	  { "README" },
	  "Fixes: 0123456789ab (\"bpf_thing\")\n--- a/README\n+++ b/README\n@@ -1,2 +1,2 @@ bpf_thing\n+x\n",
	  MAINTAINERS_ALL, "L linux-kernel@vger.kernel.org @THE REST\n" },
	{ "paths from the patch text: rename, mode change, dev/null",
	  "OLD\nM:\tOla <ola@x.org>\nS:\tMaintained\nF:\told/\n"
	  "\nNEW\nM:\tNia <nia@x.org>\nS:\tMaintained\nF:\tnew/\n"
	  "\nMODE\nM:\tMo <mo@x.org>\nS:\tMaintained\nF:\tscripts/\n",
	  { NULL },
	  " mode change 100644 => 100755 scripts/x.pl\n"
	  "diff --git a/old/a.c b/new/a.c\nsimilarity index 100%\nrename from old/a.c\nrename to new/a.c\n"
	  "diff --git a/z/n.c b/z/n.c\nnew file mode 100644\n--- /dev/null\n+++ b/z/n.c\n@@ -0,0 +1 @@\n+x\n",
	  MAINTAINERS_ALL,
	  "M Nia <nia@x.org> @NEW\nM Ola <ola@x.org> @OLD\nM Mo <mo@x.org> @MODE\n"
	  "L linux-kernel@vger.kernel.org @THE REST\n" },
	{ "subscribers-only left out, moderated kept",
	  "A\nM:\tAnn <ann@x.org>\nL:\tsubs@x.org (subscribers-only)\nL:\tmod@x.org (moderated for non-subscribers)\n"
	  "L:\topen@x.org\nS:\tSupported\nF:\ta/\n",
	  { "a/b" }, NULL, MAINTAINERS_ALL,
	  "M Ann <ann@x.org> @A\nL mod@x.org @A (moderated)\nL open@x.org @A\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "an address that is M: and L: is given once, as the maintainer",
	  "DM\nM:\tAl <al@x.org>\nM:\tdm-devel@redhat.com\nL:\tdm-devel@redhat.com\nS:\tMaintained\nF:\tdrivers/md/\n",
	  { "drivers/md/dm.c" }, NULL, MAINTAINERS_ALL,
	  "M Al <al@x.org> @DM\nM dm-devel@redhat.com @DM\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "... and as a list when maintainers are not asked for",
	  "DM\nM:\tAl <al@x.org>\nM:\tdm-devel@redhat.com\nL:\tdm-devel@redhat.com\nS:\tMaintained\nF:\tdrivers/md/\n",
	  { "drivers/md/dm.c" }, NULL, MAINTAINERS_LISTS,
	  "L dm-devel@redhat.com @DM\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "people deduplicated by name and by address, the first section decides",
	  "FIRST\nR:\tJane Doe <jane@a.org>\nM:\tBob <BOB@x.org>\nS:\tMaintained\nF:\tdrivers/x/y/\n"
	  "\nSECOND\nM:\tJANE DOE <jane@b.org>\nM:\tRobert <bob@x.org>\nM:\tNew <new@x.org>\nS:\tMaintained\nF:\tdrivers/x/\n",
	  { "drivers/x/y/z.c" }, NULL, MAINTAINERS_ALL,
	  "R Jane Doe <jane@a.org> @FIRST\nM Bob <BOB@x.org> @FIRST\nM New <new@x.org> @SECOND\n"
	  "L linux-kernel@vger.kernel.org @THE REST\n" },
	{ "without reviewers, a reviewer does not take a person's place",
	  "FIRST\nR:\tJane Doe <jane@a.org>\nS:\tMaintained\nF:\tdrivers/x/y/\n"
	  "\nSECOND\nM:\tJane Doe <jane@b.org>\nS:\tMaintained\nF:\tdrivers/x/\n",
	  { "drivers/x/y/z.c" }, NULL, MAINTAINERS_LISTS | MAINTAINERS_MAINTAINERS,
	  "M Jane Doe <jane@b.org> @SECOND\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "THE REST alone; its people never, nor the chief penguin elsewhere",
	  "TOP\nM:\tLinus Torvalds <torvalds@linux-foundation.org>\nM:\tAnn <ann@x.org>\nS:\tMaintained\nF:\tMakefile\n",
	  { "Makefile", "README" }, NULL, MAINTAINERS_ALL,
	  "M Ann <ann@x.org> @TOP\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "names with special characters and nameless M:",
	  "X86\nM:\t\"Rafael J. Wysocki\" <rafael@x.org>\nM:\tx86@kernel.org\nM:\tSrivatsa S. Bhat (VMware) <sb@x.org>\n"
	  "S:\tMaintained\nF:\tarch/x86/\n",
	  { "arch/x86/a.c" }, NULL, MAINTAINERS_ALL,
	  "M Rafael J. Wysocki <rafael@x.org> @X86\nM x86@kernel.org @X86\nM Srivatsa S. Bhat (VMware) <sb@x.org> @X86\n"
	  "L linux-kernel@vger.kernel.org @THE REST\n" },
	{ "an RFC 822 list of addresses in one M: gives each",
	  "A\nM:\tann@x.org, Bob <bob@x.org>\nM:\tPan, Xinhui <xp@x.org>\nS:\tMaintained\nF:\ta/\n",
	  { "a/b" }, NULL, MAINTAINERS_ALL,
	  "M ann@x.org @A\nM Bob <bob@x.org> @A\nM Pan, Xinhui <xp@x.org> @A\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "a list that is no address is left out",
	  "A\nL:\tMali DP Maintainers <malidp@foss.arm.com>\nS:\tSupported\nF:\ta/\n",
	  { "a/b" }, NULL, MAINTAINERS_ALL, "L linux-kernel@vger.kernel.org @THE REST\n" },
	{ "blank and comment lines do not end a section; unknown tags are ignored",
	  "A\nM:\tAnn <ann@x.org>\n\n# a comment\nW:\thttps://x.org\nQ:\thttps://q\nB:\tmailto:b@x.org\n"
	  "C:\tirc://x\nP:\tDocumentation/p.rst\nT:\tgit git://x\nZ:\tanything\nS:\tMaintained\nF:\ta/\n",
	  { "a/b" }, NULL, MAINTAINERS_ALL, "M Ann <ann@x.org> @A\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "a malformed line starts a section of its own",
	  "A\nM:\tAnn <ann@x.org>\nS:\tMaintained\nm:\tlower <l@x.org>\nL:\tlow@x.org\nF:\ta/\n",
	  { "a/b" }, NULL, MAINTAINERS_ALL,
	  "L low@x.org @m:\tlower <l@x.org>\nL linux-kernel@vger.kernel.org @THE REST\n" },
	{ "CRLF lines",
	  "A\r\nM:\tAnn <ann@x.org>\r\nL:\ta@x.org\r\nS:\tMaintained\r\nF:\ta/\r\n",
	  { "a/b" }, NULL, MAINTAINERS_ALL, "M Ann <ann@x.org> @A\nL a@x.org @A\nL linux-kernel@vger.kernel.org @THE REST\n" },
};

static void match_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		const struct match_case *c = &match_cases[i];
		struct buf text = BUF_INIT;
		char *got;

		buf_addf(&text, "%s%s", c->maintainers, rest);
		got = run(text.data, c->files[0] ? c->files : NULL, c->patch, c->flags);
		if (strcmp(got, c->want))
			fail_msg("%s:\n--- got\n%s--- want\n%s", c->name, got, c->want);
		free(got);
		/* the same answer from the parse's image (bot/route.h's cache) */
		got = run_with(text.data, c->files[0] ? c->files : NULL, c->patch, c->flags, 1);
		if (strcmp(got, c->want))
			fail_msg("%s, through the image:\n--- got\n%s--- want\n%s", c->name, got, c->want);
		free(got);
		buf_release(&text);
	}
}

static void sections_and_status(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct maintainers *m;
	const struct maintainers_section *s;

	(void)state;
	buf_adds(&text, "Preamble\n\tM: an indented example\n\nFOO\nS:\tSupported\nS:\tOdd Fixes\nF:\tfoo/\n");
	buf_adds(&text, rest);
	assert_int_equal(maintainers_parse("MAINTAINERS", &text, &m, &err), 0);
	assert_int_equal(text.len, 0);
	assert_int_equal(maintainers_nr_sections(m), 2);
	s = maintainers_section(m, 0);
	assert_string_equal(s->name, "FOO");
	assert_string_equal(s->status, "Odd Fixes");
	assert_int_equal(s->line, 4);
	assert_false(s->is_rest);
	assert_true(maintainers_section(m, 1)->is_rest);
	assert_string_equal(maintainers_notes(m), "");
	maintainers_free(m);
	buf_release(&err);
}

static void a_file_starting_with_a_tag(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct maintainers *m;
	struct maintainers_selection sel;
	const char *files[] = { "a/b.c" };

	(void)state;
	/* the first tag line names the section and is not read as an M: */
	buf_adds(&text, "M:\tFirst <first@x.org>\nM:\tSecond <second@x.org>\nF:\ta/b.c\n");
	assert_int_equal(maintainers_parse("MAINTAINERS", &text, &m, &err), 0);
	assert_string_equal(maintainers_section(m, 0)->name, "M:First <first@x.org>");
	assert_int_equal(maintainers_match(m, files, 1, NULL, 0, MAINTAINERS_ALL, &sel, &err), 0);
	assert_int_equal(sel.nr_entries, 1);
	assert_string_equal(sel.entries[0].address, "second@x.org");
	assert_int_equal(sel.nr_hits, 1);
	assert_int_equal(sel.hits[0].tag, 'F');
	assert_string_equal(sel.hits[0].pattern, "a/b.c");
	assert_int_equal(sel.hits[0].line, 3);
	assert_string_equal(sel.hits[0].file, "a/b.c");
	maintainers_selection_release(&sel);
	maintainers_free(m);
	buf_release(&err);
}

static void unusable_patterns_are_noted(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct maintainers *m;

	(void)state;
	buf_adds(&text, "A\nM:\ta@x.org\nN:\t\nK:\t(?<=a+)x\nF:\tfoo[\nS:\tMaintained\n");
	assert_int_equal(maintainers_parse("MAINTAINERS", &text, &m, &err), 0);
	assert_string_equal(maintainers_notes(m),
			    "MAINTAINERS:3: empty N: pattern: never matches\n"
			    "MAINTAINERS:4: (?<=a+)x: lookbehind assertion is not fixed length at offset 0: never matches\n"
			    "MAINTAINERS:5: foo[: missing terminating ] for character class at offset 5: never matches\n");
	maintainers_free(m);
	buf_release(&err);
}

/* An image keeps the notes and sections, and is refused when it is of
 * another key or damaged in any way a check can see. */
static void images(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT, image = BUF_INIT;
	struct maintainers *m, *again;
	const char *key = "0123456789abcdef0123456789abcdef01234567";
	size_t len, i, refused = 0, loaded = 0;
	char *bytes;

	(void)state;
	buf_addf(&text, "Preamble\n\nA\nM:\ta@x.org\nN:\t\nK:\t\\bfrob\nF:\tfoo[\nF:\ta/*.c\nX:\ta/x.c\n"
		 "S:\tMaintained\n%s", rest);
	assert_int_equal(maintainers_parse("MAINTAINERS", &text, &m, &err), 0);
	assert_int_equal(maintainers_image(m, key, &image), 0);
	bytes = buf_detach(&image, &len);
	assert_int_equal(maintainers_load("another key", bytes, len, &again, &err), -1);
	assert_string_equal(err.data, "a MAINTAINERS image of another file");
	assert_int_equal(maintainers_load(key, bytes, len - 8, &again, &err), -1);
	assert_string_equal(err.data, "a damaged MAINTAINERS image (its size)");
	bytes[0] ^= 1;
	assert_int_equal(maintainers_load(key, bytes, len, &again, &err), -1);
	assert_string_equal(err.data, "not a MAINTAINERS image of this perfbot");
	bytes[0] ^= 1;
	assert_int_equal(maintainers_load(key, bytes, len, &again, &err), 0);
	assert_string_equal(maintainers_notes(again), maintainers_notes(m));
	assert_int_equal(maintainers_nr_sections(again), maintainers_nr_sections(m));
	for (i = 0; i < maintainers_nr_sections(m); i++) {
		assert_string_equal(maintainers_section(again, i)->name, maintainers_section(m, i)->name);
		assert_string_equal(maintainers_section(again, i)->status, maintainers_section(m, i)->status);
		assert_int_equal(maintainers_section(again, i)->line, maintainers_section(m, i)->line);
	}
	maintainers_free(again);
	/* every byte after the text flipped in turn: refused, or loaded (a
	 * byte no check can see, such as padding) without harm */
	for (i = 256; i < len; i++) {
		char *copy = xmemdup(bytes, len);

		copy[i] ^= (char)0x80;
		if (maintainers_load(key, copy, len, &again, &err) < 0) {
			refused++;
		} else {
			static const char *const files[] = { "a/b.c", "a/x.c", "foo[" };
			struct maintainers_selection sel;

			loaded++;
			if (maintainers_match(again, files, 3, "+frob\n", 6, MAINTAINERS_ALL, &sel, &err) == 0)
				maintainers_selection_release(&sel);
			maintainers_free(again);
		}
		free(copy);
	}
	assert_true(refused > 0);
	free(bytes);
	maintainers_free(m);
	buf_release(&err);
}

/* The names of the sections selected, in order, ' ' after each. */
static void check_hits(struct maintainers *m, const char *const *files, size_t nr_files, const char *patch,
		       const char *want)
{
	struct maintainers_selection sel;
	struct buf b = BUF_INIT, err = BUF_INIT;
	size_t i;

	assert_int_equal(maintainers_match(m, files, nr_files, patch, strlen(patch), MAINTAINERS_ALL, &sel, &err), 0);
	for (i = 0; i < sel.nr_hits; i++)
		buf_addf(&b, "%s%c ", sel.hits[i].section->name, sel.hits[i].tag);
	if (strcmp(b.data ? b.data : "", want))
		fail_msg("'%.60s': sections '%s', want '%s'", patch, b.data ? b.data : "", want);
	maintainers_selection_release(&sel);
	buf_release(&b);
	buf_release(&err);
}

/* N: and K: are Perl's regexes (PCRE2): look-around and back references
 * work, from a parse and from an image alike; a pattern Perl refuses is
 * noted with its line; one that backtracks without end is given up at
 * the match limit, noted, and the match goes on. */
static void perl_patterns(void **state)
{
	static const char text_[] =
		"A\nM:\ta@x.org\nK:\t\\bkmalloc(?!_node)\\b\nS:\tMaintained\n"
		"\nB\nM:\tb@x.org\nN:\t(?<!test)_bar\\.c$\nS:\tMaintained\n"
		"\nC\nM:\tc@x.org\nK:\t(?<=a+)x\nK:\t(\\w)\\1zz\\s\nS:\tMaintained\n"
		"\nD\nM:\td@x.org\nK:\t^(\\w+\\s?)*;$\nS:\tMaintained\n";
	static const char *const files[] = { "lib/foo_bar.c", "lib/test_bar.c" };
	static const char *const test_file[] = { "lib/test_bar.c" };
	const char *key = "0123456789abcdef0123456789abcdef01234567";
	const char *refused = "MAINTAINERS:13: (?<=a+)x: lookbehind assertion is not fixed length at offset 0: never matches\n";
	struct buf text = BUF_INIT, err = BUF_INIT, image = BUF_INIT, patch = BUF_INIT;
	struct maintainers *m, *again;
	char *bytes;
	size_t len;
	int k;

	(void)state;
	buf_addf(&text, "%s%s", text_, rest);
	assert_int_equal(maintainers_parse("MAINTAINERS", &text, &m, &err), 0);
	assert_string_equal(maintainers_notes(m), refused);
	assert_int_equal(maintainers_image(m, key, &image), 0);
	bytes = buf_detach(&image, &len);
	assert_int_equal(maintainers_load(key, bytes, len, &again, &err), 0);
	for (k = 0; k < 2; k++) {
		struct maintainers *mm = k ? again : m;

		check_hits(mm, files, 2, "subject: kmalloc(x) and kmalloc_node(y)\n", "BN THE RESTF AK ");
		check_hits(mm, test_file, 1, "subject: kmalloc_node(y)\n---\n+++ b/x\n+\tmm = kmalloc(n);\n", "THE RESTF AK ");
		check_hits(mm, test_file, 1, "subject: kmalloc_node(y)\n---\n+++ b/x\n \tmm = kmalloc(n);\n", "THE RESTF ");
		/* the line's newline is matched, as get_maintainer.pl reads it */
		check_hits(mm, test_file, 1, "a line with xxzz\n", "THE RESTF CK ");
		check_hits(mm, test_file, 1, "a line with xxzz", "THE RESTF ");
		assert_string_equal(maintainers_notes(mm), refused);
		check_hits(mm, test_file, 1, "short;\n", "THE RESTF DK ");
		/* ^(\w+\s?)*;$ on a long run of word characters, then "!;" */
		buf_reset(&patch);
		buf_addchars(&patch, 'w', 3000);
		buf_adds(&patch, "!;\n");
		check_hits(mm, test_file, 1, patch.data, "THE RESTF ");
		assert_true(strstr(maintainers_notes(mm),
				   "MAINTAINERS:19: ^(\\w+\\s?)*;$: gave up matching: match limit exceeded: never matches\n"));
		check_hits(mm, test_file, 1, "short;\n", "THE RESTF ");	/* dropped since */
	}
	maintainers_free(again);
	maintainers_free(m);
	free(bytes);
	buf_release(&patch);
	buf_release(&err);
}

static void limits(void **state)
{
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct maintainers *m;
	struct maintainers_selection sel;
	static const char *many[MAINTAINERS_MAX_FILES + 1];
	char longpath[MAINTAINERS_MAX_PATH + 2];
	const char *one[1];
	size_t i;

	(void)state;
	buf_adds(&text, "A\nF:\ta/\n");
	buf_addchars(&text, 'x', MAINTAINERS_MAX_LINE + 1);
	assert_int_equal(maintainers_parse("MAINTAINERS", &text, &m, &err), -1);
	assert_string_equal(err.data, "MAINTAINERS:3: line longer than 4096 bytes");
	buf_reset(&text);
	buf_add(&text, "A\n\0", 3);
	assert_int_equal(maintainers_parse("MAINTAINERS", &text, &m, &err), -1);
	assert_string_equal(err.data, "MAINTAINERS: holds a NUL byte: not a MAINTAINERS file");
	buf_release(&text);

	buf_adds(&text, "A\nF:\ta/\n");
	assert_int_equal(maintainers_parse("MAINTAINERS", &text, &m, &err), 0);
	for (i = 0; i <= MAINTAINERS_MAX_FILES; i++)
		many[i] = "a/b";
	assert_int_equal(maintainers_match(m, many, MAINTAINERS_MAX_FILES + 1, NULL, 0, MAINTAINERS_ALL, &sel, &err), -1);
	assert_string_equal(err.data, "more than 10000 changed paths");
	assert_int_equal(maintainers_match(m, many, MAINTAINERS_MAX_FILES, NULL, 0, MAINTAINERS_ALL, &sel, &err), 0);
	assert_int_equal(sel.nr_files, 1);
	maintainers_selection_release(&sel);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	one[0] = longpath;
	assert_int_equal(maintainers_match(m, one, 1, NULL, 0, MAINTAINERS_ALL, &sel, &err), -1);
	assert_true(strstr(err.data, "path longer than 4096 bytes") == err.data);
	maintainers_free(m);
	buf_release(&err);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(match_table),
		cmocka_unit_test(sections_and_status),
		cmocka_unit_test(a_file_starting_with_a_tag),
		cmocka_unit_test(unusable_patterns_are_noted),
		cmocka_unit_test(images),
		cmocka_unit_test(perl_patterns),
		cmocka_unit_test(limits),
	};

	if (argc > 1)
		return drive(argc, argv);
	return cmocka_run_group_tests_name("maintainers", tests, NULL, NULL);
}
