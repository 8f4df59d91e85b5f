// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-churn: threads mmap and munmap small anonymous regions in a loop
 * (each call takes mmap_lock for write) beside readers making random reads of
 * a mapped file.  Retried faults (VM_FAULT_RETRY after dropping the per-VMA
 * lock for I/O) then queue for mmap_lock behind the churners: Type-B.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct mc {
	long		pages, readers, churners, churn_pages, churn_pause_us, drop_period_ms;
	long		reader_nice, churner_nice;
	uint64_t	ran_us;
	struct wl_mapped_file f;
	struct wl_readers rd;
	volatile int	stop;
	unsigned long	cycles, errors, drops;
	struct wl_fault_meter faults;
	char		*error;
};

static const struct wl_param mc_params[] = {
	WL_PARAM(struct mc, pages, "pages", 2048, 1, 1L << 22, "pages in the file-backed VMA"),
	WL_PARAM(struct mc, readers, "readers", 2, 1, WL_MAX_THREADS, "random reader threads"),
	WL_PARAM(struct mc, churners, "churners", 1, 0, WL_MAX_THREADS, "mmap/munmap threads"),
	WL_PARAM(struct mc, churn_pages, "churn-pages", 16, 1, 1L << 20, "pages of each anonymous mapping"),
	WL_PARAM(struct mc, churn_pause_us, "churn-pause-us", 100, 0, 10000000, "pause between cycles"),
	WL_PARAM(struct mc, drop_period_ms, "drop-period-ms", 20, 0, 3600000, "evict PTEs and page cache this often"),
	WL_PARAM(struct mc, reader_nice, "reader-nice", 0, -20, 19, "nice of the readers"),
	WL_PARAM(struct mc, churner_nice, "churner-nice", 0, -20, 19, "nice of the churners"),
	{ NULL, 0, 0, 0, 0, NULL }
};

static void *churner(void *arg)
{
	struct mc *m = arg;
	size_t len = (size_t)m->churn_pages * (size_t)sysconf(_SC_PAGESIZE);

	wl_set_priority((int)m->churner_nice, 0);
	while (!m->stop) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			__atomic_add_fetch(&m->errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		p[0] = 1;
		munmap(p, len);
		__atomic_add_fetch(&m->cycles, 1, __ATOMIC_RELAXED);
		if (m->churn_pause_us)
			wl_sleep_us((uint64_t)m->churn_pause_us);
	}
	return NULL;
}

static int mc_run(void *priv, const struct workload_common *c)
{
	struct mc *m = priv;
	pthread_t t[WL_MAX_THREADS];
	int i, n = 0;

	if (wl_map_file(&m->f, c->dir, "mmap-churn.dat", (unsigned long)m->pages)) {
		m->error = xasprintf("cannot map a file of %ld pages in %s: %s", m->pages, c->dir,
				     strerror(errno));
		return -1;
	}
	m->rd = (struct wl_readers){ .f = &m->f, .n = (int)m->readers,
				     .nice_val = (int)m->reader_nice, .random = 1 };
	wl_fault_meter_start(&m->faults, m->f.fd);
	if (wl_readers_start(&m->rd))
		m->error = xasprintf("pthread_create failed");
	for (i = 0; !m->error && i < m->churners; i++, n++)
		if (pthread_create(&t[i], NULL, churner, m))
			m->error = xasprintf("pthread_create failed");
	if (!m->error)
		m->ran_us = wl_drive(c->duration_us, &m->f, (uint64_t)m->drop_period_ms * 1000,
				     NULL, NULL, &m->drops);
	m->stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	wl_readers_stop(&m->rd);
	wl_fault_meter_stop(&m->faults);
	return m->error ? -1 : 0;
}

static void mc_report(void *priv, json_object *out)
{
	struct mc *m = priv;
	json_object *r = json_object_new_object();
	char *ev;

	json_object_object_add(r, "ran_ms", json_object_new_uint64(m->ran_us / 1000));
	json_object_object_add(r, "mmap_munmap_cycles", json_object_new_uint64(m->cycles));
	json_object_object_add(r, "mmap_errors", json_object_new_uint64(m->errors));
	wl_fault_meter_report(&m->faults, r);
	json_object_object_add(r, "drops", json_object_new_uint64(m->drops));
	wl_readers_report(&m->rd, r);
	json_object_object_add(out, "result", r);
	ev = xasprintf("%lu mmap/munmap cycles by %ld churners beside %ld random readers with %ld "
		       "major faults", m->cycles, m->churners, m->readers, m->faults.majflt);
	wl_output_contract(out, m->error ? "setup" : "ran to the end",
			   "churners take mmap_lock for write; readers fault randomly", ev, "none",
			   m->error ? m->error : "none",
			   "look for Type-B pairs: retried faults queued behind the churners");
	free(ev);
}

static void mc_fini(void *priv)
{
	struct mc *m = priv;

	wl_unmap_file(&m->f);
	free(m->error);
}

const struct workload wl_mmap_churn = {
	.name		= "mmap-churn",
	.summary	= "mmap/munmap loop beside random reads of a mapped file",
	.params		= mc_params,
	.size		= sizeof(struct mc),
	.run		= mc_run,
	.report		= mc_report,
	.fini		= mc_fini,
};
