// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock run WORKLOAD... : for each workload and fault policy, set the
 * sysctls, record the workload (held at the collector's gate until its TGID
 * is filtered), analyze, and write DIR/<workload>/<policy>/summary.json with
 * the workload's own report merged in.  Sysctls are restored on every exit.
 *
 * record, analyze and report are called in this process with a built
 * argument table, as perf's __cmd_record() calls cmd_record(): only the
 * workloads are children (the one record starts and holds at its gate, and
 * those beside it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "collector/collector.h"
#include "jsonout.h"
#include "mmlock.h"
#include "mmlock_events.h"
#include "run-source.h"
#include "run.h"
#include "util.h"
#include "workloads/workload.h"

/* What the sysctls were before we touched them, where touched[] says so. */
static int saved[MMLOCK_SYSCTL_NR], touched[MMLOCK_SYSCTL_NR];
static volatile sig_atomic_t interrupted;
/* workloads started beside the traced one (--beside), untraced */
#define RUN_MAX_BESIDE	4
static volatile pid_t beside_child[RUN_MAX_BESIDE];

static int write_sysctl(const char *path, int v)
{
	char buf[16];
	int fd = open(path, O_WRONLY | O_CLOEXEC), len, ok;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d\n", v);
	ok = write(fd, buf, (size_t)len) == len;
	close(fd);
	return ok ? 0 : -1;
}

static void restore_sysctls(void)
{
	int i;

	for (i = 0; i < MMLOCK_SYSCTL_NR; i++) {
		if (!touched[i])
			continue;
		if (write_sysctl(mmlock_sysctls[i].path, saved[i]))
			pr_err("could not restore %s to %d: %s", mmlock_sysctls[i].path, saved[i],
			       strerror(errno));
		touched[i] = 0;
	}
}

/* What became of one workload under one policy. */
enum run_outcome {
	RUN_DONE,		/* recorded and analysed */
	RUN_NO_POLICY,		/* the kernel lacks the policy's sysctl: skipped, no failure */
	RUN_FAILED,
};

/*
 * RUN_DONE with the sysctls set, RUN_NO_POLICY when the kernel has no such
 * knob: decided by looking for the sysctl's file, not from any message.
 */
static enum run_outcome apply_policy(const struct run_policy *p, char **why)
{
	int i;

	for (i = 0; i < MMLOCK_SYSCTL_NR; i++) {
		const struct mmlock_sysctl *sc = &mmlock_sysctls[i];
		int want = run_policy_value(p, sc->id), cur = mmlock_sysctl_read(sc);

		if (cur < 0) {
			if (!want)
				continue;	/* absent means stock behaviour */
			*why = xasprintf("the kernel has no %s (not patched)", sc->path);
			return RUN_NO_POLICY;
		}
		if (cur == want)
			continue;
		if (!touched[i]) {
			saved[i] = cur;
			touched[i] = 1;
		}
		if (write_sysctl(sc->path, want)) {
			*why = xasprintf("cannot write %s: %s", sc->path, strerror(errno));
			return RUN_FAILED;
		}
	}
	return RUN_DONE;
}

/*
 * A stop signal: no further run starts, and the workloads beside stop.
 * While record runs, its own handler catches the signal and stops the
 * capture cleanly; it is passed on here when record returns.
 */
static void on_signal(int sig)
{
	interrupted = sig;
	for (int i = 0; i < RUN_MAX_BESIDE; i++)
		if (beside_child[i] > 0)
			kill(beside_child[i], SIGTERM);
}

/* Start argv and return at once: its pid, or -1. */
static pid_t spawn_child(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		fprintf(stderr, "mmlock run: cannot exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/*
 * Wait for the workloads beside: they ran for the same duration, so they end
 * about when the traced one did; one that has not after 10 s more (reclaim
 * blocked in a drop_caches write) is asked to stop, and waited for.
 */
static void reap_beside(void)
{
	for (int i = 0; i < RUN_MAX_BESIDE; i++) {
		pid_t pid = beside_child[i];
		int status, t;

		if (pid <= 0)
			continue;
		for (t = 0; t < 100 && waitpid(pid, &status, WNOHANG) == 0; t++)
			usleep(100000);
		if (t == 100) {
			kill(pid, SIGTERM);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
		}
		beside_child[i] = 0;
	}
}

/*
 * Another subcommand in this process (perf's __cmd_record): its messages
 * carry its own name, getopt starts afresh for it and for us after it.
 */
static const char *command_enter(const char *prog)
{
	const char *mine = util_prog();

	fflush(stdout);
	util_set_prog(prog);
	optind = 0;
	return mine;
}

static void command_leave(const char *mine, struct run_argv *a)
{
	optind = 0;
	util_set_prog(mine);
	run_argv_free(a);
}

static int run_command(int (*cmd)(int, char **), const char *prog, struct run_argv *a)
{
	const char *mine = command_enter(prog);
	int rc = cmd(a->argc, a->argv);

	command_leave(mine, a);
	return rc;
}

/* analyze, its summary handed back to be merged and written once */
static int run_analyze(struct run_argv *a, json_object **sum)
{
	const char *mine = command_enter("mmlock analyze");
	int rc = cmd_analyze_summary(a->argc, a->argv, sum);

	command_leave(mine, a);
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out,
"usage: mmlock run [options] WORKLOAD...\n"
"\n"
"For each workload and policy: set the fault-policy sysctls, record the\n"
"workload with `mmlock record` (held at a gate until its TGID is filtered),\n"
"analyze it, and write DIR/WORKLOAD/POLICY/summary.json (the workload's own\n"
"report merged under \"workload_report\"); then print a table of verdicts.\n"
"Sysctls are restored afterwards, also when interrupted.\n"
"\n"
"  -P, --policy LIST      stock,no-retry,retry-vma (default: all three)\n"
"  -k, --kernel LABEL     kernel label for the summaries (default: uname -r)\n"
"  -o, --output DIR       where results go (default: out/run)\n"
"  -d, --duration TIME    how long each workload runs (default 5s)\n"
"  -D, --dir DIR          where the workloads' files go (default /tmp)\n"
"  -a, --args 'WL:ARGS'   extra options for workload WL (repeatable), e.g.\n"
"                         -a 'vma-contention:--writer-nice -5 --readers 4'\n"
"  -s, --stack EVENT      record a kernel stack after EVENT (repeatable)\n"
"  -t, --threshold-us N   Type-C threshold of the verdict (default 1000)\n"
"  -b, --beside WORKLOAD  run WORKLOAD (untraced, its options from -a) beside\n"
"                         each traced run, for as long (e.g. reclaim's pressure);\n"
"                         its report in POLICY/beside-WORKLOAD.json (repeatable)\n"
"  -r, --repeat N         N runs of each workload, the policies alternating run\n"
"                         by run (stock no-retry retry-vma stock ...), each in\n"
"                         WORKLOAD/POLICY/run-K/; then min, median and max of\n"
"                         each figure, marked where a policy's range does not\n"
"                         overlap stock's (also DIR/ranges.json)\n"
"      --source KIND      where the events come from: auto (default), kernel\n"
"                         (a kernel with the mmlock series), module\n"
"                         (mmlock_probe.ko, loaded here and unloaded at the end\n"
"                         when it was not loaded before) or stock (the stock\n"
"                         events alone)\n"
"      --module PATH      the mmlock_probe.ko to load (default: $MMLOCK_PROBE_KO,\n"
"                         /lib/modules/$(uname -r)/{extra,updates}/, beside mmlock)\n"
"      --no-module        auto, but never load the module\n"
"      --kernel-src DIR   the running kernel's source: the preflight scans its\n"
"                         fault-path and VMA-lock functions for artificial\n"
"                         delays (msleep, mdelay, schedule_timeout, ...); a\n"
"                         finding flags every summary (default\n"
"                         $MMLOCK_KERNEL_SRC, /lib/modules/RELEASE/source)\n"
"      --preflight        only the preflight: its result as JSON; exit 0 clean,\n"
"                         1 a delay found, 5 no source to scan\n"
"  -h, --help             this text\n"
"\n"
"Exit: 0 every run analyzed; 1 a run failed; 2 usage; 130/143 interrupted.\n"
"A policy the kernel lacks a sysctl for is skipped and says so; the source\n"
"of the events is chosen once and printed, and each row of verdicts.json\n"
"carries it.\n");
}

struct run_opts {
	const char	*kernel, *outdir, *duration, *dir, *threshold, *module, *kernel_src;
	json_object	*kernel_delay;	/* the preflight's result, in every summary */
	int		source, no_module;
	char		**args;		/* "WL:ARGS" */
	int		nr_args;
	char		**stacks;
	int		nr_stacks;
	char		*beside[RUN_MAX_BESIDE];	/* --beside WORKLOAD */
	int		nr_beside;
	int		policy_mask;
	int		repeat;
};

/*
 * The HTML page of the run's summaries, beside verdicts.txt: mmlock report
 * called in-process with a built argv, as perf record is by perf's commands.
 */
static void write_report(const char *outdir)
{
	struct run_argv a = { 0 };
	char *page = xasprintf("%s/report.html", outdir);

	run_argv_push(&a, "report");
	run_argv_push(&a, "-o");
	run_argv_push(&a, page);
	run_argv_push(&a, outdir);
	if (run_command(cmd_report, "mmlock report", &a))
		pr_err("%s: no HTML report (the summaries and verdicts.txt are written)", page);
	free(page);
}

/* --repeat: each figure's spread per workload and policy, printed and in ranges.json */
static void write_ranges(const char *outdir, json_object *rows)
{
	json_object *ranges = run_ranges(rows);
	char *path = xasprintf("%s/ranges.json", outdir);

	putchar('\n');
	run_ranges_print(stdout, ranges);
	if (json_write(path, ranges, 1, 0))
		pr_err("%s: cannot write: %s", path, strerror(errno));
	free(path);
	json_object_put(ranges);
}

/* --preflight: the scan alone, its JSON on stdout */
static int preflight(const struct run_opts *o, const char *extra)
{
	json_object *kd;
	char *line;
	int rc;

	if (extra) {
		pr_err("--preflight takes no WORKLOAD ('%s')", extra);
		return MMLOCK_EXIT_USAGE;
	}
	kd = run_preflight_kernel_delay(o->kernel_src, 1);
	line = run_preflight_describe(kd);
	fprintf(stderr, "mmlock run: %s\n", line);
	printf("%s\n", json_object_to_json_string_ext(kd, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	rc = !json_object_get_boolean(json_path(kd, "checked")) ? MMLOCK_EXIT_ENV :
	     json_object_array_length(json_path(kd, "findings")) ? MMLOCK_EXIT_FAILURE :
	     MMLOCK_EXIT_OK;
	free(line);
	json_object_put(kd);
	return rc;
}

/* One workload under one policy (@run of --repeat, 0 without); fills @row for the table. */
static enum run_outcome run_one(const char *self, const struct run_opts *o,
				const struct run_source *rs, const char *wl,
				const struct run_policy *p, int run, json_object *row)
{
	char *dir = run ? xasprintf("%s/%s/%s/run-%d", o->outdir, wl, p->name, run) :
			  xasprintf("%s/%s/%s", o->outdir, wl, p->name);
	char *trace = xasprintf("%s/trace", dir);
	char *report = xasprintf("%s/workload.json", dir);
	char *summary = xasprintf("%s/summary.json", dir);
	struct run_argv a = { 0 };
	json_object *sum = NULL;
	char *why = NULL;
	enum run_outcome ret = RUN_FAILED;
	int rc, i;

	json_object_object_add(row, "workload", json_object_new_string(wl));
	json_object_object_add(row, "policy", json_object_new_string(p->name));
	if (run)
		json_object_object_add(row, "run", json_object_new_int(run));
	ret = apply_policy(p, &why);
	if (ret != RUN_DONE)
		goto out_row;
	ret = RUN_FAILED;
	if (mkdir_p(dir)) {
		why = xasprintf("cannot create %s: %s", dir, strerror(errno));
		goto out_row;
	}

	for (i = 0; i < o->nr_beside; i++) {
		char *rep = xasprintf("%s/beside-%s.json", dir, o->beside[i]);

		run_argv_workload(&a, self, o->beside[i], o->duration, o->dir, rep, o->args,
				  o->nr_args);
		beside_child[i] = spawn_child(a.argv);
		run_argv_free(&a);
		free(rep);
		if (beside_child[i] < 0) {
			why = xasprintf("cannot start %s beside: %s", o->beside[i], strerror(errno));
			beside_child[i] = 0;
			reap_beside();
			goto out_row;
		}
	}

	run_argv_push(&a, "record");
	run_argv_push(&a, "-o");
	run_argv_push(&a, trace);
	run_argv_push(&a, "--force");
	/* the source chosen once for the whole run, so every capture agrees */
	run_argv_push(&a, "--source");
	run_argv_push(&a, run_source_name(rs->kind));
	for (i = 0; i < o->nr_stacks; i++) {
		run_argv_push(&a, "--stack");
		run_argv_push(&a, o->stacks[i]);
	}
	run_argv_push(&a, "--");
	run_argv_workload(&a, self, wl, o->duration, o->dir, report, o->args, o->nr_args);
	if (interrupted) {	/* stopped while the workloads beside started */
		reap_beside();
		why = xasprintf("interrupted");
		goto out_row;
	}
	if (run)
		fprintf(stderr, "mmlock run: %s under %s, run %d of %d ...\n", wl, p->name, run,
			o->repeat);
	else
		fprintf(stderr, "mmlock run: %s under %s ...\n", wl, p->name);
	rc = run_command(cmd_record, "mmlock record", &a);
	/* the user's stop, caught by record while it ran, is the run's too */
	if (record_stop_signal())
		on_signal(record_stop_signal());
	reap_beside();
	if (o->nr_beside) {
		json_object *names = json_object_new_array();

		for (i = 0; i < o->nr_beside; i++)
			json_object_array_add(names, json_object_new_string(o->beside[i]));
		json_object_object_add(row, "beside", names);
	}
	if (interrupted) {
		why = xasprintf("interrupted");
		goto out_row;
	}
	if (rc) {
		why = xasprintf("mmlock record failed, exit code %d (see %s/trace.status)", rc, trace);
		goto out_row;
	}

	run_argv_push(&a, "analyze");
	run_argv_push(&a, "--workload");
	run_argv_push(&a, wl);
	run_argv_push(&a, "--kernel");
	run_argv_push(&a, o->kernel);
	run_argv_push(&a, "--threshold-us");
	run_argv_push(&a, o->threshold);
	run_argv_push(&a, trace);
	rc = run_analyze(&a, &sum);
	if (rc && rc != MMLOCK_EXIT_PARTIAL) {
		json_object_put(sum);
		why = xasprintf("mmlock analyze failed, exit code %d", rc);
		goto out_row;
	}

	/* merge the workload's report and the policy into the summary, then write it */
	if (run_summary_merge(summary, sum, json_object_from_file(report), p, -1, o->kernel_delay,
			      NULL, row, &why))
		goto out_row;
	ret = RUN_DONE;
out_row:
	if (why)
		json_object_object_add(row, "skipped", json_object_new_string(why));
	run_argv_free(&a);
	free(why);
	free(dir);
	free(trace);
	free(report);
	free(summary);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy",	required_argument, NULL, 'P' },
		{ "kernel",	required_argument, NULL, 'k' },
		{ "output",	required_argument, NULL, 'o' },
		{ "duration",	required_argument, NULL, 'd' },
		{ "dir",	required_argument, NULL, 'D' },
		{ "args",	required_argument, NULL, 'a' },
		{ "stack",	required_argument, NULL, 's' },
		{ "threshold-us", required_argument, NULL, 't' },
		{ "source",	required_argument, NULL, 'S' },
		{ "module",	required_argument, NULL, 'M' },
		{ "no-module",	no_argument,	   NULL, 'N' },
		{ "repeat",	required_argument, NULL, 'r' },
		{ "beside",	required_argument, NULL, 'b' },
		{ "kernel-src",	required_argument, NULL, 'K' },
		{ "preflight",	no_argument,	   NULL, 'F' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct run_opts o = { .outdir = "out/run", .duration = "5s", .dir = "/tmp",
			      .threshold = "1000", .policy_mask = RUN_ALL_POLICIES, .source = RUN_SOURCE_AUTO,
			      .repeat = 1 };
	struct run_source rs;
	struct sigaction sa = { .sa_handler = on_signal };
	char self[4096], *kernel = NULL, *header, *source;
	json_object *rows;
	int c, i, k, failed = 0, preflight_only = 0;
	size_t p;
	ssize_t n;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "P:k:o:d:D:a:s:t:r:b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (!workload_find(optarg)) {
				pr_err("--beside '%s': not a workload ('mmlock workload --list')", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			if (workload_find(optarg)->device_only) {
				pr_err("--beside %s: it runs on an Android device only (%s)", optarg,
				       workload_find(optarg)->device_only);
				return MMLOCK_EXIT_ENV;
			}
			if (o.nr_beside == RUN_MAX_BESIDE) {
				pr_err("--beside: at most %d workloads beside", RUN_MAX_BESIDE);
				return MMLOCK_EXIT_USAGE;
			}
			o.beside[o.nr_beside++] = optarg;
			break;
		case 'r':
			if (parse_u64(optarg, &v) || v < 1 || v > 100) {
				pr_err("--repeat '%s': expected a number of runs from 1 to 100", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			o.repeat = (int)v;
			break;
		case 'P':
			if (run_policy_mask_parse(optarg, &o.policy_mask)) {
				pr_err("--policy '%s': expected a list of stock, no-retry, retry-vma",
				       optarg);
				return MMLOCK_EXIT_USAGE;
			}
			break;
		case 'k':
			o.kernel = optarg;
			break;
		case 'o':
			o.outdir = optarg;
			break;
		case 'd':
			if (parse_duration_us(optarg, &v) || !v) {
				pr_err("--duration '%s': expected a time such as 5s", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			o.duration = optarg;
			break;
		case 'D':
			o.dir = optarg;
			break;
		case 'a':
			if (!strchr(optarg, ':') || !workload_find(strndupa(optarg,
						(size_t)(strchr(optarg, ':') - optarg)))) {
				pr_err("--args '%s': expected WORKLOAD:OPTIONS", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			o.args = xrealloc(o.args, (size_t)(o.nr_args + 1) * sizeof(*o.args));
			o.args[o.nr_args++] = optarg;
			break;
		case 's':
			o.stacks = xrealloc(o.stacks, (size_t)(o.nr_stacks + 1) * sizeof(*o.stacks));
			o.stacks[o.nr_stacks++] = optarg;
			break;
		case 't':
			if (parse_u64(optarg, &v)) {
				pr_err("--threshold-us '%s': expected microseconds", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			o.threshold = optarg;
			break;
		case 'S':
			o.source = run_source_parse(optarg);
			if (o.source < 0) {
				pr_err("--source '%s': expected auto, kernel, module or stock", optarg);
				return MMLOCK_EXIT_USAGE;
			}
			break;
		case 'M':
			o.module = optarg;
			break;
		case 'N':
			o.no_module = 1;
			break;
		case 'K':
			o.kernel_src = optarg;
			break;
		case 'F':
			preflight_only = 1;
			break;
		case 'h':
			usage(stdout);
			return MMLOCK_EXIT_OK;
		default:
			usage(stderr);
			return MMLOCK_EXIT_USAGE;
		}
	}
	if (preflight_only)
		return preflight(&o, optind == argc ? NULL : argv[optind]);
	if (optind == argc) {
		pr_err("no WORKLOAD given; 'mmlock workload --list' lists them");
		return MMLOCK_EXIT_USAGE;
	}
	for (i = optind; i < argc; i++) {
		if (!workload_find(argv[i])) {
			pr_err("'%s' is not a workload; 'mmlock workload --list' lists them", argv[i]);
			return MMLOCK_EXIT_USAGE;
		}
		if (workload_find(argv[i])->device_only) {
			pr_err("%s runs on an Android device only (%s): run it with "
			       "'mmlock device run %s'", argv[i], workload_find(argv[i])->device_only,
			       argv[i]);
			return MMLOCK_EXIT_ENV;
		}
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		pr_err("cannot find my own binary: %s", strerror(errno));
		return MMLOCK_EXIT_ENV;
	}
	self[n] = '\0';
	if (!o.kernel) {
		FILE *f = fopen("/proc/sys/kernel/osrelease", "r");
		char buf[128] = "unknown";

		if (f) {
			if (fgets(buf, sizeof(buf), f))
				buf[strcspn(buf, "\n")] = '\0';
			fclose(f);
		}
		o.kernel = kernel = xstrdup(buf);
	}
	if (mkdir_p(o.outdir)) {
		pr_err("cannot create %s: %s", o.outdir, strerror(errno));
		free(kernel);
		return MMLOCK_EXIT_OUTPUT;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (run_source_choose(&rs, o.source, o.no_module, o.module)) {
		pr_err("--source %s: %s", run_source_name(o.source), rs.load_error);
		run_source_release(&rs);
		free(kernel);
		return MMLOCK_EXIT_ENV;
	}
	source = run_source_describe(&rs);
	fprintf(stderr, "mmlock run: %s\n", source);
	o.kernel_delay = run_preflight_kernel_delay(o.kernel_src, 1);
	{
		char *line = run_preflight_describe(o.kernel_delay);

		fprintf(stderr, "mmlock run: %s\n", line);
		free(line);
	}

	rows = json_object_new_array();
	/* with --repeat the policies alternate run by run (A B C A B C), so a drift
	 * of the machine over time spreads over every policy alike */
	for (i = optind; i < argc && !interrupted; i++) {
		for (k = 1; k <= o.repeat && !interrupted; k++) {
			size_t first = json_object_array_length(rows);

			for (p = 0; p < RUN_NR_POLICIES && !interrupted; p++) {
				json_object *row;

				if (!(o.policy_mask & (1 << p)))
					continue;
				row = json_object_new_object();
				json_object_object_add(row, "event_source", run_source_json(&rs));
				if (run_one(self, &o, &rs, argv[i], &run_policies[p],
					    o.repeat > 1 ? k : 0, row) == RUN_FAILED)
					failed++;
				json_object_array_add(rows, row);
			}
			run_rows_compare_stock(rows, first);
		}
	}
	restore_sysctls();
	if (run_source_release(&rs))
		failed++;

	header = xasprintf("events: %s", source);
	run_table_print(stdout, rows, header);
	if (!interrupted) {
		putchar('\n');
		run_summaries_print(stdout, rows);
	}
	if (run_table_write(o.outdir, rows, header))
		pr_err("%s: cannot write the verdict table: %s", o.outdir, strerror(errno));
	else if (!interrupted && json_object_array_length(rows))
		write_report(o.outdir);
	if (o.repeat > 1)
		write_ranges(o.outdir, rows);
	free(header);
	json_object_put(rows);
	json_object_put(o.kernel_delay);
	free(source);
	free(o.args);
	free(o.stacks);
	free(kernel);
	if (interrupted)
		return 128 + interrupted;
	return failed ? MMLOCK_EXIT_FAILURE : MMLOCK_EXIT_OK;
}
