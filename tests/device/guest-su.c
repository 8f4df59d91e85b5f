// SPDX-License-Identifier: GPL-2.0
/*
 * su for the arm64 device guest (tests/device): the two spellings mmlock
 * device tries on a phone, `su -c CMD` (Magisk, KernelSU) and `su 0 CMD...`
 * (AOSP userdebug).  Installed setuid root; test-only.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (setgid(0) || setuid(0)) {
		perror("su");
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "-c")) {
		execl("/bin/sh", "sh", "-c", argv[2], (char *)NULL);
	} else if (argc >= 3 && !strcmp(argv[1], "0")) {
		execvp(argv[2], argv + 2);
	} else {
		fprintf(stderr, "usage: su -c CMD | su 0 COMMAND [ARGS...]\n");
		return 2;
	}
	perror("su");
	return 127;
}
