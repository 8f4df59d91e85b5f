// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock analyze: a capture in (trace text or a binary capture, read through
 * source.h), one summary JSON out.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "analysis.h"
#include "infile.h"
#include "jsonout.h"
#include "outfile.h"
#include "words.h"
#include "tracestatus.h"
#include "mmlock.h"
#include "parse.h"
#include "source.h"
#include "symbols.h"
#include "util.h"

#define MAX_REPORTED_ERRORS 10

struct analyze_ctx {
	json_object	*errors;	/* the first MAX_REPORTED_ERRORS, for the JSON */
	unsigned long	nr_errors;
	unsigned long	open_failures;
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: mmlock analyze [options] INPUT...\n"
"\n"
"INPUT: trace_pipe text (plain, gzip or zstd), trace-cmd report output,\n"
"trace-cmd's trace.dat (or a folder holding one), a binary capture, or a\n"
"directory of numbered chunks (read in name order as one stream, with its\n"
"trace.status). Writes the summary JSON (see analyzer/README.md); with -o, also\n"
"prints it in words: the verdict, the worst pair, the top writer callers.\n"
"\n"
"  -o, --output FILE          write the JSON there (default: standard output)\n"
"  -w, --workload NAME        workload name for the JSON\n"
"  -k, --kernel LABEL         kernel label for the JSON\n"
"  -s, --sysctl NAME=VALUE    fault policy in force: %s,\n"
"                             %s (default: from trace.status)\n"
"  -t, --threshold-us N       Type-C score threshold of the verdict (default 1000)\n"
"  -n, --top N                slowest pairs to list (default 10)\n"
"      --stack-position before|after\n"
"                             where a <stack trace> block stands relative to its\n"
"                             event (default: trace.status, else after)\n"
"      --status FILE          a trace.status to use for a plain file INPUT\n"
"      --maps DIR             the maps snapshots to resolve user_pc with\n"
"                             (default: INPUT/maps of a capture directory)\n"
"      --symfs DIR            look for each mapped file under DIR first\n"
"                             (DIR/<its path>: unstripped copies of a phone's)\n"
"  -p, --pretty               indented JSON\n"
"  -q, --quiet                with -o, no summary in words on standard output\n"
"  -h, --help                 this text\n"
"\n"
"Exit: 0 written; 2 usage; 3 input missing, unreadable or without any trace\n"
"line; 4 written but an input was damaged (malformed lines, truncated chunk);\n"
"7 output not written; 9 out of memory (an input with more open intervals\n"
"than memory holds).\n", mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].name,
		mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK].name);
}

static void add_error(struct analyze_ctx *ctx, const char *file, unsigned long line,
		      const char *what)
{
	json_object *o;

	ctx->nr_errors++;
	if (ctx->nr_errors > MAX_REPORTED_ERRORS)
		return;
	if (line)
		pr_err("%s:%lu: %s", file, line, what);
	else
		pr_err("%s: %s", file, what);
	o = json_object_new_object();
	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "line", json_object_new_uint64(line));
	json_object_object_add(o, "what", json_object_new_string(what));
	json_object_array_add(ctx->errors, o);
}

static void on_input_error(void *p, enum input_error_kind kind, const char *file,
			   unsigned long line, const char *what)
{
	struct analyze_ctx *ctx = p;

	if (kind == INPUT_ERR_OPEN)
		ctx->open_failures++;
	add_error(ctx, file, line, what);
}

static int parse_sysctl(const char *arg, int *no_retry, int *retry_vma_lock)
{
	const char *eq = strchr(arg, '=');
	const struct mmlock_sysctl *sc = eq ? mmlock_sysctl_find(arg, (size_t)(eq - arg)) : NULL;
	int64_t v;

	if (!sc || parse_i64(eq + 1, &v) || v < 0 || v > 1)
		return -1;
	switch (sc->id) {
	case MMLOCK_SYSCTL_NO_RETRY:
		*no_retry = (int)v;
		return 0;
	case MMLOCK_SYSCTL_RETRY_VMA_LOCK:
		*retry_vma_lock = (int)v;
		return 0;
	default:
		return -1;
	}
}

/* -o /dev/stdout, or the file standard output is redirected to */
static int same_file_as_stdout(const char *path)
{
	struct stat a, b;

	return !stat(path, &a) && !fstat(STDOUT_FILENO, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* A half-written summary never looks complete; a device or FIFO is written in place. */
static int write_output(const char *path, json_object *root, int pretty)
{
	/*
	 * Atomic, not durable: a summary is made again from its capture in a
	 * second, and an fsync per summary costs more than the analysis of a
	 * small trace.
	 */
	if (!json_write(path, root, pretty, OUTFILE_NO_FSYNC))
		return 0;
	if (path)
		pr_err("%s: cannot write: %s", path, errno == EPERM ?
		       "a symbolic link owned by another user (refused as a planted link)" :
		       errno == EEXIST ? "it is not a regular file, a character device or a FIFO" :
		       strerror(errno));
	else
		pr_err("write failure on standard output: %s", strerror(errno));
	return -1;
}

/*
 * The maps snapshots beside a capture (or --maps DIR): missing ones leave
 * the summary as it was; unreadable ones make every user_symbol say why,
 * never fail the analysis.
 */
static void open_maps(const char *maps_dir, const char *input, int nr_inputs, const char *symfs,
		      const char *clock, struct summary_meta *meta, char **path, char **err)
{
	struct stat st;

	if (maps_dir) {
		*path = xstrdup(maps_dir);
	} else {
		if (nr_inputs != 1 || stat(input, &st) || !S_ISDIR(st.st_mode))
			return;
		*path = xasprintf("%s/maps", input);
		if (stat(*path, &st))
			return;
	}
	meta->maps = maps_snapshots_open(*path, symfs, clock && !strcmp(clock, "mono"), err);
	if (!meta->maps) {
		pr_warn("user_pc not resolved: %s", *err);
		meta->maps_error = *err;
	}
}

/*
 * @result: NULL (a command: the summary goes to -o or standard output, in
 * words too), or where the summary is handed to an in-process caller
 * (cmd_analyze_summary()), which owns it then; nothing is written.
 */
static int analyze_main(int argc, char **argv, json_object **result)
{
	enum { OPT_STACK_POS = 256, OPT_STATUS, OPT_MAPS, OPT_SYMFS };
	static const struct option opts[] = {
		{ "output",		required_argument,	NULL, 'o' },
		{ "workload",		required_argument,	NULL, 'w' },
		{ "kernel",		required_argument,	NULL, 'k' },
		{ "sysctl",		required_argument,	NULL, 's' },
		{ "threshold-us",	required_argument,	NULL, 't' },
		{ "top",		required_argument,	NULL, 'n' },
		{ "stack-position",	required_argument,	NULL, OPT_STACK_POS },
		{ "status",		required_argument,	NULL, OPT_STATUS },
		{ "maps",		required_argument,	NULL, OPT_MAPS },
		{ "symfs",		required_argument,	NULL, OPT_SYMFS },
		{ "pretty",		no_argument,		NULL, 'p' },
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct analysis_opts aopts = { .threshold_us = 1000, .top_n = 10 };
	struct summary_meta meta = { .no_retry = -1, .retry_vma_lock = -1, .status_lost = -1 };
	struct trace_status st;
	struct analyze_ctx ctx = { 0 };
	const char *output = NULL, *status_path = NULL, *maps_dir = NULL, *symfs = NULL;
	char *maps_path = NULL, *maps_err = NULL;
	int pretty = 0, quiet = 0, stack_pos = -1, no_retry = -1, retry_vma_lock = -1;
	int c, ret = MMLOCK_EXIT_OK;
	struct analysis *an = NULL;
	struct source *src = NULL;
	struct parsed_line pl;
	json_object *summary;
	char *err = NULL;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "o:w:k:s:t:n:pqh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'w':
			meta.workload = optarg;
			break;
		case 'k':
			meta.kernel = optarg;
			break;
		case 's':
			if (parse_sysctl(optarg, &no_retry, &retry_vma_lock)) {
				pr_err("--sysctl '%s': expected %s=0|1 or %s=0|1", optarg,
				       mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].name,
				       mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK].name);
				return MMLOCK_EXIT_USAGE;
			}
			break;
		case 't':
			if (parse_u64(optarg, &v)) {
				pr_err("--threshold-us '%s': expected microseconds", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			aopts.threshold_us = v;
			break;
		case 'n':
			if (parse_u64(optarg, &v) || v > 10000) {
				pr_err("--top '%s': expected 0..10000", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			aopts.top_n = (unsigned int)v;
			break;
		case OPT_STACK_POS:
			if (strcmp(optarg, "before") && strcmp(optarg, "after")) {
				pr_err("--stack-position '%s': expected before or after", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			stack_pos = !strcmp(optarg, "before");
			break;
		case OPT_STATUS:
			status_path = optarg;
			break;
		case OPT_MAPS:
			maps_dir = optarg;
			break;
		case OPT_SYMFS:
			symfs = optarg;
			break;
		case 'p':
			pretty = 1;
			break;
		case 'q':
			quiet = 1;
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
		pr_err("no INPUT given (a trace file, a chunk, or a chunk directory)");
		usage(stderr);
		return MMLOCK_EXIT_USAGE;
	}

	ctx.errors = json_object_new_array();
	src = source_open(argv + optind, argc - optind, on_input_error, &ctx, &err);
	if (!src) {
		pr_err("%s", err);
		free(err);
		ret = MMLOCK_EXIT_INPUT;
		goto out_put_errors;
	}
	trace_status_init(&st);
	if (status_path)
		trace_status_read(&st, status_path, 1);
	else if (source_status_path(src))
		trace_status_read(&st, source_status_path(src), 0);

	aopts.stack_before = stack_pos >= 0 ? stack_pos : st.stack_before > 0;
	an = analysis_new(&aopts);
	while (source_next(src, &pl)) {
		if (pl.kind == LINE_MALFORMED) {
			int cut;
			const char *head = source_head(src, &cut);
			char *what = xasprintf("expected %s, got '%s%s'", pl.what, head,
					       cut ? "..." : "");

			analysis_malformed(an);
			add_error(&ctx, source_file(src), source_lineno(src), what);
			free(what);
		}
		analysis_feed(an, &pl);
	}
	analysis_finish(an);
	if (ctx.nr_errors > MAX_REPORTED_ERRORS)
		pr_err("%lu problems in the input in all; the first %d are listed above",
		       ctx.nr_errors, MAX_REPORTED_ERRORS);

	if (!analysis_trace_lines(an)) {
		/*
		 * Nothing to analyze.  An unreadable input was already named;
		 * a damaged one (a zstd chunk cut inside its only block) still
		 * gets a summary that says so, with exit 4 below.
		 */
		if (!ctx.nr_errors)
			pr_err("no trace line in %s%s", argv[optind],
			       argc - optind > 1 ? " and the other inputs" : "");
		if (!ctx.nr_errors || ctx.open_failures) {
			ret = MMLOCK_EXIT_INPUT;
			goto out_free_analysis;
		}
	}

	meta.no_retry = no_retry >= 0 ? no_retry : st.no_retry;
	meta.retry_vma_lock = retry_vma_lock >= 0 ? retry_vma_lock : st.retry_vma_lock;
	meta.clock = st.clock;
	meta.filter = st.filter;
	meta.event_set = st.event_set;
	meta.event_source = st.event_source;
	meta.module_caps = st.module_caps;
	meta.events = st.events;
	meta.nr_events = st.nr_events;
	meta.status_lost = st.lost;
	meta.chunks = source_nr_files(src);
	meta.truncated_inputs = source_truncated(src);
	meta.input_errors = ctx.errors;
	open_maps(maps_dir, argv[optind], argc - optind, symfs, st.clock, &meta, &maps_path,
		  &maps_err);
	summary = analysis_summary(an, &meta);
	if (result) {
		*result = summary;
		if (ctx.nr_errors)
			ret = MMLOCK_EXIT_PARTIAL;
		goto out_free_analysis;
	}
	if (write_output(output, summary, pretty))
		ret = MMLOCK_EXIT_OUTPUT;
	else if (ctx.nr_errors)
		ret = MMLOCK_EXIT_PARTIAL;
	/* standard output is free when the JSON went to a file (not to it) */
	if (ret != MMLOCK_EXIT_OUTPUT && output && !quiet && !same_file_as_stdout(output)) {
		char *title = xasprintf("%s", meta.workload ? meta.workload : argv[optind]);

		summary_words_print(stdout, summary, title, NULL);
		free(title);
		fflush(stdout);
	}
	json_object_put(summary);

out_free_analysis:
	maps_snapshots_free(meta.maps);
	free(maps_path);
	free(maps_err);
	analysis_free(an);
	source_close(src);
	trace_status_release(&st);
out_put_errors:
	json_object_put(ctx.errors);
	return ret;
}

int cmd_analyze(int argc, char **argv)
{
	return analyze_main(argc, argv, NULL);
}

/**
 * cmd_analyze_summary - `mmlock analyze` in-process, the summary handed back
 * @argc: argument count (argv[0] is "analyze")
 * @argv: the options and inputs of `mmlock analyze`, without -o
 * @summary: set to the summary (the caller puts it), NULL when none was made
 *
 * What `mmlock run` calls: it merges the workload's report and the policy
 * into the summary and writes it once, atomically, instead of reading back
 * a file analyze wrote.
 *
 * Return: the exit code `mmlock analyze` would have (MMLOCK_EXIT_PARTIAL
 * with a summary when part of the input was damaged).
 */
int cmd_analyze_summary(int argc, char **argv, json_object **summary)
{
	*summary = NULL;
	return analyze_main(argc, argv, summary);
}
