// SPDX-License-Identifier: GPL-2.0
/*
 * `mmlock record` options, and the pure helpers behind them: filter-spec
 * splitting and closest-name suggestions.  Nothing here touches tracefs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "evset.h"
#include "util.h"

void record_usage(FILE *out)
{
	fprintf(out,
"usage: mmlock record [OPTIONS] -o DIR [-- COMMAND [ARGS...]]\n"
"       mmlock record --stdin [-e LIST [-F EV:EXPR] [-s EV]] [OPTIONS] -o DIR\n"
"\n"
"Stream trace events from a private tracefs instance into DIR: per-CPU raw\n"
"ring-buffer pages, read without loss at high rates (or, with --text,\n"
"numbered line-complete text chunks of trace_pipe), with DIR/trace.status\n"
"describing the capture and every lost event.\n"
"\n"
"  -o, --output DIR        output directory (created; refused if it is a symlink\n"
"                          or a non-empty directory, unless --force)\n"
"  -f, --force             reuse DIR: remove the trace files already in it\n"
"  -e, --events LIST       events, comma-separated: NAME or SYSTEM:NAME, or\n"
"                          'default' (the events of the source, --source)\n"
"      --source KIND       where the default events come from: auto (default:\n"
"                          kernel if it has every event of the contract, else\n"
"                          module if mmlock_probe.ko is loaded, else stock),\n"
"                          kernel (the mmlock series), module (mmlock_probe.ko:\n"
"                          the same events in the system mmlock_probe) or stock\n"
"                          (the kernel's own mmap_lock, lock:contention_*,\n"
"                          filemap, exceptions and sched events)\n"
"  -F, --filter EV:EXPR    kernel filter for event EV (repeatable)\n"
"  -p, --tgid TGID         only this process (all its threads and children)\n"
"  -s, --stack EV          kernel stack trace after each EV event that passes\n"
"                          its filter ('stacktrace if FILTER'; repeatable)\n"
"  -b, --buffer-size SIZE  ring buffer per CPU (default 4M)\n"
"  -C, --clock CLOCK       trace_clock (default mono)\n"
"  -d, --duration TIME     stop after TIME (10s, 500ms, 2m)\n"
"      --text              text chunks of trace_pipe, not raw pages (the\n"
"                          options below choose text too; --stdin is text)\n"
"      --chunk-lines N     cut a chunk after N lines\n"
"      --chunk-bytes SIZE  cut before a chunk exceeds SIZE uncompressed bytes\n"
"                          (default 64M)\n"
"      --chunk-seconds T   cut a chunk once it is T old\n"
"  -z, --compress KIND     gzip (default), zstd or none\n"
"      --level N           compression level (default 1)\n"
"      --binary            per-CPU raw ring-buffer pages (the default)\n"
"      --stdin             chunk standard input (e.g. adb exec-out cat trace_pipe);\n"
"                          -e/-F/-s then say what the producer enabled (written\n"
"                          to trace.status only; without -e: unknown, null)\n"
"      --from-binary SRC   decode the --binary capture in SRC into text chunks\n"
"      --progress          progress on stderr once a second (default: when a tty)\n"
"      --no-fsync          do not fsync chunks when they are completed\n"
"      --tracefs DIR       tracefs mount (default /sys/kernel/tracing or\n"
"                          $MMLOCK_TRACEFS)\n"
"      --dry-run           print the events, filters and triggers it would set\n"
"                          (JSON, the keys of trace.status) and record nothing;\n"
"                          needs no -o\n"
"  -h, --help              this text\n"
"\n"
"With COMMAND, mmlock starts it held at a gate, filters its TGID, releases it,\n"
"and stops when it exits.  SIGINT, SIGTERM and SIGHUP stop cleanly.\n"
"Exit: 0 ok, 2 usage, 5 environment (root, tracefs), 6 kernel refused a\n"
"setting, 7 output not writable or full, 8 COMMAND failed to start or crashed.\n");
}

enum {
	OPT_CHUNK_LINES = 256,
	OPT_CHUNK_BYTES,
	OPT_CHUNK_SECONDS,
	OPT_LEVEL,
	OPT_BINARY,
	OPT_STDIN,
	OPT_PROGRESS,
	OPT_NO_FSYNC,
	OPT_TRACEFS,
	OPT_FROM_BINARY,
	OPT_SOURCE,
	OPT_DRY_RUN,
	OPT_TEXT,
};

static const struct option long_opts[] = {
	{ "output",		required_argument,	NULL, 'o' },
	{ "force",		no_argument,		NULL, 'f' },
	{ "events",		required_argument,	NULL, 'e' },
	{ "filter",		required_argument,	NULL, 'F' },
	{ "tgid",		required_argument,	NULL, 'p' },
	{ "stack",		required_argument,	NULL, 's' },
	{ "buffer-size",	required_argument,	NULL, 'b' },
	{ "clock",		required_argument,	NULL, 'C' },
	{ "duration",		required_argument,	NULL, 'd' },
	{ "compress",		required_argument,	NULL, 'z' },
	{ "chunk-lines",	required_argument,	NULL, OPT_CHUNK_LINES },
	{ "chunk-bytes",	required_argument,	NULL, OPT_CHUNK_BYTES },
	{ "chunk-seconds",	required_argument,	NULL, OPT_CHUNK_SECONDS },
	{ "level",		required_argument,	NULL, OPT_LEVEL },
	{ "binary",		no_argument,		NULL, OPT_BINARY },
	{ "text",		no_argument,		NULL, OPT_TEXT },
	{ "stdin",		no_argument,		NULL, OPT_STDIN },
	{ "progress",		no_argument,		NULL, OPT_PROGRESS },
	{ "no-fsync",		no_argument,		NULL, OPT_NO_FSYNC },
	{ "tracefs",		required_argument,	NULL, OPT_TRACEFS },
	{ "from-binary",	required_argument,	NULL, OPT_FROM_BINARY },
	{ "source",		required_argument,	NULL, OPT_SOURCE },
	{ "dry-run",		no_argument,		NULL, OPT_DRY_RUN },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int is_ident(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '*'))
			return 0;
	}
	return 1;
}

int filter_spec_split(const char *arg, char **event, char **expr)
{
	const char *c1 = strchr(arg, ':'), *c2, *e;

	if (!c1 || !is_ident(arg, (size_t)(c1 - arg))) {
		errno = EINVAL;
		return -1;
	}
	e = c1 + 1;
	c2 = strchr(e, ':');
	/* "system:event:expr": an expression never starts with "word:" */
	if (c2 && is_ident(e, (size_t)(c2 - e)))
		e = c2 + 1;
	while (*e == ' ')
		e++;
	if (!*e) {
		errno = EINVAL;
		return -1;
	}
	*event = strndup(arg, (size_t)(e - arg - 1));
	*expr = strdup(e);
	if (!*event || !*expr) {
		free(*event);
		free(*expr);
		return -1;
	}
	/* "sys:ev: expr" leaves the separator on the event: trim it */
	(*event)[strcspn(*event, " ")] = '\0';
	if ((*event)[0] && (*event)[strlen(*event) - 1] == ':')
		(*event)[strlen(*event) - 1] = '\0';
	return 0;
}

static void push(char ***arr, size_t *nr, char *s)
{
	*arr = xrealloc(*arr, (*nr + 1) * sizeof(**arr));
	(*arr)[(*nr)++] = s;
}

static int bad(const char *opt, const char *arg, const char *why)
{
	pr_err("invalid %s '%s': %s", opt, arg, why);
	return -1;
}

int record_parse_args(int argc, char **argv, struct record_opts *o)
{
	int c, text = 0, binary = 0, chunks = 0;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->buffer_kb = 4096;
	o->clock = "mono";
	o->compress = CHUNK_GZIP;
	o->level = 1;
	o->limits.bytes = 64ULL << 20;
	o->tracefs = getenv("MMLOCK_TRACEFS");
	if (o->tracefs && !*o->tracefs)
		o->tracefs = NULL;

	optind = 0;	/* glibc, musl, bionic: getopt starts afresh (called in-process too) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:fe:F:p:s:b:C:d:z:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'e': {
			char *list = xstrdup(optarg), *save = NULL, *tok;

			for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				push(&o->events, &o->nr_events, xstrdup(tok));
			free(list);
			break;
		}
		case 'F': {
			struct filter_spec fs;

			if (filter_spec_split(optarg, &fs.event, &fs.expr))
				return bad("--filter", optarg, "expected EVENT:EXPRESSION");
			o->filters = xrealloc(o->filters, (o->nr_filters + 1) * sizeof(*o->filters));
			o->filters[o->nr_filters++] = fs;
			break;
		}
		case 'p':
			if (parse_u64(optarg, &v) || !v || v > 0x7fffffff)
				return bad("--tgid", optarg, "expected a process id");
			o->tgid = (int)v;
			break;
		case 's':
			push(&o->stacks, &o->nr_stacks, xstrdup(optarg));
			break;
		case 'b':
			if (parse_size(optarg, &v) || v < 4096 || v / 1024 > (1ULL << 30))
				return bad("--buffer-size", optarg, "expected a size of at least 4K");
			o->buffer_kb = v / 1024;
			break;
		case 'C':
			o->clock = optarg;
			break;
		case 'd':
			if (parse_duration_us(optarg, &v) || !v)
				return bad("--duration", optarg, "expected a time such as 10s or 500ms");
			o->duration_us = v;
			break;
		case 'z':
			chunks = 1;
			if (chunk_compress_parse(optarg, &o->compress))
				return bad("--compress", optarg, "expected gzip, zstd or none");
			break;
		case OPT_CHUNK_LINES:
			chunks = 1;
			if (parse_u64(optarg, &v) || !v)
				return bad("--chunk-lines", optarg, "expected a number of lines");
			o->limits.lines = v;
			break;
		case OPT_CHUNK_BYTES:
			chunks = 1;
			if (parse_size(optarg, &v) || !v)
				return bad("--chunk-bytes", optarg, "expected a size such as 64M");
			o->limits.bytes = v;
			break;
		case OPT_CHUNK_SECONDS:
			chunks = 1;
			if (parse_duration_us(optarg, &v) || !v)
				return bad("--chunk-seconds", optarg, "expected a time such as 60s");
			o->limits.usecs = v;
			break;
		case OPT_LEVEL:
			chunks = 1;
			if (parse_u64(optarg, &v) || !v || v > 19)
				return bad("--level", optarg, "expected 1-9 (gzip) or 1-19 (zstd)");
			o->level = (int)v;
			break;
		case OPT_BINARY:
			binary = 1;
			break;
		case OPT_TEXT:
			text = 1;
			break;
		case OPT_STDIN:
			o->use_stdin = 1;
			break;
		case OPT_PROGRESS:
			o->progress = 1;
			break;
		case OPT_NO_FSYNC:
			o->no_fsync = 1;
			break;
		case OPT_TRACEFS:
			o->tracefs = optarg;
			break;
		case OPT_FROM_BINARY:
			o->from_binary = optarg;
			break;
		case OPT_SOURCE: {
			int src = evset_source_parse(optarg);

			if (src < 0)
				return bad("--source", optarg, "expected auto, kernel, module or stock");
			o->source = src;
			break;
		}
		case OPT_DRY_RUN:
			o->dry_run = 1;
			break;
		case 'h':
			o->help = 1;
			return 0;
		case ':':
			pr_err("option '%s' needs an argument; see 'mmlock record --help'",
			       argv[optind - 1]);
			return -1;
		default:
			pr_err("unknown option '%s'; see 'mmlock record --help'", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		o->cmd = argv + optind;
		o->nr_cmd = argc - optind;
	}
	if (!o->output && !o->dry_run) {
		pr_err("no output directory: give -o DIR");
		return -1;
	}
	if (o->dry_run && (o->use_stdin || o->from_binary || o->cmd)) {
		pr_err("--dry-run shows what a recording would set in the kernel: it takes no "
		       "--stdin, --from-binary or COMMAND");
		return -1;
	}
	if (o->source != EVSET_SRC_AUTO && !o->use_stdin) {
		size_t i;
		int dflt = !o->nr_events;

		for (i = 0; i < o->nr_events; i++)
			dflt |= !strcmp(o->events[i], "default");
		if (!dflt) {
			pr_err("--source chooses the default events: give no -e, or -e default");
			return -1;
		}
	}
	if (o->compress == CHUNK_GZIP && o->level > 9)
		return bad("--level", "gzip", "gzip levels are 1-9");
	if (text && binary) {
		pr_err("--text and --binary choose the capture's form: give one");
		return -1;
	}
	if ((o->use_stdin || o->from_binary) && (binary || o->cmd || o->tgid)) {
		pr_err("%s chunks a stream: it takes no --binary, --tgid or COMMAND",
		       o->use_stdin ? "--stdin" : "--from-binary");
		return -1;
	}
	if (o->use_stdin && o->from_binary) {
		pr_err("--stdin and --from-binary are two inputs: give one");
		return -1;
	}
	if (o->tgid && o->cmd) {
		pr_err("--tgid and COMMAND both choose the process: give one");
		return -1;
	}
	/*
	 * Raw pages by default: text through trace_pipe loses most events at
	 * high rates (bench/record).  Options that only shape text chunks
	 * choose text, as they did when text was the default.
	 */
	o->binary = !o->use_stdin && !o->from_binary && !text && (binary || !chunks);
	return 0;
}

void record_opts_release(struct record_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_events; i++)
		free(o->events[i]);
	free(o->events);
	for (i = 0; i < o->nr_filters; i++) {
		free(o->filters[i].event);
		free(o->filters[i].expr);
	}
	free(o->filters);
	for (i = 0; i < o->nr_stacks; i++)
		free(o->stacks[i]);
	free(o->stacks);
	memset(o, 0, sizeof(*o));
}

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, *row, ret;

	row = xmalloc((lb + 1) * sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	ret = row[lb];
	free(row);
	return ret;
}

static const char *bare(const char *s)
{
	const char *c = strchr(s, ':');

	return c ? c + 1 : s;
}

size_t closest_names(const char *want, char *const *names, size_t nr,
		     const char **out, size_t max)
{
	size_t *dist, i, n = 0, limit;
	const char *w = strchr(want, ':') ? want : NULL;

	if (!max)
		return 0;
	dist = xcalloc(max, sizeof(*dist));
	/* a suggestion must be reasonably close: a third of the name, at least 2 */
	limit = strlen(bare(want)) / 3;
	if (limit < 2)
		limit = 2;
	for (i = 0; i < nr; i++) {
		size_t d, k;

		d = w ? edit_distance(want, names[i]) : edit_distance(want, bare(names[i]));
		if (strstr(names[i], bare(want)) && d > 1)
			d = 1;	/* a prefix or part of a real name */
		if (d > limit)
			continue;
		for (k = n; k > 0 && dist[k - 1] > d; k--) {
			if (k < max) {
				dist[k] = dist[k - 1];
				out[k] = out[k - 1];
			}
		}
		if (k >= max)
			continue;
		dist[k] = d;
		out[k] = names[i];
		if (n < max)
			n++;
	}
	free(dist);
	return n;
}
