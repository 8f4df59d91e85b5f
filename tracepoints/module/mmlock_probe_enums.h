/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The enumerations the shared event text (../trace-events/) prints, for a
 * kernel whose headers lack them.  A kernel with the mmlock series defines
 * enum vma_read_fail and enum fault_fallback_reason in linux/mm.h (6.12) or
 * linux/mmap_lock.h (7.2) (Kbuild finds them and sets MMLOCK_HAVE_*); the filemap ones live in its
 * mm/internal.h, which no module sees, so they are always defined here.
 * Value 0 is "unknown" in each, and the order is the series' (contract v2).
 */
#ifndef _MMLOCK_PROBE_ENUMS_H
#define _MMLOCK_PROBE_ENUMS_H

enum filemap_fault_lock {
	FILEMAP_FAULT_LOCK_UNKNOWN,
	FILEMAP_FAULT_LOCK_VMA,
	FILEMAP_FAULT_LOCK_MMAP,
	FILEMAP_FAULT_LOCK_NONE,
};

enum filemap_fault_wait {
	FILEMAP_FAULT_WAIT_UNKNOWN,
	FILEMAP_FAULT_WAIT_FOLIO_LOCK,
	FILEMAP_FAULT_WAIT_READ_FOLIO,
	FILEMAP_FAULT_WAIT_READAHEAD,
};

enum filemap_fault_retry {
	FILEMAP_FAULT_RETRY_UNKNOWN,
	FILEMAP_FAULT_RETRY_DROP_ASYNC_RA,
	FILEMAP_FAULT_RETRY_DROP_SYNC_RA,
	FILEMAP_FAULT_RETRY_DROP_FOLIO_LOCK,
	FILEMAP_FAULT_RETRY_DROP_READ_FOLIO,
	FILEMAP_FAULT_RETRY_KILLED,
	FILEMAP_FAULT_RETRY_NOWAIT,
	FILEMAP_FAULT_RETRY_OOM,
};

#ifndef MMLOCK_HAVE_VMA_READ_FAIL
enum vma_read_fail {
	VMA_READ_FAIL_UNKNOWN,
	VMA_READ_FAIL_WRITE_LOCKED,
	VMA_READ_FAIL_CONTENDED,
	VMA_READ_FAIL_DETACHED,
	VMA_READ_FAIL_SEQ_RECHECK,
	VMA_READ_FAIL_WRONG_MM,
	VMA_READ_FAIL_OUT_OF_RANGE,
	VMA_READ_FAIL_NOT_FOUND,
	VMA_READ_FAIL_ANON_NO_ANON_VMA,
};
#endif

#ifndef MMLOCK_HAVE_FAULT_FALLBACK
enum fault_fallback_reason {
	FAULT_FALLBACK_UNKNOWN,
	FAULT_FALLBACK_RETRY,
	FAULT_FALLBACK_VMA_LOCK_FAILED,
	FAULT_FALLBACK_KERNEL_MODE,
	FAULT_FALLBACK_ACCESS_ERROR,
};
#endif

#endif /* _MMLOCK_PROBE_ENUMS_H */
