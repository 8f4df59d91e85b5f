// SPDX-License-Identifier: GPL-2.0
/*
 * Open-addressing hash table: see htab.h.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "htab.h"
#include "util.h"

uint64_t hash_mix(uint64_t h, uint64_t v)
{
	uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t hash_str(uint64_t h, const char *s)
{
	uint64_t f = 0xcbf29ce484222325ULL;	/* FNV-1a, then mixed with the seed */

	for (; *s; s++)
		f = (f ^ (unsigned char)*s) * 0x100000001b3ULL;
	return hash_mix(h, f);
}

uint64_t hash_seed(void)
{
	uint64_t s;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = hash_mix((uint64_t)ts.tv_nsec, (uint64_t)getpid());
	}
	return s;
}

void *htab_find(const struct htab *h, uint64_t hash, htab_eq_fn eq, const void *key)
{
	size_t mask, i;

	if (!h->cap)
		return NULL;
	mask = h->cap - 1;
	for (i = hash & mask; h->e[i].item; i = (i + 1) & mask)
		if (h->e[i].hash == hash && eq(h->e[i].item, key))
			return h->e[i].item;
	return NULL;
}

static void put(struct htab_ent *e, size_t cap, uint64_t hash, void *item)
{
	size_t i;

	for (i = hash & (cap - 1); e[i].item; i = (i + 1) & (cap - 1))
		;
	e[i].hash = hash;
	e[i].item = item;
}

void htab_add(struct htab *h, uint64_t hash, void *item)
{
	if ((h->nr + 1) * 2 > h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64, i;
		struct htab_ent *e = xcalloc(cap, sizeof(*e));

		for (i = 0; i < h->cap; i++)
			if (h->e[i].item)
				put(e, cap, h->e[i].hash, h->e[i].item);
		free(h->e);
		h->e = e;
		h->cap = cap;
	}
	put(h->e, h->cap, hash, item);
	h->nr++;
}

int htab_del(struct htab *h, uint64_t hash, const void *item)
{
	size_t mask, i, j;

	if (!h->cap)
		return -1;
	mask = h->cap - 1;
	for (i = hash & mask; h->e[i].item != item; i = (i + 1) & mask)
		if (!h->e[i].item)
			return -1;
	h->e[i].item = NULL;
	h->nr--;
	/* shift back every entry whose probe passed the hole */
	for (j = (i + 1) & mask; h->e[j].item; j = (j + 1) & mask) {
		size_t home = h->e[j].hash & mask;

		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			h->e[i] = h->e[j];
			h->e[j].item = NULL;
			i = j;
		}
	}
	return 0;
}

void htab_release(struct htab *h)
{
	free(h->e);
	memset(h, 0, sizeof(*h));
}
