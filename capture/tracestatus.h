/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DIR/trace.status, a capture's description (collector/README.md documents
 * every key), read and written through one struct, struct trace_status:
 * collector/status.c (record, convert) and device/rawcap.c (a device's
 * host-side capture) fill it and write it here; `mmlock analyze`, export,
 * convert (a source capture) read it here.  Reading is bounded in memory
 * (jsonskim.h) and checks every value: a capture can come off any machine.
 */
#ifndef MMLOCK_TRACESTATUS_H
#define MMLOCK_TRACESTATUS_H

#include <stdint.h>
#include <time.h>

struct json_object;

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

/* A count JSON may give as null: @known 0 writes and reads null. */
struct ts_count {
	uint64_t	n;
	int		known;
};

/* One entry of "events": a recorded event, its filter and trigger (NULL: none). */
struct ts_event {
	const char	*name, *filter, *trigger;
};

/* One entry of "chunks" (a text capture). */
struct ts_chunk {
	const char	*name;
	uint64_t	lines, events, lost_markers, bytes, stored_bytes;
};

/*
 * One entry of binary.files (a binary capture's raw/cpuNNN.raw); a device's
 * host capture adds @damaged_pages and @partial_page_bytes (@device set).
 */
struct ts_file {
	int		cpu;
	const char	*name;
	uint64_t	pages, bytes, events, missed;
	int		missed_unknown;
	int		device;
	uint64_t	damaged_pages, partial_page_bytes;
};

/* "binary": present (@present) in a binary capture. */
struct ts_binary {
	int		present;
	int		page_size;
	const char	*formats, *kallsyms;
	struct ts_file	*files;
	int		nr_files;
};

/* One entry of stats.start or stats.end. */
struct ts_cpu {
	int			cpu;
	struct cpu_stats	st;
};

/* One entry of lost_events.per_cpu; @has_discarded: a device's capture. */
struct ts_lost_cpu {
	int		cpu;
	uint64_t	lost_markers, overrun, commit_overrun, dropped, unread, discarded, total;
	int		has_discarded;
};

/*
 * "lost_events" (trace_status_lost() computes it): @present 0 writes null;
 * overrun, commit_overrun, dropped and unread are null unless @have_stats.
 */
struct ts_lost {
	int			present;
	uint64_t		total, lost_markers, discarded;
	int			have_stats;
	uint64_t		overrun, commit_overrun, dropped, unread;
	struct ts_lost_cpu	*per_cpu;
	int			nr_per_cpu;
};

/*
 * "source": of a converted capture (@dir, @mode, @state, @damaged_pages,
 * @binary: where it came from and what it was), or of a device's host-side
 * capture (@device_form: @mode "device-host-stream", @transport, @device,
 * @reader, @streams_complete).
 */
struct ts_source {
	int		present;
	const char	*dir, *mode, *state;
	uint64_t	damaged_pages;
	struct ts_binary binary;
	int		device_form;
	const char	*transport, *device, *reader;
	int		streams_complete;
};

/**
 * struct trace_status - a capture's trace.status, every key, read and
 *	written through this one struct (collector/README.md documents the keys)
 * @root: what trace_status_read() parsed (owns the strings read)
 * @owned: strings a writer made (trace_status_keep()), freed with @st
 * @nr_owned: how many
 * @state: "recording", "complete", "stopped", "error"; or NULL
 * @stop_reason: why it stopped, or NULL
 * @error: the first error, or NULL
 * @mmlock_version: the writer's version
 * @command_line: argv of the command that wrote it
 * @nr_command_line: its length
 * @kernel_release: uname -r of the recording machine
 * @mode: "text", "binary", "stdin", "decoded", or NULL
 * @tracefs: the tracefs mount, or NULL
 * @instance: the tracing instance, or NULL
 * @event_set: "custom", "stock", "mixed", "user", or NULL
 * @event_source: "kernel", "module", "stock", "mixed", or NULL (not said)
 * @module_caps: the module's caps line (event_source "module"), or NULL
 * @module_version: the module's version, or NULL
 * @ev: the recorded events with their filters and triggers
 * @events: their names ("system:name"), NULL when unknown (no key, null, or
 *	an older --stdin capture's [])
 * @nr_events: how many (of both)
 * @events_missing: default-set events the kernel lacks
 * @nr_events_missing: how many
 * @filter: the one-line filter summary, or NULL
 * @stack_position: "after", "before", or NULL
 * @has_sysctls: "sysctls" is an object (else null)
 * @no_retry: the value of mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY]: 0, 1, or
 *	-1 (unknown/invalid); trace_status_sysctl() finds it by id
 * @retry_vma_lock: of mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK]
 * @has_stack: "stack" is an object (else null)
 * @stack_events: stack.events
 * @nr_stack_events: how many
 * @stack_trigger_form: stack.trigger_form
 * @stack_block_position: stack.block_position
 * @stack_before: stack blocks precede their events: 1, 0, or -1 (not said)
 * @clock: trace_clock, or NULL
 * @buffer_kb: buffer_size_kb
 * @record_tgid: option record-tgid was on
 * @event_fork: option event-fork was on
 * @tgid: the process recorded, 0 when none (null)
 * @pids: set_event_pid
 * @nr_pids: how many
 * @has_command: "command" is an object (else null)
 * @cmd_argv: command.argv
 * @cmd_argc: its length
 * @cmd_pid: command.pid, 0 when null
 * @cmd_exit_code: command.exit_code, -1 when null
 * @cmd_signal: command.signal ("SIGSEGV"), or NULL
 * @start_time: "2026-12-01T17:26:45.123456789Z", or NULL
 * @stop_time: the same at the stop, or NULL
 * @start_clock_ns: CLOCK_MONOTONIC at the start
 * @stop_clock_ns: at the stop
 * @compression: "gzip", "zstd", "none"
 * @limit_lines: chunk_limits.lines, 0 when null
 * @limit_bytes: chunk_limits.bytes, 0 when null
 * @limit_seconds: chunk_limits.seconds, 0 when null
 * @chunks: the text chunks
 * @nr_chunks: how many
 * @binary: the raw pages of a binary capture
 * @nr_cpus: CPUs of the instance, 0 when null
 * @stats_start: stats.start
 * @nr_stats_start: its length (-1: null)
 * @stats_end: stats.end
 * @nr_stats_end: its length (-1: null)
 * @text_totals: totals has the text keys below
 * @tot_chunks: totals.chunks
 * @tot_lines: totals.lines
 * @tot_events: totals.events
 * @tot_bytes: totals.bytes
 * @tot_stored_bytes: totals.stored_bytes
 * @tot_unterminated: totals.unterminated_last_line
 * @tot_overlong: totals.overlong_lines
 * @binary_totals: totals has events and stored_bytes only
 * @produced: produced_events
 * @lost_events: lost_events
 * @lost: lost_events.total (or a bare number), -1 when absent or invalid
 * @source: a converted capture's source
 */
struct trace_status {
	struct json_object	*root;
	char			**owned;
	size_t			nr_owned;

	const char		*state, *stop_reason, *error, *mmlock_version;
	const char		**command_line;
	int			nr_command_line;
	const char		*kernel_release, *mode, *tracefs, *instance;
	const char		*event_set, *event_source, *module_caps, *module_version;
	struct ts_event		*ev;
	const char		**events;
	int			nr_events;
	const char		**events_missing;
	int			nr_events_missing;
	const char		*filter, *stack_position;
	int			has_sysctls, no_retry, retry_vma_lock;
	int			has_stack;
	const char		**stack_events;
	int			nr_stack_events;
	const char		*stack_trigger_form, *stack_block_position;
	int			stack_before;
	const char		*clock;
	struct ts_count		buffer_kb;
	int			record_tgid, event_fork;
	int			tgid;
	int			*pids;
	int			nr_pids;
	int			has_command;
	const char		**cmd_argv;
	int			cmd_argc;
	int			cmd_pid, cmd_exit_code;
	const char		*cmd_signal;
	const char		*start_time, *stop_time;
	struct ts_count		start_clock_ns, stop_clock_ns;
	const char		*compression;
	uint64_t		limit_lines, limit_bytes;
	double			limit_seconds;
	struct ts_chunk		*chunks;
	int			nr_chunks;
	struct ts_binary	binary;
	int			nr_cpus;
	struct ts_cpu		*stats_start, *stats_end;
	int			nr_stats_start, nr_stats_end;
	int			text_totals;
	uint64_t		tot_chunks, tot_lines, tot_events, tot_bytes, tot_stored_bytes;
	int			tot_unterminated;
	uint64_t		tot_overlong;
	int			binary_totals;
	struct ts_count		produced;
	struct ts_lost		lost_events;
	int64_t			lost;
	struct ts_source	source;
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
 * Every key is read, in bounded memory (jsonskim.h: each value at most
 * 1 MiB), and every value is checked: a key of the wrong type reads as
 * absent.  A problem is a warning on stderr naming @path (unreadable, not a
 * JSON object, a value over 1 MiB, a sysctl other than 0/1/null) and leaves
 * the affected fields unknown.  Files of older versions read the same way:
 * what they lack stays unknown.
 *
 * Return: 0 when something was read, -1 when nothing was.
 */
int trace_status_read(struct trace_status *st, const char *path, int stream);

/**
 * trace_status_release() - free what @st holds (read or written)
 * @st: read or only initialised
 */
void trace_status_release(struct trace_status *st);

/**
 * trace_status_sysctl() - where @st keeps the value of a fault-policy knob
 * @st: the status
 * @id: an enum mmlock_sysctl_id (tracepoints/mmlock_events.h)
 *
 * Return: the field (@no_retry or @retry_vma_lock): 0, 1, or -1 (unknown).
 */
int *trace_status_sysctl(struct trace_status *st, int id);

/**
 * trace_status_keep() - hand a string to @st, freed with it
 * @st: the status being filled
 * @s: a malloc'ed string, or NULL
 *
 * Return: @s.
 */
const char *trace_status_keep(struct trace_status *st, char *s);

/**
 * trace_status_to_json() - @st as the trace.status document
 * @st: the status
 *
 * Return: a new object (json_object_put() it).
 */
struct json_object *trace_status_to_json(const struct trace_status *st);

/**
 * trace_status_write_at() - write @st to @dirfd/trace.status atomically
 *	(a temporary file, fsync, rename: a reader never sees half a file)
 * @st: the status
 * @dirfd: the capture directory
 * @flags: OUTFILE_* flags (outfile.h)
 *
 * Return: 0, or -1 with errno set and the old file untouched.
 */
int trace_status_write_at(const struct trace_status *st, int dirfd, int flags);

/* ------------------------------------------------------------ writing */

/*
 * What every writer of trace.status (collector/status.c for `mmlock record`
 * and `convert`, device/rawcap.c for a device's host-side capture) fills
 * struct trace_status with, so the keys and the loss arithmetic cannot
 * drift apart.
 */

/**
 * trace_status_time() - "2026-12-01T17:26:45.123456789Z", or NULL when unset
 * @ts: CLOCK_REALTIME; tv_sec 0 is unset
 *
 * Return: a malloc'ed string, or NULL.
 */
char *trace_status_time(const struct timespec *ts);

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
 * trace_status_lost() - fill @st->lost_events and @st->produced
 * @st: the status
 * @cpus: the CPUs (struct lost_cpu); those not @valid count only in @markers
 * @nr: how many
 * @markers: every LOST marker's count (or missed count) of the capture
 * @discarded: events read but not stored, all CPUs
 * @per_cpu_discarded: per_cpu entries carry "discarded" and count it in
 *	their total (a capture whose pages crossed a transport)
 *
 * A CPU's loss is max(markers, overrun) + commit_overrun + dropped +
 * unread (+ discarded): markers and overrun count the same overwritten
 * events, seen from the reader and from the writer.  overrun,
 * commit_overrun, dropped and unread are null unless every CPU is valid.
 * Counts saturate at 2^64-1, never wrap.  @st->produced is the events the
 * kernel produced on the valid CPUs (read, left unread, overwritten, lost
 * in commits, dropped).
 */
void trace_status_lost(struct trace_status *st, const struct lost_cpu *cpus, int nr,
		       uint64_t markers, uint64_t discarded, int per_cpu_discarded);

#endif /* MMLOCK_TRACESTATUS_H */
