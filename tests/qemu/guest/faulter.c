// SPDX-License-Identifier: GPL-2.0
/*
 * faulter: the workload of the in-guest tests (tests/qemu/guest/tests.sh).
 *
 *   faulter [-F] [-r READERS] [-s STRIDE_KB] [-m MAX_FAULTS] FILE
 *
 * Maps FILE MAP_PRIVATE read-only after dropping its page cache
 * (POSIX_FADV_DONTNEED), then READERS threads fault one byte every STRIDE_KB
 * (user-mode loads, so each is a page-cache miss served from the slow disk)
 * while a writer thread toggles the protection of the same VMA with mprotect
 * (vma_start_write on it) and forks now and then.  At the end it forks once
 * more and munmaps the VMA in two steps.  With -F the writer only forks, back
 * to back: fork's dup_mmap() write-locks the VMA with the killable writer
 * (refcount design), so a SIGKILL sent to the faulter mid-wait ends that wait
 * with -EINTR; "storm writer tid=N" names the thread to watch.  It prints
 * what the checks need:
 *
 *   map tgid=T vm_start=HEX vm_end=HEX ino=N dev=MAJ:MIN
 *   reader tid=N faults=N
 *   writer tid=N mprotects=N forks=N
 *   done
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *base;
static size_t len, stride = 1024 * 1024;
static int nreaders = 2, max_faults = 48, fork_storm;
static atomic_int readers_left;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void die(const char *what)
{
	fprintf(stderr, "faulter: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void out(const char *fmt, long a, long b, long c)
{
	pthread_mutex_lock(&out_lock);
	printf(fmt, a, b, c);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static int do_fork(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, NULL, 0) < 0)
		die("waitpid");
	return 1;
}

static void *reader(void *arg)
{
	long idx = (long)arg, faults = 0;
	volatile unsigned long sum = 0;

	for (size_t off = (size_t)idx * stride; off < len && faults < max_faults;
	     off += (size_t)nreaders * stride) {
		sum += *(volatile unsigned char *)(base + off);
		faults++;
	}
	out("reader tid=%ld faults=%ld sum=%ld\n", (long)syscall(SYS_gettid), faults, (long)(sum & 0xff));
	atomic_fetch_sub(&readers_left, 1);
	return NULL;
}

static void *writer(void *arg)
{
	long mprotects = 0, forks = 0;
	const struct timespec pause = { 0, 500 * 1000 };
	const struct timespec storm_pause = { 0, 60 * 1000 * 1000 };

	(void)arg;
	if (fork_storm)
		out("storm writer tid=%ld%.0ld%.0ld\n", (long)syscall(SYS_gettid), 0, 0);
	while (atomic_load(&readers_left) > 0) {
		if (fork_storm) {
			forks += do_fork();
			/*
			 * Faults that found the VMA write-locked hold mmap_lock
			 * across their I/O: let them end so that the next fork
			 * finds readers under the per-VMA lock again.
			 */
			nanosleep(&storm_pause, NULL);
			continue;
		}
		if (mprotect(base, len, PROT_READ | PROT_WRITE))
			die("mprotect rw");
		if (mprotect(base, len, PROT_READ))
			die("mprotect ro");
		mprotects += 2;
		if (mprotects % 40 == 0)
			forks += do_fork();
		nanosleep(&pause, NULL);
	}
	out("writer tid=%ld mprotects=%ld forks=%ld\n", (long)syscall(SYS_gettid), mprotects, forks);
	return NULL;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "Fr:s:m:")) != -1) {
		switch (c) {
		case 'F': fork_storm = 1; break;
		case 'r': nreaders = atoi(optarg); break;
		case 's': stride = (size_t)strtoul(optarg, NULL, 10) * 1024; break;
		case 'm': max_faults = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: faulter [-F] [-r READERS] [-s STRIDE_KB] [-m MAX_FAULTS] FILE\n");
			return 2;
		}
	}
	if (optind != argc - 1 || nreaders < 1 || nreaders > 64 || stride < 4096)
		return 2;

	int fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		die(argv[optind]);
	len = (size_t)st.st_size & ~(size_t)4095;
	if (len < stride)
		die("file too small");
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (errno)
		die("posix_fadvise");
	base = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED)
		die("mmap");
	printf("map tgid=%d vm_start=%lx vm_end=%lx ino=%lu dev=%u:%u\n", (int)getpid(),
	       (unsigned long)base, (unsigned long)base + len, (unsigned long)st.st_ino,
	       major(st.st_dev), minor(st.st_dev));
	fflush(stdout);

	pthread_t w, r[64];
	atomic_store(&readers_left, nreaders);
	if (pthread_create(&w, NULL, writer, NULL))
		die("pthread_create");
	for (long i = 0; i < nreaders; i++)
		if (pthread_create(&r[i], NULL, reader, (void *)i))
			die("pthread_create");
	for (int i = 0; i < nreaders; i++)
		pthread_join(r[i], NULL);
	pthread_join(w, NULL);

	do_fork();
	if (munmap(base + len / 2, len - len / 2) || munmap(base, len / 2))
		die("munmap");
	close(fd);
	printf("done\n");
	return 0;
}
