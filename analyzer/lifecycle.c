// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "htab.h"
#include "lifecycle.h"
#include "util.h"

/*
 * One table: the operation behind a writer's caller (the function that
 * write-locked the VMA, or that took mmap_lock for writing), and whether it
 * is a known contention path -- a path that holds mmap_lock for writing and
 * write-locks VMAs the faults use, so that a fault behind it is the
 * inversion the seed's evidence rule names (its table: munmap, mmap_region,
 * vma_expand, __split_vma, mprotect_fixup, vma_modify, do_brk_flags; and
 * fork's dup_mmap, madvise).  Callers of mmap_write_lock() itself
 * (vm_mmap_pgoff, do_madvise, __vm_munmap, ...) are listed too: they are
 * what mmap_lock_wait_start's caller= names.
 */
static const struct writer_path {
	const char	*prefix, *syscall;
	int		known;
} writer_paths[] = {
	{ "dup_mmap", "fork", 1 }, { "copy_process", "fork", 1 },	/* dup_mmap inlined */
	{ "mprotect_fixup", "mprotect", 1 }, { "do_mprotect", "mprotect", 1 },
	{ "vms_gather_munmap_vmas", "munmap", 1 }, { "do_vmi_align_munmap", "munmap", 1 },
	{ "do_vmi_munmap", "munmap", 1 }, { "__do_munmap", "munmap", 1 },
	{ "vms_complete_munmap", "munmap", 1 }, { "unmap_region", "munmap", 1 },
	{ "__vm_munmap", "munmap", 1 }, { "vm_munmap", "munmap", 1 },
	{ "free_pgtables", "munmap", 1 }, { "exit_mmap", "exit", 1 },
	{ "mmap_region", "mmap", 1 }, { "__mmap_region", "mmap", 1 }, { "do_mmap", "mmap", 1 },
	{ "vm_mmap_pgoff", "mmap", 1 },
	{ "__split_vma", "split", 1 }, { "split_vma", "split", 1 },
	{ "vma_expand", "expand", 1 }, { "expand_downwards", "expand", 0 },
	{ "expand_upwards", "expand", 0 }, { "do_brk_flags", "brk", 1 },
	{ "__do_sys_brk", "brk", 1 },
	{ "madvise", "madvise", 1 }, { "do_madvise", "madvise", 1 },
	{ "mlock_fixup", "mlock", 0 }, { "apply_vma_lock", "mlock", 0 },
	{ "move_vma", "mremap", 0 }, { "mremap", "mremap", 0 }, { "vma_to_resize", "mremap", 0 },
	{ "vma_modify", "modify", 1 }, { "vma_merge", "merge", 0 }, { "commit_merge", "merge", 0 },
	{ "collapse_huge_page", "khugepaged", 0 }, { "mm_take_all_locks", "mmu_notifier", 0 },
	{ "userfaultfd", "userfaultfd", 0 }, { "mbind", "mbind", 0 },
	{ "vma_replace_policy", "mbind", 0 },
};

static const struct writer_path *writer_path(const char *f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(writer_paths); i++)
		if (!strncmp(f, writer_paths[i].prefix, strlen(writer_paths[i].prefix)))
			return &writer_paths[i];
	return NULL;
}

const char *writer_syscall(const char *f)
{
	const struct writer_path *w = writer_path(f);

	return w ? w->syscall : "other";
}

int writer_known_path(const char *f)
{
	const struct writer_path *w = writer_path(f);

	return w && w->known;
}

/*
 * Per TGID, event counts in NR_BINS time bins whose width doubles (and
 * neighbours merge) whenever the span outgrows them: fixed memory, and the
 * 20 % / 80 % cuts are exact to one bin (1/64 of the span at worst).
 */
#define NR_BINS		128
#define MAX_TGIDS	1024
#define MAX_REFAULTS	65536
#define TG_RECENT	16	/* a power of two */

struct tg {
	int		tgid;
	uint64_t	first, last, width;	/* width = 1000 << shift ns */
	unsigned int	shift;
	uint64_t	bins[NR_BINS][LC_NR];
	uint64_t	total[LC_NR];
};

struct refault {
	uint64_t	mm, page, last_ts;
	uint32_t	count, windows;
};

struct lifecycle {
	struct tg	**tgs;		/* in the order first seen */
	int		nr_tgs, dropped_tgs;
	struct htab	index;		/* tgid -> struct tg */
	/*
	 * The TGIDs found last, by TGID modulo TG_RECENT: events come in runs
	 * of a few TGIDs taking turns, which one entry would miss each time.
	 */
	struct tg	*recent[TG_RECENT];
	uint64_t	seed;
	struct refault	*rf;		/* open addressing, capped */
	size_t		nr_rf;
	uint32_t	*rf_used;	/* the slots in use, in the order filled */
	int		rf_full;
};

struct lifecycle *lifecycle_new(void)
{
	struct lifecycle *lc = xcalloc(1, sizeof(*lc));

	lc->seed = hash_seed();
	return lc;
}

void lifecycle_free(struct lifecycle *lc)
{
	int i;

	if (!lc)
		return;
	for (i = 0; i < lc->nr_tgs; i++)
		free(lc->tgs[i]);
	free(lc->tgs);
	htab_release(&lc->index);
	free(lc->rf);
	free(lc->rf_used);
	free(lc);
}

static int tg_eq(const void *item, const void *key)
{
	return ((const struct tg *)item)->tgid == *(const int *)key;
}

/* tg_get() of a TGID not found lately: out of line, events come in runs */
static struct tg * __attribute__((noinline)) tg_get_slow(struct lifecycle *lc, int tgid)
{
	uint64_t h;
	struct tg *t;

	h = hash_mix(lc->seed, (uint64_t)tgid);
	t = htab_find(&lc->index, h, tg_eq, &tgid);
	if (t)
		return lc->recent[(unsigned int)tgid & (TG_RECENT - 1)] = t;
	if (lc->nr_tgs == MAX_TGIDS) {
		lc->dropped_tgs++;
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->tgid = tgid;
	lc->tgs = xrealloc(lc->tgs, (size_t)(lc->nr_tgs + 1) * sizeof(*lc->tgs));
	lc->tgs[lc->nr_tgs++] = t;
	htab_add(&lc->index, h, t);
	return lc->recent[(unsigned int)tgid & (TG_RECENT - 1)] = t;
}

static struct tg *tg_get(struct lifecycle *lc, int tgid)
{
	struct tg *t = lc->recent[(unsigned int)tgid & (TG_RECENT - 1)];

	return t && t->tgid == tgid ? t : tg_get_slow(lc, tgid);
}

/*
 * The bin of @ts, once the bins are wide enough for it.  Out of line: they
 * widen a few dozen times in a trace, and the event path stays small.
 */
static uint64_t __attribute__((noinline)) tg_widen(struct tg *t, uint64_t ts)
{
	while ((ts - t->first) / t->width >= NR_BINS) {
		int i, k;

		/* halve the resolution: merge neighbouring bins */
		for (i = 0; i < NR_BINS / 2; i++)
			for (k = 0; k < LC_NR; k++)
				t->bins[i][k] = t->bins[2 * i][k] + t->bins[2 * i + 1][k];
		memset(t->bins[NR_BINS / 2], 0, sizeof(t->bins[0]) * (NR_BINS / 2));
		t->width *= 2;
		t->shift++;
	}
	return (ts - t->first) / t->width;
}

void lifecycle_event(struct lifecycle *lc, int tgid, uint64_t ts, enum lc_kind kind)
{
	struct tg *t;
	uint64_t b;

	if (tgid < 0 || !(t = tg_get(lc, tgid)))
		return;
	if (!t->width) {
		t->first = ts;
		t->width = 1000;	/* 1 us to start with: the trace resolution */
	}
	if (ts < t->first)
		ts = t->first;
	/*
	 * (ts - first) / width, as microseconds halved shift times: a
	 * division by a constant is a multiplication, by width a division.
	 */
	b = (ts - t->first) / 1000 >> t->shift;
	if (b >= NR_BINS)
		b = tg_widen(t, ts);
	t->bins[b][kind]++;
	t->total[kind]++;
	if (ts > t->last)
		t->last = ts;
}

void lifecycle_fault(struct lifecycle *lc, uint64_t mm, unsigned long address, uint64_t ts)
{
	uint64_t page = address >> 12;
	size_t i = (size_t)((page * 0x9E3779B97F4A7C15ULL) ^ mm) & (MAX_REFAULTS - 1);

	if (!lc->rf) {
		/* made at the first fault: most traces analysed are small */
		lc->rf = xcalloc(MAX_REFAULTS, sizeof(*lc->rf));
		lc->rf_used = xcalloc(MAX_REFAULTS / 2, sizeof(*lc->rf_used));
	}

	while (lc->rf[i].count && (lc->rf[i].mm != mm || lc->rf[i].page != page))
		i = (i + 1) & (MAX_REFAULTS - 1);
	if (!lc->rf[i].count) {
		if (lc->nr_rf >= MAX_REFAULTS / 2) {	/* keep probing short */
			lc->rf_full = 1;
			return;
		}
		lc->rf_used[lc->nr_rf++] = (uint32_t)i;
		lc->rf[i].mm = mm;
		lc->rf[i].page = page;
		lc->rf[i].windows = 1;
	} else if (ts - lc->rf[i].last_ts > 10000000ULL) {
		/* a new window: more than 10 ms since this page last faulted */
		lc->rf[i].windows++;
	}
	lc->rf[i].count++;
	lc->rf[i].last_ts = ts;
}

static const char *const kind_names[LC_NR] = { "faults", "retries", "vma_writes", "mmap_waits" };

static json_object *phase(const struct tg *t, uint64_t from, uint64_t to)
{
	json_object *o = json_object_new_object();
	uint64_t sums[LC_NR] = { 0 }, b;
	int k;

	for (b = 0; b < NR_BINS; b++) {
		uint64_t mid = b * t->width + t->width / 2;

		if (mid < from || mid >= to)
			continue;
		for (k = 0; k < LC_NR; k++)
			sums[k] += t->bins[b][k];
	}
	for (k = 0; k < LC_NR; k++)
		json_object_object_add(o, kind_names[k], json_object_new_uint64(sums[k]));
	return o;
}

json_object *lifecycle_json(const struct lifecycle *lc)
{
	json_object *arr = json_object_new_array();
	int i, k;

	for (i = 0; i < lc->nr_tgs; i++) {
		const struct tg *t = lc->tgs[i];
		uint64_t span = t->last - t->first, cut1 = span / 5, cut2 = span - span / 5;
		json_object *o = json_object_new_object(), *tot = json_object_new_object();

		json_object_object_add(o, "tgid", json_object_new_int(t->tgid));
		json_object_object_add(o, "span_us", json_object_new_uint64(span / 1000));
		for (k = 0; k < LC_NR; k++)
			json_object_object_add(tot, kind_names[k], json_object_new_uint64(t->total[k]));
		json_object_object_add(o, "total", tot);
		json_object_object_add(o, "early", phase(t, 0, cut1));
		json_object_object_add(o, "middle", phase(t, cut1, cut2 + 1));
		json_object_object_add(o, "late", phase(t, cut2 + 1, UINT64_MAX));
		json_object_array_add(arr, o);
	}
	return arr;
}

static int cmp_refault(const void *a, const void *b)
{
	const struct refault *x = *(struct refault *const *)a, *y = *(struct refault *const *)b;

	if (x->windows != y->windows)
		return x->windows < y->windows ? 1 : -1;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

json_object *lifecycle_refaults_json(const struct lifecycle *lc)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	const struct refault **top = xcalloc(lc->nr_rf + 1, sizeof(*top));
	uint32_t *used = xcalloc(lc->nr_rf + 1, sizeof(*used));
	size_t i, n = 0;
	char buf[32];

	/* the slots in table order, as the whole table used to be walked */
	if (lc->nr_rf) {
		memcpy(used, lc->rf_used, lc->nr_rf * sizeof(*used));
		qsort(used, lc->nr_rf, sizeof(*used), cmp_u32);
	}
	for (i = 0; i < lc->nr_rf; i++)
		if (lc->rf[used[i]].windows >= 2)
			top[n++] = &lc->rf[used[i]];
	free(used);
	qsort(top, n, sizeof(*top), cmp_refault);
	for (i = 0; i < n && i < 10; i++) {
		json_object *r = json_object_new_object();

		snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)top[i]->mm);
		json_object_object_add(r, "mm", json_object_new_string(buf));
		snprintf(buf, sizeof(buf), "%llx", (unsigned long long)(top[i]->page << 12));
		json_object_object_add(r, "address", json_object_new_string(buf));
		json_object_object_add(r, "faults", json_object_new_uint64(top[i]->count));
		json_object_object_add(r, "windows", json_object_new_uint64(top[i]->windows));
		json_object_array_add(arr, r);
	}
	json_object_object_add(o, "pages_with_refaults", json_object_new_uint64(n));
	json_object_object_add(o, "top", arr);
	json_object_object_add(o, "table_full", json_object_new_boolean(lc->rf_full));
	free(top);
	return o;
}
