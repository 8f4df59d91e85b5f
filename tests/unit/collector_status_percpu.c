// SPDX-License-Identifier: GPL-2.0
/*
 * trace.status lost_events.per_cpu[]: collector/README.md gives each CPU the
 * same loss arithmetic as the whole recording, "the same per CPU":
 * total = max(lost_markers, overrun) + commit_overrun + dropped + unread.
 * The markers and the overrun count the same lost events twice over (a LOST
 * line reports what the overrun counter counts), hence the max.  Each CPU
 * here has different markers and overrun, so a sum or the wrong one of the
 * two shows; collector_status.c checks the recording's totals.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "collector/record.h"
#include "test.h"
#include "util.h"

/* per_cpu[cpu].key, or -1 when absent */
static int64_t per_cpu(struct json_object *o, int cpu, const char *key)
{
	struct json_object *lost, *arr, *v;
	size_t i;

	if (!json_object_object_get_ex(o, "lost_events", &lost) ||
	    !json_object_object_get_ex(lost, "per_cpu", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return -1;
	for (i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *c = json_object_array_get_idx(arr, i);

		if (json_object_object_get_ex(c, "cpu", &v) && json_object_get_int(v) == cpu)
			return json_object_object_get_ex(c, key, &v) ? json_object_get_int64(v) : -1;
	}
	return -1;
}

int main(void)
{
	static char *argv[] = { "mmlock", "record", "-o", "x", NULL };
	static const char text[] = "a-1 [000] .....  1.000001: ev: x\n"
				   "CPU:0 [LOST 2 EVENTS]\n"
				   "a-1 [001] .....  1.000002: ev: y\n"
				   "CPU:1 [LOST 5 EVENTS]\n"
				   "a-1 [001] .....  1.000003: ev: z\n";
	struct cpu_stats start[3], end[3];
	struct json_object *o, *lost, *arr;
	struct record_opts opts;
	struct record r;
	char dir[] = "/tmp/mmlock-percpu-XXXXXX", path[64];
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&opts, 0, sizeof(opts));
	memset(start, 0, sizeof(start));
	memset(end, 0, sizeof(end));
	opts.compress = CHUNK_NONE;
	opts.output = dir;
	r.opts = &opts;
	r.argc = 4;
	r.argv = argv;
	r.mode = "text";
	r.state = "complete";
	if (!mkdtemp(dir))
		return 1;
	r.outdir_fd = open(dir, O_RDONLY | O_DIRECTORY);
	chunk_writer_init(&r.cw, r.outdir_fd, CHUNK_NONE, 1, NULL);
	r.cw.do_fsync = 0;
	r.cw_live = 1;
	chunk_writer_feed(&r.cw, text, sizeof(text) - 1, 1);
	chunk_writer_finish(&r.cw, 2);
	r.col.nr_cpus = 3;
	/*
	 * CPU 0: 2 markers < overrun 4, commit 1, dropped 1, unread 2: 4+1+1+2 = 8.
	 * CPU 1: 5 markers > overrun 3: 5.  CPU 2: nothing lost: 0.
	 * The counters start from non-zero values: only the deltas count.
	 */
	start[0] = (struct cpu_stats){ .read = 10, .overrun = 6, .commit_overrun = 2, .dropped = 3,
				       .valid = 1 };
	end[0] = (struct cpu_stats){ .read = 11, .entries = 2, .overrun = 10, .commit_overrun = 3,
				     .dropped = 4, .valid = 1 };
	start[1] = (struct cpu_stats){ .read = 1, .overrun = 1, .valid = 1 };
	end[1] = (struct cpu_stats){ .read = 3, .overrun = 4, .valid = 1 };
	start[2] = (struct cpu_stats){ .read = 7, .valid = 1 };
	end[2] = (struct cpu_stats){ .read = 7, .valid = 1 };
	r.stats_start = start;
	r.stats_end = end;
	r.started = r.stopped = 1;
	rc = record_write_status(&r);
	CHECK(rc == 0, "trace.status written");
	snprintf(path, sizeof(path), "%s/trace.status", dir);
	o = json_object_from_file(path);
	CHECK(o != NULL, "trace.status is JSON");
	CHECK(o && json_object_object_get_ex(o, "lost_events", &lost) &&
	      json_object_object_get_ex(lost, "per_cpu", &arr) &&
	      json_object_array_length(arr) == 3, "per_cpu has one entry per CPU");
	CHECK(per_cpu(o, 0, "lost_markers") == 2 && per_cpu(o, 1, "lost_markers") == 5 &&
	      per_cpu(o, 2, "lost_markers") == 0, "per_cpu lost_markers: each CPU's LOST lines");
	CHECK(per_cpu(o, 0, "overrun") == 4 && per_cpu(o, 0, "commit_overrun") == 1 &&
	      per_cpu(o, 0, "dropped") == 1 && per_cpu(o, 0, "unread") == 2 &&
	      per_cpu(o, 1, "overrun") == 3, "per_cpu counters are the deltas of the CPU's stats");
	CHECK(per_cpu(o, 0, "total") == 4 + 1 + 1 + 2,
	      "per_cpu total: overrun above the markers counts once (CPU 0: %lld)",
	      (long long)per_cpu(o, 0, "total"));
	CHECK(per_cpu(o, 1, "total") == 5,
	      "per_cpu total: markers above the overrun count once (CPU 1: %lld)",
	      (long long)per_cpu(o, 1, "total"));
	CHECK(per_cpu(o, 2, "total") == 0, "per_cpu total: a CPU that lost nothing (CPU 2: %lld)",
	      (long long)per_cpu(o, 2, "total"));
	json_object_put(o);
	chunk_writer_release(&r.cw);
	unlinkat(r.outdir_fd, "trace.status", 0);
	unlinkat(r.outdir_fd, "trace-000001.txt", 0);
	close(r.outdir_fd);
	rmdir(dir);
	return TEST_EXIT();
}
