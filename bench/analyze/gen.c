// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a synthetic trace of about SIZE bytes to standard output: readers
 * faulting with I/O waits and retries, writers taking the VMA and mmap_lock,
 * so that every code path of the analyzer runs, with pairs all along.
 *     gen SIZE_BYTES [SEED]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define MM	"00000000aaaa0001"
#define VMA	"00000000bbbb0001"

static uint64_t ts = 1000000;	/* µs */
static unsigned long long bytes;

static void line(int pid, const char *comm, int prio, const char *event, const char *fmt,
		 const char *arg)
{
	int n = printf("%16s-%-7d [%03d] ..... %6" PRIu64 ".%06" PRIu64 ": %s: pid=%d tgid=100 "
		       "prio=%d mm=" MM " ", comm, pid, pid % 2, ts / 1000000, ts % 1000000,
		       event, pid, prio);

	n += printf(fmt, arg);
	n += printf("\n");
	bytes += (unsigned long long)n;
}

int main(int argc, char **argv)
{
	unsigned long long target;
	unsigned int seed;
	char addr[32];

	if (argc < 2) {
		fprintf(stderr, "usage: gen SIZE_BYTES [SEED]\n");
		return 2;
	}
	target = strtoull(argv[1], NULL, 10);
	seed = argc > 2 ? (unsigned int)atoi(argv[2]) : 1;
	srand(seed);
	while (bytes < target) {
		int r = 101 + rand() % 4, w = 201 + rand() % 2, io = 50 + rand() % 400;

		snprintf(addr, sizeof(addr), "7f00000%05x", (rand() % 4096) << 4);
		line(r, "reader", 120, "filemap_fault_begin", "vma=" VMA " vm_start=7f0000000000 "
		     "vm_end=7f0010000000 address=%s pgoff=1 dev=254:16 ino=12 lock=vma user_pc=0",
		     addr);
		ts += 2;
		line(r, "reader", 120, "filemap_fault_wait_start", "vma=" VMA " address=%s "
		     "reason=folio_lock lock=vma", addr);
		ts += 10;
		line(w, "writer", 100, "vma_start_write_begin", "vma=" VMA " vm_start=7f0000000000 "
		     "vm_end=7f0010000000 flags=8100073 anon=0 dev=254:16 ino=12 "
		     "caller=%s user_pc=0", "mprotect_fixup+0x1c4/0x2f0");
		line(w, "writer", 100, "vma_start_write_wait_start", "vma=" VMA " vm_start=7f0000000000 "
		     "vm_end=7f0010000000 readers=-1 detach=%s", "0");
		ts += (uint64_t)io;
		line(r, "reader", 120, "filemap_fault_wait_end", "vma=" VMA " address=%s "
		     "reason=folio_lock lock=vma waited_ns=1000 err=0", addr);
		line(w, "writer", 100, "vma_start_write_wait_end", "vma=" VMA " vm_start=7f0000000000 "
		     "vm_end=7f0010000000 waited_ns=1000 err=%s", "0");
		line(w, "writer", 100, "vma_start_write_done", "vma=" VMA " vm_start=7f0000000000 "
		     "vm_end=%s", "7f0010000000");
		ts += 3;
		line(w, "writer", 100, "mmap_lock_hold_start", "write=%s", "1");
		if (rand() % 2) {
			line(r, "reader", 120, "filemap_fault_retry", "vma=" VMA " address=%s "
			     "reason=drop_sync_ra ret=MAJOR|RETRY", addr);
			line(r, "reader", 120, "filemap_fault_end", "vma=" VMA " address=%s "
			     "ret=MAJOR|RETRY major=1 lock_dropped=1", addr);
			line(r, "reader", 120, "fault_mmap_lock_fallback", "address=%s reason=retry "
			     "fault=MAJOR|RETRY", addr);
			line(r, "reader", 120, "mmap_lock_wait_start", "write=0 caller=%s",
			     "lock_mm_and_find_vma+0x3a/0x140");
			ts += 20;
			line(w, "writer", 100, "mmap_lock_hold_end", "write=%s", "1");
			line(r, "reader", 120, "mmap_lock_wait_end", "write=0 success=1 waited_ns=%s",
			     "20000");
			line(r, "reader", 120, "mmap_lock_hold_start", "write=%s", "0");
			ts += 1;
			line(r, "reader", 120, "filemap_fault_begin", "vma=" VMA " vm_start=7f0000000000 "
			     "vm_end=7f0010000000 address=%s pgoff=1 dev=254:16 ino=12 lock=mmap "
			     "user_pc=0", addr);
			line(r, "reader", 120, "filemap_fault_end", "vma=" VMA " address=%s ret=LOCKED "
			     "major=0 lock_dropped=0", addr);
			line(r, "reader", 120, "mmap_lock_hold_end", "write=%s", "0");
		} else {
			ts += 20;
			line(w, "writer", 100, "mmap_lock_hold_end", "write=%s", "1");
			line(r, "reader", 120, "filemap_fault_end", "vma=" VMA " address=%s "
			     "ret=MAJOR|LOCKED major=1 lock_dropped=0", addr);
		}
		ts += (uint64_t)(rand() % 50);
	}
	return ferror(stdout) ? 1 : 0;
}
