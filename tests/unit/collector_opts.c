// SPDX-License-Identifier: GPL-2.0
/*
 * `mmlock record` option parsing, filter specs, closest-name suggestions and
 * the per-CPU stats parser: the pure parts of the collector.
 */
#include <stdlib.h>
#include <string.h>

#include "collector/collector.h"
#include "test.h"

static int parse(struct record_opts *o, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return record_parse_args(argc, argv, o);
}

static void test_args(void)
{
	struct record_opts o;
	char *a1[] = { "record", "-o", "out", "-e", "sched_switch,mmap_lock:mmap_lock_released",
		       "-F", "mmap_lock_released:write == 1", "--filter",
		       "mmap_lock:mmap_lock_released:common_pid != 0", "--stack",
		       "mmap_lock_released", "-b", "8M", "--chunk-lines", "1000",
		       "--chunk-bytes", "1M", "--chunk-seconds", "30s", "-z", "zstd",
		       "--duration", "500ms", "--", "sleep", "1", NULL };
	char *a2[] = { "record", "-o", "out", NULL };
	char *a3[] = { "record", "-e", "x", NULL };
	char *a4[] = { "record", "-o", "o", "--compress", "lz4", NULL };
	char *a5[] = { "record", "-o", "o", "--stdin", "--binary", NULL };
	char *a6[] = { "record", "-o", "o", "--tgid", "12", "--", "ls", NULL };
	char *a7[] = { "record", "-o", "o", "--filter", "noexpr", NULL };
	char *a8[] = { "record", "-o", "o", "-b", "1", NULL };
	char *a9[] = { "record", "--help", NULL };
	int rc;

	rc = parse(&o, a1);
	CHECK(rc == 0, "a full command line parses");
	CHECK(o.nr_events == 2 && !strcmp(o.events[1], "mmap_lock:mmap_lock_released"),
	      "-e splits at commas");
	CHECK(o.nr_filters == 2 && !strcmp(o.filters[0].event, "mmap_lock_released") &&
	      !strcmp(o.filters[0].expr, "write == 1"), "--filter EVENT:EXPR");
	CHECK(o.nr_filters == 2 && !strcmp(o.filters[1].event, "mmap_lock:mmap_lock_released") &&
	      !strcmp(o.filters[1].expr, "common_pid != 0"), "--filter SYSTEM:EVENT:EXPR");
	CHECK(o.nr_stacks == 1 && o.buffer_kb == 8192, "--stack and --buffer-size (KB per CPU)");
	CHECK(o.limits.lines == 1000 && o.limits.bytes == 1 << 20 && o.limits.usecs == 30000000,
	      "chunk limits");
	CHECK(o.compress == CHUNK_ZSTD && o.duration_us == 500000, "--compress and --duration");
	CHECK(o.nr_cmd == 2 && !strcmp(o.cmd[0], "sleep"), "-- COMMAND ARGS");
	record_opts_release(&o);

	rc = parse(&o, a2);
	CHECK(rc == 0 && o.compress == CHUNK_GZIP && o.level == 1 &&
	      !strcmp(o.clock, "mono") && o.buffer_kb == 4096 && !o.cmd,
	      "defaults: gzip level 1, clock mono, 4M per CPU");
	CHECK(rc == 0 && o.binary, "default capture: per-CPU raw pages (lossless at high rates)");
	record_opts_release(&o);
	{
		char *t1[] = { "record", "-o", "o", "--text", NULL };
		char *t2[] = { "record", "-o", "o", "--chunk-lines", "10", NULL };
		char *t3[] = { "record", "-o", "o", "--stdin", NULL };
		char *t4[] = { "record", "-o", "o", "--text", "--binary", NULL };
		char *t5[] = { "record", "-o", "o", "--binary", "-z", "none", NULL };

		rc = parse(&o, t1);
		CHECK(rc == 0 && !o.binary, "--text: text chunks");
		record_opts_release(&o);
		rc = parse(&o, t2);
		CHECK(rc == 0 && !o.binary, "an option of text chunks (--chunk-lines) chooses text");
		record_opts_release(&o);
		rc = parse(&o, t3);
		CHECK(rc == 0 && !o.binary, "--stdin is text");
		record_opts_release(&o);
		rc = parse(&o, t4);
		CHECK(rc == -1, "--text with --binary is refused");
		record_opts_release(&o);
		rc = parse(&o, t5);
		CHECK(rc == 0 && o.binary, "--binary stays binary beside -z");
		record_opts_release(&o);
	}
	rc = parse(&o, a3);
	CHECK(rc == -1, "no -o is refused");
	record_opts_release(&o);
	rc = parse(&o, a4);
	CHECK(rc == -1, "unknown compression is refused");
	record_opts_release(&o);
	rc = parse(&o, a5);
	CHECK(rc == -1, "--stdin with --binary is refused");
	record_opts_release(&o);
	rc = parse(&o, a6);
	CHECK(rc == -1, "--tgid with a COMMAND is refused");
	record_opts_release(&o);
	rc = parse(&o, a7);
	CHECK(rc == -1, "a filter without an event is refused");
	record_opts_release(&o);
	rc = parse(&o, a8);
	CHECK(rc == -1, "a buffer under 4K is refused");
	record_opts_release(&o);
	rc = parse(&o, a9);
	CHECK(rc == 0 && o.help, "--help");
	record_opts_release(&o);
	{
		char *s1[] = { "record", "-o", "o", "--source", "module", NULL };
		char *s2[] = { "record", "-o", "o", "--source", "modules", NULL };
		char *s3[] = { "record", "-o", "o", "--source", "stock", "-e", "x", NULL };
		char *s4[] = { "record", "-o", "o", "--source", "stock", "-e", "x,default", NULL };
		char *s5[] = { "record", "--dry-run", NULL };
		char *s6[] = { "record", "--dry-run", "--", "ls", NULL };
		char *s7[] = { "record", "-o", "o", "--stdin", "--source", "kernel", NULL };

		rc = parse(&o, s1);
		CHECK(rc == 0 && o.source == 2 && !o.dry_run, "--source module");
		record_opts_release(&o);
		rc = parse(&o, s2);
		CHECK(rc == -1, "--source modules is refused");
		record_opts_release(&o);
		rc = parse(&o, s3);
		CHECK(rc == -1, "--source with -e and no default is refused");
		record_opts_release(&o);
		rc = parse(&o, s4);
		CHECK(rc == 0 && o.source == 3, "--source with -e ...,default");
		record_opts_release(&o);
		rc = parse(&o, s5);
		CHECK(rc == 0 && o.dry_run && !o.output, "--dry-run needs no -o");
		record_opts_release(&o);
		rc = parse(&o, s6);
		CHECK(rc == -1, "--dry-run with a COMMAND is refused");
		record_opts_release(&o);
		rc = parse(&o, s7);
		CHECK(rc == 0 && o.use_stdin && o.source == 1, "--stdin --source names the producer's set");
		record_opts_release(&o);
	}
}

static void test_filter_split(void)
{
	char *ev = NULL, *ex = NULL;
	int rc;

	rc = filter_spec_split("sched_switch:prev_pid == 1", &ev, &ex);
	CHECK(rc == 0 &&
	      !strcmp(ev, "sched_switch") && !strcmp(ex, "prev_pid == 1"), "name:expr");
	free(ev);
	free(ex);
	rc = filter_spec_split("sched:sched_switch: prev_comm ~ \"a:b*\"", &ev, &ex);
	CHECK(rc == 0 &&
	      !strcmp(ev, "sched:sched_switch") && !strcmp(ex, "prev_comm ~ \"a:b*\""),
	      "system:name:expr with a colon inside the expression");
	free(ev);
	free(ex);
	rc = filter_spec_split("x:comm == \"a:b\"", &ev, &ex);
	CHECK(rc == 0 && !strcmp(ev, "x") &&
	      !strcmp(ex, "comm == \"a:b\""), "a colon in a string is not a system");
	free(ev);
	free(ex);
	CHECK(filter_spec_split("sched_switch:", &ev, &ex) == -1, "empty expression refused");
	CHECK(filter_spec_split("prev_pid == 1", &ev, &ex) == -1, "missing event refused");
}

static void test_suggest(void)
{
	char *names[] = { "sched:sched_switch", "sched:sched_wakeup", "mmap_lock:mmap_lock_released",
			  "mmap_lock:mmap_lock_start_locking", "filemap:mm_filemap_fault" };
	const char *out[3];
	size_t n;

	CHECK(edit_distance("kitten", "sitting") == 3 && edit_distance("", "ab") == 2 &&
	      edit_distance("same", "same") == 0, "edit distance");
	n = closest_names("sched_swich", names, 5, out, 3);
	CHECK(n >= 1 && !strcmp(out[0], "sched:sched_switch"), "typo suggests the real name");
	n = closest_names("mmap_lock_start", names, 5, out, 3);
	CHECK(n >= 1 && !strcmp(out[0], "mmap_lock:mmap_lock_start_locking"),
	      "a prefix suggests the full name");
	n = closest_names("zzzzzzzz", names, 5, out, 3);
	CHECK(n == 0, "nothing close, nothing suggested");
	n = closest_names("sched:sched_wakup", names, 5, out, 3);
	CHECK(n >= 1 && !strcmp(out[0], "sched:sched_wakeup"), "system:name compared whole");
}

static void test_stats(void)
{
	const char *text = "entries: 12\noverrun: 3\ncommit overrun: 1\nbytes: 4096\n"
			   "oldest event ts:   486.346969\nnow ts:   486.361385\n"
			   "dropped events: 7\nread events: 1000\n";
	struct cpu_stats st;

	CHECK(cpu_stats_parse(text, &st) == 0 && st.entries == 12 && st.overrun == 3 &&
	      st.commit_overrun == 1 && st.bytes == 4096 && st.dropped == 7 && st.read == 1000 &&
	      st.valid, "per_cpu stats parsed");
	CHECK(cpu_stats_parse("bytes: 1\n", &st) == -1, "stats without entries/overrun refused");
}

int main(void)
{
	test_args();
	test_filter_split();
	test_suggest();
	test_stats();
	return TEST_EXIT();
}
