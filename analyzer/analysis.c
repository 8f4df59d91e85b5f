// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis: each parsed line goes to its place (a stack frame, a [LOST]
 * marker, an event's handler for its task), and the end of the input closes
 * what is open.  What the handlers do is in pairing.c and stock.c, the
 * pairs in pair.c, broken sequences in anomaly.c, the summary's tables in
 * tally.c; summary.c writes them out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"
#include "ival.h"
#include "lost.h"
#include "mmslot.h"
#include "pair.h"
#include "pairing.h"
#include "stack.h"
#include "tally.h"
#include "task.h"
#include "util.h"

/* A line that is not an event: out of line, the event path stays small. */
static void __attribute__((noinline)) feed_other(struct analysis *an, const struct parsed_line *pl)
{
	if (pl->kind == LINE_FRAME) {
		an->raw.lines++;
		stack_frame(an, pl->frame);
		return;
	}
	stack_flush(an);
	switch (pl->kind) {
	case LINE_HEADER:
	case LINE_MALFORMED:
		return;
	case LINE_LOST:
		an->raw.lines++;
		an->raw.lost_markers = u64_add_sat(an->raw.lost_markers, pl->lost);
		anomaly_lost(an, pl->cpu);
		return;
	case LINE_STACK:
		an->raw.lines++;
		an->raw.stack_traces++;
		stack_begin(an, pl->pid, pl->cpu);
		return;
	case LINE_FRAME:
	case LINE_EVENT:
		break;
	}
}

/*
 * Is the event's comm @t's name?  A text line's comm lies in the line,
 * before its end (parse.h), so its first 16 bytes can be read as two words
 * and compared with the name's (a char[COMM_LEN]) up to and including the
 * comm's NUL: the names of Linux tasks are at most 15 bytes, and this is
 * the one compare on every event.  Else, and past 16 bytes, strcmp().
 */
static inline int comm_same(const char *name, const struct parsed_line *pl)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	const char *c = pl->comm;

	_Static_assert(COMM_LEN >= 16, "struct task: comm holds two words");
	if (!pl->comm_stable && pl->end && pl->end - c >= 16) {
		int w;

		for (w = 0; w < 16; w += 8) {
			uint64_t a, b, z;

			memcpy(&a, c + w, 8);
			memcpy(&b, name + w, 8);
			/*
			 * z's lowest set bit is the top bit of a's first NUL byte
			 * (the first in memory); z ^ (z - 1): the bits up to it
			 */
			z = (a - ones) & ~a & highs;
			if (z)
				return !((a ^ b) & (z ^ (z - 1)));
			if (a != b)
				return 0;
		}
		return !strcmp(name + 16, c + 16);
	}
#endif
	return !strcmp(name, pl->comm);
}

void analysis_feed(struct analysis *an, const struct parsed_line *pl)
{
	pairing_handler handler;
	struct task *t;
	long long v;
	int id, changed = 0;

	if (pl->kind != LINE_EVENT) {
		feed_other(an, pl);
		return;
	}
	stack_flush(an);
	an->raw.lines++;
	an->raw.events++;
	if (pl->ts_ns > an->now)
		an->now = pl->ts_ns;
	if (!an->first_ts_set) {
		an->first_ts = pl->ts_ns;
		an->first_ts_set = 1;
	}
	id = pl->id;
	handler = pairing_handler_of(id);
	if (!handler) {
		an->raw.other_events++;
		return;
	}
	if (id < MMLOCK_EV_NR)
		an->raw.ev_count[id]++;
	else
		an->raw.x_count[id - MMLOCK_EV_NR]++;
	if (id == MMLOCK_EV_SCHED_SWITCH) {
		handler(an, NULL, pl);	/* its line names two other tasks */
		return;
	}
	v = pl_dec(pl, PF_PID, pl->pid);
	t = task_get(an, (int)v);
	anomaly_settle_task(an, t);
	if (t->seen && pl->ts_ns < t->last_ts)
		an->anom.backwards++;
	t->seen = 1;
	t->last_ts = pl->ts_ns;
	/*
	 * A task keeps its name and tgid: copied (and to its pidstat) when
	 * they change.  A binary capture's lasting per-pid name is compared
	 * once: the same text at the same address is the same name.
	 */
	if (pl->comm && !(pl->comm_stable && pl->comm == t->comm_src)) {
		if (!comm_same(t->comm, pl)) {
			copy_str(t->comm, sizeof(t->comm), pl->comm);
			t->comm_gen = ++an->tt.comm_gen;
			changed = 1;
		}
		t->comm_src = pl->comm_stable ? pl->comm : NULL;
	}
	v = pl_dec(pl, PF_TGID, pl->tgid);
	if (v >= 0 && t->tgid != (int)v) {
		t->tgid = (int)v;
		changed = 1;
	}
	t->prio = (int)pl_dec(pl, PF_PRIO, t->sched_prio);
	if (t->prio < -1 || t->prio > 1000)
		t->prio = -1;	/* a kernel prio is 0..139: not a number to compare */
	if (t->ps && changed) {
		t->ps->tgid = t->tgid;
		copy_str(t->ps->comm, sizeof(t->ps->comm), t->comm);
	}
	stack_target_put(t);
	an->tt.feeding = t;
	handler(an, t, pl);
	an->tt.feeding = NULL;
	task_settle_idle(an, t);
}

void analysis_malformed(struct analysis *an)
{
	an->raw.malformed++;
}

unsigned long analysis_trace_lines(const struct analysis *an)
{
	return an->raw.lines;
}

struct analysis *analysis_new(const struct analysis_opts *opts)
{
	struct analysis *an = xcalloc(1, sizeof(*an));

	an->opts = *opts;
	an->seed = hash_seed();
	an->lc = lifecycle_new();
	call_users_add();
	return an;
}

void analysis_finish(struct analysis *an)
{
	stack_flush(an);
	an->tt.finishing = 1;	/* no task is forgotten while they are walked */
	anomaly_finish(an);
	/* nothing is open any more: the stock waits and writers left are final */
	while (an->sw.lists[L_CLOSED_SM].head)
		ival_free(an, an->sw.lists[L_CLOSED_SM].head);
	while (an->sw.lists[L_CLOSED_SW].head)
		ival_free(an, an->sw.lists[L_CLOSED_SW].head);
}

void analysis_free(struct analysis *an)
{
	int l;

	if (!an)
		return;
	analysis_finish(an);
	for (l = 0; l < L_NR; l++)
		while (an->sw.lists[l].head)
			ival_free(an, an->sw.lists[l].head);
	mmslot_release_all(an);
	slab_release(&an->ival_slab);
	task_release_all(an);
	anomaly_release(an);
	pair_release(an);
	call_users_drop();	/* every call of every analysis was put */
	tally_release(an);
	hist_free(&an->dist.cwait);
	hist_free(&an->dist.retry_io);
	lifecycle_free(an->lc);
	free(an->ct.top.v);
	free(an->ct.stop.v);
	hist_free(&an->dist.fault_wait);
	hist_free(&an->dist.vma_wait);
	hist_free(&an->dist.mmap_wait);
	hist_free(&an->dist.mmap_hold);
	hist_free(&an->dist.mmap_write_hold);
	hist_free(&an->dist.stock_wait);
	hist_free(&an->dist.stock_hold);
	hist_free(&an->dist.stock_write_hold);
	free(an);
}
