// SPDX-License-Identifier: GPL-2.0
/*
 * The source's records say whether their comm outlives them: a binary
 * capture's typed record points at one copy per pid, kept until
 * source_close() (comm_stable, which the analysis may compare by pointer);
 * a text line's comm lies in the line, which the next one overwrites.
 *
 * And each record gets its own pid's comm and tgid where many pids share
 * their low bits (the decoder's tgid and the source's pid caches are
 * indexed by them): a copy of a capture whose records' pids are rewritten
 * to PID + 0, 512, 256, 768 in turn, with saved_tgids and saved_cmdlines naming each
 * (some of them with one tgid).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/source.h"
#include "capture.h"
#include "test.h"

#define BINARY		"tests/fixtures/binary-custom-v1.capture"
#define TEXT		"tests/fixtures/a-and-c-together.trace"
#define MAX_PIDS	64
#define STACKS		"tests/fixtures/binary-stock-stacks.capture"
#define PAGE		4096
#define HDR		16		/* timestamp and commit word: 8-byte longs */
/* pids 512 apart share a tgid, 256 apart do not */
#define TGID_OF(pid)	(100000 + ((pid) & 255) + 1000 * (((pid) >> 8) & 1))

/* The pids page_pids() rewrote, and every pid met. */
struct pid_rewrite {
	unsigned long	n;
	int		pids[4096];
	int		nr_pids;
};

/*
 * Rewrite the pids of @pg's plain records (up to its first other one);
 * their pids into @ctx's (test_rewrite_pages()'s step).
 */
static void page_pids(unsigned char *pg, long index, void *ctx)
{
	struct pid_rewrite *pr = ctx;
	uint64_t commit, pos;
	uint32_t w;
	int32_t pid;

	(void)index;
	memcpy(&commit, pg + 8, 8);
	commit &= (1ULL << 27) - 1;
	for (pos = 0; pos + 8 <= commit && HDR + pos + 8 <= PAGE; pos += 4 + 4 * (w & 31)) {
		int i;

		memcpy(&w, pg + HDR + pos, 4);
		if (!(w & 31) || (w & 31) > 28)
			break;
		memcpy(&pid, pg + HDR + pos + 4 + 4, 4);
		if (pid > 0 && pid < 1000000) {
			/* +0, +512 (the same tgid), +256, +768 (another) */
			pid += 512 * (int32_t)(pr->n % 2) + 256 * (int32_t)(pr->n / 2 % 2);
			pr->n++;
			memcpy(pg + HDR + pos + 4 + 4, &pid, 4);
		}
		for (i = 0; i < pr->nr_pids && pr->pids[i] != pid; i++)
			;
		if (i == pr->nr_pids && i < (int)(sizeof(pr->pids) / sizeof(pr->pids[0])))
			pr->pids[pr->nr_pids++] = pid;
	}
}


/*
 * The records' pids (as the decoder reads them, record for record), comms
 * and tgids checked; the number of records that differ.
 */
static unsigned long check_pids(const char *dir, unsigned long *events)
{
	char *paths[] = { (char *)dir }, *err = NULL, want[32];
	struct source *src = source_open(paths, 1, NULL, NULL, &err);
	struct bin_decoder *dec = bin_decoder_open(dir);
	unsigned long bad = 0;
	struct parsed_line pl;
	struct bin_event e;

	if (!src || !dec)
		return ~0UL;
	while (source_next(src, &pl)) {
		if (pl.kind != LINE_EVENT && pl.kind != LINE_STACK)
			continue;
		(*events)++;
		while (bin_decoder_next(dec, &e) && e.damaged)
			;
		snprintf(want, sizeof(want), "c%d", e.pid);
		if (pl.pid != e.pid || pl.tgid != TGID_OF(e.pid) || !pl.comm || strcmp(pl.comm, want))
			bad++;
	}
	bin_decoder_close(dec);
	source_close(src);
	return bad;
}

static int shared_low_bits(void)
{
	char dir[] = "/tmp/mmlock-source.XXXXXX", cmd[256], path[160];
	static struct pid_rewrite pr;
	unsigned long events = 0, bad;
	int i, shared = 0;
	FILE *f, *g;

	if (!mkdtemp(dir))
		return 1;
	snprintf(cmd, sizeof(cmd), "cp -r %s %s/cap && chmod -R u+w %s/cap", STACKS, dir, dir);
	if (system(cmd))
		return 1;
	snprintf(path, sizeof(path), "%s/cap", dir);
	if (test_rewrite_pages(path, PAGE, page_pids, &pr))
		return 1;
	snprintf(path, sizeof(path), "%s/cap/tracefs/saved_tgids", dir);
	f = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/cap/tracefs/saved_cmdlines", dir);
	g = fopen(path, "w");
	if (!f || !g)
		return 1;
	for (i = 0; i < pr.nr_pids; i++) {
		int k;

		fprintf(f, "%d %d\n", pr.pids[i], TGID_OF(pr.pids[i]));
		fprintf(g, "%d c%d\n", pr.pids[i], pr.pids[i]);
		for (k = 0; k < i && (pr.pids[k] & 255) != (pr.pids[i] & 255); k++)
			;
		shared += k < i;
	}
	if (fclose(f) || fclose(g))
		return 1;
	snprintf(path, sizeof(path), "%s/cap", dir);
	bad = check_pids(path, &events);
	CHECK(pr.n > 100 && shared >= 8 && events >= pr.n && !bad,
	      "pids sharing their low bits: each record has its own pid's comm and tgid "
	      "(%lu pids rewritten, %d pids share low bits, %lu records, %lu wrong)", pr.n, shared,
	      events, bad);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : 0;
}

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
	if (shared_low_bits())
		return 1;
	return TEST_EXIT();
}
