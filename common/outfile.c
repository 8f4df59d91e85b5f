// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic, root-safe output files: see outfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

#define TMP_TRIES	64

static void random_tag(char *buf, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[16];
	size_t i;

	if (n > sizeof(rnd))
		n = sizeof(rnd);
	if (getrandom(rnd, n, GRND_NONBLOCK) != (ssize_t)n) {
		/* no entropy yet (early boot): unpredictable enough with O_EXCL */
		static unsigned long counter;
		struct timespec ts;
		unsigned long x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^ ++counter;
		for (i = 0; i < n; i++, x = x * 6364136223846793005UL + 1442695040888963407UL)
			rnd[i] = (unsigned char)(x >> 33);
	}
	for (i = 0; i < n; i++)
		buf[i] = set[rnd[i] % (sizeof(set) - 1)];
	buf[n] = '\0';
}

/* Split @path into a directory (opened) and a last component. */
static int open_parent(struct outfile *of, int dirfd, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!*path || (slash && !slash[1])) {
		errno = !*path ? ENOENT : EISDIR;
		return -1;
	}
	if (!slash) {
		of->name = xstrdup(path);
		of->dirfd = dirfd;
		of->own_dirfd = 0;
		if (dirfd == AT_FDCWD) {
			of->dirfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (of->dirfd < 0)
				return -1;
			of->own_dirfd = 1;
		}
		return 0;
	}
	dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	of->dirfd = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (of->dirfd < 0)
		return -1;
	of->own_dirfd = 1;
	of->name = xstrdup(slash + 1);
	return 0;
}

static void release(struct outfile *of)
{
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	if (of->own_dirfd && of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	of->own_dirfd = 0;
	free(of->name);
	free(of->tmp);
	of->name = of->tmp = NULL;
}

/*
 * A symbolic link at the target: followed only when root or the caller owns
 * it (anyone else's link in a shared directory is how a root process gets
 * tricked into overwriting /etc/shadow).  Returns the resolved path.
 */
static char *follow_link(int dirfd, const char *path, const struct stat *lst)
{
	char *resolved;

	if (lst->st_uid != 0 && lst->st_uid != geteuid()) {
		errno = EPERM;
		return NULL;
	}
	if (dirfd == AT_FDCWD || *path == '/') {
		resolved = realpath(path, NULL);
	} else {
		char *p = xasprintf("/proc/self/fd/%d/%s", dirfd, path);

		resolved = realpath(p, NULL);
		free(p);
	}
	if (!resolved && errno == ENOENT)
		errno = ELOOP;	/* a link to nothing: where would it be written? */
	return resolved;
}

/*
 * A link that names no path but an open pipe or socket: /dev/stdout when
 * standard output is a pipe (/proc/self/fd/1 reads "pipe:[N]").  Nothing
 * can be overwritten through it, so it is written in place.  Returns 0 with
 * of->fd open, or -1 (errno ELOOP) for anything else.
 */
static int open_stream_link(struct outfile *of, int dirfd, const char *path)
{
	struct stat st;
	int fd = openat(dirfd, path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0 && !fstat(fd, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		of->fd = fd;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	errno = ELOOP;
	return -1;
}

int outfile_open(struct outfile *of, int dirfd, const char *path, const char *suffix,
		 int flags)
{
	char *resolved = NULL;
	struct stat st;
	int tries, err;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->dirfd = -1;
	of->flags = flags;
	if (!suffix)
		suffix = ".tmp";
	if (open_parent(of, dirfd, path))
		goto fail;
	if (!fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)) {
		if (flags & (OUTFILE_NO_REPLACE | OUTFILE_REGULAR_ONLY)) {
			errno = EEXIST;
			goto fail;
		}
		resolved = follow_link(dirfd, path, &st);
		if (!resolved && errno == ELOOP && !open_stream_link(of, dirfd, path))
			return 0;
		if (!resolved)
			goto fail;
		release(of);
		err = open_parent(of, AT_FDCWD, resolved);
		free(resolved);
		if (err)
			goto fail;
		if (!fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode)) {
			errno = ELOOP;	/* replaced by a link while resolving */
			goto fail;
		}
	}
	if (!fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (flags & OUTFILE_NO_REPLACE) {
			errno = EEXIST;
			goto fail;
		}
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			if ((flags & OUTFILE_REGULAR_ONLY) ||
			    !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
				errno = EEXIST;
				goto fail;
			}
			/* a device or a FIFO: written in place, never replaced */
			of->fd = openat(of->dirfd, of->name,
					O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
			if (of->fd < 0)
				goto fail;
			if (fstat(of->fd, &st) || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
				errno = EEXIST;	/* swapped for another kind while opening */
				goto fail;
			}
			return 0;
		}
	} else if (errno != ENOENT) {
		goto fail;
	}
	for (tries = 0; tries < TMP_TRIES; tries++) {
		char tag[8];

		random_tag(tag, 6);
		free(of->tmp);
		of->tmp = xasprintf("%s.%s%s", of->name, tag, suffix);
		of->fd = openat(of->dirfd, of->tmp,
				O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (of->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	free(of->tmp);
	of->tmp = NULL;
fail:
	err = errno;
	release(of);
	errno = err;
	return -1;
}

int outfile_write(struct outfile *of, const void *buf, size_t len)
{
	return write_all(of->fd, buf, len);
}

void outfile_abort(struct outfile *of)
{
	int err = errno;

	if (of->fd >= 0) {
		close(of->fd);
		of->fd = -1;
	}
	if (of->tmp && of->dirfd >= 0)
		unlinkat(of->dirfd, of->tmp, 0);
	release(of);
	errno = err;
}

int outfile_commit(struct outfile *of)
{
	int sync = !(of->flags & OUTFILE_NO_FSYNC);
	struct stat st;

	if (of->fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (!of->tmp) {
		/* in place: a device or FIFO may not support fsync (EINVAL) */
		if (sync && fsync(of->fd) && errno != EINVAL && errno != EROFS)
			goto fail;
		if (close(of->fd)) {
			of->fd = -1;
			goto fail;
		}
		of->fd = -1;
		release(of);
		return 0;
	}
	if (sync && fsync(of->fd))
		goto fail;
	if (close(of->fd)) {
		of->fd = -1;
		goto fail;
	}
	of->fd = -1;
	/* what stands at the target now must still be a regular file, or nothing */
	if (!fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (of->flags & OUTFILE_NO_REPLACE) {
			errno = EEXIST;
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
			goto fail;
		}
	} else if (errno != ENOENT) {
		goto fail;
	}
	if (of->flags & OUTFILE_NO_REPLACE) {
		if (renameat2(of->dirfd, of->tmp, of->dirfd, of->name, RENAME_NOREPLACE))
			goto fail;
	} else if (renameat(of->dirfd, of->tmp, of->dirfd, of->name)) {
		goto fail;
	}
	free(of->tmp);
	of->tmp = NULL;
	if (sync)
		fsync(of->dirfd);
	release(of);
	return 0;

fail:
	outfile_abort(of);
	return -1;
}

int outfile_write_all(int dirfd, const char *path, const void *buf, size_t len, int flags)
{
	struct outfile of;

	if (outfile_open(&of, dirfd, path, NULL, flags))
		return -1;
	if (outfile_write(&of, buf, len)) {
		outfile_abort(&of);
		return -1;
	}
	return outfile_commit(&of);
}
