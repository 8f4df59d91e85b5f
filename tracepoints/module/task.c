// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task state of a task inside a probed path (a fault, a mmap_lock call,
 * a VMA write lock), kept from one probe to the next.
 *
 * Records come from a pool allocated at load: probes run with preemption or
 * interrupts off, sometimes under a lock's wait_lock or the runqueue lock,
 * where allocating is not an option.  A record is only ever used by its own
 * task, from task context (probes in interrupt context never touch one).
 *
 * No lock guards the pool: a kprobe handler runs in the int3 trap, which is
 * NMI context (irqentry_nmi_enter()), and a lock taken there and in task
 * context is a deadlock lockdep reports ("inconsistent {INITIAL USE} ->
 * {IN-NMI} usage", seen on a PROVE_LOCKING stock kernel).  The pool is a
 * hash of buckets of MMLOCK_BUCKET_SLOTS slots instead: a task claims a free
 * slot of its bucket with cmpxchg() and gives it back with a release store,
 * and looks itself up by reading the owners of its bucket's slots, nobody
 * else's record.  A task that finds its bucket full is not tracked and the
 * miss is counted (mmlock_dropped, in the "stats" parameter).
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "mmlock_probe.h"

#define MMLOCK_BUCKET_SLOTS	8

static struct task_struct **owners;	/* per slot: its task, or NULL */
static struct mmlock_task *pool;	/* per slot: that task's record */
static unsigned int bucket_bits;

atomic_t mmlock_nr_writers = ATOMIC_INIT(0);
atomic_t mmlock_nr_waits = ATOMIC_INIT(0);
atomic_t mmlock_nr_calls = ATOMIC_INIT(0);

/**
 * mmlock_task_init() - allocate the pool of task records
 * @nr: how many tasks can be inside probed paths at once (rounded up to a
 *      power of two of at least MMLOCK_BUCKET_SLOTS)
 *
 * Return: 0 or -ENOMEM.
 */
int mmlock_task_init(unsigned int nr)
{
	unsigned int slots = max_t(unsigned int, nr, MMLOCK_BUCKET_SLOTS);

	slots = min_t(unsigned int, slots, 1U << 20);
	slots = roundup_pow_of_two(slots);
	bucket_bits = ilog2(slots / MMLOCK_BUCKET_SLOTS);
	owners = vzalloc(array_size(slots, sizeof(*owners)));
	pool = vzalloc(array_size(slots, sizeof(*pool)));
	if (!owners || !pool) {
		mmlock_task_exit();
		return -ENOMEM;
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
	vfree(owners);
	owners = NULL;
}

/* hash_ptr() of 0 bits would shift a u64 by 64 */
static unsigned int bucket_first_slot(struct task_struct *task)
{
	return (bucket_bits ? hash_ptr(task, bucket_bits) : 0) * MMLOCK_BUCKET_SLOTS;
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
	unsigned int first = bucket_first_slot(current), i;
	struct mmlock_task *t;

	for (i = first; i < first + MMLOCK_BUCKET_SLOTS; i++)
		if (READ_ONCE(owners[i]) == current)
			return &pool[i];
	if (!create)
		return NULL;
	for (i = first; i < first + MMLOCK_BUCKET_SLOTS; i++) {
		/* a full barrier on success: the last owner's writes are done */
		if (!READ_ONCE(owners[i]) && !cmpxchg(&owners[i], NULL, current)) {
			t = &pool[i];
			memset(t, 0, sizeof(*t));
			t->task = current;
			return t;
		}
	}
	WRITE_ONCE(mmlock_dropped, READ_ONCE(mmlock_dropped) + 1);
	return NULL;
}

static void task_free(struct mmlock_task *t)
{
	t->task = NULL;
	/* the record's last writes happen before the next owner's memset() */
	smp_store_release(&owners[t - pool], NULL);
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
