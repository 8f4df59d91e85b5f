// SPDX-License-Identifier: GPL-2.0
/*
 * Broken event sequences, counted per slot (perf builtin-lock's "bad"
 * counts): a nested begin, an end without its begin, an interval open at
 * the end, time going backwards; and [LOST] markers, which truncate what is
 * open on their CPU.
 */
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
		if (s->acq && s->acq->start == s->wait->start)
			mmslot_drop_acq(an, s);
		ival_free(an, s->wait);
		s->wait = NULL;
		t->absorb[SLOT_MMAP_WAIT]++;
		an->anom.truncated++;
	}
	if (s->stock && s->acq && !s->acq->has_hold &&
	    truncated(an, s->acq->cpu, s->acq->epoch))
		mmslot_drop_acq(an, s);	/* a queued stock writer: its wait was truncated too */
	if (s->hold.set && truncated(an, s->hold.cpu, s->hold.epoch)) {
		s->hold.set = 0;
		if (s->acq)
			mmslot_drop_acq(an, s);
		t->absorb[SLOT_MMAP_HOLD]++;
		an->anom.truncated++;
	}
}

void anomaly_settle_task_slow(struct analysis *an, struct task *t)
{
	if (t->stack_target && truncated(an, t->stack_target_cpu, t->stack_target_epoch))
		stack_target_put(t);	/* its block, if any, follows the loss */
	if (t->fw && truncated(an, t->fw->cpu, t->fw->epoch)) {
		task_drop_fault_wait(an, t);
		t->absorb[SLOT_FAULT_WAIT]++;
		an->anom.truncated++;
	}
	if (t->fault && truncated(an, t->fault_cpu, t->fault_epoch)) {
		call_put(t->fault);
		t->fault = NULL;
		t->absorb[SLOT_FAULT]++;
		an->anom.truncated++;
	}
	if (t->gap && truncated(an, t->gap_cpu, t->gap_epoch)) {
		call_put(t->gap);
		t->gap = NULL;
		an->anom.truncated++;
	}
	if (t->vw && truncated(an, t->vw->cpu, t->vw->epoch)) {
		task_drop_vma_wait(an, t);
		t->absorb[SLOT_VMA_WAIT]++;
		an->anom.truncated++;
	}
	if (t->vwrite && truncated(an, t->vwrite_cpu, t->vwrite_epoch)) {
		call_put(t->vwrite);
		t->vwrite = NULL;
		t->absorb[SLOT_VMA_WRITE]++;
		an->anom.truncated++;
	}
	if (t->cw && truncated(an, t->cw->cpu, t->cw->epoch)) {
		task_drop_cwait(an, t);
		an->anom.truncated++;
	}
	/* a fault whose events may be lost is no longer followed */
	if (t->sfault && truncated(an, t->sfault_cpu, t->sfault_epoch))
		task_end_sfault(t);
}

/* The items of @h, copied: the caller may change the table while walking them. */
static void **htab_items(const struct htab *h, size_t *n)
{
	void **v = xcalloc(h->nr + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < h->cap; i++)
		if (h->e[i].item)
			v[(*n)++] = h->e[i].item;
	return v;
}

void anomaly_finish(struct analysis *an)
{
	struct task *t;
	void **items;
	size_t i, n;

	items = htab_items(&an->tt.tab, &n);
	for (i = 0; i < n; i++) {
		t = items[i];
		anomaly_settle_task(an, t);
		if (t->fw) {
			anomaly_count(an, SLOT_FAULT_WAIT, SA_UNCLOSED);
			task_drop_fault_wait(an, t);
		}
		if (t->fault) {
			anomaly_count(an, SLOT_FAULT, SA_UNCLOSED);
			call_put(t->fault);
			t->fault = NULL;
		}
		if (t->gap) {
			anomaly_count(an, SLOT_RETRY_GAP, SA_UNCLOSED);
			call_put(t->gap);
			t->gap = NULL;
		}
		if (t->vw) {
			anomaly_count(an, SLOT_VMA_WAIT, SA_UNCLOSED);
			task_drop_vma_wait(an, t);
		}
		if (t->vwrite) {
			anomaly_count(an, SLOT_VMA_WRITE, SA_UNCLOSED);
			call_put(t->vwrite);
			t->vwrite = NULL;
		}
		if (t->cw) {
			anomaly_count(an, SLOT_MMAP_CWAIT, SA_UNCLOSED);
			task_drop_cwait(an, t);
		}
		task_end_sfault(t);
	}
	free(items);
	items = htab_items(&an->ms.tab, &n);
	for (i = 0, t = NULL; i < n; i++) {
		struct mmslot *s = items[i];

		if (!t || t->pid != s->pid)
			t = task_find(an, s->pid);
		if (t)
			anomaly_settle_mmslot(an, t, s);
		if (s->wait) {
			anomaly_count(an, SLOT_MMAP_WAIT, SA_UNCLOSED);
			ival_free(an, s->wait);
			s->wait = NULL;
		}
		if (s->hold.set) {
			anomaly_count(an, SLOT_MMAP_HOLD, SA_UNCLOSED);
			s->hold.set = 0;
		}
		if (s->acq)
			mmslot_drop_acq(an, s);
	}
	free(items);
}

void anomaly_release(struct analysis *an)
{
	size_t i;

	for (i = 0; i < an->ep.tab.cap; i++)
		free(an->ep.tab.e[i].item);
	htab_release(&an->ep.tab);
}
