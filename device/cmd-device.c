// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock device: what `mmlock run` does locally, on a phone or a board
 * reached through adb or ssh.  The device runs a small shell agent
 * (agent.sh, pushed with the static mmlock binary of its architecture);
 * everything it changes is listed on the device so that `restore` undoes it
 * on every exit.  Capture is either host-side (the device's trace_pipe
 * streamed through the transport into `mmlock record --stdin` here) or
 * device-side (`mmlock record` on the device, its chunks pulled afterwards);
 * analysis always runs here.  record, analyze and compare are called as
 * functions in a forked child with a built argv (perf's builtin style): the
 * child keeps their signal handlers and getopt state away from this loop.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "device.h"
#include "mmlock.h"
#include "mmlock_events.h"
#include "recipe.h"
#include "util.h"
#include "runner/run.h"
#include "workloads/workload.h"

static const char agent_text[] =
#include "agent.inc"
	;

#define END_MARKER	"mmlock-device-end "

struct dev_opts {
	const char	*serial, *ssh, *base, *outdir, *name, *kernel, *duration, *files,
			*threshold, *buffer_kb, *binary, *kernel_src;
	int		device_capture;		/* --capture device */
	int		perfetto;		/* --perfetto: Perfetto's trace beside ours */
	int		simpleperf;		/* --simpleperf: simpleperf's perf.data beside */
	int		logcat;			/* --logcat: logcat beside */
	int		raw;			/* --binary pages (device-side) */
	int		policy_mask;
	char		**args;
	int		nr_args;
};

/* What the device told the agent's probe, as key=value lines. */
struct probe {
	char	**keys, **vals;
	size_t	n;
	char	**events;	/* sys:name */
	size_t	nr_events;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
	transport_interrupted = 1;
}

static void probe_free(struct probe *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->keys[i]);
		free(p->vals[i]);
	}
	for (i = 0; i < p->nr_events; i++)
		free(p->events[i]);
	free(p->keys);
	free(p->vals);
	free(p->events);
	memset(p, 0, sizeof(*p));
}

static void probe_parse(struct probe *p, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(line, "event")) {
			p->events = xrealloc(p->events, (p->nr_events + 1) * sizeof(*p->events));
			p->events[p->nr_events++] = xstrdup(eq + 1);
			continue;
		}
		p->keys = xrealloc(p->keys, (p->n + 1) * sizeof(*p->keys));
		p->vals = xrealloc(p->vals, (p->n + 1) * sizeof(*p->vals));
		p->keys[p->n] = xstrdup(line);
		p->vals[p->n++] = xstrdup(eq + 1);
	}
}

static const char *probe_get(const struct probe *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->keys[i], key))
			return p->vals[i];
	return NULL;
}

/* The agent's "sysctl_NAME=" line for a fault-policy sysctl: its value or "absent". */
static const char *probe_sysctl(const struct probe *p, enum mmlock_sysctl_id id)
{
	char key[64];

	snprintf(key, sizeof(key), "sysctl_%s", mmlock_sysctls[id].name);
	return probe_get(p, key);
}

static int probe_has_event(const struct probe *p, const char *sys, const char *name)
{
	size_t i, l = strlen(sys);

	for (i = 0; i < p->nr_events; i++)
		if (!strncmp(p->events[i], sys, l) && p->events[i][l] == ':' &&
		    !strcmp(p->events[i] + l + 1, name))
			return 1;
	return 0;
}

/* ---- the device session: connect, agent, probe ---- */

struct session {
	struct transport	t;
	const struct dev_opts	*o;
	char			*agent;		/* BASE/agent.sh on the device */
	struct probe		probe;
	char			*label;		/* out/<label>/ */
	json_object		*kernel_delay;	/* the preflight's result (--kernel-src) */
};

/* sh BASE/agent.sh BASE ACTION ARGS..., quoted for the device's shell */
static char *agent_cmd(const struct session *s, const char *action, char *const *args)
{
	char *head[5] = { (char *)"sh", s->agent, (char *)s->o->base, (char *)action, NULL };
	char *a = shell_join(head), *b, *line;

	if (!args || !args[0])
		return a;
	b = shell_join(args);
	line = xasprintf("%s %s", a, b);
	free(a);
	free(b);
	return line;
}

static int push_agent(struct session *s)
{
	char tmpl[] = "/tmp/mmlock-agent-XXXXXX", *q, *cmd;
	int fd = mkstemp(tmpl), rc;

	if (fd < 0) {
		pr_err("cannot create a temporary file: %s", strerror(errno));
		return -1;
	}
	if (write_all(fd, agent_text, sizeof(agent_text) - 1)) {
		pr_err("%s: %s", tmpl, strerror(errno));
		close(fd);
		unlink(tmpl);
		return -1;
	}
	close(fd);
	/*
	 * The base folder belongs to the transport's user: adb push writes as
	 * shell.  One made by root (an earlier ssh run as root) is handed over.
	 */
	q = shell_quote(s->o->base);
	cmd = xasprintf("mkdir -p %s 2>/dev/null; [ -w %s ] && echo ok; id -u", q, q);
	{
		char *out = NULL, *uid;

		rc = transport_run(&s->t, cmd, 0, &out, 2);
		uid = out ? strrchr(out, '\n') : NULL;
		if (uid)
			*uid = '\0';
		uid = out ? strrchr(out, '\n') : NULL;
		uid = uid ? uid + 1 : out;
		free(cmd);
		cmd = NULL;
		if (!rc && out && strncmp(out, "ok\n", 3) && s->t.root != ROOT_NONE && uid) {
			cmd = xasprintf("mkdir -p %s && chown -R %s %s", q, uid, q);
			rc = transport_run(&s->t, cmd, 1, NULL, 2);
		} else if (!rc && out && strncmp(out, "ok\n", 3)) {
			rc = -1;
		}
		free(out);
	}
	free(cmd);
	free(q);
	if (rc) {
		pr_err("cannot create %s on the device, or write to it (exit %d)", s->o->base, rc);
		unlink(tmpl);
		return -1;
	}
	rc = transport_push(&s->t, tmpl, s->agent, "755");
	unlink(tmpl);
	return rc;
}

static int session_open(struct session *s, const struct dev_opts *o, char **why)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	if (o->ssh) {
		if (transport_init_ssh(&s->t, o->ssh)) {
			*why = xasprintf("--ssh '%s': expected [user@]host[:port]", o->ssh);
			return -2;
		}
	} else {
		transport_init_adb(&s->t, o->serial);
	}
	s->agent = xasprintf("%s/agent.sh", o->base);
	if (transport_connect(&s->t, why))
		return -1;
	return 0;
}

static void session_close(struct session *s)
{
	transport_release(&s->t);
	probe_free(&s->probe);
	free(s->agent);
	free(s->label);
	json_object_put(s->kernel_delay);
}

static int session_probe(struct session *s)
{
	char *cmd, *out = NULL;
	int rc;

	if (push_agent(s))
		return -1;
	cmd = agent_cmd(s, "probe", NULL);
	rc = transport_run(&s->t, cmd, s->t.root != ROOT_NONE, &out, 2);
	free(cmd);
	if (rc) {
		pr_err("the device's probe failed (exit %d)", rc);
		free(out);
		return -1;
	}
	probe_parse(&s->probe, out);
	free(out);
	return 0;
}

/* out/<label>: the name the user gave, else the product, else the serial/host */
static void session_label(struct session *s)
{
	const char *p = probe_get(&s->probe, "product");
	char *l, *c;

	if (s->o->name)
		l = xstrdup(s->o->name);
	else if (p && *p)
		l = xstrdup(p);
	else
		l = xstrdup(s->t.label);
	for (c = l; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *c))
			*c = '-';
	s->label = l;
}

/* ---- mmlock device check ---- */

static int nr_custom(const struct probe *p)
{
	int i, n = 0;

	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++)
		n += probe_has_event(p, mmlock_events[i].system, mmlock_events[i].name);
	return n;
}

static int nr_stock(const struct probe *p)
{
	int i, n = 0;

	for (i = MMLOCK_EV_NR_CUSTOM + 1; i < MMLOCK_EV_NR; i++)
		n += probe_has_event(p, mmlock_events[i].system, mmlock_events[i].name);
	return n;
}

static int bad;

static void row(const char *what, int ok, const char *value, const char *fix)
{
	printf("%-14s %-4s %s\n", what, ok > 0 ? "ok" : ok == 0 ? "MISS" : "info", value);
	if (ok == 0) {
		printf("%-14s      fix: %s\n", "", fix);
		bad = 1;
	}
}

static const char *arch_binary(const struct dev_opts *o, const char *machine, char **found);

static int do_check(struct session *s)
{
	const struct probe *p = &s->probe;
	const char *v, *rel = probe_get(p, "release"), *mach = probe_get(p, "machine");
	char buf[512], *bin = NULL;
	int custom = nr_custom(p), stock = nr_stock(p);
	int root = s->t.root != ROOT_NONE;
	uint64_t kb = 0;

	bad = 0;
	printf("%-14s %-4s %s\n", "item", "", "value");
	snprintf(buf, sizeof(buf), "%s %s", s->t.kind == TRANSPORT_ADB ? "adb" : "ssh", s->t.label);
	row("device", 1, buf, "");
	snprintf(buf, sizeof(buf), "%s", transport_root_name(s->t.root));
	row("root", root, buf, s->t.kind == TRANSPORT_ADB ?
	    "root the phone (Magisk or KernelSU: su -c) or use a userdebug build (adb root)" :
	    "log in as root (--ssh root@HOST) or give the user password-less su");
	row("kernel", rel ? 1 : 0, rel ? rel : "unknown", "the device shell has no uname");
	if (!mach)
		mach = "unknown";
	snprintf(buf, sizeof(buf), "%s", mach);
	arch_binary(s->o, mach, &bin);
	if (bin)
		snprintf(buf, sizeof(buf), "%s (binary %s)", mach, bin);
	row("arch", bin ? 1 : 0, buf, !strcmp(mach, "aarch64") ?
	    "make ARCH=arm64 (static aarch64 mmlock in build-arm64/), or --binary PATH" :
	    "a static mmlock for this architecture: --binary PATH (make LDFLAGS=-static)");
	free(bin);
	v = probe_get(p, "vmalock");
	snprintf(buf, sizeof(buf), "%s", !v ? "unknown (no /proc/kallsyms)" :
		 !strcmp(v, "rwsem") ? "rwsem (per-VMA lock, 6.4 - 6.14, android14-6.1, android15-6.6): "
				      "series kernel-patches/linux-6.12 or android14-6.1" :
		 !strcmp(v, "refcount") ? "refcount (vm_refcnt, 6.15+, android16-6.12): series "
					 "kernel-patches/linux-7.2" :
		 "none (no per-VMA lock: nothing to analyse)");
	row("lock design", v && strcmp(v, "none") ? 1 : v ? 0 : -1, buf,
	    "a kernel with CONFIG_PER_VMA_LOCK (6.4+)");
	snprintf(buf, sizeof(buf), "%d/%d mmlock events, %d/%d stock", custom,
		 MMLOCK_EV_NR_CUSTOM, stock, MMLOCK_EV_NR - MMLOCK_EV_NR_CUSTOM - 1);
	if (custom == MMLOCK_EV_NR_CUSTOM)
		row("events", 1, buf, "");
	else
		row("events", 0, buf, custom ? "a partly patched kernel: apply the whole series" :
		    stock ? "only stock events: flash a kernel built with our series "
			    "(device/README.md); Type-A/B/C stay null" :
			    "no tracing events visible (CONFIG_TRACING? tracefs below)");
	{
		const char *a = probe_sysctl(p, MMLOCK_SYSCTL_NO_RETRY);
		const char *b = probe_sysctl(p, MMLOCK_SYSCTL_RETRY_VMA_LOCK);

		snprintf(buf, sizeof(buf), "%s%s=%s %s%s=%s",
			 MMLOCK_SYSCTL_PREFIX, mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].name, a ? a : "?",
			 MMLOCK_SYSCTL_PREFIX, mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK].name,
			 b ? b : "?");
		row("sysctls", a && b && strcmp(a, "absent") && strcmp(b, "absent"), buf,
		    "the series' patches 0002 and 0006 (the no-retry and retry-vma policies need "
		    "them; stock runs without)");
	}
	v = probe_get(p, "tracefs");
	if (v)
		row("tracefs", 1, v, "");
	else if (probe_get(p, "tracefs_unmounted"))
		row("tracefs", 0, "/sys/kernel/tracing exists but is not mounted",
		    "mount -t tracefs nodev /sys/kernel/tracing (as root)");
	else
		row("tracefs", 0, root ? "none (neither /sys/kernel/tracing nor "
			       "/sys/kernel/debug/tracing)" : "not readable without root",
		    root ? "a kernel with CONFIG_TRACING" : "root first (above)");
	v = probe_get(p, "buffer_kb");
	if (v) {
		snprintf(buf, sizeof(buf), "%s KiB per CPU in a private instance (%s CPUs)", v,
			 probe_get(p, "nr_cpus") ? probe_get(p, "nr_cpus") : "?");
		row("buffer", 1, buf, "");
	} else {
		v = probe_get(p, "buffer_error");
		row("buffer", 0, v ? v : "not tried (no tracefs)",
		    "root and tracefs first; with SELinux enforcing, su from Magisk/KernelSU "
		    "(its domain may write tracefs) or setenforce 0");
	}
	v = probe_get(p, "free_kb");
	if (v && !parse_u64(v, &kb)) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " MiB free in %s", kb / 1024, s->o->base);
		row("free space", kb >= 64 * 1024, buf,
		    "free 64 MiB for the binaries and device-side captures (--base DIR elsewhere)");
	} else {
		row("free space", 0, "unknown (df failed)", "check that --base DIR exists");
	}
	v = probe_get(p, "selinux");
	row("SELinux", -1, v ? v : "unknown", "");
	if (probe_get(p, "leftover"))
		row("leftover", 0, "state of an interrupted run is still on the device",
		    "mmlock device restore (or the next mmlock device run does it)");
	return bad ? MMLOCK_EXIT_ENV : MMLOCK_EXIT_OK;
}

/* ---- binaries ---- */

static char *self_dir(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return xstrdup(".");
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(self);
}

/* A static ELF64 executable for @machine (no PT_INTERP: no loader needed there). */
static int is_static_for(const char *path, const char *machine)
{
	unsigned char h[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h, "\177ELF", 4) &&
	    h[4] == 2 && h[5] == 1) {
		unsigned int em = h[18] | h[19] << 8, i, phnum, phentsize;
		unsigned char ph[4];
		uint64_t phoff;

		ok = (!strcmp(machine, "aarch64") && em == 183) ||
		     (!strcmp(machine, "x86_64") && em == 62);
		memcpy(&phoff, h + 32, 8);
		phentsize = h[54] | h[55] << 8;
		phnum = h[56] | h[57] << 8;
		for (i = 0; ok && i < phnum && phentsize >= 4; i++)
			if (pread(fd, ph, 4, (off_t)(phoff + (uint64_t)i * phentsize)) != 4 ||
			    (ph[0] | ph[1] << 8 | ph[2] << 16 | (unsigned int)ph[3] << 24) == 3)
				ok = 0;
	}
	close(fd);
	return ok;
}

/*
 * The mmlock to push: --binary, else the build folders beside this binary
 * (build-arm64/ of `make ARCH=arm64`), else this binary when it is already
 * for the device's architecture.
 */
static const char *arch_binary(const struct dev_opts *o, const char *machine, char **found)
{
	char *dir = self_dir(), *cand[4];
	size_t i;

	*found = NULL;
	if (o->binary) {
		if (is_static_for(o->binary, machine))
			*found = xstrdup(o->binary);
		free(dir);
		return *found;
	}
	cand[0] = xasprintf("%s/mmlock-%s", dir, machine);
	cand[1] = xasprintf("%s/../build-%s/mmlock", dir,
			    !strcmp(machine, "aarch64") ? "arm64" : machine);
	cand[2] = xasprintf("build-%s/mmlock", !strcmp(machine, "aarch64") ? "arm64" : machine);
	cand[3] = xasprintf("%s/mmlock", dir);
	for (i = 0; i < ARRAY_SIZE(cand); i++) {
		if (!*found && is_static_for(cand[i], machine)) {
			*found = realpath(cand[i], NULL);
			if (!*found)
				*found = xstrdup(cand[i]);
		}
		free(cand[i]);
	}
	free(dir);
	return *found;
}

/* ---- calling record / analyze / compare in a forked child ---- */

static int call_builtin(int (*fn)(int, char **), char **argv, int in_fd, int out_fd)
{
	pid_t pid;
	int argc = 0;

	while (argv[argc])
		argc++;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		if (in_fd >= 0)
			dup2(in_fd, 0);
		if (out_fd >= 0)
			dup2(out_fd, 1);
		/* no other pipe end of ours: EOF must reach whoever waits for it */
		close_range(3, ~0U, 0);
		optind = 0;	/* glibc: start getopt afresh */
		util_set_prog(xasprintf("mmlock %s", argv[0]));
		_exit(fn(argc, argv) | (close_stdout() ? MMLOCK_EXIT_OUTPUT : 0));
	}
	return pid;
}

static int wait_builtin(pid_t pid)
{
	return pid < 0 ? -1 : transport_wait(pid);
}

/* ---- one run ---- */

/* "mmlock-stats PHASE CPU entries: N overrun: N commit overrun: N ..." */
static void parse_stats_line(const char *line, json_object *stats)
{
	char phase[16];
	int cpu, used = 0;
	const char *keys[] = { "entries", "overrun", "commit overrun", "bytes",
				   "dropped events", "read events" };
	json_object *o, *arr;
	size_t k;

	if (sscanf(line, "mmlock-stats %15s %d %n", phase, &cpu, &used) < 2 || !used)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "cpu", json_object_new_int(cpu));
	for (k = 0; k < ARRAY_SIZE(keys); k++) {
		char *want = xasprintf("%s: ", keys[k]);
		const char *p = strstr(line + used, want);
		uint64_t v;

		if (p && sscanf(p + strlen(want), "%" SCNu64, &v) == 1)
			json_object_object_add(o, keys[k], json_object_new_uint64(v));
		free(want);
	}
	if (!json_object_object_get_ex(stats, phase, &arr)) {
		arr = json_object_new_array();
		json_object_object_add(stats, phase, arr);
	}
	json_object_array_add(arr, o);
}

static uint64_t stat_sum(json_object *stats, const char *phase, const char *key)
{
	json_object *arr, *v;
	uint64_t sum = 0;
	size_t i;

	if (!json_object_object_get_ex(stats, phase, &arr))
		return 0;
	for (i = 0; i < json_object_array_length(arr); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(arr, i), key, &v))
			sum += json_object_get_uint64(v);
	return sum;
}

/* when the agent said it wrote the end marker (mono seconds), 0: not yet */
static time_t marker_written;

/* what the agent's binary stream (bstream, reader) said on stderr */
static struct {
	char	*ready;		/* the "mmlock-ready ..." line, once */
	int	readers_up;	/* "mmlock-reader N" lines */
	int	drain_rc;	/* "mmlock-drain PID rc=N": the workload ended with N */
	int	end_rc;		/* "mmlock-end PID rc=N": N, else -1 */
} bin_said;

/* "mmlock-filter ...": the pid filter the agent set, read back from the kernel */
static char *agent_filter;

/* stderr lines of the agent: stats into @stats, the rest shown and kept */
static void agent_stderr(char *buf, size_t *len, int final, json_object *stats, FILE *log)
{
	char *start = buf, *nl;

	while ((nl = memchr(start, '\n', (size_t)(buf + *len - start))) || (final && start < buf + *len)) {
		if (!nl)
			nl = buf + *len;
		*nl = '\0';
		if (!strncmp(start, "mmlock-stats ", 13)) {
			parse_stats_line(start, stats);
		} else if (!strncmp(start, "mmlock-ready ", 13)) {
			if (!bin_said.ready)
				bin_said.ready = xstrdup(start + 13);
		} else if (!strncmp(start, "mmlock-reader ", 14)) {
			bin_said.readers_up++;
		} else if (!strncmp(start, "mmlock-end ", 11) || !strncmp(start, "mmlock-drain ", 13)) {
			const char *rc = strstr(start, " rc=");
			uint64_t v;

			if (rc && !parse_u64(rc + 4, &v) && v < 256)
				*(start[7] == 'e' ? &bin_said.end_rc : &bin_said.drain_rc) = (int)v;
		} else if (!strncmp(start, "mmlock-filter ", 14)) {
			free(agent_filter);
			agent_filter = xstrdup(start + 14);
		} else if (!strncmp(start, "mmlock-marker ", 14)) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			marker_written = ts.tv_sec;
		} else if (*start) {
			fprintf(stderr, "  device: %s\n", start);
			if (log)
				fprintf(log, "%s\n", start);
		}
		start = nl + (nl < buf + *len);
	}
	*len -= (size_t)(start - buf);
	memmove(buf, start, *len);
}

/*
 * Host-side capture: the agent's trace_pipe comes on @out_fd; everything up
 * to the end marker line goes to @rec_fd (mmlock record --stdin).  When the
 * marker is seen, @ack_fd is closed so the agent finishes.
 * Return: 1 marker seen, 0 stream ended without it, -1 interrupted.
 */
static int pump(int out_fd, int err_fd, int rec_fd, int *ack_fd, json_object *stats, FILE *log)
{
	char *buf = xmalloc(1 << 20), ebuf[8192];
	size_t len = 0, elen = 0;
	int marker = 0, out_open = 1, err_open = 1;
	uint64_t bytes = 0, last = 0;

	marker_written = 0;
	while ((out_open || err_open) && !interrupted) {
		struct pollfd pf[2] = { { out_open ? out_fd : -1, POLLIN, 0 },
					{ err_open ? err_fd : -1, POLLIN, 0 } };
		struct timespec now;
		ssize_t n;

		/* the marker was written but never came: let the agent finish */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!marker && marker_written && now.tv_sec - marker_written > 15 && *ack_fd >= 0) {
			pr_err("the device wrote its end marker 15 s ago and it has not arrived; "
			       "ending the stream");
			close(*ack_fd);
			*ack_fd = -1;
		}

		if (poll(pf, 2, 1000) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents) {
			n = read(err_fd, ebuf + elen, sizeof(ebuf) - elen - 1);
			if (n <= 0 && !(n < 0 && errno == EINTR)) {
				err_open = 0;
				agent_stderr(ebuf, &elen, 1, stats, log);
			} else if (n > 0) {
				elen += (size_t)n;
				agent_stderr(ebuf, &elen, elen == sizeof(ebuf) - 1, stats, log);
			}
		}
		if (!pf[0].revents)
			continue;
		n = read(out_fd, buf + len, (1 << 20) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_open = 0;
			if (len && !marker && rec_fd >= 0)
				write_all(rec_fd, buf, len);	/* the unterminated tail */
			len = 0;
			continue;
		}
		len += (size_t)n;
		bytes += (uint64_t)n;
		if (bytes - last >= 64 << 20) {
			fprintf(stderr, "  host-side capture: %" PRIu64 " MiB streamed\n", bytes >> 20);
			last = bytes;
		}
		if (marker) {
			len = 0;	/* nothing follows the marker but the agent's leftovers */
			continue;
		}
		{
			char *m = memmem(buf, len, END_MARKER, strlen(END_MARKER));
			char *cut = NULL, *lastnl;

			if (m) {
				cut = m;
				while (cut > buf && cut[-1] != '\n')
					cut--;
				marker = 1;
			} else {
				/* keep the incomplete last line: the marker may straddle */
				lastnl = memrchr(buf, '\n', len);
				cut = lastnl ? lastnl + 1 : (len == (1 << 20) ? buf + len : buf);
			}
			if (rec_fd >= 0 && cut > buf && write_all(rec_fd, buf, (size_t)(cut - buf))) {
				pr_err("the collector stopped reading: %s", strerror(errno));
				close(rec_fd);
				rec_fd = -1;
			}
			if (marker) {
				len = 0;
				if (rec_fd >= 0)
					close(rec_fd);
				rec_fd = -1;
				if (*ack_fd >= 0)
					close(*ack_fd);
				*ack_fd = -1;
			} else {
				len -= (size_t)(cut - buf);
				memmove(buf, cut, len);
			}
		}
	}
	if (rec_fd >= 0)
		close(rec_fd);
	free(buf);
	return interrupted ? -1 : marker;
}

/* The default event set, chosen as mmlock record chooses it on the device. */
static char *default_events(const struct probe *p, const char *release)
{
	int custom = nr_custom(p), i;
	char *list = xstrdup(""), *next;

	for (i = 0; i < MMLOCK_EV_NR; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];
		int gki = custom == MMLOCK_EV_NR_CUSTOM && release && strstr(release, "-android") &&
			  (i == MMLOCK_EV_MMAP_LOCK_START_LOCKING ||
			   i == MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED ||
			   i == MMLOCK_EV_MMAP_LOCK_RELEASED);

		if (i == MMLOCK_EV_NR_CUSTOM || !ev->name)
			continue;
		if ((ev->custom ? !custom : custom == MMLOCK_EV_NR_CUSTOM) && !gki)
			continue;
		if (!probe_has_event(p, ev->system, ev->name))
			continue;
		next = xasprintf("%s%s%s:%s", list, *list ? "," : "", ev->system, ev->name);
		free(list);
		list = next;
	}
	return list;
}

/* Files of a device folder, relative ("./x"), one per line. */
static int pull_dir(struct session *s, const char *remote, const char *local)
{
	char *q = shell_quote(remote), *cmd = xasprintf("cd %s && find . -type f", q), *out = NULL;
	char *line, *save = NULL;
	int rc = transport_run(&s->t, cmd, 1, &out, 2);

	free(cmd);
	free(q);
	if (rc) {
		free(out);
		pr_err("cannot list %s on the device", remote);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		char *r, *l, *slash;

		if (strncmp(line, "./", 2) || strstr(line, "/../"))
			continue;
		r = xasprintf("%s/%s", remote, line + 2);
		l = xasprintf("%s/%s", local, line + 2);
		slash = strrchr(l, '/');
		*slash = '\0';
		if (mkdir_p(l)) {
			pr_err("cannot create %s: %s", l, strerror(errno));
			rc = -1;
		}
		*slash = '/';
		if (!rc && transport_pull(&s->t, r, l))
			rc = -1;
		free(r);
		free(l);
	}
	free(out);
	return rc;
}

static int agent_simple(struct session *s, const char *action, char *const *args)
{
	char *cmd = agent_cmd(s, action, args);
	int rc = transport_run(&s->t, cmd, 1, NULL, 2);

	free(cmd);
	return rc;
}

static int restore(struct session *s)
{
	int rc = agent_simple(s, "restore", NULL);

	if (rc)
		pr_err("restoring the device failed (exit %d); once it is reachable again run "
		       "'mmlock device restore' (a reboot also resets the sysctls and instances)", rc);
	return rc;
}

static char *workload_cmdline(const struct session *s, const char *wl, const char *report)
{
	struct run_argv a = { NULL, 0 };
	char *line, *bin = xasprintf("%s/mmlock", s->o->base);

	run_argv_workload(&a, bin, wl, s->o->duration, s->o->files, report, s->o->args,
			  s->o->nr_args);
	line = shell_join(a.argv);
	run_argv_free(&a);
	free(bin);
	return line;
}

/*
 * The agent's word before the workload's command: "--" traces the workload
 * and its children, "--all" every process (a workload whose load is other
 * processes, app-rotation's apps).
 */
static const char *scope_word(const char *wl)
{
	const struct workload *w = workload_find(wl);

	return w && w->trace_all ? "--all" : "--";
}

static int capture_host(struct session *s, const char *wl, const char *trace, json_object *dev,
			FILE *log, char **why)
{
	char *report = xasprintf("%s/run/workload.json", s->o->base);
	char *wlcmd = workload_cmdline(s, wl, report), *events, *cmd, *head[6];
	struct run_argv rargv = { NULL, 0 };
	int in[2], out[2], err[2], rec[2], rc, seen, rrc;
	pid_t tp, rp;
	json_object *stats = json_object_new_object();

	events = default_events(&s->probe, probe_get(&s->probe, "release"));
	if (!*events) {
		*why = xasprintf("the device has neither our events nor the stock ones");
		free(events);
		free(wlcmd);
		free(report);
		json_object_put(stats);
		return -1;
	}
	head[0] = (char *)s->o->buffer_kb;
	head[1] = events;
	head[2] = (char *)scope_word(wl);
	head[3] = NULL;
	{
		char *a = agent_cmd(s, "stream", head);

		/* rm the old report first: a failed workload must not leave last run's */
		char *qb = shell_quote(s->o->base);

		cmd = xasprintf("mkdir -p %s/run && rm -f %s/run/workload.json && %s %s",
				qb, qb, a, wlcmd);
		free(qb);
		free(a);
	}
	run_argv_push(&rargv, "record");
	run_argv_push(&rargv, "--stdin");
	run_argv_push(&rargv, "-o");
	run_argv_push(&rargv, trace);
	run_argv_push(&rargv, "--force");
	run_argv_push(&rargv, "-e");
	run_argv_push(&rargv, events);

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
	    pipe2(rec, O_CLOEXEC)) {
		*why = xasprintf("pipe: %s", strerror(errno));
		rc = -1;
		goto out_free;
	}
	rp = call_builtin(cmd_record, rargv.argv, rec[0], -1);
	close(rec[0]);
	tp = transport_spawn(&s->t, cmd, 1, in[0], out[1], err[1]);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	seen = pump(out[0], err[0], rec[1], &in[1], stats, log);
	if (in[1] >= 0)
		close(in[1]);
	close(out[0]);
	close(err[0]);
	if (seen < 0 && tp > 0)
		kill(-tp, SIGTERM);	/* interrupted: the device is restored after */
	rc = tp < 0 ? -1 : transport_wait(tp);
	rrc = wait_builtin(rp);
	json_object_object_add(dev, "stats", stats);
	stats = NULL;
	if (seen < 0) {
		*why = xasprintf("interrupted");
		rc = -1;
	} else if (!seen) {
		*why = xasprintf("the stream ended before the device's end marker (transport lost? "
				 "agent exit %d)", rc);
		rc = -1;
	} else if (rrc && rrc != MMLOCK_EXIT_PARTIAL) {
		*why = xasprintf("mmlock record --stdin exited %d (see %s/trace.status)", rrc, trace);
		rc = -1;
	} else if (rc) {
		*why = xasprintf("the workload exited %d on the device", rc);
		rc = -1;
	}
out_free:
	json_object_put(stats);
	run_argv_free(&rargv);
	free(events);
	free(cmd);
	free(wlcmd);
	free(report);
	return rc;
}

/* ---- host-side binary capture: per-CPU raw pages, one transport session each ---- */

/* Events of the default set that the device lacks, "system:name" (NULL-terminated). */
static char **missing_events(const struct probe *p)
{
	int custom = nr_custom(p), i, n = 0;
	char **v = xcalloc(MMLOCK_EV_NR + 1, sizeof(*v));

	for (i = 0; i < MMLOCK_EV_NR; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];

		if (i == MMLOCK_EV_NR_CUSTOM || !ev->name)
			continue;
		if (ev->custom ? !custom : custom == MMLOCK_EV_NR_CUSTOM)
			continue;
		if (!probe_has_event(p, ev->system, ev->name))
			v[n++] = xasprintf("%s:%s", ev->system, ev->name);
	}
	return v;
}

/* The --force of a capture folder: what a capture writes there goes, nothing else. */
static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT ? -1 : 0;
}

static int capture_dir_clear(const char *dir)
{
	static const char *const trees[] = { "raw", "tracefs" };
	char *p;
	size_t i;
	DIR *d;
	struct dirent *e;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(trees); i++) {
		struct stat st;

		p = xasprintf("%s/%s", dir, trees[i]);
		if (!lstat(p, &st) && nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS))
			ret = -1;
		free(p);
	}
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, "kallsyms") && strncmp(e->d_name, "trace-", 6) &&
		    strncmp(e->d_name, "trace.status", 12))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (unlink(p) && errno != ENOENT)
			ret = -1;
		free(p);
	}
	if (d)
		closedir(d);
	return ret;
}

/* "key=value ..." of the agent's ready line: the value of @key (a new string) */
static char *ready_get(const char *line, const char *key)
{
	size_t kl = strlen(key);
	const char *p = line;

	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			p += kl + 1;
			return xstrndup(p, strcspn(p, " "));
		}
		p = strchr(p, ' ');
	}
	return NULL;
}

struct raw_reader {
	int	cpu;
	pid_t	pid;		/* adb/ssh here, 0: exited */
	int	fd;		/* raw/cpuNNN.raw */
	int	status;		/* its exit code, once exited */
};

static char **dev_argv;		/* mmlock's own argv, for trace.status */

/* The parts of the ready line, checked: 0, or -1 with @why. */
static int ready_parse(const char *line, char **inst, int *page, int **cpus, int *nr,
		       int *pid, char **clock, uint64_t *buf_kb, char **why)
{
	char *v;
	uint64_t n;
	int ret = 0;

	*inst = ready_get(line, "instance");
	*clock = ready_get(line, "clock");
	*cpus = NULL;
	*nr = 0;
	if (!*inst || *(*inst) != '/' || !strstr(*inst, "/instances/mmlock-dev-")) {
		*why = xasprintf("the agent named no instance of ours ('%.80s')", line);
		return -1;
	}
	v = ready_get(line, "page");
	if (!v || parse_u64(v, &n) || n != (uint64_t)getpagesize()) {
		*why = xasprintf("the device's ring-buffer pages are %s bytes; this host decodes "
				 "%d-byte pages (use the text stream: no --binary-pages)",
				 v ? v : "?", getpagesize());
		ret = -1;
	}
	*page = (int)n;
	free(v);
	v = ready_get(line, "word");
	if (!ret && (!v || parse_u64(v, &n) || n != sizeof(long))) {
		*why = xasprintf("the device's kernel has %s-byte words; this host decodes %zu",
				 v ? v : "?", sizeof(long));
		ret = -1;
	}
	free(v);
	v = ready_get(line, "pid");
	*pid = v && !parse_u64(v, &n) && n < INT_MAX ? (int)n : 0;
	free(v);
	v = ready_get(line, "buffer_kb");
	*buf_kb = v && !parse_u64(v, &n) ? n : 0;
	free(v);
	v = ready_get(line, "cpus");
	if (!ret && v) {
		char *tok, *save = NULL;

		for (tok = strtok_r(v, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
			if (parse_u64(tok, &n) || n > 65535 || *nr >= 4096) {
				*why = xasprintf("the agent's CPU list is not one");
				ret = -1;
				break;
			}
			*cpus = xrealloc(*cpus, (size_t)(*nr + 1) * sizeof(**cpus));
			(*cpus)[(*nr)++] = (int)n;
		}
	}
	if (!ret && !*nr) {
		*why = xasprintf("the agent listed no CPU");
		ret = -1;
	}
	free(v);
	return ret;
}

/* A reader that ended: its exit code (0 when none has). */
static int readers_reap(struct raw_reader *r, int nr)
{
	int i, st, ended = 0;

	for (i = 0; i < nr; i++) {
		if (r[i].pid <= 0 || waitpid(r[i].pid, &st, WNOHANG) != r[i].pid)
			continue;
		r[i].pid = 0;
		r[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		ended++;
	}
	return ended;
}

static void readers_kill(struct raw_reader *r, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (r[i].pid > 0)
			kill(-r[i].pid, SIGTERM);
}

/* Wait up to @secs for every reader to end; then end the rest. */
static void readers_wait(struct raw_reader *r, int nr, int secs)
{
	int i, left, t;

	for (t = 0; t < secs * 10; t++) {
		readers_reap(r, nr);
		for (i = 0, left = 0; i < nr; i++)
			left += r[i].pid > 0;
		if (!left)
			return;
		usleep(100 * 1000);
	}
	readers_kill(r, nr);
	for (i = 0; i < nr; i++) {
		if (r[i].pid > 0) {
			r[i].status = transport_wait(r[i].pid);
			r[i].pid = 0;
		}
	}
}

static uint64_t raw_bytes(const struct raw_reader *r, int nr)
{
	uint64_t sum = 0;
	struct stat st;
	int i;

	for (i = 0; i < nr; i++)
		if (r[i].fd >= 0 && !fstat(r[i].fd, &st))
			sum += (uint64_t)st.st_size;
	return sum;
}

/*
 * Host-side capture with per-CPU raw pages.  The agent (bstream) sets the
 * instance up and says "mmlock-ready"; one transport session per CPU then
 * runs the agent's reader, whose pages the transport writes straight into
 * raw/cpuNNN.raw here; once every reader is up the agent hears "go", opens
 * the workload's gate, and when the workload has ended turns tracing off,
 * lets the readers drain and end, and sends the formats on its stdout.
 * Why one session per CPU rather than one multiplexed stream: a raw page
 * does not say its CPU, so one stream would need framing that only a
 * program of ours could write; separate sessions need none, and both adb
 * (one USB link) and ssh carry them side by side, each with its own flow
 * control, so a busy CPU does not hold back a quiet one.
 */
static int capture_host_raw(struct session *s, const char *wl, const char *trace,
			    const struct run_policy *pol, json_object *dev, FILE *log, char **why)
{
	char *report = xasprintf("%s/run/workload.json", s->o->base);
	char *wlcmd = workload_cmdline(s, wl, report), *events, *cmd = NULL, *head[4];
	char *inst = NULL, *clock = NULL, *ebuf = xmalloc(8192), *cbuf = xmalloc(8192);
	char **evv = NULL, **missing = NULL;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 }, cerr[2] = { -1, -1 };
	int dirfd = -1, rc = -1, page = 0, nr = 0, *cpus = NULL, wpid = 0, i;
	int out_open = 1, err_open = 1, cerr_open = 0, started = 0, mrc;
	size_t elen = 0, clen = 0;
	uint64_t buf_kb = 0, last_mib = 0, lost = 0;
	struct raw_reader *rd = NULL;
	struct file_stream fs;
	struct raw_status rs;
	struct timespec t_start = { 0, 0 }, t_stop = { 0, 0 }, t_ready = { 0, 0 }, now;
	json_object *stats = json_object_new_object(), *src;
	pid_t tp = -1;

	memset(&bin_said, 0, sizeof(bin_said));
	bin_said.end_rc = bin_said.drain_rc = -1;
	file_stream_init(&fs, -1);
	events = default_events(&s->probe, probe_get(&s->probe, "release"));
	if (!*events) {
		*why = xasprintf("the device has neither our events nor the stock ones");
		goto out;
	}
	if (mkdir_p(trace) || capture_dir_clear(trace) || mkdir_p(trace)) {
		*why = xasprintf("cannot prepare %s: %s", trace, strerror(errno));
		goto out;
	}
	dirfd = open(trace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 || (mkdirat(dirfd, "raw", 0755) && errno != EEXIST)) {
		*why = xasprintf("cannot create %s/raw: %s", trace, strerror(errno));
		goto out;
	}
	file_stream_init(&fs, dirfd);
	head[0] = (char *)s->o->buffer_kb;
	head[1] = events;
	head[2] = (char *)scope_word(wl);
	head[3] = NULL;
	{
		char *a = agent_cmd(s, "bstream", head), *qb = shell_quote(s->o->base);

		cmd = xasprintf("mkdir -p %s/run && rm -f %s/run/workload.json && %s %s",
				qb, qb, a, wlcmd);
		free(qb);
		free(a);
	}
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
	    pipe2(cerr, O_CLOEXEC)) {
		*why = xasprintf("pipe: %s", strerror(errno));
		goto out;
	}
	tp = transport_spawn(&s->t, cmd, 1, in[0], out[1], err[1]);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	in[0] = out[1] = err[1] = -1;
	if (tp < 0) {
		*why = xasprintf("cannot start %s: %s", s->t.kind == TRANSPORT_ADB ? "adb" : "ssh",
				 strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t_ready);
	while ((out_open || err_open || cerr_open) && !interrupted) {
		struct pollfd pf[3] = { { out_open ? out[0] : -1, POLLIN, 0 },
					{ err_open ? err[0] : -1, POLLIN, 0 },
					{ cerr_open ? cerr[0] : -1, POLLIN, 0 } };
		ssize_t n;

		/* the agent is up: one reader per CPU */
		if (bin_said.ready && !rd) {
			if (ready_parse(bin_said.ready, &inst, &page, &cpus, &nr, &wpid, &clock,
					&buf_kb, why))
				break;
			rd = xcalloc((size_t)nr, sizeof(*rd));
			for (i = 0; i < nr; i++) {
				char name[32], cpu[16], *args[3] = { inst, cpu, NULL }, *rcmd;

				rd[i].cpu = cpus[i];
				snprintf(name, sizeof(name), "raw/cpu%03d.raw", cpus[i]);
				snprintf(cpu, sizeof(cpu), "%d", cpus[i]);
				rd[i].fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
						  O_NOFOLLOW | O_CLOEXEC, 0644);
				if (rd[i].fd < 0) {
					*why = xasprintf("%s/%s: %s", trace, name, strerror(errno));
					break;
				}
				rcmd = agent_cmd(s, "reader", args);
				rd[i].pid = transport_spawn(&s->t, rcmd, 1, -1, rd[i].fd, cerr[1]);
				free(rcmd);
				if (rd[i].pid < 0) {
					*why = xasprintf("cannot start the reader of CPU %d", cpus[i]);
					rd[i].pid = 0;
					break;
				}
			}
			close(cerr[1]);
			cerr[1] = -1;
			cerr_open = 1;
			if (*why)
				break;
			fprintf(stderr, "  host-side capture: %d per-CPU page streams from %s\n",
				nr, inst);
			continue;
		}
		/* every reader is up: go */
		if (rd && !started && bin_said.readers_up >= nr) {
			if (write_all(in[1], "go\n", 3)) {
				*why = xasprintf("the agent stopped listening");
				break;
			}
			close(in[1]);
			in[1] = -1;
			started = 1;
			clock_gettime(CLOCK_REALTIME, &t_start);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!started && now.tv_sec - t_ready.tv_sec > 120) {
			*why = xasprintf("the device's readers did not start within 120 s (%d of %d)",
					 bin_said.readers_up, nr);
			break;
		}
		if (bin_said.drain_rc >= 0 && !t_stop.tv_sec)
			clock_gettime(CLOCK_REALTIME, &t_stop);
		/* a reader that ends before the agent asked them to: its stream was cut */
		if (rd && readers_reap(rd, nr) && bin_said.drain_rc < 0) {
			*why = xasprintf("a per-CPU page stream ended before the capture did "
					 "(transport lost?)");
			break;
		}
		if (started && raw_bytes(rd, nr) - last_mib >= (64 << 20)) {
			last_mib = raw_bytes(rd, nr);
			fprintf(stderr, "  host-side capture: %" PRIu64 " MiB of pages streamed\n",
				last_mib >> 20);
		}
		if (poll(pf, 3, 500) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[0].revents) {
			char buf[65536];

			n = read(out[0], buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				out_open = 0;
			else
				file_stream_feed(&fs, buf, (size_t)n);
		}
		if (pf[1].revents) {
			n = read(err[0], ebuf + elen, 8192 - elen - 1);
			if (n <= 0 && !(n < 0 && errno == EINTR)) {
				err_open = 0;
				agent_stderr(ebuf, &elen, 1, stats, log);
			} else if (n > 0) {
				elen += (size_t)n;
				agent_stderr(ebuf, &elen, elen == 8192 - 1, stats, log);
			}
		}
		if (pf[2].revents) {
			n = read(cerr[0], cbuf + clen, 8192 - clen - 1);
			if (n <= 0 && !(n < 0 && errno == EINTR)) {
				cerr_open = 0;
				agent_stderr(cbuf, &clen, 1, stats, log);
			} else if (n > 0) {
				clen += (size_t)n;
				agent_stderr(cbuf, &clen, clen == 8192 - 1, stats, log);
			}
		}
	}
	if (interrupted && !*why)
		*why = xasprintf("interrupted");
	if (*why) {
		/* the device is restored after (restore kills the readers there) */
		if (in[1] >= 0)
			close(in[1]);
		in[1] = -1;
		kill(-tp, SIGTERM);
		if (rd)
			readers_kill(rd, nr);
	}
	mrc = transport_wait(tp);
	tp = -1;
	/* the agent's readers ended when it did; give the transports time to flush */
	if (rd)
		readers_wait(rd, nr, *why ? 5 : 30);
	if (!*why && file_stream_finish(&fs))
		*why = xasprintf("the device's formats: %s", fs.error);
	for (i = 0; !*why && rd && i < nr; i++)
		if (rd[i].status)
			*why = xasprintf("the page stream of CPU %d ended with %d", rd[i].cpu,
					 rd[i].status);
	if (!*why && mrc)
		*why = xasprintf("the workload exited %d on the device", mrc);
	if (!rd && !*why)
		*why = xasprintf("the agent ended before it started the capture");
	if (!rd)
		goto out;

	/* what came, counted; trace.status as the analyzer reads it */
	{
		struct raw_count *cnt = xcalloc((size_t)nr, sizeof(*cnt));
		uint64_t received = 0, damaged = 0, tail = 0;
		struct stat st;
		struct run_argv wargv = { NULL, 0 };
		char *bin = xasprintf("%s/mmlock", s->o->base);
		const char *nrs = probe_sysctl(&s->probe, MMLOCK_SYSCTL_NO_RETRY);
		const char *rvs = probe_sysctl(&s->probe, MMLOCK_SYSCTL_RETRY_VMA_LOCK);
		int custom = nr_custom(&s->probe);

		for (i = 0; i < nr; i++) {
			char name[32];

			snprintf(name, sizeof(name), "raw/cpu%03d.raw", rd[i].cpu);
			if (rd[i].fd >= 0 && fsync(rd[i].fd) && !*why)
				*why = xasprintf("%s/%s: %s", trace, name, strerror(errno));
			if (raw_count_file(dirfd, name, page, &cnt[i]) && !*why)
				*why = xasprintf("%s/%s: %s", trace, name, strerror(errno));
			received += cnt[i].events;
			damaged += cnt[i].bad_pages;
			tail += cnt[i].tail_bytes;
		}
		evv = xcalloc(MMLOCK_EV_NR + 1, sizeof(*evv));
		{
			char *copy = xstrdup(events), *tok, *save = NULL;
			int k = 0;

			for (tok = strtok_r(copy, ",", &save); tok && k < MMLOCK_EV_NR;
			     tok = strtok_r(NULL, ",", &save))
				evv[k++] = xstrdup(tok);
			free(copy);
		}
		missing = missing_events(&s->probe);
		run_argv_workload(&wargv, bin, wl, s->o->duration, s->o->files, report, s->o->args,
				  s->o->nr_args);
		src = json_object_new_object();
		json_object_object_add(src, "mode", json_object_new_string("device-host-stream"));
		json_object_object_add(src, "transport", json_object_new_string(
				s->t.kind == TRANSPORT_ADB ? "adb" : "ssh"));
		json_object_object_add(src, "device", json_object_new_string(s->t.label));
		json_object_object_add(src, "reader", json_object_new_string(
				"mmlock device pages, one transport session per CPU"));
		json_object_object_add(src, "streams_complete", json_object_new_boolean(!*why));
		memset(&rs, 0, sizeof(rs));
		rs.state = !*why ? "complete" : interrupted ? "stopped" : "error";
		rs.stop_reason = !*why ? "command-exited" : interrupted ? "signal SIGINT" : "error";
		rs.error = *why;
		rs.command_line = dev_argv;
		rs.kernel_release = probe_get(&s->probe, "release");
		rs.tracefs = probe_get(&s->probe, "tracefs");
		rs.instance = strrchr(inst, '/') + 1;
		rs.event_set = custom == MMLOCK_EV_NR_CUSTOM ? "custom" : custom ? "mixed" : "stock";
		rs.events = evv;
		rs.events_missing = missing;
		rs.no_retry = nrs && strcmp(nrs, "absent") ? pol->no_retry : -1;
		rs.retry_vma_lock = rvs && strcmp(rvs, "absent") ? pol->retry_vma_lock : -1;
		rs.buffer_kb = buf_kb;
		rs.pid = wpid;
		rs.command = wargv.argv;
		rs.exit_code = bin_said.drain_rc;
		rs.start = t_start;
		rs.stop = t_stop;
		rs.clock = clock;
		rs.page_size = page;
		rs.kallsyms = !fstatat(dirfd, "kallsyms", &st, AT_SYMLINK_NOFOLLOW);
		rs.nr_cpus = nr;
		rs.cpus = cpus;
		rs.counts = cnt;
		rs.stats = stats;
		rs.source = src;
		if (raw_status_write(dirfd, &rs, &lost) && !*why)
			*why = xasprintf("%s/trace.status: %s", trace, strerror(errno));
		json_object_put(src);
		run_argv_free(&wargv);
		free(bin);
		free(cnt);
		if (damaged || tail)
			pr_warn("%s: %" PRIu64 " damaged pages, %" PRIu64 " bytes of a cut page",
				trace, damaged, tail);
		json_object_object_add(dev, "lost_events", json_object_new_uint64(lost));
		json_object_object_add(dev, "received_events", json_object_new_uint64(received));
		json_object_object_add(dev, "read_events", json_object_new_uint64(
				stat_sum(stats, "end", "read events") -
				stat_sum(stats, "start", "read events")));
	}
	rc = *why ? -1 : 0;
out:
	if (tp > 0) {
		kill(-tp, SIGTERM);
		transport_wait(tp);
	}
	if (rd) {
		readers_kill(rd, nr);
		readers_wait(rd, nr, 5);
		for (i = 0; i < nr; i++)
			if (rd[i].fd >= 0)
				close(rd[i].fd);
	}
	for (i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (cerr[i] >= 0)
			close(cerr[i]);
	}
	json_object_object_add(dev, "stats", stats);
	file_stream_release(&fs);
	if (dirfd >= 0)
		close(dirfd);
	argv_free(evv);
	argv_free(missing);
	free(bin_said.ready);
	bin_said.ready = NULL;
	free(rd);
	free(cpus);
	free(inst);
	free(clock);
	free(ebuf);
	free(cbuf);
	free(events);
	free(cmd);
	free(wlcmd);
	free(report);
	return rc;
}

static int capture_device(struct session *s, const char *wl, const char *trace, char **why)
{
	char *report = xasprintf("%s/run/workload.json", s->o->base);
	char *rdir = xasprintf("%s/run/trace", s->o->base);
	char *wlcmd = workload_cmdline(s, wl, report), *cmd, *a, *head[8];
	int rc, i = 0;

	head[i++] = (char *)"-o";
	head[i++] = rdir;
	head[i++] = (char *)"--force";
	head[i++] = (char *)"-b";
	head[i++] = xasprintf("%sK", s->o->buffer_kb);
	if (s->o->raw)
		head[i++] = (char *)"--binary";
	head[i++] = (char *)"--";
	head[i] = NULL;
	a = agent_cmd(s, "record", head);
	free(head[4]);
	{
		char *qb = shell_quote(s->o->base), *qr = shell_quote(rdir);

		cmd = xasprintf("mkdir -p %s/run && rm -rf %s/run/workload.json %s && %s %s",
				qb, qb, qr, a, wlcmd);
		free(qb);
		free(qr);
	}
	free(a);
	rc = transport_run(&s->t, cmd, 1, NULL, 2);
	free(cmd);
	if (interrupted) {
		*why = xasprintf("interrupted");
		rc = -1;
		goto out;
	}
	if (rc && rc != MMLOCK_EXIT_PARTIAL) {
		*why = xasprintf("mmlock record on the device exited %d", rc);
		rc = -1;
		goto out;
	}
	if (!s->o->raw) {
		rc = pull_dir(s, rdir, trace) ? -1 : 0;
		if (rc)
			*why = xasprintf("cannot pull %s", rdir);
		goto out;
	}
	{
		/* binary pages: pull, then decode here into the text chunks */
		char *raw = xasprintf("%s.raw", trace);
		char *argv[] = { (char *)"record", (char *)"--from-binary", raw, (char *)"-o",
				 (char *)trace, (char *)"--force", NULL };

		rc = mkdir_p(raw) || pull_dir(s, rdir, raw) ? -1 : 0;
		if (rc)
			*why = xasprintf("cannot pull %s", rdir);
		else if ((rc = wait_builtin(call_builtin(cmd_record, argv, -1, -1))) &&
			 rc != MMLOCK_EXIT_PARTIAL)
			*why = xasprintf("decoding the binary capture %s exited %d", raw, rc);
		else
			rc = 0;
		free(raw);
	}
out:
	free(wlcmd);
	free(report);
	free(rdir);
	return rc;
}

/* ---- --perfetto: Perfetto's own trace beside ours (recipe.h) ---- */

/* perfetto's output on the device; $MMLOCK_PERFETTO_OUT: the test stand-in's */
static const char *perfetto_out(void)
{
	const char *e = getenv("MMLOCK_PERFETTO_OUT");

	return e && *e == '/' ? e : RECIPE_PERFETTO_OUT;
}

/*
 * Start perfetto on the device with a config of the events this run records,
 * callstacks on the tracepoints with a user_pc of the workload's processes
 * (argv0 mmlock: its tgid is not known before it starts).  perfetto reads
 * the config from stdin: its SELinux domain may not read BASE, the shell
 * may.  Return: the PID --background-wait printed (a new string), or NULL
 * with @why.
 */
static char *perfetto_start(struct session *s, char **why)
{
	const struct dev_opts *o = s->o;
	struct recipe r = { .callstacks = 1, .cmdline = "mmlock" };
	char *events = default_events(&s->probe, probe_get(&s->probe, "release"));
	char tmpl[] = "/tmp/mmlock-perfetto-XXXXXX", *text = NULL, *cfg, *cmd, *out = NULL;
	char *qc, *qo, *pid = NULL;
	uint64_t us = 0, kb = 0;
	int fd = -1, rc;

	/* perfetto stops on its own after the capture at the latest (a lost connection) */
	parse_duration_us(o->duration, &us);
	parse_u64(o->buffer_kb, &kb);
	r.duration_ms = us / 1000 + 60000 > UINT32_MAX ? UINT32_MAX : us / 1000 + 60000;
	r.buffer_kb = kb;
	if (!*events || recipe_events_add(&r, events, why)) {
		if (!*why)
			*why = xasprintf("no events to record");
		goto out;
	}
	text = perfetto_config_build(&r, perfetto_out());
	fd = mkstemp(tmpl);
	if (fd < 0 || write_all(fd, text, strlen(text))) {
		*why = xasprintf("%s: %s", tmpl, strerror(errno));
		goto out;
	}
	cfg = xasprintf("%s/run", o->base);
	qc = shell_quote(cfg);
	cmd = xasprintf("mkdir -p %s", qc);
	rc = transport_run(&s->t, cmd, 1, NULL, 2);
	free(cmd);
	free(qc);
	free(cfg);
	cfg = xasprintf("%s/run/perfetto.pbtx", o->base);
	if (!rc)
		rc = transport_push(&s->t, tmpl, cfg, "644");
	qc = shell_quote(cfg);
	qo = shell_quote(perfetto_out());
	cmd = xasprintf("rm -f %s && perfetto --background-wait --txt -c - -o %s <%s", qo, qo, qc);
	free(qo);
	if (!rc)
		rc = transport_run(&s->t, cmd, 1, &out, 2);
	free(cmd);
	free(qc);
	free(cfg);
	if (rc || !out || strspn(out, "0123456789") == 0) {
		*why = xasprintf("perfetto --background-wait did not start (exit %d%s%.80s)", rc,
				 out && *out ? ": " : "", out ? out : "");
		goto out;
	}
	pid = xstrndup(out, strspn(out, "0123456789"));
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmpl);
	}
	free(out);
	free(text);
	free(events);
	recipe_release(&r);
	return pid;
}

/*
 * Stop a tool beside the capture with SIG (each of them ends its session
 * and writes its file on it), wait up to 30 s for it to go, and pull
 * @devfile into @dir/@name (through a copy in BASE/run: the transport's
 * user may not read the tool's own folder).
 */
static int beside_finish(struct session *s, const char *pid, const char *sig, const char *devfile,
			 const char *dir, const char *name, char **why)
{
	char *copy = xasprintf("%s/run/%s", s->o->base, name), *qc = shell_quote(copy);
	char *local = xasprintf("%s/%s", dir, name), *qo = shell_quote(devfile);
	char *cmd = xasprintf("kill -%s %s; i=0; while kill -0 %s 2>/dev/null && [ $i -lt 150 ]; "
			      "do sleep 0.2; i=$((i + 1)); done; cp %s %s && chmod 644 %s",
			      sig, pid, pid, qo, qc, qc);
	int rc = transport_run(&s->t, cmd, 1, NULL, 2);

	if (rc)
		*why = xasprintf("no %s at %s on the device (exit %d)", name, devfile, rc);
	else if (transport_pull(&s->t, copy, local))
		*why = xasprintf("cannot pull %s", copy);
	free(cmd);
	free(local);
	free(qo);
	free(qc);
	free(copy);
	return *why ? -1 : 0;
}

/*
 * Start @cmd in the background on the device, its output into @log there;
 * it is given a second to fail (no such tool, a refused option) before the
 * capture starts.  Return: its PID (a new string), or NULL with @why.
 */
static char *beside_start(struct session *s, const char *what, const char *cmd, const char *log,
			  char **why)
{
	char *ql = shell_quote(log), *qb = shell_quote(s->o->base), *out = NULL, *pid = NULL;
	char *line = xasprintf("mkdir -p %s/run && rm -f %s && { nohup %s >%s 2>&1 </dev/null & "
			       "p=$!; sleep 1; if kill -0 $p 2>/dev/null; then echo $p; else "
			       "tail -n 3 %s; exit 1; fi; }", qb, ql, cmd, ql, ql);
	int rc = transport_run(&s->t, line, 1, &out, 2);

	if (rc || !out || !strspn(out, "0123456789"))
		*why = xasprintf("%s did not start (exit %d%s%.200s)", what, rc,
				 out && *out ? ": " : "", out ? out : "");
	else
		pid = xstrndup(out, strspn(out, "0123456789"));
	free(line);
	free(out);
	free(qb);
	free(ql);
	return pid;
}

/*
 * --simpleperf: the record line of `mmlock device simpleperf-cmd` for the
 * events this run records (a DWARF callstack on every hit of the
 * tracepoints with a user_pc, --clockid monotonic: the trace's clock),
 * every process (-a: the workload's TGID is not known before it starts),
 * perf.data in BASE/run.  Return: its PID, or NULL with @why.
 */
static char *simpleperf_start(struct session *s, char **why)
{
	const struct dev_opts *o = s->o;
	struct recipe r = { .callstacks = 1 };
	char *events = default_events(&s->probe, probe_get(&s->probe, "release"));
	char *data = xasprintf("%s/run/perf.data", o->base), *log = xasprintf("%s/run/simpleperf.log", o->base);
	char *line = NULL, *pid = NULL;
	uint64_t us = 0;

	/* it stops on its own after the capture at the latest (a lost connection) */
	parse_duration_us(o->duration, &us);
	r.duration_ms = us / 1000 + 60000;
	if (!*events || recipe_events_add(&r, events, why) || !recipe_nr_stack_events(&r)) {
		if (!*why)
			*why = xasprintf("none of the device's events is one callstacks are sampled on");
		goto out;
	}
	line = simpleperf_cmd_build(&r, data);
	pid = beside_start(s, "simpleperf record", line, log, why);
out:
	free(line);
	free(log);
	free(data);
	free(events);
	recipe_release(&r);
	return pid;
}

/*
 * logcat beside the capture (--logcat, and always for a workload whose
 * load is other processes): threadtime lines whose time is CLOCK_MONOTONIC
 * seconds (-v monotonic), the trace's clock, from now on (-T 1).
 */
static char *logcat_start(struct session *s, char **why)
{
	char *file = xasprintf("%s/run/logcat.out", s->o->base), *qf = shell_quote(file);
	char *cmd = xasprintf("logcat -v threadtime -v monotonic -T 1 -f %s", qf);
	char *log = xasprintf("%s/run/logcat.log", s->o->base);
	char *pid = beside_start(s, "logcat", cmd, log, why);

	free(log);
	free(cmd);
	free(qf);
	free(file);
	return pid;
}

/* A tool beside the capture: its PID while it runs; device.json says what came of it. */
struct beside {
	const char	*opt, *key, *file, *sig;	/* --OPTION, device.json's key, the file, the stop signal */
	char		*(*start)(struct session *s, char **why);
	char		*devfile;			/* what it writes on the device */
	char		*pid;
};

static void beside_begin(struct session *s, struct beside *b, json_object *dev)
{
	char *why = NULL;

	b->pid = b->start(s, &why);
	if (!b->pid) {
		fprintf(stderr, "mmlock device: %s: %s; the run goes on without it\n", b->opt, why);
		json_object_object_add(dev, b->key, json_object_new_string(why));
	}
	free(why);
}

static void beside_end(struct session *s, struct beside *b, const char *dir, json_object *dev)
{
	char *why = NULL;

	if (!b->pid)
		return;
	if (beside_finish(s, b->pid, b->sig, b->devfile, dir, b->file, &why)) {
		fprintf(stderr, "mmlock device: %s: %s\n", b->opt, why);
		json_object_object_add(dev, b->key, json_object_new_string(why));
	} else {
		json_object_object_add(dev, b->key, json_object_new_string(b->file));
	}
	free(why);
	free(b->pid);
	b->pid = NULL;
}

static void run_one(struct session *s, const char *wl, const struct run_policy *p,
		    const char *kernel, json_object *row)
{
	const struct dev_opts *o = s->o;
	char *dir = xasprintf("%s/%s/%s/%s", o->outdir, s->label, wl, p->name);
	char *trace = xasprintf("%s/trace", dir), *report = xasprintf("%s/workload.json", dir);
	char *summary = xasprintf("%s/summary.json", dir), *logp = xasprintf("%s/device.log", dir);
	char *devp = xasprintf("%s/device.json", dir), *why = NULL, *rreport;
	char pol[2][4];
	char *pargs[3] = { pol[0], pol[1], NULL };
	json_object *dev = json_object_new_object();
	struct beside besides[] = {
		{ "--perfetto", "perfetto", "perfetto.pftrace", "TERM", perfetto_start, NULL, NULL },
		{ "--simpleperf", "simpleperf", "simpleperf.data", "TERM", simpleperf_start, NULL, NULL },
		{ "--logcat", "logcat", "logcat.txt", "TERM", logcat_start, NULL, NULL },
	};
	const struct workload *w = workload_find(wl);
	/* a load of other processes (app-rotation's apps) is read with logcat beside */
	int want[] = { o->perfetto, o->simpleperf, o->logcat || (w && w->trace_all) };
	FILE *log = NULL;
	size_t i;
	int rc;

	json_object_object_add(row, "workload", json_object_new_string(wl));
	json_object_object_add(row, "policy", json_object_new_string(p->name));
	if (mkdir_p(dir)) {
		why = xasprintf("cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	log = fopen(logp, "w");
	snprintf(pol[0], sizeof(pol[0]), "%d", p->no_retry);
	snprintf(pol[1], sizeof(pol[1]), "%d", p->retry_vma_lock);
	rc = agent_simple(s, "policy", pargs);
	if (rc == MMLOCK_EXIT_ENV) {
		why = xasprintf("the kernel lacks this policy's sysctl (not patched)");
		goto out;
	} else if (rc) {
		why = xasprintf("cannot set the policy's sysctls (exit %d)", rc);
		goto out;
	}
	fprintf(stderr, "mmlock device: %s under %s (%s-side capture%s) ...\n", wl, p->name,
		o->device_capture ? "device" : "host", o->raw ? ", binary pages" : "");
	json_object_object_add(dev, "transport", json_object_new_string(
				       s->t.kind == TRANSPORT_ADB ? "adb" : "ssh"));
	json_object_object_add(dev, "device", json_object_new_string(s->t.label));
	json_object_object_add(dev, "root", json_object_new_string(transport_root_name(s->t.root)));
	json_object_object_add(dev, "capture", json_object_new_string(
				       o->device_capture ? (o->raw ? "device-binary" : "device") :
				       o->raw ? "host-binary" : "host"));
	json_object_object_add(dev, "kernel_release",
			       json_object_new_string(probe_get(&s->probe, "release") ?
						      probe_get(&s->probe, "release") : ""));
	/* Perfetto, simpleperf and logcat beside the capture: all on the monotonic clock */
	besides[0].devfile = xstrdup(perfetto_out());
	besides[1].devfile = xasprintf("%s/run/perf.data", o->base);
	besides[2].devfile = xasprintf("%s/run/logcat.out", o->base);
	for (i = 0; i < ARRAY_SIZE(besides); i++)
		if (want[i])
			beside_begin(s, &besides[i], dev);
	free(agent_filter);
	agent_filter = NULL;
	rc = o->device_capture ? capture_device(s, wl, trace, &why) :
	     o->raw ? capture_host_raw(s, wl, trace, p, dev, log, &why) :
		      capture_host(s, wl, trace, dev, log, &why);
	for (i = 0; i < ARRAY_SIZE(besides); i++)
		beside_end(s, &besides[i], dir, dev);
	if (rc)
		goto out;
	if (!o->device_capture && !o->raw) {
		json_object *st;
		uint64_t lost;

		json_object_object_get_ex(dev, "stats", &st);
		lost = stat_sum(st, "end", "overrun") - stat_sum(st, "start", "overrun") +
		       stat_sum(st, "end", "commit overrun") - stat_sum(st, "start", "commit overrun") +
		       stat_sum(st, "end", "dropped events") - stat_sum(st, "start", "dropped events");
		json_object_object_add(dev, "lost_events", json_object_new_uint64(lost));
		json_object_object_add(dev, "read_events", json_object_new_uint64(
				stat_sum(st, "end", "read events") - stat_sum(st, "start", "read events")));
	}
	rreport = xasprintf("%s/run/workload.json", o->base);
	if (transport_pull(&s->t, rreport, report))
		unlink(report);
	free(rreport);
	{
		char *argv[] = { (char *)"analyze", (char *)"--workload", (char *)wl,
				 (char *)"--kernel", (char *)kernel, (char *)"--threshold-us",
				 (char *)o->threshold, (char *)"-o", summary, (char *)"--pretty",
				 (char *)"--quiet", trace, NULL };

		rc = wait_builtin(call_builtin(cmd_analyze, argv, -1, -1));
		if (rc && rc != MMLOCK_EXIT_PARTIAL) {
			why = xasprintf("mmlock analyze exited %d", rc);
			goto out;
		}
	}
	json_object_object_add(dev, "filter", agent_filter ? json_object_new_string(agent_filter) : NULL);
	if (json_object_to_file_ext(devp, dev, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE))
		pr_err("%s: cannot write: %s", devp, json_util_get_last_err());
	{
		json_object *rep = access(report, R_OK) ? NULL : json_object_from_file(report), *v;
		int64_t lost = -1;

		if (json_object_object_get_ex(dev, "lost_events", &v))
			lost = json_object_get_int64(v);
		/* analyze ran in a child of its own (call_builtin()): its summary is on disk */
		run_summary_merge(summary, json_object_from_file(summary), rep, p, lost,
				  s->kernel_delay, agent_filter, row, &why);
	}
out:
	if (why)
		json_object_object_add(row, "skipped", json_object_new_string(why));
	for (i = 0; i < ARRAY_SIZE(besides); i++)
		free(besides[i].devfile);
	if (log)
		fclose(log);
	json_object_put(dev);
	free(why);
	free(dir);
	free(trace);
	free(report);
	free(summary);
	free(logp);
	free(devp);
}

static int do_run(struct session *s, char **wls, int nr)
{
	const struct dev_opts *o = s->o;
	const char *mach = probe_get(&s->probe, "machine"), *rel = probe_get(&s->probe, "release");
	const char *kernel = o->kernel ? o->kernel : rel ? rel : "unknown";
	char *bin = NULL, *remote, *outdir, *header;
	json_object *rows;
	int i, failed = 0;
	size_t p;

	if (s->t.root == ROOT_NONE) {
		pr_err("no root on the device: 'mmlock device check' says how to get it");
		return MMLOCK_EXIT_ENV;
	}
	if (!probe_get(&s->probe, "tracefs")) {
		pr_err("no tracefs on the device: 'mmlock device check' says why");
		return MMLOCK_EXIT_ENV;
	}
	if (!arch_binary(o, mach ? mach : "", &bin)) {
		pr_err("no static mmlock for the device's %s: make ARCH=arm64, or --binary PATH",
		       mach ? mach : "unknown architecture");
		return MMLOCK_EXIT_ENV;
	}
	if (o->raw) {
		/* the decoder reads pages of this host's size and word (collector/decode.c) */
		const char *pg = probe_get(&s->probe, "ring_page"), *wd = probe_get(&s->probe, "ring_word");
		uint64_t n = 0, w = 0;

		if (!pg || !wd || parse_u64(pg, &n) || parse_u64(wd, &w) ||
		    n != (uint64_t)getpagesize() || w != sizeof(long)) {
			pr_err("--binary-pages: the device's ring-buffer pages are %s bytes of %s-byte "
			       "words; this host decodes %d-byte pages of %zu-byte words (run "
			       "without --binary-pages: the text stream)", pg ? pg : "?",
			       wd ? wd : "?", getpagesize(), sizeof(long));
			free(bin);
			return MMLOCK_EXIT_ENV;
		}
	}
	s->kernel_delay = run_preflight_kernel_delay(o->kernel_src, 0);
	{
		char *line = run_preflight_describe(s->kernel_delay);

		fprintf(stderr, "mmlock device: %s\n", line);
		free(line);
	}
	/* what an interrupted run left is undone before anything new is set */
	if (probe_get(&s->probe, "leftover")) {
		fprintf(stderr, "mmlock device: restoring what an interrupted run left\n");
		restore(s);
	}
	remote = xasprintf("%s/mmlock", o->base);
	fprintf(stderr, "mmlock device: pushing %s to %s:%s\n", bin, s->t.label, remote);
	if (transport_push(&s->t, bin, remote, "755")) {
		free(remote);
		free(bin);
		return MMLOCK_EXIT_FAILURE;
	}
	free(remote);
	free(bin);
	{
		char *q = shell_quote(o->files), *cmd = xasprintf("mkdir -p %s", q);

		transport_run(&s->t, cmd, 1, NULL, 2);
		free(cmd);
		free(q);
	}
	outdir = xasprintf("%s/%s", o->outdir, s->label);
	if (mkdir_p(outdir)) {
		pr_err("cannot create %s: %s", outdir, strerror(errno));
		free(outdir);
		return MMLOCK_EXIT_OUTPUT;
	}
	rows = json_object_new_array();
	for (i = 0; i < nr && !interrupted; i++) {
		size_t first = json_object_array_length(rows);

		for (p = 0; p < RUN_NR_POLICIES && !interrupted; p++) {
			json_object *r, *sk;

			if (!(o->policy_mask & (1 << p)))
				continue;
			r = json_object_new_object();
			run_one(s, wls[i], &run_policies[p], kernel, r);
			if (json_object_object_get_ex(r, "skipped", &sk) &&
			    !strstr(json_object_get_string(sk), "not patched"))
				failed++;
			json_object_array_add(rows, r);
		}
		run_rows_compare_stock(rows, first);
	}
	free(agent_filter);
	agent_filter = NULL;
	/* every exit: sysctls back, instances gone (a fresh connection if need be) */
	{
		struct sigaction ign = { .sa_handler = SIG_IGN };

		sigemptyset(&ign.sa_mask);
		sigaction(SIGINT, &ign, NULL);
		restore(s);
	}
	header = xasprintf("device %s (%s), kernel %s, %s-side capture%s", s->t.label,
			   s->t.kind == TRANSPORT_ADB ? "adb" : "ssh", kernel,
			   o->device_capture ? "device" : "host", o->raw ? ", binary pages" : "");
	run_table_print(stdout, rows, header);
	if (run_table_write(outdir, rows, header))
		pr_err("%s/verdicts.txt: cannot write: %s", outdir, strerror(errno));
	free(header);
	if (!interrupted) {
		/* the compare table over every summary of this device */
		char *path = xasprintf("%s/compare.txt", outdir);
		int fd;

		unlink(path);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			char *argv[] = { (char *)"compare", outdir, NULL };

			wait_builtin(call_builtin(cmd_compare, argv, -1, fd));
			close(fd);
			fprintf(stderr, "mmlock device: compare table in %s\n", path);
		}
		free(path);
	}
	json_object_put(rows);
	free(outdir);
	if (interrupted)
		return 128 + interrupted;
	return failed ? MMLOCK_EXIT_FAILURE : MMLOCK_EXIT_OK;
}

static int do_shell(struct session *s, char **argv)
{
	char *cmd = shell_join(argv);
	pid_t pid = transport_spawn(&s->t, cmd, s->t.root != ROOT_NONE, 0, -1, -1);

	free(cmd);
	return pid < 0 ? MMLOCK_EXIT_FAILURE : transport_wait(pid);
}

static void usage(FILE *out)
{
	fprintf(out,
"usage: mmlock device [TRANSPORT] check\n"
"       mmlock device [TRANSPORT] run [options] WORKLOAD...\n"
"       mmlock device [TRANSPORT] shell -- COMMAND [ARGS...]\n"
"       mmlock device [TRANSPORT] restore\n"
"       mmlock device perfetto-config [options]   (--help: a Perfetto config)\n"
"       mmlock device simpleperf-cmd [options]    (--help: a simpleperf line)\n"
"\n"
"A phone (adb) or a board (ssh) with a patched kernel: check what a run needs,\n"
"or run workloads under the fault policies there, analyse here, and write\n"
"DIR/DEVICE/WORKLOAD/POLICY/summary.json (as mmlock run does), the verdict\n"
"table and DIR/DEVICE/compare.txt.  Sysctls and tracing are restored on\n"
"every exit (Ctrl-C here, a lost connection: restore runs on the next call).\n"
"\n"
"transport:\n"
"  -s, --serial SERIAL    adb device (default $ANDROID_SERIAL or adb's only one)\n"
"      --ssh [USER@]HOST[:PORT]  ssh instead of adb ($MMLOCK_SSH_OPTS: more\n"
"                         ssh options, e.g. '-i KEY')\n"
"      --base DIR         device folder for binaries and captures\n"
"                         (default /data/local/tmp/mmlock)\n"
"run:\n"
"  -P, --policy LIST      stock,no-retry,retry-vma (default: all three)\n"
"  -c, --capture WHERE    host (default: trace_pipe streamed here into mmlock\n"
"                         record --stdin) or device (mmlock record on the device,\n"
"                         oom_score_adj -1000, chunks pulled afterwards)\n"
"      --binary-pages     per-CPU raw ring-buffer pages instead of text, decoded\n"
"                         here: with -c host one stream per CPU through the\n"
"                         transport, with -c device recorded there; for rates\n"
"                         the text stream loses events at\n"
"  -b, --buffer-kb N      ring buffer per CPU in KiB (default 4096)\n"
"  -d, --duration TIME    per workload and policy (default 5s)\n"
"  -D, --files DIR        the workloads' files on the device (default BASE/files)\n"
"  -a, --args 'WL:ARGS'   extra workload options (as mmlock run)\n"
"  -k, --kernel LABEL     kernel label (default: the device's uname -r)\n"
"  -n, --name NAME        DEVICE in the output path (default: product or serial/host)\n"
"  -o, --output DIR       default out\n"
"  -t, --threshold-us N   Type-C threshold of the verdict (default 1000)\n"
"      --binary PATH      the static mmlock to push (default: build-arm64/mmlock\n"
"                         for aarch64)\n"
"      --perfetto         Perfetto's trace beside ours (Android): the same events,\n"
"                         process names, callstacks on the fault and VMA-writer\n"
"                         tracepoints of mmlock's processes, CLOCK_MONOTONIC;\n"
"                         pulled into DIR/.../POLICY/perfetto.pftrace\n"
"      --simpleperf       simpleperf beside ours (Android): the record line of\n"
"                         simpleperf-cmd for this run's events (a DWARF user\n"
"                         callstack on every hit of the fault and VMA-writer\n"
"                         tracepoints, every process, --clockid monotonic);\n"
"                         pulled into POLICY/simpleperf.data\n"
"      --logcat           logcat -v threadtime -v monotonic beside the capture,\n"
"                         pulled into POLICY/logcat.txt (always for a workload\n"
"                         whose load is other processes: app-rotation)\n"
"      --kernel-src DIR   the device kernel's source: the preflight scans its\n"
"                         fault path for artificial delays, in every summary\n"
"\n"
"Exit: 0 ok; 1 a run failed; 2 usage; 3 no device; 5 check found something\n"
"missing (run: no root, no tracefs, no binary); 130 interrupted.\n");
}

int cmd_device(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "serial",	required_argument, NULL, 's' },
		{ "ssh",	required_argument, NULL, 'S' },
		{ "base",	required_argument, NULL, 'B' },
		{ "policy",	required_argument, NULL, 'P' },
		{ "capture",	required_argument, NULL, 'c' },
		{ "binary-pages", no_argument,	   NULL, 'R' },
		{ "buffer-kb",	required_argument, NULL, 'b' },
		{ "duration",	required_argument, NULL, 'd' },
		{ "files",	required_argument, NULL, 'D' },
		{ "args",	required_argument, NULL, 'a' },
		{ "kernel",	required_argument, NULL, 'k' },
		{ "name",	required_argument, NULL, 'n' },
		{ "output",	required_argument, NULL, 'o' },
		{ "threshold-us", required_argument, NULL, 't' },
		{ "binary",	required_argument, NULL, 'X' },
		{ "perfetto",	no_argument,	   NULL, 'F' },
		{ "kernel-src",	required_argument, NULL, 'K' },
		{ "simpleperf",	no_argument,	   NULL, 'Q' },
		{ "logcat",	no_argument,	   NULL, 'L' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct dev_opts o = { .base = "/data/local/tmp/mmlock", .outdir = "out",
			      .duration = "5s", .threshold = "1000", .buffer_kb = "4096",
			      .policy_mask = 7 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct session s;
	const char *sub = NULL;
	char *why = NULL, *files = NULL;
	int c, rc, pass;
	uint64_t v;

	dev_argv = argv;
	/* options before and after the subcommand word */
	for (pass = 0; pass < 2; pass++) {
		optind = 0;	/* glibc: start afresh (pass 1 reads the shifted argv) */
		while ((c = getopt_long(argc, argv, pass ? "s:P:c:b:d:D:a:k:n:o:t:h" :
					"+s:P:c:b:d:D:a:k:n:o:t:h", lopts, NULL)) != -1) {
			switch (c) {
			case 's': o.serial = optarg; break;
			case 'S': o.ssh = optarg; break;
			case 'B': o.base = optarg; break;
			case 'P':
				if (run_policy_mask_parse(optarg, &o.policy_mask)) {
					pr_err("--policy '%s': expected stock, no-retry, retry-vma, "
					       "comma-separated", optarg);
					return MMLOCK_EXIT_USAGE;
				}
				break;
			case 'c':
				if (strcmp(optarg, "host") && strcmp(optarg, "device")) {
					pr_err("--capture '%s': expected host or device", optarg);
					return MMLOCK_EXIT_USAGE;
				}
				o.device_capture = !strcmp(optarg, "device");
				break;
			case 'R': o.raw = 1; break;
			case 'b':
				if (parse_u64(optarg, &v) || !v) {
					pr_err("--buffer-kb '%s': expected KiB per CPU", optarg);
					return MMLOCK_EXIT_USAGE;
				}
				o.buffer_kb = optarg;
				break;
			case 'd':
				if (parse_duration_us(optarg, &v) || !v) {
					pr_err("--duration '%s': expected a time such as 5s", optarg);
					return MMLOCK_EXIT_USAGE;
				}
				o.duration = optarg;
				break;
			case 'D': o.files = optarg; break;
			case 'a':
				if (!strchr(optarg, ':') || !workload_find(strndupa(optarg,
						(size_t)(strchr(optarg, ':') - optarg)))) {
					pr_err("--args '%s': expected WORKLOAD:OPTIONS", optarg);
					return MMLOCK_EXIT_USAGE;
				}
				o.args = xrealloc(o.args, (size_t)(o.nr_args + 1) * sizeof(*o.args));
				o.args[o.nr_args++] = optarg;
				break;
			case 'k': o.kernel = optarg; break;
			case 'n': o.name = optarg; break;
			case 'o': o.outdir = optarg; break;
			case 't':
				if (parse_u64(optarg, &v)) {
					pr_err("--threshold-us '%s': expected microseconds", optarg);
					return MMLOCK_EXIT_USAGE;
				}
				o.threshold = optarg;
				break;
			case 'X': o.binary = optarg; break;
			case 'F': o.perfetto = 1; break;
			case 'K': o.kernel_src = optarg; break;
			case 'Q': o.simpleperf = 1; break;
			case 'L': o.logcat = 1; break;
			case 'h':
				usage(stdout);
				free(o.args);
				return MMLOCK_EXIT_OK;
			default:
				usage(stderr);
				free(o.args);
				return MMLOCK_EXIT_USAGE;
			}
		}
		if (pass == 0) {
			if (optind < argc && (!strcmp(argv[optind], "perfetto-config") ||
					      !strcmp(argv[optind], "simpleperf-cmd"))) {
				sub = argv[optind];
				argc -= optind;
				argv += optind;
				break;
			}
			if (optind >= argc) {
				pr_err("no subcommand: check, run, shell, restore, perfetto-config or "
				       "simpleperf-cmd");
				free(o.args);
				return MMLOCK_EXIT_USAGE;
			}
			sub = argv[optind++];
			/* getopt goes on after the subcommand word */
			argc -= optind - 1;
			argv += optind - 1;
		}
	}
	/* recipes: text written here, no transport */
	if (!strcmp(sub, "perfetto-config") || !strcmp(sub, "simpleperf-cmd")) {
		free(o.args);
		return !strcmp(sub, "perfetto-config") ? cmd_device_perfetto_config(argc, argv) :
		       cmd_device_simpleperf_cmd(argc, argv);
	}
	/* the agent's per-CPU reader, on the device (no transport) */
	if (!strcmp(sub, "pages")) {
		free(o.args);
		if (argc - optind != 2) {
			pr_err("pages: expected INSTANCE CPU (run by the device agent)");
			return MMLOCK_EXIT_USAGE;
		}
		return device_pages(argv[optind], argv[optind + 1]);
	}
	if (strcmp(sub, "check") && strcmp(sub, "run") && strcmp(sub, "shell") &&
	    strcmp(sub, "restore")) {
		pr_err("'%s' is not check, run, shell, restore, perfetto-config or "
		       "simpleperf-cmd", sub);
		free(o.args);
		return MMLOCK_EXIT_USAGE;
	}
	if (o.serial && o.ssh) {
		pr_err("--serial is for adb; --ssh names the host itself");
		free(o.args);
		return MMLOCK_EXIT_USAGE;
	}
	if (!strcmp(sub, "run")) {
		if (optind == argc) {
			pr_err("no WORKLOAD given; 'mmlock workload --list' lists them");
			free(o.args);
			return MMLOCK_EXIT_USAGE;
		}
		for (c = optind; c < argc; c++) {
			if (!workload_find(argv[c])) {
				pr_err("'%s' is not a workload; 'mmlock workload --list' lists them",
				       argv[c]);
				free(o.args);
				return MMLOCK_EXIT_USAGE;
			}
			/* mmlock record on the device traces its command's processes only */
			if (o.device_capture && workload_find(argv[c])->trace_all) {
				pr_err("%s traces every process: it runs with the host-side capture "
				       "(-c host), not -c device", argv[c]);
				free(o.args);
				return MMLOCK_EXIT_USAGE;
			}
		}
	} else if (!strcmp(sub, "shell")) {
		if (optind == argc) {
			pr_err("shell: no COMMAND given");
			free(o.args);
			return MMLOCK_EXIT_USAGE;
		}
	} else if (optind != argc) {
		pr_err("%s takes no arguments ('%s')", sub, argv[optind]);
		free(o.args);
		return MMLOCK_EXIT_USAGE;
	}
	if (!o.files)
		o.files = files = xasprintf("%s/files", o.base);

	rc = session_open(&s, &o, &why);
	if (rc) {
		/* one line, the documented exit code: scripts test for it */
		fprintf(stderr, "mmlock device: %s\n", why);
		free(why);
		session_close(&s);
		free(files);
		free(o.args);
		return rc == -2 ? MMLOCK_EXIT_USAGE : MMLOCK_EXIT_INPUT;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!strcmp(sub, "shell")) {
		rc = do_shell(&s, argv + optind);
	} else if (!strcmp(sub, "restore")) {
		rc = push_agent(&s) || restore(&s) ? MMLOCK_EXIT_FAILURE : MMLOCK_EXIT_OK;
	} else if (session_probe(&s)) {
		rc = MMLOCK_EXIT_FAILURE;
	} else {
		session_label(&s);
		rc = !strcmp(sub, "check") ? do_check(&s) : do_run(&s, argv + optind, argc - optind);
	}
	session_close(&s);
	free(files);
	free(o.args);
	return rc;
}
