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

struct lifecycle *lifecycle_new(void);
void lifecycle_event(struct lifecycle *lc, int tgid, uint64_t ts_ns, enum lc_kind kind);
void lifecycle_fault(struct lifecycle *lc, uint64_t mm, unsigned long address, uint64_t ts_ns);
struct json_object *lifecycle_json(const struct lifecycle *lc);
struct json_object *refaults_json(const struct lifecycle *lc);
void lifecycle_free(struct lifecycle *lc);

#endif /* MMLOCK_LIFECYCLE_H */
