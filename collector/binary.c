// SPDX-License-Identifier: GPL-2.0
/*
 * Binary mode: one thread per CPU reads whole ring-buffer sub-buffers from
 * the instance's per_cpu/cpuN/trace_pipe_raw (tracefs_cpu_read() on an fd
 * we poll ourselves, since 1.6.4's blocking paths cannot be woken cleanly)
 * and appends them to DIR/raw/cpuNNN.raw.  Each page is also walked with
 * kbuffer to count its events and the events the kernel says it missed.
 *
 * bin_save_formats() copies what libtraceevent needs to decode the pages
 * later: DIR/tracefs/events/{header_page,header_event,SYS/NAME/format},
 * DIR/tracefs/{printk_formats,saved_cmdlines,saved_tgids}, DIR/kallsyms.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kbuffer.h>
#include <tracefs.h>

#include "collector.h"
#include "util.h"

#define BIN_POLL_MS	100

/* @name under @dirfd is a directory itself, not a link to one. */
static int is_dir_at(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
}

struct bin_thread {
	struct bin_reader	*br;
	struct bin_cpu		*bc;
	pthread_t		tid;
};

/* Add one page's events to @events (and its missed counts to @bc). */
static void count_page(struct kbuffer *kbuf, void *page, int page_size, struct bin_cpu *bc,
		       uint64_t *events)
{
	struct page_count pc = { 0 };

	page_count_one(kbuf, page, page_size, &pc);
	*events += pc.events;
	bc->missed += pc.missed;
	bc->missed_unknown += pc.missed_unknown;
}

/* Read every page there is now; -1 on a write error. */
static int drain_cpu(struct bin_reader *br, struct bin_cpu *bc, struct kbuffer *kbuf,
		     void *page)
{
	for (;;) {
		int n = tracefs_cpu_read(bc->tcpu, page, true);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (write_all(bc->fd, page, (size_t)n)) {
			bc->err = errno;
			br->failed = errno;
			/* keep whole pages only; this one is lost */
			if (ftruncate(bc->fd, (off_t)bc->bytes) == 0)
				lseek(bc->fd, (off_t)bc->bytes, SEEK_SET);
			count_page(kbuf, page, br->page_size, bc, &bc->discarded);
			return -1;
		}
		bc->pages++;
		bc->bytes += (uint64_t)n;
		if (n == br->page_size)
			count_page(kbuf, page, br->page_size, bc, &bc->events);
	}
}

static void *reader_thread(void *arg)
{
	struct bin_thread *t = arg;
	struct bin_reader *br = t->br;
	struct bin_cpu *bc = t->bc;
	struct kbuffer *kbuf;
	void *page;

	kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	page = calloc(1, (size_t)br->page_size + PAGE_COUNT_SLACK);
	if (!kbuf || !page) {
		bc->err = ENOMEM;
		br->failed = ENOMEM;
		goto free_buffers;
	}
	while (!br->stop && !br->failed) {
		struct pollfd pfd = { .fd = bc->raw_fd, .events = POLLIN };

		poll(&pfd, 1, BIN_POLL_MS);
		if (drain_cpu(br, bc, kbuf, page))
			goto free_buffers;
	}
	/* tracing is off now: take what is left */
	if (!br->failed)
		drain_cpu(br, bc, kbuf, page);
free_buffers:
	free(page);
	if (kbuf)
		kbuffer_free(kbuf);
	return NULL;
}

int bin_reader_start(struct bin_reader *br, struct collector *c, int outdir_fd)
{
	struct bin_thread *threads;
	sigset_t all, old;
	int cpu, fd;

	memset(br, 0, sizeof(*br));
	br->page_size = getpagesize();
	br->nr_cpus = c->nr_cpus;
	br->cpus = xcalloc((size_t)c->nr_cpus, sizeof(*br->cpus));
	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		br->cpus[cpu].fd = -1;
		br->cpus[cpu].raw_fd = -1;
	}
	if (mkdirat(outdir_fd, "raw", 0755) && (errno != EEXIST || !is_dir_at(outdir_fd, "raw")))
		goto close_files;
	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		struct bin_cpu *bc = &br->cpus[cpu];
		char path[64];

		bc->cpu = cpu;
		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		fd = tracefs_instance_file_open(c->inst, path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			goto close_files;
		bc->raw_fd = fd;
		bc->tcpu = tracefs_cpu_alloc_fd(fd, br->page_size, true);
		if (!bc->tcpu)
			goto close_files;
		snprintf(bc->name, sizeof(bc->name), "raw/cpu%03d.raw", cpu);
		/* new files only: never one (or a link) planted in the output directory */
		bc->fd = openat(outdir_fd, bc->name,
				O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (bc->fd < 0)
			goto close_files;
	}
	threads = xcalloc((size_t)c->nr_cpus, sizeof(*threads));
	br->threads = threads;
	/* the main thread takes the signals */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		threads[cpu].br = br;
		threads[cpu].bc = &br->cpus[cpu];
		errno = pthread_create(&threads[cpu].tid, NULL, reader_thread, &threads[cpu]);
		if (errno)
			break;
		br->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (br->started < c->nr_cpus) {
		int err = errno;

		bin_reader_stop(br);
		errno = err;
		goto close_files;
	}
	return 0;

close_files:
	{
		int err = errno;

		bin_reader_release(br);
		errno = err;
	}
	return -1;
}

int bin_reader_stop(struct bin_reader *br)
{
	struct bin_thread *threads = br->threads;
	int i;

	br->stop = 1;
	for (i = 0; i < br->started; i++)
		pthread_join(threads[i].tid, NULL);
	br->started = 0;
	for (i = 0; i < br->nr_cpus; i++) {
		struct bin_cpu *bc = &br->cpus[i];

		if (bc->fd >= 0 && fsync(bc->fd) && !br->failed)
			br->failed = errno;
		/* the instance cannot be removed while its files are open */
		if (bc->tcpu)
			tracefs_cpu_free_fd(bc->tcpu);
		if (bc->raw_fd >= 0)
			close(bc->raw_fd);
		bc->tcpu = NULL;
		bc->raw_fd = -1;
	}
	return br->failed ? -1 : 0;
}

void bin_reader_release(struct bin_reader *br)
{
	int i;

	if (br->started)
		bin_reader_stop(br);
	for (i = 0; br->cpus && i < br->nr_cpus; i++) {
		struct bin_cpu *bc = &br->cpus[i];

		if (bc->tcpu)
			tracefs_cpu_free_fd(bc->tcpu);
		if (bc->raw_fd >= 0)
			close(bc->raw_fd);
		if (bc->fd >= 0)
			close(bc->fd);
		bc->tcpu = NULL;
		bc->raw_fd = -1;
		bc->fd = -1;
	}
	free(br->threads);
	br->threads = NULL;
	free(br->cpus);
	br->cpus = NULL;
	br->nr_cpus = 0;
}

/* Copy @src (a tracefs or proc file: its size reads as 0) to @dst under @dirfd. */
static int copy_file(const char *src, int dirfd, const char *dst)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = openat(dirfd, dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out < 0)
		goto close_in;
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(out, buf, (size_t)n)) {
			ret = -1;
			break;
		}
	}
	if (close(out))
		ret = -1;
	close(in);
	return ret;

close_in:
	close(in);
	return -1;
}

static int mkdirs_at(int dirfd, const char *path)
{
	char *p = xstrdup(path), *s;
	int ret = 0;

	for (s = p; ; s++) {
		if (*s != '/' && *s)
			continue;
		{
			char c = *s;

			*s = '\0';
			if (mkdirat(dirfd, p, 0755) && (errno != EEXIST || !is_dir_at(dirfd, p)))
				ret = -1;
			*s = c;
		}
		if (!*s || ret)
			break;
	}
	free(p);
	return ret;
}

static int save_event(const char *tdir, int dirfd, const char *sys, const char *name)
{
	char *src, *dir, *dst;
	int ret;

	int fd;

	dir = xasprintf("tracefs/events/%s/%s", sys, name);
	src = xasprintf("%s/events/%s/%s/format", tdir, sys, name);
	dst = xasprintf("%s/format", dir);
	ret = mkdirs_at(dirfd, dir) || copy_file(src, dirfd, dst) ? -1 : 0;
	free(dir);
	free(src);
	free(dst);
	/* libtracefs takes a directory with an "enable" file for a system */
	dst = xasprintf("tracefs/events/%s/enable", sys);
	fd = openat(dirfd, dst, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		ret = -1;
	else
		close(fd);
	free(dst);
	return ret;
}

int bin_save_formats(struct collector *c, int outdir_fd)
{
	static const char *const top[] = { "printk_formats", "saved_cmdlines", "saved_tgids" };
	const char *tdir = c->tracing_dir;
	struct dirent *d;
	char *p, *q;
	size_t i;
	DIR *dp;
	int ret = 0;

	if (mkdirs_at(outdir_fd, "tracefs/events"))
		return -1;
	for (i = 0; i < 2; i++) {
		const char *h = i ? "header_event" : "header_page";

		p = xasprintf("%s/events/%s", tdir, h);
		q = xasprintf("tracefs/events/%s", h);
		if (copy_file(p, outdir_fd, q))
			ret = -1;
		free(p);
		free(q);
	}
	for (i = 0; i < c->nr_events; i++)
		if (save_event(tdir, outdir_fd, c->events[i].system, c->events[i].name))
			ret = -1;
	/* ftrace's own records (kernel_stack, print, ...) */
	p = xasprintf("%s/events/ftrace", tdir);
	dp = opendir(p);
	free(p);
	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.' || d->d_type != DT_DIR)
			continue;
		if (save_event(tdir, outdir_fd, "ftrace", d->d_name))
			ret = -1;
	}
	if (dp)
		closedir(dp);
	for (i = 0; i < ARRAY_SIZE(top); i++) {
		p = xasprintf("%s/%s", tdir, top[i]);
		q = xasprintf("tracefs/%s", top[i]);
		copy_file(p, outdir_fd, q);	/* optional: older kernels lack some */
		free(p);
		free(q);
	}
	if (copy_file("/proc/kallsyms", outdir_fd, "kallsyms"))
		ret = -1;
	/* the CPU count, as libtracefs reads it from per_cpu/cpuN */
	for (i = 0; i < (size_t)c->nr_cpus; i++) {
		p = xasprintf("tracefs/per_cpu/cpu%zu", i);
		if (mkdirs_at(outdir_fd, p))
			ret = -1;
		free(p);
	}
	return ret;
}
