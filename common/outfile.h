/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files that a reader sees complete or not at all, safe to write as
 * root into a directory other users can write to.
 *
 * A regular target is written to a new temporary file in its own directory,
 * created exclusively under a random name (O_CREAT | O_EXCL | O_NOFOLLOW:
 * never a file or a symbolic link someone planted), fsynced, then renamed
 * over the target.  Nothing is ever renamed over something that is not a
 * regular file.  A character device or a FIFO (-o /dev/null, -o /dev/stdout
 * through its link, a pipe) is written in place, as a shell redirection
 * would.  A symbolic link at the target is followed only when its owner is
 * root or the caller, the rule fs.protected_symlinks applies in sticky
 * directories; anyone else's link is refused.
 *
 *	struct outfile of;
 *
 *	if (outfile_open(&of, AT_FDCWD, path, NULL, 0) ||
 *	    outfile_write(&of, text, len) || outfile_commit(&of))
 *		...report strerror(errno), the target is untouched...
 *
 * Every function returns 0, or -1 with errno set; on failure the temporary
 * file is gone and the target is as it was.
 */
#ifndef MMLOCK_OUTFILE_H
#define MMLOCK_OUTFILE_H

#include <stddef.h>
#include <sys/types.h>

/* outfile_open() flags */
#define OUTFILE_NO_FSYNC	0x1	/* skip fsync of the file and of its directory */
#define OUTFILE_NO_REPLACE	0x2	/* the target must not exist yet (EEXIST) */
#define OUTFILE_REGULAR_ONLY	0x4	/* a device or FIFO target is refused (EEXIST) */

/**
 * struct outfile - one output file being written
 * @fd: write here (or use outfile_write())
 * @dirfd: the directory holding the target
 * @name: the target's name inside @dirfd
 * @tmp: the temporary file's name inside @dirfd; NULL when written in place
 * @flags: the OUTFILE_* flags given to outfile_open()
 * @own_dirfd: @dirfd was opened by outfile_open() and is closed with it
 */
struct outfile {
	int		fd;
	int		dirfd;
	char		*name;
	char		*tmp;
	int		flags;
	int		own_dirfd;
};

/**
 * outfile_open() - start writing @path
 * @of: filled in
 * @dirfd: directory @path is relative to (AT_FDCWD for the working directory)
 * @path: the target
 * @suffix: the temporary file's name is "@path.XXXXXX@suffix" (XXXXXX random);
 *	NULL means ".tmp".  A chunk writer passes ".part" so that a reader of
 *	the directory recognises an unfinished chunk.
 * @flags: OUTFILE_* flags
 *
 * Errors (errno): EISDIR (@path is a directory), EEXIST (a target that must
 * not exist, or one that is neither regular nor allowed in place), EPERM
 * (a symbolic link owned by someone else), ELOOP (a dangling link), and
 * whatever creating the temporary file gives (ENOENT, EACCES, EROFS, ENOSPC).
 *
 * Return: 0, or -1 with errno set.
 */
int outfile_open(struct outfile *of, int dirfd, const char *path, const char *suffix,
		 int flags);

/**
 * outfile_write() - append @len bytes of @buf (short writes and EINTR retried)
 * @of: an open output file
 * @buf: the bytes
 * @len: how many
 *
 * Return: 0, or -1 with errno set (ENOSPC, EIO, EPIPE, ...).
 */
int outfile_write(struct outfile *of, const void *buf, size_t len);

/**
 * outfile_commit() - make the written file the target
 * @of: an open output file; closed afterwards whatever the result
 *
 * fsync (unless OUTFILE_NO_FSYNC), close, rename over the target (which must
 * still be a regular file or absent), fsync the directory.  A target written
 * in place is only closed (its fsync error EINVAL is no error).
 *
 * Return: 0, or -1 with errno set; then the temporary file is removed.
 */
int outfile_commit(struct outfile *of);

/**
 * outfile_abort() - give up: close and remove the temporary file
 * @of: an open output file, or one already committed or aborted (no-op)
 */
void outfile_abort(struct outfile *of);

/**
 * outfile_write_all() - outfile_open(), one outfile_write(), outfile_commit()
 * @dirfd: as for outfile_open()
 * @path: the target
 * @buf: the whole content
 * @len: its length
 * @flags: OUTFILE_* flags
 *
 * Return: 0, or -1 with errno set and the target untouched.
 */
int outfile_write_all(int dirfd, const char *path, const void *buf, size_t len, int flags);

#endif /* MMLOCK_OUTFILE_H */
