// SPDX-License-Identifier: GPL-2.0
/*
 * devmap: drive the mmlock_nongpl test module (tests/qemu/guest/modules/
 * nongpl): mmap one page of /dev/mmlock_nongpl, ask the module to call
 * vm_flags_set() on that VMA N times (each from a new mmap_lock write
 * section, so vma_start_write() takes its slow path), unmap.
 *
 *   devmap [N]      prints "devmap: N vm_flags_set calls"; exit 0 on success
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MMLOCK_NONGPL_SET_FLAGS	0x4d01

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i, fd;
	void *p;

	fd = open("/dev/mmlock_nongpl", O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "devmap: /dev/mmlock_nongpl: %s\n", strerror(errno));
		return 1;
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "devmap: mmap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (ioctl(fd, MMLOCK_NONGPL_SET_FLAGS, (unsigned long)p) < 0) {
			fprintf(stderr, "devmap: ioctl %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	munmap(p, 4096);
	close(fd);
	printf("devmap: %d vm_flags_set calls\n", n);
	return 0;
}
