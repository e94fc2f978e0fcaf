#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive-meta.h"
#include "archive.h"
#include "gitlib.h"
#include "lock.h"
#include "pack.h"
#include "rfc5322.h"
#include "xalloc.h"
#include "banned.h"

#define MASTER "refs/heads/master"
#define LOOSE_SAMPLE 2048	/* loose objects counted before the rest is estimated */
#define EPOCH_MAX_NR 9999	/* highest epoch number this writer makes or reads */

/* What public-inbox writes into a new epoch's config (Import.pm's
 * init_bare, then MultiGit's epoch_cfg_set), so that its tools treat our
 * epochs as their own. */
static const char epoch_config[] =
	"[core]\n"
	"\trepositoryFormatVersion = 0\n"
	"\tfilemode = true\n"
	"\tbare = true\n"
	"[repack]\n"
	"\twriteBitmaps = true\n"
	"[include]\n"
	"\tpath = ../../all.git/config\n";

struct archive {
	char *dir;		/* the inbox directory */
	char *ident;		/* "name <address>", the committer */
	struct lock *lock;	/* inbox.lock */
	unsigned epoch;		/* the N of git/N.git being written */
	git_repository *repo;	/* that epoch */
	char *pack_dir;		/* its objects/pack */
	struct pack *pack;	/* new objects, until pack_flush() */
	size_t pending_bytes;	/* message bytes in the pack */
	git_oid head;		/* its master, as read or last moved */
	int has_head;
	git_oid tip;		/* its newest commit, maybe not yet on master */
	int has_tip;
	uint64_t epoch_bytes;	/* raw bytes in the epoch, as public-inbox counts */
	uint64_t epoch_max;
	struct buf lf;		/* the message with LF line ends */
	struct buf commit;	/* the commit object being built */
};

static int sys_fail(struct buf *err, const char *what, const char *path)
{
	return err_set(err, "%s %s: %s", what, path, strerror(errno));
}

/* ---- the inbox's files ---- */

static char *path_join(const char *dir, const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s", dir, name);
	return buf_detach(&b, NULL);
}

static char *epoch_path(const struct archive *a, unsigned n)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/git/%u.git", a->dir, n);
	return buf_detach(&b, NULL);
}

static int fsync_path(const char *path, struct buf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return sys_fail(err, "cannot open", path);
	rc = fsync(fd);
	close(fd);
	if (rc)
		return sys_fail(err, "cannot sync", path);
	return 0;
}

static int mkdir_once(const char *path, struct buf *err)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return sys_fail(err, "cannot create", path);
	return 0;
}

static int write_file(const char *path, const char *text, struct buf *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t len = strlen(text), done = 0;

	if (fd < 0)
		return sys_fail(err, "cannot create", path);
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sys_fail(err, "cannot write", path);
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	if (fsync(fd)) {
		sys_fail(err, "cannot sync", path);
		close(fd);
		return -1;
	}
	if (close(fd))
		return sys_fail(err, "cannot write", path);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes what a killed writer left of an epoch it was making. */
static int remove_leftovers(const char *gitdir, struct buf *err)
{
	DIR *d = opendir(gitdir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return sys_fail(err, "cannot read", gitdir);
	while ((e = readdir(d))) {
		char *path;

		if (strncmp(e->d_name, ".tmp-", 5))
			continue;
		path = path_join(gitdir, e->d_name);
		if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
			rc = sys_fail(err, "cannot remove the half-made epoch", path);
		free(path);
	}
	closedir(d);
	return rc;
}

/*
 * Removes from objects/pack what a killed writer leaves: pack_write()'s
 * temporary files (tmp_pack_*, tmp_idx_*), and, from perfbot before
 * 2026-12, libgit2's indexer's: its temporary pack (pack_git2_*), a
 * half-written index (*.lock) and an index whose pack was not yet renamed
 * into place (it wrote pack-X.idx before pack-X.pack).  Their objects were
 * never on master.
 */
static int packdir_clean(const char *epoch, struct buf *err)
{
	struct buf dir = BUF_INIT, pack = BUF_INIT;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	buf_addf(&dir, "%s/objects/pack", epoch);
	if (!(d = opendir(dir.data))) {
		rc = errno == ENOENT ? 0 : sys_fail(err, "cannot read", dir.data);
		buf_release(&dir);
		return rc;
	}
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		size_t l = strlen(n);
		int stale = !strncmp(n, "pack_git2_", 10) || pack_is_temporary(n) ||
			    (l > 5 && !strcmp(n + l - 5, ".lock"));

		if (!stale && l > 9 && !strncmp(n, "pack-", 5) && !strcmp(n + l - 4, ".idx")) {
			buf_reset(&pack);
			buf_addf(&pack, "%.*s.pack", (int)(l - 4), n);
			stale = faccessat(dirfd(d), pack.data, F_OK, 0) && errno == ENOENT;
		}
		if (stale && unlinkat(dirfd(d), n, 0) && errno != ENOENT) {
			rc = sys_fail(err, "cannot remove the leftover", n);
			break;
		}
	}
	closedir(d);
	buf_release(&dir);
	buf_release(&pack);
	return rc;
}

/* "N.git" with N in canonical decimal: the epoch number, else -1. */
static long epoch_number(const char *name)
{
	long n = 0;
	const char *p = name;

	if (!(*p >= '0' && *p <= '9') || (p[0] == '0' && p[1] != '.'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (*p - '0');
		if (n > EPOCH_MAX_NR)
			return -1;
	}
	return strcmp(p, ".git") ? -1 : n;
}

/* The highest epoch in dir/git, or -1 when there is none. */
static int epoch_latest(const char *gitdir, long *latest, struct buf *err)
{
	DIR *d = opendir(gitdir);
	struct dirent *e;

	if (!d)
		return sys_fail(err, "cannot read", gitdir);
	*latest = -1;
	while ((e = readdir(d))) {
		long n = epoch_number(e->d_name);

		if (n > *latest)
			*latest = n;
	}
	closedir(d);
	return 0;
}

/*
 * Makes git/N.git as public-inbox does (HEAD, config, objects/, refs/),
 * under a temporary name first, so that a crash never leaves a partial
 * epoch that readers would see.
 */
static int epoch_create(const struct archive *a, unsigned n, struct buf *err)
{
	static const char *const dirs[] = {
		"objects", "objects/info", "objects/pack", "refs", "refs/heads", "refs/tags",
	};
	char *gitdir = path_join(a->dir, "git"), *final = epoch_path(a, n);
	struct buf tmp = BUF_INIT, p = BUF_INIT;
	size_t i;
	int rc = -1;

	buf_addf(&tmp, "%s/.tmp-%u.git", gitdir, n);
	if (mkdir(tmp.data, 0755)) {
		sys_fail(err, "cannot create", tmp.data);
		goto out;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		buf_reset(&p);
		buf_addf(&p, "%s/%s", tmp.data, dirs[i]);
		if (mkdir_once(p.data, err))
			goto out;
	}
	buf_reset(&p);
	buf_addf(&p, "%s/HEAD", tmp.data);
	if (write_file(p.data, "ref: " MASTER "\n", err))
		goto out;
	buf_reset(&p);
	buf_addf(&p, "%s/config", tmp.data);
	if (write_file(p.data, epoch_config, err))
		goto out;
	for (i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		buf_reset(&p);
		buf_addf(&p, "%s/%s", tmp.data, dirs[i]);
		if (fsync_path(p.data, err))
			goto out;
	}
	if (fsync_path(tmp.data, err))
		goto out;
	if (rename(tmp.data, final)) {
		sys_fail(err, "cannot rename to", final);
		goto out;
	}
	rc = fsync_path(gitdir, err);
out:
	buf_release(&tmp);
	buf_release(&p);
	free(gitdir);
	free(final);
	return rc;
}

static uint64_t file_size(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size;
}

/* Bytes of the files in dir whose names end in suffix ("" for all);
 * *count (if not NULL) gets their number. */
static uint64_t dir_bytes(const char *dir, const char *suffix, uint64_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t sum = 0;
	size_t sl = strlen(suffix);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l < sl || strcmp(e->d_name + l - sl, suffix))
			continue;
		sum += file_size(dirfd(d), e->d_name);
		if (count)
			(*count)++;
	}
	closedir(d);
	return sum;
}

/*
 * The size of an epoch in raw mail bytes, as public-inbox reckons it
 * (packed bytes / 0.4).  Packs are summed exactly; loose objects (what
 * this writer leaves) are summed over the first object directories until
 * LOOSE_SAMPLE objects were seen and the rest estimated from those, as
 * git's gc --auto does, so that opening a big epoch stays cheap.
 */
static uint64_t epoch_size(const char *path)
{
	struct buf p = BUF_INIT;
	uint64_t packed, loose = 0, seen = 0;
	unsigned dirs;

	buf_addf(&p, "%s/objects/pack", path);
	packed = dir_bytes(p.data, ".pack", NULL);
	for (dirs = 0; dirs < 256 && seen < LOOSE_SAMPLE; dirs++) {
		buf_reset(&p);
		buf_addf(&p, "%s/objects/%02x", path, dirs);
		loose += dir_bytes(p.data, "", &seen);
	}
	buf_release(&p);
	if (dirs < 256)
		loose = loose * 256 / dirs;
	return (packed + loose) * 5 / 2;
}

/* Closes the epoch being written; objects not yet packed are dropped. */
static void epoch_close(struct archive *a)
{
	git_repository_free(a->repo);
	pack_free(a->pack);
	free(a->pack_dir);
	a->repo = NULL;
	a->pack = NULL;
	a->pack_dir = NULL;
	a->pending_bytes = 0;
}

/*
 * Opens epoch n (which exists) for writing: its repository, its master
 * and an empty pack, which pack_flush() completes once per
 * batch (pack.h), synced with a few fsync() calls rather than two for each
 * loose object.
 */
static int epoch_open(struct archive *a, unsigned n, struct buf *err)
{
	char *path = epoch_path(a, n);
	struct buf lock = BUF_INIT;
	int rc = -1, e;

	if (git_repository_open_bare(&a->repo, path) < 0) {
		const git_error *ge = git_error_last();

		if (ge && ge->message && strstr(ge->message, "safe.directory"))
			err_set(err, "%s: the repository is owned by another user, so libgit2 will not open it; "
				"run perfbot as its owner", path);
		else
			gitlib_fail(err, path);
		goto out;
	}
	/* We hold inbox.lock, so a ref lock can only be a killed writer's. */
	buf_addf(&lock, "%s/" MASTER ".lock", path);
	if (unlink(lock.data) && errno != ENOENT) {
		sys_fail(err, "cannot remove the stale", lock.data);
		goto out;
	}
	if (packdir_clean(path, err))
		goto out;
	a->pack_dir = path_join(path, "objects/pack");
	if (mkdir_once(a->pack_dir, err))
		goto out;
	a->pack = pack_new(a->pack_dir);
	e = git_reference_name_to_id(&a->head, a->repo, MASTER);
	if (e == GIT_ENOTFOUND) {
		a->has_head = 0;
	} else if (e < 0) {
		gitlib_fail(err, path);
		goto out;
	} else {
		a->has_head = 1;
	}
	a->tip = a->head;
	a->has_tip = a->has_head;
	a->epoch = n;
	a->epoch_bytes = epoch_size(path);
	rc = 0;
out:
	if (rc)
		epoch_close(a);
	buf_release(&lock);
	free(path);
	return rc;
}

static int ident_check(const char *what, const char *s, struct buf *err)
{
	const unsigned char *p;

	if (!*s)
		return err_set(err, "the archive's committer %s is empty", what);
	if (strlen(s) > ARCHIVE_IDENT_MAX)
		return err_set(err, "the archive's committer %s is longer than %d bytes", what,
			       ARCHIVE_IDENT_MAX);
	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '<' || *p == '>')
			return err_set(err, "the archive's committer %s '%.80s' may not hold control "
				       "characters, '<' or '>'", what, s);
	return 0;
}

int archive_open(const char *dir, const char *name, const char *address,
		 struct archive **out, struct buf *err)
{
	return archive_open_opts(dir, name, address, NULL, out, err);
}

int archive_open_opts(const char *dir, const char *name, const char *address,
		      const struct archive_options *opts, struct archive **out,
		      struct buf *err)
{
	struct archive *a;
	char *lock = NULL, *gitdir = NULL;
	long latest = -1;
	int rc;

	*out = NULL;
	if (ident_check("name", name, err) || ident_check("address", address, err))
		return -1;
	/* libgit2 keeps every commit and tree written in its object cache (up
	 * to 256 MiB): archiving a whole list must not grow with the list */
	git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, (ssize_t)(8 << 20));
	a = xcalloc(1, sizeof(*a));
	a->dir = xstrdup(dir);
	a->epoch_max = opts ? opts->epoch_max : ARCHIVE_EPOCH_MAX;
	buf_init(&a->lf);
	buf_init(&a->commit);
	buf_addf(&a->commit, "%s <%s>", name, address);
	a->ident = buf_detach(&a->commit, NULL);
	git_libgit2_init();
	/* Objects and refs reach the disk before a ref points at them. */
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
	/* master is only ever moved to a commit pack_write() has just synced:
	 * libgit2's check that it exists read every pack of the epoch again
	 * (their indexes stayed mapped, so memory grew with each batch).
	 * perfbot makes no other objects or refs with libgit2. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);

	lock = path_join(dir, "inbox.lock");
	gitdir = path_join(dir, "git");
	rc = -1;
	if (mkdir_once(dir, err))
		goto fail;
	rc = lock_take(lock, 0644, opts ? opts->lock_wait_ms : ARCHIVE_LOCK_WAIT_MS,
		       "another writer (perfbot or public-inbox)", &a->lock, err);
	if (rc == LOCK_BUSY)
		rc = ARCHIVE_BUSY;
	if (rc)
		goto fail;
	rc = -1;
	if (mkdir_once(gitdir, err) || remove_leftovers(gitdir, err) ||
	    epoch_latest(gitdir, &latest, err))
		goto fail;
	if (latest < 0) {
		if (epoch_create(a, 0, err))
			goto fail;
		latest = 0;
	}
	if (epoch_open(a, (unsigned)latest, err))
		goto fail;
	free(lock);
	free(gitdir);
	*out = a;
	return 0;
fail:
	err_prefix(err, "archive %s: ", dir);
	free(lock);
	free(gitdir);
	archive_close(a);
	return rc;
}

void archive_close(struct archive *a)
{
	if (!a)
		return;
	if (a->repo)
		epoch_close(a);
	lock_free(a->lock);
	free(a->dir);
	free(a->ident);
	buf_release(&a->lf);
	buf_release(&a->commit);
	free(a);
	git_libgit2_shutdown();
}

unsigned archive_epoch(const struct archive *a)
{
	return a->epoch;
}

/* ---- writing ---- */

static void oid_hex(const git_oid *id, char hex[41])
{
	git_oid_tostr(hex, 41, id);
}

/* The commit object for a message, with public-inbox's metadata. */
static void commit_build(struct archive *a, const git_oid *tree, const struct archive_meta *m)
{
	char tree_hex[41], parent_hex[41];

	oid_hex(tree, tree_hex);
	if (a->has_tip)
		oid_hex(&a->tip, parent_hex);
	buf_reset(&a->commit);
	archive_meta_commit(m, tree_hex, a->has_tip ? parent_hex : NULL, a->ident, &a->commit);
}

/* Completes the batch's pack (pack_write() syncs it).  Nothing here
 * reads it back: libgit2 finds it when an epoch is opened again. */
static int pack_flush(struct archive *a, struct buf *err)
{
	if (!pack_objects(a->pack))
		return 0;
	if (pack_write(a->pack, err) < 0)
		return -1;
	a->pending_bytes = 0;
	return 0;
}

/* Starts epoch n after the current one, moving its master first. */
static int epoch_next(struct archive *a, struct buf *err)
{
	unsigned n = a->epoch + 1;

	if (n > EPOCH_MAX_NR)
		return err_set(err, "archive %s: more than %d epochs", a->dir, EPOCH_MAX_NR);
	if (archive_commit(a, err))
		return -1;
	epoch_close(a);
	if (epoch_create(a, n, err) || epoch_open(a, n, err))
		return err_prefix(err, "archive %s: ", a->dir);
	return 0;
}

int archive_check(const char *raw, size_t len, struct buf *err)
{
	struct archive_meta m;
	struct buf lf = BUF_INIT;
	const char *msg;
	int r = 0;

	if (!len)
		return err_set(err, "an empty message cannot be archived");
	if (len > ARCHIVE_MESSAGE_MAX)
		return err_set(err, "the message is larger than %u bytes", ARCHIVE_MESSAGE_MAX);
	/* the very checks of archive_add() */
	msg = rfc5322_lf(raw, &len, &lf);
	if (archive_meta_read(msg, len, 0, &m, err))
		r = err_prefix(err, "the message cannot be archived: ");
	else
		archive_meta_release(&m);
	buf_release(&lf);
	return r;
}

/* archive_add() once the message is read: its objects, the new tip. */
static int archive_add_objects(struct archive *a, const char *msg, size_t len,
			       const struct archive_meta *meta, char blob_hex[41],
			       char commit_hex[41], struct buf *err)
{
	unsigned char tree[9 + PACK_ID_RAWSZ] = "100644 m";
	unsigned char blob[PACK_ID_RAWSZ], tree_raw[PACK_ID_RAWSZ], commit_raw[PACK_ID_RAWSZ];
	git_oid blob_id, tree_id, commit;

	if (a->has_tip && a->epoch_bytes >= a->epoch_max && epoch_next(a, err))
		return -1;
	/* Memory stays bounded however many messages a batch has; a failure
	 * here leaves this message out of the batch. */
	if (a->pending_bytes >= ARCHIVE_PACK_BYTES && pack_flush(a, err))
		return err_prefix(err, "archive %s: ", a->dir);

	/* A failure leaves objects of this message in the pack, but nothing
	 * refers to them: they are written and stay unreachable, or not. */
	if (pack_add(a->pack, PACK_BLOB, msg, len, blob, err) < 0)
		return err_prefix(err, "archive %s: ", a->dir);
	/* A tree is "<mode> <name>\0<raw id>" per entry; this one has only m. */
	memcpy(tree + 9, blob, PACK_ID_RAWSZ);
	if (pack_add(a->pack, PACK_TREE, tree, sizeof(tree), tree_raw, err) < 0)
		return err_prefix(err, "archive %s: ", a->dir);
	git_oid_fromraw(&tree_id, tree_raw);
	commit_build(a, &tree_id, meta);
	if (pack_add(a->pack, PACK_COMMIT, a->commit.data, a->commit.len, commit_raw, err) < 0)
		return err_prefix(err, "archive %s: ", a->dir);
	git_oid_fromraw(&blob_id, blob);
	git_oid_fromraw(&commit, commit_raw);
	a->tip = commit;
	a->has_tip = 1;
	a->epoch_bytes += len;
	a->pending_bytes += len;
	if (blob_hex)
		oid_hex(&blob_id, blob_hex);
	if (commit_hex)
		oid_hex(&commit, commit_hex);
	return 0;
}

int archive_add(struct archive *a, const char *raw, size_t len, int64_t now,
		char blob_hex[41], char commit_hex[41], struct buf *err)
{
	const char *msg;
	struct archive_meta meta;
	int rc;

	if (!a->repo)
		return err_set(err, "archive %s: a previous error left no epoch open", a->dir);
	if (!len)
		return err_set(err, "an empty message cannot be archived");
	if (len > ARCHIVE_MESSAGE_MAX)
		return err_set(err, "the message is larger than %u bytes", ARCHIVE_MESSAGE_MAX);
	msg = rfc5322_lf(raw, &len, &a->lf);
	if (archive_meta_read(msg, len, now, &meta, err))
		return err_prefix(err, "the message cannot be archived: ");
	rc = archive_add_objects(a, msg, len, &meta, blob_hex, commit_hex, err);
	archive_meta_release(&meta);
	return rc;
}

int archive_commit(struct archive *a, struct buf *err)
{
	git_reference *ref = NULL;

	if (!a->repo)
		return err_set(err, "archive %s: a previous error left no epoch open", a->dir);
	if (!a->has_tip || (a->has_head && git_oid_equal(&a->head, &a->tip)))
		return 0;
	if (pack_flush(a, err))
		return err_prefix(err, "archive %s: ", a->dir);
	if (git_reference_create_matching(&ref, a->repo, MASTER, &a->tip, 1,
					  a->has_head ? &a->head : NULL, "perfbot: archive") < 0)
		return gitlib_fail(err, "archive: moving " MASTER);
	git_reference_free(ref);
	a->head = a->tip;
	a->has_head = 1;
	return 0;
}

/* master of epoch n (opened apart unless it is the current one): 1 and
 * *id set, 0 when the epoch has none, -1 with a message. */
static int epoch_master(struct archive *a, unsigned n, git_oid *id, struct buf *err)
{
	git_repository *r;
	char *path;
	int e;

	if (n == a->epoch) {
		*id = a->head;
		return a->has_head;
	}
	path = epoch_path(a, n);
	if (git_repository_open_bare(&r, path) < 0) {
		gitlib_fail(err, path);
		free(path);
		return -1;
	}
	e = git_reference_name_to_id(id, r, MASTER);
	git_repository_free(r);
	if (e < 0 && e != GIT_ENOTFOUND) {
		gitlib_fail(err, path);
		free(path);
		return -1;
	}
	free(path);
	return e == 0;
}

int archive_tip(struct archive *a, char hex[41], struct buf *err)
{
	unsigned n = a->epoch + 1;
	git_oid id;

	hex[0] = '\0';
	while (n-- > 0) {
		int r = epoch_master(a, n, &id, err);

		if (r < 0)
			return -1;
		if (r) {
			oid_hex(&id, hex);
			return 0;
		}
	}
	return 0;
}

/* A commit on master, found by the walk. */
struct walk_item {
	unsigned epoch;
	git_oid id;
};

/* Appends the commits of epoch n's master, newest first, up to stop;
 * 1 when stop was reached. */
static int walk_epoch(struct archive *a, git_repository *r, unsigned n, const git_oid *stop,
		      struct walk_item **items, size_t *nr, size_t *alloc, struct buf *err)
{
	git_revwalk *w = NULL;
	git_oid head, id;
	int found = 0, e;

	e = epoch_master(a, n, &head, err);
	if (e <= 0)
		return e;
	if (git_revwalk_new(&w, r) < 0 || git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL) < 0 ||
	    git_revwalk_push(w, &head) < 0) {
		git_revwalk_free(w);
		return gitlib_fail(err, "archive: walking master");
	}
	while (!(e = git_revwalk_next(&id, w))) {
		if (stop && git_oid_equal(&id, stop)) {
			found = 1;
			break;
		}
		ALLOC_GROW(*items, *nr + 1, *alloc);
		(*items)[*nr].epoch = n;
		(*items)[(*nr)++].id = id;
	}
	git_revwalk_free(w);
	if (e < 0 && e != GIT_ITEROVER)
		return gitlib_fail(err, "archive: walking master");
	return found;
}

/* Calls cb with the message of commit id; 0 when it has none. */
static int walk_call(git_repository *r, const git_oid *id,
		     int (*cb)(void *, const char *, const char *, size_t), void *ctx,
		     struct buf *err)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_blob *b = NULL;
	const git_tree_entry *m;
	char hex[41];
	int rc = -1;

	if (git_commit_lookup(&c, r, id) < 0 || git_commit_tree(&t, c) < 0) {
		gitlib_fail(err, "archive: reading a commit");
		goto out;
	}
	rc = 0;
	if (!(m = git_tree_entry_byname(t, "m")) || git_tree_entry_type(m) != GIT_OBJECT_BLOB)
		goto out;
	if (git_blob_lookup(&b, r, git_tree_entry_id(m)) < 0) {
		rc = gitlib_fail(err, "archive: reading a message");
		goto out;
	}
	oid_hex(id, hex);
	rc = cb(ctx, hex, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b));
out:
	git_blob_free(b);
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

static int epoch_repo(struct archive *a, unsigned n, git_repository **r, struct buf *err)
{
	char *path;

	if (n == a->epoch) {
		*r = a->repo;
		return 0;
	}
	path = epoch_path(a, n);
	if (git_repository_open_bare(r, path) < 0) {
		gitlib_fail(err, path);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

int archive_walk(struct archive *a, const char *stop_hex,
		 int (*cb)(void *ctx, const char *commit_hex, const char *raw, size_t len),
		 void *ctx, struct buf *err)
{
	struct walk_item *items = NULL;
	size_t nr = 0, alloc = 0, i;
	git_oid stop;
	git_repository *r = NULL;
	unsigned n = a->epoch + 1, open_epoch = 0;
	int rc = 0, found = 0;

	if (*stop_hex) {
		if (strlen(stop_hex) != 40 || strspn(stop_hex, "0123456789abcdefABCDEF") != 40 ||
		    git_oid_fromstr(&stop, stop_hex) < 0)
			return err_set(err, "archive: '%.80s' is not a commit id", stop_hex);
	}
	while (!found && n-- > 0) {
		if (epoch_repo(a, n, &r, err))
			goto fail;
		found = walk_epoch(a, r, n, *stop_hex ? &stop : NULL, &items, &nr, &alloc, err);
		if (r != a->repo)
			git_repository_free(r);
		r = NULL;
		if (found < 0)
			goto fail;
	}
	for (i = nr; i-- > 0 && !rc;) {
		if (!r || items[i].epoch != open_epoch) {
			if (r != a->repo)
				git_repository_free(r);
			open_epoch = items[i].epoch;
			if (epoch_repo(a, open_epoch, &r, err)) {
				r = NULL;
				goto fail;
			}
		}
		rc = walk_call(r, &items[i].id, cb, ctx, err);
	}
	if (r != a->repo)
		git_repository_free(r);
	free(items);
	return rc;
fail:
	free(items);
	return -1;
}

int archive_read(const char *dir, const char *blob_hex, struct buf *out, struct buf *err)
{
	char *gitdir = path_join(dir, "git");
	long latest = -1, n;
	git_oid oid;
	int ret = -1;

	if (strlen(blob_hex) != GIT_OID_HEXSZ || git_oid_fromstr(&oid, blob_hex) < 0) {
		free(gitdir);
		return err_set(err, "'%.60s' is not a blob id", blob_hex);
	}
	git_libgit2_init();
	if (epoch_latest(gitdir, &latest, err) == 0) {
		/* newest epoch first: that is where recent mail is */
		for (n = latest; n >= 0 && ret < 0; n--) {
			struct buf path = BUF_INIT;
			git_repository *repo = NULL;
			git_blob *blob = NULL;

			buf_addf(&path, "%s/%ld.git", gitdir, n);
			if (git_repository_open_bare(&repo, path.data) == 0 &&
			    git_blob_lookup(&blob, repo, &oid) == 0) {
				buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
				ret = 0;
			}
			git_blob_free(blob);
			git_repository_free(repo);
			buf_release(&path);
		}
		if (ret < 0)
			err_set(err, "%s: no mail %s in the archive", dir, blob_hex);
	}
	git_libgit2_shutdown();
	free(gitdir);
	return ret;
}
