/*
 * perfbot recipients [--json] FILE.json...: who would get each report and
 * why.  Each recipient with every reason it was chosen, each candidate
 * left out with why, and the MAINTAINERS sections that routed it (or why
 * there are none): exactly what render and send put in To and Cc, with
 * the state's #perfbot unsubscribe list applied.  Sends nothing, changes
 * nothing (but the routing cache, bot/route.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "render.h"
#include "report.h"
#include "value.h"
#include "banned.h"

static struct value *json_why(const struct recipient_why *w)
{
	struct value *a = value_new_array();
	size_t i;

	for (i = 0; i < w->nr; i++)
		value_array_push(a, value_new_string(w->reasons[i]));
	return a;
}

static struct value *json_person(const struct address *a, const struct recipient_why *w)
{
	struct value *o = value_new_object();

	value_object_add_string(o, "name", a->name);
	value_object_add_string(o, "email", a->email);
	value_object_add(o, "reasons", json_why(w));
	value_object_add_bool(o, "list", w->is_list);
	return o;
}

static const char *kind_name(enum maintainers_kind k)
{
	return k == MAINTAINERS_LIST ? "list" : k == MAINTAINERS_REVIEWER ? "reviewer" : "maintainer";
}

static struct value *json_routing(const struct route_result *rt)
{
	struct value *o = value_new_object(), *a;
	size_t i;

	value_object_add_bool(o, "on", rt->on);
	value_object_add(o, "off", rt->on ? value_new_null() : value_new_string(rt->off));
	value_object_add(o, "file", rt->file ? value_new_string(rt->file) : value_new_null());
	value_object_add(o, "blob", rt->blob[0] ? value_new_string(rt->blob) : value_new_null());
	a = value_object_add(o, "files", value_new_array());
	for (i = 0; i < rt->sel.nr_files; i++)
		value_array_push(a, value_new_string(rt->sel.files[i]));
	a = value_object_add(o, "sections", value_new_array());
	for (i = 0; i < rt->sel.nr_hits; i++) {
		const struct maintainers_hit *h = &rt->sel.hits[i];
		struct value *s = value_array_push(a, value_new_object());
		char tag[2] = { h->tag, '\0' };

		value_object_add_string(s, "name", h->section->name);
		value_object_add_string(s, "status", h->section->status);
		value_object_add(s, "line", value_new_integer(h->section->line));
		value_object_add_string(s, "tag", tag);
		value_object_add_string(s, "pattern", h->pattern);
		value_object_add(s, "pattern_line", value_new_integer(h->line));
		value_object_add(s, "file", h->file ? value_new_string(h->file) : value_new_null());
	}
	a = value_object_add(o, "selection", value_new_array());
	for (i = 0; i < rt->sel.nr_entries; i++) {
		const struct maintainers_entry *e = &rt->sel.entries[i];
		struct value *s = value_array_push(a, value_new_object());

		value_object_add_string(s, "role", kind_name(e->kind));
		value_object_add_string(s, "name", e->name);
		value_object_add_string(s, "email", e->address);
		value_object_add_bool(s, "moderated", e->moderated);
		value_object_add_string(s, "section", e->section->name);
		value_object_add_string(s, "status", e->section->status);
	}
	a = value_object_add(o, "steerers", value_new_array());
	for (i = 0; i < rt->nr_steerers; i++)
		value_array_push(a, value_new_string(rt->steerers[i]));
	return o;
}

static struct value *json_of(const char *file, const struct render_routing *rr)
{
	const struct recipients *rc = &rr->rcpt;
	struct value *o = value_new_object(), *a;
	size_t i;

	value_object_add_string(o, "file", file);
	value_object_add_string(o, "commit", rr->head.id);
	value_object_add_string(o, "tree", rr->tree);
	a = value_object_add(o, "to", value_new_array());
	value_array_push(a, json_person(&rc->to, &rc->to_why));
	a = value_object_add(o, "cc", value_new_array());
	for (i = 0; i < rc->nr_cc; i++)
		value_array_push(a, json_person(&rc->cc[i], &rc->cc_why[i]));
	a = value_object_add(o, "dropped", value_new_array());
	for (i = 0; i < rc->nr_dropped; i++) {
		struct value *d = value_array_push(a, json_person(&rc->dropped[i].addr,
								 &rc->dropped[i].why));

		value_object_add_string(d, "why", rc->dropped[i].because);
	}
	value_object_add(o, "routing", json_routing(&rr->route));
	return o;
}

int cmd_recipients(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf err = BUF_INIT, out = BUF_INIT;
	struct config *cfg = NULL;
	struct render_env env;
	struct value *root = NULL, *list = NULL, *errors = NULL;
	struct opt_args args;
	int json = 0, rc = 0, env_open = 0, verbose = opts->verbose;
	size_t i;
	const struct opt options[] = {
		OPT_BOOL_E(0, "json", &json, "the same as JSON (perfbot-json(5))"),
		OPT_COUNT_E('v', "verbose", &verbose, "also print what was noticed on the way (skipped trailers...)"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot recipients",
		.args = "FILE.json...",
		.min_args = 1,
		.max_args = OPT_ARGS_ANY,
		.about = "Shows who would get the report of each comparison JSON and why: every\n"
			 "recipient with each reason it was chosen, every candidate left out and\n"
			 "why, and the MAINTAINERS sections of the head commit (or why there are\n"
			 "none).  What render and send put in To and Cc; sends nothing.\n",
		.notes = "Reasons: author, perfbot.cc, tree NAME cc, a trailer's key (Signed-off-by...),\n"
			 "list: SECTION, maintainer: SECTION, reviewer: SECTION.  Left out: excluded by\n"
			 "route.exclude, unsubscribed DATE by WHO (#perfbot unsubscribe), maxRecipients.\n",
		.opts = options,
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		fprintf(stderr, "perfbot recipients: %s\n", err.data);
		rc = EX_CONFIG;
		goto done;
	}
	if (render_env_open(&env, cfg, &err) < 0) {
		fprintf(stderr, "perfbot recipients: %s\n", err.data);
		rc = EX_CONFIG;
		goto done;
	}
	env_open = 1;
	if (render_env_read_exclusions(&env, NULL, &err) < 0) {
		fprintf(stderr, "perfbot recipients: %s\n", err.data);
		rc = EX_IOERR;
		goto done;
	}
	if (json) {
		root = value_new_object();
		list = value_object_add(root, "reports", value_new_array());
		errors = value_object_add(root, "errors", value_new_array());
	}
	for (i = 0; i < args.nr; i++) {
		const char *file = args.v[i];
		struct report *report = NULL;
		struct render_routing rr;

		memset(&rr, 0, sizeof(rr));
		buf_init(&rr.notes);
		buf_reset(&err);
		if (strcmp(file, "-") && access(file, R_OK) < 0) {
			err_set(&err, "%s: cannot read: %s", file, strerror(errno));
			if (!rc || rc == EX_DATAERR)
				rc = EX_NOINPUT;
		} else if (report_load_file(file, &report, &err) < 0 ||
			   render_routing(&env, report, &rr, &err) < 0) {
			if (!rc)
				rc = EX_DATAERR;
		} else {
			if (json) {
				value_array_push(list, json_of(file, &rr));
			} else {
				buf_addf(&out, "%s%s: commit %.12s, tree %s\n", out.len ? "\n" : "", file,
					 rr.head.id, rr.tree);
				render_routing_text(&out, &rr.rcpt, &rr.route);
			}
			if (verbose && rr.notes.len)
				fputs(rr.notes.data, stderr);
		}
		if (err.len) {
			fprintf(stderr, "perfbot recipients: %s\n", err.data);
			if (json) {
				struct value *e = value_array_push(errors, value_new_object());

				value_object_add_string(e, "file", file);
				value_object_add_string(e, "error", err.data);
			}
		}
		render_routing_release(&rr);
		report_free(report);
	}
	if (json) {
		value_write_json(&out, root, 2);
		buf_addc(&out, '\n');
	}
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "perfbot recipients: cannot write to stdout: %s\n", strerror(errno));
		rc = EX_IOERR;
	}
done:
	value_free(root);
	if (env_open)
		render_env_close(&env);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&out);
	return rc;
}
