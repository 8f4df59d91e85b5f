/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Broken event sequences: a begin nested in an open one, an end without its
 * begin, what stays open at the end, time going backwards, and what a
 * [LOST] marker truncated.
 */
#ifndef MMLOCK_ANOMALY_H
#define MMLOCK_ANOMALY_H

#include <stdint.h>

#include "analysis-int.h"

/**
 * anomaly_count() - count one anomaly @a of slot @s
 * @an: the analysis
 * @s: the slot (interval kind)
 * @a: what was wrong
 */
static inline void anomaly_count(struct analysis *an, enum slot s, enum slot_anomaly a)
{
	an->anom.slot[s][a]++;
}

/**
 * anomaly_end_without_begin() - an end of slot @s found nothing open in @t
 * @an: the analysis
 * @t: the task
 * @s: the slot
 *
 * Absorbed when the begin was lost ([LOST] truncated it), else counted.
 */
void anomaly_end_without_begin(struct analysis *an, struct task *t, enum slot s);

/**
 * anomaly_epoch_slow() - anomaly_epoch() once a [LOST] marker moved an epoch
 * @an: the analysis
 * @cpu: the CPU
 *
 * Return: the epoch.
 */
uint64_t anomaly_epoch_slow(struct analysis *an, int cpu);

/**
 * anomaly_epoch() - the [LOST] epoch of @cpu: how many markers it has seen
 * @an: the analysis
 * @cpu: the CPU
 *
 * Every interval takes one: inline, for a trace without markers.
 *
 * Return: the epoch; an interval opened in an older one was truncated.
 */
static inline uint64_t anomaly_epoch(struct analysis *an, int cpu)
{
	return an->ep.moved ? anomaly_epoch_slow(an, cpu) : 0;
}

/**
 * anomaly_lost() - a [LOST] marker of @cpu: what is open on it is truncated
 * @an: the analysis
 * @cpu: the CPU
 *
 * Constant time: only the CPU's epoch moves; each slot opened before is
 * truncated when its task is next touched (anomaly_settle_task(),
 * anomaly_settle_mmslot()) or at the end, the same outcome as walking
 * every task at the marker.
 */
void anomaly_lost(struct analysis *an, int cpu);

/**
 * anomaly_settle_task_slow() - anomaly_settle_task() once a marker moved an epoch
 * @an: the analysis
 * @t: the task
 */
void anomaly_settle_task_slow(struct analysis *an, struct task *t);

/**
 * anomaly_settle_task() - drop what of @t a [LOST] marker truncated
 * @an: the analysis
 * @t: the task, before anything else happens to it
 *
 * A truncated slot leaves an absorb for its lost end.  Until a marker came
 * nothing can be truncated: that test inline, for every event.
 */
static inline void anomaly_settle_task(struct analysis *an, struct task *t)
{
	if (an->ep.moved)
		anomaly_settle_task_slow(an, t);
}

/**
 * anomaly_settle_mmslot_slow() - anomaly_settle_mmslot() once a marker moved an epoch
 * @an: the analysis
 * @t: the task of @s
 * @s: the (pid, mm) slot
 */
void anomaly_settle_mmslot_slow(struct analysis *an, struct task *t, struct mmslot *s);

/**
 * anomaly_settle_mmslot() - drop what of @s a [LOST] marker truncated
 * @an: the analysis
 * @t: the task of @s
 * @s: the (pid, mm) slot
 */
static inline void anomaly_settle_mmslot(struct analysis *an, struct task *t, struct mmslot *s)
{
	if (an->ep.moved)
		anomaly_settle_mmslot_slow(an, t, s);
}

/**
 * anomaly_finish() - the end of the input: whatever is still open is unclosed
 * @an: the analysis
 *
 * Every task's and (pid, mm) slot's open intervals are counted and dropped.
 */
void anomaly_finish(struct analysis *an);

/**
 * anomaly_release() - free the per-CPU epochs (the analysis ends)
 * @an: the analysis
 */
void anomaly_release(struct analysis *an);

#endif /* MMLOCK_ANOMALY_H */
