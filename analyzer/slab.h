/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free lists of fixed-size objects carved from blocks: the analyzer's
 * intervals, calls, tasks and mm slots come and go by the million.
 */
#ifndef MMLOCK_SLAB_H
#define MMLOCK_SLAB_H

#include <stddef.h>

struct slab {
	void		*free;
	char		*next;
	size_t		left;
	void		**blocks;
	size_t		nr_blocks;
};

/**
 * slab_alloc() - a zeroed object of @size bytes
 * @sl: the slab; every object taken from it has the same @size
 * @size: at least sizeof(void *)
 *
 * Return: the object (allocation failure exits, as xmalloc() does).
 */
void *slab_alloc(struct slab *sl, size_t size);

/**
 * slab_carve() - slab_take() of an object never handed out before
 * @sl: the slab
 * @size: its objects' size
 *
 * Return: the object, its contents undefined.
 */
void *slab_carve(struct slab *sl, size_t size);

/**
 * slab_take() - an object of @size bytes, its contents undefined
 * @sl: the slab; every object taken from it has the same @size
 * @size: at least sizeof(void *)
 *
 * For a caller that sets every byte it reads: intervals and calls are
 * written whole as they are made, without a memset() of their own first.
 *
 * Return: the object (allocation failure exits, as xmalloc() does).
 */
static inline void *slab_take(struct slab *sl, size_t size)
{
	void *p = sl->free;

	if (!p)
		return slab_carve(sl, size);
	sl->free = *(void **)p;
	return p;
}

/**
 * slab_free() - give @p back to @sl's free list
 * @sl: the slab it came from
 * @p: the object
 */
static inline void slab_free(struct slab *sl, void *p)
{
	*(void **)p = sl->free;
	sl->free = p;
}

/**
 * slab_walk() - call @fn on every object handed out, in memory order
 * @sl: the slab
 * @size: its objects' size
 * @fn: called with each object and @ctx
 * @ctx: for @fn
 *
 * Objects given back are walked too (all but their first sizeof(void *)
 * bytes as slab_free() found them): @fn tells them by their contents.  A
 * walk in memory order touches a million objects in a fraction of the time
 * a walk in hash order takes.
 */
void slab_walk(const struct slab *sl, size_t size, void (*fn)(void *obj, void *ctx), void *ctx);

/**
 * slab_release() - free every block of @sl; its objects are gone, @sl is empty
 * @sl: the slab
 */
void slab_release(struct slab *sl);

#endif /* MMLOCK_SLAB_H */
