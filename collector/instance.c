// SPDX-License-Identifier: GPL-2.0
/*
 * The private tracefs instance: finding (and mounting) tracefs, creating
 * mmlock-PID, removing instances left by killed runs, resolving event names
 * against the kernel, and reading the per-CPU ring-buffer counters.
 *
 * The top-level instance is only ever read (available_events, formats).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <tracefs.h>

#include "collector.h"
#include "util.h"

#define TRACEFS_MAGIC_NR	0x74726163
#define DEFAULT_TRACEFS		"/sys/kernel/tracing"
#define INSTANCE_PREFIX		"mmlock-"

static int is_tracefs_dir(const char *dir)
{
	struct stat st;
	char *p;
	int ok;

	p = xasprintf("%s/instances", dir);
	ok = !stat(p, &st) && S_ISDIR(st.st_mode);
	free(p);
	if (!ok)
		return 0;
	p = xasprintf("%s/available_events", dir);
	ok = !access(p, R_OK);
	free(p);
	return ok;
}

int collector_find_tracefs(const char *override, char **dir)
{
	struct statfs sfs;

	*dir = NULL;
	if (override) {
		if (!is_tracefs_dir(override)) {
			errno = ENOENT;
			return -1;
		}
		*dir = xstrdup(override);
		goto set_dir;
	}
	if (statfs(DEFAULT_TRACEFS, &sfs) || sfs.f_type != TRACEFS_MAGIC_NR) {
		if (mount("nodev", DEFAULT_TRACEFS, "tracefs", 0, NULL))
			return -1;
	}
	if (!is_tracefs_dir(DEFAULT_TRACEFS)) {
		errno = ENOENT;
		return -1;
	}
	*dir = xstrdup(DEFAULT_TRACEFS);
set_dir:
	if (tracefs_set_tracing_dir(*dir)) {
		free(*dir);
		*dir = NULL;
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* Is PID an mmlock process (not a later process that reused the number)? */
static int mmlock_alive(long pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	if (!strncmp(comm, "mmlock", 6))
		return 1;
	/* a renamed binary: the same executable as ours */
	{
		char exe[PATH_MAX], self[PATH_MAX];
		ssize_t a, b;

		snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
		a = readlink(path, exe, sizeof(exe) - 1);
		b = readlink("/proc/self/exe", self, sizeof(self) - 1);
		return a > 0 && a == b && !memcmp(exe, self, (size_t)a);
	}
}

int collector_remove_stale(const char *tracing_dir, int all,
			   void (*report)(const char *name, void *ctx), void *ctx)
{
	struct dirent *d;
	char *path;
	DIR *dir;
	int removed = 0, failed = 0;

	path = xasprintf("%s/instances", tracing_dir);
	dir = opendir(path);
	free(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		struct tracefs_instance *inst;
		char *end;
		long pid;

		if (strncmp(d->d_name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)))
			continue;
		pid = strtol(d->d_name + strlen(INSTANCE_PREFIX), &end, 10);
		if (*end || pid <= 0)
			continue;
		if (pid == (long)getpid())
			continue;
		if (!all && mmlock_alive(pid))
			continue;
		inst = tracefs_instance_alloc(tracing_dir, d->d_name);
		if (!inst) {
			failed++;
			continue;
		}
		if (tracefs_instance_destroy(inst))
			failed++;
		else {
			removed++;
			if (report)
				report(d->d_name, ctx);
		}
		tracefs_instance_free(inst);
	}
	closedir(dir);
	if (failed) {
		errno = EBUSY;
		return -1;
	}
	return removed;
}

int collector_create(struct collector *c, const char *tracing_dir)
{
	int cpu;

	memset(c, 0, sizeof(*c));
	c->tracing_dir = xstrdup(tracing_dir);
	snprintf(c->name, sizeof(c->name), INSTANCE_PREFIX "%d", (int)getpid());
	c->inst = tracefs_instance_create(c->name);
	if (!c->inst)
		goto free_dir;
	if (!tracefs_instance_is_new(c->inst)) {
		/* someone else's; never take it over */
		tracefs_instance_free(c->inst);
		c->inst = NULL;
		errno = EEXIST;
		goto free_dir;
	}
	if (tracefs_trace_off(c->inst))
		goto destroy_instance;
	for (cpu = 0; cpu < 4096; cpu++) {
		char name[32];

		snprintf(name, sizeof(name), "per_cpu/cpu%d", cpu);
		if (!tracefs_dir_exists(c->inst, name))
			break;
	}
	c->nr_cpus = cpu;
	if (!c->nr_cpus) {
		errno = ENODEV;
		goto destroy_instance;
	}
	return 0;

destroy_instance:
	{
		int err = errno;

		tracefs_instance_destroy(c->inst);
		tracefs_instance_free(c->inst);
		c->inst = NULL;
		errno = err;
	}
free_dir:
	free(c->tracing_dir);
	c->tracing_dir = NULL;
	return -1;
}

void collector_destroy(struct collector *c)
{
	size_t i;

	if (c->inst) {
		/* turn everything off first, so a failed rmdir leaves nothing running */
		tracefs_trace_off(c->inst);
		tracefs_event_disable(c->inst, NULL, NULL);
		if (tracefs_instance_destroy(c->inst))
			pr_warn("could not remove tracing instance %s: %s", c->name,
				strerror(errno));
		tracefs_instance_free(c->inst);
		c->inst = NULL;
	}
	for (i = 0; i < c->nr_events; i++) {
		free(c->events[i].system);
		free(c->events[i].name);
		free(c->events[i].filter);
		free(c->events[i].trigger);
	}
	free(c->events);
	c->events = NULL;
	c->nr_events = 0;
	for (i = 0; i < c->nr_available; i++)
		free(c->available[i]);
	free(c->available);
	c->available = NULL;
	c->nr_available = 0;
	free(c->tracing_dir);
	c->tracing_dir = NULL;
}

int collector_load_available(struct collector *c)
{
	char *path, *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	path = xasprintf("%s/available_events", c->tracing_dir);
	f = fopen(path, "re");
	free(path);
	if (!f)
		return -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line || !strchr(line, ':'))
			continue;
		c->available = xrealloc(c->available, (c->nr_available + 1) * sizeof(char *));
		c->available[c->nr_available++] = xstrdup(line);
	}
	free(line);
	fclose(f);
	return 0;
}

int collector_resolve(struct collector *c, const char *spec, char **sys, char **name)
{
	const char *found = NULL;
	size_t i, nfound = 0;
	int qualified = strchr(spec, ':') != NULL;

	for (i = 0; i < c->nr_available; i++) {
		const char *a = c->available[i];

		if (qualified) {
			if (strcmp(a, spec))
				continue;
		} else if (strcmp(strchr(a, ':') + 1, spec)) {
			continue;
		}
		if (!found)
			found = a;
		nfound++;
	}
	if (!found) {
		errno = ENOENT;
		return -1;
	}
	if (nfound > 1) {
		errno = EEXIST;
		return -1;
	}
	*sys = strndup(found, (size_t)(strchr(found, ':') - found));
	if (!*sys)
		return -1;
	*name = xstrdup(strchr(found, ':') + 1);
	return 0;
}

int cpu_stats_parse(const char *text, struct cpu_stats *st)
{
	static const struct {
		const char	*key;
		size_t		off;
	} keys[] = {
		{ "entries",		offsetof(struct cpu_stats, entries) },
		{ "overrun",		offsetof(struct cpu_stats, overrun) },
		{ "commit overrun",	offsetof(struct cpu_stats, commit_overrun) },
		{ "bytes",		offsetof(struct cpu_stats, bytes) },
		{ "dropped events",	offsetof(struct cpu_stats, dropped) },
		{ "read events",	offsetof(struct cpu_stats, read) },
	};
	const char *p = text;
	unsigned int seen = 0;
	size_t k;

	memset(st, 0, sizeof(*st));
	while (p && *p) {
		const char *colon = strchr(p, ':'), *nl = strchr(p, '\n');

		if (colon && (!nl || colon < nl)) {
			for (k = 0; k < ARRAY_SIZE(keys); k++) {
				size_t kl = strlen(keys[k].key);

				if ((size_t)(colon - p) == kl && !strncmp(p, keys[k].key, kl)) {
					uint64_t *dst = (uint64_t *)((char *)st + keys[k].off);

					*dst = strtoull(colon + 1, NULL, 10);
					seen |= 1u << k;
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	/* "entries" and "overrun" are in every kernel's stats file */
	if ((seen & 3u) != 3u) {
		errno = EINVAL;
		return -1;
	}
	st->valid = 1;
	return 0;
}

int collector_read_stats(struct collector *c, struct cpu_stats *st)
{
	int cpu, ret = 0;

	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		char name[48], *text;

		snprintf(name, sizeof(name), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(c->inst, name, NULL);
		if (!text || cpu_stats_parse(text, &st[cpu])) {
			memset(&st[cpu], 0, sizeof(st[cpu]));
			ret = -1;
		}
		free(text);
	}
	return ret;
}
