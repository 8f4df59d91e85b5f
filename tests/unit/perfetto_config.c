// SPDX-License-Identifier: GPL-2.0
/*
 * The Perfetto config of `mmlock device perfetto-config` against the config
 * grammar of the Perfetto version Android 14 ships (issue 18): a small
 * parser of the protobuf text format checks every field name against its
 * message, the nesting of messages, the form of each scalar (a string
 * quoted, an integer unquoted and in range, an enum one of its words), a
 * non-repeated field given once and one member per oneof.  Configs with an
 * unknown field, a field in the wrong message, a wrong scalar form or a
 * field of a later Perfetto must fail.
 *
 * With a FILE argument the program checks that file alone (tests/device/run
 * checks the CLI's output with it).
 *
 * The schema below was read from Perfetto's protos at tag v35.0 (2023-06-07;
 * Android 14 ships v35-v36): protos/perfetto/config/trace_config.proto
 * (TraceConfig, BufferConfig, DataSource, BuiltinDataSource),
 * data_source_config.proto, ftrace/ftrace_config.proto,
 * process_stats/process_stats_config.proto,
 * profiling/perf_event_config.proto (PerfEventConfig, CallstackSampling,
 * Scope), protos/perfetto/common/perf_events.proto (Timebase, Tracepoint,
 * PerfClock) and common/builtin_clock.proto.  Only the fields of those
 * messages are listed, each with its number and type; fields of the
 * messages we never open (RawEvent, CompactSchedConfig, ...) are listed as
 * messages without fields, so their use fails as unknown.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/recipe.h"
#include "test.h"
#include "util.h"

enum pb_type { PB_MSG, PB_STRING, PB_BOOL, PB_UINT32, PB_UINT64, PB_INT32, PB_INT64,
	       PB_ENUM, PB_DOUBLE };

struct pb_msg;

struct pb_field {
	const char		*name;
	int			number;
	enum pb_type		type;
	int			repeated;
	int			oneof;		/* 0, or the oneof group within the message */
	const struct pb_msg	*msg;		/* PB_MSG */
	const char *const	*words;		/* PB_ENUM, NULL-terminated */
};

struct pb_msg {
	const char		*name;
	const struct pb_field	*fields;	/* ends with a NULL name */
};

#define OPT(n, num, t)		{ #n, num, PB_##t, 0, 0, NULL, NULL }
#define REP(n, num, t)		{ #n, num, PB_##t, 1, 0, NULL, NULL }
#define MSG(n, num, m)		{ #n, num, PB_MSG, 0, 0, &m, NULL }
#define RMSG(n, num, m)		{ #n, num, PB_MSG, 1, 0, &m, NULL }
#define ENUM(n, num, w)		{ #n, num, PB_ENUM, 0, 0, NULL, w }
#define ONE(n, num, t, g)	{ #n, num, PB_##t, 0, g, NULL, NULL }
#define ONEMSG(n, num, m, g)	{ #n, num, PB_MSG, 0, g, &m, NULL }
#define ONEENUM(n, num, w, g)	{ #n, num, PB_ENUM, 0, g, NULL, w }
#define END			{ NULL, 0, 0, 0, 0, NULL, NULL }

/* TraceConfig.BufferConfig.FillPolicy */
static const char *const fill_policy[] = { "UNSPECIFIED", "RING_BUFFER", "DISCARD", NULL };
/* common/builtin_clock.proto BuiltinClock (values 0-6, 63) */
static const char *const builtin_clock[] = {
	"BUILTIN_CLOCK_UNKNOWN", "BUILTIN_CLOCK_REALTIME", "BUILTIN_CLOCK_REALTIME_COARSE",
	"BUILTIN_CLOCK_MONOTONIC", "BUILTIN_CLOCK_MONOTONIC_COARSE", "BUILTIN_CLOCK_MONOTONIC_RAW",
	"BUILTIN_CLOCK_BOOTTIME", "BUILTIN_CLOCK_MAX_ID", NULL };
/* PerfEvents.PerfClock */
static const char *const perf_clock[] = {
	"UNKNOWN_PERF_CLOCK", "PERF_CLOCK_REALTIME", "PERF_CLOCK_MONOTONIC",
	"PERF_CLOCK_MONOTONIC_RAW", "PERF_CLOCK_BOOTTIME", NULL };
/* PerfEvents.Counter (the software ones; hardware counters are never used here) */
static const char *const perf_counter[] = {
	"UNKNOWN_COUNTER", "SW_CPU_CLOCK", "SW_PAGE_FAULTS", "SW_TASK_CLOCK",
	"SW_CONTEXT_SWITCHES", "SW_CPU_MIGRATIONS", "SW_PAGE_FAULTS_MIN", "SW_PAGE_FAULTS_MAJ",
	"SW_ALIGNMENT_FAULTS", "SW_EMULATION_FAULTS", "SW_DUMMY", NULL };
/* PerfEventConfig.UnwindMode */
static const char *const unwind_mode[] = { "UNWIND_UNKNOWN", "UNWIND_SKIP", "UNWIND_DWARF", NULL };
/* ProcessStatsConfig.Quirks */
static const char *const quirks[] = {
	"QUIRKS_UNSPECIFIED", "DISABLE_INITIAL_DUMP", "DISABLE_ON_DEMAND", NULL };

static const struct pb_field no_fields[] = { END };
static const struct pb_msg opaque_msg = { "(a message this test does not open)", no_fields };

static const struct pb_field tracepoint_f[] = {
	OPT(name, 1, STRING), OPT(filter, 2, STRING), END };
static const struct pb_msg tracepoint_m = { "PerfEvents.Tracepoint", tracepoint_f };

/* oneof interval = 1, oneof event = 2 */
static const struct pb_field timebase_f[] = {
	ONE(frequency, 2, UINT64, 1), ONE(period, 1, UINT64, 1),
	ONEENUM(counter, 4, perf_counter, 2), ONEMSG(tracepoint, 3, tracepoint_m, 2),
	ONEMSG(raw_event, 5, opaque_msg, 2),
	ENUM(timestamp_clock, 11, perf_clock), OPT(name, 10, STRING), END };
static const struct pb_msg timebase_m = { "PerfEvents.Timebase", timebase_f };

static const struct pb_field scope_f[] = {
	REP(target_pid, 1, INT32), REP(target_cmdline, 2, STRING), REP(exclude_pid, 3, INT32),
	REP(exclude_cmdline, 4, STRING), OPT(additional_cmdline_count, 5, UINT32),
	OPT(process_shard_count, 6, UINT32), END };
static const struct pb_msg scope_m = { "PerfEventConfig.Scope", scope_f };

static const struct pb_field callstack_f[] = {
	MSG(scope, 1, scope_m), OPT(kernel_frames, 2, BOOL), ENUM(user_frames, 3, unwind_mode),
	END };
static const struct pb_msg callstack_m = { "PerfEventConfig.CallstackSampling", callstack_f };

static const struct pb_field perf_event_f[] = {
	MSG(timebase, 15, timebase_m), MSG(callstack_sampling, 16, callstack_m),
	OPT(ring_buffer_read_period_ms, 8, UINT32), OPT(ring_buffer_pages, 3, UINT32),
	OPT(max_enqueued_footprint_kb, 17, UINT64), OPT(max_daemon_memory_kb, 13, UINT32),
	OPT(remote_descriptor_timeout_ms, 9, UINT32),
	OPT(unwind_state_clear_period_ms, 10, UINT32), REP(target_installed_by, 18, STRING),
	/* deprecated, still in the grammar */
	OPT(all_cpus, 1, BOOL), OPT(sampling_frequency, 2, UINT32), OPT(kernel_frames, 12, BOOL),
	REP(target_pid, 4, INT32), REP(target_cmdline, 5, STRING), REP(exclude_pid, 6, INT32),
	REP(exclude_cmdline, 7, STRING), OPT(additional_cmdline_count, 11, UINT32), END };
static const struct pb_msg perf_event_m = { "PerfEventConfig", perf_event_f };

static const struct pb_field ftrace_f[] = {
	REP(ftrace_events, 1, STRING), REP(atrace_categories, 2, STRING),
	REP(atrace_apps, 3, STRING), OPT(buffer_size_kb, 10, UINT32),
	OPT(drain_period_ms, 11, UINT32), MSG(compact_sched, 12, opaque_msg),
	MSG(print_filter, 22, opaque_msg), OPT(symbolize_ksyms, 13, BOOL),
	OPT(throttle_rss_stat, 15, BOOL), OPT(disable_generic_events, 16, BOOL),
	REP(syscall_events, 18, STRING), OPT(enable_function_graph, 19, BOOL),
	REP(function_filters, 20, STRING), REP(function_graph_roots, 21, STRING),
	OPT(preserve_ftrace_buffer, 23, BOOL), OPT(use_monotonic_raw_clock, 24, BOOL),
	OPT(instance_name, 25, STRING), END };
static const struct pb_msg ftrace_m = { "FtraceConfig", ftrace_f };

static const struct pb_field process_stats_f[] = {
	{ "quirks", 1, PB_ENUM, 1, 0, NULL, quirks },
	OPT(scan_all_processes_on_start, 2, BOOL), OPT(record_thread_names, 3, BOOL),
	OPT(proc_stats_poll_ms, 4, UINT32), OPT(proc_stats_cache_ttl_ms, 6, UINT32),
	OPT(resolve_process_fds, 9, BOOL), OPT(scan_smaps_rollup, 10, BOOL), END };
static const struct pb_msg process_stats_m = { "ProcessStatsConfig", process_stats_f };

static const struct pb_field ds_config_f[] = {
	OPT(name, 1, STRING), OPT(target_buffer, 2, UINT32),
	MSG(ftrace_config, 100, ftrace_m), MSG(process_stats_config, 103, process_stats_m),
	MSG(perf_event_config, 111, perf_event_m), OPT(legacy_config, 1000, STRING), END };
static const struct pb_msg ds_config_m = { "DataSourceConfig", ds_config_f };

static const struct pb_field data_source_f[] = {
	MSG(config, 1, ds_config_m), REP(producer_name_filter, 2, STRING),
	REP(producer_name_regex_filter, 3, STRING), END };
static const struct pb_msg data_source_m = { "TraceConfig.DataSource", data_source_f };

static const struct pb_field buffer_f[] = {
	OPT(size_kb, 1, UINT32), ENUM(fill_policy, 4, fill_policy), END };
static const struct pb_msg buffer_m = { "TraceConfig.BufferConfig", buffer_f };

static const struct pb_field builtin_f[] = {
	OPT(disable_clock_snapshotting, 1, BOOL), OPT(disable_trace_config, 2, BOOL),
	OPT(disable_system_info, 3, BOOL), OPT(disable_service_events, 4, BOOL),
	ENUM(primary_trace_clock, 5, builtin_clock), OPT(snapshot_interval_ms, 6, UINT32),
	OPT(prefer_suspend_clock_for_snapshot, 7, BOOL),
	OPT(disable_chunk_usage_histograms, 8, BOOL), END };
static const struct pb_msg builtin_m = { "TraceConfig.BuiltinDataSource", builtin_f };

static const struct pb_field trace_config_f[] = {
	RMSG(buffers, 1, buffer_m), RMSG(data_sources, 2, data_source_m),
	MSG(builtin_data_sources, 20, builtin_m), OPT(duration_ms, 3, UINT32),
	OPT(prefer_suspend_clock_for_duration, 36, BOOL), OPT(enable_extra_guardrails, 4, BOOL),
	OPT(write_into_file, 8, BOOL), OPT(output_path, 29, STRING),
	OPT(file_write_period_ms, 9, UINT32), OPT(max_file_size_bytes, 10, UINT64),
	OPT(deferred_start, 12, BOOL), OPT(flush_period_ms, 13, UINT32),
	OPT(flush_timeout_ms, 14, UINT32), OPT(data_source_stop_timeout_ms, 23, UINT32),
	OPT(notify_traceur, 16, BOOL), OPT(bugreport_score, 30, INT32),
	REP(activate_triggers, 18, STRING), OPT(allow_user_build_tracing, 19, BOOL),
	OPT(unique_session_name, 22, STRING), OPT(compress_from_cli, 37, BOOL), END };
static const struct pb_msg trace_config_m = { "TraceConfig", trace_config_f };

/* ---- the text-format parser ---- */

struct parser {
	const char	*p;
	int		line;
	char		err[256];
	/* what was read, for the content checks: "a.b.c=value" lines */
	char		*flat;
	size_t		flat_len;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, sizeof(ps->err), "line %d: ", ps->line);

	va_start(ap, fmt);
	vsnprintf(ps->err + n, sizeof(ps->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_space(struct parser *ps)
{
	for (;;) {
		if (*ps->p == '\n') {
			ps->line++;
			ps->p++;
		} else if (isspace((unsigned char)*ps->p)) {
			ps->p++;
		} else if (*ps->p == '#') {
			while (*ps->p && *ps->p != '\n')
				ps->p++;
		} else {
			return;
		}
	}
}

static size_t ident_len(const char *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

static void flat_add(struct parser *ps, const char *path, const char *value, size_t vlen)
{
	char *line = xasprintf("%s=%.*s\n", path, (int)vlen, value);
	size_t l = strlen(line);

	ps->flat = xrealloc(ps->flat, ps->flat_len + l + 1);
	memcpy(ps->flat + ps->flat_len, line, l + 1);
	ps->flat_len += l;
	free(line);
}

/* A scalar of @f at ps->p: its form checked, then recorded under @path. */
static int parse_scalar(struct parser *ps, const struct pb_field *f, const char *path)
{
	const char *start = ps->p;

	if (f->type == PB_STRING) {
		if (*ps->p != '"' && *ps->p != '\'')
			return fail(ps, "%s: a string must be quoted", f->name);
		for (ps->p++; *ps->p && *ps->p != *start; ps->p++) {
			if (*ps->p == '\n')
				return fail(ps, "%s: newline in a string", f->name);
			if (*ps->p == '\\' && ps->p[1])
				ps->p++;
		}
		if (!*ps->p)
			return fail(ps, "%s: unterminated string", f->name);
		ps->p++;
		flat_add(ps, path, start + 1, (size_t)(ps->p - start - 2));
		return 0;
	}
	if (*ps->p == '"' || *ps->p == '\'')
		return fail(ps, "%s: a quoted value where the grammar wants %s", f->name,
			     f->type == PB_ENUM ? "an enum word" : f->type == PB_BOOL ? "true or false" :
			     "a number");
	if (f->type == PB_ENUM || f->type == PB_BOOL) {
		size_t i, n = ident_len(ps->p);
		char word[64];

		if (!n && f->type == PB_BOOL && (*ps->p == '0' || *ps->p == '1'))
			n = 1;
		if (!n || n >= sizeof(word))
			return fail(ps, "%s: expected %s", f->name,
				    f->type == PB_ENUM ? "an enum word" : "true or false");
		memcpy(word, ps->p, n);
		word[n] = '\0';
		if (f->type == PB_BOOL) {
			static const char *const bools[] = { "true", "false", "True", "False", "t",
							     "f", "1", "0", NULL };

			for (i = 0; bools[i] && strcmp(bools[i], word); i++)
				;
			if (!bools[i])
				return fail(ps, "%s: '%s' is not a boolean", f->name, word);
		} else {
			for (i = 0; f->words[i] && strcmp(f->words[i], word); i++)
				;
			if (!f->words[i])
				return fail(ps, "%s: '%s' is not a value of its enum", f->name, word);
		}
		ps->p += n;
		flat_add(ps, path, word, n);
		return 0;
	}
	/* integers (decimal; the generator writes no other form) */
	{
		int neg = *ps->p == '-';
		char *end;
		uint64_t v;

		errno = 0;
		if (!isdigit((unsigned char)ps->p[neg]))
			return fail(ps, "%s: expected a number", f->name);
		v = strtoull(ps->p + neg, &end, 10);
		if (errno || isalnum((unsigned char)*end) || *end == '.')
			return fail(ps, "%s: not an integer", f->name);
		if (neg && (f->type == PB_UINT32 || f->type == PB_UINT64))
			return fail(ps, "%s: negative value for an unsigned field", f->name);
		if ((f->type == PB_UINT32 && v > UINT32_MAX) ||
		    (f->type == PB_INT32 && v > (uint64_t)INT32_MAX + neg) ||
		    (f->type == PB_INT64 && v > (uint64_t)INT64_MAX + neg))
			return fail(ps, "%s: %.*s out of range", f->name, (int)(end - start), start);
		ps->p = end;
		flat_add(ps, path, start, (size_t)(end - start));
		return 0;
	}
}

/* The fields of @m up to a '}' (@nested) or the end of the text. */
static int parse_message(struct parser *ps, const struct pb_msg *m, const char *prefix,
			 int nested)
{
	unsigned int seen[64] = { 0 }, oneof_seen[8] = { 0 };

	for (;;) {
		const struct pb_field *f;
		size_t n, i;
		char *path;
		int rc;

		skip_space(ps);
		if (!*ps->p) {
			if (nested)
				return fail(ps, "end of text inside %s: a '}' is missing", m->name);
			return 0;
		}
		if (*ps->p == '}') {
			if (!nested)
				return fail(ps, "'}' without its '{'");
			ps->p++;
			return 0;
		}
		n = ident_len(ps->p);
		if (!n)
			return fail(ps, "expected a field name of %s, found '%c'", m->name, *ps->p);
		for (i = 0; m->fields[i].name; i++)
			if (strlen(m->fields[i].name) == n && !strncmp(m->fields[i].name, ps->p, n))
				break;
		if (!m->fields[i].name)
			return fail(ps, "%s has no field '%.*s'", m->name, (int)n, ps->p);
		f = &m->fields[i];
		if (i < ARRAY_SIZE(seen)) {
			if (seen[i]++ && !f->repeated)
				return fail(ps, "%s.%s given twice (not repeated)", m->name, f->name);
		}
		if (f->oneof && f->oneof < (int)ARRAY_SIZE(oneof_seen)) {
			if (oneof_seen[f->oneof] && oneof_seen[f->oneof] != i + 1)
				return fail(ps, "%s.%s: another member of its oneof is set", m->name,
					    f->name);
			oneof_seen[f->oneof] = (unsigned int)i + 1;
		}
		ps->p += n;
		skip_space(ps);
		path = xasprintf("%s%s%s", prefix, *prefix ? "." : "", f->name);
		if (f->type == PB_MSG) {
			if (*ps->p == ':') {
				ps->p++;
				skip_space(ps);
			}
			if (*ps->p != '{') {
				free(path);
				return fail(ps, "%s is a message (%s): expected '{'", f->name,
					    f->msg->name);
			}
			ps->p++;
			flat_add(ps, path, "{", 1);
			rc = parse_message(ps, f->msg, path, 1);
		} else {
			if (*ps->p != ':') {
				free(path);
				return fail(ps, "%s is a scalar: expected ':'", f->name);
			}
			ps->p++;
			skip_space(ps);
			rc = parse_scalar(ps, f, path);
		}
		free(path);
		if (rc)
			return rc;
	}
}

/* 0 when @text is a TraceConfig of the grammar; else -1, the reason in @why. */
static int config_check(const char *text, char *why, size_t why_len, char **flat)
{
	struct parser ps = { .p = text, .line = 1 };
	int rc = parse_message(&ps, &trace_config_m, "", 0);

	snprintf(why, why_len, "%s", rc ? ps.err : "");
	if (flat)
		*flat = ps.flat ? ps.flat : xstrdup("");
	else
		free(ps.flat);
	return rc;
}

/* ---- the checks ---- */

static size_t count_lines(const char *flat, const char *line)
{
	size_t n = 0, l = strlen(line);
	const char *p = flat;

	while ((p = strstr(p, line))) {
		if ((p == flat || p[-1] == '\n') && p[l] == '\n')
			n++;
		p += l;
	}
	return n;
}

static char *generate(const char *events, int callstacks, const int *tgids, size_t nr)
{
	struct recipe r = { .duration_ms = 7000, .buffer_kb = 2048, .callstacks = callstacks };
	char *why = NULL, *text;

	r.tgids = xcalloc(nr + 1, sizeof(*r.tgids));
	memcpy(r.tgids, tgids, nr * sizeof(*tgids));
	r.nr_tgids = nr;
	if (recipe_events_add(&r, events, &why)) {
		printf("# %s\n", why);
		free(why);
		recipe_release(&r);
		return NULL;
	}
	text = perfetto_config_build(&r, "/data/misc/perfetto-traces/x.pftrace");
	recipe_release(&r);
	return text;
}

static void test_generated(void)
{
	static const int tgids[] = { 4242, 77 };
	static const char *const sets[] = { "kernel", "module", "stock",
					    "filemap:filemap_fault_begin,sched:sched_switch" };
	char why[256], *text, *flat;
	size_t i, n_custom = 0;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		int cs;

		for (cs = 0; cs < 2; cs++) {
			text = generate(sets[i], cs, tgids, cs ? 2 : 0);
			CHECK(text && !config_check(text, why, sizeof(why), NULL),
			      "perfetto config of --events %s%s parses in the v35 grammar%s%s",
			      sets[i], cs ? " --callstacks --tgid 4242 --tgid 77" : "",
			      *why ? ": " : "", why);
			free(text);
		}
	}

	/* what the kernel set with callstacks says, field by field */
	text = generate("kernel", 1, tgids, 2);
	config_check(text, why, sizeof(why), &flat);
	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++) {
		char *want = xasprintf("data_sources.config.ftrace_config.ftrace_events=%s/%s",
				 mmlock_events[i].system, mmlock_events[i].name);
		n_custom += count_lines(flat, want);
		free(want);
	}
	CHECK(n_custom == MMLOCK_EV_NR_CUSTOM,
	      "every custom event of the contract is an ftrace event once (%zu of %d)", n_custom,
	      MMLOCK_EV_NR_CUSTOM);
	CHECK(count_lines(flat, "data_sources.config.ftrace_config.ftrace_events="
			  "mmap_lock/mmap_lock_acquire_returned") == 1,
	      "the kernel set keeps the stock mmap_lock events GKI modules need");
	CHECK(count_lines(flat, "builtin_data_sources.primary_trace_clock=BUILTIN_CLOCK_MONOTONIC")
	      == 1, "primary trace clock is BUILTIN_CLOCK_MONOTONIC (the collector's mono)");
	CHECK(count_lines(flat, "duration_ms=7000") == 1 && count_lines(flat, "write_into_file=true")
	      == 1, "duration_ms and write_into_file set");
	CHECK(count_lines(flat, "data_sources.config.name=linux.perf") == 2 &&
	      count_lines(flat, "data_sources.config.perf_event_config.timebase.tracepoint.name="
			  "filemap:filemap_fault_begin") == 1 &&
	      count_lines(flat, "data_sources.config.perf_event_config.timebase.tracepoint.name="
			  "mmap_lock:vma_start_write_begin") == 1,
	      "one linux.perf source on each tracepoint with a user_pc");
	CHECK(count_lines(flat, "data_sources.config.perf_event_config.timebase.period=1") == 2 &&
	      count_lines(flat, "data_sources.config.perf_event_config.callstack_sampling."
			  "kernel_frames=true") == 2,
	      "period 1 and kernel frames on each");
	CHECK(count_lines(flat, "data_sources.config.perf_event_config.callstack_sampling.scope."
			  "target_pid=4242") == 2 &&
	      count_lines(flat, "data_sources.config.perf_event_config.timebase.tracepoint.filter="
			  "tgid == 4242 || tgid == 77") == 2,
	      "callstacks scoped to the tgids, in scope and in the kernel filter");
	CHECK(count_lines(flat, "data_sources.config.name=linux.process_stats") == 1 &&
	      count_lines(flat, "data_sources.config.process_stats_config.record_thread_names=true")
	      == 1, "process stats with thread names");
	free(flat);
	free(text);

	text = generate("kernel", 0, tgids, 0);
	config_check(text, why, sizeof(why), &flat);
	CHECK(!strstr(flat, "linux.perf") && count_lines(flat, "buffers={") == 2,
	      "without --callstacks: no linux.perf source, no perf buffer");
	free(flat);
	free(text);
}

/* @text with the first @from replaced by @to (a new string) */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);

	if (!at)
		return NULL;
	return xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

static void test_mutants(void)
{
	static const int tgids[] = { 4242 };
	static const struct { const char *what, *from, *to, *want; } mut[] = {
		{ "an unknown field", "drain_period_ms: 250", "drain_period: 250",
		  "FtraceConfig has no field 'drain_period'" },
		{ "a field in the wrong message (duration_ms in a buffer)",
		  "  fill_policy: DISCARD\n", "  fill_policy: DISCARD\n  duration_ms: 5\n",
		  "BufferConfig has no field 'duration_ms'" },
		{ "ftrace_config outside its DataSourceConfig",
		  "    name: \"linux.ftrace\"\n", "    name: \"linux.ftrace\"\n  }\n  ftrace_config {\n",
		  "DataSource has no field 'ftrace_config'" },
		{ "an unquoted string", "name: \"linux.process_stats\"", "name: linux.process_stats",
		  "a string must be quoted" },
		{ "a quoted integer", "duration_ms: 7000", "duration_ms: \"7000\"", "quoted value" },
		{ "an integer out of uint32", "duration_ms: 7000", "duration_ms: 4294967296",
		  "out of range" },
		{ "a negative unsigned", "target_buffer: 1", "target_buffer: -1", "negative" },
		{ "an enum word that does not exist", "BUILTIN_CLOCK_MONOTONIC",
		  "BUILTIN_CLOCK_MONO", "not a value of its enum" },
		{ "a bool that is no bool", "write_into_file: true", "write_into_file: yes",
		  "not a boolean" },
		{ "a field of a later Perfetto (Timebase.poll_period_ms, v50)", "        period: 1\n",
		  "        poll_period_ms: 1\n", "Timebase has no field 'poll_period_ms'" },
		{ "two members of a oneof", "        period: 1\n", "        period: 1\n"
		  "        frequency: 100\n", "oneof" },
		{ "a non-repeated field twice", "duration_ms: 7000", "duration_ms: 7000\nduration_ms: 1",
		  "given twice" },
		{ "a message given a scalar", "scope {\n          target_pid: 4242\n        }",
		  "scope: 4242", "expected '{'" },
		{ "a missing brace", "flush_period_ms: 5000\n", "flush_period_ms: 5000\nbuffers {\n",
		  "'}' is missing" },
		{ "a brace too many", "flush_period_ms: 5000\n", "flush_period_ms: 5000\n}\n",
		  "without its '{'" },
	};
	char *text = generate("kernel", 1, tgids, 1), why[256];
	size_t i;

	CHECK(text && !config_check(text, why, sizeof(why), NULL), "the mutants' original parses%s%s",
	      *why ? ": " : "", why);
	for (i = 0; i < ARRAY_SIZE(mut); i++) {
		char *m = replace(text, mut[i].from, mut[i].to);
		int rc = m ? config_check(m, why, sizeof(why), NULL) : 0;

		CHECK(m && rc && strstr(why, mut[i].want), "rejected: %s (%s)", mut[i].what,
		      m ? why : "mutation point not found");
		free(m);
	}
	free(text);
}

/* simpleperf record's options as its documentation gives them (doc/ and record --help) */
static void test_simpleperf(void)
{
	static const char *const documented[] = {
		"-a", "-b", "-c", "--call-graph", "--clockid", "--cpu", "--duration", "-e", "-f",
		"-F", "-g", "--group", "-j", "-m", "--no-inherit", "-o", "-p", "--symfs", "-t",
		NULL };
	static const int tgids[] = { 321, 654 };
	struct recipe r = { .duration_ms = 2500, .buffer_kb = 4096 };
	char *why = NULL, *line, *save = NULL, *w;
	int ok = 1, n = 0;
	size_t i;

	r.tgids = xcalloc(2, sizeof(*r.tgids));
	memcpy(r.tgids, tgids, sizeof(tgids));
	r.nr_tgids = 2;
	if (recipe_events_add(&r, "kernel", &why)) {
		CHECK(0, "simpleperf: kernel set: %s", why);
		free(why);
		return;
	}
	line = simpleperf_cmd_build(&r, "/data/local/tmp/p.data");
	CHECK(!strcmp(line, "simpleperf record -e filemap:filemap_fault_begin,"
		      "mmap_lock:vma_start_write_begin -c 1 --call-graph dwarf --clockid monotonic "
		      "-p 321,654 --duration 2.500 -o /data/local/tmp/p.data"),
	      "simpleperf: tracepoint-triggered DWARF stacks of the tgids: %s", line);
	for (w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (*w != '-')
			continue;
		for (i = 0; documented[i] && strcmp(documented[i], w); i++)
			;
		if (!documented[i]) {
			printf("# %s is not a documented option of simpleperf record\n", w);
			ok = 0;
		}
		n++;
	}
	CHECK(ok && n == 7, "simpleperf: every option is one simpleperf record documents (%d)", n);
	free(line);
	free(r.tgids);
	r.tgids = NULL;
	r.nr_tgids = 0;
	r.duration_ms = 10000;
	line = simpleperf_cmd_build(&r, "/data/local/tmp/p.data");
	CHECK(strstr(line, " -a --duration 10 ") && !strstr(line, " -p "),
	      "simpleperf: no tgid: system-wide (-a), whole seconds: %s", line);
	free(line);
	recipe_release(&r);
}

static int check_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, why[256];
	size_t cap = 0, len = 0;
	int rc;

	if (!f) {
		printf("not ok - %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		size_t got;

		if (len + 4096 + 1 > cap) {
			cap = (cap + 4096 + 1) * 2;
			text = xrealloc(text, cap);
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (!got)
			break;
	}
	fclose(f);
	text[len] = '\0';
	rc = config_check(text, why, sizeof(why), NULL);
	printf("%s - %s parses in Perfetto v35's TraceConfig grammar%s%s\n", rc ? "not ok" : "ok",
	       path, rc ? ": " : "", why);
	free(text);
	return rc ? 1 : 0;
}

/* The schema as written down: in each message, names and field numbers unique. */
static void test_schema(void)
{
	static const struct pb_msg *const msgs[] = {
		&trace_config_m, &buffer_m, &data_source_m, &builtin_m, &ds_config_m, &ftrace_m,
		&process_stats_m, &perf_event_m, &timebase_m, &tracepoint_m, &callstack_m, &scope_m,
	};
	size_t m, i, j;
	int ok = 1;

	for (m = 0; m < ARRAY_SIZE(msgs); m++) {
		for (i = 0; msgs[m]->fields[i].name; i++) {
			const struct pb_field *a = &msgs[m]->fields[i];

			for (j = i + 1; msgs[m]->fields[j].name; j++) {
				const struct pb_field *b = &msgs[m]->fields[j];

				if (a->number == b->number || !strcmp(a->name, b->name)) {
					printf("# %s: %s = %d and %s = %d\n", msgs[m]->name, a->name,
					       a->number, b->name, b->number);
					ok = 0;
				}
			}
			if (a->number <= 0 || (a->type == PB_MSG) != (a->msg != NULL) ||
			    (a->type == PB_ENUM) != (a->words != NULL))
				ok = 0;
		}
	}
	CHECK(ok, "schema: %zu messages, every field number and name once per message",
	      ARRAY_SIZE(msgs));
}

int main(int argc, char **argv)
{
	if (argc == 2)
		return check_file(argv[1]);
	test_schema();
	test_generated();
	test_mutants();
	test_simpleperf();
	return TEST_EXIT();
}
