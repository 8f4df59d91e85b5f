/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stock-event mode: who waited for mmap_lock behind whom from the stock
 * events alone (mmap_lock:*, lock:contention_*, exceptions:page_fault_*,
 * filemap:mm_filemap_fault), on a kernel without our events.
 */
#ifndef MMLOCK_STOCK_H
#define MMLOCK_STOCK_H

#include <stdint.h>

#include "analysis-int.h"
#include "mmslot.h"

struct parsed_line;

/**
 * stock_page_fault() - exceptions:page_fault_user or _kernel of @t
 * @an: the analysis
 * @t: the task
 * @pl: the event
 * @user: 1 for page_fault_user: it opens a fault of @t (x86: every user
 *	fault goes through it first); @t's next fault, kernel or user, or its
 *	exit ends it
 */
void stock_page_fault(struct analysis *an, struct task *t, const struct parsed_line *pl,
		      int user);

/**
 * stock_filemap_fault() - filemap:mm_filemap_fault: @t's fault reached filemap_fault()
 * @an: the analysis
 * @t: the task
 * @pl: the event
 */
void stock_filemap_fault(struct analysis *an, struct task *t, const struct parsed_line *pl);

/**
 * stock_retry_call() - a stock read call of @t opened: a retry of its fault?
 * @an: the analysis
 * @t: the task
 * @call: the call's interval (start_locking write=false)
 *
 * Only VM_FAULT_RETRY brings a fault that reached filemap_fault() back to
 * mmap_lock: the fault is a retried one, and @call refers to it (IV_RCALL).
 */
void stock_retry_call(struct analysis *an, struct task *t, struct ival *call);

/**
 * stock_write_holds() - a stock write hold of @s begins (its call got the lock, or a trylock did)
 * @an: the analysis
 * @t: the task
 * @s: the slot
 * @pl: the event
 */
void stock_write_holds(struct analysis *an, struct task *t, struct mmslot *s,
		       const struct parsed_line *pl);

/**
 * stock_close_write() - @s's stock write interval (queued, then holding) ends at @ts
 * @an: the analysis
 * @s: the slot; its acq is the interval
 * @ts: the end
 */
void stock_close_write(struct analysis *an, struct mmslot *s, uint64_t ts);

/**
 * stock_call_end_slow() - stock_call_end() of a call that has more to end
 *	than itself (a contended wait open, a retried fault's call, a write
 *	call that gave up)
 * @an: the analysis
 * @t: the task
 * @s: the slot
 * @call: the call's interval
 * @pl: the event
 * @success: whether the call got the lock
 */
void stock_call_end_slow(struct analysis *an, struct task *t, struct mmslot *s,
			 const struct ival *call, const struct parsed_line *pl, int success);

/**
 * stock_call_end() - a stock call ends (acquire_returned after start_locking)
 * @an: the analysis
 * @t: the task
 * @s: the slot
 * @call: the call's interval
 * @pl: the event
 * @success: whether the call got the lock
 *
 * Most calls end with nothing else: those tests inline.
 */
static inline void stock_call_end(struct analysis *an, struct task *t, struct mmslot *s,
				  const struct ival *call, const struct parsed_line *pl,
				  int success)
{
	/* its open call ends: a contention_begin after it is not its sleep */
	if (t->scall_set && t->scall_mm == s->mm)
		t->scall_set = 0;
	if (t->cw || (call->flags & IV_RCALL) || (call->write && !success && mmslot_has_acq(s)))
		stock_call_end_slow(an, t, s, call, pl, success);
}

/**
 * stock_contention_begin() - lock:contention_begin of @t
 * @an: the analysis
 * @t: the task
 * @pl: the event
 *
 * An rwsem sleep (flags READ or WRITE alone) inside an open mmap_lock call
 * of @t is that call's wait; outside, some other rwsem's, only counted.
 */
void stock_contention_begin(struct analysis *an, struct task *t, const struct parsed_line *pl);

/**
 * stock_contention_end() - lock:contention_end of @t: the end of its wait, if of its lock
 * @an: the analysis
 * @t: the task
 * @pl: the event
 */
void stock_contention_end(struct analysis *an, struct task *t, const struct parsed_line *pl);

#endif /* MMLOCK_STOCK_H */
