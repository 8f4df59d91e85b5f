/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMLOCK_PARSE_H
#define MMLOCK_PARSE_H

#include <stdint.h>

enum line_kind {
	LINE_EVENT,		/* COMM-PID [CPU] FLAGS TS: NAME: PAYLOAD */
	LINE_STACK,		/* an event line whose name is <stack trace> */
	LINE_FRAME,		/* " => func" */
	LINE_LOST,		/* CPU:N [LOST n EVENTS] */
	LINE_HEADER,		/* comment, blank, trace-cmd header */
	LINE_MALFORMED,
};

#define PARSE_MAX_FIELDS 32

struct parsed_line {
	enum line_kind	kind;
	const char	*comm;		/* NUL-terminated inside the line buffer */
	int		pid;
	int		tgid;		/* -1 when the line has no TGID column */
	int		cpu;
	uint64_t	ts_ns;
	const char	*event;		/* event name */
	const char	*frame;		/* LINE_FRAME: the function */
	uint64_t	lost;		/* LINE_LOST: how many */
	const char	*what;		/* LINE_MALFORMED: what was expected */
	int		nr_fields;
	const char	*keys[PARSE_MAX_FIELDS];
	const char	*vals[PARSE_MAX_FIELDS];
};

/*
 * Parse one line in place (the buffer is modified: NULs split it).  Never
 * fails: an unrecognised line is LINE_MALFORMED with @what set.
 */
void parse_line(char *line, struct parsed_line *out);

/* The value of @key, or NULL. */
const char *parsed_get(const struct parsed_line *pl, const char *key);

#endif /* MMLOCK_PARSE_H */
