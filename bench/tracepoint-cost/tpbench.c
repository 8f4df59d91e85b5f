// SPDX-License-Identifier: GPL-2.0
/*
 * tpbench: one timed round of a microbenchmark, for bench/tracepoint-cost
 * (runs inside the QEMU guest).  Prints "ns_per_op=N ops=N".
 *
 *   tpbench filefault FILE PAGES ITERS   write faults on a MAP_PRIVATE mapping
 *                                        of a cached file: each is a COW fault
 *                                        that calls filemap_fault() under the
 *                                        per-VMA lock (filemap_fault_begin/end)
 *   tpbench anonfault PAGES ITERS        anonymous write faults (control:
 *                                        none of our events on this path)
 *   tpbench mprotect ITERS               mprotect toggling one VMA: mmap_lock
 *                                        write hold + vma_start_write events
 *   tpbench mmap ITERS                   mmap + first touch + munmap of a
 *                                        16-page anonymous mapping: the
 *                                        mmap_lock write path, a VMA write
 *                                        lock and one page fault per op
 * Map/unmap time is outside the timed part of the fault benchmarks.  With
 * TPBENCH_MARKER=<instance>/trace_marker set, every timed part is bracketed
 * by "tpbench-begin" / "tpbench-end" markers so that the script counts only
 * the events of the timed operations.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "tpbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int marker_fd = -1;

static void mark(const char *what)
{
	if (marker_fd >= 0 && write(marker_fd, what, strlen(what)) < 0)
		die("trace_marker");
}

static unsigned long long touch_pages(char *p, long pages)
{
	mark("tpbench-begin");
	unsigned long long t0 = now_ns();

	for (long i = 0; i < pages; i++)
		p[i * 4096] = 1;
	unsigned long long t = now_ns() - t0;
	mark("tpbench-end");
	return t;
}

int main(int argc, char **argv)
{
	unsigned long long ns = 0, ops = 0;
	const char *marker = getenv("TPBENCH_MARKER");

	if (marker && *marker && (marker_fd = open(marker, O_WRONLY | O_CLOEXEC)) < 0)
		die(marker);

	if (argc == 5 && !strcmp(argv[1], "filefault")) {
		long pages = atol(argv[3]), iters = atol(argv[4]);
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die(argv[2]);
		for (long it = 0; it < iters; it++) {
			char *p = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

			if (p == MAP_FAILED)
				die("mmap");
			/* the first fault prepares the anon_vma (mmap_lock path): untimed */
			p[0] = 1;
			ns += touch_pages(p + 4096, pages - 1);
			ops += (unsigned long long)pages - 1;
			munmap(p, (size_t)pages * 4096);
		}
	} else if (argc == 4 && !strcmp(argv[1], "anonfault")) {
		long pages = atol(argv[2]), iters = atol(argv[3]);

		for (long it = 0; it < iters; it++) {
			char *p = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				die("mmap");
			p[0] = 1;
			ns += touch_pages(p + 4096, pages - 1);
			ops += (unsigned long long)pages - 1;
			munmap(p, (size_t)pages * 4096);
		}
	} else if (argc == 3 && !strcmp(argv[1], "mprotect")) {
		long iters = atol(argv[2]);
		size_t len = 16 * 4096;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("mmap");
		memset(p, 1, len);
		mark("tpbench-begin");
		unsigned long long t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			if (mprotect(p, len, (i & 1) ? PROT_READ | PROT_WRITE : PROT_READ))
				die("mprotect");
		}
		ns = now_ns() - t0;
		mark("tpbench-end");
		ops = (unsigned long long)iters;
	} else if (argc == 3 && !strcmp(argv[1], "mmap")) {
		long iters = atol(argv[2]);
		size_t len = 16 * 4096;

		mark("tpbench-begin");
		unsigned long long t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				die("mmap");
			p[0] = 1;
			if (munmap(p, len))
				die("munmap");
		}
		ns = now_ns() - t0;
		mark("tpbench-end");
		ops = (unsigned long long)iters;
	} else {
		fprintf(stderr, "usage: tpbench filefault FILE PAGES ITERS | anonfault PAGES ITERS | mprotect ITERS | mmap ITERS\n");
		return 2;
	}
	if (!ops)
		return 2;
	printf("ns_per_op=%llu ops=%llu\n", ns / ops, ops);
	return 0;
}
