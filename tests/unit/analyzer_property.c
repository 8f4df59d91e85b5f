// SPDX-License-Identifier: GPL-2.0
/*
 * Property test for `mmlock analyze`: random well-formed traces against a
 * brute-force reference.
 *
 * For each seed a generator writes a trace (several pids on one or two mm's,
 * one to four VMAs per mm (two of them on another's range: one the same file,
 * one another), in some seeds waits without a vma= pointer, fault calls with waits under lock vma/mmap/none,
 * retried faults whose retry gap holds a read-mode mmap_lock wait, vma writes
 * with waits inside write-mode mmap_lock acquisitions with and without a wait,
 * plain read acquisitions, prio 100..139 and some real-time 0..99, many equal
 * timestamps; in a quarter of the seeds [LOST] lines, on a CPU whose tasks are
 * between activities, inside a read-mode mmap_lock wait (cut with the retry gap
 * around it) or before a fault call's end (the call cut, its end absorbed); the line header in turn as trace_pipe prints it, with the
 * record-tgid column, and without the flags column as trace-cmd report).  Each pid's events are a well-formed sequence; all events are
 * sorted by time with a stable order.  From its own ground-truth interval
 * lists the test computes every count and sum by the definitions of
 * analyzer/README.md with O(n^2) loops, runs
 *     $MMLOCK analyze FILE -o OUT
 * and compares.  One "ok"/"not ok" line per field family; the first
 * disagreement of a family names the seed, the field, both values and the
 * trace file, which is kept.
 *
 * Environment: MMLOCK (the binary; "skip" when unset), PROPERTY_SEEDS (default
 * 2000), PROPERTY_SEED0 (first seed, default 1), PROPERTY_VERBOSE=1 (print the
 * reference numbers of every seed), TMPDIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analyzer/pairing.h"
#include "property.h"

#define BASE_US		100000000ULL	/* 100.000000 s */
#define THRESHOLD_US	1000

/* ---- the generated world ---- */
struct task {
	int		pid, tgid, prio, cpu, mm;
	char		comm[24];
	uint64_t	t;	/* this task's clock, µs after BASE_US */
};

struct line {
	uint64_t	ts;
	char		*text;
};

/* ground truth */
struct fwait { int pid, prio, mm, vma, lock, fault, has_vma; uint64_t s, e; };	/* lock 0 vma 1 mmap 2 none */
struct vwait { int pid, prio, mm, vma, write, has_vma; uint64_t s, e; };
struct mwait { int pid, prio, mm, write, gap; uint64_t s, e, retry_ts; size_t end_line; int trunc; };	/* gap: in a retry gap */
struct mhold { int pid, mm, write; uint64_t s, e; };
struct wacq { int pid, prio, mm; uint64_t s, hold_s, e; };

static VEC(struct line, lines);
static VEC(char *, merged);	/* the lines in file order */
static VEC(char *, lost_lines);	/* the [LOST] lines among them, to free */
static VEC(struct fwait, fwaits);
static VEC(struct vwait, vwaits);
static VEC(struct mwait, mwaits);
static VEC(struct mhold, mholds);
static VEC(struct wacq, wacqs);
static int nr_faults, nr_retries, nr_vma_writes;
/*
 * [LOST] lines (analysis.md "Lost events"): per line of `lines`, whether it
 * begins an activity (its task has nothing open before it) and, for the end
 * of a read-mode mmap_lock wait, 1 + the wait's index in mwaits.
 */
static VEC(char, act_start);
static VEC(size_t, wait_end_of);	/* SIZE_MAX: the end of a fault in fault_ends */
static VEC(size_t, fault_ends);	/* the fault_end lines of faults outside any other interval */
static int64_t lost_total, lost_truncated;

static const char *lock_word[] = { "vma", "mmap", "none" };

/* 0: trace_pipe, 1: with the record-tgid column, 2: trace-cmd report (no flags) */
static int header_style;
/*
 * Version 2 of the contract's text form (events.md): no "pid=" (the header
 * carries the pid), booleans true|false.  Version 1: pid= first, 0|1.
 */
static int contract_v2;

/* Version 2's booleans: "write=1" -> "write=true" in @payload (room for it). */
static void v2_booleans(char *payload, size_t size)
{
	static const char *const keys[] = { "write=", "success=", "major=", "lock_dropped=",
					    "anon=", "detach=" };
	char out[512], *o = out, *p = payload;
	size_t i;

	while (*p && (size_t)(o - out) < sizeof(out) - 8) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i]);

			if ((p == payload || p[-1] == ' ') && !strncmp(p, keys[i], n) &&
			    (p[n] == '0' || p[n] == '1') && (!p[n + 1] || p[n + 1] == ' '))
				break;
		}
		if (i < sizeof(keys) / sizeof(keys[0])) {
			size_t n = strlen(keys[i]);

			o += sprintf(o, "%s%s", keys[i], p[n] == '1' ? "true" : "false");
			p += n + 1;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	snprintf(payload, size, "%s", out);
}

static const char *mm_ptr(int mm)
{
	return mm ? "00000000aaaa0002" : "00000000aaaa0001";
}

/*
 * Four VMA pointers, the same in both mm's: only the mm tells them apart.
 * 2 and 3 map vma 0's range again (as after an munmap and a new mmap at the
 * same address): 2 another file, 3 the same file.  Without a vma= pointer
 * the analyzer matches on the range, dev and inode, so a wait on 3 pairs with
 * one on 0 and a wait on 2 never does.
 */
static const char *vma_ptr(int vma)
{
	static const char *const p[] = { "00000000bbbb0001", "00000000bbbb0002",
					 "00000000bbbb0003", "00000000bbbb0004" };

	return p[vma];
}

static int vma_range(int vma)
{
	return vma == 1;
}

static int vma_ino(int vma)
{
	static const int ino[] = { 12, 13, 14, 12 };

	return ino[vma];
}

/*
 * The device: vma 1 (its own range) names a longer one, so that a call
 * reused after one of vma 1's must not keep its bytes past the NUL: the
 * analyzer compares a device as its whole 24 bytes.
 */
static const char *vma_dev(int vma)
{
	return vma == 1 ? "254:1600000" : "254:16";
}

static const char *vma_start(int vma)
{
	return vma_range(vma) ? "7f0000200000" : "7f0000000000";
}

static const char *vma_end(int vma)
{
	return vma_range(vma) ? "7f0000300000" : "7f0000100000";
}

/* Some seeds' wait events lack vma= (a kernel whose events do not carry it). */
static int drop_vma;

/* "vma=PTR " or, for a wait without the pointer, "" */
static const char *vma_field(int vma, int has)
{
	static char buf[4][32];
	static int k;

	k = (k + 1) % 4;
	if (!has)
		return "";
	snprintf(buf[k], sizeof(buf[k]), "vma=%s ", vma_ptr(vma));
	return buf[k];
}

static void emit(struct task *t, const char *event, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(struct task *t, const char *event, const char *fmt, ...)
{
	char payload[512], tgid[16], pid[24], *text;
	struct line l;
	uint64_t ts = BASE_US + t->t;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(payload, sizeof(payload), fmt, ap);
	va_end(ap);
	if (contract_v2)
		v2_booleans(payload, sizeof(payload));
	if (header_style == 1)	/* record-tgid */
		snprintf(tgid, sizeof(tgid), "(%7d) ", t->tgid);
	else
		tgid[0] = '\0';
	if (contract_v2)
		snprintf(pid, sizeof(pid), "%s", "");
	else
		snprintf(pid, sizeof(pid), "pid=%d ", t->pid);
	if (asprintf(&text, "%16s-%-7d %s[%03d] %s%6" PRIu64 ".%06" PRIu64
		     ": %s: %stgid=%d prio=%d mm=%s %s\n", t->comm, t->pid, tgid, t->cpu,
		     header_style == 2 ? "" : "..... ", ts / 1000000, ts % 1000000, event,
		     pid, t->tgid, t->prio, mm_ptr(t->mm), payload) < 0)
		abort();
	l.ts = t->t;
	l.text = text;
	PUSH(lines, l);
}

/* Advance a task's clock: equal timestamps are frequent on purpose. */
static void step(struct task *t, int max)
{
	if (!chance(30))
		t->t += (uint64_t)rr(1, max);
}

/*
 * A sleep: usually short, sometimes long enough that Type-C scores pass the
 * 1000 µs threshold, now and then 4096 µs or more, where the analyzer's
 * percentiles are a histogram bucket's lower bound (checked within 1/2048).
 */
static void sleep_step(struct task *t)
{
	if (chance(3))
		t->t += (uint64_t)rr(4096, 30000);
	else if (chance(12))
		t->t += (uint64_t)rr(400, 1400);
	else
		step(t, 120);
}

static void fault_wait(struct task *t, int vma, int lock, int fault)
{
	int has = !(drop_vma && chance(60));
	struct fwait w = { t->pid, t->prio, t->mm, vma, lock, fault, has, t->t, 0 };
	static const char *reasons[] = { "folio_lock", "read_folio", "readahead" };
	const char *reason = reasons[rr(0, 2)];

	emit(t, "filemap_fault_wait_start", "%saddress=%s reason=%s lock=%s",
	     vma_field(vma, has), vma_start(vma), reason, lock_word[lock]);
	sleep_step(t);
	w.e = t->t;
	emit(t, "filemap_fault_wait_end", "%saddress=%s reason=%s lock=%s waited_ns=%" PRIu64
	     " err=0", vma_field(vma, has), vma_start(vma), reason, lock_word[lock],
	     (w.e - w.s) * 1000);
	PUSH(fwaits, w);
}

static void fault_begin(struct task *t, int vma, int lock)
{
	emit(t, "filemap_fault_begin", "vma=%s vm_start=%s vm_end=%s address=%s pgoff=0 "
	     "dev=%s ino=%d lock=%s user_pc=55550000", vma_ptr(vma), vma_start(vma),
	     vma_end(vma), vma_start(vma), vma_dev(vma), vma_ino(vma), lock_word[lock]);
	nr_faults++;
}

static void fault_end(struct task *t, int vma, const char *ret, int dropped)
{
	emit(t, "filemap_fault_end", "vma=%s address=%s ret=%s major=%d lock_dropped=%d",
	     vma_ptr(vma), vma_start(vma), ret, chance(50), dropped);
}

/* A fault call that returns normally: 0..2 waits, each under any lock. */
static void plain_fault(struct task *t, int vma, int lock)
{
	int fault = nr_faults, n = rr(0, 2);

	fault_begin(t, vma, lock);
	step(t, 20);
	while (n--) {
		fault_wait(t, vma, rr(0, 2), fault);
		step(t, 20);
	}
	fault_end(t, vma, "MAJOR", 0);
}

static void mmap_wait(struct task *t, int write, int gap, uint64_t retry_ts)
{
	struct mwait w = { t->pid, t->prio, t->mm, write, gap, t->t, 0, retry_ts, 0, 0 };

	emit(t, "mmap_lock_wait_start", "write=%d caller=%s", write,
	     write ? "do_mprotect_pkey+0x9c/0x420" : "lock_mm_and_find_vma+0x3a/0x140");
	sleep_step(t);
	w.e = t->t;
	w.end_line = lines.n;
	emit(t, "mmap_lock_wait_end", "write=%d success=1 waited_ns=%" PRIu64, write,
	     (w.e - w.s) * 1000);
	PUSH(mwaits, w);
}

static void hold_start(struct task *t, int write, struct mhold *h)
{
	emit(t, "mmap_lock_hold_start", "write=%d", write);
	h->pid = t->pid;
	h->mm = t->mm;
	h->write = write;
	h->s = t->t;
}

static void hold_end(struct task *t, struct mhold *h)
{
	emit(t, "mmap_lock_hold_end", "write=%d", h->write);
	h->e = t->t;
	PUSH(mholds, *h);
}

/* A fault that drops the lock and returns VM_FAULT_RETRY, then the retry. */
static void retried_fault(struct task *t, int vma)
{
	static const char *reasons[] = { "drop_async_ra", "drop_sync_ra", "drop_folio_lock",
					 "drop_read_folio" };
	int fault = nr_faults;
	uint64_t retry_ts;
	struct mhold h;

	fault_begin(t, vma, 0);
	step(t, 20);
	if (chance(70)) {
		fault_wait(t, vma, chance(80) ? 2 : rr(0, 1), fault);
		step(t, 20);
	}
	retry_ts = t->t;
	emit(t, "filemap_fault_retry", "vma=%s address=%s reason=%s ret=MAJOR|RETRY",
	     vma_ptr(vma), vma_start(vma), reasons[rr(0, 3)]);
	nr_retries++;
	step(t, 5);
	fault_end(t, vma, "MAJOR|RETRY", 1);
	step(t, 5);
	if (chance(70)) {
		emit(t, "fault_mmap_lock_fallback", "address=%s reason=retry fault=MAJOR|RETRY",
		     vma_start(vma));
		step(t, 10);
	}
	if (chance(85)) {
		mmap_wait(t, 0, 1, retry_ts);
		step(t, 3);
	}
	hold_start(t, 0, &h);
	step(t, 10);
	/* the next filemap_fault_begin closes the retry gap */
	plain_fault(t, vma, 1);
	step(t, 10);
	hold_end(t, &h);
}

static void vma_write(struct task *t, int vma)
{
	static const char *callers[] = { "mprotect_fixup+0x1c4/0x2f0", "__split_vma+0x9a/0x2f0",
					 "vma_expand+0x11a/0x2d0", "dup_mmap+0x2a0/0x7c0" };
	struct vwait w = { t->pid, t->prio, t->mm, vma, nr_vma_writes, 1, 0, 0 };

	emit(t, "vma_start_write_begin", "vma=%s vm_start=%s vm_end=%s flags=8100073 anon=0 "
	     "dev=%s ino=%d caller=%s user_pc=55550010", vma_ptr(vma), vma_start(vma),
	     vma_end(vma), vma_dev(vma), vma_ino(vma), callers[rr(0, 3)]);
	nr_vma_writes++;
	step(t, 10);
	if (chance(60)) {
		w.s = t->t;
		w.has_vma = !(drop_vma && chance(60));
		emit(t, "vma_start_write_wait_start", "%svm_start=%s vm_end=%s readers=-1 "
		     "detach=0", vma_field(vma, w.has_vma), vma_start(vma), vma_end(vma));
		sleep_step(t);
		w.e = t->t;
		emit(t, "vma_start_write_wait_end", "%svm_start=%s vm_end=%s waited_ns=%" PRIu64
		     " err=0", vma_field(vma, w.has_vma), vma_start(vma), vma_end(vma),
		     (w.e - w.s) * 1000);
		PUSH(vwaits, w);
		step(t, 5);
	}
	emit(t, "vma_start_write_done", "vma=%s vm_start=%s vm_end=%s", vma_ptr(vma),
	     vma_start(vma), vma_end(vma));
}

/* A write-mode mmap_lock acquisition, with or without a wait, 0..2 vma writes inside. */
static void write_acquisition(struct task *t, int nr_vmas)
{
	struct wacq a = { t->pid, t->prio, t->mm, t->t, 0, 0 };
	struct mhold h;
	int n = rr(0, 2);

	if (chance(50)) {
		mmap_wait(t, 1, 0, 0);
		step(t, 3);
	}
	hold_start(t, 1, &h);
	a.hold_s = t->t;
	step(t, 20);
	while (n--) {
		vma_write(t, rr(0, nr_vmas - 1));
		step(t, 20);
	}
	step(t, 100);
	hold_end(t, &h);
	a.e = t->t;
	PUSH(wacqs, a);
}

static void read_acquisition(struct task *t, int nr_vmas)
{
	struct mhold h;

	if (chance(50)) {
		mmap_wait(t, 0, 0, 0);
		step(t, 3);
	}
	hold_start(t, 0, &h);
	step(t, 10);
	if (chance(50)) {
		plain_fault(t, rr(0, nr_vmas - 1), 1);
		step(t, 10);
	}
	step(t, 60);
	hold_end(t, &h);
}

/*
 * Maybe a [LOST] line on task @k's CPU before @k's next line, where the
 * reference knows what it truncates: every other task of that CPU between
 * activities, and @k either between activities too (nothing truncated), or
 * inside a read-mode mmap_lock wait, which is then truncated (its end
 * absorbed; not in the distribution, not in Type-B) together with the retry
 * gap around it when it is the wait of a retried fault, or before the end of
 * a fault call outside any other interval, whose waits have all ended: the
 * call is truncated and its end absorbed.  Nothing else of @k is open there
 * (retried_fault's fault has ended, read_acquisition's hold has not begun).
 */
static void lost_before(const struct task *tasks, int nr_tasks, const size_t *next,
			const size_t *first, int k)
{
	size_t w = wait_end_of.v[next[k]];
	char *text;
	int n;

	if (!act_start.v[next[k]] && !w)
		return;
	for (int j = 0; j < nr_tasks; j++)
		if (j != k && tasks[j].cpu == tasks[k].cpu && next[j] != first[j + 1] &&
		    !act_start.v[next[j]])
			return;
	n = rr(1, 5000);
	if (asprintf(&text, "CPU:%d [LOST %d EVENTS]\n", tasks[k].cpu, n) < 0)
		abort();
	PUSH(merged, text);
	PUSH(lost_lines, text);
	lost_total += n;
	if (w == SIZE_MAX) {
		lost_truncated++;	/* the fault call; its waits have ended */
	} else if (w) {
		mwaits.v[w - 1].trunc = 1;
		lost_truncated += 1 + mwaits.v[w - 1].gap;
	}
}

static void reset_world(void)
{
	for (size_t i = 0; i < lines.n; i++)
		free(lines.v[i].text);
	for (size_t i = 0; i < lost_lines.n; i++)
		free(lost_lines.v[i]);
	lost_lines.n = act_start.n = fault_ends.n = 0;
	lines.n = fwaits.n = vwaits.n = mwaits.n = mholds.n = wacqs.n = 0;
	lost_total = lost_truncated = 0;
	nr_faults = nr_retries = nr_vma_writes = 0;
}

static int generate(uint64_t seed, const char *path)
{
	static const char *names[] = { "reader", "writer", "my app-worker", "Binder:12_3",
				       "kworker/u8:2", "mm-thread" };
	int nr_tasks, nr_mms, nr_vmas[2], lost_mode;
	struct task tasks[8];
	size_t first[9], next[8];
	FILE *f;

	rng_state = seed * 0x2545f4914f6cdd1dULL + 1;
	reset_world();
	header_style = (int)(seed % 3);
	contract_v2 = (int)(seed / 3 % 2);
	nr_tasks = rr(2, 6);
	nr_mms = rr(1, 2);
	nr_vmas[0] = rr(1, 4);
	nr_vmas[1] = rr(1, 4);
	drop_vma = chance(30);
	lost_mode = chance(25);
	for (int i = 0; i < nr_tasks; i++) {
		struct task *t = &tasks[i];

		t->pid = 1000 + i;
		t->mm = rr(0, nr_mms - 1);
		t->tgid = t->mm ? 2000 : 1000;
		t->prio = chance(15) ? rr(0, 99) : rr(100, 139);
		t->cpu = i % 4;
		t->t = (uint64_t)rr(0, 50);
		snprintf(t->comm, sizeof(t->comm), "%s", names[rr(0, 5)]);
	}
	for (int i = 0; i < nr_tasks; i++) {
		struct task *t = &tasks[i];
		/* every tenth seed is long: intervals stay open across many closes */
		int acts = seed % 10 ? rr(2, 8) : rr(10, 30), nv = nr_vmas[t->mm];

		first[i] = lines.n;	/* each task's lines are contiguous, in its order */
		while (acts--) {
			int r = rr(0, 99);
			size_t from = lines.n;

			if (r < 25) {
				plain_fault(t, rr(0, nv - 1), chance(70) ? 0 : 1);
				PUSH(fault_ends, lines.n - 1);
			}
			else if (r < 50)
				retried_fault(t, rr(0, nv - 1));
			else if (r < 75)
				write_acquisition(t, nv);
			else if (r < 90)
				read_acquisition(t, nv);
			t->t += (uint64_t)rr(0, 60);
			while (act_start.n < lines.n) {
				char first_line = act_start.n == from;

				PUSH(act_start, first_line);
			}
		}
	}
	first[nr_tasks] = lines.n;
	wait_end_of.n = 0;
	for (size_t i = 0; i < lines.n; i++)
		PUSH(wait_end_of, 0);
	for (size_t i = 0; i < mwaits.n; i++)
		if (!mwaits.v[i].write)
			wait_end_of.v[mwaits.v[i].end_line] = i + 1;
	for (size_t i = 0; i < fault_ends.n; i++)
		wait_end_of.v[fault_ends.v[i]] = SIZE_MAX;
	merged.n = 0;
	/*
	 * Merge the tasks' sequences by time.  Among tasks whose next line has
	 * the same timestamp the pick is random, so an end and another task's
	 * start at one timestamp come in either order; one task's lines never
	 * change order.
	 */
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
		if (lost_mode && chance(8))
			lost_before(tasks, nr_tasks, next, first, nc);
		PUSH(merged, lines.v[next[nc]++].text);
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# mmlock analyzer property test, seed %" PRIu64 "\n", seed);
	for (size_t i = 0; i < merged.n; i++)
		fputs(merged.v[i], f);
	return fclose(f);
}

/*
 * The same stream as a chunk directory: 2..4 chunks cut between random lines,
 * each left plain, gzip -1'd or zstd'd at random (plain when the program is
 * missing).  The number of chunks, or -1.
 */
static int write_chunks(const char *dir)
{
	size_t cuts[5];
	int n = rr(2, 4);

	if (merged.n < 8 || mkdir(dir, 0755))
		return -1;
	cuts[0] = 0;
	cuts[n] = merged.n;
	for (int k = 1; k < n; k++)	/* increasing, every chunk non-empty */
		cuts[k] = cuts[k - 1] + 1 +
			  (size_t)rr(0, (int)(merged.n - cuts[k - 1] - (size_t)(n - k) - 1));
	for (int k = 0; k < n; k++) {
		char file[700];
		int how = rr(0, 2);
		FILE *f;

		snprintf(file, sizeof(file), "%s/trace-%06d.txt", dir, k + 1);
		f = fopen(file, "w");
		if (!f)
			return -1;
		for (size_t i = cuts[k]; i < cuts[k + 1]; i++)
			fputs(merged.v[i], f);
		if (fclose(f))
			return -1;
		if (how == 1) {
			char *gz[] = { "gzip", "-1", "-n", file, NULL };

			run_quiet(gz);
		} else if (how == 2) {
			char *zst[] = { "zstd", "-q", "--rm", file, NULL };

			run_quiet(zst);
		}
	}
	return n;
}

static void remove_dir(const char *dir)
{
	char file[700];

	for (int k = 1; k <= 4; k++) {
		static const char *const sfx[] = { "", ".gz", ".zst" };

		for (int j = 0; j < 3; j++) {
			snprintf(file, sizeof(file), "%s/trace-%06d.txt%s", dir, k, sfx[j]);
			unlink(file);
		}
	}
	rmdir(dir);
}

/* ---- the brute-force reference ---- */
struct dist {
	VEC(int64_t, vals);
};

struct truth {
	int64_t total_count, retry_count, vma_total;
	int64_t a_count, a_sum, a_faults, a_writers;
	int64_t b_count, b_sum, b_retry_sum, b_faults, b_writers, b_holding, b_queued;
	int64_t c_count, c_score, c_from_a, c_from_b;
	struct dist fault_wait, vma_wait, mmap_wait, hold, write_hold;
	int64_t fault_wait_sum;
	int64_t lost, truncated;	/* events the [LOST] lines report, intervals they cut */
};

static int overlaps(uint64_t as, uint64_t ae, uint64_t bs, uint64_t be)
{
	return as < be && bs < ae;
}

static int64_t olen(uint64_t as, uint64_t ae, uint64_t bs, uint64_t be)
{
	return (int64_t)((ae < be ? ae : be) - (as > bs ? as : bs));
}

static void dist_reset(struct dist *d)
{
	d->vals.n = 0;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void compute(struct truth *tr)
{
	static VEC(char, fault_used);
	static VEC(char, write_used);
	static VEC(char, acq_used);

	tr->total_count = nr_faults;
	tr->retry_count = nr_retries;
	tr->vma_total = nr_vma_writes;
	tr->a_count = tr->a_sum = tr->a_faults = tr->a_writers = 0;
	tr->b_count = tr->b_sum = tr->b_retry_sum = tr->b_faults = tr->b_writers = 0;
	tr->b_holding = tr->b_queued = 0;
	tr->c_count = tr->c_score = tr->c_from_a = tr->c_from_b = 0;
	tr->fault_wait_sum = 0;
	tr->lost = lost_total;
	tr->truncated = lost_truncated;
	dist_reset(&tr->fault_wait);
	dist_reset(&tr->vma_wait);
	dist_reset(&tr->mmap_wait);
	dist_reset(&tr->hold);
	dist_reset(&tr->write_hold);

	fault_used.n = write_used.n = acq_used.n = 0;
	for (int i = 0; i < nr_faults; i++)
		PUSH(fault_used, 0);
	for (int i = 0; i < nr_vma_writes; i++)
		PUSH(write_used, 0);
	for (size_t i = 0; i < wacqs.n; i++)
		PUSH(acq_used, 0);

	/*
	 * Type-A: FW with lock=vma x VW, same mm and vma (when either wait lacks
	 * the pointer: the same range, dev and inode), other pid, overlapping.
	 */
	for (size_t i = 0; i < fwaits.n; i++) {
		struct fwait *f = &fwaits.v[i];

		for (size_t j = 0; f->lock == 0 && j < vwaits.n; j++) {
			struct vwait *w = &vwaits.v[j];
			int64_t d;

			int same = f->has_vma && w->has_vma ? f->vma == w->vma :
				   vma_range(f->vma) == vma_range(w->vma) &&
				   vma_ino(f->vma) == vma_ino(w->vma);

			if (f->mm != w->mm || !same || f->pid == w->pid ||
			    !overlaps(f->s, f->e, w->s, w->e))
				continue;
			d = olen(f->s, f->e, w->s, w->e);
			tr->a_count++;
			tr->a_sum += d;
			fault_used.v[f->fault] = 1;
			write_used.v[w->write] = 1;
			if (w->prio < f->prio) {
				tr->c_count++;
				tr->c_score += d;
				tr->c_from_a++;
			}
		}
	}
	for (size_t i = 0; i < fault_used.n; i++)
		tr->a_faults += fault_used.v[i];
	for (size_t i = 0; i < write_used.n; i++)
		tr->a_writers += write_used.v[i];

	/* Type-B: read MW inside a retry gap x write acquisition M, same mm, other pid. */
	for (size_t i = 0; i < mwaits.n; i++) {
		struct mwait *r = &mwaits.v[i];
		int paired = 0;

		if (r->write || !r->gap || r->trunc)
			continue;
		for (size_t j = 0; j < wacqs.n; j++) {
			struct wacq *m = &wacqs.v[j];
			int64_t d;

			if (m->mm != r->mm || m->pid == r->pid || !overlaps(r->s, r->e, m->s, m->e))
				continue;
			d = olen(r->s, r->e, m->s, m->e);
			tr->b_count++;
			tr->b_sum += d;
			if (m->hold_s <= r->s)
				tr->b_holding++;
			else
				tr->b_queued++;
			acq_used.v[j] = 1;
			paired = 1;
			if (r->prio < m->prio) {
				tr->c_count++;
				tr->c_score += d;
				tr->c_from_b++;
			}
		}
		if (paired) {
			tr->b_faults++;
			tr->b_retry_sum += (int64_t)(r->e - r->retry_ts);
		}
	}
	for (size_t j = 0; j < acq_used.n; j++)
		tr->b_writers += acq_used.v[j];

	for (size_t i = 0; i < fwaits.n; i++) {
		PUSH(tr->fault_wait.vals, (int64_t)(fwaits.v[i].e - fwaits.v[i].s));
		tr->fault_wait_sum += (int64_t)(fwaits.v[i].e - fwaits.v[i].s);
	}
	for (size_t i = 0; i < vwaits.n; i++)
		PUSH(tr->vma_wait.vals, (int64_t)(vwaits.v[i].e - vwaits.v[i].s));
	for (size_t i = 0; i < mwaits.n; i++)
		if (!mwaits.v[i].trunc)
			PUSH(tr->mmap_wait.vals, (int64_t)(mwaits.v[i].e - mwaits.v[i].s));
	for (size_t i = 0; i < mholds.n; i++) {
		PUSH(tr->hold.vals, (int64_t)(mholds.v[i].e - mholds.v[i].s));
		if (mholds.v[i].write)
			PUSH(tr->write_hold.vals, (int64_t)(mholds.v[i].e - mholds.v[i].s));
	}
	qsort(tr->fault_wait.vals.v, tr->fault_wait.vals.n, sizeof(int64_t), i64_cmp);
	qsort(tr->vma_wait.vals.v, tr->vma_wait.vals.n, sizeof(int64_t), i64_cmp);
	qsort(tr->mmap_wait.vals.v, tr->mmap_wait.vals.n, sizeof(int64_t), i64_cmp);
	qsort(tr->hold.vals.v, tr->hold.vals.n, sizeof(int64_t), i64_cmp);
	qsort(tr->write_hold.vals.v, tr->write_hold.vals.n, sizeof(int64_t), i64_cmp);
}

/* Verdict by README's order; NULL when the reference cannot decide exactly. */
static const char *verdict(const struct truth *tr)
{
	size_t nw = tr->fault_wait.vals.n;

	if (tr->a_count == 0 && tr->c_count == 0)
		return "no_inversion_observed";
	if (tr->c_count > 0 && tr->c_score > THRESHOLD_US)
		return "inversion_confirmed";
	if (tr->a_count > 0 && tr->c_count == 0)
		return "contention_without_inversion";
	if (tr->b_count > 0) {
		/* retry_sum/b_faults > 2 * wait_sum/nw, in integers */
		int64_t lhs, rhs;

		if (nw == 0)
			return NULL;	/* mean fault wait undefined: not checked */
		lhs = tr->b_retry_sum * (int64_t)nw;
		rhs = 2 * tr->fault_wait_sum * tr->b_faults;
		if (lhs == rhs)
			return NULL;	/* a tie: too close to call through floating point */
		if (lhs > rhs)
			return "rip_out_benefit_clear";
	}
	return "inconclusive";
}

/* ---- comparing ---- */
enum family { F_EXIT, F_COUNTS, F_A, F_B, F_C, F_DIST, F_PCT, F_ANOM, F_LOST, F_VERDICT,
	      F_CHUNKS, F_NR };

static const char *family_name[F_NR] = {
	[F_EXIT] = "analyze exits 0 and writes JSON on well-formed traces",
	[F_COUNTS] = "filemap_fault.total_count, retry_count, vma_writer.total_count",
	[F_A] = "type_a_count, duration_sum, faults, writers",
	[F_B] = "type_b_count, duration_sum, retry_to_mmap_lock_sum, faults, writers, holding, queued",
	[F_C] = "type_c_count, score, from_a, from_b",
	[F_DIST] = "distributions: count, min, max (exact, also from 4096 us)",
	[F_PCT] = "distributions: median, p90, p99 (nearest rank; from 4096 us within 1/2048 below)",
	[F_ANOM] = "no anomalies on well-formed traces",
	[F_LOST] = "[LOST] lines: capture.lost_events, the read waits and faults they cut "
		   "(truncated_by_lost_events; out of distributions and Type-B; ends absorbed)",
	[F_VERDICT] = "verdict code by the decision order",
	[F_CHUNKS] = "every fourth seed again as a chunk set (plain/gzip/zstd, cut between "
		     "random lines): same numbers, capture.chunks",
};

static struct {
	long	failed_seeds;
	char	first[1024];
} fam[F_NR];

static int seed_failed, keep_trace, chunk_mode;
static unsigned int seed_families;	/* families that already disagree on this seed */
static uint64_t cur_seed;
static const char *cur_trace;

static void disagree(enum family f, const char *field, const char *exp, const char *got)
{
	seed_failed = 1;
	if (chunk_mode)
		f = F_CHUNKS;	/* the whole-file run is judged by the other families */
	if (seed_families & (1u << f))
		return;
	seed_families |= 1u << f;
	if (fam[f].failed_seeds++ == 0) {
		keep_trace = 1;	/* this message names the trace: keep it */
		snprintf(fam[f].first, sizeof(fam[f].first),
			 "seed %" PRIu64 ": %s: expected %s, got %s (trace kept: %s)",
			 cur_seed, field, exp, got, cur_trace);
	}
}

static void check_int(struct json_object *root, enum family f, const char *path, int64_t want)
{
	char e[32], g[64];
	int found;
	struct json_object *o = lookup(root, path, &found);

	snprintf(e, sizeof(e), "%" PRId64, want);
	if (!found) {
		disagree(f, path, e, "(absent)");
	} else if (!o) {
		disagree(f, path, e, "null");
	} else if (!json_object_is_type(o, json_type_int) &&
		   !json_object_is_type(o, json_type_double)) {
		disagree(f, path, e, json_object_to_json_string(o));
	} else if (json_object_is_type(o, json_type_double) ?
		   json_object_get_double(o) != (double)want : json_object_get_int64(o) != want) {
		snprintf(g, sizeof(g), "%s", json_object_to_json_string(o));
		disagree(f, path, e, g);
	}
}

static void check_null(struct json_object *root, enum family f, const char *path)
{
	int found;
	struct json_object *o = lookup(root, path, &found);

	if (!found)
		disagree(f, path, "null", "(absent)");
	else if (o)
		disagree(f, path, "null", json_object_to_json_string(o));
}

/*
 * A percentile: exact below 4096 µs; from there the lower bound of its
 * histogram bucket, at most @v and above v - v/2048 (README), never outside
 * [min, max].  min and max themselves are always exact (hist.c keeps them).
 */
static void check_pct(struct json_object *root, enum family f, const char *path, int64_t v)
{
	char e[96];
	int found;
	struct json_object *o;
	int64_t got;

	if (v < 4096) {
		check_int(root, f, path, v);
		return;
	}
	o = lookup(root, path, &found);
	snprintf(e, sizeof(e), "(%" PRId64 " - %" PRId64 "/2048, %" PRId64 "]", v, v, v);
	if (!found || !o || !json_object_is_type(o, json_type_int)) {
		disagree(f, path, e, !found ? "(absent)" : o ? json_object_to_json_string(o) : "null");
		return;
	}
	got = json_object_get_int64(o);
	if (got > v || (v - got) * 2048 >= v)
		disagree(f, path, e, json_object_to_json_string(o));
}

static void check_dist(struct json_object *root, const char *name, struct dist *d)
{
	static const struct { const char *key; int pct; } pcts[] = {
		{ "median", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	char path[128];
	size_t n = d->vals.n;

	snprintf(path, sizeof(path), "%s.count", name);
	check_int(root, F_DIST, path, (int64_t)n);
	snprintf(path, sizeof(path), "%s.min", name);
	if (n)
		check_int(root, F_DIST, path, d->vals.v[0]);
	else
		check_null(root, F_DIST, path);
	snprintf(path, sizeof(path), "%s.max", name);
	if (n)
		check_int(root, F_DIST, path, d->vals.v[n - 1]);
	else
		check_null(root, F_DIST, path);
	for (size_t i = 0; i < 3; i++) {
		/* nearest rank: the ceil(p/100 * n)-th smallest, in integers */
		size_t rank = ((size_t)pcts[i].pct * n + 99) / 100;

		snprintf(path, sizeof(path), "%s.%s", name, pcts[i].key);
		if (n)
			check_pct(root, F_PCT, path, d->vals.v[rank - 1]);
		else
			check_null(root, F_PCT, path);
	}
}

static void check_seed(struct json_object *root, struct truth *tr)
{
	struct json_object *anom;
	const char *want;
	int found;

	check_int(root, F_COUNTS, "filemap_fault.total_count", tr->total_count);
	check_int(root, F_COUNTS, "filemap_fault.retry_count", tr->retry_count);
	check_int(root, F_COUNTS, "vma_writer.total_count", tr->vma_total);

	check_int(root, F_A, "contention.type_a_count", tr->a_count);
	check_int(root, F_A, "contention.type_a_duration_sum_us", tr->a_sum);
	check_int(root, F_A, "contention.type_a_faults", tr->a_faults);
	check_int(root, F_A, "contention.type_a_writers", tr->a_writers);

	check_int(root, F_B, "contention.type_b_count", tr->b_count);
	check_int(root, F_B, "contention.type_b_duration_sum_us", tr->b_sum);
	check_int(root, F_B, "contention.type_b_retry_to_mmap_lock_sum_us", tr->b_retry_sum);
	check_int(root, F_B, "contention.type_b_faults", tr->b_faults);
	check_int(root, F_B, "contention.type_b_writers", tr->b_writers);
	check_int(root, F_B, "contention.type_b_writers_holding", tr->b_holding);
	check_int(root, F_B, "contention.type_b_writers_queued", tr->b_queued);

	check_int(root, F_C, "contention.type_c_count", tr->c_count);
	check_int(root, F_C, "contention.type_c_score_us", tr->c_score);
	check_int(root, F_C, "contention.type_c_from_a", tr->c_from_a);
	check_int(root, F_C, "contention.type_c_from_b", tr->c_from_b);

	check_dist(root, "filemap_fault.wait_durations_us", &tr->fault_wait);
	check_dist(root, "vma_writer.wait_durations_us", &tr->vma_wait);
	check_dist(root, "mmap_lock.wait_durations_us", &tr->mmap_wait);
	check_dist(root, "mmap_lock.hold_durations_us", &tr->hold);
	check_dist(root, "mmap_lock.write_hold_durations_us", &tr->write_hold);

	check_int(root, F_LOST, "capture.lost_events", tr->lost);
	anom = lookup(root, "anomalies", &found);
	if (!found || !anom) {
		disagree(F_ANOM, "anomalies", "{}", found ? "null" : "(absent)");
	} else if (json_object_is_type(anom, json_type_object) &&
		   json_object_object_length(anom) != (tr->truncated > 0)) {
		disagree(tr->truncated ? F_LOST : F_ANOM, "anomalies",
			 tr->truncated ? "only truncated_by_lost_events" : "{}",
			 json_object_to_json_string(anom));
	} else if (tr->truncated) {
		check_int(root, F_LOST, "anomalies.truncated_by_lost_events", tr->truncated);
	}

	want = verdict(tr);
	if (want) {
		struct json_object *code = lookup(root, "verdict.code", &found);
		const char *got = code ? json_object_get_string(code) : "(absent or null)";

		if (!code || strcmp(got, want))
			disagree(F_VERDICT, "verdict.code", want, got);
	}
}

/*
 * pairing_vm_flags(), the analyzer's own hex reading of flags=, against
 * strtoull() on random texts: digits of both cases, leading zeros, "0x",
 * lengths about the 16 digits of 64 bits, a stray byte.
 */
static int vm_flags_check(void)
{
	static const char alphabet[] = "0000000123456789abcdefABCDEFxXg \t-+";
	unsigned long bad = 0, n;
	char text[48], first[160] = "";

	for (n = 0; n < 200000; n++) {
		size_t len = (size_t)(rand() % 28), i;
		uint64_t got = 0, want = 0;
		int ok, want_ok;
		char *end;

		for (i = 0; i < len; i++)
			text[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		if (len > 2 && n % 4 == 0) {	/* "0x" then digits, now and then */
			text[0] = '0';
			text[1] = n % 8 ? 'x' : 'X';
		}
		text[len] = '\0';
		ok = pairing_vm_flags(text, &got);
		errno = 0;
		want = strtoull(text, &end, 16);
		want_ok = len && strchr("0123456789abcdefABCDEF", text[0]) && !*end &&
			  errno != ERANGE;
		if (ok != want_ok || (ok && got != want)) {
			if (!bad++)
				snprintf(first, sizeof(first), "'%s': %d %#" PRIx64 ", strtoull %d %#"
					 PRIx64, text, ok, got, want_ok, want);
		}
	}
	{
		uint64_t none = 0;

		if (pairing_vm_flags(NULL, &none) != 0)
			bad++;
	}
	printf("%s - property: flags= read as strtoull(16) reads it (%lu texts, %lu wrong%s%s)\n",
	       bad ? "not ok" : "ok", n, bad, bad ? ": " : "", first);
	return bad ? 1 : 0;
}

int main(void)
{
	const char *mmlock = getenv("MMLOCK"), *s;
	char dir[512], trace[600], out[600], chunks[600];
	long nseeds = 2000, failed_seeds = 0, with_a = 0, with_b = 0, with_c = 0, max_us = 0;
	long with_lost = 0, with_cut = 0;
	long verdicts[6] = { 0 };
	static const char *vnames[6] = { "no_inversion_observed", "inversion_confirmed",
					 "contention_without_inversion", "rip_out_benefit_clear",
					 "inconclusive", "not checked" };
	int verbose = getenv("PROPERTY_VERBOSE") && *getenv("PROPERTY_VERBOSE") == '1';
	uint64_t seed0 = 1, first_failed = 0;
	static struct truth tr;
	int rc = 0;

	srand(1);
	rc |= vm_flags_check();
	if (!mmlock || !*mmlock) {
		printf("skip - analyzer property test: MMLOCK not set\n");
		return rc;
	}
	s = getenv("PROPERTY_SEEDS");
	if (s && *s)
		nseeds = strtol(s, NULL, 10);
	s = getenv("PROPERTY_SEED0");
	if (s && *s)
		seed0 = strtoull(s, NULL, 10);
	s = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/mmlock-property.XXXXXX", s && *s ? s : "/tmp");
	if (!mkdtemp(dir)) {
		printf("not ok - analyzer property test: mkdtemp %s: %s\n", dir, strerror(errno));
		return 1;
	}
	printf("# analyzer property test: seeds %" PRIu64 "..%" PRIu64 ", traces in %s\n",
	       seed0, seed0 + (uint64_t)nseeds - 1, dir);

	for (long i = 0; i < nseeds; i++) {
		struct json_object *root;
		int ret;

		cur_seed = seed0 + (uint64_t)i;
		snprintf(trace, sizeof(trace), "%s/seed-%" PRIu64 ".trace", dir, cur_seed);
		snprintf(out, sizeof(out), "%s/seed-%" PRIu64 ".json", dir, cur_seed);
		cur_trace = trace;
		seed_failed = keep_trace = 0;
		seed_families = 0;
		if (generate(cur_seed, trace)) {
			printf("not ok - analyzer property test: cannot write %s\n", trace);
			return 1;
		}
		compute(&tr);
		with_a += tr.a_count > 0;
		with_b += tr.b_count > 0;
		with_c += tr.c_count > 0;
		with_lost += tr.lost > 0;
		with_cut += tr.truncated > 0;
		for (int v = 0; v < 6; v++)
			if (v == 5 || (verdict(&tr) && !strcmp(verdict(&tr), vnames[v]))) {
				verdicts[v]++;
				break;
			}
		if (tr.hold.vals.n && tr.hold.vals.v[tr.hold.vals.n - 1] > max_us)
			max_us = (long)tr.hold.vals.v[tr.hold.vals.n - 1];
		if (tr.fault_wait.vals.n && tr.fault_wait.vals.v[tr.fault_wait.vals.n - 1] > max_us)
			max_us = (long)tr.fault_wait.vals.v[tr.fault_wait.vals.n - 1];
		if (verbose)
			printf("# seed %" PRIu64 ": %zu lines, faults %" PRId64 " retries %" PRId64
			       " A %" PRId64 "/%" PRId64 "us B %" PRId64 "/%" PRId64 "us (h%" PRId64
			       " q%" PRId64 ") C %" PRId64 "/%" PRId64 "us verdict %s\n", cur_seed,
			       lines.n, tr.total_count, tr.retry_count, tr.a_count, tr.a_sum,
			       tr.b_count, tr.b_sum, tr.b_holding, tr.b_queued, tr.c_count,
			       tr.c_score, verdict(&tr) ? verdict(&tr) : "(not checked)");
		ret = run_analyzer(mmlock, trace, out);
		root = ret == 0 ? json_object_from_file(out) : NULL;
		if (!root) {
			char got[64];

			snprintf(got, sizeof(got), ret ? "exit %d" : "exit 0 but no JSON", ret);
			disagree(F_EXIT, "exit status", "0 and a JSON summary", got);
		} else {
			check_seed(root, &tr);
			json_object_put(root);
		}
		unlink(out);
		if (cur_seed % 4 == 0) {
			int n;

			snprintf(chunks, sizeof(chunks), "%s/seed-%" PRIu64 ".chunks", dir, cur_seed);
			n = write_chunks(chunks);
			if (n > 0) {
				chunk_mode = 1;
				cur_trace = chunks;
				keep_trace = 0;
				ret = run_analyzer(mmlock, chunks, out);
				root = ret == 0 ? json_object_from_file(out) : NULL;
				if (!root) {
					char got[64];

					snprintf(got, sizeof(got), ret ? "exit %d" : "no JSON", ret);
					disagree(F_EXIT, "exit status", "0 and a JSON summary", got);
				} else {
					check_seed(root, &tr);
					check_int(root, F_CHUNKS, "capture.chunks", n);
					json_object_put(root);
				}
				unlink(out);
				if (!keep_trace)
					remove_dir(chunks);
				chunk_mode = 0;
				cur_trace = trace;
				keep_trace = !!(seed_families & ~(1u << F_CHUNKS));
			}
		}
		if (seed_failed && failed_seeds++ == 0)
			first_failed = cur_seed;
		/* keep the traces the messages name; the others are reproducible */
		if (!keep_trace)
			unlink(trace);
	}
	reset_world();
	/* A generator that never produces contention would prove nothing. */
	printf("# seeds with Type-A %ld, Type-B %ld, Type-C %ld of %ld; longest interval %ld us\n",
	       with_a, with_b, with_c, nseeds, max_us);
	printf("# seeds with [LOST] lines %ld, with an interval they cut %ld\n", with_lost, with_cut);
	printf("# verdicts: %s %ld, %s %ld, %s %ld, %s %ld, %s %ld, %s %ld\n",
	       vnames[0], verdicts[0], vnames[1], verdicts[1], vnames[2], verdicts[2],
	       vnames[3], verdicts[3], vnames[4], verdicts[4], vnames[5], verdicts[5]);
	if (nseeds >= 100 && (with_a * 10 < nseeds || with_b * 10 < nseeds || with_c * 10 < nseeds ||
			      with_cut * 20 < nseeds)) {
		printf("not ok - property generator covers Type-A, B, C in >= 10%% of seeds, "
		       "a [LOST] cut in >= 5%%\n");
		rc = 1;
	} else {
		printf("ok - property generator covers Type-A, B, C in >= 10%% of seeds, "
		       "a [LOST] cut in >= 5%%\n");
	}

	for (int f = 0; f < F_NR; f++) {
		if (fam[f].failed_seeds) {
			printf("not ok - property (%ld seeds): %s\n", nseeds, family_name[f]);
			printf("# %s\n", fam[f].first);
			printf("# %ld of %ld seeds disagree on this family\n",
			       fam[f].failed_seeds, nseeds);
			rc = 1;
		} else {
			printf("ok - property (%ld seeds): %s\n", nseeds, family_name[f]);
		}
	}
	if (!failed_seeds)
		rmdir(dir);
	else
		printf("# %ld seeds failed; reproduce the first: PROPERTY_SEED0=%" PRIu64
		       " PROPERTY_SEEDS=1 PROPERTY_VERBOSE=1 MMLOCK=%s $O/tests/unit/analyzer_property\n",
		       failed_seeds, first_failed, mmlock);
	return rc;
}
