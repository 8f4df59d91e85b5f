// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock: why page faults and VMA writers wait on each other.
 * The entry point only dispatches to a subcommand, perf/trace-cmd style.
 */
#include <stdio.h>
#include <string.h>

#include "mmlock.h"
#include "util.h"

struct cmd_struct {
	const char	*name;
	int		(*fn)(int argc, char **argv);
	const char	*summary;
};

static const struct cmd_struct commands[] = {
	{ "record",	cmd_record,	"stream trace events into line-complete chunks" },
	{ "convert",	cmd_convert,	"decode a binary capture (record --binary) into text chunks" },
	{ "analyze",	cmd_analyze,	"pair intervals, classify Type-A/B/C, write the summary JSON" },
	{ "compare",	cmd_compare,	"summaries side by side: kernels, fault policies" },
	{ "export",	cmd_export,	"a capture as a Perfetto / chrome://tracing trace: slices, pair flows" },
	{ "report",	cmd_report,	"one self-contained HTML page of summaries: verdicts, plots, pairs" },
	{ "events",	cmd_events,	"list the event contract, or check it against the kernel" },
	{ "reset",	cmd_reset,	"remove tracing instances left by a killed mmlock record" },
	{ "run",	cmd_run,	"record and analyze workloads under the fault policies" },
	{ "device",	cmd_device,	"check a phone or board (adb, ssh) and run the workloads there" },
	{ "workload",	cmd_workload,	"run a load generator (vma-contention, ...) and report it" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: mmlock [--help] [--version] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'mmlock COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	const char *name;
	size_t i;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return MMLOCK_EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return close_stdout() ? MMLOCK_EXIT_OUTPUT : MMLOCK_EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("mmlock %s\n", MMLOCK_VERSION);
		return close_stdout() ? MMLOCK_EXIT_OUTPUT : MMLOCK_EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(commands[i].name, name))
			continue;
		util_set_prog(xasprintf("mmlock %s", name));
		ret = commands[i].fn(argc - 1, argv + 1);
		if (close_stdout() && ret == MMLOCK_EXIT_OK)
			ret = MMLOCK_EXIT_OUTPUT;
		return ret;
	}
	fprintf(stderr, "mmlock: '%s' is not a command; see 'mmlock --help'\n", name);
	return MMLOCK_EXIT_USAGE;
}
