// SPDX-License-Identifier: GPL-2.0
/*
 * Calls: a fault call, a VMA write, a retry gap, an acquisition, which the
 * intervals of one event sequence share; their memory and reference counts.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"
#include "call.h"

/*
 * Calls come from one slab per thread, shared by the analyses alive in it
 * and given back with the last of them: no free() per call, not even at
 * the end (a trace that ends with 1e5 open faults).
 */
static _Thread_local struct slab call_slab;
static _Thread_local unsigned int nr_analyses;

#define CALL_TEXT_END(m)	(offsetof(struct call, m) + sizeof(((struct call *)0)->m))

/* call_new() zeroes the numbers whole and the texts' first bytes: the texts are last */
_Static_assert(offsetof(struct call, caller) == CALL_TEXT_END(dev) &&
	       offsetof(struct call, user_pc) == CALL_TEXT_END(caller) &&
	       offsetof(struct call, stack) == CALL_TEXT_END(user_pc) &&
	       sizeof(struct call) - CALL_TEXT_END(stack) < _Alignof(struct call),
	       "struct call: dev, caller, user_pc and stack are its last members");

struct call *call_new(uint64_t ts)
{
	struct call *c = slab_take(&call_slab, sizeof(*c));

	memset(c, 0, offsetof(struct call, dev));
	c->dev[0] = c->caller[0] = c->user_pc[0] = c->stack[0] = '\0';
	c->refs = 1;
	c->ts = ts;
	return c;
}

void call_free(struct call *c)
{
	if (c->wpids)	/* seldom: a stock writer that had waiters */
		free(c->wpids);
	slab_free(&call_slab, c);
}

void call_users_add(void)
{
	nr_analyses++;
}

void call_users_drop(void)
{
	if (!--nr_analyses)
		slab_release(&call_slab);
}
