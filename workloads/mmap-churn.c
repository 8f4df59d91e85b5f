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
#include <sys/resource.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct mc {
	unsigned long	pages, churn_pages;
	int		readers, churners, reader_nice, churner_nice;
	uint64_t	drop_period_us, churn_pause_us, ran_us;
	struct wl_mapped_file f;
	struct wl_readers rd;
	volatile int	stop;
	unsigned long	cycles, errors, drops;
	long		majflt;
	char		*error;
};

enum { O_PAGES = 1200, O_READERS, O_CHURNERS, O_CHURN_PAGES, O_PAUSE, O_DROP, O_RNICE, O_CNICE };

static const struct option mc_options[] = {
	{ "pages",		required_argument, NULL, O_PAGES },
	{ "readers",		required_argument, NULL, O_READERS },
	{ "churners",		required_argument, NULL, O_CHURNERS },
	{ "churn-pages",	required_argument, NULL, O_CHURN_PAGES },
	{ "churn-pause-us",	required_argument, NULL, O_PAUSE },
	{ "drop-period-ms",	required_argument, NULL, O_DROP },
	{ "reader-nice",	required_argument, NULL, O_RNICE },
	{ "churner-nice",	required_argument, NULL, O_CNICE },
	{ NULL, 0, NULL, 0 }
};

static void *mc_init(void)
{
	struct mc *m = xcalloc(1, sizeof(*m));

	m->pages = 2048;
	m->churn_pages = 16;
	m->readers = 2;
	m->churners = 1;
	m->churn_pause_us = 100;
	m->drop_period_us = 20000;
	m->f.fd = -1;
	return m;
}

static int mc_parse(void *priv, int opt, const char *arg)
{
	struct mc *m = priv;
	long n;

	switch (opt) {
	case O_PAGES:
	case O_CHURN_PAGES:
		if (wl_parse_long(arg, 1, 1L << 22, &n))
			return -1;
		*(opt == O_PAGES ? &m->pages : &m->churn_pages) = (unsigned long)n;
		return 0;
	case O_READERS:
	case O_CHURNERS:
		if (wl_parse_long(arg, opt == O_READERS, WL_MAX_THREADS, &n))
			return -1;
		*(opt == O_READERS ? &m->readers : &m->churners) = (int)n;
		return 0;
	case O_PAUSE:
		if (wl_parse_long(arg, 0, 10000000, &n))
			return -1;
		m->churn_pause_us = (uint64_t)n;
		return 0;
	case O_DROP:
		if (wl_parse_long(arg, 0, 3600000, &n))
			return -1;
		m->drop_period_us = (uint64_t)n * 1000;
		return 0;
	case O_RNICE:
	case O_CNICE:
		if (wl_parse_long(arg, -20, 19, &n))
			return -1;
		*(opt == O_RNICE ? &m->reader_nice : &m->churner_nice) = (int)n;
		return 0;
	}
	return -1;
}

static void *churner(void *arg)
{
	struct mc *m = arg;
	size_t len = m->churn_pages * (size_t)sysconf(_SC_PAGESIZE);

	wl_set_priority(m->churner_nice, 0);
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
			wl_sleep_us(m->churn_pause_us);
	}
	return NULL;
}

static int mc_run(void *priv, const struct workload_common *c)
{
	struct mc *m = priv;
	pthread_t t[WL_MAX_THREADS];
	struct rusage ru0, ru1;
	int i, n = 0;

	if (wl_map_file(&m->f, c->dir, "mmap-churn.dat", m->pages)) {
		m->error = xasprintf("cannot map a file of %lu pages in %s: %s", m->pages, c->dir,
				     strerror(errno));
		return -1;
	}
	m->rd = (struct wl_readers){ .f = &m->f, .n = m->readers, .nice_val = m->reader_nice,
				     .random = 1 };
	getrusage(RUSAGE_SELF, &ru0);
	if (wl_readers_start(&m->rd))
		m->error = xasprintf("pthread_create failed");
	for (i = 0; !m->error && i < m->churners; i++, n++)
		if (pthread_create(&t[i], NULL, churner, m))
			m->error = xasprintf("pthread_create failed");
	if (!m->error)
		m->ran_us = wl_drive(c->duration_us, &m->f, m->drop_period_us, NULL, NULL,
				     &m->drops);
	m->stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	wl_readers_stop(&m->rd);
	getrusage(RUSAGE_SELF, &ru1);
	m->majflt = ru1.ru_majflt - ru0.ru_majflt;
	return m->error ? -1 : 0;
}

static void mc_report(void *priv, json_object *out)
{
	struct mc *m = priv;
	json_object *p = json_object_new_object(), *r = json_object_new_object();
	char *ev;

	json_object_object_add(p, "pages", json_object_new_uint64(m->pages));
	json_object_object_add(p, "readers", json_object_new_int(m->readers));
	json_object_object_add(p, "churners", json_object_new_int(m->churners));
	json_object_object_add(p, "churn_pages", json_object_new_uint64(m->churn_pages));
	json_object_object_add(p, "churn_pause_us", json_object_new_uint64(m->churn_pause_us));
	json_object_object_add(p, "drop_period_ms", json_object_new_uint64(m->drop_period_us / 1000));
	json_object_object_add(p, "reader_nice", json_object_new_int(m->reader_nice));
	json_object_object_add(p, "churner_nice", json_object_new_int(m->churner_nice));
	json_object_object_add(out, "parameters", p);
	json_object_object_add(r, "ran_ms", json_object_new_uint64(m->ran_us / 1000));
	json_object_object_add(r, "mmap_munmap_cycles", json_object_new_uint64(m->cycles));
	json_object_object_add(r, "mmap_errors", json_object_new_uint64(m->errors));
	json_object_object_add(r, "major_faults", json_object_new_int64(m->majflt));
	json_object_object_add(r, "drops", json_object_new_uint64(m->drops));
	wl_readers_report(&m->rd, r);
	json_object_object_add(out, "result", r);
	ev = xasprintf("%lu mmap/munmap cycles by %d churners beside %d random readers with %ld "
		       "major faults", m->cycles, m->churners, m->readers, m->majflt);
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
	free(m);
}

const struct workload wl_mmap_churn = {
	.name		= "mmap-churn",
	.summary	= "mmap/munmap loop beside random reads of a mapped file",
	.options	= mc_options,
	.help		=
"  --pages N             pages in the file-backed VMA (2048)\n"
"  --readers N           random reader threads (2)\n"
"  --churners N          mmap/munmap threads (1)\n"
"  --churn-pages N       size of each anonymous mapping (16)\n"
"  --churn-pause-us N    pause between cycles (100)\n"
"  --drop-period-ms N    evict PTEs and page cache this often (20)\n"
"  --reader-nice N, --churner-nice N\n",
	.init		= mc_init,
	.parse		= mc_parse,
	.run		= mc_run,
	.report		= mc_report,
	.fini		= mc_fini,
};
