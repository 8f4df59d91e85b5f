// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock export --perfetto: a capture as a Chrome/Perfetto trace (Trace Event
 * Format JSON, which Perfetto UI and chrome://tracing open).  The intervals
 * the analyzer pairs are slices ("X") on one track per thread (pid = TGID,
 * tid = PID, named from comm); each Type-A/B pair is a flow ("s" on the
 * blocker's thread, "f" with "bp":"e" on the blocked one) in the middle of
 * their overlap, which lies inside both slices, so each end binds to its
 * slice.  The pairs are the analyzer's own (analysis_opts' hooks): nothing
 * here decides what a pair is.  Timestamps are in µs with three decimals,
 * the capture's nanoseconds exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "analysis-int.h"
#include "source.h"
#include "jsonout.h"
#include "mmlock.h"
#include "outfile.h"
#include "parse.h"
#include "tracestatus.h"
#include "util.h"

#define EXPORT_FLUSH	(64 * 1024)

struct export_thread {
	int		pid, tgid;
	char		comm[COMM_LEN];
};

struct export_ctx {
	struct outfile	of;
	int		to_stdout;
	char		*buf;
	size_t		len, cap;
	int		err;		/* errno of the first failed write */
	int		nr_events;
	uint64_t	flows, slices;
	struct htab	threads;	/* by pid */
	uint64_t	seed;
	unsigned long	nr_errors, open_failures;
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: mmlock export --perfetto [options] CAPTURE... -o trace.json\n"
"\n"
"CAPTURE: what mmlock analyze reads (trace text, a chunk directory, a binary\n"
"capture, a trace.dat). Writes the Trace Event Format JSON that Perfetto UI\n"
"(ui.perfetto.dev) and chrome://tracing open: the intervals the analyzer pairs\n"
"as slices, one track per thread, and every Type-A/B pair as a flow arrow from\n"
"the blocker's slice to the blocked one (Type-C pairs say so in their name).\n"
"\n"
"  -o, --output FILE          write there (default: standard output)\n"
"      --perfetto             the Trace Event Format (the only format)\n"
"      --stack-position before|after\n"
"                             as for mmlock analyze\n"
"  -h, --help                 this text\n"
"\n"
"Exit: 0 written; 2 usage; 3 input missing, unreadable or without any trace\n"
"line; 4 written but an input was damaged; 7 output not written.\n");
}

static void out_raw(struct export_ctx *x, const char *s, size_t n)
{
	if (x->len + n > x->cap) {
		x->cap = (x->len + n) * 2;
		x->buf = xrealloc(x->buf, x->cap);
	}
	memcpy(x->buf + x->len, s, n);
	x->len += n;
}

static void out_flush(struct export_ctx *x)
{
	if (x->len && !x->err) {
		int r = x->to_stdout ? (write_all(STDOUT_FILENO, x->buf, x->len) ? -1 : 0) :
				       outfile_write(&x->of, x->buf, x->len);

		if (r)
			x->err = errno ? errno : EIO;
	}
	x->len = 0;
}

static void __attribute__((format(printf, 2, 3))) out_printf(struct export_ctx *x,
							      const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		out_raw(x, small, (size_t)n);
	} else {
		char *big = xmalloc((size_t)n + 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		out_raw(x, big, (size_t)n);
		free(big);
	}
	if (x->len >= EXPORT_FLUSH)
		out_flush(x);
}

/* A JSON string of @s (quotes included), valid UTF-8, into the output. */
static void out_string(struct export_ctx *x, const char *s)
{
	json_object *o = json_object_new_string(s);
	const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n;
	char *fixed = utf8_repair(t, strlen(t), &n);

	out_raw(x, fixed ? fixed : t, fixed ? n : strlen(t));
	free(fixed);
	json_object_put(o);
}

/* One event's separator: a comma before every event but the first. */
static void out_event(struct export_ctx *x)
{
	if (x->nr_events++)
		out_raw(x, ",\n", 2);
	else
		out_raw(x, "\n", 1);
}

static int thread_eq(const void *item, const void *key)
{
	return ((const struct export_thread *)item)->pid == *(const int *)key;
}

/* The thread of @t as first seen: its TGID (or PID) stays its process. */
static const struct export_thread *thread_of(struct export_ctx *x, const struct task *t)
{
	uint64_t h = hash_mix(x->seed, (uint64_t)(unsigned int)t->pid);
	struct export_thread *th = htab_find(&x->threads, h, thread_eq, &t->pid);

	if (!th) {
		th = xcalloc(1, sizeof(*th));
		th->pid = t->pid;
		th->tgid = t->tgid > 0 ? t->tgid : t->pid;
		htab_add(&x->threads, h, th);
	}
	if (t->comm[0])
		snprintf(th->comm, sizeof(th->comm), "%s", t->comm);
	return th;
}

/* ns as µs with the nanoseconds kept: "123.456" */
#define US_FMT		"%llu.%03llu"
#define US_ARG(ns)	(unsigned long long)((ns) / 1000), (unsigned long long)((ns) % 1000)

static const char *slice_name(int list)
{
	switch (list) {
	case L_CLOSED_FW:	return "fault wait under the VMA lock";
	case L_CLOSED_VW:	return "vma_start_write wait";
	case L_CLOSED_R:	return "retried fault: mmap_lock read wait";
	case L_CLOSED_M:	return "mmap_lock write (wait and hold)";
	case L_CLOSED_SW:	return "mmap_lock contended wait (stock events)";
	case L_CLOSED_SM:	return "mmap_lock write (stock events)";
	default:		return "interval";
	}
}

static void on_ival(void *p, const struct ival *iv, int list)
{
	struct export_ctx *x = p;
	const struct export_thread *th = thread_of(x, iv->task);
	uint64_t end = iv->end > iv->start ? iv->end : iv->start;

	out_event(x);
	out_printf(x, "{\"ph\":\"X\",\"cat\":\"mmlock\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
		   "\"ts\":" US_FMT ",\"dur\":" US_FMT ",\"args\":{\"mm\":\"%llx\"",
		   slice_name(list), th->tgid, th->pid, US_ARG(iv->start), US_ARG(end - iv->start),
		   (unsigned long long)iv->mm);
	if (iv->has_vma)
		out_printf(x, ",\"vma\":\"%llx\"", (unsigned long long)iv->vma);
	if (iv->call && iv->call->caller[0]) {
		out_raw(x, ",\"caller\":", 10);
		out_string(x, iv->call->caller);
	}
	out_printf(x, ",\"prio\":%d}}", iv->prio);
	x->slices++;
}

static void on_pair(void *p, const struct pair_rec *pr)
{
	struct export_ctx *x = p;
	const char *name = pr->type == 'A' ? (pr->c ? "Type-C (A)" : "Type-A") :
			   (pr->c ? "Type-C (B)" : "Type-B");
	const struct pair_side *s[2] = { &pr->blocker, &pr->blocked };
	/*
	 * The middle of the overlap lies strictly inside both slices once the
	 * overlap is 2 ns long: a viewer that orders equal timestamps its own
	 * way still binds each end to its slice.
	 */
	uint64_t at = pr->start_ns + pr->dur_ns / 2;
	int i;

	x->flows++;
	for (i = 0; i < 2; i++) {
		uint64_t h = hash_mix(x->seed, (uint64_t)(unsigned int)s[i]->pid);
		const struct export_thread *th = htab_find(&x->threads, h, thread_eq,
							   &s[i]->pid);
		int tgid = th ? th->tgid : s[i]->tgid > 0 ? s[i]->tgid : s[i]->pid;

		out_event(x);
		/* the same pid/tid as the side's slices, which were exported first */
		out_printf(x, "{\"ph\":\"%s\",%s\"cat\":\"mmlock.pair\",\"name\":\"%s\","
			   "\"id\":%llu,\"pid\":%d,\"tid\":%d,\"ts\":" US_FMT ",\"args\":{"
			   "\"overlap_start_us\":" US_FMT ",\"overlap_us\":" US_FMT
			   ",\"blocker\":%d,\"blocked\":%d%s}}",
			   i ? "f" : "s", i ? "\"bp\":\"e\"," : "", name,
			   (unsigned long long)x->flows, tgid, s[i]->pid, US_ARG(at),
			   US_ARG(pr->start_ns), US_ARG(pr->dur_ns), pr->blocker.pid,
			   pr->blocked.pid, pr->type != 'B' ? "" : pr->holding ?
			   ",\"writer\":\"holding\"" : ",\"writer\":\"queued\"");
	}
}

static int cmp_threads(const void *a, const void *b)
{
	const struct export_thread *x = *(struct export_thread *const *)a;
	const struct export_thread *y = *(struct export_thread *const *)b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Track names, in pid order (the table's order is a seeded hash's). */
static void out_threads(struct export_ctx *x)
{
	struct export_thread **v = xcalloc(x->threads.nr + 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < x->threads.cap; i++)
		if (x->threads.e[i].item)
			v[n++] = x->threads.e[i].item;
	qsort(v, n, sizeof(*v), cmp_threads);
	for (i = 0; i < n; i++) {
		out_event(x);
		out_printf(x, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
			   "\"args\":{\"name\":", v[i]->tgid, v[i]->pid);
		out_string(x, v[i]->comm[0] ? v[i]->comm : "<...>");
		out_raw(x, "}}", 2);
		free(v[i]);
	}
	free(v);
	htab_release(&x->threads);
}

static void on_input_error(void *p, enum input_error_kind kind, const char *file,
			   unsigned long line, const char *what)
{
	struct export_ctx *x = p;

	x->nr_errors++;
	if (kind == INPUT_ERR_OPEN)
		x->open_failures++;
	if (line)
		pr_err("%s:%lu: %s", file, line, what);
	else
		pr_err("%s: %s", file, what);
}

int cmd_export(int argc, char **argv)
{
	enum { OPT_PERFETTO = 256, OPT_STACK_POS };
	static const struct option opts[] = {
		{ "output",		required_argument,	NULL, 'o' },
		{ "perfetto",		no_argument,		NULL, OPT_PERFETTO },
		{ "stack-position",	required_argument,	NULL, OPT_STACK_POS },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct export_ctx x = { .seed = hash_seed() };
	struct analysis_opts aopts = { .threshold_us = 1000, .on_ival = on_ival,
				       .on_pair = on_pair, .hook_ctx = &x };
	const char *output = NULL;
	int c, perfetto = 0, ret = MMLOCK_EXIT_OK;
	unsigned long malformed = 0;
	struct analysis *an;
	struct source *src;
	struct parsed_line pl;
	char *err = NULL;
	static const char head[] = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":"
				   "\"mmlock export\",\"version\":\"" MMLOCK_VERSION "\"},"
				   "\"traceEvents\":[";
	struct trace_status st;
	int stack_pos = -1;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_PERFETTO:
			perfetto = 1;
			break;
		case OPT_STACK_POS:
			if (strcmp(optarg, "before") && strcmp(optarg, "after")) {
				pr_err("--stack-position '%s': expected before or after", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			stack_pos = !strcmp(optarg, "before");
			break;
		case 'h':
			usage(stdout);
			return MMLOCK_EXIT_OK;
		default:
			usage(stderr);
			return MMLOCK_EXIT_USAGE;
		}
	}
	if (!perfetto) {
		pr_err("no format given: expected --perfetto (the Trace Event Format)");
		usage(stderr);
		return MMLOCK_EXIT_USAGE;
	}
	if (optind == argc) {
		pr_err("no CAPTURE given (a trace file, a chunk directory, a binary capture, "
		       "a trace.dat)");
		usage(stderr);
		return MMLOCK_EXIT_USAGE;
	}
	src = source_open(argv + optind, argc - optind, on_input_error, &x, &err);
	if (!src) {
		pr_err("%s", err);
		free(err);
		return MMLOCK_EXIT_INPUT;
	}
	x.to_stdout = !output;
	if (output && outfile_open(&x.of, AT_FDCWD, output, NULL, OUTFILE_NO_FSYNC)) {
		pr_err("%s: cannot write: %s", output, errno == EPERM ?
		       "a symbolic link owned by another user (refused as a planted link)" :
		       errno == EEXIST ? "it is not a regular file, a character device or a FIFO" :
		       strerror(errno));
		source_close(src);
		return MMLOCK_EXIT_OUTPUT;
	}
	/* where stack blocks stand: the option, else what the recording says, as analyze */
	trace_status_init(&st);
	if (source_status_path(src))
		trace_status_read(&st, source_status_path(src), 0);
	aopts.stack_before = stack_pos >= 0 ? stack_pos : st.stack_before > 0;
	trace_status_release(&st);
	out_raw(&x, head, strlen(head));
	an = analysis_new(&aopts);
	while (source_next(src, &pl)) {
		if (pl.kind == LINE_MALFORMED) {
			if (!malformed++)
				pr_err("%s:%lu: expected a trace line (%s)", source_file(src),
				       source_lineno(src), pl.what);
			analysis_malformed(an);
		}
		analysis_feed(an, &pl);
	}
	analysis_finish(an);
	out_threads(&x);
	out_raw(&x, "\n]}\n", 4);
	if (malformed > 1)
		pr_err("%lu malformed lines in all; the first is named above", malformed);
	if (!analysis_trace_lines(an) && ((!x.nr_errors && !malformed) || x.open_failures)) {
		if (!x.nr_errors && !malformed)
			pr_err("no trace line in %s%s", argv[optind],
			       argc - optind > 1 ? " and the other inputs" : "");
		ret = MMLOCK_EXIT_INPUT;
	} else if (out_flush(&x), x.err) {
		pr_err("%s: cannot write: %s", output ? output : "standard output",
		       strerror(x.err));
		ret = MMLOCK_EXIT_OUTPUT;
	} else if (malformed || x.nr_errors) {
		ret = MMLOCK_EXIT_PARTIAL;
	}
	if (output) {
		if (ret == MMLOCK_EXIT_INPUT || ret == MMLOCK_EXIT_OUTPUT) {
			outfile_abort(&x.of);
		} else if (outfile_commit(&x.of)) {
			pr_err("%s: cannot write: %s", output, strerror(errno));
			ret = MMLOCK_EXIT_OUTPUT;
		}
	}
	if (ret == MMLOCK_EXIT_OK || ret == MMLOCK_EXIT_PARTIAL)
		pr_info("%s: %llu slices, %llu pairs as flows", output ? output : "standard output",
			(unsigned long long)x.slices, (unsigned long long)x.flows);
	analysis_free(an);
	source_close(src);
	free(x.buf);
	return ret;
}
