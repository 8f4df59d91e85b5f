/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector behind `mmlock record` and `mmlock convert`: the option
 * parser; a private tracefs instance (rtla's struct trace_instance, grown);
 * the per-CPU binary readers; and the trace.status writer.  What a capture
 * directory holds (chunks, codecs, pages, the LOST grammar) is the capture
 * layer's (capture/capture.h).  collector/README.md describes the output
 * directory and every trace.status key.
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

#include "capture.h"
#include "tracestatus.h"

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

/* -------------------------------------------- record and convert (cmd-*.c) */

struct record;

/**
 * record_init() - an empty run of @o, before anything is opened
 * @r: the run (struct record, record.h)
 * @o: its parsed options (kept, not copied)
 * @argc: the subcommand's argc, for trace.status's command_line
 * @argv: its argv (argv[0] the subcommand)
 */
void record_init(struct record *r, struct record_opts *o, int argc, char **argv);

/**
 * record_release() - free what a run holds, and remove an output
 *	directory it made if it failed before recording began
 * @r: the run
 * @ret: the exit code the run ends with
 */
void record_release(struct record *r, int ret);

/**
 * record_stop_signal() - the signal (SIGINT, SIGTERM, SIGHUP) that stopped
 *	the last run of this process, 0 when none did
 *
 * cmd_record() catches those signals while it runs and puts the caller's
 * handlers back before it returns; a caller that runs it in-process (mmlock
 * run) asks here whether the user wanted everything to stop.
 *
 * Return: the signal number, or 0.
 */
int record_stop_signal(void);

/**
 * record_error() - print an error once, and keep the first for trace.status
 * @r: the run
 * @fmt: printf format
 */
void record_error(struct record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * record_begin() - open the output directory and the chunk writer of a run
 *	that reads a stream (convert, --stdin), and mark it started
 * @r: the run
 *
 * Return: MMLOCK_EXIT_OK, or the exit code (the error is printed).
 */
int record_begin(struct record *r);

/**
 * record_feed() - hand bytes of the stream to the chunk writer
 * @r: the run
 * @buf: the bytes
 * @len: their number
 *
 * Return: 0, or -1 with errno EINTR (a stop signal came) or EIO (a chunk
 * could not be written: said, and the open chunk dropped).
 */
int record_feed(struct record *r, const char *buf, size_t len);

/**
 * record_end() - finish the last chunk, say why the run stopped, write
 *	the final trace.status
 * @r: the run
 * @failed: the stream ended in an error
 *
 * Return: 0, or -1 when the run failed (now or before).
 */
int record_end(struct record *r, int failed);

/**
 * record_convert() - `mmlock convert` (and `record --from-binary`): the
 *	binary capture @src decoded into text chunks in @r's output directory
 * @r: the run, from record_init()
 * @src: the binary capture's directory
 *
 * Return: an exit code: 0, 3 (@src is not a readable binary capture),
 * 4 (damaged pages skipped, the rest converted), 7 (output).
 */
int record_convert(struct record *r, const char *src);

/* --------------------------------------------------------------- instance */

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
/* Copy what a decoder needs (formats, header_page, printk_formats, kallsyms). */
int bin_save_formats(struct collector *c, int outdir_fd);

#endif /* MMLOCK_COLLECTOR_H */
