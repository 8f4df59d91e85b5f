// SPDX-License-Identifier: GPL-2.0
/*
 * trace.status, read, and the parts its writers share: see tracestatus.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "infile.h"
#include "jsonout.h"
#include "jsonskim.h"
#include "lost.h"
#include "mmlock_events.h"
#include "tracestatus.h"
#include "util.h"

void trace_status_init(struct trace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->lost = -1;
	st->no_retry = -1;
	st->retry_vma_lock = -1;
	st->stack_before = -1;
	st->cmd_exit_code = -1;
	st->nr_stats_start = -1;
	st->nr_stats_end = -1;
}

static void binary_release(struct ts_binary *b)
{
	free(b->files);
}

void trace_status_release(struct trace_status *st)
{
	size_t i;

	for (i = 0; i < st->nr_owned; i++)
		free(st->owned[i]);
	free(st->owned);
	free(st->command_line);
	free(st->ev);
	free(st->events);
	free(st->events_missing);
	free(st->stack_events);
	free(st->pids);
	free(st->cmd_argv);
	free(st->chunks);
	binary_release(&st->binary);
	free(st->stats_start);
	free(st->stats_end);
	free(st->lost_events.per_cpu);
	binary_release(&st->source.binary);
	json_object_put(st->root);
	trace_status_init(st);
}

int *trace_status_sysctl(struct trace_status *st, int id)
{
	return id == MMLOCK_SYSCTL_NO_RETRY ? &st->no_retry : &st->retry_vma_lock;
}

const char *trace_status_keep(struct trace_status *st, char *s)
{
	if (!s)
		return NULL;
	st->owned = xrealloc(st->owned, (st->nr_owned + 1) * sizeof(*st->owned));
	st->owned[st->nr_owned++] = s;
	return s;
}

/* ------------------------------------------------------------ reading */

/* The member @key of @o when it has @type, else NULL (absent, null, another type). */
static struct json_object *member(struct json_object *o, const char *key, json_type type)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

/* A count: a non-negative integer; 0 and @known 0 otherwise. */
static uint64_t ju(struct json_object *o, const char *key, int *known)
{
	struct json_object *v = member(o, key, json_type_int);
	int ok = v && json_object_get_int64(v) >= 0;

	if (known)
		*known = ok;
	return ok ? json_object_get_uint64(v) : 0;
}

static struct ts_count jcount(struct json_object *o, const char *key)
{
	struct ts_count c;

	c.n = ju(o, key, &c.known);
	return c;
}

/* A small number (a pid, a CPU, a page size): @dflt unless 0 <= n <= INT_MAX. */
static int jint(struct json_object *o, const char *key, int dflt)
{
	struct json_object *v = member(o, key, json_type_int);

	if (!v || json_object_get_int64(v) < 0 || json_object_get_int64(v) > 0x7fffffff)
		return dflt;
	return (int)json_object_get_int64(v);
}

static int jbool(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key, json_type_boolean);

	return v ? json_object_get_boolean(v) : 0;
}

/* The strings of the array @key (other entries skipped); NULL when it is no array. */
static const char **jstrv(struct json_object *o, const char *key, int *nr)
{
	struct json_object *a = member(o, key, json_type_array);
	const char **v;
	size_t i, n;

	*nr = 0;
	if (!a)
		return NULL;
	n = json_object_array_length(a);
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (json_object_is_type(e, json_type_string))
			v[(*nr)++] = json_object_get_string(e);
	}
	return v;
}

/* The objects of the array @key, each handed to @fill into @size-byte slots. */
static void *jobjv(struct json_object *o, const char *key, size_t size, int *nr,
		   void (*fill)(struct json_object *e, void *slot))
{
	struct json_object *a = member(o, key, json_type_array);
	char *v;
	size_t i, n;

	*nr = 0;
	if (!a)
		return NULL;
	n = json_object_array_length(a);
	v = xcalloc(n + 1, size);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (json_object_is_type(e, json_type_object))
			fill(e, v + size * (size_t)(*nr)++);
	}
	return v;
}

static void fill_event(struct json_object *e, void *slot)
{
	struct ts_event *ev = slot;

	ev->name = jstr(e, "name");
	ev->filter = jstr(e, "filter");
	ev->trigger = jstr(e, "trigger");
}

static void fill_chunk(struct json_object *e, void *slot)
{
	struct ts_chunk *c = slot;

	c->name = jstr(e, "name");
	c->lines = ju(e, "lines", NULL);
	c->events = ju(e, "events", NULL);
	c->lost_markers = ju(e, "lost_markers", NULL);
	c->bytes = ju(e, "bytes", NULL);
	c->stored_bytes = ju(e, "stored_bytes", NULL);
}

static void fill_file(struct json_object *e, void *slot)
{
	struct ts_file *f = slot;
	int a, b;

	f->cpu = jint(e, "cpu", -1);
	f->name = jstr(e, "name");
	f->pages = ju(e, "pages", NULL);
	f->bytes = ju(e, "bytes", NULL);
	f->events = ju(e, "events", NULL);
	f->missed = ju(e, "missed", NULL);
	f->missed_unknown = jint(e, "missed_unknown", 0);
	f->damaged_pages = ju(e, "damaged_pages", &a);
	f->partial_page_bytes = ju(e, "partial_page_bytes", &b);
	f->device = a || b;
}

static void fill_cpu(struct json_object *e, void *slot)
{
	struct ts_cpu *c = slot;
	int known;

	c->cpu = jint(e, "cpu", -1);
	c->st.entries = ju(e, "entries", &known);
	c->st.valid = known;
	c->st.overrun = ju(e, "overrun", NULL);
	c->st.commit_overrun = ju(e, "commit_overrun", NULL);
	c->st.bytes = ju(e, "bytes", NULL);
	c->st.dropped = ju(e, "dropped_events", NULL);
	c->st.read = ju(e, "read_events", NULL);
}

static void fill_lost_cpu(struct json_object *e, void *slot)
{
	struct ts_lost_cpu *c = slot;

	c->cpu = jint(e, "cpu", -1);
	c->lost_markers = ju(e, "lost_markers", NULL);
	c->overrun = ju(e, "overrun", NULL);
	c->commit_overrun = ju(e, "commit_overrun", NULL);
	c->dropped = ju(e, "dropped", NULL);
	c->unread = ju(e, "unread", NULL);
	c->discarded = ju(e, "discarded", &c->has_discarded);
	c->total = ju(e, "total", NULL);
}

static void read_binary(struct json_object *o, struct ts_binary *b)
{
	if (!o)
		return;
	b->present = 1;
	b->page_size = jint(o, "page_size", 0);
	b->formats = jstr(o, "formats");
	b->kallsyms = jstr(o, "kallsyms");
	b->files = jobjv(o, "files", sizeof(*b->files), &b->nr_files, fill_file);
}

static void read_lost(struct json_object *root, struct trace_status *st)
{
	struct json_object *v, *o = member(root, "lost_events", json_type_object);
	struct ts_lost *l = &st->lost_events;
	int a, b, c, d;

	/* a bare number: the first captures' form */
	v = member(root, "lost_events", json_type_int);
	if (v && json_object_get_int64(v) >= 0)
		st->lost = json_object_get_int64(v);
	if (!o)
		return;
	l->present = 1;
	l->total = ju(o, "total", &a);
	if (a)
		st->lost = l->total > INT64_MAX ? INT64_MAX : (int64_t)l->total;
	l->lost_markers = ju(o, "lost_markers", NULL);
	l->discarded = ju(o, "discarded", NULL);
	l->overrun = ju(o, "overrun", &a);
	l->commit_overrun = ju(o, "commit_overrun", &b);
	l->dropped = ju(o, "dropped", &c);
	l->unread = ju(o, "unread", &d);
	l->have_stats = a && b && c && d;
	l->per_cpu = jobjv(o, "per_cpu", sizeof(*l->per_cpu), &l->nr_per_cpu, fill_lost_cpu);
}

/* A policy knob: 0, 1 or null; anything else is refused, never cut to an int. */
static int status_sysctl(const char *path, struct json_object *sys, const char *key, int dflt)
{
	struct json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(sys, key, &v) || !v)
		return dflt;
	n = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
	if (json_object_is_type(v, json_type_int) && (n == 0 || n == 1) &&
	    json_object_get_uint64(v) == (uint64_t)n)
		return (int)n;
	pr_warn("%s: sysctls.%s is %.40s: expected 0, 1 or null; ignored", path, key,
		json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	return dflt;
}

static void read_events(struct trace_status *st)
{
	struct json_object *v = member(st->root, "events", json_type_array);
	const char *mode = jstr(st->root, "mode");
	int i;

	/*
	 * events null: the producer's set is unknown (record --stdin without
	 * -e), like a bare trace.  An older --stdin capture wrote [] for the
	 * same thing; [] never means "nothing recorded" there.
	 */
	if (!v || (!json_object_array_length(v) && mode && !strcmp(mode, "stdin")))
		return;
	st->events = xcalloc(json_object_array_length(v) + 1, sizeof(*st->events));
	st->ev = xcalloc(json_object_array_length(v) + 1, sizeof(*st->ev));
	for (i = 0; i < (int)json_object_array_length(v); i++) {
		struct json_object *e = json_object_array_get_idx(v, (size_t)i);
		struct ts_event ev = { NULL, NULL, NULL };

		/* the first captures listed bare names */
		if (json_object_is_type(e, json_type_string))
			ev.name = json_object_get_string(e);
		else if (json_object_is_type(e, json_type_object))
			fill_event(e, &ev);
		if (!ev.name)
			continue;
		st->ev[st->nr_events] = ev;
		st->events[st->nr_events++] = ev.name;
	}
}

static void read_all(struct trace_status *st, const char *path)
{
	struct json_object *r = st->root, *o;
	int n;

	st->state = jstr(r, "state");
	st->stop_reason = jstr(r, "stop_reason");
	st->error = jstr(r, "error");
	st->mmlock_version = jstr(r, "mmlock_version");
	st->command_line = jstrv(r, "command_line", &st->nr_command_line);
	st->kernel_release = jstr(r, "kernel_release");
	st->mode = jstr(r, "mode");
	st->tracefs = jstr(r, "tracefs");
	st->instance = jstr(r, "instance");
	st->event_set = jstr(r, "event_set");
	st->event_source = jstr(r, "event_source");
	st->module_caps = jstr(r, "module_caps");
	st->module_version = jstr(r, "module_version");
	read_events(st);
	st->events_missing = jstrv(r, "events_missing", &st->nr_events_missing);
	st->filter = jstr(r, "filter");
	st->stack_position = jstr(r, "stack_position");
	if ((o = member(r, "sysctls", json_type_object))) {
		st->has_sysctls = 1;
		for (n = 0; n < MMLOCK_SYSCTL_NR; n++)
			*trace_status_sysctl(st, n) = status_sysctl(path, o, mmlock_sysctls[n].name, -1);
	}
	if ((o = member(r, "stack", json_type_object))) {
		st->has_stack = 1;
		st->stack_events = jstrv(o, "events", &st->nr_stack_events);
		st->stack_trigger_form = jstr(o, "trigger_form");
		st->stack_block_position = jstr(o, "block_position");
	}
	if (st->stack_position || st->stack_block_position)
		st->stack_before = !strcmp(st->stack_position ? st->stack_position :
					   st->stack_block_position, "before");
	st->clock = jstr(r, "clock");
	st->buffer_kb = jcount(r, "buffer_size_kb");
	st->record_tgid = jbool(r, "record_tgid");
	st->event_fork = jbool(r, "event_fork");
	st->tgid = jint(r, "tgid", 0);
	if ((o = member(r, "set_event_pid", json_type_array))) {
		size_t i, len = json_object_array_length(o);

		st->pids = xcalloc(len + 1, sizeof(*st->pids));
		for (i = 0; i < len; i++) {
			struct json_object *e = json_object_array_get_idx(o, i);

			if (json_object_is_type(e, json_type_int) && json_object_get_int64(e) > 0 &&
			    json_object_get_int64(e) <= 0x7fffffff)
				st->pids[st->nr_pids++] = (int)json_object_get_int64(e);
		}
	}
	if ((o = member(r, "command", json_type_object))) {
		st->has_command = 1;
		st->cmd_argv = jstrv(o, "argv", &st->cmd_argc);
		st->cmd_pid = jint(o, "pid", 0);
		st->cmd_exit_code = jint(o, "exit_code", -1);
		st->cmd_signal = jstr(o, "signal");
	}
	st->start_time = jstr(r, "start_time");
	st->stop_time = jstr(r, "stop_time");
	st->start_clock_ns = jcount(r, "start_clock_ns");
	st->stop_clock_ns = jcount(r, "stop_clock_ns");
	st->compression = jstr(r, "compression");
	if ((o = member(r, "chunk_limits", json_type_object))) {
		struct json_object *v;

		st->limit_lines = ju(o, "lines", NULL);
		st->limit_bytes = ju(o, "bytes", NULL);
		if (json_object_object_get_ex(o, "seconds", &v) &&
		    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
		    json_object_get_double(v) > 0)
			st->limit_seconds = json_object_get_double(v);
	}
	st->chunks = jobjv(r, "chunks", sizeof(*st->chunks), &st->nr_chunks, fill_chunk);
	read_binary(member(r, "binary", json_type_object), &st->binary);
	st->nr_cpus = jint(r, "nr_cpus", 0);
	if ((o = member(r, "stats", json_type_object))) {
		if (member(o, "start", json_type_array)) {
			st->stats_start = jobjv(o, "start", sizeof(*st->stats_start), &n, fill_cpu);
			st->nr_stats_start = n;
		}
		if (member(o, "end", json_type_array)) {
			st->stats_end = jobjv(o, "end", sizeof(*st->stats_end), &n, fill_cpu);
			st->nr_stats_end = n;
		}
	}
	if ((o = member(r, "totals", json_type_object))) {
		int known;

		st->tot_events = ju(o, "events", NULL);
		st->tot_stored_bytes = ju(o, "stored_bytes", NULL);
		st->tot_chunks = ju(o, "chunks", &known);
		st->text_totals = known;
		st->binary_totals = !known;
		st->tot_lines = ju(o, "lines", NULL);
		st->tot_bytes = ju(o, "bytes", NULL);
		st->tot_unterminated = jbool(o, "unterminated_last_line");
		st->tot_overlong = ju(o, "overlong_lines", NULL);
	}
	st->produced = jcount(r, "produced_events");
	read_lost(r, st);
	if ((o = member(r, "source", json_type_object))) {
		struct ts_source *src = &st->source;

		src->present = 1;
		src->dir = jstr(o, "dir");
		src->mode = jstr(o, "mode");
		src->state = jstr(o, "state");
		src->damaged_pages = ju(o, "damaged_pages", NULL);
		read_binary(member(o, "binary", json_type_object), &src->binary);
		src->transport = jstr(o, "transport");
		src->device = jstr(o, "device");
		src->reader = jstr(o, "reader");
		src->streams_complete = jbool(o, "streams_complete");
		src->device_form = src->transport || src->device || src->reader;
	}
}

/*
 * trace.status, of a capture that came off another machine: each value at
 * most STATUS_MAX_VALUE bytes (jsonskim.h), so a status of any size costs
 * bounded memory.  @stream: a file named with --status, which may be a
 * FIFO; one found in a capture directory must be a regular file.
 */
#define STATUS_MAX_VALUE	(1024 * 1024)

int trace_status_read(struct trace_status *st, const char *path, int stream)
{
	static const char *const keys[] = {
		"format", "version", "state", "stop_reason", "error", "mmlock_version",
		"command_line", "kernel_release", "mode", "tracefs", "instance", "event_set",
		"event_source", "module_caps", "module_version", "events", "events_missing",
		"filter", "stack_position", "sysctls", "stack", "clock", "buffer_size_kb",
		"record_tgid", "event_fork", "tgid", "set_event_pid", "command", "start_time",
		"start_clock_ns", "stop_time", "stop_clock_ns", "compression", "chunk_limits",
		"chunks", "binary", "nr_cpus", "stats", "totals", "produced_events",
		"lost_events", "source", NULL
	};
	char *err = NULL, *skipped = NULL;
	int fd = infile_open(AT_FDCWD, path, stream ? 0 : INFILE_REGULAR);

	if (fd < 0) {
		pr_warn("%s: cannot read: %s; ignored", path, infile_strerror(errno));
		return -1;
	}
	trace_status_release(st);
	st->root = json_skim_fd(fd, keys, STATUS_MAX_VALUE, &skipped, &err);
	close(fd);
	if (!st->root) {
		pr_warn("%s: %s; ignored", path, err);
		free(err);
		return -1;
	}
	if (skipped) {
		pr_warn("%s: %s larger than %d bytes or not JSON; ignored", path, skipped,
			STATUS_MAX_VALUE);
		free(skipped);
	}
	read_all(st, path);
	return 0;
}

/* ------------------------------------------------------------ writing */

char *trace_status_time(const struct timespec *ts)
{
	char date[40];
	struct tm tm;

	if (!ts->tv_sec)
		return NULL;
	gmtime_r(&ts->tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	return xasprintf("%s.%09ldZ", date, ts->tv_nsec);
}

static struct json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

/* One entry of stats.start or stats.end; !@st->valid gives {"cpu": N, "valid": false}. */
static struct json_object *cpu_json(int cpu, const struct cpu_stats *st)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "cpu", json_object_new_int(cpu));
	if (!st->valid) {
		json_object_object_add(o, "valid", json_object_new_boolean(0));
		return o;
	}
	json_object_object_add(o, "entries", ju64(st->entries));
	json_object_object_add(o, "overrun", ju64(st->overrun));
	json_object_object_add(o, "commit_overrun", ju64(st->commit_overrun));
	json_object_object_add(o, "bytes", ju64(st->bytes));
	json_object_object_add(o, "dropped_events", ju64(st->dropped));
	json_object_object_add(o, "read_events", ju64(st->read));
	return o;
}

static uint64_t delta(uint64_t end, uint64_t start)
{
	return end >= start ? end - start : 0;
}

void trace_status_lost(struct trace_status *st, const struct lost_cpu *cpus, int nr,
		       uint64_t markers, uint64_t discarded, int per_cpu_discarded)
{
	struct ts_lost *l = &st->lost_events;
	uint64_t produced = 0;
	int i;

	free(l->per_cpu);
	memset(l, 0, sizeof(*l));
	l->present = 1;
	l->have_stats = nr > 0;
	l->per_cpu = xcalloc((size_t)nr + 1, sizeof(*l->per_cpu));
	for (i = 0; i < nr; i++) {
		const struct lost_cpu *c = &cpus[i];
		const struct cpu_stats *s = &c->start, *e = &c->end;
		struct ts_lost_cpu *o;
		uint64_t ov, co, dr, un;

		if (!c->valid) {
			l->have_stats = 0;
			continue;
		}
		o = &l->per_cpu[l->nr_per_cpu++];
		ov = delta(e->overrun, s->overrun);
		co = delta(e->commit_overrun, s->commit_overrun);
		dr = delta(e->dropped, s->dropped);
		un = e->entries;
		l->overrun += ov;
		l->commit_overrun += co;
		l->dropped += dr;
		l->unread += un;
		produced += delta(e->read, s->read) + un + ov + co + dr;
		o->cpu = c->cpu;
		o->lost_markers = c->markers;
		o->overrun = ov;
		o->commit_overrun = co;
		o->dropped = dr;
		o->unread = un;
		o->total = u64_add_sat(u64_add_sat(c->markers > ov ? c->markers : ov, co),
				       u64_add_sat(dr, un));
		if (per_cpu_discarded) {
			o->has_discarded = 1;
			o->discarded = c->discarded;
			o->total = u64_add_sat(o->total, c->discarded);
		}
	}
	l->lost_markers = markers;
	l->discarded = discarded;
	/* a hostile --stdin stream can claim 2^64-1 lost events: saturate, never wrap */
	l->total = u64_add_sat(u64_add_sat(markers > l->overrun ? markers : l->overrun,
					   l->commit_overrun),
			       u64_add_sat(u64_add_sat(l->dropped, l->unread), discarded));
	st->lost = l->total > INT64_MAX ? INT64_MAX : (int64_t)l->total;
	st->produced.n = produced;
}

static struct json_object *lost_to_json(const struct ts_lost *l)
{
	struct json_object *o, *per;
	int i;

	if (!l->present)
		return NULL;
	o = json_object_new_object();
	per = json_object_new_array();
	for (i = 0; i < l->nr_per_cpu; i++) {
		const struct ts_lost_cpu *c = &l->per_cpu[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "cpu", json_object_new_int(c->cpu));
		json_object_object_add(e, "lost_markers", ju64(c->lost_markers));
		json_object_object_add(e, "overrun", ju64(c->overrun));
		json_object_object_add(e, "commit_overrun", ju64(c->commit_overrun));
		json_object_object_add(e, "dropped", ju64(c->dropped));
		json_object_object_add(e, "unread", ju64(c->unread));
		if (c->has_discarded)
			json_object_object_add(e, "discarded", ju64(c->discarded));
		json_object_object_add(e, "total", ju64(c->total));
		json_object_array_add(per, e);
	}
	json_object_object_add(o, "total", ju64(l->total));
	json_object_object_add(o, "lost_markers", ju64(l->lost_markers));
	json_object_object_add(o, "overrun", l->have_stats ? ju64(l->overrun) : NULL);
	json_object_object_add(o, "commit_overrun", l->have_stats ? ju64(l->commit_overrun) : NULL);
	json_object_object_add(o, "dropped", l->have_stats ? ju64(l->dropped) : NULL);
	json_object_object_add(o, "unread", l->have_stats ? ju64(l->unread) : NULL);
	json_object_object_add(o, "discarded", ju64(l->discarded));
	json_object_object_add(o, "per_cpu", per);
	return o;
}

/* ------------------------------------------------------ the whole document */

static struct json_object *jstring(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *jcount_json(struct ts_count c)
{
	return c.known ? ju64(c.n) : NULL;
}

static struct json_object *strv_json(const char *const *v, int n)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, jstring(v[i]));
	return a;
}

static struct json_object *binary_json(const struct ts_binary *b)
{
	struct json_object *o, *files;
	int i;

	if (!b->present)
		return NULL;
	o = json_object_new_object();
	files = json_object_new_array();
	json_object_object_add(o, "page_size", json_object_new_int(b->page_size));
	json_object_object_add(o, "formats", jstring(b->formats));
	json_object_object_add(o, "kallsyms", jstring(b->kallsyms));
	for (i = 0; i < b->nr_files; i++) {
		const struct ts_file *f = &b->files[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "cpu", json_object_new_int(f->cpu));
		json_object_object_add(e, "name", jstring(f->name));
		json_object_object_add(e, "pages", ju64(f->pages));
		json_object_object_add(e, "bytes", ju64(f->bytes));
		json_object_object_add(e, "events", ju64(f->events));
		json_object_object_add(e, "missed", ju64(f->missed));
		json_object_object_add(e, "missed_unknown", json_object_new_int(f->missed_unknown));
		if (f->device) {
			json_object_object_add(e, "damaged_pages", ju64(f->damaged_pages));
			json_object_object_add(e, "partial_page_bytes", ju64(f->partial_page_bytes));
		}
		json_object_array_add(files, e);
	}
	json_object_object_add(o, "files", files);
	return o;
}

static struct json_object *stats_json(const struct ts_cpu *v, int n)
{
	struct json_object *a;
	int i;

	if (n < 0)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(a, cpu_json(v[i].cpu, &v[i].st));
	return a;
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *source_json(const struct ts_source *src)
{
	struct json_object *b = json_object_new_object();

	if (src->device_form) {
		add(b, "mode", jstring(src->mode));
		add(b, "transport", jstring(src->transport));
		add(b, "device", jstring(src->device));
		add(b, "reader", jstring(src->reader));
		add(b, "streams_complete", json_object_new_boolean(src->streams_complete));
		return b;
	}
	add(b, "dir", jstring(src->dir));
	add(b, "damaged_pages", ju64(src->damaged_pages));
	add(b, "mode", jstring(src->mode));
	add(b, "state", jstring(src->state));
	add(b, "binary", binary_json(&src->binary));
	return b;
}

struct json_object *trace_status_to_json(const struct trace_status *st)
{
	struct json_object *o = json_object_new_object(), *a, *b;
	int i;

	add(o, "format", jstring("mmlock-trace-status"));
	add(o, "version", json_object_new_int(1));
	add(o, "state", jstring(st->state));
	add(o, "stop_reason", jstring(st->stop_reason));
	add(o, "error", jstring(st->error));
	add(o, "mmlock_version", jstring(st->mmlock_version));
	add(o, "command_line", strv_json(st->command_line, st->nr_command_line));
	add(o, "kernel_release", jstring(st->kernel_release));
	add(o, "mode", jstring(st->mode));
	add(o, "tracefs", jstring(st->tracefs));
	add(o, "instance", jstring(st->instance));
	add(o, "event_set", jstring(st->event_set));
	add(o, "event_source", jstring(st->event_source));
	add(o, "module_caps", jstring(st->module_caps));
	add(o, "module_version", jstring(st->module_version));
	a = NULL;
	if (st->ev) {
		a = json_object_new_array();
		for (i = 0; i < st->nr_events; i++) {
			struct json_object *e = json_object_new_object();

			add(e, "name", jstring(st->ev[i].name));
			add(e, "filter", jstring(st->ev[i].filter));
			add(e, "trigger", jstring(st->ev[i].trigger));
			json_object_array_add(a, e);
		}
	}
	add(o, "events", a);
	add(o, "events_missing", strv_json(st->events_missing, st->nr_events_missing));
	add(o, "filter", jstring(st->filter));
	add(o, "stack_position", jstring(st->stack_position));
	b = NULL;
	if (st->has_sysctls) {
		b = json_object_new_object();
		for (i = 0; i < MMLOCK_SYSCTL_NR; i++) {
			int v = *trace_status_sysctl((struct trace_status *)st, i);

			add(b, mmlock_sysctls[i].name, v >= 0 ? json_object_new_int(v) : NULL);
		}
	}
	add(o, "sysctls", b);
	b = NULL;
	if (st->has_stack) {
		b = json_object_new_object();
		add(b, "events", strv_json(st->stack_events, st->nr_stack_events));
		add(b, "trigger_form", jstring(st->stack_trigger_form));
		add(b, "block_position", jstring(st->stack_block_position));
	}
	add(o, "stack", b);
	add(o, "clock", jstring(st->clock));
	add(o, "buffer_size_kb", jcount_json(st->buffer_kb));
	add(o, "record_tgid", json_object_new_boolean(st->record_tgid));
	add(o, "event_fork", json_object_new_boolean(st->event_fork));
	add(o, "tgid", st->tgid ? json_object_new_int(st->tgid) : NULL);
	a = json_object_new_array();
	for (i = 0; i < st->nr_pids; i++)
		json_object_array_add(a, json_object_new_int(st->pids[i]));
	add(o, "set_event_pid", a);
	b = NULL;
	if (st->has_command) {
		b = json_object_new_object();
		add(b, "argv", strv_json(st->cmd_argv, st->cmd_argc));
		add(b, "pid", st->cmd_pid > 0 ? json_object_new_int(st->cmd_pid) : NULL);
		add(b, "exit_code", st->cmd_exit_code >= 0 ?
		    json_object_new_int(st->cmd_exit_code) : NULL);
		add(b, "signal", jstring(st->cmd_signal));
	}
	add(o, "command", b);
	add(o, "start_time", jstring(st->start_time));
	add(o, "start_clock_ns", jcount_json(st->start_clock_ns));
	add(o, "stop_time", jstring(st->stop_time));
	add(o, "stop_clock_ns", jcount_json(st->stop_clock_ns));
	add(o, "compression", jstring(st->compression));
	b = json_object_new_object();
	add(b, "lines", st->limit_lines ? ju64(st->limit_lines) : NULL);
	add(b, "bytes", st->limit_bytes ? ju64(st->limit_bytes) : NULL);
	add(b, "seconds", st->limit_seconds > 0 ? json_object_new_double(st->limit_seconds) : NULL);
	add(o, "chunk_limits", b);
	a = json_object_new_array();
	for (i = 0; i < st->nr_chunks; i++) {
		const struct ts_chunk *c = &st->chunks[i];
		struct json_object *e = json_object_new_object();

		add(e, "name", jstring(c->name));
		add(e, "lines", ju64(c->lines));
		add(e, "events", ju64(c->events));
		add(e, "lost_markers", ju64(c->lost_markers));
		add(e, "bytes", ju64(c->bytes));
		add(e, "stored_bytes", ju64(c->stored_bytes));
		json_object_array_add(a, e);
	}
	add(o, "chunks", a);
	add(o, "binary", binary_json(&st->binary));
	add(o, "nr_cpus", st->nr_cpus ? json_object_new_int(st->nr_cpus) : NULL);
	b = json_object_new_object();
	add(b, "start", stats_json(st->stats_start, st->nr_stats_start));
	add(b, "end", stats_json(st->stats_end, st->nr_stats_end));
	add(o, "stats", b);
	b = json_object_new_object();
	if (st->text_totals) {
		add(b, "chunks", ju64(st->tot_chunks));
		add(b, "lines", ju64(st->tot_lines));
		add(b, "events", ju64(st->tot_events));
		add(b, "bytes", ju64(st->tot_bytes));
		add(b, "stored_bytes", ju64(st->tot_stored_bytes));
		add(b, "unterminated_last_line", json_object_new_boolean(st->tot_unterminated));
		add(b, "overlong_lines", ju64(st->tot_overlong));
	} else if (st->binary_totals) {
		add(b, "events", ju64(st->tot_events));
		add(b, "stored_bytes", ju64(st->tot_stored_bytes));
	}
	add(o, "totals", b);
	add(o, "produced_events", jcount_json(st->produced));
	add(o, "lost_events", lost_to_json(&st->lost_events));
	if (st->source.present)
		add(o, "source", source_json(&st->source));
	return o;
}

int trace_status_write_at(const struct trace_status *st, int dirfd, int flags)
{
	struct json_object *o = trace_status_to_json(st);
	int ret, err;

	/* trace.status.XXXXXX.tmp, fsync, rename: never over anything but a file */
	ret = json_write_at(dirfd, "trace.status", o, 1, flags);
	err = errno;
	json_object_put(o);
	errno = err;
	return ret;
}
