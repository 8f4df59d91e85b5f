/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DIR/trace.status, a capture's description (collector/README.md documents
 * every key): read here; written by collector/status.c and device/rawcap.c
 * through the shared parts below.
 * Only what a reader of a capture needs is read, in bounded memory
 * (jsonskim.h), and every value is checked: a capture can come off any
 * machine.  `mmlock analyze` reads it here, and so can any other command
 * that takes a capture (the device runner, say).
 */
#ifndef MMLOCK_TRACESTATUS_H
#define MMLOCK_TRACESTATUS_H

#include <stdint.h>
#include <time.h>

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

/* ------------------------------------------------------------ writing */

/*
 * What every writer of trace.status shares (collector/status.c for
 * `mmlock record` and `convert`, device/rawcap.c for a device's host-side
 * capture), so the keys and the loss arithmetic cannot drift apart.
 */

/**
 * struct cpu_stats - one CPU's ring-buffer counters (per_cpu/cpuN/stats)
 * @entries: events in the buffer, not yet read
 * @overrun: events overwritten before they were read
 * @commit_overrun: events lost inside a commit (nested writers)
 * @bytes: bytes in the buffer
 * @dropped: events dropped (buffer full, not overwriting)
 * @read: events read
 * @valid: the counters were read
 */
struct cpu_stats {
	uint64_t	entries;
	uint64_t	overrun;
	uint64_t	commit_overrun;
	uint64_t	bytes;
	uint64_t	dropped;
	uint64_t	read;
	int		valid;
};

/**
 * trace_status_json_string() - a JSON string, or JSON null for NULL
 * @s: the string or NULL
 *
 * Return: a new reference, or NULL (null).
 */
struct json_object *trace_status_json_string(const char *s);

/**
 * trace_status_json_time() - "2026-12-01T17:26:45.123456789Z", or null when unset
 * @ts: CLOCK_REALTIME; tv_sec 0 is unset
 *
 * Return: a new reference, or NULL (null).
 */
struct json_object *trace_status_json_time(const struct timespec *ts);

/**
 * trace_status_cpu_json() - one entry of stats.start or stats.end
 * @cpu: the CPU's number
 * @st: its counters; !@st->valid gives {"cpu": N, "valid": false}
 *
 * Return: a new object.
 */
struct json_object *trace_status_cpu_json(int cpu, const struct cpu_stats *st);

/**
 * struct lost_cpu - one CPU's part in the loss accounting
 * @cpu: its number
 * @markers: events the LOST markers (or the pages' missed counts) report
 * @start: the counters when tracing started
 * @end: when it stopped
 * @discarded: events read on this CPU but not stored
 * @valid: @start and @end were read
 */
struct lost_cpu {
	int			cpu;
	uint64_t		markers;
	struct cpu_stats	start, end;
	uint64_t		discarded;
	int			valid;
};

/**
 * trace_status_lost_json() - trace.status's lost_events object
 * @cpus: the CPUs; those not @valid count only in @markers
 * @nr: how many
 * @markers: every LOST marker's count (or missed count) of the capture
 * @discarded: events read but not stored, all CPUs
 * @per_cpu_discarded: per_cpu entries carry "discarded" and count it in
 *	their total (a capture whose pages crossed a transport)
 * @produced: set to the events the kernel produced on the valid CPUs (read,
 *	left unread, overwritten, lost in commits, dropped)
 * @total: set to lost_events.total
 *
 * A CPU's loss is max(markers, overrun) + commit_overrun + dropped +
 * unread (+ discarded): markers and overrun count the same overwritten
 * events, seen from the reader and from the writer.  overrun,
 * commit_overrun, dropped and unread are null unless every CPU is valid.
 * Counts saturate at 2^64-1, never wrap.
 *
 * Return: a new object.
 */
struct json_object *trace_status_lost_json(const struct lost_cpu *cpus, int nr,
					   uint64_t markers, uint64_t discarded,
					   int per_cpu_discarded, uint64_t *produced,
					   uint64_t *total);

#endif /* MMLOCK_TRACESTATUS_H */
