// SPDX-License-Identifier: GPL-2.0
/*
 * The lock side: mmap_lock holds and waits, and on kernels whose per-VMA
 * lock is an rwsem (Linux 6.4-6.14, android14-6.1, android15-6.6) the VMA
 * writer's wait.
 *
 * The stock mmap_lock tracepoints say when a lock call starts
 * (start_locking), returns (acquire_returned) and when the lock is released.
 * Between the first two the inline mmap_*_lock() calls down_read/down_write
 * (and their _killable forms), which are probed: if the rwsem is not free at
 * that moment (the condition under which its trylock would fail) the call
 * waits, exactly as the series reports it (it emits mmap_lock_wait_start when
 * its trylock fails, just before down_*()); the wait ends with the call, at
 * acquire_returned.  A trylock (mmap_read_trylock) calls down_read_trylock(),
 * not probed, so it never reports a wait, as in the series.  Where those
 * functions cannot be probed, lock:contention_begin/end on &mm->mmap_lock
 * inside the open call stand in (a wait won by spinning is then not seen).  A write acquisition is a
 * hold from acquire_returned to released; a downgrade (acquire_returned for
 * reading, no start_locking, the task still owning the rwsem for writing)
 * ends the write hold and starts a read hold, as the series prints it.
 *
 * vma_start_write() is inline on the rwsem design: its down_write() on the
 * VMA's vm_lock cannot be probed by name.  A write contention of a task that
 * owns its mm's mmap_lock for writing is matched against the VMAs of that
 * mm: the writer holds mmap_lock, so the VMA tree cannot change under the
 * walk.  Only writers that wait are seen (caps: writer_begin=contended).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <trace/events/lock.h>

#include "mmlock_probe.h"
#include "mmlock_probe_trace.h"

#if defined(MMLOCK_VM_LOCK_PTR)
#define MMLOCK_VMA_RWSEM(vma)	(&(vma)->vm_lock->lock)
#elif defined(MMLOCK_VM_LOCK_EMBED)
#define MMLOCK_VMA_RWSEM(vma)	(&(vma)->vm_lock.lock)
#elif defined(MMLOCK_VMA_LOCK_FIELD)
#define MMLOCK_VMA_RWSEM(vma)	(&(vma)->lock)
#endif

#if defined(MMLOCK_VMA_RWSEM) && defined(CONFIG_PER_VMA_LOCK) && !defined(CONFIG_PREEMPT_RT)
#define MMLOCK_RWSEM_WRITERS
#endif

/*
 * Does the current task own @sem for writing?  kernel/locking/rwsem.c keeps
 * the writer in ->owner with two flag bits below it (RWSEM_READER_OWNED,
 * RWSEM_NONSPINNABLE) and bit 0 of ->count set while write-locked.
 */
#define MMLOCK_RWSEM_OWNER_FLAGS	3UL
#define MMLOCK_RWSEM_WRITER_LOCKED	1UL

static bool rwsem_write_owned_by_current(struct rw_semaphore *sem)
{
#ifndef CONFIG_PREEMPT_RT
	unsigned long owner = atomic_long_read(&sem->owner);

	return (atomic_long_read(&sem->count) & MMLOCK_RWSEM_WRITER_LOCKED) &&
	       (struct task_struct *)(owner & ~MMLOCK_RWSEM_OWNER_FLAGS) == current;
#else
	return false;
#endif
}

static bool down_probed;

/* The call's state ends: its wait too. */
static void call_end(struct mmlock_task *t)
{
	if (t->call_waiting)
		atomic_dec(&mmlock_nr_waits);
	t->call_waiting = false;
	atomic_dec(&mmlock_nr_calls);
	mmlock_task_put(t, MMLOCK_R_CALL);
}

static void mm_start_locking(struct mm_struct *mm, bool write)
{
	struct mmlock_task *t;

	if (!mmlock_on() || !in_task())
		return;
	t = mmlock_task_get(true);
	if (!t)
		return;
	if (t->roles & MMLOCK_R_CALL) {
		if (t->call_waiting)
			atomic_dec(&mmlock_nr_waits);
	} else {
		atomic_inc(&mmlock_nr_calls);
	}
	t->roles |= MMLOCK_R_CALL;
	t->call_mm = mm;
	t->call_lock = &mm->mmap_lock;
	t->call_write = write;
	t->call_waiting = false;
}

static void mm_acquire_returned(struct mm_struct *mm, bool write, bool success)
{
	struct mmlock_task *t;

	if (!mmlock_on())
		return;
	if (in_task()) {
		t = mmlock_task_get(false);
		if (t && (t->roles & MMLOCK_R_CALL) && t->call_mm == mm) {
			/* down_*() returned: its wait, if it had one, is over */
			if (t->call_waiting && down_probed)
				trace_mmap_lock_wait_end(mm, write, success,
							 local_clock() - t->call_wait_start);
			call_end(t);
		} else if (!write && success &&
			   rwsem_write_owned_by_current(&mm->mmap_lock)) {
			/* mmap_write_downgrade(): no start_locking before it */
			trace_mmap_lock_hold_end(mm, true);
			trace_mmap_lock_hold_start(mm, false);
			return;
		}
	}
	if (success)
		trace_mmap_lock_hold_start(mm, write);
}

static void mm_released(struct mm_struct *mm, bool write)
{
	if (mmlock_on())
		trace_mmap_lock_hold_end(mm, write);
}

#ifdef MMLOCK_TP_MEMCG_PATH
static void probe_start_locking(void *data, struct mm_struct *mm,
				const char *memcg_path, bool write)
{
	mm_start_locking(mm, write);
}

static void probe_acquire_returned(void *data, struct mm_struct *mm,
				   const char *memcg_path, bool write, bool success)
{
	mm_acquire_returned(mm, write, success);
}

static void probe_released(void *data, struct mm_struct *mm,
			   const char *memcg_path, bool write)
{
	mm_released(mm, write);
}
#else
static void probe_start_locking(void *data, struct mm_struct *mm, bool write)
{
	mm_start_locking(mm, write);
}

static void probe_acquire_returned(void *data, struct mm_struct *mm,
				   bool write, bool success)
{
	mm_acquire_returned(mm, write, success);
}

static void probe_released(void *data, struct mm_struct *mm, bool write)
{
	mm_released(mm, write);
}
#endif

/*
 * Would a trylock of @sem fail now?  kernel/locking/rwsem.c: a reader fails
 * on a writer, waiters, a hand-off or a read failure (bits 0, 1, 2 and the
 * top bit of ->count); a writer unless ->count is 0.
 */
#define MMLOCK_RWSEM_READ_FAILED_MASK	(7UL | (1UL << (BITS_PER_LONG - 1)))

static bool rwsem_busy(struct rw_semaphore *sem, bool write)
{
#ifndef CONFIG_PREEMPT_RT
	unsigned long count = atomic_long_read(&sem->count);

	return write ? count != 0 : (count & MMLOCK_RWSEM_READ_FAILED_MASK);
#else
	return false;
#endif
}

/* down_read(), down_write() and their _killable forms, at entry */
static int down_pre(struct kprobe *p, struct pt_regs *regs)
{
	void *sem = (void *)regs_get_kernel_argument(regs, 0);
	struct mmlock_task *t;

	if (!atomic_read(&mmlock_nr_calls) || !mmlock_on() || !in_task())
		return 0;
	t = mmlock_task_get(false);
	if (!t || !(t->roles & MMLOCK_R_CALL) || t->call_lock != sem || t->call_waiting)
		return 0;
	if (!rwsem_busy(sem, t->call_write))
		return 0;
	t->call_waiting = true;
	t->call_wait_start = local_clock();
	atomic_inc(&mmlock_nr_waits);
	/* the return address of down_*(): inside the caller of mmap_*_lock() */
	trace_mmap_lock_wait_start(t->call_mm, t->call_write, mmlock_entry_caller(regs));
	return 0;
}

static struct kprobe down_kps[] = {
	{ .symbol_name = "down_read", .pre_handler = down_pre },
	{ .symbol_name = "down_read_killable", .pre_handler = down_pre },
	{ .symbol_name = "down_write", .pre_handler = down_pre },
	{ .symbol_name = "down_write_killable", .pre_handler = down_pre },
	{ .symbol_name = "down_write_nested", .pre_handler = down_pre },	/* LOCKDEP */
	{ .symbol_name = "down_write_killable_nested", .pre_handler = down_pre },
};
static bool down_on[ARRAY_SIZE(down_kps)];

#ifdef MMLOCK_RWSEM_WRITERS
/*
 * A write contention of a task holding its mmap_lock for writing: is @lock
 * the vm_lock of one of its VMAs?  Then this is vma_start_write() waiting
 * for a fault that holds the VMA read-locked.
 */
static void writer_contention(struct mmlock_task *t, void *lock)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma, *found = NULL;

	if (!mm || !rwsem_write_owned_by_current(&mm->mmap_lock))
		return;
	{
		VMA_ITERATOR(vmi, mm, 0);

		rcu_read_lock();
		for_each_vma(vmi, vma) {
			if ((void *)MMLOCK_VMA_RWSEM(vma) == lock) {
				found = vma;
				break;
			}
		}
		rcu_read_unlock();
	}
	if (!found)
		return;
	if (!t)
		t = mmlock_task_get(true);
	if (!t || (t->roles & MMLOCK_R_WRITER))
		return;
	t->roles |= MMLOCK_R_WRITER;
	mmlock_vma_snapshot(&t->wv, found);
	t->wv_lock = lock;
	t->wv_vma = NULL;
	t->wv_detach = false;
	t->wv_waiting = true;
	t->wv_wait_start = local_clock();
	atomic_inc(&mmlock_nr_waits);
	trace_vma_start_write_begin(&t->wv, mmlock_stack_caller(), mmlock_user_pc());
	/* an rwsem does not tell how many readers hold it */
	trace_vma_start_write_wait_start(&t->wv, -1, false);
}
#endif

static void probe_contention_begin(void *data, void *lock, unsigned int flags)
{
	struct mmlock_task *t;

	/* rwsem sleeps only: not spinlocks, mutexes, percpu or RT locks */
	if (!flags || (flags & ~(LCB_F_READ | LCB_F_WRITE)))
		return;
	if (!mmlock_on() || !in_task())
		return;
	t = mmlock_task_get(false);
	if (!down_probed && t && (t->roles & MMLOCK_R_CALL) && t->call_lock == lock &&
	    !t->call_waiting) {
		t->call_waiting = true;
		t->call_wait_start = local_clock();
		atomic_inc(&mmlock_nr_waits);
		trace_mmap_lock_wait_start(t->call_mm, t->call_write,
					   mmlock_stack_caller());
		return;
	}
#ifdef MMLOCK_RWSEM_WRITERS
	if (flags & LCB_F_WRITE)
		writer_contention(t, lock);
#endif
}

static void probe_contention_end(void *data, void *lock, int ret)
{
	struct mmlock_task *t;
	u64 now;

	if (!atomic_read(&mmlock_nr_waits) || !in_task())
		return;
	t = mmlock_task_get(false);
	if (!t)
		return;
	now = local_clock();
	if (!down_probed && (t->roles & MMLOCK_R_CALL) && t->call_waiting &&
	    t->call_lock == lock) {
		t->call_waiting = false;
		atomic_dec(&mmlock_nr_waits);
		trace_mmap_lock_wait_end(t->call_mm, t->call_write, ret == 0,
					 now - t->call_wait_start);
		return;
	}
	if ((t->roles & MMLOCK_R_WRITER) && t->wv_lock == lock) {
		atomic_dec(&mmlock_nr_waits);
		trace_vma_start_write_wait_end(&t->wv, now - t->wv_wait_start, ret);
		/* down_write() is not killable here: it returns with the lock */
		trace_vma_start_write_done(&t->wv);
		t->wv_lock = NULL;
		mmlock_task_put(t, MMLOCK_R_WRITER);
	}
}

/**
 * mmlock_lock_attach() - attach to the mmap_lock and lock tracepoints
 *
 * Return: 0, or the error of a tracepoint the module cannot work without.
 */
int mmlock_lock_attach(void)
{
	static const struct {
		const char	*name;
		void		*probe;
	} tp[] = {
		{ "mmap_lock_start_locking", probe_start_locking },
		{ "mmap_lock_acquire_returned", probe_acquire_returned },
		{ "mmap_lock_released", probe_released },
		{ "contention_begin", probe_contention_begin },
		{ "contention_end", probe_contention_end },
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(tp); i++) {
		ret = mmlock_tp_attach(tp[i].name, tp[i].probe);
		if (ret) {
			pr_err("mmlock_probe: cannot attach to %s (%d)\n", tp[i].name, ret);
			return ret;
		}
	}
	for (i = 0; i < ARRAY_SIZE(down_kps); i++)
		down_on[i] = !register_kprobe(&down_kps[i]);
	/* every kernel has down_read() and down_write(); the rest are extras */
	down_probed = down_on[0] && down_on[2];
	if (!down_probed) {
		for (i = 0; i < ARRAY_SIZE(down_kps); i++)
			if (down_on[i])
				unregister_kprobe(&down_kps[i]);
		memset(down_on, 0, sizeof(down_on));
	}
	mmlock_cap("mmap_wait=%s", down_probed ? "busy_at_down" : "contention");
#ifdef MMLOCK_RWSEM_WRITERS
	mmlock_cap("vmalock=rwsem writer_begin=contended writer_readers=unknown");
#endif
	return 0;
}

/**
 * mmlock_lock_detach() - unregister the down_*() probes (main.c detaches
 * the tracepoints)
 */
void mmlock_lock_detach(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(down_kps); i++)
		if (down_on[i])
			unregister_kprobe(&down_kps[i]);
	memset(down_on, 0, sizeof(down_on));
	down_probed = false;
}
