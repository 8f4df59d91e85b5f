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
	int		vmas, reader_nice, writer_nice, writer_fifo;
	uint64_t	writer_pause_us, ran_us;
	char		*area;
	size_t		area_len;
	volatile int	stop;
	unsigned long	reads, bytes, writes, errors;
	uint64_t	write_sum_us, write_max_us;
	char		*error;
};

enum { O_VMAS = 1300, O_RNICE, O_WNICE, O_WFIFO, O_WPAUSE };

static const struct option mr_options[] = {
	{ "vmas",		required_argument, NULL, O_VMAS },
	{ "reader-nice",	required_argument, NULL, O_RNICE },
	{ "writer-nice",	required_argument, NULL, O_WNICE },
	{ "writer-fifo",	required_argument, NULL, O_WFIFO },
	{ "writer-pause-us",	required_argument, NULL, O_WPAUSE },
	{ NULL, 0, NULL, 0 }
};

static void *mr_init(void)
{
	struct mr *m = xcalloc(1, sizeof(*m));

	m->vmas = 2000;
	m->reader_nice = 19;
	m->writer_nice = -10;
	m->writer_pause_us = 500;
	return m;
}

static int mr_parse(void *priv, int opt, const char *arg)
{
	struct mr *m = priv;
	long n;

	switch (opt) {
	case O_VMAS:
		if (wl_parse_long(arg, 1, 60000, &n))
			return -1;
		m->vmas = (int)n;
		return 0;
	case O_RNICE:
	case O_WNICE:
		if (wl_parse_long(arg, -20, 19, &n))
			return -1;
		*(opt == O_RNICE ? &m->reader_nice : &m->writer_nice) = (int)n;
		return 0;
	case O_WFIFO:
		if (wl_parse_long(arg, 0, 99, &n))
			return -1;
		m->writer_fifo = (int)n;
		return 0;
	case O_WPAUSE:
		if (wl_parse_long(arg, 0, 10000000, &n))
			return -1;
		m->writer_pause_us = (uint64_t)n;
		return 0;
	}
	return -1;
}

static void *maps_reader(void *arg)
{
	struct mr *m = arg;
	char buf[65536];
	ssize_t n;

	wl_set_priority(m->reader_nice, 0);
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

	if (wl_set_priority(m->writer_nice, m->writer_fifo))
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
			wl_sleep_us(m->writer_pause_us);
	}
	return NULL;
}

static int mr_run(void *priv, const struct workload_common *c)
{
	struct mr *m = priv;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	pthread_t r, w;
	int i;

	/* many VMAs: alternate protections so neighbours cannot merge */
	m->area_len = (size_t)m->vmas * psz;
	m->area = mmap(NULL, m->area_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->area == MAP_FAILED) {
		m->area = NULL;
		m->error = xasprintf("mmap of %d pages: %s", m->vmas, strerror(errno));
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
	json_object *p = json_object_new_object(), *r = json_object_new_object();
	uint64_t mean = m->writes ? m->write_sum_us / m->writes : 0;
	char *ev;

	json_object_object_add(p, "vmas", json_object_new_int(m->vmas));
	json_object_object_add(p, "reader_nice", json_object_new_int(m->reader_nice));
	json_object_object_add(p, "writer_nice", json_object_new_int(m->writer_nice));
	json_object_object_add(p, "writer_fifo", json_object_new_int(m->writer_fifo));
	json_object_object_add(p, "writer_pause_us", json_object_new_uint64(m->writer_pause_us));
	json_object_object_add(out, "parameters", p);
	json_object_object_add(r, "ran_ms", json_object_new_uint64(m->ran_us / 1000));
	json_object_object_add(r, "maps_reads", json_object_new_uint64(m->reads));
	json_object_object_add(r, "maps_bytes", json_object_new_uint64(m->bytes));
	json_object_object_add(r, "mmap_munmap_calls", json_object_new_uint64(m->writes));
	json_object_object_add(r, "mmap_munmap_mean_us", json_object_new_uint64(mean));
	json_object_object_add(r, "mmap_munmap_max_us", json_object_new_uint64(m->write_max_us));
	json_object_object_add(r, "errors", json_object_new_uint64(m->errors));
	json_object_object_add(out, "result", r);
	ev = xasprintf("%lu reads of /proc/self/maps (%d VMAs) beside %lu mmap/munmap calls "
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
	free(m);
}

const struct workload wl_maps_reader = {
	.name		= "maps-reader",
	.summary	= "a low-priority /proc/self/maps reader beside a high-priority mmap writer",
	.options	= mr_options,
	.help		=
"  --vmas N              VMAs the reader walks (2000)\n"
"  --reader-nice N       (19)    --writer-nice N (-10)   --writer-fifo P (off)\n"
"  --writer-pause-us N   pause between two mmap/munmap calls (500)\n",
	.init		= mr_init,
	.parse		= mr_parse,
	.run		= mr_run,
	.report		= mr_report,
	.fini		= mr_fini,
};
