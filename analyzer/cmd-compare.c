// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock compare: summaries side by side (kernels, fault policies), one
 * column per run, one row per number that decides the verdict.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>

#include "infile.h"
#include "jsonout.h"
#include "mmlock.h"
#include "mmlock_events.h"
#include "outfile.h"
#include "util.h"

/*
 * Every row goes to --json; the text shows the brief ones only, the figures
 * that decide a verdict, so that a workload's policies fit in 100 columns.
 * A row only `mmlock run` fills (the workload's own report) is brief where
 * some summary has it, and left out of the text where none does.
 */
#define ROW_IF_ANY	2	/* brief, when a summary has it */
static const struct {
	const char *label, *path;
	int brief;
} rows[] = {
	{ "verdict",			"verdict.code", 1 },
	{ "Type-A pairs",		"contention.type_a_count", 1 },
	{ "Type-A time us",		"contention.type_a_duration_sum_us", 1 },
	{ "Type-B pairs",		"contention.type_b_count", 1 },
	{ "Type-B retry->mmap us",	"contention.type_b_retry_to_mmap_lock_sum_us", 1 },
	{ "Type-C pairs",		"contention.type_c_count", 1 },
	{ "Type-C score us",		"contention.type_c_score_us", 1 },
	{ "faults",			"filemap_fault.total_count", 0 },
	{ "fault retries",		"filemap_fault.retry_count", 0 },
	{ "retry rate %",		"filemap_fault.retry_rate_pct", 0 },
	{ "fault wait p50 us",		"filemap_fault.wait_durations_us.median", 0 },
	{ "fault wait p99 us",		"filemap_fault.wait_durations_us.p99", 0 },
	{ "VMA writers",		"vma_writer.total_count", 0 },
	{ "VMA writer wait p50 us",	"vma_writer.wait_durations_us.median", 0 },
	{ "VMA writer wait p99 us",	"vma_writer.wait_durations_us.p99", 1 },
	{ "VMA writer wait max us",	"vma_writer.wait_durations_us.max", 0 },
	{ "mmap_lock wait p99 us",	"mmap_lock.wait_durations_us.p99", 0 },
	{ "mmap_lock wait max us",	"mmap_lock.wait_durations_us.max", 0 },
	{ "mmap_lock write hold p99 us", "mmap_lock.write_hold_durations_us.p99", 0 },
	{ "fallbacks to mmap_lock",	"fallback.total_count", 0 },
	{ "per-VMA read failures",	"vma_read_fail.total_count", 0 },
	{ "faults per MiB read",	"workload_report.result.faults.per_mib_read.total",
	  ROW_IF_ANY },
	{ "lost events",		"capture.lost_events", 1 },
};

/* The text's verdict words: a code is up to 28 characters, a column 12. */
static const struct {
	const char *code, *word;
} verdict_words[] = {
	{ "inversion_confirmed",		"INVERSION" },
	{ "contention_without_inversion",	"contended" },
	{ "no_inversion_observed",		"no-inversion" },
	{ "inconclusive",			"inconclusive" },
};

#define LINE_MAX_COLS	100
#define LABEL_COLS	22
#define CELL_MIN	8
#define CELL_MAX	16
#define CHANGE_COLS	8

static void usage(FILE *out)
{
	fprintf(out,
"usage: mmlock compare [--json] [-o FILE] SUMMARY...\n"
"\n"
"SUMMARY: a summary JSON from mmlock analyze, or a directory (for example\n"
"the output of mmlock run), searched for */summary.json.  One block per\n"
"workload, its runs across, named by what differs between them: the policy\n"
"(stock first), the kernel, or #N with the file listed under the block.\n"
"Rows: the figures that decide (verdict, Type-A/B/C, the writers' wait,\n"
"faults per MiB read where the workload reported it, lost events); each\n"
"column after the first gives its change against the first.  Verdicts:\n"
"INVERSION inversion_confirmed, contended contention_without_inversion,\n"
"no-inversion no_inversion_observed.  'null' is a number the capture could\n"
"not measure, '-' one the summary lacks.  --json has every figure.\n"
"\n"
"  -j, --json         more figures, as JSON: {\"runs\": [workload/policy/kernel,\n"
"                     ...], \"FIGURE.PATH\": [one value per run], ...}\n"
"  -o, --output FILE  write there (atomically; a device or FIFO in place)\n"
"                     instead of standard output\n"
"  -h, --help         this text\n"
"\n"
"Exit: 0 written; 2 usage; 3 a summary is missing, unreadable, larger than\n"
"16 MiB or not a summary; 7 the output could not be written.\n");
}

/* "a.b.c" inside @o; NULL when absent, and *@present says whether it exists. */
static json_object *lookup(json_object *o, const char *path, int *present)
{
	char *copy = xstrdup(path), *tok, *save = NULL;

	*present = 1;
	for (tok = strtok_r(copy, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		if (!o)
			break;		/* under a null: the whole family was not measured */
		if (!json_object_object_get_ex(o, tok, &o)) {
			*present = 0;
			o = NULL;
			break;
		}
	}
	free(copy);
	return o;
}

struct run {
	char		*path;
	char		*name;
	json_object	*sum;
	int		found;		/* found below a directory: must be a regular file */
	char		*workload;	/* NULL: the summary names none */
	char		*policy;
	char		*kernel;
	char		*label;		/* the column's name in the text */
	int		block;		/* index of its workload's block */
};

/* A summary is tens of kilobytes; /dev/zero or a FIFO must not eat memory. */
#define SUMMARY_MAX	(16 * 1024 * 1024)

static json_object *read_summary(const struct run *r)
{
	struct json_tokener *tok;
	json_object *o;
	size_t len;
	char *text = infile_read(AT_FDCWD, r->path, SUMMARY_MAX, &len,
				 r->found ? INFILE_REGULAR : 0);

	if (!text) {
		pr_err("%s: cannot read: %s", r->path, errno == EFBIG ?
		       "larger than 16 MiB: not a summary" : infile_strerror(errno));
		return NULL;
	}
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object)) {
		pr_err("%s: not a summary JSON (%s)", r->path,
		       json_tokener_error_desc(json_tokener_get_error(tok)));
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	free(text);
	return o;
}

static int cmp_runs(const void *a, const void *b)
{
	return strcmp(((const struct run *)a)->path, ((const struct run *)b)->path);
}

static void add_run(struct run **runs, int *n, const char *path, int found)
{
	*runs = xrealloc(*runs, (size_t)(*n + 1) * sizeof(**runs));
	(*runs)[(*n)++] = (struct run){ .path = xstrdup(path), .found = found };
}

/* A directory: every summary.json one or two levels down (mmlock run's layout). */
static void add_dir(struct run **runs, int *n, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (!stat(p, &st)) {
			if (S_ISDIR(st.st_mode) && depth < 3)
				add_dir(runs, n, p, depth + 1);
			else if (S_ISREG(st.st_mode) && !strcmp(de->d_name, "summary.json"))
				add_run(runs, n, p, 1);
		}
		free(p);
	}
	closedir(d);
}

/* A string member, NULL when absent, null or not a string. */
static char *string_at(json_object *sum, const char *path)
{
	int present;
	json_object *v = lookup(sum, path, &present);

	return json_object_is_type(v, json_type_string) ? xstrdup(json_object_get_string(v)) : NULL;
}

/* mmlock run names the policy; a bare mmlock analyze -s gives its sysctls. */
static char *policy_name(json_object *sum)
{
	char *name = string_at(sum, "policy.name");
	int p1, p2;
	json_object *nr = lookup(sum, mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].summary_key, &p1);
	json_object *rv = lookup(sum, mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK].summary_key, &p2);
	int v[MMLOCK_SYSCTL_NR];
	const struct mmlock_policy *pol;

	if (name || !nr || !rv)
		return name;
	v[MMLOCK_SYSCTL_NO_RETRY] = json_object_get_int(nr);
	v[MMLOCK_SYSCTL_RETRY_VMA_LOCK] = json_object_get_int(rv);
	pol = mmlock_policy_of(v);
	if (pol)
		return xstrdup(pol->name);
	return xasprintf("nr%d,rv%d", v[MMLOCK_SYSCTL_NO_RETRY], v[MMLOCK_SYSCTL_RETRY_VMA_LOCK]);
}

static char *run_name(const struct run *r)
{
	if (!r->workload && !r->kernel && !r->policy)
		return xstrdup(r->path);
	return xasprintf("%s/%s/%s", r->workload ? r->workload : "-",
			 r->policy ? r->policy : "-", r->kernel ? r->kernel : "-");
}

static int is_number(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double));
}

/* The text of one figure: the verdict as a word, "null", "-" when absent. */
static const char *cell(json_object *v, int present, int verdict)
{
	if (!present)
		return "-";
	if (!v)
		return "null";
	if (verdict)
		for (size_t k = 0; k < ARRAY_SIZE(verdict_words); k++)
			if (!strcmp(json_object_get_string(v), verdict_words[k].code))
				return verdict_words[k].word;
	return json_object_get_string(v);
}

/* @b against @a in at most CHANGE_COLS characters; "" where there is none. */
static void change(char *buf, size_t size, json_object *a, json_object *b, int verdict)
{
	double x, y, d;

	buf[0] = 0;
	if (verdict) {
		if (a && b && strcmp(json_object_get_string(a), json_object_get_string(b)))
			snprintf(buf, size, "changed");
		return;
	}
	if (!is_number(a) || !is_number(b))
		return;
	x = json_object_get_double(a);
	y = json_object_get_double(b);
	d = y - x;
	if (d == 0)
		return;
	if (x != 0 && fabs(d * 100.0 / x) < 1000)
		snprintf(buf, size, "%+.0f%%", d * 100.0 / x);
	else if (x > 0 && y > 0)
		snprintf(buf, size, y / x < 1e7 ? "x%.0f" : "x>1e7", y / x);
	else if (fabs(d) < 1e7 && d == (double)(long long)d)
		snprintf(buf, size, "%+.0f", d);
	else
		snprintf(buf, size, "%+.2g", d);
}

/* A line of the table: LINE_MAX_COLS by construction, so a fixed buffer. */
struct line {
	char	text[4 * LINE_MAX_COLS];
	size_t	len;
};

static void line_add(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void line_add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->text + l->len, sizeof(l->text) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < sizeof(l->text) - l->len ? (size_t)n : sizeof(l->text) - l->len - 1;
}

/* Out without the padding an empty change cell leaves at the end. */
static void line_put(FILE *out, struct line *l)
{
	while (l->len && l->text[l->len - 1] == ' ')
		l->len--;
	fprintf(out, "%.*s\n", (int)l->len, l->text);
	l->len = 0;
}

/* A name from a summary in a column: no control characters, at most @cols. */
static char *fit(const char *s, size_t cols)
{
	size_t n = strlen(s), i;
	char *t;

	if (n > cols) {
		t = xstrdup(s + n - cols);
		t[0] = '~';		/* the end of a name tells runs apart */
	} else {
		t = xstrdup(s);
	}
	for (i = 0; t[i]; i++)
		if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f)
			t[i] = '?';
	return t;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Stock is what a policy is judged against, so it comes first. */
static int cmp_column(const struct run *a, const struct run *b)
{
	int sa = a->policy && !strcmp(a->policy, "stock");
	int sb = b->policy && !strcmp(b->policy, "stock");

	return sb - sa;
}

/* Name each column of a block after what differs between its runs. */
static void label_columns(FILE *out, struct run **col, int n)
{
	int pv = 0, kv = 0, i, j, dup = 0;

	for (i = 1; i < n; i++) {
		pv |= !same(col[i]->policy, col[0]->policy);
		kv |= !same(col[i]->kernel, col[0]->kernel);
	}
	for (i = 0; i < n; i++) {
		const char *p = col[i]->policy ? col[i]->policy : "-";
		const char *k = col[i]->kernel ? col[i]->kernel : "-";
		char *l = pv && kv ? xasprintf("%s/%s", p, k) :
			  xstrdup(kv || (!pv && !col[i]->policy) ? k : p);

		col[i]->label = fit(l, CELL_MAX);
		free(l);
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			dup |= !strcmp(col[i]->label, col[j]->label);
	if (!dup)
		return;
	for (i = 0; i < n; i++) {
		char *l = fit(col[i]->path, LINE_MAX_COLS - 8);

		free(col[i]->label);
		col[i]->label = xasprintf("#%d", i + 1);
		fprintf(out, "  #%-3d %s\n", i + 1, l);
		free(l);
	}
}

/* One workload's runs across, in groups of columns that fit the line. */
static void write_block(FILE *out, struct run **col, int n)
{
	int width[n], i, g, end;
	size_t r;
	int any_mib = 0;

	if (col[0]->workload) {
		char *w = fit(col[0]->workload, 60);

		fprintf(out, "%s", w);
		free(w);
	} else {
		fprintf(out, "(no workload named)");
	}
	for (i = 1; i < n && same(col[i]->kernel, col[0]->kernel); i++)
		;
	if (i == n && col[0]->kernel) {
		char *k = fit(col[0]->kernel, 30);

		fprintf(out, ", kernel %s", k);
		free(k);
	}
	fputc('\n', out);
	label_columns(out, col, n);

	for (i = 0; i < n; i++) {
		width[i] = (int)strlen(col[i]->label);
		for (r = 0; r < ARRAY_SIZE(rows); r++) {
			int present, len;
			json_object *v;

			if (!rows[r].brief)
				continue;
			v = lookup(col[i]->sum, rows[r].path, &present);
			len = (int)strlen(cell(v, present, !r));
			if (len > width[i])
				width[i] = len;
			if (rows[r].brief == ROW_IF_ANY && present)
				any_mib = 1;
		}
		width[i] = width[i] < CELL_MIN ? CELL_MIN : width[i] > CELL_MAX ? CELL_MAX : width[i];
	}

	for (g = 0; g < n; g = end) {
		struct line l = { .len = 0 };
		int used = LABEL_COLS;

		for (end = g; end < n; end++) {
			int w = 1 + width[end] + (end ? 1 + CHANGE_COLS : 0);

			if (end > g && used + w > LINE_MAX_COLS)
				break;
			used += w;
		}
		if (g)
			fputc('\n', out);
		line_add(&l, "%-*s", LABEL_COLS, "");
		for (i = g; i < end; i++) {
			line_add(&l, " %*s", width[i], col[i]->label);
			if (i)
				line_add(&l, " %*s", CHANGE_COLS, "change");
		}
		line_put(out, &l);
		for (r = 0; r < ARRAY_SIZE(rows); r++) {
			int p0;
			json_object *v0 = lookup(col[0]->sum, rows[r].path, &p0);

			if (!rows[r].brief ||
			    (!any_mib && rows[r].brief == ROW_IF_ANY))
				continue;
			line_add(&l, "%-*s", LABEL_COLS, rows[r].label);
			for (i = g; i < end; i++) {
				int present;
				json_object *v = lookup(col[i]->sum, rows[r].path, &present);
				char *c = fit(cell(v, present, !r), (size_t)width[i]);
				char buf[32];

				line_add(&l, " %*s", width[i], c);
				free(c);
				if (!i)
					continue;
				change(buf, sizeof(buf), p0 ? v0 : NULL, present ? v : NULL, !r);
				line_add(&l, " %*.*s", CHANGE_COLS, CHANGE_COLS, buf);
			}
			line_put(out, &l);
		}
	}
}

/* The text: one block per workload, in the order the runs came. */
static void write_table(FILE *out, struct run *runs, int nr)
{
	struct run **col = xmalloc((size_t)nr * sizeof(*col));
	int nb = 0, i, j, n;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < i && !same(runs[j].workload, runs[i].workload); j++)
			;
		runs[i].block = j < i ? runs[j].block : nb++;
	}
	fprintf(out, "mmlock compare: %d run%s, %d workload%s; change: against the first column\n",
		nr, nr == 1 ? "" : "s", nb, nb == 1 ? "" : "s");
	for (j = 0; j < nb; j++) {
		for (i = n = 0; i < nr; i++)
			if (runs[i].block == j)
				col[n++] = &runs[i];
		/* insertion sort: stable, and a block is a handful of runs */
		for (i = 1; i < n; i++) {
			struct run *c = col[i];
			int k;

			for (k = i; k > 0 && cmp_column(col[k - 1], c) > 0; k--)
				col[k] = col[k - 1];
			col[k] = c;
		}
		fputc('\n', out);
		write_block(out, col, n);
	}
	free(col);
}

/* The table (names come from the summaries: repaired to UTF-8), atomically to @path. */
static int write_text(const char *path, const char *text, size_t len)
{
	size_t fixed_len;
	char *fixed = utf8_repair(text, len, &fixed_len);
	int ret;

	if (fixed) {
		text = fixed;
		len = fixed_len;
	}
	if (path)
		ret = outfile_write_all(AT_FDCWD, path, text, len, OUTFILE_NO_FSYNC);
	else
		ret = fflush(stdout) || write_all(STDOUT_FILENO, text, len) ? -1 : 0;
	if (ret)
		pr_err("%s: cannot write: %s", path ? path : "standard output", strerror(errno));
	free(fixed);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct run *runs = NULL;
	int nr = 0, as_json = 0, c, i, ret = MMLOCK_EXIT_OK;
	const char *output = NULL;
	char *text = NULL;
	size_t text_len = 0;
	FILE *out = NULL;
	size_t r;

	while ((c = getopt_long(argc, argv, "jo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = 1;
			break;
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
	for (i = optind; i < argc; i++) {
		struct stat st;
		int before = nr;

		if (stat(argv[i], &st)) {
			pr_err("%s: %s", argv[i], strerror(errno));
			ret = MMLOCK_EXIT_INPUT;
			goto out_free_runs;
		}
		if (S_ISDIR(st.st_mode)) {
			add_dir(&runs, &nr, argv[i], 0);
			if (nr == before) {
				pr_err("%s: no summary.json below it", argv[i]);
				ret = MMLOCK_EXIT_INPUT;
				goto out_free_runs;
			}
			qsort(runs + before, (size_t)(nr - before), sizeof(*runs), cmp_runs);
		} else {
			add_run(&runs, &nr, argv[i], 0);
		}
	}
	if (!nr) {
		usage(stderr);
		return MMLOCK_EXIT_USAGE;
	}
	for (i = 0; i < nr; i++) {
		runs[i].sum = read_summary(&runs[i]);
		if (!runs[i].sum) {
			ret = MMLOCK_EXIT_INPUT;
			goto out_free_runs;
		}
		runs[i].workload = string_at(runs[i].sum, "workload");
		runs[i].policy = policy_name(runs[i].sum);
		runs[i].kernel = string_at(runs[i].sum, "kernel");
		runs[i].name = run_name(&runs[i]);
	}

	if (as_json) {
		json_object *table = json_object_new_object(), *names = json_object_new_array();

		for (i = 0; i < nr; i++)
			json_object_array_add(names, json_object_new_string(runs[i].name));
		json_object_object_add(table, "runs", names);
		for (r = 0; r < ARRAY_SIZE(rows); r++) {
			json_object *vals = json_object_new_array();

			for (i = 0; i < nr; i++) {
				int present;
				json_object *v = lookup(runs[i].sum, rows[r].path, &present);

				json_object_array_add(vals, json_object_get(v));
			}
			json_object_object_add(table, rows[r].path, vals);
		}
		out = open_memstream(&text, &text_len);
		fprintf(out, "%s\n", json_object_to_json_string_ext(table, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(table);
		goto write_out;
	}

	out = open_memstream(&text, &text_len);
	if (out)
		write_table(out, runs, nr);

write_out:
	if (!out || fclose(out)) {
		pr_err("out of memory for the table");
		ret = MMLOCK_EXIT_FAILURE;
		goto out_free_runs;
	}
	if (write_text(output, text, text_len))
		ret = MMLOCK_EXIT_OUTPUT;
	free(text);

out_free_runs:
	for (i = 0; i < nr; i++) {
		free(runs[i].path);
		free(runs[i].name);
		free(runs[i].workload);
		free(runs[i].policy);
		free(runs[i].kernel);
		free(runs[i].label);
		json_object_put(runs[i].sum);
	}
	free(runs);
	return ret;
}
