/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The grammar of a capture's process filter, written and read in one place:
 * the kernel filter expression the collector (collector/events.c) and a
 * device recipe (device/recipe.c) set on the contract's events, and
 * trace.status's one-line "filter" summary (collector/status.c writes it,
 * a device agent prints it, `mmlock run` reads which processes it kept).
 */
#ifndef MMLOCK_FILTER_H
#define MMLOCK_FILTER_H

#include <stddef.h>
#include <stdint.h>

struct ts_event;

/**
 * trace_filter_tgids() - the event filter that keeps these processes' events
 * @tgids: the processes (thread group ids)
 * @n: how many
 *
 * The contract's events carry a tgid field of their own, so the kernel
 * drops every other process's event before it reaches the ring buffer.
 *
 * Return: "tgid == A || tgid == B" (allocated), "" when @n is 0.
 */
char *trace_filter_tgids(const int *tgids, size_t n);

/**
 * trace_filter_line() - trace.status's one-line summary of what was filtered
 * @pids: the pids written to set_event_pid
 * @nr_pids: how many
 * @event_fork: option event-fork was on (children are followed)
 * @ev: the recorded events, @ev[i].name "system:name", with their filters
 * @nr_ev: how many
 *
 * Grammar: "set_event_pid P1 P2 ( +event-fork)" when there are pids, then
 * for each filtered event "; system:name: EXPR" ("; " only between parts).
 *
 * Return: the line (allocated), or NULL when nothing was filtered.
 */
char *trace_filter_line(const int *pids, size_t nr_pids, int event_fork,
			const struct ts_event *ev, size_t nr_ev);

/**
 * trace_filter_pids() - the processes a filter line keeps
 * @line: a line of trace_filter_line()'s grammar (or a device agent's)
 * @out: where the pids go
 * @max: room in @out
 *
 * The numbers after "set_event_pid", then each N of "tgid == N" in the event
 * filters (trace_filter_tgids()).  A malformed number ends the list it is in.
 *
 * Return: how many went into @out.
 */
size_t trace_filter_pids(const char *line, int64_t *out, size_t max);

#endif
