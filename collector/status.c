// SPDX-License-Identifier: GPL-2.0
/*
 * DIR/trace.status: what was recorded, how, and what was lost.  Rewritten
 * after every completed chunk and at the end, always through a new temporary
 * file and a rename (jsonout.h, outfile.h), so a reader (or a run killed with SIGKILL) never sees half a
 * file.  collector/README.md documents every key.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "jsonout.h"
#include "lost.h"
#include "outfile.h"
#include "record.h"
#include "util.h"

#define STATUS_NAME	"trace.status"


/* the collector's many optional strings: null where unknown */
static struct json_object *jstr(const char *s)
{
	return trace_status_json_string(s);
}

static struct json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *stats_json(const struct cpu_stats *st, int nr)
{
	struct json_object *arr = json_object_new_array();
	int cpu;

	for (cpu = 0; st && cpu < nr; cpu++)
		json_object_array_add(arr, trace_status_cpu_json(cpu, &st[cpu]));
	return arr;
}

/* The loss accounting (tracestatus.h): markers (or kbuffer missed counts) and counters. */
static struct json_object *lost_json(struct record *r, uint64_t *produced_out)
{
	uint64_t markers = 0, discarded = r->cw_live ? r->cw.discarded_events : 0, total;
	int have_stats = r->stats_start && r->stats_end && r->stopped;
	int cpu, nr = have_stats ? r->col.nr_cpus : 0;
	struct lost_cpu *cpus = xcalloc((size_t)nr + 1, sizeof(*cpus));
	struct json_object *o;

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
	o = trace_status_lost_json(cpus, nr, markers, discarded, 0, produced_out, &total);
	free(cpus);
	return o;
}

static struct json_object *chunks_json(struct record *r)
{
	struct json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; r->cw_live && i < r->cw.nr_chunks; i++) {
		const struct chunk_info *ci = &r->cw.chunks[i];
		struct json_object *o = json_object_new_object();

		add(o, "name", jstr(ci->name));
		add(o, "lines", ju64(ci->lines));
		add(o, "events", ju64(ci->events));
		add(o, "lost_markers", ju64(ci->lost_markers));
		add(o, "bytes", ju64(ci->bytes));
		add(o, "stored_bytes", ju64(ci->stored_bytes));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *command_json(struct record *r)
{
	struct json_object *o, *argv;
	int i;

	if (!r->opts->cmd)
		return NULL;
	o = json_object_new_object();
	argv = json_object_new_array();
	for (i = 0; i < r->opts->nr_cmd; i++)
		json_object_array_add(argv, jstr(r->opts->cmd[i]));
	add(o, "argv", argv);
	add(o, "pid", r->child > 0 ? json_object_new_int(r->child) : NULL);
	if (r->child_done && WIFEXITED(r->child_status)) {
		add(o, "exit_code", json_object_new_int(WEXITSTATUS(r->child_status)));
		add(o, "signal", NULL);
	} else if (r->child_done && WIFSIGNALED(r->child_status)) {
		char sig[32];

		snprintf(sig, sizeof(sig), "SIG%s", sigabbrev_np(WTERMSIG(r->child_status)));
		add(o, "exit_code", NULL);
		add(o, "signal", jstr(sig));
	} else {
		add(o, "exit_code", NULL);
		add(o, "signal", NULL);
	}
	return o;
}

static struct json_object *binary_json(struct record *r)
{
	struct json_object *o, *files;
	int cpu;

	if (!r->bin_live)
		return NULL;
	o = json_object_new_object();
	files = json_object_new_array();
	add(o, "page_size", json_object_new_int(r->bin.page_size));
	add(o, "formats", jstr("tracefs"));
	add(o, "kallsyms", jstr("kallsyms"));
	for (cpu = 0; cpu < r->bin.nr_cpus; cpu++) {
		const struct bin_cpu *b = &r->bin.cpus[cpu];
		struct json_object *f = json_object_new_object();

		add(f, "cpu", json_object_new_int(b->cpu));
		add(f, "name", jstr(b->name));
		add(f, "pages", ju64(b->pages));
		add(f, "bytes", ju64(b->bytes));
		add(f, "events", ju64(b->events));
		add(f, "missed", ju64(b->missed));
		add(f, "missed_unknown", json_object_new_int(b->missed_unknown));
		json_object_array_add(files, f);
	}
	add(o, "files", files);
	return o;
}

/* The patched kernel's policy knobs (events.md), null where the kernel lacks them. */
static struct json_object *sysctls_json(void)
{
	static const char *const knobs[] = { "filemap_fault_no_retry", "fault_retry_vma_lock" };
	struct json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		struct json_object *v = NULL;
		char path[96];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/sys/vm/%s", knobs[i]);
		f = fopen(path, "re");
		if (f) {
			char buf[32];

			if (fgets(buf, sizeof(buf), f))
				v = json_object_new_int(atoi(buf));
			fclose(f);
		}
		add(o, knobs[i], v);
	}
	return o;
}

/* One line saying what was filtered, for a person or a summary; NULL: nothing. */
static char *filter_summary(struct record *r)
{
	char *s = NULL, *n;
	size_t i;

	if (r->nr_pids) {
		s = xasprintf("set_event_pid");
		for (i = 0; i < r->nr_pids; i++) {
			n = xasprintf("%s %d", s, r->pids[i]);
			free(s);
			s = n;
		}
		if (r->event_fork) {
			n = xasprintf("%s (+event-fork)", s);
			free(s);
			s = n;
		}
	}
	for (i = 0; i < r->col.nr_events; i++) {
		const struct rec_event *e = &r->col.events[i];

		if (!e->filter)
			continue;
		n = xasprintf("%s%s%s:%s: %s", s ? s : "", s ? "; " : "", e->system, e->name,
			      e->filter);
		free(s);
		s = n;
	}
	return s;
}

static struct json_object *build(struct record *r)
{
	struct json_object *o = json_object_new_object(), *a, *lim, *tot, *lost;
	struct record_opts *op = r->opts;
	uint64_t produced = 0, events = 0, stored = 0;
	size_t i;
	int k, nstack = 0;

	add(o, "format", jstr("mmlock-trace-status"));
	add(o, "version", json_object_new_int(1));
	add(o, "state", jstr(r->state));
	add(o, "stop_reason", jstr(r->stop_reason));
	add(o, "error", jstr(r->error));
	add(o, "mmlock_version", jstr(MMLOCK_VERSION));
	a = json_object_new_array();
	for (k = 0; k < r->argc; k++)
		json_object_array_add(a, jstr(r->argv[k]));
	add(o, "command_line", a);
	add(o, "kernel_release", jstr(r->kernel_release));
	add(o, "mode", jstr(r->mode));
	add(o, "tracefs", jstr(r->col.tracing_dir));
	add(o, "instance", r->col.tracing_dir ? jstr(r->col.name) : NULL);
	add(o, "event_set", jstr(r->event_set));
	add(o, "event_source", jstr(r->event_source));
	add(o, "module_caps", jstr(r->module_caps));
	add(o, "module_version", jstr(r->module_version));
	a = json_object_new_array();
	for (i = 0; i < r->col.nr_events; i++) {
		const struct rec_event *e = &r->col.events[i];
		struct json_object *ev = json_object_new_object();
		char *full = xasprintf("%s:%s", e->system, e->name);

		add(ev, "name", jstr(full));
		add(ev, "filter", jstr(e->filter));
		add(ev, "trigger", jstr(e->trigger));
		json_object_array_add(a, ev);
		free(full);
		nstack += e->trigger != NULL;
	}
	if (r->events_unknown) {
		json_object_put(a);
		a = NULL;
	}
	add(o, "events", a);
	a = json_object_new_array();
	for (i = 0; i < r->nr_events_missing; i++)
		json_object_array_add(a, jstr(r->events_missing[i]));
	add(o, "events_missing", a);
	{
		char *f = filter_summary(r);

		add(o, "filter", jstr(f));
		free(f);
	}
	add(o, "stack_position", nstack ? jstr("after") : NULL);
	add(o, "sysctls", strcmp(r->mode, "text") && strcmp(r->mode, "binary") ?
	    NULL : sysctls_json());
	if (nstack) {
		struct json_object *st = json_object_new_object();

		a = json_object_new_array();
		for (i = 0; i < r->col.nr_events; i++) {
			const struct rec_event *e = &r->col.events[i];
			char *full;

			if (!e->trigger)
				continue;
			full = xasprintf("%s:%s", e->system, e->name);
			json_object_array_add(a, jstr(full));
			free(full);
		}
		add(st, "events", a);
		add(st, "trigger_form", jstr("conditional"));
		add(st, "block_position", jstr("after"));
		add(o, "stack", st);
	} else {
		add(o, "stack", NULL);
	}
	add(o, "clock", jstr(r->clock));
	add(o, "buffer_size_kb", r->buffer_kb ? ju64(r->buffer_kb) : NULL);
	add(o, "record_tgid", json_object_new_boolean(r->record_tgid));
	add(o, "event_fork", json_object_new_boolean(r->event_fork));
	add(o, "tgid", r->tgid ? json_object_new_int(r->tgid) : NULL);
	a = json_object_new_array();
	for (i = 0; i < r->nr_pids; i++)
		json_object_array_add(a, json_object_new_int(r->pids[i]));
	add(o, "set_event_pid", a);
	add(o, "command", command_json(r));
	add(o, "start_time", trace_status_json_time(&r->start_rt));
	add(o, "start_clock_ns", r->started ? ju64(r->start_mono_ns) : NULL);
	add(o, "stop_time", r->stopped ? trace_status_json_time(&r->stop_rt) : NULL);
	add(o, "stop_clock_ns", r->stopped ? ju64(r->stop_mono_ns) : NULL);
	add(o, "compression", jstr(chunk_compress_name(op->compress)));
	lim = json_object_new_object();
	add(lim, "lines", op->limits.lines ? ju64(op->limits.lines) : NULL);
	add(lim, "bytes", op->limits.bytes ? ju64(op->limits.bytes) : NULL);
	add(lim, "seconds", op->limits.usecs ?
	    json_object_new_double((double)op->limits.usecs / 1e6) : NULL);
	add(o, "chunk_limits", lim);
	add(o, "chunks", chunks_json(r));
	add(o, "binary", binary_json(r));
	add(o, "nr_cpus", r->col.nr_cpus ? json_object_new_int(r->col.nr_cpus) : NULL);
	a = json_object_new_object();
	add(a, "start", r->stats_start ? stats_json(r->stats_start, r->col.nr_cpus) : NULL);
	add(a, "end", r->stopped && r->stats_end ?
	    stats_json(r->stats_end, r->col.nr_cpus) : NULL);
	add(o, "stats", a);
	lost = lost_json(r, &produced);

	tot = json_object_new_object();
	if (r->cw_live) {
		for (i = 0; i < r->cw.nr_chunks; i++)
			stored += r->cw.chunks[i].stored_bytes;
		add(tot, "chunks", ju64(r->cw.nr_chunks));
		add(tot, "lines", ju64(r->cw.lines));
		add(tot, "events", ju64(r->cw.events));
		add(tot, "bytes", ju64(r->cw.bytes));
		add(tot, "stored_bytes", ju64(stored));
		add(tot, "unterminated_last_line", json_object_new_boolean(r->cw.unterminated));
		add(tot, "overlong_lines", ju64(r->cw.overlong_lines));
		events = r->cw.events;
	}
	if (r->bin_live) {
		for (k = 0; k < r->bin.nr_cpus; k++) {
			events += r->bin.cpus[k].events;
			stored += r->bin.cpus[k].bytes;
		}
		add(tot, "events", ju64(events));
		add(tot, "stored_bytes", ju64(stored));
	}
	add(o, "totals", tot);
	add(o, "produced_events", r->stopped && r->stats_end ? ju64(produced) : NULL);
	add(o, "lost_events", lost);
	return o;
}

/*
 * --from-binary: what the capture was (events, filters, clock, command,
 * times) and what the kernel counted (stats, produced, lost) come from the
 * binary capture's trace.status; the chunks and totals are the decoder's.
 */
static void overlay_source(struct record *r, struct json_object *o)
{
	static const char *const keys[] = {
		"kernel_release", "tracefs", "instance", "event_set", "event_source",
		"module_caps", "module_version", "events", "events_missing",
		"filter",
		"stack_position", "sysctls", "stack", "clock", "buffer_size_kb", "record_tgid",
		"event_fork", "tgid", "set_event_pid", "command", "start_time", "start_clock_ns",
		"stop_time", "stop_clock_ns", "nr_cpus", "stats", "produced_events", "lost_events",
	};
	struct json_object *src = json_object_new_object(), *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (json_object_object_get_ex(r->source, keys[i], &v))
			add(o, keys[i], json_object_get(v));
	}
	add(src, "dir", jstr(r->source_dir));
	add(src, "damaged_pages", ju64(r->bad_pages));
	add(src, "mode", json_object_object_get_ex(r->source, "mode", &v) ?
	    json_object_get(v) : NULL);
	add(src, "state", json_object_object_get_ex(r->source, "state", &v) ?
	    json_object_get(v) : NULL);
	add(src, "binary", json_object_object_get_ex(r->source, "binary", &v) ?
	    json_object_get(v) : NULL);
	add(o, "source", src);
}

int record_write_status(struct record *r)
{
	struct json_object *o;
	int ret, err;

	if (r->outdir_fd < 0) {
		errno = EBADF;
		return -1;
	}
	o = build(r);
	if (r->source)
		overlay_source(r, o);
	/* trace.status.XXXXXX.tmp, fsync, rename: never over anything but a file */
	ret = json_write_at(r->outdir_fd, STATUS_NAME, o, 1, OUTFILE_REGULAR_ONLY);
	err = errno;
	json_object_put(o);
	errno = err;
	return ret;
}
