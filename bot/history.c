#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitlib.h"
#include "history.h"
#include "trailer.h"
#include "xalloc.h"
#include "banned.h"

/* The trailers of one commit, read as git log reads them (trailer.h),
 * in a list and an array reused from commit to commit. */
struct trailers {
	struct trailer_list list;
	struct fix_trailer *v;
	size_t alloc;
};

static void trailers_release(struct trailers *t)
{
	trailer_list_release(&t->list);
	free(t->v);
	t->v = NULL;
	t->alloc = 0;
}

static size_t trailers_read(struct trailers *t, const char *message)
{
	size_t i;

	trailer_parse(&t->list, message, strlen(message), TRAILER_COMMIT);
	ALLOC_GROW(t->v, t->list.nr, t->alloc);
	for (i = 0; i < t->list.nr; i++) {
		t->v[i].key = t->list.v[i].key;
		t->v[i].value = t->list.v[i].value;
	}
	return t->list.nr;
}

/* The commit ref leads to: 0, 1 when the ref or its target is missing,
 * -1 with a message. */
static int ref_tip(git_repository *git, const char *ref, git_oid *tip, struct buf *err)
{
	git_reference *gr = NULL;
	git_object *peeled = NULL;
	int valid = 0, e;

	if (git_reference_name_is_valid(&valid, ref) < 0 || !valid || strncmp(ref, "refs/", 5))
		return err_set(err, "ref '%s' is not a full reference name (refs/...)", ref);
	e = git_reference_lookup(&gr, git, ref);
	if (e == GIT_ENOTFOUND)
		return 1;
	if (e < 0)
		return gitlib_fail(err, ref);
	e = git_reference_peel(&peeled, gr, GIT_OBJECT_COMMIT);
	git_reference_free(gr);
	if (e == GIT_ENOTFOUND)
		return 1;	/* a symbolic ref whose target is gone */
	if (e < 0)
		return err_set(err, "ref '%s' does not lead to a commit", ref);
	git_oid_cpy(tip, git_object_id(peeled));
	git_object_free(peeled);
	return 0;
}

static int is_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s), i;

	if (n < min || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return 1;
}

/* 1 when the repository holds oid as a commit. */
static int have_commit(git_repository *git, const git_oid *oid)
{
	git_odb *odb = NULL;
	size_t len;
	git_object_t type = GIT_OBJECT_INVALID;
	int have = 0;

	if (git_repository_odb(&odb, git) < 0)
		return 0;
	if (git_odb_read_header(&len, &type, odb, oid) == 0)
		have = type == GIT_OBJECT_COMMIT;
	git_odb_free(odb);
	return have;
}

static int is_space_nonlf(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/*
 * git_commit_summary() of libgit2 1.5, over a message already read: the
 * first paragraph (ended by an empty or blank line, or the end), each run
 * of white space holding a line break squashed to one space, other runs
 * kept, leading and trailing white space dropped.  Into out (reset).
 */
static void summary_of(struct buf *out, const char *msg)
{
	const char *space = NULL, *word = NULL, *next;
	int space_nl = 0;

	buf_reset(out);
	for (; *msg; msg++) {
		char c = *msg;

		if (c == '\n') {
			if (!msg[1] || msg[1] == '\n')
				break;
			for (next = msg + 1; *next && is_space_nonlf(*next); next++)
				;
			if (!*next || *next == '\n')
				break;
		}
		if (c == '\n' || is_space_nonlf(c)) {
			if (word) {
				buf_add(out, word, (size_t)(msg - word));
				word = NULL;
			}
			if (!space) {
				space = msg;
				space_nl = 0;
			}
			space_nl |= c == '\n';
			continue;
		}
		if (space) {
			if (space_nl)
				buf_addc(out, ' ');
			else
				buf_add(out, space, (size_t)(msg - space));
			space = NULL;
		}
		if (!word)
			word = msg;	/* copied a run at a time, not a byte at a time */
	}
	if (word)
		buf_add(out, word, (size_t)(msg - word));
}

/*
 * The committer date and the message of a raw commit object, as libgit2
 * 1.5's commit parser reads them: the date is the number after the last
 * '>' (and one more byte) of the "committer " line, 0 when it has none;
 * the message is what follows the first empty line, its leading line
 * breaks dropped (git_commit_message()), copied into msg (reset) so that
 * it ends with a NUL.  -1 when there is no committer line.
 */
static int commit_read(const char *data, size_t size, int64_t *date, struct buf *msg)
{
	const char *end = data + size, *p = data, *eol, *gt, *body = end;

	*date = 0;
	buf_reset(msg);
	/* the headers, each a line, up to the first empty line */
	while (p < end && *p != '\n') {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > 10 && !memcmp(p, "committer ", 10) && !*date) {
			for (gt = eol; gt > p && gt[-1] != '>'; gt--)
				;
			if (gt == p)
				return -1;
			gt--;
			if (gt + 2 < eol) {
				const char *q = gt + 2;
				int64_t v = 0;
				int neg = 0;

				while (q < eol && (*q == ' ' || *q == '\t'))
					q++;
				if (q < eol && (*q == '-' || *q == '+'))
					neg = *q++ == '-';
				while (q < eol && *q >= '0' && *q <= '9' && v < INT64_MAX / 10 - 10)
					v = v * 10 + (*q++ - '0');
				*date = neg ? -v : v;
			}
		}
		p = eol < end ? eol + 1 : end;
	}
	if (p < end)
		body = p + 1;
	while (body < end && *body == '\n')
		body++;
	buf_add(msg, body, (size_t)(end - body));
	return 0;
}

/*
 * Each commit's object is read once by the revwalk (for its parents) and
 * again here, from libgit2's object cache: only the committer date and the
 * message are taken from it, not the whole commit git_commit_lookup()
 * parses (both signatures, copies of the header and message: 7,000
 * instructions a commit).
 */
static int walk_commits(git_repository *git, git_revwalk *walk, int64_t bound,
			history_want_fn *want, history_commit_fn *fn, void *data,
			struct history_result *out, struct buf *err)
{
	struct trailers t = { TRAILER_LIST_INIT, NULL, 0 };
	struct buf message = BUF_INIT, subject = BUF_INIT;
	git_odb *odb = NULL;
	git_oid oid;
	int e, ret = 0;

	if (git_repository_odb(&odb, git) < 0)
		return gitlib_fail(err, "opening the object database");
	while ((e = git_revwalk_next(&oid, walk)) == 0) {
		git_odb_object *obj = NULL;
		struct fix_commit fc = { 0 };
		char id[GIT_OID_HEXSZ + 1], reverts[GIT_OID_HEXSZ + 1];
		int bad;

		git_oid_tostr(id, sizeof(id), &oid);
		if (git_odb_read(&obj, odb, &oid) < 0) {
			ret = gitlib_fail(err, "reading a commit");
			break;
		}
		bad = git_odb_object_type(obj) != GIT_OBJECT_COMMIT ||
		      commit_read(git_odb_object_data(obj), git_odb_object_size(obj), &fc.date, &message) < 0;
		git_odb_object_free(obj);
		if (bad) {
			ret = err_set(err, "reading a commit: %s is not a commit libgit2 can parse", id);
			break;
		}
		if (bound && fc.date < bound)
			break;
		fc.id = id;
		summary_of(&subject, message.data);
		fc.subject = subject.data;
		if (!want || want(id, message.data, data)) {
			fc.nr_trailers = trailers_read(&t, message.data);
			fc.trailers = t.v;
			if (fix_parse_revert(message.data, reverts))
				fc.reverts = reverts;
			out->parsed++;
		}
		out->examined++;
		ret = fn(&fc, data, err);
		if (ret < 0)
			break;
	}
	if (ret == 0 && e != GIT_ITEROVER && e != 0)
		ret = gitlib_fail(err, "walking the commits");
	git_odb_free(odb);
	trailers_release(&t);
	buf_release(&message);
	buf_release(&subject);
	return ret;
}

int history_walk(struct repo *r, const char *ref, const char *cursor, int64_t since,
		 history_want_fn *want, history_commit_fn *fn, void *data,
		 struct history_result *out, struct buf *err)
{
	git_repository *git = repo_git(r);
	git_revwalk *walk = NULL;
	git_oid tip, old;
	int64_t bound = since;
	int hide = 0, e;

	memset(out, 0, sizeof(*out));
	e = ref_tip(git, ref, &tip, err);
	if (e < 0)
		return -1;
	if (e == 1) {
		out->missing = 1;
		return 0;
	}
	git_oid_tostr(out->tip, sizeof(out->tip), &tip);
	if (cursor && *cursor) {
		if (!is_hex(cursor, GIT_OID_HEXSZ, GIT_OID_HEXSZ) ||
		    git_oid_fromstrn(&old, cursor, GIT_OID_HEXSZ) < 0)
			return err_set(err, "%s: cursor '%s' is not a 40-digit commit id", ref, cursor);
		if (!git_oid_cmp(&old, &tip))
			return 0;
		if (have_commit(git, &old)) {
			hide = 1;
			bound = 0;
		} else {
			out->cursor_lost = 1;
		}
	}
	if (git_revwalk_new(&walk, git) < 0)
		return gitlib_fail(err, ref);
	/* no sorting: libgit2 then walks lazily, newest first by date,
	 * rather than listing the whole history before the first commit */
	git_revwalk_sorting(walk, GIT_SORT_NONE);
	if (git_revwalk_push(walk, &tip) < 0 ||
	    (hide && git_revwalk_hide(walk, &old) < 0)) {
		gitlib_fail(err, ref);
		git_revwalk_free(walk);
		return -1;
	}
	/* libgit2 hashes every object it reads to check it against its id
	 * (SHA-1DC, a quarter of a walk's instructions); git itself does not
	 * on reading (`git log` included; git fsck checks).  The walk only
	 * reads messages and changes nothing, zlib's checksum still catches
	 * a damaged object, and the option is the process's: it is set back
	 * for whatever reads or writes next (the archive, a render). */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	e = walk_commits(git, walk, bound, want, fn, data, out, err);
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
	git_revwalk_free(walk);
	if (e < 0) {
		if (fn && err && !err->len)
			err_set(err, "%s: the walk was stopped", ref);
		return -1;
	}
	return 0;
}

/* The commit that commit (4 to 40 hex digits) names into *out: 1, 0 when
 * there is none, -1 with a message when it is not hex or is ambiguous. */
static int commit_by_prefix(git_repository *git, const char *commit, git_commit **out,
			    struct buf *err)
{
	git_oid oid;
	size_t n = strlen(commit);
	int e;

	*out = NULL;
	if (!is_hex(commit, 4, GIT_OID_HEXSZ))
		return err_set(err, "'%s' is not a commit id (4 to 40 hex digits)", commit);
	if (git_oid_fromstrn(&oid, commit, n) < 0)
		return gitlib_fail(err, commit);
	e = n == GIT_OID_HEXSZ ? git_commit_lookup(out, git, &oid) :
				 git_commit_lookup_prefix(out, git, &oid, n);
	if (e == GIT_ENOTFOUND)
		return 0;
	if (e == GIT_EAMBIGUOUS)
		return err_set(err, "commit '%s' is ambiguous: give more hex digits", commit);
	if (e < 0)
		return gitlib_fail(err, commit);
	return 1;
}

int history_contains(struct repo *r, const char *ref, const char *commit, struct buf *err)
{
	git_repository *git = repo_git(r);
	git_commit *c = NULL;
	git_oid tip, oid;
	int e;

	if (!is_hex(commit, 4, GIT_OID_HEXSZ))
		return err_set(err, "'%s' is not a commit id (4 to 40 hex digits)", commit);
	e = ref_tip(git, ref, &tip, err);
	if (e)
		return e < 0 ? -1 : 0;
	e = commit_by_prefix(git, commit, &c, err);
	if (e <= 0)
		return e;
	git_oid_cpy(&oid, git_commit_id(c));
	git_commit_free(c);
	if (!git_oid_cmp(&oid, &tip))
		return 1;
	e = git_graph_descendant_of(git, &tip, &oid);
	if (e < 0)
		return gitlib_fail(err, ref);
	return e;
}

void history_commit_release(struct history_commit *c)
{
	free(c->subject);
	memset(c, 0, sizeof(*c));
}

int history_lookup(struct repo *r, const char *commit, struct history_commit *out, struct buf *err)
{
	git_commit *c = NULL;
	const char *summary;
	int e;

	memset(out, 0, sizeof(*out));
	e = commit_by_prefix(repo_git(r), commit, &c, err);
	if (e <= 0)
		return e;
	git_oid_tostr(out->id, sizeof(out->id), git_commit_id(c));
	summary = git_commit_summary(c);
	out->subject = xstrdup(summary ? summary : "");
	out->date = (int64_t)git_commit_time(c);
	git_commit_free(c);
	return 1;
}
