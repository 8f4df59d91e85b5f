/* SPDX-License-Identifier: GPL-2.0 */
/* The tasks (struct task, analysis-int.h): by pid, and forgotten when idle. */
#ifndef MMLOCK_TASK_H
#define MMLOCK_TASK_H

#include "analysis-int.h"

/**
 * task_find() - the task of @pid, if it is known
 * @an: the analysis
 * @pid: the pid
 *
 * Return: the task, or NULL.
 */
struct task *task_find(struct analysis *an, int pid);

/**
 * task_wake() - @t is no longer idle (off the idle list, if kept): an event of it came
 * @an: the analysis
 * @t: the task, idle
 */
void task_wake(struct analysis *an, struct task *t);

/**
 * task_get_slow() - task_get() past its recent-task test
 * @an: the analysis
 * @pid: the pid
 *
 * Return: the task.
 */
struct task *task_get_slow(struct analysis *an, int pid);

/**
 * task_get() - the task of @pid, created when unknown; off the idle list
 * @an: the analysis
 * @pid: the pid
 *
 * Events come from a few tasks at a time: most are the recent task of
 * their pid, found inline.
 *
 * Return: the task.  task_settle_idle() after its event puts it back.
 */
static inline struct task *task_get(struct analysis *an, int pid)
{
	struct task *t = an->tt.recent[(unsigned int)pid & (TASK_RECENT - 1)];

	if (!t || t->pid != pid)
		return task_get_slow(an, pid);
	if (t->idle)
		task_wake(an, t);
	return t;
}

/**
 * task_settle_idle_slow() - task_settle_idle() past its quick tests, the idle list kept
 * @an: the analysis
 * @t: the task, not on the idle list, with no interval referring to it
 */
void task_settle_idle_slow(struct analysis *an, struct task *t);

/**
 * task_settle_idle() - after @t's event: idle, it joins the idle list
 * @an: the analysis
 * @t: the task
 *
 * The oldest idle tasks beyond MAX_IDLE_TASKS are forgotten, so memory
 * follows the open intervals rather than every pid ever seen (issue 13 L6).
 * Most tasks an event touches still have an interval or an mm slot open:
 * those tests first, inline.
 */
static inline void task_settle_idle(struct analysis *an, struct task *t)
{
	/* one test, not three: each is as often what is left open */
	if (t->refs | (unsigned int)t->nr_mms | (unsigned int)t->idle)
		return;
	/*
	 * Until the idle list is kept (task_table.idle_listed) a settle only
	 * stamps the task: every step that may leave it idle is followed by
	 * one, and none comes after that until it is woken, so its last stamp
	 * says when it went idle, if it is idle when the list is made.
	 */
	if (an->tt.idle_listed)
		task_settle_idle_slow(an, t);
	else
		t->idle_seq = ++an->tt.idle_clock;
}

/**
 * task_drop_fault_wait() - forget @t's open fault wait (not closed: no duration)
 * @an: the analysis
 * @t: the task
 */
void task_drop_fault_wait(struct analysis *an, struct task *t);

/**
 * task_drop_cwait() - forget @t's open stock contended wait
 * @an: the analysis
 * @t: the task
 */
void task_drop_cwait(struct analysis *an, struct task *t);

/**
 * task_end_sfault() - @t's stock page fault is no longer followed
 * @t: the task
 */
void task_end_sfault(struct task *t);

/**
 * task_release_all() - free every task (the analysis ends; no interval is left)
 * @an: the analysis
 */
void task_release_all(struct analysis *an);

#endif /* MMLOCK_TASK_H */
