// SPDX-License-Identifier: GPL-2.0
/*
 * DIR/trace.status: what was recorded, how, and what was lost.  A run's
 * struct record is put into the capture layer's struct trace_status, which
 * writes it (capture/tracestatus.h: the one struct trace.status is read and
 * written through).  Rewritten after every completed chunk and at the end,
 * always through a new temporary file and a rename, so a reader (or a run
 * killed with SIGKILL) never sees half a file.  collector/README.md
 * documents every key.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "lost.h"
#include "mmlock_events.h"
#include "outfile.h"
#include "record.h"
#include "util.h"

/* A copy of @n elements of @size bytes (and one zeroed more), never NULL. */
static void *memdup_array(const void *v, size_t n, size_t size)
{
	void *p = xcalloc(n + 1, size);

	if (n)
		memcpy(p, v, n * size);
	return p;
}

/* The loss accounting (tracestatus.h): markers (or kbuffer missed counts) and counters. */
static void fill_lost(struct record *r, struct trace_status *st)
{
	uint64_t markers = 0, discarded = r->cw_live ? r->cw.discarded_events : 0;
	int have_stats = r->stats_start && r->stats_end && r->stopped;
	int cpu, nr = have_stats ? r->col.nr_cpus : 0;
	struct lost_cpu *cpus = xcalloc((size_t)nr + 1, sizeof(*cpus));

	if (r->cw_live)
		markers = r->cw.lost_markers;
	if (r->bin_live) {
		for (cpu = 0; cpu < r->bin.nr_cpus; cpu++) {
			markers = u64_add_sat(markers, r->bin.cpus[cpu].missed);
			discarded = u64_add_sat(discarded, r->bin.cpus[cpu].discarded);
		}
	}
	for (cpu = 0; cpu < nr; cpu++) {
		struct lost_cpu *l = &cpus[cpu];

		l->cpu = cpu;
		l->valid = 1;
		l->start = r->stats_start[cpu];
		l->end = r->stats_end[cpu];
		if (r->cw_live && cpu < r->cw.nr_lost_cpu)
			l->markers = r->cw.lost_cpu[cpu];
		if (r->bin_live && cpu < r->bin.nr_cpus)
			l->markers = r->bin.cpus[cpu].missed;
	}
	trace_status_lost(st, cpus, nr, markers, discarded, 0);
	st->produced.known = r->stopped && r->stats_end;
	free(cpus);
}

static void fill_chunks(struct record *r, struct trace_status *st)
{
	size_t i;

	if (!r->cw_live)
		return;
	st->chunks = xcalloc(r->cw.nr_chunks + 1, sizeof(*st->chunks));
	for (i = 0; i < r->cw.nr_chunks; i++) {
		const struct chunk_info *ci = &r->cw.chunks[i];
		struct ts_chunk *c = &st->chunks[st->nr_chunks++];

		c->name = ci->name;
		c->lines = ci->lines;
		c->events = ci->events;
		c->lost_markers = ci->lost_markers;
		c->bytes = ci->bytes;
		c->stored_bytes = ci->stored_bytes;
	}
	st->text_totals = 1;
	st->tot_chunks = r->cw.nr_chunks;
	st->tot_lines = r->cw.lines;
	st->tot_events = r->cw.events;
	st->tot_bytes = r->cw.bytes;
	for (i = 0; i < r->cw.nr_chunks; i++)
		st->tot_stored_bytes += r->cw.chunks[i].stored_bytes;
	st->tot_unterminated = r->cw.unterminated;
	st->tot_overlong = r->cw.overlong_lines;
}

static void fill_command(struct record *r, struct trace_status *st)
{
	if (!r->opts->cmd)
		return;
	st->has_command = 1;
	st->cmd_argv = memdup_array(r->opts->cmd, (size_t)r->opts->nr_cmd, sizeof(*st->cmd_argv));
	st->cmd_argc = r->opts->nr_cmd;
	st->cmd_pid = r->child > 0 ? r->child : 0;
	if (r->child_done && WIFEXITED(r->child_status))
		st->cmd_exit_code = WEXITSTATUS(r->child_status);
	else if (r->child_done && WIFSIGNALED(r->child_status))
		st->cmd_signal = trace_status_keep(st, xasprintf("SIG%s",
						   sigabbrev_np(WTERMSIG(r->child_status))));
}

static void fill_binary(struct record *r, struct trace_status *st)
{
	struct ts_binary *b = &st->binary;
	int cpu;

	if (!r->bin_live)
		return;
	b->present = 1;
	b->page_size = r->bin.page_size;
	b->formats = "tracefs";
	b->kallsyms = "kallsyms";
	b->files = xcalloc((size_t)r->bin.nr_cpus + 1, sizeof(*b->files));
	for (cpu = 0; cpu < r->bin.nr_cpus; cpu++) {
		const struct bin_cpu *c = &r->bin.cpus[cpu];
		struct ts_file *f = &b->files[b->nr_files++];

		f->cpu = c->cpu;
		f->name = c->name;
		f->pages = c->pages;
		f->bytes = c->bytes;
		f->events = c->events;
		f->missed = c->missed;
		f->missed_unknown = c->missed_unknown;
		st->tot_events += c->events;
		st->tot_stored_bytes += c->bytes;
	}
	st->binary_totals = 1;
}

/* The patched kernel's policy knobs (the contract's table), -1 where the kernel lacks them. */
static void fill_sysctls(struct trace_status *st)
{
	int i;

	st->has_sysctls = 1;
	for (i = 0; i < MMLOCK_SYSCTL_NR; i++)
		*trace_status_sysctl(st, i) = mmlock_sysctl_read(&mmlock_sysctls[i]);
}

static void fill_events(struct record *r, struct trace_status *st)
{
	size_t i;

	st->ev = xcalloc(r->col.nr_events + 1, sizeof(*st->ev));
	st->stack_events = xcalloc(r->col.nr_events + 1, sizeof(*st->stack_events));
	for (i = 0; i < r->col.nr_events; i++) {
		const struct rec_event *e = &r->col.events[i];
		const char *full = trace_status_keep(st, xasprintf("%s:%s", e->system, e->name));

		st->ev[st->nr_events].name = full;
		st->ev[st->nr_events].filter = e->filter;
		st->ev[st->nr_events++].trigger = e->trigger;
		if (e->trigger)
			st->stack_events[st->nr_stack_events++] = full;
	}
	st->filter = trace_status_keep(st, trace_filter_line(r->pids, r->nr_pids, r->event_fork,
							     st->ev, (size_t)st->nr_events));
	if (r->events_unknown) {
		free(st->ev);
		st->ev = NULL;
		st->nr_events = 0;
	}
	st->events_missing = memdup_array(r->events_missing, r->nr_events_missing,
					  sizeof(*st->events_missing));
	st->nr_events_missing = (int)r->nr_events_missing;
	if (st->nr_stack_events) {
		st->stack_position = "after";
		st->has_stack = 1;
		st->stack_trigger_form = "conditional";
		st->stack_block_position = "after";
	}
}

static struct ts_cpu *cpus_of(const struct cpu_stats *v, int nr)
{
	struct ts_cpu *c = xcalloc((size_t)nr + 1, sizeof(*c));
	int i;

	for (i = 0; i < nr; i++) {
		c[i].cpu = i;
		c[i].st = v[i];
	}
	return c;
}

/* @st: what @r says, borrowing @r's strings: release @st before @r changes. */
static void fill(struct record *r, struct trace_status *st)
{
	struct record_opts *op = r->opts;
	int live = !strcmp(r->mode, "text") || !strcmp(r->mode, "binary");

	trace_status_init(st);
	st->state = r->state;
	st->stop_reason = r->stop_reason;
	st->error = r->error;
	st->mmlock_version = MMLOCK_VERSION;
	st->command_line = xcalloc((size_t)r->argc + 1, sizeof(*st->command_line));
	memcpy(st->command_line, r->argv, (size_t)r->argc * sizeof(*r->argv));
	st->nr_command_line = r->argc;
	st->kernel_release = r->kernel_release;
	st->mode = r->mode;
	st->tracefs = r->col.tracing_dir;
	st->instance = r->col.tracing_dir ? r->col.name : NULL;
	st->event_set = r->event_set;
	st->event_source = r->event_source;
	st->module_caps = r->module_caps;
	st->module_version = r->module_version;
	fill_events(r, st);
	if (live)
		fill_sysctls(st);
	st->clock = r->clock;
	st->buffer_kb = (struct ts_count){ r->buffer_kb, r->buffer_kb != 0 };
	st->record_tgid = r->record_tgid;
	st->event_fork = r->event_fork;
	st->tgid = r->tgid;
	st->pids = xcalloc(r->nr_pids + 1, sizeof(*st->pids));
	if (r->nr_pids)
		memcpy(st->pids, r->pids, r->nr_pids * sizeof(*r->pids));
	st->nr_pids = (int)r->nr_pids;
	fill_command(r, st);
	st->start_time = trace_status_keep(st, trace_status_time(&r->start_rt));
	st->start_clock_ns = (struct ts_count){ r->start_mono_ns, r->started };
	if (r->stopped)
		st->stop_time = trace_status_keep(st, trace_status_time(&r->stop_rt));
	st->stop_clock_ns = (struct ts_count){ r->stop_mono_ns, r->stopped };
	st->compression = chunk_compress_name(op->compress);
	st->limit_lines = op->limits.lines;
	st->limit_bytes = op->limits.bytes;
	st->limit_seconds = (double)op->limits.usecs / 1e6;
	fill_chunks(r, st);
	fill_binary(r, st);
	st->nr_cpus = r->col.nr_cpus;
	if (r->stats_start) {
		st->stats_start = cpus_of(r->stats_start, r->col.nr_cpus);
		st->nr_stats_start = r->col.nr_cpus;
	}
	if (r->stopped && r->stats_end) {
		st->stats_end = cpus_of(r->stats_end, r->col.nr_cpus);
		st->nr_stats_end = r->col.nr_cpus;
	}
	fill_lost(r, st);
}

/*
 * --from-binary: what the capture was (events, filters, clock, command,
 * times) and what the kernel counted (stats, produced, lost) come from the
 * binary capture's trace.status; the chunks and totals are the decoder's.
 * Arrays are copied: the source is written again with every status.
 */
#define COPY(f, n)	do { free(st->f); st->f = memdup_array(src->f, (size_t)(src->n > 0 ? src->n : 0), \
						    sizeof(*st->f)); st->n = src->n; } while (0)

static void overlay_source(struct record *r, struct trace_status *st)
{
	const struct trace_status *src = r->source;

	st->kernel_release = src->kernel_release;
	st->tracefs = src->tracefs;
	st->instance = src->instance;
	st->event_set = src->event_set;
	st->event_source = src->event_source;
	st->module_caps = src->module_caps;
	st->module_version = src->module_version;
	COPY(events, nr_events);
	COPY(ev, nr_events);
	if (!src->ev) {
		free(st->ev);
		st->ev = NULL;
	}
	COPY(events_missing, nr_events_missing);
	st->filter = src->filter;
	st->stack_position = src->stack_position;
	st->has_sysctls = src->has_sysctls;
	st->no_retry = src->no_retry;
	st->retry_vma_lock = src->retry_vma_lock;
	st->has_stack = src->has_stack;
	COPY(stack_events, nr_stack_events);
	st->stack_trigger_form = src->stack_trigger_form;
	st->stack_block_position = src->stack_block_position;
	st->clock = src->clock;
	st->buffer_kb = src->buffer_kb;
	st->record_tgid = src->record_tgid;
	st->event_fork = src->event_fork;
	st->tgid = src->tgid;
	COPY(pids, nr_pids);
	st->has_command = src->has_command;
	COPY(cmd_argv, cmd_argc);
	st->cmd_pid = src->cmd_pid;
	st->cmd_exit_code = src->cmd_exit_code;
	st->cmd_signal = src->cmd_signal;
	st->start_time = src->start_time;
	st->start_clock_ns = src->start_clock_ns;
	st->stop_time = src->stop_time;
	st->stop_clock_ns = src->stop_clock_ns;
	st->nr_cpus = src->nr_cpus;
	COPY(stats_start, nr_stats_start);
	if (!src->stats_start) {
		free(st->stats_start);
		st->stats_start = NULL;
	}
	COPY(stats_end, nr_stats_end);
	if (!src->stats_end) {
		free(st->stats_end);
		st->stats_end = NULL;
	}
	st->produced = src->produced;
	free(st->lost_events.per_cpu);
	st->lost_events = src->lost_events;
	st->lost_events.per_cpu = memdup_array(src->lost_events.per_cpu,
					       (size_t)src->lost_events.nr_per_cpu,
					       sizeof(*src->lost_events.per_cpu));
	st->lost = src->lost;
	st->source.present = 1;
	st->source.dir = r->source_dir;
	st->source.damaged_pages = r->bad_pages;
	st->source.mode = src->mode;
	st->source.state = src->state;
	st->source.binary = src->binary;
	st->source.binary.files = memdup_array(src->binary.files, (size_t)src->binary.nr_files,
					       sizeof(*src->binary.files));
}

/* @st: what trace.status says of @r now (a --from-binary run: its source's too) */
static void status_of(struct record *r, struct trace_status *st)
{
	fill(r, st);
	if (r->source)
		overlay_source(r, st);
}

struct json_object *record_status_json(struct record *r)
{
	struct trace_status st;
	struct json_object *o;

	status_of(r, &st);
	o = trace_status_to_json(&st);
	trace_status_release(&st);
	return o;
}

int record_write_status(struct record *r)
{
	struct trace_status st;
	int ret, err;

	if (r->outdir_fd < 0) {
		errno = EBADF;
		return -1;
	}
	status_of(r, &st);
	ret = trace_status_write_at(&st, r->outdir_fd, OUTFILE_REGULAR_ONLY);
	err = errno;
	trace_status_release(&st);
	errno = err;
	return ret;
}
