/*
 * perfbot ingest [--all] [-v] [--maildir DIR | --mbox FILE | --imap URL | -]:
 * reads new mail, keeps the replies to perfbot's reports (or, with --all,
 * every mail), archives them and records their commands and trailers.
 * Each mail is taken exactly once: a source lets a mail go (Maildir: new/
 * to cur/; mbox and IMAP: the cursor in the state database) only after it
 * is recorded and archived, and a mail seen again is recognised by its
 * Message-ID.  `-` reads one mail on stdin for an MTA: exit 0 when it was
 * kept or deliberately ignored, 75 on a temporary failure (retry).  An
 * IMAP URL naming a public-inbox inbox reads each of its slices in turn
 * over the one connection, each with its own cursor; a mailbox read for
 * the first time starts at --since, else at the day the oldest open
 * report was made (everything when none is open).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
#include "date.h"
#include "ingest.h"
#include "secret.h"
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

/* Reads src to its end (or its first error), archiving and acking in
 * batches; cursor_key: where the cursor is stored, NULL for none.
 * 0, or an exit code: EX_TEMPFAIL or EX_IOERR for a source that failed
 * (what was taken is filed and its cursor stored), with the message
 * printed; -1 for a failure of the archive or the state, with the
 * message in err. */
static int read_source(struct ingest *in, struct source *src, struct pending *pend,
		       struct state *st, const char *cursor_key, int stdin_mode, struct buf *err)
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
			rc = e == SOURCE_TEMPORARY || stdin_mode ? EX_TEMPFAIL : EX_IOERR;
			fprintf(stderr, "perfbot ingest: %s\n", err->data);
			buf_reset(err);
			break;
		}
		if (msg.oversized) {
			in->ignored++;
			fprintf(stderr, "%s: %zu bytes, more than %u: skipped\n", msg.key, msg.size,
				SOURCE_MAX_MESSAGE);
		} else if (ingest_message(in, msg.raw, msg.len, msg.key, err) < 0) {
			source_msg_release(&msg);
			return -1;
		}
		/* the ack needs only the key: memory stays flat over a batch */
		free(msg.raw);
		msg.raw = NULL;
		msg.len = 0;
		ALLOC_GROW(pend->v, pend->nr + 1, pend->alloc);
		pend->v[pend->nr++] = msg;
		if (pend->nr >= INGEST_BATCH && flush(in, src, pend, st, cursor_key, err) < 0)
			return -1;
	}
	if (flush(in, src, pend, st, cursor_key, err) < 0)
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

/* --since: "YYYY-MM-DD", the start of that day (UTC). */
static int since_parse(const char *s, int64_t *day, struct buf *err)
{
	size_t i;

	for (i = 0; i < 10; i++)
		if (!s[i] || (i == 4 || i == 7 ? s[i] != '-' : s[i] < '0' || s[i] > '9'))
			break;
	if (i < 10 || s[10] || date_parse_iso8601(s, day, err) < 0 || *day <= 0)
		return err_set(err, "--since '%s': not a day after 1970 as YYYY-MM-DD", s);
	return 0;
}

/* Where a first read starts without --since: the day the oldest open
 * report was made, 0 (everything) when none is open. */
static int since_default(struct state *st, int64_t *day, struct buf *err)
{
	struct state_reports list = { 0 };
	int64_t oldest = 0;
	size_t i;

	if (state_report_list(st, &list, err) < 0)
		return -1;
	for (i = 0; i < list.nr; i++) {
		const struct state_report *r = list.v + i;

		if (r->kind == STATE_KIND_REPORT && r->verdict == STATE_VERDICT_OPEN && r->created > 0 &&
		    (!oldest || r->created < oldest))
			oldest = r->created;
	}
	state_reports_release(&list);
	*day = oldest - oldest % 86400;
	return 0;
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

/* Reads the IMAP mailbox, or each slice of the inbox, src connected to. */
static int read_imap(struct ingest *in, struct source *src, struct pending *pend, struct state *st,
		     const char *url, const char *since, int64_t *since_day, struct buf *err)
{
	struct buf key = BUF_INIT;
	size_t i, n = source_imap_slices(src);
	int rc = 0, e, have_since = since != NULL;

	for (i = 0; rc == 0 && i < (n ? n : 1); i++) {
		struct source_cursor from;

		if (n)
			slice_key(&key, url, i);
		else {
			buf_reset(&key);
			buf_addf(&key, "imap:%s", url);
		}
		e = cursor_load(st, key.data, &from, err);
		if (e < 0) {
			fprintf(stderr, "perfbot ingest: %s\n", err->data);
			rc = EX_SOFTWARE;
			break;
		}
		if (!e && !have_since) {
			if (since_default(st, since_day, err) < 0) {
				fprintf(stderr, "perfbot ingest: %s\n", err->data);
				rc = EX_SOFTWARE;
				break;
			}
			have_since = 1;
		}
		/* Every slice without a cursor, also one that is new: its mail
		 * came after what was read, so the day takes it whole, and a
		 * first read cut between slices goes on from the same day. */
		e = source_imap_begin(src, i, e ? &from : NULL, e ? 0 : *since_day, err);
		if (e < 0) {
			fprintf(stderr, "perfbot ingest: %s\n", err->data);
			buf_reset(err);
			rc = e == SOURCE_TEMPORARY ? EX_TEMPFAIL : EX_NOINPUT;
			break;
		}
		if (source_restart_reason(src))
			fprintf(stderr, "perfbot ingest: reading %s from the start: %s\n", key.data,
				source_restart_reason(src));
		rc = read_source(in, src, pend, st, key.data, 0, err);
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

int cmd_ingest(int argc, char **argv, const struct cmd_options *opts)
{
	const char *maildir = NULL, *mbox = NULL, *imap = NULL, *since = NULL;
	struct buf err = BUF_INIT, key = BUF_INIT;
	struct config *cfg = NULL;
	struct state *st = NULL;
	struct store *store = NULL;
	struct source *src = NULL;
	struct source_cursor from;
	struct pending pend = { 0 };
	struct ingest in;
	char *password = NULL;
	int all = 0, stdin_mode = 0, rc = 0, e, have_cursor = 0, verbose = opts->verbose;
	int64_t since_day = 0;
	struct opt_args args = { 0 };
	const struct opt options[] = {
		{ OPT_STRING, 0, "maildir", &maildir, "DIR", "the Maildir's new/ (taken mail moves to cur/)", 1, 0, 0 },
		{ OPT_STRING, 0, "mbox", &mbox, "FILE", "an mbox, read-only; later runs go on where this one stopped", 1, 0, 0 },
		{ OPT_STRING, 0, "imap", &imap, "URL", "imaps://USER@HOST/MAILBOX or imap://USER@HOST/MAILBOX?starttls", 1, 0, 0 },
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
			 "The source is --maildir, --mbox, --imap, or '-': one mail on stdin (for an\n"
			 "MTA; exit 75 asks it to retry).\n",
		.notes = "Without a source: ingest.maildir, else ingest.imap.\n",
		.opts = options,
	};

	memset(&from, 0, sizeof(from));
	memset(&in, 0, sizeof(in));
	if (cmd_parse_options(&spec, argc, argv, &args, &rc))
		return rc;
	if (args.nr && strcmp(args.v[0], "-")) {
		rc = cmd_usage_error(&spec, "unexpected argument '%s' (the only argument is '-', a mail on stdin)",
				     args.v[0]);
		goto done;
	}
	stdin_mode = args.nr == 1;
	if (stdin_mode && (maildir || mbox || imap)) {
		rc = cmd_usage_error(&spec, "- cannot be used with --%s",
				     maildir ? "maildir" : mbox ? "mbox" : "imap");
		goto done;
	}
	if (since && since_parse(since, &since_day, &err) < 0) {
		rc = cmd_usage_error(&spec, "%s", err.data);
		goto done;
	}
	if (config_load(opts->config_path, &cfg, &err) < 0) {
		rc = EX_CONFIG;
		goto fail;
	}
	if (!maildir && !mbox && !imap && !stdin_mode) {
		maildir = cfg->ingest_maildir;
		if (!maildir)
			imap = cfg->ingest_imap;
		if (!maildir && !imap) {
			rc = cmd_usage_error(&spec, "no source given and neither ingest.maildir nor ingest.imap configured");
			goto done;
		}
	}
	if (since && !imap) {
		rc = cmd_usage_error(&spec, "--since is for a first read over IMAP (--imap or ingest.imap)");
		goto done;
	}
	if (state_open(cfg->state, &st, &err) < 0) {
		rc = stdin_mode ? EX_TEMPFAIL : EX_CANTCREAT;
		goto fail;
	}
	if (mbox) {
		buf_addf(&key, "mbox:%s", mbox);
		have_cursor = cursor_load(st, key.data, &from, &err);
		if (have_cursor < 0) {
			rc = EX_SOFTWARE;
			goto fail;
		}
	}
	if (imap) {
		if (!cfg->ingest_password_file) {
			err_set(&err, "ingest.passwordFile: needed for IMAP (a file of mode 0600 with the password)");
			rc = EX_CONFIG;
			goto fail;
		}
		if (secret_read_file(cfg->ingest_password_file, &password, &err) < 0) {
			err_prefix(&err, "ingest.passwordFile: ");
			rc = EX_CONFIG;
			goto fail;
		}
	}
	if (maildir)
		e = source_open_maildir(maildir, &src, &err);
	else if (mbox)
		e = source_open_mbox(mbox, have_cursor ? &from : NULL, &src, &err);
	else if (imap)
		e = source_connect_imap(imap, password, cfg->ingest_ca_file, cfg->ingest_timeout,
					&src, &err);
	else
		e = source_open_fd(0, &src, &err);
	if (e != 0) {
		rc = e == SOURCE_TEMPORARY || stdin_mode ? EX_TEMPFAIL : EX_NOINPUT;
		goto fail;
	}
	if (source_restart_reason(src))
		fprintf(stderr, "perfbot ingest: reading %s from the start: %s\n", key.data,
			source_restart_reason(src));
	e = store_open(cfg, st, opts->now, &store, &err);
	if (e != 0) {
		rc = EX_TEMPFAIL;
		goto fail;
	}

	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.st = st;
	in.store = store;
	in.all = all;
	in.now = opts->now;
	in.log.line = log_line;
	in.verbose = verbose;
	if (imap)
		rc = read_imap(&in, src, &pend, st, imap, since, &since_day, &err);
	else
		rc = read_source(&in, src, &pend, st, key.len ? key.data : NULL, stdin_mode, &err);
	if (rc < 0) {
		rc = EX_TEMPFAIL;
		goto fail;
	}
	if (verbose || in.kept || in.commands || in.posted || in.quarantined || in.not_applied || in.not_understood)
		fprintf(stderr, "ingest: %zu kept, %zu known already, %zu answer no report, %zu not acted on, %zu quarantined, "
			"%zu commands, %zu not applied, %zu not understood, %zu posted fixes\n",
			in.kept, in.duplicates, in.unrelated, in.ignored, in.quarantined, in.commands,
			in.not_applied, in.not_understood, in.posted);
	goto done;
fail:
	fprintf(stderr, "perfbot ingest: %s\n", err.data);
done:
	for (size_t k = 0; k < pend.nr; k++)
		source_msg_release(&pend.v[k]);
	free(pend.v);
	ingest_release(&in);
	store_close(store);
	source_close(src);
	state_close(st);
	secret_free(password);
	config_free(cfg);
	opt_args_release(&args);
	buf_release(&err);
	buf_release(&key);
	return rc;
}
