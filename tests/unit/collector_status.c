// SPDX-License-Identifier: GPL-2.0
/*
 * trace.status: every key collector/README.md documents is present, and the
 * loss arithmetic (produced = read + unread + overrun + commit + dropped;
 * lost = max(markers, overrun) + commit + dropped + unread + discarded) holds.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "collector/record.h"
#include "status_setup.h"
#include "test.h"
#include "util.h"

static const char *const keys[] = {
	"format", "version", "state", "stop_reason", "error", "mmlock_version",
	"command_line", "kernel_release", "mode", "tracefs", "instance", "event_set",
	"event_source", "module_caps", "module_version",
	"events", "events_missing", "filter", "stack_position", "sysctls", "stack", "clock", "buffer_size_kb", "record_tgid", "event_fork", "tgid",
	"set_event_pid", "command", "start_time", "stop_time", "start_clock_ns",
	"stop_clock_ns", "compression", "chunk_limits", "chunks", "binary", "nr_cpus",
	"stats", "totals", "produced_events", "lost_events",
};

static int64_t get_i(struct json_object *o, const char *path)
{
	char *p = strdup(path), *save = NULL, *k;
	struct json_object *cur = o;

	for (k = strtok_r(p, ".", &save); k && cur; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(cur, k, &cur))
			cur = NULL;
	free(p);
	return cur ? json_object_get_int64(cur) : -1;
}

int main(void)
{
	static char *argv[] = { "mmlock", "record", "-o", "x", NULL };
	static const char text[] = "a-1 [000] .....  1.000001: ev: x\n"
				   "a-1 [000] .....  1.000002: <stack trace>\n"
				   " => f\n"
				   "CPU:1 [LOST 5 EVENTS]\n"
				   "a-1 [001] .....  1.000003: ev: y\n";
	struct cpu_stats start[2], end[2];
	struct json_object *o, *v;
	struct record_opts opts;
	struct record r;
	char dir[] = "/tmp/mmlock-status-XXXXXX", path[64];
	size_t i;
	int missing = 0, rc;

	memset(start, 0, sizeof(start));
	memset(end, 0, sizeof(end));
	if (status_setup(&r, &opts, 4, argv, dir, text, sizeof(text) - 1))
		return 1;
	r.col.nr_cpus = 2;
	/* CPU 1 lost 5 to overrun; CPU 0 has 2 unread and 1 dropped */
	end[0] = (struct cpu_stats){ .read = 2, .entries = 2, .dropped = 1, .valid = 1 };
	end[1] = (struct cpu_stats){ .read = 1, .overrun = 5, .valid = 1 };
	start[0].valid = start[1].valid = 1;
	r.stats_start = start;
	r.stats_end = end;
	r.started = r.stopped = 1;
	rc = record_write_status(&r);
	CHECK(rc == 0, "trace.status written");
	snprintf(path, sizeof(path), "%s/trace.status", dir);
	o = json_object_from_file(path);
	CHECK(o != NULL, "trace.status is JSON");
	for (i = 0; o && i < ARRAY_SIZE(keys); i++) {
		if (!json_object_object_get_ex(o, keys[i], &v)) {
			printf("# missing key %s\n", keys[i]);
			missing++;
		}
	}
	CHECK(o && !missing, "every documented key is present");
	CHECK(get_i(o, "totals.events") == 3 && get_i(o, "totals.lines") == 5,
	      "events exclude frames and LOST lines");
	CHECK(get_i(o, "lost_events.lost_markers") == 5 && get_i(o, "lost_events.overrun") == 5,
	      "LOST markers and overrun reported side by side");
	CHECK(get_i(o, "produced_events") == 2 + 2 + 1 + 1 + 5,
	      "produced = read + unread + dropped + overrun");
	CHECK(get_i(o, "lost_events.total") == 5 + 1 + 2, "lost = overrun + dropped + unread");
	CHECK(faccessat(r.outdir_fd, "trace.status.tmp", F_OK, 0) != 0, "no .tmp left");
	json_object_put(o);
	chunk_writer_release(&r.cw);
	unlinkat(r.outdir_fd, "trace.status", 0);
	unlinkat(r.outdir_fd, "trace-000001.txt", 0);
	close(r.outdir_fd);
	rmdir(dir);
	return TEST_EXIT();
}
