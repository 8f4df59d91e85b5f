// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "mmlock_events.h"
#include "util.h"
#include "workload.h"

int wl_make_file(const char *dir, const char *name, unsigned long pages, char **path_out)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *path = xasprintf("%s/%s", dir, name);
	char *page = xcalloc(1, (size_t)psz);
	unsigned long i;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out_free;
	for (i = 0; i < pages; i++) {
		/* distinct content per page so nothing can share or dedupe it */
		snprintf(page, (size_t)psz, "mmlock page %lu", i);
		if (write(fd, page, (size_t)psz) != psz)
			goto out_close;
	}
	if (fsync(fd))
		goto out_close;
	free(page);
	*path_out = path;
	return fd;

out_close:
	close(fd);
	unlink(path);
out_free:
	free(page);
	free(path);
	return -1;
}

int wl_map_file(struct wl_mapped_file *m, const char *dir, const char *name,
		unsigned long pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t off;

	memset(m, 0, sizeof(*m));
	m->fd = wl_make_file(dir, name, pages, &m->path);
	if (m->fd < 0)
		return -1;
	m->pages = pages;
	m->len = pages * (size_t)psz;
	m->map = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return -1;
	}
	/* dirty it once so the mapping and the file size are valid, then write it back */
	for (off = 0; off < m->len; off += (size_t)psz)
		m->map[off] = 1;
	if (msync(m->map, m->len, MS_SYNC))
		return -1;
	return wl_drop_range(m->map, m->len, m->fd);
}

void wl_unmap_file(struct wl_mapped_file *m)
{
	/* a state never set up is all zeroes: fd 0 is not ours then */
	if (!m->path)
		return;
	if (m->map)
		munmap(m->map, m->len);
	if (m->fd >= 0)
		close(m->fd);
	unlink(m->path);
	free(m->path);
	m->map = NULL;
	m->fd = -1;
	m->path = NULL;
}

void wl_sweep(const struct wl_mapped_file *m, unsigned long *page, unsigned long n,
	      volatile unsigned long *sink)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long i, p = *page;

	for (i = 0; i < n; i++) {
		/* a load the compiler cannot drop: a fault whenever the page was evicted */
		*sink += (unsigned long)m->map[p * psz];
		p = (p + 1) % m->pages;
	}
	*page = p;
}

uint64_t wl_drive(uint64_t duration_us, struct wl_mapped_file *f, uint64_t drop_period_us,
		  void (*tick)(void *arg, uint64_t elapsed_us), void *arg,
		  unsigned long *drops)
{
	uint64_t start = wl_now_us(), now, next_drop = start + drop_period_us;

	while ((now = wl_now_us()) - start < duration_us) {
		if (tick)
			tick(arg, now - start);
		if (f && drop_period_us && now >= next_drop) {
			/* evict again, so the readers keep faulting with I/O */
			if (!wl_drop_range(f->map, f->len, f->fd))
				(*drops)++;
			next_drop = now + drop_period_us;
		}
		wl_sleep_us(1000);
	}
	return wl_now_us() - start;
}

struct reader_arg {
	struct wl_readers	*r;
	int			idx;
};

static void *reader_thread(void *p)
{
	struct reader_arg *a = p;
	struct wl_readers *r = a->r;
	unsigned long page = (unsigned long)a->idx * r->f->pages / (unsigned long)r->n;
	unsigned int seed = (unsigned int)a->idx * 7919u + 1;

	r->tids[a->idx] = (int)syscall(SYS_gettid);
	if (wl_set_priority(r->nice_val, r->fifo))
		__atomic_add_fetch(&r->prio_errors, 1, __ATOMIC_RELAXED);
	r->kernel_prio = wl_kernel_prio();
	if (r->gate)
		wl_gate_wait(r->gate);
	while (!r->stop) {
		if (r->random)
			page = (unsigned long)rand_r(&seed) % r->f->pages;
		wl_sweep(r->f, &page, r->random ? 1 : 64, &r->sink);
		__atomic_add_fetch(&r->loads, r->random ? 1 : 64, __ATOMIC_RELAXED);
	}
	return NULL;
}

int wl_readers_start(struct wl_readers *r)
{
	pthread_t *t = xcalloc(WL_MAX_THREADS, sizeof(*t));
	struct reader_arg *args = xcalloc(WL_MAX_THREADS, sizeof(*args));
	int i;

	r->threads = t;
	r->args = args;
	for (i = 0; i < r->n && i < WL_MAX_THREADS; i++) {
		args[i] = (struct reader_arg){ r, i };
		if (pthread_create(&t[i], NULL, reader_thread, &args[i]))
			break;
		r->started++;
	}
	return r->started == r->n ? 0 : -1;
}

void wl_readers_stop(struct wl_readers *r)
{
	pthread_t *t = r->threads;
	int i;

	if (!t)
		return;
	r->stop = 1;
	if (r->gate)
		wl_gate_open(r->gate);
	for (i = 0; i < r->started; i++)
		pthread_join(t[i], NULL);
	free(r->args);
	free(t);
	r->threads = NULL;
	r->args = NULL;
}

void wl_readers_report(const struct wl_readers *r, json_object *out)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < r->started; i++)
		json_object_array_add(a, json_object_new_int(r->tids[i]));
	json_object_object_add(out, "reader_tids", a);
	json_object_object_add(out, "reader_kernel_prio", json_object_new_int(r->kernel_prio));
	json_object_object_add(out, "page_loads", json_object_new_uint64(r->loads));
	json_object_object_add(out, "reader_priority_errors",
			       json_object_new_uint64(r->prio_errors));
}

int wl_drop_range(void *addr, size_t len, int fd)
{
	if (madvise(addr, len, MADV_DONTNEED))
		return -1;
	/* the pages are clean (synced once), so the page cache can let them go */
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return errno ? -1 : 0;
}

int wl_set_priority(int nice_val, int fifo)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	if (fifo > 0) {
		struct sched_param sp = { .sched_priority = fifo };

		return sched_setscheduler(tid, SCHED_FIFO, &sp);
	}
	/* setpriority on a thread id sets that thread's nice only */
	return setpriority(PRIO_PROCESS, (id_t)tid, nice_val);
}

int wl_kernel_prio(void)
{
	char buf[512], *p;
	FILE *f = fopen("/proc/thread-self/stat", "r");
	long prio = 0;
	int field;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	/* field 18 is priority (-100..39 as proc prints it); comm may hold spaces */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 18; field++)
		p = strchr(p + 1, ' ');
	if (p)
		prio = strtol(p + 1, NULL, 10);
	/* proc shows task->prio - MAX_RT_PRIO (100), for normal and RT tasks alike */
	return p ? (int)prio + 100 : -1;
}

void wl_kernel_facts(json_object *out)
{
	/* one event per family a verdict needs, as tracefs names it */
	static const enum mmlock_event_id events[] = {
		MMLOCK_EV_FILEMAP_FAULT_BEGIN, MMLOCK_EV_VMA_START_WRITE_BEGIN,
		MMLOCK_EV_MMAP_LOCK_WAIT_START,
	};
	json_object *ev = json_object_new_object(), *sc = json_object_new_object();
	struct utsname u;
	size_t i;

	if (!uname(&u))
		json_object_object_add(out, "kernel_release", json_object_new_string(u.release));
	for (i = 0; i < ARRAY_SIZE(events); i++) {
		const struct mmlock_event *e = &mmlock_events[events[i]];
		char *key = xasprintf("%s/%s", e->system, e->name);
		char *p = xasprintf("/sys/kernel/tracing/events/%s", key);

		json_object_object_add(ev, key, json_object_new_boolean(!access(p, F_OK)));
		free(p);
		free(key);
	}
	json_object_object_add(out, "events_present", ev);
	for (i = 0; i < MMLOCK_SYSCTL_NR; i++) {
		int v = mmlock_sysctl_read(&mmlock_sysctls[i]);

		json_object_object_add(sc, mmlock_sysctls[i].name,
				       v >= 0 ? json_object_new_int(v) : NULL);
	}
	json_object_object_add(out, "sysctls", sc);
}

uint64_t wl_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

void wl_sleep_us(uint64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

struct gate_impl {
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
};

void wl_gate_init(struct wl_gate *g)
{
	struct gate_impl *gi = xcalloc(1, sizeof(*gi));

	pthread_mutex_init(&gi->lock, NULL);
	pthread_cond_init(&gi->cond, NULL);
	g->open = 0;
	g->impl = gi;
}

void wl_gate_wait(struct wl_gate *g)
{
	struct gate_impl *gi = g->impl;

	pthread_mutex_lock(&gi->lock);
	while (!g->open)
		pthread_cond_wait(&gi->cond, &gi->lock);
	pthread_mutex_unlock(&gi->lock);
}

void wl_gate_open(struct wl_gate *g)
{
	struct gate_impl *gi = g->impl;

	pthread_mutex_lock(&gi->lock);
	g->open = 1;
	pthread_cond_broadcast(&gi->cond);
	pthread_mutex_unlock(&gi->lock);
}

void wl_gate_destroy(struct wl_gate *g)
{
	struct gate_impl *gi = g->impl;

	pthread_cond_destroy(&gi->cond);
	pthread_mutex_destroy(&gi->lock);
	free(gi);
	g->impl = NULL;
}

/* Sectors read so far by the device of @path's stat file, -1 when unreadable. */
static long long read_sectors(const char *path)
{
	unsigned long long ios, merges, sectors;
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	/* Documentation/block/stat.rst: read I/Os, read merges, read sectors, ... */
	n = fscanf(f, "%llu %llu %llu", &ios, &merges, &sectors);
	fclose(f);
	return n == 3 ? (long long)sectors : -1;
}

static void fault_counts(long *majflt, long *minflt)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*majflt = ru.ru_majflt;
	*minflt = ru.ru_minflt;
}

void wl_fault_meter_start(struct wl_fault_meter *m, int fd)
{
	struct stat st;

	memset(m, 0, sizeof(*m));
	m->read_bytes = -1;
	m->sectors0 = -1;
	if (fd >= 0 && !fstat(fd, &st) && major(st.st_dev)) {
		snprintf(m->stat_path, sizeof(m->stat_path), "/sys/dev/block/%u:%u/stat",
			 major(st.st_dev), minor(st.st_dev));
		m->sectors0 = read_sectors(m->stat_path);
	}
	fault_counts(&m->majflt0, &m->minflt0);
}

void wl_fault_meter_stop(struct wl_fault_meter *m)
{
	long long sectors = m->sectors0 < 0 ? -1 : read_sectors(m->stat_path);

	fault_counts(&m->majflt, &m->minflt);
	m->majflt -= m->majflt0;
	m->minflt -= m->minflt0;
	/* the stat file counts 512-byte sectors whatever the device's block size */
	m->read_bytes = sectors >= m->sectors0 && m->sectors0 >= 0 ?
			(sectors - m->sectors0) * 512 : -1;
}

/* A ratio printed with two decimals (json-c would print every binary digit). */
static json_object *ratio(double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.2f", v);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static json_object *per_mib(long faults, double mib)
{
	return mib > 0 ? ratio((double)faults / mib) : NULL;
}

void wl_fault_meter_report(const struct wl_fault_meter *m, json_object *out)
{
	json_object *f = json_object_new_object(), *p = json_object_new_object();
	double mib = m->read_bytes < 0 ? 0 : (double)m->read_bytes / (1 << 20);

	json_object_object_add(out, "major_faults", json_object_new_int64(m->majflt));
	json_object_object_add(out, "minor_faults", json_object_new_int64(m->minflt));
	json_object_object_add(f, "major", json_object_new_int64(m->majflt));
	json_object_object_add(f, "minor", json_object_new_int64(m->minflt));
	json_object_object_add(f, "read_mib", m->read_bytes < 0 ? NULL : ratio(mib));
	json_object_object_add(p, "major", per_mib(m->majflt, mib));
	json_object_object_add(p, "minor", per_mib(m->minflt, mib));
	json_object_object_add(p, "total", per_mib(m->majflt + m->minflt, mib));
	json_object_object_add(f, "per_mib_read", p);
	json_object_object_add(out, "faults", f);
}

void wl_output_contract(json_object *out, const char *phase, const char *decision,
			const char *evidence, const char *fallback, const char *blocker,
			const char *next)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "phase_reached", json_object_new_string(phase));
	json_object_object_add(o, "decision_path", json_object_new_string(decision));
	json_object_object_add(o, "verification_evidence", json_object_new_string(evidence));
	json_object_object_add(o, "fallback_used", json_object_new_string(fallback));
	json_object_object_add(o, "unresolved_blocker", json_object_new_string(blocker));
	json_object_object_add(o, "next_step", json_object_new_string(next));
	json_object_object_add(out, "output_contract", o);
}
