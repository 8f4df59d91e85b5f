// SPDX-License-Identifier: GPL-2.0
/*
 * A module that declares a GPL-incompatible licence and does what
 * proprietary graphics drivers do in their mmap paths: vm_flags_set() on a
 * VMA of its own.  vm_flags_set() inlines vma_start_write() into the module,
 * so this builds (modpost refuses GPL-only symbols for such a module) and
 * loads only if every symbol that inline code reaches is a plain
 * EXPORT_SYMBOL, as on the stock kernel.  Version 1 of the 6.12 series
 * routed vma_start_write() through the GPL-only __vma_start_write().
 *
 * /dev/mmlock_nongpl: mmap() one page (no page is ever mapped: faults get
 * SIGBUS), then ioctl(fd, MMLOCK_NONGPL_SET_FLAGS, addr) takes the mmap_lock
 * for writing and calls vm_flags_set() on that VMA, outside the mmap() call
 * so that the VMA is not yet write-locked and vma_start_write() takes its
 * slow path.  The count of such calls is in /sys/module/mmlock_nongpl/
 * parameters/calls.
 *
 * The licence string below is the point of the test, not the licence of
 * this file.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>

#define MMLOCK_NONGPL_SET_FLAGS	0x4d01

static int calls;
module_param(calls, int, 0444);
MODULE_PARM_DESC(calls, "vm_flags_set() calls made through the ioctl");

static vm_fault_t nongpl_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct nongpl_vm_ops = {
	.fault = nongpl_fault,
};

static int nongpl_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = &nongpl_vm_ops;
	return 0;
}

static noinline long nongpl_set_flags(struct file *file, unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	long ret = -EINVAL;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file == file) {
		vm_flags_set(vma, VM_DONTDUMP | VM_DONTEXPAND);
		calls++;
		ret = 0;
	}
	mmap_write_unlock(mm);
	return ret;
}

static long nongpl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != MMLOCK_NONGPL_SET_FLAGS)
		return -ENOTTY;
	return nongpl_set_flags(file, arg);
}

static const struct file_operations nongpl_fops = {
	.owner		= THIS_MODULE,
	.mmap		= nongpl_mmap,
	.unlocked_ioctl	= nongpl_ioctl,
};

static struct miscdevice nongpl_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "mmlock_nongpl",
	.fops	= &nongpl_fops,
};

static int __init nongpl_init(void)
{
	return misc_register(&nongpl_dev);
}

static void __exit nongpl_exit(void)
{
	misc_deregister(&nongpl_dev);
}

module_init(nongpl_init);
module_exit(nongpl_exit);
MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("mmlock test: a non-GPL module calling vm_flags_set()");
