// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock_probe: the mmlock event contract on a kernel without the mmlock
 * series, from kprobes, kretprobes and the kernel's own tracepoints.
 *
 * Every probe is registered at load and stays registered until unload; a
 * probe does nothing while none of the module's events is enabled (the
 * event's reg/unreg callbacks count them), so a loaded but idle module costs
 * one early return per probe hit.  Registering probes from those callbacks
 * is not possible: they run under tracepoints_mutex, which registering a
 * tracepoint probe takes again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "mmlock_probe.h"

#define MMLOCK_PROBE_VERSION	"1"

unsigned long mmlock_dropped;

static unsigned int max_tasks = 1024;
module_param(max_tasks, uint, 0444);
MODULE_PARM_DESC(max_tasks, "tasks tracked at once inside probed paths (default 1024)");

/*
 * What this module can and cannot see on the running kernel, one line of
 * "key=value" words for the collector's trace.status (README.md).
 */
static char caps[512];
module_param_string(caps, caps, sizeof(caps), 0444);
MODULE_PARM_DESC(caps, "what the module observes on this kernel (read-only)");

void mmlock_cap(const char *fmt, ...)
{
	size_t len = strlen(caps);
	va_list ap;

	if (len && len < sizeof(caps) - 1)
		caps[len++] = ' ';
	va_start(ap, fmt);
	vsnprintf(caps + len, sizeof(caps) - len, fmt, ap);
	va_end(ap);
}

static int stats_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "events_on=%d dropped_tasks=%lu\n",
			  mmlock_events_on(), READ_ONCE(mmlock_dropped));
}

static const struct kernel_param_ops stats_ops = { .get = stats_get };
module_param_cb(stats, &stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "whether an event is on, tasks not tracked for lack of room (read-only)");

/*
 * vm.filemap_fault_no_retry, when the kernel has it (the mmlock series):
 * whether a fault holding the per-VMA lock keeps it across I/O.  It decides
 * which lock a fault holds while it waits, and the kernel does not tell.
 * It is read in process context, at load and every 100 ms while the module
 * is loaded on such a kernel; the probes, which cannot sleep, read the
 * cached value.
 */
#define MMLOCK_SYSCTL_NO_RETRY	"/proc/sys/vm/filemap_fault_no_retry"
#define MMLOCK_NR_ABSENT	(-2)	/* a stock kernel: stock rule */
#define MMLOCK_NR_UNKNOWN	(-1)
#ifdef MMLOCK_KMI
#define MMLOCK_KNOB_READABLE	0
#else
#define MMLOCK_KNOB_READABLE	1
#endif

static atomic_t no_retry = ATOMIC_INIT(MMLOCK_NR_UNKNOWN);
static bool no_retry_absent;
static bool no_retry_polling;
static struct delayed_work no_retry_work;

#ifndef MMLOCK_KMI
static int no_retry_read(void)
{
	struct file *f;
	char buf[16] = "";
	loff_t pos = 0;
	ssize_t n;
	int v;

	f = filp_open(MMLOCK_SYSCTL_NO_RETRY, O_RDONLY, 0);
	if (IS_ERR(f)) {
		struct file *vm = filp_open("/proc/sys/vm/overcommit_memory", O_RDONLY, 0);

		/* /proc/sys/vm is there but not our knob: a stock kernel */
		if (IS_ERR(vm))
			return MMLOCK_NR_UNKNOWN;
		filp_close(vm, NULL);
		return PTR_ERR(f) == -ENOENT ? MMLOCK_NR_ABSENT : MMLOCK_NR_UNKNOWN;
	}
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &v) || v < 0)
		return MMLOCK_NR_UNKNOWN;
	return v ? 1 : 0;
}
#else
static bool kernel_has_tracepoint(const char *name);

/*
 * An Android GKI kernel promises modules no file access (filp_open() and
 * kernel_read() are outside its KMI): the knob cannot be read.  Without the
 * series (no filemap_fault_begin tracepoint) the stock rule is exact; with
 * it, the lock of a per-VMA fault's first attempt is "unknown".
 */
static int no_retry_read(void)
{
	return kernel_has_tracepoint("filemap_fault_begin") ? MMLOCK_NR_UNKNOWN :
							      MMLOCK_NR_ABSENT;
}
#endif

static void no_retry_poll(struct work_struct *work)
{
	int v = no_retry_read();

	atomic_set(&no_retry, v);
	if (v == MMLOCK_NR_ABSENT)
		no_retry_absent = true;
	else if (MMLOCK_KNOB_READABLE && READ_ONCE(no_retry_polling))
		schedule_delayed_work(&no_retry_work, msecs_to_jiffies(100));
}

/**
 * mmlock_no_retry() - the kernel's vm.filemap_fault_no_retry as last read
 *
 * Return: 0 or 1; 0 on a kernel without the knob (stock behaviour); -1 when
 * it could not be read yet.
 */
int mmlock_no_retry(void)
{
	int v = atomic_read(&no_retry);

	return v == MMLOCK_NR_ABSENT ? 0 : v;
}

/**
 * mmlock_entry_caller() - return address of a probed function, at its entry
 * @regs: the registers of a kprobe or kretprobe entry handler on the
 *        function's first instruction
 *
 * Return: the address the function returns to (inside its caller), or 0 on
 * an architecture this module does not know.
 */
unsigned long mmlock_entry_caller(struct pt_regs *regs)
{
#if defined(CONFIG_X86_64)
	return regs_get_kernel_stack_nth(regs, 0);
#elif defined(CONFIG_ARM64)
	return procedure_link_pointer(regs);
#else
	return 0;
#endif
}

/* Frames that belong to the lock or the tracing, not to the lock's user. */
static const char *const skip_prefix[] = {
	"__traceiter_", "trace_", "perf_trace_", "__bpf_trace_", "rwsem_",
	"down_", "__down", "__rwsem", "rwbase_", "percpu_down",
	"__vma_start_write", "__vma_enter_locked", "__mmap_lock_do_trace",
	/* a kprobe handler's own frames */
	"kprobe", "__kprobe", "aggr_pre_handler", "opt_pre_handler",
	"optimized_callback", "optprobe", "exc_int3", "asm_exc_int3", "do_int3",
	"ftrace_", "arch_ftrace", "0x",
};

static bool skip_frame(unsigned long addr)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned int i;

	if (within_module(addr, THIS_MODULE))
		return true;
	sprint_symbol_no_offset(name, addr);
	for (i = 0; i < ARRAY_SIZE(skip_prefix); i++)
		if (!strncmp(name, skip_prefix[i], strlen(skip_prefix[i])))
			return true;
	return false;
}

/**
 * mmlock_stack_caller() - the function that called a sleeping lock
 *
 * Walks the stack past this module, the tracepoint or kprobe that called
 * it and the rwsem code.  Only used on the contended path, where a stack
 * walk is cheap next to the wait.  Not from an optimized kprobe: the
 * unwinder stops at its trampoline.
 *
 * Return: a return address inside the lock's caller, or 0.
 */
unsigned long mmlock_stack_caller(void)
{
	unsigned long entries[24];
	unsigned int n, i;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++)
		if (!skip_frame(entries[i]))
			return entries[i];
	return 0;
}

/*
 * Tracepoints attached by name: for_each_kernel_tracepoint() reaches the
 * ones a module cannot name because they are not exported (sched_switch).
 */
#define MMLOCK_MAX_TP	8

static struct {
	struct tracepoint	*tp;
	void			*probe;
} tps[MMLOCK_MAX_TP];
static unsigned int nr_tps;

struct tp_find {
	const char		*name;
	struct tracepoint	*tp;
};

static void tp_find_one(struct tracepoint *tp, void *priv)
{
	struct tp_find *f = priv;

	if (!f->tp && !strcmp(tp->name, f->name))
		f->tp = tp;
}

#ifdef MMLOCK_KMI
static bool kernel_has_tracepoint(const char *name)
{
	struct tp_find f = { .name = name };

	for_each_kernel_tracepoint(tp_find_one, &f);
	return f.tp;
}
#endif

/**
 * mmlock_tp_attach() - register @probe on the kernel tracepoint @name
 * @name:  the tracepoint's name (e.g. "contention_begin")
 * @probe: a function of the tracepoint's exact prototype, data first
 *
 * Return: 0, -ENOENT when the kernel has no such tracepoint, or the error of
 * tracepoint_probe_register().
 */
int mmlock_tp_attach(const char *name, void *probe)
{
	struct tp_find f = { .name = name };
	int ret;

	if (nr_tps >= MMLOCK_MAX_TP)
		return -ENOSPC;
	for_each_kernel_tracepoint(tp_find_one, &f);
	if (!f.tp)
		return -ENOENT;
	ret = tracepoint_probe_register(f.tp, probe, NULL);
	if (ret)
		return ret;
	tps[nr_tps].tp = f.tp;
	tps[nr_tps].probe = probe;
	nr_tps++;
	return 0;
}

static void tp_detach_all(void)
{
	while (nr_tps) {
		nr_tps--;
		tracepoint_probe_unregister(tps[nr_tps].tp, tps[nr_tps].probe, NULL);
	}
	/* no probe of this module runs any more once this returns */
	tracepoint_synchronize_unregister();
}

#ifdef MMLOCK_EXIT_GROUP_DEAD
static void probe_exit(void *data, struct task_struct *p, bool group_dead)
#else
static void probe_exit(void *data, struct task_struct *p)
#endif
{
	/* the exiting task's state, left by a path it never finished */
	mmlock_task_forget();
}

static int __init mmlock_probe_init(void)
{
	int ret;

	INIT_DELAYED_WORK(&no_retry_work, no_retry_poll);
	ret = mmlock_task_init(max_tasks);
	if (ret)
		return ret;
	mmlock_cap("version=%s", MMLOCK_PROBE_VERSION);
	ret = mmlock_tp_attach("sched_process_exit", probe_exit);
	if (ret) {
		pr_err("cannot attach to sched_process_exit (%d)\n", ret);
		goto out_task;
	}
	ret = mmlock_lock_attach();
	if (ret)
		goto out_tp;
	ret = mmlock_vma_attach();
	if (ret)
		goto out_lock;
	ret = mmlock_fault_attach();
	if (ret)
		goto out_vma;

	atomic_set(&no_retry, no_retry_read());
	no_retry_absent = atomic_read(&no_retry) == MMLOCK_NR_ABSENT;
	if (!no_retry_absent && MMLOCK_KNOB_READABLE) {
		WRITE_ONCE(no_retry_polling, true);
		schedule_delayed_work(&no_retry_work, msecs_to_jiffies(100));
	}
#ifndef MMLOCK_KMI
	mmlock_cap("fault_lock=%s", no_retry_absent ? "stock_rule" :
		   "stock_rule+vm.filemap_fault_no_retry");
#else
	mmlock_cap("fault_lock=%s", no_retry_absent ? "stock_rule" :
		   "stock_rule+unknown_knob");
#endif
	pr_info("loaded: %s\n", caps);
	return 0;

out_vma:
	mmlock_vma_detach();
out_lock:
	mmlock_lock_detach();
out_tp:
	tp_detach_all();
out_task:
	mmlock_task_exit();
	return ret;
}

static void __exit mmlock_probe_exit(void)
{
	mmlock_fault_detach();
	mmlock_vma_detach();
	mmlock_lock_detach();
	tp_detach_all();
	WRITE_ONCE(no_retry_polling, false);
	cancel_delayed_work_sync(&no_retry_work);
	mmlock_task_exit();
	pr_info("unloaded (%lu tasks not tracked for lack of room)\n",
		READ_ONCE(mmlock_dropped));
}

module_init(mmlock_probe_init);
module_exit(mmlock_probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmlock's filemap/mmap_lock/per-VMA lock events on a kernel without the mmlock series");
MODULE_VERSION(MMLOCK_PROBE_VERSION);
