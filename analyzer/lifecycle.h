/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seed's "other reports", in memory that does not grow with the trace:
 * the syscall behind each VMA writer's caller, the event mix of each TGID in
 * the early (0-20 %), middle and late (80-100 %) parts of its span, and
 * addresses that fault again and again (refault candidates).
 */
#ifndef MMLOCK_LIFECYCLE_H
#define MMLOCK_LIFECYCLE_H

#include <stdint.h>

struct json_object;
struct lifecycle;

enum lc_kind { LC_FAULT, LC_RETRY, LC_VMA_WRITE, LC_MMAP_WAIT, LC_NR };

/**
 * writer_syscall() - the operation behind a writer's caller function
 * @caller_func: the function name alone ("dup_mmap", not "dup_mmap+0x1c/0x80")
 *
 * Return: "fork" for dup_mmap, "mprotect" for mprotect_fixup, ... "other".
 */
const char *writer_syscall(const char *caller_func);

/**
 * writer_known_path() - is @caller_func on the known contention paths?
 * @caller_func: the function name alone
 *
 * The paths that hold mmap_lock for writing while they write-lock the VMAs
 * faults use (fork's dup_mmap, mprotect, munmap, mmap, split, expand, brk,
 * madvise, vma_modify): the inversion evidence of a Type-C pair.
 *
 * Return: 1 when it is, 0 otherwise.
 */
int writer_known_path(const char *caller_func);

/**
 * lifecycle_new() - empty per-TGID event mixes and refault table
 *
 * Return: the state (allocation failure exits, as xmalloc() does).
 */
struct lifecycle *lifecycle_new(void);

/**
 * lifecycle_event() - count an event of @kind of @tgid at @ts_ns
 * @lc: the state
 * @tgid: the thread group; negative (unknown) is not counted
 * @ts_ns: its time: bins of the TGID's span, merged as the span grows
 * @kind: which event
 */
void lifecycle_event(struct lifecycle *lc, int tgid, uint64_t ts_ns, enum lc_kind kind);

/**
 * lifecycle_fault() - a fault of (@mm, @address) at @ts_ns: a refault candidate
 * @lc: the state
 * @mm: the mm_struct pointer
 * @address: the faulting address (its page is the key)
 * @ts_ns: its time
 */
void lifecycle_fault(struct lifecycle *lc, uint64_t mm, unsigned long address, uint64_t ts_ns);

/**
 * lifecycle_json() - each TGID's event mix, early, middle and late in its span
 * @lc: the state
 *
 * Return: a new JSON array (reference owned by the caller).
 */
struct json_object *lifecycle_json(const struct lifecycle *lc);

/**
 * lifecycle_refaults_json() - the addresses that faulted again and again
 * @lc: the state
 *
 * Return: a new JSON object (reference owned by the caller).
 */
struct json_object *lifecycle_refaults_json(const struct lifecycle *lc);

/**
 * lifecycle_free() - free @lc
 * @lc: the state, or NULL
 */
void lifecycle_free(struct lifecycle *lc);

#endif /* MMLOCK_LIFECYCLE_H */
