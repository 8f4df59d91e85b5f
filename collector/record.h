/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one `mmlock record` run, shared by cmd-record.c (which fills
 * it) and status.c (which writes it to DIR/trace.status).
 */
#ifndef MMLOCK_RECORD_H
#define MMLOCK_RECORD_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "collector.h"

struct json_object;

/* SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE: the handlers a run installs */
#define RECORD_NR_SIGNALS	5

struct record {
	struct record_opts	*opts;
	int			argc;
	char			**argv;
	const char		*mode;		/* "text", "binary", "stdin" */
	const char		*state;		/* "recording", "complete", "stopped", "error" */
	char			*stop_reason;
	char			*error;
	char			kernel_release[128];

	int			outdir_fd;
	int			made_outdir;
	struct collector	col;
	const char		*event_set;	/* "custom", "stock", "user", NULL */
	const char		*event_source;	/* "kernel", "module", "stock", "mixed", NULL */
	char			*module_caps;	/* the module's caps line, NULL */
	char			*module_version;
	int			env_failure;	/* a failed setup is the environment's (exit 5) */
	int			events_unknown;	/* --stdin without -e: events null */
	char			**events_missing; /* default-set events the kernel lacks */
	size_t			nr_events_missing;
	char			*clock;
	uint64_t		buffer_kb;	/* per CPU, as read back */
	int			record_tgid;
	int			event_fork;
	int			tgid;		/* --tgid or the COMMAND's pid, 0 */
	int			*pids;		/* set_event_pid as written */
	size_t			nr_pids;

	pid_t			child;		/* COMMAND, 0 when none */
	int			gate_fd;	/* holds the COMMAND before its exec, -1 */
	int			exec_err_fd;	/* the COMMAND's exec errno, -1 */
	int			child_status;
	int			child_done;
	int			child_killed;	/* we sent it SIGTERM when recording stopped */

	struct timespec		start_rt;
	struct timespec		stop_rt;
	uint64_t		start_mono_ns;
	uint64_t		stop_mono_ns;
	int			started;
	uint64_t		status_us;	/* last trace.status rewrite, mono */
	int			stopped;

	struct cpu_stats	*stats_start;
	struct cpu_stats	*stats_end;

	struct chunk_writer	cw;
	int			cw_live;
	struct bin_reader	bin;
	int			bin_live;

	/* the caller's handlers, put back when the run is released */
	struct sigaction	saved_sa[RECORD_NR_SIGNALS];
	int			signals_saved;

	/* --from-binary: the binary capture's own trace.status */
	struct trace_status	*source;
	const char		*source_dir;
	uint64_t		bad_pages;	/* damaged pages the decoder skipped */
};

/* ---- events.c: the instance's events, filters and triggers ---- */

/**
 * record_event_add() - add SYSTEM:NAME to the events a run records, once
 * @c: the run's collector
 * @sys: the system (taken: freed when the event is already there)
 * @name: the event's name (taken likewise)
 *
 * Return: the event's entry.
 */
struct rec_event *record_event_add(struct collector *c, char *sys, char *name);

/**
 * record_events_source() - the source of a set named with -e (or told with
 *	--stdin -e)
 * @c: the run's collector, its events added
 *
 * Return: "kernel", "module" or "stock" when all its events come from one,
 * "mixed" for several, NULL for none.
 */
const char *record_events_source(const struct collector *c);

/**
 * record_events_resolve() - the events of a run: -e LIST against the
 *	kernel's available_events, or the chosen source's default set
 * @r: the run (its collector's tracing_dir set)
 *
 * Return: 0, or -1 with the error recorded (r->env_failure set when the
 * environment, not the user, is at fault).
 */
int record_events_resolve(struct record *r);

/**
 * record_filters_build() - the kernel filters and stack triggers of the
 *	run's events (--filter, --tgid, --stack, the default set's own)
 * @r: the run, its events resolved
 *
 * Return: 0, or -1 when an option names an event not recorded (said).
 */
int record_filters_build(struct record *r);

/**
 * record_threads_add() - the threads of @tgid, for set_event_pid
 * @r: the run
 * @tgid: the process
 */
void record_threads_add(struct record *r, int tgid);

/**
 * record_settings_write() - write the buffer size, clock, options, pid
 *	filter, and each event's filter, trigger and enable into the instance
 * @r: the run, its instance created and its events and filters built
 *
 * Return: 0, or -1 with the kernel's reason recorded.
 */
int record_settings_write(struct record *r);

/* Write DIR/trace.status atomically (.tmp, fsync, rename); -1 with errno. */
int record_write_status(struct record *r);

/* What record_write_status() would write now, as a new JSON object. */
struct json_object *record_status_json(struct record *r);

#endif /* MMLOCK_RECORD_H */
