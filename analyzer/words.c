// SPDX-License-Identifier: GPL-2.0
/*
 * A summary in words: the verdict with the numbers that decided it, what to
 * do, the worst pair (both sides, the writer's caller, the VMA) and the
 * writer callers with the most contention.  What the seed's analysis script
 * printed, read from the summary JSON so that `mmlock analyze` and
 * `mmlock run` say the same thing in the same words.
 */
#include <inttypes.h>
#include <string.h>

#include <json-c/json.h>

#include "jsonout.h"
#include "words.h"

static const char *str_at(json_object *o, const char *path, const char *dflt)
{
	json_object *v = json_path(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : dflt;
}

static void side_print(FILE *f, json_object *side)
{
	fprintf(f, "%" PRId64 " %s", json_object_get_int64(json_path(side, "pid")), str_at(side, "comm", "?"));
	if (json_path(side, "prio"))
		fprintf(f, " (prio %" PRId64 ")", json_object_get_int64(json_path(side, "prio")));
}

/* The three writer callers with the most contention, or nothing. */
static void callers_print(FILE *f, json_object *callers)
{
	int shown = 0;

	for (size_t k = 0; shown < 3 && k < json_object_array_length(callers); k++) {
		json_object *c = json_object_array_get_idx(callers, k);
		int64_t a = json_object_get_int64(json_path(c, "type_a_pairs"));
		int64_t bp = json_object_get_int64(json_path(c, "type_b_pairs"));

		if (!a && !bp)
			continue;
		fprintf(f, "%s%s (", shown++ ? ", " : "  writer callers: ", str_at(c, "caller", "?"));
		if (a)
			fprintf(f, "A %" PRId64 ", %.1f ms%s", a,
				json_object_get_double(json_path(c, "type_a_us")) / 1e3, bp ? "; " : "");
		if (bp)
			fprintf(f, "B %" PRId64 ", %.1f ms", bp,
				json_object_get_double(json_path(c, "type_b_us")) / 1e3);
		fputc(')', f);
	}
	if (shown)
		fputc('\n', f);
}

/**
 * summary_words_print() - one summary in a few lines
 * @f:        where
 * @sum:      the summary JSON (analyzer/summary.schema.json)
 * @title:    what the first line names, e.g. "vma-contention under stock"
 * @contract: the workload contract's note on the run, or NULL
 *
 * "TITLE: VERDICT: TEXT", then where it applies "contract:", "to do:",
 * "worst pair:" (blocked side, blocker side, the writer's caller, the VMA)
 * and "writer callers:" lines.
 */
void summary_words_print(FILE *f, json_object *sum, const char *title, const char *contract)
{
	json_object *pair;

	fprintf(f, "%s: %s: %s\n", title, str_at(sum, "verdict.code", "?"),
		str_at(sum, "verdict.text", ""));
	if (contract)
		fprintf(f, "  contract: %s\n", contract);
	if (strcmp(str_at(sum, "verdict.code", ""), "no_inversion_observed") &&
	    str_at(sum, "verdict.action", NULL))
		fprintf(f, "  to do: %s\n", str_at(sum, "verdict.action", ""));
	pair = json_object_array_get_idx(json_path(sum, "contention.top_pairs"), 0);
	if (pair) {
		const char *caller = str_at(pair, "caller", "unknown");

		fprintf(f, "  worst pair: Type-%s%s, %.1f ms: ", str_at(pair, "type", "?"),
			json_object_get_boolean(json_path(pair, "c")) ? " (C)" : "",
			json_object_get_double(json_path(pair, "duration_us")) / 1e3);
		side_print(f, json_path(pair, "blocked"));
		fputs(" waited for ", f);
		side_print(f, json_path(pair, "blocker"));
		fprintf(f, "; writer's caller %.*s", (int)strcspn(caller, "+"), caller);
		if (str_at(pair, "vm_start", NULL) && str_at(pair, "vm_end", NULL))
			fprintf(f, ", VMA %s-%s", str_at(pair, "vm_start", ""), str_at(pair, "vm_end", ""));
		fputc('\n', f);
	}
	callers_print(f, json_path(sum, "contention.by_caller"));
}
