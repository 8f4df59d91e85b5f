/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP-like harness for C unit tests: one "ok"/"not ok" per check. */
#ifndef MMLOCK_TEST_H
#define MMLOCK_TEST_H

#include <stdio.h>

static int test_failures;

#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			printf("ok - ");				\
		} else {						\
			printf("not ok - ");				\
			test_failures++;				\
		}							\
		printf(__VA_ARGS__);					\
		if (!(cond))						\
			printf("  [%s:%d: %s]", __FILE__, __LINE__, #cond); \
		putchar('\n');						\
	} while (0)

#define TEST_EXIT() (test_failures ? 1 : 0)

#endif /* MMLOCK_TEST_H */
