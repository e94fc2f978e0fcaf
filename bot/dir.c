#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dir.h"
#include "banned.h"

/* mkdir(path) unless it is a folder already: 0, 1 when its parent is
 * missing, or -1. */
static int make_one(const char *path, mode_t mode, struct buf *err)
{
	struct stat sb;

	if (!mkdir(path, mode))
		return 0;
	if (errno == ENOENT)
		return 1;
	if (errno != EEXIST)
		return err_set(err, "%s: cannot create the folder: %s", path, strerror(errno));
	if (stat(path, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return err_set(err, "%s: not a folder", path);
	return 0;
}

int dir_make(const char *path, mode_t mode, struct buf *err)
{
	struct buf part = BUF_INIT;
	size_t i;
	int r = make_one(path, mode, err);

	if (r <= 0)
		return r;
	/* a parent is missing: make each level from the top down */
	buf_adds(&part, path);
	for (i = 1; i < part.len; i++) {
		if (part.data[i] != '/' || part.data[i - 1] == '/')
			continue;
		part.data[i] = '\0';
		r = make_one(part.data, mode, err);
		part.data[i] = '/';
		if (r < 0)
			break;
	}
	if (r >= 0 && (r = make_one(path, mode, err)) > 0)
		r = err_set(err, "%s: cannot create the folder: %s", path, strerror(ENOENT));
	buf_release(&part);
	return r;
}

int dir_sync(const char *path, struct buf *err)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return err_set(err, "%s: cannot open: %s", path, strerror(errno));
	if (fsync(fd) < 0)
		ret = err_set(err, "%s: cannot sync: %s", path, strerror(errno));
	close(fd);
	return ret;
}

/* Parts a writev() call takes at most (IOV_MAX on Linux). */
#define DIR_IOV_MAX 1024

int dir_writev_all(int fd, const struct iovec *iov, size_t nr)
{
	struct iovec win[DIR_IOV_MAX];
	size_t first, n, i;

	for (first = 0; first < nr; first += n) {
		n = nr - first < DIR_IOV_MAX ? nr - first : DIR_IOV_MAX;
		memcpy(win, iov + first, n * sizeof(*win));
		for (i = 0; i < n;) {
			ssize_t w;

			if (!win[i].iov_len) {
				i++;
				continue;
			}
			w = writev(fd, win + i, (int)(n - i));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				if (w == 0)
					errno = EIO;
				return -1;
			}
			/* past the parts written whole, into the one cut */
			while (i < n && (size_t)w >= win[i].iov_len)
				w -= (ssize_t)win[i++].iov_len;
			if (i < n) {
				win[i].iov_base = (char *)win[i].iov_base + w;
				win[i].iov_len -= (size_t)w;
			}
		}
	}
	return 0;
}

int dir_write_all(int fd, const void *p, size_t n)
{
	struct iovec one = { (void *)(uintptr_t)p, n };

	return dir_writev_all(fd, &one, 1);
}

int dir_write_file(const char *path, const char *data, size_t len, struct buf *err)
{
	return dir_write_file_mode(path, data, len, 0600, 1, err);
}

int dir_write_file_mode(const char *path, const char *data, size_t len, mode_t mode, int sync,
			struct buf *err)
{
	struct iovec one = { (void *)(uintptr_t)data, len };

	return dir_write_file_modev(path, &one, 1, mode, sync, err);
}

int dir_write_file_modev(const char *path, const struct iovec *iov, size_t nr, mode_t mode,
			 int sync, struct buf *err)
{
	struct buf tmp = BUF_INIT;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int fd, ret = -1;

	buf_add(&tmp, path, (size_t)(base - path));
	buf_addf(&tmp, ".tmp-%s", base);
	unlink(tmp.data);	/* left by a run that died */
	fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		err_set(err, "%s: cannot create: %s", tmp.data, strerror(errno));
		goto done;
	}
	if (dir_writev_all(fd, iov, nr) < 0 || (sync && fsync(fd) < 0)) {
		err_set(err, "%s: cannot write: %s", tmp.data, strerror(errno));
		close(fd);
		unlink(tmp.data);
		goto done;
	}
	if (close(fd) < 0 || rename(tmp.data, path) < 0) {
		err_set(err, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp.data);
		goto done;
	}
	ret = 0;
done:
	buf_release(&tmp);
	return ret;
}

int dir_map_file(const char *path, size_t max, const void **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat sb;
	void *m = NULL;

	*data = NULL;
	*len = 0;
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > max ||
	    (sb.st_size > 0 &&
	     (m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)) {
		close(fd);
		return 0;
	}
	close(fd);
	*data = m;
	*len = (size_t)sb.st_size;
	return 1;
}

void dir_unmap_file(const void *data, size_t len)
{
	if (data)
		munmap((void *)(uintptr_t)data, len);
}

int dir_write_new_file(const char *path, const char *data, size_t len, mode_t mode,
		       struct buf *err)
{
	struct iovec one = { (void *)(uintptr_t)data, len };

	return dir_write_new_filev(path, &one, 1, mode, err);
}

int dir_write_new_filev(const char *path, const struct iovec *iov, size_t nr, mode_t mode,
			struct buf *err)
{
	const char *slash = strrchr(path, '/');
	struct buf folder = BUF_INIT;
	char proc[64];
	int fd, named = 0;

	buf_add(&folder, path, slash ? (size_t)(slash - path) : 1);
	if (!slash)
		buf_reset(&folder), buf_addc(&folder, '.');
	fd = open(folder.data, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	buf_release(&folder);
	if (fd >= 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		/* a write that fails here fails the same way below, with a
		 * message */
		named = dir_writev_all(fd, iov, nr) == 0 &&
			linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0;
		close(fd);
	}
	return named ? 0 : dir_write_file_modev(path, iov, nr, mode, 0, err);
}

/* ".spare-BASE" + suffix beside path. */
static void spare_name(struct buf *out, const char *path, const char *suffix)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	buf_add(out, path, (size_t)(base - path));
	buf_addf(out, ".spare-%s%s", base, suffix);
}

/* The parts written into the spare open at fd, in place, under a write
 * lease (no one else has it open, nor can open it meanwhile): 0, or -1. */
static int spare_fill(int fd, const struct iovec *iov, size_t nr)
{
	struct stat sb;
	off_t len = 0;
	size_t i;
	int ret = -1;

	for (i = 0; i < nr; i++)
		len += (off_t)iov[i].iov_len;
	/* only a spare: not a file with another name too */
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1 ||
	    fcntl(fd, F_SETLEASE, F_WRLCK) < 0)
		return -1;
	if (lseek(fd, 0, SEEK_SET) == 0 && dir_writev_all(fd, iov, nr) == 0 &&
	    (len >= sb.st_size || ftruncate(fd, len) == 0))
		ret = 0;
	fcntl(fd, F_SETLEASE, F_UNLCK);
	return ret;
}

int dir_write_file_spare(const char *path, const char *data, size_t len, mode_t mode,
			 struct buf *err)
{
	struct iovec one = { (void *)(uintptr_t)data, len };

	return dir_write_file_sparev(path, &one, 1, mode, err);
}

int dir_write_file_sparev(const char *path, const struct iovec *iov, size_t nr, mode_t mode,
			  struct buf *err)
{
	struct buf spare = BUF_INIT, next = BUF_INIT;
	int fd, filled = 0, kept, ret = 0;

	spare_name(&spare, path, "");
	spare_name(&next, path, ".next");
	/* O_NONBLOCK: a lease someone else holds on it fails the open
	 * rather than waiting for them */
	fd = open(spare.data, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd >= 0) {
		filled = spare_fill(fd, iov, nr) == 0;
		close(fd);
	}
	/* the file replaced: kept (as the next spare) rather than freed */
	unlink(next.data);	/* left by a run that died */
	kept = link(path, next.data) == 0;
	if (filled && rename(spare.data, path) < 0)
		ret = err_set(err, "%s: cannot write: %s", path, strerror(errno));
	else if (!filled)
		ret = dir_write_file_modev(path, iov, nr, mode, 0, err);
	if (kept && (ret < 0 || rename(next.data, spare.data) < 0))
		unlink(next.data);	/* path still has it, or it is lost */
	buf_release(&spare);
	buf_release(&next);
	return ret;
}

void dir_remove_spare(const char *path)
{
	struct buf b = BUF_INIT;

	spare_name(&b, path, "");
	unlink(b.data);
	buf_reset(&b);
	spare_name(&b, path, ".next");
	unlink(b.data);
	buf_release(&b);
}
