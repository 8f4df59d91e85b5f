/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP-like harness for C unit tests: one "ok"/"not ok" per check. */
#ifndef MMLOCK_TEST_H
#define MMLOCK_TEST_H

#include <stdio.h>

static int test_failures;

/* @cond is evaluated once: it may have side effects (open, symlink, mknod). */
#define CHECK(cond, ...)						\
	do {								\
		int check_ok_ = !!(cond);				\
									\
		if (check_ok_) {					\
			printf("ok - ");				\
		} else {						\
			printf("not ok - ");				\
			test_failures++;				\
		}							\
		printf(__VA_ARGS__);					\
		if (!check_ok_)						\
			printf("  [%s:%d: %s]", __FILE__, __LINE__, #cond); \
		putchar('\n');						\
	} while (0)

#define TEST_EXIT() (test_failures ? 1 : 0)

#endif /* MMLOCK_TEST_H */
