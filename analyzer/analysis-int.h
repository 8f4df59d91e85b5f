/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analysis' state, shared by the files that feed it (analysis.c: the
 * dispatch; pairing.c, stock.c: the begin/end state machines; pair.c: the
 * Type-A/B/C sweep; anomaly.c: broken sequences and [LOST]; tally.c: the
 * tables the summary reads; task.c, mmslot.c, ival.c, call.c, stack.c:
 * their objects) and by the files that read it (summary.c, cmd-export.c).
 */
#ifndef MMLOCK_ANALYSIS_INT_H
#define MMLOCK_ANALYSIS_INT_H

#include <stdint.h>
#include <string.h>

#include "analysis.h"
#include "htab.h"
#include "hist.h"
#include "evset.h"
#include "lifecycle.h"
#include "mmlock_events.h"
#include "slab.h"

enum slot {
	SLOT_FAULT, SLOT_FAULT_WAIT, SLOT_RETRY_GAP, SLOT_VMA_WRITE, SLOT_VMA_WAIT,
	SLOT_MMAP_WAIT, SLOT_MMAP_HOLD,
	SLOT_MMAP_CWAIT,	/* stock: lock:contention_begin..end nested in an mmap_lock call */
	SLOT_NR
};

enum slot_anomaly {
	SA_END_WITHOUT_BEGIN, SA_BEGIN_NESTED, SA_UNCLOSED, SA_MODE_MISMATCH,
	SA_END_BEFORE_START, SA_NR
};

enum wait_kind { WAIT_FAULT, WAIT_VMA, WAIT_MMAP, WAIT_NR };

/* get_word() for the word "unknown", which any enumeration may print */
#define LOCK_UNKNOWN	PARSE_WORD_UNKNOWN

#define STACK_LEN	192
#define CALLER_LEN	96
#define COMM_LEN	32

/*
 * A call several intervals refer to: a fault call, a vma write, a retry gap,
 * an acquisition; in stock mode also a page fault (exceptions:page_fault_user)
 * whose retry may go to mmap_lock, and a write acquisition's writer stats.
 */
struct call {
	unsigned int	refs;
	unsigned int	flags;
#define CALL_A_FAULT	0x1	/* counted in type_a_faults */
#define CALL_A_WRITER	0x2	/* counted in type_a_writers */
#define CALL_B_FAULT	0x4	/* counted in type_b_faults (a retry gap) */
#define CALL_SF_REACHED	0x8	/* stock fault: reached filemap_fault() (mm_filemap_fault) */
#define CALL_SF_RETRY	0x10	/* stock fault: went back to mmap_lock after that: retried */
#define CALL_SF_TRYFAIL	0x20	/* stock fault: its retry's mmap_read_trylock() failed */
#define CALL_B_PENDING	0x40	/* Type-B fault whose retry has not got the lock yet */
#define CALL_SF_ADDR	0x80	/* stock fault: vm_start holds page_fault_user's address */
	uint64_t	ts;			/* begin, or the retry for a gap */
	uint64_t	mark_ts;		/* stock fault: its first mm_filemap_fault */
	uint64_t	done_ts;		/* stock fault: its retry got mmap_lock, 0: not yet */
	/* stock write interval: the contended waits attributed to it */
	uint64_t	nw, w_ns, b_pairs, b_ns;
	int		*wpids;			/* their pids (repeats kept) */
	unsigned int	nwpids, capwpids;
	uint64_t	mm, vma;
	unsigned long	vm_start, vm_end, ino;
	int		caller_idx;		/* its caller_stat + 1, 0: not looked up */
	/*
	 * The texts last, read only up to their NUL: call_new() zeroes what
	 * comes before them and their first bytes, not their 336 bytes.
	 */
	char		dev[24];		/* zero after its NUL: compared as words (pair.c) */
	char		caller[CALLER_LEN];
	char		user_pc[24];		/* the faulting user instruction, as printed */
	char		stack[STACK_LEN];
};

struct task;
struct bucket;

struct ival {
	struct ival	*prev, *next;
	uint64_t	start, end;
	uint64_t	mm, vma;
	uint64_t	hold_start;	/* write acquisition: when its hold began */
	uint64_t	lock_addr;	/* stock contended wait: lock:contention_*'s lock_addr */
	uint64_t	epoch;		/* its CPU's [LOST] count when it opened */
	uint64_t	seq;		/* order of closing: pairs are offered in it */
	struct call	*call;
	struct task	*task;		/* holds a reference (task->refs) */
	struct bucket	*bk[2];		/* the sweep buckets holding it once closed */
	int		prio, cpu, lock, write, has_vma, has_hold;
	unsigned int	flags;
#define IV_R		0x1	/* a read wait inside a retry gap (Type-B fault side) */
#define IV_B_WRITER	0x2	/* counted in type_b_writers */
#define IV_ACQ		0x4	/* a write acquisition (Type-B writer side) */
#define IV_SW		0x8	/* stock: a contended wait (attributed to writers) */
#define IV_SM		0x10	/* stock: a write interval (queued, then holding) */
#define IV_ATTR		0x20	/* stock wait: attributed to at least one writer */
#define IV_RCALL	0x40	/* stock call: a retried fault's call (call = the fault) */
	int		list;	/* which sweep list holds it, -1 none */
};

/*
 * An mmap_lock hold: pairs and sweeps never see it, so it lives in its slot
 * rather than in a struct ival of its own (one fewer allocation per lock).
 */
struct hold {
	uint64_t	start;
	uint64_t	epoch;		/* its CPU's [LOST] count when it began */
	int		cpu;
	short		write, set;	/* a slot per open mm: kept small */
};

/*
 * A stock write hold kept in its slot rather than as a write interval
 * (IV_SM): while no contended wait is open or kept (nothing it could be
 * attributed to) it needs no sweep, and most holds close so.  It becomes
 * the interval it stands for (stock_swhold_ival()) when a contended wait
 * begins; else it is tallied at its release as that interval would be.
 */
struct swhold {
	uint64_t	start, hold_start;
	uint64_t	epoch;		/* its CPU's [LOST] count when it began */
	struct task	*task;
	struct call	*call;		/* only for a stack block: NULL until one came */
	struct mmslot	*prev, *next;	/* mmslot_table.swholds, in start order */
	int		cpu, prio, set;
};

/*
 * A stock mmap_lock call (start_locking .. acquire_returned) kept in its
 * slot: it is on no sweep list (a contended wait is its own interval), so
 * it needs no interval of its own.
 */
struct swait {
	uint64_t	start;
	uint64_t	epoch;		/* its CPU's [LOST] count when it began */
	struct call	*call;		/* IV_RCALL: the retried fault's call (a reference) */
	int		cpu;
	short		write, flags, set;
};

/* A task's mmap_lock state for one mm (custom and stock events kept apart). */
struct mmslot {
	int		pid, stock;
	uint64_t	mm;
	struct ival	*wait, *acq;	/* acq, or else swh: the write acquisition */
	struct hold	hold;
	struct swhold	swh;
	struct swait	sw;		/* stock slots only: their call (wait stays NULL) */
};

struct waitstat {
	uint64_t	count, sum_ns, max_ns, over_1ms, over_10ms;
};

/* A pid's waits, for waits_by_pid: kept after its task is forgotten. */
struct pidstat {
	int		pid, tgid;
	char		comm[COMM_LEN];
	struct waitstat	ws[WAIT_NR];
};

/*
 * A task: what is open for it, and what a later event of it needs.  Memory
 * follows the open intervals: a task with nothing open (refs, absorb,
 * stack) goes on the idle list, and the oldest idle ones are forgotten
 * beyond MAX_IDLE_TASKS (their last timestamp and sched_switch priority go
 * with them).
 */
struct task {
	int		pid, tgid, prio, sched_prio;
	char		comm[COMM_LEN];
	const char	*comm_src;	/* the lasting name comm was compared with, or NULL */
	uint64_t	comm_gen;	/* which copy comm is (task_table.comm_gen), 0: "" */
	uint64_t	last_ts;
	int		seen;
	unsigned int	refs;		/* intervals pointing at it */
	struct call	*fault;
	int		fault_cpu;
	uint64_t	fault_epoch;
	struct ival	*fw;
	struct call	*gap;
	int		gap_cpu;
	uint64_t	gap_epoch;
	struct call	*vwrite;
	int		vwrite_cpu;
	uint64_t	vwrite_epoch;
	struct ival	*vw;
	int		nr_mms;		/* live struct mmslot of this pid */
	struct mmslot	*ms;		/* the one used last, NULL: none */
	struct mmslot	*ms_kept;	/* emptied, kept for its mm's next event */
	/* stock-event mode */
	uint64_t	scall_mm;	/* mm of the latest start_locking (an open call?) */
	int		scall_set;
	struct ival	*cw;		/* contended wait: contention_begin .. _end */
	struct call	*sfault;	/* page fault: page_fault_user .. next fault or exit */
	int		sfault_cpu;
	uint64_t	sfault_epoch;
	unsigned int	absorb[SLOT_NR];
	struct call	*stack_target;	/* the call a following stack block belongs to */
	struct mmslot	*stack_swh;	/* or the struct swhold of this slot (its call) */
	int		stack_target_cpu;
	uint64_t	stack_target_epoch;
	char		*pending_stack;	/* --stack-position before; NULL when none */
	int		pending_cpu;
	struct pidstat	*ps;		/* its waits, NULL until the first */
	struct task	*idle_prev, *idle_next;
	uint64_t	idle_seq;	/* when it went idle (task_table.idle_clock) */
	int		idle;		/* idle (on the idle list once it is kept) */
	int		live;		/* not given back to its slab (slab_walk()) */
};

struct pair_side {
	int		pid, tgid, prio;
	char		comm[COMM_LEN];
	char		stack[STACK_LEN];
	char		user_pc[24];	/* the fault side's user_pc, "" when none */
};

struct pair_rec {
	char		type;		/* 'A' or 'B' */
	int		c, holding;
	uint64_t	dur_ns, start_ns;
	struct pair_side blocked, blocker;
	uint64_t	mm, vma;
	unsigned long	vm_start, vm_end;
	/* stock pair: no VMA in the events; the fault's address, if it was printed */
	int		stock, has_address;
	unsigned long	address;
	char		caller[CALLER_LEN];
};

struct caller_stat {
	char		name[CALLER_LEN];
	const char	*syscall;	/* writer_syscall() of name */
	uint64_t	count, waits, wait_sum_ns, wait_max_ns;
	uint64_t	a_pairs, a_ns, b_pairs, b_ns;
	/* the VMAs it write-locked: VM_SHARED (of those whose flags printed), file, anon */
	uint64_t	shared, flags_seen, file_backed, anonymous;
	/* where in user space one of its writers was: its longest wait's, else its first */
	char		user_pc[24];
	int		upc_tgid;
	uint64_t	upc_ts, upc_wait_ns;
};

struct counter {
	char		name[32];
	uint64_t	count;
};

#define MAX_REASONS 16

struct reason_counts {
	int		nr;
	struct counter	c[MAX_REASONS];
};

struct ilist {
	struct ival	*head, *tail;
};

enum sweep_list { L_OPEN_FW, L_CLOSED_FW, L_OPEN_VW, L_CLOSED_VW,
		  L_OPEN_R, L_CLOSED_R, L_OPEN_M, L_CLOSED_M,
		  L_OPEN_SW, L_CLOSED_SW, L_OPEN_SM, L_CLOSED_SM,	/* stock waits, writers */
		  L_NR };

/* Bounds of the tables that the input, not the open intervals, could grow. */
#define MAX_CALLERS	4096	/* distinct writer callers; the rest count as "other" */
#define MAX_PIDSTATS	65536	/* pids whose waits are kept */
#define MAX_IDLE_TASKS	65536	/* tasks with nothing open kept for their next event */
#define MAX_WAIT_ROWS	4096	/* waits_by_pid rows in the summary (the longest waits) */
#define MAX_SWRITERS	4096	/* stock writer rows (pid, caller); the rest are only counted */
#define MAX_WAITER_PAIRS 262144	/* (writer row, waiter pid) kept for waiter_pids */

/* A stock writer: one pid with one caller (mmap_lock.writers). */
struct swriter {
	int		pid, tgid, prio;
	char		comm[COMM_LEN];
	uint64_t	comm_gen;		/* the task's comm_gen copied last, 0: "" */
	char		caller[CALLER_LEN];	/* "" when no stack was recorded */
	int		idx;			/* its index, for the waiter pid pairs */
	uint64_t	holds, hold_ns, hold_max_ns, queued_ns;
	uint64_t	waiters, waited_ns, max_queue, waiter_pids;
};

/* A stock writer caller (mmap_lock.by_writer_caller, contention.by_caller). */
struct scaller {
	char		caller[CALLER_LEN];
	uint64_t	holds, waiters, waited_ns, b_pairs, b_ns;
};

/* Type-C pairs by the inversion evidence (known contention path, wait > 1 ms). */
struct c_evidence {
	uint64_t	known, over_1ms, both;
};

/* The pairs of top_pairs, kept apart for stock-mode pairs. */
struct top_heap {
	struct pair_rec	*v;
	unsigned int	n;
	struct c_evidence ev;	/* over every Type-C pair offered, not only the kept */
};

#define TASK_RECENT	64	/* a power of two */

/* The tasks by pid, and those with nothing open, oldest first (task.c). */
struct task_table {
	struct slab		slab;
	struct htab		tab;		/* by pid */
	size_t			nr;
	/* the tasks found last, by pid modulo TASK_RECENT (task_find()) */
	struct task		*recent[TASK_RECENT];
	struct task		*idle_head, *idle_tail;
	size_t			nr_idle;
	/*
	 * Which idle task goes first matters only past MAX_IDLE_TASKS tasks:
	 * until there are that many, the idle list is not kept (idle_listed
	 * 0), only each task's idle_seq, which orders the list when it is made.
	 */
	uint64_t		idle_clock;
	int			idle_listed;
	uint64_t		comm_gen;	/* task names copied so far */
	int			finishing;	/* analysis_finish() is walking the tasks */
	/*
	 * The task whose event is being handled: settled once when its
	 * handler returns, not at each interval it frees on the way.
	 */
	struct task		*feeding;
};

/* The (pid, mm) slots of the mmap_lock events (mmslot.c). */
struct mmslot_table {
	struct slab		slab;
	struct htab		tab;		/* by (pid, mm, stock) */
	struct mmslot		*swh_head, *swh_tail;	/* slots holding a struct swhold */
};

#define CALLER_RECENT	4	/* caller texts tally_caller() remembers */
#define SWRITER_RECENT	16	/* stock writer rows tally_swriter_fold() remembers; a power of two */

/* The sweep lists and the closed intervals' buckets (pair.c). */
struct sweep {
	struct ilist		lists[L_NR];
	struct htab		buckets;	/* closed sweep intervals by pairing key */
	/* by list and kind (pair.c's enum bucket_kind): the bucket used last, how many */
	struct bucket		*last[L_NR][4];
	unsigned int		nr_buckets[L_NR][4];
	/* buckets left empty, still in the table for their key's return; oldest first */
	struct bucket		*empty_head, *empty_tail;
	unsigned int		nr_empty;
	uint64_t		seq;		/* intervals closed so far */
	/* the caller text of a Type-C pair asked last, and whether it is a known path */
	int			known_set, known;
	char			known_text[CALLER_LEN];
};

/* [LOST] markers seen per CPU: an interval opened before one is truncated (anomaly.c). */
struct epochs {
	int			moved;		/* a [LOST] marker moved an epoch */
	uint64_t		small[256];
	struct htab		tab;		/* CPUs from 256 up */
};

/* The stack block being read (stack.c). */
struct stack_block {
	struct task		*task;
	int			cpu;
	char			buf[STACK_LEN];
	int			frames;
};

/* What the dispatch counts of the input itself (analysis.c). */
struct raw_counts {
	unsigned long		lines, events, other_events, stack_traces, malformed;
	uint64_t		lost_markers;
	uint64_t		ev_count[MMLOCK_EV_NR];
	uint64_t		x_count[EVSET_X_NR];	/* the stock additions' events */
	int			custom_mmap_seen;
};

/* What the event handlers count besides their intervals (pairing.c, stock.c). */
struct pairing_counts {
	uint64_t		waits_by_lock[MMLOCK_FL_NR];
	uint64_t		waits_lock_unknown;	/* lock=unknown (contract v2) */
	uint64_t		major_count;
	uint64_t		file_backed, anonymous;	/* VMA writes */
	uint64_t		wait_count[2], stock_wait_count[2], stock_trylocks;
	uint64_t		stock_downgrades;
	/* stock-event mode (lock:contention_*, exceptions:page_fault_*) */
	uint64_t		cw_count[2], cw_ns, other_rwsem;
	uint64_t		sf_retries;		/* retried faults */
};

/* The duration distributions (struct hist: exact below 4 ms, then 1/2048). */
struct dists {
	struct hist		fault_wait, vma_wait;
	struct hist		mmap_wait, mmap_hold, mmap_write_hold;
	struct hist		stock_wait, stock_hold, stock_write_hold;
	struct hist		cwait, retry_io;	/* stock: contended waits, retry I/O */
};

/* Type-A/B/C pairs and the stock waits' attribution (pair.c). */
struct contention {
	uint64_t		a_count, a_ns, a_faults, a_writers;
	uint64_t		b_count, b_ns, b_retry_ns, b_faults, b_writers;
	uint64_t		b_holding, b_queued;
	uint64_t		c_count, c_ns, c_from_a, c_from_b, c_prio_unknown;
	struct top_heap		top;		/* min-heap by dur_ns */
	/* stock-event mode */
	uint64_t		unattr, unattr_ns;
	uint64_t		sb_count, sb_ns, sb_retry_ns, sb_faults, sb_writers;
	uint64_t		sb_holding, sb_queued, sc_from_b, sc_prio_unknown;
	struct top_heap		stop;			/* stock Type-B pairs */
};

/* The summary's tables that events and pairs add to (tally.c). */
struct tally {
	struct reason_counts	retry_reasons, read_fail, fallback, by_syscall;
	struct reason_counts	fallback_after_retry;	/* inside a filemap retry gap */
	struct caller_stat	*callers;
	int			nr_callers, cap_callers;
	struct htab		caller_index;	/* name -> index + 1 into callers */
	/* the caller texts looked up last and their index + 1 (0: none) */
	int			caller_last[CALLER_RECENT];
	char			caller_last_text[CALLER_RECENT][CALLER_LEN];
	unsigned int		caller_next;	/* the entry replaced next */
	struct htab		pidstats;	/* by pid */
	uint64_t		pidstat_omitted;	/* waits of pids beyond MAX_PIDSTATS */
	struct htab		swriters;		/* by (pid, caller) */
	/* the rows found last, by pid modulo SWRITER_RECENT; the caller row found last */
	struct swriter		*swriter_recent[SWRITER_RECENT];
	struct scaller		*scaller_last;
	struct swriter		**swriter_v;		/* in creation order */
	int			nr_swriters;
	uint64_t		swriters_omitted;	/* write intervals past MAX_SWRITERS rows */
	struct htab		waiter_pairs;		/* (row, pid) seen */
	int			waiter_pairs_full;
	struct htab		scallers;		/* by caller */
	struct scaller		**scaller_v;
	int			nr_scallers;
};

/* Broken sequences (anomaly.c). */
struct anomaly_counts {
	uint64_t		slot[SLOT_NR][SA_NR];
	uint64_t		fault_wait_outside, retry_outside, truncated, backwards;
};

struct analysis {
	struct analysis_opts	opts;
	uint64_t		seed;		/* of every hash */
	struct slab		ival_slab;
	struct task_table	tt;
	struct mmslot_table	ms;
	struct sweep		sw;
	struct epochs		ep;
	struct stack_block	stk;
	uint64_t		now, first_ts;
	int			first_ts_set;
	struct lifecycle	*lc;
	struct raw_counts	raw;
	struct pairing_counts	pc;
	struct dists		dist;
	struct contention	ct;
	struct tally		tally;
	struct anomaly_counts	anom;
};

/* strcmp() == 0, inline up to the first byte: empty names are common. */
static inline int str_eq(const char *a, const char *b)
{
	return a[0] == b[0] && (!a[0] || !strcmp(a + 1, b + 1));
}

/* strlen-bounded copy that always terminates @dst; NULL copies as "". */
static inline void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size)
		n = size - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/* VM_SHARED, the same bit on every kernel since 2.6 */
#define VM_SHARED_BIT	0x8ULL
/* the seed's inversion evidence: a wait above 1 ms */
#define PAIR_SLOW_NS	1000000ULL

extern const char *const slot_names[SLOT_NR];
extern const char *const slot_anomaly_names[SA_NR];

#endif /* MMLOCK_ANALYSIS_INT_H */
