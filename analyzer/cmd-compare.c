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

#include "infile.h"
#include "jsonout.h"
#include "mmlock.h"
#include "outfile.h"
#include "util.h"

static const struct {
	const char *label, *path;
} rows[] = {
	{ "verdict",			"verdict.code" },
	{ "Type-A pairs",		"contention.type_a_count" },
	{ "Type-A time us",		"contention.type_a_duration_sum_us" },
	{ "Type-B pairs",		"contention.type_b_count" },
	{ "Type-B retry->mmap us",	"contention.type_b_retry_to_mmap_lock_sum_us" },
	{ "Type-C pairs",		"contention.type_c_count" },
	{ "Type-C score us",		"contention.type_c_score_us" },
	{ "faults",			"filemap_fault.total_count" },
	{ "fault retries",		"filemap_fault.retry_count" },
	{ "retry rate %",		"filemap_fault.retry_rate_pct" },
	{ "fault wait p50 us",		"filemap_fault.wait_durations_us.median" },
	{ "fault wait p99 us",		"filemap_fault.wait_durations_us.p99" },
	{ "VMA writers",		"vma_writer.total_count" },
	{ "VMA writer wait p50 us",	"vma_writer.wait_durations_us.median" },
	{ "VMA writer wait p99 us",	"vma_writer.wait_durations_us.p99" },
	{ "VMA writer wait max us",	"vma_writer.wait_durations_us.max" },
	{ "mmap_lock wait p99 us",	"mmap_lock.wait_durations_us.p99" },
	{ "mmap_lock wait max us",	"mmap_lock.wait_durations_us.max" },
	{ "mmap_lock write hold p99 us", "mmap_lock.write_hold_durations_us.p99" },
	{ "fallbacks to mmap_lock",	"fallback.total_count" },
	{ "per-VMA read failures",	"vma_read_fail.total_count" },
	{ "lost events",		"capture.lost_events" },
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: mmlock compare [--json] [-o FILE] SUMMARY...\n"
"\n"
"SUMMARY: a summary JSON from mmlock analyze, or a directory (for example\n"
"the output of mmlock run), searched for */summary.json. One column per run,\n"
"named workload/policy/kernel; with two runs a last column gives the change.\n"
"'null' is a number the capture could not measure.\n"
"\n"
"  -j, --json         the same table as JSON\n"
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

static char *run_name(json_object *sum, const char *path)
{
	int present;
	json_object *w = lookup(sum, "workload", &present);
	json_object *k = lookup(sum, "kernel", &present);
	json_object *p = lookup(sum, "policy.name", &present);

	if (!w && !k && !p)
		return xstrdup(path);
	return xasprintf("%s/%s/%s", w ? json_object_get_string(w) : "-",
			 p ? json_object_get_string(p) : "-", k ? json_object_get_string(k) : "-");
}

static const char *cell(json_object *v, int present)
{
	if (!present)
		return "-";
	return v ? json_object_get_string(v) : "null";
}

static int is_number(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double));
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
	int nr = 0, as_json = 0, c, i, ret = MMLOCK_EXIT_OK, width = 12;
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
		runs[i].name = run_name(runs[i].sum, runs[i].path);
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

	for (i = 0; i < nr; i++)
		if ((int)strlen(runs[i].name) > width)
			width = (int)strlen(runs[i].name);
	out = open_memstream(&text, &text_len);
	fprintf(out, "%-28s", "");
	for (i = 0; i < nr; i++)
		fprintf(out, " %*s", width, runs[i].name);
	if (nr == 2)
		fprintf(out, " %14s", "change");
	fputc('\n', out);
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		json_object *a = NULL, *b = NULL;

		fprintf(out, "%-28s", rows[r].label);
		for (i = 0; i < nr; i++) {
			int present;
			json_object *v = lookup(runs[i].sum, rows[r].path, &present);

			fprintf(out, " %*s", width, cell(v, present));
			if (i == 0)
				a = v;
			else
				b = v;
		}
		if (nr == 2 && is_number(a) && is_number(b)) {
			double x = json_object_get_double(a), y = json_object_get_double(b);

			if (x != 0)
				fprintf(out, " %+13.0f%%", (y - x) * 100.0 / x);
			else
				fprintf(out, " %+14g", y - x);
		}
		fputc('\n', out);
	}

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
		json_object_put(runs[i].sum);
	}
	free(runs);
	return ret;
}
