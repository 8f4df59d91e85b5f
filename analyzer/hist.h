/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMLOCK_HIST_H
#define MMLOCK_HIST_H

#include <stdint.h>

/*
 * A duration distribution in whole microseconds whose memory does not grow
 * with the number of values: exact below 4096, then buckets of relative
 * width 1/2048 (a value is reported as its bucket's lower bound).
 */
struct hist {
	uint64_t	count;
	uint64_t	sum;
	uint64_t	min, max;
	uint32_t	*buckets;	/* allocated on first add */
};

/**
 * hist_add_slow() - hist_add() of a first value or one of 4096 us and more
 * @h: the distribution
 * @us: the value, in microseconds
 */
void hist_add_slow(struct hist *h, uint64_t us);

/**
 * hist_add() - add the value @us
 * @h: the distribution (zeroed to start)
 * @us: the value, in microseconds
 *
 * Inline for a short value into a distribution that has one already: a
 * duration or two per event.
 */
static inline void hist_add(struct hist *h, uint64_t us)
{
	if (!h->count || us >= 4096) {
		hist_add_slow(h, us);
		return;
	}
	if (us < h->min)
		h->min = us;
	if (us > h->max)
		h->max = us;
	h->count++;
	h->sum += us;
	h->buckets[us]++;	/* an exact bucket (bucket_of(), hist.c) */
}

/**
 * hist_percentile() - the nearest-rank @p-th percentile
 * @h: the distribution; its count must be > 0
 * @p: 0..100
 *
 * Return: the ceil(p/100 * count)-th smallest value (its bucket's lower bound).
 */
uint64_t hist_percentile(const struct hist *h, unsigned int p);

/**
 * hist_free() - free @h's buckets: the end of its use
 * @h: the distribution
 */
void hist_free(struct hist *h);

#endif /* MMLOCK_HIST_H */
