/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP-like harness for C unit tests: one "ok"/"not ok" per check. */
#ifndef MMLOCK_TEST_H
#define MMLOCK_TEST_H

#include <stdio.h>
#include <stdlib.h>

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

/*
 * test_rewrite_pages() - rewrite a binary capture's ring-buffer pages in place
 * @cap: the capture directory (a writable copy)
 * @page_size: the size of a page
 * @fn: called with each whole page of each raw/cpuNNN.raw in turn, and the
 *	page's index in its file; what it writes into the page is saved
 * @ctx: for @fn
 *
 * Return: 0, or -1 when a file could not be read or written back.
 */
static inline int test_rewrite_pages(const char *cap, long page_size,
				     void (*fn)(unsigned char *pg, long index, void *ctx),
				     void *ctx)
{
	char path[4096];
	int cpu;

	for (cpu = 0; cpu < 1000; cpu++) {
		unsigned char *pages;
		long size, p;
		FILE *f;

		snprintf(path, sizeof(path), "%s/raw/cpu%03d.raw", cap, cpu);
		f = fopen(path, "r+b");
		if (!f)
			break;
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		pages = malloc((size_t)size + 1);
		rewind(f);
		if (!pages || fread(pages, 1, (size_t)size, f) != (size_t)size) {
			free(pages);
			fclose(f);
			return -1;
		}
		for (p = 0; p + page_size <= size; p += page_size)
			fn(pages + p, p / page_size, ctx);
		rewind(f);
		if (fwrite(pages, 1, (size_t)size, f) != (size_t)size) {
			free(pages);
			fclose(f);
			return -1;
		}
		free(pages);
		if (fclose(f))
			return -1;
	}
	return 0;
}

#endif /* MMLOCK_TEST_H */
