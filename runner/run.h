/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `mmlock run` (here) and `mmlock device run` (on a phone or board)
 * share: the fault policies, the merge of a workload's report into its
 * summary, and the table of verdicts (runner/run-common.c).
 */
#ifndef MMLOCK_RUN_H
#define MMLOCK_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "mmlock_events.h"

struct run_policy {
	const char	*name;
	int		no_retry, retry_vma_lock;	/* the two sysctls */
};

int run_policy_value(const struct run_policy *p, enum mmlock_sysctl_id id);

/* the contract's policies (mmlock_events.h), stock first */
#define RUN_POLICY_STOCK	MMLOCK_POLICY_STOCK
#define RUN_NR_POLICIES	MMLOCK_POLICY_NR
#define RUN_ALL_POLICIES	((1 << RUN_NR_POLICIES) - 1)
extern const struct run_policy run_policies[RUN_NR_POLICIES];

int run_policy_mask_parse(const char *list, int *mask);

/* A NULL-terminated argument vector being built (perf's record_args style). */
struct run_argv {
	char	**argv;
	int	argc;
};
void run_argv_push(struct run_argv *a, const char *s);
void run_argv_free(struct run_argv *a);
void run_argv_workload(struct run_argv *a, const char *self, const char *wl,
		       const char *duration, const char *dir, const char *report,
		       char *const *args, int nr_args);
int run_summary_merge(const char *summary, json_object *sum, json_object *report,
		      const struct run_policy *p, int64_t lost_at_least, json_object *kernel_delay,
		      const char *filter, json_object *row, char **why);
/* The contract's preflight: artificial delays in the fault path (runner/preflight.c). */
json_object *run_preflight_kernel_delay(const char *src, int local);
char *run_preflight_describe(json_object *kd);
void run_rows_compare_stock(json_object *rows, size_t first);
void run_table_print(FILE *f, json_object *rows, const char *header);
int run_table_write(const char *dir, json_object *rows, const char *header);
json_object *run_ranges(json_object *rows);
void run_ranges_print(FILE *f, json_object *ranges);
void run_summaries_print(FILE *f, json_object *rows);

#endif /* MMLOCK_RUN_H */
