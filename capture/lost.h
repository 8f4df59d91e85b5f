/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's lost-event marker in trace text, "CPU:3 [LOST 120 EVENTS]"
 * (trace_pipe prints it where a CPU's ring buffer overwrote events): one
 * grammar for the collector, which counts the markers into trace.status,
 * and the analyzer, which closes that CPU's intervals.
 */
#ifndef MMLOCK_LOST_H
#define MMLOCK_LOST_H

#include <stddef.h>
#include <stdint.h>

/*
 * The longest line of trace text anything keeps.  A real event line is a
 * few hundred bytes (a stack frame less); a longer one is counted as
 * malformed and skipped, so memory does not follow a stream's longest line.
 */
#define TRACE_LINE_MAX	(64 * 1024)

/**
 * lost_marker_parse() - is @line a lost-event marker?
 * @line: the line (need not be NUL-terminated)
 * @len: its length, a trailing "\n" or "\r\n" included or not
 * @cpu: set to N of "CPU:N"
 * @count: set to M of "[LOST M EVENTS]"; a count beyond 2^64-1 saturates
 *
 * Grammar: optional blanks, "CPU:", decimal digits (at most INT_MAX),
 * " [LOST ", decimal digits, " EVENTS]", optional blanks and line end.  No
 * sign, no blank inside a number: "[LOST -5 EVENTS]" is no marker (the
 * analyzer counts it as a malformed line).
 *
 * Return: 1 when it is a marker (@cpu, @count set), else 0.
 */
int lost_marker_parse(const char *line, size_t len, int *cpu, uint64_t *count);

/* a + b, or UINT64_MAX where that overflows: lost counts never wrap to 0. */
static inline uint64_t u64_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif /* MMLOCK_LOST_H */
