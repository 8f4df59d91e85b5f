// SPDX-License-Identifier: GPL-2.0
/*
 * The source's records say whether their comm outlives them: a binary
 * capture's typed record points at one copy per pid, kept until
 * source_close() (comm_stable, which the analysis may compare by pointer);
 * a text line's comm lies in the line, which the next one overwrites.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/source.h"
#include "test.h"

#define BINARY		"tests/fixtures/binary-custom-v1.capture"
#define TEXT		"tests/fixtures/a-and-c-together.trace"
#define MAX_PIDS	64

struct seen {
	int		pid;
	const char	*comm;
	char		*copy;
};

int main(void)
{
	char *bin[] = { BINARY }, *txt[] = { TEXT }, *err = NULL;
	struct seen seen[MAX_PIDS];
	unsigned long events = 0, stable = 0, moved = 0, text = 0, text_stable = 0;
	struct parsed_line pl;
	struct source *src;
	int nr = 0, i;

	src = source_open(bin, 1, NULL, NULL, &err);
	CHECK(src != NULL, "%s opens", BINARY);
	if (!src)
		return TEST_EXIT();
	while (source_next(src, &pl)) {
		if (pl.kind != LINE_EVENT)
			continue;
		events++;
		if (!pl.comm_stable)
			continue;
		stable++;
		for (i = 0; i < nr && seen[i].pid != pl.pid; i++)
			;
		if (i == nr && nr < MAX_PIDS) {
			seen[nr].pid = pl.pid;
			seen[nr].comm = pl.comm;
			seen[nr++].copy = strdup(pl.comm);
		} else if (i < nr && (seen[i].comm != pl.comm || strcmp(seen[i].copy, pl.comm))) {
			moved++;
		}
	}
	/* the first records' text is still what it was when the last one is read */
	for (i = 0; i < nr; i++)
		if (strcmp(seen[i].comm, seen[i].copy))
			moved++;
	source_close(src);
	CHECK(events > 100 && stable == events && nr > 0 && !moved,
	      "a binary capture's typed records keep one unchanged comm per pid "
	      "(%lu events, %lu stable, %d pids, %lu moved)", events, stable, nr, moved);
	for (i = 0; i < nr; i++)
		free(seen[i].copy);

	src = source_open(txt, 1, NULL, NULL, &err);
	CHECK(src != NULL, "%s opens", TEXT);
	if (!src)
		return TEST_EXIT();
	while (source_next(src, &pl)) {
		if (pl.kind != LINE_EVENT)
			continue;
		text++;
		text_stable += pl.comm_stable != 0;
	}
	source_close(src);
	CHECK(text > 0 && !text_stable, "a text line's comm is never stable (%lu events, %lu stable)",
	      text, text_stable);
	return TEST_EXIT();
}
