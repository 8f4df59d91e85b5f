// SPDX-License-Identifier: GPL-2.0
/*
 * The filter grammar of capture/filter.c: what the collector writes into
 * trace.status and a device recipe sets on the events is what `mmlock run`
 * reads back as the processes kept.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "test.h"
#include "tracestatus.h"

static int same(const int64_t *got, size_t n, const int64_t *want, size_t nw)
{
	return n == nw && (!n || !memcmp(got, want, n * sizeof(*got)));
}

int main(void)
{
	static const int pids[] = { 4242, 17, 2147483647 };
	static const int tgids[] = { 300, 301 };
	struct ts_event ev[] = {
		{ .name = "mmlock:filemap_fault_begin", .filter = NULL },
		{ .name = "mmlock:vma_start_write_begin", .filter = "tgid == 300 || tgid == 301" },
	};
	int64_t got[8];
	char *line, *f;
	size_t n;

	line = trace_filter_line(pids, 3, 1, ev, 2);
	CHECK(line && !strcmp(line, "set_event_pid 4242 17 2147483647 (+event-fork); "
			       "mmlock:vma_start_write_begin: tgid == 300 || tgid == 301"),
	      "the filter line: pids, event-fork, then each filtered event ('%s')", line);
	n = trace_filter_pids(line, got, 8);
	CHECK(same(got, n, (const int64_t[]){ 4242, 17, 2147483647, 300, 301 }, 5),
	      "its pids read back: set_event_pid's, then each tgid == N (%zu)", n);
	n = trace_filter_pids(line, got, 2);
	CHECK(n == 2 && got[0] == 4242 && got[1] == 17, "never more than the room given (%zu)", n);
	free(line);

	CHECK(!trace_filter_line(NULL, 0, 1, ev, 1), "nothing filtered: no line");
	f = trace_filter_tgids(tgids, 2);
	CHECK(!strcmp(f, "tgid == 300 || tgid == 301"), "the event filter of two processes ('%s')", f);
	n = trace_filter_pids(f, got, 8);
	CHECK(same(got, n, (const int64_t[]){ 300, 301 }, 2), "read back from the event filter alone");
	free(f);
	f = trace_filter_tgids(NULL, 0);
	CHECK(f && !*f, "no process: an empty filter");
	free(f);

	n = trace_filter_pids("set_event_pid 12x 13", got, 8);
	CHECK(n == 0, "a malformed number ends set_event_pid's list (%zu)", n);
	n = trace_filter_pids("mmlock:x: tgid == ; tgid == 9", got, 8);
	CHECK(n == 1 && got[0] == 9, "a tgid test without a number is skipped (%zu)", n);
	return TEST_EXIT();
}
