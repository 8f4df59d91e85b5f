// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim: the seed's pressure loop (drop_caches, then compact_memory, every
 * period), as a stressor to run beside another workload: it keeps evicting
 * file pages so faults keep doing I/O.  Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct rc {
	long		period_ms, compact;
	uint64_t	next_us, ran_us;
	unsigned long	drops, compactions, errors;
	char		*last_error;
};

static const struct wl_param rc_params[] = {
	WL_PARAM(struct rc, period_ms, "period-ms", 1000, 1, 3600000, "one drop_caches every N ms"),
	WL_PARAM(struct rc, compact, "compact", 1, 0, 1, "also write compact_memory (1) or not (0)"),
	{ NULL, 0, 0, 0, 0, NULL }
};

static int write_knob(struct rc *r, const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	ok = fd >= 0 && write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	if (!ok) {
		r->errors++;
		free(r->last_error);
		r->last_error = xasprintf("%s: %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static void reclaim_tick(void *arg, uint64_t elapsed_us)
{
	struct rc *r = arg;

	if (elapsed_us < r->next_us)
		return;
	r->next_us = elapsed_us + (uint64_t)r->period_ms * 1000;
	sync();
	if (!write_knob(r, "/proc/sys/vm/drop_caches", "3"))
		r->drops++;
	if (r->compact && !access("/proc/sys/vm/compact_memory", F_OK) &&
	    !write_knob(r, "/proc/sys/vm/compact_memory", "1"))
		r->compactions++;
}

static int rc_run(void *priv, const struct workload_common *c)
{
	struct rc *r = priv;

	r->ran_us = wl_drive(c->duration_us, NULL, 0, reclaim_tick, r, NULL);
	return r->drops ? 0 : -1;
}

static void rc_report(void *priv, json_object *out)
{
	struct rc *r = priv;
	json_object *o = json_object_new_object();
	char *ev;

	json_object_object_add(o, "ran_ms", json_object_new_uint64(r->ran_us / 1000));
	json_object_object_add(o, "drop_caches", json_object_new_uint64(r->drops));
	json_object_object_add(o, "compactions", json_object_new_uint64(r->compactions));
	json_object_object_add(o, "errors", json_object_new_uint64(r->errors));
	json_object_object_add(out, "result", o);
	ev = xasprintf("%lu drop_caches and %lu compactions, every %llu ms", r->drops,
		       r->compactions, (unsigned long long)r->period_ms);
	wl_output_contract(out, r->drops ? "ran to the end" : "setup",
			   "drop_caches then compact_memory every period", ev, "none",
			   r->last_error ? r->last_error : "none",
			   "run it beside a fault workload so its faults keep doing I/O");
	free(ev);
}

static void rc_fini(void *priv)
{
	struct rc *r = priv;

	free(r->last_error);
}

const struct workload wl_reclaim = {
	.name		= "reclaim",
	.summary	= "drop_caches + compact_memory pressure loop (root), beside other workloads",
	.params		= rc_params,
	.size		= sizeof(struct rc),
	.run		= rc_run,
	.report		= rc_report,
	.fini		= rc_fini,
};
