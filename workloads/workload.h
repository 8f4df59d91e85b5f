/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload is one descriptor (stress-ng's stressor_info style): its name,
 * options, how to run it and how to report what it did.  `mmlock workload
 * NAME` runs one; `mmlock run` runs them under the tracer.
 */
#ifndef MMLOCK_WORKLOAD_H
#define MMLOCK_WORKLOAD_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct workload_common {
	uint64_t	duration_us;	/* --duration */
	const char	*dir;		/* --dir: where files are created */
	int		gate;		/* --gate: stop until SIGCONT after printing the TGID */
	const char	*report_path;	/* --report FILE (default stdout) */
	int		quiet;
};

/*
 * A parameter: a long in the workload's state at @offset, set by --NAME,
 * within [lo, hi], reported under NAME (dashes as underscores).
 */
struct wl_param {
	const char	*name;
	size_t		offset;
	long		dflt, lo, hi;
	const char	*help;
};

#define WL_PARAM(state, field, name, dflt, lo, hi, help) \
	{ name, offsetof(state, field), dflt, lo, hi, help }

/* A text parameter: a const char * in the state at @offset, set by --NAME. */
struct wl_sparam {
	const char	*name;
	size_t		offset;
	const char	*dflt;
	const char	*help;
};

#define WL_SPARAM(state, field, name, dflt, help) \
	{ name, offsetof(state, field), dflt, help }

struct workload {
	const char		*name;
	const char		*summary;
	const struct wl_param	*params;	/* NULL-name terminated */
	const struct wl_sparam	*sparams;	/* text ones: NULL, or NULL-name terminated */
	size_t			size;		/* of its state, zeroed, params set */
	int			(*run)(void *priv, const struct workload_common *c);
	/* What it did: results into @out, plus the seed's output contract. */
	void			(*report)(void *priv, json_object *out);
	void			(*fini)(void *priv);
	/*
	 * Why it runs on an Android device only (through `mmlock device run`),
	 * or NULL: it runs anywhere.
	 */
	const char		*device_only;
	/*
	 * Its load is other processes (apps it has Android start): the capture
	 * covers every process, not its TGID, and the contract says so.
	 */
	int			trace_all;
};

extern const struct workload wl_vma_contention;
extern const struct workload wl_fork_fault;
extern const struct workload wl_mmap_churn;
extern const struct workload wl_maps_reader;
extern const struct workload wl_reclaim;
extern const struct workload wl_extmem;
extern const struct workload wl_app_rotation;

const struct workload *workload_find(const char *name);
extern const struct workload *const workloads[];

/* ---- helpers shared by the workloads (workloads/common.c) ---- */

/* A file of @pages pages under @dir, every page written once and synced. */
int wl_make_file(const char *dir, const char *name, unsigned long pages, char **path_out);
/*
 * A shared file mapping of @pages pages, dirtied once and written back, then
 * evicted so the first touches fault with I/O.
 */
struct wl_mapped_file {
	char		*path;
	int		fd;
	char		*map;
	size_t		len;
	unsigned long	pages;
};
int wl_map_file(struct wl_mapped_file *m, const char *dir, const char *name,
		unsigned long pages);
void wl_unmap_file(struct wl_mapped_file *m);
/* Load one byte of each of @n pages from *@page on (wrapping) into @sink. */
void wl_sweep(const struct wl_mapped_file *m, unsigned long *page, unsigned long n,
	      volatile unsigned long *sink);
/*
 * The main thread's loop: until @duration_us, call @tick about every
 * millisecond (with the time since the start) and evict @f every
 * @drop_period_us (0: never).  Returns the time it ran; *@drops counts evictions.
 */
uint64_t wl_drive(uint64_t duration_us, struct wl_mapped_file *f, uint64_t drop_period_us,
		  void (*tick)(void *arg, uint64_t elapsed_us), void *arg,
		  unsigned long *drops);
/* Evict the range from the page tables (MADV_DONTNEED) and the page cache. */
int wl_drop_range(void *addr, size_t len, int fd);
/* Per-thread priority: nice (-20..19) or, when fifo > 0, SCHED_FIFO at that priority. */
int wl_set_priority(int nice_val, int fifo);
/* Current kernel prio as the tracepoints print it (from /proc/thread-self/stat). */
int wl_kernel_prio(void);
/* Whether our events and sysctls exist on the running kernel. */
void wl_kernel_facts(json_object *out);
uint64_t wl_now_us(void);
void wl_sleep_us(uint64_t us);
/*
 * Reader threads faulting @f: each sweeps pages from its own start (or, with
 * @random, loads random pages) until stopped, at the given priority, after
 * @gate opens (when set).
 */
#define WL_MAX_THREADS 64
struct wl_readers {
	struct wl_mapped_file	*f;
	struct wl_gate		*gate;
	int			n, nice_val, fifo, random;
	int			started, kernel_prio;
	volatile int		stop;
	unsigned long		loads, prio_errors;	/* atomically updated */
	volatile unsigned long	sink;
	int			tids[WL_MAX_THREADS];
	void			*threads, *args;
};
int wl_readers_start(struct wl_readers *r);
void wl_readers_stop(struct wl_readers *r);
void wl_readers_report(const struct wl_readers *r, json_object *out);
/* A start gate several threads wait on until it is opened. */
struct wl_gate {
	int		open;
	void		*impl;
};
void wl_gate_init(struct wl_gate *g);
void wl_gate_wait(struct wl_gate *g);
void wl_gate_open(struct wl_gate *g);
void wl_gate_destroy(struct wl_gate *g);
/*
 * What the faults of a run cost in I/O: getrusage() fault counts and the
 * sectors read by the block device under the workload's file, so policies
 * can be compared per MiB read (no-retry maps one page per major fault where
 * stock's retry redoes fault-around: the difference shows as minor faults).
 */
struct wl_fault_meter {
	long		majflt, minflt;		/* during the run */
	long long	read_bytes;		/* -1: the file has no block device */
	char		stat_path[64];		/* /sys/dev/block/MAJ:MIN/stat */
	long		majflt0, minflt0;
	long long	sectors0;
};
void wl_fault_meter_start(struct wl_fault_meter *m, int fd);
void wl_fault_meter_stop(struct wl_fault_meter *m);
/* Adds "major_faults", "minor_faults" and "faults" (per MiB read) to @out. */
void wl_fault_meter_report(const struct wl_fault_meter *m, json_object *out);
/* The seed's output contract, as JSON keys. */
void wl_output_contract(json_object *out, const char *phase, const char *decision,
			const char *evidence, const char *fallback, const char *blocker,
			const char *next);

#endif /* MMLOCK_WORKLOAD_H */
