// SPDX-License-Identifier: GPL-2.0
/*
 * source-read: a capture read through analyzer/source.h and nothing else,
 * for bench/analyze/binary (the reading's own CPU, without the analysis)
 * and for tests: prints the records by kind.
 *
 *   source-read INPUT...
 * Output: "records N events N lost-lines N stacks N frames N malformed N other N"
 */
#include <stdio.h>
#include <stdlib.h>

#include "analyzer/source.h"
#include "util.h"

int main(int argc, char **argv)
{
	unsigned long long n[LINE_MALFORMED + 1] = { 0 }, all = 0;
	struct parsed_line pl;
	struct source *src;
	char *err = NULL;

	if (argc < 2) {
		fprintf(stderr, "usage: source-read INPUT...\n");
		return 2;
	}
	src = source_open(argv + 1, argc - 1, NULL, NULL, &err);
	if (!src) {
		fprintf(stderr, "source-read: %s\n", err);
		free(err);
		return 3;
	}
	while (source_next(src, &pl)) {
		all++;
		n[pl.kind]++;
	}
	source_close(src);
	printf("records %llu events %llu lost-lines %llu stacks %llu frames %llu malformed %llu "
	       "other %llu\n", all, n[LINE_EVENT], n[LINE_LOST], n[LINE_STACK], n[LINE_FRAME],
	       n[LINE_MALFORMED], n[LINE_HEADER]);
	return 0;
}
