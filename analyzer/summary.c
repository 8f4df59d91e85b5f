// SPDX-License-Identifier: GPL-2.0
/*
 * The summary JSON (analyzer/README.md "Summary JSON").  What the capture did not
 * record is null, never 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "analysis-int.h"
#include "evset.h"
#include "mmlock_events.h"
#include "pair.h"
#include "symbols.h"
#include "util.h"

/* The family of a recorded event (the contract's table says), MMLOCK_FAM_NR for none. */
static enum mmlock_family family_of(const char *sys_name)
{
	/* the module's mmlock_probe:NAME are the contract's events */
	const struct mmlock_event *ev = evset_find(sys_name);

	return ev ? ev->family : MMLOCK_FAM_NR;
}

static json_object *jint(uint64_t v)
{
	return json_object_new_uint64(v);
}

static json_object *jus(uint64_t ns)
{
	return json_object_new_uint64(ns / 1000);
}

/* A double printed with @decimals, without binary noise ("0.63", not 0.6300000000000001). */
static json_object *jdouble(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static json_object *dist(const struct hist *h, int measured)
{
	json_object *o = json_object_new_object();
	static const struct { const char *key; unsigned int p; } pct[] = {
		{ "median", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	size_t i;

	if (!measured) {
		json_object_put(o);
		return NULL;
	}
	add(o, "count", jint(h->count));
	add(o, "min", h->count ? jint(h->min) : NULL);
	for (i = 0; i < ARRAY_SIZE(pct); i++)
		add(o, pct[i].key, h->count ? jint(hist_percentile(h, pct[i].p)) : NULL);
	add(o, "max", h->count ? jint(h->max) : NULL);
	return o;
}

static json_object *reasons(const struct reason_counts *rc, int measured)
{
	json_object *o;
	int i;

	if (!measured)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < rc->nr; i++)
		add(o, rc->c[i].name, jint(rc->c[i].count));
	return o;
}

static json_object *count_or_null(uint64_t v, int measured)
{
	return measured ? jint(v) : NULL;
}

static json_object *us_or_null(uint64_t ns, int measured)
{
	return measured ? jus(ns) : NULL;
}

static json_object *hexstr(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

static json_object *hexnum(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

/*
 * A user address in words, from the capture's maps snapshot of @tgid at
 * @ts_ns: the file and offset, and function and line as far as the file's
 * symbols go; {"error": why} when it cannot be placed.  NULL when the
 * capture has no maps snapshots at all (the summary stays as it was).
 */
static json_object *user_symbol(const struct summary_meta *meta, int tgid, uint64_t ts_ns,
				const char *user_pc)
{
	json_object *o;
	struct symbol_info si;
	const char *snap = NULL;
	char *why = NULL, *end;
	uint64_t addr;

	if (!meta->maps && !meta->maps_error)
		return NULL;
	o = json_object_new_object();
	errno = 0;
	addr = strtoull(user_pc, &end, 16);
	if (meta->maps_error) {
		add(o, "error", json_object_new_string(meta->maps_error));
		return o;
	}
	if (errno || *end || !*user_pc) {
		add(o, "error", json_object_new_string("user_pc is not a hex address"));
		return o;
	}
	if (!addr) {
		add(o, "error", json_object_new_string("no user address (user_pc 0: a kernel "
						       "thread, or no user registers)"));
		return o;
	}
	if (tgid < 0) {
		add(o, "error", json_object_new_string("the TGID is not known (record-tgid off)"));
		return o;
	}
	if (maps_snapshots_resolve(meta->maps, tgid, ts_ns, addr, &si, &snap, &why)) {
		add(o, "error", json_object_new_string(why));
		free(why);
		return o;
	}
	add(o, "file", json_object_new_string(si.path));
	add(o, "file_offset", hexnum(si.file_offset));
	if (si.elf_addr)
		add(o, "elf_address", hexnum(si.elf_addr));
	if (si.function) {
		add(o, "function", json_object_new_string(si.function));
		add(o, "function_offset", hexnum(si.function_offset));
	}
	if (si.source) {
		add(o, "source", json_object_new_string(si.source));
		add(o, "line", json_object_new_int(si.line));
	}
	if (si.missing)
		add(o, "missing", json_object_new_string(si.missing));
	add(o, "snapshot", json_object_new_string(snap));
	symbol_info_release(&si);
	return o;
}

static json_object *side_json(const struct summary_meta *meta, const struct pair_side *s,
			      uint64_t ts_ns)
{
	json_object *o = json_object_new_object();

	add(o, "pid", json_object_new_int(s->pid));
	add(o, "tgid", s->tgid >= 0 ? json_object_new_int(s->tgid) : NULL);
	add(o, "comm", json_object_new_string(s->comm));
	add(o, "prio", s->prio >= 0 ? json_object_new_int(s->prio) : NULL);
	if (s->stack[0])
		add(o, "stack", json_object_new_string(s->stack));
	if (s->user_pc[0]) {
		json_object *us = user_symbol(meta, s->tgid, ts_ns, s->user_pc);

		add(o, "user_pc", json_object_new_string(s->user_pc));
		if (us)
			add(o, "user_symbol", us);
	}
	return o;
}

/* Is the pair's writer on a known contention path, and did it last above 1 ms? */
static json_object *evidence_json(const struct pair_rec *p)
{
	json_object *o = json_object_new_object();
	const char *op;
	int known = pair_known_path(p, &op);

	add(o, "operation", json_object_new_string(op));
	add(o, "known_path", json_object_new_boolean(known));
	add(o, "over_1ms", json_object_new_boolean(p->dur_ns > PAIR_SLOW_NS));
	return o;
}

static int cmp_pairs(const void *a, const void *b)
{
	const struct pair_rec *x = a, *y = b;

	if (x->dur_ns != y->dur_ns)
		return x->dur_ns < y->dur_ns ? 1 : -1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static json_object *top_pairs(struct top_heap *th, const struct summary_meta *meta)
{
	json_object *arr = json_object_new_array();
	unsigned int i;
	char buf[32];

	if (th->n)
		qsort(th->v, th->n, sizeof(*th->v), cmp_pairs);
	for (i = 0; i < th->n; i++) {
		const struct pair_rec *p = &th->v[i];
		json_object *o = json_object_new_object();

		buf[0] = p->type;
		buf[1] = '\0';
		add(o, "type", json_object_new_string(buf));
		add(o, "c", json_object_new_boolean(p->c));
		add(o, "duration_us", jus(p->dur_ns));
		add(o, "start_us", jus(p->start_ns));
		add(o, "blocked", side_json(meta, &p->blocked, p->start_ns));
		add(o, "blocker", side_json(meta, &p->blocker, p->start_ns));
		add(o, "mm", hexstr(p->mm));
		if (p->stock) {
			/* stock events name no VMA: the fault's address is what they tell */
			add(o, "vma", NULL);
			add(o, "vm_start", NULL);
			add(o, "vm_end", NULL);
			snprintf(buf, sizeof(buf), "%lx", p->address);
			add(o, "address", p->has_address ? json_object_new_string(buf) : NULL);
		} else {
			add(o, "vma", hexstr(p->vma));
			snprintf(buf, sizeof(buf), "%lx", p->vm_start);
			add(o, "vm_start", json_object_new_string(buf));
			snprintf(buf, sizeof(buf), "%lx", p->vm_end);
			add(o, "vm_end", json_object_new_string(buf));
		}
		add(o, "caller", json_object_new_string(p->caller[0] ? p->caller : "unknown"));
		if (p->type == 'B')
			add(o, "holding", json_object_new_boolean(p->holding));
		add(o, "evidence", evidence_json(p));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* How many Type-C pairs carry the seed's inversion evidence. */
static json_object *c_evidence(const struct c_evidence *ev, int measured)
{
	json_object *o;

	if (!measured)
		return NULL;
	o = json_object_new_object();
	add(o, "known_path", jint(ev->known));
	add(o, "over_1ms", jint(ev->over_1ms));
	add(o, "known_path_over_1ms", jint(ev->both));
	return o;
}

static int cmp_callers_wait(const void *a, const void *b)
{
	const struct caller_stat *x = a, *y = b;

	if (x->wait_sum_ns != y->wait_sum_ns)
		return x->wait_sum_ns < y->wait_sum_ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int cmp_callers_contention(const void *a, const void *b)
{
	const struct caller_stat *x = a, *y = b;
	uint64_t tx = x->a_ns + x->b_ns, ty = y->a_ns + y->b_ns;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->a_pairs + x->b_pairs != y->a_pairs + y->b_pairs)
		return x->a_pairs + x->b_pairs < y->a_pairs + y->b_pairs ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* A writer caller's user address, where the capture has maps snapshots. */
static void caller_user_pc(json_object *o, const struct caller_stat *c,
			   const struct summary_meta *meta)
{
	json_object *us;

	if (!c->user_pc[0] || (!meta->maps && !meta->maps_error))
		return;
	us = user_symbol(meta, c->upc_tgid, c->upc_ts, c->user_pc);
	add(o, "user_pc", json_object_new_string(c->user_pc));
	add(o, "user_symbol", us);
}

static json_object *writer_callers(struct analysis *an, const struct summary_meta *meta)
{
	json_object *arr = json_object_new_array();
	int i;

	if (an->tally.nr_callers)
		qsort(an->tally.callers, (size_t)an->tally.nr_callers, sizeof(*an->tally.callers),
		      cmp_callers_wait);
	for (i = 0; i < an->tally.nr_callers; i++) {
		const struct caller_stat *c = &an->tally.callers[i];
		json_object *o, *kinds;

		if (!c->count && !c->waits)
			continue;
		o = json_object_new_object();
		add(o, "caller", json_object_new_string(c->name));
		add(o, "count", jint(c->count));
		add(o, "waits", jint(c->waits));
		add(o, "wait_sum_us", jus(c->wait_sum_ns));
		add(o, "wait_max_us", jus(c->wait_max_ns));
		kinds = json_object_new_object();
		add(kinds, "shared", c->flags_seen ? jint(c->shared) : NULL);
		add(kinds, "file_backed", jint(c->file_backed));
		add(kinds, "anonymous", jint(c->anonymous));
		add(o, "vma_kinds", kinds);
		caller_user_pc(o, c, meta);
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *contention_callers(struct analysis *an, const struct summary_meta *meta)
{
	json_object *arr = json_object_new_array();
	int i;

	if (an->tally.nr_callers)
		qsort(an->tally.callers, (size_t)an->tally.nr_callers, sizeof(*an->tally.callers),
		      cmp_callers_contention);
	for (i = 0; i < an->tally.nr_callers; i++) {
		const struct caller_stat *c = &an->tally.callers[i];
		json_object *o;

		if (!c->a_pairs && !c->b_pairs)
			continue;
		o = json_object_new_object();
		add(o, "caller", json_object_new_string(c->name));
		add(o, "type_a_pairs", jint(c->a_pairs));
		add(o, "type_a_us", jus(c->a_ns));
		add(o, "type_b_pairs", jint(c->b_pairs));
		add(o, "type_b_us", jus(c->b_ns));
		add(o, "known_path", json_object_new_boolean(writer_known_path(c->name)));
		caller_user_pc(o, c, meta);
		json_object_array_add(arr, o);
	}
	return arr;
}

struct wait_row {
	const struct pidstat	*ps;
	int			kind;
};

static int cmp_rows_pid(const void *a, const void *b)
{
	const struct wait_row *x = a, *y = b;

	if (x->ps->pid != y->ps->pid)
		return (x->ps->pid > y->ps->pid) - (x->ps->pid < y->ps->pid);
	return x->kind - y->kind;
}

/* The longest waits first (ties: the lower pid), to keep MAX_WAIT_ROWS of them. */
static int cmp_rows_max(const void *a, const void *b)
{
	const struct wait_row *x = a, *y = b;
	uint64_t mx = x->ps->ws[x->kind].max_ns, my = y->ps->ws[y->kind].max_ns;

	if (mx != my)
		return mx < my ? 1 : -1;
	return cmp_rows_pid(a, b);
}

/*
 * Waits per pid and kind, by pid.  Beyond MAX_WAIT_ROWS rows only those with
 * the longest waits are listed and waits_by_pid_omitted says how many were
 * not (with the waits of pids beyond MAX_PIDSTATS, which were only counted).
 */
static json_object *waits_by_pid(struct analysis *an, uint64_t *omitted)
{
	static const char *const kinds[WAIT_NR] = { "fault", "vma", "mmap" };
	json_object *arr = json_object_new_array();
	struct wait_row *rows;
	size_t i, n = 0;
	int k;

	rows = xcalloc(an->tally.pidstats.nr * WAIT_NR + 1, sizeof(*rows));
	for (i = 0; i < an->tally.pidstats.cap; i++) {
		const struct pidstat *ps = an->tally.pidstats.e[i].item;

		for (k = 0; ps && k < WAIT_NR; k++)
			if (ps->ws[k].count)
				rows[n++] = (struct wait_row){ ps, k };
	}
	*omitted = an->tally.pidstat_omitted;
	if (n > MAX_WAIT_ROWS) {
		qsort(rows, n, sizeof(*rows), cmp_rows_max);
		*omitted += n - MAX_WAIT_ROWS;
		n = MAX_WAIT_ROWS;
	}
	qsort(rows, n, sizeof(*rows), cmp_rows_pid);
	for (i = 0; i < n; i++) {
		const struct pidstat *ps = rows[i].ps;
		const struct waitstat *w = &ps->ws[rows[i].kind];
		json_object *o = json_object_new_object();

		add(o, "pid", json_object_new_int(ps->pid));
		add(o, "tgid", ps->tgid >= 0 ? json_object_new_int(ps->tgid) : NULL);
		add(o, "comm", json_object_new_string(ps->comm));
		add(o, "kind", json_object_new_string(kinds[rows[i].kind]));
		add(o, "count", jint(w->count));
		add(o, "mean_us", jint(w->sum_ns / w->count / 1000));
		add(o, "max_us", jus(w->max_ns));
		add(o, "over_1ms", jint(w->over_1ms));
		add(o, "over_10ms", jint(w->over_10ms));
		json_object_array_add(arr, o);
	}
	free(rows);
	return arr;
}

static json_object *anomalies(struct analysis *an)
{
	json_object *o = json_object_new_object();
	char key[64];
	int s, a;

	for (s = 0; s < SLOT_NR; s++) {
		for (a = 0; a < SA_NR; a++) {
			if (!an->anom.slot[s][a])
				continue;
			snprintf(key, sizeof(key), "%s_%s", slot_names[s], slot_anomaly_names[a]);
			add(o, key, jint(an->anom.slot[s][a]));
		}
	}
	if (an->anom.fault_wait_outside)
		add(o, "fault_wait_outside_fault", jint(an->anom.fault_wait_outside));
	if (an->anom.retry_outside)
		add(o, "retry_outside_fault", jint(an->anom.retry_outside));
	if (an->anom.truncated)
		add(o, "truncated_by_lost_events", jint(an->anom.truncated));
	if (an->anom.backwards)
		add(o, "time_went_backwards", jint(an->anom.backwards));
	if (an->raw.malformed)
		add(o, "malformed_lines", jint(an->raw.malformed));
	return o;
}

static int any_custom(const struct analysis *an)
{
	int i;

	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++)
		if (an->raw.ev_count[i])
			return 1;
	return 0;
}

static int any_stock(const struct analysis *an)
{
	return an->raw.ev_count[MMLOCK_EV_MMAP_LOCK_START_LOCKING] ||
	       an->raw.ev_count[MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED] ||
	       an->raw.ev_count[MMLOCK_EV_MMAP_LOCK_RELEASED] ||
	       an->raw.ev_count[MMLOCK_EV_MM_FILEMAP_FAULT];
}

static json_object *verdict(const struct analysis *an, int a_ok, int b_ok, int c_ok,
			    uint64_t threshold_us, int stock_mode, int sb_ok)
{
	json_object *o = json_object_new_object();
	const char *code, *action;
	char *text;
	double mean_retry = 0, mean_wait = 0;

	if (an->ct.b_faults)
		mean_retry = (double)an->ct.b_retry_ns / 1000.0 / (double)an->ct.b_faults;
	if (an->dist.fault_wait.count)
		mean_wait = (double)an->dist.fault_wait.sum / (double)an->dist.fault_wait.count;

	if (stock_mode) {
		/*
		 * The decision tree stops at its first rule, which needs Type-A
		 * (and Type-C, which needs A): not in stock events.
		 */
		code = "inconclusive";
		if (sb_ok)
			text = xasprintf("Type-A is not measurable from stock events (no VMA writer "
					 "events); Type-B pairs %llu (%llu us)",
					 (unsigned long long)an->ct.sb_count,
					 (unsigned long long)(an->ct.sb_ns / 1000));
		else
			text = xasprintf("Type-A is not measurable from stock events (no VMA writer "
					 "events)");
		action = "load mmlock_probe.ko (tracepoints/module/README.md) or use a kernel "
			 "with the mmlock patches";
	} else if (!a_ok || !c_ok) {
		code = "inconclusive";
		text = xasprintf("the capture did not record the events Type-A/C need "
				 "(filemap_fault_* and vma_start_write_*): counts are null");
		action = "record with a kernel carrying the mmlock patches";
	} else if (an->ct.a_count == 0 && an->ct.c_count == 0) {
		code = "no_inversion_observed";
		text = xasprintf("no Type-A and no Type-C pair (Type-B pairs: %llu)",
				 (unsigned long long)an->ct.b_count);
		action = "widen the workload coverage";
	} else if (an->ct.c_count > 0 && an->ct.c_ns / 1000 > threshold_us) {
		code = "inversion_confirmed";
		text = xasprintf("%llu Type-C pairs, score %llu us > threshold %llu us",
				 (unsigned long long)an->ct.c_count,
				 (unsigned long long)(an->ct.c_ns / 1000),
				 (unsigned long long)threshold_us);
		action = "stop the pure rip-out; push Option 1 (retry under the per-VMA lock)";
	} else if (an->ct.a_count > 0 && an->ct.c_count == 0) {
		code = "contention_without_inversion";
		text = xasprintf("%llu Type-A pairs (%llu us), no Type-C pair",
				 (unsigned long long)an->ct.a_count,
				 (unsigned long long)(an->ct.a_ns / 1000));
		action = "quantify the cost of the contention";
	} else if (b_ok && an->ct.b_count > 0 && an->dist.fault_wait.count &&
		   mean_retry > 2 * mean_wait) {
		/* with no fault wait the mean is not measured (null), so this step cannot hold */
		code = "rip_out_benefit_clear";
		text = xasprintf("mean retry-to-mmap_lock %.1f us per Type-B fault > 2 x mean "
				 "fault wait %.1f us", mean_retry, mean_wait);
		action = "the retry path costs more than the I/O wait: the rip-out pays off";
	} else {
		code = "inconclusive";
		text = xasprintf("Type-C score %llu us <= threshold %llu us (%llu pairs); "
				 "Type-B pairs %llu, mean retry-to-mmap_lock %.1f us vs mean "
				 "fault wait %.1f us",
				 (unsigned long long)(an->ct.c_ns / 1000),
				 (unsigned long long)threshold_us,
				 (unsigned long long)an->ct.c_count,
				 (unsigned long long)an->ct.b_count, mean_retry, mean_wait);
		action = "run longer or widen the workload to decide";
	}
	add(o, "code", json_object_new_string(code));
	add(o, "text", json_object_new_string(text));
	add(o, "action", json_object_new_string(action));
	add(o, "threshold_us", jint(threshold_us));
	free(text);
	return o;
}

/*
 * Stock mode counts fault calls with filemap:mm_filemap_fault, which Linux
 * 6.1 (android14-6.1) and android15-6.6 do not have.  Recorded: when
 * trace.status lists it, else (no status) when the input holds one; a stock
 * capture without any cannot tell "no fault" from "no event", so the count
 * is not measured.
 */
static int mm_filemap_fault_recorded(const struct analysis *an, const struct summary_meta *meta)
{
	int i;

	if (!meta->events)
		return an->raw.ev_count[MMLOCK_EV_MM_FILEMAP_FAULT] > 0;
	for (i = 0; i < meta->nr_events; i++) {
		const struct mmlock_event *ev = mmlock_event_find(meta->events[i]);

		if (ev && ev->id == MMLOCK_EV_MM_FILEMAP_FAULT)
			return 1;
	}
	return 0;
}

/* ---- the stock-event mode ---------------------------------------------- */

/*
 * Was a stock addition (evset.h) recorded: trace.status lists it, or, with
 * no status, the input holds one (a capture without any cannot tell "none
 * happened" from "not recorded": lock:contention_* and page_fault_user fire
 * constantly where they are enabled).
 */
static int extra_recorded(const struct analysis *an, const struct summary_meta *meta, int x)
{
	int i;

	if (!meta->events)
		return an->raw.x_count[x] > 0;
	for (i = 0; i < meta->nr_events; i++)
		if (evset_extra_find(meta->events[i]) == x)
			return 1;
	return 0;
}

static int lock_contention_recorded(const struct analysis *an, const struct summary_meta *meta)
{
	if (!meta->events)
		return an->raw.x_count[EVSET_X_CONTENTION_BEGIN] +
		       an->raw.x_count[EVSET_X_CONTENTION_END] > 0;
	return extra_recorded(an, meta, EVSET_X_CONTENTION_BEGIN) &&
	       extra_recorded(an, meta, EVSET_X_CONTENTION_END);
}

static int cmp_swriters(const void *a, const void *b)
{
	const struct swriter *x = *(struct swriter *const *)a, *y = *(struct swriter *const *)b;

	if (x->waited_ns != y->waited_ns)
		return x->waited_ns < y->waited_ns ? 1 : -1;
	if (x->holds != y->holds)
		return x->holds < y->holds ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->caller, y->caller);
}

static int cmp_scallers(const void *a, const void *b)
{
	const struct scaller *x = *(struct scaller *const *)a, *y = *(struct scaller *const *)b;

	if (x->waited_ns != y->waited_ns)
		return x->waited_ns < y->waited_ns ? 1 : -1;
	if (x->holds != y->holds)
		return x->holds < y->holds ? 1 : -1;
	return strcmp(x->caller, y->caller);
}

static int cmp_scallers_b(const void *a, const void *b)
{
	const struct scaller *x = *(struct scaller *const *)a, *y = *(struct scaller *const *)b;

	if (x->b_ns != y->b_ns)
		return x->b_ns < y->b_ns ? 1 : -1;
	if (x->b_pairs != y->b_pairs)
		return x->b_pairs < y->b_pairs ? 1 : -1;
	return strcmp(x->caller, y->caller);
}

static json_object *caller_or_null(const char *caller)
{
	return caller[0] ? json_object_new_string(caller) : NULL;
}

#define TOP_WRITERS	10

/* mmap_lock.writers: the ten writers (pid, caller) whose holds were waited for longest. */
static json_object *stock_writers(struct analysis *an)
{
	json_object *arr = json_object_new_array();
	int i, n = 0;

	if (an->tally.nr_swriters)
		qsort(an->tally.swriter_v, (size_t)an->tally.nr_swriters,
		      sizeof(*an->tally.swriter_v), cmp_swriters);
	for (i = 0; i < an->tally.nr_swriters && n < TOP_WRITERS; i++) {
		const struct swriter *w = an->tally.swriter_v[i];
		json_object *o;

		if (!w->holds && !w->waiters)
			continue;
		o = json_object_new_object();
		add(o, "pid", json_object_new_int(w->pid));
		add(o, "tgid", w->tgid >= 0 ? json_object_new_int(w->tgid) : NULL);
		add(o, "comm", json_object_new_string(w->comm));
		add(o, "caller", caller_or_null(w->caller));
		add(o, "prio", w->prio >= 0 ? json_object_new_int(w->prio) : NULL);
		add(o, "write_holds", jint(w->holds));
		add(o, "hold_us_sum", jus(w->hold_ns));
		add(o, "hold_us_max", jus(w->hold_max_ns));
		add(o, "queued_us_sum", jus(w->queued_ns));
		add(o, "waiters", jint(w->waiters));
		add(o, "waiter_pids", jint(w->waiter_pids));
		add(o, "waited_us_sum", jus(w->waited_ns));
		add(o, "max_queue", jint(w->max_queue));
		json_object_array_add(arr, o);
		n++;
	}
	return arr;
}

static json_object *stock_writer_callers(struct analysis *an)
{
	json_object *arr = json_object_new_array();
	int i;

	if (an->tally.nr_scallers)
		qsort(an->tally.scaller_v, (size_t)an->tally.nr_scallers,
		      sizeof(*an->tally.scaller_v), cmp_scallers);
	for (i = 0; i < an->tally.nr_scallers; i++) {
		const struct scaller *c = an->tally.scaller_v[i];
		json_object *o;

		if (!c->holds && !c->waiters)
			continue;
		o = json_object_new_object();
		add(o, "caller", caller_or_null(c->caller));
		add(o, "write_holds", jint(c->holds));
		add(o, "waited_us_sum", jus(c->waited_ns));
		add(o, "waiters", jint(c->waiters));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* contention.by_caller in stock mode: Type-B pairs by the writer's caller. */
static json_object *stock_contention_callers(struct analysis *an)
{
	json_object *arr = json_object_new_array();
	int i;

	if (an->tally.nr_scallers)
		qsort(an->tally.scaller_v, (size_t)an->tally.nr_scallers,
		      sizeof(*an->tally.scaller_v), cmp_scallers_b);
	for (i = 0; i < an->tally.nr_scallers; i++) {
		const struct scaller *c = an->tally.scaller_v[i];
		json_object *o;

		if (!c->b_pairs)
			continue;
		o = json_object_new_object();
		add(o, "caller", json_object_new_string(c->caller[0] ? c->caller : "unknown"));
		add(o, "type_a_pairs", NULL);
		add(o, "type_a_us", NULL);
		add(o, "type_b_pairs", jint(c->b_pairs));
		add(o, "type_b_us", jus(c->b_ns));
		add(o, "known_path", json_object_new_boolean(writer_known_path(c->caller)));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* The stock-mode keys of mmap_lock (analyzer/README.md "Stock-event mode"). */
static void stock_mmap_lock(struct analysis *an, json_object *o, int lc)
{
	json_object *c = NULL;

	if (lc) {
		c = json_object_new_object();
		add(c, "count", jint(an->pc.cw_count[0] + an->pc.cw_count[1]));
		add(c, "read", jint(an->pc.cw_count[0]));
		add(c, "write", jint(an->pc.cw_count[1]));
		add(c, "wait_us_sum", jus(an->pc.cw_ns));
		add(c, "wait_durations_us", dist(&an->dist.cwait, 1));
	}
	add(o, "contended", c);
	add(o, "other_rwsem_contentions", count_or_null(an->pc.other_rwsem, lc));
	add(o, "writers", lc ? stock_writers(an) : NULL);
	if (lc && an->tally.swriters_omitted)
		add(o, "writers_omitted", jint(an->tally.swriters_omitted));
	add(o, "by_writer_caller", lc ? stock_writer_callers(an) : NULL);
	add(o, "unattributed_waits", count_or_null(an->ct.unattr, lc));
	add(o, "unattributed_us_sum", us_or_null(an->ct.unattr_ns, lc));
}

/* capture.stock_events_missing: the stock set's events this capture lacks. */
static json_object *stock_missing(const struct analysis *an, const struct summary_meta *meta,
				  const int *rec, int mf_rec)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = MMLOCK_EV_NR_CUSTOM + 1; i < MMLOCK_EV_NR; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];
		int r = ev->id == MMLOCK_EV_MM_FILEMAP_FAULT ? mf_rec :
			ev->id == MMLOCK_EV_SCHED_SWITCH ? rec[MMLOCK_FAM_SCHED] : rec[MMLOCK_FAM_MMAP];
		char *full;

		if (r || !ev->name)
			continue;
		full = xasprintf("%s:%s", ev->system, ev->name);
		json_object_array_add(a, json_object_new_string(full));
		free(full);
	}
	for (i = 0; i < EVSET_X_NR; i++) {
		char *full;

		if (extra_recorded(an, meta, i))
			continue;
		full = xasprintf("%s:%s", evset_extras[i].system, evset_extras[i].name);
		json_object_array_add(a, json_object_new_string(full));
		free(full);
	}
	return a;
}

/*
 * Where the events came from: what trace.status says, else what the input
 * shows (custom events are the kernel's unless a status says module).
 */
static json_object *event_source(const struct analysis *an, const struct summary_meta *meta,
				 int stock_mode)
{
	const char *src = meta->event_source;

	if (!src && stock_mode)
		src = "stock";
	else if (!src && (any_custom(an) || (meta->event_set && !strcmp(meta->event_set, "custom"))))
		src = "kernel";
	return src ? json_object_new_string(src) : NULL;
}

/* What stock Type-B stands on, or what it lacks: the events named from their tables. */
static json_object *stock_type_b_note(int ok)
{
	const struct evset_extra *pfu = &evset_extras[EVSET_X_PAGE_FAULT_USER];
	const struct mmlock_event *mf = &mmlock_events[MMLOCK_EV_MM_FILEMAP_FAULT];
	char *s = ok ? xasprintf("type_b: retry recognised from %s + %s + start_locking",
				 pfu->name, mf->name) :
		       xasprintf("type_b: needs lock:contention_*, %s:%s and %s:%s",
				 pfu->system, pfu->name, mf->system, mf->name);
	json_object *o = json_object_new_string(s);

	free(s);
	return o;
}

json_object *analysis_summary(struct analysis *an, const struct summary_meta *meta)
{
	json_object *root = json_object_new_object(), *o, *missing;
	int rec[MMLOCK_FAM_NR], stock_mode, i, a_ok, b_ok, c_ok;
	int writers_all, read_fail_seen, read_fail_reasons, fallback_seen;
	int lc_rec, mf_rec, retry_ok, sb_ok, sc_ok;
	uint64_t first_ts = 0, last_ts = an->now;
	const char *event_set;

	/* Which families did the capture record? */
	stock_mode = !any_custom(an) && any_stock(an);
	if (meta->events) {
		for (i = 0; i < MMLOCK_FAM_NR; i++)
			rec[i] = 0;
		for (i = 0; i < meta->nr_events; i++) {
			enum mmlock_family f = family_of(meta->events[i]);

			if (f < MMLOCK_FAM_NR)
				rec[f] = 1;
		}
		if ((meta->event_set && !strcmp(meta->event_set, "stock")) ||
		    (meta->event_source && !strcmp(meta->event_source, "stock")))
			stock_mode = 1;
	} else {
		for (i = 0; i < MMLOCK_FAM_NR; i++)
			rec[i] = !stock_mode || i == MMLOCK_FAM_MMAP || i == MMLOCK_FAM_SCHED;
	}
	if (meta->event_set)
		event_set = meta->event_set;
	else if (any_custom(an))
		event_set = any_stock(an) ? "mixed" : "custom";
	else
		event_set = stock_mode ? "stock" : "none";

	/*
	 * What mmlock_probe.ko says it cannot see on this kernel (its caps
	 * line): on rwsem VMA locks only writers that waited are seen, so
	 * their number is not measured (their waits, callers and Type-A are);
	 * a read failure's reason may be unknown to it.
	 */
	writers_all = !evset_caps_has(meta->module_caps, "writer_begin", "contended");
	read_fail_seen = !evset_caps_has(meta->module_caps, "read_fail", "none");
	read_fail_reasons = read_fail_seen &&
		!evset_caps_has(meta->module_caps, "read_fail", "reason_unknown") &&
		!evset_caps_has(meta->module_caps, "read_fail_reason", "unknown");
	fallback_seen = !evset_caps_has(meta->module_caps, "fallback", "none");

	/*
	 * Stock mode: contended waits and writers need lock:contention_*
	 * (Linux 5.19+); a retried fault needs exceptions:page_fault_user (x86)
	 * and filemap:mm_filemap_fault (not on 6.1); Type-B all three; Type-C
	 * from B the priorities of sched_switch.
	 */
	mf_rec = mm_filemap_fault_recorded(an, meta);
	lc_rec = stock_mode && lock_contention_recorded(an, meta);
	retry_ok = stock_mode && mf_rec && extra_recorded(an, meta, EVSET_X_PAGE_FAULT_USER);
	sb_ok = retry_ok && lc_rec;
	sc_ok = sb_ok && rec[MMLOCK_FAM_SCHED];

	a_ok = rec[MMLOCK_FAM_FILEMAP] && rec[MMLOCK_FAM_VMA_WRITER] && !stock_mode;
	b_ok = rec[MMLOCK_FAM_FILEMAP] && rec[MMLOCK_FAM_MMAP] && !stock_mode;
	c_ok = a_ok && b_ok;

	add(root, "schema_version", json_object_new_int(1));
	add(root, "workload", meta->workload ? json_object_new_string(meta->workload) : NULL);
	add(root, "kernel", meta->kernel ? json_object_new_string(meta->kernel) : NULL);
	o = json_object_new_object();
	add(o, mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].name,
	    meta->no_retry >= 0 ? json_object_new_int(meta->no_retry) : NULL);
	add(o, mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK].name,
	    meta->retry_vma_lock >= 0 ? json_object_new_int(meta->retry_vma_lock) : NULL);
	add(root, "policy", o);

	/* capture */
	o = json_object_new_object();
	add(o, "events", jint(an->raw.events));
	add(o, "lost_events", jint(meta->status_lost >= 0 &&
				   (uint64_t)meta->status_lost > an->raw.lost_markers ?
				   (uint64_t)meta->status_lost : an->raw.lost_markers));
	add(o, "chunks", jint(meta->chunks));
	if (an->first_ts_set)
		first_ts = an->first_ts;
	add(o, "duration_s", jdouble((double)(last_ts - first_ts) / 1e9, 6));
	add(o, "clock", meta->clock ? json_object_new_string(meta->clock) : NULL);
	add(o, "filter", meta->filter ? json_object_new_string(meta->filter) : NULL);
	missing = json_object_new_array();
	for (i = 0; i < MMLOCK_FAM_NR; i++)
		if (!rec[i] || (stock_mode && i != MMLOCK_FAM_MMAP && i != MMLOCK_FAM_SCHED))
			json_object_array_add(missing, json_object_new_string(mmlock_family_names[i]));
	add(o, "event_families_missing", missing);
	add(o, "event_set", json_object_new_string(event_set));
	add(o, "event_source", event_source(an, meta, stock_mode));
	add(o, "module_caps", meta->module_caps ? json_object_new_string(meta->module_caps) : NULL);
	add(o, "stock_events_missing", stock_mode ? stock_missing(an, meta, rec, mf_rec) : NULL);
	add(o, "stack_traces", jint(an->raw.stack_traces));
	add(o, "other_events", jint(an->raw.other_events));
	add(o, "truncated_inputs", jint(meta->truncated_inputs));
	add(root, "capture", o);

	/* filemap_fault */
	{
		int m = rec[MMLOCK_FAM_FILEMAP] && !stock_mode;
		uint64_t total = stock_mode ? an->raw.ev_count[MMLOCK_EV_MM_FILEMAP_FAULT] :
			an->raw.ev_count[MMLOCK_EV_FILEMAP_FAULT_BEGIN];
		uint64_t retries = an->raw.ev_count[MMLOCK_EV_FILEMAP_FAULT_RETRY];
		json_object *wl;

		if (stock_mode)
			retries = an->pc.sf_retries;	/* retried faults (S2.6) */
		o = json_object_new_object();
		add(o, "total_count", count_or_null(total, m || (stock_mode && mf_rec)));
		add(o, "retry_count", count_or_null(retries, m || retry_ok));
		add(o, "retry_rate_pct", (m || retry_ok) && total ?
		    jdouble(100.0 * (double)retries / (double)total, 2) : NULL);
		if (stock_mode)
			add(o, "retry_io_durations_us", dist(&an->dist.retry_io, retry_ok));
		add(o, "wait_durations_us", dist(&an->dist.fault_wait, m));
		add(o, "retry_reasons", reasons(&an->tally.retry_reasons, m));
		if (m) {
			wl = json_object_new_object();
			for (i = 0; i < MMLOCK_FL_NR; i++)
				if (strcmp(mmlock_words_fault_lock[i], "unknown"))
					add(wl, mmlock_words_fault_lock[i],
					    jint(an->pc.waits_by_lock[i]));
			/* only where the trace printed it: older summaries stay the same */
			if (an->pc.waits_lock_unknown)
				add(wl, "unknown", jint(an->pc.waits_lock_unknown));
		} else {
			wl = NULL;
		}
		add(o, "waits_by_lock", wl);
		add(o, "major_count", count_or_null(an->pc.major_count, m));
		add(root, "filemap_fault", o);
	}

	/* vma_writer */
	{
		int m = rec[MMLOCK_FAM_VMA_WRITER] && !stock_mode;

		o = json_object_new_object();
		add(o, "total_count",
		    count_or_null(an->raw.ev_count[MMLOCK_EV_VMA_START_WRITE_BEGIN],
				  m && writers_all));
		add(o, "wait_durations_us", dist(&an->dist.vma_wait, m));
		add(o, "by_caller", m ? writer_callers(an, meta) : NULL);
		/* counts of every writer, like total_count */
		add(o, "by_syscall", reasons(&an->tally.by_syscall, m && writers_all));
		add(o, "file_backed", count_or_null(an->pc.file_backed, m && writers_all));
		add(o, "anonymous", count_or_null(an->pc.anonymous, m && writers_all));
		add(root, "vma_writer", o);
	}

	/* mmap_lock: our events, else the stock ones */
	{
		int m = rec[MMLOCK_FAM_MMAP];
		int use_stock = stock_mode || (!an->raw.custom_mmap_seen && any_stock(an));

		o = json_object_new_object();
		add(o, "wait_durations_us",
		    dist(use_stock ? &an->dist.stock_wait : &an->dist.mmap_wait, m));
		add(o, "hold_durations_us",
		    dist(use_stock ? &an->dist.stock_hold : &an->dist.mmap_hold, m));
		add(o, "write_hold_durations_us",
		    dist(use_stock ? &an->dist.stock_write_hold : &an->dist.mmap_write_hold, m));
		add(o, "wait_count_read", count_or_null(use_stock ? an->pc.stock_wait_count[0] :
								    an->pc.wait_count[0], m));
		add(o, "wait_count_write", count_or_null(use_stock ? an->pc.stock_wait_count[1] :
								     an->pc.wait_count[1], m));
		if (use_stock) {
			add(o, "stock_trylocks", count_or_null(an->pc.stock_trylocks, m));
			add(o, "stock_downgrades", count_or_null(an->pc.stock_downgrades, m));
		}
		add(o, "source", m ? json_object_new_string(use_stock ?
			"stock (waits include uncontended acquisitions)" : "custom") : NULL);
		if (stock_mode)
			stock_mmap_lock(an, o, m && lc_rec);
		add(root, "mmap_lock", o);
	}

	{
		int m = rec[MMLOCK_FAM_READ_FAIL] && !stock_mode && read_fail_seen;

		o = json_object_new_object();
		add(o, "total_count",
		    count_or_null(an->raw.ev_count[MMLOCK_EV_VMA_START_READ_FAIL], m));
		add(o, "reasons", reasons(&an->tally.read_fail, m && read_fail_reasons));
		add(root, "vma_read_fail", o);
		m = rec[MMLOCK_FAM_FALLBACK] && !stock_mode && fallback_seen;
		o = json_object_new_object();
		add(o, "total_count",
		    count_or_null(an->raw.ev_count[MMLOCK_EV_FAULT_MMAP_LOCK_FALLBACK], m));
		add(o, "reasons", reasons(&an->tally.fallback, m));
		add(o, "after_filemap_retry",
		    reasons(&an->tally.fallback_after_retry, m && rec[MMLOCK_FAM_FILEMAP]));
		add(root, "fallback", o);
	}

	/* contention */
	o = json_object_new_object();
	add(o, "type_a_count", count_or_null(an->ct.a_count, a_ok));
	add(o, "type_a_duration_sum_us", us_or_null(an->ct.a_ns, a_ok));
	add(o, "type_a_faults", count_or_null(an->ct.a_faults, a_ok));
	add(o, "type_a_writers", count_or_null(an->ct.a_writers, a_ok));
	if (stock_mode) {
		json_object *notes = json_object_new_array();

		add(o, "type_b_count", count_or_null(an->ct.sb_count, sb_ok));
		add(o, "type_b_retry_to_mmap_lock_sum_us", us_or_null(an->ct.sb_retry_ns, sb_ok));
		add(o, "type_b_duration_sum_us", us_or_null(an->ct.sb_ns, sb_ok));
		add(o, "type_b_faults", count_or_null(an->ct.sb_faults, sb_ok));
		add(o, "type_b_writers", count_or_null(an->ct.sb_writers, sb_ok));
		add(o, "type_b_writers_holding", count_or_null(an->ct.sb_holding, sb_ok));
		add(o, "type_b_writers_queued", count_or_null(an->ct.sb_queued, sb_ok));
		add(o, "type_c_count", NULL);
		add(o, "type_c_score_us", NULL);
		add(o, "type_c_from_a", NULL);
		add(o, "type_c_from_b", count_or_null(an->ct.sc_from_b, sc_ok));
		add(o, "type_c_prio_unknown", count_or_null(an->ct.sc_prio_unknown, sc_ok));
		add(o, "threshold_us", jint(an->opts.threshold_us));
		add(o, "type_c_evidence", c_evidence(&an->ct.stop.ev, sc_ok));
		add(o, "top_pairs", top_pairs(&an->ct.stop, meta));
		add(o, "by_caller", stock_contention_callers(an));
		json_object_array_add(notes, json_object_new_string(
			"type_a: a VMA writer's wait is not in stock events"));
		json_object_array_add(notes, stock_type_b_note(sb_ok));
		add(o, "notes", notes);
	} else {
		add(o, "type_b_count", count_or_null(an->ct.b_count, b_ok));
		add(o, "type_b_retry_to_mmap_lock_sum_us", us_or_null(an->ct.b_retry_ns, b_ok));
		add(o, "type_b_duration_sum_us", us_or_null(an->ct.b_ns, b_ok));
		add(o, "type_b_faults", count_or_null(an->ct.b_faults, b_ok));
		add(o, "type_b_writers", count_or_null(an->ct.b_writers, b_ok));
		add(o, "type_b_writers_holding", count_or_null(an->ct.b_holding, b_ok));
		add(o, "type_b_writers_queued", count_or_null(an->ct.b_queued, b_ok));
		add(o, "type_c_count", count_or_null(an->ct.c_count, c_ok));
		add(o, "type_c_score_us", us_or_null(an->ct.c_ns, c_ok));
		add(o, "type_c_from_a", count_or_null(an->ct.c_from_a, c_ok));
		add(o, "type_c_from_b", count_or_null(an->ct.c_from_b, c_ok));
		add(o, "type_c_prio_unknown", count_or_null(an->ct.c_prio_unknown, c_ok));
		add(o, "threshold_us", jint(an->opts.threshold_us));
		add(o, "type_c_evidence", c_evidence(&an->ct.top.ev, c_ok));
		add(o, "top_pairs", top_pairs(&an->ct.top, meta));
		add(o, "by_caller", contention_callers(an, meta));
	}
	add(root, "contention", o);

	{
		uint64_t omitted;

		add(root, "waits_by_pid", waits_by_pid(an, &omitted));
		if (omitted)
			add(root, "waits_by_pid_omitted", jint(omitted));
	}
	add(root, "lifecycle", lifecycle_json(an->lc));
	add(root, "refault_candidates", lifecycle_refaults_json(an->lc));
	add(root, "anomalies", anomalies(an));
	add(root, "input_errors", meta->input_errors ? json_object_get(meta->input_errors) :
						     json_object_new_array());
	add(root, "verdict", verdict(an, a_ok, b_ok, c_ok, an->opts.threshold_us, stock_mode, sb_ok));
	return root;
}
