/*
 * perfbot parse FILE.eml: what ingest reads from one mail, as the JSON of
 * perfbot-json(5).  A thin command over mail.c (the message) and reply.c
 * (what the text says): it reads the file, builds the JSON, prints it and
 * picks the exit code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmd.h"
#include "date.h"
#include "charset.h"
#include "mail.h"
#include "patchmail.h"
#include "reply.h"
#include "value.h"
#include "banned.h"

/* Reads at most MAIL_MAX_SIZE + 1 bytes, so that mail_parse() sees when a
 * message is too large (it quarantines it) without perfbot reading it all. */
static int read_input(const char *path, struct buf *raw)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	struct stat st;

	if (fd < 0) {
		fprintf(stderr, "perfbot parse: %s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "perfbot parse: %s: is a directory, not a mail file\n", path);
		close(fd);
		return -1;
	}
	while (raw->len <= MAIL_MAX_SIZE) {
		ssize_t n;

		buf_grow(raw, 65536);
		n = read(fd, raw->data + raw->len,
			 raw->cap - raw->len - 1 < MAIL_MAX_SIZE + 1 - raw->len ?
			 raw->cap - raw->len - 1 : MAIL_MAX_SIZE + 1 - raw->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "perfbot parse: %s: read failed: %s\n", path, strerror(errno));
			if (fd)
				close(fd);
			return -1;
		}
		if (n == 0)
			break;
		raw->len += (size_t)n;
		raw->data[raw->len] = '\0';
	}
	if (fd)
		close(fd);
	return 0;
}

static struct value *string_or_null(const char *s)
{
	return s ? value_new_string(s) : value_new_null();
}

static struct value *address_value(const struct address *a)
{
	struct value *o = value_new_object();

	value_object_set_string(o, "name", a->name);
	value_object_set_string(o, "email", a->email);
	return o;
}

static struct value *addresses_value(const struct address *list, size_t n)
{
	struct value *a = value_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		value_array_push(a, address_value(&list[i]));
	return a;
}

static struct value *strings_value(char *const *list, size_t n)
{
	struct value *a = value_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		value_array_push(a, value_new_string(list[i]));
	return a;
}

static struct value *reply_parts_value(const struct reply *r, struct value *o)
{
	struct value *a;
	size_t i;

	value_object_set(o, "quoted_lines", value_new_integer((int64_t)r->quoted_lines));
	value_object_set(o, "new_lines", value_new_integer((int64_t)r->new_lines));
	a = value_object_set(o, "comments", value_new_array());
	for (i = 0; i < r->nr_comments; i++) {
		struct value *c = value_array_push(a, value_new_object());

		value_object_set_string(c, "after_quote", r->comments[i].after_quote);
		value_object_set_string(c, "text", r->comments[i].text);
	}
	a = value_object_set(o, "commands", value_new_array());
	for (i = 0; i < r->nr_commands; i++) {
		struct value *c = value_array_push(a, value_new_object());

		value_object_set_string(c, "name", r->commands[i].name);
		value_object_set_string(c, "args", r->commands[i].args);
		value_object_set_bool(c, "understood", r->commands[i].understood);
	}
	a = value_object_set(o, "trailers", value_new_array());
	for (i = 0; i < r->nr_trailers; i++) {
		struct value *t = value_array_push(a, value_new_object());

		value_object_set_string(t, "key", r->trailers[i].key);
		value_object_set_string(t, "value", r->trailers[i].value);
	}
	return o;
}

/* The "patch" member: the patch as git mailinfo finds it, or null. */
static struct value *patch_value(const struct patchmail *pm)
{
	struct value *o, *a;
	struct buf diff = BUF_INIT;

	if (!pm)
		return value_new_null();
	o = value_new_object();
	value_object_set_string(o, "subject", pm->subject);
	a = value_object_set(o, "author", value_new_object());
	value_object_set_string(a, "name", pm->author_name);
	value_object_set_string(a, "email", pm->author_email);
	/* JSON holds UTF-8: other bytes of the patch show as U+FFFD */
	charset_repair_utf8(pm->diff, pm->diff_len, &diff);
	value_object_set(o, "diff", value_new_stringn(diff.data, diff.len));
	value_object_set(o, "files", strings_value(pm->files, pm->nr_files));
	value_object_set(o, "base_commit", string_or_null(pm->base_commit));
	value_object_set(o, "problems", strings_value(pm->problems, pm->nr_problems));
	buf_release(&diff);
	return o;
}

/* The JSON of perfbot-json(5) for m and the analysis of its text. */
static struct value *parse_value(const struct mail *m, const struct reply *r,
				 const struct patchmail *pm)
{
	struct value *o = value_new_object(), *p;
	struct buf date = BUF_INIT;
	size_t i;

	value_object_set(o, "message_id", string_or_null(m->message_id));
	value_object_set(o, "in_reply_to", strings_value(m->in_reply_to, m->nr_in_reply_to));
	value_object_set(o, "references", strings_value(m->references, m->nr_references));
	value_object_set(o, "from", m->from ? address_value(m->from) : value_new_null());
	value_object_set(o, "to", addresses_value(m->to, m->nr_to));
	value_object_set(o, "cc", addresses_value(m->cc, m->nr_cc));
	if (m->has_date) {
		date_format_rfc3339_utc(&date, m->date);
		value_object_set_string(o, "date", date.data);
	} else {
		value_object_set(o, "date", value_new_null());
	}
	value_object_set(o, "subject", string_or_null(m->subject));
	value_object_set_bool(o, "auto_submitted", m->auto_submitted);
	value_object_set(o, "text", value_new_stringn(m->text, m->text_len));
	if (m->has_text_part) {
		p = value_object_set(o, "text_part", value_new_object());
		value_object_set_string(p, "type", m->text_part.type);
		value_object_set(p, "charset", string_or_null(m->text_part.charset));
		value_object_set_string(p, "encoding", m->text_part.encoding);
	} else {
		value_object_set(o, "text_part", value_new_null());
	}
	value_object_set_bool(o, "html_only", m->html_only);
	value_object_set(o, "attachments", value_new_integer((int64_t)m->attachments));
	reply_parts_value(r, o);
	value_object_set(o, "patch", patch_value(pm));
	value_object_set(o, "quarantined", string_or_null(m->quarantine));
	p = value_object_set(o, "problems", strings_value(m->problems, m->nr_problems));
	for (i = 0; i < r->nr_problems; i++)
		value_array_push(p, value_new_string(r->problems[i]));
	buf_release(&date);
	return o;
}

int cmd_parse(int argc, char **argv, const struct cmd_options *opts)
{
	struct buf raw = BUF_INIT, err = BUF_INIT, out = BUF_INIT;
	struct reply_options ro = { 0, 0, NULL };
	const char *path = NULL;
	struct mail *m = NULL;
	struct patchmail *pm;
	struct reply *r;
	struct value *v;
	int json = 0, rc = 0;
	struct opt_args args;
	const struct opt options[] = {
		OPT_BOOL_E(0, "json", &json, "accepted for symmetry with status and thread: the output is always JSON"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot parse",
		.args = "FILE.eml",
		.min_args = 1,
		.max_args = 1,
		.about = "Prints what perfbot reads from one mail (FILE.eml, or '-' for stdin) as\n"
			 "JSON: the header fields, the decoded text, quoted and new lines, inline\n"
			 "comments, #perfbot commands, trailers, the patch (as git mailinfo finds\n"
			 "it) and the problems found.\n",
		.notes = "Exits 0 for any mail, also an odd one (see \"problems\"), 65 when the input\n"
			 "is not a mail at all.\n",
		.opts = options,
	};

	(void)opts;
	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	path = args.v[0];
	opt_args_release(&args);
	if (read_input(path, &raw) < 0) {
		buf_release(&raw);
		return EX_NOINPUT;
	}
	if (mail_parse(raw.data, raw.len, &m, &err) < 0) {
		fprintf(stderr, "perfbot parse: %s: %s\n", path, err.data);
		buf_release(&raw);
		buf_release(&err);
		return EX_DATAERR;
	}
	ro.flowed = m->text_part.flowed;
	ro.delsp = m->text_part.delsp;
	ro.sender = m->from ? m->from->email : NULL;
	r = reply_analyse(m->text, m->text_len, &ro);
	pm = patchmail_read(raw.data, raw.len);
	v = parse_value(m, r, pm);
	value_write_json(&out, v, 2);
	buf_addc(&out, '\n');
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "perfbot parse: writing the output failed: %s\n", strerror(errno));
		rc = EX_IOERR;
	}
	value_free(v);
	reply_free(r);
	patchmail_free(pm);
	mail_free(m);
	buf_release(&raw);
	buf_release(&err);
	buf_release(&out);
	return rc;
}
