/*
 * perfbot ingest [--all] [-v] [--since DATE]
 *                [--maildir DIR | --mbox FILE | --imap URL | --nntp URL | -]:
 * reads new mail, keeps the replies to perfbot's reports (or, with --all,
 * every mail), archives them and records their commands and trailers.
 * Without a source named, every configured one in one run: the Maildir,
 * the IMAP mailbox and each NNTP group (one connection per news server);
 * one that fails does not stop the others, and the exit code is the
 * worst.  Each mail is taken exactly once: a source lets a mail go
 * (Maildir: new/ to cur/; mbox, IMAP and NNTP: the cursor in the state
 * database) only after it
 * is recorded and archived, and a mail seen again is recognised by its
 * Message-ID.  `-` reads one mail on stdin for an MTA: exit 0 when it was
 * kept or deliberately ignored, 75 on a temporary failure (retry).  An
 * IMAP URL naming a public-inbox inbox reads each of its slices in turn
 * over the one connection, each with its own cursor.  A group or mailbox
 * read for the first time starts at --since, else at the day the oldest
 * open report was made (cmd_ingest_since()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "date.h"
#include "ingest.h"
#include "secret.h"
#include "source-nntp.h"
#include "source.h"
#include "state.h"
#include "store.h"
#include "xalloc.h"
#include "banned.h"

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

/* Acks held back until the batch they belong to is archived. */
struct pending {
	struct source_msg *v;
	size_t nr, alloc;
};

static int flush(struct ingest *in, struct source *src, struct pending *p, struct state *st,
		 const char *cursor_key, struct buf *err)
{
	size_t i;
	int ret = 0;

	if (ingest_flush(in, err) < 0)
		return -1;
	for (i = 0; i < p->nr; i++) {
		if (ret == 0 && source_ack(src, &p->v[i], err) < 0)
			ret = -1;
		source_msg_release(&p->v[i]);
	}
	p->nr = 0;
	if (ret == 0 && cursor_key) {
		struct source_cursor c;
		struct state_cursor sc;

		source_cursor_get(src, &c);
		sc.uidvalidity = c.uidvalidity;
		sc.last_uid = c.last_uid;
		sc.offset = c.offset;
		sc.fingerprint = c.fingerprint;
		ret = state_cursor_set(st, cursor_key, &sc, err);
	}
	return ret;
}

/* What one run shares over its sources. */
struct run {
	const struct cmd_options *opts;
	struct config *cfg;
	struct state *st;
	struct store *store;
	struct ingest in;
	const char *since;		/* --since, or NULL */
	struct buf since_why;		/* what run_since() chose, and why */
	int stdin_mode;
	int lazy;			/* state_set_durable(0) in force */
	/* news servers connected to, by nntp_url.server */
	struct nntp_conn {
		char *server;
		struct nntp *conn;
	} *conns;
	size_t nr_conns, alloc_conns;
};

/* 0 < 75 (try again) < the others: a run's exit code is its worst. */
static int worse(int a, int b)
{
	if (!a || (a == EX_TEMPFAIL && b))
		return b ? b : a;
	return a;
}

/* The day a first read starts (cmd_ingest_since(): if_none when no
 * report is open), its reason in r->since_why. */
static int run_since(struct run *r, int64_t if_none, int64_t *day, struct buf *err)
{
	buf_reset(&r->since_why);
	return cmd_ingest_since(r->st, r->since, if_none, day, &r->since_why, err);
}

/* Reads src to its end (or its first error), archiving and acking in
 * batches; key: where the cursor is stored, NULL for none.  0, or an exit
 * code: EX_TEMPFAIL or EX_IOERR for a source that failed (what was taken
 * is filed and its cursor stored), with the message printed; -1 for a
 * failure of the archive or the state, with the message in err. */
static int read_source(struct run *r, struct source *src, struct pending *pend,
		       const char *key, struct buf *err)
{
	int rc = 0, e;

	for (;;) {
		struct source_msg msg;

		memset(&msg, 0, sizeof(msg));
		e = source_next(src, &msg, err);
		if (e == 0)
			break;
		if (e < 0) {
			/* what was taken so far is still filed below */
			rc = e == SOURCE_TEMPORARY || r->stdin_mode ? EX_TEMPFAIL : EX_IOERR;
			fprintf(stderr, "perfbot ingest: %s\n", err->data);
			buf_reset(err);
			break;
		}
		if (msg.oversized) {
			r->in.ignored++;
			fprintf(stderr, "%s: %zu bytes, more than %u: skipped\n", msg.key, msg.size,
				SOURCE_MAX_MESSAGE);
		} else if (ingest_message(&r->in, msg.raw, msg.len, msg.key, err) < 0) {
			source_msg_release(&msg);
			return -1;
		}
		/* the ack needs only the key: memory stays flat over a batch */
		free(msg.raw);
		msg.raw = NULL;
		msg.len = 0;
		ALLOC_GROW(pend->v, pend->nr + 1, pend->alloc);
		pend->v[pend->nr++] = msg;
		if (pend->nr >= INGEST_BATCH && flush(&r->in, src, pend, r->st, key, err) < 0)
			return -1;
	}
	if (flush(&r->in, src, pend, r->st, key, err) < 0)
		return -1;
	return rc;
}

/* The stored cursor of key into *from: 1, 0 when there is none, -1. */
static int cursor_load(struct state *st, const char *key, struct source_cursor *from,
		       struct buf *err)
{
	struct state_cursor sc;
	int e;

	memset(from, 0, sizeof(*from));
	e = state_cursor_get(st, key, &sc, err);
	if (e <= 0)
		return e;
	from->uidvalidity = sc.uidvalidity;
	from->last_uid = sc.last_uid;
	from->offset = sc.offset;
	snprintf(from->fingerprint, sizeof(from->fingerprint), "%s", sc.fingerprint ? sc.fingerprint : "");
	state_cursor_release(&sc);
	return 1;
}

/* "imap:URL" naming slice i: the URL's mailbox with ".i" after it. */
static void slice_key(struct buf *key, const char *url, size_t i)
{
	const char *host = strstr(url, "://");
	const char *path = strchr(host ? host + 3 : url, '/');
	const char *query = strchr(url, '?');
	size_t end = query ? (size_t)(query - url) : strlen(url);

	buf_reset(key);
	buf_adds(key, "imap:");
	buf_add(key, url, end);
	if (!path || (size_t)(path - url) >= end)
		buf_adds(key, "/INBOX");
	else if ((size_t)(path - url) + 1 == end)
		buf_adds(key, "INBOX");
	buf_addf(key, ".%zu", i);
	if (query)
		buf_adds(key, query);
}

/* Reads the IMAP mailbox, or each slice of the inbox, src connected to.
 * As read_source(). */
static int read_imap(struct run *r, struct source *src, struct pending *pend, const char *url,
		     struct buf *err)
{
	struct buf key = BUF_INIT;
	size_t i, n = source_imap_slices(src);
	int64_t day = 0;
	int rc = 0, e, have_day = 0;

	for (i = 0; rc == 0 && i < (n ? n : 1); i++) {
		struct source_cursor from;

		if (n)
			slice_key(&key, url, i);
		else {
			buf_reset(&key);
			buf_addf(&key, "imap:%s", url);
		}
		e = cursor_load(r->st, key.data, &from, err);
		if (e < 0) {
			rc = -1;
			break;
		}
		if (!e && !have_day) {
			if (run_since(r, 0, &day, err) < 0) {
				rc = -1;
				break;
			}
			have_day = 1;
		}
		/* Every slice without a cursor, also one that is new: its mail
		 * came after what was read, so the day takes it whole, and a
		 * first read cut between slices goes on from the same day. */
		e = source_imap_begin(src, i, e ? &from : NULL, e ? 0 : day, err);
		if (e < 0) {
			fprintf(stderr, "perfbot ingest: %s\n", err->data);
			buf_reset(err);
			rc = e == SOURCE_TEMPORARY ? EX_TEMPFAIL : EX_NOINPUT;
			break;
		}
		if (source_restart_reason(src))
			fprintf(stderr, "perfbot ingest: reading %s from the start: %s\n", key.data,
				source_restart_reason(src));
		rc = read_source(r, src, pend, key.data, err);
		if (rc < 0)
			break;
		/* the last slice read: a newer one may have come meanwhile */
		if (rc == 0 && n && i + 1 == n) {
			e = source_imap_relist(src, err);
			if (e < 0) {
				fprintf(stderr, "perfbot ingest: %s\n", err->data);
				buf_reset(err);
				rc = e == SOURCE_TEMPORARY ? EX_TEMPFAIL : EX_IOERR;
				break;
			}
			n = source_imap_slices(src);
		}
	}
	buf_release(&key);
	return rc;
}

/* The connection to u's server, made on first use.  0, -1 or
 * NNTP_TEMPORARY. */
static int run_nntp(struct run *r, const struct nntp_url *u, struct nntp **out, struct buf *err)
{
	size_t i;
	int e;

	for (i = 0; i < r->nr_conns; i++)
		if (!strcmp(r->conns[i].server, u->server)) {
			*out = r->conns[i].conn;
			return 0;
		}
	e = nntp_open(u, r->cfg->ingest_ca_file, r->cfg->ingest_timeout, out, err);
	if (e < 0)
		return e;
	ALLOC_GROW(r->conns, r->nr_conns + 1, r->alloc_conns);
	r->conns[r->nr_conns].server = xstrdup(u->server);
	r->conns[r->nr_conns].conn = *out;
	r->nr_conns++;
	return 0;
}

enum kind { KIND_MAILDIR, KIND_MBOX, KIND_IMAP, KIND_NNTP, KIND_FD };

/* Reads one source into the run; its exit code (0 when all went well). */
static int ingest_one(struct run *r, enum kind kind, const char *where)
{
	struct buf err = BUF_INIT, key = BUF_INIT;
	struct source *src = NULL;
	struct source_cursor from;
	struct pending pend = { 0 };
	struct nntp_url nu = { 0 };
	char *password = NULL;
	int rc = 0, e, have_cursor = 0;

	memset(&from, 0, sizeof(from));
	if (kind == KIND_NNTP) {
		if (nntp_url_parse(where, &nu, &err) < 0) {
			rc = EX_USAGE;
			goto fail;
		}
		buf_adds(&key, nu.key);
	} else if (kind == KIND_MBOX || kind == KIND_IMAP) {
		buf_addf(&key, "%s:%s", kind == KIND_MBOX ? "mbox" : "imap", where);
	}
	if (key.len && kind != KIND_IMAP) {
		have_cursor = cursor_load(r->st, key.data, &from, &err);
		if (have_cursor < 0) {
			rc = EX_SOFTWARE;
			goto fail;
		}
	}
	if (kind == KIND_IMAP) {
		if (!r->cfg->ingest_password_file) {
			err_set(&err, "ingest.passwordFile: needed for IMAP (a file of mode 0600 with the password)");
			rc = EX_CONFIG;
			goto fail;
		}
		if (secret_read_file(r->cfg->ingest_password_file, &password, &err) < 0) {
			err_prefix(&err, "ingest.passwordFile: ");
			rc = EX_CONFIG;
			goto fail;
		}
	}
	switch (kind) {
	case KIND_MAILDIR:
		e = source_open_maildir(where, &src, &err);
		break;
	case KIND_MBOX:
		e = source_open_mbox(where, have_cursor ? &from : NULL, &src, &err);
		break;
	case KIND_IMAP:
		e = source_connect_imap(where, password, r->cfg->ingest_ca_file, r->cfg->ingest_timeout,
					&src, &err);
		break;
	case KIND_NNTP: {
		struct nntp *conn;
		int64_t day;

		if (run_since(r, r->opts->now, &day, &err) < 0) {
			rc = r->since ? EX_USAGE : EX_SOFTWARE;
			goto fail;
		}
		e = run_nntp(r, &nu, &conn, &err);
		if (e == 0)
			e = source_open_nntp(conn, nu.group, have_cursor ? &from : NULL, day,
					     &src, &err);
		else if (e == NNTP_TEMPORARY)
			e = SOURCE_TEMPORARY;
		if (e == 0 && (!have_cursor || source_restart_reason(src)))
			fprintf(stderr, "perfbot ingest: first read of %s from %s\n", key.data,
				r->since_why.data);
		break;
	}
	default:
		e = source_open_fd(0, &src, &err);
		break;
	}
	if (e != 0) {
		rc = e == SOURCE_TEMPORARY || r->stdin_mode ? EX_TEMPFAIL : EX_NOINPUT;
		goto fail;
	}
	if (source_restart_reason(src))
		fprintf(stderr, "perfbot ingest: reading %s %s: %s\n", key.data,
			kind == KIND_NNTP ? "again" : "from the start", source_restart_reason(src));
	if (kind == KIND_IMAP)
		rc = read_imap(r, src, &pend, where, &err);
	else
		rc = read_source(r, src, &pend, key.len ? key.data : NULL, &err);
	if (rc < 0) {
		rc = EX_TEMPFAIL;
		goto fail;
	}
	goto done;
fail:
	fprintf(stderr, "perfbot ingest: %s\n", err.data);
done:
	for (size_t k = 0; k < pend.nr; k++)
		source_msg_release(&pend.v[k]);
	free(pend.v);
	source_close(src);
	secret_free(password);
	nntp_url_release(&nu);
	buf_release(&err);
	buf_release(&key);
	return rc;
}

int cmd_ingest(int argc, char **argv, const struct cmd_options *opts)
{
	const char *maildir = NULL, *mbox = NULL, *imap = NULL, *nntp = NULL, *since = NULL;
	struct buf err = BUF_INIT;
	struct run r;
	int all = 0, rc = 0, e, verbose = opts->verbose;
	size_t i;
	struct opt_args args = { 0 };
	const struct opt options[] = {
		{ OPT_STRING, 0, "maildir", &maildir, "DIR", "the Maildir's new/ (taken mail moves to cur/)", 1, 0, 0 },
		{ OPT_STRING, 0, "mbox", &mbox, "FILE", "an mbox, read-only; later runs go on where this one stopped", 1, 0, 0 },
		{ OPT_STRING, 0, "imap", &imap, "URL", "imaps://USER@HOST/MAILBOX or imap://USER@HOST/MAILBOX?starttls", 1, 0, 0 },
		{ OPT_STRING, 0, "nntp", &nntp, "URL", "nntps://HOST/GROUP or nntp://HOST/GROUP?starttls", 1, 0, 0 },
		{ OPT_STRING, 0, "since", &since, "DATE", "first read of a new group or mailbox: from this day (YYYY-MM-DD)", 0, 0, 0 },
		OPT_BOOL_E(0, "all", &all, "keep every mail, not only replies to reports"),
		OPT_COUNT_E('v', "verbose", &verbose, "say what became of every mail, not only of those acted on"),
		OPT_END_E,
	};
	const struct opt_spec spec = {
		.name = "perfbot ingest",
		.args = "[-]",
		.max_args = 1,
		.about = "Reads new mail and keeps the replies to perfbot's reports in the archive.\n"
			 "The source is --maildir, --mbox, --imap, --nntp, or '-': one mail on stdin\n"
			 "(for an MTA; exit 75 asks it to retry).\n",
		.notes = "Without a source: every configured one (ingest.maildir, ingest.imap, each\n"
			 "ingest.nntp), in that order; the exit code is the worst of theirs.\n",
		.opts = options,
	};

	memset(&r, 0, sizeof(r));
	buf_init(&r.since_why);
	r.opts = opts;
	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	r.since = since;
	if (args.nr && strcmp(args.v[0], "-")) {
		rc = cmd_usage_error(&spec, "unexpected argument '%s' (the only argument is '-', a mail on stdin)",
				     args.v[0]);
		goto done;
	}
	r.stdin_mode = args.nr == 1;
	if (!!maildir + !!mbox + !!imap + !!nntp + r.stdin_mode > 1) {
		rc = cmd_usage_error(&spec, "name one source: --maildir, --mbox, --imap, --nntp or -");
		goto done;
	}
	if (since) {
		int64_t t;

		if (date_parse_iso8601(since, &t, &err) < 0) {
			rc = cmd_usage_error(&spec, "--since: %s", err.data);
			goto done;
		}
		if (maildir || mbox || r.stdin_mode) {
			rc = cmd_usage_error(&spec, "--since is for a first read over IMAP or NNTP, not --%s",
					     maildir ? "maildir" : mbox ? "mbox" : "- (stdin)");
			goto done;
		}
	}
	if (config_load(opts->config_path, &r.cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (!maildir && !mbox && !imap && !nntp && !r.stdin_mode && !r.cfg->ingest_maildir &&
	    !r.cfg->ingest_imap && !r.cfg->ingest_nntp.nr) {
		rc = cmd_usage_error(&spec, "no source given and none of ingest.maildir, ingest.imap, "
				     "ingest.nntp configured");
		goto done;
	}
	if (state_open(r.cfg->state, &r.st, &err) < 0) {
		rc = r.stdin_mode ? EX_TEMPFAIL : EX_CANTCREAT;
		goto fail;
	}
	e = store_open(r.cfg, r.st, opts->now, &r.store, &err);
	if (e != 0) {
		rc = EX_TEMPFAIL;
		goto fail;
	}
	/* Not a sync at each mail's commit (a third of a run's time), but
	 * one at each batch, before the archive records it (store_commit()),
	 * and one at the end: a kill loses nothing (SQLite has written each
	 * commit to the operating system), and after an operating-system
	 * crash the state holds every mail up to some point, at least those
	 * in the archive, and its cursor no further: the mail after it is
	 * read again, known mail dropped by Message-ID.  One mail from an
	 * MTA stays full: it is one commit, and its exit code promises it. */
	if (!r.stdin_mode && state_set_durable(r.st, 0, &err) < 0) {
		rc = EX_TEMPFAIL;
		goto fail;
	}
	r.lazy = !r.stdin_mode;
	r.in.cfg = r.cfg;
	r.in.st = r.st;
	r.in.store = r.store;
	r.in.all = all;
	r.in.now = opts->now;
	r.in.log.line = log_line;
	r.in.verbose = verbose;
	if (r.stdin_mode)
		rc = ingest_one(&r, KIND_FD, "-");
	else if (maildir)
		rc = ingest_one(&r, KIND_MAILDIR, maildir);
	else if (mbox)
		rc = ingest_one(&r, KIND_MBOX, mbox);
	else if (imap)
		rc = ingest_one(&r, KIND_IMAP, imap);
	else if (nntp)
		rc = ingest_one(&r, KIND_NNTP, nntp);
	else {
		if (r.cfg->ingest_maildir)
			rc = worse(rc, ingest_one(&r, KIND_MAILDIR, r.cfg->ingest_maildir));
		if (r.cfg->ingest_imap)
			rc = worse(rc, ingest_one(&r, KIND_IMAP, r.cfg->ingest_imap));
		for (i = 0; i < r.cfg->ingest_nntp.nr; i++)
			rc = worse(rc, ingest_one(&r, KIND_NNTP, r.cfg->ingest_nntp.v[i]));
	}
	if (verbose || r.in.kept || r.in.commands || r.in.posted || r.in.quarantined ||
	    r.in.not_applied || r.in.not_understood)
		fprintf(stderr, "ingest: %zu kept, %zu known already, %zu answer no report, %zu not acted on, %zu quarantined, "
			"%zu commands, %zu not applied, %zu not understood, %zu posted fixes\n",
			r.in.kept, r.in.duplicates, r.in.unrelated, r.in.ignored, r.in.quarantined, r.in.commands,
			r.in.not_applied, r.in.not_understood, r.in.posted);
	goto done;
fail:
	fprintf(stderr, "perfbot ingest: %s\n", err.data);
done:
	for (i = 0; i < r.nr_conns; i++) {
		nntp_close(r.conns[i].conn);
		free(r.conns[i].server);
	}
	free(r.conns);
	ingest_release(&r.in);
	store_close(r.store);
	/* what the run recorded is on disk before it ends */
	if (r.lazy && state_set_durable(r.st, 1, &err) < 0) {
		fprintf(stderr, "perfbot ingest: %s\n", err.data);
		rc = worse(rc, EX_TEMPFAIL);
	}
	state_close(r.st);
	config_free(r.cfg);
	opt_args_release(&args);
	buf_release(&r.since_why);
	buf_release(&err);
	return rc;
}
