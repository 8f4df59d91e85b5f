/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture layer: what a capture directory holds and how it is written
 * and read, below every command (trace-cmd's lib/trace-cmd/ is the model).
 * `mmlock record` writes through it, `mmlock analyze`, `compare`, `convert`
 * and `device` read (and write) through it; it includes neither the
 * collector's nor the analyzer's headers.
 *
 *   chunk.c        chunk names and suffixes, the codecs' write side, the
 *                  chunk writer (line-complete, numbered, atomic)
 *   input.c        the reader: chunks and files as one text stream, plain,
 *                  gzip or zstd, truncated and unfinished chunks (input.h)
 *   decode.c       a binary capture's pages read record by record, or
 *                  decoded into trace_pipe text
 *   page.c         one ring-buffer page checked and counted
 *   lost.c         the "CPU:N [LOST M EVENTS]" grammar (lost.h)
 *   tracedat.c     trace-cmd's trace.dat through libtracecmd, read in a child
 *                  process (tracedat.h)
 *   tracestatus.c  trace.status: read, and the parts its writers share
 *                  (tracestatus.h)
 *
 * Output files go through common/outfile.h, which stays in common/: it is
 * not about captures (summaries, reports and comparisons use it too).
 *
 * Functions return -1 (or NULL) with errno set and never exit, except
 * where common/util.h's x*alloc() end the process on out-of-memory.
 */
#ifndef MMLOCK_CAPTURE_H
#define MMLOCK_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "outfile.h"

/* ------------------------------------------------------------------ chunks */

/* How a chunk is stored; the reader tells them apart by their first bytes. */
enum chunk_compress {
	CHUNK_NONE,
	CHUNK_GZIP,
	CHUNK_ZSTD,
};

/* When the chunk writer cuts a chunk. */
struct chunk_limits {
	uint64_t	lines;		/* 0: no limit */
	uint64_t	bytes;		/* uncompressed bytes, 0: no limit */
	uint64_t	usecs;		/* age of the chunk, 0: no limit */
};

/* One completed chunk. */
struct chunk_info {
	char		*name;		/* "trace-000001.txt.gz" */
	uint64_t	lines;		/* every line */
	uint64_t	events;		/* lines that are events (not " => " frames, not LOST) */
	uint64_t	lost_markers;	/* sum of "CPU:N [LOST M EVENTS]" */
	uint64_t	bytes;		/* uncompressed */
	uint64_t	stored_bytes;	/* on disk */
	uint64_t	start_us;	/* CLOCK_MONOTONIC when opened / closed */
	uint64_t	end_us;
};

struct chunk_stream;

/* A text stream in, numbered chunk files out (chunk.c). */
struct chunk_writer {
	int			dirfd;
	enum chunk_compress	compress;
	int			level;
	int			do_fsync;
	struct chunk_limits	limits;

	/* the chunk being written; fd < 0 when none is open */
	int			fd;
	struct outfile		out;
	unsigned int		next_index;
	char			part_name[80];	/* its temporary name */
	struct chunk_stream	*stream;
	struct chunk_info	cur;

	/* a line not yet complete, carried to the next feed */
	char			*carry;
	size_t			carry_len;
	size_t			carry_cap;

	struct chunk_info	*chunks;
	size_t			nr_chunks;
	size_t			chunks_cap;

	/* totals over completed and current chunks */
	uint64_t		lines;
	uint64_t		events;
	uint64_t		bytes;
	uint64_t		lost_markers;
	uint64_t		*lost_cpu;	/* LOST markers per CPU */
	int			nr_lost_cpu;
	int			unterminated;	/* a final line had no '\n' */
	uint64_t		overlong_lines;	/* longer than TRACE_LINE_MAX: dropped */
	int			skipping;	/* inside such a line */
	uint64_t		discarded_events; /* in a .part dropped after an error */

	/* called after each chunk is renamed into place */
	void			(*on_chunk)(void *ctx);
	void			*ctx;
};

/**
 * chunk_compress_name() - the name of a compression, as trace.status says it
 * @c: the compression
 *
 * Return: "gzip", "zstd" or "none".
 */
const char *chunk_compress_name(enum chunk_compress c);

/**
 * chunk_compress_parse() - a compression from its name
 * @s: "gzip" (or "gz"), "zstd" (or "zst") or "none"
 * @c: set on success
 *
 * Return: 0, or -1 with errno EINVAL.
 */
int chunk_compress_parse(const char *s, enum chunk_compress *c);

/**
 * chunk_suffix() - the file-name suffix of a compression
 * @c: the compression
 *
 * Return: ".gz", ".zst" or "".
 */
const char *chunk_suffix(enum chunk_compress c);

/**
 * chunk_name() - the name of chunk @index: "trace-%06u.txt[.gz|.zst]"
 * @buf: where to write it
 * @size: its size
 * @index: the chunk's number, from 1
 * @c: its compression
 *
 * Return: @buf.
 */
char *chunk_name(char *buf, size_t size, unsigned int index, enum chunk_compress c);

/**
 * chunk_name_is() - is @name a file of trace text a capture directory holds?
 * @name: a directory entry's name
 *
 * Our chunks (.txt, .txt.gz, .txt.zst), their unfinished .part files, and
 * the names other tools give trace text (.gz, .zst, .trace); never a hidden
 * file.
 *
 * Return: 1 or 0.
 */
int chunk_name_is(const char *name);

/**
 * chunk_option_parse() - the value of an option every chunk writer's
 *	command takes (record, convert)
 * @name: the long option: "compress", "level", "chunk-lines",
 *	"chunk-bytes" or "chunk-seconds"
 * @arg: its value
 * @c: set by "compress"
 * @level: set by "level"
 * @limits: set by the chunk-* options
 * @why: set to what was expected, for the caller's message
 *
 * Return: 0, -1 when @arg is not a valid value, 1 when @name is none of
 * these options.
 */
int chunk_option_parse(const char *name, const char *arg, enum chunk_compress *c, int *level,
		       struct chunk_limits *limits, const char **why);

/**
 * chunk_writer_init() - set up a writer of chunks into a directory
 * @cw: the writer
 * @dirfd: the capture directory
 * @c: the compression
 * @level: its level (<= 0: 1)
 * @limits: when to cut a chunk, or NULL for never
 *
 * Return: 0, or -1 with errno.
 */
int chunk_writer_init(struct chunk_writer *cw, int dirfd, enum chunk_compress c,
		      int level, const struct chunk_limits *limits);

/**
 * chunk_writer_feed() - append bytes of a text stream
 * @cw: the writer
 * @buf: the bytes, any split of the stream
 * @len: their number
 * @now_us: CLOCK_MONOTONIC, for the age limit
 *
 * Chunks are cut only between lines, never inside a stack block.
 *
 * Return: 0, or -1 with errno (a write failed: call chunk_writer_abort()).
 */
int chunk_writer_feed(struct chunk_writer *cw, const char *buf, size_t len, uint64_t now_us);

/**
 * chunk_writer_tick() - close the open chunk once it is older than the limit
 * @cw: the writer
 * @now_us: CLOCK_MONOTONIC
 *
 * Return: 0, or -1 with errno.
 */
int chunk_writer_tick(struct chunk_writer *cw, uint64_t now_us);

/**
 * chunk_writer_finish() - end of stream: the last line and chunk completed
 * @cw: the writer
 * @now_us: CLOCK_MONOTONIC
 *
 * Return: 0, or -1 with errno.
 */
int chunk_writer_finish(struct chunk_writer *cw, uint64_t now_us);

/**
 * chunk_writer_abort() - after a write error: drop the open .part file
 * @cw: the writer
 *
 * Completed chunks are kept; the events of the dropped one are counted in
 * @cw->discarded_events.
 */
void chunk_writer_abort(struct chunk_writer *cw);

/**
 * chunk_writer_release() - free the writer (aborting an open chunk)
 * @cw: the writer
 */
void chunk_writer_release(struct chunk_writer *cw);

/* ------------------------------------------------------------------ pages */

/**
 * struct page_count - what one file of ring-buffer pages holds
 * @pages: whole pages
 * @bytes: the bytes read
 * @events: events in the pages
 * @missed: events the pages say the kernel overwrote (kbuffer's count)
 * @bad_pages: pages whose commit or an event does not fit the page
 * @tail_bytes: bytes after the last whole page (a stream cut mid-page)
 * @missed_unknown: pages flagged with an unknown missed count
 */
struct page_count {
	uint64_t	pages, bytes, events, missed, bad_pages, tail_bytes;
	int		missed_unknown;
};

struct kbuffer;

/**
 * page_count_one() - check one page of this host's word size and byte order
 *	and add its events and missed events to @c
 * @kbuf: a kbuffer of this host's layout (kbuffer_alloc)
 * @page: the page, followed by PAGE_COUNT_SLACK readable bytes
 * @page_size: its size
 * @c: counts added to (@pages, @bytes and @tail_bytes are the caller's)
 *
 * A page whose commit size or one of whose events does not fit the page is
 * counted in @c->bad_pages and its events are not counted.
 *
 * Return: 0, or -1 when the page is damaged.
 */
int page_count_one(struct kbuffer *kbuf, const void *page, int page_size,
		   struct page_count *c);

/* kbuffer may read a few bytes past an event header it was handed. */
#define PAGE_COUNT_SLACK	4096

/**
 * page_count_file() - count the pages, events and missed events of a raw file
 * @dirfd: the capture folder
 * @name: e.g. "raw/cpu000.raw" (a link is refused)
 * @page_size: the ring buffer's page size
 * @c: filled
 *
 * Return: 0, or -1 with errno (the file cannot be read).
 */
int page_count_file(int dirfd, const char *name, int page_size, struct page_count *c);

/* ----------------------------------------------------------------- decode */

/* What bin_decode() met. */
struct bin_decode_stats {
	uint64_t	events;
	uint64_t	missed;		/* printed as LOST lines */
	uint64_t	pages;
	uint64_t	bad_pages;	/* damaged (header, event beyond the commit): skipped */
	int		missed_unknown;	/* pages flagged with an unknown count */
};

/* One text line, '\n'-terminated (a stack block is one call); non-zero stops. */
typedef int (*bin_line_fn)(const char *line, size_t len, void *ctx);

/**
 * bin_capture_check() - does @dir look like a binary capture?
 * @dir: the directory
 * @err: set to a message (allocated) naming the file that is missing or
 *	wrong and what was expected there
 *
 * Only what is there is checked (raw/, raw/cpu000.raw,
 * tracefs/events/header_page), not what the files hold: bin_decode()
 * checks that as it reads.
 *
 * Return: 0, or -1 with errno (ENOENT, ENOTDIR) and @err set.
 */
int bin_capture_check(const char *dir, char **err);

/**
 * bin_capture_is() - will input_open() read @dir as a binary capture?
 * @dir: a path
 *
 * Return: 1 when @dir is a directory with a raw/ folder and no trace chunk
 * (chunk_name_is()), else 0.  What raw/ holds is checked as it is read.
 */
int bin_capture_is(const char *dir);

struct bin_decoder;
struct tep_event;
struct tep_handle;
struct tep_record;
struct trace_seq;

/**
 * struct bin_event - one record of a binary capture, CPUs merged by time
 * @cpu: the CPU whose pages hold it
 * @ts: its timestamp, nanoseconds
 * @lost: events the kernel overwrote before it on @cpu (a LOST line goes
 *	before it), 0 for none
 * @damaged: the record does not fit its format: only @lost is valid, the
 *	rest of its page was skipped (counted in bad_pages)
 * @pid: common_pid
 * @tgid: from saved_tgids, -1 when unknown
 * @stack: an ftrace kernel_stack record (bin_stack_frame())
 * @ev: its format, NULL when the capture has none for its id
 * @rec: the record; valid until the next bin_decoder_next()
 */
struct bin_event {
	int			cpu;
	unsigned long long	ts;
	uint64_t		lost;
	int			damaged;
	int			pid;
	int			tgid;
	int			stack;
	struct tep_event	*ev;
	struct tep_record	*rec;
};

/**
 * bin_decoder_open() - start reading a binary capture
 * @dir: the capture (raw/cpuNNN.raw, tracefs/, kallsyms)
 *
 * Return: the decoder, or NULL with errno (ENOENT: no formats or no CPU's
 * pages; ENOTBLK, EFBIG: a file of tracefs/ that is not a bounded regular
 * file; an open error of raw/cpuNNN.raw).
 */
struct bin_decoder *bin_decoder_open(const char *dir);

/* bin_decoder_next()'s answer for a record without anything to look at first. */
#define BIN_PLAIN	2

/**
 * bin_decoder_next() - the next record
 * @dec: the decoder
 * @e: filled
 *
 * Return: BIN_PLAIN for a record that has a format (@e->ev), is not a
 * stack, has no LOST line before it and is not damaged: the common one,
 * told with no look at @e; 1 for any other record; 0 when every CPU's
 * pages are read.
 */
int bin_decoder_next(struct bin_decoder *dec, struct bin_event *e);

/**
 * bin_decoder_tep() - the capture's formats and symbols
 * @dec: the decoder
 *
 * Return: the libtraceevent handle, owned by @dec.
 */
struct tep_handle *bin_decoder_tep(const struct bin_decoder *dec);

/**
 * bin_decoder_stats() - what was met so far
 * @dec: the decoder
 *
 * Return: the counts, owned by @dec.
 */
const struct bin_decode_stats *bin_decoder_stats(const struct bin_decoder *dec);

/**
 * bin_stack_frame() - frame @i of a kernel_stack record
 * @dec: the decoder
 * @e: a record with @e->stack set
 * @i: the frame, from 0
 * @buf: where an address without a symbol is written ("0x..."),
 *	at least 20 bytes
 * @size: its size
 *
 * Return: the function's name (owned by @dec) or @buf, as the text shows
 * it after " => "; NULL past the last frame.
 */
const char *bin_stack_frame(struct bin_decoder *dec, const struct bin_event *e,
			    unsigned int i, char *buf, size_t size);

/**
 * bin_function() - the function of the capture's kallsyms that holds @addr
 * @dec: the decoder
 * @addr: a kernel address
 * @start: set to the function's address when one is found (may be NULL)
 *
 * Return: its name (owned by @dec), as libtraceevent's %pS prints it, or
 * NULL (no kallsyms, or no symbol below @addr).
 */
const char *bin_function(struct bin_decoder *dec, unsigned long long addr,
			 unsigned long long *start);

/**
 * bin_event_format() - a record as the text bin_decode() emits
 * @dec: the decoder
 * @e: the record
 * @s: appended to: its LOST line, then its line (and stack lines)
 */
void bin_event_format(struct bin_decoder *dec, const struct bin_event *e, struct trace_seq *s);

/**
 * bin_decoder_close() - free the decoder (NULL is fine); errno is kept
 * @dec: the decoder
 */
void bin_decoder_close(struct bin_decoder *dec);

/**
 * bin_decode() - a binary capture as trace_pipe text
 * @dir: the capture (raw/cpuNNN.raw, tracefs/, kallsyms)
 * @emit: called for each line (record-tgid layout), CPUs merged by timestamp
 * @ctx: for @emit
 * @st: filled
 *
 * Return: 0, or -1 with errno (ENOENT: not a binary capture; the errno
 * @emit left when it stopped the decode).
 */
int bin_decode(const char *dir, bin_line_fn emit, void *ctx, struct bin_decode_stats *st);

#endif /* MMLOCK_CAPTURE_H */
