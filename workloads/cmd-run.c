// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock run WORKLOAD... : for each workload and fault policy, set the
 * sysctls, record the workload (held at the collector's gate until its TGID
 * is filtered), analyze, and write DIR/<workload>/<policy>/summary.json with
 * the workload's own report merged in.  Sysctls are restored on every exit.
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

#include "mmlock.h"
#include "run-source.h"
#include "util.h"
#include "workload.h"

struct policy {
	const char	*name;
	int		no_retry, retry_vma_lock;
};

static const struct policy policies[] = {
	{ "stock",	0, 0 },
	{ "no-retry",	1, 0 },
	{ "retry-vma",	0, 1 },
};

static const char *const sysctl_paths[2] = {
	"/proc/sys/vm/filemap_fault_no_retry",
	"/proc/sys/vm/fault_retry_vma_lock",
};

/* What the sysctls were before we touched them: -1 absent or untouched. */
static int saved[2] = { -1, -1 };
static volatile sig_atomic_t interrupted;
static volatile pid_t current_child;

static int read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

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

	for (i = 0; i < 2; i++) {
		if (saved[i] < 0)
			continue;
		if (write_sysctl(sysctl_paths[i], saved[i]))
			pr_err("could not restore %s to %d: %s", sysctl_paths[i], saved[i],
			       strerror(errno));
		saved[i] = -1;
	}
}

static int apply_policy(const struct policy *p, char **why)
{
	int want[2] = { p->no_retry, p->retry_vma_lock }, i;

	for (i = 0; i < 2; i++) {
		int cur = read_sysctl(sysctl_paths[i]);

		if (cur < 0) {
			if (!want[i])
				continue;	/* absent means stock behaviour */
			*why = xasprintf("the kernel has no %s (not patched)", sysctl_paths[i]);
			return -1;
		}
		if (cur == want[i])
			continue;
		if (saved[i] < 0)
			saved[i] = cur;
		if (write_sysctl(sysctl_paths[i], want[i])) {
			*why = xasprintf("cannot write %s: %s", sysctl_paths[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void on_signal(int sig)
{
	interrupted = sig;
	if (current_child > 0)
		kill(current_child, SIGTERM);	/* the recorder stops cleanly on it */
}

/* Run argv, wait for it; its exit code, or 128+signal. */
static int run_child(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		fprintf(stderr, "mmlock run: cannot exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	current_child = pid;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			current_child = 0;
			return -1;
		}
	}
	current_child = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
"      --source KIND      where the events come from: auto (default), kernel\n"
"                         (a kernel with the mmlock series), module\n"
"                         (mmlock_probe.ko, loaded here and unloaded at the end\n"
"                         when it was not loaded before) or stock (the stock\n"
"                         events alone)\n"
"      --module PATH      the mmlock_probe.ko to load (default: $MMLOCK_PROBE_KO,\n"
"                         /lib/modules/$(uname -r)/{extra,updates}/, beside mmlock)\n"
"      --no-module        auto, but never load the module\n"
"  -h, --help             this text\n"
"\n"
"Exit: 0 every run analyzed; 1 a run failed; 2 usage; 130/143 interrupted.\n"
"A policy the kernel lacks a sysctl for is skipped and says so; the source\n"
"of the events is chosen once and printed, and each row of verdicts.json\n"
"carries it.\n");
}

struct run_opts {
	const char	*kernel, *outdir, *duration, *dir, *threshold, *module;
	int		source, no_module;
	char		**args;		/* "WL:ARGS" */
	int		nr_args;
	char		**stacks;
	int		nr_stacks;
	int		policy_mask;
};

static void add_split(char ***argv, int *argc, const char *s)
{
	char *copy = xstrdup(s), *tok, *save = NULL;

	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		*argv = xrealloc(*argv, (size_t)(*argc + 2) * sizeof(**argv));
		(*argv)[(*argc)++] = xstrdup(tok);
		(*argv)[*argc] = NULL;
	}
	free(copy);
}

static void push(char ***argv, int *argc, const char *s)
{
	*argv = xrealloc(*argv, (size_t)(*argc + 2) * sizeof(**argv));
	(*argv)[(*argc)++] = xstrdup(s);
	(*argv)[*argc] = NULL;
}

static void free_argv(char **argv)
{
	int i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* One workload under one policy; fills @row for the table. */
static int run_one(const char *self, const struct run_opts *o, const char *wl,
		   const struct policy *p, json_object *row)
{
	char *dir = xasprintf("%s/%s/%s", o->outdir, wl, p->name);
	char *trace = xasprintf("%s/trace", dir);
	char *report = xasprintf("%s/workload.json", dir);
	char *summary = xasprintf("%s/summary.json", dir);
	char **argv = NULL, *why = NULL;
	int argc = 0, rc, i, ret = -1;
	json_object *sum, *rep;

	json_object_object_add(row, "workload", json_object_new_string(wl));
	json_object_object_add(row, "policy", json_object_new_string(p->name));
	if (apply_policy(p, &why))
		goto out_row;
	if (mkdir_p(dir)) {
		why = xasprintf("cannot create %s: %s", dir, strerror(errno));
		goto out_row;
	}

	push(&argv, &argc, self);
	push(&argv, &argc, "record");
	push(&argv, &argc, "-o");
	push(&argv, &argc, trace);
	push(&argv, &argc, "--force");
	for (i = 0; i < o->nr_stacks; i++) {
		push(&argv, &argc, "--stack");
		push(&argv, &argc, o->stacks[i]);
	}
	push(&argv, &argc, "--");
	push(&argv, &argc, self);
	push(&argv, &argc, "workload");
	push(&argv, &argc, wl);
	push(&argv, &argc, "-q");
	push(&argv, &argc, "-d");
	push(&argv, &argc, o->duration);
	push(&argv, &argc, "-D");
	push(&argv, &argc, o->dir);
	push(&argv, &argc, "--report");
	push(&argv, &argc, report);
	for (i = 0; i < o->nr_args; i++) {
		size_t n = strlen(wl);

		if (!strncmp(o->args[i], wl, n) && o->args[i][n] == ':')
			add_split(&argv, &argc, o->args[i] + n + 1);
	}
	fprintf(stderr, "mmlock run: %s under %s ...\n", wl, p->name);
	rc = run_child(argv);
	free_argv(argv);
	argv = NULL;
	argc = 0;
	if (interrupted) {
		why = xasprintf("interrupted");
		goto out_row;
	}
	if (rc) {
		why = xasprintf("mmlock record exited %d (see %s/trace.status)", rc, trace);
		goto out_row;
	}

	push(&argv, &argc, self);
	push(&argv, &argc, "analyze");
	push(&argv, &argc, "--workload");
	push(&argv, &argc, wl);
	push(&argv, &argc, "--kernel");
	push(&argv, &argc, o->kernel);
	push(&argv, &argc, "--threshold-us");
	push(&argv, &argc, o->threshold);
	push(&argv, &argc, "-o");
	push(&argv, &argc, summary);
	push(&argv, &argc, "--pretty");
	push(&argv, &argc, trace);
	rc = run_child(argv);
	free_argv(argv);
	argv = NULL;
	if (rc && rc != MMLOCK_EXIT_PARTIAL) {
		why = xasprintf("mmlock analyze exited %d", rc);
		goto out_row;
	}

	/* merge the workload's report and the policy into the summary */
	sum = json_object_from_file(summary);
	rep = json_object_from_file(report);
	if (!sum) {
		why = xasprintf("%s: unreadable summary", summary);
		json_object_put(rep);
		goto out_row;
	}
	json_object_object_add(sum, "workload_report", rep);
	{
		json_object *pol = json_object_new_object();

		json_object_object_add(pol, "name", json_object_new_string(p->name));
		json_object_object_add(pol, "filemap_fault_no_retry",
				       json_object_new_int(p->no_retry));
		json_object_object_add(pol, "fault_retry_vma_lock",
				       json_object_new_int(p->retry_vma_lock));
		json_object_object_add(sum, "policy", pol);
	}
	if (json_object_to_file_ext(summary, sum, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE)) {
		why = xasprintf("%s: cannot write: %s", summary, json_util_get_last_err());
		json_object_put(sum);
		goto out_row;
	}
	{
		json_object *v, *c;

		if (json_object_object_get_ex(sum, "verdict", &v) &&
		    json_object_object_get_ex(v, "code", &c))
			json_object_object_add(row, "verdict", json_object_get(c));
		if (json_object_object_get_ex(sum, "contention", &c)) {
			static const char *const keys[] = {
				"type_a_count", "type_b_count", "type_c_count", "type_c_score_us"
			};
			size_t k;

			for (k = 0; k < ARRAY_SIZE(keys); k++) {
				json_object *x;

				if (json_object_object_get_ex(c, keys[k], &x))
					json_object_object_add(row, keys[k], json_object_get(x));
			}
		}
		if (json_object_object_get_ex(sum, "capture", &c) &&
		    json_object_object_get_ex(c, "lost_events", &v))
			json_object_object_add(row, "lost_events", json_object_get(v));
		if (json_object_object_get_ex(rep, "result", &c) &&
		    json_object_object_get_ex(c, "faults", &c) &&
		    json_object_object_get_ex(c, "per_mib_read", &c) &&
		    json_object_object_get_ex(c, "total", &v))
			json_object_object_add(row, "faults_per_mib", json_object_get(v));
	}
	json_object_put(sum);
	json_object_object_add(row, "summary", json_object_new_string(summary));
	ret = 0;
out_row:
	if (why)
		json_object_object_add(row, "skipped", json_object_new_string(why));
	free_argv(argv);
	free(why);
	free(dir);
	free(trace);
	free(report);
	free(summary);
	return ret;
}

static const char *cell(json_object *row, const char *key, char *buf, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(row, key, &v))
		return "-";
	if (!v)
		return "null";
	snprintf(buf, len, "%s", json_object_get_string(v));
	return buf;
}

/*
 * Faults per MiB read beside stock's, for each other policy of the same
 * workload: no-retry maps one page per major fault where stock's retry redoes
 * fault-around, so a difference here is that artefact, not contention.
 */
static void compare_with_stock(json_object *rows, size_t first)
{
	size_t i, n = json_object_array_length(rows);
	json_object *stock = NULL, *v;
	double base;

	for (i = first; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i), *p;

		if (json_object_object_get_ex(r, "policy", &p) &&
		    !strcmp(json_object_get_string(p), "stock") &&
		    json_object_object_get_ex(r, "faults_per_mib", &v) && v)
			stock = r;
	}
	if (!stock)
		return;
	json_object_object_get_ex(stock, "faults_per_mib", &v);
	base = json_object_get_double(v);
	for (i = first; i < n && base > 0; i++) {
		json_object *r = json_object_array_get_idx(rows, i);
		char buf[32];

		if (r == stock || !json_object_object_get_ex(r, "faults_per_mib", &v) || !v)
			continue;
		snprintf(buf, sizeof(buf), "%+.1f", (json_object_get_double(v) / base - 1) * 100);
		json_object_object_add(r, "faults_per_mib_vs_stock_pct",
				       json_object_new_double_s(strtod(buf, NULL), buf));
	}
}

static void print_table(FILE *f, json_object *rows, const char *source)
{
	size_t i, n = json_object_array_length(rows);
	char b[10][64];

	fprintf(f, "events: %s\n", source);
	fprintf(f, "%-16s %-10s %-30s %6s %6s %6s %10s %6s %8s %8s\n", "workload", "policy",
		"verdict", "A", "B", "C", "C_us", "lost", "flt/MiB", "vs_stock");
	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i), *s;

		if (json_object_object_get_ex(r, "skipped", &s)) {
			fprintf(f, "%-16s %-10s skipped: %s\n", cell(r, "workload", b[0], 64),
				cell(r, "policy", b[1], 64), json_object_get_string(s));
			continue;
		}
		fprintf(f, "%-16s %-10s %-30s %6s %6s %6s %10s %6s %8s %8s\n",
			cell(r, "workload", b[0], 64), cell(r, "policy", b[1], 64),
			cell(r, "verdict", b[2], 64), cell(r, "type_a_count", b[3], 64),
			cell(r, "type_b_count", b[4], 64), cell(r, "type_c_count", b[5], 64),
			cell(r, "type_c_score_us", b[6], 64), cell(r, "lost_events", b[7], 64),
			cell(r, "faults_per_mib", b[8], 64),
			cell(r, "faults_per_mib_vs_stock_pct", b[9], 64));
	}
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
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct run_opts o = { .outdir = "out/run", .duration = "5s", .dir = "/tmp",
			      .threshold = "1000", .policy_mask = 7, .source = RUN_SOURCE_AUTO };
	struct run_source rs;
	struct sigaction sa = { .sa_handler = on_signal };
	char self[4096], *kernel = NULL, *table_path, *source;
	json_object *rows;
	int c, i, failed = 0;
	size_t p;
	ssize_t n;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "P:k:o:d:D:a:s:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'P': {
			char *copy = xstrdup(optarg), *tok, *save = NULL;

			o.policy_mask = 0;
			for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				for (p = 0; p < ARRAY_SIZE(policies); p++)
					if (!strcmp(tok, policies[p].name))
						o.policy_mask |= 1 << p;
				if (!(o.policy_mask & 7) || (p == ARRAY_SIZE(policies) &&
				    strcmp(tok, "stock") && strcmp(tok, "no-retry") &&
				    strcmp(tok, "retry-vma"))) {
					pr_err("--policy: '%s' is not stock, no-retry or retry-vma", tok);
					free(copy);
					return MMLOCK_EXIT_USAGE;
				}
			}
			free(copy);
			break;
		}
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
		case 'h':
			usage(stdout);
			return MMLOCK_EXIT_OK;
		default:
			usage(stderr);
			return MMLOCK_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		pr_err("no WORKLOAD given; 'mmlock workload --list' lists them");
		return MMLOCK_EXIT_USAGE;
	}
	for (i = optind; i < argc; i++) {
		if (!workload_find(argv[i])) {
			pr_err("'%s' is not a workload; 'mmlock workload --list' lists them", argv[i]);
			return MMLOCK_EXIT_USAGE;
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

	rows = json_object_new_array();
	for (i = optind; i < argc && !interrupted; i++) {
		size_t first = json_object_array_length(rows);

		for (p = 0; p < ARRAY_SIZE(policies) && !interrupted; p++) {
			json_object *row;

			if (!(o.policy_mask & (1 << p)))
				continue;
			row = json_object_new_object();
			json_object_object_add(row, "event_source", run_source_json(&rs));
			if (run_one(self, &o, argv[i], &policies[p], row) &&
			    !strstr(json_object_to_json_string(row), "not patched"))
				failed++;
			json_object_array_add(rows, row);
		}
		compare_with_stock(rows, first);
	}
	restore_sysctls();
	if (run_source_release(&rs))
		failed++;

	print_table(stdout, rows, source);
	table_path = xasprintf("%s/verdicts.json", o.outdir);
	if (json_object_to_file_ext(table_path, rows, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE))
		pr_err("%s: cannot write: %s", table_path, json_util_get_last_err());
	free(table_path);
	table_path = xasprintf("%s/verdicts.txt", o.outdir);
	{
		FILE *f = fopen(table_path, "w");

		if (f) {
			print_table(f, rows, source);
			fclose(f);
		}
	}
	free(table_path);
	json_object_put(rows);
	free(source);
	free(o.args);
	free(o.stacks);
	free(kernel);
	if (interrupted)
		return 128 + interrupted;
	return failed ? MMLOCK_EXIT_FAILURE : MMLOCK_EXIT_OK;
}
