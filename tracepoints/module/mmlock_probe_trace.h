/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract's 15 events as the module emits them: the one copy of the
 * event text that every kernel series carries verbatim
 * (tracepoints/trace-events/), instantiated in the trace system
 * "mmlock_probe" so that they coexist with a patched kernel's own
 * filemap:* and mmap_lock:* events of the same names.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmlock_probe

#if !defined(_MMLOCK_PROBE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MMLOCK_PROBE_TRACE_H

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include "mmlock_probe_enums.h"

#include "../trace-events/filemap.h"
#include "../trace-events/mmap_lock.h"

#endif /* _MMLOCK_PROBE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mmlock_probe_trace
#include <trace/define_trace.h>
