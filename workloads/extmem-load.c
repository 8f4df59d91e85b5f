// SPDX-License-Identifier: GPL-2.0
/*
 * extmem: the external-memory sharing probe (workloads/extmem/) as a traced
 * load.  Exporting GPU-visible memory, handing the fd to a re-exec'd peer
 * and mapping it there is VMA traffic (mmap of exported fds, munmap,
 * imports) in several processes; the probe's own verdict table says which
 * sharing route works on this device.  The probe is its own binary (Vulkan,
 * EGL, GLES), found beside mmlock or at $MMLOCK_EXTMEM_PROBE.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

struct xm {
	long		iterations, size, gles;
	char		*probe;
	int		exit_code;
	json_object	*table;		/* the probe's --json output */
	char		*error;
};

static const struct wl_param xm_params[] = {
	WL_PARAM(struct xm, iterations, "iterations", 3, 1, 100000, "times the probe repeats its tiers"),
	WL_PARAM(struct xm, size, "size", 65536, 32768, 1L << 30, "bytes of each shared allocation"),
	WL_PARAM(struct xm, gles, "gles", 1, 0, 1, "also the EGL/GLES routes (1) or not (0)"),
	{ NULL, 0, 0, 0, 0, NULL }
};

static char *find_probe(void)
{
	const char *env = getenv("MMLOCK_EXTMEM_PROBE");
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return xasprintf("%s/extmem-probe", self);
}

/* Run the probe with --json, its standard output collected, and parse it. */
static int xm_run(void *priv, const struct workload_common *c)
{
	struct xm *x = priv;
	char iters[32], size[48], *out = NULL;
	size_t len = 0, cap = 0;
	int pipefd[2], status;
	pid_t pid;
	ssize_t n;

	(void)c;
	x->probe = find_probe();
	if (!x->probe || access(x->probe, X_OK)) {
		x->error = xasprintf("no extmem-probe at %s (build it: make, with scripts/install-deps.sh "
				     "gpu; or set MMLOCK_EXTMEM_PROBE)", x->probe ? x->probe : "?");
		return -1;
	}
	if (pipe(pipefd))
		goto out_errno;
	snprintf(iters, sizeof(iters), "--iterations=%ld", x->iterations);
	snprintf(size, sizeof(size), "--size=%ld", x->size);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		goto out_errno;
	}
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(x->probe, x->probe, "--json", iters, size, x->gles ? NULL : "--no-gles",
		      (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			out = xrealloc(out, cap);
		}
		n = read(pipefd[0], out + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	x->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (out) {
		out[len] = '\0';
		x->table = json_tokener_parse(out);
	}
	free(out);
	if (!x->table) {
		x->error = xasprintf("the probe exited %d without a JSON verdict table", x->exit_code);
		return -1;
	}
	return 0;

out_errno:
	x->error = xasprintf("cannot run %s: %s", x->probe, strerror(errno));
	return -1;
}

static void xm_report(void *priv, json_object *out)
{
	struct xm *x = priv;
	json_object *r = json_object_new_object(), *rows;
	char *ev;
	size_t n = 0, ok = 0;

	json_object_object_add(r, "probe", x->probe ? json_object_new_string(x->probe) : NULL);
	json_object_object_add(r, "probe_exit", json_object_new_int(x->exit_code));
	if (x->table && json_object_object_get_ex(x->table, "rows", &rows) &&
	    json_object_is_type(rows, json_type_array)) {
		n = json_object_array_length(rows);
		for (size_t i = 0; i < n; i++) {
			json_object *st;

			if (json_object_object_get_ex(json_object_array_get_idx(rows, i), "status",
						      &st) && !strcmp(json_object_get_string(st), "OK"))
				ok++;
		}
	}
	json_object_object_add(r, "verdicts", json_object_get(x->table));
	json_object_object_add(out, "result", r);
	{
		json_object *np = NULL;
		int64_t no_persist = 0;

		if (x->table && json_object_object_get_ex(x->table, "summary", &np) &&
		    json_object_object_get_ex(np, "OK_without_persistent_map", &np))
			no_persist = json_object_get_int64(np);
		ev = xasprintf("%zu of %zu routes OK over %ld iterations, %" PRId64 " of them without the "
			       "persistent map DirectGLES needs (probe exit %d)", ok, n, x->iterations,
			       no_persist, x->exit_code);
	}
	wl_output_contract(out, x->table ? "ran to the end" : "setup",
			   "export, hand over SCM_RIGHTS, map and import in a re-exec'd peer, "
			   "compare bytes both ways after a GPU access", ev, "none",
			   x->error ? x->error : "none",
			   "read the route table; compare the VMA traffic with mmlock analyze");
	free(ev);
}

static void xm_fini(void *priv)
{
	struct xm *x = priv;

	json_object_put(x->table);
	free(x->probe);
	free(x->error);
}

const struct workload wl_extmem = {
	.name		= "extmem",
	.summary	= "the external-memory sharing probe (Vulkan/GLES) as a traced load",
	.params		= xm_params,
	.size		= sizeof(struct xm),
	.run		= xm_run,
	.report		= xm_report,
	.fini		= xm_fini,
};
