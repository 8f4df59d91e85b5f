// SPDX-License-Identifier: GPL-2.0
/*
 * trace.status, read: see tracestatus.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "infile.h"
#include "jsonskim.h"
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

