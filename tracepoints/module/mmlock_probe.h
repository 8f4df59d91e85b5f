/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmlock_probe: the event contract from a kernel without the mmlock series.
 * Shared declarations of the module's files.
 */
#ifndef _MMLOCK_PROBE_H
#define _MMLOCK_PROBE_H

#include <linux/types.h>

/*
 * Enumeration values.  Only the words reach the trace (events.md prints
 * enumerations as words); the numbers follow tracepoints/mmlock_events.h,
 * with "unknown" for what the module cannot see.
 */
#define MMLOCK_LOCK_VMA			0
#define MMLOCK_LOCK_MMAP		1
#define MMLOCK_LOCK_NONE		2
#define MMLOCK_LOCK_UNKNOWN		3

#define MMLOCK_WAIT_FOLIO_LOCK		0
#define MMLOCK_WAIT_READ_FOLIO		1
#define MMLOCK_WAIT_READAHEAD		2
#define MMLOCK_WAIT_UNKNOWN		3

#define MMLOCK_RETRY_DROP_ASYNC_RA	0
#define MMLOCK_RETRY_DROP_SYNC_RA	1
#define MMLOCK_RETRY_DROP_FOLIO_LOCK	2
#define MMLOCK_RETRY_DROP_READ_FOLIO	3
#define MMLOCK_RETRY_KILLED		4
#define MMLOCK_RETRY_NOWAIT		5
#define MMLOCK_RETRY_OOM		6
#define MMLOCK_RETRY_UNKNOWN		7

#define MMLOCK_RF_WRITE_LOCKED		0
#define MMLOCK_RF_CONTENDED		1
#define MMLOCK_RF_DETACHED		2
#define MMLOCK_RF_SEQ_RECHECK		3
#define MMLOCK_RF_WRONG_MM		4
#define MMLOCK_RF_OUT_OF_RANGE		5
#define MMLOCK_RF_NOT_FOUND		6
#define MMLOCK_RF_UNKNOWN		8

#define MMLOCK_FB_RETRY			0
#define MMLOCK_FB_VMA_LOCK_FAILED	1
#define MMLOCK_FB_KERNEL_MODE		2
#define MMLOCK_FB_UNKNOWN		4

/* A fault's fields, taken at the entry of filemap_fault() under its lock. */
struct mmlock_fault {
	const void	*mm;
	const void	*vma;
	unsigned long	vm_start;
	unsigned long	vm_end;
	unsigned long	address;
	unsigned long	pgoff;
	unsigned long	ino;
	unsigned long	user_pc;
	dev_t		dev;
	int		lock;		/* MMLOCK_LOCK_VMA or _MMAP */
};

/* A VMA's fields, taken while its writer holds mmap_lock for writing. */
struct mmlock_vma {
	const void	*mm;
	const void	*vma;
	unsigned long	vm_start;
	unsigned long	vm_end;
	unsigned long	flags;
	unsigned long	ino;
	dev_t		dev;
	bool		anon;
};

struct task_struct;
struct vm_area_struct;
struct pt_regs;

/* main.c */
extern atomic_t mmlock_enabled;
extern unsigned long mmlock_dropped;
int mmlock_event_reg(void);
void mmlock_event_unreg(void);
int mmlock_no_retry(void);
unsigned long mmlock_entry_caller(struct pt_regs *regs);
unsigned long mmlock_stack_caller(void);
unsigned long mmlock_user_pc(void);
void mmlock_vma_snapshot(struct mmlock_vma *v, struct vm_area_struct *vma);
int mmlock_tp_attach(const char *name, void *probe);
void mmlock_cap(const char *fmt, ...) __printf(1, 2);

static inline bool mmlock_on(void)
{
	return atomic_read(&mmlock_enabled) > 0;
}

/* task.c: the per-task state of a task inside one of the probed paths */
struct mmlock_fault_ctx;

struct mmlock_task {
	struct task_struct	*task;
	struct mmlock_task	*next;		/* hash chain or free list */
	unsigned int		roles;
	/* MMLOCK_R_FAULT: inside filemap_fault() */
	struct mmlock_fault_ctx	*fault;
	/* MMLOCK_R_CALL: inside a mmap_lock call (start_locking seen) */
	const void		*call_mm;
	void			*call_lock;
	u64			call_wait_start;
	bool			call_write;
	bool			call_waiting;
	bool			call_busy;	/* not free at start_locking */
	bool			call_downed;	/* went on to down_*() */
	unsigned long		call_site;	/* of a busy call: its caller */
	/* MMLOCK_R_WRITER: a VMA writer (vma_start_write) in progress */
	struct mmlock_vma	wv;
	void			*wv_lock;	/* rwsem design: the vm_lock */
	struct vm_area_struct	*wv_vma;	/* refcount design */
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

/* lock.c: the rwsem VMA writer's wait, from the contention events */
void mmlock_lock_sched_switch(struct task_struct *prev);

#endif /* _MMLOCK_PROBE_H */
