// SPDX-License-Identifier: GPL-2.0
/*
 * Type-A, Type-B and Type-C pairs.  Intervals that take part in a pair kind
 * are kept on sweep lists: open ones in start order, closed ones in end
 * order.  A pair is found once, by the side that closes second, against the
 * closed list of the other side; a closed interval is dropped as soon as no
 * open or future interval can still overlap it, so memory follows the open
 * intervals, not the trace length.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"
#include "ival.h"
#include "pair.h"
#include "tally.h"
#include "util.h"

static void list_append(struct analysis *an, int l, struct ival *iv)
{
	struct ilist *li = &an->sw.lists[l];

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
	li = &an->sw.lists[iv->list];
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

/*
 * Closed sweep intervals are indexed by what a pair needs equal: Type-A by
 * (mm, vma) when the event had the pointer and by (mm, vm_start, vm_end, ino,
 * dev) always (the fallback of same_vma()), Type-B by mm.  A closing interval
 * then looks only at the buckets it can pair with, from the first member that
 * ends after it starts (a binary search: members are in closing order), so
 * one interval that never ends does not make every later close scan what it
 * holds back (issue 13 M5).
 */
enum bucket_kind { BK_VMA, BK_RANGE_VMA, BK_RANGE_NOVMA, BK_MM, BK_NR };

/*
 * What a bucket's members share, the list and the kind aside.  The device
 * is its 24 bytes (struct call's dev: zero after its NUL, call_new()), so
 * equal texts are equal words: no strcmp() and no byte loop per close.
 */
struct bucket_key {
	uint64_t	mm, vma;
	unsigned long	vm_start, vm_end, ino;
	uint64_t	dev[3];
};

_Static_assert(sizeof(((struct call *)0)->dev) == sizeof(((struct bucket_key *)0)->dev),
	       "struct bucket_key: dev holds struct call's dev whole");

struct bucket {
	struct bucket_key key;
	int		list, kind;
	uint64_t	hash;
	struct ival	**v;
	size_t		head, n, cap;	/* members v[head..n), in closing order */
	struct bucket	*eprev, *enext;	/* on the emptied list while it has no member */
};

/* A closing interval's key of one kind, and its bucket_hash() once computed. */
struct close_key {
	struct bucket_key k;
	uint64_t	h;
	int		hashed;
};

static void bucket_key_of(struct close_key *ck, int kind, const struct ival *iv)
{
	struct bucket_key *k = &ck->k;

	ck->hashed = 0;
	k->mm = iv->mm;
	k->vma = kind == BK_VMA ? iv->vma : 0;
	if ((kind == BK_RANGE_VMA || kind == BK_RANGE_NOVMA) && iv->call) {
		k->vm_start = iv->call->vm_start;
		k->vm_end = iv->call->vm_end;
		k->ino = iv->call->ino;
		memcpy(k->dev, iv->call->dev, sizeof(k->dev));
	} else {
		k->vm_start = k->vm_end = k->ino = 0;
		k->dev[0] = k->dev[1] = k->dev[2] = 0;
	}
}

static int bucket_key_eq(const struct bucket_key *a, const struct bucket_key *b)
{
	return a->mm == b->mm && a->vma == b->vma && a->vm_start == b->vm_start &&
	       a->vm_end == b->vm_end && a->ino == b->ino && a->dev[0] == b->dev[0] &&
	       a->dev[1] == b->dev[1] && a->dev[2] == b->dev[2];
}

/*
 * The list and the kind are left out: a close looks its key up under the
 * other side's list and adds it under its own, and hashes it once for both
 * (at most four buckets share a hash; bucket_eq() tells them apart).
 */
static uint64_t bucket_hash(const struct analysis *an, const struct bucket_key *k)
{
	const uint64_t m = 0x9e3779b97f4a7c15ULL;
	uint64_t h = an->seed;

	/* one final mix: a key is hashed for every bucket looked up anew */
	h = (h ^ k->mm) * m;
	h = (h ^ k->vma) * m;
	h = (h ^ k->vm_start) * m;
	h = (h ^ k->vm_end) * m;
	h = (h ^ k->ino) * m;
	h = (h ^ k->dev[0]) * m;
	h = (h ^ k->dev[1]) * m;
	h = (h ^ k->dev[2]) * m;
	return hash_mix(h, 0);
}

/* htab_find()'s key: a close_key under one list and kind */
struct bucket_ref {
	int			list, kind;
	const struct bucket_key	*k;
};

static int bucket_eq(const void *item, const void *key)
{
	const struct bucket *b = item;
	const struct bucket_ref *r = key;

	return b->list == r->list && b->kind == r->kind && bucket_key_eq(&b->key, r->k);
}

/* bucket_find() past the bucket used last: the table */
static struct bucket *__attribute__((noinline))
bucket_find_slow(struct analysis *an, int list, int kind, struct close_key *ck)
{
	struct bucket_ref r = { list, kind, &ck->k };
	struct bucket *b;

	/* none of this list and kind (a side whose intervals all have a vma) */
	if (!an->sw.nr_buckets[list][kind])
		return NULL;
	if (!ck->hashed) {
		ck->h = bucket_hash(an, &ck->k);
		ck->hashed = 1;
	}
	b = htab_find(&an->sw.buckets, ck->h, bucket_eq, &r);
	if (b)
		an->sw.last[list][kind] = b;
	return b;
}

/*
 * The bucket of key (@list, @kind) @ck, or NULL.  The bucket used last for
 * each list and kind is tried first: the same VMA and mm come back close
 * after close, and then nothing is hashed.
 */
static inline struct bucket *bucket_find(struct analysis *an, int list, int kind,
					 struct close_key *ck)
{
	struct bucket *b = an->sw.last[list][kind];

	if (b && bucket_key_eq(&b->key, &ck->k))
		return b;
	return bucket_find_slow(an, list, kind, ck);
}

/* Emptied buckets kept in the table: keys come back (the same mm, vma and file). */
#define BUCKET_CACHE	256

static void emptied_unlink(struct analysis *an, struct bucket *b)
{
	if (b->eprev)
		b->eprev->enext = b->enext;
	else
		an->sw.empty_head = b->enext;
	if (b->enext)
		b->enext->eprev = b->eprev;
	else
		an->sw.empty_tail = b->eprev;
	b->eprev = b->enext = NULL;
	an->sw.nr_empty--;
}

/* Take the oldest emptied bucket out of the table, for its memory. */
static struct bucket *emptied_evict(struct analysis *an)
{
	struct bucket *b = an->sw.empty_head;

	emptied_unlink(an, b);
	htab_del(&an->sw.buckets, b->hash, b);
	an->sw.nr_buckets[b->list][b->kind]--;
	if (an->sw.last[b->list][b->kind] == b)
		an->sw.last[b->list][b->kind] = NULL;
	return b;
}

static void bucket_add(struct analysis *an, int list, int kind, struct close_key *ck,
		       struct ival *iv, int slot)
{
	struct bucket *b = bucket_find(an, list, kind, ck);

	if (!b) {
		if (an->sw.nr_empty >= BUCKET_CACHE) {
			/* its member array is kept: ready for as many members again */
			b = emptied_evict(an);
		} else {
			b = xcalloc(1, sizeof(*b));
		}
		b->head = b->n = 0;
		b->key = ck->k;
		b->list = list;
		b->kind = kind;
		if (!ck->hashed) {
			/* bucket_find() found none of its list and kind */
			ck->h = bucket_hash(an, &ck->k);
			ck->hashed = 1;
		}
		b->hash = ck->h;
		htab_add(&an->sw.buckets, b->hash, b);
		an->sw.nr_buckets[list][kind]++;
		an->sw.last[list][kind] = b;
	} else if (b->head == b->n) {
		/* emptied, still in the table: in use again */
		emptied_unlink(an, b);
		b->head = b->n = 0;
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

/*
 * Take @iv out of its buckets; it is their oldest member (pruning goes in
 * closing order).  A bucket it leaves empty stays in the table, on the
 * emptied list: the next interval of its key finds it there, with no
 * removal and insertion per close; past BUCKET_CACHE of them, the oldest
 * goes.
 */
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
			b->enext = NULL;
			b->eprev = an->sw.empty_tail;
			if (an->sw.empty_tail)
				an->sw.empty_tail->enext = b;
			else
				an->sw.empty_head = b;
			an->sw.empty_tail = b;
			if (++an->sw.nr_empty > BUCKET_CACHE) {
				struct bucket *old = emptied_evict(an);

				free(old->v);
				free(old);
			}
		}
	}
}

/* Closed intervals that end by then can overlap nothing open or future. */
static uint64_t prune_bound(const struct analysis *an, int open_other)
{
	const struct ival *o = an->sw.lists[open_other].head;

	return o && o->start < an->now ? o->start : an->now;
}

/* Drop the closed intervals of @closed that end by @bound (prune_bound()). */
static void prune(struct analysis *an, int closed, uint64_t bound)
{
	struct ilist *cl = &an->sw.lists[closed];

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

/* A pair's caller text on the known contention paths?  See pair_known_path(). */
static int caller_known_path(const char *caller, const char **operation)
{
	char func[CALLER_LEN];

	tally_caller_func(func, sizeof(func), caller[0] ? caller : NULL);
	if (operation)
		*operation = writer_syscall(func);
	return writer_known_path(func);
}

int pair_known_path(const struct pair_rec *p, const char **operation)
{
	return caller_known_path(p->caller, operation);
}

/* caller_known_path() of @caller, remembered for the next pair of the same text. */
static int pair_caller_known(struct analysis *an, const char *caller)
{
	size_t n;

	if (an->sw.known_set && !strcmp(caller, an->sw.known_text))
		return an->sw.known;
	an->sw.known = caller_known_path(caller, NULL);
	n = strlen(caller);
	an->sw.known_set = n < CALLER_LEN;
	if (an->sw.known_set)
		memcpy(an->sw.known_text, caller, n + 1);
	return an->sw.known;
}

/*
 * A pair is built in two steps: its head (type, Type-C, holding, duration)
 * always, the rest only when top_wanted() says it is kept or handed out:
 * most pairs are neither, and the sides' stacks are most of its bytes.
 */
static void pair_start(struct pair_rec *p, char type, uint64_t dur)
{
	memset(p, 0, offsetof(struct pair_rec, blocked));
	p->type = type;
	p->dur_ns = dur;
}

static void pair_fill(struct pair_rec *p)
{
	memset(&p->blocked, 0, sizeof(*p) - offsetof(struct pair_rec, blocked));
}

/*
 * Count a Type-C pair's inversion evidence (over every pair, not only the
 * kept), and say whether the pair is wanted in full: by the on_pair hook,
 * or by the heap of the top_n slowest.  @caller: the pair's caller text.
 */
static int top_wanted(struct analysis *an, struct top_heap *th, const struct pair_rec *p,
		      const char *caller)
{
	unsigned int n = an->opts.top_n;

	if (p->c) {
		int known = pair_caller_known(an, caller), slow = p->dur_ns > PAIR_SLOW_NS;

		th->ev.known += known;
		th->ev.over_1ms += slow;
		th->ev.both += known && slow;
	}
	return an->opts.on_pair || (n && (th->n < n || p->dur_ns > th->v[0].dur_ns));
}

/* Keep the top_n slowest pairs in a min-heap: each pair top_wanted() wants. */
static void top_offer(struct analysis *an, struct top_heap *th, const struct pair_rec *p)
{
	unsigned int i, n = an->opts.top_n;
	struct pair_rec *top;

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
		an->ct.c_prio_unknown++;
		return 0;
	}
	return blocked_prio < blocker_prio;
}

/*
 * What a Type-A and a Type-B pair share: the Type-C test (counted with the
 * kind's @c_from), the writer caller's tally, and, when top_wanted() keeps
 * the pair, its sides (@blocked waited on @blocker; @fault is the fault side,
 * whose user_pc its side shows; @writer the writer, whose call names the
 * caller) and the VMA (@vma, the range of @range).
 */
struct pair_sides {
	const struct ival	*blocked, *blocker, *fault, *writer;
	uint64_t		vma;
	const struct call	*range;
};

static void pair_ab(struct analysis *an, struct pair_rec *p, const struct pair_sides *ps,
		    uint64_t *c_from, uint64_t *cs_pairs, uint64_t *cs_ns)
{
	struct pair_side *fs;

	p->c = is_type_c(an, ps->blocked->prio, ps->blocker->prio);
	if (p->c) {
		an->ct.c_count++;
		an->ct.c_ns += p->dur_ns;
		(*c_from)++;
	}
	(*cs_pairs)++;
	*cs_ns += p->dur_ns;
	if (!top_wanted(an, &an->ct.top, p, ps->writer->call->caller))
		return;
	pair_fill(p);
	p->start_ns = ps->blocked->start > ps->blocker->start ? ps->blocked->start :
								   ps->blocker->start;
	side_from(&p->blocked, ps->blocked);
	side_from(&p->blocker, ps->blocker);
	fs = ps->fault == ps->blocked ? &p->blocked : &p->blocker;
	copy_str(fs->user_pc, sizeof(fs->user_pc), ps->fault->call->user_pc);
	p->mm = ps->writer->mm;
	p->vma = ps->vma;
	p->vm_start = ps->range->vm_start;
	p->vm_end = ps->range->vm_end;
	copy_str(p->caller, sizeof(p->caller), ps->writer->call->caller);
	top_offer(an, &an->ct.top, p);
}

/*
 * A Type-B pair's writer @m already held the lock when the fault side
 * began at @start, or was still queued: counted in *@holding or *@queued.
 */
static int pair_holding(const struct ival *m, uint64_t start, uint64_t *holding,
			uint64_t *queued)
{
	int held = m->has_hold && m->hold_start <= start;

	if (held)
		(*holding)++;
	else
		(*queued)++;
	return held;
}

static void pair_a(struct analysis *an, struct ival *fw, struct ival *vw)
{
	const struct pair_sides ps = { vw, fw, fw, vw, vw->vma, vw->call };
	uint64_t dur = overlap_ns(fw, vw);
	struct caller_stat *cs = tally_call_caller(an, vw->call);
	struct pair_rec p;

	an->ct.a_count++;
	an->ct.a_ns += dur;
	if (!(fw->call->flags & CALL_A_FAULT)) {
		fw->call->flags |= CALL_A_FAULT;
		an->ct.a_faults++;
	}
	if (!(vw->call->flags & CALL_A_WRITER)) {
		vw->call->flags |= CALL_A_WRITER;
		an->ct.a_writers++;
	}
	pair_start(&p, 'A', dur);
	pair_ab(an, &p, &ps, &an->ct.c_from_a, &cs->a_pairs, &cs->a_ns);
}

static void pair_b(struct analysis *an, struct ival *r, struct ival *m)
{
	const struct pair_sides ps = { r, m, r, m, r->call->vma, r->call };
	uint64_t dur = overlap_ns(r, m);
	struct caller_stat *cs = tally_call_caller(an, m->call);
	struct pair_rec p;

	an->ct.b_count++;
	an->ct.b_ns += dur;
	pair_start(&p, 'B', dur);
	p.holding = pair_holding(m, r->start, &an->ct.b_holding, &an->ct.b_queued);
	if (!(r->call->flags & CALL_B_FAULT)) {
		r->call->flags |= CALL_B_FAULT;
		an->ct.b_faults++;
		an->ct.b_retry_ns += r->end - r->call->ts;
	}
	if (!(m->flags & IV_B_WRITER)) {
		m->flags |= IV_B_WRITER;
		an->ct.b_writers++;
	}
	pair_ab(an, &p, &ps, &an->ct.c_from_b, &cs->b_pairs, &cs->b_ns);
}

/* A closing interval's keys, made once per close: BK_VMA, BK_RANGE_*, BK_MM. */
struct close_keys {
	int		done;
	struct close_key vma, range, mm;
};

static void close_keys_of(const struct ival *iv, int type_a, struct close_keys *ck)
{
	if (ck->done)
		return;
	ck->done = 1;
	if (type_a) {
		/* BK_RANGE_VMA and BK_RANGE_NOVMA: the same key */
		bucket_key_of(&ck->range, BK_RANGE_NOVMA, iv);
		if (iv->has_vma)
			bucket_key_of(&ck->vma, BK_VMA, iv);
	} else {
		bucket_key_of(&ck->mm, BK_MM, iv);
	}
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
 * A contended wait @w overlaps the write interval @m of another task on the
 * same mm: @w is attributed to @m for the overlap; when @w is a retried
 * fault's, the two are a Type-B pair.
 */
static void pair_s(struct analysis *an, struct ival *w, struct ival *m)
{
	uint64_t dur = overlap_ns(w, m);
	struct call *mc = m->call, *f;
	char caller[CALLER_LEN];
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
	an->ct.sb_count++;
	an->ct.sb_ns += dur;
	pair_start(&p, 'B', dur);
	p.holding = pair_holding(m, w->start, &an->ct.sb_holding, &an->ct.sb_queued);
	if (!(f->flags & CALL_B_FAULT)) {
		f->flags |= CALL_B_FAULT;
		an->ct.sb_faults++;
		/* from the retry's first call to the lock it got, once per fault */
		if (f->done_ts)
			an->ct.sb_retry_ns += f->done_ts - f->ts;
		else
			f->flags |= CALL_B_PENDING;
	}
	if (!(m->flags & IV_B_WRITER)) {
		m->flags |= IV_B_WRITER;
		an->ct.sb_writers++;
	}
	mc->b_pairs++;
	mc->b_ns += dur;
	/* Type-C: the fault task has the higher priority (prio from sched_switch) */
	if (w->prio < 0 || m->prio < 0)
		an->ct.sc_prio_unknown++;
	else
		p.c = w->prio < m->prio;
	an->ct.sc_from_b += p.c;
	tally_stock_caller(caller, sizeof(caller), mc->stack);
	if (!top_wanted(an, &an->ct.stop, &p, caller))
		return;
	pair_fill(&p);
	p.start_ns = w->start > m->start ? w->start : m->start;
	side_from(&p.blocked, w);
	side_from(&p.blocker, m);
	p.mm = w->mm;
	p.stock = 1;
	p.has_address = !!(f->flags & CALL_SF_ADDR);
	p.address = f->vm_start;
	copy_str(p.caller, sizeof(p.caller), caller);
	top_offer(an, &an->ct.stop, &p);
}

/*
 * What the summary keeps of an interval leaving closed list @l for good: a
 * stock write interval's tallies, a stock wait attributed to no writer.
 */
static void closed_leave(struct analysis *an, struct ival *iv, int l)
{
	if (l == L_CLOSED_SM)
		tally_swriter_fold(an, iv);
	else if (l == L_CLOSED_SW && !(iv->flags & IV_ATTR)) {
		an->ct.unattr++;
		an->ct.unattr_ns += iv->end - iv->start;
	}
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
static inline __attribute__((always_inline)) void
close_in(struct analysis *an, struct ival *iv, int closed, int other_closed)
{
	int first = closed == L_CLOSED_FW || closed == L_CLOSED_R || closed == L_CLOSED_SW;
	int type_a = closed == L_CLOSED_FW || closed == L_CLOSED_VW;
	int stock = closed == L_CLOSED_SW || closed == L_CLOSED_SM;
	struct bucket *cand[2] = { NULL, NULL };
	size_t pos[2] = { 0, 0 };
	struct close_keys ck;
	uint64_t bound;
	int c;

	ck.done = 0;
	list_remove(an, iv);
	if (an->opts.on_ival)
		an->opts.on_ival(an->opts.hook_ctx, iv, closed);
	/*
	 * What a closed interval of this side must outlast to be kept: the
	 * other side's open list and the time do not change during the close
	 * (a pair and a prune of this side touch neither).
	 */
	bound = prune_bound(an, other_closed - 1);
	/*
	 * Nothing closed on either side, and nothing open on the other that
	 * started before its end: it pairs with nothing now or later, and goes
	 * at once (what the general path below ends with, in a few steps).
	 */
	if (!an->sw.lists[other_closed].head && !an->sw.lists[closed].head && iv->end <= bound) {
		iv->seq = ++an->sw.seq;
		/* counted as if it left @closed, which it never joins */
		closed_leave(an, iv, closed);
		ival_free(an, iv);
		return;
	}
	/*
	 * Buckets hold only members of their closed list: when the other side
	 * has none (often: its interval is still open), there is nothing to
	 * look up.
	 */
	if (an->sw.lists[other_closed].head) {
		close_keys_of(iv, type_a, &ck);
		if (type_a) {
			/* same_vma(): the pointers when both have one, else the range */
			cand[0] = iv->has_vma ?
				  bucket_find(an, other_closed, BK_VMA, &ck.vma) :
				  bucket_find(an, other_closed, BK_RANGE_VMA, &ck.range);
			cand[1] = bucket_find(an, other_closed, BK_RANGE_NOVMA, &ck.range);
		} else {
			cand[0] = bucket_find(an, other_closed, BK_MM, &ck.mm);
		}
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
	iv->seq = ++an->sw.seq;
	prune(an, closed, bound);
	if (!an->sw.lists[closed].head && iv->end <= bound) {
		/*
		 * Alone on its list and ended by the bound, it would go at once
		 * (the prune after its joining): most do, when nothing of the
		 * other side is open, and they need no list and no bucket.
		 */
		closed_leave(an, iv, closed);
		ival_free(an, iv);
	} else {
		/*
		 * Kept: after the prune above, the head of @closed (iv, or an
		 * older one) ends after the bound, so none goes now.
		 */
		list_append(an, closed, iv);
		close_keys_of(iv, type_a, &ck);
		if (type_a) {
			if (iv->has_vma) {
				bucket_add(an, closed, BK_VMA, &ck.vma, iv, 0);
				bucket_add(an, closed, BK_RANGE_VMA, &ck.range, iv, 1);
			} else {
				bucket_add(an, closed, BK_RANGE_NOVMA, &ck.range, iv, 0);
			}
		} else {
			bucket_add(an, closed, BK_MM, &ck.mm, iv, 0);
		}
	}
	prune(an, other_closed, prune_bound(an, closed - 1));
}

void pair_close(struct analysis *an, struct ival *iv, int closed, int other_closed)
{
	/* a copy per side of the custom events: its kind and side are constants there */
	if (closed == L_CLOSED_FW && other_closed == L_CLOSED_VW)
		close_in(an, iv, L_CLOSED_FW, L_CLOSED_VW);
	else if (closed == L_CLOSED_VW && other_closed == L_CLOSED_FW)
		close_in(an, iv, L_CLOSED_VW, L_CLOSED_FW);
	else if (closed == L_CLOSED_R && other_closed == L_CLOSED_M)
		close_in(an, iv, L_CLOSED_R, L_CLOSED_M);
	else if (closed == L_CLOSED_M && other_closed == L_CLOSED_R)
		close_in(an, iv, L_CLOSED_M, L_CLOSED_R);
	else
		close_in(an, iv, closed, other_closed);
}

void pair_open(struct analysis *an, int list, struct ival *iv)
{
	list_append(an, list, iv);
}

void pair_forget(struct analysis *an, struct ival *iv)
{
	closed_leave(an, iv, iv->list);
	list_remove(an, iv);
	bucket_remove(an, iv);
}

void pair_release(struct analysis *an)
{
	/* the lists are empty: so is every bucket, each on the emptied list */
	while (an->sw.empty_head) {
		struct bucket *b = emptied_evict(an);

		free(b->v);
		free(b);
	}
	htab_release(&an->sw.buckets);
}
