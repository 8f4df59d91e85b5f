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
#include "anomaly.h"
#include "mmslot.h"
#include "parse.h"
#include "stack.h"
#include "tally.h"

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
 * @call: the call, kept in its slot (start_locking write=false)
 * @mm: its mm
 *
 * Only VM_FAULT_RETRY brings a fault that reached filemap_fault() back to
 * mmap_lock: the fault is a retried one, and @call refers to it (IV_RCALL).
 */
void stock_retry_call(struct analysis *an, struct task *t, struct swait *call, uint64_t mm);

/**
 * stock_write_holds_slow() - stock_write_holds() of a hold that is an
 *	interval, or a nested begin
 * @an: the analysis
 * @t: the task
 * @s: the slot
 * @pl: the event
 */
void stock_write_holds_slow(struct analysis *an, struct task *t, struct mmslot *s,
			    const struct parsed_line *pl);

/**
 * stock_write_holds() - a stock write hold of @s begins (its call got the lock, or a trylock did)
 * @an: the analysis
 * @t: the task
 * @s: the slot
 * @pl: the event
 *
 * Nothing it could be attributed to is open or kept, and no hook wants it
 * as an interval: kept in the slot (struct swhold), where most holds end
 * unseen by the sweep.  The write hold's stack block (stacktrace if
 * write == 1), if one comes, gets a call of its own.  That case inline.
 */
static inline void stock_write_holds(struct analysis *an, struct task *t, struct mmslot *s,
				     const struct parsed_line *pl)
{
	struct swhold *z = &s->swh;

	if (s->acq || z->set || an->sw.lists[L_OPEN_SW].head || an->sw.lists[L_CLOSED_SW].head ||
	    an->opts.on_ival || an->opts.stack_before) {
		stock_write_holds_slow(an, t, s, pl);
		return;
	}
	z->start = z->hold_start = pl->ts_ns;
	z->cpu = pl->cpu;
	z->epoch = anomaly_epoch(an, pl->cpu);
	z->prio = t->prio;
	z->task = t;
	z->set = 1;
	mmslot_swh_link(an, s);
	stack_target_swh(an, t, s, pl->cpu);
}

/**
 * stock_close_write_slow() - stock_close_write() of an interval, or of a
 *	hold that must go through the sweep
 * @an: the analysis
 * @s: the slot
 * @ts: the end
 */
void stock_close_write_slow(struct analysis *an, struct mmslot *s, uint64_t ts);

/**
 * stock_close_write() - @s's stock write interval (queued, then holding) ends at @ts
 * @an: the analysis
 * @s: the slot; its acq is the interval, or its swhold the hold
 * @ts: the end
 *
 * A hold kept in its slot pairs with nothing (no contended wait is open
 * or kept, else it would be an interval): tallied at once, unless closed
 * write intervals still wait to be (then it goes through the sweep, to be
 * tallied after them, in the same order).  The first case inline.
 */
static inline void stock_close_write(struct analysis *an, struct mmslot *s, uint64_t ts)
{
	if (!s->acq && !an->sw.lists[L_CLOSED_SM].head)
		tally_swhold_end(an, s, ts);
	else
		stock_close_write_slow(an, s, ts);
}

/**
 * stock_call_end_slow() - stock_call_end() of a call that has more to end
 *	than itself (a contended wait open, a retried fault's call, a write
 *	call that gave up)
 * @an: the analysis
 * @t: the task
 * @s: the slot
 * @call: the call, kept in its slot
 * @pl: the event
 * @success: whether the call got the lock
 */
void stock_call_end_slow(struct analysis *an, struct task *t, struct mmslot *s,
			 const struct swait *call, const struct parsed_line *pl, int success);

/**
 * stock_call_end() - a stock call ends (acquire_returned after start_locking)
 * @an: the analysis
 * @t: the task
 * @s: the slot
 * @call: the call, kept in its slot
 * @pl: the event
 * @success: whether the call got the lock
 *
 * Most calls end with nothing else: those tests inline.
 */
static inline void stock_call_end(struct analysis *an, struct task *t, struct mmslot *s,
				  const struct swait *call, const struct parsed_line *pl,
				  int success)
{
	/* its open call ends: a contention_begin after it is not its sleep (no branch: most do) */
	t->scall_set &= t->scall_mm != s->mm;
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
