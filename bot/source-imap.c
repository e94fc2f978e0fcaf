#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "date.h"
#include "header.h"
#include "percent.h"
#include "source-imap.h"
#include "etpanlib.h"
#include "tcp.h"
#include "tls.h"
#include "url.h"
#include "xalloc.h"
#include "banned.h"

struct imap {
	mailimap *session;
	char *where;		/* "imap.example.org:993/INBOX" for messages: the
				 * mailbox examined last */
	char *server;		/* "imap.example.org:993" */
	char *mailbox;		/* the URL's mailbox */
	size_t slices;		/* 0, or the mailbox's slices found by LIST */
	uint32_t uidvalidity;
	int gone;		/* the connection is lost or not trusted: say nothing more */
	struct streambound bound;	/* a response passed IMAP_RESPONSE_BYTES_MAX;
					 * the server went away */
};

/* URLs */

void imap_url_release(struct imap_url *u)
{
	free(u->user);
	free(u->host);
	free(u->mailbox);
	u->user = u->host = u->mailbox = NULL;
}

/* %-decodes s[0..n-1] into out; -1 on a bad escape, a control character
 * or more than max bytes. */
static int url_decode(const char *s, size_t n, size_t max, char **out)
{
	struct buf b = BUF_INIT;
	size_t i;

	b.limit = max;
	if (percent_decode(s, n, 1, &b) < 0)
		goto bad;
	for (i = 0; i < b.len; i++)
		if ((unsigned char)b.data[i] < 0x20 || b.data[i] == 0x7f)
			goto bad;
	*out = buf_detach(&b, NULL);
	return 0;
bad:
	buf_release(&b);
	return -1;
}

int imap_url_parse(const char *url, struct imap_url *out, struct buf *err)
{
	struct imap_url u = { 0 };
	const char *p, *at, *slash, *query, *end, *why = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (strlen(url) > IMAP_URL_MAX)
		return url_fail("imap", url, "longer than 1024 bytes", err);
	if (!strncmp(url, "imaps://", 8)) {
		u.security = IMAP_TLS;
		u.port = 993;
		p = url + 8;
	} else if (!strncmp(url, "imap://", 7)) {
		u.security = IMAP_PLAIN;
		u.port = 143;
		p = url + 7;
	} else {
		return url_fail("imap", url, "must begin with imaps:// or imap://", err);
	}
	end = p + strlen(p);
	query = strchr(p, '?');
	if (query) {
		if (u.security != IMAP_PLAIN || strcmp(query, "?starttls"))
			return url_fail("imap", url, "the only query allowed is ?starttls, after imap://", err);
		u.security = IMAP_STARTTLS;
		end = query;
	}
	slash = memchr(p, '/', (size_t)(end - p));
	if (!slash)
		slash = end;
	at = NULL;
	for (i = 0; p + i < slash; i++)
		if (p[i] == '@')
			at = p + i;
	if (!at || at == p)
		return url_fail("imap", url, "name the user to log in as: imaps://USER@HOST/MAILBOX", err);
	if (memchr(p, ':', (size_t)(at - p)))
		return url_fail("imap", url, "no password in the URL: put it in a file only perfbot can read", err);
	if (url_decode(p, (size_t)(at - p), IMAP_USER_MAX, &u.user) < 0) {
		why = "the user name has a bad %-escape, a control character or is too long";
		goto fail;
	}
	if (url_host_parse(at + 1, slash, &u.host, &u.port, &why) < 0)
		goto fail;
	if (slash + 1 < end) {
		if (url_decode(slash + 1, (size_t)(end - slash - 1), IMAP_MAILBOX_MAX, &u.mailbox) < 0) {
			why = "the mailbox has a bad %-escape, a control character or is too long";
			goto fail;
		}
		for (i = 0; u.mailbox[i]; i++)
			if ((unsigned char)u.mailbox[i] >= 0x80)
				break;
		if (u.mailbox[i]) {
			why = "the mailbox name must be ASCII (write non-ASCII names in IMAP's modified UTF-7)";
			goto fail;
		}
	} else {
		u.mailbox = xstrdup("INBOX");
	}
	if (u.security == IMAP_PLAIN && !url_host_is_loopback(u.host)) {
		why = "plain imap:// only to 127.0.0.1, ::1 or localhost; "
		      "use imaps:// or imap://...?starttls";
		goto fail;
	}
	*out = u;
	return 0;
fail:
	imap_url_release(&u);
	return url_fail("imap", url, why, err);
}

/* Sessions */

/* Puts the server's last words, quoted and cut, after what. */
static int server_fail(struct imap *im, int code, const char *what, struct buf *err)
{
	struct buf text = BUF_INIT;
	int temporary = 0;

	switch (code) {
	case MAILIMAP_ERROR_STREAM:
	case MAILIMAP_ERROR_CONNECTION_REFUSED:
	case MAILIMAP_ERROR_DONT_ACCEPT_CONNECTION:
		temporary = 1;
		im->gone = 1;
		break;
	case MAILIMAP_ERROR_PARSE:
	case MAILIMAP_ERROR_SSL:
	case MAILIMAP_ERROR_BAD_STATE:
		im->gone = 1;
		break;
	}
	if (im->bound.tripped) {
		temporary = 1;
		im->gone = 1;
		buf_addf(&text, "the server's answer passed %u bytes; not reading further",
			 IMAP_RESPONSE_BYTES_MAX);
	} else if (im->bound.closed && code != MAILIMAP_NO_ERROR) {
		/* libetpan may call a reply cut short a parse error */
		temporary = 1;
		im->gone = 1;
		buf_adds(&text, "the server closed the connection (or it timed out)");
	} else if (!im->gone && im->session->imap_response) {
		header_quote_input(&text, im->session->imap_response);
		/* RFC 5530: the server says it is the one with the problem. */
		if (strstr(im->session->imap_response, "[UNAVAILABLE]"))
			temporary = 1;
	} else if (code == MAILIMAP_ERROR_STREAM) {
		buf_adds(&text, "the connection was closed or timed out");
	} else if (code == MAILIMAP_ERROR_CONNECTION_REFUSED) {
		buf_adds(&text, "cannot connect");
	} else if (code == MAILIMAP_ERROR_DONT_ACCEPT_CONNECTION) {
		buf_adds(&text, "the server refused the connection");
	} else if (code == MAILIMAP_ERROR_PARSE) {
		buf_adds(&text, "the server's answer is not IMAP as libetpan reads it");
	} else if (code == MAILIMAP_ERROR_SSL) {
		buf_adds(&text, "the TLS handshake failed");
	} else {
		buf_addf(&text, "libetpan error %d", code);
	}
	err_set(err, "imap %s: %s: %s", im->where, what, text.data);
	buf_release(&text);
	return temporary ? IMAP_TEMPORARY : -1;
}

static int lost(struct imap *im, struct buf *err)
{
	err_set(err, "imap %s: the connection was lost earlier", im->where);
	return IMAP_TEMPORARY;
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/*
 * Connects and reads the greeting.  perfbot opens the connection itself,
 * rather than through libetpan's connect functions, so that the greeting
 * is read through the bound too, and for imaps:// the certificate is
 * checked before anything is read.
 */
static int connect_session(struct imap *im, const struct imap_url *url, const char *ca_file,
			   int timeout, struct buf *err)
{
	mailstream *stream;
	int r;

	r = tls_stream_connect(url->host, url->port, url->security == IMAP_TLS, 0, timeout, ca_file,
			       IMAP_RESPONSE_BYTES_MAX, &im->bound, &stream, err);
	if (r < 0) {
		im->gone = 1;
		err_prefix(err, "imap %s: ", im->where);
		return r == TCP_TEMPORARY ? IMAP_TEMPORARY : -1;
	}
	/* on failure libetpan closes the stream */
	r = mailimap_connect(im->session, stream);
	if (r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED && r != MAILIMAP_NO_ERROR_AUTHENTICATED)
		return server_fail(im, r, "connect", err);
	if (url->security != IMAP_STARTTLS)
		return r;
	if (r == MAILIMAP_NO_ERROR_AUTHENTICATED) {
		im->gone = 1;
		return err_set(err, "imap %s: the server greeted with PREAUTH before STARTTLS; "
			       "refusing to go on without TLS", im->where);
	}
	/* No capability check: STARTTLS is tried whatever the plain-text
	 * server claims, and its refusal ends the session. */
	r = mailimap_socket_starttls_with_callback(im->session, tls_stream_setup, url->host);
	if (r != MAILIMAP_NO_ERROR) {
		r = server_fail(im, r, "STARTTLS", err);
		im->gone = 1;
		return r;
	}
	if (tls_stream_secure(im->session->imap_stream, url->host, ca_file, IMAP_RESPONSE_BYTES_MAX,
			      &im->bound, err) < 0) {
		im->gone = 1;
		return err_prefix(err, "imap %s: ", im->where);
	}
	return MAILIMAP_NO_ERROR_NON_AUTHENTICATED;
}

static void imap_close_unguarded(struct imap *im);

/* where: the server and mailbox, for messages. */
static void set_where(struct imap *im, const char *mailbox)
{
	struct buf where = BUF_INIT;

	buf_addf(&where, "%s/%s", im->server, mailbox);
	free(im->where);
	im->where = buf_detach(&where, NULL);
}

/* EXAMINE mailbox: 0, -1, IMAP_TEMPORARY, or 1 when the server has no
 * such mailbox to read (it answered NO, or gave no UIDVALIDITY, as
 * public-inbox-imapd does for the parent of its slices), with the
 * message in err. */
static int examine(struct imap *im, const char *mailbox, struct buf *err)
{
	int r;

	if (im->gone)
		return lost(im, err);
	set_where(im, mailbox);
	r = mailimap_examine(im->session, mailbox);
	if (r == MAILIMAP_ERROR_EXAMINE && !im->gone && !im->bound.closed && !im->bound.tripped) {
		server_fail(im, r, "cannot open the mailbox (EXAMINE)", err);
		return 1;
	}
	if (r != MAILIMAP_NO_ERROR)
		return server_fail(im, r, "cannot open the mailbox (EXAMINE)", err);
	if (!im->session->imap_selection_info || !im->session->imap_selection_info->sel_uidvalidity) {
		err_set(err, "imap %s: the server sent no UIDVALIDITY for the mailbox", im->where);
		return 1;
	}
	im->uidvalidity = im->session->imap_selection_info->sel_uidvalidity;
	return 0;
}

/* n when s is "BASE.n" (BASE compared without case, n decimal without a
 * leading zero and below IMAP_SLICES_MAX), else -1. */
static long slice_number(const char *s, const char *base)
{
	size_t len = strlen(base);
	long n = 0;

	if (strncasecmp(s, base, len) || s[len] != '.' || !isdigit((unsigned char)s[len + 1]))
		return -1;
	s += len + 1;
	if (s[0] == '0' && s[1])
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		n = n * 10 + (*s - '0');
		if (n >= IMAP_SLICES_MAX)
			return -1;
	}
	return n;
}

/* LIST "" "MAILBOX.%": im->slices = how many of MAILBOX.0, MAILBOX.1, ...
 * the server lists without a gap. */
static int list_slices(struct imap *im, struct buf *err)
{
	struct buf pattern = BUF_INIT;
	clist *result = NULL;
	clistiter *cur;
	unsigned char *seen;
	size_t n = 0;
	int r;

	if (im->gone)
		return lost(im, err);
	/* a name with wildcards of its own has no slices to look for */
	if (strpbrk(im->mailbox, "%*")) {
		im->slices = 0;
		return 0;
	}
	buf_addf(&pattern, "%s.%%", im->mailbox);
	r = mailimap_list(im->session, "", pattern.data, &result);
	buf_release(&pattern);
	if (r != MAILIMAP_NO_ERROR)
		return server_fail(im, r, "LIST", err);
	seen = xcalloc(IMAP_SLICES_MAX, 1);
	for (cur = result ? clist_begin(result) : NULL; cur; cur = clist_next(cur)) {
		const struct mailimap_mailbox_list *mb = clist_content(cur);
		long i = mb && mb->mb_name ? slice_number(mb->mb_name, im->mailbox) : -1;

		if (i >= 0)
			seen[i] = 1;
	}
	if (result)
		mailimap_list_result_free(result);
	while (n < IMAP_SLICES_MAX && seen[n])
		n++;
	free(seen);
	im->slices = n;
	return 0;
}

static int imap_open_unguarded(const struct imap_url *url, const char *password, const char *ca_file,
	      int timeout, struct imap **out, struct buf *err)
{
	struct imap *im;
	struct buf server = BUF_INIT, why = BUF_INIT;
	int r;

	*out = NULL;
	if (!password || has_control(password) || strlen(password) > IMAP_PASSWORD_MAX)
		return err_set(err, "imap %s: the password is missing, too long or has control characters",
			       url->host);
	im = xcalloc(1, sizeof(*im));
	url_add_host_port(&server, url->host, url->port);
	im->server = buf_detach(&server, NULL);
	im->mailbox = xstrdup(url->mailbox);
	set_where(im, url->mailbox);
	im->session = mailimap_new(0, NULL);
	if (!im->session) {
		free(im->where);
		free(im->server);
		free(im->mailbox);
		free(im);
		return err_set(err, "imap: out of memory in libetpan");
	}
	if (timeout > 0) {
		mailimap_set_timeout(im->session, timeout);
		mailstream_network_delay.tv_sec = timeout;
		mailstream_network_delay.tv_usec = 0;
	} else {
		timeout = (int)mailstream_network_delay.tv_sec;
	}

	r = connect_session(im, url, ca_file, timeout, err);
	if (r < 0)
		goto fail;
	if (r != MAILIMAP_NO_ERROR_AUTHENTICATED) {
		r = mailimap_login(im->session, url->user, password);
		if (r != MAILIMAP_NO_ERROR) {
			r = server_fail(im, r, "login refused", err);
			goto fail;
		}
	}
	r = examine(im, url->mailbox, err);
	if (r == 1) {
		/* Perhaps a public-inbox inbox, served as slices MAILBOX.0,
		 * MAILBOX.1, ...: then the first is examined. */
		buf_adds(&why, err->len ? err->data : "");
		r = list_slices(im, err);
		if (r == 0 && im->slices) {
			struct buf name = BUF_INIT;

			buf_addf(&name, "%s.0", im->mailbox);
			r = examine(im, name.data, err);
			buf_release(&name);
		} else if (r == 0) {
			set_where(im, url->mailbox);
			err_set(err, "%s", why.data);
			r = -1;
		}
		if (r == 1)
			r = -1;
	}
	buf_release(&why);
	if (r < 0)
		goto fail;
	*out = im;
	return 0;
fail:
	imap_close_unguarded(im);
	return r;
}

size_t imap_slices(const struct imap *im)
{
	return im->slices;
}

static int imap_examine_slice_unguarded(struct imap *im, size_t i, struct buf *err)
{
	struct buf name = BUF_INIT;
	int r;

	if (i >= im->slices)
		return err_set(err, "imap %s: no slice %zu of %s", im->server, i, im->mailbox);
	buf_addf(&name, "%s.%zu", im->mailbox, i);
	r = examine(im, name.data, err);
	buf_release(&name);
	return r == 1 ? -1 : r;
}

static int imap_relist_unguarded(struct imap *im, struct buf *err)
{
	size_t before = im->slices;
	int r;

	if (!before)
		return 0;
	r = list_slices(im, err);
	/* a slice is never taken away: reading goes on over those known */
	if (im->slices < before)
		im->slices = before;
	return r;
}

void imap_describe(const struct imap *im, struct buf *out)
{
	const struct mailimap_connection_info *ci = im->session->imap_connection_info;
	const struct mailimap_selection_info *si = im->session->imap_selection_info;
	clistiter *cur;
	size_t n = 0;

	buf_addf(out, "%s: UIDVALIDITY %u, %u message%s", im->where, im->uidvalidity,
		 si ? si->sel_exists : 0, si && si->sel_exists == 1 ? "" : "s");
	if (!ci || !ci->imap_capability || !ci->imap_capability->cap_list)
		return;
	buf_adds(out, "; capabilities:");
	for (cur = clist_begin(ci->imap_capability->cap_list); cur && n < 64; cur = clist_next(cur), n++) {
		const struct mailimap_capability *c = clist_content(cur);
		const char *name = c->cap_data.cap_name;

		if (!name)
			continue;
		buf_adds(out, c->cap_type == MAILIMAP_CAPABILITY_AUTH_TYPE ? " AUTH=" : " ");
		for (; *name && name - c->cap_data.cap_name < 64; name++)	/* untrusted */
			buf_addc(out, *name > ' ' && *name < 0x7f ? *name : '?');
	}
}

uint32_t imap_uidvalidity(const struct imap *im)
{
	return im->uidvalidity;
}

static void imap_close_unguarded(struct imap *im)
{
	if (!im)
		return;
	if (!im->gone && im->session->imap_stream)
		mailimap_logout(im->session);
	mailimap_free(im->session);
	free(im->where);
	free(im->server);
	free(im->mailbox);
	free(im);
}

static int uid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* UID SEARCH UID set (taking set, which may be NULL after an allocation
 * failure); *result is the server's list of UIDs. */
static int uid_search(struct imap *im, struct mailimap_set *set, clist **result, struct buf *err)
{
	struct mailimap_search_key *key = set ? mailimap_search_key_new_uid(set) : NULL;
	int r;

	if (!key) {
		mailimap_set_free(set);
		return err_set(err, "imap: out of memory in libetpan");
	}
	r = mailimap_uid_search(im->session, NULL, key, result);
	mailimap_search_key_free(key);
	if (r != MAILIMAP_NO_ERROR)
		return server_fail(im, r, "UID SEARCH", err);
	return 0;
}

static int imap_search_after_unguarded(struct imap *im, uint32_t last, uint32_t **uids, size_t *nr,
		      struct buf *err)
{
	clist *result = NULL;
	clistiter *cur;
	uint32_t *v = NULL;
	size_t n = 0, alloc = 0;
	int r;

	*uids = NULL;
	*nr = 0;
	if (im->gone)
		return lost(im, err);
	if (last == UINT32_MAX)
		return 0;
	r = uid_search(im, mailimap_set_new_interval(last + 1, 0), &result, err);	/* 0 is "*" */
	if (r < 0)
		return r;
	for (cur = clist_begin(result); cur; cur = clist_next(cur)) {
		uint32_t uid = *(uint32_t *)clist_content(cur);

		if (uid <= last)
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = uid;
	}
	mailimap_search_result_free(result);
	xqsort(v, n, sizeof(*v), uid_cmp);
	/* A server could repeat a UID; each is read once. */
	if (n) {
		size_t i, k = 1;

		for (i = 1; i < n; i++)
			if (v[i] != v[k - 1])
				v[k++] = v[i];
		n = k;
	}
	if (n > IMAP_SEARCH_MAX)
		n = IMAP_SEARCH_MAX;
	*uids = v;
	*nr = n;
	return 0;
}

/* The lowest (lowest 1) or highest (lowest 0) UID in result, 0 if none. */
static uint32_t result_uid(clist *result, int lowest)
{
	clistiter *cur;
	uint32_t best = 0;

	for (cur = result ? clist_begin(result) : NULL; cur; cur = clist_next(cur)) {
		uint32_t uid = *(uint32_t *)clist_content(cur);

		if (uid && (!best || (lowest ? uid < best : uid > best)))
			best = uid;
	}
	return best;
}

static int imap_search_since_unguarded(struct imap *im, int64_t day, uint32_t *last, struct buf *err)
{
	struct date_civil c;
	struct mailimap_date *date;
	struct mailimap_search_key *key;
	clist *result = NULL;
	uint32_t first;
	int r;

	*last = 0;
	if (im->gone)
		return lost(im, err);
	date_to_civil(day, 0, &c);
	if (c.year < 1 || c.year > 9999)
		return err_set(err, "imap %s: the day to search from is out of range", im->where);
	date = mailimap_date_new((int)c.day, (int)c.month, (int)c.year);
	key = date ? mailimap_search_key_new_since(date) : NULL;
	if (!key) {
		if (date)
			mailimap_date_free(date);
		return err_set(err, "imap: out of memory in libetpan");
	}
	r = mailimap_uid_search(im->session, NULL, key, &result);
	mailimap_search_key_free(key);
	if (r != MAILIMAP_NO_ERROR)
		return server_fail(im, r, "UID SEARCH SINCE", err);
	first = result_uid(result, 1);
	mailimap_search_result_free(result);
	if (first) {
		*last = first - 1;
		return 0;
	}
	/* None since then: the cursor goes past every UID in use, below
	 * UIDNEXT, or else the highest found (public-inbox-imapd refuses a
	 * bare "UID *"). */
	if (im->session->imap_selection_info && im->session->imap_selection_info->sel_uidnext > 1) {
		*last = im->session->imap_selection_info->sel_uidnext - 1;
		return 0;
	}
	result = NULL;
	r = uid_search(im, mailimap_set_new_interval(1, 0), &result, err);
	if (r < 0)
		return r;
	*last = result_uid(result, 0);
	mailimap_search_result_free(result);
	return 0;
}

/* The UIDs of v[0..nr-1] as a set of ranges. */
static struct mailimap_set *uid_set(const struct imap_message *v, size_t nr)
{
	struct mailimap_set *set = mailimap_set_new_empty();
	size_t i = 0;

	while (set && i < nr) {
		size_t j = i;

		while (j + 1 < nr && v[j + 1].uid == v[j].uid + 1)
			j++;
		if (mailimap_set_add_interval(set, v[i].uid, v[j].uid) != MAILIMAP_NO_ERROR) {
			mailimap_set_free(set);
			return NULL;
		}
		i = j + 1;
	}
	return set;
}

static struct imap_message *find_uid(struct imap_message *v, size_t nr, uint32_t uid)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].uid == uid)
			return v + mid;
		if (v[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* What one FETCH response says: its UID, RFC822.SIZE and BODY[]. */
struct fetched {
	uint32_t uid;
	int has_size;
	uint32_t size;
	const char *body;	/* NULL when absent */
	size_t body_len;
};

static void read_msg_att(struct mailimap_msg_att *att, struct fetched *f)
{
	clistiter *cur;

	memset(f, 0, sizeof(*f));
	for (cur = clist_begin(att->att_list); cur; cur = clist_next(cur)) {
		struct mailimap_msg_att_item *item = clist_content(cur);
		struct mailimap_msg_att_static *st;

		if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC || !item->att_data.att_static)
			continue;
		st = item->att_data.att_static;
		switch (st->att_type) {
		case MAILIMAP_MSG_ATT_UID:
			f->uid = st->att_data.att_uid;
			break;
		case MAILIMAP_MSG_ATT_RFC822_SIZE:
			f->has_size = 1;
			f->size = st->att_data.att_rfc822_size;
			break;
		case MAILIMAP_MSG_ATT_BODY_SECTION:
			if (st->att_data.att_body_section) {
				f->body = st->att_data.att_body_section->sec_body_part;
				f->body_len = st->att_data.att_body_section->sec_length;
				if (!f->body)
					f->body_len = 0;
			}
			break;
		}
	}
}

/*
 * mailimap_uid_fetch() reports success when the server's tagged answer
 * is NO if any FETCH response came with it, so a UID missing from the
 * answer may be expunged or may have failed.  Asks again with UID SEARCH:
 * 0 when none of v[0..nr-1] with !(*answered)(v) still exists, else
 * IMAP_TEMPORARY naming the first that does.
 */
static int check_missing(struct imap *im, struct imap_message *v, size_t nr,
			 int (*answered)(const struct imap_message *), const char *what,
			 struct buf *err)
{
	struct imap_message *miss = xcalloc(nr ? nr : 1, sizeof(*miss));
	struct mailimap_set *set;
	clist *result = NULL;
	size_t i, n = 0;
	int r;

	for (i = 0; i < nr; i++)
		if (!answered(v + i))
			miss[n++].uid = v[i].uid;
	if (!n) {
		free(miss);
		return 0;
	}
	set = uid_set(miss, n);
	free(miss);
	r = uid_search(im, set, &result, err);
	if (r < 0)
		return r;
	r = 0;
	if (clist_begin(result)) {
		uint32_t uid = *(uint32_t *)clist_content(clist_begin(result));

		err_set(err, "imap %s: the server gave no %s for UID %u, which it still has; "
			"try again later", im->where, what, (unsigned)uid);
		r = IMAP_TEMPORARY;
	}
	mailimap_search_result_free(result);
	return r;
}

/* "(want UID)"; takes want, also when it returns NULL (out of memory). */
static struct mailimap_fetch_type *fetch_type(struct mailimap_fetch_att *want)
{
	struct mailimap_fetch_type *type = mailimap_fetch_type_new_fetch_att_list_empty();
	struct mailimap_fetch_att *uid;

	if (!want) {
		if (type)
			mailimap_fetch_type_free(type);
		return NULL;
	}
	if (!type || mailimap_fetch_type_new_fetch_att_list_add(type, want) != MAILIMAP_NO_ERROR) {
		mailimap_fetch_att_free(want);
		if (type)
			mailimap_fetch_type_free(type);
		return NULL;
	}
	uid = mailimap_fetch_att_new_uid();
	if (!uid || mailimap_fetch_type_new_fetch_att_list_add(type, uid) != MAILIMAP_NO_ERROR) {
		if (uid)
			mailimap_fetch_att_free(uid);
		mailimap_fetch_type_free(type);
		return NULL;
	}
	return type;
}

/* Runs UID FETCH of the attributes on v[0..nr-1]; calls take() for each
 * answer that names one of them. */
static int uid_fetch(struct imap *im, struct imap_message *v, size_t nr,
		     struct mailimap_fetch_att *want, const char *what,
		     void (*take)(struct imap_message *, const struct fetched *), struct buf *err)
{
	struct mailimap_fetch_type *type;
	struct mailimap_set *set;
	clist *result = NULL;
	clistiter *cur;
	int r;

	if (im->gone || nr > IMAP_FETCH_MAX) {
		if (want)
			mailimap_fetch_att_free(want);
		if (im->gone)
			return lost(im, err);
		return err_set(err, "imap: %zu UIDs in one fetch (at most %d)", nr, IMAP_FETCH_MAX);
	}
	type = fetch_type(want);
	set = type ? uid_set(v, nr) : NULL;
	if (!set) {
		if (type)
			mailimap_fetch_type_free(type);
		return err_set(err, "imap: out of memory in libetpan");
	}
	r = mailimap_uid_fetch(im->session, set, type, &result);
	mailimap_fetch_type_free(type);
	mailimap_set_free(set);
	if (r != MAILIMAP_NO_ERROR)
		return server_fail(im, r, what, err);
	for (cur = clist_begin(result); cur; cur = clist_next(cur)) {
		struct fetched f;
		struct imap_message *m;

		read_msg_att(clist_content(cur), &f);
		/* Unsolicited FETCH responses (flag changes) carry no UID or
		 * name messages not asked for. */
		m = f.uid ? find_uid(v, nr, f.uid) : NULL;
		if (m)
			take(m, &f);
	}
	mailimap_fetch_list_free(result);
	return 0;
}

static void take_size(struct imap_message *m, const struct fetched *f)
{
	if (f->has_size)
		m->size = f->size;
}

static int has_size(const struct imap_message *m)
{
	return m->size >= 0;
}

static int imap_fetch_sizes_unguarded(struct imap *im, struct imap_message *v, size_t nr, struct buf *err)
{
	size_t i;
	int r;

	for (i = 0; i < nr; i++)
		v[i].size = -1;
	if (!nr)
		return 0;
	r = uid_fetch(im, v, nr, mailimap_fetch_att_new_rfc822_size(), "UID FETCH RFC822.SIZE",
		      take_size, err);
	if (r < 0)
		return r;
	return check_missing(im, v, nr, has_size, "size", err);
}

static void take_body(struct imap_message *m, const struct fetched *f)
{
	if (!f->body || m->fetched)
		return;
	buf_reset(&m->raw);
	imap_crlf_to_lf(&m->raw, f->body, f->body_len);
	m->fetched = 1;
}

static int has_body(const struct imap_message *m)
{
	return m->fetched;
}

static int imap_fetch_bodies_unguarded(struct imap *im, struct imap_message *v, size_t nr, struct buf *err)
{
	struct mailimap_section *section;
	struct mailimap_fetch_att *att;
	size_t i;
	int r;

	for (i = 0; i < nr; i++)
		v[i].fetched = 0;
	if (!nr)
		return 0;
	section = mailimap_section_new(NULL);
	att = section ? mailimap_fetch_att_new_body_peek_section(section) : NULL;
	if (!att) {
		mailimap_section_free(section);
		return err_set(err, "imap: out of memory in libetpan");
	}
	r = uid_fetch(im, v, nr, att, "UID FETCH BODY.PEEK[]", take_body, err);
	if (r < 0)
		return r;
	return check_missing(im, v, nr, has_body, "message", err);
}

int imap_crlf_to_lf(struct buf *out, const char *p, size_t n)
{
	const char *end = p + n;

	if (buf_grow(out, n) < 0)
		return -1;
	while (p < end) {
		const char *cr = memchr(p, '\r', (size_t)(end - p));

		if (!cr) {
			buf_add(out, p, (size_t)(end - p));
			break;
		}
		if (cr + 1 < end && cr[1] == '\n') {
			buf_add(out, p, (size_t)(cr - p));
			p = cr + 1;
		} else {
			buf_add(out, p, (size_t)(cr + 1 - p));
			p = cr + 1;
		}
	}
	return 0;
}

/* The functions of imap.h, each with SIGPIPE held off (tcp.h) while
 * libetpan talks to the server. */

int imap_open(const struct imap_url *url, const char *password, const char *ca_file,
	      int timeout, struct imap **out, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = imap_open_unguarded(url, password, ca_file, timeout, out, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int imap_search_since(struct imap *im, int64_t day, uint32_t *last, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = imap_search_since_unguarded(im, day, last, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int imap_examine_slice(struct imap *im, size_t i, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = imap_examine_slice_unguarded(im, i, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int imap_relist(struct imap *im, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = imap_relist_unguarded(im, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int imap_search_after(struct imap *im, uint32_t last, uint32_t **uids, size_t *nr,
		      struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = imap_search_after_unguarded(im, last, uids, nr, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int imap_fetch_sizes(struct imap *im, struct imap_message *v, size_t nr, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = imap_fetch_sizes_unguarded(im, v, nr, err);
	tcp_sigpipe_restore(&g);
	return r;
}

int imap_fetch_bodies(struct imap *im, struct imap_message *v, size_t nr, struct buf *err)
{
	struct tcp_sigpipe g;
	int r;

	tcp_sigpipe_block(&g);
	r = imap_fetch_bodies_unguarded(im, v, nr, err);
	tcp_sigpipe_restore(&g);
	return r;
}

void imap_close(struct imap *im)
{
	struct tcp_sigpipe g;

	tcp_sigpipe_block(&g);
	imap_close_unguarded(im);
	tcp_sigpipe_restore(&g);
}
