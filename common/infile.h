/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input files of a capture, read as root from directories that came off
 * other machines: inside a capture directory only regular files of bounded
 * size are read (a FIFO would block for ever, /dev/zero never ends); a FIFO
 * or a device named on the command line is read as the stream it is.
 */
#ifndef MMLOCK_INFILE_H
#define MMLOCK_INFILE_H

#include <stddef.h>

/* infile_open() / infile_read() flags */
#define INFILE_REGULAR	0x1	/* refuse anything but a regular file (errno ENOTBLK) */

/**
 * infile_open() - open @path for reading
 * @dirfd: directory @path is relative to (AT_FDCWD: the working directory)
 * @path: the file
 * @flags: INFILE_REGULAR for a file inside a capture directory: it is opened
 *	without blocking (a FIFO would wait for a writer) and refused unless
 *	it is a regular file
 *
 * Return: a file descriptor (blocking, close-on-exec), or -1 with errno set;
 * ENOTBLK means "not a regular file" (infile_strerror() says so).
 */
int infile_open(int dirfd, const char *path, int flags);

/**
 * infile_read() - the whole of @path, at most @max bytes, NUL-terminated
 * @dirfd: as for infile_open()
 * @path: the file
 * @max: the most a sane file of this kind holds
 * @len: set to the length read (may be NULL)
 * @flags: as for infile_open()
 *
 * Return: a buffer to free(), or NULL with errno set (EFBIG: longer than
 * @max; ENOTBLK: not a regular file).
 */
char *infile_read(int dirfd, const char *path, size_t max, size_t *len, int flags);

/**
 * infile_strerror() - strerror() that names infile_open()'s ENOTBLK and EFBIG
 * @err: an errno value
 *
 * Return: a static message.
 */
const char *infile_strerror(int err);

#endif /* MMLOCK_INFILE_H */
