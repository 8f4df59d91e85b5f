// SPDX-License-Identifier: GPL-2.0
/*
 * Stack blocks: the first frames of a <stack trace> block, short and without
 * the tracing frames, written into the call of the event they follow (or,
 * with --stack-position before, kept for the task's next event).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"
#include "stack.h"
#include "tally.h"
#include "task.h"
#include "util.h"

/* --stack-position before: the block @t read before its event goes to that event's call */
void stack_target_fill(struct task *t, struct call *c, int cpu)
{
	if (c && t->pending_stack && t->pending_cpu == cpu && !c->stack[0]) {
		copy_str(c->stack, sizeof(c->stack), t->pending_stack);
		free(t->pending_stack);
		t->pending_stack = NULL;
	}
}

static int is_tracing_frame(const char *f)
{
	return !strncmp(f, "trace_", 6) || !strncmp(f, "__traceiter_", 12) ||
	       !strncmp(f, "__mmap_lock_do_trace_", 21) || !strncmp(f, "perf_trace_", 11) ||
	       !strncmp(f, "__trace_", 8) || !strncmp(f, "trace_event_raw_event_", 22);
}

void stack_block_end(struct analysis *an)
{
	struct task *t = an->stk.task;

	if (an->opts.stack_before) {
		free(t->pending_stack);
		t->pending_stack = an->stk.buf[0] ? xstrdup(an->stk.buf) : NULL;
		t->pending_cpu = an->stk.cpu;
	} else if ((t->stack_target || t->stack_swh) && t->stack_target_cpu == an->stk.cpu &&
		   t->stack_target_epoch == anomaly_epoch(an, an->stk.cpu)) {
		/* not after a [LOST] on that CPU: the block may be another event's */
		struct call *c = t->stack_target;

		/* a stock write hold still in its slot gets its call now */
		if (!c && t->stack_swh->swh.set) {
			struct swhold *z = &t->stack_swh->swh;

			if (!z->call)
				z->call = call_new(z->start);
			c = z->call;
		}
		if (c && !c->stack[0])
			copy_str(c->stack, STACK_LEN, an->stk.buf);
	}
	an->stk.task = NULL;
	task_settle_idle(an, t);
}

void stack_frame(struct analysis *an, const char *frame)
{
	char func[CALLER_LEN];
	size_t used, n;

	if (!an->stk.task || an->stk.frames >= 4)
		return;
	tally_caller_func(func, sizeof(func), frame);
	if (is_tracing_frame(func))
		return;
	used = strlen(an->stk.buf);
	n = strlen(func);
	if (used + n + 2 >= STACK_LEN)
		return;
	if (used)
		an->stk.buf[used++] = ';';
	memcpy(an->stk.buf + used, func, n + 1);
	an->stk.frames++;
}

void stack_begin(struct analysis *an, int pid, int cpu)
{
	an->stk.task = task_get(an, pid);
	an->stk.cpu = cpu;
	an->stk.buf[0] = '\0';
	an->stk.frames = 0;
}
