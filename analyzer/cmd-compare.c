// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock compare: summaries side by side (kernels, fault policies), one
 * column per run, one row per number that decides the verdict.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "mmlock.h"
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
"usage: mmlock compare [--json] SUMMARY...\n"
"\n"
"SUMMARY: a summary JSON from mmlock analyze, or a directory (for example\n"
"the output of mmlock run), searched for */summary.json. One column per run,\n"
"named workload/policy/kernel; with two runs a last column gives the change.\n"
"'null' is a number the capture could not measure.\n"
"\n"
"  -j, --json   the same table as JSON\n"
"  -h, --help   this text\n");
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
};

static int cmp_runs(const void *a, const void *b)
{
	return strcmp(((const struct run *)a)->path, ((const struct run *)b)->path);
}

static void add_run(struct run **runs, int *n, const char *path)
{
	*runs = xrealloc(*runs, (size_t)(*n + 1) * sizeof(**runs));
	(*runs)[(*n)++] = (struct run){ .path = xstrdup(path) };
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
				add_run(runs, n, p);
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

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct run *runs = NULL;
	int nr = 0, as_json = 0, c, i, ret = MMLOCK_EXIT_OK, width = 12;
	size_t r;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = 1;
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
			add_run(&runs, &nr, argv[i]);
		}
	}
	if (!nr) {
		usage(stderr);
		return MMLOCK_EXIT_USAGE;
	}
	for (i = 0; i < nr; i++) {
		runs[i].sum = json_object_from_file(runs[i].path);
		if (!runs[i].sum || !json_object_is_type(runs[i].sum, json_type_object)) {
			pr_err("%s: not a summary JSON (%s)", runs[i].path, json_util_get_last_err());
			ret = MMLOCK_EXIT_INPUT;
			goto out_free_runs;
		}
		runs[i].name = run_name(runs[i].sum, runs[i].path);
	}

	if (as_json) {
		json_object *out = json_object_new_object(), *names = json_object_new_array();

		for (i = 0; i < nr; i++)
			json_object_array_add(names, json_object_new_string(runs[i].name));
		json_object_object_add(out, "runs", names);
		for (r = 0; r < ARRAY_SIZE(rows); r++) {
			json_object *vals = json_object_new_array();

			for (i = 0; i < nr; i++) {
				int present;
				json_object *v = lookup(runs[i].sum, rows[r].path, &present);

				json_object_array_add(vals, json_object_get(v));
			}
			json_object_object_add(out, rows[r].path, vals);
		}
		printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(out);
		goto out_free_runs;
	}

	for (i = 0; i < nr; i++)
		if ((int)strlen(runs[i].name) > width)
			width = (int)strlen(runs[i].name);
	printf("%-28s", "");
	for (i = 0; i < nr; i++)
		printf(" %*s", width, runs[i].name);
	if (nr == 2)
		printf(" %14s", "change");
	putchar('\n');
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		json_object *a = NULL, *b = NULL;

		printf("%-28s", rows[r].label);
		for (i = 0; i < nr; i++) {
			int present;
			json_object *v = lookup(runs[i].sum, rows[r].path, &present);

			printf(" %*s", width, cell(v, present));
			if (i == 0)
				a = v;
			else
				b = v;
		}
		if (nr == 2 && is_number(a) && is_number(b)) {
			double x = json_object_get_double(a), y = json_object_get_double(b);

			if (x != 0)
				printf(" %+13.0f%%", (y - x) * 100.0 / x);
			else
				printf(" %+14g", y - x);
		}
		putchar('\n');
	}

out_free_runs:
	for (i = 0; i < nr; i++) {
		free(runs[i].path);
		free(runs[i].name);
		json_object_put(runs[i].sum);
	}
	free(runs);
	return ret;
}
