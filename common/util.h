/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMLOCK_UTIL_H
#define MMLOCK_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Exit codes: a script driving mmlock can tell what kind of failure it was.
 */
enum mmlock_exit {
	MMLOCK_EXIT_OK		= 0,
	MMLOCK_EXIT_FAILURE	= 1,	/* anything not listed below */
	MMLOCK_EXIT_USAGE	= 2,	/* bad option or argument */
	MMLOCK_EXIT_INPUT	= 3,	/* an input is missing, unreadable or not a trace */
	MMLOCK_EXIT_PARTIAL	= 4,	/* output written, but an input was damaged */
	MMLOCK_EXIT_ENV		= 5,	/* no tracefs, not root, missing kernel feature */
	MMLOCK_EXIT_KERNEL	= 6,	/* the kernel rejected a setting (event, filter) */
	MMLOCK_EXIT_OUTPUT	= 7,	/* cannot write the output (disk full, bad path) */
	MMLOCK_EXIT_CHILD	= 8,	/* the workload command failed to start or crashed */
	MMLOCK_EXIT_NOMEM	= 9,	/* out of memory: the input needs more than there is */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The subcommand name errors are prefixed with ("mmlock analyze: ..."). */
void util_set_prog(const char *name);
const char *util_prog(void);
/* Silence pr_err/pr_warn/pr_info (a fuzzer calls the commands millions of times). */
void util_set_quiet(int on);

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Allocation failures in the tool layer end the program with a message and
 * MMLOCK_EXIT_NOMEM (memory follows open intervals, so a hostile input can
 * still ask for more than there is; that is never a plain failure, exit 1).
 */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whole-string number parsing: 0 on success, -1 with errno = EINVAL/ERANGE. */
int parse_u64(const char *s, uint64_t *out);
int parse_i64(const char *s, int64_t *out);
/* "4096", "64K", "16M", "1G" (powers of 1024) */
int parse_size(const char *s, uint64_t *bytes);
/* "10", "10s", "500ms", "2m", "1h" -> microseconds */
int parse_duration_us(const char *s, uint64_t *usecs);

/* write(2) all of @buf, again after EINTR and short writes: 0, or -1 with errno (ENOSPC, EIO, ...). */
int write_all(int fd, const void *buf, size_t len);

/* mkdir -p: 0 when @path is a directory afterwards, -1 with errno otherwise. */
int mkdir_p(const char *path);

/* Flush and close stdout, reporting a write failure (full disk, closed pipe). */
int close_stdout(void);

#endif /* MMLOCK_UTIL_H */
