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

/* Write DIR/trace.status atomically (.tmp, fsync, rename); -1 with errno. */
int record_write_status(struct record *r);

/* What record_write_status() would write now, as a new JSON object. */
struct json_object *record_status_json(struct record *r);

#endif /* MMLOCK_RECORD_H */
