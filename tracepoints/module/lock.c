// SPDX-License-Identifier: GPL-2.0
/*
 * The lock side: mmap_lock holds and waits, and on kernels whose per-VMA
 * lock is an rwsem (Linux 6.4-6.14, android14-6.1, android15-6.6) the VMA
 * writer's wait.
 *
 * The stock mmap_lock tracepoints say when a lock call starts
 * (start_locking), returns (acquire_returned) and when the lock is released.
 * Between the first two the inline mmap_*_lock() calls down_read() or
 * down_write() (or a _killable form), which are probed.  The series reports
 * a wait when its trylock fails just before down_*(); the module reports
 * one when the rwsem was not free (the trylock's own condition) at
 * start_locking, from there for a write call (there is no write trylock)
 * and for a read call at a call site it learnt blocks, else from
 * down_read*(); the wait ends with the call, at acquire_returned.  A
 * trylock (mmap_read_trylock()) calls down_read_trylock(), which is not
 * probed, so it never reports a wait, as in the series.  A downgrade
 * (acquire_returned for reading, no start_locking, the task still owning
 * the rwsem for writing) ends the write hold and starts a read hold, as the
 * series prints it.
 *
 * vma_start_write() is inline on the rwsem design: its down_write() on the
 * VMA's vm_lock is seen by the same down_write() probe.  When that rwsem is
 * busy and the task owns its mm's mmap_lock for writing, the lock is
 * matched against the VMAs of that mm (the writer holds mmap_lock, so the
 * VMA tree cannot change under the walk): begin and wait_start there, and
 * wait_end and done at the up_write() that vma_start_write() does right
 * after.  Only writers that wait are seen (caps: writer_begin=contended).
 *
 * Where down_*() cannot be probed, lock:contention_begin/end stand in for
 * both (a wait won by optimistic spinning is then not seen).
 */
#include <linux/kallsyms.h>
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
 * kernel/locking/rwsem.c keeps the write owner in ->owner with two flag bits
 * below it (RWSEM_READER_OWNED, RWSEM_NONSPINNABLE), and in ->count bit 0
 * for a writer, bits 1 and 2 for waiters and hand-off, the top bit for a
 * failed read.  A read trylock fails on any of those; a write trylock unless
 * ->count is 0.
 */
#define MMLOCK_RWSEM_OWNER_FLAGS	3UL
#define MMLOCK_RWSEM_WRITER_LOCKED	1UL
#define MMLOCK_RWSEM_READ_FAILED_MASK	(7UL | (1UL << (BITS_PER_LONG - 1)))

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

static bool rwsem_busy(struct rw_semaphore *sem, bool write)
{
#ifndef CONFIG_PREEMPT_RT
	unsigned long count = atomic_long_read(&sem->count);

	return write ? count != 0 : (count & MMLOCK_RWSEM_READ_FAILED_MASK);
#else
	return false;
#endif
}

/* down_*() and up_write() are probed: waits start there, not at contention */
static bool down_probed;

/*
 * Call sites of mmap_read_*lock*() (the return address into the function
 * that inlined it), learnt from busy calls: one that went on to
 * down_read*() blocks, one that ended without it is mmap_read_trylock().
 * A busy read call at a site known to block waits from start_locking on,
 * as the series' does from its failed trylock; elsewhere from down_read*().
 */
#define MMLOCK_NR_SITES	64
enum { SITE_UNKNOWN, SITE_BLOCKS, SITE_TRYLOCK };

static struct {
	unsigned long	ip;
	int		kind;
} sites[MMLOCK_NR_SITES];

static int site_kind(unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < MMLOCK_NR_SITES && READ_ONCE(sites[i].ip); i++)
		if (READ_ONCE(sites[i].ip) == ip)
			return READ_ONCE(sites[i].kind);
	return SITE_UNKNOWN;
}

/*
 * No lock: the probes run in the int3 trap (NMI context), so a free slot is
 * claimed with cmpxchg().  A reader may find the ip a moment before its kind:
 * SITE_UNKNOWN, as for a site not learnt yet.
 */
static void site_learn(unsigned long ip, int kind)
{
	unsigned long cur;
	unsigned int i;

	if (!ip || site_kind(ip) == kind)
		return;
	for (i = 0; i < MMLOCK_NR_SITES; i++) {
		cur = READ_ONCE(sites[i].ip);
		if (!cur)
			cur = cmpxchg(&sites[i].ip, 0UL, ip) ?: ip;
		if (cur == ip) {
			WRITE_ONCE(sites[i].kind, kind);
			return;
		}
	}
}

static void call_wait_start(struct mmlock_task *t, unsigned long caller)
{
	t->call_waiting = true;
	t->call_wait_start = local_clock();
	atomic_inc(&mmlock_nr_waits);
	trace_mmap_lock_wait_start(t->call_mm, t->call_write, caller);
}

/* The call's state ends, and its wait if it had one. */
static void call_end(struct mmlock_task *t, bool success)
{
	if (t->call_waiting) {
		atomic_dec(&mmlock_nr_waits);
		trace_mmap_lock_wait_end(t->call_mm, t->call_write, success,
					 local_clock() - t->call_wait_start);
	}
	t->call_waiting = false;
	atomic_dec(&mmlock_nr_calls);
	mmlock_task_put(t, MMLOCK_R_CALL);
}

static void mm_start_locking(struct mm_struct *mm, bool write)
{
	struct mmlock_task *t;

	if (!mmlock_on() || !mmlock_in_task())
		return;
	t = mmlock_task_get(true);
	if (!t)
		return;
	if (t->roles & MMLOCK_R_CALL) {
		/* a call whose end we missed (loaded in its middle) */
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
	/* the series' trylock comes right after this: what it would find */
	t->call_busy = rwsem_busy(&mm->mmap_lock, write);
	t->call_site = 0;
	t->call_downed = false;
	if (!t->call_busy)
		return;
	/*
	 * There is no mmap_write_trylock(): a write call that finds the lock
	 * taken waits from here.  A read call may be mmap_read_trylock(): it
	 * waits from here only if its call site is known to block, else from
	 * down_read*() if it gets there.
	 */
	t->call_site = mmlock_stack_caller();
	if (write || site_kind(t->call_site) == SITE_BLOCKS)
		call_wait_start(t, t->call_site);
}

static void mm_acquire_returned(struct mm_struct *mm, bool write, bool success)
{
	struct mmlock_task *t;

	if (!mmlock_on())
		return;
	if (mmlock_in_task()) {
		t = mmlock_task_get(false);
		if (t && (t->roles & MMLOCK_R_CALL) && t->call_mm == mm) {
			if (!write && t->call_busy && !t->call_downed)
				site_learn(t->call_site, SITE_TRYLOCK);
			call_end(t, success);
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

#ifdef MMLOCK_RWSEM_WRITERS
/*
 * A write lock of a busy rwsem by a task holding its mmap_lock for writing:
 * is @lock the vm_lock of one of its VMAs?  Then this is vma_start_write()
 * waiting for faults that hold the VMA read-locked.
 */
static void writer_wait_start(struct mmlock_task *t, void *lock, unsigned long caller)
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
	t->wv_vma = found;
	t->wv_lock = lock;
	t->wv_detach = false;
	t->wv_waiting = true;
	t->wv_wait_start = local_clock();
	atomic_inc(&mmlock_nr_waits);
	trace_vma_start_write_begin(found, caller);
	/* an rwsem does not tell how many readers hold it */
	trace_vma_start_write_wait_start(found, -1, false);
}

/*
 * Who called vma_start_write(): down_write()'s return address, unless a
 * kernel with the series moved vma_start_write()'s slow path out of line
 * (__vma_start_write()): then the function above it, as the series prints,
 * from a stack walk (which is why the down_write() probes are then kept
 * unoptimized: the unwinder cannot cross an optprobe's trampoline).
 */
static unsigned long writer_caller(struct pt_regs *regs)
{
	unsigned long ip = mmlock_entry_caller(regs);
	char name[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(name, ip);
	/* __vma_start_write() (7.2 series) or __vma_start_write_traced() (6.12's) */
	if (!strncmp(name, "__vma_start_write", 17))
		return mmlock_stack_caller();
	return ip;
}

static bool writer_wait_end(struct mmlock_task *t, void *lock, int err)
{
	if (!(t->roles & MMLOCK_R_WRITER) || t->wv_lock != lock)
		return false;
	atomic_dec(&mmlock_nr_waits);
	/* the writer still holds mmap_lock for writing: the VMA is there */
	trace_vma_start_write_wait_end(t->wv_vma, local_clock() - t->wv_wait_start, err);
	/* vma_start_write()'s down_write() is not killable: it got the lock */
	trace_vma_start_write_done(t->wv_vma);
	t->wv_lock = NULL;
	t->wv_vma = NULL;
	mmlock_task_put(t, MMLOCK_R_WRITER);
	return true;
}
#endif

/* down_read() and down_read_killable(), at entry */
static int down_read_pre(struct kprobe *p, struct pt_regs *regs)
{
	void *sem = (void *)regs_get_kernel_argument(regs, 0);
	struct mmlock_task *t;

	if (!atomic_read(&mmlock_nr_calls) || !mmlock_on() || !mmlock_in_task())
		return 0;
	t = mmlock_task_get(false);
	if (!t || !(t->roles & MMLOCK_R_CALL) || t->call_lock != sem)
		return 0;
	t->call_downed = true;
	if (t->call_busy)
		site_learn(t->call_site, SITE_BLOCKS);
	if (!t->call_waiting && (t->call_busy || rwsem_busy(sem, false)))
		/* down_*()'s return address: in the caller of mmap_*_lock() */
		call_wait_start(t, mmlock_entry_caller(regs));
	return 0;
}

/* down_write() and its forms, at entry */
static int down_write_pre(struct kprobe *p, struct pt_regs *regs)
{
	void *sem = (void *)regs_get_kernel_argument(regs, 0);
	struct mmlock_task *t;

	if (!mmlock_on() || !mmlock_in_task())
		return 0;
	if (atomic_read(&mmlock_nr_calls)) {
		t = mmlock_task_get(false);
		if (t && (t->roles & MMLOCK_R_CALL) && t->call_lock == sem) {
			if (!t->call_waiting && (t->call_busy || rwsem_busy(sem, true)))
				call_wait_start(t, mmlock_entry_caller(regs));
			return 0;
		}
	}
#ifdef MMLOCK_RWSEM_WRITERS
	if (rwsem_busy(sem, true))
		writer_wait_start(mmlock_task_get(false), sem, writer_caller(regs));
#endif
	return 0;
}

#ifdef MMLOCK_RWSEM_WRITERS
/* up_write(): vma_start_write() releases the vm_lock it just took */
static int up_write_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct mmlock_task *t;

	if (!atomic_read(&mmlock_nr_waits) || !mmlock_in_task())
		return 0;
	t = mmlock_task_get(false);
	if (t)
		writer_wait_end(t, (void *)regs_get_kernel_argument(regs, 0), 0);
	return 0;
}
#endif

/*
 * A post handler keeps a kprobe from being optimized into a jump: the stack
 * walk of writer_caller() cannot cross an optprobe's trampoline.  The int3
 * form costs a trap per call while loaded.  (It does not prevent the "Oops:
 * int3" seen at rmmod under load in QEMU: multi-threaded TCG runs an int3
 * the kernel already removed, from int3 and optimized probes alike;
 * README.md, "Unloading under TCG".)
 */
static void no_opt(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static struct kprobe down_kps[] = {
	{ .symbol_name = "down_read", .pre_handler = down_read_pre, .post_handler = no_opt },
	{ .symbol_name = "down_write", .pre_handler = down_write_pre, .post_handler = no_opt },
	{ .symbol_name = "down_read_killable", .pre_handler = down_read_pre,
	  .post_handler = no_opt },
	{ .symbol_name = "down_write_killable", .pre_handler = down_write_pre,
	  .post_handler = no_opt },
	{ .symbol_name = "down_write_nested", .pre_handler = down_write_pre,	/* LOCKDEP */
	  .post_handler = no_opt },
#ifdef MMLOCK_RWSEM_WRITERS
	{ .symbol_name = "up_write", .pre_handler = up_write_pre, .post_handler = no_opt },
#endif
};

static bool down_on[ARRAY_SIZE(down_kps)];

/* The fallback: rwsem sleeps, after optimistic spinning. */
static void probe_contention_begin(void *data, void *lock, unsigned int flags)
{
	struct mmlock_task *t;

	if (down_probed)
		return;
	/* rwsem sleeps only: not spinlocks, mutexes, percpu or RT locks */
	if (!flags || (flags & ~(LCB_F_READ | LCB_F_WRITE)))
		return;
	if (!mmlock_on() || !mmlock_in_task())
		return;
	t = mmlock_task_get(false);
	if (t && (t->roles & MMLOCK_R_CALL) && t->call_lock == lock) {
		if (!t->call_waiting)
			call_wait_start(t, mmlock_stack_caller());
		return;
	}
#ifdef MMLOCK_RWSEM_WRITERS
	if (flags & LCB_F_WRITE)
		writer_wait_start(t, lock, mmlock_stack_caller());
#endif
}

static void probe_contention_end(void *data, void *lock, int ret)
{
	struct mmlock_task *t;

	if (down_probed || !atomic_read(&mmlock_nr_waits) || !mmlock_in_task())
		return;
	t = mmlock_task_get(false);
	if (!t)
		return;
	/* an mmap_lock wait ends with its call, at acquire_returned */
#ifdef MMLOCK_RWSEM_WRITERS
	writer_wait_end(t, lock, ret);
#endif
}

/**
 * mmlock_lock_attach() - attach to the mmap_lock and lock tracepoints, and
 * probe the rwsem entry points
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
	/*
	 * down_read(), down_write() (and up_write() for rwsem writers) are the
	 * least every kernel has; without them, all go back to contention.
	 */
	down_probed = down_on[0] && down_on[1];
#ifdef MMLOCK_RWSEM_WRITERS
	down_probed = down_probed && down_on[ARRAY_SIZE(down_kps) - 1];
#endif
	if (!down_probed)
		mmlock_lock_detach();
	mmlock_cap("mmap_wait=%s", down_probed ? "busy_at_down" : "contention");
#ifdef MMLOCK_RWSEM_WRITERS
	mmlock_cap("vmalock=rwsem writer_begin=contended writer_readers=unknown");
#endif
	return 0;
}

/**
 * mmlock_lock_detach() - unregister the rwsem probes (main.c detaches the
 * tracepoints)
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
