/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pairing: each event's handler, which opens and closes its task's
 * intervals (begin/end, wait/hold, the fault lifecycle).
 */
#ifndef MMLOCK_PAIRING_H
#define MMLOCK_PAIRING_H

#include <stdint.h>

#include "parse.h"

struct analysis;
struct task;

/* @t is the event's task; NULL for sched_switch, whose line names two others. */
typedef void (*pairing_handler)(struct analysis *an, struct task *t,
				const struct parsed_line *pl);

/* The handlers by event id, NULL for an event the analysis does not read. */
extern const pairing_handler pairing_handlers[PARSE_EV_NR];

/**
 * pairing_handler_of() - the handler of event @id
 * @id: a parsed line's id (enum mmlock_event_id or PARSE_EV_X())
 *
 * Inline: every event is dispatched through it.
 *
 * Return: the handler, or NULL for an event the analysis does not read.
 */
static inline pairing_handler pairing_handler_of(int id)
{
	return (unsigned int)id < PARSE_EV_NR ? pairing_handlers[id] : NULL;
}

/**
 * pairing_vm_flags() - vma_start_write_begin's flags=%lx
 * @s: the field's text, or NULL when absent
 * @flags: set to its value when it is one
 *
 * What strtoull(@s, 16) takes whole when @s starts with a hex digit (a "0x"
 * prefix included); the unit test compares the two.
 *
 * Return: 1 when @s is such a number below 2^64, 0 otherwise (absent, not
 * hex to its end, out of range).
 */
int pairing_vm_flags(const char *s, uint64_t *flags);

#endif /* MMLOCK_PAIRING_H */
