/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmlock_probe: the event contract from a kernel without the mmlock series.
 * Shared declarations of the module's files.
 */
#ifndef _MMLOCK_PROBE_H
#define _MMLOCK_PROBE_H

#include <linux/preempt.h>
#include <linux/types.h>

#include "mmlock_probe_enums.h"

/* A fault's identity, taken at the entry of filemap_fault() under its lock. */
struct mmlock_fault {
	struct mm_struct	*mm;
	const void		*vma;
	unsigned long		address;
	int			lock;		/* FILEMAP_FAULT_LOCK_VMA or _MMAP */
};

struct task_struct;
struct vm_area_struct;
struct pt_regs;

/* events.c */
bool mmlock_events_on(void);

/* main.c */
extern unsigned long mmlock_dropped;
int mmlock_no_retry(void);
unsigned long mmlock_entry_caller(struct pt_regs *regs);
unsigned long mmlock_stack_caller(void);
int mmlock_tp_attach(const char *name, void *probe);
void mmlock_cap(const char *fmt, ...) __printf(1, 2);

static inline bool mmlock_on(void)
{
	return mmlock_events_on();
}

/*
 * in_task() for the code a probe interrupted.  A kprobe that is not
 * optimized into a jump runs its handler from the int3 trap, which x86
 * enters as an NMI (irqentry_nmi_enter(): NMI and hardirq counts raised),
 * so in_task() there is false even for a probe hit in a task: discount that
 * one level.  None of the functions and tracepoints the module probes runs
 * in an NMI, so an NMI level seen here is the trap's.  Optimized kprobes,
 * kretprobe returns, tracepoint probes and arm64's BRK (which raises no
 * count) see the context as it is.
 */
static inline bool mmlock_in_task(void)
{
	unsigned int pc = preempt_count();

	if (in_nmi())
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	return !(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET));
}

/* task.c: the per-task state of a task inside one of the probed paths */
struct mmlock_fault_ctx;

struct mmlock_task {
	struct task_struct	*task;
	unsigned int		roles;
	/* MMLOCK_R_FAULT: inside filemap_fault() */
	struct mmlock_fault_ctx	*fault;
	/* MMLOCK_R_CALL: inside a mmap_lock call (start_locking seen) */
	struct mm_struct	*call_mm;
	void			*call_lock;
	u64			call_wait_start;
	unsigned long		call_site;	/* of a busy call: its caller */
	bool			call_write;
	bool			call_waiting;
	bool			call_busy;	/* not free at start_locking */
	bool			call_downed;	/* went on to down_*() */
	/* MMLOCK_R_WRITER: a VMA writer (vma_start_write) in progress */
	struct vm_area_struct	*wv_vma;
	void			*wv_lock;	/* rwsem design: the vm_lock */
	u64			wv_wait_start;
	bool			wv_waiting;
	bool			wv_detach;
	/* MMLOCK_R_FALLBACK: what the fault handler did before lock_mmap */
	int			fb_kind;
	unsigned int		fb_fault;
	unsigned long		fb_address;
};

#define MMLOCK_R_FAULT		0x1
#define MMLOCK_R_CALL		0x2
#define MMLOCK_R_WRITER		0x4
#define MMLOCK_R_FALLBACK	0x8

/* fb_kind */
#define MMLOCK_FBK_NONE		0
#define MMLOCK_FBK_VMA_FAILED	1	/* lock_vma_under_rcu() returned NULL */
#define MMLOCK_FBK_RETRY	2	/* per-VMA handle_mm_fault() said RETRY */
#define MMLOCK_FBK_LOOP		3	/* mmap_lock handle_mm_fault() said RETRY */

int mmlock_task_init(unsigned int nr);
void mmlock_task_exit(void);
struct mmlock_task *mmlock_task_get(bool create);
void mmlock_task_put(struct mmlock_task *t, unsigned int role);
void mmlock_task_forget(void);
extern atomic_t mmlock_nr_writers;
extern atomic_t mmlock_nr_waits;
extern atomic_t mmlock_nr_calls;

/* fault.c, lock.c, vma.c: attach at load, detach at unload */
int mmlock_fault_attach(void);
void mmlock_fault_detach(void);
int mmlock_lock_attach(void);
void mmlock_lock_detach(void);
int mmlock_vma_attach(void);
void mmlock_vma_detach(void);

#endif /* _MMLOCK_PROBE_H */
