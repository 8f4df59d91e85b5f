/* SPDX-License-Identifier: GPL-2.0 */
/* Stack blocks (<stack trace> and its " => func" frames) and the calls they belong to. */
#ifndef MMLOCK_STACK_H
#define MMLOCK_STACK_H

#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"

/**
 * stack_target_put() - @t's next stack block belongs to no call
 * @t: the task
 *
 * The reference stack_target_set() took is dropped.
 */
static inline void stack_target_put(struct task *t)
{
	call_put(t->stack_target);
	t->stack_target = NULL;
	t->stack_swh = NULL;
}

/**
 * stack_target_fill() - fill @c's stack from the block @t read before it
 * @t: the task
 * @c: its new stack target
 * @cpu: the CPU of the event: only a block from it is @c's
 *
 * For --stack-position before (stack_target_set()).
 */
void stack_target_fill(struct task *t, struct call *c, int cpu);

/**
 * stack_target_set() - a following stack block of @t's belongs to @c
 * @an: the analysis
 * @t: the task
 * @c: the call (a reference is held until the next event of @t)
 * @cpu: the CPU of the event: only a block from it is @c's
 *
 * With --stack-position before, the block @t already read goes to @c.
 * @c is held by reference: whatever ends or truncates it meanwhile ([LOST]
 * on its CPU, a nested begin), the block is written into live memory
 * (issue 13 H1).  Inline: every call that may have a stack block takes it.
 */
static inline void stack_target_set(struct analysis *an, struct task *t, struct call *c,
				    int cpu)
{
	stack_target_put(t);
	t->stack_target = call_get(c);
	t->stack_target_cpu = cpu;
	t->stack_target_epoch = anomaly_epoch(an, cpu);
	if (an->opts.stack_before)
		stack_target_fill(t, c, cpu);
}

/**
 * stack_target_swh() - a following stack block of @t's belongs to the stock
 *	write hold of @s (struct swhold, which makes its call when one comes)
 * @an: the analysis
 * @t: the task
 * @s: its slot holding the swhold; it lives until the next event of @t
 *	(only @t's events free @t's slots, and each puts the target first)
 * @cpu: the CPU of the event: only a block from it is the hold's
 *
 * Not with --stack-position before (a swhold is not made then).
 */
static inline void stack_target_swh(struct analysis *an, struct task *t, struct mmslot *s,
				    int cpu)
{
	stack_target_put(t);
	t->stack_swh = s;
	t->stack_target_cpu = cpu;
	t->stack_target_epoch = anomaly_epoch(an, cpu);
}

/**
 * stack_begin() - a <stack trace> line of @pid on @cpu starts a block
 * @an: the analysis
 * @pid: its task
 * @cpu: its CPU
 */
void stack_begin(struct analysis *an, int pid, int cpu);

/**
 * stack_frame() - one " => func" line of the block being read
 * @an: the analysis
 * @frame: the frame's text; the first four non-tracing functions are kept
 */
void stack_frame(struct analysis *an, const char *frame);

/**
 * stack_block_end() - the block being read ends: it goes to its call
 * @an: the analysis; a block is being read (stk.task)
 */
void stack_block_end(struct analysis *an);

/**
 * stack_flush() - the block being read, if any, ends: it goes to its call
 * @an: the analysis
 *
 * Called before every line that is not a frame: inline, for the common
 * case of no block.
 */
static inline void stack_flush(struct analysis *an)
{
	if (an->stk.task)
		stack_block_end(an);
}

#endif /* MMLOCK_STACK_H */
