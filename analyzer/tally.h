/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables the summary reads that events and pairs add to: reason counts,
 * writer callers, the waits of each pid, the stock writers and their callers.
 */
#ifndef MMLOCK_TALLY_H
#define MMLOCK_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis-int.h"

/**
 * tally_caller_func() - the function of a caller or frame, without offset or clone suffix
 * @dst: the result ("unknown" for a NULL or empty @caller)
 * @size: of @dst
 * @caller: "mprotect_fixup+0x1c4/0x2f0 [mod]", "proc_get_vma.isra.0", ...
 *
 * GCC's clones (".isra.0", ".constprop.0", ".part.0", ".cold") are the same
 * source function: they are grouped under its name.
 */
void tally_caller_func(char *dst, size_t size, const char *caller);

/**
 * tally_stock_caller_frames() - tally_stock_caller() of a stack that may hold frames
 * @dst: the result
 * @size: of @dst
 * @stack: the call's stack
 */
void tally_stock_caller_frames(char *dst, size_t size, const char *stack);

/**
 * tally_stock_caller() - the caller of a stock write hold
 * @dst: the result: the first frame of @stack that is not the rwsem itself,
 *	"" when no stack was recorded
 * @size: of @dst
 * @stack: the call's stack ("func;func;...", tracing frames left out)
 *
 * Inline up to the test of an empty stack: most holds have none.
 */
static inline void tally_stock_caller(char *dst, size_t size, const char *stack)
{
	if (stack[0])
		tally_stock_caller_frames(dst, size, stack);
	else
		dst[0] = '\0';
}

/**
 * tally_reason() - count @word in @rc
 * @rc: the counts; past MAX_REASONS words the rest count as "other"
 * @word: the reason; NULL or "" counts as "unknown"
 */
void tally_reason(struct reason_counts *rc, const char *word);

/**
 * tally_caller() - the stats of the writer caller function of @caller
 * @an: the analysis
 * @caller: a caller as printed (tally_caller_func() gives its function)
 *
 * Past MAX_CALLERS distinct functions the rest are counted under "other".
 *
 * Return: the stats, valid until the next new caller (the array grows).
 */
struct caller_stat *tally_caller(struct analysis *an, const char *caller);

/**
 * tally_call_caller() - the caller stats of a call's writer, looked up once per call
 * @an: the analysis
 * @c: the call, or NULL (then "unknown")
 *
 * Return: the stats, as for tally_caller().
 */
struct caller_stat *tally_call_caller(struct analysis *an, struct call *c);

/**
 * tally_caller_sample() - offer a user address to stand for @cs in the tables
 * @cs: the caller's stats
 * @t: the writer's task
 * @ts: when
 * @user_pc: the faulting user instruction as printed, or NULL
 * @wait_ns: its wait: the first writer's address stays until a longer wait's
 */
void tally_caller_sample(struct caller_stat *cs, const struct task *t, uint64_t ts,
			 const char *user_pc, uint64_t wait_ns);

/**
 * tally_wait() - a wait of @t's of @ns nanoseconds, for waits_by_pid
 * @an: the analysis
 * @t: the task
 * @k: the kind of wait
 * @ns: its length
 *
 * Kept apart from the task (which may be forgotten while idle), for up to
 * MAX_PIDSTATS pids; beyond, counted only.
 */
void tally_wait(struct analysis *an, struct task *t, enum wait_kind k, uint64_t ns);

/**
 * tally_swriter_fold() - a stock write interval nothing can pair with any more
 * @an: the analysis
 * @m: the interval (IV_SM), closed
 *
 * Its hold, its queueing and the waits attributed to it go to its writer's
 * row (pid, caller) and its caller's.
 */
void tally_swriter_fold(struct analysis *an, struct ival *m);

/**
 * tally_swhold_end() - tally_swriter_fold() of the stock write hold @s kept
 *	in its slot (struct swhold), no interval: it ends at @end
 * @an: the analysis
 * @s: the slot; its swhold set, cleared here (mmslot_swh_clear())
 * @end: its release
 *
 * No wait was attributed to it; its call, if any, holds the stack block
 * that came.
 */
void tally_swhold_end(struct analysis *an, struct mmslot *s, uint64_t end);

/**
 * tally_release() - free the tables (the analysis ends)
 * @an: the analysis
 */
void tally_release(struct analysis *an);

#endif /* MMLOCK_TALLY_H */
