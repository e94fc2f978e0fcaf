#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libetpan/mailmime.h>
#include <libetpan/mailmime_content.h>
#include <libetpan/mailmime_types_helper.h>

#include "charset.h"
#include "mime-child.h"
#include "rfc2045.h"
#include "xalloc.h"
#include "banned.h"

/* ASan reserves terabytes of address space, so RLIMIT_AS would kill every
 * child of a sanitizer build. */
#if defined(__SANITIZE_ADDRESS__)
#define MIME_NO_RLIMIT_AS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define MIME_NO_RLIMIT_AS 1
#endif
#endif

/* ---- the libetpan seam ---- */

/*
 * The child's report is a list of records: a tag byte, the payload length
 * as 8 hex digits, the payload.  Tags: 'o' offset and 'l' length of the
 * text part's body (decimal), 't' type, 'c' charset, 'e' encoding, 'f'
 * flags (letters: T found, F flowed, D delsp, H html_only), 'a'
 * attachments and 'p' parts (decimal), 'r' a problem, 'q' a quarantine
 * reason, and 'z' (empty) last.  The parent believes none of it until
 * it has checked it.
 */
static void report_add(struct buf *r, char tag, const char *s, size_t n)
{
	buf_addf(r, "%c%08zx", tag, n);
	buf_add(r, s, n);
}

static void report_adds(struct buf *r, char tag, const char *s)
{
	report_add(r, tag, s, strlen(s));
}

static void report_addnum(struct buf *r, char tag, size_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%zu", v);
	report_adds(r, tag, num);
}

/* What the walk over libetpan's tree collects (child side). */
struct walk {
	const char *raw;
	size_t len;
	struct buf *report;
	int found, has_html, stop;
	size_t attachments, parts, problems;
};

static void walk_problem(struct walk *w, const char *msg)
{
	if (w->problems++ < MIME_MAX_PROBLEMS)
		report_adds(w->report, 'r', msg);
}

static const char *encoding_name(const struct mailmime_mechanism *m)
{
	if (!m)
		return NULL;
	switch (m->enc_type) {
	case MAILMIME_MECHANISM_7BIT:
		return "7bit";
	case MAILMIME_MECHANISM_8BIT:
		return "8bit";
	case MAILMIME_MECHANISM_BINARY:
		return "binary";
	case MAILMIME_MECHANISM_QUOTED_PRINTABLE:
		return "quoted-printable";
	case MAILMIME_MECHANISM_BASE64:
		return "base64";
	default:
		return m->enc_token;
	}
}

/* "type/subtype" of a part, lowercase, into t. */
static void content_type_name(const struct mailmime_content *ct, struct buf *t)
{
	const struct mailmime_type *ty;
	const char *main = "text";
	size_t i;

	buf_reset(t);
	if (!ct || !(ty = ct->ct_type)) {
		buf_adds(t, "text/plain");
		return;
	}
	if (ty->tp_type == MAILMIME_TYPE_DISCRETE_TYPE && ty->tp_data.tp_discrete_type) {
		switch (ty->tp_data.tp_discrete_type->dt_type) {
		case MAILMIME_DISCRETE_TYPE_TEXT: main = "text"; break;
		case MAILMIME_DISCRETE_TYPE_IMAGE: main = "image"; break;
		case MAILMIME_DISCRETE_TYPE_AUDIO: main = "audio"; break;
		case MAILMIME_DISCRETE_TYPE_VIDEO: main = "video"; break;
		case MAILMIME_DISCRETE_TYPE_APPLICATION: main = "application"; break;
		default:
			main = ty->tp_data.tp_discrete_type->dt_extension;
		}
	} else if (ty->tp_type == MAILMIME_TYPE_COMPOSITE_TYPE && ty->tp_data.tp_composite_type) {
		switch (ty->tp_data.tp_composite_type->ct_type) {
		case MAILMIME_COMPOSITE_TYPE_MESSAGE: main = "message"; break;
		case MAILMIME_COMPOSITE_TYPE_MULTIPART: main = "multipart"; break;
		default:
			main = ty->tp_data.tp_composite_type->ct_token;
		}
	}
	buf_adds(t, main ? main : "x-unknown");
	buf_addc(t, '/');
	buf_adds(t, ct->ct_subtype ? ct->ct_subtype : "x-unknown");
	for (i = 0; i < t->len; i++)
		if (t->data[i] >= 'A' && t->data[i] <= 'Z')
			t->data[i] = (char)(t->data[i] - 'A' + 'a');
}

static const char *content_param(const struct mailmime_content *ct, const char *name)
{
	clistiter *it;

	if (!ct || !ct->ct_parameters)
		return NULL;
	for (it = clist_begin(ct->ct_parameters); it; it = clist_next(it)) {
		const struct mailmime_parameter *p = clist_content(it);

		if (p && p->pa_name && p->pa_value && !strcasecmp(p->pa_name, name))
			return p->pa_value;
	}
	return NULL;
}

static void walk_leaf(struct walk *w, struct mailmime *m)
{
	struct mailmime_single_fields sf;
	struct buf type = BUF_INIT;
	const struct mailmime_data *body;
	const char *s;
	int attachment;

	if (++w->parts > MIME_MAX_PARTS) {
		report_addnum(w->report, 'p', w->parts);
		report_adds(w->report, 'q', "more than 500 MIME parts");
		w->stop = 1;
		return;
	}
	mailmime_single_fields_init(&sf, m->mm_mime_fields, m->mm_content_type);
	content_type_name(m->mm_content_type, &type);
	attachment = (sf.fld_disposition && sf.fld_disposition->dsp_type &&
		      sf.fld_disposition->dsp_type->dsp_type == MAILMIME_DISPOSITION_TYPE_ATTACHMENT) ||
		     sf.fld_disposition_filename || sf.fld_content_name;
	if (attachment)
		w->attachments++;
	if (attachment || m->mm_type != MAILMIME_SINGLE) {
		buf_release(&type);
		return;
	}
	body = m->mm_data.mm_single;
	if (!strcmp(type.data, "text/html"))
		w->has_html = 1;
	if (!w->found && !strcmp(type.data, "text/plain")) {
		if (!body || body->dt_type != MAILMIME_DATA_TEXT || !body->dt_data.dt_text.dt_data ||
		    body->dt_data.dt_text.dt_data < w->raw ||
		    (size_t)(body->dt_data.dt_text.dt_data - w->raw) > w->len ||
		    body->dt_data.dt_text.dt_length >
			    w->len - (size_t)(body->dt_data.dt_text.dt_data - w->raw)) {
			walk_problem(w, "a text/plain part has no body the parser could locate");
		} else {
			struct buf flags = BUF_INIT;

			w->found = 1;
			report_addnum(w->report, 'o',
				      (size_t)(body->dt_data.dt_text.dt_data - w->raw));
			report_addnum(w->report, 'l', body->dt_data.dt_text.dt_length);
			report_adds(w->report, 't', type.data);
			if (sf.fld_content_charset)
				report_adds(w->report, 'c', sf.fld_content_charset);
			if ((s = encoding_name(sf.fld_encoding)))
				report_adds(w->report, 'e', s);
			buf_addc(&flags, 'T');
			if ((s = content_param(m->mm_content_type, "format")) &&
			    !strcasecmp(s, "flowed"))
				buf_addc(&flags, 'F');
			if ((s = content_param(m->mm_content_type, "delsp")) && !strcasecmp(s, "yes"))
				buf_addc(&flags, 'D');
			report_add(w->report, 'f', flags.data, flags.len);
			buf_release(&flags);
		}
	}
	buf_release(&type);
}

static void walk(struct walk *w, struct mailmime *m, int depth)
{
	clistiter *it;

	if (!m || w->stop)
		return;
	if (depth > MIME_MAX_DEPTH) {
		report_adds(w->report, 'q', "MIME parts nested deeper than 20 levels");
		w->stop = 1;
		return;
	}
	switch (m->mm_type) {
	case MAILMIME_MULTIPLE:
		if (!m->mm_data.mm_multipart.mm_mp_list)
			return;
		for (it = clist_begin(m->mm_data.mm_multipart.mm_mp_list); it && !w->stop;
		     it = clist_next(it))
			walk(w, clist_content(it), depth + 1);
		return;
	case MAILMIME_MESSAGE:
		/* the top level is a message; an embedded one is a leaf */
		if (depth == 0)
			walk(w, m->mm_data.mm_message.mm_msg_mime, depth);
		else
			walk_leaf(w, m);
		return;
	default:
		walk_leaf(w, m);
	}
}

/* Parses raw with libetpan and writes the whole report into r. */
static void parse_to_report(const char *raw, size_t len, struct buf *r, int free_tree)
{
	struct walk w = { raw, len, r, 0, 0, 0, 0, 0, 0 };
	struct mailmime *mime = NULL;
	size_t index = 0;
	int rc;

	rc = mailmime_parse(raw, len, &index, &mime);
	if (rc != MAILIMF_NO_ERROR || !mime) {
		char msg[80];

		snprintf(msg, sizeof(msg), "the MIME parser could not read the message (error %d)",
			 rc);
		report_adds(r, 'q', msg);
	} else {
		walk(&w, mime, 0);
		if (!w.stop) {
			if (!w.found && w.has_html)
				report_adds(r, 'f', "H");
			report_addnum(r, 'a', w.attachments);
			report_addnum(r, 'p', w.parts);
		}
	}
	if (w.problems > MIME_MAX_PROBLEMS)
		report_adds(r, 'r', "more MIME problems were not listed");
	report_add(r, 'z', "", 0);
	if (free_tree && mime)
		mailmime_free(mime);
}

#ifndef MIME_NO_RLIMIT_AS
static size_t address_space_used(void)
{
	char line[128];
	unsigned long pages = 0;
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	line[n] = '\0';
	if (sscanf(line, "%lu", &pages) != 1)
		return 0;
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}
#endif

static void limit(int resource, rlim_t v)
{
	struct rlimit rl = { v, v };

	setrlimit(resource, &rl);
}

/* The child: limits, parse, report, _exit (never exit(): the parent's
 * atexit handlers and stdio buffers are not ours to run). */
static void child_main(int fd, const char *raw, size_t len, unsigned timeout)
{
	struct buf r = BUF_INIT;
	size_t off = 0;

	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* the child says nothing on the terminal: a libetpan crash makes
	 * glibc print its own diagnosis, which the quarantine reason covers */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	signal(SIGALRM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	alarm(timeout);
	limit(RLIMIT_CORE, 0);
	limit(RLIMIT_FSIZE, 0);
	limit(RLIMIT_CPU, timeout);
	/* room for the report before the memory limit: the report is small */
	buf_grow(&r, 64 * 1024);
#ifndef MIME_NO_RLIMIT_AS
	{
		size_t used = address_space_used();

		if (used)
			limit(RLIMIT_AS, (rlim_t)(used + MIME_CHILD_MEMORY + 4 * len));
	}
#endif
	parse_to_report(raw, len, &r, 0);
	while (off < r.len) {
		ssize_t n = write(fd, r.data + off, r.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);
		off += (size_t)n;
	}
	_exit(0);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the child and collects its report into r; NULL, or why not. */
static char *run_child(const char *raw, size_t len, unsigned timeout, struct buf *r)
{
	int fds[2], status = 0, killed = 0, too_much = 0;
	int64_t deadline;
	pid_t pid;
	char why[128];

	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(why, sizeof(why), "could not start the MIME parser: %s", strerror(errno));
		return xstrdup(why);
	}
	/* The child inherits copies of the stdio buffers; empty them first so
	 * that nothing is written twice should the child ever reach exit(). */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, sizeof(why), "could not start the MIME parser: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return xstrdup(why);
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], raw, len, timeout);
	}
	close(fds[1]);
	deadline = now_ms() + (int64_t)timeout * 1000 + 500;
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		int64_t left = deadline - now_ms();
		ssize_t n;
		int pr;

		if (left <= 0) {
			killed = 1;
			break;
		}
		pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			killed = 1;
			break;
		}
		if (buf_grow(r, 65536) < 0) {
			too_much = 1;
			break;
		}
		n = read(fds[0], r->data + r->len, r->cap - r->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r->len += (size_t)n;
		r->data[r->len] = '\0';
		if (r->len > MIME_MAX_REPORT) {
			too_much = 1;
			break;
		}
	}
	close(fds[0]);
	if (killed || too_much)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(why, sizeof(why), "lost the MIME parser: %s", strerror(errno));
			return xstrdup(why);
		}
	}
	if (killed)
		snprintf(why, sizeof(why), "MIME parser timed out after %u s", timeout);
	else if (too_much)
		snprintf(why, sizeof(why), "MIME parser wrote more than %d bytes", MIME_MAX_REPORT);
	else if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGALRM || WTERMSIG(status) == SIGXCPU))
		snprintf(why, sizeof(why), "MIME parser timed out after %u s", timeout);
	else if (WIFSIGNALED(status))
		snprintf(why, sizeof(why), "MIME parser crashed (signal %d)", WTERMSIG(status));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		snprintf(why, sizeof(why), "MIME parser failed (exit status %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	else
		return NULL;
	return xstrdup(why);
}

static int read_number(const char *s, size_t n, size_t max, size_t *out)
{
	size_t v = 0, i;

	if (!n || n > 20)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (SIZE_MAX - 9) / 10)
			return -1;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* A string from the report: printable ASCII for names, UTF-8 without
 * control characters for sentences. */
static int read_string(const char *s, size_t n, int sentence, char **out)
{
	size_t i;

	if (*out || n > (sentence ? 512 : RFC2045_MAX_PARAM))
		return -1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < ' ' || c == 0x7f || (!sentence && c >= 0x80))
			return -1;
	}
	if (sentence && !charset_is_utf8(s, n))
		return -1;
	*out = xstrndup(s, n);
	return 0;
}

/* Checks and reads the report r into t; -1 when it is not well-formed. */
static int report_read(const struct buf *r, size_t rawlen, struct mime_text *t)
{
	size_t i = 0, offset = 0, length = 0;
	int have_offset = 0, have_length = 0, ended = 0;

	while (i < r->len && !ended) {
		char tag, hex[9];
		const char *p;
		size_t n, j;
		unsigned long v;
		char *end;

		if (r->len - i < 9)
			return -1;
		tag = r->data[i];
		memcpy(hex, r->data + i + 1, 8);
		hex[8] = '\0';
		for (j = 0; j < 8; j++)
			if (!strchr("0123456789abcdef", hex[j]))
				return -1;
		v = strtoul(hex, &end, 16);
		n = (size_t)v;
		i += 9;
		if (n > r->len - i)
			return -1;
		p = r->data + i;
		i += n;
		switch (tag) {
		case 'o':
			if (have_offset || read_number(p, n, rawlen, &offset))
				return -1;
			have_offset = 1;
			break;
		case 'l':
			if (have_length || read_number(p, n, rawlen, &length))
				return -1;
			have_length = 1;
			break;
		case 't':
			if (read_string(p, n, 0, &t->type))
				return -1;
			break;
		case 'c':
			if (read_string(p, n, 0, &t->charset))
				return -1;
			break;
		case 'e':
			if (read_string(p, n, 0, &t->encoding))
				return -1;
			break;
		case 'f':
			for (j = 0; j < n; j++) {
				switch (p[j]) {
				case 'T': t->found = 1; break;
				case 'F': t->flowed = 1; break;
				case 'D': t->delsp = 1; break;
				case 'H': t->html_only = 1; break;
				default: return -1;
				}
			}
			break;
		case 'a':
			if (read_number(p, n, MIME_MAX_PARTS, &t->attachments))
				return -1;
			break;
		case 'p':
			if (read_number(p, n, MIME_MAX_PARTS + 1, &t->parts))
				return -1;
			break;
		case 'r':
			if (t->nr_problems > MIME_MAX_PROBLEMS)
				return -1;
			t->problems = xrealloc(t->problems, (t->nr_problems + 1) * sizeof(char *));
			t->problems[t->nr_problems] = NULL;
			if (read_string(p, n, 1, &t->problems[t->nr_problems]))
				return -1;
			t->nr_problems++;
			break;
		case 'q':
			if (read_string(p, n, 1, &t->quarantine))
				return -1;
			break;
		case 'z':
			if (n)
				return -1;
			ended = 1;
			break;
		default:
			return -1;
		}
	}
	if (!ended || i != r->len)
		return -1;
	if (t->found) {
		if (!have_offset || !have_length || !t->type || length > rawlen - offset ||
		    t->html_only)
			return -1;
		t->offset = offset;
		t->length = length;
	} else if (have_offset || have_length || t->type || t->charset || t->encoding ||
		   t->flowed || t->delsp) {
		return -1;
	}
	return 0;
}

void mime_text_release(struct mime_text *t)
{
	size_t i;

	free(t->type);
	free(t->charset);
	free(t->encoding);
	for (i = 0; i < t->nr_problems; i++)
		free(t->problems[i]);
	free(t->problems);
	free(t->quarantine);
	memset(t, 0, sizeof(*t));
}

void mime_find_text(const char *raw, size_t len, const struct mime_options *opts,
		    struct mime_text *out)
{
	struct buf r = BUF_INIT, why = BUF_INIT, copy = BUF_INIT;
	unsigned timeout = opts && opts->timeout ? opts->timeout : MIME_CHILD_TIMEOUT;
	char *failed = NULL;

	memset(out, 0, sizeof(*out));
	/* libetpan reads the copy with the MIME fields' comments blanked
	 * (the same length, so its offsets are raw's): it reads no comment
	 * there, and the boundary check must see the parameters as it will */
	buf_add(&copy, raw, len);
	rfc2045_blank_comments(copy.data, copy.len);
	if (!(opts && opts->no_boundary_check) &&
	    rfc2045_check_boundaries(copy.data, copy.len, &why)) {
		out->quarantine = buf_detach(&why, NULL);
		buf_release(&copy);
		return;
	}
	if (opts && opts->no_isolation)
		parse_to_report(copy.data, copy.len, &r, 1);
	else
		failed = run_child(copy.data, copy.len, timeout, &r);
	buf_release(&copy);
	if (!failed && report_read(&r, len, out)) {
		mime_text_release(out);
		failed = xstrdup("MIME parser wrote an unreadable report");
	}
	if (failed) {
		mime_text_release(out);
		out->quarantine = failed;
	} else if (out->quarantine) {
		/* a limit reached after the text part was found: nothing of it
		 * counts (mime-child.h: type and the rest NULL unless found) */
		free(out->type);
		free(out->charset);
		free(out->encoding);
		out->type = out->charset = out->encoding = NULL;
		out->found = out->flowed = out->delsp = 0;
		out->offset = out->length = 0;
	}
	buf_release(&r);
	buf_release(&why);
}
