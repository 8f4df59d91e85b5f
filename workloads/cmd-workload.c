// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock workload NAME [options]: run one load generator and print what it
 * did, under which parameters and on which kernel, as JSON.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jsonout.h"
#include "mmlock.h"
#include "util.h"
#include "workload.h"

#ifndef MMLOCK_BUILD_CFLAGS
#define MMLOCK_BUILD_CFLAGS "unknown"
#endif

const struct workload *const workloads[] = {
	&wl_vma_contention,
	&wl_fork_fault,
	&wl_mmap_churn,
	&wl_maps_reader,
	&wl_reclaim,
	&wl_extmem,
	&wl_app_rotation,
	NULL
};

const struct workload *workload_find(const char *name)
{
	int i;

	for (i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

static const char common_help[] =
"  -d, --duration TIME   how long to run: 10s, 500ms, 2m (10s)\n"
"  -D, --dir DIR         where the workload's files go (/tmp)\n"
"  -g, --gate            print the TGID, then stop until SIGCONT (so a tracer can\n"
"                        filter on it before any event)\n"
"  -r, --report FILE     write the JSON report there (default: standard output)\n"
"  -q, --quiet           no progress lines on standard error\n"
"  -h, --help            this text\n";

static long *param_ptr(void *state, const struct wl_param *p)
{
	return (long *)((char *)state + p->offset);
}

static void usage(FILE *out, const struct workload *w)
{
	int i;

	if (w) {
		const struct wl_param *p;

		fprintf(out, "usage: mmlock workload %s [options]\n\n%s.\n\n%s", w->name,
			w->summary, common_help);
		for (p = w->params; p->name; p++)
			fprintf(out, "      --%-18s %s (%ld; %ld..%ld)\n", p->name, p->help,
				p->dflt, p->lo, p->hi);
		for (const struct wl_sparam *sp = w->sparams; sp && sp->name; sp++)
			fprintf(out, "      --%-18s %s (%s)\n", sp->name, sp->help,
				sp->dflt ? sp->dflt : "none");
		if (w->device_only)
			fprintf(out, "\nOn an Android device only: %s.\n", w->device_only);
		return;
	}
	fprintf(out, "usage: mmlock workload NAME [options]   |   mmlock workload --list\n\n"
		"workloads:\n");
	for (i = 0; workloads[i]; i++)
		fprintf(out, "  %-16s %s\n", workloads[i]->name, workloads[i]->summary);
	fprintf(out, "\ncommon options:\n%s", common_help);
}

#define PARAM_OPT_BASE 1000
#define SPARAM_OPT_BASE 2000

static const char **sparam_ptr(void *state, const struct wl_sparam *p)
{
	return (const char **)(void *)((char *)state + p->offset);
}

static size_t nr_sparams(const struct workload *w)
{
	size_t n = 0;

	while (w->sparams && w->sparams[n].name)
		n++;
	return n;
}

/* The common options followed by one per parameter (val = base + index). */
static uint64_t elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	int64_t ms = (int64_t)(b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000;

	return ms < 0 ? 0 : (uint64_t)ms;
}

static struct option *merge_options(const struct workload *w, const struct option *common)
{
	size_t nc = 0, np = 0, ns = nr_sparams(w), i;
	struct option *all;

	while (common[nc].name)
		nc++;
	while (w->params[np].name)
		np++;
	all = xcalloc(nc + np + ns + 1, sizeof(*all));
	memcpy(all, common, nc * sizeof(*all));
	for (i = 0; i < np; i++)
		all[nc + i] = (struct option){ w->params[i].name, required_argument, NULL,
					       PARAM_OPT_BASE + (int)i };
	for (i = 0; i < ns; i++)
		all[nc + np + i] = (struct option){ w->sparams[i].name, required_argument, NULL,
						    SPARAM_OPT_BASE + (int)i };
	return all;
}

static int set_param(void *state, const struct wl_param *p, const char *arg)
{
	int64_t v;

	if (parse_i64(arg, &v) || v < p->lo || v > p->hi) {
		pr_err("--%s '%s': expected a whole number from %ld to %ld", p->name, arg, p->lo,
		       p->hi);
		return -1;
	}
	*param_ptr(state, p) = (long)v;
	return 0;
}

static json_object *params_json(const struct workload *w, void *state)
{
	json_object *o = json_object_new_object();
	const struct wl_param *p;

	for (p = w->params; p->name; p++) {
		char *key = xstrdup(p->name), *c;

		for (c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		json_object_object_add(o, key, json_object_new_int64(*param_ptr(state, p)));
		free(key);
	}
	for (const struct wl_sparam *sp = w->sparams; sp && sp->name; sp++) {
		char *key = xstrdup(sp->name), *c;
		const char *v = *sparam_ptr(state, sp);

		for (c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
		free(key);
	}
	return o;
}

int cmd_workload(int argc, char **argv)
{
	static const struct option common[] = {
		{ "duration",	required_argument,	NULL, 'd' },
		{ "dir",	required_argument,	NULL, 'D' },
		{ "gate",	no_argument,		NULL, 'g' },
		{ "report",	required_argument,	NULL, 'r' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "list",	no_argument,		NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	struct workload_common c = { .duration_us = 10000000, .dir = "/tmp" };
	const struct workload *w;
	json_object *report;
	struct option *opts;
	void *priv;
	int opt, rc, i, ret = MMLOCK_EXIT_OK;
	struct timespec t0, t1;
	uint64_t us;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "--list") || !strcmp(argv[1], "-h") ||
				  !strcmp(argv[1], "--help"))) {
			usage(stdout, NULL);
			return MMLOCK_EXIT_OK;
		}
		usage(stderr, NULL);
		return MMLOCK_EXIT_USAGE;
	}
	w = workload_find(argv[1]);
	if (!w) {
		pr_err("'%s' is not a workload; 'mmlock workload --list' lists them", argv[1]);
		return MMLOCK_EXIT_USAGE;
	}
	priv = xcalloc(1, w->size);
	for (i = 0; w->params[i].name; i++)
		*param_ptr(priv, &w->params[i]) = w->params[i].dflt;
	for (i = 0; i < (int)nr_sparams(w); i++)
		*sparam_ptr(priv, &w->sparams[i]) = w->sparams[i].dflt;
	opts = merge_options(w, common);
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, "d:D:gr:qhl", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (parse_duration_us(optarg, &us) || !us) {
				pr_err("--duration '%s': expected a time such as 10s or 500ms", optarg);
				ret = MMLOCK_EXIT_USAGE;
				goto out_fini;
			}
			c.duration_us = us;
			break;
		case 'D':
			c.dir = optarg;
			break;
		case 'g':
			c.gate = 1;
			break;
		case 'r':
			c.report_path = optarg;
			break;
		case 'q':
			c.quiet = 1;
			break;
		case 'h':
		case 'l':
			usage(stdout, w);
			goto out_fini;
		case '?':
			usage(stderr, w);
			ret = MMLOCK_EXIT_USAGE;
			goto out_fini;
		default:
			if (opt >= SPARAM_OPT_BASE) {
				*sparam_ptr(priv, &w->sparams[opt - SPARAM_OPT_BASE]) = optarg;
				break;
			}
			if (set_param(priv, &w->params[opt - PARAM_OPT_BASE], optarg)) {
				ret = MMLOCK_EXIT_USAGE;
				goto out_fini;
			}
		}
	}
	if (optind != argc) {
		pr_err("unexpected argument '%s'", argv[optind]);
		ret = MMLOCK_EXIT_USAGE;
		goto out_fini;
	}

	if (!c.quiet || c.gate)
		fprintf(stderr, "%s: tgid %d%s\n", w->name, (int)getpid(),
			c.gate ? ", stopped at the gate until SIGCONT" : "");
	if (c.gate)
		raise(SIGSTOP);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = w->run(priv, &c);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	report = json_object_new_object();
	json_object_object_add(report, "workload", json_object_new_string(w->name));
	json_object_object_add(report, "tgid", json_object_new_int((int)getpid()));
	json_object_object_add(report, "status", json_object_new_string(rc ? "failed" : "ok"));
	/*
	 * What the run lasted, not what was asked: a workload may end early
	 * (extmem runs its probe's tiers once, a failure stops any of them).
	 */
	json_object_object_add(report, "duration_ms",
			       json_object_new_uint64(elapsed_ms(&t0, &t1)));
	json_object_object_add(report, "requested_duration_ms",
			       json_object_new_uint64(c.duration_us / 1000));
	json_object_object_add(report, "compiler_flags", json_object_new_string(MMLOCK_BUILD_CFLAGS));
	wl_kernel_facts(report);
	json_object_object_add(report, "parameters", params_json(w, priv));
	w->report(priv, report);
	/* like every output: complete or not at all, never through a planted link */
	if (json_write(c.report_path, report, 1, 0)) {
		pr_err("cannot write the report to %s: %s",
		       c.report_path ? c.report_path : "standard output", strerror(errno));
		ret = MMLOCK_EXIT_OUTPUT;
	}
	json_object_put(report);
	if (rc && ret == MMLOCK_EXIT_OK)
		ret = MMLOCK_EXIT_FAILURE;
out_fini:
	free(opts);
	w->fini(priv);
	free(priv);
	return ret;
}
