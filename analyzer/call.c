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

/*
 * call_new() sets each member before the texts by name: a member added
 * changes the size, and this asks for it to be set there too.
 */
_Static_assert(offsetof(struct call, dev) == 124 && sizeof(struct call) == 464,
	       "struct call changed: set the new member in call_new()");

struct call *call_new(uint64_t ts)
{
	struct call *c = slab_take(&call_slab, sizeof(*c));

	/*
	 * Member by member, not memset(): GCC makes a memset() of this size a
	 * rep stos, whose start-up costs more than the stores (a call per
	 * interval).
	 */
	c->refs = 1;
	c->flags = 0;
	c->ts = ts;
	c->mark_ts = c->done_ts = 0;
	c->nw = c->w_ns = c->b_pairs = c->b_ns = 0;
	c->wpids = NULL;
	c->nwpids = c->capwpids = 0;
	c->mm = c->vma = 0;
	c->vm_start = c->vm_end = c->ino = 0;
	c->caller_idx = 0;
	/* dev whole: its bytes past the NUL are part of a sweep bucket's key */
	memset(c->dev, 0, sizeof(c->dev));
	c->caller[0] = c->user_pc[0] = c->stack[0] = '\0';
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
