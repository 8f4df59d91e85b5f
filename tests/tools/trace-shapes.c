// SPDX-License-Identifier: GPL-2.0
/*
 * trace-shapes: the adversarial trace shapes of issue 13 (after
 * ../shared/reviews/reliability/inputs/gen2.py), in version 2 of the
 * contract's text form, on standard output.
 *
 *   trace-shapes SHAPE N
 *
 *   sweep    one VMA writer wait that never ends, then N closed fault waits
 *            on its VMA and N closed writer waits on another (a closed list
 *            the open wait holds back: quadratic before)
 *   callers  N writer calls, each from a different caller function
 *   mm       one task, N stock mmap_lock waits each on its own mm
 *   pids     N tasks, each one complete fault (nothing left open)
 *   open     N tasks, each an open fault and fault wait (memory by design)
 *   longline N lines of 60 KB, each a run of ") [0] " (the CPU-bracket
 *            search was quadratic in a line's length)
 *   lost     N tasks with an open fault each, then N [LOST] markers of
 *            another CPU (every marker walked every task before)
 *   stock    the stock-event mode: one contended mmap_lock wait that never
 *            ends (it holds back every closed write interval), then N write
 *            holds by two writers, each with a contended read wait of
 *            another task inside it (N attributed waits)
 *   plain    N faults with waits, writers and pairs, the ordinary mix the
 *            others are compared with
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long ts = 100000000000ULL;	/* ns */

static void ev(const char *comm, int pid, int cpu, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void ev(const char *comm, int pid, int cpu, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%16s-%-7d [%03d] ..... %llu.%06llu: %s: ", comm, pid, cpu, ts / 1000000000ULL,
	       ts % 1000000000ULL / 1000, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#define COMMON	"tgid=%d prio=120 mm=00000000aaaa0001 "
#define FB	COMMON "vma=00000000bbbb0001 vm_start=7f0000000000 vm_end=7f0000100000 " \
		"address=%lx pgoff=1 dev=254:16 ino=12 lock=vma user_pc=55550000"
#define FWS	COMMON "vma=00000000bbbb0001 address=7f0000001000 reason=folio_lock lock=vma"
#define FWE	FWS " waited_ns=4000 err=0"
#define FE	COMMON "vma=00000000bbbb0001 address=7f0000001000 ret=MAJOR major=true " \
		"lock_dropped=false"
#define VB	COMMON "vma=%s vm_start=7f0000000000 vm_end=7f0000100000 flags=8100073 " \
		"anon=false dev=254:16 ino=12 caller=%s+0x1c4/0x2f0 user_pc=55550010"
#define VWS	COMMON "vma=%s vm_start=7f0000000000 vm_end=7f0000100000 readers=-1 detach=false"
#define VWE	COMMON "vma=%s vm_start=7f0000000000 vm_end=7f0000100000 waited_ns=1000 err=0"
#define VD	COMMON "vma=%s vm_start=7f0000000000 vm_end=7f0000100000"

int main(int argc, char **argv)
{
	const char *shape;
	long n, i;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: trace-shapes SHAPE N\n");
		return 2;
	}
	shape = argv[1];
	if (!strcmp(shape, "sweep")) {
		ev("w", 1, 1, "vma_start_write_begin", VB, 100, "00000000bbbb0001", "mprotect_fixup");
		ts += 1000;
		ev("w", 1, 1, "vma_start_write_wait_start", VWS, 100, "00000000bbbb0001");
		for (i = 0; i < n; i++) {
			ts += 10000;
			ev("r", 2, 0, "filemap_fault_begin", FB, 2, 0x7f0000001000UL + 4096 * (i % 1000));
			ts += 1000;
			ev("r", 2, 0, "filemap_fault_wait_start", FWS, 2);
			ts += 4000;
			ev("r", 2, 0, "filemap_fault_wait_end", FWE, 2);
			ts += 1000;
			ev("r", 2, 0, "filemap_fault_end", FE, 2);
		}
		for (i = 0; i < n; i++) {
			ts += 10000;
			ev("w", 3, 2, "vma_start_write_begin", VB, 100, "00000000cccc0001", "mprotect_fixup");
			ts += 1000;
			ev("w", 3, 2, "vma_start_write_wait_start", VWS, 100, "00000000cccc0001");
			ts += 1000;
			ev("w", 3, 2, "vma_start_write_wait_end", VWE, 100, "00000000cccc0001");
			ts += 1000;
			ev("w", 3, 2, "vma_start_write_done", VD, 100, "00000000cccc0001");
		}
	} else if (!strcmp(shape, "callers")) {
		for (i = 0; i < n; i++) {
			char caller[32];

			snprintf(caller, sizeof(caller), "f%ld", i);
			ts += 10000;
			ev("w", 7, 0, "vma_start_write_begin", VB, 100, "00000000bbbb0001", caller);
			ts += 1000;
			ev("w", 7, 0, "vma_start_write_done", VD, 100, "00000000bbbb0001");
		}
	} else if (!strcmp(shape, "mm")) {
		for (i = 0; i < n; i++) {
			ts += 10000;
			ev("r", 5, 0, "mmap_lock_start_locking", "mm=%016lx memcg_id=0 write=false",
			   0x1000L + i);
		}
	} else if (!strcmp(shape, "pids") || !strcmp(shape, "open") || !strcmp(shape, "lost")) {
		int open = strcmp(shape, "pids") != 0;

		for (i = 0; i < n; i++) {
			int pid = 10000 + (int)i;

			ts += 10000;
			ev("r", pid, 0, "filemap_fault_begin", FB, 100, 0x7f0000001000UL);
			ts += 1000;
			if (open)
				ev("r", pid, 0, "filemap_fault_wait_start", FWS, 100);
			else
				ev("r", pid, 0, "filemap_fault_end", FE, 100);
		}
		for (i = 0; !strcmp(shape, "lost") && i < n; i++)
			printf("CPU:1 [LOST 1 EVENTS]\n");
	} else if (!strcmp(shape, "longline")) {
		for (i = 0; i < n; i++) {
			int k;

			for (k = 0; k < 10000; k++)
				fputs(") [0] ", stdout);
			putchar('\n');
		}
	} else if (!strcmp(shape, "stock")) {
#define SMM	"mm=00000000aaaa0001 memcg_id=8054 "
		ev("z", 9, 3, "mmap_lock_start_locking", SMM "write=false");
		ts += 1000;
		ev("z", 9, 3, "contention_begin", "00000000c0c0c0c0 (flags=READ)");
		for (i = 0; i < n; i++) {
			int r = 200 + (int)(i % 4), w = 300 + (int)(i % 2);

			ts += 10000;
			ev("w", w, 1, "mmap_lock_start_locking", SMM "write=true");
			ts += 1000;
			ev("w", w, 1, "mmap_lock_acquire_returned", SMM "write=true success=true");
			ts += 1000;
			ev("r", r, 0, "mmap_lock_start_locking", SMM "write=false");
			ts += 500;
			ev("r", r, 0, "contention_begin", "00000000c0c0c0c0 (flags=READ)");
			ts += 3000;
			ev("w", w, 1, "mmap_lock_released", SMM "write=true");
			ts += 500;
			ev("r", r, 0, "contention_end", "00000000c0c0c0c0 (ret=0)");
			ts += 500;
			ev("r", r, 0, "mmap_lock_acquire_returned", SMM "write=false success=true");
			ts += 500;
			ev("r", r, 0, "mmap_lock_released", SMM "write=false");
		}
	} else if (!strcmp(shape, "plain")) {
		for (i = 0; i < n; i++) {
			int r = 200 + (int)(i % 8), w = 300 + (int)(i % 4);

			ts += 10000;
			ev("r", r, 0, "filemap_fault_begin", FB, 100, 0x7f0000001000UL + 4096 * (i % 64));
			ts += 1000;
			ev("r", r, 0, "filemap_fault_wait_start", FWS, 100);
			ts += 500;
			ev("w", w, 1, "vma_start_write_begin", VB, 100, "00000000bbbb0001", "mprotect_fixup");
			ts += 500;
			ev("w", w, 1, "vma_start_write_wait_start", VWS, 100, "00000000bbbb0001");
			ts += 3000;
			ev("r", r, 0, "filemap_fault_wait_end", FWE, 100);
			ts += 500;
			ev("w", w, 1, "vma_start_write_wait_end", VWE, 100, "00000000bbbb0001");
			ts += 500;
			ev("w", w, 1, "vma_start_write_done", VD, 100, "00000000bbbb0001");
			ts += 500;
			ev("r", r, 0, "filemap_fault_end", FE, 100);
		}
	} else {
		fprintf(stderr, "trace-shapes: unknown shape '%s'\n", shape);
		return 2;
	}
	return ferror(stdout) ? 1 : 0;
}
