/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calls (struct call, analysis-int.h): shared by the intervals that refer to
 * them, counted by reference.
 */
#ifndef MMLOCK_CALL_H
#define MMLOCK_CALL_H

#include <stdint.h>

#include "analysis-int.h"

/**
 * call_new() - a zeroed call holding one reference
 * @ts: its time stamp (struct call's ts)
 *
 * Return: the call.
 */
struct call *call_new(uint64_t ts);

/**
 * call_free() - free @c, whose last reference was dropped (call_put())
 * @c: the call
 */
void call_free(struct call *c);

/**
 * call_get() - take a reference on @c
 * @c: a call, or NULL
 *
 * Return: @c.
 */
static inline struct call *call_get(struct call *c)
{
	if (c)
		c->refs++;
	return c;
}

/**
 * call_put() - drop a reference on @c; the last one frees it
 * @c: a call, or NULL
 */
static inline void call_put(struct call *c)
{
	if (c && !--c->refs)
		call_free(c);
}

/**
 * call_users_add() - one more analysis allocates calls in this thread
 */
void call_users_add(void);

/**
 * call_users_drop() - one analysis less; the last one frees every call's memory
 *
 * Every call of every analysis of this thread must have been put by then.
 */
void call_users_drop(void);

#endif /* MMLOCK_CALL_H */
