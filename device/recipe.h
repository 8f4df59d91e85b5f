/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recipes the device path runs beside mmlock's own trace (issue 18, item 2):
 * a Perfetto trace config (`perfetto --txt -c FILE`) and a simpleperf
 * command line, both recording the contract's events of one event source,
 * with user-space callstacks sampled on the tracepoints whose user_pc the
 * analyzer resolves.  Both timestamp with CLOCK_MONOTONIC, the collector's
 * default trace clock ("mono"), so their samples line up with the trace.
 *
 * The Perfetto config uses only fields of Perfetto v35.0, the release
 * Android 14 ships (protos/perfetto/config/ at tag v35.0);
 * tests/unit/perfetto_config.c checks every field against that grammar.
 */
#ifndef MMLOCK_DEVICE_RECIPE_H
#define MMLOCK_DEVICE_RECIPE_H

#include <stddef.h>
#include <stdint.h>

#include "evset.h"

/**
 * struct recipe_event - one trace event a recipe records
 * @system: its trace system
 * @name: its name
 * @stack_filter: for an event that callstacks are sampled on, the kernel
 *	filter of the sample ("" when every hit is sampled); NULL when no
 *	callstack is sampled on it
 */
struct recipe_event {
	char	*system;
	char	*name;
	char	*stack_filter;
};

/**
 * struct recipe - what a recipe records
 * @events: the events, in the contract's order
 * @nr_events: how many
 * @tgids: the processes whose callstacks are kept (none: every process)
 * @nr_tgids: how many
 * @duration_ms: how long the capture runs
 * @buffer_kb: the kernel's ring buffer per CPU, KiB
 * @callstacks: sample user and kernel callstacks on the stack events
 * @stack_all_listed: every SYSTEM:NAME event named in a list is a stack
 *	event (simpleperf samples what it is told to)
 * @cmdline: with no tgids, keep the callstacks of processes whose argv0 is
 *	this binary name (Perfetto's Scope.target_cmdline), or NULL
 */
struct recipe {
	struct recipe_event	*events;
	size_t			nr_events;
	int			*tgids;
	size_t			nr_tgids;
	uint64_t		duration_ms;
	uint64_t		buffer_kb;
	int			callstacks;
	int			stack_all_listed;
	const char		*cmdline;
};

/* Where `mmlock device run --perfetto` has perfetto write (traced may write there). */
#define RECIPE_PERFETTO_OUT	"/data/misc/perfetto-traces/mmlock.pftrace"

/**
 * recipe_events_add() - add the events named by @spec to @r
 * @r: the recipe (its @tgids already set: they go into the stack filters)
 * @spec: "kernel" (the default set of `mmlock record --source kernel` on an
 *	Android kernel: the contract's custom events and the stock mmap_lock
 *	events that GKI vendor modules need), "module" (mmlock_probe.ko's
 *	copies), "stock" (the stock-event mode's set), or a comma-separated
 *	list of SYSTEM:NAME events of the contract or of the stock additions
 * @why: on failure, what was wrong (a new string)
 *
 * The stack events are those of the contract with a user_pc field (a
 * fault's and a VMA writer's own user address), filtered to @r's tgids
 * through the contract's tgid field, and in the stock set the write
 * acquisitions of mmap_lock (the collector's stack trigger).
 *
 * Return: 0, or -1 with @why set (an unknown event, an empty list).
 */
int recipe_events_add(struct recipe *r, const char *spec, char **why);

/**
 * recipe_nr_stack_events() - how many of @r's events callstacks are sampled on
 * @r: the recipe
 *
 * Return: the count.
 */
size_t recipe_nr_stack_events(const struct recipe *r);

/**
 * recipe_release() - free what @r holds (not @r itself)
 * @r: the recipe
 */
void recipe_release(struct recipe *r);

/**
 * perfetto_config_build() - a Perfetto TraceConfig for @r, in text format
 * @r: the recipe
 * @device_out: the trace's path on the device, named in a comment
 *
 * linux.ftrace with @r's events, linux.process_stats (names, threads),
 * with @r->callstacks one linux.perf source per stack event (period 1 on
 * its tracepoint, callstacks scoped to @r's tgids, kernel frames), the
 * monotonic clock as the primary trace clock, @r->duration_ms, written
 * into the output file as it goes.
 *
 * Return: the text (a new string).
 */
char *perfetto_config_build(const struct recipe *r, const char *device_out);

/**
 * simpleperf_cmd_build() - the simpleperf record command line for @r
 * @r: the recipe (its stack events are sampled; its tgids are -p, none: -a)
 * @out: perf.data's path on the device
 *
 * Return: the command line, shell-quoted (a new string).
 */
char *simpleperf_cmd_build(const struct recipe *r, const char *out);

/**
 * cmd_device_perfetto_config() - `mmlock device perfetto-config`
 * @argc: argument count, argv[0] being "perfetto-config"
 * @argv: the arguments
 *
 * Return: an exit code (MMLOCK_EXIT_*).
 */
int cmd_device_perfetto_config(int argc, char **argv);

/**
 * cmd_device_simpleperf_cmd() - `mmlock device simpleperf-cmd`
 * @argc: argument count, argv[0] being "simpleperf-cmd"
 * @argv: the arguments
 *
 * Return: an exit code (MMLOCK_EXIT_*).
 */
int cmd_device_simpleperf_cmd(int argc, char **argv);

#endif /* MMLOCK_DEVICE_RECIPE_H */
