// SPDX-License-Identifier: GPL-2.0
/*
 * The (pid, mm) slots of the mmap_lock events: a task's wait, hold and write
 * acquisition on one mm, in a hash whatever the number of mm's.
 */
#include "analysis-int.h"
#include "anomaly.h"
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

/* The (pid, mm) slot of mmap_lock events; a hash, whatever the number of mm's. */
struct mmslot *mmslot_get(struct analysis *an, struct task *t, uint64_t mm, int stock)
{
	struct mm_key k = { t->pid, stock, mm };
	uint64_t h = mmslot_hash(an, t->pid, mm, stock);
	struct mmslot *s = htab_find(&an->ms.tab, h, mmslot_eq, &k);

	if (s) {
		anomaly_settle_mmslot(an, t, s);
		return s;
	}
	s = slab_alloc(&an->ms.slab, sizeof(*s));
	s->pid = t->pid;
	s->mm = mm;
	s->stock = stock;
	htab_add(&an->ms.tab, h, s);
	t->nr_mms++;
	return s;
}

/* Forget a slot with nothing in it. */
void mmslot_release(struct analysis *an, struct task *t, uint64_t mm, int stock)
{
	struct mm_key k = { t->pid, stock, mm };
	uint64_t h = mmslot_hash(an, t->pid, mm, stock);
	struct mmslot *s = htab_find(&an->ms.tab, h, mmslot_eq, &k);

	if (!s || s->wait || s->hold || s->acq)
		return;
	htab_del(&an->ms.tab, h, s);
	slab_free(&an->ms.slab, s);
	t->nr_mms--;
}

void mmslot_drop_acq(struct analysis *an, struct mmslot *s)
{
	ival_free(an, s->acq);
	s->acq = NULL;
}

/* The stock (pid, mm) slot, if there is one; never creates it. */
struct mmslot *mmslot_peek(struct analysis *an, struct task *t, uint64_t mm)
{
	struct mm_key k = { t->pid, 1, mm };
	struct mmslot *s = htab_find(&an->ms.tab, mmslot_hash(an, t->pid, mm, 1), mmslot_eq, &k);

	if (s)
		anomaly_settle_mmslot(an, t, s);
	return s;
}

void mmslot_release_all(struct analysis *an)
{
	htab_release(&an->ms.tab);
	slab_release(&an->ms.slab);
}
