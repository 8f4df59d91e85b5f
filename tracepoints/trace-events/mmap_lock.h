/*
 * Per-VMA lock and mmap_lock events: who waits for whom between page faults
 * and the tasks that change the address space.  They print key=value pairs,
 * "tgid prio mm" first; booleans print true/false like the events above.
 * Enumerations print 0 as "unknown".
 */
TRACE_DEFINE_ENUM(VMA_READ_FAIL_UNKNOWN);
TRACE_DEFINE_ENUM(VMA_READ_FAIL_WRITE_LOCKED);
TRACE_DEFINE_ENUM(VMA_READ_FAIL_CONTENDED);
TRACE_DEFINE_ENUM(VMA_READ_FAIL_DETACHED);
TRACE_DEFINE_ENUM(VMA_READ_FAIL_SEQ_RECHECK);
TRACE_DEFINE_ENUM(VMA_READ_FAIL_WRONG_MM);
TRACE_DEFINE_ENUM(VMA_READ_FAIL_OUT_OF_RANGE);
TRACE_DEFINE_ENUM(VMA_READ_FAIL_NOT_FOUND);
TRACE_DEFINE_ENUM(VMA_READ_FAIL_ANON_NO_ANON_VMA);
TRACE_DEFINE_ENUM(FAULT_FALLBACK_UNKNOWN);
TRACE_DEFINE_ENUM(FAULT_FALLBACK_RETRY);
TRACE_DEFINE_ENUM(FAULT_FALLBACK_VMA_LOCK_FAILED);
TRACE_DEFINE_ENUM(FAULT_FALLBACK_KERNEL_MODE);
TRACE_DEFINE_ENUM(FAULT_FALLBACK_ACCESS_ERROR);

/*
 * vma_start_write() found the VMA not yet write-locked in this mmap_lock
 * write section.  caller is where vma_start_write() was called from.
 */
TRACE_EVENT(vma_start_write_begin,
	    TP_PROTO(struct vm_area_struct *vma, unsigned long caller),
	    TP_ARGS(vma, caller),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, vm_start)
			     __field(unsigned long, vm_end)
			     __field(unsigned long, flags)
			     __field(bool, anon)
			     __field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(unsigned long, caller)
			     __field(unsigned long, user_pc)
	    ),
	    TP_fast_assign(struct inode *inode = vma->vm_file ? file_inode(vma->vm_file) : NULL;

			   __entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = vma->vm_mm;
			   __entry->vma = vma;
			   __entry->vm_start = vma->vm_start;
			   __entry->vm_end = vma->vm_end;
			   __entry->flags = vma->vm_flags;
			   __entry->anon = vma_is_anonymous(vma);
			   __entry->dev = inode ? inode->i_sb->s_dev : 0;
			   __entry->ino = inode ? inode->i_ino : 0;
			   __entry->caller = caller;
			   __entry->user_pc = (current->flags & PF_KTHREAD) ? 0 :
					      instruction_pointer(current_pt_regs());
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx flags=%lx anon=%s dev=%u:%u ino=%lu caller=%pS user_pc=%lx",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->vm_start, __entry->vm_end, __entry->flags,
		      __entry->anon ? "true" : "false",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      (void *)__entry->caller, __entry->user_pc)
);

/*
 * The writer must wait for readers of the VMA: readers is how many (-1 where
 * the lock cannot count them), detach is true when vma_mark_detached() waits.
 */
TRACE_EVENT(vma_start_write_wait_start,
	    TP_PROTO(struct vm_area_struct *vma, int readers, bool detach),
	    TP_ARGS(vma, readers, detach),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, vm_start)
			     __field(unsigned long, vm_end)
			     __field(int, readers)
			     __field(bool, detach)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = vma->vm_mm;
			   __entry->vma = vma;
			   __entry->vm_start = vma->vm_start;
			   __entry->vm_end = vma->vm_end;
			   __entry->readers = readers;
			   __entry->detach = detach;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx readers=%d detach=%s",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->vm_start, __entry->vm_end, __entry->readers,
		      __entry->detach ? "true" : "false")
);

/* The wait ended: err is 0, or -EINTR for a killed killable writer. */
TRACE_EVENT(vma_start_write_wait_end,
	    TP_PROTO(struct vm_area_struct *vma, u64 waited_ns, int err),
	    TP_ARGS(vma, waited_ns, err),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, vm_start)
			     __field(unsigned long, vm_end)
			     __field(u64, waited_ns)
			     __field(int, err)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = vma->vm_mm;
			   __entry->vma = vma;
			   __entry->vm_start = vma->vm_start;
			   __entry->vm_end = vma->vm_end;
			   __entry->waited_ns = waited_ns;
			   __entry->err = err;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx waited_ns=%llu err=%d",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->vm_start, __entry->vm_end, __entry->waited_ns,
		      __entry->err)
);

TRACE_EVENT(vma_start_write_done,
	    TP_PROTO(struct vm_area_struct *vma),
	    TP_ARGS(vma),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, vm_start)
			     __field(unsigned long, vm_end)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = vma->vm_mm;
			   __entry->vma = vma;
			   __entry->vm_start = vma->vm_start;
			   __entry->vm_end = vma->vm_end;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->vm_start, __entry->vm_end)
);

/* A per-VMA read-lock attempt failed; @vma is only printed (NULL or stale). */
TRACE_EVENT(vma_start_read_fail,
	    TP_PROTO(struct mm_struct *mm, const void *vma, unsigned long address,
		     int reason, unsigned long caller),
	    TP_ARGS(mm, vma, address, reason, caller),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, address)
			     __field(int, reason)
			     __field(unsigned long, caller)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = mm;
			   __entry->vma = vma;
			   __entry->address = address;
			   __entry->reason = reason;
			   __entry->caller = caller;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx reason=%s caller=%pS",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->address,
		      __print_symbolic(__entry->reason,
				       { VMA_READ_FAIL_UNKNOWN,	"unknown" },
				       { VMA_READ_FAIL_WRITE_LOCKED,	"write_locked" },
				       { VMA_READ_FAIL_CONTENDED,	"contended" },
				       { VMA_READ_FAIL_DETACHED,	"detached" },
				       { VMA_READ_FAIL_SEQ_RECHECK,	"seq_recheck" },
				       { VMA_READ_FAIL_WRONG_MM,	"wrong_mm" },
				       { VMA_READ_FAIL_OUT_OF_RANGE,	"out_of_range" },
				       { VMA_READ_FAIL_NOT_FOUND,	"not_found" },
				       { VMA_READ_FAIL_ANON_NO_ANON_VMA, "anon_no_anon_vma" }),
		      (void *)__entry->caller)
);

/*
 * A blocking mmap_*_lock() found the lock taken: the task queues (it may
 * still spin before it sleeps).  caller is the function that called it.
 */
TRACE_EVENT(mmap_lock_wait_start,
	    TP_PROTO(struct mm_struct *mm, bool write, unsigned long caller),
	    TP_ARGS(mm, write, caller),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(bool, write)
			     __field(unsigned long, caller)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = mm;
			   __entry->write = write;
			   __entry->caller = caller;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p write=%s caller=%pS",
		      __entry->tgid, __entry->prio, __entry->mm,
		      __entry->write ? "true" : "false", (void *)__entry->caller)
);

/* That wait ended; success is false when a killable lock was interrupted. */
TRACE_EVENT(mmap_lock_wait_end,
	    TP_PROTO(struct mm_struct *mm, bool write, bool success, u64 waited_ns),
	    TP_ARGS(mm, write, success, waited_ns),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(bool, write)
			     __field(bool, success)
			     __field(u64, waited_ns)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = mm;
			   __entry->write = write;
			   __entry->success = success;
			   __entry->waited_ns = waited_ns;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p write=%s success=%s waited_ns=%llu",
		      __entry->tgid, __entry->prio, __entry->mm,
		      __entry->write ? "true" : "false",
		      __entry->success ? "true" : "false", __entry->waited_ns)
);

/*
 * The mmap_lock was acquired (every path, trylocks included) or is released;
 * a downgrade is hold_end write=true then hold_start write=false.
 */
DECLARE_EVENT_CLASS(mmap_lock_hold,
		    TP_PROTO(struct mm_struct *mm, bool write),
		    TP_ARGS(mm, write),
		    TP_STRUCT__entry(__field(int, tgid)
				     __field(int, prio)
				     __field(struct mm_struct *, mm)
				     __field(bool, write)
		    ),
		    TP_fast_assign(__entry->tgid = current->tgid;
				   __entry->prio = current->prio;
				   __entry->mm = mm;
				   __entry->write = write;
		    ),
		    TP_printk("tgid=%d prio=%d mm=%p write=%s",
			      __entry->tgid, __entry->prio, __entry->mm,
			      __entry->write ? "true" : "false")
);

DEFINE_EVENT(mmap_lock_hold, mmap_lock_hold_start,
	     TP_PROTO(struct mm_struct *mm, bool write),
	     TP_ARGS(mm, write)
);

DEFINE_EVENT(mmap_lock_hold, mmap_lock_hold_end,
	     TP_PROTO(struct mm_struct *mm, bool write),
	     TP_ARGS(mm, write)
);

/*
 * A user page fault goes to the mmap_lock: reason says why, fault is the
 * VM_FAULT_* result of the last per-VMA attempt (empty when there was none).
 */
TRACE_EVENT(fault_mmap_lock_fallback,
	    TP_PROTO(struct mm_struct *mm, unsigned long address, int reason,
		     unsigned int fault),
	    TP_ARGS(mm, address, reason, fault),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(unsigned long, address)
			     __field(int, reason)
			     __field(unsigned int, fault)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = mm;
			   __entry->address = address;
			   __entry->reason = reason;
			   __entry->fault = fault;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p address=%lx reason=%s fault=%s",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->address,
		      __print_symbolic(__entry->reason,
				       { FAULT_FALLBACK_UNKNOWN,	"unknown" },
				       { FAULT_FALLBACK_RETRY,	"retry" },
				       { FAULT_FALLBACK_VMA_LOCK_FAILED, "vma_lock_failed" },
				       { FAULT_FALLBACK_KERNEL_MODE,	"kernel_mode" },
				       { FAULT_FALLBACK_ACCESS_ERROR,	"access_error" }),
		      __print_flags(__entry->fault, "|", VM_FAULT_RESULT_TRACE))
);
