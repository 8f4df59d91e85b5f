// SPDX-License-Identifier: GPL-2.0
/* Placeholder until the collector lands (issue 4). */
#include "mmlock.h"
#include "util.h"

int cmd_reset(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("not implemented yet");
	return MMLOCK_EXIT_FAILURE;
}
