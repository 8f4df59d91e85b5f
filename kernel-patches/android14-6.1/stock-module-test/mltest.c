// SPDX-License-Identifier: GPL-2.0
/*
 * Built against the UNPATCHED android14-6.1 headers: its mmap_lock wrappers
 * are the stock inline ones, as in a GKI vendor module.  Loaded into the
 * patched kernel, the new mmap_lock events must still show its waits/holds.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>

static struct mm_struct *mm;
static DECLARE_COMPLETION(done);

static noinline int mltest_reader(void *unused)
{
	mmap_read_lock(mm);
	mmap_read_unlock(mm);
	complete(&done);
	return 0;
}

static noinline void mltest_run(void)
{
	mmap_write_lock(mm);
	kthread_run(mltest_reader, NULL, "mltest_reader");
	msleep(100);
	mmap_write_downgrade(mm);
	mmap_read_unlock(mm);
	wait_for_completion(&done);
	if (mmap_write_trylock(mm))
		mmap_write_unlock(mm);
}

static int __init mltest_init(void)
{
	mm = get_task_mm(current);
	if (!mm)
		return -EINVAL;
	mltest_run();
	mmput(mm);
	return 0;
}

static void __exit mltest_exit(void)
{
}

module_init(mltest_init);
module_exit(mltest_exit);
MODULE_LICENSE("GPL");
