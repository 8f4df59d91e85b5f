// SPDX-License-Identifier: GPL-2.0
/*
 * The VMA writer on kernels whose per-VMA lock is a reference count
 * (Linux 6.15+, android16-6.12): vma_start_write()'s slow path is the
 * out-of-line __vma_start_write(), so every writer is seen (begin, done,
 * the caller that inlined vma_start_write()).  Its wait for readers is an
 * rcuwait inside a static helper: the module sees it as the writer going
 * to sleep (sched_switch, not preempted) while inside __vma_start_write(),
 * and it ends when __vma_start_write() returns.  A vma_mark_detached()
 * waiting for readers (__vma_exclude_readers_for_detach()) is a wait with
 * detach=true and no begin/done, as the series prints it.
 */
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>

#include "mmlock_probe.h"
#include "mmlock_probe_trace.h"

#ifdef MMLOCK_VMA_REFCNT

#if defined(VM_REFCNT_EXCLUDE_READERS_FLAG)
#define MMLOCK_WRITER_FLAG	VM_REFCNT_EXCLUDE_READERS_FLAG
#elif defined(VMA_LOCK_OFFSET)
#define MMLOCK_WRITER_FLAG	VMA_LOCK_OFFSET
#endif

static bool writer_begin(struct vm_area_struct *vma, bool detach)
{
	struct mmlock_task *t;

	if (!mmlock_on() || !mmlock_in_task())
		return false;
	t = mmlock_task_get(true);
	if (!t || (t->roles & MMLOCK_R_WRITER))
		return false;
	t->roles |= MMLOCK_R_WRITER;
	t->wv_vma = vma;
	t->wv_lock = NULL;
	t->wv_detach = detach;
	t->wv_waiting = false;
	atomic_inc(&mmlock_nr_writers);
	return true;
}

static void writer_end(int err, bool done)
{
	struct mmlock_task *t = mmlock_in_task() ? mmlock_task_get(false) : NULL;

	if (!t || !(t->roles & MMLOCK_R_WRITER) || !t->wv_vma)
		return;
	/* the writer holds mmap_lock for writing: the VMA is still there */
	if (t->wv_waiting)
		trace_vma_start_write_wait_end(t->wv_vma, local_clock() - t->wv_wait_start, err);
	if (done && !err)
		trace_vma_start_write_done(t->wv_vma);
	t->wv_vma = NULL;
	atomic_dec(&mmlock_nr_writers);
	mmlock_task_put(t, MMLOCK_R_WRITER);
}

static int vsw_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);

	/*
	 * A VMA not in the tree yet (vm_refcnt 0: dup_mmap()'s copies) has no
	 * reader to wait for, and the series traces attached VMAs only.
	 */
	if (!refcount_read(&vma->vm_refcnt) || !writer_begin(vma, false))
		return 1;
	trace_vma_start_write_begin(vma, mmlock_entry_caller(regs));
	return 0;
}

static int vsw_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
#ifdef MMLOCK_VSW_RETURNS_INT
	int err = (int)regs_return_value(regs);
#else
	int err = 0;
#endif

	writer_end(err, true);
	return 0;
}

static int detach_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);

	return writer_begin(vma, true) ? 0 : 1;
}

static int detach_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	writer_end(0, false);
	return 0;
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	struct mmlock_task *t;
	unsigned int tgt;
	int readers;

	if (!atomic_read(&mmlock_nr_writers) || preempt || prev_state == TASK_RUNNING)
		return;
	t = mmlock_task_get(false);
	if (!t || !(t->roles & MMLOCK_R_WRITER) || !t->wv_vma || t->wv_waiting)
		return;
	/* the writer holds mmap_lock for writing: the VMA is still there */
	tgt = MMLOCK_WRITER_FLAG | (t->wv_detach ? 0 : 1);
	readers = (int)refcount_read(&t->wv_vma->vm_refcnt) - (int)tgt;
	t->wv_waiting = true;
	t->wv_wait_start = local_clock();
	trace_vma_start_write_wait_start(t->wv_vma, readers, t->wv_detach);
}

static struct kretprobe rp_vsw = {
	.kp.symbol_name = "__vma_start_write",
	.entry_handler = vsw_entry,
	.handler = vsw_return,
	.maxactive = 256,
};

static struct kretprobe rp_detach = {
	.kp.symbol_name = "__vma_exclude_readers_for_detach",
	.entry_handler = detach_entry,
	.handler = detach_return,
	.maxactive = 256,
};

static bool vsw_on, detach_on;

int mmlock_vma_attach(void)
{
	int ret;

	ret = register_kretprobe(&rp_vsw);
	if (ret) {
		pr_err("mmlock_probe: cannot probe __vma_start_write (%d)\n", ret);
		return ret;
	}
	vsw_on = true;
	detach_on = !register_kretprobe(&rp_detach);
	ret = mmlock_tp_attach("sched_switch", probe_sched_switch);
	if (ret) {
		pr_err("mmlock_probe: cannot attach to sched_switch (%d)\n", ret);
		mmlock_vma_detach();
		return ret;
	}
	mmlock_cap("vmalock=refcount writer_begin=all writer_readers=count detach_wait=%s",
		   detach_on ? "yes" : "no");
	return 0;
}

void mmlock_vma_detach(void)
{
	if (detach_on)
		unregister_kretprobe(&rp_detach);
	if (vsw_on)
		unregister_kretprobe(&rp_vsw);
	detach_on = false;
	vsw_on = false;
}

#else /* !MMLOCK_VMA_REFCNT: lock.c watches rwsem writers */

int mmlock_vma_attach(void)
{
	return 0;
}

void mmlock_vma_detach(void)
{
}

#endif /* MMLOCK_VMA_REFCNT */
