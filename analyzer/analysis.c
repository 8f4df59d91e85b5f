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
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"
#include "lost.h"
#include "util.h"

const char *const slot_names[SLOT_NR] = {
	"fault", "fault_wait", "retry_gap", "vma_write", "vma_wait", "mmap_wait", "mmap_hold",
};

const char *const slot_anomaly_names[SA_NR] = {
	"end_without_begin", "begin_nested", "unclosed", "mode_mismatch", "end_before_start",
};

/* ---- small helpers ------------------------------------------------------ */

static struct call *call_new(uint64_t ts)
{
	struct call *c = xcalloc(1, sizeof(*c));

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
	if (c && !--c->refs)
		free(c);
}

static uint64_t get_hex(const struct parsed_line *pl, const char *key, int *found)
{
	const char *v = parsed_get(pl, key);

	if (found)
		*found = v != NULL;
	return v ? strtoull(v, NULL, 16) : 0;
}

static long long get_dec(const struct parsed_line *pl, const char *key, long long dflt)
{
	const char *v = parsed_get(pl, key);
	char *end;
	long long r;

	if (!v || !*v)
		return dflt;
	r = strtoll(v, &end, 10);
	return end == v ? dflt : r;
}

/* 0/1 of our events, false/true of the stock ones */
static int get_bool(const struct parsed_line *pl, const char *key)
{
	const char *v = parsed_get(pl, key);

	return v && (!strcmp(v, "1") || !strcmp(v, "true"));
}

/*
 * The index of a field's enumeration word; LOCK_UNKNOWN for the word
 * "unknown" (version 2 of the contract prints it for a path nobody annotated,
 * whether or not this build's word table lists it), -1 when absent or not a
 * word of the list.
 */
static int get_word(const struct parsed_line *pl, const char *key, const char *const *words)
{
	const char *v = parsed_get(pl, key);

	if (v && !strcmp(v, "unknown"))
		return LOCK_UNKNOWN;
	return v ? mmlock_word_index(words, v) : -1;
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

static struct caller_stat *caller_stat(struct analysis *an, const char *caller)
{
	char name[CALLER_LEN];
	int i;

	caller_func(name, sizeof(name), caller);
	for (i = 0; i < an->nr_callers; i++)
		if (!strcmp(an->callers[i].name, name))
			return &an->callers[i];
	if (an->nr_callers == an->cap_callers) {
		an->cap_callers = an->cap_callers ? an->cap_callers * 2 : 16;
		an->callers = xrealloc(an->callers, an->cap_callers * sizeof(*an->callers));
	}
	memset(&an->callers[an->nr_callers], 0, sizeof(an->callers[0]));
	copy_str(an->callers[an->nr_callers].name, CALLER_LEN, name);
	return &an->callers[an->nr_callers++];
}

/* ---- tasks ---------------------------------------------------------------- */

static struct task *task_get(struct analysis *an, int pid)
{
	size_t mask, i;

	if (an->nr_tasks * 2 >= an->tasks_cap) {
		struct task **old = an->tasks;
		size_t oldcap = an->tasks_cap, j;

		an->tasks_cap = oldcap ? oldcap * 2 : 256;
		an->tasks = xcalloc(an->tasks_cap, sizeof(*an->tasks));
		for (j = 0; j < oldcap; j++) {
			if (!old[j])
				continue;
			i = (size_t)old[j]->pid * 2654435761u & (an->tasks_cap - 1);
			while (an->tasks[i])
				i = (i + 1) & (an->tasks_cap - 1);
			an->tasks[i] = old[j];
		}
		free(old);
	}
	mask = an->tasks_cap - 1;
	for (i = (size_t)pid * 2654435761u & mask; an->tasks[i]; i = (i + 1) & mask)
		if (an->tasks[i]->pid == pid)
			return an->tasks[i];
	an->tasks[i] = xcalloc(1, sizeof(struct task));
	an->tasks[i]->pid = pid;
	an->tasks[i]->tgid = -1;
	an->tasks[i]->prio = -1;
	an->tasks[i]->sched_prio = -1;
	an->nr_tasks++;
	return an->tasks[i];
}

static struct mmslot *mmslot_get(struct task *t, uint64_t mm, int stock)
{
	struct mmslot **arr = stock ? &t->stock_mms : &t->mms;
	int *nr = stock ? &t->nr_stock_mms : &t->nr_mms;
	int i;

	for (i = 0; i < *nr; i++)
		if ((*arr)[i].mm == mm)
			return &(*arr)[i];
	*arr = xrealloc(*arr, (size_t)(*nr + 1) * sizeof(**arr));
	memset(&(*arr)[*nr], 0, sizeof(**arr));
	(*arr)[*nr].mm = mm;
	return &(*arr)[(*nr)++];
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

static struct ival *ival_new(struct task *t, uint64_t ts, int cpu, int prio)
{
	struct ival *iv = xcalloc(1, sizeof(*iv));

	iv->start = ts;
	iv->task = t;
	iv->cpu = cpu;
	iv->prio = prio;
	iv->list = -1;
	return iv;
}

static void ival_free(struct analysis *an, struct ival *iv)
{
	if (!iv)
		return;
	list_remove(an, iv);
	call_put(iv->call);
	free(iv);
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

/* Keep the top_n slowest pairs in a min-heap. */
static void top_offer(struct analysis *an, const struct pair_rec *p)
{
	unsigned int i, n = an->opts.top_n;

	if (!n)
		return;
	if (!an->top)
		an->top = xcalloc(n, sizeof(*an->top));
	if (an->nr_top < n) {
		i = an->nr_top++;
		an->top[i] = *p;
		while (i && an->top[(i - 1) / 2].dur_ns > an->top[i].dur_ns) {
			heap_swap(&an->top[(i - 1) / 2], &an->top[i]);
			i = (i - 1) / 2;
		}
		return;
	}
	if (p->dur_ns <= an->top[0].dur_ns)
		return;
	an->top[0] = *p;
	for (i = 0;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && an->top[l].dur_ns < an->top[m].dur_ns)
			m = l;
		if (r < n && an->top[r].dur_ns < an->top[m].dur_ns)
			m = r;
		if (m == i)
			break;
		heap_swap(&an->top[m], &an->top[i]);
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
	struct caller_stat *cs = caller_stat(an, vw->call ? vw->call->caller : NULL);
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
	p.mm = vw->mm;
	p.vma = vw->vma;
	p.vm_start = vw->call->vm_start;
	p.vm_end = vw->call->vm_end;
	copy_str(p.caller, sizeof(p.caller), vw->call->caller);
	top_offer(an, &p);
}

static void pair_b(struct analysis *an, struct ival *r, struct ival *m)
{
	uint64_t dur = overlap_ns(r, m);
	struct caller_stat *cs = caller_stat(an, m->call->caller);
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
	p.mm = r->mm;
	p.vma = r->call->vma;
	p.vm_start = r->call->vm_start;
	p.vm_end = r->call->vm_end;
	copy_str(p.caller, sizeof(p.caller), m->call->caller);
	top_offer(an, &p);
}

/*
 * An interval of a sweep closed: pair it with the closed intervals of the
 * other side, keep it for the other side's later closes, and drop what
 * nothing can overlap any more.  Type-A sides are FW (first) and VW, Type-B
 * sides R (first) and M; each list's open twin is the one before it.
 */
static void sweep_close(struct analysis *an, struct ival *iv, int closed, int other_closed)
{
	int first = closed == L_CLOSED_FW || closed == L_CLOSED_R;
	int type_a = closed == L_CLOSED_FW || closed == L_CLOSED_VW;
	struct ival *o;

	list_remove(an, iv);
	for (o = an->lists[other_closed].head; o; o = o->next) {
		struct ival *x = first ? iv : o, *y = first ? o : iv;

		if (!overlaps(x, y) || x->task == y->task)
			continue;
		if (type_a && same_vma(x, y))
			pair_a(an, x, y);
		else if (!type_a && x->mm == y->mm)
			pair_b(an, x, y);
	}
	list_append(an, closed, iv);
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

static void wait_stat(struct task *t, enum wait_kind k, uint64_t ns)
{
	struct waitstat *w = &t->ws[k];

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
	if (an->opts.stack_before && c && t->pending_stack[0] && t->pending_cpu == cpu &&
	    !c->stack[0]) {
		copy_str(c->stack, sizeof(c->stack), t->pending_stack);
		t->pending_stack[0] = '\0';
	}
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
	c = call_new(pl->ts_ns);
	c->mm = get_hex(pl, "mm", NULL);
	c->vma = get_hex(pl, "vma", NULL);
	c->vm_start = get_hex(pl, "vm_start", NULL);
	c->vm_end = get_hex(pl, "vm_end", NULL);
	c->ino = (unsigned long)get_dec(pl, "ino", 0);
	copy_str(c->dev, sizeof(c->dev), parsed_get(pl, "dev"));
	t->fault = c;
	t->fault_cpu = pl->cpu;
	set_stack_target(an, t, c, pl->cpu);
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_FAULT);
	lifecycle_fault(an->lc, c->mm, get_hex(pl, "address", NULL), pl->ts_ns);
}

static void on_fault_wait_start(struct analysis *an, struct task *t,
				const struct parsed_line *pl)
{
	struct ival *iv = ival_new(t, pl->ts_ns, pl->cpu, t->prio);
	int found;

	if (t->fw) {
		anomaly(an, SLOT_FAULT_WAIT, SA_BEGIN_NESTED);
		drop_fault_wait(an, t);
	}
	t->absorb[SLOT_FAULT_WAIT] = 0;
	iv->mm = get_hex(pl, "mm", NULL);
	iv->vma = get_hex(pl, "vma", &found);
	iv->has_vma = found;
	iv->lock = get_word(pl, "lock", mmlock_words_fault_lock);
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
	wait_stat(t, WAIT_FAULT, ns);
	if (iv->list == L_OPEN_FW)
		close_fw(an, iv);
	else
		ival_free(an, iv);
}

static void on_fault_retry(struct analysis *an, struct task *t, const struct parsed_line *pl)
{
	struct call *g;

	count_reason(&an->retry_reasons, parsed_get(pl, "reason"));
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_RETRY);
	if (!t->fault)
		an->an_retry_outside++;
	if (t->gap) {
		anomaly(an, SLOT_RETRY_GAP, SA_BEGIN_NESTED);
		call_put(t->gap);
	}
	g = call_new(pl->ts_ns);
	g->mm = get_hex(pl, "mm", NULL);
	if (t->fault) {
		g->vma = t->fault->vma;
		g->vm_start = t->fault->vm_start;
		g->vm_end = t->fault->vm_end;
	} else {
		g->vma = get_hex(pl, "vma", NULL);
	}
	t->gap = g;
	t->gap_cpu = pl->cpu;
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
	if (get_bool(pl, "major"))
		an->major_count++;
	call_put(t->fault);
	t->fault = NULL;
}

static void on_vma_write_begin(struct analysis *an, struct task *t,
			       const struct parsed_line *pl)
{
	const char *caller = parsed_get(pl, "caller");
	struct caller_stat *cs = caller_stat(an, caller);
	struct call *c;

	cs->count++;
	count_reason(&an->by_syscall, writer_syscall(cs->name));
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_VMA_WRITE);
	if (get_dec(pl, "ino", 0))
		an->file_backed++;
	if (get_bool(pl, "anon"))
		an->anonymous++;
	if (t->vwrite) {
		anomaly(an, SLOT_VMA_WRITE, SA_BEGIN_NESTED);
		call_put(t->vwrite);
	}
	t->absorb[SLOT_VMA_WRITE] = t->absorb[SLOT_VMA_WAIT] = 0;
	c = call_new(pl->ts_ns);
	c->mm = get_hex(pl, "mm", NULL);
	c->vma = get_hex(pl, "vma", NULL);
	c->vm_start = get_hex(pl, "vm_start", NULL);
	c->vm_end = get_hex(pl, "vm_end", NULL);
	c->ino = (unsigned long)get_dec(pl, "ino", 0);
	copy_str(c->dev, sizeof(c->dev), parsed_get(pl, "dev"));
	copy_str(c->caller, sizeof(c->caller), caller);
	t->vwrite = c;
	t->vwrite_cpu = pl->cpu;
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
	struct ival *iv = ival_new(t, pl->ts_ns, pl->cpu, t->prio);
	int found;

	if (t->vw) {
		anomaly(an, SLOT_VMA_WAIT, SA_BEGIN_NESTED);
		drop_vma_wait(an, t);
	}
	t->absorb[SLOT_VMA_WAIT] = 0;
	iv->mm = get_hex(pl, "mm", NULL);
	iv->vma = get_hex(pl, "vma", &found);
	iv->has_vma = found;
	if (t->vwrite) {
		iv->call = call_get(t->vwrite);
	} else {
		iv->call = call_new(pl->ts_ns);
		iv->call->mm = iv->mm;
		iv->call->vma = iv->vma;
		iv->call->vm_start = get_hex(pl, "vm_start", NULL);
		iv->call->vm_end = get_hex(pl, "vm_end", NULL);
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
	wait_stat(t, WAIT_VMA, ns);
	cs = caller_stat(an, iv->call->caller);
	cs->waits++;
	cs->wait_sum_ns += ns;
	if (ns > cs->wait_max_ns)
		cs->wait_max_ns = ns;
	close_vw(an, iv);
}

static void on_vma_write_done(struct analysis *an, struct task *t)
{
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

static void mmap_wait_start(struct analysis *an, struct task *t, const struct parsed_line *pl,
			    int stock)
{
	uint64_t mm = get_hex(pl, "mm", NULL);
	struct mmslot *s = mmslot_get(t, mm, stock);
	int write = get_bool(pl, "write");
	struct ival *iv;

	if (s->wait) {
		anomaly(an, SLOT_MMAP_WAIT, SA_BEGIN_NESTED);
		ival_free(an, s->wait);
		s->wait = NULL;
		if (!stock && s->acq && !s->acq->has_hold)
			drop_acq(an, s);
	}
	t->absorb[SLOT_MMAP_WAIT] = 0;
	iv = ival_new(t, pl->ts_ns, pl->cpu, t->prio);
	iv->mm = mm;
	iv->write = write;
	s->wait = iv;
	lifecycle_event(an->lc, t->tgid, pl->ts_ns, LC_MMAP_WAIT);
	if (stock)
		return;
	if (write) {
		struct ival *m = ival_new(t, pl->ts_ns, pl->cpu, t->prio);

		if (s->acq)
			drop_acq(an, s);
		m->mm = mm;
		m->write = 1;
		m->flags = IV_ACQ;
		m->call = call_new(pl->ts_ns);
		copy_str(m->call->caller, sizeof(m->call->caller), parsed_get(pl, "caller"));
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
	h = ival_new(t, pl->ts_ns, pl->cpu, t->prio);
	h->mm = s->mm;
	h->write = write;
	s->hold = h;
	if (stock || !write)
		return;
	if (s->acq) {
		s->acq->has_hold = 1;
		s->acq->hold_start = pl->ts_ns;
		return;
	}
	s->acq = ival_new(t, pl->ts_ns, pl->cpu, t->prio);
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
	uint64_t mm = get_hex(pl, "mm", NULL);
	struct mmslot *s = mmslot_get(t, mm, stock);
	int write = get_bool(pl, "write");
	int success = get_bool(pl, "success");
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
		if (!stock && iv->write && s->acq && !s->acq->has_hold)
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
		wait_stat(t, WAIT_MMAP, ns);
	}
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
	uint64_t mm = get_hex(pl, "mm", NULL);
	struct mmslot *s = mmslot_get(t, mm, stock);
	/* a stock downgrade (acquire_returned write=false) ends the write hold */
	int write = get_bool(pl, "write") ||
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
		if (!stock && s->acq)
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
}

static void on_sched_switch(struct analysis *an, const struct parsed_line *pl)
{
	long long pp = get_dec(pl, "prev_pid", -1), np = get_dec(pl, "next_pid", -1);

	if (pp > 0)
		task_get(an, (int)pp)->sched_prio = (int)get_dec(pl, "prev_prio", -1);
	if (np > 0)
		task_get(an, (int)np)->sched_prio = (int)get_dec(pl, "next_prio", -1);
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
		copy_str(t->pending_stack, sizeof(t->pending_stack), an->stack_buf);
		t->pending_cpu = an->stack_cpu;
	} else if (t->stack_target && t->stack_target_cpu == an->stack_cpu &&
		   !t->stack_target->stack[0]) {
		copy_str(t->stack_target->stack, STACK_LEN, an->stack_buf);
	}
	an->stack_task = NULL;
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

static void truncate_cpu(struct analysis *an, int cpu)
{
	size_t i;
	int j;

	for (i = 0; i < an->tasks_cap; i++) {
		struct task *t = an->tasks[i];

		if (!t)
			continue;
		if (t->stack_target && t->stack_target_cpu == cpu)
			stack_target_put(t);	/* its block, if any, follows the loss */
		if (t->fw && t->fw->cpu == cpu) {
			drop_fault_wait(an, t);
			t->absorb[SLOT_FAULT_WAIT]++;
			an->an_truncated++;
		}
		if (t->fault && t->fault_cpu == cpu) {
			call_put(t->fault);
			t->fault = NULL;
			t->absorb[SLOT_FAULT]++;
			an->an_truncated++;
		}
		if (t->gap && t->gap_cpu == cpu) {
			call_put(t->gap);
			t->gap = NULL;
			an->an_truncated++;
		}
		if (t->vw && t->vw->cpu == cpu) {
			drop_vma_wait(an, t);
			t->absorb[SLOT_VMA_WAIT]++;
			an->an_truncated++;
		}
		if (t->vwrite && t->vwrite_cpu == cpu) {
			call_put(t->vwrite);
			t->vwrite = NULL;
			t->absorb[SLOT_VMA_WRITE]++;
			an->an_truncated++;
		}
		for (j = 0; j < t->nr_mms + t->nr_stock_mms; j++) {
			struct mmslot *s = j < t->nr_mms ? &t->mms[j] : &t->stock_mms[j - t->nr_mms];

			if (s->wait && s->wait->cpu == cpu) {
				if (s->acq && s->acq->start == s->wait->start)
					drop_acq(an, s);
				ival_free(an, s->wait);
				s->wait = NULL;
				t->absorb[SLOT_MMAP_WAIT]++;
				an->an_truncated++;
			}
			if (s->hold && s->hold->cpu == cpu) {
				ival_free(an, s->hold);
				s->hold = NULL;
				if (s->acq)
					drop_acq(an, s);
				t->absorb[SLOT_MMAP_HOLD]++;
				an->an_truncated++;
			}
		}
	}
}

/* Most lines name one of a few events: remember the last lookups. */
static const struct mmlock_event *event_by_name(struct analysis *an, const char *name)
{
	const struct mmlock_event *ev;
	int i;

	for (i = 0; i < an->nr_names; i++)
		if (!strcmp(an->names[i], name))
			return an->name_events[i];
	ev = mmlock_event_find(name);
	if (ev && an->nr_names < (int)ARRAY_SIZE(an->names)) {
		an->names[an->nr_names] = ev->name;
		an->name_events[an->nr_names++] = ev;
	}
	return ev;
}

void analysis_feed(struct analysis *an, const struct parsed_line *pl)
{
	const struct mmlock_event *ev;
	struct task *t;
	long long v;

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
	ev = event_by_name(an, pl->event);
	if (!ev) {
		an->other_events++;
		return;
	}
	an->ev_count[ev->id]++;
	if (ev->id == MMLOCK_EV_SCHED_SWITCH) {
		on_sched_switch(an, pl);
		return;
	}
	v = get_dec(pl, "pid", pl->pid);
	t = task_get(an, (int)v);
	if (t->seen && pl->ts_ns < t->last_ts)
		an->an_backwards++;
	t->seen = 1;
	t->last_ts = pl->ts_ns;
	if (pl->comm)
		copy_str(t->comm, sizeof(t->comm), pl->comm);
	v = get_dec(pl, "tgid", pl->tgid);
	if (v >= 0)
		t->tgid = (int)v;
	t->prio = (int)get_dec(pl, "prio", t->sched_prio);
	stack_target_put(t);

	switch (ev->id) {
	case MMLOCK_EV_FILEMAP_FAULT_BEGIN:
		on_fault_begin(an, t, pl);
		break;
	case MMLOCK_EV_FILEMAP_FAULT_WAIT_START:
		on_fault_wait_start(an, t, pl);
		break;
	case MMLOCK_EV_FILEMAP_FAULT_WAIT_END:
		on_fault_wait_end(an, t, pl);
		break;
	case MMLOCK_EV_FILEMAP_FAULT_RETRY:
		on_fault_retry(an, t, pl);
		break;
	case MMLOCK_EV_FILEMAP_FAULT_END:
		on_fault_end(an, t, pl);
		break;
	case MMLOCK_EV_VMA_START_WRITE_BEGIN:
		on_vma_write_begin(an, t, pl);
		break;
	case MMLOCK_EV_VMA_START_WRITE_WAIT_START:
		on_vma_wait_start(an, t, pl);
		break;
	case MMLOCK_EV_VMA_START_WRITE_WAIT_END:
		on_vma_wait_end(an, t, pl);
		break;
	case MMLOCK_EV_VMA_START_WRITE_DONE:
		on_vma_write_done(an, t);
		break;
	case MMLOCK_EV_VMA_START_READ_FAIL:
		count_reason(&an->read_fail, parsed_get(pl, "reason"));
		break;
	case MMLOCK_EV_FAULT_MMAP_LOCK_FALLBACK:
		count_reason(&an->fallback, parsed_get(pl, "reason"));
		/* a file fault that dropped its lock for I/O, now going to mmap_lock */
		if (t->gap)
			count_reason(&an->fallback_after_retry, parsed_get(pl, "reason"));
		break;
	case MMLOCK_EV_MMAP_LOCK_WAIT_START:
		an->custom_mmap_seen = 1;
		mmap_wait_start(an, t, pl, 0);
		break;
	case MMLOCK_EV_MMAP_LOCK_WAIT_END:
		an->custom_mmap_seen = 1;
		mmap_wait_end(an, t, pl, 0);
		break;
	case MMLOCK_EV_MMAP_LOCK_HOLD_START:
		an->custom_mmap_seen = 1;
		mmap_hold_start(an, t, mmslot_get(t, get_hex(pl, "mm", NULL), 0), pl,
				get_bool(pl, "write"), 0);
		break;
	case MMLOCK_EV_MMAP_LOCK_HOLD_END:
		an->custom_mmap_seen = 1;
		mmap_hold_end(an, t, pl, 0);
		break;
	case MMLOCK_EV_MMAP_LOCK_START_LOCKING:
		mmap_wait_start(an, t, pl, 1);
		break;
	case MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED:
		mmap_wait_end(an, t, pl, 1);
		break;
	case MMLOCK_EV_MMAP_LOCK_RELEASED:
		mmap_hold_end(an, t, pl, 1);
		break;
	case MMLOCK_EV_MM_FILEMAP_FAULT:
		break;
	default:
		break;
	}
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
	an->lc = lifecycle_new();
	return an;
}

void analysis_finish(struct analysis *an)
{
	size_t i;
	int j;

	stack_flush(an);
	for (i = 0; i < an->tasks_cap; i++) {
		struct task *t = an->tasks[i];

		if (!t)
			continue;
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
		for (j = 0; j < t->nr_mms + t->nr_stock_mms; j++) {
			struct mmslot *s = j < t->nr_mms ? &t->mms[j] : &t->stock_mms[j - t->nr_mms];

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
	}
}

void analysis_free(struct analysis *an)
{
	size_t i;
	int l;

	if (!an)
		return;
	analysis_finish(an);
	for (l = 0; l < L_NR; l++)
		while (an->lists[l].head)
			ival_free(an, an->lists[l].head);
	for (i = 0; i < an->tasks_cap; i++) {
		if (!an->tasks[i])
			continue;
		stack_target_put(an->tasks[i]);
		free(an->tasks[i]->mms);
		free(an->tasks[i]->stock_mms);
		free(an->tasks[i]);
	}
	free(an->tasks);
	free(an->callers);
	lifecycle_free(an->lc);
	free(an->top);
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
