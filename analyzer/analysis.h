/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMLOCK_ANALYSIS_H
#define MMLOCK_ANALYSIS_H

#include <stdint.h>

#include "parse.h"

struct json_object;
struct analysis;
struct ival;
struct maps_snapshots;
struct pair_rec;

struct analysis_opts {
	uint64_t	threshold_us;	/* Type-C score threshold of the verdict */
	unsigned int	top_n;		/* slowest pairs kept */
	int		stack_before;	/* stack blocks precede their event */
	/*
	 * mmlock export: each interval of a pairing sweep as it closes
	 * (@list: its enum sweep_list), each pair as it is found; NULL: none.
	 * The pointers are valid during the call (analysis-int.h).
	 */
	void		(*on_ival)(void *ctx, const struct ival *iv, int list);
	void		(*on_pair)(void *ctx, const struct pair_rec *p);
	void		*hook_ctx;
};

/* What the capture's metadata says, for the summary. */
struct summary_meta {
	const char	*workload;
	const char	*kernel;
	int		no_retry;		/* -1: unknown */
	int		retry_vma_lock;		/* -1: unknown */
	const char	*clock;
	const char	*filter;
	const char	*event_set;		/* from trace.status, or NULL */
	const char	*event_source;		/* kernel, module, stock, mixed; NULL: not said */
	const char	*module_caps;		/* the module's caps line, or NULL */
	const char	**events;		/* recorded events (system:name), or NULL */
	int		nr_events;
	int64_t		status_lost;		/* lost events the collector counted, -1 */
	unsigned long	chunks;
	unsigned long	truncated_inputs;
	struct json_object *input_errors;	/* array, reference taken */
	/*
	 * The capture's maps snapshots: user_pc values are resolved through
	 * them ("user_symbol"); NULL with maps_error NULL: the capture has none
	 * and the summary has no user_symbol at all.
	 */
	struct maps_snapshots *maps;
	const char	*maps_error;		/* the snapshots could not be read: why */
};

/**
 * analysis_new() - an empty analysis
 * @opts: its options, copied
 *
 * Return: the analysis (allocation failure exits, as xmalloc() does).
 */
struct analysis *analysis_new(const struct analysis_opts *opts);

/**
 * analysis_feed() - feed one parsed line
 * @an: the analysis
 * @pl: the line (any kind: event, stack block, [LOST] marker, header)
 */
void analysis_feed(struct analysis *an, const struct parsed_line *pl);

/**
 * analysis_malformed() - count a malformed line (the caller reports it)
 * @an: the analysis
 */
void analysis_malformed(struct analysis *an);

/**
 * analysis_finish() - end of input: what is still open is counted unclosed
 * @an: the analysis; only analysis_summary() and analysis_free() may follow
 */
void analysis_finish(struct analysis *an);

/**
 * analysis_trace_lines() - the lines that were trace events or markers
 * @an: the analysis
 *
 * Return: their number (not headers, not malformed lines).
 */
unsigned long analysis_trace_lines(const struct analysis *an);

/**
 * analysis_summary() - the summary JSON of a finished analysis (summary.c)
 * @an: the analysis, after analysis_finish()
 * @meta: what the capture's metadata says
 *
 * Return: a new JSON object (reference owned by the caller).
 */
struct json_object *analysis_summary(struct analysis *an, const struct summary_meta *meta);

/**
 * analysis_free() - free @an (finishing it first if need be)
 * @an: the analysis, or NULL
 */
void analysis_free(struct analysis *an);

#endif /* MMLOCK_ANALYSIS_H */
