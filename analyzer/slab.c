// SPDX-License-Identifier: GPL-2.0
/*
 * Free lists of fixed-size objects over blocks: the analyzer's objects come
 * and go by the million, and this keeps them off malloc's hot path and close
 * together in memory.  Blocks are given back only at the end (the peak is
 * what was open).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "slab.h"
#include "util.h"

#define SLAB_BLOCK	256		/* objects in each of a slab's first blocks */
#define SLAB_SMALL	8		/* how many such blocks before large ones */
#define SLAB_LARGE	(2u << 20)	/* bytes of a large block: a transparent huge page */

/*
 * The objects block @b of a slab of @size-byte objects holds.  A slab that
 * outgrew its small blocks holds many objects at once (1e5 open faults, 5e5
 * open mm's): its further blocks are huge pages, which spare a page fault
 * per 4 KiB of them and a TLB miss per object touched; a small trace never
 * gets there, and its memory stays small.
 */
static size_t block_objs(size_t b, size_t size)
{
	return b < SLAB_SMALL || size > SLAB_LARGE / SLAB_BLOCK ? SLAB_BLOCK : SLAB_LARGE / size;
}

static void *block_new(size_t b, size_t size)
{
	size_t n = block_objs(b, size);
	void *p;

	if (n == SLAB_BLOCK || posix_memalign(&p, SLAB_LARGE, SLAB_LARGE))
		return xmalloc(n * size);
	/* a hint: where transparent huge pages are off, the block has 4 KiB pages */
	madvise(p, SLAB_LARGE, MADV_HUGEPAGE);
	return p;
}

/* Out of line: slab_take() is on every interval's path, a new block seldom. */
static void __attribute__((noinline)) slab_grow(struct slab *sl, size_t size)
{
	sl->blocks = xrealloc(sl->blocks, (sl->nr_blocks + 1) * sizeof(*sl->blocks));
	sl->next = sl->blocks[sl->nr_blocks] = block_new(sl->nr_blocks, size);
	sl->left = block_objs(sl->nr_blocks++, size);
}

void *slab_carve(struct slab *sl, size_t size)
{
	void *p;

	if (!sl->left)
		slab_grow(sl, size);
	p = sl->next;
	sl->next += size;
	sl->left--;
	return p;
}

void *slab_alloc(struct slab *sl, size_t size)
{
	void *p = slab_take(sl, size);

	memset(p, 0, size);
	return p;
}

void slab_walk(const struct slab *sl, size_t size, void (*fn)(void *obj, void *ctx), void *ctx)
{
	size_t b, i;

	for (b = 0; b < sl->nr_blocks; b++) {
		/* the last block is handed out up to sl->next */
		size_t n = block_objs(b, size) - (b + 1 < sl->nr_blocks ? 0 : sl->left);
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
