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

/* "dup_mmap" -> "fork", "mprotect_fixup" -> "mprotect", ... "other" */
const char *writer_syscall(const char *caller_func);

struct lifecycle *lifecycle_new(void);
void lifecycle_event(struct lifecycle *lc, int tgid, uint64_t ts_ns, enum lc_kind kind);
void lifecycle_fault(struct lifecycle *lc, uint64_t mm, unsigned long address, uint64_t ts_ns);
struct json_object *lifecycle_json(const struct lifecycle *lc);
struct json_object *refaults_json(const struct lifecycle *lc);
void lifecycle_free(struct lifecycle *lc);

#endif /* MMLOCK_LIFECYCLE_H */
