// SPDX-License-Identifier: GPL-2.0
/*
 * Read a binary capture (DIR/raw/cpuNNN.raw + DIR/tracefs + DIR/kallsyms)
 * record by record (bin_decoder_next(): the analyzer reads each record's
 * fields through libtraceevent, analyzer/source.c), or decode it back into
 * the text a trace_pipe with record-tgid would have printed (bin_decode(),
 * for mmlock convert):
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
#include <limits.h>
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
	char		*stage;		/* pages read ahead, STAGE_PAGES at a time */
	size_t		stage_len, stage_pos;
	int		eof;
	int		data_end;	/* offset of the end of the page's committed data */
	void		*data;		/* current event, NULL when this CPU is done */
	unsigned long long ts;
	int		lost;		/* missed count to print before the event, -1 unknown */
	int		has_lost;
	/*
	 * The page's plain data events (type_len 1..28: most of them) are
	 * walked here, as kbuffer walks them, without a library call each;
	 * at the first other record (a time extend or stamp, padding, a long
	 * event) kbuffer takes the page over (own_resync()).  pos: the next
	 * record's header; end: the end of the committed bytes, or pos when
	 * kbuffer reads the page (own_next() then always says 0).
	 */
	int		own;
	char		*pos, *end;
	int		ev_size;	/* kbuffer_event_size() of the current event */
};

/* What every page of the capture shares. */
struct dec_ctx {
	int	page_size;
	int	long_size;	/* of the traced kernel: 4 or 8 */
	int	big;		/* its pages are big-endian */
	int	own_walk;	/* the pages read here as this host reads words (own_next()) */
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

struct ev_info {
	struct tep_event *ev;
	/*
	 * The least record size bin_decoder_next() reads without a second
	 * look: min_size, and the 8 bytes of common_type and common_pid;
	 * INT_MAX while the type is not looked at yet, or never fits.
	 */
	int		fit_from;
	int		known;
	int		min_size;	/* record_fits(): the end of its last field, -1: never */
	int		stack;		/* an ftrace kernel_stack record */
	int		ret;		/* bin_decoder_next()'s answer: BIN_PLAIN, or 1 */
};

/*
 * pid -> tgid answers by the pid's low bits: a run of records switches
 * between a few threads (the CPUs' records interleave), each a binary
 * search of saved_tgids without it.
 */
#define TGID_CACHE	256

struct tgid_slot {
	int	pid, tgid;
};

/* A binary capture being read (bin_decoder_open()). */
struct bin_decoder {
	struct tep_handle	*tep;
	struct dec_cpu		*cpus;
	int			nr;
	struct dec_ctx		d;
	struct tgid_map		tg;
	int			stack_id;
	struct tep_format_field	*stack_size, *stack_caller;
	struct dec_cpu		*cur;	/* the CPU of the event handed out last */
	unsigned long long	rival_ts;	/* the first time of the other CPUs then */
	struct tep_record	rec;
	struct bin_decode_stats	st;
	/* per format id, looked up once: its format and the bytes its fields need */
	struct ev_info		*info;
	size_t			nr_info;
	struct tep_format_field	*type_f, *pid_f;	/* common_type, common_pid */
	/*
	 * Where both are (type_f): read from the record's first 8 bytes as
	 * (word >> shift) & mask, the shifts of this host's byte order.
	 */
	unsigned int		type_shift, pid_shift;
	uint64_t		type_mask;
	struct tgid_slot	tgc[TGID_CACHE];
	char			*kallsyms;	/* its path until it is read */
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
		char *end;
		long pid, tgid;

		/*
		 * sscanf("%d %d") without its cost (saved_tgids has a line per
		 * pid): glibc's %d is strtol() cut to an int.
		 */
		pid = strtol(p, &end, 10);
		if (end == p)
			continue;
		p = end;
		tgid = strtol(p, &end, 10);
		if (end == p)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			pairs = xrealloc(pairs, cap * sizeof(*pairs));
		}
		pairs[n] = (struct tgid_pair){ (int)pid, (int)tgid, n };
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

/* The current event lies inside its page's committed data (c->data_end). */
static int event_fits(struct dec_cpu *c)
{
	int size = kbuffer_curr_size(c->kbuf);

	return size > 0 && kbuffer_curr_offset(c->kbuf) + size <= c->data_end;
}

/* Pages read per read(2); each is copied alone into its slack-padded buffer. */
#define STAGE_PAGES	64

/* The next whole page of @c into c->page; 0 at the end (a cut last page ends it too). */
static int read_page(struct dec_cpu *c, const struct dec_ctx *d)
{
	size_t ps = (size_t)d->page_size, cap = ps * STAGE_PAGES;

	if (c->stage_len - c->stage_pos < ps && !c->eof) {
		memmove(c->stage, c->stage + c->stage_pos, c->stage_len - c->stage_pos);
		c->stage_len -= c->stage_pos;
		c->stage_pos = 0;
		while (c->stage_len < cap) {
			ssize_t n = read(c->fd, c->stage + c->stage_len, cap - c->stage_len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				c->eof = 1;
				break;
			}
			c->stage_len += (size_t)n;
		}
	}
	if (c->stage_len - c->stage_pos < ps)
		return 0;
	memcpy(c->page, c->stage + c->stage_pos, ps);
	c->stage_pos += ps;
	return 1;
}

/* Load the next page of @c; 0 when there is none.  Damaged pages are skipped. */
static int next_page(struct dec_cpu *c, const struct dec_ctx *d, struct bin_decode_stats *st)
{
	for (;;) {
		int m;

		if (!read_page(c, d))
			return 0;
		st->pages++;
		if (!page_fits(c, d) ||
		    kbuffer_load_subbuffer(c->kbuf, c->page) < 0) {
			st->bad_pages++;
			continue;
		}
		c->data_end = kbuffer_start_of_data(c->kbuf) + kbuffer_subbuffer_size(c->kbuf);
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
		if (c->data) {
			char *start = (char *)c->page + kbuffer_start_of_data(c->kbuf);

			c->own = d->own_walk;
			c->ev_size = kbuffer_event_size(c->kbuf);
			/* kbuffer's next, or past the commit when that is past it: the page ends alike */
			c->pos = (char *)c->page + kbuffer_curr_offset(c->kbuf) +
				 kbuffer_curr_size(c->kbuf);
			c->end = c->own ? start + kbuffer_subbuffer_size(c->kbuf) : c->pos;
			return 1;
		}
	}
}

/*
 * kbuffer_next_event() of a plain data event (type_len 1..28, this host's
 * byte order): its timestamp delta, data and size read as kbuffer reads
 * them.  Such an event always passes event_fits(): kbuffer's current size
 * stops at the commit.  Return: 1 with it current, 0 at the page's end, -1
 * for any other record (kbuffer's to read: own_resync()).
 */
static int own_next(struct dec_cpu *c)
{
	uint32_t w, len;

	if (c->pos >= c->end)
		return 0;
	/* the page buffer's slack keeps a header past the commit readable */
	memcpy(&w, c->pos, 4);
	len = w & 31;
	if (!len || len > 28)
		return -1;
	c->ts += w >> 5;
	c->data = c->pos + 4;
	c->pos += 4 + 4 * len;
	c->ev_size = (int)(4 * len);
	return 1;
}

/* kbuffer takes the page over at the record own_next() left: the first event at or after it. */
static void *own_resync(struct dec_cpu *c)
{
	int off = (int)(c->pos - (char *)c->page);
	void *data;

	c->own = 0;
	c->end = c->pos;
	if (kbuffer_load_subbuffer(c->kbuf, c->page) < 0)
		return NULL;
	for (data = kbuffer_read_event(c->kbuf, &c->ts); data && kbuffer_curr_offset(c->kbuf) < off;
	     data = kbuffer_next_event(c->kbuf, &c->ts))
		;
	return data;
}

/*
 * advance() past what own_next() reads (@r: its answer, 0 when the page is
 * kbuffer's): kbuffer's records, the page's end, damage.  Out of line, so
 * that the common step keeps no registers for it.
 */
static void __attribute__((noinline)) advance_slow(struct dec_cpu *c, const struct dec_ctx *d,
						   struct bin_decode_stats *st, int r)
{
	if (c->own)
		c->data = r ? own_resync(c) : NULL;
	else
		c->data = kbuffer_next_event(c->kbuf, &c->ts);
	if (c->data && !event_fits(c)) {
		/* the rest of this page cannot be trusted */
		st->bad_pages++;
		c->data = NULL;
	}
	if (c->data)
		c->ev_size = kbuffer_event_size(c->kbuf);
	else if (!next_page(c, d, st))
		c->data = NULL;
}

/* The next record of @c (c->data, c->ts, c->ev_size), NULL data when it has none. */
static inline void advance(struct dec_cpu *c, const struct dec_ctx *d,
			   struct bin_decode_stats *st)
{
	/* 0 where kbuffer reads the page (c->end == c->pos) */
	int r = own_next(c);

	if (r <= 0)
		advance_slow(c, d, st, r);
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

static int has_func_arg(const struct tep_print_arg *a)
{
	for (; a; a = a->next) {
		if (a->type == TEP_PRINT_FUNC)
			return 1;
		if (a->type == TEP_PRINT_OP &&
		    (has_func_arg(a->op.left) || has_func_arg(a->op.right)))
			return 1;
		if (a->type == TEP_PRINT_TYPE && has_func_arg(a->typecast.item))
			return 1;
	}
	return 0;
}

/* Read kallsyms once, before the first symbol is looked up or printed. */
static void symbols_load(struct bin_decoder *dec)
{
	char *text;

	if (!dec->kallsyms)
		return;
	text = read_whole(dec->kallsyms);
	if (text)
		tep_parse_kallsyms(dec->tep, text);	/* absent: addresses stay numbers */
	free(text);
	free(dec->kallsyms);
	dec->kallsyms = NULL;
}

/*
 * Does printing @ev look up symbols?  %pS, %ps and their kin do; a plain %p
 * (every pointer of the mmap_lock events) does not.
 */
static int needs_symbols(const struct tep_event *ev)
{
	const char *p;

	if (!ev || !ev->print_fmt.format)
		return 0;
	for (p = ev->print_fmt.format; (p = strstr(p, "%p")); p += 2)
		if ((p[2] >= 'a' && p[2] <= 'z') || (p[2] >= 'A' && p[2] <= 'Z'))
			return 1;
	/* a helper function of the format may print one */
	return ev->print_fmt.args && strstr(ev->print_fmt.format, "%s") != NULL &&
	       has_func_arg(ev->print_fmt.args);
}

const char *bin_function(struct bin_decoder *dec, unsigned long long addr,
			 unsigned long long *start)
{
	const char *fn;

	symbols_load(dec);
	fn = tep_find_function(dec->tep, addr);
	if (fn && start)
		*start = tep_find_function_address(dec->tep, addr);
	return fn;
}

const char *bin_stack_frame(struct bin_decoder *dec, const struct bin_event *e,
			    unsigned int i, char *buf, size_t size)
{
	struct tep_record *rec = e->rec;
	unsigned long long n = 0, addr;
	const char *fn;
	int off;

	if (!dec->stack_caller || tep_get_long_size(dec->tep) != 8)
		return NULL;
	if (dec->stack_size)
		tep_read_number_field(dec->stack_size, rec->data, &n);
	off = dec->stack_caller->offset + (int)(i * 8);
	if (off + 8 > rec->size || (dec->stack_size && i >= n))
		return NULL;
	memcpy(&addr, (char *)rec->data + off, 8);
	if (!addr || addr == ~0ULL)
		return NULL;
	fn = bin_function(dec, addr, NULL);
	if (fn)
		return fn;
	snprintf(buf, size, "0x%llx", addr);
	return buf;
}

/* The format of record type @type and what record_fits() asks of its size, first look. */
static const struct ev_info * __attribute__((noinline)) ev_info_load(struct bin_decoder *dec,
								    int type)
{
	/* a type beyond any format: no format, nothing to fit */
	static const struct ev_info none = { NULL, INT_MAX, 1, 0, 0, 1 };
	struct ev_info *in;
	struct tep_format_field *f;
	struct tep_event *ev;

	if (type < 0 || type > 65535)
		return &none;
	if ((size_t)type >= dec->nr_info) {
		size_t n = (size_t)type + 64, i;

		dec->info = xrealloc(dec->info, n * sizeof(*dec->info));
		memset(dec->info + dec->nr_info, 0, (n - dec->nr_info) * sizeof(*dec->info));
		for (i = dec->nr_info; i < n; i++)
			dec->info[i].fit_from = INT_MAX;
		dec->nr_info = n;
	}
	in = &dec->info[type];
	if (in->known)
		return in;
	in->known = 1;
	in->ev = ev = tep_find_event(dec->tep, type);
	in->min_size = 0;
	in->stack = ev && ev->id == dec->stack_id;
	in->ret = ev && !in->stack ? BIN_PLAIN : 1;
	if (!ev || (ev->system && !strcmp(ev->system, "ftrace"))) {
		in->fit_from = 8;
		return in;
	}
	for (f = ev->format.common_fields; f; f = f->next) {
		if (f->offset < 0 || f->size < 0)
			in->min_size = -1;
		else if (in->min_size >= 0 && f->offset + f->size > in->min_size)
			in->min_size = f->offset + f->size;
	}
	for (f = ev->format.fields; f; f = f->next) {
		if (f->offset < 0 || f->size < 0)
			in->min_size = -1;
		else if (in->min_size >= 0 && f->offset + f->size > in->min_size)
			in->min_size = f->offset + f->size;
	}
	if (in->min_size >= 0)
		in->fit_from = in->min_size > 8 ? in->min_size : 8;
	return in;
}

/*
 * common_type and common_pid, where every format of the capture has them
 * alike (libtraceevent reads them from the first format it parsed).
 */
static void common_fields(struct bin_decoder *dec)
{
	struct tep_format_field *t = NULL, *p = NULL, *f;
	int i, n = tep_get_events_count(dec->tep);

	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(dec->tep, i);

		f = tep_find_common_field(ev, "common_type");
		if (!f || (t && (f->offset != t->offset || f->size != t->size)))
			return;
		t = f;
		f = tep_find_common_field(ev, "common_pid");
		if (!f || (p && (f->offset != p->offset || f->size != p->size)))
			return;
		p = f;
	}
	if (!t || !p || t->offset < 0 || p->offset < 0 || t->offset + t->size > 8 ||
	    p->offset + p->size > 8 || (t->size != 1 && t->size != 2 && t->size != 4) ||
	    p->size != 4)
		return;
	dec->type_f = t;
	dec->pid_f = p;
	dec->type_mask = t->size == 4 ? 0xffffffffULL : t->size == 2 ? 0xffff : 0xff;
	if (tep_is_bigendian()) {
		dec->type_shift = (unsigned int)(8 - t->offset - t->size) * 8;
		dec->pid_shift = (unsigned int)(8 - p->offset - p->size) * 8;
	} else {
		dec->type_shift = (unsigned int)t->offset * 8;
		dec->pid_shift = (unsigned int)p->offset * 8;
	}
}

static void print_stack(struct bin_decoder *dec, const struct bin_event *e, struct trace_seq *s)
{
	const char *fn;
	char buf[32];
	unsigned int i;

	trace_seq_puts(s, TRACE_STACK_HEAD "\n");
	for (i = 0; (fn = bin_stack_frame(dec, e, i, buf, sizeof(buf))); i++)
		trace_seq_printf(s, TRACE_FRAME_PREFIX "%s\n", fn);
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

/*
 * The tables a capture saves beside its formats, each optional.  kallsyms
 * (megabytes) is read when a symbol is first asked for (bin_function()).
 */
static const struct {
	const char	*name;
	int		(*parse)(struct tep_handle *tep, const char *text);
} tables[] = {
	{ "tracefs/printk_formats",	tep_parse_printk_formats },
	{ "tracefs/saved_cmdlines",	tep_parse_saved_cmdlines },
};

int bin_capture_is(const char *dir)
{
	struct stat st;
	char chunk[256], *raw;
	int binary;

	/* input_open()'s rule: chunks win over raw/ */
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || find_chunk(dir, chunk, sizeof(chunk)))
		return 0;
	raw = xasprintf("%s/raw", dir);
	binary = !stat(raw, &st) && S_ISDIR(st.st_mode);
	free(raw);
	return binary;
}

void bin_decoder_close(struct bin_decoder *dec)
{
	int i, err = errno;

	if (!dec)
		return;
	for (i = 0; i < dec->nr; i++) {
		close(dec->cpus[i].fd);
		free(dec->cpus[i].page);
		free(dec->cpus[i].stage);
		if (dec->cpus[i].kbuf)
			kbuffer_free(dec->cpus[i].kbuf);
	}
	free(dec->cpus);
	free(dec->tg.pid);
	free(dec->tg.tgid);
	free(dec->info);
	free(dec->kallsyms);
	tep_free(dec->tep);
	free(dec);
	errno = err;
}

struct bin_decoder *bin_decoder_open(const char *dir)
{
	struct bin_decoder *dec = xcalloc(1, sizeof(*dec));
	struct tep_event *stack_ev;
	char *path, *text;
	int i;

	dec->d.page_size = getpagesize();
	path = xasprintf("%s/tracefs", dir);
	if (check_tree(path)) {
		free(path);
		goto close_dec;
	}
	dec->tep = load_formats(path);
	free(path);
	if (!dec->tep) {
		errno = ENOENT;
		goto close_dec;
	}
	dec->d.long_size = tep_get_long_size(dec->tep) == 4 ? 4 : 8;
	dec->d.big = tep_is_file_bigendian(dec->tep);
	dec->d.own_walk = !dec->d.big && !tep_is_bigendian() && !tep_is_old_format(dec->tep);
	for (i = 0; i < (int)ARRAY_SIZE(tables); i++) {
		path = xasprintf("%s/%s", dir, tables[i].name);
		text = read_whole(path);
		free(path);
		if (text)
			tables[i].parse(dec->tep, text);	/* an absent table: addresses stay numbers */
		free(text);
	}
	dec->kallsyms = xasprintf("%s/kallsyms", dir);
	path = xasprintf("%s/tracefs/saved_tgids", dir);
	load_tgids(path, &dec->tg);
	free(path);
	dec->stack_id = -1;
	stack_ev = tep_find_event_by_name(dec->tep, "ftrace", "kernel_stack");
	if (stack_ev) {
		dec->stack_id = stack_ev->id;
		dec->stack_size = tep_find_field(stack_ev, "size");
		dec->stack_caller = tep_find_field(stack_ev, "caller");
	}

	for (i = 0; i < 4096; i++) {
		struct dec_cpu *c;
		int fd;

		path = xasprintf("%s/raw/cpu%03d.raw", dir, i);
		fd = infile_open(AT_FDCWD, path, INFILE_REGULAR);
		free(path);
		if (fd < 0 && errno != ENOENT)
			goto close_dec;		/* a FIFO or /dev/zero as a CPU's pages */
		if (fd < 0)
			break;
		dec->cpus = xrealloc(dec->cpus, (size_t)(dec->nr + 1) * sizeof(*dec->cpus));
		c = &dec->cpus[dec->nr++];
		memset(c, 0, sizeof(*c));
		c->cpu = i;
		c->fd = fd;
		c->page = xcalloc(1, (size_t)dec->d.page_size + PAGE_SLACK);
		c->stage = xmalloc((size_t)dec->d.page_size * STAGE_PAGES);
		c->kbuf = tep_kbuffer(dec->tep);
		if (!c->kbuf) {
			errno = ENOMEM;
			goto close_dec;
		}
		next_page(c, &dec->d, &dec->st);
	}
	if (!dec->nr) {
		errno = ENOENT;
		goto close_dec;
	}
	dec->tgc[0].pid = -1;
	dec->tgc[0].tgid = find_tgid(&dec->tg, -1);
	for (i = 1; i < TGID_CACHE; i++)
		dec->tgc[i] = dec->tgc[0];	/* each slot holds a true answer */
	dec->rec.ref_count = 1;
	common_fields(dec);
	return dec;

close_dec:
	bin_decoder_close(dec);
	return NULL;
}

struct tep_handle *bin_decoder_tep(const struct bin_decoder *dec)
{
	return dec->tep;
}

const struct bin_decode_stats *bin_decoder_stats(const struct bin_decoder *dec)
{
	return &dec->st;
}

/*
 * The CPU whose record comes next (the earliest; ties go to the lower CPU),
 * NULL when every CPU is read; dec->rival_ts set to the earliest of the
 * others.
 */
static struct dec_cpu * __attribute__((noinline)) pick_cpu(struct bin_decoder *dec)
{
	struct dec_cpu *c = NULL;
	int i;

	if (dec->nr == 2) {
		/* the loop below for two CPUs, where records switch CPU often */
		struct dec_cpu *a = &dec->cpus[0], *b = &dec->cpus[1];

		if (!a->data || !b->data) {
			dec->rival_ts = ULLONG_MAX;
			return a->data ? a : b->data ? b : NULL;
		}
		if (b->ts < a->ts) {
			dec->rival_ts = a->ts;
			return b;
		}
		dec->rival_ts = b->ts;
		return a;
	}
	dec->rival_ts = ULLONG_MAX;
	for (i = 0; i < dec->nr; i++) {
		struct dec_cpu *o = &dec->cpus[i];

		if (!o->data)
			continue;
		if (!c || o->ts < c->ts) {
			if (c && c->ts < dec->rival_ts)
				dec->rival_ts = c->ts;
			c = o;
		} else if (o->ts < dec->rival_ts) {
			dec->rival_ts = o->ts;
		}
	}
	return c;
}

/* The missed events the page of @c says came before its first event. */
static void __attribute__((noinline)) take_lost(struct bin_decoder *dec, struct dec_cpu *c,
						struct bin_event *e)
{
	if (c->lost > 0) {
		e->lost = (uint64_t)c->lost;
		dec->st.missed += (uint64_t)c->lost;
	} else {
		dec->st.missed_unknown++;
	}
	c->has_lost = 0;
}

/* A record its format cannot describe: the rest of its page is skipped. */
static int __attribute__((noinline)) record_damaged(struct bin_decoder *dec, struct dec_cpu *c,
						    struct bin_event *e)
{
	dec->st.bad_pages++;
	e->damaged = 1;
	e->pid = 0;
	e->rec = NULL;
	e->ev = NULL;
	c->data = NULL;
	if (!next_page(c, &dec->d, &dec->st))
		c->data = NULL;
	return 1;
}

/* The tgid of @pid (saved_tgids), -1 when unknown. */
static inline int tgid_of(struct bin_decoder *dec, int pid)
{
	struct tgid_slot *s = &dec->tgc[(unsigned int)pid & (TGID_CACHE - 1)];

	if (s->pid != pid) {
		s->pid = pid;
		s->tgid = find_tgid(&dec->tg, pid);
	}
	return s->tgid;
}

/*
 * bin_decoder_next()'s reading of a record through libtraceevent: where the
 * formats do not share common_type and common_pid, or a record too short
 * to hold them.
 */
static int __attribute__((noinline)) record_general(struct bin_decoder *dec, struct dec_cpu *c,
						    struct bin_event *e)
{
	if (dec->rec.size < 8)
		return record_damaged(dec, c, e);
	e->ev = tep_find_event(dec->tep, tep_data_type(dec->tep, &dec->rec));
	if (e->ev && !record_fits(e->ev, &dec->rec))
		return record_damaged(dec, c, e);
	dec->st.events++;
	e->pid = tep_data_pid(dec->tep, &dec->rec);
	e->tgid = tgid_of(dec, e->pid);
	e->stack = e->ev && e->ev->id == dec->stack_id;
	dec->cur = c;
	return e->ev && !e->stack && !e->lost ? BIN_PLAIN : 1;
}

/* A record of a format that was looked at (ev_info_load()) and that it fits. */
static inline int record_take(struct bin_decoder *dec, struct dec_cpu *c, struct bin_event *e,
			      const struct ev_info *in, uint64_t w)
{
	e->ev = in->ev;
	e->stack = in->stack;
	dec->st.events++;
	e->pid = (int32_t)(uint32_t)(w >> dec->pid_shift);
	e->tgid = tgid_of(dec, e->pid);
	dec->cur = c;
	return in->ret;
}

/*
 * bin_decoder_next() past its one compare: a type met first (its format
 * looked at now), a record shorter than its format, no common layout, a
 * LOST line before the record.
 */
static int __attribute__((noinline)) record_other(struct bin_decoder *dec, struct dec_cpu *c,
						  struct bin_event *e, unsigned int type, uint64_t w)
{
	const struct ev_info *in;

	e->tgid = -1;
	e->stack = 0;
	if (c->has_lost)
		take_lost(dec, c, e);
	if (dec->rec.size < 8 || !dec->type_f)
		return record_general(dec, c, e);
	in = ev_info_load(dec, (int)type);
	if (in->min_size < 0 || dec->rec.size < in->min_size)
		return record_damaged(dec, c, e);
	record_take(dec, c, e, in, w);
	return e->lost ? 1 : in->ret;
}

/*
 * pick_cpu() of two CPUs after @c, the current one, moved and is no longer
 * strictly before the other (c->ts >= dec->rival_ts): the other when it is
 * earlier, or as early and the lower CPU.
 */
static inline struct dec_cpu *pick_two(struct bin_decoder *dec, struct dec_cpu *c)
{
	struct dec_cpu *o = dec->cpus + (c == dec->cpus);

	if (!o->data) {
		dec->rival_ts = ULLONG_MAX;
		return c;
	}
	if (c->ts > o->ts || o < c) {
		dec->rival_ts = c->ts;
		return o;
	}
	dec->rival_ts = o->ts;
	return c;
}

int bin_decoder_next(struct bin_decoder *dec, struct bin_event *e)
{
	struct dec_cpu *c = dec->cur;
	unsigned int type;
	uint64_t w;

	/* the event handed out last lives in its page until now */
	if (c) {
		advance(c, &dec->d, &dec->st);
		/*
		 * Only its CPU moved: while it stays strictly before the others
		 * it is the one pick_cpu() would pick (ties go to the lower CPU
		 * there), and runs of one CPU's events skip the scan.
		 */
		if (!c->data || c->ts >= dec->rival_ts)
			c = c->data && dec->nr == 2 ? pick_two(dec, c) : pick_cpu(dec);
		dec->cur = NULL;
	} else {
		c = pick_cpu(dec);
	}
	if (!c)
		return 0;
	e->cpu = c->cpu;
	e->ts = c->ts;
	e->lost = 0;
	e->damaged = 0;
	/* the rest of dec->rec is bin_decoder_open()'s, its ts and cpu bin_event_format()'s */
	dec->rec.data = c->data;
	dec->rec.size = c->ev_size;
	e->rec = &dec->rec;
	/* the page buffer's slack keeps 8 bytes readable past a shorter record */
	memcpy(&w, c->data, 8);
	type = (unsigned int)((w >> dec->type_shift) & dec->type_mask);
	/* one compare for the common record: a type looked at, a size it fits (and no LOST) */
	if (type >= dec->nr_info || dec->rec.size < dec->info[type].fit_from || c->has_lost)
		return record_other(dec, c, e, type, w);
	return record_take(dec, c, e, &dec->info[type], w);
}

void bin_event_format(struct bin_decoder *dec, const struct bin_event *e, struct trace_seq *s)
{
	unsigned long long secs, usecs;
	char tgid_s[16];

	if (e->lost) {
		char lost[64];

		lost_marker_format(lost, sizeof(lost), e->cpu, e->lost);
		trace_seq_puts(s, lost);
	}
	if (e->damaged)
		return;
	if (dec->kallsyms && (e->stack || needs_symbols(e->ev)))
		symbols_load(dec);
	if (e->tgid >= 0)
		snprintf(tgid_s, sizeof(tgid_s), "%d", e->tgid);
	else
		snprintf(tgid_s, sizeof(tgid_s), "-------");
	secs = e->ts / 1000000000ULL;
	usecs = (e->ts % 1000000000ULL) / 1000;
	/* bin_decoder_next() leaves these to the one reader of them */
	dec->rec.ts = e->ts;
	dec->rec.cpu = e->cpu;
	tep_print_event(dec->tep, s, e->rec, "%16s-%-7d ", TEP_PRINT_COMM, TEP_PRINT_PID);
	trace_seq_printf(s, "(%7s) [%03d] ", tgid_s, e->cpu);
	tep_print_event(dec->tep, s, e->rec, "%s", TEP_PRINT_LATENCY);
	trace_seq_printf(s, " %5llu.%06llu: ", secs, usecs);
	if (e->stack) {
		print_stack(dec, e, s);
	} else if (e->ev) {
		trace_seq_printf(s, "%s: ", e->ev->name);
		tep_print_event(dec->tep, s, e->rec, "%s\n", TEP_PRINT_INFO);
	} else {
		trace_seq_puts(s, "UNKNOWN EVENT\n");
	}
}

int bin_decode(const char *dir, bin_line_fn emit, void *ctx, struct bin_decode_stats *st)
{
	struct bin_decoder *dec = bin_decoder_open(dir);
	struct bin_event e;
	struct trace_seq s;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (!dec)
		return -1;
	trace_seq_init(&s);
	while (bin_decoder_next(dec, &e)) {
		trace_seq_reset(&s);
		bin_event_format(dec, &e, &s);
		trace_seq_terminate(&s);
		if (s.len && emit(s.buffer, s.len, ctx)) {
			ret = -1;
			break;
		}
	}
	trace_seq_destroy(&s);
	*st = dec->st;
	bin_decoder_close(dec);
	return ret;
}
