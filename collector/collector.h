/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector behind `mmlock record`: a chunk writer that cuts a text
 * stream into line-complete, numbered, compressed files; the option parser;
 * a private tracefs instance (rtla's struct trace_instance, grown); the
 * per-CPU binary readers; and the trace.status writer.  collector/README.md
 * describes the output directory and every trace.status key.
 *
 * Library-style functions return -1 (or NULL) with errno set; only the
 * subcommand (cmd-record.c) prints and picks exit codes.
 */
#ifndef MMLOCK_COLLECTOR_H
#define MMLOCK_COLLECTOR_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "outfile.h"

/* ------------------------------------------------------------------ chunks */

enum chunk_compress {
	CHUNK_NONE,
	CHUNK_GZIP,
	CHUNK_ZSTD,
};

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

const char *chunk_compress_name(enum chunk_compress c);
int chunk_compress_parse(const char *s, enum chunk_compress *c);
const char *chunk_suffix(enum chunk_compress c);
/* "trace-%06u.txt[.gz|.zst]" into @buf; returns @buf */
char *chunk_name(char *buf, size_t size, unsigned int index, enum chunk_compress c);

int chunk_writer_init(struct chunk_writer *cw, int dirfd, enum chunk_compress c,
		      int level, const struct chunk_limits *limits);
/* Append bytes of a text stream; chunks are cut only between lines. */
int chunk_writer_feed(struct chunk_writer *cw, const char *buf, size_t len, uint64_t now_us);
/* Close the open chunk when it has grown older than the seconds limit. */
int chunk_writer_tick(struct chunk_writer *cw, uint64_t now_us);
/* End of stream: terminate a last partial line and close the open chunk. */
int chunk_writer_finish(struct chunk_writer *cw, uint64_t now_us);
/* After a write error: drop the open .part file, keep completed chunks. */
void chunk_writer_abort(struct chunk_writer *cw);
void chunk_writer_release(struct chunk_writer *cw);


/* ----------------------------------------------------------------- options */

struct filter_spec {
	char	*event;		/* as given: "name" or "system:name" */
	char	*expr;
};

struct record_opts {
	const char		*output;
	const char		*tracefs;	/* --tracefs or $MMLOCK_TRACEFS */
	char			**events;	/* specs as given, split at ',' */
	size_t			nr_events;
	struct filter_spec	*filters;
	size_t			nr_filters;
	char			**stacks;
	size_t			nr_stacks;
	int			tgid;		/* 0: none */
	uint64_t		buffer_kb;	/* per CPU */
	const char		*clock;
	struct chunk_limits	limits;
	enum chunk_compress	compress;
	int			level;
	uint64_t		duration_us;	/* 0: until stopped */
	int			force;
	int			binary;
	int			use_stdin;
	const char		*from_binary;	/* --from-binary DIR */
	int			source;		/* enum evset_source of the default set */
	int			dry_run;	/* --dry-run: print the setup, record nothing */
	int			progress;
	int			no_fsync;
	int			help;
	char			**cmd;		/* -- COMMAND ARGS..., NULL-terminated */
	int			nr_cmd;
};

/* 0 ok, -1 bad usage (message printed); o->help set for --help. */
int record_parse_args(int argc, char **argv, struct record_opts *o);
void record_opts_release(struct record_opts *o);
void record_usage(FILE *out);
/* "event:expr" or "system:event:expr" -> 0, else -1 with errno EINVAL */
int filter_spec_split(const char *arg, char **event, char **expr);

/* Levenshtein distance, for "did you mean". */
size_t edit_distance(const char *a, const char *b);
/*
 * Up to @max names of @names closest to @want (bare names compared with the
 * part after ':'), best first, into @out; returns how many.
 */
size_t closest_names(const char *want, char *const *names, size_t nr,
		     const char **out, size_t max);

/* --------------------------------------------------------------- instance */

struct cpu_stats {
	uint64_t	entries;
	uint64_t	overrun;
	uint64_t	commit_overrun;
	uint64_t	bytes;
	uint64_t	dropped;
	uint64_t	read;
	int		valid;
};

/* Parse a per_cpu/cpuN/stats file; -1 with EINVAL when a field is missing. */
int cpu_stats_parse(const char *text, struct cpu_stats *st);

struct rec_event {
	char	*system;
	char	*name;
	char	*filter;	/* as written, NULL when none */
	char	*trigger;	/* as written, NULL when none */
	int	custom;		/* has the contract's tgid field */
	const char *stack_if;	/* default stack trigger's condition, NULL when none */
};

struct tracefs_instance;

struct collector {
	struct tracefs_instance	*inst;
	char			name[64];
	char			*tracing_dir;
	int			nr_cpus;
	struct rec_event	*events;
	size_t			nr_events;
	char			**available;	/* "system:name", from available_events */
	size_t			nr_available;
};

/* Mount tracefs where needed; -1 with errno (ENOENT: not a tracefs). */
int collector_find_tracefs(const char *override, char **dir);
/* Remove mmlock-PID instances whose PID is gone (all of them with @all). */
int collector_remove_stale(const char *tracing_dir, int all,
			   void (*report)(const char *name, void *ctx), void *ctx);
int collector_create(struct collector *c, const char *tracing_dir);
void collector_destroy(struct collector *c);
int collector_load_available(struct collector *c);
/*
 * Resolve "name" or "system:name" against the kernel.  0 and *sys, *name
 * (allocated) on success; -1 with errno ENOENT (not found) or EEXIST
 * (a bare name found in more than one system).
 */
int collector_resolve(struct collector *c, const char *spec, char **sys, char **name);
int collector_read_stats(struct collector *c, struct cpu_stats *st);

/* ----------------------------------------------------------------- binary */

struct bin_cpu {
	int		cpu;
	int		fd;		/* output file */
	int		raw_fd;		/* trace_pipe_raw */
	struct tracefs_cpu *tcpu;
	uint64_t	pages;
	uint64_t	bytes;
	uint64_t	events;
	uint64_t	missed;		/* kbuffer_missed_events sum */
	uint64_t	discarded;	/* events of a page that could not be written */
	int		missed_unknown;	/* pages flagged with an unknown count */
	int		err;		/* errno of a failure, 0 */
	char		name[64];
};

struct bin_reader {
	struct bin_cpu	*cpus;
	int		nr_cpus;
	int		page_size;
	volatile int	stop;		/* set by the main thread */
	volatile int	failed;		/* set by a reader on a write error */
	void		*threads;
	int		started;
};

int bin_reader_start(struct bin_reader *br, struct collector *c, int outdir_fd);
/* Stop the readers after tracing was turned off: each drains its CPU. */
int bin_reader_stop(struct bin_reader *br);
void bin_reader_release(struct bin_reader *br);
/* Count events and missed events in one raw page; -1 when it is not one. */
int bin_page_count(const void *page, int page_size, uint64_t *events, uint64_t *missed,
		   int *missed_unknown);
/* Copy what a decoder needs (formats, header_page, printk_formats, kallsyms). */
int bin_save_formats(struct collector *c, int outdir_fd);

/* ----------------------------------------------------------------- decode */

struct bin_decode_stats {
	uint64_t	events;
	uint64_t	missed;		/* printed as LOST lines */
	uint64_t	pages;
	uint64_t	bad_pages;	/* damaged (header, event beyond the commit): skipped */
	int		missed_unknown;	/* pages flagged with an unknown count */
};

/* One text line, '\n'-terminated (a stack block is one call); non-zero stops. */
typedef int (*bin_line_fn)(const char *line, size_t len, void *ctx);

/*
 * Turn a binary capture in @dir back into trace_pipe text (record-tgid
 * layout), CPUs merged by timestamp, calling @emit for each event.
 * 0 on success; -1 with errno (ENOENT: not a binary capture).
 */
int bin_decode(const char *dir, bin_line_fn emit, void *ctx, struct bin_decode_stats *st);

#endif /* MMLOCK_COLLECTOR_H */
