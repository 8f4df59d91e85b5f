// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock reset: remove the tracing instances that a killed `mmlock record`
 * left behind (mmlock-PID where PID is no longer an mmlock process).  With
 * --all, every mmlock-PID instance, including those of running recordings.
 * `mmlock record` does the same for dead PIDs each time it starts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "mmlock.h"
#include "util.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mmlock reset [--all] [--tracefs DIR]\n"
		"\n"
		"Remove tracing instances mmlock-PID left by a killed mmlock record.\n"
		"\n"
		"  -a, --all          also those of mmlock processes still running\n"
		"  -t, --tracefs DIR  tracefs mount (default /sys/kernel/tracing or\n"
		"                     $MMLOCK_TRACEFS)\n"
		"  -h, --help         this text\n");
}

static void report(const char *name, void *ctx)
{
	int *n = ctx;

	printf("removed %s\n", name);
	(*n)++;
}

int cmd_reset(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all",	no_argument,		NULL, 'a' },
		{ "tracefs",	required_argument,	NULL, 't' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tracefs = getenv("MMLOCK_TRACEFS");
	char *dir = NULL;
	int c, all = 0, n = 0, ret;

	if (tracefs && !*tracefs)
		tracefs = NULL;
	optind = 0;	/* getopt starts afresh, also when called in-process */
	while ((c = getopt_long(argc, argv, "at:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = 1;
			break;
		case 't':
			tracefs = optarg;
			break;
		case 'h':
			usage(stdout);
			return MMLOCK_EXIT_OK;
		default:
			usage(stderr);
			return MMLOCK_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return MMLOCK_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		pr_err("must run as root: tracefs instances are root-only");
		return MMLOCK_EXIT_ENV;
	}
	if (collector_find_tracefs(tracefs, &dir)) {
		pr_err("no tracefs at %s: %s", tracefs ? tracefs : "/sys/kernel/tracing",
		       strerror(errno));
		return MMLOCK_EXIT_ENV;
	}
	ret = collector_remove_stale(dir, all, report, &n);
	if (ret < 0) {
		pr_err("could not remove every mmlock instance in %s/instances: %s", dir,
		       strerror(errno));
		free(dir);
		return MMLOCK_EXIT_FAILURE;
	}
	if (!n)
		printf("no stale mmlock instance\n");
	free(dir);
	return MMLOCK_EXIT_OK;
}
