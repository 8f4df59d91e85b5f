/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMLOCK_TRACEDAT_H
#define MMLOCK_TRACEDAT_H

#include <stddef.h>

#include "capture.h"

/*
 * trace-cmd's trace.dat (trace-cmd record, KernelShark) read through
 * libtracecmd and printed as the text a binary capture decodes to
 * (bin_decode()), so the analyzer reads both the same way.  A trace.dat
 * carries no saved_tgids: the TGID column prints as (-------).
 * Without libtracecmd (make ARCH=arm64) tracedat_decode() and
 * tracedat_spawn() fail with ENOTSUP and say so.
 */

/* Every trace.dat begins with these bytes (trace-cmd's file magic). */
#define TRACEDAT_MAGIC		"\x17\x08\x44tracing"
#define TRACEDAT_MAGIC_LEN	10

/**
 * tracedat_magic_is() - do @buf's first bytes say trace.dat?
 * @buf: the start of a file
 * @len: how many bytes of it @buf holds
 *
 * Return: 1 or 0.
 */
int tracedat_magic_is(const void *buf, size_t len);

/* What tracedat_decode() met. */
struct tracedat_stats {
	unsigned long long	events;
	unsigned long long	missed;		/* printed as LOST lines */
	unsigned long long	bad_records;	/* shorter than their format: skipped */
	int			missed_unknown;	/* pages flagged with an unknown count */
};

/**
 * tracedat_decode() - a trace.dat as trace_pipe text
 * @path: the file (a regular file: libtracecmd seeks in it)
 * @emit: called for each line, events of all CPUs in timestamp order
 * @ctx: for @emit
 * @st: filled
 * @err: set on failure to a message (allocated) saying what was expected
 *
 * Return: 0, or -1 with errno (ENOTSUP: built without libtracecmd;
 * EINVAL: not a trace.dat libtracecmd can read; the errno @emit left
 * when it stopped the decode) and @err set.
 */
int tracedat_decode(const char *path, bin_line_fn emit, void *ctx, struct tracedat_stats *st,
		    char **err);

/*
 * libtracecmd and libtraceevent trust the file they read: a damaged
 * trace.dat can make them crash or allocate without bound (tests/tracedat).
 * tracedat_spawn() runs tracedat_decode() in a child process with its
 * address space limited; a crash there costs the child, and
 * tracedat_reap() says what happened.
 */
struct tracedat_proc {
	int	pid;		/* the child, 0: none */
	int	report_fd;	/* its report, read by tracedat_reap() */
};

/**
 * tracedat_spawn() - tracedat_decode() of @path in a child process
 * @path: the trace.dat
 * @pr: filled, for tracedat_reap()
 * @err: set on failure to a message (allocated)
 *
 * Call it while no other thread of the process runs (fork()).
 *
 * Return: the read end of a pipe the text comes out of, or -1 with errno
 * (ENOTSUP: built without libtracecmd) and @err set.
 */
int tracedat_spawn(const char *path, struct tracedat_proc *pr, char **err);

/**
 * tracedat_reap() - wait for the child of tracedat_spawn() and read its report
 * @pr: the child; reset
 * @early: the reader stopped before the end of the text: the child is killed
 *	and nothing is reported
 * @bad_records: set to the records it skipped as shorter than their format
 * @msg: set on failure to a message (allocated) saying what was expected or
 *	what happened to the child
 *
 * Close the pipe's read end first.
 *
 * Return: 0, or -1 with errno (as tracedat_decode(); EIO: the child died)
 * and @msg set.
 */
int tracedat_reap(struct tracedat_proc *pr, int early, unsigned long long *bad_records,
		  char **msg);

#endif /* MMLOCK_TRACEDAT_H */
