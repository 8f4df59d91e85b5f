// SPDX-License-Identifier: GPL-2.0
/*
 * seqread: the fault accounting of a sequential mmap read of a file that was
 * cached and then evicted (tests/qemu/guest/tests.sh runs it under each
 * fault policy).
 *
 *   seqread FILE MIB
 *
 * Reads the first MIB MiB of FILE with read() (cached), evicts them with
 * POSIX_FADV_DONTNEED, maps them read-only and touches one byte per page in
 * order.  Prints "seqread maj=N min=N mib=M faults_per_mib=F" with the
 * getrusage() fault counts of the touching pass alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static int die(const char *what)
{
	fprintf(stderr, "seqread: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	struct rusage r0, r1;
	volatile unsigned long sum = 0;
	size_t len, off;
	long mib;
	char *p;
	int fd;

	if (argc != 3 || (mib = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: seqread FILE MIB\n");
		return 2;
	}
	len = (size_t)mib << 20;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return die(argv[1]);
	for (off = 0; off < len; off += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), (off_t)off) <= 0)
			return die("pread");
	if (posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED))
		return die("posix_fadvise");
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return die("mmap");
	if (getrusage(RUSAGE_SELF, &r0))
		return die("getrusage");
	for (off = 0; off < len; off += 4096)
		sum += (unsigned char)p[off];
	if (getrusage(RUSAGE_SELF, &r1))
		return die("getrusage");
	printf("seqread maj=%ld min=%ld mib=%ld faults_per_mib=%.2f\n",
	       r1.ru_majflt - r0.ru_majflt, r1.ru_minflt - r0.ru_minflt, mib,
	       (double)(r1.ru_majflt - r0.ru_majflt + r1.ru_minflt - r0.ru_minflt) / (double)mib);
	munmap(p, len);
	close(fd);
	return 0;
}
