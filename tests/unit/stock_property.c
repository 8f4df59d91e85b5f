// SPDX-License-Identifier: GPL-2.0
/*
 * Property test for the analyzer's stock-event mode: random well-formed
 * stock traces against a brute-force reference.
 *
 * For each seed a generator writes what a kernel without our events prints
 * (mmap_lock start_locking / acquire_returned / released, lock:contention_*,
 * exceptions:page_fault_user/kernel, filemap:mm_filemap_fault,
 * sched_switch, sched_process_exit, the stack block after a write
 * acquisition, or none, as without the stacktrace option): 2..6 tasks on one or two mm's doing write calls (contended
 * or not, given up, downgraded), read calls, page faults that retry (a
 * failed trylock and a contended blocking call, or a trylock that succeeds)
 * or not, rwsem contention outside any call, spinlock noise, with equal
 * timestamps on purpose.  From its own lists of contended waits and write
 * intervals the test computes, with O(n^2) loops and the definitions of
 * analyzer/README.md "Stock-event mode", the contended counts, the
 * attribution of each wait to the writers it overlaps (per writer row and
 * caller), the unattributed waits, the retried faults and the Type-B pairs,
 * runs `mmlock analyze` and compares: the sweep the analyzer does in
 * O(n log n) must find exactly what the nested loops find.
 *
 * Environment: MMLOCK (the binary; "skip" when unset), PROPERTY_SEEDS
 * (default 1000), PROPERTY_SEED0 (default 1), TMPDIR.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "property.h"

#define BASE_US		100000000ULL	/* 100.000000 s */
#define NO_HOLD		UINT64_MAX

/* the writers' callers; a writer that gave up while queued has no stack: "" (null) */
static const char *const callers[] = { "do_mprotect_pkey", "vm_mmap_pgoff", "__vm_munmap", "" };
#define NR_CALLERS	3
#define NO_CALLER	3

struct task {
	int		pid, tgid, prio, cpu, mm;
	uint64_t	t;		/* µs after BASE_US */
	int		fault;		/* its open page fault (index), -1 */
};

struct line {
	uint64_t	ts;
	char		*text;
};

/* ground truth */
struct cwait { int pid, mm, write, fault, prio; uint64_t s, e; };	/* fault: Type-B side, -1 */
struct wint { int pid, mm, caller, prio; uint64_t s, hold_s, e; };	/* a write interval */
struct sfault { int reached, retried, tryfail; uint64_t mark, retry_s, done; };

static VEC(struct line, lines);
static VEC(char *, merged);
static VEC(struct cwait, cwaits);
static VEC(struct wint, wints);
static VEC(struct sfault, faults);
static int nr_other_rwsem;

static const char *mm_ptr(int mm)
{
	return mm ? "00000000aaaa0002" : "00000000aaaa0001";
}

static const char *lock_ptr(int mm)
{
	return mm ? "00000000c0c00002" : "00000000c0c00001";
}

static void emit(struct task *t, const char *event, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(struct task *t, const char *event, const char *fmt, ...)
{
	char payload[512], *text;
	struct line l;
	uint64_t ts = BASE_US + t->t;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(payload, sizeof(payload), fmt, ap);
	va_end(ap);
	if (asprintf(&text, "%16s-%-7d (%7d) [%03d] ..... %6" PRIu64 ".%06" PRIu64 ": %s: %s\n",
		     "task", t->pid, t->tgid, t->cpu, ts / 1000000, ts % 1000000, event,
		     payload) < 0)
		abort();
	l.ts = t->t;
	l.text = text;
	PUSH(lines, l);
}

static void step(struct task *t, int max)
{
	if (!chance(30))
		t->t += (uint64_t)rr(1, max);
}

static void start_locking(struct task *t, int write)
{
	emit(t, "mmap_lock_start_locking", "mm=%s memcg_id=8054 write=%s", mm_ptr(t->mm),
	     write ? "true" : "false");
}

static void acquire_returned(struct task *t, int write, int success)
{
	emit(t, "mmap_lock_acquire_returned", "mm=%s memcg_id=8054 write=%s success=%s",
	     mm_ptr(t->mm), write ? "true" : "false", success ? "true" : "false");
}

static void released(struct task *t, int write)
{
	emit(t, "mmap_lock_released", "mm=%s memcg_id=8054 write=%s", mm_ptr(t->mm),
	     write ? "true" : "false");
}

/* The stack block of a write hold, glued to its event: it comes right after it. */
static void stack_block(int caller)
{
	struct line *l = &lines.v[lines.n - 1];
	/* the block's header names the same task, CPU and time as its event */
	const char *hdr = strchr(l->text, '['), *colon = strstr(hdr, ": ");
	char *text;

	if (asprintf(&text, "%s%.*s%.*s: <stack trace>\n"
		     " => trace_event_raw_event_mmap_lock_acquire_returned\n"
		     " => __mmap_lock_do_trace_acquire_returned\n => %s+0x1c/0x90\n"
		     " => do_syscall_64\n", l->text, (int)(hdr - l->text), l->text,
		     (int)(colon - hdr), hdr, callers[caller]) < 0)
		abort();
	free(l->text);
	l->text = text;
}

/* A contended sleep of the task's open call on its mm's mmap_lock. */
static void contended(struct task *t, int write, int fault)
{
	struct cwait w = { t->pid, t->mm, write, fault, t->prio, 0, 0 };

	emit(t, "contention_begin", "%s (flags=%s)", lock_ptr(t->mm), write ? "WRITE" : "READ");
	w.s = t->t;
	if (chance(15)) {	/* a spinlock inside the slow path: noise */
		step(t, 5);
		emit(t, "contention_begin", "00000000e0e0e0e0 (flags=SPIN)");
		emit(t, "contention_end", "00000000e0e0e0e0 (ret=0)");
	}
	if (chance(12))
		t->t += (uint64_t)rr(200, 900);
	else
		step(t, 120);
	emit(t, "contention_end", "%s (ret=0)", lock_ptr(t->mm));
	w.e = t->t;
	PUSH(cwaits, w);
}

static void write_call(struct task *t)
{
	struct wint m = { t->pid, t->mm, rr(0, NR_CALLERS - 1), t->prio, 0, NO_HOLD, 0 };
	int cont = chance(50), downgrade;

	start_locking(t, 1);
	step(t, 10);
	if (cont) {
		m.s = t->t;	/* queued from its contention_begin */
		contended(t, 1, -1);
		step(t, 5);
		if (chance(10)) {	/* killed while queued: no hold, no stack */
			acquire_returned(t, 1, 0);
			m.caller = NO_CALLER;
			m.e = t->t;
			PUSH(wints, m);
			return;
		}
	}
	acquire_returned(t, 1, 1);
	if (!cont)
		m.s = t->t;
	m.hold_s = t->t;
	/*
	 * Without the stacktrace option no stack block comes: the hold's
	 * caller is "" (the analyzer then keeps an uncontended hold in its
	 * slot, without a call, until its release).
	 */
	if (chance(25))
		m.caller = NO_CALLER;
	else
		stack_block(m.caller);
	step(t, 150);
	downgrade = chance(20);
	if (downgrade)
		acquire_returned(t, 0, 1);	/* mmap_write_downgrade() */
	else
		released(t, 1);
	m.e = t->t;
	PUSH(wints, m);
	if (downgrade) {
		step(t, 60);
		released(t, 0);
	}
}

/* A blocking read call; @fault: the retried fault it belongs to with a failed trylock, -1. */
static void read_call(struct task *t, int fault, int contend)
{
	start_locking(t, 0);
	step(t, 10);
	if (contend)
		contended(t, 0, fault);
	step(t, 5);
	acquire_returned(t, 0, 1);
	if (fault >= 0 && !faults.v[fault].done)
		faults.v[fault].done = t->t;
	step(t, 80);
	released(t, 0);
}

/*
 * A read call of the task outside a fault's retry in the generator's mind;
 * the analyzer's rule (a read call after the fault reached filemap_fault())
 * still counts the fault as retried: the reference applies the same rule.
 */
static void note_read_call(struct task *t)
{
	struct sfault *f = t->fault >= 0 ? &faults.v[t->fault] : NULL;

	if (f && f->reached && !f->retried) {
		f->retried = 1;
		f->retry_s = t->t;
	}
}

static void page_fault(struct task *t)
{
	struct sfault f = { 0, 0, 0, 0, 0, 0 };
	int idx;

	emit(t, "page_fault_user", "address=0x7f0000001000 ip=0x555500001000 error_code=0x4");
	PUSH(faults, f);
	idx = (int)faults.n - 1;
	t->fault = idx;
	step(t, 10);
	if (!chance(70))
		return;		/* anonymous memory, say: not filemap_fault() */
	emit(t, "mm_filemap_fault", "dev=254:0 ino=c ofs=%d", rr(0, 9) * 4096);
	faults.v[idx].reached = 1;
	faults.v[idx].mark = t->t;
	if (!chance(60))
		return;		/* no retry */
	step(t, 200);		/* the I/O, lock dropped */
	faults.v[idx].retried = 1;
	faults.v[idx].retry_s = t->t;
	start_locking(t, 0);	/* the retry's mmap_read_trylock() */
	step(t, 5);
	if (chance(40)) {
		acquire_returned(t, 0, 1);
		faults.v[idx].done = t->t;
		step(t, 40);
		released(t, 0);
		return;
	}
	acquire_returned(t, 0, 0);
	faults.v[idx].tryfail = 1;
	step(t, 5);
	read_call(t, idx, chance(70));
}

static void reset_world(void)
{
	for (size_t i = 0; i < lines.n; i++)
		free(lines.v[i].text);
	lines.n = merged.n = cwaits.n = wints.n = faults.n = 0;
	nr_other_rwsem = 0;
}

static int generate(uint64_t seed, const char *path)
{
	int nr_tasks, nr_mms;
	struct task tasks[8];
	size_t first[9], next[8];
	FILE *f;

	rng_state = seed * 0x2545f4914f6cdd1dULL + 7;
	reset_world();
	nr_tasks = rr(2, 6);
	nr_mms = rr(1, 2);
	for (int i = 0; i < nr_tasks; i++) {
		struct task *t = &tasks[i];

		t->pid = 1000 + i;
		t->mm = rr(0, nr_mms - 1);
		t->tgid = t->mm ? 2000 : 1000;
		t->prio = chance(15) ? rr(0, 99) : rr(100, 139);
		t->cpu = i % 4;
		t->t = (uint64_t)rr(0, 50);
		t->fault = -1;
	}
	for (int i = 0; i < nr_tasks; i++) {
		struct task *t = &tasks[i];
		int acts = seed % 10 ? rr(2, 10) : rr(10, 40);

		first[i] = lines.n;
		/* its priority, as the stock events carry none */
		emit(t, "sched_switch", "prev_comm=task prev_pid=%d prev_prio=%d prev_state=R ==> "
		     "next_comm=swapper/0 next_pid=0 next_prio=120", t->pid, t->prio);
		if (!i) {
			/*
			 * Every stock event once, so that a capture without
			 * trace.status reads as having recorded them (one
			 * without any cannot tell "none" from "not recorded").
			 */
			emit(t, "contention_begin", "00000000d0d0d0d0 (flags=READ)");
			emit(t, "contention_end", "00000000d0d0d0d0 (ret=0)");
			nr_other_rwsem++;
			emit(t, "page_fault_user", "address=0x7f0000001000 ip=0x555500001000 "
			     "error_code=0x4");
			emit(t, "mm_filemap_fault", "dev=254:0 ino=c ofs=0");
			emit(t, "page_fault_kernel", "address=0x7f0000002000 "
			     "ip=copy_user_generic+0x2/0x40 error_code=0x0");
		}
		while (acts--) {
			int r = rr(0, 99);

			if (r < 30) {
				write_call(t);
			} else if (r < 50) {
				/*
				 * A read call inside a fault that retried with a failed
				 * trylock belongs to that retry (the analyzer cannot
				 * tell a later system call from it).
				 */
				int fi = t->fault >= 0 && faults.v[t->fault].tryfail ? t->fault : -1;

				note_read_call(t);
				read_call(t, fi, chance(50));
			} else if (r < 90) {
				page_fault(t);
			} else if (r < 95) {
				emit(t, "contention_begin", "00000000d0d0d0d0 (flags=READ)");
				step(t, 20);
				emit(t, "contention_end", "00000000d0d0d0d0 (ret=0)");
				nr_other_rwsem++;
			} else {
				emit(t, "page_fault_kernel", "address=0x7f0000002000 "
				     "ip=copy_user_generic+0x2/0x40 error_code=0x0");
				t->fault = -1;
			}
			t->t += (uint64_t)rr(0, 60);
		}
		if (chance(20)) {
			emit(t, "sched_process_exit", "comm=task pid=%d prio=%d group_dead=true",
			     t->pid, t->prio);
			t->fault = -1;
		}
	}
	first[nr_tasks] = lines.n;
	for (int i = 0; i < nr_tasks; i++)
		next[i] = first[i];
	for (;;) {
		int cand[8], nc = 0;
		uint64_t min = UINT64_MAX;

		for (int i = 0; i < nr_tasks; i++) {
			if (next[i] == first[i + 1])
				continue;
			if (lines.v[next[i]].ts < min) {
				min = lines.v[next[i]].ts;
				nc = 0;
			}
			if (lines.v[next[i]].ts == min)
				cand[nc++] = i;
		}
		if (!nc)
			break;
		nc = cand[rr(0, nc - 1)];
		PUSH(merged, lines.v[next[nc]++].text);
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# mmlock stock-mode property test, seed %" PRIu64 "\n", seed);
	for (size_t i = 0; i < merged.n; i++)
		fputs(merged.v[i], f);
	return fclose(f);
}

/* ---- the brute-force reference ---- */
struct row {
	int		pid, caller, prio;
	int64_t		holds, hold_ns, hold_max, queued, waiters, waited, max_queue, pids;
};

struct truth {
	int64_t		count, read, write, sum, unattr, unattr_sum, retried;
	int64_t		b_count, b_sum, b_faults, b_writers, b_holding, b_queued, b_retry, c_from_b;
	VEC(struct row, rows);
	int64_t		caller_waited[NR_CALLERS + 1], caller_holds[NR_CALLERS + 1];
	int64_t		caller_waiters[NR_CALLERS + 1];
};

static int overlaps(uint64_t as, uint64_t ae, uint64_t bs, uint64_t be)
{
	return as < be && bs < ae;
}

static int64_t olen(uint64_t as, uint64_t ae, uint64_t bs, uint64_t be)
{
	return (int64_t)((ae < be ? ae : be) - (as > bs ? as : bs));
}

/* analyzer/README.md: waited_us_sum desc, write_holds desc, pid, caller */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->waited != y->waited)
		return x->waited < y->waited ? 1 : -1;
	if (x->holds != y->holds)
		return x->holds < y->holds ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(callers[x->caller], callers[y->caller]);
}

static void compute(struct truth *tr)
{
	size_t i, j;
	int *fpaired = calloc(faults.n + 1, sizeof(int));
	int *mpaired = calloc(wints.n + 1, sizeof(int));

	if (!fpaired || !mpaired)
		abort();
	tr->rows.n = 0;
	memset(tr, 0, offsetof(struct truth, rows));
	memset(tr->caller_waited, 0, sizeof(tr->caller_waited));
	memset(tr->caller_holds, 0, sizeof(tr->caller_holds));
	memset(tr->caller_waiters, 0, sizeof(tr->caller_waiters));
	for (i = 0; i < faults.n; i++)
		tr->retried += faults.v[i].retried;
	for (i = 0; i < cwaits.n; i++) {
		const struct cwait *w = &cwaits.v[i];
		int attributed = 0;

		tr->count++;
		tr->read += !w->write;
		tr->write += w->write;
		tr->sum += (int64_t)(w->e - w->s) * 1000;
		for (j = 0; j < wints.n; j++) {
			const struct wint *m = &wints.v[j];

			if (m->pid == w->pid || m->mm != w->mm || !overlaps(w->s, w->e, m->s, m->e))
				continue;
			attributed = 1;
			if (w->fault < 0)
				continue;
			tr->b_count++;
			tr->b_sum += olen(w->s, w->e, m->s, m->e) * 1000;
			if (m->hold_s != NO_HOLD && m->hold_s <= w->s)
				tr->b_holding++;
			else
				tr->b_queued++;
			if (!fpaired[w->fault]++) {
				tr->b_faults++;
				tr->b_retry += (int64_t)(faults.v[w->fault].done -
							 faults.v[w->fault].retry_s) * 1000;
			}
			if (!mpaired[j]++)
				tr->b_writers++;
			tr->c_from_b += w->prio < m->prio;
		}
		if (!attributed) {
			tr->unattr++;
			tr->unattr_sum += (int64_t)(w->e - w->s) * 1000;
		}
	}
	/* writer rows: (pid, caller) */
	for (j = 0; j < wints.n; j++) {
		const struct wint *m = &wints.v[j];
		struct row *r = NULL;
		int64_t nw = 0;

		for (i = 0; i < tr->rows.n; i++)
			if (tr->rows.v[i].pid == m->pid && tr->rows.v[i].caller == m->caller)
				r = &tr->rows.v[i];
		if (!r) {
			struct row nr = { m->pid, m->caller, m->prio, 0, 0, 0, 0, 0, 0, 0, 0 };

			PUSH(tr->rows, nr);
			r = &tr->rows.v[tr->rows.n - 1];
		}
		if (m->hold_s != NO_HOLD) {
			r->holds++;
			r->hold_ns += (int64_t)(m->e - m->hold_s) * 1000;
			if ((int64_t)(m->e - m->hold_s) * 1000 > r->hold_max)
				r->hold_max = (int64_t)(m->e - m->hold_s) * 1000;
			r->queued += (int64_t)(m->hold_s - m->s) * 1000;
			tr->caller_holds[m->caller]++;
		} else {
			r->queued += (int64_t)(m->e - m->s) * 1000;	/* queued, then gave up */
		}
		for (i = 0; i < cwaits.n; i++) {
			const struct cwait *w = &cwaits.v[i];

			if (m->pid == w->pid || m->mm != w->mm || !overlaps(w->s, w->e, m->s, m->e))
				continue;
			nw++;
			r->waited += olen(w->s, w->e, m->s, m->e) * 1000;
		}
		r->waiters += nw;
		if (nw > r->max_queue)
			r->max_queue = nw;
		tr->caller_waiters[m->caller] += nw;
	}
	/* distinct waiter pids of a row, over all its intervals */
	for (i = 0; i < tr->rows.n; i++) {
		struct row *r = &tr->rows.v[i];
		int seen[16] = { 0 };

		for (j = 0; j < wints.n; j++) {
			const struct wint *m = &wints.v[j];

			if (m->pid != r->pid || m->caller != r->caller)
				continue;
			for (size_t k = 0; k < cwaits.n; k++) {
				const struct cwait *w = &cwaits.v[k];

				if (m->pid != w->pid && m->mm == w->mm &&
				    overlaps(w->s, w->e, m->s, m->e) && !seen[w->pid - 1000]++)
					r->pids++;
			}
		}
		tr->caller_waited[r->caller] += r->waited;
	}
	/* the summary lists a writer with a hold or a waiter */
	for (i = j = 0; i < tr->rows.n; i++)
		if (tr->rows.v[i].holds || tr->rows.v[i].waiters)
			tr->rows.v[j++] = tr->rows.v[i];
	tr->rows.n = j;
	qsort(tr->rows.v, tr->rows.n, sizeof(*tr->rows.v), row_cmp);
	free(fpaired);
	free(mpaired);
}

/* ---- comparing ---- */
enum family { F_EXIT, F_CONTENDED, F_ATTR, F_WRITERS, F_CALLERS, F_RETRY, F_B, F_ANOM, F_NR };

static const char *const family_name[F_NR] = {
	[F_EXIT] = "analyze exits 0 and writes JSON on well-formed stock traces",
	[F_CONTENDED] = "mmap_lock.contended: count, read, write, wait_us_sum; other_rwsem_contentions",
	[F_ATTR] = "unattributed_waits, unattributed_us_sum",
	[F_WRITERS] = "mmap_lock.writers: the top rows, every field",
	[F_CALLERS] = "mmap_lock.by_writer_caller: holds, waiters, waited_us_sum per caller",
	[F_RETRY] = "filemap_fault.retry_count (retried faults)",
	[F_B] = "type_b_count, duration_sum, faults, writers, holding, queued, retry_to_mmap_lock_sum, type_c_from_b",
	[F_ANOM] = "no anomalies on well-formed stock traces",
};

static struct {
	long	failed_seeds;
	char	first[1024];
} fam[F_NR];

static int seed_failed;
static unsigned int seed_families;
static uint64_t cur_seed;
static const char *cur_trace;

static void disagree(enum family f, const char *field, int64_t exp, const char *got)
{
	seed_failed = 1;
	if (seed_families & (1u << f))
		return;
	seed_families |= 1u << f;
	if (fam[f].failed_seeds++ == 0)
		snprintf(fam[f].first, sizeof(fam[f].first),
			 "seed %" PRIu64 ": %s: expected %" PRId64 ", got %s (trace kept: %s)",
			 cur_seed, field, exp, got, cur_trace);
}

static void check_in(struct json_object *o, enum family f, const char *path, int64_t want)
{
	struct json_object *v;
	char got[64];
	int found;

	v = lookup(o, path, &found);
	if (!found || !v || !json_object_is_type(v, json_type_int)) {
		snprintf(got, sizeof(got), "%s", !found ? "(absent)" : json_object_to_json_string(v));
		disagree(f, path, want, got);
	} else if (json_object_get_int64(v) != want) {
		snprintf(got, sizeof(got), "%" PRId64, json_object_get_int64(v));
		disagree(f, path, want, got);
	}
}

static void check_seed(struct json_object *root, struct truth *tr)
{
	struct json_object *arr, *anom;
	size_t i, n;
	int found;

	check_in(root, F_CONTENDED, "mmap_lock.contended.count", tr->count);
	check_in(root, F_CONTENDED, "mmap_lock.contended.read", tr->read);
	check_in(root, F_CONTENDED, "mmap_lock.contended.write", tr->write);
	check_in(root, F_CONTENDED, "mmap_lock.contended.wait_us_sum", tr->sum / 1000);
	check_in(root, F_CONTENDED, "mmap_lock.other_rwsem_contentions", nr_other_rwsem);
	check_in(root, F_ATTR, "mmap_lock.unattributed_waits", tr->unattr);
	check_in(root, F_ATTR, "mmap_lock.unattributed_us_sum", tr->unattr_sum / 1000);
	check_in(root, F_RETRY, "filemap_fault.retry_count", tr->retried);
	check_in(root, F_B, "contention.type_b_count", tr->b_count);
	check_in(root, F_B, "contention.type_b_duration_sum_us", tr->b_sum / 1000);
	check_in(root, F_B, "contention.type_b_faults", tr->b_faults);
	check_in(root, F_B, "contention.type_b_writers", tr->b_writers);
	check_in(root, F_B, "contention.type_b_writers_holding", tr->b_holding);
	check_in(root, F_B, "contention.type_b_writers_queued", tr->b_queued);
	check_in(root, F_B, "contention.type_b_retry_to_mmap_lock_sum_us", tr->b_retry / 1000);
	check_in(root, F_B, "contention.type_c_from_b", tr->c_from_b);

	arr = lookup(root, "mmap_lock.writers", &found);
	n = tr->rows.n;
	if (n > 10)
		n = 10;		/* the summary keeps the top ten */
	if (!arr || !json_object_is_type(arr, json_type_array)) {
		disagree(F_WRITERS, "mmap_lock.writers", (int64_t)n, "not an array");
	} else if (json_object_array_length(arr) != n) {
		char got[32];

		snprintf(got, sizeof(got), "%zu rows", json_object_array_length(arr));
		disagree(F_WRITERS, "mmap_lock.writers (rows)", (int64_t)n, got);
	} else {
		for (i = 0; i < n; i++) {
			struct json_object *o = json_object_array_get_idx(arr, i), *c;
			const struct row *r = &tr->rows.v[i];

			check_in(o, F_WRITERS, "pid", r->pid);
			check_in(o, F_WRITERS, "prio", r->prio);
			check_in(o, F_WRITERS, "write_holds", r->holds);
			check_in(o, F_WRITERS, "hold_us_sum", r->hold_ns / 1000);
			check_in(o, F_WRITERS, "hold_us_max", r->hold_max / 1000);
			check_in(o, F_WRITERS, "queued_us_sum", r->queued / 1000);
			check_in(o, F_WRITERS, "waiters", r->waiters);
			check_in(o, F_WRITERS, "waiter_pids", r->pids);
			check_in(o, F_WRITERS, "waited_us_sum", r->waited / 1000);
			check_in(o, F_WRITERS, "max_queue", r->max_queue);
			c = lookup(o, "caller", &found);
			if (c ? strcmp(json_object_get_string(c), callers[r->caller]) :
			    r->caller != NO_CALLER)
				disagree(F_WRITERS, "writers[].caller", r->caller,
					 c ? json_object_get_string(c) : "null");
		}
	}
	arr = lookup(root, "mmap_lock.by_writer_caller", &found);
	for (int k = 0; k < NR_CALLERS; k++) {
		struct json_object *row = NULL;

		for (i = 0; arr && json_object_is_type(arr, json_type_array) &&
		     i < json_object_array_length(arr); i++) {
			struct json_object *o = json_object_array_get_idx(arr, i), *c;

			c = lookup(o, "caller", &found);
			if (c && !strcmp(json_object_get_string(c), callers[k]))
				row = o;
		}
		if (!row) {
			if (tr->caller_holds[k])
				disagree(F_CALLERS, callers[k], tr->caller_holds[k], "(no row)");
			continue;
		}
		check_in(row, F_CALLERS, "write_holds", tr->caller_holds[k]);
		check_in(row, F_CALLERS, "waiters", tr->caller_waiters[k]);
		check_in(row, F_CALLERS, "waited_us_sum", tr->caller_waited[k] / 1000);
	}
	anom = lookup(root, "anomalies", &found);
	if (!anom || (json_object_is_type(anom, json_type_object) &&
		      json_object_object_length(anom) != 0))
		disagree(F_ANOM, "anomalies", 0, anom ? json_object_to_json_string(anom) : "null");
}

int main(void)
{
	const char *mmlock = getenv("MMLOCK"), *s;
	char dir[512], trace[600], out[600];
	long nseeds = 1000, failed_seeds = 0, with_b = 0, with_unattr = 0, with_queue = 0;
	uint64_t seed0 = 1, first_failed = 0;
	static struct truth tr;
	int rc = 0;

	if (!mmlock || !*mmlock) {
		printf("skip - stock-mode property test: MMLOCK not set\n");
		return 0;
	}
	s = getenv("PROPERTY_SEEDS");
	if (s && *s)
		nseeds = strtol(s, NULL, 10);
	s = getenv("PROPERTY_SEED0");
	if (s && *s)
		seed0 = strtoull(s, NULL, 10);
	s = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/mmlock-stock-property.XXXXXX", s && *s ? s : "/tmp");
	if (!mkdtemp(dir)) {
		printf("not ok - stock-mode property test: mkdtemp %s: %s\n", dir, strerror(errno));
		return 1;
	}
	printf("# stock-mode property test: seeds %" PRIu64 "..%" PRIu64 ", traces in %s\n",
	       seed0, seed0 + (uint64_t)nseeds - 1, dir);
	for (long i = 0; i < nseeds; i++) {
		struct json_object *root;
		int ret;

		cur_seed = seed0 + (uint64_t)i;
		snprintf(trace, sizeof(trace), "%s/seed-%" PRIu64 ".trace", dir, cur_seed);
		snprintf(out, sizeof(out), "%s/seed-%" PRIu64 ".json", dir, cur_seed);
		cur_trace = trace;
		seed_failed = 0;
		seed_families = 0;
		if (generate(cur_seed, trace)) {
			printf("not ok - stock-mode property test: cannot write %s\n", trace);
			return 1;
		}
		compute(&tr);
		with_b += tr.b_count > 0;
		with_unattr += tr.unattr > 0;
		for (size_t k = 0; k < tr.rows.n; k++)
			if (tr.rows.v[k].max_queue > 1) {
				with_queue++;
				break;
			}
		ret = run_analyzer(mmlock, trace, out);
		root = ret == 0 ? json_object_from_file(out) : NULL;
		if (!root) {
			char got[64];

			snprintf(got, sizeof(got), ret ? "exit %d" : "exit 0 but no JSON", ret);
			disagree(F_EXIT, "exit status", 0, got);
		} else {
			check_seed(root, &tr);
			json_object_put(root);
		}
		unlink(out);
		if (seed_failed && failed_seeds++ == 0)
			first_failed = cur_seed;
		if (!seed_failed)
			unlink(trace);
	}
	reset_world();
	free(tr.rows.v);
	printf("# seeds with Type-B %ld, an unattributed wait %ld, a writer with 2+ waiters on one "
	       "hold %ld, of %ld\n", with_b, with_unattr, with_queue, nseeds);
	if (nseeds >= 100 && (with_b * 10 < nseeds || with_unattr * 10 < nseeds ||
			      with_queue * 10 < nseeds)) {
		printf("not ok - stock generator covers Type-B, unattributed waits and queues in >= 10%% of seeds\n");
		rc = 1;
	} else {
		printf("ok - stock generator covers Type-B, unattributed waits and queues in >= 10%% of seeds\n");
	}
	for (int f = 0; f < F_NR; f++) {
		if (fam[f].failed_seeds) {
			printf("not ok - stock property (%ld seeds): %s\n", nseeds, family_name[f]);
			printf("# %s\n", fam[f].first);
			printf("# %ld of %ld seeds disagree on this family\n", fam[f].failed_seeds,
			       nseeds);
			rc = 1;
		} else {
			printf("ok - stock property (%ld seeds): %s\n", nseeds, family_name[f]);
		}
	}
	if (!failed_seeds)
		rmdir(dir);
	else
		printf("# %ld seeds failed; reproduce the first: PROPERTY_SEED0=%" PRIu64
		       " PROPERTY_SEEDS=1 MMLOCK=%s $O/tests/unit/stock_property\n",
		       failed_seeds, first_failed, mmlock);
	return rc;
}
