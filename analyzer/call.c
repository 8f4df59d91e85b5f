// SPDX-License-Identifier: GPL-2.0
/*
 * Calls: a fault call, a VMA write, a retry gap, an acquisition, which the
 * intervals of one event sequence share; their memory and reference counts.
 */
#include <stdlib.h>

#include "analysis-int.h"
#include "call.h"

/*
 * Calls come from one slab per thread, shared by the analyses alive in it
 * and given back with the last of them: no free() per call, not even at
 * the end (a trace that ends with 1e5 open faults).
 */
static _Thread_local struct slab call_slab;
static _Thread_local unsigned int nr_analyses;

struct call *call_new(uint64_t ts)
{
	struct call *c = slab_alloc(&call_slab, sizeof(*c));

	c->refs = 1;
	c->ts = ts;
	return c;
}

void call_free(struct call *c)
{
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
