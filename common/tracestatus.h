/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading DIR/trace.status, the collector's description of a capture
 * (collector/README.md documents every key; collector/status.c writes it).
 * Only what a reader of a capture needs is read, in bounded memory
 * (jsonskim.h), and every value is checked: a capture can come off any
 * machine.  `mmlock analyze` reads it here, and so can any other command
 * that takes a capture (the device runner, say).
 */
#ifndef MMLOCK_TRACESTATUS_H
#define MMLOCK_TRACESTATUS_H

#include <stdint.h>

struct json_object;

/**
 * struct trace_status - what a capture's trace.status says
 * @root: the keys read (owns the strings below)
 * @events: the events recorded ("system:name"), NULL when unknown (no key,
 *	null, or an older --stdin capture's [])
 * @nr_events: how many
 * @lost: lost_events.total (or a bare number), -1 when absent or invalid
 * @no_retry: sysctls.filemap_fault_no_retry: 0, 1, or -1 (unknown/invalid)
 * @retry_vma_lock: sysctls.fault_retry_vma_lock: 0, 1, or -1
 * @stack_before: stack blocks precede their events: 1, 0, or -1 (not said)
 * @clock: trace_clock, or NULL
 * @filter: the one-line filter summary, or NULL
 * @event_set: "custom", "stock", "mixed", "user", or NULL
 * @mode: "text", "binary", "stdin", "decoded", or NULL
 * @event_source: "kernel", "module", "stock", "mixed", or NULL (not said)
 * @module_caps: the module's caps line (event_source "module"), or NULL
 * @module_version: the module's version, or NULL
 */
struct trace_status {
	struct json_object	*root;
	const char		**events;
	int			nr_events;
	int64_t			lost;
	int			no_retry, retry_vma_lock, stack_before;
	const char		*clock, *filter, *event_set, *mode;
	const char		*event_source, *module_caps, *module_version;
};

/**
 * trace_status_init() - an empty status: everything unknown
 * @st: filled in
 */
void trace_status_init(struct trace_status *st);

/**
 * trace_status_read() - read @path into @st
 * @st: initialised by trace_status_init()
 * @path: the file
 * @stream: the file was named by the user and may be a FIFO; else (found in
 *	a capture directory) it must be a regular file
 *
 * A problem is a warning on stderr naming @path (unreadable, not a JSON
 * object, a value over 1 MiB, a sysctl other than 0/1/null) and leaves the
 * affected fields unknown.
 *
 * Return: 0 when something was read, -1 when nothing was.
 */
int trace_status_read(struct trace_status *st, const char *path, int stream);

/**
 * trace_status_release() - free what trace_status_read() kept
 * @st: read or only initialised
 */
void trace_status_release(struct trace_status *st);

#endif /* MMLOCK_TRACESTATUS_H */
