// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock convert: a binary capture (mmlock record --binary, or a device's
 * host-side pages) decoded into the text chunks and trace.status a text
 * recording writes, for tools that read trace_pipe text.  trace-cmd's
 * trace-convert.c is the model: conversion is its own command, not a mode
 * of record; `mmlock record --from-binary SRC` stays as its alias.
 *
 * The decoder (capture/decode.c) reads only what the capture saved: its
 * formats, kallsyms and pages, each a regular file of bounded size; a
 * damaged page is counted and skipped.  The output directory follows
 * record's rules (created, or empty, or --force; chunks created
 * exclusively and renamed into place; trace.status written atomically).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "infile.h"
#include "mmlock.h"
#include "record.h"
#include "util.h"

static void convert_usage(FILE *out)
{
	fprintf(out,
"usage: mmlock convert CAPTURE_DIR [-o OUT] [OPTIONS]\n"
"\n"
"Decode the binary capture in CAPTURE_DIR (mmlock record --binary: raw/,\n"
"tracefs/, kallsyms) into OUT as numbered, line-complete text chunks in\n"
"trace_pipe's record-tgid layout, with OUT/trace.status (mode \"decoded\")\n"
"carrying what the capture recorded and lost.  mmlock analyze reads either.\n"
"\n"
"  -o, --output OUT        output directory (default CAPTURE_DIR.txt; created;\n"
"                          refused if it is a symlink or a non-empty directory,\n"
"                          unless --force)\n"
"  -f, --force             reuse OUT: remove the trace files already in it\n"
"  -z, --compress KIND     gzip (default), zstd or none\n"
"      --level N           compression level (default 1)\n"
"      --chunk-lines N     cut a chunk after N lines\n"
"      --chunk-bytes SIZE  cut before a chunk exceeds SIZE uncompressed bytes\n"
"                          (default 64M)\n"
"      --no-fsync          do not fsync chunks when they are completed\n"
"  -h, --help              this text\n"
"\n"
"'mmlock record --from-binary CAPTURE_DIR -o OUT' is the same command.\n"
"Exit: 0 ok, 2 usage, 3 CAPTURE_DIR is not a readable binary capture,\n"
"4 damaged ring-buffer pages were skipped (the rest converted), 7 output\n"
"not writable or full, 9 out of memory.\n");
}

enum {
	OPT_LEVEL = 256,
	OPT_CHUNK_LINES,
	OPT_CHUNK_BYTES,
	OPT_NO_FSYNC,
};

static const struct option convert_opts[] = {
	{ "output",		required_argument,	NULL, 'o' },
	{ "force",		no_argument,		NULL, 'f' },
	{ "compress",		required_argument,	NULL, 'z' },
	{ "level",		required_argument,	NULL, OPT_LEVEL },
	{ "chunk-lines",	required_argument,	NULL, OPT_CHUNK_LINES },
	{ "chunk-bytes",	required_argument,	NULL, OPT_CHUNK_BYTES },
	{ "no-fsync",		no_argument,		NULL, OPT_NO_FSYNC },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* 0 ok (o->help set for --help), -1 bad usage (said). */
static int convert_parse_args(int argc, char **argv, struct record_opts *o)
{
	int c, idx = 0;

	memset(o, 0, sizeof(*o));
	o->compress = CHUNK_GZIP;
	o->level = 1;
	o->limits.bytes = 64ULL << 20;
	optind = 0;	/* getopt starts afresh, also when called in-process */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:fz:h", convert_opts, &idx)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'z':
		case OPT_LEVEL:
		case OPT_CHUNK_LINES:
		case OPT_CHUNK_BYTES: {
			const char *name = c == 'z' ? "compress" : convert_opts[idx].name, *why;

			if (chunk_option_parse(name, optarg, &o->compress, &o->level, &o->limits,
					       &why)) {
				pr_err("invalid --%s '%s': %s", name, optarg, why);
				return -1;
			}
			break;
		}
		case OPT_NO_FSYNC:
			o->no_fsync = 1;
			break;
		case 'h':
			o->help = 1;
			return 0;
		case ':':
			pr_err("option '%s' needs an argument; see 'mmlock convert --help'",
			       argv[optind - 1]);
			return -1;
		default:
			pr_err("unknown option '%s'; see 'mmlock convert --help'", argv[optind - 1]);
			return -1;
		}
	}
	if (optind >= argc) {
		pr_err("no capture: give CAPTURE_DIR, the directory mmlock record --binary wrote");
		return -1;
	}
	if (optind + 1 < argc) {
		pr_err("one capture at a time: '%s' after CAPTURE_DIR '%s'", argv[optind + 1],
		       argv[optind]);
		return -1;
	}
	o->from_binary = argv[optind];
	if (o->compress == CHUNK_GZIP && o->level > 9) {
		pr_err("invalid --level for gzip: gzip levels are 1-9");
		return -1;
	}
	return 0;
}

static int decode_line(const char *line, size_t len, void *ctx)
{
	return record_feed(ctx, line, len) ? -1 : 0;
}

/* The binary capture's own trace.status, or NULL (tracestatus.h: bounded, checked). */
static struct trace_status *read_source_status(const char *path)
{
	struct trace_status *st;

	if (access(path, F_OK))
		return NULL;
	st = xmalloc(sizeof(*st));
	trace_status_init(st);
	if (trace_status_read(st, path, 0)) {
		free(st);
		return NULL;
	}
	return st;
}

int record_convert(struct record *r, const char *src)
{
	struct bin_decode_stats st = { 0 };
	char *path, *why;
	int ret, failed, decode_failed;

	r->mode = "decoded";
	r->source_dir = src;
	/* before anything is created: a wrong CAPTURE_DIR leaves no OUT behind */
	if (bin_capture_check(src, &why)) {
		record_error(r, "%s", why);
		free(why);
		return MMLOCK_EXIT_INPUT;
	}
	path = xasprintf("%s/trace.status", src);
	r->source = read_source_status(path);
	free(path);
	if (!r->source)
		pr_warn("%s has no readable trace.status: the decoded one describes only the "
			"chunks", src);
	ret = record_begin(r);
	if (ret != MMLOCK_EXIT_OK)
		return ret;
	decode_failed = bin_decode(src, decode_line, r, &st) != 0;
	if (decode_failed && !r->error)
		record_error(r, "cannot decode %s: %s", src,
			     errno == ENOENT ? "not a binary capture (no raw/cpu000.raw or "
			     "tracefs/events/header_page)" : infile_strerror(errno));
	if (st.missed_unknown)
		pr_warn("%d pages of %s missed an unknown number of events",
			st.missed_unknown, src);
	if (st.bad_pages) {
		/* counted and skipped, the rest decoded: exit 4, as analyze does */
		pr_warn("%llu damaged ring-buffer page%s of %s skipped (a page header or event "
			"that does not fit its page)", (unsigned long long)st.bad_pages,
			st.bad_pages == 1 ? "" : "s", src);
		r->bad_pages = st.bad_pages;
	}
	failed = record_end(r, decode_failed) != 0;
	if (!failed)
		return st.bad_pages ? MMLOCK_EXIT_PARTIAL : MMLOCK_EXIT_OK;
	/* the decoder's own failure is the input's; a chunk or status write's the output's */
	return decode_failed && r->error && strstr(r->error, "cannot decode") ?
	       MMLOCK_EXIT_INPUT : MMLOCK_EXIT_OUTPUT;
}

int cmd_convert(int argc, char **argv)
{
	struct record_opts opts;
	struct record r;
	char *dflt = NULL;
	int ret;

	if (convert_parse_args(argc, argv, &opts))
		return MMLOCK_EXIT_USAGE;
	if (opts.help) {
		convert_usage(stdout);
		return MMLOCK_EXIT_OK;
	}
	if (!opts.output) {
		size_t len = strlen(opts.from_binary);

		while (len > 1 && opts.from_binary[len - 1] == '/')
			len--;
		dflt = xasprintf("%.*s.txt", (int)len, opts.from_binary);
		opts.output = dflt;
	}
	record_init(&r, &opts, argc, argv);
	ret = record_convert(&r, opts.from_binary);
	record_release(&r, ret);
	free(dflt);
	return ret;
}
