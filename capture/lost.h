/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The line grammar of trace text that is about captures rather than about
 * events: the kernel's lost-event marker, "CPU:3 [LOST 120 EVENTS]"
 * (trace_pipe prints it where a CPU's ring buffer overwrote events), and
 * the stack block ("<stack trace>" in place of an event's name, then one
 * " => func" line a frame).  One grammar for the decoder, which writes
 * them, the chunk writer, which counts them into trace.status and never
 * cuts a chunk inside a stack block, and the analyzer, which closes a CPU's
 * intervals at a marker.
 */
#ifndef MMLOCK_LOST_H
#define MMLOCK_LOST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/**
 * lost_marker_format() - the marker for @count events lost on @cpu, as
 *	trace_pipe prints it, with its newline
 * @buf: where to write it
 * @size: its size (64 is always enough)
 * @cpu: the CPU
 * @count: the events lost
 *
 * Return: its length, as snprintf() counts it.
 */
int lost_marker_format(char *buf, size_t size, int cpu, uint64_t count);

/* A stack block: its first line has this where an event's name would be... */
#define TRACE_STACK_HEAD	"<stack trace>"
/* ...and each frame line starts with this. */
#define TRACE_FRAME_PREFIX	" => "

/**
 * trace_line_is_frame() - is @line a frame line of a stack block?
 * @line: the line (need not be NUL-terminated)
 * @len: its length
 *
 * Return: 1 or 0.
 */
static inline int trace_line_is_frame(const char *line, size_t len)
{
	return len >= sizeof(TRACE_FRAME_PREFIX) - 1 &&
	       !memcmp(line, TRACE_FRAME_PREFIX, sizeof(TRACE_FRAME_PREFIX) - 1);
}

/* a + b, or UINT64_MAX where that overflows: lost counts never wrap to 0. */
static inline uint64_t u64_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif /* MMLOCK_LOST_H */
