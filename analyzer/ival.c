// SPDX-License-Identifier: GPL-2.0
/* Intervals: allocation with the task and [LOST] epoch they belong to, and release. */
#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"
#include "ival.h"
#include "pair.h"
#include "task.h"

struct ival *ival_new(struct analysis *an, struct task *t, uint64_t ts, int cpu, int prio)
{
	struct ival *iv = slab_take(&an->ival_slab, sizeof(*iv));

	*iv = (struct ival){ .start = ts, .task = t, .cpu = cpu, .epoch = anomaly_epoch(an, cpu),
			     .prio = prio, .list = -1 };
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
