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

#include "archive.h"
#include "date.h"
#include "gitlib.h"
#include "header.h"
#include "lock.h"
#include "pack.h"
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

/* The header fields archive_add() reads. */
enum field_kind { F_FROM, F_SENDER, F_SUBJECT, F_DATE, F_RECEIVED };

static const char *const field_names[] = {
	[F_FROM] = "from", [F_SENDER] = "sender", [F_SUBJECT] = "subject",
	[F_DATE] = "date", [F_RECEIVED] = "received",
};

/* One such field in the message: its raw value from after "Name:" and
 * the blanks after it to the end of its last continuation line. */
struct field {
	enum field_kind kind;
	const char *p;
	size_t n;
};

/* A git time stamp. */
struct stamp {
	int64_t time;	/* seconds since the epoch, >= 0 */
	int zone;	/* minutes east of UTC, within -13:59..+13:59 */
};

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
	struct field *fields;	/* of the message being added */
	size_t nr_fields, alloc_fields;
	struct buf lf;		/* the message with LF line ends */
	struct buf text, tmp;	/* scratch */
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
	buf_init(&a->text);
	buf_init(&a->tmp);
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
	free(a->fields);
	buf_release(&a->lf);
	buf_release(&a->text);
	buf_release(&a->tmp);
	buf_release(&a->commit);
	free(a);
	git_libgit2_shutdown();
}

unsigned archive_epoch(const struct archive *a)
{
	return a->epoch;
}

/* ---- reading the header block ---- */

/* Perl's \s, which public-inbox's patterns use. */
static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * public-inbox's reading of a header line (Eml.pm): a blank before any
 * ':' makes it the continuation of the field above (folded lines begin
 * with one); otherwise "Name:" at its start begins a field.
 */
static int line_continues(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == ':')
			return 0;
		if (p[i] == ' ' || p[i] == '\t')
			return 1;
	}
	return 0;
}

static int field_kind(const char *p, size_t n, size_t *name_len)
{
	const char *colon = memchr(p, ':', n);
	size_t i, l;

	if (!colon)
		return -1;
	l = (size_t)(colon - p);
	for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (strlen(field_names[i]) == l && !strncasecmp(p, field_names[i], l)) {
			*name_len = l;
			return (int)i;
		}
	return -1;
}

/* Collects the fields archive_add() needs from msg's header block (up
 * to the first empty line), checking the limits. */
static int header_scan(struct archive *a, const char *msg, size_t len, struct buf *err)
{
	const char *p = msg, *end = msg + len;
	struct field *cur = NULL;
	size_t lines = 0;

	a->nr_fields = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((eol ? eol : end) - p), name_len;
		int kind;

		if (!n)
			break;
		if (++lines > ARCHIVE_HEADER_LINES_MAX)
			return err_set(err, "the header has more than %d lines", ARCHIVE_HEADER_LINES_MAX);
		if (n > ARCHIVE_HEADER_LINE_MAX)
			return err_set(err, "header line %zu is longer than %d bytes", lines,
				       ARCHIVE_HEADER_LINE_MAX);
		if ((size_t)(p - msg) + n > ARCHIVE_HEADER_MAX)
			return err_set(err, "the header is longer than %u bytes", ARCHIVE_HEADER_MAX);
		if (line_continues(p, n)) {
			if (cur)
				cur->n = (size_t)(p + n - cur->p);
		} else if ((kind = field_kind(p, n, &name_len)) >= 0) {
			const char *v = p + name_len + 1;

			while (v < p + n && (*v == ' ' || *v == '\t'))
				v++;
			ALLOC_GROW(a->fields, a->nr_fields + 1, a->alloc_fields);
			cur = &a->fields[a->nr_fields++];
			cur->kind = (enum field_kind)kind;
			cur->p = v;
			cur->n = (size_t)(p + n - v);
		} else {
			cur = NULL;
		}
		p = eol ? eol + 1 : end;
	}
	return 0;
}

static const struct field *field_first(const struct archive *a, enum field_kind kind)
{
	size_t i;

	for (i = 0; i < a->nr_fields; i++)
		if (a->fields[i].kind == kind)
			return &a->fields[i];
	return NULL;
}

/* Narrows [*p, *e) to leave out the blanks at both ends. */
static void span_trim(const char **p, const char **e)
{
	while (*p < *e && is_space(**p))
		(*p)++;
	while (*e > *p && is_space((*e)[-1]))
		(*e)--;
}

/*
 * Appends f's value unfolded as public-inbox's header_raw() does: blanks
 * at both ends trimmed, each line break and the blanks after it made one
 * space.  NUL becomes a space, as public-inbox later makes it.
 */
static void field_unfold(const struct field *f, struct buf *out)
{
	const char *p = f->p, *e = f->p + f->n;

	span_trim(&p, &e);
	while (p < e) {
		if (*p == '\n') {
			buf_addc(out, ' ');
			for (p++; p < e && (*p == ' ' || *p == '\t'); p++)
				;
			continue;
		}
		buf_addc(out, *p ? *p : ' ');
		p++;
	}
}

static int utf8_valid(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t l = header_utf8_char(s + i, n - i);

		if (!l)
			return 0;
		i += l;
	}
	return 1;
}

/*
 * Makes decoded header text fit for a commit, as public-inbox does: CR
 * dropped, NUL, TAB and LF made spaces, '<' and '>' dropped when
 * strip_angles, and text that is not UTF-8 read as Latin-1 (Perl's
 * utf8::decode failing, then utf8::encode).
 */
static void text_clean(struct buf *in, struct buf *out, int strip_angles)
{
	size_t i;
	int latin1 = !utf8_valid(in->data, in->len);

	for (i = 0; i < in->len; i++) {
		unsigned char c = (unsigned char)in->data[i];

		if (c == '\r' || (strip_angles && (c == '<' || c == '>')))
			continue;
		if (c == '\0' || c == '\t' || c == '\n')
			c = ' ';
		if (latin1 && c >= 0x80) {
			buf_addc(out, (char)(0xc0 | c >> 6));
			buf_addc(out, (char)(0x80 | (c & 0x3f)));
		} else {
			buf_addc(out, (char)c);
		}
	}
}

/* Appends s (a C string) with RFC 2047 words decoded, then cleaned. */
static void text_decode(struct archive *a, const char *s, struct buf *out, int strip_angles)
{
	buf_reset(&a->tmp);
	if (strstr(s, "=?"))
		header_decode_words(s, &a->tmp);
	else
		buf_adds(&a->tmp, s);
	text_clean(&a->tmp, out, strip_angles);
}

/* ---- From: the first mailbox, read as Email::Address::XS does ---- */

struct mailbox {
	struct buf phrase;	/* display name words, unquoted, joined by one space */
	struct buf comment;	/* the first comment's text */
	struct buf addr;	/* the address in <>, or the words of a bare one */
	int angle;		/* addr came from <> */
	int has_comment;
};

/* Reads "(...)" at *pp (nested, with quoted pairs) into out (without the
 * outer parentheses) and moves *pp past it. */
static void read_comment(const char **pp, struct buf *out)
{
	const char *p = *pp + 1;
	int depth = 1;

	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			buf_addc(out, *++p);
			continue;
		}
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0) {
			p++;
			break;
		}
		buf_addc(out, *p);
	}
	*pp = p;
}

static void mailbox_word(struct mailbox *m, const char *w, size_t n)
{
	if (m->phrase.len)
		buf_addc(&m->phrase, ' ');
	buf_add(&m->phrase, w, n);
}

/* Parses the first mailbox of s (an unfolded From: or Sender: value). */
static void mailbox_parse(const char *s, struct mailbox *m)
{
	const char *p = s;
	struct buf word = BUF_INIT, bare = BUF_INIT;

	while (*p) {
		if (is_space(*p)) {
			p++;
		} else if (*p == '"') {
			buf_reset(&word);
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				buf_addc(&word, *p);
			}
			if (*p)
				p++;
			mailbox_word(m, word.data, word.len);
			buf_add(&bare, word.data, word.len);
		} else if (*p == '(') {
			buf_reset(&word);
			read_comment(&p, &word);
			if (!m->has_comment) {
				buf_add(&m->comment, word.data, word.len);
				m->has_comment = 1;
			}
		} else if (*p == '<') {
			const char *e = strchr(p, '>');
			size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);

			if (!m->angle) {
				buf_add(&m->addr, p + 1, n);
				m->angle = 1;
			}
			p += n + 1 + (e != NULL);
		} else if (*p == ':' && !m->angle) {
			/* "group name:" is not a display name */
			buf_reset(&m->phrase);
			buf_reset(&bare);
			p++;
		} else if (*p == ',' || *p == ';') {
			if (m->angle || bare.len)
				break;
			buf_reset(&m->phrase);
			p++;
		} else {
			size_t n = strcspn(p, " \t\r\n\f\v\"(<,:;");

			if (!n)
				n = 1;	/* a stray '>' */
			mailbox_word(m, p, n);
			buf_add(&bare, p, n);
			p += n;
		}
	}
	if (!m->angle) {
		/* A bare address: its words are the address, not a name. */
		if (memchr(bare.data, '@', bare.len))
			buf_add(&m->addr, bare.data, bare.len);
		else
			buf_add(&m->addr, "", 0);
		if (m->addr.len)
			buf_reset(&m->phrase);
	}
	buf_release(&word);
	buf_release(&bare);
}

static void mailbox_release(struct mailbox *m)
{
	buf_release(&m->phrase);
	buf_release(&m->comment);
	buf_release(&m->addr);
}

/* Appends addr without the blanks around it. */
static void addr_trim(const struct buf *addr, struct buf *out)
{
	const char *p = addr->data, *e = addr->data + addr->len;

	span_trim(&p, &e);
	buf_add(out, p, (size_t)(e - p));
}

/*
 * The author name and address for the commit, from the From: field (or
 * Sender: for what From: lacks), with public-inbox's choice of name:
 * the display name, else a comment, else the address's local part.
 */
static void author_read(struct archive *a, struct buf *name, struct buf *email)
{
	static const enum field_kind kinds[] = { F_FROM, F_SENDER };
	size_t k;

	for (k = 0; k < 2 && (!name->len || !email->len); k++) {
		const struct field *f = field_first(a, kinds[k]);
		struct mailbox m = { BUF_INIT, BUF_INIT, BUF_INIT, 0, 0 };
		struct buf n = BUF_INIT, e = BUF_INIT;
		const char *at;

		if (!f)
			continue;
		buf_reset(&a->text);
		field_unfold(f, &a->text);
		mailbox_parse(a->text.data, &m);
		addr_trim(&m.addr, &e);
		if (m.phrase.len)
			text_decode(a, m.phrase.data, &n, 1);
		if (!n.len && m.has_comment)
			text_decode(a, m.comment.data, &n, 1);
		if (n.len && e.len && !strcmp(n.data, e.data))
			buf_reset(&n);	/* "addr" <addr> names no one */
		if (!n.len && e.len && (at = strrchr(e.data, '@'))) {
			buf_reset(&a->tmp);
			buf_add(&a->tmp, e.data, (size_t)(at - e.data));
			text_clean(&a->tmp, &n, 1);
		}
		if (!name->len)
			buf_add(name, n.data, n.len);
		if (!email->len) {
			buf_reset(&a->tmp);
			buf_add(&a->tmp, e.data, e.len);
			text_clean(&a->tmp, email, 1);
		}
		buf_release(&n);
		buf_release(&e);
		mailbox_release(&m);
	}
	if (!name->len)
		buf_adds(name, "unknown");
	if (!email->len)
		buf_adds(email, "unknown@unknown");
}

/* ---- dates ---- */

/* A date as git writes it: public-inbox turns zones of 14:00 and more
 * into +0000 and does not read dates before 1970. */
static int stamp_parse(const char *s, struct stamp *st)
{
	int64_t t;
	int zone, abs_zone;

	if (date_parse_rfc5322(s, &t, &zone) || t < 0)
		return -1;
	abs_zone = zone < 0 ? -zone : zone;
	if ((abs_zone / 60) * 100 + abs_zone % 60 >= 1400)
		zone = 0;
	st->time = t;
	st->zone = zone;
	return 0;
}

static size_t digits(const char *s)
{
	size_t n = 0;

	while (is_digit(s[n]))
		n++;
	return n;
}

static size_t spaces(const char *s)
{
	size_t n = 0;

	while (is_space(s[n]))
		n++;
	return n;
}

/*
 * The length of public-inbox's Received: date pattern at s, 0 when it is
 * not there:  [0-9]+\s+[a-zA-Z]+\s+[0-9]{2,4}\s+[0-9]+[^0-9][0-9]+
 * [^0-9][0-9]+\s+[+-][0-9]+  (every run is maximal, so no backtracking).
 */
static size_t received_date_len(const char *s)
{
	const char *p = s;
	size_t n;
	int part;

	if (!(n = digits(p)))
		return 0;
	p += n;
	if (!(n = spaces(p)))
		return 0;
	p += n;
	for (n = 0; (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z'); n++)
		;
	if (!n)
		return 0;
	p += n;
	if (!(n = spaces(p)))
		return 0;
	p += n;
	n = digits(p);
	if (n < 2 || n > 4)
		return 0;
	p += n;
	if (!(n = spaces(p)))
		return 0;
	p += n;
	for (part = 0; part < 3; part++) {
		if (part && (!*p || is_digit(*p)))
			return 0;
		if (part)
			p++;
		if (!(n = digits(p)))
			return 0;
		p += n;
	}
	if (!(n = spaces(p)))
		return 0;
	p += n;
	if (*p != '+' && *p != '-')
		return 0;
	p++;
	if (!(n = digits(p)))
		return 0;
	return (size_t)(p + n - s);
}

/* The date of a Received: value: the first place the pattern matches. */
static int received_stamp(struct archive *a, const char *s, struct stamp *st)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		size_t n;

		if (!is_digit(s[i]) || (i && is_digit(s[i - 1])))
			continue;
		if (!(n = received_date_len(s + i)))
			continue;
		buf_reset(&a->tmp);
		buf_add(&a->tmp, s + i, n);
		return stamp_parse(a->tmp.data, st);
	}
	return -1;
}

/* The first readable stamp among the fields of a kind. */
static int stamp_read(struct archive *a, enum field_kind kind, struct stamp *st)
{
	size_t i;

	for (i = 0; i < a->nr_fields; i++) {
		if (a->fields[i].kind != kind)
			continue;
		buf_reset(&a->text);
		field_unfold(&a->fields[i], &a->text);
		if (kind == F_RECEIVED ? !received_stamp(a, a->text.data, st) :
		    !stamp_parse(a->text.data, st))
			return 0;
	}
	return -1;
}

static void stamp_format(struct buf *out, const struct stamp *st)
{
	int z = st->zone < 0 ? -st->zone : st->zone;

	buf_addf(out, " %" PRId64 " %c%02d%02d", st->time, st->zone < 0 ? '-' : '+', z / 60, z % 60);
}

/* ---- writing ---- */

static void oid_hex(const git_oid *id, char hex[41])
{
	git_oid_tostr(hex, 41, id);
}

/* The commit object for a message whose fields were scanned. */
static void commit_build(struct archive *a, const git_oid *tree, int64_t now)
{
	struct buf name = BUF_INIT, email = BUF_INIT;
	struct stamp fallback = { now < 0 ? 0 : now, 0 }, ad, cd;
	const struct field *subject;
	char hex[41];
	size_t before;

	if (stamp_read(a, F_DATE, &ad) && stamp_read(a, F_RECEIVED, &ad))
		ad = fallback;
	if (stamp_read(a, F_RECEIVED, &cd) && stamp_read(a, F_DATE, &cd))
		cd = fallback;
	author_read(a, &name, &email);

	buf_reset(&a->commit);
	oid_hex(tree, hex);
	buf_addf(&a->commit, "tree %s\n", hex);
	if (a->has_tip) {
		oid_hex(&a->tip, hex);
		buf_addf(&a->commit, "parent %s\n", hex);
	}
	buf_addf(&a->commit, "author %s <%s>", name.data, email.data);
	stamp_format(&a->commit, &ad);
	buf_addf(&a->commit, "\ncommitter %s", a->ident);
	stamp_format(&a->commit, &cd);
	buf_adds(&a->commit, "\n\n");
	before = a->commit.len;
	if ((subject = field_first(a, F_SUBJECT))) {
		buf_reset(&a->text);
		field_unfold(subject, &a->text);
		text_decode(a, a->text.data, &a->commit, 0);
	}
	if (a->commit.len == before)
		buf_adds(&a->commit, "(no subject)");
	buf_addc(&a->commit, '\n');
	buf_release(&name);
	buf_release(&email);
}

/* msg with each CRLF made LF, in a->lf; msg itself when it has no CR. */
static const char *lf_only(struct archive *a, const char *msg, size_t *len)
{
	const char *p = msg, *end = msg + *len, *cr;

	if (!memchr(msg, '\r', *len))
		return msg;
	buf_reset(&a->lf);
	while ((cr = memchr(p, '\r', (size_t)(end - p)))) {
		buf_add(&a->lf, p, (size_t)(cr - p));
		if (cr + 1 == end || cr[1] != '\n')
			buf_addc(&a->lf, '\r');
		p = cr + 1;
	}
	buf_add(&a->lf, p, (size_t)(end - p));
	*len = a->lf.len;
	return a->lf.data;
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
	struct archive tmp;
	const char *msg;
	int r = 0;

	if (!len)
		return err_set(err, "an empty message cannot be archived");
	if (len > ARCHIVE_MESSAGE_MAX)
		return err_set(err, "the message is larger than %u bytes", ARCHIVE_MESSAGE_MAX);
	/* the very checks of archive_add(), on a scratch archive */
	memset(&tmp, 0, sizeof(tmp));
	buf_init(&tmp.lf);
	msg = lf_only(&tmp, raw, &len);
	if (header_scan(&tmp, msg, len, err))
		r = err_prefix(err, "the message cannot be archived: ");
	free(tmp.fields);
	buf_release(&tmp.lf);
	return r;
}

int archive_add(struct archive *a, const char *raw, size_t len, int64_t now,
		char blob_hex[41], char commit_hex[41], struct buf *err)
{
	const char *msg;
	unsigned char tree[9 + PACK_ID_RAWSZ] = "100644 m";
	unsigned char blob[PACK_ID_RAWSZ], tree_raw[PACK_ID_RAWSZ], commit_raw[PACK_ID_RAWSZ];
	git_oid blob_id, tree_id, commit;

	if (!a->repo)
		return err_set(err, "archive %s: a previous error left no epoch open", a->dir);
	if (!len)
		return err_set(err, "an empty message cannot be archived");
	if (len > ARCHIVE_MESSAGE_MAX)
		return err_set(err, "the message is larger than %u bytes", ARCHIVE_MESSAGE_MAX);
	msg = lf_only(a, raw, &len);
	if (header_scan(a, msg, len, err))
		return err_prefix(err, "the message cannot be archived: ");
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
	commit_build(a, &tree_id, now);
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
