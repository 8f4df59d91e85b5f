// SPDX-License-Identifier: GPL-2.0
/*
 * Decode a binary capture (DIR/raw/cpuNNN.raw + DIR/tracefs + DIR/kallsyms)
 * back into the text a trace_pipe with record-tgid would have printed:
 *
 *            load-28649   (  28649) [001] .....   593.636155: mmap_lock_start_locking: mm=...
 *
 * Events of all CPUs are merged by timestamp; a page that says events were
 * missed gets the kernel's "CPU:N [LOST M EVENTS]" line before its first
 * event; ftrace kernel_stack records print as "<stack trace>" followed by
 * " => func" lines, as trace_pipe does.  Differences that remain: %p values
 * print as libtraceevent prints them (real, 0x-prefixed) where the kernel
 * hashes them, and the latency column is libtraceevent's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-seq.h>
#include <tracefs.h>

#include "collector.h"
#include "util.h"

struct dec_cpu {
	int		cpu;
	int		fd;
	void		*page;
	struct kbuffer	*kbuf;
	void		*data;		/* current event, NULL when this CPU is done */
	unsigned long long ts;
	int		lost;		/* missed count to print before the event, -1 unknown */
	int		has_lost;
};

struct tgid_map {
	int	*pid;
	int	*tgid;
	size_t	nr;
};

static char *read_whole(const char *path)
{
	size_t len = 0, cap = 65536;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap + 1);
	while ((n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			close(fd);
			return NULL;
		}
		len += (size_t)n;
		if (len == cap)
			buf = xrealloc(buf, (cap *= 2) + 1);
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static void load_tgids(const char *path, struct tgid_map *m)
{
	char *text = read_whole(path), *p, *save = NULL;

	memset(m, 0, sizeof(*m));
	if (!text)
		return;
	for (p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		int pid, tgid;

		if (sscanf(p, "%d %d", &pid, &tgid) != 2)
			continue;
		m->pid = xrealloc(m->pid, (m->nr + 1) * sizeof(int));
		m->tgid = xrealloc(m->tgid, (m->nr + 1) * sizeof(int));
		m->pid[m->nr] = pid;
		m->tgid[m->nr] = tgid;
		m->nr++;
	}
	free(text);
}

static int find_tgid(const struct tgid_map *m, int pid)
{
	size_t i;

	for (i = m->nr; i > 0; i--)	/* later lines are newer */
		if (m->pid[i - 1] == pid)
			return m->tgid[i - 1];
	return -1;
}

/* Load the next page of @c; 0 when there is none. */
static int next_page(struct dec_cpu *c, int page_size, struct bin_decode_stats *st)
{
	for (;;) {
		ssize_t n = read(c->fd, c->page, (size_t)page_size);
		int m;

		if (n < 0 && errno == EINTR)
			continue;
		if (n != page_size)
			return 0;
		st->pages++;
		if (kbuffer_load_subbuffer(c->kbuf, c->page) < 0)
			continue;
		m = kbuffer_missed_events(c->kbuf);
		if (m) {
			c->has_lost = 1;
			c->lost = m;
		}
		c->data = kbuffer_read_event(c->kbuf, &c->ts);
		if (c->data)
			return 1;
	}
}

static void advance(struct dec_cpu *c, int page_size, struct bin_decode_stats *st)
{
	c->data = kbuffer_next_event(c->kbuf, &c->ts);
	if (!c->data && !next_page(c, page_size, st))
		c->data = NULL;
}

static void print_stack(struct tep_handle *tep, struct tep_event *ev, struct tep_record *rec,
			struct trace_seq *s)
{
	struct tep_format_field *size_f = tep_find_field(ev, "size");
	struct tep_format_field *caller = tep_find_field(ev, "caller");
	unsigned long long n = 0, i;
	int lsize = tep_get_long_size(tep);

	trace_seq_puts(s, "<stack trace>\n");
	if (!caller || lsize != 8)
		return;
	if (size_f)
		tep_read_number_field(size_f, rec->data, &n);
	for (i = 0; ; i++) {
		unsigned long long addr;
		const char *fn;
		int off = caller->offset + (int)(i * 8);

		if (off + 8 > rec->size || (size_f && i >= n))
			break;
		memcpy(&addr, (char *)rec->data + off, 8);
		if (!addr || addr == ~0ULL)
			break;
		fn = tep_find_function(tep, addr);
		if (fn)
			trace_seq_printf(s, " => %s\n", fn);
		else
			trace_seq_printf(s, " => 0x%llx\n", addr);
	}
}

int bin_decode(const char *dir, bin_line_fn emit, void *ctx, struct bin_decode_stats *st)
{
	struct tep_handle *tep = NULL;
	struct dec_cpu *cpus = NULL;
	struct tgid_map tg = { 0 };
	struct trace_seq s;
	char *path, *text;
	int nr = 0, i, ret = -1, page_size = getpagesize(), stack_id = -1;
	struct tep_event *stack_ev;

	memset(st, 0, sizeof(*st));
	path = xasprintf("%s/tracefs", dir);
	tep = tracefs_local_events(path);
	free(path);
	if (!tep) {
		errno = ENOENT;
		return -1;
	}
	text = xasprintf("%s/kallsyms", dir);
	path = read_whole(text);
	free(text);
	if (path)
		tep_parse_kallsyms(tep, path);
	free(path);
	text = xasprintf("%s/tracefs/printk_formats", dir);
	path = read_whole(text);
	free(text);
	if (path)
		tep_parse_printk_formats(tep, path);
	free(path);
	text = xasprintf("%s/tracefs/saved_cmdlines", dir);
	path = read_whole(text);
	free(text);
	if (path)
		tep_parse_saved_cmdlines(tep, path);
	free(path);
	path = xasprintf("%s/tracefs/saved_tgids", dir);
	load_tgids(path, &tg);
	free(path);
	stack_ev = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
	if (stack_ev)
		stack_id = stack_ev->id;

	for (i = 0; i < 4096; i++) {
		struct dec_cpu *c;
		int fd;

		path = xasprintf("%s/raw/cpu%03d.raw", dir, i);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		free(path);
		if (fd < 0)
			break;
		cpus = xrealloc(cpus, (size_t)(nr + 1) * sizeof(*cpus));
		c = &cpus[nr++];
		memset(c, 0, sizeof(*c));
		c->cpu = i;
		c->fd = fd;
		c->page = xmalloc((size_t)page_size);
		c->kbuf = tep_kbuffer(tep);
		if (!c->kbuf) {
			errno = ENOMEM;
			goto free_cpus;
		}
		next_page(c, page_size, st);
	}
	if (!nr) {
		errno = ENOENT;
		goto free_cpus;
	}
	trace_seq_init(&s);
	for (;;) {
		struct dec_cpu *c = NULL;
		struct tep_record rec;
		struct tep_event *ev;
		unsigned long long secs, usecs;
		int pid, tgid, stop;
		char tgid_s[16];

		for (i = 0; i < nr; i++)
			if (cpus[i].data && (!c || cpus[i].ts < c->ts))
				c = &cpus[i];
		if (!c)
			break;
		trace_seq_reset(&s);
		if (c->has_lost) {
			if (c->lost > 0) {
				trace_seq_printf(&s, "CPU:%d [LOST %d EVENTS]\n", c->cpu, c->lost);
				st->missed += (uint64_t)c->lost;
			} else {
				st->missed_unknown++;
			}
			c->has_lost = 0;
		}
		memset(&rec, 0, sizeof(rec));
		rec.ts = c->ts;
		rec.cpu = c->cpu;
		rec.data = c->data;
		rec.size = kbuffer_event_size(c->kbuf);
		rec.ref_count = 1;
		ev = tep_find_event(tep, tep_data_type(tep, &rec));
		st->events++;
		pid = tep_data_pid(tep, &rec);
		tgid = find_tgid(&tg, pid);
		if (tgid >= 0)
			snprintf(tgid_s, sizeof(tgid_s), "%d", tgid);
		else
			snprintf(tgid_s, sizeof(tgid_s), "-------");
		secs = c->ts / 1000000000ULL;
		usecs = (c->ts % 1000000000ULL) / 1000;
		tep_print_event(tep, &s, &rec, "%16s-%-7d ", TEP_PRINT_COMM, TEP_PRINT_PID);
		trace_seq_printf(&s, "(%7s) [%03d] ", tgid_s, c->cpu);
		tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_LATENCY);
		trace_seq_printf(&s, " %5llu.%06llu: ", secs, usecs);
		if (ev && ev->id == stack_id) {
			print_stack(tep, ev, &rec, &s);
		} else if (ev) {
			trace_seq_printf(&s, "%s: ", ev->name);
			tep_print_event(tep, &s, &rec, "%s\n", TEP_PRINT_INFO);
		} else {
			trace_seq_puts(&s, "UNKNOWN EVENT\n");
		}
		trace_seq_terminate(&s);
		stop = emit(s.buffer, s.len, ctx);
		if (stop) {
			trace_seq_destroy(&s);
			goto free_cpus;
		}
		advance(c, page_size, st);
	}
	trace_seq_destroy(&s);
	ret = 0;

free_cpus:
	for (i = 0; i < nr; i++) {
		close(cpus[i].fd);
		free(cpus[i].page);
		if (cpus[i].kbuf)
			kbuffer_free(cpus[i].kbuf);
	}
	free(cpus);
	free(tg.pid);
	free(tg.tgid);
	tep_free(tep);
	return ret;
}
