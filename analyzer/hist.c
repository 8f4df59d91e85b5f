// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "hist.h"
#include "util.h"

#define EXACT_BITS	12
#define EXACT		(1u << EXACT_BITS)		/* 4096 exact values */
#define SUB_BITS	11
#define SUB		(1u << SUB_BITS)		/* sub-buckets per power of two */
#define NR_BUCKETS	(EXACT + (64 - EXACT_BITS) * SUB)

/* hist_add() counts a value below 4096 in its bucket inline */
_Static_assert(EXACT == 4096, "hist.h's hist_add(): the exact values");

static unsigned int bucket_of(uint64_t v)
{
	unsigned int msb, shift;

	if (v < EXACT)
		return (unsigned int)v;
	msb = 63 - (unsigned int)__builtin_clzll(v);	/* >= EXACT_BITS */
	shift = msb - SUB_BITS;
	return EXACT + (msb - EXACT_BITS) * SUB + (unsigned int)((v >> shift) - SUB);
}

static uint64_t bucket_low(unsigned int b)
{
	unsigned int msb, shift;

	if (b < EXACT)
		return b;
	b -= EXACT;
	msb = b / SUB + EXACT_BITS;
	shift = msb - SUB_BITS;
	return ((uint64_t)(b % SUB) + SUB) << shift;
}

void hist_add_slow(struct hist *h, uint64_t us)
{
	if (!h->buckets)
		h->buckets = xcalloc(NR_BUCKETS, sizeof(*h->buckets));
	if (!h->count || us < h->min)
		h->min = us;
	if (!h->count || us > h->max)
		h->max = us;
	h->count++;
	h->sum += us;
	h->buckets[bucket_of(us)]++;
}

uint64_t hist_percentile(const struct hist *h, unsigned int p)
{
	uint64_t rank = (h->count * p + 99) / 100, seen = 0;
	unsigned int b;

	/* the smallest and the largest are known exactly */
	if (rank <= 1)
		return h->min;
	if (rank >= h->count)
		return h->max;
	for (b = 0; b < NR_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank) {
			uint64_t v = bucket_low(b);

			if (v < h->min)
				v = h->min;
			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}

void hist_free(struct hist *h)
{
	free(h->buckets);
	h->buckets = NULL;
}
