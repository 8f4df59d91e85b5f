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
#include <sys/wait.h>

#include "util.h"
#include "workload.h"

struct rc {
	long		period_ms, compact;
	uint64_t	next_us, ran_us;
	unsigned long	started, drops, compactions, errors, busy_skips;
	pid_t		child;		/* the drop in progress, or 0 */
	uint64_t	child_start_us, longest_us, running_at_end_us;
	char		*last_error;
};

static const struct wl_param rc_params[] = {
	WL_PARAM(struct rc, period_ms, "period-ms", 1000, 1, 3600000, "one drop_caches every N ms"),
	WL_PARAM(struct rc, compact, "compact", 1, 0, 1, "also write compact_memory (1) or not (0)"),
	{ NULL, 0, 0, 0, 0, NULL }
};

/* In the child: only async-signal-safe calls.  0 = written, else errno. */
static int write_knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/*
 * The drop child's exit status: 0 both written, 1-127 drop_caches failed
 * with that errno (clipped), 128 compact_memory failed, 129 no compaction
 * asked for or none in this kernel.  No sync() first: it waits for every
 * dirty page of the machine, and clean page cache is what faults refill.
 */
static void drop_child(int compact)
{
	int err, null = open("/dev/null", O_RDWR);

	/* a pipe the caller reads (stdout, mmlock run's) must not wait for this drop */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	close_range(3, ~0U, 0);
	err = write_knob("/proc/sys/vm/drop_caches", "3");

	if (err)
		_exit(err > 127 ? 127 : err);
	if (!compact || access("/proc/sys/vm/compact_memory", F_OK))
		_exit(129);
	_exit(write_knob("/proc/sys/vm/compact_memory", "1") ? 128 : 0);
}

static void note_error(struct rc *r, const char *what, int err)
{
	r->errors++;
	free(r->last_error);
	r->last_error = xasprintf("%s: %s", what, strerror(err));
}

/* Collect the drop child if it ended (@block: wait for it). */
static void reap_drop(struct rc *r, uint64_t now_us, int block)
{
	int status;
	pid_t got;

	if (!r->child)
		return;
	got = waitpid(r->child, &status, block ? 0 : WNOHANG);
	if (got == 0 || (got < 0 && errno == EINTR))
		return;
	r->child = 0;
	if (now_us - r->child_start_us > r->longest_us)
		r->longest_us = now_us - r->child_start_us;
	if (got < 0 || !WIFEXITED(status)) {
		note_error(r, "drop_caches child", got < 0 ? errno : EINTR);
		return;
	}
	status = WEXITSTATUS(status);
	if (status > 0 && status < 128) {
		note_error(r, "/proc/sys/vm/drop_caches", status);
		return;
	}
	r->drops++;
	if (status == 0)
		r->compactions++;
	else if (status == 128)
		note_error(r, "/proc/sys/vm/compact_memory", EIO);
}

/*
 * drop_caches on a machine with a large page cache can take seconds, and
 * nothing interrupts it: run in the workload's own thread it held a 700 ms
 * run for 10.6 s.  Each drop runs in a child process instead, so the
 * workload keeps its duration; a drop still running when the next is due
 * is counted, not stacked, and one still running at the end is reported
 * and left to finish on its own.
 */
static void reclaim_tick(void *arg, uint64_t elapsed_us)
{
	struct rc *r = arg;
	pid_t pid;

	reap_drop(r, elapsed_us, 0);
	if (elapsed_us < r->next_us)
		return;
	r->next_us = elapsed_us + (uint64_t)r->period_ms * 1000;
	if (r->child) {
		r->busy_skips++;
		return;
	}
	pid = fork();
	if (pid < 0) {
		note_error(r, "fork", errno);
		return;
	}
	if (pid == 0)
		drop_child((int)r->compact);
	r->child = pid;
	r->child_start_us = elapsed_us;
	r->started++;
}

static int rc_run(void *priv, const struct workload_common *c)
{
	struct rc *r = priv;
	uint64_t end;
	int i;

	r->ran_us = wl_drive(c->duration_us, NULL, 0, reclaim_tick, r, NULL);
	/* a drop that ends within 100 ms of the end is still counted */
	for (i = 0, end = r->ran_us; r->child && i < 100; i++, end += 1000) {
		wl_sleep_us(1000);
		reap_drop(r, end, 0);
	}
	if (r->child)
		r->running_at_end_us = end - r->child_start_us;
	return r->started ? 0 : -1;
}

static void rc_report(void *priv, json_object *out)
{
	struct rc *r = priv;
	json_object *o = json_object_new_object();
	char *ev;

	json_object_object_add(o, "ran_ms", json_object_new_uint64(r->ran_us / 1000));
	json_object_object_add(o, "drop_caches", json_object_new_uint64(r->started));
	json_object_object_add(o, "drops_completed", json_object_new_uint64(r->drops));
	json_object_object_add(o, "compactions", json_object_new_uint64(r->compactions));
	json_object_object_add(o, "errors", json_object_new_uint64(r->errors));
	json_object_object_add(o, "longest_drop_ms", json_object_new_uint64(r->longest_us / 1000));
	json_object_object_add(o, "drops_skipped_busy", json_object_new_uint64(r->busy_skips));
	json_object_object_add(o, "drop_running_at_end_ms",
			       r->child ? json_object_new_uint64(r->running_at_end_us / 1000) : NULL);
	json_object_object_add(out, "result", o);
	ev = xasprintf("%lu drop_caches (%lu completed) and %lu compactions, every %llu ms; the "
		       "longest drop took %llu ms%s", r->started, r->drops, r->compactions, (unsigned long long)r->period_ms,
		       (unsigned long long)(r->longest_us / 1000),
		       r->child ? "; one was still running at the end (left to finish)" : "");
	wl_output_contract(out, r->started ? "ran to the end" : "setup",
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
