/*
 * filemap_fault() events: where a file-backed page fault sleeps, which lock
 * it still holds while it sleeps, and why it returns VM_FAULT_RETRY.  They
 * print key=value pairs, "tgid prio mm" first.  Only filemap_fault_begin
 * reads the VMA (the fault lock is held there); the others print what the
 * fault snapshotted, as the lock may be gone by then.  Enumerations print
 * 0 as "unknown": a site nobody annotated never claims a reason.
 */
TRACE_DEFINE_ENUM(FILEMAP_FAULT_LOCK_UNKNOWN);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_LOCK_VMA);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_LOCK_MMAP);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_LOCK_NONE);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_WAIT_UNKNOWN);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_WAIT_FOLIO_LOCK);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_WAIT_READ_FOLIO);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_WAIT_READAHEAD);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_RETRY_UNKNOWN);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_RETRY_DROP_ASYNC_RA);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_RETRY_DROP_SYNC_RA);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_RETRY_DROP_FOLIO_LOCK);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_RETRY_DROP_READ_FOLIO);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_RETRY_KILLED);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_RETRY_NOWAIT);
TRACE_DEFINE_ENUM(FILEMAP_FAULT_RETRY_OOM);

#define show_filemap_fault_lock(lock)					\
	__print_symbolic(lock,						\
			 { FILEMAP_FAULT_LOCK_UNKNOWN,	"unknown" },	\
			 { FILEMAP_FAULT_LOCK_VMA,	"vma" },	\
			 { FILEMAP_FAULT_LOCK_MMAP,	"mmap" },	\
			 { FILEMAP_FAULT_LOCK_NONE,	"none" })

#define show_filemap_fault_wait(reason)					\
	__print_symbolic(reason,					\
			 { FILEMAP_FAULT_WAIT_UNKNOWN,	"unknown" },	\
			 { FILEMAP_FAULT_WAIT_FOLIO_LOCK, "folio_lock" }, \
			 { FILEMAP_FAULT_WAIT_READ_FOLIO, "read_folio" }, \
			 { FILEMAP_FAULT_WAIT_READAHEAD, "readahead" })

#define show_filemap_fault_retry(reason)				\
	__print_symbolic(reason,					\
			 { FILEMAP_FAULT_RETRY_UNKNOWN,	"unknown" },	\
			 { FILEMAP_FAULT_RETRY_DROP_ASYNC_RA, "drop_async_ra" }, \
			 { FILEMAP_FAULT_RETRY_DROP_SYNC_RA, "drop_sync_ra" }, \
			 { FILEMAP_FAULT_RETRY_DROP_FOLIO_LOCK, "drop_folio_lock" }, \
			 { FILEMAP_FAULT_RETRY_DROP_READ_FOLIO, "drop_read_folio" }, \
			 { FILEMAP_FAULT_RETRY_KILLED,	"killed" },	\
			 { FILEMAP_FAULT_RETRY_NOWAIT,	"nowait" },	\
			 { FILEMAP_FAULT_RETRY_OOM,	"oom" })

TRACE_EVENT(filemap_fault_begin,
	    TP_PROTO(struct vm_fault *vmf, int lock),
	    TP_ARGS(vmf, lock),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
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
	    TP_fast_assign(struct inode *inode = file_inode(vmf->vma->vm_file);

			   __entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = vmf->vma->vm_mm;
			   __entry->vma = vmf->vma;
			   __entry->vm_start = vmf->vma->vm_start;
			   __entry->vm_end = vmf->vma->vm_end;
			   __entry->address = vmf->real_address;
			   __entry->pgoff = vmf->pgoff;
			   __entry->dev = inode->i_sb->s_dev;
			   __entry->ino = inode->i_ino;
			   __entry->lock = lock;
			   __entry->user_pc = (current->flags & PF_KTHREAD) ? 0 :
					      instruction_pointer(current_pt_regs());
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p vm_start=%lx vm_end=%lx address=%lx pgoff=%lx dev=%u:%u ino=%lu lock=%s user_pc=%lx",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->vm_start, __entry->vm_end, __entry->address,
		      __entry->pgoff, MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->ino, show_filemap_fault_lock(__entry->lock),
		      __entry->user_pc)
);

TRACE_EVENT(filemap_fault_wait_start,
	    TP_PROTO(struct mm_struct *mm, const void *vma, unsigned long address,
		     int reason, int lock),
	    TP_ARGS(mm, vma, address, reason, lock),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, address)
			     __field(int, reason)
			     __field(int, lock)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = mm;
			   __entry->vma = vma;
			   __entry->address = address;
			   __entry->reason = reason;
			   __entry->lock = lock;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx reason=%s lock=%s",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->address, show_filemap_fault_wait(__entry->reason),
		      show_filemap_fault_lock(__entry->lock))
);

TRACE_EVENT(filemap_fault_wait_end,
	    TP_PROTO(struct mm_struct *mm, const void *vma, unsigned long address,
		     int reason, int lock, u64 waited_ns, int err),
	    TP_ARGS(mm, vma, address, reason, lock, waited_ns, err),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, address)
			     __field(int, reason)
			     __field(int, lock)
			     __field(u64, waited_ns)
			     __field(int, err)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = mm;
			   __entry->vma = vma;
			   __entry->address = address;
			   __entry->reason = reason;
			   __entry->lock = lock;
			   __entry->waited_ns = waited_ns;
			   __entry->err = err;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx reason=%s lock=%s waited_ns=%llu err=%d",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->address, show_filemap_fault_wait(__entry->reason),
		      show_filemap_fault_lock(__entry->lock), __entry->waited_ns,
		      __entry->err)
);

TRACE_EVENT(filemap_fault_retry,
	    TP_PROTO(struct mm_struct *mm, const void *vma, unsigned long address,
		     int reason, unsigned int ret),
	    TP_ARGS(mm, vma, address, reason, ret),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, address)
			     __field(int, reason)
			     __field(unsigned int, ret)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = mm;
			   __entry->vma = vma;
			   __entry->address = address;
			   __entry->reason = reason;
			   __entry->ret = ret;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx reason=%s ret=%s",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->address, show_filemap_fault_retry(__entry->reason),
		      __print_flags(__entry->ret, "|", VM_FAULT_RESULT_TRACE))
);

TRACE_EVENT(filemap_fault_end,
	    TP_PROTO(struct mm_struct *mm, const void *vma, unsigned long address,
		     unsigned int ret, bool lock_dropped),
	    TP_ARGS(mm, vma, address, ret, lock_dropped),
	    TP_STRUCT__entry(__field(int, tgid)
			     __field(int, prio)
			     __field(struct mm_struct *, mm)
			     __field(const void *, vma)
			     __field(unsigned long, address)
			     __field(unsigned int, ret)
			     __field(bool, major)
			     __field(bool, lock_dropped)
	    ),
	    TP_fast_assign(__entry->tgid = current->tgid;
			   __entry->prio = current->prio;
			   __entry->mm = mm;
			   __entry->vma = vma;
			   __entry->address = address;
			   __entry->ret = ret;
			   __entry->major = ret & (__force unsigned int)VM_FAULT_MAJOR;
			   __entry->lock_dropped = lock_dropped;
	    ),
	    TP_printk("tgid=%d prio=%d mm=%p vma=%p address=%lx ret=%s major=%s lock_dropped=%s",
		      __entry->tgid, __entry->prio, __entry->mm, __entry->vma,
		      __entry->address,
		      __print_flags(__entry->ret, "|", VM_FAULT_RESULT_TRACE),
		      __entry->major ? "true" : "false",
		      __entry->lock_dropped ? "true" : "false")
);
