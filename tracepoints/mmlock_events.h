/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event contract of ../shared/design/events.md in code: the one list of
 * event names, systems, fields and enumeration words that the kernel patches,
 * the collector and the analyzer all follow.
 *
 * Every custom event prints "key=value" pairs separated by single spaces, in
 * the order of its field list below, starting with the common three
 * (tgid prio mm; the pid is the record header's common_pid).  The kernel
 * patches declare TP_STRUCT__entry fields with exactly these names and C
 * types; `mmlock events --check` compares a running kernel's format files
 * with this table, `mmlock events --check-header` the trace-event text of
 * tracepoints/trace-events/ that every series carries.
 *
 * This is version 2 of the text form.  Version 1 (the first kernel series)
 * differs only as MMLOCK_V1_* below says: one place, read by the format
 * check and by whoever parses old captures.
 */
#ifndef MMLOCK_EVENTS_H
#define MMLOCK_EVENTS_H

#include <stddef.h>

/* How a field is printed in the event's text form. */
enum mmlock_fmt {
	MMLOCK_FMT_DEC,		/* %d / %u / %lu / %llu */
	MMLOCK_FMT_HEX,		/* %lx, no 0x prefix (addresses a user acts on) */
	MMLOCK_FMT_PTR,		/* %p, hashed: only equality matters */
	MMLOCK_FMT_DEV,		/* major:minor */
	MMLOCK_FMT_ENUM,	/* one word of the field's enumeration */
	MMLOCK_FMT_FLAGS,	/* VM_FAULT_* words joined by '|', may be empty */
	MMLOCK_FMT_SYM,		/* %pS: func+0xoff/0xsize, maybe followed by " [module]" */
	MMLOCK_FMT_BOOL,	/* true or false (version 1: 1 or 0) */
};

/*
 * Enumerations, printed as words.  The order is the kernel's numbering
 * (the patches' TRACE_DEFINE_ENUM values follow it).  Value 0 of every
 * enumeration is "unknown": a field nobody set, a path not annotated, or
 * what the out-of-tree module cannot tell on a stock kernel prints as a word
 * of its own, never as a real reason.  anon_no_anon_vma and access_error
 * are printed only by android14-6.1, whose lock_vma_under_rcu() refuses an
 * anonymous VMA without anon_vma and whose fault handlers fall back to
 * mmap_lock on an access error; every series defines them, so that all
 * three carry the same trace-event text.
 */
#define MMLOCK_FAULT_LOCK(X)		\
	X(unknown)			\
	X(vma)				\
	X(mmap)				\
	X(none)

#define MMLOCK_WAIT_REASON(X)		\
	X(unknown)			\
	X(folio_lock)			\
	X(read_folio)			\
	X(readahead)

#define MMLOCK_RETRY_REASON(X)		\
	X(unknown)			\
	X(drop_async_ra)		\
	X(drop_sync_ra)			\
	X(drop_folio_lock)		\
	X(drop_read_folio)		\
	X(killed)			\
	X(nowait)			\
	X(oom)

#define MMLOCK_READ_FAIL_REASON(X)	\
	X(unknown)			\
	X(write_locked)			\
	X(contended)			\
	X(detached)			\
	X(seq_recheck)			\
	X(wrong_mm)			\
	X(out_of_range)			\
	X(not_found)			\
	X(anon_no_anon_vma)

#define MMLOCK_FALLBACK_REASON(X)	\
	X(unknown)			\
	X(retry)			\
	X(vma_lock_failed)		\
	X(kernel_mode)			\
	X(access_error)

/*
 * F(name, kernel C type, print form, enumeration or NULL)
 * The C type is the one the patches give TP_STRUCT__entry, so it is also what
 * the kernel's format file shows.
 */
#define MMLOCK_F_COMMON(F)					\
	F(tgid,		"int",			DEC,	NULL)	\
	F(prio,		"int",			DEC,	NULL)	\
	F(mm,		"struct mm_struct *",	PTR,	NULL)

#define MMLOCK_F_filemap_fault_begin(F)				\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(vm_start,	"unsigned long",	HEX,	NULL)	\
	F(vm_end,	"unsigned long",	HEX,	NULL)	\
	F(address,	"unsigned long",	HEX,	NULL)	\
	F(pgoff,	"unsigned long",	HEX,	NULL)	\
	F(dev,		"dev_t",		DEV,	NULL)	\
	F(ino,		"unsigned long",	DEC,	NULL)	\
	F(lock,		"int",			ENUM,	fault_lock) \
	F(user_pc,	"unsigned long",	HEX,	NULL)

#define MMLOCK_F_filemap_fault_wait_start(F)			\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(address,	"unsigned long",	HEX,	NULL)	\
	F(reason,	"int",			ENUM,	wait_reason) \
	F(lock,		"int",			ENUM,	fault_lock)

#define MMLOCK_F_filemap_fault_wait_end(F)			\
	MMLOCK_F_filemap_fault_wait_start(F)			\
	F(waited_ns,	"u64",			DEC,	NULL)	\
	F(err,		"int",			DEC,	NULL)

#define MMLOCK_F_filemap_fault_retry(F)				\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(address,	"unsigned long",	HEX,	NULL)	\
	F(reason,	"int",			ENUM,	retry_reason) \
	F(ret,		"unsigned int",		FLAGS,	NULL)

#define MMLOCK_F_filemap_fault_end(F)				\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(address,	"unsigned long",	HEX,	NULL)	\
	F(ret,		"unsigned int",		FLAGS,	NULL)	\
	F(major,	"bool",			BOOL,	NULL)	\
	F(lock_dropped,	"bool",			BOOL,	NULL)

#define MMLOCK_F_vma_start_write_begin(F)			\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(vm_start,	"unsigned long",	HEX,	NULL)	\
	F(vm_end,	"unsigned long",	HEX,	NULL)	\
	F(flags,	"unsigned long",	HEX,	NULL)	\
	F(anon,		"bool",			BOOL,	NULL)	\
	F(dev,		"dev_t",		DEV,	NULL)	\
	F(ino,		"unsigned long",	DEC,	NULL)	\
	F(caller,	"unsigned long",	SYM,	NULL)	\
	F(user_pc,	"unsigned long",	HEX,	NULL)

/*
 * readers: -1 where the lock design cannot count them (rwsem).
 * detach: true when the wait is vma_mark_detached() waiting for readers
 * (refcount design only), not a write lock.
 * err: 0, or the killable writer's error (-EINTR) on kernels that have one.
 */
#define MMLOCK_F_vma_start_write_wait_start(F)			\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(vm_start,	"unsigned long",	HEX,	NULL)	\
	F(vm_end,	"unsigned long",	HEX,	NULL)	\
	F(readers,	"int",			DEC,	NULL)	\
	F(detach,	"bool",			BOOL,	NULL)

#define MMLOCK_F_vma_start_write_wait_end(F)			\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(vm_start,	"unsigned long",	HEX,	NULL)	\
	F(vm_end,	"unsigned long",	HEX,	NULL)	\
	F(waited_ns,	"u64",			DEC,	NULL)	\
	F(err,		"int",			DEC,	NULL)

#define MMLOCK_F_vma_start_write_done(F)			\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(vm_start,	"unsigned long",	HEX,	NULL)	\
	F(vm_end,	"unsigned long",	HEX,	NULL)

#define MMLOCK_F_vma_start_read_fail(F)				\
	MMLOCK_F_COMMON(F)					\
	F(vma,		"const void *",		PTR,	NULL)	\
	F(address,	"unsigned long",	HEX,	NULL)	\
	F(reason,	"int",			ENUM,	read_fail_reason) \
	F(caller,	"unsigned long",	SYM,	NULL)

#define MMLOCK_F_fault_mmap_lock_fallback(F)			\
	MMLOCK_F_COMMON(F)					\
	F(address,	"unsigned long",	HEX,	NULL)	\
	F(reason,	"int",			ENUM,	fallback_reason) \
	F(fault,	"unsigned int",		FLAGS,	NULL)

#define MMLOCK_F_mmap_lock_wait_start(F)			\
	MMLOCK_F_COMMON(F)					\
	F(write,	"bool",			BOOL,	NULL)	\
	F(caller,	"unsigned long",	SYM,	NULL)

#define MMLOCK_F_mmap_lock_wait_end(F)				\
	MMLOCK_F_COMMON(F)					\
	F(write,	"bool",			BOOL,	NULL)	\
	F(success,	"bool",			BOOL,	NULL)	\
	F(waited_ns,	"u64",			DEC,	NULL)

#define MMLOCK_F_mmap_lock_hold_start(F)			\
	MMLOCK_F_COMMON(F)					\
	F(write,	"bool",			BOOL,	NULL)

#define MMLOCK_F_mmap_lock_hold_end(F)				\
	MMLOCK_F_COMMON(F)					\
	F(write,	"bool",			BOOL,	NULL)

/*
 * The families a summary reports on, each with its JSON name: what a capture
 * recorded is decided per family (a missing one's numbers are null).
 */
#define MMLOCK_FAMILIES(X)			\
	X(FILEMAP,	filemap_fault)		\
	X(VMA_WRITER,	vma_writer)		\
	X(READ_FAIL,	vma_read_fail)		\
	X(FALLBACK,	fallback)		\
	X(MMAP,		mmap_lock)		\
	X(SCHED,	sched_switch)

enum mmlock_family {
#define MMLOCK_FAM_ENUM(id, json) MMLOCK_FAM_##id,
	MMLOCK_FAMILIES(MMLOCK_FAM_ENUM)
#undef MMLOCK_FAM_ENUM
	MMLOCK_FAM_NR,		/* an event of no family */
};

extern const char *const mmlock_family_names[MMLOCK_FAM_NR];

/*
 * E(id, system, name, family, handler): the custom events, in the order a
 * person reads them.  handler names the analyzer's on_<handler>() (perf
 * builtin-lock's handler table): analyzer/analysis.c expands this list into
 * its dispatch table, so an event added here without a handler does not
 * build.
 */
#define MMLOCK_CUSTOM_EVENTS(E)						\
	E(FILEMAP_FAULT_BEGIN,		filemap,   filemap_fault_begin,	\
	  FILEMAP,	fault_begin)					\
	E(FILEMAP_FAULT_WAIT_START,	filemap,   filemap_fault_wait_start, \
	  FILEMAP,	fault_wait_start)				\
	E(FILEMAP_FAULT_WAIT_END,	filemap,   filemap_fault_wait_end, \
	  FILEMAP,	fault_wait_end)					\
	E(FILEMAP_FAULT_RETRY,		filemap,   filemap_fault_retry,	\
	  FILEMAP,	fault_retry)					\
	E(FILEMAP_FAULT_END,		filemap,   filemap_fault_end,	\
	  FILEMAP,	fault_end)					\
	E(VMA_START_WRITE_BEGIN,	mmap_lock, vma_start_write_begin, \
	  VMA_WRITER,	vma_write_begin)				\
	E(VMA_START_WRITE_WAIT_START,	mmap_lock, vma_start_write_wait_start, \
	  VMA_WRITER,	vma_wait_start)					\
	E(VMA_START_WRITE_WAIT_END,	mmap_lock, vma_start_write_wait_end, \
	  VMA_WRITER,	vma_wait_end)					\
	E(VMA_START_WRITE_DONE,		mmap_lock, vma_start_write_done, \
	  VMA_WRITER,	vma_write_done)					\
	E(VMA_START_READ_FAIL,		mmap_lock, vma_start_read_fail,	\
	  READ_FAIL,	read_fail)					\
	E(FAULT_MMAP_LOCK_FALLBACK,	mmap_lock, fault_mmap_lock_fallback, \
	  FALLBACK,	fallback)					\
	E(MMAP_LOCK_WAIT_START,		mmap_lock, mmap_lock_wait_start, \
	  MMAP,		mmap_wait_start)				\
	E(MMAP_LOCK_WAIT_END,		mmap_lock, mmap_lock_wait_end,	\
	  MMAP,		mmap_wait_end)					\
	E(MMAP_LOCK_HOLD_START,		mmap_lock, mmap_lock_hold_start, \
	  MMAP,		mmap_hold_start)				\
	E(MMAP_LOCK_HOLD_END,		mmap_lock, mmap_lock_hold_end,	\
	  MMAP,		mmap_hold_end)

/*
 * The stock-kernel fallback.  Their fields differ between kernel versions
 * (memcg_path on <= 6.13, memcg_id later), so only the names are fixed here;
 * the analyzer reads the few keys it needs (mm, write, success, dev, ino).
 */
#define MMLOCK_STOCK_EVENTS(E)						\
	E(MMAP_LOCK_START_LOCKING,	mmap_lock, mmap_lock_start_locking, \
	  MMAP,		stock_start_locking)				\
	E(MMAP_LOCK_ACQUIRE_RETURNED,	mmap_lock, mmap_lock_acquire_returned, \
	  MMAP,		stock_acquire_returned)				\
	E(MMAP_LOCK_RELEASED,		mmap_lock, mmap_lock_released,	\
	  MMAP,		stock_released)					\
	E(MM_FILEMAP_FAULT,		filemap,   mm_filemap_fault,	\
	  NR,		stock_filemap_fault)				\
	E(SCHED_SWITCH,			sched,     sched_switch,	\
	  SCHED,	sched_switch)

enum mmlock_event_id {
#define MMLOCK_EV_ENUM(id, sys, name, fam, handler) MMLOCK_EV_##id,
	MMLOCK_CUSTOM_EVENTS(MMLOCK_EV_ENUM)
	MMLOCK_EV_NR_CUSTOM,	/* stock events follow */
	MMLOCK_STOCK_EVENTS(MMLOCK_EV_ENUM)
	MMLOCK_EV_NR,
#undef MMLOCK_EV_ENUM
};

/* C enumerations with the kernel's numbering, for code that switches on them. */
#define MMLOCK_FL_ENUM(w)	MMLOCK_FL_##w,
#define MMLOCK_WR_ENUM(w)	MMLOCK_WR_##w,
#define MMLOCK_RR_ENUM(w)	MMLOCK_RR_##w,
#define MMLOCK_RF_ENUM(w)	MMLOCK_RF_##w,
#define MMLOCK_FB_ENUM(w)	MMLOCK_FB_##w,
enum mmlock_fault_lock { MMLOCK_FAULT_LOCK(MMLOCK_FL_ENUM) MMLOCK_FL_NR };
enum mmlock_wait_reason { MMLOCK_WAIT_REASON(MMLOCK_WR_ENUM) MMLOCK_WR_NR };
enum mmlock_retry_reason { MMLOCK_RETRY_REASON(MMLOCK_RR_ENUM) MMLOCK_RR_NR };
enum mmlock_read_fail_reason { MMLOCK_READ_FAIL_REASON(MMLOCK_RF_ENUM) MMLOCK_RF_NR };
enum mmlock_fallback_reason { MMLOCK_FALLBACK_REASON(MMLOCK_FB_ENUM) MMLOCK_FB_NR };
#undef MMLOCK_FL_ENUM
#undef MMLOCK_WR_ENUM
#undef MMLOCK_RR_ENUM
#undef MMLOCK_RF_ENUM
#undef MMLOCK_FB_ENUM

struct mmlock_field {
	const char		*name;
	const char		*ctype;
	enum mmlock_fmt		fmt;
	const char *const	*words;		/* enumeration words, NULL-terminated */
};

struct mmlock_event {
	enum mmlock_event_id		id;
	const char			*system;
	const char			*name;
	const struct mmlock_field	*fields;	/* NULL for stock events */
	unsigned int			nr_fields;
	int				custom;
	enum mmlock_family		family;		/* MMLOCK_FAM_NR: none */
};

extern const struct mmlock_event mmlock_events[MMLOCK_EV_NR];

/*
 * S(id, name): the fault-policy sysctls the kernel series adds under
 * /proc/sys/vm (events.md "Kernel knobs added by the patches"), the one
 * place their names are spelled.  @name is also the key under trace.status's
 * "sysctls" and a summary's "policy" object, and what `mmlock analyze
 * --sysctl NAME=V` takes (as vm.NAME=V too).  A stock kernel has neither.
 */
#define MMLOCK_SYSCTLS(S)					\
	S(NO_RETRY,		filemap_fault_no_retry)		\
	S(RETRY_VMA_LOCK,	fault_retry_vma_lock)

#define MMLOCK_SYSCTL_DIR	"/proc/sys/vm/"
#define MMLOCK_SYSCTL_PREFIX	"vm."

enum mmlock_sysctl_id {
#define MMLOCK_SC_ENUM(id, name) MMLOCK_SYSCTL_##id,
	MMLOCK_SYSCTLS(MMLOCK_SC_ENUM)
#undef MMLOCK_SC_ENUM
	MMLOCK_SYSCTL_NR,
};

/**
 * struct mmlock_sysctl - one fault-policy knob
 * @id: its index in mmlock_sysctls[]
 * @name: "filemap_fault_no_retry": the file's name, trace.status's
 *	"sysctls" key and a summary's "policy" key
 * @path: "/proc/sys/vm/filemap_fault_no_retry"
 * @status_key: "sysctls.filemap_fault_no_retry", its path in trace.status
 * @summary_key: "policy.filemap_fault_no_retry", its path in a summary
 */
struct mmlock_sysctl {
	enum mmlock_sysctl_id	id;
	const char		*name;
	const char		*path;
	const char		*status_key;
	const char		*summary_key;
};

extern const struct mmlock_sysctl mmlock_sysctls[MMLOCK_SYSCTL_NR];

/**
 * mmlock_sysctl_find() - a knob by name
 * @name: "filemap_fault_no_retry" or "vm.filemap_fault_no_retry"; @len
 *	bytes of it are compared (a NAME=VALUE argument passes the length of NAME)
 * @len: how many bytes of @name
 *
 * Return: the knob, or NULL when the contract has none of that name.
 */
const struct mmlock_sysctl *mmlock_sysctl_find(const char *name, size_t len);

/**
 * mmlock_sysctl_read() - the running kernel's value of a knob
 * @sc: the knob
 *
 * Return: its value (>= 0), or -1 when the kernel has no such file (a stock
 * kernel) or it cannot be read or holds no number (errno set).
 */
int mmlock_sysctl_read(const struct mmlock_sysctl *sc);

/*
 * P(id, name, no_retry, retry_vma_lock): the fault policies a run compares
 * (events.md: stock, no-retry, retry under the per-VMA lock), each a setting
 * of the sysctls above, in the order of MMLOCK_SYSCTLS.  @name is what
 * `mmlock run -P` takes and a summary's policy.name says.  Stock is first:
 * the others are read against it.
 */
#define MMLOCK_POLICIES(P)				\
	P(STOCK,	"stock",	0, 0)		\
	P(NO_RETRY,	"no-retry",	1, 0)		\
	P(RETRY_VMA,	"retry-vma",	0, 1)

enum mmlock_policy_id {
#define MMLOCK_POL_ENUM(id, name, nr, rv) MMLOCK_POLICY_##id,
	MMLOCK_POLICIES(MMLOCK_POL_ENUM)
#undef MMLOCK_POL_ENUM
	MMLOCK_POLICY_NR,
};

/**
 * struct mmlock_policy - one fault policy
 * @name: "no-retry"
 * @value: what it sets each sysctl to, indexed by enum mmlock_sysctl_id
 */
struct mmlock_policy {
	const char	*name;
	int		value[MMLOCK_SYSCTL_NR];
};

extern const struct mmlock_policy mmlock_policies[MMLOCK_POLICY_NR];

/**
 * mmlock_policy_of() - the policy that sets the sysctls to these values
 * @value: one value per sysctl, indexed by enum mmlock_sysctl_id
 *
 * Return: the policy, or NULL when none of the table's sets them so.
 */
const struct mmlock_policy *mmlock_policy_of(const int value[MMLOCK_SYSCTL_NR]);

/* The version of the text form this table describes. */
#define MMLOCK_CONTRACT_VERSION	2

/*
 * Version 1 of the text form (the first kernel series), all that differs:
 *  - every custom event started with an int field "pid" printed "pid=%d",
 *    before tgid (version 2: the record header's common_pid only);
 *  - booleans were int fields printed 0/1 (version 2: bool, true/false);
 *  - mm was a "const void *" field (version 2: struct mm_struct *; the text
 *    is the same hashed %p);
 *  - enumerations had no "unknown" word.
 * A capture of either version parses with the same tokenizer: a pid= key
 * repeats the header's pid, booleans go through mmlock_bool_parse().
 */
#define MMLOCK_V1_PID_FIELD	"pid"
#define MMLOCK_V1_PID_CTYPE	"int"
#define MMLOCK_V1_BOOL_CTYPE	"int"
#define MMLOCK_V1_MM_CTYPE	"const void *"

/**
 * mmlock_field_ctype() - the C type of a field in a version's format files
 * @f:		a field of the contract
 * @version:	1 or 2 (MMLOCK_CONTRACT_VERSION)
 *
 * Return: the type string as TP_STRUCT__entry declares it.
 */
const char *mmlock_field_ctype(const struct mmlock_field *f, int version);

/**
 * mmlock_bool_parse() - read a boolean value of either text form
 * @s:	"true"/"false" (version 2) or "1"/"0" (version 1)
 *
 * Return: 1, 0, or -1 when @s is neither.
 */
int mmlock_bool_parse(const char *s);

/* Enumeration word lists, NULL-terminated, indexed by the kernel's values. */
extern const char *const mmlock_words_fault_lock[];
extern const char *const mmlock_words_wait_reason[];
extern const char *const mmlock_words_retry_reason[];
extern const char *const mmlock_words_read_fail_reason[];
extern const char *const mmlock_words_fallback_reason[];

/* Lookup by "name" or "system:name"; NULL when not in the contract. */
const struct mmlock_event *mmlock_event_find(const char *name);
/* Index of @word in a NULL-terminated list, -1 when absent. */
int mmlock_word_index(const char *const *words, const char *word);
/* The field called @name of @ev, or NULL. */
const struct mmlock_field *mmlock_event_field(const struct mmlock_event *ev,
					      const char *name);

#endif /* MMLOCK_EVENTS_H */
