/*
 * samples.c: the per-run samples of a report's metrics, kept for the web
 * site's charts (samples.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dir.h"
#include "json.h"
#include "samples.h"
#include "value.h"
#include "xalloc.h"
#include "banned.h"

#define MAGIC "perfbot-samples 1"

/* ---- writing -------------------------------------------------------- */

static void add_text(struct buf *out, const char *s)
{
	for (; *s; s++) {
		const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" :
				  *s == '\r' ? "\\r" : NULL;

		if (esc)
			buf_adds(out, esc);
		else
			buf_addc(out, *s);
	}
}

static void add_side(struct buf *out, const char *key, const struct report_side *s)
{
	buf_adds(out, key);
	buf_addc(out, '\t');
	value_format_number(out, s->mean);
	buf_addc(out, '\t');
	if (s->has_stddev)
		value_format_number(out, s->stddev_percent);
	buf_addc(out, '\n');
}

static void add_runs(struct buf *out, const char *key, const double *v, size_t n)
{
	size_t i;

	buf_adds(out, key);
	for (i = 0; i < n; i++) {
		buf_addc(out, '\t');
		value_format_number(out, v[i]);
	}
	buf_addc(out, '\n');
}

int samples_format(struct buf *out, const struct report *r)
{
	size_t i, j, k, start = out->len;
	int found = 0;

	buf_adds(out, MAGIC "\n");
	for (i = 0; i < r->nr_tests; i++) {
		const struct report_test *t = &r->tests[i];

		for (j = 0; j < t->nr_samples; j++) {
			const struct report_samples *s = &t->samples[j];
			const struct report_metric *m = NULL;

			for (k = 0; k < t->nr_metrics && !m; k++)
				if (!strcmp(t->metrics[k].name, s->metric))
					m = &t->metrics[k];
			if (!m)
				continue;	/* report.c names a metric for each */
			buf_adds(out, "metric\t");
			add_text(out, t->testcase);
			buf_addc(out, '\t');
			add_text(out, m->name);
			buf_addc(out, '\n');
			add_side(out, "base", &m->base);
			add_side(out, "head", &m->head);
			add_runs(out, "good", s->good, s->nr_good);
			add_runs(out, "bad", s->bad, s->nr_bad);
			found = 1;
		}
	}
	if (!found)
		buf_truncate(out, start);
	return found;
}

int samples_keep(const char *state_dir, int64_t id, const struct report *r, struct buf *err)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int ret = 0;

	if (!samples_format(&text, r))
		goto out;
	buf_addf(&path, "%s/samples", state_dir);
	if (dir_make(path.data, 0700, err) < 0) {
		ret = -1;
		goto out;
	}
	buf_addf(&path, "/%lld.tsv", (long long)id);
	ret = dir_write_file(path.data, text.data, text.len, err);
out:
	buf_release(&path);
	buf_release(&text);
	return ret;
}

/* ---- reading -------------------------------------------------------- */

void samples_release(struct samples *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->v[i].testcase);
		free(s->v[i].name);
		free(s->v[i].runs[0]);
		free(s->v[i].runs[1]);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The field [p, end) unescaped, or NULL when an escape is not one of ours. */
static char *field_text(const char *p, const char *end)
{
	struct buf b = BUF_INIT;

	for (; p < end; p++) {
		if (*p != '\\') {
			buf_addc(&b, *p);
			continue;
		}
		if (++p == end || !strchr("\\tnr", *p)) {
			buf_release(&b);
			return NULL;
		}
		buf_addc(&b, *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : '\\');
	}
	return buf_detach(&b, NULL);
}

/* A number filling [p, end): finite, as strtod() reads it. */
static int field_number(const char *p, const char *end, double *out)
{
	char tmp[64], *stop;
	const char *q = p + (*p == '-');
	uint64_t v = 0;

	if (p == end || (size_t)(end - p) >= sizeof(tmp))
		return -1;
	/* most runs are integers: those of up to 15 digits are exactly that
	 * double, without strtod() (a tenth of its time) */
	if (q < end && end - q <= 15) {
		while (q < end && *q >= '0' && *q <= '9')
			v = v * 10 + (uint64_t)(*q++ - '0');
		if (q == end && q > p + (*p == '-')) {
			*out = *p == '-' ? -(double)v : (double)v;
			return 0;
		}
	}
	memcpy(tmp, p, (size_t)(end - p));
	tmp[end - p] = '\0';
	*out = strtod(tmp, &stop);
	return *stop || !isfinite(*out) ? -1 : 0;
}

/* "base"/"head": MEAN TAB [STDDEV]. */
static int parse_side(const char *p, const char *end, struct report_side *s)
{
	const char *tab = memchr(p, '\t', (size_t)(end - p));

	memset(s, 0, sizeof(*s));
	if (!tab || field_number(p, tab, &s->mean) < 0)
		return -1;
	s->has_stddev = tab + 1 < end;
	return s->has_stddev ? field_number(tab + 1, end, &s->stddev_percent) : 0;
}

/* "good"/"bad": (TAB RUN)*, at most REPORT_MAX_VALUES. */
static int parse_runs(const char *p, const char *end, double **out, size_t *nr)
{
	size_t n = 0, alloc = 0;
	double *v = NULL;

	while (p < end) {
		const char *stop;

		if (*p++ != '\t' || n == REPORT_MAX_VALUES)
			goto bad;
		stop = memchr(p, '\t', (size_t)(end - p));
		if (!stop)
			stop = end;
		ALLOC_GROW(v, n + 1, alloc);
		if (field_number(p, stop, &v[n++]) < 0)
			goto bad;
		p = stop;
	}
	*out = v;
	*nr = n;
	return 0;
bad:
	free(v);
	return -1;
}

int samples_parse(const char *text, size_t len, const char *name, struct samples *out,
		  struct buf *err)
{
	const char *p = text, *end = text + len;
	struct samples_metric *m = NULL;
	int line = 0, step = 0;	/* of the five lines after "metric" */

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const char *tab = memchr(p, '\t', (size_t)(eol - p));
		size_t klen = (size_t)((tab ? tab : eol) - p);
		static const char *const order[] = { "base", "head", "good", "bad" };
		int ok;

		line++;
		if (line == 1) {
			ok = (size_t)(eol - p) == strlen(MAGIC) && !memcmp(p, MAGIC, strlen(MAGIC));
		} else if (klen == 6 && !memcmp(p, "metric", 6) && step == 0) {
			const char *t2 = tab ? memchr(tab + 1, '\t', (size_t)(eol - tab - 1)) : NULL;

			ALLOC_GROW(out->v, out->nr + 1, out->alloc);
			m = &out->v[out->nr++];
			memset(m, 0, sizeof(*m));
			ok = t2 && (m->testcase = field_text(tab + 1, t2)) &&
			     (m->name = field_text(t2 + 1, eol)) && *m->name;
			step = 1;
		} else if (step && klen == strlen(order[step - 1]) &&
			   !memcmp(p, order[step - 1], klen)) {
			if (step <= 2)
				ok = tab && parse_side(tab + 1, eol, &m->side[step - 1]) == 0;
			else
				ok = parse_runs(p + klen, eol, &m->runs[step - 3],
						&m->nr_runs[step - 3]) == 0;
			step = step == 4 ? 0 : step + 1;
		} else {
			ok = 0;
		}
		if (!ok)
			return err_set(err, "%s:%d: not a line of perfbot's samples", name, line);
		p = nl ? nl + 1 : end;
	}
	if (!line || step)
		return err_set(err, "%s: ends %s", name, line ? "inside a metric" : "empty");
	return 0;
}

/* An older perfbot's JSON file, into *out. */
static int from_json(const struct value *root, const char *name, struct samples *out,
		     struct buf *err)
{
	const struct value *tests = value_object_get(root, "tests");
	size_t i, j, k;

	for (i = 0; tests && tests->kind == VALUE_ARRAY && i < tests->nr; i++) {
		const struct value *t = tests->items[i], *ms = value_object_get(t, "metrics");
		const struct value *tc = value_object_get(t, "testcase");

		for (j = 0; ms && ms->kind == VALUE_ARRAY && j < ms->nr; j++) {
			const struct value *mv = ms->items[j], *nm = value_object_get(mv, "name");
			static const char *const sides[] = { "base", "head" }, *const runs[] = { "good", "bad" };
			struct samples_metric *m;

			if (!nm || nm->kind != VALUE_STRING)
				return err_set(err, "%s: a metric without a name", name);
			ALLOC_GROW(out->v, out->nr + 1, out->alloc);
			m = &out->v[out->nr++];
			memset(m, 0, sizeof(*m));
			m->testcase = xstrdup(tc && tc->kind == VALUE_STRING ? tc->str : "");
			m->name = xstrdup(nm->str);
			for (k = 0; k < 2; k++) {
				const struct value *sd = value_object_get(mv, sides[k]);
				const struct value *mean = sd ? value_object_get(sd, "mean") : NULL;
				const struct value *dev = sd ? value_object_get(sd, "stddev_percent") : NULL;
				const struct value *a = value_object_get(mv, runs[k]);
				size_t n = a && a->kind == VALUE_ARRAY ? a->nr : 0, x;

				if (!mean || mean->kind != VALUE_NUMBER || n > REPORT_MAX_VALUES)
					return err_set(err, "%s: metric %s: no %s mean", name, m->name,
						       sides[k]);
				m->side[k].mean = mean->number;
				m->side[k].has_stddev = dev && dev->kind == VALUE_NUMBER;
				m->side[k].stddev_percent = m->side[k].has_stddev ? dev->number : 0;
				m->runs[k] = xcalloc(n + 1, sizeof(double));
				for (x = 0; x < n; x++) {
					if (a->items[x]->kind != VALUE_NUMBER)
						return err_set(err, "%s: metric %s: a run is not a number",
							       name, m->name);
					m->runs[k][x] = a->items[x]->number;
				}
				m->nr_runs[k] = n;
			}
		}
	}
	return 0;
}

/* The file at path into text: 1, 0 when there is none, -1 with a message. */
static int read_text(const char *path, struct buf *text, struct buf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, "%s: cannot open: %s", path, strerror(errno));
	}
	r = buf_read_fd(text, fd, SAMPLES_MAX_BYTES, err);
	close(fd);
	if (r < 0)
		return err_prefix(err, "%s: ", path);
	return 1;
}

int samples_read(const char *state_dir, int64_t id, struct samples *out, struct buf *err)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	struct value *v = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	buf_adds(&path, state_dir);
	buf_adds(&path, "/samples/");
	buf_add_int(&path, id, 0);
	buf_adds(&path, ".tsv");
	ret = read_text(path.data, &text, err);
	if (ret > 0 && samples_parse(text.data, text.len, path.data, out, err) < 0)
		ret = -1;
	if (ret)
		goto out;
	buf_reset(&path);
	buf_addf(&path, "%s/samples/%lld.json", state_dir, (long long)id);
	ret = read_text(path.data, &text, err);
	if (ret > 0 && (json_parse(text.data, text.len, path.data, &v, err) < 0 ||
			from_json(v, path.data, out, err) < 0))
		ret = -1;
out:
	value_free(v);
	buf_release(&path);
	buf_release(&text);
	return ret;
}
