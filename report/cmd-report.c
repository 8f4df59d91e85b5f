// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock report: one self-contained HTML page from summary JSONs (mmlock
 * run's results, or any summaries): the verdicts, the policies of each
 * workload side by side as bars, the wait distributions on a log scale, a
 * timeline of the slowest contention pairs per thread and the pairs
 * themselves.  Everything is inline SVG and CSS: the page loads with no
 * network and no script.  Summaries come off other machines, so every string
 * from them is escaped and repaired to UTF-8 before it reaches the page.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "infile.h"
#include "jsonout.h"
#include "mmlock.h"
#include "mmlock_events.h"
#include "outfile.h"
#include "util.h"

/* a summary is a few MiB at most; anything larger is not one */
#define SUMMARY_MAX	(64u << 20)
#define PAIRS_MAX	12

struct entry {
	char		*path;
	json_object	*sum;
	const char	*workload;
	const char	*policy;
	const char	*kernel;
	char		*label;		/* the policy, and the run of mmlock run --repeat */
};

struct report {
	struct entry	*e;
	size_t		n;
};

/* A figure of the policies side by side: one bar per summary of a workload. */
struct figure {
	const char	*title;
	const char	*path;		/* dotted path into the summary */
	double		scale;		/* value * scale is shown */
	const char	*unit;
};

static const struct figure figures[] = {
	{ "Type-A pairs",			"contention.type_a_count", 1, "" },
	{ "Type-A time",			"contention.type_a_duration_sum_us", 1e-3, "ms" },
	{ "Type-B pairs",			"contention.type_b_count", 1, "" },
	{ "Type-B retry \xe2\x86\x92 mmap_lock",	"contention.type_b_retry_to_mmap_lock_sum_us", 1e-3, "ms" },
	{ "Type-C pairs",			"contention.type_c_count", 1, "" },
	{ "Type-C score",			"contention.type_c_score_us", 1e-3, "ms" },
	{ "VMA writer waits",			"vma_writer.wait_durations_us.count", 1, "" },
	{ "mmap_lock write waits",		"mmap_lock.wait_count_write", 1, "" },
	{ "faults per MiB read",		"workload_report.result.faults.per_mib_read.total", 1, "" },
};

static const struct {
	const char	*title;
	const char	*path;
} dists[] = {
	{ "filemap_fault waits",	"filemap_fault.wait_durations_us" },
	{ "VMA writer waits",		"vma_writer.wait_durations_us" },
	{ "mmap_lock waits",		"mmap_lock.wait_durations_us" },
};

/* One color per policy of the contract (by rank), the last for any other; one per pair type. */
static const char *const policy_color[] = { "#4e79a7", "#e15759", "#59a14f", "#9c755f" };
_Static_assert(ARRAY_SIZE(policy_color) == MMLOCK_POLICY_NR + 1,
	       "a color for each policy of mmlock_policies[] and one for the others");

static const char *get_str(json_object *o, const char *path)
{
	json_object *v = json_path(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* 0 and @out set when @path holds a number; -1 when it is null or absent */
static int get_num(json_object *o, const char *path, double *out)
{
	json_object *v = json_path(o, path);

	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return -1;
	*out = json_object_get_double(v);
	return isfinite(*out) ? 0 : -1;
}

/* HTML text or attribute value: escaped, and valid UTF-8 whatever the bytes */
static void put_esc(FILE *f, const char *s)
{
	size_t len = 0;
	const char *u;
	char *fixed;

	if (!s)
		s = "";
	fixed = utf8_repair(s, strlen(s), &len);
	u = fixed ? fixed : s;
	if (!fixed)
		len = strlen(s);
	for (size_t i = 0; i < len; i++) {
		switch (u[i]) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)u[i] < 0x20 && u[i] != '\n' && u[i] != '\t')
				fputs("\xef\xbf\xbd", f);
			else
				fputc(u[i], f);
		}
	}
	free(fixed);
}

/* the contract's order of the policies (stock first), then any other */
static int policy_rank(const char *p)
{
	for (int i = 0; p && i < MMLOCK_POLICY_NR; i++)
		if (!strcmp(p, mmlock_policies[i].name))
			return i;
	return MMLOCK_POLICY_NR;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int r = strcmp(x->workload, y->workload);

	if (r)
		return r;
	r = policy_rank(x->policy) - policy_rank(y->policy);
	if (r)
		return r;
	r = strcmp(x->policy, y->policy);
	if (r)
		return r;
	r = strcmp(x->kernel, y->kernel);
	return r ? r : strcmp(x->path, y->path);
}

/*
 * mmlock analyze's own summaries carry the sysctls, not mmlock run's policy
 * name: the contract's policy that sets them so.  NULL when the summary
 * knows none of them or no policy sets them so; one it lacks counts as 0.
 */
static const char *policy_from_sysctls(json_object *sum)
{
	int value[MMLOCK_SYSCTL_NR], known = 0;
	const struct mmlock_policy *p;

	for (int k = 0; k < MMLOCK_SYSCTL_NR; k++) {
		double v;
		int has = !get_num(sum, mmlock_sysctls[k].summary_key, &v);

		value[k] = has && v != 0;
		known |= has;
	}
	p = known ? mmlock_policy_of(value) : NULL;
	return p ? p->name : NULL;
}

/* "POLICY" or, for .../POLICY/run-K/summary.json of mmlock run --repeat, "POLICY #K" */
static char *run_label(const char *path, const char *policy)
{
	const char *end = strrchr(path, '/');
	int k, n = 0;

	if (end) {
		const char *start;

		for (start = end; start > path && start[-1] != '/'; start--)
			;
		if (sscanf(start, "run-%d/%n", &k, &n) == 1 && start + n == end + 1)
			return xasprintf("%s #%d", policy, k);
	}
	return xstrdup(policy);
}

static struct report *collecting;
static int collect_err;

static int add_summary(struct report *r, const char *path, int flags)
{
	enum json_tokener_error jerr;
	json_object *sum;
	struct entry *e;
	size_t len;
	char *text;

	text = infile_read(AT_FDCWD, path, SUMMARY_MAX, &len, flags);
	if (!text) {
		pr_err("%s: %s", path, infile_strerror(errno));
		return -1;
	}
	sum = json_tokener_parse_verbose(text, &jerr);
	free(text);
	if (!sum || !json_object_is_type(sum, json_type_object) ||
	    !json_path(sum, "schema_version") || !json_path(sum, "verdict")) {
		pr_err("%s: expected an mmlock summary JSON (an object with schema_version and verdict)%s%s",
		       path, sum ? "" : ": ", sum ? "" : json_tokener_error_desc(jerr));
		json_object_put(sum);
		return -1;
	}
	r->e = xrealloc(r->e, (r->n + 1) * sizeof(*r->e));
	e = &r->e[r->n++];
	e->path = xstrdup(path);
	e->sum = sum;
	e->workload = get_str(sum, "workload");
	e->policy = get_str(sum, "policy.name");
	if (!e->policy)
		e->policy = policy_from_sysctls(sum);
	e->kernel = get_str(sum, "kernel");
	if (!e->workload)
		e->workload = "-";
	if (!e->policy)
		e->policy = "-";
	if (!e->kernel)
		e->kernel = "-";
	e->label = run_label(path, e->policy);
	return 0;
}

static int collect_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type == FTW_F && ftw->level <= 4 && !strcmp(path + ftw->base, "summary.json") &&
	    add_summary(collecting, path, INFILE_REGULAR))
		collect_err = 1;
	return 0;
}

static int collect(struct report *r, const char *arg)
{
	struct stat st;
	size_t before = r->n;

	if (stat(arg, &st)) {
		pr_err("%s: %s", arg, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return add_summary(r, arg, 0);
	collecting = r;
	collect_err = 0;
	if (nftw(arg, collect_one, 16, FTW_PHYS) || collect_err)
		return -1;
	if (r->n == before) {
		pr_err("%s: no summary.json below it (expected mmlock run's results/<workload>/<policy>/)",
		       arg);
		return -1;
	}
	return 0;
}

static void fmt_value(char *buf, size_t len, double v)
{
	if (v == floor(v) || fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

/* Horizontal bars, one per summary of the workload; a null is said, not drawn. */
static void put_bars(FILE *f, const struct figure *fig, const struct entry *e, size_t n)
{
	const int w = 300, row = 20, label = 80, top = 22;
	double max = 0, v;
	char num[48];

	for (size_t i = 0; i < n; i++)
		if (!get_num(e[i].sum, fig->path, &v) && v * fig->scale > max)
			max = v * fig->scale;
	fprintf(f, "<svg class=\"chart bars\" data-figure=\"%s\" width=\"%d\" height=\"%zu\" "
		"role=\"img\"><title>", fig->path, w, top + n * row + 4);
	put_esc(f, fig->title);
	fprintf(f, "</title><text x=\"0\" y=\"14\" class=\"t\">");
	put_esc(f, fig->title);
	if (fig->unit[0])
		fprintf(f, " (%s)", fig->unit);
	fputs("</text>", f);
	for (size_t i = 0; i < n; i++) {
		int y = top + (int)i * row;

		fprintf(f, "<text x=\"0\" y=\"%d\" class=\"l\">", y + 13);
		put_esc(f, e[i].label);
		fputs("</text>", f);
		if (get_num(e[i].sum, fig->path, &v)) {
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"null\">null: not measurable here</text>",
				label, y + 13);
			continue;
		}
		v *= fig->scale;
		fmt_value(num, sizeof(num), v);
		{
			int bw = max > 0 ? (int)((w - label - 60) * v / max) : 0;

			fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" "
				"fill=\"%s\"><title>%s</title></rect>",
				label, y + 2, bw < 1 ? 1 : bw, policy_color[policy_rank(e[i].policy)], num);
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"v\">%s</text>", label + bw + 4, y + 13, num);
		}
	}
	fputs("</svg>\n", f);
}

/* min, median, p90, p99, max of each summary on one log axis (1 us .. max) */
static void put_dist(FILE *f, const char *title, const char *path, const struct entry *e, size_t n)
{
	static const char *const keys[] = { "min", "median", "p90", "p99", "max" };
	const int w = 300, row = 22, label = 80, top = 22, span = w - label - 10;
	double hi = 10, q[5];
	char p[160];

	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s.max", path);
		if (!get_num(e[i].sum, p, &q[4]) && q[4] > hi)
			hi = q[4];
	}
	hi = ceil(log10(hi));
	fprintf(f, "<svg class=\"chart dist\" data-figure=\"%s\" width=\"%d\" height=\"%zu\" role=\"img\">"
		"<text x=\"0\" y=\"14\" class=\"t\">", path, w + 16, top + n * row + 16);
	put_esc(f, title);
	fputs(" (\xc2\xb5s, log)</text>", f);
	for (int d = 0; d <= (int)hi; d++) {
		int x = label + (int)(span * d / hi);

		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%zu\" class=\"grid\"/>"
			"<text x=\"%d\" y=\"%zu\" class=\"ax\">1e%d</text>",
			x, top, x, top + n * row, x - 6, top + n * row + 12, d);
	}
	for (size_t i = 0; i < n; i++) {
		int y = top + (int)i * row, xs[5], k;

		fprintf(f, "<text x=\"0\" y=\"%d\" class=\"l\">", y + 14);
		put_esc(f, e[i].label);
		fputs("</text>", f);
		for (k = 0; k < 5; k++) {
			snprintf(p, sizeof(p), "%s.%s", path, keys[k]);
			if (get_num(e[i].sum, p, &q[k]))
				break;
			xs[k] = label + (int)(span * log10(q[k] < 1 ? 1 : q[k]) / hi);
		}
		if (k < 5) {
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"null\">none measured</text>", label, y + 14);
			continue;
		}
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"whisker\"/>"
			"<rect class=\"box\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"12\" fill=\"%s\">"
			"<title>min %.0f, median %.0f, p90 %.0f, p99 %.0f, max %.0f us</title></rect>"
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"p99\"/>",
			xs[0], y + 10, xs[4], y + 10, xs[1], y + 4, xs[2] - xs[1] < 2 ? 2 : xs[2] - xs[1],
			policy_color[policy_rank(e[i].policy)], q[0], q[1], q[2], q[3], q[4],
			xs[3], y + 2, xs[3], y + 18);
	}
	fputs("</svg>\n", f);
}

static void put_side(FILE *f, json_object *side)
{
	double pid = 0, prio = -1;

	get_num(side, "pid", &pid);
	fprintf(f, "%.0f ", pid);
	put_esc(f, get_str(side, "comm"));
	if (!get_num(side, "prio", &prio))
		fprintf(f, " (prio %.0f)", prio);
}

/*
 * The slowest pairs of one summary on a time line: one row per thread, the
 * blocked side's wait as a bar, the blocker's row marked over the same span,
 * and a line from blocker to blocked.
 */
static void put_timeline(FILE *f, const struct entry *e)
{
	json_object *pairs = json_path(e->sum, "contention.top_pairs");
	size_t np = pairs && json_object_is_type(pairs, json_type_array) ?
		    json_object_array_length(pairs) : 0;
	double t0 = INFINITY, t1 = -INFINITY, s, d, pid;
	double tids[2 * PAIRS_MAX];
	size_t nt = 0;
	const int w = 640, label = 150, row = 18, top = 20;

	if (np > PAIRS_MAX)
		np = PAIRS_MAX;
	for (size_t i = 0; i < np; i++) {
		json_object *p = json_object_array_get_idx(pairs, i);

		if (get_num(p, "start_us", &s) || get_num(p, "duration_us", &d))
			continue;
		t0 = fmin(t0, s);
		t1 = fmax(t1, s + d);
		for (int side = 0; side < 2; side++) {
			size_t k;

			if (get_num(p, side ? "blocker.pid" : "blocked.pid", &pid))
				continue;
			for (k = 0; k < nt && tids[k] != pid; k++)
				;
			if (k == nt)
				tids[nt++] = pid;
		}
	}
	if (!nt || !(t1 > t0)) {
		fputs("<p class=\"null\">no contention pair to draw</p>\n", f);
		return;
	}
	fprintf(f, "<svg class=\"chart timeline\" width=\"%d\" height=\"%zu\" role=\"img\">"
		"<text x=\"0\" y=\"12\" class=\"t\">the slowest pairs over %.1f ms "
		"(bar: the blocked side waits; outline: the blocker)</text>",
		w, top + nt * row + 6, (t1 - t0) / 1e3);
	for (size_t k = 0; k < nt; k++) {
		const char *comm = NULL;

		for (size_t i = 0; i < np && !comm; i++) {
			json_object *p = json_object_array_get_idx(pairs, i);

			for (int side = 0; side < 2 && !comm; side++)
				if (!get_num(p, side ? "blocker.pid" : "blocked.pid", &pid) && pid == tids[k])
					comm = get_str(p, side ? "blocker.comm" : "blocked.comm");
		}
		fprintf(f, "<text x=\"0\" y=\"%zu\" class=\"l\">%.0f ", top + k * row + 12, tids[k]);
		put_esc(f, comm);
		fputs("</text>", f);
	}
	for (size_t i = 0; i < np; i++) {
		json_object *p = json_object_array_get_idx(pairs, i);
		const char *type = get_str(p, "type");
		double bd, bk;
		size_t rd = 0, rk = 0;
		int x, bw;

		if (get_num(p, "start_us", &s) || get_num(p, "duration_us", &d) ||
		    get_num(p, "blocked.pid", &bd) || get_num(p, "blocker.pid", &bk))
			continue;
		while (rd < nt && tids[rd] != bd)
			rd++;
		while (rk < nt && tids[rk] != bk)
			rk++;
		x = label + (int)((w - label - 4) * (s - t0) / (t1 - t0));
		bw = (int)((w - label - 4) * d / (t1 - t0));
		if (bw < 2)
			bw = 2;
		fprintf(f, "<rect class=\"pair type-%s\" x=\"%d\" y=\"%zu\" width=\"%d\" height=\"12\">"
			"<title>Type-%s, %.0f us</title></rect>"
			"<rect class=\"blocker\" x=\"%d\" y=\"%zu\" width=\"%d\" height=\"12\"/>"
			"<line class=\"link\" x1=\"%d\" y1=\"%zu\" x2=\"%d\" y2=\"%zu\"/>",
			type && !strcmp(type, "A") ? "a" : "b", x, top + rd * row + 2, bw,
			type ? type : "?", d, x, top + rk * row + 2, bw,
			x, top + rk * row + 8, x, top + rd * row + 8);
	}
	fputs("</svg>\n", f);
}

static void put_pairs(FILE *f, const struct entry *e)
{
	json_object *pairs = json_path(e->sum, "contention.top_pairs");
	size_t np = pairs && json_object_is_type(pairs, json_type_array) ?
		    json_object_array_length(pairs) : 0;

	if (!np)
		return;
	fputs("<table class=\"pairs\"><tr><th>type</th><th>C</th><th>wait (us)</th>"
	      "<th>blocked</th><th>blocker</th><th>writer's caller</th><th>VMA</th></tr>\n", f);
	for (size_t i = 0; i < np && i < PAIRS_MAX; i++) {
		json_object *p = json_object_array_get_idx(pairs, i), *c = json_path(p, "c");
		double d = 0;

		get_num(p, "duration_us", &d);
		fputs("<tr><td>", f);
		put_esc(f, get_str(p, "type"));
		fprintf(f, "</td><td>%s</td><td class=\"n\">%.0f</td><td>",
			c && json_object_get_boolean(c) ? "yes" : "", d);
		put_side(f, json_path(p, "blocked"));
		fputs("</td><td>", f);
		put_side(f, json_path(p, "blocker"));
		fputs("</td><td>", f);
		put_esc(f, get_str(p, "caller"));
		fputs("</td><td>", f);
		put_esc(f, get_str(p, "vm_start"));
		fputs("\xe2\x80\x93", f);
		put_esc(f, get_str(p, "vm_end"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void put_cell(FILE *f, json_object *sum, const char *path)
{
	double v;
	char num[48];

	if (get_num(sum, path, &v)) {
		fputs("<td class=\"n null\">null</td>", f);
		return;
	}
	fmt_value(num, sizeof(num), v);
	fprintf(f, "<td class=\"n\">%s</td>", num);
}

static const char style[] =
	"body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}"
	"table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:2px 8px;"
	"text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	".null{color:#999;font-style:italic}section.workload{border-top:2px solid #444;margin-top:24px}"
	".charts{display:flex;flex-wrap:wrap;gap:12px 24px}svg text{font:12px system-ui,sans-serif}"
	"svg .t{font-weight:bold}svg .ax{fill:#777;font-size:10px}svg .grid{stroke:#eee}"
	"svg .whisker{stroke:#555}svg .p99{stroke:#000;stroke-width:2}"
	"svg .pair.type-a{fill:#e15759}svg .pair.type-b{fill:#f28e2b}"
	"svg .blocker{fill:none;stroke:#333;stroke-dasharray:3 2}svg .link{stroke:#333}"
	"code{background:#f4f4f4;padding:0 3px}";

static void put_page(FILE *f, struct report *r)
{
	size_t i, j;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>mmlock report</title><style>", f);
	fputs(style, f);
	fprintf(f, "</style></head><body>\n<h1>mmlock report</h1>\n"
		"<p>%zu summaries. Type-A: a VMA writer waits for a fault that sleeps on I/O holding "
		"the per-VMA lock; Type-B: a retried fault waits for mmap_lock behind a writer; "
		"Type-C: either, with the higher-priority side blocked. <span class=\"null\">null</span>: "
		"the capture could not measure it. Wait distributions: a line from min to max, a box from "
		"the median to p90, a tick at p99, on a log scale (mmlock " MMLOCK_VERSION ").</p>\n", r->n);

	fputs("<h2>Verdicts</h2>\n<table class=\"verdicts\"><tr><th>workload</th><th>policy</th>"
	      "<th>kernel</th><th>events</th><th>verdict</th><th>A</th><th>B</th><th>C</th>"
	      "<th>C score (us)</th><th>lost</th><th>faults/MiB</th></tr>\n", f);
	for (i = 0; i < r->n; i++) {
		struct entry *e = &r->e[i];

		fputs("<tr data-workload=\"", f);
		put_esc(f, e->workload);
		fputs("\" data-policy=\"", f);
		put_esc(f, e->policy);
		fputs("\"><td>", f);
		put_esc(f, e->workload);
		fputs("</td><td>", f);
		put_esc(f, e->label);
		fputs("</td><td>", f);
		put_esc(f, e->kernel);
		fputs("</td><td>", f);
		put_esc(f, get_str(e->sum, "capture.event_source"));
		fputs("</td><td title=\"", f);
		put_esc(f, get_str(e->sum, "verdict.text"));
		fputs("\">", f);
		put_esc(f, get_str(e->sum, "verdict.code"));
		fputs("</td>", f);
		put_cell(f, e->sum, "contention.type_a_count");
		put_cell(f, e->sum, "contention.type_b_count");
		put_cell(f, e->sum, "contention.type_c_count");
		put_cell(f, e->sum, "contention.type_c_score_us");
		put_cell(f, e->sum, "capture.lost_events");
		put_cell(f, e->sum, "workload_report.result.faults.per_mib_read.total");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);

	for (i = 0; i < r->n; i = j) {
		struct entry *e = &r->e[i];
		size_t n;

		for (j = i + 1; j < r->n && !strcmp(r->e[j].workload, e->workload); j++)
			;
		n = j - i;
		fputs("<section class=\"workload\" data-workload=\"", f);
		put_esc(f, e->workload);
		fputs("\"><h2>", f);
		put_esc(f, e->workload);
		fputs("</h2>\n<ul class=\"verdict-text\">", f);
		for (size_t k = 0; k < n; k++) {
			fputs("<li><b>", f);
			put_esc(f, e[k].label);
			fputs("</b>: <code>", f);
			put_esc(f, get_str(e[k].sum, "verdict.code"));
			fputs("</code> ", f);
			put_esc(f, get_str(e[k].sum, "verdict.text"));
			fputs("</li>", f);
		}
		fputs("</ul>\n<div class=\"charts\">\n", f);
		for (size_t k = 0; k < sizeof(figures) / sizeof(figures[0]); k++)
			put_bars(f, &figures[k], e, n);
		for (size_t k = 0; k < sizeof(dists) / sizeof(dists[0]); k++)
			put_dist(f, dists[k].title, dists[k].path, e, n);
		fputs("</div>\n", f);
		for (size_t k = 0; k < n; k++) {
			fputs("<h3 class=\"policy\" data-policy=\"", f);
			put_esc(f, e[k].policy);
			fputs("\">", f);
			put_esc(f, e[k].workload);
			fputs(" under ", f);
			put_esc(f, e[k].label);
			fputs("</h3>\n", f);
			put_timeline(f, &e[k]);
			put_pairs(f, &e[k]);
		}
		fputs("</section>\n", f);
	}
	fputs("</body></html>\n", f);
}

static void usage(FILE *f)
{
	fputs("usage: mmlock report [-o FILE] RESULTS...\n"
	      "One self-contained HTML page (inline SVG, no script, no network) from summary JSONs:\n"
	      "RESULTS are summary.json files or folders searched for them (mmlock run's results/).\n"
	      "  -o, --output FILE   the page (default report.html); written whole or not at all\n"
	      "  -h, --help          this text\n"
	      "Exit: 0 written, 2 usage, 3 an input missing or not a summary, 7 output not written.\n", f);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *output = "report.html";
	struct report r = { 0 };
	struct outfile of;
	char *page = NULL;
	size_t len = 0;
	int opt, ret = MMLOCK_EXIT_OK;
	FILE *f;

	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			return MMLOCK_EXIT_OK;
		default:
			usage(stderr);
			return MMLOCK_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		pr_err("no input: give summary.json files or mmlock run's results folder");
		usage(stderr);
		return MMLOCK_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		if (collect(&r, argv[i])) {
			ret = MMLOCK_EXIT_INPUT;
			goto free_entries;
		}
	}
	qsort(r.e, r.n, sizeof(*r.e), entry_cmp);

	f = open_memstream(&page, &len);
	if (!f) {
		pr_err("cannot build the page: %s", strerror(errno));
		ret = MMLOCK_EXIT_NOMEM;
		goto free_entries;
	}
	put_page(f, &r);
	if (fclose(f)) {
		pr_err("cannot build the page: %s", strerror(errno));
		ret = MMLOCK_EXIT_NOMEM;
		goto free_page;
	}
	if (outfile_open(&of, AT_FDCWD, output, NULL, 0) || outfile_write(&of, page, len) ||
	    outfile_commit(&of)) {
		pr_err("%s: cannot write the report: %s", output, strerror(errno));
		ret = MMLOCK_EXIT_OUTPUT;
		goto free_page;
	}
	pr_info("%s: %zu summar%s", output, r.n, r.n == 1 ? "y" : "ies");
free_page:
	free(page);
free_entries:
	for (size_t i = 0; i < r.n; i++) {
		free(r.e[i].path);
		free(r.e[i].label);
		json_object_put(r.e[i].sum);
	}
	free(r.e);
	return ret;
}
