#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "address.h"
#include "archive.h"
#include "repo.h"
#include "store.h"
#include "xalloc.h"
#include "banned.h"

struct filed {
	char *message_id;
	char blob[41];
	char commit[41];
};

struct store {
	struct archive *archive;
	struct state *st;
	int64_t now;
	struct filed *pending;
	size_t nr, alloc;
};

char *store_message_id(const char *raw, size_t len)
{
	const char *p = raw, *end = raw + (len > (1u << 20) ? (1u << 20) : len);
	struct buf field = BUF_INIT;
	char *id = NULL;
	int in_field = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);

		if (n && stop[-1] == '\r')
			n--;
		if (n == 0)
			break;	/* end of the header block */
		if (*p == ' ' || *p == '\t') {
			if (in_field)
				buf_add(&field, p, n);
		} else if (in_field) {
			break;
		} else if (n > 11 && !strncasecmp(p, "Message-ID:", 11)) {
			in_field = 1;
			buf_add(&field, p + 11, n - 11);
		}
		p = nl ? nl + 1 : end;
	}
	if (in_field) {
		const char *lt = strchr(field.data, '<'), *gt = lt ? strchr(lt, '>') : NULL;

		if (lt && gt && gt > lt + 1)
			id = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	}
	buf_release(&field);
	return id;
}

/* archive_walk() callback: a commit the database missed. */
static int catch_up(void *ctx, const char *commit_hex, const char *raw, size_t len)
{
	struct store *s = ctx;
	struct buf blob = BUF_INIT, err = BUF_INIT;
	char *id = store_message_id(raw, len);
	int r = 0;

	if (id) {
		repo_hash_hex(&blob, raw, len);
		/* unknown ids (filed by hand?) are left alone */
		if (state_message_set_archived(s->st, id, blob.data, commit_hex, &err) < 0)
			r = 0;
	}
	free(id);
	buf_release(&blob);
	buf_release(&err);
	return r;
}

int store_open(const struct config *cfg, struct state *st, int64_t now,
	       struct store **out, struct buf *err)
{
	struct store *s;
	struct buf dir = BUF_INIT;
	struct address from;
	char tip[41];
	char *known = NULL;
	int r;

	*out = NULL;
	if (address_parse(cfg->from, &from, err) < 0)
		return err_prefix(err, "perfbot.from: ");
	s = xcalloc(1, sizeof(*s));
	s->st = st;
	s->now = now;
	buf_addf(&dir, "%s/archive", cfg->state);
	r = archive_open(dir.data, *from.name ? from.name : "perfbot", from.email, &s->archive, err);
	address_release(&from);
	buf_release(&dir);
	if (r != 0) {
		free(s);
		return r;
	}
	if (archive_tip(s->archive, tip, err) < 0 ||
	    state_archive_tip_get(st, archive_epoch(s->archive), &known, err) < 0)
		goto fail;
	if (*tip && (!known || strcmp(known, tip))) {
		if (state_begin(st, err) < 0)
			goto fail;
		if (archive_walk(s->archive, known ? known : "", catch_up, s, err) < 0 ||
		    state_archive_tip_set(st, archive_epoch(s->archive), tip, err) < 0) {
			state_rollback(st);
			goto fail;
		}
		if (state_commit(st, err) < 0)
			goto fail;
	}
	free(known);
	*out = s;
	return 0;
fail:
	free(known);
	archive_close(s->archive);
	free(s);
	return -1;
}

int store_add(struct store *s, const char *message_id, const char *raw, size_t len,
	      struct buf *err)
{
	struct filed *f;

	if (s->nr >= STORE_MAX_BATCH && store_commit(s, err) < 0)
		return -1;
	ALLOC_GROW(s->pending, s->nr + 1, s->alloc);
	f = &s->pending[s->nr];
	if (archive_add(s->archive, raw, len, s->now, f->blob, f->commit, err) < 0)
		return -1;
	f->message_id = xstrdup(message_id);
	s->nr++;
	return 0;
}

int store_pending(const struct store *s, const char *message_id)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->pending[i].message_id, message_id))
			return 1;
	return 0;
}

static void pending_clear(struct store *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->pending[i].message_id);
	s->nr = 0;
}

int store_commit(struct store *s, struct buf *err)
{
	char tip[41];
	size_t i;

	if (!s->nr)
		return 0;
	if (archive_commit(s->archive, err) < 0 || archive_tip(s->archive, tip, err) < 0)
		return -1;
	if (state_begin(s->st, err) < 0)
		return -1;
	for (i = 0; i < s->nr; i++) {
		if (state_message_set_archived(s->st, s->pending[i].message_id, s->pending[i].blob,
					       s->pending[i].commit, err) < 0) {
			state_rollback(s->st);
			return -1;
		}
	}
	if (state_archive_tip_set(s->st, archive_epoch(s->archive), tip, err) < 0 ||
	    state_commit(s->st, err) < 0) {
		state_rollback(s->st);
		return -1;
	}
	pending_clear(s);
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	pending_clear(s);
	free(s->pending);
	archive_close(s->archive);
	free(s);
}
