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
#include <unistd.h>

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

static void usage(FILE *out, const struct workload *w)
{
	int i;

	if (w) {
		fprintf(out, "usage: mmlock workload %s [options]\n\n%s.\n\n%s%s", w->name,
			w->summary, common_help, w->help);
		return;
	}
	fprintf(out, "usage: mmlock workload NAME [options]   |   mmlock workload --list\n\n"
		"workloads:\n");
	for (i = 0; workloads[i]; i++)
		fprintf(out, "  %-16s %s\n", workloads[i]->name, workloads[i]->summary);
	fprintf(out, "\ncommon options:\n%s", common_help);
}

/* The common options followed by the workload's own, for getopt_long. */
static struct option *merge_options(const struct workload *w, const struct option *common)
{
	size_t nc = 0, nw = 0;
	struct option *all;

	while (common[nc].name)
		nc++;
	while (w->options && w->options[nw].name)
		nw++;
	all = xcalloc(nc + nw + 1, sizeof(*all));
	memcpy(all, common, nc * sizeof(*all));
	if (nw)
		memcpy(all + nc, w->options, nw * sizeof(*all));
	return all;
}

static const char *option_name(const struct workload *w, int val)
{
	int i;

	for (i = 0; w->options && w->options[i].name; i++)
		if (w->options[i].val == val)
			return w->options[i].name;
	return "?";
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
	int opt, rc, ret = MMLOCK_EXIT_OK;
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
	priv = w->init();
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
			if (w->parse(priv, opt, optarg)) {
				pr_err("%s: bad value '%s' for --%s; see 'mmlock workload %s --help'",
				       w->name, optarg ? optarg : "", option_name(w, opt), w->name);
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
	rc = w->run(priv, &c);

	report = json_object_new_object();
	json_object_object_add(report, "workload", json_object_new_string(w->name));
	json_object_object_add(report, "tgid", json_object_new_int((int)getpid()));
	json_object_object_add(report, "status", json_object_new_string(rc ? "failed" : "ok"));
	json_object_object_add(report, "duration_ms",
			       json_object_new_uint64(c.duration_us / 1000));
	json_object_object_add(report, "compiler_flags", json_object_new_string(MMLOCK_BUILD_CFLAGS));
	wl_kernel_facts(report);
	w->report(priv, report);
	{
		const char *text = json_object_to_json_string_ext(report,
				JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
		FILE *f = c.report_path ? fopen(c.report_path, "w") : stdout;

		if (!f || fprintf(f, "%s\n", text) < 0 || (f != stdout && fclose(f))) {
			pr_err("cannot write the report to %s: %s",
			       c.report_path ? c.report_path : "standard output", strerror(errno));
			ret = MMLOCK_EXIT_OUTPUT;
		}
	}
	json_object_put(report);
	if (rc && ret == MMLOCK_EXIT_OK)
		ret = MMLOCK_EXIT_FAILURE;
out_fini:
	free(opts);
	w->fini(priv);
	return ret;
}
