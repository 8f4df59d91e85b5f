// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded, regular-file-only reads of capture files: see infile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infile.h"
#include "util.h"

int infile_open(int dirfd, const char *path, int flags)
{
	int regular = flags & INFILE_REGULAR;
	struct stat st;
	int fd, err;

	fd = openat(dirfd, path, O_RDONLY | O_NOCTTY | O_CLOEXEC | (regular ? O_NONBLOCK : 0));
	if (fd < 0)
		return -1;
	if (regular) {
		if (fstat(fd, &st))
			goto fail;
		if (!S_ISREG(st.st_mode)) {
			errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTBLK;
			goto fail;
		}
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
			goto fail;
	}
	return fd;

fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

char *infile_read(int dirfd, const char *path, size_t max, size_t *len, int flags)
{
	size_t used = 0, cap = 4096;
	char *buf;
	int fd, err;

	fd = infile_open(dirfd, path, flags);
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap + 1);
	for (;;) {
		ssize_t n;

		if (used == cap) {
			if (cap > max) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		n = read(fd, buf + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			errno = EFBIG;
			goto fail;
		}
	}
	close(fd);
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;

fail:
	err = errno;
	close(fd);
	free(buf);
	errno = err;
	return NULL;
}

const char *infile_strerror(int err)
{
	if (err == ENOTBLK)
		return "not a regular file (a FIFO, device or socket inside a capture is refused)";
	if (err == EFBIG)
		return "too large for what it should hold";
	return strerror(err);
}
