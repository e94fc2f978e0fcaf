/*
 * The job files of test requests (request.h): written atomically, claimed
 * by rename.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "date.h"
#include "dir.h"
#include "json.h"
#include "request.h"
#include "value.h"
#include "xalloc.h"
#include "banned.h"

static void file_path(struct buf *out, const char *dir, const char *sub, int64_t n)
{
	buf_reset(out);
	buf_addf(out, "%s/requests/%s/%lld.json", dir, sub, (long long)n);
}

static int folder(struct buf *out, const char *dir, const char *sub, struct buf *err)
{
	buf_reset(out);
	buf_addf(out, "%s/requests/%s", dir, sub);
	return dir_make(out->data, 0700, err);
}

int request_job_json(const struct state_request *r, const struct state_job *job,
		     const char *report_mid, const char *mail_subject, const char *mail_refs,
		     struct buf *out, struct buf *err)
{
	struct value *o = value_new_object(), *tests = NULL, *v;
	struct buf when = BUF_INIT;

	if (json_parse(job->tests, strlen(job->tests), "the report's tests", &tests, err) < 0 ||
	    tests->kind != VALUE_ARRAY) {
		value_free(o);
		value_free(tests);
		if (!err->len)
			err_set(err, "the report's tests are not a JSON array");
		return -1;
	}
	value_object_set(o, "perfbot", value_new_integer(1));
	value_object_set(o, "request", value_new_integer(r->id));
	value_object_set(o, "report", value_new_integer(r->report_id));
	value_object_set_string(o, "report_message_id", report_mid);
	value_object_set_string(o, "request_message_id", r->message_id);
	value_object_set_string(o, "request_subject", mail_subject ? mail_subject : "");
	value_object_set_string(o, "request_references", mail_refs ? mail_refs : "");
	v = value_object_set(o, "requested_by", value_new_object());
	value_object_set_string(v, "name", r->requester_name ? r->requester_name : "");
	value_object_set_string(v, "email", r->requester_email);
	date_format_rfc3339_utc(&when, r->requested);
	value_object_set_string(o, "requested", when.data);
	value_object_set_string(o, "tree", job->tree);
	value_object_set_string(o, "base", job->base);
	value_object_set_string(o, "head", job->head);
	v = value_object_set(o, "test", value_new_object());
	if (r->what == STATE_REQUEST_GIT) {
		struct value *g = value_object_set(v, "git", value_new_object());

		value_object_set_string(g, "url", r->url);
		value_object_set_string(g, "branch", r->branch);
	} else {
		value_object_set_string(v, "commit", r->commit_id);
	}
	value_object_set_string(o, "what", state_request_what_name(r->what));
	value_object_set(o, "patch_subject", r->what == STATE_REQUEST_PATCH && r->subject ?
			 value_new_string(r->subject) : value_new_null());
	value_object_set(o, "tests", tests);
	value_write_json(out, o, 2);
	buf_addc(out, '\n');
	value_free(o);
	buf_release(&when);
	return 0;
}

int request_file_write(const char *dir, int64_t n, const char *json, size_t len,
		       struct buf *err)
{
	struct buf d = BUF_INIT, path = BUF_INIT;
	int ret = -1;

	if (folder(&d, dir, "pending", err) == 0) {
		file_path(&path, dir, "pending", n);
		if (dir_write_file(path.data, json, len, err) == 0)
			ret = dir_sync(d.data, err);
	}
	buf_release(&d);
	buf_release(&path);
	return ret;
}

int request_file_forget(const char *dir, int64_t n, struct buf *err)
{
	struct buf path = BUF_INIT, d = BUF_INIT;
	int ret = 0;

	file_path(&path, dir, "pending", n);
	if (unlink(path.data) < 0) {
		if (errno != ENOENT)
			ret = err_set(err, "%s: cannot remove: %s", path.data, strerror(errno));
	} else {
		buf_addf(&d, "%s/requests/pending", dir);
		ret = dir_sync(d.data, err);
	}
	buf_release(&path);
	buf_release(&d);
	return ret;
}

/* "N.json" with N a positive number: N, else 0. */
static int64_t file_number(const char *name)
{
	char *end;
	long long n;

	if (name[0] < '1' || name[0] > '9')
		return 0;
	n = strtoll(name, &end, 10);
	return strcmp(end, ".json") || n <= 0 ? 0 : (int64_t)n;
}

static int cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Moves request n from one folder to another: 1, 0 when it is not in
 * from, -1 on error. */
static int move(const char *dir, int64_t n, const char *from, const char *to, struct buf *err)
{
	struct buf src = BUF_INIT, dst = BUF_INIT, d = BUF_INIT;
	int ret = -1;

	if (folder(&d, dir, to, err) < 0)
		goto out;
	file_path(&src, dir, from, n);
	file_path(&dst, dir, to, n);
	if (rename(src.data, dst.data) < 0) {
		if (errno == ENOENT)
			ret = 0;
		else
			err_set(err, "%s: cannot move to %s/: %s", src.data, to, strerror(errno));
		goto out;
	}
	if (dir_sync(d.data, err) < 0)
		goto out;
	buf_reset(&d);
	buf_addf(&d, "%s/requests/%s", dir, from);
	ret = dir_sync(d.data, err) < 0 ? -1 : 1;
out:
	buf_release(&src);
	buf_release(&dst);
	buf_release(&d);
	return ret;
}

int request_file_take(const char *dir, int64_t n, int64_t *taken, struct buf *json,
		      struct buf *err)
{
	struct buf d = BUF_INIT, path = BUF_INIT;
	int64_t *v = NULL;
	size_t nr = 0, alloc = 0, i;
	struct dirent *e;
	DIR *dp;
	int ret = 0;

	buf_addf(&d, "%s/requests/pending", dir);
	if (n) {
		v = xmalloc(sizeof(*v));
		v[nr++] = n;
	} else if ((dp = opendir(d.data))) {
		while ((e = readdir(dp))) {
			int64_t k = file_number(e->d_name);

			if (!k)
				continue;
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr++] = k;
		}
		closedir(dp);
		qsort(v, nr, sizeof(*v), cmp_int64);
	} else if (errno != ENOENT) {
		ret = err_set(err, "%s: cannot list: %s", d.data, strerror(errno));
	}
	/* the oldest first; a file another pipeline took first is gone */
	for (i = 0; i < nr && ret == 0; i++) {
		ret = move(dir, v[i], "pending", "taken", err);
		if (ret == 1) {
			*taken = v[i];
			file_path(&path, dir, "taken", v[i]);
			if (buf_read_file(json, path.data, REQUEST_MAX_FILE, err) < 0)
				ret = -1;
		}
	}
	free(v);
	buf_release(&d);
	buf_release(&path);
	return ret;
}

int request_file_drop(const char *dir, int64_t n, struct buf *err)
{
	int r = move(dir, n, "pending", "dropped", err);

	if (r == 0)
		r = move(dir, n, "taken", "dropped", err);
	return r;
}

const char *request_file_where(const char *dir, int64_t n)
{
	static const char *const subs[] = { "pending", "taken", "dropped" };
	struct buf path = BUF_INIT;
	struct stat st;
	size_t i;

	for (i = 0; i < 3; i++) {
		file_path(&path, dir, subs[i], n);
		if (stat(path.data, &st) == 0) {
			buf_release(&path);
			return subs[i];
		}
	}
	buf_release(&path);
	return NULL;
}
