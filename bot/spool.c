/*
 * spool.c: the spool directories (spool.h).  Atomic, durable file moves:
 * rename without replacing, copy + fsync + rename across file systems,
 * and an fsync of each directory a change touched.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "date.h"
#include "dir.h"
#include "spool.h"
#include "xalloc.h"
#include "banned.h"

/* Tries of a new name when the one made is taken. */
#define NAME_TRIES 1000

/* Makes the N of "TIME-PID-N-BASE" unique within this process. */
static unsigned int name_counter;

void spool_names_release(struct spool_names *names)
{
	size_t i;

	for (i = 0; i < names->nr; i++)
		free(names->v[i]);
	free(names->v);
	memset(names, 0, sizeof(*names));
}

static void names_push(struct spool_names *names, const char *s)
{
	ALLOC_GROW(names->v, names->nr + 1, names->alloc);
	names->v[names->nr++] = xstrdup(s);
}

/* ---- paths and directories ------------------------------------------- */

static void spool_path(struct buf *out, const char *dir, const char *sub, const char *name)
{
	buf_reset(out);
	buf_addf(out, "%s/spool/%s", dir, sub);
	if (name)
		buf_addf(out, "/%s", name);
}

void spool_incoming_path(struct buf *out, const char *dir, const char *name)
{
	spool_path(out, dir, "incoming", name);
}

/* Creates DIR, DIR/spool and DIR/spool/SUB as needed. */
static int spool_mkdirs(const char *dir, const char *sub, struct buf *err)
{
	struct buf path = BUF_INIT;
	int ret = -1;

	if (dir_make(dir, 0700, err) < 0)
		goto done;
	buf_addf(&path, "%s/spool", dir);
	if (dir_make(path.data, 0700, err) < 0)
		goto done;
	spool_path(&path, dir, sub, NULL);
	ret = dir_make(path.data, 0700, err);
done:
	buf_release(&path);
	return ret;
}

/* The directory part of path ("." when it has none). */
static void path_dir(struct buf *out, const char *path)
{
	const char *slash = strrchr(path, '/');

	buf_reset(out);
	if (!slash)
		buf_addc(out, '.');
	else if (slash == path)
		buf_addc(out, '/');
	else
		buf_add(out, path, (size_t)(slash - path));
}

/*
 * rename() that fails with EEXIST instead of replacing to.  Falls back to
 * link() + unlink() where the file system lacks RENAME_NOREPLACE; a crash
 * between those two leaves the file in both places, never in neither.
 * -1 with errno set.
 */
static int move_noreplace(const char *from, const char *to)
{
	if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (link(from, to) < 0)
		return -1;
	if (unlink(from) < 0) {
		int e = errno;

		unlink(to);
		errno = e;
		return -1;
	}
	return 0;
}

/* ---- names ----------------------------------------------------------- */

static int base_char_ok(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '+' || c == '-';
}

/* Appends a new spool name for the file called base (a file name, not a
 * path) queued at now. */
static void name_make(struct buf *out, int64_t now, const char *base)
{
	struct date_civil c;
	size_t i;

	date_to_civil(now, 0, &c);
	buf_addf(out, "%04lld%02d%02d%02d%02d%02d-%ld-%u-", (long long)c.year, c.month, c.day,
		 c.hour, c.minute, c.second, (long)getpid(), name_counter++);
	if (!*base)
		base = "file";
	for (i = 0; base[i] && i < SPOOL_MAX_BASE; i++)
		buf_addc(out, base_char_ok((unsigned char)base[i]) ? base[i] : '_');
}

static int digits(const char **p, size_t min, size_t max)
{
	size_t n = 0;

	while (**p >= '0' && **p <= '9') {
		(*p)++;
		n++;
	}
	return n >= min && n <= max;
}

int spool_name_is_spool(const char *name)
{
	const char *p = name;

	return digits(&p, 14, 14) && *p++ == '-' && digits(&p, 1, 20) && *p++ == '-' &&
	       digits(&p, 1, 20) && *p++ == '-' && *p;
}

/* A name handed back by a caller: one entry of a spool directory. */
static int check_name(const char *name, struct buf *err)
{
	if (!*name || name[0] == '.' || strchr(name, '/'))
		return err_set(err, "'%s' is not a spool file name", name);
	return 0;
}

static const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- queueing -------------------------------------------------------- */

/* Copies the file at src into the new file tmp (mode 0600) and fsyncs it. */
static int copy_to_tmp(const char *src, const char *tmp, struct buf *err)
{
	char block[65536];
	struct stat sb;
	size_t total = 0;
	int in, out = -1, ret = -1;

	in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return err_set(err, "%s: cannot open: %s", src, strerror(errno));
	if (fstat(in, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		err_set(err, "%s: not a regular file", src);
		goto done;
	}
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0) {
		err_set(err, "%s: cannot create: %s", tmp, strerror(errno));
		goto done;
	}
	for (;;) {
		ssize_t n = read(in, block, sizeof(block));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_set(err, "%s: cannot read: %s", src, strerror(errno));
			goto done;
		}
		if (!n)
			break;
		total += (size_t)n;
		if (total > SPOOL_MAX_FILE) {
			err_set(err, "%s: larger than %u bytes", src, SPOOL_MAX_FILE);
			goto done;
		}
		if (dir_write_all(out, block, (size_t)n) < 0) {
			err_set(err, "%s: cannot write: %s", tmp, strerror(errno));
			goto done;
		}
	}
	if (fsync(out) < 0) {
		err_set(err, "%s: cannot sync: %s", tmp, strerror(errno));
		goto done;
	}
	ret = 0;
done:
	close(in);
	if (out >= 0 && close(out) < 0 && ret == 0)
		ret = err_set(err, "%s: cannot write: %s", tmp, strerror(errno));
	if (ret < 0 && out >= 0)
		unlink(tmp);
	return ret;
}

/*
 * Moves from into incoming/ under a new spool name made from base, never
 * replacing a file.  0 with the name in *name; 1 when from is on another
 * file system (nothing done); -1 with a message.
 */
static int move_in(const char *dir, const char *from, const char *base, int64_t now,
		   struct buf *name, struct buf *err)
{
	struct buf nm = BUF_INIT, to = BUF_INIT;
	int tries, ret = -1;

	for (tries = 0; tries < NAME_TRIES; tries++) {
		buf_reset(&nm);
		name_make(&nm, now, base);
		spool_incoming_path(&to, dir, nm.data);
		if (!move_noreplace(from, to.data)) {
			buf_add(name, nm.data, nm.len);
			ret = 0;
			goto done;
		}
		if (errno == EXDEV || errno == EPERM) {
			ret = 1;
			goto done;
		}
		if (errno != EEXIST) {
			err_set(err, "%s: cannot move to %s: %s", from, to.data, strerror(errno));
			goto done;
		}
	}
	err_set(err, "%s: no free spool name after %d tries", from, NAME_TRIES);
done:
	buf_release(&nm);
	buf_release(&to);
	return ret;
}

/* The cross-file-system path: copy, sync, rename into place. */
static int copy_in(const char *dir, const char *path, int64_t now, struct buf *name,
		   struct buf *err)
{
	struct buf nm = BUF_INIT, tmp = BUF_INIT, tmpname = BUF_INIT;
	int ret = -1;

	name_make(&nm, now, path_base(path));
	buf_addf(&tmpname, ".tmp-%s", nm.data);
	spool_incoming_path(&tmp, dir, tmpname.data);
	if (copy_to_tmp(path, tmp.data, err) < 0)
		goto done;
	ret = move_in(dir, tmp.data, path_base(path), now, name, err);
	if (ret != 0) {
		if (ret > 0)
			err_set(err, "%s: cannot move to incoming/", tmp.data);
		unlink(tmp.data);
		ret = -1;
	}
done:
	buf_release(&nm);
	buf_release(&tmp);
	buf_release(&tmpname);
	return ret;
}

/*
 * In a spool shared with perfbot.spoolGroup (incoming/ is setgid), a file
 * another user queued must be readable by perfbot's user: it gets the
 * folder's group and group read.  A rename keeps a file's group, so the
 * setgid bit alone does not give it.  Nothing to do in a spool of one user.
 */
static int share_file(const char *incoming, const char *file, struct buf *err)
{
	struct stat d, f;

	if (stat(incoming, &d) < 0 || !(d.st_mode & S_ISGID) || stat(file, &f) < 0)
		return 0;
	if ((f.st_gid != d.st_gid && chown(file, (uid_t)-1, d.st_gid) < 0) ||
	    ((f.st_mode & 0040) == 0 && chmod(file, (f.st_mode & 07777) | 0040) < 0))
		return err_set(err, "%s: cannot give it to the spool's group: %s", file, strerror(errno));
	return 0;
}

int spool_share(const char *dir, const char *group, struct buf *err)
{
	static const struct {
		const char *sub;
		mode_t mode;
	} parts[] = {
		{ NULL, 0710 },			/* DIR: others in the group may pass */
		{ "spool", 02710 },
		{ "spool/incoming", 02770 },	/* they may queue and drop files */
		{ "spool/rejected", 02770 },	/* and take rejected ones back */
	};
	struct group *g;
	struct buf path = BUF_INIT;
	size_t i;
	int ret = 0;

	if (!group)
		return 0;
	errno = 0;
	if (!(g = getgrnam(group)))
		return err_set(err, "perfbot.spoolGroup: no group '%s'%s%s", group,
			       errno ? ": " : "", errno ? strerror(errno) : "");
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]) && !ret; i++) {
		struct stat sb;

		buf_reset(&path);
		buf_adds(&path, dir);
		if (parts[i].sub)
			buf_addf(&path, "/%s", parts[i].sub);
		if (dir_make(path.data, 0700, err) < 0 || stat(path.data, &sb) < 0) {
			ret = -1;
			break;
		}
		if ((sb.st_gid != g->gr_gid && chown(path.data, (uid_t)-1, g->gr_gid) < 0) ||
		    ((sb.st_mode & 07777) != parts[i].mode && chmod(path.data, parts[i].mode) < 0))
			ret = err_set(err, "%s: cannot give it to group %s (perfbot.spoolGroup): %s "
				      "(perfbot's user must be a member of the group)",
				      path.data, group, strerror(errno));
	}
	buf_release(&path);
	return ret;
}

int spool_queue_file(const char *dir, const char *path, int64_t now, struct buf *name,
		     struct buf *err)
{
	struct buf incoming = BUF_INIT, srcdir = BUF_INIT, nm = BUF_INIT, dest = BUF_INIT;
	struct stat sb;
	int ret = -1, copied = 0, r;

	if (lstat(path, &sb) < 0)
		return err_set(err, "%s: cannot read: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return err_set(err, "%s: not a regular file%s", path,
			       S_ISLNK(sb.st_mode) ? " but a symbolic link: queue the file it points to" : "");
	if ((uint64_t)sb.st_size > SPOOL_MAX_FILE)
		return err_set(err, "%s: larger than %u bytes", path, SPOOL_MAX_FILE);
	if (spool_mkdirs(dir, "incoming", err) < 0)
		return -1;
	spool_incoming_path(&incoming, dir, NULL);
	path_dir(&srcdir, path);

	r = move_in(dir, path, path_base(path), now, &nm, err);
	if (r > 0) {
		copied = 1;
		r = copy_in(dir, path, now, &nm, err);
	}
	if (r < 0)
		goto done;
	spool_incoming_path(&dest, dir, nm.data);
	if (share_file(incoming.data, dest.data, err) < 0 || dir_sync(incoming.data, err) < 0)
		goto undo;
	/* Only now, with the copy durable in the spool, may the original go. */
	if (copied && unlink(path) < 0) {
		err_set(err, "%s: cannot remove it after copying it into the spool: %s", path,
			strerror(errno));
		goto undo;
	}
	/* The file is in the spool now, so this is no reason to fail: at
	 * worst a crash brings the original back beside its spooled twin. */
	dir_sync(srcdir.data, NULL);
	buf_add(name, nm.data, nm.len);
	ret = 0;
	goto done;
undo:
	/* Keep the promise that a refused file is where it was. */
	if (copied)
		unlink(dest.data);
	else
		move_noreplace(dest.data, path);
done:
	buf_release(&incoming);
	buf_release(&srcdir);
	buf_release(&nm);
	buf_release(&dest);
	return ret;
}

/* ---- listing --------------------------------------------------------- */

/* Calls fn for each regular, non-dot entry of path; a missing directory
 * has none.  Stops at the first nonzero return (returned). */
static int dir_each(const char *path, int (*fn)(int dirfd, const char *name, void *arg),
		    void *arg, struct buf *err)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, "%s: cannot read: %s", path, strerror(errno));
	}
	for (;;) {
		struct stat sb;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				ret = err_set(err, "%s: cannot read: %s", path, strerror(errno));
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;	/* gone meanwhile */
			ret = err_set(err, "%s/%s: %s", path, de->d_name, strerror(errno));
			break;
		}
		if (!S_ISREG(sb.st_mode))
			continue;
		ret = fn(dirfd(d), de->d_name, arg);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

struct list_ctx {
	struct spool_names *names;
	struct buf *err;
};

static int list_one(int dirfd, const char *name, void *arg)
{
	struct list_ctx *ctx = arg;

	(void)dirfd;
	if (ctx->names->nr >= SPOOL_MAX_FILES)
		return err_set(ctx->err, "more than %d files waiting in the spool", SPOOL_MAX_FILES);
	names_push(ctx->names, name);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Gives a producer's file in incoming/ a spool name (renaming in place). */
static int claim(const char *dir, char **name, int64_t now, struct buf *err)
{
	struct buf from = BUF_INIT, nm = BUF_INIT;
	int ret;

	spool_incoming_path(&from, dir, *name);
	ret = move_in(dir, from.data, *name, now, &nm, err);
	if (ret > 0)
		ret = err_set(err, "%s: cannot rename within incoming/", from.data);
	if (!ret) {
		free(*name);
		*name = buf_detach(&nm, NULL);
	}
	buf_release(&from);
	buf_release(&nm);
	return ret;
}

int spool_list_incoming(const char *dir, int64_t now, struct spool_names *out,
			struct buf *err)
{
	struct spool_names found = { 0 };
	struct list_ctx ctx = { &found, err };
	struct buf path = BUF_INIT;
	size_t i;
	int claimed = 0, ret = -1;

	spool_incoming_path(&path, dir, NULL);
	if (dir_each(path.data, list_one, &ctx, err))
		goto done;
	for (i = 0; i < found.nr; i++) {
		if (spool_name_is_spool(found.v[i]))
			continue;
		if (claim(dir, &found.v[i], now, err) < 0)
			goto done;
		claimed = 1;
	}
	if (claimed && dir_sync(path.data, err) < 0)
		goto done;
	if (found.nr)
		xqsort(found.v, found.nr, sizeof(*found.v), cmp_names);
	for (i = 0; i < found.nr; i++) {
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr++] = found.v[i];
	}
	found.nr = 0;
	ret = 0;
done:
	spool_names_release(&found);
	buf_release(&path);
	return ret;
}

int spool_peek_incoming(const char *dir, struct spool_names *out, struct buf *err)
{
	struct list_ctx ctx = { out, err };
	struct buf path = BUF_INIT;
	size_t first = out->nr;
	int ret;

	spool_incoming_path(&path, dir, NULL);
	ret = dir_each(path.data, list_one, &ctx, err) ? -1 : 0;
	if (out->nr > first)
		xqsort(out->v + first, out->nr - first, sizeof(*out->v), cmp_names);
	buf_release(&path);
	return ret;
}

/* ---- rejecting and removing ------------------------------------------ */

int spool_reject(const char *dir, const char *name, const char *why, struct buf *rejected,
		 struct buf *err)
{
	struct buf from = BUF_INIT, to = BUF_INIT, whypath = BUF_INIT, target = BUF_INIT;
	struct buf text = BUF_INIT, rdir = BUF_INIT;
	unsigned int n;
	int ret = -1;

	if (check_name(name, err) < 0)
		return -1;
	if (strlen(why) > SPOOL_MAX_WHY)
		return err_set(err, "%s: the reason is longer than %d bytes", name, SPOOL_MAX_WHY);
	if (spool_mkdirs(dir, "rejected", err) < 0)
		return -1;
	spool_incoming_path(&from, dir, name);
	spool_path(&rdir, dir, "rejected", NULL);
	if (access(from.data, F_OK) < 0) {
		err_set(err, "%s: cannot reject: %s", from.data, strerror(errno));
		goto done;
	}
	/* A NAME.why without NAME is left by a run that died between the two
	 * steps below: that name is free and the reason is rewritten. */
	for (n = 0;; n++) {
		buf_reset(&target);
		if (n)
			buf_addf(&target, "%u-", n);
		buf_adds(&target, name);
		spool_path(&to, dir, "rejected", target.data);
		if (access(to.data, F_OK) < 0 && errno == ENOENT)
			break;
		if (n >= NAME_TRIES) {
			err_set(err, "%s: no free name in %s", name, rdir.data);
			goto done;
		}
	}
	buf_addf(&whypath, "%s.why", to.data);
	buf_adds(&text, why);
	if (!text.len || text.data[text.len - 1] != '\n')
		buf_addc(&text, '\n');
	if (dir_write_file(whypath.data, text.data, text.len, err) < 0)
		goto done;
	if (move_noreplace(from.data, to.data) < 0) {
		err_set(err, "%s: cannot move to %s: %s", from.data, to.data, strerror(errno));
		goto done;
	}
	spool_incoming_path(&from, dir, NULL);
	if (dir_sync(rdir.data, err) < 0 || dir_sync(from.data, err) < 0)
		goto done;
	if (rejected)
		buf_add(rejected, target.data, target.len);
	ret = 0;
done:
	buf_release(&from);
	buf_release(&to);
	buf_release(&whypath);
	buf_release(&target);
	buf_release(&text);
	buf_release(&rdir);
	return ret;
}

int spool_done(const char *dir, const char *name, struct buf *err)
{
	struct buf path = BUF_INIT;
	int ret = -1;

	if (check_name(name, err) < 0)
		return -1;
	spool_incoming_path(&path, dir, name);
	if (unlink(path.data) < 0 && errno != ENOENT) {
		err_set(err, "%s: cannot remove: %s", path.data, strerror(errno));
		goto done;
	}
	spool_incoming_path(&path, dir, NULL);
	ret = dir_sync(path.data, err);
done:
	buf_release(&path);
	return ret;
}

/* The spool name a rejected file had: spool_reject() puts "N-" in front
 * when rejected/ held the name already. */
static const char *unrejected_name(const char *name)
{
	const char *p = name;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p > name && *p == '-' && spool_name_is_spool(p + 1))
		return p + 1;
	return name;
}

int spool_requeue(const char *dir, const char *name, struct buf *queued, struct buf *err)
{
	struct buf from = BUF_INIT, to = BUF_INIT, why = BUF_INIT, rdir = BUF_INIT, idir = BUF_INIT;
	const char *target = unrejected_name(name);
	size_t len = strlen(name);
	struct stat sb;
	int ret = -1;

	if (check_name(name, err) < 0)
		return -1;
	if (len > 4 && !strcmp(name + len - 4, ".why"))
		return err_set(err, "%s is the reason of a rejected file, not one: name the file itself",
			       name);
	spool_path(&from, dir, "rejected", name);
	spool_path(&rdir, dir, "rejected", NULL);
	spool_incoming_path(&idir, dir, NULL);
	if (lstat(from.data, &sb) < 0) {
		err_set(err, "%s: %s (perfbot status counts the rejected files; they are in %s)", from.data,
			strerror(errno), rdir.data);
		goto done;
	}
	if (!S_ISREG(sb.st_mode)) {
		err_set(err, "%s: not a regular file", from.data);
		goto done;
	}
	if (spool_mkdirs(dir, "incoming", err) < 0)
		goto done;
	spool_incoming_path(&to, dir, target);
	/* the file first, then its reason: a kill between the two leaves a
	 * .why alone, which spool_reject() takes as a free name */
	if (move_noreplace(from.data, to.data) < 0) {
		err_set(err, "%s: cannot move to %s: %s", from.data, to.data, strerror(errno));
		goto done;
	}
	if (dir_sync(idir.data, err) < 0)
		goto done;
	buf_addf(&why, "%s.why", from.data);
	if (unlink(why.data) < 0 && errno != ENOENT) {
		err_set(err, "%s: cannot remove: %s", why.data, strerror(errno));
		goto done;
	}
	if (dir_sync(rdir.data, err) < 0)
		goto done;
	if (queued)
		buf_adds(queued, target);
	ret = 0;
done:
	buf_release(&from);
	buf_release(&to);
	buf_release(&why);
	buf_release(&rdir);
	buf_release(&idir);
	return ret;
}

/* ---- counting -------------------------------------------------------- */

struct count_ctx {
	size_t n;
	int skip_why;
};

static int count_one(int dirfd, const char *name, void *arg)
{
	struct count_ctx *ctx = arg;
	size_t len = strlen(name);

	(void)dirfd;
	if (ctx->skip_why && len > 4 && !strcmp(name + len - 4, ".why"))
		return 0;
	ctx->n++;
	return 0;
}

int spool_count(const char *dir, size_t *incoming, size_t *rejected, struct buf *err)
{
	struct count_ctx in = { 0, 0 }, rej = { 0, 1 };
	struct buf path = BUF_INIT;
	int ret = -1;

	*incoming = *rejected = 0;
	spool_path(&path, dir, "incoming", NULL);
	if (dir_each(path.data, count_one, &in, err))
		goto done;
	spool_path(&path, dir, "rejected", NULL);
	if (dir_each(path.data, count_one, &rej, err))
		goto done;
	*incoming = in.n;
	*rejected = rej.n;
	ret = 0;
done:
	buf_release(&path);
	return ret;
}
