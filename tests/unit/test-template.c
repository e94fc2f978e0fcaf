#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "json.h"
#include "template.h"
#include "value.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct partial {
	const char *name, *text;
};

struct render_case {
	const char *tpl;		/* parsed as template "t" */
	const char *json;		/* the data */
	int lenient, html;
	const char *want;		/* the output, or NULL if an error is wanted */
	const char *want_err;		/* the exact message */
	struct partial partials[4];	/* added to the set, which has no folder */
};

static struct value *data_of(const char *json)
{
	struct value *v = NULL;
	struct buf err = BUF_INIT;

	if (json_parse(json, strlen(json), "data", &v, &err) < 0)
		fail_msg("bad test data %s: %s", json, err.data);
	buf_release(&err);
	return v;
}

static void run_cases(const struct render_case *cases, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct render_case *c = &cases[i];
		struct template_options opt = { c->lenient, c->html };
		struct template_set *set = template_set_new(NULL);
		struct template *t = NULL;
		struct buf out = BUF_INIT, err = BUF_INIT;
		struct value *data = data_of(c->json);
		int r;

		for (k = 0; k < ARRAY_SIZE(c->partials) && c->partials[k].name; k++)
			if (template_set_add(set, c->partials[k].name, c->partials[k].text,
					     strlen(c->partials[k].text), &err) < 0)
				fail_msg("case %zu: partial %s: %s", i, c->partials[k].name, err.data);
		if (template_parse("t", c->tpl, strlen(c->tpl), &t, &err) < 0)
			fail_msg("case %zu: %s", i, err.data);
		r = template_render(set, t, data, &opt, &out, &err);
		if (c->want) {
			if (r < 0)
				fail_msg("case %zu (%s): %s", i, c->tpl, err.data);
			if (strcmp(out.data, c->want))
				fail_msg("case %zu (%s): want \"%s\" got \"%s\"", i, c->tpl, c->want, out.data);
		} else {
			if (r == 0)
				fail_msg("case %zu (%s): no error, output \"%s\"", i, c->tpl, out.data);
			if (strcmp(err.data, c->want_err))
				fail_msg("case %zu (%s): want error \"%s\" got \"%s\"", i, c->tpl,
					 c->want_err, err.data);
			assert_int_equal(out.len, 0);
		}
		template_free(t);
		template_set_free(set);
		value_free(data);
		buf_release(&out);
		buf_release(&err);
	}
}

static void strict_mode_errors_name_the_line(void **state)
{
	static const struct render_case cases[] = {
		{ "a\nb\n{{x}}", "{}", 0, 0, NULL, "t:3: unknown name 'x'" },
		{ "{{#a}}\n\n{{a.b}}{{/a}}", "{\"a\":{}}", 0, 0, NULL, "t:3: unknown name 'a.b'" },
		{ "ok\n\n\n{{#nope}}x{{/nope}}", "{}", 0, 0, NULL, "t:4: unknown name 'nope'" },
		{ "{{{foo.bar}}}", "{\"foo\":1}", 0, 0, NULL, "t:1: unknown name 'foo.bar'" },
		{ "line\n{{>p}}", "{}", 0, 0, NULL, "t:2: no partial 'p'" },
		{ "{{<p}}{{/p}}", "{}", 0, 0, NULL, "t:1: no parent 'p'" },
		{ "{{>p}}", "{}", 0, 0, NULL, "p:2: unknown name 'y'",
		  .partials = { { "p", "x\n{{y}}" } } },
		/* Not errors: */
		{ "{{^nope}}yes{{/nope}}", "{}", 0, 0, "yes" },
		{ "{{^a.b}}none{{/a.b}}", "{\"a\":{}}", 0, 0, "none" },
		{ "[{{n}}|{{#n}}x{{/n}}]", "{\"n\":null}", 0, 0, "[|]" },
		{ "{{#a}}{{b}}{{/a}}", "{\"a\":[{\"b\":1},{}],\"b\":2}", 0, 0, "12" },
		/* The same in lenient mode: */
		{ "a\nb\n{{x}}|{{#x}}no{{/x}}|{{>p}}|{{<q}}{{/q}}", "{}", 1, 0, "a\nb\n|||" },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

static void parse_errors_name_the_line(void **state)
{
	static const struct {
		const char *tpl, *want;
	} cases[] = {
		{ "{{x", "t:1: unclosed tag: '{{' without a matching '}}'" },
		{ "a\n{{{x}}", "t:2: unclosed tag: '{{{' without a matching '}}}'" },
		{ "{{!\n\n", "t:1: unclosed tag: '{{!' without a matching '}}'" },
		{ "{{#a}}\n{{#b}}\n{{/b}}", "t:1: section 'a' is not closed" },
		{ "{{^a}}", "t:1: inverted section 'a' is not closed" },
		{ "{{$b}}", "t:1: block 'b' is not closed" },
		{ "\n{{<p}}", "t:2: parent 'p' is not closed" },
		{ "{{#a}}{{/b}}", "t:1: closing tag '/b' does not match section 'a' opened on line 1" },
		{ "{{^a}}\n\n{{/b}}", "t:3: closing tag '/b' does not match inverted section 'a' opened on line 1" },
		{ "x\n{{/a}}", "t:2: closing tag '/a' without an open section" },
		{ "{{!\n\n}}\n{{/x}}", "t:4: closing tag '/x' without an open section" },
		{ "{{}}", "t:1: tag without a name" },
		{ "{{#}}{{/}}", "t:1: tag without a name" },
		{ "{{a b}}", "t:1: invalid name 'a b'" },
		{ "{{a..b}}", "t:1: invalid name 'a..b'" },
		{ "{{#.a}}{{/.a}}", "t:1: invalid name '.a'" },
		{ "{{>../x}}", "t:1: invalid template name '../x' (want [A-Za-z0-9._-]+, not starting with '.')" },
		{ "{{<.p}}{{/.p}}", "t:1: invalid template name '.p' (want [A-Za-z0-9._-]+, not starting with '.')" },
		{ "{{>a/b}}", "t:1: invalid template name 'a/b' (want [A-Za-z0-9._-]+, not starting with '.')" },
		{ "{{=a=}}", "t:1: bad delimiter tag '=a=': want two words of at most 16 bytes without blanks or '=', like {{=<% %>=}}" },
		{ "\n{{=<% %> x=}}", "t:2: bad delimiter tag '=<% %> x=': want two words of at most 16 bytes without blanks or '=', like {{=<% %>=}}" },
		{ "{{=a= b=}}", "t:1: bad delimiter tag '=a= b=': want two words of at most 16 bytes without blanks or '=', like {{=<% %>=}}" },
		{ "{{=<% %>=}}\n<%x", "t:2: unclosed tag: '<%' without a matching '%>'" },
		{ "{{=<% %>=}}<%={{ }}=%>\n\n{{x", "t:3: unclosed tag: '{{' without a matching '}}'" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct template *t = NULL;
		struct buf err = BUF_INIT;

		if (template_parse("t", cases[i].tpl, strlen(cases[i].tpl), &t, &err) == 0)
			fail_msg("case %zu (%s): parsed", i, cases[i].tpl);
		assert_null(t);
		if (strcmp(err.data, cases[i].want))
			fail_msg("case %zu (%s): want \"%s\" got \"%s\"", i, cases[i].tpl,
				 cases[i].want, err.data);
		buf_release(&err);
	}
}

static void html_escaping_is_an_option(void **state)
{
	static const struct render_case cases[] = {
		{ "{{x}}|{{{x}}}|{{&x}}", "{\"x\":\"<a href=\\\"&\\\">'\"}", 0, 0,
		  "<a href=\"&\">'|<a href=\"&\">'|<a href=\"&\">'" },
		{ "{{x}}|{{{x}}}|{{&x}}", "{\"x\":\"<a href=\\\"&\\\">'\"}", 0, 1,
		  "&lt;a href=&quot;&amp;&quot;&gt;'|<a href=\"&\">'|<a href=\"&\">'" },
		{ "{{a}}|{{{a}}}", "{\"a\":[\"q\"]}", 0, 1, "[&quot;q&quot;]|[\"q\"]" },
		{ "{{#l}}{{.}}{{/l}}", "{\"l\":[\"&\",\"<\"]}", 1, 1, "&amp;&lt;" },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

static void values_print_like_value_format(void **state)
{
	static const struct render_case cases[] = {
		{ "{{t}} {{f}} {{i}} {{d}} [{{z}}] {{o}} {{s}}",
		  "{\"t\":true,\"f\":false,\"i\":85,\"d\":1.21,\"z\":null,\"o\":{\"k\":[1,\"v\"]},\"s\":\"\"}",
		  0, 0, "true false 85 1.21 [] {\"k\":[1,\"v\"]} " },
		{ "{{.}}", "-0.5", 0, 0, "-0.5" },
		{ "{{#s}}[{{.}}]{{/s}}{{#z}}zero{{/z}}{{#e}}empty{{/e}}{{^e}}none{{/e}}",
		  "{\"s\":\"\",\"z\":0,\"e\":[]}", 0, 0, "[]zeronone" },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

static void dotted_names_follow_the_context_stack(void **state)
{
	static const struct render_case cases[] = {
		{ "{{a.b.c}}", "{\"a\":{\"b\":{\"c\":\"deep\"}}}", 0, 0, "deep" },
		/* The first part is looked up the stack, the rest inside it. */
		{ "{{#a}}{{b.c}}{{/a}}", "{\"a\":{\"b\":{}},\"b\":{\"c\":\"no\"}}", 1, 0, "" },
		{ "{{#a}}{{b.c}}{{/a}}", "{\"a\":{\"b\":{}},\"b\":{\"c\":\"no\"}}", 0, 0, NULL,
		  "t:1: unknown name 'b.c'" },
		{ "{{#a}}{{x.y}}{{/a}}", "{\"a\":{},\"x\":{\"y\":\"up\"}}", 0, 0, "up" },
		{ "{{a.b}}", "{\"a.b\":\"key\",\"a\":{\"b\":\"path\"}}", 0, 0, "path" },
		{ "{{#a.b}}{{c}}{{/a.b}}", "{\"a\":{\"b\":[{\"c\":1},{\"c\":2}]}}", 0, 0, "12" },
		{ "{{#l}}{{#.}}({{.}}){{/.}}{{/l}}", "{\"l\":[[1,2],[\"x\"]]}", 0, 0, "(1)(2)(x)" },
		{ "{{a.0}}", "{\"a\":[\"no index\"]}", 1, 0, "" },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

static void standalone_lines_vanish(void **state)
{
	static const struct render_case cases[] = {
		{ "a\n  {{#s}}\n  b\n  {{/s}}\nc\n", "{\"s\":true}", 0, 0, "a\n  b\nc\n" },
		{ "a\r\n{{^s}}\r\nb\r\n{{/s}}\r\nc", "{\"s\":false}", 0, 0, "a\r\nb\r\nc" },
		{ "a\n\t{{! note }}\t\nb\n{{=<% %>=}}\n<%x%>\n", "{\"x\":1}", 0, 0, "a\nb\n1\n" },
		{ "  {{#s}}\n#{{/s}}\n/", "{\"s\":true}", 0, 0, "#\n/" },
		{ "#{{#s}}\n/\n  {{/s}}", "{\"s\":true}", 0, 0, "#\n/\n" },
		/* Interpolations and shared lines are never standalone. */
		{ "  {{x}}\n {{#s}}y{{/s}}\n", "{\"x\":\"-\",\"s\":true}", 0, 0, "  -\n y\n" },
		{ "| {{#s}} {{! c }}\n {{/s}} |\n", "{\"s\":true}", 0, 0, "|  \n  |\n" },
		/* Partials: standalone ones indent every line of the partial. */
		{ "a\n  {{>p}}\nb\n", "{\"x\":\"1\\n2\"}", 0, 0, "a\n  p1\n\n  {{x}}:1\n2\nb\n",
		  .partials = { { "p", "p1\n\n{{=| |=}}{{x}}:|x|\n" } } },
		{ "a {{>p}}\n", "{}", 0, 0, "a x\ny\n",
		  .partials = { { "p", "x\ny" } } },
		/* q's line is not standalone in p, so q is not indented. */
		{ "  {{>p}}", "{}", 0, 0, "  x\n    y\nz",
		  .partials = { { "p", "x\n{{>q}}z" }, { "q", "  y\n" } } },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

static void inheritance_overrides_blocks(void **state)
{
#define REPORT { "report", "{{$greeting}}\nHello,\n{{/greeting}}\nbody {{x}}\n{{$sig}}\n-- \nbot\n{{/sig}}\n" }
	static const struct render_case cases[] = {
		{ "{{$b}}default{{/b}}", "{}", 0, 0, "default" },
		{ "{{<report}}{{/report}}", "{\"x\":1}", 0, 0, "Hello,\nbody 1\n-- \nbot\n",
		  .partials = { REPORT } },
		{ "{{<report}}\n{{$greeting}}\nHi all,\n{{/greeting}}\n{{/report}}\n", "{\"x\":1}", 0, 0,
		  "Hi all,\nbody 1\n-- \nbot\n", .partials = { REPORT } },
		/* Text in a parent is ignored; the outermost override wins. */
		{ "{{<m}} junk {{$a}}top{{/a}} junk {{/m}}", "{}", 0, 0, "top-b",
		  .partials = { { "m", "{{<g}}{{$a}}mid{{/a}}{{$b}}b{{/b}}{{/g}}" }, { "g", "{{$a}}g{{/a}}-{{$b}}{{/b}}" } } },
		/* Blocks are rendered in the context of their expansion site. */
		{ "{{<p}}{{$b}}{{v}}{{/b}}{{/p}}", "{\"v\":\"out\",\"n\":{\"v\":\"in\"}}", 0, 0, "in",
		  .partials = { { "p", "{{#n}}{{$b}}x{{/b}}{{/n}}" } } },
		/* Re-indentation: the block's own indentation goes, the site's comes. */
		{ "{{<p}}{{$b}}\n    one\n      two\n{{/b}}{{/p}}\n", "{}", 0, 0, "<\n  one\n    two\n>\n",
		  .partials = { { "p", "<\n  {{$b}}\n  {{/b}}\n>\n" } } },
		{ "x\n  {{<p}}{{/p}}\ny\n", "{}", 0, 0, "x\n  a\n  b\ny\n",
		  .partials = { { "p", "a\nb\n" } } },
		/* An override that expands itself ends at the depth limit. */
		{ "{{<p}}{{$b}}<{{$b}}{{/b}}>{{/b}}{{/p}}", "{}", 1, 0, NULL,
		  "t:1: partials, parents and blocks nested deeper than 64 (endless recursion?)",
		  .partials = { { "p", "{{$b}}{{/b}}" } } },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

static void template_names_cannot_leave_the_folder(void **state)
{
	static const struct {
		const char *name;
		int valid;
	} cases[] = {
		{ "report", 1 }, { "report-legacy", 1 }, { "a.b_c-9", 1 }, { "x.", 1 },
		{ "", 0 }, { ".hidden", 0 }, { "..", 0 }, { "../etc/passwd", 0 }, { "a/b", 0 },
		{ "a b", 0 }, { "a\\b", 0 }, { "\xc3\xa9", 0 }, { "a\n", 0 },
	};
	char longname[TEMPLATE_MAX_NAME + 2];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct template_set *set = template_set_new("/nonexistent");
		const struct template *t;
		struct buf err = BUF_INIT;
		int added;

		assert_int_equal(template_name_valid(cases[i].name), cases[i].valid);
		added = template_set_add(set, cases[i].name, "x", 1, &err) == 0;
		if (added != cases[i].valid)
			fail_msg("case %zu ('%s'): add gave %d: %s", i, cases[i].name, added, err.data);
		if (!cases[i].valid) {
			assert_int_equal(template_set_get(set, cases[i].name, &t, &err), -1);
			assert_null(t);
			assert_non_null(strstr(err.data, "invalid template name"));
		}
		template_set_free(set);
		buf_release(&err);
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(template_name_valid(longname), 0);
	longname[TEMPLATE_MAX_NAME] = '\0';
	assert_int_equal(template_name_valid(longname), 1);
}

static void nesting_is_limited(void **state)
{
	struct buf tpl = BUF_INIT, err = BUF_INIT, out = BUF_INIT;
	struct template *t = NULL;
	struct value *data = data_of("{\"a\":true}");
	int i;

	(void)state;
	for (i = 0; i < TEMPLATE_MAX_NESTING; i++)
		buf_adds(&tpl, "{{#a}}");
	buf_adds(&tpl, "x");
	for (i = 0; i < TEMPLATE_MAX_NESTING; i++)
		buf_adds(&tpl, "{{/a}}");
	assert_int_equal(template_parse("t", tpl.data, tpl.len, &t, &err), 0);
	assert_int_equal(template_render(NULL, t, data, NULL, &out, &err), 0);
	assert_string_equal(out.data, "x");
	template_free(t);

	buf_reset(&tpl);
	for (i = 0; i < TEMPLATE_MAX_NESTING; i++)
		buf_adds(&tpl, "{{#a}}\n");
	buf_adds(&tpl, "{{$b}}");
	assert_int_equal(template_parse("t", tpl.data, tpl.len, &t, &err), -1);
	assert_string_equal(err.data, "t:65: sections nested deeper than 64");

	buf_release(&tpl);
	buf_release(&out);
	buf_release(&err);
	value_free(data);
}

/* The spec's recursive partial, over data nested n deep. */
static struct value *tree(int n)
{
	struct value *root = value_new_object(), *v = root;

	while (n-- > 0) {
		struct value *child = value_new_object();

		value_object_set(v, "c", value_new_integer(n));
		value_array_push(value_object_set(v, "nodes", value_new_array()), child);
		v = child;
	}
	value_object_set(v, "c", value_new_string("."));
	value_object_set(v, "nodes", value_new_array());
	return root;
}

static void recursive_partials_end_at_the_depth_limit(void **state)
{
	static const char node[] = "{{c}}<{{#nodes}}{{>node}}{{/nodes}}>";
	struct template_set *set = template_set_new(NULL);
	const struct template *t;
	struct buf out = BUF_INIT, err = BUF_INIT;
	struct value *ok = tree(TEMPLATE_MAX_DEPTH), *deep = tree(TEMPLATE_MAX_DEPTH + 1);
	struct template_options lenient = { 1, 0 };

	(void)state;
	assert_int_equal(template_set_add(set, "node", node, strlen(node), &err), 0);
	assert_int_equal(template_set_add(set, "self", "x{{>self}}", 10, &err), 0);
	assert_int_equal(template_set_get(set, "node", &t, &err), 0);
	assert_int_equal(template_render(set, t, ok, NULL, &out, &err), 0);
	assert_int_equal(strncmp(out.data, "63<62<61<", 9), 0);

	buf_reset(&out);
	buf_adds(&out, "kept");
	assert_int_equal(template_render(set, t, deep, NULL, &out, &err), -1);
	assert_string_equal(err.data, "node:1: partials, parents and blocks nested deeper than 64 (endless recursion?)");
	assert_string_equal(out.data, "kept");

	assert_int_equal(template_set_get(set, "self", &t, &err), 0);
	assert_int_equal(template_render(set, t, ok, &lenient, &out, &err), -1);
	assert_string_equal(err.data, "self:1: partials, parents and blocks nested deeper than 64 (endless recursion?)");
	assert_string_equal(out.data, "kept");

	value_free(ok);
	value_free(deep);
	template_set_free(set);
	buf_release(&out);
	buf_release(&err);
}

static void size_output_and_time_are_limited(void **state)
{
	struct buf tpl = BUF_INIT, err = BUF_INIT, out = BUF_INIT;
	struct template *t = NULL;
	struct value *data = data_of("{\"x\":\"0123456789abcdef\",\"l\":[1,2,3,4,5,6,7,8,9,10]}");
	int i;

	(void)state;
	buf_addchars(&tpl, 'x', TEMPLATE_MAX_SIZE + 1);
	assert_int_equal(template_parse("big", tpl.data, tpl.len, &t, &err), -1);
	assert_string_equal(err.data, "big: template is larger than 1048576 bytes");

	/* The caller's cap on out is kept; out is left as it was. */
	assert_int_equal(template_parse("t", "a\n{{x}}{{x}}", 12, &t, &err), 0);
	buf_adds(&out, "abc");
	out.limit = 30;
	assert_int_equal(template_render(NULL, t, data, NULL, &out, &err), -1);
	assert_string_equal(err.data, "t:2: output is longer than 27 bytes");
	assert_string_equal(out.data, "abc");
	assert_int_equal(out.limit, 30);
	template_free(t);

	/* The same in a set that escapes: each "<" is "&lt;", written
	 * straight into out while it surely fits, and the cap still holds
	 * when it does not (at every cap around the output's length). */
	{
		struct template_set *set = template_set_new(NULL);
		struct value *lt = data_of("{\"x\":\"a<b<c<d<e<f<\"}");
		const struct template *st;
		static const char want[] = "abca&lt;b&lt;c&lt;d&lt;e&lt;f&lt;|a&lt;b&lt;c&lt;d&lt;e&lt;f&lt;";
		size_t cap;

		template_set_mode(set, "", TEMPLATE_ESCAPE_HTML);
		assert_int_equal(template_set_add(set, "h", "{{x}}|{{x}}", 11, &err), 0);
		assert_int_equal(template_set_get(set, "h", &st, &err), 0);
		for (cap = 3; cap < sizeof(want) + 300; cap++) {
			buf_reset(&out);
			buf_adds(&out, "abc");
			out.limit = cap;
			if (cap < sizeof(want) - 1) {
				assert_int_equal(template_render(set, st, lt, NULL, &out, &err), -1);
				assert_string_equal(out.data, "abc");
			} else {
				assert_int_equal(template_render(set, st, lt, NULL, &out, &err), 0);
				assert_string_equal(out.data, want);
			}
			assert_int_equal(out.limit, cap);
		}
		out.limit = 0;
		value_free(lt);
		template_set_free(set);
	}

	/* Output past TEMPLATE_MAX_OUTPUT fails, unless the render's
	 * max_output allows it (the site's lists of 60,000 reports); a
	 * smaller max_output is a cap too. */
	{
		struct value *big = value_new_object(), *l;
		struct template_options more = { .max_output = TEMPLATE_MAX_OUTPUT + (1u << 20) };
		struct template_options less = { .max_output = 100 };

		buf_reset(&tpl);
		buf_addchars(&tpl, 'y', (TEMPLATE_MAX_OUTPUT >> 4) + 1);
		value_object_add(big, "s", value_new_string(tpl.data));
		l = value_object_add(big, "l", value_new_array());
		for (i = 0; i < 16; i++)
			value_array_push(l, value_new_integer(i));
		assert_int_equal(template_parse("t", "{{#l}}{{{s}}}{{/l}}", 19, &t, &err), 0);
		buf_reset(&out);
		assert_int_equal(template_render(NULL, t, big, NULL, &out, &err), -1);
		assert_string_equal(err.data, "t:1: output is longer than 16777216 bytes");
		assert_int_equal(out.len, 0);
		assert_int_equal(template_render(NULL, t, big, &more, &out, &err), 0);
		assert_int_equal(out.len, TEMPLATE_MAX_OUTPUT + 16);
		assert_int_equal(out.limit, 0);
		buf_reset(&out);
		assert_int_equal(template_render(NULL, t, big, &less, &out, &err), -1);
		assert_string_equal(err.data, "t:1: output is longer than 100 bytes");
		template_free(t);
		value_free(big);
		buf_release(&out);
		buf_init(&out);
	}

	/* Sections over lists that print nothing still end. */
	buf_reset(&tpl);
	for (i = 0; i < 9; i++)
		buf_adds(&tpl, "{{#l}}");
	for (i = 0; i < 9; i++)
		buf_adds(&tpl, "{{/l}}");
	assert_int_equal(template_parse("t", tpl.data, tpl.len, &t, &err), 0);
	assert_int_equal(template_render(NULL, t, data, NULL, &out, &err), -1);
	assert_string_equal(err.data, "t:1: rendering takes more than 16777216 steps");
	template_free(t);

	buf_release(&tpl);
	buf_release(&out);
	buf_release(&err);
	value_free(data);
}

static void a_parsed_template_renders_the_same_every_time(void **state)
{
	static const char report[] = "{{$g}}\nHello,\n{{/g}}\n{{#rows}}\n  {{>row}}\n{{/rows}}\n";
	static const char child[] = "{{<report}}\n{{$g}}\nHi,\n{{/g}}\n{{/report}}";
	struct template_set *set = template_set_new(NULL);
	const struct template *t;
	struct buf first = BUF_INIT, again = BUF_INIT, err = BUF_INIT;
	struct value *data = data_of("{\"rows\":[{\"a\":1,\"b\":\"x\"},{\"a\":2,\"b\":\"y\"}]}");
	int i;

	(void)state;
	assert_int_equal(template_set_add(set, "report", report, strlen(report), &err), 0);
	assert_int_equal(template_set_add(set, "row", "{{a}}\n{{b}}\n", 12, &err), 0);
	assert_int_equal(template_set_add(set, "child", child, strlen(child), &err), 0);
	assert_int_equal(template_set_add(set, "row", "again", 5, &err), -1);
	assert_string_equal(err.data, "template 'row' is already in the set");
	assert_int_equal(template_set_get(set, "child", &t, &err), 0);
	assert_int_equal(template_render(set, t, data, NULL, &first, &err), 0);
	assert_string_equal(first.data, "Hi,\n  1\n  x\n  2\n  y\n");
	for (i = 0; i < 3; i++) {
		buf_reset(&again);
		assert_int_equal(template_render(set, t, data, NULL, &again, &err), 0);
		assert_string_equal(again.data, first.data);
	}
	/* Rendering appends. */
	assert_int_equal(template_render(set, t, data, NULL, &again, &err), 0);
	assert_int_equal(again.len, 2 * first.len);

	template_set_free(set);
	value_free(data);
	buf_release(&first);
	buf_release(&again);
	buf_release(&err);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void a_set_reads_each_file_once(void **state)
{
	char dir[] = "/tmp/test-template.XXXXXX";
	struct template_set *set;
	const struct template *t, *t2;
	struct buf out = BUF_INIT, err = BUF_INIT, want = BUF_INIT;
	struct value *data = data_of("{\"x\":1}");
	char path[600];

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_file(dir, "main.txt", "[{{>foot}}]");
	write_file(dir, "foot.txt", "{{x}}");
	write_file(dir, "broken.txt", "a\n{{#x}}");
	write_file(dir, "uses-missing.txt", "\n{{>nope}}");
	set = template_set_new(dir);

	assert_int_equal(template_set_get(set, "main", &t, &err), 0);
	assert_string_equal(template_name(t), (snprintf(path, sizeof(path), "%s/main.txt", dir), path));
	assert_int_equal(template_render(set, t, data, NULL, &out, &err), 0);
	assert_string_equal(out.data, "[1]");
	/* Parsed once: a changed file is not read again. */
	write_file(dir, "foot.txt", "changed");
	assert_int_equal(template_set_get(set, "main", &t2, &err), 0);
	assert_ptr_equal(t, t2);
	buf_reset(&out);
	assert_int_equal(template_render(set, t, data, NULL, &out, &err), 0);
	assert_string_equal(out.data, "[1]");

	assert_int_equal(template_set_get(set, "nope", &t, &err), -1);
	buf_addf(&want, "%s/nope.txt: no such template", dir);
	assert_string_equal(err.data, want.data);

	assert_int_equal(template_set_get(set, "broken", &t, &err), -1);
	buf_reset(&want);
	buf_addf(&want, "%s/broken.txt:2: section 'x' is not closed", dir);
	assert_string_equal(err.data, want.data);

	assert_int_equal(template_set_get(set, "uses-missing", &t, &err), 0);
	assert_int_equal(template_render(set, t, data, NULL, &out, &err), -1);
	buf_reset(&want);
	buf_addf(&want, "%s/uses-missing.txt:2: no partial 'nope' (%s/nope.txt does not exist)", dir, dir);
	assert_string_equal(err.data, want.data);

	template_set_free(set);
	value_free(data);
	buf_release(&out);
	buf_release(&err);
	buf_release(&want);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* Folders layer: a lab's folder holds only what it changes; a child there
 * finds its parent and partials in the folders after it. */
static void folders_layer(void **state)
{
	char lab[] = "/tmp/test-template-lab.XXXXXX", shipped[] = "/tmp/test-template-ship.XXXXXX";
	struct template_set *set;
	const struct template *t;
	struct buf out = BUF_INIT, err = BUF_INIT, want = BUF_INIT;
	struct value *data = data_of("{\"x\":1}");
	char cmd[200];

	(void)state;
	assert_non_null(mkdtemp(lab));
	assert_non_null(mkdtemp(shipped));
	write_file(shipped, "report.txt", "{{$greeting}}Hello{{/greeting}} {{>foot}} {{>sig}}");
	write_file(shipped, "foot.txt", "shipped foot {{x}}");
	write_file(shipped, "sig.txt", "shipped sig");
	write_file(lab, "mylab.txt", "{{<report}}{{$greeting}}Hi{{/greeting}}{{/report}}");
	write_file(lab, "sig.txt", "lab sig");
	set = template_set_new(lab);
	template_set_add_dir(set, shipped);

	assert_int_equal(template_set_get(set, "mylab", &t, &err), 0);
	assert_int_equal(template_render(set, t, data, NULL, &out, &err), 0);
	/* the child's block, the shipped parent and foot, the lab's partial */
	assert_string_equal(out.data, "Hi shipped foot 1 lab sig");
	/* the shipped template itself sees the lab's partial too: the lab's
	 * folder comes first for every name */
	buf_reset(&out);
	assert_int_equal(template_set_get(set, "report", &t, &err), 0);
	assert_int_equal(template_render(set, t, data, NULL, &out, &err), 0);
	assert_string_equal(out.data, "Hello shipped foot 1 lab sig");
	/* missing everywhere: the message names every folder */
	assert_int_equal(template_set_get(set, "nope", &t, &err), -1);
	buf_addf(&want, "nope.txt in %s or %s: no such template", lab, shipped);
	assert_string_equal(err.data, want.data);

	template_set_free(set);
	value_free(data);
	buf_release(&out);
	buf_release(&err);
	buf_release(&want);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", lab, shipped);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strict_mode_errors_name_the_line),
		cmocka_unit_test(folders_layer),
		cmocka_unit_test(parse_errors_name_the_line),
		cmocka_unit_test(html_escaping_is_an_option),
		cmocka_unit_test(values_print_like_value_format),
		cmocka_unit_test(dotted_names_follow_the_context_stack),
		cmocka_unit_test(standalone_lines_vanish),
		cmocka_unit_test(inheritance_overrides_blocks),
		cmocka_unit_test(template_names_cannot_leave_the_folder),
		cmocka_unit_test(nesting_is_limited),
		cmocka_unit_test(recursive_partials_end_at_the_depth_limit),
		cmocka_unit_test(size_output_and_time_are_limited),
		cmocka_unit_test(a_parsed_template_renders_the_same_every_time),
		cmocka_unit_test(a_set_reads_each_file_once),
	};

	return cmocka_run_group_tests_name("template", tests, NULL, NULL);
}
