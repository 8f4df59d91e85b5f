// SPDX-License-Identifier: GPL-2.0
/*
 * vma-contention: the seed's "Workflow Contract: Synthetic VMA Contention
 * Test".  One file-backed VMA, dirtied once; PTEs and page cache dropped so
 * faults do real I/O; reader threads sweep its pages (never one fixed offset)
 * into a volatile sink; writer threads mprotect() the same VMA.  Readers are
 * released first, writers after a delay, so faults are inside
 * lock_vma_under_rcu() when vma_start_write() comes.
 *
 *   file VMA  [ page 0 | page 1 | ... | page N-1 ]   (one VMA, never split)
 *   readers   sweep from their own start page, stride 1, wrapping
 *   dropper   every sweep period: MADV_DONTNEED + POSIX_FADV_DONTNEED
 *   writers   mprotect(whole VMA, R <-> RW): vma_start_write() each time
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct vc {
	/* parameters */
	unsigned long	pages;
	int		readers, writers;
	uint64_t	writer_delay_us, drop_period_us, writer_pause_us;
	int		reader_nice, writer_nice, reader_fifo, writer_fifo;
	/* run state */
	struct wl_mapped_file f;
	struct wl_gate	reader_gate, writer_gate;
	struct wl_readers rd;
	atomic_int	stop;
	atomic_ulong	mprotects, prio_errors;
	unsigned long	drops;
	int		writer_tids[WL_MAX_THREADS];
	int		writer_prio;
	uint64_t	ran_us;
	long		majflt, minflt;	/* during the run, from getrusage */
	int		phase;		/* 0 setup, 1 readers, 2 writers, 3 done */
	char		*error;
};

enum { O_PAGES = 1000, O_READERS, O_WRITERS, O_WDELAY, O_DROP, O_WPAUSE, O_RNICE, O_WNICE,
       O_RFIFO, O_WFIFO };

static const struct option vc_options[] = {
	{ "pages",		required_argument, NULL, O_PAGES },
	{ "readers",		required_argument, NULL, O_READERS },
	{ "writers",		required_argument, NULL, O_WRITERS },
	{ "writer-delay-ms",	required_argument, NULL, O_WDELAY },
	{ "drop-period-ms",	required_argument, NULL, O_DROP },
	{ "writer-pause-us",	required_argument, NULL, O_WPAUSE },
	{ "reader-nice",	required_argument, NULL, O_RNICE },
	{ "writer-nice",	required_argument, NULL, O_WNICE },
	{ "reader-fifo",	required_argument, NULL, O_RFIFO },
	{ "writer-fifo",	required_argument, NULL, O_WFIFO },
	{ NULL, 0, NULL, 0 }
};

static void *vc_init(void)
{
	struct vc *v = xcalloc(1, sizeof(*v));

	v->pages = 2048;
	v->readers = 2;
	v->writers = 1;
	v->writer_delay_us = 100000;
	v->drop_period_us = 20000;
	v->writer_pause_us = 200;
	v->f.fd = -1;
	return v;
}

static int vc_parse(void *priv, int opt, const char *arg)
{
	struct vc *v = priv;
	long n;

	switch (opt) {
	case O_PAGES:
		if (wl_parse_long(arg, 1, 1L << 22, &n))
			return -1;
		v->pages = (unsigned long)n;
		return 0;
	case O_READERS:
	case O_WRITERS:
		if (wl_parse_long(arg, opt == O_READERS ? 1 : 0, 64, &n))
			return -1;
		*(opt == O_READERS ? &v->readers : &v->writers) = (int)n;
		return 0;
	case O_WDELAY:
	case O_DROP:
		if (wl_parse_long(arg, 0, 3600000, &n))
			return -1;
		*(opt == O_WDELAY ? &v->writer_delay_us : &v->drop_period_us) = (uint64_t)n * 1000;
		return 0;
	case O_WPAUSE:
		if (wl_parse_long(arg, 0, 10000000, &n))
			return -1;
		v->writer_pause_us = (uint64_t)n;
		return 0;
	case O_RNICE:
	case O_WNICE:
		if (wl_parse_long(arg, -20, 19, &n))
			return -1;
		*(opt == O_RNICE ? &v->reader_nice : &v->writer_nice) = (int)n;
		return 0;
	case O_RFIFO:
	case O_WFIFO:
		if (wl_parse_long(arg, 0, 99, &n))
			return -1;
		*(opt == O_RFIFO ? &v->reader_fifo : &v->writer_fifo) = (int)n;
		return 0;
	}
	return -1;
}

struct worker {
	struct vc	*v;
	int		idx;
};

static void *writer(void *arg)
{
	struct worker *w = arg;
	struct vc *v = w->v;
	unsigned long n;

	v->writer_tids[w->idx] = (int)syscall(SYS_gettid);
	if (wl_set_priority(v->writer_nice, v->writer_fifo))
		atomic_fetch_add(&v->prio_errors, 1);
	v->writer_prio = wl_kernel_prio();
	wl_gate_wait(&v->writer_gate);
	for (n = 0; !atomic_load(&v->stop); n++) {
		/* a real change of protection each time, so mprotect_fixup() write-locks the VMA */
		if (mprotect(v->f.map, v->f.len, PROT_READ | (n & 1 ? PROT_WRITE : 0)) == 0)
			atomic_fetch_add(&v->mprotects, 1);
		if (v->writer_pause_us)
			wl_sleep_us(v->writer_pause_us);
	}
	return NULL;
}

static void release_writers(void *arg, uint64_t elapsed_us)
{
	struct vc *v = arg;

	if (v->phase == 1 && elapsed_us >= v->writer_delay_us) {
		v->phase = 2;
		wl_gate_open(&v->writer_gate);
	}
}

static int vc_run(void *priv, const struct workload_common *c)
{
	struct vc *v = priv;
	pthread_t wt[WL_MAX_THREADS];
	struct worker ww[WL_MAX_THREADS];
	struct rusage ru0, ru1;
	int i, nw = 0, ret = -1;

	if (wl_map_file(&v->f, c->dir, "vma-contention.dat", v->pages)) {
		v->error = xasprintf("cannot map a file of %lu pages in %s: %s", v->pages, c->dir,
				     strerror(errno));
		return -1;
	}
	wl_gate_init(&v->reader_gate);
	wl_gate_init(&v->writer_gate);
	v->rd = (struct wl_readers){ .f = &v->f, .gate = &v->reader_gate, .n = v->readers,
				     .nice_val = v->reader_nice, .fifo = v->reader_fifo };
	if (wl_readers_start(&v->rd))
		goto out_stop;
	for (i = 0; i < v->writers; i++, nw++) {
		ww[i] = (struct worker){ v, i };
		if (pthread_create(&wt[i], NULL, writer, &ww[i]))
			goto out_stop;
	}
	getrusage(RUSAGE_SELF, &ru0);
	v->phase = 1;
	wl_gate_open(&v->reader_gate);
	v->ran_us = wl_drive(c->duration_us, &v->f, v->drop_period_us, release_writers, v,
			     &v->drops);
	getrusage(RUSAGE_SELF, &ru1);
	v->majflt = ru1.ru_majflt - ru0.ru_majflt;
	v->minflt = ru1.ru_minflt - ru0.ru_minflt;
	ret = 0;
out_stop:
	atomic_store(&v->stop, 1);
	wl_readers_stop(&v->rd);
	wl_gate_open(&v->writer_gate);
	for (i = 0; i < nw; i++)
		pthread_join(wt[i], NULL);
	wl_gate_destroy(&v->reader_gate);
	wl_gate_destroy(&v->writer_gate);
	if (ret)
		v->error = xasprintf("pthread_create failed");
	else
		v->phase = 3;
	return ret;
}

static json_object *tids(const int *t, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(t[i]));
	return a;
}

static void vc_report(void *priv, json_object *out)
{
	static const char *const phases[] = {
		"setup", "readers released", "writers released", "ran to the end"
	};
	struct vc *v = priv;
	json_object *p = json_object_new_object(), *r = json_object_new_object();
	char *evidence;

	json_object_object_add(p, "pages", json_object_new_uint64(v->pages));
	json_object_object_add(p, "readers", json_object_new_int(v->readers));
	json_object_object_add(p, "writers", json_object_new_int(v->writers));
	json_object_object_add(p, "writer_delay_ms",
			       json_object_new_uint64(v->writer_delay_us / 1000));
	json_object_object_add(p, "drop_period_ms",
			       json_object_new_uint64(v->drop_period_us / 1000));
	json_object_object_add(p, "writer_pause_us", json_object_new_uint64(v->writer_pause_us));
	json_object_object_add(p, "reader_nice", json_object_new_int(v->reader_nice));
	json_object_object_add(p, "writer_nice", json_object_new_int(v->writer_nice));
	json_object_object_add(p, "reader_fifo", json_object_new_int(v->reader_fifo));
	json_object_object_add(p, "writer_fifo", json_object_new_int(v->writer_fifo));
	json_object_object_add(p, "file", v->f.path ? json_object_new_string(v->f.path) : NULL);
	json_object_object_add(out, "parameters", p);

	json_object_object_add(r, "ran_ms", json_object_new_uint64(v->ran_us / 1000));
	json_object_object_add(r, "major_faults", json_object_new_int64(v->majflt));
	json_object_object_add(r, "minor_faults", json_object_new_int64(v->minflt));
	json_object_object_add(r, "mprotects", json_object_new_uint64(v->mprotects));
	json_object_object_add(r, "drops", json_object_new_uint64(v->drops));
	json_object_object_add(r, "writer_priority_errors", json_object_new_uint64(v->prio_errors));
	wl_readers_report(&v->rd, r);
	json_object_object_add(r, "writer_tids", tids(v->writer_tids, v->writers));
	json_object_object_add(r, "writer_kernel_prio", json_object_new_int(v->writer_prio));
	{
		char buf[32];

		snprintf(buf, sizeof(buf), "%lx", (unsigned long)v->f.map);
		json_object_object_add(r, "map_start", json_object_new_string(buf));
	}
	json_object_object_add(out, "result", r);

	evidence = xasprintf("%ld major and %ld minor faults by %d readers, %lu mprotect calls "
			     "by %d writers on one VMA of %lu pages, %lu evictions",
			     v->majflt, v->minflt, v->readers,
			     (unsigned long)v->mprotects, v->writers, v->pages,
			     (unsigned long)v->drops);
	wl_output_contract(out, phases[v->phase],
			   "gate readers, release writers after the delay, sweep pages, "
			   "re-evict every drop period",
			   evidence,
			   v->prio_errors || v->rd.prio_errors ? "some priorities could not be set (need root)" : "none",
			   v->error ? v->error : "none",
			   "match mm, vm_start/vm_end, ino/dev of the trace's fault and "
			   "vma_start_write events with mmlock analyze");
	free(evidence);
}

static void vc_fini(void *priv)
{
	struct vc *v = priv;

	wl_unmap_file(&v->f);
	free(v->error);
	free(v);
}

const struct workload wl_vma_contention = {
	.name		= "vma-contention",
	.summary	= "readers fault a file-backed VMA while writers mprotect it",
	.options	= vc_options,
	.help		=
"  --pages N             pages in the file-backed VMA (2048)\n"
"  --readers N           reader threads sweeping the pages (2)\n"
"  --writers N           writer threads calling mprotect on the VMA (1)\n"
"  --writer-delay-ms N   release writers this long after readers (100)\n"
"  --drop-period-ms N    evict PTEs and page cache this often (20; 0 = once)\n"
"  --writer-pause-us N   pause between two mprotect calls (200)\n"
"  --reader-nice N, --writer-nice N     nice of each side (0)\n"
"  --reader-fifo P, --writer-fifo P     SCHED_FIFO priority of each side (off)\n",
	.init		= vc_init,
	.parse		= vc_parse,
	.run		= vc_run,
	.report		= vc_report,
	.fini		= vc_fini,
};
