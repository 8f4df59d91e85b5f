// SPDX-License-Identifier: GPL-2.0
/*
 * Pairing: each task (pid) has a slot per interval kind (perf builtin-lock
 * style: a begin opens the slot, an end closes it, a broken sequence is
 * counted by kind, anomaly.c).  The handlers of the contract's events live
 * here: the fault lifecycle (fault call, its lock wait, its retry gap), the
 * VMA writes and their waits, and mmap_lock's waits and holds, ours and the
 * stock events' (whose rwsem sleeps and retries stock.c follows).  Waits of
 * a pair kind go to its sweep (pair.c) when they close.
 */
#include <limits.h>
#include <stdlib.h>

#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"
#include "ival.h"
#include "mmslot.h"
#include "pair.h"
#include "pairing.h"
#include "stack.h"
#include "stock.h"
#include "tally.h"
#include "task.h"

static void close_fw(struct analysis *an, struct ival *fw)
{
	pair_close(an, fw, L_CLOSED_FW, L_CLOSED_VW);
}

static void close_vw(struct analysis *an, struct ival *vw)
{
	pair_close(an, vw, L_CLOSED_VW, L_CLOSED_FW);
}

static void close_r(struct analysis *an, struct ival *r)
{
	pair_close(an, r, L_CLOSED_R, L_CLOSED_M);
}

static void close_m(struct analysis *an, struct ival *m)
{
	pair_close(an, m, L_CLOSED_M, L_CLOSED_R);
}

/* A fault call or a VMA write, with the VMA its begin event names. */
static struct call *call_of_vma(const struct parsed_line *pl)
{
	struct call *c = call_new(pl->ts_ns);

	c->mm = pl_hex(pl, PF_MM);
	c->vma = pl_hex(pl, PF_VMA);
	c->vm_start = pl_hex(pl, PF_VM_START);
	c->vm_end = pl_hex(pl, PF_VM_END);
	c->ino = (unsigned long)pl_dec(pl, PF_INO, 0);
	copy_str(c->dev, sizeof(c->dev), pl_str(pl, PF_DEV));
	copy_str(c->user_pc, sizeof(c->user_pc), pl_str(pl, PF_USER_PC));
	return c;
}

static void on_fault_begin(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct call *c;

	if (t->gap) {		/* the retry gap ends with the next fault call */
		call_put(t->gap);
		t->gap = NULL;
	}
	if (t->fault) {
		anomaly_count(an, SLOT_FAULT, SA_BEGIN_NESTED);
		call_put(t->fault);
		task_drop_fault_wait(an, t);
	}
	/* a lost end can no longer arrive once the slot begins again */
	t->absorb[SLOT_FAULT] = t->absorb[SLOT_FAULT_WAIT] = 0;
	c = call_of_vma(pl);
	t->fault = c;
	t->fault_cpu = pl->cpu;
	t->fault_epoch = anomaly_epoch(an, pl->cpu);
	stack_target_set(an, t, c, pl->cpu);
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_FAULT);
	lifecycle_fault(an->lc, c->mm, pl_hex(pl, PF_ADDRESS), pl->ts_ns);
}

/*
 * A wait of the task's fault call (fw, slot SLOT_FAULT_WAIT) or VMA write
 * (vw, SLOT_VMA_WAIT) starts in *@open: it belongs to @owner, the call open
 * around it, or to a call of its own when none is.
 */
static struct ival *wait_start(struct analysis *an, struct task *t, const struct parsed_line *pl,
			       struct ival **open, enum slot slot, struct call *owner)
{
	struct ival *iv = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);

	if (*open) {
		anomaly_count(an, slot, SA_BEGIN_NESTED);
		ival_free(an, *open);
	}
	t->absorb[slot] = 0;
	iv->mm = pl_hex(pl, PF_MM);
	iv->vma = pl_hex(pl, PF_VMA);
	iv->has_vma = pl_has(pl, PF_VMA);
	if (owner) {
		iv->call = call_get(owner);
	} else {
		iv->call = call_new(pl->ts_ns);
		iv->call->mm = iv->mm;
		iv->call->vma = iv->vma;
	}
	*open = iv;
	stack_target_set(an, t, iv->call, pl->cpu);
	return iv;
}

static void on_fault_wait_start(struct analysis *an, struct task *t,
				const struct parsed_line *pl)
{
	struct ival *iv;

	if (!t->fault)
		an->anom.fault_wait_outside++;
	iv = wait_start(an, t, pl, &t->fw, SLOT_FAULT_WAIT, t->fault);
	iv->lock = pl_lock(pl, PF_LOCK);
	if (iv->lock == MMLOCK_FL_vma)
		pair_open(an, L_OPEN_FW, iv);
}

/*
 * The wait in *@open (slot @slot, see wait_start()) ends: the interval,
 * closed and taken from *@open, or NULL when there is none to end (counted).
 */
static struct ival *wait_end(struct analysis *an, struct task *t, const struct parsed_line *pl,
			     struct ival **open, enum slot slot)
{
	struct ival *iv = *open;

	if (!iv) {
		anomaly_end_without_begin(an, t, slot);
		return NULL;
	}
	*open = NULL;
	if (pl->ts_ns < iv->start) {
		/* time went backwards: an anomaly, never a duration (issue 13 M3) */
		anomaly_count(an, slot, SA_END_BEFORE_START);
		ival_free(an, iv);
		return NULL;
	}
	iv->end = pl->ts_ns;
	return iv;
}

static void on_fault_wait_end(struct analysis *an, struct task *t,
			      const struct parsed_line *pl)
{
	struct ival *iv = wait_end(an, t, pl, &t->fw, SLOT_FAULT_WAIT);
	uint64_t ns;

	if (!iv)
		return;
	ns = iv->end - iv->start;
	hist_add(&an->dist.fault_wait, ns / 1000);
	if (iv->lock == LOCK_UNKNOWN)
		an->pc.waits_lock_unknown++;
	else if (iv->lock >= 0)
		an->pc.waits_by_lock[iv->lock]++;
	tally_wait(an, t, WAIT_FAULT, ns);
	if (iv->list == L_OPEN_FW)
		close_fw(an, iv);
	else
		ival_free(an, iv);
}

static void on_fault_retry(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct call *g;

	tally_reason(&an->tally.retry_reasons, pl_str(pl, PF_REASON));
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_RETRY);
	if (!t->fault)
		an->anom.retry_outside++;
	if (t->gap) {
		anomaly_count(an, SLOT_RETRY_GAP, SA_BEGIN_NESTED);
		call_put(t->gap);
	}
	g = call_new(pl->ts_ns);
	g->mm = pl_hex(pl, PF_MM);
	if (t->fault) {
		g->vma = t->fault->vma;
		g->vm_start = t->fault->vm_start;
		g->vm_end = t->fault->vm_end;
		copy_str(g->user_pc, sizeof(g->user_pc), t->fault->user_pc);
	} else {
		g->vma = pl_hex(pl, PF_VMA);
	}
	t->gap = g;
	t->gap_cpu = pl->cpu;
	t->gap_epoch = anomaly_epoch(an, pl->cpu);
}

/*
 * The call in *@open (slot @slot: a fault call, a VMA write) ends, and with
 * it its wait in *@wait (@wait_slot), unclosed if still open.  0 when there
 * was no call to end (counted).
 */
static int call_end(struct analysis *an, struct task *t, struct call **open, enum slot slot,
		    struct ival **wait, enum slot wait_slot)
{
	if (!*open) {
		anomaly_end_without_begin(an, t, slot);
		return 0;
	}
	if (*wait) {
		anomaly_count(an, wait_slot, SA_UNCLOSED);
		ival_free(an, *wait);
		*wait = NULL;
	}
	call_put(*open);
	*open = NULL;
	return 1;
}

static void on_fault_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	if (call_end(an, t, &t->fault, SLOT_FAULT, &t->fw, SLOT_FAULT_WAIT) &&
	    pl_bool(pl, PF_MAJOR))
		an->pc.major_count++;
}

/* A byte's hex digit value plus one, 0 for a byte that is not one. */
static const unsigned char hex_val1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * Without strtoull()'s cost on every VMA write: one table load a digit, the
 * 64-bit bound checked once at the end (leading zeros do not count).
 */
int pairing_vm_flags(const char *s, uint64_t *flags)
{
	const unsigned char *p = (const unsigned char *)s, *digits;
	uint64_t v = 0;
	unsigned int d;

	if (!p || !hex_val1[p[0]])
		return 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hex_val1[p[2]])
		p += 2;
	while (*p == '0')
		p++;
	digits = p;
	while ((d = hex_val1[*p]) != 0) {
		v = v << 4 | (uint64_t)(d - 1);
		p++;
	}
	if (*p || p - digits > 16)
		return 0;	/* not hex to its end, or beyond 64 bits: ERANGE */
	*flags = v;
	return 1;
}

static void on_vma_write_begin(struct analysis *an, struct task *t,
			       const struct parsed_line *pl)
{
	const char *caller = pl_str(pl, PF_CALLER);
	struct caller_stat *cs = tally_caller(an, caller);
	struct call *c;
	uint64_t flags;

	cs->count++;
	tally_reason(&an->tally.by_syscall, cs->syscall);
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_VMA_WRITE);
	if (pl_dec(pl, PF_INO, 0)) {
		an->pc.file_backed++;
		cs->file_backed++;
	}
	if (pl_bool(pl, PF_ANON)) {
		an->pc.anonymous++;
		cs->anonymous++;
	}
	if (pairing_vm_flags(pl_str(pl, PF_FLAGS), &flags)) {
		cs->flags_seen++;
		cs->shared += !!(flags & VM_SHARED_BIT);
	}
	tally_caller_sample(cs, t, pl->ts_ns, pl_str(pl, PF_USER_PC), 0);
	if (t->vwrite) {
		anomaly_count(an, SLOT_VMA_WRITE, SA_BEGIN_NESTED);
		call_put(t->vwrite);
	}
	t->absorb[SLOT_VMA_WRITE] = t->absorb[SLOT_VMA_WAIT] = 0;
	c = call_of_vma(pl);
	copy_str(c->caller, sizeof(c->caller), caller);
	/* tally_call_caller() of it: found above */
	c->caller_idx = (int)(cs - an->tally.callers) + 1;
	t->vwrite = c;
	t->vwrite_cpu = pl->cpu;
	t->vwrite_epoch = anomaly_epoch(an, pl->cpu);
	stack_target_set(an, t, c, pl->cpu);
}

static void on_vma_wait_start(struct analysis *an, struct task *t,
			      const struct parsed_line *pl)
{
	struct call *owner = t->vwrite;
	struct ival *iv = wait_start(an, t, pl, &t->vw, SLOT_VMA_WAIT, owner);

	if (!owner) {
		iv->call->vm_start = pl_hex(pl, PF_VM_START);
		iv->call->vm_end = pl_hex(pl, PF_VM_END);
	}
	pair_open(an, L_OPEN_VW, iv);
}

static void on_vma_wait_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct ival *iv = wait_end(an, t, pl, &t->vw, SLOT_VMA_WAIT);
	struct caller_stat *cs;
	uint64_t ns;

	if (!iv)
		return;
	ns = iv->end - iv->start;
	hist_add(&an->dist.vma_wait, ns / 1000);
	tally_wait(an, t, WAIT_VMA, ns);
	cs = tally_call_caller(an, iv->call);
	cs->waits++;
	cs->wait_sum_ns += ns;
	if (ns > cs->wait_max_ns)
		cs->wait_max_ns = ns;
	tally_caller_sample(cs, t, iv->start, iv->call->user_pc, ns);
	close_vw(an, iv);
}

static void on_vma_write_done(struct analysis *an, struct task *t,
			     const struct parsed_line *pl)
{
	(void)pl;
	call_end(an, t, &t->vwrite, SLOT_VMA_WRITE, &t->vw, SLOT_VMA_WAIT);
}

static inline __attribute__((always_inline)) void
mmap_wait_start(struct analysis *an, struct task *t, const struct parsed_line *pl, int stock)
{
	uint64_t mm = pl_hex(pl, PF_MM);
	struct mmslot *s = mmslot_get(an, t, mm, stock);
	int write = pl_bool(pl, PF_WRITE);
	struct ival *iv;

	if (stock) {
		/* on no sweep list: kept in its slot, no interval */
		if (s->sw.set) {
			anomaly_count(an, SLOT_MMAP_WAIT, SA_BEGIN_NESTED);
			mmslot_sw_clear(s);
			if (s->acq && !s->acq->has_hold)
				mmslot_drop_acq(an, s);
			if (t->cw && t->cw->mm == mm) {
				anomaly_count(an, SLOT_MMAP_CWAIT, SA_UNCLOSED);
				task_drop_cwait(an, t);
			}
		}
		t->absorb[SLOT_MMAP_WAIT] = 0;
		s->sw.set = 1;
		s->sw.start = pl->ts_ns;
		s->sw.cpu = pl->cpu;
		s->sw.epoch = anomaly_epoch(an, pl->cpu);
		s->sw.write = write;
		s->sw.flags = 0;
		lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_MMAP_WAIT);
		/* the task's open call: a contention_begin now is its sleep */
		t->scall_mm = mm;
		t->scall_set = 1;
		if (!write)
			stock_retry_call(an, t, &s->sw, mm);
		return;
	}
	if (s->wait) {
		anomaly_count(an, SLOT_MMAP_WAIT, SA_BEGIN_NESTED);
		ival_free(an, s->wait);
		s->wait = NULL;
		if (s->acq && !s->acq->has_hold)
			mmslot_drop_acq(an, s);
	}
	t->absorb[SLOT_MMAP_WAIT] = 0;
	iv = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);
	iv->mm = mm;
	iv->write = write;
	s->wait = iv;
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_MMAP_WAIT);
	if (write) {
		struct ival *m = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);

		if (s->acq)
			mmslot_drop_acq(an, s);
		m->mm = mm;
		m->write = 1;
		m->flags = IV_ACQ;
		m->call = call_new(pl->ts_ns);
		copy_str(m->call->caller, sizeof(m->call->caller), pl_str(pl, PF_CALLER));
		s->acq = m;
		pair_open(an, L_OPEN_M, m);
		stack_target_set(an, t, m->call, pl->cpu);
	} else if (t->gap && pl->ts_ns >= t->gap->ts) {
		/* a read wait inside a retry gap: the fault side of Type-B */
		iv->flags |= IV_R;
		iv->call = call_get(t->gap);
		pair_open(an, L_OPEN_R, iv);
	}
}

static inline __attribute__((always_inline)) void
mmap_hold_start(struct analysis *an, struct task *t, struct mmslot *s,
			    const struct parsed_line *pl, int write, int stock)
{
	if (s->hold.set)
		anomaly_count(an, SLOT_MMAP_HOLD, SA_BEGIN_NESTED);
	t->absorb[SLOT_MMAP_HOLD] = 0;
	s->hold.set = 1;
	s->hold.start = pl->ts_ns;
	s->hold.cpu = pl->cpu;
	s->hold.epoch = anomaly_epoch(an, pl->cpu);
	s->hold.write = write;
	if (stock) {
		if (write)
			stock_write_holds(an, t, s, pl);
		return;
	}
	if (!write)
		return;
	if (s->acq) {
		s->acq->has_hold = 1;
		s->acq->hold_start = pl->ts_ns;
		return;
	}
	s->acq = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);
	s->acq->mm = s->mm;
	s->acq->write = 1;
	s->acq->flags = IV_ACQ;
	s->acq->has_hold = 1;
	s->acq->hold_start = pl->ts_ns;
	s->acq->call = call_new(pl->ts_ns);
	pair_open(an, L_OPEN_M, s->acq);
	stack_target_set(an, t, s->acq->call, pl->cpu);
}

static void close_acq(struct analysis *an, struct mmslot *s, uint64_t ts)
{
	struct ival *m = s->acq;

	s->acq = NULL;
	m->end = ts;
	close_m(an, m);
}

static inline __attribute__((always_inline)) void
mmap_hold_end(struct analysis *an, struct task *t, struct mmslot *s, const struct parsed_line *pl,
	      int stock);

static inline __attribute__((always_inline)) void mmap_wait_end(struct analysis *an, struct task *t, struct mmslot *s,
			  const struct parsed_line *pl, int stock)
{
	int write = pl_bool(pl, PF_WRITE);
	int success = pl_bool(pl, PF_SUCCESS);
	struct ival *iv = s->wait;
	uint64_t ns;

	if (stock) {
		struct swait *w = &s->sw;

		if (!w->set) {
			/*
			 * A stock trylock emits acquire_returned alone: an
			 * acquisition, not a broken sequence.
			 */
			if (s->hold.set && s->hold.write && !write && success) {
				/* mmap_write_downgrade(): the write hold becomes a read hold */
				an->pc.stock_downgrades++;
				mmap_hold_end(an, t, s, pl, stock);
			} else {
				an->pc.stock_trylocks++;
			}
			if (success)
				mmap_hold_start(an, t, s, pl, write, stock);
			return;
		}
		if (pl->ts_ns < w->start) {
			anomaly_count(an, SLOT_MMAP_WAIT, SA_END_BEFORE_START);
			w->set = 0;
			if (w->write && s->acq && !s->acq->has_hold)
				mmslot_drop_acq(an, s);
			mmslot_sw_clear(s);
			return;
		}
		if (w->write != write)
			anomaly_count(an, SLOT_MMAP_WAIT, SA_MODE_MISMATCH);
		write = w->write;
		w->set = 0;
		ns = pl->ts_ns - w->start;
		hist_add(&an->dist.stock_wait, ns / 1000);
		an->pc.stock_wait_count[write]++;
		stock_call_end(an, t, s, w, pl, success);
		mmslot_sw_clear(s);
		/* the stock events do not report the hold with its own hold_start */
		if (success)
			mmap_hold_start(an, t, s, pl, write, stock);
		return;
	}
	if (!iv) {
		anomaly_end_without_begin(an, t, SLOT_MMAP_WAIT);
		return;
	}
	if (pl->ts_ns < iv->start) {
		anomaly_count(an, SLOT_MMAP_WAIT, SA_END_BEFORE_START);
		s->wait = NULL;
		if (iv->write && s->acq && !s->acq->has_hold)
			mmslot_drop_acq(an, s);
		ival_free(an, iv);
		return;
	}
	if (iv->write != write)
		anomaly_count(an, SLOT_MMAP_WAIT, SA_MODE_MISMATCH);
	write = iv->write;
	s->wait = NULL;
	iv->end = pl->ts_ns;
	ns = iv->end - iv->start;
	hist_add(&an->dist.mmap_wait, ns / 1000);
	an->pc.wait_count[write]++;
	tally_wait(an, t, WAIT_MMAP, ns);
	if (iv->flags & IV_R) {
		/* it counts only if the gap it started in is still open */
		if (t->gap == iv->call)
			close_r(an, iv);
		else
			ival_free(an, iv);
	} else {
		ival_free(an, iv);
	}
	/* our events report the hold with its own hold_start */
	if (write && s->acq && !success)
		close_acq(an, s, pl->ts_ns);
}

static inline __attribute__((always_inline)) void
mmap_hold_end(struct analysis *an, struct task *t, struct mmslot *s, const struct parsed_line *pl,
	      int stock)
{
	/* a stock downgrade (acquire_returned write=false) ends the write hold */
	int write = pl_bool(pl, PF_WRITE) ||
		    (stock && pl->id == MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED);
	struct hold *h = &s->hold;
	uint64_t us;

	if (!h->set) {
		anomaly_end_without_begin(an, t, SLOT_MMAP_HOLD);
		return;
	}
	if (pl->ts_ns < h->start) {
		anomaly_count(an, SLOT_MMAP_HOLD, SA_END_BEFORE_START);
		h->set = 0;
		if (mmslot_has_acq(s))
			mmslot_drop_acq(an, s);
		return;
	}
	if (h->write != write)
		anomaly_count(an, SLOT_MMAP_HOLD, SA_MODE_MISMATCH);
	write = h->write;
	h->set = 0;
	us = (pl->ts_ns - h->start) / 1000;
	if (stock) {
		hist_add(&an->dist.stock_hold, us);
		if (write)
			hist_add(&an->dist.stock_write_hold, us);
	} else {
		hist_add(&an->dist.mmap_hold, us);
		if (write)
			hist_add(&an->dist.mmap_write_hold, us);
	}
	if (!stock && write && s->acq)
		close_acq(an, s, pl->ts_ns);
	else if (stock && write && mmslot_has_acq(s))
		stock_close_write(an, s, pl->ts_ns);
}

/* @t is NULL: the line names two other tasks, not its own */
static void on_sched_switch(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	long long pp = pl_dec(pl, PF_PREV_PID, -1), np = pl_dec(pl, PF_NEXT_PID, -1);

	if (pp > 0 && pp <= INT_MAX) {
		t = task_get(an, (int)pp);
		t->sched_prio = (int)pl_dec(pl, PF_PREV_PRIO, -1);
		task_settle_idle(an, t);
	}
	if (np > 0 && np <= INT_MAX) {
		t = task_get(an, (int)np);
		t->sched_prio = (int)pl_dec(pl, PF_NEXT_PRIO, -1);
		task_settle_idle(an, t);
	}
}

static void on_read_fail(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	(void)t;
	tally_reason(&an->tally.read_fail, pl_str(pl, PF_REASON));
}

static void on_fallback(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	tally_reason(&an->tally.fallback, pl_str(pl, PF_REASON));
	/* a file fault that dropped its lock for I/O, now going to mmap_lock */
	if (t->gap)
		tally_reason(&an->tally.fallback_after_retry, pl_str(pl, PF_REASON));
}

/*
 * An end of the mmap_lock events, in the event's (pid, mm) slot; after it a
 * slot with nothing open goes, one per (pid, mm) would add up.  (A start
 * leaves its slot holding what it opened.)
 */
static inline __attribute__((always_inline)) void
mmap_end(struct analysis *an, struct task *t, const struct parsed_line *pl,
		     int stock, int hold)
{
	struct mmslot *s = mmslot_get(an, t, pl_hex(pl, PF_MM), stock);

	if (hold)
		mmap_hold_end(an, t, s, pl, stock);
	else
		mmap_wait_end(an, t, s, pl, stock);
	mmslot_release(an, t, s);
}

static void on_mmap_wait_start(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	an->raw.custom_mmap_seen = 1;
	mmap_wait_start(an, t, pl, 0);
}

static void on_mmap_wait_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	an->raw.custom_mmap_seen = 1;
	mmap_end(an, t, pl, 0, 0);
}

static void on_mmap_hold_start(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	an->raw.custom_mmap_seen = 1;
	mmap_hold_start(an, t, mmslot_get(an, t, pl_hex(pl, PF_MM), 0), pl,
			pl_bool(pl, PF_WRITE), 0);
}

static void on_mmap_hold_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	an->raw.custom_mmap_seen = 1;
	mmap_end(an, t, pl, 0, 1);
}

static void on_stock_start_locking(struct analysis *an, struct task *t,
				   const struct parsed_line *pl)
{
	mmap_wait_start(an, t, pl, 1);
}

static void on_stock_acquire_returned(struct analysis *an, struct task *t,
				      const struct parsed_line *pl)
{
	mmap_end(an, t, pl, 1, 0);
}

static void on_stock_released(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	mmap_end(an, t, pl, 1, 1);
}

static void on_stock_filemap_fault(struct analysis *an, struct task *t,
				   const struct parsed_line *pl)
{
	stock_filemap_fault(an, t, pl);
}

static void on_contention_begin(struct analysis *an, struct task *t,
				const struct parsed_line *pl)
{
	stock_contention_begin(an, t, pl);
}

static void on_contention_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	stock_contention_end(an, t, pl);
}

static void on_page_fault_user(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	stock_page_fault(an, t, pl, 1);
}

static void on_page_fault_kernel(struct analysis *an, struct task *t,
				 const struct parsed_line *pl)
{
	stock_page_fault(an, t, pl, 0);
}

static void on_process_exit(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	(void)an;
	(void)pl;
	task_end_sfault(t);
}

/* perf builtin-lock's handler table, expanded from the contract's lists. */
const pairing_handler pairing_handlers[PARSE_EV_NR] = {
#define EVENT_HANDLER(id, sys, name, fam, handler) [MMLOCK_EV_##id] = on_##handler,
	MMLOCK_CUSTOM_EVENTS(EVENT_HANDLER)
	MMLOCK_STOCK_EVENTS(EVENT_HANDLER)
#undef EVENT_HANDLER
#define EXTRA_HANDLER(id, sys, name, filter, handler) \
	[PARSE_EV_X(EVSET_X_##id)] = on_##handler,
	EVSET_EXTRAS(EXTRA_HANDLER)
#undef EXTRA_HANDLER
};
