// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the analyzer (issue 2). */
#include "mmlock.h"
#include "util.h"

int cmd_analyze(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("not implemented yet");
	return MMLOCK_EXIT_FAILURE;
}
