#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
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
