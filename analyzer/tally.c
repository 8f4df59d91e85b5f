// SPDX-License-Identifier: GPL-2.0
/*
 * The summary's inputs that events and pairs add to: reason counts, the
 * writer callers (VMA writes, pairs, waits), the waits of each pid, and the
 * stock writers' rows by (pid, caller) and by caller.  Every table is
 * bounded (MAX_CALLERS, MAX_PIDSTATS, MAX_SWRITERS, MAX_WAITER_PAIRS).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"
#include "lifecycle.h"
#include "mmslot.h"
#include "tally.h"
#include "util.h"

/*
 * "mprotect_fixup+0x1c4/0x2f0 [mod]" -> "mprotect_fixup".  GCC's clones
 * ("proc_get_vma.isra.0", ".constprop.0", ".part.0", ".cold") are the same
 * source function: group them under its name.
 */
void tally_caller_func(char *dst, size_t size, const char *caller)
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
 * tracing frames already left out) that is not the rwsem itself, "" when
 * there is none (tally_stock_caller() tells an empty stack inline).
 */
void tally_stock_caller_frames(char *dst, size_t size, const char *stack)
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

void tally_reason(struct reason_counts *rc, const char *word)
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
static struct caller_stat *caller_lookup(struct analysis *an, const char *caller)
{
	char name[CALLER_LEN];
	struct caller_stat *cs;
	uint64_t h;

	tally_caller_func(name, sizeof(name), caller);
	if (an->tally.nr_callers >= MAX_CALLERS && !htab_find(&an->tally.caller_index,
							hash_str(an->seed, name), caller_eq, name))
		copy_str(name, sizeof(name), "other");
	h = hash_str(an->seed, name);
	cs = htab_find(&an->tally.caller_index, h, caller_eq, name);
	if (cs)
		return cs;
	if (an->tally.nr_callers == an->tally.cap_callers) {
		int i;

		an->tally.cap_callers = an->tally.cap_callers ? an->tally.cap_callers * 2 : 16;
		an->tally.callers = xrealloc(an->tally.callers,
					     an->tally.cap_callers * sizeof(*an->tally.callers));
		/* the array moved: index it again */
		htab_release(&an->tally.caller_index);
		for (i = 0; i < an->tally.nr_callers; i++)
			htab_add(&an->tally.caller_index,
				 hash_str(an->seed, an->tally.callers[i].name),
				 &an->tally.callers[i]);
	}
	cs = &an->tally.callers[an->tally.nr_callers++];
	memset(cs, 0, sizeof(*cs));
	copy_str(cs->name, CALLER_LEN, name);
	cs->syscall = writer_syscall(cs->name);
	htab_add(&an->tally.caller_index, h, cs);
	return cs;
}

/*
 * Writers come back with the same few caller texts: the last CALLER_RECENT
 * looked up are compared before the function name is cut out and hashed.
 * A text's entry stays the same: a name once in the table (or once counted
 * as "other") stays so.
 */
struct caller_stat *tally_caller(struct analysis *an, const char *caller)
{
	struct caller_stat *cs;
	unsigned int i;
	size_t n;

	for (i = 0; caller && i < CALLER_RECENT; i++)
		if (an->tally.caller_last[i] && !strcmp(caller, an->tally.caller_last_text[i]))
			return &an->tally.callers[an->tally.caller_last[i] - 1];
	cs = caller_lookup(an, caller);
	n = caller ? strlen(caller) : CALLER_LEN;
	if (n < CALLER_LEN) {
		i = an->tally.caller_next++ % CALLER_RECENT;
		memcpy(an->tally.caller_last_text[i], caller, n + 1);
		an->tally.caller_last[i] = (int)(cs - an->tally.callers) + 1;
	}
	return cs;
}

/*
 * The caller stats of a call's writer, found once per call: pairs and waits
 * ask again and again.  The index stays valid until the summary sorts the
 * array.
 */
struct caller_stat *tally_call_caller(struct analysis *an, struct call *c)
{
	struct caller_stat *cs;

	if (c && c->caller_idx)
		return &an->tally.callers[c->caller_idx - 1];
	cs = tally_caller(an, c ? c->caller : NULL);
	if (c)
		c->caller_idx = (int)(cs - an->tally.callers) + 1;
	return cs;
}

static int pidstat_eq(const void *item, const void *key)
{
	return ((const struct pidstat *)item)->pid == *(const int *)key;
}

/*
 * A wait of @t's, for waits_by_pid.  Kept apart from the task (which may be
 * forgotten while idle), for up to MAX_PIDSTATS pids; beyond, counted only.
 */
void tally_wait(struct analysis *an, struct task *t, enum wait_kind k, uint64_t ns)
{
	struct waitstat *w;

	if (!t->ps) {
		uint64_t h = hash_mix(an->seed, (uint64_t)t->pid);

		t->ps = htab_find(&an->tally.pidstats, h, pidstat_eq, &t->pid);
		if (!t->ps && an->tally.pidstats.nr >= MAX_PIDSTATS) {
			an->tally.pidstat_omitted++;
			return;
		}
		if (!t->ps) {
			t->ps = xcalloc(1, sizeof(*t->ps));
			t->ps->pid = t->pid;
			htab_add(&an->tally.pidstats, h, t->ps);
		}
		/*
		 * The summary names a pid by its task's latest tgid and comm:
		 * from here on analysis_feed() copies them when they change.
		 */
		t->ps->tgid = t->tgid;
		copy_str(t->ps->comm, sizeof(t->ps->comm), t->comm);
	}
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
 * The user address that stands for a writer caller in the per-caller
 * tables: its first writer's, replaced by the writer of its longest wait.
 */
void tally_caller_sample(struct caller_stat *cs, const struct task *t, uint64_t ts,
			 const char *user_pc, uint64_t wait_ns)
{
	if (!user_pc || !*user_pc || (cs->user_pc[0] && wait_ns <= cs->upc_wait_ns))
		return;
	copy_str(cs->user_pc, sizeof(cs->user_pc), user_pc);
	cs->upc_tgid = t->tgid;
	cs->upc_ts = ts;
	cs->upc_wait_ns = wait_ns;
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

/* swriter_get() past the rows found last: out of line, the fold stays small. */
static struct swriter * __attribute__((noinline))
swriter_get_slow(struct analysis *an, int pid, const char *caller)
{
	struct swriter **r = &an->tally.swriter_recent[(unsigned int)pid & (SWRITER_RECENT - 1)];
	struct swriter_key k = { pid, caller };
	struct swriter *w;
	uint64_t h;

	h = hash_str(hash_mix(an->seed, (uint64_t)(unsigned int)pid), caller);
	w = htab_find(&an->tally.swriters, h, swriter_eq, &k);
	if (w)
		*r = w;
	if (w || an->tally.nr_swriters >= MAX_SWRITERS)
		return w;
	w = xcalloc(1, sizeof(*w));
	w->pid = pid;
	w->prio = -1;
	copy_str(w->caller, sizeof(w->caller), caller);
	w->idx = an->tally.nr_swriters;
	htab_add(&an->tally.swriters, h, w);
	*r = w;
	an->tally.swriter_v = xrealloc(an->tally.swriter_v, (size_t)(an->tally.nr_swriters + 1) *
				       sizeof(*an->tally.swriter_v));
	an->tally.swriter_v[an->tally.nr_swriters++] = w;
	return w;
}

/* A writer row by (pid, caller); NULL past MAX_SWRITERS rows. */
static inline struct swriter *swriter_get(struct analysis *an, int pid, const char *caller)
{
	struct swriter *w = an->tally.swriter_recent[(unsigned int)pid & (SWRITER_RECENT - 1)];

	/* a write interval is folded per hold: the same few writers over and over */
	if (w && w->pid == pid && str_eq(w->caller, caller))
		return w;
	return swriter_get_slow(an, pid, caller);
}

/* scaller_get() of another caller than the last: out of line. */
static struct scaller * __attribute__((noinline))
scaller_get_slow(struct analysis *an, const char *caller)
{
	struct scaller *c;
	uint64_t h;

	h = hash_str(an->seed, caller);
	c = htab_find(&an->tally.scallers, h, scaller_eq, caller);
	if (c) {
		an->tally.scaller_last = c;
		return c;
	}
	if (an->tally.nr_scallers >= MAX_CALLERS) {
		caller = "other";
		h = hash_str(an->seed, caller);
		c = htab_find(&an->tally.scallers, h, scaller_eq, caller);
		if (c)
			return c;
	}
	c = xcalloc(1, sizeof(*c));
	copy_str(c->caller, sizeof(c->caller), caller);
	htab_add(&an->tally.scallers, h, c);
	an->tally.scaller_v = xrealloc(an->tally.scaller_v, (size_t)(an->tally.nr_scallers + 1) *
				       sizeof(*an->tally.scaller_v));
	an->tally.scaller_v[an->tally.nr_scallers++] = c;
	an->tally.scaller_last = c;
	return c;
}

/* A writer caller's row; past MAX_CALLERS of them the rest are "other". */
static inline struct scaller *scaller_get(struct analysis *an, const char *caller)
{
	struct scaller *c = an->tally.scaller_last;

	if (c && str_eq(c->caller, caller))
		return c;
	return scaller_get_slow(an, caller);
}

/*
 * What a stock write interval adds to its caller's row @sc and its
 * writer's row @w (NULL: past MAX_SWRITERS rows, counted only; else its
 * name already @t's, swriter_comm()): its hold,
 * its queueing and the waits attributed to it (in @c; NULL: none, and no
 * stack came).  Inline in its callers: with @c NULL (most holds) what it
 * would add is known to be 0.
 */
static inline __attribute__((always_inline)) void
swriter_add(struct analysis *an, struct scaller *sc, struct swriter *w, const struct task *t,
	    int prio, int has_hold, uint64_t start, uint64_t hold_start, uint64_t end,
	    const struct call *c)
{
	uint64_t hold = has_hold ? end - hold_start : 0;
	uint64_t queued = (has_hold ? hold_start : end) - start;
	uint64_t nw = c ? c->nw : 0, w_ns = c ? c->w_ns : 0;
	unsigned int i;

	sc->holds += has_hold;
	sc->waiters += nw;
	sc->waited_ns += w_ns;
	if (c) {
		sc->b_pairs += c->b_pairs;
		sc->b_ns += c->b_ns;
	}
	if (!w) {
		an->tally.swriters_omitted++;
		return;
	}
	w->tgid = t->tgid;
	if (prio >= 0)
		w->prio = prio;
	w->holds += has_hold;
	w->hold_ns += hold;
	if (hold > w->hold_max_ns)
		w->hold_max_ns = hold;
	w->queued_ns += queued;
	w->waiters += nw;
	w->waited_ns += w_ns;
	if (nw > w->max_queue)
		w->max_queue = nw;
	for (i = 0; c && i < c->nwpids; i++) {
		struct waiter_pair k = { w->idx, c->wpids[i] }, *wp;
		uint64_t h = hash_mix(hash_mix(an->seed, (uint64_t)(unsigned int)k.row),
				      (uint64_t)(unsigned int)k.pid);

		if (htab_find(&an->tally.waiter_pairs, h, waiter_pair_eq, &k))
			continue;
		if (an->tally.waiter_pairs.nr >= MAX_WAITER_PAIRS) {
			/* waiter_pids may then count short */
			an->tally.waiter_pairs_full = 1;
			continue;
		}
		wp = xmalloc(sizeof(*wp));
		*wp = k;
		htab_add(&an->tally.waiter_pairs, h, wp);
		w->waiter_pids++;
	}
}

/* The name of @w's writer is @t's (a writer's name seldom changes: the same copy is the same text). */
static inline void swriter_comm(struct swriter *w, const struct task *t)
{
	if (w && w->comm_gen != t->comm_gen) {
		copy_str(w->comm, sizeof(w->comm), t->comm);
		w->comm_gen = t->comm_gen;
	}
}

/*
 * A stock write interval nothing can pair with any more goes to its
 * writer's row (pid, caller) and its caller's, swriter_add().
 */
static inline __attribute__((always_inline)) void
swriter_fold(struct analysis *an, const struct task *t, int prio, int has_hold, uint64_t start,
	     uint64_t hold_start, uint64_t end, const struct call *c)
{
	char caller[CALLER_LEN];
	struct scaller *sc;
	struct swriter *w;

	if (c)
		tally_stock_caller(caller, sizeof(caller), c->stack);
	else
		caller[0] = '\0';
	sc = scaller_get(an, caller);
	w = swriter_get(an, t->pid, caller);
	swriter_comm(w, t);
	swriter_add(an, sc, w, t, prio, has_hold, start, hold_start, end, c);
}

void tally_swriter_fold(struct analysis *an, struct ival *m)
{
	swriter_fold(an, m->task, m->prio, m->has_hold, m->start, m->hold_start, m->end, m->call);
}

/* tally_swhold_end() past its common case: swriter_fold() of the swhold */
static void __attribute__((noinline)) swhold_end_slow(struct analysis *an, struct mmslot *s,
						      uint64_t end)
{
	const struct swhold *z = &s->swh;

	swriter_fold(an, z->task, z->prio, 1, z->start, z->hold_start, end, z->call);
	mmslot_swh_clear(an, s);
}

/*
 * Most stock write holds end here: no stack came (caller ""), their rows
 * are the ones found last, its writer's name unchanged.  Those are tested
 * first, with the fields read from the slot, no caller name made, and
 * nothing called.
 */
void tally_swhold_end(struct analysis *an, struct mmslot *s, uint64_t end)
{
	const struct swhold *z = &s->swh;
	const struct task *t = z->task;
	struct scaller *sc = an->tally.scaller_last;
	struct swriter *w = an->tally.swriter_recent[(unsigned int)t->pid & (SWRITER_RECENT - 1)];

	if (z->call || !sc || sc->caller[0] || !w || w->pid != t->pid || w->caller[0] ||
	    w->comm_gen != t->comm_gen) {
		swhold_end_slow(an, s, end);
		return;
	}
	swriter_add(an, sc, w, t, z->prio, 1, z->start, z->hold_start, end, NULL);
	mmslot_swh_clear(an, s);
}

/* The items of @h, freed with it. */
static void htab_free_items(struct htab *h)
{
	size_t i;

	for (i = 0; i < h->cap; i++)
		free(h->e[i].item);
	htab_release(h);
}

void tally_release(struct analysis *an)
{
	int i;

	htab_free_items(&an->tally.pidstats);
	htab_release(&an->tally.caller_index);
	free(an->tally.callers);
	for (i = 0; i < an->tally.nr_swriters; i++)
		free(an->tally.swriter_v[i]);
	free(an->tally.swriter_v);
	htab_release(&an->tally.swriters);
	for (i = 0; i < an->tally.nr_scallers; i++)
		free(an->tally.scaller_v[i]);
	free(an->tally.scaller_v);
	htab_release(&an->tally.scallers);
	htab_free_items(&an->tally.waiter_pairs);
}
