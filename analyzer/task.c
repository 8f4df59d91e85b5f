// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks by pid: what is open for each, and what its later events need.
 * Memory follows the open intervals: a task with nothing open goes on the
 * idle list, and the oldest idle ones are forgotten beyond MAX_IDLE_TASKS.
 */
#include <stdlib.h>

#include "analysis-int.h"
#include "call.h"
#include "ival.h"
#include "mmslot.h"
#include "stack.h"
#include "task.h"
#include "util.h"

static int task_eq(const void *item, const void *key)
{
	return ((const struct task *)item)->pid == *(const int *)key;
}

struct task *task_find(struct analysis *an, int pid)
{
	struct task **r = &an->tt.recent[(unsigned int)pid & (TASK_RECENT - 1)];
	struct task *t = *r;

	/* events come from a few tasks at a time: most are found here */
	if (t && t->pid == pid)
		return t;
	t = htab_find(&an->tt.tab, hash_mix(an->seed, (uint64_t)pid), task_eq, &pid);
	if (t)
		*r = t;
	return t;
}

void task_wake(struct analysis *an, struct task *t)
{
	t->idle = 0;
	an->tt.nr_idle--;
	if (t->idle_prev)
		t->idle_prev->idle_next = t->idle_next;
	else
		an->tt.idle_head = t->idle_next;
	if (t->idle_next)
		t->idle_next->idle_prev = t->idle_prev;
	else
		an->tt.idle_tail = t->idle_prev;
	t->idle_prev = t->idle_next = NULL;
}

static void task_free(struct analysis *an, struct task *t)
{
	struct task **r = &an->tt.recent[(unsigned int)t->pid & (TASK_RECENT - 1)];

	if (*r == t)
		*r = NULL;
	if (t->idle)
		task_wake(an, t);
	mmslot_forget_kept(an, t);
	htab_del(&an->tt.tab, hash_mix(an->seed, (uint64_t)t->pid), t);
	an->tt.nr--;
	call_put(t->sfault);
	free(t->pending_stack);
	t->live = 0;
	slab_free(&an->tt.slab, t);
}

/*
 * Nothing of @t is open, held or expected: it may be forgotten (a pending
 * --stack-position before block goes with it).
 */
static int task_is_idle(const struct analysis *an, const struct task *t)
{
	unsigned int any = 0;
	int s;

	/* the mmap_lock slots first: the stock events have nothing else open */
	if (t->nr_mms || t->refs || t->fault || t->fw || t->gap || t->vwrite || t->vw ||
	    t->stack_target || t->stack_swh || t == an->stk.task)
		return 0;
	/* no early exit: the compiler ORs the absorbs a vector at a time */
	for (s = 0; s < SLOT_NR; s++)
		any |= t->absorb[s];
	return !any;
}

/* task_settle_idle() of a task no interval refers to: is the rest idle too? */
/* @t goes idle: last on the idle list, the one to be forgotten last */
static void idle_list_append(struct analysis *an, struct task *t)
{
	t->idle = 1;
	an->tt.nr_idle++;
	t->idle_prev = an->tt.idle_tail;
	t->idle_next = NULL;
	if (an->tt.idle_tail)
		an->tt.idle_tail->idle_next = t;
	else
		an->tt.idle_head = t;
	an->tt.idle_tail = t;
}

void task_settle_idle_slow(struct analysis *an, struct task *t)
{
	if (t->idle || !task_is_idle(an, t))
		return;
	idle_list_append(an, t);
	while (an->tt.nr_idle > MAX_IDLE_TASKS && !an->tt.finishing)
		task_free(an, an->tt.idle_head);
}

struct idle_walk {
	struct analysis	*an;
	struct task	**v;
	size_t		n, cap;
};

/* A task idle now: task_settle_idle() would have found it so at its last stamp. */
static void idle_collect(void *obj, void *ctx)
{
	struct task *t = obj;
	struct idle_walk *w = ctx;

	if (!t->live || !task_is_idle(w->an, t))
		return;
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1024;
		w->v = xrealloc(w->v, w->cap * sizeof(*w->v));
	}
	w->v[w->n++] = t;
}

static int idle_seq_cmp(const void *a, const void *b)
{
	uint64_t x = (*(struct task *const *)a)->idle_seq, y = (*(struct task *const *)b)->idle_seq;

	return x < y ? -1 : x > y;
}

/*
 * A task to be made is one more than MAX_IDLE_TASKS: from now on the one
 * idle longest may have to be forgotten, and the idle list is kept.  The
 * tasks idle now (between events, each settled after its last) go on it in
 * the order they went idle, as if it had been kept all along.
 */
static void idle_list_make(struct analysis *an)
{
	struct idle_walk w = { an, NULL, 0, 0 };
	size_t i;

	slab_walk(&an->tt.slab, sizeof(struct task), idle_collect, &w);
	qsort(w.v, w.n, sizeof(*w.v), idle_seq_cmp);
	an->tt.idle_head = an->tt.idle_tail = NULL;
	an->tt.nr_idle = 0;
	for (i = 0; i < w.n; i++)
		idle_list_append(an, w.v[i]);
	free(w.v);
	an->tt.idle_listed = 1;
}

struct task *task_get_slow(struct analysis *an, int pid)
{
	struct task *t = task_find(an, pid);

	if (t) {
		if (t->idle)
			task_wake(an, t);
		return t;
	}
	/* made before the new task, which is not idle: it has had no event yet */
	if (an->tt.nr >= MAX_IDLE_TASKS && !an->tt.idle_listed)
		idle_list_make(an);
	t = slab_alloc(&an->tt.slab, sizeof(*t));
	t->live = 1;
	t->pid = pid;
	t->tgid = -1;
	t->prio = -1;
	t->sched_prio = -1;
	htab_add(&an->tt.tab, hash_mix(an->seed, (uint64_t)pid), t);
	an->tt.recent[(unsigned int)pid & (TASK_RECENT - 1)] = t;
	an->tt.nr++;
	return t;
}

void task_drop_fault_wait(struct analysis *an, struct task *t)
{
	ival_free(an, t->fw);
	t->fw = NULL;
}

void task_drop_cwait(struct analysis *an, struct task *t)
{
	ival_free(an, t->cw);
	t->cw = NULL;
}

void task_end_sfault(struct task *t)
{
	call_put(t->sfault);
	t->sfault = NULL;
}

/* in memory order: see anomaly_finish() */
static void task_release(void *obj, void *ctx)
{
	struct task *t = obj;

	(void)ctx;
	if (!t->live)
		return;
	stack_target_put(t);
	call_put(t->sfault);
	free(t->pending_stack);
}

void task_release_all(struct analysis *an)
{
	slab_walk(&an->tt.slab, sizeof(struct task), task_release, NULL);
	htab_release(&an->tt.tab);
	slab_release(&an->tt.slab);
}
