// SPDX-License-Identifier: GPL-2.0
/*
 * app-rotation: the seed's memstress on an Android device.  Apps are
 * started in bursts with `am start -W` (heavy ones in the first slots of
 * each burst), each held in front for a while, a gap between launches, HOME
 * (and optionally force-stop) after a burst, a sleep between bursts: the
 * launches fault their libraries and files in, zygote forks, lmkd kills the
 * background ones, and mmap_lock / per-VMA locks of many processes contend.
 * Its load is the apps, not this process: `mmlock device run` traces every
 * process for it and captures logcat beside the trace.  Device only: `am`
 * is Android's activity manager client.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app-rotation.h"
#include "util.h"
#include "workload.h"

/* AOSP's own apps, on every Android build: a run without --packages still rotates */
#define AR_DEFAULT_PACKAGES \
	"com.android.settings,com.android.documentsui,com.android.contacts," \
	"com.android.deskclock,com.android.calendar,com.android.camera2"

/* A command that outlives the run by this much is killed (a hung am start -W). */
#define AR_COMMAND_GRACE_US	(10 * 1000000ULL)
#define AR_MAX_LINES		512

struct ar {
	long		burst_size, heavy_per_burst, hold_ms, launch_gap_ms, cycle_sleep_ms;
	long		max_cycles, home, force_stop;
	const char	*packages, *package_file, *heavy;
	struct ar_plan	plan;
	long		cycles, commands, command_fail, killed;
	uint64_t	ran_us;
	char		*error;
};

static const struct wl_param ar_params[] = {
	WL_PARAM(struct ar, burst_size, "burst-size", 6, 1, 64, "apps started per burst"),
	WL_PARAM(struct ar, heavy_per_burst, "heavy-per-burst", 4, 0, 64,
		 "of which heavy packages (when --heavy names any)"),
	WL_PARAM(struct ar, hold_ms, "hold-ms", 500, 0, 600000, "each app left in front"),
	WL_PARAM(struct ar, launch_gap_ms, "launch-gap-ms", 200, 0, 600000,
		 "pause between two launches"),
	WL_PARAM(struct ar, cycle_sleep_ms, "cycle-sleep-ms", 500, 0, 600000,
		 "pause after a burst"),
	WL_PARAM(struct ar, max_cycles, "max-cycles", 0, 0, 1000000,
		 "stop after this many bursts (0: when the duration is up)"),
	WL_PARAM(struct ar, home, "home", 1, 0, 1, "press HOME after a burst"),
	WL_PARAM(struct ar, force_stop, "force-stop", 0, 0, 1,
		 "am force-stop a burst's apps after it (0: lmkd decides)"),
	{ NULL, 0, 0, 0, 0, NULL }
};

static const struct wl_sparam ar_sparams[] = {
	WL_SPARAM(struct ar, packages, "packages", AR_DEFAULT_PACKAGES,
		  "packages to rotate, comma-separated"),
	WL_SPARAM(struct ar, package_file, "package-file", NULL,
		  "more packages, one a line ('#' comments), on the device"),
	WL_SPARAM(struct ar, heavy, "heavy", NULL, "heavy packages (games, video), comma-separated"),
	{ NULL, 0, NULL, NULL }
};

int ar_plan_add(struct ar_plan *p, const char *list, int heavy, char **why)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int ret = 0;

	for (tok = strtok_r(copy, ", \t\n", &save); tok; tok = strtok_r(NULL, ", \t\n", &save)) {
		size_t i, len = strlen(tok);
		int dup = 0;

		if (strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
		    len || !strchr(tok, '.') || tok[0] == '.' || tok[len - 1] == '.' || len > 255) {
			*why = xasprintf("'%s' is not a package name (such as com.example.app)", tok);
			ret = -1;
			break;
		}
		for (i = 0; i < p->nr_apps && !dup; i++)
			dup = !strcmp(p->apps[i].package, tok);
		if (dup)
			continue;
		p->apps = xrealloc(p->apps, (p->nr_apps + 1) * sizeof(*p->apps));
		memset(&p->apps[p->nr_apps], 0, sizeof(*p->apps));
		p->apps[p->nr_apps].package = xstrdup(tok);
		p->apps[p->nr_apps++].heavy = heavy;
	}
	free(copy);
	return ret;
}

/* The @k-th resolved app (round-robin) of kind @heavy; NULL when there is none. */
static const struct ar_app *nth_app(const struct ar_plan *p, int heavy, long k)
{
	size_t n = 0, i;

	for (i = 0; i < p->nr_apps; i++)
		n += p->apps[i].component && p->apps[i].heavy == heavy;
	if (!n)
		return NULL;
	k %= (long)n;
	for (i = 0; i < p->nr_apps; i++)
		if (p->apps[i].component && p->apps[i].heavy == heavy && k-- == 0)
			return &p->apps[i];
	return NULL;
}

size_t ar_cycle(const struct ar_plan *p, long cycle, char **out, size_t max)
{
	const struct ar_app *started[64];
	long heavy = nth_app(p, 1, 0) ? p->heavy_per_burst : 0, light;
	size_t n = 0, nr = 0;

	if (!nth_app(p, 0, 0) && !nth_app(p, 1, 0))
		return 0;
	if (heavy > p->burst_size || !nth_app(p, 0, 0))
		heavy = p->burst_size;
	light = p->burst_size - heavy;
	for (long slot = 0; slot < p->burst_size && nr < ARRAY_SIZE(started); slot++) {
		const struct ar_app *a = slot < heavy ? nth_app(p, 1, cycle * heavy + slot) :
				       nth_app(p, 0, cycle * light + slot - heavy);

		if (n + 3 > max)
			break;
		started[nr++] = a;
		out[n++] = xasprintf("am start -W -n %s", a->component);
		out[n++] = xasprintf("sleep %ld", p->hold_ms);
		if (slot + 1 < p->burst_size && p->launch_gap_ms)
			out[n++] = xasprintf("sleep %ld", p->launch_gap_ms);
	}
	if (p->home && n < max)
		out[n++] = xasprintf("input keyevent KEYCODE_HOME");
	for (size_t i = 0; p->force_stop && i < nr && n < max; i++) {
		int seen = 0;

		for (size_t j = 0; j < i; j++)
			seen |= started[j] == started[i];
		if (!seen)
			out[n++] = xasprintf("am force-stop %s", started[i]->package);
	}
	if (p->cycle_sleep_ms && n < max)
		out[n++] = xasprintf("sleep %ld", p->cycle_sleep_ms);
	return n;
}

struct ar_app *ar_app_of(const struct ar_plan *p, const char *line)
{
	static const char head[] = "am start -W -n ";

	if (strncmp(line, head, sizeof(head) - 1))
		return NULL;
	for (size_t i = 0; i < p->nr_apps; i++)
		if (p->apps[i].component && !strcmp(p->apps[i].component, line + sizeof(head) - 1))
			return &p->apps[i];
	return NULL;
}

void ar_plan_release(struct ar_plan *p)
{
	for (size_t i = 0; i < p->nr_apps; i++) {
		free(p->apps[i].package);
		free(p->apps[i].component);
	}
	free(p->apps);
	p->apps = NULL;
	p->nr_apps = 0;
}

/*
 * Run @line (words split on blanks: the plan's lines hold no quoting) with
 * its output in @buf; kill it at @deadline_us.  Return: its exit status,
 * 128+signal, or -1 when it could not start.
 */
static int run_line(struct ar *a, const char *line, char *buf, size_t len, uint64_t deadline_us)
{
	char *copy = xstrdup(line), *argv[16], *save = NULL;
	int fds[2], status, argc = 0;
	size_t got = 0;
	pid_t pid;

	for (char *t = strtok_r(copy, " ", &save); t && argc < 15; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	buf[0] = '\0';
	if (pipe2(fds, O_CLOEXEC)) {
		free(copy);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	free(copy);
	if (pid < 0) {
		close(fds[0]);
		return -1;
	}
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		uint64_t now = wl_now_us();
		ssize_t n;
		char sink[512];

		if (now >= deadline_us) {
			kill(pid, SIGKILL);
			a->killed++;
			break;
		}
		if (poll(&pfd, 1, (int)((deadline_us - now) / 1000) + 1) <= 0)
			continue;
		n = got + 1 < len ? read(fds[0], buf + got, len - got - 1) : read(fds[0], sink, sizeof(sink));
		if (n <= 0)
			break;
		if (got + 1 < len)
			got += (size_t)n;
	}
	buf[got] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The launcher activity of each app, as the package manager resolves it. */
static void resolve(struct ar *a, uint64_t deadline_us)
{
	char out[4096];

	for (size_t i = 0; i < a->plan.nr_apps; i++) {
		struct ar_app *app = &a->plan.apps[i];
		char *cmd = xasprintf("cmd package resolve-activity --brief -c "
				      "android.intent.category.LAUNCHER %s", app->package);
		char *last = NULL, *line, *save = NULL;

		if (!run_line(a, cmd, out, sizeof(out), deadline_us)) {
			/* the last line is PACKAGE/ACTIVITY ("No activity found" otherwise) */
			for (line = strtok_r(out, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save))
				last = line;
			if (last && !strncmp(last, app->package, strlen(app->package)) &&
			    last[strlen(app->package)] == '/' && !strchr(last, ' '))
				app->component = xstrdup(last);
		}
		free(cmd);
	}
}

/* An executable @name in $PATH. */
static int in_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path ? path : "/system/bin:/bin:/usr/bin"), *dir, *save = NULL;
	int found = 0;

	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", dir, name);

		found = !access(p, X_OK);
		free(p);
	}
	free(copy);
	return found;
}

static int read_package_file(struct ar *a)
{
	FILE *f = fopen(a->package_file, "r");
	char *line = NULL, *why = NULL;
	size_t cap = 0, lineno = 0;
	int ret = 0;

	if (!f) {
		a->error = xasprintf("%s: %s", a->package_file, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		line[strcspn(line, "#\r\n")] = '\0';
		if (ar_plan_add(&a->plan, line, 0, &why)) {
			a->error = xasprintf("%s:%zu: %s", a->package_file, lineno, why);
			free(why);
			ret = -1;
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

static int ar_run(void *priv, const struct workload_common *c)
{
	struct ar *a = priv;
	uint64_t t0 = wl_now_us(), end = t0 + c->duration_us, last_note = t0;
	char *why = NULL, *lines[AR_MAX_LINES], out[4096];

	a->plan = (struct ar_plan){ .burst_size = a->burst_size, .heavy_per_burst = a->heavy_per_burst,
				    .hold_ms = a->hold_ms, .launch_gap_ms = a->launch_gap_ms,
				    .cycle_sleep_ms = a->cycle_sleep_ms, .home = a->home,
				    .force_stop = a->force_stop };
	if ((a->packages && ar_plan_add(&a->plan, a->packages, 0, &why)) ||
	    (a->heavy && ar_plan_add(&a->plan, a->heavy, 1, &why))) {
		a->error = why;
		return -1;
	}
	if (a->package_file && read_package_file(a))
		return -1;
	if (!in_path("am") || !in_path("cmd")) {
		a->error = xasprintf("no am or cmd in PATH: not an Android device (run it with "
				     "mmlock device run app-rotation)");
		return -1;
	}
	resolve(a, end + AR_COMMAND_GRACE_US);
	while (wl_now_us() < end && (!a->max_cycles || a->cycles < a->max_cycles)) {
		size_t n = ar_cycle(&a->plan, a->cycles, lines, ARRAY_SIZE(lines));

		if (!n) {
			a->error = xasprintf("none of the %zu packages is installed", a->plan.nr_apps);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t now = wl_now_us();

			if (!strncmp(lines[i], "sleep ", 6)) {
				uint64_t us = strtoull(lines[i] + 6, NULL, 10) * 1000;

				wl_sleep_us(now >= end ? 0 : us < end - now ? us : end - now);
			} else if (now < end) {
				struct ar_app *app = ar_app_of(&a->plan, lines[i]);
				int rc = run_line(a, lines[i], out, sizeof(out), end + AR_COMMAND_GRACE_US);
				const char *tt = strstr(out, "TotalTime: ");

				a->commands++;
				a->command_fail += rc != 0;
				if (app) {
					app->launches++;
					/* am start -W says "Error:" or a non-ok Status on failure */
					if (rc || strstr(out, "Error") || (strstr(out, "Status: ") &&
									 !strstr(out, "Status: ok")))
						app->launch_fail++;
					else if (tt)
						app->total_ms_sum += strtol(tt + 11, NULL, 10);
				}
			}
			free(lines[i]);
		}
		a->cycles++;
		if (!c->quiet && wl_now_us() - last_note >= 10000000) {
			last_note = wl_now_us();
			fprintf(stderr, "app-rotation: %ld bursts, %ld commands\n", a->cycles, a->commands);
		}
	}
	a->ran_us = wl_now_us() - t0;
	return a->error ? -1 : 0;
}

static void ar_report(void *priv, json_object *out)
{
	struct ar *a = priv;
	json_object *r = json_object_new_object(), *apps = json_object_new_array();
	json_object *missing = json_object_new_array();
	long launches = 0, fails = 0;
	char *evidence;

	for (size_t i = 0; i < a->plan.nr_apps; i++) {
		const struct ar_app *app = &a->plan.apps[i];
		json_object *o;

		if (!app->component) {
			json_object_array_add(missing, json_object_new_string(app->package));
			continue;
		}
		o = json_object_new_object();
		json_object_object_add(o, "package", json_object_new_string(app->package));
		json_object_object_add(o, "component", json_object_new_string(app->component));
		json_object_object_add(o, "heavy", json_object_new_boolean(app->heavy));
		json_object_object_add(o, "launches", json_object_new_int64(app->launches));
		json_object_object_add(o, "launch_failures", json_object_new_int64(app->launch_fail));
		json_object_object_add(o, "mean_total_time_ms", app->launches > app->launch_fail ?
				       json_object_new_int64(app->total_ms_sum /
							     (app->launches - app->launch_fail)) : NULL);
		json_object_array_add(apps, o);
		launches += app->launches;
		fails += app->launch_fail;
	}
	json_object_object_add(r, "bursts", json_object_new_int64(a->cycles));
	json_object_object_add(r, "launches", json_object_new_int64(launches));
	json_object_object_add(r, "launch_failures", json_object_new_int64(fails));
	json_object_object_add(r, "commands", json_object_new_int64(a->commands));
	json_object_object_add(r, "commands_failed", json_object_new_int64(a->command_fail));
	json_object_object_add(r, "commands_killed", json_object_new_int64(a->killed));
	json_object_object_add(r, "apps", apps);
	json_object_object_add(r, "not_installed", missing);
	json_object_object_add(r, "ran_ms", json_object_new_uint64(a->ran_us / 1000));
	/* the contract's checks read it: the load is every process, by design */
	json_object_object_add(r, "capture_scope", json_object_new_string("all processes"));
	json_object_object_add(r, "error", a->error ? json_object_new_string(a->error) : NULL);
	json_object_object_add(out, "result", r);
	evidence = xasprintf("%ld bursts, %ld launches (%ld failed) of %zu installed packages",
			     a->cycles, launches, fails,
			     a->plan.nr_apps - json_object_array_length(missing));
	wl_output_contract(out, a->error ? "stopped" : "ran to the end",
			   "launch bursts with am start -W, hold, gap, HOME, sleep; heavy apps first",
			   evidence, "none", a->error ? a->error : "none", "read logcat.txt beside the trace for lmkd kills "
			   "and launch times; compare the bursts' windows in the trace");
	free(evidence);
}

static void ar_fini(void *priv)
{
	struct ar *a = priv;

	ar_plan_release(&a->plan);
	free(a->error);
}

const struct workload wl_app_rotation = {
	.name		= "app-rotation",
	.summary	= "Android apps started in bursts with am start (the seed's memstress), "
			  "logcat beside",
	.params		= ar_params,
	.sparams	= ar_sparams,
	.size		= sizeof(struct ar),
	.run		= ar_run,
	.report		= ar_report,
	.fini		= ar_fini,
	.device_only	= "it starts Android apps with am start",
	.trace_all	= 1,
};
