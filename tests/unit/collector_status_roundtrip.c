// SPDX-License-Identifier: GPL-2.0
/*
 * trace.status is read and written through one struct (capture/tracestatus.h):
 * every file the earlier writers left (the fixtures, the demo's captures, a
 * device's host capture) reads into struct trace_status and writes back as
 * the same document, key for key; a file of an older version still reads,
 * what it lacks unknown; and values of the wrong type read as absent.
 * Run from the top of the tree (tests/run does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "test.h"
#include "tracestatus.h"
#include "util.h"

/* @written: a writer made it (exactly the same back); else written by hand (kept, not equal) */
static const struct {
	const char	*path;
	int		written;
} fixtures[] = {
	{ "tests/fixtures/binary-small.capture/trace.status", 1 },
	{ "tests/fixtures/stock-fault-event-listed.chunks/trace.status", 1 },
	{ "tests/fixtures/stock-6.1-status.chunks/trace.status", 1 },
	{ "demo/6.12/vma-contention/stock/trace/trace.status", 1 },
	{ "demo/6.12/vma-contention/no-retry/trace/trace.status", 1 },
	{ "demo/6.12/vma-contention/retry-vma/trace/trace.status", 1 },
	{ "tests/fixtures/stockmode-5.15.chunks/trace.status", 0 },
	{ "tests/fixtures/module-refcount.chunks/trace.status", 0 },
	{ "tests/fixtures/module-rwsem.chunks/trace.status", 0 },
	{ "tests/fixtures/status-families.chunks/trace.status", 0 },
};

/* Every value of @a is in @b (objects: key by key; arrays: entry by entry). */
static int kept_in(struct json_object *a, struct json_object *b)
{
	if (json_object_is_type(a, json_type_object)) {
		if (!json_object_is_type(b, json_type_object))
			return 0;
		json_object_object_foreach(a, key, val) {
			struct json_object *v;

			if (!json_object_object_get_ex(b, key, &v) || !kept_in(val, v))
				return 0;
		}
		return 1;
	}
	if (json_object_is_type(a, json_type_array)) {
		if (!json_object_is_type(b, json_type_array) ||
		    json_object_array_length(a) != json_object_array_length(b))
			return 0;
		for (size_t i = 0; i < json_object_array_length(a); i++)
			if (!kept_in(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i)))
				return 0;
		return 1;
	}
	return json_object_equal(a, b);
}

/*
 * The keys the writer always emits that a file of an earlier version may lack:
 * added to the original as the writer gives them for "unknown", so that the
 * comparison is about every value the file does have.
 */
static void add_absent(struct json_object *orig, struct json_object *again)
{
	json_object_object_foreach(again, key, val) {
		struct json_object *v;

		if (!json_object_object_get_ex(orig, key, &v))
			json_object_object_add(orig, key, json_object_get(val));
	}
}

static int same_doc(const char *path, int exact, char **diff)
{
	struct json_object *orig = json_object_from_file(path), *again;
	struct trace_status st;
	int same;

	*diff = NULL;
	if (!orig)
		return 0;
	trace_status_init(&st);
	if (trace_status_read(&st, path, 0)) {
		json_object_put(orig);
		return 0;
	}
	again = trace_status_to_json(&st);
	add_absent(orig, again);
	/* a device's capture wrote "source": null; the writer leaves the key out */
	if (json_object_object_get_ex(orig, "source", NULL) &&
	    !json_object_object_get_ex(again, "source", NULL) &&
	    !json_object_object_get(orig, "source"))
		json_object_object_del(orig, "source");
	same = exact ? json_object_equal(orig, again) : kept_in(orig, again);
	if (!same) {
		json_object_object_foreach(orig, key, val) {
			struct json_object *v = json_object_object_get(again, key);

			if (exact ? !json_object_equal(val, v) : !kept_in(val, v)) {
				*diff = xasprintf("%s: %.200s vs %.200s", key,
						  json_object_to_json_string(val),
						  json_object_to_json_string(v));
				break;
			}
		}
	}
	json_object_put(orig);
	json_object_put(again);
	trace_status_release(&st);
	return same;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	char dir[] = "/tmp/mmlock-roundtrip-XXXXXX", *p;
	struct trace_status st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fixtures); i++) {
		char *diff;
		int same = same_doc(fixtures[i].path, fixtures[i].written, &diff);

		CHECK(same, "%s reads into struct trace_status and writes back %s%s%s",
		      fixtures[i].path, fixtures[i].written ? "the same" : "every value it has",
		      diff ? ": " : "", diff ? diff : "");
		free(diff);
	}

	if (!mkdtemp(dir))
		return 1;
	p = xasprintf("%s/trace.status", dir);
	/* a device's host-side capture (device/rawcap.c): its own "source", per-file extras */
	write_file(p,
		   "{\"format\":\"mmlock-trace-status\",\"version\":1,\"state\":\"complete\","
		   "\"stop_reason\":\"command-exited\",\"error\":null,\"mmlock_version\":\"0.1\","
		   "\"command_line\":[\"mmlock\",\"device\",\"run\"],\"kernel_release\":\"6.1.99-android14\","
		   "\"mode\":\"binary\",\"tracefs\":\"/sys/kernel/tracing\",\"instance\":\"mmlock-dev\","
		   "\"event_set\":\"stock\",\"event_source\":null,\"module_caps\":null,"
		   "\"module_version\":null,\"events\":[{\"name\":\"mmap_lock:mmap_lock_released\","
		   "\"filter\":null,\"trigger\":null}],\"events_missing\":[],\"filter\":\"set_event_pid 99 (+event-fork)\","
		   "\"stack_position\":null,\"sysctls\":{\"filemap_fault_no_retry\":0,"
		   "\"fault_retry_vma_lock\":null},\"stack\":null,\"clock\":\"mono\","
		   "\"buffer_size_kb\":4096,\"record_tgid\":true,\"event_fork\":true,"
		   "\"tgid\":99,\"set_event_pid\":[99],\"command\":{\"argv\":[\"w\","
		   "\"-d\",\"5s\"],\"pid\":99,\"exit_code\":0,\"signal\":null},\"start_time\":\"2026-12-01T17:26:45.123456789Z\","
		   "\"start_clock_ns\":null,\"stop_time\":\"2026-12-01T17:26:50.000000001Z\","
		   "\"stop_clock_ns\":null,\"compression\":\"none\",\"chunk_limits\":{\"lines\":null,"
		   "\"bytes\":null,\"seconds\":null},\"chunks\":[],\"binary\":{\"page_size\":4096,"
		   "\"formats\":\"tracefs\",\"kallsyms\":\"kallsyms\",\"files\":[{\"cpu\":2,"
		   "\"name\":\"raw/cpu002.raw\",\"pages\":3,\"bytes\":12288,\"events\":40,"
		   "\"missed\":1,\"missed_unknown\":0,\"damaged_pages\":0,\"partial_page_bytes\":17}]},"
		   "\"nr_cpus\":1,\"stats\":{\"start\":[{\"cpu\":2,\"entries\":0,\"overrun\":0,"
		   "\"commit_overrun\":0,\"bytes\":0,\"dropped_events\":0,\"read_events\":0}],"
		   "\"end\":null},\"totals\":{\"events\":40,\"stored_bytes\":12288},"
		   "\"produced_events\":null,\"lost_events\":{\"total\":1,\"lost_markers\":1,"
		   "\"overrun\":null,\"commit_overrun\":null,\"dropped\":null,\"unread\":null,"
		   "\"discarded\":0,\"per_cpu\":[]},\"source\":{\"mode\":\"device-host-stream\","
		   "\"transport\":\"adb\",\"device\":\"phone\",\"reader\":\"mmlock device pages,"
		   " one transport session per CPU\",\"streams_complete\":true}}");
	{
		char *diff;
		int same = same_doc(p, 1, &diff);

		CHECK(same, "a device's host-side capture reads and writes back the same%s%s",
		      diff ? ": " : "", diff ? diff : "");
		free(diff);
	}
	/* the first captures: bare event names, lost_events a bare number, no stack keys */
	write_file(p, "{\"format\": \"mmlock-trace-status\", \"mode\": \"text\", \"events\": "
		   "[\"mmap_lock:mmap_lock_released\"], \"lost_events\": 7, \"clock\": \"mono\"}");
	trace_status_init(&st);
	CHECK(!trace_status_read(&st, p, 0) && st.nr_events == 1 &&
	      !strcmp(st.events[0], "mmap_lock:mmap_lock_released") && st.lost == 7 &&
	      !strcmp(st.clock, "mono") && st.stack_before == -1 && st.nr_stats_end == -1 &&
	      !st.produced.known && !st.binary.present,
	      "an older status reads: bare names, a bare lost count, the rest unknown");
	trace_status_release(&st);
	/* wrong types read as absent, never as something else */
	write_file(p, "{\"events\": 3, \"lost_events\": {\"total\": -4}, \"tgid\": \"12\", "
		   "\"set_event_pid\": [1, \"x\", -2, 5], \"binary\": [], \"nr_cpus\": 1e3, "
		   "\"stack\": {\"block_position\": \"before\"}, \"totals\": {\"events\": \"9\"}}");
	trace_status_init(&st);
	CHECK(!trace_status_read(&st, p, 0) && !st.events && st.lost == -1 && st.tgid == 0 &&
	      st.nr_pids == 2 && st.pids[0] == 1 && st.pids[1] == 5 && !st.binary.present &&
	      st.nr_cpus == 0 && st.stack_before == 1 && st.tot_events == 0,
	      "values of the wrong type read as absent (%d pids, lost %lld)", st.nr_pids,
	      (long long)st.lost);
	trace_status_release(&st);
	/* a count past 2^63 saturates the reader's signed total */
	write_file(p, "{\"lost_events\": {\"total\": 18446744073709551615}}");
	trace_status_init(&st);
	CHECK(!trace_status_read(&st, p, 0) && st.lost == INT64_MAX &&
	      st.lost_events.total == UINT64_MAX, "lost_events.total of 2^64-1 reads saturated");
	trace_status_release(&st);
	unlink(p);
	rmdir(dir);
	free(p);
	return TEST_EXIT();
}
