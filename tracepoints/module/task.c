// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task state of a task inside a probed path (a fault, a mmap_lock call,
 * a VMA write lock), kept from one probe to the next.
 *
 * Records come from a pool allocated at load: probes run with preemption or
 * interrupts off, sometimes under a lock's wait_lock or the runqueue lock,
 * where allocating is not an option.  A record is only ever used by its own
 * task, from task context (probes in interrupt context never touch one), so
 * only the hash chains and the free list need a lock; both are raw
 * spinlocks taken with interrupts off and never held while anything else is
 * done.  When the pool is empty the task is not tracked and the miss is
 * counted (mmlock_dropped, in the "stats" parameter).
 */
#include <linux/hash.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "mmlock_probe.h"

#define MMLOCK_HASH_BITS	8

static struct mmlock_task_bucket {
	raw_spinlock_t		lock;
	struct mmlock_task	*head;
} buckets[1 << MMLOCK_HASH_BITS];

static struct mmlock_task *pool;
static struct mmlock_task *free_list;
static DEFINE_RAW_SPINLOCK(free_lock);

atomic_t mmlock_nr_writers = ATOMIC_INIT(0);
atomic_t mmlock_nr_waits = ATOMIC_INIT(0);
atomic_t mmlock_nr_calls = ATOMIC_INIT(0);

/**
 * mmlock_task_init() - allocate the pool of task records
 * @nr: how many tasks can be inside probed paths at once
 *
 * Return: 0 or -ENOMEM.
 */
int mmlock_task_init(unsigned int nr)
{
	unsigned int i;

	if (!nr)
		nr = 1;
	pool = vzalloc(array_size(nr, sizeof(*pool)));
	if (!pool)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(buckets); i++) {
		raw_spin_lock_init(&buckets[i].lock);
		buckets[i].head = NULL;
	}
	free_list = NULL;
	for (i = nr; i-- > 0; ) {
		pool[i].next = free_list;
		free_list = &pool[i];
	}
	return 0;
}

/**
 * mmlock_task_exit() - free the pool; every probe must be unregistered
 */
void mmlock_task_exit(void)
{
	vfree(pool);
	pool = NULL;
}

static struct mmlock_task_bucket *bucket_of(struct task_struct *task)
{
	return &buckets[hash_ptr(task, MMLOCK_HASH_BITS)];
}

/**
 * mmlock_task_get() - the current task's record
 * @create: make one when there is none
 *
 * Only from task context.  The caller sets the role bit it uses and gives
 * it back with mmlock_task_put().
 *
 * Return: the record, or NULL (none, or no room: counted).
 */
struct mmlock_task *mmlock_task_get(bool create)
{
	struct mmlock_task_bucket *b = bucket_of(current);
	struct mmlock_task *t;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	for (t = b->head; t; t = t->next)
		if (t->task == current)
			break;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	if (t || !create)
		return t;

	raw_spin_lock_irqsave(&free_lock, flags);
	t = free_list;
	if (t)
		free_list = t->next;
	raw_spin_unlock_irqrestore(&free_lock, flags);
	if (!t) {
		WRITE_ONCE(mmlock_dropped, READ_ONCE(mmlock_dropped) + 1);
		return NULL;
	}
	memset(t, 0, sizeof(*t));
	t->task = current;
	raw_spin_lock_irqsave(&b->lock, flags);
	t->next = b->head;
	b->head = t;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return t;
}

static void task_free(struct mmlock_task *t)
{
	struct mmlock_task_bucket *b = bucket_of(t->task);
	struct mmlock_task **pp;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	for (pp = &b->head; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
	raw_spin_lock_irqsave(&free_lock, flags);
	t->task = NULL;
	t->next = free_list;
	free_list = t;
	raw_spin_unlock_irqrestore(&free_lock, flags);
}

/**
 * mmlock_task_put() - end one role of a record; free it when none is left
 * @t:    the current task's record
 * @role: MMLOCK_R_* bit
 */
void mmlock_task_put(struct mmlock_task *t, unsigned int role)
{
	t->roles &= ~role;
	if (!t->roles)
		task_free(t);
}

/**
 * mmlock_task_forget() - drop the current task's record, whatever it holds
 *
 * For an exiting task: a path it left without its probe seeing the end
 * (the module was loaded in the middle of it) must not keep the record.
 */
void mmlock_task_forget(void)
{
	struct mmlock_task *t = mmlock_task_get(false);

	if (!t)
		return;
	/* a refcount writer counts in nr_writers, an rwsem one in nr_waits */
	if ((t->roles & MMLOCK_R_WRITER) && !t->wv_lock && t->wv_vma)
		atomic_dec(&mmlock_nr_writers);
	if (t->roles & MMLOCK_R_CALL) {
		atomic_dec(&mmlock_nr_calls);
		if (t->call_waiting)
			atomic_dec(&mmlock_nr_waits);
	}
	if ((t->roles & MMLOCK_R_WRITER) && t->wv_lock)
		atomic_dec(&mmlock_nr_waits);
	task_free(t);
}
