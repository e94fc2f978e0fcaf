#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source-maildir.h"
#include "xalloc.h"
#include "banned.h"

struct maildir {
	char *dir;
	int new_fd, cur_fd;
	char **names;		/* from new/, in delivery order */
	size_t nr, alloc, next;
};

static int open_subdir(const char *dir, const char *sub, int *fd, struct buf *err)
{
	struct buf path = BUF_INIT;

	buf_addf(&path, "%s/%s", dir, sub);
	*fd = open(path.data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		err_set(err, "%s: %s (a Maildir has new/, cur/ and tmp/)", path.data, strerror(errno));
	buf_release(&path);
	return *fd < 0 ? -1 : 0;
}

/* A name in new/ and when it was delivered. */
struct arrival {
	char *name;
	struct timespec when;
};

/* Delivery order, then name: a reply is read after the mail it answers
 * when both wait in new/ (names alone order mails of one second by inode
 * or host, not by time). */
static int arrival_cmp(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->when.tv_sec != y->when.tv_sec)
		return x->when.tv_sec < y->when.tv_sec ? -1 : 1;
	if (x->when.tv_nsec != y->when.tv_nsec)
		return x->when.tv_nsec < y->when.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void sort_by_arrival(struct maildir *md)
{
	struct arrival *v = xcalloc(md->nr, sizeof(*v));
	size_t i;

	for (i = 0; i < md->nr; i++) {
		struct stat sb;

		v[i].name = md->names[i];
		if (fstatat(md->new_fd, v[i].name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			v[i].when = sb.st_mtim;
	}
	xqsort(v, md->nr, sizeof(*v), arrival_cmp);
	for (i = 0; i < md->nr; i++)
		md->names[i] = v[i].name;
	free(v);
}

static int list_new(struct maildir *md, struct buf *err)
{
	int fd = dup(md->new_fd);
	struct dirent *de;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return err_set(err, "%s/new: %s", md->dir, strerror(errno));
	}
	/* Each run starts at the beginning: a dup'd descriptor shares the offset. */
	rewinddir(d);
	while (md->nr < MAILDIR_MAX_NAMES) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		/* Dot files are not mail (Maildir++ keeps its own state there);
		 * other file types are checked when the file is opened. */
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
			continue;
		ALLOC_GROW(md->names, md->nr + 1, md->alloc);
		md->names[md->nr++] = xstrdup(de->d_name);
	}
	if (errno) {
		err_set(err, "%s/new: %s", md->dir, strerror(errno));
		closedir(d);
		return -1;
	}
	closedir(d);
	if (md->nr > 1)
		sort_by_arrival(md);
	return 0;
}

int maildir_open(const char *dir, struct maildir **out, struct buf *err)
{
	struct maildir *md = xcalloc(1, sizeof(*md));

	*out = NULL;
	md->dir = xstrdup(dir);
	md->new_fd = md->cur_fd = -1;
	if (open_subdir(dir, "new", &md->new_fd, err) < 0 ||
	    open_subdir(dir, "cur", &md->cur_fd, err) < 0 ||
	    list_new(md, err) < 0) {
		maildir_free(md);
		return -1;
	}
	*out = md;
	return 0;
}

void maildir_free(struct maildir *md)
{
	size_t i;

	if (!md)
		return;
	if (md->new_fd >= 0) {
		fsync(md->new_fd);
		close(md->new_fd);
	}
	if (md->cur_fd >= 0) {
		fsync(md->cur_fd);
		close(md->cur_fd);
	}
	for (i = 0; i < md->nr; i++)
		free(md->names[i]);
	free(md->names);
	free(md->dir);
	free(md);
}

/* Reads the regular file name in new/: 1 read, 0 skipped (gone or not a
 * regular file), -1 error. */
static int read_one(struct maildir *md, const char *name, struct buf *msg, size_t limit,
		    size_t *size, struct buf *err)
{
	struct stat st;
	int fd, r = 1;

	/* O_NOFOLLOW: a symbolic link in new/ must not make perfbot read
	 * (and archive) a file elsewhere; O_NONBLOCK: nor a FIFO hang it. */
	fd = openat(md->new_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ELOOP)
			return 0;
		return err_set(err, "%s/new/%s: %s", md->dir, name, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		r = err_set(err, "%s/new/%s: %s", md->dir, name, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		r = 0;
	} else if ((uintmax_t)st.st_size > limit) {
		*size = (size_t)st.st_size;
	} else if (buf_read_fd(msg, fd, limit, err) < 0) {
		r = err_prefix(err, "%s/new/%s: ", md->dir, name);
	} else {
		*size = msg->len;
	}
	close(fd);
	return r;
}

int maildir_next(struct maildir *md, const char **name, struct buf *msg, size_t limit,
		 size_t *size, struct buf *err)
{
	while (md->next < md->nr) {
		const char *n = md->names[md->next++];
		int r;

		buf_reset(msg);
		r = read_one(md, n, msg, limit, size, err);
		if (r < 0)
			return -1;
		if (r > 0) {
			*name = n;
			return 1;
		}
	}
	return 0;
}

static int plain_name(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/') &&
	       strlen(name) <= NAME_MAX;
}

/* Never replaces a file already in cur/ (that would lose a message);
 * plain rename where the file system cannot promise that. */
static int move(struct maildir *md, const char *from, const char *to)
{
	if (renameat2(md->new_fd, from, md->cur_fd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	return renameat(md->new_fd, from, md->cur_fd, to);
}

int maildir_take(struct maildir *md, const char *name, struct buf *err)
{
	struct buf to = BUF_INIT;
	int r = 0;

	if (!plain_name(name))
		return err_set(err, "%s: not a file name in %s/new", name, md->dir);
	buf_adds(&to, name);
	/* ":2," marks the info part (no flags yet); a name that already has
	 * one keeps its flags. */
	if (!strchr(name, ':'))
		buf_adds(&to, ":2,");
	if (to.len > NAME_MAX)
		r = err_set(err, "%s/new/%s: the name is too long to add \":2,\"", md->dir, name);
	else if (move(md, name, to.data) < 0)
		r = err_set(err, "%s/new/%s: cannot move it to cur/: %s", md->dir, name,
			    strerror(errno));
	/* No fsync per mail: a move lost to an operating-system crash only
	 * shows the mail in new/ again, and ingest knows it by its Message-ID.
	 * maildir_free() syncs both folders once. */
	buf_release(&to);
	return r;
}
