// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of an experiment run that do not depend on where it runs: the
 * fault policies, folding a workload's own report into its summary, and the
 * table of verdicts with faults per MiB read beside stock's.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "jsonout.h"
#include "outfile.h"
#include "run.h"
#include "util.h"
#include "analyzer/words.h"

const struct run_policy run_policies[RUN_NR_POLICIES] = {
#define RUN_POLICY(id, name, nr, rv) [MMLOCK_POLICY_##id] = { name, nr, rv },
	MMLOCK_POLICIES(RUN_POLICY)
#undef RUN_POLICY
};

/**
 * run_policy_value - what a policy sets a fault-policy sysctl to
 * @p: the policy
 * @id: the sysctl (mmlock_sysctls[])
 *
 * Returns 0 or 1.
 */
int run_policy_value(const struct run_policy *p, enum mmlock_sysctl_id id)
{
	return id == MMLOCK_SYSCTL_NO_RETRY ? p->no_retry : p->retry_vma_lock;
}

/**
 * run_policy_mask_parse - the policies named in a comma-separated @list
 * @list: e.g. "stock,no-retry"
 * @mask: bit i set for run_policies[i]
 *
 * Returns 0, or -1 when a word names no policy (then *@mask is unchanged).
 */
int run_policy_mask_parse(const char *list, int *mask)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int m = 0, ret = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t p;

		for (p = 0; p < RUN_NR_POLICIES; p++)
			if (!strcmp(tok, run_policies[p].name))
				break;
		if (p == RUN_NR_POLICIES) {
			ret = -1;
			break;
		}
		m |= 1 << p;
	}
	free(copy);
	if (!ret && m)
		*mask = m;
	return m ? ret : -1;
}

/**
 * run_argv_push - append a copy of @s to @a
 * @a: the vector (zeroed to start)
 * @s: the argument
 */
void run_argv_push(struct run_argv *a, const char *s)
{
	a->argv = xrealloc(a->argv, (size_t)(a->argc + 2) * sizeof(*a->argv));
	a->argv[a->argc++] = xstrdup(s);
	a->argv[a->argc] = NULL;
}

/**
 * run_argv_free - free @a's arguments and empty it
 * @a: the vector
 */
void run_argv_free(struct run_argv *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	a->argv = NULL;
	a->argc = 0;
}

/**
 * run_argv_workload - append the command line of one workload run
 * @a: the vector
 * @self: the mmlock binary (here, or its path on the device)
 * @wl: the workload
 * @duration: its --duration
 * @dir: where its files go (--dir)
 * @report: where its JSON report goes (--report)
 * @args: "WORKLOAD:OPTIONS" strings (-a); those of @wl are split on blanks
 * @nr_args: how many
 */
void run_argv_workload(struct run_argv *a, const char *self, const char *wl,
		       const char *duration, const char *dir, const char *report,
		       char *const *args, int nr_args)
{
	const char *const words[] = { self, "workload", wl, "-q", "-d", duration, "-D", dir,
				      "--report", report };
	size_t n = strlen(wl);

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		run_argv_push(a, words[i]);
	for (int i = 0; i < nr_args; i++) {
		char *copy, *tok, *save = NULL;

		if (strncmp(args[i], wl, n) || args[i][n] != ':')
			continue;
		copy = xstrdup(args[i] + n + 1);
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			run_argv_push(a, tok);
		free(copy);
	}
}

/* Copy @key of @from into @row when present. */
static void row_copy(json_object *row, json_object *from, const char *key)
{
	json_object *v;

	if (from && json_object_object_get_ex(from, key, &v))
		json_object_object_add(row, key, json_object_get(v));
}

/* Whether the capture was filtered, and to the workload's own TGID (@o's keys, @notes). */
static void check_filter(json_object *o, json_object *notes, json_object *sum, json_object *report)
{
	json_object *v = json_path(sum, "capture.filter"), *pids = json_object_new_array();
	const char *filter = v && json_object_is_type(v, json_type_string) ?
			     json_object_get_string(v) : NULL;
	int64_t kept[64], tgid = -1;
	size_t n = filter ? trace_filter_pids(filter, kept, ARRAY_SIZE(kept)) : 0, i;
	int mine = 0;

	v = json_path(report, "tgid");
	if (v && json_object_is_type(v, json_type_int))
		tgid = json_object_get_int64(v);
	for (i = 0; i < n; i++) {
		json_object_array_add(pids, json_object_new_int64(kept[i]));
		mine |= kept[i] == tgid;
	}
	json_object_object_add(o, "filtered", json_object_new_boolean(n > 0));
	json_object_object_add(o, "filter", filter ? json_object_new_string(filter) : NULL);
	json_object_object_add(o, "filter_pids", pids);
	json_object_object_add(o, "workload_tgid", tgid >= 0 ? json_object_new_int64(tgid) : NULL);
	/* null: a report without its TGID cannot be matched */
	json_object_object_add(o, "filtered_to_workload",
			       n && tgid >= 0 ? json_object_new_boolean(mine) : NULL);
	v = json_path(report, "result.capture_scope");
	json_object_object_add(o, "scope", v ? json_object_get(v) : NULL);
	if (!n && v)
		return;	/* a load of other processes (app-rotation): every process, by design */
	if (!n)
		json_object_array_add(notes, json_object_new_string(
			"the capture is not filtered to the workload's TGID: other processes' faults and "
			"writers are in it, so it is not diagnostic; rerun filtered"));
	else if (tgid >= 0 && !mine)
		json_object_array_add(notes, json_object_new_string(
			"the capture is filtered to other processes than the workload's TGID: its "
			"faults and writers are not in it, so it is not diagnostic; rerun filtered "
			"to the workload"));
}

/* The preflight's findings as a note: the first one named, so the row says where. */
static void check_kernel_delay(json_object *o, json_object *notes, json_object *kd)
{
	json_object *f = json_path(kd, "findings"), *first;
	size_t n = f ? json_object_array_length(f) : 0;
	char *note;

	json_object_object_add(o, "kernel_delay", kd ? json_object_get(kd) : NULL);
	if (!n)
		return;
	first = json_object_array_get_idx(f, 0);
	note = xasprintf("the kernel's fault path has an artificial delay: %s() in %s() at "
			 "%s:%" PRId64 "%s; every figure of this run is that delay's; remove it",
			 json_object_get_string(json_path(first, "call")),
			 json_object_get_string(json_path(first, "function")),
			 json_object_get_string(json_path(first, "file")),
			 json_object_get_int64(json_path(first, "line")), n > 1 ? " and more" : "");
	json_object_array_add(notes, json_object_new_string(note));
	free(note);
}

/*
 * The workload contract's checks on a finished run (the seed's "Preflight",
 * "Trace capture" and "Trace validation" rows): a kernel with an artificial
 * delay in its fault path measures the delay; a capture not filtered to the
 * workload's TGID (none, or another process's) is not diagnostic; contention
 * pairs that never touch the workload's own VMA (the workload reports where
 * it mapped it) say the run measured something else.  A workload whose load
 * is other processes says so ("capture_scope" in its result): its capture
 * covers every process by design.  Returns {"ok", "filtered", "filter",
 * "filter_pids", "workload_tgid", "filtered_to_workload", "scope", "kernel_delay": {...} | null, "target_vma": {...}
 * | null, "notes": [...]}.
 */
/* An address as the summary and the workloads print it (%lx): 0, or -1 when @v holds none. */
static int hex_address(json_object *v, uint64_t *addr)
{
	const char *s = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) :
			NULL;
	char *end;

	if (!s || !isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*addr = strtoull(s, &end, 16);
	return errno || *end ? -1 : 0;
}

static json_object *contract_checks(json_object *sum, json_object *report, json_object *kd)
{
	json_object *o = json_object_new_object(), *notes = json_object_new_array(), *v;
	const char *target = NULL;
	uint64_t target_addr = 0;

	check_kernel_delay(o, notes, kd);
	check_filter(o, notes, sum, report);
	v = json_path(report, "result.map_start");
	if (!hex_address(v, &target_addr))
		target = json_object_get_string(v);
	if (target) {
		json_object *pairs = json_path(sum, "contention.top_pairs"), *t = json_object_new_object();
		int64_t on = 0, elsewhere = 0;

		for (size_t i = 0; pairs && i < json_object_array_length(pairs); i++) {
			json_object *start = json_path(json_object_array_get_idx(pairs, i), "vm_start");
			uint64_t addr;

			if (hex_address(start, &addr))
				continue;	/* a stock capture names no VMA */
			if (addr == target_addr)
				on++;
			else
				elsewhere++;
		}
		json_object_object_add(t, "vm_start", json_object_new_string(target));
		json_object_object_add(t, "top_pairs_on_it", json_object_new_int64(on));
		json_object_object_add(t, "top_pairs_elsewhere", json_object_new_int64(elsewhere));
		json_object_object_add(o, "target_vma", t);
		if (elsewhere && !on)
			json_object_array_add(notes, json_object_new_string(
				"no contention pair is on the workload's own VMA: the run measured something "
				"else; narrow it to one VMA and one writer pattern"));
	} else {
		json_object_object_add(o, "target_vma", NULL);
	}
	json_object_object_add(o, "ok", json_object_new_boolean(!json_object_array_length(notes)));
	json_object_object_add(o, "notes", notes);
	return o;
}

/**
 * run_summary_merge - fold a workload's report and its policy into its summary
 * @summary: where the summary goes (written atomically)
 * @sum: the summary `mmlock analyze` made (ownership taken), or NULL
 * @report: the workload's report (ownership taken), or NULL
 * @p: the policy the run was under
 * @lost_at_least: events the producer knows it lost (a device's own ring
 *	buffer counters, which a text stream cannot show), or -1
 * @kernel_delay: the preflight's result (run_preflight_kernel_delay()),
 *	borrowed, or NULL when none ran
 * @filter: the process filter the capture's producer set where the
 *	collector could not see it (a device agent's set_event_pid behind
 *	record --stdin), or NULL; it fills an empty capture.filter
 * @row: the verdict table's row, filled in
 * @why: on failure, an allocated reason
 *
 * Returns 0, or -1 with *@why set.
 */
int run_summary_merge(const char *summary, json_object *sum, json_object *report,
		      const struct run_policy *p, int64_t lost_at_least, json_object *kernel_delay,
		      const char *filter, json_object *row, char **why)
{
	static const char *const counts[] = {
		"type_a_count", "type_b_count", "type_c_count", "type_c_score_us"
	};
	json_object *pol, *v;
	size_t k;

	if (!sum) {
		*why = xasprintf("%s: no summary to merge into", summary);
		json_object_put(report);
		return -1;
	}
	v = json_path(sum, "capture");
	if (filter && v && json_object_is_type(v, json_type_object) &&
	    !json_object_is_type(json_path(v, "filter"), json_type_string))
		json_object_object_add(v, "filter", json_object_new_string(filter));
	/* the checks are in every summary, also when the workload wrote no report */
	if (!report) {
		report = json_object_new_object();
		json_object_object_add(report, "status", json_object_new_string("no report"));
	}
	json_object_object_add(report, "contract_checks", contract_checks(sum, report, kernel_delay));
	json_object_object_add(sum, "workload_report", report);
	pol = json_object_new_object();
	json_object_object_add(pol, "name", json_object_new_string(p->name));
	for (k = 0; k < MMLOCK_SYSCTL_NR; k++)
		json_object_object_add(pol, mmlock_sysctls[k].name,
				       json_object_new_int(run_policy_value(p, mmlock_sysctls[k].id)));
	json_object_object_add(sum, "policy", pol);
	v = json_path(sum, "capture.lost_events");
	if (lost_at_least >= 0 && v && json_object_get_int64(v) < lost_at_least)
		json_object_object_add(json_path(sum, "capture"), "lost_events",
				       json_object_new_int64(lost_at_least));
	/* a half-written summary must never look complete */
	if (json_write(summary, sum, 1, 0)) {
		*why = xasprintf("%s: cannot write: %s", summary, strerror(errno));
		json_object_put(sum);
		return -1;
	}
	v = json_path(sum, "verdict.code");
	if (v)
		json_object_object_add(row, "verdict", json_object_get(v));
	for (k = 0; k < ARRAY_SIZE(counts); k++)
		row_copy(row, json_path(sum, "contention"), counts[k]);
	row_copy(row, json_path(sum, "capture"), "lost_events");
	v = json_path(report, "result.faults.per_mib_read.total");
	if (v)
		json_object_object_add(row, "faults_per_mib", json_object_get(v));
	json_object_object_add(row, "summary", json_object_new_string(summary));
	v = json_path(report, "contract_checks.notes");
	if (v && json_object_array_length(v))
		json_object_object_add(row, "contract", json_object_get(json_object_array_get_idx(v, 0)));
	json_object_put(sum);
	return 0;
}

/**
 * run_rows_compare_stock - faults per MiB read of each policy against stock's
 * @rows: the verdict rows
 * @first: the first row of one workload's policies
 *
 * no-retry maps one page per major fault where stock's retry redoes
 * fault-around, so a difference here is that artefact, not contention: the
 * rows say by how much, in percent.
 */
void run_rows_compare_stock(json_object *rows, size_t first)
{
	size_t i, n = json_object_array_length(rows);
	json_object *stock = NULL, *v;
	double base;

	for (i = first; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i), *p;

		if (json_object_object_get_ex(r, "policy", &p) &&
		    !strcmp(json_object_get_string(p), run_policies[RUN_POLICY_STOCK].name) &&
		    json_object_object_get_ex(r, "faults_per_mib", &v) && v)
			stock = r;
	}
	if (!stock)
		return;
	json_object_object_get_ex(stock, "faults_per_mib", &v);
	base = json_object_get_double(v);
	for (i = first; i < n && base > 0; i++) {
		json_object *r = json_object_array_get_idx(rows, i);
		char buf[32];

		if (r == stock || !json_object_object_get_ex(r, "faults_per_mib", &v) || !v)
			continue;
		snprintf(buf, sizeof(buf), "%+.1f", (json_object_get_double(v) / base - 1) * 100);
		json_object_object_add(r, "faults_per_mib_vs_stock_pct",
				       json_object_new_double_s(strtod(buf, NULL), buf));
	}
}

static const char *cell(json_object *row, const char *key, char *buf, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(row, key, &v))
		return "-";
	if (!v)
		return "null";
	snprintf(buf, len, "%s", json_object_get_string(v));
	return buf;
}

/**
 * run_table_print - the verdict table, one line per workload and policy
 * @f: where
 * @rows: the verdict rows
 * @header: a first line (where the events came from), or NULL
 */
void run_table_print(FILE *f, json_object *rows, const char *header)
{
	size_t i, n = json_object_array_length(rows);
	char b[10][64];

	if (header)
		fprintf(f, "%s\n", header);
	fprintf(f, "%-16s %-10s %-30s %6s %6s %6s %10s %6s %8s %8s\n", "workload", "policy",
		"verdict", "A", "B", "C", "C_us", "lost", "flt/MiB", "vs_stock");
	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i), *s;

		if (json_object_object_get_ex(r, "skipped", &s)) {
			fprintf(f, "%-16s %-10s skipped: %s\n", cell(r, "workload", b[0], 64),
				cell(r, "policy", b[1], 64), json_object_get_string(s));
			continue;
		}
		fprintf(f, "%-16s %-10s %-30s %6s %6s %6s %10s %6s %8s %8s\n",
			cell(r, "workload", b[0], 64), cell(r, "policy", b[1], 64),
			cell(r, "verdict", b[2], 64), cell(r, "type_a_count", b[3], 64),
			cell(r, "type_b_count", b[4], 64), cell(r, "type_c_count", b[5], 64),
			cell(r, "type_c_score_us", b[6], 64), cell(r, "lost_events", b[7], 64),
			cell(r, "faults_per_mib", b[8], 64),
			cell(r, "faults_per_mib_vs_stock_pct", b[9], 64));
	}
}

/**
 * run_table_write - verdicts.json and verdicts.txt in @dir, each atomically
 * @dir: the run's output folder
 * @rows: the verdict rows
 * @header: as for run_table_print()
 *
 * Returns 0, or -1 with errno set (the one that failed keeps its old content).
 */
int run_table_write(const char *dir, json_object *rows, const char *header)
{
	char *path = xasprintf("%s/verdicts.json", dir), *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret = json_write(path, rows, 1, 0);

	free(path);
	if (ret)
		return -1;
	f = open_memstream(&text, &len);
	if (!f)
		return -1;
	run_table_print(f, rows, header);
	if (fclose(f)) {
		free(text);
		return -1;
	}
	path = xasprintf("%s/verdicts.txt", dir);
	ret = outfile_write_all(AT_FDCWD, path, text, len, 0);
	free(path);
	free(text);
	return ret;
}

/* The figures whose spread over repeated runs decides whether a policy changed anything. */
static const struct {
	const char	*key;		/* in a verdict row */
	const char	*head;
} range_figures[] = {
	{ "type_a_count",	"A" },
	{ "type_b_count",	"B" },
	{ "type_c_score_us",	"C_us" },
	{ "faults_per_mib",	"flt/MiB" },
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* min, median, max of @key over the rows of @wl under @policy; the count of values */
static size_t range_of(json_object *rows, const char *wl, const char *policy, const char *key,
		       double out[3])
{
	size_t n = json_object_array_length(rows), k = 0;
	double *v = xcalloc(n ? n : 1, sizeof(*v));
	json_object *x;

	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i);
		char b[2][64];

		if (strcmp(cell(r, "workload", b[0], 64), wl) || strcmp(cell(r, "policy", b[1], 64), policy) ||
		    json_object_object_get_ex(r, "skipped", NULL) ||
		    !json_object_object_get_ex(r, key, &x) || !x)
			continue;
		v[k++] = json_object_get_double(x);
	}
	if (k) {
		qsort(v, k, sizeof(*v), cmp_double);
		out[0] = v[0];
		out[1] = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
		out[2] = v[k - 1];
	}
	free(v);
	return k;
}

/**
 * run_ranges - min, median and max of each figure over repeated runs
 * @rows: the verdict rows of every run (each row's "workload" and "policy")
 *
 * One entry per workload and policy, in the order the rows first name them:
 * {"workload", "policy", "runs", FIGURE: {"min", "median", "max"} or null,
 * "vs_stock": {FIGURE: "higher" | "lower"}}.  A policy's figure is marked
 * only where its whole range lies above or below stock's: one run per policy
 * cannot tell a change from noise, a gap between ranges can.
 *
 * Return: a new array (json_object_put() it).
 */
json_object *run_ranges(json_object *rows)
{
	const char *stock = run_policies[RUN_POLICY_STOCK].name;
	json_object *out = json_object_new_array();
	size_t n = json_object_array_length(rows);

	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i), *e, *vs;
		char wl[64], pol[64];
		int seen = 0;
		size_t runs = 0;

		cell(r, "workload", wl, sizeof(wl));
		cell(r, "policy", pol, sizeof(pol));
		for (size_t j = 0; j < json_object_array_length(out) && !seen; j++) {
			json_object *o = json_object_array_get_idx(out, j), *w, *p;

			seen = json_object_object_get_ex(o, "workload", &w) &&
			       json_object_object_get_ex(o, "policy", &p) &&
			       !strcmp(json_object_get_string(w), wl) &&
			       !strcmp(json_object_get_string(p), pol);
		}
		if (seen)
			continue;
		e = json_object_new_object();
		vs = json_object_new_object();
		json_object_object_add(e, "workload", json_object_new_string(wl));
		json_object_object_add(e, "policy", json_object_new_string(pol));
		for (size_t f = 0; f < ARRAY_SIZE(range_figures); f++) {
			double me[3], st[3];
			size_t k = range_of(rows, wl, pol, range_figures[f].key, me);
			json_object *o;

			if (k > runs)
				runs = k;
			if (!k) {
				json_object_object_add(e, range_figures[f].key, NULL);
				continue;
			}
			o = json_object_new_object();
			json_object_object_add(o, "min", json_object_new_double(me[0]));
			json_object_object_add(o, "median", json_object_new_double(me[1]));
			json_object_object_add(o, "max", json_object_new_double(me[2]));
			json_object_object_add(e, range_figures[f].key, o);
			if (strcmp(pol, stock) && range_of(rows, wl, stock, range_figures[f].key, st)) {
				if (me[0] > st[2])
					json_object_object_add(vs, range_figures[f].key,
							       json_object_new_string("higher"));
				else if (me[2] < st[0])
					json_object_object_add(vs, range_figures[f].key,
							       json_object_new_string("lower"));
			}
		}
		if (!runs) {	/* every run of it skipped: the verdict table says why */
			json_object_put(vs);
			json_object_put(e);
			continue;
		}
		json_object_object_add(e, "runs", json_object_new_uint64(runs));
		json_object_object_add(e, "vs_stock", vs);
		json_object_array_add(out, e);
	}
	return out;
}

/**
 * run_ranges_print - run_ranges() as a table that fits 100 columns
 * @f: where
 * @ranges: from run_ranges()
 *
 * Each figure as "min median max"; a '*' after it where its range does not
 * overlap stock's.
 */
void run_ranges_print(FILE *f, json_object *ranges)
{
	size_t n = json_object_array_length(ranges);

	fprintf(f, "ranges over repeated runs: min median max; * where the range does not overlap stock's\n");
	fprintf(f, "%-16s %-10s %4s", "workload", "policy", "runs");
	for (size_t k = 0; k < ARRAY_SIZE(range_figures); k++)
		fprintf(f, " %-16s", range_figures[k].head);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ranges, i), *vs = json_path(e, "vs_stock");
		char b[3][64];

		fprintf(f, "%-16s %-10s %4s", cell(e, "workload", b[0], 64), cell(e, "policy", b[1], 64),
			cell(e, "runs", b[2], 64));
		for (size_t k = 0; k < ARRAY_SIZE(range_figures); k++) {
			json_object *o = json_path(e, range_figures[k].key);
			char r[64];

			if (!o)
				snprintf(r, sizeof(r), "null");
			else
				snprintf(r, sizeof(r), "%.4g %.4g %.4g%s",
					 json_object_get_double(json_path(o, "min")),
					 json_object_get_double(json_path(o, "median")),
					 json_object_get_double(json_path(o, "max")),
					 vs && json_object_object_get_ex(vs, range_figures[k].key, NULL) ? " *" : "");
			fprintf(f, " %-16s", r);
		}
		fputc('\n', f);
	}
}

/**
 * run_summaries_print - what each run found, in words, one screen for a whole run
 * @f: where
 * @rows: the verdict rows (each with the path of its summary)
 *
 * Per workload and policy: the verdict with the numbers that decided it and
 * what to do; where there was contention, the worst pair (both sides, the
 * writer's caller, the VMA) and the writer callers with the most contention.
 */
void run_summaries_print(FILE *f, json_object *rows)
{
	size_t n = json_object_array_length(rows);

	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i), *sum, *v;
		char b[3][64], *title;

		v = json_path(r, "summary");
		if (!v || !json_object_is_type(v, json_type_string) ||
		    json_object_object_get_ex(r, "skipped", NULL))
			continue;
		sum = json_object_from_file(json_object_get_string(v));
		if (!sum)
			continue;
		title = xasprintf("%s under %s%s%s", cell(r, "workload", b[0], 64),
				  cell(r, "policy", b[1], 64), json_path(r, "run") ? ", run " : "",
				  json_path(r, "run") ? cell(r, "run", b[2], 64) : "");
		v = json_path(r, "contract");
		summary_words_print(f, sum, title,
				    v && json_object_is_type(v, json_type_string) ?
				    json_object_get_string(v) : NULL);
		free(title);
		json_object_put(sum);
	}
}
