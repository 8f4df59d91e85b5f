/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hash table of pointers with caller-computed hashes: open addressing,
 * linear probing, deletion by backward shift (no tombstones), so lookups
 * stay O(1) however many items came and went.  The analyzer keys its tasks,
 * mm slots, callers and sweep buckets with it; hashes are seeded per run
 * (hash_seed()) so a crafted trace cannot aim at one chain.
 */
#ifndef MMLOCK_HTAB_H
#define MMLOCK_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab_ent {
	uint64_t	hash;
	void		*item;		/* NULL: free slot */
};

struct htab {
	struct htab_ent	*e;
	size_t		cap;		/* a power of two, or 0 */
	size_t		nr;
};

/* Does @item have the key @key? */
typedef int (*htab_eq_fn)(const void *item, const void *key);

/**
 * htab_find() - the item with @hash for which @eq(item, @key) holds
 * @h: the table
 * @hash: the key's hash
 * @eq: key comparison
 * @key: passed to @eq
 *
 * Return: the item, or NULL.
 */
void *htab_find(const struct htab *h, uint64_t hash, htab_eq_fn eq, const void *key);

/**
 * htab_add() - insert @item (not already present) under @hash
 * @h: the table; grows at half full
 * @hash: the item's key hash
 * @item: not NULL
 */
void htab_add(struct htab *h, uint64_t hash, void *item);

/**
 * htab_del() - remove @item, inserted under @hash
 * @h: the table
 * @hash: as given to htab_add()
 * @item: the very pointer added
 *
 * Return: 0, or -1 when it is not there.
 */
int htab_del(struct htab *h, uint64_t hash, const void *item);

/**
 * htab_release() - free the table (not the items); it is empty and usable after
 * @h: the table
 */
void htab_release(struct htab *h);

/**
 * hash_seed() - a random seed for one run's hashes (getrandom, else the clock)
 *
 * Return: the seed.
 */
uint64_t hash_seed(void);

/**
 * hash_mix() - mix @v into @h (splitmix64's finaliser)
 * @h: the hash so far (start with a seed)
 * @v: the value
 *
 * Return: the new hash.
 */
uint64_t hash_mix(uint64_t h, uint64_t v);

/**
 * hash_str() - mix the bytes of @s into @h
 * @h: the hash so far
 * @s: a NUL-terminated string
 *
 * Return: the new hash.
 */
uint64_t hash_str(uint64_t h, const char *s);

#endif /* MMLOCK_HTAB_H */
