// SPDX-License-Identifier: GPL-2.0
/*
 * On a kernel without our events (and without mmlock_probe.ko) the stock
 * events still say who waited for mmap_lock behind whom: a
 * lock:contention_begin nested in an open mmap_lock call (start_locking ..
 * acquire_returned) of the same task is that call's sleep on the rwsem, and
 * each such wait is attributed to the write intervals of other tasks on the
 * same mm that overlap it (a writer from its own contended wait, queued, or
 * from its acquisition, to its release).  exceptions:page_fault_user and
 * filemap:mm_filemap_fault recognise a fault that reached filemap_fault()
 * and went back to mmap_lock: a retry, the Type-B fault side.
 */
#include <string.h>

#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"
#include "ival.h"
#include "mmslot.h"
#include "pair.h"
#include "stack.h"
#include "stock.h"
#include "tally.h"
#include "task.h"

/*
 * exceptions:page_fault_user opens a fault of the task (x86: every user
 * fault goes through it first); the task's next fault, kernel or user, or
 * its exit ends it.
 */
void stock_page_fault(struct analysis *an, struct task *t, const struct parsed_line *pl,
		      int user)
{
	task_end_sfault(t);
	if (!user)
		return;
	t->sfault = call_new(pl->ts_ns);
	t->sfault->vm_start = (unsigned long)pl_hex(pl, PF_ADDRESS);
	if (pl_has(pl, PF_ADDRESS))
		t->sfault->flags |= CALL_SF_ADDR;
	t->sfault_cpu = pl->cpu;
	t->sfault_epoch = anomaly_epoch(an, pl->cpu);
}

/* filemap:mm_filemap_fault inside the fault: it reached filemap_fault(). */
void stock_filemap_fault(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	(void)an;
	if (!t->sfault || (t->sfault->flags & CALL_SF_REACHED))
		return;
	t->sfault->flags |= CALL_SF_REACHED;
	t->sfault->mark_ts = pl->ts_ns;
}

/*
 * A read call (start_locking write=false) of a fault that already reached
 * filemap_fault(): only VM_FAULT_RETRY brings a fault from there back to
 * mmap_lock (the per-VMA attempt dropped its lock, or filemap_fault()
 * released mmap_lock for the I/O).  The fault is a retried one; its first
 * such call starts the retry (mmap_read_trylock(), then, if that fails, the
 * blocking mmap_read_lock_killable()).
 */
void stock_retry_call(struct analysis *an, struct task *t, struct swait *call, uint64_t mm)
{
	struct call *f = t->sfault;

	if (!f || !(f->flags & CALL_SF_REACHED))
		return;
	if (!(f->flags & CALL_SF_RETRY)) {
		f->flags |= CALL_SF_RETRY;
		f->ts = call->start;
		f->mm = mm;
		an->pc.sf_retries++;
		if (call->start >= f->mark_ts)
			hist_add(&an->dist.retry_io, (call->start - f->mark_ts) / 1000);
	}
	call->flags |= IV_RCALL;
	call->call = call_get(f);
}

/*
 * A stock write interval of @s opens: queued from a contended wait, or
 * holding from a trylock.  It replaces what @s had.
 */
static struct ival *writer_open(struct analysis *an, struct task *t, struct mmslot *s,
				const struct parsed_line *pl)
{
	/* taken first: @t keeps a reference while the old interval goes */
	struct ival *m = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);

	if (mmslot_has_acq(s))
		mmslot_drop_acq(an, s);
	m->mm = s->mm;
	m->write = 1;
	m->flags = IV_SM;
	m->call = call_new(pl->ts_ns);
	s->acq = m;
	pair_open(an, L_OPEN_SM, m);
	return m;
}

/*
 * The write interval @s's struct swhold stands for, opened as writer_open()
 * and stock_write_holds() would have when it began: on the open list now,
 * after every open write interval (they all began before it, see
 * stock_swhold_all()).
 */
static struct ival *swhold_ival(struct analysis *an, struct mmslot *s)
{
	struct swhold *z = &s->swh;
	struct ival *m = ival_new(an, z->task, z->start, z->cpu, z->prio);

	m->epoch = z->epoch;
	m->mm = s->mm;
	m->write = 1;
	m->flags = IV_SM;
	m->has_hold = 1;
	m->hold_start = z->hold_start;
	m->call = z->call ? z->call : call_new(z->start);	/* its reference moves */
	z->call = NULL;
	/* a stack block of the hold's event may still come: to the call */
	if (z->task->stack_swh == s) {
		z->task->stack_swh = NULL;
		z->task->stack_target = call_get(m->call);
	}
	mmslot_swh_clear(an, s);
	s->acq = m;
	pair_open(an, L_OPEN_SM, m);
	return m;
}

/*
 * A contended wait begins: what it may be attributed to must be on the
 * sweep, so every struct swhold becomes its interval.  A swhold is made
 * only while no contended wait is open or kept, so every write interval
 * already open began before them: the open list stays in start order.
 */
static void stock_swhold_all(struct analysis *an)
{
	while (an->ms.swh_head)
		swhold_ival(an, an->ms.swh_head);
}

/* A stock write hold begins as an interval (stock_write_holds() keeps the rest in their slots). */
void stock_write_holds_slow(struct analysis *an, struct task *t, struct mmslot *s,
			    const struct parsed_line *pl)
{
	struct ival *m = s->acq;

	if (!m && s->swh.set) {
		/* a nested begin: as the interval's, only the hold's start moves */
		s->swh.hold_start = pl->ts_ns;
		stack_target_swh(an, t, s, pl->cpu);
		return;
	}
	if (!m)
		m = writer_open(an, t, s, pl);
	m->has_hold = 1;
	m->hold_start = pl->ts_ns;
	/* the write hold's stack block (stacktrace if write == 1) names its caller */
	stack_target_set(an, t, m->call, pl->cpu);
}

void stock_close_write_slow(struct analysis *an, struct mmslot *s, uint64_t ts)
{
	struct ival *m = s->acq;

	/* a hold kept in its slot, closed write intervals kept: through the sweep, after them */
	if (!m)
		m = swhold_ival(an, s);
	s->acq = NULL;
	m->end = ts;
	pair_close(an, m, L_CLOSED_SM, L_CLOSED_SW);
}

/* A stock call ends (acquire_returned after start_locking). */
void stock_call_end_slow(struct analysis *an, struct task *t, struct mmslot *s,
			 const struct swait *call, const struct parsed_line *pl, int success)
{
	if (t->cw && t->cw->mm == s->mm) {
		/* the rwsem reports contention_end before the call returns */
		anomaly_count(an, SLOT_MMAP_CWAIT, SA_UNCLOSED);
		task_drop_cwait(an, t);
	}
	if (call->flags & IV_RCALL) {
		struct call *f = call->call;

		if (!success && !call->write)
			f->flags |= CALL_SF_TRYFAIL;
		if (success && !f->done_ts) {
			f->done_ts = pl->ts_ns;
			if (f->flags & CALL_B_PENDING) {
				f->flags &= ~CALL_B_PENDING;
				an->ct.sb_retry_ns += f->done_ts - f->ts;
			}
		}
	}
	/* a queued write call that gave up (killed): its interval ends, no hold */
	if (call->write && !success && mmslot_has_acq(s))
		stock_close_write(an, s, pl->ts_ns);
}

/*
 * lock:contention_begin with flags READ or WRITE alone is an rwsem sleep.
 * Inside an open mmap_lock call of the same task it is that call's wait
 * (nothing else can sleep between start_locking and acquire_returned: the
 * call is one down_*()); outside, some other rwsem's (i_mmap_rwsem,
 * anon_vma, a per-VMA lock on 6.4-6.14), only counted.
 */
void stock_contention_begin(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	const char *flags = pl_str(pl, PF_FLAGS);
	const struct swait *call;
	struct ival *iv;
	struct mmslot *s;
	int write;

	if (!flags)
		return;
	if (!strcmp(flags, "READ"))
		write = 0;
	else if (!strcmp(flags, "WRITE"))
		write = 1;
	else
		return;		/* a spinlock, mutex, ...: not an rwsem sleep */
	if (!t->scall_set) {
		an->pc.other_rwsem++;
		return;
	}
	s = mmslot_peek(an, t, t->scall_mm);
	if (!s || !s->sw.set)
		return;		/* its call was lost ([LOST], a broken sequence): not known */
	call = &s->sw;
	if (t->cw) {
		anomaly_count(an, SLOT_MMAP_CWAIT, SA_BEGIN_NESTED);
		task_drop_cwait(an, t);
	}
	if (write != call->write)
		anomaly_count(an, SLOT_MMAP_CWAIT, SA_MODE_MISMATCH);
	stock_swhold_all(an);
	iv = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);
	iv->mm = s->mm;
	iv->write = call->write;
	iv->lock_addr = pl_hex(pl, PF_LOCK_ADDR);
	iv->flags = IV_SW;
	/*
	 * The Type-B fault side: a retry call that sleeps, after the retry's
	 * mmap_read_trylock() failed.  The failed trylock tells a fault's retry
	 * from a system call of the same task that happens to take the lock
	 * for reading after a fault that did not retry.
	 */
	if ((call->flags & IV_RCALL) && !call->write && (call->call->flags & CALL_SF_TRYFAIL)) {
		iv->flags |= IV_R;
		iv->call = call_get(call->call);
	}
	t->cw = iv;
	pair_open(an, L_OPEN_SW, iv);
	/* a writer queues from here: readers arriving now queue behind it */
	if (call->write)
		writer_open(an, t, s, pl);
}

/* lock:contention_end of the wait's lock ends it; other locks' ends are not ours. */
void stock_contention_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct ival *iv = t->cw;
	uint64_t ns;

	if (!iv || iv->lock_addr != pl_hex(pl, PF_LOCK_ADDR))
		return;
	t->cw = NULL;
	if (pl->ts_ns < iv->start) {
		anomaly_count(an, SLOT_MMAP_CWAIT, SA_END_BEFORE_START);
		ival_free(an, iv);
		return;
	}
	iv->end = pl->ts_ns;
	ns = iv->end - iv->start;
	an->pc.cw_count[iv->write]++;
	an->pc.cw_ns += ns;
	hist_add(&an->dist.cwait, ns / 1000);
	tally_wait(an, t, WAIT_MMAP, ns);
	pair_close(an, iv, L_CLOSED_SW, L_CLOSED_SM);
}
