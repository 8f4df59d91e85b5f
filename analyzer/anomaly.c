// SPDX-License-Identifier: GPL-2.0
/*
 * Broken event sequences, counted per slot (perf builtin-lock's "bad"
 * counts): a nested begin, an end without its begin, an interval open at
 * the end, time going backwards; and [LOST] markers, which truncate what is
 * open on their CPU.
 */
#include <stddef.h>
#include <stdlib.h>

#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"
#include "ival.h"
#include "mmslot.h"
#include "stack.h"
#include "task.h"
#include "util.h"

const char *const slot_names[SLOT_NR] = {
	"fault", "fault_wait", "retry_gap", "vma_write", "vma_wait", "mmap_wait", "mmap_hold",
	"mmap_cwait",
};

const char *const slot_anomaly_names[SA_NR] = {
	"end_without_begin", "begin_nested", "unclosed", "mode_mismatch", "end_before_start",
};

/* An end with no open begin: absorbed when the begin was lost, else counted. */
void anomaly_end_without_begin(struct analysis *an, struct task *t, enum slot s)
{
	if (t->absorb[s]) {
		t->absorb[s]--;
		return;
	}
	anomaly_count(an, s, SA_END_WITHOUT_BEGIN);
}

/*
 * [LOST n EVENTS] on a CPU truncates every interval opened on it and still
 * open.  A marker only bumps that CPU's epoch (constant time whatever is
 * open); each open slot remembers the epoch it opened in, and a slot whose
 * CPU moved on is truncated when its task is next touched (anomaly_settle_task(),
 * before anything else happens to it) or at the end: the same outcome as
 * walking every task at the marker, which cost O(tasks) per marker.
 */
struct cpu_epoch_ent {
	int		cpu;
	uint64_t	epoch;
};

static int epoch_eq(const void *item, const void *key)
{
	return ((const struct cpu_epoch_ent *)item)->cpu == *(const int *)key;
}

static uint64_t *epoch_slot(struct analysis *an, int cpu, int create)
{
	struct cpu_epoch_ent *e;
	uint64_t h;

	if (cpu >= 0 && cpu < (int)ARRAY_SIZE(an->ep.small))
		return &an->ep.small[cpu];
	h = hash_mix(an->seed, (uint64_t)(unsigned int)cpu);
	e = htab_find(&an->ep.tab, h, epoch_eq, &cpu);
	if (!e && create) {
		e = xcalloc(1, sizeof(*e));
		e->cpu = cpu;
		htab_add(&an->ep.tab, h, e);
	}
	return e ? &e->epoch : NULL;
}

uint64_t anomaly_epoch_slow(struct analysis *an, int cpu)
{
	uint64_t *e = epoch_slot(an, cpu, 0);

	return e ? *e : 0;
}

void anomaly_lost(struct analysis *an, int cpu)
{
	++*epoch_slot(an, cpu, 1);
	an->ep.moved = 1;
}

static int truncated(struct analysis *an, int cpu, uint64_t epoch)
{
	return anomaly_epoch(an, cpu) != epoch;
}

void anomaly_settle_mmslot_slow(struct analysis *an, struct task *t, struct mmslot *s)
{
	if (s->wait && truncated(an, s->wait->cpu, s->wait->epoch)) {
		if ((s->acq && s->acq->start == s->wait->start) ||
		    (s->swh.set && s->swh.start == s->wait->start))
			mmslot_drop_acq(an, s);
		ival_free(an, s->wait);
		s->wait = NULL;
		t->absorb[SLOT_MMAP_WAIT]++;
		an->anom.truncated++;
	}
	if (s->sw.set && truncated(an, s->sw.cpu, s->sw.epoch)) {
		if ((s->acq && s->acq->start == s->sw.start) ||
		    (s->swh.set && s->swh.start == s->sw.start))
			mmslot_drop_acq(an, s);
		mmslot_sw_clear(s);
		t->absorb[SLOT_MMAP_WAIT]++;
		an->anom.truncated++;
	}
	if (s->stock && s->acq && !s->acq->has_hold &&
	    truncated(an, s->acq->cpu, s->acq->epoch))
		mmslot_drop_acq(an, s);	/* a queued stock writer: its wait was truncated too */
	if (s->hold.set && truncated(an, s->hold.cpu, s->hold.epoch)) {
		s->hold.set = 0;
		if (mmslot_has_acq(s))
			mmslot_drop_acq(an, s);
		t->absorb[SLOT_MMAP_HOLD]++;
		an->anom.truncated++;
	}
}

/*
 * A task's open intervals and calls, each by its slot: where it is, where a
 * call keeps its CPU and [LOST] epoch (an interval keeps its own), and
 * whether its truncation leaves an absorb for its lost end.
 */
static const struct task_open {
	enum slot	slot;
	size_t		ival;		/* offsetof() a struct ival * of struct task, or 0 */
	size_t		call;		/* else of a struct call * */
	size_t		cpu, epoch;	/* the call's */
	int		absorb;
} task_open[] = {
	{ SLOT_FAULT_WAIT, offsetof(struct task, fw), 0, 0, 0, 1 },
	{ SLOT_FAULT, 0, offsetof(struct task, fault),
	  offsetof(struct task, fault_cpu), offsetof(struct task, fault_epoch), 1 },
	{ SLOT_RETRY_GAP, 0, offsetof(struct task, gap),
	  offsetof(struct task, gap_cpu), offsetof(struct task, gap_epoch), 0 },
	{ SLOT_VMA_WAIT, offsetof(struct task, vw), 0, 0, 0, 1 },
	{ SLOT_VMA_WRITE, 0, offsetof(struct task, vwrite),
	  offsetof(struct task, vwrite_cpu), offsetof(struct task, vwrite_epoch), 1 },
	{ SLOT_MMAP_CWAIT, offsetof(struct task, cw), 0, 0, 0, 0 },
};

static struct ival **open_ival(struct task *t, const struct task_open *o)
{
	return (struct ival **)((char *)t + o->ival);
}

static struct call **open_call(struct task *t, const struct task_open *o)
{
	return (struct call **)((char *)t + o->call);
}

/* Drop what @o says @t has open, if anything: 1 when it had. */
static int task_drop_open(struct analysis *an, struct task *t, const struct task_open *o)
{
	if (o->ival) {
		struct ival **iv = open_ival(t, o);

		if (!*iv)
			return 0;
		ival_free(an, *iv);
		*iv = NULL;
	} else {
		struct call **c = open_call(t, o);

		if (!*c)
			return 0;
		call_put(*c);
		*c = NULL;
	}
	return 1;
}

/* Was what @o says @t has open opened before a [LOST] marker of its CPU? */
static int open_truncated(struct analysis *an, struct task *t, const struct task_open *o)
{
	const struct ival *iv;

	if (!o->ival)
		return *open_call(t, o) && truncated(an, *(int *)((char *)t + o->cpu),
						     *(uint64_t *)((char *)t + o->epoch));
	iv = *open_ival(t, o);
	return iv && truncated(an, iv->cpu, iv->epoch);
}

void anomaly_settle_task_slow(struct analysis *an, struct task *t)
{
	size_t i;

	if ((t->stack_target || t->stack_swh) &&
	    truncated(an, t->stack_target_cpu, t->stack_target_epoch))
		stack_target_put(t);	/* its block, if any, follows the loss */
	for (i = 0; i < ARRAY_SIZE(task_open); i++) {
		const struct task_open *o = &task_open[i];

		if (!open_truncated(an, t, o))
			continue;
		task_drop_open(an, t, o);
		if (o->absorb)
			t->absorb[o->slot]++;
		an->anom.truncated++;
	}
	/* a fault whose events may be lost is no longer followed */
	if (t->sfault && truncated(an, t->sfault_cpu, t->sfault_epoch))
		task_end_sfault(t);
}

/*
 * The end walks go over the task and slot slabs in memory order, not over
 * their hashes: with 1e5 open faults or 5e5 open mm's, a walk in hash
 * order takes a cache and TLB miss per object and what it holds.  Objects
 * given back are met too: a task by its live mark, a slot by having nothing
 * open (only empty slots are given back).  Nothing is allocated from or
 * given back to either slab during the walks (analysis_finish() forgets no
 * task meanwhile).
 */
static void task_finish(void *obj, void *ctx)
{
	struct analysis *an = ctx;
	struct task *t = obj;
	size_t i;

	if (!t->live)
		return;
	anomaly_settle_task(an, t);
	for (i = 0; i < ARRAY_SIZE(task_open); i++)
		if (task_drop_open(an, t, &task_open[i]))
			anomaly_count(an, task_open[i].slot, SA_UNCLOSED);
	task_end_sfault(t);
}

struct mmslot_walk {
	struct analysis	*an;
	struct task	*t;	/* the task of the slot met last */
};

static void mmslot_finish(void *obj, void *ctx)
{
	struct mmslot_walk *w = ctx;
	struct analysis *an = w->an;
	struct mmslot *s = obj;

	if (!s->wait && !s->sw.set && !s->hold.set && !mmslot_has_acq(s))
		return;
	if (!w->t || w->t->pid != s->pid)
		w->t = task_find(an, s->pid);
	if (w->t)
		anomaly_settle_mmslot(an, w->t, s);
	if (s->wait) {
		anomaly_count(an, SLOT_MMAP_WAIT, SA_UNCLOSED);
		ival_free(an, s->wait);
		s->wait = NULL;
	}
	if (s->sw.set) {
		anomaly_count(an, SLOT_MMAP_WAIT, SA_UNCLOSED);
		mmslot_sw_clear(s);
	}
	if (s->hold.set) {
		anomaly_count(an, SLOT_MMAP_HOLD, SA_UNCLOSED);
		s->hold.set = 0;
	}
	if (mmslot_has_acq(s))
		mmslot_drop_acq(an, s);
}

void anomaly_finish(struct analysis *an)
{
	struct mmslot_walk w = { an, NULL };

	slab_walk(&an->tt.slab, sizeof(struct task), task_finish, an);
	slab_walk(&an->ms.slab, sizeof(struct mmslot), mmslot_finish, &w);
}

void anomaly_release(struct analysis *an)
{
	size_t i;

	for (i = 0; i < an->ep.tab.cap; i++)
		free(an->ep.tab.e[i].item);
	htab_release(&an->ep.tab);
}
