/* SPDX-License-Identifier: GPL-2.0 */
/* Intervals (struct ival, analysis-int.h): their memory and their end. */
#ifndef MMLOCK_IVAL_H
#define MMLOCK_IVAL_H

#include <stdint.h>

struct analysis;
struct ival;
struct task;

/**
 * ival_new() - an interval of @t that starts at @ts on @cpu
 * @an: the analysis
 * @t: its task; the interval holds a reference (task->refs)
 * @ts: its start
 * @cpu: the CPU it opened on (its [LOST] epoch is taken from it)
 * @prio: its task's priority, -1 unknown
 *
 * Return: the interval, on no sweep list.
 */
struct ival *ival_new(struct analysis *an, struct task *t, uint64_t ts, int cpu, int prio);

/**
 * ival_free() - forget @iv: off its sweep list and buckets, its call and task put
 * @an: the analysis
 * @iv: the interval, or NULL
 *
 * A closed stock interval's attribution is final then: it is folded into
 * the summary's tables (pair_forget()).
 */
void ival_free(struct analysis *an, struct ival *iv);

#endif /* MMLOCK_IVAL_H */
