// SPDX-License-Identifier: GPL-2.0
/*
 * Pairing and classification.  Each task (pid) has a slot per interval kind
 * (perf builtin-lock style: a begin opens the slot, an end closes it, a broken
 * sequence is counted by kind).  Intervals that take part in Type-A/B are kept
 * on sweep lists: open ones in start order, closed ones in end order.  A pair
 * is found once, by the side that closes second, against the closed list of
 * the other side; a closed interval is dropped as soon as no open or future
 * interval can still overlap it, so memory follows the open intervals, not
 * the trace length.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"
#include "lost.h"
#include "util.h"

const char *const slot_names[SLOT_NR] = {
	"fault", "fault_wait", "retry_gap", "vma_write", "vma_wait", "mmap_wait", "mmap_hold",
	"mmap_cwait",
};

const char *const slot_anomaly_names[SA_NR] = {
	"end_without_begin", "begin_nested", "unclosed", "mode_mismatch", "end_before_start",
};

/* ---- small helpers ------------------------------------------------------ */

/*
 * Intervals and mm slots come and go by the million: a free list over
 * blocks keeps them off malloc's hot path and close together in memory.
 * Blocks are given back only at the end (the peak is what was open).
 */
#define SLAB_BLOCK	256

static void *slab_alloc(struct slab *sl, size_t size)
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

static void slab_free(struct slab *sl, void *p)
{
	*(void **)p = sl->free;
	sl->free = p;
}

static void slab_release(struct slab *sl)
{
	size_t i;

	for (i = 0; i < sl->nr_blocks; i++)
		free(sl->blocks[i]);
	free(sl->blocks);
	memset(sl, 0, sizeof(*sl));
}

/*
 * Calls come from one slab per thread, shared by the analyses alive in it
 * and given back with the last of them: no free() per call, not even at
 * the end (a trace that ends with 1e5 open faults).
 */
static _Thread_local struct slab call_slab;
static _Thread_local unsigned int nr_analyses;

static struct call *call_new(uint64_t ts)
{
	struct call *c = slab_alloc(&call_slab, sizeof(*c));

	c->refs = 1;
	c->ts = ts;
	return c;
}

static struct call *call_get(struct call *c)
{
	if (c)
		c->refs++;
	return c;
}

static void call_put(struct call *c)
{
	if (c && !--c->refs) {
		free(c->wpids);
		slab_free(&call_slab, c);
	}
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size)
		n = size - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * "mprotect_fixup+0x1c4/0x2f0 [mod]" -> "mprotect_fixup".  GCC's clones
 * ("proc_get_vma.isra.0", ".constprop.0", ".part.0", ".cold") are the same
 * source function: group them under its name.
 */
static void caller_func(char *dst, size_t size, const char *caller)
{
	size_t n = 0;

	if (!caller || !*caller) {
		copy_str(dst, size, "unknown");
		return;
	}
	while (caller[n] && caller[n] != '+' && caller[n] != ' ' && n < size - 1 &&
	       (caller[n] != '.' || n == 0))
		n++;
	memcpy(dst, caller, n);
	dst[n] = '\0';
}

/*
 * The caller of a stock write hold: the first frame of its stack (the
 * tracing frames already left out) that is not the rwsem itself, "" when no
 * stack was recorded.
 */
static void stock_caller(char *dst, size_t size, const char *stack)
{
	static const char *const lock_prefix[] = { "down_", "__down_", "rwsem_", "__rwsem_" };
	const char *f = stack;

	while (f && *f) {
		size_t n = strcspn(f, ";"), i;
		int lock = 0;

		for (i = 0; i < ARRAY_SIZE(lock_prefix); i++)
			lock |= !strncmp(f, lock_prefix[i], strlen(lock_prefix[i]));
		if (!lock) {
			if (n >= size)
				n = size - 1;
			memcpy(dst, f, n);
			dst[n] = '\0';
			return;
		}
		f += n;
		if (*f == ';')
			f++;
	}
	dst[0] = '\0';
}

static void count_reason(struct reason_counts *rc, const char *word)
{
	int i;

	if (!word || !*word)
		word = "unknown";
	for (i = 0; i < rc->nr; i++) {
		if (!strcmp(rc->c[i].name, word)) {
			rc->c[i].count++;
			return;
		}
	}
	if (rc->nr == MAX_REASONS)
		i = rc->nr - 1, word = "other";
	else
		i = rc->nr++;
	copy_str(rc->c[i].name, sizeof(rc->c[i].name), word);
	rc->c[i].count++;
}

static int caller_eq(const void *item, const void *key)
{
	return !strcmp(((const struct caller_stat *)item)->name, key);
}

/*
 * The stats of a writer caller function.  The callers live in an array (the
 * summary sorts it) and a hash indexes them by name; past MAX_CALLERS
 * distinct names (a kernel has a few hundred writers, only a made-up trace
 * more) the rest are counted under "other".
 */
static struct caller_stat *caller_stat(struct analysis *an, const char *caller)
{
	char name[CALLER_LEN];
	struct caller_stat *cs;
	uint64_t h;

	caller_func(name, sizeof(name), caller);
	if (an->nr_callers >= MAX_CALLERS && !htab_find(&an->caller_index,
							hash_str(an->seed, name), caller_eq, name))
		copy_str(name, sizeof(name), "other");
	h = hash_str(an->seed, name);
	cs = htab_find(&an->caller_index, h, caller_eq, name);
	if (cs)
		return cs;
	if (an->nr_callers == an->cap_callers) {
		int i;

		an->cap_callers = an->cap_callers ? an->cap_callers * 2 : 16;
		an->callers = xrealloc(an->callers, an->cap_callers * sizeof(*an->callers));
		/* the array moved: index it again */
		htab_release(&an->caller_index);
		for (i = 0; i < an->nr_callers; i++)
			htab_add(&an->caller_index, hash_str(an->seed, an->callers[i].name),
				 &an->callers[i]);
	}
	cs = &an->callers[an->nr_callers++];
	memset(cs, 0, sizeof(*cs));
	copy_str(cs->name, CALLER_LEN, name);
	htab_add(&an->caller_index, h, cs);
	return cs;
}

/*
 * The caller stats of a call's writer, found once per call: pairs and waits
 * ask again and again.  The index stays valid until the summary sorts the
 * array.
 */
static struct caller_stat *call_caller(struct analysis *an, struct call *c)
{
	struct caller_stat *cs;

	if (c && c->caller_idx)
		return &an->callers[c->caller_idx - 1];
	cs = caller_stat(an, c ? c->caller : NULL);
	if (c)
		c->caller_idx = (int)(cs - an->callers) + 1;
	return cs;
}

/* ---- tasks ---------------------------------------------------------------- */

static int task_eq(const void *item, const void *key)
{
	return ((const struct task *)item)->pid == *(const int *)key;
}

static struct task *task_find(struct analysis *an, int pid)
{
	struct task *t = an->last_task;

	/* the next event is most often the same task's */
	if (t && t->pid == pid)
		return t;
	t = htab_find(&an->tasks, hash_mix(an->seed, (uint64_t)pid), task_eq, &pid);
	if (t)
		an->last_task = t;
	return t;
}

static void idle_unlink(struct analysis *an, struct task *t)
{
	if (!t->idle)
		return;
	if (t->idle_prev)
		t->idle_prev->idle_next = t->idle_next;
	else
		an->idle_head = t->idle_next;
	if (t->idle_next)
		t->idle_next->idle_prev = t->idle_prev;
	else
		an->idle_tail = t->idle_prev;
	t->idle_prev = t->idle_next = NULL;
	t->idle = 0;
	an->nr_idle--;
}

static void task_free(struct analysis *an, struct task *t)
{
	if (an->last_task == t)
		an->last_task = NULL;
	idle_unlink(an, t);
	htab_del(&an->tasks, hash_mix(an->seed, (uint64_t)t->pid), t);
	an->nr_tasks--;
	call_put(t->sfault);
	free(t->pending_stack);
	slab_free(&an->task_slab, t);
}

/*
 * Nothing of @t is open, held or expected: it may be forgotten (a pending
 * --stack-position before block goes with it).
 */
static int task_is_idle(const struct analysis *an, const struct task *t)
{
	int s;

	if (t->refs || t->fault || t->fw || t->gap || t->vwrite || t->vw || t->nr_mms ||
	    t->stack_target || t == an->stack_task)
		return 0;
	for (s = 0; s < SLOT_NR; s++)
		if (t->absorb[s])
			return 0;
	return 1;
}

/*
 * After @t's event: an idle task joins the idle list, and the oldest idle
 * tasks beyond MAX_IDLE_TASKS are forgotten, so memory follows the open
 * intervals rather than every pid ever seen (issue 13 L6).
 */
static void task_settle_idle(struct analysis *an, struct task *t)
{
	if (t->idle || !task_is_idle(an, t))
		return;
	t->idle = 1;
	t->idle_prev = an->idle_tail;
	t->idle_next = NULL;
	if (an->idle_tail)
		an->idle_tail->idle_next = t;
	else
		an->idle_head = t;
	an->idle_tail = t;
	an->nr_idle++;
	while (an->nr_idle > MAX_IDLE_TASKS && !an->finishing)
		task_free(an, an->idle_head);
}

static struct task *task_get(struct analysis *an, int pid)
{
	struct task *t = task_find(an, pid);

	if (t) {
		idle_unlink(an, t);
		return t;
	}
	t = slab_alloc(&an->task_slab, sizeof(*t));
	t->pid = pid;
	t->tgid = -1;
	t->prio = -1;
	t->sched_prio = -1;
	htab_add(&an->tasks, hash_mix(an->seed, (uint64_t)pid), t);
	an->nr_tasks++;
	return t;
}

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

static void settle_mmslot(struct analysis *an, struct task *t, struct mmslot *s);

/* The (pid, mm) slot of mmap_lock events; a hash, whatever the number of mm's. */
static struct mmslot *mmslot_get(struct analysis *an, struct task *t, uint64_t mm, int stock)
{
	struct mm_key k = { t->pid, stock, mm };
	uint64_t h = mmslot_hash(an, t->pid, mm, stock);
	struct mmslot *s = htab_find(&an->mmslots, h, mmslot_eq, &k);

	if (s) {
		settle_mmslot(an, t, s);
		return s;
	}
	s = slab_alloc(&an->mmslot_slab, sizeof(*s));
	s->pid = t->pid;
	s->mm = mm;
	s->stock = stock;
	htab_add(&an->mmslots, h, s);
	t->nr_mms++;
	return s;
}

/* Forget a slot with nothing in it. */
static void mmslot_release(struct analysis *an, struct task *t, uint64_t mm, int stock)
{
	struct mm_key k = { t->pid, stock, mm };
	uint64_t h = mmslot_hash(an, t->pid, mm, stock);
	struct mmslot *s = htab_find(&an->mmslots, h, mmslot_eq, &k);

	if (!s || s->wait || s->hold || s->acq)
		return;
	htab_del(&an->mmslots, h, s);
	slab_free(&an->mmslot_slab, s);
	t->nr_mms--;
}

/* ---- sweep lists ---------------------------------------------------------- */

static void list_append(struct analysis *an, int l, struct ival *iv)
{
	struct ilist *li = &an->lists[l];

	iv->list = l;
	iv->next = NULL;
	iv->prev = li->tail;
	if (li->tail)
		li->tail->next = iv;
	else
		li->head = iv;
	li->tail = iv;
}

static void list_remove(struct analysis *an, struct ival *iv)
{
	struct ilist *li;

	if (iv->list < 0)
		return;
	li = &an->lists[iv->list];
	if (iv->prev)
		iv->prev->next = iv->next;
	else
		li->head = iv->next;
	if (iv->next)
		iv->next->prev = iv->prev;
	else
		li->tail = iv->prev;
	iv->prev = iv->next = NULL;
	iv->list = -1;
}

static uint64_t cpu_epoch(struct analysis *an, int cpu);

static struct ival *ival_new(struct analysis *an, struct task *t, uint64_t ts, int cpu, int prio)
{
	struct ival *iv = slab_alloc(&an->ival_slab, sizeof(*iv));

	iv->start = ts;
	iv->task = t;
	t->refs++;
	iv->cpu = cpu;
	iv->epoch = cpu_epoch(an, cpu);
	iv->prio = prio;
	iv->list = -1;
	return iv;
}

/*
 * Closed sweep intervals are indexed by what a pair needs equal: Type-A by
 * (mm, vma) when the event had the pointer and by (mm, vm_start, vm_end, ino,
 * dev) always (the fallback of same_vma()), Type-B by mm.  A closing interval
 * then looks only at the buckets it can pair with, from the first member that
 * ends after it starts (a binary search: members are in closing order), so
 * one interval that never ends does not make every later close scan what it
 * holds back (issue 13 M5).
 */
enum bucket_kind { BK_VMA, BK_RANGE_VMA, BK_RANGE_NOVMA, BK_MM };

struct bucket_key {
	int		list, kind;
	uint64_t	mm, vma;
	unsigned long	vm_start, vm_end, ino;
	const char	*dev;
};

struct bucket {
	struct bucket_key key;
	char		dev[24];
	uint64_t	hash;
	struct ival	**v;
	size_t		head, n, cap;	/* members v[head..n), in closing order */
};

static void bucket_key_of(struct bucket_key *k, int list, int kind, const struct ival *iv)
{
	memset(k, 0, sizeof(*k));
	k->list = list;
	k->kind = kind;
	k->mm = iv->mm;
	k->dev = "";
	if (kind == BK_VMA) {
		k->vma = iv->vma;
	} else if (kind != BK_MM && iv->call) {
		k->vm_start = iv->call->vm_start;
		k->vm_end = iv->call->vm_end;
		k->ino = iv->call->ino;
		k->dev = iv->call->dev;
	}
}

static uint64_t bucket_hash(const struct analysis *an, const struct bucket_key *k)
{
	const uint64_t m = 0x9e3779b97f4a7c15ULL;
	uint64_t h = an->seed ^ ((uint64_t)k->list << 8 | (uint64_t)k->kind);

	/* one final mix: a key is hashed for every close */
	h = (h ^ k->mm) * m;
	h = (h ^ k->vma) * m;
	if (k->kind == BK_RANGE_VMA || k->kind == BK_RANGE_NOVMA) {
		h = (h ^ k->vm_start) * m;
		h = (h ^ k->vm_end) * m;
		h = (h ^ k->ino) * m;
		return hash_str(h, k->dev);
	}
	return hash_mix(h, 0);
}

static int bucket_eq(const void *item, const void *key)
{
	const struct bucket_key *a = &((const struct bucket *)item)->key, *b = key;

	return a->list == b->list && a->kind == b->kind && a->mm == b->mm && a->vma == b->vma &&
	       a->vm_start == b->vm_start && a->vm_end == b->vm_end && a->ino == b->ino &&
	       !strcmp(a->dev, b->dev);
}

static struct bucket *bucket_find(struct analysis *an, const struct bucket_key *k)
{
	return htab_find(&an->buckets, bucket_hash(an, k), bucket_eq, k);
}

static void bucket_add(struct analysis *an, int list, int kind, struct ival *iv, int slot)
{
	struct bucket_key k;
	struct bucket *b;
	uint64_t h;

	bucket_key_of(&k, list, kind, iv);
	h = bucket_hash(an, &k);
	b = htab_find(&an->buckets, h, bucket_eq, &k);
	if (!b) {
		b = an->bucket_cache;
		if (b) {
			/* its member array is kept: ready for as many members again */
			an->bucket_cache = *(struct bucket **)b->v;
			an->nr_bucket_cache--;
			b->head = b->n = 0;
		} else {
			b = xcalloc(1, sizeof(*b));
		}
		b->key = k;
		copy_str(b->dev, sizeof(b->dev), k.dev);
		b->key.dev = b->dev;
		b->hash = h;
		htab_add(&an->buckets, b->hash, b);
	}
	if (b->n == b->cap) {
		if (b->head > b->cap / 2) {
			/* most of it was pruned: move the live part down */
			memmove(b->v, b->v + b->head, (b->n - b->head) * sizeof(*b->v));
			b->n -= b->head;
			b->head = 0;
		} else {
			b->cap = b->cap ? b->cap * 2 : 8;
			b->v = xrealloc(b->v, b->cap * sizeof(*b->v));
		}
	}
	b->v[b->n++] = iv;
	iv->bk[slot] = b;
}

/* Emptied buckets kept for reuse: keys come back (the same mm, vma and file). */
#define BUCKET_CACHE	256

/* Take @iv out of its buckets; it is their oldest member (pruning goes in closing order). */
static void bucket_remove(struct analysis *an, struct ival *iv)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct bucket *b = iv->bk[i];
		size_t k;

		if (!b)
			continue;
		iv->bk[i] = NULL;
		for (k = b->head; k < b->n && b->v[k] != iv; k++)
			;
		if (k == b->n)
			continue;
		if (k == b->head) {
			b->head++;	/* pruning goes in closing order: always the oldest */
		} else {
			memmove(b->v + k, b->v + k + 1, (b->n - k - 1) * sizeof(*b->v));
			b->n--;
		}
		if (b->head == b->n) {
			htab_del(&an->buckets, b->hash, b);
			if (an->nr_bucket_cache < BUCKET_CACHE) {
				/* the link lives in its (empty) member array */
				*(struct bucket **)b->v = an->bucket_cache;
				an->bucket_cache = b;
				an->nr_bucket_cache++;
			} else {
				free(b->v);
				free(b);
			}
		}
	}
}

static void swriter_fold(struct analysis *an, struct ival *m);

static void ival_free(struct analysis *an, struct ival *iv)
{
	if (!iv)
		return;
	/*
	 * A closed stock interval leaves when nothing can pair with it any
	 * more: what was attributed to it, or not, is final.
	 */
	if (iv->list == L_CLOSED_SM)
		swriter_fold(an, iv);
	else if (iv->list == L_CLOSED_SW && !(iv->flags & IV_ATTR)) {
		an->unattr++;
		an->unattr_ns += iv->end - iv->start;
	}
	list_remove(an, iv);
	bucket_remove(an, iv);
	call_put(iv->call);
	if (iv->task && !--iv->task->refs)
		task_settle_idle(an, iv->task);
	slab_free(&an->ival_slab, iv);
}

/* Drop closed intervals that nothing open or future can overlap any more. */
static void prune(struct analysis *an, int closed, int open_other)
{
	struct ilist *cl = &an->lists[closed];
	uint64_t bound = an->now;
	struct ival *o = an->lists[open_other].head;

	if (o && o->start < bound)
		bound = o->start;
	while (cl->head && cl->head->end <= bound)
		ival_free(an, cl->head);
}

static int overlaps(const struct ival *a, const struct ival *b)
{
	return a->start < b->end && b->start < a->end;
}

static uint64_t overlap_ns(const struct ival *a, const struct ival *b)
{
	uint64_t s = a->start > b->start ? a->start : b->start;
	uint64_t e = a->end < b->end ? a->end : b->end;

	return e > s ? e - s : 0;
}

static int same_vma(const struct ival *f, const struct ival *w)
{
	if (f->mm != w->mm)
		return 0;
	if (f->has_vma && w->has_vma)
		return f->vma == w->vma;
	return f->call && w->call && f->call->vm_start == w->call->vm_start &&
	       f->call->vm_end == w->call->vm_end && f->call->ino == w->call->ino &&
	       !strcmp(f->call->dev, w->call->dev);
}

static void side_from(struct pair_side *s, const struct ival *iv)
{
	s->pid = iv->task->pid;
	s->tgid = iv->task->tgid;
	s->prio = iv->prio;
	copy_str(s->comm, sizeof(s->comm), iv->task->comm);
	copy_str(s->stack, sizeof(s->stack), iv->call ? iv->call->stack : "");
}

static void heap_swap(struct pair_rec *a, struct pair_rec *b)
{
	struct pair_rec t = *a;

	*a = *b;
	*b = t;
}

int pair_known_path(const struct pair_rec *p, const char **operation)
{
	char func[CALLER_LEN];

	caller_func(func, sizeof(func), p->caller[0] ? p->caller : NULL);
	if (operation)
		*operation = writer_syscall(func);
	return writer_known_path(func);
}

/*
 * Keep the top_n slowest pairs in a min-heap; every pair goes through here
 * (its Type-C inversion evidence is counted here too).
 */
static void top_offer(struct analysis *an, struct top_heap *th, const struct pair_rec *p)
{
	unsigned int i, n = an->opts.top_n;
	struct pair_rec *top;

	if (p->c) {
		int known = pair_known_path(p, NULL), slow = p->dur_ns > PAIR_SLOW_NS;

		th->ev.known += known;
		th->ev.over_1ms += slow;
		th->ev.both += known && slow;
	}
	if (an->opts.on_pair)
		an->opts.on_pair(an->opts.hook_ctx, p);
	if (!n)
		return;
	if (!th->v)
		th->v = xcalloc(n, sizeof(*th->v));
	top = th->v;
	if (th->n < n) {
		i = th->n++;
		top[i] = *p;
		while (i && top[(i - 1) / 2].dur_ns > top[i].dur_ns) {
			heap_swap(&top[(i - 1) / 2], &top[i]);
			i = (i - 1) / 2;
		}
		return;
	}
	if (p->dur_ns <= top[0].dur_ns)
		return;
	top[0] = *p;
	for (i = 0;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && top[l].dur_ns < top[m].dur_ns)
			m = l;
		if (r < n && top[r].dur_ns < top[m].dur_ns)
			m = r;
		if (m == i)
			break;
		heap_swap(&top[m], &top[i]);
		i = m;
	}
}

/* Type-C: the blocked side has the higher priority (lower number). */
static int is_type_c(struct analysis *an, int blocked_prio, int blocker_prio)
{
	if (blocked_prio < 0 || blocker_prio < 0) {
		an->c_prio_unknown++;
		return 0;
	}
	return blocked_prio < blocker_prio;
}

static void pair_a(struct analysis *an, struct ival *fw, struct ival *vw)
{
	uint64_t dur = overlap_ns(fw, vw);
	struct caller_stat *cs = call_caller(an, vw->call);
	struct pair_rec p;

	an->a_count++;
	an->a_ns += dur;
	if (!(fw->call->flags & CALL_A_FAULT)) {
		fw->call->flags |= CALL_A_FAULT;
		an->a_faults++;
	}
	if (!(vw->call->flags & CALL_A_WRITER)) {
		vw->call->flags |= CALL_A_WRITER;
		an->a_writers++;
	}
	memset(&p, 0, sizeof(p));
	p.type = 'A';
	p.c = is_type_c(an, vw->prio, fw->prio);
	if (p.c) {
		an->c_count++;
		an->c_ns += dur;
		an->c_from_a++;
	}
	cs->a_pairs++;
	cs->a_ns += dur;
	p.dur_ns = dur;
	p.start_ns = fw->start > vw->start ? fw->start : vw->start;
	side_from(&p.blocked, vw);
	side_from(&p.blocker, fw);
	copy_str(p.blocker.user_pc, sizeof(p.blocker.user_pc), fw->call->user_pc);
	p.mm = vw->mm;
	p.vma = vw->vma;
	p.vm_start = vw->call->vm_start;
	p.vm_end = vw->call->vm_end;
	copy_str(p.caller, sizeof(p.caller), vw->call->caller);
	top_offer(an, &an->top, &p);
}

static void pair_b(struct analysis *an, struct ival *r, struct ival *m)
{
	uint64_t dur = overlap_ns(r, m);
	struct caller_stat *cs = call_caller(an, m->call);
	struct pair_rec p;

	an->b_count++;
	an->b_ns += dur;
	memset(&p, 0, sizeof(p));
	p.holding = m->has_hold && m->hold_start <= r->start;
	if (p.holding)
		an->b_holding++;
	else
		an->b_queued++;
	if (!(r->call->flags & CALL_B_FAULT)) {
		r->call->flags |= CALL_B_FAULT;
		an->b_faults++;
		an->b_retry_ns += r->end - r->call->ts;
	}
	if (!(m->flags & IV_B_WRITER)) {
		m->flags |= IV_B_WRITER;
		an->b_writers++;
	}
	p.type = 'B';
	p.c = is_type_c(an, r->prio, m->prio);
	if (p.c) {
		an->c_count++;
		an->c_ns += dur;
		an->c_from_b++;
	}
	cs->b_pairs++;
	cs->b_ns += dur;
	p.dur_ns = dur;
	p.start_ns = r->start > m->start ? r->start : m->start;
	side_from(&p.blocked, r);
	side_from(&p.blocker, m);
	copy_str(p.blocked.user_pc, sizeof(p.blocked.user_pc), r->call->user_pc);
	p.mm = r->mm;
	p.vma = r->call->vma;
	p.vm_start = r->call->vm_start;
	p.vm_end = r->call->vm_end;
	copy_str(p.caller, sizeof(p.caller), m->call->caller);
	top_offer(an, &an->top, &p);
}

/* The first member of @b that ends after @start (members are in closing order). */
static size_t bucket_first_after(const struct bucket *b, uint64_t start)
{
	size_t lo = b->head, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->v[mid]->end > start)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * An interval of a sweep closed: pair it with the closed intervals of the
 * other side that share its key and overlap it, keep it for the other side's
 * later closes, and drop what nothing can overlap any more.  Type-A sides
 * are FW (first) and VW, Type-B sides R (first) and M, the stock-event mode's
 * SW (contended waits, first) and SM (write intervals); each list's open
 * twin is the one before it.  The candidates of two buckets are taken in closing
 * order, the order the pairs were always offered in.
 */
static void pair_s(struct analysis *an, struct ival *w, struct ival *m);

static void sweep_close(struct analysis *an, struct ival *iv, int closed, int other_closed)
{
	int first = closed == L_CLOSED_FW || closed == L_CLOSED_R || closed == L_CLOSED_SW;
	int type_a = closed == L_CLOSED_FW || closed == L_CLOSED_VW;
	int stock = closed == L_CLOSED_SW || closed == L_CLOSED_SM;
	struct bucket *cand[2] = { NULL, NULL };
	size_t pos[2] = { 0, 0 };
	struct bucket_key k;
	int c;

	list_remove(an, iv);
	if (an->opts.on_ival)
		an->opts.on_ival(an->opts.hook_ctx, iv, closed);
	if (type_a) {
		/* same_vma(): the pointers when both have one, else the range */
		bucket_key_of(&k, other_closed, iv->has_vma ? BK_VMA : BK_RANGE_VMA, iv);
		cand[0] = bucket_find(an, &k);
		bucket_key_of(&k, other_closed, BK_RANGE_NOVMA, iv);
		cand[1] = bucket_find(an, &k);
	} else {
		bucket_key_of(&k, other_closed, BK_MM, iv);
		cand[0] = bucket_find(an, &k);
	}
	for (c = 0; c < 2; c++)
		if (cand[c])
			pos[c] = bucket_first_after(cand[c], iv->start);
	for (;;) {
		struct ival *o, *x, *y;

		c = -1;
		if (cand[0] && pos[0] < cand[0]->n)
			c = 0;
		if (cand[1] && pos[1] < cand[1]->n &&
		    (c < 0 || cand[1]->v[pos[1]]->seq < cand[0]->v[pos[0]]->seq))
			c = 1;
		if (c < 0)
			break;
		o = cand[c]->v[pos[c]++];
		x = first ? iv : o;
		y = first ? o : iv;
		if (!overlaps(x, y) || x->task == y->task)
			continue;
		if (type_a && same_vma(x, y))
			pair_a(an, x, y);
		else if (stock && x->mm == y->mm)
			pair_s(an, x, y);
		else if (!type_a && !stock && x->mm == y->mm)
			pair_b(an, x, y);
	}
	iv->seq = ++an->close_seq;
	list_append(an, closed, iv);
	if (type_a) {
		bucket_add(an, closed, iv->has_vma ? BK_VMA : BK_RANGE_NOVMA, iv, 0);
		if (iv->has_vma)
			bucket_add(an, closed, BK_RANGE_VMA, iv, 1);
	} else {
		bucket_add(an, closed, BK_MM, iv, 0);
	}
	prune(an, closed, other_closed - 1);
	prune(an, other_closed, closed - 1);
}

static void close_fw(struct analysis *an, struct ival *fw)
{
	sweep_close(an, fw, L_CLOSED_FW, L_CLOSED_VW);
}

static void close_vw(struct analysis *an, struct ival *vw)
{
	sweep_close(an, vw, L_CLOSED_VW, L_CLOSED_FW);
}

static void close_r(struct analysis *an, struct ival *r)
{
	sweep_close(an, r, L_CLOSED_R, L_CLOSED_M);
}

static void close_m(struct analysis *an, struct ival *m)
{
	sweep_close(an, m, L_CLOSED_M, L_CLOSED_R);
}

/* ---- the per-task state machine ------------------------------------------ */

static void anomaly(struct analysis *an, enum slot s, enum slot_anomaly a)
{
	an->anomalies[s][a]++;
}

/* An end with no open begin: absorbed when the begin was lost, else counted. */
static void end_without_begin(struct analysis *an, struct task *t, enum slot s)
{
	if (t->absorb[s]) {
		t->absorb[s]--;
		return;
	}
	anomaly(an, s, SA_END_WITHOUT_BEGIN);
}

static int pidstat_eq(const void *item, const void *key)
{
	return ((const struct pidstat *)item)->pid == *(const int *)key;
}

/*
 * A wait of @t's, for waits_by_pid.  Kept apart from the task (which may be
 * forgotten while idle), for up to MAX_PIDSTATS pids; beyond, counted only.
 */
static void wait_stat(struct analysis *an, struct task *t, enum wait_kind k, uint64_t ns)
{
	struct waitstat *w;

	if (!t->ps) {
		uint64_t h = hash_mix(an->seed, (uint64_t)t->pid);

		t->ps = htab_find(&an->pidstats, h, pidstat_eq, &t->pid);
		if (!t->ps && an->pidstats.nr >= MAX_PIDSTATS) {
			an->pidstat_omitted++;
			return;
		}
		if (!t->ps) {
			t->ps = xcalloc(1, sizeof(*t->ps));
			t->ps->pid = t->pid;
			htab_add(&an->pidstats, h, t->ps);
		}
	}
	/* the summary names a pid by its task's latest tgid and comm */
	t->ps->tgid = t->tgid;
	copy_str(t->ps->comm, sizeof(t->ps->comm), t->comm);
	w = &t->ps->ws[k];
	w->count++;
	w->sum_ns += ns;
	if (ns > w->max_ns)
		w->max_ns = ns;
	if (ns > 1000000)
		w->over_1ms++;
	if (ns > 10000000)
		w->over_10ms++;
}

/*
 * The call a following stack block is attached to.  It holds a reference:
 * whatever ends or truncates the call meanwhile ([LOST] on its CPU, a nested
 * begin), the block is written into live memory (issue 13 H1).
 */
static void stack_target_put(struct task *t)
{
	call_put(t->stack_target);
	t->stack_target = NULL;
}

static void set_stack_target(struct analysis *an, struct task *t, struct call *c, int cpu)
{
	stack_target_put(t);
	t->stack_target = call_get(c);
	t->stack_target_cpu = cpu;
	t->stack_target_epoch = cpu_epoch(an, cpu);
	if (an->opts.stack_before && c && t->pending_stack && t->pending_cpu == cpu &&
	    !c->stack[0]) {
		copy_str(c->stack, sizeof(c->stack), t->pending_stack);
		free(t->pending_stack);
		t->pending_stack = NULL;
	}
}

/* A fault call or a VMA write, with the VMA its begin event names. */
static struct call *call_of_vma(const struct parsed_line *pl)
{
	struct call *c = call_new(pl->ts_ns);

	c->mm = pl_hex(pl, PF_MM);
	c->vma = pl_hex(pl, PF_VMA);
	c->vm_start = pl_hex(pl, PF_VM_START);
	c->vm_end = pl_hex(pl, PF_VM_END);
	c->ino = (unsigned long)pl_dec(pl, PF_INO, 0);
	copy_str(c->dev, sizeof(c->dev), pl_str(pl, PF_DEV));
	copy_str(c->user_pc, sizeof(c->user_pc), pl_str(pl, PF_USER_PC));
	return c;
}

static void drop_fault_wait(struct analysis *an, struct task *t)
{
	ival_free(an, t->fw);
	t->fw = NULL;
}

static void on_fault_begin(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct call *c;

	if (t->gap) {		/* the retry gap ends with the next fault call */
		call_put(t->gap);
		t->gap = NULL;
	}
	if (t->fault) {
		anomaly(an, SLOT_FAULT, SA_BEGIN_NESTED);
		call_put(t->fault);
		drop_fault_wait(an, t);
	}
	/* a lost end can no longer arrive once the slot begins again */
	t->absorb[SLOT_FAULT] = t->absorb[SLOT_FAULT_WAIT] = 0;
	c = call_of_vma(pl);
	t->fault = c;
	t->fault_cpu = pl->cpu;
	t->fault_epoch = cpu_epoch(an, pl->cpu);
	set_stack_target(an, t, c, pl->cpu);
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_FAULT);
	lifecycle_fault(an->lc, c->mm, pl_hex(pl, PF_ADDRESS), pl->ts_ns);
}

static void on_fault_wait_start(struct analysis *an, struct task *t,
				const struct parsed_line *pl)
{
	struct ival *iv = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);

	if (t->fw) {
		anomaly(an, SLOT_FAULT_WAIT, SA_BEGIN_NESTED);
		drop_fault_wait(an, t);
	}
	t->absorb[SLOT_FAULT_WAIT] = 0;
	iv->mm = pl_hex(pl, PF_MM);
	iv->vma = pl_hex(pl, PF_VMA);
	iv->has_vma = pl_has(pl, PF_VMA);
	iv->lock = pl_lock(pl, PF_LOCK);
	if (t->fault) {
		iv->call = call_get(t->fault);
	} else {
		an->an_fault_wait_outside++;
		iv->call = call_new(pl->ts_ns);
		iv->call->mm = iv->mm;
		iv->call->vma = iv->vma;
	}
	t->fw = iv;
	if (iv->lock == MMLOCK_FL_vma)
		list_append(an, L_OPEN_FW, iv);
	set_stack_target(an, t, iv->call, pl->cpu);
}

static void on_fault_wait_end(struct analysis *an, struct task *t,
			      const struct parsed_line *pl)
{
	struct ival *iv = t->fw;
	uint64_t ns;

	if (!iv) {
		end_without_begin(an, t, SLOT_FAULT_WAIT);
		return;
	}
	if (pl->ts_ns < iv->start) {
		/* time went backwards: an anomaly, never a duration (issue 13 M3) */
		anomaly(an, SLOT_FAULT_WAIT, SA_END_BEFORE_START);
		drop_fault_wait(an, t);
		return;
	}
	t->fw = NULL;
	iv->end = pl->ts_ns;
	ns = iv->end - iv->start;
	hist_add(&an->fault_wait, ns / 1000);
	if (iv->lock == LOCK_UNKNOWN)
		an->waits_lock_unknown++;
	else if (iv->lock >= 0)
		an->waits_by_lock[iv->lock]++;
	wait_stat(an, t, WAIT_FAULT, ns);
	if (iv->list == L_OPEN_FW)
		close_fw(an, iv);
	else
		ival_free(an, iv);
}

static void on_fault_retry(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct call *g;

	count_reason(&an->retry_reasons, pl_str(pl, PF_REASON));
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_RETRY);
	if (!t->fault)
		an->an_retry_outside++;
	if (t->gap) {
		anomaly(an, SLOT_RETRY_GAP, SA_BEGIN_NESTED);
		call_put(t->gap);
	}
	g = call_new(pl->ts_ns);
	g->mm = pl_hex(pl, PF_MM);
	if (t->fault) {
		g->vma = t->fault->vma;
		g->vm_start = t->fault->vm_start;
		g->vm_end = t->fault->vm_end;
		copy_str(g->user_pc, sizeof(g->user_pc), t->fault->user_pc);
	} else {
		g->vma = pl_hex(pl, PF_VMA);
	}
	t->gap = g;
	t->gap_cpu = pl->cpu;
	t->gap_epoch = cpu_epoch(an, pl->cpu);
}

static void on_fault_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	if (!t->fault) {
		end_without_begin(an, t, SLOT_FAULT);
		return;
	}
	if (t->fw) {
		anomaly(an, SLOT_FAULT_WAIT, SA_UNCLOSED);
		drop_fault_wait(an, t);
	}
	if (pl_bool(pl, PF_MAJOR))
		an->major_count++;
	call_put(t->fault);
	t->fault = NULL;
}

/* vma_start_write_begin's flags=%lx; 0 when absent or not hex */
static int vm_flags(const char *s, uint64_t *flags)
{
	char *end;

	if (!s || !isxdigit((unsigned char)*s))
		return 0;
	errno = 0;
	*flags = strtoull(s, &end, 16);
	return !errno && !*end;
}

/*
 * The user address that stands for a writer caller in the per-caller
 * tables: its first writer's, replaced by the writer of its longest wait.
 */
static void caller_sample(struct caller_stat *cs, const struct task *t, uint64_t ts,
			  const char *user_pc, uint64_t wait_ns)
{
	if (!user_pc || !*user_pc || (cs->user_pc[0] && wait_ns <= cs->upc_wait_ns))
		return;
	copy_str(cs->user_pc, sizeof(cs->user_pc), user_pc);
	cs->upc_tgid = t->tgid;
	cs->upc_ts = ts;
	cs->upc_wait_ns = wait_ns;
}

static void on_vma_write_begin(struct analysis *an, struct task *t,
			       const struct parsed_line *pl)
{
	const char *caller = pl_str(pl, PF_CALLER);
	struct caller_stat *cs = caller_stat(an, caller);
	struct call *c;
	uint64_t flags;

	cs->count++;
	count_reason(&an->by_syscall, writer_syscall(cs->name));
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_VMA_WRITE);
	if (pl_dec(pl, PF_INO, 0)) {
		an->file_backed++;
		cs->file_backed++;
	}
	if (pl_bool(pl, PF_ANON)) {
		an->anonymous++;
		cs->anonymous++;
	}
	if (vm_flags(pl_str(pl, PF_FLAGS), &flags)) {
		cs->flags_seen++;
		cs->shared += !!(flags & VM_SHARED_BIT);
	}
	caller_sample(cs, t, pl->ts_ns, pl_str(pl, PF_USER_PC), 0);
	if (t->vwrite) {
		anomaly(an, SLOT_VMA_WRITE, SA_BEGIN_NESTED);
		call_put(t->vwrite);
	}
	t->absorb[SLOT_VMA_WRITE] = t->absorb[SLOT_VMA_WAIT] = 0;
	c = call_of_vma(pl);
	copy_str(c->caller, sizeof(c->caller), caller);
	c->caller_idx = (int)(cs - an->callers) + 1;	/* call_caller() of it: found above */
	t->vwrite = c;
	t->vwrite_cpu = pl->cpu;
	t->vwrite_epoch = cpu_epoch(an, pl->cpu);
	set_stack_target(an, t, c, pl->cpu);
}

static void drop_vma_wait(struct analysis *an, struct task *t)
{
	ival_free(an, t->vw);
	t->vw = NULL;
}

static void on_vma_wait_start(struct analysis *an, struct task *t,
			      const struct parsed_line *pl)
{
	struct ival *iv = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);

	if (t->vw) {
		anomaly(an, SLOT_VMA_WAIT, SA_BEGIN_NESTED);
		drop_vma_wait(an, t);
	}
	t->absorb[SLOT_VMA_WAIT] = 0;
	iv->mm = pl_hex(pl, PF_MM);
	iv->vma = pl_hex(pl, PF_VMA);
	iv->has_vma = pl_has(pl, PF_VMA);
	if (t->vwrite) {
		iv->call = call_get(t->vwrite);
	} else {
		iv->call = call_new(pl->ts_ns);
		iv->call->mm = iv->mm;
		iv->call->vma = iv->vma;
		iv->call->vm_start = pl_hex(pl, PF_VM_START);
		iv->call->vm_end = pl_hex(pl, PF_VM_END);
	}
	t->vw = iv;
	list_append(an, L_OPEN_VW, iv);
	set_stack_target(an, t, iv->call, pl->cpu);
}

static void on_vma_wait_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct ival *iv = t->vw;
	struct caller_stat *cs;
	uint64_t ns;

	if (!iv) {
		end_without_begin(an, t, SLOT_VMA_WAIT);
		return;
	}
	if (pl->ts_ns < iv->start) {
		anomaly(an, SLOT_VMA_WAIT, SA_END_BEFORE_START);
		drop_vma_wait(an, t);
		return;
	}
	t->vw = NULL;
	iv->end = pl->ts_ns;
	ns = iv->end - iv->start;
	hist_add(&an->vma_wait, ns / 1000);
	wait_stat(an, t, WAIT_VMA, ns);
	cs = call_caller(an, iv->call);
	cs->waits++;
	cs->wait_sum_ns += ns;
	if (ns > cs->wait_max_ns)
		cs->wait_max_ns = ns;
	caller_sample(cs, t, iv->start, iv->call->user_pc, ns);
	close_vw(an, iv);
}

static void on_vma_write_done(struct analysis *an, struct task *t,
			     const struct parsed_line *pl)
{
	(void)pl;
	if (!t->vwrite) {
		end_without_begin(an, t, SLOT_VMA_WRITE);
		return;
	}
	if (t->vw) {
		anomaly(an, SLOT_VMA_WAIT, SA_UNCLOSED);
		drop_vma_wait(an, t);
	}
	call_put(t->vwrite);
	t->vwrite = NULL;
}

static void drop_acq(struct analysis *an, struct mmslot *s)
{
	ival_free(an, s->acq);
	s->acq = NULL;
}

static void mmap_hold_end(struct analysis *an, struct task *t, const struct parsed_line *pl,
			  int stock);

/* ---- the stock-event mode -------------------------------------------------- */
/*
 * On a kernel without our events (and without mmlock_probe.ko) the stock
 * events still say who waited for mmap_lock behind whom: a
 * lock:contention_begin nested in an open mmap_lock call (start_locking ..
 * acquire_returned) of the same task is that call's sleep on the rwsem, and
 * each such wait is attributed to the write intervals of other tasks on the
 * same mm that overlap it (a writer from its own contended wait, queued, or
 * from its acquisition, to its release).  exceptions:page_fault_user and
 * filemap:mm_filemap_fault recognise a fault that reached filemap_fault()
 * and went back to mmap_lock: a retry, the Type-B fault side.
 */

/* The stock (pid, mm) slot, if there is one; never creates it. */
static struct mmslot *mmslot_peek(struct analysis *an, struct task *t, uint64_t mm)
{
	struct mm_key k = { t->pid, 1, mm };
	struct mmslot *s = htab_find(&an->mmslots, mmslot_hash(an, t->pid, mm, 1), mmslot_eq, &k);

	if (s)
		settle_mmslot(an, t, s);
	return s;
}

static void drop_cwait(struct analysis *an, struct task *t)
{
	ival_free(an, t->cw);
	t->cw = NULL;
}

static void sfault_end(struct task *t)
{
	call_put(t->sfault);
	t->sfault = NULL;
}

/*
 * exceptions:page_fault_user opens a fault of the task (x86: every user
 * fault goes through it first); the task's next fault, kernel or user, or
 * its exit ends it.
 */
static void on_page_fault(struct analysis *an, struct task *t, const struct parsed_line *pl,
			  int user)
{
	sfault_end(t);
	if (!user)
		return;
	t->sfault = call_new(pl->ts_ns);
	t->sfault->vm_start = (unsigned long)pl_hex(pl, PF_ADDRESS);
	if (pl_has(pl, PF_ADDRESS))
		t->sfault->flags |= CALL_SF_ADDR;
	t->sfault_cpu = pl->cpu;
	t->sfault_epoch = cpu_epoch(an, pl->cpu);
}

/* filemap:mm_filemap_fault inside the fault: it reached filemap_fault(). */
static void on_stock_filemap_fault(struct analysis *an, struct task *t,
				   const struct parsed_line *pl)
{
	(void)an;
	if (!t->sfault || (t->sfault->flags & CALL_SF_REACHED))
		return;
	t->sfault->flags |= CALL_SF_REACHED;
	t->sfault->mark_ts = pl->ts_ns;
}

/*
 * A read call (start_locking write=false) of a fault that already reached
 * filemap_fault(): only VM_FAULT_RETRY brings a fault from there back to
 * mmap_lock (the per-VMA attempt dropped its lock, or filemap_fault()
 * released mmap_lock for the I/O).  The fault is a retried one; its first
 * such call starts the retry (mmap_read_trylock(), then, if that fails, the
 * blocking mmap_read_lock_killable()).
 */
static void stock_retry_call(struct analysis *an, struct task *t, struct ival *call)
{
	struct call *f = t->sfault;

	if (!f || !(f->flags & CALL_SF_REACHED))
		return;
	if (!(f->flags & CALL_SF_RETRY)) {
		f->flags |= CALL_SF_RETRY;
		f->ts = call->start;
		f->mm = call->mm;
		an->sf_retries++;
		if (call->start >= f->mark_ts)
			hist_add(&an->retry_io, (call->start - f->mark_ts) / 1000);
	}
	call->flags |= IV_RCALL;
	call->call = call_get(f);
}

/* A stock write hold begins (@s's write call got the lock, or a trylock did). */
static void stock_write_holds(struct analysis *an, struct task *t, struct mmslot *s,
			      const struct parsed_line *pl)
{
	struct ival *m = s->acq;

	if (!m) {
		m = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);
		m->mm = s->mm;
		m->write = 1;
		m->flags = IV_SM;
		m->call = call_new(pl->ts_ns);
		s->acq = m;
		list_append(an, L_OPEN_SM, m);
	}
	m->has_hold = 1;
	m->hold_start = pl->ts_ns;
	/* the write hold's stack block (stacktrace if write == 1) names its caller */
	set_stack_target(an, t, m->call, pl->cpu);
}

static void close_sm(struct analysis *an, struct mmslot *s, uint64_t ts)
{
	struct ival *m = s->acq;

	s->acq = NULL;
	m->end = ts;
	sweep_close(an, m, L_CLOSED_SM, L_CLOSED_SW);
}

/* A stock call ends (acquire_returned after start_locking). */
static void stock_call_end(struct analysis *an, struct task *t, struct mmslot *s,
			   const struct ival *call, const struct parsed_line *pl, int success)
{
	if (t->cw && t->cw->mm == s->mm) {
		/* the rwsem reports contention_end before the call returns */
		anomaly(an, SLOT_MMAP_CWAIT, SA_UNCLOSED);
		drop_cwait(an, t);
	}
	if (t->scall_set && t->scall_mm == s->mm)
		t->scall_set = 0;
	if (call->flags & IV_RCALL) {
		struct call *f = call->call;

		if (!success && !call->write)
			f->flags |= CALL_SF_TRYFAIL;
		if (success && !f->done_ts) {
			f->done_ts = pl->ts_ns;
			if (f->flags & CALL_B_PENDING) {
				f->flags &= ~CALL_B_PENDING;
				an->sb_retry_ns += f->done_ts - f->ts;
			}
		}
	}
	/* a queued write call that gave up (killed): its interval ends, no hold */
	if (call->write && !success && s->acq)
		close_sm(an, s, pl->ts_ns);
}

/*
 * lock:contention_begin with flags READ or WRITE alone is an rwsem sleep.
 * Inside an open mmap_lock call of the same task it is that call's wait
 * (nothing else can sleep between start_locking and acquire_returned: the
 * call is one down_*()); outside, some other rwsem's (i_mmap_rwsem,
 * anon_vma, a per-VMA lock on 6.4-6.14), only counted.
 */
static void on_contention_begin(struct analysis *an, struct task *t,
				const struct parsed_line *pl)
{
	const char *flags = pl_str(pl, PF_FLAGS);
	struct ival *iv, *call;
	struct mmslot *s;
	int write;

	if (!flags)
		return;
	if (!strcmp(flags, "READ"))
		write = 0;
	else if (!strcmp(flags, "WRITE"))
		write = 1;
	else
		return;		/* a spinlock, mutex, ...: not an rwsem sleep */
	if (!t->scall_set) {
		an->other_rwsem++;
		return;
	}
	s = mmslot_peek(an, t, t->scall_mm);
	if (!s || !s->wait)
		return;		/* its call was lost ([LOST], a broken sequence): not known */
	call = s->wait;
	if (t->cw) {
		anomaly(an, SLOT_MMAP_CWAIT, SA_BEGIN_NESTED);
		drop_cwait(an, t);
	}
	if (write != call->write)
		anomaly(an, SLOT_MMAP_CWAIT, SA_MODE_MISMATCH);
	iv = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);
	iv->mm = s->mm;
	iv->write = call->write;
	iv->lock_addr = pl_hex(pl, PF_LOCK_ADDR);
	iv->flags = IV_SW;
	/*
	 * The Type-B fault side: a retry call that sleeps, after the retry's
	 * mmap_read_trylock() failed.  The failed trylock tells a fault's retry
	 * from a system call of the same task that happens to take the lock
	 * for reading after a fault that did not retry.
	 */
	if ((call->flags & IV_RCALL) && !call->write && (call->call->flags & CALL_SF_TRYFAIL)) {
		iv->flags |= IV_R;
		iv->call = call_get(call->call);
	}
	t->cw = iv;
	list_append(an, L_OPEN_SW, iv);
	if (call->write) {
		/* a writer queues from here: readers arriving now queue behind it */
		struct ival *m = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);

		if (s->acq)
			drop_acq(an, s);
		m->mm = s->mm;
		m->write = 1;
		m->flags = IV_SM;
		m->call = call_new(pl->ts_ns);
		s->acq = m;
		list_append(an, L_OPEN_SM, m);
	}
}

/* lock:contention_end of the wait's lock ends it; other locks' ends are not ours. */
static void on_contention_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct ival *iv = t->cw;
	uint64_t ns;

	if (!iv || iv->lock_addr != pl_hex(pl, PF_LOCK_ADDR))
		return;
	t->cw = NULL;
	if (pl->ts_ns < iv->start) {
		anomaly(an, SLOT_MMAP_CWAIT, SA_END_BEFORE_START);
		ival_free(an, iv);
		return;
	}
	iv->end = pl->ts_ns;
	ns = iv->end - iv->start;
	an->cw_count[iv->write]++;
	an->cw_ns += ns;
	hist_add(&an->cwait, ns / 1000);
	wait_stat(an, t, WAIT_MMAP, ns);
	sweep_close(an, iv, L_CLOSED_SW, L_CLOSED_SM);
}

/*
 * A contended wait @w overlaps the write interval @m of another task on the
 * same mm: @w is attributed to @m for the overlap; when @w is a retried
 * fault's, the two are a Type-B pair.
 */
static void pair_s(struct analysis *an, struct ival *w, struct ival *m)
{
	uint64_t dur = overlap_ns(w, m);
	struct call *mc = m->call, *f;
	struct pair_rec p;

	w->flags |= IV_ATTR;
	mc->nw++;
	mc->w_ns += dur;
	if (mc->nwpids == mc->capwpids) {
		mc->capwpids = mc->capwpids ? mc->capwpids * 2 : 4;
		mc->wpids = xrealloc(mc->wpids, mc->capwpids * sizeof(*mc->wpids));
	}
	mc->wpids[mc->nwpids++] = w->task->pid;
	if (!(w->flags & IV_R))
		return;
	f = w->call;
	an->sb_count++;
	an->sb_ns += dur;
	memset(&p, 0, sizeof(p));
	p.holding = m->has_hold && m->hold_start <= w->start;
	if (p.holding)
		an->sb_holding++;
	else
		an->sb_queued++;
	if (!(f->flags & CALL_B_FAULT)) {
		f->flags |= CALL_B_FAULT;
		an->sb_faults++;
		/* from the retry's first call to the lock it got, once per fault */
		if (f->done_ts)
			an->sb_retry_ns += f->done_ts - f->ts;
		else
			f->flags |= CALL_B_PENDING;
	}
	if (!(m->flags & IV_B_WRITER)) {
		m->flags |= IV_B_WRITER;
		an->sb_writers++;
	}
	mc->b_pairs++;
	mc->b_ns += dur;
	/* Type-C: the fault task has the higher priority (prio from sched_switch) */
	if (w->prio < 0 || m->prio < 0)
		an->sc_prio_unknown++;
	else
		p.c = w->prio < m->prio;
	an->sc_from_b += p.c;
	p.type = 'B';
	p.dur_ns = dur;
	p.start_ns = w->start > m->start ? w->start : m->start;
	side_from(&p.blocked, w);
	side_from(&p.blocker, m);
	p.mm = w->mm;
	p.stock = 1;
	p.has_address = !!(f->flags & CALL_SF_ADDR);
	p.address = f->vm_start;
	stock_caller(p.caller, sizeof(p.caller), mc->stack);
	top_offer(an, &an->stop, &p);
}

struct swriter_key {
	int		pid;
	const char	*caller;
};

static int swriter_eq(const void *item, const void *key)
{
	const struct swriter *w = item;
	const struct swriter_key *k = key;

	return w->pid == k->pid && !strcmp(w->caller, k->caller);
}

static int scaller_eq(const void *item, const void *key)
{
	return !strcmp(((const struct scaller *)item)->caller, key);
}

struct waiter_pair {
	int	row, pid;
};

static int waiter_pair_eq(const void *item, const void *key)
{
	const struct waiter_pair *a = item, *b = key;

	return a->row == b->row && a->pid == b->pid;
}

/* A writer row by (pid, caller); NULL past MAX_SWRITERS rows. */
static struct swriter *swriter_get(struct analysis *an, int pid, const char *caller)
{
	struct swriter_key k = { pid, caller };
	uint64_t h = hash_str(hash_mix(an->seed, (uint64_t)(unsigned int)pid), caller);
	struct swriter *w = htab_find(&an->swriters, h, swriter_eq, &k);

	if (w || an->nr_swriters >= MAX_SWRITERS)
		return w;
	w = xcalloc(1, sizeof(*w));
	w->pid = pid;
	w->prio = -1;
	copy_str(w->caller, sizeof(w->caller), caller);
	w->idx = an->nr_swriters;
	htab_add(&an->swriters, h, w);
	an->swriter_v = xrealloc(an->swriter_v, (size_t)(an->nr_swriters + 1) * sizeof(*an->swriter_v));
	an->swriter_v[an->nr_swriters++] = w;
	return w;
}

/* A writer caller's row; past MAX_CALLERS of them the rest are "other". */
static struct scaller *scaller_get(struct analysis *an, const char *caller)
{
	uint64_t h = hash_str(an->seed, caller);
	struct scaller *c = htab_find(&an->scallers, h, scaller_eq, caller);

	if (c)
		return c;
	if (an->nr_scallers >= MAX_CALLERS) {
		caller = "other";
		h = hash_str(an->seed, caller);
		c = htab_find(&an->scallers, h, scaller_eq, caller);
		if (c)
			return c;
	}
	c = xcalloc(1, sizeof(*c));
	copy_str(c->caller, sizeof(c->caller), caller);
	htab_add(&an->scallers, h, c);
	an->scaller_v = xrealloc(an->scaller_v, (size_t)(an->nr_scallers + 1) * sizeof(*an->scaller_v));
	an->scaller_v[an->nr_scallers++] = c;
	return c;
}

/*
 * A stock write interval nothing can pair with any more: its hold, its
 * queueing and the waits attributed to it go to its writer's row (pid,
 * caller) and its caller's.
 */
static void swriter_fold(struct analysis *an, struct ival *m)
{
	struct call *c = m->call;
	char caller[CALLER_LEN];
	uint64_t hold = m->has_hold ? m->end - m->hold_start : 0;
	uint64_t queued = (m->has_hold ? m->hold_start : m->end) - m->start;
	struct swriter *w;
	struct scaller *sc;
	unsigned int i;

	stock_caller(caller, sizeof(caller), c->stack);
	sc = scaller_get(an, caller);
	sc->holds += m->has_hold;
	sc->waiters += c->nw;
	sc->waited_ns += c->w_ns;
	sc->b_pairs += c->b_pairs;
	sc->b_ns += c->b_ns;
	w = swriter_get(an, m->task->pid, caller);
	if (!w) {
		an->swriters_omitted++;
		return;
	}
	w->tgid = m->task->tgid;
	copy_str(w->comm, sizeof(w->comm), m->task->comm);
	if (m->prio >= 0)
		w->prio = m->prio;
	w->holds += m->has_hold;
	w->hold_ns += hold;
	if (hold > w->hold_max_ns)
		w->hold_max_ns = hold;
	w->queued_ns += queued;
	w->waiters += c->nw;
	w->waited_ns += c->w_ns;
	if (c->nw > w->max_queue)
		w->max_queue = c->nw;
	for (i = 0; i < c->nwpids; i++) {
		struct waiter_pair k = { w->idx, c->wpids[i] }, *wp;
		uint64_t h = hash_mix(hash_mix(an->seed, (uint64_t)(unsigned int)k.row),
				      (uint64_t)(unsigned int)k.pid);

		if (htab_find(&an->waiter_pairs, h, waiter_pair_eq, &k))
			continue;
		if (an->waiter_pairs.nr >= MAX_WAITER_PAIRS) {
			an->waiter_pairs_full = 1;	/* waiter_pids may then count short */
			continue;
		}
		wp = xmalloc(sizeof(*wp));
		*wp = k;
		htab_add(&an->waiter_pairs, h, wp);
		w->waiter_pids++;
	}
}

static void mmap_wait_start(struct analysis *an, struct task *t, const struct parsed_line *pl,
			    int stock)
{
	uint64_t mm = pl_hex(pl, PF_MM);
	struct mmslot *s = mmslot_get(an, t, mm, stock);
	int write = pl_bool(pl, PF_WRITE);
	struct ival *iv;

	if (s->wait) {
		anomaly(an, SLOT_MMAP_WAIT, SA_BEGIN_NESTED);
		ival_free(an, s->wait);
		s->wait = NULL;
		if (s->acq && !s->acq->has_hold)
			drop_acq(an, s);
		if (stock && t->cw && t->cw->mm == mm) {
			anomaly(an, SLOT_MMAP_CWAIT, SA_UNCLOSED);
			drop_cwait(an, t);
		}
	}
	t->absorb[SLOT_MMAP_WAIT] = 0;
	iv = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);
	iv->mm = mm;
	iv->write = write;
	s->wait = iv;
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_MMAP_WAIT);
	if (stock) {
		/* the task's open call: a contention_begin now is its sleep */
		t->scall_mm = mm;
		t->scall_set = 1;
		if (!write)
			stock_retry_call(an, t, iv);
		return;
	}
	if (write) {
		struct ival *m = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);

		if (s->acq)
			drop_acq(an, s);
		m->mm = mm;
		m->write = 1;
		m->flags = IV_ACQ;
		m->call = call_new(pl->ts_ns);
		copy_str(m->call->caller, sizeof(m->call->caller), pl_str(pl, PF_CALLER));
		s->acq = m;
		list_append(an, L_OPEN_M, m);
		set_stack_target(an, t, m->call, pl->cpu);
	} else if (t->gap && pl->ts_ns >= t->gap->ts) {
		/* a read wait inside a retry gap: the fault side of Type-B */
		iv->flags |= IV_R;
		iv->call = call_get(t->gap);
		list_append(an, L_OPEN_R, iv);
	}
}

static void mmap_hold_start(struct analysis *an, struct task *t, struct mmslot *s,
			    const struct parsed_line *pl, int write, int stock)
{
	struct ival *h;

	if (s->hold) {
		anomaly(an, SLOT_MMAP_HOLD, SA_BEGIN_NESTED);
		ival_free(an, s->hold);
	}
	t->absorb[SLOT_MMAP_HOLD] = 0;
	h = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);
	h->mm = s->mm;
	h->write = write;
	s->hold = h;
	if (stock) {
		if (write)
			stock_write_holds(an, t, s, pl);
		return;
	}
	if (!write)
		return;
	if (s->acq) {
		s->acq->has_hold = 1;
		s->acq->hold_start = pl->ts_ns;
		return;
	}
	s->acq = ival_new(an, t, pl->ts_ns, pl->cpu, t->prio);
	s->acq->mm = s->mm;
	s->acq->write = 1;
	s->acq->flags = IV_ACQ;
	s->acq->has_hold = 1;
	s->acq->hold_start = pl->ts_ns;
	s->acq->call = call_new(pl->ts_ns);
	list_append(an, L_OPEN_M, s->acq);
	set_stack_target(an, t, s->acq->call, pl->cpu);
}

static void close_acq(struct analysis *an, struct mmslot *s, uint64_t ts)
{
	struct ival *m = s->acq;

	s->acq = NULL;
	m->end = ts;
	close_m(an, m);
}

static void mmap_wait_end(struct analysis *an, struct task *t, const struct parsed_line *pl,
			  int stock)
{
	uint64_t mm = pl_hex(pl, PF_MM);
	struct mmslot *s = mmslot_get(an, t, mm, stock);
	int write = pl_bool(pl, PF_WRITE);
	int success = pl_bool(pl, PF_SUCCESS);
	struct ival *iv = s->wait;
	uint64_t ns;

	if (!iv) {
		/*
		 * A stock trylock emits acquire_returned alone: an acquisition,
		 * not a broken sequence.
		 */
		if (stock) {
			if (s->hold && s->hold->write && !write && success) {
				/* mmap_write_downgrade(): the write hold becomes a read hold */
				an->stock_downgrades++;
				mmap_hold_end(an, t, pl, stock);
			} else {
				an->stock_trylocks++;
			}
			if (success)
				mmap_hold_start(an, t, s, pl, write, stock);
			return;
		}
		end_without_begin(an, t, SLOT_MMAP_WAIT);
		return;
	}
	if (pl->ts_ns < iv->start) {
		anomaly(an, SLOT_MMAP_WAIT, SA_END_BEFORE_START);
		s->wait = NULL;
		if (iv->write && s->acq && !s->acq->has_hold)
			drop_acq(an, s);
		ival_free(an, iv);
		return;
	}
	if (iv->write != write)
		anomaly(an, SLOT_MMAP_WAIT, SA_MODE_MISMATCH);
	write = iv->write;
	s->wait = NULL;
	iv->end = pl->ts_ns;
	ns = iv->end - iv->start;
	if (stock) {
		hist_add(&an->stock_wait, ns / 1000);
		an->stock_wait_count[write]++;
	} else {
		hist_add(&an->mmap_wait, ns / 1000);
		an->wait_count[write]++;
		wait_stat(an, t, WAIT_MMAP, ns);
	}
	if (stock)
		stock_call_end(an, t, s, iv, pl, success);
	if (iv->flags & IV_R) {
		/* it counts only if the gap it started in is still open */
		if (t->gap == iv->call)
			close_r(an, iv);
		else
			ival_free(an, iv);
	} else {
		ival_free(an, iv);
	}
	if (!stock && write && s->acq && !success)
		close_acq(an, s, pl->ts_ns);
	/* our events report the hold with its own hold_start; the stock ones do not */
	if (stock && success)
		mmap_hold_start(an, t, s, pl, write, stock);
}

static void mmap_hold_end(struct analysis *an, struct task *t, const struct parsed_line *pl,
			  int stock)
{
	uint64_t mm = pl_hex(pl, PF_MM);
	struct mmslot *s = mmslot_get(an, t, mm, stock);
	/* a stock downgrade (acquire_returned write=false) ends the write hold */
	int write = pl_bool(pl, PF_WRITE) ||
		    (stock && !strcmp(pl->event, "mmap_lock_acquire_returned"));
	struct ival *h = s->hold;
	uint64_t us;

	if (!h) {
		end_without_begin(an, t, SLOT_MMAP_HOLD);
		return;
	}
	if (pl->ts_ns < h->start) {
		anomaly(an, SLOT_MMAP_HOLD, SA_END_BEFORE_START);
		s->hold = NULL;
		ival_free(an, h);
		if (s->acq)
			drop_acq(an, s);
		return;
	}
	if (h->write != write)
		anomaly(an, SLOT_MMAP_HOLD, SA_MODE_MISMATCH);
	write = h->write;
	s->hold = NULL;
	us = (pl->ts_ns - h->start) / 1000;
	if (stock) {
		hist_add(&an->stock_hold, us);
		if (write)
			hist_add(&an->stock_write_hold, us);
	} else {
		hist_add(&an->mmap_hold, us);
		if (write)
			hist_add(&an->mmap_write_hold, us);
	}
	ival_free(an, h);
	if (!stock && write && s->acq)
		close_acq(an, s, pl->ts_ns);
	else if (stock && write && s->acq)
		close_sm(an, s, pl->ts_ns);
}

/* @t is NULL: the line names two other tasks, not its own */
static void on_sched_switch(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	long long pp = pl_dec(pl, PF_PREV_PID, -1), np = pl_dec(pl, PF_NEXT_PID, -1);

	if (pp > 0 && pp <= INT_MAX) {
		t = task_get(an, (int)pp);
		t->sched_prio = (int)pl_dec(pl, PF_PREV_PRIO, -1);
		task_settle_idle(an, t);
	}
	if (np > 0 && np <= INT_MAX) {
		t = task_get(an, (int)np);
		t->sched_prio = (int)pl_dec(pl, PF_NEXT_PRIO, -1);
		task_settle_idle(an, t);
	}
}

/* ---- stack blocks ---------------------------------------------------------- */

static int is_tracing_frame(const char *f)
{
	return !strncmp(f, "trace_", 6) || !strncmp(f, "__traceiter_", 12) ||
	       !strncmp(f, "__mmap_lock_do_trace_", 21) || !strncmp(f, "perf_trace_", 11) ||
	       !strncmp(f, "__trace_", 8) || !strncmp(f, "trace_event_raw_event_", 22);
}

static void stack_flush(struct analysis *an)
{
	struct task *t = an->stack_task;

	if (!t)
		return;
	if (an->opts.stack_before) {
		free(t->pending_stack);
		t->pending_stack = an->stack_buf[0] ? xstrdup(an->stack_buf) : NULL;
		t->pending_cpu = an->stack_cpu;
	} else if (t->stack_target && t->stack_target_cpu == an->stack_cpu &&
		   t->stack_target_epoch == cpu_epoch(an, an->stack_cpu) &&
		   !t->stack_target->stack[0]) {
		/* not after a [LOST] on that CPU: the block may be another event's */
		copy_str(t->stack_target->stack, STACK_LEN, an->stack_buf);
	}
	an->stack_task = NULL;
	task_settle_idle(an, t);
}

static void stack_frame(struct analysis *an, const char *frame)
{
	char func[CALLER_LEN];
	size_t used, n;

	if (!an->stack_task || an->stack_frames >= 4)
		return;
	caller_func(func, sizeof(func), frame);
	if (is_tracing_frame(func))
		return;
	used = strlen(an->stack_buf);
	n = strlen(func);
	if (used + n + 2 >= STACK_LEN)
		return;
	if (used)
		an->stack_buf[used++] = ';';
	memcpy(an->stack_buf + used, func, n + 1);
	an->stack_frames++;
}

/* ---- dispatch -------------------------------------------------------------- */

/*
 * [LOST n EVENTS] on a CPU truncates every interval opened on it and still
 * open.  A marker only bumps that CPU's epoch (constant time whatever is
 * open); each open slot remembers the epoch it opened in, and a slot whose
 * CPU moved on is truncated when its task is next touched (settle_task(),
 * before anything else happens to it) or at the end: the same outcome as
 * walking every task at the marker, which cost O(tasks) per marker.
 */
struct cpu_epoch_ent {
	int		cpu;
	uint64_t	epoch;
};

static int epoch_eq(const void *item, const void *key)
{
	return ((const struct cpu_epoch_ent *)item)->cpu == *(const int *)key;
}

static uint64_t *epoch_slot(struct analysis *an, int cpu, int create)
{
	struct cpu_epoch_ent *e;
	uint64_t h;

	if (cpu >= 0 && cpu < (int)ARRAY_SIZE(an->epoch_small))
		return &an->epoch_small[cpu];
	h = hash_mix(an->seed, (uint64_t)(unsigned int)cpu);
	e = htab_find(&an->epochs, h, epoch_eq, &cpu);
	if (!e && create) {
		e = xcalloc(1, sizeof(*e));
		e->cpu = cpu;
		htab_add(&an->epochs, h, e);
	}
	return e ? &e->epoch : NULL;
}

static uint64_t cpu_epoch(struct analysis *an, int cpu)
{
	uint64_t *e = an->epochs_moved ? epoch_slot(an, cpu, 0) : NULL;

	return e ? *e : 0;
}

static void truncate_cpu(struct analysis *an, int cpu)
{
	++*epoch_slot(an, cpu, 1);
	an->epochs_moved = 1;
}

static int truncated(struct analysis *an, int cpu, uint64_t epoch)
{
	return cpu_epoch(an, cpu) != epoch;
}

static void settle_mmslot(struct analysis *an, struct task *t, struct mmslot *s)
{
	if (!an->epochs_moved)
		return;		/* every epoch is still 0: nothing can be truncated */
	if (s->wait && truncated(an, s->wait->cpu, s->wait->epoch)) {
		if (s->acq && s->acq->start == s->wait->start)
			drop_acq(an, s);
		ival_free(an, s->wait);
		s->wait = NULL;
		t->absorb[SLOT_MMAP_WAIT]++;
		an->an_truncated++;
	}
	if (s->stock && s->acq && !s->acq->has_hold &&
	    truncated(an, s->acq->cpu, s->acq->epoch))
		drop_acq(an, s);	/* a queued stock writer: its wait was truncated too */
	if (s->hold && truncated(an, s->hold->cpu, s->hold->epoch)) {
		ival_free(an, s->hold);
		s->hold = NULL;
		if (s->acq)
			drop_acq(an, s);
		t->absorb[SLOT_MMAP_HOLD]++;
		an->an_truncated++;
	}
}

static void settle_task(struct analysis *an, struct task *t)
{
	if (!an->epochs_moved)
		return;		/* every epoch is still 0: nothing can be truncated */
	if (t->stack_target && truncated(an, t->stack_target_cpu, t->stack_target_epoch))
		stack_target_put(t);	/* its block, if any, follows the loss */
	if (t->fw && truncated(an, t->fw->cpu, t->fw->epoch)) {
		drop_fault_wait(an, t);
		t->absorb[SLOT_FAULT_WAIT]++;
		an->an_truncated++;
	}
	if (t->fault && truncated(an, t->fault_cpu, t->fault_epoch)) {
		call_put(t->fault);
		t->fault = NULL;
		t->absorb[SLOT_FAULT]++;
		an->an_truncated++;
	}
	if (t->gap && truncated(an, t->gap_cpu, t->gap_epoch)) {
		call_put(t->gap);
		t->gap = NULL;
		an->an_truncated++;
	}
	if (t->vw && truncated(an, t->vw->cpu, t->vw->epoch)) {
		drop_vma_wait(an, t);
		t->absorb[SLOT_VMA_WAIT]++;
		an->an_truncated++;
	}
	if (t->vwrite && truncated(an, t->vwrite_cpu, t->vwrite_epoch)) {
		call_put(t->vwrite);
		t->vwrite = NULL;
		t->absorb[SLOT_VMA_WRITE]++;
		an->an_truncated++;
	}
	if (t->cw && truncated(an, t->cw->cpu, t->cw->epoch)) {
		drop_cwait(an, t);
		an->an_truncated++;
	}
	/* a fault whose events may be lost is no longer followed */
	if (t->sfault && truncated(an, t->sfault_cpu, t->sfault_epoch))
		sfault_end(t);
}

/* ---- the handlers the contract's event lists name ------------------------ */

static void on_read_fail(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	(void)t;
	count_reason(&an->read_fail, pl_str(pl, PF_REASON));
}

static void on_fallback(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	count_reason(&an->fallback, pl_str(pl, PF_REASON));
	/* a file fault that dropped its lock for I/O, now going to mmap_lock */
	if (t->gap)
		count_reason(&an->fallback_after_retry, pl_str(pl, PF_REASON));
}

/*
 * After an end of the mmap_lock events: a slot with nothing open goes, one
 * per (pid, mm) would add up.  (A start leaves its slot holding what it
 * opened.)
 */
static void mmslot_settle(struct analysis *an, struct task *t, const struct parsed_line *pl,
			  int stock)
{
	mmslot_release(an, t, pl_hex(pl, PF_MM), stock);
}

static void on_mmap_wait_start(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	an->custom_mmap_seen = 1;
	mmap_wait_start(an, t, pl, 0);
}

static void on_mmap_wait_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	an->custom_mmap_seen = 1;
	mmap_wait_end(an, t, pl, 0);
	mmslot_settle(an, t, pl, 0);
}

static void on_mmap_hold_start(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	an->custom_mmap_seen = 1;
	mmap_hold_start(an, t, mmslot_get(an, t, pl_hex(pl, PF_MM), 0), pl,
			pl_bool(pl, PF_WRITE), 0);
}

static void on_mmap_hold_end(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	an->custom_mmap_seen = 1;
	mmap_hold_end(an, t, pl, 0);
	mmslot_settle(an, t, pl, 0);
}

static void on_stock_start_locking(struct analysis *an, struct task *t,
				   const struct parsed_line *pl)
{
	mmap_wait_start(an, t, pl, 1);
}

static void on_stock_acquire_returned(struct analysis *an, struct task *t,
				      const struct parsed_line *pl)
{
	mmap_wait_end(an, t, pl, 1);
	mmslot_settle(an, t, pl, 1);
}

static void on_stock_released(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	mmap_hold_end(an, t, pl, 1);
	mmslot_settle(an, t, pl, 1);
}

static void on_page_fault_user(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	on_page_fault(an, t, pl, 1);
}

static void on_page_fault_kernel(struct analysis *an, struct task *t,
				 const struct parsed_line *pl)
{
	on_page_fault(an, t, pl, 0);
}

static void on_process_exit(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	(void)an;
	(void)pl;
	sfault_end(t);
}

typedef void (*event_handler)(struct analysis *an, struct task *t, const struct parsed_line *pl);

/* perf builtin-lock's handler table, expanded from the contract's lists. */
static const event_handler handlers[PARSE_EV_NR] = {
#define EVENT_HANDLER(id, sys, name, fam, handler) [MMLOCK_EV_##id] = on_##handler,
	MMLOCK_CUSTOM_EVENTS(EVENT_HANDLER)
	MMLOCK_STOCK_EVENTS(EVENT_HANDLER)
#undef EVENT_HANDLER
#define EXTRA_HANDLER(id, sys, name, filter, handler) \
	[PARSE_EV_X(EVSET_X_##id)] = on_##handler,
	EVSET_EXTRAS(EXTRA_HANDLER)
#undef EXTRA_HANDLER
};

void analysis_feed(struct analysis *an, const struct parsed_line *pl)
{
	struct task *t;
	long long v;
	int id;

	if (pl->kind == LINE_FRAME) {
		an->lines++;
		stack_frame(an, pl->frame);
		return;
	}
	stack_flush(an);
	switch (pl->kind) {
	case LINE_HEADER:
	case LINE_MALFORMED:
		return;
	case LINE_LOST:
		an->lines++;
		an->lost_markers = u64_add_sat(an->lost_markers, pl->lost);
		truncate_cpu(an, pl->cpu);
		return;
	case LINE_STACK:
		an->lines++;
		an->stack_traces++;
		an->stack_task = task_get(an, pl->pid);
		an->stack_cpu = pl->cpu;
		an->stack_buf[0] = '\0';
		an->stack_frames = 0;
		return;
	case LINE_FRAME:
	case LINE_EVENT:
		break;
	}
	an->lines++;
	an->events++;
	if (pl->ts_ns > an->now)
		an->now = pl->ts_ns;
	if (!an->first_ts_set) {
		an->first_ts = pl->ts_ns;
		an->first_ts_set = 1;
	}
	id = pl->id;
	if (id < 0 || id >= PARSE_EV_NR || !handlers[id]) {
		an->other_events++;
		return;
	}
	if (id < MMLOCK_EV_NR)
		an->ev_count[id]++;
	else
		an->x_count[id - MMLOCK_EV_NR]++;
	if (id == MMLOCK_EV_SCHED_SWITCH) {
		on_sched_switch(an, NULL, pl);
		return;
	}
	v = pl_dec(pl, PF_PID, pl->pid);
	t = task_get(an, (int)v);
	settle_task(an, t);
	if (t->seen && pl->ts_ns < t->last_ts)
		an->an_backwards++;
	t->seen = 1;
	t->last_ts = pl->ts_ns;
	if (pl->comm)
		copy_str(t->comm, sizeof(t->comm), pl->comm);
	v = pl_dec(pl, PF_TGID, pl->tgid);
	if (v >= 0)
		t->tgid = (int)v;
	t->prio = (int)pl_dec(pl, PF_PRIO, t->sched_prio);
	if (t->prio < -1 || t->prio > 1000)
		t->prio = -1;	/* a kernel prio is 0..139: not a number to compare */
	if (t->ps) {
		t->ps->tgid = t->tgid;
		copy_str(t->ps->comm, sizeof(t->ps->comm), t->comm);
	}
	stack_target_put(t);
	handlers[id](an, t, pl);
	task_settle_idle(an, t);
}

void analysis_malformed(struct analysis *an)
{
	an->malformed++;
}

unsigned long analysis_trace_lines(const struct analysis *an)
{
	return an->lines;
}

struct analysis *analysis_new(const struct analysis_opts *opts)
{
	struct analysis *an = xcalloc(1, sizeof(*an));

	an->opts = *opts;
	an->seed = hash_seed();
	an->lc = lifecycle_new();
	nr_analyses++;
	return an;
}

/* The items of @h, copied: the caller may change the table while walking them. */
static void **htab_items(const struct htab *h, size_t *n)
{
	void **v = xcalloc(h->nr + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < h->cap; i++)
		if (h->e[i].item)
			v[(*n)++] = h->e[i].item;
	return v;
}

void analysis_finish(struct analysis *an)
{
	struct task *t;
	void **items;
	size_t i, n;

	stack_flush(an);
	an->finishing = 1;	/* no task is forgotten while they are walked */
	items = htab_items(&an->tasks, &n);
	for (i = 0; i < n; i++) {
		t = items[i];
		settle_task(an, t);
		if (t->fw) {
			anomaly(an, SLOT_FAULT_WAIT, SA_UNCLOSED);
			drop_fault_wait(an, t);
		}
		if (t->fault) {
			anomaly(an, SLOT_FAULT, SA_UNCLOSED);
			call_put(t->fault);
			t->fault = NULL;
		}
		if (t->gap) {
			anomaly(an, SLOT_RETRY_GAP, SA_UNCLOSED);
			call_put(t->gap);
			t->gap = NULL;
		}
		if (t->vw) {
			anomaly(an, SLOT_VMA_WAIT, SA_UNCLOSED);
			drop_vma_wait(an, t);
		}
		if (t->vwrite) {
			anomaly(an, SLOT_VMA_WRITE, SA_UNCLOSED);
			call_put(t->vwrite);
			t->vwrite = NULL;
		}
		if (t->cw) {
			anomaly(an, SLOT_MMAP_CWAIT, SA_UNCLOSED);
			drop_cwait(an, t);
		}
		sfault_end(t);
	}
	free(items);
	items = htab_items(&an->mmslots, &n);
	for (i = 0, t = NULL; i < n; i++) {
		struct mmslot *s = items[i];

		if (!t || t->pid != s->pid)
			t = task_find(an, s->pid);
		if (t)
			settle_mmslot(an, t, s);
		if (s->wait) {
			anomaly(an, SLOT_MMAP_WAIT, SA_UNCLOSED);
			ival_free(an, s->wait);
			s->wait = NULL;
		}
		if (s->hold) {
			anomaly(an, SLOT_MMAP_HOLD, SA_UNCLOSED);
			ival_free(an, s->hold);
			s->hold = NULL;
		}
		if (s->acq)
			drop_acq(an, s);
	}
	free(items);
	/* nothing is open any more: the stock waits and writers left are final */
	while (an->lists[L_CLOSED_SM].head)
		ival_free(an, an->lists[L_CLOSED_SM].head);
	while (an->lists[L_CLOSED_SW].head)
		ival_free(an, an->lists[L_CLOSED_SW].head);
}

void analysis_free(struct analysis *an)
{
	void **items;
	size_t i, n;
	int l;

	if (!an)
		return;
	analysis_finish(an);
	for (l = 0; l < L_NR; l++)
		while (an->lists[l].head)
			ival_free(an, an->lists[l].head);
	htab_release(&an->mmslots);
	slab_release(&an->mmslot_slab);
	slab_release(&an->ival_slab);
	items = htab_items(&an->tasks, &n);
	for (i = 0; i < n; i++) {
		struct task *t = items[i];

		stack_target_put(t);
		call_put(t->sfault);
		free(t->pending_stack);
	}
	free(items);
	htab_release(&an->tasks);
	slab_release(&an->task_slab);
	items = htab_items(&an->pidstats, &n);
	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
	htab_release(&an->pidstats);
	items = htab_items(&an->epochs, &n);
	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
	htab_release(&an->epochs);
	htab_release(&an->buckets);	/* emptied with the lists */
	while (an->bucket_cache) {
		struct bucket *b = an->bucket_cache;

		an->bucket_cache = *(struct bucket **)b->v;
		free(b->v);
		free(b);
	}
	if (!--nr_analyses)
		slab_release(&call_slab);	/* every call of every analysis was put */
	htab_release(&an->caller_index);
	free(an->callers);
	for (l = 0; l < an->nr_swriters; l++)
		free(an->swriter_v[l]);
	free(an->swriter_v);
	htab_release(&an->swriters);
	for (l = 0; l < an->nr_scallers; l++)
		free(an->scaller_v[l]);
	free(an->scaller_v);
	htab_release(&an->scallers);
	items = htab_items(&an->waiter_pairs, &n);
	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
	htab_release(&an->waiter_pairs);
	hist_free(&an->cwait);
	hist_free(&an->retry_io);
	lifecycle_free(an->lc);
	free(an->top.v);
	free(an->stop.v);
	hist_free(&an->fault_wait);
	hist_free(&an->vma_wait);
	hist_free(&an->mmap_wait);
	hist_free(&an->mmap_hold);
	hist_free(&an->mmap_write_hold);
	hist_free(&an->stock_wait);
	hist_free(&an->stock_hold);
	hist_free(&an->stock_write_hold);
	free(an);
}
