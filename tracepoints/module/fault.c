// SPDX-License-Identifier: GPL-2.0
/*
 * The fault side: filemap_fault() and where it sleeps, lock_vma_under_rcu()
 * failures, and the fault handler's fallback to the mmap_lock.
 *
 * filemap_fault() is out of line and exported: a kretprobe gives its entry
 * (the VMA is stable: the fault holds its lock) and its return (the VMA must
 * not be touched any more; only the entry snapshot is printed).  The sleeps
 * are the out-of-line calls it makes after deciding whether to drop its
 * lock: filemap_read_folio() (read_folio; when the compiler inlined it, the
 * folio wait inside it), page_cache_{sync,async}_ra()/page_cache_ra_order()
 * (readahead), and for the folio lock whatever the compiler left out of
 * line: __folio_lock{,_killable}() (exported, but GCC inlines them into
 * filemap_fault() in the same file), folio_wait_bit_common() (6.12), or on
 * kernels that inline even that (7.2) the io_schedule() calls made from
 * filemap_fault()'s own body: that wait starts at the first such sleep and
 * ends after the last, when the fault reaches its next probe (a few
 * microseconds later; waited_ns is exact, err is 0).
 *
 * Which lock a fault holds while it sleeps is not visible from outside: the
 * kernel drops it (maybe_unlock_mmap_for_io(), inline) before the first of
 * those calls when fault_flag_allow_retry_first() and not RETRY_NOWAIT,
 * and on a kernel with the mmlock series only if vm.filemap_fault_no_retry
 * does not tell a per-VMA-locked fault to keep it.  The module applies that
 * rule with the sysctl's last value (main.c) and prints "unknown" while it
 * could not be read.
 */
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>

#include "mmlock_probe.h"
#include "mmlock_probe_trace.h"

/* The state of one filemap_fault() call, in its kretprobe instance. */
struct mmlock_fault_ctx {
	struct mmlock_fault	f;
	unsigned int		flags;		/* vmf->flags at entry */
	int			will_drop;	/* 1, 0, or -1: not known */
	int			retry;		/* FILEMAP_FAULT_RETRY_* of the drop */
	int			first_site;	/* retry word of the first sleep, or -1 */
	bool			dropped;
	bool			killed;
	bool			wait_open;
	/* a folio lock wait seen as io_schedule() calls (SITE_IO_SCHEDULE) */
	bool			io_wait;
	bool			io_asleep;
	int			io_lock;
	u64			io_start;
	u64			io_end;
};

enum site {
	SITE_FOLIO_LOCK_KILLABLE,
	SITE_FOLIO_LOCK,
	SITE_READ_FOLIO,
	SITE_READ_FOLIO_WAIT,	/* filemap_read_folio() inlined: its folio wait */
	SITE_SYNC_RA,
	SITE_ASYNC_RA,
	SITE_RA_ORDER,
	SITE_WAIT_BIT,		/* folio_wait_bit_common() called by the fault */
	SITE_IO_SCHEDULE,	/* io_schedule() called by the fault itself */
	SITE_NR,
};

static const int site_wait[SITE_NR] = {
	[SITE_FOLIO_LOCK_KILLABLE] = FILEMAP_FAULT_WAIT_FOLIO_LOCK,
	[SITE_FOLIO_LOCK] = FILEMAP_FAULT_WAIT_FOLIO_LOCK,
	[SITE_READ_FOLIO] = FILEMAP_FAULT_WAIT_READ_FOLIO,
	[SITE_READ_FOLIO_WAIT] = FILEMAP_FAULT_WAIT_READ_FOLIO,
	[SITE_SYNC_RA] = FILEMAP_FAULT_WAIT_READAHEAD,
	[SITE_ASYNC_RA] = FILEMAP_FAULT_WAIT_READAHEAD,
	[SITE_RA_ORDER] = FILEMAP_FAULT_WAIT_READAHEAD,
	[SITE_WAIT_BIT] = FILEMAP_FAULT_WAIT_FOLIO_LOCK,
	[SITE_IO_SCHEDULE] = FILEMAP_FAULT_WAIT_FOLIO_LOCK,
};

/* The drop that precedes each sleep, as filemap_fault_retry names it. */
static const int site_retry[SITE_NR] = {
	[SITE_FOLIO_LOCK_KILLABLE] = FILEMAP_FAULT_RETRY_DROP_FOLIO_LOCK,
	[SITE_FOLIO_LOCK] = FILEMAP_FAULT_RETRY_DROP_FOLIO_LOCK,
	[SITE_READ_FOLIO] = FILEMAP_FAULT_RETRY_DROP_READ_FOLIO,
	[SITE_READ_FOLIO_WAIT] = FILEMAP_FAULT_RETRY_DROP_READ_FOLIO,
	[SITE_SYNC_RA] = FILEMAP_FAULT_RETRY_DROP_SYNC_RA,
	[SITE_ASYNC_RA] = FILEMAP_FAULT_RETRY_DROP_ASYNC_RA,
	[SITE_RA_ORDER] = FILEMAP_FAULT_RETRY_DROP_SYNC_RA,
	[SITE_WAIT_BIT] = FILEMAP_FAULT_RETRY_DROP_FOLIO_LOCK,
	[SITE_IO_SCHEDULE] = FILEMAP_FAULT_RETRY_DROP_FOLIO_LOCK,
};

/*
 * The functions whose own body may sleep on the folio lock (inlined
 * __folio_lock*()): a folio_wait_bit_common() or io_schedule() called from
 * anywhere else (readahead, reclaim) is not that wait.
 */
static bool called_by_fault(unsigned long ip)
{
	static const char *const fns[] = {
		"filemap_fault", "__filemap_fault", "lock_folio_maybe_drop_mmap",
		"__folio_lock",
	};
	char name[KSYM_SYMBOL_LEN];
	unsigned int i;

	sprint_symbol_no_offset(name, ip);
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		size_t n = strlen(fns[i]);

		/* the name, or a compiler's clone of it (name.isra.0) */
		if (!strncmp(name, fns[i], n) && (name[n] == '\0' || name[n] == '.'))
			return true;
	}
	return false;
}

/* A probed function, by the names the compiler may have given it. */
struct mmlock_krp {
	struct kretprobe	rp;
	const char *const	*names;
	int			site;
	bool			on;
	bool			optional;	/* the module works without it */
};

static bool fault_tracked(struct mmlock_fault_ctx **cp)
{
	struct mmlock_task *t;

	if (!mmlock_on() || !mmlock_in_task())
		return false;
	t = mmlock_task_get(false);
	if (!t || !(t->roles & MMLOCK_R_FAULT) || !t->fault)
		return false;
	*cp = t->fault;
	return true;
}

/* filemap_fault() */

static int fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mmlock_fault_ctx *c = (struct mmlock_fault_ctx *)ri->data;
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	struct vm_area_struct *vma = vmf->vma;
	struct mmlock_task *t;
	bool first, vma_lock;
	int nr;

	if (!mmlock_on() || !mmlock_in_task())
		return 1;
	t = mmlock_task_get(true);
	if (!t)
		return 1;
	if (t->roles & MMLOCK_R_FAULT)
		return 1;	/* a fault inside a fault: not a user page fault */
	t->roles |= MMLOCK_R_FAULT;
	t->fault = c;

	vma_lock = vmf->flags & FAULT_FLAG_VMA_LOCK;
	c->f.mm = vma->vm_mm;
	c->f.vma = vma;
	c->f.address = vmf->real_address;
	c->f.lock = vma_lock ? FILEMAP_FAULT_LOCK_VMA : FILEMAP_FAULT_LOCK_MMAP;
	c->flags = vmf->flags;
	c->retry = FILEMAP_FAULT_RETRY_UNKNOWN;
	c->first_site = -1;
	c->dropped = false;
	c->killed = false;
	c->wait_open = false;
	c->io_wait = false;
	c->io_asleep = false;

	/* maybe_unlock_mmap_for_io()'s rule, and the series' knob */
	first = fault_flag_allow_retry_first(vmf->flags) &&
		!(vmf->flags & FAULT_FLAG_RETRY_NOWAIT);
	if (!first || !vma_lock) {
		c->will_drop = first;
	} else {
		nr = mmlock_no_retry();
		c->will_drop = nr < 0 ? -1 : !nr;
	}
	trace_filemap_fault_begin(vmf, c->f.lock);
	return 0;
}

/* End a folio lock wait seen as io_schedule() calls, at the fault's next probe. */
static void io_wait_flush(struct mmlock_fault_ctx *c)
{
	if (!c->io_wait || c->io_asleep)
		return;
	trace_filemap_fault_wait_end(c->f.mm, c->f.vma, c->f.address,
				     FILEMAP_FAULT_WAIT_FOLIO_LOCK, c->io_lock,
				     c->io_end - c->io_start, 0);
	c->io_wait = false;
	c->wait_open = false;
}

static int fault_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mmlock_fault_ctx *c = (struct mmlock_fault_ctx *)ri->data;
	unsigned int ret = (unsigned int)regs_return_value(regs);
	bool nowait = c->flags & FAULT_FLAG_RETRY_NOWAIT;
	struct mmlock_task *t;
	bool dropped = c->dropped;
	int reason;

	io_wait_flush(c);
	if (ret & VM_FAULT_RETRY) {
		if (c->killed)
			reason = FILEMAP_FAULT_RETRY_KILLED;
		else if (c->dropped)
			reason = c->retry;
		else if (nowait)
			reason = FILEMAP_FAULT_RETRY_NOWAIT;
		else if (c->first_site >= 0)
			/* it did drop (no NOWAIT): before its first sleep */
			reason = c->first_site;
		else
			reason = FILEMAP_FAULT_RETRY_UNKNOWN;
		dropped = !nowait;
		trace_filemap_fault_retry(c->f.mm, c->f.vma, c->f.address, reason, ret);
	}
	trace_filemap_fault_end(c->f.mm, c->f.vma, c->f.address, ret, dropped);

	if (!mmlock_in_task())
		return 0;
	t = mmlock_task_get(false);
	if (t && t->fault == c) {
		t->fault = NULL;
		mmlock_task_put(t, MMLOCK_R_FAULT);
	}
	return 0;
}

/* The sleeps inside filemap_fault() */

struct wait_data {
	struct mmlock_fault_ctx	*c;
	u64			start;
	int			site;
	int			lock;
};

static int wait_lock_of(struct mmlock_fault_ctx *c, int site)
{
	if (c->first_site < 0)
		c->first_site = site_retry[site];
	if (!c->dropped && c->will_drop == 1) {
		c->dropped = true;
		c->retry = site_retry[site];
	}
	if (c->dropped)
		return FILEMAP_FAULT_LOCK_NONE;
	if (c->will_drop < 0)
		return FILEMAP_FAULT_LOCK_UNKNOWN;
	return c->f.lock;
}

static int wait_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mmlock_krp *k = container_of(get_kretprobe(ri), struct mmlock_krp, rp);
	struct wait_data *w = (struct wait_data *)ri->data;
	struct mmlock_fault_ctx *c;
	int site = k->site;

	if (!fault_tracked(&c))
		return 1;
	if (site == SITE_IO_SCHEDULE) {
		if (c->io_wait) {
			/* the same folio lock wait, asleep once more */
			c->io_asleep = true;
			w->c = c;
			w->site = site;
			return 0;
		}
		if (c->wait_open || !called_by_fault(mmlock_entry_caller(regs)))
			return 1;
		c->io_lock = wait_lock_of(c, site);
		c->io_wait = true;
		c->io_asleep = true;
		c->wait_open = true;
		c->io_start = local_clock();
		w->c = c;
		w->site = site;
		trace_filemap_fault_wait_start(c->f.mm, c->f.vma, c->f.address,
					       site_wait[site], c->io_lock);
		return 0;
	}
	io_wait_flush(c);
	if (c->wait_open)
		return 1;
	if (site == SITE_WAIT_BIT && !called_by_fault(mmlock_entry_caller(regs)))
		return 1;
	w->lock = wait_lock_of(c, site);
	c->wait_open = true;
	w->c = c;
	w->site = site;
	w->start = local_clock();
	trace_filemap_fault_wait_start(c->f.mm, c->f.vma, c->f.address,
				       site_wait[site], w->lock);
	return 0;
}

static int wait_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct wait_data *w = (struct wait_data *)ri->data;
	struct mmlock_fault_ctx *c = w->c;
	long rv = (long)regs_return_value(regs);
	int err = 0;

	if (w->site == SITE_IO_SCHEDULE) {
		/* maybe not the last sleep of this wait: end it at the next probe */
		c->io_asleep = false;
		c->io_end = local_clock();
		return 0;
	}
	switch (w->site) {
	case SITE_FOLIO_LOCK_KILLABLE:
	case SITE_READ_FOLIO:
	case SITE_READ_FOLIO_WAIT:
	case SITE_WAIT_BIT:
		err = (int)rv;
		break;
	}
	trace_filemap_fault_wait_end(c->f.mm, c->f.vma, c->f.address,
				     site_wait[w->site], w->lock,
				     local_clock() - w->start, err);
	c->wait_open = false;
	/* lock_folio_maybe_drop_mmap(): killed without having dropped */
	if ((w->site == SITE_FOLIO_LOCK_KILLABLE || w->site == SITE_WAIT_BIT) &&
	    err && !c->dropped) {
		c->dropped = true;
		c->killed = true;
	}
	return 0;
}

/* lock_vma_under_rcu(): a failed per-VMA read lock */

struct lvr_data {
	struct mm_struct *mm;
	unsigned long	address;
};

static int lvr_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct lvr_data *d = (struct lvr_data *)ri->data;
	struct mmlock_task *t;

	if (!mmlock_on() || !mmlock_in_task())
		return 1;
	d->mm = (struct mm_struct *)regs_get_kernel_argument(regs, 0);
	d->address = regs_get_kernel_argument(regs, 1);
	/* a new user fault: what the last one left for its fallback is stale */
	t = mmlock_task_get(false);
	if (t && (t->roles & MMLOCK_R_FALLBACK))
		mmlock_task_put(t, MMLOCK_R_FALLBACK);
	return 0;
}

static int lvr_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct lvr_data *d = (struct lvr_data *)ri->data;
	struct mmlock_task *t;

	if (regs_return_value(regs))
		return 0;
	/* the kernel does not say why; the VMA may be gone: print neither */
	trace_vma_start_read_fail(d->mm, NULL, d->address, VMA_READ_FAIL_UNKNOWN,
				  get_kretprobe_retaddr(ri));
	t = mmlock_task_get(true);
	if (t) {
		t->roles |= MMLOCK_R_FALLBACK;
		t->fb_kind = MMLOCK_FBK_VMA_FAILED;
		t->fb_address = d->address;
		t->fb_fault = 0;
	}
	return 0;
}

/* handle_mm_fault(): did the per-VMA attempt, or the mmap_lock one, retry? */

static int hmf_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (!mmlock_on() || !mmlock_in_task())
		return 1;
	*(unsigned int *)ri->data = (unsigned int)regs_get_kernel_argument(regs, 2);
	return 0;
}

static int hmf_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned int flags = *(unsigned int *)ri->data;
	unsigned int ret = (unsigned int)regs_return_value(regs);
	struct mmlock_task *t;

	t = mmlock_task_get(ret & VM_FAULT_RETRY);
	if (!t)
		return 0;
	if (!(ret & VM_FAULT_RETRY)) {
		if (t->roles & MMLOCK_R_FALLBACK)
			mmlock_task_put(t, MMLOCK_R_FALLBACK);
		return 0;
	}
	t->roles |= MMLOCK_R_FALLBACK;
	t->fb_kind = (flags & FAULT_FLAG_VMA_LOCK) ? MMLOCK_FBK_RETRY : MMLOCK_FBK_LOOP;
	t->fb_fault = ret;
	return 0;
}

/* lock_mm_and_find_vma(): the fault handler takes the mmap_lock */

static int lmfv_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct mm_struct *mm = (struct mm_struct *)regs_get_kernel_argument(regs, 0);
	unsigned long address = regs_get_kernel_argument(regs, 1);
	struct pt_regs *fregs = (struct pt_regs *)regs_get_kernel_argument(regs, 2);
	struct mmlock_task *t;
	int kind = MMLOCK_FBK_NONE, reason;
	unsigned int fault = 0;

	if (!mmlock_on() || !mmlock_in_task())
		return 0;
	t = mmlock_task_get(false);
	if (t && (t->roles & MMLOCK_R_FALLBACK)) {
		kind = t->fb_kind;
		fault = t->fb_fault;
		if (kind == MMLOCK_FBK_VMA_FAILED && t->fb_address != address)
			kind = MMLOCK_FBK_NONE;
		mmlock_task_put(t, MMLOCK_R_FALLBACK);
	}
	if (kind == MMLOCK_FBK_LOOP)
		return 0;	/* the retry loop of a fault already reported */
	if (fregs && !user_mode(fregs)) {
		reason = FAULT_FALLBACK_KERNEL_MODE;
		fault = 0;
	} else if (kind == MMLOCK_FBK_RETRY) {
		reason = FAULT_FALLBACK_RETRY;
	} else if (kind == MMLOCK_FBK_VMA_FAILED) {
		reason = FAULT_FALLBACK_VMA_LOCK_FAILED;
		fault = 0;
	} else {
		reason = FAULT_FALLBACK_UNKNOWN;
		fault = 0;
	}
	trace_fault_mmap_lock_fallback(mm, address, reason, fault);
	return 0;
}

/* Registration */

static const char *const n_filemap_fault[] = { "filemap_fault", NULL };
static const char *const n_folio_lock_killable[] = { "__folio_lock_killable", NULL };
static const char *const n_folio_lock[] = { "__folio_lock", NULL };
static const char *const n_read_folio[] = {
	"filemap_read_folio", "filemap_read_folio.isra.0",
	"filemap_read_folio.constprop.0", "filemap_read_folio.part.0", NULL
};

static const char *const n_read_folio_wait[] = { "folio_wait_bit_killable", NULL };
static const char *const n_sync_ra[] = { "page_cache_sync_ra", NULL };
static const char *const n_async_ra[] = { "page_cache_async_ra", NULL };
static const char *const n_ra_order[] = { "page_cache_ra_order", NULL };
static const char *const n_wait_bit[] = { "folio_wait_bit_common", NULL };
static const char *const n_io_schedule[] = { "io_schedule", NULL };
static const char *const n_lvr[] = { "lock_vma_under_rcu", NULL };
static const char *const n_hmf[] = { "handle_mm_fault", NULL };

#define KRP(_names, _entry, _ret, _size, _max, _site, _opt)		\
	{ .rp = { .entry_handler = _entry, .handler = _ret,		\
		  .data_size = _size, .maxactive = _max },		\
	  .names = _names, .site = _site, .optional = _opt }

enum { K_FAULT, K_FOLIO_LOCK_KILLABLE, K_FOLIO_LOCK, K_WAIT_BIT, K_READ_FOLIO,
	K_SYNC_RA, K_ASYNC_RA, K_RA_ORDER, K_LVR, K_HMF, K_NR };

static struct mmlock_krp krps[K_NR] = {
	[K_FAULT] = KRP(n_filemap_fault, fault_entry, fault_return,
	    sizeof(struct mmlock_fault_ctx), 512, -1, false),
	[K_FOLIO_LOCK_KILLABLE] = KRP(n_folio_lock_killable, wait_entry, wait_return,
	    sizeof(struct wait_data), 512, SITE_FOLIO_LOCK_KILLABLE, false),
	[K_FOLIO_LOCK] = KRP(n_folio_lock, wait_entry, wait_return,
	    sizeof(struct wait_data), 512, SITE_FOLIO_LOCK, false),
	[K_WAIT_BIT] = KRP(n_wait_bit, wait_entry, wait_return,
	    sizeof(struct wait_data), 512, SITE_WAIT_BIT, true),
	[K_READ_FOLIO] = KRP(n_read_folio, wait_entry, wait_return,
	    sizeof(struct wait_data), 512, SITE_READ_FOLIO, true),
	[K_SYNC_RA] = KRP(n_sync_ra, wait_entry, wait_return,
	    sizeof(struct wait_data), 512, SITE_SYNC_RA, false),
	[K_ASYNC_RA] = KRP(n_async_ra, wait_entry, wait_return,
	    sizeof(struct wait_data), 512, SITE_ASYNC_RA, false),
	[K_RA_ORDER] = KRP(n_ra_order, wait_entry, wait_return,
	    sizeof(struct wait_data), 512, SITE_RA_ORDER, true),
	[K_LVR] = KRP(n_lvr, lvr_entry, lvr_return,
	    sizeof(struct lvr_data), 256, -1, true),
	[K_HMF] = KRP(n_hmf, hmf_entry, hmf_return,
	    sizeof(unsigned int), 512, -1, true),
};

/* used only when folio_wait_bit_common() was inlined too */
static struct mmlock_krp krp_io_schedule =
	KRP(n_io_schedule, wait_entry, wait_return,
	    sizeof(struct wait_data), 1024, SITE_IO_SCHEDULE, true);

/* used only when filemap_read_folio() was inlined */
static struct mmlock_krp krp_read_folio_wait =
	KRP(n_read_folio_wait, wait_entry, wait_return,
	    sizeof(struct wait_data), 512, SITE_READ_FOLIO_WAIT, true);

static struct kprobe kp_lmfv = {
	.symbol_name = "lock_mm_and_find_vma",
	.pre_handler = lmfv_pre,
};

static bool kp_lmfv_on;

static int krp_register(struct mmlock_krp *k)
{
	int i, ret = -ENOENT;

	for (i = 0; k->names[i]; i++) {
		struct kretprobe rp = k->rp;

		/* a failed attempt may have written into the kprobe: start clean */
		memset(&k->rp, 0, sizeof(k->rp));
		k->rp.entry_handler = rp.entry_handler;
		k->rp.handler = rp.handler;
		k->rp.data_size = rp.data_size;
		k->rp.maxactive = rp.maxactive;
		k->rp.kp.symbol_name = k->names[i];
		ret = register_kretprobe(&k->rp);
		if (!ret) {
			k->on = true;
			return 0;
		}
	}
	return ret;
}

static void krp_unregister(struct mmlock_krp *k)
{
	if (!k->on)
		return;
	unregister_kretprobe(&k->rp);
	if (k->rp.nmissed)
		pr_info("mmlock_probe: %s: %d calls missed (maxactive %d)\n",
			k->rp.kp.symbol_name, k->rp.nmissed, k->rp.maxactive);
	k->on = false;
}

/**
 * mmlock_fault_attach() - register the fault side's probes
 *
 * Return: 0, or the error of a probe the module cannot work without
 * (filemap_fault() and the folio lock waits).
 */
int mmlock_fault_attach(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(krps); i++) {
		ret = krp_register(&krps[i]);
		if (ret && !krps[i].optional) {
			pr_err("mmlock_probe: cannot probe %s (%d)\n", krps[i].names[0], ret);
			goto undo;
		}
	}
	if (krps[K_WAIT_BIT].on)
		mmlock_cap("folio_lock=wait_bit");
	else if (!krp_register(&krp_io_schedule))
		mmlock_cap("folio_lock=io_schedule");
	else
		mmlock_cap("folio_lock=call_only");
	if (krps[K_READ_FOLIO].on)
		mmlock_cap("read_folio=call");
	else if (!krp_register(&krp_read_folio_wait))
		mmlock_cap("read_folio=wait_only");
	else
		mmlock_cap("read_folio=none");
	mmlock_cap("read_fail=%s", krps[K_LVR].on ? "reason_unknown" : "none");
	ret = register_kprobe(&kp_lmfv);
	kp_lmfv_on = !ret;
	mmlock_cap("fallback=%s", !kp_lmfv_on ? "none" :
		   krps[K_HMF].on ? "reasons" : "kernel_mode_only");
	return 0;

undo:
	while (i-- > 0)
		krp_unregister(&krps[i]);
	return ret;
}

/**
 * mmlock_fault_detach() - unregister them; no handler runs after this
 */
void mmlock_fault_detach(void)
{
	unsigned int i;

	if (kp_lmfv_on)
		unregister_kprobe(&kp_lmfv);
	kp_lmfv_on = false;
	krp_unregister(&krp_read_folio_wait);
	krp_unregister(&krp_io_schedule);
	for (i = ARRAY_SIZE(krps); i-- > 0; )
		krp_unregister(&krps[i]);
}
