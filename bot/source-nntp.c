#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "date.h"
#include "header.h"
#include "source-imap.h"
#include "source-nntp.h"
#include "etpanlib.h"
#include "tcp.h"
#include "tls.h"
#include "url.h"
#include "xalloc.h"
#include "banned.h"

struct nntp {
	newsnntp *session;
	char *where;		/* "news.example.org:563" for messages */
	int gone;		/* the connection is lost or not trusted: say nothing more */
	struct streambound bound;
	size_t in_flight;	/* ARTICLE commands sent and not answered yet */
	MMAPString *body;	/* the multi-line answer being read */
};

/* URLs */

void nntp_url_release(struct nntp_url *u)
{
	free(u->host);
	free(u->group);
	free(u->server);
	free(u->key);
	memset(u, 0, sizeof(*u));
}

static int group_ok(const char *g, size_t n)
{
	size_t i;

	if (!n || n > NNTP_GROUP_MAX || g[0] == '.' || g[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)g[i]) && !strchr(".+-_", g[i]))
			return 0;
	return 1;
}

int nntp_url_parse(const char *url, struct nntp_url *out, struct buf *err)
{
	struct nntp_url u = { 0 };
	const char *p, *slash, *query, *end, *why = NULL;
	struct buf b = BUF_INIT;

	memset(out, 0, sizeof(*out));
	if (strlen(url) > NNTP_URL_MAX)
		return url_fail("nntp", url, "longer than 1024 bytes", err);
	if (!strncmp(url, "nntps://", 8)) {
		u.security = NNTP_TLS;
		u.port = 563;
		p = url + 8;
	} else if (!strncmp(url, "nntp://", 7)) {
		u.security = NNTP_PLAIN;
		u.port = 119;
		p = url + 7;
	} else {
		return url_fail("nntp", url, "must begin with nntps:// or nntp://", err);
	}
	end = p + strlen(p);
	query = strchr(p, '?');
	if (query) {
		if (u.security != NNTP_PLAIN || strcmp(query, "?starttls"))
			return url_fail("nntp", url, "the only query allowed is ?starttls, after nntp://", err);
		u.security = NNTP_STARTTLS;
		end = query;
	}
	slash = memchr(p, '/', (size_t)(end - p));
	if (!slash || slash + 1 >= end)
		return url_fail("nntp", url, "name the group: nntps://HOST/GROUP", err);
	if (memchr(p, '@', (size_t)(slash - p)))
		return url_fail("nntp", url, "no user in the URL: perfbot reads public groups without a login", err);
	if (url_host_parse(p, slash, &u.host, &u.port, &why) < 0)
		goto fail;
	if (!group_ok(slash + 1, (size_t)(end - slash - 1))) {
		why = "the group must be letters, digits and . + - _ (at most 256 bytes)";
		goto fail;
	}
	u.group = xstrndup(slash + 1, (size_t)(end - slash - 1));
	if (u.security == NNTP_PLAIN && !url_host_is_loopback(u.host)) {
		why = "plain nntp:// only to 127.0.0.1, ::1 or localhost; "
		      "use nntps:// or nntp://...?starttls";
		goto fail;
	}
	buf_adds(&b, u.security == NNTP_TLS ? "nntps://" : "nntp://");
	url_add_host_port(&b, u.host, u.port);
	if (u.security == NNTP_STARTTLS)
		buf_adds(&b, "?starttls");
	u.server = buf_detach(&b, NULL);
	buf_adds(&b, "nntp://");
	url_add_host_port(&b, u.host, u.port);
	buf_addf(&b, "/%s", u.group);
	u.key = buf_detach(&b, NULL);
	*out = u;
	return 0;
fail:
	nntp_url_release(&u);
	return url_fail("nntp", url, why, err);
}

/* Sessions */

/* The server's last words, quoted and cut, after what. */
static int server_fail(struct nntp *n, int code, const char *what, struct buf *err)
{
	struct buf text = BUF_INIT;
	int temporary = 0;

	if (code == NEWSNNTP_ERROR_STREAM || code == NEWSNNTP_ERROR_CONNECTION_REFUSED) {
		temporary = 1;
		n->gone = 1;
	}
	if (n->bound.tripped) {
		temporary = 1;
		n->gone = 1;
		buf_addf(&text, "the server's answer passed %u bytes; not reading further",
			 NNTP_RESPONSE_BYTES_MAX);
	} else if (n->bound.closed || code == NEWSNNTP_ERROR_STREAM) {
		temporary = 1;
		n->gone = 1;
		buf_adds(&text, "the server closed the connection (or it timed out)");
	} else if (code == NEWSNNTP_ERROR_NO_SUCH_NEWS_GROUP) {
		buf_adds(&text, "the server has no such group");
	} else if (n->session->nntp_response) {
		header_quote_input(&text, n->session->nntp_response);
		/* 400: the service is not available now (RFC 3977 §3.2.1) */
	} else {
		buf_addf(&text, "libetpan error %d", code);
	}
	err_set(err, "nntp %s: %s: %s", n->where, what, text.data);
	buf_release(&text);
	return temporary ? NNTP_TEMPORARY : -1;
}

static int lost(struct nntp *n, struct buf *err)
{
	err_set(err, "nntp %s: the connection was lost earlier", n->where);
	return NNTP_TEMPORARY;
}

/* RFC 4642: STARTTLS, a 382 answer, then the handshake on the same
 * socket (libetpan has no NNTP STARTTLS of its own). */
static int starttls(struct nntp *n, const struct nntp_url *url, const char *ca_file, int timeout,
		    struct buf *err)
{
	mailstream *s = n->session->nntp_stream;
	mailstream_low *low, *tls;
	MMAPString *line = mmap_string_new("");
	char *answer;
	int fd;

	if (!line)
		return err_set(err, "nntp: out of memory in libetpan");
	if (mailstream_write(s, "STARTTLS\r\n", 10) != 10 || mailstream_flush(s) < 0 ||
	    !(answer = mailstream_read_line_remove_eol(s, line))) {
		mmap_string_free(line);
		return server_fail(n, NEWSNNTP_ERROR_STREAM, "STARTTLS", err);
	}
	if (strncmp(answer, "382", 3)) {
		struct buf q = BUF_INIT;

		header_quote_input(&q, answer);
		err_set(err, "nntp %s: STARTTLS refused: %s", n->where, q.data);
		buf_release(&q);
		mmap_string_free(line);
		n->gone = 1;
		return -1;
	}
	mmap_string_free(line);
	low = mailstream_get_low(s);
	fd = mailstream_low_get_fd(low);
	tls = fd < 0 ? NULL : mailstream_low_tls_open_with_callback_timeout(fd, timeout, tls_stream_setup,
									  url->host);
	if (!tls) {
		n->gone = 1;
		return err_set(err, "nntp %s: STARTTLS: the TLS handshake failed", n->where);
	}
	mailstream_low_free(low);
	mailstream_set_low(s, tls);
	if (tls_stream_secure(s, url->host, ca_file, NNTP_RESPONSE_BYTES_MAX, &n->bound, err) < 0) {
		n->gone = 1;
		return err_prefix(err, "nntp %s: ", n->where);
	}
	return 0;
}

/* Connects and reads the greeting, through the bound; for nntps:// the
 * certificate is checked before anything is read. */
static int connect_session(struct nntp *n, const struct nntp_url *url, const char *ca_file,
			   int timeout, struct buf *err)
{
	mailstream *stream;
	int r;

	r = tls_stream_connect(url->host, url->port, url->security == NNTP_TLS,
			       url->security == NNTP_PLAIN, timeout, ca_file, NNTP_RESPONSE_BYTES_MAX,
			       &n->bound, &stream, err);
	if (r < 0) {
		n->gone = 1;
		err_prefix(err, "nntp %s: ", n->where);
		return r == TCP_TEMPORARY ? NNTP_TEMPORARY : -1;
	}
	r = newsnntp_connect(n->session, stream);
	if (r != NEWSNNTP_NO_ERROR) {
		/* libetpan forgets the stream when the greeting is not 200/201 */
		if (!n->session->nntp_stream)
			n->session->nntp_stream = stream;
		r = server_fail(n, r, "greeting", err);
		n->gone = 1;
		return r;
	}
	if (url->security == NNTP_STARTTLS)
		return starttls(n, url, ca_file, timeout, err);
	return 0;
}

static void nntp_close_unguarded(struct nntp *n);

static int nntp_open_unguarded(const struct nntp_url *url, const char *ca_file, int timeout,
			       struct nntp **out, struct buf *err)
{
	struct nntp *n = xcalloc(1, sizeof(*n));
	struct buf where = BUF_INIT;
	int r;

	*out = NULL;
	url_add_host_port(&where, url->host, url->port);
	n->where = buf_detach(&where, NULL);
	n->session = newsnntp_new(0, NULL);
	if (!n->session) {
		free(n->where);
		free(n);
		return err_set(err, "nntp: out of memory in libetpan");
	}
	if (timeout > 0) {
		newsnntp_set_timeout(n->session, timeout);
		mailstream_network_delay.tv_sec = timeout;
		mailstream_network_delay.tv_usec = 0;
	} else {
		timeout = (int)mailstream_network_delay.tv_sec;
	}
	r = connect_session(n, url, ca_file, timeout, err);
	if (r < 0) {
		nntp_close_unguarded(n);
		return r;
	}
	*out = n;
	return 0;
}

const char *nntp_where(const struct nntp *n)
{
	return n->where;
}

static int nntp_article_read_unguarded(struct nntp *n, struct buf *raw, struct buf *err);

static int nntp_group_unguarded(struct nntp *n, const char *group, struct nntp_range *out,
				struct buf *err)
{
	struct newsnntp_group_info *info = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	if (n->gone)
		return lost(n, err);
	if (!group_ok(group, strlen(group)))
		return err_set(err, "nntp %s: not a group name", n->where);
	/* a group left before its last batch was read: its answers first */
	if (n->in_flight) {
		struct buf skip = BUF_INIT;

		skip.limit = NNTP_RESPONSE_BYTES_MAX;
		while (n->in_flight && (r = nntp_article_read_unguarded(n, &skip, err)) >= 0)
			;
		buf_release(&skip);
		if (n->in_flight)
			return r;
	}
	r = newsnntp_group(n->session, group, &info);
	if (r != NEWSNNTP_NO_ERROR)
		return server_fail(n, r, group, err);
	out->first = info->grp_first;
	out->last = info->grp_last;
	out->count = info->grp_count;
	newsnntp_group_free(info);
	if (out->last > NNTP_NUMBER_MAX || out->first > NNTP_NUMBER_MAX)
		return err_set(err, "nntp %s: %s: the server's article numbers pass 2^31", n->where, group);
	/* RFC 3977 §6.1.1.2: an empty group says first > last, or 0 0 0; a
	 * count of 0 with first <= last is only an estimate (public-inbox-nntpd
	 * says last - first: 0 for a group of one article), and XOVER tells */
	if (!out->last || out->last < out->first)
		out->count = 0;
	else if (!out->count)
		out->count = 1;
	return 0;
}

static int over_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct nntp_over *)a)->number, y = ((const struct nntp_over *)b)->number;

	return x < y ? -1 : x > y;
}

/* 1 when the server's answer to XOVER says the range holds no article:
 * 420, or 423 which libetpan does not name. */
static int empty_range(const struct nntp *n, int code)
{
	const char *t = n->session->nntp_response;

	if (code == NEWSNNTP_ERROR_NO_ARTICLE_SELECTED)
		return 1;
	return code == NEWSNNTP_ERROR_UNEXPECTED_RESPONSE && t && !n->bound.closed &&
	       (strcasestr(t, "no article") || strcasestr(t, "no such article"));
}

static int nntp_over_unguarded(struct nntp *n, uint32_t lo, uint32_t hi, struct nntp_over **v,
			       size_t *nr, struct buf *err)
{
	clist *list = NULL;
	clistiter *cur;
	struct nntp_over *o = NULL;
	size_t k = 0, alloc = 0;
	int r;

	*v = NULL;
	*nr = 0;
	if (n->gone)
		return lost(n, err);
	if (lo > hi || hi - lo >= NNTP_OVER_MAX || hi > NNTP_NUMBER_MAX)
		return err_set(err, "nntp: XOVER %u-%u: a range of at most %d numbers up to 2^31",
			       (unsigned)lo, (unsigned)hi, NNTP_OVER_MAX);
	if (n->in_flight)
		return err_set(err, "nntp: XOVER while ARTICLE answers are awaited");
	r = newsnntp_xover_range(n->session, lo, hi, &list);
	if (r != NEWSNNTP_NO_ERROR) {
		if (empty_range(n, r))
			return 0;
		return server_fail(n, r, "XOVER", err);
	}
	if (!list)	/* libetpan's answer to a cut-off overview */
		return server_fail(n, NEWSNNTP_ERROR_STREAM, "XOVER", err);
	for (cur = clist_begin(list); cur; cur = clist_next(cur)) {
		const struct newsnntp_xover_resp_item *it = clist_content(cur);
		int zone;

		if (!it || it->ovr_article < lo || it->ovr_article > hi)
			continue;
		ALLOC_GROW(o, k + 1, alloc);
		o[k].number = it->ovr_article;
		o[k].size = it->ovr_size;
		if (!it->ovr_date || date_parse_rfc5322(it->ovr_date, &o[k].date, &zone) < 0)
			o[k].date = 0;
		k++;
	}
	newsnntp_xover_resp_list_free(list);
	xqsort(o, k, sizeof(*o), over_cmp);
	if (k) {
		size_t i, j = 1;

		for (i = 1; i < k; i++)
			if (o[i].number != o[j - 1].number)
				o[j++] = o[i];
		k = j;
	}
	*v = o;
	*nr = k;
	return 0;
}

static int nntp_article_send_unguarded(struct nntp *n, const uint32_t *numbers, size_t nr,
				       struct buf *err)
{
	struct buf cmds = BUF_INIT;
	size_t i;

	if (n->gone)
		return lost(n, err);
	if (n->in_flight + nr > NNTP_PIPELINE_MAX)
		return err_set(err, "nntp: more than %d ARTICLE commands at once", NNTP_PIPELINE_MAX);
	for (i = 0; i < nr; i++) {
		if (!numbers[i] || numbers[i] > NNTP_NUMBER_MAX) {
			buf_release(&cmds);
			return err_set(err, "nntp: %u is not an article number", (unsigned)numbers[i]);
		}
		buf_addf(&cmds, "ARTICLE %u\r\n", (unsigned)numbers[i]);
	}
	if (!nr)
		return 0;
	if (mailstream_write(n->session->nntp_stream, cmds.data, cmds.len) != (ssize_t)cmds.len ||
	    mailstream_flush(n->session->nntp_stream) < 0) {
		buf_release(&cmds);
		return server_fail(n, NEWSNNTP_ERROR_STREAM, "ARTICLE", err);
	}
	buf_release(&cmds);
	n->in_flight += nr;
	return 0;
}

static int nntp_article_read_unguarded(struct nntp *n, struct buf *raw, struct buf *err)
{
	mailstream *s;
	char *line;
	long code;

	buf_reset(raw);
	if (n->gone)
		return lost(n, err);
	if (!n->in_flight)
		return err_set(err, "nntp: no ARTICLE is waiting for its answer");
	s = n->session->nntp_stream;
	line = mailstream_read_line_remove_eol(s, n->session->nntp_stream_buffer);
	if (!line)
		return server_fail(n, NEWSNNTP_ERROR_STREAM, "ARTICLE", err);
	n->in_flight--;
	code = strtol(line, NULL, 10);
	if (code == 423 || code == 430)
		return 0;
	if (code != 220 && (n->bound.closed || n->bound.tripped))	/* a line cut short */
		return server_fail(n, NEWSNNTP_ERROR_STREAM, "ARTICLE", err);
	if (code != 220) {
		struct buf q = BUF_INIT;

		header_quote_input(&q, line);
		n->gone = 1;	/* the answers that follow cannot be told apart */
		err_set(err, "nntp %s: ARTICLE: %s", n->where, q.data);
		buf_release(&q);
		return code >= 400 && code < 500 && code != 423 && code != 430 ? NNTP_TEMPORARY : -1;
	}
	if (!n->body && !(n->body = mmap_string_new("")))
		return err_set(err, "nntp: out of memory in libetpan");
	if (!mailstream_read_multiline(s, 0, n->session->nntp_stream_buffer, n->body, 0, NULL, NULL,
				       NULL))
		return server_fail(n, NEWSNNTP_ERROR_STREAM, "ARTICLE", err);
	imap_crlf_to_lf(raw, n->body->str, n->body->len);
	/* keep no article's worth of memory between reads */
	if (n->body->allocated_len > (1u << 20)) {
		mmap_string_free(n->body);
		n->body = NULL;
	}
	return 1;
}

/* The first article at or after *at within [*at, hi) that has a date:
 * 1 with *o, 0 when none (XOVER windows from *at on). */
static int first_dated(struct nntp *n, uint32_t at, uint32_t hi, struct nntp_over *o,
		       struct buf *err)
{
	while (at < hi) {
		uint32_t end = hi - at > NNTP_OVER_MAX / 10 ? at + NNTP_OVER_MAX / 10 : hi;
		struct nntp_over *v;
		size_t nr, i;
		int r = nntp_over_unguarded(n, at, end - 1, &v, &nr, err);

		if (r < 0)
			return r;
		for (i = 0; i < nr && !v[i].date; i++)
			;
		if (i < nr) {
			*o = v[i];
			free(v);
			return 1;
		}
		free(v);
		at = end;
	}
	return 0;
}

static int nntp_find_date_unguarded(struct nntp *n, const struct nntp_range *range, int64_t since,
				    uint32_t *first, struct buf *err)
{
	uint32_t lo, hi, best = range->last + 1;

	*first = best;
	if (!range->count)
		return 0;
	/* best: the lowest article known dated since or later (or last + 1);
	 * an earlier answer can only lie in [lo, hi) */
	lo = range->first ? range->first : 1;
	hi = best;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		struct nntp_over o;
		int r = first_dated(n, mid, hi, &o, err);

		if (r < 0)
			return r;
		if (r == 0) {
			hi = mid;		/* nothing dated in [mid, hi) */
		} else if (o.date < since) {
			lo = o.number + 1;
		} else {
			best = o.number;	/* nothing dated in [mid, o) */
			hi = mid;
		}
	}
	*first = best;
	return 0;
}

static void nntp_close_unguarded(struct nntp *n)
{
	if (!n)
		return;
	/* with answers still coming, QUIT's own could not be told apart */
	if (!n->gone && !n->in_flight && n->session->nntp_stream)
		newsnntp_quit(n->session);
	newsnntp_free(n->session);
	if (n->body)
		mmap_string_free(n->body);
	free(n->where);
	free(n);
}

/* The functions of source-nntp.h, each with SIGPIPE held off (tcp.h). */

int nntp_open(const struct nntp_url *url, const char *ca_file, int timeout,
	      struct nntp **out, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = nntp_open_unguarded(url, ca_file, timeout, out, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int nntp_group(struct nntp *n, const char *group, struct nntp_range *out, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = nntp_group_unguarded(n, group, out, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int nntp_over(struct nntp *n, uint32_t lo, uint32_t hi, struct nntp_over **v, size_t *nr,
	      struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = nntp_over_unguarded(n, lo, hi, v, nr, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int nntp_article_send(struct nntp *n, const uint32_t *numbers, size_t nr, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = nntp_article_send_unguarded(n, numbers, nr, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int nntp_article_read(struct nntp *n, struct buf *raw, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = nntp_article_read_unguarded(n, raw, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int nntp_find_date(struct nntp *n, const struct nntp_range *range, int64_t since,
		   uint32_t *first, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = nntp_find_date_unguarded(n, range, since, first, err);
	tcp_sigpipe_restore(&g);
	return r;
}

void nntp_close(struct nntp *n)
{
	struct tcp_sigpipe g;

	tcp_sigpipe_block(&g);
	nntp_close_unguarded(n);
	tcp_sigpipe_restore(&g);
}
