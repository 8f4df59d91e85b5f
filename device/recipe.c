// SPDX-License-Identifier: GPL-2.0
/*
 * Recipes beside the trace: a Perfetto config and a simpleperf command line
 * (see recipe.h).  The event sets follow the collector's default sets
 * (collector/cmd-record.c, add_default_events()), read from the contract's
 * tables rather than listed again; that function takes a live kernel's
 * available events, so the choice of a source's set is repeated here for a
 * host that has no device at hand (request F.md: one callable set in
 * common/evset.c for both).
 *
 * Perfetto fields used, with the release that brought each (git history of
 * google/perfetto's protos): TraceConfig buffers, data_sources, duration_ms,
 * write_into_file, file_write_period_ms, flush_period_ms (v3 and before),
 * builtin_data_sources.primary_trace_clock (v4), FtraceConfig
 * ftrace_events, buffer_size_kb, drain_period_ms, ProcessStatsConfig
 * scan_all_processes_on_start, record_thread_names (v3), PerfEventConfig
 * callstack_sampling with scope and kernel_frames (v13), ring_buffer_pages,
 * Timebase tracepoint (v14), timestamp_clock (v22): all in v35, the
 * release Android 14 ships.  Nothing newer (Timebase.poll_period_ms is v50).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "filter.h"
#include "outfile.h"
#include "recipe.h"
#include "util.h"

/* Where simpleperf writes on the device by default. */
#define RECIPE_SIMPLEPERF_OUT	"/data/local/tmp/mmlock/perf.data"

/*
 * GKI vendor modules reach our wait/hold events only while a stock
 * mmap_lock event is enabled (collector/cmd-record.c,
 * add_gki_module_triggers()): a phone's kernel set has them too.
 */
static const enum mmlock_event_id gki_triggers[] = {
	MMLOCK_EV_MMAP_LOCK_START_LOCKING, MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED,
	MMLOCK_EV_MMAP_LOCK_RELEASED,
};

static void event_push(struct recipe *r, const char *sys, const char *name, char *stack_filter)
{
	struct recipe_event *e;
	size_t i;

	for (i = 0; i < r->nr_events; i++) {
		if (!strcmp(r->events[i].system, sys) && !strcmp(r->events[i].name, name)) {
			free(stack_filter);
			return;
		}
	}
	r->events = xrealloc(r->events, (r->nr_events + 1) * sizeof(*r->events));
	e = &r->events[r->nr_events++];
	e->system = xstrdup(sys);
	e->name = xstrdup(name);
	e->stack_filter = stack_filter;
}

/* The stack filter of a contract event: NULL when no callstack is sampled on it. */
static char *stack_filter_of(const struct recipe *r, const struct mmlock_event *ev)
{
	if (ev && ev->custom && mmlock_event_field(ev, "user_pc"))
		return trace_filter_tgids(r->tgids, r->nr_tgids);
	/* the collector's stack trigger of the stock set: write acquisitions */
	if (ev && ev->id == MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED)
		return xstrdup(EVSET_WRITE_STACK_IF);
	return NULL;
}

static void add_custom(struct recipe *r, const char *module_sys)
{
	int i;

	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];

		event_push(r, module_sys ? module_sys : ev->system, ev->name,
			   stack_filter_of(r, ev));
	}
}

static void add_stock(struct recipe *r)
{
	int i;

	for (i = MMLOCK_EV_NR_CUSTOM + 1; i < MMLOCK_EV_NR; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];

		if (ev->name)
			event_push(r, ev->system, ev->name, stack_filter_of(r, ev));
	}
	for (i = 0; i < EVSET_X_NR; i++)
		event_push(r, evset_extras[i].system, evset_extras[i].name, NULL);
}

static int add_listed(struct recipe *r, const char *spec, char **why)
{
	char *list = xstrdup(spec), *tok, *save = NULL;
	int ret = 0;

	for (tok = strtok_r(list, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		const struct mmlock_event *ev = evset_find(tok);
		char *colon = strchr(tok, ':'), *filter;
		int x = evset_extra_find(tok);

		if (!colon || (!ev && x < 0)) {
			*why = xasprintf("'%s': expected kernel, module, stock, or SYSTEM:NAME events "
					 "of the contract (mmlock events lists them)", tok);
			ret = -1;
			break;
		}
		*colon = '\0';
		filter = ev ? stack_filter_of(r, ev) : NULL;
		if (!filter && r->stack_all_listed)
			filter = xstrdup("");
		event_push(r, tok, colon + 1, filter);
	}
	free(list);
	return ret;
}

int recipe_events_add(struct recipe *r, const char *spec, char **why)
{
	*why = NULL;
	if (!strcmp(spec, "kernel")) {
		size_t i;

		add_custom(r, NULL);
		for (i = 0; i < ARRAY_SIZE(gki_triggers); i++)
			event_push(r, mmlock_events[gki_triggers[i]].system,
				   mmlock_events[gki_triggers[i]].name, NULL);
	} else if (!strcmp(spec, "module")) {
		add_custom(r, EVSET_MODULE_SYSTEM);
	} else if (!strcmp(spec, "stock")) {
		add_stock(r);
	} else if (add_listed(r, spec, why)) {
		return -1;
	}
	if (!r->nr_events) {
		*why = xasprintf("'%s': no events", spec);
		return -1;
	}
	return 0;
}

size_t recipe_nr_stack_events(const struct recipe *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_events; i++)
		n += r->events[i].stack_filter != NULL;
	return n;
}

void recipe_release(struct recipe *r)
{
	size_t i;

	for (i = 0; i < r->nr_events; i++) {
		free(r->events[i].system);
		free(r->events[i].name);
		free(r->events[i].stack_filter);
	}
	free(r->events);
	free(r->tgids);
	memset(r, 0, sizeof(*r));
}

/* ---- Perfetto ---- */

struct text {
	char	*s;
	size_t	len, cap;
};

static void __attribute__((format(printf, 2, 3))) emit(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n >= 0 && t->s && (size_t)n < t->cap - t->len)
			break;
		t->cap = (t->cap + (size_t)(n < 0 ? 0 : n) + 1) * 2;
		t->s = xrealloc(t->s, t->cap);
	}
	t->len += (size_t)n;
}

/* A text-format string literal: quotes and backslashes escaped, control bytes octal. */
static char *pb_quote(const char *s)
{
	struct text t = { NULL, 0, 0 };

	emit(&t, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			emit(&t, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			emit(&t, "\\%03o", c);
		else
			emit(&t, "%c", c);
	}
	emit(&t, "\"");
	return t.s;
}

/*
 * Buffers: the events' central buffer holds 16 per-CPU kernel buffers
 * (drained into the file every second), process stats their own small one
 * (the initial scan must not be overwritten by events), the perf samples
 * theirs (a user stack is up to 64 KiB).
 */
#define PF_EVENTS_BUF_FACTOR	16
#define PF_STATS_BUF_KB		4096
#define PF_PERF_BUF_FACTOR	8

char *perfetto_config_build(const struct recipe *r, const char *device_out)
{
	struct text t = { NULL, 0, 0 };
	size_t i, k;
	char *q;

	emit(&t, "# Perfetto TraceConfig written by mmlock device perfetto-config.\n"
		 "# Fields of Perfetto v35.0 only (Android 14): perfetto --txt -c FILE -o %s\n"
		 "# Timestamps: CLOCK_MONOTONIC, as mmlock record's trace_clock mono.\n",
	     device_out);
	emit(&t, "buffers {\n  size_kb: %llu\n  fill_policy: RING_BUFFER\n}\n",
	     (unsigned long long)(r->buffer_kb * PF_EVENTS_BUF_FACTOR));
	emit(&t, "buffers {\n  size_kb: %d\n  fill_policy: DISCARD\n}\n", PF_STATS_BUF_KB);
	if (r->callstacks)
		emit(&t, "buffers {\n  size_kb: %llu\n  fill_policy: RING_BUFFER\n}\n",
		     (unsigned long long)(r->buffer_kb * PF_PERF_BUF_FACTOR));

	emit(&t, "data_sources {\n  config {\n    name: \"linux.ftrace\"\n    target_buffer: 0\n"
		 "    ftrace_config {\n");
	for (i = 0; i < r->nr_events; i++) {
		char *ev = xasprintf("%s/%s", r->events[i].system, r->events[i].name);

		q = pb_quote(ev);
		emit(&t, "      ftrace_events: %s\n", q);
		free(q);
		free(ev);
	}
	emit(&t, "      buffer_size_kb: %llu\n      drain_period_ms: 250\n    }\n  }\n}\n",
	     (unsigned long long)r->buffer_kb);

	emit(&t, "data_sources {\n  config {\n    name: \"linux.process_stats\"\n"
		 "    target_buffer: 1\n    process_stats_config {\n"
		 "      scan_all_processes_on_start: true\n      record_thread_names: true\n"
		 "    }\n  }\n}\n");

	for (i = 0; r->callstacks && i < r->nr_events; i++) {
		const struct recipe_event *e = &r->events[i];
		char *tp;

		if (!e->stack_filter)
			continue;
		/* one timebase per data source: one linux.perf source per tracepoint */
		tp = xasprintf("%s:%s", e->system, e->name);
		q = pb_quote(tp);
		emit(&t, "data_sources {\n  config {\n    name: \"linux.perf\"\n    target_buffer: 2\n"
			 "    perf_event_config {\n      timebase {\n        period: 1\n"
			 "        tracepoint {\n          name: %s\n", q);
		free(q);
		free(tp);
		if (*e->stack_filter) {
			q = pb_quote(e->stack_filter);
			emit(&t, "          filter: %s\n", q);
			free(q);
		}
		q = pb_quote(e->name);
		emit(&t, "        }\n        timestamp_clock: PERF_CLOCK_MONOTONIC\n        name: %s\n"
			 "      }\n      callstack_sampling {\n", q);
		free(q);
		if (r->nr_tgids) {
			emit(&t, "        scope {\n");
			for (k = 0; k < r->nr_tgids; k++)
				emit(&t, "          target_pid: %d\n", r->tgids[k]);
			emit(&t, "        }\n");
		} else if (r->cmdline) {
			q = pb_quote(r->cmdline);
			emit(&t, "        scope {\n          target_cmdline: %s\n        }\n", q);
			free(q);
		}
		emit(&t, "        kernel_frames: true\n      }\n      ring_buffer_pages: 256\n"
			 "    }\n  }\n}\n");
	}

	emit(&t, "builtin_data_sources {\n  primary_trace_clock: BUILTIN_CLOCK_MONOTONIC\n}\n");
	emit(&t, "duration_ms: %llu\nwrite_into_file: true\nfile_write_period_ms: 1000\n"
		 "flush_period_ms: 5000\n", (unsigned long long)r->duration_ms);
	return t.s;
}

/* ---- simpleperf ---- */

/* An argv as a person types it: a word quoted only where the shell needs it. */
static char *words_join(char *const *argv)
{
	struct text t = { NULL, 0, 0 };
	size_t i;

	emit(&t, "%s", "");
	for (i = 0; argv[i]; i++) {
		const char *w = argv[i];
		int plain = *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789_-.,:/=+") == strlen(w);
		char *q = plain ? NULL : shell_quote(w);

		emit(&t, "%s%s", i ? " " : "", q ? q : w);
		free(q);
	}
	return t.s;
}

char *simpleperf_cmd_build(const struct recipe *r, const char *out)
{
	char *argv[24], *events = xstrdup(""), *pids = xstrdup(""), *dur, *line, *next;
	size_t i, n = 0;

	for (i = 0; i < r->nr_events; i++) {
		if (!r->events[i].stack_filter)
			continue;
		next = xasprintf("%s%s%s:%s", events, *events ? "," : "", r->events[i].system,
				 r->events[i].name);
		free(events);
		events = next;
	}
	for (i = 0; i < r->nr_tgids; i++) {
		next = xasprintf("%s%s%d", pids, i ? "," : "", r->tgids[i]);
		free(pids);
		pids = next;
	}
	/* simpleperf takes seconds, a floating point number */
	dur = r->duration_ms % 1000 ?
	      xasprintf("%llu.%03llu", (unsigned long long)(r->duration_ms / 1000),
			(unsigned long long)(r->duration_ms % 1000)) :
	      xasprintf("%llu", (unsigned long long)(r->duration_ms / 1000));
	/* simpleperf record --help: -c 1 (every hit) is the tracepoints' default, made explicit */
	argv[n++] = (char *)"simpleperf";
	argv[n++] = (char *)"record";
	argv[n++] = (char *)"-e";
	argv[n++] = events;
	argv[n++] = (char *)"-c";
	argv[n++] = (char *)"1";
	argv[n++] = (char *)"--call-graph";
	argv[n++] = (char *)"dwarf";
	argv[n++] = (char *)"--clockid";
	argv[n++] = (char *)"monotonic";
	if (r->nr_tgids) {
		argv[n++] = (char *)"-p";
		argv[n++] = pids;
	} else {
		argv[n++] = (char *)"-a";
	}
	argv[n++] = (char *)"--duration";
	argv[n++] = dur;
	argv[n++] = (char *)"-o";
	argv[n++] = (char *)out;
	argv[n] = NULL;
	line = words_join(argv);
	free(events);
	free(pids);
	free(dur);
	return line;
}

/* ---- the subcommands ---- */

static void perfetto_usage(FILE *out)
{
	fprintf(out,
"usage: mmlock device perfetto-config [--events SET] [--tgid N]... [--duration D]\n"
"                                     [--buffer-kb N] [--callstacks] [-o FILE]\n"
"\n"
"Write a Perfetto trace config (text format, for perfetto --txt -c FILE) that\n"
"records mmlock's events on the phone beside mmlock's own trace: linux.ftrace\n"
"with the event set, linux.process_stats (process and thread names), and with\n"
"--callstacks a linux.perf source per tracepoint with a user_pc (faults, VMA\n"
"writers) sampling every hit's user and kernel callstack.  Timestamps are\n"
"CLOCK_MONOTONIC, the collector's trace clock.  Only fields of Perfetto v35\n"
"(Android 14) are used.  Run it on the phone:\n"
"  adb push CONFIG /data/local/tmp/mmlock.pbtx\n"
"  adb shell 'perfetto --txt -c - -o " RECIPE_PERFETTO_OUT " </data/local/tmp/mmlock.pbtx'\n"
"\n"
"  -e, --events SET       kernel (default: the series' events and the stock\n"
"                         mmap_lock events GKI modules need), module\n"
"                         (mmlock_probe.ko), stock, or SYSTEM:NAME,...\n"
"  -p, --tgid N           keep the callstacks of process N only (repeatable;\n"
"                         default every process)\n"
"  -d, --duration TIME    how long perfetto traces (default 10s)\n"
"  -b, --buffer-kb N      kernel ring buffer per CPU in KiB (default 4096); the\n"
"                         central buffer is 16 times that\n"
"  -g, --callstacks       sample callstacks on the stack events\n"
"  -o, --output FILE      write here (default standard output)\n"
"\n"
"Exit: 0 ok; 2 usage; 7 cannot write FILE.\n");
}

static void simpleperf_usage(FILE *out)
{
	fprintf(out,
"usage: mmlock device simpleperf-cmd [--tgid N]... [--duration D] [--event E]...\n"
"                                    [-o PATH]\n"
"\n"
"Print the simpleperf command line that samples a DWARF callstack on every\n"
"hit of mmlock's tracepoints with a user_pc (faults, VMA writers), with\n"
"monotonic timestamps (the collector's trace clock).  Run it as root on the\n"
"phone beside mmlock device run; simpleperf report -g reads the result.\n"
"\n"
"  -e, --event E          a SYSTEM:NAME tracepoint, or kernel, module, stock:\n"
"                         that set's stack events (default kernel; repeatable)\n"
"  -p, --tgid N           record process N (repeatable; default -a, every one)\n"
"  -d, --duration TIME    how long (default 10s)\n"
"  -o, --output PATH      perf.data on the device (default " RECIPE_SIMPLEPERF_OUT ")\n"
"\n"
"Exit: 0 ok; 2 usage.\n");
}

/* Options common to both: 0 go on, else the exit code. */
static int recipe_opt(struct recipe *r, int c, const char *arg)
{
	uint64_t v;
	int64_t pid;

	switch (c) {
	case 'p':
		if (parse_i64(arg, &pid) || pid <= 0 || pid > 0x3fffffff) {
			pr_err("--tgid '%s': expected a process id", arg);
			return MMLOCK_EXIT_USAGE;
		}
		r->tgids = xrealloc(r->tgids, (r->nr_tgids + 1) * sizeof(*r->tgids));
		r->tgids[r->nr_tgids++] = (int)pid;
		return 0;
	case 'd':
		/* duration_ms is a uint32 in the TraceConfig */
		if (parse_duration_us(arg, &v) || v < 1000 || v / 1000 > UINT32_MAX) {
			pr_err("--duration '%s': expected a time from 1ms to 49 days, such as 10s",
			       arg);
			return MMLOCK_EXIT_USAGE;
		}
		r->duration_ms = v / 1000;
		return 0;
	case 'b':
		if (parse_u64(arg, &v) || v < 64 || v > (1 << 20)) {
			pr_err("--buffer-kb '%s': expected KiB per CPU, 64 to 1048576", arg);
			return MMLOCK_EXIT_USAGE;
		}
		r->buffer_kb = v;
		return 0;
	default:
		return MMLOCK_EXIT_USAGE;
	}
}

/* The events given (or the kernel set) added after every --tgid is known. */
static int recipe_events_finish(struct recipe *r, char **specs, size_t nr, const char *opt)
{
	char *why = NULL;
	size_t i;

	if (!nr && recipe_events_add(r, "kernel", &why))
		goto bad;
	for (i = 0; i < nr; i++)
		if (recipe_events_add(r, specs[i], &why))
			goto bad;
	return 0;
bad:
	pr_err("%s %s", opt, why);
	free(why);
	return MMLOCK_EXIT_USAGE;
}

/*
 * The options of both subcommands into @r (the events once every --tgid is
 * known).  Return: 0 go on, -1 --help was printed, else the exit code.
 */
static int recipe_args(struct recipe *r, int argc, char **argv, const char *shortopts,
		       const struct option *lopts, void (*usage)(FILE *), const char *ev_opt,
		       const char **out)
{
	char **specs = NULL;
	size_t nr_specs = 0;
	int c, rc = 0;

	optind = 0;
	while (!rc && (c = getopt_long(argc, argv, shortopts, lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			specs = xrealloc(specs, (nr_specs + 1) * sizeof(*specs));
			specs[nr_specs++] = optarg;
			break;
		case 'g': r->callstacks = 1; break;
		case 'o': *out = optarg; break;
		case 'h':
			usage(stdout);
			rc = -1;
			break;
		case 'p': case 'd': case 'b':
			rc = recipe_opt(r, c, optarg);
			break;
		default:
			usage(stderr);
			rc = MMLOCK_EXIT_USAGE;
		}
	}
	if (!rc && optind != argc) {
		pr_err("unexpected argument '%s'", argv[optind]);
		rc = MMLOCK_EXIT_USAGE;
	}
	if (!rc)
		rc = recipe_events_finish(r, specs, nr_specs, ev_opt);
	if (!rc && r->callstacks && !recipe_nr_stack_events(r)) {
		pr_err("%s: none of the events is one callstacks are sampled on (a custom event "
		       "with user_pc, or mmap_lock:mmap_lock_acquire_returned)", ev_opt);
		rc = MMLOCK_EXIT_USAGE;
	}
	free(specs);
	return rc;
}

int cmd_device_perfetto_config(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "events",	required_argument, NULL, 'e' },
		{ "tgid",	required_argument, NULL, 'p' },
		{ "duration",	required_argument, NULL, 'd' },
		{ "buffer-kb",	required_argument, NULL, 'b' },
		{ "callstacks",	no_argument,	   NULL, 'g' },
		{ "output",	required_argument, NULL, 'o' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct recipe r = { .duration_ms = 10000, .buffer_kb = 4096 };
	const char *out = NULL;
	char *text;
	int rc = recipe_args(&r, argc, argv, "e:p:d:b:go:h", lopts, perfetto_usage, "--events",
			     &out);

	if (rc) {
		recipe_release(&r);
		return rc < 0 ? MMLOCK_EXIT_OK : rc;
	}
	if (r.nr_tgids && !r.callstacks)
		pr_warn("--tgid scopes the callstacks only (--callstacks): the ftrace events of "
			"every process are recorded, as mmlock record does without --pid");
	text = perfetto_config_build(&r, RECIPE_PERFETTO_OUT);
	if (!out || !strcmp(out, "-")) {
		fputs(text, stdout);
	} else if (outfile_write_all(AT_FDCWD, out, text, strlen(text), 0)) {
		pr_err("%s: cannot write: %s", out, strerror(errno));
		rc = MMLOCK_EXIT_OUTPUT;
	}
	free(text);
	recipe_release(&r);
	return rc;
}

int cmd_device_simpleperf_cmd(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "event",	required_argument, NULL, 'e' },
		{ "tgid",	required_argument, NULL, 'p' },
		{ "duration",	required_argument, NULL, 'd' },
		{ "output",	required_argument, NULL, 'o' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	/* simpleperf samples a callstack on every event it is told to */
	struct recipe r = { .duration_ms = 10000, .buffer_kb = 4096, .callstacks = 1,
			    .stack_all_listed = 1 };
	const char *out = RECIPE_SIMPLEPERF_OUT;
	char *line;
	int rc = recipe_args(&r, argc, argv, "e:p:d:o:h", lopts, simpleperf_usage, "--event", &out);

	if (rc) {
		recipe_release(&r);
		return rc < 0 ? MMLOCK_EXIT_OK : rc;
	}
	line = simpleperf_cmd_build(&r, out);
	printf("%s\n", line);
	free(line);
	recipe_release(&r);
	return MMLOCK_EXIT_OK;
}
