/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract's 15 events (../shared/design/events.md, text form version 2)
 * as the module emits them: same names, fields, order and text as the
 * patched kernels, in the trace system "mmlock_probe" so that they coexist
 * with a patched kernel's own filemap:* and mmap_lock:* events.
 *
 * The probes fill the snapshot structures of mmlock_probe.h while the VMA is
 * known to be stable; the events only copy scalars, so nothing here
 * dereferences a VMA or a file.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmlock_probe

#if !defined(_MMLOCK_PROBE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MMLOCK_PROBE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/kdev_t.h>
#include <linux/mm_types.h>
#include "mmlock_probe.h"

#define MMLOCK_PRINT_LOCK(v)						\
	__print_symbolic(v,						\
			 { MMLOCK_LOCK_VMA, "vma" },			\
			 { MMLOCK_LOCK_MMAP, "mmap" },			\
			 { MMLOCK_LOCK_NONE, "none" },			\
			 { MMLOCK_LOCK_UNKNOWN, "unknown" })

#define MMLOCK_PRINT_WAIT(v)						\
	__print_symbolic(v,						\
			 { MMLOCK_WAIT_FOLIO_LOCK, "folio_lock" },	\
			 { MMLOCK_WAIT_READ_FOLIO, "read_folio" },	\
			 { MMLOCK_WAIT_READAHEAD, "readahead" },	\
			 { MMLOCK_WAIT_UNKNOWN, "unknown" })

#define MMLOCK_PRINT_RETRY(v)						\
	__print_symbolic(v,						\
			 { MMLOCK_RETRY_DROP_ASYNC_RA, "drop_async_ra" },	\
			 { MMLOCK_RETRY_DROP_SYNC_RA, "drop_sync_ra" },	\
			 { MMLOCK_RETRY_DROP_FOLIO_LOCK, "drop_folio_lock" }, \
			 { MMLOCK_RETRY_DROP_READ_FOLIO, "drop_read_folio" }, \
			 { MMLOCK_RETRY_KILLED, "killed" },		\
			 { MMLOCK_RETRY_NOWAIT, "nowait" },		\
			 { MMLOCK_RETRY_OOM, "oom" },			\
			 { MMLOCK_RETRY_UNKNOWN, "unknown" })

#define MMLOCK_PRINT_READ_FAIL(v)					\
	__print_symbolic(v,						\
			 { MMLOCK_RF_WRITE_LOCKED, "write_locked" },	\
			 { MMLOCK_RF_CONTENDED, "contended" },		\
			 { MMLOCK_RF_DETACHED, "detached" },		\
			 { MMLOCK_RF_SEQ_RECHECK, "seq_recheck" },	\
			 { MMLOCK_RF_WRONG_MM, "wrong_mm" },		\
			 { MMLOCK_RF_OUT_OF_RANGE, "out_of_range" },	\
			 { MMLOCK_RF_NOT_FOUND, "not_found" },		\
			 { MMLOCK_RF_UNKNOWN, "unknown" })

#define MMLOCK_PRINT_FALLBACK(v)					\
	__print_symbolic(v,						\
			 { MMLOCK_FB_RETRY, "retry" },			\
			 { MMLOCK_FB_VMA_LOCK_FAILED, "vma_lock_failed" }, \
			 { MMLOCK_FB_KERNEL_MODE, "kernel_mode" },	\
			 { MMLOCK_FB_UNKNOWN, "unknown" })

#define MMLOCK_TF(b)	((b) ? "true" : "false")

/* The common four: the pid is the record header's. */
#define MMLOCK_COMMON_ENTRY					\
		__field(int, tgid)				\
		__field(int, prio)				\
		__field(const void *, mm)

#define MMLOCK_COMMON_ASSIGN(m)					\
		__entry->tgid = current->tgid;			\
		__entry->prio = current->prio;			\
		__entry->mm = (m)

TRACE_EVENT_FN(filemap_fault_begin,
	TP_PROTO(const struct mmlock_fault *f),
	TP_ARGS(f),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, vm_start)
		__field(unsigned long, vm_end)
		__field(unsigned long, address)
		__field(unsigned long, pgoff)
		__field(dev_t, dev)
		__field(unsigned long, ino)
		__field(int, lock)
		__field(unsigned long, user_pc)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(f->mm);
		__entry->vma = f->vma;
		__entry->vm_start = f->vm_start;
		__entry->vm_end = f->vm_end;
		__entry->address = f->address;
		__entry->pgoff = f->pgoff;
		__entry->dev = f->dev;
		__entry->ino = f->ino;
		__entry->lock = f->lock;
		__entry->user_pc = f->user_pc;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx address=%lx pgoff=%lx dev=%u:%u ino=%lu lock=%s user_pc=%lx",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->vm_start, __entry->vm_end, __entry->address,
		  __entry->pgoff, MAJOR(__entry->dev), MINOR(__entry->dev),
		  __entry->ino, MMLOCK_PRINT_LOCK(__entry->lock),
		  __entry->user_pc),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(filemap_fault_wait_start,
	TP_PROTO(const struct mmlock_fault *f, int reason, int lock),
	TP_ARGS(f, reason, lock),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, address)
		__field(int, reason)
		__field(int, lock)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(f->mm);
		__entry->vma = f->vma;
		__entry->address = f->address;
		__entry->reason = reason;
		__entry->lock = lock;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx reason=%s lock=%s",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->address, MMLOCK_PRINT_WAIT(__entry->reason),
		  MMLOCK_PRINT_LOCK(__entry->lock)),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(filemap_fault_wait_end,
	TP_PROTO(const struct mmlock_fault *f, int reason, int lock,
		 u64 waited_ns, int err),
	TP_ARGS(f, reason, lock, waited_ns, err),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, address)
		__field(int, reason)
		__field(int, lock)
		__field(u64, waited_ns)
		__field(int, err)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(f->mm);
		__entry->vma = f->vma;
		__entry->address = f->address;
		__entry->reason = reason;
		__entry->lock = lock;
		__entry->waited_ns = waited_ns;
		__entry->err = err;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx reason=%s lock=%s waited_ns=%llu err=%d",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->address, MMLOCK_PRINT_WAIT(__entry->reason),
		  MMLOCK_PRINT_LOCK(__entry->lock), __entry->waited_ns,
		  __entry->err),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(filemap_fault_retry,
	TP_PROTO(const struct mmlock_fault *f, int reason, unsigned int ret),
	TP_ARGS(f, reason, ret),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, address)
		__field(int, reason)
		__field(unsigned int, ret)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(f->mm);
		__entry->vma = f->vma;
		__entry->address = f->address;
		__entry->reason = reason;
		__entry->ret = ret;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx reason=%s ret=%s",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->address, MMLOCK_PRINT_RETRY(__entry->reason),
		  __print_flags(__entry->ret, "|", VM_FAULT_RESULT_TRACE)),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(filemap_fault_end,
	TP_PROTO(const struct mmlock_fault *f, unsigned int ret, bool dropped),
	TP_ARGS(f, ret, dropped),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, address)
		__field(unsigned int, ret)
		__field(int, major)
		__field(int, lock_dropped)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(f->mm);
		__entry->vma = f->vma;
		__entry->address = f->address;
		__entry->ret = ret;
		__entry->major = !!(ret & VM_FAULT_MAJOR);
		__entry->lock_dropped = dropped;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx ret=%s major=%s lock_dropped=%s",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->address,
		  __print_flags(__entry->ret, "|", VM_FAULT_RESULT_TRACE),
		  MMLOCK_TF(__entry->major), MMLOCK_TF(__entry->lock_dropped)),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(vma_start_write_begin,
	TP_PROTO(const struct mmlock_vma *v, unsigned long caller,
		 unsigned long user_pc),
	TP_ARGS(v, caller, user_pc),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, vm_start)
		__field(unsigned long, vm_end)
		__field(unsigned long, flags)
		__field(int, anon)
		__field(dev_t, dev)
		__field(unsigned long, ino)
		__field(unsigned long, caller)
		__field(unsigned long, user_pc)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(v->mm);
		__entry->vma = v->vma;
		__entry->vm_start = v->vm_start;
		__entry->vm_end = v->vm_end;
		__entry->flags = v->flags;
		__entry->anon = v->anon;
		__entry->dev = v->dev;
		__entry->ino = v->ino;
		__entry->caller = caller;
		__entry->user_pc = user_pc;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx flags=%lx anon=%s dev=%u:%u ino=%lu caller=%pS user_pc=%lx",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->vm_start, __entry->vm_end, __entry->flags,
		  MMLOCK_TF(__entry->anon), MAJOR(__entry->dev),
		  MINOR(__entry->dev), __entry->ino, (void *)__entry->caller,
		  __entry->user_pc),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(vma_start_write_wait_start,
	TP_PROTO(const struct mmlock_vma *v, int readers, bool detach),
	TP_ARGS(v, readers, detach),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, vm_start)
		__field(unsigned long, vm_end)
		__field(int, readers)
		__field(int, detach)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(v->mm);
		__entry->vma = v->vma;
		__entry->vm_start = v->vm_start;
		__entry->vm_end = v->vm_end;
		__entry->readers = readers;
		__entry->detach = detach;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx readers=%d detach=%s",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->vm_start, __entry->vm_end, __entry->readers,
		  MMLOCK_TF(__entry->detach)),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(vma_start_write_wait_end,
	TP_PROTO(const struct mmlock_vma *v, u64 waited_ns, int err),
	TP_ARGS(v, waited_ns, err),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, vm_start)
		__field(unsigned long, vm_end)
		__field(u64, waited_ns)
		__field(int, err)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(v->mm);
		__entry->vma = v->vma;
		__entry->vm_start = v->vm_start;
		__entry->vm_end = v->vm_end;
		__entry->waited_ns = waited_ns;
		__entry->err = err;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx waited_ns=%llu err=%d",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->vm_start, __entry->vm_end, __entry->waited_ns,
		  __entry->err),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(vma_start_write_done,
	TP_PROTO(const struct mmlock_vma *v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, vm_start)
		__field(unsigned long, vm_end)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(v->mm);
		__entry->vma = v->vma;
		__entry->vm_start = v->vm_start;
		__entry->vm_end = v->vm_end;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->vm_start, __entry->vm_end),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(vma_start_read_fail,
	TP_PROTO(const void *mm, const void *vma, unsigned long address,
		 int reason, unsigned long caller),
	TP_ARGS(mm, vma, address, reason, caller),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(const void *, vma)
		__field(unsigned long, address)
		__field(int, reason)
		__field(unsigned long, caller)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(mm);
		__entry->vma = vma;
		__entry->address = address;
		__entry->reason = reason;
		__entry->caller = caller;
	),
	TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx reason=%s caller=%pS",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		  __entry->address, MMLOCK_PRINT_READ_FAIL(__entry->reason),
		  (void *)__entry->caller),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(fault_mmap_lock_fallback,
	TP_PROTO(const void *mm, unsigned long address, int reason,
		 unsigned int fault),
	TP_ARGS(mm, address, reason, fault),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(unsigned long, address)
		__field(int, reason)
		__field(unsigned int, fault)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(mm);
		__entry->address = address;
		__entry->reason = reason;
		__entry->fault = fault;
	),
	TP_printk("tgid=%d prio=%d mm=%p address=%lx reason=%s fault=%s",
		  __entry->tgid, __entry->prio, __entry->mm, __entry->address,
		  MMLOCK_PRINT_FALLBACK(__entry->reason),
		  __print_flags(__entry->fault, "|", VM_FAULT_RESULT_TRACE)),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(mmap_lock_wait_start,
	TP_PROTO(const void *mm, bool write, unsigned long caller),
	TP_ARGS(mm, write, caller),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(int, write)
		__field(unsigned long, caller)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(mm);
		__entry->write = write;
		__entry->caller = caller;
	),
	TP_printk("tgid=%d prio=%d mm=%p write=%s caller=%pS",
		  __entry->tgid, __entry->prio, __entry->mm,
		  MMLOCK_TF(__entry->write), (void *)__entry->caller),
	mmlock_event_reg, mmlock_event_unreg
);

TRACE_EVENT_FN(mmap_lock_wait_end,
	TP_PROTO(const void *mm, bool write, bool success, u64 waited_ns),
	TP_ARGS(mm, write, success, waited_ns),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(int, write)
		__field(int, success)
		__field(u64, waited_ns)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(mm);
		__entry->write = write;
		__entry->success = success;
		__entry->waited_ns = waited_ns;
	),
	TP_printk("tgid=%d prio=%d mm=%p write=%s success=%s waited_ns=%llu",
		  __entry->tgid, __entry->prio, __entry->mm,
		  MMLOCK_TF(__entry->write), MMLOCK_TF(__entry->success),
		  __entry->waited_ns),
	mmlock_event_reg, mmlock_event_unreg
);

DECLARE_EVENT_CLASS(mmlock_hold,
	TP_PROTO(const void *mm, bool write),
	TP_ARGS(mm, write),
	TP_STRUCT__entry(
		MMLOCK_COMMON_ENTRY
		__field(int, write)
	),
	TP_fast_assign(
		MMLOCK_COMMON_ASSIGN(mm);
		__entry->write = write;
	),
	TP_printk("tgid=%d prio=%d mm=%p write=%s",
		  __entry->tgid, __entry->prio, __entry->mm,
		  MMLOCK_TF(__entry->write))
);

DEFINE_EVENT_FN(mmlock_hold, mmap_lock_hold_start,
	TP_PROTO(const void *mm, bool write),
	TP_ARGS(mm, write),
	mmlock_event_reg, mmlock_event_unreg
);

DEFINE_EVENT_FN(mmlock_hold, mmap_lock_hold_end,
	TP_PROTO(const void *mm, bool write),
	TP_ARGS(mm, write),
	mmlock_event_reg, mmlock_event_unreg
);

#endif /* _MMLOCK_PROBE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mmlock_probe_trace
#include <trace/define_trace.h>
