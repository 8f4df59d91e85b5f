// SPDX-License-Identifier: GPL-2.0
/*
 * maps-reader: a low-priority thread reads /proc/self/maps over and over
 * (mmap_read_lock, or per-VMA locks on newer kernels, held while it walks
 * many VMAs) beside a high-priority thread that mmaps and munmaps (write
 * lock): the high-priority writer waits for the low-priority reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct mr {
	long		vmas, reader_nice, writer_nice, writer_fifo, writer_pause_us;
	uint64_t	ran_us;
	char		*area;
	size_t		area_len;
	volatile int	stop;
	unsigned long	reads, bytes, writes, errors;
	uint64_t	write_sum_us, write_max_us;
	char		*error;
};

static const struct wl_param mr_params[] = {
	WL_PARAM(struct mr, vmas, "vmas", 2000, 1, 60000, "VMAs the reader walks"),
	WL_PARAM(struct mr, reader_nice, "reader-nice", 19, -20, 19, "nice of the maps reader"),
	WL_PARAM(struct mr, writer_nice, "writer-nice", -10, -20, 19, "nice of the mmap writer"),
	WL_PARAM(struct mr, writer_fifo, "writer-fifo", 0, 0, 99, "SCHED_FIFO priority of the writer (0: off)"),
	WL_PARAM(struct mr, writer_pause_us, "writer-pause-us", 500, 0, 10000000, "pause between two mmap/munmap calls"),
	{ NULL, 0, 0, 0, 0, NULL }
};

static void *maps_reader(void *arg)
{
	struct mr *m = arg;
	char buf[65536];
	ssize_t n;

	wl_set_priority((int)m->reader_nice, 0);
	while (!m->stop) {
		int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			__atomic_add_fetch(&m->errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			__atomic_add_fetch(&m->bytes, (unsigned long)n, __ATOMIC_RELAXED);
		close(fd);
		__atomic_add_fetch(&m->reads, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *maps_writer(void *arg)
{
	struct mr *m = arg;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);

	if (wl_set_priority((int)m->writer_nice, (int)m->writer_fifo))
		__atomic_add_fetch(&m->errors, 1, __ATOMIC_RELAXED);
	while (!m->stop) {
		uint64_t t0 = wl_now_us(), us;
		char *p = mmap(NULL, psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, psz);
		us = wl_now_us() - t0;
		m->writes++;
		m->write_sum_us += us;
		if (us > m->write_max_us)
			m->write_max_us = us;
		if (m->writer_pause_us)
			wl_sleep_us((uint64_t)m->writer_pause_us);
	}
	return NULL;
}

static int mr_run(void *priv, const struct workload_common *c)
{
	struct mr *m = priv;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	pthread_t r, w;
	long i;

	/* many VMAs: alternate protections so neighbours cannot merge */
	m->area_len = (size_t)m->vmas * psz;
	m->area = mmap(NULL, m->area_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->area == MAP_FAILED) {
		m->area = NULL;
		m->error = xasprintf("mmap of %ld pages: %s", m->vmas, strerror(errno));
		return -1;
	}
	for (i = 1; i < m->vmas; i += 2)
		mprotect(m->area + (size_t)i * psz, psz, PROT_READ | PROT_WRITE);
	if (pthread_create(&r, NULL, maps_reader, m)) {
		m->error = xasprintf("pthread_create failed");
		return -1;
	}
	if (pthread_create(&w, NULL, maps_writer, m)) {
		m->stop = 1;
		pthread_join(r, NULL);
		m->error = xasprintf("pthread_create failed");
		return -1;
	}
	m->ran_us = wl_drive(c->duration_us, NULL, 0, NULL, NULL, NULL);
	m->stop = 1;
	pthread_join(r, NULL);
	pthread_join(w, NULL);
	return 0;
}

static void mr_report(void *priv, json_object *out)
{
	struct mr *m = priv;
	json_object *r = json_object_new_object();
	uint64_t mean = m->writes ? m->write_sum_us / m->writes : 0;
	char *ev;

	json_object_object_add(r, "ran_ms", json_object_new_uint64(m->ran_us / 1000));
	json_object_object_add(r, "maps_reads", json_object_new_uint64(m->reads));
	json_object_object_add(r, "maps_bytes", json_object_new_uint64(m->bytes));
	json_object_object_add(r, "mmap_munmap_calls", json_object_new_uint64(m->writes));
	json_object_object_add(r, "mmap_munmap_mean_us", json_object_new_uint64(mean));
	json_object_object_add(r, "mmap_munmap_max_us", json_object_new_uint64(m->write_max_us));
	json_object_object_add(r, "errors", json_object_new_uint64(m->errors));
	json_object_object_add(out, "result", r);
	ev = xasprintf("%lu reads of /proc/self/maps (%ld VMAs) beside %lu mmap/munmap calls "
		       "(mean %llu us, max %llu us)", m->reads, m->vmas, m->writes,
		       (unsigned long long)mean, (unsigned long long)m->write_max_us);
	wl_output_contract(out, m->error ? "setup" : "ran to the end",
			   "low-priority maps reader against a high-priority mmap writer", ev,
			   m->errors ? "some priorities could not be set or opens failed" : "none",
			   m->error ? m->error : "none",
			   "compare the writer's mmap_lock waits with the reader's holds");
	free(ev);
}

static void mr_fini(void *priv)
{
	struct mr *m = priv;

	if (m->area)
		munmap(m->area, m->area_len);
	free(m->error);
}

const struct workload wl_maps_reader = {
	.name		= "maps-reader",
	.summary	= "a low-priority /proc/self/maps reader beside a high-priority mmap writer",
	.params		= mr_params,
	.size		= sizeof(struct mr),
	.run		= mr_run,
	.report		= mr_report,
	.fini		= mr_fini,
};
