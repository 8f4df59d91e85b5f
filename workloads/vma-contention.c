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
 *   dropper   every drop period: MADV_DONTNEED + POSIX_FADV_DONTNEED
 *   writers   mprotect(whole VMA, R <-> RW): vma_start_write() each time
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct vc {
	long		pages, readers, writers, writer_delay_ms, drop_period_ms;
	long		writer_pause_us, reader_nice, writer_nice, reader_fifo, writer_fifo;
	struct wl_mapped_file f;
	struct wl_gate	reader_gate, writer_gate;
	struct wl_readers rd;
	atomic_int	stop;
	atomic_ulong	mprotects, prio_errors;
	unsigned long	drops;
	int		writer_tids[WL_MAX_THREADS];
	int		writer_prio;
	uint64_t	ran_us;
	struct wl_fault_meter faults;
	int		phase;		/* 0 setup, 1 readers, 2 writers, 3 done */
	char		*error;
};

static const struct wl_param vc_params[] = {
	WL_PARAM(struct vc, pages, "pages", 2048, 1, 1L << 22, "pages in the file-backed VMA"),
	WL_PARAM(struct vc, readers, "readers", 2, 1, WL_MAX_THREADS, "reader threads sweeping the pages"),
	WL_PARAM(struct vc, writers, "writers", 1, 0, WL_MAX_THREADS, "writer threads calling mprotect on the VMA"),
	WL_PARAM(struct vc, writer_delay_ms, "writer-delay-ms", 100, 0, 3600000, "release writers this long after readers"),
	WL_PARAM(struct vc, drop_period_ms, "drop-period-ms", 20, 0, 3600000, "evict PTEs and page cache this often (0: once)"),
	WL_PARAM(struct vc, writer_pause_us, "writer-pause-us", 200, 0, 10000000, "pause between two mprotect calls"),
	WL_PARAM(struct vc, reader_nice, "reader-nice", 0, -20, 19, "nice of the readers"),
	WL_PARAM(struct vc, writer_nice, "writer-nice", 0, -20, 19, "nice of the writers"),
	WL_PARAM(struct vc, reader_fifo, "reader-fifo", 0, 0, 99, "SCHED_FIFO priority of the readers (0: off)"),
	WL_PARAM(struct vc, writer_fifo, "writer-fifo", 0, 0, 99, "SCHED_FIFO priority of the writers (0: off)"),
	{ NULL, 0, 0, 0, 0, NULL }
};

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
	if (wl_set_priority((int)v->writer_nice, (int)v->writer_fifo))
		atomic_fetch_add(&v->prio_errors, 1);
	v->writer_prio = wl_kernel_prio();
	wl_gate_wait(&v->writer_gate);
	for (n = 0; !atomic_load(&v->stop); n++) {
		/* a real change of protection each time, so mprotect_fixup() write-locks the VMA */
		if (mprotect(v->f.map, v->f.len, PROT_READ | (n & 1 ? PROT_WRITE : 0)) == 0)
			atomic_fetch_add(&v->mprotects, 1);
		if (v->writer_pause_us)
			wl_sleep_us((uint64_t)v->writer_pause_us);
	}
	return NULL;
}

static void release_writers(void *arg, uint64_t elapsed_us)
{
	struct vc *v = arg;

	if (v->phase == 1 && elapsed_us >= (uint64_t)v->writer_delay_ms * 1000) {
		v->phase = 2;
		wl_gate_open(&v->writer_gate);
	}
}

static int vc_run(void *priv, const struct workload_common *c)
{
	struct vc *v = priv;
	pthread_t wt[WL_MAX_THREADS];
	struct worker ww[WL_MAX_THREADS];
	int i, nw = 0, ret = -1;

	if (wl_map_file(&v->f, c->dir, "vma-contention.dat", (unsigned long)v->pages)) {
		v->error = xasprintf("cannot map a file of %ld pages in %s: %s", v->pages, c->dir,
				     strerror(errno));
		return -1;
	}
	wl_gate_init(&v->reader_gate);
	wl_gate_init(&v->writer_gate);
	v->rd = (struct wl_readers){ .f = &v->f, .gate = &v->reader_gate, .n = (int)v->readers,
				     .nice_val = (int)v->reader_nice, .fifo = (int)v->reader_fifo };
	if (wl_readers_start(&v->rd))
		goto out_stop;
	for (i = 0; i < v->writers; i++, nw++) {
		ww[i] = (struct worker){ v, i };
		if (pthread_create(&wt[i], NULL, writer, &ww[i]))
			goto out_stop;
	}
	wl_fault_meter_start(&v->faults, v->f.fd);
	v->phase = 1;
	wl_gate_open(&v->reader_gate);
	v->ran_us = wl_drive(c->duration_us, &v->f, (uint64_t)v->drop_period_ms * 1000,
			     release_writers, v, &v->drops);
	wl_fault_meter_stop(&v->faults);
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

static void vc_report(void *priv, json_object *out)
{
	static const char *const phases[] = {
		"setup", "readers released", "writers released", "ran to the end"
	};
	struct vc *v = priv;
	json_object *r = json_object_new_object(), *t = json_object_new_array();
	char buf[32], *evidence;
	int i;

	json_object_object_add(r, "file", v->f.path ? json_object_new_string(v->f.path) : NULL);
	snprintf(buf, sizeof(buf), "%lx", (unsigned long)v->f.map);
	json_object_object_add(r, "map_start", json_object_new_string(buf));
	json_object_object_add(r, "ran_ms", json_object_new_uint64(v->ran_us / 1000));
	wl_fault_meter_report(&v->faults, r);
	json_object_object_add(r, "mprotects", json_object_new_uint64(v->mprotects));
	json_object_object_add(r, "drops", json_object_new_uint64(v->drops));
	json_object_object_add(r, "writer_priority_errors", json_object_new_uint64(v->prio_errors));
	wl_readers_report(&v->rd, r);
	for (i = 0; i < v->writers; i++)
		json_object_array_add(t, json_object_new_int(v->writer_tids[i]));
	json_object_object_add(r, "writer_tids", t);
	json_object_object_add(r, "writer_kernel_prio", json_object_new_int(v->writer_prio));
	json_object_object_add(out, "result", r);

	evidence = xasprintf("%ld major and %ld minor faults by %ld readers, %lu mprotect calls "
			     "by %ld writers on one VMA of %ld pages, %lu evictions",
			     v->faults.majflt, v->faults.minflt, v->readers, (unsigned long)v->mprotects,
			     v->writers, v->pages, v->drops);
	wl_output_contract(out, phases[v->phase],
			   "gate readers, release writers after the delay, sweep pages, "
			   "re-evict every drop period",
			   evidence,
			   v->prio_errors || v->rd.prio_errors ?
			   "some priorities could not be set (need root)" : "none",
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
}

const struct workload wl_vma_contention = {
	.name		= "vma-contention",
	.summary	= "readers fault a file-backed VMA while writers mprotect it",
	.params		= vc_params,
	.size		= sizeof(struct vc),
	.run		= vc_run,
	.report		= vc_report,
	.fini		= vc_fini,
};
