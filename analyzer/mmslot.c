// SPDX-License-Identifier: GPL-2.0
/*
 * The (pid, mm) slots of the mmap_lock events: a task's wait, hold and write
 * acquisition on one mm, in a hash whatever the number of mm's.
 */
#include "analysis-int.h"
#include "anomaly.h"
#include "call.h"
#include "ival.h"
#include "mmslot.h"

struct mm_key {
	int		pid, stock;
	uint64_t	mm;
};

static int mmslot_eq(const void *item, const void *key)
{
	const struct mmslot *s = item;
	const struct mm_key *k = key;

	return s->pid == k->pid && s->mm == k->mm && s->stock == k->stock;
}

static uint64_t mmslot_hash(const struct analysis *an, int pid, uint64_t mm, int stock)
{
	return hash_mix(hash_mix(an->seed, (uint64_t)pid << 1 | (uint64_t)stock), mm);
}

/* The hash lookup of mmslot_find(); *@h gets the key's hash. */
static struct mmslot *mmslot_lookup(struct analysis *an, struct task *t, uint64_t mm, int stock,
				    uint64_t *h)
{
	struct mm_key k = { t->pid, stock, mm };
	struct mmslot *s;

	*h = mmslot_hash(an, t->pid, mm, stock);
	s = htab_find(&an->ms.tab, *h, mmslot_eq, &k);
	if (s)
		t->ms = s;
	return s;
}

/*
 * @t's slot for (@mm, @stock), if there is one.  A task's mmap_lock events
 * come in runs on one mm: the slot used last is tried before the hash, and
 * inline, the hash's key is built only when it is needed.
 */
static inline struct mmslot *mmslot_find(struct analysis *an, struct task *t, uint64_t mm,
					 int stock, uint64_t *h)
{
	struct mmslot *s = t->ms;

	if (s && s->mm == mm && s->stock == stock)
		return s;
	return mmslot_lookup(an, t, mm, stock, h);
}

/* The (pid, mm) slot of mmap_lock events; a hash, whatever the number of mm's. */
struct mmslot *mmslot_get_slow(struct analysis *an, struct task *t, uint64_t mm, int stock)
{
	uint64_t h = 0;
	struct mmslot *s = mmslot_find(an, t, mm, stock, &h);

	if (s && s == t->ms_kept) {
		t->ms_kept = NULL;
		t->nr_mms++;
	}
	if (s) {
		anomaly_settle_mmslot(an, t, s);
		return s;
	}
	s = slab_alloc(&an->ms.slab, sizeof(*s));
	s->pid = t->pid;
	s->mm = mm;
	s->stock = stock;
	/* not found: mmslot_find() looked it up in the hash, and set h */
	htab_add(&an->ms.tab, h, s);
	t->nr_mms++;
	t->ms = s;
	return s;
}

static void mmslot_free(struct analysis *an, struct task *t, struct mmslot *s)
{
	htab_del(&an->ms.tab, mmslot_hash(an, t->pid, s->mm, s->stock), s);
	slab_free(&an->ms.slab, s);
	if (t->ms == s)
		t->ms = NULL;
}

/*
 * Forget a slot with nothing in it.  The task's latest emptied slot is kept
 * (not counted in nr_mms): its mm's next event, often the next of the task,
 * finds it again instead of a new one.  mmslot_release() keeps it inline
 * when none is kept; here the one kept before is freed.
 */
void mmslot_release_slow(struct analysis *an, struct task *t, struct mmslot *s)
{
	if (s == t->ms_kept)
		return;
	if (t->ms_kept)
		mmslot_free(an, t, t->ms_kept);
	t->ms_kept = s;
	t->nr_mms--;
}

void mmslot_forget_kept(struct analysis *an, struct task *t)
{
	if (t->ms_kept)
		mmslot_free(an, t, t->ms_kept);
	t->ms_kept = NULL;
}

void mmslot_drop_acq(struct analysis *an, struct mmslot *s)
{
	if (s->swh.set)
		mmslot_swh_clear(an, s);
	ival_free(an, s->acq);
	s->acq = NULL;
}

/* The stock (pid, mm) slot, if there is one; never creates it. */
struct mmslot *mmslot_peek(struct analysis *an, struct task *t, uint64_t mm)
{
	uint64_t h = 0;
	struct mmslot *s = mmslot_find(an, t, mm, 1, &h);

	if (s)
		anomaly_settle_mmslot(an, t, s);
	return s;
}

void mmslot_release_all(struct analysis *an)
{
	htab_release(&an->ms.tab);
	slab_release(&an->ms.slab);
}
