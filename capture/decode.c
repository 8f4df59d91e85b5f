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
#include <ftw.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-seq.h>
#include <tracefs.h>

#include "capture.h"
#include "infile.h"
#include "lost.h"
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

/* What every page of the capture shares. */
struct dec_ctx {
	int	page_size;
	int	long_size;	/* of the traced kernel: 4 or 8 */
	int	big;		/* its pages are big-endian */
};

/* kbuffer's reading of a page header's commit word */
#define COMMIT_MASK		((1ULL << 27) - 1)
#define COMMIT_FLAG_MISSED	(1ULL << 31)
#define COMMIT_FLAG_STORED	(1ULL << 30)

struct tgid_map {
	int	*pid;
	int	*tgid;
	size_t	nr;
};

/* Files of a capture that came off another machine: regular, bounded. */
#define MAX_TABLE_FILE	(64 * 1024 * 1024)	/* kallsyms of a big kernel is ~15 MB */
#define MAX_FORMAT_FILE	(1024 * 1024)
#define MAX_FORMAT_FILES 100000

static char *read_whole(const char *path)
{
	return infile_read(AT_FDCWD, path, MAX_TABLE_FILE, NULL, INFILE_REGULAR);
}

/*
 * tracefs_local_events() reads every file under DIR/tracefs with plain
 * open(2): check first that each is a directory or a regular file of
 * bounded size (a FIFO there would block for ever, a link could point
 * anywhere).  0, or -1 with errno ENOTBLK or EFBIG.
 */
static int tree_count;

static int check_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	if (++tree_count > MAX_FORMAT_FILES || ftw->level > 6) {
		errno = EFBIG;
		return -1;
	}
	if (flag == FTW_D || flag == FTW_DP)
		return 0;
	if (flag != FTW_F || !S_ISREG(st->st_mode)) {
		errno = ENOTBLK;
		return -1;
	}
	if (st->st_size > MAX_FORMAT_FILE && strcmp(path + strlen(path) - 9, "/kallsyms")) {
		errno = EFBIG;
		return -1;
	}
	return 0;
}

static int check_tree(const char *dir)
{
	int ret;

	tree_count = 0;
	errno = 0;
	ret = nftw(dir, check_entry, 16, FTW_PHYS);
	if (ret && !errno)
		errno = ENOTBLK;
	return ret ? -1 : 0;
}

struct tgid_pair {
	int	pid, tgid;
	size_t	line;
};

static int cmp_pairs(const void *a, const void *b)
{
	const struct tgid_pair *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* saved_tgids, sorted by pid for a binary search; a later line wins (newer). */
static void load_tgids(const char *path, struct tgid_map *m)
{
	char *text = read_whole(path), *p, *save = NULL;
	struct tgid_pair *pairs = NULL;
	size_t n = 0, cap = 0, i;

	memset(m, 0, sizeof(*m));
	if (!text)
		return;
	for (p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		int pid, tgid;

		if (sscanf(p, "%d %d", &pid, &tgid) != 2)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			pairs = xrealloc(pairs, cap * sizeof(*pairs));
		}
		pairs[n] = (struct tgid_pair){ pid, tgid, n };
		n++;
	}
	free(text);
	if (n)
		qsort(pairs, n, sizeof(*pairs), cmp_pairs);
	m->pid = xcalloc(n + 1, sizeof(int));
	m->tgid = xcalloc(n + 1, sizeof(int));
	for (i = 0; i < n; i++) {
		if (i + 1 < n && pairs[i + 1].pid == pairs[i].pid)
			continue;
		m->pid[m->nr] = pairs[i].pid;
		m->tgid[m->nr++] = pairs[i].tgid;
	}
	free(pairs);
}

static int find_tgid(const struct tgid_map *m, int pid)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->pid[mid] == pid)
			return m->tgid[mid];
		if (m->pid[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The capture's formats, parsed with libtraceevent alone.
 * tracefs_local_events() would also read this machine's /proc/kallsyms
 * (5 MB of strings per call, and symbols of the wrong kernel for a capture
 * that came from a phone).  NULL when there is no header_page.
 */
static struct tep_handle *load_formats(const char *tdir)
{
	struct tep_handle *tep;
	struct dirent *sd, *ed;
	char *path, *buf;
	size_t len;
	DIR *sys, *evs;

	path = xasprintf("%s/events/header_page", tdir);
	buf = infile_read(AT_FDCWD, path, MAX_FORMAT_FILE, &len, INFILE_REGULAR);
	free(path);
	if (!buf)
		return NULL;
	tep = tep_alloc();
	if (!tep) {
		free(buf);
		return NULL;
	}
	tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_page_size(tep, getpagesize());
	tep_set_long_size(tep, (int)sizeof(long));
	tep_parse_header_page(tep, buf, len, (int)sizeof(long));
	free(buf);
	path = xasprintf("%s/events", tdir);
	sys = opendir(path);
	free(path);
	while (sys && (sd = readdir(sys))) {
		if (sd->d_name[0] == '.' || !strcmp(sd->d_name, "header_page") ||
		    !strcmp(sd->d_name, "header_event"))
			continue;
		path = xasprintf("%s/events/%s", tdir, sd->d_name);
		evs = opendir(path);
		free(path);
		while (evs && (ed = readdir(evs))) {
			if (ed->d_name[0] == '.')
				continue;
			path = xasprintf("%s/events/%s/%s/format", tdir, sd->d_name, ed->d_name);
			buf = infile_read(AT_FDCWD, path, MAX_FORMAT_FILE, &len, INFILE_REGULAR);
			free(path);
			if (buf)
				tep_parse_event(tep, buf, len, sd->d_name);	/* a bad one is left out */
			free(buf);
		}
		if (evs)
			closedir(evs);
	}
	if (sys)
		closedir(sys);
	return tep;
}

/*
 * Page buffers are followed by this many zero bytes: a corrupt event header
 * or __data_loc field (16-bit offset and length) then reads zeros, never
 * past the allocation.
 */
#define PAGE_SLACK	(132 * 1024)

/*
 * A page header whose commit size does not fit the page (one flipped byte
 * is enough) would send kbuffer walking through memory beyond it.
 */
static int page_fits(const struct dec_cpu *c, const struct dec_ctx *d)
{
	const unsigned char *hdr = (const unsigned char *)c->page + 8;
	uint64_t commit = 0, size;
	int i, start = 8 + d->long_size;

	for (i = 0; i < d->long_size; i++)
		commit = commit << 8 | hdr[d->big ? i : d->long_size - 1 - i];
	size = commit & COMMIT_MASK;
	/* a stored missed-event count sits right after the data */
	if ((commit & COMMIT_FLAG_MISSED) && (commit & COMMIT_FLAG_STORED))
		size += (uint64_t)d->long_size;
	return (uint64_t)start + size <= (uint64_t)d->page_size;
}

/* The current event lies inside its page's committed data. */
static int event_fits(struct dec_cpu *c)
{
	return kbuffer_curr_size(c->kbuf) > 0 &&
	       kbuffer_curr_offset(c->kbuf) + kbuffer_curr_size(c->kbuf) <=
	       kbuffer_start_of_data(c->kbuf) + kbuffer_subbuffer_size(c->kbuf);
}

/* Load the next page of @c; 0 when there is none.  Damaged pages are skipped. */
static int next_page(struct dec_cpu *c, const struct dec_ctx *d, struct bin_decode_stats *st)
{
	for (;;) {
		ssize_t n = read(c->fd, c->page, (size_t)d->page_size);
		int m;

		if (n < 0 && errno == EINTR)
			continue;
		if (n != d->page_size)
			return 0;
		st->pages++;
		if (!page_fits(c, d) ||
		    kbuffer_load_subbuffer(c->kbuf, c->page) < 0) {
			st->bad_pages++;
			continue;
		}
		m = kbuffer_missed_events(c->kbuf);
		if (m) {
			c->has_lost = 1;
			c->lost = m;
		}
		c->data = kbuffer_read_event(c->kbuf, &c->ts);
		if (c->data && !event_fits(c)) {
			st->bad_pages++;
			c->data = NULL;
			continue;
		}
		if (c->data)
			return 1;
	}
}

static void advance(struct dec_cpu *c, const struct dec_ctx *d, struct bin_decode_stats *st)
{
	c->data = kbuffer_next_event(c->kbuf, &c->ts);
	if (c->data && !event_fits(c)) {
		/* the rest of this page cannot be trusted */
		st->bad_pages++;
		c->data = NULL;
	}
	if (!c->data && !next_page(c, d, st))
		c->data = NULL;
}

/*
 * An event shorter than its format's fixed fields (a corrupt header, or a
 * format file that does not match the pages): its fields would be read past
 * the record.
 */
static int record_fits(struct tep_event *ev, const struct tep_record *rec)
{
	struct tep_format_field *f;

	/*
	 * ftrace's own records (kernel_stack, print) declare their arrays at
	 * full size but store only what they hold; print_stack() bounds those.
	 */
	if (ev->system && !strcmp(ev->system, "ftrace"))
		return 1;

	for (f = ev->format.common_fields; f; f = f->next)
		if (f->offset < 0 || f->size < 0 || f->offset + f->size > rec->size)
			return 0;
	for (f = ev->format.fields; f; f = f->next)
		if (f->offset < 0 || f->size < 0 || f->offset + f->size > rec->size)
			return 0;
	return 1;
}

static void print_stack(struct tep_handle *tep, struct tep_event *ev, struct tep_record *rec,
			struct trace_seq *s)
{
	struct tep_format_field *size_f = tep_find_field(ev, "size");
	struct tep_format_field *caller = tep_find_field(ev, "caller");
	unsigned long long n = 0, i;
	int lsize = tep_get_long_size(tep);

	trace_seq_puts(s, TRACE_STACK_HEAD "\n");
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
			trace_seq_printf(s, TRACE_FRAME_PREFIX "%s\n", fn);
		else
			trace_seq_printf(s, TRACE_FRAME_PREFIX "0x%llx\n", addr);
	}
}

/* A directory entry of @dir that chunk_name_is(), into @name; 0 when none. */
static int find_chunk(const char *dir, char *name, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	while (d && !found && (de = readdir(d))) {
		if (chunk_name_is(de->d_name)) {
			snprintf(name, size, "%s", de->d_name);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	return found;
}

int bin_capture_check(const char *dir, char **err)
{
	static const char *const parts[][2] = {
		{ "raw", "the per-CPU ring-buffer pages of a binary capture (raw/cpuNNN.raw)" },
		{ "raw/cpu000.raw", "the first CPU's pages (raw/cpuNNN.raw from CPU 0 on)" },
		{ "tracefs/events/header_page", "the page layout a binary capture saves beside "
		  "its pages (tracefs/events/)" },
	};
	struct stat st;
	char chunk[256];
	size_t i;

	*err = NULL;
	if (stat(dir, &st)) {
		int e = errno;

		*err = xasprintf("%s: %s: expected a binary capture directory (mmlock record "
				 "--binary)", dir, strerror(e));
		errno = e;
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		*err = xasprintf("%s: not a directory: expected a binary capture directory "
				 "(raw/, tracefs/: mmlock record --binary)", dir);
		errno = ENOTDIR;
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		char *path = xasprintf("%s/%s", dir, parts[i][0]);
		int missing = stat(path, &st) != 0;

		free(path);
		if (!missing)
			continue;
		if (!i && find_chunk(dir, chunk, sizeof(chunk)))
			*err = xasprintf("%s holds trace text (%s), not a binary capture: nothing "
					 "to convert (mmlock analyze reads it as it is)", dir, chunk);
		else
			*err = xasprintf("%s/%s: missing: expected %s", dir, parts[i][0],
					 parts[i][1]);
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* The tables a capture saves beside its formats, each optional. */
static const struct {
	const char	*name;
	int		(*parse)(struct tep_handle *tep, const char *text);
} tables[] = {
	{ "kallsyms",			tep_parse_kallsyms },
	{ "tracefs/printk_formats",	tep_parse_printk_formats },
	{ "tracefs/saved_cmdlines",	tep_parse_saved_cmdlines },
};

int bin_decode(const char *dir, bin_line_fn emit, void *ctx, struct bin_decode_stats *st)
{
	struct tep_handle *tep = NULL;
	struct dec_cpu *cpus = NULL;
	struct tgid_map tg = { 0 };
	struct trace_seq s;
	char *path, *text;
	int nr = 0, i, ret = -1, stack_id = -1, err;
	struct dec_ctx d = { .page_size = getpagesize() };
	struct tep_event *stack_ev;

	memset(st, 0, sizeof(*st));
	path = xasprintf("%s/tracefs", dir);
	if (check_tree(path)) {
		free(path);
		return -1;
	}
	tep = load_formats(path);
	free(path);
	if (!tep) {
		errno = ENOENT;
		return -1;
	}
	d.long_size = tep_get_long_size(tep) == 4 ? 4 : 8;
	d.big = tep_is_file_bigendian(tep);
	for (i = 0; i < (int)ARRAY_SIZE(tables); i++) {
		path = xasprintf("%s/%s", dir, tables[i].name);
		text = read_whole(path);
		free(path);
		if (text)
			tables[i].parse(tep, text);	/* an absent table: addresses stay numbers */
		free(text);
	}
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
		fd = infile_open(AT_FDCWD, path, INFILE_REGULAR);
		free(path);
		if (fd < 0 && errno != ENOENT)
			goto free_cpus;		/* a FIFO or /dev/zero as a CPU's pages */
		if (fd < 0)
			break;
		cpus = xrealloc(cpus, (size_t)(nr + 1) * sizeof(*cpus));
		c = &cpus[nr++];
		memset(c, 0, sizeof(*c));
		c->cpu = i;
		c->fd = fd;
		c->page = xcalloc(1, (size_t)d.page_size + PAGE_SLACK);
		c->kbuf = tep_kbuffer(tep);
		if (!c->kbuf) {
			errno = ENOMEM;
			goto free_cpus;
		}
		next_page(c, &d, st);
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
				char lost[64];

				lost_marker_format(lost, sizeof(lost), c->cpu, (uint64_t)c->lost);
				trace_seq_puts(&s, lost);
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
		if (rec.size < 8 || (ev && !record_fits(ev, &rec))) {
			/* a record its format cannot describe: the page is damaged */
			st->bad_pages++;
			trace_seq_terminate(&s);
			if (s.len && emit(s.buffer, s.len, ctx)) {	/* its LOST line */
				trace_seq_destroy(&s);
				goto free_cpus;
			}
			c->data = NULL;
			if (!next_page(c, &d, st))
				c->data = NULL;
			continue;
		}
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
		advance(c, &d, st);
	}
	trace_seq_destroy(&s);
	ret = 0;

free_cpus:
	err = errno;
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
	errno = err;
	return ret;
}
