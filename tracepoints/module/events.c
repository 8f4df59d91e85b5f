// SPDX-License-Identifier: GPL-2.0
/*
 * The module's trace events: the one file that instantiates them.  It
 * includes no kernel trace/events/ header, so the event names, which on a
 * patched kernel are also the kernel's, are defined here only once.
 */
#define CREATE_TRACE_POINTS
#include "mmlock_probe_trace.h"

#include "mmlock_probe.h"

/**
 * mmlock_events_on() - is any of the module's events enabled (or probed)?
 *
 * The probes do their work only then; the shared event text has no
 * registration callback to count enables with, so the events' own static
 * keys are asked.
 *
 * Return: true when at least one is.
 */
bool mmlock_events_on(void)
{
	return trace_filemap_fault_begin_enabled() ||
	       trace_filemap_fault_wait_start_enabled() ||
	       trace_filemap_fault_wait_end_enabled() ||
	       trace_filemap_fault_retry_enabled() ||
	       trace_filemap_fault_end_enabled() ||
	       trace_vma_start_write_begin_enabled() ||
	       trace_vma_start_write_wait_start_enabled() ||
	       trace_vma_start_write_wait_end_enabled() ||
	       trace_vma_start_write_done_enabled() ||
	       trace_vma_start_read_fail_enabled() ||
	       trace_fault_mmap_lock_fallback_enabled() ||
	       trace_mmap_lock_wait_start_enabled() ||
	       trace_mmap_lock_wait_end_enabled() ||
	       trace_mmap_lock_hold_start_enabled() ||
	       trace_mmap_lock_hold_end_enabled();
}
