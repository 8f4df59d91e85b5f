// SPDX-License-Identifier: GPL-2.0
/*
 * Load for the collector tests and bench: mmap, touch, mprotect, munmap in a
 * loop, so every iteration takes mmap_lock for write three times (stock
 * mmap_lock_start_locking / acquire_returned / released events) and, on a
 * file mapped MAP_PRIVATE, takes a COW write fault (filemap:mm_filemap_fault).
 *
 *   load [-n ITERATIONS] [-t SECONDS] [-f FILE]
 * Stops after ITERATIONS (default 1000) or SECONDS, whichever is first;
 * prints the iterations done.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAP_LEN	(64 * 1024)

int main(int argc, char **argv)
{
	long iters = 1000, done, page = sysconf(_SC_PAGESIZE);
	double secs = 0, end = 0;
	const char *file = NULL;
	struct timespec ts;
	int c, fd = -1;

	while ((c = getopt(argc, argv, "n:t:f:")) != -1) {
		switch (c) {
		case 'n':
			iters = atol(optarg);
			break;
		case 't':
			secs = atof(optarg);
			iters = -1;
			break;
		case 'f':
			file = optarg;
			break;
		default:
			fprintf(stderr, "usage: load [-n ITERATIONS] [-t SECONDS] [-f FILE]\n");
			return 2;
		}
	}
	if (file) {
		fd = open(file, O_RDWR | O_CREAT, 0644);
		if (fd < 0 || ftruncate(fd, MAP_LEN)) {
			perror(file);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	for (done = 0; iters < 0 || done < iters; done++) {
		char *p;
		long off;

		p = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE,
			 fd >= 0 ? MAP_PRIVATE : MAP_PRIVATE | MAP_ANONYMOUS, fd, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		for (off = 0; off < MAP_LEN; off += 16 * page)
			p[off] = (char)done;
		mprotect(p, MAP_LEN / 2, PROT_READ);
		munmap(p, MAP_LEN);
		if (secs > 0 && !(done & 63)) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
				break;
		}
	}
	printf("%ld\n", done);
	return 0;
}
