/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where mmlock run's events come from: the patched kernel, mmlock_probe.ko
 * on a stock kernel, or the stock events alone (runner/run-source.c).
 */
#ifndef MMLOCK_RUN_SOURCE_H
#define MMLOCK_RUN_SOURCE_H

#include <json-c/json.h>

enum run_source_kind {
	RUN_SOURCE_AUTO,
	RUN_SOURCE_KERNEL,
	RUN_SOURCE_MODULE,
	RUN_SOURCE_STOCK,
};

struct run_source {
	enum run_source_kind	kind;
	char			*ko;		/* the module this run loaded */
	int			loaded_by_run;	/* unload it at the end */
	char			*load_error;	/* why not the module, or NULL */
};

int run_source_parse(const char *s);
const char *run_source_name(enum run_source_kind kind);
int run_source_choose(struct run_source *rs, enum run_source_kind want, int no_module,
		      const char *ko);
char *run_source_describe(const struct run_source *rs);
json_object *run_source_json(const struct run_source *rs);
int run_source_release(struct run_source *rs);

#endif /* MMLOCK_RUN_SOURCE_H */
