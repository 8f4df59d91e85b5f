// SPDX-License-Identifier: GPL-2.0
/* Intervals: allocation with the task and [LOST] epoch they belong to, and release. */
#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"
#include "ival.h"
#include "pair.h"
#include "task.h"

/* ival_new() sets each member by name: a member added asks for it there too. */
_Static_assert(sizeof(struct ival) == 144, "struct ival changed: set the new member in ival_new()");

struct ival *ival_new(struct analysis *an, struct task *t, uint64_t ts, int cpu, int prio)
{
	struct ival *iv = slab_take(&an->ival_slab, sizeof(*iv));

	/*
	 * Member by member, not a compound literal: GCC clears a struct of
	 * this size with rep stos, whose start-up costs more than the stores.
	 */
	iv->prev = iv->next = NULL;
	iv->start = ts;
	iv->end = iv->mm = iv->vma = iv->hold_start = iv->lock_addr = iv->seq = 0;
	iv->epoch = anomaly_epoch(an, cpu);
	iv->call = NULL;
	iv->task = t;
	iv->bk[0] = iv->bk[1] = NULL;
	iv->prio = prio;
	iv->cpu = cpu;
	iv->lock = iv->write = iv->has_vma = iv->has_hold = 0;
	iv->flags = 0;
	iv->list = -1;
	t->refs++;
	return iv;
}

void ival_free(struct analysis *an, struct ival *iv)
{
	if (!iv)
		return;
	/* most intervals never were on a sweep list or in a bucket */
	if (iv->list >= 0 || iv->bk[0] || iv->bk[1])
		pair_forget(an, iv);
	call_put(iv->call);
	if (iv->task && !--iv->task->refs && iv->task != an->tt.feeding)
		task_settle_idle(an, iv->task);
	slab_free(&an->ival_slab, iv);
}
