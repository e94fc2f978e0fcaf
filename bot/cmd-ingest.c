/*
 * perfbot ingest [--all] [-v] [--maildir DIR | --mbox FILE | --imap URL | -]:
 * reads new mail, keeps the replies to perfbot's reports (or, with --all,
 * every mail), archives them and records their commands and trailers.
 * Each mail is taken exactly once: a source lets a mail go (Maildir: new/
 * to cur/; mbox and IMAP: the cursor in the state database) only after it
 * is recorded and archived, and a mail seen again is recognised by its
 * Message-ID.  `-` reads one mail on stdin for an MTA: exit 0 when it was
 * kept or deliberately ignored, 75 on a temporary failure (retry).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cmd.h"
#include "config.h"
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

int cmd_ingest(int argc, char **argv, const struct cmd_options *opts)
{
	const char *maildir = NULL, *mbox = NULL, *imap = NULL;
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
	struct opt_args args = { 0 };
	const struct opt options[] = {
		{ OPT_STRING, 0, "maildir", &maildir, "DIR", "the Maildir's new/ (taken mail moves to cur/)", 1, 0, 0 },
		{ OPT_STRING, 0, "mbox", &mbox, "FILE", "an mbox, read-only; later runs go on where this one stopped", 1, 0, 0 },
		{ OPT_STRING, 0, "imap", &imap, "URL", "imaps://USER@HOST/MAILBOX or imap://USER@HOST/MAILBOX?starttls", 1, 0, 0 },
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
	if (state_open(cfg->state, &st, &err) < 0) {
		rc = stdin_mode ? EX_TEMPFAIL : EX_CANTCREAT;
		goto fail;
	}
	if (mbox || imap) {
		struct state_cursor sc;

		buf_addf(&key, "%s:%s", mbox ? "mbox" : "imap", mbox ? mbox : imap);
		e = state_cursor_get(st, key.data, &sc, &err);
		if (e < 0) {
			rc = EX_SOFTWARE;
			goto fail;
		}
		if (e > 0) {
			from.uidvalidity = sc.uidvalidity;
			from.last_uid = sc.last_uid;
			from.offset = sc.offset;
			snprintf(from.fingerprint, sizeof(from.fingerprint), "%s", sc.fingerprint ? sc.fingerprint : "");
			state_cursor_release(&sc);
			have_cursor = 1;
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
		e = source_open_imap(imap, password, cfg->ingest_ca_file, cfg->ingest_timeout,
				     have_cursor ? &from : NULL, &src, &err);
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
	for (;;) {
		struct source_msg msg;

		memset(&msg, 0, sizeof(msg));
		e = source_next(src, &msg, &err);
		if (e == 0)
			break;
		if (e < 0) {
			/* what was taken so far is still filed below */
			rc = e == SOURCE_TEMPORARY || stdin_mode ? EX_TEMPFAIL : EX_IOERR;
			fprintf(stderr, "perfbot ingest: %s\n", err.data);
			buf_reset(&err);
			break;
		}
		if (msg.oversized) {
			in.ignored++;
			fprintf(stderr, "%s: %zu bytes, more than %u: skipped\n", msg.key, msg.size,
				SOURCE_MAX_MESSAGE);
		} else if (ingest_message(&in, msg.raw, msg.len, msg.key, &err) < 0) {
			source_msg_release(&msg);
			rc = EX_TEMPFAIL;
			goto fail;
		}
		/* the ack needs only the key: memory stays flat over a batch */
		free(msg.raw);
		msg.raw = NULL;
		msg.len = 0;
		ALLOC_GROW(pend.v, pend.nr + 1, pend.alloc);
		pend.v[pend.nr++] = msg;
		if (pend.nr >= INGEST_BATCH && flush(&in, src, &pend, st, key.len ? key.data : NULL, &err) < 0) {
			rc = EX_TEMPFAIL;
			goto fail;
		}
	}
	if (flush(&in, src, &pend, st, key.len ? key.data : NULL, &err) < 0) {
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
