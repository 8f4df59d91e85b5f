// SPDX-License-Identifier: GPL-2.0
/*
 * fork-fault: reader threads fault a file-backed VMA while the main thread
 * forks.  dup_mmap() write-locks every VMA of the parent (vma_start_write()
 * under mmap_write_lock), so a fault sleeping on I/O under the per-VMA lock
 * (vm.filemap_fault_no_retry=1) stalls fork, and every fault queued behind it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct ff {
	unsigned long	pages;
	int		readers, reader_nice, forker_nice;
	uint64_t	fork_period_us, drop_period_us, next_fork_us;
	struct wl_mapped_file f;
	struct wl_readers rd;
	unsigned long	forks, fork_errors, drops;
	uint64_t	fork_max_us, fork_sum_us, ran_us;
	long		majflt;
	char		*error;
};

enum { O_PAGES = 1100, O_READERS, O_FORK_PERIOD, O_DROP, O_RNICE, O_FNICE };

static const struct option ff_options[] = {
	{ "pages",		required_argument, NULL, O_PAGES },
	{ "readers",		required_argument, NULL, O_READERS },
	{ "fork-period-ms",	required_argument, NULL, O_FORK_PERIOD },
	{ "drop-period-ms",	required_argument, NULL, O_DROP },
	{ "reader-nice",	required_argument, NULL, O_RNICE },
	{ "forker-nice",	required_argument, NULL, O_FNICE },
	{ NULL, 0, NULL, 0 }
};

static void *ff_init(void)
{
	struct ff *f = xcalloc(1, sizeof(*f));

	f->pages = 2048;
	f->readers = 2;
	f->fork_period_us = 10000;
	f->drop_period_us = 20000;
	f->f.fd = -1;
	return f;
}

static int ff_parse(void *priv, int opt, const char *arg)
{
	struct ff *f = priv;
	long n;

	switch (opt) {
	case O_PAGES:
		if (wl_parse_long(arg, 1, 1L << 22, &n))
			return -1;
		f->pages = (unsigned long)n;
		return 0;
	case O_READERS:
		if (wl_parse_long(arg, 1, WL_MAX_THREADS, &n))
			return -1;
		f->readers = (int)n;
		return 0;
	case O_FORK_PERIOD:
	case O_DROP:
		if (wl_parse_long(arg, 0, 3600000, &n))
			return -1;
		*(opt == O_DROP ? &f->drop_period_us : &f->fork_period_us) = (uint64_t)n * 1000;
		return 0;
	case O_RNICE:
	case O_FNICE:
		if (wl_parse_long(arg, -20, 19, &n))
			return -1;
		*(opt == O_RNICE ? &f->reader_nice : &f->forker_nice) = (int)n;
		return 0;
	}
	return -1;
}

static void fork_tick(void *arg, uint64_t elapsed_us)
{
	struct ff *f = arg;
	uint64_t t0, us;
	pid_t pid;

	if (elapsed_us < f->next_fork_us)
		return;
	f->next_fork_us = elapsed_us + f->fork_period_us;
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
	struct rusage ru0, ru1;

	if (wl_map_file(&f->f, c->dir, "fork-fault.dat", f->pages)) {
		f->error = xasprintf("cannot map a file of %lu pages in %s: %s", f->pages, c->dir,
				     strerror(errno));
		return -1;
	}
	wl_set_priority(f->forker_nice, 0);
	f->rd = (struct wl_readers){ .f = &f->f, .n = f->readers, .nice_val = f->reader_nice };
	getrusage(RUSAGE_SELF, &ru0);
	if (wl_readers_start(&f->rd)) {
		wl_readers_stop(&f->rd);
		f->error = xasprintf("pthread_create failed");
		return -1;
	}
	f->ran_us = wl_drive(c->duration_us, &f->f, f->drop_period_us, fork_tick, f, &f->drops);
	wl_readers_stop(&f->rd);
	getrusage(RUSAGE_SELF, &ru1);
	f->majflt = ru1.ru_majflt - ru0.ru_majflt;
	return 0;
}

static void ff_report(void *priv, json_object *out)
{
	struct ff *f = priv;
	json_object *p = json_object_new_object(), *r = json_object_new_object();
	char *ev;

	json_object_object_add(p, "pages", json_object_new_uint64(f->pages));
	json_object_object_add(p, "readers", json_object_new_int(f->readers));
	json_object_object_add(p, "fork_period_ms", json_object_new_uint64(f->fork_period_us / 1000));
	json_object_object_add(p, "drop_period_ms", json_object_new_uint64(f->drop_period_us / 1000));
	json_object_object_add(p, "reader_nice", json_object_new_int(f->reader_nice));
	json_object_object_add(p, "forker_nice", json_object_new_int(f->forker_nice));
	json_object_object_add(out, "parameters", p);
	json_object_object_add(r, "ran_ms", json_object_new_uint64(f->ran_us / 1000));
	json_object_object_add(r, "forks", json_object_new_uint64(f->forks));
	json_object_object_add(r, "fork_errors", json_object_new_uint64(f->fork_errors));
	json_object_object_add(r, "fork_mean_us",
			       json_object_new_uint64(f->forks ? f->fork_sum_us / f->forks : 0));
	json_object_object_add(r, "fork_max_us", json_object_new_uint64(f->fork_max_us));
	json_object_object_add(r, "major_faults", json_object_new_int64(f->majflt));
	json_object_object_add(r, "drops", json_object_new_uint64(f->drops));
	wl_readers_report(&f->rd, r);
	json_object_object_add(out, "result", r);
	ev = xasprintf("%lu forks (mean %llu us, max %llu us) beside %d readers with %ld major "
		       "faults", f->forks, (unsigned long long)(f->forks ? f->fork_sum_us / f->forks : 0),
		       (unsigned long long)f->fork_max_us, f->readers, f->majflt);
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
	free(f);
}

const struct workload wl_fork_fault = {
	.name		= "fork-fault",
	.summary	= "readers fault a file-backed VMA while the main thread forks",
	.options	= ff_options,
	.help		=
"  --pages N             pages in the file-backed VMA (2048)\n"
"  --readers N           reader threads (2)\n"
"  --fork-period-ms N    fork every N ms (10)\n"
"  --drop-period-ms N    evict PTEs and page cache this often (20)\n"
"  --reader-nice N, --forker-nice N\n",
	.init		= ff_init,
	.parse		= ff_parse,
	.run		= ff_run,
	.report		= ff_report,
	.fini		= ff_fini,
};
