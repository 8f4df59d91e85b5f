// SPDX-License-Identifier: GPL-2.0
/*
 * The workload contract's checks that mmlock run folds into each summary
 * (runner/run-common.c): each built to trip once, and quiet on a run that
 * keeps the contract.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "test.h"
#include "runner/run.h"

static const struct run_policy stock = { "stock", 0, 0 };

/* merge @report into a summary made of @summary_text; the row it yields */
static json_object *kernel_delay;	/* passed to every merge */
static const char *agent_filter;	/* likewise */

static json_object *merge(const char *summary_text, const char *report_text, json_object **sum)
{
	char path[] = "/tmp/mmlock-run-contract-XXXXXX";
	json_object *row = json_object_new_object();
	char *why = NULL;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, summary_text, strlen(summary_text)) != (ssize_t)strlen(summary_text))
		return row;
	close(fd);
	if (run_summary_merge(path, json_tokener_parse(summary_text),
			      report_text ? json_tokener_parse(report_text) : NULL, &stock, -1,
			      kernel_delay, agent_filter, row, &why))
		printf("# merge failed: %s\n", why ? why : "?");
	free(why);
	*sum = json_object_from_file(path);
	unlink(path);
	return row;
}

static json_object *at(json_object *o, const char *k1, const char *k2)
{
	json_object *v = NULL;

	if (o && json_object_object_get_ex(o, k1, &v) && k2)
		json_object_object_get_ex(v, k2, &v);
	return v;
}

int main(void)
{
	static const char report[] = "{\"tgid\": 42, \"result\": {\"map_start\": \"7f0000001000\"}}";
	static const char other_tgid[] = "{\"tgid\": 4242, \"result\": {\"map_start\": \"7f0000001000\"}}";
	static const char tgid_filter[] =
		"{\"verdict\": {\"code\": \"inversion_confirmed\"},"
		" \"capture\": {\"filter\": \"filemap:filemap_fault_begin: tgid == 42; mmap_lock:vma_start_write_begin: tgid == 42\", \"lost_events\": 0},"
		" \"contention\": {\"top_pairs\": [{\"vm_start\": \"7f0000001000\"}]}}";
	static const char on_target[] =
		"{\"verdict\": {\"code\": \"inversion_confirmed\"},"
		" \"capture\": {\"filter\": \"set_event_pid 42 (+event-fork)\", \"lost_events\": 0},"
		" \"contention\": {\"top_pairs\": [{\"vm_start\": \"7f0000001000\"}, {\"vm_start\": null}]}}";
	static const char unfiltered[] =
		"{\"verdict\": {\"code\": \"inversion_confirmed\"},"
		" \"capture\": {\"filter\": null, \"lost_events\": 0},"
		" \"contention\": {\"top_pairs\": [{\"vm_start\": \"7f0000001000\"}]}}";
	static const char elsewhere[] =
		"{\"verdict\": {\"code\": \"inversion_confirmed\"},"
		" \"capture\": {\"filter\": \"set_event_pid 42 (+event-fork)\", \"lost_events\": 0},"
		" \"contention\": {\"top_pairs\": [{\"vm_start\": \"7f00000a0000\"}, {\"vm_start\": \"7f00000b0000\"}]}}";
	json_object *sum = NULL, *row, *cc;

	row = merge(on_target, report, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && json_object_get_boolean(at(cc, "ok", NULL)) && json_object_get_boolean(at(cc, "filtered", NULL)) &&
	      json_object_get_int64(at(cc, "target_vma", "top_pairs_on_it")) == 1 &&
	      !json_object_object_get_ex(row, "contract", NULL),
	      "contract: a filtered run whose pairs are on the workload's VMA passes, the row is quiet");
	json_object_put(sum);
	json_object_put(row);

	/* addresses compared as numbers: the same VMA however its hex is written */
	row = merge(on_target, "{\"tgid\": 42, \"result\": {\"map_start\": \"0x07F0000001000\"}}", &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && json_object_get_int64(at(cc, "target_vma", "top_pairs_on_it")) == 1 &&
	      json_object_get_int64(at(cc, "target_vma", "top_pairs_elsewhere")) == 0,
	      "contract: the workload's VMA written 0x07F0000001000 is the pairs' 7f0000001000");
	json_object_put(sum);
	json_object_put(row);

	row = merge(unfiltered, report, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && !json_object_get_boolean(at(cc, "ok", NULL)) && !json_object_get_boolean(at(cc, "filtered", NULL)) &&
	      at(row, "contract", NULL) && strstr(json_object_get_string(at(row, "contract", NULL)), "not filtered"),
	      "contract: an unfiltered capture is flagged, in the summary and the verdict row");
	json_object_put(sum);
	json_object_put(row);

	row = merge(elsewhere, report, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && !json_object_get_boolean(at(cc, "ok", NULL)) &&
	      json_object_get_int64(at(cc, "target_vma", "top_pairs_elsewhere")) == 2 &&
	      at(row, "contract", NULL) &&
	      strstr(json_object_get_string(at(row, "contract", NULL)), "own VMA"),
	      "contract: pairs that never touch the workload's own VMA are flagged");
	json_object_put(sum);
	json_object_put(row);

	row = merge(on_target, "{\"result\": {}}", &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && json_object_get_boolean(at(cc, "ok", NULL)) && at(cc, "target_vma", NULL) == NULL,
	      "contract: a workload that names no VMA is not checked against one");
	json_object_put(sum);
	json_object_put(row);
	row = merge(on_target, other_tgid, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && !json_object_get_boolean(at(cc, "ok", NULL)) &&
	      json_object_get_boolean(at(cc, "filtered", NULL)) &&
	      at(cc, "filtered_to_workload", NULL) &&
	      !json_object_get_boolean(at(cc, "filtered_to_workload", NULL)) &&
	      json_object_get_int64(at(cc, "workload_tgid", NULL)) == 4242 &&
	      at(row, "contract", NULL) &&
	      strstr(json_object_get_string(at(row, "contract", NULL)), "other processes"),
	      "contract: a capture filtered to a pid that is not the workload's TGID is flagged");
	json_object_put(sum);
	json_object_put(row);

	row = merge(tgid_filter, report, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && json_object_get_boolean(at(cc, "ok", NULL)) &&
	      json_object_get_boolean(at(cc, "filtered_to_workload", NULL)) &&
	      json_object_array_length(at(cc, "filter_pids", NULL)) == 2,
	      "contract: per-event tgid filters on the workload's TGID count as filtered to it");
	json_object_put(sum);
	json_object_put(row);

	row = merge(tgid_filter, other_tgid, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && !json_object_get_boolean(at(cc, "ok", NULL)) &&
	      !json_object_get_boolean(at(cc, "filtered_to_workload", NULL)),
	      "contract: per-event tgid filters on another TGID are flagged");
	json_object_put(sum);
	json_object_put(row);

	row = merge(unfiltered, "{\"tgid\": 42, \"result\": {\"capture_scope\": \"all processes\"}}", &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && json_object_get_boolean(at(cc, "ok", NULL)) && !json_object_get_boolean(at(cc, "filtered", NULL)) &&
	      at(cc, "scope", NULL) && !strcmp(json_object_get_string(at(cc, "scope", NULL)), "all processes"),
	      "contract: a workload whose load is every process (app-rotation) is not flagged unfiltered");
	json_object_put(sum);
	json_object_put(row);

	/* a device agent's set_event_pid, behind record --stdin: the summary learns it */
	agent_filter = "set_event_pid 42 (+event-fork)";
	row = merge(unfiltered, report, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && json_object_get_boolean(at(cc, "ok", NULL)) &&
	      json_object_get_boolean(at(cc, "filtered_to_workload", NULL)) &&
	      !strcmp(json_object_get_string(at(sum, "capture", "filter")), agent_filter),
	      "contract: a filter the device agent set fills the summary's empty capture.filter, and counts");
	json_object_put(sum);
	json_object_put(row);
	agent_filter = "set_event_pid 7 (+event-fork)";
	row = merge(elsewhere, report, &sum);
	CHECK(!strcmp(json_object_get_string(at(sum, "capture", "filter")), "set_event_pid 42 (+event-fork)"),
	      "contract: the collector's own filter line is kept over the agent's");
	json_object_put(sum);
	json_object_put(row);
	agent_filter = NULL;

	/* the preflight's result travels into every summary; a finding flags it */
	kernel_delay = json_tokener_parse("{\"checked\": true, \"source\": \"/src\", \"findings\": ["
		"{\"file\": \"mm/filemap.c\", \"line\": 3330, \"function\": \"filemap_fault\","
		" \"call\": \"msleep\", \"text\": \"msleep(10);\"}]}");
	row = merge(on_target, report, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && !json_object_get_boolean(at(cc, "ok", NULL)) &&
	      json_object_get_int64(at(cc, "kernel_delay", "checked")) == 1 &&
	      at(row, "contract", NULL) &&
	      strstr(json_object_get_string(at(row, "contract", NULL)), "msleep() in filemap_fault() at mm/filemap.c:3330"),
	      "contract: a delay the preflight found in the fault path flags the run, naming where");
	json_object_put(sum);
	json_object_put(row);
	json_object_put(kernel_delay);

	kernel_delay = json_tokener_parse("{\"checked\": false, \"why\": \"no kernel source\", \"findings\": []}");
	row = merge(on_target, NULL, &sum);
	cc = at(at(sum, "workload_report", NULL), "contract_checks", NULL);
	CHECK(cc && at(cc, "kernel_delay", NULL) && !json_object_get_boolean(at(cc, "kernel_delay", "checked")) &&
	      at(at(cc, "kernel_delay", NULL), "why", NULL),
	      "contract: an unchecked preflight says so, also in a summary whose workload wrote no report");
	json_object_put(sum);
	json_object_put(row);
	json_object_put(kernel_delay);
	kernel_delay = NULL;
	return TEST_EXIT();
}
