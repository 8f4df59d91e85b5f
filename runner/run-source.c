// SPDX-License-Identifier: GPL-2.0
/*
 * Where `mmlock run` gets its events: the kernel's own (a kernel with our
 * series), mmlock_probe.ko (a stock kernel that may load modules: loaded
 * here and unloaded on every exit when we loaded it), or the stock events
 * alone.  The choice is made once, before the first workload, and every
 * summary says which it was and why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <tracefs.h>

#include "evset.h"
#include "mmlock_events.h"
#include "run-source.h"
#include "util.h"

/* the module is named after the event system it adds */
#define PROBE_MODULE	EVSET_MODULE_SYSTEM

static const char *const kind_names[] = {
	[RUN_SOURCE_AUTO]	= "auto",
	[RUN_SOURCE_KERNEL]	= "kernel",
	[RUN_SOURCE_MODULE]	= "module",
	[RUN_SOURCE_STOCK]	= "stock",
};

/**
 * run_source_parse - the kind named by @s
 * @s: "auto", "kernel", "module" or "stock"
 *
 * Returns the kind, or -1 when @s names none.
 */
int run_source_parse(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(s, kind_names[i]))
			return (int)i;
	return -1;
}

/**
 * run_source_name - the word for @kind, as trace.status and summaries print it
 * @kind: a run source kind
 */
const char *run_source_name(enum run_source_kind kind)
{
	return kind_names[kind];
}

static int tracefs_has(const char *rel)
{
	const char *dir = tracefs_tracing_dir();
	char *path;
	int ok;

	if (!dir)
		return 0;
	path = xasprintf("%s/%s", dir, rel);
	ok = !access(path, F_OK);
	free(path);
	return ok;
}

static int tracefs_has_event(enum mmlock_event_id id)
{
	char *rel = xasprintf("events/%s/%s", mmlock_events[id].system, mmlock_events[id].name);
	int ok = tracefs_has(rel);

	free(rel);
	return ok;
}

/* The kernel's own contract events: what the series adds. */
static int kernel_has_events(void)
{
	return tracefs_has_event(MMLOCK_EV_FILEMAP_FAULT_BEGIN) &&
	       tracefs_has_event(MMLOCK_EV_VMA_START_WRITE_BEGIN);
}

static int module_events_present(void)
{
	return tracefs_has("events/" EVSET_MODULE_SYSTEM);
}

/* "A, B": @path appended to the list of places looked at. */
static void add_tried(char **tried, const char *path)
{
	char *both = *tried ? xasprintf("%s, %s", *tried, path) : xstrdup(path);

	free(*tried);
	*tried = both;
}

/* The .ko to load: --module, $MMLOCK_PROBE_KO, the module trees, beside us. */
static char *find_module(const char *given, char **tried)
{
	static const char *const trees[] = { "extra", "updates" };
	char self[4096], *dir, *cand;
	struct utsname u;
	ssize_t n;

	*tried = NULL;
	if (given)
		return xstrdup(given);
	if (getenv("MMLOCK_PROBE_KO") && *getenv("MMLOCK_PROBE_KO"))
		return xstrdup(getenv("MMLOCK_PROBE_KO"));
	if (!uname(&u)) {
		for (size_t i = 0; i < ARRAY_SIZE(trees); i++) {
			cand = xasprintf("/lib/modules/%s/%s/%s.ko", u.release, trees[i],
					 PROBE_MODULE);
			if (!access(cand, R_OK))
				return cand;
			add_tried(tried, cand);
			free(cand);
		}
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	dir = strrchr(self, '/');
	if (dir)
		*dir = '\0';
	cand = xasprintf("%s/%s.ko", self, PROBE_MODULE);
	if (!access(cand, R_OK))
		return cand;
	add_tried(tried, cand);
	free(cand);
	cand = xasprintf("%s/../tracepoints/module/%s.ko", self, PROBE_MODULE);
	if (!access(cand, R_OK))
		return cand;
	add_tried(tried, cand);
	free(cand);
	return NULL;
}

/* Why finit_module() refused, in words a user can act on. */
static char *load_error(int err, const char *ko)
{
	switch (err) {
	case EPERM:
		return xasprintf("loading %s: not permitted (root with CAP_SYS_MODULE, and "
				 "kernel.modules_disabled = 0, are needed)", ko);
	case EKEYREJECTED:
	case EBADMSG:
		return xasprintf("loading %s: the kernel wants signed modules (%s)", ko,
				 strerror(err));
	case ENOEXEC:
	case EINVAL:
		return xasprintf("loading %s: built for another kernel (%s); rebuild it with "
				 "make -C /lib/modules/$(uname -r)/build M=$PWD", ko, strerror(err));
	case ENOSYS:
		return xasprintf("loading %s: this kernel has no module support", ko);
	default:
		return xasprintf("loading %s: %s", ko, strerror(err));
	}
}

static int modules_disabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/modules_disabled", "r");
	int v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

/* Load @ko; 0 on success, else -1 with rs->load_error set. */
static int load_module(struct run_source *rs, const char *ko)
{
	int fd, err;

	if (modules_disabled()) {
		rs->load_error = xasprintf("loading %s: kernel.modules_disabled is 1", ko);
		return -1;
	}
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rs->load_error = xasprintf("%s: %s", ko, strerror(errno));
		return -1;
	}
	err = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
	close(fd);
	if (err == EEXIST && module_events_present())
		return 0;	/* someone else loaded it meanwhile: theirs to unload */
	if (err) {
		rs->load_error = load_error(err, ko);
		return -1;
	}
	rs->loaded_by_run = 1;
	return 0;
}

/**
 * run_source_choose - decide where the events come from, loading the module if needed
 * @rs: filled in; release with run_source_release()
 * @want: RUN_SOURCE_AUTO, or the kind the user forced
 * @no_module: with RUN_SOURCE_AUTO, never try to load the module
 * @ko: the module's path (--module), or NULL to search for it
 *
 * Returns 0, or -1 when a forced kind cannot be had (rs->load_error says why).
 */
int run_source_choose(struct run_source *rs, enum run_source_kind want, int no_module,
		      const char *ko)
{
	char *tried = NULL, *path;

	memset(rs, 0, sizeof(*rs));
	if (want == RUN_SOURCE_STOCK) {
		rs->kind = RUN_SOURCE_STOCK;
		return 0;
	}
	if (kernel_has_events() && want != RUN_SOURCE_MODULE) {
		rs->kind = RUN_SOURCE_KERNEL;
		return 0;
	}
	if (want == RUN_SOURCE_KERNEL) {
		rs->load_error = xasprintf("the kernel has none of the series' events "
					   "(events/%s/%s)",
					   mmlock_events[MMLOCK_EV_FILEMAP_FAULT_BEGIN].system,
					   mmlock_events[MMLOCK_EV_FILEMAP_FAULT_BEGIN].name);
		return -1;
	}
	if (module_events_present()) {
		rs->kind = RUN_SOURCE_MODULE;
		return 0;
	}
	if (no_module && want == RUN_SOURCE_AUTO) {
		rs->kind = RUN_SOURCE_STOCK;
		rs->load_error = xasprintf("--no-module");
		return 0;
	}
	path = find_module(ko, &tried);
	if (!path) {
		rs->load_error = xasprintf("no %s.ko found (tried %s)", PROBE_MODULE,
					   tried ? tried : "nothing");
	} else if (!load_module(rs, path)) {
		rs->kind = RUN_SOURCE_MODULE;
		rs->ko = path;
		free(tried);
		return 0;
	}
	free(path);
	free(tried);
	if (want == RUN_SOURCE_MODULE)
		return -1;
	rs->kind = RUN_SOURCE_STOCK;
	return 0;
}

/**
 * run_source_describe - one line saying where the events come from, for stderr
 * @rs: a chosen source
 *
 * Returns an allocated string.
 */
char *run_source_describe(const struct run_source *rs)
{
	switch (rs->kind) {
	case RUN_SOURCE_KERNEL:
		return xasprintf("events from the kernel (the mmlock series)");
	case RUN_SOURCE_MODULE:
		if (rs->loaded_by_run)
			return xasprintf("events from %s.ko (loaded from %s, unloaded at the end)",
					 PROBE_MODULE, rs->ko);
		return xasprintf("events from %s.ko (already loaded)", PROBE_MODULE);
	default:
		return xasprintf("stock events only%s%s: Type-A is not measurable, Type-B only "
				 "where the kernel's page-fault events show a retry",
				 rs->load_error ? ": " : "", rs->load_error ? rs->load_error : "");
	}
}

/**
 * run_source_json - the source as a JSON object for summaries and verdicts
 * @rs: a chosen source
 */
json_object *run_source_json(const struct run_source *rs)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(run_source_name(rs->kind)));
	json_object_object_add(o, "ko", rs->ko ? json_object_new_string(rs->ko) : NULL);
	json_object_object_add(o, "loaded_by_run", json_object_new_boolean(rs->loaded_by_run));
	json_object_object_add(o, "load_error",
			       rs->load_error ? json_object_new_string(rs->load_error) : NULL);
	return o;
}

/**
 * run_source_release - unload the module if this run loaded it, free @rs
 * @rs: a chosen source
 *
 * The module may still be busy for a moment after the recorder disabled its
 * events: retry for two seconds.  Returns 0, or -1 (and says why) when it
 * stayed loaded.
 */
int run_source_release(struct run_source *rs)
{
	int ret = 0;

	if (rs->loaded_by_run) {
		int err = 0;

		for (int i = 0; i < 20; i++) {
			err = syscall(SYS_delete_module, PROBE_MODULE, O_NONBLOCK) ? errno : 0;
			if (err == ENOENT)
				err = 0;
			if (err != EAGAIN && err != EBUSY)
				break;
			usleep(100000);
		}
		if (err) {
			pr_err("could not unload %s: %s", PROBE_MODULE, strerror(err));
			ret = -1;
		}
		rs->loaded_by_run = 0;
	}
	free(rs->ko);
	free(rs->load_error);
	rs->ko = rs->load_error = NULL;
	return ret;
}
