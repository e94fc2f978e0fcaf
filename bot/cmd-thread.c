/*
 * perfbot thread ID [--mbox | --json]: a report's thread, by the report's
 * number or any Message-ID in it: an indented overview (date, author,
 * subject, as lore's thread overview) followed by the commands of its
 * maintainers and operators, the whole thread as an mbox that mutt -f and
 * b4 open, or JSON (perfbot-json(5)).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "archive.h"
#include "cmd.h"
#include "config.h"
#include "date.h"
#include "mboxrd.h"
#include "state.h"
#include "thread.h"
#include "value.h"
#include "xalloc.h"
#include "banned.h"

/* The report's own Message-ID for ID (a number or a Message-ID). */
static int find_root(struct state *st, const char *id, char **root, int64_t *report_id,
		     struct buf *err)
{
	struct state_report r;
	struct state_message m;
	int64_t n;
	char *mid;
	int e = cmd_report_number(id, &n, err);

	if (e < 0)
		return -1;
	if (e) {
		e = state_report_get(st, n, &r, err);
		if (e <= 0)
			return e < 0 ? -1 : err_set(err, "no report %" PRId64 " (perfbot status lists them)", n);
		*report_id = r.thread_id ? r.thread_id : r.id;
		state_report_release(&r);
	} else {
		mid = cmd_strip_angles(id);
		e = state_message_find(st, mid, &m, err);
		if (e <= 0) {
			if (e == 0)
				err_set(err, "no mail <%s> is known (perfbot ingest keeps replies)", mid);
			free(mid);
			return -1;
		}
		*report_id = m.report_id;
		state_message_release(&m);
		if (!*report_id) {
			err_set(err, "<%s> is in no report's thread", mid);
			free(mid);
			return -1;
		}
		free(mid);
	}
	e = state_report_get(st, *report_id, &r, err);
	if (e <= 0)
		return e < 0 ? -1 : err_set(err, "report %lld is gone", (long long)*report_id);
	*root = xstrdup(r.message_id);
	state_report_release(&r);
	return 0;
}

static void print_overview(const struct thread_entry *t, size_t n, const struct config *cfg,
			   const struct state_tracked *tr)
{
	struct buf line = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct state_message *m = t[i].m;
		struct date_civil c;
		int d;

		buf_reset(&line);
		if (m->date) {
			date_to_civil(m->date, 0, &c);
			buf_addf(&line, "%04lld-%02d-%02d %02d:%02d ", (long long)c.year, c.month, c.day,
				 c.hour, c.minute);
		} else {
			buf_adds(&line, "(no date)        ");
		}
		for (d = 1; d < t[i].depth; d++)
			buf_adds(&line, "  ");
		if (t[i].depth)
			buf_adds(&line, "` ");
		buf_addf(&line, "%s  %s%s%s\n", *m->from_name ? m->from_name : m->from_email,
			 m->subject, m->quarantined ? "  [quarantined]" : "",
			 m->unsent ? "  [not sent yet]" : "");
		/* the report's fix facts under the report (perfbot-track(1)) */
		if (!t[i].depth && tr)
			cmd_fix_lines(&line, "                   ", cfg, tr);
		fputs(line.data, stdout);
	}
	buf_release(&line);
}

/* The commands of the thread's maintainers and operators, after it. */
static void print_commands(const struct state_commands *c)
{
	struct buf line = BUF_INIT;
	struct date_civil d;
	size_t i;

	for (i = 0; i < c->nr; i++) {
		const struct state_command *x = &c->v[i];

		buf_reset(&line);
		if (!i)
			buf_adds(&line, "\ncommands:\n");
		if (x->date) {
			date_to_civil(x->date, 0, &d);
			buf_addf(&line, "%04lld-%02d-%02d %02d:%02d ", (long long)d.year, d.month, d.day,
				 d.hour, d.minute);
		} else {
			buf_adds(&line, "(no date)        ");
		}
		buf_addf(&line, "report %lld  %s%s%s%s  by %s", (long long)x->report_id,
			 x->message_id ? "#perfbot " : "", x->name,
			 *x->args ? (x->message_id ? " " : ": ") : "", x->args, x->author);
		if (!x->applied)
			buf_addf(&line, "  not applied: %s", x->why ? x->why : "");
		buf_addc(&line, '\n');
		fputs(line.data, stdout);
	}
	buf_release(&line);
}

/* A message's recorded #perfbot commands (with their outcome) and
 * trailers, for --json. */
static void json_recorded(struct value *e, const char *mid, const struct state_commands *cmds,
			  const struct state_trailers *trailers)
{
	struct value *a = value_object_add(e, "commands", value_new_array());
	size_t i;

	for (i = 0; i < cmds->nr; i++) {
		const struct state_command *c = &cmds->v[i];
		struct value *o;

		if (!c->message_id || strcmp(c->message_id, mid))
			continue;	/* an operator's, or another mail's */
		o = value_array_push(a, value_new_object());
		value_object_add_string(o, "name", c->name);
		value_object_add_string(o, "args", c->args);
		value_object_add_bool(o, "applied", c->applied);
		value_object_add(o, "why", c->why ? value_new_string(c->why) : value_new_null());
	}
	a = value_object_add(e, "trailers", value_new_array());
	for (i = 0; i < trailers->nr; i++) {
		struct value *o;

		if (strcmp(trailers->v[i].message_id, mid))
			continue;
		o = value_array_push(a, value_new_object());
		value_object_add_string(o, "key", trailers->v[i].key);
		value_object_add_string(o, "value", trailers->v[i].value);
	}
}

/* The thread's "#perfbot test" requests, after its commands. */
static void print_requests(const struct state_requests *q)
{
	struct buf line = BUF_INIT;
	size_t i;

	for (i = 0; i < q->nr; i++) {
		buf_reset(&line);
		if (!i)
			buf_adds(&line, "\ntest requests:\n");
		buf_addf(&line, "%lld  %s  report %lld  ", (long long)q->v[i].id,
			 state_request_state_name(q->v[i].state), (long long)q->v[i].report_id);
		cmd_request_words(&line, &q->v[i]);
		buf_addc(&line, '\n');
		fputs(line.data, stdout);
	}
	buf_release(&line);
}

static struct value *json_of(const char *root, const struct thread_entry *t, size_t n,
			     const struct state_commands *c, const struct state_trailers *trailers,
			     const struct state_tracked *tr, const struct state_requests *q)
{
	struct value *v = value_new_object(), *list;
	size_t i;

	value_object_add_string(v, "root", root);
	list = value_object_add(v, "messages", value_new_array());
	for (i = 0; i < n; i++) {
		const struct state_message *m = t[i].m;
		struct value *e = value_array_push(list, value_new_object()), *from;

		value_object_add_string(e, "message_id", m->message_id);
		value_object_add(e, "parent", t[i].parent ? value_new_string(t[i].parent) : value_new_null());
		value_object_add(e, "depth", value_new_integer(t[i].depth));
		from = value_object_add(e, "from", value_new_object());
		value_object_add_string(from, "name", m->from_name);
		value_object_add_string(from, "email", m->from_email);
		value_object_add(e, "date", cmd_json_time(m->date));
		value_object_add_string(e, "subject", m->subject);
		value_object_add_bool(e, "archived", m->blob_oid != NULL);
		value_object_add_bool(e, "unsent", m->unsent);
		json_recorded(e, m->message_id, c, trailers);
	}
	list = value_object_add(v, "commands", value_new_array());
	for (i = 0; i < c->nr; i++) {
		struct value *e = value_array_push(list, value_new_object());

		value_object_add(e, "report", value_new_integer(c->v[i].report_id));
		value_object_add_string(e, "name", c->v[i].name);
		value_object_add_string(e, "args", c->v[i].args);
		value_object_add_string(e, "author", c->v[i].author);
		value_object_add(e, "date", cmd_json_time(c->v[i].date));
		value_object_add(e, "message_id", c->v[i].message_id ? value_new_string(c->v[i].message_id)
								     : value_new_null());
		value_object_add_bool(e, "applied", c->v[i].applied);
		value_object_add(e, "why", c->v[i].why ? value_new_string(c->v[i].why) : value_new_null());
	}
	list = value_object_add(v, "requests", value_new_array());
	for (i = 0; i < q->nr; i++)
		value_array_push(list, cmd_request_json(&q->v[i]));
	cmd_fix_json(v, tr);
	return v;
}

int cmd_thread(int argc, char **argv, const struct cmd_options *opts)
{
	const char *id = NULL;
	struct buf err = BUF_INIT, out = BUF_INIT, raw = BUF_INIT, dir = BUF_INIT;
	struct config *cfg = NULL;
	struct state *st = NULL;
	struct state_messages msgs = { 0 };
	struct state_commands cmds = { 0 };
	struct state_requests reqs = { 0 };
	struct thread_entry *t = NULL;
	char *root = NULL;
	int64_t report_id = 0;
	size_t n = 0, i;
	int mbox = 0, json = 0, rc = 0, has_tracked = 0;
	struct state_tracked tracked;
	struct opt_args args;
	const struct opt options[] = {
		{ OPT_BOOL, 0, "mbox", &mbox, NULL, "the whole thread as an mbox (mutt -f, b4)", 1, 0, 0 },
		{ OPT_BOOL, 0, "json", &json, NULL, "the thread as JSON (perfbot-json(5))", 1, 0, 0 },
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot thread",
		.args = "ID",
		.min_args = 1,
		.max_args = 1,
		.about = "Shows the thread of a report: ID is the report's number (perfbot status)\n"
			 "or the Message-ID of any mail in its thread (with or without <>); its fix\n"
			 "and possible fixes (perfbot track) under the report.\n",
		.opts = options,
	};

	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	id = args.v[0];
	if (cmd_report_number(id, &report_id, &err) < 0) {
		rc = cmd_usage_error(&spec, "%s", err.data);
		goto done;
	}
	report_id = 0;
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (!state_exists(cfg->state)) {
		err_set(&err, "%s: no state yet (nothing was sent or ingested)", cfg->state);
		rc = EX_NOINPUT;
		goto fail;
	}
	if (state_open(cfg->state, &st, &err) < 0) {
		rc = EX_SOFTWARE;
		goto fail;
	}
	if (find_root(st, id, &root, &report_id, &err) < 0) {
		rc = EX_DATAERR;
		goto fail;
	}
	if (state_message_list(st, report_id, &msgs, &err) < 0 ||
	    state_command_list(st, report_id, &cmds, &err) < 0 ||
	    state_request_list(st, report_id, &reqs, &err) < 0) {
		rc = EX_SOFTWARE;
		goto fail;
	}
	if ((has_tracked = state_tracked_get(st, report_id, &tracked, &err)) < 0) {
		rc = EX_SOFTWARE;
		goto fail;
	}
	if (thread_order(&msgs, root, &t, &n) < 0) {
		err_set(&err, "the report <%s> itself is not among its thread's mails (was it sent?)", root);
		rc = EX_DATAERR;
		goto fail;
	}
	if (json) {
		struct state_trailers trailers = { 0 };
		struct value *v;

		if (state_trailer_list(st, report_id, &trailers, &err) < 0) {
			state_trailers_release(&trailers);
			rc = EX_SOFTWARE;
			goto fail;
		}
		v = json_of(root, t, n, &cmds, &trailers, has_tracked ? &tracked : NULL, &reqs);
		value_write_json(&out, v, 2);
		buf_addc(&out, '\n');
		value_free(v);
		state_trailers_release(&trailers);
	} else if (mbox) {
		buf_addf(&dir, "%s/archive", cfg->state);
		for (i = 0; i < n; i++) {
			if (!t[i].m->blob_oid) {
				fprintf(stderr, "perfbot thread: <%s> is not in the archive yet: left out\n",
					t[i].m->message_id);
				continue;
			}
			buf_reset(&raw);
			if (archive_read(dir.data, t[i].m->blob_oid, &raw, &err) < 0) {
				rc = EX_IOERR;
				goto fail;
			}
			mboxrd_append(&out, t[i].m->from_email, t[i].m->date, raw.data, raw.len);
		}
	} else {
		print_overview(t, n, cfg, has_tracked ? &tracked : NULL);
		print_commands(&cmds);
		print_requests(&reqs);
	}
	fwrite(out.data, 1, out.len, stdout);
	goto done;
fail:
	fprintf(stderr, "perfbot thread: %s\n", err.data);
done:
	free(t);
	free(root);
	if (has_tracked > 0)
		state_tracked_release(&tracked);
	state_messages_release(&msgs);
	state_commands_release(&cmds);
	state_requests_release(&reqs);
	state_close(st);
	config_free(cfg);
	buf_release(&err);
	buf_release(&out);
	buf_release(&raw);
	buf_release(&dir);
	opt_args_release(&args);
	return rc;
}
