// SPDX-License-Identifier: GPL-2.0
/*
 * The module's trace events: the one file that instantiates them.  It
 * includes no kernel trace/events/ header, so the event names, which on a
 * patched kernel are also the kernel's, are defined here only once.
 */
#include <linux/sched.h>

#define CREATE_TRACE_POINTS
#include "mmlock_probe_trace.h"
