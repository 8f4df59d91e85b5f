/* SPDX-License-Identifier: GPL-2.0 */
/* The (pid, mm) slots of the mmap_lock events (struct mmslot, analysis-int.h). */
#ifndef MMLOCK_MMSLOT_H
#define MMLOCK_MMSLOT_H

#include <stdint.h>

#include "analysis-int.h"
#include "call.h"

/**
 * mmslot_get_slow() - mmslot_get() past its test of the slot used last
 * @an: the analysis
 * @t: the task
 * @mm: the mm_struct pointer of the event
 * @stock: 1 for the stock events' slot, 0 for ours
 *
 * Return: the slot.
 */
struct mmslot *mmslot_get_slow(struct analysis *an, struct task *t, uint64_t mm, int stock);

/**
 * mmslot_get() - @t's slot for @mm, created when there is none
 * @an: the analysis
 * @t: the task
 * @mm: the mm_struct pointer of the event
 * @stock: 1 for the stock events' slot, 0 for ours (kept apart)
 *
 * What a [LOST] marker truncated in it is dropped first (anomaly_settle_mmslot()).
 * A task's mmap_lock events come in runs on one mm: the slot it used last,
 * before any marker, is taken inline.
 *
 * Return: the slot.
 */
static inline struct mmslot *mmslot_get(struct analysis *an, struct task *t, uint64_t mm,
					int stock)
{
	struct mmslot *s = t->ms;

	if (!s || s->mm != mm || s->stock != stock || an->ep.moved)
		return mmslot_get_slow(an, t, mm, stock);
	if (s == t->ms_kept) {
		t->ms_kept = NULL;
		t->nr_mms++;
	}
	return s;
}

/**
 * mmslot_peek() - @t's stock slot for @mm, if there is one; never creates it
 * @an: the analysis
 * @t: the task
 * @mm: the mm_struct pointer
 *
 * Return: the slot, or NULL.
 */
struct mmslot *mmslot_peek(struct analysis *an, struct task *t, uint64_t mm);

/**
 * mmslot_release_slow() - mmslot_release() of a slot with nothing open
 *	while @t keeps another (or this one) already
 * @an: the analysis
 * @t: the task
 * @s: its slot
 */
void mmslot_release_slow(struct analysis *an, struct task *t, struct mmslot *s);

/**
 * mmslot_release() - forget @t's slot @s if nothing is open in it
 * @an: the analysis
 * @t: the task
 * @s: its slot, as mmslot_get() of the same event returned it
 *
 * The latest slot @t emptied is kept, uncounted (nr_mms), for the next
 * mmslot_get() of its mm; mmslot_forget_kept() frees it with @t.  After
 * every end event: the test of what is open inline.
 */
/**
 * mmslot_sw_clear() - the stock call kept in @s is gone: drop its reference
 * @s: the (pid, mm) slot
 */
static inline void mmslot_sw_clear(struct mmslot *s)
{
	s->sw.set = 0;
	call_put(s->sw.call);
	s->sw.call = NULL;
}

static inline void mmslot_release(struct analysis *an, struct task *t, struct mmslot *s)
{
	if (s->wait || s->hold.set || s->acq || s->swh.set || s->sw.set)
		return;
	/*
	 * mmslot_get() took the slot @t kept, if it was @s: most often none
	 * is kept now, and @s is kept without a call.
	 */
	if (!t->ms_kept) {
		t->ms_kept = s;
		t->nr_mms--;
	} else {
		mmslot_release_slow(an, t, s);
	}
}

/**
 * mmslot_has_acq() - @s has a write acquisition: an interval, or a stock
 *	write hold kept in the slot (struct swhold)
 * @s: the slot
 *
 * Return: nonzero when it has.
 */
static inline int mmslot_has_acq(const struct mmslot *s)
{
	return s->acq || s->swh.set;
}

/**
 * mmslot_forget_kept() - free the emptied slot @t keeps, if any (@t is forgotten)
 * @an: the analysis
 * @t: the task
 */
void mmslot_forget_kept(struct analysis *an, struct task *t);

/**
 * mmslot_drop_acq() - forget @s's write acquisition without closing it
 * @an: the analysis
 * @s: the slot; its acquisition an interval or a struct swhold
 */
void mmslot_drop_acq(struct analysis *an, struct mmslot *s);

/**
 * mmslot_swh_link() - @s now holds a struct swhold: on the list of those
 * @an: the analysis
 * @s: the slot, its swhold set
 *
 * The list is in the order they began: stock_swhold_all() makes them
 * intervals in it, the order the open write intervals' list keeps.
 * Inline, as mmslot_swh_clear(): once for most stock write holds.
 */
static inline void mmslot_swh_link(struct analysis *an, struct mmslot *s)
{
	s->swh.next = NULL;
	s->swh.prev = an->ms.swh_tail;
	if (an->ms.swh_tail)
		an->ms.swh_tail->swh.next = s;
	else
		an->ms.swh_head = s;
	an->ms.swh_tail = s;
}

/**
 * mmslot_swh_clear() - @s's struct swhold ends: off the list, its call put
 * @an: the analysis
 * @s: the slot, its swhold set
 *
 * Its prev and next are left as they were: only a set swhold's are read,
 * and mmslot_swh_link() sets both.
 */
static inline void mmslot_swh_clear(struct analysis *an, struct mmslot *s)
{
	struct swhold *z = &s->swh;

	if (z->prev)
		z->prev->swh.next = z->next;
	else
		an->ms.swh_head = z->next;
	if (z->next)
		z->next->swh.prev = z->prev;
	else
		an->ms.swh_tail = z->prev;
	call_put(z->call);
	z->call = NULL;
	z->set = 0;
}

/**
 * mmslot_release_all() - free every slot (the analysis ends)
 * @an: the analysis
 */
void mmslot_release_all(struct analysis *an);

#endif /* MMLOCK_MMSLOT_H */
