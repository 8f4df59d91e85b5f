// SPDX-License-Identifier: GPL-2.0
/*
 * accerr: one fault that the VMA refuses, for the in-guest tests.
 *
 * Writes a fresh anonymous page (its first fault finds no anon_vma), makes it
 * read-only and writes again: the second fault is an access error.  Linux 6.1
 * (android14-6.1) handles the first under mmap_lock after the per-VMA lock
 * refused it (anon_no_anon_vma) and falls back to mmap_lock for the second
 * (access_error); later kernels take both under the per-VMA lock and send the
 * access error straight to SIGSEGV.  Prints "map tgid=T vm_start=HEX
 * vm_end=HEX ino=0 dev=0:0" and "segv=1" when the write was refused.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf refused;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(refused, 1);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa = { .sa_handler = on_segv };
	volatile int segv = 0;

	if (p == MAP_FAILED || sigaction(SIGSEGV, &sa, NULL)) {
		perror("accerr");
		return 1;
	}
	printf("map tgid=%d vm_start=%lx vm_end=%lx ino=0 dev=0:0\n", (int)getpid(),
	       (unsigned long)p, (unsigned long)p + (unsigned long)page);
	p[0] = 1;
	if (mprotect((void *)p, (size_t)page, PROT_READ)) {
		perror("mprotect");
		return 1;
	}
	if (sigsetjmp(refused, 1))
		segv = 1;
	else
		p[1] = 1;
	printf("segv=%d\n", segv);
	return segv ? 0 : 1;
}
