#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gitlib.h"
#include "repo.h"
#include "trailer.h"
#include "xalloc.h"
#include "banned.h"

/* A tag and the commit it leads to. */
struct tag_entry {
	git_oid commit;
	char *name;
};

/* An id prefix or tag resolved earlier in this run: resolving a prefix
 * reads the loose object or pack index each time, while a full id is
 * served from libgit2's object cache. */
struct resolved {
	char *spec;
	git_oid oid;
};

#define REPO_RESOLVED_MAX 256

struct repo {
	git_repository *git;
	struct resolved resolved[REPO_RESOLVED_MAX];
	size_t nr_resolved;
	git_mailmap *mailmap;		/* may be NULL: no .mailmap */
	struct tag_entry *tags;		/* loaded on first use */
	size_t nr_tags;
	int tags_loaded;
	char *path;
};

int gitlib_fail(struct buf *err, const char *what)
{
	const git_error *e = git_error_last();

	return err_set(err, "%s: %s", what, e && e->message ? e->message : "unknown libgit2 error");
}

git_repository *repo_git(const struct repo *r)
{
	return r->git;
}

static pthread_t warm_thread;
static int warming;

static void *warm_up(void *arg)
{
	(void)arg;
	git_libgit2_init();	/* never shut down: see repo_warm_up() */
	return NULL;
}

void repo_warm_up(void)
{
	if (!warming)
		warming = pthread_create(&warm_thread, NULL, warm_up, NULL) == 0;
}

void repo_warm_up_end(void)
{
	if (warming)
		pthread_join(warm_thread, NULL);
	warming = 0;
}

int repo_open(const char *path, struct repo **out, struct buf *err)
{
	struct repo *r;
	git_repository *git = NULL;

	*out = NULL;
	git_libgit2_init();
	if (git_repository_open_ext(&git, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		const git_error *e = git_error_last();

		if (e && e->message && strstr(e->message, "safe.directory"))
			err_set(err, "%s: the repository is owned by another user, so libgit2 will not open it; "
				"run perfbot as its owner or add it to safe.directory", path);
		else
			gitlib_fail(err, path);
		err_prefix(err, "perfbot.repo: ");
		git_libgit2_shutdown();
		return -1;
	}
	r = xcalloc(1, sizeof(*r));
	r->git = git;
	r->path = xstrdup(path);
	if (git_mailmap_from_repository(&r->mailmap, git) < 0)
		r->mailmap = NULL;
	*out = r;
	return 0;
}

void repo_free(struct repo *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_tags; i++)
		free(r->tags[i].name);
	free(r->tags);
	for (i = 0; i < r->nr_resolved; i++)
		free(r->resolved[i].spec);
	git_mailmap_free(r->mailmap);
	git_repository_free(r->git);
	free(r->path);
	free(r);
	git_libgit2_shutdown();
}

static int tag_cmp(const void *a, const void *b)
{
	const struct tag_entry *x = a, *y = b;
	int c = git_oid_cmp(&x->commit, &y->commit);

	return c ? c : strcmp(x->name, y->name);
}

static int collect_tag(const char *name, git_oid *oid, void *data)
{
	struct repo *r = data;
	git_reference *ref = NULL;
	git_object *peeled = NULL;

	(void)oid;
	if (strncmp(name, "refs/tags/", 10))
		return 0;
	if (git_reference_lookup(&ref, r->git, name) == 0 &&
	    git_reference_peel(&peeled, ref, GIT_OBJECT_COMMIT) == 0) {
		r->tags = xrealloc(r->tags, (r->nr_tags + 1) * sizeof(*r->tags));
		git_oid_cpy(&r->tags[r->nr_tags].commit, git_object_id(peeled));
		r->tags[r->nr_tags].name = xstrdup(name + 10);
		r->nr_tags++;
	}
	git_object_free(peeled);
	git_reference_free(ref);
	return 0;
}

/* The tag shown for a commit: when several point at it, the first by
 * name, so the choice is stable. */
static const char *tag_for(struct repo *r, const git_oid *commit)
{
	size_t lo = 0, hi;

	if (!r->tags_loaded) {
		git_tag_foreach(r->git, collect_tag, r);
		xqsort(r->tags, r->nr_tags, sizeof(*r->tags), tag_cmp);
		r->tags_loaded = 1;
	}
	hi = r->nr_tags;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (git_oid_cmp(&r->tags[mid].commit, commit) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nr_tags && !git_oid_cmp(&r->tags[lo].commit, commit))
		return r->tags[lo].name;
	return NULL;
}

static int is_hex_id(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 4 || n > 40)
		return 0;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int lookup_hex(struct repo *r, const char *spec, git_commit **out, struct buf *err)
{
	git_oid oid;
	char lower[41];
	size_t n = strlen(spec), i;
	int e;

	for (i = 0; i < n; i++)
		lower[i] = (char)tolower((unsigned char)spec[i]);
	lower[n] = '\0';
	if (git_oid_fromstrn(&oid, lower, n) < 0)
		return gitlib_fail(err, spec);
	/* a full id goes through libgit2's object cache; a prefix cannot */
	e = n == GIT_OID_HEXSZ ? git_commit_lookup(out, r->git, &oid) :
				 git_commit_lookup_prefix(out, r->git, &oid, n);
	if (e == GIT_EAMBIGUOUS)
		return err_set(err, "commit '%s' is ambiguous in %s: give more hex digits", spec, r->path);
	if (e == GIT_ENOTFOUND)
		return 1;
	if (e < 0) {
		const git_error *ge = git_error_last();

		/* a prefix naming a blob or tree is "not a commit", also not found */
		if (ge && ge->message && strstr(ge->message, "type"))
			return err_set(err, "'%s' names an object in %s that is not a commit", spec, r->path);
		return gitlib_fail(err, spec);
	}
	return 0;
}

static int lookup_tag(struct repo *r, const char *spec, git_commit **out, struct buf *err)
{
	struct buf ref = BUF_INIT;
	git_reference *gr = NULL;
	git_object *peeled = NULL;
	int valid = 0, e;

	buf_addf(&ref, "refs/tags/%s", spec);
	if (git_reference_name_is_valid(&valid, ref.data) < 0 || !valid) {
		buf_release(&ref);
		return err_set(err, "'%s' is neither a hex commit id nor a valid tag name", spec);
	}
	e = git_reference_lookup(&gr, r->git, ref.data);
	buf_release(&ref);
	if (e == GIT_ENOTFOUND)
		return 1;
	if (e < 0)
		return gitlib_fail(err, spec);
	e = git_reference_peel(&peeled, gr, GIT_OBJECT_COMMIT);
	git_reference_free(gr);
	if (e < 0)
		return err_set(err, "tag '%s' in %s does not lead to a commit", spec, r->path);
	*out = (git_commit *)peeled;
	return 0;
}

/* "Name <email> rest" -> "Name' <email'>" after .mailmap, or NULL. */
static char *trailer_person(struct repo *r, const char *value)
{
	const char *lt = strchr(value, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	char *name, *email;
	const char *mname, *memail;
	struct buf out = BUF_INIT;
	size_t n;

	if (!lt || !gt || gt == lt + 1)
		return NULL;
	n = (size_t)(lt - value);
	while (n && value[n - 1] == ' ')
		n--;
	name = xstrndup(value, n);
	email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	mname = name;
	memail = email;
	if (r->mailmap && git_mailmap_resolve(&mname, &memail, r->mailmap, name, email) < 0) {
		mname = name;
		memail = email;
	}
	if (*mname) {
		buf_adds(&out, mname);
		buf_addc(&out, ' ');
	}
	buf_addc(&out, '<');
	buf_adds(&out, memail);
	buf_addc(&out, '>');
	free(name);
	free(email);
	return buf_detach(&out, NULL);
}

static void fill_trailers(struct repo *r, struct commit_info *ci, const char *message)
{
	struct trailer_list l = TRAILER_LIST_INIT;
	size_t i;

	trailer_parse(&l, message, strlen(message), TRAILER_COMMIT);
	ci->trailers = xcalloc(l.nr ? l.nr : 1, sizeof(*ci->trailers));
	for (i = 0; i < l.nr; i++) {
		ci->trailers[i].key = xstrdup(l.v[i].key);
		ci->trailers[i].value = xstrdup(l.v[i].value);
		ci->trailers[i].person = trailer_person(r, ci->trailers[i].value);
	}
	ci->nr_trailers = l.nr;
	trailer_list_release(&l);
}

int repo_lookup(struct repo *r, const char *spec, struct commit_info *out, struct buf *err)
{
	git_commit *c = NULL;
	const git_signature *a;
	const char *name, *email, *summary, *tag;
	size_t i;
	int e = 1;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < r->nr_resolved; i++) {
		if (!strcmp(r->resolved[i].spec, spec)) {
			if (git_commit_lookup(&c, r->git, &r->resolved[i].oid) < 0)
				return gitlib_fail(err, spec);
			e = 0;
			break;
		}
	}
	if (e == 1 && is_hex_id(spec)) {
		e = lookup_hex(r, spec, &c, err);
		if (e < 0)
			return -1;
	}
	if (e == 1) {
		e = lookup_tag(r, spec, &c, err);
		if (e < 0)
			return -1;
	}
	if (e == 1)
		return err_set(err, "'%s' is neither a commit nor a tag in %s (fetch it there, or fix the id)",
			       spec, r->path);
	if (i == r->nr_resolved && r->nr_resolved < REPO_RESOLVED_MAX) {
		r->resolved[r->nr_resolved].spec = xstrdup(spec);
		git_oid_cpy(&r->resolved[r->nr_resolved].oid, git_commit_id(c));
		r->nr_resolved++;
	}

	git_oid_tostr(out->id, sizeof(out->id), git_commit_id(c));
	summary = git_commit_summary(c);
	out->subject = xstrdup(summary ? summary : "");
	a = git_commit_author(c);
	name = a->name;
	email = a->email;
	if (r->mailmap && git_mailmap_resolve(&name, &email, r->mailmap, a->name, a->email) < 0) {
		name = a->name;
		email = a->email;
	}
	out->author_name = xstrdup(name);
	out->author_email = xstrdup(email);
	tag = tag_for(r, git_commit_id(c));
	out->tag = tag ? xstrdup(tag) : NULL;
	fill_trailers(r, out, git_commit_message(c));
	git_commit_free(c);
	return 0;
}

void commit_info_copy(struct commit_info *dst, const struct commit_info *src)
{
	size_t i;

	memcpy(dst->id, src->id, sizeof(dst->id));
	dst->subject = xstrdup(src->subject);
	dst->author_name = xstrdup(src->author_name);
	dst->author_email = xstrdup(src->author_email);
	dst->tag = src->tag ? xstrdup(src->tag) : NULL;
	dst->trailers = xcalloc(src->nr_trailers ? src->nr_trailers : 1, sizeof(*dst->trailers));
	for (i = 0; i < src->nr_trailers; i++) {
		dst->trailers[i].key = xstrdup(src->trailers[i].key);
		dst->trailers[i].value = xstrdup(src->trailers[i].value);
		dst->trailers[i].person = src->trailers[i].person ? xstrdup(src->trailers[i].person) : NULL;
	}
	dst->nr_trailers = src->nr_trailers;
}

void commit_info_release(struct commit_info *ci)
{
	size_t i;

	free(ci->subject);
	free(ci->author_name);
	free(ci->author_email);
	free(ci->tag);
	for (i = 0; i < ci->nr_trailers; i++) {
		free(ci->trailers[i].key);
		free(ci->trailers[i].value);
		free(ci->trailers[i].person);
	}
	free(ci->trailers);
	memset(ci, 0, sizeof(*ci));
}

void repo_hash_hex(struct buf *out, const char *text, size_t len)
{
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];

	git_libgit2_init();
	git_odb_hash(&oid, text, len, GIT_OBJECT_BLOB);
	git_libgit2_shutdown();
	git_oid_tostr(hex, sizeof(hex), &oid);
	buf_adds(out, hex);
}

void repo_hash8(struct buf *out, const char *text, size_t len)
{
	struct buf hex = BUF_INIT;

	repo_hash_hex(&hex, text, len);
	buf_add(out, hex.data, 8);
	buf_release(&hex);
}

int repo_tree_blob(struct repo *r, const char *id, const char *path, char blob_id[41],
		   struct buf *err)
{
	git_oid oid;
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	int e, ret = -1;

	if (strlen(id) != GIT_OID_HEXSZ || git_oid_fromstrn(&oid, id, GIT_OID_HEXSZ) < 0)
		return err_set(err, "'%s' is not a full commit id", id);
	if (git_commit_lookup(&c, r->git, &oid) < 0)
		return gitlib_fail(err, id);
	if (git_commit_tree(&tree, c) < 0) {
		gitlib_fail(err, id);
		goto out;
	}
	e = git_tree_entry_bypath(&entry, tree, path);
	if (e == GIT_ENOTFOUND || (e == 0 && git_tree_entry_type(entry) != GIT_OBJECT_BLOB)) {
		ret = 1;	/* no such file, or a directory or submodule */
		goto out;
	}
	if (e < 0) {
		gitlib_fail(err, path);
		goto out;
	}
	git_oid_tostr(blob_id, 41, git_tree_entry_id(entry));
	ret = 0;
out:
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(c);
	return ret;
}

/* The bytes of blob oid, appended to out; a limit passed is "N bytes,
 * more than L" for the caller to prefix. */
static int blob_read(struct repo *r, const git_oid *oid, size_t limit, struct buf *out,
		     struct buf *err)
{
	git_blob *blob = NULL;
	git_object_size_t size;
	char hex[GIT_OID_HEXSZ + 1];
	int ret = -1;

	if (!limit)
		limit = REPO_MAX_TREE_FILE;
	if (git_blob_lookup(&blob, r->git, oid) < 0)
		return gitlib_fail(err, git_oid_tostr(hex, sizeof(hex), oid));
	size = git_blob_rawsize(blob);
	if (size > limit) {
		err_set(err, "%llu bytes, more than %zu", (unsigned long long)size, limit);
		goto out;
	}
	buf_add(out, git_blob_rawcontent(blob), (size_t)size);
	ret = 0;
out:
	git_blob_free(blob);
	return ret;
}

int repo_blob_read(struct repo *r, const char *blob_id, size_t limit, struct buf *out,
		   struct buf *err)
{
	git_oid oid;

	if (strlen(blob_id) != GIT_OID_HEXSZ || git_oid_fromstrn(&oid, blob_id, GIT_OID_HEXSZ) < 0)
		return err_set(err, "'%s' is not a full blob id", blob_id);
	if (blob_read(r, &oid, limit, out, err) < 0)
		return err_prefix(err, "blob %.12s: ", blob_id);
	return 0;
}

int repo_tree_file(struct repo *r, const char *id, const char *path, size_t limit,
		   struct buf *out, char blob_id[41], struct buf *err)
{
	char blob[41];
	git_oid oid;
	int e = repo_tree_blob(r, id, path, blob, err);

	if (e != 0)
		return e;
	git_oid_fromstrn(&oid, blob, GIT_OID_HEXSZ);
	if (blob_read(r, &oid, limit, out, err) < 0)
		return err_prefix(err, "%s in commit %.12s: ", path, id);
	memcpy(blob_id, blob, 41);
	return 0;
}

int repo_head(struct repo *r, char id[41], struct buf *err)
{
	git_oid oid;

	if (git_reference_name_to_id(&oid, r->git, "HEAD") < 0)
		return gitlib_fail(err, "HEAD");
	git_oid_tostr(id, 41, &oid);
	return 0;
}
