#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secret.h"
#include "xalloc.h"
#include "banned.h"

int secret_read_file(const char *path, char **out, struct buf *err)
{
	struct stat sb;
	char buf[SECRET_MAX + 2];
	ssize_t n;
	size_t len;
	int fd;

	*out = NULL;
	/* O_NOFOLLOW: a link could point anywhere; fstat after open: no race */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, "%s: cannot open the password file: %s", path, strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return err_set(err, "%s: the password file must be a regular file", path);
	}
	if (sb.st_uid != geteuid()) {
		close(fd);
		return err_set(err, "%s: the password file must be owned by the user perfbot runs as (uid %u), not uid %u",
			       path, (unsigned)geteuid(), (unsigned)sb.st_uid);
	}
	if (sb.st_mode & 077) {
		close(fd);
		return err_set(err, "%s: the password file can be read by others (mode %04o): chmod 600 %s",
			       path, (unsigned)(sb.st_mode & 07777), path);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return err_set(err, "%s: cannot read the password file: %s", path, strerror(errno));
	len = (size_t)n;
	buf[len] = '\0';
	len = strcspn(buf, "\r\n");
	if (len > SECRET_MAX || memchr(buf, '\0', len)) {
		memset(buf, 0, sizeof(buf));
		return err_set(err, "%s: the password is longer than %d bytes or holds a NUL byte", path, SECRET_MAX);
	}
	if (!len)
		return err_set(err, "%s: the password file is empty", path);
	*out = xmemdup(buf, len);
	memset(buf, 0, sizeof(buf));
	return 0;
}

void secret_free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}
