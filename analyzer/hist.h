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

void hist_add(struct hist *h, uint64_t us);
/* Nearest rank: the ceil(p/100 * count)-th smallest value; count must be > 0. */
uint64_t hist_percentile(const struct hist *h, unsigned int p);
void hist_free(struct hist *h);

#endif /* MMLOCK_HIST_H */
