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
#include "jsonskim.h"
#include "lost.h"
#include "tracestatus.h"
#include "util.h"

void trace_status_init(struct trace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->lost = -1;
	st->no_retry = -1;
	st->retry_vma_lock = -1;
	st->stack_before = -1;
}

void trace_status_release(struct trace_status *st)
{
	free(st->events);
	json_object_put(st->root);
	trace_status_init(st);
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int64_t jnum(struct json_object *o, const char *key, int64_t dflt)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return dflt;
	if (json_object_is_type(v, json_type_int))
		return json_object_get_int64(v) < 0 ? dflt : json_object_get_int64(v);
	if (json_object_is_type(v, json_type_object))
		return jnum(v, "total", dflt);
	return dflt;
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

/*
 * trace.status, of a capture that came off another machine: only the keys
 * the summary uses are read (jsonskim.h), each at most STATUS_MAX_VALUE
 * bytes, so a status of any size costs bounded memory.  @stream: a file
 * named with --status, which may be a FIFO; one found in a capture
 * directory must be a regular file.
 */
#define STATUS_MAX_VALUE	(1024 * 1024)

int trace_status_read(struct trace_status *st, const char *path, int stream)
{
	static const char *const keys[] = {
		"events", "lost_events", "clock", "filter", "event_set", "sysctls",
		"stack_position", "stack", "mode", "event_source", "module_caps", "module_version",
		NULL
	};
	struct json_object *v, *sys;
	char *err = NULL, *skipped = NULL;
	int fd = infile_open(AT_FDCWD, path, stream ? 0 : INFILE_REGULAR);

	if (fd < 0) {
		pr_warn("%s: cannot read: %s; ignored", path, infile_strerror(errno));
		return -1;
	}
	json_object_put(st->root);
	free(st->events);
	trace_status_init(st);
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
	/*
	 * events null: the producer's set is unknown (record --stdin without
	 * -e), like a bare trace.  An older --stdin capture wrote [] for the
	 * same thing; [] never means "nothing recorded" there.
	 */
	if (json_object_object_get_ex(st->root, "events", &v) &&
	    json_object_is_type(v, json_type_array) &&
	    (json_object_array_length(v) || !jstr(st->root, "mode") ||
	     strcmp(jstr(st->root, "mode"), "stdin"))) {
		size_t i, n = json_object_array_length(v);

		st->events = xcalloc(n + 1, sizeof(*st->events));
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(v, i);
			const char *name = json_object_is_type(e, json_type_string) ?
				json_object_get_string(e) : jstr(e, "name");

			if (name)
				st->events[st->nr_events++] = name;
		}
	}
	st->lost = jnum(st->root, "lost_events", -1);
	st->clock = jstr(st->root, "clock");
	st->filter = jstr(st->root, "filter");
	st->event_set = jstr(st->root, "event_set");
	st->mode = jstr(st->root, "mode");
	st->event_source = jstr(st->root, "event_source");
	st->module_caps = jstr(st->root, "module_caps");
	st->module_version = jstr(st->root, "module_version");
	if (json_object_object_get_ex(st->root, "sysctls", &sys) &&
	    json_object_is_type(sys, json_type_object)) {
		st->no_retry = status_sysctl(path, sys, "filemap_fault_no_retry", st->no_retry);
		st->retry_vma_lock = status_sysctl(path, sys, "fault_retry_vma_lock",
						   st->retry_vma_lock);
	}
	{
		const char *pos = jstr(st->root, "stack_position");
		struct json_object *stack;

		if (!pos && json_object_object_get_ex(st->root, "stack", &stack) && stack)
			pos = jstr(stack, "block_position");
		if (pos)
			st->stack_before = !strcmp(pos, "before");
	}
	return 0;
}


/* ------------------------------------------------------------ writing */

struct json_object *trace_status_json_string(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *trace_status_json_time(const struct timespec *ts)
{
	char buf[64], date[40];
	struct tm tm;

	if (!ts->tv_sec)
		return NULL;
	gmtime_r(&ts->tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, sizeof(buf), "%s.%09ldZ", date, ts->tv_nsec);
	return json_object_new_string(buf);
}

static struct json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

struct json_object *trace_status_cpu_json(int cpu, const struct cpu_stats *st)
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

struct json_object *trace_status_lost_json(const struct lost_cpu *cpus, int nr,
					   uint64_t markers, uint64_t discarded,
					   int per_cpu_discarded, uint64_t *produced,
					   uint64_t *total)
{
	struct json_object *o = json_object_new_object(), *per = json_object_new_array();
	uint64_t overrun = 0, commit = 0, dropped = 0, unread = 0;
	int i, have_stats = 1;

	*produced = 0;
	for (i = 0; i < nr; i++) {
		const struct lost_cpu *l = &cpus[i];
		const struct cpu_stats *s = &l->start, *e = &l->end;
		struct json_object *c;
		uint64_t m = l->markers, ov, co, dr, un, t;

		if (!l->valid) {
			have_stats = 0;
			continue;
		}
		ov = delta(e->overrun, s->overrun);
		co = delta(e->commit_overrun, s->commit_overrun);
		dr = delta(e->dropped, s->dropped);
		un = e->entries;
		overrun += ov;
		commit += co;
		dropped += dr;
		unread += un;
		*produced += delta(e->read, s->read) + un + ov + co + dr;
		t = u64_add_sat(u64_add_sat(m > ov ? m : ov, co),
				u64_add_sat(dr, un));
		c = json_object_new_object();
		json_object_object_add(c, "cpu", json_object_new_int(l->cpu));
		json_object_object_add(c, "lost_markers", ju64(m));
		json_object_object_add(c, "overrun", ju64(ov));
		json_object_object_add(c, "commit_overrun", ju64(co));
		json_object_object_add(c, "dropped", ju64(dr));
		json_object_object_add(c, "unread", ju64(un));
		if (per_cpu_discarded) {
			json_object_object_add(c, "discarded", ju64(l->discarded));
			t = u64_add_sat(t, l->discarded);
		}
		json_object_object_add(c, "total", ju64(t));
		json_object_array_add(per, c);
	}
	if (!nr)
		have_stats = 0;
	/* a hostile --stdin stream can claim 2^64-1 lost events: saturate, never wrap */
	*total = u64_add_sat(u64_add_sat(markers > overrun ? markers : overrun, commit),
			     u64_add_sat(u64_add_sat(dropped, unread), discarded));
	json_object_object_add(o, "total", ju64(*total));
	json_object_object_add(o, "lost_markers", ju64(markers));
	json_object_object_add(o, "overrun", have_stats ? ju64(overrun) : NULL);
	json_object_object_add(o, "commit_overrun", have_stats ? ju64(commit) : NULL);
	json_object_object_add(o, "dropped", have_stats ? ju64(dropped) : NULL);
	json_object_object_add(o, "unread", have_stats ? ju64(unread) : NULL);
	json_object_object_add(o, "discarded", ju64(discarded));
	json_object_object_add(o, "per_cpu", per);
	return o;
}
