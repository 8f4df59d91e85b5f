// SPDX-License-Identifier: GPL-2.0
/*
 * fork-fault: reader threads fault a file-backed VMA while the main thread
 * forks.  dup_mmap() write-locks every VMA of the parent (vma_start_write()
 * under mmap_write_lock), so a fault sleeping on I/O under the per-VMA lock
 * (the no-retry policy) stalls fork, and every fault queued behind it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct ff {
	long		pages, readers, fork_period_ms, drop_period_ms, reader_nice, forker_nice;
	uint64_t	next_fork_us;
	struct wl_mapped_file f;
	struct wl_readers rd;
	unsigned long	forks, fork_errors, drops;
	uint64_t	fork_max_us, fork_sum_us, ran_us;
	struct wl_fault_meter faults;
	char		*error;
};

static const struct wl_param ff_params[] = {
	WL_PARAM(struct ff, pages, "pages", 2048, 1, 1L << 22, "pages in the file-backed VMA"),
	WL_PARAM(struct ff, readers, "readers", 2, 1, WL_MAX_THREADS, "reader threads"),
	WL_PARAM(struct ff, fork_period_ms, "fork-period-ms", 10, 0, 3600000, "fork every N ms"),
	WL_PARAM(struct ff, drop_period_ms, "drop-period-ms", 20, 0, 3600000, "evict PTEs and page cache this often"),
	WL_PARAM(struct ff, reader_nice, "reader-nice", 0, -20, 19, "nice of the readers"),
	WL_PARAM(struct ff, forker_nice, "forker-nice", 0, -20, 19, "nice of the forking main thread"),
	{ NULL, 0, 0, 0, 0, NULL }
};

static void fork_tick(void *arg, uint64_t elapsed_us)
{
	struct ff *f = arg;
	uint64_t t0, us;
	pid_t pid;

	if (elapsed_us < f->next_fork_us)
		return;
	f->next_fork_us = elapsed_us + (uint64_t)f->fork_period_ms * 1000;
	t0 = wl_now_us();
	pid = fork();
	if (pid == 0)
		_exit(0);	/* the child's only job was to make the parent dup_mmap() */
	us = wl_now_us() - t0;
	if (pid < 0) {
		f->fork_errors++;
		return;
	}
	waitpid(pid, NULL, 0);
	f->forks++;
	f->fork_sum_us += us;
	if (us > f->fork_max_us)
		f->fork_max_us = us;
}

static int ff_run(void *priv, const struct workload_common *c)
{
	struct ff *f = priv;

	if (wl_map_file(&f->f, c->dir, "fork-fault.dat", (unsigned long)f->pages)) {
		f->error = xasprintf("cannot map a file of %ld pages in %s: %s", f->pages, c->dir,
				     strerror(errno));
		return -1;
	}
	wl_set_priority((int)f->forker_nice, 0);
	f->rd = (struct wl_readers){ .f = &f->f, .n = (int)f->readers,
				     .nice_val = (int)f->reader_nice };
	wl_fault_meter_start(&f->faults, f->f.fd);
	if (wl_readers_start(&f->rd)) {
		wl_readers_stop(&f->rd);
		f->error = xasprintf("pthread_create failed");
		return -1;
	}
	f->ran_us = wl_drive(c->duration_us, &f->f, (uint64_t)f->drop_period_ms * 1000, fork_tick,
			     f, &f->drops);
	wl_readers_stop(&f->rd);
	wl_fault_meter_stop(&f->faults);
	return 0;
}

static void ff_report(void *priv, json_object *out)
{
	struct ff *f = priv;
	json_object *r = json_object_new_object();
	char *ev;

	json_object_object_add(r, "ran_ms", json_object_new_uint64(f->ran_us / 1000));
	json_object_object_add(r, "forks", json_object_new_uint64(f->forks));
	json_object_object_add(r, "fork_errors", json_object_new_uint64(f->fork_errors));
	json_object_object_add(r, "fork_mean_us",
			       json_object_new_uint64(f->forks ? f->fork_sum_us / f->forks : 0));
	json_object_object_add(r, "fork_max_us", json_object_new_uint64(f->fork_max_us));
	wl_fault_meter_report(&f->faults, r);
	json_object_object_add(r, "drops", json_object_new_uint64(f->drops));
	wl_readers_report(&f->rd, r);
	json_object_object_add(out, "result", r);
	ev = xasprintf("%lu forks (mean %llu us, max %llu us) beside %ld readers with %ld major "
		       "faults", f->forks, (unsigned long long)(f->forks ? f->fork_sum_us / f->forks : 0),
		       (unsigned long long)f->fork_max_us, f->readers, f->faults.majflt);
	wl_output_contract(out, f->error ? "setup" : "ran to the end",
			   "readers sweep a file VMA, the main thread forks every period", ev,
			   "none", f->error ? f->error : "none",
			   "look for Type-A pairs whose writer caller is dup_mmap");
	free(ev);
}

static void ff_fini(void *priv)
{
	struct ff *f = priv;

	wl_unmap_file(&f->f);
	free(f->error);
}

const struct workload wl_fork_fault = {
	.name		= "fork-fault",
	.summary	= "readers fault a file-backed VMA while the main thread forks",
	.params		= ff_params,
	.size		= sizeof(struct ff),
	.run		= ff_run,
	.report		= ff_report,
	.fini		= ff_fini,
};
