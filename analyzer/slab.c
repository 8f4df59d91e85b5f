// SPDX-License-Identifier: GPL-2.0
/*
 * Free lists of fixed-size objects over blocks: the analyzer's objects come
 * and go by the million, and this keeps them off malloc's hot path and close
 * together in memory.  Blocks are given back only at the end (the peak is
 * what was open).
 */
#include <stdlib.h>
#include <string.h>

#include "slab.h"
#include "util.h"

#define SLAB_BLOCK	256

void *slab_alloc(struct slab *sl, size_t size)
{
	void *p = sl->free;

	if (p) {
		sl->free = *(void **)p;
	} else {
		if (!sl->left) {
			sl->blocks = xrealloc(sl->blocks, (sl->nr_blocks + 1) * sizeof(*sl->blocks));
			sl->next = sl->blocks[sl->nr_blocks++] = xmalloc(SLAB_BLOCK * size);
			sl->left = SLAB_BLOCK;
		}
		p = sl->next;
		sl->next += size;
		sl->left--;
	}
	memset(p, 0, size);
	return p;
}

void slab_free(struct slab *sl, void *p)
{
	*(void **)p = sl->free;
	sl->free = p;
}

void slab_walk(const struct slab *sl, size_t size, void (*fn)(void *obj, void *ctx), void *ctx)
{
	size_t b, i;

	for (b = 0; b < sl->nr_blocks; b++) {
		/* the last block is handed out up to sl->next */
		size_t n = b + 1 < sl->nr_blocks ? SLAB_BLOCK : SLAB_BLOCK - sl->left;
		char *p = sl->blocks[b];

		for (i = 0; i < n; i++)
			fn(p + i * size, ctx);
	}
}

void slab_release(struct slab *sl)
{
	size_t i;

	for (i = 0; i < sl->nr_blocks; i++)
		free(sl->blocks[i]);
	free(sl->blocks);
	memset(sl, 0, sizeof(*sl));
}
