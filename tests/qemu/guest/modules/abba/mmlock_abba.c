// SPDX-License-Identifier: GPL-2.0
/*
 * Lockdep test: take the mmap_lock and a per-VMA lock in both orders, once
 * each, in the task that loads the module.  No deadlock can happen (one
 * task, the orders one after the other), but lockdep must report the
 * possible one:
 *
 *   a VMA writer:  mmap_write_lock()  -> vma_start_write()     (every mprotect)
 *   a fault:       VMA read lock      -> mmap_read_lock()      (a bug this
 *                                                                 test plants)
 *
 * The first order is the one every vma_start_write() records; a kernel that
 * takes the VMA lock with a trylock there (version 1 of the 6.12 series)
 * never tells lockdep about it, and the report below does not come.  The
 * read side is taken the way the fault path takes it, as a trylock; lockdep
 * still records what is acquired while it is held.
 *
 * Expected on a PROVE_LOCKING kernel: "possible circular locking dependency
 * detected" naming mmap_lock and the VMA lock, with our events disabled or
 * enabled.  Lockdep reports once per boot: load it once.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/sched.h>

/* Not __init: the callers the events record must still resolve afterwards */
static noinline int abba_run(void)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long addr;

	if (!mm)
		return -EINVAL;

	/* A: mmap_lock (write) -> VMA lock (write), as mprotect() does */
	mmap_write_lock(mm);
	vma = find_vma(mm, 0);
	if (!vma) {
		mmap_write_unlock(mm);
		return -ENOENT;
	}
	addr = vma->vm_start;
	vma_start_write(vma);
	mmap_write_unlock(mm);

	/*
	 * B: VMA lock (read) -> mmap_lock (read).  The loading task is single
	 * threaded and its mappings do not change meanwhile, so the VMA found
	 * above is still there; look it up again under the lock anyway.
	 */
	mmap_read_lock(mm);
	vma = find_vma(mm, addr);
	mmap_read_unlock(mm);
	if (!vma)
		return -ENOENT;
#ifdef CONFIG_PER_VMA_LOCK
#if defined(VMA_LOCK_OFFSET) || defined(VM_REFCNT_EXCLUDE_READERS_FLAG)
	/* refcount design: the lockdep map the readers acquire */
	rwsem_acquire_read(&vma->vmlock_dep_map, 0, 1, _THIS_IP_);
	mmap_read_lock(mm);
	mmap_read_unlock(mm);
	rwsem_release(&vma->vmlock_dep_map, _THIS_IP_);
#else
	if (!down_read_trylock(&vma->vm_lock->lock))
		return -EBUSY;
	mmap_read_lock(mm);
	mmap_read_unlock(mm);
	up_read(&vma->vm_lock->lock);
#endif
#endif
	pr_info("mmlock_abba: took mmap_lock -> VMA lock and VMA lock -> mmap_lock\n");
	return 0;
}

static int __init abba_init(void)
{
	return abba_run();
}

static void __exit abba_exit(void)
{
}

module_init(abba_init);
module_exit(abba_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmlock test: an ABBA between mmap_lock and a per-VMA lock for lockdep");
